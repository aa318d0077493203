/* keyvalues2 writer (doc/formats.md A10, A11; decisions 3 and 5).
 *
 * The root comes first. An element referenced exactly once is written inline where it is
 * used; any other element (shared, unreferenced, or the way into a cycle) is written at top
 * level after the root and referenced by id. keyvalues2_flat writes every element at top
 * level. Walking the graph uses an explicit stack: no recursion the input controls. The
 * same graph always gives the same bytes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dmx/dm_internal.h"
#include "support/num.h"
#include "platform/os.h"

typedef struct kv2w {
	sm_out *out;         /* the buffer, the sink behind it */
	smdmx_error *error;
	smdmx_dm *dm;
	sm_owner *mem;      /* scratch memory of this write, from the options' allocator */
	bool flat;
	int version;
	size_t max_depth;
	uint32_t *refs;     /* references to each element */
	uint8_t *written;   /* each element written (or being written) */
	unsigned threads;   /* for large number arrays */
} kv2w;

static bool indent(kv2w *w, size_t depth)
{
	for (size_t i = 0; i < depth; i++) SM_CHECK(sm_out_put(w->out, "\t", 1));
	return true;
}

/* A quoted string; only \ and " are escaped (decision 5). */
static bool quoted(kv2w *w, const char *s)
{
	SM_CHECK(sm_out_put(w->out, "\"", 1));
	const char *run = s;
	for (; *s; s++) {
		if (*s == '\\' || *s == '"') {
			SM_CHECK(sm_out_put(w->out, run, (size_t)(s - run)));
			SM_CHECK(sm_out_put(w->out, *s == '\\' ? "\\\\" : "\\\"", 2));
			run = s + 1;
		}
	}
	SM_CHECK(sm_out_put(w->out, run, (size_t)(s - run)));
	return sm_out_put(w->out, "\"", 1);
}

static bool put_float(kv2w *w, float f)
{
	if (!isfinite(f)) return sm_fail(w->error, SMDMX_ERROR_BAD_VALUE, 0, 0, "a float that is not finite");
	SM_CHECK(sm_out_room(w->out, 32));
	w->out->len += sm_format_shortest(f, w->out->buf + w->out->len);
	return true;
}

static bool put_int(kv2w *w, int64_t v)
{
	SM_CHECK(sm_out_room(w->out, 24));
	w->out->len += sm_format_int(v, w->out->buf + w->out->len);
	return true;
}

/* Seconds with four decimals: ticks / 10000 (decision 3). */
static bool put_time(kv2w *w, int32_t ticks)
{
	char b[24];
	int64_t t = ticks;
	size_t n = 0;
	if (t < 0) {
		b[n++] = '-';
		t = -t;
	}
	n += sm_format_int(t / 10000, b + n);
	b[n++] = '.';
	int frac = (int)(t % 10000);
	for (int i = 3; i >= 0; i--) {
		b[n + (size_t)i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	n += 4;
	return sm_out_put(w->out, b, n);
}

static bool put_id(kv2w *w, const uint8_t id[16])
{
	char text[37];
	smdmx_dm_id_to_text(id, text);
	SM_CHECK(sm_out_put(w->out, "\"", 1));
	SM_CHECK(sm_out_put(w->out, text, 36));
	return sm_out_put(w->out, "\"", 1);
}

static const int components[SMDMX_DM_TYPE_COUNT] = {
	[SMDMX_DM_VECTOR2] = 2, [SMDMX_DM_VECTOR3] = 3, [SMDMX_DM_VECTOR4] = 4,
	[SMDMX_DM_QANGLE] = 3,  [SMDMX_DM_QUATERNION] = 4, [SMDMX_DM_MATRIX] = 16,
};

/* One value (of an array item or a scalar) as a quoted token. */
static bool put_value(kv2w *w, smdmx_dm_type type, const void *v)
{
	static const char hex[] = "0123456789abcdef";
	switch (type) {
	case SMDMX_DM_STRING:
		return quoted(w, *(const char *const *)v ? *(const char *const *)v : "");
	case SMDMX_DM_OBJECTID:
		return put_id(w, v);
	default:
		break;
	}
	SM_CHECK(sm_out_put(w->out, "\"", 1));
	switch (type) {
	case SMDMX_DM_INT: SM_CHECK(put_int(w, *(const int32_t *)v)); break;
	case SMDMX_DM_UINT8: SM_CHECK(put_int(w, *(const uint8_t *)v)); break;
	case SMDMX_DM_FLOAT: SM_CHECK(put_float(w, *(const float *)v)); break;
	case SMDMX_DM_BOOL: SM_CHECK(sm_out_put(w->out, *(const uint8_t *)v ? "1" : "0", 1)); break;
	case SMDMX_DM_TIME: SM_CHECK(put_time(w, *(const int32_t *)v)); break;
	case SMDMX_DM_COLOR: {
		const uint8_t *c = v;
		for (int i = 0; i < 4; i++) {
			if (i) SM_CHECK(sm_out_put(w->out, " ", 1));
			SM_CHECK(put_int(w, c[i]));
		}
		break;
	}
	case SMDMX_DM_UINT64: {
		uint64_t u = *(const uint64_t *)v;
		char b[18];
		size_t n = 0;
		do {
			b[n++] = hex[u & 15];
			u >>= 4;
		} while (u);
		SM_CHECK(sm_out_put(w->out, "0x", 2));
		while (n) SM_CHECK(sm_out_put(w->out, &b[--n], 1));
		break;
	}
	case SMDMX_DM_BINARY: {
		const smdmx_dm_binary *b = v;
		for (size_t i = 0; i < b->size; i++) {
			char pair[2] = { hex[b->data[i] >> 4], hex[b->data[i] & 15] };
			SM_CHECK(sm_out_put(w->out, pair, 2));
		}
		break;
	}
	default: {
		const float *f = v;
		for (int i = 0; i < components[type]; i++) {
			if (i) SM_CHECK(sm_out_put(w->out, " ", 1));
			SM_CHECK(put_float(w, f[i]));
		}
	}
	}
	return sm_out_put(w->out, "\"", 1);
}

/* Where a scalar value sits in the attribute's union. */
static const void *scalar_ptr(const smdmx_dm_attr *a)
{
	if (a->type == SMDMX_DM_MATRIX) return a->value.matrix;
	if (a->type == SMDMX_DM_BOOL) return &a->value.b;
	return &a->value;
}

static bool check_version(kv2w *w, const smdmx_dm_attr *a)
{
	if ((a->type == SMDMX_DM_UINT64 || a->type == SMDMX_DM_UINT8) && w->version < 4)
		return sm_fail(w->error, SMDMX_ERROR_ENCODING, 0, 0, "attribute '%s' is %s, which keyvalues2 %d cannot hold (4 can)",
		               a->name, smdmx_dm_type_name(a->type, a->is_array), w->version);
	return true;
}

/* ---- number arrays -------------------------------------------------------------------------- */

/* The most text one item of comps numbers takes: ", \"" and numbers of at most 31 bytes. */
#define ITEM_MAX(comps) (8 + (comps) * 32)

/* Item i of a number array at o (", " before all but the first); NULL when a float is not
 * finite. */
static inline char *format_item(char *o, smdmx_dm_type type, const char *data, size_t i, size_t item, size_t comps)
{
	if (i) *o++ = ',';
	*o++ = ' ';
	*o++ = '"';
	if (type == SMDMX_DM_INT) {
		int32_t v;
		memcpy(&v, data + i * item, sizeof(v));
		o += sm_format_int(v, o);
	} else {
		float f[4];
		memcpy(f, data + i * item, comps * sizeof(float));
		for (size_t c = 0; c < comps; c++) {
			if (!isfinite(f[c])) return NULL;
			if (c) *o++ = ' ';
			o += sm_format_shortest(f[c], o);
		}
	}
	*o++ = '"';
	return o;
}

/* A large array on several threads: chunks of sm_write_part_min items are formatted into
 * buffers of their own (slots, two per thread) on the writer's threads and written in order
 * by this one meanwhile (sm_pipeline). The text is the one thread's, byte for byte. */

typedef struct format_part {
	smdmx_dm_type type;
	const char *data;
	size_t item, comps;
	char *buf;
	size_t len;
	bool ok;
} format_part;

static void format_part_run(void *arg, size_t from, size_t to)
{
	format_part *p = arg;
	char *o = p->buf;
	for (size_t i = from; i < to; i++) {
		o = format_item(o, p->type, p->data, i, p->item, p->comps);
		if (!o) {
			p->ok = false;
			return;
		}
	}
	p->len = (size_t)(o - p->buf);
	p->ok = true;
}

static bool format_part_put(void *ctx, void *arg)
{
	kv2w *w = ctx;
	format_part *p = arg;
	if (!p->ok) return sm_fail(w->error, SMDMX_ERROR_BAD_VALUE, 0, 0, "a float that is not finite");
	return sm_out_put_direct(w->out, p->buf, p->len);
}

static bool format_parallel(kv2w *w, smdmx_dm_type type, const char *data, size_t count, size_t item, size_t comps)
{
	format_part ps[SM_TEAM_MAX];
	size_t n = sm_pipeline_slots(w->threads), cap = sm_write_part_min * ITEM_MAX(comps);
	bool ok = true;
	size_t made = 0;
	for (; made < n; made++) {
		ps[made] = (format_part){ .type = type, .data = data, .item = item, .comps = comps };
		ps[made].buf = sm_malloc(&w->mem->alloc, cap);
		if (!ps[made].buf) {
			ok = sm_fail_oom(w->error);
			break;
		}
	}
	if (ok)
		ok = sm_pipeline(&w->mem->alloc.hooks, ps, sizeof(*ps), made, count, sm_write_part_min, w->threads, format_part_run,
		                 format_part_put, w);
	for (size_t i = 0; i < made; i++) sm_free(&w->mem->alloc, ps[i].buf, cap);
	return ok;
}

static bool put_value_attr(kv2w *w, const smdmx_dm_attr *a, size_t depth)
{
	SM_CHECK(check_version(w, a));
	SM_CHECK(indent(w, depth));
	SM_CHECK(quoted(w, a->name));
	SM_CHECK(sm_out_put(w->out, " \"", 2));
	SM_CHECK(sm_out_puts(w->out, smdmx_dm_type_name(a->type, a->is_array)));
	SM_CHECK(sm_out_put(w->out, "\" ", 2));
	if (!a->is_array) {
		if (a->type == SMDMX_DM_BOOL) {
			uint8_t b = a->value.b;
			SM_CHECK(put_value(w, a->type, &b));
		} else {
			SM_CHECK(put_value(w, a->type, scalar_ptr(a)));
		}
		return sm_out_put(w->out, "\n", 1);
	}
	size_t item = smdmx_dm_item_size(a->type);
	const char *data = a->value.array.data;
	size_t count = a->value.array.count;
	SM_CHECK(sm_out_put(w->out, "[", 1));
	if (a->type == SMDMX_DM_INT || a->type == SMDMX_DM_FLOAT || a->type == SMDMX_DM_VECTOR2 ||
	    a->type == SMDMX_DM_VECTOR3 || a->type == SMDMX_DM_VECTOR4 || a->type == SMDMX_DM_QUATERNION) {
		/* The bulk of model files: one room check per item, digits written in place. */
		size_t comps = a->type == SMDMX_DM_INT ? 1 : item / sizeof(float);
		if (w->threads > 1 && count >= 2 * sm_write_part_min) {
			SM_CHECK(format_parallel(w, a->type, data, count, item, comps));
			return sm_out_put(w->out, " ]\n", 3);
		}
		for (size_t i = 0; i < count; i++) {
			SM_CHECK(sm_out_room(w->out, ITEM_MAX(comps)));
			char *o = format_item(w->out->buf + w->out->len, a->type, data, i, item, comps);
			if (!o) return sm_fail(w->error, SMDMX_ERROR_BAD_VALUE, 0, 0, "a float that is not finite");
			w->out->len = (size_t)(o - w->out->buf);
		}
		return sm_out_put(w->out, " ]\n", 3);
	}
	for (size_t i = 0; i < count; i++) {
		SM_CHECK(sm_out_put(w->out, i ? ", " : " ", i ? 2 : 1));
		SM_CHECK(put_value(w, a->type, data + i * item));
	}
	return sm_out_put(w->out, " ]\n", 3);
}

/* ---- the element walk ------------------------------------------------------------------- */

typedef struct wframe {
	uint32_t element;
	size_t depth;       /* indentation of the element's braces */
	size_t attr;        /* next attribute */
	size_t item;        /* next item of an element array being written, or SIZE_MAX */
} wframe;

/* Whether a reference to e from here is written inline. */
static bool inline_here(const kv2w *w, uint32_t e, size_t depth)
{
	return !w->flat && e != w->dm->root && w->refs[e] == 1 && !w->written[e] && depth < w->max_depth &&
	       !w->dm->elements[e].stub;
}

/* Writes an element's opening (its type line unless the attribute line already holds the
 * type, the brace, id and name) and pushes it. */
static bool open_element(kv2w *w, sm_vec *stack, uint32_t e, size_t depth, bool type_line)
{
	const smdmx_dm_element *el = &w->dm->elements[e];
	bool is_value_type;
	smdmx_dm_type t;
	if (smdmx_dm_type_from_name(el->type, strlen(el->type), &t, &is_value_type) || el->type[0] == '\0')
		return sm_fail(w->error, SMDMX_ERROR_BAD_VALUE, 0, 0, "element type '%s' is a value type name", el->type);
	w->written[e] = 1;
	if (type_line) {
		SM_CHECK(indent(w, depth));
		SM_CHECK(quoted(w, el->type));
		SM_CHECK(sm_out_put(w->out, "\n", 1));
	}
	SM_CHECK(indent(w, depth));
	SM_CHECK(sm_out_put(w->out, "{\n", 2));
	SM_CHECK(indent(w, depth + 1));
	SM_CHECK(sm_out_put(w->out, "\"id\" \"elementid\" ", 17));
	SM_CHECK(put_id(w, el->id));
	SM_CHECK(sm_out_put(w->out, "\n", 1));
	SM_CHECK(indent(w, depth + 1));
	SM_CHECK(sm_out_put(w->out, "\"name\" \"string\" ", 16));
	SM_CHECK(quoted(w, el->name));
	SM_CHECK(sm_out_put(w->out, "\n", 1));
	wframe *f = sm_vec_push(w->mem, stack, sizeof(wframe), w->error);
	if (!f) return false;
	f->element = e;
	f->depth = depth;
	f->attr = 0;
	f->item = SIZE_MAX;
	return true;
}

/* Writes one element and everything inlined in it. */
static bool write_tree(kv2w *w, sm_vec *stack, uint32_t start)
{
	SM_CHECK(open_element(w, stack, start, 0, true));
	while (stack->count) {
		wframe *f = (wframe *)stack->data + stack->count - 1;
		const smdmx_dm_element *el = &w->dm->elements[f->element];
		size_t d = f->depth + 1;
		if (f->attr >= el->attr_count) {
			size_t depth = f->depth;
			stack->count--;
			SM_CHECK(indent(w, depth));
			SM_CHECK(sm_out_put(w->out, "}", 1));
			/* The element ends an array item: a comma follows unless it is the last. */
			if (stack->count) {
				wframe *p = (wframe *)stack->data + stack->count - 1;
				if (p->item != SIZE_MAX) {
					const smdmx_dm_attr *pa = &w->dm->elements[p->element].attrs[p->attr];
					if (p->item < pa->value.array.count) SM_CHECK(sm_out_put(w->out, ",", 1));
				}
			}
			SM_CHECK(sm_out_put(w->out, "\n", 1));
			continue;
		}
		const smdmx_dm_attr *a = &el->attrs[f->attr];
		if (a->type != SMDMX_DM_ELEMENT) {
			SM_CHECK(put_value_attr(w, a, d));
			f->attr++;
			continue;
		}
		if (!a->is_array) {
			uint32_t c = a->value.element;
			f->attr++;
			SM_CHECK(indent(w, d));
			SM_CHECK(quoted(w, a->name));
			if (c == SMDMX_NONE || c >= w->dm->element_count) {
				SM_CHECK(sm_out_put(w->out, " \"element\" \"\"\n", 14)); /* decision 5 */
				continue;
			}
			if (inline_here(w, c, d)) {
				SM_CHECK(sm_out_put(w->out, " ", 1));
				SM_CHECK(quoted(w, w->dm->elements[c].type));
				SM_CHECK(sm_out_put(w->out, "\n", 1));
				SM_CHECK(open_element(w, stack, c, d, false));
			} else {
				SM_CHECK(sm_out_put(w->out, " \"element\" ", 11));
				SM_CHECK(put_id(w, w->dm->elements[c].id));
				SM_CHECK(sm_out_put(w->out, "\n", 1));
			}
			continue;
		}
		/* An element array: its items, some of them inline elements. */
		const uint32_t *items = a->value.array.data;
		size_t count = a->value.array.count;
		if (f->item == SIZE_MAX) {
			SM_CHECK(indent(w, d));
			SM_CHECK(quoted(w, a->name));
			if (count == 0) {
				SM_CHECK(sm_out_put(w->out, " \"element_array\" [ ]\n", 21));
				f->attr++;
				continue;
			}
			SM_CHECK(sm_out_put(w->out, " \"element_array\"\n", 17));
			SM_CHECK(indent(w, d));
			SM_CHECK(sm_out_put(w->out, "[\n", 2));
			f->item = 0;
		}
		if (f->item >= count) {
			SM_CHECK(indent(w, d));
			SM_CHECK(sm_out_put(w->out, "]\n", 2));
			f->item = SIZE_MAX;
			f->attr++;
			continue;
		}
		uint32_t c = items[f->item++];
		if (c != SMDMX_NONE && c < w->dm->element_count && inline_here(w, c, d + 1)) {
			SM_CHECK(open_element(w, stack, c, d + 1, true));
			continue;
		}
		SM_CHECK(indent(w, d + 1));
		if (c == SMDMX_NONE || c >= w->dm->element_count) {
			SM_CHECK(sm_out_put(w->out, "\"element\" \"\"", 12));
		} else {
			SM_CHECK(sm_out_put(w->out, "\"element\" ", 10));
			SM_CHECK(put_id(w, w->dm->elements[c].id));
		}
		SM_CHECK(sm_out_put(w->out, f->item < count ? ",\n" : "\n", f->item < count ? 2 : 1));
	}
	return true;
}

static bool count_refs(kv2w *w)
{
	const smdmx_dm *dm = w->dm;
	for (size_t i = 0; i < dm->element_count; i++) {
		const smdmx_dm_element *e = &dm->elements[i];
		for (size_t a = 0; a < e->attr_count; a++) {
			const smdmx_dm_attr *at = &e->attrs[a];
			if (at->type != SMDMX_DM_ELEMENT) continue;
			size_t count = at->is_array ? at->value.array.count : 1;
			const uint32_t *ix = at->is_array ? at->value.array.data : &at->value.element;
			for (size_t k = 0; k < count; k++)
				if (ix[k] != SMDMX_NONE && ix[k] < dm->element_count && w->refs[ix[k]] < UINT32_MAX) w->refs[ix[k]]++;
		}
	}
	return true;
}

static bool write_all(kv2w *w, const smdmx_dmx_write_options *o)
{
	smdmx_dm *dm = w->dm;
	const char *encoding = o->encoding ? o->encoding : "keyvalues2";
	w->flat = strcmp(encoding, "keyvalues2_flat") == 0;
	w->version = o->encoding_version ? o->encoding_version : 1;
	if (w->version < 1 || w->version > 4)
		return sm_fail(w->error, SMDMX_ERROR_ENCODING, 0, 0, "keyvalues2 version %d (1 to 4 are written)", w->version);
	if (dm->root == SMDMX_NONE || dm->element_count == 0) return sm_fail(w->error, SMDMX_ERROR_EMPTY, 0, 0, "no element to write");
	if (dm->elements[dm->root].stub) return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "the root is an element of another file");
	SM_CHECK(smdmx_dm_assign_ids(dm, w->error));
	const char *format = o->format ? o->format : dm->format ? dm->format : "dmx";
	int fver = o->format_version ? o->format_version : dm->format_version;
	if (!*format || strpbrk(format, " \t\r\n"))
		return sm_fail(w->error, SMDMX_ERROR_USAGE, 0, 0, "format name '%.40s' cannot be written", format);
	SM_CHECK(sm_out_puts(w->out, "<!-- dmx encoding "));
	SM_CHECK(sm_out_puts(w->out, encoding));
	SM_CHECK(sm_out_put(w->out, " ", 1));
	SM_CHECK(put_int(w, w->version));
	SM_CHECK(sm_out_puts(w->out, " format "));
	SM_CHECK(sm_out_puts(w->out, format));
	SM_CHECK(sm_out_put(w->out, " ", 1));
	SM_CHECK(put_int(w, fver));
	SM_CHECK(sm_out_puts(w->out, " -->\n"));
	/* Prefix attributes, when the datamodel has any. */
	if (dm->prefix_attr_count) {
		SM_CHECK(sm_out_puts(w->out, "\"$prefix_element$\"\n{\n"));
		for (size_t i = 0; i < dm->prefix_attr_count; i++) {
			const smdmx_dm_attr *a = &dm->prefix_attrs[i];
			if (a->type == SMDMX_DM_ELEMENT) continue;
			SM_CHECK(put_value_attr(w, a, 1));
		}
		SM_CHECK(sm_out_puts(w->out, "}\n\n"));
	}
	sm_vec refs = SM_VEC_INIT, written = SM_VEC_INIT, stack = SM_VEC_INIT;
	SM_CHECK(sm_vec_reserve(w->mem, &refs, sizeof(uint32_t), dm->element_count, w->error));
	SM_CHECK(sm_vec_reserve(w->mem, &written, 1, dm->element_count, w->error));
	w->refs = refs.data;
	w->written = written.data;
	memset(w->refs, 0, dm->element_count * sizeof(uint32_t));
	memset(w->written, 0, dm->element_count);
	bool ok = count_refs(w) && write_tree(w, &stack, dm->root);
	/* Then every element not written inline: shared, unreferenced, or the way into a cycle.
	 * A stub is another file's: a reference names it by id, and it is not written. */
	for (int pass = 0; pass < 2 && ok; pass++) {
		for (size_t i = 0; ok && i < dm->element_count; i++) {
			if (w->written[i] || dm->elements[i].stub) continue;
			if (pass == 0 && !w->flat && w->refs[i] == 1) continue;
			ok = sm_out_put(w->out, "\n", 1) && write_tree(w, &stack, (uint32_t)i);
		}
	}
	return ok && sm_out_flush(w->out);
}

bool sm_kv2_write(smdmx_dm *dm, sm_out *out, const smdmx_dmx_write_options *o, smdmx_error *error)
{
	sm_alloc a;
	sm_alloc_init(&a, &o->allocator);
	kv2w *w = sm_malloc(&a, sizeof(kv2w));
	if (!w) return sm_fail_oom(error);
	memset(w, 0, sizeof(kv2w));
	w->out = out;
	w->error = error;
	w->dm = dm;
	w->mem = sm_owner_new(&o->allocator, error);
	w->max_depth = o->max_depth ? o->max_depth : SMDMX_DM_DEFAULT_MAX_DEPTH / 2;
	w->threads = o->threads > 1 ? o->threads : 1;
	bool ok = w->mem && write_all(w, o);
	sm_owner_free(w->mem);
	sm_free(&a, w, sizeof(kv2w));
	return ok;
}
