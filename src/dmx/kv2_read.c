/* keyvalues2 (text DMX) reader.
 *
 * Tokens are quoted strings and the characters { } [ ]; whitespace, commas and // comments
 * separate them (doc/formats.md A3, A9). Unquoted words are tokens too, so that errors can name
 * them: the only one read is a value type's name standing for the type's empty value, as
 * Blender Source Tools' datamodel.py writes `"name" element` and `"name" string` (decision
 * 14; counted in one warning). Parsing is iterative over an explicit stack, so the
 * nesting depth is a checked limit, not C recursion. References by id are kept as pending
 * entries and resolved once every element is known (they may point forward). Positions are
 * byte offsets, turned into line:column only when an error is reported. A large number array
 * may be read on several threads (kv2_arrays.c); the state both use is kv2_read.h. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "dmx/kv2_read.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* ---- positions and errors --------------------------------------------------------------- */

static void line_col(const char *data, size_t offset, uint32_t *line, uint32_t *col)
{
	uint32_t l = 1;
	size_t start = 0;
	for (size_t i = 0; i < offset; i++) {
		if (data[i] == '\n' || (data[i] == '\r' && (i + 1 >= offset || data[i + 1] != '\n'))) {
			l++;
			start = i + 1;
		}
	}
	*line = l;
	*col = (uint32_t)(offset - start) + 1;
}

static bool kv2_fail_at(kv2 *k, size_t offset, smdmx_error_code code, const char *fmt, ...) SM_PRINTF(4, 5);

static bool kv2_fail_at(kv2 *k, size_t offset, smdmx_error_code code, const char *fmt, ...)
{
	if (k->error->code != SMDMX_ERROR_NONE) return false;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	uint32_t line, col;
	line_col(k->data, offset, &line, &col);
	return sm_fail(k->error, code, line, col, "%s", msg);
}

/* ---- header ------------------------------------------------------------------------------- */

static bool word_eq(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static bool read_header(kv2 *k)
{
	sm_dmx_header h;
	if (!sm_dmx_parse_header(k->data, k->size, &h, k->error)) return false;
	smdmx_dm *dm = k->dm;
	dm->encoding = sm_strdup(k->mem, h.encoding, h.encoding_len, k->error);
	dm->format = sm_strdup(k->mem, h.format, h.format_len, k->error);
	if (!dm->encoding || !dm->format) return false;
	dm->encoding_version = h.encoding_version;
	dm->format_version = h.format_version;
	if (strcmp(dm->encoding, "keyvalues2") != 0 && strcmp(dm->encoding, "keyvalues2_flat") != 0)
		return kv2_fail_at(k, 0, SMDMX_ERROR_ENCODING, "encoding '%s' is not read by this version of smdmx", dm->encoding);
	if (dm->encoding_version < 1 || dm->encoding_version > 4)
		return kv2_fail_at(k, 0, SMDMX_ERROR_ENCODING, "keyvalues2 version %d (1 to 4 are read)", dm->encoding_version);
	k->pos = h.body;
	return true;
}

/* ---- tokens ------------------------------------------------------------------------------ */

static const uint8_t word_end[256] = { ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, ['"'] = 1, ['\0'] = 1 };

/* An error at an unquoted word where a quoted string belongs. */
static bool bare_word(kv2 *k, const token *t, const char *what)
{
	return kv2_fail_at(k, t->offset, SMDMX_ERROR_SYNTAX, "expected %s, found the unquoted word '%.*s' (keyvalues2 quotes every string)",
	               what, (int)(t->len > 40 ? 40 : t->len), t->s);
}

static char unescape(char c)
{
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'v': return '\v';
	case 'b': return '\b';
	case 'r': return '\r';
	case 'f': return '\f';
	case 'a': return '\a';
	case '\\': return '\\';
	case '?': return '?';
	case '\'': return '\'';
	case '"': return '"';
	default: return 0;
	}
}

/* Whether the quote at q closes its string: what follows it may follow a token (a separator,
 * brace, bracket, quote, comment or the end). datamodel.py does not escape quotes inside
 * strings (doc/formats.md A8), so `"-filename "C:/x.dmx";"` has two quotes followed by text,
 * which no well-formed file has: those are read as part of the string. A file that reads
 * without this rule reads the same with it. */
static bool closes_string(const char *d, size_t q, size_t n)
{
	if (q + 1 >= n) return true;
	uint8_t c = (uint8_t)d[q + 1];
	if (skip_class[c] || word_end[c]) return true;
	return c == '/' && q + 2 < n && d[q + 2] == '/';
}

/* A form other writers use that bends the format: counted in one warning per code, at the
 * first (a position costs a scan from the start of the file, so only that one is found). */
static void quirk(kv2 *k, smdmx_warning_code code, size_t *counter, size_t offset, const char *msg)
{
	uint32_t line = 0, col = 0;
	if ((*counter)++ == 0) line_col(k->data, offset, &line, &col);
	sm_warn(k->warnings, code, line, col, "%s", msg);
}

/* The next token. Strings with escapes are unescaped into k->scratch (valid until the next
 * string with escapes). */
static bool next_token(kv2 *k, token *t)
{
	memset(t, 0, sizeof(*t));
	t->s = "";
	const char *d = k->data;
	size_t p = k->pos, n = k->size;
	for (;;) {
		while (p < n && skip_class[(uint8_t)d[p]]) p++;
		if (p + 1 < n && d[p] == '/' && d[p + 1] == '/') {
			while (p < n && d[p] != '\n' && d[p] != '\r') p++;
			continue;
		}
		break;
	}
	t->offset = p;
	if (p >= n) {
		t->kind = TOK_END;
		k->pos = p;
		return true;
	}
	char c = d[p];
	if (c == '{' || c == '}' || c == '[' || c == ']') {
		t->kind = c == '{' ? TOK_LBRACE : c == '}' ? TOK_RBRACE : c == '[' ? TOK_LBRACKET : TOK_RBRACKET;
		k->pos = p + 1;
		return true;
	}
	if (c == '\0') return kv2_fail_at(k, p, SMDMX_ERROR_NUL_BYTE, "NUL byte in text");
	if (c != '"') {
		/* An unquoted word, up to a separator, brace, bracket, quote or NUL. */
		size_t q = p;
		while (q < n && !skip_class[(uint8_t)d[q]] && !word_end[(uint8_t)d[q]]) q++;
		t->kind = TOK_WORD;
		t->s = d + p;
		t->len = q - p;
		k->pos = q;
		return true;
	}
	size_t s = p + 1, q = s;
	/* Fast path, one pass: the closing quote before any backslash or NUL. Tokens are short,
	 * so a byte loop beats three library scans. */
	while (q < n && d[q] != '"' && d[q] != '\\' && d[q] != '\0') q++;
	if (q < n && d[q] == '"' && closes_string(d, q, n)) {
		t->kind = TOK_STRING;
		t->s = d + s;
		t->len = q - s;
		k->pos = q + 1;
		return true;
	}
	k->scratch.count = 0;
	for (q = s; q < n; q++) {
		char ch = d[q];
		if (ch == '"') {
			if (closes_string(d, q, n)) break;
			quirk(k, SMDMX_WARNING_UNESCAPED_QUOTE, &k->loose_quotes, q,
			      "an unescaped '\"' inside a string (as Blender Source Tools' datamodel.py writes strings) was read as part "
			      "of the string; nothing to do");
		}
		if (ch == '\0') return kv2_fail_at(k, q, SMDMX_ERROR_NUL_BYTE, "NUL byte in text");
		if (ch == '\\' && k->raw) {
			if (k->backslashes++ == 0) k->first_backslash = q;
		} else if (ch == '\\' && q + 1 < n) {
			char u = unescape(d[q + 1]);
			if (u) {
				ch = u;
				q++;
				k->escapes++;
			} else if (k->bad_escapes++ == 0) {
				/* No writer that escapes writes this: the file may not escape at all (see
				 * sm_kv2_read). The backslash stays as written. */
				k->first_bad_escape = q;
			}
		}
		char *dst = sm_vec_push(k->mem, &k->scratch, 1, k->error);
		if (!dst) return false;
		*dst = ch;
	}
	if (q >= n) return kv2_fail_at(k, p, SMDMX_ERROR_UNTERMINATED, "string is never closed");
	t->kind = TOK_STRING;
	t->s = k->scratch.data ? k->scratch.data : "";
	t->len = k->scratch.count;
	k->pos = q + 1;
	return true;
}

static bool expect_string(kv2 *k, token *t, const char *what)
{
	SM_CHECK(next_token(k, t));
	if (t->kind == TOK_STRING) return true;
	if (t->kind == TOK_WORD) return bare_word(k, t, what);
	if (t->kind == TOK_END) return kv2_fail_at(k, t->offset, SMDMX_ERROR_SYNTAX, "expected %s, found the end of the file", what);
	return kv2_fail_at(k, t->offset, SMDMX_ERROR_SYNTAX, "expected %s", what);
}

/* ---- values ---------------------------------------------------------------------------------- */

static const int component_count[SMDMX_DM_TYPE_COUNT] = {
	[SMDMX_DM_COLOR] = 4, [SMDMX_DM_VECTOR2] = 2, [SMDMX_DM_VECTOR3] = 3, [SMDMX_DM_VECTOR4] = 4,
	[SMDMX_DM_QANGLE] = 3, [SMDMX_DM_QUATERNION] = 4, [SMDMX_DM_MATRIX] = 16,
};

static inline const char *skip_space(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
	return p;
}

static bool bad_value(kv2 *k, const token *t, smdmx_dm_type type, const char *why)
{
	return kv2_fail_at(k, t->offset, SMDMX_ERROR_BAD_VALUE, "'%.*s' is not a valid %s: %s", (int)(t->len > 40 ? 40 : t->len),
	               t->s, smdmx_dm_type_name(type, false), why);
}

/* Parses n floats separated by whitespace filling the whole token. */
static bool parse_floats(kv2 *k, const token *t, smdmx_dm_type type, float *out, int n)
{
	const char *p = t->s, *e = t->s + t->len, *next;
	for (int i = 0; i < n; i++) {
		p = skip_space(p, e);
		if (p >= e) return bad_value(k, t, type, "too few components");
		if (!sm_parse_float_fast(p, e, &out[i], &next)) {
			sm_num_status st = sm_parse_float(p, e, &out[i], &next);
			if (st == SM_NUM_RANGE) return bad_value(k, t, type, "not a finite float32");
			if (st != SM_NUM_OK) return bad_value(k, t, type, "not a number");
		}
		if (next < e && *next != ' ' && *next != '\t' && *next != '\n' && *next != '\r')
			return bad_value(k, t, type, "not a number");
		p = next;
	}
	if (skip_space(p, e) != e) return bad_value(k, t, type, "too many components");
	return true;
}

static bool parse_int_range(kv2 *k, const token *t, smdmx_dm_type type, int64_t lo, int64_t hi, int64_t *out)
{
	const char *p = skip_space(t->s, t->s + t->len), *e = t->s + t->len, *next;
	if (sm_parse_int(p, e, out, &next) != SM_NUM_OK || skip_space(next, e) != e) return bad_value(k, t, type, "not an integer");
	if (*out < lo || *out > hi) return bad_value(k, t, type, "out of range");
	return true;
}

static bool parse_binary(kv2 *k, const token *t, smdmx_dm_binary *out)
{
	size_t digits = 0;
	for (size_t i = 0; i < t->len; i++) {
		char c = t->s[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
		if (hex_digit(c) < 0) return bad_value(k, t, SMDMX_DM_BINARY, "not hexadecimal");
		digits++;
	}
	if (digits % 2) return bad_value(k, t, SMDMX_DM_BINARY, "an odd number of hex digits");
	out->size = digits / 2;
	out->data = NULL;
	if (!out->size) return true;
	out->data = sm_owned_alloc(k->mem, out->size, k->error);
	if (!out->data) return false;
	size_t j = 0;
	int hi = -1;
	for (size_t i = 0; i < t->len; i++) {
		int v = hex_digit(t->s[i]);
		if (v < 0) continue;
		if (hi < 0) hi = v;
		else {
			out->data[j++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return true;
}

/* One scalar value of `type` from a token into `dst` (the item layout of the type). */
static bool parse_value(kv2 *k, const token *t, smdmx_dm_type type, void *dst)
{
	int64_t v;
	switch (type) {
	case SMDMX_DM_INT:
		SM_CHECK(parse_int_range(k, t, type, INT32_MIN, INT32_MAX, &v));
		*(int32_t *)dst = (int32_t)v;
		return true;
	case SMDMX_DM_UINT8:
		SM_CHECK(parse_int_range(k, t, type, 0, 255, &v));
		*(uint8_t *)dst = (uint8_t)v;
		return true;
	case SMDMX_DM_FLOAT:
		return parse_floats(k, t, type, dst, 1);
	case SMDMX_DM_BOOL: {
		const char *p = skip_space(t->s, t->s + t->len), *e = t->s + t->len;
		const char *w = p;
		while (p < e && *p != ' ' && *p != '\t') p++;
		size_t wl = (size_t)(p - w);
		if (skip_space(p, e) != e) return bad_value(k, t, type, "expected 0 or 1");
		if (wl == 1 && (*w == '0' || *w == '1')) *(uint8_t *)dst = (uint8_t)(*w == '1');
		else if (word_eq(w, wl, "true")) *(uint8_t *)dst = 1;
		else if (word_eq(w, wl, "false")) *(uint8_t *)dst = 0;
		else return bad_value(k, t, type, "expected 0 or 1");
		return true;
	}
	case SMDMX_DM_STRING: {
		const char *s = sm_strdup(k->mem, t->s, t->len, k->error);
		if (!s) return false;
		*(const char **)dst = s;
		return true;
	}
	case SMDMX_DM_BINARY:
		return parse_binary(k, t, dst);
	case SMDMX_DM_TIME: {
		/* Seconds; ticks = floor(10000 s + 0.5) (decision 3). */
		const char *p = skip_space(t->s, t->s + t->len), *e = t->s + t->len, *next;
		double s;
		if (sm_parse_double(p, e, &s, &next) != SM_NUM_OK || skip_space(next, e) != e)
			return bad_value(k, t, type, "not a number of seconds");
		double ticks = floor(s * 10000.0 + 0.5);
		if (!(ticks >= INT32_MIN && ticks <= INT32_MAX)) return bad_value(k, t, type, "out of range");
		*(int32_t *)dst = (int32_t)ticks;
		return true;
	}
	case SMDMX_DM_COLOR: {
		const char *p = t->s, *e = t->s + t->len, *next;
		uint8_t *c = dst;
		for (int i = 0; i < 4; i++) {
			p = skip_space(p, e);
			if (p >= e) return bad_value(k, t, type, "too few components");
			if (sm_parse_int(p, e, &v, &next) != SM_NUM_OK || v < 0 || v > 255) return bad_value(k, t, type, "expected 0 to 255");
			c[i] = (uint8_t)v;
			p = next;
		}
		if (skip_space(p, e) != e) return bad_value(k, t, type, "too many components");
		return true;
	}
	case SMDMX_DM_VECTOR2:
	case SMDMX_DM_VECTOR3:
	case SMDMX_DM_VECTOR4:
	case SMDMX_DM_QANGLE:
	case SMDMX_DM_QUATERNION:
	case SMDMX_DM_MATRIX:
		return parse_floats(k, t, type, dst, component_count[type]);
	case SMDMX_DM_UINT64: {
		const char *p = skip_space(t->s, t->s + t->len), *e = t->s + t->len;
		uint64_t u = 0;
		bool hex = e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
		if (hex) p += 2;
		const char *d0 = p;
		while (p < e && (hex ? hex_digit(*p) >= 0 : (*p >= '0' && *p <= '9'))) {
			uint64_t dig = (uint64_t)(hex ? hex_digit(*p) : *p - '0');
			if (u > (UINT64_MAX - dig) / (hex ? 16 : 10)) return bad_value(k, t, type, "out of range");
			u = u * (hex ? 16 : 10) + dig;
			p++;
		}
		if (p == d0 || skip_space(p, e) != e) return bad_value(k, t, type, "not an integer");
		*(uint64_t *)dst = u;
		return true;
	}
	case SMDMX_DM_OBJECTID:
		if (!smdmx_dm_id_from_text(t->s, t->len, dst)) return bad_value(k, t, type, "not a GUID");
		return true;
	default:
		return bad_value(k, t, type, "unsupported");
	}
}

/* ---- structure ----------------------------------------------------------------------------- */

static bool add_pending(kv2 *k, const token *t, uint32_t *out)
{
	if (t->len == 0) {
		*out = SMDMX_NONE;
		return true;
	}
	pending_ref *r = sm_vec_push(k->mem, &k->pending, sizeof(*r), k->error);
	if (!r) return false;
	if (!smdmx_dm_id_from_text(t->s, t->len, r->id))
		return kv2_fail_at(k, t->offset, SMDMX_ERROR_BAD_VALUE, "'%.*s' is not an element id", (int)(t->len > 40 ? 40 : t->len), t->s);
	r->offset = t->offset;
	if (k->pending.count >= PENDING_BIT) return kv2_fail_at(k, t->offset, SMDMX_ERROR_LIMIT, "too many element references");
	*out = PENDING_BIT | (uint32_t)(k->pending.count - 1);
	return true;
}

static bool push_frame(kv2 *k, frame_kind kind, uint32_t element, size_t attr, size_t open_offset, bool prefix)
{
	if (k->stack.count >= k->limits.max_depth)
		return kv2_fail_at(k, open_offset, SMDMX_ERROR_LIMIT, "nesting deeper than %zu", k->limits.max_depth);
	frame *f = sm_vec_push(k->mem, &k->stack, sizeof(*f), k->error);
	if (!f) return false;
	f->kind = kind;
	f->element = element;
	f->attr = attr;
	f->items = (sm_vec)SM_VEC_INIT;
	f->open_offset = open_offset;
	f->prefix = prefix;
	return true;
}

static frame *top(kv2 *k)
{
	return (frame *)k->stack.data + k->stack.count - 1;
}

/* A new element of the given type: reads its '{' and pushes its frame. */
static bool begin_element(kv2 *k, const token *type, uint32_t *index)
{
	token t;
	SM_CHECK(next_token(k, &t));
	if (t.kind != TOK_LBRACE) return kv2_fail_at(k, t.offset, SMDMX_ERROR_SYNTAX, "expected '{' after the element type");
	bool prefix = word_eq(type->s, type->len, "$prefix_element$") && k->stack.count == 0;
	if (prefix) {
		*index = SMDMX_NONE;
		return push_frame(k, FRAME_ELEMENT, SMDMX_NONE, 0, t.offset, true);
	}
	if (k->dm->element_count >= k->limits.max_elements)
		return kv2_fail_at(k, type->offset, SMDMX_ERROR_LIMIT, "more than %zu elements", k->limits.max_elements);
	const char *ty = sm_strdup(k->mem, type->s, type->len, k->error);
	if (!ty) return false;
	*index = sm_dm_add_element(k->dm, ty, "", NULL, k->error);
	if (*index == SMDMX_NONE) return false;
	k->dm->elements[*index].source_offset = type->offset;
	size_t *off = sm_vec_push(k->mem, &k->id_offsets, sizeof(size_t), k->error);
	uint8_t *named = sm_vec_push(k->mem, &k->named, 1, k->error);
	if (!off || !named) return false;
	*off = SIZE_MAX;
	*named = 0;
	return push_frame(k, FRAME_ELEMENT, *index, 0, t.offset, false);
}

/* The attribute being added to the element of the top frame (or to the prefix list). */
static smdmx_dm_attr *new_attr(kv2 *k, const frame *f, const token *name)
{
	size_t have = f->prefix ? k->prefix.count : k->dm->elements[f->element].attr_count;
	if (have >= k->limits.max_attributes) {
		kv2_fail_at(k, name->offset, SMDMX_ERROR_LIMIT, "more than %zu attributes in one element", k->limits.max_attributes);
		return NULL;
	}
	const char *n = sm_strdup(k->mem, name->s, name->len, k->error);
	if (!n) return NULL;
	smdmx_dm_attr *a;
	if (f->prefix) {
		a = sm_vec_push(k->mem, &k->prefix, sizeof(*a), k->error);
		if (a) memset(a, 0, sizeof(*a));
	} else {
		a = sm_dm_push_attr(k->dm, f->element, k->error);
	}
	if (a) a->name = n;
	return a;
}

/* Reads `[ "v", "v", ... ]` of a value type into the attribute. */


static bool read_value_array(kv2 *k, smdmx_dm_attr *a, size_t open)
{
	size_t item = smdmx_dm_item_size(a->type);
	sm_vec items = SM_VEC_INIT;
	int comps = a->type == SMDMX_DM_FLOAT ? 1 : a->type != SMDMX_DM_COLOR ? component_count[a->type] : 0;
	const char *d = k->data, *end = k->data + k->size;
	if (k->threads > 1 && (a->type == SMDMX_DM_INT || comps)) {
		int r = kv2_read_array_parallel(k, a, &items, item, comps);
		if (r < 0) return false;
		if (r > 0) {
			a->value.array.data = items.data;
			a->value.array.count = items.count;
			return true;
		}
	}
	for (;;) {
		/* Fast path for numbers: separators, a quote, the numbers parsed in place, a quote.
		 * Anything unusual (escapes, comments, bad values) goes the general way. Ints in
		 * runs of up to 4,096 (the pages behind given back after each). */
		if (a->type == SMDMX_DM_INT && items.count < k->limits.max_array_items) {
			if (items.count == items.cap && !sm_vec_reserve(k->mem, &items, item, items.count + 1, k->error)) return false;
			size_t room = items.cap - items.count, left = k->limits.max_array_items - items.count, pos;
			if (room > left) room = left;
			if (room > 4096) room = 4096;
			size_t got = fast_int_run(d, k->pos, k->size, (int32_t *)items.data + items.count, room, &pos);
			if (got) {
				items.count += got;
				k->pos = pos;
				release_behind(k);
				if (got == room) continue;
			}
		}
		if (a->type == SMDMX_DM_INT || comps) {
			size_t p = k->pos;
			while (p < k->size && skip_class[(uint8_t)d[p]]) p++;
			if (p < k->size && d[p] == '"') {
				const char *next;
				if (items.count >= k->limits.max_array_items)
					return kv2_fail_at(k, p, SMDMX_ERROR_LIMIT, "more than %zu items in one array", k->limits.max_array_items);
				void *dst = sm_vec_push(k->mem, &items, item, k->error);
				if (!dst) return false;
				if (fast_item(d + p + 1, end, a->type, comps, dst, &next)) {
					k->pos = (size_t)(next - d) + 1;
					if ((items.count & 4095) == 0) release_behind(k);
					continue;
				}
				items.count--; /* the general path below takes this item */
			}
		}
		token t;
		SM_CHECK(next_token(k, &t));
		if (t.kind == TOK_RBRACKET) break;
		if (t.kind == TOK_END) return kv2_fail_at(k, open, SMDMX_ERROR_UNTERMINATED, "'[' is never closed");
		if (t.kind == TOK_WORD) return bare_word(k, &t, "a quoted array item or ']'");
		if (t.kind != TOK_STRING) return kv2_fail_at(k, t.offset, SMDMX_ERROR_SYNTAX, "expected a quoted array item or ']'");
		if (items.count >= k->limits.max_array_items)
			return kv2_fail_at(k, t.offset, SMDMX_ERROR_LIMIT, "more than %zu items in one array", k->limits.max_array_items);
		void *dst = sm_vec_push(k->mem, &items, item, k->error);
		if (!dst) return false;
		if (a->type == SMDMX_DM_INT && t.len && t.len <= 10) {
			/* The common case of index arrays: a plain integer filling the token. */
			const char *c = t.s, *e = t.s + t.len;
			bool neg = *c == '-';
			c += neg;
			int64_t v = 0;
			while (c < e && (unsigned char)(*c - '0') < 10) v = v * 10 + (*c++ - '0');
			if (c == e && c > t.s + neg && v <= (neg ? INT64_C(2147483648) : INT32_MAX)) {
				*(int32_t *)dst = (int32_t)(neg ? -v : v);
				continue;
			}
		}
		if (component_count[a->type] && a->type != SMDMX_DM_COLOR) {
			SM_CHECK(parse_floats(k, &t, a->type, dst, component_count[a->type]));
			continue;
		}
		if (a->type == SMDMX_DM_FLOAT) {
			SM_CHECK(parse_floats(k, &t, a->type, dst, 1));
			continue;
		}
		memset(dst, 0, item);
		SM_CHECK(parse_value(k, &t, a->type, dst));
	}
	a->value.array.data = items.data;
	a->value.array.count = items.count;
	return true;
}

/* An attribute whose type is an unquoted word and which has no value: `"name" element`, as
 * Blender Source Tools' datamodel.py writes a null reference, an empty string or binary
 * (decision 14). Valve's reader refuses the form (A12); smdmx reads any value type's name so
 * as that type's empty value, the value a new attribute of the type has in Valve's datamodel
 * (SDK dmattributetypes.h, DECLARE_ATTRIBUTE_TYPE): zero, false, an empty string or binary,
 * a null reference, an empty array, color 0 0 0 255, the identity quaternion and matrix. What
 * follows is the next attribute: a bare type word never takes a value. One warning counts
 * them, at the first. Any other unquoted word is an error. */
static bool read_bare_type(kv2 *k, const frame *f, const token *name, const token *type)
{
	smdmx_dm_type ty;
	bool is_array;
	int shown = (int)(type->len > 40 ? 40 : type->len);
	if (!smdmx_dm_type_from_name(type->s, type->len, &ty, &is_array))
		return kv2_fail_at(k, type->offset, SMDMX_ERROR_SYNTAX,
		               "expected a quoted attribute type, found the unquoted word '%.*s' (only a value type's name may stand "
		               "unquoted, for an empty value)",
		               shown, type->s);
	if (!f->prefix && word_eq(name->s, name->len, "id") && ty == SMDMX_DM_OBJECTID)
		return kv2_fail_at(k, type->offset, SMDMX_ERROR_SYNTAX, "an element's \"id\" needs its type and value quoted");
	quirk(k, SMDMX_WARNING_BARE_TYPE, &k->bare_count, type->offset,
	      "an unquoted type without a value (Blender Source Tools' datamodel.py's empty value; Valve's tools refuse it) "
	      "was read as the type's empty value; nothing to do");
	if (!f->prefix && !is_array && ty == SMDMX_DM_STRING && word_eq(name->s, name->len, "name") &&
	    !((uint8_t *)k->named.data)[f->element]) {
		((uint8_t *)k->named.data)[f->element] = 1;
		k->dm->elements[f->element].name = "";
		return true;
	}
	smdmx_dm_attr *a = new_attr(k, f, name);
	if (!a) return false;
	a->type = ty;
	a->is_array = is_array;
	if (is_array) return true; /* no items */
	switch (ty) {
	case SMDMX_DM_ELEMENT: a->value.element = SMDMX_NONE; break;
	case SMDMX_DM_STRING: a->value.s = ""; break;
	case SMDMX_DM_COLOR: a->value.color[3] = 255; break;
	case SMDMX_DM_QUATERNION: a->value.v[3] = 1.0f; break;
	case SMDMX_DM_MATRIX:
		a->value.matrix = sm_owned_alloc(k->mem, 16 * sizeof(float), k->error);
		if (!a->value.matrix) return false;
		for (int i = 0; i < 16; i++) a->value.matrix[i] = i % 5 == 0 ? 1.0f : 0.0f;
		break;
	default: break; /* zero: the attribute is zeroed when made */
	}
	return true;
}

/* One attribute after its name: its type and value. Inline elements push a frame. */
static bool read_attribute(kv2 *k, const token *name)
{
	frame f = *top(k);
	token type;
	SM_CHECK(next_token(k, &type));
	if (type.kind == TOK_WORD) return read_bare_type(k, &f, name, &type);
	if (type.kind != TOK_STRING) {
		if (type.kind == TOK_END) return kv2_fail_at(k, type.offset, SMDMX_ERROR_SYNTAX, "expected an attribute type, found the end of the file");
		return kv2_fail_at(k, type.offset, SMDMX_ERROR_SYNTAX, "expected an attribute type");
	}
	/* The element's identity: "id" "elementid" and the first "name" "string" (A4). */
	if (!f.prefix && word_eq(name->s, name->len, "id") && word_eq(type.s, type.len, "elementid")) {
		token v;
		SM_CHECK(expect_string(k, &v, "an element id"));
		smdmx_dm_element *e = &k->dm->elements[f.element];
		if (e->has_id) return kv2_fail_at(k, name->offset, SMDMX_ERROR_SYNTAX, "a second \"id\" in one element");
		if (!smdmx_dm_id_from_text(v.s, v.len, e->id))
			return kv2_fail_at(k, v.offset, SMDMX_ERROR_BAD_VALUE, "'%.*s' is not an element id", (int)(v.len > 40 ? 40 : v.len), v.s);
		e->has_id = true;
		((size_t *)k->id_offsets.data)[f.element] = v.offset;
		return true;
	}
	smdmx_dm_type ty;
	bool is_array;
	bool known = smdmx_dm_type_from_name(type.s, type.len, &ty, &is_array);
	if (!f.prefix && known && !is_array && ty == SMDMX_DM_STRING && word_eq(name->s, name->len, "name") &&
	    !((uint8_t *)k->named.data)[f.element]) {
		((uint8_t *)k->named.data)[f.element] = 1;
		token v;
		SM_CHECK(expect_string(k, &v, "a name"));
		const char *s = sm_strdup(k->mem, v.s, v.len, k->error);
		if (!s) return false;
		k->dm->elements[f.element].name = s;
		return true;
	}
	if (!known) {
		/* Not a value type: an inline element of that type, if a '{' follows. */
		size_t save = k->pos;
		token b;
		SM_CHECK(next_token(k, &b));
		k->pos = save;
		if (b.kind != TOK_LBRACE)
			return kv2_fail_at(k, type.offset, SMDMX_ERROR_UNKNOWN_TYPE, "unknown value type '%.*s'", (int)(type.len > 40 ? 40 : type.len),
			               type.s);
		smdmx_dm_attr *a = new_attr(k, &f, name);
		if (!a) return false;
		a->type = SMDMX_DM_ELEMENT;
		size_t attr_index = f.prefix ? 0 : k->dm->elements[f.element].attr_count - 1;
		if (f.prefix) return kv2_fail_at(k, type.offset, SMDMX_ERROR_SYNTAX, "an element inside \"$prefix_element$\"");
		uint32_t child;
		SM_CHECK(begin_element(k, &type, &child));
		k->dm->elements[f.element].attrs[attr_index].value.element = child;
		return true;
	}
	smdmx_dm_attr *a = new_attr(k, &f, name);
	if (!a) return false;
	a->type = ty;
	a->is_array = is_array;
	if (!is_array) {
		token v;
		SM_CHECK(expect_string(k, &v, "a value"));
		if (ty == SMDMX_DM_ELEMENT) return add_pending(k, &v, &a->value.element);
		if (ty == SMDMX_DM_MATRIX) {
			a->value.matrix = sm_owned_alloc(k->mem, 16 * sizeof(float), k->error);
			if (!a->value.matrix) return false;
			return parse_value(k, &v, ty, a->value.matrix);
		}
		return parse_value(k, &v, ty, &a->value);
	}
	token open;
	SM_CHECK(next_token(k, &open));
	if (open.kind != TOK_LBRACKET) return kv2_fail_at(k, open.offset, SMDMX_ERROR_SYNTAX, "expected '[' after an array type");
	if (ty != SMDMX_DM_ELEMENT) return read_value_array(k, a, open.offset);
	if (f.prefix) return kv2_fail_at(k, type.offset, SMDMX_ERROR_SYNTAX, "an element array inside \"$prefix_element$\"");
	return push_frame(k, FRAME_ELEMENT_ARRAY, f.element, k->dm->elements[f.element].attr_count - 1, open.offset, false);
}

/* One step inside an element array: an item, or its end. */
static bool read_array_item(kv2 *k)
{
	token t;
	SM_CHECK(next_token(k, &t));
	frame *f = top(k);
	if (t.kind == TOK_RBRACKET) {
		smdmx_dm_attr *a = &k->dm->elements[f->element].attrs[f->attr];
		a->value.array.data = f->items.data;
		a->value.array.count = f->items.count;
		k->stack.count--;
		return true;
	}
	if (t.kind == TOK_END) return kv2_fail_at(k, f->open_offset, SMDMX_ERROR_UNTERMINATED, "'[' is never closed");
	if (t.kind == TOK_WORD) return bare_word(k, &t, "an element or ']'");
	if (t.kind != TOK_STRING) return kv2_fail_at(k, t.offset, SMDMX_ERROR_SYNTAX, "expected an element or ']'");
	if (f->items.count >= k->limits.max_array_items)
		return kv2_fail_at(k, t.offset, SMDMX_ERROR_LIMIT, "more than %zu items in one array", k->limits.max_array_items);
	uint32_t *slot = sm_vec_push(k->mem, &f->items, sizeof(uint32_t), k->error);
	if (!slot) return false;
	*slot = SMDMX_NONE;
	if (word_eq(t.s, t.len, "element")) {
		/* A reference, or an inline element of type "element"? The next token decides. */
		size_t save = k->pos;
		token v;
		SM_CHECK(next_token(k, &v));
		if (v.kind == TOK_STRING) {
			uint32_t r;
			SM_CHECK(add_pending(k, &v, &r));
			*((uint32_t *)top(k)->items.data + top(k)->items.count - 1) = r;
			return true;
		}
		k->pos = save;
	}
	uint32_t child;
	token type = t;
	SM_CHECK(begin_element(k, &type, &child));
	frame *arr = (frame *)k->stack.data + k->stack.count - 2;
	((uint32_t *)arr->items.data)[arr->items.count - 1] = child;
	return true;
}

/* One step inside an element body: an attribute, or its end. */
static bool read_body_step(kv2 *k)
{
	token t;
	SM_CHECK(next_token(k, &t));
	frame *f = top(k);
	if (t.kind == TOK_RBRACE) {
		k->stack.count--;
		return true;
	}
	if (t.kind == TOK_END) return kv2_fail_at(k, f->open_offset, SMDMX_ERROR_UNTERMINATED, "'{' is never closed");
	if (t.kind == TOK_WORD) return bare_word(k, &t, "an attribute name or '}'");
	if (t.kind != TOK_STRING) return kv2_fail_at(k, t.offset, SMDMX_ERROR_SYNTAX, "expected an attribute name or '}'");
	/* The name token may live in k->scratch, which the next token reuses: copy it first. */
	token name = t;
	if (name.s >= (const char *)k->scratch.data && k->scratch.data &&
	    name.s < (const char *)k->scratch.data + k->scratch.cap) {
		const char *c = sm_strdup(k->mem, name.s, name.len, k->error);
		if (!c) return false;
		name.s = c;
	}
	return read_attribute(k, &name);
}

static bool read_body(kv2 *k)
{
	for (;;) {
		if (k->stack.count == 0) {
			token t;
			SM_CHECK(next_token(k, &t));
			if (t.kind == TOK_END) break;
			if (t.kind == TOK_WORD) return bare_word(k, &t, "an element type");
			if (t.kind != TOK_STRING) return kv2_fail_at(k, t.offset, SMDMX_ERROR_SYNTAX, "expected an element type");
			uint32_t index;
			SM_CHECK(begin_element(k, &t, &index));
			if (index != SMDMX_NONE && !k->have_root) {
				k->dm->root = index;
				k->have_root = true;
			}
			continue;
		}
		if (top(k)->kind == FRAME_ELEMENT) SM_CHECK(read_body_step(k));
		else SM_CHECK(read_array_item(k));
		release_behind(k);
	}
	if (!k->have_root) return kv2_fail_at(k, k->pos, SMDMX_ERROR_EMPTY, "no element in the file");
	return true;
}

/* Second pass: ids are unique, and every reference names an element. */
static bool resolve(kv2 *k)
{
	smdmx_dm *dm = k->dm;
	SM_CHECK(sm_dm_index_ids(dm, k->error));
	/* The index keeps one element per id: a duplicate is an element the index does not return. */
	const size_t *offs = k->id_offsets.data;
	for (size_t i = 0; i < dm->element_count; i++) {
		if (!dm->elements[i].has_id) continue;
		if (sm_dm_lookup_id(dm, dm->elements[i].id) != i) {
			char text[37];
			smdmx_dm_id_to_text(dm->elements[i].id, text);
			return kv2_fail_at(k, offs[i], SMDMX_ERROR_DUPLICATE_ID, "element id %s is used twice", text);
		}
	}
	const pending_ref *pend = k->pending.data;
	size_t outside = 0, first = 0;
	for (size_t i = 0; i < dm->element_count; i++) {
		/* dm->elements moves as stubs are added; an element's attributes do not */
		smdmx_dm_attr *attrs = dm->elements[i].attrs;
		size_t attr_count = dm->elements[i].attr_count;
		for (size_t a = 0; a < attr_count; a++) {
			smdmx_dm_attr *at = &attrs[a];
			if (at->type != SMDMX_DM_ELEMENT) continue;
			size_t count = at->is_array ? at->value.array.count : 1;
			uint32_t *ix = at->is_array ? at->value.array.data : &at->value.element;
			for (size_t j = 0; j < count; j++) {
				if (ix[j] == SMDMX_NONE || !(ix[j] & PENDING_BIT)) continue;
				const pending_ref *r = &pend[ix[j] & ~PENDING_BIT];
				/* an id no element of the file has: an element of another file, kept as a
				 * stub, as Valve's datamodel keeps it (CDmElementDictionary hooks every
				 * reference up with FindOrCreateElementHandle) */
				uint32_t target = sm_dm_stub(dm, r->id, k->error);
				if (target == SMDMX_NONE) return false;
				if (dm->elements[target].stub && outside++ == 0) first = (size_t)(r - pend);
				ix[j] = target;
			}
		}
	}
	if (outside) {
		uint32_t line = 0, col = 0;
		line_col(k->data, pend[first].offset, &line, &col);
		char text[37];
		smdmx_dm_id_to_text(pend[first].id, text);
		sm_warn_n(k->warnings, SMDMX_WARNING_STUB, outside, line, col, SM_STUB_WARNING, text);
	}
	return true;
}

/* Warnings in the order of their first positions in the file. */
static void sort_warnings(smdmx_warnings *w)
{
	if (!w) return;
	for (size_t i = 1; i < w->count; i++) {
		smdmx_warning x = w->data[i];
		size_t j = i;
		for (; j > 0 && (w->data[j - 1].line > x.line || (w->data[j - 1].line == x.line && w->data[j - 1].column > x.column)); j--)
			w->data[j] = w->data[j - 1];
		w->data[j] = x;
	}
}

/* One reading of the file, backslashes as escapes or (raw) as characters. */
static smdmx_dm *read_pass(kv2 *k, const char *data, size_t size, const smdmx_dmx_read_options *opts, smdmx_error *error,
                           smdmx_warnings *warnings, bool raw, bool mapped)
{
	sm_warnings_start(warnings, &opts->allocator); /* the reading's (dmx.c), emptied for this pass */
	smdmx_dm *dm = smdmx_dm_create(&opts->allocator, error);
	if (!dm) return NULL;
	memset(k, 0, sizeof(*k));
	k->data = data;
	k->size = size;
	k->dm = dm;
	k->mem = dm->owner->mem;
	k->error = error;
	k->warnings = warnings;
	k->limits = sm_dm_limits_resolve(&opts->limits);
	k->raw = raw;
	k->threads = opts->threads > 1 ? opts->threads : 1;
	k->mapped = mapped;
	k->progress = opts->progress;
	k->pending = k->id_offsets = k->stack = k->scratch = k->prefix = k->named = (sm_vec)SM_VEC_INIT;
	k->crew.hooks = k->mem->alloc.hooks; /* its threads and locks in the reading's memory */
	bool ok = read_header(k);
	ok = ok && read_body(k) && resolve(k);
	sm_crew_end(&k->crew);
	if (ok) sm_progress_at(&k->progress, &k->told, k->size, true);
	if (ok) {
		dm->prefix_attrs = k->prefix.data;
		dm->prefix_attr_count = k->prefix.count;
	}
	sm_vec_release(k->mem, &k->pending, sizeof(pending_ref));
	sm_vec_release(k->mem, &k->id_offsets, sizeof(size_t));
	sm_vec_release(k->mem, &k->stack, sizeof(frame));
	sm_vec_release(k->mem, &k->scratch, 1);
	sm_vec_release(k->mem, &k->named, 1);
	if (!ok) {
		smdmx_dm_free(dm);
		return NULL;
	}
	return dm;
}

/* Backslashes. Valve's writer escapes them (A8), so in its files every backslash starts an
 * escape; datamodel.py escapes nothing, so its Windows paths hold `\M` or `\.`, and also
 * `\a` or `\n`, which an escaping reader would turn into a bell or a newline. A file with a
 * backslash that starts no escape, a bare type word or an unescaped quote was written by a
 * writer that does not escape: when it also has sequences that were read as escapes, it is
 * read again with every backslash a character. A file that does not read with escapes
 * (`"C:\dir\"` swallows its closing quote) is read again so too, and kept so when that
 * reads. When the second reading fails, the first one stands. */
smdmx_dm *sm_kv2_read(const char *data, size_t size, const smdmx_dmx_read_options *options, smdmx_error *error,
                      smdmx_warnings *warnings, bool mapped)
{
	smdmx_dmx_read_options opts;
	memset(&opts, 0, sizeof(opts));
	if (options) opts = *options;
	kv2 k;
	smdmx_dm *dm = read_pass(&k, data, size, &opts, error, warnings, false, mapped);
	size_t escapes = k.escapes, bad = k.bad_escapes, first_bad = k.first_bad_escape;
	/* Signs of a writer that escapes nothing: a backslash that starts no escape, a bare type
	 * word or an unescaped quote (both datamodel.py's). */
	bool unescaping = bad || k.bare_count || k.loose_quotes;
	bool retry = escapes && (dm ? unescaping : error->code != SMDMX_ERROR_OUT_OF_MEMORY && error->code != SMDMX_ERROR_LIMIT);
	if (retry) {
		smdmx_error escaped_error = *error;
		smdmx_warnings raw_warnings = { 0 };
		memset(error, 0, sizeof(*error));
		smdmx_dm *raw = read_pass(&k, data, size, &opts, error, warnings ? &raw_warnings : NULL, true, mapped);
		if (raw) {
			smdmx_dm_free(dm);
			if (warnings) {
				smdmx_warnings_free(warnings);
				*warnings = raw_warnings;
			}
			uint32_t line, col;
			line_col(data, bad ? first_bad : k.first_backslash, &line, &col);
			sm_warn_n(warnings, SMDMX_WARNING_RAW_BACKSLASH, k.backslashes, line, col,
			          "this file does not escape backslashes (as Blender Source Tools' datamodel.py writes paths): "
			          "each was read as written; nothing to do");
			sort_warnings(warnings);
			return raw;
		}
		smdmx_warnings_free(&raw_warnings);
		if (error->code == SMDMX_ERROR_OUT_OF_MEMORY || error->code == SMDMX_ERROR_LIMIT) {
			smdmx_dm_free(dm);
			return NULL;
		}
		/* Neither reading is clean: keep the one with escapes, its result or its error. */
		*error = escaped_error;
		if (!dm) return NULL;
	}
	if (dm && bad) {
		uint32_t line, col;
		line_col(data, first_bad, &line, &col);
		sm_warn_n(warnings, SMDMX_WARNING_RAW_BACKSLASH, bad, line, col,
		          "a backslash that starts no escape (as Blender Source Tools' datamodel.py writes paths) was read as "
		          "written; nothing to do");
	}
	sort_warnings(warnings);
	return dm;
}
