/* One model converted (smdmx_convert, smdmx/convert.h): read (SMD, VTA, a QC's $model or DMX),
 * converted, its outputs written all or nothing; what it says kept as messages. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"
#include "smdmx/convert.h"
#include "model/model_valid.h"
#include "smd/smd_valid.h"
#include "support/internal.h"

/* defer: a set of more files than this is flushed and closed before it is handed back. */
enum { DEFER_OPEN_MAX = 4 };

typedef struct run {
	const smdmx_convert_options *o; /* the caller's, or opts */
	smdmx_convert_options opts;     /* with the job's allocator in every step's options */
	sm_budget budget;               /* the job's allocator: every step's memory counted together */
	smdmx_allocator hooks;          /* what every step takes (zero: malloc's) */
	pj_msgs said;
	pj_outputs outs;
	char **deps;
	size_t dep_count;
	unsigned used;
	bool broken_pipe;     /* standard output's reader went away */
	bool posed;           /* the picture's pose: the scene's first clip at its first frame */
	char why[1024];
} run;

/* A file read besides the inputs, each once. */
static void add_dep(run *r, const char *path)
{
	for (size_t k = 0; k < r->dep_count; k++)
		if (!strcmp(r->deps[k], path)) return;
	for (size_t k = 0; k < r->o->input_count; k++)
		if (!strcmp(r->o->inputs[k], path)) return;
	qp_list_push(&r->deps, &r->dep_count, pj_strdup(path));
}

static bool fail(run *r, const char *path, const smdmx_error *e)
{
	pj_add_error(&r->said, path, e);
	return false;
}

static bool fail_msg(run *r, const char *path, const char *msg)
{
	pj_add(&r->said, path, 0, 0, "error", "%s", msg);
	return false;
}

static void warn(run *r, const char *path, const smdmx_warnings *w)
{
	pj_add_warnings(&r->said, path, w);
}

/* -W error: once warnings were given, the file fails before anything is written. */
static bool warnings_allowed(run *r, const char *in)
{
	return !(r->o->warnings_fail && r->said.warnings) || fail_msg(r, in, "warnings are errors (-W error)");
}

/* Opens an output for path after checking that it may be written. */
static pj_output *open_out(run *r, const char *path)
{
	const smdmx_convert_options *o = r->o;
	char *ins[258];
	size_t n = 0;
	for (size_t i = 0; i < o->input_count && n < 256; i++) ins[n++] = (char *)o->inputs[i];
	if (o->vta && o->way == SMDMX_CONVERT_SMD_TO_DMX) ins[n++] = (char *)o->vta;
	if (!pj_output_allowed(path, ins, n, o->force, r->why, sizeof(r->why))) {
		fail_msg(r, path, r->why);
		return NULL;
	}
	pj_output *out = pj_outputs_open(&r->outs, path, r->why, sizeof(r->why));
	if (!out) fail_msg(r, path, r->why);
	return out;
}

/* After a failed write: the file system's reason when there is one. */
static bool fail_write(run *r, pj_output *out, const smdmx_error *e)
{
	/* standard output whose reader is gone (| head): the caller ends as quietly as a signal would */
	if (smdmx_output_errno(out) == EPIPE && !strcmp(smdmx_output_path(out), "-")) r->broken_pipe = true;
	if (e->code == SMDMX_ERROR_IO && smdmx_output_errno(out)) {
		snprintf(r->why, sizeof(r->why), "cannot write: %s", os_error_text(smdmx_output_errno(out)));
		return fail_msg(r, smdmx_output_path(out), r->why);
	}
	return fail(r, smdmx_output_path(out), e);
}

/* "2 joints, 1 mesh (20 polygons), 1 flex shape, 1 clip (11 frames)": what a scene holds,
 * for --verbose. */
static void summarize(const smdmx_scene *s, char *buf, size_t size)
{
	size_t polygons = 0;
	for (size_t m = 0; m < s->mesh_count; m++)
		for (size_t f = 0; f < s->meshes[m].face_set_count; f++) polygons += s->meshes[m].face_sets[f].polygon_count;
	int n = snprintf(buf, size, "%zu joint%s, %zu mesh%s (%zu polygons), %zu flex shape%s, %zu clip%s", s->joint_count,
	                 s->joint_count == 1 ? "" : "s", s->mesh_count, s->mesh_count == 1 ? "" : "es", polygons,
	                 s->flex_shape_count, s->flex_shape_count == 1 ? "" : "s", s->clip_count, s->clip_count == 1 ? "" : "s");
	/* the V convention a DMX's UVs were read in (C9) */
	if (n > 0 && (size_t)n < size && s->source.dmx_v_flag_false)
		n += snprintf(buf + n, size - (size_t)n, ", UV V turned (flipVCoordinates false) in %zu mesh%s", s->source.dmx_v_flag_false,
		              s->source.dmx_v_flag_false == 1 ? "" : "es");
	if (n > 0 && (size_t)n < size && s->source.dmx_v_flag_missing)
		snprintf(buf + n, size - (size_t)n, ", UV V as stored (no flipVCoordinates: Source 1's way) in %zu mesh%s",
		         s->source.dmx_v_flag_missing, s->source.dmx_v_flag_missing == 1 ? "" : "es");
}

/* The note --verbose prints: what was read, and the files written. */
static void note_written(run *r, const char *in, const char *what)
{
	if (!r->o->notes) return;
	char list[1024] = "";
	size_t len = 0;
	for (size_t i = 0; i < pj_outputs_count(&r->outs) && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? " and " : "", smdmx_output_path(pj_outputs_item(&r->outs, i)));
	pj_add(&r->said, in, 0, 0, "note", "%s -> %s", what, list);
}

/* The --verbose note of a conversion from a scene. */
static void note_scene(run *r, const char *in, const smdmx_scene *scene)
{
	if (!r->o->notes) return;
	char what[512];
	summarize(scene, what, sizeof(what));
	note_written(r, in, what);
}

static bool write_dmx(run *r, smdmx_dm *dm, const char *path)
{
	pj_output *out = open_out(r, path);
	if (!out) return false;
	smdmx_error err;
	if (!smdmx_dmx_write(dm, pj_output_write, out, &r->o->dmx_write, &err)) return fail_write(r, out, &err);
	return true;
}

/* The scenes written here come from library calls that validate what they make or change
 * (the readers, smdmx_model_to_scene, the QC scenes, the scene operations, smdmx_qc_from_scene),
 * so they go to the writers that do not validate again (doc/speed.md, "One validation"). */
static bool write_smd(run *r, const smdmx_scene *s, const char *path, const smdmx_smd_write_options *w)
{
	pj_output *out = open_out(r, path);
	if (!out) return false;
	smdmx_error err;
	if (!sm_smd_write_valid(s, pj_output_write, out, w, &err)) return fail_write(r, out, &err);
	return true;
}

static bool shape(run *r, smdmx_scene *scene, const char *in)
{
	smdmx_error err;
	if ((r->o->scale == 1.0 || r->o->scale == 0) && !r->o->up_axis) return true;
	if (!smdmx_scene_transform(scene, r->o->scale ? r->o->scale : 1.0, r->o->up_axis, &err)) return fail(r, in, &err);
	return true;
}

/* A DMX from its path, or standard input's bytes ("-"). */
static smdmx_dm *read_dmx(run *r, const char *path, smdmx_error *err, smdmx_warnings *w)
{
	if (strcmp(path, "-")) return smdmx_dmx_read_file(path, &r->o->dmx_read, err, w);
	return smdmx_dmx_read_memory(r->o->input_data ? r->o->input_data : "", r->o->input_size, &r->o->dmx_read, err, w);
}

static smdmx_scene *read_smd(run *r, const char *path)
{
	smdmx_error err;
	smdmx_warnings warn_list;
	smdmx_scene *s = strcmp(path, "-") ? smdmx_smd_read_file(path, &r->o->smd_read, &err, &warn_list)
	                                   : smdmx_smd_read_memory(r->o->input_data ? r->o->input_data : "", r->o->input_size,
	                                                           &r->o->smd_read, &err, &warn_list);
	warn(r, path, &warn_list);
	if (!s) fail(r, path, &err);
	return s;
}

/* Options about animation (--fps, --keys, --key-tolerance) take effect on a file that has
 * one; on a file converted alone that has none, each is said. (In a batch, one that took
 * effect on no input is said at the end.) */
static void animation_options(run *r, const smdmx_scene *s, const char *in)
{
	static const struct {
		unsigned opt;
		const char *name;
	} anim[] = { { SMDMX_CONVERT_GIVEN_FPS, "--fps" }, { SMDMX_CONVERT_GIVEN_KEYS, "--keys" },
		     { SMDMX_CONVERT_GIVEN_KEY_TOLERANCE, "--key-tolerance" } };
	for (size_t k = 0; k < sizeof(anim) / sizeof(anim[0]); k++) {
		if (!(r->o->given & anim[k].opt)) continue;
		if (s->clip_count) r->used |= anim[k].opt;
		else if (r->o->alone)
			pj_add(&r->said, in, 0, 0, "warning", "'%s' does not apply here (the file has no animation): ignored; nothing to do",
			         anim[k].name);
	}
}

/* SMD (reference or animations, with a VTA) into a model DMX. */
static bool smd_to_dmx(run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0];
	smdmx_error err;
	smdmx_warnings w;
	smdmx_scene *scene = read_smd(r, in);
	if (!scene) return false;
	bool ok = true;
	/* --clips: the animations of the other files, one clip each, on the first one's bones. */
	for (size_t i = 1; ok && i < j->input_count; i++) {
		smdmx_scene *more = read_smd(r, j->inputs[i]);
		for (size_t c = 0; more && ok && c < more->clip_count; c++)
			for (size_t k = 0; ok && k < scene->clip_count; k++)
				if (!strcmp(scene->clips[k].name, more->clips[c].name)) {
					char msg[600];
					snprintf(msg, sizeof(msg), "its clip is named '%s', as the clip of '%s': clips are known by their names (rename a file)",
					         more->clips[c].name, j->inputs[k]);
					ok = fail_msg(r, j->inputs[i], msg);
				}
		ok = ok && more && (smdmx_scene_add_clips(scene, more, &err) || fail(r, j->inputs[i], &err));
		smdmx_scene_free(more);
	}
	if (ok && j->vta && !scene->mesh_count)
		ok = fail_msg(r, in, "the file has no triangles for the shapes of a VTA");
	if (ok && j->vta) {
		/* Decision 10: the VTA's shapes become delta states of the reference. */
		smdmx_scene *flex = read_smd(r, j->vta);
		ok = flex != NULL;
		if (ok) {
			ok = smdmx_scene_attach_vta(scene, flex, &err, &w);
			warn(r, j->vta, &w);
			if (!ok) fail(r, j->vta, &err);
		}
		smdmx_scene_free(flex);
	}
	ok = ok && shape(r, scene, in);
	if (ok) animation_options(r, scene, in);
	char what[512];
	summarize(scene, what, sizeof(what));
	smdmx_dm *dm = NULL;
	if (ok) {
		dm = sm_model_from_valid_scene_taking(scene, &r->o->model_options, &err, &w);
		warn(r, in, &w);
		if (!dm) ok = fail(r, in, &err);
	}
	smdmx_scene_free(scene);
	ok = ok && warnings_allowed(r, in);
	ok = ok && write_dmx(r, dm, j->output);
	if (ok) {
		size_t len = strlen(what);
		snprintf(what + len, sizeof(what) - len, " as %zu elements, model format %d", dm->element_count, dm->format_version);
		note_written(r, in, what);
	}
	smdmx_dm_free(dm);
	return ok;
}

/* The QC, its warnings given (each in the file it is about). */
static smdmx_qc *read_qc(run *r, const char *path)
{
	smdmx_error err;
	smdmx_warnings w;
	smdmx_qc_read_options ro = { .allocator = r->hooks };
	smdmx_qc *qc = smdmx_qc_read_file(path, &ro, &err, &w);
	warn(r, path, &w);
	if (!qc) {
		fail(r, path, &err);
		return NULL;
	}
	for (size_t i = 1; i < qc->file_count; i++) add_dep(r, qc->files[i].path);
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
	run *r;
	bool failed; /* a file's error, said */
} qc_reading;

/* Each file a QC's scene is read from: a dependency, its warnings and its error said. */
static void qc_file_read(void *user, const char *path, const smdmx_warnings *w, const smdmx_error *e)
{
	qc_reading *q = user;
	add_dep(q->r, path);
	if (w) warn(q->r, path, w);
	if (e) q->failed = !fail(q->r, path, e);
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
static smdmx_qc *including_qc(run *r, const char *in, const smdmx_qc *qc, char **path)
{
	const char *slash = os_last_separator(in);
	char *dir = slash ? pj_asprintf("%.*s", (int)(slash - in + 1), in) : pj_strdup(".");
	os_dir *d = dir ? os_dir_open(dir) : NULL;
	size_t n = 0;
	char **names = d ? pj_dir_names(d, &n) : NULL;
	smdmx_qc *found = NULL;
	for (int whole = 1; whole >= 0 && !found; whole--)
		for (size_t i = 0; i < n && !found; i++) {
			*path = strcasecmp(os_path_extension(names[i]), "qc") ? NULL : pj_path_join(dir, names[i]);
			smdmx_qc_read_options ro = { .allocator = r->hooks, .keep_going = true };
			smdmx_error e;
			smdmx_qc *m = *path && os_path_compare(*path, in) ? smdmx_qc_read_file(*path, &ro, &e, NULL) : NULL;
			for (size_t k = 0; m && !found && k < m->include_model_count; k++)
				if (same_mdl(m->include_models[k], qc->model_name, whole)) found = m;
			if (!found) {
				smdmx_qc_free(m);
				free(*path);
				*path = NULL;
			}
		}
	for (size_t i = 0; i < n; i++) free(names[i]);
	free(names);
	free(dir);
	return found;
}

/* An animation-only QC's picture: its first animation over the model of the QC beside it
 * that includes it ($includemodel), posed at its first frame (result->posed); the bones the
 * model lacks left out, and said. anim as it is when there is no such model. */
static smdmx_scene *over_model(run *r, const smdmx_qc *qc, const char *in, smdmx_scene *anim, const smdmx_qc_scene_options *so)
{
	char *path = NULL;
	smdmx_qc *m = qc->model_name && anim->clip_count ? including_qc(r, in, qc, &path) : NULL;
	if (!m) return anim;
	smdmx_error e;
	smdmx_warnings w;
	smdmx_qc_scene_options mo = *so;
	mo.file_read = NULL;
	smdmx_scene *model = m->part_count ? smdmx_qc_body_scene(m, NULL, &mo, &e, &w)
	                     : m->model_count ? smdmx_qc_model_scene(m, 0, &mo, &e, &w) : NULL;
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
	free(path);
	return anim;
}

/* A QC's $model (smdmx_qc_model_scene): its SMD, its flexfile's shapes named and rigged as
 * the QC says, the QC's attachments, $scale and $upaxis; without a $model, its first
 * animation. A DMX is drawn, not converted (smdmx qc converts a whole project). */
static smdmx_scene *qc_scene(run *r)
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
			pj_add(&r->said, in, 0, 0, "error", "no $model or body part named '%s' (the QC has %zu $models, %zu body parts)",
			       r->o->model, qc->model_count, qc->part_count);
		else
			pj_add(&r->said, in, 0, 0, "error", "no $model named '%s' (the QC has %zu)", r->o->model, qc->model_count);
		smdmx_qc_free(qc);
		return NULL;
	}
	/* a picture: the whole model studiomdl builds (every body part, or the one named), its
	 * body groups' choices as told */
	bool body = picture && (part != SMDMX_NONE || (!r->o->model && qc->part_count));
	uint32_t *choices = body ? pj_calloc(qc->part_count + 1, sizeof(uint32_t)) : NULL;
	if (body && !choices) {
		smdmx_qc_free(qc);
		return NULL;
	}
	for (size_t i = 0; part != SMDMX_NONE && i < qc->part_count; i++) choices[i] = i == part ? 0 : SMDMX_NONE;
	if (r->o->bodygroup_count && !body) {
		if (r->o->model)
			pj_add(&r->said, in, 0, 0, "error", "--bodygroup chooses in the whole model or a body part: '%s' is a $model", r->o->model);
		else
			pj_add(&r->said, in, 0, 0, "error", "--bodygroup chooses in a QC's body parts: the QC has none");
	}
	bool chosen = !r->o->bodygroup_count || body;
	for (size_t i = 0; chosen && body && i < r->o->bodygroup_count; i++) {
		smdmx_error e;
		chosen = smdmx_qc_choose(qc, r->o->bodygroups[i], choices, &e);
		if (!chosen) pj_add(&r->said, in, 0, 0, "error", "%s", e.message);
		/* a part chosen twice: one of the two would be left unsaid */
		const char *a = r->o->bodygroups[i], *eq = strchr(a, '=');
		for (size_t k = 0; chosen && eq && k < i; k++) {
			const char *b = r->o->bodygroups[k], *eqb = strchr(b, '=');
			if (eqb && eqb - b == eq - a && !strncasecmp(a, b, (size_t)(eq - a))) {
				pj_add(&r->said, in, 0, 0, "error", "--bodygroup chooses in '%.*s' twice ('%s', '%s'): give one", (int)(eq - a), a, b, a);
				chosen = false;
			}
		}
	}
	if (!chosen) {
		free(choices);
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
			pj_add(&r->said, in, ref->pos.line, ref->pos.column, "error", "'%s' is a DMX already", ref->name);
		else
			pj_add(&r->said, in, ref->pos.line, ref->pos.column, "error",
			         "$model '%s' is a DMX already ('%s'): smdmx qc converts a whole project", qc->models[mi].name, ref->name);
		smdmx_qc_free(qc);
		return NULL;
	}
	qc_reading q = { r, false };
	smdmx_qc_scene_options so = { .smd = r->o->smd_read, .dmx = r->o->dmx_read, .rig_in_qc = r->o->rig_in_qc, .file_read = qc_file_read, .user = &q,
		                      .as_files = picture && r->o->as_files, .placed = picture, .what_is_there = picture };
	smdmx_error err;
	smdmx_warnings w;
	smdmx_scene *scene = body ? smdmx_qc_body_scene(qc, choices, &so, &err, &w) : smdmx_qc_model_scene(qc, mi, &so, &err, &w);
	free(choices);
	if ((r->o->way == SMDMX_CONVERT_QC_SCENE)) drop_dmx_only(&w);
	warn(r, in, &w);
	if (!scene && !q.failed) fail(r, in, &err);
	bool animation = mi == SMDMX_NONE && !r->o->model && !body;
	if (scene && picture && animation && !r->o->as_files) scene = over_model(r, qc, in, scene, &so);
	smdmx_qc_free(qc);
	return scene;
}


/* smd2dmx --qc: a QC's $model (or, without one, its first animation) into one DMX. */
static bool qc_to_dmx(run *r)
{
	const char *in = r->o->inputs[0];
	smdmx_scene *scene = qc_scene(r);
	if (!scene) return false;
	smdmx_error err;
	smdmx_warnings w;
	char sum[512] = "";
	summarize(scene, sum, sizeof(sum));
	smdmx_dm *dm = sm_model_from_valid_scene_taking(scene, &r->o->model_options, &err, &w);
	warn(r, in, &w);
	bool ok = dm != NULL || fail(r, in, &err);
	smdmx_scene_free(scene);
	ok = ok && warnings_allowed(r, in);
	ok = ok && write_dmx(r, dm, r->o->output);
	if (ok) note_written(r, in, sum);
	smdmx_dm_free(dm);
	return ok;
}

/* What a DMX taken through the scene left behind: element types and attributes of the input
 * that the output has nowhere, one warning with their count and the first names. */
typedef struct not_carried {
	size_t lost, len;
	char list[400];
} not_carried;

static void name_not_carried(void *user, const char *name)
{
	not_carried *n = user;
	if (n->lost++ < 6 && n->len < sizeof(n->list))
		n->len += (size_t)snprintf(n->list + n->len, sizeof(n->list) - n->len, "%s%s", n->lost > 1 ? ", " : "", name);
}

static void report_not_carried(run *r, const smdmx_dm *in, const smdmx_dm *out, const char *path)
{
	not_carried n = { 0, 0, "" };
	if (smdmx_model_not_carried(in, out, name_not_carried, &n) == SIZE_MAX) {
		pj_add(&r->said, path, 0, 0, "warning", "out of memory listing what the new model format does not carry");
		return;
	}
	if (n.lost)
		pj_add(&r->said, path, 0, 0, "warning",
		         "%zu element types and attributes are not carried into the new model format (%s%s): left out; keep the "
		         "source DMX if they matter",
		         n.lost, n.list, n.lost > 6 ? ", ..." : "");
}

/* DMX to DMX: a plain re-encode is a copy of the datamodel, lossless; an option that changes
 * the model (its format version, --scale, --up-axis, --keys, --key-tolerance) takes it through
 * the scene, and what the scene does not carry is said. */
static bool dmx_to_dmx(run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0];
	smdmx_error err;
	smdmx_warnings w;
	smdmx_dm *dm = read_dmx(r, in, &err, &w);
	warn(r, in, &w);
	if (!dm) return fail(r, in, &err);
	const smdmx_convert_options *o = r->o;
	/* a model: format "model", or "dmx" with a model under its root, as s&box writes them */
	bool model = dm->format && !strcmp(dm->format, "model");
	if (dm->format && !strcmp(dm->format, "dmx") && dm->root != SMDMX_NONE) {
		const smdmx_dm_attr *m = smdmx_dm_find_attr(dm, dm->root, "model");
		if (!m || m->type != SMDMX_DM_ELEMENT || m->value.element == SMDMX_NONE) m = smdmx_dm_find_attr(dm, dm->root, "skeleton");
		model = m && m->type == SMDMX_DM_ELEMENT && !m->is_array && m->value.element != SMDMX_NONE;
	}
	unsigned changes = o->given & (SMDMX_CONVERT_GIVEN_MODEL_VERSION | SMDMX_CONVERT_GIVEN_SCALE | SMDMX_CONVERT_GIVEN_UP_AXIS |
	                               SMDMX_CONVERT_GIVEN_KEYS | SMDMX_CONVERT_GIVEN_KEY_TOLERANCE);
	if ((o->given & SMDMX_CONVERT_GIVEN_TARGET) && o->model_options.model_version && o->model_options.model_version != dm->format_version)
		changes |= SMDMX_CONVERT_GIVEN_TARGET;
	if ((o->given & SMDMX_CONVERT_GIVEN_MODEL_VERSION) && o->model_options.model_version == dm->format_version &&
	    !(changes & ~(unsigned)SMDMX_CONVERT_GIVEN_MODEL_VERSION))
		changes = 0; /* already that format */
	bool ok = true;
	smdmx_dm *outdm = dm;
	if (changes && !model) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s change%s a model, but the file's format is '%s'",
		         changes & SMDMX_CONVERT_GIVEN_MODEL_VERSION ? "--model-version" : changes & SMDMX_CONVERT_GIVEN_TARGET ? "--target"
		         : changes & SMDMX_CONVERT_GIVEN_SCALE ? "--scale" : changes & SMDMX_CONVERT_GIVEN_UP_AXIS ? "--up-axis"
		         : changes & SMDMX_CONVERT_GIVEN_KEYS ? "--keys" : "--key-tolerance",
		         "s", dm->format ? dm->format : "?");
		ok = fail_msg(r, in, msg);
	} else if (changes) {
		smdmx_model_options lift = { .allocator = r->hooks };
		smdmx_scene *scene = smdmx_model_to_scene(dm, &lift, &err, &w);
		/* the fields the scene leaves out are among what is not carried, said below */
		size_t k = 0;
		for (size_t i = 0; i < w.count; i++)
			if (w.data[i].code != SMDMX_WARNING_DROPPED_VERTEX_DATA) w.data[k++] = w.data[i];
		w.count = k;
		warn(r, in, &w);
		if (!scene) ok = fail(r, in, &err);
		ok = ok && shape(r, scene, in);
		if (ok) animation_options(r, scene, in);
		smdmx_model_options mo = o->model_options;
		if (!mo.model_version) mo.model_version = dm->format_version;
		if (ok) {
			outdm = sm_model_from_valid_scene_taking(scene, &mo, &err, &w);
			warn(r, in, &w);
			if (!outdm) ok = fail(r, in, &err);
		}
		if (ok) report_not_carried(r, dm, outdm, in);
		smdmx_scene_free(scene);
	}
	/* binary before version 9 has no place for a file's prefix attributes (B9) */
	bool binary = o->dmx_write.encoding && !strcmp(o->dmx_write.encoding, "binary");
	/* (no model made: nothing to say of its encoding) */
	int version = !ok || !outdm ? 0 : o->dmx_write.encoding_version ? o->dmx_write.encoding_version : smdmx_dmx_default_version(outdm, "binary");
	if (ok && outdm->prefix_attr_count && binary && version < 9)
		pj_add(&r->said, in, 0, 0, "warning", "%zu prefix attributes left out: binary version %d has no place for them; "
		         "use --encoding-version 9 to keep them",
		         outdm->prefix_attr_count, version);
	ok = ok && warnings_allowed(r, in) && write_dmx(r, outdm, j->output);
	if (ok) {
		char what[256];
		snprintf(what, sizeof(what), "%s %d, format %s %d, %zu elements%s", outdm->encoding ? outdm->encoding : "-",
		         outdm->encoding_version, outdm->format, outdm->format_version, outdm->element_count - smdmx_dm_stub_count(outdm),
		         outdm != dm ? " (through the scene)" : "");
		note_written(r, in, what);
	}
	if (outdm != dm) smdmx_dm_free(outdm);
	smdmx_dm_free(dm);
	return ok;
}

/* A text file, all or nothing with the job's other outputs. */
static bool write_text(run *r, const char *path, const char *text)
{
	pj_output *o = open_out(r, path);
	if (!o) return false;
	if (!pj_output_write(o, text, strlen(text))) {
		snprintf(r->why, sizeof(r->why), "cannot write: %s", os_error_text(smdmx_output_errno(o)));
		return fail_msg(r, path, r->why);
	}
	return true;
}

/* The $sequence lines of dmx2smd --qc: one per clip file written (names and files owned). */
typedef struct seq_list {
	smdmx_qc_sequence *v;
	size_t n;
} seq_list;

static void seq_list_free(seq_list *l)
{
	for (size_t i = 0; i < l->n; i++) free((char *)l->v[i].name), free((char *)l->v[i].file);
	free(l->v);
}

/* dmx2smd --qc: a QC naming the SMD (and VTA), with what SMD cannot hold (smdmx_qc_text); smd
 * NULL for clips alone. */
static bool write_qc_text(run *r, const smdmx_scene *scene, const char *smd, const char *model_lines, const char *att_lines,
                          const seq_list *seqs)
{
	char *rel = smd ? pj_path_relative(r->o->qc, smd) : NULL;
	const char *slash = smd ? os_last_separator(smd) : NULL;
	char *stem = smd ? pj_strdup(slash ? slash + 1 : smd) : NULL;
	char *dot = stem ? strrchr(stem, '.') : NULL;
	if (dot && dot != stem) *dot = 0;
	char *text = smdmx_qc_text(scene, stem, rel, model_lines, att_lines, seqs->v, seqs->n);
	bool ok = text ? write_text(r, r->o->qc, text) : fail_msg(r, r->o->qc, "out of memory");
	smdmx_qc_text_free(text);
	free(stem);
	free(rel);
	return ok;
}

/* A model or animation DMX into SMD: a reference (and its VTA beside it when the model has
 * shapes), or one SMD per clip (--clip NAME for one). */
/* What the SMD (and VTA) written cannot hold, said; with --qc less what the QC carries, and
 * with one file per clip, the clips. */
static void report_smd_losses(run *r, const smdmx_scene *scene, const smdmx_smd_write_options *wo, const char *out,
                              bool file_per_clip)
{
	smdmx_warnings losses;
	memset(&losses, 0, sizeof(losses));
	smdmx_smd_report_losses(scene, wo, true, &losses);
	/* the QC dmx2smd --qc writes has the rig, $upaxis and every clip's fps */
	bool qc = r->o->qc != NULL;
	smdmx_smd_carried c = { .rig = qc, .up_axis = qc, .frame_rate = qc, .clips = file_per_clip };
	smdmx_smd_losses_carried(&losses, &c);
	warn(r, out, &losses);
}

/* Clips of one name (other writers allow them) get files of their own: the second "NAME_2",
 * said before anything is written. */
static void say_clip_names(run *r, const smdmx_scene *scene, size_t first, size_t last, const char *in)
{
	for (size_t c = first; c < last; c++) {
		size_t same = 1;
		for (size_t k = first; k < c; k++) same += !strcmp(scene->clips[k].name, scene->clips[c].name);
		if (same > 1)
			pj_add(&r->said, in, 0, 0, "warning", "clip %zu of the file is named '%s' as an earlier one: written as '%s_%zu'; "
			         "nothing to do",
			         c + 1, scene->clips[c].name, scene->clips[c].name, same);
	}
}

/* Clips first .. last - 1, an animation SMD each: named out, or out with the clip's name as a
 * suffix when suffix (several clips, or a reference beside them); with --qc, their $sequence
 * lines added to seqs. */
static bool write_clips(run *r, const smdmx_scene *scene, smdmx_smd_write_options wo, const char *out, size_t first, size_t last,
                        bool suffix, seq_list *seqs)
{
	bool ok = true;
	wo.kind = SMDMX_SMD_WRITE_ANIMATION;
	for (size_t c = first; ok && c < last; c++) {
		size_t same = 1;
		for (size_t k = first; k < c; k++) same += !strcmp(scene->clips[k].name, scene->clips[c].name);
		char *name = same > 1 ? pj_asprintf("%s_%zu", scene->clips[c].name, same) : pj_strdup(scene->clips[c].name);
		char *path = suffix ? pj_path_with_suffix(out, name) : pj_strdup(out);
		wo.clip = c;
		ok = write_smd(r, scene, path, &wo);
		if (ok && r->o->qc) {
			smdmx_qc_sequence *g = pj_realloc(seqs->v, (seqs->n + 1) * sizeof(*g));
			if (!g) ok = fail_msg(r, r->o->qc, "out of memory");
			else seqs->v = g, seqs->v[seqs->n++] = (smdmx_qc_sequence){ pj_strdup(name), pj_path_relative(r->o->qc, path), scene->clips[c].frame_rate };
		}
		free(path);
		free(name);
	}
	return ok;
}

static bool dmx_to_smd(run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0], *out = j->output;
	smdmx_error err;
	smdmx_warnings w;
	smdmx_dm *dm = read_dmx(r, in, &err, &w);
	warn(r, in, &w);
	if (!dm) return fail(r, in, &err);
	smdmx_model_options lift = { .allocator = r->hooks };
	smdmx_scene *scene = sm_model_to_scene_taking(dm, &lift, &err, &w);
	smdmx_dm_free(dm);
	warn(r, in, &w);
	if (!scene) return fail(r, in, &err);
	bool ok = shape(r, scene, in);
	/* flex controllers alone (a file of them, as Blender Source Tools writes one): nothing an
	 * SMD or a QC beside it can hold, the shapes their raw controls name being elsewhere */
	if (ok && !scene->joint_count && !scene->mesh_count && !scene->clip_count) {
		snprintf(r->why, sizeof(r->why),
		         "a DMX of %zu flex controllers and nothing else (no mesh, skeleton or animation): no SMD holds them, and a QC "
		         "names a controller's shapes only beside them; keep the DMX",
		         scene->flex_controller_count);
		ok = fail_msg(r, in, r->why);
	}
	smdmx_smd_write_options wo = r->o->smd_write;
	if (!strcasecmp(os_path_extension(out), "vta")) wo.kind = SMDMX_SMD_WRITE_VTA;
	if (wo.kind == SMDMX_SMD_WRITE_AUTO) wo.kind = scene->mesh_count ? SMDMX_SMD_WRITE_REFERENCE : SMDMX_SMD_WRITE_ANIMATION;
	bool to_stdout = !strcmp(out, "-");
	if (ok && r->o->clip && (wo.kind != SMDMX_SMD_WRITE_ANIMATION || !scene->clip_count))
		ok = fail_msg(r, in, scene->clip_count ? "--clip picks a clip to write as an animation SMD, but the model is written as a reference: "
		                                         "give one or the other"
		                                       : "--clip picks a clip, but the file has no animation");
	if (ok && j->vta && !(scene->flex_shape_count && wo.kind == SMDMX_SMD_WRITE_REFERENCE))
		ok = fail_msg(r, in, "--vta names the VTA of the model's flex shapes, but there are none to write");
	if (ok && wo.kind == SMDMX_SMD_WRITE_ANIMATION && scene->clip_count) {
		/* One SMD per clip, or the one asked for. */
		size_t first = 0, last = scene->clip_count;
		if (r->o->clip) {
			while (first < scene->clip_count && strcmp(scene->clips[first].name, r->o->clip)) first++;
			if (first == scene->clip_count) {
				size_t len = (size_t)snprintf(r->why, sizeof(r->why), "no clip named '%s' (the file has", r->o->clip);
				for (size_t c = 0; c < scene->clip_count && len < sizeof(r->why); c++)
					len += (size_t)snprintf(r->why + len, sizeof(r->why) - len, " '%s'", scene->clips[c].name);
				if (len < sizeof(r->why)) snprintf(r->why + len, sizeof(r->why) - len, ")");
				ok = fail_msg(r, in, r->why);
			}
			last = first + 1;
		} else if (to_stdout && last > 1) {
			ok = fail_msg(r, in, "the file has several clips; --clip NAME picks one for standard output");
		}
		seq_list seqs = { NULL, 0 };
		char *atts = NULL, *unused = NULL;
		if (ok && r->o->qc) {
			ok = smdmx_qc_from_scene(scene, NULL, &unused, &atts, &err, &w);
			warn(r, r->o->qc, &w);
			if (!ok) fail(r, in, &err);
		}
		say_clip_names(r, scene, first, last, in);
		if (ok) report_smd_losses(r, scene, &wo, out, true);
		ok = ok && warnings_allowed(r, in);
		ok = ok && write_clips(r, scene, wo, out, first, last, last - first > 1, &seqs);
		if (ok && r->o->qc) ok = write_qc_text(r, scene, NULL, NULL, atts, &seqs);
		seq_list_free(&seqs);
		smdmx_qc_text_free(atts);
		smdmx_qc_text_free(unused);
		if (ok) note_scene(r, in, scene);
		smdmx_scene_free(scene);
		return ok;
	}
	bool vta_beside = ok && scene->flex_shape_count && wo.kind == SMDMX_SMD_WRITE_REFERENCE && !wo.goldsrc;
	char *qc_model = NULL, *qc_atts = NULL;
	char *vta_path = !vta_beside ? NULL : j->vta ? pj_strdup(j->vta) : pj_path_with_extension(out, "vta");
	if (ok && r->o->qc) {
		/* What SMD cannot hold goes into the QC; stereo shapes a flexpair cannot split are cut
		 * into halves in the scene before the VTA is written. */
		char *vta_rel = vta_path ? pj_path_relative(r->o->qc, vta_path) : NULL;
		ok = smdmx_qc_from_scene(scene, vta_rel, &qc_model, &qc_atts, &err, &w);
		free(vta_rel);
		warn(r, r->o->qc, &w);
		if (!ok) fail(r, in, &err);
	}
	/* A model's clips: an SMD each beside the reference (OUT_clip.smd) */
	size_t clips = wo.kind == SMDMX_SMD_WRITE_REFERENCE ? scene->clip_count : 0;
	if (ok) {
		report_smd_losses(r, scene, &wo, out, true);
		if (vta_beside && to_stdout && !j->vta) {
			pj_add(&r->said, in, 0, 0, "warning",
			         "%zu flex shapes not written: standard output holds no .vta beside the SMD; use --vta FILE "
			         "to write them",
			         scene->flex_shape_count);
			vta_beside = false;
		}
		if (clips && to_stdout) {
			pj_add(&r->said, in, 0, 0, "warning", "%zu clips not written: standard output holds no SMD beside the reference; "
			         "write to a file (-o or -d) to keep them",
			         clips);
			clips = 0;
		}
		say_clip_names(r, scene, 0, clips, in);
	}
	ok = ok && warnings_allowed(r, in);
	ok = ok && write_smd(r, scene, out, &wo);
	/* Shapes go to a VTA beside the SMD (decision 10). */
	smdmx_smd_write_options vo = wo;
	if (ok && vta_beside) {
		vo.kind = SMDMX_SMD_WRITE_VTA;
		ok = write_smd(r, scene, vta_path, &vo);
	}
	seq_list seqs = { NULL, 0 };
	ok = ok && write_clips(r, scene, wo, out, 0, clips, true, &seqs);
	if (ok && r->o->qc) ok = write_qc_text(r, scene, out, qc_model, qc_atts, &seqs);
	seq_list_free(&seqs);
	if (ok) note_scene(r, in, scene);
	smdmx_qc_text_free(qc_model);
	smdmx_qc_text_free(qc_atts);
	free(vta_path);
	smdmx_scene_free(scene);
	return ok;
}

static bool smd_to_smd(run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0];
	smdmx_smd_write_options wo = r->o->smd_write;
	if (!strcasecmp(os_path_extension(j->output), "vta"))
		wo.kind = SMDMX_SMD_WRITE_VTA;
	smdmx_scene *scene = read_smd(r, in);
	if (!scene) return false;
	bool ok = shape(r, scene, in);
	if (ok && wo.kind == SMDMX_SMD_WRITE_VTA && scene->flex_shape_count == 0 && scene->mesh_count == 0)
		ok = fail_msg(r, in, "nothing to write as VTA (no mesh)");
	if (ok && wo.goldsrc) {
		smdmx_warnings losses;
		memset(&losses, 0, sizeof(losses));
		smdmx_smd_report_losses(scene, &wo, true, &losses);
		warn(r, j->output, &losses);
	}
	ok = ok && warnings_allowed(r, in);
	ok = ok && write_smd(r, scene, j->output, &wo);
	if (ok) note_scene(r, in, scene);
	smdmx_scene_free(scene);
	return ok;
}

bool pj_allocator_given(const smdmx_allocator *a)
{
	return a->alloc_fn || a->realloc_fn || a->free_fn || a->user || a->memory_limit || a->fail_after;
}

bool pj_allocator_twice(const smdmx_convert_options *o)
{
	return pj_allocator_given(&o->allocator) &&
	       (pj_allocator_given(&o->smd_read.allocator) || pj_allocator_given(&o->dmx_read.allocator) ||
	        pj_allocator_given(&o->smd_write.allocator) || pj_allocator_given(&o->dmx_write.allocator) ||
	        pj_allocator_given(&o->model_options.allocator));
}

smdmx_convert_result *smdmx_convert(const smdmx_convert_options *o, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!o || !o->input_count || (!o->output && o->way != SMDMX_CONVERT_QC_SCENE)) {
		sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "%s", !o || !o->input_count ? "no input" : "no output");
		return NULL;
	}
	for (size_t i = 0; i < o->input_count; i++)
		if (!o->inputs || !o->inputs[i]) return sm_fail_null(error, __func__, "an input"), NULL;
	if (pj_allocator_twice(o)) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "%s", PJ_ALLOCATOR_TWICE), NULL;
	pj_oom_seen = false;
	run r;
	memset(&r, 0, sizeof(r));
	r.o = o;
	if (pj_allocator_given(&o->allocator)) {
		r.hooks = sm_budget_start(&r.budget, &o->allocator);
		r.opts = *o;
		r.opts.smd_read.allocator = r.opts.dmx_read.allocator = r.opts.smd_write.allocator = r.hooks;
		r.opts.dmx_write.allocator = r.opts.model_options.allocator = r.hooks;
		r.o = &r.opts;
	}
	r.outs.force = o->force;
	smdmx_scene *scene = NULL;
	bool ok = o->way == SMDMX_CONVERT_QC_SCENE ? (scene = qc_scene(&r)) != NULL
	        : o->way == SMDMX_CONVERT_QC_TO_DMX ? qc_to_dmx(&r)
	        : o->way == SMDMX_CONVERT_DMX_TO_DMX ? dmx_to_dmx(&r)
	        : o->way == SMDMX_CONVERT_DMX_TO_SMD ? dmx_to_smd(&r)
	        : o->way == SMDMX_CONVERT_SMD_TO_DMX ? smd_to_dmx(&r)
	                                             : smd_to_smd(&r);
	smdmx_convert_result *res = pj_calloc(1, sizeof(*res));
	char **written = NULL;
	size_t written_count = 0;
	ok = ok && !pj_oom_seen;
	if (ok && o->defer && res) {
		/* The caller commits the set later, among others (smdmx_batch_convert: a few at a
		 * time): the files go to the disk meanwhile, and its flush finds them there. A set of
		 * many files (an SMD per clip) is flushed and closed now: the files a batch holds
		 * open stay few however many jobs wait. */
		if (pj_outputs_count(&r.outs) > DEFER_OPEN_MAX) ok = pj_outputs_finish(&r.outs, r.why, sizeof(r.why)) || fail_msg(&r, o->output, r.why);
		else pj_outputs_start(&r.outs);
		if (ok && r.outs.set) {
			smdmx_outputs_set_flags(r.outs.set, o->force ? SMDMX_OUTPUTS_FORCE : 0u);
			res->pending = r.outs.set;
			r.outs.set = NULL;
		}
	} else if (ok && res) {
		ok = pj_outputs_commit(&r.outs, &written, &written_count, r.why, sizeof(r.why)) || fail_msg(&r, o->output, r.why);
	}
	pj_outputs_abort(&r.outs);
	if (!res || pj_oom_seen) {
		pj_oom_seen = false;
		if (res) smdmx_outputs_free(res->pending);
		free(res);
		for (size_t i = 0; i < written_count; i++) free(written[i]);
		free(written);
		smdmx_scene_free(scene);
		pj_msgs_free(&r.said);
		for (size_t i = 0; i < r.dep_count; i++) free(r.deps[i]);
		free(r.deps);
		sm_fail_oom(error);
		return NULL;
	}
	res->ok = ok;
	res->messages = r.said.items;
	res->message_count = r.said.count;
	res->written = (const char *const *)written;
	res->written_count = written_count;
	res->deps = (const char *const *)r.deps;
	res->dep_count = r.dep_count;
	res->used = r.used;
	res->broken_pipe = r.broken_pipe;
	res->posed = r.posed;
	if (scene && scene->owner && r.hooks.alloc_fn) sm_budget_leave(&r.budget, &scene->owner->alloc); /* the caller's now */
	res->scene = scene;
	return res;
}

void smdmx_convert_result_free(smdmx_convert_result *r)
{
	if (!r) return;
	pj_msgs m = { (smdmx_message *)r->messages, r->message_count, r->message_count, 0, 0, false };
	pj_msgs_free(&m);
	for (size_t i = 0; i < r->written_count; i++) free((char *)r->written[i]);
	free((char **)r->written);
	for (size_t i = 0; i < r->dep_count; i++) free((char *)r->deps[i]);
	free((char **)r->deps);
	free(r);
}
