/* Where a datamodel's elements stand in their file, for messages (smdmx_dm_places): in
 * keyvalues2, an element's line and column from the byte offset the reader kept; in binary,
 * which has no lines, its first way from the root, breadth first. Everything is found when
 * the places are made, so that each place is a lookup; in the datamodel's memory (its
 * allocator's hooks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmx/dm_internal.h"

struct smdmx_dm_places {
	const smdmx_dm *dm;
	sm_alloc mem;          /* the datamodel's allocator's hooks: these blocks and the struct */
	uint32_t *line_starts; /* keyvalues2: where each line starts */
	size_t lines;
	uint32_t *parent;      /* each element's parent on its first way from the root */
	uint32_t *via_index;   /* its index in that parent's array attribute, or UINT32_MAX */
	const char **via;      /* that attribute's name; NULL: not under the root */
};

/* Every element's first way from the root (breadth first). */
static bool walk(smdmx_dm_places *p)
{
	const smdmx_dm *dm = p->dm;
	size_t n = dm->element_count + 1;
	p->parent = sm_new(&p->mem, 1, n * sizeof(uint32_t));
	p->via_index = sm_new(&p->mem, 1, n * sizeof(uint32_t));
	p->via = sm_new_zero(&p->mem, n, sizeof(char *));
	uint32_t *queue = sm_new(&p->mem, 1, n * sizeof(uint32_t));
	if (!p->parent || !p->via_index || !p->via || !queue) {
		sm_del(&p->mem, queue);
		return false;
	}
	for (size_t e = 0; e < dm->element_count; e++) p->parent[e] = SMDMX_NONE;
	if (dm->root == SMDMX_NONE || dm->root >= dm->element_count) {
		sm_del(&p->mem, queue);
		return true;
	}
	size_t head = 0, tail = 0;
	queue[tail++] = dm->root;
	p->via[dm->root] = "";
	while (head < tail) {
		uint32_t e = queue[head++];
		const smdmx_dm_element *el = &dm->elements[e];
		for (size_t a = 0; a < el->attr_count; a++) {
			const smdmx_dm_attr *at = &el->attrs[a];
			if (at->type != SMDMX_DM_ELEMENT) continue;
			size_t count = at->is_array ? at->value.array.count : 1;
			for (size_t i = 0; i < count; i++) {
				uint32_t x = at->is_array ? ((const uint32_t *)at->value.array.data)[i] : at->value.element;
				if (x == SMDMX_NONE || x >= dm->element_count || p->via[x]) continue;
				p->via[x] = at->name;
				p->via_index[x] = at->is_array ? (uint32_t)i : UINT32_MAX;
				p->parent[x] = e;
				queue[tail++] = x;
			}
		}
	}
	sm_del(&p->mem, queue);
	return true;
}

smdmx_dm_places *smdmx_dm_places_new(const smdmx_dm *dm, const char *text, size_t size)
{
	if (!dm) return NULL;
	sm_alloc mem;
	sm_alloc_init(&mem, dm->owner && dm->owner->mem ? &dm->owner->mem->alloc.hooks : NULL);
	smdmx_dm_places *p = sm_new_zero(&mem, 1, sizeof(*p));
	if (!p) return NULL;
	p->mem = mem;
	p->dm = dm;
	if (text && size < UINT32_MAX) {
		size_t n = 1;
		for (size_t i = 0; i < size; i++) n += text[i] == '\n';
		p->line_starts = sm_new(&p->mem, 1, n * sizeof(uint32_t));
		if (!p->line_starts) {
			smdmx_dm_places_free(p);
			return NULL;
		}
		p->line_starts[0] = 0;
		p->lines = 1;
		for (size_t i = 0; i < size; i++)
			if (text[i] == '\n') p->line_starts[p->lines++] = (uint32_t)(i + 1);
	}
	if (!walk(p)) {
		smdmx_dm_places_free(p);
		return NULL;
	}
	return p;
}

void smdmx_dm_place(const smdmx_dm_places *p, uint32_t e, uint32_t *line, uint32_t *column, char *path, size_t size)
{
	if (line) *line = 0;
	if (column) *column = 0;
	if (path && size) path[0] = '\0';
	if (!p || !line || !column || (!path && size)) return;
	*line = *column = 0;
	if (size) path[0] = '\0';
	const smdmx_dm *dm = p->dm;
	if (e == SMDMX_NONE || e >= dm->element_count) return;
	const smdmx_dm_element *el = &dm->elements[e];
	if (el->source_offset != SIZE_MAX && p->line_starts) {
		size_t lo = 0, hi = p->lines;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;
			if (p->line_starts[mid] <= el->source_offset) lo = mid;
			else hi = mid;
		}
		*line = (uint32_t)(lo + 1);
		*column = (uint32_t)(el->source_offset - p->line_starts[lo] + 1);
		return;
	}
	if (!size) return;
	if (!p->via[e]) {
		snprintf(path, size, "%s '%s' (not under the root)", el->type, el->name);
		return;
	}
	/* the way, built from the element up */
	char way[256] = "";
	for (uint32_t x = e; x != dm->root && x != SMDMX_NONE; x = p->parent[x]) {
		char step[128], rest[256];
		if (p->via_index[x] != UINT32_MAX) snprintf(step, sizeof(step), ".%s[%u]", p->via[x], p->via_index[x]);
		else snprintf(step, sizeof(step), ".%s", p->via[x]);
		snprintf(rest, sizeof(rest), "%s%s", step, way);
		memcpy(way, rest, sizeof(way));
	}
	snprintf(path, size, "root%s (%s '%s')", way, el->type, el->name);
}

void smdmx_dm_places_free(smdmx_dm_places *p)
{
	if (!p) return;
	sm_alloc mem = p->mem;
	sm_del(&mem, p->line_starts);
	sm_del(&mem, p->parent);
	sm_del(&mem, p->via_index);
	sm_del(&mem, (void *)p->via);
	sm_del(&mem, p);
}
