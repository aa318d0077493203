/* Checks a model for a target engine (smdmx_check_model in model.h): bones over the target's
 * limit, weight links above its limit and weights that do not sum to 1, a DMX's jointCount
 * against its weights, its encoding and model format against the target's tools, degenerate
 * and duplicate triangles, names GoldSrc, studiomdl or QC files cannot hold, keys at one time;
 * each finding at its place (a line of the SMD or VTA, or an element of the DMX). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/internal.h"
#include "smdmx/model.h"

typedef struct chk {
	const smdmx_scene *s;
	const smdmx_dm *dm;
	smdmx_finding_fn fn;
	void *user;
	size_t errors, warnings;
} chk;

/* A finding's place: a line, or an element. */
typedef struct place {
	uint32_t line, element;
} place;

static place at_line(uint32_t line)
{
	return (place){ line, SMDMX_NONE };
}

static place at_element(chk *t, uint32_t e)
{
	(void)t;
	return (place){ 0, e };
}

/* A joint's place: its node line in an SMD, its element in a DMX. */
static place at_joint(chk *t, size_t j)
{
	const smdmx_source_info *src = &t->s->source;
	if (src->joint_lines) return at_line(src->joint_lines[j]);
	if (src->joint_elements) return at_element(t, src->joint_elements[j]);
	return at_line(0);
}

/* A mesh corner's place: its triangle's line in an SMD, the mesh's element in a DMX. */
static place at_corner(chk *t, size_t mesh, uint32_t corner)
{
	const smdmx_source_info *src = &t->s->source;
	if (src->triangle_lines && mesh == 0) return at_line(src->triangle_lines[corner / 3]);
	if (src->mesh_elements) return at_element(t, src->mesh_elements[mesh]);
	return at_line(0);
}

/* The first element of a type and name in a DMX, at its place; else the file's start. */
static place at_named(chk *t, const char *type, const char *name)
{
	const smdmx_dm *dm = t->dm;
	for (size_t e = 0; dm && e < dm->element_count; e++)
		if (!strcmp(dm->elements[e].type, type) && !strcmp(dm->elements[e].name, name)) return at_element(t, (uint32_t)e);
	return at_line(1);
}

/* A material's place: the first polygon that has it. */
static place at_material(chk *t, uint32_t material)
{
	const smdmx_scene *s = t->s;
	for (size_t m = 0; m < s->mesh_count; m++)
		for (size_t f = 0; f < s->meshes[m].face_set_count; f++) {
			const smdmx_face_set *fs = &s->meshes[m].face_sets[f];
			if (fs->material == material && fs->corner_count) return at_corner(t, m, fs->corners[0]);
		}
	return at_line(1);
}

/* A flex shape's place: its VTA time line, or its mesh's element in a DMX. */
static place at_shape(chk *t, const smdmx_flex_shape *sh)
{
	if (sh->line) return at_line(sh->line);
	const smdmx_source_info *src = &t->s->source;
	if (src->mesh_elements) return at_element(t, src->mesh_elements[sh->mesh]);
	return at_line(1);
}

static void find_at(chk *t, bool error, place p, const char *fmt, ...) SM_PRINTF(4, 5);
static void find_at(chk *t, bool error, place p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	smdmx_finding f = { error, p.line, 0, p.element, NULL, msg };
	if (t->fn) t->fn(t->user, &f);
	if (error) t->errors++;
	else t->warnings++;
}

/* A finding about the whole file: at its start (a DMX's header says its encoding and format). */
/* Byte strings compared with ASCII letters' case aside. */
static int nocase_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = (unsigned char)*a, y = (unsigned char)*b;
		if (x >= 'A' && x <= 'Z') x += 'a' - 'A';
		if (y >= 'A' && y <= 'Z') y += 'a' - 'A';
		if (x != y || !x) return x - y;
	}
}

#define find_say(t, error, ...) find_at(t, error, at_line(1), __VA_ARGS__)

typedef struct named {
	const char *name;
	size_t index;
} named;

/* By name, case aside, then by index. */
static int named_order(const void *a, const void *b)
{
	const named *x = a, *y = b;
	int c = nocase_cmp(x->name, y->name);
	return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

/* A name a QC file or studiomdl cannot hold: empty, or with a space, a quote or a control
 * character. */
static bool name_is_plain(const char *s)
{
	if (!*s) return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == '"' || *s == 0x7f) return false;
	return true;
}

/* A triangle as its three positions sorted, its material and its winding (the parity of the
 * sort), the normal at each sorted position, and where it is. */
typedef struct tri_key {
	uint32_t v[3], material;
	uint32_t odd;        /* the sort's parity: a triangle and its reverse differ in it */
	uint32_t normal[3];  /* SMDMX_NONE when the mesh has none */
	uint32_t corner;     /* where it is, not compared */
} tri_key;

static int cmp_tri(const void *a, const void *b)
{
	const tri_key *x = a, *y = b;
	for (int i = 0; i < 3; i++)
		if (x->v[i] != y->v[i]) return x->v[i] < y->v[i] ? -1 : 1;
	if (x->material != y->material) return x->material < y->material ? -1 : 1;
	if (x->odd != y->odd) return x->odd < y->odd ? -1 : 1;
	return (x->corner > y->corner) - (x->corner < y->corner);
}

/* Two triangles on the same positions with opposite windings are the two sides of a face when
 * every normal of one is the other's reversed. */
static bool two_sided(const smdmx_mesh *m, const tri_key *x, const tri_key *y)
{
	if (!m->normals) return false;
	for (int i = 0; i < 3; i++) {
		const float *a = m->normals[x->normal[i]], *b = m->normals[y->normal[i]];
		for (int d = 0; d < 3; d++)
			if (fabsf(a[d] + b[d]) > 1e-4f) return false;
	}
	return true;
}

/* The first corner on position p (for a vertex's place). */
static uint32_t corner_of_position(const smdmx_mesh *m, uint32_t p)
{
	for (size_t c = 0; c < m->corner_count; c++)
		if (m->position_indices[c] == p) return (uint32_t)c;
	return 0;
}

static void check_mesh(chk *t, const smdmx_scene *s, size_t mi, size_t max_links)
{
	const smdmx_mesh *m = &s->meshes[mi];
	/* weights: links per vertex, and sums */
	size_t over = 0, unnormalised = 0, most = 0;
	uint32_t first_over = UINT32_MAX, first_unnormalised = UINT32_MAX;
	if (m->weight_offsets)
		for (size_t p = 0; p < m->position_count; p++) {
			size_t n = m->weight_offsets[p + 1] - m->weight_offsets[p];
			double sum = 0;
			for (size_t k = 0; k < n; k++) sum += m->weights[m->weight_offsets[p] + k].weight;
			if (n > most) most = n;
			if (n > max_links && !over++) first_over = (uint32_t)p;
			if (n && fabs(sum - 1.0) > 1e-3 && !unnormalised++) first_unnormalised = (uint32_t)p;
		}
	if (over)
		find_at(t, false, at_corner(t, mi, corner_of_position(m, first_over)),
		        "mesh '%s': %zu vertices have more than %zu weight links (up to %zu; the first here): a conversion keeps the largest %zu; reduce them in the source if the others matter",
		        m->name, over, max_links, most, max_links);
	if (unnormalised)
		find_at(t, false, at_corner(t, mi, corner_of_position(m, first_unnormalised)),
		        "mesh '%s': %zu vertices have weights that do not sum to 1 (the first here): studiomdl scales them; check the weights in the source", m->name, unnormalised);
	/* triangles (polygons fanned): degenerate and duplicate */
	size_t tris = 0;
	for (size_t f = 0; f < m->face_set_count; f++)
		for (size_t p = 0; p < m->face_sets[f].polygon_count; p++)
			tris += m->face_sets[f].offsets[p + 1] - m->face_sets[f].offsets[p] - 2;
	tri_key *keys = malloc((tris ? tris : 1) * sizeof(*keys));
	if (!keys) return;
	size_t n = 0, degenerate = 0;
	uint32_t first_degenerate = 0;
	for (size_t f = 0; f < m->face_set_count; f++) {
		const smdmx_face_set *fs = &m->face_sets[f];
		for (size_t p = 0; p < fs->polygon_count; p++) {
			uint32_t o = fs->offsets[p], len = fs->offsets[p + 1] - o;
			for (uint32_t k = 1; k + 1 < len; k++) {
				uint32_t cs[3] = { fs->corners[o], fs->corners[o + k], fs->corners[o + k + 1] };
				uint32_t v[3] = { m->position_indices[cs[0]], m->position_indices[cs[1]], m->position_indices[cs[2]] };
				const float *a = m->positions[v[0]], *b = m->positions[v[1]], *c = m->positions[v[2]];
				double e1[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, e2[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
				double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2], z = e1[0] * e2[1] - e1[1] * e2[0];
				if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2] || x * x + y * y + z * z == 0) {
					if (!degenerate++) first_degenerate = fs->corners[o + k];
					continue;
				}
				/* the same three positions with the same material, sorted; the sort's parity is
				 * the winding */
				tri_key *t2 = &keys[n++];
				uint32_t odd = 0;
				for (int i = 0; i < 2; i++)
					for (int j = 0; j < 2 - i; j++)
						if (v[j] > v[j + 1]) {
							uint32_t q = v[j];
							v[j] = v[j + 1];
							v[j + 1] = q;
							q = cs[j];
							cs[j] = cs[j + 1];
							cs[j + 1] = q;
							odd ^= 1;
						}
				for (int i = 0; i < 3; i++) {
					t2->v[i] = v[i];
					t2->normal[i] = m->normal_indices ? m->normal_indices[cs[i]] : SMDMX_NONE;
				}
				t2->material = fs->material;
				t2->odd = odd;
				t2->corner = fs->corners[o + k];
			}
		}
	}
	qsort(keys, n, sizeof(*keys), cmp_tri);
	/* In each run of one place and material: a repeat of the same winding is a duplicate; one
	 * of the other winding is the back of the first of that run when its normals are reversed
	 * (two-sided geometry), and a duplicate otherwise. */
	size_t duplicate = 0, sides = 0;
	uint32_t first_duplicate = UINT32_MAX;
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		while (e < n && !memcmp(keys[e].v, keys[i].v, sizeof(keys[i].v)) && keys[e].material == keys[i].material) e++;
		size_t first_odd = i;
		while (first_odd < e && !keys[first_odd].odd) first_odd++;
		for (size_t k = i; k < e; k++) {
			bool repeat = k != i && k != first_odd;
			bool back = k == first_odd && k != i && two_sided(m, &keys[i], &keys[k]);
			if (k == first_odd && k != i && !back) repeat = true;
			if (back) sides++;
			if (repeat) {
				duplicate++;
				uint32_t later = keys[k].corner;
				if (later < first_duplicate) first_duplicate = later;
			}
		}
		i = e;
	}
	(void)sides;
	free(keys);
	if (degenerate)
		find_at(t, false, at_corner(t, mi, first_degenerate), "mesh '%s': %zu degenerate triangles (no area; the first here): they draw nothing; remove them in the source", m->name,
		        degenerate);
	if (duplicate)
		find_at(t, false, at_corner(t, mi, first_duplicate), "mesh '%s': %zu duplicate triangles (the first repeat here): each is drawn; remove the repeats in the source", m->name,
		        duplicate);
}

/* jointCount of each DmeVertexData against its weight arrays. */
static void check_joint_counts(chk *t, const smdmx_dm *dm, size_t max_links)
{
	for (size_t e = 0; e < dm->element_count; e++) {
		const smdmx_dm_element *el = &dm->elements[e];
		if (strcmp(el->type, "DmeVertexData")) continue;
		const smdmx_dm_attr *jc = smdmx_dm_find_attr(dm, (uint32_t)e, "jointCount");
		const smdmx_dm_attr *pos = smdmx_dm_find_attr(dm, (uint32_t)e, "positions");
		const smdmx_dm_attr *w = smdmx_dm_find_attr(dm, (uint32_t)e, "jointWeights");
		const smdmx_dm_attr *ji = smdmx_dm_find_attr(dm, (uint32_t)e, "jointIndices");
		if (!w && !ji) continue;
		if (!jc || jc->type != SMDMX_DM_INT || jc->is_array) {
			find_at(t, true, at_element(t, (uint32_t)e), "vertex data '%s': weights without a jointCount", el->name);
			continue;
		}
		int32_t count = jc->value.i;
		size_t np = pos && pos->is_array ? pos->value.array.count : 0;
		size_t nw = w && w->is_array ? w->value.array.count : 0, nj = ji && ji->is_array ? ji->value.array.count : 0;
		if (count <= 0 || nw != (size_t)count * np || nj != nw) {
			find_at(t, true, at_element(t, (uint32_t)e),
			         "vertex data '%s': jointCount %d does not fit the weights (%zu positions, %zu weights, %zu joint indices)",
			         el->name, count, np, nw, nj);
			continue;
		}
		if ((size_t)count > max_links)
			find_at(t, false, at_element(t, (uint32_t)e), "vertex data '%s': jointCount %d is above the target's %zu: a conversion keeps the largest %zu; nothing to do",
			        el->name, count, max_links, max_links);
		size_t used = 0;
		const float *wv = w->value.array.data;
		for (size_t p = 0; p < np; p++) {
			size_t k = 0;
			for (int32_t s = 0; s < count; s++) k += wv[p * (size_t)count + (size_t)s] != 0;
			if (k > used) used = k;
		}
		if (used < (size_t)count)
			find_at(t, false, at_element(t, (uint32_t)e), "vertex data '%s': jointCount %d, but no vertex uses more than %zu: a conversion writes %zu; nothing to do",
			        el->name, count, used, used);
	}
}

/* A DMX's encoding and model format against the target's tools (the engine table). */
static void check_encoding(chk *t, const smdmx_dm *dm, const smdmx_engine_target *et, const char *target)
{
	bool goldsrc = et->encoding_version == 0;
	bool binary = dm->encoding && (!strcmp(dm->encoding, "binary") || !strcmp(dm->encoding, "binary_seqids"));
	if (goldsrc)
		find_say(t, true, "a DMX: GoldSrc's tools read SMD only");
	else if (binary && dm->encoding_version > et->encoding_version)
		find_say(t, true, "binary %d: %s's tools read binary up to %d (--target %s writes it)", dm->encoding_version, target,
		         et->encoding_version, target);
	else if (!binary)
		find_say(t, false, "%s: %s's studiomdl may want binary %d (not every studiomdl reads text DMX); use --target %s "
		         "if it refuses the file",
		         dm->encoding ? dm->encoding : "text", target, et->encoding_version, target);
	if (!goldsrc && dm->format && !strcmp(dm->format, "model") && dm->format_version != et->model_format)
		find_say(t, false, "model format %d: %s's tools expect model format %d; use --target %s to write it",
		         dm->format_version, target, et->model_format, target);
}

/* Bones past the target's limit; bone and material names the target, studiomdl or QC files
 * cannot hold, or bone names used twice (case aside). */
static void check_names(chk *t, const smdmx_scene *s, bool goldsrc, size_t max_bones, const char *target)
{
	if (max_bones && s->joint_count > max_bones)
		find_at(t, true, at_joint(t, max_bones), "%zu bones; %s takes at most %zu (the first past them here)", s->joint_count, target,
		        max_bones);
	/* names used twice (case aside): sorted by name, then by index, all but the first of a run */
	named *order = malloc((s->joint_count + 1) * sizeof(named));
	bool *twice = calloc(s->joint_count + 1, sizeof(bool));
	if (!order || !twice) find_say(t, true, "out of memory while looking for bone names used twice");
	for (size_t j = 0; order && twice && j < s->joint_count; j++) order[j] = (named){ s->joints[j].name, j };
	if (order && twice) qsort(order, s->joint_count, sizeof(named), named_order);
	for (size_t i = 1; order && twice && i < s->joint_count; i++)
		twice[order[i].index] = sm_same_nocase(order[i].name, order[i - 1].name);
	for (size_t j = 0; j < s->joint_count; j++) {
		const char *n = s->joints[j].name;
		if (strchr(n, '"')) find_at(t, true, at_joint(t, j), "bone '%s': a double quote in its name (QC files cannot hold it)", n);
		else if (goldsrc && strlen(n) > 31)
			find_at(t, true, at_joint(t, j), "bone '%s': longer than 31 characters, which GoldSrc cannot take", n);
		if (twice && twice[j]) find_at(t, true, at_joint(t, j), "bone '%s': the name is used twice (studiomdl matches bones by name)", n);
	}
	free(order);
	free(twice);
	for (size_t m = 0; m < s->material_count; m++) {
		const char *n = s->materials[m].name;
		place at = at_material(t, (uint32_t)m);
		if (goldsrc && strlen(n) > 63) find_at(t, true, at, "material '%s': longer than 63 characters, which GoldSrc cannot take", n);
		else if (goldsrc) {
			if (!sm_same_nocase(sm_extension(n), "bmp")) find_at(t, false, at, "material '%s': not a .bmp, as GoldSrc expects: --goldsrc writes it as one; nothing to do", n);
		}
		if (strchr(n, '"')) find_at(t, true, at, "material '%s': a double quote in its name", n);
	}
}

/* Flex shape and controller names QC files cannot hold; flex shapes GoldSrc has not. */
static void check_shapes(chk *t, const smdmx_scene *s, bool goldsrc)
{
	for (size_t f = 0; f < s->flex_shape_count; f++)
		if (!name_is_plain(s->flex_shapes[f].name))
			find_at(t, true, at_shape(t, &s->flex_shapes[f]),
			        "flex shape '%s': a space, quote or control character in its name (QC files cannot hold it)", s->flex_shapes[f].name);
	for (size_t f = 0; f < s->flex_controller_count; f++)
		if (!name_is_plain(s->flex_controllers[f].name))
			find_at(t, true, at_named(t, "DmeCombinationInputControl", s->flex_controllers[f].name),
			        "flex controller '%s': a space, quote or control character in its name (QC files cannot hold it)",
			        s->flex_controllers[f].name);
	if (goldsrc && s->flex_shape_count)
		find_at(t, false, at_shape(t, &s->flex_shapes[0]), "%zu flex shapes, which GoldSrc does not have (the first here): --goldsrc leaves them out; nothing to do",
		        s->flex_shape_count);
}

/* Frames: every joint keyed at a frame no other key shares, none missing between. */
static void check_frames(chk *t, const smdmx_scene *s)
{
	for (size_t c = 0; c < s->clip_count; c++) {
		const smdmx_clip *clip = &s->clips[c];
		for (size_t k = 0; k < clip->channel_count; k++) {
			const smdmx_channel *ch = &clip->channels[k];
			for (size_t i = 1; i < ch->position_count; i++)
				if (ch->position_times[i] == ch->position_times[i - 1]) {
					find_at(t, true, at_named(t, "DmeChannelsClip", clip->name), "clip '%s' joint '%s': two keys at one time", clip->name,
					        s->joints[ch->joint].name);
					break;
				}
		}
	}
}

size_t smdmx_check_model(const smdmx_scene *scene, const smdmx_dm *dm, const smdmx_engine_target *target, smdmx_finding_fn fn,
                         void *user)
{
	if (!scene) {
		const smdmx_finding f = { true, 0, 0, SMDMX_NONE, NULL, "smdmx_check_model: scene is NULL" };
		if (fn) fn(user, &f);
		return 1;
	}
	chk t = { scene, dm, fn, user, 0, 0 };
	const smdmx_engine_target *et = target ? target : smdmx_engine_target_find("sdk2013");
	bool goldsrc = et->encoding_version == 0;
	if (dm) check_encoding(&t, dm, et, et->name);
	check_names(&t, scene, goldsrc, et->max_bones, et->name);
	for (size_t m = 0; m < scene->mesh_count; m++) check_mesh(&t, scene, m, et->max_links);
	if (dm) check_joint_counts(&t, dm, et->max_links);
	check_shapes(&t, scene, goldsrc);
	check_frames(&t, scene);
	return t.errors + t.warnings;
}
