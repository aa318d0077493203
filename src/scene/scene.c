/* Scene validation, the order of a mesh's polygons, and sampling animation keys. */
#include <cglm/quat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "support/keys.h"
#include "support/num.h"
#include "scene/scene_util.h"
#include "smdmx/math.h"


/* ---- validation ------------------------------------------------------------------------- */

#define INVALID(...) sm_fail(error, SMDMX_ERROR_INVALID_SCENE, 0, 0, __VA_ARGS__)

static bool finite3(const float *v)
{
	return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static bool unit_quat(const float *q)
{
	versor v = { q[0], q[1], q[2], q[3] };
	float n = glm_quat_norm(v);
	return isfinite(n) && fabsf(n - 1.0f) <= 1e-3f;
}

static bool check_transform(const smdmx_transform *t)
{
	return finite3(t->position) && unit_quat(t->orientation);
}

static bool check_indices(const uint32_t *ix, size_t n, size_t bound)
{
	for (size_t i = 0; i < n; i++)
		if (ix[i] >= bound) return false;
	return true;
}

static bool validate_mesh(const smdmx_scene *s, size_t mi, smdmx_error *error)
{
	const smdmx_mesh *m = &s->meshes[mi];
	if (m->parent_joint != SMDMX_NONE && m->parent_joint >= s->joint_count)
		return INVALID("mesh %zu: parent joint %u out of range", mi, m->parent_joint);
	if (!check_transform(&m->transform)) return INVALID("mesh %zu: transform not finite or not unit", mi);
	if (m->corner_count && !m->position_indices) return INVALID("mesh %zu: no position indices", mi);
	if (!check_indices(m->position_indices, m->corner_count, m->position_count))
		return INVALID("mesh %zu: position index out of range", mi);
	for (size_t i = 0; i < m->position_count; i++)
		if (!finite3(m->positions[i])) return INVALID("mesh %zu: position %zu not finite", mi, i);
	if (m->weight_offsets) {
		if (m->weight_offsets[0] != 0 || m->weight_offsets[m->position_count] != m->weight_count)
			return INVALID("mesh %zu: weight offsets inconsistent", mi);
		for (size_t i = 0; i < m->position_count; i++)
			if (m->weight_offsets[i] > m->weight_offsets[i + 1]) return INVALID("mesh %zu: weight offsets decrease", mi);
		for (size_t i = 0; i < m->weight_count; i++) {
			if (m->weights[i].joint >= s->joint_count) return INVALID("mesh %zu: weight joint out of range", mi);
			if (!isfinite(m->weights[i].weight)) return INVALID("mesh %zu: weight not finite", mi);
		}
	} else if (m->weight_count) {
		return INVALID("mesh %zu: weights without offsets", mi);
	}
	if (m->normal_indices) {
		if (!check_indices(m->normal_indices, m->corner_count, m->normal_count))
			return INVALID("mesh %zu: normal index out of range", mi);
		for (size_t i = 0; i < m->normal_count; i++)
			if (!finite3(m->normals[i])) return INVALID("mesh %zu: normal %zu not finite", mi, i);
	}
	for (size_t u = 0; u < m->uv_set_count; u++) {
		const smdmx_uv_set *uv = &m->uv_sets[u];
		if (!uv->name) return INVALID("mesh %zu: UV set %zu has no name", mi, u);
		if (m->corner_count && !uv->indices) return INVALID("mesh %zu: UV set %zu has no indices", mi, u);
		if (!check_indices(uv->indices, m->corner_count, uv->count))
			return INVALID("mesh %zu: UV index out of range", mi);
		for (size_t i = 0; i < uv->count; i++)
			if (!isfinite(uv->data[i][0]) || !isfinite(uv->data[i][1])) return INVALID("mesh %zu: UV not finite", mi);
	}
	for (smdmx_corner_field f = SMDMX_CORNER_BALANCE; f <= SMDMX_CORNER_WRINKLE; f++) {
		const smdmx_scalar_field *x = f == SMDMX_CORNER_BALANCE ? &m->balance : &m->wrinkle;
		if (x->indices && !check_indices(x->indices, m->corner_count, x->count))
			return INVALID("mesh %zu: %s index out of range", mi, smdmx_corner_field_describe(f)->name);
		for (size_t i = 0; x->indices && i < x->count; i++)
			if (!isfinite(x->data[i])) return INVALID("mesh %zu: %s not finite", mi, smdmx_corner_field_describe(f)->name);
	}
	for (size_t i = 0; i < m->face_set_count; i++) {
		const smdmx_face_set *fs = &m->face_sets[i];
		if (fs->material >= s->material_count) return INVALID("mesh %zu face set %zu: material out of range", mi, i);
		if (fs->offsets[0] != 0 || fs->offsets[fs->polygon_count] != fs->corner_count)
			return INVALID("mesh %zu face set %zu: offsets inconsistent", mi, i);
		for (size_t p = 0; p < fs->polygon_count; p++)
			if (fs->offsets[p + 1] < fs->offsets[p] + 3)
				return INVALID("mesh %zu face set %zu: polygon %zu has fewer than 3 corners", mi, i, p);
		if (!check_indices(fs->corners, fs->corner_count, m->corner_count))
			return INVALID("mesh %zu face set %zu: corner out of range", mi, i);
	}
	return true;
}

static bool strings_ok(const smdmx_string_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		if (!l->data[i]) return false;
	return true;
}

static bool check_times(const int32_t *t, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (t[i] <= t[i - 1]) return false;
	return true;
}

/* The first joint whose chain of parents never ends (it is on a cycle or leads into one),
 * SIZE_MAX when there is none, SIZE_MAX - 1 when memory ran out. Linear: each joint is
 * walked once, marked on the way up (1) and done (2) once its chain is known to end. */
size_t sm_first_cyclic_joint(sm_alloc *a, const smdmx_joint *joints, size_t n)
{
	bool ordered = true; /* parents before children: no cycle possible */
	for (size_t i = 0; i < n && ordered; i++) ordered = joints[i].parent == SMDMX_NONE || joints[i].parent < i;
	if (ordered) return SIZE_MAX;
	uint8_t *state = a ? sm_malloc(a, n) : NULL;
	if (!state) {
		if (a) return SIZE_MAX - 1;
		/* no allocator (a scene built by hand): walk up from each joint */
		for (size_t i = 0; i < n; i++) {
			uint32_t p = joints[i].parent;
			for (size_t steps = 0; p != SMDMX_NONE; steps++) {
				if (steps >= n || p == i) return i;
				p = joints[p].parent;
			}
		}
		return SIZE_MAX;
	}
	memset(state, 0, n);
	size_t found = SIZE_MAX;
	for (size_t i = 0; i < n && found == SIZE_MAX; i++) {
		uint32_t p = (uint32_t)i;
		while (p != SMDMX_NONE && state[p] == 0) {
			state[p] = 1;
			p = joints[p].parent;
		}
		if (p != SMDMX_NONE && state[p] == 1) found = i; /* back on this walk's own path */
		for (p = (uint32_t)i; p != SMDMX_NONE && state[p] == 1; p = joints[p].parent) state[p] = 2;
	}
	sm_free(a, state, n);
	return found;
}

bool smdmx_scene_validate(const smdmx_scene *s, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!s) return sm_fail_null(error, __func__, "scene");
	smdmx_error local;
	if (!error) {
		memset(&local, 0, sizeof(local));
		error = &local;
	}
	for (size_t i = 0; i < s->joint_count; i++) {
		const smdmx_joint *j = &s->joints[i];
		if (!j->name) return INVALID("joint %zu has no name", i);
		if (j->parent != SMDMX_NONE && j->parent >= s->joint_count) return INVALID("joint %zu: parent out of range", i);
		if (!check_transform(&j->bind)) return INVALID("joint '%s': bind pose not finite or not unit", j->name);
	}
	size_t cyclic = sm_first_cyclic_joint(s->owner ? &s->owner->alloc : NULL, s->joints, s->joint_count);
	if (cyclic == SIZE_MAX - 1) return sm_fail_oom(error);
	if (cyclic != SIZE_MAX) return INVALID("joint '%s' is its own ancestor", s->joints[cyclic].name);
	for (size_t i = 0; i < s->material_count; i++)
		if (!s->materials[i].name) return INVALID("material %zu has no name", i);
	for (size_t i = 0; i < s->mesh_count; i++)
		if (!validate_mesh(s, i, error)) return false;
	for (size_t i = 0; i < s->attachment_count; i++) {
		const smdmx_attachment *a = &s->attachments[i];
		if (a->parent_joint != SMDMX_NONE && a->parent_joint >= s->joint_count)
			return INVALID("attachment %zu: parent out of range", i);
		if (!check_transform(&a->transform)) return INVALID("attachment %zu: transform invalid", i);
	}
	for (size_t i = 0; i < s->flex_shape_count; i++) {
		const smdmx_flex_shape *f = &s->flex_shapes[i];
		if (f->mesh >= s->mesh_count) return INVALID("flex shape %zu: mesh out of range", i);
		const smdmx_mesh *m = &s->meshes[f->mesh];
		if (!check_indices(f->position_indices, f->position_count, m->position_count) ||
		    !check_indices(f->normal_indices, f->normal_count, m->normal_count) ||
		    !check_indices(f->wrinkle_indices, f->wrinkle_count, m->wrinkle.count))
			return INVALID("flex shape '%s': index out of range", f->name ? f->name : "");
		for (size_t k = 0; k < f->position_count; k++)
			if (!finite3(f->position_deltas[k])) return INVALID("flex shape %zu: delta not finite", i);
		for (size_t k = 0; k < f->normal_count; k++)
			if (!finite3(f->normal_deltas[k])) return INVALID("flex shape %zu: delta not finite", i);
	}
	for (size_t i = 0; i < s->flex_controller_count; i++) {
		const smdmx_flex_controller *c = &s->flex_controllers[i];
		if (!c->name) return INVALID("flex controller %zu has no name", i);
		if (!strings_ok(&c->raw_controls)) return INVALID("flex controller '%s': a raw control has no name", c->name);
		if (c->wrinkle_scales.count && c->wrinkle_scales.count != c->raw_controls.count)
			return INVALID("flex controller '%s': %zu wrinkle scales for %zu raw controls", c->name,
			               c->wrinkle_scales.count, c->raw_controls.count);
		if (!isfinite(c->min) || !isfinite(c->max)) return INVALID("flex controller '%s': range not finite", c->name);
	}
	for (size_t i = 0; i < s->domination_rule_count; i++)
		if (!strings_ok(&s->domination_rules[i].dominators) || !strings_ok(&s->domination_rules[i].suppressed))
			return INVALID("domination rule %zu: a name is missing", i);
	for (size_t i = 0; i < s->flex_rule_count; i++)
		if (!s->flex_rules[i].name || (s->flex_rules[i].kind == SMDMX_FLEX_RULE_EXPRESSION && !s->flex_rules[i].expression) ||
		    (unsigned)s->flex_rules[i].kind > SMDMX_FLEX_RULE_LOCAL_VAR)
			return INVALID("flex rule %zu is incomplete", i);
	for (size_t i = 0; i < s->attachment_count; i++)
		if (!s->attachments[i].name) return INVALID("attachment %zu has no name", i);
	for (size_t i = 0; i < s->clip_count; i++) {
		const smdmx_clip *c = &s->clips[i];
		if (!(c->frame_rate > 0) || !isfinite(c->frame_rate)) return INVALID("clip %zu: bad frame rate", i);
		for (size_t k = 0; k < c->channel_count; k++) {
			const smdmx_channel *ch = &c->channels[k];
			if (ch->joint >= s->joint_count) return INVALID("clip %zu channel %zu: joint out of range", i, k);
			if (!check_times(ch->position_times, ch->position_count) ||
			    !check_times(ch->orientation_times, ch->orientation_count))
				return INVALID("clip %zu channel %zu: key times do not increase", i, k);
			for (size_t n = 0; n < ch->position_count; n++)
				if (!finite3(ch->positions[n])) return INVALID("clip %zu channel %zu: position not finite", i, k);
			for (size_t n = 0; n < ch->orientation_count; n++)
				if (!unit_quat(ch->orientations[n])) return INVALID("clip %zu channel %zu: orientation not unit", i, k);
		}
	}
	return true;
}

/* ---- polygon order --------------------------------------------------------------------------- */

bool sm_polygons_in_order(const smdmx_mesh *m)
{
	bool any = false;
	uint32_t last = 0;
	for (size_t i = 0; i < m->face_set_count; i++) {
		const smdmx_face_set *fs = &m->face_sets[i];
		for (size_t j = 0; j < fs->polygon_count; j++) {
			uint32_t first = fs->corners[fs->offsets[j]];
			if (any && first < last) return false;
			last = first;
			any = true;
		}
	}
	return true;
}

bool sm_polygon_order(sm_alloc *a, const smdmx_mesh *m, sm_poly_ref **out, size_t *count)
{
	size_t n = 0;
	for (size_t i = 0; i < m->face_set_count; i++) n += m->face_sets[i].polygon_count;
	*count = n;
	*out = NULL;
	if (n == 0) return true;
	size_t bytes, sbytes;
	if (!sm_mul(n, sizeof(sm_poly_ref), &bytes)) return false;
	sm_poly_ref *p = sm_malloc(a, bytes);
	if (!p) return false;
	size_t k = 0;
	bool sorted = true;
	for (size_t i = 0; i < m->face_set_count; i++) {
		const smdmx_face_set *fs = &m->face_sets[i];
		for (size_t j = 0; j < fs->polygon_count; j++) {
			p[k].face_set = (uint32_t)i;
			p[k].polygon = (uint32_t)j;
			p[k].first = fs->corners[fs->offsets[j]];
			if (k && p[k].first < p[k - 1].first) sorted = false;
			k++;
		}
	}
	if (!sorted) {
		/* Counting sort by first corner: O(n + corners), stable. */
		size_t nc = m->corner_count + 1;
		uint32_t *start = NULL;
		sm_poly_ref *q = NULL;
		if (sm_mul(nc, sizeof(uint32_t), &sbytes)) start = sm_malloc(a, sbytes);
		if (start) q = sm_malloc(a, bytes);
		if (!start || !q) {
			if (start) sm_free(a, start, sbytes);
			sm_free(a, p, bytes);
			return false;
		}
		memset(start, 0, sbytes);
		for (size_t i = 0; i < n; i++) start[p[i].first + 1]++;
		for (size_t i = 1; i < nc; i++) start[i] += start[i - 1];
		for (size_t i = 0; i < n; i++) q[start[p[i].first]++] = p[i];
		sm_free(a, start, sbytes);
		sm_free(a, p, bytes);
		p = q;
	}
	*out = p;
	return true;
}

/* ---- interpolation ---------------------------------------------------------------------- */

void sm_lerp3(const float a[3], const float b[3], double f, float out[3])
{
	for (int i = 0; i < 3; i++) out[i] = (float)(a[i] + f * ((double)b[i] - a[i]));
}

void sm_slerp(const float a[4], const float b[4], double f, float out[4])
{
	double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
	double sb = d < 0 ? -1.0 : 1.0, wa, wb;
	d = fabs(d);
	if (d > 0.9999995) {
		wa = 1 - f;
		wb = f;
	} else {
		double th = sm_acos(d), st = sm_sin(th);
		wa = sm_sin((1 - f) * th) / st;
		wb = sm_sin(f * th) / st;
	}
	double q[4], n = 0;
	for (int i = 0; i < 4; i++) {
		q[i] = wa * a[i] + wb * sb * b[i];
		n += q[i] * q[i];
	}
	n = sqrt(n);
	for (int i = 0; i < 4; i++) out[i] = (float)(q[i] / n);
}

/* Positions interpolate linearly. */
void sm_sample_position(const smdmx_channel *c, int32_t t, const float *fallback, float *out)
{
	if (c->position_count == 0) {
		memcpy(out, fallback, sizeof(smdmx_vec3));
		return;
	}
	double f;
	size_t k = sm_key_span(c->position_times, c->position_count, t, &f);
	const float *a = c->positions[k];
	if (f == 0) {
		memcpy(out, a, sizeof(smdmx_vec3));
		return;
	}
	sm_lerp3(a, c->positions[k + 1], f, out);
}

/* Orientations by shortest-path slerp. */
void sm_sample_orientation(const smdmx_channel *c, int32_t t, const float *fallback, float *out)
{
	if (c->orientation_count == 0) {
		memcpy(out, fallback, sizeof(smdmx_quat));
		return;
	}
	double f;
	size_t k = sm_key_span(c->orientation_times, c->orientation_count, t, &f);
	if (f == 0) {
		memcpy(out, c->orientations[k], sizeof(smdmx_quat));
		return;
	}
	sm_slerp(c->orientations[k], c->orientations[k + 1], f, out);
}

long long smdmx_clip_frames(const smdmx_clip *c)
{
	if (!c) return 0;
	long long first = llround((double)c->start * c->frame_rate / 10000.0);
	long long last = llround(((double)c->start + c->duration) * c->frame_rate / 10000.0);
	return last - first + 1;
}
