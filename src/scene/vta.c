/* A VTA onto its reference (decision 10). A VTA is a set of moved positions: its base frame
 * (time 0) lists vertices with positions and normals, and each later frame moves some of
 * them. They meet the reference's triangle corners by position, as studiomdl matches them
 * (RemapVertexAnimations: each model vertex takes the nearest VTA vertex within
 * MAX_VANIM_DIST, 0.3873 units; on equal distance the larger dot product of the normals,
 * then the lower number).
 *
 * A VTA whose every corner's number (its place among the corners in the order the
 * reference's triangles are written) is a vertex at that corner's position is numbered by
 * corners, as Blender Source Tools and Valve's exporters mostly write it: corner k takes
 * vertex k, as it always did. Otherwise a corner takes
 *
 *   1. a VTA vertex at its exact position: the one whose normal is the corner's, else the
 *      one whose normal is nearest in direction (largest dot product), then the lowest
 *      number;
 *   2. else the nearest VTA vertex within 0.3873 units (studiomdl's radius), with the same
 *      ties.
 *
 * Nearest wins, so vertices closer together than the radius are not joined: a corner takes
 * the VTA vertex at its own position before any other. What does not meet is reported, one
 * warning per kind with its count: VTA vertices at no corner (their motion is lost), corners
 * no VTA vertex reaches (they do not move), corners that took a vertex at another position,
 * and corners on one position (or normal) of the reference whose VTA vertices move
 * differently in a shape (DMX keeps one delta per position: the first listed is kept). Each
 * shape's deltas are the VTA's own (target minus base), applied to the corners they reach. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "support/internal.h"
#include "support/num.h"
#include "scene/scene_util.h"

/* studiomdl's MAX_VANIM_DIST. */
#define REACH 0.3873f

/* Temporaries, freed together. */
typedef struct temp_block {
	void *p;
	size_t size;
} temp_block;

typedef struct temps {
	sm_alloc *a;
	smdmx_error *error;
	temp_block *blocks;
	size_t count, cap;
} temps;

static void *temp(temps *t, size_t n, size_t item)
{
	size_t bytes = 0;
	if (!sm_mul(n ? n : 1, item, &bytes)) {
		sm_fail_oom(t->error);
		return NULL;
	}
	if (t->count == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 32;
		temp_block *b = sm_realloc(t->a, t->blocks, t->cap * sizeof(temp_block), cap * sizeof(temp_block));
		if (!b) {
			sm_fail_oom(t->error);
			return NULL;
		}
		t->blocks = b;
		t->cap = cap;
	}
	void *p = sm_malloc(t->a, bytes);
	if (!p) {
		sm_fail_oom(t->error);
		return NULL;
	}
	t->blocks[t->count].p = p;
	t->blocks[t->count++].size = bytes;
	return p;
}

static void temps_free(temps *t)
{
	for (size_t i = 0; i < t->count; i++) sm_free(t->a, t->blocks[i].p, t->blocks[i].size);
	if (t->blocks) sm_free(t->a, t->blocks, t->cap * sizeof(temp_block));
	t->blocks = NULL;
	t->count = t->cap = 0;
}

static bool same3(const float *a, const float *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static float dot3(const float *a, const float *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* A position's hash: its bits, with -0 taken as 0 (they compare equal). */
static uint64_t position_hash(const float *p)
{
	uint32_t b[3];
	for (int i = 0; i < 3; i++) {
		float v = p[i] == 0 ? 0.0f : p[i];
		memcpy(&b[i], &v, sizeof(b[i]));
	}
	uint64_t h = ((uint64_t)b[0] << 32 | b[1]) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)b[2] * 0xc2b2ae3d27d4eb4fULL;
	return h ^ (h >> 31);
}

/* The grid cell of a coordinate (clamped: positions are finite, cells need not be exact
 * far away). */
static int64_t cell_of(float v)
{
	double c = floor((double)v / REACH);
	if (c > 1e15) c = 1e15;
	if (c < -1e15) c = -1e15;
	return (int64_t)c;
}

static uint64_t cell_hash(int64_t x, int64_t y, int64_t z)
{
	return mix((uint64_t)x * 0x9e3779b97f4a7c15ULL ^ mix((uint64_t)y + 0x632be59bd9b4e019ULL) ^ mix((uint64_t)z * 3 + 1));
}

/* Items grouped by a key: an open-addressing table from key to group, and each group's
 * items (ascending) in one array. */
typedef struct groups {
	uint32_t *slot;   /* table: group + 1, or 0 */
	size_t mask;
	uint32_t *rep;    /* per group: an item that has its key */
	uint32_t *first;  /* per group + 1: offsets into items */
	uint32_t *items;
	size_t count;
} groups;

typedef struct matcher {
	temps t;
	const smdmx_mesh *vm;   /* the VTA's mesh: one corner per base vertex */
	size_t n;               /* base vertices */
	const uint32_t *numbers; /* their numbers, ascending; NULL: 0 to n-1 */
	groups exact;           /* base vertices by exact position */
	groups cells;           /* base vertices by grid cell */
	bool have_exact, have_cells;
	int64_t (*cell)[3];     /* per base vertex */
	uint64_t tests, budget; /* distance tests done, and the most allowed */
} matcher;

static const float *base_position(const matcher *m, size_t i)
{
	return m->vm->positions[m->vm->position_indices[i]];
}

static const float *base_normal(const matcher *m, size_t i)
{
	static const float zero[3] = { 0, 0, 0 };
	return m->vm->normal_indices ? m->vm->normals[m->vm->normal_indices[i]] : zero;
}

static bool group_by(matcher *m, groups *g, bool by_cell)
{
	size_t n = m->n, cap = 16;
	while (cap < 2 * n) cap *= 2;
	g->slot = temp(&m->t, cap, sizeof(uint32_t));
	g->rep = temp(&m->t, n, sizeof(uint32_t));
	uint32_t *of = temp(&m->t, n, sizeof(uint32_t));
	g->first = temp(&m->t, n + 1, sizeof(uint32_t));
	g->items = temp(&m->t, n, sizeof(uint32_t));
	if (!g->slot || !g->rep || !of || !g->first || !g->items) return false;
	memset(g->slot, 0, cap * sizeof(uint32_t));
	g->mask = cap - 1;
	g->count = 0;
	for (size_t i = 0; i < n; i++) {
		const int64_t *c = by_cell ? m->cell[i] : NULL;
		size_t h = (size_t)(by_cell ? cell_hash(c[0], c[1], c[2]) : position_hash(base_position(m, i))) & g->mask;
		for (;; h = (h + 1) & g->mask) {
			uint32_t s = g->slot[h];
			if (!s) {
				g->rep[g->count] = (uint32_t)i;
				of[i] = (uint32_t)g->count++;
				g->slot[h] = (uint32_t)g->count;
				break;
			}
			uint32_t r = g->rep[s - 1];
			if (by_cell ? !memcmp(m->cell[r], c, sizeof(m->cell[r])) : same3(base_position(m, r), base_position(m, i))) {
				of[i] = s - 1;
				break;
			}
		}
	}
	sm_group(of, NULL, n, g->count, g->first, g->items);
	return true;
}

/* The group of a position (exact) or cell, or SMDMX_NONE. */
static uint32_t find_exact(const matcher *m, const float *p)
{
	for (size_t h = (size_t)position_hash(p) & m->exact.mask;; h = (h + 1) & m->exact.mask) {
		uint32_t s = m->exact.slot[h];
		if (!s) return SMDMX_NONE;
		if (same3(base_position(m, m->exact.rep[s - 1]), p)) return s - 1;
	}
}

static uint32_t find_cell(const matcher *m, int64_t x, int64_t y, int64_t z)
{
	for (size_t h = (size_t)cell_hash(x, y, z) & m->cells.mask;; h = (h + 1) & m->cells.mask) {
		uint32_t s = m->cells.slot[h];
		if (!s) return SMDMX_NONE;
		const int64_t *c = m->cell[m->cells.rep[s - 1]];
		if (c[0] == x && c[1] == y && c[2] == z) return s - 1;
	}
}

static bool over_budget(matcher *m, size_t more)
{
	m->tests += more;
	if (m->tests <= m->budget) return false;
	sm_fail(m->t.error, SMDMX_ERROR_LIMIT, 0, 0,
	        "matching the VTA to the reference would test more than %llu pairs of vertices (64 per corner and VTA "
	        "vertex, and 2^22): too many VTA vertices at one place",
	        (unsigned long long)m->budget);
	return true;
}

/* The base vertex of a number, or SIZE_MAX. */
static size_t numbered(const matcher *m, size_t number)
{
	if (!m->numbers) return number < m->n ? number : SIZE_MAX;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->numbers[mid] < number) lo = mid + 1;
		else hi = mid;
	}
	return lo < m->n && m->numbers[lo] == number ? lo : SIZE_MAX;
}

/* The base vertex for a corner at position p with normal nrm, and its squared distance;
 * SMDMX_NONE when none is within reach. */
static bool match(matcher *m, const float *p, const float *nrm, uint32_t *out, float *dist2)
{
	*dist2 = 0;
	/* 1. at its exact position */
	if (!m->have_exact) {
		SM_CHECK(group_by(m, &m->exact, false));
		m->have_exact = true;
	}
	uint32_t g = find_exact(m, p);
	if (g != SMDMX_NONE) {
		uint32_t from = m->exact.first[g], to = m->exact.first[g + 1];
		if (over_budget(m, to - from)) return false;
		uint32_t best = SMDMX_NONE;
		for (uint32_t k = from; k < to && best == SMDMX_NONE; k++)
			if (same3(base_normal(m, m->exact.items[k]), nrm)) best = m->exact.items[k];
		float best_dot = 0;
		for (uint32_t k = from; k < to && best == SMDMX_NONE; k++) {
			/* no normal is the corner's: the largest dot product, then the lowest number */
			uint32_t i = m->exact.items[k];
			float d = dot3(base_normal(m, i), nrm);
			if (k == from || d > best_dot) best_dot = d, *out = i;
		}
		if (best != SMDMX_NONE) *out = best;
		return true;
	}
	/* 2. the nearest within reach */
	if (!m->have_cells) {
		m->cell = temp(&m->t, m->n, sizeof(*m->cell));
		if (!m->cell) return false;
		for (size_t i = 0; i < m->n; i++)
			for (int a = 0; a < 3; a++) m->cell[i][a] = cell_of(base_position(m, i)[a]);
		SM_CHECK(group_by(m, &m->cells, true));
		m->have_cells = true;
	}
	int64_t c[3] = { cell_of(p[0]), cell_of(p[1]), cell_of(p[2]) };
	uint32_t best = SMDMX_NONE;
	float best_d = 0, best_dot = 0;
	for (int dx = -1; dx <= 1; dx++)
		for (int dy = -1; dy <= 1; dy++)
			for (int dz = -1; dz <= 1; dz++) {
				uint32_t cg = find_cell(m, c[0] + dx, c[1] + dy, c[2] + dz);
				if (cg == SMDMX_NONE) continue;
				uint32_t from = m->cells.first[cg], to = m->cells.first[cg + 1];
				if (over_budget(m, to - from)) return false;
				for (uint32_t k = from; k < to; k++) {
					uint32_t i = m->cells.items[k];
					const float *q = base_position(m, i);
					float v[3] = { q[0] - p[0], q[1] - p[1], q[2] - p[2] };
					float d = dot3(v, v);
					if (!(d <= REACH * REACH)) continue;
					float nd = dot3(base_normal(m, i), nrm);
					if (best == SMDMX_NONE || d < best_d || (d == best_d && (nd > best_dot || (nd == best_dot && i < best)))) {
						best = i;
						best_d = d;
						best_dot = nd;
					}
				}
			}
	*out = best;
	*dist2 = best_d;
	return true;
}

/* part of whole as a percentage with one decimal ("7.7"), rounded, in any locale. */
static const char *percent(size_t part, size_t whole, char out[32])
{
	unsigned long long t = whole ? ((unsigned long long)part * 2000 + whole) / (2 * (unsigned long long)whole) : 0;
	snprintf(out, 32, "%llu.%llu", t / 10, t % 10);
	return out;
}

/* Which base vertices move alike, for one kind of delta (positions or normals): a class per
 * distinct motion over all shapes, told by two independent 64-bit hashes of the vertex's
 * nonzero deltas in shape order (128 bits: among a million vertices, a false match has odds
 * below 10^-26). Class 0 is no motion, and is also that of "no vertex" (index n). */
typedef struct motions {
	uint32_t *class_of;   /* per base vertex + 1 */
	uint8_t *moves;       /* per base vertex: it moves in some shape */
} motions;

static bool build_motions(matcher *m, const smdmx_scene *vta, int which, motions *out)
{
	size_t n = m->n;
	uint64_t *h = temp(&m->t, 2 * n + 2, sizeof(uint64_t));
	uint8_t *moves = out->moves = temp(&m->t, n + 1, 1);
	out->class_of = temp(&m->t, n + 1, sizeof(uint32_t));
	if (!h || !moves || !out->class_of) return false;
	memset(h, 0, (2 * n + 2) * sizeof(uint64_t));
	memset(moves, 0, n + 1);
	for (size_t s = 0; s < vta->flex_shape_count; s++) {
		const smdmx_flex_shape *vs = &vta->flex_shapes[s];
		size_t count = which ? vs->normal_count : vs->position_count;
		const uint32_t *ix = which ? vs->normal_indices : vs->position_indices;
		smdmx_vec3 *d = which ? vs->normal_deltas : vs->position_deltas;
		for (size_t i = 0; i < count; i++) {
			if (d[i][0] == 0 && d[i][1] == 0 && d[i][2] == 0) continue;
			uint32_t b[3];
			memcpy(b, d[i], sizeof(b));
			uint64_t v = ix[i], w1 = (uint64_t)s << 32 | b[0], w2 = (uint64_t)b[1] << 32 | b[2];
			uint64_t x = (h[2 * v] ^ w1) * 0x9e3779b97f4a7c15ULL;
			x = (x ^ (x >> 29) ^ w2) * 0xbf58476d1ce4e5b9ULL;
			h[2 * v] = x ^ (x >> 32);
			uint64_t y = (h[2 * v + 1] + w2) * 0x94d049bb133111ebULL;
			y = (y ^ (y >> 31) ^ w1) * 0xc2b2ae3d27d4eb4fULL;
			h[2 * v + 1] = y ^ (y >> 29);
			moves[v] = 1;
		}
	}
	size_t cap = 16;
	while (cap < 2 * (n + 1)) cap *= 2;
	uint32_t *slot = temp(&m->t, cap, sizeof(uint32_t)), *rep = temp(&m->t, n + 1, sizeof(uint32_t));
	if (!slot || !rep) return false;
	memset(slot, 0, cap * sizeof(uint32_t));
	uint32_t classes = 1;
	out->class_of[n] = 0;
	for (size_t v = 0; v < n; v++) {
		if (!moves[v]) {
			out->class_of[v] = 0;
			continue;
		}
		for (size_t k = (size_t)(h[2 * v] ^ h[2 * v + 1]) & (cap - 1);; k = (k + 1) & (cap - 1)) {
			if (!slot[k]) {
				rep[classes] = (uint32_t)v;
				out->class_of[v] = classes;
				slot[k] = classes++;
				break;
			}
			uint32_t r = rep[slot[k]];
			if (h[2 * r] == h[2 * v] && h[2 * r + 1] == h[2 * v + 1]) {
				out->class_of[v] = slot[k];
				break;
			}
		}
	}
	return true;
}

/* Whether two base vertices (or none: no motion) move alike. */
static bool motions_equal(const motions *mo, uint32_t u, uint32_t v, size_t n)
{
	return mo->class_of[u == SMDMX_NONE ? n : u] == mo->class_of[v == SMDMX_NONE ? n : v];
}

/* Splits one kind of slot (positions or normals) of a mesh: the corners of a slot are put
 * into classes of base vertices that move alike; the first class keeps the slot, each other
 * one gets a new slot (a copy of the value) at the end. Returns the new slot count, with
 * origin[new - count] the slot each new one copies, and index the corners' new slots. */
static bool split_slots(matcher *m, const uint32_t *index, size_t corners, size_t count, const uint32_t *cbase,
                        const motions *mo, uint32_t **new_index, size_t *new_count, uint32_t **origin)
{
	uint32_t *first = temp(&m->t, count + 1, sizeof(uint32_t)), *order = temp(&m->t, corners, sizeof(uint32_t));
	uint32_t *reps = temp(&m->t, corners, sizeof(uint32_t)), *rep_slot = temp(&m->t, corners, sizeof(uint32_t));
	*new_index = NULL;
	*origin = temp(&m->t, corners, sizeof(uint32_t));
	if (!first || !order || !reps || !rep_slot || !*origin) return false;
	sm_group(index, NULL, corners, count, first, order);
	size_t next = count;
	for (size_t sl = 0; sl < count; sl++) {
		uint32_t from = first[sl], to = first[sl + 1];
		if (to - from < 2) continue;
		bool alike = true;
		for (uint32_t a = from + 1; a < to && alike; a++) alike = motions_equal(mo, cbase[order[from]], cbase[order[a]], m->n);
		if (alike) continue;
		if (!*new_index) {
			*new_index = temp(&m->t, corners, sizeof(uint32_t));
			if (!*new_index) return false;
			memcpy(*new_index, index, corners * sizeof(uint32_t));
		}
		size_t nr = 0;
		for (uint32_t a = from; a < to; a++) {
			uint32_t c = order[a], r = 0;
			if (over_budget(m, nr)) return false;
			while (r < nr && !motions_equal(mo, reps[r], cbase[c], m->n)) r++;
			if (r == nr) {
				/* a new class: the first keeps the slot, the others take new ones */
				reps[nr] = cbase[c];
				rep_slot[nr] = nr ? (uint32_t)next : (uint32_t)sl;
				if (nr) (*origin)[next++ - count] = (uint32_t)sl;
				nr++;
			}
			(*new_index)[c] = rep_slot[r];
		}
	}
	*new_count = next;
	return true;
}

/* Gives the corners of mesh mi positions and normals of their own where their base
 * vertices move differently (see split_slots), keeping weights with their positions and the
 * mesh's existing shapes on the copies of what they moved. */
static bool split_mesh(matcher *m, smdmx_scene *ref, size_t mi, const uint32_t *cbase, const motions mo[2])
{
	smdmx_mesh *me = &ref->meshes[mi];
	sm_owner *o = ref->owner;
	smdmx_error *error = m->t.error;
	for (int which = 0; which < 2; which++) {
		const uint32_t *index = which ? me->normal_indices : me->position_indices;
		size_t count = which ? me->normal_count : me->position_count;
		if (!index) continue;
		uint32_t *new_index, *origin;
		size_t new_count;
		SM_CHECK(split_slots(m, index, me->corner_count, count, cbase, &mo[which], &new_index, &new_count, &origin));
		if (!new_index) continue;
		smdmx_vec3 *values = sm_owned_alloc(o, (new_count + 1) * sizeof(smdmx_vec3), error);
		uint32_t *indices = sm_owned_alloc(o, (me->corner_count + 1) * sizeof(uint32_t), error);
		if (!values || !indices) return false;
		smdmx_vec3 *old = which ? me->normals : me->positions;
		memcpy(values, old, count * sizeof(smdmx_vec3));
		for (size_t i = count; i < new_count; i++) memcpy(values[i], old[origin[i - count]], sizeof(smdmx_vec3));
		memcpy(indices, new_index, me->corner_count * sizeof(uint32_t));
		if (!which && me->weight_offsets) {
			/* the copies take their positions' weight links */
			size_t links = me->weight_count;
			for (size_t i = count; i < new_count; i++) {
				uint32_t from = origin[i - count];
				links += me->weight_offsets[from + 1] - me->weight_offsets[from];
			}
			if (links >= UINT32_MAX) return sm_fail(error, SMDMX_ERROR_LIMIT, 0, 0, "more than 2^32 - 1 weight links");
			uint32_t *offs = sm_owned_alloc(o, (new_count + 1) * sizeof(uint32_t), error);
			smdmx_weight *w = sm_owned_alloc(o, (links + 1) * sizeof(smdmx_weight), error);
			if (!offs || !w) return false;
			memcpy(offs, me->weight_offsets, (count + 1) * sizeof(uint32_t));
			memcpy(w, me->weights, me->weight_count * sizeof(smdmx_weight));
			size_t at = me->weight_count;
			for (size_t i = count; i < new_count; i++) {
				uint32_t from = me->weight_offsets[origin[i - count]], to = me->weight_offsets[origin[i - count] + 1];
				memcpy(w + at, me->weights + from, (to - from) * sizeof(smdmx_weight));
				at += to - from;
				offs[i + 1] = (uint32_t)at;
			}
			me->weight_offsets = offs;
			me->weights = w;
			me->weight_count = links;
		}
		/* shapes the mesh already has move the copies as they moved the originals */
		for (size_t s = 0; s < ref->flex_shape_count; s++) {
			smdmx_flex_shape *sh = &ref->flex_shapes[s];
			size_t have = which ? sh->normal_count : sh->position_count;
			if (sh->mesh != mi || !have) continue;
			uint32_t *ix = which ? sh->normal_indices : sh->position_indices;
			smdmx_vec3 *dx = which ? sh->normal_deltas : sh->position_deltas;
			int32_t *at = temp(&m->t, count, sizeof(int32_t));
			if (!at) return false;
			for (size_t i = 0; i < count; i++) at[i] = -1;
			for (size_t i = 0; i < have; i++) at[ix[i]] = (int32_t)i;
			size_t more = 0;
			for (size_t i = count; i < new_count; i++) more += at[origin[i - count]] >= 0;
			if (!more) continue;
			uint32_t *nix = sm_owned_alloc(o, (have + more) * sizeof(uint32_t), error);
			smdmx_vec3 *ndx = sm_owned_alloc(o, (have + more) * sizeof(smdmx_vec3), error);
			if (!nix || !ndx) return false;
			memcpy(nix, ix, have * sizeof(uint32_t));
			memcpy(ndx, dx, have * sizeof(smdmx_vec3));
			size_t k = have;
			for (size_t i = count; i < new_count; i++) {
				int32_t d = at[origin[i - count]];
				if (d < 0) continue;
				nix[k] = (uint32_t)i;
				memcpy(ndx[k++], dx[d], sizeof(smdmx_vec3));
			}
			if (which) {
				sh->normal_indices = nix;
				sh->normal_deltas = ndx;
				sh->normal_count = k;
			} else {
				sh->position_indices = nix;
				sh->position_deltas = ndx;
				sh->position_count = k;
			}
		}
		if (which) {
			me->normals = values;
			me->normal_indices = indices;
			me->normal_count = new_count;
		} else {
			me->positions = values;
			me->position_indices = indices;
			me->position_count = new_count;
		}
	}
	return true;
}

/* A VTA being attached: the matcher, and per corner as the reference's triangles are written
 * (polygons by first corner, fanned), its mesh, corner and base vertex. */
typedef struct attach {
	matcher mt;
	smdmx_scene *ref;
	const smdmx_scene *vta;
	smdmx_error *error;
	smdmx_warnings *warnings;
	size_t nm;                    /* meshes of the reference */
	size_t total;                 /* written corners */
	uint32_t *mesh_of, *corner_of, *base_of;
	uint8_t *used;                /* per base vertex: a corner took it */
	size_t unreached, first_unreached, nearest;
	uint32_t nearest_line;
	float far2;
	motions mo[2];                /* positions, normals */
	size_t corners;               /* mesh corners, over all meshes */
	size_t *corner_off;           /* per mesh + 1: its first in those */
	uint32_t *cbase;              /* per mesh corner: its base vertex */
	size_t *slot_base;            /* per mesh: its first position and normal slot */
	size_t slots;
	uint32_t *by_base_first, *by_base, *mesh_at; /* mesh corners by base vertex; each one's mesh */
	int32_t *kept;                /* per slot, the shape being built's entry, or -1 */
	const smdmx_scene *const *others; /* the model's other body parts (a QC's), or none */
	size_t other_count;
} attach;

/* One delta a VTA shape puts on a mesh's position or normal. */
typedef struct entry {
	uint32_t mesh, target, which; /* which: 0 position, 1 normal */
	const float *delta;
} entry;

/* The written corners, numbered in the order the reference's triangles are written: the
 * numbers a VTA of Blender Source Tools uses. */
static bool number_corners(attach *at)
{
	temps *t = &at->mt.t;
	size_t total = 0, nm = at->nm;
	for (size_t mi = 0; mi < nm; mi++) {
		const smdmx_mesh *m = &at->ref->meshes[mi];
		for (size_t f = 0; f < m->face_set_count; f++)
			for (size_t p = 0; p < m->face_sets[f].polygon_count; p++)
				total += 3 * (m->face_sets[f].offsets[p + 1] - m->face_sets[f].offsets[p] - 2);
	}
	if (total >= UINT32_MAX || at->mt.n >= UINT32_MAX)
		return sm_fail(at->error, SMDMX_ERROR_LIMIT, 0, 0, "more than 2^32 - 2 corners or VTA vertices");
	at->total = total;
	at->mt.budget = ((uint64_t)1 << 22) + 64 * ((uint64_t)total + at->mt.n);
	at->mesh_of = temp(t, total, sizeof(uint32_t));
	at->corner_of = temp(t, total, sizeof(uint32_t));
	at->base_of = temp(t, total, sizeof(uint32_t));
	at->slot_base = temp(t, nm + 1, sizeof(size_t));
	if (!at->mesh_of || !at->corner_of || !at->base_of || !at->slot_base) return false;
	size_t k = 0;
	for (size_t mi = 0; mi < nm; mi++) {
		const smdmx_mesh *m = &at->ref->meshes[mi];
		sm_poly_ref *order;
		size_t n;
		if (!sm_polygon_order(&at->ref->owner->alloc, m, &order, &n)) return sm_fail_oom(at->error);
		for (size_t i = 0; i < n; i++) {
			const smdmx_face_set *fs = &m->face_sets[order[i].face_set];
			const uint32_t *c = fs->corners + fs->offsets[order[i].polygon];
			uint32_t nc = fs->offsets[order[i].polygon + 1] - fs->offsets[order[i].polygon];
			for (uint32_t tr = 1; tr + 1 < nc; tr++) {
				uint32_t tri[3] = { c[0], c[tr], c[tr + 1] };
				for (int v = 0; v < 3; v++) {
					at->mesh_of[k] = (uint32_t)mi;
					at->corner_of[k++] = tri[v];
				}
			}
		}
		sm_free(&at->ref->owner->alloc, order, n * sizeof(sm_poly_ref));
	}
	return true;
}

/* Each written corner's base vertex: by number when the VTA's numbers are the corners', else
 * the one at its position (or the nearest within reach). A VTA none of whose vertices meets
 * the reference is not this reference's. */
static bool match_corners(attach *at, const char *reach_text)
{
	matcher *mt = &at->mt;
	at->first_unreached = SIZE_MAX;
	at->used = temp(&mt->t, mt->n, 1);
	if (!at->used) return false;
	memset(at->used, 0, mt->n);
	static const float no_normal[3] = { 0, 0, 0 };
	/* numbered by corners? */
	bool by_number = true;
	for (size_t k = 0; k < at->total && by_number; k++) {
		const smdmx_mesh *m = &at->ref->meshes[at->mesh_of[k]];
		size_t b = numbered(mt, k);
		by_number = b != SIZE_MAX && same3(base_position(mt, b), m->positions[m->position_indices[at->corner_of[k]]]);
		if (by_number) at->base_of[k] = (uint32_t)b;
	}
	for (size_t k = 0; k < at->total; k++) {
		const smdmx_mesh *m = &at->ref->meshes[at->mesh_of[k]];
		uint32_t c = at->corner_of[k];
		const float *p = m->positions[m->position_indices[c]];
		const float *nrm = m->normal_indices ? m->normals[m->normal_indices[c]] : no_normal;
		float d2 = 0;
		if (!by_number && !match(mt, p, nrm, &at->base_of[k], &d2)) return false;
		if (at->base_of[k] == SMDMX_NONE) {
			if (!at->unreached++) at->first_unreached = k;
			continue;
		}
		at->used[at->base_of[k]] = 1;
		if (d2 > 0) {
			uint32_t line = at->vta->source.vta_lines ? at->vta->source.vta_lines[at->base_of[k]] : 0;
			if (!at->nearest++ || (line && line < at->nearest_line)) at->nearest_line = line;
			if (d2 > at->far2) at->far2 = d2;
		}
	}
	if (at->total && mt->n && at->unreached == at->total)
		return sm_fail(at->error, SMDMX_ERROR_VERTEX_ID, 0, 0,
		               "no corner of the reference has a VTA vertex within %s units: the VTA is not for this reference", reach_text);
	return true;
}

static int by_xyz(const void *a, const void *b)
{
	const float *x = a, *y = b;
	for (int k = 0; k < 3; k++)
		if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
	return 0;
}

/* Every corner position of the other body parts, sorted, in *n of *total (NULL: none, or
 * out of memory: then none is known). */
static float (*other_positions(const attach *at, size_t *n, size_t *total))[3]
{
	*total = *n = 0;
	for (size_t s = 0; s < at->other_count; s++)
		for (size_t m = 0; m < at->others[s]->mesh_count; m++) *total += at->others[s]->meshes[m].corner_count;
	float(*p)[3] = *total ? sm_malloc(at->mt.t.a, *total * sizeof(*p)) : NULL;
	if (!p) return NULL;
	for (size_t s = 0; s < at->other_count; s++)
		for (size_t m = 0; m < at->others[s]->mesh_count; m++) {
			const smdmx_mesh *me = &at->others[s]->meshes[m];
			for (size_t c = 0; c < me->corner_count; c++) memcpy(p[(*n)++], me->positions[me->position_indices[c]], sizeof(p[0]));
		}
	qsort(p, *n, sizeof(p[0]), by_xyz);
	return p;
}

/* What did not meet: VTA vertices at no corner (unless a twin at their position that moves
 * alike carries their motion; those at a corner of the model's other body parts apart: the
 * VTA was made of the whole character, and studiomdl moves none of them with this model
 * either), corners with no VTA vertex in reach, corners that took the nearest. */
static bool warn_unmet(attach *at, const char *reach_text)
{
	matcher *mt = &at->mt;
	char pc[32];
	size_t lost = 0, lost_moving = 0, elsewhere = 0, others = 0, cap = 0;
	uint32_t lost_line = 0;
	float(*op)[3] = other_positions(at, &others, &cap);
	for (size_t i = 0; i < mt->n; i++) {
		if (at->used[i]) continue;
		if (!mt->have_exact) {
			if (!group_by(mt, &mt->exact, false)) return false;
			mt->have_exact = true;
		}
		uint32_t g = find_exact(mt, base_position(mt, i));
		bool carried = false;
		for (uint32_t a = mt->exact.first[g]; a < mt->exact.first[g + 1] && !carried; a++) {
			uint32_t u = mt->exact.items[a];
			carried = at->used[u] && motions_equal(&at->mo[0], u, (uint32_t)i, mt->n) && motions_equal(&at->mo[1], u, (uint32_t)i, mt->n);
		}
		if (carried) continue;
		if (op && bsearch(base_position(mt, i), op, others, sizeof(op[0]), by_xyz)) {
			elsewhere++;
			continue;
		}
		uint32_t line = at->vta->source.vta_lines ? at->vta->source.vta_lines[i] : 0;
		if (!lost++ || (line && line < lost_line)) lost_line = line;
		lost_moving += at->mo[0].moves[i] | at->mo[1].moves[i];
	}
	if (op) sm_free(at->mt.t.a, op, cap * sizeof(op[0]));
	char more[160] = "";
	if (elsewhere && lost)
		snprintf(more, sizeof(more), "; %zu more are at corners of the QC's other body parts, which studiomdl moves with "
		         "this model no more", elsewhere);
	if (lost)
		sm_warn(at->warnings, SMDMX_WARNING_VTA_UNMATCHED, lost_line, lost_line ? 1 : 0,
		        "%zu of %zu VTA vertices (%s%%) are at no corner of the reference: their motion is lost (%zu of "
		        "them move); if any move, the VTA is for another version of the reference: export both again%s",
		        lost, mt->n, percent(lost, mt->n, pc), lost_moving, more);
	else if (elsewhere)
		sm_warn(at->warnings, SMDMX_WARNING_VTA_UNMATCHED, 0, 0,
		        "%zu of %zu VTA vertices (%s%%) are at no corner of the reference but at corners of the QC's other body "
		        "parts (the VTA is of the whole character): studiomdl moves none of them with this model either; nothing "
		        "to do",
		        elsewhere, mt->n, percent(elsewhere, mt->n, pc));
	if (at->unreached) {
		const smdmx_mesh *m = &at->ref->meshes[at->mesh_of[at->first_unreached]];
		const float *p = m->positions[m->position_indices[at->corner_of[at->first_unreached]]];
		char x[SM_FLOAT_MAX], y[SM_FLOAT_MAX], z[SM_FLOAT_MAX];
		sm_format_shortest(p[0], x);
		sm_format_shortest(p[1], y);
		sm_format_shortest(p[2], z);
		sm_warn(at->warnings, SMDMX_WARNING_VTA_UNREACHED, 0, 0,
		        "%zu of %zu corners of the reference (%s%%) have no VTA vertex within %s units: they do not move "
		        "(the first at %s %s %s); if they should, the VTA is for another version of the reference: export both "
		        "again",
		        at->unreached, at->total, percent(at->unreached, at->total, pc), reach_text, x, y, z);
	}
	if (at->nearest) {
		char far[SM_FLOAT_MAX];
		sm_format_shortest((float)sqrt((double)at->far2), far);
		sm_warn(at->warnings, SMDMX_WARNING_VTA_NEAREST, at->nearest_line, at->nearest_line ? 1 : 0,
		        "%zu of %zu corners (%s%%) have no VTA vertex at their position and take the nearest, up to %s "
		        "units away, as studiomdl does; nothing to do unless that is far",
		        at->nearest, at->total, percent(at->nearest, at->total, pc), far);
	}
	return true;
}

/* Each mesh corner's base vertex: that of its first written occurrence (a polygon fanned
 * into triangles writes its first corner several times; occurrences that move differently
 * are counted and warned). */
static bool corner_bases(attach *at)
{
	temps *t = &at->mt.t;
	size_t nm = at->nm;
	at->corner_off = temp(t, nm + 1, sizeof(size_t));
	if (!at->corner_off) return false;
	size_t corners = 0;
	for (size_t mi = 0; mi < nm; mi++) {
		at->corner_off[mi] = corners;
		corners += at->ref->meshes[mi].corner_count;
	}
	at->corner_off[nm] = corners;
	at->corners = corners;
	at->cbase = temp(t, corners, sizeof(uint32_t));
	uint8_t *seen = temp(t, corners, 1);
	if (!at->cbase || !seen) return false;
	size_t conflicts = 0;
	memset(seen, 0, corners);
	for (size_t c = 0; c < corners; c++) at->cbase[c] = SMDMX_NONE;
	for (size_t k = 0; k < at->total; k++) {
		size_t gc = at->corner_off[at->mesh_of[k]] + at->corner_of[k];
		uint32_t *cb = &at->cbase[gc];
		if (!seen[gc]) {
			seen[gc] = 1;
			*cb = at->base_of[k];
		} else if (seen[gc] == 1 && (!motions_equal(&at->mo[0], *cb, at->base_of[k], at->mt.n) ||
		                             !motions_equal(&at->mo[1], *cb, at->base_of[k], at->mt.n))) {
			seen[gc] = 2; /* one corner, two motions: the first stays */
			conflicts++;
		}
	}
	if (conflicts)
		sm_warn(at->warnings, SMDMX_WARNING_VTA_CONFLICT, 0, 0,
		        "corners written more than once (polygons fanned into triangles) took VTA vertices that move "
		        "differently: the first keeps its motion (%zu of %zu written corners); triangulate in the source if a "
		        "shape tears there",
		        conflicts, at->total);
	return true;
}

/* The corners of each base vertex, and per position and normal slot (mesh by mesh,
 * positions then normals) room for the delta a shape has put there. */
static bool index_by_base(attach *at)
{
	temps *t = &at->mt.t;
	size_t slots = 0;
	for (size_t mi = 0; mi < at->nm; mi++) {
		at->slot_base[mi] = slots;
		slots += at->ref->meshes[mi].position_count + at->ref->meshes[mi].normal_count;
	}
	at->slots = slots;
	uint32_t *key = temp(t, at->corners, sizeof(uint32_t));
	at->by_base_first = temp(t, at->mt.n + 2, sizeof(uint32_t));
	at->by_base = temp(t, at->corners, sizeof(uint32_t));
	at->mesh_at = temp(t, at->corners, sizeof(uint32_t));
	at->kept = temp(t, slots, sizeof(int32_t));
	if (!key || !at->by_base_first || !at->by_base || !at->mesh_at || !at->kept) return false;
	for (size_t mi = 0; mi < at->nm; mi++)
		for (size_t c = at->corner_off[mi]; c < at->corner_off[mi + 1]; c++) at->mesh_at[c] = (uint32_t)mi;
	for (size_t c = 0; c < at->corners; c++) key[c] = at->cbase[c] == SMDMX_NONE ? (uint32_t)at->mt.n : at->cbase[c];
	sm_group(key, NULL, at->corners, at->mt.n + 1, at->by_base_first, at->by_base);
	for (size_t sl = 0; sl < slots; sl++) at->kept[sl] = -1;
	return true;
}

/* The entries of VTA shape vs: the deltas of its vertices on the corners they reach, one
 * per position and normal of each mesh. Their count. */
static size_t shape_entries(attach *at, const smdmx_flex_shape *vs, entry *ent, uint32_t *ent_mesh)
{
	size_t ne = 0;
	for (int which = 0; which < 2; which++) {
		size_t count = which ? vs->normal_count : vs->position_count;
		const uint32_t *bases = which ? vs->normal_indices : vs->position_indices;
		smdmx_vec3 *deltas = which ? vs->normal_deltas : vs->position_deltas;
		for (size_t i = 0; i < count; i++) {
			const float *d = deltas[i];
			/* A listed vertex that did not move adds nothing. */
			if (d[0] == 0 && d[1] == 0 && d[2] == 0) continue;
			uint32_t b = bases[i];
			for (uint32_t a = at->by_base_first[b]; a < at->by_base_first[b + 1]; a++) {
				uint32_t gc = at->by_base[a], mi = at->mesh_at[gc], c = (uint32_t)(gc - at->corner_off[mi]);
				const smdmx_mesh *m = &at->ref->meshes[mi];
				if (which && !m->normal_indices) continue;
				uint32_t target = which ? m->normal_indices[c] : m->position_indices[c];
				size_t sl = at->slot_base[mi] + (which ? m->position_count : 0) + target;
				if (at->kept[sl] >= 0) continue; /* its other corners move alike (split_mesh) */
				at->kept[sl] = (int32_t)ne;
				ent_mesh[ne] = (uint32_t)mi;
				ent[ne++] = (entry){ (uint32_t)mi, target, (uint32_t)which, d };
			}
		}
	}
	for (size_t e = 0; e < ne; e++) {
		const smdmx_mesh *m = &at->ref->meshes[ent[e].mesh];
		at->kept[at->slot_base[ent[e].mesh] + (ent[e].which ? m->position_count : 0) + ent[e].target] = -1;
	}
	return ne;
}

/* The flex shape of VTA shape vs on mesh mi: the entries ent[order[from..to)], into out. */
static bool emit_shape(attach *at, const smdmx_flex_shape *vs, size_t mi, const entry *ent, const uint32_t *order, uint32_t from,
                       uint32_t to, sm_vec *out)
{
	sm_owner *o = at->ref->owner;
	smdmx_error *error = at->error;
	size_t np = 0, nn = 0;
	for (uint32_t a = from; a < to; a++) {
		if (ent[order[a]].which) nn++;
		else np++;
	}
	smdmx_vec3 *pd = sm_owned_alloc(o, (np + 1) * sizeof(smdmx_vec3), error);
	uint32_t *pi = sm_owned_alloc(o, (np + 1) * sizeof(uint32_t), error);
	smdmx_vec3 *nd = sm_owned_alloc(o, (nn + 1) * sizeof(smdmx_vec3), error);
	uint32_t *ni = sm_owned_alloc(o, (nn + 1) * sizeof(uint32_t), error);
	smdmx_flex_shape *sh = pd && pi && nd && ni ? sm_vec_push(o, out, sizeof(smdmx_flex_shape), error) : NULL;
	const char *name = sh ? sm_strdup(o, vs->name, strlen(vs->name), error) : NULL;
	if (!name) return false;
	np = nn = 0;
	for (uint32_t a = from; a < to; a++) {
		const entry *en = &ent[order[a]];
		if (en->which) {
			memcpy(nd[nn], en->delta, sizeof(smdmx_vec3));
			ni[nn++] = en->target;
		} else {
			memcpy(pd[np], en->delta, sizeof(smdmx_vec3));
			pi[np++] = en->target;
		}
	}
	memset(sh, 0, sizeof(*sh));
	sh->name = name;
	sh->mesh = (uint32_t)mi;
	sh->frame = vs->frame;
	sh->line = vs->line;
	sh->corrective = vs->corrective;
	sh->position_indices = pi;
	sh->position_deltas = pd;
	sh->position_count = np;
	sh->normal_indices = ni;
	sh->normal_deltas = nd;
	sh->normal_count = nn;
	return true;
}

/* The shapes: the reference's own, then for each VTA shape one flex shape per mesh it moves
 * (a shape that moves nothing stays, on the first mesh). */
static bool attach_shapes(attach *at, sm_vec *out)
{
	temps *t = &at->mt.t;
	const smdmx_scene *vta = at->vta;
	size_t nm = at->nm, most = 0;
	for (size_t s = 0; s < vta->flex_shape_count; s++) {
		const smdmx_flex_shape *vs = &vta->flex_shapes[s];
		size_t reach = 0;
		for (size_t i = 0; i < vs->position_count; i++)
			reach += at->by_base_first[vs->position_indices[i] + 1] - at->by_base_first[vs->position_indices[i]];
		for (size_t i = 0; i < vs->normal_count; i++)
			reach += at->by_base_first[vs->normal_indices[i] + 1] - at->by_base_first[vs->normal_indices[i]];
		if (reach > most) most = reach;
	}
	entry *ent = temp(t, most, sizeof(entry));
	uint32_t *ent_mesh = temp(t, most, sizeof(uint32_t));
	uint32_t *ent_first = temp(t, nm + 1, sizeof(uint32_t));
	uint32_t *ent_order = temp(t, most, sizeof(uint32_t));
	if (!ent || !ent_mesh || !ent_first || !ent_order) return false;
	smdmx_scene *ref = at->ref;
	if (!sm_vec_reserve(ref->owner, out, sizeof(smdmx_flex_shape), ref->flex_shape_count + nm * vta->flex_shape_count + 1, at->error))
		return false;
	if (ref->flex_shape_count) memcpy(out->data, ref->flex_shapes, ref->flex_shape_count * sizeof(smdmx_flex_shape));
	out->count = ref->flex_shape_count;
	for (size_t s = 0; s < vta->flex_shape_count; s++) {
		const smdmx_flex_shape *vs = &vta->flex_shapes[s];
		size_t ne = shape_entries(at, vs, ent, ent_mesh);
		sm_group(ent_mesh, NULL, ne, nm, ent_first, ent_order);
		for (size_t mi = 0; mi < nm; mi++) {
			uint32_t from = ent_first[mi], to = ent_first[mi + 1];
			if (from == to && !(ne == 0 && mi == 0)) continue;
			if (!emit_shape(at, vs, mi, ent, ent_order, from, to, out)) return false;
		}
	}
	return true;
}

bool smdmx_scene_attach_vta(smdmx_scene *ref, const smdmx_scene *vta, smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	if (!ref || !vta) return sm_fail_null(error, __func__, !ref ? "reference" : "vta");
	return sm_scene_attach_vta_among(ref, vta, NULL, 0, error, warnings);
}

bool sm_scene_attach_vta_among(smdmx_scene *ref, const smdmx_scene *vta, const smdmx_scene *const *others, size_t other_count,
                               smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	sm_warnings_start(warnings, sm_scene_hooks(ref));
	if (vta->mesh_count != 1 || vta->source.format != SMDMX_SOURCE_VTA)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "the flex file is not a VTA");
	if (ref->mesh_count == 0) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "the reference has no mesh for the shapes");
	if (!sm_scene_memory(ref, error)) return false;
	attach a;
	memset(&a, 0, sizeof(a));
	attach *at = &a;
	at->mt.t.a = &ref->owner->alloc;
	at->mt.t.error = error;
	at->mt.vm = &vta->meshes[0];
	at->mt.n = at->mt.vm->corner_count;
	at->mt.numbers = vta->source.vta_ids;
	at->ref = ref;
	at->vta = vta;
	at->error = error;
	at->warnings = warnings;
	at->others = others;
	at->other_count = other_count;
	at->nm = ref->mesh_count;
	char reach_text[SM_FLOAT_MAX];
	sm_format_shortest(REACH, reach_text);
	bool ok = number_corners(at) && match_corners(at, reach_text);
	/* Which base vertices move alike over all shapes, positions and normals apart. */
	for (int which = 0; ok && which < 2; which++) ok = build_motions(&at->mt, vta, which, &at->mo[which]);
	ok = ok && warn_unmet(at, reach_text) && corner_bases(at);
	/* Corners on one position (or normal) whose base vertices move differently (the lips of
	 * a mouth modelled closed, or flat faces that share a normal) get a position (normal) of
	 * their own, so that each moves as its VTA vertex does. */
	for (size_t mi = 0; ok && mi < at->nm; mi++) ok = split_mesh(&at->mt, ref, mi, at->cbase + at->corner_off[mi], at->mo);
	sm_vec out = SM_VEC_INIT;
	ok = ok && index_by_base(at) && attach_shapes(at, &out) && sm_warnings_kept(warnings, error);
	temps_free(&at->mt.t);
	if (!ok) return false;
	ref->flex_shapes = out.data;
	ref->flex_shape_count = out.count;
	return smdmx_scene_validate(ref, error);
}
