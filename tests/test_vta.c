/* A VTA onto its reference (decision 10, src/scene/vta.c): VTA vertices meet the reference's
 * corners by position, whatever their numbers. Each test compares, shape by shape, every
 * corner's resulting position and normal with what the VTA's text says for the vertex that
 * position matching gives that corner, computed here from the text on its own. */
#include <locale.h>
#include <math.h>

#include "util.h"
#include "c_numbers.h"

/* ---- VTA text ------------------------------------------------------------------------------ */

typedef struct vline {
	long id;
	float v[6];
} vline;

/* A VTA as lines: the text before the base frame's vertices, and per frame (0 = base) its
 * 'time' line and vertex lines. */
typedef struct vta_text {
	char *head;       /* up to and including "vertexanimation\n" */
	size_t frames;
	char time[64][64];
	vline *lines[64];
	size_t count[64];
} vta_text;

/* The text the tests write and read themselves (VTAs rewritten, generated references) has
 * '.' decimals in any locale: the library's own text does, whatever the locale is. */

static int by_id(const void *a, const void *b)
{
	long x = ((const vline *)a)->id, y = ((const vline *)b)->id;
	return x < y ? -1 : x > y;
}

/* The line of frame f for an id, or NULL (the frame's lines sorted by id first: sort_vta). */
static const vline *find_line(const vta_text *t, size_t f, long id)
{
	vline key = { id, { 0 } };
	return bsearch(&key, t->lines[f], t->count[f], sizeof(vline), by_id);
}

static void sort_vta(vta_text *t)
{
	for (size_t f = 0; f < t->frames; f++) qsort(t->lines[f], t->count[f], sizeof(vline), by_id);
}

static void parse_vta(const char *text, vta_text *out)
{
	c_numbers_state old = c_numbers_begin();
	memset(out, 0, sizeof(*out));
	const char *va = strstr(text, "vertexanimation");
	assert_non_null(va);
	const char *p = strchr(va, '\n') + 1;
	out->head = calloc((size_t)(p - text) + 1, 1);
	memcpy(out->head, text, (size_t)(p - text));
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[256];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		size_t l = strlen(line);
		if (l && line[l - 1] == '\r') line[--l] = '\0';
		if (!strncmp(line, "time", 4)) {
			assert_true(out->frames < 64);
			snprintf(out->time[out->frames], sizeof(out->time[0]), "%s", line);
			out->lines[out->frames] = calloc(16384, sizeof(vline));
			out->frames++;
		} else if (!strcmp(line, "end")) {
			break;
		} else if (l) {
			size_t f = out->frames - 1;
			vline *v = &out->lines[f][out->count[f]++];
			assert_int_equal(sscanf(line, "%ld %f %f %f %f %f %f", &v->id, &v->v[0], &v->v[1], &v->v[2], &v->v[3], &v->v[4],
			                        &v->v[5]),
			                 7);
		}
		p = e ? e + 1 : p + len;
	}
	sort_vta(out);
	c_numbers_end(old);
}

static void free_vta(vta_text *t)
{
	free(t->head);
	for (size_t f = 0; f < t->frames; f++) free(t->lines[f]);
}

static char *print_vta(const vta_text *t)
{
	size_t cap = strlen(t->head) + 4096, n = 0;
	for (size_t f = 0; f < t->frames; f++) cap += 64 + 128 * t->count[f];
	char *s = malloc(cap);
	c_numbers_state old = c_numbers_begin();
	n += (size_t)snprintf(s + n, cap - n, "%s", t->head);
	for (size_t f = 0; f < t->frames; f++) {
		n += (size_t)snprintf(s + n, cap - n, "%s\n", t->time[f]);
		for (size_t i = 0; i < t->count[f]; i++) {
			const vline *v = &t->lines[f][i];
			n += (size_t)snprintf(s + n, cap - n, "%ld %.6f %.6f %.6f %.6f %.6f %.6f\n", v->id, v->v[0], v->v[1], v->v[2], v->v[3],
			                      v->v[4], v->v[5]);
		}
	}
	snprintf(s + n, cap - n, "end\n");
	c_numbers_end(old);
	return s;
}

/* ---- expectations -------------------------------------------------------------------------- */

/* Every corner's position and normal under a shape (none: the rest), mesh by mesh. */
static float *shape_corners(const smdmx_scene *s, const char *name, size_t *count)
{
	size_t n = 0;
	for (size_t mi = 0; mi < s->mesh_count; mi++) n += s->meshes[mi].corner_count;
	float *out = calloc(6 * (n + 1), sizeof(float));
	size_t k = 0;
	for (size_t mi = 0; mi < s->mesh_count; mi++) {
		const smdmx_mesh *m = &s->meshes[mi];
		const smdmx_flex_shape *sh = NULL;
		for (size_t i = 0; name && i < s->flex_shape_count; i++)
			if (s->flex_shapes[i].mesh == mi && !strcmp(s->flex_shapes[i].name, name)) sh = &s->flex_shapes[i];
		for (size_t c = 0; c < m->corner_count; c++, k++) {
			uint32_t p = m->position_indices[c], q = m->normal_indices ? m->normal_indices[c] : SMDMX_NONE;
			for (int a = 0; a < 3; a++) {
				out[6 * k + a] = m->positions[p][a];
				out[6 * k + 3 + a] = q != SMDMX_NONE ? m->normals[q][a] : 0;
			}
			for (size_t i = 0; sh && i < sh->position_count; i++)
				if (sh->position_indices[i] == p)
					for (int a = 0; a < 3; a++) out[6 * k + a] += sh->position_deltas[i][a];
			for (size_t i = 0; sh && i < sh->normal_count; i++)
				if (sh->normal_indices[i] == q)
					for (int a = 0; a < 3; a++) out[6 * k + 3 + a] += sh->normal_deltas[i][a];
		}
	}
	*count = n;
	return out;
}

/* What the VTA text says corner k becomes in frame f when vertex `id` is its vertex: the rest
 * plus that vertex's delta (target - base, in float, as read). */
static void expected_corner(const vta_text *t, size_t f, long id, const float *rest, float *out)
{
	memcpy(out, rest, 6 * sizeof(float));
	const vline *b = find_line(t, 0, id), *m = find_line(t, f, id);
	if (!b || !m) return;
	for (int a = 0; a < 6; a++) out[a] = rest[a] + (m->v[a] - b->v[a]);
}

/* The base frame sorted by position (-0 as 0), for the vertices at a corner's position. */
static int by_position(const void *a, const void *b)
{
	const float *x = ((const vline *)a)->v, *y = ((const vline *)b)->v;
	for (int i = 0; i < 3; i++) {
		float u = x[i] == 0 ? 0.0f : x[i], w = y[i] == 0 ? 0.0f : y[i];
		if (u != w) return u < w ? -1 : 1;
	}
	return 0;
}

/* The vertex position matching gives a corner at rest (position and normal): one at its
 * position with its normal (the lowest number), else at its position with the largest dot
 * product (then the lowest number); else the nearest within 0.3873 (ties: dot, then
 * number); -1 when none. (A VTA numbered by corners pairs by number: attach_checked.) */
static long match_by_text(const vta_text *t, const vline *sorted, const float *rest)
{
	vline key = { 0, { rest[0], rest[1], rest[2], 0, 0, 0 } };
	size_t n = t->count[0], lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (by_position(&sorted[mid], &key) < 0) lo = mid + 1;
		else hi = mid;
	}
	long best = -1;
	float bdot = 0;
	for (size_t i = lo; i < n && !by_position(&sorted[i], &key); i++) {
		const vline *v = &sorted[i];
		bool same = v->v[3] == rest[3] && v->v[4] == rest[4] && v->v[5] == rest[5];
		float dot = same ? INFINITY : v->v[3] * rest[3] + v->v[4] * rest[4] + v->v[5] * rest[5];
		if (best < 0 || dot > bdot || (dot == bdot && v->id < best)) best = v->id, bdot = dot;
	}
	if (best >= 0) return best;
	float bd = 0;
	for (size_t i = 0; i < n; i++) {
		const vline *v = &t->lines[0][i];
		float d[3] = { v->v[0] - rest[0], v->v[1] - rest[1], v->v[2] - rest[2] };
		float dist = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
		float dot = v->v[3] * rest[3] + v->v[4] * rest[4] + v->v[5] * rest[5];
		if (!(dist <= 0.3873f * 0.3873f)) continue;
		if (best < 0 || dist < bd || (dist == bd && (dot > bdot || (dot == bdot && v->id < best)))) best = v->id, bd = dist, bdot = dot;
	}
	return best;
}

/* Reads a reference and a VTA text, attaches, and checks every shape's corners against the
 * VTA text by position matching (the reference's corners are its triangles' corners in file
 * order: one mesh, written in order). Returns the attached reference. */
static smdmx_scene *attach_checked(const char *ref_path, const char *vta, smdmx_warnings *w)
{
	smdmx_error err;
	smdmx_scene *ref = smdmx_smd_read_file(ref_path, NULL, &err, NULL);
	if (!ref) fail_msg("%s: %s", ref_path, err.message);
	smdmx_scene *v = smdmx_smd_read_memory(vta, strlen(vta), &(smdmx_smd_read_options){ .name = "flex" }, &err, NULL);
	if (!v) fail_msg("vta: %u:%u: %s", err.line, err.column, err.message);
	if (!smdmx_scene_attach_vta(ref, v, &err, w)) fail_msg("attach: %s", err.message);
	vta_text t;
	parse_vta(vta, &t);
	vline *sorted = malloc((t.count[0] + 1) * sizeof(vline));
	memcpy(sorted, t.lines[0], t.count[0] * sizeof(vline));
	qsort(sorted, t.count[0], sizeof(vline), by_position);
	size_t n;
	float *rest = shape_corners(ref, NULL, &n);
	long *match = malloc((n + 1) * sizeof(long));
	bool by_number = true;
	for (size_t k = 0; k < n && by_number; k++) {
		const vline *own = find_line(&t, 0, (long)k);
		by_number = own && !memcmp(own->v, rest + 6 * k, 3 * sizeof(float));
	}
	for (size_t k = 0; k < n; k++) match[k] = by_number ? (long)k : match_by_text(&t, sorted, rest + 6 * k);
	/* the shapes are the skeleton's frames after the base; each VTA frame is one of them */
	size_t seen = 0;
	for (size_t f = 1; f < t.frames; f++) {
		long number = strtol(t.time[f] + 4, NULL, 10);
		const smdmx_flex_shape *vs = NULL;
		for (size_t i = 0; i < v->flex_shape_count; i++)
			if (v->flex_shapes[i].frame == number) vs = &v->flex_shapes[i];
		if (!vs) {
			fail_msg("no shape for VTA frame %ld", number);
			return NULL;
		}
		seen++;
		size_t n2;
		float *got = shape_corners(ref, vs->name, &n2);
		for (size_t k = 0; k < n; k++) {
			float want[6];
			expected_corner(&t, f, match[k], rest + 6 * k, want);
			for (int a = 0; a < 6; a++)
				if (got[6 * k + a] != want[a])
					fail_msg("shape '%s', corner %zu, component %d: %.9g, want %.9g", vs->name, k, a, (double)got[6 * k + a],
					         (double)want[a]);
		}
		free(got);
	}
	/* shapes of the skeleton without vertex lines move nothing */
	for (size_t i = 0; i < v->flex_shape_count; i++) {
		const smdmx_flex_shape *vs = &v->flex_shapes[i];
		if (vs->position_count || vs->normal_count) continue;
		for (size_t s = 0; s < ref->flex_shape_count; s++)
			if (!strcmp(ref->flex_shapes[s].name, vs->name))
				assert_int_equal(ref->flex_shapes[s].position_count + ref->flex_shapes[s].normal_count, 0);
	}
	assert_true(seen <= v->flex_shape_count);
	free(match);
	free(sorted);
	free(rest);
	free_vta(&t);
	smdmx_scene_free(v);
	return ref;
}

static void print_warnings(const smdmx_warnings *w)
{
	for (size_t i = 0; i < w->count; i++)
		print_message("warning %d at %u: %s (%zu)\n", (int)w->data[i].code, w->data[i].line, w->data[i].message, w->data[i].count);
}

static void expect_warning(const smdmx_warnings *w, smdmx_warning_code code, uint32_t line, const char *message)
{
	print_warnings(w);
	const smdmx_warning *x = test_warning_of(w, code);
	if (!x) {
		fail_msg("no warning %d", (int)code);
		return;
	}
	assert_int_equal(x->count, 1);
	assert_int_equal(x->line, line);
	assert_string_equal(x->message, message);
}

static char *read_text(const char *path)
{
	size_t n = 0;
	char *s = test_slurp(path, &n);
	if (!s) fail_msg("%s is missing", path);
	s = realloc(s, n + 1);
	s[n] = '\0';
	return s;
}

/* ---- the cases ----------------------------------------------------------------------------- */

#define ARM "testdata/sample/arm.smd"

/* A VTA numbered by corners (Blender Source Tools' way) pairs as it always did. */
static void test_numbered(void **state)
{
	(void)state;
	char *text = read_text(test_path("testdata/sample/arm.vta"));
	TEST_WARNINGS(w);
	smdmx_scene *s = attach_checked(test_path(ARM), text, &w);
	assert_int_equal(w.count, 0);
	assert_int_equal(s->flex_shape_count, 1);
	smdmx_scene_free(s);
	free(text);
}

/* The same VTA with its vertices renumbered by a fixed permutation gives the same shapes. */
static void test_shuffled(void **state)
{
	(void)state;
	char *text = read_text(test_path("testdata/sample/arm.vta"));
	vta_text t;
	parse_vta(text, &t);
	long n = (long)t.count[0];
	assert_int_equal(n, 60);
	for (size_t f = 0; f < t.frames; f++)
		for (size_t i = 0; i < t.count[f]; i++) t.lines[f][i].id = (t.lines[f][i].id * 7 + 11) % n;
	char *shuffled = print_vta(&t);
	TEST_WARNINGS(w);
	smdmx_scene *a = attach_checked(test_path(ARM), text, &w), *b = attach_checked(test_path(ARM), shuffled, &w);
	print_warnings(&w);
	assert_int_equal(w.count, 0);
	char diff[256];
	if (!smdmx_scene_compare(a, b, NULL, diff, sizeof(diff), NULL)) fail_msg("%s", diff);
	smdmx_scene_free(a);
	smdmx_scene_free(b);
	/* numbers that start at 1000 and skip, as Crowbar writes a later body part's */
	for (size_t f = 0; f < t.frames; f++)
		for (size_t i = 0; i < t.count[f]; i++) t.lines[f][i].id = 1000 + 3 * t.lines[f][i].id;
	char *sparse = print_vta(&t);
	b = attach_checked(test_path(ARM), sparse, &w);
	assert_int_equal(w.count, 0);
	smdmx_scene_free(b);
	free(sparse);
	free(shuffled);
	free_vta(&t);
	free(text);
}

/* Extra VTA vertices at no corner: their motion is lost, and counted. */
static void test_extra_vertices(void **state)
{
	(void)state;
	char *text = read_text(test_path("testdata/sample/arm.vta"));
	vta_text t;
	parse_vta(text, &t);
	for (int i = 0; i < 5; i++) {
		vline *v = &t.lines[0][t.count[0]++];
		*v = (vline){ 60 + i, { 100.0f + (float)i, 100, 100, 0, 0, 1 } };
		if (i < 2) {
			vline *m = &t.lines[1][t.count[1]++];
			*m = (vline){ 60 + i, { 100.0f + (float)i, 100, 101, 0, 0, 1 } };
		}
	}
	char *more = print_vta(&t);
	TEST_WARNINGS(w);
	smdmx_scene *s = attach_checked(test_path(ARM), more, &w);
	assert_int_equal(w.count, 1);
	/* line 72: the first extra vertex (11 lines of head and time, 60 base lines) */
	expect_warning(&w, SMDMX_WARNING_VTA_UNMATCHED, 72,
	               "5 of 65 VTA vertices (7.7%) are at no corner of the reference: their motion is lost (2 of them move); if any move, the VTA is for another version of the reference: export both again");
	smdmx_scene_free(s);
	free(more);
	free_vta(&t);
	free(text);
}

/* A VTA without the vertices of one corner of the box: those corners do not move, and are
 * counted; the others are as the VTA says. */
static void test_missing_corners(void **state)
{
	(void)state;
	char *text = read_text(test_path("testdata/sample/arm.vta"));
	vta_text t;
	parse_vta(text, &t);
	for (size_t f = t.frames; f-- > 0;) { /* the base frame last: the others look their vertices up in it */
		size_t k = 0;
		for (size_t i = 0; i < t.count[f]; i++) {
			const vline *b = find_line(&t, 0, t.lines[f][i].id);
			if (b && b->v[0] == 10 && b->v[1] == 2 && b->v[2] == 2) continue; /* the box corner (10, 2, 2) */
			t.lines[f][k++] = t.lines[f][i];
		}
		t.count[f] = k;
	}
	char *less = print_vta(&t);
	TEST_WARNINGS(w);
	smdmx_scene *s = attach_checked(test_path(ARM), less, &w);
	assert_int_equal(w.count, 1);
	expect_warning(&w, SMDMX_WARNING_VTA_UNREACHED, 0,
	               "6 of 60 corners of the reference (10.0%) have no VTA vertex within 0.3873 units: they do not move (the "
	               "first at 10 2 2); if they should, the VTA is for another version of the reference: export both again");
	smdmx_scene_free(s);
	free(less);
	free_vta(&t);
	free(text);
}

/* A VTA that meets no corner of the reference is not its VTA: an error, nothing attached. */
static void test_foreign_vta(void **state)
{
	(void)state;
	smdmx_error err;
	smdmx_scene *ref = smdmx_smd_read_file(test_path(ARM), NULL, &err, NULL);
	const char *vta = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1\nend\nvertexanimation\ntime 0\n"
	                  "0 50 50 50 0 0 1\ntime 1\n0 50 50 51 0 0 1\nend\n";
	smdmx_scene *v = smdmx_smd_read_memory(vta, strlen(vta), NULL, &err, NULL);
	assert_non_null(ref);
	assert_non_null(v);
	assert_false(smdmx_scene_attach_vta(ref, v, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_VERTEX_ID);
	assert_string_equal(err.message, "no corner of the reference has a VTA vertex within 0.3873 units: the VTA is not for this reference");
	assert_int_equal(ref->flex_shape_count, 0);
	smdmx_scene_free(v);
	smdmx_scene_free(ref);
}

/* A VTA 0.1 units off the reference: every corner takes the nearest vertex (as studiomdl
 * does), with the VTA's deltas, and says so. */
static void test_nearest(void **state)
{
	(void)state;
	char *text = read_text(test_path("testdata/sample/arm.vta"));
	vta_text t;
	parse_vta(text, &t);
	for (size_t f = 0; f < t.frames; f++)
		for (size_t i = 0; i < t.count[f]; i++) t.lines[f][i].v[2] += 0.125f;
	char *off = print_vta(&t);
	TEST_WARNINGS(w);
	smdmx_scene *s = attach_checked(test_path(ARM), off, &w);
	assert_int_equal(w.count, 1);
	expect_warning(&w, SMDMX_WARNING_VTA_NEAREST, 12,
	               "60 of 60 corners (100.0%) have no VTA vertex at their position and take the nearest, up to 0.125 units "
	               "away, as studiomdl does; nothing to do unless that is far");
	smdmx_scene_free(s);
	free(off);
	free_vta(&t);
	free(text);
}

/* One position, two corners with different normals (the lips of a mouth modelled closed):
 * their VTA vertices move apart, so the position is split and each corner follows its own;
 * a third corner whose normal no vertex has takes the largest dot product. */
static void test_one_position_two_normals(void **state)
{
	(void)state;
	const char *ref = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n"
	                  "upper\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\n"
	                  "lower\n0 0 0 0 0 0 -1 0 0\n0 0 1 0 0 0 -1 0 1\n0 -1 0 0 0 0 -1 1 0\n"
	                  "side\n0 0 0 0 0.6 0 0.8 0 0\n0 0 0 5 0.6 0 0.8 0 1\n0 1 0 5 0.6 0 0.8 1 0\nend\n";
	char *path = test_temp_file("lips", ref, strlen(ref));
	/* numbered against the corners' order, with the two vertices at the origin swapped */
	const char *vta = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1 # open\nend\nvertexanimation\ntime 0\n"
	                  "0 0 0 0 0 0 -1\n1 1 0 0 0 0 1\n2 0 1 0 0 0 1\n3 0 0 0 0 0 1\n4 0 1 0 0 0 -1\n5 -1 0 0 0 0 -1\n"
	                  "9 0 0 5 0 0 1\n10 1 0 5 0 0 1\n"
	                  "time 1 # open\n0 0 0 -1 0 0 -1\n3 0 0 1 0 0 1\nend\n";
	TEST_WARNINGS(w);
	smdmx_scene *s = attach_checked(path, vta, &w);
	assert_int_equal(w.count, 0);
	/* the origin was one position of the reference; the lower lip has its own now */
	assert_int_equal(s->meshes[0].position_count, 7);
	assert_true(s->meshes[0].position_indices[0] != s->meshes[0].position_indices[3]);
	assert_int_equal(s->meshes[0].position_indices[0], s->meshes[0].position_indices[6]);
	/* and so it stays through a model DMX */
	smdmx_error err;
	smdmx_dm *dm = smdmx_model_from_scene(s, NULL, &err, NULL);
	assert_non_null(dm);
	smdmx_scene *back = smdmx_model_to_scene(dm, NULL, &err, NULL);
	assert_non_null(back);
	char diff[256];
	if (!smdmx_scene_compare(s, back, NULL, diff, sizeof(diff), NULL)) fail_msg("%s", diff);
	size_t n;
	float *open = shape_corners(back, "open", &n);
	assert_true(open[6 * 0 + 2] == 1.0f && open[6 * 3 + 2] == -1.0f && open[6 * 6 + 2] == 1.0f);
	free(open);
	smdmx_scene_free(back);
	smdmx_dm_free(dm);
	smdmx_scene_free(s);
	os_remove(path);
	free(path);
}

/* Valve's SDK character: its VTA pairs with the reference shape by shape, every corner as
 * the VTA says by position, with nothing to report; three shapes of the skeleton have no
 * vertex lines and move nothing; through a model DMX the shapes come back. */
static void test_sdk_humans(void **state)
{
	(void)state;
	char ref[4096], vta_path[4096];
	snprintf(ref, sizeof(ref), "%s", test_corpus_path("qc/sdk_humans/male_sdk/male_06_reference.smd"));
	snprintf(vta_path, sizeof(vta_path), "%s", test_corpus_path("qc/sdk_humans/male_sdk/male_06_expressions.vta"));
	char *text = read_text(vta_path);
	TEST_WARNINGS(w);
	smdmx_scene *s = attach_checked(ref, text, &w);
	print_warnings(&w);
	assert_int_equal(w.count, 0);
	assert_int_equal(s->flex_shape_count, 35);
	size_t empty = 0;
	for (size_t i = 0; i < s->flex_shape_count; i++) empty += !s->flex_shapes[i].position_count && !s->flex_shapes[i].normal_count;
	assert_int_equal(empty, 3);
	smdmx_error err;
	smdmx_dm *dm = smdmx_model_from_scene(s, NULL, &err, NULL);
	assert_non_null(dm);
	smdmx_scene *back = smdmx_model_to_scene(dm, NULL, &err, NULL);
	assert_non_null(back);
	smdmx_compare_options co = { .dmx_weights = true, .max_links = 3 };
	char diff[256];
	if (!smdmx_scene_compare(s, back, &co, diff, sizeof(diff), NULL)) fail_msg("%s", diff);
	smdmx_scene_free(back);
	smdmx_dm_free(dm);
	smdmx_scene_free(s);
	free(text);
}

/* The corpus cube of Blender Source Tools, its VTA numbered in reverse. */
static void test_corpus_shuffled(void **state)
{
	(void)state;
	char ref[4096], vta_path[4096];
	snprintf(ref, sizeof(ref), "%s", test_corpus_path("smd_ref/Artfunkel__BlenderSourceTools__Cube_NoArmature_Cube.smd"));
	snprintf(vta_path, sizeof(vta_path), "%s", test_corpus_path("vta/Artfunkel__BlenderSourceTools__Cube.vta"));
	char *text = read_text(vta_path);
	vta_text t;
	parse_vta(text, &t);
	long n = (long)t.count[0];
	assert_int_equal(n, 36);
	for (size_t f = 0; f < t.frames; f++)
		for (size_t i = 0; i < t.count[f]; i++) t.lines[f][i].id = n - 1 - t.lines[f][i].id;
	char *reversed = print_vta(&t);
	TEST_WARNINGS(w);
	smdmx_scene *a = attach_checked(ref, text, &w);
	assert_int_equal(w.count, 0);
	smdmx_scene *b = attach_checked(ref, reversed, &w);
	assert_int_equal(w.count, 0);
	char diff[256];
	if (!smdmx_scene_compare(a, b, NULL, diff, sizeof(diff), NULL)) fail_msg("%s", diff);
	smdmx_scene_free(a);
	smdmx_scene_free(b);
	free(reversed);
	free_vta(&t);
	free(text);
}

/* A VTA whose skeleton lists frames its vertexanimation leaves out (a shape that moves
 * nothing, as Valve's exporters write it): the shape is there, empty, with its skeleton
 * name, and the VTA is written back with its frame and vertex numbers. */
static void test_frames_without_lines(void **state)
{
	(void)state;
	const char *text = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1 # a\ntime 2 # b\ntime 3 # c\nend\n"
	                   "vertexanimation\ntime 0\n7 0 0 0 0 0 1\n9 1 0 0 0 0 1\ntime 1\n7 0 0 1 0 0 1\ntime 3\n9 1 0 1 0 0 1\nend\n";
	smdmx_error err;
	TEST_WARNINGS(w);
	smdmx_scene *v = smdmx_smd_read_memory(text, strlen(text), NULL, &err, &w);
	assert_non_null(v);
	print_warnings(&w);
	assert_int_equal(w.count, 0);
	assert_int_equal(v->flex_shape_count, 3);
	assert_string_equal(v->flex_shapes[1].name, "b");
	assert_int_equal(v->flex_shapes[1].frame, 2);
	assert_int_equal(v->flex_shapes[1].line, 8);
	assert_int_equal(v->flex_shapes[1].position_count, 0);
	assert_string_equal(v->flex_shapes[2].name, "c");
	assert_int_equal(v->flex_shapes[2].line, 17);
	test_sink out = { 0 };
	smdmx_smd_write_options o = { .lf_line_ends = true };
	assert_true(smdmx_smd_write(v, test_sink_write, &out, &o, &err));
	test_sink_text(&out);
	assert_string_equal(out.data, "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1 # a\ntime 2 # b\ntime 3 # c\nend\n"
	                              "vertexanimation\ntime 0\n7 0.000000 0.000000 0.000000 0.000000 0.000000 1.000000\n"
	                              "9 1.000000 0.000000 0.000000 0.000000 0.000000 1.000000\ntime 1 # a\n"
	                              "7 0.000000 0.000000 1.000000 0.000000 0.000000 1.000000\ntime 2 # b\ntime 3 # c\n"
	                              "9 1.000000 0.000000 1.000000 0.000000 0.000000 1.000000\nend\n");
	free(out.data);
	smdmx_scene_free(v);
}

/* A quad fanned into two triangles writes its first corner twice: when the VTA moves the
 * two differently, the first written keeps its motion, and that is said. */
static void test_fan_conflict(void **state)
{
	(void)state;
	const char *dmx =
	    "<!-- dmx encoding keyvalues2 1 format model 18 -->\n"
	    "\"DmElement\" { \"id\" \"elementid\" \"00000000-0000-0000-0000-000000000001\" \"name\" \"string\" \"quad\"\n"
	    "\"model\" \"DmeModel\" { \"id\" \"elementid\" \"00000000-0000-0000-0000-000000000002\" \"name\" \"string\" \"quad\"\n"
	    "\"transform\" \"DmeTransform\" { \"position\" \"vector3\" \"0 0 0\" \"orientation\" \"quaternion\" \"0 0 0 1\" }\n"
	    "\"children\" \"element_array\" [ \"DmeDag\" { \"name\" \"string\" \"quad\"\n"
	    "\"transform\" \"DmeTransform\" { \"position\" \"vector3\" \"0 0 0\" \"orientation\" \"quaternion\" \"0 0 0 1\" }\n"
	    "\"shape\" \"DmeMesh\" { \"name\" \"string\" \"quad\" \"currentState\" \"DmeVertexData\" {\n"
	    "\"vertexFormat\" \"string_array\" [ \"positions\", \"normals\" ]\n"
	    "\"positions\" \"vector3_array\" [ \"0 0 0\", \"1 0 0\", \"1 1 0\", \"0 1 0\" ]\n"
	    "\"positionsIndices\" \"int_array\" [ \"0\", \"1\", \"2\", \"3\" ]\n"
	    "\"normals\" \"vector3_array\" [ \"0 0 1\" ] \"normalsIndices\" \"int_array\" [ \"0\", \"0\", \"0\", \"0\" ] }\n"
	    "\"faceSets\" \"element_array\" [ \"DmeFaceSet\" { \"name\" \"string\" \"mat\"\n"
	    "\"material\" \"DmeMaterial\" { \"name\" \"string\" \"mat\" \"mtlName\" \"string\" \"mat\" }\n"
	    "\"faces\" \"int_array\" [ \"0\", \"1\", \"2\", \"3\", \"-1\" ] } ] } } ] } }\n";
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(dmx, strlen(dmx), NULL, &err, NULL);
	if (!dm) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	smdmx_scene *ref = smdmx_model_to_scene(dm, NULL, &err, NULL);
	if (!ref) fail_msg("%s", err.message);
	/* written corners: 0 1 2 and 0 2 3; the VTA moves number 0 and not number 3 */
	const char *vta = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1\nend\nvertexanimation\ntime 0\n"
	                  "0 0 0 0 0 0 1\n1 1 0 0 0 0 1\n2 1 1 0 0 0 1\n3 0 0 0 0 0 1\n4 1 1 0 0 0 1\n5 0 1 0 0 0 1\n"
	                  "time 1\n0 0 0 1 0 0 1\nend\n";
	smdmx_scene *v = smdmx_smd_read_memory(vta, strlen(vta), NULL, &err, NULL);
	assert_non_null(v);
	TEST_WARNINGS(w);
	assert_true(smdmx_scene_attach_vta(ref, v, &err, &w));
	print_warnings(&w);
	assert_int_equal(w.count, 1);
	expect_warning(&w, SMDMX_WARNING_VTA_CONFLICT, 0,
	               "corners written more than once (polygons fanned into triangles) took VTA vertices that move "
	               "differently: the first keeps its motion (1 of 6 written corners); triangulate in the source if a shape tears there");
	const smdmx_flex_shape *sh = &ref->flex_shapes[0];
	assert_int_equal(sh->position_count, 1);
	assert_true(sh->position_deltas[0][2] == 1.0f);
	smdmx_scene_free(v);
	smdmx_scene_free(ref);
	smdmx_dm_free(dm);
}

/* Many VTA vertices at one place make matching test every pair: 64 per corner and vertex
 * (and 2^22) are allowed, and one corner more than that is a limit error. */
static char *degenerate_reference(size_t corners)
{
	size_t cap = 128 + corners * 64, n = 0;
	char *s = malloc(cap);
	c_numbers_state old = c_numbers_begin();
	n += (size_t)snprintf(s + n, cap - n, "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n");
	for (size_t k = 0; k < corners; k++) {
		if (k % 3 == 0) n += (size_t)snprintf(s + n, cap - n, "m\n");
		double a = (double)k * 0.001;
		n += (size_t)snprintf(s + n, cap - n, "0 0 0 0 %.6f %.6f 0 0 0\n", cos(a), sin(a));
	}
	snprintf(s + n, cap - n, "end\n");
	c_numbers_end(old);
	return s;
}

static void test_budget(void **state)
{
	(void)state;
	/* H corners and G vertices at the origin, no normal equal: H * G tests against a budget
	 * of 2^22 + 64 (H + G); 2112 * 2114 is exactly that. */
	size_t g = 2114;
	size_t vcap = 256 + g * 64, vn = 0;
	char *vta = malloc(vcap);
	c_numbers_state old = c_numbers_begin();
	vn += (size_t)snprintf(vta + vn, vcap - vn, "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\nend\nvertexanimation\ntime 0\n");
	for (size_t i = 0; i < g; i++) {
		double a = 3.0 + (double)i * 0.001;
		vn += (size_t)snprintf(vta + vn, vcap - vn, "%zu 0 0 0 %.6f %.6f 0\n", 1000000 + i, cos(a), sin(a));
	}
	snprintf(vta + vn, vcap - vn, "end\n");
	c_numbers_end(old);
	smdmx_error err;
	smdmx_scene *v = smdmx_smd_read_memory(vta, strlen(vta), NULL, &err, NULL);
	assert_non_null(v);
	for (int past = 0; past <= 1; past++) {
		char *text = degenerate_reference(2112 + 3 * (size_t)past);
		smdmx_scene *ref = smdmx_smd_read_memory(text, strlen(text), NULL, &err, NULL);
		assert_non_null(ref);
		TEST_WARNINGS(w);
		bool ok = smdmx_scene_attach_vta(ref, v, &err, &w);
		if (!past) {
			if (!ok) fail_msg("at the limit: %s", err.message);
		} else {
			assert_false(ok);
			assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
			assert_string_equal(err.message, "matching the VTA to the reference would test more than 4464960 pairs of vertices "
			                                 "(64 per corner and VTA vertex, and 2^22): too many VTA vertices at one place");
		}
		smdmx_scene_free(ref);
		free(text);
	}
	smdmx_scene_free(v);
	free(vta);
}

/* Every allocation of the attach failing in turn: a clean out-of-memory error, nothing
 * leaked, the reference as it was. */
static void test_allocation_failures(void **state)
{
	(void)state;
	char *text = read_text(test_path("testdata/sample/arm.vta"));
	vta_text t;
	parse_vta(text, &t);
	for (size_t f = 0; f < t.frames; f++)
		for (size_t i = 0; i < t.count[f]; i++) t.lines[f][i].id = (t.lines[f][i].id * 7 + 11) % 60;
	char *shuffled = print_vta(&t);
	smdmx_error err;
	smdmx_scene *v = smdmx_smd_read_memory(shuffled, strlen(shuffled), NULL, &err, NULL);
	assert_non_null(v);
	size_t steps = 0;
	for (size_t i = 0;; i++) {
		test_counter c = { 0, 0, 0 };
		smdmx_smd_read_options o = { .allocator = test_allocator(&c) };
		smdmx_scene *ref = smdmx_smd_read_file(test_path(ARM), &o, &err, NULL);
		assert_non_null(ref);
		size_t read_calls = c.calls;
		smdmx_scene_free(ref);
		c = (test_counter){ 0, 0, 0 };
		o.allocator.fail_after = read_calls + i;
		ref = smdmx_smd_read_file(test_path(ARM), &o, &err, NULL);
		assert_non_null(ref);
		bool ok = smdmx_scene_attach_vta(ref, v, &err, NULL);
		if (!ok) {
			assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
			assert_int_equal(ref->flex_shape_count, 0);
		}
		smdmx_scene_free(ref);
		assert_int_equal(c.live, 0);
		steps++;
		if (ok) break;
	}
	assert_true(steps > 10);
	smdmx_scene_free(v);
	free(shuffled);
	free_vta(&t);
	free(text);
}

/* Through a model DMX, a shape is a corrective only when its name joins the names of other
 * shapes ("smile_blink"); "flex_1" (the name of an unnamed VTA frame) and "brow_raise" are
 * shapes of their own. */
static void test_corrective_names(void **state)
{
	(void)state;
	const char *ref = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n"
	                  "m\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n";
	const char *vta = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1 # smile\ntime 2 # blink\n"
	                  "time 3 # smile_blink\ntime 4\ntime 5 # brow_raise\nend\nvertexanimation\ntime 0\n"
	                  "0 0 0 0 0 0 1\n1 1 0 0 0 0 1\n2 0 1 0 0 0 1\ntime 1\n0 0 0 1 0 0 1\ntime 2\n1 1 0 1 0 0 1\n"
	                  "time 3\n2 0 1 1 0 0 1\ntime 4\n0 0 0 2 0 0 1\ntime 5\n1 1 0 2 0 0 1\nend\n";
	smdmx_error err;
	smdmx_scene *a = smdmx_smd_read_memory(ref, strlen(ref), NULL, &err, NULL);
	smdmx_scene *v = smdmx_smd_read_memory(vta, strlen(vta), NULL, &err, NULL);
	assert_non_null(a);
	assert_non_null(v);
	assert_true(smdmx_scene_attach_vta(a, v, &err, NULL));
	smdmx_dm *dm = smdmx_model_from_scene(a, NULL, &err, NULL);
	assert_non_null(dm);
	smdmx_scene *b = smdmx_model_to_scene(dm, NULL, &err, NULL);
	assert_non_null(b);
	static const char *const names[] = { "smile", "blink", "smile_blink", "flex_4", "brow_raise" };
	static const bool corrective[] = { false, false, true, false, false };
	assert_int_equal(b->flex_shape_count, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(b->flex_shapes[i].name, names[i]);
		assert_int_equal(b->flex_shapes[i].corrective, corrective[i]);
	}
	/* the controls smd2dmx made, one per VTA shape, come back */
	assert_int_equal(b->flex_controller_count, 5);
	smdmx_scene_free(b);
	smdmx_dm_free(dm);
	smdmx_scene_free(a);
	smdmx_scene_free(v);
}

/* A VTA frame is a shape by its number: frames of one name (Valve's XSI exports name both
 * directions of an eyelid alike) stay shapes of their own, renamed and said; a DMX with two
 * delta states of one name gives a VTA frame for each; the QC lines follow the names. */
static void test_repeated_names(void **state)
{
	(void)state;
	const char *ref = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n"
	                  "m\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n";
	const char *vta = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1 # upper_right\ntime 2 # upper_right\n"
	                  "time 3 # lower\ntime 4 # upper_right\nend\nvertexanimation\ntime 0\n"
	                  "0 0 0 0 0 0 1\n1 1 0 0 0 0 1\n2 0 1 0 0 0 1\ntime 1\n0 0 0 1 0 0 1\ntime 2\n0 0 0 -1 0 0 1\n"
	                  "time 3\n2 0 1 1 0 0 1\ntime 4\n1 1 0 2 0 0 1\nend\n";
	smdmx_error err;
	TEST_WARNINGS(w);
	smdmx_scene *a = smdmx_smd_read_memory(ref, strlen(ref), NULL, &err, NULL);
	smdmx_scene *v = smdmx_smd_read_memory(vta, strlen(vta), NULL, &err, &w);
	assert_non_null(a);
	assert_non_null(v);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_SHAPE_RENAMED);
	assert_int_equal(w.data[0].count, 2);
	assert_int_equal(w.data[0].line, 8);
	assert_string_equal(w.data[0].message,
	                    "VTA frames 1 and 2 are both named 'upper_right': frame 2 is the shape 'upper_right_2' (a QC's flex lines name a frame by its number); nothing to do");
	assert_true(smdmx_scene_attach_vta(a, v, &err, NULL));
	static const char *const names[] = { "upper_right", "upper_right_2", "lower", "upper_right_4" };
	assert_int_equal(a->flex_shape_count, 4);
	for (size_t i = 0; i < 4; i++) assert_string_equal(a->flex_shapes[i].name, names[i]);
	assert_true(a->flex_shapes[0].position_deltas[0][2] == 1.0f && a->flex_shapes[1].position_deltas[0][2] == -1.0f);
	/* through DMX: four delta states, four VTA frames, and QC lines for each */
	smdmx_dm *dm = smdmx_model_from_scene(a, NULL, &err, NULL);
	assert_non_null(dm);
	smdmx_scene *b = smdmx_model_to_scene(dm, NULL, &err, NULL);
	assert_non_null(b);
	assert_int_equal(b->flex_shape_count, 4);
	char *lines = NULL;
	assert_true(smdmx_qc_from_scene(b, "m.vta", &lines, NULL, &err, NULL));
	const char *want = "\tflexfile \"m.vta\"\n\tflex upper_right frame 1\n\tflex upper_right_2 frame 2\n\tflex lower frame 3\n"
	                   "\tflex upper_right_4 frame 4\n\tflexcontroller upper_right range 0 1 upper_right\n";
	assert_memory_equal(lines, want, strlen(want));
	smdmx_qc_text_free(lines);
	smdmx_smd_write_options wo = { .kind = SMDMX_SMD_WRITE_VTA };
	test_sink out = { 0 };
	assert_true(smdmx_smd_write(b, test_sink_write, &out, &wo, &err));
	char *text = test_sink_text(&out);
	assert_non_null(strstr(text, "time 4 # upper_right_4"));
	free(text);
	smdmx_scene_free(b);
	/* a DMX whose mesh has two delta states of one name (another writer's) */
	for (size_t e = 0; e < dm->element_count; e++)
		if (!strcmp(dm->elements[e].name, "upper_right_2")) dm->elements[e].name = "upper_right";
	smdmx_warnings_free(&w);
	b = smdmx_model_to_scene(dm, NULL, &err, &w);
	assert_non_null(b);
	assert_int_equal(b->flex_shape_count, 4);
	assert_string_equal(b->flex_shapes[1].name, "upper_right_2");
	const smdmx_warning *x = test_warning_of(&w, SMDMX_WARNING_SHAPE_RENAMED);
	assert_non_null(x);
	assert_string_equal(x->message, "mesh 'model' has two delta states named 'upper_right': the later is the shape 'upper_right_2', and what drives 'upper_right' drives the first; if the later should move, rename it in the source");
	smdmx_scene_free(b);
	smdmx_dm_free(dm);
	smdmx_scene_free(a);
	smdmx_scene_free(v);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbered),
		cmocka_unit_test(test_shuffled),
		cmocka_unit_test(test_extra_vertices),
		cmocka_unit_test(test_missing_corners),
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_foreign_vta),
		cmocka_unit_test(test_one_position_two_normals),
		cmocka_unit_test(test_sdk_humans),
		cmocka_unit_test(test_corpus_shuffled),
		cmocka_unit_test(test_frames_without_lines),
		cmocka_unit_test(test_repeated_names),
		cmocka_unit_test(test_fan_conflict),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_allocation_failures),
		cmocka_unit_test(test_corrective_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
