/* The programs' options, in one table (option_table.c): every command's parser
 * (options.c: opt_read), its --help, the manual pages' OPTIONS sections and the bash
 * completion (tools/options_doc.c) are made from it, so that none of them can name an option,
 * a value or a limit the others do not (doc/hacking.md "Options").
 *
 * Plain C data and the functions that read it: no library, no platform, no allocation, so
 * that the generator of the manual and the completion builds it alone, on the build machine. */
#ifndef SMDMX_OPTION_TABLE_H
#define SMDMX_OPTION_TABLE_H

#include <stdbool.h>
#include <stddef.h>

/* The commands, a bit each: an option row lists those that take it. */
enum {
	CMD_SMD2DMX = 1u << 0,
	CMD_DMX2SMD = 1u << 1,
	CMD_CONVERT = 1u << 2, /* smdmx convert */
	CMD_QC = 1u << 3,
	CMD_INFO = 1u << 4,
	CMD_DIFF = 1u << 5,
	CMD_CHECK = 1u << 6,
	CMD_DUMP = 1u << 7,
	CMD_PREVIEW = 1u << 8,
	CMD_REPORT = 1u << 9,
	CMD_SMDMX = 1u << 10 /* smdmx itself, before a command word */
};
#define CMD_CONVERSIONS (CMD_SMD2DMX | CMD_DMX2SMD | CMD_CONVERT)

/* What an option sets: the parser of a command switches on it. Rows that differ only in their
 * words for another command share one. */
typedef enum opt_id {
	OP_HELP,
	OP_VERSION,
	OP_OUT,
	OP_OUTDIR,
	OP_TO,
	OP_RECURSIVE,
	OP_FORCE,
	OP_UPDATE,
	OP_KEEP_GOING,
	OP_QUIET,
	OP_VERBOSE,
	OP_WERROR, /* -Werror, and -W error */
	OP_JOBS,
	OP_THREADS,
	OP_DEPFILE,
	OP_REPORT,
	OP_MAX_WARNINGS,
	OP_NAME,
	OP_VTA,
	OP_QC,
	OP_MODEL,
	OP_TARGET,
	OP_ENCODING,
	OP_ENCODING_VERSION,
	OP_MODEL_VERSION,
	OP_KEYS,
	OP_KEY_TOLERANCE,
	OP_FPS,
	OP_CLIPS,
	OP_CLIP,
	OP_GOLDSRC,
	OP_LF,
	OP_SCALE,
	OP_UP_AXIS,
	OP_RIG,
	OP_JSON,
	OP_FULL,
	OP_TOLERANCE,
	OP_ROTATION_TOLERANCE,
	OP_MAX,
	OP_STRICT,
	OP_VIEWS,
	OP_SIZE,
	OP_SKELETON,
	OP_SHAPE,
	OP_SHAPES,
	OP_FRAME,
	OP_UV,
	OP_BODYGROUP,
	OP_LINKS
} opt_id;

/* What an option's value is, checked before the command's parser sees it. */
typedef enum opt_value {
	VAL_NONE,   /* a flag: no value */
	VAL_TEXT,   /* any text but an empty one */
	VAL_FILE,   /* a file (completed among those ending in `values`, any when NULL) */
	VAL_DIR,    /* a folder */
	VAL_CHOICE, /* one of `values` (space between them) */
	VAL_NUMBER, /* a number from lo to hi (see OF_*) */
	VAL_NAME    /* the name of a model read from standard input: no path, not empty */
} opt_value;

enum {
	OF_WHOLE = 1u << 0,    /* VAL_NUMBER: a whole number */
	OF_ABOVE_LO = 1u << 1, /* VAL_NUMBER: above lo, not lo itself */
	OF_ATTACHED = 1u << 2, /* the value may follow a short name in one argument: -j4 */
	OF_HIDDEN = 1u << 3,   /* not in help or the manual (another row's label says it) */
	OF_CASELESS = 1u << 4, /* VAL_CHOICE: matched whatever the case */
	OF_DOT = 1u << 5,      /* VAL_CHOICE: an extension, may start with '.' */
	OF_REPEAT = 1u << 6    /* may be given more than once, each taken (else the last counts) */
};

/* Where an option shows in a command's help and manual. */
typedef enum opt_section { SEC_IO, SEC_DIAG, SEC_CONV, SEC_OPTIONS } opt_section;

typedef struct cli_option {
	unsigned commands;   /* CMD_*: the commands that take it */
	opt_id id;
	const char *names;   /* its names, a space between them: "-j --jobs" */
	const char *arg;     /* the value's name in help ("N", "FILE.html"); NULL for a flag */
	opt_value value;
	const char *values;  /* VAL_CHOICE: the values; VAL_FILE: the extension completed; VAL_NUMBER:
	                      * those the completion offers (NULL: none) */
	double lo, hi;       /* VAL_NUMBER */
	unsigned flags;      /* OF_* */
	const char *wants;   /* VAL_NUMBER: what a refusal says it wants ("a count from 1 to 256") */
	opt_section section;
	const char *label;   /* the help's left column, when not the names with the value's name */
	const char *help;    /* --help: its lines, '\n' between them */
	const char *more;    /* the manual: said after help; NULL: help says it all */
} cli_option;

/* A command: its help's head and tail, and what its arguments are. */
typedef struct cli_command {
	unsigned bit;        /* CMD_* */
	const char *name;    /* as run: "smd2dmx", "smdmx qc" */
	const char *word;    /* smdmx's command word ("qc"), NULL for a program */
	const char *usage;   /* the usage lines, '\n' ending each */
	const char *about;   /* what it does, '\n' ending each line */
	const char *exits;   /* its exit codes, one line */
	const char *inputs;  /* the completion of an argument: extensions ("smd vta"), "DIR" for folders */
} cli_command;

/* The tables, in order of their help. */
const cli_option *cli_options(size_t *count);
const cli_command *cli_commands(size_t *count);
/* The command of bit, or NULL. */
const cli_command *cli_command_of(unsigned bit);

/* The option of command that arg names (for OF_ATTACHED, arg may carry the value: "-j4",
 * *attached then pointing at "4", else NULL); NULL when it is none of the command's. */
const cli_option *cli_option_find(unsigned command, const char *arg, const char **attached);

/* Whether value is one the option takes: NULL, or the refusal's words in why ("--encoding
 * is keyvalues2, keyvalues2_flat, binary or binary_seqids, not 'x'"); *number the value
 * of VAL_NUMBER. */
const char *cli_value_refused(const cli_option *opt, const char *value, double *number, char *why, size_t why_size);

/* The option's values as a sentence says them ("a, b or c"), each after prefix, into buf. */
void cli_values_or(const cli_option *opt, const char *prefix, char *buf, size_t size);

/* The help's left column of an option ("-j N, --jobs N") into buf; its length. */
size_t cli_option_label(const cli_option *opt, char *buf, size_t size);

/* A command's --help, as text handed to put in pieces. */
void cli_help(const cli_command *c, void (*put)(void *user, const char *text), void *user);

/* Why --name's value cannot name the model read from standard input (empty, a path, '.' or
 * '..'), or NULL when it can. */
const char *name_refused(const char *name);

#endif
