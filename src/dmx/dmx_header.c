/* The header line every DMX file starts with, which names its encoding and format: read for
 * dmx.c, which chooses the reader by it, and for the keyvalues2 reader, which reads its
 * version from it. */
#include <string.h>

#include "dmx/dm_internal.h"

static bool header_word(const char **p, const char *e, const char **w, size_t *n)
{
	while (*p < e && (**p == ' ' || **p == '\t')) (*p)++;
	*w = *p;
	while (*p < e && **p != ' ' && **p != '\t') (*p)++;
	*n = (size_t)(*p - *w);
	return *n > 0;
}

static bool word_eq(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static bool parse_version(const char *w, size_t n, int *out)
{
	int v = 0;
	if (n == 0 || n > 9) return false;
	for (size_t i = 0; i < n; i++) {
		if (w[i] < '0' || w[i] > '9') return false;
		v = v * 10 + (w[i] - '0');
	}
	*out = v;
	return true;
}

/* "<!-- dmx encoding NAME VER format NAME VER -->" or the legacy "<!-- DMXVersion NAME_vN -->". */
bool sm_dmx_parse_header(const char *data, size_t size, sm_dmx_header *h, smdmx_error *error)
{
	const char *p = data, *end = data + size;
	memset(h, 0, sizeof(*h));
	if (end - p >= 3 && (uint8_t)p[0] == 0xEF && (uint8_t)p[1] == 0xBB && (uint8_t)p[2] == 0xBF) p += 3;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *le = nl ? nl : end;
	if (le > p && le[-1] == '\r') le--;
	if (le - p < 8 || memcmp(p, "<!--", 4) != 0 || memcmp(le - 3, "-->", 3) != 0)
		return sm_fail(error, SMDMX_ERROR_HEADER, 1, 1, "not a DMX file: expected '<!-- dmx encoding ... -->'");
	const char *q = p + 4, *stop = le - 3, *w;
	size_t n;
	if (!header_word(&q, stop, &w, &n)) goto bad;
	if (word_eq(w, n, "DMXVersion")) {
		if (!header_word(&q, stop, &w, &n)) goto bad;
		const char *us = NULL;
		for (size_t i = n; i-- > 0;)
			if (w[i] == '_') {
				us = w + i;
				break;
			}
		if (!us || us[1] != 'v' || !parse_version(us + 2, (size_t)(w + n - us - 2), &h->encoding_version)) goto bad;
		h->encoding = w;
		h->encoding_len = (size_t)(us - w);
		h->format = "dmx";
		h->format_len = 3;
		h->format_version = 0;
	} else {
		if (!word_eq(w, n, "dmx") || !header_word(&q, stop, &w, &n) || !word_eq(w, n, "encoding")) goto bad;
		if (!header_word(&q, stop, &h->encoding, &h->encoding_len) || !header_word(&q, stop, &w, &n) ||
		    !parse_version(w, n, &h->encoding_version))
			goto bad;
		if (!header_word(&q, stop, &w, &n) || !word_eq(w, n, "format") ||
		    !header_word(&q, stop, &h->format, &h->format_len) || !header_word(&q, stop, &w, &n) ||
		    !parse_version(w, n, &h->format_version))
			goto bad;
		if (header_word(&q, stop, &w, &n)) goto bad;
	}
	h->body = nl ? (size_t)(nl - data) + 1 : size;
	return true;
bad:
	return sm_fail(error, SMDMX_ERROR_HEADER, 1, 1, "malformed DMX header");
}
