/* Fuzz target: the SMD and VTA reader, and every writer on what it accepts. A VTA read is
 * also matched to a small fixed reference, and a reference read to a small fixed VTA (whose
 * numbers are not the corners'), so that the matching runs on fuzzed data both ways; a
 * reference is then diffed (fuzz_diff_scene). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

static const char fixed_reference[] =
    "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n"
    "a\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\n"
    "b\n0 0 0 0 0 0 -1 0 0\n0 0 1 0 0 0 -1 0 1\n0 -1 0 0 0 0 -1 1 0\nend\n";

static const char fixed_vta[] =
    "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1 # a\ntime 2 # b\nend\nvertexanimation\ntime 0\n"
    "3 0 0 0 0 0 1\n1 1 0 0 0 0 1\n2 0 1 0 0 0 1\n0 0 0 0 0 0 -1\n4 0 1 0 0 0 -1\n5 -1 0 0 0 0 -1\n9 0.1 0 0 0 0 1\n"
    "time 1\n3 0 0 1 0 0 1\n0 0 0 -1 0 0 -1\ntime 2\n9 0.1 0 2 0 0 1\nend\n";

static void attach(smdmx_scene *ref, const smdmx_scene *vta)
{
	smdmx_error err;
	FUZZ_WARNINGS(w);
	if (!ref || !vta) return;
	if (smdmx_scene_attach_vta(ref, vta, &err, &w)) fuzz_write_scene(ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smdmx_error err;
	FUZZ_WARNINGS(w);
	smdmx_smd_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.limits = fuzz_limits();
	smdmx_scene *s = smdmx_smd_read_memory(data, size, &ro, &err, &w);
	if (s) {
		if (!smdmx_scene_validate(s, &err)) abort(); /* the reader only returns valid scenes */
		fuzz_write_scene(s);
		if (s->source.format == SMDMX_SOURCE_VTA) {
			smdmx_scene *ref = smdmx_smd_read_memory(fixed_reference, sizeof(fixed_reference) - 1, NULL, &err, NULL);
			attach(ref, s);
			smdmx_scene_free(ref);
		} else if (s->mesh_count) {
			smdmx_scene *vta = smdmx_smd_read_memory(fixed_vta, sizeof(fixed_vta) - 1, NULL, &err, NULL);
			attach(s, vta);
			smdmx_scene_free(vta);
			fuzz_diff_scene(s);
		}
		smdmx_scene_free(s);
	}
	return 0;
}
