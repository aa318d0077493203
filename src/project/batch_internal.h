/* A batch (smdmx/batch.h) between its two files: its jobs and the batch itself; the
 * planning (batch_plan.c: the jobs made of the inputs, their outputs named, the options
 * checked against them, what is up to date) that the running (batch.c: workers, outputs put
 * in place, the end) calls, never the other way. */
#ifndef SMDMX_BATCH_INTERNAL_H
#define SMDMX_BATCH_INTERNAL_H

#include "project/project_internal.h"
#include "smdmx/batch.h"
#include "support/internal.h"

typedef struct bjob {
	char **inputs;        /* the model first; more with clips */
	size_t input_count;
	char *vta;
	char *out;
	uint64_t size;
	pj_msgs msgs;
	char **written;       /* the files put in place (a commit's list, or its conversion's) */
	size_t written_count;
	smdmx_convert_result *result; /* one job alone: its conversion's result, whose written list
	                                 is the job's (kept whole, whatever runs out after) */
	char **deps;
	size_t dep_count;
	unsigned used;
	bool ran;             /* ran, or failed in planning, or up to date */
	bool failed;
	bool lost;            /* memory ran out where its messages or written files are kept: the
	                         batch ends out of memory (what it says would be short) */
	bool up_to_date;
	bool replace;         /* update: its output is older: replaced as with force */
	bool cancelled;
	pj_outputs pending;   /* several jobs: its outputs, written, not yet in place */
	uint64_t read;        /* bytes of its input read, as it runs */
	unsigned read_told;   /* hundredths of size read, as on_change was last told */
	sm_alloc mem;         /* what it allocates as it runs, on its worker (its messages, the
	                         files it read): the batch's hooks, its own counts (threads) */
} bjob;

/* Without keep_going, jobs run in input order at most ORDER_WINDOW ahead of the first not yet
 * put in place. The outputs of several jobs are put in place a few at a time: COMMIT_JOBS
 * jobs, COMMIT_FILES files (each open until then) or COMMIT_BYTES of input, or before a job
 * that large runs. A file is flushed to the disk before its rename, and the flush of files
 * written a while ago finds them there (their writing was started as they were closed, and
 * one commit of the file system's journal covers them all), where a flush after each file
 * waits for the disk every time. */
enum { ORDER_WINDOW = 32, COMMIT_JOBS = 16, COMMIT_FILES = 32 };
#define COMMIT_BYTES ((uint64_t)4 << 20)

typedef struct batch {
	smdmx_batch pub;
	smdmx_batch_job *pubjobs;
	const smdmx_batch_options *o;
	smdmx_convert_options conv; /* the jobs' (threads set) */
	pj_msgs said;
	bjob *jobs;
	size_t count, cap;
	size_t *order;        /* jobs by decreasing size (keep_going), else in input order */
	size_t next;          /* next in order to start */
	bool stop;            /* keep_going: nothing stops; else a failure in planning */
	bool ordered;         /* no keep_going, several jobs */
	size_t limit;         /* ordered: the first input that failed (none after it converts) */
	size_t committed;     /* ordered: jobs before this are in place (or failed) */
	os_mutex *lock;
	os_cond *moved;       /* ordered: committed or limit moved */
	bool deferred;        /* several jobs: their outputs put in place a few at a time */
	bool flushing;        /* a worker flushes a group of them (without the lock) */
	size_t *group;        /* the group being put in place */
	size_t *wait, waiting; /* not ordered: the jobs that ran since the last commit */
	bool oom;             /* memory ran out on a worker: the batch ends out of memory */
	sm_budget budget;     /* convert.allocator's, for every job (conv.allocator) */
	sm_budget own;        /* the batch's own memory, within conv.allocator: it knows when that
	                         ran out, on any thread (a job's conversion running out is the
	                         job's failure, said in its messages) */
	smdmx_allocator own_hooks;
	sm_alloc mem;         /* the batch's own memory (its plan, jobs, messages), on own_hooks */
	sm_alloc home;        /* where the batch itself is: the caller's allocator */
} batch;

/* The programs' names of the SMDMX_BATCH_GIVEN_* options, by bit. */
extern const char *const bt_given_names[SMDMX_BATCH_GIVEN_COUNT];

/* ---- batch_plan.c ---- */

/* The batch's options that go together (biggest_first with keep_going) and the conversions'
 * as smdmx_convert_options_check takes them (an encoding's version, a model format, one
 * allocator...); false: a usage error, said, before any walk. */
bool bt_options_valid(batch *b);
/* The jobs of the inputs (a QC's one job; folders walked; a VTA with its SMD), their outputs
 * named and the ones that would write one file twice failed; false: a usage error, said. */
bool bt_make_plan(batch *b);
/* The options given against the jobs: one that applies to none refused (false), one that
 * applies to some said on the others. */
bool bt_check_options(batch *b);
/* update: the jobs whose output is newer than all they read marked up to date. */
void bt_plan_update(batch *b);
/* The conversion a job is. */
smdmx_convert_way bt_job_way(const batch *b, const bjob *j);
/* The SMDMX_BATCH_GIVEN_* options a conversion of way w takes. */
unsigned bt_applies(smdmx_convert_way w);
/* A file a job read besides its inputs (for a depfile), in m. */
void bt_job_dep(sm_alloc *m, bjob *j, const char *path);
/* A job's written list given back. */
void bt_written_free(batch *b, bjob *j);
/* The jobs' indexes sorted by cmp (bt_by_size: biggest first), ties in input order; NULL when
 * out of memory. */
size_t *bt_sorted(batch *b, int (*cmp)(const void *, const void *));
int bt_by_size(const void *a, const void *b);

#endif
