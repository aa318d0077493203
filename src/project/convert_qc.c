/* A QC's $model as a conversion's input (project_internal.h, "one conversion"): the QC read,
 * its model drawn as a scene (over the model of the QC that includes it, for an animation),
 * or written as a model DMX. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"
#include "smdmx/convert.h"
#include "model/model_valid.h"
#include "support/internal.h"
/* The QC, its warnings given (each in the file it is about). */
static smdmx_qc *read_qc(cv_run *r, const char *path)
{
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_qc_read_options ro = { .allocator = r->hooks };
	smdmx_qc *qc = smdmx_qc_read_file(path, &ro, &err, &w);
	cv_warn(r, path, &w);
	if (!qc) {
		cv_fail(r, path, &err);
		return NULL;
	}
	for (size_t i = 1; i < qc->file_count; i++) cv_add_dep(r, qc->files[i].path);
	return qc;
}

/* A scene drawn, not written: what a DMX would keep in the QC or leave out of its rig is
 * not said (controller groups; eyeball, eyelid and mouth lines; flex keys; a stereo shape
 * as its halves, which a picture's legend names). */
static void drop_dmx_only(smdmx_warnings *w)
{
	size_t n = 0;
	for (size_t i = 0; i < w->count; i++) {
		smdmx_warning_code c = w->data[i].code;
		if (c != SMDMX_WARNING_QC_LOST_GROUPS && c != SMDMX_WARNING_QC_ONLY && c != SMDMX_WARNING_QC_LOST_KEYS &&
		    c != SMDMX_WARNING_QC_PAIR_CUT)
			w->data[n++] = w->data[i];
	}
	w->count = n;
}

typedef struct qc_reading {
	cv_run *r;
	bool failed; /* a file's error, said */
} qc_reading;

/* Each file a QC's scene is read from: a dependency, its warnings and its error said. */
static void qc_file_read(void *user, const char *path, const smdmx_warnings *w, const smdmx_error *e)
{
	qc_reading *q = user;
	cv_add_dep(q->r, path);
	if (w) pj_add_warnings(&q->r->said, path, w);
	if (e) q->failed = !cv_fail(q->r, path, e);
}

/* Whether $includemodel's name names the .mdl that $modelname's writes: the same path
 * below models/ (case and separators aside), or with whole false the same file name. */
static bool same_mdl(const char *include, const char *model_name, bool whole)
{
	char a[1024], b[1024];
	const char *in[2] = { include, model_name };
	char *out[2] = { a, b };
	for (int k = 0; k < 2; k++) {
		size_t n = 0;
		for (const char *p = in[k]; *p && n + 1 < sizeof(a); p++) out[k][n++] = (char)(*p == '\\' ? '/' : tolower((unsigned char)*p));
		out[k][n] = 0;
		if (!strncmp(out[k], "models/", 7)) memmove(out[k], out[k] + 7, n - 6);
		if (!whole) {
			char *slash = strrchr(out[k], '/');
			if (slash) memmove(out[k], slash + 1, strlen(slash));
		}
	}
	return !strcmp(a, b);
}

/* The QC beside in (in its folder) whose $includemodel names the model qc writes: the first
 * in byte order naming its path, else the first naming its file name; NULL when none. */
static smdmx_qc *including_qc(cv_run *r, const char *in, const smdmx_qc *qc, char **path)
{
	const char *slash = os_last_separator(in);
	char *dir = slash ? pj_asprintf(&r->mem, "%.*s", (int)(slash - in + 1), in) : pj_strdup(&r->mem, ".");
	os_mem om = pj_os_mem(&r->mem);
	os_dir *d = dir ? os_dir_open_in(&om, dir) : NULL;
	size_t n = 0;
	char **names = d ? pj_dir_names(&r->mem, d, &n) : NULL;
	smdmx_qc *found = NULL;
	for (int whole = 1; whole >= 0 && !found; whole--)
		for (size_t i = 0; i < n && !found; i++) {
			*path = strcasecmp(os_path_extension(names[i]), "qc") ? NULL : pj_path_join(&r->mem, dir, names[i]);
			smdmx_qc_read_options ro = { .allocator = r->hooks, .keep_going = true };
			smdmx_error e;
			smdmx_qc *m = *path && os_path_compare(*path, in) ? smdmx_qc_read_file(*path, &ro, &e, NULL) : NULL;
			for (size_t k = 0; m && !found && k < m->include_model_count; k++)
				if (same_mdl(m->include_models[k], qc->model_name, whole)) found = m;
			if (!found) {
				smdmx_qc_free(m);
				pj_free(&r->mem, *path);
				*path = NULL;
			}
		}
	for (size_t i = 0; i < n; i++) pj_free(&r->mem, names[i]);
	pj_free(&r->mem, names);
	pj_free(&r->mem, dir);
	return found;
}

/* An animation-only QC's picture: its first animation over the model of the QC beside it
 * that includes it ($includemodel), posed at its first frame (result->posed); the bones the
 * model lacks left out, and said. anim as it is when there is no such model. */
static smdmx_scene *over_model(cv_run *r, const smdmx_qc *qc, const char *in, smdmx_scene *anim, const smdmx_qc_scene_options *so)
{
	char *path = NULL;
	smdmx_qc *m = qc->model_name && anim->clip_count ? including_qc(r, in, qc, &path) : NULL;
	if (!m) return anim;
	smdmx_error e;
	smdmx_warnings w = { 0 };
	smdmx_qc_scene_options mo = *so;
	mo.file_read = NULL;
	smdmx_scene *model = m->part_count ? smdmx_qc_body_scene(m, NULL, &mo, &e, &w)
	                     : m->model_count ? smdmx_qc_model_scene(m, 0, &mo, &e, &w) : NULL;
	smdmx_warnings_free(&w); /* the model's own, not this file's */
	if (!model) {
		pj_add(&r->said, in, 0, 0, "note", "drawn alone: the model of '%s', which includes it, cannot be drawn (%s)", path,
		       m->part_count || m->model_count ? e.message : "it has no model");
	} else {
		/* its first clip alone, on the bones the model has */
		smdmx_clip *c = &anim->clips[0];
		size_t kept = 0, left = 0;
		for (size_t k = 0; k < c->channel_count; k++) {
			bool has = false;
			for (size_t j = 0; !has && j < model->joint_count; j++) has = !strcmp(model->joints[j].name, anim->joints[c->channels[k].joint].name);
			if (has) c->channels[kept++] = c->channels[k];
			else left++;
		}
		c->channel_count = kept;
		anim->clip_count = 1;
		if (!smdmx_scene_add_clips(model, anim, &e)) {
			pj_add(&r->said, in, 0, 0, "note", "drawn alone: its animation does not go on the model of '%s' (%s)", path, e.message);
			smdmx_scene_free(model);
		} else {
			pj_add(&r->said, in, 0, 0, "note", "drawn as '%s' at its first frame over the model of '%s', which includes it ($includemodel)",
			       c->name, path);
			if (left)
				pj_add(&r->said, in, 0, 0, "note", "%zu bone%s the animation moves %s not in that model: left out of the picture", left,
				       left == 1 ? "" : "s", left == 1 ? "is" : "are");
			smdmx_scene_free(anim);
			anim = model;
			r->posed = true;
		}
	}
	smdmx_qc_free(m);
	pj_free(&r->mem, path);
	return anim;
}

/* A QC's $model (smdmx_qc_model_scene): its SMD, its flexfile's shapes named and rigged as
 * the QC says, the QC's attachments, $scale and $upaxis; without a $model, its first
 * animation. A DMX is drawn, not converted (smdmx qc converts a whole project). */
smdmx_scene *cv_qc_scene(cv_run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0];
	smdmx_qc *qc = read_qc(r, in);
	if (!qc) return NULL;
	bool picture = r->o->way == SMDMX_CONVERT_QC_SCENE;
	uint32_t mi = smdmx_qc_find_model(qc, r->o->model), part = SMDMX_NONE;
	for (size_t i = 0; picture && mi == SMDMX_NONE && r->o->model && i < qc->part_count; i++)
		if (part == SMDMX_NONE && !strcasecmp(qc->parts[i].name, r->o->model)) part = (uint32_t)i;
	if (mi == SMDMX_NONE && part == SMDMX_NONE && r->o->model) {
		if (picture)
			pj_error(&r->said, SMDMX_ERROR_USAGE, in, 0, 0, "no $model or body part named '%s' (the QC has %zu $models, %zu body parts)",
			       r->o->model, qc->model_count, qc->part_count);
		else
			pj_error(&r->said, SMDMX_ERROR_USAGE, in, 0, 0, "no $model named '%s' (the QC has %zu)", r->o->model, qc->model_count);
		smdmx_qc_free(qc);
		return NULL;
	}
	/* a picture: the whole model studiomdl builds (every body part, or the one named), its
	 * body groups' choices as told */
	bool body = picture && (part != SMDMX_NONE || (!r->o->model && qc->part_count));
	uint32_t *choices = body ? pj_calloc(&r->mem, qc->part_count + 1, sizeof(uint32_t)) : NULL;
	if (body && !choices) {
		smdmx_qc_free(qc);
		return NULL;
	}
	for (size_t i = 0; part != SMDMX_NONE && i < qc->part_count; i++) choices[i] = i == part ? 0 : SMDMX_NONE;
	if (r->o->bodygroup_count && !body) {
		if (r->o->model)
			pj_error(&r->said, SMDMX_ERROR_USAGE, in, 0, 0, "--bodygroup chooses in the whole model or a body part: '%s' is a $model", r->o->model);
		else
			pj_error(&r->said, SMDMX_ERROR_USAGE, in, 0, 0, "--bodygroup chooses in a QC's body parts: the QC has none");
	}
	bool chosen = !r->o->bodygroup_count || body;
	for (size_t i = 0; chosen && body && i < r->o->bodygroup_count; i++) {
		smdmx_error e;
		chosen = smdmx_qc_choose(qc, r->o->bodygroups[i], choices, &e);
		if (!chosen) pj_error(&r->said, e.code, in, 0, 0, "%s", e.message);
		/* a part chosen twice: one of the two would be left unsaid */
		const char *a = r->o->bodygroups[i], *eq = strchr(a, '=');
		for (size_t k = 0; chosen && eq && k < i; k++) {
			const char *b = r->o->bodygroups[k], *eqb = strchr(b, '=');
			if (eqb && eqb - b == eq - a && !strncasecmp(a, b, (size_t)(eq - a))) {
				pj_error(&r->said, SMDMX_ERROR_USAGE, in, 0, 0, "--bodygroup chooses in '%.*s' twice ('%s', '%s'): give one", (int)(eq - a), a, b, a);
				chosen = false;
			}
		}
	}
	if (!chosen) {
		pj_free(&r->mem, choices);
		smdmx_qc_free(qc);
		return NULL;
	}
	if (mi != SMDMX_NONE && !r->o->model && qc->model_count > 1 && !body)
		pj_add(&r->said, in, 0, 0, "warning", "the QC has %zu $models: only the first, '%s', is converted; give --model NAME for another",
		         qc->model_count, qc->models[mi].name);
	uint32_t ri = smdmx_qc_scene_ref(qc, mi);
	const smdmx_qc_ref *ref = ri != SMDMX_NONE ? &qc->refs[ri] : NULL;
	if (ref && ref->found && !(r->o->way == SMDMX_CONVERT_QC_SCENE) && !strcasecmp(os_path_extension(ref->path), "dmx")) {
		if (mi == SMDMX_NONE)
			pj_error(&r->said, SMDMX_ERROR_USAGE, in, ref->pos.line, ref->pos.column, "'%s' is a DMX already", ref->name);
		else
			pj_error(&r->said, SMDMX_ERROR_USAGE, in, ref->pos.line, ref->pos.column,
			         "$model '%s' is a DMX already ('%s'): smdmx qc converts a whole project", qc->models[mi].name, ref->name);
		smdmx_qc_free(qc);
		return NULL;
	}
	qc_reading q = { r, false };
	smdmx_qc_scene_options so = { .smd = r->o->smd_read, .dmx = r->o->dmx_read, .rig_in_qc = r->o->rig_in_qc, .file_read = qc_file_read, .user = &q,
		                      .as_files = picture && r->o->as_files, .placed = picture, .what_is_there = picture };
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_scene *scene = body ? smdmx_qc_body_scene(qc, choices, &so, &err, &w) : smdmx_qc_model_scene(qc, mi, &so, &err, &w);
	pj_free(&r->mem, choices);
	if ((r->o->way == SMDMX_CONVERT_QC_SCENE)) drop_dmx_only(&w);
	cv_warn(r, in, &w);
	if (!scene && !q.failed) cv_fail(r, in, &err);
	bool animation = mi == SMDMX_NONE && !r->o->model && !body;
	if (scene && picture && animation && !r->o->as_files) scene = over_model(r, qc, in, scene, &so);
	smdmx_qc_free(qc);
	return scene;
}


/* smd2dmx --qc: a QC's $model (or, without one, its first animation) into one DMX. */
bool cv_qc_to_dmx(cv_run *r)
{
	const char *in = r->o->inputs[0];
	smdmx_scene *scene = cv_qc_scene(r);
	if (!scene) return false;
	smdmx_error err;
	smdmx_warnings w = { 0 };
	char sum[512] = "";
	cv_summarize(scene, sum, sizeof(sum));
	smdmx_dm *dm = sm_model_from_valid_scene_taking(scene, &r->o->model_options, &err, &w);
	cv_warn(r, in, &w);
	bool ok = dm != NULL || cv_fail(r, in, &err);
	smdmx_scene_free(scene);
	ok = ok && cv_warnings_allowed(r, in);
	ok = ok && cv_write_dmx(r, dm, r->o->output);
	if (ok) cv_note_written(r, in, sum);
	smdmx_dm_free(dm);
	return ok;
}
