/* The SMD and VTA reader's lines: the input read in chunks, line by line, so that memory
 * stays bounded by the longest line (smdmx_limits.max_line_length) plus what the scene needs;
 * lines ending in LF, CRLF or a lone CR; NUL bytes and CRs noted; the bytes read told; an
 * error at its place in the line; and a bone id's joint. Below every other part of the
 * reader (smd_read.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smd/smd_read.h"

/* ---- errors ------------------------------------------------------------------------------ */

bool smdr_fail_at(reader *r, const char *p, smdmx_error_code code, const char *fmt, ...)
{
	if (r->error->code != SMDMX_ERROR_NONE) return false;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sm_fail(r->error, code, r->line_no, p ? col_of(r, p) : 0, "%s", msg);
}

bool smdr_number_error(reader *r, const char *p, sm_num_status st, const char *what)
{
	if (p >= r->line_end) return smdr_fail_at(r, p, SMDMX_ERROR_SYNTAX, "expected %s, found end of line", what);
	if (st == SM_NUM_RANGE)
		return smdr_fail_at(r, p, SMDMX_ERROR_NOT_FINITE, "%s is not a finite float32 value", what);
	if (st == SM_NUM_TOO_LONG)
		return smdr_fail_at(r, p, SMDMX_ERROR_LIMIT, "%s has %d characters or more", what, SM_NUM_MAX_LENGTH);
	return smdr_fail_at(r, p, SMDMX_ERROR_BAD_NUMBER, "expected %s", what);
}

/* ---- input ---------------------------------------------------------------------------- */

void smdr_note_nuls(reader *r, size_t from)
{
	if (r->nul_off != UINT64_MAX || from >= r->len) return;
	const char *z = memchr(r->buf + from, '\0', r->len - from);
	if (z) r->nul_off = r->base_off + (uint64_t)(z - r->buf);
}

void smdr_note_crs(reader *r, size_t from)
{
	if (!r->cr_seen && from < r->len && memchr(r->buf + from, '\r', r->len - from)) r->cr_seen = true;
}

bool smdr_file_too_large(reader *r)
{
	return sm_fail(r->error, SMDMX_ERROR_LIMIT, 0, 0, "file larger than %zu bytes", r->limits.max_file_size);
}

/* Reads more input into the chunk buffer, keeping the unread tail. A file over the size
 * limit fails before it is parsed (by its size when it has one, else as it is read). */
bool smdr_refill(reader *r)
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
		smdr_told(r, (uint64_t)n, false);
		if (r->base_off + r->len > r->limits.max_file_size) return smdr_file_too_large(r);
		if (r->len - from >= CHUNK_SIZE / 2) break;
	}
	smdr_note_nuls(r, from);
	smdr_note_crs(r, from);
	return true;
}

void smdr_told(reader *r, uint64_t bytes, bool all)
{
	r->read += bytes;
	if (r->told_lock) os_mutex_lock(r->told_lock);
	sm_progress_at(&r->progress, &r->told, r->read, all);
	if (r->told_lock) os_mutex_unlock(r->told_lock);
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
bool smdr_next_line(reader *r)
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
				return smdr_fail_at(r, s + (r->nul_off - off), SMDMX_ERROR_NUL_BYTE, "NUL byte in text");
			if ((size_t)(line_end - s) > r->limits.max_line_length)
				return smdr_fail_at(r, s + r->limits.max_line_length, SMDMX_ERROR_LINE_TOO_LONG,
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
			return smdr_fail_at(r, s + r->limits.max_line_length, SMDMX_ERROR_LINE_TOO_LONG,
			               "line longer than %zu bytes", r->limits.max_line_length);
		}
		if (!smdr_refill(r)) return false;
	}
}

/* Advances to the next line that is not blank or a comment. */
bool smdr_next_content_line(reader *r)
{
	while (smdr_next_line(r)) {
		if (!at_end(r)) return true;
	}
	return false;
}

/* ---- bones --------------------------------------------------------------------------------- */

bool smdr_bone_index(reader *r, int64_t id, const char *at, uint32_t *out)
{
	const uint32_t *map = r->id_map.data;
	if (SM_UNLIKELY(id < 0 || (uint64_t)id >= r->id_map.count || map[id] == SMDMX_NONE))
		return smdr_fail_at(r, at, SMDMX_ERROR_BONE_UNDEFINED, "bone id %lld is not defined in 'nodes'", (long long)id);
	*out = map[id];
	return true;
}
