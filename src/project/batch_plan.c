/* A batch's planning (smdmx/batch.h, batch_internal.h): the inputs (files, and with
 * recursive folders' trees, walk.c) become jobs with planned outputs; the options given are
 * checked against them; with update, what is up to date is marked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/batch_internal.h"

const char *const bt_given_names[SMDMX_BATCH_GIVEN_COUNT] = {
	"--vta", "--clip", "--clips", "--fps", "--keys", "--key-tolerance", "--target",
	"--encoding", "--encoding-version", "--model-version", "--goldsrc", "--lf", "--scale", "--up-axis",
	"--threads", "--links",
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
		j->lost = true;
		return;
	}
	if (j->written_count) memcpy(list, j->written, j->written_count * sizeof(char *));
	sm_free(&a, j->written, j->written_count * sizeof(char *));
	list[j->written_count++] = s;
	j->written = list;
}

void bt_written_free(batch *b, bjob *j)
{
	if (j->result) smdmx_convert_result_free(j->result);
	else smdmx_outputs_written_free(j->written, j->written_count, &b->conv.allocator);
	j->result = NULL;
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
void bt_job_dep(sm_alloc *m, bjob *j, const char *path)
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
smdmx_convert_way bt_job_way(const batch *b, const bjob *j)
{
	const smdmx_batch_options *o = b->o;
	if (o->qc && o->program == SMDMX_BATCH_SMD2DMX) return SMDMX_CONVERT_QC_TO_DMX;
	const char *in = j->inputs[0];
	bool in_dmx = strcmp(in, "-") ? !strcasecmp(os_path_extension(in), "dmx")
	                              : o->program == SMDMX_BATCH_DMX2SMD || (o->program == SMDMX_BATCH_ANY && stdin_is_dmx(o));
	const char *out_ext = strcmp(j->out, "-") ? os_path_extension(j->out) : o->to ? o->to : "";
	if (o->program == SMDMX_BATCH_ANY && (!strcasecmp(out_ext, "gltf") || !strcasecmp(out_ext, "glb"))) return SMDMX_CONVERT_TO_GLTF;
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
	for (size_t i = 1; qc && i < qc->file_count; i++) bt_job_dep(&b->mem, j, qc->files[i].path);
	for (size_t i = 0; qc && i < qc->ref_count; i++)
		if (qc->refs[i].found && (qc->refs[i].model == m || m == SMDMX_NONE)) bt_job_dep(&b->mem, j, qc->refs[i].path);
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
	/* smdmx convert: a VTA goes into a DMX or a glTF only */
	const char *out = o->to ? o->to : o->output ? os_path_extension(o->output) : "";
	if (o->program == SMDMX_BATCH_ANY && strcasecmp(out, "dmx") && strcasecmp(out, "gltf") && strcasecmp(out, "glb")) return;
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

int bt_by_size(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->size != y->size) return x->size > y->size ? -1 : 1;
	return x->index < y->index ? -1 : 1;
}

/* The jobs' indices in the order cmp sorts them (NULL when memory ran out). */
size_t *bt_sorted(batch *b, int (*cmp)(const void *, const void *))
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
	size_t *by_out = bt_sorted(b, by_output);
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
			pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "give the output with -o, or its kind with --to smd|sma|phys|vta|dmx|gltf|glb");
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
	/* A VTA converted to DMX or glTF on its own is no model: its shapes belong to a reference,
	 * and one that pairs with no SMD among the inputs fails, named (doc/decisions.md, decision
	 * 10). */
	for (size_t i = 0; i < b->count; i++) {
		bjob *j = &b->jobs[i];
		smdmx_convert_way way = bt_job_way(b, j);
		if (j->ran || j->input_count != 1 || strcasecmp(os_path_extension(j->inputs[0]), "vta") ||
		    (way != SMDMX_CONVERT_SMD_TO_DMX && way != SMDMX_CONVERT_TO_GLTF))
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
bool bt_make_plan(batch *b)
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
unsigned bt_applies(smdmx_convert_way w)
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
	case SMDMX_CONVERT_TO_GLTF:
		return both | SMDMX_BATCH_GIVEN_VTA | SMDMX_BATCH_GIVEN_CLIPS | SMDMX_BATCH_GIVEN_FPS | SMDMX_BATCH_GIVEN_LINKS;
	default: return ~0u; /* a QC's $model: checked by the caller, who gave it */
	}
}

/* Why an option does not apply to a way. */
static const char *why_not(unsigned opt, smdmx_convert_way w)
{
	bool dmx_in = w == SMDMX_CONVERT_DMX_TO_SMD || w == SMDMX_CONVERT_DMX_TO_DMX;
	if (opt == SMDMX_BATCH_GIVEN_LINKS) return "it shapes glTF output";
	if (w == SMDMX_CONVERT_TO_GLTF) {
		if (opt == SMDMX_BATCH_GIVEN_CLIP) return "glTF output keeps every clip";
		if (opt == SMDMX_BATCH_GIVEN_KEYS || opt == SMDMX_BATCH_GIVEN_KEY_TOLERANCE) return "glTF output keeps the keys as they are";
		if (opt == SMDMX_BATCH_GIVEN_GOLDSRC || opt == SMDMX_BATCH_GIVEN_LF) return "it shapes SMD output";
		return "glTF output has no DMX encoding or model format";
	}
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
bool bt_options_valid(batch *b)
{
	smdmx_error e;
	if (b->o->biggest_first && !b->o->keep_going) {
		pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "%s",
		         "biggest_first without keep_going: the jobs go in input order, the first failure stopping them");
		return false;
	}
	if (smdmx_convert_options_check(&b->o->convert, &e)) return true;
	pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "%s", e.message);
	return false;
}

bool bt_check_options(batch *b)
{
	const smdmx_batch_options *o = b->o;
	if (o->qc && o->program == SMDMX_BATCH_SMD2DMX) return true; /* checked with the QC */
	size_t to_smd = 0;
	for (size_t i = 0; i < b->count; i++) to_smd += bt_job_way(b, &b->jobs[i]) == SMDMX_CONVERT_DMX_TO_SMD;
	if ((o->given & SMDMX_BATCH_GIVEN_VTA) && to_smd > 1) {
		pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "--vta names the VTA written for one DMX, but %zu DMX files are converted to SMD", to_smd);
		return false;
	}
	for (unsigned k = 0; k < SMDMX_BATCH_GIVEN_COUNT; k++) {
		unsigned opt = 1u << k;
		if (!(o->given & opt)) continue;
		size_t fit = 0;
		for (size_t i = 0; i < b->count; i++) fit += (bt_applies(bt_job_way(b, &b->jobs[i])) & opt) != 0;
		for (size_t i = 0; i < b->count && fit < b->count; i++) {
			bjob *j = &b->jobs[i];
			smdmx_convert_way w = bt_job_way(b, j);
			if (bt_applies(w) & opt) continue;
			if (!fit) {
				pj_error(&b->said, SMDMX_ERROR_USAGE, NULL, 0, 0, "'%s' does not apply to '%s' (%s)", bt_given_names[k], j->inputs[0], why_not(opt, w));
				return false;
			}
			pj_add(&j->msgs, j->inputs[0], 0, 0, "warning", "'%s' does not apply here (%s): ignored for this file; nothing to do",
			       bt_given_names[k], why_not(opt, w));
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
void bt_plan_update(batch *b)
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
		if (j->lost) b->oom = true;
		b->pub.up_to_date++;
	}
}

