/* Poses and skinning (pose.h). Orientations between keys are interpolated by normalised
 * lerp, not slerp: only square roots, so that the picture is the same on every system. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pose.h"
#include "support/keys.h"
#include "smdmx/math.h"

static void xform_of(const smdmx_transform *t, sm_xform *x)
{
	double q[4] = { t->orientation[0], t->orientation[1], t->orientation[2], t->orientation[3] };
	smdmx_quat_to_matrix(q, x->r);
	for (int i = 0; i < 3; i++) x->t[i] = t->position[i];
}

void sm_xform_apply(const sm_xform *x, const double v[3], double out[3])
{
	double o[3];
	for (int i = 0; i < 3; i++) o[i] = x->r[i][0] * v[0] + x->r[i][1] * v[1] + x->r[i][2] * v[2] + x->t[i];
	out[0] = o[0], out[1] = o[1], out[2] = o[2];
}

/* a * b: b first */
static sm_xform compose(const sm_xform *a, const sm_xform *b)
{
	sm_xform o;
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) o.r[i][j] = a->r[i][0] * b->r[0][j] + a->r[i][1] * b->r[1][j] + a->r[i][2] * b->r[2][j];
		o.t[i] = a->r[i][0] * b->t[0] + a->r[i][1] * b->t[1] + a->r[i][2] * b->t[2] + a->t[i];
	}
	return o;
}

/* The inverse of a rigid transform (its rotation's transpose). Bind rotations are unit
 * quaternions within 1e-3 (smdmx_scene_validate), their matrices normalised: near enough. */
static sm_xform inverse(const sm_xform *x)
{
	sm_xform o;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) o.r[i][j] = x->r[j][i];
	for (int i = 0; i < 3; i++) o.t[i] = -(o.r[i][0] * x->t[0] + o.r[i][1] * x->t[1] + o.r[i][2] * x->t[2]);
	return o;
}

static void sample(const smdmx_channel *c, int32_t t, smdmx_transform *x)
{
	double f;
	if (c->position_count) {
		size_t i = sm_key_span(c->position_times, c->position_count, t, &f);
		for (int k = 0; k < 3; k++) {
			double a = c->positions[i][k], b = f > 0 ? c->positions[i + 1][k] : a;
			x->position[k] = (float)(a + (b - a) * f);
		}
	}
	if (c->orientation_count) {
		size_t i = sm_key_span(c->orientation_times, c->orientation_count, t, &f);
		const float *a = c->orientations[i], *b = f > 0 ? c->orientations[i + 1] : a;
		double dot = 0, q[4], n = 0;
		for (int k = 0; k < 4; k++) dot += (double)a[k] * b[k];
		double s = dot < 0 ? -1 : 1; /* the shorter way */
		for (int k = 0; k < 4; k++) {
			q[k] = a[k] + (s * b[k] - a[k]) * f;
			n += q[k] * q[k];
		}
		n = sqrt(n);
		for (int k = 0; k < 4; k++) x->orientation[k] = (float)(n > 0 ? q[k] / n : a[k]);
	}
}

/* World transforms from local ones: parents before children whatever the joints' order
 * (the hierarchy is acyclic: smdmx_scene_validate). */
static void to_model_space(const smdmx_scene *s, const sm_xform *local, sm_xform *world, uint8_t *done, uint32_t *stack)
{
	for (size_t j = 0; j < s->joint_count; j++) {
		size_t n = 0;
		for (uint32_t k = (uint32_t)j; k != SMDMX_NONE && !done[k]; k = s->joints[k].parent) stack[n++] = k;
		while (n) {
			uint32_t k = stack[--n], p = s->joints[k].parent;
			world[k] = p == SMDMX_NONE ? local[k] : compose(&world[p], &local[k]);
			done[k] = 1;
		}
	}
}

bool sm_pose_make(const smdmx_scene *s, const smdmx_clip *clip, int32_t tick, sm_pose *out)
{
	size_t n = s->joint_count, bytes;
	memset(out, 0, sizeof(*out));
	if (!n) return true;
	if (n > SIZE_MAX / sizeof(sm_xform)) return false;
	bytes = n * sizeof(sm_xform);
	sm_xform *bind = malloc(bytes), *posed = malloc(bytes), *local = malloc(bytes);
	sm_xform *skin = malloc(bytes);
	uint8_t *done = malloc(n);
	uint32_t *stack = malloc(n * sizeof(uint32_t));
	smdmx_transform *pose = malloc(n * sizeof(smdmx_transform));
	bool ok = bind && posed && local && skin && done && stack && pose;
	if (ok) {
		for (size_t j = 0; j < n; j++) xform_of(&s->joints[j].bind, &local[j]);
		memset(done, 0, n);
		to_model_space(s, local, bind, done, stack);
		for (size_t j = 0; j < n; j++) pose[j] = s->joints[j].bind;
		for (size_t c = 0; clip && c < clip->channel_count; c++)
			if (clip->channels[c].joint < n) sample(&clip->channels[c], tick, &pose[clip->channels[c].joint]);
		for (size_t j = 0; j < n; j++) xform_of(&pose[j], &local[j]);
		memset(done, 0, n);
		to_model_space(s, local, posed, done, stack);
		for (size_t j = 0; j < n; j++) {
			sm_xform inv = inverse(&bind[j]);
			skin[j] = compose(&posed[j], &inv);
		}
	}
	free(local);
	free(done);
	free(stack);
	free(pose);
	if (!ok) {
		free(bind);
		free(posed);
		free(skin);
		return false;
	}
	out->bind = bind, out->posed = posed, out->skin = skin, out->count = n;
	return true;
}

void sm_pose_free(sm_pose *p)
{
	free(p->bind);
	free(p->posed);
	free(p->skin);
	memset(p, 0, sizeof(*p));
}

void sm_pose_mesh(const smdmx_scene *s, const sm_pose *p, uint32_t m, const smdmx_flex_shape *shape, float (*out)[3])
{
	const smdmx_mesh *mesh = &s->meshes[m];
	sm_xform local, bind, posed;
	xform_of(&mesh->transform, &local);
	bool parented = mesh->parent_joint != SMDMX_NONE && mesh->parent_joint < p->count;
	bind = parented ? compose(&p->bind[mesh->parent_joint], &local) : local;
	posed = parented ? compose(&p->posed[mesh->parent_joint], &local) : local;
	for (size_t i = 0; i < mesh->position_count; i++)
		for (int k = 0; k < 3; k++) out[i][k] = mesh->positions[i][k];
	if (shape)
		for (size_t i = 0; i < shape->position_count; i++) {
			uint32_t at = shape->position_indices[i];
			if (at < mesh->position_count)
				for (int k = 0; k < 3; k++) out[at][k] += shape->position_deltas[i][k];
		}
	for (size_t i = 0; i < mesh->position_count; i++) {
		double v[3] = { out[i][0], out[i][1], out[i][2] }, o[3] = { 0, 0, 0 };
		uint32_t w0 = mesh->weight_offsets ? mesh->weight_offsets[i] : 0;
		uint32_t w1 = mesh->weight_offsets ? mesh->weight_offsets[i + 1] : 0;
		double sum = 0;
		if (w1 > w0) { /* skinned: from the bind pose to the posed one, by each joint */
			double b[3];
			sm_xform_apply(&bind, v, b);
			for (uint32_t w = w0; w < w1; w++) {
				const smdmx_weight *l = &mesh->weights[w];
				if (l->joint >= p->count || !(l->weight > 0)) continue;
				double r[3];
				sm_xform_apply(&p->skin[l->joint], b, r);
				for (int k = 0; k < 3; k++) o[k] += r[k] * l->weight;
				sum += l->weight;
			}
		}
		if (sum > 0)
			for (int k = 0; k < 3; k++) o[k] /= sum;
		else
			sm_xform_apply(&posed, v, o);
		for (int k = 0; k < 3; k++) out[i][k] = (float)o[k];
	}
}
