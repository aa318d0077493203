/* Fuzz target: the SMD and VTA reader, and every writer on what it accepts. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smdmx_error err;
	smdmx_warnings w;
	smdmx_smd_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.limits = fuzz_limits();
	smdmx_scene *s = smdmx_smd_read_memory(data, size, &ro, &err, &w);
	if (s) {
		if (!smdmx_scene_validate(s, &err)) abort(); /* the reader only returns valid scenes */
		fuzz_write_scene(s);
		smdmx_scene_free(s);
	}
	return 0;
}
