/* The DmeModel calls of the conversions (src/project/convert.c), which know more of their
 * datamodels and scenes than an embedder's call does: a datamodel freed once lifted, a scene
 * the library has validated (doc/speed.md, "One validation", "Arrays adopted, not copied"). */
#ifndef SMDMX_MODEL_VALID_H
#define SMDMX_MODEL_VALID_H

#include "smdmx/model.h"

/* smdmx_model_to_scene for a datamodel its caller frees next: the scene takes the big arrays
 * it can use as they are (positions, normals, UVs, index arrays, deltas) instead of copying
 * them, and dm keeps what is left (doc/speed.md, "Arrays adopted, not copied"). */
smdmx_scene *sm_model_to_scene_taking(smdmx_dm *dm, const smdmx_model_options *options, smdmx_error *error,
                                      smdmx_warnings *warnings);

smdmx_dm *sm_model_from_valid_scene(const smdmx_scene *scene, const smdmx_model_options *options, smdmx_error *error,
                                    smdmx_warnings *warnings);

/* The same for a scene its caller frees next: the datamodel takes the big arrays it holds as
 * they are (positions, normals, UVs, balance, wrinkle, deltas and their index arrays) instead
 * of copying them. The scene's arrays stay readable until the datamodel is freed. */
smdmx_dm *sm_model_from_valid_scene_taking(smdmx_scene *scene, const smdmx_model_options *options, smdmx_error *error,
                                           smdmx_warnings *warnings);

#endif
