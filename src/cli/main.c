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


static const char batch_help[] =
    "inputs and outputs:\n"
    "  -o OUT                 the output of a single input ('-': standard output)\n"
    "  -d DIR                 write each output into DIR (with -r, mirroring the tree)\n"
    "                         (neither: each output beside its input)\n"
    "  -r, --recursive        inputs may be directories: convert every file below them\n"
    "  -                      read standard input (SMD, VTA or DMX, told by content)\n"
    "  --name NAME            the name of a model read from standard input (default: stdin)\n"
    "  -f, --force            overwrite existing outputs (never an input)\n"
    "  -u, --update           convert only inputs whose output is missing or older than what the\n"
    "                         conversion reads (the input, its VTA, a QC and its files)\n"
    "  -j N, --jobs N         convert N files at once (default: the number of cores)\n"
    "  --threads N            threads for one file: SMD triangles and keyvalues2 number arrays\n"
    "                         are read and written in parts (default: the number of cores over\n"
    "                         the files converted at once; the output is the same at any count)\n"
    "  -k, --keep-going       convert what can be converted; exit 1 at the end if any failed\n"
    "  --depfile FILE         write a make-style dependency line (outputs: inputs)\n"
    "  --report FILE.html     a page with a row per input: it and its output drawn side by side,\n"
    "                         their counts, the messages and smdmx diff's verdict\n"
    "diagnostics:\n"
    "  -q, --quiet            no warnings, no progress line\n"
    "  -W error, -Werror      treat warnings as errors (the file fails, nothing is written)\n"
    "  --max-warnings N       warnings shown per file (default 20; 0: all)\n"
    "  -v, --verbose          a note on what each file became\n";

static const char model_help[] =
    "conversion:\n"
    "  --vta FLEX.vta         SMD to DMX: the reference's flex shapes (X.vta beside X.smd among\n"
    "                         the inputs is taken by itself; a VTA without its SMD fails);\n"
    "                         DMX to SMD: the name of the VTA written (default OUT.vta)\n"
    "  --qc FILE.qc           smd2dmx: convert the QC's $model (its SMD, flexfile VTA, flex rig,\n"
    "                         $attachment lines, $scale, $upaxis) into one DMX; dmx2smd: write\n"
    "                         FILE.qc beside the SMD with what SMD cannot hold (rig, attachments)\n"
    "  --model NAME           smd2dmx --qc: the $model to convert (default: the first)\n"
    "  --target T             the encoding and model format a game wants: sdk2013, tf2, gmod\n"
    "                         (binary 2, model 1), l4d2 (binary 4, model 15), portal2, csgo,\n"
    "                         sfm (binary 5, model 18), source2 (binary 9, model 22)\n"
    "  --encoding E           DMX: keyvalues2 (default), keyvalues2_flat, binary or\n"
    "                         binary_seqids (s&box's binary 9, element ids numbered in order)\n"
    "  --encoding-version N   DMX: keyvalues2 1 to 4; binary 1 to 5 or 9; binary_seqids 9\n"
    "                         (default: keyvalues2 1, binary 5, or the version the file's\n"
    "                         attributes need)\n"
    "  --model-version N      DMX model format: 1, 15, 18 (default) or 22\n"
    "  --keys all|reduce      DMX animation: every key, or leave out what interpolation\n"
    "                         reproduces exactly (default)\n"
    "  --key-tolerance F      DMX animation: a left-out key may be off by F; 0 (default): exact\n"
    "  --fps N                the frame rate of an SMD animation (default 30)\n"
    "  --clips                SMD to DMX: every input is an animation; one clip each, named\n"
    "                         after its file, on the first file's bones (-o names the DMX)\n"
    "  --clip NAME            DMX to SMD: only this clip (else one SMD per clip, OUT_clip.smd)\n"
    "  --goldsrc              SMD: GoldSrc flavour (no weight links, .bmp materials, names of\n"
    "                         at most 63 characters)\n"
    "  --lf                   SMD: LF line ends instead of CRLF\n"
    "  --scale F              multiply every length by F\n"
    "  --up-axis X|Y|Z        the source's up axis; the output is Z up, as Source expects\n";

static void print_help(FILE *f)
{
#if defined(SMDMX_TOOL_SMD2DMX)
	os_puts("usage: smd2dmx [options] INPUT... [-o OUT | -d DIR]\n"
	      "Converts SMD models and animations (and VTA flex files) to DMX.\n\n",
	      f);
#elif defined(SMDMX_TOOL_DMX2SMD)
	os_puts("usage: dmx2smd [options] INPUT... [-o OUT | -d DIR]\n"
	      "Converts DMX models and animations to SMD (and VTA).\n\n",
	      f);
#else
	os_puts("usage: smdmx convert [options] INPUT... [-o OUT | -d DIR --to EXT]\n"
	      "       smdmx info FILE [--json]\n"
	      "       smdmx diff A B [--tolerance F] [--rotation-tolerance F] [--max N] [-q]\n"
	      "       smdmx check FILE [--target T]\n"
	      "       smdmx preview FILE... [-o OUT.png | -d DIR] [--views V] [--skeleton] [--uv] [options]\n"
	      "       smdmx report A_DIR B_DIR -o FILE.html\n"
	      "       smdmx dump FILE.dmx [--full]\n"
	      "       smdmx qc IN.qc --to dmx|smd -d OUTDIR [--rig qc|dmx] [options]\n"
	      "       smdmx --help | --version\n\n"
	      "convert   between SMD, VTA and DMX by the output's extension (--to EXT with -d)\n"
	      "info      what a file holds\n"
	      "diff      compare two models by meaning, SMD or DMX in any mix; exit 0 equal, 1 different\n"
	      "check     lint a model for a target engine; exit 1 when it finds an error\n"
	      "dump      list a DMX file's elements and attributes\n"
	      "qc        convert a QC project: the QC, its includes and every file they name\n"
	      "preview   draw a model as a PNG picture (views, skeleton, shapes, poses, UVs)\n"
	      "report    an HTML page comparing two trees of models, drawn side by side\n\n",
	      f);
#endif
	os_puts(batch_help, f);
	os_puts(model_help, f);
	os_puts("\nexit codes: 0 success, 1 at least one file failed, 2 a usage error\n", f);
}

static int usage_error(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_v(NAME, "error", " (try '" NAME " --help')", fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

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
	if (name_refused(stdin_name)) return name_refused(stdin_name);
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
		const char *ext = os_path_extension(o->out);
		bool ok = TOOL == TOOL_SMD2DMX ? !strcasecmp(ext, "dmx")
		        : TOOL == TOOL_DMX2SMD ? is_smd_family(ext)
		                               : is_smd_family(ext) || !strcasecmp(ext, "dmx");
		if (!ok) {
			os_printf(stderr, "%s: error: '%s': the output must be %s\n", NAME, o->out,
			        TOOL == TOOL_SMD2DMX ? ".dmx" : TOOL == TOOL_DMX2SMD ? ".smd, .sma, .phys or .vta" : ".smd, .sma, .phys, .vta or .dmx");
			return EXIT_USAGE;
		}
	}
	if (o->to && TOOL != TOOL_SMDMX) {
		bool ok = TOOL == TOOL_SMD2DMX ? !strcasecmp(o->to, "dmx") : is_smd_family(o->to);
		if (!ok) return usage_error("--to %s does not fit this program", o->to);
	}
	return EXIT_OK;
}

/* The options and inputs (into inputs, *nin): -1 to go on, else the exit status (--help,
 * --version, a usage error). A --target fills in the encoding and model format not given. */
static int read_command_line(opt_state *st, char **inputs, size_t *nin)
{
	bool options_done = false;
	st->rc = -1;
	for (st->i = 0; st->i < st->argc && st->rc < 0; st->i++) {
		const char *a = st->argv[st->i];
		const char *v = st->i + 1 < st->argc ? st->argv[st->i + 1] : NULL;
		if (options_done || a[0] != '-' || !strcmp(a, "-")) {
			inputs[(*nin)++] = st->argv[st->i];
		} else if (!strcmp(a, "--")) {
			options_done = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_help(stdout);
			st->rc = EXIT_OK;
		} else if (!strcmp(a, "--version")) {
			os_printf(stdout, "%s %s\n", NAME, SMDMX_VERSION_STRING);
			st->rc = EXIT_OK;
		} else if (!batch_option(st, a, v) && !format_option(st, a, v)) {
			st->rc = usage_error("unknown option '%s'", a);
		}
	}
	if (st->rc >= 0) return st->rc;
	return apply_target(st) ? -1 : st->rc;
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
	opt_state st;
	memset(&st, 0, sizeof(st));
	st.o = &o;
	st.argc = argc;
	st.argv = argv;
	st.hint = " (try '" NAME " --help')";
	int rc = read_command_line(&st, inputs, &nin);
	const char *problem = rc < 0 ? conflicting_options(&o, inputs, nin) : NULL;
	if (problem) rc = usage_error("%s", problem);
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

static int cmd_dump(int argc, char **argv)
{
	const char *in = NULL;
	bool full = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--full")) full = true;
		else if (!strcmp(argv[i], "--help")) {
			os_printf(stdout, "%s\n", "usage: smdmx dump FILE.dmx [--full]\nLists a DMX file's elements and attributes; arrays are shortened unless --full.");
			return EXIT_OK;
		} else if (argv[i][0] == '-' && argv[i][1]) return usage_error("unknown option '%s'", argv[i]);
		else if (!in) in = argv[i];
		else return usage_error("more than one input ('%s')", argv[i]);
	}
	if (!in) return usage_error("dump needs a file");
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_dm *dm = cli_read_dmx(in, NULL, &err, &w);
	diag_buf d = { 0 };
	diag_warnings(&d, NULL, in, &w);
	if (!dm) diag_error(&d, in, &err);
	os_puts(d.text ? d.text : "", stderr);
	diag_free(&d);
	if (!dm) return EXIT_FAILED;
	bool ok = smdmx_dm_dump(dm, full, stdout_write, NULL, &err);
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
		print_help(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		print_help(stdout);
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
	return usage_error("unknown command '%s'", cmd);
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
		print_help(stdout);
		os_printf(stdout, "\n%s\n", dropped_help());
		rc = EXIT_OK;
	} else rc = run(argc, argv);
	fflush(stdout);
	os_printf(stderr, "%s: %s\n", NAME, rc == EXIT_OK ? "done" : "finished with errors (above)");
	os_wait_key();
	return rc;
}
