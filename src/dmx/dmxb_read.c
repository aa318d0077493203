/* Binary DMX reader, versions 1 to 5 and 9, and binary_seqids 9 (doc/formats.md B1 to B10a).
 *
 * Every read is bounds-checked against the end of the data, and every count is checked
 * against the bytes that remain before anything is allocated for it, so a lying count is an
 * error, never a huge allocation. Errors give the byte offset. Little-endian throughout; on
 * a little-endian host arrays of numbers are copied as they are. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dmx/dm_internal.h"
#include "platform/os.h"

typedef struct rd {
	const uint8_t *data;
	size_t size, pos;
	int version;
	smdmx_dm *dm;
	sm_owner *mem;
	smdmx_error *error;
	smdmx_warnings *warnings;
	smdmx_dm_limits limits;
	const char **strings; /* string table */
	size_t string_count;
	sm_vec stubs;         /* stub_ref */
	uint32_t cur_element; /* the attribute being read, for stubs */
	uint32_t cur_attr;
	size_t cur_item;
	smdmx_progress progress; /* the bytes read told (after an attribute) */
	uint64_t told;
	bool mapped;          /* data is a file mapping whose read pages may be given back */
	size_t released;      /* pages before this offset were given back */
} rd;

typedef struct stub_ref {
	uint32_t element;     /* where the resolved index goes: element, attribute, item */
	uint32_t attr;
	size_t item;          /* SIZE_MAX for a scalar */
	uint8_t id[16];
	size_t offset;
} stub_ref;

static bool dmxb_fail_at(rd *r, size_t offset, smdmx_error_code code, const char *fmt, ...) SM_PRINTF(4, 5);

static bool dmxb_fail_at(rd *r, size_t offset, smdmx_error_code code, const char *fmt, ...)
{
	if (r->error->code != SMDMX_ERROR_NONE) return false;
	char msg[224];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sm_fail(r->error, code, 0, 0, "byte %zu: %s", offset, msg);
	r->error->byte = (uint64_t)offset + 1;
	return false;
}

static bool need(rd *r, size_t n)
{
	if (SM_LIKELY(r->size - r->pos >= n)) return true;
	return dmxb_fail_at(r, r->pos, SMDMX_ERROR_SYNTAX, "the file ends inside a value (%zu bytes needed, %zu left)", n,
	               r->size - r->pos);
}

static bool u8(rd *r, uint8_t *v)
{
	SM_CHECK(need(r, 1));
	*v = r->data[r->pos++];
	return true;
}

static bool i16(rd *r, int32_t *v)
{
	SM_CHECK(need(r, 2));
	const uint8_t *p = r->data + r->pos;
	*v = (int16_t)(uint16_t)(p[0] | p[1] << 8);
	r->pos += 2;
	return true;
}

static bool i32(rd *r, int32_t *v)
{
	SM_CHECK(need(r, 4));
	const uint8_t *p = r->data + r->pos;
	*v = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
	r->pos += 4;
	return true;
}

/* A count that the remaining bytes can hold at `min_bytes` each. */
static bool count(rd *r, int32_t raw, size_t min_bytes, size_t at, size_t *out)
{
	if (raw < 0) return dmxb_fail_at(r, at, SMDMX_ERROR_BAD_VALUE, "negative count %d", raw);
	if (min_bytes && (size_t)raw > (r->size - r->pos) / min_bytes)
		return dmxb_fail_at(r, at, SMDMX_ERROR_BAD_VALUE, "count %d needs more bytes than the file has left", raw);
	*out = (size_t)raw;
	return true;
}

/* A NUL-terminated string in the data (not copied: the data outlives the parse only as long
 * as the reader, so callers copy what they keep). */
static bool cstr(rd *r, const char **s, size_t *len)
{
	const uint8_t *p = r->data + r->pos;
	const uint8_t *z = memchr(p, 0, r->size - r->pos);
	if (!z) return dmxb_fail_at(r, r->pos, SMDMX_ERROR_UNTERMINATED, "a string runs past the end of the file");
	*s = (const char *)p;
	*len = (size_t)(z - p);
	r->pos += *len + 1;
	return true;
}

static bool owned_cstr(rd *r, const char **out)
{
	const char *s = NULL;
	size_t n = 0;
	SM_CHECK(cstr(r, &s, &n));
	*out = sm_strdup(r->mem, s, n, r->error);
	return *out != NULL;
}

/* A string by table index (int16 before version 5). */
static bool table_string(rd *r, const char **out)
{
	size_t at = r->pos;
	int32_t i;
	SM_CHECK(r->version >= 5 ? i32(r, &i) : i16(r, &i));
	if (i < 0 || (size_t)i >= r->string_count)
		return dmxb_fail_at(r, at, SMDMX_ERROR_BAD_VALUE, "string index %d is outside the table of %zu", i, r->string_count);
	*out = r->strings[i];
	return true;
}

/* Windows GUID byte order (B8) to the text order. */
static void guid_from_le(const uint8_t *b, uint8_t id[16])
{
	id[0] = b[3], id[1] = b[2], id[2] = b[1], id[3] = b[0];
	id[4] = b[5], id[5] = b[4], id[6] = b[7], id[7] = b[6];
	memcpy(id + 8, b + 8, 8);
}

/* Type ids per version (B6): base 1..14 (+15 uint64, 16 uint8 in 9), arrays at +14 or +32. */
static bool decode_type(rd *r, uint8_t raw, size_t at, smdmx_dm_type *type, bool *is_array)
{
	int base = raw, array_start = r->version >= 9 ? 32 : 14, last = r->version >= 9 ? 16 : 14;
	*is_array = false;
	if (base > array_start) {
		base -= array_start;
		*is_array = true;
	}
	if (base < 1 || base > last) return dmxb_fail_at(r, at, SMDMX_ERROR_UNKNOWN_TYPE, "unknown attribute type id %u", raw);
	static const smdmx_dm_type map[17] = {
		SMDMX_DM_NONE,    SMDMX_DM_ELEMENT, SMDMX_DM_INT,     SMDMX_DM_FLOAT,      SMDMX_DM_BOOL,   SMDMX_DM_STRING,
		SMDMX_DM_BINARY,  SMDMX_DM_TIME,    SMDMX_DM_COLOR,   SMDMX_DM_VECTOR2,    SMDMX_DM_VECTOR3, SMDMX_DM_VECTOR4,
		SMDMX_DM_QANGLE,  SMDMX_DM_QUATERNION, SMDMX_DM_MATRIX, SMDMX_DM_UINT64, SMDMX_DM_UINT8,
	};
	*type = map[base];
	if (base == 7 && r->version <= 2) *type = SMDMX_DM_OBJECTID;
	return true;
}

/* Bytes of one item on disk, or 0 for variable-size items. */
static size_t disk_size(smdmx_dm_type t)
{
	switch (t) {
	case SMDMX_DM_STRING:
	case SMDMX_DM_BINARY: return 0;
	case SMDMX_DM_BOOL: return 1;
	case SMDMX_DM_ELEMENT: return 4;
	default: return smdmx_dm_item_size(t);
	}
}

static bool element_ref(rd *r, uint32_t *slot)
{
	size_t at = r->pos;
	int32_t i;
	SM_CHECK(i32(r, &i));
	if (i == -1) {
		*slot = SMDMX_NONE;
		return true;
	}
	if (i == -2) {
		/* A stub: an element named by id, resolved against the file's elements at the end. */
		const char *s = NULL;
		size_t n = 0;
		SM_CHECK(cstr(r, &s, &n));
		stub_ref *st = sm_vec_push(r->mem, &r->stubs, sizeof(*st), r->error);
		if (!st) return false;
		if (!smdmx_dm_id_from_text(s, n, st->id))
			return dmxb_fail_at(r, at, SMDMX_ERROR_BAD_VALUE, "a stub reference with a malformed id");
		st->element = r->cur_element;
		st->attr = r->cur_attr;
		st->item = r->cur_item;
		st->offset = at;
		*slot = SMDMX_NONE;
		return true;
	}
	if (i < 0 || (size_t)i >= r->dm->element_count)
		return dmxb_fail_at(r, at, SMDMX_ERROR_BAD_VALUE, "element index %d is outside the %zu elements", i, r->dm->element_count);
	*slot = (uint32_t)i;
	return true;
}

/* One item of type t into dst (the datamodel's item layout). */
static bool item(rd *r, smdmx_dm_type t, bool in_array, void *dst)
{
	size_t at = r->pos;
	switch (t) {
	case SMDMX_DM_ELEMENT: return element_ref(r, dst);
	case SMDMX_DM_STRING:
		/* Strings in arrays are always inline; values use the table from version 4. */
		if (in_array || r->version < 4) return owned_cstr(r, dst);
		return table_string(r, dst);
	case SMDMX_DM_BINARY: {
		int32_t raw;
		size_t n = 0;
		SM_CHECK(i32(r, &raw));
		SM_CHECK(count(r, raw, 1, at, &n));
		smdmx_dm_binary *b = dst;
		b->size = n;
		b->data = NULL;
		if (n) {
			b->data = sm_owned_alloc(r->mem, n, r->error);
			if (!b->data) return false;
			memcpy(b->data, r->data + r->pos, n);
		}
		r->pos += n;
		return true;
	}
	case SMDMX_DM_BOOL: {
		uint8_t v;
		SM_CHECK(u8(r, &v));
		if (in_array) *(uint8_t *)dst = v != 0;
		else *(bool *)dst = v != 0;
		return true;
	}
	case SMDMX_DM_OBJECTID:
		SM_CHECK(need(r, 16));
		guid_from_le(r->data + r->pos, dst);
		r->pos += 16;
		return true;
	default: {
		size_t n = smdmx_dm_item_size(t);
		SM_CHECK(need(r, n));
		memcpy(dst, r->data + r->pos, n);
		r->pos += n;
		return true;
	}
	}
}

static bool attribute_value(rd *r, smdmx_dm_attr *a, uint8_t raw_type, size_t type_at);

/* The reader goes forward only, and what it keeps is copied: the mapping's pages behind it,
 * but for the last 64 KiB, are given back every 8 MiB (also within a large array, copied 4 MiB
 * at a time), so that the file and the datamodel it becomes are not resident whole together
 * (an error message reads them in again). */
static void release_behind(rd *r)
{
	if (r->mapped && r->pos - r->released >= ((size_t)8 << 20)) {
		size_t to = r->pos - ((size_t)64 << 10);
		os_map_release(r->data, r->released, to);
		r->released = to;
	}
}

static bool attribute(rd *r, smdmx_dm_attr *a, uint8_t raw_type, size_t type_at)
{
	SM_CHECK(attribute_value(r, a, raw_type, type_at));
	sm_progress_at(&r->progress, &r->told, r->pos, false);
	release_behind(r);
	return true;
}

static bool attribute_value(rd *r, smdmx_dm_attr *a, uint8_t raw_type, size_t type_at)
{
	SM_CHECK(decode_type(r, raw_type, type_at, &a->type, &a->is_array));
	if (!a->is_array) {
		if (a->type == SMDMX_DM_MATRIX) {
			a->value.matrix = sm_owned_alloc(r->mem, 16 * sizeof(float), r->error);
			if (!a->value.matrix) return false;
			return item(r, a->type, false, a->value.matrix);
		}
		if (a->type == SMDMX_DM_BOOL) return item(r, a->type, false, &a->value.b);
		return item(r, a->type, false, &a->value);
	}
	size_t at = r->pos, n = 0;
	int32_t raw;
	SM_CHECK(i32(r, &raw));
	size_t min = disk_size(a->type);
	SM_CHECK(count(r, raw, min ? min : (a->type == SMDMX_DM_STRING ? 1 : 4), at, &n));
	if (n > r->limits.max_array_items)
		return dmxb_fail_at(r, at, SMDMX_ERROR_LIMIT, "%zu items in one array; the limit is %zu", n, r->limits.max_array_items);
	size_t isize = smdmx_dm_item_size(a->type);
	a->value.array.count = n;
	a->value.array.data = NULL;
	if (!n) return true;
	a->value.array.data = sm_owned_alloc(r->mem, n * isize, r->error);
	if (!a->value.array.data) return false;
	char *dst = a->value.array.data;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (a->type != SMDMX_DM_ELEMENT && a->type != SMDMX_DM_OBJECTID && min == isize) {
		/* Numbers: the bytes on disk are the bytes in memory. */
		for (size_t done = 0, bytes = n * isize; done < bytes;) {
			size_t step = bytes - done < ((size_t)4 << 20) ? bytes - done : (size_t)4 << 20;
			memcpy(dst + done, r->data + r->pos, step);
			r->pos += step;
			done += step;
			release_behind(r);
		}
		if (a->type == SMDMX_DM_BOOL)
			for (size_t i = 0; i < n; i++) dst[i] = dst[i] != 0;
		return true;
	}
#endif
	for (size_t i = 0; i < n; i++) {
		r->cur_item = i;
		SM_CHECK(item(r, a->type, true, dst + i * isize));
	}
	return true;
}

/* The version 9 prefix block (B9): attributes with inline names and values, kept. */
static bool prefix_block(rd *r)
{
	size_t at = r->pos;
	int32_t raw;
	SM_CHECK(i32(r, &raw));
	size_t blocks = 0;
	SM_CHECK(count(r, raw, 4, at, &blocks));
	sm_vec attrs = SM_VEC_INIT;
	int saved = r->version;
	r->version = 3; /* prefix strings are inline */
	for (size_t b = 0; b < blocks; b++) {
		size_t cat = r->pos, n = 0;
		SM_CHECK(i32(r, &raw));
		SM_CHECK(count(r, raw, 2, cat, &n));
		if (n > r->limits.max_attributes)
			return dmxb_fail_at(r, cat, SMDMX_ERROR_LIMIT, "%zu attributes in one element; the limit is %zu", n, r->limits.max_attributes);
		for (size_t i = 0; i < n; i++) {
			smdmx_dm_attr *a = sm_vec_push(r->mem, &attrs, sizeof(*a), r->error);
			if (!a) return false;
			memset(a, 0, sizeof(*a));
			SM_CHECK(owned_cstr(r, &a->name));
			uint8_t t;
			size_t tat = r->pos;
			SM_CHECK(u8(r, &t));
			r->version = saved; /* type ids follow the file's version */
			bool ok = decode_type(r, t, tat, &a->type, &a->is_array);
			r->version = 3;
			SM_CHECK(ok);
			if (a->type == SMDMX_DM_ELEMENT) return dmxb_fail_at(r, tat, SMDMX_ERROR_BAD_VALUE, "an element in the prefix block");
			/* decode_type with the real version mapped the id; read the value as version 3 */
			if (!a->is_array) {
				if (a->type == SMDMX_DM_MATRIX) {
					a->value.matrix = sm_owned_alloc(r->mem, 64, r->error);
					if (!a->value.matrix) return false;
					SM_CHECK(item(r, a->type, false, a->value.matrix));
				} else {
					SM_CHECK(item(r, a->type, false, a->type == SMDMX_DM_BOOL ? (void *)&a->value.b : (void *)&a->value));
				}
			} else {
				size_t aat = r->pos, k = 0;
				SM_CHECK(i32(r, &raw));
				SM_CHECK(count(r, raw, 1, aat, &k));
				if (k > r->limits.max_array_items)
					return dmxb_fail_at(r, aat, SMDMX_ERROR_LIMIT, "%zu items in one array; the limit is %zu", k, r->limits.max_array_items);
				a->value.array.count = k;
				if (k) {
					a->value.array.data = sm_owned_calloc(r->mem, k, smdmx_dm_item_size(a->type), r->error);
					if (!a->value.array.data) return false;
					for (size_t j = 0; j < k; j++)
						SM_CHECK(item(r, a->type, true, (char *)a->value.array.data + j * smdmx_dm_item_size(a->type)));
				}
			}
		}
	}
	r->version = saved;
	r->dm->prefix_attrs = attrs.data;
	r->dm->prefix_attr_count = attrs.count;
	return true;
}

static bool read_body(rd *r)
{
	smdmx_dm *dm = r->dm;
	int32_t raw;
	size_t at;
	if (r->version >= 9) SM_CHECK(prefix_block(r));
	if (r->version >= 2) {
		at = r->pos;
		SM_CHECK(r->version >= 4 ? i32(r, &raw) : i16(r, &raw));
		SM_CHECK(count(r, raw, 1, at, &r->string_count));
		if (r->string_count) {
			r->strings = sm_owned_calloc(r->mem, r->string_count, sizeof(char *), r->error);
			if (!r->strings) return false;
		}
		for (size_t i = 0; i < r->string_count; i++) SM_CHECK(owned_cstr(r, &r->strings[i]));
	}
	at = r->pos;
	SM_CHECK(i32(r, &raw));
	size_t elements = 0;
	/* an index entry holds at least 16 id bytes and two strings or indices */
	SM_CHECK(count(r, raw, 18, at, &elements));
	if (elements > r->limits.max_elements)
		return dmxb_fail_at(r, at, SMDMX_ERROR_LIMIT, "%zu elements; the limit is %zu", elements, r->limits.max_elements);
	for (size_t i = 0; i < elements; i++) {
		const char *type, *name;
		if (r->version >= 2) SM_CHECK(table_string(r, &type));
		else SM_CHECK(owned_cstr(r, &type));
		if (r->version >= 4) SM_CHECK(table_string(r, &name));
		else SM_CHECK(owned_cstr(r, &name));
		SM_CHECK(need(r, 16));
		uint8_t id[16];
		guid_from_le(r->data + r->pos, id);
		r->pos += 16;
		if (sm_dm_add_element(dm, type, name, id, r->error) == SMDMX_NONE) return false;
	}
	for (size_t i = 0; i < elements; i++) {
		at = r->pos;
		SM_CHECK(i32(r, &raw));
		size_t n = 0;
		SM_CHECK(count(r, raw, 3, at, &n));
		if (n > r->limits.max_attributes)
			return dmxb_fail_at(r, at, SMDMX_ERROR_LIMIT, "%zu attributes in one element; the limit is %zu", n, r->limits.max_attributes);
		for (size_t k = 0; k < n; k++) {
			const char *name;
			if (r->version >= 2) SM_CHECK(table_string(r, &name));
			else SM_CHECK(owned_cstr(r, &name));
			uint8_t t;
			size_t tat = r->pos;
			SM_CHECK(u8(r, &t));
			smdmx_dm_attr *a = sm_dm_push_attr(dm, (uint32_t)i, r->error);
			if (!a) return false;
			a->name = name;
			r->cur_element = (uint32_t)i;
			r->cur_attr = (uint32_t)k;
			r->cur_item = SIZE_MAX;
			SM_CHECK(attribute(r, a, t, tat));
		}
	}
	if (r->pos != r->size) {
		/* Valve's files end exactly; a trailing NUL or newline is tolerated. */
		while (r->pos < r->size && (r->data[r->pos] == 0 || r->data[r->pos] == '\n' || r->data[r->pos] == '\r')) r->pos++;
		if (r->pos != r->size)
			return dmxb_fail_at(r, r->pos, SMDMX_ERROR_SYNTAX, "%zu bytes after the last element", r->size - r->pos);
	}
	return true;
}

/* A reference by id (-2) names an element of this file or, as Valve's datamodel reads it
 * (FindOrCreateElementHandle), an element of another file: a stub, kept by its id. */
static bool resolve_stubs(rd *r)
{
	if (!r->stubs.count) return true;
	const stub_ref *s = r->stubs.data;
	size_t outside = 0, first = 0;
	for (size_t i = 0; i < r->stubs.count; i++) {
		uint32_t e = sm_dm_stub(r->dm, s[i].id, r->error);
		if (e == SMDMX_NONE) return false;
		if (r->dm->elements[e].stub && outside++ == 0) first = i;
		smdmx_dm_attr *a = &r->dm->elements[s[i].element].attrs[s[i].attr];
		if (s[i].item == SIZE_MAX) a->value.element = e;
		else ((uint32_t *)a->value.array.data)[s[i].item] = e;
	}
	if (outside) {
		char text[37];
		smdmx_dm_id_to_text(s[first].id, text);
		sm_warn_n(r->warnings, SMDMX_WARNING_STUB, outside, 0, 0, "byte %zu: " SM_STUB_WARNING, s[first].offset, text);
	}
	return true;
}

smdmx_dm *sm_dmxb_read(const char *data, size_t size, const sm_dmx_header *h, const smdmx_dmx_read_options *options,
                       smdmx_error *error, smdmx_warnings *warnings, bool mapped)
{
	smdmx_dmx_read_options opts;
	memset(&opts, 0, sizeof(opts));
	if (options) opts = *options;
	int v = h->encoding_version;
	if (h->encoding_len == 13 && v != 9) {
		sm_fail(error, SMDMX_ERROR_ENCODING, 1, 1, "binary_seqids version %d (9 is read)", v);
		return NULL;
	}
	if (!(v >= 1 && v <= 5) && v != 9) {
		sm_fail(error, SMDMX_ERROR_ENCODING, 1, 1, "binary version %d (1 to 5 and 9 are read)", v);
		return NULL;
	}
	smdmx_dm *dm = smdmx_dm_create(&opts.allocator, error);
	if (!dm) return NULL;
	rd r;
	memset(&r, 0, sizeof(r));
	r.data = (const uint8_t *)data;
	r.size = size;
	r.version = v;
	r.dm = dm;
	r.mem = dm->owner->mem;
	r.error = error;
	r.warnings = warnings;
	r.limits = sm_dm_limits_resolve(&opts.limits);
	r.stubs = (sm_vec)SM_VEC_INIT;
	r.progress = opts.progress;
	r.mapped = mapped;
	r.pos = h->body;
	bool ok = true;
	/* B1: the header line ends in a newline and a NUL. */
	if (h->body == 0 || data[h->body - 1] != '\n' || r.pos >= size || data[r.pos] != 0)
		ok = dmxb_fail_at(&r, r.pos, SMDMX_ERROR_HEADER, "a binary header must end in a newline and a NUL byte");
	r.pos++;
	ok = ok && (dm->encoding = sm_strdup(r.mem, h->encoding, h->encoding_len, error)) != NULL;
	ok = ok && (dm->format = sm_strdup(r.mem, h->format, h->format_len, error)) != NULL;
	dm->encoding_version = v;
	dm->format_version = h->format_version;
	ok = ok && read_body(&r) && resolve_stubs(&r);
	if (ok && dm->element_count == 0) ok = dmxb_fail_at(&r, r.pos, SMDMX_ERROR_EMPTY, "no element in the file");
	if (ok) dm->root = 0; /* B5: element 0 is the root */
	if (ok) sm_progress_at(&r.progress, &r.told, size, true);
	sm_vec_release(r.mem, &r.stubs, sizeof(stub_ref));
	if (!ok) {
		smdmx_dm_free(dm);
		return NULL;
	}
	return dm;
}
