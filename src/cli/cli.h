/* The command-line programs smdmx, smd2dmx and dmx2smd: shared declarations.
 *
 * A run is a batch of jobs, one per model to convert. Each job collects its diagnostics in
 * its own buffer; the batch prints them in input order, whatever order the workers finish
 * in, so the output of a run never depends on -j. A job writes each output to a temporary
 * file in the target directory and renames it into place only when everything succeeded.
 *
 * Exit codes: 0 success, 1 at least one file failed, 2 a usage error. */
#ifndef SMDMX_CLI_H
#define SMDMX_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../platform/os.h"
#include "../render/render.h"
#include "smdmx/smdmx.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

typedef enum tool_kind { TOOL_SMDMX, TOOL_SMD2DMX, TOOL_DMX2SMD } tool_kind;

/* Options whose use depends on the conversion: each is honoured where it applies, refused
 * where it applies to no input (a usage error), and said where it applies to some inputs of a
 * batch but not to this one (a warning on that input). doc/usage.md "Options and what they apply
 * to". */
enum {
	OPT_VTA = 1u << 0,
	OPT_CLIP = 1u << 1,
	OPT_CLIPS = 1u << 2,
	OPT_FPS = 1u << 3,
	OPT_KEYS = 1u << 4,
	OPT_KEY_TOLERANCE = 1u << 5,
	OPT_TARGET = 1u << 6,
	OPT_ENCODING = 1u << 7,
	OPT_ENCODING_VERSION = 1u << 8,
	OPT_MODEL_VERSION = 1u << 9,
	OPT_GOLDSRC = 1u << 10,
	OPT_LF = 1u << 11,
	OPT_SCALE = 1u << 12,
	OPT_UP_AXIS = 1u << 13,
	OPT_THREADS = 1u << 14,
	OPT_COUNT = 15
};

/* What a job converts: by its input's and its output's side. */
typedef enum direction { DIR_SMD_TO_DMX, DIR_DMX_TO_SMD, DIR_DMX_TO_DMX, DIR_SMD_TO_SMD } direction;

/* Everything the command line says about a conversion. */
typedef struct conv_opts {
	tool_kind tool;
	const char *name;      /* the program's name, for messages */
	const char *out;       /* -o: the one output */
	const char *outdir;    /* -d: outputs go here */
	const char *to;        /* --to: smdmx convert's output extension with -d or beside the input */
	const char *vta;       /* --vta */
	const char *clip_name; /* --clip */
	const char *depfile;   /* --depfile */
	const char *report;    /* --report: an HTML page of the batch (report.c) */
	const char *qc;        /* --qc: smd2dmx reads the model from this QC; dmx2smd writes it */
	const char *model;     /* --model: the $model of the QC */
	bool clips, recursive, keep_going, force, quiet, werror, verbose;
	bool update;           /* -u: only inputs newer than their output (which is then replaced) */
	bool drawn;            /* a QC's scene is drawn, not written (qc_model_scene) */
	bool rig_in_qc;        /* qc_model_scene: the rig stays in the QC (smdmx qc --rig qc) */
	unsigned given;        /* OPT_*: the options the command line gave */
	unsigned jobs;         /* -j; 0: the number of cores */
	unsigned threads;      /* --threads: threads for one file; 0: the cores left to each job */
	size_t max_warnings;   /* shown per file; 0: all */
	double scale;          /* --scale; 1: none */
	char up_axis;          /* --up-axis; 0: none */
	smdmx_smd_read_options ropts;
	smdmx_dmx_read_options xopts; /* DMX reading (threads) */
	smdmx_smd_write_options wopts;
	smdmx_model_options mopts;
	smdmx_dmx_write_options dopts;
} conv_opts;

/* Diagnostics of one job, in the order they were made. */
typedef struct diag_buf {
	char *text;
	size_t len, cap;
	size_t warnings, hidden, errors;
} diag_buf;

/* -j and --threads take at most this many: workers' threads are arrays of it. */
#define CLI_JOBS_MAX 256

/* Outputs written whole or not at all: the library's (smdmx/output.h). A job's set, made as
 * its first output opens; force and same_ok become the set's flags as it commits. */
typedef smdmx_output output;
typedef struct outputs {
	smdmx_outputs *set;
	bool force;
	bool same_ok;         /* a file already there with the very bytes written is no clash: it
	                         stays (smdmx qc, one QC at a time into one folder) */
} outputs;
/* The outputs open in a set, and one of them. */
size_t outputs_count(const outputs *set);
output *outputs_item(outputs *set, size_t index);
/* The file at path holds the same bytes as the file at other (other not NULL) or as the
 * len bytes at data. */
bool file_same_bytes(const char *path, const char *other, const void *data, size_t len);
/* Something is already at out's path that is not the very bytes out holds. */
bool output_clashes(const output *out);

/* One conversion: its inputs, its planned output and, once run, what it did. */
typedef struct job {
	char **inputs;        /* the model first; more with --clips */
	size_t input_count;
	char *vta;            /* flex shapes for the model, or NULL */
	char *out;            /* the main output ("-": standard output) */
	uint64_t size;        /* bytes of input, to start the biggest first */
	/* results */
	int status;           /* EXIT_OK or EXIT_FAILED */
	bool ran;
	diag_buf diag;
	char **written;       /* outputs renamed into place */
	size_t written_count;
	char **deps;          /* more files read (a QC's includes, its models and VTAs), for --depfile */
	size_t dep_count;
	unsigned used;        /* OPT_*: options that took effect on what the input holds */
	bool up_to_date;      /* -u: its output is newer than everything it reads: not run */
	bool replace;         /* -u: its output is older: replaced as with -f */
	bool alone;           /* the batch's only job */
	outputs pending;      /* job_run with defer: its outputs, finished, not yet in place */
	bool cancelled;       /* ran, but after the batch's first failure: its outputs dropped */
} job;

/* The job's direction, from its input and output names (and, for standard input and output,
 * the program and --to) (convert.c). */
direction job_direction(const conv_opts *o, const job *j);

/* Records a file the job read, for --depfile (convert.c: the batch calls the conversion,
 * never the other way). */
void job_dep(job *j, const char *path);

/* ---- options (options.c) ------------------------------------------------------------- */

/* The program these files are built into (each is built once per program). */
#if defined(SMDMX_TOOL_SMD2DMX)
#define TOOL TOOL_SMD2DMX
#define NAME "smd2dmx"
#elif defined(SMDMX_TOOL_DMX2SMD)
#define TOOL TOOL_DMX2SMD
#define NAME "dmx2smd"
#else
#define TOOL TOOL_SMDMX
#define NAME "smdmx"
#endif

/* The command line being read: the options, and what was said explicitly (a --target only
 * fills in what was not). rc: -1 while reading on, else the exit status. hint follows a usage
 * error: " (try 'smdmx qc --help')". */
typedef struct opt_state {
	conv_opts *o;
	int argc;
	char **argv;
	int i;
	int rc;
	const char *hint;
	bool explicit_encoding, explicit_version, explicit_model;
	const char *target;
} opt_state;

/* A usage error of the command being read, said with its hint: EXIT_USAGE. */
int opt_error(opt_state *st, const char *fmt, ...) __attribute__((format(OS_PRINTF, 2, 3)));
/* The option a at st->i (v the argument after it) when it is one of the conversions' options
 * that set what a batch does (outputs, -r, -f, -u, -k, -q, -v, -W, -j, --threads, --depfile,
 * --max-warnings), or of what is written and how it is read (--target, --encoding and their
 * versions, --scale, --up-axis, clips, --vta, --qc, --model, --keys, --fps, --name, --lf):
 * true, its value taken (st->i moved) and checked (st->rc set on a usage error). */
bool batch_option(opt_state *st, const char *a, const char *v);
bool format_option(opt_state *st, const char *a, const char *v);
/* --target: the encoding, its version and the model format it says, where not given; false
 * (st->rc set) for an unknown target. */
bool apply_target(opt_state *st);

/* ---- diagnostics (diag.c) ---------------------------------------------------------------- */

/* Adds "path:line:col: kind: message" (or "path: kind: message" without a line). Warnings
 * past the per-file bound are only counted; errors are always kept. */
void diag_add(diag_buf *d, const conv_opts *o, const char *path, uint32_t line, uint32_t col, const char *kind,
              const char *fmt, ...) __attribute__((format(OS_PRINTF, 7, 8)));
void diag_error(diag_buf *d, const char *path, const smdmx_error *e);
void diag_warnings(diag_buf *d, const conv_opts *o, const char *path, const smdmx_warnings *w);
/* Closes the buffer: a line for the warnings not shown. */
/* The library's messages (a conversion's, a project's) as this program prints them, into d:
 * -W, -q and --max-warnings applied, a file already there said with what to do about it. */
void diag_take(diag_buf *d, const conv_opts *o, const smdmx_message *m, size_t n);
void diag_finish(diag_buf *d, const conv_opts *o, const char *path);
void diag_free(diag_buf *d);
/* A message of the program itself on stderr: "name: error: ...". */
/* From here on, absolute paths in messages are shown with '\\' (the user's command line wrote
 * paths so, on Windows). */
void diag_show_backslashes(void);
void say(const char *name, const char *kind, const char *fmt, ...) __attribute__((format(OS_PRINTF, 3, 4)));
/* The same with a va_list, and tail appended to the message. */
void say_v(const char *name, const char *kind, const char *tail, const char *fmt, va_list ap)
    __attribute__((format(OS_PRINTF, 4, 0)));

/* ---- paths and outputs (output.c: the library's, in the programs' words) -------------------------------------------------- */

/* Paths: the platform's (os.h: os_is_separator, os_last_separator, os_path_compare,
 * os_path_extension, os_path_separator_of, os_make_parent_dirs), those that allocate wrapped
 * here, out of memory ending the program (have: p, or the end of the program when it is NULL). */
void *have(void *p);
bool is_smd_family(const char *ext);
char *xstrdup(const char *s);
/* qsort's order of C strings (an array of char *), byte by byte. */
int cmp_strings(const void *a, const void *b);
char *xasprintf(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
/* path with its extension replaced by ext (no dot), or with "_suffix" before the extension. */
char *path_with_extension(const char *path, const char *ext);
char *path_with_suffix(const char *path, const char *suffix);
/* dir and rel joined with dir's separator (rel's own made the same). Malloc'd. */
char *path_join(const char *dir, const char *rel);
/* path made absolute with "." and ".." folded; path_relative: to as seen from the folder of
 * from_file. Both return memory to free. */
char *path_absolute(const char *path);
char *path_relative(const char *from_file, const char *to);

/* Standard input, read whole the first time it is asked for ("-" as an input); NULL with
 * why on failure. stdin_is_dmx tells a DMX (keyvalues2 or binary) from the SMD family by its
 * header. The name a model read from it takes: --name, else "stdin". */
const void *stdin_data(size_t *size, char *why, size_t why_size);
bool stdin_is_dmx(void);
extern const char *stdin_name;
/* The library's readers, "-" read from standard input (whole, named stdin_name). */
smdmx_scene *cli_read_smd(const char *path, const smdmx_smd_read_options *options, smdmx_error *error,
                          smdmx_warnings *warnings);
smdmx_dm *cli_read_dmx(const char *path, const smdmx_dmx_read_options *options, smdmx_error *error,
                       smdmx_warnings *warnings);

/* Outputs of one job, written to temporary files and renamed into place together. */

/* Installs the handlers that delete temporary files on SIGINT, SIGTERM and SIGHUP, and makes
 * writes past a file size limit fail instead of killing the process. */
void output_init(void);
/* A message of the library's that ends "'PATH' exists" in the programs' words (what to do
 * about the file), in place. */
void output_words(char *text, size_t size);
/* Checks that path may be written: not an input (never), not an existing file (unless
 * force). Returns false with a message in why. */
bool output_allowed(const char *path, char *const *inputs, size_t input_count, bool force, char *why, size_t why_size);
/* From here on, an output that is there is said in Explorer's terms (files dropped on the
 * program: delete or move it, then drop again), not with --force. */
void outputs_in_explorer_terms(void);
/* Opens a temporary file for path (or standard output for "-"); NULL with why on failure. */
output *outputs_open(outputs *set, const char *path, char *why, size_t why_size);
bool output_write(void *user, const void *data, size_t size);
/* Renames every output into place (without --force, never over an existing file). On
 * failure, nothing of the set remains. */
bool outputs_commit(outputs *set, char ***written, size_t *written_count, char *why, size_t why_size);
/* Removes every temporary file of the set. */
void outputs_abort(outputs *set);
/* Flushes every temporary file of the set to the disk and closes it, to be renamed into
 * place by outputs_commit later; on failure, nothing of the set remains. */
bool outputs_finish(outputs *set, char *why, size_t why_size);

/* ---- conversion (convert.c) -------------------------------------------------------------- */

/* Runs a job. defer: its outputs are finished but not put in place (j->pending), for the
 * batch to commit in input order. */
void job_run(const conv_opts *o, job *j, bool defer);

/* ---- the batch (batch.c) ----------------------------------------------------------------- */

/* Plans the jobs for the inputs and runs them; the process's exit code. */
int batch_main(conv_opts *o, char **inputs, size_t input_count);
/* The files below dir that tool converts, as -r finds them (in byte order of their names);
 * false, said as name's error, when dir cannot be read. The paths are malloc'd. */
bool files_below(tool_kind tool, const char *name, const char *dir, char ***paths, size_t *count);

/* ---- commands (inspect.c, check.c) -------------------------------------------------------- */

/* A model read from any of the formats (inspect.c): the scene and, for DMX, the file's own
 * facts. load_model reads SMDs at fps (0: their own) and, with lines, keeps their lines for the
 * places of findings; on failure the error is in d. */
typedef struct loaded {
	smdmx_scene *scene;
	smdmx_dm *dm;      /* DMX only */
	bool is_dmx;
	char lift_error[256]; /* a DMX that is not a model: why */
} loaded;
bool load_model(const char *path, loaded *l, diag_buf *d, smdmx_warnings *warnings, double fps, bool lines);
void unload_model(loaded *l);

int cmd_info(int argc, char **argv);
int cmd_preview(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* smd2dmx --qc's scene: the QC j->inputs[0]'s $model o->model (or its first; without any,
 * its first animation), its shapes rigged, scaled, turned and with its attachments, as it
 * is lowered to a DMX (convert.c). NULL with the error in j->diag. */
smdmx_scene *qc_model_scene(const conv_opts *o, job *j);

/* ---- pictures (preview.c) ------------------------------------------------------------------ */

/* fn(ctx, i) for i below n, on up to workers threads (0: the cores). */
void run_parallel(unsigned workers, size_t n, void (*fn)(void *ctx, size_t i), void *ctx);
/* A model read for a picture: an SMD (with vta, or NULL), a DMX, or a QC's $model (model, or
 * NULL for the first; its rig in the scene unless shown->rig_in_qc); messages into d
 * (warnings shown as shown says; may be NULL). */
smdmx_scene *picture_scene(const char *path, const char *vta, const char *model, diag_buf *d, const conv_opts *shown);
/* The picture of s as PNG bytes (malloc'd), and a legend: its size and what its cells show. */
bool picture_png(const smdmx_scene *s, const sm_render_options *ro, uint8_t **png, size_t *size, char *legend,
                 size_t legend_size, smdmx_error *err);
/* path written whole (atomic), never over an input, over an existing file only with force. */
bool write_file_whole(const char *path, const void *data, size_t size, char *const *inputs, size_t input_count,
                      bool force, char *why, size_t why_size);

/* ---- smdmx qc (qcproj.c) ---------------------------------------------------------------- */

int cmd_qc(int argc, char **argv);
/* smdmx info and check of a QC: what it reads and names; what is missing or unknown. */
int qc_info(const char *path, bool json);
int qc_check(const char *path);


/* The console (console.c). Whether Explorer started the program (a double click, or files or
 * folders dropped on it): it then has a window of its own, which closes when it ends. */
bool launched_from_explorer(const os_launch *l, int argc, char **argv);
/* Writes to buf (cap bytes, NUL-terminated) what replaces the progress line shown (*shown
 * columns wide, then updated) by text on a terminal of kind and width columns: escape codes
 * only where the terminal takes them, spaces and '\r' elsewhere, the text cut at its start to
 * fit the line. text "" clears it. Returns the length. */
size_t progress_render(os_term kind, unsigned columns, size_t *shown, const char *text, char *buf, size_t cap);

/* The target --target names (smdmx_engine_target_find), or NULL; with_goldsrc: "goldsrc" is
 * one (smdmx check). */
const smdmx_engine_target *engine_target_find(const char *name, bool with_goldsrc);
/* Their names, ", " between them, for a message. */
const char *engine_target_names(bool with_goldsrc);

/* A growing text, for depfiles. */
typedef struct text_buf {
	char *text;
	size_t len, cap;
} text_buf;
void tb_putc(text_buf *b, char c);
void tb_puts(text_buf *b, const char *s); /* NULL: nothing */
/* A path in a depfile as make and ninja read it: spaces, tabs, '#' and '\\' escaped, '$' doubled;
 * on Windows '\\' written as '/', which both read on every system. */
void tb_dep_path(text_buf *b, const char *path);
/* Writes b to path (all or nothing); false with why when it cannot. */
bool depfile_write(const char *path, const text_buf *b, char *why, size_t why_size);

#endif
