/* One job: read a model (SMD, VTA or DMX), convert it, write its outputs all or nothing.
 * Every message goes to the job's diagnostics buffer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

typedef struct run {
	const conv_opts *o;
	job *j;
	outputs outs;
	char why[1024];
} run;

static bool fail(run *r, const char *path, const smdmx_error *e)
{
	diag_error(&r->j->diag, path, e);
	return false;
}

static bool fail_msg(run *r, const char *path, const char *msg)
{
	diag_add(&r->j->diag, NULL, path, 0, 0, "error", "%s", msg);
	return false;
}

static void warn(run *r, const char *path, const smdmx_warnings *w)
{
	diag_warnings(&r->j->diag, r->o, path, w);
}

/* -W error: once warnings were given, the file fails before anything is written. */
static bool warnings_allowed(run *r, const char *in)
{
	return !(r->o->werror && r->j->diag.warnings) || fail_msg(r, in, "warnings are errors (-W error)");
}

/* Opens an output for path after checking that it may be written. */
static output *open_out(run *r, const char *path)
{
	job *j = r->j;
	char *ins[258];
	size_t n = 0;
	for (size_t i = 0; i < j->input_count && n < 256; i++) ins[n++] = j->inputs[i];
	if (j->vta) ins[n++] = j->vta;
	if (!output_allowed(path, ins, n, r->o->force, r->why, sizeof(r->why))) {
		fail_msg(r, path, r->why);
		return NULL;
	}
	if (r->o->outdir && strcmp(path, "-") && !make_parent_dirs(path, r->why, sizeof(r->why))) {
		fail_msg(r, path, r->why);
		return NULL;
	}
	output *out = outputs_open(&r->outs, path, r->why, sizeof(r->why));
	if (!out) fail_msg(r, path, r->why);
	return out;
}

/* After a failed write: the file system's reason when there is one. */
static bool fail_write(run *r, output *out, const smdmx_error *e)
{
	if (e->code == SMDMX_ERROR_IO && out->errnum) {
		snprintf(r->why, sizeof(r->why), "cannot write: %s", strerror(out->errnum));
		return fail_msg(r, out->path, r->why);
	}
	return fail(r, out->path, e);
}

/* "2 joints, 1 mesh (20 polygons), 1 flex shape, 1 clip (11 frames)": what a scene holds,
 * for --verbose. */
static void summarize(const smdmx_scene *s, char *buf, size_t size)
{
	size_t polygons = 0;
	for (size_t m = 0; m < s->mesh_count; m++)
		for (size_t f = 0; f < s->meshes[m].face_set_count; f++) polygons += s->meshes[m].face_sets[f].polygon_count;
	snprintf(buf, size, "%zu joint%s, %zu mesh%s (%zu polygons), %zu flex shape%s, %zu clip%s", s->joint_count,
	                 s->joint_count == 1 ? "" : "s", s->mesh_count, s->mesh_count == 1 ? "" : "es", polygons,
	                 s->flex_shape_count, s->flex_shape_count == 1 ? "" : "s", s->clip_count, s->clip_count == 1 ? "" : "s");
}

/* The note --verbose prints: what was read, and the files written. */
static void note_written(run *r, const char *in, const char *what)
{
	if (!r->o->verbose) return;
	char list[1024] = "";
	size_t len = 0;
	for (size_t i = 0; i < r->outs.count && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? " and " : "", r->outs.items[i].path);
	diag_add(&r->j->diag, r->o, in, 0, 0, "note", "%s -> %s", what, list);
}

/* The --verbose note of a conversion from a scene. */
static void note_scene(run *r, const char *in, const smdmx_scene *scene)
{
	if (!r->o->verbose) return;
	char what[512];
	summarize(scene, what, sizeof(what));
	note_written(r, in, what);
}

static bool write_dmx(run *r, smdmx_dm *dm, const char *path)
{
	output *out = open_out(r, path);
	if (!out) return false;
	smdmx_error err;
	if (!smdmx_dmx_write(dm, output_write, out, &r->o->dopts, &err)) return fail_write(r, out, &err);
	return true;
}

static bool write_smd(run *r, const smdmx_scene *s, const char *path, const smdmx_smd_write_options *w)
{
	output *out = open_out(r, path);
	if (!out) return false;
	smdmx_error err;
	if (!smdmx_smd_write(s, output_write, out, w, &err)) return fail_write(r, out, &err);
	return true;
}

static bool shape(run *r, smdmx_scene *scene, const char *in)
{
	smdmx_error err;
	if ((r->o->scale == 1.0 || r->o->scale == 0) && !r->o->up_axis) return true;
	if (!smdmx_scene_transform(scene, r->o->scale ? r->o->scale : 1.0, r->o->up_axis, &err)) return fail(r, in, &err);
	return true;
}

static smdmx_scene *read_smd(run *r, const char *path)
{
	smdmx_error err;
	smdmx_warnings warn_list;
	smdmx_scene *s = smdmx_smd_read_file(path, &r->o->ropts, &err, &warn_list);
	warn(r, path, &warn_list);
	if (!s) fail(r, path, &err);
	return s;
}

/* SMD (reference or animations, with a VTA) into a model DMX. */
static bool smd_to_dmx(run *r)
{
	job *j = r->j;
	const char *in = j->inputs[0];
	smdmx_error err;
	smdmx_warnings w;
	smdmx_scene *scene = read_smd(r, in);
	if (!scene) return false;
	bool ok = true;
	/* --clips: the animations of the other files, one clip each, on the first one's bones. */
	for (size_t i = 1; ok && i < j->input_count; i++) {
		smdmx_scene *more = read_smd(r, j->inputs[i]);
		ok = more && (smdmx_scene_add_clips(scene, more, &err) || fail(r, j->inputs[i], &err));
		smdmx_scene_free(more);
	}
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
	char what[512];
	summarize(scene, what, sizeof(what));
	smdmx_dm *dm = NULL;
	if (ok) {
		dm = smdmx_model_from_scene(scene, &r->o->mopts, &err, &w);
		warn(r, in, &w);
		if (!dm) ok = fail(r, in, &err);
	}
	smdmx_scene_free(scene);
	ok = ok && warnings_allowed(r, in);
	ok = ok && write_dmx(r, dm, j->out);
	if (ok) {
		size_t len = strlen(what);
		snprintf(what + len, sizeof(what) - len, " as %zu elements, model format %d", dm->element_count, dm->format_version);
		note_written(r, in, what);
	}
	smdmx_dm_free(dm);
	return ok;
}

static bool dmx_to_dmx(run *r)
{
	job *j = r->j;
	smdmx_error err;
	smdmx_warnings w;
	smdmx_dm *dm = smdmx_dmx_read_file(j->inputs[0], NULL, &err, &w);
	warn(r, j->inputs[0], &w);
	if (!dm) return fail(r, j->inputs[0], &err);
	bool ok = warnings_allowed(r, j->inputs[0]) && write_dmx(r, dm, j->out);
	if (ok) {
		char what[256];
		snprintf(what, sizeof(what), "%s %d, format %s %d, %zu elements", dm->encoding, dm->encoding_version, dm->format,
		         dm->format_version, dm->element_count);
		note_written(r, j->inputs[0], what);
	}
	smdmx_dm_free(dm);
	return ok;
}

/* A model or animation DMX into SMD: a reference (and its VTA beside it when the model has
 * shapes), or one SMD per clip (--clip NAME for one). */
static bool dmx_to_smd(run *r)
{
	job *j = r->j;
	const char *in = j->inputs[0], *out = j->out;
	smdmx_error err;
	smdmx_warnings w;
	smdmx_dm *dm = smdmx_dmx_read_file(in, NULL, &err, &w);
	warn(r, in, &w);
	if (!dm) return fail(r, in, &err);
	smdmx_scene *scene = smdmx_model_to_scene(dm, NULL, &err, &w);
	smdmx_dm_free(dm);
	warn(r, in, &w);
	if (!scene) return fail(r, in, &err);
	bool ok = shape(r, scene, in);
	smdmx_smd_write_options wo = r->o->wopts;
	if (!strcasecmp(path_extension(out), "vta")) wo.kind = SMDMX_SMD_WRITE_VTA;
	if (wo.kind == SMDMX_SMD_WRITE_AUTO) wo.kind = scene->mesh_count ? SMDMX_SMD_WRITE_REFERENCE : SMDMX_SMD_WRITE_ANIMATION;
	bool to_stdout = !strcmp(out, "-");
	if (ok && wo.kind == SMDMX_SMD_WRITE_ANIMATION && scene->clip_count) {
		/* One SMD per clip, or the one asked for. */
		size_t first = 0, last = scene->clip_count;
		if (r->o->clip_name) {
			while (first < scene->clip_count && strcmp(scene->clips[first].name, r->o->clip_name)) first++;
			if (first == scene->clip_count) {
				size_t len = (size_t)snprintf(r->why, sizeof(r->why), "no clip named '%s' (the file has", r->o->clip_name);
				for (size_t c = 0; c < scene->clip_count && len < sizeof(r->why); c++)
					len += (size_t)snprintf(r->why + len, sizeof(r->why) - len, " '%s'", scene->clips[c].name);
				if (len < sizeof(r->why)) snprintf(r->why + len, sizeof(r->why) - len, ")");
				ok = fail_msg(r, in, r->why);
			}
			last = first + 1;
		} else if (to_stdout && last > 1) {
			ok = fail_msg(r, in, "the file has several clips; --clip NAME picks one for standard output");
		}
		ok = ok && warnings_allowed(r, in);
		for (size_t c = first; ok && c < last; c++) {
			char *path = last - first > 1 ? path_with_suffix(out, scene->clips[c].name) : xstrdup(out);
			wo.clip = c;
			ok = write_smd(r, scene, path, &wo);
			free(path);
		}
		if (ok) note_scene(r, in, scene);
		smdmx_scene_free(scene);
		return ok;
	}
	bool vta_beside = ok && scene->flex_shape_count && wo.kind == SMDMX_SMD_WRITE_REFERENCE;
	if (ok) {
		smdmx_warnings losses;
		memset(&losses, 0, sizeof(losses));
		smdmx_smd_report_losses(scene, true, &losses);
		warn(r, out, &losses);
		if (vta_beside && to_stdout) {
			diag_add(&j->diag, r->o, in, 0, 0, "warning",
			         "%zu flex shapes not written: standard output holds no .vta beside the SMD", scene->flex_shape_count);
			vta_beside = false;
		}
	}
	ok = ok && warnings_allowed(r, in);
	ok = ok && write_smd(r, scene, out, &wo);
	/* Shapes go to a VTA beside the SMD (decision 10). */
	if (ok && vta_beside) {
		char *vta = path_with_extension(out, "vta");
		wo.kind = SMDMX_SMD_WRITE_VTA;
		ok = write_smd(r, scene, vta, &wo);
		free(vta);
	}
	if (ok) note_scene(r, in, scene);
	smdmx_scene_free(scene);
	return ok;
}

static bool smd_to_smd(run *r)
{
	job *j = r->j;
	const char *in = j->inputs[0];
	smdmx_smd_write_options wo = r->o->wopts;
	if (!strcasecmp(path_extension(j->out), "vta") || (r->o->to && !strcasecmp(r->o->to, "vta")))
		wo.kind = SMDMX_SMD_WRITE_VTA;
	smdmx_scene *scene = read_smd(r, in);
	if (!scene) return false;
	bool ok = shape(r, scene, in);
	if (ok && wo.kind == SMDMX_SMD_WRITE_VTA && scene->flex_shape_count == 0 && scene->mesh_count == 0)
		ok = fail_msg(r, in, "nothing to write as VTA (no mesh)");
	ok = ok && warnings_allowed(r, in);
	ok = ok && write_smd(r, scene, j->out, &wo);
	if (ok) note_scene(r, in, scene);
	smdmx_scene_free(scene);
	return ok;
}

/* Which side of the conversion a path is on: DMX or the SMD family. "-" is told by the
 * program and --to. */
static bool input_is_dmx(const conv_opts *o, const char *in)
{
	if (!strcmp(in, "-")) return o->tool == TOOL_DMX2SMD;
	return !strcasecmp(path_extension(in), "dmx");
}

static bool output_is_dmx(const conv_opts *o, const char *out, bool in_dmx)
{
	if (strcmp(out, "-")) return !strcasecmp(path_extension(out), "dmx");
	if (o->to) return !strcasecmp(o->to, "dmx");
	if (o->tool == TOOL_SMD2DMX) return true;
	if (o->tool == TOOL_DMX2SMD) return false;
	return in_dmx;
}

void job_run(const conv_opts *o, job *j)
{
	run r;
	memset(&r, 0, sizeof(r));
	r.o = o;
	r.j = j;
	r.outs.force = o->force;
	bool in_dmx = input_is_dmx(o, j->inputs[0]), out_dmx = output_is_dmx(o, j->out, in_dmx);
	bool ok = in_dmx ? (out_dmx ? dmx_to_dmx(&r) : dmx_to_smd(&r)) : (out_dmx ? smd_to_dmx(&r) : smd_to_smd(&r));
	if (ok) ok = outputs_commit(&r.outs, &j->written, &j->written_count, r.why, sizeof(r.why)) || fail_msg(&r, j->out, r.why);
	else outputs_abort(&r.outs);
	j->ran = true;
	j->status = ok ? EXIT_OK : EXIT_FAILED;
	diag_finish(&j->diag, o, j->inputs[0]);
}
