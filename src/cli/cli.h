/* The command-line programs smdmx, smd2dmx and dmx2smd: shared declarations.
 *
 * The programs read options, call the library and print. A conversion is a batch of jobs
 * (smdmx/batch.h), one per model; the library hands back each job's messages in input order
 * as the jobs settle, whatever order its workers finish in, and the programs print them with
 * their own policy (-W, -q, --max-warnings), so the output of a run never depends on -j.
 *
 * Exit codes: 0 success, 1 at least one file failed, 2 a usage error. */
#ifndef SMDMX_CLI_H
#define SMDMX_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../platform/os_program.h"
#include "../report/report.h"
#include "option_table.h"
#include "smdmx/smdmx.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

typedef enum tool_kind { TOOL_SMDMX, TOOL_SMD2DMX, TOOL_DMX2SMD } tool_kind;

/* Options whose use depends on the conversion: each is honoured where it applies, refused
 * where it applies to no input (a usage error), and said where it applies to some inputs of a
 * batch but not to this one (a warning on that input). doc/usage.md "Options and what they apply
 * to". */
enum {
	OPT_VTA = SMDMX_BATCH_GIVEN_VTA,
	OPT_CLIP = SMDMX_BATCH_GIVEN_CLIP,
	OPT_CLIPS = SMDMX_BATCH_GIVEN_CLIPS,
	OPT_FPS = SMDMX_BATCH_GIVEN_FPS,
	OPT_KEYS = SMDMX_BATCH_GIVEN_KEYS,
	OPT_KEY_TOLERANCE = SMDMX_BATCH_GIVEN_KEY_TOLERANCE,
	OPT_TARGET = SMDMX_BATCH_GIVEN_TARGET,
	OPT_ENCODING = SMDMX_BATCH_GIVEN_ENCODING,
	OPT_ENCODING_VERSION = SMDMX_BATCH_GIVEN_ENCODING_VERSION,
	OPT_MODEL_VERSION = SMDMX_BATCH_GIVEN_MODEL_VERSION,
	OPT_GOLDSRC = SMDMX_BATCH_GIVEN_GOLDSRC,
	OPT_LF = SMDMX_BATCH_GIVEN_LF,
	OPT_SCALE = SMDMX_BATCH_GIVEN_SCALE,
	OPT_UP_AXIS = SMDMX_BATCH_GIVEN_UP_AXIS,
	OPT_THREADS = SMDMX_BATCH_GIVEN_THREADS,
	OPT_LINKS = SMDMX_BATCH_GIVEN_LINKS
};

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
	const char **bodygroups; /* preview --bodygroup PART=CHOICE, each */
	size_t bodygroup_count;
	bool clips, recursive, keep_going, force, quiet, werror, verbose;
	bool update;           /* -u: only inputs newer than their output (which is then replaced) */
	bool qc_as_files;      /* a QC's scene to compare: as its files hold it (report.c) */
	unsigned given;        /* OPT_*: the options the command line gave */
	unsigned jobs;         /* -j; 0: the number of cores */
	unsigned threads;      /* --threads: threads for one file; 0: the cores left to each job */
	size_t max_warnings;   /* shown per file; 0: all */
	double scale;          /* --scale; 1: none */
	char up_axis;          /* --up-axis; 0: none */
	unsigned links;        /* --links: glTF's weight links a vertex; 0: 4 */
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

/* Outputs written whole or not at all: the library's (smdmx/output.h). A set, made as its
 * first output opens; force becomes the set's flag as it commits. */
typedef smdmx_output output;
typedef struct outputs {
	smdmx_outputs *set;
	bool force;
} outputs;

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

/* A conversion's command line being read: the options, and what was said explicitly (a
 * --target only fills in what was not). command: CMD_*, whose help a usage error points to. */
typedef struct opt_state {
	conv_opts *o;
	unsigned command;
	bool explicit_encoding, explicit_version, explicit_model;
	const char *target;
} opt_state;

/* A usage error of the command being read, said with its hint: EXIT_USAGE. */
int opt_error(opt_state *st, const char *fmt, ...) __attribute__((format(OS_PRINTF, 2, 3)));

/* A command line read by the table (option_table.h): each option found among the command's,
 * its value taken (attached, -j8, or the next argument) and checked as its row says, then
 * handed to take; every other argument ('-' too, and all after "--") to input. Both return
 * -1 to go on, else the exit status (a usage error said). --help and --version are answered
 * here. Returns -1 when all was read, else the exit status: EXIT_OK after --help or
 * --version, EXIT_USAGE for an unknown option or a value refused (said as the command's,
 * with its hint). */
typedef struct opt_reader {
	unsigned command; /* CMD_* */
	int argc;
	char **argv;
	int (*take)(void *ctx, const cli_option *opt, const char *value, double number);
	int (*input)(void *ctx, const char *arg);
	void *ctx;
} opt_reader;
int opt_read(const opt_reader *r);
/* A usage error of command (CMD_*) said, with the hint to its help: EXIT_USAGE. */
int usage_of(unsigned command, const char *fmt, ...) __attribute__((format(OS_PRINTF, 2, 3)));
/* An input of a command of one file (CMD_*) into *slot: -1; a second one a usage error. */
int one_input(const char **slot, unsigned command, const char *arg);
/* The help of command (CMD_*) on f. */
void opt_print_help(unsigned command, FILE *f);
/* An option of the conversions and of smdmx qc (value checked) set in st->o: -1. */
int conv_option(opt_state *st, const cli_option *opt, const char *value, double number);
/* --target: the encoding, its version and the model format it says, where not given; false
 * (st->rc set) for an unknown target. */
bool apply_target(opt_state *st);

/* ---- diagnostics (diag.c) ---------------------------------------------------------------- */

/* Adds "path:line:col: kind: message" (or "path: kind: message" without a line). Warnings
 * past the per-file bound are only counted; errors are always kept. */
void diag_add(diag_buf *d, const conv_opts *o, const char *path, uint32_t line, uint32_t col, const char *kind,
              const char *fmt, ...) __attribute__((format(OS_PRINTF, 7, 8)));
void diag_error(diag_buf *d, const char *path, const smdmx_error *e);
/* w's warnings added, and its room given back. */
void diag_warnings(diag_buf *d, const conv_opts *o, const char *path, smdmx_warnings *w);
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
/* The same for a call that says whether it had the memory it needed. */
void have_done(bool ok);
bool is_smd_family(const char *ext);
char *xstrdup(const char *s);
/* qsort's order of C strings (an array of char *), byte by byte. */
int cmp_strings(const void *a, const void *b);
char *xasprintf(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
/* path with its extension replaced by ext (no dot). */
char *path_with_extension(const char *path, const char *ext);
/* dir and rel joined with dir's separator (rel's own made the same). Malloc'd. */
char *path_join(const char *dir, const char *rel);

/* Standard input, read whole the first time it is asked for ("-" as an input); NULL with
 * why on failure. The name a model read from it takes: --name, else "stdin". */
const void *stdin_data(size_t *size, char *why, size_t why_size);
extern const char *stdin_name;
/* The library's DMX reader, "-" read from standard input (whole, named stdin_name). */
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

/* ---- the batch (batch.c) ----------------------------------------------------------------- */

/* Plans the jobs for the inputs and runs them; the process's exit code. */
int batch_main(conv_opts *o, char **inputs, size_t input_count);
/* The files below dir that tool converts, as -r finds them (in byte order of their names);
 * false, said as name's error, when dir cannot be read. The paths are malloc'd. */
bool files_below(tool_kind tool, const char *name, const char *dir, char ***paths, size_t *count);

/* ---- commands (inspect.c, check.c) -------------------------------------------------------- */

/* A model read from any of the formats (smdmx_model_file, read by inspect.c's load_model):
 * the scene and, for DMX, the datamodel. load_model reads SMDs at fps (0: their own) and,
 * with lines, keeps their lines for the places of findings; "-" is standard input; on failure
 * the error is in d. */
typedef smdmx_model_file loaded;
bool load_model(const char *path, loaded *l, diag_buf *d, smdmx_warnings *warnings, double fps, bool lines);
void unload_model(loaded *l);

int cmd_info(int argc, char **argv);
int cmd_preview(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_check(int argc, char **argv);


/* ---- pictures (preview.c) and reports (report.c) ------------------------------------------- */

/* A model read for a picture (report/: picture_scene), "-" standard input; what reading
 * said into d as this program prints it (warnings shown as shown says; may be NULL). */
smdmx_scene *cli_picture_scene(const picture_input *in, diag_buf *d, const conv_opts *shown, bool *posed);
/* The rows drawn, compared and the page written (report/), all or nothing: never over a
 * file a row reads, over another existing file only with force. False with the error said
 * (as name's). Frees the rows either way. */
bool report_write(report_page *r, const char *path, unsigned workers, bool force, const char *name);
/* smdmx report A_DIR B_DIR -o FILE.html: the two trees' model files paired by their place. */
int cmd_report(int argc, char **argv);
/* Files written all or nothing, as one set (write_file_whole, one of them). */
bool write_files_whole(const whole_file *files, size_t count, char *const *inputs, size_t input_count, bool force, char *why,
                       size_t why_size);
bool write_file_whole(const char *path, const void *data, size_t size, char *const *inputs, size_t input_count,
                      bool force, char *why, size_t why_size);

/* ---- smdmx qc (qcproj.c) ---------------------------------------------------------------- */

int cmd_qc(int argc, char **argv);
/* smdmx info and check of a QC: what it reads and names; what is missing or unknown. */
int qc_info(const char *path, bool json);
int qc_check(const char *path);


/* ---- the conversions' command line (main.c) and drops (drop.c) -------------------------- */

/* The conversion command line: options and inputs (argv without the program), then the
 * batch; the exit code. */
int convert_main(int argc, char **argv);
/* Whether every argument is a file or folder that is there (what Explorer passes). */
bool all_paths(int argc, char **argv);
/* Files and folders dropped on the program, converted beside themselves (the models by
 * convert, given the conversion command line: convert_main); the exit code. */
int run_dropped(int argc, char **argv, int (*convert)(int argc, char **argv));
/* What dropping does on this program, a sentence for its help. */
const char *dropped_help(void);

/* The console (console.c). Whether Explorer started the program (a double click, or files or
 * folders dropped on it): it then has a window of its own, which closes when it ends. */
bool launched_from_explorer(const os_launch *l, int argc, char **argv);
/* Writes to buf (cap bytes, NUL-terminated) what replaces the progress line shown (*shown
 * columns wide, then updated) by text on a terminal of kind and width columns: escape codes
 * only where the terminal takes them, spaces and '\r' elsewhere, the text cut at its start to
 * fit the line. text "" clears it. Returns the length. */
size_t progress_render(os_term kind, unsigned columns, size_t *shown, const char *text, char *buf, size_t cap);
/* A file of this many bytes or more shows what of it is read on the progress line. */
#define PROGRESS_BIG ((uint64_t)8 << 20)
/* The progress line's text in buf (cap bytes): the program's name, [finished/count] when the
 * batch is more than one file, the input being converted, and, for one of PROGRESS_BIG bytes
 * or more, what of its size is read ("(read 37%)", then "(read; converting)"). false when
 * there is nothing to show (one file, not big or not yet read). */
bool progress_text(char *buf, size_t cap, const char *name, size_t finished, size_t count, const char *input, uint64_t size,
                   uint64_t read);

/* The target --target names (smdmx_engine_target_find), or NULL; with_goldsrc: "goldsrc" is
 * one (smdmx check). */
const smdmx_engine_target *engine_target_find(const char *name, bool with_goldsrc);
/* Their names, ", " between them, for a message. */
const char *engine_target_names(bool with_goldsrc);

/* A path in a depfile as make and ninja read it: spaces, tabs, '#' and '\\' escaped, '$' doubled;
 * on Windows '\\' written as '/', which both read on every system. */
void tb_dep_path(text_buf *b, const char *path);
/* An argument of a command shown for pasting (a report's title): as it is, or quoted where
 * the shell would split or read it otherwise ("C:\\My Mods\\a.smd" for cmd and PowerShell;
 * '...' for a POSIX shell). */
void tb_shell_arg(text_buf *b, const char *s);
/* Writes b to path (all or nothing); false with why when it cannot. */
bool depfile_write(const char *path, const text_buf *b, char *why, size_t why_size);

#endif
