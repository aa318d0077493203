/* A readable, indented listing of a datamodel for people: element types, names and ids,
 * attribute names, types and values. Each element is listed once, where it is first
 * reached from the root; later references point back to it. Arrays are shortened to their
 * first items unless `full`. No recursion: the walk keeps its own stack. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dmx/dm_internal.h"
#include "support/num.h"

#define SHORT_ITEMS 6

typedef struct dumper {
	sm_out out;          /* first: the dumper is mostly this buffer */
	smdmx_error *error;
	const smdmx_dm *dm;
	bool full;
} dumper;

static bool pad(dumper *d, size_t depth)
{
	for (size_t i = 0; i < depth; i++) SM_CHECK(sm_out_put(&d->out, "  ", 2));
	return true;
}

static bool quoted(dumper *d, const char *s)
{
	SM_CHECK(sm_out_put(&d->out, "\"", 1));
	for (; *s; s++) {
		char c = *s;
		const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
		if (esc) SM_CHECK(sm_out_puts(&d->out, esc));
		else if ((unsigned char)c < 0x20) {
			char b[8];
			snprintf(b, sizeof(b), "\\x%02x", (unsigned char)c);
			SM_CHECK(sm_out_puts(&d->out, b));
		} else SM_CHECK(sm_out_put(&d->out, &c, 1));
	}
	return sm_out_put(&d->out, "\"", 1);
}

static bool element_ref(dumper *d, uint32_t e)
{
	if (e == SMDMX_NONE || e >= d->dm->element_count) return sm_out_puts(&d->out, "null");
	const smdmx_dm_element *el = &d->dm->elements[e];
	char id[37];
	smdmx_dm_id_to_text(el->id, id);
	if (el->stub) {
		SM_CHECK(sm_out_puts(&d->out, "an element of another file, "));
		return sm_out_puts(&d->out, id);
	}
	SM_CHECK(sm_out_puts(&d->out, el->type));
	SM_CHECK(sm_out_put(&d->out, " ", 1));
	SM_CHECK(quoted(d, el->name));
	SM_CHECK(sm_out_put(&d->out, " ", 1));
	return sm_out_puts(&d->out, el->has_id ? id : "(no id)");
}

static bool value(dumper *d, smdmx_dm_type type, const void *v)
{
	char b[64];
	switch (type) {
	case SMDMX_DM_STRING: return quoted(d, *(const char *const *)v);
	case SMDMX_DM_INT: b[sm_format_int(*(const int32_t *)v, b)] = '\0'; return sm_out_puts(&d->out, b);
	case SMDMX_DM_UINT8: b[sm_format_int(*(const uint8_t *)v, b)] = '\0'; return sm_out_puts(&d->out, b);
	case SMDMX_DM_BOOL: return sm_out_puts(&d->out, *(const uint8_t *)v ? "true" : "false");
	case SMDMX_DM_TIME: {
		int32_t t = *(const int32_t *)v;
		b[sm_format_int(t, b)] = '\0';
		SM_CHECK(sm_out_puts(&d->out, b));
		return sm_out_puts(&d->out, " ticks");
	}
	case SMDMX_DM_UINT64: snprintf(b, sizeof(b), "0x%llx", (unsigned long long)*(const uint64_t *)v); return sm_out_puts(&d->out, b);
	case SMDMX_DM_COLOR: {
		const uint8_t *c = v;
		snprintf(b, sizeof(b), "%u %u %u %u", c[0], c[1], c[2], c[3]);
		return sm_out_puts(&d->out, b);
	}
	case SMDMX_DM_BINARY: snprintf(b, sizeof(b), "(%zu bytes)", ((const smdmx_dm_binary *)v)->size); return sm_out_puts(&d->out, b);
	case SMDMX_DM_OBJECTID: smdmx_dm_id_to_text(v, b); return sm_out_puts(&d->out, b);
	case SMDMX_DM_ELEMENT: return element_ref(d, *(const uint32_t *)v);
	default: {
		const float *f = v;
		size_t n = smdmx_dm_item_size(type) / sizeof(float);
		for (size_t i = 0; i < n; i++) {
			if (i) SM_CHECK(sm_out_put(&d->out, " ", 1));
			/* a binary file may hold any bits: one that is no number is said so */
			if (isfinite(f[i])) b[sm_format_shortest(f[i], b)] = '\0';
			else snprintf(b, sizeof(b), "%s", isnan(f[i]) ? "nan" : f[i] > 0 ? "inf" : "-inf");
			SM_CHECK(sm_out_puts(&d->out, b));
		}
		return true;
	}
	}
}

typedef struct dframe {
	uint32_t element;
	size_t depth;
	size_t attr;
	size_t item; /* element array item, or SIZE_MAX */
} dframe;

static bool push(dumper *d, sm_vec *stack, sm_owner *mem, uint32_t e, size_t depth)
{
	dframe *f = sm_vec_push(mem, stack, sizeof(*f), d->error);
	if (!f) return false;
	f->element = e;
	f->depth = depth;
	f->attr = 0;
	f->item = SIZE_MAX;
	return true;
}

/* A reference inside the tree: expand the element if not listed yet, else point back. */
static bool reference(dumper *d, sm_vec *stack, sm_owner *mem, uint8_t *listed, uint32_t e, size_t depth)
{
	SM_CHECK(element_ref(d, e));
	if (e == SMDMX_NONE || e >= d->dm->element_count) return sm_out_put(&d->out, "\n", 1);
	if (d->dm->elements[e].stub) return sm_out_put(&d->out, "\n", 1);
	if (listed[e]) return sm_out_puts(&d->out, " (listed above)\n");
	listed[e] = 1;
	SM_CHECK(sm_out_put(&d->out, "\n", 1));
	return push(d, stack, mem, e, depth);
}

static bool dump_tree(dumper *d, sm_vec *stack, sm_owner *mem, uint8_t *listed, uint32_t start)
{
	listed[start] = 1;
	SM_CHECK(element_ref(d, start));
	SM_CHECK(sm_out_put(&d->out, "\n", 1));
	SM_CHECK(push(d, stack, mem, start, 1));
	while (stack->count) {
		dframe *f = (dframe *)stack->data + stack->count - 1;
		const smdmx_dm_element *el = &d->dm->elements[f->element];
		if (f->attr >= el->attr_count) {
			stack->count--;
			continue;
		}
		const smdmx_dm_attr *a = &el->attrs[f->attr];
		size_t depth = f->depth;
		if (f->item == SIZE_MAX) {
			SM_CHECK(pad(d, depth));
			SM_CHECK(sm_out_puts(&d->out, a->name));
			SM_CHECK(sm_out_puts(&d->out, ": "));
			SM_CHECK(sm_out_puts(&d->out, smdmx_dm_type_name(a->type, a->is_array)));
			if (!a->is_array) {
				SM_CHECK(sm_out_puts(&d->out, " = "));
				f->attr++;
				if (a->type == SMDMX_DM_ELEMENT) {
					SM_CHECK(reference(d, stack, mem, listed, a->value.element, depth + 1));
					continue;
				}
				/* value() reads a bool as one byte, the layout of bool arrays */
				const void *v = a->type == SMDMX_DM_MATRIX ? (const void *)a->value.matrix : (const void *)&a->value;
				SM_CHECK(value(d, a->type, v));
				SM_CHECK(sm_out_put(&d->out, "\n", 1));
				continue;
			}
			char b[48];
			snprintf(b, sizeof(b), " [%zu]", a->value.array.count);
			SM_CHECK(sm_out_puts(&d->out, b));
			if (a->type != SMDMX_DM_ELEMENT) {
				size_t n = a->value.array.count, shown = d->full || n <= SHORT_ITEMS ? n : SHORT_ITEMS;
				size_t item = smdmx_dm_item_size(a->type);
				for (size_t i = 0; i < shown; i++) {
					SM_CHECK(sm_out_puts(&d->out, i ? ", " : " = "));
					SM_CHECK(value(d, a->type, (const char *)a->value.array.data + i * item));
				}
				if (shown < n) SM_CHECK(sm_out_puts(&d->out, ", ..."));
				SM_CHECK(sm_out_put(&d->out, "\n", 1));
				f->attr++;
				continue;
			}
			SM_CHECK(sm_out_put(&d->out, "\n", 1));
			f->item = 0;
		}
		/* An element array, one item per step. */
		size_t n = a->value.array.count;
		size_t limit = d->full || n <= SHORT_ITEMS ? n : SHORT_ITEMS;
		if (f->item >= limit) {
			if (limit < n) {
				char b[64];
				SM_CHECK(pad(d, depth + 1));
				snprintf(b, sizeof(b), "... %zu more\n", n - limit);
				SM_CHECK(sm_out_puts(&d->out, b));
			}
			f->item = SIZE_MAX;
			f->attr++;
			continue;
		}
		size_t i = f->item++;
		char b[32];
		SM_CHECK(pad(d, depth + 1));
		snprintf(b, sizeof(b), "[%zu] ", i);
		SM_CHECK(sm_out_puts(&d->out, b));
		SM_CHECK(reference(d, stack, mem, listed, ((const uint32_t *)a->value.array.data)[i], depth + 2));
	}
	return true;
}

static bool dump_all(dumper *d, sm_owner *mem)
{
	const smdmx_dm *dm = d->dm;
	char head[512];
	size_t stubs = smdmx_dm_stub_count(dm);
	char others[64] = "";
	if (stubs) snprintf(others, sizeof(others), " and references to %zu of other files", stubs);
	snprintf(head, sizeof(head), "encoding %.100s %d, format %.100s %d, %zu elements%s\n", dm->encoding ? dm->encoding : "-",
	         dm->encoding_version, dm->format ? dm->format : "-", dm->format_version, dm->element_count - stubs, others);
	SM_CHECK(sm_out_puts(&d->out, head));
	for (size_t i = 0; i < dm->prefix_attr_count; i++) {
		const smdmx_dm_attr *a = &dm->prefix_attrs[i];
		SM_CHECK(sm_out_puts(&d->out, "prefix "));
		SM_CHECK(sm_out_puts(&d->out, a->name));
		SM_CHECK(sm_out_puts(&d->out, ": "));
		SM_CHECK(sm_out_puts(&d->out, smdmx_dm_type_name(a->type, a->is_array)));
		if (!a->is_array && a->type != SMDMX_DM_ELEMENT) {
			SM_CHECK(sm_out_puts(&d->out, " = "));
			SM_CHECK(value(d, a->type, a->type == SMDMX_DM_MATRIX ? (const void *)a->value.matrix : (const void *)&a->value));
		}
		SM_CHECK(sm_out_put(&d->out, "\n", 1));
	}
	if (dm->element_count == 0) return true;
	sm_vec stack = SM_VEC_INIT, listed = SM_VEC_INIT;
	SM_CHECK(sm_vec_reserve(mem, &listed, 1, dm->element_count, d->error));
	memset(listed.data, 0, dm->element_count);
	if (dm->root != SMDMX_NONE) SM_CHECK(dump_tree(d, &stack, mem, listed.data, dm->root));
	/* Elements the root does not reach. */
	for (size_t i = 0; i < dm->element_count; i++) {
		if (((uint8_t *)listed.data)[i] || dm->elements[i].stub) continue;
		SM_CHECK(sm_out_puts(&d->out, "not reached from the root: "));
		SM_CHECK(dump_tree(d, &stack, mem, listed.data, (uint32_t)i));
	}
	return true;
}

bool smdmx_dm_dump(const smdmx_dm *dm, bool full, smdmx_write_fn write, void *user, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!dm || !write) return sm_fail_null(error, __func__, !dm ? "dm" : "write");
	sm_owner *mem = sm_owner_new(NULL, error);
	if (!mem) return false;
	dumper *d = sm_owned_alloc(mem, sizeof(dumper), error);
	bool ok = d != NULL;
	if (ok) {
		d->out.write = write;
		d->out.user = user;
		d->out.error = error;
		d->out.len = 0;
		d->error = error;
		d->dm = dm;
		d->full = full;
		ok = dump_all(d, mem) && sm_out_flush(&d->out);
	}
	sm_owner_free(mem);
	return ok;
}
