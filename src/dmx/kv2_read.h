/* The keyvalues2 reader's state, private to its files: the reader (kv2_read.c) and a large
 * number array read on several threads (kv2_arrays.c). */
#ifndef SMDMX_DMX_KV2_READ_H
#define SMDMX_DMX_KV2_READ_H

#include <stdatomic.h>

#include "dmx/dm_internal.h"
#include "support/bytes.h"
#include "support/num.h"
#include "platform/os.h"

/* Element references not resolved yet: the high bit marks an index into the pending table. */
#define PENDING_BIT 0x80000000u

typedef struct pending_ref {
	uint8_t id[16];
	size_t offset;
} pending_ref;

typedef struct token {
	enum { TOK_END, TOK_STRING, TOK_WORD, TOK_LBRACE, TOK_RBRACE, TOK_LBRACKET, TOK_RBRACKET } kind;
	const char *s;      /* string contents (unescaped when `copied`) */
	size_t len;
	size_t offset;      /* of the token's first character */
} token;

typedef enum frame_kind { FRAME_ELEMENT, FRAME_ELEMENT_ARRAY } frame_kind;

typedef struct frame {
	frame_kind kind;
	uint32_t element;   /* the element whose body or array this is */
	size_t attr;        /* FRAME_ELEMENT_ARRAY: the attribute being filled */
	sm_vec items;       /* FRAME_ELEMENT_ARRAY: uint32_t */
	size_t open_offset; /* of the '{' or '[' */
	bool prefix;        /* the "$prefix_element$" pseudo-element */
} frame;

typedef struct kv2 {
	const char *data;
	size_t size, pos;
	smdmx_dm *dm;
	sm_owner *mem;
	smdmx_error *error;
	smdmx_warnings *warnings;
	smdmx_dm_limits limits;
	sm_vec pending;     /* pending_ref */
	sm_vec id_offsets;  /* size_t per element: offset of its id value, or SIZE_MAX */
	sm_vec stack;       /* frame */
	sm_vec scratch;     /* char: unescaped strings */
	sm_vec prefix;      /* smdmx_dm_attr of "$prefix_element$" */
	sm_vec named;       /* uint8_t per element: its "name" was read */
	size_t bare_count;  /* bare type words read (decision 14) */
	size_t loose_quotes; /* unescaped quotes read inside strings */
	bool raw;           /* backslashes are characters, not escapes (a file that does not escape) */
	size_t escapes;     /* escape sequences read (not raw) */
	size_t bad_escapes; /* backslashes before a character no escape starts with (not raw) */
	size_t first_bad_escape; /* offset of the first */
	size_t backslashes; /* backslashes read as characters (raw) */
	size_t first_backslash; /* offset of the first */
	bool have_root;
	unsigned threads;   /* for large number arrays; 1: this thread alone */
	sm_crew crew;       /* their threads, started once for the reading */
	bool mapped;        /* data is a file mapping whose read pages may be given back */
	size_t released;    /* pages before this offset were given back */
	smdmx_progress progress; /* the bytes read told */
	uint64_t told;      /* bytes told so far */
} kv2;

/* The bytes read so far are told every SM_PROGRESS_STEP (kv2.progress). The mapping's pages
 * behind the reader, but for the last 64 KiB, are given back every 8 MiB: a large file is
 * never resident whole (errors and the escape-free second reading read
 * them in again). */
static inline void release_behind(kv2 *k)
{
	sm_progress_at(&k->progress, &k->told, k->pos, false);
	if (k->mapped && k->pos - k->released >= ((size_t)8 << 20)) {
		size_t to = k->pos - ((size_t)64 << 10);
		os_map_release(k->data, k->released, to);
		k->released = to;
	}
}

/* What separates tokens: whitespace and commas. */
static const uint8_t skip_class[256] = { [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1, [','] = 1, ['\v'] = 1, ['\f'] = 1 };

/* The fast form of a number item at c (just past its opening quote): the numbers parsed in
 * place, one space apart, then the closing quote. *next is the closing quote. False for
 * anything else, which the general path then reads. */
static inline bool fast_item(const char *c, const char *end, smdmx_dm_type type, int comps, void *dst, const char **next)
{
	if (type == SMDMX_DM_INT) {
		/* up to 10 digits, range-checked */
		bool neg = c < end && *c == '-';
		const char *q = c + neg, *q0 = q;
		int64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* up to 7 digits at once (SWAR): no loop whose end varies with the number */
		size_t k = 8;
		if (end - q > 8) {
			uint64_t x;
			memcpy(&x, q, 8);
			k = sm_swar_digit_count(x);
			if (k && k < 8) {
				v = sm_swar_digits(x, k);
				q += k;
			}
		}
		if (k == 8)
#endif
			while (q < end && q - q0 < 10 && (unsigned char)(*q - '0') < 10) v = v * 10 + (*q++ - '0');
		if (!(q > q0 && q < end && *q == '"' && v <= (neg ? INT64_C(2147483648) : INT32_MAX))) return false;
		*(int32_t *)dst = (int32_t)(neg ? -v : v);
		*next = q;
		return true;
	}
	float *f = dst;
	for (int i = 0; i < comps; i++) {
		if (i) {
			if (c >= end || *c != ' ') return false;
			c++;
		}
		if (!sm_parse_float_fast(c, end, &f[i], next)) return false;
		c = *next;
	}
	*next = c;
	return c < end && *c == '"';
}

/* Items of an int array in its usual form (`"digits"`, up to 7 digits after an optional
 * '-', the separators between them) read from d[p] (at a separator or an opening quote) into
 * out, at most room of them: their count, *pos past the last one's closing quote. It stops
 * before anything else (a longer number, ']', a comment), which fast_item or the general path
 * then reads: the values are fast_item's. */
static inline size_t fast_int_run(const char *d, size_t p, size_t size, int32_t *out, size_t room, size_t *pos)
{
	size_t n = 0;
#if defined(SM_HAVE_MASK64)
	/* 64 bytes at a time: every item's quotes are found at once, so where an item ends is
	 * known before its digits are read, and the items' readings do not wait for each other.
	 * 10 bytes past the window stay readable: a '-' and the 8 bytes read for the digits. */
	while (n < room && size - p >= 64 + 10) {
		const char *s = d + p;
		uint64_t m = sm_mask64_eq(s, '"');
		size_t at = 0; /* past the last item read */
		bool stop = false;
		while (n < room && (m & (m - 1))) {
			size_t open = (size_t)__builtin_ctzll(m);
			m &= m - 1;
			size_t close = (size_t)__builtin_ctzll(m);
			m &= m - 1;
			if (!(open - at == 2 && s[at] == ',' && s[at + 1] == ' ')) {
				size_t i = at;
				while (i < open && skip_class[(uint8_t)s[i]]) i++;
				if (i != open) {
					stop = true;
					break;
				}
			}
			size_t neg = s[open + 1] == '-', k = close - open - 1 - neg;
			uint64_t x;
			memcpy(&x, s + open + 1 + neg, 8);
			if (k - 1 >= 7 || sm_swar_digit_count(x) != k) {
				stop = true;
				break;
			}
			int32_t v = (int32_t)sm_swar_digits(x, k); /* below 10^7 */
			out[n++] = neg ? -v : v;
			at = close + 1;
		}
		p += at;
		if (stop || at == 0) break;
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; n < room; n++) {
		/* `, "` (smdmx's and most writers' separator) at once; any other run of separators
		 * one byte at a time */
		if (p + 3 <= size && d[p] == ',' && d[p + 1] == ' ' && d[p + 2] == '"')
			p += 2;
		else
			while (p < size && skip_class[(uint8_t)d[p]]) p++;
		if (size - p < 11 || d[p] != '"') break; /* room for '"', '-' and 8 bytes read */
		size_t neg = d[p + 1] == '-', q = p + 1 + neg;
		uint64_t x;
		memcpy(&x, d + q, 8);
		size_t k = sm_swar_digit_count(x);
		if (k == 0 || k == 8 || d[q + k] != '"') break;
		int32_t v = (int32_t)sm_swar_digits(x, k); /* below 10^7 */
		out[n] = neg ? -v : v;
		p = q + k + 1;
	}
#else
	(void)d, (void)size, (void)out, (void)room;
#endif
	*pos = p;
	return n;
}

/* A number array of a's type (item bytes per item, comps numbers in each; at k->pos, after
 * its '[') read on k->threads threads into items: 1 when it was read, k->pos past its ']';
 * 0 when it is for this thread to read; -1 out of memory. */
/* The smallest number array read on several threads (1 MiB; tests make it small). */
extern uint64_t sm_kv2_part_min;

int kv2_read_array_parallel(kv2 *k, smdmx_dm_attr *a, sm_vec *items, size_t item, int comps);

#endif
