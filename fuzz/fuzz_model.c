/* Fuzz target: the DMX model lift (datamodel to scene) from DMX in either encoding, then
 * every writer on the scene, and the diff (a scene is the same as itself; every vertex moved
 * and the model turned, compared without failing). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smdmx_error err;
	smdmx_warnings w;
	smdmx_dm *dm = smdmx_dmx_read_memory(data, size, NULL, &err, NULL);
	if (!dm) return 0;
	smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, &w);
	smdmx_dm_free(dm);
	if (s) {
		if (!smdmx_scene_validate(s, &err)) abort(); /* the lift only returns valid scenes */
		fuzz_write_scene(s);
		fuzz_diff_scene(s);
		smdmx_scene_free(s);
	}
	return 0;
}
