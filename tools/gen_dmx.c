/* gen_dmx: writes a large model-like keyvalues2 DMX for the benchmark, built through the
 * datamodel API: a DmeModel holding one mesh of a wavy grid of about TRIANGLES triangles
 * (vertex data arrays, index arrays, a face set), plus joints.
 *
 *   gen_dmx TRIANGLES OUT.dmx [binary]
 *
 * 1,000,000 triangles give about 190 MB of keyvalues2, or about 85 MB of binary 5.
 * Deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smdmx/smdmx.h"

static uint32_t elem(smdmx_dm *dm, const char *type, const char *name)
{
	smdmx_error e;
	uint32_t i = smdmx_dm_add_element(dm, type, name, NULL, &e);
	if (i == SMDMX_NONE) {
		fprintf(stderr, "gen_dmx: %s\n", e.message);
		exit(1);
	}
	return i;
}

static smdmx_dm_attr *attr(smdmx_dm *dm, uint32_t e, const char *name, smdmx_dm_type t, bool array, size_t n)
{
	smdmx_error err;
	smdmx_dm_attr *a = smdmx_dm_add_attr(dm, e, name, t, array, n, &err);
	if (!a) {
		fprintf(stderr, "gen_dmx: %s\n", err.message);
		exit(1);
	}
	return a;
}

int main(int argc, char **argv)
{
	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "binary"))) {
		fprintf(stderr, "usage: gen_dmx TRIANGLES OUT.dmx [binary]\n");
		return 2;
	}
	long tris = strtol(argv[1], NULL, 10);
	if (tris < 2) return 2;
	int w = (int)ceil(sqrt(tris / 2.0));
	size_t nv = (size_t)(w + 1) * (size_t)(w + 1), nt = (size_t)w * (size_t)w * 2, nc = nt * 3;
	smdmx_error err;
	smdmx_dm *dm = smdmx_dm_create(NULL, &err);
	dm->format = "model";
	dm->format_version = 18;
	uint32_t root = elem(dm, "DmElement", "grid");
	uint32_t model = elem(dm, "DmeModel", "grid");
	uint32_t dag = elem(dm, "DmeDag", "grid_mesh");
	uint32_t mesh = elem(dm, "DmeMesh", "grid_mesh");
	uint32_t vd = elem(dm, "DmeVertexData", "bind");
	uint32_t fs = elem(dm, "DmeFaceSet", "grid_material");
	uint32_t mat = elem(dm, "DmeMaterial", "grid_material");
	attr(dm, root, "skeleton", SMDMX_DM_ELEMENT, false, 0)->value.element = model;
	attr(dm, root, "model", SMDMX_DM_ELEMENT, false, 0)->value.element = model;
	uint32_t *children = attr(dm, model, "children", SMDMX_DM_ELEMENT, true, 1)->value.array.data;
	children[0] = dag;
	attr(dm, dag, "shape", SMDMX_DM_ELEMENT, false, 0)->value.element = mesh;
	attr(dm, mesh, "bindState", SMDMX_DM_ELEMENT, false, 0)->value.element = vd;
	attr(dm, mesh, "currentState", SMDMX_DM_ELEMENT, false, 0)->value.element = vd;
	((uint32_t *)attr(dm, mesh, "faceSets", SMDMX_DM_ELEMENT, true, 1)->value.array.data)[0] = fs;
	attr(dm, fs, "material", SMDMX_DM_ELEMENT, false, 0)->value.element = mat;
	attr(dm, mat, "mtlName", SMDMX_DM_STRING, false, 0)->value.s = "models/grid/grid_material";
	attr(dm, vd, "jointCount", SMDMX_DM_INT, false, 0)->value.i = 2;
	attr(dm, vd, "flipVCoordinates", SMDMX_DM_BOOL, false, 0)->value.b = true;
	float *pos = attr(dm, vd, "positions", SMDMX_DM_VECTOR3, true, nv)->value.array.data;
	float *nrm = attr(dm, vd, "normals", SMDMX_DM_VECTOR3, true, nv)->value.array.data;
	float *uv = attr(dm, vd, "textureCoordinates", SMDMX_DM_VECTOR2, true, nv)->value.array.data;
	float *jw = attr(dm, vd, "jointWeights", SMDMX_DM_FLOAT, true, nv * 2)->value.array.data;
	int32_t *ji = attr(dm, vd, "jointIndices", SMDMX_DM_INT, true, nv * 2)->value.array.data;
	for (size_t y = 0, k = 0; y <= (size_t)w; y++) {
		for (size_t x = 0; x <= (size_t)w; x++, k++) {
			double px = x * 160.0 / w, py = y * 160.0 / w, pz = 4.0 * sin(px * 0.1) * cos(py * 0.1);
			double nx = -0.4 * cos(px * 0.1) * cos(py * 0.1), ny = 0.4 * sin(px * 0.1) * sin(py * 0.1), l = sqrt(nx * nx + ny * ny + 1);
			pos[3 * k] = (float)px;
			pos[3 * k + 1] = (float)py;
			pos[3 * k + 2] = (float)pz;
			nrm[3 * k] = (float)(nx / l);
			nrm[3 * k + 1] = (float)(ny / l);
			nrm[3 * k + 2] = (float)(1 / l);
			uv[2 * k] = (float)x / w;
			uv[2 * k + 1] = (float)y / w;
			double b = px / 10.0;
			int b0 = (int)b > 14 ? 14 : (int)b;
			jw[2 * k] = (float)(1.0 - (b - b0 > 1 ? 1 : b - b0));
			jw[2 * k + 1] = 1.0f - jw[2 * k];
			ji[2 * k] = b0;
			ji[2 * k + 1] = b0 + 1;
		}
	}
	static const char *const index_names[3] = { "positionsIndices", "normalsIndices", "textureCoordinatesIndices" };
	int32_t *ix[3];
	for (int a = 0; a < 3; a++) ix[a] = attr(dm, vd, index_names[a], SMDMX_DM_INT, true, nc)->value.array.data;
	int32_t *faces = attr(dm, fs, "faces", SMDMX_DM_INT, true, nt * 4)->value.array.data;
	size_t c = 0, f = 0;
	for (size_t y = 0; y < (size_t)w; y++) {
		for (size_t x = 0; x < (size_t)w; x++) {
			int32_t v00 = (int32_t)(y * (w + 1) + x), v10 = v00 + 1, v01 = v00 + w + 1, v11 = v01 + 1;
			int32_t tri[6] = { v00, v10, v11, v00, v11, v01 };
			for (int t = 0; t < 6; t++) {
				for (int a = 0; a < 3; a++) ix[a][c] = tri[t];
				faces[f++] = (int32_t)c++;
				if (t % 3 == 2) faces[f++] = -1;
			}
		}
	}
	smdmx_dmx_write_options o = { .encoding = argc == 4 ? "binary" : NULL };
	if (!smdmx_dmx_write_file(dm, argv[2], &o, &err)) {
		fprintf(stderr, "gen_dmx: %s\n", err.message);
		return 1;
	}
	smdmx_dm_free(dm);
	return 0;
}
