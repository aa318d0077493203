/* SMD and VTA reader.
 *
 * Input is read in chunks, line by line, so memory stays bounded by the longest line
 * (smdmx_limits.max_line_length) plus what the scene needs. Lines end in LF, CRLF or a
 * lone CR. Triangle corners are deduplicated into position (with weights), normal and UV
 * arrays through hash tables keyed on the exact float bits. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "support/num.h"
#include "platform/os.h"
#include "smdmx/math.h"
#include "smdmx/smd.h"

#define CHUNK_SIZE ((size_t)1 << 20)

/* ---- deduplication ---------------------------------------------------------------------- */

typedef struct dedup {
	uint64_t *slots; /* (hash << 32) | (value index + 1); 0 = empty */
	size_t cap;      /* power of two */
	size_t count;
	size_t slot;     /* owner slot */
} dedup;

/* Hash of n 32-bit words (the bits of floats, or weight links), read with memcpy so that
 * float data is never accessed through an integer pointer. */
static inline uint32_t hash_words(const void *data, size_t n, uint32_t seed)
{
	const unsigned char *b = data;
	uint64_t h = seed * UINT64_C(0x9E3779B97F4A7C15);
	for (size_t i = 0; i < n; i++) {
		uint32_t w;
		memcpy(&w, b + 4 * i, 4);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
	}
	h ^= h >> 32;
	return (uint32_t)h;
}

/* ---- the reader -------------------------------------------------------------------------- */

typedef struct frame_info {
	int64_t number;
	const char *name;   /* text of a "# name" comment on the time line, or NULL */
	uint32_t line;
} frame_info;

typedef struct node_info {
	int64_t id;
	int64_t parent_id;
	uint32_t line, parent_col;
} node_info;

typedef struct base_line {
	uint32_t id;
	uint32_t line;
	float v[6];
} base_line;

typedef struct uv_build {
	sm_vec data;      /* smdmx_vec2 */
	sm_vec indices;   /* uint32_t per corner */
	dedup table;
} uv_build;

typedef struct faceset_build {
	uint32_t material;
	sm_vec corners;   /* uint32_t */
	sm_vec offsets;   /* uint32_t */
} faceset_build;

typedef struct reader {
	/* input */
	os_file fd;
	const char *buf;        /* memory input, or chunk buffer */
	char *chunk;            /* owned chunk buffer (fd input) */
	size_t chunk_cap;
	size_t len, pos;        /* valid bytes in buf, read position */
	uint64_t base_off;      /* file offset of buf[0] */
	uint64_t nul_off;       /* file offset of the first NUL byte, or UINT64_MAX */
	bool eof;
	bool cr_seen;
	bool at;                /* fd input read by offset (os_read_at), not through its position */
	const char *next_nl;    /* cached next '\n' at or after pos (buf + len: none), or NULL */
	const char *next_cr;    /* the same for '\r' */
	uint32_t line_no;
	const char *line, *line_end, *cur;

	/* one file's triangles on several threads (see read_triangles_parallel) */
	unsigned threads;       /* at most this many; 1: this thread alone */
	uint64_t file_size;     /* of a regular file, else 0 */
	bool sub;               /* reads part of a triangles block for another reader */
	bool ended;             /* the block's 'end' was read */
	uint64_t stop_off;      /* stop at a material line at or past this offset; UINT64_MAX: never */
	uint64_t stopped_off;   /* where it stopped (that line unread; line_no counts those before) */

	/* context */
	smdmx_scene *scene;
	sm_owner *o;
	smdmx_error *error;
	smdmx_warnings *warnings;
	smdmx_limits limits;
	double frame_rate;
	int version;

	/* nodes */
	sm_vec nodes;           /* node_info */
	sm_vec joints;          /* smdmx_joint */
	sm_vec id_map;          /* uint32_t joint index per bone id, SMDMX_NONE if undefined */

	/* skeleton */
	sm_vec frames;          /* frame_info */
	sm_vec poses;           /* smdmx_transform, joint_count per frame */
	bool first_frame_missing;
	uint32_t missing_line;

	/* triangles */
	bool has_triangles;
	size_t corner_count;
	sm_vec positions;       /* smdmx_vec3 */
	sm_vec weight_offsets;  /* uint32_t, position_count + 1 */
	sm_vec weights;         /* smdmx_weight */
	sm_vec position_indices;
	dedup position_table;
	sm_vec normals;
	sm_vec normal_indices;
	dedup normal_table;
	uv_build uv[9];
	size_t uv_count;
	sm_vec materials;       /* smdmx_material */
	dedup material_table;
	bool record_lines;
	sm_vec material_lines, triangle_lines; /* uint32_t, with record_lines */
	sm_vec face_sets;       /* faceset_build */
	uint32_t last_material;
	size_t last_face_set;
	sm_vec face_set_of;     /* uint32_t per material: its face set, or SMDMX_NONE */
	bool any_links;

	/* vertexanimation */
	bool has_vertex_animation;
	sm_vec vta_frames;      /* frame_info */
	sm_vec vta_lines;       /* base_line: the base frame as read (memory follows the input) */
	sm_vec vta_base;        /* float[6] per base vertex, in the order of their ids, once the base frame is complete */
	uint32_t *vta_ids;      /* the ids, ascending; NULL when they are 0 to n-1 */
	uint32_t *vta_id_lines; /* the line of each base vertex */
	sm_vec shapes;          /* smdmx_flex_shape */
} reader;

static uint32_t col_of(const reader *r, const char *p)
{
	return (uint32_t)(p - r->line) + 1;
}

static bool fail_at(reader *r, const char *p, smdmx_error_code code, const char *fmt, ...)
    SM_PRINTF(4, 5);

static bool fail_at(reader *r, const char *p, smdmx_error_code code, const char *fmt, ...)
{
	if (r->error->code != SMDMX_ERROR_NONE) return false;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sm_fail(r->error, code, r->line_no, p ? col_of(r, p) : 0, "%s", msg);
}

/* ---- input ---------------------------------------------------------------------------- */

static void note_nuls(reader *r, size_t from)
{
	if (r->nul_off != UINT64_MAX || from >= r->len) return;
	const char *z = memchr(r->buf + from, '\0', r->len - from);
	if (z) r->nul_off = r->base_off + (uint64_t)(z - r->buf);
}

static void note_crs(reader *r, size_t from)
{
	if (!r->cr_seen && from < r->len && memchr(r->buf + from, '\r', r->len - from)) r->cr_seen = true;
}

static bool file_too_large(reader *r)
{
	return sm_fail(r->error, SMDMX_ERROR_LIMIT, 0, 0, "file larger than %zu bytes", r->limits.max_file_size);
}

/* Reads more input into the chunk buffer, keeping the unread tail. A file over the size
 * limit fails before it is parsed (by its size when it has one, else as it is read). */
static bool refill(reader *r)
{
	if (r->fd == OS_NO_FILE) {
		r->eof = true;
		return true;
	}
	size_t keep = r->len - r->pos;
	r->next_nl = r->next_cr = NULL; /* the buffer moves and grows */
	if (r->pos > 0) {
		memmove(r->chunk, r->chunk + r->pos, keep);
		r->base_off += r->pos;
		r->pos = 0;
		r->len = keep;
	}
	if (r->len == r->chunk_cap) {
		/* A line longer than the buffer: grow up to the line limit. */
		size_t cap = r->chunk_cap * 2;
		size_t most = r->limits.max_line_length + 2;
		if (cap > most + CHUNK_SIZE) cap = most + CHUNK_SIZE;
		if (cap <= r->chunk_cap) return true;
		char *c = sm_realloc(&r->o->alloc, r->chunk, r->chunk_cap, cap);
		if (!c) return sm_fail_oom(r->error);
		r->chunk = c;
		r->chunk_cap = cap;
	}
	r->buf = r->chunk;
	size_t from = r->len;
	while (r->len < r->chunk_cap) {
		ptrdiff_t n = r->at ? os_read_at(r->fd, r->chunk + r->len, r->chunk_cap - r->len, r->base_off + r->len)
		                    : os_read(r->fd, r->chunk + r->len, r->chunk_cap - r->len);
		if (n < 0) {
			return sm_fail(r->error, SMDMX_ERROR_IO, 0, 0, "read failed: %s", os_error_text(errno));
		}
		if (n == 0) {
			r->eof = true;
			break;
		}
		r->len += (size_t)n;
		if (r->base_off + r->len > r->limits.max_file_size) return file_too_large(r);
		if (r->len - from >= CHUNK_SIZE / 2) break;
	}
	note_nuls(r, from);
	note_crs(r, from);
	return true;
}

/* The next c at or after s, remembered so that no byte is searched twice: a file with lone
 * CRs has no LF to find, and searching again from every line would be quadratic. */
static const char *find_cached(const char **cache, const char *s, const char *e, char c)
{
	if (!*cache || *cache < s) {
		const char *p = s < e ? memchr(s, c, (size_t)(e - s)) : NULL;
		*cache = p ? p : e;
	}
	return *cache < e ? *cache : NULL;
}

/* Finds the next line. Returns false at the end of input or on error (check error). */
static bool next_line(reader *r)
{
	for (;;) {
		const char *s = r->buf + r->pos, *e = r->buf + r->len;
		const char *nl = find_cached(&r->next_nl, s, e, '\n');
		const char *term = nl;
		size_t term_len = 1;
		if (r->cr_seen) {
			const char *lim = nl ? nl : e;
			const char *cr = find_cached(&r->next_cr, s, e, '\r');
			if (cr && cr >= lim) cr = NULL;
			if (cr) {
				if (cr + 1 == nl) {
					term = cr;
					term_len = 2;
				} else if (cr + 1 < e || r->eof) {
					term = cr;
					term_len = 1;
				} else {
					term = NULL; /* a CR at the end of the buffer: LF may follow */
				}
			}
		}
		if (term || (r->eof && s < e)) {
			const char *line_end = term ? term : e;
			r->line = s;
			r->line_end = line_end;
			r->cur = s;
			r->line_no++;
			r->pos = (size_t)(line_end - r->buf) + (term ? term_len : 0);
			uint64_t off = r->base_off + (uint64_t)(s - r->buf);
			if (r->nul_off >= off && r->nul_off < off + (uint64_t)(line_end - s) + (term ? term_len : 0))
				return fail_at(r, s + (r->nul_off - off), SMDMX_ERROR_NUL_BYTE, "NUL byte in text");
			if ((size_t)(line_end - s) > r->limits.max_line_length)
				return fail_at(r, s + r->limits.max_line_length, SMDMX_ERROR_LINE_TOO_LONG,
				               "line longer than %zu bytes", r->limits.max_line_length);
			if (r->line_no == 1 && !r->sub && line_end - s >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
				/* Windows editors start UTF-8 with a byte order mark, which studiomdl's
				 * reader would take for part of "version". Columns still count it. */
				r->cur = s + 3;
				sm_warn(r->warnings, SMDMX_WARNING_BOM, 1, 1,
				        "the file starts with a UTF-8 byte order mark (as Windows editors save it): skipped; nothing to do");
			}
			return true;
		}
		if (r->eof) return false;
		if ((size_t)(e - s) > r->limits.max_line_length + 1) {
			r->line = s;
			r->line_end = e;
			r->line_no++;
			return fail_at(r, s + r->limits.max_line_length, SMDMX_ERROR_LINE_TOO_LONG,
			               "line longer than %zu bytes", r->limits.max_line_length);
		}
		if (!refill(r)) return false;
	}
}

/* ---- tokens ----------------------------------------------------------------------------- */

/* Whitespace inside a line: space, tab, vertical tab, form feed. */
static const uint8_t ws_class[256] = { [' '] = 1, ['\t'] = 1, ['\v'] = 1, ['\f'] = 1 };

static inline bool is_ws(char c)
{
	return ws_class[(uint8_t)c];
}

static inline void skip_ws(reader *r)
{
	const char *p = r->cur, *e = r->line_end;
	while (p < e && is_ws(*p)) p++;
	r->cur = p;
}

/* At the end of the line, or at a comment (decision 13). */
static inline bool at_end(reader *r)
{
	skip_ws(r);
	const char *p = r->cur;
	if (p >= r->line_end) return true;
	return *p == '#' || *p == ';' || (*p == '/' && p + 1 < r->line_end && p[1] == '/');
}

static bool expect_end(reader *r, const char *after)
{
	if (at_end(r)) return true;
	return fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "unexpected text after %s", after);
}

static inline bool is_sep(const reader *r, const char *p)
{
	return p >= r->line_end || is_ws(*p);
}

static bool number_error(reader *r, const char *p, sm_num_status st, const char *what)
{
	if (p >= r->line_end) return fail_at(r, p, SMDMX_ERROR_SYNTAX, "expected %s, found end of line", what);
	if (st == SM_NUM_RANGE)
		return fail_at(r, p, SMDMX_ERROR_NOT_FINITE, "%s is not a finite float32 value", what);
	if (st == SM_NUM_TOO_LONG)
		return fail_at(r, p, SMDMX_ERROR_LIMIT, "%s has %d characters or more", what, SM_NUM_MAX_LENGTH);
	return fail_at(r, p, SMDMX_ERROR_BAD_NUMBER, "expected %s", what);
}

static inline bool read_float(reader *r, float *out, const char *what)
{
	skip_ws(r);
	const char *next;
	if (SM_LIKELY(sm_parse_float_fast(r->cur, r->line_end, out, &next) && is_sep(r, next))) {
		r->cur = next;
		return true;
	}
	sm_num_status st = sm_parse_float(r->cur, r->line_end, out, &next);
	if (SM_UNLIKELY(st != SM_NUM_OK || !is_sep(r, next))) return number_error(r, r->cur, st, what);
	r->cur = next;
	return true;
}

static bool read_double(reader *r, double *out, const char *what)
{
	skip_ws(r);
	const char *next;
	sm_num_status st = sm_parse_double(r->cur, r->line_end, out, &next);
	if (st == SM_NUM_OK && (fabs(*out) > 3.4028234663852886e38)) st = SM_NUM_RANGE;
	if (st != SM_NUM_OK || !is_sep(r, next)) return number_error(r, r->cur, st, what);
	r->cur = next;
	return true;
}

static inline bool read_int(reader *r, int64_t *out, const char *what)
{
	skip_ws(r);
	const char *next;
	if (SM_LIKELY(sm_parse_int_fast(r->cur, r->line_end, out, &next) && is_sep(r, next))) {
		r->cur = next;
		return true;
	}
	sm_num_status st = sm_parse_int(r->cur, r->line_end, out, &next);
	if (SM_UNLIKELY(st != SM_NUM_OK || !is_sep(r, next))) {
		if (st == SM_NUM_RANGE) return fail_at(r, r->cur, SMDMX_ERROR_BAD_NUMBER, "%s is out of range", what);
		if (r->cur >= r->line_end)
			return fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "expected %s, found end of line", what);
		return fail_at(r, r->cur, SMDMX_ERROR_BAD_NUMBER, "expected %s", what);
	}
	r->cur = next;
	return true;
}

/* The next whitespace-delimited word, without consuming it. */
static size_t peek_word(reader *r, const char **word)
{
	skip_ws(r);
	const char *p = r->cur;
	while (p < r->line_end && !is_sep(r, p)) p++;
	*word = r->cur;
	return (size_t)(p - r->cur);
}

static bool word_is(const char *w, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n == l && strncasecmp(w, lit, l) == 0;
}

/* Advances to the next line that is not blank or a comment. */
static bool next_content_line(reader *r)
{
	while (next_line(r)) {
		if (!at_end(r)) return true;
	}
	return false;
}

/* ---- nodes -------------------------------------------------------------------------------- */

static bool read_name(reader *r, const char **name)
{
	skip_ws(r);
	const char *p = r->cur, *s, *e;
	if (p < r->line_end && *p == '"') {
		s = p + 1;
		e = memchr(s, '"', (size_t)(r->line_end - s));
		if (!e) return fail_at(r, p, SMDMX_ERROR_SYNTAX, "unterminated quoted name");
		r->cur = e + 1;
	} else {
		s = p;
		e = p;
		while (e < r->line_end && !is_sep(r, e)) e++;
		if (e == s) return fail_at(r, p, SMDMX_ERROR_SYNTAX, "expected a bone name");
		r->cur = e;
	}
	*name = sm_strdup(r->o, s, (size_t)(e - s), r->error);
	return *name != NULL;
}

static bool read_nodes(reader *r)
{
	uint32_t start_line = r->line_no;
	while (next_content_line(r)) {
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
			return fail_at(r, id_at, SMDMX_ERROR_LIMIT, "bone id %lld is outside 0..%zu",
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
			return fail_at(r, id_at, SMDMX_ERROR_BONE_REDEFINED, "bone id %lld is defined twice", (long long)ni.id);
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

static bool bone_index(reader *r, int64_t id, const char *at, uint32_t *out)
{
	const uint32_t *map = r->id_map.data;
	if (SM_UNLIKELY(id < 0 || (uint64_t)id >= r->id_map.count || map[id] == SMDMX_NONE))
		return fail_at(r, at, SMDMX_ERROR_BONE_UNDEFINED, "bone id %lld is not defined in 'nodes'", (long long)id);
	*out = map[id];
	return true;
}

/* ---- time lines ----------------------------------------------------------------------------- */

/* "time N" with an optional "# name" (or "; name", "// name") comment. */
static bool read_time(reader *r, sm_vec *frames, const char *block, bool gaps_missing)
{
	const char *w;
	size_t wn = peek_word(r, &w);
	r->cur += wn;
	const char *num_at;
	skip_ws(r);
	num_at = r->cur;
	int64_t t;
	SM_CHECK(read_int(r, &t, "a frame number"));
	if (t < -1000000000 || t > 1000000000)
		return fail_at(r, num_at, SMDMX_ERROR_TIME, "frame number %lld is out of range", (long long)t);
	const frame_info *prev = frames->count ? (const frame_info *)frames->data + frames->count - 1 : NULL;
	if (prev && t <= prev->number)
		return fail_at(r, num_at, SMDMX_ERROR_TIME, "frame %lld does not follow frame %lld in '%s'",
		               (long long)t, (long long)prev->number, block);
	if (frames->count >= r->limits.max_frames)
		return fail_at(r, num_at, SMDMX_ERROR_LIMIT, "more than %zu frames", r->limits.max_frames);
	if (gaps_missing && prev && t != prev->number + 1)
		sm_warn(r->warnings, SMDMX_WARNING_MISSING_FRAME, r->line_no, col_of(r, num_at),
		        "frames %lld to %lld are missing: they play as the poses between the frames around them, and are written "
		        "so; nothing to do if the gap was meant",
		        (long long)prev->number + 1, (long long)t - 1);
	const char *name = NULL;
	if (!at_end(r))
		return fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "unexpected text after the frame number");
	if (r->cur < r->line_end) {
		const char *s = r->cur + (*r->cur == '/' ? 2 : 1), *e = r->line_end;
		while (s < e && (*s == ' ' || *s == '\t')) s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
		if (e > s) {
			name = sm_strdup(r->o, s, (size_t)(e - s), r->error);
			if (!name) return false;
		}
	}
	frame_info *f = sm_vec_push(r->o, frames, sizeof(frame_info), r->error);
	if (!f) return false;
	f->number = t;
	f->name = name;
	f->line = r->line_no;
	return true;
}

/* ---- skeleton ------------------------------------------------------------------------------- */

static bool read_skeleton(reader *r)
{
	uint32_t start_line = r->line_no;
	size_t nj = r->joints.count;
	sm_vec seen = SM_VEC_INIT; /* uint8_t per joint: listed in the first frame */
	SM_CHECK(sm_vec_reserve(r->o, &seen, 1, nj ? nj : 1, r->error));
	memset(seen.data, 0, nj ? nj : 1);
	if (r->frames.count) return fail_at(r, r->line, SMDMX_ERROR_SYNTAX, "a second 'skeleton' block");
	while (next_content_line(r)) {
		const char *w;
		size_t wn = peek_word(r, &w);
		if (word_is(w, wn, "end")) {
			r->cur += wn;
			SM_CHECK(expect_end(r, "'end'"));
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
			SM_CHECK(read_time(r, &r->frames, "skeleton", true));
			/* A new frame starts as a copy of the one before (bones left out hold). */
			size_t f = r->frames.count - 1, need;
			if (!sm_mul(r->frames.count, nj, &need) || need > r->limits.max_keys)
				return fail_at(r, r->line, SMDMX_ERROR_LIMIT, "more than %zu bone poses (frames times bones)",
				               r->limits.max_keys);
			SM_CHECK(sm_vec_reserve(r->o, &r->poses, sizeof(smdmx_transform), need, r->error));
			smdmx_transform *poses = r->poses.data;
			if (f == 0) {
				for (size_t j = 0; j < nj; j++) {
					memset(&poses[j], 0, sizeof(smdmx_transform));
					poses[j].orientation[3] = 1.0f;
				}
			} else if (nj) { /* no bones: nothing to hold (and no array to point into) */
				memcpy(poses + f * nj, poses + (f - 1) * nj, nj * sizeof(smdmx_transform));
			}
			r->poses.count = need;
			continue;
		}
		if (!r->frames.count)
			return fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "bone line before the first 'time'");
		const char *id_at = r->cur;
		int64_t id;
		uint32_t j = 0;
		float pos[3];
		double rot[3], q[4];
		SM_CHECK(read_int(r, &id, "a bone id"));
		SM_CHECK(bone_index(r, id, id_at, &j));
		SM_CHECK(read_float(r, &pos[0], "position x"));
		SM_CHECK(read_float(r, &pos[1], "position y"));
		SM_CHECK(read_float(r, &pos[2], "position z"));
		SM_CHECK(read_double(r, &rot[0], "rotation x"));
		SM_CHECK(read_double(r, &rot[1], "rotation y"));
		SM_CHECK(read_double(r, &rot[2], "rotation z"));
		SM_CHECK(expect_end(r, "the rotation"));
		smdmx_euler_to_quat(rot, q);
		smdmx_transform *t = (smdmx_transform *)r->poses.data + (r->frames.count - 1) * nj + j;
		memcpy(t->position, pos, sizeof(pos));
		for (int i = 0; i < 4; i++) t->orientation[i] = (float)q[i];
		if (r->frames.count == 1) ((uint8_t *)seen.data)[j] = 1;
	}
	if (r->error->code) return false;
	return sm_fail(r->error, SMDMX_ERROR_MISSING_END, start_line, 1, "'skeleton' block has no 'end'");
}

/* ---- triangles ----------------------------------------------------------------------------- */

static bool dedup_init(reader *r, dedup *d, size_t cap)
{
	d->slots = sm_owned_calloc(r->o, cap, sizeof(uint64_t), r->error);
	if (!d->slots) return false;
	d->slot = r->o->slot_count - 1;
	d->cap = cap;
	d->count = 0;
	return true;
}

static void dedup_free(reader *r, dedup *d)
{
	if (!d->slots) return;
	sm_free(&r->o->alloc, d->slots, d->cap * sizeof(uint64_t));
	r->o->slots[d->slot].ptr = NULL;
	r->o->slots[d->slot].size = 0;
	d->slots = NULL;
	d->cap = 0;
}

/* Doubles a table; the stored hashes place every entry again. */
static bool dedup_grow(reader *r, dedup *d)
{
	dedup nd;
	if (d->cap > SIZE_MAX / 16) return sm_fail_oom(r->error);
	SM_CHECK(dedup_init(r, &nd, d->cap * 2));
	size_t mask = nd.cap - 1;
	for (size_t i = 0; i < d->cap; i++) {
		uint64_t v = d->slots[i];
		if (!v) continue;
		size_t h = (size_t)(v >> 32) & mask;
		while (nd.slots[h]) h = (h + 1) & mask;
		nd.slots[h] = v;
	}
	nd.count = d->count;
	dedup_free(r, d);
	*d = nd;
	return true;
}

static uint32_t hash_position(const float *p, const smdmx_weight *w, size_t n)
{
	uint32_t h = hash_words(p, 3, 1);
	return n ? h ^ hash_words(w, n * 2, (uint32_t)n) : h;
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

/* Index of a float vector value (n = 2 or 3), adding it when new. */
static bool intern_vec(reader *r, dedup *d, sm_vec *data, const float *val, size_t n, uint32_t *out)
{
	if ((d->count + 1) * 2 > d->cap) SM_CHECK(dedup_grow(r, d));
	uint32_t hv = hash_words(val, n, (uint32_t)n);
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

static bool intern_position(reader *r, const float *p, const smdmx_weight *w, size_t nw, uint32_t *out)
{
	dedup *d = &r->position_table;
	if ((d->count + 1) * 2 > d->cap) SM_CHECK(dedup_grow(r, d));
	uint32_t hv = hash_position(p, w, nw);
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

static bool intern_material(reader *r, const char *s, size_t n, uint32_t *out)
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
	if ((d->count + 1) * 2 > d->cap) SM_CHECK(dedup_grow(r, d));
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
	if (r->record_lines) {
		uint32_t *ml = sm_vec_push(r->o, &r->material_lines, sizeof(uint32_t), r->error);
		if (!ml) return false;
		*ml = r->line_no;
	}
	d->slots[h] = ((uint64_t)h0 << 32) | (uint32_t)r->materials.count;
	d->count++;
	*out = r->last_material = (uint32_t)r->materials.count - 1;
	return true;
}

static bool face_set_for(reader *r, uint32_t material, faceset_build **out)
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
		SM_CHECK(dedup_init(r, &u->table, 1024));
		/* Corners read before this set appeared get (0, 0). */
		if (r->corner_count) {
			const float zero[2] = { 0, 0 };
			uint32_t zi;
			SM_CHECK(intern_vec(r, &u->table, &u->data, zero, 2, &zi));
			SM_CHECK(sm_vec_reserve(r->o, &u->indices, sizeof(uint32_t), r->corner_count, r->error));
			uint32_t *ix = u->indices.data;
			for (size_t i = 0; i < r->corner_count; i++) ix[i] = zi;
			u->indices.count = r->corner_count;
		}
		r->uv_count++;
	}
	return true;
}

static bool add_uv(reader *r, size_t set, const float uv[2])
{
	uv_build *u = &r->uv[set];
	uint32_t i;
	SM_CHECK(intern_vec(r, &u->table, &u->data, uv, 2, &i));
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
} vertex_in;

static inline void prefetch_slot(const dedup *d, uint32_t hash)
{
#if defined(__GNUC__)
	if (d->slots) __builtin_prefetch(&d->slots[hash & (d->cap - 1)]);
#else
	(void)d;
	(void)hash;
#endif
}

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
	SM_CHECK(bone_index(r, parent_id, parent_at, &parent));
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
		if (n < 0) return fail_at(r, count_at, SMDMX_ERROR_LINKS, "negative weight link count");
		if ((uint64_t)n > r->limits.max_links)
			return fail_at(r, count_at, SMDMX_ERROR_LIMIT, "%lld weight links; the limit is %zu",
			               (long long)n, r->limits.max_links);
		if (n + 1 > 64) {
			SM_CHECK(sm_vec_reserve(r->o, big, sizeof(smdmx_weight), (size_t)n + 1, r->error));
			w = big->data;
		}
		r->any_links = true;
		double sum = 0;
		for (int64_t i = 0; i < n; i++) {
			if (at_end(r))
				return fail_at(r, count_at, SMDMX_ERROR_LINKS,
				               "weight link count %lld, but the line holds %lld", (long long)n, (long long)i);
			const char *bone_at = r->cur;
			int64_t bone;
			SM_CHECK(read_int(r, &bone, "a weight link bone id"));
			SM_CHECK(bone_index(r, bone, bone_at, &w[nw].joint));
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
				return fail_at(r, k_at, SMDMX_ERROR_LIMIT, "%lld extra UV sets; 0 to 8 are allowed", (long long)k);
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
		return fail_at(r, r->line, SMDMX_ERROR_LIMIT, "more than %zu triangle corners", r->limits.max_corners);
	in->w = w;
	in->nw = nw;
	in->extra_uvs = extra_uvs;
	prefetch_slot(&r->position_table, hash_position(pos, w, nw));
	prefetch_slot(&r->normal_table, hash_words(nrm, 3, 3));
	prefetch_slot(&r->uv[0].table, hash_words(uv, 2, 2));
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
	SM_CHECK(intern_position(r, pos, w, nw, &pi));
	sm_vec_release(r->o, &in->big, sizeof(smdmx_weight));
	SM_CHECK(intern_vec(r, &r->normal_table, &r->normals, nrm, 3, &ni));
	uint32_t *dp = sm_vec_push(r->o, &r->position_indices, sizeof(uint32_t), r->error);
	uint32_t *dn = sm_vec_push(r->o, &r->normal_indices, sizeof(uint32_t), r->error);
	if (!dp || !dn) return false;
	*dp = pi;
	*dn = ni;
	SM_CHECK(add_uv(r, 0, uv));
	if (extra_uvs + 1 > r->uv_count) SM_CHECK(uv_set_open(r, extra_uvs));
	const float zero[2] = { 0, 0 };
	for (size_t s = 1; s < r->uv_count; s++) SM_CHECK(add_uv(r, s, s <= extra_uvs ? extra[s - 1] : zero));
	r->corner_count++;
	return true;
}

static bool triangles_init(reader *r)
{
	SM_CHECK(dedup_init(r, &r->position_table, 1024));
	SM_CHECK(dedup_init(r, &r->normal_table, 1024));
	SM_CHECK(dedup_init(r, &r->material_table, 64));
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
static bool read_triangle_lines(reader *r, uint32_t start_line)
{
	for (;;) {
		/* Material line: the whole line, trimmed ("Material #152" keeps its '#'). */
		bool got = false, blank = false;
		uint32_t blank_line = 0;
		while (next_line(r)) {
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
				if (!next_line(r)) break;
			sm_warn(r->warnings, SMDMX_WARNING_SKIPPED_TRIANGLES, blank_line, 1,
			        "a triangle whose material line is blank: skipped with its 3 lines, as studiomdl skips it; nothing to do");
			continue;
		}
		uint32_t mat_line = r->line_no, material;
		SM_CHECK(intern_material(r, s, (size_t)(e - s), &material));
		if (r->record_lines) {
			uint32_t *tl = sm_vec_push(r->o, &r->triangle_lines, sizeof(uint32_t), r->error);
			if (!tl) return false;
			*tl = mat_line;
		}
		faceset_build *fs;
		SM_CHECK(face_set_for(r, material, &fs));
		uint32_t first = (uint32_t)r->corner_count;
		vertex_in in[3];
		for (int v = 0; v < 3; v++) {
			bool line = next_content_line(r);
			if (r->error->code) return false;
			const char *p = line ? r->cur : NULL;
			bool numeric = p && (*p == '-' || *p == '+' || (*p >= '0' && *p <= '9'));
			if (!numeric)
				return sm_fail(r->error, SMDMX_ERROR_TRIANGLE, mat_line, 1,
				               "triangle has %d vertices; 3 are required", v);
			SM_CHECK(parse_vertex(r, &in[v], (size_t)v));
		}
		for (int v = 0; v < 3; v++) SM_CHECK(commit_vertex(r, &in[v]));
		/* face_set_for may not move, but corner pushes below can grow other vectors only. */
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
#define VERTEX_LINE_MIN 18              /* "0 0 0 0 0 0 0 0 0\n": the shortest vertex line */

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
	p->ok = r->chunk ? triangles_init(r) && read_triangle_lines(r, p->start_line) : sm_fail_oom(r->error);
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
		ok = intern_vec(j->tr, d, data, vals + i * n, n, &map[i]);
	}
	if (ok)
		for (size_t i = 0; i < corners; i++) dst[i] = map[src[i]];
	sm_free(&j->alloc, map, sizeof(uint32_t) * (count + 1));
	return ok;
}

/* Reserves room for n more values of a table without growing it while they go in. */
static bool dedup_reserve(reader *r, dedup *d, size_t more)
{
	while ((d->count + more + 1) * 2 > d->cap) SM_CHECK(dedup_grow(r, d));
	return true;
}

static void merge_positions(void *arg)
{
	merge_job *j = arg;
	reader *r = j->r, *tr = j->tr;
	j->ok = false;
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
			ok = intern_position(tr, qp[i], qw + qo[i], qo[i + 1] - qo[i], &map[i]);
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
				if (!intern_vec(tr, &u->table, &u->data, zero, 2, &zi)) return;
				for (size_t i = 0; i < c0; i++) ix[i] = zi;
			}
			if (s < q->uv_count) {
				const uv_build *v = &q->uv[s];
				if (!merge_values(j, &u->table, &u->data, v->data.data, v->data.count, 2, v->indices.data, n, ix + c0))
					return;
			} else if (n) {
				uint32_t zi;
				if (!intern_vec(tr, &u->table, &u->data, zero, 2, &zi)) return;
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

/* Room for all that merging adds: no table grows and no array moves while the tasks run. */
static bool merge_reserve(reader *r, size_t more_p, size_t more_w, size_t more_n, const size_t *more_uv, size_t sets,
                          size_t total)
{
	SM_CHECK(dedup_reserve(r, &r->position_table, more_p));
	SM_CHECK(dedup_reserve(r, &r->normal_table, more_n));
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
			SM_CHECK(dedup_init(r, &u->table, 1024));
		}
		SM_CHECK(dedup_reserve(r, &u->table, more_uv[s]));
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
			r->line_no = q->record_lines ? bases[k] + ((uint32_t *)q->material_lines.data)[i] : 0;
			bool ok = intern_material(r, qm[i].name, strlen(qm[i].name), &mat[i]);
			r->line_no = saved_line;
			SM_CHECK(ok);
		}
	}
	/* Room for everything the tasks add (its pages are touched first by the tasks). */
	sm_alloc_lazy = true;
	bool room = merge_reserve(r, more_p, more_w, more_n, more_uv, sets, total);
	sm_alloc_lazy = false;
	SM_CHECK(room);
	/* The tasks: positions here, normals and UVs on threads of their own. */
	reader copies[2];
	merge_job jobs[3];
	for (int t = 0; t < 3; t++) {
		jobs[t] = (merge_job){ .r = r, .tr = r, .ps = ps, .n = n, .corner0 = corner0, .sets = sets };
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
		sm_run_all(merge_run, jobs, sizeof(*jobs), 3);
	} else {
		jobs[1].task = merge_normals_uvs;
		jobs[2].ok = true; /* the UVs follow the normals in jobs[1] */
		sm_run_all(merge_run, jobs, sizeof(*jobs), 2);
	}
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
			SM_CHECK(face_set_for(r, mat[qf[f].material], &fs));
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
	for (size_t i = 0; i < p->warnings.count; i++) {
		const smdmx_warning *w = &p->warnings.data[i];
		sm_warn_n(r->warnings, w->code, w->count, w->line ? w->line + base : 0, w->column, "%s", w->message);
	}
	if (p->error.code && !r->error->code) {
		*r->error = p->error;
		if (r->error->line && p->error.code != SMDMX_ERROR_MISSING_END) r->error->line += base;
	}
}

static bool read_triangles_parallel(reader *r, uint32_t start_line, unsigned parts)
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
		q->warnings = &p->warnings;
		q->limits = r->limits;
		q->version = r->version;
		q->record_lines = r->record_lines;
		q->last_material = SMDMX_NONE;
		q->id_map = r->id_map; /* read only */
		q->positions = q->weight_offsets = q->weights = q->position_indices = (sm_vec)SM_VEC_INIT;
		q->normals = q->normal_indices = q->materials = q->face_sets = q->face_set_of = (sm_vec)SM_VEC_INIT;
		q->material_lines = q->triangle_lines = (sm_vec)SM_VEC_INIT;
	}
	/* This thread reads the first part meanwhile. */
	sm_team team;
	sm_team_start(&team, part_run, &ps[1], sizeof(part), started - 1);
	r->stop_off = parts > 1 ? ps[1].start : UINT64_MAX;
	if (ok) ok = read_triangle_lines(r, start_line);
	r->stop_off = UINT64_MAX;
	sm_team_join(&team);
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
	for (unsigned i = 1; i < started; i++) sm_owner_free(ps[i].r.o);
	sm_free(&r->o->alloc, ps, sizeof(part) * parts);
	if (done) return ok;
	seek_to(r, at, base);
	return read_triangle_lines(r, start_line);
}

static bool read_triangles(reader *r)
{
	uint32_t start_line = r->line_no;
	if (!r->position_table.slots) SM_CHECK(triangles_init(r));
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
		return read_triangles_parallel(r, start_line, (unsigned)parts);
	return read_triangle_lines(r, start_line);
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
	if (r->has_vertex_animation) return fail_at(r, r->line, SMDMX_ERROR_SYNTAX, "a second 'vertexanimation' block");
	r->has_vertex_animation = true;
	sm_vec pi = SM_VEC_INIT, pd = SM_VEC_INIT, ni = SM_VEC_INIT, nd = SM_VEC_INIT;
	bool in_shape = false;
	while (next_content_line(r)) {
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
			SM_CHECK(read_time(r, &r->vta_frames, "vertexanimation", false));
			if (r->vta_frames.count == 2) SM_CHECK(finish_base(r));
			in_shape = r->vta_frames.count > 1;
			continue;
		}
		if (!r->vta_frames.count)
			return fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "vertex line before the first 'time'");
		const char *id_at = r->cur;
		int64_t id;
		float v[6];
		SM_CHECK(read_int(r, &id, "a vertex id"));
		if (id < 0 || (uint64_t)id >= r->limits.max_corners)
			return fail_at(r, id_at, SMDMX_ERROR_VERTEX_ID, "vertex id %lld is out of range", (long long)id);
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
			return fail_at(r, id_at, SMDMX_ERROR_VERTEX_ID, "vertex id %lld is not in the base frame", (long long)id);
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

/* ---- building the scene ------------------------------------------------------------------- */

static bool build_mesh(reader *r)
{
	smdmx_scene *sc = r->scene;
	smdmx_mesh *m = &sc->meshes[sc->mesh_count++];
	memset(m, 0, sizeof(*m));
	m->name = sc->name;
	m->parent_joint = SMDMX_NONE;
	m->transform.orientation[3] = 1.0f;
	m->corner_count = r->corner_count;
	m->positions = r->positions.data;
	m->position_count = r->positions.count;
	m->position_indices = r->position_indices.data;
	m->weight_offsets = r->weight_offsets.data;
	m->weights = r->weights.data;
	m->weight_count = r->weights.count;
	m->normals = r->normals.data;
	m->normal_count = r->normals.count;
	m->normal_indices = r->normal_indices.data;
	m->uv_sets = sm_owned_calloc(r->o, r->uv_count, sizeof(smdmx_uv_set), r->error);
	if (!m->uv_sets) return false;
	m->uv_set_count = r->uv_count;
	for (size_t s = 0; s < r->uv_count; s++) {
		char name[32];
		if (s == 0) snprintf(name, sizeof(name), "textureCoordinates");
		else snprintf(name, sizeof(name), "texcoord$%zu", s);
		m->uv_sets[s].name = sm_strdup(r->o, name, strlen(name), r->error);
		if (!m->uv_sets[s].name) return false;
		m->uv_sets[s].data = r->uv[s].data.data;
		m->uv_sets[s].count = r->uv[s].data.count;
		m->uv_sets[s].indices = r->uv[s].indices.data;
		dedup_free(r, &r->uv[s].table);
	}
	m->face_set_count = r->face_sets.count;
	m->face_sets = sm_owned_calloc(r->o, r->face_sets.count, sizeof(smdmx_face_set), r->error);
	if (!m->face_sets && r->face_sets.count) return false;
	const faceset_build *fb = r->face_sets.data;
	for (size_t i = 0; i < r->face_sets.count; i++) {
		smdmx_face_set *f = &m->face_sets[i];
		f->material = fb[i].material;
		f->corners = fb[i].corners.data;
		f->corner_count = fb[i].corners.count;
		f->offsets = fb[i].offsets.data;
		f->polygon_count = fb[i].offsets.count - 1;
	}
	dedup_free(r, &r->position_table);
	dedup_free(r, &r->normal_table);
	dedup_free(r, &r->material_table);
	sc->materials = r->materials.data;
	sc->material_count = r->materials.count;
	return true;
}

/* A VTA becomes a mesh with one corner per vertex id and no faces; each later frame is a
 * flex shape whose deltas index the base positions and normals (one per id). */
static bool build_vta_mesh(reader *r)
{
	smdmx_scene *sc = r->scene;
	uint32_t mi = (uint32_t)sc->mesh_count;
	smdmx_mesh *m = &sc->meshes[sc->mesh_count++];
	memset(m, 0, sizeof(*m));
	size_t n = r->vta_base.count;
	m->name = sc->name;
	m->parent_joint = SMDMX_NONE;
	m->transform.orientation[3] = 1.0f;
	m->corner_count = n;
	m->positions = sm_owned_calloc(r->o, n, sizeof(smdmx_vec3), r->error);
	m->normals = sm_owned_calloc(r->o, n, sizeof(smdmx_vec3), r->error);
	m->position_indices = sm_owned_calloc(r->o, n, sizeof(uint32_t), r->error);
	m->normal_indices = sm_owned_calloc(r->o, n, sizeof(uint32_t), r->error);
	if (n && (!m->positions || !m->normals || !m->position_indices || !m->normal_indices)) return false;
	m->position_count = m->normal_count = n;
	const float *b = r->vta_base.data;
	for (size_t i = 0; i < n; i++) {
		memcpy(m->positions[i], b + 6 * i, sizeof(smdmx_vec3));
		memcpy(m->normals[i], b + 6 * i + 3, sizeof(smdmx_vec3));
		m->position_indices[i] = m->normal_indices[i] = (uint32_t)i;
	}
	/* The shapes are the skeleton's frames after the base, each with the vertex lines of its
	 * 'time' in vertexanimation, or none: a shape that moves nothing may be left out there.
	 * Both lists ascend, so they merge in one pass. */
	const frame_info *skel = r->frames.data;
	int64_t base_frame = r->vta_frames.count ? ((const frame_info *)r->vta_frames.data)[0].number : INT64_MAX;
	size_t extra = 0;
	for (size_t f = 0, i = 0; f < r->frames.count; f++) {
		const smdmx_flex_shape *have = r->shapes.data;
		while (i < r->shapes.count && have[i].frame < skel[f].number) i++;
		if (skel[f].number > base_frame && (i == r->shapes.count || have[i].frame != skel[f].number)) extra++;
	}
	if (extra) {
		size_t nv = r->shapes.count, total = nv + extra;
		smdmx_flex_shape *merged = sm_owned_calloc(r->o, total, sizeof(smdmx_flex_shape), r->error);
		if (!merged) return false;
		const smdmx_flex_shape *have = r->shapes.data;
		size_t i = 0, k = 0;
		for (size_t f = 0; f <= r->frames.count; f++) {
			int64_t until = f < r->frames.count ? skel[f].number : INT64_MAX;
			while (i < nv && have[i].frame <= until) merged[k++] = have[i++];
			if (f == r->frames.count || skel[f].number <= base_frame || (k && merged[k - 1].frame == skel[f].number)) continue;
			smdmx_flex_shape *e = &merged[k++];
			e->frame = (int32_t)skel[f].number;
			e->line = skel[f].line;
		}
		sm_vec_release(r->o, &r->shapes, sizeof(smdmx_flex_shape));
		r->shapes.data = merged;
		r->shapes.count = r->shapes.cap = total;
	}
	smdmx_flex_shape *sh = r->shapes.data;
	for (size_t i = 0, f = 0; i < r->shapes.count; i++) {
		sh[i].mesh = mi;
		if (!sh[i].name) {
			/* The name from the skeleton's time line, else flex_N */
			while (f < r->frames.count && skel[f].number < sh[i].frame) f++;
			if (f < r->frames.count && skel[f].number == sh[i].frame) sh[i].name = skel[f].name;
		}
		if (!sh[i].name) {
			char name[32];
			snprintf(name, sizeof(name), "flex_%ld", (long)sh[i].frame);
			sh[i].name = sm_strdup(r->o, name, strlen(name), r->error);
			if (!sh[i].name) return false;
		}
	}
	/* A frame is a shape by its number (decision 10): frames of one name (Valve's XSI
	 * exports name eyelid frames by the eyelid) become shapes of their own names. */
	sm_names names;
	memset(&names, 0, sizeof(names));
	bool ok = sm_names_init(&r->o->alloc, &names, r->shapes.count) || sm_fail_oom(r->error);
	for (size_t i = 0, f = 0; ok && i < r->shapes.count; i++) {
		uint32_t first = sm_names_get(&names, sh[i].name);
		if (first != SMDMX_NONE) {
			/* said at the skeleton's time line, where the name is */
			while (f < r->frames.count && skel[f].number < sh[i].frame) f++;
			uint32_t line = f < r->frames.count && skel[f].number == sh[i].frame ? skel[f].line : sh[i].line;
			char name[300];
			snprintf(name, sizeof(name), "%.200s_%ld", sh[i].name, (long)sh[i].frame);
			for (unsigned again = 2; sm_names_get(&names, name) != SMDMX_NONE; again++)
				snprintf(name, sizeof(name), "%.200s_%ld_%u", sh[i].name, (long)sh[i].frame, again);
			sm_warn(r->warnings, SMDMX_WARNING_SHAPE_RENAMED, line, 1,
			        "VTA frames %ld and %ld are both named '%s': frame %ld is the shape '%s' (a QC's flex lines name a frame by "
			        "its number); nothing to do",
			        (long)sh[first].frame, (long)sh[i].frame, sh[i].name, (long)sh[i].frame, name);
			sh[i].name = sm_strdup(r->o, name, strlen(name), r->error);
			ok = sh[i].name != NULL;
		}
		ok = ok && (sm_names_put(&r->o->alloc, &names, sh[i].name, (uint32_t)i, true) || sm_fail_oom(r->error));
	}
	sm_names_free(&r->o->alloc, &names);
	if (!ok) return false;
	sc->flex_shapes = r->shapes.data;
	sc->flex_shape_count = r->shapes.count;
	return true;
}

static bool build_clip(reader *r)
{
	smdmx_scene *sc = r->scene;
	size_t nf = r->frames.count, nj = r->joints.count;
	smdmx_clip *c = sm_owned_calloc(r->o, 1, sizeof(smdmx_clip), r->error);
	if (!c) return false;
	sc->clips = c;
	sc->clip_count = 1;
	c->name = sc->name;
	c->frame_rate = r->frame_rate;
	const frame_info *fi = r->frames.data;
	int32_t *times = sm_owned_calloc(r->o, nf, sizeof(int32_t), r->error);
	if (!times) return false;
	for (size_t f = 0; f < nf; f++) {
		double t = floor((double)fi[f].number * 10000.0 / r->frame_rate);
		if (t < INT32_MIN || t > INT32_MAX)
			return sm_fail(r->error, SMDMX_ERROR_TIME, fi[f].line, 1, "frame %lld is out of the time range",
			               (long long)fi[f].number);
		times[f] = (int32_t)t;
	}
	c->start = times[0];
	if ((int64_t)times[nf - 1] - times[0] > INT32_MAX)
		return sm_fail(r->error, SMDMX_ERROR_TIME, fi[nf - 1].line, 1, "the animation spans more than 2^31 - 1 ticks");
	c->duration = times[nf - 1] - times[0];
	c->channels = sm_owned_calloc(r->o, nj, sizeof(smdmx_channel), r->error);
	if (nj && !c->channels) return false;
	c->channel_count = nj;
	const smdmx_transform *poses = r->poses.data;
	for (size_t j = 0; j < nj; j++) {
		smdmx_channel *ch = &c->channels[j];
		ch->joint = (uint32_t)j;
		ch->position_times = ch->orientation_times = times;
		ch->position_count = ch->orientation_count = nf;
		ch->positions = sm_owned_calloc(r->o, nf, sizeof(smdmx_vec3), r->error);
		ch->orientations = sm_owned_calloc(r->o, nf, sizeof(smdmx_quat), r->error);
		if (!ch->positions || !ch->orientations) return false;
		for (size_t f = 0; f < nf; f++) {
			memcpy(ch->positions[f], poses[f * nj + j].position, sizeof(smdmx_vec3));
			memcpy(ch->orientations[f], poses[f * nj + j].orientation, sizeof(smdmx_quat));
		}
	}
	return true;
}

static bool build_scene(reader *r)
{
	smdmx_scene *sc = r->scene;
	sc->joints = r->joints.data;
	sc->joint_count = r->joints.count;
	const smdmx_transform *poses = r->poses.data;
	if (r->frames.count) {
		for (size_t j = 0; j < sc->joint_count; j++) sc->joints[j].bind = poses[j];
	}
	bool vta = r->has_vertex_animation && !r->has_triangles;
	sc->source.format = vta ? SMDMX_SOURCE_VTA : SMDMX_SOURCE_SMD;
	if (r->record_lines) {
		uint32_t *jl = sm_owned_calloc(r->o, r->nodes.count + 1, sizeof(uint32_t), r->error);
		if (!jl) return false;
		const node_info *ns = r->nodes.data;
		for (size_t j = 0; j < r->nodes.count; j++) jl[j] = ns[j].line;
		sc->source.joint_lines = jl;
		sc->source.material_lines = r->material_lines.data;
		sc->source.triangle_lines = r->triangle_lines.data;
	}
	if (vta) {
		sc->source.vta_ids = r->vta_ids;
		sc->source.vta_lines = r->vta_id_lines;
	}
	sc->source.smd_kind = vta ? SMDMX_SMD_VERTEX_ANIMATION
	                          : r->has_triangles ? SMDMX_SMD_REFERENCE : SMDMX_SMD_ANIMATION;
	sc->source.version = r->version;
	sc->source.smd_weight_links = r->any_links;
	sc->source.smd_crlf = r->cr_seen;
	if (r->first_frame_missing && !r->has_vertex_animation)
		sm_warn(r->warnings, SMDMX_WARNING_MISSING_BONE_FIRST_FRAME, r->missing_line, 1,
		        "bones missing from the first frame take position 0 and rotation 0, as in studiomdl; if that is not their "
		        "rest pose, add them to the first frame in the source");
	if (!r->frames.count && !r->has_vertex_animation)
		sm_warn(r->warnings, SMDMX_WARNING_NO_SKELETON_FRAME, 0, 0, "no skeleton frame: every bone's bind pose is position 0 and rotation 0; if the file was cut short, "
		        "export it again");
	size_t meshes = (r->has_triangles ? 1 : 0) + (r->has_vertex_animation ? 1 : 0);
	sc->meshes = sm_owned_calloc(r->o, meshes, sizeof(smdmx_mesh), r->error);
	if (meshes && !sc->meshes) return false;
	if (r->has_triangles) SM_CHECK(build_mesh(r));
	if (r->has_vertex_animation) SM_CHECK(build_vta_mesh(r));
	/* An animation file, or a reference with more than one frame, carries a clip. */
	if (!r->has_vertex_animation && r->frames.count && (!r->has_triangles || r->frames.count > 1))
		SM_CHECK(build_clip(r));
	return true;
}

/* ---- the file ------------------------------------------------------------------------------ */

static bool read_file(reader *r)
{
	if (!next_content_line(r)) {
		if (r->error->code) return false;
		return sm_fail(r->error, SMDMX_ERROR_EMPTY, 1, 1, "empty file: expected 'version'");
	}
	const char *w;
	size_t wn = peek_word(r, &w);
	if (!word_is(w, wn, "version"))
		return fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "expected 'version' at the start of an SMD file");
	r->cur += wn;
	skip_ws(r);
	const char *v_at = r->cur;
	int64_t v;
	SM_CHECK(read_int(r, &v, "a version number"));
	if (v < 1 || v > 3) return fail_at(r, v_at, SMDMX_ERROR_VERSION, "unsupported SMD version %lld (1 to 3 are read)", (long long)v);
	/* 3 carries extra UV sets (decision 12); 2 has no meaning any writer gives it */
	if (v == 2)
		sm_warn(r->warnings, SMDMX_WARNING_VERSION, r->line_no, col_of(r, v_at),
		        "SMD version 2, which no format defines: read as version 1; nothing to do");
	r->version = (int)v;
	SM_CHECK(expect_end(r, "the version"));
	bool had_nodes = false;
	while (next_content_line(r)) {
		wn = peek_word(r, &w);
		const char *at = r->cur;
		r->cur += wn;
		if (word_is(w, wn, "nodes")) {
			if (had_nodes) return fail_at(r, at, SMDMX_ERROR_SYNTAX, "a second 'nodes' block");
			SM_CHECK(expect_end(r, "'nodes'"));
			SM_CHECK(read_nodes(r));
			SM_CHECK(resolve_parents(r));
			SM_CHECK(warn_duplicate_names(r));
			had_nodes = true;
		} else if (word_is(w, wn, "skeleton") || word_is(w, wn, "triangles") ||
		           word_is(w, wn, "vertexanimation")) {
			if (!had_nodes) return fail_at(r, at, SMDMX_ERROR_SYNTAX, "'%.*s' before 'nodes'", (int)wn, w);
			SM_CHECK(expect_end(r, "the block name"));
			if (w[0] == 's' || w[0] == 'S') SM_CHECK(read_skeleton(r));
			else if (w[0] == 't' || w[0] == 'T') SM_CHECK(read_triangles(r));
			else SM_CHECK(read_vertexanimation(r));
		} else {
			return fail_at(r, at, SMDMX_ERROR_UNKNOWN_BLOCK, "unknown block '%.*s'", (int)(wn > 64 ? 64 : wn), w);
		}
	}
	if (r->error->code) return false;
	if (!had_nodes) return sm_fail(r->error, SMDMX_ERROR_SYNTAX, r->line_no, 1, "no 'nodes' block");
	return build_scene(r);
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
	r->stop_off = UINT64_MAX;
	r->material_lines = r->triangle_lines = (sm_vec)SM_VEC_INIT;
	r->nul_off = UINT64_MAX;
	r->last_material = SMDMX_NONE;
	r->nodes = r->joints = r->id_map = r->frames = r->poses = (sm_vec)SM_VEC_INIT;
	r->positions = r->weight_offsets = r->weights = r->position_indices = (sm_vec)SM_VEC_INIT;
	r->normals = r->normal_indices = r->materials = r->face_sets = r->face_set_of = (sm_vec)SM_VEC_INIT;
	r->vta_frames = r->vta_base = r->vta_lines = r->shapes = (sm_vec)SM_VEC_INIT;
	r->scene = sm_scene_new(&opts.allocator, r->error);
	if (!r->scene) return NULL;
	r->o = r->scene->owner;
	const char *name = opts.name;
	size_t name_len = name ? strlen(name) : 0;
	if (!name && path) name = path_stem(path, &name_len);
	if (!name) name = "model", name_len = 5;
	r->scene->name = sm_strdup(r->o, name, name_len, r->error);
	bool ok = r->scene->name != NULL;
	uint64_t file_size = 0;
	if (ok && r->fd == OS_NO_FILE && r->len > r->limits.max_file_size) ok = file_too_large(r);
	if (ok && r->fd != OS_NO_FILE && os_file_size(r->fd, &file_size)) {
		if (file_size > r->limits.max_file_size) ok = file_too_large(r);
		r->file_size = file_size;
	}
	if (ok && r->threads > 1 && (opts.allocator.memory_limit || opts.allocator.fail_after))
		ok = sm_fail(r->error, SMDMX_ERROR_USAGE, 0, 0,
		             "threads above 1 with a memory_limit or fail_after (they count the allocations of one thread)");
	if (ok && r->fd != OS_NO_FILE) {
		r->chunk_cap = CHUNK_SIZE;
		r->chunk = sm_malloc(&r->o->alloc, r->chunk_cap);
		if (!r->chunk) ok = sm_fail_oom(r->error);
		else {
			r->buf = r->chunk;
			ok = refill(r);
		}
	} else if (ok) {
		note_nuls(r, 0);
		note_crs(r, 0);
	}
	if (ok) ok = read_file(r);
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
	if (!ok) {
		smdmx_scene_free(r->scene);
		return NULL;
	}
	return r->scene;
}

smdmx_scene *smdmx_smd_read_memory(const void *data, size_t size, const smdmx_smd_read_options *options,
                                   smdmx_error *error, smdmx_warnings *warnings)
{
	reader r;
	memset(&r, 0, sizeof(r));
	memset(error, 0, sizeof(*error));
	if (warnings) memset(warnings, 0, sizeof(*warnings));
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
	memset(error, 0, sizeof(*error));
	if (warnings) memset(warnings, 0, sizeof(*warnings));
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
