/* The generic DMX datamodel: elements, typed attributes, ids. Nothing here knows a file
 * encoding or the model schema. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dmx/dm_internal.h"
#include "dmx/dm_build.h"
#include "support/sha1.h"

/* ---- types ----------------------------------------------------------------------------- */

static const char *const type_names[SMDMX_DM_TYPE_COUNT] = {
	NULL, "element", "int", "float", "bool", "string", "binary", "time", "color", "vector2", "vector3",
	"vector4", "qangle", "quaternion", "matrix", "uint64", "uint8", "elementid",
};

static const char *const array_names[SMDMX_DM_TYPE_COUNT] = {
	NULL, "element_array", "int_array", "float_array", "bool_array", "string_array", "binary_array",
	"time_array", "color_array", "vector2_array", "vector3_array", "vector4_array", "qangle_array",
	"quaternion_array", "matrix_array", "uint64_array", "uint8_array", "elementid_array",
};

static const size_t item_sizes[SMDMX_DM_TYPE_COUNT] = {
	0, sizeof(uint32_t), sizeof(int32_t), sizeof(float), 1, sizeof(const char *), sizeof(smdmx_dm_binary),
	sizeof(int32_t), 4, 8, 12, 16, 12, 16, 64, 8, 1, 16,
};

const char *smdmx_dm_type_name(smdmx_dm_type type, bool is_array)
{
	if (type <= SMDMX_DM_NONE || type >= SMDMX_DM_TYPE_COUNT) return NULL;
	return is_array ? array_names[type] : type_names[type];
}

bool smdmx_dm_type_from_name(const char *name, size_t len, smdmx_dm_type *type, bool *is_array)
{
	for (int t = 1; t < SMDMX_DM_TYPE_COUNT; t++) {
		if (strlen(type_names[t]) == len && memcmp(type_names[t], name, len) == 0) {
			*type = (smdmx_dm_type)t;
			*is_array = false;
			return true;
		}
		if (strlen(array_names[t]) == len && memcmp(array_names[t], name, len) == 0) {
			*type = (smdmx_dm_type)t;
			*is_array = true;
			return true;
		}
	}
	/* The other spellings in circulation (doc/formats.md A6): BST's "angle", binary's "objectid". */
	static const struct {
		const char *name;
		smdmx_dm_type type;
		bool array;
	} aliases[] = {
		{ "angle", SMDMX_DM_QANGLE, false },     { "angle_array", SMDMX_DM_QANGLE, true },
		{ "objectid", SMDMX_DM_OBJECTID, false }, { "objectid_array", SMDMX_DM_OBJECTID, true },
	};
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		if (strlen(aliases[i].name) == len && memcmp(aliases[i].name, name, len) == 0) {
			*type = aliases[i].type;
			*is_array = aliases[i].array;
			return true;
		}
	}
	return false;
}

size_t smdmx_dm_item_size(smdmx_dm_type type)
{
	return type > SMDMX_DM_NONE && type < SMDMX_DM_TYPE_COUNT ? item_sizes[type] : 0;
}

/* ---- ids --------------------------------------------------------------------------------- */

void smdmx_dm_id_to_text(const uint8_t id[16], char out[37])
{
	if (!out) return;
	if (!id) {
		out[0] = '\0';
		return;
	}
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10) out[n++] = '-';
		out[n++] = hex[id[i] >> 4];
		out[n++] = hex[id[i] & 15];
	}
	out[n] = '\0';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

bool smdmx_dm_id_from_text(const char *text, size_t len, uint8_t id[16])
{
	/* 8-4-4-4-12 hex digits; braces around it are accepted as Windows writes them. */
	if (len == 38 && text[0] == '{' && text[37] == '}') {
		text++;
		len -= 2;
	}
	if (len != 36) return false;
	size_t k = 0;
	for (size_t i = 0; i < 36;) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (text[i] != '-') return false;
			i++;
			continue;
		}
		int hi = hex_value(text[i]), lo = hex_value(text[i + 1]);
		if (hi < 0 || lo < 0) return false;
		id[k++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	return true;
}

/* smdmx's namespace for name-based element ids. */
static const uint8_t id_namespace[16] = { 0x7a, 0x3d, 0x51, 0x0e, 0x9c, 0x42, 0x4b, 0x8f,
	                                      0xa1, 0x6e, 0x35, 0xd2, 0x0b, 0x77, 0xc4, 0x19 };

/* RFC 4122 version 5 UUID of a description made of parts. */
static void uuid5(const void *const *parts, const size_t *sizes, size_t n, uint8_t out[16])
{
	sm_sha1_ctx s;
	uint8_t digest[20];
	sm_sha1_init(&s);
	sm_sha1_update(&s, id_namespace, 16);
	for (size_t i = 0; i < n; i++) sm_sha1_update(&s, parts[i], sizes[i]);
	sm_sha1_final(&s, digest);
	memcpy(out, digest, 16);
	out[6] = (uint8_t)((out[6] & 0x0f) | 0x50);
	out[8] = (uint8_t)((out[8] & 0x3f) | 0x80);
}


/* ---- the datamodel ------------------------------------------------------------------------ */

smdmx_dm *smdmx_dm_create(const smdmx_allocator *allocator, smdmx_error *error)
{
	SM_ERROR_START(error);
	sm_owner *o = sm_owner_new(allocator, error);
	if (!o) return NULL;
	smdmx_dm *dm = sm_owned_calloc(o, 1, sizeof(*dm), error);
	struct smdmx_dm_owner *p = sm_owned_calloc(o, 1, sizeof(*p), error);
	if (!dm || !p) {
		sm_owner_free(o);
		return NULL;
	}
	p->mem = o;
	/* A zeroed sm_vec would claim owner slot 0: every vector starts as SM_VEC_INIT. */
	p->elements = (sm_vec)SM_VEC_INIT;
	p->attrs = (sm_vec)SM_VEC_INIT;
	p->id_slots = (sm_vec)SM_VEC_INIT;
	dm->owner = p;
	dm->root = SMDMX_NONE;
	return dm;
}

void smdmx_dm_free(smdmx_dm *dm)
{
	if (dm) sm_owner_free(dm->owner->mem);
}

const char *smdmx_dm_strdup(smdmx_dm *dm, const char *s, smdmx_error *error)
{
	SM_ERROR_SLOT(error);
	if (!dm || !s) return sm_fail_null(error, __func__, !dm ? "dm" : "s"), NULL;
	return sm_strdup(dm->owner->mem, s, strlen(s), error);
}

uint32_t sm_dm_add_element(smdmx_dm *dm, const char *type, const char *name, const uint8_t *id, smdmx_error *error)
{
	struct smdmx_dm_owner *p = dm->owner;
	if (p->elements.count >= UINT32_MAX - 1) {
		sm_fail(error, SMDMX_ERROR_LIMIT, 0, 0, "too many elements");
		return SMDMX_NONE;
	}
	smdmx_dm_element *e = sm_vec_push(p->mem, &p->elements, sizeof(*e), error);
	sm_vec *a = sm_vec_push(p->mem, &p->attrs, sizeof(*a), error);
	if (!e || !a) return SMDMX_NONE;
	memset(e, 0, sizeof(*e));
	*a = (sm_vec)SM_VEC_INIT;
	e->type = type;
	e->name = name;
	e->source_offset = SIZE_MAX;
	if (id) {
		memcpy(e->id, id, 16);
		e->has_id = true;
	}
	dm->elements = p->elements.data;
	dm->element_count = p->elements.count;
	p->id_index_valid = false;
	uint32_t index = (uint32_t)(p->elements.count - 1);
	if (dm->root == SMDMX_NONE) dm->root = index;
	return index;
}

uint32_t smdmx_dm_add_element(smdmx_dm *dm, const char *type, const char *name, const uint8_t *id, smdmx_error *error)
{
	SM_ERROR_SLOT(error);
	if (!dm || !type) return sm_fail_null(error, __func__, !dm ? "dm" : "type"), SMDMX_NONE;
	const char *t = sm_strdup(dm->owner->mem, type, strlen(type), error);
	const char *n = t ? sm_strdup(dm->owner->mem, name ? name : "", name ? strlen(name) : 0, error) : NULL;
	if (!n) return SMDMX_NONE;
	return sm_dm_add_element(dm, t, n, id, error);
}

smdmx_dm_attr *sm_dm_push_attr(smdmx_dm *dm, uint32_t element, smdmx_error *error)
{
	struct smdmx_dm_owner *p = dm->owner;
	sm_vec *v = (sm_vec *)p->attrs.data + element;
	smdmx_dm_attr *a = sm_vec_push(p->mem, v, sizeof(*a), error);
	if (!a) return NULL;
	memset(a, 0, sizeof(*a));
	dm->elements[element].attrs = v->data;
	dm->elements[element].attr_count = v->count;
	return a;
}

bool sm_dm_alloc_array(smdmx_dm *dm, smdmx_dm_attr *a, size_t count, smdmx_error *error)
{
	a->value.array.count = count;
	a->value.array.data = NULL;
	if (count == 0) return true;
	a->value.array.data = sm_owned_calloc(dm->owner->mem, count, smdmx_dm_item_size(a->type), error);
	return a->value.array.data != NULL;
}

smdmx_dm_attr *smdmx_dm_add_attr(smdmx_dm *dm, uint32_t element, const char *name, smdmx_dm_type type, bool is_array,
                                 size_t count, smdmx_error *error)
{
	SM_ERROR_SLOT(error);
	if (!dm || !name) return sm_fail_null(error, __func__, !dm ? "dm" : "name"), NULL;
	if (element >= dm->element_count || type <= SMDMX_DM_NONE || type >= SMDMX_DM_TYPE_COUNT) {
		sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "bad element index or attribute type");
		return NULL;
	}
	smdmx_dm_element *e = &dm->elements[element];
	smdmx_dm_attr *a = NULL;
	for (size_t i = 0; i < e->attr_count; i++)
		if (strcmp(e->attrs[i].name, name) == 0) a = &e->attrs[i];
	if (!a) {
		const char *n = sm_strdup(dm->owner->mem, name, strlen(name), error);
		if (!n || !(a = sm_dm_push_attr(dm, element, error))) return NULL;
		a->name = n;
	} else {
		const char *n = a->name;
		memset(a, 0, sizeof(*a));
		a->name = n;
	}
	a->type = type;
	a->is_array = is_array;
	if (is_array) {
		if (!sm_dm_alloc_array(dm, a, count, error)) return NULL;
	} else if (type == SMDMX_DM_ELEMENT) {
		a->value.element = SMDMX_NONE;
	} else if (type == SMDMX_DM_STRING) {
		a->value.s = "";
	} else if (type == SMDMX_DM_MATRIX) {
		a->value.matrix = sm_owned_calloc(dm->owner->mem, 16, sizeof(float), error);
		if (!a->value.matrix) return NULL;
	}
	if (is_array && type == SMDMX_DM_ELEMENT) {
		uint32_t *ix = a->value.array.data;
		for (size_t i = 0; i < count; i++) ix[i] = SMDMX_NONE;
	}
	if (is_array && type == SMDMX_DM_STRING) {
		const char **s = a->value.array.data;
		for (size_t i = 0; i < count; i++) s[i] = "";
	}
	return a;
}

const smdmx_dm_attr *smdmx_dm_find_attr(const smdmx_dm *dm, uint32_t element, const char *name)
{
	if (!dm || !name) return NULL;
	if (element >= dm->element_count) return NULL;
	const smdmx_dm_element *e = &dm->elements[element];
	for (size_t i = 0; i < e->attr_count; i++)
		if (strcmp(e->attrs[i].name, name) == 0) return &e->attrs[i];
	return NULL;
}

static uint32_t id_hash(const uint8_t id[16])
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < 16; i++) h = (h ^ id[i]) * 16777619u;
	return h;
}

/* Builds the id index (open addressing over element indices). */
bool sm_dm_index_ids(smdmx_dm *dm, smdmx_error *error)
{
	struct smdmx_dm_owner *p = dm->owner;
	if (p->id_index_valid) return true;
	size_t cap = 16;
	while (cap < dm->element_count * 2) cap *= 2;
	SM_CHECK(sm_vec_reserve(p->mem, &p->id_slots, sizeof(uint32_t), cap, error));
	uint32_t *slots = p->id_slots.data;
	for (size_t i = 0; i < cap; i++) slots[i] = SMDMX_NONE;
	p->id_slots.count = cap;
	for (size_t i = 0; i < dm->element_count; i++) {
		if (!dm->elements[i].has_id) continue;
		size_t h = id_hash(dm->elements[i].id) & (cap - 1);
		while (slots[h] != SMDMX_NONE) h = (h + 1) & (cap - 1);
		slots[h] = (uint32_t)i;
	}
	p->id_index_valid = true;
	return true;
}

uint32_t sm_dm_lookup_id(const smdmx_dm *dm, const uint8_t id[16])
{
	const struct smdmx_dm_owner *p = dm->owner;
	const uint32_t *slots = p->id_slots.data;
	size_t cap = p->id_slots.count;
	if (!cap) return SMDMX_NONE;
	size_t h = id_hash(id) & (cap - 1);
	while (slots[h] != SMDMX_NONE) {
		if (memcmp(dm->elements[slots[h]].id, id, 16) == 0) return slots[h];
		h = (h + 1) & (cap - 1);
	}
	return SMDMX_NONE;
}

uint32_t sm_dm_stub(smdmx_dm *dm, const uint8_t id[16], smdmx_error *error)
{
	if (!sm_dm_index_ids(dm, error)) return SMDMX_NONE;
	uint32_t e = sm_dm_lookup_id(dm, id);
	if (e != SMDMX_NONE) return e;
	struct smdmx_dm_owner *p = dm->owner;
	e = sm_dm_add_element(dm, "", "", id, error);
	if (e == SMDMX_NONE) return SMDMX_NONE;
	dm->elements[e].stub = true;
	/* into the index as it is while it stays at most half full, else the index anew */
	size_t cap = p->id_slots.count;
	if (cap < dm->element_count * 2) return sm_dm_index_ids(dm, error) ? e : SMDMX_NONE;
	uint32_t *slots = p->id_slots.data;
	size_t h = id_hash(id) & (cap - 1);
	while (slots[h] != SMDMX_NONE) h = (h + 1) & (cap - 1);
	slots[h] = e;
	p->id_index_valid = true;
	return e;
}

size_t smdmx_dm_stub_count(const smdmx_dm *dm)
{
	if (!dm) return 0;
	size_t n = 0;
	for (size_t i = 0; i < dm->element_count; i++) n += dm->elements[i].stub;
	return n;
}

uint32_t smdmx_dm_find_id(const smdmx_dm *dm, const uint8_t id[16])
{
	if (!dm || !id) return SMDMX_NONE;
	if (!dm->owner->id_index_valid) {
		/* The index is a cache: build it through a non-const view of the same datamodel. */
		smdmx_error e;
		memset(&e, 0, sizeof(e));
		if (!sm_dm_index_ids((smdmx_dm *)(uintptr_t)dm, &e)) {
			for (size_t i = 0; i < dm->element_count; i++)
				if (dm->elements[i].has_id && memcmp(dm->elements[i].id, id, 16) == 0) return (uint32_t)i;
			return SMDMX_NONE;
		}
	}
	return sm_dm_lookup_id(dm, id);
}

/* Id of an element from its place: the referring element's id, the attribute name and the
 * position in an array. */
static void derive_id(const uint8_t parent[16], const char *attr, size_t index, const smdmx_dm_element *e,
                      uint8_t out[16])
{
	char idx[24];
	snprintf(idx, sizeof(idx), "%zu", index);
	const void *parts[5] = { parent, attr, idx, e->type, e->name };
	size_t sizes[5] = { 16, strlen(attr) + 1, strlen(idx) + 1, strlen(e->type) + 1, strlen(e->name) + 1 };
	uuid5(parts, sizes, 5, out);
}

bool smdmx_dm_assign_ids(smdmx_dm *dm, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!dm) return sm_fail_null(error, __func__, "dm");
	size_t n = dm->element_count;
	bool any = false;
	for (size_t i = 0; i < n && !any; i++) any = !dm->elements[i].has_id;
	if (!any) return true;
	struct smdmx_dm_owner *p = dm->owner;
	sm_vec queue = SM_VEC_INIT;
	SM_CHECK(sm_vec_reserve(p->mem, &queue, sizeof(uint32_t), n, error)); /* released below: a slot, once */
	uint32_t *q = queue.data;
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < n; i++)
		if (dm->elements[i].has_id) q[tail++] = (uint32_t)i;
	size_t next_orphan = 0;
	static const uint8_t zero[16] = { 0 };
	for (;;) {
		while (head < tail) {
			const smdmx_dm_element *e = &dm->elements[q[head++]];
			for (size_t a = 0; a < e->attr_count; a++) {
				const smdmx_dm_attr *at = &e->attrs[a];
				if (at->type != SMDMX_DM_ELEMENT) continue;
				size_t count = at->is_array ? at->value.array.count : 1;
				const uint32_t *ix = at->is_array ? at->value.array.data : &at->value.element;
				for (size_t k = 0; k < count; k++) {
					if (ix[k] == SMDMX_NONE || ix[k] >= n || dm->elements[ix[k]].has_id) continue;
					smdmx_dm_element *c = &dm->elements[ix[k]];
					derive_id(e->id, at->name, k, c, c->id);
					c->has_id = true;
					q[tail++] = ix[k];
				}
			}
		}
		/* Elements no id'd element reaches: the root first, then in index order. */
		uint32_t start = SMDMX_NONE;
		if (dm->root != SMDMX_NONE && !dm->elements[dm->root].has_id) start = dm->root;
		while (start == SMDMX_NONE && next_orphan < n) {
			if (!dm->elements[next_orphan].has_id) start = (uint32_t)next_orphan;
			next_orphan++;
		}
		if (start == SMDMX_NONE) break;
		smdmx_dm_element *e = &dm->elements[start];
		derive_id(zero, start == dm->root ? "$root" : "$orphan", start == dm->root ? 0 : start, e, e->id);
		e->has_id = true;
		q[tail++] = start;
	}
	sm_vec_release(p->mem, &queue, sizeof(uint32_t));
	p->id_index_valid = false;
	return true;
}

/* ---- comparison --------------------------------------------------------------------------- */

static bool dm_differ(char *diff, size_t size, const char *fmt, ...) SM_PRINTF(3, 4);

static bool dm_differ(char *diff, size_t size, const char *fmt, ...)
{
	if (diff && size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(diff, size, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool ids_equal(const smdmx_dm *a, uint32_t x, const smdmx_dm *b, uint32_t y)
{
	if (x == SMDMX_NONE || y == SMDMX_NONE || x >= a->element_count || y >= b->element_count)
		return (x == SMDMX_NONE || x >= a->element_count) && (y == SMDMX_NONE || y >= b->element_count);
	return memcmp(a->elements[x].id, b->elements[y].id, 16) == 0;
}

/* Item i of an attribute (scalars are item 0). */
static const void *item_at(const smdmx_dm_attr *at, size_t i)
{
	if (at->is_array) return (const char *)at->value.array.data + i * smdmx_dm_item_size(at->type);
	if (at->type == SMDMX_DM_MATRIX) return at->value.matrix;
	return &at->value;
}

static bool quats_equal(const float *u, const float *v, double tol)
{
	double nu = 0, nv = 0, dot = 0;
	for (int k = 0; k < 4; k++) {
		nu += (double)u[k] * u[k];
		nv += (double)v[k] * v[k];
	}
	nu = nu > 0 ? 1 / sqrt(nu) : 0;
	nv = nv > 0 ? 1 / sqrt(nv) : 0;
	for (int k = 0; k < 4; k++) dot += (double)u[k] * nu * (double)v[k] * nv;
	double sign = dot < 0 ? -1 : 1;
	for (int k = 0; k < 4; k++)
		if (fabs((double)u[k] * nu - sign * (double)v[k] * nv) > tol) return false;
	return true;
}

bool sm_dm_items_equal(const smdmx_dm *a, const smdmx_dm_attr *x, const smdmx_dm *b, const smdmx_dm_attr *y, size_t i,
                       double rot_tol)
{
	const void *p = item_at(x, i), *q = item_at(y, i);
	if (rot_tol > 0 && x->type == SMDMX_DM_QUATERNION) return quats_equal(p, q, rot_tol);
	switch (x->type) {
	case SMDMX_DM_ELEMENT: return ids_equal(a, *(const uint32_t *)p, b, *(const uint32_t *)q);
	case SMDMX_DM_STRING: return strcmp(*(const char *const *)p, *(const char *const *)q) == 0;
	case SMDMX_DM_BOOL:
		return x->is_array ? (*(const uint8_t *)p != 0) == (*(const uint8_t *)q != 0) : x->value.b == y->value.b;
	case SMDMX_DM_BINARY: {
		const smdmx_dm_binary *u = p, *v = q;
		return u->size == v->size && (u->size == 0 || memcmp(u->data, v->data, u->size) == 0);
	}
	case SMDMX_DM_FLOAT:
	case SMDMX_DM_VECTOR2:
	case SMDMX_DM_VECTOR3:
	case SMDMX_DM_VECTOR4:
	case SMDMX_DM_QANGLE:
	case SMDMX_DM_QUATERNION:
	case SMDMX_DM_MATRIX: {
		/* Floats compare as values: -0 equals 0. */
		const float *u = p, *v = q;
		for (size_t k = 0; k < smdmx_dm_item_size(x->type) / sizeof(float); k++)
			if (u[k] != v[k]) return false;
		return true;
	}
	default: return memcmp(p, q, smdmx_dm_item_size(x->type)) == 0;
	}
}

static bool attrs_equal(const smdmx_dm *a, const smdmx_dm_attr *x, size_t nx, const smdmx_dm *b, const smdmx_dm_attr *y,
                        size_t ny, const char *where, double rot_tol, char *diff, size_t size)
{
	if (nx != ny) return dm_differ(diff, size, "%s: %zu attributes vs %zu", where, nx, ny);
	for (size_t i = 0; i < nx; i++) {
		if (strcmp(x[i].name, y[i].name) != 0)
			return dm_differ(diff, size, "%s: attribute %zu is '%s' vs '%s'", where, i, x[i].name, y[i].name);
		if (x[i].type != y[i].type || x[i].is_array != y[i].is_array)
			return dm_differ(diff, size, "%s: attribute '%s' is %s vs %s", where, x[i].name,
			                 smdmx_dm_type_name(x[i].type, x[i].is_array), smdmx_dm_type_name(y[i].type, y[i].is_array));
		size_t n = x[i].is_array ? x[i].value.array.count : 1;
		if (x[i].is_array && n != y[i].value.array.count)
			return dm_differ(diff, size, "%s: attribute '%s' has %zu items vs %zu", where, x[i].name, n, y[i].value.array.count);
		for (size_t k = 0; k < n; k++)
			if (!sm_dm_items_equal(a, &x[i], b, &y[i], k, rot_tol))
				return dm_differ(diff, size, "%s: attribute '%s' differs at item %zu", where, x[i].name, k);
	}
	return true;
}

static bool dm_equal(const smdmx_dm *a, const smdmx_dm *b, double rot_tol, char *diff, size_t diff_size)
{
	if (diff && diff_size) diff[0] = '\0';
	if (!a || !b) return dm_differ(diff, diff_size, "smdmx_dm_equal: %s is NULL", !a ? "a" : "b");
	if (a->element_count != b->element_count)
		return dm_differ(diff, diff_size, "%zu elements vs %zu", a->element_count, b->element_count);
	if (!ids_equal(a, a->root, b, b->root)) return dm_differ(diff, diff_size, "the roots differ");
	if (!attrs_equal(a, a->prefix_attrs, a->prefix_attr_count, b, b->prefix_attrs, b->prefix_attr_count, "prefix", rot_tol,
	                 diff, diff_size))
		return false;
	for (size_t i = 0; i < a->element_count; i++) {
		const smdmx_dm_element *x = &a->elements[i];
		char id[37], where[80];
		smdmx_dm_id_to_text(x->id, id);
		uint32_t j = x->has_id ? smdmx_dm_find_id(b, x->id) : (uint32_t)i;
		if (j == SMDMX_NONE || j >= b->element_count) return dm_differ(diff, diff_size, "element %s is missing", id);
		const smdmx_dm_element *y = &b->elements[j];
		snprintf(where, sizeof(where), "element %s", id);
		if (x->stub != y->stub)
			return dm_differ(diff, diff_size, "%s: an element of %s file vs one of %s", where, x->stub ? "another" : "this",
			                 y->stub ? "another" : "this");
		if (strcmp(x->type, y->type) != 0 || strcmp(x->name, y->name) != 0)
			return dm_differ(diff, diff_size, "%s: '%s' \"%s\" vs '%s' \"%s\"", where, x->type, x->name, y->type, y->name);
		if (!attrs_equal(a, x->attrs, x->attr_count, b, y->attrs, y->attr_count, where, rot_tol, diff, diff_size))
			return false;
	}
	return true;
}

bool smdmx_dm_equal(const smdmx_dm *a, const smdmx_dm *b, char *diff, size_t diff_size)
{
	return dm_equal(a, b, 0, diff, diff_size);
}

bool smdmx_dm_equal_rotations(const smdmx_dm *a, const smdmx_dm *b, double rotation_tolerance, char *diff, size_t diff_size)
{
	return dm_equal(a, b, rotation_tolerance > 0 ? rotation_tolerance : 1e-6, diff, diff_size);
}

sm_owner *sm_dm_memory(smdmx_dm *dm)
{
	return dm->owner->mem;
}
