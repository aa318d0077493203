/* SMD reading, one triangles block: on this thread (smd_triangles.c) when it is small, else on
 * several, cut into parts at material lines, each part read by a reader of its own, merged in
 * order as if read on one thread. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smd/smd_read.h"

/* ---- one triangles block on several threads ------------------------------------------------
 *
 * The block is cut into parts at material lines: from a point in the file, the first line
 * that starts after a '\n' and can only be a material line (not blank, not a comment, not
 * starting like a number). This thread reads the first part into the reader as always,
 * stopping at the next part's first line; each other part is read by a thread of its own
 * into a reader of its own (own tables, lines counted from its start). The parts are then
 * taken in order: a part counts only when the part before it stopped exactly at its first
 * line (else the guess was not a material line and this thread reads on from where the part
 * before stopped), and is merged as if read here: its materials, positions, normals and UVs
 * interned in the order it met them, so every index, line number and warning is the one
 * the single-threaded reader gives. A part that failed gives its error, its line moved to
 * the file's count. A part that read the block's 'end' ends the block; parts after it are
 * dropped. */

uint64_t sm_smd_part_min = (uint64_t)1 << 20; /* bytes; smaller blocks are read on one thread */

typedef struct part {
	reader r;
	smdmx_error error;
	smdmx_warnings warnings;
	uint64_t start;         /* offset of its first line */
	uint32_t start_line;    /* the block's line, for a missing 'end' */
	bool ok;
} part;

static bool is_candidate(const char *s, const char *e)
{
	while (s < e && is_ws(*s)) s++;
	if (s == e || *s == '\r' || *s == '#' || *s == ';' || *s == '-' || *s == '+' || sm_is_digit(*s)) return false;
	return !(*s == '/' && s + 1 < e && s[1] == '/');
}

/* The first line after offset from that is a material line for sure, or UINT64_MAX when
 * none starts within a window of its own. */
static uint64_t find_part_start(reader *r, uint64_t from, char *buf, size_t cap)
{
	uint64_t at = from - 1; /* a '\n' just before from makes from itself a start */
	ptrdiff_t n = os_read_at(r->fd, buf, cap, at);
	if (n <= 0) return UINT64_MAX;
	const char *p = buf, *e = buf + n;
	const char *nl = memchr(p, '\n', (size_t)(e - p));
	while (nl) {
		const char *s = nl + 1;
		nl = memchr(s, '\n', (size_t)(e - s));
		if (!nl) break; /* a line must end inside the window */
		if (is_candidate(s, nl)) return at + (uint64_t)(s - buf);
	}
	return UINT64_MAX;
}

static void part_run(void *arg)
{
	part *p = arg;
	reader *r = &p->r;
	r->chunk_cap = CHUNK_SIZE;
	r->chunk = sm_malloc(&r->o->alloc, r->chunk_cap);
	r->buf = r->chunk; /* no offset on a null pointer before the first read */
	p->ok = r->chunk ? smdr_triangles_init(r) && smdr_read_triangle_lines(r, p->start_line) : sm_fail_oom(r->error);
	smdr_told(r, 0, true);
	if (r->chunk) sm_free(&r->o->alloc, r->chunk, r->chunk_cap);
	r->chunk = NULL;
}

/* Moves the reader to offset off, read by offset from now on, with lines lines before it. */
static void seek_to(reader *r, uint64_t off, uint32_t lines)
{
	r->at = true;
	r->base_off = off;
	r->pos = r->len = 0;
	r->eof = false;
	r->buf = r->chunk;
	r->next_nl = r->next_cr = NULL;
	r->line_no = lines;
}

/* ---- merging the parts ---------------------------------------------------------------------
 *
 * The parts that count (ps[first .. first + n), in order, after this thread's own) are merged
 * as if read here. Their materials first. Then three tasks, each over every part in order:
 * positions with their weights, normals, and the UV sets; each interns its values into its
 * table, in the order the parts met them, and writes the corners' indices. The tasks touch
 * different tables, and every array they fill is made big enough beforehand, so they run at
 * once (this thread takes the positions) with no allocation. The face sets come after. */

typedef struct merge_job {
	reader *r;              /* the reader merged into */
	reader *tr;             /* the reader a task's calls use: r, or a copy with its own error */
	part *ps;
	size_t n;
	const size_t *corner0;  /* per part: its first corner in the file */
	size_t sets;            /* UV sets after the merge */
	dedup *grown;           /* the tables' bigger slots (merge_reserve): positions, normals,
	                           UV sets; each filled by the task that owns the table */
	sm_alloc alloc;         /* the task's own scratch */
	void (*task)(void *);   /* what it does: merge_positions, ... */
	bool ok;
	smdmx_error error;
} merge_job;

static void merge_run(void *arg)
{
	merge_job *j = arg;
	j->task(j);
}

/* Interns count values of n floats, in their order, into table d and its data, and writes
 * each corner's index: dst[i] takes the index of value src[i]. */
static bool merge_values(merge_job *j, dedup *d, sm_vec *data, const float *vals, size_t count, size_t n,
                         const uint32_t *src, size_t corners, uint32_t *dst)
{
	uint32_t *map = sm_malloc(&j->alloc, sizeof(uint32_t) * (count + 1));
	if (!map) return sm_fail_oom(j->tr->error);
	bool ok = true;
	for (size_t i = 0; ok && i < count; i++) {
		if (i + 8 < count) prefetch_slot(d, hash_words(vals + (i + 8) * n, n, (uint32_t)n));
		ok = smdr_intern_vec(j->tr, d, data, vals + i * n, n, &map[i]);
	}
	if (ok)
		for (size_t i = 0; i < corners; i++) dst[i] = map[src[i]];
	sm_free(&j->alloc, map, sizeof(uint32_t) * (count + 1));
	return ok;
}

/* A table's bigger slots (merge_reserve's, allocated lazily) made resident in one call by
 * the task that fills them, then filled (smdr_dedup_move). */
static void grow_here(dedup *d, dedup *next)
{
	if (!next->slots) return;
	sm_alloc_populate(next->slots, next->cap * sizeof(uint64_t));
	smdr_dedup_move(d, next);
}

static void merge_positions(void *arg)
{
	merge_job *j = arg;
	reader *r = j->r, *tr = j->tr;
	j->ok = false;
	grow_here(&r->position_table, &j->grown[0]);
	for (size_t k = 0; k < j->n; k++) {
		const reader *q = &j->ps[k].r;
		uint32_t *map = sm_malloc(&j->alloc, sizeof(uint32_t) * (q->positions.count + 1));
		if (!map) {
			sm_fail_oom(tr->error);
			return;
		}
		const smdmx_vec3 *qp = q->positions.data;
		const uint32_t *qo = q->weight_offsets.data;
		const smdmx_weight *qw = q->weights.data;
		bool ok = true;
		for (size_t i = 0; ok && i < q->positions.count; i++) {
			if (i + 8 < q->positions.count)
				prefetch_slot(&r->position_table, hash_position(qp[i + 8], qw + qo[i + 8], qo[i + 9] - qo[i + 8]));
			ok = smdr_intern_position(tr, qp[i], qw + qo[i], qo[i + 1] - qo[i], &map[i]);
		}
		if (ok) {
			const uint32_t *src = q->position_indices.data;
			uint32_t *dst = (uint32_t *)r->position_indices.data + j->corner0[k];
			for (size_t i = 0; i < q->corner_count; i++) dst[i] = map[src[i]];
		}
		sm_free(&j->alloc, map, sizeof(uint32_t) * (q->positions.count + 1));
		if (!ok) return;
	}
	j->ok = true;
}

static void merge_normals(void *arg)
{
	merge_job *j = arg;
	reader *r = j->r;
	j->ok = false;
	grow_here(&r->normal_table, &j->grown[1]);
	for (size_t k = 0; k < j->n; k++) {
		const reader *q = &j->ps[k].r;
		if (!merge_values(j, &r->normal_table, &r->normals, q->normals.data, q->normals.count, 3, q->normal_indices.data,
		                  q->corner_count, (uint32_t *)r->normal_indices.data + j->corner0[k]))
			return;
	}
	j->ok = true;
}

/* UV sets. A set a part opens first is opened at the part's first corner: the corners
 * before it take (0, 0), interned first when there are any, as when read here; a part
 * without a set gives its corners (0, 0). */
static void merge_uvs(void *arg)
{
	merge_job *j = arg;
	reader *r = j->r, *tr = j->tr;
	const float zero[2] = { 0, 0 };
	j->ok = false;
	for (size_t s = 0; s < j->sets; s++) grow_here(&r->uv[s].table, &j->grown[2 + s]);
	for (size_t k = 0; k < j->n; k++) {
		const reader *q = &j->ps[k].r;
		size_t c0 = j->corner0[k], n = q->corner_count;
		for (size_t s = 0; s < j->sets; s++) {
			uv_build *u = &r->uv[s];
			bool open = u->indices.count > 0 || s < r->uv_count;
			uint32_t *ix = u->indices.data;
			if (!open && s >= q->uv_count) continue; /* not opened yet, and not by this part */
			if (!open && c0) {
				uint32_t zi;
				if (!smdr_intern_vec(tr, &u->table, &u->data, zero, 2, &zi)) return;
				for (size_t i = 0; i < c0; i++) ix[i] = zi;
			}
			if (s < q->uv_count) {
				const uv_build *v = &q->uv[s];
				if (!merge_values(j, &u->table, &u->data, v->data.data, v->data.count, 2, v->indices.data, n, ix + c0))
					return;
			} else if (n) {
				uint32_t zi;
				if (!smdr_intern_vec(tr, &u->table, &u->data, zero, 2, &zi)) return;
				for (size_t i = 0; i < n; i++) ix[c0 + i] = zi;
			}
			u->indices.count = c0 + n;
		}
	}
	j->ok = true;
}

/* Normals, then UVs: the second task of two threads. */
static void merge_normals_uvs(void *arg)
{
	merge_job *j = arg;
	merge_normals(j);
	if (j->ok) merge_uvs(j);
}

/* Room for all that merging adds: no array moves while the tasks run, and a table that needs
 * more slots has them made here and filled by its task (grown), on the threads at once. */
static bool merge_reserve(reader *r, size_t more_p, size_t more_w, size_t more_n, const size_t *more_uv, size_t sets,
                          size_t total, dedup *grown)
{
	SM_CHECK(smdr_dedup_make(r, &r->position_table, more_p, &grown[0]));
	SM_CHECK(smdr_dedup_make(r, &r->normal_table, more_n, &grown[1]));
	SM_CHECK(sm_vec_reserve(r->o, &r->positions, sizeof(smdmx_vec3), r->positions.count + more_p, r->error));
	SM_CHECK(sm_vec_reserve(r->o, &r->weight_offsets, sizeof(uint32_t), r->weight_offsets.count + more_p, r->error));
	SM_CHECK(sm_vec_reserve(r->o, &r->weights, sizeof(smdmx_weight), r->weights.count + more_w, r->error));
	SM_CHECK(sm_vec_reserve(r->o, &r->normals, sizeof(smdmx_vec3), r->normals.count + more_n, r->error));
	SM_CHECK(sm_vec_reserve(r->o, &r->position_indices, sizeof(uint32_t), total, r->error));
	SM_CHECK(sm_vec_reserve(r->o, &r->normal_indices, sizeof(uint32_t), total, r->error));
	for (size_t s = 0; s < sets; s++) {
		uv_build *u = &r->uv[s];
		if (s >= r->uv_count) {
			*u = (uv_build){ SM_VEC_INIT, SM_VEC_INIT, { NULL, 0, 0, 0 } };
			SM_CHECK(smdr_dedup_init(r, &u->table, 1024));
		}
		SM_CHECK(smdr_dedup_make(r, &u->table, more_uv[s], &grown[2 + s]));
		SM_CHECK(sm_vec_reserve(r->o, &u->data, sizeof(smdmx_vec2), u->data.count + more_uv[s], r->error));
		SM_CHECK(sm_vec_reserve(r->o, &u->indices, sizeof(uint32_t), total, r->error));
	}
	return true;
}

static bool merge_parts(reader *r, part *ps, size_t n, const uint32_t *bases)
{
	size_t total = r->corner_count, more_p = 0, more_w = 0, more_n = 0, more_uv[9] = { 0 }, sets = r->uv_count;
	size_t corner0[64];
	for (size_t k = 0; k < n; k++) {
		const reader *q = &ps[k].r;
		corner0[k] = total;
		total += q->corner_count;
		more_p += q->positions.count;
		more_w += q->weights.count;
		more_n += q->normals.count;
		for (size_t s = 0; s < q->uv_count; s++) more_uv[s] += q->uv[s].data.count + 1;
		for (size_t s = r->uv_count; s < q->uv_count; s++) more_uv[s]++;
		if (q->uv_count > sets) sets = q->uv_count;
		r->any_links |= q->any_links;
	}
	for (size_t s = 0; s < sets; s++) more_uv[s] += n; /* a zero per part */
	/* Materials, each at its own line. */
	for (size_t k = 0; k < n; k++) {
		reader *q = &ps[k].r;
		const smdmx_material *qm = q->materials.data;
		uint32_t saved_line = r->line_no;
		q->face_set_of.count = 0; /* reused: each local material's material here */
		SM_CHECK(sm_vec_reserve(q->o, &q->face_set_of, sizeof(uint32_t), q->materials.count, q->error));
		uint32_t *mat = q->face_set_of.data;
		for (size_t i = 0; i < q->materials.count; i++) {
			r->line_no = bases[k] + ((uint32_t *)q->material_lines.data)[i];
			bool ok = smdr_intern_material(r, qm[i].name, strlen(qm[i].name), &mat[i]);
			r->line_no = saved_line;
			SM_CHECK(ok);
		}
	}
	/* Room for everything the tasks add (its pages are touched first by the tasks). */
	dedup grown[2 + 9] = { { NULL, 0, 0, 0 } };
	sm_alloc_lazy = true;
	bool room = merge_reserve(r, more_p, more_w, more_n, more_uv, sets, total, grown);
	sm_alloc_lazy = false;
	SM_CHECK(room);
	/* The tasks: positions here, normals and UVs on threads of their own. */
	reader copies[2];
	merge_job jobs[3];
	for (int t = 0; t < 3; t++) {
		jobs[t] = (merge_job){ .r = r, .tr = r, .ps = ps, .n = n, .corner0 = corner0, .sets = sets, .grown = grown };
		sm_alloc_init(&jobs[t].alloc, &r->o->alloc.hooks);
		if (t) {
			copies[t - 1] = *r;
			copies[t - 1].error = &jobs[t].error;
			jobs[t].tr = &copies[t - 1];
		}
	}
	/* The copies share the reader's owner and point into its tables: each task changes its
	 * own tables in place, and nothing allocates meanwhile. */
	jobs[0].task = merge_positions;
	if (r->threads > 2) {
		jobs[1].task = merge_normals;
		jobs[2].task = merge_uvs;
		sm_run_all(&r->o->alloc.hooks, merge_run, jobs, sizeof(*jobs), 3);
	} else {
		jobs[1].task = merge_normals_uvs;
		jobs[2].ok = true; /* the UVs follow the normals in jobs[1] */
		sm_run_all(&r->o->alloc.hooks, merge_run, jobs, sizeof(*jobs), 2);
	}
	for (size_t t = 0; t < 2 + sets; t++) smdr_dedup_free(r, &grown[t]); /* the old slots */
	for (int t = 1; t < 3; t++)
		if (!jobs[t].ok && !r->error->code) *r->error = jobs[t].error;
	if (!jobs[0].ok || !jobs[1].ok || !jobs[2].ok) return r->error->code ? false : sm_fail_oom(r->error);
	r->uv_count = sets;
	r->position_indices.count = r->normal_indices.count = total;
	/* Face sets, in the order each part met their materials, and the triangles' lines. */
	for (size_t k = 0; k < n; k++) {
		const reader *q = &ps[k].r;
		const uint32_t *mat = q->face_set_of.data;
		const faceset_build *qf = q->face_sets.data;
		for (size_t f = 0; f < q->face_sets.count; f++) {
			faceset_build *fs;
			SM_CHECK(smdr_face_set_for(r, mat[qf[f].material], &fs));
			size_t c0 = fs->corners.count, nc = qf[f].corners.count, no = qf[f].offsets.count;
			SM_CHECK(sm_vec_reserve(r->o, &fs->corners, sizeof(uint32_t), c0 + nc, r->error));
			SM_CHECK(sm_vec_reserve(r->o, &fs->offsets, sizeof(uint32_t), fs->offsets.count + no - 1, r->error));
			const uint32_t *sc = qf[f].corners.data, *so = qf[f].offsets.data;
			uint32_t *dc = (uint32_t *)fs->corners.data + c0, *dof = (uint32_t *)fs->offsets.data + fs->offsets.count;
			uint32_t shift = (uint32_t)corner0[k];
			for (size_t i = 0; i < nc; i++) dc[i] = sc[i] + shift;
			for (size_t i = 1; i < no; i++) dof[i - 1] = so[i] + (uint32_t)c0;
			fs->corners.count += nc;
			fs->offsets.count += no - 1;
		}
		if (r->record_lines) {
			SM_CHECK(sm_vec_reserve(r->o, &r->triangle_lines, sizeof(uint32_t),
			                        r->triangle_lines.count + q->triangle_lines.count, r->error));
			const uint32_t *src = q->triangle_lines.data;
			uint32_t *dst = (uint32_t *)r->triangle_lines.data + r->triangle_lines.count;
			for (size_t i = 0; i < q->triangle_lines.count; i++) dst[i] = src[i] + bases[k];
			r->triangle_lines.count += q->triangle_lines.count;
		}
	}
	r->corner_count = total;
	return true;
}

/* A part's warnings and error, their lines moved to the file's count. */
static void merge_messages(reader *r, part *p, uint32_t base)
{
	sm_warnings_merge(r->warnings, &p->warnings, base, "");
	if (p->error.code && !r->error->code) {
		*r->error = p->error;
		if (r->error->line && p->error.code != SMDMX_ERROR_MISSING_END) r->error->line += base;
	}
}

bool smdr_read_triangles_parallel(reader *r, uint32_t start_line, unsigned parts)
{
	uint64_t from = r->base_off + r->pos, size = r->file_size;
	part *ps = sm_malloc(&r->o->alloc, sizeof(part) * parts);
	char *window = sm_malloc(&r->o->alloc, 1 << 16);
	if (!ps || !window) {
		if (ps) sm_free(&r->o->alloc, ps, sizeof(part) * parts);
		if (window) sm_free(&r->o->alloc, window, 1 << 16);
		return sm_fail_oom(r->error);
	}
	/* Part starts; a start that is no further than the one before is no part. */
	unsigned k = 1;
	for (unsigned i = 1; i < parts; i++) {
		uint64_t s = find_part_start(r, from + (size - from) / parts * i, window, 1 << 16);
		if (s != UINT64_MAX && s > (k > 1 ? ps[k - 1].start : from)) ps[k++].start = s;
	}
	sm_free(&r->o->alloc, window, 1 << 16);
	parts = k;
	/* the progress told by one thread at a time (smdmx_progress) */
	const smdmx_allocator *h = &r->o->alloc.hooks;
	os_mem mem = sm_os_mem(h);
	os_mutex *told_lock = r->progress.fn ? os_mutex_create_in(&mem) : NULL;
	if (r->progress.fn && !told_lock) {
		sm_free(&r->o->alloc, ps, sizeof(part) * parts);
		return sm_fail_oom(r->error);
	}
	r->told_lock = told_lock;
	/* This reader reads by offset from now on, as the parts do: on Windows a read at an
	 * offset moves the handle's position, which a plain read would then follow. */
	r->at = true;
	bool ok = true;
	unsigned started = 1;
	for (unsigned i = 1; i < parts; i++) {
		part *p = &ps[i];
		reader *q = &p->r;
		memset(q, 0, sizeof(*q));
		memset(&p->error, 0, sizeof(p->error));
		memset(&p->warnings, 0, sizeof(p->warnings));
		sm_warnings_start(&p->warnings, &r->o->alloc.hooks); /* its room in the reading's memory */
		p->ok = false;
		p->start_line = start_line;
		q->o = sm_owner_new(&r->o->alloc.hooks, &p->error);
		if (!q->o) {
			ok = sm_fail_oom(r->error);
			break;
		}
		started = i + 1;
		q->fd = r->fd;
		q->at = true;
		q->base_off = p->start;
		q->eof = false;
		q->sub = true;
		q->threads = 1;
		q->nul_off = UINT64_MAX;
		q->stop_off = i + 1 < parts ? ps[i + 1].start : UINT64_MAX;
		q->error = &p->error;
		q->warnings = r->warnings ? &p->warnings : NULL;
		q->limits = r->limits;
		q->version = r->version;
		q->record_lines = r->record_lines;
		q->progress = r->progress;
		q->told_lock = told_lock;
		q->last_material = SMDMX_NONE;
		q->id_map = r->id_map; /* read only */
		q->positions = q->weight_offsets = q->weights = q->position_indices = (sm_vec)SM_VEC_INIT;
		q->normals = q->normal_indices = q->materials = q->face_sets = q->face_set_of = (sm_vec)SM_VEC_INIT;
		q->material_lines = q->triangle_lines = (sm_vec)SM_VEC_INIT;
	}
	/* This thread reads the first part meanwhile. */
	sm_team team;
	sm_team_start(&team, h, part_run, &ps[1], sizeof(part), started - 1);
	r->stop_off = parts > 1 ? ps[1].start : UINT64_MAX;
	if (ok) ok = smdr_read_triangle_lines(r, start_line);
	r->stop_off = UINT64_MAX;
	sm_team_join(&team);
	r->told_lock = NULL;
	if (told_lock) os_mutex_destroy(told_lock);
	/* The parts in order, while each starts where the one before stopped. */
	uint32_t base = r->line_no, bases[64];
	uint64_t at = r->stopped_off;
	bool done = !ok || r->ended, ended = false;
	unsigned count = 0;
	for (unsigned i = 1; i < started && !done; i++) {
		part *p = &ps[i];
		if (at != p->start) break; /* not a material line: read on from at here */
		merge_messages(r, p, base);
		if (!p->ok) {
			ok = false;
			done = true;
			break;
		}
		bases[count++] = base;
		if (p->r.ended) {
			ended = done = true;
			break;
		}
		base += p->r.line_no;
		at = p->r.stopped_off;
	}
	if (ok && count) ok = merge_parts(r, &ps[1], count, bases);
	if (ok && ended) {
		const part *p = &ps[count];
		seek_to(r, p->r.base_off + p->r.pos, bases[count - 1] + p->r.line_no);
		r->ended = true;
	}
	for (unsigned i = 1; i < started; i++) {
		sm_owner_free(ps[i].r.o);
		smdmx_warnings_free(&ps[i].warnings); /* (a part not merged) */
	}
	sm_free(&r->o->alloc, ps, sizeof(part) * parts);
	if (done) return ok;
	seek_to(r, at, base);
	return smdr_read_triangle_lines(r, start_line);
}

bool smdr_read_triangles(reader *r)
{
	uint32_t start_line = r->line_no;
	if (!r->position_table.slots) SM_CHECK(smdr_triangles_init(r));
	r->has_triangles = true;
	r->ended = false;
	/* Parts of at least sm_smd_part_min bytes, when the file is a regular one and the corner limit
	 * cannot be reached (where it could, the single-threaded reader says where). */
	uint64_t from = r->base_off + r->pos;
	uint64_t rest = r->file_size > from ? r->file_size - from : 0;
	uint64_t parts = r->threads > 1 && !r->sub ? rest / sm_smd_part_min : 0;
	if (parts > r->threads) parts = r->threads;
	if (parts > 64) parts = 64;
	if (parts > 1 && r->corner_count + rest / VERTEX_LINE_MIN < r->limits.max_corners &&
	    r->corner_count + rest / VERTEX_LINE_MIN < UINT32_MAX - 1)
		return smdr_read_triangles_parallel(r, start_line, (unsigned)parts);
	return smdr_read_triangle_lines(r, start_line);
}
