/* SMD and VTA writer (decision 12): CRLF by default, spaces, six decimals, version 1
 * (version 3 only with extra UV sets), one newline at the end, no comments but the
 * "# name" after a VTA time line. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "support/num.h"
#include "platform/os.h"
#include "scene/scene_util.h"
#include "smdmx/math.h"
#include "smdmx/smd.h"

typedef struct writer {
	sm_out out;          /* first: the writer struct is mostly this buffer */
	const char *eol;
	size_t eol_len;
	smdmx_error *error;
	sm_alloc alloc;
	smdmx_limits limits;
	const smdmx_scene *scene;
	bool implicit_root; /* the scene has no joints: write one "root" bone */
	bool goldsrc;
	unsigned threads;   /* for the triangles of large meshes */
	smdmx_error error_store; /* a part's own error (emit_parallel) */
} writer;

static bool flush(writer *w)
{
	return sm_out_flush(&w->out);
}

static inline bool room(writer *w, size_t n)
{
	return sm_out_room(&w->out, n);
}

static bool put(writer *w, const char *s, size_t n)
{
	return sm_out_put(&w->out, s, n);
}

static bool puts_(writer *w, const char *s)
{
	return put(w, s, strlen(s));
}

static inline bool eol(writer *w)
{
	return put(w, w->eol, w->eol_len);
}

/* " <value>" */
static inline bool put_float(writer *w, float v)
{
	SM_CHECK(room(w, SM_FLOAT_MAX + 1));
	w->out.buf[w->out.len++] = ' ';
	w->out.len += sm_format_float(v, w->out.buf + w->out.len);
	return true;
}

/* " <angle>": six decimals (decision 12). */
static inline bool put_angle(writer *w, double v)
{
	SM_CHECK(room(w, SM_FIXED6_MAX + 1));
	w->out.buf[w->out.len++] = ' ';
	w->out.len += sm_format_fixed6_double(v, w->out.buf + w->out.len);
	return true;
}

static inline bool put_int(writer *w, int64_t v, bool space)
{
	SM_CHECK(room(w, 24));
	if (space) w->out.buf[w->out.len++] = ' ';
	w->out.len += sm_format_int(v, w->out.buf + w->out.len);
	return true;
}

static bool check_text(writer *w, const char *s, const char *what, bool allow_quote)
{
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r' || (*p == '"' && !allow_quote))
			return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0,
			               "%s '%s' holds a character SMD cannot write", what, s);
	}
	if (!*s) return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "empty %s name", what);
	return true;
}

/* ---- transforms ------------------------------------------------------------------------ */

typedef struct xform {
	double r[3][3];
	double t[3];
} xform;

static void xform_of(const smdmx_transform *tr, xform *x)
{
	double q[4] = { tr->orientation[0], tr->orientation[1], tr->orientation[2], tr->orientation[3] };
	smdmx_quat_to_matrix(q, x->r);
	for (int i = 0; i < 3; i++) x->t[i] = tr->position[i];
}

/* out = a * b */
static void xform_mul(const xform *a, const xform *b, xform *out)
{
	xform o;
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) o.r[i][j] = a->r[i][0] * b->r[0][j] + a->r[i][1] * b->r[1][j] + a->r[i][2] * b->r[2][j];
		o.t[i] = a->r[i][0] * b->t[0] + a->r[i][1] * b->t[1] + a->r[i][2] * b->t[2] + a->t[i];
	}
	*out = o;
}

static bool is_identity(const smdmx_transform *t)
{
	return t->position[0] == 0 && t->position[1] == 0 && t->position[2] == 0 && t->orientation[0] == 0 &&
	       t->orientation[1] == 0 && t->orientation[2] == 0 && t->orientation[3] == 1;
}

/* Model-space placement of a mesh (decision 8); false when it is the identity. */
static bool mesh_xform(const smdmx_scene *s, const smdmx_mesh *m, xform *out)
{
	if (m->parent_joint == SMDMX_NONE && is_identity(&m->transform)) return false;
	xform_of(&m->transform, out);
	for (uint32_t j = m->parent_joint; j != SMDMX_NONE; j = s->joints[j].parent) {
		xform p;
		xform_of(&s->joints[j].bind, &p);
		xform_mul(&p, out, out);
	}
	return true;
}

static void apply(const xform *x, const float *v, bool translate, float *out)
{
	for (int i = 0; i < 3; i++)
		out[i] = (float)(x->r[i][0] * v[0] + x->r[i][1] * v[1] + x->r[i][2] * v[2] + (translate ? x->t[i] : 0));
}

/* ---- header, nodes ----------------------------------------------------------------------- */

static bool write_header_nodes(writer *w, int version)
{
	const smdmx_scene *s = w->scene;
	SM_CHECK(puts_(w, "version"));
	SM_CHECK(put_int(w, version, true));
	SM_CHECK(eol(w));
	SM_CHECK(puts_(w, "nodes"));
	SM_CHECK(eol(w));
	if (w->implicit_root) {
		SM_CHECK(puts_(w, "0 \"root\" -1"));
		SM_CHECK(eol(w));
	}
	for (size_t i = 0; i < s->joint_count; i++) {
		const smdmx_joint *j = &s->joints[i];
		SM_CHECK(check_text(w, j->name, "bone name", false));
		if (w->goldsrc && strlen(j->name) > 63)
			return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "bone '%s' is too long for GoldSrc (63 characters at most)", j->name);
		SM_CHECK(put_int(w, (int64_t)i, false));
		SM_CHECK(puts_(w, " \""));
		SM_CHECK(puts_(w, j->name));
		SM_CHECK(puts_(w, "\""));
		SM_CHECK(put_int(w, j->parent == SMDMX_NONE ? -1 : (int64_t)j->parent, true));
		SM_CHECK(eol(w));
	}
	SM_CHECK(puts_(w, "end"));
	return eol(w);
}

/* ---- skeleton -------------------------------------------------------------------------------- */

static bool write_bone(writer *w, size_t id, const float *pos, const float *quat, double *euler, bool have_prev)
{
	double q[4] = { quat[0], quat[1], quat[2], quat[3] }, e[3];
	smdmx_quat_to_euler(q, have_prev ? euler : NULL, e);
	memcpy(euler, e, sizeof(e));
	SM_CHECK(put_int(w, (int64_t)id, false));
	for (int i = 0; i < 3; i++) SM_CHECK(put_float(w, pos[i]));
	for (int i = 0; i < 3; i++) SM_CHECK(put_angle(w, e[i]));
	return eol(w);
}

static bool write_bind_frame(writer *w)
{
	const smdmx_scene *s = w->scene;
	SM_CHECK(puts_(w, "time 0"));
	SM_CHECK(eol(w));
	if (w->implicit_root) {
		SM_CHECK(puts_(w, "0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000"));
		SM_CHECK(eol(w));
	}
	for (size_t i = 0; i < s->joint_count; i++) {
		double e[3];
		SM_CHECK(write_bone(w, i, s->joints[i].bind.position, s->joints[i].bind.orientation, e, false));
	}
	return true;
}

static int64_t tick_to_frame(int64_t t, double rate)
{
	return (int64_t)llround((double)t * rate / 10000.0);
}

bool sm_smd_reference_clip(const smdmx_scene *s, bool any)
{
	if (s->clip_count == 0) return false;
	if (s->source.format == SMDMX_SOURCE_SMD && s->source.smd_kind == SMDMX_SMD_REFERENCE) return true;
	if (!any || s->clip_count != 1) return false;
	const smdmx_clip *c = &s->clips[0];
	int64_t first = tick_to_frame(c->start, c->frame_rate);
	int32_t t = (int32_t)floor((double)first * 10000.0 / c->frame_rate);
	for (size_t i = 0; i < c->channel_count; i++) {
		const smdmx_joint *jt = &s->joints[c->channels[i].joint];
		float pos[3], q[4];
		sm_sample_position(&c->channels[i], t, jt->bind.position, pos);
		sm_sample_orientation(&c->channels[i], t, jt->bind.orientation, q);
		const float *b = jt->bind.orientation;
		bool same_q = (q[0] == b[0] && q[1] == b[1] && q[2] == b[2] && q[3] == b[3]) ||
		              (q[0] == -b[0] && q[1] == -b[1] && q[2] == -b[2] && q[3] == -b[3]);
		if (memcmp(pos, jt->bind.position, sizeof(pos)) || !same_q) return false;
	}
	return true;
}

static bool write_clip_frames(writer *w, const smdmx_clip *c)
{
	const smdmx_scene *s = w->scene;
	int64_t first = tick_to_frame(c->start, c->frame_rate);
	int64_t last = tick_to_frame((int64_t)c->start + c->duration, c->frame_rate);
	if (last < first || (uint64_t)(last - first) >= w->limits.max_frames)
		return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "clip '%s' spans %lld frames; the limit is %zu", c->name,
		               (long long)(last - first + 1), w->limits.max_frames);
	size_t nj = s->joint_count, bytes;
	/* Sparse keys over many bones can stand for far more text than the input holds: frames
	 * times bones is bounded as when reading. */
	if ((uint64_t)(last - first + 1) * (nj ? nj : 1) > w->limits.max_keys)
		return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "clip '%s': %lld frames of %zu bones; the limit is %zu bone poses",
		               c->name, (long long)(last - first + 1), nj, w->limits.max_keys);
	/* Per joint: its channel (or none), and the previous frame's angles for continuity. */
	if (!sm_mul(nj ? nj : 1, sizeof(const smdmx_channel *) + 3 * sizeof(double), &bytes)) return sm_fail_oom(w->error);
	void *mem = sm_malloc(&w->alloc, bytes);
	if (!mem) return sm_fail_oom(w->error);
	double(*eulers)[3] = mem;
	const smdmx_channel **chan = (const smdmx_channel **)(eulers + nj);
	for (size_t j = 0; j < nj; j++) chan[j] = NULL;
	for (size_t i = 0; i < c->channel_count; i++) chan[c->channels[i].joint] = &c->channels[i];
	bool ok = true;
	for (int64_t f = first; ok && f <= last; f++) {
		int32_t t = (int32_t)floor((double)f * 10000.0 / c->frame_rate);
		ok = puts_(w, "time") && put_int(w, f, true) && eol(w);
		if (ok && w->implicit_root) ok = puts_(w, "0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000") && eol(w);
		for (size_t j = 0; ok && j < nj; j++) {
			float pos[3], q[4];
			const smdmx_joint *jt = &s->joints[j];
			if (chan[j]) {
				sm_sample_position(chan[j], t, jt->bind.position, pos);
				sm_sample_orientation(chan[j], t, jt->bind.orientation, q);
			} else {
				memcpy(pos, jt->bind.position, sizeof(pos));
				memcpy(q, jt->bind.orientation, sizeof(q));
			}
			ok = write_bone(w, j, pos, q, eulers[j], f != first);
		}
	}
	sm_free(&w->alloc, mem, bytes);
	return ok;
}

/* ---- triangles -------------------------------------------------------------------------------- */

/* Calls emit for every triangle corner in written order: polygons by first corner, each
 * fanned from its first corner (decision 9). For a mesh without faces, every corner. */
typedef bool (*corner_fn)(writer *w, const smdmx_mesh *m, uint32_t corner, size_t polygon, void *ctx);

static bool for_each_written_corner(writer *w, const smdmx_mesh *m, corner_fn emit, void *ctx)
{
	if (m->face_set_count == 0) {
		for (size_t k = 0; k < m->corner_count; k++) SM_CHECK(emit(w, m, (uint32_t)k, SIZE_MAX, ctx));
		return true;
	}
	sm_poly_ref *order;
	size_t n;
	if (!sm_polygon_order(&w->alloc, m, &order, &n)) return sm_fail_oom(w->error);
	bool ok = true;
	for (size_t i = 0; ok && i < n; i++) {
		const smdmx_face_set *fs = &m->face_sets[order[i].face_set];
		const uint32_t *c = fs->corners + fs->offsets[order[i].polygon];
		uint32_t nc = fs->offsets[order[i].polygon + 1] - fs->offsets[order[i].polygon];
		for (uint32_t k = 1; ok && k + 1 < nc; k++) {
			ok = emit(w, m, c[0], order[i].face_set, ctx) && emit(w, m, c[k], order[i].face_set, ctx) &&
			     emit(w, m, c[k + 1], order[i].face_set, ctx);
		}
	}
	sm_free(&w->alloc, order, n * sizeof(sm_poly_ref));
	return ok;
}

/* Pre-formatted text of each value of an array: corners share deduplicated values, so each
 * is formatted once per mesh and copied per corner. */
typedef struct text_pool {
	char *text;
	size_t len, cap;
	uint32_t *offsets;   /* count + 1 */
	size_t count;
} text_pool;

typedef struct tri_ctx {
	bool links;
	bool has_xform;
	xform x;
	int extra_uvs;
	uint32_t corner_in_tri;
	text_pool pos, nrm, uv, lnk;
} tri_ctx;

static void pool_free(writer *w, text_pool *p)
{
	if (p->text) sm_free(&w->alloc, p->text, p->cap);
	if (p->offsets) sm_free(&w->alloc, p->offsets, (p->count + 1) * sizeof(uint32_t));
	memset(p, 0, sizeof(*p));
}

static bool pool_start(writer *w, text_pool *p, size_t count, size_t guess)
{
	memset(p, 0, sizeof(*p));
	size_t bytes;
	if (!sm_mul(count + 1, sizeof(uint32_t), &bytes) || !sm_mul(count, guess, &p->cap)) return sm_fail_oom(w->error);
	p->cap += 64;
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

/* Room for n more bytes of text. */
static bool pool_room(writer *w, text_pool *p, size_t n)
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

static inline bool put_pooled(writer *w, const text_pool *p, uint32_t i)
{
	return put(w, p->text + p->offsets[i], p->offsets[i + 1] - p->offsets[i]);
}

/* The text of value i of one of a mesh's pools at o; returns its length. */
typedef enum pool_kind { POOL_POS, POOL_NRM, POOL_UV, POOL_LNK } pool_kind;

static size_t pool_value(const smdmx_mesh *m, const tri_ctx *t, pool_kind kind, size_t i, char *o)
{
	char *start = o;
	float v[3];
	int n = 3;
	switch (kind) {
	case POOL_POS:
		memcpy(v, m->positions[i], sizeof(v));
		if (t->has_xform) apply(&t->x, m->positions[i], true, v);
		break;
	case POOL_NRM:
		memcpy(v, m->normals[i], sizeof(v));
		if (t->has_xform) apply(&t->x, m->normals[i], false, v);
		break;
	case POOL_UV:
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
static size_t pool_value_max(const smdmx_mesh *m, pool_kind kind, size_t i)
{
	if (kind != POOL_LNK) return 3 * (SM_FLOAT_MAX + 1);
	size_t links = m->weight_offsets ? m->weight_offsets[i + 1] - m->weight_offsets[i] : 0;
	return 24 + links * (24 + SM_FLOAT_MAX + 1);
}

/* Part of a pool made on a thread of its own: values [from, to) into text of its own, their
 * end offsets (from the part's start) into the pool's offsets. */
typedef struct pool_part {
	const smdmx_mesh *m;
	const tri_ctx *t;
	pool_kind kind;
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
		size_t most = pool_value_max(p->m, p->kind, i);
		if (p->cap - p->len < most) {
			size_t cap = p->cap * 2 > p->len + most ? p->cap * 2 : p->len + most + 4096;
			char *t = sm_realloc(&p->alloc, p->text, p->cap, cap);
			if (!t) return;
			p->text = t;
			p->cap = cap;
		}
		p->len += pool_value(p->m, p->t, p->kind, i, p->text + p->len);
		if (p->len > UINT32_MAX) return;
		p->offsets[i + 1] = (uint32_t)p->len;
	}
	p->ok = true;
}


static bool build_pool(writer *w, const smdmx_mesh *m, const tri_ctx *t, pool_kind kind, size_t count, size_t guess,
                       text_pool *pool)
{
	SM_CHECK(pool_start(w, pool, count, guess));
	size_t parts = w->threads > 64 ? 64 : w->threads;
	if (count / sm_write_part_min < parts) parts = count / sm_write_part_min;
	if (parts < 2) {
		for (size_t i = 0; i < count; i++) {
			SM_CHECK(pool_room(w, pool, pool_value_max(m, kind, i)));
			pool->len += pool_value(m, t, kind, i, pool->text + pool->len);
			if (pool->len > UINT32_MAX) return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "a mesh too large to write");
			pool->offsets[i + 1] = (uint32_t)pool->len;
		}
		return true;
	}
	pool_part ps[64];
	for (size_t i = 0; i < parts; i++) {
		ps[i] = (pool_part){ .m = m, .t = t, .kind = kind, .offsets = pool->offsets, .from = count / parts * i,
			             .to = i + 1 < parts ? count / parts * (i + 1) : count };
		sm_alloc_init(&ps[i].alloc, &w->alloc.hooks);
	}
	sm_run_all(pool_part_run, ps, sizeof(*ps), parts);
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
	if (!ok && !w->error->code) sm_fail_oom(w->error);
	for (size_t i = 0; i < parts; i++)
		if (ps[i].text) sm_free(&ps[i].alloc, ps[i].text, ps[i].cap);
	return ok;
}

/* The text of every position, normal, UV and link list of a mesh. */
static bool build_pools(writer *w, const smdmx_mesh *m, tri_ctx *t)
{
	SM_CHECK(build_pool(w, m, t, POOL_POS, m->position_count, 32, &t->pos));
	if (m->normal_indices) SM_CHECK(build_pool(w, m, t, POOL_NRM, m->normal_count, 32, &t->nrm));
	if (m->uv_set_count) SM_CHECK(build_pool(w, m, t, POOL_UV, m->uv_sets[0].count, 20, &t->uv));
	if (t->links) SM_CHECK(build_pool(w, m, t, POOL_LNK, m->position_count, 24, &t->lnk));
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
	(void)w;
	return m->parent_joint != SMDMX_NONE ? m->parent_joint : 0;
}

static bool emit_triangle_corner(writer *w, const smdmx_mesh *m, uint32_t c, size_t face_set, void *vctx)
{
	tri_ctx *t = vctx;
	const smdmx_scene *s = w->scene;
	if (t->corner_in_tri == 0) {
		const char *mat = s->materials[m->face_sets[face_set].material].name;
		if (w->goldsrc) {
			char tex[SM_GOLDSRC_NAME_MAX];
			SM_CHECK(put(w, tex, sm_goldsrc_texture(mat, tex)));
		} else {
			SM_CHECK(puts_(w, mat));
		}
		SM_CHECK(eol(w));
	}
	t->corner_in_tri = (t->corner_in_tri + 1) % 3;
	uint32_t p = m->position_indices[c];
	SM_CHECK(put_int(w, parent_bone(w, m, p), false));
	SM_CHECK(put_pooled(w, &t->pos, p));
	if (m->normal_indices) SM_CHECK(put_pooled(w, &t->nrm, m->normal_indices[c]));
	else SM_CHECK(puts_(w, " 0.000000 0.000000 0.000000"));
	if (m->uv_set_count) SM_CHECK(put_pooled(w, &t->uv, m->uv_sets[0].indices[c]));
	else SM_CHECK(puts_(w, " 0.000000 0.000000"));
	if (t->links) SM_CHECK(put_pooled(w, &t->lnk, p));
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
	for (size_t i = from; i < to; i++) {
		const smdmx_face_set *fs = &m->face_sets[order[i].face_set];
		const uint32_t *c = fs->corners + fs->offsets[order[i].polygon];
		uint32_t nc = fs->offsets[order[i].polygon + 1] - fs->offsets[order[i].polygon];
		for (uint32_t k = 1; k + 1 < nc; k++) {
			SM_CHECK(emit_triangle_corner(w, m, c[0], order[i].face_set, t));
			SM_CHECK(emit_triangle_corner(w, m, c[k], order[i].face_set, t));
			SM_CHECK(emit_triangle_corner(w, m, c[k + 1], order[i].face_set, t));
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
	p->ok = emit_polygons(p->w, p->m, p->order, from, to, &p->t) && flush(p->w);
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
	}
	if (ok)
		ok = sm_pipeline(ps, sizeof(*ps), made, n, sm_write_part_min, w->threads, emit_part_run, emit_part_put, w);
	for (size_t i = 0; i < made; i++) {
		if (ps[i].text) sm_free(&ps[i].alloc, ps[i].text, ps[i].cap);
		sm_free(&w->alloc, ps[i].w, sizeof(writer));
	}
	return ok;
}

static bool write_triangles(writer *w, int extra_uvs)
{
	const smdmx_scene *s = w->scene;
	for (size_t i = 0; i < s->material_count; i++) {
		SM_CHECK(check_text(w, s->materials[i].name, "material", true));
		char tex[SM_GOLDSRC_NAME_MAX];
		if (w->goldsrc && sm_goldsrc_texture(s->materials[i].name, tex) > 63)
			return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "material '%s' is too long for GoldSrc (63 characters at most)",
			               s->materials[i].name);
		const char *n = s->materials[i].name;
		/* A material line is taken whole and trimmed; "end" closes the block, and "//" starts
		 * a comment line. */
		if (n[0] == ' ' || n[0] == '\t' || n[strlen(n) - 1] == ' ' || n[strlen(n) - 1] == '\t' ||
		    strcasecmp(n, "end") == 0 || strncmp(n, "//", 2) == 0)
			return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "material '%s' cannot be written to SMD", n);
	}
	SM_CHECK(puts_(w, "triangles"));
	SM_CHECK(eol(w));
	for (size_t i = 0; i < s->mesh_count; i++) {
		const smdmx_mesh *m = &s->meshes[i];
		tri_ctx t;
		memset(&t, 0, sizeof(t));
		t.links = mesh_needs_links(s, m, w->goldsrc);
		t.has_xform = mesh_xform(s, m, &t.x);
		t.extra_uvs = m->uv_set_count > 1 ? (int)m->uv_set_count - 1 : 0;
		if (t.extra_uvs > extra_uvs) t.extra_uvs = extra_uvs;
		if (!m->face_set_count) continue;
		bool ok = build_pools(w, m, &t);
		sm_poly_ref *order = NULL;
		size_t n = 0;
		if (ok && w->threads > 1 && m->corner_count >= 6 * (uint64_t)sm_write_part_min) {
			ok = sm_polygon_order(&w->alloc, m, &order, &n) || sm_fail_oom(w->error);
			ok = ok && emit_parallel(w, m, order, n, &t);
			if (order) sm_free(&w->alloc, order, n * sizeof(sm_poly_ref));
		} else if (ok) {
			ok = for_each_written_corner(w, m, emit_triangle_corner, &t);
		}
		pool_free(w, &t.pos);
		pool_free(w, &t.nrm);
		pool_free(w, &t.uv);
		pool_free(w, &t.lnk);
		SM_CHECK(ok);
	}
	SM_CHECK(puts_(w, "end"));
	return eol(w);
}

/* ---- VTA ------------------------------------------------------------------------------------- */

/* A VTA writes, for each shape, every written corner whose position or normal the shape
 * moves. So that time and output follow the data, each mesh's written corners (the VTA
 * ids) are listed once, with the ids of each position and normal; a shape's lines are then
 * found from its deltas, not by visiting every corner again. */
typedef struct vta_mesh {
	size_t base;                   /* the mesh's first id */
	size_t count;                  /* its ids (written corners) */
	uint32_t *corner;              /* per id: the mesh corner */
	uint32_t *pos_first, *pos_ids; /* per position: offsets into pos_ids (ids, ascending) */
	uint32_t *nrm_first, *nrm_ids; /* the same per normal; NULL without normals */
	int32_t *pos_map, *nrm_map;    /* scratch: per position and normal, a delta or -1 */
	const uint32_t *number;        /* per corner, the number a VTA that was read gave it; NULL: base + id */
	xform x;
	bool has_xform;
} vta_mesh;

typedef struct vta_writer {
	writer *w;
	vta_mesh *meshes;
	size_t *shapes;                /* shape indices, by group and mesh (see group_shapes) */
	size_t *group_first;           /* per group + 1: offsets into shapes */
	size_t group_count;
	uint32_t *ids;                 /* scratch for one shape's ids */
	size_t ids_cap;
	struct vta_block {
		void *p;
		size_t size;
	} *blocks;                     /* every allocation above, with its size, to free */
	size_t block_count, block_cap;
} vta_writer;

static void *vta_alloc(vta_writer *v, size_t n, size_t item)
{
	size_t bytes;
	if (!sm_mul(n ? n : 1, item, &bytes)) return sm_fail_oom(v->w->error), NULL;
	void *p = v->block_count < v->block_cap ? sm_malloc(&v->w->alloc, bytes) : NULL;
	if (!p) return sm_fail_oom(v->w->error), NULL;
	v->blocks[v->block_count].p = p;
	v->blocks[v->block_count++].size = bytes;
	return p;
}

static void vta_free(vta_writer *v)
{
	for (size_t i = 0; i < v->block_count; i++) sm_free(&v->w->alloc, v->blocks[i].p, v->blocks[i].size);
	if (v->blocks) sm_free(&v->w->alloc, v->blocks, v->block_cap * sizeof(*v->blocks));
}

static bool collect_corner(writer *w, const smdmx_mesh *m, uint32_t c, size_t face_set, void *ctx)
{
	(void)w;
	(void)m;
	(void)face_set;
	vta_mesh *vm = ctx;
	vm->corner[vm->count++] = c;
	return true;
}

/* ids of each value (position or normal) of a mesh: offsets and ids, ascending per value. */
static bool index_ids(vta_writer *v, const vta_mesh *vm, const uint32_t *value_of_corner, size_t values, uint32_t **first,
                      uint32_t **ids)
{
	*first = vta_alloc(v, values + 1, sizeof(uint32_t));
	*ids = vta_alloc(v, vm->count, sizeof(uint32_t));
	if (!*first || !*ids) return false;
	sm_group(value_of_corner, vm->corner, vm->count, values, *first, *ids);
	return true;
}

static bool vta_meshes(vta_writer *v)
{
	const smdmx_scene *s = v->w->scene;
	v->meshes = vta_alloc(v, s->mesh_count, sizeof(vta_mesh));
	if (!v->meshes) return false;
	size_t base = 0;
	for (size_t mi = 0; mi < s->mesh_count; mi++) {
		const smdmx_mesh *m = &s->meshes[mi];
		vta_mesh *vm = &v->meshes[mi];
		memset(vm, 0, sizeof(*vm));
		vm->base = base;
		vm->has_xform = mesh_xform(s, m, &vm->x);
		uint64_t n = 0;
		if (m->face_set_count) {
			for (size_t f = 0; f < m->face_set_count; f++)
				for (size_t p = 0; p < m->face_sets[f].polygon_count; p++)
					n += 3 * (uint64_t)(m->face_sets[f].offsets[p + 1] - m->face_sets[f].offsets[p] - 2);
		} else {
			n = m->corner_count;
		}
		if (n > UINT32_MAX)
			return sm_fail(v->w->error, SMDMX_ERROR_LIMIT, 0, 0, "mesh %zu writes more than %u VTA vertices", mi, UINT32_MAX);
		vm->corner = vta_alloc(v, (size_t)n, sizeof(uint32_t));
		if (!vm->corner || !for_each_written_corner(v->w, m, collect_corner, vm)) return false;
		SM_CHECK(index_ids(v, vm, m->position_indices, m->position_count, &vm->pos_first, &vm->pos_ids));
		if (m->normal_indices) SM_CHECK(index_ids(v, vm, m->normal_indices, m->normal_count, &vm->nrm_first, &vm->nrm_ids));
		vm->pos_map = vta_alloc(v, m->position_count + m->normal_count, sizeof(int32_t));
		if (!vm->pos_map) return false;
		for (size_t i = 0; i < m->position_count + m->normal_count; i++) vm->pos_map[i] = -1;
		vm->nrm_map = vm->pos_map + m->position_count;
		/* A VTA read keeps its vertex numbers (they may start above 0 or skip). */
		if (s->source.format == SMDMX_SOURCE_VTA && s->source.vta_ids && s->mesh_count == 1 && !m->face_set_count)
			vm->number = s->source.vta_ids;
		base += vm->count;
	}
	return true;
}

typedef struct shape_key {
	const char *name;
	uint32_t mesh;
	size_t index;
} shape_key;

/* By name, then mesh, then index. */
static int shape_order(const void *a, const void *b)
{
	const shape_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c) return c;
	if (x->mesh != y->mesh) return x->mesh < y->mesh ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* By first shape index: groups in order of first appearance. */
static int group_order(const void *a, const void *b)
{
	size_t i = ((const size_t *)a)[0], j = ((const size_t *)b)[0];
	return i < j ? -1 : i > j;
}

/* Groups the shapes by name (a group is one VTA frame), in order of first appearance; in
 * a group, one shape per mesh (the last of that mesh), by mesh. */
static bool group_shapes(vta_writer *v)
{
	const smdmx_scene *s = v->w->scene;
	size_t n = s->flex_shape_count;
	shape_key *order = vta_alloc(v, n, sizeof(shape_key));
	size_t *runs = vta_alloc(v, n, 3 * sizeof(size_t)); /* per group: first index, start, end in order */
	v->shapes = vta_alloc(v, n, sizeof(size_t));
	v->group_first = vta_alloc(v, n + 1, sizeof(size_t));
	if (!order || !runs || !v->shapes || !v->group_first) return false;
	for (size_t i = 0; i < n; i++) order[i] = (shape_key){ s->flex_shapes[i].name, s->flex_shapes[i].mesh, i };
	qsort(order, n, sizeof(shape_key), shape_order);
	size_t g = 0;
	for (size_t i = 0; i < n;) {
		size_t e = i, first = order[i].index;
		while (e < n && !strcmp(order[e].name, order[i].name)) {
			if (order[e].index < first) first = order[e].index;
			e++;
		}
		runs[3 * g] = first;
		runs[3 * g + 1] = i;
		runs[3 * g + 2] = e;
		g++;
		i = e;
	}
	qsort(runs, g, 3 * sizeof(size_t), group_order);
	size_t k = 0;
	for (size_t r = 0; r < g; r++) {
		v->group_first[r] = k;
		for (size_t i = runs[3 * r + 1]; i < runs[3 * r + 2]; i++)
			if (i + 1 == runs[3 * r + 2] || order[i + 1].mesh != order[i].mesh) v->shapes[k++] = order[i].index;
	}
	v->group_first[g] = k;
	v->group_count = g;
	return true;
}

/* Refuses a VTA whose shapes would write far more lines than the scene holds data: each
 * delta writes a line per written corner on its position or normal, so a mesh whose
 * corners all share one position would write every corner for every shape. Past 2^23
 * lines, at most 16 times the deltas and base corners. Also sizes the id scratch. */
static bool vta_budget(vta_writer *v)
{
	const smdmx_scene *s = v->w->scene;
	uint64_t data = 0, lines = 0;
	for (size_t mi = 0; mi < s->mesh_count; mi++) data += v->meshes[mi].count;
	for (size_t i = 0; i < s->flex_shape_count; i++) data += s->flex_shapes[i].position_count + s->flex_shapes[i].normal_count;
	uint64_t budget = data * 16 > (1u << 23) ? data * 16 : (1u << 23);
	size_t most = 1;
	for (size_t k = 0; k < v->group_first[v->group_count] && lines <= budget; k++) {
		const smdmx_flex_shape *sh = &s->flex_shapes[v->shapes[k]];
		const vta_mesh *vm = &v->meshes[sh->mesh];
		uint64_t here = 0;
		for (size_t i = 0; i < sh->position_count; i++)
			here += vm->pos_first[sh->position_indices[i] + 1] - vm->pos_first[sh->position_indices[i]];
		for (size_t i = 0; vm->nrm_first && i < sh->normal_count; i++)
			here += vm->nrm_first[sh->normal_indices[i] + 1] - vm->nrm_first[sh->normal_indices[i]];
		lines += here;
		if (here > most) most = here;
	}
	if (lines > budget)
		return sm_fail(v->w->error, SMDMX_ERROR_LIMIT, 0, 0,
		               "the VTA would write more than %llu vertex lines (16 times its %llu items of data, and at least "
		               "2^23): refused as a decompression bomb",
		               (unsigned long long)budget, (unsigned long long)data);
	v->ids = vta_alloc(v, most, sizeof(uint32_t));
	v->ids_cap = most;
	return v->ids != NULL;
}

static bool write_vta_line(writer *w, const smdmx_mesh *m, const vta_mesh *vm, size_t id, const smdmx_flex_shape *sh)
{
	uint32_t c = vm->corner[id];
	uint32_t p = m->position_indices[c], n = m->normal_indices ? m->normal_indices[c] : SMDMX_NONE;
	float pos[3], nrm[3] = { 0, 0, 0 };
	memcpy(pos, m->positions[p], sizeof(pos));
	if (n != SMDMX_NONE) memcpy(nrm, m->normals[n], sizeof(nrm));
	if (sh) {
		int32_t dp = vm->pos_map[p], dn = n != SMDMX_NONE ? vm->nrm_map[n] : -1;
		for (int i = 0; i < 3; i++) {
			if (dp >= 0) pos[i] += sh->position_deltas[dp][i];
			if (dn >= 0) nrm[i] += sh->normal_deltas[dn][i];
		}
	}
	if (vm->has_xform) {
		float a[3], b[3];
		apply(&vm->x, pos, true, a);
		apply(&vm->x, nrm, false, b);
		memcpy(pos, a, sizeof(a));
		memcpy(nrm, b, sizeof(b));
	}
	SM_CHECK(put_int(w, (int64_t)(vm->number ? vm->number[c] : vm->base + id), false));
	for (int i = 0; i < 3; i++) SM_CHECK(put_float(w, pos[i]));
	for (int i = 0; i < 3; i++) SM_CHECK(put_float(w, nrm[i]));
	return eol(w);
}

static int id_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* One shape's lines: the ids on its deltas' positions and normals, ascending, once each. */
static bool write_vta_shape(vta_writer *v, const smdmx_flex_shape *sh)
{
	const smdmx_mesh *m = &v->w->scene->meshes[sh->mesh];
	vta_mesh *vm = &v->meshes[sh->mesh];
	size_t n = 0;
	for (size_t i = 0; i < sh->position_count; i++) {
		uint32_t p = sh->position_indices[i];
		vm->pos_map[p] = (int32_t)i;
		for (uint32_t k = vm->pos_first[p]; k < vm->pos_first[p + 1]; k++) v->ids[n++] = vm->pos_ids[k];
	}
	for (size_t i = 0; vm->nrm_first && i < sh->normal_count; i++) {
		uint32_t q = sh->normal_indices[i];
		vm->nrm_map[q] = (int32_t)i;
		for (uint32_t k = vm->nrm_first[q]; k < vm->nrm_first[q + 1]; k++) v->ids[n++] = vm->nrm_ids[k];
	}
	qsort(v->ids, n, sizeof(uint32_t), id_order);
	bool ok = true;
	for (size_t i = 0; ok && i < n; i++)
		if (i == 0 || v->ids[i] != v->ids[i - 1]) ok = write_vta_line(v->w, m, vm, v->ids[i], sh);
	for (size_t i = 0; i < sh->position_count; i++) vm->pos_map[sh->position_indices[i]] = -1;
	for (size_t i = 0; vm->nrm_first && i < sh->normal_count; i++) vm->nrm_map[sh->normal_indices[i]] = -1;
	return ok;
}

static bool write_time_name(writer *w, size_t frame, const char *name)
{
	SM_CHECK(puts_(w, "time"));
	SM_CHECK(put_int(w, (int64_t)frame, true));
	if (name) {
		SM_CHECK(puts_(w, " # "));
		SM_CHECK(puts_(w, name));
	}
	return eol(w);
}

static bool write_vta(writer *w)
{
	const smdmx_scene *s = w->scene;
	for (size_t i = 0; i < s->flex_shape_count; i++) SM_CHECK(check_text(w, s->flex_shapes[i].name, "flex shape", true));
	vta_writer v;
	memset(&v, 0, sizeof(v));
	v.w = w;
	/* the blocks: the mesh table, six per mesh, four for the groups, the id scratch */
	size_t bytes;
	bool ok = s->mesh_count < SIZE_MAX / 6 - 8 && sm_mul(6 * s->mesh_count + 8, sizeof(*v.blocks), &bytes);
	v.blocks = ok ? sm_malloc(&w->alloc, bytes) : NULL;
	if (!v.blocks) return sm_fail_oom(w->error);
	v.block_cap = 6 * s->mesh_count + 8;
	ok = vta_meshes(&v) && group_shapes(&v) && vta_budget(&v);
	size_t ng = ok ? v.group_count : 0;
	/* A VTA read keeps its frame numbers too (a QC names shapes by them), when they ascend. */
	bool numbered = s->source.format == SMDMX_SOURCE_VTA;
	for (size_t g = 0; numbered && g < ng; g++) {
		int32_t f = s->flex_shapes[v.shapes[v.group_first[g]]].frame;
		numbered = f >= 1 && (g == 0 || f > s->flex_shapes[v.shapes[v.group_first[g - 1]]].frame);
	}
	/* A VTA read with a pose in its frame 0 (Valve's exporters write the skeleton there) is
	 * written with it; otherwise frame 0 is empty, as Blender Source Tools writes it and as
	 * the reference carries the skeleton. */
	bool posed = false;
	for (size_t j = 0; s->source.format == SMDMX_SOURCE_VTA && j < s->joint_count && !posed; j++) {
		const smdmx_transform *t = &s->joints[j].bind;
		posed = t->position[0] != 0 || t->position[1] != 0 || t->position[2] != 0 || t->orientation[0] != 0 ||
		        t->orientation[1] != 0 || t->orientation[2] != 0 || t->orientation[3] != 1;
	}
	ok = ok && puts_(w, "skeleton") && eol(w) && (posed ? write_bind_frame(w) : write_time_name(w, 0, NULL));
	for (size_t g = 0; ok && g < ng; g++) {
		const smdmx_flex_shape *first = &s->flex_shapes[v.shapes[v.group_first[g]]];
		ok = write_time_name(w, numbered ? (size_t)first->frame : g + 1, first->name);
	}
	ok = ok && puts_(w, "end") && eol(w) && puts_(w, "vertexanimation") && eol(w) && write_time_name(w, 0, NULL);
	for (size_t mi = 0; ok && mi < s->mesh_count; mi++)
		for (size_t id = 0; ok && id < v.meshes[mi].count; id++) ok = write_vta_line(w, &s->meshes[mi], &v.meshes[mi], id, NULL);
	for (size_t g = 0; ok && g < ng; g++) {
		const smdmx_flex_shape *first = &s->flex_shapes[v.shapes[v.group_first[g]]];
		ok = write_time_name(w, numbered ? (size_t)first->frame : g + 1, first->name);
		for (size_t k = v.group_first[g]; ok && k < v.group_first[g + 1]; k++) ok = write_vta_shape(&v, &s->flex_shapes[v.shapes[k]]);
	}
	vta_free(&v);
	return ok && puts_(w, "end") && eol(w);
}

/* ---- entry points ---------------------------------------------------------------------------- */

bool smdmx_smd_write(const smdmx_scene *scene, smdmx_write_fn write, void *user, const smdmx_smd_write_options *options,
                     smdmx_error *error)
{
	memset(error, 0, sizeof(*error));
	smdmx_smd_write_options opts;
	memset(&opts, 0, sizeof(opts));
	if (options) opts = *options;
	if (!smdmx_scene_validate(scene, error)) return false;
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
	if (w->threads > 1 && (opts.allocator.memory_limit || opts.allocator.fail_after)) {
		sm_free(&a, w, sizeof(writer));
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0,
		               "threads above 1 with a memory_limit or fail_after (they count the allocations of one thread)");
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
		ok = write_vta(w);
	} else if (ok) {
		ok = puts_(w, "skeleton") && eol(w);
		if (ok && scene->clip_count && kind != SMDMX_SMD_WRITE_REFERENCE) ok = write_clip_frames(w, &scene->clips[opts.clip]);
		else if (ok && kind == SMDMX_SMD_WRITE_REFERENCE && sm_smd_reference_clip(scene, opts.reference_clip))
			ok = write_clip_frames(w, &scene->clips[opts.clip]);
		else if (ok) ok = write_bind_frame(w);
		ok = ok && puts_(w, "end") && eol(w);
		if (ok && kind == SMDMX_SMD_WRITE_REFERENCE) ok = write_triangles(w, extra_uvs);
	}
	ok = ok && flush(w);
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
	smd_job j = { scene, options };
	return sm_write_file_atomic(path, produce_smd, &j, error);
}
