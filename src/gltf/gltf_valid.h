/* The glTF writer for a scene the library has validated: smdmx_gltf_write but for the
 * smdmx_scene_validate it runs first, for the layers above whose scenes come straight from the
 * library's readers and scene operations (doc/speed.md, "One validation"). */
#ifndef SMDMX_GLTF_VALID_H
#define SMDMX_GLTF_VALID_H

#include "smdmx/gltf.h"

bool sm_gltf_write_valid(const smdmx_scene *scene, smdmx_write_fn write, void *user, const smdmx_gltf_write_options *options,
                         smdmx_error *error, smdmx_warnings *warnings);

#endif
