/* SMD reading, the triangles block: vertex lines parsed, corners deduplicated into positions
 * (with weights), normals and UVs through hash tables keyed on the exact float bits, and the
 * face sets by material. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smd/smd_read.h"

/* ---- triangles ----------------------------------------------------------------------------- */

/* Slots for a table of cap entries, empty when zeroed (or not: smdr_dedup_move zeroes
 * them where they are filled). */
static bool dedup_slots(reader *r, dedup *d, size_t cap, bool zeroed)
{
	d->slots = zeroed ? sm_owned_calloc(r->o, cap, sizeof(uint64_t), r->error)
	                  : sm_owned_alloc(r->o, cap * sizeof(uint64_t), r->error);
	if (!d->slots) return false;
	d->slot = r->o->slot_count - 1;
	d->cap = cap;
	d->count = 0;
	return true;
}

bool smdr_dedup_init(reader *r, dedup *d, size_t cap)
{
	return dedup_slots(r, d, cap, true);
}

void smdr_dedup_free(reader *r, dedup *d)
{
	if (!d->slots) return;
	sm_free(&r->o->alloc, d->slots, d->cap * sizeof(uint64_t));
	r->o->slots[d->slot].ptr = NULL;
	r->o->slots[d->slot].size = 0;
	d->slots = NULL;
	d->cap = 0;
}

bool smdr_dedup_make(reader *r, const dedup *d, size_t more, dedup *next)
{
	size_t cap = d->cap;
	while ((d->count + more + 1) * 2 > cap) {
		if (cap > SIZE_MAX / 16) return sm_fail_oom(r->error);
		cap *= 2;
	}
	if (cap == d->cap) {
		next->slots = NULL;
		return true;
	}
	return dedup_slots(r, next, cap, false);
}

void smdr_dedup_move(dedup *d, dedup *next)
{
	memset(next->slots, 0, next->cap * sizeof(uint64_t));
	size_t mask = next->cap - 1;
	for (size_t i = 0; i < d->cap; i++) {
		uint64_t v = d->slots[i];
		if (!v) continue;
		size_t h = (size_t)(v >> 32) & mask;
		while (next->slots[h]) h = (h + 1) & mask;
		next->slots[h] = v;
	}
	next->count = d->count;
	dedup old = *d;
	*d = *next;
	*next = old;
}

/* Doubles a table; the stored hashes place every entry again. */
bool smdr_dedup_grow(reader *r, dedup *d)
{
	dedup next;
	if (d->cap > SIZE_MAX / 16) return sm_fail_oom(r->error);
	SM_CHECK(dedup_slots(r, &next, d->cap * 2, false));
	smdr_dedup_move(d, &next);
	smdr_dedup_free(r, &next);
	return true;
}


/* Bitwise equality of n 32-bit words (floats compare by bits: -0 and 0 stay apart). */
static inline bool same_words(const void *a, const void *b, size_t n)
{
	const uint32_t *x = a, *y = b;
	for (size_t i = 0; i < n; i++) {
		uint32_t u, v;
		memcpy(&u, x + i, 4);
		memcpy(&v, y + i, 4);
		if (u != v) return false;
	}
	return true;
}

/* Index of a float vector value (n = 2 or 3) of hash hv (hash_words(val, n, n)), adding it
 * when new. */
static inline bool intern_vec_hashed(reader *r, dedup *d, sm_vec *data, const float *val, size_t n, uint32_t hv,
                                     uint32_t *out)
{
	if ((d->count + 1) * 2 > d->cap) SM_CHECK(smdr_dedup_grow(r, d));
	size_t mask = d->cap - 1, h = hv & mask;
	const float *base = data->data;
	for (;;) {
		uint64_t s = d->slots[h];
		if (!s) break;
		uint32_t i = (uint32_t)s - 1;
		if ((uint32_t)(s >> 32) == hv && same_words(base + (size_t)i * n, val, n)) {
			*out = i;
			return true;
		}
		h = (h + 1) & mask;
	}
	if (data->count >= UINT32_MAX - 1) return sm_fail_oom(r->error);
	float *dst = sm_vec_push(r->o, data, n * sizeof(float), r->error);
	if (!dst) return false;
	memcpy(dst, val, n * sizeof(float));
	d->slots[h] = ((uint64_t)hv << 32) | (uint32_t)data->count;
	d->count++;
	*out = (uint32_t)data->count - 1;
	return true;
}

bool smdr_intern_vec(reader *r, dedup *d, sm_vec *data, const float *val, size_t n, uint32_t *out)
{
	return intern_vec_hashed(r, d, data, val, n, hash_words(val, n, (uint32_t)n), out);
}

/* A position with its weights, of hash hv (hash_position): its index, added when new. */
static inline bool intern_position_hashed(reader *r, const float *p, const smdmx_weight *w, size_t nw, uint32_t hv,
                                          uint32_t *out)
{
	dedup *d = &r->position_table;
	if ((d->count + 1) * 2 > d->cap) SM_CHECK(smdr_dedup_grow(r, d));
	size_t mask = d->cap - 1, h = hv & mask;
	const smdmx_vec3 *pos = r->positions.data;
	const uint32_t *off = r->weight_offsets.data;
	const smdmx_weight *ws = r->weights.data;
	for (;;) {
		uint64_t s = d->slots[h];
		if (!s) break;
		uint32_t i = (uint32_t)s - 1;
		if ((uint32_t)(s >> 32) == hv && same_words(pos[i], p, 3) && off[i + 1] - off[i] == nw &&
		    same_words(ws + off[i], w, 2 * nw)) {
			*out = i;
			return true;
		}
		h = (h + 1) & mask;
	}
	if (r->positions.count >= UINT32_MAX - 1 || r->weights.count + nw >= UINT32_MAX) return sm_fail_oom(r->error);
	float *dst = sm_vec_push(r->o, &r->positions, sizeof(smdmx_vec3), r->error);
	if (!dst) return false;
	memcpy(dst, p, sizeof(smdmx_vec3));
	SM_CHECK(sm_vec_reserve(r->o, &r->weights, sizeof(smdmx_weight), r->weights.count + nw, r->error));
	memcpy((smdmx_weight *)r->weights.data + r->weights.count, w, nw * sizeof(smdmx_weight));
	r->weights.count += nw;
	uint32_t *o = sm_vec_push(r->o, &r->weight_offsets, sizeof(uint32_t), r->error);
	if (!o) return false;
	*o = (uint32_t)r->weights.count;
	d->slots[h] = ((uint64_t)hv << 32) | (uint32_t)r->positions.count;
	d->count++;
	*out = (uint32_t)r->positions.count - 1;
	return true;
}

bool smdr_intern_position(reader *r, const float *p, const smdmx_weight *w, size_t nw, uint32_t *out)
{
	return intern_position_hashed(r, p, w, nw, hash_position(p, w, nw), out);
}

bool smdr_intern_material(reader *r, const char *s, size_t n, uint32_t *out)
{
	const smdmx_material *mats = r->materials.data;
	if (r->last_material != SMDMX_NONE) {
		const char *m = mats[r->last_material].name;
		if (strncmp(m, s, n) == 0 && m[n] == '\0') {
			*out = r->last_material;
			return true;
		}
	}
	dedup *d = &r->material_table;
	if ((d->count + 1) * 2 > d->cap) SM_CHECK(smdr_dedup_grow(r, d));
	uint32_t h0 = 2166136261u;
	for (size_t i = 0; i < n; i++) h0 = (h0 ^ (uint8_t)s[i]) * 16777619u;
	size_t mask = d->cap - 1, h = h0 & mask;
	mats = r->materials.data;
	for (;;) {
		uint64_t v = d->slots[h];
		if (!v) break;
		const char *m = mats[(uint32_t)v - 1].name;
		if ((uint32_t)(v >> 32) == h0 && strncmp(m, s, n) == 0 && m[n] == '\0') {
			*out = r->last_material = (uint32_t)v - 1;
			return true;
		}
		h = (h + 1) & mask;
	}
	const char *name = sm_strdup(r->o, s, n, r->error);
	if (!name) return false;
	smdmx_material *m = sm_vec_push(r->o, &r->materials, sizeof(smdmx_material), r->error);
	if (!m) return false;
	m->name = name;
	uint32_t *ml = sm_vec_push(r->o, &r->material_lines, sizeof(uint32_t), r->error);
	if (!ml) return false;
	*ml = r->line_no;
	d->slots[h] = ((uint64_t)h0 << 32) | (uint32_t)r->materials.count;
	d->count++;
	*out = r->last_material = (uint32_t)r->materials.count - 1;
	return true;
}

bool smdr_face_set_for(reader *r, uint32_t material, faceset_build **out)
{
	faceset_build *fs = r->face_sets.data;
	if (r->face_sets.count && fs[r->last_face_set].material == material) {
		*out = &fs[r->last_face_set];
		return true;
	}
	while (r->face_set_of.count <= material) {
		uint32_t *none = sm_vec_push(r->o, &r->face_set_of, sizeof(uint32_t), r->error);
		if (!none) return false;
		*none = SMDMX_NONE;
	}
	uint32_t known = ((uint32_t *)r->face_set_of.data)[material];
	if (known != SMDMX_NONE) {
		r->last_face_set = known;
		*out = &fs[known];
		return true;
	}
	faceset_build *n = sm_vec_push(r->o, &r->face_sets, sizeof(faceset_build), r->error);
	if (!n) return false;
	n->material = material;
	n->corners = (sm_vec)SM_VEC_INIT;
	n->offsets = (sm_vec)SM_VEC_INIT;
	uint32_t *z = sm_vec_push(r->o, &n->offsets, sizeof(uint32_t), r->error);
	if (!z) return false;
	*z = 0;
	r->last_face_set = r->face_sets.count - 1;
	((uint32_t *)r->face_set_of.data)[material] = (uint32_t)r->last_face_set;
	*out = n;
	return true;
}

static bool uv_set_open(reader *r, size_t k)
{
	while (r->uv_count <= k) {
		uv_build *u = &r->uv[r->uv_count];
		*u = (uv_build){ SM_VEC_INIT, SM_VEC_INIT, { NULL, 0, 0, 0 } };
		SM_CHECK(smdr_dedup_init(r, &u->table, 1024));
		/* Corners read before this set appeared get (0, 0). */
		if (r->corner_count) {
			const float zero[2] = { 0, 0 };
			uint32_t zi = 0;
			SM_CHECK(smdr_intern_vec(r, &u->table, &u->data, zero, 2, &zi));
			SM_CHECK(sm_vec_reserve(r->o, &u->indices, sizeof(uint32_t), r->corner_count, r->error));
			uint32_t *ix = u->indices.data;
			for (size_t i = 0; i < r->corner_count; i++) ix[i] = zi;
			u->indices.count = r->corner_count;
		}
		r->uv_count++;
	}
	return true;
}

/* A corner's UV in a set, its hash hv (hash_words(uv, 2, 2)). */
static bool add_uv(reader *r, size_t set, const float uv[2], uint32_t hv)
{
	uv_build *u = &r->uv[set];
	uint32_t i = 0;
	SM_CHECK(intern_vec_hashed(r, &u->table, &u->data, uv, 2, hv, &i));
	uint32_t *dst = sm_vec_push(r->o, &u->indices, sizeof(uint32_t), r->error);
	if (!dst) return false;
	*dst = i;
	return true;
}

/* A vertex line as read, before its values are interned. */
typedef struct vertex_in {
	float pos[3], nrm[3], uv[2];
	smdmx_weight links[64];
	smdmx_weight *w;        /* links, or big.data past 63 links */
	size_t nw;
	sm_vec big;
	size_t extra_uvs;
	float extra[8][2];
	uint32_t hash[3];       /* of the position, the normal and the first UV: looked up twice */
} vertex_in;


/* One vertex line: parent px py pz nx ny nz u v [n (bone weight)*n] [k (u v)*k], the
 * pending-th of its triangle read before the earlier ones are interned. The hash slots its
 * values will look up are fetched meanwhile: a triangle's three lines are read, then
 * interned (commit_vertex), so that memory latency overlaps the parsing. */
static bool parse_vertex(reader *r, vertex_in *in, size_t pending)
{
	const char *parent_at = r->cur;
	int64_t parent_id;
	uint32_t parent = 0;
	float *pos = in->pos, *nrm = in->nrm, *uv = in->uv;
	SM_CHECK(read_int(r, &parent_id, "a parent bone id"));
	SM_CHECK(smdr_bone_index(r, parent_id, parent_at, &parent));
	SM_CHECK(read_float(r, &pos[0], "position x"));
	SM_CHECK(read_float(r, &pos[1], "position y"));
	SM_CHECK(read_float(r, &pos[2], "position z"));
	SM_CHECK(read_float(r, &nrm[0], "normal x"));
	SM_CHECK(read_float(r, &nrm[1], "normal y"));
	SM_CHECK(read_float(r, &nrm[2], "normal z"));
	SM_CHECK(read_float(r, &uv[0], "texture u"));
	SM_CHECK(read_float(r, &uv[1], "texture v"));

	smdmx_weight *w = in->links;
	size_t nw = 0;
	in->big = (sm_vec)SM_VEC_INIT;
	sm_vec *big = &in->big;
	size_t extra_uvs = 0;
	float(*extra)[2] = in->extra;
	if (!at_end(r)) {
		const char *count_at = r->cur;
		int64_t n;
		SM_CHECK(read_int(r, &n, "a weight link count"));
		if (n < 0) return smdr_fail_at(r, count_at, SMDMX_ERROR_LINKS, "negative weight link count");
		if ((uint64_t)n > r->limits.max_links)
			return smdr_fail_at(r, count_at, SMDMX_ERROR_LIMIT, "%lld weight links; the limit is %zu",
			               (long long)n, r->limits.max_links);
		if (n + 1 > 64) {
			SM_CHECK(sm_vec_reserve(r->o, big, sizeof(smdmx_weight), (size_t)n + 1, r->error));
			w = big->data;
		}
		r->any_links = true;
		double sum = 0;
		for (int64_t i = 0; i < n; i++) {
			if (at_end(r))
				return smdr_fail_at(r, count_at, SMDMX_ERROR_LINKS,
				               "weight link count %lld, but the line holds %lld", (long long)n, (long long)i);
			const char *bone_at = r->cur;
			int64_t bone;
			SM_CHECK(read_int(r, &bone, "a weight link bone id"));
			SM_CHECK(smdr_bone_index(r, bone, bone_at, &w[nw].joint));
			SM_CHECK(read_float(r, &w[nw].weight, "a weight"));
			sum += w[nw].weight;
			nw++;
		}
		if (nw == 0) {
			w[nw++] = (smdmx_weight){ parent, 1.0f };
		} else if (sum < SM_WEIGHT_SUM_LOW) {
			/* The seed: a remainder below 1 goes to the parent bone. */
			float rest = (float)(1.0 - sum);
			size_t k = 0;
			while (k < nw && w[k].joint != parent) k++;
			if (k < nw) w[k].weight += rest;
			else w[nw++] = (smdmx_weight){ parent, rest };
			sm_warn(r->warnings, SMDMX_WARNING_WEIGHT_REMAINDER, r->line_no, col_of(r, count_at),
			        "weights sum below 1: the rest went to the line's parent bone, as studiomdl gives it; nothing to do");
		} else if (sum > 1.0 + 1e-5) {
			sm_warn(r->warnings, SMDMX_WARNING_WEIGHT_OVERFLOW, r->line_no, col_of(r, count_at),
			        "weights sum above 1: kept as written, though studiomdl scales them to sum 1; check the weights in the source");
		}
		if (r->version >= 3 && !at_end(r)) {
			const char *k_at = r->cur;
			int64_t k;
			SM_CHECK(read_int(r, &k, "an extra UV set count"));
			if (k < 0 || k > 8)
				return smdr_fail_at(r, k_at, SMDMX_ERROR_LIMIT, "%lld extra UV sets; 0 to 8 are allowed", (long long)k);
			for (int64_t i = 0; i < k; i++) {
				SM_CHECK(read_float(r, &extra[i][0], "an extra texture u"));
				SM_CHECK(read_float(r, &extra[i][1], "an extra texture v"));
			}
			extra_uvs = (size_t)k;
		}
		SM_CHECK(expect_end(r, "the vertex"));
	} else {
		w[nw++] = (smdmx_weight){ parent, 1.0f };
	}

	if (r->corner_count + pending >= r->limits.max_corners || r->corner_count + pending >= UINT32_MAX - 1)
		return smdr_fail_at(r, r->line, SMDMX_ERROR_LIMIT, "more than %zu triangle corners", r->limits.max_corners);
	in->w = w;
	in->nw = nw;
	in->extra_uvs = extra_uvs;
	in->hash[0] = hash_position(pos, w, nw);
	in->hash[1] = hash_words(nrm, 3, 3);
	in->hash[2] = hash_words(uv, 2, 2);
	prefetch_slot(&r->position_table, in->hash[0]);
	prefetch_slot(&r->normal_table, in->hash[1]);
	prefetch_slot(&r->uv[0].table, in->hash[2]);
	return true;
}

/* Interns a vertex read by parse_vertex: its corner. */
static bool commit_vertex(reader *r, vertex_in *in)
{
	const float *pos = in->pos, *nrm = in->nrm, *uv = in->uv;
	const smdmx_weight *w = in->w;
	size_t nw = in->nw, extra_uvs = in->extra_uvs;
	const float(*extra)[2] = (const float(*)[2])in->extra;
	uint32_t pi = 0, ni = 0;
	SM_CHECK(intern_position_hashed(r, pos, w, nw, in->hash[0], &pi));
	sm_vec_release(r->o, &in->big, sizeof(smdmx_weight));
	SM_CHECK(intern_vec_hashed(r, &r->normal_table, &r->normals, nrm, 3, in->hash[1], &ni));
	uint32_t *dp = sm_vec_push(r->o, &r->position_indices, sizeof(uint32_t), r->error);
	uint32_t *dn = sm_vec_push(r->o, &r->normal_indices, sizeof(uint32_t), r->error);
	if (!dp || !dn) return false;
	*dp = pi;
	*dn = ni;
	SM_CHECK(add_uv(r, 0, uv, in->hash[2]));
	if (extra_uvs + 1 > r->uv_count) SM_CHECK(uv_set_open(r, extra_uvs));
	const float zero[2] = { 0, 0 };
	for (size_t s = 1; s < r->uv_count; s++) {
		const float *v = s <= extra_uvs ? extra[s - 1] : zero;
		SM_CHECK(add_uv(r, s, v, hash_words(v, 2, 2)));
	}
	r->corner_count++;
	return true;
}

bool smdr_triangles_init(reader *r)
{
	SM_CHECK(smdr_dedup_init(r, &r->position_table, 1024));
	SM_CHECK(smdr_dedup_init(r, &r->normal_table, 1024));
	SM_CHECK(smdr_dedup_init(r, &r->material_table, 64));
	SM_CHECK(uv_set_open(r, 0));
	uint32_t *z = sm_vec_push(r->o, &r->weight_offsets, sizeof(uint32_t), r->error);
	if (!z) return false;
	*z = 0;
	return true;
}

/* A line that can only be a vertex line: nine or more words, the first a number (a material
 * name may start with a digit, but has no spaces). */
static bool looks_like_vertex(const char *s, const char *e)
{
	if (!(*s == '-' || *s == '+' || sm_is_digit(*s))) return false;
	int words = 0;
	for (const char *p = s; p < e && words < 9;) {
		while (p < e && is_ws(*p)) p++;
		if (p == e) break;
		words++;
		while (p < e && !is_ws(*p)) p++;
	}
	return words >= 9;
}

/* Triangles up to the block's 'end' (r->ended), or, with a stop offset, up to the first
 * material line at or past it (r->stopped_off). */
bool smdr_read_triangle_lines(reader *r, uint32_t start_line)
{
	for (;;) {
		/* Material line: the whole line without white space at its end ("Material #152"
		 * keeps its '#'), and with what it has at its start, as studiomdl reads it. */
		bool got = false, blank = false;
		uint32_t blank_line = 0;
		const char *start = NULL;
		while (smdr_next_line(r)) {
			start = r->cur;
			skip_ws(r);
			if (r->cur == r->line_end) {
				blank = true;
				blank_line = r->line_no;
				continue;
			}
			if (!(r->line_end - r->cur >= 2 && r->cur[0] == '/' && r->cur[1] == '/')) {
				got = true;
				break;
			}
		}
		if (!got) {
			if (r->error->code) return false;
			return sm_fail(r->error, SMDMX_ERROR_MISSING_END, start_line, 1, "'triangles' block has no 'end'");
		}
		if (r->stop_off != UINT64_MAX) {
			uint64_t off = r->base_off + (uint64_t)(r->line - r->buf);
			if (off >= r->stop_off) {
				r->stopped_off = off;
				r->line_no--;
				return true;
			}
		}
		const char *s = r->cur, *e = r->line_end;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\v' || e[-1] == '\f')) e--;
		const char *name = start ? start : s;
		const char *w;
		size_t wn = peek_word(r, &w);
		if (word_is(w, wn, "end")) {
			r->cur += wn;
			r->ended = true;
			return expect_end(r, "'end'");
		}
		if (blank && looks_like_vertex(s, e)) {
			/* A blank material line: studiomdl skips the triangle, its next three lines
			 * whatever they hold ("weird model problem, skip them"; Valve's own reference
			 * SMDs have such triangles). This line is the first of the three. */
			for (int k = 0; k < 2; k++)
				if (!smdr_next_line(r)) break;
			sm_warn(r->warnings, SMDMX_WARNING_SKIPPED_TRIANGLES, blank_line, 1,
			        "a triangle whose material line is blank: skipped with its 3 lines, as studiomdl skips it; nothing to do");
			continue;
		}
		uint32_t mat_line = r->line_no, material;
		SM_CHECK(smdr_intern_material(r, name, (size_t)(e - name), &material));
		if (r->record_lines) {
			uint32_t *tl = sm_vec_push(r->o, &r->triangle_lines, sizeof(uint32_t), r->error);
			if (!tl) return false;
			*tl = mat_line;
		}
		faceset_build *fs;
		SM_CHECK(smdr_face_set_for(r, material, &fs));
		uint32_t first = (uint32_t)r->corner_count;
		vertex_in in[3];
		for (int v = 0; v < 3; v++) {
			bool line = smdr_next_content_line(r);
			if (r->error->code) return false;
			const char *p = line ? r->cur : NULL;
			bool numeric = p && (*p == '-' || *p == '+' || (*p >= '0' && *p <= '9'));
			if (!numeric)
				return sm_fail(r->error, SMDMX_ERROR_TRIANGLE, mat_line, 1,
				               "triangle has %d vertices; 3 are required", v);
			SM_CHECK(parse_vertex(r, &in[v], (size_t)v));
		}
		for (int v = 0; v < 3; v++) SM_CHECK(commit_vertex(r, &in[v]));
		/* smdr_face_set_for may not move, but corner pushes below can grow other vectors only. */
		fs = (faceset_build *)r->face_sets.data + r->last_face_set;
		SM_CHECK(sm_vec_reserve(r->o, &fs->corners, sizeof(uint32_t), fs->corners.count + 3, r->error));
		uint32_t *c = (uint32_t *)fs->corners.data + fs->corners.count;
		c[0] = first;
		c[1] = first + 1;
		c[2] = first + 2;
		fs->corners.count += 3;
		uint32_t *off = sm_vec_push(r->o, &fs->offsets, sizeof(uint32_t), r->error);
		if (!off) return false;
		*off = (uint32_t)fs->corners.count;
	}
}
