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

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stub_animation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
