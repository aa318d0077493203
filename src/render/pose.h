/* Where a scene's vertices and joints are: in the bind pose or a clip's frame, a flex shape
 * applied or not, in model space (Source's Z up, the scene's own units). */
#ifndef SM_POSE_H
#define SM_POSE_H

#include "render.h"

/* A rigid transform: rotation r (row-major) and translation t. */
typedef struct sm_xform {
	double r[3][3];
	double t[3];
} sm_xform;

/* The pose of every joint in model space: bind (the joints' bind transforms) and, for a clip
 * at tick, posed; joints without a channel keep their bind transform. */
typedef struct sm_pose {
	sm_xform *bind, *posed;
	sm_xform *skin;  /* posed after the bind's inverse: a bind-pose point to its posed place */
	size_t count;
} sm_pose;

/* clip may be NULL (posed = bind). */
RD_NODISCARD bool sm_pose_make(const smdmx_scene *s, const smdmx_clip *clip, int32_t tick, sm_pose *out);
void sm_pose_free(sm_pose *p);

/* The model-space positions of mesh m's positions (m->position_count of them, into out):
 * shape's deltas (a shape of this mesh, or NULL) added in the mesh's space, then the mesh's
 * transform under its joint, then skinned by its weights from the bind pose to the posed
 * one. */
void sm_pose_mesh(const smdmx_scene *s, const sm_pose *p, uint32_t m, const smdmx_flex_shape *shape, float (*out)[3]);

/* x applied to v. */
void sm_xform_apply(const sm_xform *x, const double v[3], double out[3]);

#endif
