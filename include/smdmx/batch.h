/* smdmx: many files converted, as smd2dmx, dmx2smd and smdmx convert convert the files and
 * folders they are given.
 *
 * smdmx_batch_convert plans a job per model (a folder's files with recursive; a VTA beside
 * its SMD joins it; with clips, every input goes into one DMX), names each output (output,
 * outdir keeping the folders below a folder given, or beside its input), refuses what cannot
 * work (a usage error: nothing runs) and fails the jobs that would write one file twice, then
 * runs the jobs on several threads (smdmx/convert.h) and puts their outputs in place. Without
 * keep_going it stops at the first failure the same way at any number of threads: the outputs
 * are put in place in input order and nothing after a failed input is. An option given that
 * applies to none of the jobs is a usage error; one that applies to some is a warning on each
 * of the others. The messages name the programs' options (given).
 *
 * The batch prints nothing: a caller's on_change sees the jobs settle in input order while
 * they run (a program prints them as they come, with a progress line). */
#ifndef SMDMX_BATCH_H
#define SMDMX_BATCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smdmx/convert.h"
#include "smdmx/error.h"
#include "smdmx/project.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Which files a batch takes, and where their outputs go by default. */
typedef enum smdmx_batch_program {
	SMDMX_BATCH_ANY,      /* SMD, SMA, PHYS, VTA and DMX; the output's kind from output or to */
	SMDMX_BATCH_SMD2DMX,  /* SMD, SMA, PHYS and VTA, to DMX */
	SMDMX_BATCH_DMX2SMD   /* DMX, to SMD */
} smdmx_batch_program;

/* The options a caller was given (the programs' options of these names), so that one that
 * applies to none of the jobs is refused and one that applies to some is said on the others.
 * Those a single conversion takes are smdmx/convert.h's bits. */
enum {
	SMDMX_BATCH_GIVEN_VTA = 1u << 0,
	SMDMX_BATCH_GIVEN_CLIP = 1u << 1,
	SMDMX_BATCH_GIVEN_CLIPS = 1u << 2,
	SMDMX_BATCH_GIVEN_FPS = SMDMX_CONVERT_GIVEN_FPS,
	SMDMX_BATCH_GIVEN_KEYS = SMDMX_CONVERT_GIVEN_KEYS,
	SMDMX_BATCH_GIVEN_KEY_TOLERANCE = SMDMX_CONVERT_GIVEN_KEY_TOLERANCE,
	SMDMX_BATCH_GIVEN_TARGET = SMDMX_CONVERT_GIVEN_TARGET,
	SMDMX_BATCH_GIVEN_ENCODING = 1u << 7,
	SMDMX_BATCH_GIVEN_ENCODING_VERSION = 1u << 8,
	SMDMX_BATCH_GIVEN_MODEL_VERSION = SMDMX_CONVERT_GIVEN_MODEL_VERSION,
	SMDMX_BATCH_GIVEN_GOLDSRC = 1u << 10,
	SMDMX_BATCH_GIVEN_LF = 1u << 11,
	SMDMX_BATCH_GIVEN_SCALE = SMDMX_CONVERT_GIVEN_SCALE,
	SMDMX_BATCH_GIVEN_UP_AXIS = SMDMX_CONVERT_GIVEN_UP_AXIS,
	SMDMX_BATCH_GIVEN_THREADS = 1u << 14,
	SMDMX_BATCH_GIVEN_LINKS = 1u << 15,
	SMDMX_BATCH_GIVEN_COUNT = 16
};

typedef enum smdmx_batch_state {
	SMDMX_BATCH_NOT_RUN,    /* not run: the batch stopped at an earlier failure */
	SMDMX_BATCH_CONVERTED,
	SMDMX_BATCH_FAILED,     /* its messages say why (planning fails the jobs of one output) */
	SMDMX_BATCH_UP_TO_DATE, /* update: its output is newer than everything it reads */
	SMDMX_BATCH_CANCELLED   /* ran after the batch's first failure: its outputs dropped */
} smdmx_batch_state;

typedef struct smdmx_batch_job {
	const char *const *inputs;  /* the model first; more with clips */
	size_t input_count;
	const char *vta;            /* its shapes (or, DMX to SMD, where they go), or NULL */
	const char *output;         /* the main output; "-": standard output */
	uint64_t size;              /* bytes of input */
	uint64_t read;              /* bytes of its input read so far, as it runs (a file read twice,
	                               or in parts on several threads, may count bytes twice: at most
	                               size is meant) */
	smdmx_batch_state state;
	const smdmx_message *messages; /* in the order a program prints them */
	size_t message_count;
	size_t messages_lost;       /* its messages memory could not hold (out of memory; else 0) */
	const char *const *written; /* the files put in place (up to date: its output) */
	size_t written_count;
	const char *const *deps;    /* more files read (a QC's includes, its models and VTAs) */
	size_t dep_count;
	unsigned used;              /* SMDMX_BATCH_GIVEN_*: given options that took effect */
} smdmx_batch_job;

typedef struct smdmx_batch smdmx_batch;

typedef struct smdmx_batch_options {
	smdmx_batch_program program;
	const char *const *inputs;  /* files, folders (with recursive) and "-" (standard input, alone) */
	size_t input_count;
	bool recursive;             /* a folder's files below it, in byte order of their names */
	const char *output;         /* the one output (one job, or every input with clips) */
	const char *outdir;         /* each output in this folder, below it as below a folder given */
	const char *to;             /* the outputs' extension (smd, sma, phys, vta, dmx; gltf or glb
	                               for SMDMX_BATCH_ANY), where the program does not say it */
	bool clips;                 /* every input into one DMX (output): the first the model, the
	                               others its animations */
	const char *qc;             /* SMDMX_BATCH_SMD2DMX: the QC whose $model (convert.model) is
	                               the one job, no inputs; its output beside the model's file
	                               (or in outdir) unless output */
	const char *stdin_name;     /* the name of the model read from standard input; NULL: "stdin" */
	bool update;                /* only jobs whose output is missing or older than what they read
	                               run, and replace it */
	bool keep_going;            /* every job runs whatever fails (else the first failure stops
	                               the batch, outputs put in place in input order) */
	bool biggest_first;         /* with keep_going and more than one job at once: the jobs start
	                               biggest first, so that no large file is left to run alone at
	                               the end; the outputs and messages are the same, only the time
	                               differs (without keep_going: a usage error, the jobs going in
	                               input order) */
	unsigned jobs;              /* jobs at once (at most SMDMX_PROJECT_JOBS_MAX); 0: the cores */
	unsigned threads;           /* threads reading one file; 0: the cores over the jobs */
	unsigned given;             /* SMDMX_BATCH_GIVEN_* */
	/* Each job's conversion: vta (given), qc (DMX to SMD), model, clip, scale, up_axis, force,
	   warnings_fail, notes, input_data (standard input's bytes) and the reading and writing
	   options; way, inputs, output, given, alone and defer are the batch's. Its allocator is
	   the whole batch's: every job's conversion takes from it, on the batch's threads at once,
	   and its memory_limit and fail_after count over all the jobs together. */
	smdmx_convert_options convert;
	/* Called under the batch's lock as jobs finish (finished of them, job_count): the jobs
	   before settled have their final state and messages and their files in place, in input
	   order (the files of several jobs are put in place a few jobs at a time); and as a job's
	   input is read, each time its read passes another hundredth of its size. */
	void (*on_change)(void *user, const smdmx_batch *b);
	void *user;
} smdmx_batch_options;

struct smdmx_batch {
	smdmx_error_code status;    /* SMDMX_ERROR_USAGE: the batch could not run (said in messages) */
	bool ok;                    /* every job converted or up to date */
	const smdmx_batch_job *jobs;
	size_t job_count;
	size_t settled;             /* the jobs before it are final (see on_change) */
	size_t finished;            /* jobs that ran, or failed in planning */
	size_t up_to_date, failed, not_run;
	const smdmx_message *messages; /* the batch's own (path NULL), said after the jobs' */
	size_t message_count;
	size_t messages_lost;       /* the batch's own that memory could not hold (each job's: its
	                               messages_lost) */
	bool broken_pipe;           /* standard output's reader went away (a program ends quietly) */
	bool out_of_memory;         /* memory ran out once files were in place (status
	                               SMDMX_ERROR_OUT_OF_MEMORY, ok false): the jobs' written lists
	                               say which are, whole; no more were put in place after; the
	                               messages memory could not hold are counted (messages_lost) */
};

/* NULL only when nothing was done: memory ran out before any file was put in place
 * (SMDMX_ERROR_OUT_OF_MEMORY) or o or one of its inputs is NULL (SMDMX_ERROR_USAGE), error
 * says which; free it with smdmx_batch_free. */
SMDMX_API smdmx_batch *smdmx_batch_convert(const smdmx_batch_options *o, smdmx_error *error);
SMDMX_API void smdmx_batch_free(smdmx_batch *b);

/* The files below dir a program takes, as recursive finds them (in byte order of their
 * names, folders' links not followed), NULL-terminated, into *paths (free with
 * smdmx_batch_files_free); false when a folder cannot be read (error names the first; the
 * files of the others are there), or memory ran out (SMDMX_ERROR_OUT_OF_MEMORY, *paths
 * NULL). The list and its paths are allocator's memory (NULL: malloc's), the walk's within
 * its memory_limit and fail_after. */
SMDMX_API bool smdmx_batch_files(smdmx_batch_program program, const char *dir, const smdmx_allocator *allocator,
                                 char ***paths, size_t *count, smdmx_error *error);
SMDMX_API void smdmx_batch_files_free(char **paths);

/* Two trees of model files paired by place, as `smdmx report A B` pairs them: a file's place
 * is its path below its tree without the extension (compared as the file system compares
 * names). Each file of A, in byte order, is paired with B's file of its place in another
 * format (a conversion's result), else in the same; then B's files left over are pairs of
 * their own. An SMD takes the VTA of its place with it; a VTA with no model of its place is
 * a pair of its own. */
typedef struct smdmx_tree_pair {
	const char *path[2];        /* A's file, B's file; NULL where that tree has none */
	const char *vta[2];         /* each side's VTA that goes with its SMD, or NULL */
} smdmx_tree_pair;

typedef struct smdmx_tree_pairs {
	const smdmx_tree_pair *pairs; /* A's files' pairs in A's order, then B's left over */
	size_t count;
} smdmx_tree_pairs;

/* NULL when a folder cannot be read (error names it, SMDMX_ERROR_IO) or memory ran out
 * (SMDMX_ERROR_OUT_OF_MEMORY); free the pairs with smdmx_tree_pairs_free (the paths are
 * theirs). They are allocator's memory (NULL: malloc's), the pairing's within its
 * memory_limit and fail_after. */
SMDMX_API smdmx_tree_pairs *smdmx_batch_pair_trees(const char *a, const char *b, const smdmx_allocator *allocator,
                                                   smdmx_error *error);
SMDMX_API void smdmx_tree_pairs_free(smdmx_tree_pairs *pairs);

#ifdef __cplusplus
}
#endif
#endif
