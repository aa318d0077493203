/* The bones studiomdl makes of meshes that follow their own nodes (sm_own_bones_find in
 * scene_util.h; doc/format-notes.md, "A mesh that follows its own node"). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "scene/scene_util.h"

/* name in lower case, owned by o: bone names meet case aside, as studiomdl finds bones */
static const char *lowered(sm_owner *o, const char *name, smdmx_error *error)
{
	size_t n = strlen(name);
	char *l = sm_owned_alloc(o, n + 1, error);
	if (!l) return NULL;
	for (size_t i = 0; i <= n; i++) l[i] = (char)tolower((unsigned char)name[i]);
	return l;
}

bool sm_own_bones_follows(const smdmx_scene *s, const smdmx_mesh *m)
{
	/* a VTA's vertices have no weights: they are the reference's, on its bones */
	if (!s->joint_count || s->source.format == SMDMX_SOURCE_VTA || m->parent_joint != SMDMX_NONE || !m->corner_count) return false;
	if (!m->weight_offsets || !m->weight_count) return true;
	/* or some of its vertices (weighted to the model itself, which is no bone) */
	for (size_t p = 0; p < m->position_count; p++)
		if (m->weight_offsets[p + 1] == m->weight_offsets[p]) return true;
	return false;
}

bool sm_own_bones_find(const smdmx_scene *s, const smdmx_allocator *allocator, sm_own_bones *b)
{
	memset(b, 0, sizeof(*b));
	size_t n = 0;
	for (size_t m = 0; m < s->mesh_count; m++) n += sm_own_bones_follows(s, &s->meshes[m]);
	if (!n) return true;
	smdmx_error error;
	b->mem = sm_owner_new(allocator, &error);
	if (!b->mem) return false;
	sm_alloc *a = &b->mem->alloc;
	b->of_mesh = sm_owned_alloc(b->mem, s->mesh_count * sizeof(uint32_t), &error);
	b->mesh = sm_owned_alloc(b->mem, n * sizeof(uint32_t), &error);
	b->name = sm_owned_alloc(b->mem, n * sizeof(char *), &error);
	sm_names taken;
	memset(&taken, 0, sizeof(taken));
	bool ok = b->of_mesh && b->mesh && b->name && sm_names_init(a, &taken, s->joint_count + n);
	for (size_t j = 0; ok && j < s->joint_count; j++) {
		const char *l = lowered(b->mem, s->joints[j].name, &error);
		ok = l && sm_names_put(a, &taken, l, 0, true);
	}
	for (size_t m = 0; ok && m < s->mesh_count; m++) {
		b->of_mesh[m] = SMDMX_NONE;
		if (!sm_own_bones_follows(s, &s->meshes[m])) continue;
		/* the mesh's name, or with "_mesh", "_mesh2"... where a bone has it (as a DMX names
		 * a mesh's node beside a bone of its name) */
		const char *name = s->meshes[m].name ? s->meshes[m].name : "mesh", *use = name, *low = NULL;
		for (unsigned k = 1; ok; k++) {
			ok = (low = lowered(b->mem, use, &error)) != NULL;
			if (!ok || sm_names_get(&taken, low) == SMDMX_NONE) break;
			char buf[300];
			if (k == 1) snprintf(buf, sizeof(buf), "%.280s_mesh", name);
			else snprintf(buf, sizeof(buf), "%.280s_mesh%u", name, k);
			ok = (use = sm_strdup(b->mem, buf, strlen(buf), &error)) != NULL;
		}
		ok = ok && sm_names_put(a, &taken, low, 0, true);
		if (!ok) break;
		b->of_mesh[m] = (uint32_t)b->count;
		b->mesh[b->count] = (uint32_t)m;
		b->name[b->count++] = use;
	}
	sm_names_free(a, &taken);
	if (!ok) sm_own_bones_free(b);
	return ok;
}

void sm_own_bones_free(sm_own_bones *b)
{
	sm_owner_free(b->mem);
	memset(b, 0, sizeof(*b));
}
