/* The DmeModel lowering for a scene the library has validated: smdmx_model_from_scene but for
 * the smdmx_scene_validate it runs first. For the layers above, whose scenes come straight
 * from the library's readers and scene operations, each of which validates what it returns
 * (doc/speed.md, "One validation"): a scene is validated once on its way through. */
#ifndef SMDMX_MODEL_VALID_H
#define SMDMX_MODEL_VALID_H

#include "smdmx/model.h"

smdmx_dm *sm_model_from_valid_scene(const smdmx_scene *scene, const smdmx_model_options *options, smdmx_error *error,
                                    smdmx_warnings *warnings);

#endif
