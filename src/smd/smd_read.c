/* SMD and VTA reader: nodes, skeleton frames, vertexanimation and the file. The input and
 * its lines are smd_lines.c's; the triangles block is read in smd_parallel.c (on several
 * threads, or on this one by smd_triangles.c) and the scene built in smd_build.c; the state
 * they share is smd_read.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smd/smd_read.h"

/* ---- nodes -------------------------------------------------------------------------------- */

static bool read_name(reader *r, const char **name)
{
	skip_ws(r);
	const char *p = r->cur, *s, *e;
	if (p < r->line_end && *p == '"') {
		s = p + 1;
		e = memchr(s, '"', (size_t)(r->line_end - s));
		if (!e) return smdr_fail_at(r, p, SMDMX_ERROR_SYNTAX, "unterminated quoted name");
		r->cur = e + 1;
	} else {
		s = p;
		e = p;
		while (e < r->line_end && !is_sep(r, e)) e++;
		if (e == s) return smdr_fail_at(r, p, SMDMX_ERROR_SYNTAX, "expected a bone name");
		r->cur = e;
	}
	*name = sm_strdup(r->o, s, (size_t)(e - s), r->error);
	return *name != NULL;
}

static bool read_nodes(reader *r)
{
	uint32_t start_line = r->line_no;
	while (smdr_next_content_line(r)) {
		const char *w;
		size_t wn = peek_word(r, &w);
		if (word_is(w, wn, "end")) {
			r->cur += wn;
			return expect_end(r, "'end'");
		}
		node_info ni;
		const char *id_at = r->cur;
		SM_CHECK(read_int(r, &ni.id, "a bone id"));
		if (ni.id < 0 || (uint64_t)ni.id >= r->limits.max_joints)
			return smdr_fail_at(r, id_at, SMDMX_ERROR_LIMIT, "bone id %lld is outside 0..%zu",
			               (long long)ni.id, r->limits.max_joints - 1);
		const char *name = NULL;
		SM_CHECK(read_name(r, &name));
		skip_ws(r);
		ni.parent_col = col_of(r, r->cur);
		SM_CHECK(read_int(r, &ni.parent_id, "a parent bone id"));
		SM_CHECK(expect_end(r, "the parent id"));
		ni.line = r->line_no;
		size_t id = (size_t)ni.id;
		if (id >= r->id_map.count) {
			SM_CHECK(sm_vec_reserve(r->o, &r->id_map, sizeof(uint32_t), id + 1, r->error));
			uint32_t *m = r->id_map.data;
			for (size_t i = r->id_map.count; i <= id; i++) m[i] = SMDMX_NONE;
			r->id_map.count = id + 1;
		}
		uint32_t *map = r->id_map.data;
		if (map[id] != SMDMX_NONE)
			return smdr_fail_at(r, id_at, SMDMX_ERROR_BONE_REDEFINED, "bone id %lld is defined twice", (long long)ni.id);
		map[id] = (uint32_t)r->joints.count;
		node_info *n = sm_vec_push(r->o, &r->nodes, sizeof(node_info), r->error);
		smdmx_joint *j = sm_vec_push(r->o, &r->joints, sizeof(smdmx_joint), r->error);
		if (!n || !j) return false;
		*n = ni;
		memset(j, 0, sizeof(*j));
		j->name = name;
		j->parent = SMDMX_NONE;
		j->bind.orientation[3] = 1.0f;
	}
	if (r->error->code) return false;
	return sm_fail(r->error, SMDMX_ERROR_MISSING_END, start_line, 1, "'nodes' block has no 'end'");
}

static int compare_joint_names(const void *a, const void *b)
{
	return strcmp((*(const smdmx_joint *const *)a)->name, (*(const smdmx_joint *const *)b)->name);
}

/* studiomdl matches bones by name across files: two bones of one name are worth a warning. */
static bool warn_duplicate_names(reader *r)
{
	size_t n = r->joints.count;
	if (n < 2 || !r->warnings) return true;
	sm_vec sorted = SM_VEC_INIT;
	SM_CHECK(sm_vec_reserve(r->o, &sorted, sizeof(smdmx_joint *), n, r->error));
	const smdmx_joint **p = sorted.data;
	for (size_t i = 0; i < n; i++) p[i] = (const smdmx_joint *)r->joints.data + i;
	qsort(p, n, sizeof(*p), compare_joint_names);
	const node_info *nodes = r->nodes.data;
	for (size_t i = 1; i < n; i++) {
		if (strcmp(p[i]->name, p[i - 1]->name) == 0) {
			size_t later = p[i] > p[i - 1] ? (size_t)(p[i] - (const smdmx_joint *)r->joints.data)
			                               : (size_t)(p[i - 1] - (const smdmx_joint *)r->joints.data);
			sm_warn(r->warnings, SMDMX_WARNING_DUPLICATE_NAME, nodes[later].line, 1, "two bones are named '%s': both kept, in their order, but studiomdl finds a bone by its name and takes one of "
			        "them; rename one in the source",
			        p[i]->name);
		}
	}
	sm_vec_release(r->o, &sorted, sizeof(smdmx_joint *));
	return true;
}

/* Resolves parent ids and rejects cycles, once all nodes are known. */
static bool resolve_parents(reader *r)
{
	node_info *nodes = r->nodes.data;
	smdmx_joint *joints = r->joints.data;
	const uint32_t *map = r->id_map.data;
	size_t n = r->joints.count;
	for (size_t i = 0; i < n; i++) {
		int64_t p = nodes[i].parent_id;
		if (p == -1) continue;
		if (p < 0 || (uint64_t)p >= r->id_map.count || map[p] == SMDMX_NONE)
			return sm_fail(r->error, SMDMX_ERROR_BONE_UNDEFINED, nodes[i].line, nodes[i].parent_col,
			               "parent bone id %lld is not defined", (long long)p);
		joints[i].parent = map[p];
	}
	size_t i = sm_first_cyclic_joint(&r->o->alloc, joints, n);
	if (i == SIZE_MAX - 1) return sm_fail_oom(r->error);
	if (i != SIZE_MAX)
		return sm_fail(r->error, SMDMX_ERROR_PARENT_CYCLE, nodes[i].line, nodes[i].parent_col, "bone '%s' is its own ancestor",
		               joints[i].name);
	return true;
}

/* ---- time lines ----------------------------------------------------------------------------- */

/* The index of the frame numbered t among frames (ascending), or where it would go. */
static size_t frame_slot(const sm_vec *frames, int64_t t)
{
	const frame_info *f = frames->data;
	size_t lo = 0, hi = frames->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f[mid].number < t) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

/* "time N" with an optional "# name" (or "; name", "// name") comment. *again, when not NULL
 * (a skeleton), allows a number that repeats or goes back, as studiomdl's Grab_Animation
 * reads it (doc/format-notes.md, "Forms studiomdl accepts"): a frame already listed gets its
 * index in *again and its bone lines replace the earlier ones; a number in a gap, right after
 * a listed frame, is a new frame that starts as a copy of that one (its index in *again too).
 * Otherwise *again is SIZE_MAX and the frame is the new last one. */
static bool read_time(reader *r, sm_vec *frames, const char *block, size_t *again)
{
	if (again) *again = SIZE_MAX;
	const char *w;
	size_t wn = peek_word(r, &w);
	r->cur += wn;
	const char *num_at;
	skip_ws(r);
	num_at = r->cur;
	int64_t t;
	SM_CHECK(read_int(r, &t, "a frame number"));
	if (t < -1000000000 || t > 1000000000)
		return smdr_fail_at(r, num_at, SMDMX_ERROR_TIME, "frame number %lld is out of range", (long long)t);
	const frame_info *prev = frames->count ? (const frame_info *)frames->data + frames->count - 1 : NULL;
	size_t slot = SIZE_MAX;
	if (prev && t <= prev->number) {
		const frame_info *first = frames->data;
		if (!again)
			return smdr_fail_at(r, num_at, SMDMX_ERROR_TIME, "frame %lld does not follow frame %lld in '%s'",
			                    (long long)t, (long long)prev->number, block);
		if (t < first->number)
			return smdr_fail_at(r, num_at, SMDMX_ERROR_TIME,
			                    "frame %lld comes before the first frame, %lld, of '%s' (studiomdl refuses it too): "
			                    "renumber the frames from %lld",
			                    (long long)t, (long long)first->number, block, (long long)t);
		slot = frame_slot(frames, t);
		if (first[slot].number != t && first[slot - 1].number != t - 1)
			return smdr_fail_at(r, num_at, SMDMX_ERROR_TIME,
			                    "frame %lld goes back into frames %lld to %lld, which are missing: studiomdl would start it "
			                    "from no pose at all; list frame %lld before it, or renumber the frames",
			                    (long long)t, (long long)first[slot - 1].number + 1, (long long)first[slot].number - 1,
			                    (long long)t - 1);
		sm_warn(r->warnings, SMDMX_WARNING_FRAME_AGAIN, r->line_no, col_of(r, num_at),
		        "frame %lld after frame %lld in '%s': read as studiomdl reads it, the bone lines of a frame listed "
		        "again replacing the earlier ones (a frame in a gap starts as the frame before it); write the frames "
		        "once each, in order, to be sure of what plays",
		        (long long)t, (long long)prev->number, block);
	}
	if (frames->count >= r->limits.max_frames)
		return smdr_fail_at(r, num_at, SMDMX_ERROR_LIMIT, "more than %zu frames", r->limits.max_frames);
	const char *name = NULL;
	if (!at_end(r))
		return smdr_fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "unexpected text after the frame number");
	if (r->cur < r->line_end) {
		const char *s = r->cur + (*r->cur == '/' ? 2 : 1), *e = r->line_end;
		while (s < e && (*s == ' ' || *s == '\t')) s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
		if (e > s) {
			name = sm_strdup(r->o, s, (size_t)(e - s), r->error);
			if (!name) return false;
		}
	}
	if (slot != SIZE_MAX && ((const frame_info *)frames->data)[slot].number == t) {
		/* the same frame again: its lines replace the earlier ones */
		*again = slot;
		return true;
	}
	frame_info *f = sm_vec_push(r->o, frames, sizeof(frame_info), r->error);
	if (!f) return false;
	if (slot != SIZE_MAX) {
		/* a frame in a gap: in its place among the others */
		f = (frame_info *)frames->data + slot;
		memmove(f + 1, f, (frames->count - 1 - slot) * sizeof(frame_info));
		*again = slot;
	}
	f->number = t;
	f->name = name;
	f->line = r->line_no;
	f->column = col_of(r, num_at);
	return true;
}

/* Gaps between a skeleton's frames, once all are read (a frame listed late may fill one). */
static void warn_gaps(reader *r)
{
	const frame_info *f = r->frames.data;
	for (size_t i = 1; i < r->frames.count; i++) {
		if (f[i].number == f[i - 1].number + 1) continue;
		sm_warn(r->warnings, SMDMX_WARNING_MISSING_FRAME, f[i].line, f[i].column,
		        "frames %lld to %lld are missing: they play as the poses between the frames around them, and are written "
		        "so; nothing to do if the gap was meant",
		        (long long)f[i - 1].number + 1, (long long)f[i].number - 1);
	}
}

/* ---- skeleton ------------------------------------------------------------------------------- */

static bool read_skeleton(reader *r)
{
	uint32_t start_line = r->line_no;
	size_t nj = r->joints.count;
	sm_vec seen = SM_VEC_INIT; /* uint8_t per joint: listed in the first frame */
	SM_CHECK(sm_vec_reserve(r->o, &seen, 1, nj ? nj : 1, r->error));
	memset(seen.data, 0, nj ? nj : 1);
	if (r->frames.count) return smdr_fail_at(r, r->line, SMDMX_ERROR_SYNTAX, "a second 'skeleton' block");
	size_t cur = 0; /* the frame the bone lines go to */
	while (smdr_next_content_line(r)) {
		const char *w;
		size_t wn = peek_word(r, &w);
		if (word_is(w, wn, "end")) {
			r->cur += wn;
			SM_CHECK(expect_end(r, "'end'"));
			warn_gaps(r);
			if (r->frames.count) {
				const uint8_t *s = seen.data;
				for (size_t j = 0; j < nj; j++) {
					if (!s[j]) {
						r->first_frame_missing = true;
						r->missing_line = ((const frame_info *)r->frames.data)[0].line;
						break;
					}
				}
			}
			sm_vec_release(r->o, &seen, 1);
			return true;
		}
		if (word_is(w, wn, "time")) {
			size_t before = r->frames.count, again;
			SM_CHECK(read_time(r, &r->frames, "skeleton", &again));
			if (r->frames.count == before) {
				/* a frame listed again: its bone lines replace the earlier ones */
				cur = again;
				continue;
			}
			/* A new frame starts as a copy of the one before (bones left out hold). */
			size_t f = again != SIZE_MAX ? again : r->frames.count - 1, need;
			if (!sm_mul(r->frames.count, nj, &need) || need > r->limits.max_keys)
				return smdr_fail_at(r, r->line, SMDMX_ERROR_LIMIT, "more than %zu bone poses (frames times bones)",
				               r->limits.max_keys);
			SM_CHECK(sm_vec_reserve(r->o, &r->poses, sizeof(smdmx_transform), need, r->error));
			smdmx_transform *poses = r->poses.data;
			if (f == 0) {
				for (size_t j = 0; j < nj; j++) {
					memset(&poses[j], 0, sizeof(smdmx_transform));
					poses[j].orientation[3] = 1.0f;
				}
			} else if (nj) { /* no bones: nothing to hold (and no array to point into) */
				/* a frame in a gap goes in its place: the frames after it move up one */
				memmove(poses + (f + 1) * nj, poses + f * nj, (r->frames.count - 1 - f) * nj * sizeof(smdmx_transform));
				memcpy(poses + f * nj, poses + (f - 1) * nj, nj * sizeof(smdmx_transform));
			}
			r->poses.count = need;
			cur = f;
			continue;
		}
		if (!r->frames.count)
			return smdr_fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "bone line before the first 'time'");
		const char *id_at = r->cur;
		int64_t id;
		uint32_t j = 0;
		float pos[3];
		double rot[3], q[4];
		SM_CHECK(read_int(r, &id, "a bone id"));
		SM_CHECK(smdr_bone_index(r, id, id_at, &j));
		SM_CHECK(read_float(r, &pos[0], "position x"));
		SM_CHECK(read_float(r, &pos[1], "position y"));
		SM_CHECK(read_float(r, &pos[2], "position z"));
		SM_CHECK(read_double(r, &rot[0], "rotation x"));
		SM_CHECK(read_double(r, &rot[1], "rotation y"));
		SM_CHECK(read_double(r, &rot[2], "rotation z"));
		SM_CHECK(expect_end(r, "the rotation"));
		smdmx_euler_to_quat(rot, q);
		smdmx_transform *t = (smdmx_transform *)r->poses.data + cur * nj + j;
		memcpy(t->position, pos, sizeof(pos));
		for (int i = 0; i < 4; i++) t->orientation[i] = (float)q[i];
		if (cur == 0) ((uint8_t *)seen.data)[j] = 1;
	}
	if (r->error->code) return false;
	return sm_fail(r->error, SMDMX_ERROR_MISSING_END, start_line, 1, "'skeleton' block has no 'end'");
}

/* ---- vertexanimation ----------------------------------------------------------------------- */

static bool finish_shape(reader *r, sm_vec *pos_idx, sm_vec *pos_d, sm_vec *nrm_idx, sm_vec *nrm_d)
{
	smdmx_flex_shape *sh = sm_vec_push(r->o, &r->shapes, sizeof(smdmx_flex_shape), r->error);
	if (!sh) return false;
	memset(sh, 0, sizeof(*sh));
	const frame_info *f = (const frame_info *)r->vta_frames.data + r->vta_frames.count - 1;
	sh->frame = (int32_t)f->number;
	sh->name = f->name;
	sh->line = f->line;
	sh->position_indices = pos_idx->data;
	sh->position_deltas = pos_d->data;
	sh->position_count = pos_idx->count;
	sh->normal_indices = nrm_idx->data;
	sh->normal_deltas = nrm_d->data;
	sh->normal_count = nrm_idx->count;
	sh->mesh = SMDMX_NONE; /* set when the mesh is made */
	return true;
}

static int base_line_order(const void *a, const void *b)
{
	uint32_t x = ((const base_line *)a)->id, y = ((const base_line *)b)->id;
	return x < y ? -1 : x > y;
}

/* The base frame lists each vertex id once, in any order and with any gaps (Crowbar numbers
 * a later body part's vertices from where the earlier ones end). The vertices are kept in
 * the order of their ids, so memory follows the lines read, never the largest id. */
static bool finish_base(reader *r)
{
	base_line *lines = r->vta_lines.data;
	size_t n = r->vta_lines.count;
	bool sorted = true, dense = true;
	for (size_t i = 1; i < n && sorted; i++) sorted = lines[i - 1].id < lines[i].id;
	if (!sorted) qsort(lines, n, sizeof(base_line), base_line_order);
	for (size_t i = 0; i < n; i++) {
		if (i && lines[i].id == lines[i - 1].id) {
			uint32_t first = lines[i - 1].line < lines[i].line ? lines[i].line : lines[i - 1].line;
			return sm_fail(r->error, SMDMX_ERROR_VERTEX_ID, first, 1, "vertex id %u appears twice in the base frame",
			               lines[i].id);
		}
		dense = dense && lines[i].id == i;
	}
	SM_CHECK(sm_vec_reserve(r->o, &r->vta_base, 6 * sizeof(float), n ? n : 1, r->error));
	r->vta_id_lines = sm_owned_alloc(r->o, (n ? n : 1) * sizeof(uint32_t), r->error);
	if (!r->vta_id_lines) return false;
	if (!dense) {
		r->vta_ids = sm_owned_alloc(r->o, (n ? n : 1) * sizeof(uint32_t), r->error);
		if (!r->vta_ids) return false;
	}
	float *base = r->vta_base.data;
	for (size_t i = 0; i < n; i++) {
		memcpy(base + 6 * i, lines[i].v, 6 * sizeof(float));
		r->vta_id_lines[i] = lines[i].line;
		if (r->vta_ids) r->vta_ids[i] = lines[i].id;
	}
	r->vta_base.count = n;
	sm_vec_release(r->o, &r->vta_lines, sizeof(base_line));
	return true;
}

/* The base vertex of an id, or SIZE_MAX when the base frame does not list it. */
static size_t base_vertex(const reader *r, size_t id)
{
	if (!r->vta_ids) return id < r->vta_base.count ? id : SIZE_MAX;
	size_t lo = 0, hi = r->vta_base.count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->vta_ids[mid] < id) lo = mid + 1;
		else hi = mid;
	}
	return lo < r->vta_base.count && r->vta_ids[lo] == id ? lo : SIZE_MAX;
}

static bool read_vertexanimation(reader *r)
{
	uint32_t start_line = r->line_no;
	if (r->has_vertex_animation) return smdr_fail_at(r, r->line, SMDMX_ERROR_SYNTAX, "a second 'vertexanimation' block");
	r->has_vertex_animation = true;
	sm_vec pi = SM_VEC_INIT, pd = SM_VEC_INIT, ni = SM_VEC_INIT, nd = SM_VEC_INIT;
	bool in_shape = false;
	while (smdr_next_content_line(r)) {
		const char *w;
		size_t wn = peek_word(r, &w);
		bool is_end = word_is(w, wn, "end"), is_time = word_is(w, wn, "time");
		if ((is_end || is_time) && in_shape) {
			SM_CHECK(finish_shape(r, &pi, &pd, &ni, &nd));
			pi = pd = ni = nd = (sm_vec)SM_VEC_INIT;
			in_shape = false;
		}
		if (is_end) {
			if (r->vta_frames.count == 1) SM_CHECK(finish_base(r));
			r->cur += wn;
			return expect_end(r, "'end'");
		}
		if (is_time) {
			/* A shape that moves nothing may have no 'time' here (Valve's exporters leave
			 * it out): the skeleton block lists it, so a gap is no missing frame. */
			SM_CHECK(read_time(r, &r->vta_frames, "vertexanimation", NULL));
			if (r->vta_frames.count == 2) SM_CHECK(finish_base(r));
			in_shape = r->vta_frames.count > 1;
			continue;
		}
		if (!r->vta_frames.count)
			return smdr_fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "vertex line before the first 'time'");
		const char *id_at = r->cur;
		int64_t id;
		float v[6];
		SM_CHECK(read_int(r, &id, "a vertex id"));
		if (id < 0 || (uint64_t)id >= r->limits.max_corners)
			return smdr_fail_at(r, id_at, SMDMX_ERROR_VERTEX_ID, "vertex id %lld is out of range", (long long)id);
		static const char *const what[6] = { "position x", "position y", "position z", "normal x", "normal y", "normal z" };
		for (int i = 0; i < 6; i++) SM_CHECK(read_float(r, &v[i], what[i]));
		SM_CHECK(expect_end(r, "the normal"));
		size_t uid = (size_t)id;
		if (r->vta_frames.count == 1) {
			base_line *b = sm_vec_push(r->o, &r->vta_lines, sizeof(base_line), r->error);
			if (!b) return false;
			b->id = (uint32_t)uid;
			b->line = r->line_no;
			memcpy(b->v, v, sizeof(v));
			continue;
		}
		size_t bv = base_vertex(r, uid);
		if (bv == SIZE_MAX)
			return smdr_fail_at(r, id_at, SMDMX_ERROR_VERTEX_ID, "vertex id %lld is not in the base frame", (long long)id);
		const float *b = (const float *)r->vta_base.data + 6 * bv;
		uint32_t *a = sm_vec_push(r->o, &pi, sizeof(uint32_t), r->error);
		float *dp = sm_vec_push(r->o, &pd, sizeof(smdmx_vec3), r->error);
		uint32_t *c = sm_vec_push(r->o, &ni, sizeof(uint32_t), r->error);
		float *dn = sm_vec_push(r->o, &nd, sizeof(smdmx_vec3), r->error);
		if (!a || !dp || !c || !dn) return false;
		*a = *c = (uint32_t)bv;
		for (int i = 0; i < 3; i++) {
			dp[i] = v[i] - b[i];
			dn[i] = v[3 + i] - b[3 + i];
		}
	}
	if (r->error->code) return false;
	return sm_fail(r->error, SMDMX_ERROR_MISSING_END, start_line, 1, "'vertexanimation' block has no 'end'");
}

/* ---- the file ------------------------------------------------------------------------------ */

static bool read_file(reader *r)
{
	if (!smdr_next_content_line(r)) {
		if (r->error->code) return false;
		return sm_fail(r->error, SMDMX_ERROR_EMPTY, 1, 1, "empty file: expected 'version'");
	}
	const char *w;
	size_t wn = peek_word(r, &w);
	if (!word_is(w, wn, "version"))
		return smdr_fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "expected 'version' at the start of an SMD file");
	r->cur += wn;
	skip_ws(r);
	const char *v_at = r->cur;
	int64_t v;
	SM_CHECK(read_int(r, &v, "a version number"));
	if (v < 1 || v > 3) return smdr_fail_at(r, v_at, SMDMX_ERROR_VERSION, "unsupported SMD version %lld (1 to 3 are read)", (long long)v);
	/* 3 carries extra UV sets (decision 12); 2 has no meaning any writer gives it */
	if (v == 2)
		sm_warn(r->warnings, SMDMX_WARNING_VERSION, r->line_no, col_of(r, v_at),
		        "SMD version 2, which no format defines: read as version 1; nothing to do");
	r->version = (int)v;
	SM_CHECK(expect_end(r, "the version"));
	bool had_nodes = false;
	while (smdr_next_content_line(r)) {
		wn = peek_word(r, &w);
		const char *at = r->cur;
		r->cur += wn;
		if (word_is(w, wn, "nodes")) {
			if (had_nodes) return smdr_fail_at(r, at, SMDMX_ERROR_SYNTAX, "a second 'nodes' block");
			SM_CHECK(expect_end(r, "'nodes'"));
			SM_CHECK(read_nodes(r));
			SM_CHECK(resolve_parents(r));
			SM_CHECK(warn_duplicate_names(r));
			had_nodes = true;
		} else if (word_is(w, wn, "skeleton") || word_is(w, wn, "triangles") ||
		           word_is(w, wn, "vertexanimation")) {
			if (!had_nodes) return smdr_fail_at(r, at, SMDMX_ERROR_SYNTAX, "'%.*s' before 'nodes'", (int)wn, w);
			SM_CHECK(expect_end(r, "the block name"));
			if (w[0] == 's' || w[0] == 'S') SM_CHECK(read_skeleton(r));
			else if (w[0] == 't' || w[0] == 'T') SM_CHECK(smdr_read_triangles(r));
			else SM_CHECK(read_vertexanimation(r));
		} else {
			return smdr_fail_at(r, at, SMDMX_ERROR_UNKNOWN_BLOCK, "unknown block '%.*s'", (int)(wn > 64 ? 64 : wn), w);
		}
	}
	if (r->error->code) return false;
	if (!had_nodes) return sm_fail(r->error, SMDMX_ERROR_SYNTAX, r->line_no, 1, "no 'nodes' block");
	return smdr_build_scene(r);
}

static const char *path_stem(const char *path, size_t *len)
{
	const char *s = strrchr(path, '/');
	const char *b = strrchr(path, '\\');
	if (b && (!s || b > s)) s = b;
	s = s ? s + 1 : path;
	const char *dot = strrchr(s, '.');
	*len = dot && dot != s ? (size_t)(dot - s) : strlen(s);
	return s;
}

static smdmx_scene *read_common(reader *r, const smdmx_smd_read_options *options, const char *path)
{
	smdmx_smd_read_options opts;
	memset(&opts, 0, sizeof(opts));
	if (options) opts = *options;
	r->limits = sm_limits_resolve(&opts.limits);
	r->frame_rate = opts.frame_rate > 0 ? opts.frame_rate : 30.0;
	r->record_lines = opts.record_lines;
	r->threads = opts.threads ? opts.threads : 1;
	r->progress = opts.progress;
	r->stop_off = UINT64_MAX;
	r->material_lines = r->triangle_lines = (sm_vec)SM_VEC_INIT;
	r->nul_off = UINT64_MAX;
	r->last_material = SMDMX_NONE;
	r->nodes = r->joints = r->id_map = r->frames = r->poses = (sm_vec)SM_VEC_INIT;
	r->positions = r->weight_offsets = r->weights = r->position_indices = (sm_vec)SM_VEC_INIT;
	r->normals = r->normal_indices = r->materials = r->face_sets = r->face_set_of = (sm_vec)SM_VEC_INIT;
	r->vta_frames = r->vta_base = r->vta_lines = r->shapes = (sm_vec)SM_VEC_INIT;
	/* Threads under a memory_limit or fail_after: their allocations counted together, the
	 * limit the read's (the scene leaves the budget when it is handed back). */
	sm_budget budget;
	bool budgeted = r->threads > 1 && (opts.allocator.memory_limit || opts.allocator.fail_after);
	if (budgeted) opts.allocator = sm_budget_start(&budget, &options->allocator);
	sm_warnings_start(r->warnings, &opts.allocator);
	r->scene = sm_scene_new(&opts.allocator, r->error);
	if (!r->scene) {
		if (budgeted) sm_warnings_leave(r->warnings, &budget);
		return NULL;
	}
	r->o = r->scene->owner;
	const char *name = opts.name;
	size_t name_len = name ? strlen(name) : 0;
	if (!name && path) name = path_stem(path, &name_len);
	if (!name) name = "model", name_len = 5;
	r->scene->name = sm_strdup(r->o, name, name_len, r->error);
	bool ok = r->scene->name != NULL;
	uint64_t file_size = 0;
	if (ok && r->fd == OS_NO_FILE && r->len > r->limits.max_file_size) ok = smdr_file_too_large(r);
	if (ok && r->fd != OS_NO_FILE && os_file_size(r->fd, &file_size)) {
		if (file_size > r->limits.max_file_size) ok = smdr_file_too_large(r);
		r->file_size = file_size;
	}
	if (ok && r->fd != OS_NO_FILE) {
		/* A file smaller than the chunk is read into a buffer of its size (4 KiB at least;
		 * the buffer grows as for a long line if the file grows meanwhile), so a batch of
		 * small files neither asks for nor populates a chunk's megabyte for each. A file
		 * that says 0 bytes (as some special files do) gets the whole chunk. */
		r->chunk_cap = file_size && file_size < CHUNK_SIZE ? (size_t)file_size + 1 : CHUNK_SIZE;
		if (r->chunk_cap < 4096) r->chunk_cap = 4096;
		r->chunk = sm_malloc(&r->o->alloc, r->chunk_cap);
		if (!r->chunk) ok = sm_fail_oom(r->error);
		else {
			r->buf = r->chunk;
			ok = smdr_refill(r);
		}
	} else if (ok) {
		smdr_note_nuls(r, 0);
		smdr_note_crs(r, 0);
	}
	if (ok) ok = read_file(r);
	smdr_told(r, 0, true);
	if (r->chunk) sm_free(&r->o->alloc, r->chunk, r->chunk_cap);
	/* Release temporaries that the scene does not point to. */
	sm_vec_release(r->o, &r->nodes, sizeof(node_info));
	sm_vec_release(r->o, &r->id_map, sizeof(uint32_t));
	sm_vec_release(r->o, &r->frames, sizeof(frame_info));
	sm_vec_release(r->o, &r->poses, sizeof(smdmx_transform));
	sm_vec_release(r->o, &r->vta_base, 6 * sizeof(float));
	sm_vec_release(r->o, &r->vta_lines, sizeof(base_line));
	sm_vec_release(r->o, &r->face_set_of, sizeof(uint32_t));
	if (ok) ok = smdmx_scene_validate(r->scene, r->error);
	if (ok) ok = sm_warnings_kept(r->warnings, r->error);
	if (budgeted) sm_warnings_leave(r->warnings, &budget);
	if (!ok) {
		smdmx_scene_free(r->scene);
		return NULL;
	}
	if (budgeted) sm_budget_leave(&budget, &r->o->alloc);
	return r->scene;
}

smdmx_scene *smdmx_smd_read_memory(const void *data, size_t size, const smdmx_smd_read_options *options,
                                   smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	reader r;
	memset(&r, 0, sizeof(r));
	memset(error, 0, sizeof(*error));
	sm_warnings_start(warnings, options ? &options->allocator : NULL);
	r.fd = OS_NO_FILE;
	r.buf = data ? data : "";
	r.len = data ? size : 0;
	r.eof = true;
	r.error = error;
	r.warnings = warnings;
	return read_common(&r, options, NULL);
}

smdmx_scene *smdmx_smd_read_file(const char *path, const smdmx_smd_read_options *options, smdmx_error *error,
                                 smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	if (!path) return sm_fail_null(error, __func__, "path"), NULL;
	sm_warnings_start(warnings, options ? &options->allocator : NULL);
	os_file fd = strcmp(path, "-") == 0 ? os_stdin() : os_open_read(path);
	if (fd == OS_NO_FILE) {
		sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot open: %s", os_error_text(errno));
		return NULL;
	}
	reader r;
	memset(&r, 0, sizeof(r));
	r.fd = fd;
	r.error = error;
	r.warnings = warnings;
	smdmx_scene *s = read_common(&r, options, path);
	os_close(fd);
	return s;
}
