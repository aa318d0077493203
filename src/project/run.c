/* QC projects, running the tasks: each file read, converted and written (or copied), on the
 * workers that take tasks in the order planned. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"

/* ---- one task ---------------------------------------------------------------------------- */

const char *qp_copy_into(pj_outputs *set, const char *src, const char *dst, char *const *ins, size_t ins_count, bool allow,
                         char *why, size_t why_size)
{
	FILE *f = os_fopen(src, "rb");
	if (!f) {
		snprintf(why, why_size, "cannot read: %s", os_error_text(errno));
		set->code = SMDMX_ERROR_IO;
		return src;
	}
	pj_output *o = pj_output_allowed(set, dst, ins, ins_count, allow, why, why_size)
	                ? pj_outputs_open(set, dst, why, why_size)
	                : NULL;
	const char *at = o ? NULL : dst;
	char buf[65536];
	size_t n;
	while (!at && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (!pj_output_write(o, buf, n)) {
			snprintf(why, why_size, "cannot write: %s", os_error_text(smdmx_output_errno(o)));
			set->code = SMDMX_ERROR_IO;
			at = dst;
		}
	if (!at && ferror(f)) {
		snprintf(why, why_size, "cannot read: %s", os_error_text(errno));
		set->code = SMDMX_ERROR_IO;
		at = src;
	}
	fclose(f);
	return at;
}

static bool task_fail(task *t, const char *path, const smdmx_error *e)
{
	pj_add_error(&t->diag, path, e);
	return false;
}

/* w's warnings said of path (a file's own where they name one), and its room given back. */
static void task_warn(task *t, const char *path, smdmx_warnings *w)
{
	pj_add_warnings(&t->diag, path, w);
	smdmx_warnings_free(w);
}

static pj_output *task_open(task *t, const char *path)
{
	const library *l = t->proj->lib;
	char why[1024];
	char *ins[2] = { t->src, (char *)t->proj->qcpath };
	/* a file already there is looked at when the output is complete: the very bytes stay
	 * (outputs.same_ok), any others are a clash unless --force */
	if (!pj_output_allowed(&t->outs, path, ins, 2, l->o->force || t->replace || t->outs.same_ok, why, sizeof(why))) {
		pj_error(&t->diag, t->outs.code, path, 0, 0, "%s", why);
		return NULL;
	}
	pj_output *out = pj_outputs_open(&t->outs, path, why, sizeof(why));
	if (!out) pj_error(&t->diag, t->outs.code, path, 0, 0, "%s", why);
	return out;
}

static bool task_write_dmx(task *t, const smdmx_scene *s)
{
	const smdmx_project_options *o = t->proj->lib->o;
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_dm *dm = smdmx_model_from_scene(s, &o->model, &err, &w);
	task_warn(t, t->src, &w);
	if (!dm) return task_fail(t, t->src, &err);
	pj_output *out = task_open(t, t->dst);
	bool ok = out && (smdmx_dmx_write(dm, pj_output_write, out, &o->dmx_write, &err) || task_fail(t, t->dst, &err));
	smdmx_dm_free(dm);
	return ok;
}

static bool task_write_smd(task *t, const smdmx_scene *s, const char *path, smdmx_smd_write_kind kind)
{
	smdmx_smd_write_options wo = t->proj->lib->o->smd_write;
	wo.kind = kind;
	wo.reference_clip = true;
	smdmx_error err;
	pj_output *out = task_open(t, path);
	return out && (smdmx_smd_write(s, pj_output_write, out, &wo, &err) || task_fail(t, path, &err));
}

static smdmx_scene *task_read_smd(task *t, const char *path, double fps)
{
	const smdmx_project_options *o = t->proj->lib->o;
	smdmx_smd_read_options ro = o->smd_read;
	if (fps > 0) ro.frame_rate = fps;
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_scene *s = smdmx_smd_read_file(path, &ro, &err, &w);
	task_warn(t, path, &w);
	if (!s) task_fail(t, path, &err);
	return s;
}

typedef struct task_reading {
	task *t;
	bool failed; /* a file's error, said */
} task_reading;

/* Each file of a $model's scene: its warnings and its error said. */
static void task_file_read(void *user, const char *path, const smdmx_warnings *w, const smdmx_error *e)
{
	task_reading *q = user;
	if (w) pj_add_warnings(&q->t->diag, path, w);
	if (e) q->failed = !task_fail(q->t, path, e);
}

/* An SMD into DMX: a $model's with its flexfile's shapes and rig (smdmx_qc_model_scene, the
 * QC staying beside it), or an animation's or collision model's alone. */
static bool run_smd_to_dmx(task *t)
{
	const project *p = t->proj;
	smdmx_scene *s;
	if (t->model != SMDMX_NONE) {
		const smdmx_project_options *o = p->lib->o;
		task_reading q = { t, false };
		/* a block that lost a line keeps its rig in the QC, where that line stays */
		smdmx_qc_scene_options so = { .smd = o->smd_read, .dmx = o->dmx_read, .qc_beside = true, .file_read = task_file_read, .user = &q };
		so.rig_in_qc = !p->lib->rig_dmx || p->qc->models[t->model].lost_lines;
		if (t->fps > 0) so.smd.frame_rate = t->fps;
		smdmx_error err;
		smdmx_warnings w = { 0 };
		s = smdmx_qc_model_scene(p->qc, t->model, &so, &err, &w);
		task_warn(t, p->qcpath, &w);
		if (!s && !q.failed) task_fail(t, p->qcpath, &err);
	} else {
		s = task_read_smd(t, t->src, t->fps);
	}
	bool ok = s && task_write_dmx(t, s);
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
	smdmx_warnings w = { 0 };
	const smdmx_qc_model *m = &p->qc->models[t->model];
	const char *ref = p->qc->refs[m->ref].path;
	/* the reference's warnings are its own task's */
	smdmx_scene *s = smdmx_smd_read_file(ref, &p->lib->o->smd_read, &err, NULL);
	if (!s) task_fail(t, ref, &err);
	smdmx_scene *flex = s ? task_read_smd(t, t->src, 0) : NULL;
	bool ok = flex && (smdmx_scene_attach_vta(s, flex, &err, &w) || task_fail(t, t->src, &err));
	smdmx_warnings_free(&w); /* the shapes' matching is said by the reference's own task */
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

/* The name the flexfile line of project p's $model gives the VTA at path. The line goes into
 * the $model block, where studiomdl takes names from the main QC's folder and the $cd and
 * $pushd in force: the folder of the model's own name (its ref's dir), never the folder of the
 * file the block is in. Each QC that names the model gets its own (qp_edit_lines). */
char *qp_vta_name(const project *p, uint32_t model, const char *path)
{
	const smdmx_qc_model *m = &p->qc->models[model];
	const char *dir = m->ref != SMDMX_NONE ? p->qc->refs[m->ref].dir : "";
	char *qcout = qp_out_path(p->lib, p->qc->files[0].path);
	if (!qcout) return NULL; /* out of memory: the task fails */
	char *slash = (char *)os_last_separator(qcout);
	if (slash) slash[1] = 0;
	char *from = pj_asprintf(&p->lib->mem, "%s%s_", slash ? qcout : "", dir);
	char *name = pj_path_relative(&p->lib->mem, from, path);
	pj_free(&p->lib->mem, from);
	pj_free(&p->lib->mem, qcout);
	return name;
}

/* A DMX into SMD (and a VTA for its shapes), with the QC lines for what SMD cannot hold. */
/* QC lines the rig wrote (smdmx_qc_text_free's) as the run's (NULL: NULL; out of memory
 * making the copy: said, NULL). */
static char *lines_into(const sm_alloc *m, char *lines)
{
	char *copy = pj_strdup(m, lines);
	smdmx_qc_text_free(lines);
	return copy;
}

static bool run_dmx_to_smd(task *t)
{
	const project *p = t->proj;
	const smdmx_project_options *o = p->lib->o;
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_dm *dm = smdmx_dmx_read_file(t->src, &o->dmx_read, &err, &w);
	task_warn(t, t->src, &w);
	if (!dm) return task_fail(t, t->src, &err);
	smdmx_scene *s = smdmx_model_to_scene(dm, &o->model, &err, &w);
	smdmx_dm_free(dm);
	task_warn(t, t->src, &w);
	if (!s) return task_fail(t, t->src, &err);
	bool ok = true;
	bool reference = t->reference && s->mesh_count;
	if (reference && s->flex_shape_count) t->has_vta = true;
	if (t->model != SMDMX_NONE) {
		char *vta_rel = NULL;
		if (t->has_vta) vta_rel = qp_vta_name(t->proj, t->model, t->vta_dst);
		ok = smdmx_qc_from_scene(s, vta_rel, &t->model_lines, &t->att_lines, &err, &w);
		pj_free(&p->lib->mem, vta_rel);
		t->model_lines = lines_into(&p->lib->mem, t->model_lines);
		t->att_lines = lines_into(&p->lib->mem, t->att_lines);
		if (p->qc->models[t->model].noautodmxrules) {
			/* the QC's own rig stands: what the DMX's controls would say does not matter */
			size_t k = 0;
			for (size_t i = 0; i < w.count; i++)
				if (w.data[i].code != SMDMX_WARNING_QC_UNDRIVEN && w.data[i].code != SMDMX_WARNING_QC_LOST_CONTROLS)
					w.data[k++] = w.data[i];
			w.count = k;
		}
		task_warn(t, t->src, &w);
		if (!ok) task_fail(t, t->src, &err);
	}
	/* a model a $body or $bodygroup names: its attachments as $attachment lines after that
	 * command, as a $model's after its block */
	bool body = t->model == SMDMX_NONE && reference && s->attachment_count && qp_body_ref(p, t) != SMDMX_NONE;
	if (ok && body) {
		ok = smdmx_qc_attachment_lines(s, &t->att_lines, &err, &w) || task_fail(t, t->src, &err);
		t->att_lines = lines_into(&p->lib->mem, t->att_lines);
		task_warn(t, t->src, &w);
	}
	/* the one SMD the QC names holds what it can of the DMX: its animation too */
	smdmx_smd_write_options wo = o->smd_write;
	wo.reference_clip = true;
	wo.kind = reference || !s->clip_count ? SMDMX_SMD_WRITE_REFERENCE : SMDMX_SMD_WRITE_ANIMATION;
	if (ok) {
		smdmx_warnings losses = { 0 };
		ok = smdmx_smd_report_losses(s, &wo, true, &err, &losses) || task_fail(t, t->src, &err);
		/* a $model's block takes its rig lines and its VTA; the QC's $upaxis and $sequence fps
		 * say what SMD cannot when they are the scene's */
		/* studiomdl plays a sequence at its fps, else 30, a DMX's as an SMD's: the DMX's rate
		 * is only the rate its frames are sampled at, and the SMD holds those very frames
		 * (doc/format-notes.md, "A sequence's fps") */
		bool fps = true;
		smdmx_smd_carried c = { .rig = t->model != SMDMX_NONE, .attachments = body, .up_axis = p->qc->up_axis == s->up_axis,
		                     .frame_rate = fps, .shapes = reference };
		smdmx_smd_losses_carried(&losses, &c);
		task_warn(t, t->src, &losses);
	}
	ok = ok && task_write_smd(t, s, t->dst, wo.kind);
	if (ok && t->has_vta) ok = task_write_smd(t, s, t->vta_dst, SMDMX_SMD_WRITE_VTA);
	smdmx_scene_free(s);
	return ok;
}

/* src copied, byte for byte, to dst. */
static bool copy_file(task *t, const char *src, const char *dst)
{
	char why[1024];
	char *ins[2] = { t->src, (char *)t->proj->qcpath };
	const library *l = t->proj->lib;
	/* a file already there is looked at when the output is complete (task_open) */
	const char *at = qp_copy_into(&t->outs, src, dst, ins, 2, l->o->force || t->replace || t->outs.same_ok, why, sizeof(why));
	if (at) pj_error(&t->diag, t->outs.code, at, 0, 0, "%s", why);
	return !at;
}

/* -k: a model file that failed to convert is copied unchanged to its place below OUTDIR, with
 * the VTA its DMX would have taken, so that the QC, which keeps naming them, stays whole. */
/* Another task of the library copies src to dst: it is written there already. */
static bool copied_by_another(const task *t, const char *src, const char *dst)
{
	library *l = t->proj->lib;
	bool found = false;
	/* under the lock: a worker may give its task's output another name meanwhile */
	os_mutex_lock(l->lock);
	for (size_t i = 0; i < l->task_count && !found; i++)
		found = l->tasks[i] != t && l->tasks[i]->kind == TASK_COPY && !strcmp(l->tasks[i]->src, src) && !strcmp(l->tasks[i]->dst, dst);
	os_mutex_unlock(l->lock);
	return found;
}

static bool copy_instead(task *t)
{
	const project *p = t->proj;
	pj_outputs_abort(&t->outs);
	const char *dst = p->ref_out[t->ref];
	bool ok = copied_by_another(t, t->src, dst) || copy_file(t, t->src, dst);
	const char *vta = t->kind == TASK_SMD_TO_DMX && t->vta != SMDMX_NONE && p->vta_consumed[t->vta] ? p->qc->refs[t->vta].path : NULL;
	if (ok && vta && !copied_by_another(t, vta, p->ref_out[t->vta])) ok = copy_file(t, vta, p->ref_out[t->vta]);
	char why[1024];
	ok = ok && (pj_outputs_commit(&t->outs, &t->written, &t->written_count, why, sizeof(why)) ||
	            (pj_error(&t->diag, t->outs.code, dst, 0, 0, "%s", why), false));
	if (!ok) {
		pj_outputs_abort(&t->outs);
		return false;
	}
	pj_add(&t->diag, t->src, 0, 0, "note", "not converted: copied unchanged as '%s'%s%s%s, and the QC names the copy", dst,
	         vta ? " (with '" : "", vta ? p->ref_out[t->vta] : "", vta ? "')" : "");
	return true;
}

/* Outputs where something else already is (a file with other bytes: an earlier run's for
 * another QC, or a user's, never overwritten without --force): each takes a name of its own,
 * after the task's QC, which the QC then names; said in a note. */
static void take_other_names(task *t, uint32_t index)
{
	library *l = t->proj->lib;
	for (size_t k = 0; k < pj_outputs_count(&t->outs); k++) {
		pj_output *out = pj_outputs_item(&t->outs, k);
		const char *path = smdmx_output_path(out);
		if (!pj_output_clashes(out)) continue;
		/* the name the plan reserved: the file there is not this QC's (qp_reserve_other_names
		 * read the record, and hashed the file, once) */
		const char *reserved = t->dst && !strcmp(path, t->dst) ? t->other_dst : t->vta_dst && !strcmp(path, t->vta_dst) ? t->other_vta : NULL;
		/* else, this QC's own output, as an earlier run wrote it: replaced */
		if (!reserved && qp_record_own(l, path, t->proj->qcpath)) {
			smdmx_output_set_replace(out, true);
			continue;
		}
		/* under the lock: the library's outputs, and this task's names, which another worker's
		 * copied_by_another reads. The name is the one the plan reserved (the same at every
		 * -j); an output of no reserved name (none planned) takes one now. */
		os_mutex_lock(l->lock);
		char *alt = reserved ? pj_strdup(&l->mem, reserved) : qp_other_name(l, path, t->proj->qcpath, t, index);
		if (!alt) { /* out of memory: the task fails */
			os_mutex_unlock(l->lock);
			return;
		}
		pj_add(&t->diag, path, 0, 0, "note",
		         "a file with other bytes is there, not one smdmx wrote for this QC as it is now (someone's, another QC's, or edited since; -u or --force replaces it): written as '%s' for %s",
		         alt, t->proj->qcpath);
		/* the QC's references name outputs by t->dst (their names changed after the run) */
		if (t->dst && !strcmp(path, t->dst)) {
			pj_free(&l->mem, t->dst);
			t->dst = pj_strdup(&l->mem, alt);
		} else if (t->vta_dst && !strcmp(path, t->vta_dst)) {
			/* the flexfile line names the VTA: its new name too */
			if (t->model_lines && t->model != SMDMX_NONE) {
				char *old = qp_vta_name(t->proj, t->model, t->vta_dst), *neu = qp_vta_name(t->proj, t->model, alt);
				char *was = pj_asprintf(&l->mem, "\tflexfile \"%s\"\n", old), *now = pj_asprintf(&l->mem, "\tflexfile \"%s\"\n", neu);
				char *at = was && now && old && neu ? strstr(t->model_lines, was) : NULL;
				if (at) {
					char *lines = pj_asprintf(&l->mem, "%.*s%s%s", (int)(at - t->model_lines), t->model_lines, now, at + strlen(was));
					if (lines) {
						pj_free(&l->mem, t->model_lines);
						t->model_lines = lines;
					}
				}
				pj_free(&l->mem, old);
				pj_free(&l->mem, neu);
				pj_free(&l->mem, was);
				pj_free(&l->mem, now);
			}
			pj_free(&l->mem, t->vta_dst);
			t->vta_dst = pj_strdup(&l->mem, alt);
		}
		os_mutex_unlock(l->lock);
		/* a second name an earlier run gave it: replaced, as its own */
		smdmx_output_set_replace(out, qp_record_own(l, alt, t->proj->qcpath));
		smdmx_output_rename(out, alt); /* (false: out of memory, which the budget knows) */
		pj_free(&l->mem, alt);
	}
}

void qp_reserve_other_names(library *l)
{
	if (l->o->force) return;
	for (size_t i = 0; i < l->task_count && !qp_ran_out(l); i++) {
		task *t = l->tasks[i];
		if (t->up_to_date || t->replace) continue;
		const char *paths[2] = { t->dst, t->vta_dst };
		char **into[2] = { &t->other_dst, &t->other_vta };
		for (int k = 0; k < 2; k++) {
			os_stat st;
			if (!paths[k] || !os_stat_path(paths[k], &st) || st.kind != OS_REGULAR || qp_record_own(l, paths[k], t->proj->qcpath))
				continue;
			*into[k] = qp_other_name(l, paths[k], t->proj->qcpath, t, (uint32_t)i);
		}
	}
	if (qp_ran_out(l)) l->stop = true; /* the run stops before any task */
}

void qp_worker(void *arg)
{
	library *l = arg;
	for (;;) {
		os_mutex_lock(l->lock);
		size_t i = l->next < l->task_count && !l->stop ? l->next++ : SIZE_MAX;
		os_mutex_unlock(l->lock);
		if (i == SIZE_MAX) return;
		task *t = l->tasks[i];
		if (t->up_to_date) continue;
		t->outs.hooks = &l->mem.hooks;
		t->outs.mem = &l->mem;
		t->outs.force = l->o->force || t->replace;
		t->outs.same_ok = true;
		if (t->why_copy) pj_add(&t->diag, t->src, 0, 0, "note", "not converted: %s; copied unchanged", t->why_copy);
		bool ok = t->kind == TASK_COPY         ? copy_file(t, t->src, t->dst)
		        : t->kind == TASK_SMD_TO_DMX   ? run_smd_to_dmx(t)
		        : t->kind == TASK_VTA_REBASE   ? run_vta_rebase(t)
		                                       : run_dmx_to_smd(t);
		if (ok && l->o->warnings_fail && t->diag.warnings) {
			pj_error(&t->diag, SMDMX_ERROR_WARNINGS, t->src, 0, 0, "warnings are errors (-W error)");
			ok = false;
		}
		if (ok && !t->outs.force) take_other_names(t, (uint32_t)i);
		ok = ok && !qp_ran_out(l); /* what it made may be short of something */
		char why[1024];
		if (ok) ok = pj_outputs_commit(&t->outs, &t->written, &t->written_count, why, sizeof(why)) ||
		             (pj_error(&t->diag, t->outs.code, t->dst, 0, 0, "%s", why), false);
		else pj_outputs_abort(&t->outs);
		t->status = ok ? PJ_OK : PJ_FAILED;
		if (!ok && l->o->keep_going && l->o->copy_failed && t->kind != TASK_COPY && !qp_ran_out(l)) t->copied = copy_instead(t);
		/* the files' hashes, here on the worker: once, and never by the run's one thread */
		if (ok || t->copied) qp_task_sums(t);
		bool oom = qp_ran_out(l); /* the run ends out of memory */
		if (oom) pj_outputs_abort(&t->outs);
		if ((!ok && !l->o->keep_going) || oom) {
			os_mutex_lock(l->lock);
			l->stop = true;
			os_mutex_unlock(l->lock);
		}
	}
}

/* ---- one file made one way, written once --------------------------------------------------- */

/* The files a task made: written by this run, or (-u) there from an earlier one. */
static size_t task_files(const task *t, const char *files[2])
{
	if (!qp_converted(t)) return 0;
	if (t->written_count) {
		for (size_t k = 0; k < t->written_count && k < 2; k++) files[k] = t->written[k];
		return t->written_count <= 2 ? t->written_count : 0;
	}
	if (!t->up_to_date) return 0;
	files[0] = t->dst;
	if (t->vta_dst) files[1] = t->vta_dst;
	return t->vta_dst ? 2 : 1;
}

typedef struct made {
	uint64_t size, hash;
	uint32_t task;
} made;

static int by_made(const void *a, const void *b)
{
	const made *x = a, *y = b;
	if (x->size != y->size) return x->size < y->size ? -1 : 1;
	if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

/* Whether task b can name a's files instead of its own: made of one file (two files are the
 * user's two, whatever they hold: converted, they keep their names), of one kind, files of the
 * very bytes, the same QC lines for its $model (a VTA's flexfile line names the VTA beside
 * the QC: not merged). */
static bool mergeable(const task *a, const task *b)
{
	const char *fa[2] = { NULL, NULL }, *fb[2] = { NULL, NULL };
	size_t na = task_files(a, fa), nb = task_files(b, fb);
	if (strcmp(a->src, b->src) || a->kind != b->kind || !na || na != nb || a->has_vta != b->has_vta) return false;
	if ((a->model_lines && a->model != SMDMX_NONE && strstr(a->model_lines, "flexfile")) ||
	    (b->model_lines && b->model != SMDMX_NONE && strstr(b->model_lines, "flexfile")))
		return false;
	if (!a->model_lines != !b->model_lines || (a->model_lines && strcmp(a->model_lines, b->model_lines))) return false;
	if (!a->att_lines != !b->att_lines || (a->att_lines && strcmp(a->att_lines, b->att_lines))) return false;
	for (size_t k = 0; k < na; k++)
		if (!smdmx_file_same_bytes(fa[k], fb[k], NULL, 0)) return false;
	return true;
}

typedef struct of_source {
	const char *src;
	int kind;
	uint32_t task;
} of_source;

static int by_source(const void *a, const void *b)
{
	const of_source *x = a, *y = b;
	int c = strcmp(x->src, y->src);
	if (c) return c;
	if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

void qp_merge_same(library *l)
{
	made *m = pj_calloc(&l->mem, l->task_count + 1, sizeof(made));
	of_source *by_src = pj_calloc(&l->mem, l->task_count + 1, sizeof(of_source));
	if (!m || !by_src) {
		pj_free(&l->mem, m);
		pj_free(&l->mem, by_src);
		return;
	}
	/* Only tasks of one file, one kind, can merge (mergeable): the others, most tasks of a
	 * library (a file made one way), are left out, their files not read again. */
	size_t s = 0, n = 0;
	for (size_t i = 0; i < l->task_count; i++) {
		const char *f[2] = { NULL, NULL };
		const task *t = l->tasks[i];
		if (t->written_count && task_files(t, f)) by_src[s++] = (of_source){ t->src, (int)t->kind, (uint32_t)i };
	}
	qsort(by_src, s, sizeof(of_source), by_source);
	for (size_t i = 0; i < s;) {
		size_t e = i + 1;
		while (e < s && !strcmp(by_src[e].src, by_src[i].src) && by_src[e].kind == by_src[i].kind) e++;
		/* its first file, written (a task up to date, -u, lists its file as written too) */
		for (size_t k = i; e - i > 1 && k < e; k++)
			if (qp_task_sum(l->tasks[by_src[k].task], 0, &m[n].hash, &m[n].size)) m[n++].task = by_src[k].task;
		i = e;
	}
	pj_free(&l->mem, by_src);
	qsort(m, n, sizeof(made), by_made);
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		while (e < n && m[e].size == m[i].size && m[e].hash == m[i].hash) e++;
		/* each task of the group named after the first of the group its files match */
		for (size_t b = i + 1; b < e; b++) {
			task *tb = l->tasks[m[b].task];
			for (size_t a = i; a < b; a++) {
				task *ta = l->tasks[m[a].task];
				if (ta->dst == NULL || !strcmp(ta->dst, tb->dst) || !mergeable(ta, tb)) continue;
				/* tb's files go; the QCs that name it name ta's */
				for (size_t k = 0; k < tb->written_count; k++) {
					os_remove(tb->written[k]);
					pj_free(&l->mem, tb->written[k]);
				}
				tb->written_count = 0;
				pj_free(&l->mem, tb->sums);
				tb->sums = NULL;
				tb->sum_count = 0;
				pj_add(&tb->diag, tb->src, 0, 0, "note",
				       "made for %s as '%s', it is the very bytes of '%s' (made of '%s' for %s): written once, and the QC names that",
				       tb->proj->qcpath, tb->dst, ta->dst, ta->src, ta->proj->qcpath);
				char *dst = pj_strdup(&l->mem, ta->dst), *vta = ta->vta_dst ? pj_strdup(&l->mem, ta->vta_dst) : NULL;
				if (!dst || (ta->vta_dst && !vta)) {
					pj_free(&l->mem, dst);
					pj_free(&l->mem, vta);
					break;
				}
				pj_free(&l->mem, tb->dst);
				pj_free(&l->mem, tb->vta_dst);
				tb->dst = dst;
				tb->vta_dst = vta;
				break;
			}
		}
		i = e;
	}
	pj_free(&l->mem, m);
}

