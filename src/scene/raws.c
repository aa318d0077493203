/* A scene's raw controls by name (sm_raws in scene_util.h): the parts a delta state's name
 * splits into, whether studiomdl splits it by a stereo control, and so the meshes whose
 * balance a stereo control uses (sm_stereo_meshes). */
#include <string.h>

#include "scene/scene_util.h"

static char lower_ascii(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

bool sm_raws_build(const smdmx_scene *s, const smdmx_allocator *hooks, sm_raws *r)
{
	memset(r, 0, sizeof(*r));
	sm_alloc_init(&r->alloc, hooks);
	size_t n = 0, bytes = 0;
	for (size_t i = 0; i < s->flex_controller_count; i++) {
		const smdmx_flex_controller *c = &s->flex_controllers[i];
		n += c->raw_controls.count;
		for (size_t j = 0; j < c->raw_controls.count; j++) {
			size_t len = strlen(c->raw_controls.data[j]);
			bytes += len + 1;
			if (len > r->longest) r->longest = len;
		}
	}
	r->name = sm_new_zero(&r->alloc, n + 1, sizeof(char *));
	r->control = sm_new_zero(&r->alloc, n + 1, sizeof(uint32_t));
	r->local = sm_new_zero(&r->alloc, n + 1, sizeof(uint32_t));
	r->lowered = sm_new(&r->alloc, bytes + 1, 1);
	r->scratch = sm_new(&r->alloc, r->longest + 1, 1);
	sm_names exact;
	memset(&exact, 0, sizeof(exact));
	bool ok = r->name && r->control && r->local && r->lowered && r->scratch && sm_names_init(&r->alloc, &exact, n) &&
	          sm_names_init(&r->alloc, &r->index, n);
	char *low = r->lowered;
	for (size_t i = 0; ok && i < s->flex_controller_count; i++) {
		const smdmx_flex_controller *c = &s->flex_controllers[i];
		for (size_t j = 0; ok && j < c->raw_controls.count; j++) {
			const char *name = c->raw_controls.data[j];
			/* studiomdl refuses a raw control twice: the first stays */
			if (sm_names_get(&exact, name) != SMDMX_NONE) continue;
			size_t len = strlen(name);
			for (size_t k = 0; k <= len; k++) low[k] = lower_ascii(name[k]);
			ok = sm_names_put(&r->alloc, &exact, name, (uint32_t)r->count, true) &&
			     sm_names_put(&r->alloc, &r->index, low, (uint32_t)r->count, true);
			low += len + 1;
			r->name[r->count] = name;
			r->control[r->count] = (uint32_t)i;
			r->local[r->count] = (uint32_t)j;
			r->count++;
		}
	}
	sm_names_free(&r->alloc, &exact);
	if (!ok) sm_raws_free(r);
	return ok;
}

void sm_raws_free(sm_raws *r)
{
	sm_del(&r->alloc, r->name);
	sm_del(&r->alloc, r->control);
	sm_del(&r->alloc, r->local);
	sm_del(&r->alloc, r->lowered);
	sm_del(&r->alloc, r->scratch);
	sm_names_free(&r->alloc, &r->index);
	memset(r, 0, sizeof(*r));
}

/* The raw control named p[0, len), case aside (the first of that name), or SMDMX_NONE. */
static uint32_t raw_named(const sm_raws *r, const char *p, size_t len)
{
	if (len > r->longest || !r->count) return SMDMX_NONE;
	for (size_t k = 0; k < len; k++) r->scratch[k] = lower_ascii(p[k]);
	r->scratch[len] = 0;
	return sm_names_get(&r->index, r->scratch);
}

size_t sm_raws_parts(const sm_raws *r, const char *name, size_t len, uint32_t *out, size_t cap)
{
	size_t n = 0;
	for (const char *p = name, *end = name + len;;) {
		const char *e = memchr(p, '_', (size_t)(end - p));
		uint32_t k = raw_named(r, p, e ? (size_t)(e - p) : (size_t)(end - p));
		if (k == SMDMX_NONE || n == cap) return 0;
		out[n++] = k;
		if (!e) return n;
		p = e + 1;
	}
}

bool sm_raws_stereo(const smdmx_scene *s, const sm_raws *r, const char *name, size_t len)
{
	bool stereo = false;
	for (const char *p = name, *end = name + len;;) {
		const char *e = memchr(p, '_', (size_t)(end - p));
		uint32_t k = raw_named(r, p, e ? (size_t)(e - p) : (size_t)(end - p));
		if (k == SMDMX_NONE) return false;
		stereo = stereo || s->flex_controllers[r->control[k]].stereo;
		if (!e) return stereo;
		p = e + 1;
	}
}

bool sm_stereo_meshes(const smdmx_scene *s, const smdmx_allocator *hooks, uint8_t *out, size_t *unused, size_t *corners)
{
	if (s->mesh_count) memset(out, 0, s->mesh_count);
	bool any = false;
	for (size_t i = 0; i < s->flex_controller_count && !any; i++) any = s->flex_controllers[i].stereo;
	sm_raws r;
	if (any && !sm_raws_build(s, hooks, &r)) return false;
	for (size_t i = 0; any && i < s->flex_shape_count; i++) {
		const smdmx_flex_shape *sh = &s->flex_shapes[i];
		if (sh->mesh >= s->mesh_count || out[sh->mesh]) continue;
		size_t len = strlen(sh->name);
		/* or one of its halves, as a QC writes a stereo shape no flexpair can say (S+"R", S+"L") */
		out[sh->mesh] = sm_raws_stereo(s, &r, sh->name, len) ||
		                (len > 1 && (sh->name[len - 1] == 'R' || sh->name[len - 1] == 'L') && sm_raws_stereo(s, &r, sh->name, len - 1));
	}
	if (any) sm_raws_free(&r);
	*unused = *corners = 0;
	for (size_t m = 0; m < s->mesh_count; m++)
		if (s->meshes[m].balance.indices && !out[m]) {
			++*unused;
			*corners += s->meshes[m].corner_count;
		}
	return true;
}
