/* One model converted (smdmx_convert, smdmx/convert.h): read (SMD, VTA, a QC's $model or DMX),
 * converted, its outputs written all or nothing; what it says kept as messages. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
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

/* SMD (reference or animations, with a VTA) into a model DMX. */
static bool smd_to_dmx(cv_run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0];
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_scene *scene = cv_smd_scene(r);
	if (!scene) return false;
	bool ok = true;
	char what[512];
	cv_summarize(scene, what, sizeof(what));
	smdmx_dm *dm = NULL;
	if (ok) {
		dm = sm_model_from_valid_scene_taking(scene, &r->o->model_options, &err, &w);
		cv_warn(r, in, &w);
		if (!dm) ok = cv_fail(r, in, &err);
	}
	smdmx_scene_free(scene);
	ok = ok && cv_warnings_allowed(r, in);
	ok = ok && cv_write_dmx(r, dm, j->output);
	if (ok) {
		size_t len = strlen(what);
		snprintf(what + len, sizeof(what) - len, " as %zu elements, model format %d", dm->element_count, dm->format_version);
		cv_note_written(r, in, what);
	}
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

static void report_not_carried(cv_run *r, const smdmx_dm *in, const smdmx_dm *out, const char *path)
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
static bool dmx_to_dmx(cv_run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0];
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_dm *dm = cv_read_dmx(r, in, &err, &w);
	cv_warn(r, in, &w);
	if (!dm) return cv_fail(r, in, &err);
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
		ok = cv_fail_msg(r, SMDMX_ERROR_USAGE, in, msg);
	} else if (changes) {
		smdmx_model_options lift = { .allocator = r->hooks };
		smdmx_scene *scene = smdmx_model_to_scene(dm, &lift, &err, &w);
		/* the fields the scene leaves out are among what is not carried, said below */
		size_t k = 0;
		for (size_t i = 0; i < w.count; i++)
			if (w.data[i].code != SMDMX_WARNING_DROPPED_VERTEX_DATA) w.data[k++] = w.data[i];
		w.count = k;
		cv_warn(r, in, &w);
		if (!scene) ok = cv_fail(r, in, &err);
		ok = ok && cv_shape(r, scene, in);
		if (ok) cv_animation_options(r, scene, in);
		smdmx_model_options mo = o->model_options;
		if (!mo.model_version) mo.model_version = dm->format_version;
		if (ok) {
			outdm = sm_model_from_valid_scene_taking(scene, &mo, &err, &w);
			cv_warn(r, in, &w);
			if (!outdm) ok = cv_fail(r, in, &err);
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
	ok = ok && cv_warnings_allowed(r, in) && cv_write_dmx(r, outdm, j->output);
	if (ok) {
		char what[256];
		snprintf(what, sizeof(what), "%s %d, format %s %d, %zu elements%s", outdm->encoding ? outdm->encoding : "-",
		         outdm->encoding_version, outdm->format, outdm->format_version, outdm->element_count - smdmx_dm_stub_count(outdm),
		         outdm != dm ? " (through the scene)" : "");
		cv_note_written(r, in, what);
	}
	if (outdm != dm) smdmx_dm_free(outdm);
	smdmx_dm_free(dm);
	return ok;
}

/* A text file, all or nothing with the job's other outputs. */
static bool write_text(cv_run *r, const char *path, const char *text)
{
	pj_output *o = cv_open_out(r, path);
	if (!o) return false;
	if (!pj_output_write(o, text, strlen(text))) {
		snprintf(r->why, sizeof(r->why), "cannot write: %s", os_error_text(smdmx_output_errno(o)));
		return cv_fail_msg(r, SMDMX_ERROR_IO, path, r->why);
	}
	return true;
}

/* The $sequence lines of dmx2smd --qc: one per clip file written (names and files owned). */
typedef struct seq_list {
	smdmx_qc_sequence *v;
	size_t n;
} seq_list;

static void seq_list_free(cv_run *r, seq_list *l)
{
	for (size_t i = 0; i < l->n; i++) pj_free(&r->mem, (char *)l->v[i].name), pj_free(&r->mem, (char *)l->v[i].file);
	pj_free(&r->mem, l->v);
}

/* dmx2smd --qc: a QC naming the SMD (and VTA), with what SMD cannot hold (smdmx_qc_text); smd
 * NULL for clips alone. */
static bool write_qc_text(cv_run *r, const smdmx_scene *scene, const char *smd, const char *model_lines, const char *att_lines,
                          const seq_list *seqs)
{
	char *rel = smd ? pj_path_relative(&r->mem, r->o->qc, smd) : NULL;
	const char *slash = smd ? os_last_separator(smd) : NULL;
	char *stem = smd ? pj_strdup(&r->mem, slash ? slash + 1 : smd) : NULL;
	char *dot = stem ? strrchr(stem, '.') : NULL;
	if (dot && dot != stem) *dot = 0;
	char *text = smdmx_qc_text(scene, stem, rel, model_lines, att_lines, seqs->v, seqs->n);
	bool ok = text ? write_text(r, r->o->qc, text) : cv_fail_msg(r, SMDMX_ERROR_OUT_OF_MEMORY, r->o->qc, "out of memory");
	smdmx_qc_text_free(text);
	pj_free(&r->mem, stem);
	pj_free(&r->mem, rel);
	return ok;
}

/* A model or animation DMX into SMD: a reference (and its VTA beside it when the model has
 * shapes), or one SMD per clip (--clip NAME for one). */
/* What the SMD (and VTA) written cannot hold, said; with --qc less what the QC carries, and
 * with one file per clip, the clips. */
static bool report_smd_losses(cv_run *r, const smdmx_scene *scene, const smdmx_smd_write_options *wo, const char *out,
                              bool file_per_clip)
{
	smdmx_warnings losses = { 0 };
	smdmx_error err;
	bool ok = smdmx_smd_report_losses(scene, wo, true, &err, &losses);
	/* the QC dmx2smd --qc writes has the rig, $upaxis and every clip's fps */
	bool qc = r->o->qc != NULL;
	smdmx_smd_carried c = { .rig = qc, .up_axis = qc, .frame_rate = qc, .clips = file_per_clip };
	smdmx_smd_losses_carried(&losses, &c);
	cv_warn(r, out, &losses);
	return ok || cv_fail(r, out, &err);
}

/* Clips of one name (other writers allow them) get files of their own: the second "NAME_2",
 * said before anything is written. */
static void say_clip_names(cv_run *r, const smdmx_scene *scene, size_t first, size_t last, const char *in)
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
static bool write_clips(cv_run *r, const smdmx_scene *scene, smdmx_smd_write_options wo, const char *out, size_t first, size_t last,
                        bool suffix, seq_list *seqs)
{
	bool ok = true;
	wo.kind = SMDMX_SMD_WRITE_ANIMATION;
	for (size_t c = first; ok && c < last; c++) {
		size_t same = 1;
		for (size_t k = first; k < c; k++) same += !strcmp(scene->clips[k].name, scene->clips[c].name);
		char *name = same > 1 ? pj_asprintf(&r->mem, "%s_%zu", scene->clips[c].name, same) : pj_strdup(&r->mem, scene->clips[c].name);
		char *path = suffix ? pj_path_with_suffix(&r->mem, out, name) : pj_strdup(&r->mem, out);
		wo.clip = c;
		ok = cv_write_smd(r, scene, path, &wo);
		if (ok && r->o->qc) {
			smdmx_qc_sequence *g = pj_realloc(&r->mem, seqs->v, (seqs->n + 1) * sizeof(*g));
			if (!g) ok = cv_fail_msg(r, SMDMX_ERROR_OUT_OF_MEMORY, r->o->qc, "out of memory");
			else seqs->v = g, seqs->v[seqs->n++] = (smdmx_qc_sequence){ pj_strdup(&r->mem, name), pj_path_relative(&r->mem, r->o->qc, path), scene->clips[c].frame_rate };
		}
		pj_free(&r->mem, path);
		pj_free(&r->mem, name);
	}
	return ok;
}

static bool dmx_to_smd(cv_run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0], *out = j->output;
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_dm *dm = cv_read_dmx(r, in, &err, &w);
	cv_warn(r, in, &w);
	if (!dm) return cv_fail(r, in, &err);
	smdmx_model_options lift = { .allocator = r->hooks };
	smdmx_scene *scene = sm_model_to_scene_taking(dm, &lift, &err, &w);
	smdmx_dm_free(dm);
	cv_warn(r, in, &w);
	if (!scene) return cv_fail(r, in, &err);
	bool ok = cv_shape(r, scene, in);
	/* flex controllers alone (a file of them, as Blender Source Tools writes one): nothing an
	 * SMD or a QC beside it can hold, the shapes their raw controls name being elsewhere */
	if (ok && !scene->joint_count && !scene->mesh_count && !scene->clip_count) {
		snprintf(r->why, sizeof(r->why),
		         "a DMX of %zu flex controllers and nothing else (no mesh, skeleton or animation): no SMD holds them, and a QC "
		         "names a controller's shapes only beside them; keep the DMX",
		         scene->flex_controller_count);
		ok = cv_fail_msg(r, SMDMX_ERROR_EMPTY, in, r->why);
	}
	smdmx_smd_write_options wo = r->o->smd_write;
	if (!strcasecmp(os_path_extension(out), "vta")) wo.kind = SMDMX_SMD_WRITE_VTA;
	if (wo.kind == SMDMX_SMD_WRITE_AUTO) wo.kind = scene->mesh_count ? SMDMX_SMD_WRITE_REFERENCE : SMDMX_SMD_WRITE_ANIMATION;
	bool to_stdout = !strcmp(out, "-");
	if (ok && r->o->clip && (wo.kind != SMDMX_SMD_WRITE_ANIMATION || !scene->clip_count))
		ok = cv_fail_msg(r, SMDMX_ERROR_USAGE, in, scene->clip_count ? "--clip picks a clip to write as an animation SMD, but the model is written as a reference: "
		                                         "give one or the other"
		                                       : "--clip picks a clip, but the file has no animation");
	if (ok && j->vta && !(scene->flex_shape_count && wo.kind == SMDMX_SMD_WRITE_REFERENCE))
		ok = cv_fail_msg(r, SMDMX_ERROR_USAGE, in, "--vta names the VTA of the model's flex shapes, but there are none to write");
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
				ok = cv_fail_msg(r, SMDMX_ERROR_USAGE, in, r->why);
			}
			last = first + 1;
		} else if (to_stdout && last > 1) {
			ok = cv_fail_msg(r, SMDMX_ERROR_USAGE, in, "the file has several clips; --clip NAME picks one for standard output");
		}
		seq_list seqs = { NULL, 0 };
		char *atts = NULL, *unused = NULL;
		if (ok && r->o->qc) {
			ok = smdmx_qc_from_scene(scene, NULL, &unused, &atts, &err, &w);
			cv_warn(r, r->o->qc, &w);
			if (!ok) cv_fail(r, in, &err);
		}
		say_clip_names(r, scene, first, last, in);
		ok = ok && report_smd_losses(r, scene, &wo, out, true);
		ok = ok && cv_warnings_allowed(r, in);
		ok = ok && write_clips(r, scene, wo, out, first, last, last - first > 1, &seqs);
		if (ok && r->o->qc) ok = write_qc_text(r, scene, NULL, NULL, atts, &seqs);
		seq_list_free(r, &seqs);
		smdmx_qc_text_free(atts);
		smdmx_qc_text_free(unused);
		if (ok) cv_note_scene(r, in, scene);
		smdmx_scene_free(scene);
		return ok;
	}
	bool vta_beside = ok && scene->flex_shape_count && wo.kind == SMDMX_SMD_WRITE_REFERENCE && !wo.goldsrc;
	char *qc_model = NULL, *qc_atts = NULL;
	char *vta_path = !vta_beside ? NULL : j->vta ? pj_strdup(&r->mem, j->vta) : pj_path_with_extension(&r->mem, out, "vta");
	if (ok && r->o->qc) {
		/* What SMD cannot hold goes into the QC; stereo shapes a flexpair cannot split are cut
		 * into halves in the scene before the VTA is written. */
		char *vta_rel = vta_path ? pj_path_relative(&r->mem, r->o->qc, vta_path) : NULL;
		ok = smdmx_qc_from_scene(scene, vta_rel, &qc_model, &qc_atts, &err, &w);
		pj_free(&r->mem, vta_rel);
		cv_warn(r, r->o->qc, &w);
		if (!ok) cv_fail(r, in, &err);
	}
	/* A model's clips: an SMD each beside the reference (OUT_clip.smd) */
	size_t clips = wo.kind == SMDMX_SMD_WRITE_REFERENCE ? scene->clip_count : 0;
	ok = ok && report_smd_losses(r, scene, &wo, out, true);
	if (ok) {
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
	ok = ok && cv_warnings_allowed(r, in);
	ok = ok && cv_write_smd(r, scene, out, &wo);
	/* Shapes go to a VTA beside the SMD (decision 10). */
	smdmx_smd_write_options vo = wo;
	if (ok && vta_beside) {
		vo.kind = SMDMX_SMD_WRITE_VTA;
		ok = cv_write_smd(r, scene, vta_path, &vo);
	}
	seq_list seqs = { NULL, 0 };
	ok = ok && write_clips(r, scene, wo, out, 0, clips, true, &seqs);
	if (ok && r->o->qc) ok = write_qc_text(r, scene, out, qc_model, qc_atts, &seqs);
	seq_list_free(r, &seqs);
	if (ok) cv_note_scene(r, in, scene);
	smdmx_qc_text_free(qc_model);
	smdmx_qc_text_free(qc_atts);
	pj_free(&r->mem, vta_path);
	smdmx_scene_free(scene);
	return ok;
}

static bool smd_to_smd(cv_run *r)
{
	const smdmx_convert_options *j = r->o;
	const char *in = j->inputs[0];
	smdmx_smd_write_options wo = r->o->smd_write;
	if (!strcasecmp(os_path_extension(j->output), "vta"))
		wo.kind = SMDMX_SMD_WRITE_VTA;
	smdmx_scene *scene = cv_read_smd(r, in);
	if (!scene) return false;
	bool ok = cv_shape(r, scene, in);
	if (ok && wo.kind == SMDMX_SMD_WRITE_VTA && scene->flex_shape_count == 0 && scene->mesh_count == 0)
		ok = cv_fail_msg(r, SMDMX_ERROR_EMPTY, in, "nothing to write as VTA (no mesh)");
	if (ok && wo.goldsrc) {
		smdmx_warnings losses = { 0 };
		smdmx_error err;
		ok = smdmx_smd_report_losses(scene, &wo, true, &err, &losses);
		cv_warn(r, j->output, &losses);
		if (!ok) cv_fail(r, j->output, &err);
	}
	ok = ok && cv_warnings_allowed(r, in);
	ok = ok && cv_write_smd(r, scene, j->output, &wo);
	if (ok) cv_note_scene(r, in, scene);
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
	        pj_allocator_given(&o->model_options.allocator) || pj_allocator_given(&o->gltf.allocator));
}

/* A result and what it keeps: its memory, whose hooks are the caller's once the conversion
 * is over (sm_budget_leave), the room of its messages, the allocator of its written list. */
typedef struct convert_result {
	smdmx_convert_result pub;
	sm_alloc mem;
	size_t message_cap;
	smdmx_allocator written_by;
} convert_result;

/* What the conversion made besides its result, when it cannot be handed back. */
static void run_free(cv_run *r, char **written, size_t written_count, smdmx_scene *scene)
{
	smdmx_outputs_written_free(written, written_count, &r->hooks);
	smdmx_scene_free(scene);
	pj_msgs_free(&r->said);
	for (size_t i = 0; i < r->dep_count; i++) sm_str_free(&r->mem, r->deps[i]);
	sm_free(&r->mem, r->deps, r->dep_count * sizeof(char *));
}

bool smdmx_convert_options_check(const smdmx_convert_options *o, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!o) return sm_fail_null(error, __func__, "o");
	if ((unsigned)o->way > (unsigned)SMDMX_CONVERT_TO_GLTF)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no way of conversion %d", (int)o->way);
	if (!(o->scale >= 0 && isfinite(o->scale)))
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--scale wants a positive number, not %g", o->scale);
	if (o->up_axis && o->up_axis != 'X' && o->up_axis != 'Y' && o->up_axis != 'Z')
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--up-axis is X, Y or Z, not '%c'", o->up_axis);
	if (!(o->smd_read.frame_rate >= 0 && isfinite(o->smd_read.frame_rate)))
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--fps wants a positive number, not %g", o->smd_read.frame_rate);
	if (pj_allocator_twice(o)) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "%s", PJ_ALLOCATOR_TWICE);
	if (o->gltf.max_links && o->gltf.max_links != 4 && o->gltf.max_links != 8)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--links is 4 or 8, not %u", o->gltf.max_links);
	return smdmx_dmx_write_options_check(&o->dmx_write, error) && smdmx_model_options_check(&o->model_options, error);
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
	if (!smdmx_convert_options_check(o, error)) return NULL;
	cv_run r;
	memset(&r, 0, sizeof(r));
	r.o = o;
	if (pj_allocator_given(&o->allocator)) {
		r.hooks = sm_budget_start(&r.budget, &o->allocator);
		r.opts = *o;
		r.opts.smd_read.allocator = r.opts.dmx_read.allocator = r.opts.smd_write.allocator = r.hooks;
		r.opts.dmx_write.allocator = r.opts.model_options.allocator = r.opts.gltf.allocator = r.hooks;
		r.o = &r.opts;
	}
	r.own_hooks = sm_budget_start(&r.own, &r.hooks);
	sm_alloc_init(&r.mem, &r.own_hooks);
	r.said.mem = &r.mem;
	r.outs.hooks = &r.hooks;
	r.outs.force = o->force;
	/* the result first: once files are in place, it says so whatever runs out after */
	convert_result *res = sm_malloc(&r.mem, sizeof(*res));
	if (!res) return sm_fail_oom(error), NULL;
	memset(res, 0, sizeof(*res));
	smdmx_scene *scene = NULL;
	bool ok = o->way == SMDMX_CONVERT_QC_SCENE ? (scene = cv_qc_scene(&r)) != NULL
	        : o->way == SMDMX_CONVERT_QC_TO_DMX ? cv_qc_to_dmx(&r)
	        : o->way == SMDMX_CONVERT_DMX_TO_DMX ? dmx_to_dmx(&r)
	        : o->way == SMDMX_CONVERT_DMX_TO_SMD ? dmx_to_smd(&r)
	        : o->way == SMDMX_CONVERT_SMD_TO_DMX ? smd_to_dmx(&r)
	        : o->way == SMDMX_CONVERT_TO_GLTF    ? cv_to_gltf(&r)
	                                             : smd_to_smd(&r);
	char **written = NULL;
	size_t written_count = 0;
	/* out of memory before anything is in place: nothing done */
	bool oom = sm_budget_ran_out(&r.own) || r.said.lost;
	if (ok && o->defer && !oom) {
		/* The caller commits the set later, among others (smdmx_batch_convert: a few at a
		 * time): the files go to the disk meanwhile, and its flush finds them there. A set of
		 * many files (an SMD per clip) is flushed and closed now: the files a batch holds
		 * open stay few however many jobs wait. */
		if (pj_outputs_count(&r.outs) > DEFER_OPEN_MAX) ok = pj_outputs_finish(&r.outs, r.why, sizeof(r.why)) || cv_fail_msg(&r, r.outs.code, o->output, r.why);
		else pj_outputs_start(&r.outs);
		if (ok && r.outs.set) {
			smdmx_outputs_set_flags(r.outs.set, o->force ? SMDMX_OUTPUTS_FORCE : 0u);
			res->pub.pending = r.outs.set;
			r.outs.set = NULL;
		}
	} else if (ok && !oom) {
		ok = pj_outputs_commit(&r.outs, &written, &written_count, r.why, sizeof(r.why)) || cv_fail_msg(&r, r.outs.code, o->output, r.why);
	}
	pj_outputs_abort(&r.outs);
	/* out of memory with nothing in place (the commit's list could not be made): nothing done */
	if (!oom && (sm_budget_ran_out(&r.own) || r.said.lost) && !written_count && !res->pub.pending) oom = true;
	if (oom) {
		run_free(&r, written, written_count, scene);
		sm_free(&r.mem, res, sizeof(*res));
		return sm_fail_oom(error), NULL;
	}
	/* memory that ran out after the files were put in place: they are listed, and the
	 * result says it (a message may be missing) */
	if (sm_budget_ran_out(&r.own) || r.said.lost) {
		ok = false;
		res->pub.out_of_memory = true;
	}
	res->pub.ok = ok;
	res->pub.messages = r.said.items;
	res->pub.message_count = r.said.count;
	res->pub.messages_lost = r.said.lost;
	res->message_cap = r.said.cap;
	res->pub.written = (const char *const *)written;
	res->pub.written_count = written_count;
	res->pub.deps = (const char *const *)r.deps;
	res->pub.dep_count = r.dep_count;
	res->pub.used = r.used;
	res->pub.broken_pipe = r.broken_pipe;
	res->pub.posed = r.posed;
	res->pub.scene = scene;
	res->written_by = o->allocator;
	res->mem = r.mem;
	/* what outlives the conversion is the caller's, no longer counted */
	sm_budget_leave(&r.own, &res->mem); /* (then on hooks) */
	if (r.hooks.alloc_fn) {
		if (scene && scene->owner) sm_budget_leave(&r.budget, &scene->owner->alloc);
		if (res->pub.pending) sm_budget_leave(&r.budget, sm_outputs_alloc(res->pub.pending));
		sm_budget_leave(&r.budget, &res->mem);
	}
	return &res->pub;
}

void smdmx_convert_result_free(smdmx_convert_result *r)
{
	if (!r) return;
	convert_result *c = (convert_result *)r;
	sm_alloc mem = c->mem;
	pj_msgs m = { (smdmx_message *)r->messages, r->message_count, c->message_cap, 0, 0, 0, &mem };
	pj_msgs_free(&m);
	smdmx_outputs_written_free((char **)r->written, r->written_count, &c->written_by);
	for (size_t i = 0; i < r->dep_count; i++) sm_str_free(&mem, (char *)r->deps[i]);
	sm_free(&mem, (char **)r->deps, r->dep_count * sizeof(char *));
	sm_free(&mem, c, sizeof(*c));
}
