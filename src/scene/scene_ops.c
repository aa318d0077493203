/* Operations on whole scenes: scale and up axis, clips from several files, and what SMD
 * cannot hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "support/num.h"
#include "smdmx/math.h"
#include "smdmx/scene.h"
#include "smdmx/smd.h"

static void rotate_vec(double m[3][3], float *v)
{
	double x = v[0], y = v[1], z = v[2];
	for (int i = 0; i < 3; i++) v[i] = (float)(m[i][0] * x + m[i][1] * y + m[i][2] * z);
}

/* q = r * q, both x y z w. */
static void rotate_quat(const double r[4], float *q)
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double out[4] = {
		r[3] * x + r[0] * w + r[1] * z - r[2] * y,
		r[3] * y - r[0] * z + r[1] * w + r[2] * x,
		r[3] * z + r[0] * y - r[1] * x + r[2] * w,
		r[3] * w - r[0] * x - r[1] * y - r[2] * z,
	};
	double n = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
	for (int i = 0; i < 4; i++) q[i] = (float)(out[i] / n);
}

static void scale3(float *v, double s)
{
	for (int i = 0; i < 3; i++) v[i] = (float)(v[i] * s);
}

bool smdmx_scene_transform(smdmx_scene *s, double scale, char up_axis, smdmx_error *error)
{
	if (!(scale > 0) || !isfinite(scale)) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "the scale must be positive");
	if (up_axis != 0 && up_axis != 'Y' && up_axis != 'Z' && up_axis != 'X')
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "the up axis is X, Y or Z");
	/* Source is Z-up: a Y-up source turns +90 degrees about X, an X-up one +90 about Y
	 * (the rotations Blender Source Tools uses, FORMATS.md E5). */
	bool rotate = up_axis && up_axis != 'Z';
	double e[3] = { up_axis == 'Y' ? 1.57079632679489661923 : 0, up_axis == 'X' ? 1.57079632679489661923 : 0, 0 }, q[4], m[3][3];
	smdmx_euler_to_quat(e, q);
	smdmx_quat_to_matrix(q, m);
	/* Quarter turns are exact: no cos(90) = 6e-17 residue in the output. */
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			m[i][k] = fabs(m[i][k]) < 1e-12 ? 0 : fabs(fabs(m[i][k]) - 1) < 1e-12 ? (m[i][k] > 0 ? 1 : -1) : m[i][k];
	for (size_t j = 0; j < s->joint_count; j++) {
		smdmx_joint *jt = &s->joints[j];
		scale3(jt->bind.position, scale);
		if (rotate && jt->parent == SMDMX_NONE) {
			rotate_vec(m, jt->bind.position);
			rotate_quat(q, jt->bind.orientation);
		}
	}
	for (size_t i = 0; i < s->mesh_count; i++) {
		smdmx_mesh *me = &s->meshes[i];
		scale3(me->transform.position, scale);
		bool root_space = me->parent_joint == SMDMX_NONE;
		bool identity = me->transform.orientation[3] == 1 && me->transform.position[0] == 0 &&
		                me->transform.position[1] == 0 && me->transform.position[2] == 0;
		for (size_t p = 0; p < me->position_count; p++) {
			scale3(me->positions[p], scale);
			if (rotate && root_space && identity) rotate_vec(m, me->positions[p]);
		}
		if (rotate && root_space && identity)
			for (size_t n = 0; n < me->normal_count; n++) rotate_vec(m, me->normals[n]);
		if (rotate && root_space && !identity) {
			rotate_vec(m, me->transform.position);
			rotate_quat(q, me->transform.orientation);
		}
	}
	for (size_t i = 0; i < s->flex_shape_count; i++) {
		smdmx_flex_shape *f = &s->flex_shapes[i];
		const smdmx_mesh *me = &s->meshes[f->mesh];
		bool in_model_space = rotate && me->parent_joint == SMDMX_NONE && me->transform.orientation[3] == 1 &&
		                      me->transform.position[0] == 0 && me->transform.position[1] == 0 && me->transform.position[2] == 0;
		for (size_t k = 0; k < f->position_count; k++) {
			scale3(f->position_deltas[k], scale);
			if (in_model_space) rotate_vec(m, f->position_deltas[k]);
		}
		if (in_model_space)
			for (size_t k = 0; k < f->normal_count; k++) rotate_vec(m, f->normal_deltas[k]);
	}
	for (size_t i = 0; i < s->attachment_count; i++) {
		smdmx_attachment *a = &s->attachments[i];
		scale3(a->transform.position, scale);
		if (rotate && a->parent_joint == SMDMX_NONE) {
			rotate_vec(m, a->transform.position);
			rotate_quat(q, a->transform.orientation);
		}
	}
	for (size_t c = 0; c < s->clip_count; c++) {
		for (size_t k = 0; k < s->clips[c].channel_count; k++) {
			smdmx_channel *ch = &s->clips[c].channels[k];
			bool root = s->joints[ch->joint].parent == SMDMX_NONE;
			/* Position and orientation keys may share their time arrays, never their values. */
			for (size_t n = 0; n < ch->position_count; n++) {
				scale3(ch->positions[n], scale);
				if (rotate && root) rotate_vec(m, ch->positions[n]);
			}
			if (rotate && root)
				for (size_t n = 0; n < ch->orientation_count; n++) rotate_quat(q, ch->orientations[n]);
		}
	}
	if (up_axis) s->up_axis = 'Z';
	return smdmx_scene_validate(s, error);
}

static bool add_clips(smdmx_scene *dst, const smdmx_scene *src, const sm_names *joints, smdmx_error *error);

bool smdmx_scene_add_clips(smdmx_scene *dst, const smdmx_scene *src, smdmx_error *error)
{
	/* joints match by name: the first of each name */
	sm_alloc *a = &dst->owner->alloc;
	sm_names joints;
	if (!sm_names_init(a, &joints, dst->joint_count)) return sm_fail_oom(error);
	bool ok = true;
	for (size_t i = 0; ok && i < dst->joint_count; i++) ok = sm_names_put(a, &joints, dst->joints[i].name, (uint32_t)i, true);
	ok = ok ? add_clips(dst, src, &joints, error) : sm_fail_oom(error);
	sm_names_free(a, &joints);
	return ok;
}

static bool add_clips(smdmx_scene *dst, const smdmx_scene *src, const sm_names *joints, smdmx_error *error)
{
	sm_owner *o = dst->owner;
	smdmx_clip *clips = sm_owned_calloc(o, dst->clip_count + src->clip_count + 1, sizeof(smdmx_clip), error);
	if (!clips) return false;
	if (dst->clip_count) memcpy(clips, dst->clips, dst->clip_count * sizeof(smdmx_clip));
	size_t n = dst->clip_count;
	for (size_t c = 0; c < src->clip_count; c++) {
		const smdmx_clip *sc = &src->clips[c];
		/* a clip is known by its name: two of one name would write one file over the other */
		for (size_t k = 0; k < n; k++)
			if (!strcmp(clips[k].name, sc->name))
				return sm_fail(error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "a clip named '%s' is there already", sc->name);
		smdmx_clip *dc = &clips[n++];
		*dc = *sc;
		dc->name = sm_strdup(o, sc->name, strlen(sc->name), error);
		dc->channels = sm_owned_calloc(o, sc->channel_count + 1, sizeof(smdmx_channel), error);
		if (!dc->name || !dc->channels) return false;
		for (size_t k = 0; k < sc->channel_count; k++) {
			const smdmx_channel *x = &sc->channels[k];
			smdmx_channel *y = &dc->channels[k];
			/* Joints match by name. */
			const char *name = src->joints[x->joint].name;
			uint32_t j = sm_names_get(joints, name);
			if (j == SMDMX_NONE)
				return sm_fail(error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "clip '%s' moves bone '%s', which the first file lacks",
				               sc->name, name);
			y->joint = j;
			size_t tb = x->position_count * sizeof(int32_t), ob = x->orientation_count * sizeof(int32_t);
			y->position_times = sm_owned_alloc(o, tb + 1, error);
			y->positions = sm_owned_alloc(o, x->position_count * sizeof(smdmx_vec3) + 1, error);
			y->orientation_times = sm_owned_alloc(o, ob + 1, error);
			y->orientations = sm_owned_alloc(o, x->orientation_count * sizeof(smdmx_quat) + 1, error);
			if (!y->position_times || !y->positions || !y->orientation_times || !y->orientations) return false;
			memcpy(y->position_times, x->position_times, tb);
			memcpy(y->positions, x->positions, x->position_count * sizeof(smdmx_vec3));
			memcpy(y->orientation_times, x->orientation_times, ob);
			memcpy(y->orientations, x->orientations, x->orientation_count * sizeof(smdmx_quat));
			y->position_count = x->position_count;
			y->orientation_count = x->orientation_count;
		}
	}
	dst->clips = clips;
	dst->clip_count = n;
	return smdmx_scene_validate(dst, error);
}

/* A controller that only drives the shape of its own name over 0..1: what a VTA's shape
 * gets anyway, so leaving it out loses nothing. */
static bool plain_controller(const smdmx_scene *s, const sm_names *shapes, const smdmx_flex_controller *c)
{
	if (c->raw_controls.count != 1 || strcmp(c->raw_controls.data[0], c->name) != 0 || c->stereo || c->eyelid ||
	    c->min != 0 || c->max != 1)
		return false;
	for (size_t i = 0; i < c->wrinkle_scales.count; i++)
		if (c->wrinkle_scales.data[i] != 0) return false;
	if (shapes && shapes->cap) return sm_names_get(shapes, c->name) != SMDMX_NONE;
	for (size_t i = 0; i < s->flex_shape_count; i++) /* no memory for the index */
		if (strcmp(s->flex_shapes[i].name, c->name) == 0) return true;
	return false;
}

/* GoldSrc's file system ignores the case of names. */
static bool same_ascii_nocase(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a, y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
		if (x != y) return false;
		if (!x) return true;
	}
}

void smdmx_smd_report_losses(const smdmx_scene *s, const smdmx_smd_write_options *o, bool vta_too, smdmx_warnings *w)
{
	bool goldsrc = o && o->goldsrc;
	if (goldsrc) {
		size_t moved = 0, extra = 0;
		for (size_t i = 0; i < s->mesh_count; i++) {
			const smdmx_mesh *m = &s->meshes[i];
			if (m->uv_set_count > 1) extra++;
			for (size_t p = 0; m->weight_offsets && p < m->position_count; p++) {
				size_t n = m->weight_offsets[p + 1] - m->weight_offsets[p];
				moved += n > 1 || (n == 1 && m->weights[m->weight_offsets[p]].weight != 1.0f);
			}
		}
		if (moved)
			sm_warn(w, SMDMX_WARNING_GOLDSRC_LINKS, 0, 0, "GoldSrc has one bone per vertex: %zu vertices of several weight links "
			        "put on their strongest; nothing to do (no GoldSrc SMD holds more)", moved);
		if (extra) sm_warn(w, SMDMX_WARNING_DROPPED_UV_SETS, 0, 0, "GoldSrc has one UV set: the others of %zu meshes left out; nothing to do (no GoldSrc "
		                   "SMD holds them)",
		                   extra);
		/* materials that become one texture name */
		size_t merged = 0;
		const char *first_a = NULL, *first_b = NULL;
		char (*tex)[SM_GOLDSRC_NAME_MAX] = s->material_count ? malloc(s->material_count * sizeof(*tex)) : NULL;
		if (tex) {
			for (size_t i = 0; i < s->material_count; i++) sm_goldsrc_texture(s->materials[i].name, tex[i]);
			for (size_t i = 0; i < s->material_count; i++)
				for (size_t k = 0; k < i; k++)
					if (same_ascii_nocase(tex[i], tex[k])) {
						if (!merged++) {
							first_a = s->materials[k].name;
							first_b = s->materials[i].name;
						}
						break;
					}
			free(tex);
		}
		if (merged)
			sm_warn(w, SMDMX_WARNING_GOLDSRC_MATERIALS, 0, 0, "%zu materials take the GoldSrc texture name of another ('%s' "
			        "and '%s' are one texture); rename them in the source to keep them apart", merged, first_a, first_b);
		if (s->flex_shape_count)
			sm_warn(w, SMDMX_WARNING_DROPPED_SHAPES, 0, 0, "GoldSrc has no flex: %zu shapes left out; nothing to do (no GoldSrc SMD holds them)",
			        s->flex_shape_count);
		vta_too = true; /* the shapes are said above */
	}
	size_t balance = 0, wrinkle = 0;
	for (size_t i = 0; i < s->mesh_count; i++) {
		balance += s->meshes[i].balance.indices != NULL;
		wrinkle += s->meshes[i].wrinkle.indices != NULL;
	}
	if (balance) sm_warn(w, SMDMX_WARNING_DROPPED_BALANCE, 0, 0, "SMD has no stereo balance: left out of %zu meshes; use dmx2smd --qc to keep it in a QC",
		                 balance);
	if (wrinkle) sm_warn(w, SMDMX_WARNING_DROPPED_WRINKLE, 0, 0, "SMD has no wrinkle data: left out of %zu meshes; keep the DMX for it (no SMD or QC holds it)",
		                 wrinkle);
	if (s->attachment_count)
		sm_warn(w, SMDMX_WARNING_DROPPED_ATTACHMENTS, 0, 0, "SMD has no attachments: %zu left out; use dmx2smd --qc to keep them in a QC",
		        s->attachment_count);
	size_t controllers = 0;
	sm_names shapes;
	memset(&shapes, 0, sizeof(shapes));
	if (s->flex_controller_count && s->owner && sm_names_init(&s->owner->alloc, &shapes, s->flex_shape_count)) {
		bool ok = true;
		for (size_t i = 0; ok && i < s->flex_shape_count; i++)
			ok = sm_names_put(&s->owner->alloc, &shapes, s->flex_shapes[i].name, (uint32_t)i, true);
		if (!ok) sm_names_free(&s->owner->alloc, &shapes);
	}
	for (size_t i = 0; i < s->flex_controller_count; i++) controllers += !plain_controller(s, &shapes, &s->flex_controllers[i]);
	if (shapes.cap) sm_names_free(&s->owner->alloc, &shapes);
	if (controllers)
		sm_warn(w, SMDMX_WARNING_DROPPED_CONTROLLERS, 0, 0, "SMD has no flex controllers: %zu left out; use dmx2smd --qc to keep them in a QC",
		        controllers);
	if (s->flex_rule_count || s->domination_rule_count)
		sm_warn(w, SMDMX_WARNING_DROPPED_RULES, 0, 0, "SMD has no flex or domination rules: %zu left out; use dmx2smd --qc to keep them in a QC",
		        s->flex_rule_count + s->domination_rule_count);
	if (s->flex_shape_count && !vta_too)
		sm_warn(w, SMDMX_WARNING_DROPPED_SHAPES, 0, 0, "flex shapes need a VTA: %zu left out of the SMD; write a VTA beside it to keep them",
		        s->flex_shape_count);
	if (!goldsrc) {
		size_t scaled = 0;
		for (size_t i = 0; i < s->mesh_count; i++) {
			const smdmx_mesh *m = &s->meshes[i];
			for (size_t p = 0; m->weight_offsets && p < m->position_count; p++) {
				double sum = sm_weight_sum(m, p);
				scaled += sum > 0 && sum < SM_WEIGHT_SUM_LOW;
			}
		}
		if (scaled)
			sm_warn(w, SMDMX_WARNING_WEIGHTS_SCALED, 0, 0, "weights of %zu %s sum below 1: written scaled to 1, the model studiomdl "
			        "makes of them (an SMD reader would give the rest to the parent bone); nothing to do", scaled, scaled == 1 ? "vertex" : "vertices");
	}
	size_t ngons = 0;
	for (size_t i = 0; i < s->mesh_count; i++)
		for (size_t f = 0; f < s->meshes[i].face_set_count; f++) {
			const smdmx_face_set *fs = &s->meshes[i].face_sets[f];
			for (size_t p = 0; p < fs->polygon_count; p++) ngons += fs->offsets[p + 1] - fs->offsets[p] > 3;
		}
	if (s->mesh_count > 1)
		sm_warn(w, SMDMX_WARNING_MESHES_MERGED, 0, 0, "SMD has one mesh: %zu meshes written as one, their names left out and the triangles keeping their "
		        "materials; nothing to do (no SMD holds the names)",
		        s->mesh_count);
	if (ngons)
		sm_warn(w, SMDMX_WARNING_FANNED, 0, 0, "SMD holds triangles: %zu polygons of more than 3 corners written as fans, the same surface; nothing to do",
		        ngons);
	if (s->up_axis && s->up_axis != 'Z')
		sm_warn(w, SMDMX_WARNING_UP_AXIS, 0, 0, "the model is %c up, and SMD cannot say so: written as it is; add '$upaxis %c' to its QC (dmx2smd --qc "
		        "writes it)", s->up_axis,
		        s->up_axis);
	bool has_faces = false;
	for (size_t i = 0; i < s->mesh_count; i++) has_faces = has_faces || s->meshes[i].face_set_count;
	smdmx_smd_write_kind kind = o ? o->kind : SMDMX_SMD_WRITE_AUTO;
	bool reference = kind == SMDMX_SMD_WRITE_REFERENCE ||
	                 (kind == SMDMX_SMD_WRITE_AUTO && has_faces && s->source.format != SMDMX_SOURCE_VTA);
	if (o && o->reference_clip && reference && s->clip_count && !sm_smd_reference_clip(s, true))
		sm_warn(w, SMDMX_WARNING_DROPPED_CLIPS, 0, 0,
		        "a reference SMD holds an animation only when its first frame is the bind pose: %zu clip%s left out; write "
		        "each as an animation SMD to keep them", s->clip_count,
		        s->clip_count == 1 ? "" : "s");
	else if (s->clip_count > 1)
		sm_warn(w, SMDMX_WARNING_DROPPED_CLIPS, 0, 0, "one SMD holds one animation: %zu more clips left out; write each as an SMD of its own to keep them",
		        s->clip_count - 1);
	size_t rates = 0;
	const smdmx_clip *other = NULL;
	for (size_t i = 0; i < s->clip_count; i++)
		if (s->clips[i].frame_rate != 30 && !rates++) other = &s->clips[i];
	if (rates) {
		char r[SM_FLOAT_MAX];
		sm_format_shortest((float)other->frame_rate, r);
		sm_warn(w, SMDMX_WARNING_FRAME_RATE, 0, 0, "SMD has no frame rate, and studiomdl reads 30 fps unless the QC's $sequence says "
		        "fps: %zu clips are not 30 fps ('%s' is %s); add 'fps' to their $sequence lines (dmx2smd --qc writes it)",
		        rates, other->name, r);
	}
}
