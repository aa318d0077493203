/* The DmeModel schema (doc/formats.md C, D), lifting: a datamodel into a scene (the bounds on
 * how much sharing may expand, the joint hierarchy and its order, clips, flex rules and
 * controls, the scene whole); meshes in dmx_lift_mesh.c. It knows elements and attributes,
 * never bytes or text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dmx_model.h"
#include "model/model_valid.h"
#include "support/num.h"
#include "smdmx/math.h"

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
	if (!lift_el(l, e)) return;
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
		if (!lift_el(l, mesh)) continue;
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

/* studiomdl reads a DmeTransform's orientation through QuaternionMatrix, which assumes a
 * unit quaternion and does not normalise, then takes Euler angles of that matrix with
 * MatrixAngles (yaw and pitch from its first column, roll from its second and third rows'
 * last entries), and builds the bone from the angles (dmxsupport.cpp: LoadBindPose and
 * ComputeFramePose; mathlib: QuaternionMatrix, MatrixAngles). For a unit quaternion that is
 * the quaternion's rotation; for another (Valve's Maya exporter writes some into orientation
 * keys: norms 0.73 to 1.14 in Left 4 Dead 2's weapons, where an identity scaled to 1.14 stands
 * beside a joint scaled in Maya) it is the rotation those angles make, which is what this
 * gives, so that a model converted from the file is the model studiomdl builds from it.
 * Quaternions within the scene's unit tolerance are kept as written; those turned are
 * counted in l->turned (the format notes, "Orientations that are not unit quaternions"). */
static void studiomdl_rotation(lift *l, float q[4])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double n = sqrt(x * x + y * y + z * z + w * w);
	if (!isfinite(n) || fabs(n - 1) <= 1e-3) return;
	double m00 = 1 - 2 * (y * y + z * z), m10 = 2 * (x * y + w * z), m20 = 2 * (x * z - w * y);
	double m01 = 2 * (x * y - w * z), m11 = 1 - 2 * (x * x + z * z), m21 = 2 * (y * z + w * x);
	double m22 = 1 - 2 * (x * x + y * y);
	double xy = sqrt(m00 * m00 + m10 * m10), e[3], r[4];
	if (xy > 0.001) {
		e[0] = sm_atan2(m21, m22);
		e[1] = sm_atan2(-m20, xy);
		e[2] = sm_atan2(m10, m00);
	} else { /* gimbal lock: no roll, yaw from the second column */
		e[0] = 0;
		e[1] = sm_atan2(-m20, xy);
		e[2] = sm_atan2(-m01, m11);
	}
	smdmx_euler_to_quat(e, r);
	for (int i = 0; i < 4; i++) q[i] = (float)r[i];
	if (l->turned++ == 0 || n < l->turned_min) l->turned_min = n;
	if (l->turned == 1 || n > l->turned_max) l->turned_max = n;
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
		if (!lift_el(l, e) || seen[e]) continue;
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
			studiomdl_rotation(l, a->transform.orientation);
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
	smdmx_joint *js = l->joints.data;
	for (size_t j = 0; j < l->joints.count; j++) studiomdl_rotation(l, js[j].bind.orientation);
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
		if (lift_el(l, ts[t]))
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
		if (!lift_el(l, e)) continue;
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
		if (lift_el(l, e))
			j = transforms ? ((uint32_t *)l->xf_joint.data)[e] : ((uint32_t *)l->joint_of.data)[e];
		/* Format 22 lists the DmeModel first: weights on it bind to no bone (C11). */
		if (e == model) j = MODEL_SLOT;
		(*table)[i] = j;
	}
	return true;
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
		if (!lift_el(l, clip)) continue;
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
			if (!lift_el(l, to)) continue;
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
				for (size_t i = 0; i < nv; i++) studiomdl_rotation(l, ((smdmx_quat *)vc)[i]);
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
			if (!lift_el(l, e) || lifted[e]) continue;
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
		if (!lift_el(l, c)) continue;
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
			if (!lift_el(l, rules[i])) continue;
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

/* The model's up axis (the format notes, "The up axis of a DmeModel"): its DmeAxisSystem when it
 * has one, else its upAxis string. Valve's DmeModel answers IsZUp from the axis system alone;
 * the string is set to "Y" when a DmeModel is made and nothing changes it (ZUp() sets the axis
 * system), so in files written through Valve's datamodel (Source 2 Hammer's exports, a Dota 2
 * workshop model) "Y" stands beside an axis system Z with Z-up geometry. The string without
 * an axis system is the writer's word (vsDmxIO writes its -upAxis option there). */
static bool lift_up_axis(lift *l, uint32_t model)
{
	char said = 0, system = 0;
	const smdmx_dm_attr *up = get(l, model, "upAxis");
	if (up && up->type == SMDMX_DM_STRING && !up->is_array && up->value.s[0] && !up->value.s[1]) {
		char c = (char)(up->value.s[0] & ~0x20);
		if (c == 'X' || c == 'Y' || c == 'Z') said = c;
	}
	/* DmeAxisSystem (C12): upAxis 1, 2, 3 for +X, +Y, +Z, and -1 to -3 for the negative axes;
	 * coordSys 0 right-handed, 1 left-handed */
	uint32_t ax = get_el(l, model, "axisSystem");
	const smdmx_dm_attr *ua = ax != SMDMX_NONE ? get(l, ax, "upAxis") : NULL, *cs = ax != SMDMX_NONE ? get(l, ax, "coordSys") : NULL;
	if (ua && ua->type == SMDMX_DM_INT && !ua->is_array) {
		if (ua->value.i >= 1 && ua->value.i <= 3) system = "XYZ"[ua->value.i - 1];
		else if (ua->value.i >= -3 && ua->value.i <= -1)
			return sm_fail(l->error, SMDMX_ERROR_INVALID_SCENE, 0, 0,
			               "not a usable model: its axis system is -%c up, and smdmx turns only +X and +Y up to Source's Z",
			               "XYZ"[-ua->value.i - 1]);
		if (system && cs && cs->type == SMDMX_DM_INT && !cs->is_array && cs->value.i == 1)
			return bad_model(l, "its axis system is left-handed, and smdmx does not mirror a model");
	}
	l->s->up_axis = system ? system : said ? said : 'Z';
	if (system && said && said != system)
		sm_warn(l->warnings, SMDMX_WARNING_UP_AXIS_CONFLICT, 0, 0,
		        "the model's upAxis says %c and its axis system %c: %c up taken, as Valve's tools take it (a DmeModel's upAxis "
		        "is \"Y\" unless set, and its axis system says the up axis); nothing to do",
		        said, system, system);
	return true;
}

/* v to three significant digits, as text whatever the locale (support/num.h). */
static void three_digits(double v, char out[SM_FLOAT_MAX])
{
	double p = v > 0 && isfinite(v) ? sm_pow10i(2 - sm_floor_log10(v)) : 1;
	sm_format_shortest((float)(round(v * p) / p), out);
}

static smdmx_scene *to_scene(const smdmx_dm *dm, sm_owner *take, const smdmx_model_options *options, smdmx_error *error,
                             smdmx_warnings *warnings);

smdmx_scene *smdmx_model_to_scene(const smdmx_dm *dm, const smdmx_model_options *options, smdmx_error *error,
                                  smdmx_warnings *warnings)
{
	return to_scene(dm, NULL, options, error, warnings);
}

smdmx_scene *sm_model_to_scene_taking(smdmx_dm *dm, const smdmx_model_options *options, smdmx_error *error,
                                      smdmx_warnings *warnings)
{
	return to_scene(dm, sm_dm_memory(dm), options, error, warnings);
}

/* The scene of dm, taking its big arrays from take (its memory) when not NULL. */
static smdmx_scene *to_scene(const smdmx_dm *dm, sm_owner *take, const smdmx_model_options *options, smdmx_error *error,
                             smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	sm_warnings_start(warnings, options ? &options->allocator : NULL);
	if (!dm) return sm_fail_null(error, "smdmx_model_to_scene", "dm"), NULL;
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
	sm_adopt adopt;
	if (take) {
		sm_adopt_init(&adopt, take, l.o);
		l.adopt = &adopt;
	}
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
	for (size_t m = 0; ok && m < l.meshes.count; m++) ok = mdl_lift_mesh(&l, m, table, table_count);
	ok = ok && mdl_mark_correctives(&l);
	if (ok && l.unused_corners)
		sm_warn_n(warnings, SMDMX_WARNING_DROPPED, l.unused_count, 0, 0,
		          "a corner no face uses, after the last one a face does, points past its mesh's positions (as s&box "
		          "writes its physics meshes; %zu mesh%s, the first '%s'): left out; nothing to do",
		          l.unused_corners, l.unused_corners > 1 ? "es" : "", l.unused_first);
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
		ok = lift_up_axis(&l, model);
		s->source.format = SMDMX_SOURCE_DMX;
		s->source.version = dm->format_version;
		s->source.encoding = dm->encoding;
		s->source.encoding_version = dm->encoding_version;
		s->source.smd_kind = l.meshes.count ? SMDMX_SMD_REFERENCE : SMDMX_SMD_ANIMATION;
		ok = ok && lift_clips(&l, root) && lift_controls(&l, root);
	}
	if (ok && l.turned) {
		char lo[SM_FLOAT_MAX], hi[SM_FLOAT_MAX];
		three_digits(l.turned_min, lo);
		three_digits(l.turned_max, hi);
		sm_warn_n(warnings, SMDMX_WARNING_ROTATION_NOT_UNIT, l.turned, 0, 0,
		          "an orientation that is not a unit quaternion (norms %s to %s, as Valve's Maya exporter writes some) read as "
		          "the rotation studiomdl makes of it; nothing to do",
		          lo, hi);
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
	if (l.adopt) sm_adopt_free(l.adopt);
	if (l.face_set_refs) sm_free(&l.o->alloc, l.face_set_refs, dm->element_count + 1);
	if (ok) ok = smdmx_scene_validate(s, error) && sm_warnings_kept(warnings, error);
	if (!ok) {
		smdmx_scene_free(s);
		return NULL;
	}
	return s;
}
