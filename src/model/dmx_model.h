/* The DmeModel conversions' shared parts, private to src/model: the vertex fields' names,
 * the lifting's state and its readers of attributes, and the functions the lowering
 * (dmx_lower.c) and the lifting (dmx_lift.c, dmx_lift_mesh.c) share. */
#ifndef SMDMX_MODEL_DMX_MODEL_H
#define SMDMX_MODEL_DMX_MODEL_H

#include <string.h>

#include "dmx/dm_build.h"
#include "scene/scene_util.h"
#include "smdmx/model.h"

/* A vertex field's DmeVertexData name (C7): newer 0 before model format 22, 1 from 22. */
static inline const char *sm_model_field(int newer, smdmx_corner_field f)
{
	return smdmx_corner_field_describe(f)->dmx_names[newer];
}
extern const smdmx_transform sm_model_identity;

/* In a lifted mesh's joint table: the DmeModel itself, a slot weights may name but no joint. */
#define MODEL_SLOT (UINT32_MAX - 1)

typedef struct lift {
	const smdmx_dm *dm;
	smdmx_scene *s;
	sm_owner *o;
	smdmx_error *error;
	smdmx_warnings *warnings;
	sm_vec joints;      /* smdmx_joint */
	sm_vec joint_of;    /* uint32_t per dm element: scene joint, or SMDMX_NONE */
	sm_vec xf_joint;    /* uint32_t per dm element: the joint whose transform it is */
	sm_vec meshes;      /* smdmx_mesh */
	sm_vec mesh_dags;   /* uint32_t dm element per scene mesh */
	sm_vec materials;   /* smdmx_material */
	sm_vec shapes;      /* smdmx_flex_shape */
	sm_vec attachments; /* smdmx_attachment */
	sm_names mat_names; /* material name to scene material */
	size_t turned;      /* orientations that were not unit quaternions (dmx_lift.c) */
	double turned_min, turned_max; /* their norms */
	size_t lost_fields; /* vertex data fields not carried, over all meshes */
	const char *lost_names[4]; /* the first few, by name */
	size_t lost_named;
	size_t file_corners; /* the mesh being lifted: its corners as the file's index arrays hold them */
	size_t unused_corners, unused_count; /* meshes with corners left out (used_corners), and those corners */
	const char *unused_first;            /* the first such mesh */
	sm_adopt *adopt;    /* the datamodel's arrays the scene may take (sm_model_to_scene_taking), or NULL */
	uint8_t *face_set_refs; /* per element: the DmeMeshes naming it as a face set, up to 2 (dmx_lift_mesh.c) */
} lift;

static inline const smdmx_dm_attr *get(const lift *l, uint32_t e, const char *name)
{
	return e == SMDMX_NONE ? NULL : smdmx_dm_find_attr(l->dm, e, name);
}

/* An element of this file: a stub (an element of another file, kept by id) is no element to
 * a conversion, as it is none to Valve's tools, which never loaded it. */
static inline bool lift_el(const lift *l, uint32_t e)
{
	return e != SMDMX_NONE && e < l->dm->element_count && !l->dm->elements[e].stub;
}

static inline uint32_t get_el(const lift *l, uint32_t e, const char *name)
{
	const smdmx_dm_attr *a = get(l, e, name);
	return a && a->type == SMDMX_DM_ELEMENT && !a->is_array && lift_el(l, a->value.element) ? a->value.element : SMDMX_NONE;
}

static inline const uint32_t *get_els(const lift *l, uint32_t e, const char *name, size_t *n)
{
	const smdmx_dm_attr *a = get(l, e, name);
	if (!a || a->type != SMDMX_DM_ELEMENT || !a->is_array) {
		*n = 0;
		return NULL;
	}
	*n = a->value.array.count;
	return a->value.array.data;
}

static inline const void *get_array(const lift *l, uint32_t e, const char *name, smdmx_dm_type t, size_t *n)
{
	const smdmx_dm_attr *a = get(l, e, name);
	if (!a || a->type != t || !a->is_array) {
		*n = 0;
		return NULL;
	}
	*n = a->value.array.count;
	return a->value.array.data;
}

static inline bool has_array(const lift *l, uint32_t e, const char *name, smdmx_dm_type t)
{
	const smdmx_dm_attr *a = get(l, e, name);
	return a && a->type == t && a->is_array;
}

static inline bool is_type(const lift *l, uint32_t e, const char *type)
{
	return e != SMDMX_NONE && e < l->dm->element_count && strcmp(l->dm->elements[e].type, type) == 0;
}

static inline bool bad_model(const lift *l, const char *what)
{
	return sm_fail(l->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "not a usable model: %s", what);
}

static inline void read_transform(const lift *l, uint32_t x, smdmx_transform *t)
{
	*t = sm_model_identity;
	const smdmx_dm_attr *p = get(l, x, "position"), *o = get(l, x, "orientation");
	if (p && p->type == SMDMX_DM_VECTOR3 && !p->is_array) memcpy(t->position, p->value.v, 3 * sizeof(float));
	if (o && o->type == SMDMX_DM_QUATERNION && !o->is_array) memcpy(t->orientation, o->value.v, 4 * sizeof(float));
}

/* The array items of an element. */
static inline uint64_t array_items(const lift *l, uint32_t e)
{
	uint64_t items = 0;
	if (e == SMDMX_NONE || e >= l->dm->element_count) return 0;
	const smdmx_dm_element *el = &l->dm->elements[e];
	for (size_t a = 0; a < el->attr_count; a++)
		if (el->attrs[a].is_array) items += el->attrs[a].value.array.count;
	return items;
}

/* Lifting a mesh (dmx_lift_mesh.c): the mi-th of l->meshes, whose weights name joints through
 * table (jointIndices to scene joints; MODEL_SLOT, SMDMX_NONE); then, over every shape lifted,
 * which are correctives (named after the shapes that drive them). */
bool mdl_lift_mesh(lift *l, size_t mi, const uint32_t *table, size_t table_count);
bool mdl_mark_correctives(lift *l);

#endif
