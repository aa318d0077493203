/* The SMD and VTA reader's state, private to the reader's files: lines and tokens
 * (smd_read.c, with the hot token helpers inline here), triangles and their corners
 * deduplicated (smd_triangles.c), one triangles block on several threads (smd_parallel.c), and
 * the scene built from what was read (smd_build.c). */
#ifndef SMDMX_SMD_READ_H
#define SMDMX_SMD_READ_H

#include <math.h>
#include <string.h>
#include <strings.h>

#include "support/internal.h"
#include "support/num.h"
#include "platform/os.h"
#include "smdmx/math.h"
#include "smdmx/smd.h"

#define CHUNK_SIZE ((size_t)1 << 20)

/* The smallest part of a triangles block read on a thread of its own (1 MiB; tests make it
 * small to cut small files into many parts). */
extern uint64_t sm_smd_part_min;
#define VERTEX_LINE_MIN 18 /* "0 0 0 0 0 0 0 0 0\n": the shortest vertex line */

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
	uint32_t column;    /* of the number */
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
	smdmx_progress progress; /* the bytes read told (a part's too) */
	uint64_t read, told;    /* bytes this reader read, and of them told */
	os_mutex *told_lock;    /* while parts are read on several threads: one call at a time */

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

static inline uint32_t col_of(const reader *r, const char *p)
{
	return (uint32_t)(p - r->line) + 1;
}

static inline uint32_t hash_position(const float *p, const smdmx_weight *w, size_t n)
{
	uint32_t h = hash_words(p, 3, 1);
	return n ? h ^ hash_words(w, n * 2, (uint32_t)n) : h;
}

static inline void prefetch_slot(const dedup *d, uint32_t hash)
{
#if defined(__GNUC__)
	if (d->slots) __builtin_prefetch(&d->slots[hash & (d->cap - 1)]);
#else
	(void)d;
	(void)hash;
#endif
}

/* An error at p in the current line (its column; 0 when p is NULL). False. */
bool smdr_fail_at(reader *r, const char *p, smdmx_error_code code, const char *fmt, ...) SM_PRINTF(4, 5);
/* The error for a number that did not read (st) at p: what was expected. False. */
bool smdr_number_error(reader *r, const char *p, sm_num_status st, const char *what);

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

static inline bool expect_end(reader *r, const char *after)
{
	if (at_end(r)) return true;
	return smdr_fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "unexpected text after %s", after);
}

static inline bool is_sep(const reader *r, const char *p)
{
	return p >= r->line_end || is_ws(*p);
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
	if (SM_UNLIKELY(st != SM_NUM_OK || !is_sep(r, next))) return smdr_number_error(r, r->cur, st, what);
	r->cur = next;
	return true;
}

static inline bool read_double(reader *r, double *out, const char *what)
{
	skip_ws(r);
	const char *next;
	sm_num_status st = sm_parse_double_fast(r->cur, r->line_end, out, &next)
	                       ? SM_NUM_OK
	                       : sm_parse_double(r->cur, r->line_end, out, &next);
	if (st == SM_NUM_OK && (fabs(*out) > 3.4028234663852886e38)) st = SM_NUM_RANGE;
	if (st != SM_NUM_OK || !is_sep(r, next)) return smdr_number_error(r, r->cur, st, what);
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
		if (st == SM_NUM_RANGE) return smdr_fail_at(r, r->cur, SMDMX_ERROR_BAD_NUMBER, "%s is out of range", what);
		if (r->cur >= r->line_end)
			return smdr_fail_at(r, r->cur, SMDMX_ERROR_SYNTAX, "expected %s, found end of line", what);
		return smdr_fail_at(r, r->cur, SMDMX_ERROR_BAD_NUMBER, "expected %s", what);
	}
	r->cur = next;
	return true;
}

/* The next whitespace-delimited word, without consuming it. */
static inline size_t peek_word(reader *r, const char **word)
{
	skip_ws(r);
	const char *p = r->cur;
	while (p < r->line_end && !is_sep(r, p)) p++;
	*word = r->cur;
	return (size_t)(p - r->cur);
}

static inline bool word_is(const char *w, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n == l && strncasecmp(w, lit, l) == 0;
}

/* Lines and bones (smd_lines.c): the next line; the next that is not blank or a comment; a
 * bone by its id in the nodes. */
bool smdr_next_line(reader *r);
/* bytes more read, told to progress every SM_PROGRESS_STEP (all: what is left, at the end). */
void smdr_told(reader *r, uint64_t bytes, bool all);
bool smdr_next_content_line(reader *r);
bool smdr_bone_index(reader *r, int64_t id, const char *at, uint32_t *out);
/* The input (smd_lines.c): more of the file read into the chunk, its unread tail kept (false:
 * an error said; at the end, r->eof); the first NUL byte and any CR of the buffer from `from`
 * on noted; the error of a file above smdmx_limits.max_file_size (false). */
bool smdr_refill(reader *r);
void smdr_note_nuls(reader *r, size_t from);
void smdr_note_crs(reader *r, size_t from);
bool smdr_file_too_large(reader *r);

/* The triangles block (smd_triangles.c): its tables, the deduplicating tables (values
 * interned by their exact bits), the lines read on this thread, the block read whole. */
bool smdr_dedup_init(reader *r, dedup *d, size_t cap);
bool smdr_dedup_grow(reader *r, dedup *d);
void smdr_dedup_free(reader *r, dedup *d);
/* A table's growth in two steps, for a table filled on another thread than the one that
 * allocates: the slots it needs to take more entries (next->slots NULL where it has room),
 * allocated (under sm_alloc_lazy, not touched); then, on the thread that fills it, those
 * slots zeroed and every entry placed in them, and the two swapped (next then holds the old
 * slots, to free). */
bool smdr_dedup_make(reader *r, const dedup *d, size_t more, dedup *next);
void smdr_dedup_move(dedup *d, dedup *next);
bool smdr_intern_vec(reader *r, dedup *d, sm_vec *data, const float *val, size_t n, uint32_t *out);
bool smdr_intern_position(reader *r, const float *p, const smdmx_weight *w, size_t nw, uint32_t *out);
bool smdr_intern_material(reader *r, const char *s, size_t n, uint32_t *out);
bool smdr_face_set_for(reader *r, uint32_t material, faceset_build **out);
bool smdr_triangles_init(reader *r);
bool smdr_read_triangle_lines(reader *r, uint32_t start_line);

/* The block (smd_parallel.c): on several threads where it is large enough, parts from
 * start_line, else on this one (smdr_read_triangle_lines). */
bool smdr_read_triangles(reader *r);
bool smdr_read_triangles_parallel(reader *r, uint32_t start_line, unsigned parts);

/* The scene from what was read (smd_build.c). */
bool smdr_build_scene(reader *r);

#endif
