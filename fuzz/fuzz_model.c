/* Fuzz target: the DMX model lift (datamodel to scene) from DMX in either encoding, then
 * every writer on the scene, and the diff (a scene is the same as itself; every vertex moved
 * and the model turned, compared without failing). The lift dmx2smd uses, which takes the
 * datamodel's arrays (every one, here), gives the same scene or fails the same way. */
#include <stdio.h>
#include <stdlib.h>

#include "support/internal.h" /* sm_adopt_min */
#include "model/model_valid.h" /* sm_model_to_scene_taking */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smdmx_error err;
	FUZZ_WARNINGS(w);
	smdmx_dm *dm = smdmx_dmx_read_memory(data, size, NULL, &err, NULL);
	if (!dm) return 0;
	smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, &w);
	smdmx_dm_free(dm);
	sm_adopt_min = 1;
	smdmx_error terr;
	smdmx_dm *again = smdmx_dmx_read_memory(data, size, NULL, &terr, NULL);
	if (!again) abort(); /* it read the first time */
	smdmx_scene *t = sm_model_to_scene_taking(again, NULL, &terr, NULL);
	smdmx_dm_free(again);
	if (!s != !t || (!s && (err.code != terr.code || strcmp(err.message, terr.message)))) abort();
	if (s) {
		char diff[256];
		smdmx_compare_options exact = { .flex_controls = true };
		/* (a scene the comparison refuses, as one of too many frames, it refuses with itself) */
		if (!smdmx_scene_compare(s, t, &exact, diff, sizeof(diff), NULL) && smdmx_scene_compare(s, s, &exact, diff, sizeof(diff), NULL))
			abort();
		smdmx_scene_free(t);
	}
	if (s) {
		if (!smdmx_scene_validate(s, &err)) abort(); /* the lift only returns valid scenes */
		fuzz_write_scene(s);
		fuzz_diff_scene(s);
		smdmx_scene_free(s);
	}
	return 0;
}
