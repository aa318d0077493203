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

typedef enum task_kind {
	TASK_COPY = 0,
	TASK_SMD_TO_DMX,
	TASK_DMX_TO_SMD,
	TASK_VTA_REBASE   /* a VTA eyelid lines read, its frame 0 made the DMX's base (defaultflex) */
} task_kind;

typedef struct task {
	task_kind kind;
	char *src, *dst;
	uint32_t ref;        /* the first reference naming it */
	uint32_t model;      /* a $model whose file it is (rig and shapes), else SMDMX_NONE */
	uint32_t vta;        /* that $model's flexfile (SMD to DMX) */
	double fps;
	bool reference;      /* DMX to SMD: write a reference (a $model, $body, ... file) */
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

typedef struct project {
	const conv_opts *o;
	const char *to;      /* "dmx" or "smd" */
	bool rig_dmx;
	smdmx_qc *qc;
	const char *qcpath;
	char *root;          /* absolute, ending in '/' */
	char *outdir;        /* absolute, ending in '/' */
	task *tasks;
	size_t task_count;
	char **consumed;     /* VTAs that went into DMXs: inputs for --depfile */
	size_t consumed_count;
	bool *vta_consumed;  /* per reference: a flexfile VTA that goes into its model's DMX */
	uint32_t *task_of;   /* per reference: its task, or SMDMX_NONE */
	char **ref_out;      /* per reference found: its place below OUTDIR, unconverted */
	diag_buf diag;       /* the QC's own messages */
	size_t missing;      /* files named that are not there */
	size_t qc_errors;    /* lines of the QC that could not be read (-k) */
	os_mutex *lock;
	size_t next;
	bool stop;
} project;

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
static char *out_path(const project *p, const char *path)
{
	char *a = path_absolute(path);
	char *out = xasprintf("%s%s", p->outdir, a + strlen(p->root));
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

static output *task_open(project *p, task *t, const char *path)
{
	char why[1024];
	char *ins[2] = { t->src, (char *)p->qcpath };
	if (!output_allowed(path, ins, 2, p->o->force, why, sizeof(why)) || !make_parent_dirs(path, why, sizeof(why))) {
		diag_add(&t->diag, NULL, path, 0, 0, "error", "%s", why);
		return NULL;
	}
	output *out = outputs_open(&t->outs, path, why, sizeof(why));
	if (!out) diag_add(&t->diag, NULL, path, 0, 0, "error", "%s", why);
	return out;
}

static bool task_write_dmx(project *p, task *t, const smdmx_scene *s)
{
	smdmx_error err;
	smdmx_warnings w;
	smdmx_dm *dm = smdmx_model_from_scene(s, &p->o->mopts, &err, &w);
	diag_warnings(&t->diag, p->o, t->src, &w);
	if (!dm) return task_fail(t, t->src, &err);
	output *out = task_open(p, t, t->dst);
	bool ok = out && (smdmx_dmx_write(dm, output_write, out, &p->o->dopts, &err) || task_fail(t, t->dst, &err));
	smdmx_dm_free(dm);
	return ok;
}

static bool task_write_smd(project *p, task *t, const smdmx_scene *s, const char *path, smdmx_smd_write_kind kind)
{
	smdmx_smd_write_options wo = p->o->wopts;
	wo.kind = kind;
	smdmx_error err;
	output *out = task_open(p, t, path);
	return out && (smdmx_smd_write(s, output_write, out, &wo, &err) || task_fail(t, path, &err));
}

static smdmx_scene *task_read_smd(project *p, task *t, const char *path, double fps)
{
	smdmx_smd_read_options ro = p->o->ropts;
	if (fps > 0) ro.frame_rate = fps;
	smdmx_error err;
	smdmx_warnings w;
	smdmx_scene *s = smdmx_smd_read_file(path, &ro, &err, &w);
	diag_warnings(&t->diag, p->o, path, &w);
	if (!s) task_fail(t, path, &err);
	return s;
}

/* An SMD (and the $model's flexfile) into DMX. */
static bool run_smd_to_dmx(project *p, task *t)
{
	smdmx_error err;
	smdmx_warnings w;
	smdmx_scene *s = task_read_smd(p, t, t->src, t->fps);
	bool ok = s != NULL;
	if (ok && t->model != SMDMX_NONE && t->vta != SMDMX_NONE) {
		const char *vpath = p->qc->refs[t->vta].path;
		smdmx_scene *flex = task_read_smd(p, t, vpath, 0);
		ok = flex && (smdmx_scene_attach_vta(s, flex, &err, &w) || task_fail(t, vpath, &err));
		if (flex) diag_warnings(&t->diag, p->o, vpath, &w);
		smdmx_scene_free(flex);
	}
	if (ok && t->model != SMDMX_NONE && t->vta != SMDMX_NONE) {
		/* a block that lost a line keeps its rig in the QC, where that line stays */
		smdmx_qc_rig_options ro = { .rig_in_qc = !p->rig_dmx || p->qc->models[t->model].lost_lines };
		ok = smdmx_qc_apply_rig(p->qc, t->model, s, &ro, &err, &w);
		diag_warnings(&t->diag, p->o, p->qcpath, &w);
		if (!ok) task_fail(t, p->qcpath, &err);
	}
	ok = ok && task_write_dmx(p, t, s);
	smdmx_scene_free(s);
	return ok;
}

/* A VTA eyelid lines read, written again with its frame 0 the $model's base after its
 * defaultflex frame (studiomdl puts that frame into the model and into the VTA's frame 0):
 * the DMX's base, so that the eyelids meet it. */
static bool run_vta_rebase(project *p, task *t)
{
	smdmx_error err;
	smdmx_warnings w;
	const smdmx_qc_model *m = &p->qc->models[t->model];
	const char *ref = p->qc->refs[m->ref].path;
	/* the reference's warnings are its own task's */
	smdmx_scene *s = smdmx_smd_read_file(ref, &p->o->ropts, &err, NULL);
	if (!s) task_fail(t, ref, &err);
	smdmx_scene *flex = s ? task_read_smd(p, t, t->src, 0) : NULL;
	bool ok = flex && (smdmx_scene_attach_vta(s, flex, &err, &w) || task_fail(t, t->src, &err));
	smdmx_scene_free(flex);
	if (ok) ok = smdmx_qc_apply_defaultflex(p->qc, t->model, s, &err) || task_fail(t, p->qcpath, &err);
	if (ok) {
		/* frames keep their numbers */
		s->source.format = SMDMX_SOURCE_VTA;
		ok = task_write_smd(p, t, s, t->dst, SMDMX_SMD_WRITE_VTA);
	}
	smdmx_scene_free(s);
	return ok;
}

/* A DMX into SMD (and a VTA for its shapes), with the QC lines for what SMD cannot hold. */
static bool run_dmx_to_smd(project *p, task *t)
{
	smdmx_error err;
	smdmx_warnings w;
	smdmx_dm *dm = smdmx_dmx_read_file(t->src, &p->o->xopts, &err, &w);
	diag_warnings(&t->diag, p->o, t->src, &w);
	if (!dm) return task_fail(t, t->src, &err);
	smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, &w);
	smdmx_dm_free(dm);
	diag_warnings(&t->diag, p->o, t->src, &w);
	if (!s) return task_fail(t, t->src, &err);
	bool ok = true;
	bool reference = t->reference && s->mesh_count;
	if (reference && s->flex_shape_count) t->has_vta = true;
	if (t->model != SMDMX_NONE) {
		char *vta_rel = NULL;
		if (t->has_vta) {
			char *qcout = out_path(p, p->qc->files[p->qc->models[t->model].pos.file].path);
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
		diag_warnings(&t->diag, p->o, t->src, &w);
		if (!ok) task_fail(t, t->src, &err);
	}
	if (ok) {
		smdmx_warnings losses;
		memset(&losses, 0, sizeof(losses));
		smdmx_smd_report_losses(s, &p->o->wopts, true, &losses);
		size_t k = 0;
		for (size_t i = 0; i < losses.count; i++) {
			smdmx_warning_code c = losses.data[i].code;
			bool carried = t->model != SMDMX_NONE &&
			               (c == SMDMX_WARNING_DROPPED_BALANCE || c == SMDMX_WARNING_DROPPED_ATTACHMENTS ||
			                c == SMDMX_WARNING_DROPPED_CONTROLLERS || c == SMDMX_WARNING_DROPPED_RULES);
			if (c == SMDMX_WARNING_DROPPED_SHAPES && reference) carried = true;
			/* the QC's $upaxis and $sequence fps say what SMD cannot */
			if (c == SMDMX_WARNING_UP_AXIS && p->qc->up_axis == s->up_axis) carried = true;
			if (c == SMDMX_WARNING_FRAME_RATE) {
				bool all = true;
				for (size_t k2 = 0; k2 < s->clip_count; k2++) all = all && s->clips[k2].frame_rate == (t->fps > 0 ? t->fps : 30);
				carried = all;
			}
			if (!carried) losses.data[k++] = losses.data[i];
		}
		losses.count = k;
		diag_warnings(&t->diag, p->o, t->src, &losses);
	}
	ok = ok && task_write_smd(p, t, s, t->dst, reference ? SMDMX_SMD_WRITE_REFERENCE : s->clip_count ? SMDMX_SMD_WRITE_ANIMATION
	                                                                                                  : SMDMX_SMD_WRITE_REFERENCE);
	if (ok && t->has_vta) ok = task_write_smd(p, t, s, t->vta_dst, SMDMX_SMD_WRITE_VTA);
	smdmx_scene_free(s);
	return ok;
}

/* src copied, byte for byte, to dst. */
static bool copy_file(project *p, task *t, const char *src, const char *dst)
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
		diag_add(&t->diag, NULL, src, 0, 0, "error", "cannot read: %s", strerror(errno));
		free(data);
		return false;
	}
	output *out = task_open(p, t, dst);
	ok = out && (output_write(out, data ? data : "", size) ||
	             (diag_add(&t->diag, NULL, dst, 0, 0, "error", "cannot write: %s", strerror(out->errnum)), false));
	free(data);
	return ok;
}

static bool run_copy(project *p, task *t)
{
	return copy_file(p, t, t->src, t->dst);
}

/* -k: a model file that failed to convert is copied unchanged to its place below OUTDIR, with
 * the VTA its DMX would have taken, so that the QC, which keeps naming them, stays whole. */
static bool copy_instead(project *p, task *t)
{
	outputs_abort(&t->outs);
	const char *dst = p->ref_out[t->ref];
	bool ok = copy_file(p, t, t->src, dst);
	const char *vta = t->kind == TASK_SMD_TO_DMX && t->vta != SMDMX_NONE && p->vta_consumed[t->vta] ? p->qc->refs[t->vta].path : NULL;
	if (ok && vta) ok = copy_file(p, t, vta, p->ref_out[t->vta]);
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
	project *p = arg;
	for (;;) {
		os_mutex_lock(p->lock);
		size_t i = p->next < p->task_count && !p->stop ? p->next++ : SIZE_MAX;
		os_mutex_unlock(p->lock);
		if (i == SIZE_MAX) return;
		task *t = &p->tasks[i];
		t->outs.force = p->o->force;
		if (t->why_copy) diag_add(&t->diag, NULL, t->src, 0, 0, "note", "not converted: %s; copied unchanged", t->why_copy);
		bool ok = t->kind == TASK_COPY         ? run_copy(p, t)
		        : t->kind == TASK_SMD_TO_DMX   ? run_smd_to_dmx(p, t)
		        : t->kind == TASK_VTA_REBASE   ? run_vta_rebase(p, t)
		                                       : run_dmx_to_smd(p, t);
		if (ok && p->o->werror && t->diag.warnings) {
			diag_add(&t->diag, NULL, t->src, 0, 0, "error", "warnings are errors (-W error)");
			ok = false;
		}
		char why[1024];
		if (ok) ok = outputs_commit(&t->outs, &t->written, &t->written_count, why, sizeof(why)) ||
		             (diag_add(&t->diag, NULL, t->dst, 0, 0, "error", "%s", why), false);
		else outputs_abort(&t->outs);
		t->status = ok ? EXIT_OK : EXIT_FAILED;
		if (!ok && p->o->keep_going && t->kind != TASK_COPY) t->copied = copy_instead(p, t);
		if (!ok && !p->o->keep_going) {
			os_mutex_lock(p->lock);
			p->stop = true;
			os_mutex_unlock(p->lock);
		}
	}
}

/* ---- planning ------------------------------------------------------------------------------ */

static task *add_task(project *p, task_kind kind, const char *src, char *dst, uint32_t ref)
{
	task *t = &p->tasks[p->task_count++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->src = xstrdup(src);
	t->dst = dst;
	t->ref = ref;
	t->model = SMDMX_NONE;
	t->vta = SMDMX_NONE;
	t->status = -1;
	return t;
}

static bool ext_is(const char *path, const char *ext)
{
	return !strcasecmp(path_extension(path), ext);
}

/* The same file already has a task. */
static uint32_t task_for(const project *p, const char *src)
{
	for (size_t i = 0; i < p->task_count; i++)
		if (!strcmp(p->tasks[i].src, src)) return (uint32_t)i;
	return SMDMX_NONE;
}

/* dst made unique among the tasks' outputs: "x.smd" taken becomes "x_dmx.smd". */
static char *unique_dst(const project *p, char *dst, const char *src)
{
	for (int round = 0; round < 2; round++) {
		bool clash = false;
		for (size_t i = 0; i < p->task_count && !clash; i++)
			clash = (p->tasks[i].dst && !strcmp(p->tasks[i].dst, dst)) || (p->tasks[i].vta_dst && !strcmp(p->tasks[i].vta_dst, dst));
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
	smdmx_qc *qc = p->qc;
	p->tasks = calloc(qc->ref_count + 1, sizeof(task));
	p->task_of = calloc(qc->ref_count + 1, sizeof(uint32_t));
	p->ref_out = calloc(qc->ref_count + 1, sizeof(char *));
	p->vta_consumed = calloc(qc->ref_count + 1, sizeof(bool));
	if (!p->tasks || !p->task_of || !p->ref_out || !p->vta_consumed) {
		diag_add(&p->diag, NULL, p->qcpath, 0, 0, "error", "out of memory");
		return false;
	}
	for (size_t i = 0; i < qc->ref_count; i++)
		if (qc->refs[i].found) p->ref_out[i] = out_path(p, qc->refs[i].path);
	bool to_dmx = !strcmp(p->to, "dmx");
	bool ok = true;
	for (size_t i = 0; i < qc->ref_count; i++) {
		const smdmx_qc_ref *r = &qc->refs[i];
		p->task_of[i] = SMDMX_NONE;
		const char *where = r->pos.file ? qc->files[r->pos.file].path : p->qcpath;
		if (!r->found) {
			if (r->kind == SMDMX_QC_REF_OTHER) {
				diag_add(&p->diag, p->o, where, r->pos.line, r->pos.column, "warning", "cannot find '%s' (named by %s): not copied",
				         r->path, r->command);
			} else {
				diag_add(&p->diag, NULL, where, r->pos.line, r->pos.column, "error", "cannot find '%s' (named by %s)%s", r->path,
				         r->command, p->o->keep_going ? ": the QC keeps naming it" : "");
				bool again = false;
				for (size_t k = 0; k < i && !again; k++) again = !qc->refs[k].found && !strcmp(qc->refs[k].path, r->path);
				if (!again) p->missing++;
				ok = false;
			}
			continue;
		}
		uint32_t existing = task_for(p, r->path);
		if (existing != SMDMX_NONE) {
			p->task_of[i] = existing;
			task *t = &p->tasks[existing];
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
	 * lost a line or an include, or whose VTA is missing, cannot carry its shapes: with -k it
	 * is copied as it is, and its lines stay. */
	for (size_t ti = 0; ti < p->task_count; ti++) {
		task *t = &p->tasks[ti];
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
		task *t = &p->tasks[p->task_of[i]];
		if (t->kind != TASK_COPY) continue;
		bool flexfile_only = true, converted_model = false;
		uint32_t model = SMDMX_NONE;
		for (size_t k = 0; k < qc->ref_count; k++) {
			if (qc->refs[k].kind != SMDMX_QC_REF_FLEX || p->task_of[k] != p->task_of[i]) continue;
			if (strcmp(qc->refs[k].command, "flexfile") && strcmp(qc->refs[k].command, "flex")) flexfile_only = false;
			else model = qc->refs[k].model;
		}
		if (model != SMDMX_NONE) {
			uint32_t mt = p->task_of[qc->models[model].ref];
			converted_model = mt != SMDMX_NONE && p->tasks[mt].kind == TASK_SMD_TO_DMX;
		}
		if (converted_model && flexfile_only) {
			t->kind = (task_kind)-1; /* consumed */
			for (size_t k = 0; k < qc->ref_count; k++)
				if (p->task_of[k] == p->task_of[i]) p->vta_consumed[k] = true;
		}
		else if (converted_model) {
			const smdmx_qc_model *m = &qc->models[model];
			bool moved = false;
			for (size_t f = 0; f < m->flex_count; f++) moved = moved || (m->flexes[f].kind == SMDMX_QC_DEFAULTFLEX && m->flexes[f].frame != 0);
			if (moved) {
				t->kind = TASK_VTA_REBASE;
				t->model = model;
			}
		}
	}
	/* Drop consumed tasks (their references keep pointing nowhere). */
	size_t k = 0;
	uint32_t *map = calloc(p->task_count + 1, sizeof(uint32_t));
	if (!map) {
		diag_add(&p->diag, NULL, p->qcpath, 0, 0, "error", "out of memory");
		return false;
	}
	for (size_t i = 0; i < p->task_count; i++) {
		if (p->tasks[i].kind == (task_kind)-1) {
			map[i] = SMDMX_NONE;
			char **c = realloc(p->consumed, (p->consumed_count + 1) * sizeof(char *));
			if (c) {
				p->consumed = c;
				p->consumed[p->consumed_count++] = xstrdup(p->tasks[i].src);
			}
			free(p->tasks[i].src);
			free(p->tasks[i].dst);
			continue;
		}
		map[i] = (uint32_t)k;
		p->tasks[k++] = p->tasks[i];
	}
	p->task_count = k;
	for (size_t i = 0; i < qc->ref_count; i++)
		if (p->task_of[i] != SMDMX_NONE) p->task_of[i] = map[p->task_of[i]];
	free(map);
	return ok;
}

/* ---- the QC's edits ------------------------------------------------------------------------- */

static bool edit_fail(project *p, const smdmx_error *e)
{
	diag_error(&p->diag, p->qcpath, e);
	return false;
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
		const task *t = &p->tasks[ti];
		if ((t->kind != TASK_SMD_TO_DMX && t->kind != TASK_DMX_TO_SMD) || t->status != EXIT_OK) continue;
		char *name = new_name(qc->refs[i].name, t->src, t->dst);
		ok = smdmx_qc_rename(qc, (uint32_t)i, name, &err) || edit_fail(p, &err);
		free(name);
	}
	if (!strcmp(p->to, "dmx")) {
		for (size_t ti = 0; ti < p->task_count && ok; ti++) {
			const task *t = &p->tasks[ti];
			if (t->kind != TASK_SMD_TO_DMX || t->model == SMDMX_NONE || t->status != EXIT_OK) continue;
			const smdmx_qc_model *m = &qc->models[t->model];
			if (!m->flex_count) continue;
			bool rig_dmx = p->rig_dmx && !m->lost_lines;
			ok = smdmx_qc_remove_lines(qc, t->model, SMDMX_QC_LINES_FLEX | (rig_dmx ? SMDMX_QC_LINES_RIG | SMDMX_QC_LINES_NOAUTODMXRULES : 0),
			                           &err) ||
			     edit_fail(p, &err);
			if (ok && !rig_dmx && !m->noautodmxrules)
				ok = smdmx_qc_append_to_model(qc, t->model, "\tnoautodmxrules\n", &err) || edit_fail(p, &err);
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
	for (size_t ti = 0; ti < p->task_count && ok; ti++) {
		const task *t = &p->tasks[ti];
		if (t->kind != TASK_DMX_TO_SMD || t->model == SMDMX_NONE || t->status != EXIT_OK) continue;
		const smdmx_qc_model *m = &qc->models[t->model];
		if (t->model_lines && *t->model_lines) {
			if (m->noautodmxrules) {
				/* The QC's own rig stays: only the shapes come out of the DMX. */
				char *lines = xstrdup(t->model_lines), *w = lines;
				for (char *l = lines; *l;) {
					char *e = strchr(l, '\n');
					size_t len = e ? (size_t)(e - l + 1) : strlen(l);
					if (!strncmp(l, "\tflexfile ", 10) || !strncmp(l, "\tflex ", 6) || !strncmp(l, "\tflexpair ", 10)) {
						memmove(w, l, len);
						w += len;
					}
					l += len;
				}
				*w = 0;
				ok = smdmx_qc_remove_lines(qc, t->model, SMDMX_QC_LINES_NOAUTODMXRULES, &err) || edit_fail(p, &err);
				ok = ok && (smdmx_qc_append_to_model(qc, t->model, lines, &err) || edit_fail(p, &err));
				free(lines);
			} else {
				ok = smdmx_qc_append_to_model(qc, t->model, t->model_lines, &err) || edit_fail(p, &err);
			}
		}
		if (ok && t->att_lines && *t->att_lines)
			ok = smdmx_qc_insert_after_model(qc, t->model, t->att_lines, &err) || edit_fail(p, &err);
	}
	return ok;
}

typedef struct qc_out {
	output *out;
} qc_out;

static bool qc_write_fn(void *user, const void *data, size_t size)
{
	return output_write(((qc_out *)user)->out, data, size);
}

/* The QC and its includes into OUTDIR. */
static bool write_qc_files(project *p, char ***written, size_t *written_count)
{
	outputs set = { 0 };
	set.force = p->o->force;
	bool ok = true;
	char why[1024];
	for (size_t i = 0; i < p->qc->file_count && ok; i++) {
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++) dup = !strcmp(p->qc->files[k].path, p->qc->files[i].path);
		if (dup) continue;
		char *dst = out_path(p, p->qc->files[i].path);
		char *ins[1] = { (char *)p->qc->files[i].path };
		output *o = output_allowed(dst, ins, 1, p->o->force, why, sizeof(why)) && make_parent_dirs(dst, why, sizeof(why))
		                ? outputs_open(&set, dst, why, sizeof(why))
		                : NULL;
		if (!o) {
			diag_add(&p->diag, NULL, dst, 0, 0, "error", "%s", why);
			ok = false;
		} else {
			qc_out qo = { o };
			smdmx_error err;
			if (!smdmx_qc_write(p->qc, (uint32_t)i, qc_write_fn, &qo, &err)) {
				diag_add(&p->diag, NULL, dst, 0, 0, "error", "cannot write: %s", strerror(o->errnum));
				ok = false;
			}
		}
		free(dst);
	}
	if (ok) ok = outputs_commit(&set, written, written_count, why, sizeof(why)) || (diag_add(&p->diag, NULL, p->qcpath, 0, 0, "error", "%s", why), false);
	else outputs_abort(&set);
	return ok;
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
    "usage: smdmx qc IN.qc --to dmx|smd -d OUTDIR [options]\n"
    "Converts a QC project: every file the QC and its includes name goes into OUTDIR at its place\n"
    "below the project's folder, converted (SMD, VTA to DMX, or DMX to SMD and VTA) or copied, and\n"
    "the QC and its includes are written there changed only where the conversion needs it.\n\n"
    "  --to dmx|smd           the format the models end in\n"
    "  -d OUTDIR              where the project goes (required)\n"
    "  --rig qc|dmx           --to dmx: a $model's flexcontroller, %rule and localvar lines stay in\n"
    "                         the QC with noautodmxrules (qc, the default) or move into its DMX (dmx)\n"
    "  -f, --force            overwrite existing outputs\n"
    "  -j N, --jobs N         convert N files at once (default: the number of cores)\n"
    "  --threads N            threads that read one file in parts (default: the cores over -j)\n"
    "  -k, --keep-going       convert what can be converted; exit 1 at the end if any failed\n"
    "  --depfile FILE         write a make-style dependency line (outputs: inputs)\n"
    "  -q, --quiet            no warnings\n"
    "  -W error, -Werror      treat warnings as errors\n"
    "  --max-warnings N       warnings shown per file (default 20; 0: all)\n"
    "  -v, --verbose          a note on each file written\n"
    "  --target T, --encoding E, --encoding-version N, --model-version N: the DMX written\n"
    "  --lf                   SMD: LF line ends instead of CRLF\n\n"
    "exit codes: 0 success, 1 at least one file failed, 2 a usage error\n";

int cmd_qc(int argc, char **argv)
{
	conv_opts o;
	memset(&o, 0, sizeof(o));
	o.tool = TOOL_SMDMX;
	o.name = "smdmx";
	o.max_warnings = 20;
	const char *in = NULL, *to = NULL, *rig = "qc", *target = NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(qc_help, stdout);
			return EXIT_OK;
		}
		bool takes = !strcmp(a, "--to") || !strcmp(a, "-d") || !strcmp(a, "--rig") || !strcmp(a, "-j") || !strcmp(a, "--jobs") || !strcmp(a, "--threads") ||
		             !strcmp(a, "--depfile") || !strcmp(a, "--max-warnings") || !strcmp(a, "--target") || !strcmp(a, "--encoding") ||
		             !strcmp(a, "--encoding-version") || !strcmp(a, "--model-version") || !strcmp(a, "-W");
		if (takes && !v) return usage("'%s' needs a value", a);
		if (!strcmp(a, "--to")) to = argv[++i];
		else if (!strcmp(a, "-d")) o.outdir = argv[++i];
		else if (!strcmp(a, "--rig")) rig = argv[++i];
		else if (!strcmp(a, "--threads")) {
			char *end;
			long n = strtol(argv[++i], &end, 10);
			if (*end || n < 1 || n > 256) return usage("--threads wants a number from 1 to 256, not '%s'", argv[i]);
			o.threads = (unsigned)n;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
			char *end;
			long n = strtol(argv[++i], &end, 10);
			if (*end || n < 1 || n > 256) return usage("-j wants a number of jobs from 1 to 256, not '%s'", argv[i]);
			o.jobs = (unsigned)n;
		} else if (!strncmp(a, "-j", 2) && a[2]) {
			char *end;
			long n = strtol(a + 2, &end, 10);
			if (*end || n < 1 || n > 256) return usage("-j wants a number of jobs from 1 to 256, not '%s'", a + 2);
			o.jobs = (unsigned)n;
		} else if (!strcmp(a, "-k") || !strcmp(a, "--keep-going")) o.keep_going = true;
		else if (!strcmp(a, "-f") || !strcmp(a, "--force")) o.force = true;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o.quiet = true;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) o.verbose = true;
		else if (!strcmp(a, "-Werror")) o.werror = true;
		else if (!strcmp(a, "-W")) {
			if (strcmp(argv[++i], "error")) return usage("-W takes 'error', not '%s'", argv[i]);
			o.werror = true;
		} else if (!strcmp(a, "--depfile")) o.depfile = argv[++i];
		else if (!strcmp(a, "--max-warnings")) {
			char *end;
			long n = strtol(argv[++i], &end, 10);
			if (*end || n < 0) return usage("--max-warnings wants a count, not '%s'", argv[i]);
			o.max_warnings = (size_t)n;
		} else if (!strcmp(a, "--target")) target = argv[++i];
		else if (!strcmp(a, "--encoding")) {
			o.dopts.encoding = argv[++i];
			if (strcmp(o.dopts.encoding, "keyvalues2") && strcmp(o.dopts.encoding, "keyvalues2_flat") && strcmp(o.dopts.encoding, "binary"))
				return usage("--encoding is keyvalues2, keyvalues2_flat or binary, not '%s'", o.dopts.encoding);
		} else if (!strcmp(a, "--encoding-version")) o.dopts.encoding_version = atoi(argv[++i]);
		else if (!strcmp(a, "--model-version")) {
			int mv = atoi(argv[++i]);
			if (mv != 1 && mv != 15 && mv != 18 && mv != 22) return usage("--model-version is 1, 15, 18 or 22, not '%s'", argv[i]);
			o.mopts.model_version = mv;
		} else if (!strcmp(a, "--lf")) o.wopts.lf_line_ends = true;
		else if (a[0] == '-' && a[1]) return usage("unknown option '%s'", a);
		else if (!in) in = a;
		else return usage("one QC at a time ('%s' is a second)", a);
	}
	if (!in) return usage("%s", "qc needs a QC file");
	if (!to || (strcasecmp(to, "dmx") && strcasecmp(to, "smd"))) return usage("%s", "--to is dmx or smd");
	if (!o.outdir) return usage("%s", "-d OUTDIR is required: the project is written there");
	if (strcmp(rig, "qc") && strcmp(rig, "dmx")) return usage("--rig is qc or dmx, not '%s'", rig);
	if (!strcmp(rig, "dmx") && strcasecmp(to, "dmx")) return usage("%s", "--rig dmx applies to --to dmx");
	if (target) {
		static const struct {
			const char *name;
			int encoding, model;
		} targets[] = { { "sdk2013", 2, 1 }, { "tf2", 2, 1 },   { "gmod", 2, 1 },  { "l4d2", 4, 15 },
			            { "portal2", 5, 18 }, { "csgo", 5, 18 }, { "sfm", 5, 18 }, { "source2", 9, 22 } };
		size_t t = 0;
		while (t < sizeof(targets) / sizeof(targets[0]) && strcmp(targets[t].name, target)) t++;
		if (t == sizeof(targets) / sizeof(targets[0])) return usage("unknown --target '%s'", target);
		if (!o.dopts.encoding) o.dopts.encoding = "binary";
		if (!o.dopts.encoding_version) o.dopts.encoding_version = targets[t].encoding;
		if (!o.mopts.model_version) o.mopts.model_version = targets[t].model;
	}
	project p;
	memset(&p, 0, sizeof(p));
	p.o = &o;
	p.to = strcasecmp(to, "dmx") ? "smd" : "dmx";
	p.rig_dmx = !strcmp(rig, "dmx");
	p.qcpath = in;
	output_init();
	smdmx_error err;
	smdmx_warnings w;
	smdmx_qc_read_options qo;
	memset(&qo, 0, sizeof(qo));
	qo.keep_going = o.keep_going;
	p.qc = smdmx_qc_read_file(in, &qo, &err, &w);
	diag_warnings(&p.diag, &o, in, &w);
	int rc = EXIT_OK;
	if (!p.qc) {
		diag_error(&p.diag, in, &err);
		fputs(p.diag.text ? p.diag.text : "", stderr);
		diag_free(&p.diag);
		return EXIT_FAILED;
	}
	/* -k: the lines that could not be read cost only themselves (the QC keeps them as written) */
	bool ok = true;
	for (size_t i = 0; i < p.qc->error_count; i++) {
		const smdmx_error *e = &p.qc->errors[i];
		diag_add(&p.diag, NULL, e->file[0] ? e->file : in, e->line, e->column, "error", "%s%s", e->message,
		         e->code == SMDMX_ERROR_IO || e->code == SMDMX_ERROR_LIMIT ? ": the $include is kept as written, and nothing it holds is read"
		                                                               : ": the line is kept as written, and nothing it says is converted");
		ok = false;
	}
	p.missing = p.qc->missing_includes;
	p.qc_errors = p.qc->error_count - p.qc->missing_includes;
	/* The project's folder: the main QC's, widened to hold every file it reads. */
	p.root = abs_dir(in);
	for (size_t i = 0; i < p.qc->file_count; i++) {
		char *a = path_absolute(p.qc->files[i].path);
		common_root(p.root, a);
		free(a);
	}
	for (size_t i = 0; i < p.qc->ref_count; i++) {
		if (!p.qc->refs[i].found) continue;
		char *a = path_absolute(p.qc->refs[i].path);
		common_root(p.root, a);
		free(a);
	}
	char *od = path_absolute(o.outdir);
	p.outdir = xasprintf("%s%s", od, od[strlen(od) - 1] == '/' ? "" : "/");
	free(od);
	if (!strncmp(p.outdir, p.root, strlen(p.root)) || !strncmp(p.root, p.outdir, strlen(p.outdir))) {
		/* OUTDIR inside the project, or the project inside OUTDIR: outputs over inputs */
		bool inside = !strncmp(p.outdir, p.root, strlen(p.root));
		say("smdmx", "error", "'%s' is %s the project's folder '%s': write the project elsewhere", o.outdir,
		    inside ? "inside" : "above", p.root);
		smdmx_qc_free(p.qc);
		diag_free(&p.diag);
		free(p.root);
		free(p.outdir);
		return EXIT_USAGE;
	}
	ok = plan(&p) && ok;
	if (ok || o.keep_going) {
		unsigned workers = o.jobs;
		if (!workers) workers = os_cpu_count();
		if (workers > p.task_count) workers = (unsigned)p.task_count;
		if (workers < 1) workers = 1; /* a QC that names no file */
		if (workers > 64) workers = 64;
		unsigned cores = os_cpu_count();
		o.ropts.threads = o.threads ? o.threads : (cores / workers ? cores / workers : 1);
		o.xopts.threads = o.wopts.threads = o.dopts.threads = o.ropts.threads;
		if (!ok) p.stop = !o.keep_going;
		p.lock = os_mutex_create();
		if (!p.lock) {
			fputs("smdmx: error: out of memory\n", stderr);
			exit(EXIT_FAILED);
		}
		os_thread *th[64];
		unsigned started = 0;
		for (unsigned i = 1; i < workers; i++)
			if ((th[started] = os_thread_start(worker, &p))) started++;
		worker(&p);
		for (unsigned i = 0; i < started; i++) os_thread_join(th[i]);
	}
	size_t failed = 0, converted = 0, copied = 0;
	for (size_t i = 0; i < p.task_count; i++) {
		failed += p.tasks[i].status == EXIT_FAILED;
		converted += p.tasks[i].status == EXIT_OK && p.tasks[i].kind != TASK_COPY;
		copied += p.tasks[i].status == EXIT_OK && p.tasks[i].kind == TASK_COPY;
	}
	char **qc_written = NULL;
	size_t qc_written_count = 0;
	/* With -k the project is always written: what converted under its new names, the rest
	 * as the QC names it. */
	if (o.keep_going || (ok && failed == 0)) {
		bool edited = edit_names(&p) && edit_lines(&p);
		ok = write_qc_files(&p, &qc_written, &qc_written_count) && edited && ok;
	}
	/* Messages: the QC's, then each file's in the QC's order. */
	fputs(p.diag.text ? p.diag.text : "", stderr);
	for (size_t i = 0; i < p.task_count; i++) {
		fputs(p.tasks[i].diag.text ? p.tasks[i].diag.text : "", stderr);
		if (o.verbose && p.tasks[i].status == EXIT_OK)
			for (size_t k = 0; k < p.tasks[i].written_count; k++)
				fprintf(stderr, "%s: note: -> %s\n", p.tasks[i].src, p.tasks[i].written[k]);
	}
	if (o.verbose)
		for (size_t k = 0; k < qc_written_count; k++) fprintf(stderr, "%s: note: -> %s\n", in, qc_written[k]);
	if (!ok || failed) rc = EXIT_FAILED;
	if (!o.quiet && (p.task_count > 1 || failed || p.missing || p.qc_errors)) {
		fprintf(stderr, "smdmx: %zu converted, %zu copied, %zu missing, %zu failed", converted, copied, p.missing, failed);
		if (p.qc_errors) fprintf(stderr, ", %zu QC line%s not read", p.qc_errors, p.qc_errors == 1 ? "" : "s");
		fprintf(stderr, "; %zu QC file%s written\n", qc_written_count, qc_written_count == 1 ? "" : "s");
	}
	if (o.depfile && rc == EXIT_OK) {
		text_buf t = { 0 };
		bool first = true;
		for (size_t i = 0; i < p.task_count; i++)
			for (size_t k = 0; k < p.tasks[i].written_count; k++) {
				if (!first) tb_putc(&t, ' ');
				tb_dep_path(&t, p.tasks[i].written[k]);
				first = false;
			}
		for (size_t k = 0; k < qc_written_count; k++) {
			if (!first) tb_putc(&t, ' ');
			tb_dep_path(&t, qc_written[k]);
			first = false;
		}
		tb_putc(&t, ':');
		for (size_t i = 0; i < p.qc->file_count; i++) {
			tb_putc(&t, ' ');
			tb_dep_path(&t, p.qc->files[i].path);
		}
		for (size_t i = 0; i < p.task_count; i++) {
			tb_putc(&t, ' ');
			tb_dep_path(&t, p.tasks[i].src);
		}
		for (size_t i = 0; i < p.consumed_count; i++) {
			tb_putc(&t, ' ');
			tb_dep_path(&t, p.consumed[i]);
		}
		tb_putc(&t, '\n');
		char why[1024];
		if (!depfile_write(o.depfile, &t, why, sizeof(why))) {
			say("smdmx", "error", "cannot write the depfile '%s': %s", o.depfile, why);
			rc = EXIT_FAILED;
		}
		free(t.text);
	}
	for (size_t i = 0; i < p.task_count; i++) {
		task *t = &p.tasks[i];
		free(t->src);
		free(t->dst);
		free(t->vta_dst);
		smdmx_qc_text_free(t->model_lines);
		smdmx_qc_text_free(t->att_lines);
		diag_free(&t->diag);
		for (size_t k = 0; k < t->written_count; k++) free(t->written[k]);
		free(t->written);
	}
	for (size_t k = 0; k < qc_written_count; k++) free(qc_written[k]);
	free(qc_written);
	free(p.tasks);
	free(p.task_of);
	if (p.ref_out)
		for (size_t i = 0; i < p.qc->ref_count; i++) free(p.ref_out[i]);
	free(p.ref_out);
	free(p.vta_consumed);
	for (size_t i = 0; i < p.consumed_count; i++) free(p.consumed[i]);
	free(p.consumed);
	diag_free(&p.diag);
	smdmx_qc_free(p.qc);
	free(p.root);
	free(p.outdir);
	os_mutex_destroy(p.lock);
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
