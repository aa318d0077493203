/* QC projects converted (smdmx_projects_convert): the QCs read, the library's folder found,
 * each project planned (plan.c), the tasks run on workers (run.c), the QC files written
 * (write.c) and the record of what was written kept (record.c); what each step said, and what
 * the run made, handed back as an smdmx_project_run. What those files share (messages, text,
 * strings, paths, the tasks' output sets) is base.c's. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"
#include "support/internal.h"

static char *abs_dir(const sm_alloc *m, const char *path)
{
	char *a = pj_path_absolute(m, path);
	char *s = a ? strrchr(a, '/') : NULL;
	if (s) s[1] = 0;
	return a;
}

/* The folder every path lies in: the longest common folder. */
static void common_root(char *root, const char *path)
{
	if (!root || !path) return; /* out of memory: said */
	size_t i = 0, last = 0;
	while (root[i] && root[i] == path[i]) {
		if (root[i] == '/') last = i + 1;
		i++;
	}
	if (root[i] == 0 && (path[i] == '/' || path[i] == 0)) return;
	root[last] = 0;
}

/* -j workers, at most one an item (a task, a QC) and SMDMX_PROJECT_JOBS_MAX */
static unsigned worker_count(const library *lib, size_t items)
{
	unsigned workers = lib->o->jobs;
	if (!workers) workers = os_cpu_count();
	if (workers > items) workers = (unsigned)items;
	if (workers < 1) workers = 1;
	if (workers > SMDMX_PROJECT_JOBS_MAX) workers = SMDMX_PROJECT_JOBS_MAX;
	return workers;
}

/* Items 0 to count - 1, each given to each(arg, i) by the library's workers (this thread one
 * of them) as they come free. */
typedef struct team {
	size_t next, count;
	os_mutex *lock;
	void (*each)(void *arg, size_t i);
	void *arg;
} team;

static void team_work(void *arg)
{
	team *t = arg;
	for (;;) {
		if (t->lock) os_mutex_lock(t->lock);
		size_t i = t->next < t->count ? t->next++ : SIZE_MAX;
		if (t->lock) os_mutex_unlock(t->lock);
		if (i == SIZE_MAX) break;
		t->each(t->arg, i);
	}
}

static void team_run(library *lib, size_t count, void (*each)(void *arg, size_t i), void *arg)
{
	team t = { 0, count, NULL, each, arg };
	unsigned workers = qp_ran_out(lib) ? 1 : worker_count(lib, count);
	os_thread *th[SMDMX_PROJECT_JOBS_MAX];
	unsigned started = 0;
	os_mem mem = pj_os_mem(&lib->mem);
	if (workers > 1) t.lock = os_mutex_create_in(&mem); /* (or one worker: the budget knows it ran out) */
	for (unsigned i = 1; t.lock && i < workers; i++)
		if ((th[started] = os_thread_start_in(&mem, team_work, &t))) started++;
	team_work(&t);
	for (unsigned i = 0; i < started; i++) os_thread_join(th[i]);
	if (t.lock) os_mutex_destroy(t.lock);
}

/* A QC read on a worker (each reading its own: nothing shared but the options), taken in the
 * order given afterwards. */
typedef struct qc_read {
	const char *path;
	smdmx_qc *qc;
	smdmx_error err;
	smdmx_warnings w;
} qc_read;

typedef struct qc_reads {
	const smdmx_qc_read_options *options;
	qc_read *items;
} qc_reads;

static void read_one(void *arg, size_t i)
{
	qc_reads *r = arg;
	qc_read *q = &r->items[i];
	q->qc = smdmx_qc_read_file(q->path, r->options, &q->err, &q->w);
}

/* Every QC read into a project of lib (one given twice is read once), each given listed
 * (lib->given) with its project or, when it could not be read, its messages. False when one
 * could not be read. */
static bool read_projects(library *lib, const char *const *qcs, size_t qc_count)
{
	const smdmx_project_options *o = lib->o;
	smdmx_qc_read_options qo;
	memset(&qo, 0, sizeof(qo));
	qo.keep_going = o->lenient_qc;
	qo.allocator = lib->mem.hooks;
	bool ok = true;
	/* each QC once, in the order given */
	qc_reads r = { &qo, pj_calloc(&lib->mem, qc_count, sizeof(qc_read)) };
	if (!r.items) return false;
	size_t count = 0;
	str_map seen = { .mem = &lib->mem };
	for (size_t i = 0; i < qc_count; i++) {
		char *a = pj_path_absolute(&lib->mem, qcs[i]);
		bool again = qp_str_get(&seen, a) != SMDMX_NONE;
		qp_str_set(&seen, a, 0);
		pj_free(&lib->mem, a);
		if (!again) r.items[count++].path = qcs[i];
	}
	qp_str_map_free(&seen);
	team_run(lib, count, read_one, &r);
	for (size_t i = 0; i < count; i++) {
		qc_read *q = &r.items[i];
		pj_given *g = &lib->given[lib->given_count++];
		g->path = q->path;
		g->project = (uint32_t)lib->project_count;
		project *p = &lib->projects[lib->project_count];
		memset(p, 0, sizeof(*p));
		p->lib = lib;
		p->diag.mem = &lib->mem;
		p->qcpath = q->path;
		p->ok = true;
		p->qc = q->qc;
		pj_add_warnings(&p->diag, q->path, &q->w);
		smdmx_warnings_free(&q->w);
		if (!p->qc) {
			pj_add_error(&p->diag, q->path, &q->err);
			g->said = p->diag;
			g->project = SMDMX_NONE;
			memset(&p->diag, 0, sizeof(p->diag));
			p->diag.mem = &lib->mem;
			ok = false;
			continue;
		}
		/* -k: the lines that could not be read cost only themselves (the QC keeps them) */
		for (size_t k = 0; k < p->qc->error_count; k++) {
			const smdmx_qc_error *e = &p->qc->errors[k];
			pj_error(&p->diag, e->error.code, e->error.file[0] ? e->error.file : q->path, e->error.line, e->error.column, "%s%s",
			         e->error.message,
			         e->include ? ": the $include is kept as written, and nothing it holds is read"
			                    : ": the line is kept as written, and nothing it says is converted");
			p->ok = false;
			p->qc_errors += !e->include;
		}
		for (size_t k = 0; k < p->qc->missing_include_count; k++) qp_add_missing(lib, p->qc->missing_includes[k]);
		lib->project_count++;
	}
	pj_free(&lib->mem, r.items);
	return ok;
}

/* The library's folder: the folders given, the QCs', widened to hold every file read; and
 * the output folder. */
static void library_folders(library *lib, const char *const *dirs, size_t dir_count, const char *first_qc)
{
	for (size_t i = 0; i < dir_count; i++) {
		char *a = pj_path_absolute(&lib->mem, dirs[i]);
		size_t al = a ? strlen(a) : 0;
		char *d = a ? pj_asprintf(&lib->mem, "%s%s", a, al && a[al - 1] == '/' ? "" : "/") : NULL;
		pj_free(&lib->mem, a);
		if (!lib->root) lib->root = pj_strdup(&lib->mem, d);
		else common_root(lib->root, d);
		pj_free(&lib->mem, d);
	}
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		const smdmx_qc *qc = lib->projects[pi].qc;
		if (!lib->root) lib->root = abs_dir(&lib->mem, lib->projects[pi].qcpath);
		for (size_t i = 0; i < qc->file_count; i++) {
			char *a = pj_path_absolute(&lib->mem, qc->files[i].path);
			common_root(lib->root, a);
			pj_free(&lib->mem, a);
		}
		for (size_t i = 0; i < qc->ref_count; i++) {
			if (!qc->refs[i].found) continue;
			char *a = pj_path_absolute(&lib->mem, qc->refs[i].path);
			common_root(lib->root, a);
			pj_free(&lib->mem, a);
		}
	}
	if (!lib->root) lib->root = abs_dir(&lib->mem, first_qc);
	char *od = pj_path_absolute(&lib->mem, lib->o->outdir);
	lib->outdir = od ? pj_asprintf(&lib->mem, "%s%s", od, od[0] && od[strlen(od) - 1] == '/' ? "" : "/") : NULL;
	pj_free(&lib->mem, od);
}

/* The output folder may be neither inside the library's folder nor above it (false, said):
 * outputs would go over inputs. */
static bool outdir_apart(library *lib)
{
	if (!strncmp(lib->outdir, lib->root, strlen(lib->root)) || !strncmp(lib->root, lib->outdir, strlen(lib->outdir))) {
		/* OUTDIR inside the projects, or the projects inside OUTDIR: outputs over inputs */
		bool inside = !strncmp(lib->outdir, lib->root, strlen(lib->root));
		pj_error(&lib->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "'%s' is %s the project's folder '%s': write the project elsewhere", lib->o->outdir,
		       inside ? "inside" : "above", lib->root);
		return false;
	}
	return true;
}

/* The tasks run on -j workers, each reading with the cores left over (--threads). */
static void run_tasks(library *lib)
{
	smdmx_project_options *o = &lib->opts;
	unsigned workers = worker_count(lib, lib->task_count); /* one for a QC that names no file */
	unsigned cores = os_cpu_count();
	o->smd_read.threads = o->threads ? o->threads : (cores / workers ? cores / workers : 1);
	o->dmx_read.threads = o->smd_write.threads = o->dmx_write.threads = o->smd_read.threads;
	os_mem mem = pj_os_mem(&lib->mem);
	lib->lock = os_mutex_create_in(&mem); /* none: out of memory, which the budget knows */
	if (!lib->lock) return;
	qp_reserve_other_names(lib);
	os_thread *th[SMDMX_PROJECT_JOBS_MAX];
	unsigned started = 0;
	for (unsigned i = 1; i < workers; i++)
		if ((th[started] = os_thread_start_in(&mem, qp_worker, lib))) started++;
	qp_worker(lib);
	for (unsigned i = 0; i < started; i++) os_thread_join(th[i]);
}

/* The QC written for p read back: every file it names is there, but those its source named
 * and were not there (kept as named, said already). One that is not is said as an error: the
 * written project would not read back (doc/qc.md, "Read back"). */
static bool reads_back(project *p)
{
	char *path = qp_out_path(p->lib, p->qcpath);
	if (!path) return false;
	smdmx_qc_read_options qo;
	memset(&qo, 0, sizeof(qo));
	qo.keep_going = true;
	qo.allocator = p->lib->mem.hooks;
	smdmx_error err;
	smdmx_qc *w = smdmx_qc_read_file(path, &qo, &err, NULL);
	bool ok = true;
	for (size_t i = 0; w && i < w->ref_count && ok; i++) {
		const smdmx_qc_ref *r = &w->refs[i];
		if (r->found || r->kind == SMDMX_QC_REF_OTHER) continue;
		bool kept = false;
		for (size_t k = 0; k < p->qc->ref_count && !kept; k++) kept = !p->qc->refs[k].found && !strcmp(p->qc->refs[k].name, r->name);
		if (kept) continue;
		const char *where = r->pos.file < w->file_count ? w->files[r->pos.file].path : path;
		pj_error(&p->diag, SMDMX_ERROR_IO, where, r->pos.line, r->pos.column,
		       "the QC written names '%s' (by %s), which this run did not write: the project would not read back; please "
		       "report this",
		       r->name, r->command);
		ok = false;
	}
	smdmx_qc_free(w);
	pj_free(&p->lib->mem, path);
	return ok;
}

/* A written project read back on a worker (its messages its own). */
static void read_back_one(void *arg, size_t i)
{
	project *p = &((library *)arg)->projects[i];
	if (!qp_ran_out(p->lib) && !p->failed && !p->unwritable && !reads_back(p)) p->failed = true;
}

/* Every project's QC files written, with the names its files were given; false when one
 * could not be (with -k every project is written: what converted under its new names, the
 * rest as the QC names it). Then each is read back: the library as written, every project's
 * files there (a later project only adds files, never replaces one an earlier wrote). */
static bool write_projects(library *lib)
{
	bool ok = true;
	rendered *done = NULL;
	size_t done_count = 0, written = 0;
	for (; written < lib->project_count && !qp_ran_out(lib); written++) {
		project *p = &lib->projects[written];
		bool edited = qp_edit_names(p) && qp_edit_lines(p);
		/* a QC whose edits failed names what it should not: written only with -k */
		p->failed = !edited;
		if ((edited || lib->o->keep_going) && !p->unwritable) p->failed = !qp_write_qc_files(p, &done, &done_count) || p->failed;
	}
	for (size_t i = 0; i < done_count; i++) {
		pj_free(&lib->mem, done[i].path);
		pj_free(&lib->mem, done[i].text.text);
	}
	pj_free(&lib->mem, done);
	team_run(lib, written, read_back_one, lib);
	for (size_t i = 0; i < written; i++) ok = ok && !lib->projects[i].failed;
	return ok;
}

/* Two QCs that make one .mdl ($modelname alike, ignoring case and the slashes' way, as
 * Windows finds files): studiomdl would write one over the other. Said at the later one. */
static void same_model_names(library *lib)
{
	str_map seen = { .mem = &lib->mem };
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		project *p = &lib->projects[pi];
		const smdmx_qc *qc = p->qc;
		if (!qc || !qc->model_name) continue;
		char *key = pj_strdup(&lib->mem, qc->model_name);
		if (!key) return;
		for (char *c = key; *c; c++) *c = *c == '\\' ? '/' : (*c >= 'A' && *c <= 'Z') ? (char)(*c + 32) : *c;
		uint32_t k = qp_str_get(&seen, key);
		if (k != SMDMX_NONE) {
			const smdmx_qc_pos *at = &qc->model_name_pos;
			pj_add(&p->diag, qc->files[at->file].path, at->line, at->column, "warning",
			         "'%s' is the $modelname of %s too: studiomdl would write one model over the other; give one of "
			         "them another name",
			         qc->model_name, lib->projects[k].qcpath);
		} else {
			qp_str_set(&seen, key, (uint32_t)pi);
		}
		pj_free(&lib->mem, key);
	}
	qp_str_map_free(&seen);
}

/* ---- the run ---- */

/* The run's memory is given once, in its allocator: a step's own is refused. */
#define PJ_PROJECT_ALLOCATOR_TWICE \
	"an allocator given to one of the run's steps (a reader's, a writer's or the model's options): give it in " \
	"the run's allocator, which every step takes"

static bool project_allocator_twice(const smdmx_project_options *o)
{
	return pj_allocator_given(&o->smd_read.allocator) || pj_allocator_given(&o->dmx_read.allocator) ||
	       pj_allocator_given(&o->smd_write.allocator) || pj_allocator_given(&o->dmx_write.allocator) ||
	       pj_allocator_given(&o->model.allocator);
}



/* The run as the caller sees it, and the memory behind it. */
typedef struct pj_run {
	smdmx_project_run run;          /* first: the caller's pointer is this struct's */
	sm_alloc home;                  /* the caller's allocator, where this struct is */
	library lib;
	smdmx_project_qc *qcs;
	smdmx_project_file *files;
	uint32_t *row_of;               /* each project's row in qcs */
	bool reserved;                  /* reserve_run took all the room it needs */
	char **inputs;
	size_t input_count;
} pj_run;

static void add_input(pj_run *r, str_map *seen, const char *path)
{
	if (qp_str_get(seen, path) != SMDMX_NONE) return;
	qp_str_set(seen, path, 0);
	qp_list_push(&r->lib.mem, &r->inputs, &r->input_count, pj_strdup(&r->lib.mem, path));
}

/* The room of the run's rows (a row per QC given, its files, its output's path; a row per
 * task), taken once the tasks are planned and before any file is put in place, so that a run
 * whose memory runs out after can still say what it wrote. False: out of memory. */
static bool reserve_run(pj_run *r)
{
	library *lib = &r->lib;
	if (r->qcs) return r->reserved; /* (taken once: a second try would not have more room) */
	r->qcs = pj_calloc(&lib->mem, lib->given_count + 1, sizeof(*r->qcs));
	r->files = pj_calloc(&lib->mem, lib->task_count + 1, sizeof(*r->files));
	r->row_of = pj_calloc(&lib->mem, lib->project_count + 1, sizeof(uint32_t));
	bool ok = r->qcs && r->files && r->row_of;
	for (size_t i = 0; ok && i < lib->given_count; i++) {
		const pj_given *g = &lib->given[i];
		if (g->project == SMDMX_NONE) continue;
		const project *p = &lib->projects[g->project];
		smdmx_project_qc *q = &r->qcs[i];
		q->files = pj_calloc(&lib->mem, p->qc->ref_count + 1, sizeof(size_t));
		q->output = lib->outdir ? qp_out_path(lib, p->qcpath) : NULL;
		ok = q->files && (q->output || !lib->outdir);
	}
	r->reserved = ok;
	return ok;
}

/* The run's results in the caller's terms: a row per QC given and per task, the lists, the
 * counts (in the room reserve_run took). When memory ran out, what needs more room is left
 * out: the list of files read. */
static bool fill_run(pj_run *r, bool ok)
{
	library *lib = &r->lib;
	smdmx_project_run *run = &r->run;
	if (!reserve_run(r)) return false;
	uint32_t *row_of = r->row_of;
	for (size_t i = 0; i < lib->given_count; i++) {
		const pj_given *g = &lib->given[i];
		smdmx_project_qc *q = &r->qcs[i];
		q->path = g->path;
		if (g->project == SMDMX_NONE) {
			q->messages = g->said.items;
			q->message_count = g->said.count;
			run->messages_lost += g->said.lost;
			run->qcs_not_read++;
			continue;
		}
		const project *p = &lib->projects[g->project];
		row_of[g->project] = (uint32_t)i;
		q->qc = p->qc;
		q->ok = p->ok && !p->failed;
		q->lines_not_read = p->qc_errors;
		q->messages = p->diag.items;
		q->message_count = p->diag.count;
		run->messages_lost += p->diag.lost;
		run->lines_not_read += p->qc_errors;
		size_t *files = (size_t *)q->files;
		q->file_count = 0;
		for (size_t k = 0; k < p->qc->ref_count; k++) {
			uint32_t t = p->task_of ? p->task_of[k] : SMDMX_NONE;
			bool named = t == SMDMX_NONE;
			for (size_t m = 0; m < q->file_count && !named; m++) named = files[m] == t;
			if (!named) files[q->file_count++] = t;
		}
	}
	for (size_t i = 0; i < lib->task_count; i++) {
		const task *t = lib->tasks[i];
		smdmx_project_file *f = &r->files[i];
		f->action = (smdmx_project_action)t->kind;
		f->source = t->src;
		f->output = t->dst;
		f->qc = row_of[t->proj - lib->projects];
		f->ok = t->status == PJ_OK;
		f->up_to_date = t->up_to_date;
		f->copied = t->copied;
		f->messages = t->diag.items;
		f->message_count = t->diag.count;
		run->messages_lost += t->diag.lost;
		f->written = (const char *const *)t->written;
		f->written_count = t->written_count;
		run->failed += t->status == PJ_FAILED;
		run->up_to_date += t->up_to_date;
		run->converted += t->status == PJ_OK && !t->up_to_date && t->kind != TASK_COPY;
		run->copied += t->status == PJ_OK && !t->up_to_date && t->kind == TASK_COPY;
	}
	/* every file read, each once: the QC files, the tasks' sources, the VTAs consumed (a path
	 * that could not be kept: qp_ran_out, and the run says it ran out) */
	str_map seen = { .mem = &r->lib.mem };
	for (size_t pi = 0; pi < lib->project_count && !qp_ran_out(lib); pi++)
		for (size_t i = 0; i < lib->projects[pi].qc->file_count; i++) add_input(r, &seen, lib->projects[pi].qc->files[i].path);
	for (size_t i = 0; i < lib->task_count && !qp_ran_out(lib); i++) add_input(r, &seen, lib->tasks[i]->src);
	for (size_t i = 0; i < lib->consumed_count && !qp_ran_out(lib); i++) add_input(r, &seen, lib->consumed[i]);
	qp_str_map_free(&seen);
	run->ok = ok && lib->project_count && run->failed == 0 && run->status == SMDMX_ERROR_NONE;
	run->messages = lib->said.items;
	run->message_count = lib->said.count;
	run->messages_lost += lib->said.lost;
	run->qcs = r->qcs;
	run->qc_count = lib->given_count;
	run->files = r->files;
	run->file_count = lib->task_count;
	run->missing = (const char *const *)lib->missing;
	run->missing_count = lib->missing_count;
	run->qc_written = (const char *const *)lib->qc_written;
	run->qc_written_count = lib->qc_written_count;
	run->qc_kept = (const char *const *)lib->qc_kept;
	run->qc_kept_count = lib->qc_kept_count;
	run->inputs = (const char *const *)r->inputs;
	run->input_count = r->input_count;
	run->root = lib->root;
	run->outdir = lib->outdir;
	return true;
}

/* Whether the run put a file in place (a task's output, a QC file). */
static bool placed(const library *lib)
{
	for (size_t i = 0; i < lib->task_count; i++)
		if (lib->tasks[i]->written_count && !lib->tasks[i]->up_to_date) return true;
	return lib->qc_written_count > 0;
}

smdmx_project_run *smdmx_projects_convert(const char *const *qcs, size_t qc_count, const char *const *dirs, size_t dir_count,
                                          const smdmx_project_options *o, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!o || !o->outdir || !qc_count) {
		sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "%s", !o || !o->outdir ? "no output folder" : "no QC");
		return NULL;
	}
	if (!qcs || (!dirs && dir_count)) return sm_fail_null(error, __func__, !qcs ? "qcs" : "dirs"), NULL;
	if (project_allocator_twice(o)) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "%s", PJ_PROJECT_ALLOCATOR_TWICE), NULL;
	/* the conversions' options, as smdmx_convert checks them (their allocators checked above) */
	smdmx_convert_options conv;
	memset(&conv, 0, sizeof(conv));
	conv.smd_read.frame_rate = o->smd_read.frame_rate;
	conv.dmx_write = o->dmx_write;
	conv.model_options = o->model;
	conv.dmx_write.allocator = conv.model_options.allocator = (smdmx_allocator){ 0 };
	if (!smdmx_convert_options_check(&conv, error)) return NULL;
	if (o->copy_failed && !o->keep_going)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "%s",
		               "copy_failed without keep_going: the first failure stops the run, nothing is copied in its place"),
		       NULL;
	/* the run itself in the caller's memory, counted in its budget; all else in the budget */
	sm_alloc home;
	sm_alloc_init(&home, &o->allocator);
	pj_run *r = sm_malloc(&home, sizeof(*r));
	if (!r) return sm_fail_oom(error), NULL;
	memset(r, 0, sizeof(*r));
	r->home = home;
	library *lib = &r->lib;
	smdmx_allocator hooks = sm_budget_start(&lib->budget, &o->allocator);
	if (!sm_budget_count(&lib->budget, sizeof(*r))) {
		sm_free(&home, r, sizeof(*r));
		return sm_fail_oom(error), NULL;
	}
	sm_alloc_init(&lib->mem, &hooks);
	lib->said.mem = &lib->mem;
	lib->keys.mem = lib->outs.mem = lib->seen.mem = lib->rec.mem = &lib->mem;
	lib->opts = *o;
	/* every step's memory the run's */
	lib->opts.smd_read.allocator = lib->opts.dmx_read.allocator = lib->opts.smd_write.allocator = hooks;
	lib->opts.model.allocator = lib->opts.dmx_write.allocator = hooks;
	lib->o = &lib->opts;
	lib->to = o->to_smd ? "smd" : "dmx";
	lib->rig_dmx = o->rig_in_dmx;
	lib->projects = pj_calloc(&lib->mem, qc_count, sizeof(project));
	lib->given = pj_calloc(&lib->mem, qc_count, sizeof(pj_given));
	bool ok = lib->projects && lib->given && read_projects(lib, qcs, qc_count);
	/* each step goes on only while memory lasts (qp_ran_out): what it made is freed with the run */
	bool go = lib->project_count > 0 && !qp_ran_out(lib); /* no QC could be read: their messages say why */
	if (go) library_folders(lib, dirs, dir_count, qcs[0]);
	go = go && !qp_ran_out(lib);
	if (go && !outdir_apart(lib)) {
		r->run.status = SMDMX_ERROR_USAGE;
		go = false;
	}
	if (go) qp_record_load(lib);
	if (!qp_ran_out(lib)) same_model_names(lib);
	for (size_t pi = 0; go && !qp_ran_out(lib) && pi < lib->project_count; pi++) {
		project *p = &lib->projects[pi];
		p->ok = qp_plan(p) && p->ok;
		ok = ok && p->ok;
		qp_count_missing(lib, p);
		qp_join(lib, p);
	}
	go = go && !qp_ran_out(lib);
	if (go && o->update) qp_plan_update(lib);
	/* the run's rows reserved before any file is put in place */
	go = go && reserve_run(r) && !qp_ran_out(lib);
	if (go && (ok || o->keep_going)) run_tasks(lib);
	go = go && !qp_ran_out(lib);
	if (go) qp_merge_same(lib);
	size_t failed = 0;
	for (size_t i = 0; i < lib->task_count; i++) failed += lib->tasks[i]->status == PJ_FAILED;
	if (go && (o->keep_going || (ok && failed == 0))) ok = write_projects(lib) && ok;
	if (go && !qp_ran_out(lib)) qp_record_save(lib);
	bool filled = fill_run(r, ok);
	if (filled && qp_ran_out(lib) && placed(lib)) {
		/* memory ran out once files were in place: they stay, and the run says which */
		r->run.status = SMDMX_ERROR_OUT_OF_MEMORY;
		r->run.out_of_memory = true;
		r->run.ok = false;
		sm_fail_oom(error);
		return &r->run;
	}
	if (!filled || qp_ran_out(lib)) {
		smdmx_project_run_free(&r->run);
		sm_fail_oom(error);
		return NULL;
	}
	return &r->run;
}

void smdmx_project_run_free(smdmx_project_run *run)
{
	if (!run) return;
	pj_run *r = (pj_run *)run;
	if (r->lib.given)
		for (size_t i = 0; i < r->lib.given_count; i++) pj_msgs_free(&r->lib.given[i].said);
	pj_free(&r->lib.mem, r->lib.given);
	pj_msgs_free(&r->lib.said);
	if (r->qcs)
		for (size_t i = 0; i < r->lib.given_count; i++) {
			pj_free(&r->lib.mem, (char *)r->qcs[i].output);
			pj_free(&r->lib.mem, (size_t *)r->qcs[i].files);
		}
	pj_free(&r->lib.mem, r->qcs);
	pj_free(&r->lib.mem, r->files);
	pj_free(&r->lib.mem, r->row_of);
	for (size_t i = 0; i < r->input_count; i++) pj_free(&r->lib.mem, r->inputs[i]);
	pj_free(&r->lib.mem, r->inputs);
	qp_library_free(&r->lib);
	pj_free(&r->lib.mem, r->lib.projects);
	sm_alloc home = r->home;
	sm_free(&home, r, sizeof(*r));
}
