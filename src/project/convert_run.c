/* One conversion's helpers (project_internal.h, "one conversion"): its messages, the files it
 * read, its outputs opened and written, its inputs read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "project/project_internal.h"
#include "smdmx/convert.h"
#include "model/model_valid.h"
#include "smd/smd_valid.h"
#include "support/internal.h"
/* A file read besides the inputs, each once. */
void cv_add_dep(cv_run *r, const char *path)
{
	for (size_t k = 0; k < r->dep_count; k++)
		if (!strcmp(r->deps[k], path)) return;
	for (size_t k = 0; k < r->o->input_count; k++)
		if (!strcmp(r->o->inputs[k], path)) return;
	char *s = sm_str_copy(&r->mem, path);
	char **grown = s ? sm_realloc(&r->mem, r->deps, r->dep_count * sizeof(char *), (r->dep_count + 1) * sizeof(char *)) : NULL;
	if (!grown) { /* out of memory: the result says so */
		sm_str_free(&r->mem, s);
		r->said.lost++;
		return;
	}
	r->deps = grown;
	r->deps[r->dep_count++] = s;
}

bool cv_fail(cv_run *r, const char *path, const smdmx_error *e)
{
	pj_add_error(&r->said, path, e);
	return false;
}

bool cv_fail_msg(cv_run *r, smdmx_error_code code, const char *path, const char *msg)
{
	pj_error(&r->said, code, path, 0, 0, "%s", msg);
	return false;
}

void cv_warn(cv_run *r, const char *path, smdmx_warnings *w)
{
	pj_add_warnings(&r->said, path, w);
	smdmx_warnings_free(w);
}

/* -W error: once warnings were given, the file fails before anything is written. */
bool cv_warnings_allowed(cv_run *r, const char *in)
{
	return !(r->o->warnings_fail && r->said.warnings) || cv_fail_msg(r, SMDMX_ERROR_WARNINGS, in, "warnings are errors (-W error)");
}

/* Opens an output for path after checking that it may be written. */
pj_output *cv_open_out(cv_run *r, const char *path)
{
	const smdmx_convert_options *o = r->o;
	char *ins[258];
	size_t n = 0;
	for (size_t i = 0; i < o->input_count && n < 256; i++) ins[n++] = (char *)o->inputs[i];
	if (o->vta && o->way == SMDMX_CONVERT_SMD_TO_DMX) ins[n++] = (char *)o->vta;
	if (!pj_output_allowed(&r->outs, path, ins, n, o->force, r->why, sizeof(r->why))) {
		cv_fail_msg(r, r->outs.code, path, r->why);
		return NULL;
	}
	pj_output *out = pj_outputs_open(&r->outs, path, r->why, sizeof(r->why));
	if (!out) cv_fail_msg(r, r->outs.code, path, r->why);
	return out;
}

/* After a failed write: the file system's reason when there is one. */
bool cv_fail_write(cv_run *r, pj_output *out, const smdmx_error *e)
{
	/* standard output whose reader is gone (| head): the caller ends as quietly as a signal would */
	if (smdmx_output_errno(out) == EPIPE && !strcmp(smdmx_output_path(out), "-")) r->broken_pipe = true;
	if (e->code == SMDMX_ERROR_IO && smdmx_output_errno(out)) {
		snprintf(r->why, sizeof(r->why), "cannot write: %s", os_error_text(smdmx_output_errno(out)));
		return cv_fail_msg(r, SMDMX_ERROR_IO, smdmx_output_path(out), r->why);
	}
	return cv_fail(r, smdmx_output_path(out), e);
}

/* "2 joints, 1 mesh (20 polygons), 1 flex shape, 1 clip (11 frames)": what a scene holds,
 * for --verbose. */
void cv_summarize(const smdmx_scene *s, char *buf, size_t size)
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
void cv_note_written(cv_run *r, const char *in, const char *what)
{
	if (!r->o->notes) return;
	char list[1024] = "";
	size_t len = 0;
	for (size_t i = 0; i < pj_outputs_count(&r->outs) && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? " and " : "", smdmx_output_path(pj_outputs_item(&r->outs, i)));
	pj_add(&r->said, in, 0, 0, "note", "%s -> %s", what, list);
}

/* The --verbose note of a conversion from a scene. */
void cv_note_scene(cv_run *r, const char *in, const smdmx_scene *scene)
{
	if (!r->o->notes) return;
	char what[512];
	cv_summarize(scene, what, sizeof(what));
	cv_note_written(r, in, what);
}

bool cv_write_dmx(cv_run *r, smdmx_dm *dm, const char *path)
{
	pj_output *out = cv_open_out(r, path);
	if (!out) return false;
	smdmx_error err;
	if (!smdmx_dmx_write(dm, pj_output_write, out, &r->o->dmx_write, &err)) return cv_fail_write(r, out, &err);
	return true;
}

/* The scenes written here come from library calls that validate what they make or change
 * (the readers, smdmx_model_to_scene, the QC scenes, the scene operations, smdmx_qc_from_scene),
 * so they go to the writers that do not validate again (doc/speed.md, "One validation"). */
bool cv_write_smd(cv_run *r, const smdmx_scene *s, const char *path, const smdmx_smd_write_options *w)
{
	pj_output *out = cv_open_out(r, path);
	if (!out) return false;
	smdmx_error err;
	if (!sm_smd_write_valid(s, pj_output_write, out, w, &err)) return cv_fail_write(r, out, &err);
	return true;
}

bool cv_shape(cv_run *r, smdmx_scene *scene, const char *in)
{
	smdmx_error err;
	if ((r->o->scale == 1.0 || r->o->scale == 0) && !r->o->up_axis) return true;
	if (!smdmx_scene_transform(scene, r->o->scale ? r->o->scale : 1.0, r->o->up_axis, &err)) return cv_fail(r, in, &err);
	return true;
}

/* A DMX from its path, or standard input's bytes ("-"). */
smdmx_dm *cv_read_dmx(cv_run *r, const char *path, smdmx_error *err, smdmx_warnings *w)
{
	if (strcmp(path, "-")) return smdmx_dmx_read_file(path, &r->o->dmx_read, err, w);
	return smdmx_dmx_read_memory(r->o->input_data ? r->o->input_data : "", r->o->input_size, &r->o->dmx_read, err, w);
}

smdmx_scene *cv_read_smd(cv_run *r, const char *path)
{
	smdmx_error err;
	smdmx_warnings warn_list = { 0 };
	smdmx_scene *s = strcmp(path, "-") ? smdmx_smd_read_file(path, &r->o->smd_read, &err, &warn_list)
	                                   : smdmx_smd_read_memory(r->o->input_data ? r->o->input_data : "", r->o->input_size,
	                                                           &r->o->smd_read, &err, &warn_list);
	cv_warn(r, path, &warn_list);
	if (!s) cv_fail(r, path, &err);
	return s;
}

/* Options about animation (--fps, --keys, --key-tolerance) take effect on a file that has
 * one; on a file converted alone that has none, each is said. (In a batch, one that took
 * effect on no input is said at the end.) */
void cv_animation_options(cv_run *r, const smdmx_scene *s, const char *in)
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

smdmx_scene *cv_smd_scene(cv_run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0];
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_scene *scene = cv_read_smd(r, in);
	if (!scene) return NULL;
	bool ok = true;
	/* --clips: the animations of the other files, one clip each, on the first one's bones. */
	for (size_t i = 1; ok && i < j->input_count; i++) {
		smdmx_scene *more = cv_read_smd(r, j->inputs[i]);
		for (size_t c = 0; more && ok && c < more->clip_count; c++)
			for (size_t k = 0; ok && k < scene->clip_count; k++)
				if (!strcmp(scene->clips[k].name, more->clips[c].name)) {
					char msg[600];
					snprintf(msg, sizeof(msg), "its clip is named '%s', as the clip of '%s': clips are known by their names (rename a file)",
					         more->clips[c].name, j->inputs[k]);
					ok = cv_fail_msg(r, SMDMX_ERROR_USAGE, j->inputs[i], msg);
				}
		ok = ok && more && (smdmx_scene_add_clips(scene, more, &err) || cv_fail(r, j->inputs[i], &err));
		smdmx_scene_free(more);
	}
	if (ok && j->vta && !scene->mesh_count)
		ok = cv_fail_msg(r, SMDMX_ERROR_USAGE, in, "the file has no triangles for the shapes of a VTA");
	if (ok && j->vta) {
		/* Decision 10: the VTA's shapes become delta states of the reference. */
		smdmx_scene *flex = cv_read_smd(r, j->vta);
		ok = flex != NULL;
		if (ok) {
			ok = smdmx_scene_attach_vta(scene, flex, &err, &w);
			cv_warn(r, j->vta, &w);
			if (!ok) cv_fail(r, j->vta, &err);
		}
		smdmx_scene_free(flex);
	}
	ok = ok && cv_shape(r, scene, in);
	if (ok) cv_animation_options(r, scene, in);
	if (!ok) {
		smdmx_scene_free(scene);
		return NULL;
	}
	return scene;
}
