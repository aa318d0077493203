/* What an SMD (and its VTA) cannot hold of a scene, said before it is written: one warning per
 * kind of data, with a count (decision 16). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "support/num.h"
#include "smdmx/scene.h"
#include "smdmx/smd.h"
#include "scene/scene_util.h"
#include "smd/smd_write.h"

/* A controller that only drives the shape of its own name over 0..1: what a VTA's shape
 * gets anyway, so leaving it out loses nothing. */
static bool plain_controller(const smdmx_scene *s, const sm_names *shapes, const smdmx_flex_controller *c)
{
	if (c->raw_controls.count != 1 || strcmp(c->raw_controls.data[0], c->name) != 0 || c->stereo || c->eyelid ||
	    c->min != 0 || c->max != 1)
		return false;
	for (size_t i = 0; i < c->wrinkle_scales.count; i++)
		if (c->wrinkle_scales.data[i] != 0) return false;
	if (shapes && shapes->cap) return sm_names_get(shapes, c->name) != SMDMX_NONE;
	for (size_t i = 0; i < s->flex_shape_count; i++) /* no memory for the index */
		if (strcmp(s->flex_shapes[i].name, c->name) == 0) return true;
	return false;
}

/* GoldSrc's file system ignores the case of names. */
static bool same_ascii_nocase(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a, y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
		if (x != y) return false;
		if (!x) return true;
	}
}

/* An animation SMD's skeleton block is its frames: the bind pose read back is its first. */
static void report_bind_pose(const smdmx_scene *s, smdmx_warnings *w)
{
	if (!s->clip_count) return;
	const smdmx_clip *c = &s->clips[0];
	const smdmx_channel none = { 0 };
	size_t moved = 0;
	const char *first = NULL;
	for (size_t j = 0; j < s->joint_count; j++) {
		const smdmx_joint *jt = &s->joints[j];
		const smdmx_channel *ch = &none;
		for (size_t k = 0; k < c->channel_count && ch == &none; k++)
			if (c->channels[k].joint == j) ch = &c->channels[k];
		float p[3], q[4];
		sm_sample_position(ch, c->start, jt->bind.position, p);
		sm_sample_orientation(ch, c->start, jt->bind.orientation, q);
		double a[4] = { q[0], q[1], q[2], q[3] }, b[4] = { jt->bind.orientation[0], jt->bind.orientation[1],
		                                                   jt->bind.orientation[2], jt->bind.orientation[3] };
		double ma[3][3], mb[3][3], most = 0;
		smdmx_quat_to_matrix(a, ma);
		smdmx_quat_to_matrix(b, mb);
		for (int r = 0; r < 3; r++)
			for (int k = 0; k < 3; k++) most = fmax(most, fabs(ma[r][k] - mb[r][k]));
		/* as smdmx diff tells rotations apart: SMD's six decimals of an angle are 5e-7 */
		bool moves = p[0] != jt->bind.position[0] || p[1] != jt->bind.position[1] || p[2] != jt->bind.position[2] || most > 2e-6;
		if (moves && !moved++) first = jt->name;
	}
	if (moved)
		sm_warn_n(w, SMDMX_WARNING_BIND_POSE, moved, 0, 0,
		          "an SMD animation's bind pose is its first frame: a joint whose bind pose is another ('%s') takes "
		          "the first frame's; nothing to do (studiomdl takes the bind pose from the model, never from an "
		          "animation)",
		          first);
}

/* studiomdl leaves the white space at a material line's end out of the name. */
static void report_material_ends(const smdmx_scene *s, smdmx_warnings *w)
{
	size_t trailing = 0;
	const char *trimmed = NULL;
	for (size_t i = 0; i < s->material_count; i++)
		if (sm_material_line_len(s->materials[i].name) < strlen(s->materials[i].name) && !trailing++) trimmed = s->materials[i].name;
	if (trailing)
		sm_warn_n(w, SMDMX_WARNING_MATERIAL_SPACE, trailing, 0, 0,
		          "a material whose name ends in white space ('%s'), which studiomdl leaves out of an SMD's material line: "
		          "written without it; rename the material in the source if the white space is part of its name",
		          trimmed);
}

/* Stereo balance, which SMD has no place for: a QC keeps what stereo controls use; a balance
 * none uses changes no compiled model, said apart, as nothing to do. */
static void report_balance(const smdmx_scene *s, smdmx_warnings *w)
{
	sm_alloc room = sm_scene_room(s);
	size_t balance = 0, unused = 0, corners = 0;
	for (size_t i = 0; i < s->mesh_count; i++) balance += s->meshes[i].balance.indices != NULL;
	uint8_t *stereo = balance ? sm_new(&room, 1, s->mesh_count) : NULL;
	/* out of memory: all of it said as balance left out, the safe side */
	if (stereo && !sm_stereo_meshes(s, &room.hooks, stereo, &unused, &corners)) unused = corners = 0;
	sm_del(&room, stereo);
	if (unused)
		sm_warn(w, SMDMX_WARNING_BALANCE_UNUSED, 0, 0, "stereo balance on %zu corners of %zu mesh%s left out: SMD has none, and no "
		        "stereo control uses it, so studiomdl compiles the same model; nothing to do",
		        corners, unused, unused == 1 ? "" : "es");
	if (balance > unused)
		sm_warn(w, SMDMX_WARNING_DROPPED_BALANCE, 0, 0, "SMD has no stereo balance: left out of %zu meshes; use dmx2smd --qc to keep it in a QC",
		        balance - unused);
}

/* What a GoldSrc SMD cannot hold: weight links, UV sets, materials that become one texture
 * name or a .bmp's, shapes. False: out of memory. */
static bool report_goldsrc(const smdmx_scene *s, sm_alloc *room, smdmx_warnings *w)
{
	size_t moved = 0, extra = 0;
	for (size_t i = 0; i < s->mesh_count; i++) {
		const smdmx_mesh *m = &s->meshes[i];
		if (m->uv_set_count > 1) extra++;
		for (size_t p = 0; m->weight_offsets && p < m->position_count; p++) {
			size_t n = m->weight_offsets[p + 1] - m->weight_offsets[p];
			moved += n > 1 || (n == 1 && m->weights[m->weight_offsets[p]].weight != 1.0f);
		}
	}
	if (moved)
		sm_warn(w, SMDMX_WARNING_GOLDSRC_LINKS, 0, 0, "GoldSrc has one bone per vertex: %zu vertices of several weight links "
		        "put on their strongest; nothing to do (no GoldSrc SMD holds more)", moved);
	if (extra) sm_warn(w, SMDMX_WARNING_DROPPED_UV_SETS, 0, 0, "GoldSrc has one UV set: the others of %zu meshes left out; nothing to do (no GoldSrc "
	                   "SMD holds them)",
	                   extra);
	/* materials that become one texture name */
	size_t merged = 0;
	const char *first_a = NULL, *first_b = NULL;
	char (*tex)[SM_GOLDSRC_NAME_MAX] = s->material_count ? sm_new(room, 1, s->material_count * sizeof(*tex)) : NULL;
	if (s->material_count && !tex) return false;
	if (tex) {
		for (size_t i = 0; i < s->material_count; i++) sm_goldsrc_texture(s->materials[i].name, tex[i]);
		for (size_t i = 0; i < s->material_count; i++)
			for (size_t k = 0; k < i; k++)
				if (same_ascii_nocase(tex[i], tex[k])) {
					if (!merged++) {
						first_a = s->materials[k].name;
						first_b = s->materials[i].name;
					}
					break;
				}
		sm_del(room, tex);
	}
	if (merged)
		sm_warn(w, SMDMX_WARNING_GOLDSRC_MATERIALS, 0, 0, "%zu materials take the GoldSrc texture name of another ('%s' "
		        "and '%s' are one texture); rename them in the source to keep them apart", merged, first_a, first_b);
	/* materials that are not yet the name of a .bmp file */
	size_t renamed = 0;
	char tex1[SM_GOLDSRC_NAME_MAX];
	const char *first = NULL;
	for (size_t i = 0; i < s->material_count; i++) {
		char t[SM_GOLDSRC_NAME_MAX];
		sm_goldsrc_texture(s->materials[i].name, t);
		if (strcmp(t, s->materials[i].name) && !renamed++) {
			first = s->materials[i].name;
			memcpy(tex1, t, sizeof(t));
		}
	}
	if (renamed)
		sm_warn_n(w, SMDMX_WARNING_GOLDSRC_TEXTURES, renamed, 0, 0, "GoldSrc names a texture by its image file: a material "
		          "written as one ('%s' as '%s'); nothing to do", first, tex1);
	if (s->flex_shape_count)
		sm_warn(w, SMDMX_WARNING_DROPPED_SHAPES, 0, 0, "GoldSrc has no flex: %zu shapes left out; nothing to do (no GoldSrc SMD holds them)",
		        s->flex_shape_count);
	return true;
}

bool smdmx_smd_report_losses(const smdmx_scene *s, const smdmx_smd_write_options *o, bool vta_too, smdmx_error *error,
                             smdmx_warnings *w)
{
	sm_alloc room = sm_scene_room(s);
	SM_ERROR_START(error);
	if (!s) return sm_fail_null(error, __func__, "scene");
	/* added to what the list holds: a list with no room yet takes it from the scene's memory */
	if (w && !w->data) w->allocator = room.hooks;
	size_t lost = w ? w->lost : 0;
	bool goldsrc = o && o->goldsrc;
	if (goldsrc) {
		if (!report_goldsrc(s, &room, w)) return sm_fail_oom(error);
		vta_too = true; /* the shapes are said there */
	}
	report_balance(s, w);
	size_t wrinkle = 0;
	for (size_t i = 0; i < s->mesh_count; i++) wrinkle += s->meshes[i].wrinkle.indices != NULL;
	if (wrinkle) sm_warn(w, SMDMX_WARNING_DROPPED_WRINKLE, 0, 0, "SMD has no wrinkle data: left out of %zu meshes; keep the DMX for it (no SMD or QC holds it)",
		                 wrinkle);
	bool faces = false;
	for (size_t i = 0; i < s->mesh_count; i++) faces = faces || s->meshes[i].face_set_count;
	if (s->attachment_count && !faces && s->clip_count)
		/* an animation: what a QC would say of them belongs to a model */
		sm_warn(w, SMDMX_WARNING_DROPPED, 0, 0, "SMD has no attachments, and studiomdl reads none from an animation (only from a "
		        "model's files and its QC): %zu left out; nothing to do",
		        s->attachment_count);
	else if (s->attachment_count)
		sm_warn(w, SMDMX_WARNING_DROPPED_ATTACHMENTS, 0, 0, "SMD has no attachments: %zu left out; use dmx2smd --qc to keep them in a QC",
		        s->attachment_count);
	size_t controllers = 0;
	sm_names shapes;
	memset(&shapes, 0, sizeof(shapes));
	if (s->flex_controller_count && s->owner && sm_names_init(&s->owner->alloc, &shapes, s->flex_shape_count)) {
		bool ok = true;
		for (size_t i = 0; ok && i < s->flex_shape_count; i++)
			ok = sm_names_put(&s->owner->alloc, &shapes, s->flex_shapes[i].name, (uint32_t)i, true);
		if (!ok) sm_names_free(&s->owner->alloc, &shapes);
	}
	for (size_t i = 0; i < s->flex_controller_count; i++) controllers += !plain_controller(s, &shapes, &s->flex_controllers[i]);
	if (shapes.cap) sm_names_free(&s->owner->alloc, &shapes);
	if (controllers)
		sm_warn(w, SMDMX_WARNING_DROPPED_CONTROLLERS, 0, 0, "SMD has no flex controllers: %zu left out; use dmx2smd --qc to keep them in a QC",
		        controllers);
	if (s->flex_rule_count || s->domination_rule_count)
		sm_warn(w, SMDMX_WARNING_DROPPED_RULES, 0, 0, "SMD has no flex or domination rules: %zu left out; use dmx2smd --qc to keep them in a QC",
		        s->flex_rule_count + s->domination_rule_count);
	if (s->flex_shape_count && !vta_too)
		sm_warn(w, SMDMX_WARNING_DROPPED_SHAPES, 0, 0, "flex shapes need a VTA: %zu left out of the SMD; write a VTA beside it to keep them",
		        s->flex_shape_count);
	if (!goldsrc) {
		size_t scaled = 0;
		for (size_t i = 0; i < s->mesh_count; i++) {
			const smdmx_mesh *m = &s->meshes[i];
			for (size_t p = 0; m->weight_offsets && p < m->position_count; p++) {
				double sum = sm_weight_sum(m, p);
				scaled += sum > 0 && sum < SM_WEIGHT_SUM_LOW;
			}
		}
		if (scaled)
			sm_warn(w, SMDMX_WARNING_WEIGHTS_SCALED, 0, 0, "weights of %zu %s sum below 1: written scaled to 1, the model studiomdl "
			        "makes of them (an SMD reader would give the rest to the parent bone); nothing to do", scaled, scaled == 1 ? "vertex" : "vertices");
	}
	report_material_ends(s, w);
	size_t ngons = 0;
	for (size_t i = 0; i < s->mesh_count; i++)
		for (size_t f = 0; f < s->meshes[i].face_set_count; f++) {
			const smdmx_face_set *fs = &s->meshes[i].face_sets[f];
			for (size_t p = 0; p < fs->polygon_count; p++) ngons += fs->offsets[p + 1] - fs->offsets[p] > 3;
		}
	if (s->mesh_count > 1)
		sm_warn(w, SMDMX_WARNING_MESHES_MERGED, 0, 0, "SMD has one mesh: %zu meshes written as one, their names left out and the triangles keeping their "
		        "materials; nothing to do (no SMD holds the names)",
		        s->mesh_count);
	if (ngons)
		sm_warn(w, SMDMX_WARNING_FANNED, 0, 0, "SMD holds triangles: %zu polygons of more than 3 corners written as fans, the same surface; nothing to do",
		        ngons);
	if (s->up_axis && s->up_axis != 'Z')
		sm_warn(w, SMDMX_WARNING_UP_AXIS, 0, 0, "the model is %c up, and SMD cannot say so: written as it is; add '$upaxis %c' to its QC (dmx2smd --qc "
		        "writes it)", s->up_axis,
		        s->up_axis);
	bool has_faces = false;
	for (size_t i = 0; i < s->mesh_count; i++) has_faces = has_faces || s->meshes[i].face_set_count;
	smdmx_smd_write_kind kind = o ? o->kind : SMDMX_SMD_WRITE_AUTO;
	bool reference = kind == SMDMX_SMD_WRITE_REFERENCE ||
	                 (kind == SMDMX_SMD_WRITE_AUTO && has_faces && s->source.format != SMDMX_SOURCE_VTA);
	if (!reference) report_bind_pose(s, w);
	if (o && o->reference_clip && reference && s->clip_count && !sm_smd_reference_clip(s, true))
		sm_warn(w, SMDMX_WARNING_DROPPED_CLIPS, 0, 0,
		        "a reference SMD holds an animation only when its first frame is the bind pose: %zu clip%s left out; write "
		        "each as an animation SMD to keep them", s->clip_count,
		        s->clip_count == 1 ? "" : "s");
	else if (s->clip_count > 1)
		sm_warn(w, SMDMX_WARNING_DROPPED_CLIPS, 0, 0, "one SMD holds one animation: %zu more clips left out; write each as an SMD of its own to keep them",
		        s->clip_count - 1);
	size_t rates = 0;
	const smdmx_clip *other = NULL;
	for (size_t i = 0; i < s->clip_count; i++)
		if (s->clips[i].frame_rate != 30 && !rates++) other = &s->clips[i];
	if (rates) {
		char r[SM_FLOAT_MAX];
		sm_format_shortest((float)other->frame_rate, r);
		sm_warn(w, SMDMX_WARNING_FRAME_RATE, 0, 0, "SMD has no frame rate, and studiomdl reads 30 fps unless the QC's $sequence says "
		        "fps: %zu clips are not 30 fps ('%s' is %s); add 'fps' to their $sequence lines (dmx2smd --qc writes it)",
		        rates, other->name, r);
	}
	return !w || w->lost == lost || sm_fail_oom(error);
}

void smdmx_smd_losses_carried(smdmx_warnings *losses, const smdmx_smd_carried *c)
{
	if (!losses || !c) return;
	size_t k = 0;
	for (size_t i = 0; i < losses->count; i++) {
		smdmx_warning_code w = losses->data[i].code;
		bool carried = (c->rig && (w == SMDMX_WARNING_DROPPED_BALANCE || w == SMDMX_WARNING_DROPPED_ATTACHMENTS ||
		                           w == SMDMX_WARNING_DROPPED_CONTROLLERS || w == SMDMX_WARNING_DROPPED_RULES)) ||
		               (c->attachments && w == SMDMX_WARNING_DROPPED_ATTACHMENTS) ||
		               (c->up_axis && w == SMDMX_WARNING_UP_AXIS) || (c->frame_rate && w == SMDMX_WARNING_FRAME_RATE) ||
		               (c->shapes && w == SMDMX_WARNING_DROPPED_SHAPES) || (c->clips && w == SMDMX_WARNING_DROPPED_CLIPS);
		if (!carried) losses->data[k++] = losses->data[i];
	}
	losses->count = k;
}
