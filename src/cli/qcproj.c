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
 * $model block says noautodmxrules: then the QC's own rig stays), its attachments. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* Strings to numbers, for the library's keys and outputs (tens of thousands of files). */
typedef struct str_slot {
	char *s;              /* a copy; NULL: empty */
	uint32_t value;       /* SMDMX_NONE: no longer there */
} str_slot;

typedef struct str_map {
	str_slot *slots;
	size_t cap, count;    /* cap a power of two, at least twice count */
} str_map;

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

static uint32_t str_get(const str_map *m, const char *s)
{
	if (!m->cap) return SMDMX_NONE;
	const str_slot *x = str_slot_of(m, s);
	return x->s ? x->value : SMDMX_NONE;
}

static void str_set(str_map *m, const char *s, uint32_t value)
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

static void str_map_free(str_map *m)
{
	for (size_t i = 0; i < m->cap; i++) free(m->slots[i].s);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

typedef enum task_kind {
	TASK_COPY = 0,
	TASK_SMD_TO_DMX,
	TASK_DMX_TO_SMD,
	TASK_VTA_REBASE, /* a VTA eyelid lines read, its frame 0 made the DMX's base (defaultflex) */
	TASK_CONSUMED    /* a flexfile VTA that went into its model's DMX: nothing to do */
} task_kind;

typedef struct project project;

/* One file to convert or copy. Projects that need one file made the same way share its task
 * (the same key); one made another way (a reference SMD with another VTA) is a task of its
 * own, its output named after its QC. */
typedef struct task {
	task_kind kind;
	char *src, *dst;
	char *key;           /* what the output is made of: one task per key in the library */
	project *proj;       /* the project that planned it: ref, model and vta are its QC's */
	uint32_t ref;        /* the first reference naming it */
	uint32_t model;      /* a $model whose file it is (rig and shapes), else SMDMX_NONE */
	uint32_t vta;        /* that $model's flexfile (SMD to DMX) */
	double fps;
	bool reference;      /* DMX to SMD: write a reference (a $model, $body, ... file) */
	bool up_to_date;     /* -u: its outputs are newer than what it reads: not run */
	bool replace;        /* -u: its outputs are older: replaced */
	/* results */
	char *model_lines, *att_lines; /* DMX to SMD: QC lines for its $model */
	bool has_vta;
	char *vta_dst;
	diag_buf diag;
	int status;
	bool copied;         /* -k: it failed, and its source was copied unchanged (the QC names the copy) */
	const char *why_copy; /* a model file copied, not converted, and why (a note) */
	outputs outs;
	char **written;
	size_t written_count;
} task;

typedef struct library library;

/* One QC and what it names. */
struct project {
	library *lib;
	smdmx_qc *qc;
	const char *qcpath;
	task **tasks;        /* planned here, before they join the library's */
	size_t task_count;
	uint32_t *task_of;   /* per reference: its task in the library, or SMDMX_NONE */
	char **ref_out;      /* per reference found: its place below OUTDIR, unconverted */
	bool *vta_consumed;  /* per reference: a flexfile VTA that goes into its model's DMX */
	diag_buf diag;       /* the QC's own messages */
	size_t qc_errors;    /* lines of the QC that could not be read (-k) */
	bool ok;             /* read and planned without an error */
	bool failed;         /* its QC files could not be written */
};

/* The QCs converted together, into one tree. */
struct library {
	const conv_opts *o;
	const char *to;      /* "dmx" or "smd" */
	bool rig_dmx;
	char *root;          /* absolute, ending in '/' */
	char *outdir;        /* absolute, ending in '/' */
	project *projects;
	size_t project_count;
	task **tasks;
	size_t task_count, task_cap;
	str_map keys;        /* task keys: their task */
	str_map outs;        /* outputs of tasks (dst and vta_dst): their task, SMDMX_NONE once moved */
	str_map seen;        /* missing files and consumed VTAs already listed */
	char **missing;      /* files named that are not there (each once) */
	size_t missing_count;
	char **consumed;     /* VTAs that went into DMXs: inputs for --depfile */
	size_t consumed_count;
	char **qc_written;   /* the QC files written */
	size_t qc_written_count;
	size_t qc_current;   /* -u: QC files already as they would be written */
	os_mutex *lock;
	size_t next;
	bool stop;
};

static void list_push(char ***list, size_t *count, char *s)
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
static char *out_path(const library *l, const char *path)
{
	char *a = path_absolute(path);
	char *out = xasprintf("%s%s", l->outdir, a + strlen(l->root));
	free(a);
	return out;
}

/* A reference's new name: its extension replaced (or added), spelled as the QC spells it;
 * the output's own name when it took another to avoid a clash. */
static char *new_name(const char *name, const char *src, const char *dst)
{
	const char *slash = strrchr(name, '/'), *bs = strrchr(name, '\\');
	if (bs && (!slash || bs > slash)) slash = bs;
	size_t dir = slash ? (size_t)(slash - name + 1) : 0;
	const char *base = strrchr(dst, '/');
	base = base ? base + 1 : dst;
	const char *sbase = strrchr(src, '/');
	sbase = sbase ? sbase + 1 : src;
	size_t dstem = strlen(base) - strlen(path_extension(base)) - (*path_extension(base) ? 1 : 0);
	size_t sstem = strlen(sbase) - strlen(path_extension(sbase)) - (*path_extension(sbase) ? 1 : 0);
	if (dstem == sstem && !strncasecmp(base, sbase, dstem)) {
		/* the same name: the QC's spelling of it, with the new extension */
		const char *n = name + dir;
		const char *ext = path_extension(n);
		size_t nstem = strlen(n) - strlen(ext) - (*ext ? 1 : 0);
		if (*ext && strcasecmp(ext, "smd") && strcasecmp(ext, "dmx") && strcasecmp(ext, "vta") && strcasecmp(ext, "sma") &&
		    strcasecmp(ext, "phys"))
			nstem = strlen(n); /* a dot in the name, no extension */
		return xasprintf("%.*s%.*s.%s", (int)dir, name, (int)nstem, n, path_extension(base));
	}
	return xasprintf("%.*s%s", (int)dir, name, base);
}

/* ---- one task ---------------------------------------------------------------------------- */

static bool task_fail(task *t, const char *path, const smdmx_error *e)
{
	diag_error(&t->diag, path, e);
	return false;
}

static output *task_open(task *t, const char *path)
{
	const library *l = t->proj->lib;
	char why[1024];
	char *ins[2] = { t->src, (char *)t->proj->qcpath };
	if (!output_allowed(path, ins, 2, l->o->force || t->replace, why, sizeof(why)) || !make_parent_dirs(path, why, sizeof(why))) {
		diag_add(&t->diag, NULL, path, 0, 0, "error", "%s", why);
		return NULL;
	}
	output *out = outputs_open(&t->outs, path, why, sizeof(why));
	if (!out) diag_add(&t->diag, NULL, path, 0, 0, "error", "%s", why);
	return out;
}

static bool task_write_dmx(task *t, const smdmx_scene *s)
{
	const conv_opts *o = t->proj->lib->o;
	smdmx_error err;
	smdmx_warnings w;
	smdmx_dm *dm = smdmx_model_from_scene(s, &o->mopts, &err, &w);
	diag_warnings(&t->diag, o, t->src, &w);
	if (!dm) return task_fail(t, t->src, &err);
	output *out = task_open(t, t->dst);
	bool ok = out && (smdmx_dmx_write(dm, output_write, out, &o->dopts, &err) || task_fail(t, t->dst, &err));
	smdmx_dm_free(dm);
	return ok;
}

static bool task_write_smd(task *t, const smdmx_scene *s, const char *path, smdmx_smd_write_kind kind)
{
	smdmx_smd_write_options wo = t->proj->lib->o->wopts;
	wo.kind = kind;
	wo.reference_clip = true;
	smdmx_error err;
	output *out = task_open(t, path);
	return out && (smdmx_smd_write(s, output_write, out, &wo, &err) || task_fail(t, path, &err));
}

static smdmx_scene *task_read_smd(task *t, const char *path, double fps)
{
	const conv_opts *o = t->proj->lib->o;
	smdmx_smd_read_options ro = o->ropts;
	if (fps > 0) ro.frame_rate = fps;
	smdmx_error err;
	smdmx_warnings w;
	smdmx_scene *s = smdmx_smd_read_file(path, &ro, &err, &w);
	diag_warnings(&t->diag, o, path, &w);
	if (!s) task_fail(t, path, &err);
	return s;
}

/* An SMD (and the $model's flexfile) into DMX. */
static bool run_smd_to_dmx(task *t)
{
	const project *p = t->proj;
	smdmx_error err;
	smdmx_warnings w;
	smdmx_scene *s = task_read_smd(t, t->src, t->fps);
	bool ok = s != NULL;
	if (ok && t->model != SMDMX_NONE && t->vta != SMDMX_NONE) {
		const char *vpath = p->qc->refs[t->vta].path;
		smdmx_scene *flex = task_read_smd(t, vpath, 0);
		ok = flex && (smdmx_scene_attach_vta(s, flex, &err, &w) || task_fail(t, vpath, &err));
		if (flex) diag_warnings(&t->diag, p->lib->o, vpath, &w);
		smdmx_scene_free(flex);
	}
	if (ok && t->model != SMDMX_NONE && t->vta != SMDMX_NONE) {
		/* a block that lost a line keeps its rig in the QC, where that line stays */
		smdmx_qc_rig_options ro = { .rig_in_qc = !p->lib->rig_dmx || p->qc->models[t->model].lost_lines };
		ok = smdmx_qc_apply_rig(p->qc, t->model, s, &ro, &err, &w);
		diag_warnings(&t->diag, p->lib->o, p->qcpath, &w);
		if (!ok) task_fail(t, p->qcpath, &err);
	}
	ok = ok && task_write_dmx(t, s);
	smdmx_scene_free(s);
	return ok;
}

/* A VTA eyelid lines read, written again with its frame 0 the $model's base after its
 * defaultflex frame (studiomdl puts that frame into the model and into the VTA's frame 0):
 * the DMX's base, so that the eyelids meet it. */
static bool run_vta_rebase(task *t)
{
	const project *p = t->proj;
	smdmx_error err;
	smdmx_warnings w;
	const smdmx_qc_model *m = &p->qc->models[t->model];
	const char *ref = p->qc->refs[m->ref].path;
	/* the reference's warnings are its own task's */
	smdmx_scene *s = smdmx_smd_read_file(ref, &p->lib->o->ropts, &err, NULL);
	if (!s) task_fail(t, ref, &err);
	smdmx_scene *flex = s ? task_read_smd(t, t->src, 0) : NULL;
	bool ok = flex && (smdmx_scene_attach_vta(s, flex, &err, &w) || task_fail(t, t->src, &err));
	smdmx_scene_free(flex);
	if (ok) ok = smdmx_qc_apply_defaultflex(p->qc, t->model, s, &err) || task_fail(t, p->qcpath, &err);
	if (ok) {
		/* frames keep their numbers */
		s->source.format = SMDMX_SOURCE_VTA;
		ok = task_write_smd(t, s, t->dst, SMDMX_SMD_WRITE_VTA);
	}
	smdmx_scene_free(s);
	return ok;
}

/* A DMX into SMD (and a VTA for its shapes), with the QC lines for what SMD cannot hold. */
static bool run_dmx_to_smd(task *t)
{
	const project *p = t->proj;
	const conv_opts *o = p->lib->o;
	smdmx_error err;
	smdmx_warnings w;
	smdmx_dm *dm = smdmx_dmx_read_file(t->src, &o->xopts, &err, &w);
	diag_warnings(&t->diag, o, t->src, &w);
	if (!dm) return task_fail(t, t->src, &err);
	smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, &w);
	smdmx_dm_free(dm);
	diag_warnings(&t->diag, o, t->src, &w);
	if (!s) return task_fail(t, t->src, &err);
	bool ok = true;
	bool reference = t->reference && s->mesh_count;
	if (reference && s->flex_shape_count) t->has_vta = true;
	if (t->model != SMDMX_NONE) {
		char *vta_rel = NULL;
		if (t->has_vta) {
			char *qcout = out_path(p->lib, p->qc->files[p->qc->models[t->model].pos.file].path);
			vta_rel = path_relative(qcout, t->vta_dst);
			free(qcout);
		}
		ok = smdmx_qc_from_scene(s, vta_rel, &t->model_lines, &t->att_lines, &err, &w);
		free(vta_rel);
		if (p->qc->models[t->model].noautodmxrules) {
			/* the QC's own rig stands: what the DMX's controls would say does not matter */
			size_t k = 0;
			for (size_t i = 0; i < w.count; i++)
				if (w.data[i].code != SMDMX_WARNING_QC_UNDRIVEN && w.data[i].code != SMDMX_WARNING_QC_LOST_CONTROLS)
					w.data[k++] = w.data[i];
			w.count = k;
		}
		diag_warnings(&t->diag, o, t->src, &w);
		if (!ok) task_fail(t, t->src, &err);
	}
	/* the one SMD the QC names holds what it can of the DMX: its animation too */
	smdmx_smd_write_options wo = o->wopts;
	wo.reference_clip = true;
	wo.kind = reference || !s->clip_count ? SMDMX_SMD_WRITE_REFERENCE : SMDMX_SMD_WRITE_ANIMATION;
	if (ok) {
		smdmx_warnings losses;
		memset(&losses, 0, sizeof(losses));
		smdmx_smd_report_losses(s, &wo, true, &losses);
		/* a $model's block takes its rig lines and its VTA; the QC's $upaxis and $sequence fps
		 * say what SMD cannot when they are the scene's */
		bool fps = true;
		for (size_t k = 0; k < s->clip_count; k++) fps = fps && s->clips[k].frame_rate == (t->fps > 0 ? t->fps : 30);
		carried_beside c = { .rig = t->model != SMDMX_NONE, .up_axis = p->qc->up_axis == s->up_axis, .frame_rate = fps,
		                     .shapes = reference };
		losses_less_carried(&losses, &c);
		diag_warnings(&t->diag, o, t->src, &losses);
	}
	ok = ok && task_write_smd(t, s, t->dst, wo.kind);
	if (ok && t->has_vta) ok = task_write_smd(t, s, t->vta_dst, SMDMX_SMD_WRITE_VTA);
	smdmx_scene_free(s);
	return ok;
}

/* src copied, byte for byte, to dst. */
static bool copy_file(task *t, const char *src, const char *dst)
{
	void *data = NULL;
	size_t size = 0;
	FILE *f = os_fopen(src, "rb");
	bool ok = f != NULL;
	if (ok) {
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
			void *d = realloc(data, size + n);
			if (!d) {
				ok = false;
				break;
			}
			data = d;
			memcpy((char *)data + size, buf, n);
			size += n;
		}
		ok = ok && !ferror(f);
		fclose(f);
	}
	if (!ok) {
		diag_add(&t->diag, NULL, src, 0, 0, "error", "cannot read: %s", os_error_text(errno));
		free(data);
		return false;
	}
	output *out = task_open(t, dst);
	ok = out && (output_write(out, data ? data : "", size) ||
	             (diag_add(&t->diag, NULL, dst, 0, 0, "error", "cannot write: %s", os_error_text(out->errnum)), false));
	free(data);
	return ok;
}

/* -k: a model file that failed to convert is copied unchanged to its place below OUTDIR, with
 * the VTA its DMX would have taken, so that the QC, which keeps naming them, stays whole. */
/* Another task of the library copies src to dst: it is written there already. */
static bool copied_by_another(const task *t, const char *src, const char *dst)
{
	const library *l = t->proj->lib;
	for (size_t i = 0; i < l->task_count; i++)
		if (l->tasks[i] != t && l->tasks[i]->kind == TASK_COPY && !strcmp(l->tasks[i]->src, src) && !strcmp(l->tasks[i]->dst, dst))
			return true;
	return false;
}

static bool copy_instead(task *t)
{
	const project *p = t->proj;
	outputs_abort(&t->outs);
	const char *dst = p->ref_out[t->ref];
	bool ok = copied_by_another(t, t->src, dst) || copy_file(t, t->src, dst);
	const char *vta = t->kind == TASK_SMD_TO_DMX && t->vta != SMDMX_NONE && p->vta_consumed[t->vta] ? p->qc->refs[t->vta].path : NULL;
	if (ok && vta && !copied_by_another(t, vta, p->ref_out[t->vta])) ok = copy_file(t, vta, p->ref_out[t->vta]);
	char why[1024];
	ok = ok && (outputs_commit(&t->outs, &t->written, &t->written_count, why, sizeof(why)) ||
	            (diag_add(&t->diag, NULL, dst, 0, 0, "error", "%s", why), false));
	if (!ok) {
		outputs_abort(&t->outs);
		return false;
	}
	diag_add(&t->diag, NULL, t->src, 0, 0, "note", "not converted: copied unchanged as '%s'%s%s%s, and the QC names the copy", dst,
	         vta ? " (with '" : "", vta ? p->ref_out[t->vta] : "", vta ? "')" : "");
	return true;
}

static void worker(void *arg)
{
	library *l = arg;
	for (;;) {
		os_mutex_lock(l->lock);
		size_t i = l->next < l->task_count && !l->stop ? l->next++ : SIZE_MAX;
		os_mutex_unlock(l->lock);
		if (i == SIZE_MAX) return;
		task *t = l->tasks[i];
		if (t->up_to_date) continue;
		t->outs.force = l->o->force || t->replace;
		if (t->why_copy) diag_add(&t->diag, NULL, t->src, 0, 0, "note", "not converted: %s; copied unchanged", t->why_copy);
		bool ok = t->kind == TASK_COPY         ? copy_file(t, t->src, t->dst)
		        : t->kind == TASK_SMD_TO_DMX   ? run_smd_to_dmx(t)
		        : t->kind == TASK_VTA_REBASE   ? run_vta_rebase(t)
		                                       : run_dmx_to_smd(t);
		if (ok && l->o->werror && t->diag.warnings) {
			diag_add(&t->diag, NULL, t->src, 0, 0, "error", "warnings are errors (-W error)");
			ok = false;
		}
		char why[1024];
		if (ok) ok = outputs_commit(&t->outs, &t->written, &t->written_count, why, sizeof(why)) ||
		             (diag_add(&t->diag, NULL, t->dst, 0, 0, "error", "%s", why), false);
		else outputs_abort(&t->outs);
		t->status = ok ? EXIT_OK : EXIT_FAILED;
		if (!ok && l->o->keep_going && t->kind != TASK_COPY) t->copied = copy_instead(t);
		if (!ok && !l->o->keep_going) {
			os_mutex_lock(l->lock);
			l->stop = true;
			os_mutex_unlock(l->lock);
		}
	}
}

/* ---- planning ------------------------------------------------------------------------------ */

static task *add_task(project *p, task_kind kind, const char *src, char *dst, uint32_t ref)
{
	task *t = calloc(1, sizeof(*t));
	if (!t) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	p->tasks[p->task_count++] = t;
	t->kind = kind;
	t->src = xstrdup(src);
	t->dst = dst;
	t->proj = p;
	t->ref = ref;
	t->model = SMDMX_NONE;
	t->vta = SMDMX_NONE;
	t->status = -1;
	return t;
}

static void task_free(task *t)
{
	free(t->src);
	free(t->dst);
	free(t->key);
	free(t->vta_dst);
	smdmx_qc_text_free(t->model_lines);
	smdmx_qc_text_free(t->att_lines);
	diag_free(&t->diag);
	for (size_t k = 0; k < t->written_count; k++) free(t->written[k]);
	free(t->written);
	free(t);
}

static bool ext_is(const char *path, const char *ext)
{
	return !strcasecmp(path_extension(path), ext);
}

/* The same file already has a task in this project. */
static uint32_t task_for(const project *p, const char *src)
{
	for (size_t i = 0; i < p->task_count; i++)
		if (!strcmp(p->tasks[i]->src, src)) return (uint32_t)i;
	return SMDMX_NONE;
}

/* dst made unique among the project's outputs: "x.smd" taken becomes "x_dmx.smd". */
static char *unique_dst(const project *p, char *dst, const char *src)
{
	for (int round = 0; round < 2; round++) {
		bool clash = false;
		for (size_t i = 0; i < p->task_count && !clash; i++)
			clash = (p->tasks[i]->dst && !strcmp(p->tasks[i]->dst, dst)) || (p->tasks[i]->vta_dst && !strcmp(p->tasks[i]->vta_dst, dst));
		for (size_t i = 0; i < p->qc->ref_count && !clash; i++)
			clash = p->ref_out[i] && !strcmp(p->ref_out[i], dst) && strcmp(p->qc->refs[i].path, src);
		if (!clash) return dst;
		const char *ext = path_extension(dst), *oext = path_extension(src);
		char *stem = xstrdup(dst);
		stem[strlen(stem) - strlen(ext) - (*ext ? 1 : 0)] = 0;
		char *alt = xasprintf("%s_%s.%s", stem, oext, ext);
		free(stem);
		free(dst);
		dst = alt;
	}
	return dst;
}

static bool plan(project *p)
{
	const library *l = p->lib;
	smdmx_qc *qc = p->qc;
	p->tasks = calloc(qc->ref_count + 1, sizeof(task *));
	p->task_of = calloc(qc->ref_count + 1, sizeof(uint32_t));
	p->ref_out = calloc(qc->ref_count + 1, sizeof(char *));
	p->vta_consumed = calloc(qc->ref_count + 1, sizeof(bool));
	if (!p->tasks || !p->task_of || !p->ref_out || !p->vta_consumed) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	for (size_t i = 0; i < qc->ref_count; i++)
		if (qc->refs[i].found) p->ref_out[i] = out_path(l, qc->refs[i].path);
	bool to_dmx = !strcmp(l->to, "dmx");
	bool ok = true;
	for (size_t i = 0; i < qc->ref_count; i++) {
		const smdmx_qc_ref *r = &qc->refs[i];
		p->task_of[i] = SMDMX_NONE;
		const char *where = r->pos.file ? qc->files[r->pos.file].path : p->qcpath;
		if (!r->found) {
			if (r->kind == SMDMX_QC_REF_OTHER) {
				diag_add(&p->diag, l->o, where, r->pos.line, r->pos.column, "warning", "cannot find '%s' (named by %s): not copied, and the "
				         "QC still names it; put it in the written project if studiomdl needs it",
				         r->path, r->command);
			} else {
				diag_add(&p->diag, NULL, where, r->pos.line, r->pos.column, "error", "cannot find '%s' (named by %s)%s", r->path,
				         r->command, l->o->keep_going ? ": the QC keeps naming it" : "");
				ok = false;
			}
			continue;
		}
		uint32_t existing = task_for(p, r->path);
		if (existing != SMDMX_NONE) {
			p->task_of[i] = existing;
			task *t = p->tasks[existing];
			if (r->kind == SMDMX_QC_REF_MODEL || r->kind == SMDMX_QC_REF_COLLISION) t->reference = true;
			if (r->kind == SMDMX_QC_REF_MODEL && !strcmp(r->command, "$model") && t->model == SMDMX_NONE) t->model = r->model;
			continue;
		}
		bool model_file = r->kind == SMDMX_QC_REF_MODEL || r->kind == SMDMX_QC_REF_COLLISION || r->kind == SMDMX_QC_REF_ANIMATION;
		task *t;
		if (to_dmx && model_file && !ext_is(r->path, "dmx")) {
			t = add_task(p, TASK_SMD_TO_DMX, r->path, NULL, (uint32_t)i);
			t->dst = unique_dst(p, path_with_extension(p->ref_out[i], "dmx"), r->path);
		} else if (!to_dmx && model_file && ext_is(r->path, "dmx")) {
			t = add_task(p, TASK_DMX_TO_SMD, r->path, NULL, (uint32_t)i);
			t->dst = unique_dst(p, path_with_extension(p->ref_out[i], "smd"), r->path);
		} else {
			t = add_task(p, TASK_COPY, r->path, xstrdup(p->ref_out[i]), (uint32_t)i);
		}
		t->fps = r->fps;
		t->reference = r->kind == SMDMX_QC_REF_MODEL || r->kind == SMDMX_QC_REF_COLLISION;
		if (r->kind == SMDMX_QC_REF_MODEL && !strcmp(r->command, "$model")) t->model = r->model;
		p->task_of[i] = (uint32_t)(p->task_count - 1);
	}
	/* The models: their flexfile (SMD to DMX), their VTA (DMX to SMD). A model whose block
	 * lost an include, or whose VTA is missing, cannot carry its shapes: with -k it is
	 * copied as it is, and its lines stay. */
	for (size_t ti = 0; ti < p->task_count; ti++) {
		task *t = p->tasks[ti];
		if (t->model == SMDMX_NONE) continue;
		const smdmx_qc_model *m = &qc->models[t->model];
		if (t->kind != TASK_COPY && m->incomplete) {
			t->why_copy = "its $model line or an $include in its block could not be read (see above)";
		} else if (t->kind == TASK_SMD_TO_DMX) {
			smdmx_error err;
			t->vta = smdmx_qc_model_vta(qc, t->model, &err);
			if (t->vta == SMDMX_NONE && err.code) {
				diag_error(&p->diag, p->qcpath, &err);
				ok = false;
				t->why_copy = "its flex lines read two VTAs";
			} else if (t->vta != SMDMX_NONE && !qc->refs[t->vta].found) {
				t->why_copy = "the VTA its flex lines read is missing";
			}
		}
		if (t->why_copy) {
			t->kind = TASK_COPY;
			free(t->dst);
			t->dst = xstrdup(p->ref_out[t->ref]);
			t->vta = SMDMX_NONE;
		} else if (t->kind == TASK_DMX_TO_SMD) {
			t->vta_dst = unique_dst(p, path_with_extension(t->dst, "vta"), t->src);
		}
	}
	/* A flexfile VTA moves into its model's DMX; one that eyelid lines read too stays, made
	 * to meet the DMX's base when a defaultflex moved it. */
	for (size_t i = 0; to_dmx && i < qc->ref_count; i++) {
		const smdmx_qc_ref *r = &qc->refs[i];
		if (r->kind != SMDMX_QC_REF_FLEX || p->task_of[i] == SMDMX_NONE) continue;
		task *t = p->tasks[p->task_of[i]];
		if (t->kind != TASK_COPY) continue;
		bool flexfile_only = true, converted_model = false;
		uint32_t model = SMDMX_NONE;
		for (size_t k = 0; k < qc->ref_count; k++) {
			if (qc->refs[k].kind != SMDMX_QC_REF_FLEX || p->task_of[k] != p->task_of[i]) continue;
			if (strcmp(qc->refs[k].command, "flexfile") && strcmp(qc->refs[k].command, "flex")) flexfile_only = false;
			else model = qc->refs[k].model;
		}
		if (model != SMDMX_NONE) {
			uint32_t mr = qc->models[model].ref;
			uint32_t mt = mr == SMDMX_NONE ? SMDMX_NONE : p->task_of[mr];
			converted_model = mt != SMDMX_NONE && p->tasks[mt]->kind == TASK_SMD_TO_DMX;
		}
		if (converted_model && flexfile_only) {
			t->kind = TASK_CONSUMED;
			for (size_t k = 0; k < qc->ref_count; k++)
				if (p->task_of[k] == p->task_of[i]) p->vta_consumed[k] = true;
		} else if (converted_model) {
			const smdmx_qc_model *m = &qc->models[model];
			bool moved = false;
			for (size_t f = 0; f < m->flex_count; f++) moved = moved || (m->flexes[f].kind == SMDMX_QC_DEFAULTFLEX && m->flexes[f].frame != 0);
			if (moved) {
				t->kind = TASK_VTA_REBASE;
				t->model = model;
			}
		}
	}
	return ok;
}

/* What a $model's file is made with besides itself: its VTA and its rig, as text. */
static void model_key(text_buf *b, const project *p, uint32_t model)
{
	const smdmx_qc *qc = p->qc;
	const smdmx_qc_model *m = &qc->models[model];
	char num[160];
	for (size_t f = 0; f < m->flex_count; f++) {
		const smdmx_qc_flex *x = &m->flexes[f];
		snprintf(num, sizeof(num), "|f%d %d %.17g %.17g %.17g ", (int)x->kind, (int)x->frame, x->split, x->position, x->decay);
		for (const char *c = num; *c; c++) tb_putc(b, *c);
		for (const char *c = x->name ? x->name : ""; *c; c++) tb_putc(b, *c);
		tb_putc(b, ' ');
		for (const char *c = x->vta != SMDMX_NONE ? qc->refs[x->vta].path : ""; *c; c++) tb_putc(b, *c);
	}
	for (size_t c = 0; c < m->controller_count; c++) {
		const smdmx_qc_controller *x = &m->controllers[c];
		snprintf(num, sizeof(num), "|c%.17g %.17g ", x->min, x->max);
		for (const char *s = num; *s; s++) tb_putc(b, *s);
		for (const char *s = x->group; *s; s++) tb_putc(b, *s);
		tb_putc(b, ' ');
		for (const char *s = x->name; *s; s++) tb_putc(b, *s);
	}
	for (size_t r = 0; r < m->rule_count; r++) {
		tb_putc(b, '|');
		tb_putc(b, 'r');
		for (const char *s = m->rules[r].name; *s; s++) tb_putc(b, *s);
		tb_putc(b, '=');
		for (const char *s = m->rules[r].expression ? m->rules[r].expression : "(local)"; *s; s++) tb_putc(b, *s);
	}
	tb_putc(b, m->noautodmxrules ? 'N' : 'n');
	tb_putc(b, m->lost_lines ? 'L' : 'l');
}

/* The task's key: what its output is made of. Two projects' tasks of one key are one task. */
static char *task_key(const task *t)
{
	const project *p = t->proj;
	text_buf b = { 0 };
	char head[64];
	/* a copy is its file: the same bytes at the same place whatever names it */
	if (t->kind == TASK_COPY) snprintf(head, sizeof(head), "%d|", (int)t->kind);
	else snprintf(head, sizeof(head), "%d %d %.17g|", (int)t->kind, (int)t->reference, t->fps);
	for (const char *c = head; *c; c++) tb_putc(&b, *c);
	for (const char *c = t->src; *c; c++) tb_putc(&b, *c);
	if (t->kind == TASK_SMD_TO_DMX && t->model != SMDMX_NONE) {
		tb_putc(&b, '|');
		for (const char *c = t->vta != SMDMX_NONE ? p->qc->refs[t->vta].path : ""; *c; c++) tb_putc(&b, *c);
		model_key(&b, p, t->model);
	} else if (t->kind == TASK_VTA_REBASE) {
		tb_putc(&b, '|');
		for (const char *c = p->qc->refs[p->qc->models[t->model].ref].path; *c; c++) tb_putc(&b, *c);
		model_key(&b, p, t->model);
	} else if (t->kind == TASK_DMX_TO_SMD && t->model != SMDMX_NONE) {
		/* its QC lines name the VTA from the $model's folder */
		tb_putc(&b, '|');
		const char *f = p->qc->files[p->qc->models[t->model].pos.file].path;
		const char *s = last_separator(f);
		for (const char *c = f; s && c <= s; c++) tb_putc(&b, *c);
		tb_putc(&b, p->qc->models[t->model].noautodmxrules ? 'N' : 'n');
	}
	tb_putc(&b, 0);
	return b.text;
}

static bool dst_taken(const library *l, const char *dst, const task *but)
{
	uint32_t g = str_get(&l->outs, dst);
	return g != SMDMX_NONE && l->tasks[g] != but;
}

/* path with "_NAME" (then a number) before its extension, free in the library. */
static char *named_dst(const library *l, const char *path, const char *name, const task *but)
{
	const char *ext = path_extension(path);
	size_t stem = strlen(path) - strlen(ext) - (*ext ? 1 : 0);
	char *alt = xasprintf("%.*s_%s%s%s", (int)stem, path, name, *ext ? "." : "", ext);
	for (unsigned n = 2; dst_taken(l, alt, but); n++) {
		free(alt);
		alt = xasprintf("%.*s_%s%u%s%s", (int)stem, path, name, n, *ext ? "." : "", ext);
	}
	return alt;
}

/* The stem of a path's file name. */
static char *stem_of(const char *path)
{
	const char *s = last_separator(path);
	char *stem = xstrdup(s ? s + 1 : path);
	char *dot = strrchr(stem, '.');
	if (dot && dot != stem) *dot = 0;
	return stem;
}

/* The project's tasks join the library's: one of a key already there is that one; an output
 * another task of the library writes is named after this project's QC. */
static void join(library *l, project *p)
{
	uint32_t *map = calloc(p->task_count + 1, sizeof(uint32_t));
	if (!map) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	char *qcstem = stem_of(p->qcpath);
	for (size_t i = 0; i < p->task_count; i++) {
		task *t = p->tasks[i];
		map[i] = SMDMX_NONE;
		if (t->kind == TASK_CONSUMED) {
			char *k = xasprintf("consumed|%s", t->src);
			if (str_get(&l->seen, k) == SMDMX_NONE) {
				str_set(&l->seen, k, 0);
				list_push(&l->consumed, &l->consumed_count, xstrdup(t->src));
			}
			free(k);
			task_free(t);
			continue;
		}
		t->key = task_key(t);
		map[i] = str_get(&l->keys, t->key);
		if (map[i] != SMDMX_NONE) {
			task *g = l->tasks[map[i]];
			g->reference = g->reference || t->reference;
			task_free(t);
			continue;
		}
		if (t->kind == TASK_COPY) {
			/* a copy keeps its name: a conversion of another project that took it moves */
			uint32_t g = str_get(&l->outs, t->dst);
			task *o = g != SMDMX_NONE ? l->tasks[g] : NULL;
			if (o && o->kind != TASK_COPY && !strcmp(o->dst, t->dst)) {
				char *ostem = stem_of(o->proj->qcpath);
				char *alt = named_dst(l, o->dst, ostem, o);
				free(ostem);
				diag_add(&o->diag, NULL, o->src, 0, 0, "note", "'%s' is a file %s copies: written as '%s'", o->dst, p->qcpath, alt);
				str_set(&l->outs, o->dst, SMDMX_NONE);
				str_set(&l->outs, alt, g);
				free(o->dst);
				o->dst = alt;
			}
		} else {
			if (dst_taken(l, t->dst, NULL)) {
				char *alt = named_dst(l, t->dst, qcstem, NULL);
				diag_add(&t->diag, NULL, t->src, 0, 0, "note",
				         "%s needs it made another way than a QC before it does (another VTA, rig or rate): written as '%s'",
				         p->qcpath, alt);
				free(t->dst);
				t->dst = alt;
				if (t->vta_dst) {
					free(t->vta_dst);
					t->vta_dst = path_with_extension(t->dst, "vta");
				}
			}
			if (t->vta_dst && dst_taken(l, t->vta_dst, NULL)) {
				char *alt = named_dst(l, t->vta_dst, qcstem, NULL);
				free(t->vta_dst);
				t->vta_dst = alt;
			}
		}
		if (l->task_count == l->task_cap) {
			l->task_cap = l->task_cap ? 2 * l->task_cap : 64;
			task **n = realloc(l->tasks, l->task_cap * sizeof(task *));
			if (!n) {
				fputs("smdmx: error: out of memory\n", stderr);
				exit(EXIT_FAILED);
			}
			l->tasks = n;
		}
		map[i] = (uint32_t)l->task_count;
		l->tasks[l->task_count++] = t;
		str_set(&l->keys, t->key, map[i]);
		str_set(&l->outs, t->dst, map[i]);
		if (t->vta_dst) str_set(&l->outs, t->vta_dst, map[i]);
	}
	for (size_t i = 0; i < p->qc->ref_count; i++)
		if (p->task_of[i] != SMDMX_NONE) p->task_of[i] = map[p->task_of[i]];
	free(map);
	free(qcstem);
	free(p->tasks);
	p->tasks = NULL;
	p->task_count = 0;
}

static void add_missing(library *l, const char *path)
{
	/* names come from Windows, where case does not matter: one file in two spellings is one */
	char *k = xasprintf("missing|%s", path);
	for (char *c = k; *c; c++)
		if (*c >= 'A' && *c <= 'Z') *c = (char)(*c + 32);
	if (str_get(&l->seen, k) == SMDMX_NONE) {
		str_set(&l->seen, k, 0);
		list_push(&l->missing, &l->missing_count, xstrdup(path));
	}
	free(k);
}

/* The files named that are not there, each once in the library. */
static void count_missing(library *l, const project *p)
{
	for (size_t i = 0; i < p->qc->ref_count; i++) {
		const smdmx_qc_ref *r = &p->qc->refs[i];
		if (!r->found && r->kind != SMDMX_QC_REF_OTHER) add_missing(l, r->path);
	}
}

/* ---- -u: only what is out of date ------------------------------------------------------------ */

static bool newer(const os_stat *a, const os_stat *b)
{
	return a->mtime_sec != b->mtime_sec ? a->mtime_sec > b->mtime_sec : a->mtime_nsec > b->mtime_nsec;
}

/* As make does: a task whose outputs are there and no older than what it reads (its file, its
 * VTA, the QC files of its project) does not run; one whose outputs are older replaces them.
 * A DMX that holds a $model runs always: the QC lines it gives come from reading it. */
static void plan_update(library *l)
{
	for (size_t i = 0; i < l->task_count; i++) {
		task *t = l->tasks[i];
		if (t->why_copy || (t->kind == TASK_DMX_TO_SMD && t->model != SMDMX_NONE)) {
			t->replace = true;
			continue;
		}
		os_stat out, in;
		if (!os_stat_path(t->dst, &out)) continue;
		t->replace = true;
		bool stale = !os_stat_path(t->src, &in) || newer(&in, &out);
		if (!stale && t->vta != SMDMX_NONE) stale = !os_stat_path(t->proj->qc->refs[t->vta].path, &in) || newer(&in, &out);
		if (!stale && t->kind == TASK_VTA_REBASE) {
			const smdmx_qc *qc = t->proj->qc;
			stale = !os_stat_path(qc->refs[qc->models[t->model].ref].path, &in) || newer(&in, &out);
		}
		for (size_t f = 0; !stale && t->kind != TASK_COPY && f < t->proj->qc->file_count; f++)
			stale = os_stat_path(t->proj->qc->files[f].path, &in) && newer(&in, &out);
		if (stale) continue;
		t->up_to_date = true;
		t->status = EXIT_OK;
		list_push(&t->written, &t->written_count, xstrdup(t->dst));
	}
}

/* ---- the QC's edits ------------------------------------------------------------------------- */

static bool edit_fail(project *p, const smdmx_error *e)
{
	diag_error(&p->diag, p->qcpath, e);
	return false;
}

static task *model_task(const project *p, uint32_t model)
{
	uint32_t ref = p->qc->models[model].ref;
	uint32_t ti = ref == SMDMX_NONE ? SMDMX_NONE : p->task_of[ref];
	return ti == SMDMX_NONE ? NULL : p->lib->tasks[ti];
}

static bool converted(const task *t)
{
	return t && (t->kind == TASK_SMD_TO_DMX || t->kind == TASK_DMX_TO_SMD || t->kind == TASK_VTA_REBASE) && t->status == EXIT_OK &&
	       !t->copied;
}

/* Names of the files converted, and the flex lines that moved into their DMXs. */
static bool edit_names(project *p)
{
	smdmx_qc *qc = p->qc;
	smdmx_error err;
	bool ok = true;
	for (size_t i = 0; i < qc->ref_count && ok; i++) {
		uint32_t ti = p->task_of[i];
		if (ti == SMDMX_NONE) continue;
		const task *t = p->lib->tasks[ti];
		if (!converted(t)) continue;
		/* a rebased VTA keeps its name unless it had to take another; its flexfile line goes */
		if (t->kind == TASK_VTA_REBASE && (!strcmp(t->dst, p->ref_out[i]) || !strcmp(qc->refs[i].command, "flexfile"))) continue;
		char *name = new_name(qc->refs[i].name, t->src, t->dst);
		ok = smdmx_qc_rename(qc, (uint32_t)i, name, &err) || edit_fail(p, &err);
		free(name);
	}
	if (!strcmp(p->lib->to, "dmx")) {
		for (size_t k = 0; k < qc->model_count && ok; k++) {
			const task *t = model_task(p, (uint32_t)k);
			const smdmx_qc_model *m = &qc->models[k];
			if (!converted(t) || t->kind != TASK_SMD_TO_DMX || t->model == SMDMX_NONE || !m->flex_count) continue;
			bool rig_dmx = p->lib->rig_dmx && !m->lost_lines;
			ok = smdmx_qc_remove_lines(qc, (uint32_t)k, SMDMX_QC_LINES_FLEX | (rig_dmx ? SMDMX_QC_LINES_RIG | SMDMX_QC_LINES_NOAUTODMXRULES : 0),
			                           &err) ||
			     edit_fail(p, &err);
			if (ok && !rig_dmx && !m->noautodmxrules)
				ok = smdmx_qc_append_to_model(qc, (uint32_t)k, "\tnoautodmxrules\n", &err) || edit_fail(p, &err);
		}
	}
	return ok;
}

/* DMX to SMD: the lines the DMXs held. */
static bool edit_lines(project *p)
{
	smdmx_qc *qc = p->qc;
	smdmx_error err;
	bool ok = true;
	for (size_t k = 0; k < qc->model_count && ok; k++) {
		const task *t = model_task(p, (uint32_t)k);
		if (!converted(t) || t->kind != TASK_DMX_TO_SMD || t->model == SMDMX_NONE) continue;
		const smdmx_qc_model *m = &qc->models[k];
		if (t->model_lines && *t->model_lines) {
			if (m->noautodmxrules) {
				/* The QC's own rig stays: only the shapes come out of the DMX. */
				char *lines = xstrdup(t->model_lines), *w = lines;
				for (char *s = lines; *s;) {
					char *e = strchr(s, '\n');
					size_t len = e ? (size_t)(e - s + 1) : strlen(s);
					if (!strncmp(s, "\tflexfile ", 10) || !strncmp(s, "\tflex ", 6) || !strncmp(s, "\tflexpair ", 10)) {
						memmove(w, s, len);
						w += len;
					}
					s += len;
				}
				*w = 0;
				ok = smdmx_qc_remove_lines(qc, (uint32_t)k, SMDMX_QC_LINES_NOAUTODMXRULES, &err) || edit_fail(p, &err);
				ok = ok && (smdmx_qc_append_to_model(qc, (uint32_t)k, lines, &err) || edit_fail(p, &err));
				free(lines);
			} else {
				ok = smdmx_qc_append_to_model(qc, (uint32_t)k, t->model_lines, &err) || edit_fail(p, &err);
			}
		}
		if (ok && t->att_lines && *t->att_lines)
			ok = smdmx_qc_insert_after_model(qc, (uint32_t)k, t->att_lines, &err) || edit_fail(p, &err);
	}
	return ok;
}

/* ---- the QC files -------------------------------------------------------------------------- */

typedef struct rendered {
	char *path;          /* the output */
	text_buf text;
	const project *by;
	uint32_t file;       /* of by's QC */
} rendered;

static bool render_fn(void *user, const void *data, size_t size)
{
	text_buf *b = user;
	for (size_t i = 0; i < size; i++) tb_putc(b, ((const char *)data)[i]);
	return true;
}

/* An existing file with exactly these bytes. */
static bool same_bytes(const char *path, const text_buf *b)
{
	FILE *f = os_fopen(path, "rb");
	if (!f) return false;
	bool same = true;
	size_t at = 0;
	char buf[65536];
	size_t n;
	while (same && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		same = at + n <= b->len && !memcmp(buf, b->text + at, n);
		at += n;
	}
	same = same && !ferror(f) && at == b->len;
	fclose(f);
	return same;
}

/* The project's QC and its includes as they are to be written, each file once in the
 * library: an include two projects share is written once when both need the same bytes, and
 * is an error of the later project when they do not (neither overwrites the other). Files
 * already rendered by an earlier project are left out of *mine. */
static bool render_qc_files(project *p, const rendered *done, size_t done_count, rendered **mine_out, size_t *mine_count)
{
	library *l = p->lib;
	const smdmx_qc *qc = p->qc;
	rendered *mine = calloc(qc->file_count + 1, sizeof(rendered));
	if (!mine) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	size_t n = 0;
	bool ok = true;
	for (size_t i = 0; i < qc->file_count; i++) {
		char *dst = out_path(l, qc->files[i].path);
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++) dup = !strcmp(mine[k].path, dst);
		const rendered *before = NULL;
		for (size_t k = 0; k < done_count && !before; k++)
			if (!strcmp(done[k].path, dst)) before = &done[k];
		if (dup) {
			free(dst);
			continue;
		}
		rendered r = { dst, { 0 }, p, (uint32_t)i };
		smdmx_error err;
		smdmx_qc_write(qc, (uint32_t)i, render_fn, &r.text, &err);
		if (before) {
			if (before->text.len != r.text.len || (r.text.len && memcmp(before->text.text, r.text.text, r.text.len))) {
				diag_add(&p->diag, NULL, qc->files[i].path, 0, 0, "error",
				         "%s needs it written otherwise than %s does (a file it names is converted another way): this project's QC files are not written",
				         p->qcpath, before->by->qcpath);
				ok = false;
			}
			free(r.path);
			free(r.text.text);
			continue;
		}
		mine[n++] = r;
	}
	*mine_out = mine;
	*mine_count = n;
	return ok;
}

/* The rendered files of a project into OUTDIR, all or none; they join done. */
static bool write_qc_files(project *p, rendered **done, size_t *done_count)
{
	library *l = p->lib;
	rendered *mine;
	size_t n;
	bool ok = render_qc_files(p, *done, *done_count, &mine, &n);
	outputs set = { 0 };
	set.force = l->o->force || l->o->update;
	char why[1024];
	for (size_t i = 0; i < n && ok; i++) {
		rendered *r = &mine[i];
		if (l->o->update && same_bytes(r->path, &r->text)) {
			l->qc_current++;
			list_push(&l->qc_written, &l->qc_written_count, xstrdup(r->path));
			continue;
		}
		char *ins[1] = { (char *)p->qc->files[r->file].path };
		output *o = output_allowed(r->path, ins, 1, set.force, why, sizeof(why)) && make_parent_dirs(r->path, why, sizeof(why))
		                ? outputs_open(&set, r->path, why, sizeof(why))
		                : NULL;
		if (!o) {
			diag_add(&p->diag, NULL, r->path, 0, 0, "error", "%s", why);
			ok = false;
		} else if (!output_write(o, r->text.text ? r->text.text : "", r->text.len)) {
			diag_add(&p->diag, NULL, r->path, 0, 0, "error", "cannot write: %s", os_error_text(o->errnum));
			ok = false;
		}
	}
	if (ok) ok = outputs_commit(&set, &l->qc_written, &l->qc_written_count, why, sizeof(why)) ||
	             (diag_add(&p->diag, NULL, p->qcpath, 0, 0, "error", "%s", why), false);
	else outputs_abort(&set);
	/* what was written stays, for the projects after */
	rendered *all = realloc(*done, (*done_count + n + 1) * sizeof(rendered));
	if (!all) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	*done = all;
	for (size_t i = 0; i < n; i++) {
		if (ok) {
			all[(*done_count)++] = mine[i];
		} else {
			free(mine[i].path);
			free(mine[i].text.text);
		}
	}
	free(mine);
	return ok;
}

/* What the library holds, its projects' too (not the projects' array itself). */
static void library_free(library *lib)
{
	for (size_t i = 0; i < lib->task_count; i++) task_free(lib->tasks[i]);
	free(lib->tasks);
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		project *p = &lib->projects[pi];
		for (size_t i = 0; i < p->task_count; i++) task_free(p->tasks[i]);
		free(p->tasks);
		free(p->task_of);
		if (p->ref_out)
			for (size_t i = 0; i < p->qc->ref_count; i++) free(p->ref_out[i]);
		free(p->ref_out);
		free(p->vta_consumed);
		diag_free(&p->diag);
		smdmx_qc_free(p->qc);
	}
	for (size_t k = 0; k < lib->qc_written_count; k++) free(lib->qc_written[k]);
	free(lib->qc_written);
	for (size_t i = 0; i < lib->missing_count; i++) free(lib->missing[i]);
	free(lib->missing);
	for (size_t i = 0; i < lib->consumed_count; i++) free(lib->consumed[i]);
	free(lib->consumed);
	str_map_free(&lib->keys);
	str_map_free(&lib->outs);
	str_map_free(&lib->seen);
	free(lib->root);
	free(lib->outdir);
	if (lib->lock) os_mutex_destroy(lib->lock);
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
		if (e[0] != '.') list_push(&names, &n, xstrdup(e)); /* hidden files and our temporary files */
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
		} else if (ext_is(names[i], "qc") && os_stat_path(path, &st) && st.kind == OS_REGULAR) {
			list_push(list, count, path);
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
	if (str_get(seen, path) != SMDMX_NONE) return;
	str_set(seen, path, 0);
	tb_putc(t, ' ');
	tb_dep_path(t, path);
}

static int parse_jobs(const char *v, unsigned *out)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (*end || n < 1 || n > 256) return usage("-j wants a number of jobs from 1 to 256, not '%s'", v);
	*out = (unsigned)n;
	return EXIT_OK;
}

/* What `smdmx qc` was told besides conv_opts: the format, the rig's place, the target and the
 * paths given (QCs or, with -r, directories). */
typedef struct qc_command {
	const char *to, *rig, *target;
	char **args;
	size_t arg_count;
	bool help;
} qc_command;

/* The options and arguments of `smdmx qc` into o and c; EXIT_USAGE (said) when they do not
 * make a command. */
static int qc_options(int argc, char **argv, conv_opts *o, qc_command *c)
{
	c->rig = "qc";
	int rc = EXIT_OK;
	for (int i = 0; i < argc && rc == EXIT_OK; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			c->help = true;
			return EXIT_OK;
		}
		bool takes = !strcmp(a, "--to") || !strcmp(a, "-d") || !strcmp(a, "--rig") || !strcmp(a, "-j") || !strcmp(a, "--jobs") || !strcmp(a, "--threads") ||
		             !strcmp(a, "--depfile") || !strcmp(a, "--max-warnings") || !strcmp(a, "--target") || !strcmp(a, "--encoding") ||
		             !strcmp(a, "--encoding-version") || !strcmp(a, "--model-version") || !strcmp(a, "-W");
		if (takes && !v) rc = usage("'%s' needs a value", a);
		else if (!strcmp(a, "--to")) c->to = argv[++i];
		else if (!strcmp(a, "-d")) o->outdir = argv[++i];
		else if (!strcmp(a, "--rig")) c->rig = argv[++i];
		else if (!strcmp(a, "--threads")) {
			char *end;
			long n = strtol(argv[++i], &end, 10);
			if (*end || n < 1 || n > 256) rc = usage("--threads wants a number from 1 to 256, not '%s'", argv[i]);
			else o->threads = (unsigned)n;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) rc = parse_jobs(argv[++i], &o->jobs);
		else if (!strncmp(a, "-j", 2) && a[2]) rc = parse_jobs(a + 2, &o->jobs);
		else if (!strcmp(a, "-k") || !strcmp(a, "--keep-going")) o->keep_going = true;
		else if (!strcmp(a, "-f") || !strcmp(a, "--force")) o->force = true;
		else if (!strcmp(a, "-u") || !strcmp(a, "--update")) o->update = true;
		else if (!strcmp(a, "-r") || !strcmp(a, "--recursive")) o->recursive = true;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o->quiet = true;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) o->verbose = true;
		else if (!strcmp(a, "-Werror")) o->werror = true;
		else if (!strcmp(a, "-W")) {
			if (strcmp(argv[++i], "error")) rc = usage("-W takes 'error', not '%s'", argv[i]);
			o->werror = true;
		} else if (!strcmp(a, "--depfile")) o->depfile = argv[++i];
		else if (!strcmp(a, "--max-warnings")) {
			char *end;
			long n = strtol(argv[++i], &end, 10);
			if (*end || n < 0) rc = usage("--max-warnings wants a count, not '%s'", argv[i]);
			else o->max_warnings = (size_t)n;
		} else if (!strcmp(a, "--target")) c->target = argv[++i];
		else if (!strcmp(a, "--encoding")) {
			o->dopts.encoding = argv[++i];
			if (strcmp(o->dopts.encoding, "keyvalues2") && strcmp(o->dopts.encoding, "keyvalues2_flat") && strcmp(o->dopts.encoding, "binary"))
				rc = usage("--encoding is keyvalues2, keyvalues2_flat or binary, not '%s'", o->dopts.encoding);
		} else if (!strcmp(a, "--encoding-version")) o->dopts.encoding_version = atoi(argv[++i]);
		else if (!strcmp(a, "--model-version")) {
			int mv = atoi(argv[++i]);
			if (mv != 1 && mv != 15 && mv != 18 && mv != 22) rc = usage("--model-version is 1, 15, 18 or 22, not '%s'", argv[i]);
			o->mopts.model_version = mv;
		} else if (!strcmp(a, "--lf")) o->wopts.lf_line_ends = true;
		else if (a[0] == '-' && a[1]) rc = usage("unknown option '%s'", a);
		else {
			char **n = realloc(c->args, (c->arg_count + 1) * sizeof(char *));
			if (!n) {
				fputs("smdmx: error: out of memory\n", stderr);
				exit(EXIT_FAILED);
			}
			c->args = n;
			c->args[c->arg_count++] = argv[i];
		}
	}
	if (rc == EXIT_OK) {
		if (!c->arg_count) rc = usage("%s", o->recursive ? "-r needs a directory" : "qc needs a QC file");
		else if (!c->to || (strcasecmp(c->to, "dmx") && strcasecmp(c->to, "smd"))) rc = usage("%s", "--to is dmx or smd");
		else if (!o->outdir) rc = usage("%s", "-d OUTDIR is required: the project is written there");
		else if (strcmp(c->rig, "qc") && strcmp(c->rig, "dmx")) rc = usage("--rig is qc or dmx, not '%s'", c->rig);
		else if (!strcmp(c->rig, "dmx") && strcasecmp(c->to, "dmx")) rc = usage("%s", "--rig dmx applies to --to dmx");
	}
	if (rc == EXIT_OK && c->target) {
		const engine_target *t = engine_target_find(c->target, false);
		if (!t) return usage("unknown --target '%s' (%s)", c->target, engine_target_names(false));
		if (!o->dopts.encoding) o->dopts.encoding = "binary";
		if (!o->dopts.encoding_version) o->dopts.encoding_version = t->encoding;
		if (!o->mopts.model_version) o->mopts.model_version = t->model;
	}
	return rc;
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
				list_push(dirs, dir_count, xstrdup(args[i]));
			}
		} else {
			list_push(qcs, qc_count, xstrdup(args[i]));
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
		bool again = str_get(&seen, a) != SMDMX_NONE;
		str_set(&seen, a, 0);
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
		for (size_t k = 0; k < p->qc->missing_include_count; k++) add_missing(lib, p->qc->missing_includes[k]);
		lib->project_count++;
	}
	str_map_free(&seen);
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
	if (workers > 64) workers = 64;
	unsigned cores = os_cpu_count();
	o->ropts.threads = o->threads ? o->threads : (cores / workers ? cores / workers : 1);
	o->xopts.threads = o->wopts.threads = o->dopts.threads = o->ropts.threads;
	lib->lock = os_mutex_create();
	if (!lib->lock) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	os_thread *th[64];
	unsigned started = 0;
	for (unsigned i = 1; i < workers; i++)
		if ((th[started] = os_thread_start(worker, lib))) started++;
	worker(lib);
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
		bool edited = edit_names(p) && edit_lines(p);
		p->failed = !(write_qc_files(p, &done, &done_count) && edited);
		ok = ok && !p->failed;
	}
	for (size_t i = 0; i < done_count; i++) {
		free(done[i].path);
		free(done[i].text.text);
	}
	free(done);
	return ok;
}

/* The messages (each QC's, then each file's, in the order planned) and the summary line. */
static void report(const library *lib, size_t unread, size_t failed, size_t converted_n, size_t copied, size_t current,
                   int rc)
{
	const conv_opts *o = lib->o;
	size_t qc_errors = 0;
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		fputs(lib->projects[pi].diag.text ? lib->projects[pi].diag.text : "", stderr);
		qc_errors += lib->projects[pi].qc_errors;
	}
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
	size_t qc_written = lib->qc_written_count - lib->qc_current;
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
	for (size_t k = 0; k < lib->qc_written_count; k++) {
		if (!first) tb_putc(&t, ' ');
		tb_dep_path(&t, lib->qc_written[k]);
		first = false;
	}
	tb_putc(&t, ':');
	str_map ins = { 0 };
	for (size_t pi = 0; pi < lib->project_count; pi++)
		for (size_t i = 0; i < lib->projects[pi].qc->file_count; i++) dep_input(&t, &ins, lib->projects[pi].qc->files[i].path);
	for (size_t i = 0; i < lib->task_count; i++) dep_input(&t, &ins, lib->tasks[i]->src);
	for (size_t i = 0; i < lib->consumed_count; i++) dep_input(&t, &ins, lib->consumed[i]);
	str_map_free(&ins);
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
	if (rc == EXIT_OK) {
		for (size_t pi = 0; pi < lib.project_count; pi++) {
			project *p = &lib.projects[pi];
			p->ok = plan(p) && p->ok;
			ok = ok && p->ok;
			count_missing(&lib, p);
			join(&lib, p);
		}
		if (o.update) plan_update(&lib);
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
	if (rc == EXIT_OK && (!ok || failed)) rc = EXIT_FAILED;
	report(&lib, unread, failed, converted_n, copied, current, rc);
	if (o.depfile && rc == EXIT_OK) rc = write_qc_depfile(&lib);
	library_free(&lib);
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

int qc_check(const char *path)
{
	smdmx_error err;
	smdmx_warnings w;
	smdmx_qc *qc = smdmx_qc_read_file(path, NULL, &err, &w);
	diag_buf d = { 0 };
	diag_warnings(&d, NULL, path, &w);
	bool ok = qc != NULL;
	if (!qc) diag_error(&d, path, &err);
	for (size_t i = 0; ok && i < qc->ref_count; i++) {
		const smdmx_qc_ref *r = &qc->refs[i];
		if (r->found) continue;
		const char *where = r->pos.file ? qc->files[r->pos.file].path : path;
		diag_add(&d, NULL, where, r->pos.line, r->pos.column, r->kind == SMDMX_QC_REF_OTHER ? "warning" : "error",
		         "cannot find '%s' (named by %s)", r->path, r->command);
	}
	/* The rules of a DMX model, against what studiomdl makes of the DMX. */
	for (size_t mi = 0; qc && mi < qc->model_count; mi++) {
		const smdmx_qc_model *m = &qc->models[mi];
		const smdmx_qc_ref *r = &qc->refs[m->ref];
		if (!r->found || strcasecmp(path_extension(r->path), "dmx") || !m->rule_count) continue;
		smdmx_dm *dm = smdmx_dmx_read_file(r->path, NULL, &err, NULL);
		smdmx_scene *s = dm ? smdmx_model_to_scene(dm, NULL, &err, NULL) : NULL;
		smdmx_dm_free(dm);
		if (!s) {
			diag_error(&d, r->path, &err);
			continue;
		}
		size_t nf = 0, nc = 0;
		char **flexes = calloc(3 * s->flex_shape_count + 1, sizeof(char *));
		char **ctls = calloc(3 * s->flex_controller_count + 1, sizeof(char *));
		for (size_t i = 0; flexes && i < s->flex_shape_count; i++) {
			flexes[nf++] = xstrdup(s->flex_shapes[i].name);
			flexes[nf++] = xasprintf("%sL", s->flex_shapes[i].name);
			flexes[nf++] = xasprintf("%sR", s->flex_shapes[i].name);
		}
		for (size_t i = 0; ctls && !m->noautodmxrules && i < s->flex_controller_count; i++) {
			const smdmx_flex_controller *c = &s->flex_controllers[i];
			if (c->stereo && !s->flex_rule_count) {
				ctls[nc++] = xasprintf("right_%s", c->name);
				ctls[nc++] = xasprintf("left_%s", c->name);
			} else {
				ctls[nc++] = xstrdup(c->name);
			}
		}
		if (flexes && ctls && !smdmx_qc_check_rules(qc, (uint32_t)mi, (const char *const *)flexes, nf, (const char *const *)ctls, nc, &err))
			diag_error(&d, path, &err);
		for (size_t i = 0; i < nf; i++) free(flexes[i]);
		for (size_t i = 0; i < nc; i++) free(ctls[i]);
		free(flexes);
		free(ctls);
		smdmx_scene_free(s);
	}
	fputs(d.text ? d.text : "", stderr);
	size_t errors = d.errors;
	diag_free(&d);
	smdmx_qc_free(qc);
	return errors ? EXIT_FAILED : EXIT_OK;
}
