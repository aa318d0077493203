/* smdmx: the DMX "model" schema (DmeModel) over the datamodel: scenes into model and
 * animation datamodels and back. */
#ifndef SMDMX_MODEL_H
#define SMDMX_MODEL_H

#include "smdmx/dm.h"
#include "smdmx/error.h"
#include "smdmx/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct smdmx_model_options {
	smdmx_allocator allocator;
	int model_version;      /* written model format: 1, 15, 18 (default) or 22 */
	bool all_keys;          /* write every animation key; by default keys that interpolating
	                           their neighbours reproduces are left out (decision 11) */
	double key_tolerance;   /* 0: reproduce exactly (float32); else units and quaternion
	                           components a left-out key may be off by, for smaller files */
} smdmx_model_options;

/* A model (and animation) datamodel from a scene, in the given model format (C, D). More
 * weight links than the format allows (3; 4 in 22) keep their largest, renormalised, with
 * a warning (decision 6). */
SMDMX_API smdmx_dm *smdmx_model_from_scene(const smdmx_scene *scene, const smdmx_model_options *options,
                                           smdmx_error *error, smdmx_warnings *warnings);

/* A scene from a model or animation datamodel of format 1, 15, 18 or 22. The scene owns
 * its memory: the datamodel may be freed afterwards. */
SMDMX_API smdmx_scene *smdmx_model_to_scene(const smdmx_dm *dm, const smdmx_model_options *options, smdmx_error *error,
                                            smdmx_warnings *warnings);

#ifdef __cplusplus
}
#endif

#endif
