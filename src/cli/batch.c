/* The batch: inputs (files, and with -r directory trees) become jobs with planned outputs;
 * workers run them, biggest first; diagnostics come out in input order; a progress line on
 * a terminal; a summary; a make-style depfile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "report.h"

typedef struct plan {
	job *jobs;
	size_t count, cap;
} plan;

typedef struct found {
	char *path;
	char *rel; /* below the walked directory, or the base name of a file given directly */
} found;

typedef struct found_list {
	found *items;
	size_t count, cap;
} found_list;

static void found_push(found_list *l, char *path, char *rel)
{
	if (l->count == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		found *f = realloc(l->items, l->cap * sizeof(*f));
		if (!f) {
			fputs("smdmx: error: out of memory\n", stderr);
			exit(EXIT_FAILED);
		}
		l->items = f;
	}
	l->items[l->count++] = (found){ path, rel };
}

/* Whether a file of this extension is an input of the program. */
static bool wanted(const conv_opts *o, const char *ext)
{
	switch (o->tool) {
	case TOOL_SMD2DMX: return is_smd_family(ext);
	case TOOL_DMX2SMD: return !strcasecmp(ext, "dmx");
	default: return is_smd_family(ext) || !strcasecmp(ext, "dmx");
	}
}

/* Every wanted file below dir, in byte order of the names, so that a run's order never
 * depends on the file system. Symbolic links to directories are not followed (no loops). */
static bool walk(const conv_opts *o, const char *dir, const char *rel, found_list *out, unsigned depth)
{
	if (depth > 256) {
		say(o->name, "error", "'%s': directories nested too deep", dir);
		return false;
	}
	os_dir *d = os_dir_open(dir);
	if (!d) {
		say(o->name, "error", "cannot read the directory '%s': %s", dir, os_error_text(errno));
		return false;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	const char *e;
	while ((e = os_dir_next(d))) {
		if (e[0] == '.') continue; /* hidden files and our temporary files */
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **t = realloc(names, cap * sizeof(*t));
			if (!t) {
				fputs("smdmx: error: out of memory\n", stderr);
				exit(EXIT_FAILED);
			}
			names = t;
		}
		names[n++] = xstrdup(e);
	}
	os_dir_close(d);
	if (n) qsort(names, n, sizeof(*names), cmp_strings); /* an empty folder has no names (NULL) */
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		char *path = path_join(dir, names[i]);
		char *r = *rel ? xasprintf("%s/%s", rel, names[i]) : xstrdup(names[i]);
		os_stat st;
		if (os_lstat_path(path, &st) && st.kind == OS_DIRECTORY && !st.link) {
			ok = walk(o, path, r, out, depth + 1) && ok;
			free(path);
			free(r);
		} else if (os_stat_path(path, &st) && st.kind == OS_REGULAR && wanted(o, os_path_extension(names[i]))) {
			found_push(out, path, r);
		} else {
			free(path);
			free(r);
		}
		free(names[i]);
	}
	free(names);
	return ok;
}

/* The output extension of a job. */
static const char *out_extension(const conv_opts *o)
{
	if (o->to) return o->to;
	if (o->tool == TOOL_SMD2DMX) return "dmx";
	if (o->tool == TOOL_DMX2SMD) return "smd";
	return NULL;
}

static job *plan_push(plan *p)
{
	if (p->count == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		job *t = realloc(p->jobs, p->cap * sizeof(*t));
		if (!t) {
			fputs("smdmx: error: out of memory\n", stderr);
			exit(EXIT_FAILED);
		}
		p->jobs = t;
	}
	job *j = &p->jobs[p->count++];
	memset(j, 0, sizeof(*j));
	return j;
}

static uint64_t file_size(const char *path)
{
	os_stat st;
	return strcmp(path, "-") && os_stat_path(path, &st) ? st.size : 0;
}

static const plan *sort_plan;
static int by_output(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = os_path_compare(sort_plan->jobs[x].out, sort_plan->jobs[y].out);
	return c ? c : x < y ? -1 : 1;
}

static bool plan_jobs(const conv_opts *o, found_list *fl, plan *p);

/* smd2dmx --qc: one job, the QC its input; its output the $model's file as DMX. */
static bool plan_qc(const conv_opts *o, plan *p)
{
	job *j = plan_push(p);
	j->inputs = malloc(sizeof(char *));
	if (!j->inputs) return false;
	j->inputs[0] = xstrdup(o->qc);
	j->input_count = 1;
	j->size = file_size(o->qc);
	smdmx_error err;
	smdmx_qc *qc = smdmx_qc_read_file(o->qc, NULL, &err, NULL);
	uint32_t m = qc ? smdmx_qc_find_model(qc, o->model) : SMDMX_NONE;
	/* what the conversion will read, for -u: the QC's includes and the files it names */
	for (size_t i = 1; qc && i < qc->file_count; i++) job_dep(j, qc->files[i].path);
	for (size_t i = 0; qc && i < qc->ref_count; i++)
		if (qc->refs[i].found && (qc->refs[i].model == m || m == SMDMX_NONE)) job_dep(j, qc->refs[i].path);
	const char *ref = m != SMDMX_NONE ? qc->refs[qc->models[m].ref].path : o->qc;
	for (size_t i = 0; qc && m == SMDMX_NONE && !o->model && i < qc->ref_count; i++)
		if (qc->refs[i].kind == SMDMX_QC_REF_ANIMATION) {
			ref = qc->refs[i].path;
			break;
		}
	char *out = path_with_extension(ref, "dmx");
	if (o->out) {
		j->out = xstrdup(o->out);
		free(out);
	} else if (o->outdir) {
		const char *slash = os_last_separator(out);
		j->out = path_join(o->outdir, slash ? slash + 1 : out);
		free(out);
	} else {
		j->out = out;
	}
	smdmx_qc_free(qc);
	return true;
}

bool files_below(tool_kind tool, const char *name, const char *dir, char ***paths, size_t *count)
{
	conv_opts o;
	memset(&o, 0, sizeof(o));
	o.tool = tool;
	o.name = name;
	size_t len = strlen(dir);
	while (len > 1 && os_is_separator(dir[len - 1])) len--;
	char *d = xasprintf("%.*s", (int)len, dir);
	found_list f = { 0 };
	bool ok = walk(&o, d, "", &f, 0);
	free(d);
	*paths = malloc((f.count + 1) * sizeof(char *));
	if (!*paths) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	for (size_t i = 0; i < f.count; i++) {
		(*paths)[i] = f.items[i].path;
		free(f.items[i].rel);
	}
	*count = f.count;
	free(f.items);
	return ok;
}

/* --report: a row per job, its input beside its output as written (with the VTA and clips
 * each side has), the job's messages; the page drawn and written. */
static bool report_batch(const conv_opts *o, const plan *p)
{
	report_page r = { NULL, NULL, 0 };
	text_buf title = { 0 };
	tb_puts(&title, o->name);
	tb_putc(&title, ' ');
	for (size_t i = 0; i < p->count; i++) {
		const job *j = &p->jobs[i];
		bool done = j->ran && j->status == EXIT_OK;
		const char *state = j->up_to_date ? "up to date" : !j->ran ? "not converted" : done ? "converted" : "failed";
		report_add(&r, j->inputs[0], done || j->up_to_date ? j->out : NULL, j->ran && !done ? EXIT_FAILED : EXIT_OK, state,
		           j->diag.text, j->diag.warnings + j->diag.hidden, j->diag.errors);
		if (j->vta) report_vta(&r, 0, j->vta);
		for (size_t k = 1; k < j->input_count; k++) report_clip(&r, 0, j->inputs[k]);
		for (size_t k = 0; done && k < j->written_count; k++) {
			const char *w = j->written[k], *ext = os_path_extension(w);
			if (!os_path_compare(w, j->out) || !strcasecmp(ext, "qc")) continue;
			if (!strcasecmp(ext, "vta")) report_vta(&r, 1, w);
			else report_clip(&r, 1, w);
		}
		if (i == 0) tb_puts(&title, j->inputs[0]);
	}
	char more[64] = "";
	if (p->count > 1) snprintf(more, sizeof(more), " and %zu more input%s", p->count - 1, p->count > 2 ? "s" : "");
	tb_puts(&title, more);
	r.title = title.text ? title.text : o->name;
	bool ok = report_write(&r, o->report, o->jobs, o->force || o->update, o->name);
	if (ok && o->verbose) say(o->name, "note", "report of %zu input%s: %s", p->count, p->count == 1 ? "" : "s", o->report);
	free(title.text);
	return ok;
}

/* Plans the jobs; false (a usage error, already reported) when the command line cannot
 * work. */
static bool make_plan(const conv_opts *o, char **args, size_t nargs, plan *p)
{
	if (o->qc && o->tool == TOOL_SMD2DMX) return plan_qc(o, p);
	found_list files = { 0 };
	bool ok = true;
	for (size_t i = 0; i < nargs; i++) {
		const char *a = args[i];
		os_stat st;
		if (strcmp(a, "-") && os_stat_path(a, &st) && st.kind == OS_DIRECTORY) {
			if (!o->recursive) {
				say(o->name, "error", "'%s' is a directory (-r converts the files below it)", a);
				ok = false;
				continue;
			}
			size_t len = strlen(a);
			while (len > 1 && os_is_separator(a[len - 1])) len--;
			char *dir = xasprintf("%.*s", (int)len, a);
			if (!walk(o, dir, "", &files, 0)) ok = false;
			free(dir);
			continue;
		}
		if (strcmp(a, "-") && !wanted(o, os_path_extension(a))) {
			say(o->name, "error", "'%s': not an input of %s (%s)", a, o->name,
			    o->tool == TOOL_DMX2SMD ? ".dmx" : o->tool == TOOL_SMD2DMX ? ".smd, .sma, .phys, .vta" : ".smd, .sma, .phys, .vta, .dmx");
			ok = false;
			continue;
		}
		const char *slash = os_last_separator(a);
		found_push(&files, xstrdup(a), xstrdup(slash ? slash + 1 : a));
	}
	ok = ok && plan_jobs(o, &files, p);
	for (size_t i = 0; i < files.count; i++) {
		free(files.items[i].path);
		free(files.items[i].rel);
	}
	free(files.items);
	return ok;
}

/* The jobs for the input files (their paths stay the caller's to free). */
static bool plan_jobs(const conv_opts *o, found_list *fl, plan *p)
{
	found_list files = *fl;
	if (!files.count) {
		say(o->name, "error", "no input files");
		return false;
	}
	bool has_stdin = false;
	for (size_t i = 0; i < files.count; i++) has_stdin |= !strcmp(files.items[i].path, "-");
	if (has_stdin && files.count > 1) {
		say(o->name, "error", "'-' (standard input) must be the only input");
		return false;
	}
	if (o->clips) {
		if (!o->out) {
			say(o->name, "error", "--clips puts every input into one DMX: give it with -o");
			return false;
		}
		job *j = plan_push(p);
		j->inputs = malloc(files.count * sizeof(char *));
		if (!j->inputs) return false;
		for (size_t i = 0; i < files.count; i++) {
			j->inputs[i] = xstrdup(files.items[i].path);
			j->input_count++;
			j->size += file_size(files.items[i].path);
		}
		j->out = xstrdup(o->out);
		if (o->vta) j->vta = xstrdup(o->vta);
		return true;
	}
	/* A VTA beside an SMD of the same name (both among the inputs) gives that SMD its shapes. */
	bool *taken = calloc(files.count ? files.count : 1, sizeof(bool));
	size_t *vta_of = calloc(files.count ? files.count : 1, sizeof(size_t));
	if (!taken || !vta_of) {
		free(taken);
		free(vta_of);
		return false;
	}
	for (size_t i = 0; i < files.count; i++) vta_of[i] = SIZE_MAX;
	if (o->tool != TOOL_DMX2SMD && !o->vta && !(o->to && !strcasecmp(o->to, "vta"))) {
		for (size_t i = 0; i < files.count; i++) {
			const char *v = files.items[i].path;
			if (strcasecmp(os_path_extension(v), "vta")) continue;
			size_t stem = strlen(v) - strlen(os_path_extension(v));
			for (size_t k = 0; k < files.count; k++) {
				const char *s = files.items[k].path;
				if (k == i || !strcasecmp(os_path_extension(s), "vta") || strlen(s) - strlen(os_path_extension(s)) != stem ||
				    strncmp(s, v, stem) || vta_of[k] != SIZE_MAX)
					continue;
				if (o->tool == TOOL_SMDMX && !(o->to ? !strcasecmp(o->to, "dmx") : o->out && !strcasecmp(os_path_extension(o->out), "dmx")))
					continue; /* VTA to DMX only */
				vta_of[k] = i;
				taken[i] = true;
				break;
			}
		}
	}
	for (size_t i = 0; i < files.count; i++) {
		if (taken[i]) continue;
		const found *f = &files.items[i];
		job *j = plan_push(p);
		j->inputs = malloc(sizeof(char *));
		if (!j->inputs) {
			free(taken);
			free(vta_of);
			return false;
		}
		j->inputs[0] = xstrdup(f->path);
		j->input_count = 1;
		j->size = file_size(f->path);
		if (vta_of[i] != SIZE_MAX) {
			j->vta = xstrdup(files.items[vta_of[i]].path);
			j->size += file_size(j->vta);
		} else if (o->vta) {
			j->vta = xstrdup(o->vta);
		}
		const char *ext = out_extension(o);
		if (o->out) j->out = xstrdup(o->out);
		else if (!ext) {
			say(o->name, "error", "give the output with -o, or its kind with --to smd|sma|phys|vta|dmx");
			free(taken);
			free(vta_of);
			return false;
		} else if (!strcmp(f->path, "-")) {
			/* standard input with -d: DIR/NAME.EXT (--name, default stdin), else standard output */
			char *base = xasprintf("%s.%s", stdin_name, ext);
			j->out = o->outdir ? path_join(o->outdir, base) : xstrdup("-");
			free(base);
		} else if (o->outdir) {
			char *rel = path_with_extension(f->rel, ext);
			j->out = path_join(o->outdir, rel);
			free(rel);
		} else j->out = path_with_extension(f->path, ext);
	}
	free(taken);
	free(vta_of);
	if (o->out && p->count > 1) {
		say(o->name, "error", "-o names one output, but there are %zu inputs (-d DIR writes each into DIR)", p->count);
		return false;
	}
	/* Two inputs must not write one output (x.smd and x.SMD, or a/x.smd and b/x.smd with -d
	 * and no -r, or A.smd and a.smd where the file system ignores case): those jobs fail
	 * without running. */
	size_t *by_out = malloc(p->count * sizeof(size_t));
	if (!by_out) return false;
	for (size_t i = 0; i < p->count; i++) by_out[i] = i;
	sort_plan = p;
	qsort(by_out, p->count, sizeof(size_t), by_output);
	for (size_t i = 0; i < p->count;) {
		size_t k = i + 1;
		while (k < p->count && !os_path_compare(p->jobs[by_out[k]].out, p->jobs[by_out[i]].out)) k++;
		if (k - i > 1 && strcmp(p->jobs[by_out[i]].out, "-"))
			for (size_t m = i; m < k; m++) {
				job *j = &p->jobs[by_out[m]];
				const job *other = &p->jobs[by_out[m == i ? i + 1 : i]];
				diag_add(&j->diag, NULL, j->inputs[0], 0, 0, "error", "'%s' would also be written from '%s'", j->out,
				         other->inputs[0]);
				j->ran = true;
				j->status = EXIT_FAILED;
			}
		i = k;
	}
	free(by_out);
	/* A VTA converted to DMX on its own is no model: its shapes belong to a reference, and
	 * one that pairs with no SMD among the inputs fails, named (decision 10). */
	for (size_t i = 0; i < p->count; i++) {
		job *j = &p->jobs[i];
		if (j->ran || j->input_count != 1 || strcasecmp(os_path_extension(j->inputs[0]), "vta") ||
		    job_direction(o, j) != DIR_SMD_TO_DMX)
			continue;
		char *smd = path_with_extension(j->inputs[0], "smd");
		diag_add(&j->diag, NULL, j->inputs[0], 0, 0, "error",
		         "a VTA holds the shapes of a reference, and no input is its SMD ('%s'): give that beside it, or the "
		         "reference with --vta",
		         smd);
		free(smd);
		j->ran = true;
		j->status = EXIT_FAILED;
	}
	return true;
}

/* ---- running ----------------------------------------------------------------------------- */

/* Without -k a batch stops at its first failure the same way at every -j: as if the inputs
 * ran one after another. Jobs run in input order, at most ORDER_WINDOW ahead of the first
 * not yet put in place; each job's outputs are finished on its worker and put in place in
 * input order; a failure stops every input after it (one that ran already has its outputs
 * dropped) and still runs those before it. */
enum { ORDER_WINDOW = 32 };

typedef struct batch {
	const conv_opts *o;
	plan *p;
	size_t *order;      /* jobs by decreasing size (-k), else in input order */
	size_t next;        /* next in order to start */
	size_t printed;     /* jobs printed, in input order */
	size_t finished;
	bool stop;          /* -k: nothing stops; else unused (see limit) */
	bool ordered;       /* no -k, several jobs: outputs put in place in input order */
	size_t limit;       /* ordered: the first input that failed (none after it converts) */
	size_t committed;   /* ordered: jobs before this are in place (or failed) */
	bool progress;
	os_term term;       /* progress: what the terminal shows */
	unsigned columns;   /* progress: its width */
	size_t shown;       /* progress: columns the line holds now */
	os_mutex *lock;
	os_cond *moved;     /* ordered: committed or limit moved */
} batch;

/* ordered: the jobs whose turn it is, put in place in input order (under the lock). */
static void commit_ready(batch *b)
{
	plan *p = b->p;
	while (b->committed < p->count && b->committed <= b->limit && p->jobs[b->committed].ran) {
		job *j = &p->jobs[b->committed];
		if (j->status == EXIT_OK && outputs_count(&j->pending)) {
			char why[1024];
			if (!outputs_commit(&j->pending, &j->written, &j->written_count, why, sizeof(why))) {
				diag_add(&j->diag, NULL, j->out, 0, 0, "error", "%s", why);
				j->status = EXIT_FAILED;
			}
			outputs_abort(&j->pending); /* (nothing left of it after a commit) */
		}
		if (j->status != EXIT_OK && b->committed < b->limit) b->limit = b->committed;
		b->committed++;
	}
	os_cond_broadcast(b->moved);
}

/* The progress line rewritten to text ("" clears it). */
static void progress_show(batch *b, const char *text)
{
	char line[1024];
	size_t n = progress_render(b->term, b->columns, &b->shown, text, line, sizeof(line));
	fwrite(line, 1, n, stderr);
}

static void print_ready(batch *b)
{
	plan *p = b->p;
	if (b->progress) progress_show(b, "");
	while (b->printed < p->count && p->jobs[b->printed].ran && (!b->ordered || (b->printed < b->committed && b->printed <= b->limit))) {
		job *j = &p->jobs[b->printed];
		if (j->diag.len) fwrite(j->diag.text, 1, j->diag.len, stderr);
		b->printed++;
	}
	if (b->progress && b->finished < p->count) {
		char text[1024];
		snprintf(text, sizeof(text), "%s: [%zu/%zu] %s", b->o->name, b->finished, p->count,
		         p->jobs[b->printed < p->count ? b->printed : 0].inputs[0]);
		progress_show(b, text);
	}
	fflush(stderr);
}

static void worker(void *arg)
{
	batch *b = arg;
	for (;;) {
		os_mutex_lock(b->lock);
		/* ordered: not past the first failure, nor too far ahead of what is in place */
		while (b->ordered && b->next < b->p->count && b->order[b->next] <= b->limit && b->order[b->next] >= b->committed + ORDER_WINDOW)
			os_cond_wait(b->moved, b->lock);
		if (b->stop || b->next == b->p->count || (b->ordered && b->order[b->next] > b->limit)) {
			os_mutex_unlock(b->lock);
			return;
		}
		size_t index = b->order[b->next++];
		job *j = &b->p->jobs[index];
		if (j->ran) { /* failed in planning */
			os_mutex_unlock(b->lock);
			continue;
		}
		os_mutex_unlock(b->lock);
		job_run(b->o, j, b->ordered);
		os_mutex_lock(b->lock);
		j->ran = true; /* print_ready reads it under this lock, from any worker */
		b->finished++;
		if (b->ordered) {
			if (j->status != EXIT_OK && index < b->limit) b->limit = index;
			commit_ready(b);
		}
		print_ready(b);
		os_mutex_unlock(b->lock);
	}
}

static int by_size(const void *a, const void *b)
{
	const job *x = &sort_plan->jobs[*(const size_t *)a], *y = &sort_plan->jobs[*(const size_t *)b];
	if (x->size != y->size) return x->size > y->size ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static bool write_depfile(const conv_opts *o, const plan *p)
{
	text_buf t = { 0 };
	for (size_t i = 0; i < p->count; i++) {
		const job *j = &p->jobs[i];
		if (!j->written_count) continue;
		for (size_t k = 0; k < j->written_count; k++) {
			if (k) tb_putc(&t, ' ');
			tb_dep_path(&t, j->written[k]);
		}
		tb_putc(&t, ':');
		for (size_t k = 0; k < j->input_count; k++) {
			if (!strcmp(j->inputs[k], "-")) continue; /* standard input is no file make knows */
			tb_putc(&t, ' ');
			tb_dep_path(&t, j->inputs[k]);
		}
		if (j->vta) {
			tb_putc(&t, ' ');
			tb_dep_path(&t, j->vta);
		}
		for (size_t k = 0; k < j->dep_count; k++) {
			tb_putc(&t, ' ');
			tb_dep_path(&t, j->deps[k]);
		}
		tb_putc(&t, '\n');
	}
	char why[1024];
	bool ok = depfile_write(o->depfile, &t, why, sizeof(why));
	free(t.text);
	if (!ok) say(o->name, "error", "%s", why);
	return ok;
}

static void plan_free(plan *p)
{
	for (size_t i = 0; i < p->count; i++) {
		job *j = &p->jobs[i];
		for (size_t k = 0; k < j->input_count; k++) free(j->inputs[k]);
		free(j->inputs);
		free(j->vta);
		free(j->out);
		for (size_t k = 0; k < j->written_count; k++) free(j->written[k]);
		free(j->written);
		for (size_t k = 0; k < j->dep_count; k++) free(j->deps[k]);
		free(j->deps);
		diag_free(&j->diag);
	}
	free(p->jobs);
	memset(p, 0, sizeof(*p));
}

/* ---- options against the work --------------------------------------------------------------- */

static const char *const opt_names[OPT_COUNT] = {
	"--vta", "--clip", "--clips", "--fps", "--keys", "--key-tolerance", "--target",
	"--encoding", "--encoding-version", "--model-version", "--goldsrc", "--lf", "--scale", "--up-axis",
	"--threads",
};

/* The options a direction takes. */
static unsigned applies(direction d)
{
	const unsigned both = OPT_SCALE | OPT_UP_AXIS | OPT_THREADS;
	const unsigned dmx_out = OPT_TARGET | OPT_ENCODING | OPT_ENCODING_VERSION | OPT_MODEL_VERSION | OPT_KEYS | OPT_KEY_TOLERANCE;
	const unsigned smd_out = OPT_GOLDSRC | OPT_LF;
	switch (d) {
	case DIR_SMD_TO_DMX: return both | dmx_out | OPT_VTA | OPT_CLIPS | OPT_FPS;
	case DIR_DMX_TO_SMD: return both | smd_out | OPT_VTA | OPT_CLIP;
	case DIR_DMX_TO_DMX: return both | dmx_out;
	case DIR_SMD_TO_SMD: return both | smd_out | OPT_VTA;
	}
	return 0;
}

/* Why an option does not apply to a direction. */
static const char *why_not(unsigned opt, direction d)
{
	bool dmx_in = d == DIR_DMX_TO_SMD || d == DIR_DMX_TO_DMX;
	switch (opt) {
	case OPT_VTA: return "a DMX holds its shapes itself";
	case OPT_CLIP: return dmx_in ? "a DMX written as DMX keeps every clip" : "it picks a clip of an animation DMX";
	case OPT_CLIPS: return "it gathers SMD animations into one DMX";
	case OPT_FPS: return dmx_in ? "a DMX's clips carry their frame rate" : "an SMD written as SMD has no frame rate";
	case OPT_KEYS:
	case OPT_KEY_TOLERANCE: return "SMD output has every frame";
	case OPT_GOLDSRC:
	case OPT_LF: return "it shapes SMD output";
	default: return "SMD output has no encoding or model format";
	}
}

/* Each option given against the jobs: one that applies to none of them is a usage error
 * (nothing converted); one that applies to some is a warning on each of the others. */
static bool check_options(const conv_opts *o, plan *p)
{
	if (o->qc && o->tool == TOOL_SMD2DMX) return true; /* checked with --qc */
	size_t to_smd = 0;
	for (size_t i = 0; i < p->count; i++) to_smd += job_direction(o, &p->jobs[i]) == DIR_DMX_TO_SMD;
	if ((o->given & OPT_VTA) && to_smd > 1) {
		say(o->name, "error", "--vta names the VTA written for one DMX, but %zu DMX files are converted to SMD", to_smd);
		return false;
	}
	for (unsigned k = 0; k < OPT_COUNT; k++) {
		unsigned opt = 1u << k;
		if (!(o->given & opt)) continue;
		size_t fit = 0;
		for (size_t i = 0; i < p->count; i++) fit += (applies(job_direction(o, &p->jobs[i])) & opt) != 0;
		for (size_t i = 0; i < p->count && fit < p->count; i++) {
			job *j = &p->jobs[i];
			direction d = job_direction(o, j);
			if (applies(d) & opt) continue;
			if (!fit) {
				say(o->name, "error", "'%s' does not apply to '%s' (%s)", opt_names[k], j->inputs[0], why_not(opt, d));
				return false;
			}
			diag_add(&j->diag, o, j->inputs[0], 0, 0, "warning", "'%s' does not apply here (%s): ignored for this file; nothing to do", opt_names[k],
			         why_not(opt, d));
		}
	}
	return true;
}

/* ---- -u: only what is out of date ------------------------------------------------------------ */

/* The time a file was last changed, or false when it is not there. */
static bool mtime_of(const char *path, os_stat *t)
{
	return strcmp(path, "-") && os_stat_path(path, t);
}

static bool newer(const os_stat *a, const os_stat *b)
{
	return a->mtime_sec != b->mtime_sec ? a->mtime_sec > b->mtime_sec : a->mtime_nsec > b->mtime_nsec;
}

/* As make does: a job whose output is there and no older than anything it reads (its
 * inputs, its VTA, the files a QC names) is up to date and does not run; one whose output
 * is older replaces it. Returns how many are up to date. */
static size_t plan_update(plan *p)
{
	size_t current = 0;
	for (size_t i = 0; i < p->count; i++) {
		job *j = &p->jobs[i];
		os_stat out, t;
		if (j->ran || !mtime_of(j->out, &out)) continue;
		bool stale = false;
		for (size_t k = 0; k < j->input_count && !stale; k++) stale = !mtime_of(j->inputs[k], &t) || newer(&t, &out);
		if (j->vta && !stale) stale = !mtime_of(j->vta, &t) || newer(&t, &out);
		for (size_t k = 0; k < j->dep_count && !stale; k++) stale = mtime_of(j->deps[k], &t) && newer(&t, &out);
		if (stale) {
			j->replace = true;
			continue;
		}
		j->up_to_date = j->ran = true;
		j->status = EXIT_OK;
		/* its outputs are still its outputs, for --depfile */
		j->written = malloc(sizeof(char *));
		if (j->written) {
			j->written[0] = xstrdup(j->out);
			j->written_count = 1;
		}
		current++;
	}
	return current;
}

int batch_main(conv_opts *o, char **inputs, size_t input_count)
{
	plan p = { 0 };
	if (!make_plan(o, inputs, input_count, &p) || !check_options(o, &p)) {
		plan_free(&p);
		return EXIT_USAGE;
	}
	output_init();
	/* A batch allocates and frees models of similar sizes again and again. */
	os_tune_allocator();
	if (p.count == 1) p.jobs[0].alone = true;
	size_t current = o->update ? plan_update(&p) : 0;
	unsigned workers = o->jobs;
	if (!workers) workers = os_cpu_count();
	if (workers > p.count) workers = (unsigned)p.count;
	if (workers > 256) workers = 256;
	/* Threads for one file: as given, else the cores shared by the files converted at once
	 * (one big file gets them all; a batch of many gets one each). */
	unsigned cores = os_cpu_count();
	o->ropts.threads = o->threads ? o->threads : (cores / workers ? cores / workers : 1);
	o->xopts.threads = o->wopts.threads = o->dopts.threads = o->ropts.threads;
	batch b;
	memset(&b, 0, sizeof(b));
	b.o = o;
	b.p = &p;
	b.term = p.count > 1 && !o->quiet ? os_terminal(stderr, &b.columns) : OS_TERM_NONE;
	b.progress = b.term != OS_TERM_NONE;
	b.lock = os_mutex_create();
	if (!b.lock) return EXIT_FAILED;
	b.ordered = !o->keep_going && p.count > 1;
	b.limit = SIZE_MAX;
	b.moved = b.ordered ? os_cond_create() : NULL;
	if (b.ordered && !b.moved) return EXIT_FAILED;
	b.order = malloc(p.count * sizeof(size_t));
	if (!b.order) return EXIT_FAILED;
	for (size_t i = 0; i < p.count; i++) {
		b.order[i] = i;
		if (p.jobs[i].ran) {
			b.finished++;
			if (!o->keep_going && p.jobs[i].status != EXIT_OK) {
				if (!b.ordered) b.stop = true;
				else if (i < b.limit) b.limit = i;
			}
		}
	}
	if (b.ordered) commit_ready(&b);
	/* With -k, several workers start the biggest first, so that no large file is left to run
	 * alone at the end; without, the inputs go in order (the first failure stops those after
	 * it, as on one worker). */
	sort_plan = &p;
	if (workers > 1 && !b.ordered) qsort(b.order, p.count, sizeof(size_t), by_size);
	os_thread *threads[CLI_JOBS_MAX];
	unsigned started = 0;
	for (unsigned t = 1; t < workers; t++) {
		if (!(threads[started] = os_thread_start(worker, &b))) break;
		started++;
	}
	worker(&b);
	for (unsigned t = 0; t < started; t++) os_thread_join(threads[t]);
	/* ordered: what ran after the first failure is dropped, as if it never ran */
	for (size_t i = 0; b.ordered && i < p.count; i++) {
		job *j = &p.jobs[i];
		if (i <= b.limit || !j->ran) continue;
		outputs_abort(&j->pending);
		for (size_t k = 0; k < j->written_count; k++) free(j->written[k]);
		free(j->written);
		j->written = NULL;
		j->written_count = 0;
		j->ran = false;
		j->cancelled = true;
	}
	/* What is left to print: jobs after one that never ran (the batch stopped). */
	if (b.progress) progress_show(&b, "");
	size_t failed = 0, skipped = 0;
	for (size_t i = 0; i < p.count; i++) {
		job *j = &p.jobs[i];
		if (i >= b.printed && j->ran && j->diag.len) fwrite(j->diag.text, 1, j->diag.len, stderr);
		if (!j->ran) skipped++;
		else if (j->status != EXIT_OK) failed++;
	}
	int rc = failed ? EXIT_FAILED : EXIT_OK;
	if (current && !o->quiet) say(o->name, "note", "%zu of %zu inputs up to date (-u)", current, p.count);
	/* Options about animation that took effect on no input of a batch (one job says it). */
	if (p.count > 1 && !skipped) {
		static const unsigned anim[] = { OPT_FPS, OPT_KEYS, OPT_KEY_TOLERANCE };
		for (size_t k = 0; k < 3; k++) {
			if (!(o->given & anim[k])) continue;
			bool used = false, fits = false;
			for (size_t i = 0; i < p.count; i++) {
				used |= (p.jobs[i].used & anim[k]) != 0;
				fits |= p.jobs[i].ran && p.jobs[i].status == EXIT_OK && (applies(job_direction(o, &p.jobs[i])) & anim[k]);
			}
			if (used || !fits) continue;
			unsigned bit = 0;
			while ((1u << bit) != anim[k]) bit++;
			say(o->name, o->werror ? "error" : "warning", "'%s' took effect on no input: none of them has an animation; leave it out%s",
			    opt_names[bit], o->werror ? " (-W error)" : "");
			if (o->werror) rc = EXIT_FAILED;
		}
	}
	if (failed && p.count > 1) {
		if (skipped)
			say(o->name, "error", "stopped after the first failure: %zu of %zu inputs not converted (--keep-going converts the rest)",
			    skipped, p.count);
		else
			say(o->name, "error", "%zu of %zu inputs failed", failed, p.count);
	}
	if (!failed && o->depfile && !write_depfile(o, &p)) rc = EXIT_FAILED;
	if (o->report && !report_batch(o, &p)) rc = EXIT_FAILED;
	plan_free(&p);
	free(b.order);
	os_mutex_destroy(b.lock);
	if (b.moved) os_cond_destroy(b.moved);
	return rc;
}
