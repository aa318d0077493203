/* A body part joined to a model (smdmx_scene_add_part, scene.h), as studiomdl joins the
 * parts of a QC into one model: one skeleton, bones matched by name (doc/format-notes.md,
 * "A QC's body parts"); materials matched by name; the part's meshes, their shapes,
 * attachments and rig added after the model's. */
#include <string.h>

#include "support/internal.h"

typedef struct joiner {
	sm_owner *o;
	smdmx_error *error;
	bool ok;
} joiner;

/* A copy of n bytes at p in the scene's memory; NULL for NULL (not a failure). */
static void *joiner_copy(joiner *j, const void *p, size_t n)
{
	if (!p || !j->ok) return NULL;
	void *c = sm_owned_alloc(j->o, n + 1, j->error);
	if (!c) {
		j->ok = false;
		return NULL;
	}
	if (n) memcpy(c, p, n);
	return c;
}

static const char *text(joiner *j, const char *s)
{
	if (!s || !j->ok) return NULL;
	const char *c = sm_strdup(j->o, s, strlen(s), j->error);
	if (!c) j->ok = false;
	return c;
}

static void copy_strings(joiner *j, smdmx_string_list *to, const smdmx_string_list *from)
{
	to->count = from->count;
	to->data = from->count ? joiner_copy(j, from->data, from->count * sizeof(*from->data)) : NULL;
	for (size_t i = 0; j->ok && to->data && i < from->count; i++) to->data[i] = text(j, from->data[i]);
}

static uint32_t find_joint(const smdmx_scene *s, const char *name)
{
	for (size_t i = 0; i < s->joint_count; i++)
		if (!strcmp(s->joints[i].name, name)) return (uint32_t)i;
	return SMDMX_NONE;
}

static bool same_transform(const smdmx_transform *a, const smdmx_transform *b)
{
	for (int k = 0; k < 3; k++)
		if (a->position[k] - b->position[k] > 1e-4f || b->position[k] - a->position[k] > 1e-4f) return false;
	float dot = 0;
	for (int k = 0; k < 4; k++) dot += a->orientation[k] * b->orientation[k];
	return dot > 0.99999f || dot < -0.99999f;
}

/* items of size elem: dst's count, then room for more (zeroed), in the scene's memory */
static void *grown(joiner *j, const void *items, size_t count, size_t more, size_t elem)
{
	if (!j->ok) return NULL;
	void *g = sm_owned_calloc(j->o, count + more + 1, elem, j->error);
	if (!g) {
		j->ok = false;
		return NULL;
	}
	if (count) memcpy(g, items, count * elem);
	return g;
}

/* The part's joints into the model's: map[i] is part joint i's index in dst. */
static void join_joints(joiner *j, smdmx_scene *dst, const smdmx_scene *src, uint32_t *map, size_t *differ)
{
	size_t added = 0;
	for (size_t i = 0; i < src->joint_count; i++) {
		map[i] = find_joint(dst, src->joints[i].name);
		if (map[i] == SMDMX_NONE) added++;
	}
	smdmx_joint *joints = grown(j, dst->joints, dst->joint_count, added, sizeof(smdmx_joint));
	if (!joints) return;
	size_t n = dst->joint_count;
	for (size_t i = 0; i < src->joint_count; i++)
		if (map[i] == SMDMX_NONE) {
			map[i] = (uint32_t)n;
			joints[n] = src->joints[i];
			joints[n++].name = text(j, src->joints[i].name);
		}
	for (size_t i = 0; i < src->joint_count; i++) {
		const smdmx_joint *sj = &src->joints[i];
		uint32_t parent = sj->parent == SMDMX_NONE ? SMDMX_NONE : map[sj->parent];
		smdmx_joint *dj = &joints[map[i]];
		if (map[i] >= dst->joint_count) dj->parent = parent;
		else if (dj->parent != parent || !same_transform(&dj->bind, &sj->bind)) ++*differ;
	}
	dst->joints = joints;
	dst->joint_count = n;
}

static uint32_t material_of(joiner *j, smdmx_scene *dst, const char *name, size_t *cap)
{
	for (size_t i = 0; i < dst->material_count; i++)
		if (!strcmp(dst->materials[i].name, name)) return (uint32_t)i;
	if (dst->material_count == *cap) {
		size_t c = *cap * 2 + 4;
		smdmx_material *m = sm_owned_calloc(j->o, c, sizeof(*m), j->error);
		if (!m) {
			j->ok = false;
			return 0;
		}
		if (dst->material_count) memcpy(m, dst->materials, dst->material_count * sizeof(*m));
		dst->materials = m;
		*cap = c;
	}
	dst->materials[dst->material_count].name = text(j, name);
	return (uint32_t)dst->material_count++;
}

static void scalar_copy(joiner *j, smdmx_scalar_field *to, const smdmx_scalar_field *from, size_t corners)
{
	to->count = from->count;
	to->data = joiner_copy(j, from->data, from->count * sizeof(float));
	to->indices = joiner_copy(j, from->indices, corners * sizeof(uint32_t));
}

static void mesh_copy(joiner *j, smdmx_mesh *to, const smdmx_mesh *from, const uint32_t *jmap, const uint32_t *mmap)
{
	*to = *from;
	size_t c = from->corner_count;
	to->name = text(j, from->name);
	to->parent_joint = from->parent_joint == SMDMX_NONE ? SMDMX_NONE : jmap[from->parent_joint];
	to->positions = joiner_copy(j, from->positions, from->position_count * sizeof(smdmx_vec3));
	to->position_indices = joiner_copy(j, from->position_indices, c * sizeof(uint32_t));
	to->weight_offsets = joiner_copy(j, from->weight_offsets, (from->position_count + 1) * sizeof(uint32_t));
	to->weights = joiner_copy(j, from->weights, from->weight_count * sizeof(smdmx_weight));
	for (size_t i = 0; j->ok && to->weights && i < from->weight_count; i++) to->weights[i].joint = jmap[from->weights[i].joint];
	to->normals = joiner_copy(j, from->normals, from->normal_count * sizeof(smdmx_vec3));
	to->normal_indices = joiner_copy(j, from->normal_indices, c * sizeof(uint32_t));
	to->uv_sets = joiner_copy(j, from->uv_sets, from->uv_set_count * sizeof(smdmx_uv_set));
	for (size_t i = 0; j->ok && i < from->uv_set_count; i++) {
		const smdmx_uv_set *u = &from->uv_sets[i];
		to->uv_sets[i].name = text(j, u->name);
		to->uv_sets[i].data = joiner_copy(j, u->data, u->count * sizeof(smdmx_vec2));
		to->uv_sets[i].indices = joiner_copy(j, u->indices, c * sizeof(uint32_t));
	}
	scalar_copy(j, &to->balance, &from->balance, c);
	scalar_copy(j, &to->wrinkle, &from->wrinkle, c);
	to->face_sets = joiner_copy(j, from->face_sets, from->face_set_count * sizeof(smdmx_face_set));
	for (size_t i = 0; j->ok && i < from->face_set_count; i++) {
		const smdmx_face_set *f = &from->face_sets[i];
		smdmx_face_set *g = &to->face_sets[i];
		g->material = mmap[f->material];
		g->corners = joiner_copy(j, f->corners, f->corner_count * sizeof(uint32_t));
		g->offsets = joiner_copy(j, f->offsets, (f->polygon_count + 1) * sizeof(uint32_t));
	}
}

static void shape_copy(joiner *j, smdmx_flex_shape *to, const smdmx_flex_shape *from, uint32_t mesh)
{
	*to = *from;
	to->name = text(j, from->name);
	to->mesh = mesh;
	to->position_indices = joiner_copy(j, from->position_indices, from->position_count * sizeof(uint32_t));
	to->position_deltas = joiner_copy(j, from->position_deltas, from->position_count * sizeof(smdmx_vec3));
	to->normal_indices = joiner_copy(j, from->normal_indices, from->normal_count * sizeof(uint32_t));
	to->normal_deltas = joiner_copy(j, from->normal_deltas, from->normal_count * sizeof(smdmx_vec3));
	to->wrinkle_indices = joiner_copy(j, from->wrinkle_indices, from->wrinkle_count * sizeof(uint32_t));
	to->wrinkle_deltas = joiner_copy(j, from->wrinkle_deltas, from->wrinkle_count * sizeof(float));
}

/* The part's controllers, rules and domination rules: those of a name the model has not. */
static void join_rig(joiner *j, smdmx_scene *dst, const smdmx_scene *src)
{
	smdmx_flex_controller *c = grown(j, dst->flex_controllers, dst->flex_controller_count, src->flex_controller_count,
	                                 sizeof(*c));
	smdmx_flex_rule *r = grown(j, dst->flex_rules, dst->flex_rule_count, src->flex_rule_count, sizeof(*r));
	smdmx_domination_rule *d = grown(j, dst->domination_rules, dst->domination_rule_count, src->domination_rule_count,
	                                 sizeof(*d));
	if (!j->ok) return;
	size_t nc = dst->flex_controller_count, nr = dst->flex_rule_count, nd = dst->domination_rule_count;
	for (size_t i = 0; i < src->flex_controller_count; i++) {
		const smdmx_flex_controller *x = &src->flex_controllers[i];
		bool there = false;
		for (size_t k = 0; k < nc && !there; k++) there = !strcmp(c[k].name, x->name);
		if (there) continue;
		c[nc] = *x;
		c[nc].name = text(j, x->name);
		copy_strings(j, &c[nc].raw_controls, &x->raw_controls);
		c[nc].wrinkle_scales.data = joiner_copy(j, x->wrinkle_scales.data, x->wrinkle_scales.count * sizeof(float));
		nc++;
	}
	for (size_t i = 0; i < src->flex_rule_count; i++) {
		const smdmx_flex_rule *x = &src->flex_rules[i];
		bool there = false;
		for (size_t k = 0; k < nr && !there; k++) there = !strcmp(r[k].name, x->name);
		if (there) continue;
		r[nr] = *x;
		r[nr].name = text(j, x->name);
		r[nr++].expression = text(j, x->expression);
	}
	for (size_t i = 0; i < src->domination_rule_count; i++) {
		copy_strings(j, &d[nd].dominators, &src->domination_rules[i].dominators);
		copy_strings(j, &d[nd++].suppressed, &src->domination_rules[i].suppressed);
	}
	dst->flex_controllers = c;
	dst->flex_controller_count = nc;
	dst->flex_rules = r;
	dst->flex_rule_count = nr;
	dst->domination_rules = d;
	dst->domination_rule_count = nd;
}

bool smdmx_scene_add_part(smdmx_scene *dst, const smdmx_scene *src, size_t *bind_differs, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!dst || !src) return sm_fail_null(error, __func__, !dst ? "dst" : "src");
	size_t spare = 0;
	if (!bind_differs) bind_differs = &spare;
	*bind_differs = 0;
	sm_owner *o = sm_scene_memory(dst, error);
	if (!o) return false;
	joiner j = { o, error, true };
	uint32_t *jmap = sm_owned_calloc(o, src->joint_count + 1, sizeof(uint32_t), error);
	uint32_t *mmap = sm_owned_calloc(o, src->material_count + 1, sizeof(uint32_t), error);
	if (!jmap || !mmap) return false;
	join_joints(&j, dst, src, jmap, bind_differs);
	size_t cap = dst->material_count;
	for (size_t i = 0; j.ok && i < src->material_count; i++) mmap[i] = material_of(&j, dst, src->materials[i].name, &cap);
	smdmx_mesh *meshes = grown(&j, dst->meshes, dst->mesh_count, src->mesh_count, sizeof(smdmx_mesh));
	for (size_t i = 0; j.ok && i < src->mesh_count; i++) mesh_copy(&j, &meshes[dst->mesh_count + i], &src->meshes[i], jmap, mmap);
	smdmx_flex_shape *shapes = grown(&j, dst->flex_shapes, dst->flex_shape_count, src->flex_shape_count, sizeof(smdmx_flex_shape));
	for (size_t i = 0; j.ok && i < src->flex_shape_count; i++)
		shape_copy(&j, &shapes[dst->flex_shape_count + i], &src->flex_shapes[i], (uint32_t)dst->mesh_count + src->flex_shapes[i].mesh);
	smdmx_attachment *atts = grown(&j, dst->attachments, dst->attachment_count, src->attachment_count, sizeof(smdmx_attachment));
	for (size_t i = 0; j.ok && i < src->attachment_count; i++) {
		smdmx_attachment *a = &atts[dst->attachment_count + i];
		*a = src->attachments[i];
		a->name = text(&j, a->name);
		if (a->parent_joint != SMDMX_NONE) a->parent_joint = jmap[a->parent_joint];
	}
	if (!j.ok) return false;
	/* the places of joints, materials and meshes in their files are the first part's only */
	dst->source.joint_lines = dst->source.material_lines = NULL;
	dst->source.joint_elements = dst->source.mesh_elements = NULL;
	dst->meshes = meshes;
	dst->mesh_count += src->mesh_count;
	dst->flex_shapes = shapes;
	dst->flex_shape_count += src->flex_shape_count;
	dst->attachments = atts;
	dst->attachment_count += src->attachment_count;
	join_rig(&j, dst, src);
	return j.ok && smdmx_scene_validate(dst, error);
}
