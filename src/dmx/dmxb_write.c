/* Binary DMX writer, versions 1 to 5 and 9 and binary_seqids 9 (doc/formats.md B1 to B10a): the
 * string table and the element index the way each version needs them, element 0 the root.
 * The same graph always gives the same bytes. */
#include <stdio.h>
#include <string.h>

#include "dmx/dm_internal.h"

typedef struct bw {
	sm_out *out;
	smdmx_error *error;
	smdmx_dm *dm;
	sm_owner *mem;        /* scratch */
	int version;
	bool seqids;          /* binary_seqids (B10a): element k of the index has the id k + 1 */
	uint32_t *new_index;  /* old element index -> written index */
	uint32_t *order;      /* written index -> old element index */
	size_t count;         /* the elements written: all but stubs */
	/* string table: open addressing from string to table index */
	sm_vec strings;       /* const char * */
	uint32_t *slots;      /* table index + 1, 0 empty */
	size_t slot_cap;
	/* the table index of every string the elements name, in the order they are written
	 * (build_table looks each up; the writing takes them in turn instead of looking again) */
	sm_vec refs;          /* uint32_t */
	size_t next_ref;
} bw;

static bool bytes(bw *w, const void *p, size_t n)
{
	return sm_out_put(w->out, p, n);
}

static bool w32(bw *w, int32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)((uint32_t)v >> 8), (uint8_t)((uint32_t)v >> 16), (uint8_t)((uint32_t)v >> 24) };
	return bytes(w, b, 4);
}

static bool w16(bw *w, int32_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)((uint32_t)v >> 8) };
	return bytes(w, b, 2);
}

static bool wstr(bw *w, const char *s)
{
	return bytes(w, s, strlen(s) + 1);
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Index of s in the table, adding it when new. */
static bool intern(bw *w, const char *s, uint32_t *out)
{
	if ((w->strings.count + 1) * 2 > w->slot_cap) {
		size_t cap = w->slot_cap ? w->slot_cap * 2 : 256;
		uint32_t *slots = sm_owned_calloc(w->mem, cap, sizeof(uint32_t), w->error);
		if (!slots) return false;
		const char **all = w->strings.data;
		for (size_t i = 0; i < w->strings.count; i++) {
			size_t h = str_hash(all[i]) & (cap - 1);
			while (slots[h]) h = (h + 1) & (cap - 1);
			slots[h] = (uint32_t)i + 1;
		}
		w->slots = slots;
		w->slot_cap = cap;
	}
	size_t h = str_hash(s) & (w->slot_cap - 1);
	const char **all = w->strings.data;
	while (w->slots[h]) {
		if (strcmp(all[w->slots[h] - 1], s) == 0) {
			*out = w->slots[h] - 1;
			return true;
		}
		h = (h + 1) & (w->slot_cap - 1);
	}
	const char **dst = sm_vec_push(w->mem, &w->strings, sizeof(char *), w->error);
	if (!dst) return false;
	*dst = s;
	w->slots[h] = (uint32_t)w->strings.count;
	*out = (uint32_t)w->strings.count - 1;
	return true;
}

/* s added to the table, its index kept for the writing (wref). */
static bool intern_ref(bw *w, const char *s)
{
	uint32_t i, *ref = sm_vec_push(w->mem, &w->refs, sizeof(uint32_t), w->error);
	if (!ref || !intern(w, s, &i)) return false;
	*ref = i;
	return true;
}

/* A table reference: int16 before version 5, int32 from it. The strings come in the order
 * build_table added them; each is checked to be the one kept. */
static bool wref(bw *w, const char *s)
{
	const char *const *all = w->strings.data;
	if (w->next_ref >= w->refs.count) return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "string missing from the table");
	uint32_t i = ((const uint32_t *)w->refs.data)[w->next_ref++];
	if (all[i] != s && strcmp(all[i], s) != 0)
		return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "string missing from the table");
	return w->version >= 5 ? w32(w, (int32_t)i) : w16(w, (int32_t)i);
}

static bool check_type(bw *w, const smdmx_dm_attr *a)
{
	int v = w->version;
	bool ok = true;
	if (a->type == SMDMX_DM_TIME && v <= 2) ok = false;
	if (a->type == SMDMX_DM_OBJECTID && v >= 3) ok = false;
	if ((a->type == SMDMX_DM_UINT64 || a->type == SMDMX_DM_UINT8) && v < 9) ok = false;
	if (!ok)
		return sm_fail(w->error, SMDMX_ERROR_ENCODING, 0, 0, "attribute '%s' is %s, which binary %d cannot hold (%s can)", a->name,
		               smdmx_dm_type_name(a->type, a->is_array), v,
		               a->type == SMDMX_DM_TIME ? "3, 4, 5 and 9" : a->type == SMDMX_DM_OBJECTID ? "1 and 2" : "9");
	return true;
}

static uint8_t type_id(const bw *w, const smdmx_dm_attr *a)
{
	static const uint8_t base[SMDMX_DM_TYPE_COUNT] = {
		[SMDMX_DM_ELEMENT] = 1, [SMDMX_DM_INT] = 2,    [SMDMX_DM_FLOAT] = 3,      [SMDMX_DM_BOOL] = 4,
		[SMDMX_DM_STRING] = 5,  [SMDMX_DM_BINARY] = 6, [SMDMX_DM_TIME] = 7,       [SMDMX_DM_OBJECTID] = 7,
		[SMDMX_DM_COLOR] = 8,   [SMDMX_DM_VECTOR2] = 9, [SMDMX_DM_VECTOR3] = 10,  [SMDMX_DM_VECTOR4] = 11,
		[SMDMX_DM_QANGLE] = 12, [SMDMX_DM_QUATERNION] = 13, [SMDMX_DM_MATRIX] = 14, [SMDMX_DM_UINT64] = 15,
		[SMDMX_DM_UINT8] = 16,
	};
	return (uint8_t)(base[a->type] + (a->is_array ? (w->version >= 9 ? 32 : 14) : 0));
}

/* Windows GUID byte order (B8). */
static bool wguid(bw *w, const uint8_t id[16])
{
	uint8_t b[16] = { id[3], id[2], id[1], id[0], id[5], id[4], id[7], id[6] };
	memcpy(b + 8, id + 8, 8);
	return bytes(w, b, 16);
}

static bool item(bw *w, smdmx_dm_type t, bool in_array, bool table, const void *v)
{
	switch (t) {
	case SMDMX_DM_ELEMENT: {
		uint32_t e = *(const uint32_t *)v;
		if (e == SMDMX_NONE || e >= w->dm->element_count) return w32(w, -1);
		if (w->dm->elements[e].stub) {
			/* an element of another file: -2 and its id (B, element references) */
			char text[37];
			smdmx_dm_id_to_text(w->dm->elements[e].id, text);
			return w32(w, -2) && wstr(w, text);
		}
		return w32(w, (int32_t)w->new_index[e]);
	}
	case SMDMX_DM_STRING: {
		const char *s = *(const char *const *)v;
		if (!s) s = "";
		return in_array || !table ? wstr(w, s) : wref(w, s);
	}
	case SMDMX_DM_BINARY: {
		const smdmx_dm_binary *b = v;
		if (b->size > INT32_MAX) return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "a binary value over 2 GiB");
		return w32(w, (int32_t)b->size) && (b->size == 0 || bytes(w, b->data, b->size));
	}
	case SMDMX_DM_BOOL: {
		uint8_t b = in_array ? (*(const uint8_t *)v != 0) : (uint8_t)*(const bool *)v;
		return bytes(w, &b, 1);
	}
	case SMDMX_DM_OBJECTID: return wguid(w, v);
	default: return bytes(w, v, smdmx_dm_item_size(t));
	}
}

/* One attribute after its name: type id and value. `table`: strings by index. */
static bool attribute(bw *w, const smdmx_dm_attr *a, bool table)
{
	SM_CHECK(check_type(w, a));
	uint8_t id = type_id(w, a);
	SM_CHECK(bytes(w, &id, 1));
	if (!a->is_array) {
		const void *v = a->type == SMDMX_DM_MATRIX ? (const void *)a->value.matrix
		                : a->type == SMDMX_DM_BOOL  ? (const void *)&a->value.b
		                                            : (const void *)&a->value;
		return item(w, a->type, false, table, v);
	}
	size_t n = a->value.array.count, isize = smdmx_dm_item_size(a->type);
	if (n > INT32_MAX) return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "an array of more than 2^31 items");
	SM_CHECK(w32(w, (int32_t)n));
	const char *data = a->value.array.data;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (a->type != SMDMX_DM_ELEMENT && a->type != SMDMX_DM_OBJECTID && a->type != SMDMX_DM_STRING &&
	    a->type != SMDMX_DM_BINARY && a->type != SMDMX_DM_BOOL)
		return n == 0 || bytes(w, data, n * isize);
#endif
	for (size_t i = 0; i < n; i++) SM_CHECK(item(w, a->type, true, table, data + i * isize));
	return true;
}

static bool build_table(bw *w)
{
	const smdmx_dm *dm = w->dm;
	/* in the order write_all writes them */
	for (size_t k = 0; k < w->count; k++) {
		const smdmx_dm_element *e = &dm->elements[w->order[k]];
		SM_CHECK(intern_ref(w, e->type));
		if (w->version >= 4) SM_CHECK(intern_ref(w, e->name));
	}
	for (size_t k = 0; k < w->count; k++) {
		const smdmx_dm_element *e = &dm->elements[w->order[k]];
		for (size_t a = 0; a < e->attr_count; a++) {
			SM_CHECK(intern_ref(w, e->attrs[a].name));
			if (w->version >= 4 && e->attrs[a].type == SMDMX_DM_STRING && !e->attrs[a].is_array)
				SM_CHECK(intern_ref(w, e->attrs[a].value.s ? e->attrs[a].value.s : ""));
		}
	}
	size_t most = w->version >= 5 ? (size_t)INT32_MAX : 32767;
	if (w->strings.count > most)
		return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "%zu distinct strings; binary %d holds at most %zu", w->strings.count,
		               w->version, most);
	return true;
}

static bool write_all(bw *w, const char *format, int fver)
{
	smdmx_dm *dm = w->dm;
	size_t n = dm->element_count;
	if (n == 0 || dm->root == SMDMX_NONE) return sm_fail(w->error, SMDMX_ERROR_EMPTY, 0, 0, "no element to write");
	if (n > INT32_MAX) return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "too many elements");
	SM_CHECK(smdmx_dm_assign_ids(dm, w->error));
	w->new_index = sm_owned_calloc(w->mem, n, sizeof(uint32_t), w->error);
	w->order = sm_owned_calloc(w->mem, n, sizeof(uint32_t), w->error);
	if (!w->new_index || !w->order) return false;
	/* B5: the root is element 0; the others keep their order. Stubs are not the file's. */
	if (dm->elements[dm->root].stub) return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "the root is an element of another file");
	size_t k = 0;
	w->order[k++] = dm->root;
	for (size_t i = 0; i < n; i++)
		if (i != dm->root && !dm->elements[i].stub) w->order[k++] = (uint32_t)i;
	n = w->count = k;
	for (size_t i = 0; i < n; i++) w->new_index[w->order[i]] = (uint32_t)i;

	if (w->seqids) {
		/* a stub (an element of another file) keeps its id, which must not be one of ours */
		for (size_t i = 0; i < dm->element_count; i++) {
			const uint8_t *id = dm->elements[i].id;
			if (!dm->elements[i].stub || id[4] || id[5] || id[6] || id[7] || memcmp(id + 8, "\0\0\0\0\0\0\0\0", 8)) continue;
			uint32_t seq = (uint32_t)id[0] << 24 | (uint32_t)id[1] << 16 | (uint32_t)id[2] << 8 | id[3];
			if (seq >= 1 && seq <= n) {
				char text[37];
				smdmx_dm_id_to_text(id, text);
				return sm_fail(w->error, SMDMX_ERROR_DUPLICATE_ID, 0, 0,
				               "a reference to element %s of another file, which binary_seqids gives an element of this one; "
				               "write binary 9",
				               text);
			}
		}
	}
	/* Header: text, newline, NUL (B1). */
	SM_CHECK(sm_out_put(w->out, "<!-- dmx encoding binary", 24));
	SM_CHECK(w->seqids ? sm_out_put(w->out, "_seqids ", 8) : sm_out_put(w->out, " ", 1));
	char num[16];
	int len = snprintf(num, sizeof(num), "%d", w->version);
	SM_CHECK(bytes(w, num, (size_t)len));
	SM_CHECK(sm_out_put(w->out, " format ", 8));
	SM_CHECK(bytes(w, format, strlen(format)));
	len = snprintf(num, sizeof(num), " %d", fver);
	SM_CHECK(bytes(w, num, (size_t)len));
	SM_CHECK(bytes(w, " -->\n", 6)); /* the terminating NUL of the literal is the header's NUL */

	if (w->version >= 9) {
		/* B9: one prefix element with the datamodel's prefix attributes, or none. Earlier
		 * versions have no prefix block: their output leaves the prefix attributes out. */
		SM_CHECK(w32(w, dm->prefix_attr_count ? 1 : 0));
		if (dm->prefix_attr_count) {
			SM_CHECK(w32(w, (int32_t)dm->prefix_attr_count));
			for (size_t i = 0; i < dm->prefix_attr_count; i++) {
				const smdmx_dm_attr *a = &dm->prefix_attrs[i];
				if (a->type == SMDMX_DM_ELEMENT)
					return sm_fail(w->error, SMDMX_ERROR_ENCODING, 0, 0, "an element in the prefix attributes");
				SM_CHECK(wstr(w, a->name));
				SM_CHECK(attribute(w, a, false));
			}
		}
	}
	if (w->version >= 2) {
		SM_CHECK(build_table(w));
		SM_CHECK(w->version >= 4 ? w32(w, (int32_t)w->strings.count) : w16(w, (int32_t)w->strings.count));
		const char **all = w->strings.data;
		for (size_t i = 0; i < w->strings.count; i++) SM_CHECK(wstr(w, all[i]));
	}
	SM_CHECK(w32(w, (int32_t)n));
	for (size_t i = 0; i < n; i++) {
		const smdmx_dm_element *e = &dm->elements[w->order[i]];
		SM_CHECK(w->version >= 2 ? wref(w, e->type) : wstr(w, e->type));
		SM_CHECK(w->version >= 4 ? wref(w, e->name) : wstr(w, e->name));
		uint8_t seq[16] = { (uint8_t)((i + 1) >> 24), (uint8_t)((i + 1) >> 16), (uint8_t)((i + 1) >> 8), (uint8_t)(i + 1) };
		SM_CHECK(wguid(w, w->seqids ? seq : e->id));
	}
	for (size_t i = 0; i < n; i++) {
		const smdmx_dm_element *e = &dm->elements[w->order[i]];
		if (e->attr_count > INT32_MAX) return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "too many attributes");
		SM_CHECK(w32(w, (int32_t)e->attr_count));
		for (size_t a = 0; a < e->attr_count; a++) {
			SM_CHECK(w->version >= 2 ? wref(w, e->attrs[a].name) : wstr(w, e->attrs[a].name));
			SM_CHECK(attribute(w, &e->attrs[a], w->version >= 4));
		}
	}
	return true;
}

bool sm_dmxb_write(smdmx_dm *dm, bool seqids, int version, const char *format, int format_version, sm_out *out,
                   const smdmx_allocator *allocator, smdmx_error *error)
{
	if (seqids && version != 9)
		return sm_fail(error, SMDMX_ERROR_ENCODING, 0, 0, "binary_seqids version %d (9 is written)", version);
	if (!(version >= 1 && version <= 5) && version != 9)
		return sm_fail(error, SMDMX_ERROR_ENCODING, 0, 0, "binary version %d (1 to 5 and 9 are written)", version);
	bw w;
	memset(&w, 0, sizeof(w));
	w.out = out;
	w.error = error;
	w.dm = dm;
	w.version = version;
	w.seqids = seqids;
	w.strings = w.refs = (sm_vec)SM_VEC_INIT;
	w.mem = sm_owner_new(allocator, error);
	if (!w.mem) return false;
	bool ok = write_all(&w, format, format_version);
	sm_owner_free(w.mem);
	return ok;
}
