/* SMD and VTA reading and writing: exact values, error codes and positions, and the
 * writer's output format. (Truncation and allocation failures: test_sweeps.) */
#define _GNU_SOURCE
#include <locale.h>
#include <math.h>

#include "support/internal.h"
#include "smd/smd_read.h" /* sm_smd_part_min */
#include "util.h"

static smdmx_scene *read_ok(const char *rel, smdmx_warnings *warn)
{
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_file(test_path(rel), NULL, &err, warn);
	if (!s) fail_msg("%s:%u:%u: %s", rel, err.line, err.column, err.message);
	return s;
}

static const smdmx_joint *joint_named(const smdmx_scene *s, const char *name)
{
	for (size_t i = 0; i < s->joint_count; i++)
		if (!strcmp(s->joints[i].name, name)) return &s->joints[i];
	fail_msg("no joint '%s'", name);
	abort();
}

static void assert_close(double a, double b, double tol)
{
	if (fabs(a - b) > tol) fail_msg("%.9g vs %.9g", a, b);
}

static void test_features(void **state)
{
	(void)state;
	TEST_WARNINGS(warn);
	smdmx_scene *s = read_ok("testdata/ok/features.smd", &warn);
	/* nodes in file order, ids out of order, quoted name with a space */
	assert_int_equal(s->joint_count, 3);
	assert_string_equal(s->joints[0].name, "child bone");
	assert_string_equal(s->joints[1].name, "root");
	assert_string_equal(s->joints[2].name, "tip");
	assert_int_equal(s->joints[0].parent, 1);
	assert_int_equal(s->joints[1].parent, SMDMX_NONE);
	assert_int_equal(s->joints[2].parent, 0);
	/* "1.5e0 -2E-1 .25" and rotation (pi/2, 0, 0) */
	const smdmx_joint *c = joint_named(s, "child bone");
	assert_true(c->bind.position[0] == 1.5f && c->bind.position[1] == -0.2f && c->bind.position[2] == 0.25f);
	assert_close(c->bind.orientation[0], sqrt(0.5), 1e-6);
	assert_close(c->bind.orientation[3], sqrt(0.5), 1e-6);
	const smdmx_joint *t = joint_named(s, "tip");
	assert_true(t->bind.position[1] == 3.0f);
	assert_close(t->bind.orientation[1], -sqrt(0.5), 1e-6);
	/* one reference frame: no clip */
	assert_int_equal(s->clip_count, 0);
	/* "Material #152" keeps its '#'; one material, one face set, two triangles */
	assert_int_equal(s->material_count, 1);
	assert_string_equal(s->materials[0].name, "Material #152");
	assert_int_equal(s->mesh_count, 1);
	const smdmx_mesh *m = &s->meshes[0];
	assert_int_equal(m->corner_count, 6);
	assert_int_equal(m->face_set_count, 1);
	assert_int_equal(m->face_sets[0].polygon_count, 2);
	/* dedup: corners 2 and 3 are the same vertex, 1 and 4 too */
	assert_int_equal(m->position_indices[2], m->position_indices[3]);
	assert_int_equal(m->position_indices[1], m->position_indices[4]);
	assert_int_equal(m->position_count, 4);
	/* corner 1: links (child 0.25, tip 0.25) + remainder 0.5 to its parent "child bone" */
	uint32_t p = m->position_indices[1];
	assert_int_equal(m->weight_offsets[p + 1] - m->weight_offsets[p], 2);
	const smdmx_weight *w = &m->weights[m->weight_offsets[p]];
	assert_int_equal(w[0].joint, 0);
	assert_true(w[0].weight == 0.75f);
	assert_int_equal(w[1].joint, 2);
	assert_true(w[1].weight == 0.25f);
	/* corner 5: link count 0 binds to its parent bone "root" with weight 1 */
	p = m->position_indices[5];
	assert_int_equal(m->weight_offsets[p + 1] - m->weight_offsets[p], 1);
	assert_int_equal(m->weights[m->weight_offsets[p]].joint, 1);
	assert_true(m->weights[m->weight_offsets[p]].weight == 1.0f);
	/* UVs copied unchanged */
	assert_true(m->uv_sets[0].data[m->uv_sets[0].indices[2]][1] == 1.0f);
	/* warnings: version "1.0" is version 1 (no warning); one remainder, counted twice */
	assert_int_equal(warn.count, 1);
	assert_int_equal(warn.data[0].code, SMDMX_WARNING_WEIGHT_REMAINDER);
	assert_int_equal(warn.data[0].count, 2);
	assert_int_equal(warn.data[0].line, 18);
	smdmx_scene_free(s);
}

/* Names a scene repeats, which the diff pairs in their order: said for the first file, and
 * for the second only where the first does not repeat them as often. */
static void said_note(void *user, const char *message)
{
	snprintf(user, 200, "%s", message);
}

static void test_repeated_names(void **state)
{
	(void)state;
	const char *twice = "version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\n2 \"a\" 1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 0 0 0 0 0\n2 0 0 0 0 0 0\nend\n";
	const char *once = "version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 0 0 0 0 0\nend\n";
	smdmx_error err;
	smdmx_scene *t = smdmx_smd_read_memory(twice, strlen(twice), NULL, &err, NULL);
	smdmx_scene *o = smdmx_smd_read_memory(once, strlen(once), NULL, &err, NULL);
	assert_non_null(t);
	assert_non_null(o);
	char note[200] = "";
	assert_int_equal(smdmx_scene_repeated_names(t, NULL, NULL, said_note, note, NULL), 1);
	assert_string_equal(note, "2 bones are named 'a': they pair with the other file's of that name in their order");
	assert_int_equal(smdmx_scene_repeated_names(t, t, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(smdmx_scene_repeated_names(t, o, NULL, NULL, NULL, NULL), 1);
	assert_int_equal(smdmx_scene_repeated_names(o, t, NULL, NULL, NULL, NULL), 0);
	smdmx_scene_free(t);
	smdmx_scene_free(o);
}

static void test_duplicate_names(void **state)
{
	(void)state;
	const char *t = "version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\n2 \"a\" 1\nend\n";
	smdmx_error err;
	TEST_WARNINGS(warn);
	smdmx_scene *s = smdmx_smd_read_memory(t, strlen(t), NULL, &err, &warn);
	assert_non_null(s);
	assert_int_equal(warn.count, 2); /* the duplicate, and no skeleton frame */
	assert_int_equal(warn.data[0].code, SMDMX_WARNING_DUPLICATE_NAME);
	assert_int_equal(warn.data[0].line, 5);
	assert_string_equal(warn.data[0].message, "two bones are named 'a': both kept, in their order, but studiomdl finds a bone by its name and takes one of them; rename one in the source");
	assert_string_equal(s->name, "model"); /* from memory, without options->name */
	smdmx_scene_free(s);
	smdmx_smd_read_options o = { .name = "arm" };
	s = smdmx_smd_read_memory(t, strlen(t), &o, &err, NULL);
	assert_non_null(s);
	assert_string_equal(s->name, "arm");
	smdmx_scene_free(s);
}

static void test_line_ends(void **state)
{
	(void)state;
	smdmx_scene *a = read_ok("testdata/ok/cr_only.smd", NULL);
	smdmx_scene *b = read_ok("testdata/ok/crlf.smd", NULL);
	char diff[256];
	assert_true(smdmx_scene_compare(a, b, NULL, diff, sizeof(diff), NULL));
	assert_int_equal(a->meshes[0].corner_count, 3);
	assert_true(a->joints[0].bind.position[2] == 3.0f);
	assert_true(a->source.smd_crlf);
	/* The LF text of the same file, read from memory, one byte at a time at the end. */
	const char *lf = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 1 2 3 0 0 0\nend\ntriangles\nmat\n"
	                 "0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend";
	smdmx_error err;
	smdmx_scene *c = smdmx_smd_read_memory(lf, strlen(lf), NULL, &err, NULL);
	assert_non_null(c);
	assert_true(smdmx_scene_compare(a, c, NULL, diff, sizeof(diff), NULL));
	assert_false(c->source.smd_crlf);
	smdmx_scene_free(a);
	smdmx_scene_free(b);
	smdmx_scene_free(c);
}

/* Other writers' habits: a UTF-8 byte order mark (Windows editors), Crowbar's header
 * comment and indentation, commented-out triangles and its physics faces of 9 values. */
static void test_other_writers(void **state)
{
	(void)state;
	const char *plain = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 1 2 3 0 0 0\nend\ntriangles\nmat\n"
	                    "0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n";
	char bom[512];
	snprintf(bom, sizeof(bom), "\xEF\xBB\xBF%s", plain);
	smdmx_error err;
	TEST_WARNINGS(w);
	smdmx_scene *a = smdmx_smd_read_memory(plain, strlen(plain), NULL, &err, &w);
	assert_non_null(a);
	assert_int_equal(w.count, 0);
	smdmx_scene *b = smdmx_smd_read_memory(bom, strlen(bom), NULL, &err, &w);
	assert_non_null(b);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_BOM);
	assert_int_equal(w.data[0].line, 1);
	assert_int_equal(w.data[0].column, 1);
	assert_int_equal(w.data[0].count, 1);
	char diff[256];
	if (!smdmx_scene_compare(a, b, NULL, diff, sizeof(diff), NULL)) fail_msg("%s", diff);
	smdmx_scene_free(b);
	/* a mark before a comment line, and an error after one still counts the mark's bytes */
	snprintf(bom, sizeof(bom), "\xEF\xBB\xBF// exported\n%s", plain);
	b = smdmx_smd_read_memory(bom, strlen(bom), NULL, &err, &w);
	assert_non_null(b);
	assert_int_equal(w.count, 1);
	smdmx_scene_free(b);
	assert_null(smdmx_smd_read_memory("\xEF\xBB\xBFversion x\n", 13, NULL, &err, &w));
	assert_int_equal(err.line, 1);
	assert_int_equal(err.column, 12);
	/* only at the start of the file */
	snprintf(bom, sizeof(bom), "version 1\n\xEF\xBB\xBFnodes\n");
	assert_null(smdmx_smd_read_memory(bom, strlen(bom), NULL, &err, &w));
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 1);
	smdmx_scene_free(a);

	/* A blank material line: studiomdl skips the triangle (its next three lines), as in
	 * Valve's own police_sdk_reference.smd; a blank line before a material line is only a
	 * blank line. */
	const char *blank = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 1 2 3 0 0 0\nend\ntriangles\n"
	                    "  \r\n0 9 9 9 0 0 1 0 0\n0 9 8 9 0 0 1 0 0\n0 9 9 8 0 0 1 0 0\n\nmat\n"
	                    "0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\n\n"
	                    "0 9 9 9 0 0 1 0 0\n0 9 8 9 0 0 1 0 0\n0 9 9 8 0 0 1 0 0\nend\n";
	b = smdmx_smd_read_memory(blank, strlen(blank), NULL, &err, &w);
	assert_non_null(b);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_SKIPPED_TRIANGLES);
	assert_int_equal(w.data[0].line, 10);
	assert_int_equal(w.data[0].count, 2);
	a = smdmx_smd_read_memory(plain, strlen(plain), NULL, &err, &w);
	if (!smdmx_scene_compare(a, b, NULL, diff, sizeof(diff), NULL)) fail_msg("%s", diff);
	smdmx_scene_free(a);
	smdmx_scene_free(b);

	/* Crowbar's decompiled reference (after its SourceSmdFile49 writer): its physics
	 * material line "  phy" names "  phy" to studiomdl, which keeps white space at a line's
	 * start (said) */
	a = read_ok("testdata/ok/crowbar.smd", &w);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_MATERIAL_SPACE);
	assert_int_equal(w.data[0].line, 23);
	assert_int_equal(a->joint_count, 2);
	assert_int_equal(a->mesh_count, 1);
	assert_int_equal(a->meshes[0].face_set_count, 2);
	assert_string_equal(a->materials[a->meshes[0].face_sets[0].material].name, "mat");
	assert_string_equal(a->materials[a->meshes[0].face_sets[1].material].name, "  phy");
	assert_int_equal(a->meshes[0].corner_count, 6);
	assert_true(a->joints[1].bind.position[0] == 1.0f);
	smdmx_scene_free(a);
}

static void test_animation_hold(void **state)
{
	(void)state;
	smdmx_scene *s = read_ok("testdata/ok/anim_hold.smd", NULL);
	assert_int_equal(s->clip_count, 1);
	const smdmx_clip *c = &s->clips[0];
	assert_true(c->frame_rate == 30.0);
	/* frames 10, 11, 12 at 30 fps: ticks floor(f * 10000 / 30) */
	assert_int_equal(c->start, 3333);
	assert_int_equal(c->duration, 4000 - 3333);
	const smdmx_channel *a = &c->channels[0], *b = &c->channels[1];
	assert_int_equal(a->position_count, 3);
	assert_int_equal(a->position_times[1], 3666);
	/* "a" omitted at frame 12 holds frame 11's value; "b" omitted at 11 holds frame 10's */
	assert_true(a->positions[2][2] == 1.0f);
	assert_true(b->positions[1][0] == 1.0f);
	assert_true(b->positions[2][0] == 2.0f);
	assert_close(b->orientations[1][2], sin(0.25), 1e-7);
	assert_close(b->orientations[2][2], sin(0.125), 1e-7);
	/* write: frame numbers 10..12 come back, every bone in every frame */
	test_sink out = { 0 };
	smdmx_smd_write_options o = { .lf_line_ends = true };
	smdmx_error err;
	assert_true(smdmx_smd_write(s, test_sink_write, &out, &o, &err));
	const char *want = "version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\nend\nskeleton\n"
	                   "time 10\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
	                   "1 1.000000 0.000000 0.000000 0.000000 0.000000 0.500000\n"
	                   "time 11\n0 0.000000 0.000000 1.000000 0.000000 0.000000 0.000000\n"
	                   "1 1.000000 0.000000 0.000000 0.000000 0.000000 0.500000\n"
	                   "time 12\n0 0.000000 0.000000 1.000000 0.000000 0.000000 0.000000\n"
	                   "1 2.000000 0.000000 0.000000 0.000000 0.000000 0.250000\nend\n";
	assert_int_equal(out.size, strlen(want));
	assert_memory_equal(out.data, want, out.size);
	free(out.data);
	smdmx_scene_free(s);
}

static void test_version3_uvs(void **state)
{
	(void)state;
	TEST_WARNINGS(warn);
	smdmx_scene *s = read_ok("testdata/ok/uv3.smd", &warn);
	const smdmx_mesh *m = &s->meshes[0];
	assert_int_equal(m->uv_set_count, 3);
	assert_string_equal(m->uv_sets[2].name, "texcoord$2");
	assert_true(m->uv_sets[1].data[m->uv_sets[1].indices[0]][1] == 0.2f);
	assert_true(m->uv_sets[2].data[m->uv_sets[2].indices[2]][1] == 0.5f);
	assert_int_equal(m->uv_sets[2].count, 2);
	/* version 3 is a valid version (decision 12): no warning */
	for (size_t i = 0; i < warn.count; i++) assert_int_not_equal(warn.data[i].code, SMDMX_WARNING_VERSION);
	test_sink out = { 0 };
	smdmx_error err;
	assert_true(smdmx_smd_write(s, test_sink_write, &out, NULL, &err));
	assert_memory_equal(out.data, "version 3\r\n", 11);
	const char *line = "0 0.000000 0.000000 0.000000 0.000000 0.000000 1.000000 0.500000 0.500000 1 0 1.000000 "
	                   "2 0.100000 0.200000 0.300000 0.400000\r\n";
	assert_non_null(test_memmem(out.data, out.size, line, strlen(line)));
	free(out.data);
	smdmx_scene_free(s);
}

/* A mesh without normals (a DMX may have none) writes three zeros for each, one without UVs
 * two: on the line put together from pooled pieces, and on the line of a mesh with extra UV
 * sets, made piece by piece. */
static void test_missing_normals_uvs(void **state)
{
	(void)state;
	for (int uvs = 0; uvs <= 1; uvs++) {
		smdmx_scene *s = read_ok("testdata/ok/uv3.smd", NULL);
		smdmx_mesh *m = &s->meshes[0];
		m->normals = NULL;
		m->normal_count = 0;
		m->normal_indices = NULL;
		if (!uvs) m->uv_set_count = 0; /* (the scene's memory keeps the arrays until it goes) */
		test_sink out = { 0 };
		smdmx_smd_write_options o = { .lf_line_ends = true };
		smdmx_error err;
		assert_true(smdmx_smd_write(s, test_sink_write, &out, &o, &err));
		const char *want = uvs ? "triangles\nm\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000 0.500000 0.500000 1 0 "
		                         "1.000000 2 0.100000 0.200000 0.300000 0.400000\n0 1.000000 0.000000 0.000000 0.000000 0.000000 "
		                         "0.000000 0.500000 0.500000 1 0 1.000000 2 0.100000 0.200000 0.300000 0.400000\n"
		                       : "triangles\nm\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000 1 0 "
		                         "1.000000\n0 1.000000 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000 1 0 "
		                         "1.000000\n0 0.000000 1.000000 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000 1 0 "
		                         "1.000000\nend\n";
		assert_non_null(test_memmem(out.data, out.size, want, strlen(want)));
		free(out.data);
		smdmx_scene_free(s);
	}
}

static void test_vta(void **state)
{
	(void)state;
	smdmx_scene *s = read_ok("testdata/ok/shapes.vta", NULL);
	assert_int_equal(s->source.format, SMDMX_SOURCE_VTA);
	assert_int_equal(s->flex_shape_count, 2);
	assert_string_equal(s->flex_shapes[0].name, "smile");
	assert_string_equal(s->flex_shapes[1].name, "flex_2");
	assert_int_equal(s->flex_shapes[0].position_count, 1);
	assert_int_equal(s->flex_shapes[0].position_indices[0], 1);
	assert_true(s->flex_shapes[0].position_deltas[0][2] == 0.5f);
	assert_true(s->flex_shapes[1].normal_deltas[0][1] == 1.0f && s->flex_shapes[1].normal_deltas[0][2] == -1.0f);
	test_sink out = { 0 };
	smdmx_smd_write_options o = { .lf_line_ends = true };
	smdmx_error err;
	assert_true(smdmx_smd_write(s, test_sink_write, &out, &o, &err));
	const char *want = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1 # smile\ntime 2 # flex_2\nend\n"
	                   "vertexanimation\ntime 0\n"
	                   "0 0.000000 0.000000 0.000000 0.000000 0.000000 1.000000\n"
	                   "1 1.000000 0.000000 0.000000 0.000000 0.000000 1.000000\n"
	                   "2 0.000000 1.000000 0.000000 0.000000 0.000000 1.000000\n"
	                   "time 1 # smile\n1 1.000000 0.000000 0.500000 0.000000 0.000000 1.000000\n"
	                   "time 2 # flex_2\n2 0.000000 1.000000 -0.250000 0.000000 1.000000 0.000000\nend\n";
	assert_int_equal(out.size, strlen(want));
	assert_memory_equal(out.data, want, out.size);
	free(out.data);
	smdmx_scene_free(s);
}

/* Every bad file: the exact code, line and column. */
static void test_bad_inputs(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		smdmx_error_code code;
		uint32_t line, col;
	} cases[] = {
		{ "unknown_block.smd", SMDMX_ERROR_UNKNOWN_BLOCK, 5, 1 },
		{ "bad_number.smd", SMDMX_ERROR_BAD_NUMBER, 7, 5 },
		{ "missing_number.smd", SMDMX_ERROR_SYNTAX, 7, 6 },
		{ "nan.smd", SMDMX_ERROR_NOT_FINITE, 7, 3 },
		{ "overflow.smd", SMDMX_ERROR_NOT_FINITE, 7, 5 },
		{ "bone_undefined.smd", SMDMX_ERROR_BONE_UNDEFINED, 7, 1 },
		{ "bone_redefined.smd", SMDMX_ERROR_BONE_REDEFINED, 4, 1 },
		{ "parent_cycle.smd", SMDMX_ERROR_PARENT_CYCLE, 3, 7 },
		{ "short_triangle.smd", SMDMX_ERROR_TRIANGLE, 6, 1 },
		{ "links_overrun.smd", SMDMX_ERROR_LINKS, 7, 19 },
		{ "missing_end.smd", SMDMX_ERROR_MISSING_END, 5, 1 },
		{ "truncated.smd", SMDMX_ERROR_SYNTAX, 9, 16 },
		{ "empty.smd", SMDMX_ERROR_EMPTY, 1, 1 },
		{ "version.smd", SMDMX_ERROR_VERSION, 1, 9 },
		{ "time_order.smd", SMDMX_ERROR_TIME, 7, 6 },
		{ "vta_id.vta", SMDMX_ERROR_VERTEX_ID, 13, 1 },
		{ "link_bone_undefined.smd", SMDMX_ERROR_BONE_UNDEFINED, 7, 21 },
		{ "no_version.smd", SMDMX_ERROR_SYNTAX, 1, 1 },
		{ "trailing_text.smd", SMDMX_ERROR_SYNTAX, 7, 15 },
		{ "unterminated_name.smd", SMDMX_ERROR_SYNTAX, 3, 3 },
		/* Fuzzing findings (fuzz/CAMPAIGN.md): each once crashed or tripped a sanitizer. */
		{ "fuzz_frames_without_bones.smd", SMDMX_ERROR_BONE_UNDEFINED, 9, 3 }, /* UB: a frame held over no bones */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), "testdata/bad/%s", cases[i].file);
		smdmx_error err;
		smdmx_scene *s = smdmx_smd_read_file(test_path(rel), NULL, &err, NULL);
		if (s) fail_msg("%s: read without error", cases[i].file);
		if (err.code != cases[i].code || err.line != cases[i].line || err.column != cases[i].col)
			fail_msg("%s: got %s at %u:%u (%s), want %s at %u:%u", cases[i].file, smdmx_error_code_name(err.code),
			         err.line, err.column, err.message, smdmx_error_code_name(cases[i].code), cases[i].line,
			         cases[i].col);
	}
}

static void expect_error(const char *data, size_t size, const smdmx_smd_read_options *o, smdmx_error_code code,
                         uint32_t line, uint32_t col)
{
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(data, size, o, &err, NULL);
	if (s) fail_msg("read without error");
	if (err.code != code || err.line != line || err.column != col)
		fail_msg("got %s at %u:%u (%s), want %s at %u:%u", smdmx_error_code_name(err.code), err.line, err.column,
		         err.message, smdmx_error_code_name(code), line, col);
}

static void test_nul_and_long_lines(void **state)
{
	(void)state;
	const char nul[] = "version 1\nnodes\n0 \"a\0\" -1\nend\n";
	expect_error(nul, sizeof(nul) - 1, NULL, SMDMX_ERROR_NUL_BYTE, 3, 5);
	/* The line limit, exactly at it (reads) and one past it (fails), through a file so
	 * the chunked path is used. */
	smdmx_smd_read_options o = { .limits = { .max_line_length = 100 } };
	for (int extra = 0; extra <= 1; extra++) {
		char text[512];
		int n = snprintf(text, sizeof(text), "version 1\nnodes\n0 \"");
		int name_len = 100 - 7 + extra; /* '0 "' + name + '" -1' = 100 (+1) bytes */
		memset(text + n, 'x', (size_t)name_len);
		n += name_len;
		n += snprintf(text + n, sizeof(text) - (size_t)n, "\" -1\nend\n");
		char *path = test_temp_file("test", text, (size_t)n);
		smdmx_error err;
		smdmx_scene *s = smdmx_smd_read_file(path, &o, &err, NULL);
		os_remove(path);
		free(path);
		if (extra == 0) {
			assert_non_null(s);
			smdmx_scene_free(s);
		} else {
			assert_null(s);
			assert_int_equal(err.code, SMDMX_ERROR_LINE_TOO_LONG);
			assert_int_equal(err.line, 3);
			assert_int_equal(err.column, 101);
		}
	}
	/* A line longer than the default limit and the reader's 1 MiB chunk, from a file. */
	size_t big = (size_t)3 << 20;
	char *text = malloc(big + 64);
	int n = snprintf(text, 64, "version 1\nnodes\n");
	memset(text + n, '7', big);
	char *path = test_temp_file("test", text, big + (size_t)n);
	smdmx_error err;
	assert_null(smdmx_smd_read_file(path, NULL, &err, NULL));
	os_remove(path);
	free(path);
	free(text);
	assert_int_equal(err.code, SMDMX_ERROR_LINE_TOO_LONG);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, SMDMX_DEFAULT_MAX_LINE_LENGTH + 1);
}

static void test_limits(void **state)
{
	(void)state;
	const char *t = "version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\n2 \"c\" 1\nend\n";
	smdmx_smd_read_options o = { .limits = { .max_joints = 2 } };
	expect_error(t, strlen(t), &o, SMDMX_ERROR_LIMIT, 5, 1);
	o.limits.max_joints = 3;
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(t, strlen(t), &o, &err, NULL);
	assert_non_null(s);
	smdmx_scene_free(s);
	const char *links = "version 1\nnodes\n0 \"a\" -1\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0 3 0 0.2 0 0.2 0 0.2\n";
	o.limits.max_links = 2;
	expect_error(links, strlen(links), &o, SMDMX_ERROR_LIMIT, 7, 19);
	/* corners: two triangles with a limit of 5 corners fail at the sixth */
	const char *tris = "version 1\nnodes\n0 \"a\" -1\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 0 0\n"
	                   "0 0 1 0 0 0 1 0 0\nm\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\nend\n";
	o.limits.max_corners = 5;
	expect_error(tris, strlen(tris), &o, SMDMX_ERROR_LIMIT, 13, 1);
	o.limits.max_corners = 6;
	s = smdmx_smd_read_memory(tris, strlen(tris), &o, &err, NULL);
	assert_non_null(s);
	smdmx_scene_free(s);
	/* frame times: -4,000,000 and 4,000,000 at 30 fps are 2.67e9 ticks apart (an int32 holds
	 * 2^31 - 1): an error at the last frame */
	const char *span = "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime -4000000\n0 0 0 0 0 0 0\n"
	                   "time 4000000\n0 0 0 0 0 0 0\nend\n";
	expect_error(span, strlen(span), NULL, SMDMX_ERROR_TIME, 8, 1);
	const char *wide = "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime -3000000\n0 0 0 0 0 0 0\n"
	                   "time 3000000\n0 0 0 0 0 0 0\nend\n";
	s = smdmx_smd_read_memory(wide, strlen(wide), NULL, &err, NULL);
	if (!s) fail_msg("%s", err.message);
	assert_int_equal(s->clips[0].duration, 2000000000);
	smdmx_scene_free(s);
	/* extra UV sets (version 3): 8 read, 9 fail at the count */
	for (int k = 8; k <= 9; k++) {
		char text[1024];
		size_t n = (size_t)snprintf(text, sizeof(text), "version 3\nnodes\n0 \"a\" -1\nend\ntriangles\nm\n");
		for (int c = 0; c < 3; c++) {
			n += (size_t)snprintf(text + n, sizeof(text) - n, "0 0 0 0 0 0 1 0 0 1 0 1 %d", k);
			for (int i = 0; i < k; i++) n += (size_t)snprintf(text + n, sizeof(text) - n, " 0.5 0.25");
			n += (size_t)snprintf(text + n, sizeof(text) - n, "\n");
		}
		n += (size_t)snprintf(text + n, sizeof(text) - n, "end\n");
		if (k == 9) {
			expect_error(text, n, NULL, SMDMX_ERROR_LIMIT, 7, 25);
			continue;
		}
		s = smdmx_smd_read_memory(text, n, NULL, &err, NULL);
		if (!s) fail_msg("%s", err.message);
		assert_int_equal(s->meshes[0].uv_set_count, 9);
		assert_true(s->meshes[0].uv_sets[8].data[0][1] == 0.25f);
		smdmx_scene_free(s);
	}
	/* numbers: 127 characters read, 128 are refused (when exact conversion needs the text) */
	for (int len = 127; len <= 128; len++) {
		char text[512];
		int n = snprintf(text, sizeof(text), "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0.");
		memset(text + n, '1', (size_t)len - 2);
		n += len - 2;
		n += snprintf(text + n, sizeof(text) - (size_t)n, " 0 0 0 0 0\nend\n");
		smdmx_smd_read_options d = { 0 };
		if (len == 127) {
			s = smdmx_smd_read_memory(text, (size_t)n, &d, &err, NULL);
			assert_non_null(s);
			assert_true(s->joints[0].bind.position[0] == 0.11111111f);
			smdmx_scene_free(s);
		} else {
			expect_error(text, (size_t)n, &d, SMDMX_ERROR_LIMIT, 7, 3);
		}
	}
	/* bone poses: 3 bones x 2 frames fit in 6, not in 5 */
	const char *poses = "version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\n2 \"c\" 0\nend\nskeleton\ntime 0\ntime 1\nend\n";
	smdmx_smd_read_options k = { .limits = { .max_keys = 5 } };
	expect_error(poses, strlen(poses), &k, SMDMX_ERROR_LIMIT, 9, 1);
	k.limits.max_keys = 6;
	s = smdmx_smd_read_memory(poses, strlen(poses), &k, &err, NULL);
	assert_non_null(s);
	smdmx_scene_free(s);
	/* a VTA id far beyond the base frame's size is a number, not an allocation */
	const char *vta = "version 1\nnodes\n0 \"a\" -1\nend\nvertexanimation\ntime 0\n0 0 0 0 0 0 1\n"
	                  "2000000000 0 0 0 0 0 1\nend\n";
	test_counter vc = { 0, 0, 0 };
	smdmx_smd_read_options vo = { .allocator = test_allocator(&vc) };
	s = smdmx_smd_read_memory(vta, strlen(vta), &vo, &err, NULL);
	assert_non_null(s);
	assert_int_equal(s->meshes[0].corner_count, 2);
	assert_int_equal(s->source.vta_ids[1], 2000000000);
	assert_true(vc.peak < (1 << 20));
	smdmx_scene_free(s);
	/* and past the corner limit, an error at the id */
	vo.limits.max_corners = 2000000000;
	expect_error(vta, strlen(vta), &vo, SMDMX_ERROR_VERTEX_ID, 8, 1);
	const char *twice = "version 1\nnodes\n0 \"a\" -1\nend\nvertexanimation\ntime 0\n1 0 0 0 0 0 1\n"
	                    "1 0 0 0 0 0 1\ntime 1\nend\n";
	expect_error(twice, strlen(twice), NULL, SMDMX_ERROR_VERTEX_ID, 8, 1);
	const char *frames = "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\ntime 1\ntime 2\nend\n";
	o.limits.max_frames = 2;
	expect_error(frames, strlen(frames), &o, SMDMX_ERROR_LIMIT, 8, 6);
	o.limits.max_frames = 3;
	s = smdmx_smd_read_memory(frames, strlen(frames), &o, &err, NULL);
	assert_non_null(s);
	smdmx_scene_free(s);
}

/* Builds an SMD of many triangles with the given line end, padded so that chunk
 * boundaries fall in different places. */
static char *big_text(const char *eol, size_t pad, size_t *size)
{
	size_t cap = (size_t)8 << 20, n = 0;
	char *t = malloc(cap);
	n += (size_t)sprintf(t + n, "version 1%s// %*s%snodes%s0 \"root\" -1%s1 \"b\" 0%send%s", eol, (int)pad, "", eol, eol, eol, eol, eol);
	n += (size_t)sprintf(t + n, "skeleton%stime 0%s0 0 0 0 0 0 0%s1 1 0 0 0 0 0.5%send%striangles%s", eol, eol, eol, eol, eol, eol);
	for (int i = 0; n < cap - 4096 && i < 30000; i++) {
		n += (size_t)sprintf(t + n, "mat_%d%s", i % 3, eol);
		for (int k = 0; k < 3; k++)
			n += (size_t)sprintf(t + n, "%d %d.%06d %d.5 -%d.25 0 0 1 0.%06d 0.5 2 0 0.25 1 0.75%s", k % 2, i, k, i % 97,
			                     k, (i * 7919) % 1000000, eol);
	}
	n += (size_t)sprintf(t + n, "end%s", eol);
	*size = n;
	return t;
}

/* Files larger than the reader's 1 MiB chunk, with every line end style: the chunked file
 * path gives the same scene as reading the whole text from memory. */
static void test_chunk_boundaries(void **state)
{
	(void)state;
	const char *eols[] = { "\n", "\r\n", "\r" };
	smdmx_scene *first = NULL;
	for (size_t e = 0; e < 3; e++) {
		for (size_t pad = 0; pad < 3; pad++) {
			size_t size;
			char *t = big_text(eols[e], pad * 7919 % 13, &size);
			assert_true(size > ((size_t)3 << 20));
			char *path = test_temp_file("chunk", t, size);
			smdmx_error err;
			smdmx_scene *a = smdmx_smd_read_file(path, NULL, &err, NULL);
			if (!a) fail_msg("eol %zu pad %zu: %u:%u: %s", e, pad, err.line, err.column, err.message);
			smdmx_scene *b = smdmx_smd_read_memory(t, size, NULL, &err, NULL);
			assert_non_null(b);
			os_remove(path);
			free(path);
			free(t);
			char diff[256];
			if (!smdmx_scene_compare(a, b, NULL, diff, sizeof(diff), NULL)) fail_msg("eol %zu: %s", e, diff);
			assert_int_equal(a->meshes[0].corner_count, 90000);
			assert_int_equal(a->material_count, 3);
			if (!first) first = b;
			else {
				if (!smdmx_scene_compare(first, b, NULL, diff, sizeof(diff), NULL)) fail_msg("eol %zu: %s", e, diff);
				smdmx_scene_free(b);
			}
			smdmx_scene_free(a);
		}
	}
	smdmx_scene_free(first);
}

/* The writer bounds frames times bones like the reader: at the limit and one past it. */
static void test_writer_pose_limit(void **state)
{
	(void)state;
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_file(test_path("testdata/sample/arm_wave.smd"), NULL, &err, NULL);
	assert_non_null(s); /* 11 frames of 2 bones */
	smdmx_smd_write_options o = { .limits = { .max_keys = 22 } };
	test_sink out = { 0 };
	assert_true(smdmx_smd_write(s, test_sink_write, &out, &o, &err));
	free(out.data);
	memset(&out, 0, sizeof(out));
	o.limits.max_keys = 21;
	assert_false(smdmx_smd_write(s, test_sink_write, &out, &o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_string_equal(err.message, "clip 'arm_wave': 11 frames of 2 bones; the limit is 21 bone poses");
	free(out.data);
	smdmx_scene_free(s);
}

/* Reads path through standard input, as smd2dmx reads "-": a pipe has no size to check
 * before reading. */
static smdmx_scene *read_through_pipe(const char *data, size_t size, const smdmx_smd_read_options *o, smdmx_error *err)
{
	os_file ends[2];
	assert_true(os_pipe(ends));
	assert_true(size < 65536); /* fits in the pipe's buffer: written before it is read */
	assert_true(os_write_all(ends[1], data, size));
	os_close(ends[1]);
	os_file saved = os_set_stdin(ends[0]);
	assert_true(saved != OS_NO_FILE);
	smdmx_scene *s = smdmx_smd_read_file("-", o, err, NULL);
	os_close(os_set_stdin(saved));
	return s;
}

/* The file size limit, at its value (reads) and one byte under the file (fails before
 * parsing), from memory, a file and a pipe. */
static void test_file_size_limit(void **state)
{
	(void)state;
	const char *path = test_path("testdata/ok/features.smd");
	size_t size = 0;
	char *data = test_slurp(path, &size);
	char want[64];
	snprintf(want, sizeof(want), "file larger than %zu bytes", size - 1);
	for (int how = 0; how < 3; how++) {
		for (size_t limit = size; limit >= size - 1; limit--) {
			smdmx_smd_read_options o = { .limits = { .max_file_size = limit } };
			smdmx_error err;
			smdmx_scene *s = how == 0   ? smdmx_smd_read_memory(data, size, &o, &err, NULL)
			                 : how == 1 ? smdmx_smd_read_file(path, &o, &err, NULL)
			                            : read_through_pipe(data, size, &o, &err);
			if (limit == size) {
				if (!s) fail_msg("way %d: %s", how, err.message);
				assert_int_equal(s->joint_count, 3);
				smdmx_scene_free(s);
			} else {
				assert_null(s);
				assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
				assert_int_equal(err.line, 0);
				assert_string_equal(err.message, want);
			}
		}
	}
	free(data);
}

/* The memory limit, to the byte: the most the reader holds at once reads, one byte less
 * fails cleanly, from memory and through the chunked file reader. A small file needs little:
 * the file reader holds at most a buffer of the file's size (4 KiB at least) more than the
 * memory reader, not a 1 MiB chunk. */
static void test_memory_limit(void **state)
{
	(void)state;
	const char *path = test_path("testdata/ok/features.smd");
	size_t size = 0, memory_peak = 0;
	char *data = test_slurp(path, &size);
	for (int from_file = 0; from_file <= 1; from_file++) {
		test_counter c = { 0, 0, 0 };
		smdmx_smd_read_options o = { .allocator = test_allocator(&c) };
		smdmx_error err;
		smdmx_scene *s = from_file ? smdmx_smd_read_file(path, &o, &err, NULL) : smdmx_smd_read_memory(data, size, &o, &err, NULL);
		assert_non_null(s);
		smdmx_scene_free(s);
		assert_true(c.peak > 0 && c.live == 0);
		if (!from_file) memory_peak = (size_t)c.peak;
		else assert_true((size_t)c.peak <= memory_peak + (size + 1 > 4096 ? size + 1 : 4096));
		o.allocator.memory_limit = (size_t)c.peak;
		s = from_file ? smdmx_smd_read_file(path, &o, &err, NULL) : smdmx_smd_read_memory(data, size, &o, &err, NULL);
		if (!s) fail_msg("%s", err.message);
		smdmx_scene_free(s);
		o.allocator.memory_limit = (size_t)c.peak - 1;
		s = from_file ? smdmx_smd_read_file(path, &o, &err, NULL) : smdmx_smd_read_memory(data, size, &o, &err, NULL);
		assert_null(s);
		assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
		assert_int_equal(c.live, 0);
	}
	free(data);
}

static void test_writer_format(void **state)
{
	(void)state;
	smdmx_scene *s = read_ok("testdata/ok/features.smd", NULL);
	test_sink out = { 0 };
	smdmx_error err;
	assert_true(smdmx_smd_write(s, test_sink_write, &out, NULL, &err));
	/* CRLF everywhere, no tabs, a single newline at the end */
	for (size_t i = 0; i < out.size; i++) {
		assert_true(out.data[i] != '\t');
		if (out.data[i] == '\n') assert_true(i > 0 && out.data[i - 1] == '\r');
	}
	assert_memory_equal(out.data + out.size - 5, "end\r\n", 5);
	const char *tri = "triangles\r\nMaterial #152\r\n"
	                  "1 0.000000 0.000000 0.000000 0.000000 0.000000 1.000000 0.000000 0.000000 1 1 1.000000\r\n"
	                  "0 1.000000 0.000000 0.000000 0.000000 0.000000 1.000000 1.000000 0.000000 2 0 0.750000 2 0.250000\r\n";
	assert_non_null(test_memmem(out.data, out.size, tri, strlen(tri)));
	/* a material that would read back differently is refused */
	const char *saved = s->materials[0].name;
	s->materials[0].name = "// not a comment";
	assert_false(smdmx_smd_write(s, test_sink_write, &out, NULL, &err));
	assert_int_equal(err.code, SMDMX_ERROR_INVALID_SCENE);
	s->materials[0].name = "end";
	assert_false(smdmx_smd_write(s, test_sink_write, &out, NULL, &err));
	s->materials[0].name = saved;
	/* write failure: IO error, reported once */
	test_sink bad = { .fail_at = 100 };
	assert_false(smdmx_smd_write(s, test_sink_write, &bad, NULL, &err));
	assert_int_equal(err.code, SMDMX_ERROR_IO);
	free(bad.data);
	free(out.data);
	smdmx_scene_free(s);
}

/* A scene with n-gons is written as fans; a mesh without weights binds to bone 0. */
static void test_write_ngon_fan(void **state)
{
	(void)state;
	const char *t = "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n"
	                "0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 0 0\n0 1 1 0 0 0 1 0 0\nend\n";
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(t, strlen(t), NULL, &err, NULL);
	assert_non_null(s);
	/* Make the triangle a quad by hand: corners 0 1 2 1 (a valid polygon for the scene). */
	smdmx_face_set *fs = &s->meshes[0].face_sets[0];
	uint32_t corners[4] = { 0, 1, 2, 1 }, offsets[2] = { 0, 4 };
	fs->corners = corners;
	fs->corner_count = 4;
	fs->offsets = offsets;
	test_sink out = { 0 };
	smdmx_smd_write_options o = { .lf_line_ends = true };
	assert_true(smdmx_smd_write(s, test_sink_write, &out, &o, &err));
	const char *want = "triangles\nm\n"
	                   "0 0.000000 0.000000 0.000000 0.000000 0.000000 1.000000 0.000000 0.000000\n"
	                   "0 1.000000 0.000000 0.000000 0.000000 0.000000 1.000000 0.000000 0.000000\n"
	                   "0 1.000000 1.000000 0.000000 0.000000 0.000000 1.000000 0.000000 0.000000\n"
	                   "m\n"
	                   "0 0.000000 0.000000 0.000000 0.000000 0.000000 1.000000 0.000000 0.000000\n"
	                   "0 1.000000 1.000000 0.000000 0.000000 0.000000 1.000000 0.000000 0.000000\n"
	                   "0 1.000000 0.000000 0.000000 0.000000 0.000000 1.000000 0.000000 0.000000\nend\n";
	assert_non_null(test_memmem(out.data, out.size, want, strlen(want)));
	free(out.data);
	smdmx_scene_free(s);
}

/* Sparse keys are sampled at every frame: positions linearly, orientations by slerp, the
 * first and last keys held outside their range (decision 11). */
static void test_write_sparse_keys(void **state)
{
	(void)state;
	const char *t = "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\ntime 1\ntime 2\nend\n";
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(t, strlen(t), NULL, &err, NULL);
	assert_non_null(s);
	smdmx_clip *c = &s->clips[0];
	/* 30 fps, frames 0..30 (ticks 0..10000) */
	c->duration = 10000;
	smdmx_channel *ch = &c->channels[0];
	int32_t pt[2] = { 0, 10000 }, ot[2] = { 3333, 6666 };
	smdmx_vec3 pv[2] = { { 0, 0, 0 }, { 30, -6, 3 } };
	const float h = 0.70710678f;
	smdmx_quat ov[2] = { { 0, 0, 0, 1 }, { 0, 0, h, h } }; /* 0 and 90 degrees about z */
	ch->position_times = pt;
	ch->positions = pv;
	ch->position_count = 2;
	ch->orientation_times = ot;
	ch->orientations = ov;
	ch->orientation_count = 2;
	test_sink out = { 0 };
	smdmx_smd_write_options o = { .lf_line_ends = true };
	assert_true(smdmx_smd_write(s, test_sink_write, &out, &o, &err));
	test_sink_text(&out);
	/* frame 0: first keys; frame 5 (tick 1666): x = 30 * 0.1666, orientation held at 0 */
	assert_non_null(strstr(out.data, "time 0\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"));
	assert_non_null(strstr(out.data, "time 5\n0 4.998000 -0.999600 0.499800 0.000000 0.000000 0.000000\n"));
	/* frame 15 (tick 5000): x = 15; rz halfway between ticks 3333 and 6666 by slerp:
	 * (5000 - 3333) / 3333 = 0.50015 of 90 degrees = 0.785634 rad */
	assert_non_null(strstr(out.data, "time 15\n0 15.000000 -3.000000 1.500000 0.000000 0.000000 0.785634\n"));
	/* frame 25 (tick 8333, x = 30 * 0.8333 as float32) and 30: past the last orientation
	 * key, held at 90 degrees */
	assert_non_null(strstr(out.data, "time 25\n0 24.999001 -4.999800 2.499900 0.000000 0.000000 1.570796\n"));
	assert_non_null(strstr(out.data, "time 30\n0 30.000000 -6.000000 3.000000 0.000000 0.000000 1.570796\nend\n"));
	free(out.data);
	smdmx_scene_free(s);
}

static void test_write_file_atomic(void **state)
{
	(void)state;
	smdmx_scene *s = read_ok("testdata/ok/features.smd", NULL);
	smdmx_error err;
	/* a directory that does not exist: IO error, nothing left behind */
	assert_false(smdmx_smd_write_file(s, "/nonexistent-dir/out.smd", NULL, &err));
	assert_int_equal(err.code, SMDMX_ERROR_IO);
	/* an invalid scene: no output file at all */
	char *path = test_temp_path("atomic");
	s->joints[0].parent = 77;
	assert_false(smdmx_smd_write_file(s, path, NULL, &err));
	assert_int_equal(err.code, SMDMX_ERROR_INVALID_SCENE);
	assert_false(test_exists(path));
	s->joints[0].parent = 1;
	assert_true(smdmx_smd_write_file(s, path, NULL, &err));
	assert_true(test_exists(path));
	os_remove(path);
	free(path);
	smdmx_scene_free(s);
}

static void test_validate(void **state)
{
	(void)state;
	smdmx_scene *s = read_ok("testdata/ok/features.smd", NULL);
	smdmx_error err;
	memset(&err, 0, sizeof(err));
	assert_true(smdmx_scene_validate(s, &err));
	s->joints[1].parent = 2; /* root -> tip -> child bone -> root */
	assert_false(smdmx_scene_validate(s, &err));
	assert_int_equal(err.code, SMDMX_ERROR_INVALID_SCENE);
	s->joints[1].parent = SMDMX_NONE;
	s->joints[0].bind.orientation[3] = 2.0f;
	memset(&err, 0, sizeof(err));
	assert_false(smdmx_scene_validate(s, &err));
	s->joints[0].bind.orientation[3] = (float)sqrt(0.5);
	s->meshes[0].position_indices[0] = 99;
	assert_false(smdmx_scene_validate(s, NULL));
	s->meshes[0].position_indices[0] = 0;
	s->meshes[0].face_sets[0].offsets[1] = 2;
	assert_false(smdmx_scene_validate(s, NULL));
	s->meshes[0].face_sets[0].offsets[1] = 3;
	assert_true(smdmx_scene_validate(s, NULL));
	/* flex controllers: wrinkle scales are one per raw control, or none */
	const char *raw[2] = { "smile_l", "smile_r" };
	float scales[1] = { 1.0f };
	smdmx_flex_controller fc = { .name = "smile", .raw_controls = { raw, 2 }, .max = 1.0f,
	                             .wrinkle_scales = { scales, 1 } };
	s->flex_controllers = &fc;
	s->flex_controller_count = 1;
	memset(&err, 0, sizeof(err));
	assert_false(smdmx_scene_validate(s, &err));
	assert_string_equal(err.message, "flex controller 'smile': 1 wrinkle scales for 2 raw controls");
	fc.wrinkle_scales.count = 0;
	assert_true(smdmx_scene_validate(s, NULL));
	s->flex_controllers = NULL;
	s->flex_controller_count = 0;
	smdmx_scene_free(s);
}

/* ---- one file on several threads ----------------------------------------------------------- */

/* An SMD of n triangles with what could trip a reader cut into parts: materials that look
 * like numbers, comments or 'end'; blank and comment lines; weights summing below 1 from a
 * third of the way (a warning first met in a later part), and above 1 near the end; a second UV set from triangle n/2 (version 3); a skeleton block
 * and a second triangles block; and, at triangle bad_at, the fault
 * named by bad. */
static char *threads_case(size_t n, bool crlf, int bad, size_t bad_at, size_t *len)
{
	char *locale = test_c_numbers_begin();
	size_t cap = 512 + n * 400;
	char *t = malloc(cap);
	assert_non_null(t);
	const char *nl = crlf ? "\r\n" : "\n";
	size_t k = 0;
#define PUT(...) (k += (size_t)snprintf(t + k, cap - k, __VA_ARGS__))
	PUT("version 3%snodes%s0 \"root\" -1%s1 \"arm\" 0%send%sskeleton%stime 0%s0 0 0 0 0 0 0%s1 1 0 0 0 0 0%send%s",
	    nl, nl, nl, nl, nl, nl, nl, nl, nl, nl);
	PUT("triangles%s", nl);
	static const char *const mats[] = { "skin", "01_digits.bmp", "#hash", "-minus", "end_cap", "9", "skin" };
	for (size_t i = 0; i < n; i++) {
		if (i % 37 == 5) PUT("%s", nl);
		if (i % 53 == 7) PUT("// a comment between triangles%s", nl);
		if (bad == 1 && i == bad_at) {
			PUT("skin%s0 1.0 2.0 3.0 0 0 1 0.5 0.5%s", nl, nl); /* a triangle of one vertex */
			continue;
		}
		PUT("%s%s", mats[(i / 3) % 7], nl);
		for (int v = 0; v < 3; v++) {
			double x = (double)(i % 101) * 0.25 + v, y = (double)(i / 101) * 0.5, z = (double)((i * 7 + (size_t)v) % 13) * 0.125;
			if (v == 1 && i % 61 == 3) PUT("# a comment inside a triangle%s", nl);
			if (bad == 2 && i == bad_at && v == 2) PUT("1 %.4f %.4f x%.4f 0 0 1 0.25 0.75%s", x, y, z, nl);
			else if (bad == 3 && i == bad_at && v == 0) PUT("7 %.4f %.4f %.4f 0 0 1 0.25 0.75%s", x, y, z, nl);
			else if (i % 29 == 11 && i > n / 3) PUT("1 %.4f %.4f %.4f 0 0 1 %.3f %.3f 1 0 0.5%s", x, y, z, 0.1 * v, 0.2, nl);
			else if (i == n - 10) PUT("1 %.4f %.4f %.4f 0 0 1 0.5 0.5 2 0 0.75 1 0.75%s", x, y, z, nl);
			else if (i >= n / 2) PUT("0 %.4f %.4f %.4f 0 1 0 %.3f 0.5 2 0 0.5 1 0.5 1 0.75 0.25%s", x, y, z, 0.05 * v, nl);
			else PUT("0 %.4f %.4f %.4f 0 1 0 %.3f 0.5 2 0 0.25 1 0.75%s", x, y, z, 0.05 * (double)(i % 9), nl);
		}
	}
	if (bad != 4) PUT("end%s", nl);
	if (bad == 0) PUT("triangles%sskin%s0 9 9 9 0 0 1 0 0%s0 9 9 8 0 0 1 0 1%s0 9 8 9 0 0 1 1 0%send%s", nl, nl, nl, nl, nl, nl);
#undef PUT
	test_c_numbers_end(locale);
	*len = k;
	return t;
}

/* The bytes read, as told to a reading's progress. */
typedef struct told {
	uint64_t sum, calls, small; /* small: calls of less than SM_PROGRESS_STEP */
} told;

static void tell(void *user, uint64_t bytes)
{
	told *t = user;
	t->sum += bytes;
	t->calls++;
	t->small += bytes < SM_PROGRESS_STEP;
}

/* A big file's reading tells what it read, every SM_PROGRESS_STEP and the rest at the end: SMD
 * on one thread and on four, its model as binary and keyvalues2 DMX. */
static void test_progress(void **state)
{
	(void)state;
	size_t len = 0;
	char *text = threads_case(120000, false, 0, 0, &len);
	assert_true(len > 2 * SM_PROGRESS_STEP);
	char *path = test_temp_file("progress", text, len);
	smdmx_error err;
	told t1 = { 0 }, t4 = { 0 };
	smdmx_smd_read_options o = { .progress = { tell, &t1 } };
	smdmx_scene *s = smdmx_smd_read_file(path, &o, &err, NULL);
	if (!s) fail_msg("%s", err.message);
	/* every SM_PROGRESS_STEP (within the chunk read last), the rest at the end */
	assert_int_equal(t1.sum, len);
	assert_in_range(t1.calls, len / (SM_PROGRESS_STEP + CHUNK_SIZE), len / SM_PROGRESS_STEP + 1);
	assert_in_range(t1.small, 0, 1);
	o = (smdmx_smd_read_options){ .threads = 4, .progress = { tell, &t4 } };
	smdmx_scene *s4 = smdmx_smd_read_file(path, &o, &err, NULL);
	if (!s4) fail_msg("%s", err.message);
	/* each part tells what it read, the rest at its end (a part read again, twice) */
	assert_true(t4.sum >= len);
	assert_true(t4.calls >= len / SM_PROGRESS_STEP + 1);
	smdmx_scene_free(s4);
	/* from memory: nothing is read from a file, nothing told */
	told tm = { 0 };
	o = (smdmx_smd_read_options){ .progress = { tell, &tm } };
	s4 = smdmx_smd_read_memory(text, len, &o, &err, NULL);
	assert_non_null(s4);
	assert_int_equal(tm.calls, 0);
	smdmx_scene_free(s4);
	smdmx_dm *dm = smdmx_model_from_scene(s, NULL, &err, NULL);
	if (!dm) fail_msg("%s", err.message);
	static const char *const encodings[] = { "binary", "keyvalues2" };
	for (size_t e = 0; e < 2; e++) {
		test_sink sink = { 0 };
		smdmx_dmx_write_options wo = { .encoding = encodings[e] };
		assert_true(smdmx_dmx_write(dm, test_sink_write, &sink, &wo, &err));
		assert_true(sink.size > 2 * SM_PROGRESS_STEP);
		told td = { 0 };
		smdmx_dmx_read_options ro = { .progress = { tell, &td } };
		smdmx_dm *back = smdmx_dmx_read_memory(sink.data, sink.size, &ro, &err, NULL);
		if (!back) fail_msg("%s: %s", encodings[e], err.message);
		if (td.sum != sink.size || td.calls < 3 || td.small > 1)
			fail_msg("%s: %llu bytes of %zu told in %llu calls (%llu small)", encodings[e], (unsigned long long)td.sum, sink.size,
			         (unsigned long long)td.calls, (unsigned long long)td.small);
		smdmx_dm_free(back);
		free(sink.data);
	}
	smdmx_dm_free(dm);
	smdmx_scene_free(s);
	os_remove(path);
	free(path);
	free(text);
}

static void test_threads(void **state)
{
	(void)state;
	/* Every file of testdata, cut into parts as small as the reader allows. */
	static const char *const dirs[] = { "testdata/ok", "testdata/bad", "testdata/sample" };
	size_t files = 0;
	for (size_t d = 0; d < 3; d++) {
		size_t n;
		char **paths = test_list_dir(test_path(dirs[d]), &n);
		for (size_t i = 0; i < n; i++) {
			if (!test_ends_with(paths[i], ".smd") && !test_ends_with(paths[i], ".vta")) continue;
			test_smd_threads_same(paths[i], 16);
			test_smd_threads_same(paths[i], 64);
			files++;
		}
		test_free_list(paths, n);
	}
	assert_true(files >= 30);
	/* Made cases: good ones with both line ends, and each fault early, at a part's edge
	 * and late. */
	for (int bad = 0; bad <= 4; bad++) {
		for (size_t at = 0; at < 3; at++) {
			size_t n = 600, len;
			char *text = threads_case(n, bad == 0 && at == 1, bad, at == 0 ? 2 : at == 1 ? n / 2 : n - 3, &len);
			char *path = test_temp_file("threads", text, len);
			for (uint64_t part = 64; part <= 16384; part *= 16) test_smd_threads_same(path, part);
			if (bad == 0) {
				/* the case reads, with the warning of weights below 1 counted once per vertex */
				smdmx_error err;
				TEST_WARNINGS(w);
				smdmx_smd_read_options o = { .threads = 4 };
				uint64_t saved = sm_smd_part_min;
				sm_smd_part_min = 256;
				smdmx_scene *s = smdmx_smd_read_file(path, &o, &err, &w);
				sm_smd_part_min = saved;
				if (!s) fail_msg("%s", err.message);
				assert_int_equal(s->meshes[0].corner_count, 3 * (n + 1));
				assert_int_equal(s->meshes[0].uv_set_count, 2);
				size_t below = 0;
				for (size_t i = n / 3 + 1; i < n; i++) below += i % 29 == 11;
				assert_int_equal(w.count, 2);
				assert_int_equal(w.data[0].code, SMDMX_WARNING_WEIGHT_REMAINDER);
				assert_int_equal(w.data[0].count, 3 * below);
				assert_int_equal(w.data[1].code, SMDMX_WARNING_WEIGHT_OVERFLOW);
				assert_int_equal(w.data[1].count, 3);
				smdmx_scene_free(s);
			}
			os_remove(path);
			free(path);
			free(text);
		}
	}
	/* A memory limit with more than one thread counts every thread's allocations: a file read
	 * in parts under a limit it fits reads as on one thread, every byte given back with the
	 * scene; under half its peak, out of memory, nothing left. */
	size_t len;
	char *text = threads_case(120000, false, 0, 0, &len);
	char *path = test_temp_file("threads_limit", text, len);
	smdmx_error err;
	smdmx_scene *one = smdmx_smd_read_file(path, NULL, &err, NULL);
	assert_non_null(one);
	test_counter c = { 0, 0, 0 };
	smdmx_smd_read_options o = { .threads = 2, .allocator = test_allocator(&c) };
	o.allocator.memory_limit = (size_t)1 << 30;
	smdmx_scene *s = smdmx_smd_read_file(path, &o, &err, NULL);
	if (!s) fail_msg("two threads under a limit: %s", err.message);
	char why[300];
	if (!test_scenes_identical(one, s, why, sizeof(why))) fail_msg("two threads under a limit read otherwise: %s", why);
	assert_true(atomic_load(&c.live) > 0);
	smdmx_scene_free(s);
	assert_int_equal(atomic_load(&c.live), 0);
	long long peak = atomic_load(&c.peak);
	test_counter d = { 0, 0, 0 };
	o.allocator = test_allocator(&d);
	o.allocator.memory_limit = (size_t)(peak / 2);
	assert_null(smdmx_smd_read_file(path, &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
	assert_int_equal(atomic_load(&d.live), 0);
	assert_true(atomic_load(&d.peak) <= peak / 2);
	smdmx_scene_free(one);
	os_remove(path);
	free(path);
	free(text);
}

/* The start of an SMD of eight bones in a chain, up to its "triangles" line, at t; its length. */
static size_t eight_bones(char *t, size_t cap)
{
	size_t k = (size_t)snprintf(t, cap, "version 1\nnodes\n");
	for (int b = 0; b < 8; b++) k += (size_t)snprintf(t + k, cap - k, "%d \"b%d\" %d\n", b, b, b - 1);
	k += (size_t)snprintf(t + k, cap - k, "end\nskeleton\ntime 0\n");
	for (int b = 0; b < 8; b++) k += (size_t)snprintf(t + k, cap - k, "%d %d 0 0 0 0 0\n", b, b);
	return k + (size_t)snprintf(t + k, cap - k, "end\ntriangles\n");
}

/* An SMD of n triangles whose corners name v positions in a random order (a fixed generator):
 * position p has a normal and, with its corner, a UV of its own, and one link, or six when p
 * is a multiple of 5 (a text longer than a cache's slot holds). */
static char *random_order_case(size_t n, size_t v, size_t *len)
{
	char *locale = test_c_numbers_begin();
	size_t cap = 1024 + n * 3 * 160;
	char *t = malloc(cap);
	assert_non_null(t);
	size_t k = 0;
#define PUT(...) (k += (size_t)snprintf(t + k, cap - k, __VA_ARGS__))
	k += eight_bones(t, cap);
	uint64_t x = 88172645463325252u;
	for (size_t i = 0; i < n; i++) {
		PUT("m%zu\n", i % 3);
		for (int c = 0; c < 3; c++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			size_t p = (size_t)(x % v);
			PUT("0 %.4f %.4f %.4f %.4f 0 1 %.4f %.2f ", (double)(p % 1000) * 0.125, (double)(p / 1000) * 1234.5678,
			    (double)(p * 7 % 13) * 0.001, (double)p * 1e-4, (double)p * 1e-4, c * 0.25);
			if (p % 5 == 0) PUT("6 0 0.1 1 0.1 2 0.2 3 0.2 4 0.2 5 0.2\n");
			else PUT("1 %zu 1\n", p % 8);
		}
	}
	PUT("end\n");
#undef PUT
	test_c_numbers_end(locale);
	*len = k;
	return t;
}

/* An SMD of a grid of w by h quads, two triangles each, in rows: corners name positions near
 * each other, each position in up to six triangles; a sixth of them with six links. */
static char *grid_case(size_t w, size_t h, size_t *len)
{
	char *locale = test_c_numbers_begin();
	size_t cap = 1024 + w * h * 6 * 160;
	char *t = malloc(cap);
	assert_non_null(t);
	size_t k = 0;
#define PUT(...) (k += (size_t)snprintf(t + k, cap - k, __VA_ARGS__))
	k += eight_bones(t, cap);
	static const int quad[6][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0, 1 } };
	for (size_t y = 0; y < h; y++) {
		for (size_t x = 0; x < w; x++) {
			for (int c = 0; c < 6; c++) {
				if (c % 3 == 0) PUT("grid\n");
				size_t gx = x + (size_t)quad[c][0], gy = y + (size_t)quad[c][1], p = gy * (w + 1) + gx;
				PUT("0 %.4f %.4f %.4f %.4f 0 1 %.4f %.4f ", (double)gx * 0.5, (double)gy * 0.5, (double)(p % 17) * 0.01,
				    (double)(p % 29) * 0.01, (double)gx / (double)w, (double)gy / (double)h);
				if (p % 6 == 0) PUT("6 0 0.1 1 0.1 2 0.2 3 0.2 4 0.2 5 0.2\n");
				else PUT("1 %zu 1\n", p % 8);
			}
		}
	}
	PUT("end\n");
#undef PUT
	test_c_numbers_end(locale);
	*len = k;
	return t;
}

/* The text of a mesh's values, kept in caches (of as many slots as the writer takes, or of two)
 * or in pools, on one thread or on three: the same bytes, which read back as the scene. A mesh
 * in random order and a grid in rows, each with more values than a cache has slots, and the
 * threads case. */
static void test_value_texts(void **state)
{
	(void)state;
	size_t len[3];
	char *text[3] = { random_order_case(20000, 8000, &len[0]), grid_case(100, 60, &len[1]),
		          threads_case(600, false, 0, 0, &len[2]) };
	for (size_t c = 0; c < 3; c++) {
		smdmx_error err;
		smdmx_scene *s = smdmx_smd_read_memory(text[c], len[c], NULL, &err, NULL);
		if (!s) fail_msg("case %zu: %u:%u: %s", c, err.line, err.column, err.message);
		if (c == 0) {
			assert_in_range(s->meshes[0].position_count, 7900, 8000);
			assert_in_range(s->meshes[0].normal_count, 7900, 8000);
			assert_true(s->meshes[0].uv_sets[0].count > 20000);
		}
		if (c == 1) assert_int_equal(s->meshes[0].position_count, 101 * 61);
		test_sink first = { 0 };
		size_t saved = sm_write_part_min;
		static const unsigned threads[] = { 1, 3 };
		for (int mode = 0; mode <= 2; mode++) {
			for (size_t k = 0; k < 2; k++) {
				sm_smd_value_texts = mode;
				sm_write_part_min = 256;
				smdmx_smd_write_options o = { .threads = threads[k] };
				test_sink out = { 0 };
				bool ok = smdmx_smd_write(s, test_sink_write, &out, &o, &err);
				sm_smd_value_texts = 0;
				sm_write_part_min = saved;
				if (!ok) fail_msg("case %zu, mode %d, %u threads: %s", c, mode, threads[k], err.message);
				if (!first.data) {
					first = out;
					continue;
				}
				if (out.size != first.size || memcmp(out.data, first.data, out.size))
					fail_msg("case %zu, mode %d, %u threads: other bytes (%zu, first %zu)", c, mode, threads[k], out.size,
					         first.size);
				free(out.data);
			}
		}
		/* three threads under a memory limit count together: the same bytes, every byte given
		 * back; under half that peak, out of memory, nothing left */
		test_counter sc = { 0, 0, 0 };
		smdmx_smd_write_options lo = { .threads = 3, .allocator = test_allocator(&sc) };
		lo.allocator.memory_limit = (size_t)1 << 30;
		test_sink limited = { 0 };
		sm_write_part_min = 256;
		bool wrote = smdmx_smd_write(s, test_sink_write, &limited, &lo, &err);
		if (!wrote) fail_msg("case %zu, three threads under a limit: %s", c, err.message);
		if (limited.size != first.size || memcmp(limited.data, first.data, limited.size))
			fail_msg("case %zu, three threads under a limit: other bytes", c);
		free(limited.data);
		assert_int_equal(atomic_load(&sc.live), 0);
		long long peak = atomic_load(&sc.peak);
		test_counter sd = { 0, 0, 0 };
		lo.allocator = test_allocator(&sd);
		lo.allocator.memory_limit = (size_t)(peak / 2);
		test_sink cut = { 0 };
		wrote = smdmx_smd_write(s, test_sink_write, &cut, &lo, &err);
		sm_write_part_min = saved;
		free(cut.data);
		assert_false(wrote);
		assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
		assert_int_equal(atomic_load(&sd.live), 0);
		assert_true(atomic_load(&sd.peak) <= peak / 2);
		smdmx_scene *back = smdmx_smd_read_memory(first.data, first.size, NULL, &err, NULL);
		if (!back) fail_msg("case %zu, read back: %u:%u: %s", c, err.line, err.column, err.message);
		char diff[512];
		if (!smdmx_scene_compare(s, back, NULL, diff, sizeof(diff), NULL)) fail_msg("case %zu, read back: %s", c, diff);
		smdmx_scene_free(back);
		smdmx_scene_free(s);
		free(first.data);
		free(text[c]);
	}
}

/* A DMX's mesh and its animation in the one reference SMD a QC names: written in the skeleton
 * block when the animation starts at the bind pose (reference_clip), else said. */
static void test_reference_clip(void **state)
{
	(void)state;
	const char *text = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 1 2 3 0 0 0\ntime 1\n0 1 2 4 0 0 0.5\nend\ntriangles\nmat\n"
	                   "0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n";
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(text, strlen(text), NULL, &err, NULL);
	assert_non_null(s);
	assert_int_equal(s->clip_count, 1);
	s->source.format = SMDMX_SOURCE_DMX; /* as lifted from a DMX */
	for (int any = 0; any < 2; any++) {
		smdmx_smd_write_options wo = { .kind = SMDMX_SMD_WRITE_REFERENCE, .reference_clip = any };
		test_sink out = { 0 };
		assert_true(smdmx_smd_write(s, test_sink_write, &out, &wo, &err));
		char *t = test_sink_text(&out);
		smdmx_scene *b = smdmx_smd_read_memory(t, strlen(t), NULL, &err, NULL);
		assert_non_null(b);
		assert_int_equal(b->clip_count, any ? 1 : 0);
		if (any) {
			char diff[256];
			if (!smdmx_scene_compare(s, b, NULL, diff, sizeof(diff), NULL)) fail_msg("%s", diff);
		}
		TEST_WARNINGS(w);
		smdmx_warnings_free(&w);
		assert_true(smdmx_smd_report_losses(s, &wo, true, NULL, &w));
		assert_int_equal(w.count, 0);
		smdmx_scene_free(b);
		free(t);
	}
	/* a bind pose that is not the first frame: left out, and said */
	s->joints[0].bind.position[0] = 9.0f;
	smdmx_smd_write_options wo = { .kind = SMDMX_SMD_WRITE_REFERENCE, .reference_clip = true };
	TEST_WARNINGS(w);
	smdmx_warnings_free(&w);
	assert_true(smdmx_smd_report_losses(s, &wo, true, NULL, &w));
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_DROPPED_CLIPS);
	assert_string_equal(w.data[0].message, "a reference SMD holds an animation only when its first frame is the bind pose: 1 clip left out; write each as an animation SMD to keep them");
	smdmx_scene_free(s);
}

/* Weights that sum below 1 (a DMX's) are written scaled to 1, as studiomdl scales them, and
 * said: an SMD reader would give the rest to the parent bone. By meaning (DMX weights), the
 * SMD written and the scene are the same model. */
/* A frame listed again (Valve's SDK stand_to_prone.smd goes 4 to 40, then 8 to 40): its bone
 * lines replace the earlier ones, as studiomdl's Grab_Animation reads them; a frame in a gap
 * right after a listed one starts as a copy of it; one before the first, or in a gap after a
 * missing frame, is refused (studiomdl would refuse it, or start it from nothing). */
static void test_frames_again(void **state)
{
	(void)state;
	const char *again = "version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\nend\nskeleton\n"
	                    "time 4\n0 0 0 0 0 0 0\n1 1 0 0 0 0 0\n"
	                    "time 5\n0 0 0 1 0 0 0\n1 1 0 0 0 0 0\n"
	                    "time 6\n0 0 0 2 0 0 0\n1 1 0 0 0 0 0\n"
	                    "time 5 # again\n0 0 0 5 0 0 0\n"
	                    "time 6\n1 2 0 0 0 0 0\n"
	                    "time 8\n0 0 0 8 0 0 0\n"
	                    "time 7\n1 7 0 0 0 0 0\nend\n";
	TEST_WARNINGS(w);
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(again, strlen(again), NULL, &err, &w);
	if (!s) fail_msg("%s", err.message);
	const smdmx_warning *x = test_warning_of(&w, SMDMX_WARNING_FRAME_AGAIN);
	assert_non_null(x);
	if (!x) return;
	assert_int_equal(x->count, 3);
	assert_int_equal(x->line, 16);
	assert_int_equal(x->column, 6);
	assert_string_equal(x->message, "frame 5 after frame 6 in 'skeleton': read as studiomdl reads it, the bone lines of a frame "
	                                "listed again replacing the earlier ones (a frame in a gap starts as the frame before it); "
	                                "write the frames once each, in order, to be sure of what plays");
	/* the frame in the gap is no missing frame */
	assert_null(test_warning_of(&w, SMDMX_WARNING_MISSING_FRAME));
	test_sink out = { 0 };
	smdmx_smd_write_options o = { .lf_line_ends = true };
	assert_true(smdmx_smd_write(s, test_sink_write, &out, &o, &err));
	const char *want = "version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\nend\nskeleton\n"
	                   "time 4\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
	                   "1 1.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
	                   "time 5\n0 0.000000 0.000000 5.000000 0.000000 0.000000 0.000000\n"
	                   "1 1.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
	                   "time 6\n0 0.000000 0.000000 2.000000 0.000000 0.000000 0.000000\n"
	                   "1 2.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
	                   "time 7\n0 0.000000 0.000000 2.000000 0.000000 0.000000 0.000000\n"
	                   "1 7.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
	                   "time 8\n0 0.000000 0.000000 8.000000 0.000000 0.000000 0.000000\n"
	                   "1 2.000000 0.000000 0.000000 0.000000 0.000000 0.000000\nend\n";
	char *text = test_sink_text(&out);
	assert_string_equal(text, want);
	free(text);
	smdmx_scene_free(s);
	/* before the first frame: refused, at the number */
	const char *before = "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 4\n0 0 0 0 0 0 0\ntime 3\n0 0 0 0 0 0 0\nend\n";
	expect_error(before, strlen(before), NULL, SMDMX_ERROR_TIME, 8, 6);
	s = smdmx_smd_read_memory(before, strlen(before), NULL, &err, NULL);
	assert_null(s);
	assert_string_equal(err.message, "frame 3 comes before the first frame, 4, of 'skeleton' (studiomdl refuses it too): "
	                                 "renumber the frames from 3");
	/* into a gap whose frame before is missing too */
	const char *gap = "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\ntime 3\n0 0 0 0 0 0 0\n"
	                  "time 2\n0 0 0 0 0 0 0\nend\n";
	expect_error(gap, strlen(gap), NULL, SMDMX_ERROR_TIME, 10, 6);
	s = smdmx_smd_read_memory(gap, strlen(gap), NULL, &err, NULL);
	assert_null(s);
	assert_string_equal(err.message, "frame 2 goes back into frames 1 to 2, which are missing: studiomdl would start it from "
	                                 "no pose at all; list frame 1 before it, or renumber the frames");
	/* a VTA's frames are shapes by their numbers: one listed again is still refused */
	const char *vta = "version 1\nnodes\n0 \"a\" -1\nend\nvertexanimation\ntime 0\n0 0 0 0 0 0 1\ntime 2\ntime 1\nend\n";
	expect_error(vta, strlen(vta), NULL, SMDMX_ERROR_TIME, 9, 6);
	s = smdmx_smd_read_memory(vta, strlen(vta), NULL, &err, NULL);
	assert_null(s);
	assert_string_equal(err.message, "frame 1 does not follow frame 2 in 'vertexanimation'");
}

static void test_weights_below_one(void **state)
{
	(void)state;
	const char *text = "version 1\nnodes\n0 \"root\" -1\n1 \"arm\" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 1 0 0 0 0 0\nend\n"
	                   "triangles\nmat\n0 0 0 0 0 0 1 0 0 2 0 0.5 1 0.5\n0 1 0 0 0 0 1 1 0 1 1 1\n0 0 1 0 0 0 1 0 1\nend\n";
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(text, strlen(text), NULL, &err, NULL);
	assert_non_null(s);
	smdmx_mesh *m = &s->meshes[0];
	assert_int_equal(m->weight_offsets[1] - m->weight_offsets[0], 2);
	m->weights[m->weight_offsets[0]].weight = 0.3f; /* 0.3 + 0.5: as a DMX may hold them */
	smdmx_smd_write_options wo = { .kind = SMDMX_SMD_WRITE_REFERENCE };
	TEST_WARNINGS(w);
	smdmx_warnings_free(&w);
	assert_true(smdmx_smd_report_losses(s, &wo, true, NULL, &w));
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_WEIGHTS_SCALED);
	assert_string_equal(w.data[0].message, "weights of 1 vertex sum below 1: written scaled to 1, the model studiomdl makes of them (an "
	                                       "SMD reader would give the rest to the parent bone); nothing to do");
	test_sink out = { 0 };
	assert_true(smdmx_smd_write(s, test_sink_write, &out, &wo, &err));
	char *t = test_sink_text(&out);
	smdmx_scene *b = smdmx_smd_read_memory(t, strlen(t), NULL, &err, &w);
	assert_non_null(b);
	assert_int_equal(w.count, 0); /* nothing left for the parent bone */
	const smdmx_mesh *bm = &b->meshes[0];
	assert_int_equal(bm->weight_offsets[1] - bm->weight_offsets[0], 2);
	assert_true(fabsf(bm->weights[0].weight - 0.375f) < 1e-6f && fabsf(bm->weights[1].weight - 0.625f) < 1e-6f);
	char diff[256];
	smdmx_compare_options exact = { 0 }, dmx = { .dmx_weights = true };
	assert_false(smdmx_scene_compare(s, b, &exact, diff, sizeof(diff), NULL));
	if (!smdmx_scene_compare(s, b, &dmx, diff, sizeof(diff), NULL)) fail_msg("%s", diff);
	smdmx_scene_free(b);
	free(t);
	smdmx_scene_free(s);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_duplicate_names),
		cmocka_unit_test(test_line_ends),
		cmocka_unit_test(test_other_writers),
		cmocka_unit_test(test_animation_hold),
		cmocka_unit_test(test_version3_uvs),
		cmocka_unit_test(test_missing_normals_uvs),
		cmocka_unit_test(test_vta),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_nul_and_long_lines),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_chunk_boundaries),
		cmocka_unit_test(test_file_size_limit),
		cmocka_unit_test(test_memory_limit),
		cmocka_unit_test(test_writer_pose_limit),
		cmocka_unit_test(test_writer_format),
		cmocka_unit_test(test_write_ngon_fan),
		cmocka_unit_test(test_write_sparse_keys),
		cmocka_unit_test(test_write_file_atomic),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_value_texts),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_reference_clip),
		cmocka_unit_test(test_weights_below_one),
		cmocka_unit_test(test_frames_again),
		cmocka_unit_test(test_repeated_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
