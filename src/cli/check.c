/* smdmx check: lints a model for a target engine (the engine table): limits of bones and
 * weight links, names the target, studiomdl or QC files cannot hold, degenerate and duplicate
 * triangles, frames; each finding at its place in the file (line and column where it has
 * them). A QC is checked in qcproj.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* ---- smdmx check ------------------------------------------------------------------------- */

typedef struct lint {
	const char *path;
	size_t errors, warnings;
	const loaded *l;
	/* keyvalues2: the file's text and where its lines start, for an element's line */
	const char *text;
	size_t size;
	uint32_t *line_starts;
	size_t lines;
	/* binary DMX: each element's way from the root, for an element's path */
	uint32_t *parent, *via_index;
	const char **via;
	bool walked;
} lint;

/* A finding's place: ":line:col" after the path, or an element path before the message. */
typedef struct place {
	char loc[32];
	char elem[300];
} place;

static place at_line(uint32_t line)
{
	place p = { "", "" };
	if (line) snprintf(p.loc, sizeof(p.loc), ":%u:1", line);
	return p;
}

/* Every element's first way from the root (breadth first), for binary DMX paths. */
static void walk_paths(lint *t)
{
	const smdmx_dm *dm = t->l->dm;
	t->walked = true;
	t->parent = malloc((dm->element_count + 1) * sizeof(uint32_t));
	t->via_index = malloc((dm->element_count + 1) * sizeof(uint32_t));
	t->via = malloc((dm->element_count + 1) * sizeof(char *));
	uint32_t *queue = malloc((dm->element_count + 1) * sizeof(uint32_t));
	if (!t->parent || !t->via_index || !t->via || !queue || dm->root == SMDMX_NONE) {
		free(queue);
		return;
	}
	for (size_t e = 0; e < dm->element_count; e++) t->parent[e] = SMDMX_NONE, t->via[e] = NULL;
	size_t head = 0, tail = 0;
	queue[tail++] = dm->root;
	t->via[dm->root] = "";
	while (head < tail) {
		uint32_t e = queue[head++];
		const smdmx_dm_element *el = &dm->elements[e];
		for (size_t a = 0; a < el->attr_count; a++) {
			const smdmx_dm_attr *at = &el->attrs[a];
			if (at->type != SMDMX_DM_ELEMENT) continue;
			size_t n = at->is_array ? at->value.array.count : 1;
			for (size_t i = 0; i < n; i++) {
				uint32_t x = at->is_array ? ((const uint32_t *)at->value.array.data)[i] : at->value.element;
				if (x == SMDMX_NONE || x >= dm->element_count || t->via[x]) continue;
				t->via[x] = at->name;
				t->via_index[x] = at->is_array ? (uint32_t)i : UINT32_MAX;
				t->parent[x] = e;
				queue[tail++] = x;
			}
		}
	}
	free(queue);
}

/* An element's place: its line in keyvalues2, its path from the root in binary. */
static place at_element(lint *t, uint32_t e)
{
	place p = { "", "" };
	const smdmx_dm *dm = t->l->dm;
	if (!dm || e == SMDMX_NONE || e >= dm->element_count) return p;
	const smdmx_dm_element *el = &dm->elements[e];
	if (el->source_offset != SIZE_MAX && t->text) {
		if (!t->line_starts) {
			size_t n = 1;
			for (size_t i = 0; i < t->size; i++) n += t->text[i] == '\n';
			t->line_starts = malloc(n * sizeof(uint32_t));
			if (t->line_starts) {
				t->line_starts[0] = 0;
				t->lines = 1;
				for (size_t i = 0; i < t->size; i++)
					if (t->text[i] == '\n') t->line_starts[t->lines++] = (uint32_t)(i + 1);
			}
		}
		if (t->line_starts) {
			size_t lo = 0, hi = t->lines;
			while (hi - lo > 1) {
				size_t mid = (lo + hi) / 2;
				if (t->line_starts[mid] <= el->source_offset) lo = mid;
				else hi = mid;
			}
			snprintf(p.loc, sizeof(p.loc), ":%zu:%zu", lo + 1, el->source_offset - t->line_starts[lo] + 1);
			return p;
		}
	}
	if (!t->walked) walk_paths(t);
	if (!t->via || !t->via[e]) {
		snprintf(p.elem, sizeof(p.elem), "%s '%s' (not under the root): ", el->type, el->name);
		return p;
	}
	/* the path, built from the element up */
	char path[256] = "";
	for (uint32_t x = e; x != dm->root && x != SMDMX_NONE; x = t->parent[x]) {
		char step[128], rest[256];
		if (t->via_index[x] != UINT32_MAX) snprintf(step, sizeof(step), ".%s[%u]", t->via[x], t->via_index[x]);
		else snprintf(step, sizeof(step), ".%s", t->via[x]);
		snprintf(rest, sizeof(rest), "%s%s", step, path);
		memcpy(path, rest, sizeof(path));
	}
	snprintf(p.elem, sizeof(p.elem), "root%s (%s '%s'): ", path, el->type, el->name);
	return p;
}

/* A joint's place: its node line in an SMD, its element in a DMX. */
static place at_joint(lint *t, size_t j)
{
	const smdmx_source_info *src = &t->l->scene->source;
	if (src->joint_lines) return at_line(src->joint_lines[j]);
	if (src->joint_elements) return at_element(t, src->joint_elements[j]);
	return (place){ "", "" };
}

/* A mesh corner's place: its triangle's line in an SMD, the mesh's element in a DMX. */
static place at_corner(lint *t, size_t mesh, uint32_t corner)
{
	const smdmx_source_info *src = &t->l->scene->source;
	if (src->triangle_lines && mesh == 0) return at_line(src->triangle_lines[corner / 3]);
	if (src->mesh_elements) return at_element(t, src->mesh_elements[mesh]);
	return (place){ "", "" };
}

/* The first element of a type and name in a DMX, at its place; else the file's start. */
static place at_named(lint *t, const char *type, const char *name)
{
	const smdmx_dm *dm = t->l->dm;
	for (size_t e = 0; dm && e < dm->element_count; e++)
		if (!strcmp(dm->elements[e].type, type) && !strcmp(dm->elements[e].name, name)) return at_element(t, (uint32_t)e);
	return at_line(1);
}

/* A material's place: the first polygon that has it. */
static place at_material(lint *t, uint32_t material)
{
	const smdmx_scene *s = t->l->scene;
	for (size_t m = 0; m < s->mesh_count; m++)
		for (size_t f = 0; f < s->meshes[m].face_set_count; f++) {
			const smdmx_face_set *fs = &s->meshes[m].face_sets[f];
			if (fs->material == material && fs->corner_count) return at_corner(t, m, fs->corners[0]);
		}
	return at_line(1);
}

/* A flex shape's place: its VTA time line, or its mesh's element in a DMX. */
static place at_shape(lint *t, const smdmx_flex_shape *sh)
{
	if (sh->line) return at_line(sh->line);
	const smdmx_source_info *src = &t->l->scene->source;
	if (src->mesh_elements) return at_element(t, src->mesh_elements[sh->mesh]);
	return at_line(1);
}

typedef struct named {
	const char *name;
	size_t index;
} named;

/* By name, case aside, then by index. */
static int named_order(const void *a, const void *b)
{
	const named *x = a, *y = b;
	int c = strcasecmp(x->name, y->name);
	return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

static void lint_at(lint *t, bool error, place p, const char *fmt, ...) __attribute__((format(OS_PRINTF, 4, 5)));
static void lint_at(lint *t, bool error, place p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s%s: %s: %s%s\n", t->path, p.loc, error ? "error" : "warning", p.elem, msg);
	if (error) t->errors++;
	else t->warnings++;
}

/* A finding about the whole file: at its start (a DMX's header says its encoding and format). */
#define lint_say(t, error, ...) lint_at(t, error, at_line(1), __VA_ARGS__)

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

static void check_mesh(lint *t, const smdmx_scene *s, size_t mi, size_t max_links)
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
		lint_at(t, false, at_corner(t, mi, corner_of_position(m, first_over)),
		        "mesh '%s': %zu vertices have more than %zu weight links (up to %zu; the first here): a conversion keeps the largest %zu; reduce them in the source if the others matter",
		        m->name, over, max_links, most, max_links);
	if (unnormalised)
		lint_at(t, false, at_corner(t, mi, corner_of_position(m, first_unnormalised)),
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
		lint_at(t, false, at_corner(t, mi, first_degenerate), "mesh '%s': %zu degenerate triangles (no area; the first here): they draw nothing; remove them in the source", m->name,
		        degenerate);
	if (duplicate)
		lint_at(t, false, at_corner(t, mi, first_duplicate), "mesh '%s': %zu duplicate triangles (the first repeat here): each is drawn; remove the repeats in the source", m->name,
		        duplicate);
}

/* jointCount of each DmeVertexData against its weight arrays. */
static void check_joint_counts(lint *t, const smdmx_dm *dm, size_t max_links)
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
			lint_at(t, true, at_element(t, (uint32_t)e), "vertex data '%s': weights without a jointCount", el->name);
			continue;
		}
		int32_t count = jc->value.i;
		size_t np = pos && pos->is_array ? pos->value.array.count : 0;
		size_t nw = w && w->is_array ? w->value.array.count : 0, nj = ji && ji->is_array ? ji->value.array.count : 0;
		if (count <= 0 || nw != (size_t)count * np || nj != nw) {
			lint_at(t, true, at_element(t, (uint32_t)e),
			         "vertex data '%s': jointCount %d does not fit the weights (%zu positions, %zu weights, %zu joint indices)",
			         el->name, count, np, nw, nj);
			continue;
		}
		if ((size_t)count > max_links)
			lint_at(t, false, at_element(t, (uint32_t)e), "vertex data '%s': jointCount %d is above the target's %zu: a conversion keeps the largest %zu; nothing to do",
			        el->name, count, max_links, max_links);
		size_t used = 0;
		const float *wv = w->value.array.data;
		for (size_t p = 0; p < np; p++) {
			size_t k = 0;
			for (int32_t s = 0; s < count; s++) k += wv[p * (size_t)count + (size_t)s] != 0;
			if (k > used) used = k;
		}
		if (used < (size_t)count)
			lint_at(t, false, at_element(t, (uint32_t)e), "vertex data '%s': jointCount %d, but no vertex uses more than %zu: a conversion writes %zu; nothing to do",
			        el->name, count, used, used);
	}
}

/* A DMX's encoding and model format against the target's tools (the engine table). */
static void check_encoding(lint *t, const smdmx_dm *dm, const smdmx_engine_target *et, const char *target)
{
	bool goldsrc = et->encoding_version == 0;
	bool binary = dm->encoding && !strcmp(dm->encoding, "binary");
	if (goldsrc)
		lint_say(t, true, "a DMX: GoldSrc's tools read SMD only");
	else if (binary && dm->encoding_version > et->encoding_version)
		lint_say(t, true, "binary %d: %s's tools read binary up to %d (--target %s writes it)", dm->encoding_version, target,
		         et->encoding_version, target);
	else if (!binary)
		lint_say(t, false, "%s: %s's studiomdl may want binary %d (not every studiomdl reads text DMX); use --target %s "
		         "if it refuses the file",
		         dm->encoding ? dm->encoding : "text", target, et->encoding_version, target);
	if (!goldsrc && dm->format && !strcmp(dm->format, "model") && dm->format_version != et->model_format)
		lint_say(t, false, "model format %d: %s's tools expect model format %d; use --target %s to write it",
		         dm->format_version, target, et->model_format, target);
}

/* Bones past the target's limit; bone and material names the target, studiomdl or QC files
 * cannot hold, or bone names used twice (case aside). */
static void check_names(lint *t, const smdmx_scene *s, bool goldsrc, size_t max_bones, const char *target)
{
	if (max_bones && s->joint_count > max_bones)
		lint_at(t, true, at_joint(t, max_bones), "%zu bones; %s takes at most %zu (the first past them here)", s->joint_count, target,
		        max_bones);
	/* names used twice (case aside): sorted by name, then by index, all but the first of a run */
	named *order = malloc((s->joint_count + 1) * sizeof(named));
	bool *twice = calloc(s->joint_count + 1, sizeof(bool));
	if (!order || !twice) lint_say(t, true, "out of memory while looking for bone names used twice");
	for (size_t j = 0; order && twice && j < s->joint_count; j++) order[j] = (named){ s->joints[j].name, j };
	if (order && twice) qsort(order, s->joint_count, sizeof(named), named_order);
	for (size_t i = 1; order && twice && i < s->joint_count; i++)
		twice[order[i].index] = !strcasecmp(order[i].name, order[i - 1].name);
	for (size_t j = 0; j < s->joint_count; j++) {
		const char *n = s->joints[j].name;
		if (strchr(n, '"')) lint_at(t, true, at_joint(t, j), "bone '%s': a double quote in its name (QC files cannot hold it)", n);
		else if (goldsrc && strlen(n) > 31)
			lint_at(t, true, at_joint(t, j), "bone '%s': longer than 31 characters, which GoldSrc cannot take", n);
		if (twice && twice[j]) lint_at(t, true, at_joint(t, j), "bone '%s': the name is used twice (studiomdl matches bones by name)", n);
	}
	free(order);
	free(twice);
	for (size_t m = 0; m < s->material_count; m++) {
		const char *n = s->materials[m].name;
		place at = at_material(t, (uint32_t)m);
		if (goldsrc && strlen(n) > 63) lint_at(t, true, at, "material '%s': longer than 63 characters, which GoldSrc cannot take", n);
		else if (goldsrc) {
			const char *ext = path_extension(n);
			if (strcasecmp(ext, "bmp")) lint_at(t, false, at, "material '%s': not a .bmp, as GoldSrc expects: --goldsrc writes it as one; nothing to do", n);
		}
		if (strchr(n, '"')) lint_at(t, true, at, "material '%s': a double quote in its name", n);
	}
}

/* Flex shape and controller names QC files cannot hold; flex shapes GoldSrc has not. */
static void check_shapes(lint *t, const smdmx_scene *s, bool goldsrc)
{
	for (size_t f = 0; f < s->flex_shape_count; f++)
		if (!name_is_plain(s->flex_shapes[f].name))
			lint_at(t, true, at_shape(t, &s->flex_shapes[f]),
			        "flex shape '%s': a space, quote or control character in its name (QC files cannot hold it)", s->flex_shapes[f].name);
	for (size_t f = 0; f < s->flex_controller_count; f++)
		if (!name_is_plain(s->flex_controllers[f].name))
			lint_at(t, true, at_named(t, "DmeCombinationInputControl", s->flex_controllers[f].name),
			        "flex controller '%s': a space, quote or control character in its name (QC files cannot hold it)",
			        s->flex_controllers[f].name);
	if (goldsrc && s->flex_shape_count)
		lint_at(t, false, at_shape(t, &s->flex_shapes[0]), "%zu flex shapes, which GoldSrc does not have (the first here): --goldsrc leaves them out; nothing to do",
		        s->flex_shape_count);
}

/* Frames: every joint keyed at a frame no other key shares, none missing between. */
static void check_frames(lint *t, const smdmx_scene *s)
{
	for (size_t c = 0; c < s->clip_count; c++) {
		const smdmx_clip *clip = &s->clips[c];
		for (size_t k = 0; k < clip->channel_count; k++) {
			const smdmx_channel *ch = &clip->channels[k];
			for (size_t i = 1; i < ch->position_count; i++)
				if (ch->position_times[i] == ch->position_times[i - 1]) {
					lint_at(t, true, at_named(t, "DmeChannelsClip", clip->name), "clip '%s' joint '%s': two keys at one time", clip->name,
					        s->joints[ch->joint].name);
					break;
				}
		}
	}
}

/* What a lint holds besides the model. */
static void lint_free(lint *t)
{
	free(t->line_starts);
	free(t->parent);
	free(t->via_index);
	free(t->via);
}

int cmd_check(int argc, char **argv)
{
	const char *path = NULL, *target = "sdk2013";
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			puts("usage: smdmx check FILE [--target T]\n"
			     "Lints a model for a target engine (goldsrc, sdk2013 (default), tf2, gmod, l4d2, portal2,\n"
			     "csgo, sfm, source2): bones over the limit, weight links above the target's limit,\n"
			     "jointCount against the weights present, unnormalised weights, degenerate and duplicate\n"
			     "triangles, names GoldSrc, studiomdl or QC files cannot hold, missing or repeated frames.\n"
			     "A QC: files it names that do not exist, rules naming unknown flexes or controllers\n"
			     "(checked against a DMX model's shapes and controls).\n"
			     "Errors and warnings go to stderr. Exit codes: 0 no error, 1 an error was found, 2 a\n"
			     "usage error.");
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
			target = argv[++i];
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			stdin_name = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			say("smdmx", "error", "unknown option '%s' (try 'smdmx check --help')", argv[i]);
			return EXIT_USAGE;
		} else if (!path) {
			path = argv[i];
		} else {
			say("smdmx", "error", "check takes one file");
			return EXIT_USAGE;
		}
	}
	const smdmx_engine_target *et = engine_target_find(target, true);
	if (!et) {
		say("smdmx", "error", "unknown --target '%s' (%s)", target, engine_target_names(true));
		return EXIT_USAGE;
	}
	if (!path) {
		say("smdmx", "error", "check needs a file (try 'smdmx check --help')");
		return EXIT_USAGE;
	}
	if (!strcasecmp(path_extension(path), "qc") || !strcasecmp(path_extension(path), "qci")) return qc_check(path);
	bool goldsrc = et->encoding_version == 0;
	size_t max_links = et->max_links;
	lint t;
	memset(&t, 0, sizeof(t));
	t.path = path;
	/* Read warnings (missing frames, weight remainders...) are findings too. */
	smdmx_warnings w;
	loaded l;
	diag_buf d = { 0 };
	bool loaded_ok = load_model(path, &l, &d, &w, 0, true);
	t.l = &l;
	size_t text_size = 0;
	char *text = NULL;
	if (loaded_ok && l.dm && l.dm->encoding && strncmp(l.dm->encoding, "binary", 6)) {
		/* keyvalues2: its text, for the lines of elements */
		if (!strcmp(path, "-")) {
			char why[256];
			t.text = stdin_data(&text_size, why, sizeof(why));
		} else {
			text = read_whole(path, &text_size);
			t.text = text;
		}
		t.size = text_size;
	}
	if (!loaded_ok) {
		fputs(d.text ? d.text : "", stderr);
		diag_free(&d);
		return EXIT_FAILED;
	}
	for (size_t i = 0; i < w.count; i++) {
		char where[64] = "";
		if (w.data[i].line) snprintf(where, sizeof(where), ":%u:%u", w.data[i].line, w.data[i].column ? w.data[i].column : 1);
		fprintf(stderr, "%s%s: warning: %s%s\n", path, where, w.data[i].message, w.data[i].count > 1 ? " (and more like it)" : "");
		t.warnings++;
	}
	if (!l.scene) {
		lint_say(&t, true, "not a model: %s", l.lift_error);
		free(text);
		lint_free(&t);
		unload_model(&l);
		return EXIT_FAILED;
	}
	const smdmx_scene *s = l.scene;
	if (l.dm) check_encoding(&t, l.dm, et, target);
	check_names(&t, s, goldsrc, et->max_bones, target);
	for (size_t m = 0; m < s->mesh_count; m++) check_mesh(&t, s, m, max_links);
	if (l.dm) check_joint_counts(&t, l.dm, max_links);
	check_shapes(&t, s, goldsrc);
	check_frames(&t, s);
	if (t.errors || t.warnings)
		fprintf(stderr, "%s: %zu error%s, %zu warning%s\n", path, t.errors, t.errors == 1 ? "" : "s", t.warnings,
		        t.warnings == 1 ? "" : "s");
	free(text);
	lint_free(&t);
	unload_model(&l);
	return t.errors ? EXIT_FAILED : EXIT_OK;
}
