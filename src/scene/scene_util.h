/* Helpers over scenes shared by writers and the comparison. */
#ifndef SMDMX_SCENE_UTIL_H
#define SMDMX_SCENE_UTIL_H

#include "support/internal.h"

/* A polygon of a mesh: face set, polygon within it, and its first corner. */
typedef struct sm_poly_ref {
	uint32_t face_set;
	uint32_t polygon;
	uint32_t first;
} sm_poly_ref;

/* All polygons of a mesh ordered by their first corner: for a mesh read from an SMD this
 * is the order of the file's triangles, whatever the grouping into face sets. The array
 * is allocated with a (free with sm_free(a, *out, *count * sizeof(sm_poly_ref))). */
SM_NODISCARD bool sm_polygon_order(sm_alloc *a, const smdmx_mesh *m, sm_poly_ref **out, size_t *count);
/* Whether the face sets' polygons, one set after another, are in that order already. */
bool sm_polygons_in_order(const smdmx_mesh *m);

/* Interpolation between two keys at fraction f, as animations are sampled (decision 11):
 * positions linearly in double, orientations by shortest-path slerp, results in float32. */
void sm_lerp3(const float a[3], const float b[3], double f, float out[3]);
void sm_slerp(const float a[4], const float b[4], double f, float out[4]);

/* A channel's value at tick t: keys interpolated as above, the first and last held outside
 * their range; fallback when the channel has no keys of that kind. */
void sm_sample_position(const smdmx_channel *c, int32_t t, const float *fallback, float *out);
void sm_sample_orientation(const smdmx_channel *c, int32_t t, const float *fallback, float *out);

/* Marks correctives: a shape whose name splits at "__" (or, without "__", at '_') into two
 * or more names of other shapes ("smile_jaw" beside "smile" and "jaw"), as a DMX's
 * combination operator means them. A name with '_' whose parts are not ("flex_1",
 * "brow_raiser" beside no "brow") is a shape of its own. With keep, a shape already marked
 * stays so. Fails only when out of memory. */
SM_NODISCARD bool sm_mark_correctives(sm_alloc *a, smdmx_flex_shape *shapes, size_t n, bool keep);

/* The scene's raw controls in order (studiomdl's RebuildRawControlList: a name given twice is
 * the first's), each with its control and its place in it, found by name case aside (as
 * studiomdl finds a delta state's parts) in O(1). */
typedef struct sm_raws {
	const char **name;
	uint32_t *control, *local;
	size_t count;
	sm_alloc alloc;
	sm_names index;  /* lowered name -> raw */
	char *lowered;   /* the lowered names, one block */
	char *scratch;   /* a part lowered to be looked up: longest + 1 bytes */
	size_t longest;
} sm_raws;
/* Its memory through hooks (NULL: malloc). False when out of memory (r is then empty).
 * sm_raws_free releases it. */
SM_NODISCARD bool sm_raws_build(const smdmx_scene *s, const smdmx_allocator *hooks, sm_raws *r);
void sm_raws_free(sm_raws *r);
/* The first len bytes of a delta state's name split at '_' into raw controls: each part's
 * raw (at most cap). Returns the count, 0 when a part is no raw control or there are more
 * than cap. */
size_t sm_raws_parts(const sm_raws *r, const char *name, size_t len, uint32_t *out, size_t cap);
/* Whether studiomdl splits a delta state of this name (its first len bytes) by a stereo
 * control (IsDeltaStateStereo): every part a raw control, one of them a stereo control's. */
bool sm_raws_stereo(const smdmx_scene *s, const sm_raws *r, const char *name, size_t len);

/* Per mesh of s (out: s->mesh_count bytes), 1 when a stereo control uses its balance: one of
 * its shapes is split by it (sm_raws_stereo), or it is one of the halves of such a shape, its
 * name and "R" or "L", as a QC's rig writes a stereo shape no flexpair can say. *unused: how
 * many meshes hold a balance no stereo control uses (their balance changes no compiled
 * model), *corners their corners. Memory through hooks (NULL: malloc); false when it ran out. */
SM_NODISCARD bool sm_stereo_meshes(const smdmx_scene *s, const smdmx_allocator *hooks, uint8_t *out, size_t *unused,
                                   size_t *corners);

/* smdmx_scene_attach_vta, a QC's model: VTA vertices at no corner of ref but at a corner of
 * one of others (the QC's other body parts: a VTA made of the whole character) are said apart,
 * as nothing to do. */
SM_NODISCARD bool sm_scene_attach_vta_among(smdmx_scene *ref, const smdmx_scene *vta, const smdmx_scene *const *others,
                                            size_t other_count, smdmx_error *error, smdmx_warnings *warnings);

/* A mesh that follows its own node (doc/format-notes.md, "A mesh that follows its own node"):
 * in a model with joints (not a VTA's), a mesh with corners and without a parent joint whose
 * vertices, all or some, have no weight (as a DMX holds an object without an armature beside an
 * armature, or vertices weighted to the model itself, which is no bone). studiomdl makes its
 * node a bone of its own (a root, at the node's transform, that nothing animates) and binds
 * those vertices to it. */
bool sm_own_bones_follows(const smdmx_scene *s, const smdmx_mesh *m);
/* Those bones of a scene, after its joints: count of them; of_mesh, per mesh, its bone among
 * them (SMDMX_NONE: none); mesh, per bone, its mesh; name, per bone, the mesh's name, or with
 * "_mesh", "_mesh2"... where a joint or an earlier such bone has it, case aside (as studiomdl
 * finds bones). One answer for the SMD writer and the comparison. False when out of memory;
 * sm_own_bones_free releases it. */
typedef struct sm_own_bones {
	sm_owner *mem;
	size_t count;
	uint32_t *of_mesh, *mesh;
	const char **name;
} sm_own_bones;
SM_NODISCARD bool sm_own_bones_find(const smdmx_scene *s, const smdmx_allocator *allocator, sm_own_bones *b);
void sm_own_bones_free(sm_own_bones *b);

#endif
