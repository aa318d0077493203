/* The fields of a face corner, described once (smdmx_corner_field in scene.h). The DMX names
 * are DmeVertexData's (doc/formats.md, C7): format 22 renamed every field. */
#include "support/internal.h"

static const smdmx_corner_field_info fields[SMDMX_CORNER_FIELD_COUNT] = {
	[SMDMX_CORNER_POSITION] = { "position", { "positions", "position$0" }, 3, true, false },
	[SMDMX_CORNER_NORMAL] = { "normal", { "normals", "normal$0" }, 3, true, false },
	[SMDMX_CORNER_UV] = { "UV", { "textureCoordinates", "texcoord$0" }, 2, true, false },
	[SMDMX_CORNER_WEIGHT] = { "weight", { "jointWeights", "blendweights$0" }, 1, true, false },
	[SMDMX_CORNER_JOINT] = { "joint", { "jointIndices", "blendindices$0" }, 1, true, false },
	[SMDMX_CORNER_BALANCE] = { "balance", { "balance", "balance$0" }, 1, false, true },
	[SMDMX_CORNER_WRINKLE] = { "wrinkle", { "wrinkle", "wrinkle$0" }, 1, false, true },
};

const smdmx_corner_field_info *smdmx_corner_field_describe(smdmx_corner_field f)
{
	return (unsigned)f < SMDMX_CORNER_FIELD_COUNT ? &fields[f] : NULL;
}

bool smdmx_mesh_has_field(const smdmx_mesh *m, smdmx_corner_field f)
{
	if (!m) return false;
	switch (f) {
	case SMDMX_CORNER_POSITION: return true;
	case SMDMX_CORNER_NORMAL: return m->normal_indices != NULL;
	case SMDMX_CORNER_UV: return m->uv_set_count > 0;
	case SMDMX_CORNER_WEIGHT:
	case SMDMX_CORNER_JOINT: return m->weight_offsets != NULL;
	case SMDMX_CORNER_BALANCE: return m->balance.indices != NULL;
	case SMDMX_CORNER_WRINKLE: return m->wrinkle.indices != NULL;
	case SMDMX_CORNER_FIELD_COUNT: break;
	}
	return false;
}
