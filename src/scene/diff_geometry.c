/* Geometry compared by meaning (smdmx_scene_diff): each side's polygons in model space,
 * keyed by their corners' values and matched exactly (any rotation of a polygon's ring), then
 * within the tolerance through a grid of cells; what is left over differs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "support/num.h"
#include "scene/scene_util.h"
#include "smdmx/math.h"
#include "scene/compare.h"

typedef struct gtri {       /* a polygon, or a triangle of one's fan, rotated to start at its least corner */
	uint64_t key;
	const uint32_t *c;  /* its corners, in its set's pool */
	uint32_t n;
	uint32_t poly;      /* the polygon it is or comes from */
	bool used;
} gtri;

/* An item under a key: what the matches look up (sorted by key, then by item). */
typedef struct keyed {
	uint64_t key;
	uint32_t item;
} keyed;

/* k sorted by key, items of one key kept in their order: a radix sort, a byte a pass (a pass
 * where every key has the same byte is left out); tmp holds n. */
static void sort_keyed(keyed *k, keyed *tmp, size_t n)
{
	static const size_t bytes = 8;
	size_t count[8][256];
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++)
		for (size_t b = 0; b < bytes; b++) count[b][(k[i].key >> (8 * b)) & 255]++;
	keyed *src = k, *dst = tmp;
	for (size_t b = 0; b < bytes && n; b++) {
		if (count[b][(src[0].key >> (8 * b)) & 255] == n) continue;
		size_t at[256], sum = 0;
		for (size_t v = 0; v < 256; v++) {
			at[v] = sum;
			sum += count[b][v];
		}
		for (size_t i = 0; i < n; i++) dst[at[(src[i].key >> (8 * b)) & 255]++] = src[i];
		keyed *t = src;
		src = dst;
		dst = t;
	}
	if (src != k) memcpy(k, src, n * sizeof(keyed));
}

/* Where each key of a sorted array starts: open addressing over its first entries. */
typedef struct key_table {
	const keyed *k;
	size_t n;
	uint32_t *slot;     /* an entry's index, or UINT32_MAX */
	unsigned shift;
} key_table;

static size_t key_slot(const key_table *t, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15u) >> t->shift);
}

static bool key_table_build(sm_alloc *mem, key_table *t, const keyed *k, size_t n)
{
	t->k = k;
	t->n = n;
	t->shift = 64 - 4;
	size_t cap = 16;
	while (cap < 2 * n) {
		cap *= 2;
		t->shift--;
	}
	t->slot = n < UINT32_MAX ? sm_new(mem, cap, sizeof(uint32_t)) : NULL;
	if (!t->slot) return false;
	memset(t->slot, 0xff, cap * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		if (i && k[i].key == k[i - 1].key) continue;
		size_t s = key_slot(t, k[i].key);
		while (t->slot[s] != UINT32_MAX) s = (s + 1) & (cap - 1);
		t->slot[s] = (uint32_t)i;
	}
	return true;
}

/* The first entry of key, or n when there is none. */
static size_t key_table_find(const key_table *t, uint64_t key)
{
	size_t mask = ((size_t)1 << (64 - t->shift)) - 1;
	for (size_t s = key_slot(t, key); t->slot[s] != UINT32_MAX; s = (s + 1) & mask)
		if (t->k[t->slot[s]].key == key) return t->slot[s];
	return t->n;
}

/* n items sorted and looked up by key: key(i) for each item i. */
typedef struct key_index {
	sm_alloc *mem;
	keyed *k;
	key_table table;
} key_index;

static void key_index_free(key_index *x)
{
	if (x->mem) {
		sm_del(x->mem, x->k);
		sm_del(x->mem, x->table.slot);
	}
	memset(x, 0, sizeof(*x));
}

/* Room for n entries in mem; the caller fills x->k[0..n) in item order, then
 * key_index_finish. */
static bool key_index_start(sm_alloc *mem, key_index *x, size_t n)
{
	memset(x, 0, sizeof(*x));
	x->mem = mem;
	x->k = sm_new(mem, n + 1, sizeof(keyed));
	return x->k != NULL;
}

/* The entries sorted, and the table of where each key starts. */
static bool key_index_finish(key_index *x, size_t n)
{
	keyed *tmp = sm_new(x->mem, n + 1, sizeof(keyed));
	if (!tmp) return false;
	sort_keyed(x->k, tmp, n);
	sm_del(x->mem, tmp);
	return key_table_build(x->mem, &x->table, x->k, n);
}

static void xform_of_d(const smdmx_transform *tr, double r[3][3], double t[3])
{
	double q[4] = { tr->orientation[0], tr->orientation[1], tr->orientation[2], tr->orientation[3] };
	smdmx_quat_to_matrix(q, r);
	for (int i = 0; i < 3; i++) t[i] = tr->position[i];
}

/* model-space placement of a mesh: its transform under its parent joint's bind poses */
static void mesh_place(const smdmx_scene *s, const smdmx_mesh *m, double r[3][3], double t[3])
{
	xform_of_d(&m->transform, r, t);
	for (uint32_t j = m->parent_joint; j != SMDMX_NONE && j < s->joint_count; j = s->joints[j].parent) {
		double pr[3][3], pt[3], nr[3][3], nt[3];
		xform_of_d(&s->joints[j].bind, pr, pt);
		for (int i = 0; i < 3; i++) {
			for (int k = 0; k < 3; k++) nr[i][k] = pr[i][0] * r[0][k] + pr[i][1] * r[1][k] + pr[i][2] * r[2][k];
			nt[i] = pr[i][0] * t[0] + pr[i][1] * t[1] + pr[i][2] * t[2] + pt[i];
		}
		memcpy(r, nr, sizeof(nr));
		memcpy(t, nt, sizeof(nt));
	}
}

static uint64_t hash_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdu;
}

/* a float as the hash sees it: its bits (0 and -0 alike), or rounded to steps of q */
static uint64_t float_key(float v, double q)
{
	if (q > 0) return (uint64_t)(int64_t)llround(v / q);
	if (v == 0) return 0;
	uint32_t u;
	memcpy(&u, &v, 4);
	return u;
}

void sm_diff_gside_free(const cmp *c, gside *g)
{
	sm_del(c->mem, g->mesh_of);
	sm_del(c->mem, g->local);
	sm_del(c->mem, g->pos);
	sm_del(c->mem, g->nrm);
	sm_del(c->mem, g->turn);
	sm_del(c->mem, g->hash);
	sm_del(c->mem, g->first);
	sm_del(c->mem, g->size);
	sm_del(c->mem, g->material);
	sm_del(c->mem, g->ring);
	memset(g, 0, sizeof(*g));
}

bool sm_diff_gside_build(const cmp *c, const smdmx_scene *s, gside *g, bool first)
{
	memset(g, 0, sizeof(*g));
	g->s = s;
	for (size_t m = 0; m < s->mesh_count; m++) {
		g->corners += s->meshes[m].corner_count;
		for (size_t f = 0; f < s->meshes[m].face_set_count; f++) {
			g->polys += s->meshes[m].face_sets[f].polygon_count;
			g->ring_count += s->meshes[m].face_sets[f].corner_count;
		}
	}
	size_t nc = g->corners + 1, np = g->polys + 1;
	g->mesh_of = sm_new(c->mem, nc, sizeof(uint32_t));
	g->local = sm_new(c->mem, nc, sizeof(uint32_t));
	g->pos = sm_new(c->mem, nc, sizeof(*g->pos));
	g->nrm = sm_new(c->mem, nc, sizeof(*g->nrm));
	g->turn = sm_new(c->mem, s->mesh_count + 1, sizeof(*g->turn));
	g->hash = sm_new(c->mem, nc, sizeof(uint64_t));
	g->first = sm_new(c->mem, np, sizeof(uint32_t));
	g->size = sm_new(c->mem, np, sizeof(uint32_t));
	g->material = sm_new(c->mem, np, sizeof(char *));
	g->ring = sm_new(c->mem, g->ring_count + 1, sizeof(uint32_t));
	if (!g->mesh_of || !g->local || !g->pos || !g->nrm || !g->turn || !g->hash || !g->first || !g->size || !g->material || !g->ring) return false;
	double q = c->vtol > 0 ? 2 * c->vtol : 0;
	size_t k = 0, pk = 0, rk = 0;
	for (size_t m = 0; m < s->mesh_count; m++) {
		const smdmx_mesh *me = &s->meshes[m];
		double r[3][3], t[3];
		mesh_place(s, me, r, t);
		memcpy(g->turn[m], r, sizeof(r));
		uint32_t base = (uint32_t)k;
		for (size_t i = 0; i < me->corner_count; i++, k++) {
			g->mesh_of[k] = (uint32_t)m;
			g->local[k] = (uint32_t)i;
			const float *p = me->positions[me->position_indices[i]];
			for (int d = 0; d < 3; d++) g->pos[k][d] = (float)(r[d][0] * p[0] + r[d][1] * p[1] + r[d][2] * p[2] + t[d]);
			if (me->normal_indices) {
				const float *n = me->normals[me->normal_indices[i]];
				for (int d = 0; d < 3; d++) g->nrm[k][d] = (float)(r[d][0] * n[0] + r[d][1] * n[1] + r[d][2] * n[2]);
			} else {
				g->nrm[k][0] = g->nrm[k][1] = g->nrm[k][2] = 0;
			}
			/* of another up axis: turned when in model space, as a conversion turns them */
			sm_cmp_turn_vec(c, first ? 0 : 1, g->pos[k], g->pos[k]);
			sm_cmp_turn_vec(c, first ? 0 : 1, g->nrm[k], g->nrm[k]);
			uint64_t h = 1469598103934665603u;
			for (int d = 0; d < 3; d++) h = hash_mix(h, float_key(g->pos[k][d], q));
			for (int d = 0; d < 3; d++) h = hash_mix(h, float_key(g->nrm[k][d], q));
			for (size_t u = 0; u < me->uv_set_count; u++) {
				/* (0, 0) hashes as no UV set, which it equals (sm_cmp_corner) */
				const float *uv = me->uv_sets[u].data[me->uv_sets[u].indices[i]];
				if (float_key(uv[0], q) == 0 && float_key(uv[1], q) == 0) continue;
				h = hash_mix(h, u);
				for (int d = 0; d < 2; d++) h = hash_mix(h, float_key(uv[d], q));
			}
			const smdmx_weight *w;
			size_t nw = sm_cmp_canonical_weights(c, first ? 0 : 1, me, me->position_indices[i], &w);
			for (size_t x = 0; x < nw; x++) {
				for (const char *nm = first ? sm_cmp_name_in_b(c, s, w[x].joint) : s->joints[w[x].joint].name; *nm; nm++)
					h = hash_mix(h, (uint8_t)*nm);
				h = hash_mix(h, float_key(w[x].weight, q));
			}
			g->hash[k] = h;
		}
		for (size_t f = 0; f < me->face_set_count; f++) {
			const smdmx_face_set *fs = &me->face_sets[f];
			const char *mat = fs->material < s->material_count ? s->materials[fs->material].name : "";
			for (size_t p = 0; p < fs->polygon_count; p++, pk++) {
				g->first[pk] = (uint32_t)rk;
				g->size[pk] = fs->offsets[p + 1] - fs->offsets[p];
				g->material[pk] = mat;
				for (uint32_t x = fs->offsets[p]; x < fs->offsets[p + 1]; x++) g->ring[rk++] = base + fs->corners[x];
			}
		}
	}
	return true;
}

/* Two corners the same, each on its side, in every corner field (sm_cmp_corner); *what
 * names the field that differs. */
static bool gcorner_same(const cmp *c, const gside *ga, uint32_t x, const gside *gb, uint32_t y, const char **what)
{
	sm_corner a = { ga->s, &ga->s->meshes[ga->mesh_of[x]], ga->local[x], ga->pos[x], ga->nrm[x] };
	sm_corner b = { gb->s, &gb->s->meshes[gb->mesh_of[y]], gb->local[y], gb->pos[y], gb->nrm[y] };
	sm_corner_diff d = sm_cmp_corner(c, &a, &b);
	if (d.field == SMDMX_CORNER_FIELD_COUNT) return true;
	*what = smdmx_corner_field_describe(d.field)->name;
	if (d.field == SMDMX_CORNER_UV && d.at == SIZE_MAX) *what = "UV sets";
	if (d.field == SMDMX_CORNER_WEIGHT) *what = d.at == SIZE_MAX ? "weight links" : "weights";
	if (d.field == SMDMX_CORNER_JOINT) *what = "weights' joints";
	return false;
}

/* The ring r of n corners rotated to start at its least corner (by hash, then by the next),
 * its corners written to out. */
static void canonical_ring(const gside *g, const uint32_t *r, uint32_t n, gtri *t, uint32_t poly, uint32_t *out)
{
	/* the least rotation of the corners' hashes, the first where several are (two candidates
	 * i and j, the first `same` hashes of each agreeing so far: linear in n) */
	uint32_t i = 0, j = 1, same = 0;
	while (i < n && j < n && same < n) {
		uint64_t a = g->hash[r[(i + same) % n]], b = g->hash[r[(j + same) % n]];
		if (a == b) {
			same++;
			continue;
		}
		if (a > b) i += same + 1;
		else j += same + 1;
		if (i == j) j++;
		same = 0;
	}
	uint32_t best = n ? (i < j ? i : j) : 0;
	t->n = n;
	t->poly = poly;
	t->used = false;
	uint64_t h = hash_mix(0x7a2f, n);
	for (uint32_t k = 0; k < n; k++) {
		out[k] = r[(best + k) % n];
		h = hash_mix(h, g->hash[out[k]]);
	}
	t->c = out;
	for (const char *m = g->material[poly]; *m; m++) h = hash_mix(h, (uint8_t)*m);
	t->key = h;
}

static bool gtri_same(const cmp *c, const gside *ga, const gtri *x, const gside *gb, const gtri *y, const char **what)
{
	*what = "corners";
	if (x->n != y->n) return false;
	if (strcmp(ga->material[x->poly], gb->material[y->poly])) return *what = "material", false;
	for (uint32_t k = 0; k < x->n; k++)
		if (!gcorner_same(c, ga, x->c[k], gb, y->c[k], what)) return false;
	return true;
}

/* Matches a's items to b's of the same key and the same corners, in a's order; pairs corner
 * maps. */
static bool match_items(const cmp *c, const gside *ga, gtri *ta, size_t na, const gside *gb, gtri *tb, size_t nb, uint32_t *map)
{
	key_index ix;
	if (!key_index_start(c->mem, &ix, nb)) return false;
	for (size_t i = 0; i < nb; i++) ix.k[i] = (keyed){ tb[i].key, (uint32_t)i };
	if (!key_index_finish(&ix, nb)) {
		key_index_free(&ix);
		return false;
	}
	for (size_t i = 0; i < na; i++) {
		gtri *x = &ta[i];
		const char *what;
		for (size_t k = key_table_find(&ix.table, x->key); k < nb && ix.k[k].key == x->key; k++) {
			gtri *y = &tb[ix.k[k].item];
			if (y->used || !gtri_same(c, ga, x, gb, y, &what)) continue;
			x->used = y->used = true;
			for (uint32_t q = 0; q < x->n; q++) map[x->c[q]] = y->c[q];
			break;
		}
	}
	key_index_free(&ix);
	return true;
}

/* Corners x and y of two items the same, y's read from rotation rot. */
static bool gtri_same_rotated(const cmp *c, const gside *ga, const gtri *x, const gside *gb, const gtri *y, uint32_t rot)
{
	const char *what;
	for (uint32_t k = 0; k < x->n; k++)
		if (!gcorner_same(c, ga, x->c[k], gb, y->c[(k + rot) % y->n], &what)) return false;
	return true;
}

/* The cell, along one axis, of v in cells of size step. */
static int64_t cell_of(double v, double step)
{
	double k = floor(v / step);
	return k > 4e18 ? (int64_t)4e18 : k < -4e18 ? (int64_t)-4e18 : (int64_t)k;
}

/* The cells lo..hi, along one axis, that a value within tol of v falls in, in cells of size
 * step (twice tol): one or two, three when v - tol and v + tol fall on two cell bounds. The
 * reach is widened a little for the rounding of v - tol; where that widening is wider than
 * the cells (a tolerance under a float's step at v), no other float is within tol of v, and
 * v's own cell and its neighbours are enough. */
static void cells_around(double v, double tol, double step, int64_t *lo, int64_t *hi)
{
	double r = tol * (1 + 1e-6) + fabs(v) * 1e-15;
	*lo = cell_of(v - r, step);
	*hi = cell_of(v + r, step);
	if (*hi - *lo > 2) {
		int64_t k = cell_of(v, step);
		*lo = k - 1;
		*hi = k + 1;
	}
}

/* A cell and what an item there must share to match: its corner count and material. */
static uint64_t item_kind(uint32_t n, const char *material)
{
	uint64_t h = hash_mix(0x51ed, n);
	for (; *material; material++) h = hash_mix(h, (uint8_t)*material);
	return h;
}

static uint64_t cell_key(int64_t x, int64_t y, int64_t z, uint64_t kind)
{
	return hash_mix(hash_mix(hash_mix(kind, (uint64_t)x), (uint64_t)y), (uint64_t)z);
}

/* The first entry at or after m not yet matched (entries matched point past themselves). */
static size_t next_free(uint32_t *skip, size_t m)
{
	size_t r = m;
	while (skip[r] != r) r = skip[r];
	while (skip[m] != m) {
		size_t n = skip[m];
		skip[m] = (uint32_t)r;
		m = n;
	}
	return r;
}

/* The mean position of an item's corners. */
static void item_mean(const gside *g, const gtri *t, double out[3])
{
	for (int d = 0; d < 3; d++) {
		double sum = 0;
		for (uint32_t k = 0; k < t->n; k++) sum += g->pos[t->c[k]][d];
		out[d] = sum / t->n;
	}
}

/* With a tolerance: values within it are equal wherever they fall, so items left over by the
 * match on keys (values rounded to steps of the tolerance: neighbours on two sides of a step
 * get two keys) are found by place. b's items go into a grid by their corners' mean position,
 * in cells as wide as twice the tolerance (the means of two items whose corners are each
 * within the tolerance are within it too); each of a's is tried against the items of the cells
 * within the tolerance of its mean (cells_around: eight, mostly), in every rotation of their corners, and takes the nearest that is
 * the same within the tolerance. At most NEAR_TRIES candidates are tried for one item, so a
 * tolerance as large as the model stays linear. */
#define NEAR_TRIES 64
static bool match_items_near(const cmp *c, const gside *ga, gtri *ta, size_t na, const gside *gb, gtri *tb, size_t nb, uint32_t *map)
{
	double step = 2 * c->vtol;
	key_index ix;
	uint32_t *skip = NULL;
	bool ok = key_index_start(c->mem, &ix, nb);
	for (size_t i = 0; ok && i < nb; i++) {
		double at[3];
		item_mean(gb, &tb[i], at);
		uint64_t key = cell_key(cell_of(at[0], step), cell_of(at[1], step), cell_of(at[2], step), item_kind(tb[i].n, gb->material[tb[i].poly]));
		ix.k[i] = (keyed){ key, (uint32_t)i };
	}
	ok = ok && key_index_finish(&ix, nb) && (skip = sm_new(c->mem, nb + 1, sizeof(uint32_t)));
	if (!ok) {
		key_index_free(&ix);
		sm_del(c->mem, skip);
		return false;
	}
	const keyed *cells = ix.k;
	for (size_t i = 0; i <= nb; i++) skip[i] = (uint32_t)(i < nb && tb[cells[i].item].used ? i + 1 : i);
	for (size_t i = 0; i < na; i++) {
		gtri *x = &ta[i];
		if (x->used) continue;
		double at[3];
		int64_t lo[3], hi[3];
		item_mean(ga, x, at);
		for (int d = 0; d < 3; d++) cells_around(at[d], c->vtol, step, &lo[d], &hi[d]);
		uint64_t kind = item_kind(x->n, ga->material[x->poly]);
		size_t best = SIZE_MAX, tried = 0;
		uint32_t best_rot = 0;
		double best_dev = 0;
		for (int64_t cx = lo[0]; cx <= hi[0]; cx++)
			for (int64_t cy = lo[1]; cy <= hi[1]; cy++)
				for (int64_t cz = lo[2]; cz <= hi[2]; cz++) {
					uint64_t key = cell_key(cx, cy, cz, kind);
					for (size_t m = next_free(skip, key_table_find(&ix.table, key)); m < nb && cells[m].key == key && tried < NEAR_TRIES; m = next_free(skip, m + 1)) {
						gtri *y = &tb[cells[m].item];
						if (y->n != x->n || strcmp(ga->material[x->poly], gb->material[y->poly])) continue;
						tried++;
						for (uint32_t rot = 0; rot < y->n; rot++) {
							if (!gtri_same_rotated(c, ga, x, gb, y, rot)) continue;
							double dev = 0;
							for (uint32_t q = 0; q < x->n; q++)
								for (int d = 0; d < 3; d++)
									dev = fmax(dev, fabs((double)ga->pos[x->c[q]][d] - gb->pos[y->c[(q + rot) % y->n]][d]));
							if (best == SIZE_MAX || dev < best_dev) {
								best = m;
								best_rot = rot;
								best_dev = dev;
							}
						}
					}
				}
		if (best == SIZE_MAX) continue;
		gtri *y = &tb[cells[best].item];
		x->used = y->used = true;
		skip[best] = (uint32_t)(best + 1);
		for (uint32_t q = 0; q < x->n; q++) map[x->c[q]] = y->c[(q + best_rot) % y->n];
	}
	key_index_free(&ix);
	sm_del(c->mem, skip);
	return true;
}

/* The fan of each polygon not matched whole, as triangles, their corners in *pool. */
static gtri *fan(sm_alloc *mem, const gside *g, const gtri *polys, size_t n, size_t *out, uint32_t **pool)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		if (!polys[i].used && polys[i].n >= 3) count += polys[i].n - 2;
	gtri *t = sm_new(mem, count + 1, sizeof(gtri));
	*pool = count < SIZE_MAX / 3 ? sm_new(mem, 3 * count + 1, sizeof(uint32_t)) : NULL;
	if (!t || !*pool) {
		sm_del(mem, t);
		return NULL;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (polys[i].used || polys[i].n < 3) continue;
		const uint32_t *r = g->ring + g->first[polys[i].poly];
		for (uint32_t j = 1; j + 1 < polys[i].n; j++, k++) {
			uint32_t tri[3] = { r[0], r[j], r[j + 1] };
			canonical_ring(g, tri, 3, &t[k], polys[i].poly, *pool + 3 * k);
		}
	}
	*out = count;
	return t;
}

void sm_diff_where(const gside *g, uint32_t corner, char *out, size_t size)
{
	char x[SM_FLOAT_MAX], y[SM_FLOAT_MAX], z[SM_FLOAT_MAX];
	sm_format_shortest(g->pos[corner][0], x);
	sm_format_shortest(g->pos[corner][1], y);
	sm_format_shortest(g->pos[corner][2], z);
	snprintf(out, size, "(%s %s %s)", x, y, z);
}

/* Where the corners of b's triangles are, to find the triangles sharing corner positions with
 * one of a's without trying every one (a model differing at every vertex left every triangle
 * to pair). Without a tolerance a position is its exact float values; with one, a cell twice
 * the tolerance's size, and a position is looked for in the cells within the tolerance of it
 * (cells_around). */
static uint64_t place_key_cell(int64_t x, int64_t y, int64_t z)
{
	return hash_mix(hash_mix(hash_mix(0x3c0f, (uint64_t)x), (uint64_t)y), (uint64_t)z);
}

static uint64_t place_key(const float p[3], double step)
{
	if (step <= 0) {
		uint64_t h = 0x3c0f;
		for (int d = 0; d < 3; d++) {
			float v = p[d] == 0 ? 0.0f : p[d]; /* -0 is 0 */
			uint32_t u;
			memcpy(&u, &v, 4);
			h = hash_mix(h, u);
		}
		return h;
	}
	return place_key_cell(cell_of(p[0], step), cell_of(p[1], step), cell_of(p[2], step));
}

typedef struct corner_index {
	sm_alloc *mem;
	key_index at;     /* b's triangles by their corners' places */
	size_t count;
	double step;
	uint32_t *seen;   /* per triangle of b: the last triangle of a it was a candidate for */
} corner_index;

static bool corner_index_build(const cmp *c, const gside *gb, const gtri *tb, size_t fb, corner_index *ix)
{
	ix->step = 2 * c->vtol;
	ix->count = 3 * fb;
	ix->mem = c->mem;
	ix->seen = sm_new(c->mem, fb + 1, sizeof(uint32_t));
	if (!ix->seen || !key_index_start(c->mem, &ix->at, ix->count)) return false;
	for (size_t k = 0; k < fb; k++) {
		ix->seen[k] = UINT32_MAX;
		for (uint32_t q = 0; q < 3; q++) ix->at.k[3 * k + q] = (keyed){ place_key(gb->pos[tb[k].c[q]], ix->step), (uint32_t)k };
	}
	return key_index_finish(&ix->at, ix->count);
}

static void corner_index_free(corner_index *ix)
{
	key_index_free(&ix->at);
	if (ix->mem) sm_del(ix->mem, ix->seen);
}

/* Of b's triangles not yet used and of x's material, the one sharing most corner positions
 * with x (the first of them in b's order), or SIZE_MAX when none shares one. */
static size_t most_shared(const cmp *c, const gside *ga, const gtri *x, uint32_t xi, const gside *gb, const gtri *tb,
                          corner_index *ix)
{
	size_t best = SIZE_MAX, best_shared = 0;
	for (uint32_t p = 0; p < 3; p++) {
		const float *at_p = ga->pos[x->c[p]];
		int64_t lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
		if (ix->step > 0)
			for (int d = 0; d < 3; d++) cells_around(at_p[d], c->vtol, ix->step, &lo[d], &hi[d]);
		for (int64_t cx = lo[0]; cx <= hi[0]; cx++)
			for (int64_t cy = lo[1]; cy <= hi[1]; cy++)
				for (int64_t cz = lo[2]; cz <= hi[2]; cz++) {
					uint64_t key = ix->step > 0 ? place_key_cell(cx, cy, cz) : place_key(at_p, 0);
					const keyed *at = ix->at.k;
					for (size_t m = key_table_find(&ix->at.table, key); m < ix->count && at[m].key == key; m++) {
						uint32_t k = at[m].item;
						if (ix->seen[k] == xi) continue;
						ix->seen[k] = xi;
						if (tb[k].used || strcmp(ga->material[x->poly], gb->material[tb[k].poly])) continue;
						size_t shared = 0;
						for (uint32_t i = 0; i < 3; i++)
							for (uint32_t q = 0; q < 3; q++) shared += sm_cmp_vec_equal(c, ga->pos[x->c[i]], gb->pos[tb[k].c[q]], 3);
						if (shared > best_shared || (shared && shared == best_shared && k < best)) {
							best_shared = shared;
							best = k;
						}
					}
				}
	}
	return best;
}

/* Polygons as sets, whatever meshes and face sets hold them: a polygon equals its fan of
 * triangles, corners count up to rotation, materials by name. What differs is said once per
 * polygon of the first; what is left over of the second once per polygon. map gets, per
 * corner of a, the corner of b it matched (or SMDMX_NONE), for the shapes. */
bool sm_diff_geometry(cmp *c, const gside *ga, const gside *gb, uint32_t *map)
{
	size_t na = ga->polys, nb = gb->polys;
	gtri *pa = sm_new(c->mem, na + 1, sizeof(gtri)), *pb = sm_new(c->mem, nb + 1, sizeof(gtri));
	uint32_t *pool_pa = sm_new(c->mem, ga->ring_count + 1, sizeof(uint32_t));
	uint32_t *pool_pb = sm_new(c->mem, gb->ring_count + 1, sizeof(uint32_t));
	uint32_t *pool_ta = NULL, *pool_tb = NULL;
	bool ok = pa && pb && pool_pa && pool_pb;
	for (size_t i = 0; ok && i < na; i++)
		canonical_ring(ga, ga->ring + ga->first[i], ga->size[i], &pa[i], (uint32_t)i, pool_pa + ga->first[i]);
	for (size_t i = 0; ok && i < nb; i++)
		canonical_ring(gb, gb->ring + gb->first[i], gb->size[i], &pb[i], (uint32_t)i, pool_pb + gb->first[i]);
	/* whole polygons first (a quad rotated is the same quad) */
	ok = ok && match_items(c, ga, pa, na, gb, pb, nb, map);
	if (ok && c->vtol > 0) ok = match_items_near(c, ga, pa, na, gb, pb, nb, map);
	size_t fa = 0, fb = 0;
	gtri *ta = ok ? fan(c->mem, ga, pa, na, &fa, &pool_ta) : NULL, *tb = ok ? fan(c->mem, gb, pb, nb, &fb, &pool_tb) : NULL;
	ok = ok && ta && tb;
	if (ok) ok = match_items(c, ga, ta, fa, gb, tb, fb, map);
	if (ok && c->vtol > 0) ok = match_items_near(c, ga, ta, fa, gb, tb, fb, map);
	/* what is left: each of a's polygons with a triangle unmatched, paired with the unmatched
	 * triangle of b that shares most corner positions */
	bool *said_a = sm_new_zero(c->mem, na + 1, 1), *said_b = sm_new_zero(c->mem, nb + 1, 1);
	ok = ok && said_a && said_b;
	/* a side with no polygon at all (and the other with some): its meshes are only in the
	 * other */
	if (ok && !na != !nb) {
		const gside *g = na ? ga : gb;
		for (size_t m = 0; m < g->s->mesh_count; m++)
			if (g->s->meshes[m].face_set_count) sm_cmp_differ(c, "mesh '%s' only in the %s", g->s->meshes[m].name, na ? "first" : "second");
		fa = fb = 0;
	}
	size_t next_b = 0; /* pairing in order, where no corner position is shared */
	corner_index ix;
	memset(&ix, 0, sizeof(ix));
	ok = ok && corner_index_build(c, gb, tb, fb, &ix);
	for (size_t i = 0; ok && i < fa; i++) {
		gtri *x = &ta[i];
		if (x->used || said_a[x->poly]) continue;
		said_a[x->poly] = true;
		size_t best = most_shared(c, ga, x, (uint32_t)i, gb, tb, &ix);
		while (best == SIZE_MAX && next_b < fb) {
			if (!tb[next_b].used && !strcmp(ga->material[x->poly], gb->material[tb[next_b].poly])) best = next_b;
			next_b++;
		}
		char at[3 * SM_FLOAT_MAX + 8];
		if (best == SIZE_MAX) {
			sm_diff_where(ga, x->c[0], at, sizeof(at));
			sm_cmp_differ(c, "mesh '%s': a polygon of material '%s' at %s only in the first", ga->s->meshes[ga->mesh_of[x->c[0]]].name,
			       ga->material[x->poly], at);
			continue;
		}
		gtri *y = &tb[best];
		y->used = true;
		said_b[y->poly] = true;
		/* the first corner that differs, and how; the triangles' corners paired by position */
		const char *what = "corners";
		uint32_t bad = x->c[0];
		for (uint32_t p = 0; p < 3; p++) {
			uint32_t q = 0;
			while (q < 3 && !sm_cmp_vec_equal(c, ga->pos[x->c[p]], gb->pos[y->c[q]], 3)) q++;
			if (q == 3) {
				what = "position";
				bad = x->c[p];
				break;
			}
			if (!gcorner_same(c, ga, x->c[p], gb, y->c[q], &what)) {
				bad = x->c[p];
				break;
			}
		}
		sm_diff_where(ga, bad, at, sizeof(at));
		sm_cmp_differ(c, "mesh '%s': a polygon of material '%s': the corner at %s differs in its %s", ga->s->meshes[ga->mesh_of[bad]].name,
		       ga->material[x->poly], at, what);
	}
	for (size_t k = 0; ok && k < fb; k++) {
		gtri *y = &tb[k];
		if (y->used || said_b[y->poly]) continue;
		said_b[y->poly] = true;
		char at[3 * SM_FLOAT_MAX + 8];
		sm_diff_where(gb, y->c[0], at, sizeof(at));
		sm_cmp_differ(c, "mesh '%s': a polygon of material '%s' at %s only in the second", gb->s->meshes[gb->mesh_of[y->c[0]]].name,
		       gb->material[y->poly], at);
	}
	if (!ok) sm_cmp_oom(c);
	corner_index_free(&ix);
	sm_del(c->mem, said_a);
	sm_del(c->mem, said_b);
	sm_del(c->mem, ta);
	sm_del(c->mem, tb);
	sm_del(c->mem, pool_ta);
	sm_del(c->mem, pool_tb);
	sm_del(c->mem, pa);
	sm_del(c->mem, pb);
	sm_del(c->mem, pool_pa);
	sm_del(c->mem, pool_pb);
	return ok;
}
