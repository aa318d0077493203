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
	uint32_t c[64];
	uint32_t n;
	uint32_t poly;      /* the polygon it is or comes from */
	uint64_t key;
	bool used;
} gtri;

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

void sm_diff_gside_free(gside *g)
{
	free(g->mesh_of);
	free(g->local);
	free(g->pos);
	free(g->nrm);
	free(g->hash);
	free(g->first);
	free(g->size);
	free(g->material);
	free(g->ring);
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
	g->mesh_of = malloc(nc * sizeof(uint32_t));
	g->local = malloc(nc * sizeof(uint32_t));
	g->pos = malloc(nc * sizeof(*g->pos));
	g->nrm = malloc(nc * sizeof(*g->nrm));
	g->hash = malloc(nc * sizeof(uint64_t));
	g->first = malloc(np * sizeof(uint32_t));
	g->size = malloc(np * sizeof(uint32_t));
	g->material = malloc(np * sizeof(char *));
	g->ring = malloc((g->ring_count + 1) * sizeof(uint32_t));
	if (!g->mesh_of || !g->local || !g->pos || !g->nrm || !g->hash || !g->first || !g->size || !g->material || !g->ring) return false;
	double q = c->vtol > 0 ? 2 * c->vtol : 0;
	size_t k = 0, pk = 0, rk = 0;
	for (size_t m = 0; m < s->mesh_count; m++) {
		const smdmx_mesh *me = &s->meshes[m];
		double r[3][3], t[3];
		mesh_place(s, me, r, t);
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
			for (size_t u = 0; u < me->uv_set_count; u++)
				for (int d = 0; d < 2; d++) h = hash_mix(h, float_key(me->uv_sets[u].data[me->uv_sets[u].indices[i]][d], q));
			smdmx_weight w[64];
			size_t nw = sm_cmp_canonical_weights(c, me, me->position_indices[i], w);
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

/* The ring r of n corners rotated to start at its least corner (by hash, then by the next). */
static void canonical_ring(const gside *g, const uint32_t *r, uint32_t n, gtri *t, uint32_t poly)
{
	uint32_t best = 0;
	for (uint32_t i = 1; i < n; i++) {
		for (uint32_t k = 0; k < n; k++) {
			uint64_t a = g->hash[r[(i + k) % n]], b = g->hash[r[(best + k) % n]];
			if (a != b) {
				if (a < b) best = i;
				break;
			}
		}
	}
	t->n = n;
	t->poly = poly;
	t->used = false;
	uint64_t h = hash_mix(0x7a2f, n);
	for (uint32_t k = 0; k < n; k++) {
		t->c[k] = r[(best + k) % n];
		h = hash_mix(h, g->hash[t->c[k]]);
	}
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

static int by_key(const void *a, const void *b)
{
	const gtri *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Matches a's items to b's of the same key and the same corners; pairs corner maps. */
static void match_items(const cmp *c, const gside *ga, gtri *ta, size_t na, const gside *gb, gtri *tb, size_t nb, uint32_t *map)
{
	qsort(tb, nb, sizeof(gtri), by_key);
	for (size_t i = 0; i < na; i++) {
		gtri *x = &ta[i];
		size_t lo = 0, hi = nb;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (tb[mid].key < x->key) lo = mid + 1;
			else hi = mid;
		}
		const char *what;
		for (size_t k = lo; k < nb && tb[k].key == x->key; k++) {
			if (tb[k].used || !gtri_same(c, ga, x, gb, &tb[k], &what)) continue;
			x->used = tb[k].used = true;
			for (uint32_t q = 0; q < x->n; q++) map[x->c[q]] = tb[k].c[q];
			break;
		}
	}
}

/* Corners x and y of two items the same, y's read from rotation rot. */
static bool gtri_same_rotated(const cmp *c, const gside *ga, const gtri *x, const gside *gb, const gtri *y, uint32_t rot)
{
	const char *what;
	for (uint32_t k = 0; k < x->n; k++)
		if (!gcorner_same(c, ga, x->c[k], gb, y->c[(k + rot) % y->n], &what)) return false;
	return true;
}

typedef struct gcell {
	uint64_t key;       /* of the cell of the item's corners' mean position */
	uint32_t item;
} gcell;

static int by_cell(const void *a, const void *b)
{
	const gcell *x = a, *y = b;
	if (x->key != y->key) return x->key < y->key ? -1 : 1;
	return (x->item > y->item) - (x->item < y->item);
}

/* The cell, along one axis, of v in cells of size step. */
static int64_t cell_of(double v, double step)
{
	double k = floor(v / step);
	return k > 4e18 ? (int64_t)4e18 : k < -4e18 ? (int64_t)-4e18 : (int64_t)k;
}

/* A cell and what an item there must share to match: its corner count and material. */
static uint64_t cell_key(int64_t x, int64_t y, int64_t z, uint32_t n, const char *material)
{
	uint64_t h = hash_mix(hash_mix(hash_mix(hash_mix(0x51ed, (uint64_t)x), (uint64_t)y), (uint64_t)z), n);
	for (; *material; material++) h = hash_mix(h, (uint8_t)*material);
	return h;
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

static void item_cell(const gside *g, const gtri *t, double step, int64_t out[3])
{
	for (int d = 0; d < 3; d++) {
		double sum = 0;
		for (uint32_t k = 0; k < t->n; k++) sum += g->pos[t->c[k]][d];
		out[d] = cell_of(sum / t->n, step);
	}
}

/* With a tolerance: values within it are equal wherever they fall, so items left over by the
 * match on keys (values rounded to steps of the tolerance: neighbours on two sides of a step
 * get two keys) are found by place. b's items go into a grid by their corners' mean position,
 * in cells as wide as twice the tolerance (the means of two items whose corners are each
 * within the tolerance are within it too); each of a's is tried against the items of the 27
 * cells around its own, in every rotation of their corners, and takes the nearest that is
 * the same within the tolerance. At most NEAR_TRIES candidates are tried for one item, so a
 * tolerance as large as the model stays linear. */
#define NEAR_TRIES 64
static bool match_items_near(const cmp *c, const gside *ga, gtri *ta, size_t na, const gside *gb, gtri *tb, size_t nb, uint32_t *map)
{
	double step = 2 * c->vtol;
	gcell *cells = malloc((nb + 1) * sizeof(gcell));
	uint32_t *skip = malloc((nb + 1) * sizeof(uint32_t));
	if (!cells || !skip) {
		free(cells);
		free(skip);
		return false;
	}
	for (size_t i = 0; i < nb; i++) {
		int64_t k[3];
		item_cell(gb, &tb[i], step, k);
		cells[i] = (gcell){ cell_key(k[0], k[1], k[2], tb[i].n, gb->material[tb[i].poly]), (uint32_t)i };
	}
	qsort(cells, nb, sizeof(gcell), by_cell);
	for (size_t i = 0; i <= nb; i++) skip[i] = (uint32_t)(i < nb && tb[cells[i].item].used ? i + 1 : i);
	for (size_t i = 0; i < na; i++) {
		gtri *x = &ta[i];
		if (x->used) continue;
		int64_t k[3];
		item_cell(ga, x, step, k);
		size_t best = SIZE_MAX, tried = 0;
		uint32_t best_rot = 0;
		double best_dev = 0;
		for (int dx = -1; dx <= 1; dx++)
			for (int dy = -1; dy <= 1; dy++)
				for (int dz = -1; dz <= 1; dz++) {
					uint64_t key = cell_key(k[0] + dx, k[1] + dy, k[2] + dz, x->n, ga->material[x->poly]);
					size_t lo = 0, hi = nb;
					while (lo < hi) {
						size_t mid = (lo + hi) / 2;
						if (cells[mid].key < key) lo = mid + 1;
						else hi = mid;
					}
					for (size_t m = next_free(skip, lo); m < nb && cells[m].key == key && tried < NEAR_TRIES; m = next_free(skip, m + 1)) {
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
	free(cells);
	free(skip);
	return true;
}

/* The fan of each polygon not matched whole, as triangles. */
static gtri *fan(const gside *g, const gtri *polys, size_t n, const bool *matched, size_t *out)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		if (!matched[i] && polys[i].n >= 3) count += polys[i].n - 2;
	gtri *t = malloc((count + 1) * sizeof(gtri));
	if (!t) return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (matched[i] || polys[i].n < 3) continue;
		const uint32_t *r = g->ring + g->first[polys[i].poly];
		for (uint32_t j = 1; j + 1 < polys[i].n; j++) {
			uint32_t tri[3] = { r[0], r[j], r[j + 1] };
			canonical_ring(g, tri, 3, &t[k++], polys[i].poly);
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
 * to pair). Without a tolerance a position is its exact float values; with one, a cell of the
 * tolerance's size, and a position is looked for in its cell and the 26 around it. */
typedef struct corner_at {
	uint64_t key;
	uint32_t tri;
} corner_at;

static int by_corner_key(const void *a, const void *b)
{
	const corner_at *x = a, *y = b;
	if (x->key != y->key) return x->key < y->key ? -1 : 1;
	return (x->tri > y->tri) - (x->tri < y->tri);
}

static uint64_t place_key(const float p[3], double step, int dx, int dy, int dz)
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
	return hash_mix(hash_mix(hash_mix(0x3c0f, (uint64_t)(cell_of(p[0], step) + dx)), (uint64_t)(cell_of(p[1], step) + dy)),
	                (uint64_t)(cell_of(p[2], step) + dz));
}

typedef struct corner_index {
	corner_at *at;
	size_t count;
	double step;
	uint32_t *seen;   /* per triangle of b: the last triangle of a it was a candidate for */
} corner_index;

static bool corner_index_build(const cmp *c, const gside *gb, const gtri *tb, size_t fb, corner_index *ix)
{
	ix->step = c->vtol;
	ix->count = 3 * fb;
	ix->at = malloc((ix->count + 1) * sizeof(corner_at));
	ix->seen = malloc((fb + 1) * sizeof(uint32_t));
	if (!ix->at || !ix->seen) return false;
	for (size_t k = 0; k < fb; k++) {
		ix->seen[k] = UINT32_MAX;
		for (uint32_t q = 0; q < 3; q++) ix->at[3 * k + q] = (corner_at){ place_key(gb->pos[tb[k].c[q]], ix->step, 0, 0, 0), (uint32_t)k };
	}
	qsort(ix->at, ix->count, sizeof(corner_at), by_corner_key);
	return true;
}

static void corner_index_free(corner_index *ix)
{
	free(ix->at);
	free(ix->seen);
}

/* Of b's triangles not yet used and of x's material, the one sharing most corner positions
 * with x (the first of them in b's order), or SIZE_MAX when none shares one. */
static size_t most_shared(const cmp *c, const gside *ga, const gtri *x, uint32_t xi, const gside *gb, const gtri *tb,
                          corner_index *ix)
{
	size_t best = SIZE_MAX, best_shared = 0;
	int reach = ix->step > 0 ? 1 : 0;
	for (uint32_t p = 0; p < 3; p++)
		for (int dx = -reach; dx <= reach; dx++)
			for (int dy = -reach; dy <= reach; dy++)
				for (int dz = -reach; dz <= reach; dz++) {
					uint64_t key = place_key(ga->pos[x->c[p]], ix->step, dx, dy, dz);
					size_t lo = 0, hi = ix->count;
					while (lo < hi) {
						size_t mid = (lo + hi) / 2;
						if (ix->at[mid].key < key) lo = mid + 1;
						else hi = mid;
					}
					for (size_t m = lo; m < ix->count && ix->at[m].key == key; m++) {
						uint32_t k = ix->at[m].tri;
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
	return best;
}

/* Polygons as sets, whatever meshes and face sets hold them: a polygon equals its fan of
 * triangles, corners count up to rotation, materials by name. What differs is said once per
 * polygon of the first; what is left over of the second once per polygon. map gets, per
 * corner of a, the corner of b it matched (or SMDMX_NONE), for the shapes. */
bool sm_diff_geometry(cmp *c, const gside *ga, const gside *gb, uint32_t *map)
{
	size_t na = ga->polys, nb = gb->polys;
	gtri *pa = malloc((na + 1) * sizeof(gtri)), *pb = malloc((nb + 1) * sizeof(gtri));
	bool *ma = calloc(na + 1, 1), *mb = calloc(nb + 1, 1);
	bool ok = pa && pb && ma && mb;
	for (size_t i = 0; ok && i < na; i++) canonical_ring(ga, ga->ring + ga->first[i], ga->size[i] < 64 ? ga->size[i] : 64, &pa[i], (uint32_t)i);
	for (size_t i = 0; ok && i < nb; i++) canonical_ring(gb, gb->ring + gb->first[i], gb->size[i] < 64 ? gb->size[i] : 64, &pb[i], (uint32_t)i);
	/* whole polygons first (a quad rotated is the same quad) */
	if (ok) {
		match_items(c, ga, pa, na, gb, pb, nb, map);
		if (c->vtol > 0) ok = match_items_near(c, ga, pa, na, gb, pb, nb, map);
		for (size_t i = 0; i < na; i++) ma[pa[i].poly] = pa[i].used;
		for (size_t i = 0; i < nb; i++) mb[pb[i].poly] = pb[i].used;
	}
	/* back in polygon order, for the fans */
	if (ok) {
		gtri *t = malloc((nb + 1) * sizeof(gtri));
		ok = t != NULL;
		for (size_t i = 0; ok && i < nb; i++) t[pb[i].poly] = pb[i];
		if (ok) {
			free(pb);
			pb = t;
		}
	}
	size_t fa = 0, fb = 0;
	gtri *ta = ok ? fan(ga, pa, na, ma, &fa) : NULL, *tb = ok ? fan(gb, pb, nb, mb, &fb) : NULL;
	ok = ok && ta && tb;
	if (ok) match_items(c, ga, ta, fa, gb, tb, fb, map);
	if (ok && c->vtol > 0) ok = match_items_near(c, ga, ta, fa, gb, tb, fb, map);
	/* what is left: each of a's polygons with a triangle unmatched, paired with the unmatched
	 * triangle of b that shares most corner positions */
	bool *said_a = calloc(na + 1, 1), *said_b = calloc(nb + 1, 1);
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
	if (!ok) sm_cmp_differ(c, "out of memory");
	corner_index_free(&ix);
	free(said_a);
	free(said_b);
	free(ta);
	free(tb);
	free(pa);
	free(pb);
	free(ma);
	free(mb);
	return ok;
}
