/* The SMD writer for a scene the library has validated: smdmx_smd_write but for the
 * smdmx_scene_validate it runs first. For the layers above, whose scenes come straight from
 * the library's readers and scene operations, each of which validates what it returns
 * (doc/speed.md, "One validation"): a scene is validated once on its way through. */
#ifndef SMDMX_SMD_VALID_H
#define SMDMX_SMD_VALID_H

#include "smdmx/smd.h"

bool sm_smd_write_valid(const smdmx_scene *scene, smdmx_write_fn write, void *user, const smdmx_smd_write_options *options,
                        smdmx_error *error);

#endif
