/* DMX as the wild writes it: what Valve's exporters, Source 2's tools, SFM and Blender Source
 * Tools put in files that smdmx's own writer never does (stubs, orientation keys that are
 * not unit quaternions, material names with white space, an up axis said twice), read the
 * way studiomdl reads them and said with a count; and the round trips of the corpus's
 * libraries (library/l4d2_modelsrc, dmx_wild): DMX to SMD and QC and back gives a model
 * smdmx diff calls equal, or warnings that name each difference. */
#include <math.h>

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

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stub_animation),
		cmocka_unit_test(test_keys_not_unit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
