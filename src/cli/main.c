/* smdmx, smd2dmx and dmx2smd: the command line. One source, built three times; the
 * program's name selects what it does. Thin: arguments in, jobs out; the work is in the
 * library, the batch in batch.c.
 *
 * Exit codes: 0 success, 1 at least one file failed, 2 a usage error. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"


/* The command this program's conversion is. */
#define COMMAND (TOOL == TOOL_SMD2DMX ? CMD_SMD2DMX : TOOL == TOOL_DMX2SMD ? CMD_DMX2SMD : CMD_CONVERT)

/* Options that do not go together, or with this program: what is wrong, or NULL. */
static const char *conflicting_options(const conv_opts *o, char **inputs, size_t nin)
{
	if (o->model && !o->qc) return "--model picks a $model of the QC given with --qc";
	if (o->wopts.goldsrc && o->vta) return "--vta with --goldsrc: GoldSrc has no flex, so no VTA";
	if (o->qc && TOOL == TOOL_SMD2DMX) {
		if (nin) return "--qc reads the model and its files from the QC: give no other inputs";
		if (o->vta) return "--vta with --qc: the QC's flexfile names the VTA";
		if (o->clips) return "--clips with --qc: the QC's $model is converted";
		if (o->scale != 1.0 || o->up_axis) return "--scale and --up-axis with --qc: the QC's $scale and $upaxis apply";
		if (o->recursive) return "-r with --qc: the QC names the files";
	} else if (o->qc && TOOL == TOOL_DMX2SMD) {
		if (nin != 1 || !strcmp(inputs[0], "-")) return "--qc writes the QC of one DMX file: give exactly one (not standard input)";
		if (o->recursive) return "-r with --qc: --qc writes the QC of one DMX file, not of a tree";
		if (o->out && !strcmp(o->out, "-")) return "--qc with -o -: the QC names the SMD by its file";
		if (strcasecmp(os_path_extension(o->qc), "qc") && strcasecmp(os_path_extension(o->qc), "qci"))
			return "--qc names the QC to write: its name must end in .qc or .qci";
		if (o->clip_name) return "--clip with --qc: the QC names every clip";
		if (o->wopts.goldsrc) return "--qc with --goldsrc: a GoldSrc QC has no flex rig, and smdmx writes Source QCs";
	}
	if (!nin && !(o->qc && TOOL == TOOL_SMD2DMX)) return "no input";
	if (o->out && o->outdir) return "-o and -d together: -o names one output, -d a directory for several";
	if (o->out && o->to && strcmp(o->out, "-")) return "-o and --to together: the output's extension already says its kind";
	if (o->clips && o->outdir) return "--clips writes one DMX: name it with -o, not -d";
	if (o->report && ((o->out && !strcmp(o->out, "-")) || (nin == 1 && !strcmp(inputs[0], "-") && !o->out && !o->outdir)))
		return "--report with the output on standard output: the report draws the output, read back (give -o FILE or -d DIR)";
	if (o->depfile && ((o->out && !strcmp(o->out, "-")) || (nin == 1 && !strcmp(inputs[0], "-") && !o->out && !o->outdir)))
		return "--depfile with the output on standard output: make cannot depend on it (give -o FILE or -d DIR)";
	return NULL;
}

/* -o's extension and --to fit this program: EXIT_OK, else the usage error said. */
static int output_fits(const conv_opts *o)
{
	size_t olen = o->out ? strlen(o->out) : 0;
	/* a name ending in '.' or ' ' on Windows: not a wrong extension but a name Windows cannot
	 * hold, refused with that reason before anything is written (smdmx_output_allowed) */
	bool dropped_end = olen && os_windows_paths() && (o->out[olen - 1] == '.' || o->out[olen - 1] == ' ');
	if (o->out && strcmp(o->out, "-") && !dropped_end) {
		/* the kinds this program writes: its --to row's values (option_table.c) */
		const char *attached;
		const cli_option *to = cli_option_find(COMMAND, "--to", &attached);
		char why[256], kinds[128];
		double unused;
		bool ok = !cli_value_refused(to, os_path_extension(o->out), &unused, why, sizeof(why));
		cli_values_or(to, ".", kinds, sizeof(kinds));
		if (!ok) {
			os_printf(stderr, "%s: error: '%s': the output must be %s\n", NAME, o->out, kinds);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

/* The command line being read: the options into st, the inputs into inputs (*nin). */
typedef struct command_line {
	opt_state st;
	char **inputs;
	size_t *nin;
} command_line;

static int take_option(void *ctx, const cli_option *opt, const char *value, double number)
{
	return conv_option(&((command_line *)ctx)->st, opt, value, number);
}

static int take_input(void *ctx, const char *arg)
{
	command_line *l = ctx;
	l->inputs[(*l->nin)++] = (char *)arg;
	return -1;
}

/* The options and inputs (into inputs, *nin): -1 to go on, else the exit status (--help,
 * --version, a usage error). A --target fills in the encoding and model format not given. */
static int read_command_line(command_line *l, int argc, char **argv)
{
	opt_reader r = { COMMAND, argc, argv, take_option, take_input, l };
	int rc = opt_read(&r);
	if (rc >= 0) return rc;
	return apply_target(&l->st) ? -1 : EXIT_USAGE;
}

/* The conversion command line: options and inputs, then the batch. */
int convert_main(int argc, char **argv)
{
	conv_opts o;
	memset(&o, 0, sizeof(o));
	o.tool = TOOL;
	o.name = NAME;
	o.scale = 1.0;
	o.max_warnings = 20;
	char **inputs = malloc((size_t)(argc > 0 ? argc : 1) * sizeof(char *));
	size_t nin = 0;
	if (!inputs) return EXIT_FAILED;
	command_line l = { { &o, COMMAND, false, false, false, NULL }, inputs, &nin };
	int rc = read_command_line(&l, argc, argv);
	const char *problem = rc < 0 ? conflicting_options(&o, inputs, nin) : NULL;
	if (problem) rc = usage_of(COMMAND, "%s", problem);
	if (rc < 0 && output_fits(&o) != EXIT_OK) rc = EXIT_USAGE;
	if (rc >= 0) {
		free(inputs);
		return rc;
	}
	char *dir = NULL; /* -d without trailing slashes */
	if (o.outdir) {
		size_t len = strlen(o.outdir);
		while (len > 1 && o.outdir[len - 1] == '/') len--;
		o.outdir = dir = xasprintf("%.*s", (int)len, o.outdir);
	}
	int r = batch_main(&o, inputs, nin);
	free(dir);
	free(inputs);
	return r;
}

#if !defined(SMDMX_TOOL_SMD2DMX) && !defined(SMDMX_TOOL_DMX2SMD)
static bool stdout_write(void *user, const void *data, size_t size)
{
	(void)user;
	return os_write_text(stdout, data, size);
}

typedef struct dump_args {
	const char *in;
	bool full;
} dump_args;

static int dump_option(void *ctx, const cli_option *opt, const char *value, double number)
{
	(void)value, (void)number;
	((dump_args *)ctx)->full = opt->id == OP_FULL;
	return -1;
}

static int dump_input(void *ctx, const char *arg)
{
	return one_input(&((dump_args *)ctx)->in, CMD_DUMP, arg);
}

static int cmd_dump(int argc, char **argv)
{
	dump_args args = { NULL, false };
	opt_reader r = { CMD_DUMP, argc, argv, dump_option, dump_input, &args };
	int rc = opt_read(&r);
	if (rc >= 0) return rc;
	const char *in = args.in;
	if (!in) return usage_of(CMD_DUMP, "dump needs a file");
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_dm *dm = cli_read_dmx(in, NULL, &err, &w);
	diag_buf d = { 0 };
	diag_warnings(&d, NULL, in, &w);
	if (!dm) diag_error(&d, in, &err);
	os_puts(d.text ? d.text : "", stderr);
	diag_free(&d);
	if (!dm) return EXIT_FAILED;
	bool ok = smdmx_dm_dump(dm, args.full, stdout_write, NULL, &err);
	smdmx_dm_free(dm);
	if (fflush(stdout) != 0) ok = false;
	if (!ok) os_printf(stderr, "%s: error: cannot write the dump\n", NAME);
	return ok ? EXIT_OK : EXIT_FAILED;
}
#endif

static int run(int argc, char **argv)
{
#if !defined(SMDMX_TOOL_SMD2DMX) && !defined(SMDMX_TOOL_DMX2SMD)
	if (argc < 2) {
		opt_print_help(CMD_SMDMX, stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		opt_print_help(CMD_SMDMX, stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "--version")) {
		os_printf(stdout, "smdmx %s\n", SMDMX_VERSION_STRING);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "convert")) return convert_main(argc - 2, argv + 2);
	if (!strcmp(cmd, "dump")) return cmd_dump(argc - 2, argv + 2);
	if (!strcmp(cmd, "info")) return cmd_info(argc - 2, argv + 2);
	if (!strcmp(cmd, "preview")) return cmd_preview(argc - 2, argv + 2);
	if (!strcmp(cmd, "report")) return cmd_report(argc - 2, argv + 2);
	if (!strcmp(cmd, "diff")) return cmd_diff(argc - 2, argv + 2);
	if (!strcmp(cmd, "check")) return cmd_check(argc - 2, argv + 2);
	if (!strcmp(cmd, "qc")) return cmd_qc(argc - 2, argv + 2);
	return usage_of(CMD_SMDMX, "unknown command '%s'", cmd);
#else
	if (argc < 2) {
		os_printf(stderr, "usage: %s [options] INPUT... [-o OUT | -d DIR] (try '%s --help')\n", NAME, NAME);
		return EXIT_USAGE;
	}
	return convert_main(argc - 1, argv + 1);
#endif
}

int main(int argc, char **argv)
{
	os_start(&argc, &argv);
	/* Started by Explorer (a double click, or files dropped on it): the window closes when the
	 * program ends, so it waits for a key first. Never when another program started it, its
	 * streams go elsewhere or it was given anything but dropped paths (console.c).
	 * SMDMX_DROPPED=1 behaves so anywhere (the tests use it). */
	/* paths in messages as the user writes them: on Windows '\\', unless the command line
	 * writes '/' and never '\\' */
	bool slash = false, backslash = false;
	for (int i = 1; i < argc; i++) slash = slash || strchr(argv[i], '/'), backslash = backslash || strchr(argv[i], '\\');
	if (os_windows_paths() && (backslash || !slash)) diag_show_backslashes();
	/* No Windows name holds '"': one in an argument is cmd's rule at work, a '\\' right before
	 * a closing quote ("C:\\out\\") keeping the quote and joining the arguments after it */
	for (int i = 1; os_windows_paths() && i < argc; i++)
		if (strchr(argv[i], '"')) {
			say(NAME, "error",
			    "the argument '%s' holds a '\"', which no Windows name can: a '\\' right before a closing quote "
			    "(\"C:\\out\\\") keeps the quote, and the arguments after it join this one; write the folder without the '\\' "
			    "at its end (\"C:\\out\")",
			    argv[i]);
			return EXIT_USAGE;
		}
	const char *as_dropped = getenv("SMDMX_DROPPED");
	os_launch launch;
	os_launch_facts(&launch);
	bool own = launched_from_explorer(&launch, argc, argv) || (as_dropped && !strcmp(as_dropped, "1"));
	if (!own) return run(argc, argv);
	int rc;
	if (all_paths(argc, argv)) rc = run_dropped(argc, argv, convert_main);
	else if (argc < 2) {
		opt_print_help(TOOL == TOOL_SMDMX ? CMD_SMDMX : COMMAND, stdout);
		os_printf(stdout, "\n%s\n", dropped_help());
		rc = EXIT_OK;
	} else rc = run(argc, argv);
	fflush(stdout);
	os_printf(stderr, "%s: %s\n", NAME, rc == EXIT_OK ? "done" : "finished with errors (above)");
	os_wait_key();
	return rc;
}
