/* Every difference of two scenes by meaning (smdmx_scene_diff): names paired, geometry
 * polygon by polygon in model space, shapes corner by corner, clips frame by frame. */
#include <cglm/quat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "support/num.h"
#include "scene/scene_util.h"
#include "smdmx/math.h"
#include "scene/compare.h"

/* ---- listing every difference ---------------------------------------------------------- */

static size_t joint_named(const sm_names *joints, const char *name)
{
	uint32_t i = sm_names_get(joints, name);
	return i == SMDMX_NONE ? SIZE_MAX : i;
}

/* An index of names (the first of each), read through get: false when memory ran out. */
static bool index_names(cmp *c, sm_names *x, size_t n, const char *(*get)(const void *items, size_t i), const void *items)
{
	if (!sm_names_init(c->mem, x, n)) return false;
	for (size_t i = 0; i < n; i++)
		if (!sm_names_put(c->mem, x, get(items, i), (uint32_t)i, true)) return false;
	return true;
}

static const char *mesh_name(const void *items, size_t i)
{
	return ((const smdmx_mesh *)items)[i].name;
}

static const char *joint_name(const void *items, size_t i)
{
	return ((const smdmx_joint *)items)[i].name;
}

static const char *shape_name(const void *items, size_t i)
{
	return ((const smdmx_flex_shape *)items)[i].name;
}

static const char *attachment_name(const void *items, size_t i)
{
	return ((const smdmx_attachment *)items)[i].name;
}

static const char *clip_name(const void *items, size_t i)
{
	return ((const smdmx_clip *)items)[i].name;
}

static const char *parent_name(const smdmx_scene *s, uint32_t parent)
{
	return parent == SMDMX_NONE ? "" : s->joints[parent].name;
}

/* Each joint's channel in a clip (the last for a joint), NULL for none. */
static const smdmx_channel **channels_by_joint(cmp *c, const smdmx_scene *s, const smdmx_clip *clip)
{
	const smdmx_channel **by = sm_malloc(c->mem, (s->joint_count + 1) * sizeof(*by));
	if (!by) return NULL;
	for (size_t j = 0; j < s->joint_count; j++) by[j] = NULL;
	for (size_t i = 0; i < clip->channel_count; i++) by[clip->channels[i].joint] = &clip->channels[i];
	return by;
}

/* A clip pair joint by joint (by name), frame by frame: one difference per joint, with the
 * first frame and the number of frames that differ. */
static void diff_clip(cmp *c, const smdmx_scene *sa, const smdmx_clip *a, const smdmx_scene *sb, const smdmx_clip *b)
{
	if (a->frame_rate != b->frame_rate) {
		char ra[SM_FLOAT_MAX], rb[SM_FLOAT_MAX];
		sm_format_shortest((float)a->frame_rate, ra);
		sm_format_shortest((float)b->frame_rate, rb);
		sm_cmp_differ(c, "clip '%s': %s fps vs %s", a->name, ra, rb);
	}
	int64_t fa0 = sm_cmp_frame_of(a->start, a->frame_rate), fa1 = sm_cmp_frame_of((int64_t)a->start + a->duration, a->frame_rate);
	int64_t fb0 = sm_cmp_frame_of(b->start, b->frame_rate), fb1 = sm_cmp_frame_of((int64_t)b->start + b->duration, b->frame_rate);
	/* frames count from each clip's first (F4): b's frame fb0 + i is a's fa0 + i */
	if (fa1 - fa0 != fb1 - fb0)
		sm_cmp_differ(c, "clip '%s': frames %lld to %lld vs %lld to %lld", a->name, (long long)fa0, (long long)fa1, (long long)fb0,
		       (long long)fb1);
	int64_t shift = fb0 - fa0;
	int64_t first = fa0, last = fa1 < fb1 - shift ? fa1 : fb1 - shift;
	/* the limits of doc/limits.md: frames of one clip, and bone poses */
	if (last - first >= SM_COMPARE_MAX_FRAMES ||
	    (last >= first && (uint64_t)(last - first + 1) * (sa->joint_count ? sa->joint_count : 1) > SM_COMPARE_MAX_POSES)) {
		sm_cmp_limit(c, "clip '%s': too many frames to compare (%lld frames of %zu joints; the limit is 2^26 bone poses)", a->name,
		             (long long)(last - first + 1), sa->joint_count);
		return;
	}
	const smdmx_channel **cha = channels_by_joint(c, sa, a), **chb = channels_by_joint(c, sb, b);
	if (!cha || !chb) {
		if (cha) sm_free(c->mem, cha, (sa->joint_count + 1) * sizeof(*cha));
		if (chb) sm_free(c->mem, chb, (sb->joint_count + 1) * sizeof(*chb));
		sm_cmp_oom(c);
		return;
	}
	for (size_t j = 0; j < sa->joint_count; j++) {
		size_t k = c->pair_a ? (c->pair_a[j] == SMDMX_NONE ? SIZE_MAX : c->pair_a[j]) : joint_named(&c->joints_b, sm_cmp_name_in_b(c, sa, (uint32_t)j));
		if (k == SIZE_MAX) continue; /* reported with the joints */
		const smdmx_channel *x = cha[j], *y = chb[k];
		if (!x && !y) continue;
		const smdmx_joint *jx = &sa->joints[j], *jy = &sb->joints[k];
		int64_t bad_first = 0, bad = 0;
		bool pos = false;
		for (int64_t f = first; f <= last; f++) {
			int32_t ta = (int32_t)floor((double)f * 10000.0 / a->frame_rate);
			int32_t tb = (int32_t)floor((double)(f + shift) * 10000.0 / b->frame_rate);
			float px[3], py[3], qx[4], qy[4];
			smdmx_channel none = { 0 };
			sm_sample_position(x ? x : &none, ta, jx->bind.position, px);
			sm_sample_position(y ? y : &none, tb, jy->bind.position, py);
			sm_sample_orientation(x ? x : &none, ta, jx->bind.orientation, qx);
			sm_sample_orientation(y ? y : &none, tb, jy->bind.orientation, qy);
			if (jx->parent == SMDMX_NONE) {
				sm_cmp_turn_vec(c, 0, px, px);
				sm_cmp_turn_rot(c, 0, qx, qx);
			}
			if (jy->parent == SMDMX_NONE) {
				sm_cmp_turn_vec(c, 1, py, py);
				sm_cmp_turn_rot(c, 1, qy, qy);
			}
			bool pe = sm_cmp_vec_equal(c, px, py, 3), re = sm_cmp_rot_equal(c, qx, qy);
			if (pe && re) continue;
			if (!bad++) {
				bad_first = f;
				pos = !pe;
			}
		}
		if (bad)
			sm_cmp_differ(c, "clip '%s' joint '%s': %s differ at frame %lld (%lld of %lld frames differ)", a->name, jx->name,
			       pos ? "positions" : "orientations", (long long)bad_first, (long long)bad, (long long)(last - first + 1));
	}
	sm_free(c->mem, cha, (sa->joint_count + 1) * sizeof(*cha));
	sm_free(c->mem, chb, (sb->joint_count + 1) * sizeof(*chb));
}

static void ignore_difference(void *user, const char *message)
{
	(void)user;
	(void)message;
}

/* A delta of mesh m of side g turned as the mesh is placed in model space (a NaN, no delta,
 * stays one). */
static void turn_delta(const gside *g, uint32_t m, const float *d, float *out)
{
	double(*r)[3] = g->turn[m];
	for (int i = 0; i < 3; i++) {
		double v = 0;
		bool none = false;
		for (int k = 0; k < 3; k++) {
			if (isnan(d[k])) none = true;
			else v += r[i][k] * d[k];
		}
		out[i] = none ? d[i] : (float)v;
	}
}

/* Shapes by name over the corners the geometry matched: the position each makes of a corner
 * (base plus the deltas of the shapes of that name on the corner's mesh), said once per
 * shape with how many corners differ. */
static void diff_shapes_by_corner(cmp *c, const gside *ga, const gside *gb, const uint32_t *map)
{
	const smdmx_scene *a = ga->s, *b = gb->s;
	for (size_t i = 0; i < a->flex_shape_count; i++) {
		const char *name = a->flex_shapes[i].name;
		bool first = true;
		for (size_t k = 0; k < i && first; k++) first = strcmp(a->flex_shapes[k].name, name) != 0;
		if (!first) continue;
		bool in_b = false;
		for (size_t k = 0; k < b->flex_shape_count && !in_b; k++) in_b = !strcmp(b->flex_shapes[k].name, name);
		if (!in_b) {
			sm_cmp_differ(c, "flex shape '%s' only in the first", name);
			continue;
		}
		/* dense deltas of the shapes of this name, per mesh, on each side */
		float **da = sm_new_zero(c->mem, a->mesh_count + 1, sizeof(float *)), **db = sm_new_zero(c->mem, b->mesh_count + 1, sizeof(float *));
		bool ok = da && db;
		for (size_t k = 0; ok && k < a->flex_shape_count; k++) {
			const smdmx_flex_shape *f = &a->flex_shapes[k];
			if (strcmp(f->name, name)) continue;
			if (!da[f->mesh]) ok = (da[f->mesh] = sm_new_zero(c->mem, a->meshes[f->mesh].position_count + 1, 3 * sizeof(float))) != NULL;
			for (size_t d = 0; ok && d < f->position_count; d++)
				for (int x = 0; x < 3; x++) da[f->mesh][3 * f->position_indices[d] + (size_t)x] += f->position_deltas[d][x];
		}
		for (size_t k = 0; ok && k < b->flex_shape_count; k++) {
			const smdmx_flex_shape *f = &b->flex_shapes[k];
			if (strcmp(f->name, name)) continue;
			if (!db[f->mesh]) ok = (db[f->mesh] = sm_new_zero(c->mem, b->meshes[f->mesh].position_count + 1, 3 * sizeof(float))) != NULL;
			for (size_t d = 0; ok && d < f->position_count; d++)
				for (int x = 0; x < 3; x++) db[f->mesh][3 * f->position_indices[d] + (size_t)x] += f->position_deltas[d][x];
		}
		size_t bad = 0;
		uint32_t first_bad = SMDMX_NONE;
		static const float zero[3] = { 0, 0, 0 };
		for (size_t x = 0; ok && x < ga->corners; x++) {
			uint32_t y = map[x];
			if (y == SMDMX_NONE) continue;
			const smdmx_mesh *ma = &a->meshes[ga->mesh_of[x]], *mb = &b->meshes[gb->mesh_of[y]];
			uint32_t pa_ = ma->position_indices[ga->local[x]], pb_ = mb->position_indices[gb->local[y]];
			const float *dx = da[ga->mesh_of[x]] ? da[ga->mesh_of[x]] + 3 * pa_ : zero;
			const float *dy = db[gb->mesh_of[y]] ? db[gb->mesh_of[y]] + 3 * pb_ : zero;
			/* in model space, as the geometry was compared: the corners' positions, and the
			 * deltas turned as their meshes are placed (and as a turned side is) */
			float tdx[3], tdy[3];
			turn_delta(ga, ga->mesh_of[x], dx, tdx);
			turn_delta(gb, gb->mesh_of[y], dy, tdy);
			sm_cmp_turn_vec(c, 0, tdx, tdx);
			sm_cmp_turn_vec(c, 1, tdy, tdy);
			const float *bx = ga->pos[x], *by = gb->pos[y];
			if (!sm_cmp_shape_values_equal(c, bx, tdx, by, tdy)) {
				if (!bad++) first_bad = (uint32_t)x;
			}
		}
		if (!ok) sm_cmp_oom(c);
		else if (bad) {
			char at[3 * SM_FLOAT_MAX + 8];
			sm_diff_where(ga, first_bad, at, sizeof(at));
			sm_cmp_differ(c, "flex shape '%s': %zu corners move otherwise (the first at %s)", name, bad, at);
		}
		for (size_t k = 0; da && k < a->mesh_count; k++) sm_del(c->mem, da[k]);
		for (size_t k = 0; db && k < b->mesh_count; k++) sm_del(c->mem, db[k]);
		sm_del(c->mem, da);
		sm_del(c->mem, db);
	}
	for (size_t k = 0; k < b->flex_shape_count; k++) {
		bool first = true, in_a = false;
		for (size_t q = 0; q < k && first; q++) first = strcmp(b->flex_shapes[q].name, b->flex_shapes[k].name) != 0;
		for (size_t q = 0; q < a->flex_shape_count && !in_a; q++) in_a = !strcmp(a->flex_shapes[q].name, b->flex_shapes[k].name);
		if (first && !in_a) sm_cmp_differ(c, "flex shape '%s' only in the second", b->flex_shapes[k].name);
	}
}

/* A transform of a side as compared: a root's turned when its side is (sm_cmp_set_turns). */
static void placed_as_compared(const cmp *c, int side, bool root, const smdmx_transform *in, smdmx_transform *out)
{
	*out = *in;
	if (!root) return;
	sm_cmp_turn_vec(c, side, in->position, out->position);
	sm_cmp_turn_rot(c, side, in->orientation, out->orientation);
}

static void bind_as_compared(const cmp *c, int side, const smdmx_joint *j, smdmx_transform *out)
{
	placed_as_compared(c, side, j->parent == SMDMX_NONE, &j->bind, out);
}

/* A joint of the first only, and one of the second only, with the same parent and the same
 * bind pose: one joint renamed. Each of the first's gets the name it has in the second. */
static bool rename_joints(cmp *c, const smdmx_scene *a, const smdmx_scene *b)
{
	c->name_a = sm_new_zero(c->mem, a->joint_count + 1, sizeof(char *));
	c->pair_a = sm_new(c->mem, a->joint_count + 1, sizeof(uint32_t));
	c->paired_b = sm_new_zero(c->mem, b->joint_count + 1, 1);
	/* b's joints of one name chained in their order; cursor: the next of a name to pair */
	uint32_t *next = sm_new(c->mem, b->joint_count + 1, sizeof(uint32_t)), *last = sm_new(c->mem, b->joint_count + 1, sizeof(uint32_t));
	uint32_t *cursor = sm_new(c->mem, b->joint_count + 1, sizeof(uint32_t));
	bool *taken = c->paired_b;
	if (!c->name_a || !c->pair_a || !taken || !next || !last || !cursor) {
		sm_del(c->mem, next);
		sm_del(c->mem, last);
		sm_del(c->mem, cursor);
		return false;
	}
	for (size_t k = 0; k < b->joint_count; k++) {
		size_t f = joint_named(&c->joints_b, b->joints[k].name);
		next[k] = SMDMX_NONE;
		if (f != k) next[last[f]] = (uint32_t)k;
		last[f] = (uint32_t)k;
		cursor[k] = (uint32_t)k;
	}
	for (size_t i = 0; i < a->joint_count; i++) {
		c->pair_a[i] = SMDMX_NONE;
		size_t f = joint_named(&c->joints_b, a->joints[i].name);
		if (f == SIZE_MAX || cursor[f] == SMDMX_NONE) continue;
		uint32_t k = cursor[f];
		cursor[f] = next[k];
		c->name_a[i] = a->joints[i].name;
		c->pair_a[i] = k;
		taken[k] = true;
	}
	sm_del(c->mem, next);
	sm_del(c->mem, last);
	sm_del(c->mem, cursor);
	for (size_t i = 0; i < a->joint_count; i++) {
		if (c->name_a[i]) continue;
		const smdmx_joint *x = &a->joints[i];
		for (size_t k = 0; k < b->joint_count; k++) {
			const smdmx_joint *y = &b->joints[k];
			if (taken[k] || joint_named(&c->joints_a, y->name) != SIZE_MAX) continue;
			const char *pa = x->parent == SMDMX_NONE ? NULL : c->name_a[x->parent] ? c->name_a[x->parent] : a->joints[x->parent].name;
			const char *pb = y->parent == SMDMX_NONE ? NULL : b->joints[y->parent].name;
			smdmx_transform tx, ty;
			bind_as_compared(c, 0, x, &tx);
			bind_as_compared(c, 1, y, &ty);
			if ((pa == NULL) != (pb == NULL) || (pa && strcmp(pa, pb)) || !sm_cmp_vec_equal(c, tx.position, ty.position, 3) ||
			    !sm_cmp_rot_equal(c, tx.orientation, ty.orientation))
				continue;
			c->name_a[i] = y->name;
			c->pair_a[i] = (uint32_t)k;
			taken[k] = true;
			break;
		}
	}
	return true;
}

/* Strict: meshes by name (of one name, in their order); those left over pair in order when
 * as many are left on each side (an SMD's mesh and a DMX's may be named differently). Then
 * flex shapes by name, those of one name in their order, on meshes that matched. */
static void diff_meshes(cmp *c, const smdmx_scene *a, const smdmx_scene *b)
{
	size_t most = a->flex_shape_count > b->flex_shape_count ? a->flex_shape_count : b->flex_shape_count;
	uint32_t *pair = sm_new(c->mem, a->mesh_count + 1, sizeof(uint32_t)), *pair2 = sm_new(c->mem, most + 1, sizeof(uint32_t));
	bool *used = sm_new_zero(c->mem, b->mesh_count + 1, 1), *taken = sm_new_zero(c->mem, most + 1, 1);
	uint32_t **maps = sm_new_zero(c->mem, a->mesh_count + 1, sizeof(uint32_t *));
	if (!pair || !pair2 || !used || !taken || !maps) {
		sm_del(c->mem, pair);
		sm_del(c->mem, pair2);
		sm_del(c->mem, used);
		sm_del(c->mem, taken);
		sm_del(c->mem, maps);
		sm_cmp_oom(c);
		return;
	}
	if (!sm_cmp_pair_names(c, a->mesh_count, a->meshes, b->mesh_count, b->meshes, mesh_name, pair, used)) goto done;
	size_t left_a = 0, left_b = b->mesh_count;
	for (size_t i = 0; i < a->mesh_count; i++) {
		left_a += pair[i] == SMDMX_NONE;
		left_b -= pair[i] != SMDMX_NONE;
	}
	if (left_a == left_b)
		for (size_t i = 0, k = 0; i < a->mesh_count; i++) {
			if (pair[i] != SMDMX_NONE) continue;
			while (used[k]) k++;
			pair[i] = (uint32_t)k;
			used[k] = true;
		}
	for (size_t i = 0; i < a->mesh_count; i++) {
		if (pair[i] == SMDMX_NONE) {
			sm_cmp_differ(c, "mesh '%s' only in the first", a->meshes[i].name);
			continue;
		}
		maps[i] = sm_new(c->mem, a->meshes[i].corner_count, sizeof(uint32_t));
		if (!maps[i]) sm_cmp_oom(c);
		else if (!sm_cmp_compare_mesh(c, a, &a->meshes[i], b, &b->meshes[pair[i]], maps[i])) {
			sm_del(c->mem, maps[i]);
			maps[i] = NULL; /* shapes on it cannot be matched corner by corner */
		}
	}
	for (size_t k = 0; k < b->mesh_count; k++)
		if (!used[k]) sm_cmp_differ(c, "mesh '%s' only in the second", b->meshes[k].name);
	/* Flex shapes, on meshes that matched. */
	if (!sm_cmp_pair_names(c, a->flex_shape_count, a->flex_shapes, b->flex_shape_count, b->flex_shapes, shape_name, pair2, taken)) goto done;
	for (size_t i = 0; i < a->flex_shape_count; i++) {
		const smdmx_flex_shape *fa = &a->flex_shapes[i];
		uint32_t k = pair2[i];
		if (k == SMDMX_NONE) sm_cmp_differ(c, "flex shape '%s' only in the first", fa->name);
		else if (pair[fa->mesh] != b->flex_shapes[k].mesh) sm_cmp_differ(c, "flex shape '%s': on different meshes", fa->name);
		else if (maps[fa->mesh]) sm_cmp_compare_shape(c, a, fa, b, &b->flex_shapes[k], maps[fa->mesh]);
	}
	for (size_t k = 0; k < b->flex_shape_count; k++)
		if (!taken[k]) sm_cmp_differ(c, "flex shape '%s' only in the second", b->flex_shapes[k].name);
done:
	for (size_t i = 0; i < a->mesh_count; i++) sm_del(c->mem, maps[i]);
	sm_del(c->mem, maps);
	sm_del(c->mem, pair);
	sm_del(c->mem, pair2);
	sm_del(c->mem, used);
	sm_del(c->mem, taken);
}

/* Attachments and clips by name, those of one name in their order; one clip each pair
 * whatever their names. */
static void diff_named(cmp *c, const smdmx_scene *a, const smdmx_scene *b, const smdmx_compare_options *options)
{
	size_t most = a->attachment_count > b->attachment_count ? a->attachment_count : b->attachment_count;
	if (a->clip_count > most) most = a->clip_count;
	if (b->clip_count > most) most = b->clip_count;
	uint32_t *pair2 = sm_new(c->mem, most + 1, sizeof(uint32_t));
	bool *taken = sm_new_zero(c->mem, most + 1, 1);
	if (!pair2 || !taken) {
		sm_del(c->mem, pair2);
		sm_del(c->mem, taken);
		sm_cmp_oom(c);
		return;
	}
	/* two animations: studiomdl reads no attachment from an animation (only from a model's
	 * files and the QC), so with their bind poses their attachments are not compared */
	bool animations = options && options->ignore_bind_when_animated && a->clip_count && !a->mesh_count && !b->mesh_count;
	size_t na = animations ? 0 : a->attachment_count, nb = animations ? 0 : b->attachment_count;
	if (!sm_cmp_pair_names(c, na, a->attachments, nb, b->attachments, attachment_name, pair2, taken)) goto done;
	for (size_t i = 0; i < na; i++) {
		const smdmx_attachment *x = &a->attachments[i];
		if (pair2[i] == SMDMX_NONE) {
			sm_cmp_differ(c, "attachment '%s' only in the first", x->name);
			continue;
		}
		const smdmx_attachment *y = &b->attachments[pair2[i]];
		smdmx_transform tx, ty;
		placed_as_compared(c, 0, x->parent_joint == SMDMX_NONE, &x->transform, &tx);
		placed_as_compared(c, 1, y->parent_joint == SMDMX_NONE, &y->transform, &ty);
		if (strcmp(parent_name(a, x->parent_joint), parent_name(b, y->parent_joint)) || x->rigid != y->rigid ||
		    x->world_aligned != y->world_aligned || !sm_cmp_vec_equal(c, tx.position, ty.position, 3) ||
		    !sm_cmp_rot_equal(c, tx.orientation, ty.orientation))
			sm_cmp_differ(c, "attachment '%s' differs", x->name);
	}
	for (size_t k = 0; k < nb; k++)
		if (!taken[k]) sm_cmp_differ(c, "attachment '%s' only in the second", b->attachments[k].name);
	if (options && options->flex_controls) {
		if (options->strict) sm_cmp_compare_controls(c, a, b);
		else sm_cmp_diff_controls(c, a, b);
	}
	if (!sm_cmp_pair_names(c, a->clip_count, a->clips, b->clip_count, b->clips, clip_name, pair2, taken)) goto done;
	if (a->clip_count == 1 && b->clip_count == 1) {
		pair2[0] = 0;
		taken[0] = true;
	}
	for (size_t i = 0; i < a->clip_count; i++) {
		if (pair2[i] == SMDMX_NONE) sm_cmp_differ(c, "clip '%s' only in the first", a->clips[i].name);
		else diff_clip(c, a, &a->clips[i], b, &b->clips[pair2[i]]);
	}
	for (size_t k = 0; k < b->clip_count; k++)
		if (!taken[k]) sm_cmp_differ(c, "clip '%s' only in the second", b->clips[k].name);
done:
	sm_del(c->mem, pair2);
	sm_del(c->mem, taken);
}

static void diff_scenes(cmp *c, const smdmx_scene *a, const smdmx_scene *b, const smdmx_compare_options *options)
{
	/* Joints by name; one renamed is one difference, and is the same joint after. */
	bool animated = options && options->ignore_bind_when_animated && a->clip_count;
	if (!rename_joints(c, a, b)) {
		sm_cmp_oom(c);
		return;
	}
	for (size_t i = 0; i < a->joint_count; i++) {
		const smdmx_joint *x = &a->joints[i];
		size_t k = c->pair_a[i] == SMDMX_NONE ? SIZE_MAX : c->pair_a[i];
		if (k == SIZE_MAX) {
			sm_cmp_differ(c, "joint '%s' only in the first", x->name);
			continue;
		}
		if (strcmp(x->name, b->joints[k].name)) sm_cmp_differ(c, "joint '%s' renamed '%s'", x->name, b->joints[k].name);
		const smdmx_joint *y = &b->joints[k];
		bool same_parent = x->parent == SMDMX_NONE ? y->parent == SMDMX_NONE
		                                           : y->parent != SMDMX_NONE && c->pair_a[x->parent] == y->parent;
		if (!same_parent)
			sm_cmp_differ(c, "joint '%s': parent '%s' vs '%s'", x->name, parent_name(a, x->parent), parent_name(b, y->parent));
		if (animated) continue;
		smdmx_transform tx, ty;
		bind_as_compared(c, 0, x, &tx);
		bind_as_compared(c, 1, y, &ty);
		if (!sm_cmp_vec_equal(c, tx.position, ty.position, 3)) {
			char t[6][SM_FLOAT_MAX];
			for (int d = 0; d < 3; d++) {
				sm_format_shortest(tx.position[d], t[d]);
				sm_format_shortest(ty.position[d], t[3 + d]);
			}
			sm_cmp_differ(c, "joint '%s': bind position (%s %s %s) vs (%s %s %s)", x->name, t[0], t[1], t[2], t[3], t[4], t[5]);
		}
		if (!sm_cmp_rot_equal(c, tx.orientation, ty.orientation))
			sm_cmp_differ(c, "joint '%s': bind orientations differ", x->name);
	}
	for (size_t k = 0; k < b->joint_count; k++)
		if (!c->paired_b[k]) sm_cmp_differ(c, "joint '%s' only in the second", b->joints[k].name);
	if (!(options && options->strict)) {
		gside ga, gb;
		memset(&ga, 0, sizeof(ga));
		memset(&gb, 0, sizeof(gb));
		uint32_t *map = NULL;
		bool ok = sm_diff_gside_build(c, a, &ga, true) && sm_diff_gside_build(c, b, &gb, false);
		if (ok) ok = (map = sm_new(c->mem, ga.corners + 1, sizeof(uint32_t))) != NULL;
		for (size_t i = 0; ok && i < ga.corners; i++) map[i] = SMDMX_NONE;
		if (ok && sm_diff_geometry(c, &ga, &gb, map)) diff_shapes_by_corner(c, &ga, &gb, map);
		else if (!ok) sm_cmp_oom(c);
		sm_del(c->mem, map);
		sm_diff_gside_free(c, &ga);
		sm_diff_gside_free(c, &gb);
	} else {
		diff_meshes(c, a, b);
	}
	diff_named(c, a, b, options);
}

size_t smdmx_scene_diff(const smdmx_scene *sa, const smdmx_scene *sb, const smdmx_compare_options *options,
                        smdmx_diff_fn fn, void *user, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!sa || !sb) return sm_fail_null(error, __func__, !sa ? "a" : "b"), SIZE_MAX;
	sm_budget budget;
	sm_alloc mem;
	smdmx_error failure;
	cmp c = sm_cmp_start(options, &budget, &mem, &failure);
	c.fn = fn ? fn : ignore_difference;
	c.user = user;
	sm_unrooted u;
	const smdmx_scene *a, *b;
	if (!sm_cmp_unroot(&c, sa, sb, &a, &b, &u)) return sm_fail_oom(error), SIZE_MAX;
	bool ok = index_names(&c, &c.joints_a, a->joint_count, joint_name, a->joints) &&
	          index_names(&c, &c.joints_b, b->joint_count, joint_name, b->joints) && sm_cmp_prepare(&c, a, b);
	/* By meaning, models of two up axes are compared as Source uses them, turned to Z up;
	 * strict, the axis is a difference. */
	if (ok && options && options->strict && (a->up_axis ? a->up_axis : 'Z') != (b->up_axis ? b->up_axis : 'Z'))
		sm_cmp_differ(&c, "%c up vs %c up", a->up_axis ? a->up_axis : 'Z', b->up_axis ? b->up_axis : 'Z');
	else if (ok)
		sm_cmp_set_turns(&c, a, b);
	if (ok) diff_scenes(&c, a, b, options);
	else sm_cmp_oom(&c);
	sm_names_free(c.mem, &c.joints_a);
	sm_names_free(c.mem, &c.joints_b);
	sm_del(c.mem, c.name_a);
	sm_del(c.mem, c.pair_a);
	sm_del(c.mem, c.paired_b);
	sm_cmp_end(&c);
	sm_cmp_unroot_free(&c, &u);
	sm_cmp_failure(&c, error);
	return sm_cmp_failed(&c) ? SIZE_MAX : c.count;
}

bool sm_mark_correctives(sm_alloc *a, smdmx_flex_shape *sh, size_t n, bool keep)
{
	sm_names names;
	memset(&names, 0, sizeof(names));
	if (!sm_names_init(a, &names, n)) return false;
	bool ok = true;
	for (size_t i = 0; ok && i < n; i++) ok = sm_names_put(a, &names, sh[i].name, (uint32_t)i, true);
	char part[256];
	for (size_t i = 0; ok && i < n; i++) {
		const char *name = sh[i].name;
		if (keep && sh[i].corrective) continue;
		bool all = strchr(name, '_') != NULL;
		const char *sep = strstr(name, "__") ? "__" : "_";
		size_t sl = strlen(sep), parts = 0;
		for (const char *p = name; all;) {
			const char *e = strstr(p, sep);
			size_t len = e ? (size_t)(e - p) : strlen(p);
			all = len > 0 && len < sizeof(part);
			if (all) {
				memcpy(part, p, len);
				part[len] = '\0';
				uint32_t j = sm_names_get(&names, part);
				all = j != SMDMX_NONE && j != i;
				parts++;
			}
			if (!e) break;
			p = e + sl;
		}
		sh[i].corrective = all && parts >= 2;
	}
	sm_names_free(a, &names);
	return ok;
}

void smdmx_diff_options(const smdmx_scene *a, const smdmx_scene *b, smdmx_compare_options *opts)
{
	if (!opts) return;
	if (!a || !b) { /* the defaults */
		memset(opts, 0, sizeof(*opts));
		opts->flex_controls = true;
		opts->rotation_tolerance = 2e-6; /* SMD prints angles to six decimals: 5e-7 each */
		return;
	}
	/* Weights as the weaker side holds them: a DMX keeps no weight-0 links, and at most 3
	 * (4 in model format 22) of the largest, renormalised */
	const smdmx_scene *s[2] = { a, b };
	/* two animations: studiomdl takes a bind pose from the model, never from an animation
	 * (doc/format-notes.md, "An animation's bind pose"), so only their frames are compared */
	opts->ignore_bind_when_animated = !a->mesh_count && !b->mesh_count && a->clip_count && b->clip_count;
	opts->dmx_weights = a->source.format == SMDMX_SOURCE_DMX || b->source.format == SMDMX_SOURCE_DMX;
	for (int k = 0; k < 2; k++)
		if (s[k]->source.format == SMDMX_SOURCE_DMX) {
			size_t links = s[k]->source.version >= 22 ? 4 : 3;
			if (!opts->max_links || links < opts->max_links) opts->max_links = links;
		}
}

/* ---- names repeated --------------------------------------------------------------------------- */

/* What the diff pairs by name, those of one name in their order. */
typedef struct repeatable_kind {
	const char *what; /* plural */
	size_t (*count)(const smdmx_scene *s);
	const char *(*name)(const smdmx_scene *s, size_t i);
} repeatable_kind;

static size_t joints_in(const smdmx_scene *s) { return s->joint_count; }
static const char *joint_at(const smdmx_scene *s, size_t i) { return s->joints[i].name; }
static size_t meshes_in(const smdmx_scene *s) { return s->mesh_count; }
static const char *mesh_at(const smdmx_scene *s, size_t i) { return s->meshes[i].name; }
static size_t shapes_in(const smdmx_scene *s) { return s->flex_shape_count; }
static const char *shape_at(const smdmx_scene *s, size_t i) { return s->flex_shapes[i].name; }
static size_t controllers_in(const smdmx_scene *s) { return s->flex_controller_count; }
static const char *controller_at(const smdmx_scene *s, size_t i) { return s->flex_controllers[i].name; }
static size_t rules_in(const smdmx_scene *s) { return s->flex_rule_count; }
static const char *rule_at(const smdmx_scene *s, size_t i) { return s->flex_rules[i].name; }
static size_t attachments_in(const smdmx_scene *s) { return s->attachment_count; }
static const char *attachment_at(const smdmx_scene *s, size_t i) { return s->attachments[i].name; }
static size_t clips_in(const smdmx_scene *s) { return s->clip_count; }
static const char *clip_at(const smdmx_scene *s, size_t i) { return s->clips[i].name; }

static const repeatable_kind repeatable[] = {
	{ "bones", joints_in, joint_at },
	{ "meshes", meshes_in, mesh_at },
	{ "flex shapes", shapes_in, shape_at },
	{ "flex controllers", controllers_in, controller_at },
	{ "flex rules", rules_in, rule_at },
	{ "attachments", attachments_in, attachment_at },
	{ "clips", clips_in, clip_at },
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of a kind's items in s, sorted (an unnamed one as ""); NULL when out of memory. */
static const char **sorted_names(sm_alloc *mem, const repeatable_kind *kind, const smdmx_scene *s, size_t *n)
{
	*n = s ? kind->count(s) : 0;
	const char **names = sm_new(mem, *n + 1, sizeof(char *));
	if (!names) return NULL;
	for (size_t j = 0; j < *n; j++) names[j] = kind->name(s, j) ? kind->name(s, j) : "";
	qsort(names, *n, sizeof(char *), by_name);
	return names;
}

/* How many of the sorted names are name: the end of its run less its start, each found by halving. */
static size_t count_named(const char **names, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(names[mid], name) < 0) lo = mid + 1;
		else hi = mid;
	}
	size_t first = lo;
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(names[mid], name) <= 0) lo = mid + 1;
		else hi = mid;
	}
	return lo - first;
}

size_t smdmx_scene_repeated_names(const smdmx_scene *s, const smdmx_scene *other, const smdmx_allocator *allocator,
                                  smdmx_diff_fn fn, void *user, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!s) return sm_fail_null(error, __func__, "s"), SIZE_MAX;
	sm_alloc mem;
	sm_alloc_init(&mem, allocator);
	size_t said = 0;
	for (size_t r = 0; r < sizeof(repeatable) / sizeof(repeatable[0]); r++) {
		const repeatable_kind *kind = &repeatable[r];
		size_t n, n_other;
		const char **names = sorted_names(&mem, kind, s, &n), **others = sorted_names(&mem, kind, other, &n_other);
		if (!names || !others) {
			sm_del(&mem, names);
			sm_del(&mem, others);
			return sm_fail_oom(error), SIZE_MAX;
		}
		for (size_t j = 0; j < n;) {
			size_t e = j + 1;
			while (e < n && !strcmp(names[e], names[j])) e++;
			if (e - j > 1 && (!other || count_named(others, n_other, names[j]) != e - j)) {
				char msg[400];
				snprintf(msg, sizeof(msg), "%zu %s are named '%s': they pair with the other file's of that name in their order", e - j,
				         kind->what, names[j]);
				if (fn) fn(user, msg);
				said++;
			}
			j = e;
		}
		sm_del(&mem, names);
		sm_del(&mem, others);
	}
	return said;
}
