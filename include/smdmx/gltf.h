/* smdmx: a scene as glTF 2.0, for today's tools (Blender, Godot, Unity, three.js).
 *
 * What the scene holds, as glTF says it (doc/gltf.md): its joints as nodes under one root
 * node that turns Source's Z up into glTF's Y up (Source's -Y forward becomes glTF's +Z), a
 * skin over every joint with inverse bind matrices, each mesh with a primitive per material
 * (polygons as triangle fans in their stored winding), weights renormalised to 4 links per
 * vertex (or 8, in a second JOINTS and WEIGHTS set), flex shapes as morph targets (positions
 * and normals; their names in the mesh's extras.targetNames), each clip an animation of its
 * own keys (sparse keys kept, LINEAR), attachments as named nodes under their bones, a
 * material per source material by name. What glTF cannot hold is said in warnings with a
 * count: weight links past the limit, flex controllers and rules, stereo balance, wrinkle
 * data. */
#ifndef SMDMX_GLTF_H
#define SMDMX_GLTF_H
#include <stdbool.h>
#include <stddef.h>

#include "smdmx/error.h"
#include "smdmx/scene.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct smdmx_gltf_write_options {
	bool binary;                /* GLB: the JSON and its buffer in one binary file; else glTF
	                               JSON with the buffer inside it (a base64 data URI) */
	unsigned max_links;         /* weight links per vertex: 4 (0, the default) or 8 */
	const char *generator;      /* asset.generator; NULL: "smdmx" and its version */
	smdmx_allocator allocator;
} smdmx_gltf_write_options;

/* Writes scene (validated first) through write. The same scene gives the same bytes on every
 * system. False with error set when it cannot (an invalid scene, options refused:
 * SMDMX_ERROR_USAGE, out of memory, a write that failed). */
SMDMX_API bool smdmx_gltf_write(const smdmx_scene *scene, smdmx_write_fn write, void *user,
                                const smdmx_gltf_write_options *options, smdmx_error *error,
                                smdmx_warnings *warnings);

#ifdef __cplusplus
}
#endif
#endif
