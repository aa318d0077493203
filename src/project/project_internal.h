/* QC projects converted (smdmx/project.h), private to this folder: a library of QC projects,
 * the tasks planned for the files they name (plan.c), run (run.c), and the QC files written
 * with their edits (write.c), the record of what was written (record.c); the run itself, and
 * the helpers below, in project.c. */
#ifndef SMDMX_PROJECT_INTERNAL_H
#define SMDMX_PROJECT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/os.h"
#include "smdmx/output.h"
#include "smdmx/project.h"
#include "smdmx/smdmx.h"
#include "support/internal.h"

/* A task's status. */
#define PJ_OK 0
#define PJ_FAILED 1

/* ---- messages: what a run says, in order (smdmx_message) ---------------------------------- */

typedef struct pj_msgs {
	smdmx_message *items;
	size_t count, cap;
	size_t warnings, errors;    /* counted even when memory for the text ran out */
	size_t lost;                /* messages that could not be kept: out of memory */
	const struct sm_alloc *mem; /* their memory (pj_malloc's m); NULL: malloc's, through the
	                               run's failure switch */
} pj_msgs;

/* kind: "warning" or "note" (an error is said with its code: pj_error). */
void pj_add(pj_msgs *m, const char *path, uint32_t line, uint32_t column, const char *kind, const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 6, 7)));
void pj_error(pj_msgs *m, smdmx_error_code code, const char *path, uint32_t line, uint32_t column, const char *fmt, ...)
	__attribute__((format(OS_PRINTF, 6, 7)));
/* Another's message as it is (its kind, code and place). */
void pj_add_message(pj_msgs *m, const smdmx_message *x);
/* A failure, at its own file when it names one. */
void pj_add_error(pj_msgs *m, const char *path, const smdmx_error *e);
/* Each warning, "(N times)" after one seen more than once. */
void pj_add_warnings(pj_msgs *m, const char *path, const smdmx_warnings *w);
void pj_msgs_free(pj_msgs *m);

/* ---- text, strings and paths -------------------------------------------------------------- */

typedef struct pj_text {
	char *text;
	size_t len, cap;
	bool lost;            /* out of memory: the text is not whole */
	const struct sm_alloc *mem; /* where the text is (pj_malloc's m) */
} pj_text;
void pj_putc(pj_text *b, char c);
void pj_puts(pj_text *b, const char *s); /* NULL: nothing */

/* Out of memory: an allocation that fails gives NULL, which every step takes as nothing made.
 * A job knows that its memory ran out from its budget, on any thread (QC projects:
 * qp_ran_out; a batch's and a conversion's own budget, b->own and r->own; the walks and the
 * pairing of trees, a budget of their own), and ends SMDMX_ERROR_OUT_OF_MEMORY. Each of
 * these is a block in m (sm_new's, freed by pj_free with m's hooks); m is never NULL. */
void *pj_malloc(const struct sm_alloc *m, size_t size);
void *pj_calloc(const struct sm_alloc *m, size_t count, size_t size);
void *pj_realloc(const struct sm_alloc *m, void *p, size_t size);
void pj_free(const struct sm_alloc *m, void *p);
/* NULL for NULL. */
char *pj_strdup(const struct sm_alloc *m, const char *s);
char *pj_asprintf(const struct sm_alloc *m, const char *fmt, ...) __attribute__((format(OS_PRINTF, 2, 3)));
char *pj_path_absolute(const struct sm_alloc *m, const char *path);
char *pj_path_relative(const struct sm_alloc *m, const char *from_file, const char *to);
char *pj_path_with_extension(const struct sm_alloc *m, const char *path, const char *ext);
char *pj_path_join(const struct sm_alloc *m, const char *dir, const char *rel);
char *pj_path_with_suffix(const struct sm_alloc *m, const char *path, const char *suffix);
/* os_path_key's key of path. */
char *pj_path_key(const struct sm_alloc *m, const char *path);
/* The whole file at path, NUL-terminated, or NULL. */
char *pj_read_whole(const struct sm_alloc *m, const char *path, size_t *size);
/* The names in an open folder (which it closes), hidden ones aside, in byte order; each and
 * the array malloc'd (NULL when there are none). */
char **pj_dir_names(const struct sm_alloc *m, os_dir *d, size_t *count);

/* ---- a conversion's allocator (convert.c) ---------------------------------------------------- */

/* Whether a is given (any hook or limit), and whether o gives one both to the conversion and
 * to one of its steps, which PJ_ALLOCATOR_TWICE refuses. */
bool pj_allocator_given(const smdmx_allocator *a);
bool pj_allocator_twice(const smdmx_convert_options *o);
#define PJ_ALLOCATOR_TWICE \
	"an allocator given both to the conversion and to one of its steps (a reader's, a writer's or the model's " \
	"options): give it once, in the conversion's allocator"

/* ---- walking a folder (walk.c) ----------------------------------------------------------- */

/* The files a walk takes: a program's inputs, or QC scripts (smdmx_project_files). */
typedef enum walk_kind { WALK_ANY, WALK_SMD, WALK_DMX, WALK_QC } walk_kind;
walk_kind pj_walk_kind_of(smdmx_batch_program program);
/* Whether a file of this extension is taken. */
bool pj_wanted(walk_kind kind, const char *ext);
typedef struct pj_found {
	char *path;
	char *rel;            /* below the folder walked, or the base name of a file given */
} pj_found;
typedef struct pj_found_list {
	pj_found *items;
	size_t count, cap;
	const struct sm_alloc *mem; /* where its paths and items are (pj_malloc's m) */
} pj_found_list;
/* Where a platform object of m lives (os_dir_open_in, os_mutex_create_in): m's hooks. */
os_mem pj_os_mem(const struct sm_alloc *m);
/* Adds path and rel (malloc'd; both freed when they cannot be added, or either is NULL). */
void pj_found_push(pj_found_list *l, char *path, char *rel);
void pj_found_free(pj_found_list *l);
/* Every wanted file below dir, in byte order of the names. Links to folders are not followed
 * (no loops). A folder that cannot be read is said (into said, and the first into error) and
 * the walk goes on. */
bool pj_walk(walk_kind kind, const char *dir, const char *rel, pj_found_list *out, unsigned depth, pj_msgs *said,
             smdmx_error *error);
/* A folder named without the separators at its end; with one where only the end had one
 * ("tree/"), so that the paths made below it take the separator the user wrote. */
char *pj_folder_of(const struct sm_alloc *m, const char *a);

/* ---- outputs: a task's set (smdmx/output.h) ------------------------------------------------- */

typedef smdmx_output pj_output;
typedef struct pj_outputs {
	smdmx_outputs *set;
	const smdmx_allocator *hooks; /* the set's allocator (NULL: malloc's) */
	const struct sm_alloc *mem;   /* given: the commit's list of files written is made of
	                                 pj_malloc's blocks in it (else the set's, as
	                                 smdmx_outputs_commit makes it) */
	smdmx_error_code code;        /* the last failure's (pj_output_allowed said of this set too) */
	bool force;
	bool same_ok;         /* a file already there with the very bytes written is no clash: it
	                         stays (one QC at a time into one folder) */
} pj_outputs;
/* Whether path may be written; its code (said in why) when not, in set->code too (set may
 * be NULL). */
bool pj_output_allowed(pj_outputs *set, const char *path, char *const *inputs, size_t input_count, bool force, char *why,
                       size_t why_size);
pj_output *pj_outputs_open(pj_outputs *set, const char *path, char *why, size_t why_size);
size_t pj_outputs_count(const pj_outputs *set);
pj_output *pj_outputs_item(pj_outputs *set, size_t index);
bool pj_output_write(void *user, const void *data, size_t size);
void pj_outputs_abort(pj_outputs *set);
/* The set flushed, not put in place (false, said in why, and the set aborted, on failure). */
bool pj_outputs_finish(pj_outputs *set, char *why, size_t why_size);
/* The set's writing to the disk started, not waited for (sm_outputs_start): its commit, later,
 * flushes what is left and says a failure. */
void pj_outputs_start(pj_outputs *set);
/* The set's files waited for on the disk, before its commit (sm_outputs_flush). */
void pj_outputs_flush(pj_outputs *set);
bool pj_outputs_commit(pj_outputs *set, char ***written, size_t *written_count, char *why, size_t why_size);
bool pj_output_clashes(const pj_output *out);

/* ---- one conversion (smdmx_convert): the run's helpers (convert_run.c), a QC's model as its
 * input (convert_qc.c), the ways and the call (convert.c) ------------------------------------- */

typedef struct cv_run {
	const smdmx_convert_options *o; /* the caller's, or opts */
	smdmx_convert_options opts;     /* with the job's allocator in every step's options */
	sm_budget budget;               /* the job's allocator: every step's memory counted together */
	smdmx_allocator hooks;          /* what every step takes (zero: malloc's) */
	sm_budget own;                  /* the conversion's own memory, within hooks: it knows when
	                                   that ran out (a step running out is the step's failure,
	                                   said as its error) */
	smdmx_allocator own_hooks;
	sm_alloc mem;                   /* the conversion's own memory (through own_hooks): its
	                                   messages, its list of files read, its result */
	pj_msgs said;
	pj_outputs outs;
	char **deps;
	size_t dep_count;
	unsigned used;
	bool broken_pipe;     /* standard output's reader went away */
	bool posed;           /* the picture's pose: the scene's first clip at its first frame */
	char why[1024];
} cv_run;

/* A file read besides the inputs, each once. */
void cv_add_dep(cv_run *r, const char *path);
/* A failure said (at its own file when the error names one), an error message, the warnings
 * of a file; false. */
bool cv_fail(cv_run *r, const char *path, const smdmx_error *e);
bool cv_fail_msg(cv_run *r, smdmx_error_code code, const char *path, const char *msg);
/* w's warnings said of path (a file's own where they name one), and its room given back. */
void cv_warn(cv_run *r, const char *path, smdmx_warnings *w);
/* Whether the warnings said so far let the input pass (warnings_fail). */
bool cv_warnings_allowed(cv_run *r, const char *in);
/* An output opened in the run's set, refused (said) where it may not be written. */
pj_output *cv_open_out(cv_run *r, const char *path);
bool cv_fail_write(cv_run *r, pj_output *out, const smdmx_error *e);
void cv_summarize(const smdmx_scene *s, char *buf, size_t size);
void cv_note_written(cv_run *r, const char *in, const char *what);
void cv_note_scene(cv_run *r, const char *in, const smdmx_scene *scene);
bool cv_write_dmx(cv_run *r, smdmx_dm *dm, const char *path);
bool cv_write_smd(cv_run *r, const smdmx_scene *s, const char *path, const smdmx_smd_write_options *w);
bool cv_shape(cv_run *r, smdmx_scene *scene, const char *in);
smdmx_dm *cv_read_dmx(cv_run *r, const char *path, smdmx_error *err, smdmx_warnings *w);
smdmx_scene *cv_read_smd(cv_run *r, const char *path);
void cv_animation_options(cv_run *r, const smdmx_scene *s, const char *in);
/* A QC's $model as a scene (the picture's way), and written as a model DMX. */
smdmx_scene *cv_qc_scene(cv_run *r);
/* The SMD inputs as one scene: the first file, the animations of the others as clips (the
 * same names refused), the VTA's shapes; --scale and --up-axis applied, the animation options
 * told. NULL (said) when it cannot be made. */
smdmx_scene *cv_smd_scene(cv_run *r);
/* SMDMX_CONVERT_TO_GLTF (convert_gltf.c). */
bool cv_to_gltf(cv_run *r);
bool cv_qc_to_dmx(cv_run *r);

/* Strings to numbers, for the library's keys and outputs (tens of thousands of files). */
typedef struct str_slot {
	char *s;              /* a copy; NULL: empty */
	uint32_t value;       /* SMDMX_NONE: no longer there */
} str_slot;

typedef struct str_map {
	str_slot *slots;
	size_t cap, count;    /* cap a power of two, at least twice count */
	const struct sm_alloc *mem; /* where the slots and strings are (pj_malloc's m) */
} str_map;

typedef enum task_kind {
	TASK_COPY = 0,
	TASK_SMD_TO_DMX,
	TASK_DMX_TO_SMD,
	TASK_VTA_REBASE, /* a VTA eyelid lines read, its frame 0 made the DMX's base (defaultflex) */
	TASK_CONSUMED    /* a flexfile VTA that went into its model's DMX: nothing to do */
} task_kind;

typedef struct project project;

typedef struct qp_sum {
	uint64_t hash, size;
} qp_sum;

/* One file to convert or copy. Projects that need one file made the same way share its task
 * (the same key); one made another way (a reference SMD with another VTA) is a task of its
 * own, its output named after its QC. */
typedef struct task {
	task_kind kind;
	char *src, *dst;
	char *key;           /* what the output is made of: one task per key in the library */
	project *proj;       /* the project that planned it: ref, model and vta are its QC's */
	uint32_t ref;        /* the first reference naming it */
	uint32_t model;      /* a $model whose file it is (rig and shapes), else SMDMX_NONE */
	uint32_t vta;        /* that $model's flexfile (SMD to DMX) */
	double fps;
	bool reference;      /* DMX to SMD: write a reference (a $model, $body, ... file) */
	bool up_to_date;     /* -u: its pj_outputs are newer than what it reads: not run */
	bool replace;        /* -u: its pj_outputs are older: replaced */
	/* results */
	char *model_lines, *att_lines; /* DMX to SMD: QC lines for its $model ($attachment lines
	                                  also for a $body's or $bodygroup's model) */
	bool has_vta;
	char *vta_dst;
	/* the names reserved before any worker runs for dst and vta_dst where a file this QC did
	 * not write stands (qp_reserve_other_names), taken when its bytes differ from the output's */
	char *other_dst, *other_vta;
	pj_msgs diag;
	int status;
	bool copied;         /* -k: it failed, and its source was copied unchanged (the QC names the copy) */
	const char *why_copy; /* a model file copied, not converted, and why (a note) */
	pj_outputs outs;
	char **written;
	size_t written_count;
	/* the hash (qp_file_hash) and size of each of written, taken by its worker once they are in place
	 * (qp_task_sums): the run's merge and record read them, never the files again; NULL when
	 * not taken (a file up to date, -u, or one that could not be read back); the first
	 * sum_count of written (a file copied for the QC files later joins the list unhashed) */
	qp_sum *sums;
	size_t sum_count;
} task;

typedef struct library library;

/* One QC and what it names. */
struct project {
	library *lib;
	smdmx_qc *qc;
	const char *qcpath;
	task **tasks;        /* planned here, before they join the library's */
	size_t task_count;
	uint32_t *task_of;   /* per reference: its task in the library, or SMDMX_NONE */
	char **ref_out;      /* per reference found: its place below OUTDIR, unconverted */
	bool *vta_consumed;  /* per reference: a flexfile VTA that goes into its model's DMX */
	pj_msgs diag;       /* the QC's own messages */
	size_t qc_errors;    /* lines of the QC that could not be read (-k) */
	bool ok;             /* read and planned without an error */
	bool failed;         /* its QC files could not be written */
	bool unwritable;     /* its written QC would name files it should not: not written, even with -k */
};

/* A QC given: its project, or SMDMX_NONE and why it could not be read. */
typedef struct pj_given {
	const char *path;
	uint32_t project;
	pj_msgs said;
} pj_given;

/* The QCs converted together, into one tree. */
struct library {
	smdmx_project_options opts; /* the run's, threads set and the job's allocator in every
	                               step's options (o points here) */
	const smdmx_project_options *o;
	sm_budget budget;    /* the run's allocator (the caller's): every byte of the run counted
	                        together, from every thread */
	sm_alloc mem;        /* the run's own memory, through the budget: every list, path and
	                        message (pj_malloc's m; its hooks alone, so that workers share it) */
	pj_msgs said;        /* the run's own messages: the output folder, the record */
	const char *to;      /* "dmx" or "smd" */
	bool rig_dmx;
	char *root;          /* absolute, ending in '/' */
	char *outdir;        /* absolute, ending in '/' */
	pj_given *given;     /* the QCs given, each once */
	size_t given_count;
	project *projects;
	size_t project_count;
	task **tasks;
	size_t task_count, task_cap;
	str_map keys;        /* task keys: their task */
	str_map outs;        /* outputs of tasks (dst and vta_dst): their task, SMDMX_NONE once moved */
	str_map seen;        /* missing files and consumed VTAs already listed */
	char **missing;      /* files named that are not there (each once) */
	size_t missing_count;
	char **consumed;     /* VTAs that went into DMXs: inputs for --depfile */
	size_t consumed_count;
	char **qc_written;   /* the QC files written */
	size_t qc_written_count;
	char **qc_kept;      /* the QC files already as they would be written, left as they are */
	size_t qc_kept_count;
	str_map rec;         /* the record of what smdmx qc wrote into OUTDIR (record.c): */
	struct qp_rec *recs; /* a path below OUTDIR: its entry */
	size_t rec_count;
	os_mutex *lock;
	size_t next;
	bool stop;
};

/* Whether memory ran out anywhere in the run, on any thread and in any step: an allocation
 * its budget refused or its allocator could not make (every byte of the run goes through
 * it). Each step stops there; the run ends out of memory. */
static inline bool qp_ran_out(const library *l)
{
	return sm_budget_ran_out(&l->budget);
}

typedef struct rendered {
	char *path;          /* the output */
	pj_text text;
	const project *by;
	uint32_t file;       /* of by's QC */
} rendered;

/* Helpers (project.c): the string map; a list grown by one; path's place below OUTDIR; a
 * reference's new name in its QC's spelling. */
uint32_t qp_str_get(const str_map *m, const char *s);
/* The stem of a path's file name ("a/b.qc": "b"). */
char *qp_stem_of(const struct sm_alloc *m, const char *path);
/* A name for an output of task t (the library's task index) that path would have been, where
 * something else already is: path with "_" and the stem of QC qcpath (then a number) before
 * its extension, free in the library and on the disk; it joins the library's pj_outputs. */
char *qp_other_name(library *l, const char *path, const char *qcpath, const task *t, uint32_t index);
void qp_str_set(str_map *m, const char *s, uint32_t value);
void qp_str_map_free(str_map *m);
void qp_list_push(const struct sm_alloc *m, char ***list, size_t *count, char *s);
char *qp_out_path(const library *l, const char *path);
char *qp_vta_name(const project *p, uint32_t model, const char *path);
char *qp_new_name(const struct sm_alloc *m, const char *name, const char *src, const char *dst);

/* Planning (plan.c): the tasks of a project; its missing files counted into the
 * library's; its tasks joined to the library's (one per key, pj_outputs apart); -u's pass; the
 * end of a task and of the library. */
bool qp_ext_is(const char *path, const char *ext);
bool qp_plan(project *p);
void qp_add_missing(library *l, const char *path);
void qp_count_missing(library *l, const project *p);
void qp_join(library *l, project *p);
void qp_plan_update(library *l);
void qp_task_free(task *t);
/* Whether a task's output took the place of its source (plan.c, with the tasks). */
bool qp_converted(const task *t);
/* The first reference of p's QC that names t's file with $body or a $bodygroup's studio, or
 * SMDMX_NONE. */
uint32_t qp_body_ref(const project *p, const task *t);

/* The record of what smdmx qc wrote into OUTDIR (record.c): read before the run; whether
 * the file at path is this QC's own output, as an earlier run wrote it (replaced without
 * --force); a file written now, for a QC; written after the run (the tasks' pj_outputs joined). */
void qp_record_load(library *l);
bool qp_record_own(const library *l, const char *path, const char *qcpath);
void qp_record_written(library *l, const char *path, const char *qcpath);
/* the same, of a file whose hash and size are known */
void qp_record_summed(library *l, const char *path, const char *qcpath, uint64_t hash, uint64_t size);
void qp_record_save(library *l);
void qp_record_free(library *l);

/* Running (run.c): a worker takes tasks in the order planned until none is left. */
/* src copied byte for byte into a new output of set at dst (pj_output_allowed with allow for
 * its force, ins for its inputs): NULL, or the path where it failed (src or dst), why said. */
const char *qp_copy_into(pj_outputs *set, const char *src, const char *dst, char *const *ins, size_t ins_count, bool allow,
                         char *why, size_t why_size);
void qp_worker(void *arg);
/* Before any worker runs, in task order: a name of its own for each output a file stands at
 * that is not this QC's own earlier output (and no --force or -u replaces it), so that the
 * names are the plan's, the same at every -j. */
void qp_reserve_other_names(library *l);
/* After the run: a task whose files hold the very bytes another task's of the same file do
 * names that one's instead, its own removed, said: one file made one way is written once,
 * where the plan's keys told two ways apart that came to one. */
void qp_merge_same(library *l);
/* The XXH64 hash and the size of the file at path (record.c); false when it cannot be read. */
bool qp_file_hash(const char *path, uint64_t *hash, uint64_t *size);
/* The hashes of the files t wrote, taken on its worker (t->sums: left NULL if one cannot be
 * read); the hash and size of its file k, as taken or from the file. */
void qp_task_sums(task *t);
bool qp_task_sum(const task *t, size_t k, uint64_t *hash, uint64_t *size);

/* The QC files (write.c): the references renamed and the lines moved; the QC files rendered
 * and written; the library freed. */
bool qp_edit_names(project *p);
bool qp_edit_lines(project *p);
/* The QC files of p rendered with its edits, each once over the library (done: those
 * rendered before; the new ones into *mine_out). */
bool qp_render_qc_files(project *p, const rendered *done, size_t done_count, rendered **mine_out, size_t *mine_count);
bool qp_write_qc_files(project *p, rendered **done, size_t *done_count);
void qp_library_free(library *lib);

#endif /* SMDMX_PROJECT_INTERNAL_H */
