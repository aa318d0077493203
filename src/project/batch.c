/* Many files converted (smdmx/batch.h): the inputs (files, and with recursive folders' trees,
 * walk.c) become jobs with planned outputs; the options given are checked against them; workers run
 * them (smdmx_convert), biggest first with keep_going, else in input order with the outputs
 * put in place in that order, so that the first failure stops the batch the same way at any
 * number of workers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"
#include "smdmx/batch.h"
#include "support/internal.h"

typedef struct bjob {
	char **inputs;        /* the model first; more with clips */
	size_t input_count;
	char *vta;
	char *out;
	uint64_t size;
	pj_msgs msgs;
	char **written;
	size_t written_count;
	char **deps;
	size_t dep_count;
	unsigned used;
	bool ran;             /* ran, or failed in planning, or up to date */
	bool failed;
	bool up_to_date;
	bool replace;         /* update: its output is older: replaced as with force */
	bool cancelled;
	pj_outputs pending;   /* several jobs: its outputs, written, not yet in place */
	uint64_t read;        /* bytes of its input read, as it runs */
	unsigned read_told;   /* hundredths of size read, as on_change was last told */
	sm_alloc mem;         /* what it allocates as it runs, on its worker (its messages, the
	                         files it read): the batch's hooks, its own counts (threads) */
} bjob;

/* Without keep_going, jobs run in input order at most ORDER_WINDOW ahead of the first not yet
 * put in place. The outputs of several jobs are put in place a few at a time: COMMIT_JOBS
 * jobs, COMMIT_FILES files (each open until then) or COMMIT_BYTES of input, or before a job
 * that large runs. A file is flushed to the disk before its rename, and the flush of files
 * written a while ago finds them there (their writing was started as they were closed, and
 * one commit of the file system's journal covers them all), where a flush after each file
 * waits for the disk every time. */
enum { ORDER_WINDOW = 32, COMMIT_JOBS = 16, COMMIT_FILES = 32 };
#define COMMIT_BYTES ((uint64_t)4 << 20)

typedef struct batch {
	smdmx_batch pub;
	smdmx_batch_job *pubjobs;
	const smdmx_batch_options *o;
	smdmx_convert_options conv; /* the jobs' (threads set) */
	pj_msgs said;
	bjob *jobs;
	size_t count, cap;
	size_t *order;        /* jobs by decreasing size (keep_going), else in input order */
	size_t next;          /* next in order to start */
	bool stop;            /* keep_going: nothing stops; else a failure in planning */
	bool ordered;         /* no keep_going, several jobs */
	size_t limit;         /* ordered: the first input that failed (none after it converts) */
	size_t committed;     /* ordered: jobs before this are in place (or failed) */
	os_mutex *lock;
	os_cond *moved;       /* ordered: committed or limit moved */
	bool deferred;        /* several jobs: their outputs put in place a few at a time */
	bool flushing;        /* a worker flushes a group of them (without the lock) */
	size_t *group;        /* the group being put in place */
	size_t *wait, waiting; /* not ordered: the jobs that ran since the last commit */
	bool oom;             /* memory ran out on a worker: the batch ends out of memory */
	sm_budget budget;     /* convert.allocator's, for every job (conv.allocator) */
	sm_budget own;        /* the batch's own memory, within conv.allocator: it knows when that
	                         ran out, on any thread (a job's conversion running out is the
	                         job's failure, said in its messages) */
	smdmx_allocator own_hooks;
	sm_alloc mem;         /* the batch's own memory (its plan, jobs, messages), on own_hooks */
	sm_alloc home;        /* where the batch itself is: the caller's allocator */
} batch;

static const char *const given_names[SMDMX_BATCH_GIVEN_COUNT] = {
	"--vta", "--clip", "--clips", "--fps", "--keys", "--key-tolerance", "--target",
	"--encoding", "--encoding-version", "--model-version", "--goldsrc", "--lf", "--scale", "--up-axis",
	"--threads",
};

/* ---- a job's files written ------------------------------------------------------------------- */

/* A job's written list is one a commit of its outputs grows (smdmx_outputs_commit), so it is
 * made as those are: through the jobs' allocator (conv.allocator, zero: malloc's), the list
 * of its count, each path of its length and one byte. */
static void written_push(batch *b, bjob *j, const char *path)
{
	sm_alloc a;
	sm_alloc_init(&a, &b->conv.allocator);
	char *s = sm_str_copy(&a, path);
	char **list = s ? sm_malloc(&a, (j->written_count + 1) * sizeof(char *)) : NULL;
	if (!list) {
		sm_str_free(&a, s);
		pj_oom();
		return;
	}
	if (j->written_count) memcpy(list, j->written, j->written_count * sizeof(char *));
	sm_free(&a, j->written, j->written_count * sizeof(char *));
	list[j->written_count++] = s;
	j->written = list;
}

static void written_free(batch *b, bjob *j)
{
	smdmx_outputs_written_free(j->written, j->written_count, &b->conv.allocator);
	j->written = NULL;
	j->written_count = 0;
}

/* ---- planning ------------------------------------------------------------------------------ */

static bjob *job_push(batch *b)
{
	if (b->count == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		bjob *t = pj_realloc(&b->mem, b->jobs, cap * sizeof(*t));
		if (!t) return NULL;
		b->jobs = t;
		b->cap = cap;
	}
	bjob *j = &b->jobs[b->count++];
	memset(j, 0, sizeof(*j));
	j->msgs.mem = &b->mem;
	return j;
}

/* A job of one input (or none, on failure). */
static bjob *job_of(batch *b, const char *input)
{
	bjob *j = job_push(b);
	if (!j) return NULL;
	j->inputs = pj_malloc(&b->mem, sizeof(char *));
	if (j->inputs && (j->inputs[0] = pj_strdup(&b->mem, input))) j->input_count = 1;
	return j->input_count ? j : NULL;
}

/* A file j read besides its inputs, each once, in m (planning: the batch's; running: the
 * job's own). */
static void job_dep(sm_alloc *m, bjob *j, const char *path)
{
	for (size_t k = 0; k < j->dep_count; k++)
		if (!strcmp(j->deps[k], path)) return;
	for (size_t k = 0; k < j->input_count; k++)
		if (!strcmp(j->inputs[k], path)) return;
	char *s = pj_strdup(m, path);
	char **list = s ? pj_realloc(m, j->deps, (j->dep_count + 1) * sizeof(char *)) : NULL;
	if (!list) {
		pj_free(m, s);
		return; /* (said: the batch's own budget ran out) */
	}
	j->deps = list;
	j->deps[j->dep_count++] = s;
}

static uint64_t file_size(const char *path)
{
	os_stat st;
	return strcmp(path, "-") && os_stat_path(path, &st) ? st.size : 0;
}

static bool stdin_is_dmx(const smdmx_batch_options *o)
{
	const char *d = o->convert.input_data;
	return d && o->convert.input_size >= 4 && !memcmp(d, "<!--", 4);
}

/* Which way a job converts: by its input's and its output's side ("-" told by the program,
 * the bytes and to). */
static smdmx_convert_way job_way(const batch *b, const bjob *j)
{
	const smdmx_batch_options *o = b->o;
	if (o->qc && o->program == SMDMX_BATCH_SMD2DMX) return SMDMX_CONVERT_QC_TO_DMX;
	const char *in = j->inputs[0];
	bool in_dmx = strcmp(in, "-") ? !strcasecmp(os_path_extension(in), "dmx")
	                              : o->program == SMDMX_BATCH_DMX2SMD || (o->program == SMDMX_BATCH_ANY && stdin_is_dmx(o));
	bool out_dmx = strcmp(j->out, "-") ? !strcasecmp(os_path_extension(j->out), "dmx")
	             : o->to                               ? !strcasecmp(o->to, "dmx")
	             : o->program == SMDMX_BATCH_SMD2DMX   ? true
	             : o->program == SMDMX_BATCH_DMX2SMD   ? false
	                                                   : in_dmx;
	return in_dmx ? (out_dmx ? SMDMX_CONVERT_DMX_TO_DMX : SMDMX_CONVERT_DMX_TO_SMD)
	              : (out_dmx ? SMDMX_CONVERT_SMD_TO_DMX : SMDMX_CONVERT_SMD_TO_SMD);
}

/* The QC's $model as the one job (SMD2DMX with qc): its output the model's file as DMX. */
static bool plan_qc(batch *b)
{
	const smdmx_batch_options *o = b->o;
	bjob *j = job_of(b, o->qc);
	if (!j) return false;
	j->size = file_size(o->qc);
	smdmx_error err;
	smdmx_qc *qc = smdmx_qc_read_file(o->qc, NULL, &err, NULL);
	uint32_t m = qc ? smdmx_qc_find_model(qc, o->convert.model) : SMDMX_NONE;
	/* what the conversion will read, for update: the QC's includes and the files it names */
	for (size_t i = 1; qc && i < qc->file_count; i++) job_dep(&b->mem, j, qc->files[i].path);
	for (size_t i = 0; qc && i < qc->ref_count; i++)
		if (qc->refs[i].found && (qc->refs[i].model == m || m == SMDMX_NONE)) job_dep(&b->mem, j, qc->refs[i].path);
	const char *ref = m != SMDMX_NONE ? qc->refs[qc->models[m].ref].path : o->qc;
	for (size_t i = 0; qc && m == SMDMX_NONE && !o->convert.model && i < qc->ref_count; i++)
		if (qc->refs[i].kind == SMDMX_QC_REF_ANIMATION) {
			ref = qc->refs[i].path;
			break;
		}
	char *out = pj_path_with_extension(&b->mem, ref, "dmx");
	if (o->output) {
		j->out = pj_strdup(&b->mem, o->output);
	} else if (o->outdir && out) {
		const char *slash = os_last_separator(out);
		j->out = pj_path_join(&b->mem, o->outdir, slash ? slash + 1 : out);
	} else {
		j->out = out;
		out = NULL;
	}
	pj_free(&b->mem, out);
	smdmx_qc_free(qc);
	return j->out != NULL;
}

/* The outputs' extension, where the program or to says it. */
static const char *out_extension(const smdmx_batch_options *o)
{
	if (o->to) return o->to;
	if (o->program == SMDMX_BATCH_SMD2DMX) return "dmx";
	if (o->program == SMDMX_BATCH_DMX2SMD) return "smd";
	return NULL;
}

/* vta_of[k]: the VTA beside SMD k among the inputs (the same name), which gives it its
 * shapes; taken[i]: VTA i went to one. */
static void pair_vtas(const batch *b, const pj_found_list *f, bool *taken, size_t *vta_of)
{
	const smdmx_batch_options *o = b->o;
	for (size_t i = 0; i < f->count; i++) vta_of[i] = SIZE_MAX;
	if (o->program == SMDMX_BATCH_DMX2SMD || o->convert.vta || (o->to && !strcasecmp(o->to, "vta"))) return;
	/* smdmx convert: a VTA goes into a DMX only */
	if (o->program == SMDMX_BATCH_ANY && !(o->to ? !strcasecmp(o->to, "dmx") : o->output && !strcasecmp(os_path_extension(o->output), "dmx")))
		return;
	for (size_t i = 0; i < f->count; i++) {
		const char *v = f->items[i].path;
		if (strcasecmp(os_path_extension(v), "vta")) continue;
		size_t stem = strlen(v) - strlen(os_path_extension(v));
		for (size_t k = 0; k < f->count; k++) {
			const char *s = f->items[k].path;
			if (k == i || !strcasecmp(os_path_extension(s), "vta") || strlen(s) - strlen(os_path_extension(s)) != stem ||
			    strncmp(s, v, stem) || vta_of[k] != SIZE_MAX)
				continue;
			vta_of[k] = i;
			taken[i] = true;
			break;
		}
	}
}

/* Jobs sorted by a key (their outputs, their sizes), ties in input order. */
typedef struct keyed {
	const char *out;
	uint64_t size;
	size_t index;
} keyed;

static int by_output(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c = os_path_compare(x->out, y->out);
	return c ? c : x->index < y->index ? -1 : 1;
}

static int by_size(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->size != y->size) return x->size > y->size ? -1 : 1;
	return x->index < y->index ? -1 : 1;
}

/* The jobs' indices in the order cmp sorts them (NULL when memory ran out). */
static size_t *sorted(batch *b, int (*cmp)(const void *, const void *))
{
	keyed *k = pj_malloc(&b->mem, (b->count ? b->count : 1) * sizeof(keyed));
	size_t *order = pj_malloc(&b->mem, (b->count ? b->count : 1) * sizeof(size_t));
	if (k && order) {
		for (size_t i = 0; i < b->count; i++) k[i] = (keyed){ b->jobs[i].out, b->jobs[i].size, i };
		qsort(k, b->count, sizeof(keyed), cmp);
		for (size_t i = 0; i < b->count; i++) order[i] = k[i].index;
	} else {
		pj_free(&b->mem, order);
		order = NULL;
	}
	pj_free(&b->mem, k);
	return order;
}

/* Two inputs must not write one output (x.smd and x.SMD, a/x.smd and b/x.smd with outdir and
 * no recursive, A.smd and a.smd where the file system ignores case): those jobs fail without
 * running. */
static void fail_clashes(batch *b)
{
	size_t *by_out = sorted(b, by_output);
	if (!by_out) return;
	for (size_t i = 0; i < b->count;) {
		size_t k = i + 1;
		while (k < b->count && !os_path_compare(b->jobs[by_out[k]].out, b->jobs[by_out[i]].out)) k++;
		if (k - i > 1 && strcmp(b->jobs[by_out[i]].out, "-"))
			for (size_t m = i; m < k; m++) {
				bjob *j = &b->jobs[by_out[m]];
				pj_error(&j->msgs, SMDMX_ERROR_USAGE, j->inputs[0], 0, 0, "'%s' would also be written from '%s'", j->out,
				       b->jobs[by_out[m == i ? i + 1 : i]].inputs[0]);
				j->ran = j->failed = true;
			}
		i = k;
	}
	pj_free(&b->mem, by_out);
}

/* The jobs for the files found; false (said) when the inputs cannot work. */
static bool plan_jobs(batch *b, const pj_found_list *f)
{
	const smdmx_batch_options *o = b->o;
	if (!f->count) {
		pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "no input files");
		return false;
	}
	bool has_stdin = false;
	for (size_t i = 0; i < f->count; i++) has_stdin |= !strcmp(f->items[i].path, "-");
	if (has_stdin && f->count > 1) {
		pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "'-' (standard input) must be the only input");
		return false;
	}
	if (o->clips) {
		if (!o->output) {
			pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "--clips puts every input into one DMX: give it with -o");
			return false;
		}
		bjob *j = job_push(b);
		if (!j || !(j->inputs = pj_calloc(&b->mem, f->count, sizeof(char *)))) return false;
		for (size_t i = 0; i < f->count; i++) {
			if (!(j->inputs[i] = pj_strdup(&b->mem, f->items[i].path))) return false;
			j->input_count++;
			j->size += file_size(f->items[i].path);
		}
		j->out = pj_strdup(&b->mem, o->output);
		if (o->convert.vta) j->vta = pj_strdup(&b->mem, o->convert.vta);
		return true;
	}
	bool *taken = pj_calloc(&b->mem, f->count, sizeof(bool));
	size_t *vta_of = pj_calloc(&b->mem, f->count, sizeof(size_t));
	const char *ext = out_extension(o);
	bool ok = taken && vta_of;
	if (ok) pair_vtas(b, f, taken, vta_of);
	for (size_t i = 0; ok && i < f->count; i++) {
		if (taken[i]) continue;
		const pj_found *fi = &f->items[i];
		bjob *j = job_of(b, fi->path);
		if (!j) {
			ok = false;
			break;
		}
		j->size = file_size(fi->path);
		if (vta_of[i] != SIZE_MAX) {
			j->vta = pj_strdup(&b->mem, f->items[vta_of[i]].path);
			j->size += file_size(f->items[vta_of[i]].path);
		} else if (o->convert.vta) {
			j->vta = pj_strdup(&b->mem, o->convert.vta);
		}
		if (o->output) {
			j->out = pj_strdup(&b->mem, o->output);
		} else if (!ext) {
			pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "give the output with -o, or its kind with --to smd|sma|phys|vta|dmx");
			ok = false;
		} else if (!strcmp(fi->path, "-")) {
			/* standard input with outdir: DIR/NAME.EXT (stdin_name), else standard output */
			char *base = pj_asprintf(&b->mem, "%s.%s", o->stdin_name ? o->stdin_name : "stdin", ext);
			j->out = o->outdir ? pj_path_join(&b->mem, o->outdir, base) : pj_strdup(&b->mem, "-");
			pj_free(&b->mem, base);
		} else if (o->outdir) {
			char *rel = pj_path_with_extension(&b->mem, fi->rel, ext);
			j->out = pj_path_join(&b->mem, o->outdir, rel);
			pj_free(&b->mem, rel);
		} else {
			j->out = pj_path_with_extension(&b->mem, fi->path, ext);
		}
		if (ok && !j->out) ok = false;
	}
	pj_free(&b->mem, taken);
	pj_free(&b->mem, vta_of);
	if (!ok) return false;
	if (o->output && b->count > 1) {
		pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "-o names one output, but there are %zu inputs (-d DIR writes each into DIR)", b->count);
		return false;
	}
	fail_clashes(b);
	/* A VTA converted to DMX on its own is no model: its shapes belong to a reference, and one
	 * that pairs with no SMD among the inputs fails, named (doc/decisions.md, decision 10). */
	for (size_t i = 0; i < b->count; i++) {
		bjob *j = &b->jobs[i];
		if (j->ran || j->input_count != 1 || strcasecmp(os_path_extension(j->inputs[0]), "vta") ||
		    job_way(b, j) != SMDMX_CONVERT_SMD_TO_DMX)
			continue;
		char *smd = pj_path_with_extension(&b->mem, j->inputs[0], "smd");
		pj_error(&j->msgs, SMDMX_ERROR_USAGE, j->inputs[0], 0, 0,
		       "a VTA holds the shapes of a reference, and no input is its SMD ('%s'): give that beside it, or the "
		       "reference with --vta",
		       smd ? smd : "");
		pj_free(&b->mem, smd);
		j->ran = j->failed = true;
	}
	return true;
}

/* Plans the jobs; false (said) when the inputs cannot work. */
static bool make_plan(batch *b)
{
	const smdmx_batch_options *o = b->o;
	if (o->qc && o->program == SMDMX_BATCH_SMD2DMX) return plan_qc(b);
	pj_found_list files = { .mem = &b->mem };
	bool ok = true;
	const char *name = o->program == SMDMX_BATCH_SMD2DMX ? "smd2dmx" : o->program == SMDMX_BATCH_DMX2SMD ? "dmx2smd" : "smdmx";
	for (size_t i = 0; i < o->input_count; i++) {
		const char *a = o->inputs[i];
		os_stat st;
		if (strcmp(a, "-") && os_stat_path(a, &st) && st.kind == OS_DIRECTORY) {
			if (!o->recursive) {
				pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "'%s' is a directory (-r converts the files below it)", a);
				ok = false;
				continue;
			}
			char *dir = pj_folder_of(&b->mem, a);
			if (!dir || !pj_walk(pj_walk_kind_of(o->program), dir, "", &files, 0, &b->said, NULL)) ok = false;
			pj_free(&b->mem, dir);
			continue;
		}
		if (strcmp(a, "-") && !pj_wanted(pj_walk_kind_of(o->program), os_path_extension(a))) {
			pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "'%s': not an input of %s (%s)", a, name,
			       o->program == SMDMX_BATCH_DMX2SMD   ? ".dmx"
			       : o->program == SMDMX_BATCH_SMD2DMX ? ".smd, .sma, .phys, .vta"
			                                           : ".smd, .sma, .phys, .vta, .dmx");
			ok = false;
			continue;
		}
		const char *slash = os_last_separator(a);
		pj_found_push(&files, pj_strdup(&b->mem, a), pj_strdup(&b->mem, slash ? slash + 1 : a));
	}
	ok = ok && !sm_budget_ran_out(&b->own) && plan_jobs(b, &files);
	pj_found_free(&files);
	return ok && !sm_budget_ran_out(&b->own);
}

/* ---- options against the jobs ---------------------------------------------------------------- */

/* The options a way takes. */
static unsigned applies(smdmx_convert_way w)
{
	const unsigned both = SMDMX_BATCH_GIVEN_SCALE | SMDMX_BATCH_GIVEN_UP_AXIS | SMDMX_BATCH_GIVEN_THREADS;
	const unsigned dmx_out = SMDMX_BATCH_GIVEN_TARGET | SMDMX_BATCH_GIVEN_ENCODING | SMDMX_BATCH_GIVEN_ENCODING_VERSION |
	                         SMDMX_BATCH_GIVEN_MODEL_VERSION | SMDMX_BATCH_GIVEN_KEYS | SMDMX_BATCH_GIVEN_KEY_TOLERANCE;
	const unsigned smd_out = SMDMX_BATCH_GIVEN_GOLDSRC | SMDMX_BATCH_GIVEN_LF;
	switch (w) {
	case SMDMX_CONVERT_SMD_TO_DMX: return both | dmx_out | SMDMX_BATCH_GIVEN_VTA | SMDMX_BATCH_GIVEN_CLIPS | SMDMX_BATCH_GIVEN_FPS;
	case SMDMX_CONVERT_DMX_TO_SMD: return both | smd_out | SMDMX_BATCH_GIVEN_VTA | SMDMX_BATCH_GIVEN_CLIP;
	case SMDMX_CONVERT_DMX_TO_DMX: return both | dmx_out;
	case SMDMX_CONVERT_SMD_TO_SMD: return both | smd_out | SMDMX_BATCH_GIVEN_VTA;
	default: return ~0u; /* a QC's $model: checked by the caller, who gave it */
	}
}

/* Why an option does not apply to a way. */
static const char *why_not(unsigned opt, smdmx_convert_way w)
{
	bool dmx_in = w == SMDMX_CONVERT_DMX_TO_SMD || w == SMDMX_CONVERT_DMX_TO_DMX;
	switch (opt) {
	case SMDMX_BATCH_GIVEN_VTA: return "a DMX holds its shapes itself";
	case SMDMX_BATCH_GIVEN_CLIP: return dmx_in ? "a DMX written as DMX keeps every clip" : "it picks a clip of an animation DMX";
	case SMDMX_BATCH_GIVEN_CLIPS: return "it gathers SMD animations into one DMX";
	case SMDMX_BATCH_GIVEN_FPS: return dmx_in ? "a DMX's clips carry their frame rate" : "an SMD written as SMD has no frame rate";
	case SMDMX_BATCH_GIVEN_KEYS:
	case SMDMX_BATCH_GIVEN_KEY_TOLERANCE: return "SMD output has every frame";
	case SMDMX_BATCH_GIVEN_GOLDSRC:
	case SMDMX_BATCH_GIVEN_LF: return "it shapes SMD output";
	default: return "SMD output has no encoding or model format";
	}
}

/* Each option given against the jobs: one that applies to none of them is a usage error
 * (nothing converted); one that applies to some is a warning on each of the others. */
static bool check_options(batch *b)
{
	const smdmx_batch_options *o = b->o;
	if (pj_allocator_twice(&o->convert)) {
		pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "%s", PJ_ALLOCATOR_TWICE);
		return false;
	}
	if (o->qc && o->program == SMDMX_BATCH_SMD2DMX) return true; /* checked with the QC */
	size_t to_smd = 0;
	for (size_t i = 0; i < b->count; i++) to_smd += job_way(b, &b->jobs[i]) == SMDMX_CONVERT_DMX_TO_SMD;
	if ((o->given & SMDMX_BATCH_GIVEN_VTA) && to_smd > 1) {
		pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "--vta names the VTA written for one DMX, but %zu DMX files are converted to SMD", to_smd);
		return false;
	}
	for (unsigned k = 0; k < SMDMX_BATCH_GIVEN_COUNT; k++) {
		unsigned opt = 1u << k;
		if (!(o->given & opt)) continue;
		size_t fit = 0;
		for (size_t i = 0; i < b->count; i++) fit += (applies(job_way(b, &b->jobs[i])) & opt) != 0;
		for (size_t i = 0; i < b->count && fit < b->count; i++) {
			bjob *j = &b->jobs[i];
			smdmx_convert_way w = job_way(b, j);
			if (applies(w) & opt) continue;
			if (!fit) {
				pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "'%s' does not apply to '%s' (%s)", given_names[k], j->inputs[0], why_not(opt, w));
				return false;
			}
			pj_add(&j->msgs, j->inputs[0], 0, 0, "warning", "'%s' does not apply here (%s): ignored for this file; nothing to do",
			       given_names[k], why_not(opt, w));
		}
	}
	return true;
}

/* ---- update: only what is out of date --------------------------------------------------------- */

static bool mtime_of(const char *path, os_stat *t)
{
	return strcmp(path, "-") && os_stat_path(path, t);
}

static bool newer(const os_stat *a, const os_stat *b)
{
	return a->mtime_sec != b->mtime_sec ? a->mtime_sec > b->mtime_sec : a->mtime_nsec > b->mtime_nsec;
}

/* As make does: a job whose output is there and no older than anything it reads (its inputs,
 * its VTA, the files a QC names) is up to date and does not run; one whose output is older
 * replaces it. */
static void plan_update(batch *b)
{
	for (size_t i = 0; i < b->count; i++) {
		bjob *j = &b->jobs[i];
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
		written_push(b, j, j->out); /* still its output, for a depfile */
		b->pub.up_to_date++;
	}
}

/* ---- running ---------------------------------------------------------------------------------- */

/* The public view of job i, as it is now. */
static void publish(batch *b, size_t i)
{
	const bjob *j = &b->jobs[i];
	b->pubjobs[i] = (smdmx_batch_job){
		.inputs = (const char *const *)j->inputs,
		.input_count = j->input_count,
		.vta = j->vta,
		.output = j->out,
		.size = j->size,
		.read = j->read,
		.state = j->cancelled    ? SMDMX_BATCH_CANCELLED
		       : !j->ran         ? SMDMX_BATCH_NOT_RUN
		       : j->up_to_date   ? SMDMX_BATCH_UP_TO_DATE
		       : j->failed       ? SMDMX_BATCH_FAILED
		                         : SMDMX_BATCH_CONVERTED,
		.messages = j->msgs.items,
		.message_count = j->msgs.count,
		.written = (const char *const *)j->written,
		.written_count = j->written_count,
		.deps = (const char *const *)j->deps,
		.dep_count = j->dep_count,
		.used = j->used,
	};
}

/* Bytes more of job j's input read (the readers' progress): on_change told at each hundredth
 * of its size; the progress the caller's reading options had, told too. */
typedef struct job_reading {
	batch *b;
	size_t index;
	smdmx_progress given;
} job_reading;

static void job_read(void *user, uint64_t bytes)
{
	job_reading *jr = user;
	batch *b = jr->b;
	if (jr->given.fn) jr->given.fn(jr->given.user, bytes);
	os_mutex_lock(b->lock);
	bjob *j = &b->jobs[jr->index];
	j->read += bytes;
	b->pubjobs[jr->index].read = j->read;
	uint64_t read = j->read < j->size ? j->read : j->size;
	unsigned hundredths = j->size ? (unsigned)(read * 100 / j->size) : 100;
	if (hundredths != j->read_told) {
		j->read_told = hundredths;
		if (b->o->on_change && !b->oom) b->o->on_change(b->o->user, &b->pub);
	}
	os_mutex_unlock(b->lock);
}

/* Runs job j (not under the lock). */
static void job_run(batch *b, bjob *j)
{
	smdmx_convert_options c = b->conv;
	job_reading smd_reading = { b, (size_t)(j - b->jobs), c.smd_read.progress };
	job_reading dmx_reading = { b, (size_t)(j - b->jobs), c.dmx_read.progress };
	c.smd_read.progress = (smdmx_progress){ job_read, &smd_reading };
	c.dmx_read.progress = (smdmx_progress){ job_read, &dmx_reading };
	c.way = job_way(b, j);
	c.inputs = (const char *const *)j->inputs;
	c.input_count = j->input_count;
	c.vta = j->vta;
	c.output = j->out;
	c.qc = c.way == SMDMX_CONVERT_DMX_TO_SMD ? b->o->convert.qc : NULL;
	c.alone = b->count == 1;
	c.force = b->o->convert.force || j->replace;
	c.defer = b->deferred;
	if (!strcmp(j->inputs[0], "-") && !c.smd_read.name) c.smd_read.name = b->o->stdin_name ? b->o->stdin_name : "stdin";
	if (c.way == SMDMX_CONVERT_SMD_TO_SMD && b->o->to && !strcasecmp(b->o->to, "vta")) c.smd_write.kind = SMDMX_SMD_WRITE_VTA;
	smdmx_convert_result *r = smdmx_convert(&c, NULL);
	if (!r || r->out_of_memory) { /* (out of memory, a message lost: the batch ends so) */
		j->failed = true;
		pj_oom();
		if (r && r->pending) smdmx_outputs_free(r->pending);
		smdmx_convert_result_free(r);
		return;
	}
	for (size_t i = 0; i < r->message_count; i++) {
		const smdmx_message *m = &r->messages[i];
		static const char *const kinds[] = { "error", "warning", "note" };
		if (m->kind == SMDMX_MESSAGE_ERROR) pj_error(&j->msgs, m->code, m->path, m->line, m->column, "%s", m->text);
		else pj_add(&j->msgs, m->path, m->line, m->column, kinds[m->kind], "%s", m->text);
	}
	for (size_t i = 0; i < r->dep_count; i++) job_dep(&j->mem, j, r->deps[i]);
	for (size_t i = 0; i < r->written_count; i++) written_push(b, j, r->written[i]);
	j->used |= r->used;
	if (r->pending) j->pending = (pj_outputs){ .set = r->pending, .force = c.force };
	j->failed = !r->ok;
	if (r->broken_pipe) { /* standard output's reader is gone: the caller ends quietly */
		os_mutex_lock(b->lock);
		b->pub.broken_pipe = b->stop = true;
		os_mutex_unlock(b->lock);
	}
	smdmx_convert_result_free(r);
}

/* The jobs whose outputs are put in place next (into b->group; their count): ordered, those
 * that ran from the first not in place on, up to the first failure; else those that ran since
 * the last commit. None when it is not due: it is at the end, when enough of them wait, when
 * nothing would follow them soon (the end of the inputs, a failure, a large job next). */
static size_t commit_group(batch *b, bool at_end)
{
	size_t n = 0, next = b->next < b->count ? b->order[b->next] : SIZE_MAX;
	uint64_t bytes = 0;
	bool ends = at_end || b->stop || next == SIZE_MAX;
	if (b->ordered) {
		size_t p = b->committed;
		for (; p < b->count && p <= b->limit && b->jobs[p].ran; p++) b->group[n++] = p;
		ends = ends || p == b->count || p > b->limit;
		next = p < b->count ? p : SIZE_MAX;
	} else {
		n = b->waiting;
		memcpy(b->group, b->wait, n * sizeof(*b->group));
	}
	size_t files = 0;
	for (size_t i = 0; i < n; i++) {
		bytes += b->jobs[b->group[i]].size;
		files += pj_outputs_count(&b->jobs[b->group[i]].pending);
	}
	bool due = ends || n >= COMMIT_JOBS || files >= COMMIT_FILES || bytes >= COMMIT_BYTES ||
	           (next != SIZE_MAX && b->jobs[next].size >= COMMIT_BYTES);
	if (!due || !n) return 0;
	if (!b->ordered) b->waiting = 0;
	return n;
}

/* The n jobs of b->group put in place (under the lock, which their flush does without: the
 * other workers go on meanwhile, and do not commit). Ordered, none after the first failure. */
static void commit_group_now(batch *b, size_t n)
{
	b->flushing = true;
	os_mutex_unlock(b->lock);
	for (size_t i = 0; i < n; i++) pj_outputs_flush(&b->jobs[b->group[i]].pending);
	os_mutex_lock(b->lock);
	b->flushing = false;
	for (size_t i = 0; i < n && (!b->ordered || b->group[i] <= b->limit); i++) {
		bjob *j = &b->jobs[b->group[i]];
		if (!j->failed && j->pending.set) {
			char why[1024];
			if (!pj_outputs_commit(&j->pending, &j->written, &j->written_count, why, sizeof(why))) {
				pj_error(&j->msgs, j->pending.code, j->out, 0, 0, "%s", why);
				j->failed = true;
			}
		}
		pj_outputs_abort(&j->pending); /* (nothing left of it after a commit) */
		if (!b->ordered) continue;
		if (j->failed && b->committed < b->limit) b->limit = b->committed;
		b->committed++;
	}
	if (b->moved) os_cond_broadcast(b->moved);
}

/* The jobs whose turn it is put in place, when it is due (under the lock). */
static void commit_ready(batch *b, bool at_end)
{
	if (b->flushing) return;
	/* (again while more is due: what the other workers finished during the flush) */
	for (size_t n; (n = commit_group(b, at_end)) != 0;)
		commit_group_now(b, n);
}

/* The jobs settled in input order, told (under the lock). */
static void settle(batch *b)
{
	size_t s = b->pub.settled;
	while (s < b->count && b->jobs[s].ran && !b->jobs[s].pending.set && (!b->ordered || (s < b->committed && s <= b->limit)))
		publish(b, s++);
	b->pub.settled = s;
	if (b->o->on_change) b->o->on_change(b->o->user, &b->pub);
}

static void worker(void *arg)
{
	batch *b = arg;
	for (;;) {
		os_mutex_lock(b->lock);
		/* ordered: not past the first failure, nor too far ahead of what is in place */
		while (b->ordered && b->next < b->count && b->order[b->next] <= b->limit && b->order[b->next] >= b->committed + ORDER_WINDOW)
			os_cond_wait(b->moved, b->lock);
		if (b->stop || b->next == b->count || (b->ordered && b->order[b->next] > b->limit)) {
			os_mutex_unlock(b->lock);
			return;
		}
		size_t index = b->order[b->next++];
		bjob *j = &b->jobs[index];
		if (j->ran) { /* failed in planning, or up to date */
			os_mutex_unlock(b->lock);
			continue;
		}
		os_mutex_unlock(b->lock);
		job_run(b, j);
		os_mutex_lock(b->lock);
		j->ran = true;
		b->pub.finished++;
		if (b->ordered && j->failed && index < b->limit) b->limit = index;
		if (!b->ordered && j->pending.set) b->wait[b->waiting++] = index;
		if (b->deferred) commit_ready(b, false);
		/* the batch's own memory ran out (on any thread): it stops, and ends so */
		if (sm_budget_ran_out(&b->own)) b->oom = b->stop = true;
		if (!b->oom) settle(b);
		os_mutex_unlock(b->lock);
	}
}

/* The jobs run on the workers; false when the batch could not start them. */
static bool run_jobs(batch *b)
{
	const smdmx_batch_options *o = b->o;
	unsigned workers = o->jobs ? o->jobs : os_cpu_count();
	if (workers > b->count) workers = (unsigned)b->count;
	if (workers > SMDMX_PROJECT_JOBS_MAX) workers = SMDMX_PROJECT_JOBS_MAX;
	if (!workers) workers = 1;
	/* Threads for one file: as given, else the cores shared by the files converted at once
	 * (one big file gets them all; a batch of many gets one each). An allocator's limits count
	 * over them all (the batch's budget, or a step's own). */
	unsigned cores = os_cpu_count();
	b->conv.smd_read.threads = o->threads ? o->threads : (cores / workers ? cores / workers : 1);
	b->conv.dmx_read.threads = b->conv.smd_write.threads = b->conv.dmx_write.threads = b->conv.smd_read.threads;
	os_mem om = pj_os_mem(&b->mem);
	b->lock = os_mutex_create_in(&om);
	b->ordered = !o->keep_going && b->count > 1;
	b->limit = SIZE_MAX;
	b->moved = b->ordered ? os_cond_create_in(&om) : NULL;
	b->deferred = b->count > 1;
	b->group = pj_malloc(&b->mem, (b->count ? b->count : 1) * sizeof(size_t));
	b->wait = pj_malloc(&b->mem, (b->count ? b->count : 1) * sizeof(size_t));
	/* With keep_going, several workers start the biggest first, so that no large file is left
	 * to run alone at the end; without, the inputs go in order. */
	if (workers > 1 && !b->ordered) b->order = sorted(b, by_size);
	else if ((b->order = pj_malloc(&b->mem, (b->count ? b->count : 1) * sizeof(size_t))))
		for (size_t i = 0; i < b->count; i++) b->order[i] = i;
	if (!b->lock || (b->ordered && !b->moved) || !b->order || !b->group || !b->wait) return false;
	for (size_t i = 0; i < b->count; i++) {
		if (b->jobs[i].ran) {
			b->pub.finished++;
			if (!o->keep_going && b->jobs[i].failed) {
				if (!b->ordered) b->stop = true;
				else if (i < b->limit) b->limit = i;
			}
		}
	}
	os_mutex_lock(b->lock);
	if (b->ordered) commit_ready(b, false);
	os_mutex_unlock(b->lock);
	os_thread *threads[SMDMX_PROJECT_JOBS_MAX];
	unsigned started = 0;
	os_mem mem = pj_os_mem(&b->mem);
	for (unsigned t = 1; t < workers; t++) {
		if (!(threads[started] = os_thread_start_in(&mem, worker, b))) break;
		started++;
	}
	worker(b);
	for (unsigned t = 0; t < started; t++) os_thread_join(threads[t]);
	/* the last jobs put in place, and told */
	if (b->deferred) {
		os_mutex_lock(b->lock);
		commit_ready(b, true);
		if (!b->oom) settle(b);
		os_mutex_unlock(b->lock);
	}
	/* ordered: what ran after the first failure is dropped, as if it never ran */
	for (size_t i = 0; b->ordered && i < b->count; i++) {
		bjob *j = &b->jobs[i];
		if (i <= b->limit || !j->ran) continue;
		pj_outputs_abort(&j->pending);
		written_free(b, j);
		j->ran = false;
		j->cancelled = true;
	}
	return true;
}

/* What the batch says at its end: options about animation that took effect on no input, the
 * failures counted. */
/* The code of the first failed job's first error, in input order (a batch's own message of
 * its failures says it). */
static smdmx_error_code first_failure(const batch *b)
{
	for (size_t i = 0; i < b->count; i++) {
		const bjob *j = &b->jobs[i];
		if (!j->failed) continue;
		for (size_t k = 0; k < j->msgs.count; k++)
			if (j->msgs.items[k].kind == SMDMX_MESSAGE_ERROR) return j->msgs.items[k].code;
	}
	return SMDMX_ERROR_IO; /* (a failed job says its error; memory ran out saying it) */
}

static void summarize(batch *b)
{
	const smdmx_batch_options *o = b->o;
	for (size_t i = 0; i < b->count; i++) {
		const bjob *j = &b->jobs[i];
		if (!j->ran) b->pub.not_run++;
		else if (j->failed) b->pub.failed++;
	}
	b->pub.ok = !b->pub.failed;
	if (b->pub.up_to_date) pj_add(&b->said, NULL, 0, 0, "note", "%zu of %zu inputs up to date (-u)", b->pub.up_to_date, b->count);
	if (b->count > 1 && !b->pub.not_run) {
		static const unsigned anim[] = { SMDMX_BATCH_GIVEN_FPS, SMDMX_BATCH_GIVEN_KEYS, SMDMX_BATCH_GIVEN_KEY_TOLERANCE };
		for (size_t k = 0; k < 3; k++) {
			if (!(o->given & anim[k])) continue;
			bool used = false, fits = false;
			for (size_t i = 0; i < b->count; i++) {
				used |= (b->jobs[i].used & anim[k]) != 0;
				fits |= b->jobs[i].ran && !b->jobs[i].failed && (applies(job_way(b, &b->jobs[i])) & anim[k]);
			}
			if (used || !fits) continue;
			unsigned bit = 0;
			while ((1u << bit) != anim[k]) bit++;
			pj_add(&b->said, NULL, 0, 0, "warning", "'%s' took effect on no input: none of them has an animation; leave it out", given_names[bit]);
			if (o->convert.warnings_fail) b->pub.ok = false;
		}
	}
	if (b->pub.failed && b->count > 1) {
		if (b->pub.not_run)
			pj_error(&b->said, first_failure(b), NULL, 0, 0,
			       "stopped after the first failure: %zu of %zu inputs not converted (--keep-going converts the rest)", b->pub.not_run,
			       b->count);
		else
			pj_error(&b->said, first_failure(b), NULL, 0, 0, "%zu of %zu inputs failed", b->pub.failed, b->count);
	}
}

/* Memory ran out (on any thread): the batch ends so, freed, NULL. */
static smdmx_batch *out_of_memory(batch *b, smdmx_error *error)
{
	smdmx_batch_free(&b->pub);
	sm_fail_oom(error);
	return NULL;
}

smdmx_batch *smdmx_batch_convert(const smdmx_batch_options *o, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!o) return sm_fail_null(error, __func__, "options"), NULL;
	for (size_t i = 0; i < o->input_count; i++)
		if (!o->inputs || !o->inputs[i]) return sm_fail_null(error, __func__, "an input"), NULL;
	/* the batch itself in the caller's memory, all else in its budget (when given) */
	sm_alloc home;
	sm_alloc_init(&home, pj_allocator_twice(&o->convert) ? NULL : &o->convert.allocator);
	batch *b = sm_malloc(&home, sizeof(*b));
	if (!b) {
		sm_fail_oom(error);
		return NULL;
	}
	memset(b, 0, sizeof(*b));
	b->home = home;
	b->o = o;
	b->conv = o->convert;
	b->conv.given = o->given & SMDMX_CONVERT_GIVEN_ALL; /* (the same bits) */
	/* one budget for the whole batch: each job's conversion counts into it */
	if (pj_allocator_given(&o->convert.allocator) && !pj_allocator_twice(&o->convert)) {
		b->conv.allocator = sm_budget_start(&b->budget, &o->convert.allocator);
		if (!sm_budget_count(&b->budget, sizeof(*b))) { /* the batch itself is the batch's memory too */
			sm_free(&home, b, sizeof(*b));
			return sm_fail_oom(error), NULL;
		}
	}
	b->own_hooks = sm_budget_start(&b->own, &b->conv.allocator);
	sm_alloc_init(&b->mem, &b->own_hooks);
	b->said.mem = &b->mem;
	bool planned = make_plan(b) && check_options(b);
	if (planned && o->update) plan_update(b);
	b->pubjobs = pj_calloc(&b->mem, b->count ? b->count : 1, sizeof(smdmx_batch_job));
	if (!b->pubjobs || sm_budget_ran_out(&b->own)) return out_of_memory(b, error);
	b->pub.jobs = b->pubjobs;
	b->pub.job_count = b->count;
	if (!planned) {
		b->pub.status = SMDMX_ERROR_USAGE;
	} else {
		/* every job's inputs and output seen from the start (its state as it settles); each
		 * job's memory of its own from here, for its worker (the batch's hooks: one budget) */
		for (size_t i = 0; i < b->count; i++) {
			sm_alloc_init(&b->jobs[i].mem, &b->own_hooks);
			b->jobs[i].msgs.mem = &b->jobs[i].mem;
			publish(b, i);
		}
		if (!run_jobs(b) || b->oom || sm_budget_ran_out(&b->own)) return out_of_memory(b, error);
		summarize(b);
		if (sm_budget_ran_out(&b->own)) return out_of_memory(b, error);
	}
	for (size_t i = 0; i < b->count; i++) publish(b, i);
	b->pub.settled = b->count;
	b->pub.messages = b->said.items;
	b->pub.message_count = b->said.count;
	return &b->pub;
}

void smdmx_batch_free(smdmx_batch *pub)
{
	if (!pub) return;
	batch *b = (batch *)pub; /* pub is the first member */
	for (size_t i = 0; i < b->count; i++) {
		bjob *j = &b->jobs[i];
		for (size_t k = 0; k < j->input_count; k++) pj_free(&b->mem, j->inputs[k]);
		pj_free(&b->mem, j->inputs);
		pj_free(&b->mem, j->vta);
		pj_free(&b->mem, j->out);
		written_free(b, j);
		for (size_t k = 0; k < j->dep_count; k++) pj_free(&b->mem, j->deps[k]);
		pj_free(&b->mem, j->deps);
		pj_msgs_free(&j->msgs);
		pj_outputs_abort(&j->pending);
	}
	pj_free(&b->mem, b->jobs);
	pj_free(&b->mem, b->pubjobs);
	pj_free(&b->mem, b->order);
	pj_free(&b->mem, b->group);
	pj_free(&b->mem, b->wait);
	pj_msgs_free(&b->said);
	if (b->lock) os_mutex_destroy(b->lock);
	if (b->moved) os_cond_destroy(b->moved);
	sm_alloc home = b->home;
	sm_free(&home, b, sizeof(*b));
}
