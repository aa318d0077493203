/* The DmeModel schema (doc/formats.md C, D), lifting a mesh: its vertex data (positions,
 * normals, UV sets, balance, wrinkle, weights), face sets and delta states. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dmx_model.h"

/* bytes at src for the scene: the datamodel's own array where the scene may take it
 * (sm_model_to_scene_taking: doc/speed.md, "Arrays adopted, not copied"), else a copy. NULL
 * when out of memory. */
static void *take_or_copy(lift *l, const void *src, size_t bytes)
{
	if (l->adopt && bytes && sm_adopt_take(l->adopt, src)) return (void *)(uintptr_t)src;
	void *p = sm_owned_alloc(l->o, bytes + 1, l->error);
	if (p && bytes) memcpy(p, src, bytes);
	return p;
}

/* n indices below bound, as the scene's: an int32 of 0 or more is the uint32 of its value. */
static bool copy_indices(lift *l, const int32_t *src, size_t n, size_t bound, uint32_t **out)
{
	for (size_t i = 0; i < n; i++)
		if (src[i] < 0 || (size_t)src[i] >= bound) return bad_model(l, "a vertex index out of range");
	*out = take_or_copy(l, src, n * sizeof(uint32_t));
	return *out != NULL;
}

/* The scene material of a DmeMaterial, by name: face sets with one name share it. */
static uint32_t material_index(lift *l, uint32_t mat_el)
{
	const char *name = "no_material";
	if (lift_el(l, mat_el)) {
		const smdmx_dm_attr *a = get(l, mat_el, "mtlName");
		name = a && a->type == SMDMX_DM_STRING && !a->is_array ? a->value.s : l->dm->elements[mat_el].name;
	}
	uint32_t known = sm_names_get(&l->mat_names, name);
	if (known != SMDMX_NONE) return known;
	smdmx_material *m = sm_vec_push(l->o, &l->materials, sizeof(*m), l->error);
	if (!m) return SMDMX_NONE;
	m->name = name;
	if (!sm_names_put(&l->o->alloc, &l->mat_names, name, (uint32_t)l->materials.count - 1, true))
		return sm_fail_oom(l->error), SMDMX_NONE;
	return (uint32_t)l->materials.count - 1;
}

/* A corrective (combination) shape is named by joining the shapes that drive it with '_'
 * ('__' in ModelDoc's files: doc/formats.md C10): a name whose parts are all names of other
 * shapes of the model. A name with '_' whose parts are not ("flex_1", "brow_raiser" beside
 * no "brow" and "raiser") is a shape of its own. */
bool mdl_mark_correctives(lift *l)
{
	return sm_mark_correctives(&l->o->alloc, l->shapes.data, l->shapes.count, true) || sm_fail_oom(l->error);
}

/* The vertex data of a mesh element: its currentState, else its bindState, else its first
 * base state; SMDMX_NONE when it has none. */
static uint32_t vertex_data_of(const lift *l, uint32_t mesh)
{
	uint32_t vd = get_el(l, mesh, "currentState");
	if (vd == SMDMX_NONE) vd = get_el(l, mesh, "bindState");
	if (vd == SMDMX_NONE) {
		size_t n;
		const uint32_t *b = get_els(l, mesh, "baseStates", &n);
		if (n) vd = b[0];
	}
	return vd;
}

/* A field of vertex data vd with its indices (NAMEIndices), n values of type t: the values
 * (NULL when missing) and, in *ix and *ni, the indices. */
static const void *indexed(const lift *l, uint32_t vd, const char *name, smdmx_dm_type t, size_t *n, const int32_t **ix,
                           size_t *ni)
{
	char iname[96];
	snprintf(iname, sizeof(iname), "%sIndices", name);
	*ix = get_array(l, vd, iname, SMDMX_DM_INT, ni);
	return get_array(l, vd, name, t, n);
}

/* One past the last corner the mesh's faces use. */
static size_t faces_used(lift *l, uint32_t mesh)
{
	size_t used = 0, nfs;
	const uint32_t *fsets = get_els(l, mesh, "faceSets", &nfs);
	for (size_t i = 0; i < nfs; i++) {
		size_t nf;
		const int32_t *faces = get_array(l, fsets[i], "faces", SMDMX_DM_INT, &nf);
		for (size_t k = 0; k < nf; k++)
			if (faces[k] >= 0 && (size_t)faces[k] + 1 > used) used = (size_t)faces[k] + 1;
	}
	return used;
}

/* The position indices of the nc corners the index array holds, into m (with the corner
 * count). Where a position index is out of range past the last corner a face uses (s&box's
 * physics meshes number their corners three a triangle and their faces the positions:
 * doc/format-notes.md, "Corners no face uses"), the corners from there on are left out, said
 * with their count; an index out of range before it is an error. The faces are read only then,
 * so a file without such corners pays nothing for it. */
static bool lift_position_indices(lift *l, smdmx_mesh *m, const int32_t *pix, size_t nc, size_t np, uint32_t mesh)
{
	size_t c = 0, file_nc = nc;
	while (c < nc && pix[c] >= 0 && (size_t)pix[c] < np) c++;
	if (c < nc) {
		size_t used = faces_used(l, mesh);
		if (c < used) return bad_model(l, "a vertex index out of range");
		if (!l->unused_corners++) l->unused_first = m->name;
		l->unused_count += nc - used;
		nc = used;
	}
	m->position_indices = take_or_copy(l, pix, file_nc * sizeof(uint32_t));
	m->corner_count = nc;
	return m->position_indices != NULL;
}

/* Positions and normals, with their indices; nc corners. */
static bool lift_positions_normals(lift *l, smdmx_mesh *m, uint32_t vd, uint32_t mesh, int f)
{
	size_t np, nc;
	const int32_t *pix;
	const void *pos = indexed(l, vd, sm_model_field(f, SMDMX_CORNER_POSITION), SMDMX_DM_VECTOR3, &np, &pix, &nc);
	char iname[96];
	snprintf(iname, sizeof(iname), "%sIndices", sm_model_field(f, SMDMX_CORNER_POSITION));
	/* an empty mesh (an SMD's triangles block with none in it) has empty arrays */
	if ((!pos && !has_array(l, vd, sm_model_field(f, SMDMX_CORNER_POSITION), SMDMX_DM_VECTOR3)) || (!pix && !has_array(l, vd, iname, SMDMX_DM_INT)))
		return bad_model(l, "a mesh without positions");
	l->file_corners = nc;
	SM_CHECK(lift_position_indices(l, m, pix, nc, np, mesh));
	nc = m->corner_count;
	m->position_count = np;
	m->positions = take_or_copy(l, pos, np * sizeof(smdmx_vec3));
	if (!m->positions) return false;
	size_t nn, nni;
	const int32_t *nix;
	const void *nrm = indexed(l, vd, sm_model_field(f, SMDMX_CORNER_NORMAL), SMDMX_DM_VECTOR3, &nn, &nix, &nni);
	if (nrm && nix && nni == l->file_corners) {
		m->normals = take_or_copy(l, nrm, nn * sizeof(smdmx_vec3));
		if (!m->normals) return false;
		m->normal_count = nn;
		SM_CHECK(copy_indices(l, nix, nc, nn, &m->normal_indices));
	}
	return true;
}

/* UV sets: the main one, then every other vector2 field with indices (texcoord$N). V flipped
 * where the file says it is stored the other way up. */
static bool lift_uv_sets(lift *l, smdmx_mesh *m, uint32_t vd, int f)
{
	size_t nc = m->corner_count;
	char iname[96];
	sm_vec uvs = SM_VEC_INIT;
	const smdmx_dm_element *vde = &l->dm->elements[vd];
	/* flipVCoordinates false (Source 2 Hammer's exports, decompilers): V is stored the other
	 * way up from SMD's; true, or no flag, is Source 1's and SMD's (C9). A flipped array is
	 * the scene's own copy: the datamodel's may be another mesh's too. */
	const smdmx_dm_attr *fv = get(l, vd, "flipVCoordinates");
	bool flip = fv && fv->type == SMDMX_DM_BOOL && !fv->is_array && !fv->value.b;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t a = 0; a < vde->attr_count; a++) {
			const smdmx_dm_attr *at = &vde->attrs[a];
			bool main = strcmp(at->name, sm_model_field(f, SMDMX_CORNER_UV)) == 0;
			if (at->type != SMDMX_DM_VECTOR2 || !at->is_array || main != (pass == 0)) continue;
			if (pass == 1 && strncmp(at->name, "texcoord", 8) != 0 && strncmp(at->name, "textureCoordinates", 18) != 0) continue;
			size_t ni;
			snprintf(iname, sizeof(iname), "%sIndices", at->name);
			const int32_t *ix = get_array(l, vd, iname, SMDMX_DM_INT, &ni);
			if (!ix || ni != l->file_corners) continue;
			smdmx_uv_set *u = sm_vec_push(l->o, &uvs, sizeof(*u), l->error);
			if (!u) return false;
			u->name = pass == 0 ? "textureCoordinates" : at->name;
			u->count = at->value.array.count;
			if (flip) {
				u->data = sm_owned_alloc(l->o, u->count * sizeof(smdmx_vec2) + 1, l->error);
				if (u->data && u->count) memcpy(u->data, at->value.array.data, u->count * sizeof(smdmx_vec2));
			} else {
				u->data = take_or_copy(l, at->value.array.data, u->count * sizeof(smdmx_vec2));
			}
			if (!u->data) return false;
			SM_CHECK(copy_indices(l, ix, nc, u->count, &u->indices));
		}
	}
	m->uv_sets = uvs.data;
	m->uv_set_count = uvs.count;
	if (flip && uvs.count) {
		l->s->source.dmx_v_flag_false++;
		smdmx_uv_set *us = uvs.data;
		for (size_t u = 0; u < uvs.count; u++)
			for (size_t i = 0; i < us[u].count; i++) us[u].data[i][1] = 1.0f - us[u].data[i][1];
	} else if (!fv && uvs.count) {
		l->s->source.dmx_v_flag_missing++;
	}
	return true;
}

/* Fields the scene has no place for (vertex paint, cloth, tangents, more normals): counted,
 * the first few by name. */
static void count_lost_fields(lift *l, const smdmx_dm_element *vde, int f)
{
	for (size_t a = 0; a < vde->attr_count; a++) {
		const char *n = vde->attrs[a].name;
		size_t len = strlen(n);
		if (len > 7 && !strcmp(n + len - 7, "Indices")) continue; /* goes with its field */
		bool known = !strcmp(n, "vertexFormat") || !strcmp(n, "jointCount") || !strcmp(n, "flipVCoordinates");
		for (int k = 0; k < SMDMX_CORNER_FIELD_COUNT && !known; k++) known = !strcmp(n, sm_model_field(f, (smdmx_corner_field)k));
		if (!known && vde->attrs[a].type == SMDMX_DM_VECTOR2 && vde->attrs[a].is_array &&
		    (!strncmp(n, "texcoord", 8) || !strncmp(n, "textureCoordinates", 18)))
			known = true; /* read as a UV set above */
		if (known) continue;
		l->lost_fields++;
		bool seen = false;
		for (size_t k = 0; k < l->lost_named && !seen; k++) seen = !strcmp(l->lost_names[k], n);
		if (!seen && l->lost_named < 4) l->lost_names[l->lost_named++] = n;
	}
}

/* Stereo balance and wrinkle: scalar fields with indices (C7, C10). */
static bool lift_balance_wrinkle(lift *l, smdmx_mesh *m, uint32_t vd, int f)
{
	size_t nc = m->corner_count;
	for (int which = 0; which < 2; which++) {
		size_t nv, ni;
		const int32_t *ix;
		const float *v = indexed(l, vd, sm_model_field(f, which ? SMDMX_CORNER_WRINKLE : SMDMX_CORNER_BALANCE), SMDMX_DM_FLOAT, &nv, &ix, &ni);
		if (!v || !ix || ni != l->file_corners) continue;
		smdmx_scalar_field *sf = which ? &m->wrinkle : &m->balance;
		sf->data = take_or_copy(l, v, nv * sizeof(float));
		if (!sf->data) return false;
		sf->count = nv;
		SM_CHECK(copy_indices(l, ix, nc, nv, &sf->indices));
	}
	return true;
}

/* Weights per position, jointCount slots; empty slots (weight 0) are not links. table maps
 * jointIndices to scene joints. */
static bool lift_weights(lift *l, smdmx_mesh *m, uint32_t vd, int f, const uint32_t *table, size_t table_count)
{
	size_t np = m->position_count;
	const smdmx_dm_attr *jc = get(l, vd, "jointCount");
	int32_t count = jc && jc->type == SMDMX_DM_INT && !jc->is_array ? jc->value.i : 0;
	size_t nw, nji;
	const float *w = get_array(l, vd, sm_model_field(f, SMDMX_CORNER_WEIGHT), SMDMX_DM_FLOAT, &nw);
	const int32_t *ji = get_array(l, vd, sm_model_field(f, SMDMX_CORNER_JOINT), SMDMX_DM_INT, &nji);
	m->weight_offsets = sm_owned_calloc(l->o, np + 1, sizeof(uint32_t), l->error);
	if (!m->weight_offsets) return false;
	sm_vec links = SM_VEC_INIT;
	bool have = count > 0 && w && ji && nw == (size_t)count * np && nji == nw;
	/* room for every link (those of weight 0 are left out) */
	if (have && nw && !sm_vec_reserve(l->o, &links, sizeof(smdmx_weight), nw, l->error)) return false;
	for (size_t p = 0; p < np; p++) {
		if (have) {
			for (int32_t k = 0; k < count; k++) {
				float wt = w[p * (size_t)count + (size_t)k];
				int32_t j = ji[p * (size_t)count + (size_t)k];
				if (wt == 0) continue;
				if (j < 0 || (size_t)j >= table_count || table[j] == SMDMX_NONE)
					return bad_model(l, "a joint index outside the joint list");
				if (table[j] == MODEL_SLOT) continue;
				smdmx_weight *x = sm_vec_push(l->o, &links, sizeof(*x), l->error);
				if (!x) return false;
				x->joint = table[j];
				x->weight = wt;
			}
		} else if (m->parent_joint != SMDMX_NONE) {
			/* No weights: rigid on the joint the mesh hangs from. */
			smdmx_weight *x = sm_vec_push(l->o, &links, sizeof(*x), l->error);
			if (!x) return false;
			x->joint = m->parent_joint;
			x->weight = 1;
		}
		m->weight_offsets[p + 1] = (uint32_t)links.count;
	}
	m->weights = links.data;
	m->weight_count = links.count;
	if (!links.count) m->weight_offsets = NULL;
	return true;
}

/* Whether face set fs is named by one DmeMesh's faceSets alone (a count per element, made at
 * the first call: l->face_set_refs; false when it cannot be made). */
static bool face_set_alone(lift *l, uint32_t fs)
{
	const smdmx_dm *dm = l->dm;
	if (!l->face_set_refs) {
		l->face_set_refs = sm_malloc(&l->o->alloc, dm->element_count + 1);
		if (!l->face_set_refs) return false;
		memset(l->face_set_refs, 0, dm->element_count + 1);
		for (uint32_t e = 0; e < dm->element_count; e++) {
			size_t n;
			const uint32_t *f = strcmp(dm->elements[e].type, "DmeMesh") ? NULL : get_els(l, e, "faceSets", &n);
			for (size_t i = 0; f && i < n; i++)
				if (f[i] < dm->element_count && l->face_set_refs[f[i]] < 2) l->face_set_refs[f[i]]++;
		}
	}
	return fs < dm->element_count && l->face_set_refs[fs] == 1;
}

/* Face sets: corners, -1 after each polygon (C8); a polygon of fewer than 3 corners is
 * dropped, and corners after the last -1. The corners are the faces array's own, moved
 * down over the -1s, where the scene takes that array (a face set no other mesh names, in a
 * datamodel its caller frees next), else a copy; both arrays are made at their size. */
static bool lift_face_sets(lift *l, smdmx_mesh *m, uint32_t mesh)
{
	size_t nc = m->corner_count;
	size_t nfs;
	const uint32_t *fsets = get_els(l, mesh, "faceSets", &nfs);
	m->face_sets = sm_owned_calloc(l->o, nfs + 1, sizeof(smdmx_face_set), l->error);
	if (!m->face_sets) return false;
	for (size_t i = 0; i < nfs; i++) {
		smdmx_face_set *fs = &m->face_sets[m->face_set_count];
		size_t nf;
		const int32_t *faces = get_array(l, fsets[i], "faces", SMDMX_DM_INT, &nf);
		fs->material = material_index(l, get_el(l, fsets[i], "material"));
		if (fs->material == SMDMX_NONE) return false;
		size_t ends = 0;
		for (size_t k = 0; k < nf; k++) {
			ends += faces[k] < 0;
			if (faces[k] >= 0 && (size_t)faces[k] >= nc) return bad_model(l, "a face corner out of range");
		}
		size_t used = nf - ends;
		uint32_t *corners = NULL;
		if (used && l->adopt && face_set_alone(l, fsets[i]) && sm_adopt_take(l->adopt, faces))
			corners = (uint32_t *)(uintptr_t)faces;
		else if (used && !(corners = sm_owned_alloc(l->o, used * sizeof(uint32_t), l->error)))
			return false;
		uint32_t *offsets = sm_owned_alloc(l->o, (ends + 1) * sizeof(uint32_t), l->error);
		if (!offsets) return false;
		/* corners[n] is written after faces[k] (n <= k) is read: the same array is fine */
		size_t n = 0, start = 0, polygons = 0;
		offsets[0] = 0;
		for (size_t k = 0; k < nf; k++) {
			int32_t c = faces[k];
			if (c >= 0) {
				corners[n++] = (uint32_t)c;
			} else if (n - start >= 3) {
				offsets[++polygons] = (uint32_t)n;
				start = n;
			} else {
				n = start; /* degenerate polygons are dropped */
			}
		}
		fs->corners = corners;
		fs->corner_count = start;
		fs->offsets = offsets;
		fs->polygon_count = polygons;
		m->face_set_count++;
	}
	return true;
}

/* The name of the i-th of a mesh's nd delta states (deltas), as a shape: its own, or, for a
 * second of one name in one mesh, one after its place (warned). NULL on failure. */
static const char *delta_name(lift *l, const smdmx_mesh *m, const uint32_t *deltas, size_t nd, size_t i, size_t mesh_first)
{
	const char *dname = l->dm->elements[deltas[i]].name;
	bool again = false;
	for (size_t k = mesh_first; k < l->shapes.count && !again; k++)
		again = !strcmp(((const smdmx_flex_shape *)l->shapes.data)[k].name, dname);
	if (again) {
		char alt[300];
		snprintf(alt, sizeof(alt), "%.200s_%zu", dname, i + 1);
		for (unsigned n = 2;; n++) {
			bool taken = false;
			for (size_t k = mesh_first; k < l->shapes.count && !taken; k++)
				taken = !strcmp(((const smdmx_flex_shape *)l->shapes.data)[k].name, alt);
			for (size_t k = 0; k < nd && !taken; k++)
				taken = deltas[k] < l->dm->element_count && !strcmp(l->dm->elements[deltas[k]].name, alt);
			if (!taken) break;
			snprintf(alt, sizeof(alt), "%.200s_%zu_%u", dname, i + 1, n);
		}
		sm_warn(l->warnings, SMDMX_WARNING_SHAPE_RENAMED, 0, 0,
		        "mesh '%s' has two delta states named '%s': the later is the shape '%s', and what drives '%s' drives the "
		        "first; if the later should move, rename it in the source",
		        m->name, dname, alt, dname);
		dname = sm_strdup(l->o, alt, strlen(alt), l->error);
	}
	return dname;
}

/* A delta state's wrinkle, position and normal deltas, against the mesh's base data. */
static bool lift_deltas(lift *l, const smdmx_mesh *m, uint32_t d, int f, smdmx_flex_shape *sh)
{
	size_t nv, nix2;
	const int32_t *ix;
	const float *w = indexed(l, d, sm_model_field(f, SMDMX_CORNER_WRINKLE), SMDMX_DM_FLOAT, &nv, &ix, &nix2);
	if (w && ix && nix2 == nv && m->wrinkle.indices) {
		sh->wrinkle_deltas = take_or_copy(l, w, nv * sizeof(float));
		if (!sh->wrinkle_deltas) return false;
		SM_CHECK(copy_indices(l, ix, nv, m->wrinkle.count, &sh->wrinkle_indices));
		sh->wrinkle_count = nv;
	}
	for (int which = 0; which < 2; which++) {
		const void *v = indexed(l, d, sm_model_field(f, which ? SMDMX_CORNER_NORMAL : SMDMX_CORNER_POSITION), SMDMX_DM_VECTOR3, &nv, &ix, &nix2);
		if (!v || !ix || nix2 != nv) continue;
		smdmx_vec3 *vals = take_or_copy(l, v, nv * sizeof(smdmx_vec3));
		uint32_t *idx = NULL;
		if (!vals) return false;
		SM_CHECK(copy_indices(l, ix, nv, which ? m->normal_count : m->position_count, &idx));
		if (which) {
			sh->normal_deltas = vals;
			sh->normal_indices = idx;
			sh->normal_count = nv;
		} else {
			sh->position_deltas = vals;
			sh->position_indices = idx;
			sh->position_count = nv;
		}
	}
	return true;
}

/* Delta states: sparse deltas against this base data (C10). Two of one name in one mesh
 * stay two shapes (the VTA written from them has a frame each): the later is named after
 * its place. */
static bool lift_delta_states(lift *l, const smdmx_mesh *m, size_t mi, uint32_t mesh, int f)
{
	size_t nd;
	const uint32_t *deltas = get_els(l, mesh, "deltaStates", &nd);
	size_t mesh_first = l->shapes.count;
	for (size_t i = 0; i < nd; i++) {
		uint32_t d = deltas[i];
		if (!lift_el(l, d)) continue;
		const char *dname = delta_name(l, m, deltas, nd, i, mesh_first);
		if (!dname) return false;
		smdmx_flex_shape *sh = sm_vec_push(l->o, &l->shapes, sizeof(*sh), l->error);
		if (!sh) return false;
		memset(sh, 0, sizeof(*sh));
		sh->name = dname;
		sh->mesh = (uint32_t)mi;
		sh->frame = -1;
		const smdmx_dm_attr *cor = get(l, d, "corrected");
		sh->corrective = cor && cor->type == SMDMX_DM_BOOL && !cor->is_array && cor->value.b; /* and see mdl_mark_correctives */
		SM_CHECK(lift_deltas(l, m, d, f, sh));
	}
	return true;
}

/* The mi-th mesh: its vertex data, face sets and delta states. */
bool mdl_lift_mesh(lift *l, size_t mi, const uint32_t *table, size_t table_count)
{
	smdmx_mesh *m = (smdmx_mesh *)l->meshes.data + mi;
	uint32_t mesh = get_el(l, ((uint32_t *)l->mesh_dags.data)[mi], "shape");
	uint32_t vd = vertex_data_of(l, mesh);
	if (vd == SMDMX_NONE) return bad_model(l, "a mesh without vertex data");
	int f = get(l, vd, "position$0") ? 1 : 0;
	SM_CHECK(lift_positions_normals(l, m, vd, mesh, f));
	SM_CHECK(lift_uv_sets(l, m, vd, f));
	count_lost_fields(l, &l->dm->elements[vd], f);
	SM_CHECK(lift_balance_wrinkle(l, m, vd, f));
	SM_CHECK(lift_weights(l, m, vd, f, table, table_count));
	SM_CHECK(lift_face_sets(l, m, mesh));
	return lift_delta_states(l, m, mi, mesh, f);
}
