/* The DmeModel schema (FORMATS.md C, D): lowering a scene into a datamodel and lifting a
 * datamodel into a scene. It knows elements and attributes, never bytes or text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmx/dm_internal.h"
#include "scene/scene_util.h"
#include "smdmx/model.h"

/* ---- lowering: scene -> datamodel -------------------------------------------------------- */

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
} lower;

/* sm_group into arrays owned by the datamodel's memory. */
static bool group_by(lower *l, const uint32_t *key, size_t n, size_t keys, uint32_t **first, uint32_t **order)
{
	sm_owner *mem = l->dm->owner->mem;
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

static const smdmx_transform identity = { { 0, 0, 0 }, { 0, 0, 0, 1 } };

/* Field names by model format (C7). */
static const char *field(const lower *l, int which)
{
	static const char *const s1[] = { "positions", "normals", "textureCoordinates", "jointWeights", "jointIndices",
		                              "balance", "wrinkle" };
	static const char *const s2[] = { "position$0", "normal$0", "texcoord$0", "blendweights$0", "blendindices$0",
		                              "balance$0", "wrinkle$0" };
	return l->format >= 22 ? s2[which] : s1[which];
}

static bool indexed_field(lower *l, uint32_t vd, const char *name, smdmx_dm_type t, const void *data, size_t count,
                          const uint32_t *indices, size_t corners)
{
	smdmx_dm_attr *a = at(l, vd, name, t, true, count);
	if (!a) return false;
	if (count) memcpy(a->value.array.data, data, count * smdmx_dm_item_size(t));
	char iname[128];
	snprintf(iname, sizeof(iname), "%sIndices", name);
	smdmx_dm_attr *ix = at(l, vd, iname, SMDMX_DM_INT, true, corners);
	if (!ix) return false;
	int32_t *d = ix->value.array.data;
	for (size_t i = 0; i < corners; i++) d[i] = (int32_t)indices[i];
	return true;
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
	sm_owner *mem = l->dm->owner->mem;
	const char **uvname = m->uv_set_count ? sm_owned_calloc(mem, m->uv_set_count, sizeof(char *), l->error) : NULL;
	const char **fmt = sm_owned_calloc(mem, 7 + m->uv_set_count, sizeof(char *), l->error);
	if (!fmt || (m->uv_set_count && !uvname)) return false;
	size_t nf = 0;
	fmt[nf++] = field(l, 0);
	if (m->normal_indices) fmt[nf++] = field(l, 1);
	for (size_t u = 0; u < m->uv_set_count; u++) {
		char name[64];
		if (u == 0) snprintf(name, sizeof(name), "%s", field(l, 2));
		else if (l->format >= 22) snprintf(name, sizeof(name), "texcoord$%zu", u);
		uvname[u] = smdmx_dm_strdup(l->dm, u > 0 && l->format < 22 ? m->uv_sets[u].name : name, l->error);
		if (!uvname[u]) return false;
		fmt[nf++] = uvname[u];
	}
	if (links) {
		fmt[nf++] = field(l, 3);
		fmt[nf++] = field(l, 4);
	}
	if (m->balance.indices) fmt[nf++] = field(l, 5);
	if (m->wrinkle.indices) fmt[nf++] = field(l, 6);
	smdmx_dm_attr *vf = at(l, vd, "vertexFormat", SMDMX_DM_STRING, true, nf);
	if (!vf) return false;
	for (size_t i = 0; i < nf; i++) ((const char **)vf->value.array.data)[i] = fmt[i];
	SM_CHECK(set_int(l, vd, "jointCount", (int32_t)links));
	SM_CHECK(set_bool(l, vd, "flipVCoordinates", true)); /* decision 7 */
	SM_CHECK(indexed_field(l, vd, field(l, 0), SMDMX_DM_VECTOR3, m->positions, m->position_count, m->position_indices,
	                       m->corner_count));
	if (m->normal_indices)
		SM_CHECK(indexed_field(l, vd, field(l, 1), SMDMX_DM_VECTOR3, m->normals, m->normal_count, m->normal_indices,
		                       m->corner_count));
	for (size_t u = 0; u < m->uv_set_count; u++)
		SM_CHECK(indexed_field(l, vd, uvname[u], SMDMX_DM_VECTOR2, m->uv_sets[u].data, m->uv_sets[u].count,
		                       m->uv_sets[u].indices, m->corner_count));
	if (m->balance.indices)
		SM_CHECK(indexed_field(l, vd, field(l, 5), SMDMX_DM_FLOAT, m->balance.data, m->balance.count, m->balance.indices,
		                       m->corner_count));
	if (m->wrinkle.indices)
		SM_CHECK(indexed_field(l, vd, field(l, 6), SMDMX_DM_FLOAT, m->wrinkle.data, m->wrinkle.count, m->wrinkle.indices,
		                       m->corner_count));
	if (links) {
		/* Per position, `links` slots: the largest weights, renormalised (decision 6). */
		smdmx_dm_attr *w = at(l, vd, field(l, 3), SMDMX_DM_FLOAT, true, m->position_count * links);
		smdmx_dm_attr *j = at(l, vd, field(l, 4), SMDMX_DM_INT, true, m->position_count * links);
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
		((const char **)vf->value.array.data)[0] = field(l, 0);
		((const char **)vf->value.array.data)[1] = field(l, 1);
		if (sh->wrinkle_count) {
			((const char **)vf->value.array.data)[2] = field(l, 6);
			smdmx_dm_attr *wa = at(l, d, field(l, 6), SMDMX_DM_FLOAT, true, sh->wrinkle_count);
			char wname[64];
			snprintf(wname, sizeof(wname), "%sIndices", field(l, 6));
			smdmx_dm_attr *wi = at(l, d, wname, SMDMX_DM_INT, true, sh->wrinkle_count);
			if (!wa || !wi) return false;
			memcpy(wa->value.array.data, sh->wrinkle_deltas, sh->wrinkle_count * sizeof(float));
			for (size_t w = 0; w < sh->wrinkle_count; w++) ((int32_t *)wi->value.array.data)[w] = (int32_t)sh->wrinkle_indices[w];
		}
		SM_CHECK(indexed_field(l, d, field(l, 0), SMDMX_DM_VECTOR3, sh->position_deltas, sh->position_count,
		                       sh->position_indices, sh->position_count));
		SM_CHECK(indexed_field(l, d, field(l, 1), SMDMX_DM_VECTOR3, sh->normal_deltas, sh->normal_count, sh->normal_indices,
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
	sm_alloc *mem = &l->dm->owner->mem->alloc;
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
				int32_t *times = sm_owned_alloc(l->dm->owner->mem, (n + 1) * sizeof(int32_t), l->error);
				if (!times) return false;
				for (size_t i = 0; i < n; i++) {
					int64_t rel = clip_tick(cl, abs_times[i]);
					if (rel > INT32_MAX || rel < INT32_MIN || (i && rel <= times[i - 1]))
						return sm_fail(l->error, SMDMX_ERROR_LIMIT, 0, 0, "clip '%s': a key %lld ticks from its start", cl->name,
						               (long long)rel);
					times[i] = (int32_t)rel;
				}
				const float *vals = o ? (const float *)ch->orientations : (const float *)ch->positions;
				int dim = o ? 4 : 3;
				uint32_t *keep = sm_owned_alloc(l->dm->owner->mem, (n + 1) * sizeof(uint32_t), l->error);
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
	SM_CHECK(set_el(l, model, "transform", transform(l, s->name ? s->name : "model", &identity)));
	SM_CHECK(set_bool(l, model, "visible", true));
	size_t nj = s->joint_count, nm = s->mesh_count;
	sm_owner *mem = dm->owner->mem;
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

smdmx_dm *smdmx_model_from_scene(const smdmx_scene *scene, const smdmx_model_options *options, smdmx_error *error,
                                 smdmx_warnings *warnings)
{
	memset(error, 0, sizeof(*error));
	if (warnings) memset(warnings, 0, sizeof(*warnings));
	smdmx_model_options o;
	memset(&o, 0, sizeof(o));
	if (options) o = *options;
	int format = o.model_version ? o.model_version : 18;
	if (format != 1 && format != 15 && format != 18 && format != 22) {
		sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "model format %d (1, 15, 18 and 22 are written)", format);
		return NULL;
	}
	if (!smdmx_scene_validate(scene, error)) return NULL;
	smdmx_dm *dm = smdmx_dm_create(&o.allocator, error);
	if (!dm) return NULL;
	lower l = { dm, scene, error, warnings, format, format >= 22 ? 4 : 3, o.all_keys, o.key_tolerance, NULL, NULL, NULL, NULL, NULL, NULL };
	dm->format = "model";
	dm->format_version = format;
	if (!lower_all(&l)) {
		smdmx_dm_free(dm);
		return NULL;
	}
	return dm;
}

/* ---- lifting: datamodel -> scene --------------------------------------------------------- */

typedef struct lift {
	const smdmx_dm *dm;
	smdmx_scene *s;
	sm_owner *o;
	smdmx_error *error;
	smdmx_warnings *warnings;
	sm_vec joints;      /* smdmx_joint */
	sm_vec joint_of;    /* uint32_t per dm element: scene joint, or SMDMX_NONE */
	sm_vec xf_joint;    /* uint32_t per dm element: the joint whose transform it is */
	sm_vec meshes;      /* smdmx_mesh */
	sm_vec mesh_dags;   /* uint32_t dm element per scene mesh */
	sm_vec materials;   /* smdmx_material */
	sm_vec shapes;      /* smdmx_flex_shape */
	sm_vec attachments; /* smdmx_attachment */
	sm_names mat_names; /* material name to scene material */
	size_t lost_fields; /* vertex data fields not carried, over all meshes */
	const char *lost_names[4]; /* the first few, by name */
	size_t lost_named;
} lift;

static const smdmx_dm_attr *get(const lift *l, uint32_t e, const char *name)
{
	return e == SMDMX_NONE ? NULL : smdmx_dm_find_attr(l->dm, e, name);
}

static uint32_t get_el(const lift *l, uint32_t e, const char *name)
{
	const smdmx_dm_attr *a = get(l, e, name);
	return a && a->type == SMDMX_DM_ELEMENT && !a->is_array ? a->value.element : SMDMX_NONE;
}

static const uint32_t *get_els(const lift *l, uint32_t e, const char *name, size_t *n)
{
	const smdmx_dm_attr *a = get(l, e, name);
	if (!a || a->type != SMDMX_DM_ELEMENT || !a->is_array) {
		*n = 0;
		return NULL;
	}
	*n = a->value.array.count;
	return a->value.array.data;
}

static const void *get_array(const lift *l, uint32_t e, const char *name, smdmx_dm_type t, size_t *n)
{
	const smdmx_dm_attr *a = get(l, e, name);
	if (!a || a->type != t || !a->is_array) {
		*n = 0;
		return NULL;
	}
	*n = a->value.array.count;
	return a->value.array.data;
}

static bool has_array(const lift *l, uint32_t e, const char *name, smdmx_dm_type t)
{
	const smdmx_dm_attr *a = get(l, e, name);
	return a && a->type == t && a->is_array;
}

static bool is_type(const lift *l, uint32_t e, const char *type)
{
	return e != SMDMX_NONE && e < l->dm->element_count && strcmp(l->dm->elements[e].type, type) == 0;
}

static bool bad_model(const lift *l, const char *what)
{
	return sm_fail(l->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "not a usable model: %s", what);
}

static void read_transform(const lift *l, uint32_t x, smdmx_transform *t)
{
	*t = identity;
	const smdmx_dm_attr *p = get(l, x, "position"), *o = get(l, x, "orientation");
	if (p && p->type == SMDMX_DM_VECTOR3 && !p->is_array) memcpy(t->position, p->value.v, 3 * sizeof(float));
	if (o && o->type == SMDMX_DM_QUATERNION && !o->is_array) memcpy(t->orientation, o->value.v, 4 * sizeof(float));
}

/* The array items of an element. */
static uint64_t array_items(const lift *l, uint32_t e)
{
	uint64_t items = 0;
	if (e == SMDMX_NONE || e >= l->dm->element_count) return 0;
	const smdmx_dm_element *el = &l->dm->elements[e];
	for (size_t a = 0; a < el->attr_count; a++)
		if (el->attrs[a].is_array) items += el->attrs[a].value.array.count;
	return items;
}

/* Sharing is how a file makes a small number of bytes stand for a huge model (the
 * billion-laughs pattern): a mesh shared by several dags is lifted once per dag, vertex data
 * or a face set shared by several meshes once per mesh, a clip listed twice twice, a
 * channel or log shared by several channels once per channel. So, before anything is
 * copied, the lift counts the array items it would copy against the items of the distinct
 * elements that hold them; past 2^23 items, a model may not stand for more than 16 times
 * its data. */
enum { EXPANSION_FLOOR = 1 << 23, EXPANSION_FACTOR = 16 };

typedef struct expansion {
	uint8_t *counted; /* per element: its items are in distinct */
	uint64_t lifted, distinct;
} expansion;

/* e's array items, lifted once more. */
static void expand(const lift *l, expansion *x, uint32_t e)
{
	if (e == SMDMX_NONE || e >= l->dm->element_count) return;
	uint64_t items = array_items(l, e);
	x->lifted += items;
	if (!x->counted[e]) x->distinct += items;
	x->counted[e] = 1;
}

static bool expansion_ok(lift *l, expansion *x, const char *what)
{
	bool ok = !(x->lifted > EXPANSION_FLOOR && x->lifted > (uint64_t)EXPANSION_FACTOR * x->distinct);
	if (!ok)
		sm_fail(l->error, SMDMX_ERROR_LIMIT, 0, 0,
		        "%s would turn %llu items of data into %llu (more than %d times): refused as a decompression bomb", what,
		        (unsigned long long)x->distinct, (unsigned long long)x->lifted, EXPANSION_FACTOR);
	memset(x->counted, 0, l->dm->element_count);
	x->lifted = x->distinct = 0;
	return ok;
}

static bool check_expansion(lift *l, uint32_t root)
{
	const smdmx_dm *dm = l->dm;
	sm_vec mark = SM_VEC_INIT;
	if (!sm_vec_reserve(l->o, &mark, 1, dm->element_count + 1, l->error)) return false;
	expansion x = { mark.data, 0, 0 };
	memset(x.counted, 0, dm->element_count);
	/* meshes: their vertex data, face sets and delta states, once per dag */
	const uint32_t *dags = l->mesh_dags.data;
	for (size_t i = 0; i < l->meshes.count; i++) {
		uint32_t mesh = get_el(l, dags[i], "shape");
		if (mesh == SMDMX_NONE || mesh >= dm->element_count) continue;
		size_t n;
		uint32_t vd = get_el(l, mesh, "currentState");
		expand(l, &x, vd != SMDMX_NONE ? vd : get_el(l, mesh, "bindState"));
		const uint32_t *faces = get_els(l, mesh, "faceSets", &n);
		for (size_t k = 0; k < n; k++) expand(l, &x, faces[k]);
		const uint32_t *deltas = get_els(l, mesh, "deltaStates", &n);
		for (size_t k = 0; k < n; k++) expand(l, &x, deltas[k]);
	}
	bool ok = expansion_ok(l, &x, "meshes, vertex data or face sets shared several times");
	/* clips: a channel table of the skeleton's size each, and each channel's keys */
	size_t nc;
	const uint32_t *clips = root != SMDMX_NONE ? get_els(l, get_el(l, root, "animationList"), "animations", &nc) : NULL;
	for (size_t c = 0; ok && clips && c < nc; c++) {
		size_t nch, nl;
		x.lifted += 2 * (l->joints.count + 1);
		expand(l, &x, clips[c]);
		const uint32_t *chans = get_els(l, clips[c], "channels", &nch);
		for (size_t k = 0; k < nch; k++) {
			const uint32_t *layers = get_els(l, get_el(l, chans[k], "log"), "layers", &nl);
			if (nl) expand(l, &x, layers[0]);
		}
	}
	ok = ok && expansion_ok(l, &x, "clips, channels or logs shared several times");
	sm_vec_release(l->o, &mark, 1);
	return ok;
}

typedef struct named_index {
	const char *name;
	uint32_t index;
} named_index;

static bool match_base_states(lift *l, const uint32_t *ts, size_t nt);

/* The hierarchy under the model: joints (DmeJoint, or a DmeDag without a shape) and meshes. */
static bool lift_hierarchy(lift *l, uint32_t model)
{
	const smdmx_dm *dm = l->dm;
	sm_vec stack = SM_VEC_INIT; /* pairs: element, parent joint */
	SM_CHECK(sm_vec_reserve(l->o, &l->joint_of, sizeof(uint32_t), dm->element_count, l->error));
	SM_CHECK(sm_vec_reserve(l->o, &l->xf_joint, sizeof(uint32_t), dm->element_count, l->error));
	for (size_t i = 0; i < dm->element_count; i++) ((uint32_t *)l->joint_of.data)[i] = ((uint32_t *)l->xf_joint.data)[i] = SMDMX_NONE;
	size_t n;
	const uint32_t *kids = get_els(l, model, "children", &n);
	for (size_t i = n; i-- > 0;) {
		uint32_t *p = sm_vec_push(l->o, &stack, 2 * sizeof(uint32_t), l->error);
		if (!p) return false;
		p[0] = kids[i];
		p[1] = SMDMX_NONE;
	}
	uint8_t *seen = sm_owned_calloc(l->o, dm->element_count + 1, 1, l->error);
	if (!seen) return false;
	while (stack.count) {
		uint32_t *top = (uint32_t *)stack.data + 2 * (stack.count - 1);
		uint32_t e = top[0], parent = top[1];
		stack.count--;
		if (e == SMDMX_NONE || e >= dm->element_count || seen[e]) continue;
		seen[e] = 1;
		uint32_t shape = get_el(l, e, "shape");
		uint32_t xf = get_el(l, e, "transform");
		if (is_type(l, shape, "DmeMesh")) {
			smdmx_mesh *m = sm_vec_push(l->o, &l->meshes, sizeof(*m), l->error);
			uint32_t *d = sm_vec_push(l->o, &l->mesh_dags, sizeof(uint32_t), l->error);
			if (!m || !d) return false;
			memset(m, 0, sizeof(*m));
			m->name = dm->elements[e].name;
			m->parent_joint = parent;
			read_transform(l, xf, &m->transform);
			*d = e;
			continue;
		}
		if (is_type(l, shape, "DmeAttachment")) {
			smdmx_attachment *a = sm_vec_push(l->o, &l->attachments, sizeof(*a), l->error);
			if (!a) return false;
			memset(a, 0, sizeof(*a));
			a->name = dm->elements[e].name;
			a->parent_joint = parent;
			read_transform(l, xf, &a->transform);
			const smdmx_dm_attr *f;
			if ((f = get(l, shape, "isRigid")) && f->type == SMDMX_DM_BOOL && !f->is_array) a->rigid = f->value.b;
			if ((f = get(l, shape, "isWorldAligned")) && f->type == SMDMX_DM_BOOL && !f->is_array) a->world_aligned = f->value.b;
			continue;
		}
		if (l->joints.count >= UINT32_MAX - 1) return bad_model(l, "too many joints");
		smdmx_joint *j = sm_vec_push(l->o, &l->joints, sizeof(*j), l->error);
		if (!j) return false;
		j->name = dm->elements[e].name;
		j->parent = parent;
		read_transform(l, xf, &j->bind);
		uint32_t me = (uint32_t)l->joints.count - 1;
		((uint32_t *)l->joint_of.data)[e] = me;
		if (xf != SMDMX_NONE) ((uint32_t *)l->xf_joint.data)[xf] = me;
		kids = get_els(l, e, "children", &n);
		for (size_t i = n; i-- > 0;) {
			uint32_t *p = sm_vec_push(l->o, &stack, 2 * sizeof(uint32_t), l->error);
			if (!p) return false;
			p[0] = kids[i];
			p[1] = me;
		}
	}
	sm_vec_release(l->o, &stack, 2 * sizeof(uint32_t));
	/* Base states by name override the nodes' own transforms (C4). */
	const uint32_t *bs = get_els(l, model, "baseStates", &n);
	if (n) {
		size_t nt;
		const uint32_t *ts = get_els(l, bs[0], "transforms", &nt);
		if (!match_base_states(l, ts, nt)) return false;
	}
	return true;
}

static int by_name_then_index(const void *a, const void *b)
{
	const named_index *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

static bool same_transform(const smdmx_transform *a, const smdmx_transform *b)
{
	return !memcmp(a->position, b->position, sizeof(a->position)) && !memcmp(a->orientation, b->orientation, sizeof(a->orientation));
}

/* Each joint, then each mesh, takes the base state of its name. Where several have one name
 * (a bone named like its file's mesh), a node takes the one equal to its own transform (as
 * Blender Source Tools and smdmx write them), else the first not yet taken, in order. */
static bool match_base_states(lift *l, const uint32_t *ts, size_t nt)
{
	const smdmx_dm *dm = l->dm;
	named_index *order = sm_owned_calloc(l->o, nt + 1, sizeof(named_index), l->error);
	uint8_t *taken = sm_owned_calloc(l->o, nt + 1, 1, l->error);
	if (!order || !taken) return false;
	size_t k = 0;
	for (size_t t = 0; t < nt; t++)
		if (ts[t] != SMDMX_NONE && ts[t] < dm->element_count)
			order[k++] = (named_index){ dm->elements[ts[t]].name ? dm->elements[ts[t]].name : "", (uint32_t)t };
	qsort(order, k, sizeof(named_index), by_name_then_index);
	size_t nj = l->joints.count, nm = l->meshes.count;
	smdmx_joint *js = l->joints.data;
	smdmx_mesh *ms = l->meshes.data;
	for (size_t i = 0; i < nj + nm; i++) {
		const char *name = i < nj ? js[i].name : ms[i - nj].name;
		smdmx_transform *own = i < nj ? &js[i].bind : &ms[i - nj].transform;
		if (!name) continue;
		/* the first of this name in the sorted order */
		size_t lo = 0, hi = k;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (strcmp(order[mid].name, name) < 0) lo = mid + 1;
			else hi = mid;
		}
		size_t pick = SIZE_MAX;
		for (size_t c = lo; c < k && !strcmp(order[c].name, name); c++) {
			if (taken[order[c].index]) continue;
			if (pick == SIZE_MAX) pick = c;
			smdmx_transform v;
			read_transform(l, ts[order[c].index], &v);
			if (same_transform(&v, own)) {
				pick = c;
				break;
			}
		}
		if (pick == SIZE_MAX) continue;
		taken[order[pick].index] = 1;
		read_transform(l, ts[order[pick].index], own);
	}
	return true;
}

/* Joints in the order of the model's jointList (jointTransforms in format 1), which is the
 * order of the SMD the model was made from (its node ids): the hierarchy walk alone would
 * renumber bones whose file order is not depth-first. Joints the list leaves out follow, in
 * hierarchy order. */
static bool order_joints(lift *l, uint32_t model)
{
	size_t nj = l->joints.count, n;
	bool transforms = false;
	const uint32_t *list = get_els(l, model, "jointList", &n);
	if (!list) {
		list = get_els(l, model, "jointTransforms", &n);
		transforms = true;
	}
	if (nj < 2 || !list || !n) return true;
	const uint32_t *of = transforms ? l->xf_joint.data : l->joint_of.data;
	uint32_t *to = sm_owned_alloc(l->o, nj * sizeof(uint32_t), l->error);
	smdmx_joint *old = sm_owned_alloc(l->o, nj * sizeof(smdmx_joint), l->error);
	if (!to || !old) return false;
	for (size_t j = 0; j < nj; j++) to[j] = SMDMX_NONE;
	uint32_t next = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t e = list[i];
		if (e == SMDMX_NONE || e >= l->dm->element_count) continue;
		uint32_t j = of[e];
		if (j != SMDMX_NONE && to[j] == SMDMX_NONE) to[j] = next++;
	}
	bool same = true;
	for (size_t j = 0; j < nj; j++) {
		if (to[j] == SMDMX_NONE) to[j] = next++;
		same = same && to[j] == j;
	}
	if (same) return true;
	smdmx_joint *js = l->joints.data;
	memcpy(old, js, nj * sizeof(smdmx_joint));
	for (size_t j = 0; j < nj; j++) {
		js[to[j]] = old[j];
		if (old[j].parent != SMDMX_NONE) js[to[j]].parent = to[old[j].parent];
	}
	smdmx_mesh *ms = l->meshes.data;
	for (size_t m = 0; m < l->meshes.count; m++)
		if (ms[m].parent_joint != SMDMX_NONE) ms[m].parent_joint = to[ms[m].parent_joint];
	smdmx_attachment *as = l->attachments.data;
	for (size_t a = 0; a < l->attachments.count; a++)
		if (as[a].parent_joint != SMDMX_NONE) as[a].parent_joint = to[as[a].parent_joint];
	uint32_t *jo = l->joint_of.data, *xj = l->xf_joint.data;
	for (size_t e = 0; e < l->dm->element_count; e++) {
		if (jo[e] != SMDMX_NONE) jo[e] = to[jo[e]];
		if (xj[e] != SMDMX_NONE) xj[e] = to[xj[e]];
	}
	return true;
}

#define MODEL_SLOT (UINT32_MAX - 1)

/* jointIndices refer to jointList (format >= 11) or jointTransforms positions (C3). */
static bool joint_table(lift *l, uint32_t model, uint32_t **table, size_t *count)
{
	size_t n;
	const uint32_t *list = get_els(l, model, "jointList", &n);
	bool transforms = false;
	if (!list) {
		list = get_els(l, model, "jointTransforms", &n);
		transforms = true;
	}
	*count = n;
	*table = sm_owned_calloc(l->o, n + 1, sizeof(uint32_t), l->error);
	if (!*table) return false;
	for (size_t i = 0; i < n; i++) {
		uint32_t e = list[i];
		uint32_t j = SMDMX_NONE;
		if (e != SMDMX_NONE && e < l->dm->element_count)
			j = transforms ? ((uint32_t *)l->xf_joint.data)[e] : ((uint32_t *)l->joint_of.data)[e];
		/* Format 22 lists the DmeModel first: weights on it bind to no bone (C11). */
		if (e == model) j = MODEL_SLOT;
		(*table)[i] = j;
	}
	return true;
}

static bool copy_indices(lift *l, const int32_t *src, size_t n, size_t bound, uint32_t **out)
{
	*out = sm_owned_alloc(l->o, (n ? n : 1) * sizeof(uint32_t), l->error);
	if (!*out) return false;
	for (size_t i = 0; i < n; i++) {
		if (src[i] < 0 || (size_t)src[i] >= bound) return bad_model(l, "a vertex index out of range");
		(*out)[i] = (uint32_t)src[i];
	}
	return true;
}

static const char *const field_names[2][7] = {
	{ "positions", "normals", "textureCoordinates", "jointWeights", "jointIndices", "balance", "wrinkle" },
	{ "position$0", "normal$0", "texcoord$0", "blendweights$0", "blendindices$0", "balance$0", "wrinkle$0" },
};

/* The scene material of a DmeMaterial, by name: face sets with one name share it. */
static uint32_t material_index(lift *l, uint32_t mat_el)
{
	const char *name = "no_material";
	if (mat_el != SMDMX_NONE && mat_el < l->dm->element_count) {
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
 * ('__' in ModelDoc's files: FORMATS.md C10): a name whose parts are all names of other
 * shapes of the model. A name with '_' whose parts are not ("flex_1", "brow_raiser" beside
 * no "brow" and "raiser") is a shape of its own. */
static bool mark_correctives(lift *l)
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

/* Positions and normals, with their indices; nc corners. */
static bool lift_positions_normals(lift *l, smdmx_mesh *m, uint32_t vd, int f)
{
	size_t np, nc;
	const int32_t *pix;
	const void *pos = indexed(l, vd, field_names[f][0], SMDMX_DM_VECTOR3, &np, &pix, &nc);
	char iname[96];
	snprintf(iname, sizeof(iname), "%sIndices", field_names[f][0]);
	/* an empty mesh (an SMD's triangles block with none in it) has empty arrays */
	if ((!pos && !has_array(l, vd, field_names[f][0], SMDMX_DM_VECTOR3)) || (!pix && !has_array(l, vd, iname, SMDMX_DM_INT)))
		return bad_model(l, "a mesh without positions");
	m->corner_count = nc;
	m->position_count = np;
	m->positions = sm_owned_alloc(l->o, np * sizeof(smdmx_vec3) + 1, l->error);
	if (!m->positions) return false;
	if (np) memcpy(m->positions, pos, np * sizeof(smdmx_vec3));
	SM_CHECK(copy_indices(l, pix, nc, np, &m->position_indices));
	size_t nn, nni;
	const int32_t *nix;
	const void *nrm = indexed(l, vd, field_names[f][1], SMDMX_DM_VECTOR3, &nn, &nix, &nni);
	if (nrm && nix && nni == nc) {
		m->normals = sm_owned_alloc(l->o, nn * sizeof(smdmx_vec3) + 1, l->error);
		if (!m->normals) return false;
		if (nn) memcpy(m->normals, nrm, nn * sizeof(smdmx_vec3));
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
	for (int pass = 0; pass < 2; pass++) {
		for (size_t a = 0; a < vde->attr_count; a++) {
			const smdmx_dm_attr *at = &vde->attrs[a];
			bool main = strcmp(at->name, field_names[f][2]) == 0;
			if (at->type != SMDMX_DM_VECTOR2 || !at->is_array || main != (pass == 0)) continue;
			if (pass == 1 && strncmp(at->name, "texcoord", 8) != 0 && strncmp(at->name, "textureCoordinates", 18) != 0) continue;
			size_t ni;
			snprintf(iname, sizeof(iname), "%sIndices", at->name);
			const int32_t *ix = get_array(l, vd, iname, SMDMX_DM_INT, &ni);
			if (!ix || ni != nc) continue;
			smdmx_uv_set *u = sm_vec_push(l->o, &uvs, sizeof(*u), l->error);
			if (!u) return false;
			u->name = pass == 0 ? "textureCoordinates" : at->name;
			u->count = at->value.array.count;
			u->data = sm_owned_alloc(l->o, u->count * sizeof(smdmx_vec2) + 1, l->error);
			if (!u->data) return false;
			if (u->count) memcpy(u->data, at->value.array.data, u->count * sizeof(smdmx_vec2));
			SM_CHECK(copy_indices(l, ix, nc, u->count, &u->indices));
		}
	}
	m->uv_sets = uvs.data;
	m->uv_set_count = uvs.count;
	/* flipVCoordinates false (Source 2 Hammer's exports, decompilers): V is stored the other
	 * way up from SMD's; true, or no flag, is Source 1's and SMD's (C9) */
	const smdmx_dm_attr *fv = get(l, vd, "flipVCoordinates");
	if (fv && fv->type == SMDMX_DM_BOOL && !fv->is_array && !fv->value.b) {
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
		for (int k = 0; k < 7 && !known; k++) known = !strcmp(n, field_names[f][k]);
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
	char iname[96];
	for (int which = 0; which < 2; which++) {
		size_t nv, ni;
		const float *v = get_array(l, vd, field_names[f][5 + which], SMDMX_DM_FLOAT, &nv);
		snprintf(iname, sizeof(iname), "%sIndices", field_names[f][5 + which]);
		const int32_t *ix = get_array(l, vd, iname, SMDMX_DM_INT, &ni);
		if (!v || !ix || ni != nc) continue;
		smdmx_scalar_field *sf = which ? &m->wrinkle : &m->balance;
		sf->data = sm_owned_alloc(l->o, nv * sizeof(float) + 1, l->error);
		if (!sf->data) return false;
		if (nv) memcpy(sf->data, v, nv * sizeof(float));
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
	const float *w = get_array(l, vd, field_names[f][3], SMDMX_DM_FLOAT, &nw);
	const int32_t *ji = get_array(l, vd, field_names[f][4], SMDMX_DM_INT, &nji);
	m->weight_offsets = sm_owned_calloc(l->o, np + 1, sizeof(uint32_t), l->error);
	if (!m->weight_offsets) return false;
	sm_vec links = SM_VEC_INIT;
	bool have = count > 0 && w && ji && nw == (size_t)count * np && nji == nw;
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

/* Face sets: corners, -1 after each polygon (C8). */
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
		sm_vec corners = SM_VEC_INIT, offsets = SM_VEC_INIT;
		uint32_t *z = sm_vec_push(l->o, &offsets, sizeof(uint32_t), l->error);
		if (!z) return false;
		*z = 0;
		size_t start = 0;
		for (size_t k = 0; k < nf; k++) {
			if (faces[k] >= 0) {
				if ((size_t)faces[k] >= nc) return bad_model(l, "a face corner out of range");
				uint32_t *c = sm_vec_push(l->o, &corners, sizeof(uint32_t), l->error);
				if (!c) return false;
				*c = (uint32_t)faces[k];
				continue;
			}
			if (corners.count - start >= 3) {
				uint32_t *off = sm_vec_push(l->o, &offsets, sizeof(uint32_t), l->error);
				if (!off) return false;
				*off = (uint32_t)corners.count;
				start = corners.count;
			} else {
				corners.count = start; /* degenerate polygons are dropped */
			}
		}
		corners.count = start;
		fs->corners = corners.data;
		fs->corner_count = corners.count;
		fs->offsets = offsets.data;
		fs->polygon_count = offsets.count - 1;
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
	char iname[96];
	{
		size_t nv, nix2;
		const float *v = get_array(l, d, field_names[f][6], SMDMX_DM_FLOAT, &nv);
		snprintf(iname, sizeof(iname), "%sIndices", field_names[f][6]);
		const int32_t *ix = get_array(l, d, iname, SMDMX_DM_INT, &nix2);
		if (v && ix && nix2 == nv && m->wrinkle.indices) {
			sh->wrinkle_deltas = sm_owned_alloc(l->o, nv * sizeof(float) + 1, l->error);
			if (!sh->wrinkle_deltas) return false;
			memcpy(sh->wrinkle_deltas, v, nv * sizeof(float));
			SM_CHECK(copy_indices(l, ix, nv, m->wrinkle.count, &sh->wrinkle_indices));
			sh->wrinkle_count = nv;
		}
	}
	for (int which = 0; which < 2; which++) {
		size_t nv, nix2;
		const void *v = get_array(l, d, field_names[f][which], SMDMX_DM_VECTOR3, &nv);
		snprintf(iname, sizeof(iname), "%sIndices", field_names[f][which]);
		const int32_t *ix = get_array(l, d, iname, SMDMX_DM_INT, &nix2);
		if (!v || !ix || nix2 != nv) continue;
		smdmx_vec3 *vals = sm_owned_alloc(l->o, nv * sizeof(smdmx_vec3) + 1, l->error);
		uint32_t *idx = NULL;
		if (!vals) return false;
		memcpy(vals, v, nv * sizeof(smdmx_vec3));
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
		if (d == SMDMX_NONE || d >= l->dm->element_count) continue;
		const char *dname = delta_name(l, m, deltas, nd, i, mesh_first);
		if (!dname) return false;
		smdmx_flex_shape *sh = sm_vec_push(l->o, &l->shapes, sizeof(*sh), l->error);
		if (!sh) return false;
		memset(sh, 0, sizeof(*sh));
		sh->name = dname;
		sh->mesh = (uint32_t)mi;
		sh->frame = -1;
		const smdmx_dm_attr *cor = get(l, d, "corrected");
		sh->corrective = cor && cor->type == SMDMX_DM_BOOL && !cor->is_array && cor->value.b; /* and see mark_correctives */
		SM_CHECK(lift_deltas(l, m, d, f, sh));
	}
	return true;
}

/* The mi-th mesh: its vertex data, face sets and delta states. */
static bool lift_mesh(lift *l, size_t mi, const uint32_t *table, size_t table_count)
{
	smdmx_mesh *m = (smdmx_mesh *)l->meshes.data + mi;
	uint32_t mesh = get_el(l, ((uint32_t *)l->mesh_dags.data)[mi], "shape");
	uint32_t vd = vertex_data_of(l, mesh);
	if (vd == SMDMX_NONE) return bad_model(l, "a mesh without vertex data");
	int f = get(l, vd, "position$0") ? 1 : 0;
	SM_CHECK(lift_positions_normals(l, m, vd, f));
	SM_CHECK(lift_uv_sets(l, m, vd, f));
	count_lost_fields(l, &l->dm->elements[vd], f);
	SM_CHECK(lift_balance_wrinkle(l, m, vd, f));
	SM_CHECK(lift_weights(l, m, vd, f, table, table_count));
	SM_CHECK(lift_face_sets(l, m, mesh));
	return lift_delta_states(l, m, mi, mesh, f);
}

static bool lift_clips(lift *l, uint32_t root)
{
	uint32_t list = get_el(l, root, "animationList");
	size_t nc;
	const uint32_t *clips = get_els(l, list, "animations", &nc);
	if (!nc) return true;
	smdmx_clip *out = sm_owned_calloc(l->o, nc, sizeof(smdmx_clip), l->error);
	if (!out) return false;
	size_t made = 0;
	for (size_t c = 0; c < nc; c++) {
		uint32_t clip = clips[c];
		if (clip == SMDMX_NONE || clip >= l->dm->element_count) continue;
		smdmx_clip *cl = &out[made++];
		cl->name = l->dm->elements[clip].name;
		const smdmx_dm_attr *fr = get(l, clip, "frameRate");
		cl->frame_rate = fr && fr->type == SMDMX_DM_INT ? fr->value.i : fr && fr->type == SMDMX_DM_FLOAT ? fr->value.f : 30;
		if (!(cl->frame_rate > 0)) cl->frame_rate = 30;
		uint32_t tf = get_el(l, clip, "timeFrame");
		const smdmx_dm_attr *a;
		/* A key's time in the clip's parent: (t - offset) / scale + start (DmeClip's
		 * ToChildMediaTime the other way round). */
		int32_t offset = 0;
		double tscale = 1;
		if ((a = get(l, tf, "start")) && !a->is_array) cl->start = a->value.i;
		if ((a = get(l, tf, "startTime")) && !a->is_array) cl->start = a->value.i;
		if ((a = get(l, tf, "duration")) && !a->is_array) cl->duration = a->value.i;
		if ((a = get(l, tf, "durationTime")) && !a->is_array) cl->duration = a->value.i;
		if ((a = get(l, tf, "offset")) && !a->is_array) offset = a->value.i;
		if ((a = get(l, tf, "offsetTime")) && !a->is_array) offset = a->value.i;
		if ((a = get(l, tf, "scale")) && !a->is_array && a->type == SMDMX_DM_FLOAT && a->value.f > 0 && isfinite(a->value.f))
			tscale = a->value.f;
		size_t nch;
		const uint32_t *chans = get_els(l, clip, "channels", &nch);
		smdmx_channel *ch = sm_owned_calloc(l->o, l->joints.count + 1, sizeof(smdmx_channel), l->error);
		uint8_t *has = sm_owned_calloc(l->o, l->joints.count + 1, 1, l->error);
		if (!ch || !has) return false;
		int32_t last = cl->start;
		for (size_t k = 0; k < nch; k++) {
			uint32_t chan = chans[k];
			uint32_t to = get_el(l, chan, "toElement");
			if (to == SMDMX_NONE || to >= l->dm->element_count) continue;
			uint32_t j = ((uint32_t *)l->xf_joint.data)[to];
			if (j == SMDMX_NONE) j = ((uint32_t *)l->joint_of.data)[to];
			if (j == SMDMX_NONE) continue;
			const smdmx_dm_attr *ta = get(l, chan, "toAttribute");
			if (!ta || ta->type != SMDMX_DM_STRING) continue;
			bool orient = strcmp(ta->value.s, "orientation") == 0;
			if (!orient && strcmp(ta->value.s, "position") != 0) continue;
			size_t nl;
			const uint32_t *layers = get_els(l, get_el(l, chan, "log"), "layers", &nl);
			if (!nl) continue;
			const smdmx_dm_attr *times = get(l, layers[0], "times");
			size_t nv;
			const void *vals = get_array(l, layers[0], "values", orient ? SMDMX_DM_QUATERNION : SMDMX_DM_VECTOR3, &nv);
			if (!times || !times->is_array || (times->type != SMDMX_DM_TIME && times->type != SMDMX_DM_INT) ||
			    times->value.array.count != nv || !vals)
				continue;
			const int32_t *t = times->value.array.data;
			for (size_t i = 1; i < nv; i++)
				if (t[i] <= t[i - 1]) return bad_model(l, "key times that do not increase");
			smdmx_channel *c2 = &ch[j];
			c2->joint = j;
			has[j] = 1;
			/* Copies: the scene outlives the datamodel. */
			int32_t *tc = sm_owned_alloc(l->o, nv * sizeof(int32_t) + 1, l->error);
			size_t vsize = nv * (orient ? sizeof(smdmx_quat) : sizeof(smdmx_vec3));
			void *vc = sm_owned_alloc(l->o, vsize + 1, l->error);
			if (!tc || !vc) return false;
			for (size_t i = 0; i < nv; i++) {
				double pt = tscale == 1 ? (double)t[i] - offset + cl->start : floor(((double)t[i] - offset) / tscale + 0.5) + cl->start;
				if (!(pt >= INT32_MIN && pt <= INT32_MAX)) return bad_model(l, "a key beyond 2^31 ticks once its clip's time frame is applied");
				tc[i] = (int32_t)pt;
				if (i && tc[i] <= tc[i - 1]) return bad_model(l, "key times that do not increase once its clip's time frame is applied");
			}
			if (nv && tc[nv - 1] > last) last = tc[nv - 1];
			memcpy(vc, vals, vsize);
			if (orient) {
				c2->orientation_times = tc;
				c2->orientations = vc;
				c2->orientation_count = nv;
			} else {
				c2->position_times = tc;
				c2->positions = vc;
				c2->position_count = nv;
			}
		}
		if (!cl->duration) {
			int64_t d = (int64_t)last - cl->start;
			if (d > INT32_MAX) return bad_model(l, "a clip whose keys span more than 2^31 - 1 ticks");
			cl->duration = (int32_t)d;
		}
		cl->channels = sm_owned_calloc(l->o, l->joints.count + 1, sizeof(smdmx_channel), l->error);
		if (!cl->channels) return false;
		for (size_t j = 0; j < l->joints.count; j++)
			if (has[j]) cl->channels[cl->channel_count++] = ch[j];
	}
	l->s->clips = out;
	l->s->clip_count = made;
	return true;
}

/* Flex rules from the DmeFlexRules among the combination operator's targets: each rule
 * element is named after the flex it sets; an expression keeps its "expr" as written. A rule
 * element reached through several rule sets is lifted once. */
static bool lift_flex_rules(lift *l, uint32_t op)
{
	size_t nt, total = 0, unknown = 0;
	const uint32_t *targets = get_els(l, op, "targets", &nt);
	for (size_t t = 0; t < nt; t++) {
		size_t k;
		if (is_type(l, targets[t], "DmeFlexRules")) {
			get_els(l, targets[t], "deltaStates", &k);
			total += k;
		}
	}
	if (!total) return true;
	smdmx_flex_rule *fr = sm_owned_calloc(l->o, total, sizeof(*fr), l->error);
	sm_vec seen = SM_VEC_INIT;
	if (!fr || !sm_vec_reserve(l->o, &seen, 1, l->dm->element_count, l->error)) return false;
	uint8_t *lifted = seen.data;
	memset(lifted, 0, l->dm->element_count);
	size_t made = 0;
	for (size_t t = 0; t < nt; t++) {
		if (!is_type(l, targets[t], "DmeFlexRules")) continue;
		size_t k;
		const uint32_t *rules = get_els(l, targets[t], "deltaStates", &k);
		for (size_t i = 0; i < k; i++) {
			uint32_t e = rules[i];
			if (e >= l->dm->element_count || lifted[e]) continue;
			lifted[e] = 1;
			smdmx_flex_rule r = { l->dm->elements[e].name, SMDMX_FLEX_RULE_EXPRESSION, NULL };
			if (is_type(l, e, "DmeFlexRulePassThrough")) r.kind = SMDMX_FLEX_RULE_PASS_THROUGH;
			else if (is_type(l, e, "DmeFlexRuleLocalVar")) r.kind = SMDMX_FLEX_RULE_LOCAL_VAR;
			else if (is_type(l, e, "DmeFlexRuleExpression")) {
				const smdmx_dm_attr *x = get(l, e, "expr");
				r.expression = x && x->type == SMDMX_DM_STRING && !x->is_array ? x->value.s : "";
			} else {
				unknown++;
				continue;
			}
			r.name = sm_strdup(l->o, r.name, strlen(r.name), l->error);
			if (!r.name) return false;
			if (r.expression) {
				r.expression = sm_strdup(l->o, r.expression, strlen(r.expression), l->error);
				if (!r.expression) return false;
			}
			fr[made++] = r;
		}
	}
	sm_vec_release(l->o, &seen, 1);
	if (unknown)
		sm_warn(l->warnings, SMDMX_WARNING_DROPPED, 0, 0, "%zu flex rule%s of a type smdmx does not know left out: the shapes %s drive%s are driven "
		        "by nothing; write %s into the QC by hand",
		        unknown, unknown == 1 ? "" : "s", unknown == 1 ? "it" : "they", unknown == 1 ? "s" : "", unknown == 1 ? "it" : "them");
	l->s->flex_rules = fr;
	l->s->flex_rule_count = made;
	return true;
}

/* Flex controllers from the combination operator (C10). */
static bool lift_controls(lift *l, uint32_t root)
{
	uint32_t op = get_el(l, root, "combinationOperator");
	SM_CHECK(lift_flex_rules(l, op));
	size_t n;
	const uint32_t *controls = get_els(l, op, "controls", &n);
	if (!n) return true;
	smdmx_flex_controller *fc = sm_owned_calloc(l->o, n, sizeof(*fc), l->error);
	if (!fc) return false;
	size_t made = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = controls[i];
		if (c == SMDMX_NONE || c >= l->dm->element_count) continue;
		smdmx_flex_controller *f = &fc[made++];
		f->name = l->dm->elements[c].name;
		size_t k;
		const char *const *raw = get_array(l, c, "rawControlNames", SMDMX_DM_STRING, &k);
		f->raw_controls.data = sm_owned_calloc(l->o, k + 1, sizeof(char *), l->error);
		if (!f->raw_controls.data) return false;
		for (size_t r = 0; r < k; r++) f->raw_controls.data[r] = raw[r];
		f->raw_controls.count = k;
		const smdmx_dm_attr *a;
		if ((a = get(l, c, "stereo")) && a->type == SMDMX_DM_BOOL && !a->is_array) f->stereo = a->value.b;
		if ((a = get(l, c, "eyelid")) && a->type == SMDMX_DM_BOOL && !a->is_array) f->eyelid = a->value.b;
		f->max = 1;
		if ((a = get(l, c, "flexMin")) && a->type == SMDMX_DM_FLOAT && !a->is_array) f->min = a->value.f;
		if ((a = get(l, c, "flexMax")) && a->type == SMDMX_DM_FLOAT && !a->is_array) f->max = a->value.f;
		const float *ws = get_array(l, c, "wrinkleScales", SMDMX_DM_FLOAT, &k);
		if (ws && k == f->raw_controls.count) {
			f->wrinkle_scales.data = sm_owned_alloc(l->o, k * sizeof(float) + 1, l->error);
			if (!f->wrinkle_scales.data) return false;
			memcpy(f->wrinkle_scales.data, ws, k * sizeof(float));
			f->wrinkle_scales.count = k;
		}
	}
	l->s->flex_controllers = fc;
	l->s->flex_controller_count = made;
	/* Domination rules: the names that dominate and the names they suppress (C10). */
	const uint32_t *rules = get_els(l, op, "dominators", &n);
	if (n) {
		smdmx_domination_rule *dr = sm_owned_calloc(l->o, n, sizeof(*dr), l->error);
		if (!dr) return false;
		size_t kept = 0;
		for (size_t i = 0; i < n; i++) {
			if (rules[i] == SMDMX_NONE || rules[i] >= l->dm->element_count) continue;
			smdmx_domination_rule *r = &dr[kept++];
			for (int which = 0; which < 2; which++) {
				size_t k;
				const char *const *names = get_array(l, rules[i], which ? "suppressed" : "dominators", SMDMX_DM_STRING, &k);
				smdmx_string_list *list = which ? &r->suppressed : &r->dominators;
				list->data = sm_owned_calloc(l->o, k + 1, sizeof(char *), l->error);
				if (!list->data) return false;
				for (size_t j = 0; j < k; j++) {
					list->data[j] = sm_strdup(l->o, names[j], strlen(names[j]), l->error);
					if (!list->data[j]) return false;
				}
				list->count = k;
			}
		}
		l->s->domination_rules = dr;
		l->s->domination_rule_count = kept;
	}
	return true;
}

smdmx_scene *smdmx_model_to_scene(const smdmx_dm *dm, const smdmx_model_options *options, smdmx_error *error,
                                  smdmx_warnings *warnings)
{
	memset(error, 0, sizeof(*error));
	if (warnings) memset(warnings, 0, sizeof(*warnings));
	smdmx_model_options o;
	memset(&o, 0, sizeof(o));
	if (options) o = *options;
	smdmx_scene *s = sm_scene_new(&o.allocator, error);
	if (!s) return NULL;
	lift l;
	memset(&l, 0, sizeof(l));
	l.dm = dm;
	l.s = s;
	l.o = s->owner;
	l.error = error;
	l.warnings = warnings;
	l.joints = l.joint_of = l.xf_joint = l.meshes = l.mesh_dags = l.materials = l.shapes = l.attachments = (sm_vec)SM_VEC_INIT;
	uint32_t root = dm->root, model = SMDMX_NONE;
	if (root != SMDMX_NONE) {
		model = get_el(&l, root, "model");
		if (model == SMDMX_NONE) model = get_el(&l, root, "skeleton");
	}
	/* A file may hold only flex controllers (a combination operator, no model). */
	bool controls_only = model == SMDMX_NONE && root != SMDMX_NONE && get_el(&l, root, "combinationOperator") != SMDMX_NONE;
	bool ok = model != SMDMX_NONE || controls_only ||
	          bad_model(&l, "the root has neither \"model\" nor \"skeleton\" nor \"combinationOperator\"");
	ok = ok && lift_hierarchy(&l, model) && order_joints(&l, model) && check_expansion(&l, root);
	uint32_t *table = NULL;
	size_t table_count = 0;
	ok = ok && joint_table(&l, model, &table, &table_count);
	for (size_t m = 0; ok && m < l.meshes.count; m++) ok = lift_mesh(&l, m, table, table_count);
	ok = ok && mark_correctives(&l);
	if (ok && l.lost_fields)
		sm_warn_n(warnings, SMDMX_WARNING_DROPPED_VERTEX_DATA, l.lost_fields, 0, 0,
		          "vertex data smdmx does not carry, left out: %s%s%s%s%s%s%s%s; keep the source DMX if they matter", l.lost_names[0], l.lost_named > 1 ? ", " : "",
		          l.lost_named > 1 ? l.lost_names[1] : "", l.lost_named > 2 ? ", " : "", l.lost_named > 2 ? l.lost_names[2] : "",
		          l.lost_named > 3 ? ", " : "", l.lost_named > 3 ? l.lost_names[3] : "", l.lost_fields > l.lost_named ? ", ..." : "");
	if (ok) {
		s->name = dm->elements[root].name;
		s->joints = l.joints.data;
		s->joint_count = l.joints.count;
		s->meshes = l.meshes.data;
		s->mesh_count = l.meshes.count;
		s->materials = l.materials.data;
		s->material_count = l.materials.count;
		s->flex_shapes = l.shapes.data;
		s->flex_shape_count = l.shapes.count;
		s->attachments = l.attachments.data;
		s->attachment_count = l.attachments.count;
		const smdmx_dm_attr *up = get(&l, model, "upAxis");
		if (up && up->type == SMDMX_DM_STRING && !up->is_array && up->value.s[0]) s->up_axis = up->value.s[0];
		/* Source 2's DmeAxisSystem (C12): upAxis 1, 2, 3 for X, Y, Z */
		uint32_t ax = get_el(&l, model, "axisSystem");
		const smdmx_dm_attr *ua = ax != SMDMX_NONE ? get(&l, ax, "upAxis") : NULL;
		if (ua && ua->type == SMDMX_DM_INT && !ua->is_array && ua->value.i >= 1 && ua->value.i <= 3 && !(up && up->type == SMDMX_DM_STRING))
			s->up_axis = "XYZ"[ua->value.i - 1];
		s->source.format = SMDMX_SOURCE_DMX;
		s->source.version = dm->format_version;
		s->source.encoding = dm->encoding;
		s->source.encoding_version = dm->encoding_version;
		s->source.smd_kind = l.meshes.count ? SMDMX_SMD_REFERENCE : SMDMX_SMD_ANIMATION;
		ok = lift_clips(&l, root) && lift_controls(&l, root);
	}
	if (ok && s->source.encoding) {
		s->source.encoding = sm_strdup(l.o, s->source.encoding, strlen(s->source.encoding), error);
		ok = s->source.encoding != NULL;
	}
	/* Names point into the datamodel: copy them into the scene. */
	for (size_t j = 0; ok && j < s->joint_count; j++)
		ok = (s->joints[j].name = sm_strdup(l.o, s->joints[j].name, strlen(s->joints[j].name), error)) != NULL;
	for (size_t m = 0; ok && m < s->mesh_count; m++)
		ok = (s->meshes[m].name = sm_strdup(l.o, s->meshes[m].name, strlen(s->meshes[m].name), error)) != NULL;
	for (size_t m = 0; ok && m < s->mesh_count; m++)
		for (size_t u = 0; ok && u < s->meshes[m].uv_set_count; u++)
			ok = (s->meshes[m].uv_sets[u].name =
			          sm_strdup(l.o, s->meshes[m].uv_sets[u].name, strlen(s->meshes[m].uv_sets[u].name), error)) != NULL;
	for (size_t i = 0; ok && i < s->material_count; i++)
		ok = (s->materials[i].name = sm_strdup(l.o, s->materials[i].name, strlen(s->materials[i].name), error)) != NULL;
	for (size_t i = 0; ok && i < s->flex_shape_count; i++)
		ok = (s->flex_shapes[i].name = sm_strdup(l.o, s->flex_shapes[i].name, strlen(s->flex_shapes[i].name), error)) != NULL;
	for (size_t i = 0; ok && i < s->clip_count; i++)
		ok = (s->clips[i].name = sm_strdup(l.o, s->clips[i].name, strlen(s->clips[i].name), error)) != NULL;
	for (size_t i = 0; ok && i < s->attachment_count; i++)
		ok = (s->attachments[i].name = sm_strdup(l.o, s->attachments[i].name, strlen(s->attachments[i].name), error)) != NULL;
	for (size_t i = 0; ok && i < s->flex_controller_count; i++) {
		smdmx_flex_controller *f = &s->flex_controllers[i];
		ok = (f->name = sm_strdup(l.o, f->name, strlen(f->name), error)) != NULL;
		for (size_t r = 0; ok && r < f->raw_controls.count; r++)
			ok = (f->raw_controls.data[r] = sm_strdup(l.o, f->raw_controls.data[r], strlen(f->raw_controls.data[r]), error)) !=
			     NULL;
	}
	if (ok) ok = (s->name = sm_strdup(l.o, s->name, strlen(s->name), error)) != NULL;
	/* where each joint and mesh came from, for messages that point into the file */
	if (ok) {
		uint32_t *je = sm_owned_calloc(l.o, s->joint_count + 1, sizeof(uint32_t), error);
		uint32_t *me = sm_owned_calloc(l.o, s->mesh_count + 1, sizeof(uint32_t), error);
		ok = je && me;
		for (size_t j = 0; ok && j < s->joint_count; j++) je[j] = SMDMX_NONE;
		const uint32_t *jo = l.joint_of.data;
		for (size_t e = 0; ok && jo && e < dm->element_count; e++)
			if (jo[e] != SMDMX_NONE && jo[e] < s->joint_count) je[jo[e]] = (uint32_t)e;
		for (size_t m = 0; ok && m < s->mesh_count; m++) me[m] = ((const uint32_t *)l.mesh_dags.data)[m];
		if (ok) {
			s->source.joint_elements = je;
			s->source.mesh_elements = me;
		}
	}
	sm_vec_release(l.o, &l.joint_of, sizeof(uint32_t));
	sm_vec_release(l.o, &l.xf_joint, sizeof(uint32_t));
	sm_names_free(&l.o->alloc, &l.mat_names);
	if (ok) ok = smdmx_scene_validate(s, error);
	if (!ok) {
		smdmx_scene_free(s);
		return NULL;
	}
	return s;
}
