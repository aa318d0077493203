/* DMX as the wild writes it: what Valve's exporters, Source 2's tools, SFM and Blender Source
 * Tools put in files that smdmx's own writer never does (stubs, orientation keys that are
 * not unit quaternions, material names with white space, an up axis said twice), read the
 * way studiomdl reads them and said with a count; and the round trips of the corpus's
 * libraries (library/l4d2_modelsrc, dmx_wild): DMX to SMD and QC and back gives a model
 * smdmx diff calls equal, or warnings that name each difference. */
#include <math.h>

#include "support/internal.h"
#include "smd/smd_read.h" /* sm_smd_part_min */
#include "util.h"

/* A DMX file read and lifted; its warnings (reading and lifting) into w when w is given. */
static smdmx_scene *lift_warned(const char *path, smdmx_warnings *w)
{
	smdmx_error err;
	smdmx_warnings rw, lw;
	smdmx_dm *dm = smdmx_dmx_read_file(path, NULL, &err, &rw);
	if (!dm) fail_msg("%s: %s", path, err.message);
	smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, &lw);
	smdmx_dm_free(dm);
	if (!s) fail_msg("%s: %s", path, err.message);
	if (w) {
		*w = rw;
		for (size_t i = 0; i < lw.count && w->count < SMDMX_WARNING_CODE_COUNT; i++) w->data[w->count++] = lw.data[i];
	}
	return s;
}

static void expect_equal(const smdmx_scene *a, const smdmx_scene *b, const char *what)
{
	smdmx_compare_options co = { .flex_controls = true };
	char diff[256];
	if (!smdmx_scene_compare(a, b, &co, diff, sizeof(diff))) fail_msg("%s: %s", what, diff);
}

/* ---- stubs ------------------------------------------------------------------------------- */

/* An animation that names elements of another file (SFM's exports hold such references):
 * read with one warning, and the same animation as the file without them; the stub among
 * the skeleton's children is no joint, as Valve's tools find no element there. */
static void test_stub_animation(void **state)
{
	(void)state;
	smdmx_warnings w;
	smdmx_scene *plain = lift_warned(test_path("testdata/model/arm_wave.dmx"), NULL);
	smdmx_scene *stubbed = lift_warned(test_path("testdata/model/arm_wave_stub.dmx"), &w);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_STUB);
	assert_int_equal(w.data[0].count, 2);
	assert_int_equal(w.data[0].line, 6);
	assert_int_equal(stubbed->joint_count, 2);
	assert_int_equal(stubbed->clip_count, 1);
	expect_equal(plain, stubbed, "a stub among the children");
	smdmx_scene_free(plain);
	smdmx_scene_free(stubbed);
}

/* ---- orientations that are not unit quaternions ----------------------------------------- */

/* Keys of norm 1.14 and 0.73, as Valve's Maya exporter writes some: each the rotation
 * studiomdl builds from it (QuaternionMatrix, which does not normalise, then MatrixAngles),
 * computed here from Valve's formulas: an identity of any length stays the identity, and
 * (x, 0, 0, w) turns about X by atan2(2wx, 1 - 2x^2), not by the normalised quaternion's
 * 2 atan2(|x|, w) (-35.5 degrees against -66.4). One warning counts them with their norms. */
static void test_keys_not_unit(void **state)
{
	(void)state;
	smdmx_warnings w;
	smdmx_scene *s = lift_warned(test_path("testdata/model/arm_wave_scaled.dmx"), &w);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_ROTATION_NOT_UNIT);
	assert_int_equal(w.data[0].count, 2);
	assert_non_null(strstr(w.data[0].message, "(norms 0.729 to 1.14, "));
	const smdmx_clip *c = &s->clips[0];
	assert_int_equal(c->channel_count, 2);
	const float *first = c->channels[0].orientations[0];
	assert_true(first[0] == 0 && first[1] == 0 && first[2] == 0 && first[3] == 1);
	const smdmx_channel *lower = &c->channels[1];
	const float *last = lower->orientations[lower->orientation_count - 1];
	double x = -0.39908987, qw = 0.60962987, a = atan2(2 * qw * x, 1 - 2 * x * x);
	assert_true(fabs(a * 180 / 3.14159265358979 - -35.5288) < 1e-3);
	assert_true(fabs(last[0] - sin(a / 2)) < 1e-6 && last[1] == 0 && last[2] == 0 && fabs(last[3] - cos(a / 2)) < 1e-6);
	/* the other keys are the file's, bit for bit */
	smdmx_scene *plain = lift_warned(test_path("testdata/model/arm_wave.dmx"), NULL);
	assert_memory_equal(lower->orientations, plain->clips[0].channels[1].orientations, 10 * sizeof(smdmx_quat));
	smdmx_scene_free(plain);
	smdmx_scene_free(s);
}

/* ---- material names with white space ----------------------------------------------------- */

static smdmx_scene *smd_back(const smdmx_scene *s, test_sink *text, smdmx_warnings *w)
{
	smdmx_error err;
	text->size = 0;
	if (!smdmx_smd_write(s, test_sink_write, text, NULL, &err)) fail_msg("smd write: %s", err.message);
	smdmx_scene *back = smdmx_smd_read_memory(text->data, text->size, NULL, &err, w);
	if (!back) fail_msg("smd read: %s", err.message);
	return back;
}

/* studiomdl takes an SMD material line whole but for the white space at its end, and a DMX
 * mtlName as it is: "  phy" (Blender Source Tools wrote collision meshes so) is written and
 * read back with its spaces, with a warning on reading; "rock  " loses its end in an SMD,
 * said with a count. Names an SMD reader would take for the end of the block, a comment or a
 * triangle to skip are refused. */
static void test_material_spaces(void **state)
{
	(void)state;
	smdmx_scene *s = lift_warned(test_path("testdata/model/phy_spaces.dmx"), NULL);
	assert_int_equal(s->material_count, 2);
	assert_string_equal(s->materials[0].name, "  phy");
	assert_string_equal(s->materials[1].name, "rock  ");
	smdmx_warnings lost;
	memset(&lost, 0, sizeof(lost));
	smdmx_smd_report_losses(s, NULL, false, &lost);
	const smdmx_warning *ends = test_warning_of(&lost, SMDMX_WARNING_MATERIAL_SPACE);
	assert_non_null(ends);
	if (!ends) return;
	assert_int_equal(ends->count, 1);
	assert_non_null(strstr(ends->message, "('rock  ')"));
	test_sink text = { 0 };
	smdmx_warnings w;
	smdmx_scene *back = smd_back(s, &text, &w);
	assert_non_null(test_memmem(text.data, text.size, "\r\n  phy\r\n", 9));
	assert_non_null(test_memmem(text.data, text.size, "\r\nrock\r\n", 8));
	assert_string_equal(back->materials[0].name, "  phy");
	assert_string_equal(back->materials[1].name, "rock");
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_MATERIAL_SPACE);
	assert_int_equal(w.data[0].count, 1);
	assert_int_equal(w.data[0].line, 10);
	/* the same read on several threads, the triangles block cut in parts of 256 bytes: 200
	 * triangles, their material lines with white space at the start one time in three */
	test_sink big = { 0 };
	const char *head = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n";
	test_sink_write(&big, head, strlen(head));
	for (int t = 0; t < 200; t++) {
		char tri[256];
		int n = snprintf(tri, sizeof(tri), "%s\n0 %d 0 0 0 0 1 0 0\n0 %d 1 0 0 0 1 1 0\n0 %d 0 1 0 0 1 0 1\n",
		                 t % 3 ? "rock" : t % 2 ? "\tphy" : "  phy", t, t, t);
		test_sink_write(&big, tri, (size_t)n);
	}
	test_sink_write(&big, "end\n", 4);
	char *path = test_temp_file("spaces", big.data, big.size);
	test_smd_threads_same(path, 256);
	smdmx_error err;
	smdmx_smd_read_options ro = { .threads = 1 };
	smdmx_warnings wb;
	smdmx_scene *spaced = smdmx_smd_read_file(path, &ro, &err, &wb);
	assert_non_null(spaced);
	assert_int_equal(spaced->material_count, 3);
	assert_int_equal(wb.data[0].count, 2);
	assert_int_equal(wb.data[0].line, 10);
	smdmx_scene_free(spaced);
	os_remove(path);
	free(path);
	free(big.data);
	smdmx_scene_free(back);
	/* what an SMD cannot hold as a material line */
	static const char *const refused[] = { "  end", "End cap", "// x", " \t ", "\tend" };
	const char *keep = s->materials[1].name;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		s->materials[1].name = refused[i];
		text.size = 0;
		assert_false(smdmx_smd_write(s, test_sink_write, &text, NULL, &err));
		assert_int_equal(err.code, SMDMX_ERROR_INVALID_SCENE);
		assert_non_null(strstr(err.message, "cannot be written to SMD"));
	}
	s->materials[1].name = "endcap";
	text.size = 0;
	assert_true(smdmx_smd_write(s, test_sink_write, &text, NULL, &err));
	s->materials[1].name = keep;
	free(text.data);
	smdmx_scene_free(s);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stub_animation),
		cmocka_unit_test(test_keys_not_unit),
		cmocka_unit_test(test_material_spaces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
