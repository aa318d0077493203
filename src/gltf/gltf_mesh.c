/* A scene mesh as a glTF mesh: its corners as vertices (positions, normals, UV sets, joints
 * and weights), its flex shapes as morph targets, a primitive per material. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf/gltf_internal.h"
#include "support/num.h"

/* ---- meshes --------------------------------------------------------------------------------- */

/* The joints and weights of position p of mesh m, at most w->max_links, strongest first
 * (ties: the lower joint), joints given twice summed, renormalised; 8 of each (the second
 * four zero unless max_links is 8). Links past the limit counted in *cut. */
static void links_of(gw *w, const smdmx_mesh *m, uint32_t p, uint32_t *j, double *v, uint16_t joints[8], float weights[8],
                     bool *cut)
{
	size_t n = 0;
	for (uint32_t i = m->weight_offsets[p]; i < m->weight_offsets[p + 1]; i++) {
		size_t k = 0;
		while (k < n && j[k] != m->weights[i].joint) k++;
		if (k == n) j[n] = m->weights[i].joint, v[n++] = 0;
		v[k] += m->weights[i].weight;
	}
	for (size_t a = 1; a < n; a++) /* strongest first, stable */
		for (size_t b = a; b > 0 && (v[b] > v[b - 1] || (v[b] == v[b - 1] && j[b] < j[b - 1])); b--) {
			uint32_t tj = j[b];
			double tv = v[b];
			j[b] = j[b - 1], v[b] = v[b - 1];
			j[b - 1] = tj, v[b - 1] = tv;
		}
	while (n && !(v[n - 1] > 0)) n--; /* links of no weight hold nothing */
	if (n > w->max_links) {
		*cut = true;
		n = w->max_links;
	}
	double sum = 0;
	for (size_t k = 0; k < n; k++) sum += v[k];
	memset(joints, 0, 8 * sizeof(uint16_t));
	memset(weights, 0, 8 * sizeof(float));
	if (!n) { /* no link: the mesh's own bone, else the first */
		w->unweighted++;
		joints[0] = (uint16_t)(m->parent_joint != SMDMX_NONE ? m->parent_joint : 0);
		weights[0] = 1;
		return;
	}
	for (size_t k = 0; k < n; k++) {
		joints[k] = (uint16_t)j[k];
		weights[k] = (float)(v[k] / sum);
	}
}

/* A mesh's pieces of JSON, made before they are put together. */
typedef struct mesh_text {
	gbuf attrs, targets, names, prims;
	size_t target_count;
} mesh_text;

/* The vertex attributes of mesh m (its corners) into t->attrs; pos is room for 3 floats a
 * corner. place: where a skinned mesh's vertices are baked to (bake). */
static bool write_vertices(gw *w, const smdmx_mesh *m, bool skinned, const rigid *place, bool bake, float *pos, mesh_text *t)
{
	size_t nc = m->corner_count;
	float *nrm = m->normal_indices ? gl_scratch(w, nc * 3 * sizeof(float)) : NULL;
	if (w->oom) return false;
	for (size_t c = 0; c < nc; c++) {
		const float *p = m->positions[m->position_indices[c]];
		double v[3] = { p[0], p[1], p[2] };
		if (bake) {
			gl_quat_rotate(place->q, v, v);
			for (int k = 0; k < 3; k++) v[k] += place->t[k];
		}
		for (int k = 0; k < 3; k++) pos[c * 3 + k] = (float)v[k];
		if (!nrm) continue;
		const float *q = m->normals[m->normal_indices[c]];
		double n[3] = { q[0], q[1], q[2] };
		if (bake) gl_quat_rotate(place->q, n, n);
		double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		/* glTF's normals are unit length: one that is not (past float rounding) made so, none
		 * written up; each counted */
		w->normals_zero += !(len > 0);
		w->normals_scaled += len > 0 && fabs(len - 1) > 1e-3;
		for (int k = 0; k < 3; k++) nrm[c * 3 + k] = len > 0 ? (float)(n[k] / len) : k == 2 ? 1.0f : 0.0f;
	}
	gl_puts(w, &t->attrs, "\"POSITION\":");
	gl_put_uint(w, &t->attrs, gl_add_floats(w, pos, nc, 3, true, GL_ARRAY_BUFFER));
	if (nrm) {
		gl_puts(w, &t->attrs, ",\"NORMAL\":");
		gl_put_uint(w, &t->attrs, gl_add_floats(w, nrm, nc, 3, false, GL_ARRAY_BUFFER));
	}
	float *uv = gl_scratch(w, nc * 2 * sizeof(float));
	for (size_t u = 0; uv && u < m->uv_set_count; u++) {
		const smdmx_uv_set *set = &m->uv_sets[u];
		for (size_t c = 0; c < nc; c++) { /* glTF's V runs down the image, Source's up */
			uv[c * 2] = set->data[set->indices[c]][0];
			uv[c * 2 + 1] = 1.0f - set->data[set->indices[c]][1];
		}
		gl_puts(w, &t->attrs, ",\"TEXCOORD_");
		gl_put_uint(w, &t->attrs, u);
		gl_puts(w, &t->attrs, "\":");
		gl_put_uint(w, &t->attrs, gl_add_floats(w, uv, nc, 2, false, GL_ARRAY_BUFFER));
	}
	if (!skinned || w->oom) return !w->oom;
	size_t most = 1; /* the most links of a position: the room to sort them in */
	for (size_t p = 0; m->weight_offsets && p < m->position_count; p++)
		if (m->weight_offsets[p + 1] - m->weight_offsets[p] > most) most = m->weight_offsets[p + 1] - m->weight_offsets[p];
	uint16_t *joints = gl_scratch(w, nc * w->max_links * sizeof(uint16_t));
	float *weights = gl_scratch(w, nc * w->max_links * sizeof(float));
	bool *cut = gl_scratch(w, m->position_count);
	uint32_t *sj = gl_scratch(w, most * sizeof(uint32_t));
	double *sv = gl_scratch(w, most * sizeof(double));
	if (w->oom) return false;
	memset(cut, 0, m->position_count);
	for (size_t c = 0; c < nc; c++) {
		uint32_t p = m->position_indices[c];
		uint16_t jj[8] = { 0 };
		float ww[8] = { 0 };
		if (m->weight_offsets) links_of(w, m, p, sj, sv, jj, ww, &cut[p]);
		else jj[0] = (uint16_t)m->parent_joint, ww[0] = 1; /* a mesh on its bone */
		for (size_t set = 0; set < w->max_links / 4; set++)
			for (size_t k = 0; k < 4; k++) {
				joints[set * nc * 4 + c * 4 + k] = jj[set * 4 + k];
				weights[set * nc * 4 + c * 4 + k] = ww[set * 4 + k];
			}
	}
	for (size_t p = 0; p < m->position_count; p++) w->links_cut += cut[p];
	for (size_t set = 0; set < w->max_links / 4; set++) {
		gl_puts(w, &t->attrs, set ? ",\"JOINTS_1\":" : ",\"JOINTS_0\":");
		gl_put_uint(w, &t->attrs, gl_add_uints(w, joints + set * nc * 4, nc, 4, GL_UNSIGNED_SHORT, GL_ARRAY_BUFFER));
		gl_puts(w, &t->attrs, set ? ",\"WEIGHTS_1\":" : ",\"WEIGHTS_0\":");
		gl_put_uint(w, &t->attrs, gl_add_floats(w, weights + set * nc * 4, nc, 4, false, GL_ARRAY_BUFFER));
	}
	return !w->oom;
}

/* Mesh mi's flex shapes as morph targets (dense deltas a corner; normals for all of them
 * when one has some and the mesh has normals) into t->targets and their names into t->names. */
static bool write_targets(gw *w, uint32_t mi, const rigid *place, bool bake, float *pos, mesh_text *t)
{
	const smdmx_scene *s = w->s;
	const smdmx_mesh *m = &s->meshes[mi];
	size_t nc = m->corner_count;
	bool shape_normals = false;
	for (size_t f = 0; f < s->flex_shape_count; f++)
		shape_normals |= s->flex_shapes[f].mesh == mi && s->flex_shapes[f].normal_count && m->normal_indices;
	size_t most = m->position_count > m->normal_count ? m->position_count : m->normal_count;
	float *dense = gl_scratch(w, most * 3 * sizeof(float));
	for (size_t f = 0; dense && f < s->flex_shape_count; f++) {
		const smdmx_flex_shape *fs = &s->flex_shapes[f];
		if (fs->mesh != mi) continue;
		for (int kind = 0; kind < (shape_normals ? 2 : 1); kind++) {
			memset(dense, 0, most * 3 * sizeof(float));
			const uint32_t *idx = kind ? fs->normal_indices : fs->position_indices;
			const float *d = (const float *)(kind ? (const void *)fs->normal_deltas : (const void *)fs->position_deltas);
			for (size_t i = 0; i < (kind ? fs->normal_count : fs->position_count); i++) {
				double v[3] = { d[i * 3], d[i * 3 + 1], d[i * 3 + 2] };
				if (bake) gl_quat_rotate(place->q, v, v);
				for (int k = 0; k < 3; k++) dense[idx[i] * 3 + k] = (float)v[k];
			}
			const uint32_t *of = kind ? m->normal_indices : m->position_indices;
			for (size_t c = 0; c < nc; c++) memcpy(&pos[c * 3], &dense[of[c] * 3], 3 * sizeof(float));
			gl_puts(w, &t->targets, kind ? ",\"NORMAL\":" : t->target_count ? ",{\"POSITION\":" : "{\"POSITION\":");
			gl_put_uint(w, &t->targets, gl_add_floats(w, pos, nc, 3, !kind, GL_ARRAY_BUFFER));
		}
		gl_puts(w, &t->targets, "}");
		gl_comma(w, &t->names);
		gl_put_string(w, &t->names, fs->name);
		t->target_count++;
	}
	return !w->oom;
}

/* Mesh mi's primitives, a material's polygons each as triangle fans, into t->prims. */
static bool write_primitives(gw *w, const smdmx_mesh *m, mesh_text *t)
{
	size_t tri_count = 0;
	for (size_t k = 0; k < m->face_set_count; k++) tri_count += m->face_sets[k].corner_count - 2 * m->face_sets[k].polygon_count;
	bool wide = m->corner_count > 65535;
	void *tri = gl_scratch(w, tri_count * 3 * (wide ? 4 : 2));
	for (size_t k = 0; tri && k < m->face_set_count; k++) {
		const smdmx_face_set *fs = &m->face_sets[k];
		size_t n = 0;
		for (size_t p = 0; p < fs->polygon_count; p++)
			for (uint32_t c = fs->offsets[p] + 1; c + 1 < fs->offsets[p + 1]; c++) {
				uint32_t v[3] = { fs->corners[fs->offsets[p]], fs->corners[c], fs->corners[c + 1] };
				for (int q = 0; q < 3; q++, n++) {
					if (wide) ((uint32_t *)tri)[n] = v[q];
					else ((uint16_t *)tri)[n] = (uint16_t)v[q];
				}
			}
		if (!n) continue;
		gl_comma(w, &t->prims);
		gl_puts(w, &t->prims, "{\"attributes\":{");
		gl_put(w, &t->prims, t->attrs.data, t->attrs.len);
		gl_puts(w, &t->prims, "},\"indices\":");
		gl_put_uint(w, &t->prims, gl_add_uints(w, tri, n, 1, wide ? GL_UNSIGNED_INT : GL_UNSIGNED_SHORT, GL_ELEMENT_ARRAY_BUFFER));
		gl_puts(w, &t->prims, ",\"material\":");
		gl_put_uint(w, &t->prims, fs->material);
		if (t->target_count) {
			gl_puts(w, &t->prims, ",\"targets\":[");
			gl_put(w, &t->prims, t->targets.data, t->targets.len);
			gl_puts(w, &t->prims, "]");
		}
		gl_puts(w, &t->prims, "}");
	}
	return !w->oom;
}

/* Mesh mi as a glTF mesh: false when memory ran out. */
bool gl_write_mesh(gw *w, uint32_t mi)
{
	const smdmx_mesh *m = &w->s->meshes[mi];
	bool skinned = w->skinned[mi];
	/* a skinned mesh's vertices in model space: its place baked in */
	rigid place = gl_rigid_of(&m->transform);
	if (m->parent_joint != SMDMX_NONE) place = gl_rigid_then(&w->global[m->parent_joint], &place);
	bool bake = skinned && !gl_rigid_identity(&place);
	mesh_text t;
	memset(&t, 0, sizeof(t));
	float *pos = gl_scratch(w, m->corner_count * 3 * sizeof(float));
	bool ok = pos && write_vertices(w, m, skinned, &place, bake, pos, &t) && write_targets(w, mi, &place, bake, pos, &t) &&
	          write_primitives(w, m, &t);
	if (ok) {
		gl_comma(w, &w->meshes);
		gl_puts(w, &w->meshes, "{\"name\":");
		gl_put_string(w, &w->meshes, m->name ? m->name : "");
		gl_puts(w, &w->meshes, ",\"primitives\":[");
		gl_put(w, &w->meshes, t.prims.data, t.prims.len);
		gl_puts(w, &w->meshes, "]");
		if (t.target_count) {
			gl_puts(w, &w->meshes, ",\"weights\":[");
			for (size_t k = 0; k < t.target_count; k++) gl_puts(w, &w->meshes, k ? ",0" : "0");
			gl_puts(w, &w->meshes, "],\"extras\":{\"targetNames\":[");
			gl_put(w, &w->meshes, t.names.data, t.names.len);
			gl_puts(w, &w->meshes, "]}");
		}
		gl_puts(w, &w->meshes, "}");
	}
	gl_scratch_free(w);
	gl_gbuf_free(w, &t.attrs);
	gl_gbuf_free(w, &t.targets);
	gl_gbuf_free(w, &t.names);
	gl_gbuf_free(w, &t.prims);
	return ok && !w->oom;
}
