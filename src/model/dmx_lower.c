/* The DmeModel schema (doc/formats.md C, D), lowering: a scene into a datamodel (joints and
 * their transforms, meshes, delta states, flex controls and rules, clips). It knows elements
 * and attributes, never bytes or text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dmx_model.h"
#include "model/model_valid.h"

typedef struct lower {
	smdmx_dm *dm;
	const smdmx_scene *s;
	smdmx_error *error;
	smdmx_warnings *warnings;
	int format;
	size_t max_links;
	bool all_keys;          /* write every key (no reduction) */
	double key_tolerance;   /* looser reduction on request: units / quaternion components */
	uint32_t *joint_el;     /* DmeJoint per scene joint */
	uint32_t *joint_xf;     /* its DmeTransform */
	uint32_t *mesh_dag;     /* DmeDag per scene mesh */
	const char **mesh_node; /* its name and its transforms': the mesh's, unless a joint or an
	                           earlier mesh has that name */
	uint32_t *shape_first;  /* per mesh + 1: offsets into shape_order */
	uint32_t *shape_order;  /* shape indices by mesh, in order */
	sm_adopt *adopt;        /* the scene's arrays the datamodel may take
	                           (sm_model_from_valid_scene_taking), or NULL */
} lower;

/* sm_group into arrays owned by the datamodel's memory. */
static bool group_by(lower *l, const uint32_t *key, size_t n, size_t keys, uint32_t **first, uint32_t **order)
{
	sm_owner *mem = sm_dm_memory(l->dm);
	*first = sm_owned_calloc(mem, keys + 1, sizeof(uint32_t), l->error);
	*order = sm_owned_calloc(mem, n + 1, sizeof(uint32_t), l->error);
	if (!*first || !*order) return false;
	sm_group(key, NULL, n, keys, *first, *order);
	return true;
}

static uint32_t el(lower *l, const char *type, const char *name)
{
	uint32_t e = smdmx_dm_add_element(l->dm, type, name, NULL, l->error);
	return e;
}

static smdmx_dm_attr *at(lower *l, uint32_t e, const char *name, smdmx_dm_type t, bool array, size_t n)
{
	return smdmx_dm_add_attr(l->dm, e, name, t, array, n, l->error);
}

static bool set_el(lower *l, uint32_t e, const char *name, uint32_t target)
{
	smdmx_dm_attr *a = at(l, e, name, SMDMX_DM_ELEMENT, false, 0);
	if (!a) return false;
	a->value.element = target;
	return true;
}

static bool set_int(lower *l, uint32_t e, const char *name, int32_t v)
{
	smdmx_dm_attr *a = at(l, e, name, SMDMX_DM_INT, false, 0);
	if (a) a->value.i = v;
	return a != NULL;
}

static bool set_float(lower *l, uint32_t e, const char *name, float v)
{
	smdmx_dm_attr *a = at(l, e, name, SMDMX_DM_FLOAT, false, 0);
	if (a) a->value.f = v;
	return a != NULL;
}

static bool set_bool(lower *l, uint32_t e, const char *name, bool v)
{
	smdmx_dm_attr *a = at(l, e, name, SMDMX_DM_BOOL, false, 0);
	if (a) a->value.b = v;
	return a != NULL;
}

static bool set_str(lower *l, uint32_t e, const char *name, const char *v)
{
	smdmx_dm_attr *a = at(l, e, name, SMDMX_DM_STRING, false, 0);
	if (!a) return false;
	a->value.s = smdmx_dm_strdup(l->dm, v, l->error);
	return a->value.s != NULL;
}

static bool set_time(lower *l, uint32_t e, const char *name, int32_t ticks)
{
	/* Model format 1 has no time type: int ticks (C11). */
	smdmx_dm_attr *a = at(l, e, name, l->format == 1 ? SMDMX_DM_INT : SMDMX_DM_TIME, false, 0);
	if (a) a->value.i = ticks;
	return a != NULL;
}

/* An element array attribute; the caller fills the returned items. */
static uint32_t *el_array(lower *l, uint32_t e, const char *name, size_t n)
{
	smdmx_dm_attr *a = at(l, e, name, SMDMX_DM_ELEMENT, true, n);
	return a ? (a->value.array.data ? a->value.array.data : (uint32_t *)a) : NULL;
}

static uint32_t transform(lower *l, const char *name, const smdmx_transform *t)
{
	uint32_t x = el(l, "DmeTransform", name);
	if (x == SMDMX_NONE) return x;
	smdmx_dm_attr *p = at(l, x, "position", SMDMX_DM_VECTOR3, false, 0);
	smdmx_dm_attr *o = at(l, x, "orientation", SMDMX_DM_QUATERNION, false, 0);
	if (!p || !o) return SMDMX_NONE;
	memcpy(p->value.v, t->position, 3 * sizeof(float));
	memcpy(o->value.v, t->orientation, 4 * sizeof(float));
	return x;
}

const smdmx_transform sm_model_identity = { { 0, 0, 0 }, { 0, 0, 0, 1 } };

static const char *field(const lower *l, smdmx_corner_field which)
{
	return sm_model_field(l->format >= 22, which);
}

/* An array attribute of count items as they are at data: the scene's own array where the
 * datamodel may take it (sm_model_from_valid_scene_taking), else a copy. The scene's arrays
 * hold the datamodel's layout: floats as they are, an index as the int32 of its bits. */
static bool array_of(lower *l, uint32_t e, const char *name, smdmx_dm_type t, const void *data, size_t count)
{
	smdmx_dm_attr *a = at(l, e, name, t, true, 0);
	if (!a) return false;
	if (!count) return true;
	if (l->adopt && sm_adopt_take(l->adopt, data)) {
		a->value.array.data = (void *)(uintptr_t)data;
		a->value.array.count = count;
		return true;
	}
	a = at(l, e, name, t, true, count);
	if (!a) return false;
	memcpy(a->value.array.data, data, count * smdmx_dm_item_size(t));
	return true;
}

static bool indexed_field(lower *l, uint32_t vd, const char *name, smdmx_dm_type t, const void *data, size_t count,
                          const uint32_t *indices, size_t corners)
{
	_Static_assert(sizeof(int32_t) == sizeof(uint32_t), "an index array is an int32 array");
	char iname[128];
	snprintf(iname, sizeof(iname), "%sIndices", name);
	return array_of(l, vd, name, t, data, count) && array_of(l, vd, iname, SMDMX_DM_INT, indices, corners);
}

/* Joint index as jointIndices stores it: jointList position (format 22: DmeModel is 0). */
static int32_t joint_slot(const lower *l, uint32_t joint)
{
	return (int32_t)joint + (l->format >= 22 ? 1 : 0);
}

static bool lower_deltas(lower *l, size_t mi, uint32_t mesh);

static bool lower_mesh(lower *l, size_t mi, uint32_t *material_el, uint32_t *mesh_el)
{
	const smdmx_mesh *m = &l->s->meshes[mi];
	uint32_t dag = l->mesh_dag[mi];
	uint32_t mesh = el(l, "DmeMesh", m->name);
	mesh_el[mi] = mesh;
	uint32_t vd = el(l, "DmeVertexData", "bind");
	if (mesh == SMDMX_NONE || vd == SMDMX_NONE) return false;
	uint32_t xf = transform(l, l->mesh_node[mi], &m->transform);
	if (xf == SMDMX_NONE || !set_el(l, dag, "transform", xf) || !set_el(l, dag, "shape", mesh) ||
	    !set_bool(l, dag, "visible", true))
		return false;
	SM_CHECK(set_bool(l, mesh, "visible", true));
	SM_CHECK(set_el(l, mesh, "bindState", vd));
	SM_CHECK(set_el(l, mesh, "currentState", vd));
	uint32_t *bs = el_array(l, mesh, "baseStates", 1);
	if (!bs) return false;
	bs[0] = vd;
	/* Vertex data (C7). */
	size_t links = 0;
	if (m->weight_offsets)
		for (size_t p = 0; p < m->position_count; p++) {
			size_t n = m->weight_offsets[p + 1] - m->weight_offsets[p];
			if (n > links) links = n;
		}
	if (links > l->max_links) links = l->max_links;
	/* every field written is listed, extra UV sets included: readers that follow vertexFormat
	 * see them */
	sm_owner *mem = sm_dm_memory(l->dm);
	const char **uvname = m->uv_set_count ? sm_owned_calloc(mem, m->uv_set_count, sizeof(char *), l->error) : NULL;
	const char **fmt = sm_owned_calloc(mem, SMDMX_CORNER_FIELD_COUNT + m->uv_set_count, sizeof(char *), l->error);
	if (!fmt || (m->uv_set_count && !uvname)) return false;
	size_t nf = 0;
	for (smdmx_corner_field f = 0; f < SMDMX_CORNER_FIELD_COUNT; f++) {
		if (f == SMDMX_CORNER_WEIGHT || f == SMDMX_CORNER_JOINT) {
			if (links) fmt[nf++] = field(l, f);
		} else if (f != SMDMX_CORNER_UV) {
			if (smdmx_mesh_has_field(m, f)) fmt[nf++] = field(l, f);
		}
		for (size_t u = 0; f == SMDMX_CORNER_UV && u < m->uv_set_count; u++) {
			char name[64];
			if (u == 0) snprintf(name, sizeof(name), "%s", field(l, SMDMX_CORNER_UV));
			else if (l->format >= 22) snprintf(name, sizeof(name), "texcoord$%zu", u);
			uvname[u] = smdmx_dm_strdup(l->dm, u > 0 && l->format < 22 ? m->uv_sets[u].name : name, l->error);
			if (!uvname[u]) return false;
			fmt[nf++] = uvname[u];
		}
	}
	smdmx_dm_attr *vf = at(l, vd, "vertexFormat", SMDMX_DM_STRING, true, nf);
	if (!vf) return false;
	for (size_t i = 0; i < nf; i++) ((const char **)vf->value.array.data)[i] = fmt[i];
	SM_CHECK(set_int(l, vd, "jointCount", (int32_t)links));
	SM_CHECK(set_bool(l, vd, "flipVCoordinates", true)); /* decision 7 */
	SM_CHECK(indexed_field(l, vd, field(l, SMDMX_CORNER_POSITION), SMDMX_DM_VECTOR3, m->positions, m->position_count, m->position_indices,
	                       m->corner_count));
	if (m->normal_indices)
		SM_CHECK(indexed_field(l, vd, field(l, SMDMX_CORNER_NORMAL), SMDMX_DM_VECTOR3, m->normals, m->normal_count, m->normal_indices,
		                       m->corner_count));
	for (size_t u = 0; u < m->uv_set_count; u++)
		SM_CHECK(indexed_field(l, vd, uvname[u], SMDMX_DM_VECTOR2, m->uv_sets[u].data, m->uv_sets[u].count,
		                       m->uv_sets[u].indices, m->corner_count));
	if (m->balance.indices)
		SM_CHECK(indexed_field(l, vd, field(l, SMDMX_CORNER_BALANCE), SMDMX_DM_FLOAT, m->balance.data, m->balance.count, m->balance.indices,
		                       m->corner_count));
	if (m->wrinkle.indices)
		SM_CHECK(indexed_field(l, vd, field(l, SMDMX_CORNER_WRINKLE), SMDMX_DM_FLOAT, m->wrinkle.data, m->wrinkle.count, m->wrinkle.indices,
		                       m->corner_count));
	if (links) {
		/* Per position, `links` slots: the largest weights, renormalised (decision 6). */
		smdmx_dm_attr *w = at(l, vd, field(l, SMDMX_CORNER_WEIGHT), SMDMX_DM_FLOAT, true, m->position_count * links);
		smdmx_dm_attr *j = at(l, vd, field(l, SMDMX_CORNER_JOINT), SMDMX_DM_INT, true, m->position_count * links);
		if (!w || !j) return false;
		float *wd = w->value.array.data;
		int32_t *jd = j->value.array.data;
		for (size_t p = 0; p < m->position_count; p++) {
			const smdmx_weight *ws = m->weights + m->weight_offsets[p];
			size_t n = m->weight_offsets[p + 1] - m->weight_offsets[p];
			/* Keep the largest `links` (decision 6), in their original order. */
			size_t take[16], k = 0;
			if (n <= links) {
				for (; k < n; k++) take[k] = k;
			} else {
				bool used[256] = { false };
				size_t cap = n < 256 ? n : 256;
				for (size_t r = 0; r < links && r < cap; r++) {
					size_t best = SIZE_MAX;
					for (size_t i = 0; i < cap; i++)
						if (!used[i] && (best == SIZE_MAX || ws[i].weight > ws[best].weight)) best = i;
					used[best] = true;
				}
				for (size_t i = 0; i < cap; i++)
					if (used[i]) take[k++] = i;
			}
			if (n > links) {
				sm_warn(l->warnings, SMDMX_WARNING_LINKS_TRUNCATED, 0, 0,
				        "vertices with more than %zu weight links keep their %zu largest, scaled to sum 1 (the most this model "
				        "format holds); nothing to do",
				        links, links);
			}
			double sum = 0;
			for (size_t i = 0; i < k; i++) sum += ws[take[i]].weight;
			for (size_t i = 0; i < links; i++) {
				if (i < k) {
					wd[p * links + i] = n > links && sum > 0 ? (float)(ws[take[i]].weight / sum) : ws[take[i]].weight;
					jd[p * links + i] = joint_slot(l, ws[take[i]].joint);
				} else {
					wd[p * links + i] = 0;
					jd[p * links + i] = 0;
				}
			}
		}
	}
	/* Face sets (C8): corners with -1 after each polygon. */
	uint32_t *fsets = el_array(l, mesh, "faceSets", m->face_set_count);
	if (m->face_set_count && !fsets) return false;
	for (size_t f = 0; f < m->face_set_count; f++) {
		const smdmx_face_set *fs = &m->face_sets[f];
		const char *mat = l->s->materials[fs->material].name;
		uint32_t set = el(l, "DmeFaceSet", mat);
		if (set == SMDMX_NONE) return false;
		((uint32_t *)l->dm->elements[mesh].attrs[l->dm->elements[mesh].attr_count - 1].value.array.data)[f] = set;
		if (material_el[fs->material] == SMDMX_NONE) {
			material_el[fs->material] = el(l, "DmeMaterial", mat);
			if (material_el[fs->material] == SMDMX_NONE || !set_str(l, material_el[fs->material], "mtlName", mat)) return false;
		}
		SM_CHECK(set_el(l, set, "material", material_el[fs->material]));
		smdmx_dm_attr *faces = at(l, set, "faces", SMDMX_DM_INT, true, fs->corner_count + fs->polygon_count);
		if (!faces) return false;
		int32_t *d = faces->value.array.data;
		size_t k = 0;
		for (size_t p = 0; p < fs->polygon_count; p++) {
			for (uint32_t c = fs->offsets[p]; c < fs->offsets[p + 1]; c++) d[k++] = (int32_t)fs->corners[c];
			d[k++] = -1;
		}
	}
	return lower_deltas(l, mi, mesh);
}

/* Whether interpolating keys k and j reproduces every key between them (decision 11): the
 * way the SMD writer samples, exactly at float32 for positions; within float precision (or
 * the requested tolerance) for orientations, up to sign. */
static bool span_reproduces(const lower *l, const int32_t *t, const float *v, int dim, size_t k, size_t j)
{
	for (size_t m = k + 1; m < j; m++) {
		double f = (double)((int64_t)t[m] - t[k]) / (double)((int64_t)t[j] - t[k]); /* may span all of int32 */
		float out[4];
		const float *want = v + m * (size_t)dim;
		if (dim == 3) {
			sm_lerp3(v + k * 3, v + j * 3, f, out);
			for (int i = 0; i < 3; i++)
				if (l->key_tolerance > 0 ? fabs((double)out[i] - want[i]) > l->key_tolerance : out[i] != want[i]) return false;
		} else {
			sm_slerp(v + k * 4, v + j * 4, f, out);
			double dot = 0, tol = l->key_tolerance > 0 ? l->key_tolerance : 2e-7;
			for (int i = 0; i < 4; i++) dot += (double)out[i] * want[i];
			double sign = dot < 0 ? -1 : 1;
			for (int i = 0; i < 4; i++)
				if (fabs(out[i] - sign * want[i]) > tol) return false;
		}
	}
	return true;
}

/* The keys to keep: the first, the last, and between them only keys that interpolating
 * the kept keys around them does not reproduce. From each kept key k, the next is found by
 * galloping (spans of 2, 3, 5, 9, ... keys) and then halving between the longest span that
 * reproduces and the shortest that does not, so a run of n keys costs O(n log n) checks,
 * not the O(n^2) of growing the span one key at a time; each span kept is checked whole. */
static size_t reduce_keys(const lower *l, const int32_t *t, const float *v, int dim, size_t n, uint32_t *keep)
{
	if (l->all_keys || n <= 2) {
		for (size_t i = 0; i < n; i++) keep[i] = (uint32_t)i;
		return n;
	}
	size_t kept = 0, k = 0;
	keep[kept++] = 0;
	while (k + 2 < n) {
		size_t good = k + 1, bad = n, step = 1; /* span (k, good) reproduces; (k, bad) does not */
		while (good < n - 1) {
			size_t j = good + step < n - 1 ? good + step : n - 1;
			if (!span_reproduces(l, t, v, dim, k, j)) {
				bad = j;
				break;
			}
			good = j;
			step *= 2;
		}
		if (good == n - 1) break;
		while (bad - good > 1) {
			size_t mid = good + (bad - good) / 2;
			if (span_reproduces(l, t, v, dim, k, mid)) good = mid;
			else bad = mid;
		}
		keep[kept++] = (uint32_t)good;
		k = good;
	}
	keep[kept++] = (uint32_t)(n - 1);
	return kept;
}

/* Delta states of a mesh (C10): sparse deltas against its base data. */
static bool lower_deltas(lower *l, size_t mi, uint32_t mesh)
{
	const smdmx_scene *s = l->s;
	size_t n = l->shape_first[mi + 1] - l->shape_first[mi];
	if (!n) return true;
	smdmx_dm_attr *ds = at(l, mesh, "deltaStates", SMDMX_DM_ELEMENT, true, n);
	if (!ds) return false;
	uint32_t *items = ds->value.array.data;
	size_t k = 0;
	for (uint32_t x = l->shape_first[mi]; x < l->shape_first[mi + 1]; x++) {
		const smdmx_flex_shape *sh = &s->flex_shapes[l->shape_order[x]];
		uint32_t d = el(l, "DmeVertexDeltaData", sh->name);
		if (d == SMDMX_NONE) return false;
		items[k++] = d;
		smdmx_dm_attr *vf = at(l, d, "vertexFormat", SMDMX_DM_STRING, true, sh->wrinkle_count ? 3 : 2);
		if (!vf) return false;
		((const char **)vf->value.array.data)[0] = field(l, SMDMX_CORNER_POSITION);
		((const char **)vf->value.array.data)[1] = field(l, SMDMX_CORNER_NORMAL);
		if (sh->wrinkle_count) {
			((const char **)vf->value.array.data)[2] = field(l, SMDMX_CORNER_WRINKLE);
			smdmx_dm_attr *wa = at(l, d, field(l, SMDMX_CORNER_WRINKLE), SMDMX_DM_FLOAT, true, sh->wrinkle_count);
			char wname[64];
			snprintf(wname, sizeof(wname), "%sIndices", field(l, SMDMX_CORNER_WRINKLE));
			smdmx_dm_attr *wi = at(l, d, wname, SMDMX_DM_INT, true, sh->wrinkle_count);
			if (!wa || !wi) return false;
			memcpy(wa->value.array.data, sh->wrinkle_deltas, sh->wrinkle_count * sizeof(float));
			for (size_t w = 0; w < sh->wrinkle_count; w++) ((int32_t *)wi->value.array.data)[w] = (int32_t)sh->wrinkle_indices[w];
		}
		SM_CHECK(indexed_field(l, d, field(l, SMDMX_CORNER_POSITION), SMDMX_DM_VECTOR3, sh->position_deltas, sh->position_count,
		                       sh->position_indices, sh->position_count));
		SM_CHECK(indexed_field(l, d, field(l, SMDMX_CORNER_NORMAL), SMDMX_DM_VECTOR3, sh->normal_deltas, sh->normal_count, sh->normal_indices,
		                       sh->normal_count));
		if (sh->corrective) SM_CHECK(set_bool(l, d, "corrected", true));
	}
	/* One (0, 0) weight per delta state, as BST writes. */
	SM_CHECK(at(l, mesh, "deltaStateWeights", SMDMX_DM_VECTOR2, true, n) != NULL);
	SM_CHECK(at(l, mesh, "deltaStateWeightsLagged", SMDMX_DM_VECTOR2, true, n) != NULL);
	return true;
}

/* Flex rules: studiomdl takes them only when every target of the combination operator is a
 * DmeFlexRules, so each target mesh is replaced by a rule set aimed at it. The first set holds
 * the rules (they are global in the compiled model); the others keep their meshes reachable. */
static bool lower_flex_rules(lower *l, uint32_t *targets, size_t n)
{
	const smdmx_scene *s = l->s;
	static const char *const types[] = { "DmeFlexRuleExpression", "DmeFlexRulePassThrough", "DmeFlexRuleLocalVar" };
	for (size_t t = 0; t < n; t++) {
		uint32_t mesh = targets[t];
		uint32_t set = el(l, "DmeFlexRules", mesh != SMDMX_NONE ? l->dm->elements[mesh].name : "flexRules");
		if (set == SMDMX_NONE) return false;
		targets[t] = set;
		size_t count = t ? 0 : s->flex_rule_count;
		uint32_t *rules = el_array(l, set, "deltaStates", count);
		if (!rules || !at(l, set, "deltaStateWeights", SMDMX_DM_VECTOR2, true, count)) return false;
		SM_CHECK(set_el(l, set, "target", mesh));
		for (size_t i = 0; i < count; i++) {
			const smdmx_flex_rule *r = &s->flex_rules[i];
			uint32_t e = el(l, types[r->kind], r->name);
			if (e == SMDMX_NONE) return false;
			rules[i] = e;
			SM_CHECK(set_float(l, e, "result", 0));
			if (r->kind == SMDMX_FLEX_RULE_EXPRESSION) SM_CHECK(set_str(l, e, "expr", r->expression));
		}
	}
	return true;
}

static bool lower_control_list(lower *l, uint32_t op, size_t n, const sm_names *first, const uint32_t *mesh_el);

/* The combination operator: the scene's flex controllers, or one control per shape. */
static bool lower_controls(lower *l, uint32_t root, const uint32_t *mesh_el)
{
	const smdmx_scene *s = l->s;
	if (!s->flex_shape_count && !s->flex_controller_count && !s->domination_rule_count && !s->flex_rule_count) return true;
	uint32_t op = el(l, "DmeCombinationOperator", "combinationOperator");
	if (op == SMDMX_NONE || !set_el(l, root, "combinationOperator", op)) return false;
	size_t n = 0;
	/* Without controllers, one control per shape name that is not corrective: the first
	 * shape of each name. */
	sm_alloc *mem = &sm_dm_memory(l->dm)->alloc;
	sm_names first;
	memset(&first, 0, sizeof(first));
	if (s->flex_controller_count) {
		n = s->flex_controller_count;
	} else {
		if (!sm_names_init(mem, &first, s->flex_shape_count)) return sm_fail_oom(l->error);
		for (size_t i = 0; i < s->flex_shape_count; i++) {
			if (!sm_names_put(mem, &first, s->flex_shapes[i].name, (uint32_t)i, true)) {
				sm_names_free(mem, &first);
				return sm_fail_oom(l->error);
			}
			n += !s->flex_shapes[i].corrective && sm_names_get(&first, s->flex_shapes[i].name) == i;
		}
	}
	bool ok = lower_control_list(l, op, n, &first, mesh_el);
	sm_names_free(mem, &first);
	return ok;
}

static bool lower_control_list(lower *l, uint32_t op, size_t n, const sm_names *first, const uint32_t *mesh_el)
{
	const smdmx_scene *s = l->s;
	smdmx_dm_attr *ca = at(l, op, "controls", SMDMX_DM_ELEMENT, true, n);
	if (!ca) return false;
	uint32_t *controls = ca->value.array.data;
	size_t k = 0;
	for (size_t i = 0; k < n; i++) {
		const char *name;
		const char *const *raw;
		size_t raw_count;
		bool stereo = false, eyelid = false;
		float mn = 0, mx = 1;
		const float *wr = NULL;
		if (s->flex_controller_count) {
			const smdmx_flex_controller *fc = &s->flex_controllers[i];
			name = fc->name;
			raw = fc->raw_controls.data;
			raw_count = fc->raw_controls.count;
			stereo = fc->stereo;
			eyelid = fc->eyelid;
			mn = fc->min;
			mx = fc->max;
			wr = fc->wrinkle_scales.count == raw_count ? fc->wrinkle_scales.data : NULL;
		} else {
			const smdmx_flex_shape *sh = &s->flex_shapes[i];
			if (sh->corrective || sm_names_get(first, sh->name) != i) continue;
			name = sh->name;
			raw = &sh->name;
			raw_count = 1;
		}
		uint32_t c = el(l, "DmeCombinationInputControl", name);
		if (c == SMDMX_NONE) return false;
		controls[k++] = c;
		smdmx_dm_attr *r = at(l, c, "rawControlNames", SMDMX_DM_STRING, true, raw_count);
		if (!r) return false;
		for (size_t j = 0; j < raw_count; j++) {
			const char *dup = smdmx_dm_strdup(l->dm, raw[j], l->error);
			if (!dup) return false;
			((const char **)r->value.array.data)[j] = dup;
		}
		SM_CHECK(set_bool(l, c, "stereo", stereo));
		SM_CHECK(set_bool(l, c, "eyelid", eyelid));
		SM_CHECK(set_float(l, c, "flexMax", mx));
		SM_CHECK(set_float(l, c, "flexMin", mn));
		smdmx_dm_attr *w = at(l, c, "wrinkleScales", SMDMX_DM_FLOAT, true, raw_count);
		if (!w) return false;
		if (wr) memcpy(w->value.array.data, wr, raw_count * sizeof(float));
	}
	for (int lag = 0; lag < 2; lag++) {
		smdmx_dm_attr *v = at(l, op, lag ? "controlValuesLagged" : "controlValues", SMDMX_DM_VECTOR3, true, n);
		if (!v) return false;
		for (size_t i = 0; i < n; i++) ((float *)v->value.array.data)[3 * i + 2] = 0.5f; /* as BST writes */
	}
	SM_CHECK(set_bool(l, op, "usesLaggedValues", false));
	uint32_t *doms = el_array(l, op, "dominators", s->domination_rule_count);
	if (!doms) return false;
	for (size_t i = 0; i < s->domination_rule_count; i++) {
		const smdmx_domination_rule *r = &s->domination_rules[i];
		uint32_t e = el(l, "DmeCombinationDominationRule", "rule");
		if (e == SMDMX_NONE) return false;
		doms[i] = e;
		for (int which = 0; which < 2; which++) {
			const smdmx_string_list *list = which ? &r->suppressed : &r->dominators;
			smdmx_dm_attr *a = at(l, e, which ? "suppressed" : "dominators", SMDMX_DM_STRING, true, list->count);
			if (!a) return false;
			for (size_t j = 0; j < list->count; j++) {
				const char *d = smdmx_dm_strdup(l->dm, list->data[j], l->error);
				if (!d) return false;
				((const char **)a->value.array.data)[j] = d;
			}
		}
	}
	size_t targets = 0;
	for (size_t m = 0; m < s->mesh_count; m++) targets += mesh_el[m] != SMDMX_NONE;
	if (s->flex_rule_count && !targets) targets = 1;
	smdmx_dm_attr *t = at(l, op, "targets", SMDMX_DM_ELEMENT, true, targets);
	if (!t) return false;
	uint32_t *te = t->value.array.data; /* its own block: stays put as elements are added */
	size_t j = 0;
	for (size_t m = 0; m < s->mesh_count; m++)
		if (l->shape_first[m + 1] > l->shape_first[m]) te[j++] = mesh_el[m]; /* the meshes with shapes */
	if (s->flex_rule_count && !j) te[j++] = SMDMX_NONE;
	t->value.array.count = j;
	return !s->flex_rule_count || lower_flex_rules(l, te, j);
}

/* A time of the clip counted from its start. A key on a frame (tick floor(f * 10000 / rate),
 * decision 3) stays on a frame, as many frames from the first: a difference of ticks would
 * put it a tick off where the truncation of the two differs. Any other time moves by the
 * start's ticks. */
static int64_t clip_tick(const smdmx_clip *cl, int64_t t)
{
	double r = cl->frame_rate;
	double f0 = nearbyint((double)cl->start * r / 10000.0), f = nearbyint((double)t * r / 10000.0);
	if (fabs(f) < 1e15 && fabs(f0) < 1e15 && floor(f0 * 10000.0 / r) == (double)cl->start && floor(f * 10000.0 / r) == (double)t)
		return (int64_t)floor((f - f0) * 10000.0 / r);
	return t - cl->start;
}

static bool lower_clips(lower *l, uint32_t root)
{
	const smdmx_scene *s = l->s;
	uint32_t list = el(l, "DmeAnimationList", "animationList");
	if (list == SMDMX_NONE || !set_el(l, root, "animationList", list)) return false;
	uint32_t *clips = el_array(l, list, "animations", s->clip_count);
	if (!clips) return false;
	for (size_t c = 0; c < s->clip_count; c++) {
		const smdmx_clip *cl = &s->clips[c];
		uint32_t clip = el(l, "DmeChannelsClip", cl->name);
		uint32_t tf = el(l, "DmeTimeFrame", "timeFrame");
		if (clip == SMDMX_NONE || tf == SMDMX_NONE) return false;
		((uint32_t *)l->dm->elements[list].attrs[0].value.array.data)[c] = clip;
		SM_CHECK(set_el(l, clip, "timeFrame", tf));
		/* A clip starts at time 0, its keys counted from its first frame: the reading Valve's
		 * tools and Blender Source Tools share, as studiomdl counts an SMD's frames from its
		 * first (F4). */
		int64_t duration = clip_tick(cl, (int64_t)cl->start + cl->duration);
		if (duration < 0 || duration > INT32_MAX)
			return sm_fail(l->error, SMDMX_ERROR_LIMIT, 0, 0, "clip '%s' lasts %lld ticks", cl->name, (long long)duration);
		if (l->format == 1) {
			SM_CHECK(set_int(l, tf, "durationTime", (int32_t)duration));
		} else {
			SM_CHECK(set_time(l, tf, "start", 0));
			SM_CHECK(set_time(l, tf, "duration", (int32_t)duration));
			SM_CHECK(set_time(l, tf, "offset", 0));
		}
		SM_CHECK(set_float(l, tf, "scale", 1.0f));
		if (l->format >= 22 || cl->frame_rate != floor(cl->frame_rate) || cl->frame_rate > INT32_MAX) SM_CHECK(set_float(l, clip, "frameRate", (float)cl->frame_rate));
		else SM_CHECK(set_int(l, clip, "frameRate", (int32_t)cl->frame_rate));
		uint32_t *chans = el_array(l, clip, "channels", cl->channel_count * 2);
		if (cl->channel_count && !chans) return false;
		size_t chans_attr = l->dm->elements[clip].attr_count - 1;
		/* the times of the channel before and their ticks in the clip: channels mostly share
		 * their key times, and a tick costs divisions (clip_tick) */
		const int32_t *memo_abs = NULL, *memo_rel = NULL;
		size_t memo_n = 0;
		for (size_t k = 0; k < cl->channel_count; k++) {
			const smdmx_channel *ch = &cl->channels[k];
			const char *jn = s->joints[ch->joint].name;
			for (int o = 0; o < 2; o++) {
				char name[512];
				snprintf(name, sizeof(name), "%s_%c", jn, o ? 'o' : 'p');
				uint32_t chan = el(l, "DmeChannel", name);
				uint32_t log = el(l, o ? "DmeQuaternionLog" : "DmeVector3Log", o ? "quaternion log" : "vector3 log");
				uint32_t layer = el(l, o ? "DmeQuaternionLogLayer" : "DmeVector3LogLayer", o ? "quaternion log" : "vector3 log");
				if (chan == SMDMX_NONE || log == SMDMX_NONE || layer == SMDMX_NONE) return false;
				((uint32_t *)l->dm->elements[clip].attrs[chans_attr].value.array.data)[2 * k + (size_t)o] = chan;
				SM_CHECK(set_el(l, chan, "toElement", l->joint_xf[ch->joint]));
				SM_CHECK(set_str(l, chan, "toAttribute", o ? "orientation" : "position"));
				SM_CHECK(set_int(l, chan, "mode", 3));
				SM_CHECK(set_el(l, chan, "log", log));
				uint32_t *layers = el_array(l, log, "layers", 1);
				if (!layers) return false;
				layers[0] = layer;
				size_t n = o ? ch->orientation_count : ch->position_count;
				const int32_t *abs_times = o ? ch->orientation_times : ch->position_times;
				int32_t *times = sm_owned_alloc(sm_dm_memory(l->dm), (n + 1) * sizeof(int32_t), l->error);
				if (!times) return false;
				for (size_t i = 0; i < n; i++) {
					int64_t rel = i < memo_n && abs_times[i] == memo_abs[i] ? memo_rel[i] : clip_tick(cl, abs_times[i]);
					if (rel > INT32_MAX || rel < INT32_MIN || (i && rel <= times[i - 1]))
						return sm_fail(l->error, SMDMX_ERROR_LIMIT, 0, 0, "clip '%s': a key %lld ticks from its start", cl->name,
						               (long long)rel);
					times[i] = (int32_t)rel;
				}
				memo_abs = abs_times;
				memo_rel = times;
				memo_n = n;
				const float *vals = o ? (const float *)ch->orientations : (const float *)ch->positions;
				int dim = o ? 4 : 3;
				uint32_t *keep = sm_owned_alloc(sm_dm_memory(l->dm), (n + 1) * sizeof(uint32_t), l->error);
				if (!keep) return false;
				size_t kept = reduce_keys(l, times, vals, dim, n, keep);
				smdmx_dm_attr *t = at(l, layer, "times", l->format == 1 ? SMDMX_DM_INT : SMDMX_DM_TIME, true, kept);
				smdmx_dm_attr *v = at(l, layer, "values", o ? SMDMX_DM_QUATERNION : SMDMX_DM_VECTOR3, true, kept);
				if (!t || !v) return false;
				for (size_t i = 0; i < kept; i++) {
					((int32_t *)t->value.array.data)[i] = times[keep[i]];
					memcpy((float *)v->value.array.data + i * (size_t)dim, vals + keep[i] * (size_t)dim,
					       (size_t)dim * sizeof(float));
				}
			}
		}
	}
	return true;
}

/* Node names of the meshes: DMX readers (studiomdl, Blender Source Tools, smdmx) match a
 * base pose to its node by name (C4), so a mesh whose name a joint or an earlier mesh has
 * (an SMD "clipboard.smd" with a bone "clipboard") gets a node "NAME_mesh" (then "_mesh2",
 * ...), said; its DmeMesh keeps the name. */
static bool name_mesh_nodes(lower *l, sm_owner *mem)
{
	const smdmx_scene *s = l->s;
	sm_names taken;
	if (!sm_names_init(&mem->alloc, &taken, s->joint_count + s->mesh_count)) return sm_fail_oom(l->error);
	bool ok = true;
	for (size_t j = 0; ok && j < s->joint_count; j++) ok = sm_names_put(&mem->alloc, &taken, s->joints[j].name, 0, true);
	size_t renamed = 0;
	const char *first = NULL, *first_as = NULL;
	for (size_t m = 0; ok && m < s->mesh_count; m++) {
		const char *name = s->meshes[m].name ? s->meshes[m].name : "mesh";
		const char *use = name;
		for (unsigned k = 1; ok && sm_names_get(&taken, use) != SMDMX_NONE; k++) {
			char buf[300];
			if (k == 1) snprintf(buf, sizeof(buf), "%s_mesh", name);
			else snprintf(buf, sizeof(buf), "%s_mesh%u", name, k);
			use = smdmx_dm_strdup(l->dm, buf, l->error);
			ok = use != NULL;
		}
		if (!ok) break;
		if (use != name && !renamed++) {
			first = name;
			first_as = use;
		}
		l->mesh_node[m] = use;
		ok = sm_names_put(&mem->alloc, &taken, use, 0, true);
	}
	sm_names_free(&mem->alloc, &taken);
	if (!ok) return l->error->code ? false : sm_fail_oom(l->error);
	if (renamed)
		sm_warn_n(l->warnings, SMDMX_WARNING_NODE_RENAMED, renamed, 0, 0,
		          "mesh '%s' is the node '%s' in the DMX (a bone or mesh has its name; base poses match by name), the same model; nothing to do",
		          first, first_as);
	return true;
}

static bool lower_all(lower *l)
{
	const smdmx_scene *s = l->s;
	smdmx_dm *dm = l->dm;
	uint32_t root = el(l, "DmElement", s->name ? s->name : "root");
	uint32_t model = el(l, "DmeModel", s->name ? s->name : "model");
	if (root == SMDMX_NONE || model == SMDMX_NONE) return false;
	SM_CHECK(set_el(l, root, "skeleton", model));
	if (s->mesh_count) SM_CHECK(set_el(l, root, "model", model));
	SM_CHECK(set_el(l, model, "transform", transform(l, s->name ? s->name : "model", &sm_model_identity)));
	SM_CHECK(set_bool(l, model, "visible", true));
	size_t nj = s->joint_count, nm = s->mesh_count;
	sm_owner *mem = sm_dm_memory(dm);
	l->joint_el = sm_owned_calloc(mem, nj + 1, sizeof(uint32_t), l->error);
	l->joint_xf = sm_owned_calloc(mem, nj + 1, sizeof(uint32_t), l->error);
	l->mesh_dag = sm_owned_calloc(mem, nm + 1, sizeof(uint32_t), l->error);
	l->mesh_node = sm_owned_calloc(mem, nm + 1, sizeof(char *), l->error);
	if (!l->joint_el || !l->joint_xf || !l->mesh_dag || !l->mesh_node) return false;
	SM_CHECK(name_mesh_nodes(l, mem));
	for (size_t j = 0; j < nj; j++) {
		l->joint_el[j] = el(l, "DmeJoint", s->joints[j].name);
		l->joint_xf[j] = transform(l, s->joints[j].name, &s->joints[j].bind);
		if (l->joint_el[j] == SMDMX_NONE || l->joint_xf[j] == SMDMX_NONE) return false;
		SM_CHECK(set_el(l, l->joint_el[j], "transform", l->joint_xf[j]));
	}
	for (size_t m = 0; m < nm; m++) {
		l->mesh_dag[m] = el(l, "DmeDag", l->mesh_node[m]);
		if (l->mesh_dag[m] == SMDMX_NONE) return false;
	}
	/* Children: root joints and model-level meshes on the model; the rest on their joint
	 * (nj stands for none), joints first, then meshes, then attachments, each in order. */
	size_t na = s->attachment_count, most = nj > nm ? nj : nm;
	if (na > most) most = na;
	uint32_t *key = sm_owned_calloc(mem, most + 1, sizeof(uint32_t), l->error);
	uint32_t *jf, *jo, *mf, *mo, *af, *ao;
	if (!key) return false;
	for (size_t j = 0; j < nj; j++) key[j] = s->joints[j].parent == SMDMX_NONE ? (uint32_t)nj : s->joints[j].parent;
	SM_CHECK(group_by(l, key, nj, nj + 1, &jf, &jo));
	for (size_t m = 0; m < nm; m++) key[m] = s->meshes[m].parent_joint == SMDMX_NONE ? (uint32_t)nj : s->meshes[m].parent_joint;
	SM_CHECK(group_by(l, key, nm, nj + 1, &mf, &mo));
	for (size_t i = 0; i < na; i++)
		key[i] = s->attachments[i].parent_joint == SMDMX_NONE ? (uint32_t)nj : s->attachments[i].parent_joint;
	SM_CHECK(group_by(l, key, na, nj + 1, &af, &ao));
	sm_vec kids = SM_VEC_INIT;
	for (size_t parent = 0; parent <= nj; parent++) {
		uint32_t owner_el = parent == nj ? model : l->joint_el[parent];
		kids.count = 0;
		for (uint32_t i = jf[parent]; i < jf[parent + 1]; i++) {
			uint32_t *k = sm_vec_push(mem, &kids, sizeof(uint32_t), l->error);
			if (!k) return false;
			*k = l->joint_el[jo[i]];
		}
		for (uint32_t i = mf[parent]; i < mf[parent + 1]; i++) {
			uint32_t *k = sm_vec_push(mem, &kids, sizeof(uint32_t), l->error);
			if (!k) return false;
			*k = l->mesh_dag[mo[i]];
		}
		for (uint32_t i = af[parent]; i < af[parent + 1]; i++) {
			const smdmx_attachment *at_ = &s->attachments[ao[i]];
			uint32_t dag = el(l, "DmeDag", at_->name), shape = el(l, "DmeAttachment", at_->name);
			uint32_t xf = transform(l, at_->name, &at_->transform);
			if (dag == SMDMX_NONE || shape == SMDMX_NONE || xf == SMDMX_NONE) return false;
			SM_CHECK(set_el(l, dag, "transform", xf));
			SM_CHECK(set_el(l, dag, "shape", shape));
			SM_CHECK(set_bool(l, dag, "visible", true));
			SM_CHECK(set_bool(l, shape, "visible", true));
			SM_CHECK(set_bool(l, shape, "isRigid", at_->rigid));
			SM_CHECK(set_bool(l, shape, "isWorldAligned", at_->world_aligned));
			uint32_t *k = sm_vec_push(mem, &kids, sizeof(uint32_t), l->error);
			if (!k) return false;
			*k = dag;
		}
		smdmx_dm_attr *a = at(l, owner_el, "children", SMDMX_DM_ELEMENT, true, kids.count);
		if (!a) return false;
		if (kids.count) memcpy(a->value.array.data, kids.data, kids.count * sizeof(uint32_t));
	}
	/* Joint tables (C3) and base states (C4). */
	if (l->format >= 11) {
		size_t off = l->format >= 22 ? 1 : 0;
		smdmx_dm_attr *a = at(l, model, "jointList", SMDMX_DM_ELEMENT, true, nj + off);
		if (!a) return false;
		uint32_t *d = a->value.array.data;
		if (off) d[0] = model;
		for (size_t j = 0; j < nj; j++) d[j + off] = l->joint_el[j];
	}
	if (l->format < 21) {
		smdmx_dm_attr *a = at(l, model, "jointTransforms", SMDMX_DM_ELEMENT, true, nj);
		if (!a) return false;
		for (size_t j = 0; j < nj; j++) ((uint32_t *)a->value.array.data)[j] = l->joint_xf[j];
	}
	uint32_t base = el(l, "DmeTransformList", "base");
	if (base == SMDMX_NONE) return false;
	smdmx_dm_attr *bs = at(l, model, "baseStates", SMDMX_DM_ELEMENT, true, 1);
	if (!bs) return false;
	((uint32_t *)bs->value.array.data)[0] = base;
	{
		smdmx_dm_attr *ts = at(l, base, "transforms", SMDMX_DM_ELEMENT, true, nj + nm);
		if (!ts) return false;
		size_t ts_attr = dm->elements[base].attr_count - 1;
		for (size_t j = 0; j < nj; j++) {
			uint32_t x = transform(l, s->joints[j].name, &s->joints[j].bind);
			if (x == SMDMX_NONE) return false;
			((uint32_t *)dm->elements[base].attrs[ts_attr].value.array.data)[j] = x;
		}
		for (size_t m = 0; m < nm; m++) {
			uint32_t x = transform(l, l->mesh_node[m], &s->meshes[m].transform);
			if (x == SMDMX_NONE) return false;
			((uint32_t *)dm->elements[base].attrs[ts_attr].value.array.data)[nj + m] = x;
		}
	}
	if (l->format >= 22) {
		/* Source 2 (C12): DmeAxisSystem, Z up (3); forwardParity and coordSys as BST writes. */
		uint32_t ax = el(l, "DmeAxisSystem", "axisSystem");
		if (ax == SMDMX_NONE || !set_el(l, model, "axisSystem", ax)) return false;
		SM_CHECK(set_int(l, ax, "upAxis", s->up_axis == 'Y' ? 2 : s->up_axis == 'X' ? 1 : 3));
		SM_CHECK(set_int(l, ax, "forwardParity", 1));
		SM_CHECK(set_int(l, ax, "coordSys", 0));
	}
	if (s->up_axis != 'Z' && l->format < 22) {
		char axis[2] = { s->up_axis, 0 };
		SM_CHECK(set_str(l, model, "upAxis", axis));
	}
	sm_vec_release(mem, &kids, sizeof(uint32_t));
	uint32_t *material_el = sm_owned_calloc(mem, s->material_count + 1, sizeof(uint32_t), l->error);
	if (!material_el) return false;
	for (size_t i = 0; i < s->material_count; i++) material_el[i] = SMDMX_NONE;
	uint32_t *mesh_el = sm_owned_calloc(mem, nm + 1, sizeof(uint32_t), l->error);
	if (!mesh_el) return false;
	for (size_t m = 0; m < nm; m++) mesh_el[m] = SMDMX_NONE;
	uint32_t *shape_mesh = sm_owned_calloc(mem, s->flex_shape_count + 1, sizeof(uint32_t), l->error);
	if (!shape_mesh) return false;
	for (size_t i = 0; i < s->flex_shape_count; i++) shape_mesh[i] = s->flex_shapes[i].mesh;
	SM_CHECK(group_by(l, shape_mesh, s->flex_shape_count, nm, &l->shape_first, &l->shape_order));
	for (size_t m = 0; m < nm; m++) SM_CHECK(lower_mesh(l, m, material_el, mesh_el));
	SM_CHECK(lower_controls(l, root, mesh_el));
	if (s->clip_count) SM_CHECK(lower_clips(l, root));
	dm->root = root;
	return true;
}

/* The model format options ask for (18 when they do not say), 0 with the error set when it
 * is none written (a DMX's own format carried over: said as the file's, not as an option). */
static int model_format(const smdmx_model_options *o, smdmx_error *error)
{
	int format = o && o->model_version ? o->model_version : 18;
	if (format == 1 || format == 15 || format == 18 || format == 22) return format;
	sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "model format %d (1, 15, 18 and 22 are written)", format);
	return 0;
}

bool smdmx_model_options_check(const smdmx_model_options *o, smdmx_error *error)
{
	SM_ERROR_START(error);
	int format = o && o->model_version ? o->model_version : 18;
	if (format != 1 && format != 15 && format != 18 && format != 22)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--model-version is 1, 15, 18 or 22, not %d", format);
	if (o && !(o->key_tolerance >= 0 && isfinite(o->key_tolerance)))
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--key-tolerance is a number, 0 or more, not %g", o->key_tolerance);
	return true;
}

smdmx_dm *smdmx_model_from_scene(const smdmx_scene *scene, const smdmx_model_options *options, smdmx_error *error,
                                 smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	sm_warnings_start(warnings, options ? &options->allocator : NULL);
	if (!model_format(options, error) || !smdmx_model_options_check(options, error) || !smdmx_scene_validate(scene, error))
		return NULL;
	return sm_model_from_valid_scene(scene, options, error, warnings);
}

static smdmx_dm *from_scene(const smdmx_scene *scene, sm_owner *take, const smdmx_model_options *options,
                            smdmx_error *error, smdmx_warnings *warnings);

smdmx_dm *sm_model_from_valid_scene(const smdmx_scene *scene, const smdmx_model_options *options, smdmx_error *error,
                                    smdmx_warnings *warnings)
{
	return from_scene(scene, NULL, options, error, warnings);
}

smdmx_dm *sm_model_from_valid_scene_taking(smdmx_scene *scene, const smdmx_model_options *options, smdmx_error *error,
                                           smdmx_warnings *warnings)
{
	return from_scene(scene, scene->owner, options, error, warnings);
}

/* The datamodel of scene, taking its big arrays from take (its memory) when not NULL. */
static smdmx_dm *from_scene(const smdmx_scene *scene, sm_owner *take, const smdmx_model_options *options,
                            smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	smdmx_model_options o;
	memset(&o, 0, sizeof(o));
	if (options) o = *options;
	sm_warnings_start(warnings, &o.allocator);
	int format = model_format(&o, error);
	if (!format) return NULL;
	smdmx_dm *dm = smdmx_dm_create(&o.allocator, error);
	if (!dm) return NULL;
	lower l = { dm, scene, error, warnings, format, format >= 22 ? 4 : 3, o.all_keys, o.key_tolerance, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	sm_adopt adopt;
	if (take) {
		sm_adopt_init(&adopt, take, sm_dm_memory(dm));
		l.adopt = &adopt;
	}
	dm->format = "model";
	dm->format_version = format;
	bool ok = lower_all(&l) && sm_warnings_kept(warnings, error);
	if (l.adopt) sm_adopt_free(l.adopt);
	if (!ok) {
		smdmx_dm_free(dm);
		return NULL;
	}
	return dm;
}
