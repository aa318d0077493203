/* SMD and VTA reading, the scene built from what was read: meshes from the triangles
 * block, a VTA's base mesh and shapes, the clip of an animation, the scene whole. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smd/smd_read.h"

/* ---- building the scene ------------------------------------------------------------------- */

static bool build_mesh(reader *r)
{
	smdmx_scene *sc = r->scene;
	smdmx_mesh *m = &sc->meshes[sc->mesh_count++];
	memset(m, 0, sizeof(*m));
	m->name = sc->name;
	m->parent_joint = SMDMX_NONE;
	m->transform.orientation[3] = 1.0f;
	m->corner_count = r->corner_count;
	m->positions = r->positions.data;
	m->position_count = r->positions.count;
	m->position_indices = r->position_indices.data;
	m->weight_offsets = r->weight_offsets.data;
	m->weights = r->weights.data;
	m->weight_count = r->weights.count;
	m->normals = r->normals.data;
	m->normal_count = r->normals.count;
	m->normal_indices = r->normal_indices.data;
	m->uv_sets = sm_owned_calloc(r->o, r->uv_count, sizeof(smdmx_uv_set), r->error);
	if (!m->uv_sets) return false;
	m->uv_set_count = r->uv_count;
	for (size_t s = 0; s < r->uv_count; s++) {
		char name[32];
		if (s == 0) snprintf(name, sizeof(name), "textureCoordinates");
		else snprintf(name, sizeof(name), "texcoord$%zu", s);
		m->uv_sets[s].name = sm_strdup(r->o, name, strlen(name), r->error);
		if (!m->uv_sets[s].name) return false;
		m->uv_sets[s].data = r->uv[s].data.data;
		m->uv_sets[s].count = r->uv[s].data.count;
		m->uv_sets[s].indices = r->uv[s].indices.data;
		smdr_dedup_free(r, &r->uv[s].table);
	}
	m->face_set_count = r->face_sets.count;
	m->face_sets = sm_owned_calloc(r->o, r->face_sets.count, sizeof(smdmx_face_set), r->error);
	if (!m->face_sets && r->face_sets.count) return false;
	const faceset_build *fb = r->face_sets.data;
	for (size_t i = 0; i < r->face_sets.count; i++) {
		smdmx_face_set *f = &m->face_sets[i];
		f->material = fb[i].material;
		f->corners = fb[i].corners.data;
		f->corner_count = fb[i].corners.count;
		f->offsets = fb[i].offsets.data;
		f->polygon_count = fb[i].offsets.count - 1;
	}
	smdr_dedup_free(r, &r->position_table);
	smdr_dedup_free(r, &r->normal_table);
	smdr_dedup_free(r, &r->material_table);
	sc->materials = r->materials.data;
	sc->material_count = r->materials.count;
	return true;
}

/* A VTA becomes a mesh with one corner per vertex id and no faces; each later frame is a
 * flex shape whose deltas index the base positions and normals (one per id). */
static bool build_vta_mesh(reader *r)
{
	smdmx_scene *sc = r->scene;
	uint32_t mi = (uint32_t)sc->mesh_count;
	smdmx_mesh *m = &sc->meshes[sc->mesh_count++];
	memset(m, 0, sizeof(*m));
	size_t n = r->vta_base.count;
	m->name = sc->name;
	m->parent_joint = SMDMX_NONE;
	m->transform.orientation[3] = 1.0f;
	m->corner_count = n;
	m->positions = sm_owned_calloc(r->o, n, sizeof(smdmx_vec3), r->error);
	m->normals = sm_owned_calloc(r->o, n, sizeof(smdmx_vec3), r->error);
	m->position_indices = sm_owned_calloc(r->o, n, sizeof(uint32_t), r->error);
	m->normal_indices = sm_owned_calloc(r->o, n, sizeof(uint32_t), r->error);
	if (n && (!m->positions || !m->normals || !m->position_indices || !m->normal_indices)) return false;
	m->position_count = m->normal_count = n;
	const float *b = r->vta_base.data;
	for (size_t i = 0; i < n; i++) {
		memcpy(m->positions[i], b + 6 * i, sizeof(smdmx_vec3));
		memcpy(m->normals[i], b + 6 * i + 3, sizeof(smdmx_vec3));
		m->position_indices[i] = m->normal_indices[i] = (uint32_t)i;
	}
	/* The shapes are the skeleton's frames after the base, each with the vertex lines of its
	 * 'time' in vertexanimation, or none: a shape that moves nothing may be left out there.
	 * Both lists ascend, so they merge in one pass. */
	const frame_info *skel = r->frames.data;
	int64_t base_frame = r->vta_frames.count ? ((const frame_info *)r->vta_frames.data)[0].number : INT64_MAX;
	size_t extra = 0;
	for (size_t f = 0, i = 0; f < r->frames.count; f++) {
		const smdmx_flex_shape *have = r->shapes.data;
		while (i < r->shapes.count && have[i].frame < skel[f].number) i++;
		if (skel[f].number > base_frame && (i == r->shapes.count || have[i].frame != skel[f].number)) extra++;
	}
	if (extra) {
		size_t nv = r->shapes.count, total = nv + extra;
		smdmx_flex_shape *merged = sm_owned_calloc(r->o, total, sizeof(smdmx_flex_shape), r->error);
		if (!merged) return false;
		const smdmx_flex_shape *have = r->shapes.data;
		size_t i = 0, k = 0;
		for (size_t f = 0; f <= r->frames.count; f++) {
			int64_t until = f < r->frames.count ? skel[f].number : INT64_MAX;
			while (i < nv && have[i].frame <= until) merged[k++] = have[i++];
			if (f == r->frames.count || skel[f].number <= base_frame || (k && merged[k - 1].frame == skel[f].number)) continue;
			smdmx_flex_shape *e = &merged[k++];
			e->frame = (int32_t)skel[f].number;
			e->line = skel[f].line;
		}
		sm_vec_release(r->o, &r->shapes, sizeof(smdmx_flex_shape));
		r->shapes.data = merged;
		r->shapes.count = r->shapes.cap = total;
	}
	smdmx_flex_shape *sh = r->shapes.data;
	for (size_t i = 0, f = 0; i < r->shapes.count; i++) {
		sh[i].mesh = mi;
		if (!sh[i].name) {
			/* The name from the skeleton's time line, else flex_N */
			while (f < r->frames.count && skel[f].number < sh[i].frame) f++;
			if (f < r->frames.count && skel[f].number == sh[i].frame) sh[i].name = skel[f].name;
		}
		if (!sh[i].name) {
			char name[32];
			snprintf(name, sizeof(name), "flex_%ld", (long)sh[i].frame);
			sh[i].name = sm_strdup(r->o, name, strlen(name), r->error);
			if (!sh[i].name) return false;
		}
	}
	/* A frame is a shape by its number (decision 10): frames of one name (Valve's XSI
	 * exports name eyelid frames by the eyelid) become shapes of their own names. */
	sm_names names;
	memset(&names, 0, sizeof(names));
	bool ok = sm_names_init(&r->o->alloc, &names, r->shapes.count) || sm_fail_oom(r->error);
	for (size_t i = 0, f = 0; ok && i < r->shapes.count; i++) {
		uint32_t first = sm_names_get(&names, sh[i].name);
		if (first != SMDMX_NONE) {
			/* said at the skeleton's time line, where the name is */
			while (f < r->frames.count && skel[f].number < sh[i].frame) f++;
			uint32_t line = f < r->frames.count && skel[f].number == sh[i].frame ? skel[f].line : sh[i].line;
			char name[300];
			snprintf(name, sizeof(name), "%.200s_%ld", sh[i].name, (long)sh[i].frame);
			for (unsigned again = 2; sm_names_get(&names, name) != SMDMX_NONE; again++)
				snprintf(name, sizeof(name), "%.200s_%ld_%u", sh[i].name, (long)sh[i].frame, again);
			sm_warn(r->warnings, SMDMX_WARNING_SHAPE_RENAMED, line, 1,
			        "VTA frames %ld and %ld are both named '%s': frame %ld is the shape '%s' (a QC's flex lines name a frame by "
			        "its number); nothing to do",
			        (long)sh[first].frame, (long)sh[i].frame, sh[i].name, (long)sh[i].frame, name);
			sh[i].name = sm_strdup(r->o, name, strlen(name), r->error);
			ok = sh[i].name != NULL;
		}
		ok = ok && (sm_names_put(&r->o->alloc, &names, sh[i].name, (uint32_t)i, true) || sm_fail_oom(r->error));
	}
	sm_names_free(&r->o->alloc, &names);
	if (!ok) return false;
	sc->flex_shapes = r->shapes.data;
	sc->flex_shape_count = r->shapes.count;
	return true;
}

static bool build_clip(reader *r)
{
	smdmx_scene *sc = r->scene;
	size_t nf = r->frames.count, nj = r->joints.count;
	smdmx_clip *c = sm_owned_calloc(r->o, 1, sizeof(smdmx_clip), r->error);
	if (!c) return false;
	sc->clips = c;
	sc->clip_count = 1;
	c->name = sc->name;
	c->frame_rate = r->frame_rate;
	const frame_info *fi = r->frames.data;
	int32_t *times = sm_owned_calloc(r->o, nf, sizeof(int32_t), r->error);
	if (!times) return false;
	for (size_t f = 0; f < nf; f++) {
		double t = floor((double)fi[f].number * 10000.0 / r->frame_rate);
		if (t < INT32_MIN || t > INT32_MAX)
			return sm_fail(r->error, SMDMX_ERROR_TIME, fi[f].line, 1, "frame %lld is out of the time range",
			               (long long)fi[f].number);
		times[f] = (int32_t)t;
	}
	c->start = times[0];
	if ((int64_t)times[nf - 1] - times[0] > INT32_MAX)
		return sm_fail(r->error, SMDMX_ERROR_TIME, fi[nf - 1].line, 1, "the animation spans more than 2^31 - 1 ticks");
	c->duration = times[nf - 1] - times[0];
	c->channels = sm_owned_calloc(r->o, nj, sizeof(smdmx_channel), r->error);
	if (nj && !c->channels) return false;
	c->channel_count = nj;
	const smdmx_transform *poses = r->poses.data;
	for (size_t j = 0; j < nj; j++) {
		smdmx_channel *ch = &c->channels[j];
		ch->joint = (uint32_t)j;
		ch->position_times = ch->orientation_times = times;
		ch->position_count = ch->orientation_count = nf;
		ch->positions = sm_owned_calloc(r->o, nf, sizeof(smdmx_vec3), r->error);
		ch->orientations = sm_owned_calloc(r->o, nf, sizeof(smdmx_quat), r->error);
		if (!ch->positions || !ch->orientations) return false;
		for (size_t f = 0; f < nf; f++) {
			memcpy(ch->positions[f], poses[f * nj + j].position, sizeof(smdmx_vec3));
			memcpy(ch->orientations[f], poses[f * nj + j].orientation, sizeof(smdmx_quat));
		}
	}
	return true;
}

bool smdr_build_scene(reader *r)
{
	smdmx_scene *sc = r->scene;
	sc->joints = r->joints.data;
	sc->joint_count = r->joints.count;
	const smdmx_transform *poses = r->poses.data;
	if (r->frames.count) {
		for (size_t j = 0; j < sc->joint_count; j++) sc->joints[j].bind = poses[j];
	}
	bool vta = r->has_vertex_animation && !r->has_triangles;
	sc->source.format = vta ? SMDMX_SOURCE_VTA : SMDMX_SOURCE_SMD;
	if (r->record_lines) {
		uint32_t *jl = sm_owned_calloc(r->o, r->nodes.count + 1, sizeof(uint32_t), r->error);
		if (!jl) return false;
		const node_info *ns = r->nodes.data;
		for (size_t j = 0; j < r->nodes.count; j++) jl[j] = ns[j].line;
		sc->source.joint_lines = jl;
		sc->source.material_lines = r->material_lines.data;
		sc->source.triangle_lines = r->triangle_lines.data;
	}
	if (vta) {
		sc->source.vta_ids = r->vta_ids;
		sc->source.vta_lines = r->vta_id_lines;
	}
	sc->source.smd_kind = vta ? SMDMX_SMD_VERTEX_ANIMATION
	                          : r->has_triangles ? SMDMX_SMD_REFERENCE : SMDMX_SMD_ANIMATION;
	sc->source.version = r->version;
	sc->source.smd_weight_links = r->any_links;
	sc->source.smd_crlf = r->cr_seen;
	if (r->first_frame_missing && !r->has_vertex_animation)
		sm_warn(r->warnings, SMDMX_WARNING_MISSING_BONE_FIRST_FRAME, r->missing_line, 1,
		        "bones missing from the first frame take position 0 and rotation 0, as in studiomdl; if that is not their "
		        "rest pose, add them to the first frame in the source");
	if (!r->frames.count && !r->has_vertex_animation)
		sm_warn(r->warnings, SMDMX_WARNING_NO_SKELETON_FRAME, 0, 0, "no skeleton frame: every bone's bind pose is position 0 and rotation 0; if the file was cut short, "
		        "export it again");
	/* studiomdl takes a material line whole but for the white space at its end (Grab_Triangles:
	 * "strip off trailing smag"): white space at its start is part of the name. */
	const smdmx_material *mats = r->materials.data;
	size_t spaced = 0, first = 0;
	for (size_t i = 0; i < r->materials.count; i++)
		if ((mats[i].name[0] == ' ' || mats[i].name[0] == '\t') && spaced++ == 0) first = i;
	if (spaced)
		sm_warn_n(r->warnings, SMDMX_WARNING_MATERIAL_SPACE, spaced, ((const uint32_t *)r->material_lines.data)[first], 1,
		          "a material whose name begins with white space ('%s'): kept, as studiomdl keeps it; remove the white space "
		          "in the source if it is not part of the name",
		          mats[first].name);
	size_t meshes = (r->has_triangles ? 1 : 0) + (r->has_vertex_animation ? 1 : 0);
	sc->meshes = sm_owned_calloc(r->o, meshes, sizeof(smdmx_mesh), r->error);
	if (meshes && !sc->meshes) return false;
	if (r->has_triangles) SM_CHECK(build_mesh(r));
	if (r->has_vertex_animation) SM_CHECK(build_vta_mesh(r));
	/* An animation file, or a reference with more than one frame, carries a clip. */
	if (!r->has_vertex_animation && r->frames.count && (!r->has_triangles || r->frames.count > 1))
		SM_CHECK(build_clip(r));
	return true;
}
