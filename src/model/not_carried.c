/* What a model datamodel taken through the scene leaves behind (smdmx_model_not_carried in
 * model.h): its element types and attributes that the written one has nowhere, with the
 * names one model format gives what another calls otherwise brought to one (doc/formats.md,
 * C7 and D). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "smdmx/model.h"

/* The names of a datamodel, each once: "Type" and "Type.attr". */
typedef struct name_set {
	sm_alloc a;
	sm_owner *o;
	sm_names seen;
	const char **list;
	size_t count, cap;
	bool failed;
} name_set;

/* "attr" brought to one name over the model formats: format 22's vertex fields
 * ("position$0") to the older names (their "Indices" too), jointTransforms (the joint table
 * of formats before 11) to jointList, the time frame's int fields of format 1 to the time
 * fields. */
static void canonical_attr(const char *attr, char *out, size_t size)
{
	static const char *const same[][2] = {
		{ "jointTransforms", "jointList" }, { "durationTime", "duration" }, { "startTime", "start" }, { "offsetTime", "offset" },
	};
	size_t n = strlen(attr);
	bool indices = n > 7 && !strcmp(attr + n - 7, "Indices");
	char base[256];
	snprintf(base, sizeof(base), "%.*s", (int)(indices ? n - 7 : n), attr);
	for (smdmx_corner_field f = 0; f < SMDMX_CORNER_FIELD_COUNT; f++) {
		const smdmx_corner_field_info *x = smdmx_corner_field_describe(f);
		if (!strcmp(base, x->dmx_names[1])) snprintf(base, sizeof(base), "%s", x->dmx_names[0]);
	}
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (!strcmp(base, same[i][0])) {
			snprintf(base, sizeof(base), "%s", same[i][1]);
			break;
		}
	snprintf(out, size, "%s%s", base, indices ? "Indices" : "");
}

static void add_name(name_set *s, const char *type, const char *attr)
{
	char name[600], can[300];
	if (attr) canonical_attr(attr, can, sizeof(can));
	snprintf(name, sizeof(name), attr ? "%s.%s" : "%s", type, attr ? can : "");
	if (s->failed || sm_names_get(&s->seen, name) != SMDMX_NONE) return;
	const char *kept = sm_strdup(s->o, name, strlen(name), NULL);
	if (s->count == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		const char **g = sm_realloc(&s->a, s->list, s->cap * sizeof(char *), cap * sizeof(char *));
		if (g) s->list = g, s->cap = cap;
	}
	if (!kept || s->count == s->cap || !sm_names_put(&s->a, &s->seen, kept, (uint32_t)s->count, true)) {
		s->failed = true;
		return;
	}
	s->list[s->count++] = kept;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool names_of(name_set *s, const smdmx_dm *dm)
{
	memset(s, 0, sizeof(*s));
	sm_alloc_init(&s->a, NULL);
	s->o = sm_owner_new(NULL, NULL);
	if (!s->o || !sm_names_init(&s->a, &s->seen, 64)) return false;
	for (size_t e = 0; e < dm->element_count && !s->failed; e++) {
		const smdmx_dm_element *x = &dm->elements[e];
		if (x->stub) continue;
		add_name(s, x->type, NULL);
		for (size_t a = 0; a < x->attr_count; a++) add_name(s, x->type, x->attrs[a].name);
	}
	if (s->count) qsort(s->list, s->count, sizeof(char *), by_name);
	return !s->failed;
}

static void names_free(name_set *s)
{
	sm_names_free(&s->a, &s->seen);
	sm_free(&s->a, s->list, s->cap * sizeof(char *));
	sm_owner_free(s->o);
}

size_t smdmx_model_not_carried(const smdmx_dm *in, const smdmx_dm *out, void (*fn)(void *user, const char *name), void *user)
{
	if (!in || !out) return SIZE_MAX;
	name_set a, b;
	bool ok = names_of(&a, in);
	ok = names_of(&b, out) && ok;
	size_t lost = 0;
	for (size_t i = 0, k = 0; ok && i < a.count; i++) {
		while (k < b.count && strcmp(b.list[k], a.list[i]) < 0) k++;
		if (k < b.count && !strcmp(b.list[k], a.list[i])) continue;
		lost++;
		if (fn) fn(user, a.list[i]);
	}
	names_free(&a);
	names_free(&b);
	return ok ? lost : SIZE_MAX;
}
