/* smdmx qc: a whole QC project into the other format. Every file the QC and its includes
 * name is converted (or copied, when it is in the target format already, or not a model)
 * into OUTDIR at its place relative to the project's folder (the folder holding the main QC
 * and every file it reads), and the QC and its includes are written there with only what
 * the conversion changes (decision 15): file names, the flex lines that move into a DMX or
 * out of one, noautodmxrules (G4), and the $attachment lines a DMX held.
 *
 * --to dmx: each $model's SMD becomes a DMX holding its flexfile's shapes (named by the flex
 * lines, stereo as the flexpairs say) and its flex, flexpair, defaultflex and flexfile lines
 * leave the QC. Its flexcontroller, %rule and localvar lines stay, with noautodmxrules added
 * (studiomdl then takes the QC's rig, as before, and only the shapes from the DMX), or with
 * --rig dmx move into the DMX as a combination operator or flex rules.
 * --to smd: each DMX becomes an SMD (and a VTA beside it for its shapes), and what it held that
 * SMD cannot goes into the QC: flexfile and flex lines, its controllers and rules (unless the
 * $model block says noautodmxrules: then the QC's own rig stays), its attachments.
 *
 * Here: the command and `smdmx info`/`check` of a QC. Planning is in qc_plan.c, running in
 * qc_run.c, the QC files in qc_write.c; their state in qcproj.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qcproj.h"
#include "report.h"


static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211u;
	return h;
}

/* The slot of s: there, or the empty one where it goes. */
static str_slot *str_slot_of(const str_map *m, const char *s)
{
	size_t i = (size_t)str_hash(s) & (m->cap - 1);
	while (m->slots[i].s && strcmp(m->slots[i].s, s)) i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

uint32_t qp_str_get(const str_map *m, const char *s)
{
	if (!m->cap) return SMDMX_NONE;
	const str_slot *x = str_slot_of(m, s);
	return x->s ? x->value : SMDMX_NONE;
}

void qp_str_set(str_map *m, const char *s, uint32_t value)
{
	if (2 * (m->count + 1) > m->cap) {
		str_map g = { calloc(m->cap ? 2 * m->cap : 64, sizeof(str_slot)), m->cap ? 2 * m->cap : 64, m->count };
		if (!g.slots) {
			fputs("smdmx: error: out of memory\n", stderr);
			exit(EXIT_FAILED);
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].s) *str_slot_of(&g, m->slots[i].s) = m->slots[i];
		free(m->slots);
		*m = g;
	}
	str_slot *x = str_slot_of(m, s);
	if (!x->s) {
		x->s = xstrdup(s);
		m->count++;
	}
	x->value = value;
}

void qp_str_map_free(str_map *m)
{
	for (size_t i = 0; i < m->cap; i++) free(m->slots[i].s);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}


void qp_list_push(char ***list, size_t *count, char *s)
{
	char **l = realloc(*list, (*count + 1) * sizeof(char *));
	if (!l) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	*list = l;
	l[(*count)++] = s;
}

static char *abs_dir(const char *path)
{
	char *a = path_absolute(path);
	char *s = strrchr(a, '/');
	if (s) s[1] = 0;
	return a;
}

/* The folder every path lies in: the longest common folder. */
static void common_root(char *root, const char *path)
{
	size_t i = 0, last = 0;
	while (root[i] && root[i] == path[i]) {
		if (root[i] == '/') last = i + 1;
		i++;
	}
	if (root[i] == 0 && (path[i] == '/' || path[i] == 0)) return;
	root[last] = 0;
}

/* OUTDIR and path's place below the root. */
char *qp_out_path(const library *l, const char *path)
{
	char *a = path_absolute(path);
	char *out = xasprintf("%s%s", l->outdir, a + strlen(l->root));
	free(a);
	return out;
}

/* A reference's new name: its extension replaced (or added), spelled as the QC spells it;
 * the output's own name when it took another to avoid a clash. */
char *qp_new_name(const char *name, const char *src, const char *dst)
{
	const char *slash = strrchr(name, '/'), *bs = strrchr(name, '\\');
	if (bs && (!slash || bs > slash)) slash = bs;
	size_t dir = slash ? (size_t)(slash - name + 1) : 0;
	const char *base = strrchr(dst, '/');
	base = base ? base + 1 : dst;
	const char *sbase = strrchr(src, '/');
	sbase = sbase ? sbase + 1 : src;
	size_t dstem = strlen(base) - strlen(os_path_extension(base)) - (*os_path_extension(base) ? 1 : 0);
	size_t sstem = strlen(sbase) - strlen(os_path_extension(sbase)) - (*os_path_extension(sbase) ? 1 : 0);
	if (dstem == sstem && !strncasecmp(base, sbase, dstem)) {
		/* the same name: the QC's spelling of it, with the new extension */
		const char *n = name + dir;
		const char *ext = os_path_extension(n);
		size_t nstem = strlen(n) - strlen(ext) - (*ext ? 1 : 0);
		if (*ext && strcasecmp(ext, "smd") && strcasecmp(ext, "dmx") && strcasecmp(ext, "vta") && strcasecmp(ext, "sma") &&
		    strcasecmp(ext, "phys"))
			nstem = strlen(n); /* a dot in the name, no extension */
		return xasprintf("%.*s%.*s.%s", (int)dir, name, (int)nstem, n, os_path_extension(base));
	}
	return xasprintf("%.*s%s", (int)dir, name, base);
}

/* ---- the command ------------------------------------------------------------------------------ */

static int usage(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
static int usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_v("smdmx", "error", " (try 'smdmx qc --help')", fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

static const char qc_help[] =
    "usage: smdmx qc IN.qc... --to dmx|smd -d OUTDIR [options]\n"
    "       smdmx qc -r DIR... --to dmx|smd -d OUTDIR [options]\n"
    "Converts QC projects: every file a QC and its includes name goes into OUTDIR at its place\n"
    "below the folder that holds them all, converted (SMD, VTA to DMX, or DMX to SMD and VTA) or\n"
    "copied, and the QCs and their includes are written there changed only where the conversion\n"
    "needs it. Several QCs (a library) are one batch into one tree: a file they share is converted\n"
    "once, an include they share written once.\n\n"
    "  --to dmx|smd           the format the models end in\n"
    "  -d OUTDIR              where the projects go (required)\n"
    "  -r, --recursive        take directories: every .qc below them, in byte order of the names\n"
    "  --rig qc|dmx           --to dmx: a $model's flexcontroller, %rule and localvar lines stay in\n"
    "                         the QC with noautodmxrules (qc, the default) or move into its DMX (dmx)\n"
    "  -f, --force            overwrite existing outputs\n"
    "  -u, --update           convert only files whose outputs are missing or older than what they\n"
    "                         are made of (replacing them); QC files are rewritten when they change\n"
    "  -j N, --jobs N         convert N files at once (default: the number of cores)\n"
    "  --threads N            threads that read one file in parts (default: the cores over -j)\n"
    "  -k, --keep-going       write every project whatever fails: a missing file stays named as\n"
    "                         written, a file that fails is copied unchanged; exit 1 at the end\n"
    "  --depfile FILE         write a make-style dependency line (outputs: inputs)\n"
    "  --report FILE.html     a page with a row per QC: its model and the converted one drawn side\n"
    "                         by side, their counts, the messages and smdmx diff's verdict\n"
    "  -q, --quiet            no warnings\n"
    "  -W error, -Werror      treat warnings as errors\n"
    "  --max-warnings N       warnings shown per file (default 20; 0: all)\n"
    "  -v, --verbose          a note on each file written\n"
    "  --target T, --encoding E, --encoding-version N, --model-version N: the DMX written\n"
    "  --lf                   SMD: LF line ends instead of CRLF\n\n"
    "exit codes: 0 success, 1 a file was missing, failed or could not be read, 2 a usage error\n";

/* Every .qc below dir, sorted by name, into list. */
static bool find_qcs(const char *dir, char ***list, size_t *count, int depth)
{
	if (depth > 256) {
		say("smdmx", "error", "'%s': directories nested too deep", dir);
		return false;
	}
	os_dir *d = os_dir_open(dir);
	if (!d) {
		say("smdmx", "error", "cannot read the directory '%s': %s", dir, os_error_text(errno));
		return false;
	}
	char **names = NULL;
	size_t n = 0;
	const char *e;
	while ((e = os_dir_next(d)))
		if (e[0] != '.') qp_list_push(&names, &n, xstrdup(e)); /* hidden files and our temporary files */
	os_dir_close(d);
	if (n) qsort(names, n, sizeof(*names), cmp_strings);
	bool ok = true;
	size_t dl = strlen(dir);
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s%s%s", dir, dl && (dir[dl - 1] == '/' || dir[dl - 1] == '\\') ? "" : "/", names[i]);
		os_stat st;
		if (os_lstat_path(path, &st) && st.kind == OS_DIRECTORY && !st.link) {
			ok = find_qcs(path, list, count, depth + 1) && ok;
			free(path);
		} else if (qp_ext_is(names[i], "qc") && os_stat_path(path, &st) && st.kind == OS_REGULAR) {
			qp_list_push(list, count, path);
		} else {
			free(path);
		}
		free(names[i]);
	}
	free(names);
	return ok;
}

/* An input of the depfile, each once. */
static void dep_input(text_buf *t, str_map *seen, const char *path)
{
	if (qp_str_get(seen, path) != SMDMX_NONE) return;
	qp_str_set(seen, path, 0);
	tb_putc(t, ' ');
	tb_dep_path(t, path);
}

/* What `smdmx qc` was told besides conv_opts: the format, the rig's place, the target and the
 * paths given (QCs or, with -r, directories). */
typedef struct qc_command {
	const char *to, *rig;
	char **args;
	size_t arg_count;
	bool help;
} qc_command;

/* The conversions' options smdmx qc takes (options.c reads them); -jN too. */
static bool qc_takes(const char *a)
{
	static const char *const taken[] = { "-d", "-j", "--jobs", "--threads", "-k", "--keep-going", "-f", "--force", "-u",
		                             "--update", "-r", "--recursive", "-q", "--quiet", "-v", "--verbose", "-Werror",
		                             "-W", "--depfile", "--report", "--max-warnings", "--target", "--encoding",
		                             "--encoding-version", "--model-version", "--lf" };
	for (size_t i = 0; i < sizeof(taken) / sizeof(*taken); i++)
		if (!strcmp(a, taken[i])) return true;
	return !strncmp(a, "-j", 2) && a[2];
}

/* The options and arguments of `smdmx qc` into o and c; EXIT_USAGE (said) when they do not
 * make a command. */
static int qc_options(int argc, char **argv, conv_opts *o, qc_command *c)
{
	c->rig = "qc";
	opt_state st;
	memset(&st, 0, sizeof(st));
	st.o = o;
	st.argc = argc;
	st.argv = argv;
	st.hint = " (try 'smdmx qc --help')";
	st.rc = -1;
	for (st.i = 0; st.i < argc && st.rc < 0; st.i++) {
		const char *a = argv[st.i], *v = st.i + 1 < argc ? argv[st.i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			c->help = true;
			return EXIT_OK;
		}
		if (!strcmp(a, "--to") || !strcmp(a, "--rig")) {
			if (!v) st.rc = usage("'%s' needs a value", a);
			else if (!strcmp(a, "--to")) c->to = argv[++st.i];
			else c->rig = argv[++st.i];
		} else if (a[0] == '-' && a[1]) {
			if (!qc_takes(a) || (!batch_option(&st, a, v) && !format_option(&st, a, v))) st.rc = usage("unknown option '%s'", a);
		} else {
			char **n = realloc(c->args, (c->arg_count + 1) * sizeof(char *));
			if (!n) {
				fputs("smdmx: error: out of memory\n", stderr);
				exit(EXIT_FAILED);
			}
			c->args = n;
			c->args[c->arg_count++] = argv[st.i];
		}
	}
	if (st.rc >= 0) return st.rc;
	if (!c->arg_count) return usage("%s", o->recursive ? "-r needs a directory" : "qc needs a QC file");
	if (!c->to || (strcasecmp(c->to, "dmx") && strcasecmp(c->to, "smd"))) return usage("%s", "--to is dmx or smd");
	if (!o->outdir) return usage("%s", "-d OUTDIR is required: the project is written there");
	if (strcmp(c->rig, "qc") && strcmp(c->rig, "dmx")) return usage("--rig is qc or dmx, not '%s'", c->rig);
	if (!strcmp(c->rig, "dmx") && strcasecmp(c->to, "dmx")) return usage("%s", "--rig dmx applies to --to dmx");
	return apply_target(&st) ? EXIT_OK : st.rc;
}

/* The QCs: those given, and with -r every .qc below the directories given (into dirs). */
static int collect_qcs(const conv_opts *o, char **args, size_t arg_count, char ***qcs, size_t *qc_count, char ***dirs,
                       size_t *dir_count)
{
	int rc = EXIT_OK;
	for (size_t i = 0; i < arg_count && rc == EXIT_OK; i++) {
		os_stat st;
		if (os_stat_path(args[i], &st) && st.kind == OS_DIRECTORY) {
			if (!o->recursive) rc = usage("'%s' is a directory (-r converts every QC below it)", args[i]);
			else {
				size_t before = *qc_count;
				if (!find_qcs(args[i], qcs, qc_count, 0)) rc = EXIT_FAILED;
				else if (*qc_count == before) rc = usage("no .qc file below '%s'", args[i]);
				qp_list_push(dirs, dir_count, xstrdup(args[i]));
			}
		} else {
			qp_list_push(qcs, qc_count, xstrdup(args[i]));
		}
	}
	return rc;
}

/* Every QC read into a project of lib (one given twice is read once); *unread counts those
 * that could not be, their errors said. False when one could not be read. */
static bool read_projects(library *lib, char **qcs, size_t qc_count, size_t *unread)
{
	const conv_opts *o = lib->o;
	smdmx_qc_read_options qo;
	memset(&qo, 0, sizeof(qo));
	qo.keep_going = o->keep_going;
	bool ok = true;
	str_map seen = { 0 };
	for (size_t i = 0; i < qc_count; i++) {
		char *a = path_absolute(qcs[i]);
		bool again = qp_str_get(&seen, a) != SMDMX_NONE;
		qp_str_set(&seen, a, 0);
		free(a);
		if (again) continue;
		project *p = &lib->projects[lib->project_count];
		memset(p, 0, sizeof(*p));
		p->lib = lib;
		p->qcpath = qcs[i];
		p->ok = true;
		smdmx_error err;
		smdmx_warnings w;
		p->qc = smdmx_qc_read_file(qcs[i], &qo, &err, &w);
		diag_warnings(&p->diag, o, qcs[i], &w);
		if (!p->qc) {
			diag_error(&p->diag, qcs[i], &err);
			fputs(p->diag.text ? p->diag.text : "", stderr);
			diag_free(&p->diag);
			(*unread)++;
			ok = false;
			continue;
		}
		/* -k: the lines that could not be read cost only themselves (the QC keeps them) */
		for (size_t k = 0; k < p->qc->error_count; k++) {
			const smdmx_qc_error *e = &p->qc->errors[k];
			diag_add(&p->diag, NULL, e->error.file[0] ? e->error.file : qcs[i], e->error.line, e->error.column, "error", "%s%s",
			         e->error.message,
			         e->include ? ": the $include is kept as written, and nothing it holds is read"
			                    : ": the line is kept as written, and nothing it says is converted");
			p->ok = false;
			p->qc_errors += !e->include;
		}
		for (size_t k = 0; k < p->qc->missing_include_count; k++) qp_add_missing(lib, p->qc->missing_includes[k]);
		lib->project_count++;
	}
	qp_str_map_free(&seen);
	return ok;
}

/* The library's folder: the folders given, the QCs', widened to hold every file read; and
 * the output folder. */
static void library_folders(library *lib, char **dirs, size_t dir_count, const char *first_qc)
{
	for (size_t i = 0; i < dir_count; i++) {
		char *a = path_absolute(dirs[i]);
		size_t al = strlen(a);
		char *d = xasprintf("%s%s", a, al && a[al - 1] == '/' ? "" : "/");
		free(a);
		if (!lib->root) lib->root = xstrdup(d);
		else common_root(lib->root, d);
		free(d);
	}
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		const smdmx_qc *qc = lib->projects[pi].qc;
		if (!lib->root) lib->root = abs_dir(lib->projects[pi].qcpath);
		for (size_t i = 0; i < qc->file_count; i++) {
			char *a = path_absolute(qc->files[i].path);
			common_root(lib->root, a);
			free(a);
		}
		for (size_t i = 0; i < qc->ref_count; i++) {
			if (!qc->refs[i].found) continue;
			char *a = path_absolute(qc->refs[i].path);
			common_root(lib->root, a);
			free(a);
		}
	}
	if (!lib->root) lib->root = abs_dir(first_qc);
	char *od = path_absolute(lib->o->outdir);
	lib->outdir = xasprintf("%s%s", od, od[strlen(od) - 1] == '/' ? "" : "/");
	free(od);
}

/* The output folder may be neither inside the library's folder nor above it (EXIT_USAGE,
 * said): outputs would go over inputs. */
static int outdir_apart(const library *lib)
{
	if (!strncmp(lib->outdir, lib->root, strlen(lib->root)) || !strncmp(lib->root, lib->outdir, strlen(lib->outdir))) {
		/* OUTDIR inside the projects, or the projects inside OUTDIR: outputs over inputs */
		bool inside = !strncmp(lib->outdir, lib->root, strlen(lib->root));
		say("smdmx", "error", "'%s' is %s the project's folder '%s': write the project elsewhere", lib->o->outdir,
		    inside ? "inside" : "above", lib->root);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The tasks run on -j workers, each reading with the cores left over (--threads). */
static void run_tasks(library *lib, conv_opts *o)
{
	unsigned workers = o->jobs;
	if (!workers) workers = os_cpu_count();
	if (workers > lib->task_count) workers = (unsigned)lib->task_count;
	if (workers < 1) workers = 1; /* a QC that names no file */
	if (workers > CLI_JOBS_MAX) workers = CLI_JOBS_MAX;
	unsigned cores = os_cpu_count();
	o->ropts.threads = o->threads ? o->threads : (cores / workers ? cores / workers : 1);
	o->xopts.threads = o->wopts.threads = o->dopts.threads = o->ropts.threads;
	lib->lock = os_mutex_create();
	if (!lib->lock) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	os_thread *th[CLI_JOBS_MAX];
	unsigned started = 0;
	for (unsigned i = 1; i < workers; i++)
		if ((th[started] = os_thread_start(qp_worker, lib))) started++;
	qp_worker(lib);
	for (unsigned i = 0; i < started; i++) os_thread_join(th[i]);
}

/* Every project's QC files written, with the names its files were given; false when one
 * could not be (with -k every project is written: what converted under its new names, the
 * rest as the QC names it). */
static bool write_projects(library *lib)
{
	bool ok = true;
	rendered *done = NULL;
	size_t done_count = 0;
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		project *p = &lib->projects[pi];
		bool edited = qp_edit_names(p) && qp_edit_lines(p);
		/* a QC whose edits failed names what it should not: written only with -k */
		p->failed = !edited;
		if ((edited || lib->o->keep_going) && !p->unwritable) p->failed = !qp_write_qc_files(p, &done, &done_count) || p->failed;
		ok = ok && !p->failed;
	}
	for (size_t i = 0; i < done_count; i++) {
		free(done[i].path);
		free(done[i].text.text);
	}
	free(done);
	return ok;
}

/* Two QCs that make one .mdl ($modelname alike, ignoring case and the slashes' way, as
 * Windows finds files): studiomdl would write one over the other. Said at the later one. */
static void same_model_names(library *lib)
{
	str_map seen = { 0 };
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		project *p = &lib->projects[pi];
		const smdmx_qc *qc = p->qc;
		if (!qc || !qc->model_name) continue;
		char *key = xstrdup(qc->model_name);
		for (char *c = key; *c; c++) *c = *c == '\\' ? '/' : (*c >= 'A' && *c <= 'Z') ? (char)(*c + 32) : *c;
		uint32_t k = qp_str_get(&seen, key);
		if (k != SMDMX_NONE) {
			const smdmx_qc_pos *at = &qc->model_name_pos;
			diag_add(&p->diag, lib->o, qc->files[at->file].path, at->line, at->column, "warning",
			         "'%s' is the $modelname of %s too: studiomdl would write one model over the other; give one of "
			         "them another name",
			         qc->model_name, lib->projects[k].qcpath);
		} else {
			qp_str_set(&seen, key, (uint32_t)pi);
		}
		free(key);
	}
	qp_str_map_free(&seen);
}

/* The QCs' messages, each once: a message several QCs give alike (a file missing that a shared
 * include names, a form of that include) is one cause, said once with how many QCs it is for. */
static void report_qc_messages(const library *lib)
{
	str_map seen = { 0 };
	size_t n = 0, cap = 0;
	struct line {
		const char *text;
		size_t len, count;
	} *lines = NULL;
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		const char *s = lib->projects[pi].diag.text;
		while (s && *s) {
			const char *e = strchr(s, '\n');
			size_t len = e ? (size_t)(e - s) : strlen(s);
			char *key = xasprintf("%.*s", (int)len, s);
			uint32_t k = qp_str_get(&seen, key);
			if (k != SMDMX_NONE) {
				lines[k].count++;
			} else {
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					struct line *g = realloc(lines, cap * sizeof(*lines));
					if (!g) {
						fputs("smdmx: error: out of memory\n", stderr);
						exit(EXIT_FAILED);
					}
					lines = g;
				}
				lines[n].text = s;
				lines[n].len = len;
				lines[n].count = 1;
				qp_str_set(&seen, key, (uint32_t)n++);
			}
			free(key);
			s += len + (e ? 1 : 0);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (lines[i].count > 1) fprintf(stderr, "%.*s (for %zu QCs)\n", (int)lines[i].len, lines[i].text, lines[i].count);
		else fprintf(stderr, "%.*s\n", (int)lines[i].len, lines[i].text);
	}
	free(lines);
	qp_str_map_free(&seen);
}

/* The messages (each QC's, then each file's, in the order planned) and the summary line. */
static void report(const library *lib, size_t unread, size_t failed, size_t converted_n, size_t copied, size_t current,
                   int rc)
{
	const conv_opts *o = lib->o;
	size_t qc_errors = 0;
	report_qc_messages(lib);
	for (size_t pi = 0; pi < lib->project_count; pi++) qc_errors += lib->projects[pi].qc_errors;
	for (size_t i = 0; i < lib->task_count; i++) {
		const task *t = lib->tasks[i];
		fputs(t->diag.text ? t->diag.text : "", stderr);
		if (o->verbose && t->status == EXIT_OK && !t->up_to_date)
			for (size_t k = 0; k < t->written_count; k++) {
				diag_buf d = { 0 };
				diag_add(&d, NULL, t->src, 0, 0, "note", "-> %s", t->written[k]);
				fputs(d.text ? d.text : "", stderr);
				diag_free(&d);
			}
	}
	size_t qc_written = lib->qc_written_count;
	if (o->verbose)
		for (size_t k = 0; k < lib->qc_written_count; k++) say("smdmx", "note", "-> %s", lib->qc_written[k]);
	if (lib->project_count && rc != EXIT_USAGE && !o->quiet && (lib->task_count > 1 || failed || lib->missing_count || qc_errors || lib->project_count > 1)) {
		fprintf(stderr, "smdmx: ");
		if (lib->project_count + unread > 1) fprintf(stderr, "%zu QC projects, ", lib->project_count + unread);
		fprintf(stderr, "%zu converted, %zu copied, %zu missing, %zu failed", converted_n, copied, lib->missing_count, failed);
		if (qc_errors) fprintf(stderr, ", %zu QC line%s not read", qc_errors, qc_errors == 1 ? "" : "s");
		if (unread) fprintf(stderr, ", %zu QC%s not read", unread, unread == 1 ? "" : "s");
		if (current) fprintf(stderr, ", %zu up to date", current);
		fprintf(stderr, "; %zu QC file%s written\n", qc_written, qc_written == 1 ? "" : "s");
	}
}

/* --report: a row per QC, its model beside the converted QC's (as smdmx preview draws a QC's
 * $model), with the messages said about the QC and the files it planned. */
static bool qc_report(const library *lib)
{
	const conv_opts *o = lib->o;
	report_page r = { NULL, NULL, 0 };
	text_buf title = { 0 };
	tb_puts(&title, "smdmx qc ");
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		const project *p = &lib->projects[pi];
		text_buf said = { 0 };
		size_t warnings = p->diag.warnings + p->diag.hidden, errors = p->diag.errors;
		bool failed = !p->ok || p->failed;
		tb_puts(&said, p->diag.text);
		for (size_t i = 0; i < lib->task_count; i++) {
			const task *t = lib->tasks[i];
			if (t->proj != p) continue;
			tb_puts(&said, t->diag.text);
			warnings += t->diag.warnings + t->diag.hidden;
			errors += t->diag.errors;
			failed |= t->status == EXIT_FAILED;
		}
		if (p->qc && p->qc->model_count > 1) { /* the row draws and compares the first */
			char note[512];
			snprintf(note, sizeof(note), "%s: note: the QC has %zu $models: the row compares the first, '%s'\n", p->qcpath,
			         p->qc->model_count, p->qc->models[0].name);
			tb_puts(&said, note);
		}
		char *out = qp_out_path(lib, p->qcpath);
		os_stat st;
		bool there = os_stat_path(out, &st);
		report_add(&r, p->qcpath, there ? out : NULL, failed ? EXIT_FAILED : EXIT_OK, failed ? "failed" : "converted", said.text,
		           warnings, errors);
		/* --rig qc to DMX: the source as the DMX holds it (shapes; controllers and rules stay
		 * in the QC), against the DMX */
		if (!strcmp(lib->to, "dmx") && !lib->rig_dmx) report_rig_in_qc(&r, 0);
		/* to SMD from a DMX whose rig is the QC's (noautodmxrules): the result as that DMX
		 * held it */
		if (!strcmp(lib->to, "smd") && p->qc && p->qc->model_count && p->qc->models[0].noautodmxrules) report_rig_in_qc(&r, 1);
		free(out);
		free(said.text);
		if (pi == 0) tb_puts(&title, p->qcpath);
	}
	char more[64] = "";
	if (lib->project_count > 1) snprintf(more, sizeof(more), " and %zu more QC%s", lib->project_count - 1, lib->project_count > 2 ? "s" : "");
	tb_puts(&title, more);
	r.title = title.text;
	bool ok = report_write(&r, o->report, o->jobs, o->force || o->update, "smdmx");
	if (ok && o->verbose) say("smdmx", "note", "report of %zu QC%s: %s", lib->project_count, lib->project_count == 1 ? "" : "s", o->report);
	free(title.text);
	return ok;
}

/* --depfile: every output of the library, then every file read. */
static int write_qc_depfile(const library *lib)
{
	text_buf t = { 0 };
	bool first = true;
	for (size_t i = 0; i < lib->task_count; i++)
		for (size_t k = 0; k < lib->tasks[i]->written_count; k++) {
			if (!first) tb_putc(&t, ' ');
			tb_dep_path(&t, lib->tasks[i]->written[k]);
			first = false;
		}
	for (size_t k = 0; k < lib->qc_written_count + lib->qc_kept_count; k++) {
		if (!first) tb_putc(&t, ' ');
		tb_dep_path(&t, k < lib->qc_written_count ? lib->qc_written[k] : lib->qc_kept[k - lib->qc_written_count]);
		first = false;
	}
	tb_putc(&t, ':');
	str_map ins = { 0 };
	for (size_t pi = 0; pi < lib->project_count; pi++)
		for (size_t i = 0; i < lib->projects[pi].qc->file_count; i++) dep_input(&t, &ins, lib->projects[pi].qc->files[i].path);
	for (size_t i = 0; i < lib->task_count; i++) dep_input(&t, &ins, lib->tasks[i]->src);
	for (size_t i = 0; i < lib->consumed_count; i++) dep_input(&t, &ins, lib->consumed[i]);
	qp_str_map_free(&ins);
	tb_putc(&t, '\n');
	char why[1024];
	if (!depfile_write(lib->o->depfile, &t, why, sizeof(why))) {
		say("smdmx", "error", "cannot write the depfile '%s': %s", lib->o->depfile, why);
		free(t.text);
		return EXIT_FAILED;
	}
	free(t.text);
	return EXIT_OK;
}

int cmd_qc(int argc, char **argv)
{
	conv_opts o;
	memset(&o, 0, sizeof(o));
	o.tool = TOOL_SMDMX;
	o.name = "smdmx";
	o.max_warnings = 20;
	qc_command c;
	memset(&c, 0, sizeof(c));
	int rc = qc_options(argc, argv, &o, &c);
	if (c.help) {
		fputs(qc_help, stdout);
		free(c.args);
		return EXIT_OK;
	}
	char **qcs = NULL, **dirs = NULL;
	size_t qc_count = 0, dir_count = 0;
	if (rc == EXIT_OK) rc = collect_qcs(&o, c.args, c.arg_count, &qcs, &qc_count, &dirs, &dir_count);
	free(c.args);
	if (rc != EXIT_OK) {
		for (size_t i = 0; i < qc_count; i++) free(qcs[i]);
		for (size_t i = 0; i < dir_count; i++) free(dirs[i]);
		free(qcs);
		free(dirs);
		return rc;
	}
	library lib;
	memset(&lib, 0, sizeof(lib));
	lib.o = &o;
	lib.to = strcasecmp(c.to, "dmx") ? "smd" : "dmx";
	lib.rig_dmx = !strcmp(c.rig, "dmx");
	lib.projects = calloc(qc_count, sizeof(project));
	if (!lib.projects) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	output_init();
	size_t unread = 0;
	bool ok = read_projects(&lib, qcs, qc_count, &unread);
	if (!lib.project_count) rc = EXIT_FAILED; /* no QC could be read: said above */
	library_folders(&lib, dirs, dir_count, qcs[0]);
	if (rc == EXIT_OK) rc = outdir_apart(&lib);
	if (rc == EXIT_OK) qp_record_load(&lib);
	same_model_names(&lib);
	if (rc == EXIT_OK) {
		for (size_t pi = 0; pi < lib.project_count; pi++) {
			project *p = &lib.projects[pi];
			p->ok = qp_plan(p) && p->ok;
			ok = ok && p->ok;
			qp_count_missing(&lib, p);
			qp_join(&lib, p);
		}
		if (o.update) qp_plan_update(&lib);
		if (ok || o.keep_going) run_tasks(&lib, &o);
	}
	size_t failed = 0, converted_n = 0, copied = 0, current = 0;
	for (size_t i = 0; i < lib.task_count; i++) {
		const task *t = lib.tasks[i];
		failed += t->status == EXIT_FAILED;
		current += t->up_to_date;
		converted_n += t->status == EXIT_OK && !t->up_to_date && t->kind != TASK_COPY;
		copied += t->status == EXIT_OK && !t->up_to_date && t->kind == TASK_COPY;
	}
	if (rc == EXIT_OK && (o.keep_going || (ok && failed == 0))) ok = write_projects(&lib) && ok;
	if (rc == EXIT_OK) qp_record_save(&lib);
	if (rc == EXIT_OK && (!ok || failed)) rc = EXIT_FAILED;
	report(&lib, unread, failed, converted_n, copied, current, rc);
	if (o.depfile && rc == EXIT_OK) rc = write_qc_depfile(&lib);
	if (o.report && lib.project_count && !qc_report(&lib)) rc = EXIT_FAILED;
	qp_library_free(&lib);
	free(lib.projects);
	for (size_t i = 0; i < qc_count; i++) free(qcs[i]);
	free(qcs);
	for (size_t i = 0; i < dir_count; i++) free(dirs[i]);
	free(dirs);
	return rc;
}

/* ---- smdmx info and check of a QC ------------------------------------------------------------ */

static const char *const ref_kinds[] = { "model", "collision", "animation", "flex", "other" };

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') printf("\\%c", c);
		else if (c < 32) printf("\\u%04x", c);
		else putchar(c);
	}
	putchar('"');
}

int qc_info(const char *path, bool json)
{
	smdmx_error err;
	smdmx_warnings w;
	smdmx_qc *qc = smdmx_qc_read_file(path, NULL, &err, &w);
	diag_buf d = { 0 };
	diag_warnings(&d, NULL, path, &w);
	if (!qc) diag_error(&d, path, &err);
	fputs(d.text ? d.text : "", stderr);
	diag_free(&d);
	if (!qc) return EXIT_FAILED;
	size_t missing = 0;
	for (size_t i = 0; i < qc->ref_count; i++) missing += !qc->refs[i].found;
	if (json) {
		printf("{\"file\": ");
		json_str(path);
		printf(", \"kind\": \"qc\", \"files\": [");
		for (size_t i = 0; i < qc->file_count; i++) {
			printf("%s", i ? ", " : "");
			json_str(qc->files[i].path);
		}
		printf("], \"up_axis\": ");
		if (qc->up_axis) printf("\"%c\"", qc->up_axis);
		else printf("null");
		printf(", \"scale\": %g, \"references\": [", qc->scale);
		for (size_t i = 0; i < qc->ref_count; i++) {
			const smdmx_qc_ref *r = &qc->refs[i];
			printf("%s{\"kind\": \"%s\", \"command\": ", i ? ", " : "", ref_kinds[r->kind]);
			json_str(r->command);
			printf(", \"name\": ");
			json_str(r->name);
			printf(", \"path\": ");
			json_str(r->path);
			printf(", \"found\": %s, \"line\": %u}", r->found ? "true" : "false", r->pos.line);
		}
		printf("], \"models\": [");
		for (size_t i = 0; i < qc->model_count; i++) {
			const smdmx_qc_model *m = &qc->models[i];
			printf("%s{\"name\": ", i ? ", " : "");
			json_str(m->name);
			printf(", \"file\": ");
			json_str(qc->refs[m->ref].path);
			printf(", \"flexes\": %zu, \"controllers\": %zu, \"rules\": %zu, \"noautodmxrules\": %s}", m->flex_count,
			       m->controller_count, m->rule_count, m->noautodmxrules ? "true" : "false");
		}
		printf("], \"attachments\": %zu, \"missing\": %zu}\n", qc->attachment_count, missing);
	} else {
		printf("%s: QC, %zu file%s read", path, qc->file_count, qc->file_count == 1 ? "" : "s");
		if (qc->up_axis) printf(", $upaxis %c", qc->up_axis);
		if (qc->scale != 1) printf(", $scale %g", qc->scale);
		printf("\n");
		for (size_t i = 1; i < qc->file_count; i++) printf("  includes %s\n", qc->files[i].path);
		for (size_t i = 0; i < qc->model_count; i++) {
			const smdmx_qc_model *m = &qc->models[i];
			printf("  $model '%s': %s, %zu flex lines, %zu controllers, %zu rules%s\n", m->name, qc->refs[m->ref].path,
			       m->flex_count, m->controller_count, m->rule_count, m->noautodmxrules ? ", noautodmxrules" : "");
		}
		printf("  references %zu (%zu missing), attachments %zu\n", qc->ref_count, missing, qc->attachment_count);
		for (size_t i = 0; i < qc->ref_count; i++) {
			const smdmx_qc_ref *r = &qc->refs[i];
			printf("    %-9s %-16s %s%s%s\n", ref_kinds[r->kind], r->command, r->path, r->found ? "" : "  (missing)",
			       r->nocase ? "  (case differs)" : "");
		}
	}
	smdmx_qc_free(qc);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

typedef struct qc_findings {
	diag_buf *d;
	const char *path;
} qc_findings;

/* A finding of smdmx_qc_check, at its place. */
static void qc_finding(void *user, const smdmx_finding *f)
{
	const qc_findings *q = user;
	diag_add(q->d, NULL, f->file ? f->file : q->path, f->line, f->column, f->error ? "error" : "warning", "%s", f->message);
}

int qc_check(const char *path)
{
	smdmx_error err;
	smdmx_warnings w;
	smdmx_qc *qc = smdmx_qc_read_file(path, NULL, &err, &w);
	diag_buf d = { 0 };
	qc_findings q = { &d, path };
	diag_warnings(&d, NULL, path, &w);
	if (!qc) diag_error(&d, path, &err);
	else smdmx_qc_check(qc, NULL, qc_finding, &q);
	fputs(d.text ? d.text : "", stderr);
	size_t errors = d.errors;
	diag_free(&d);
	smdmx_qc_free(qc);
	return errors ? EXIT_FAILED : EXIT_OK;
}
