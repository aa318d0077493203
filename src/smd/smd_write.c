/* SMD and VTA writer (decision 12): CRLF by default, spaces, six decimals, version 1
 * (version 3 only with extra UV sets), one newline at the end, no comments but the
 * "# name" after a VTA time line. The VTA writer is smd_write_vta.c, the skeleton block's
 * frames smd_write_anim.c, what the blocks share of a mesh smd_write_mesh.c; the state they
 * use is smd_write.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smd/smd_valid.h"
#include "smd/smd_write.h"

/* ---- header, nodes ----------------------------------------------------------------------- */

static bool write_header_nodes(writer *w, int version)
{
	const smdmx_scene *s = w->scene;
	SM_CHECK(sm_out_puts(&w->out, "version"));
	SM_CHECK(put_int(w, version, true));
	SM_CHECK(eol(w));
	SM_CHECK(sm_out_puts(&w->out, "nodes"));
	SM_CHECK(eol(w));
	if (w->implicit_root) {
		SM_CHECK(sm_out_puts(&w->out, "0 \"root\" -1"));
		SM_CHECK(eol(w));
	}
	for (size_t i = 0; i < s->joint_count; i++) {
		const smdmx_joint *j = &s->joints[i];
		SM_CHECK(smdw_check_text(w, j->name, "bone name", false));
		if (w->goldsrc && strlen(j->name) > 63)
			return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "bone '%s' is too long for GoldSrc (63 characters at most)", j->name);
		SM_CHECK(put_int(w, (int64_t)i, false));
		SM_CHECK(sm_out_puts(&w->out, " \""));
		SM_CHECK(sm_out_puts(&w->out, j->name));
		SM_CHECK(sm_out_puts(&w->out, "\""));
		SM_CHECK(put_int(w, j->parent == SMDMX_NONE ? -1 : (int64_t)j->parent, true));
		SM_CHECK(eol(w));
	}
	/* a mesh that follows its own node: the root bone studiomdl makes of the node */
	for (size_t k = 0; k < w->own.count; k++) {
		const char *name = w->own.name[k];
		SM_CHECK(smdw_check_text(w, name, "bone name", false));
		if (w->goldsrc && strlen(name) > 63)
			return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "bone '%s' is too long for GoldSrc (63 characters at most)", name);
		SM_CHECK(put_int(w, (int64_t)(s->joint_count + k), false));
		SM_CHECK(sm_out_puts(&w->out, " \""));
		SM_CHECK(sm_out_puts(&w->out, name));
		SM_CHECK(sm_out_puts(&w->out, "\" -1"));
		SM_CHECK(eol(w));
	}
	SM_CHECK(sm_out_puts(&w->out, "end"));
	return eol(w);
}

/* ---- triangles -------------------------------------------------------------------------------- */

/* The text of a mesh's values (positions with their bone, normals, UVs, link lists), copied
 * into the corner lines that name them: corners share deduplicated values, so a value is
 * formatted once and copied where it is named. Kept one of two ways, for each array:
 *
 * - a cache, when the corners name values written shortly before (as meshes mostly do): value
 *   i's text in slot i modulo the slot count, one cache line holding its index, its length
 *   and its text; a value overwrites the slot's last one. Its memory is the slots' (256 KiB
 *   an array at most), not the text of every value (about 60 MB for a million triangles).
 * - a pool, the text of every value in one block, when they name them in an order no cache
 *   keeps (cache_keeps): a cache would format most values again for every corner.
 *
 * Each thread writing a mesh has caches of its own; a pool is made once, on every thread. */
enum { SLOT_TEXT = 59, CACHE_BITS_MAX = 12 };
int sm_smd_value_texts;
typedef struct cache_slot {
	uint32_t value; /* whose text this is; a value of another slot while empty */
	uint8_t len;
	char text[SLOT_TEXT];
} cache_slot;
_Static_assert(sizeof(cache_slot) == 64, "a slot is one cache line");

typedef struct value_texts {
	/* a pool: value i's text from offsets[i] to offsets[i + 1] (count + 1 offsets) */
	char *text;
	size_t len, cap;
	uint32_t *offsets;
	size_t count;
	/* a cache: slots in block, aligned to a cache line */
	cache_slot *slot;
	void *block;
	size_t block_size;
	uint32_t mask;
} value_texts;

typedef enum value_kind { VALUE_POS, VALUE_NRM, VALUE_UV, VALUE_LNK, VALUE_KINDS } value_kind;

typedef struct tri_ctx {
	const struct writer *w; /* the bone of a position (parent_bone) */
	bool links;
	bool has_xform;
	xform x;
	int extra_uvs;
	uint32_t corner_in_tri;
	size_t line_most;         /* the most text of a corner line, from its pieces' most */
	value_texts text[VALUE_KINDS];
} tri_ctx;

/* A corner line's pieces are copied 16 bytes at a time: up to 15 bytes past a piece's end are
 * read (a pool keeps COPY_SLACK bytes after its text, a slot's text is followed by the next
 * slot and the last by COPY_SLACK bytes) and written (the line asks for as much more room),
 * and the next piece writes over them. */
#define COPY_SLACK 16

static inline char *copy_over(char *d, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i += 16) memcpy(d + i, s + i, 16);
	return d + n;
}

/* The written order of a mesh's polygons (by first corner, decision 9): order, or NULL where
 * the face sets' polygons one set after another are in that order already (as in a mesh read
 * from an SMD or made by smd2dmx), and no array of 12 bytes a polygon is made. A walk takes
 * polygon i of it for i that do not decrease. */
typedef struct poly_walk {
	const smdmx_mesh *m;
	const sm_poly_ref *order;
	size_t set, base; /* with no order: the face set of the last polygon, and the polygons before it */
} poly_walk;

static inline poly_walk walk_start(const smdmx_mesh *m, const sm_poly_ref *order)
{
	return (poly_walk){ m, order, 0, 0 };
}

static inline void walk_at(poly_walk *pw, size_t i, uint32_t *set, uint32_t *polygon)
{
	if (pw->order) {
		*set = pw->order[i].face_set;
		*polygon = pw->order[i].polygon;
		return;
	}
	while (i - pw->base >= pw->m->face_sets[pw->set].polygon_count) pw->base += pw->m->face_sets[pw->set++].polygon_count;
	*set = (uint32_t)pw->set;
	*polygon = (uint32_t)(i - pw->base);
}

/* Whether a cache keeps the values that the corners of a mesh name through idx (a corner's
 * value): the corners of up to 8 stretches of 4,096 polygons, evenly spaced in the written
 * order, are run through a cache's slots (their indices alone, each stretch from empty
 * slots); it keeps them when at most half the lookups miss. A mesh written in the order it was
 * read misses about once for every six corners; one in random order, nearly every time. */
static bool cache_keeps(const smdmx_mesh *m, const sm_poly_ref *order, size_t n, const uint32_t *idx, size_t count)
{
	enum { STRETCHES = 8, STRETCH = 4096, SLOTS = 1 << CACHE_BITS_MAX };
	if (sm_smd_value_texts) return sm_smd_value_texts == 1;
	if (count <= SLOTS) return true;
	uint32_t slot[SLOTS];
	uint64_t lookups = 0, misses = 0;
	size_t step = n / STRETCHES > STRETCH ? n / STRETCHES : STRETCH;
	poly_walk pw = walk_start(m, order);
	for (size_t from = 0; from < n; from += step) {
		for (size_t k = 0; k < SLOTS; k++) slot[k] = (uint32_t)k ^ 1;
		for (size_t i = from; i < n && i < from + STRETCH; i++) {
			uint32_t set, p;
			walk_at(&pw, i, &set, &p);
			const smdmx_face_set *fs = &m->face_sets[set];
			for (uint32_t k = fs->offsets[p]; k < fs->offsets[p + 1]; k++) {
				uint32_t v = idx[fs->corners[k]];
				lookups++;
				if (slot[v & (SLOTS - 1)] != v) {
					misses++;
					slot[v & (SLOTS - 1)] = v;
				}
			}
		}
	}
	return misses * 2 <= lookups;
}

static void cache_free(writer *w, value_texts *c)
{
	if (c->block) sm_free(&w->alloc, c->block, c->block_size);
	c->block = NULL;
	c->slot = NULL;
}

/* A cache's slots for count values: as many, rounded up to a power of two, from 2 to
 * 1 << CACHE_BITS_MAX. */
static bool cache_start(writer *w, value_texts *c, size_t count)
{
	size_t slots = 2, most = sm_smd_value_texts == 1 ? 2 : (size_t)1 << CACHE_BITS_MAX;
	while (slots < count && slots < most) slots *= 2;
	c->block_size = slots * sizeof(cache_slot) + 64 + COPY_SLACK;
	c->block = sm_malloc(&w->alloc, c->block_size);
	if (!c->block) return sm_fail_oom(w->error);
	memset(c->block, 0, c->block_size);
	c->slot = (cache_slot *)(void *)((char *)c->block + (64 - (uintptr_t)c->block % 64) % 64);
	c->mask = (uint32_t)(slots - 1);
	/* an empty slot names a value that is never kept there (its last bit differs) */
	for (size_t i = 0; i < slots; i++) c->slot[i].value = (uint32_t)i ^ 1;
	return true;
}

static void caches_free(writer *w, tri_ctx *t)
{
	for (int k = 0; k < VALUE_KINDS; k++) cache_free(w, &t->text[k]);
}

/* A cache for each array the corner lines name that has no pool. */
static bool caches_start(writer *w, const smdmx_mesh *m, tri_ctx *t)
{
	bool ok = (t->text[VALUE_POS].offsets || cache_start(w, &t->text[VALUE_POS], m->position_count)) &&
	          (!m->normal_indices || t->text[VALUE_NRM].offsets || cache_start(w, &t->text[VALUE_NRM], m->normal_count)) &&
	          (!m->uv_set_count || t->text[VALUE_UV].offsets || cache_start(w, &t->text[VALUE_UV], m->uv_sets[0].count)) &&
	          (!t->links || t->text[VALUE_LNK].offsets || cache_start(w, &t->text[VALUE_LNK], m->position_count));
	if (!ok) caches_free(w, t);
	return ok;
}

static void pool_free(writer *w, value_texts *p)
{
	if (p->text) sm_free(&w->alloc, p->text, p->cap);
	if (p->offsets) sm_free(&w->alloc, p->offsets, (p->count + 1) * sizeof(uint32_t));
	p->text = NULL;
	p->offsets = NULL;
	p->len = p->cap = p->count = 0;
}

static bool pool_start(writer *w, value_texts *p, size_t count, size_t guess)
{
	size_t bytes;
	if (!sm_mul(count + 1, sizeof(uint32_t), &bytes) || !sm_mul(count, guess, &p->cap)) return sm_fail_oom(w->error);
	p->cap += 64;
	p->len = 0;
	p->offsets = sm_malloc(&w->alloc, bytes);
	p->text = p->offsets ? sm_malloc(&w->alloc, p->cap) : NULL;
	if (!p->text) {
		if (p->offsets) sm_free(&w->alloc, p->offsets, bytes);
		p->offsets = NULL;
		return sm_fail_oom(w->error);
	}
	p->count = count;
	p->offsets[0] = 0;
	return true;
}

/* Room for n more bytes of a pool's text. */
static bool pool_room(writer *w, value_texts *p, size_t n)
{
	if (p->cap - p->len >= n) return true;
	size_t cap = p->cap * 2 > p->len + n ? p->cap * 2 : p->len + n;
	if (cap > UINT32_MAX) return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "a mesh too large to write");
	char *t = sm_realloc(&w->alloc, p->text, p->cap, cap);
	if (!t) return sm_fail_oom(w->error);
	p->text = t;
	p->cap = cap;
	return true;
}

static uint32_t parent_bone(const writer *w, const smdmx_mesh *m, uint32_t p)
{
	if (m->weight_offsets && m->weight_offsets[p + 1] > m->weight_offsets[p]) {
		const smdmx_weight *ws = m->weights + m->weight_offsets[p];
		size_t n = m->weight_offsets[p + 1] - m->weight_offsets[p], best = 0;
		for (size_t i = 1; i < n; i++)
			if (ws[i].weight > ws[best].weight) best = i;
		return ws[best].joint;
	}
	size_t mi = (size_t)(m - w->scene->meshes);
	if (w->own.count && w->own.of_mesh[mi] != SMDMX_NONE) return (uint32_t)(w->scene->joint_count + w->own.of_mesh[mi]);
	return m->parent_joint != SMDMX_NONE ? m->parent_joint : 0;
}

/* The text of value i of one of a mesh's arrays at o; returns its length. A position's text
 * starts with its bone, the corner line's first field ("bone x y z"). */
static size_t value_text(const smdmx_mesh *m, const tri_ctx *t, value_kind kind, size_t i, char *o)
{
	char *start = o;
	float v[3];
	int n = 3;
	switch (kind) {
	case VALUE_POS:
		o += sm_format_int(parent_bone(t->w, m, (uint32_t)i), o);
		memcpy(v, m->positions[i], sizeof(v));
		if (t->has_xform) smdw_apply(&t->x, m->positions[i], true, v);
		break;
	case VALUE_NRM:
		memcpy(v, m->normals[i], sizeof(v));
		if (t->has_xform) smdw_apply(&t->x, m->normals[i], false, v);
		break;
	case VALUE_UV:
		memcpy(v, m->uv_sets[0].data[i], 2 * sizeof(float));
		n = 2;
		break;
	default: {
		size_t links = m->weight_offsets ? m->weight_offsets[i + 1] - m->weight_offsets[i] : 0;
		/* Weights that sum below 1 are written scaled to 1, as studiomdl scales them: an SMD
		 * reader would give the rest to the parent bone (smdmx_smd_report_losses says so). */
		double sum = sm_weight_sum(m, i), scale = sum > 0 && sum < SM_WEIGHT_SUM_LOW ? 1.0 / sum : 1.0;
		*o++ = ' ';
		o += sm_format_int((int64_t)links, o);
		for (size_t k = 0; k < links; k++) {
			const smdmx_weight *wt = &m->weights[m->weight_offsets[i] + k];
			*o++ = ' ';
			o += sm_format_int(wt->joint, o);
			*o++ = ' ';
			o += sm_format_float(scale == 1.0 ? wt->weight : (float)(wt->weight * scale), o);
		}
		return (size_t)(o - start);
	}
	}
	for (int k = 0; k < n; k++) {
		*o++ = ' ';
		o += sm_format_float(v[k], o);
	}
	return (size_t)(o - start);
}

/* The most text of value i. */
static size_t value_text_max(const smdmx_mesh *m, value_kind kind, size_t i)
{
	if (kind != VALUE_LNK) return 24 + 3 * (SM_FLOAT_MAX + 1);
	size_t links = m->weight_offsets ? m->weight_offsets[i + 1] - m->weight_offsets[i] : 0;
	return 24 + links * (24 + SM_FLOAT_MAX + 1);
}

/* Part of a pool made on a thread of its own: values [from, to) into text of its own, their
 * end offsets (from the part's start) into the pool's offsets. */
typedef struct pool_part {
	const smdmx_mesh *m;
	const tri_ctx *t;
	value_kind kind;
	uint32_t *offsets;
	size_t from, to;
	sm_alloc alloc;
	char *text;
	size_t len, cap;
	bool ok;
} pool_part;

static void pool_part_run(void *arg)
{
	pool_part *p = arg;
	p->ok = false;
	for (size_t i = p->from; i < p->to; i++) {
		size_t most = value_text_max(p->m, p->kind, i);
		if (p->cap - p->len < most) {
			size_t cap = p->cap * 2 > p->len + most ? p->cap * 2 : p->len + most + 4096;
			char *t = sm_realloc(&p->alloc, p->text, p->cap, cap);
			if (!t) return;
			p->text = t;
			p->cap = cap;
		}
		p->len += value_text(p->m, p->t, p->kind, i, p->text + p->len);
		if (p->len > UINT32_MAX) return;
		p->offsets[i + 1] = (uint32_t)p->len;
	}
	p->ok = true;
}

static bool build_pool(writer *w, const smdmx_mesh *m, const tri_ctx *t, value_kind kind, size_t count, size_t guess,
                       value_texts *pool)
{
	SM_CHECK(pool_start(w, pool, count, guess));
	size_t parts = w->threads > SM_TEAM_MAX ? SM_TEAM_MAX : w->threads;
	if (count / sm_write_part_min < parts) parts = count / sm_write_part_min;
	if (parts < 2) {
		for (size_t i = 0; i < count; i++) {
			SM_CHECK(pool_room(w, pool, value_text_max(m, kind, i)));
			pool->len += value_text(m, t, kind, i, pool->text + pool->len);
			if (pool->len > UINT32_MAX) return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "a mesh too large to write");
			pool->offsets[i + 1] = (uint32_t)pool->len;
		}
		return pool_room(w, pool, COPY_SLACK);
	}
	pool_part ps[64];
	for (size_t i = 0; i < parts; i++) {
		ps[i] = (pool_part){ .m = m, .t = t, .kind = kind, .offsets = pool->offsets, .from = count / parts * i,
			             .to = i + 1 < parts ? count / parts * (i + 1) : count };
		sm_alloc_init(&ps[i].alloc, &w->alloc.hooks);
	}
	sm_run_all(&w->alloc.hooks, pool_part_run, ps, sizeof(*ps), parts);
	bool ok = true;
	for (size_t i = 0; i < parts; i++) ok = ok && ps[i].ok;
	/* The parts' text in order, their offsets moved by what comes before. */
	for (size_t i = 0; ok && i < parts; i++) {
		size_t base = pool->len;
		ok = pool_room(w, pool, ps[i].len);
		if (!ok) break;
		if (ps[i].len) memcpy(pool->text + base, ps[i].text, ps[i].len);
		pool->len += ps[i].len;
		if (pool->len > UINT32_MAX) ok = sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "a mesh too large to write");
		for (size_t k = ps[i].from; ok && base && k < ps[i].to; k++) pool->offsets[k + 1] += (uint32_t)base;
	}
	ok = ok && pool_room(w, pool, COPY_SLACK);
	if (!ok && !w->error->code) sm_fail_oom(w->error);
	for (size_t i = 0; i < parts; i++)
		if (ps[i].text) sm_free(&ps[i].alloc, ps[i].text, ps[i].cap);
	return ok;
}

/* A pool for each array the corner lines name in an order no cache keeps (cache_keeps). */
static bool build_pools(writer *w, const smdmx_mesh *m, const sm_poly_ref *order, size_t n, tri_ctx *t)
{
	if (!cache_keeps(m, order, n, m->position_indices, m->position_count)) {
		SM_CHECK(build_pool(w, m, t, VALUE_POS, m->position_count, 32, &t->text[VALUE_POS]));
		if (t->links) SM_CHECK(build_pool(w, m, t, VALUE_LNK, m->position_count, 24, &t->text[VALUE_LNK]));
	}
	if (m->normal_indices && !cache_keeps(m, order, n, m->normal_indices, m->normal_count))
		SM_CHECK(build_pool(w, m, t, VALUE_NRM, m->normal_count, 32, &t->text[VALUE_NRM]));
	if (m->uv_set_count && !cache_keeps(m, order, n, m->uv_sets[0].indices, m->uv_sets[0].count))
		SM_CHECK(build_pool(w, m, t, VALUE_UV, m->uv_sets[0].count, 20, &t->text[VALUE_UV]));
	return true;
}

static void pools_free(writer *w, tri_ctx *t)
{
	for (int k = 0; k < VALUE_KINDS; k++) pool_free(w, &t->text[k]);
}

/* Value i's text at o (which has room for value_text_max and COPY_SLACK more), copied from
 * its pool or its slot, or formatted and kept there; returns its end. */
static inline char *put_value(const smdmx_mesh *m, tri_ctx *t, value_kind kind, uint32_t i, char *o)
{
	value_texts *c = &t->text[kind];
	if (c->offsets) return copy_over(o, c->text + c->offsets[i], c->offsets[i + 1] - c->offsets[i]);
	cache_slot *s = &c->slot[i & c->mask];
	if (SM_LIKELY(s->value == i)) return copy_over(o, s->text, s->len);
	size_t n = value_text(m, t, kind, i, o);
	if (n <= SLOT_TEXT) {
		s->value = i;
		s->len = (uint8_t)n;
		memcpy(s->text, o, n);
	}
	return o + n;
}

/* Value i's text through the writer's buffer; one longer than the buffer (a list of some
 * thousand links) is formatted apart. */
static bool put_piece(writer *w, const smdmx_mesh *m, tri_ctx *t, value_kind kind, uint32_t i)
{
	size_t most = value_text_max(m, kind, i) + COPY_SLACK;
	if (most <= SM_OUT_CAP) {
		SM_CHECK(sm_out_room(&w->out, most));
		w->out.len = (size_t)(put_value(m, t, kind, i, w->out.buf + w->out.len) - w->out.buf);
		return true;
	}
	char *text = sm_malloc(&w->alloc, most);
	if (!text) return sm_fail_oom(w->error);
	bool ok = sm_out_put(&w->out, text, value_text(m, t, kind, i, text));
	sm_free(&w->alloc, text, most);
	return ok;
}

/* A missing normal is three zeros, a missing UV two: the first NORMAL_ZEROS_LEN or
 * UV_ZEROS_LEN characters of ZEROS, which has COPY_SLACK bytes past them for copy_over. */
#define ZEROS_TEXT " 0.000000 0.000000 0.000000"
static const char ZEROS[48] = ZEROS_TEXT;
enum { ZERO_LEN = 9, NORMAL_ZEROS_LEN = 3 * ZERO_LEN, UV_ZEROS_LEN = 2 * ZERO_LEN };
_Static_assert(sizeof(ZEROS_TEXT) - 1 == NORMAL_ZEROS_LEN && NORMAL_ZEROS_LEN + COPY_SLACK <= sizeof(ZEROS),
               "ZEROS holds three zeros and the copy's slack");

/* The most text of a corner line of m (its values', links', line end and slack), once a mesh. */
static size_t line_most(const smdmx_mesh *m, bool links)
{
	size_t most = 0;
	for (size_t p = 0; links && p < m->position_count; p++)
		if (value_text_max(m, VALUE_LNK, p) > most) most = value_text_max(m, VALUE_LNK, p);
	return 3 * value_text_max(m, VALUE_POS, 0) + most + 2 + COPY_SLACK;
}

static bool emit_triangle_corner(writer *w, const smdmx_mesh *m, uint32_t c, size_t face_set, void *vctx)
{
	tri_ctx *t = vctx;
	const smdmx_scene *s = w->scene;
	if (t->corner_in_tri == 0) {
		const char *mat = s->materials[m->face_sets[face_set].material].name;
		if (w->goldsrc) {
			char tex[SM_GOLDSRC_NAME_MAX];
			SM_CHECK(sm_out_put(&w->out, tex, sm_goldsrc_texture(mat, tex)));
		} else {
			SM_CHECK(sm_out_put(&w->out, mat, sm_material_line_len(mat)));
		}
		SM_CHECK(eol(w));
	}
	t->corner_in_tri = (t->corner_in_tri + 1) % 3;
	uint32_t p = m->position_indices[c];
	if (!t->extra_uvs) {
		/* the line from its pieces in one go; a missing normal or UV is zeros */
		if (t->line_most <= SM_OUT_CAP) {
			SM_CHECK(sm_out_room(&w->out, t->line_most));
			char *o = w->out.buf + w->out.len;
			o = put_value(m, t, VALUE_POS, p, o);
			o = m->normal_indices ? put_value(m, t, VALUE_NRM, m->normal_indices[c], o)
			                      : copy_over(o, ZEROS, NORMAL_ZEROS_LEN);
			o = m->uv_set_count ? put_value(m, t, VALUE_UV, m->uv_sets[0].indices[c], o)
			                    : copy_over(o, ZEROS, UV_ZEROS_LEN);
			if (t->links) o = put_value(m, t, VALUE_LNK, p, o);
			if (w->eol_len == 2) *o++ = '\r';
			*o++ = '\n';
			w->out.len = (size_t)(o - w->out.buf);
			return true;
		}
	}
	SM_CHECK(put_piece(w, m, t, VALUE_POS, p));
	if (m->normal_indices) SM_CHECK(put_piece(w, m, t, VALUE_NRM, m->normal_indices[c]));
	else SM_CHECK(sm_out_put(&w->out, ZEROS, NORMAL_ZEROS_LEN));
	if (m->uv_set_count) SM_CHECK(put_piece(w, m, t, VALUE_UV, m->uv_sets[0].indices[c]));
	else SM_CHECK(sm_out_put(&w->out, ZEROS, UV_ZEROS_LEN));
	if (t->links) SM_CHECK(put_piece(w, m, t, VALUE_LNK, p));
	if (t->extra_uvs) {
		SM_CHECK(put_int(w, t->extra_uvs, true));
		for (int k = 1; k <= t->extra_uvs; k++) {
			const smdmx_uv_set *uv = &m->uv_sets[k];
			SM_CHECK(put_float(w, uv->data[uv->indices[c]][0]));
			SM_CHECK(put_float(w, uv->data[uv->indices[c]][1]));
		}
	}
	return eol(w);
}

size_t sm_goldsrc_texture(const char *mat, char out[SM_GOLDSRC_NAME_MAX])
{
	static const char *const images[] = { "bmp", "tga", "png", "jpg", "jpeg", "dds", "vtf", "psd", "tif", "tiff", "gif" };
	const char *dot = strrchr(mat, '.'), *slash = strrchr(mat, '/'), *bs = strrchr(mat, '\\');
	if (bs && (!slash || bs > slash)) slash = bs;
	size_t stem = strlen(mat);
	if (dot && (!slash || dot > slash))
		for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++)
			if (!strcasecmp(dot + 1, images[i])) stem = (size_t)(dot - mat);
	int n = snprintf(out, SM_GOLDSRC_NAME_MAX, "%.*s.bmp", (int)stem, mat);
	return n < 0 ? 0 : (size_t)n < SM_GOLDSRC_NAME_MAX ? (size_t)n : SM_GOLDSRC_NAME_MAX - 1;
}

/* Links are written unless the scene came from an SMD without them and every position has
 * exactly one link of weight 1 (then the 9-field, GoldSrc-compatible line says the same). */
static bool mesh_needs_links(const smdmx_scene *s, const smdmx_mesh *m, bool goldsrc)
{
	if (goldsrc) return false;
	if (s->source.format != SMDMX_SOURCE_SMD || s->source.smd_weight_links) return true;
	if (!m->weight_offsets) return false;
	for (size_t p = 0; p < m->position_count; p++) {
		size_t n = m->weight_offsets[p + 1] - m->weight_offsets[p];
		if (n != 1 || m->weights[m->weight_offsets[p]].weight != 1.0f) return true;
	}
	return false;
}

/* Triangles of polygons order[from, to) (fanned from their first corner). */
static bool emit_polygons(writer *w, const smdmx_mesh *m, const sm_poly_ref *order, size_t from, size_t to, tri_ctx *t)
{
	poly_walk pw = walk_start(m, order);
	for (size_t i = from; i < to; i++) {
		uint32_t set, p;
		walk_at(&pw, i, &set, &p);
		const smdmx_face_set *fs = &m->face_sets[set];
		const uint32_t *c = fs->corners + fs->offsets[p];
		uint32_t nc = fs->offsets[p + 1] - fs->offsets[p];
		for (uint32_t k = 1; k + 1 < nc; k++) {
			SM_CHECK(emit_triangle_corner(w, m, c[0], set, t));
			SM_CHECK(emit_triangle_corner(w, m, c[k], set, t));
			SM_CHECK(emit_triangle_corner(w, m, c[k + 1], set, t));
		}
	}
	return true;
}

/* A large mesh on several threads: each chunk of sm_write_part_min polygons is written into
 * memory of its own through a writer of its own (a slot), and the chunks are written in
 * order: the bytes of one thread. */

typedef struct emit_part {
	writer *w;              /* its own, writing into text */
	const smdmx_mesh *m;
	const sm_poly_ref *order;
	tri_ctx t;
	sm_alloc alloc;
	char *text;
	size_t len, cap;
	bool ok;
} emit_part;

static bool text_sink(void *user, const void *data, size_t size)
{
	emit_part *p = user;
	if (p->cap - p->len < size) {
		size_t cap = p->cap * 2 > p->len + size ? p->cap * 2 : p->len + size;
		char *t = sm_realloc(&p->alloc, p->text, p->cap, cap);
		if (!t) return false;
		p->text = t;
		p->cap = cap;
	}
	memcpy(p->text + p->len, data, size);
	p->len += size;
	return true;
}

static void emit_part_run(void *arg, size_t from, size_t to)
{
	emit_part *p = arg;
	p->len = 0;
	p->t.corner_in_tri = 0;
	p->ok = emit_polygons(p->w, p->m, p->order, from, to, &p->t) && sm_out_flush(&p->w->out);
}

static bool emit_part_put(void *ctx, void *arg)
{
	writer *w = ctx;
	emit_part *p = arg;
	if (p->ok) return sm_out_put_direct(&w->out, p->text, p->len);
	if (!w->error->code) *w->error = p->w->error_store;
	if (!w->error->code) sm_fail_oom(w->error);
	return false;
}

/* The chunks are made on the writer's threads, two slots per thread, and written in order
 * by this one meanwhile (sm_pipeline). */
static bool emit_parallel(writer *w, const smdmx_mesh *m, const sm_poly_ref *order, size_t n, const tri_ctx *t)
{
	emit_part ps[SM_TEAM_MAX];
	size_t count = sm_pipeline_slots(w->threads), made = 0;
	bool ok = true;
	for (; made < count; made++) {
		emit_part *p = &ps[made];
		memset(p, 0, sizeof(*p));
		sm_alloc_init(&p->alloc, &w->alloc.hooks);
		p->w = sm_malloc(&w->alloc, sizeof(writer));
		if (!p->w) {
			ok = sm_fail_oom(w->error);
			break;
		}
		memcpy((char *)p->w + sizeof(sm_out), (char *)w + sizeof(sm_out), sizeof(writer) - sizeof(sm_out));
		p->w->out.write = text_sink;
		p->w->out.user = p;
		p->w->out.error = &p->w->error_store;
		p->w->error = &p->w->error_store;
		memset(&p->w->error_store, 0, sizeof(p->w->error_store));
		p->w->out.len = 0;
		p->m = m;
		p->order = order;
		p->t = *t;
		if (!caches_start(w, m, &p->t)) {
			sm_free(&w->alloc, p->w, sizeof(writer));
			ok = false;
			break;
		}
	}
	if (ok)
		ok = sm_pipeline(&w->alloc.hooks, ps, sizeof(*ps), made, n, sm_write_part_min, w->threads, emit_part_run, emit_part_put, w);
	for (size_t i = 0; i < made; i++) {
		if (ps[i].text) sm_free(&ps[i].alloc, ps[i].text, ps[i].cap);
		caches_free(w, &ps[i].t);
		sm_free(&w->alloc, ps[i].w, sizeof(writer));
	}
	return ok;
}

static bool write_triangles(writer *w, int extra_uvs)
{
	const smdmx_scene *s = w->scene;
	for (size_t i = 0; i < s->material_count; i++) {
		SM_CHECK(smdw_check_text(w, s->materials[i].name, "material", true));
		char tex[SM_GOLDSRC_NAME_MAX];
		if (w->goldsrc && sm_goldsrc_texture(s->materials[i].name, tex) > 63)
			return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "material '%s' is too long for GoldSrc (63 characters at most)",
			               s->materials[i].name);
		const char *n = s->materials[i].name;
		/* A material line is the name but for white space at its end (written without it, a
		 * loss said by smdmx_smd_report_losses); "end" closes the block and "//" starts a
		 * comment line wherever the line's first word is; a blank line makes studiomdl skip
		 * the triangle. */
		const char *word = n + strspn(n, " \t\v\f");
		bool end = strncasecmp(word, "end", 3) == 0 && (!word[3] || strchr(" \t\v\f", word[3]));
		if (!sm_material_line_len(n) || end || strncmp(word, "//", 2) == 0)
			return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "material '%s' cannot be written to SMD", n);
	}
	SM_CHECK(sm_out_puts(&w->out, "triangles"));
	SM_CHECK(eol(w));
	for (size_t i = 0; i < s->mesh_count; i++) {
		const smdmx_mesh *m = &s->meshes[i];
		tri_ctx t;
		memset(&t, 0, sizeof(t));
		t.w = w;
		t.links = mesh_needs_links(s, m, w->goldsrc);
		t.has_xform = smdw_mesh_xform(s, m, &t.x);
		t.line_most = line_most(m, t.links);
		t.extra_uvs = m->uv_set_count > 1 ? (int)m->uv_set_count - 1 : 0;
		if (t.extra_uvs > extra_uvs) t.extra_uvs = extra_uvs;
		if (!m->face_set_count) continue;
		sm_poly_ref *order = NULL;
		size_t n = 0;
		for (size_t f = 0; f < m->face_set_count; f++) n += m->face_sets[f].polygon_count;
		if (!sm_polygons_in_order(m) && !sm_polygon_order(&w->alloc, m, &order, &n)) return sm_fail_oom(w->error);
		bool ok = build_pools(w, m, order, n, &t);
		if (ok && w->threads > 1 && m->corner_count >= 6 * (uint64_t)sm_write_part_min) {
			ok = emit_parallel(w, m, order, n, &t);
		} else if (ok) {
			ok = caches_start(w, m, &t) && emit_polygons(w, m, order, 0, n, &t);
			caches_free(w, &t);
		}
		pools_free(w, &t);
		if (order) sm_free(&w->alloc, order, n * sizeof(sm_poly_ref));
		SM_CHECK(ok);
	}
	SM_CHECK(sm_out_puts(&w->out, "end"));
	return eol(w);
}

/* ---- entry points ---------------------------------------------------------------------------- */

bool smdmx_smd_write(const smdmx_scene *scene, smdmx_write_fn write, void *user, const smdmx_smd_write_options *options,
                     smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!write) return sm_fail_null(error, __func__, "write");
	return smdmx_scene_validate(scene, error) && sm_smd_write_valid(scene, write, user, options, error);
}

bool sm_smd_write_valid(const smdmx_scene *scene, smdmx_write_fn write, void *user, const smdmx_smd_write_options *options,
                        smdmx_error *error)
{
	SM_ERROR_START(error);
	smdmx_smd_write_options opts;
	memset(&opts, 0, sizeof(opts));
	if (options) opts = *options;
	/* threads under a memory_limit or fail_after: every allocation of the write (the writer
	 * too) counted together */
	sm_budget budget;
	if (opts.threads > 1 && (opts.allocator.memory_limit || opts.allocator.fail_after))
		opts.allocator = sm_budget_start(&budget, &opts.allocator);
	sm_alloc a;
	sm_alloc_init(&a, &opts.allocator);
	writer *w = sm_malloc(&a, sizeof(writer));
	if (!w) return sm_fail_oom(error);
	w->alloc = a;
	w->out.write = write;
	w->out.user = user;
	w->out.error = error;
	w->out.len = 0;
	w->eol = opts.lf_line_ends ? "\n" : "\r\n";
	w->eol_len = opts.lf_line_ends ? 1 : 2;
	w->error = error;
	w->limits = sm_limits_resolve(&opts.limits);
	w->scene = scene;
	w->implicit_root = scene->joint_count == 0;
	w->goldsrc = opts.goldsrc;
	w->threads = opts.threads > 1 ? opts.threads : 1;
	if (!sm_own_bones_find(scene, &opts.allocator, &w->own)) {
		sm_free(&a, w, sizeof(writer));
		return sm_fail_oom(error);
	}

	smdmx_smd_write_kind kind = opts.kind;
	bool has_faces = false;
	size_t max_uv = 0;
	for (size_t i = 0; i < scene->mesh_count; i++) {
		if (scene->meshes[i].face_set_count) has_faces = true;
		if (scene->meshes[i].uv_set_count > max_uv) max_uv = scene->meshes[i].uv_set_count;
	}
	if (kind == SMDMX_SMD_WRITE_AUTO) {
		if (scene->source.format == SMDMX_SOURCE_VTA) kind = SMDMX_SMD_WRITE_VTA;
		else kind = has_faces ? SMDMX_SMD_WRITE_REFERENCE : SMDMX_SMD_WRITE_ANIMATION;
	}
	int extra_uvs = max_uv > 1 && !opts.goldsrc ? (int)max_uv - 1 : 0; /* GoldSrc reads version 1 only */
	bool ok = true;
	if (opts.goldsrc && kind == SMDMX_SMD_WRITE_VTA)
		ok = sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "GoldSrc has no flex: there is no GoldSrc VTA");
	if (kind == SMDMX_SMD_WRITE_REFERENCE && extra_uvs > 8)
		ok = sm_fail(error, SMDMX_ERROR_LIMIT, 0, 0, "%d extra UV sets; SMD version 3 holds at most 8", extra_uvs);
	if (ok && opts.clip && opts.clip >= scene->clip_count)
		ok = sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "clip %zu requested; the scene has %zu", opts.clip, scene->clip_count);
	int version = kind == SMDMX_SMD_WRITE_REFERENCE && extra_uvs ? 3 : 1;
	ok = ok && write_header_nodes(w, version);
	if (ok && kind == SMDMX_SMD_WRITE_VTA) {
		ok = smdw_write_vta(w);
	} else if (ok) {
		ok = sm_out_puts(&w->out, "skeleton") && eol(w);
		if (ok && scene->clip_count && kind != SMDMX_SMD_WRITE_REFERENCE) ok = smdw_write_clip_frames(w, &scene->clips[opts.clip]);
		else if (ok && kind == SMDMX_SMD_WRITE_REFERENCE && sm_smd_reference_clip(scene, opts.reference_clip))
			ok = smdw_write_clip_frames(w, &scene->clips[opts.clip]);
		else if (ok) ok = smdw_write_bind_frame(w);
		ok = ok && sm_out_puts(&w->out, "end") && eol(w);
		if (ok && kind == SMDMX_SMD_WRITE_REFERENCE) ok = write_triangles(w, extra_uvs);
	}
	ok = ok && sm_out_flush(&w->out);
	sm_own_bones_free(&w->own);
	sm_free(&a, w, sizeof(writer));
	return ok;
}

typedef struct smd_job {
	const smdmx_scene *scene;
	const smdmx_smd_write_options *options;
} smd_job;

static bool produce_smd(void *ctx, smdmx_write_fn write, void *user, smdmx_error *error)
{
	const smd_job *j = ctx;
	return smdmx_smd_write(j->scene, write, user, j->options, error);
}

bool smdmx_smd_write_file(const smdmx_scene *scene, const char *path, const smdmx_smd_write_options *options,
                          smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!scene || !path) return sm_fail_null(error, __func__, !scene ? "scene" : "path");
	smd_job j = { scene, options };
	return sm_write_file_atomic(path, produce_smd, &j, error);
}
