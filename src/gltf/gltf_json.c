/* The glTF writer's JSON text and binary buffer: bytes appended, numbers and strings as JSON
 * writes them, buffer views and accessors, and the scratch memory of a mesh or a clip. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf/gltf_internal.h"
#include "support/num.h"

/* ---- bytes and JSON text ------------------------------------------------------------------ */

void gl_put(gw *w, gbuf *b, const void *s, size_t n)
{
	if (w->oom || !n || w->streaming) return;
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap - b->len < n) cap *= 2;
		char *d = sm_realloc(&w->a, b->data, b->cap, cap);
		if (!d) {
			w->oom = true;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

void gl_puts(gw *w, gbuf *b, const char *s)
{
	gl_put(w, b, s, strlen(s));
}

void gl_put_uint(gw *w, gbuf *b, size_t v)
{
	char t[32];
	gl_put(w, b, t, sm_format_int((int64_t)v, t));
}

void gl_put_float(gw *w, gbuf *b, float v)
{
	char t[SM_FLOAT_MAX];
	gl_put(w, b, t, sm_format_shortest(v, t));
}

/* ", " between the items of an array or object: before every item but the first. */
void gl_comma(gw *w, gbuf *b)
{
	if (b->len) gl_puts(w, b, ",");
}

/* s as a JSON string: quotes, backslashes and control characters escaped; a byte that is not
 * part of valid UTF-8 taken as the Latin-1 character of its value (names from old tools). */
void gl_put_string(gw *w, gbuf *b, const char *s)
{
	gl_puts(w, b, "\"");
	size_t latin1 = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = 0;
		if (*p < 0x80) n = 1;
		else if ((*p & 0xE0) == 0xC0 && *p >= 0xC2 && (p[1] & 0xC0) == 0x80) n = 2;
		else if ((*p & 0xF0) == 0xE0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 && !(*p == 0xE0 && p[1] < 0xA0) &&
		         !(*p == 0xED && p[1] >= 0xA0))
			n = 3;
		else if (*p >= 0xF0 && *p <= 0xF4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80 &&
		         !(*p == 0xF0 && p[1] < 0x90) && !(*p == 0xF4 && p[1] >= 0x90))
			n = 4;
		char e[8];
		if (n == 1 && (*p == '"' || *p == '\\')) {
			e[0] = '\\', e[1] = (char)*p;
			gl_put(w, b, e, 2);
		} else if (n == 1 && *p < 0x20) {
			static const char hex[] = "0123456789abcdef";
			memcpy(e, "\\u00", 4);
			e[4] = hex[*p >> 4], e[5] = hex[*p & 15];
			gl_put(w, b, e, 6);
		} else if (n) {
			gl_put(w, b, p, n);
			p += n - 1;
		} else { /* Latin-1: two bytes of UTF-8 (the name counted once, by the first pass) */
			if (!w->streaming && !latin1++) w->names_latin1++;
			e[0] = (char)(0xC0 | (*p >> 6)), e[1] = (char)(0x80 | (*p & 0x3F));
			gl_put(w, b, e, 2);
		}
		p++;
	}
	gl_puts(w, b, "\"");
}

void gl_put_floats(gw *w, gbuf *b, const float *v, size_t n)
{
	gl_puts(w, b, "[");
	for (size_t i = 0; i < n; i++) {
		if (i) gl_puts(w, b, ",");
		gl_put_float(w, b, v[i]);
	}
	gl_puts(w, b, "]");
}

/* ---- the buffer: views and accessors ------------------------------------------------------- */

static const char base64_digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Three bytes (n of them real, the rest '=') as four base64 digits. */
static void emit_base64(gw *w, const unsigned char *p, size_t n)
{
	unsigned v = (unsigned)p[0] << 16 | (n > 1 ? (unsigned)p[1] << 8 : 0) | (n > 2 ? p[2] : 0);
	char q[4] = { base64_digits[v >> 18], base64_digits[(v >> 12) & 63], n > 1 ? base64_digits[(v >> 6) & 63] : '=',
		      n > 2 ? base64_digits[v & 63] : '=' };
	if (!sm_out_put(w->out, q, 4)) w->io_failed = true;
}

void gl_emit(gw *w, const void *data, size_t n)
{
	if (w->io_failed || !n) return;
	if (!w->base64) {
		if (!sm_out_put(w->out, data, n)) w->io_failed = true;
		return;
	}
	const unsigned char *p = data;
	while (n && w->b64_len) { /* the bytes left over from before first */
		w->b64[w->b64_len++] = *p++, n--;
		if (w->b64_len == 3) emit_base64(w, w->b64, 3), w->b64_len = 0;
	}
	for (; n >= 3 && !w->io_failed; p += 3, n -= 3) emit_base64(w, p, 3);
	while (n && !w->io_failed) w->b64[w->b64_len++] = *p++, n--;
}

void gl_emit_end(gw *w)
{
	if (w->base64 && w->b64_len && !w->io_failed) emit_base64(w, w->b64, w->b64_len);
	w->b64_len = 0;
}

/* data as a buffer view of its own (4-byte aligned): its index. target 0: none. */
size_t gl_add_view(gw *w, const void *data, size_t size, int target)
{
	static const char zero[4] = { 0, 0, 0, 0 };
	size_t pad = (4 - w->bin_len % 4) % 4, offset = w->bin_len + pad;
	if (w->streaming) {
		gl_emit(w, zero, pad);
		gl_emit(w, data, size);
	}
	w->bin_len = offset + size;
	gl_comma(w, &w->views);
	gl_puts(w, &w->views, "{\"buffer\":0,\"byteOffset\":");
	gl_put_uint(w, &w->views, offset);
	gl_puts(w, &w->views, ",\"byteLength\":");
	gl_put_uint(w, &w->views, size);
	if (target) {
		gl_puts(w, &w->views, ",\"target\":");
		gl_put_uint(w, &w->views, (size_t)target);
	}
	gl_puts(w, &w->views, "}");
	return w->view_count++;
}

static const char *const type_names[] = { "", "SCALAR", "VEC2", "VEC3", "VEC4", "", "", "", "", "", "", "", "", "", "", "", "MAT4" };

/* count floats of n components each as an accessor (with its min and max when minmax): its
 * index. */
size_t gl_add_floats(gw *w, const float *v, size_t count, unsigned n, bool minmax, int target)
{
	size_t view = gl_add_view(w, v, count * n * sizeof(float), target);
	gl_comma(w, &w->accessors);
	gl_puts(w, &w->accessors, "{\"bufferView\":");
	gl_put_uint(w, &w->accessors, view);
	gl_puts(w, &w->accessors, ",\"componentType\":5126,\"count\":");
	gl_put_uint(w, &w->accessors, count);
	gl_puts(w, &w->accessors, ",\"type\":\"");
	gl_puts(w, &w->accessors, type_names[n]);
	gl_puts(w, &w->accessors, "\"");
	if (minmax && count && !w->streaming) {
		float lo[16], hi[16];
		for (unsigned k = 0; k < n; k++) lo[k] = hi[k] = v[k];
		for (size_t i = 1; i < count; i++)
			for (unsigned k = 0; k < n; k++) {
				float x = v[i * n + k];
				if (x < lo[k]) lo[k] = x;
				if (x > hi[k]) hi[k] = x;
			}
		/* a zero's sign kept as it is stored: -0 and 0 compare equal in min and max */
		gl_puts(w, &w->accessors, ",\"min\":");
		gl_put_floats(w, &w->accessors, lo, n);
		gl_puts(w, &w->accessors, ",\"max\":");
		gl_put_floats(w, &w->accessors, hi, n);
	}
	gl_puts(w, &w->accessors, "}");
	return w->accessor_count++;
}

/* Unsigned integers (16 or 32 bits by type) of n components as an accessor: its index. */
size_t gl_add_uints(gw *w, const void *v, size_t count, unsigned n, int type, int target)
{
	size_t size = type == GL_UNSIGNED_SHORT ? 2 : 4;
	size_t view = gl_add_view(w, v, count * n * size, target);
	gl_comma(w, &w->accessors);
	gl_puts(w, &w->accessors, "{\"bufferView\":");
	gl_put_uint(w, &w->accessors, view);
	gl_puts(w, &w->accessors, ",\"componentType\":");
	gl_put_uint(w, &w->accessors, (size_t)type);
	gl_puts(w, &w->accessors, ",\"count\":");
	gl_put_uint(w, &w->accessors, count);
	gl_puts(w, &w->accessors, ",\"type\":\"");
	gl_puts(w, &w->accessors, type_names[n]);
	gl_puts(w, &w->accessors, "\"}");
	return w->accessor_count++;
}

/* Scratch memory of a mesh: every block taken is kept here, and given back together (at the
 * mesh's end, or when memory runs out part way). */
void *gl_scratch(gw *w, size_t size)
{
	if (w->oom) return NULL;
	if (w->tmp_count == w->tmp_cap) {
		size_t cap = w->tmp_cap ? 2 * w->tmp_cap : 16;
		struct tmp_block *g = sm_realloc(&w->a, w->tmp, w->tmp_cap * sizeof(*g), cap * sizeof(*g));
		if (!g) {
			w->oom = true;
			return NULL;
		}
		w->tmp = g;
		w->tmp_cap = cap;
	}
	void *p = sm_malloc(&w->a, size ? size : 1);
	if (!p) {
		w->oom = true;
		return NULL;
	}
	w->tmp[w->tmp_count++] = (struct tmp_block){ p, size ? size : 1 };
	return p;
}

void gl_scratch_free(gw *w)
{
	for (size_t i = 0; i < w->tmp_count; i++) sm_free(&w->a, w->tmp[i].p, w->tmp[i].size);
	w->tmp_count = 0;
}

void gl_gbuf_free(gw *w, gbuf *b)
{
	sm_free(&w->a, b->data, b->cap);
	memset(b, 0, sizeof(*b));
}
