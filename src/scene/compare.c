/* Comparing two scenes value by value (smdmx_scene_compare), and the comparisons of meshes,
 * shapes, clips and controls the diff shares. */
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

/* ---- comparison ------------------------------------------------------------------------------ */


bool sm_cmp_differ(cmp *c, const char *fmt, ...)
{
	if (sm_cmp_failed(c)) return false; /* said: a difference found now could be its doing */
	va_list ap;
	va_start(ap, fmt);
	if (c->fn) {
		char msg[512];
		vsnprintf(msg, sizeof(msg), fmt, ap);
		c->fn(c->user, msg);
		c->count++;
	} else if (c->diff && c->diff_size) {
		vsnprintf(c->diff, c->diff_size, fmt, ap);
	}
	va_end(ap);
	return false;
}

bool sm_cmp_oom(cmp *c)
{
	atomic_store(&c->budget->ran_out, true);
	if (c->error->code != SMDMX_ERROR_NONE) return false;
	if (!c->fn && c->diff && c->diff_size) snprintf(c->diff, c->diff_size, "out of memory");
	return sm_fail_oom(c->error);
}

bool sm_cmp_limit(cmp *c, const char *fmt, ...)
{
	if (sm_cmp_failed(c)) return false;
	char why[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!c->fn && c->diff && c->diff_size) snprintf(c->diff, c->diff_size, "%s", why);
	return sm_fail(c->error, SMDMX_ERROR_LIMIT, 0, 0, "%s", why);
}

bool sm_cmp_failed(const cmp *c)
{
	return c->error->code != SMDMX_ERROR_NONE || sm_budget_ran_out(c->budget);
}

void sm_cmp_failure(const cmp *c, smdmx_error *error)
{
	if (c->error->code != SMDMX_ERROR_NONE) *error = *c->error;
	else if (sm_budget_ran_out(c->budget)) sm_fail_oom(error);
}

/* The name joint j of the first has in the second. */
const char *sm_cmp_name_in_b(const cmp *c, const smdmx_scene *a, uint32_t j)
{
	return c->name_a && c->name_a[j] ? c->name_a[j] : a->joints[j].name;
}

bool sm_cmp_values_equal(const cmp *c, double a, double b)
{
	if ((float)a == (float)b) return true;
	return fabs(a - b) <= c->vtol;
}

bool sm_cmp_vec_equal(const cmp *c, const float *a, const float *b, int n)
{
	for (int i = 0; i < n; i++)
		if (!sm_cmp_values_equal(c, a[i], b[i])) return false;
	return true;
}

bool sm_cmp_rot_equal(const cmp *c, const float *qa, const float *qb)
{
	double da[4] = { qa[0], qa[1], qa[2], qa[3] }, db[4] = { qb[0], qb[1], qb[2], qb[3] };
	double ma[3][3], mb[3][3];
	smdmx_quat_to_matrix(da, ma);
	smdmx_quat_to_matrix(db, mb);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (fabs(ma[i][j] - mb[i][j]) > c->rtol) return false;
	return true;
}

/* The weight links of a position as the comparison sees them (see smdmx_compare_options),
 * in side's scratch (c->links[side], as long as the most links of a position of the scenes
 * sm_cmp_prepare was given): their count, *out where they are. */
size_t sm_cmp_canonical_weights(const cmp *c, int side, const smdmx_mesh *m, uint32_t p, const smdmx_weight **out_p)
{
	size_t n = m->weight_offsets ? m->weight_offsets[p + 1] - m->weight_offsets[p] : 0, k = 0;
	const smdmx_weight *w = n ? m->weights + m->weight_offsets[p] : NULL;
	smdmx_weight *out = c->links[side];
	*out_p = out;
	if (n > c->link_cap) n = c->link_cap; /* not reached: sm_cmp_prepare counted every position's */
	for (size_t i = 0; i < n; i++)
		if (!c->dmx_weights || w[i].weight != 0) out[k++] = w[i];
	if (!c->dmx_weights) return k;
	if (!c->max_links || k <= c->max_links) {
		/* weights that sum below 1 mean what they mean scaled to 1 (decision 6: studiomdl scales
		 * them, and smdmx writes them so into SMD) */
		double sum = 0;
		for (size_t i = 0; i < k; i++) sum += out[i].weight;
		if (sum > 0 && sum < SM_WEIGHT_SUM_LOW)
			for (size_t i = 0; i < k; i++) out[i].weight = (float)(out[i].weight / sum);
		return k;
	}
	/* the largest max_links, in their original order, renormalised */
	bool *keep = c->keep;
	memset(keep, 0, k);
	for (size_t r = 0; r < c->max_links; r++) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < k; i++)
			if (!keep[i] && (best == SIZE_MAX || out[i].weight > out[best].weight)) best = i;
		keep[best] = true;
	}
	size_t m2 = 0;
	for (size_t i = 0; i < k; i++)
		if (keep[i]) out[m2++] = out[i];
	double sum = 0;
	for (size_t i = 0; i < c->max_links; i++) sum += out[i].weight;
	for (size_t i = 0; i < c->max_links; i++) out[i].weight = sum > 0 ? (float)(out[i].weight / sum) : out[i].weight;
	return c->max_links;
}

/* A scalar field's value at corner k, or NULL when the mesh has none. */
static const float *scalar_at(const smdmx_mesh *m, smdmx_corner_field f, uint32_t k)
{
	const smdmx_scalar_field *x = f == SMDMX_CORNER_BALANCE ? &m->balance : &m->wrinkle;
	return x->indices ? &x->data[x->indices[k]] : NULL;
}

/* The weight links of the two corners, compared link by link: joints by the name the first's
 * has in the second (or by the pairing the diff made), then weights. */
static void compare_links(const cmp *c, const sm_corner *a, const sm_corner *b, sm_corner_diff *d)
{
	const smdmx_weight *wa, *wb;
	size_t na = sm_cmp_canonical_weights(c, 0, a->m, a->m->position_indices[a->c], &wa);
	size_t nb = sm_cmp_canonical_weights(c, 1, b->m, b->m->position_indices[b->c], &wb);
	d->links[0] = na, d->links[1] = nb;
	if (na != nb) {
		d->field = SMDMX_CORNER_WEIGHT, d->at = SIZE_MAX;
		return;
	}
	for (size_t k = 0; k < na; k++) {
		bool joint = c->pair_a ? c->pair_a[wa[k].joint] == wb[k].joint
		                       : !strcmp(sm_cmp_name_in_b(c, a->s, wa[k].joint), b->s->joints[wb[k].joint].name);
		if (!joint) {
			d->field = SMDMX_CORNER_JOINT, d->at = k;
			return;
		}
		if (!sm_cmp_values_equal(c, wa[k].weight, wb[k].weight)) {
			d->field = SMDMX_CORNER_WEIGHT, d->at = k;
			return;
		}
	}
}

/* One field of two corners; leaves d as it is when they agree in it. */
static void compare_field(const cmp *c, const sm_corner *a, const sm_corner *b, smdmx_corner_field f, sm_corner_diff *d)
{
	const smdmx_mesh *ma = a->m, *mb = b->m;
	switch (f) {
	case SMDMX_CORNER_POSITION: {
		const float *pa = a->pos ? a->pos : ma->positions[ma->position_indices[a->c]];
		const float *pb = b->pos ? b->pos : mb->positions[mb->position_indices[b->c]];
		if (!sm_cmp_vec_equal(c, pa, pb, 3)) d->field = f;
		return;
	}
	case SMDMX_CORNER_NORMAL: {
		/* the diff's are in model space; none is (0, 0, 0), what an SMD written from it holds */
		static const float none[3] = { 0, 0, 0 };
		const float *na = a->nrm ? a->nrm : ma->normal_indices ? ma->normals[ma->normal_indices[a->c]] : none;
		const float *nb = b->nrm ? b->nrm : mb->normal_indices ? mb->normals[mb->normal_indices[b->c]] : none;
		if (!sm_cmp_vec_equal(c, na, nb, 3)) d->field = f;
		return;
	}
	case SMDMX_CORNER_UV: {
		/* a UV set one side lacks is (0, 0) there: what an SMD written from it holds */
		static const float none[2] = { 0, 0 };
		size_t nu = ma->uv_set_count > mb->uv_set_count ? ma->uv_set_count : mb->uv_set_count;
		for (size_t u = 0; u < nu; u++) {
			const smdmx_uv_set *ua = u < ma->uv_set_count ? &ma->uv_sets[u] : NULL;
			const smdmx_uv_set *ub = u < mb->uv_set_count ? &mb->uv_sets[u] : NULL;
			if (!sm_cmp_vec_equal(c, ua ? ua->data[ua->indices[a->c]] : none, ub ? ub->data[ub->indices[b->c]] : none, 2)) {
				d->field = f, d->at = u;
				return;
			}
		}
		return;
	}
	case SMDMX_CORNER_WEIGHT: compare_links(c, a, b, d); return;
	case SMDMX_CORNER_JOINT: return; /* with the weights: a link is a joint and its weight */
	case SMDMX_CORNER_BALANCE:
	case SMDMX_CORNER_WRINKLE: {
		if (!c->flex) return; /* SMD holds neither: compared with the flex controls */
		/* a balance no stereo control uses changes no compiled model (sm_stereo_meshes) */
		if (f == SMDMX_CORNER_BALANCE && c->stereo[0] && !c->stereo[0][a->m - a->s->meshes] && !c->stereo[1][b->m - b->s->meshes])
			return;
		const float *va = scalar_at(ma, f, a->c), *vb = scalar_at(mb, f, b->c);
		if (!va != !vb) d->field = f, d->one_side = true;
		else if (va && !sm_cmp_values_equal(c, *va, *vb)) d->field = f;
		return;
	}
	case SMDMX_CORNER_FIELD_COUNT: return;
	}
}

sm_corner_diff sm_cmp_corner(const cmp *c, const sm_corner *a, const sm_corner *b)
{
	sm_corner_diff d = { SMDMX_CORNER_FIELD_COUNT, false, 0, { 0, 0 } };
	for (smdmx_corner_field f = 0; f < SMDMX_CORNER_FIELD_COUNT && d.field == SMDMX_CORNER_FIELD_COUNT; f++)
		compare_field(c, a, b, f, &d);
	return d;
}

static bool corner_equal(cmp *c, const smdmx_scene *sa, const smdmx_mesh *a, uint32_t ca,
                         const smdmx_scene *sb, const smdmx_mesh *b, uint32_t cb, size_t poly)
{
	sm_corner x = { sa, a, ca, NULL, NULL }, y = { sb, b, cb, NULL, NULL };
	sm_corner_diff d = sm_cmp_corner(c, &x, &y);
	const char *name = d.field < SMDMX_CORNER_FIELD_COUNT ? smdmx_corner_field_describe(d.field)->name : NULL;
	switch (d.field) {
	case SMDMX_CORNER_FIELD_COUNT: return true;
	case SMDMX_CORNER_POSITION: return sm_cmp_differ(c, "mesh '%s' polygon %zu: positions differ", a->name, poly);
	case SMDMX_CORNER_NORMAL: return sm_cmp_differ(c, "mesh '%s' polygon %zu: normals differ", a->name, poly);
	case SMDMX_CORNER_UV: return sm_cmp_differ(c, "mesh '%s' polygon %zu: UV set %zu differs", a->name, poly, d.at);
	case SMDMX_CORNER_WEIGHT:
	case SMDMX_CORNER_JOINT:
		if (d.at == SIZE_MAX)
			return sm_cmp_differ(c, "mesh '%s' polygon %zu: %zu weight links vs %zu", a->name, poly, d.links[0], d.links[1]);
		return sm_cmp_differ(c, "mesh '%s' polygon %zu: weight link %zu differs", a->name, poly, d.at);
	case SMDMX_CORNER_BALANCE:
	case SMDMX_CORNER_WRINKLE:
		if (d.one_side) return sm_cmp_differ(c, "mesh '%s': one side has %s", a->name, name);
		return sm_cmp_differ(c, "mesh '%s' polygon %zu: %s differs", a->name, poly, name);
	}
	return true;
}

/* Corner k of mesh a corresponds to corner map[k] of mesh b. */
bool sm_cmp_compare_mesh(cmp *c, const smdmx_scene *sa, const smdmx_mesh *a, const smdmx_scene *sb,
                         const smdmx_mesh *b, uint32_t *map)
{
	if (a->corner_count != b->corner_count) return sm_cmp_differ(c, "mesh '%s': %zu corners vs %zu", a->name, a->corner_count, b->corner_count);
	sm_poly_ref *pa, *pb;
	size_t na, nb;
	if (!sm_polygon_order(c->mem, a, &pa, &na)) return sm_cmp_oom(c);
	if (!sm_polygon_order(c->mem, b, &pb, &nb)) {
		sm_free(c->mem, pa, na * sizeof(sm_poly_ref));
		return sm_cmp_oom(c);
	}
	bool ok = true;
	if (na != nb) ok = sm_cmp_differ(c, "mesh '%s': %zu polygons vs %zu", a->name, na, nb);
	for (size_t k = 0; k < a->corner_count; k++) map[k] = (uint32_t)k;
	for (size_t i = 0; ok && i < na; i++) {
		const smdmx_face_set *fa = &a->face_sets[pa[i].face_set], *fb = &b->face_sets[pb[i].face_set];
		uint32_t oa = fa->offsets[pa[i].polygon], ob = fb->offsets[pb[i].polygon];
		uint32_t la = fa->offsets[pa[i].polygon + 1] - oa, lb = fb->offsets[pb[i].polygon + 1] - ob;
		if (la != lb) {
			ok = sm_cmp_differ(c, "mesh '%s' polygon %zu: %u corners vs %u", a->name, i, la, lb);
			break;
		}
		if (strcmp(sa->materials[fa->material].name, sb->materials[fb->material].name) != 0) {
			ok = sm_cmp_differ(c, "mesh '%s' polygon %zu: material '%s' vs '%s'", a->name, i, sa->materials[fa->material].name,
			            sb->materials[fb->material].name);
			break;
		}
		for (uint32_t k = 0; ok && k < la; k++) {
			uint32_t ca = fa->corners[oa + k], cb = fb->corners[ob + k];
			map[ca] = cb;
			ok = corner_equal(c, sa, a, ca, sb, b, cb, i);
		}
	}
	if (ok && na == 0) {
		for (size_t k = 0; ok && k < a->corner_count; k++)
			ok = corner_equal(c, sa, a, (uint32_t)k, sb, b, (uint32_t)k, k);
	}
	sm_free(c->mem, pa, na * sizeof(sm_poly_ref));
	sm_free(c->mem, pb, nb * sizeof(sm_poly_ref));
	return ok;
}

/* Dense per-position delta (NaN where the shape has none). */
static float *dense_deltas(cmp *c, const uint32_t *idx, smdmx_vec3 *d, size_t n, size_t bound)
{
	float *out = sm_new(c->mem, bound + 1, 3 * sizeof(float));
	if (!out) return NULL;
	for (size_t i = 0; i < bound * 3; i++) out[i] = NAN;
	for (size_t i = 0; i < n; i++) memcpy(out + 3 * idx[i], d[i], 3 * sizeof(float));
	return out;
}

bool sm_cmp_shape_values_equal(const cmp *c, const float *base_a, const float *da, const float *base_b, const float *db)
{
	for (int i = 0; i < 3; i++) {
		bool ha = !isnan(da[i]), hb = !isnan(db[i]);
		double x = (double)base_a[i] + (ha ? da[i] : 0), y = (double)base_b[i] + (hb ? db[i] : 0);
		/* Deltas are float32 differences: compare the shapes they make at float32 precision. */
		double tol = c->vtol + 2.5e-7 * fmax(1.0, fmax(fabs(base_a[i]), fabs(x)));
		if (fabs(x - y) > tol) return false;
	}
	return true;
}

bool sm_cmp_compare_shape(cmp *c, const smdmx_scene *sa, const smdmx_flex_shape *fa, const smdmx_scene *sb,
                          const smdmx_flex_shape *fb, const uint32_t *map)
{
	if (strcmp(fa->name, fb->name) != 0) return sm_cmp_differ(c, "flex shape '%s' vs '%s'", fa->name, fb->name);
	if (fa->corrective != fb->corrective) return sm_cmp_differ(c, "flex shape '%s': corrective flag differs", fa->name);
	const smdmx_mesh *ma = &sa->meshes[fa->mesh], *mb = &sb->meshes[fb->mesh];
	float *pa = dense_deltas(c, fa->position_indices, fa->position_deltas, fa->position_count, ma->position_count);
	float *pb = dense_deltas(c, fb->position_indices, fb->position_deltas, fb->position_count, mb->position_count);
	float *na = dense_deltas(c, fa->normal_indices, fa->normal_deltas, fa->normal_count, ma->normal_count);
	float *nb = dense_deltas(c, fb->normal_indices, fb->normal_deltas, fb->normal_count, mb->normal_count);
	bool ok = (pa && pb && na && nb) || sm_cmp_oom(c);
	for (size_t k = 0; ok && k < ma->corner_count; k++) {
		uint32_t ca = (uint32_t)k, cb = map[k];
		uint32_t ia = ma->position_indices[ca], ib = mb->position_indices[cb];
		if (!sm_cmp_shape_values_equal(c, ma->positions[ia], pa + 3 * ia, mb->positions[ib], pb + 3 * ib))
			ok = sm_cmp_differ(c, "flex shape '%s': corner %zu position differs", fa->name, k);
		if (ok && ma->normal_indices && mb->normal_indices) {
			ia = ma->normal_indices[ca];
			ib = mb->normal_indices[cb];
			if (!sm_cmp_shape_values_equal(c, ma->normals[ia], na + 3 * ia, mb->normals[ib], nb + 3 * ib))
				ok = sm_cmp_differ(c, "flex shape '%s': corner %zu normal differs", fa->name, k);
		}
	}
	/* wrinkle deltas, per corner, with the flex controls */
	if (ok && c->flex && (fa->wrinkle_count || fb->wrinkle_count)) {
		if (!ma->wrinkle.indices || !mb->wrinkle.indices) {
			ok = sm_cmp_differ(c, "flex shape '%s': wrinkle on one side only", fa->name);
		} else {
			float *wa = sm_new_zero(c->mem, ma->wrinkle.count + 1, sizeof(float));
			float *wb = sm_new_zero(c->mem, mb->wrinkle.count + 1, sizeof(float));
			ok = (wa && wb) || sm_cmp_oom(c);
			for (size_t i = 0; ok && i < fa->wrinkle_count; i++) wa[fa->wrinkle_indices[i]] += fa->wrinkle_deltas[i];
			for (size_t i = 0; ok && i < fb->wrinkle_count; i++) wb[fb->wrinkle_indices[i]] += fb->wrinkle_deltas[i];
			for (size_t k = 0; ok && k < ma->corner_count; k++)
				if (!sm_cmp_values_equal(c, wa[ma->wrinkle.indices[k]], wb[mb->wrinkle.indices[map[k]]]))
					ok = sm_cmp_differ(c, "flex shape '%s': corner %zu wrinkle differs", fa->name, k);
			sm_del(c->mem, wa);
			sm_del(c->mem, wb);
		}
	}
	sm_del(c->mem, pa);
	sm_del(c->mem, pb);
	sm_del(c->mem, na);
	sm_del(c->mem, nb);
	return ok;
}

int64_t sm_cmp_frame_of(int64_t t, double rate)
{
	return (int64_t)llround((double)t * rate / 10000.0);
}

/* Clips compare pose by pose at every frame, as the SMD writer samples them: keys may be
 * reduced differently on each side (decision 11). */
static bool compare_clip(cmp *c, const smdmx_scene *sa, const smdmx_clip *a, const smdmx_scene *sb, const smdmx_clip *b)
{
	if (a->frame_rate != b->frame_rate) return sm_cmp_differ(c, "clip '%s': frame rates differ", a->name);
	/* frames count from each clip's first, as studiomdl counts an SMD's (F4): where a clip
	 * starts is no difference */
	int64_t first = sm_cmp_frame_of(a->start, a->frame_rate), last = sm_cmp_frame_of((int64_t)a->start + a->duration, a->frame_rate);
	int64_t shift = sm_cmp_frame_of(b->start, b->frame_rate) - first;
	if (sm_cmp_frame_of((int64_t)b->start + b->duration, b->frame_rate) - first - shift != last - first)
		return sm_cmp_differ(c, "clip '%s': time frames differ", a->name);
	if (a->channel_count != b->channel_count)
		return sm_cmp_differ(c, "clip '%s': %zu channels vs %zu", a->name, a->channel_count, b->channel_count);
	if (last - first >= SM_COMPARE_MAX_FRAMES)
		return sm_cmp_limit(c, "clip '%s': too many frames to compare (%lld; the limit is 1000000)", a->name, (long long)(last - first + 1));
	for (size_t i = 0; i < a->channel_count; i++) {
		const smdmx_channel *x = &a->channels[i], *y = &b->channels[i];
		const smdmx_joint *jx = &sa->joints[x->joint], *jy = &sb->joints[y->joint];
		if (strcmp(jx->name, jy->name) != 0) return sm_cmp_differ(c, "clip '%s': channel %zu joints differ", a->name, i);
		for (int64_t f = first; f <= last; f++) {
			int32_t t = (int32_t)floor((double)f * 10000.0 / a->frame_rate);
			int32_t tb = (int32_t)floor((double)(f + shift) * 10000.0 / b->frame_rate);
			float px[3], py[3], qx[4], qy[4];
			sm_sample_position(x, t, jx->bind.position, px);
			sm_sample_position(y, tb, jy->bind.position, py);
			sm_sample_orientation(x, t, jx->bind.orientation, qx);
			sm_sample_orientation(y, tb, jy->bind.orientation, qy);
			if (!sm_cmp_vec_equal(c, px, py, 3))
				return sm_cmp_differ(c, "clip '%s' joint '%s': positions differ at frame %lld", a->name, jx->name, (long long)f);
			if (!sm_cmp_rot_equal(c, qx, qy))
				return sm_cmp_differ(c, "clip '%s' joint '%s': orientations differ at frame %lld", a->name, jx->name, (long long)f);
		}
	}
	return true;
}

/* Names paired in their order (compare.h). */
bool sm_cmp_pair_names(cmp *c, size_t na, const void *ia, size_t nb, const void *ib,
                       const char *(*get)(const void *items, size_t i), uint32_t *pair, bool *taken)
{
	sm_names x;
	memset(&x, 0, sizeof(x));
	size_t bytes = (nb + 1) * sizeof(uint32_t);
	uint32_t *next = sm_malloc(c->mem, bytes); /* the second's items chained by name */
	bool ok = next && sm_names_init(c->mem, &x, nb);
	for (size_t k = nb; ok && k-- > 0;) {
		next[k] = sm_names_get(&x, get(ib, k));
		ok = sm_names_put(c->mem, &x, get(ib, k), (uint32_t)k, false);
	}
	for (size_t k = 0; k < nb; k++) taken[k] = false;
	for (size_t i = 0; i < na; i++) {
		uint32_t k = ok ? sm_names_get(&x, get(ia, i)) : SMDMX_NONE; /* the first of its name not yet paired */
		pair[i] = k;
		if (k == SMDMX_NONE) continue;
		taken[k] = true;
		ok = sm_names_put(c->mem, &x, get(ib, k), next[k], false);
	}
	sm_names_free(c->mem, &x);
	if (next) sm_free(c->mem, next, bytes);
	return ok || sm_cmp_oom(c);
}

static bool same_strings(const smdmx_string_list *x, const smdmx_string_list *y)
{
	if (x->count != y->count) return false;
	for (size_t i = 0; i < x->count; i++)
		if (strcmp(x->data[i], y->data[i]) != 0) return false;
	return true;
}

static float scale_at(const smdmx_float_list *l, size_t i)
{
	return i < l->count ? l->data[i] : 0.0f;
}

bool sm_cmp_compare_controls(cmp *c, const smdmx_scene *a, const smdmx_scene *b)
{
	if (a->flex_controller_count != b->flex_controller_count)
		return sm_cmp_differ(c, "%zu flex controllers vs %zu", a->flex_controller_count, b->flex_controller_count);
	for (size_t i = 0; i < a->flex_controller_count; i++) {
		const smdmx_flex_controller *x = &a->flex_controllers[i], *y = &b->flex_controllers[i];
		if (strcmp(x->name, y->name) != 0) return sm_cmp_differ(c, "flex controller %zu: '%s' vs '%s'", i, x->name, y->name);
		if (!same_strings(&x->raw_controls, &y->raw_controls))
			return sm_cmp_differ(c, "flex controller '%s': raw controls differ", x->name);
		if (x->stereo != y->stereo || x->eyelid != y->eyelid || x->min != y->min || x->max != y->max)
			return sm_cmp_differ(c, "flex controller '%s': stereo, eyelid or range differ", x->name);
		size_t n = x->wrinkle_scales.count > y->wrinkle_scales.count ? x->wrinkle_scales.count : y->wrinkle_scales.count;
		for (size_t k = 0; k < n; k++)
			if (scale_at(&x->wrinkle_scales, k) != scale_at(&y->wrinkle_scales, k))
				return sm_cmp_differ(c, "flex controller '%s': wrinkle scales differ", x->name);
	}
	if (a->domination_rule_count != b->domination_rule_count)
		return sm_cmp_differ(c, "%zu domination rules vs %zu", a->domination_rule_count, b->domination_rule_count);
	for (size_t i = 0; i < a->domination_rule_count; i++)
		if (!same_strings(&a->domination_rules[i].dominators, &b->domination_rules[i].dominators) ||
		    !same_strings(&a->domination_rules[i].suppressed, &b->domination_rules[i].suppressed))
			return sm_cmp_differ(c, "domination rule %zu differs", i);
	if (a->flex_rule_count != b->flex_rule_count)
		return sm_cmp_differ(c, "%zu flex rules vs %zu", a->flex_rule_count, b->flex_rule_count);
	for (size_t i = 0; i < a->flex_rule_count; i++) {
		const smdmx_flex_rule *x = &a->flex_rules[i], *y = &b->flex_rules[i];
		if (strcmp(x->name, y->name) != 0 || x->kind != y->kind ||
		    (x->kind == SMDMX_FLEX_RULE_EXPRESSION && strcmp(x->expression, y->expression) != 0))
			return sm_cmp_differ(c, "flex rule %zu ('%s') differs", i, x->name);
	}
	return true;
}

/* A controller that only drives the shape of its name over 0 to 1: what a DMX needs for each
 * shape and smd2dmx makes for a VTA's; a side without controllers means the same. */
static bool plain_controller(const smdmx_flex_controller *x)
{
	bool plain = x->raw_controls.count == 1 && !strcmp(x->raw_controls.data[0], x->name) && !x->stereo && !x->eyelid &&
	             x->min == 0 && x->max == 1;
	for (size_t k = 0; k < x->wrinkle_scales.count; k++) plain = plain && x->wrinkle_scales.data[k] == 0;
	return plain;
}

static const char *controller_name(const void *items, size_t i)
{
	return ((const smdmx_flex_controller *)items)[i].name;
}

static const char *rule_name(const void *items, size_t i)
{
	return ((const smdmx_flex_rule *)items)[i].name;
}

/* smdmx_scene_diff's flex controls: controllers and rules paired by name in their order (a
 * name repeated pairs with its repeat), plain controllers against a side with none the
 * same; every difference said. */
void sm_cmp_diff_controls(cmp *c, const smdmx_scene *a, const smdmx_scene *b)
{
	size_t most = a->flex_controller_count > b->flex_controller_count ? a->flex_controller_count : b->flex_controller_count;
	if (a->flex_rule_count > most) most = a->flex_rule_count;
	if (b->flex_rule_count > most) most = b->flex_rule_count;
	uint32_t *pair = sm_new(c->mem, most + 1, sizeof(uint32_t));
	bool *taken = sm_new_zero(c->mem, most + 1, 1);
	if (!pair || !taken) {
		sm_del(c->mem, pair);
		sm_del(c->mem, taken);
		sm_cmp_oom(c);
		return;
	}
	if (sm_cmp_pair_names(c, a->flex_controller_count, a->flex_controllers, b->flex_controller_count, b->flex_controllers,
	                      controller_name, pair, taken)) {
		for (size_t i = 0; i < a->flex_controller_count; i++) {
			const smdmx_flex_controller *p = &a->flex_controllers[i];
			if (pair[i] == SMDMX_NONE) {
				if (!(plain_controller(p) && !b->flex_controller_count)) sm_cmp_differ(c, "flex controller '%s' only in the first", p->name);
				continue;
			}
			const smdmx_flex_controller *q = &b->flex_controllers[pair[i]];
			if (!same_strings(&p->raw_controls, &q->raw_controls)) sm_cmp_differ(c, "flex controller '%s': raw controls differ", p->name);
			else if (p->stereo != q->stereo || p->eyelid != q->eyelid || p->min != q->min || p->max != q->max)
				sm_cmp_differ(c, "flex controller '%s': stereo, eyelid or range differ", p->name);
			else {
				size_t n = p->wrinkle_scales.count > q->wrinkle_scales.count ? p->wrinkle_scales.count : q->wrinkle_scales.count;
				for (size_t k = 0; k < n; k++)
					if (scale_at(&p->wrinkle_scales, k) != scale_at(&q->wrinkle_scales, k)) {
						sm_cmp_differ(c, "flex controller '%s': wrinkle scales differ", p->name);
						break;
					}
			}
		}
		for (size_t k = 0; k < b->flex_controller_count; k++) {
			const smdmx_flex_controller *q = &b->flex_controllers[k];
			if (!taken[k] && !(plain_controller(q) && !a->flex_controller_count))
				sm_cmp_differ(c, "flex controller '%s' only in the second", q->name);
		}
	}
	if (a->domination_rule_count != b->domination_rule_count)
		sm_cmp_differ(c, "%zu domination rules vs %zu", a->domination_rule_count, b->domination_rule_count);
	else
		for (size_t i = 0; i < a->domination_rule_count; i++)
			if (!same_strings(&a->domination_rules[i].dominators, &b->domination_rules[i].dominators) ||
			    !same_strings(&a->domination_rules[i].suppressed, &b->domination_rules[i].suppressed))
				sm_cmp_differ(c, "domination rule %zu differs", i);
	if (sm_cmp_pair_names(c, a->flex_rule_count, a->flex_rules, b->flex_rule_count, b->flex_rules, rule_name, pair, taken)) {
		for (size_t i = 0; i < a->flex_rule_count; i++) {
			const smdmx_flex_rule *x = &a->flex_rules[i];
			if (pair[i] == SMDMX_NONE) {
				sm_cmp_differ(c, "flex rule '%s' only in the first", x->name);
				continue;
			}
			const smdmx_flex_rule *y = &b->flex_rules[pair[i]];
			if (x->kind != y->kind || (x->kind == SMDMX_FLEX_RULE_EXPRESSION && strcmp(x->expression, y->expression)))
				sm_cmp_differ(c, "flex rule '%s' differs", x->name);
		}
		for (size_t k = 0; k < b->flex_rule_count; k++)
			if (!taken[k]) sm_cmp_differ(c, "flex rule '%s' only in the second", b->flex_rules[k].name);
	}
	sm_del(c->mem, pair);
	sm_del(c->mem, taken);
}

void sm_cmp_set_turns(cmp *c, const smdmx_scene *a, const smdmx_scene *b)
{
	char up[2] = { a->up_axis ? a->up_axis : 'Z', b->up_axis ? b->up_axis : 'Z' };
	for (int k = 0; k < 2; k++) {
		c->turned[k] = up[0] != up[1] && up[k] != 'Z';
		if (!c->turned[k]) continue;
		/* +90 degrees about X for Y up, about Y for X up (smdmx_scene_transform) */
		double e[3] = { up[k] == 'Y' ? 1.57079632679489661923 : 0, up[k] == 'X' ? 1.57079632679489661923 : 0, 0 };
		smdmx_euler_to_quat(e, c->turn_q[k]);
		smdmx_quat_to_matrix(c->turn_q[k], c->turn_m[k]);
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) c->turn_m[k][i][j] = round(c->turn_m[k][i][j]);
	}
}

void sm_cmp_turn_vec(const cmp *c, int side, const float in[3], float out[3])
{
	double x = in[0], y = in[1], z = in[2];
	if (!c->turned[side]) {
		memmove(out, in, 3 * sizeof(float));
		return;
	}
	const double(*m)[3] = c->turn_m[side];
	for (int i = 0; i < 3; i++) out[i] = (float)(m[i][0] * x + m[i][1] * y + m[i][2] * z);
}

void sm_cmp_turn_rot(const cmp *c, int side, const float in[4], float out[4])
{
	if (!c->turned[side]) {
		memmove(out, in, 4 * sizeof(float));
		return;
	}
	const double *r = c->turn_q[side];
	double x = in[0], y = in[1], z = in[2], w = in[3];
	out[0] = (float)(r[3] * x + r[0] * w + r[1] * z - r[2] * y);
	out[1] = (float)(r[3] * y - r[0] * z + r[1] * w + r[2] * x);
	out[2] = (float)(r[3] * z + r[0] * y - r[1] * x + r[2] * w);
	out[3] = (float)(r[3] * w - r[0] * x - r[1] * y - r[2] * z);
}

/* studiomdl binds the vertices of a mesh without weights to a bone of its own (its defaultRoot,
 * or the mesh's own dag: dmxsupport.cpp LoadVertices), and an SMD, which must name a bone,
 * holds such a mesh on one root bone: the same model. A lone root joint that holds every
 * vertex fully and that nothing moves (no animation, no attachment) moves no vertex from
 * where the file puts it, whatever its bind pose (a model turned to Z up turns it). */
static bool implicit_root(const smdmx_scene *s)
{
	if (s->joint_count != 1 || s->joints[0].parent != SMDMX_NONE || s->clip_count) return false;
	for (size_t i = 0; i < s->attachment_count; i++)
		if (s->attachments[i].parent_joint != SMDMX_NONE) return false;
	for (size_t m = 0; m < s->mesh_count; m++) {
		const smdmx_mesh *mesh = &s->meshes[m];
		if (mesh->parent_joint != SMDMX_NONE) return false; /* placed by the joint: it moves the mesh */
		for (size_t p = 0; mesh->weight_offsets && p < mesh->position_count; p++) {
			double sum = 0;
			for (uint32_t k = mesh->weight_offsets[p]; k < mesh->weight_offsets[p + 1]; k++) sum += mesh->weights[k].weight;
			if (fabs(sum - 1) > 1e-5) return false;
		}
	}
	return true;
}

/* n vectors turned by r and moved by t (NULL: directions), as the SMD writer places them. */
static bool placed(sm_owner *mem, double r[3][3], const float *t, const void *from, size_t n, smdmx_vec3 **out)
{
	const float *in = from;
	if (!in) return true;
	smdmx_error error;
	smdmx_vec3 *v = sm_owned_alloc(mem, (n + 1) * sizeof(smdmx_vec3), &error);
	if (!v) return false;
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < 3; d++)
			v[i][d] = (float)(r[d][0] * in[3 * i] + r[d][1] * in[3 * i + 1] + r[d][2] * in[3 * i + 2] + (t ? t[d] : 0));
	*out = v;
	return true;
}

/* s with its meshes that follow their own nodes on the bones studiomdl makes of them: a view
 * in *view, its memory in *mem (NULL: s has none, and *out is s). */
static bool own_bones_view(const cmp *c, const smdmx_scene *s, smdmx_scene *view, sm_owner **mem, const smdmx_scene **out)
{
	*out = s;
	*mem = NULL;
	sm_own_bones b;
	if (!sm_own_bones_find(s, &c->mem->hooks, &b)) return false;
	if (!b.count) return true;
	smdmx_error error;
	*view = *s;
	*mem = b.mem; /* the view's memory: the bones' names are in it */
	b.mem = NULL;
	smdmx_joint *joints = sm_owned_calloc(*mem, s->joint_count + b.count, sizeof(smdmx_joint), &error);
	smdmx_mesh *meshes = sm_owned_alloc(*mem, s->mesh_count * sizeof(smdmx_mesh), &error);
	if (!joints || !meshes) return false;
	memcpy(joints, s->joints, s->joint_count * sizeof(smdmx_joint));
	memcpy(meshes, s->meshes, s->mesh_count * sizeof(smdmx_mesh));
	smdmx_flex_shape *shapes = sm_owned_alloc(*mem, (s->flex_shape_count + 1) * sizeof(smdmx_flex_shape), &error);
	if (!shapes) return false;
	if (s->flex_shape_count) memcpy(shapes, s->flex_shapes, s->flex_shape_count * sizeof(smdmx_flex_shape));
	for (size_t k = 0; k < b.count; k++) {
		smdmx_joint *j = &joints[s->joint_count + k];
		smdmx_mesh *m = &meshes[b.mesh[k]];
		j->name = b.name[k];
		j->parent = SMDMX_NONE;
		j->bind = m->transform;
		/* in model space, as an SMD holds it: positions, normals and shape deltas placed */
		double q[4] = { m->transform.orientation[0], m->transform.orientation[1], m->transform.orientation[2],
			        m->transform.orientation[3] }, r[3][3];
		smdmx_quat_to_matrix(q, r);
		SM_CHECK(placed(*mem, r, m->transform.position, m->positions, m->position_count, &m->positions));
		SM_CHECK(placed(*mem, r, NULL, m->normals, m->normal_count, &m->normals));
		for (size_t i = 0; i < s->flex_shape_count; i++) {
			if (shapes[i].mesh != b.mesh[k]) continue;
			SM_CHECK(placed(*mem, r, NULL, shapes[i].position_deltas, shapes[i].position_count, &shapes[i].position_deltas));
			SM_CHECK(placed(*mem, r, NULL, shapes[i].normal_deltas, shapes[i].normal_count, &shapes[i].normal_deltas));
		}
		m->transform = (smdmx_transform){ { 0, 0, 0 }, { 0, 0, 0, 1 } };
		/* the vertices without a weight on the bone (all of them, or those weighted to the
		 * model itself), the others as they are */
		const uint32_t *off = m->weight_offsets;
		const smdmx_weight *w = m->weights;
		size_t had = off ? m->weight_count : 0;
		m->weight_offsets = sm_owned_alloc(*mem, (m->position_count + 1) * sizeof(uint32_t), &error);
		m->weights = sm_owned_alloc(*mem, (had + m->position_count + 1) * sizeof(smdmx_weight), &error);
		if (!m->weight_offsets || !m->weights) return false;
		size_t n = 0;
		for (size_t p = 0; p < m->position_count; p++) {
			m->weight_offsets[p] = (uint32_t)n;
			uint32_t a = off ? off[p] : 0, e = off ? off[p + 1] : 0;
			if (a == e) m->weights[n++] = (smdmx_weight){ (uint32_t)(s->joint_count + k), 1 };
			for (uint32_t i = a; i < e; i++) m->weights[n++] = w[i];
		}
		m->weight_offsets[m->position_count] = (uint32_t)n;
		m->weight_count = n;
	}
	view->joints = joints;
	view->joint_count = s->joint_count + b.count;
	view->meshes = meshes;
	view->flex_shapes = shapes;
	*out = view;
	return true;
}

bool sm_cmp_unroot(const cmp *c, const smdmx_scene *a, const smdmx_scene *b, const smdmx_scene **va,
                   const smdmx_scene **vb, sm_unrooted *u)
{
	u->meshes = NULL;
	u->own_mem[0] = u->own_mem[1] = NULL;
	if (!own_bones_view(c, a, &u->own[0], &u->own_mem[0], &a) || !own_bones_view(c, b, &u->own[1], &u->own_mem[1], &b)) {
		sm_cmp_unroot_free(c, u);
		return false;
	}
	*va = a;
	*vb = b;
	const smdmx_scene *rooted = !a->joint_count && implicit_root(b) ? b : !b->joint_count && implicit_root(a) ? a : NULL;
	if (!rooted) return true;
	u->view = *rooted;
	u->view.joints = NULL;
	u->view.joint_count = 0;
	if (rooted->mesh_count) {
		u->meshes = sm_new(c->mem, rooted->mesh_count, sizeof(smdmx_mesh));
		if (!u->meshes) {
			sm_cmp_unroot_free(c, u);
			return false;
		}
		for (size_t m = 0; m < rooted->mesh_count; m++) {
			u->meshes[m] = rooted->meshes[m];
			u->meshes[m].weight_offsets = NULL;
			u->meshes[m].weights = NULL;
			u->meshes[m].weight_count = 0;
		}
	}
	u->view.meshes = u->meshes;
	if (rooted == a) *va = &u->view;
	else *vb = &u->view;
	return true;
}

void sm_cmp_unroot_free(const cmp *c, sm_unrooted *u)
{
	sm_del(c->mem, u->meshes);
	u->meshes = NULL;
	for (int k = 0; k < 2; k++) {
		sm_owner_free(u->own_mem[k]);
		u->own_mem[k] = NULL;
	}
}

/* A comparison with the options' tolerances (rotations 1e-6 unless given). */
cmp sm_cmp_start(const smdmx_compare_options *options, sm_budget *budget, sm_alloc *mem, smdmx_error *error)
{
	cmp c;
	memset(&c, 0, sizeof(c));
	smdmx_allocator hooks = sm_budget_start(budget, options ? &options->allocator : NULL);
	sm_alloc_init(mem, &hooks);
	c.mem = mem;
	c.budget = budget;
	c.error = error;
	memset(error, 0, sizeof(*error));
	c.rtol = 1e-6;
	if (options) {
		c.max_links = options->max_links;
		c.dmx_weights = options->dmx_weights;
		c.flex = options->flex_controls;
		c.vtol = options->value_tolerance;
		if (options->rotation_tolerance > 0) c.rtol = options->rotation_tolerance;
	}
	return c;
}

static bool compare_scenes(cmp *cm, const smdmx_scene *a, const smdmx_scene *b, const smdmx_compare_options *options);

/* The most weight links a position of s has. */
static size_t most_links(const smdmx_scene *s)
{
	size_t most = 0;
	for (size_t i = 0; i < s->mesh_count; i++) {
		const smdmx_mesh *m = &s->meshes[i];
		if (!m->weight_offsets) continue;
		for (size_t p = 0; p < m->position_count; p++)
			if (m->weight_offsets[p + 1] - m->weight_offsets[p] > most) most = m->weight_offsets[p + 1] - m->weight_offsets[p];
	}
	return most;
}

bool sm_cmp_prepare(cmp *c, const smdmx_scene *a, const smdmx_scene *b)
{
	size_t la = most_links(a), lb = most_links(b);
	c->link_cap = la > lb ? la : lb;
	for (int i = 0; i < 2; i++) {
		c->links[i] = sm_new(c->mem, c->link_cap + 1, sizeof(smdmx_weight));
		if (!c->links[i]) return false;
	}
	c->keep = sm_new(c->mem, c->link_cap + 1, 1);
	if (!c->keep) return false;
	if (!c->flex) return true;
	c->stereo[0] = sm_new(c->mem, a->mesh_count + 1, 1);
	c->stereo[1] = sm_new(c->mem, b->mesh_count + 1, 1);
	if (!c->stereo[0] || !c->stereo[1]) return false;
	size_t unused, corners;
	return sm_stereo_meshes(a, &c->mem->hooks, c->stereo[0], &unused, &corners) &&
	       sm_stereo_meshes(b, &c->mem->hooks, c->stereo[1], &unused, &corners);
}

void sm_cmp_end(cmp *c)
{
	sm_del(c->mem, c->stereo[0]);
	sm_del(c->mem, c->stereo[1]);
	c->stereo[0] = c->stereo[1] = NULL;
	sm_del(c->mem, c->links[0]);
	sm_del(c->mem, c->links[1]);
	sm_del(c->mem, c->keep);
	c->links[0] = c->links[1] = NULL;
	c->keep = NULL;
}

bool smdmx_scene_compare(const smdmx_scene *a, const smdmx_scene *b, const smdmx_compare_options *options,
                         char *diff, size_t diff_size, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!a || !b) {
		if (diff && diff_size) snprintf(diff, diff_size, "smdmx_scene_compare: %s is NULL", !a ? "a" : "b");
		return sm_fail_null(error, __func__, !a ? "a" : "b");
	}
	sm_budget budget;
	sm_alloc mem;
	smdmx_error failure;
	cmp c = sm_cmp_start(options, &budget, &mem, &failure);
	c.diff = diff;
	c.diff_size = diff_size;
	if (diff && diff_size) diff[0] = '\0';
	sm_unrooted u;
	const smdmx_scene *va, *vb;
	bool same = false;
	if (!sm_cmp_unroot(&c, a, b, &va, &vb, &u)) {
		sm_cmp_oom(&c);
	} else {
		same = sm_cmp_prepare(&c, va, vb) ? compare_scenes(&c, va, vb, options) : sm_cmp_oom(&c);
		sm_cmp_end(&c);
		sm_cmp_unroot_free(&c, &u);
	}
	sm_cmp_failure(&c, error);
	return same && !sm_cmp_failed(&c);
}

static bool compare_scenes(cmp *cm, const smdmx_scene *a, const smdmx_scene *b, const smdmx_compare_options *options)
{
	cmp c = *cm;
	if ((a->up_axis ? a->up_axis : 'Z') != (b->up_axis ? b->up_axis : 'Z'))
		return sm_cmp_differ(&c, "%c up vs %c up", a->up_axis ? a->up_axis : 'Z', b->up_axis ? b->up_axis : 'Z');
	if (a->joint_count != b->joint_count) return sm_cmp_differ(&c, "%zu joints vs %zu", a->joint_count, b->joint_count);
	bool animated = options && options->ignore_bind_when_animated && a->clip_count;
	for (size_t i = 0; i < a->joint_count; i++) {
		const smdmx_joint *x = &a->joints[i], *y = &b->joints[i];
		if (strcmp(x->name, y->name) != 0) return sm_cmp_differ(&c, "joint %zu: '%s' vs '%s'", i, x->name, y->name);
		if (x->parent != y->parent) return sm_cmp_differ(&c, "joint '%s': parents differ", x->name);
		if (animated) continue;
		if (!sm_cmp_vec_equal(&c, x->bind.position, y->bind.position, 3)) return sm_cmp_differ(&c, "joint '%s': bind positions differ", x->name);
		if (!sm_cmp_rot_equal(&c, x->bind.orientation, y->bind.orientation))
			return sm_cmp_differ(&c, "joint '%s': bind orientations differ", x->name);
	}
	if (a->mesh_count != b->mesh_count) return sm_cmp_differ(&c, "%zu meshes vs %zu", a->mesh_count, b->mesh_count);
	uint32_t **maps = sm_new_zero(c.mem, a->mesh_count, sizeof(uint32_t *));
	if (!maps) return sm_cmp_oom(&c);
	bool ok = true;
	for (size_t i = 0; ok && i < a->mesh_count; i++) {
		maps[i] = sm_new(c.mem, a->meshes[i].corner_count, sizeof(uint32_t));
		if (!maps[i]) ok = sm_cmp_oom(&c);
		else ok = sm_cmp_compare_mesh(&c, a, &a->meshes[i], b, &b->meshes[i], maps[i]);
	}
	if (ok && a->flex_shape_count != b->flex_shape_count)
		ok = sm_cmp_differ(&c, "%zu flex shapes vs %zu", a->flex_shape_count, b->flex_shape_count);
	for (size_t i = 0; ok && i < a->flex_shape_count; i++) {
		const smdmx_flex_shape *fa = &a->flex_shapes[i], *fb = &b->flex_shapes[i];
		if (fa->mesh != fb->mesh) ok = sm_cmp_differ(&c, "flex shape '%s': meshes differ", fa->name);
		else ok = sm_cmp_compare_shape(&c, a, fa, b, fb, maps[fa->mesh]);
	}
	for (size_t i = 0; i < a->mesh_count; i++) sm_del(c.mem, maps[i]);
	sm_del(c.mem, maps);
	if (!ok) return false;
	/* two animations: no attachment of theirs is read (as the diff) */
	bool animations = animated && !a->mesh_count && !b->mesh_count;
	if (!animations && a->attachment_count != b->attachment_count)
		return sm_cmp_differ(&c, "%zu attachments vs %zu", a->attachment_count, b->attachment_count);
	for (size_t i = 0; !animations && i < a->attachment_count; i++) {
		const smdmx_attachment *x = &a->attachments[i], *y = &b->attachments[i];
		const char *px = x->parent_joint == SMDMX_NONE ? "" : a->joints[x->parent_joint].name;
		const char *py = y->parent_joint == SMDMX_NONE ? "" : b->joints[y->parent_joint].name;
		if (strcmp(x->name, y->name) || strcmp(px, py) || x->rigid != y->rigid || x->world_aligned != y->world_aligned ||
		    !sm_cmp_vec_equal(&c, x->transform.position, y->transform.position, 3) ||
		    !sm_cmp_rot_equal(&c, x->transform.orientation, y->transform.orientation))
			return sm_cmp_differ(&c, "attachment '%s' differs", x->name);
	}
	if (options && options->flex_controls && !sm_cmp_compare_controls(&c, a, b)) return false;
	if (a->clip_count != b->clip_count) return sm_cmp_differ(&c, "%zu clips vs %zu", a->clip_count, b->clip_count);
	for (size_t i = 0; i < a->clip_count; i++)
		if (!compare_clip(&c, a, &a->clips[i], b, &b->clips[i])) return false;
	return true;
}
