/* Operations on whole scenes: scale and up axis, a move and turn, clips from several files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "support/num.h"
#include "smdmx/math.h"
#include "smdmx/scene.h"

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

/* v + d (d NULL: v). */
static void shift3(float *v, const double *d)
{
	for (int i = 0; d && i < 3; i++) v[i] = (float)(v[i] + d[i]);
}

/* A rotation's matrix with quarter turns exact: no cos(90) = 6e-17 residue in the output. */
static void exact_matrix(const double q[4], double m[3][3])
{
	smdmx_quat_to_matrix(q, m);
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			m[i][k] = fabs(m[i][k]) < 1e-12 ? 0 : fabs(fabs(m[i][k]) - 1) < 1e-12 ? (m[i][k] > 0 ? 1 : -1) : m[i][k];
}

/* Every length scaled by scale; then, with rotate, the scene turned by q (m its matrix) and
 * moved by d (after the turn; NULL: not moved), applied at the roots: the root joints' bind
 * poses and keys, meshes and attachments under no joint. */
static void place_roots(smdmx_scene *s, double scale, bool rotate, const double q[4], double m[3][3], const double *d)
{
	for (size_t j = 0; j < s->joint_count; j++) {
		smdmx_joint *jt = &s->joints[j];
		scale3(jt->bind.position, scale);
		if (rotate && jt->parent == SMDMX_NONE) {
			rotate_vec(m, jt->bind.position);
			rotate_quat(q, jt->bind.orientation);
			shift3(jt->bind.position, d);
		}
	}
	/* A mesh of the model's own space turns whole: its data by the turn R, its transform T to
	 * R T R^-1 (the position turned, the quaternion's axis turned), so that a vertex lands at
	 * R T p. A quarter turn moves numbers without rounding them: the mesh is the one a
	 * conversion that applies T first and turns after makes, bit for bit. */
	for (size_t i = 0; i < s->mesh_count; i++) {
		smdmx_mesh *me = &s->meshes[i];
		scale3(me->transform.position, scale);
		bool turn = rotate && me->parent_joint == SMDMX_NONE;
		for (size_t p = 0; p < me->position_count; p++) {
			scale3(me->positions[p], scale);
			if (turn) rotate_vec(m, me->positions[p]);
		}
		if (turn) {
			for (size_t n = 0; n < me->normal_count; n++) rotate_vec(m, me->normals[n]);
			rotate_vec(m, me->transform.position);
			rotate_vec(m, me->transform.orientation);
			shift3(me->transform.position, d);
		}
	}
	for (size_t i = 0; i < s->flex_shape_count; i++) {
		smdmx_flex_shape *f = &s->flex_shapes[i];
		bool in_model_space = rotate && s->meshes[f->mesh].parent_joint == SMDMX_NONE;
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
			shift3(a->transform.position, d);
		}
	}
	for (size_t c = 0; c < s->clip_count; c++) {
		for (size_t k = 0; k < s->clips[c].channel_count; k++) {
			smdmx_channel *ch = &s->clips[c].channels[k];
			bool root = s->joints[ch->joint].parent == SMDMX_NONE;
			/* Position and orientation keys may share their time arrays, never their values. */
			for (size_t n = 0; n < ch->position_count; n++) {
				scale3(ch->positions[n], scale);
				if (rotate && root) {
					rotate_vec(m, ch->positions[n]);
					shift3(ch->positions[n], d);
				}
			}
			if (rotate && root)
				for (size_t n = 0; n < ch->orientation_count; n++) rotate_quat(q, ch->orientations[n]);
		}
	}
}

bool smdmx_scene_transform(smdmx_scene *s, double scale, char up_axis, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!s) return sm_fail_null(error, __func__, "scene");
	if (!(scale > 0) || !isfinite(scale)) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "the scale must be positive");
	if (up_axis != 0 && up_axis != 'Y' && up_axis != 'Z' && up_axis != 'X')
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "the up axis is X, Y or Z");
	/* Source is Z-up: a Y-up source turns +90 degrees about X, an X-up one +90 about Y
	 * (the rotations Blender Source Tools uses, doc/formats.md E5). */
	bool rotate = up_axis && up_axis != 'Z';
	double e[3] = { up_axis == 'Y' ? 1.57079632679489661923 : 0, up_axis == 'X' ? 1.57079632679489661923 : 0, 0 }, q[4], m[3][3];
	smdmx_euler_to_quat(e, q);
	exact_matrix(q, m);
	place_roots(s, scale, rotate, q, m, NULL);
	if (up_axis) s->up_axis = 'Z';
	return smdmx_scene_validate(s, error);
}

bool smdmx_scene_move(smdmx_scene *s, const double origin[3], double z_degrees, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!s || !origin) return sm_fail_null(error, __func__, !s ? "scene" : "origin");
	if (!isfinite(origin[0]) || !isfinite(origin[1]) || !isfinite(origin[2]) || !isfinite(z_degrees))
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "the origin and the turn must be finite numbers");
	/* p' = R (p - origin) = R p + d, d = -R origin */
	double e[3] = { 0, 0, fmod(z_degrees, 360.0) * (3.14159265358979323846 / 180.0) }, q[4], m[3][3], d[3];
	smdmx_euler_to_quat(e, q);
	exact_matrix(q, m);
	for (int i = 0; i < 3; i++) d[i] = -(m[i][0] * origin[0] + m[i][1] * origin[1] + m[i][2] * origin[2]);
	place_roots(s, 1, true, q, m, d);
	return smdmx_scene_validate(s, error);
}

static bool add_clips(smdmx_scene *dst, const smdmx_scene *src, const sm_names *joints, smdmx_error *error);

bool smdmx_scene_add_clips(smdmx_scene *dst, const smdmx_scene *src, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!dst || !src) return sm_fail_null(error, __func__, !dst ? "dst" : "src");
	if (!sm_scene_memory(dst, error)) return false;
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
