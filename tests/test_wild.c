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
	smdmx_model_file f;
	if (!smdmx_model_file_read(path, NULL, 0, NULL, &f, &err, w)) fail_msg("%s: %s", path, err.message);
	if (!f.scene) fail_msg("%s: %s", path, f.not_model);
	smdmx_scene *s = f.scene;
	f.scene = NULL;
	smdmx_model_file_free(&f);
	return s;
}

static void expect_equal(const smdmx_scene *a, const smdmx_scene *b, const char *what)
{
	smdmx_compare_options co = { .flex_controls = true };
	char diff[256];
	if (!smdmx_scene_compare(a, b, &co, diff, sizeof(diff), NULL)) fail_msg("%s: %s", what, diff);
}

/* ---- stubs ------------------------------------------------------------------------------- */

/* An animation that names elements of another file (SFM's exports hold such references):
 * read with one warning, and the same animation as the file without them; the stub among
 * the skeleton's children is no joint, as Valve's tools find no element there. */
static void test_stub_animation(void **state)
{
	(void)state;
	TEST_WARNINGS(w);
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
	TEST_WARNINGS(w);
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
	TEST_WARNINGS(lost);
	smdmx_warnings_free(&lost);
	assert_true(smdmx_smd_report_losses(s, NULL, false, NULL, &lost));
	const smdmx_warning *ends = test_warning_of(&lost, SMDMX_WARNING_MATERIAL_SPACE);
	assert_non_null(ends);
	if (!ends) return;
	assert_int_equal(ends->count, 1);
	assert_non_null(strstr(ends->message, "('rock  ')"));
	test_sink text = { 0 };
	TEST_WARNINGS(w);
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
	TEST_WARNINGS(wb);
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

/* ---- the up axis --------------------------------------------------------------------------- */

/* A model lifted from a file's bytes (the test fails if reading does), or NULL with err set. */
static smdmx_scene *lift_text(const char *text, smdmx_error *err, smdmx_warnings *w)
{
	smdmx_dm *dm = smdmx_dmx_read_memory(text, strlen(text), NULL, err, NULL);
	if (!dm) fail_msg("read: %s", err->message);
	smdmx_scene *s = smdmx_model_to_scene(dm, NULL, err, w);
	smdmx_dm_free(dm);
	return s;
}

/* The file's text with one string replaced (malloc'd). */
static char *replaced(const char *rel, const char *from, const char *to)
{
	size_t n = 0;
	char *text = test_slurp(test_path(rel), &n);
	assert_non_null(text);
	text = realloc(text, n + 1);
	text[n] = 0;
	char *at = strstr(text, from);
	if (!at) fail_msg("%s: no '%s'", rel, from);
	char *out = malloc(n + strlen(to) + 1);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	free(text);
	return out;
}

static void last_said(void *user, const char *message)
{
	snprintf(user, 256, "%s", message);
}

static size_t differences(const smdmx_scene *a, const smdmx_scene *b, bool strict)
{
	smdmx_compare_options o = { .flex_controls = true, .rotation_tolerance = 2e-6, .strict = strict };
	return smdmx_scene_diff(a, b, &o, NULL, NULL, NULL);
}

/* Source 2's exporters write upAxis "Y" (a DmeModel's default) beside an axis system that says
 * Z, with Z-up geometry: the axis system is the model's up axis, as Valve's DmeModel::IsZUp
 * takes it, said when the two disagree; the string alone is the writer's word. An axis system
 * smdmx cannot turn (a negative up axis, left-handed) is refused. */
static void test_up_axis(void **state)
{
	(void)state;
	TEST_WARNINGS(w);
	smdmx_scene *plain = lift_warned(test_path("testdata/model/arm.dmx"), NULL);
	smdmx_scene *both = lift_warned(test_path("testdata/model/arm_axis_system.dmx"), &w);
	assert_int_equal(both->up_axis, 'Z');
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_UP_AXIS_CONFLICT);
	assert_non_null(strstr(w.data[0].message, "the model's upAxis says Y and its axis system Z: Z up taken"));
	assert_int_equal(differences(plain, both, false), 0);
	smdmx_error err;
	struct {
		const char *from, *to;
		char up;          /* 0: refused */
		size_t warnings;
		const char *refusal;
	} cases[] = {
		{ "\"upAxis\" \"int\" \"3\"", "\"upAxis\" \"int\" \"2\"", 'Y', 0, NULL },  /* both say Y */
		{ "\"upAxis\" \"string\" \"Y\"", "\"upAxis\" \"string\" \"X\"", 'Z', 1, NULL },
		{ "\"upAxis\" \"int\" \"3\"", "\"upAxis\" \"int\" \"1\"", 'X', 1, NULL },
		{ "\"upAxis\" \"int\" \"3\"", "\"upAxis\" \"int\" \"-3\"", 0, 0,
		  "not a usable model: its axis system is -Z up, and smdmx turns only +X and +Y up to Source's Z" },
		{ "\"coordSys\" \"int\" \"0\"", "\"coordSys\" \"int\" \"1\"", 0, 0,
		  "not a usable model: its axis system is left-handed, and smdmx does not mirror a model" },
		{ "\"upAxis\" \"int\" \"3\"", "\"upAxis\" \"int\" \"7\"", 'Y', 0, NULL }, /* no axis system: the string */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = replaced("testdata/model/arm_axis_system.dmx", cases[i].from, cases[i].to);
		smdmx_scene *s = lift_text(text, &err, &w);
		free(text);
		if (!cases[i].up) {
			assert_null(s);
			assert_int_equal(err.code, SMDMX_ERROR_INVALID_SCENE);
			assert_string_equal(err.message, cases[i].refusal);
			continue;
		}
		if (!s) fail_msg("case %zu: %s", i, err.message);
		assert_int_equal(s->up_axis, cases[i].up);
		assert_int_equal(w.count, cases[i].warnings);
		smdmx_scene_free(s);
	}
	smdmx_scene_free(plain);
	smdmx_scene_free(both);
}

/* smdmx diff compares models of two up axes as Source uses them: a Y-up model equals itself
 * turned to Z up (as smd2dmx --qc turns it), bit for bit where the turn moves numbers without
 * rounding them; turned the wrong way, it differs; --strict calls the axes a difference. */
static void test_diff_turned(void **state)
{
	(void)state;
	char *text = replaced("testdata/model/arm.dmx", "\t\"jointList\"", "\t\"upAxis\" \"string\" \"Y\"\n\t\"jointList\"");
	smdmx_error err;
	TEST_WARNINGS(w);
	smdmx_scene *y = lift_text(text, &err, &w), *turned = lift_text(text, &err, &w), *wrong = lift_text(text, &err, &w);
	free(text);
	assert_int_equal(y->up_axis, 'Y');
	assert_true(smdmx_scene_transform(turned, 1, 'Y', &err));
	assert_int_equal(turned->up_axis, 'Z');
	assert_int_equal(differences(y, turned, false), 0);
	assert_int_equal(differences(turned, y, false), 0);
	assert_int_equal(differences(y, turned, true) > 0, 1);
	assert_true(smdmx_scene_transform(wrong, 1, 'X', &err));
	assert_true(differences(y, wrong, false) > 0);
	smdmx_scene_free(y);
	smdmx_scene_free(turned);
	smdmx_scene_free(wrong);
}

/* ---- round trips that mean the same ------------------------------------------------------ */

/* A static prop without joints (datamodel-rs's test models, jglrxavpok's Datamodel, Valve's
 * physics meshes): an SMD must name a bone, so dmx2smd holds it on one root bone; studiomdl
 * builds the same model from both (its defaultRoot, or the mesh's own bone), and smdmx diff
 * calls them the same model. A root that moves, holds an attachment or leaves a vertex
 * partly unweighted is a difference. */
static void test_jointless(void **state)
{
	(void)state;
	smdmx_scene *prop = lift_warned(test_path("testdata/model/static_prop.dmx"), NULL);
	assert_int_equal(prop->joint_count, 0);
	test_sink text = { 0 };
	TEST_WARNINGS(w);
	smdmx_scene *smd = smd_back(prop, &text, &w);
	assert_int_equal(smd->joint_count, 1);
	assert_int_equal(differences(prop, smd, false), 0);
	assert_int_equal(differences(smd, prop, false), 0);
	/* the root turned (a model turned to Z up turns it) holds every vertex where it was */
	smd->joints[0].bind.orientation[0] = 0.70710677f;
	smd->joints[0].bind.orientation[3] = 0.70710677f;
	assert_int_equal(differences(prop, smd, false), 0);
	/* half a vertex's weight elsewhere: no longer the same */
	float kept = smd->meshes[0].weights[0].weight;
	smd->meshes[0].weights[0].weight = 0.5f;
	assert_true(differences(prop, smd, false) > 0);
	smd->meshes[0].weights[0].weight = kept;
	/* an attachment on the root */
	smdmx_attachment on_root = { "muzzle", 0, { { 1, 2, 3 }, { 0, 0, 0, 1 } }, false, false }, on_model = on_root;
	on_model.parent_joint = SMDMX_NONE;
	smd->attachments = &on_root;
	prop->attachments = &on_model;
	smd->attachment_count = prop->attachment_count = 1;
	assert_true(differences(prop, smd, false) > 0);
	smd->attachments = &on_model;
	assert_int_equal(differences(prop, smd, false), 0);
	smd->attachment_count = prop->attachment_count = 0;
	smd->attachments = prop->attachments = NULL;
	free(text.data);
	smdmx_scene_free(smd);
	smdmx_scene_free(prop);
}

/* A model whose meshes hold no polygon (a Blender curve exported as a mesh of points) is the
 * same as itself; beside the model with its polygons, they are only in the second. (Found by
 * fuzzing the diff: it called such a model different from itself.) */
static void test_diff_no_polygons(void **state)
{
	(void)state;
	smdmx_scene *bare = lift_warned(test_path("testdata/model/static_prop.dmx"), NULL);
	smdmx_scene *prop = lift_warned(test_path("testdata/model/static_prop.dmx"), NULL);
	bare->meshes[0].face_set_count = 0;
	assert_int_equal(differences(bare, bare, false), 0);
	assert_int_equal(differences(bare, bare, true), 0);
	smdmx_compare_options o = { .flex_controls = true };
	char said[256] = "";
	assert_int_equal(smdmx_scene_diff(bare, prop, &o, last_said, said, NULL), 1);
	assert_string_equal(said, "mesh 'crate' only in the second");
	smdmx_scene_free(bare);
	smdmx_scene_free(prop);
}

/* A balance that is not a number (fuzz finding 8): the model is refused, as a position that
 * is not would be, where the diff called it different from itself. */
static void test_balance_not_finite(void **state)
{
	(void)state;
	size_t n = 0;
	char *data = test_slurp(test_path("fuzz/findings/model/diff-self-balance-not-finite"), &n);
	assert_non_null(data);
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(data, n, NULL, &err, NULL);
	assert_non_null(dm);
	assert_null(smdmx_model_to_scene(dm, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_INVALID_SCENE);
	assert_string_equal(err.message, "mesh 0: balance not finite");
	smdmx_dm_free(dm);
	free(data);
	/* and a wrinkle so, in a scene built by hand */
	smdmx_scene *s = lift_warned(test_path("testdata/model/static_prop.dmx"), NULL);
	smdmx_mesh *m = &s->meshes[0];
	float *w = smdmx_scene_alloc(s, sizeof(float), &err);
	assert_non_null(w);
	uint32_t *wi = smdmx_scene_alloc(s, m->corner_count * sizeof(uint32_t), &err);
	assert_non_null(wi);
	memset(wi, 0, m->corner_count * sizeof(uint32_t));
	*w = 0.5f;
	m->wrinkle = (smdmx_scalar_field){ w, 1, wi };
	assert_true(smdmx_scene_validate(s, &err));
	*w = INFINITY;
	assert_false(smdmx_scene_validate(s, &err));
	assert_string_equal(err.message, "mesh 0: wrinkle not finite");
	smdmx_scene_free(s);
}

/* An animation whose bind pose is not its first frame: an SMD animation holds frames only, so
 * the bind pose read back is the first frame: said, with the number of joints it moves. */
static void test_animation_bind_pose(void **state)
{
	(void)state;
	smdmx_scene *s = lift_warned(test_path("testdata/model/arm_wave.dmx"), NULL);
	TEST_WARNINGS(w);
	smdmx_warnings_free(&w);
	assert_true(smdmx_smd_report_losses(s, NULL, false, NULL, &w));
	assert_null(test_warning_of(&w, SMDMX_WARNING_BIND_POSE));
	s->joints[1].bind.position[0] = 12;
	smdmx_warnings_free(&w);
	assert_true(smdmx_smd_report_losses(s, NULL, false, NULL, &w));
	const smdmx_warning *bind = test_warning_of(&w, SMDMX_WARNING_BIND_POSE);
	assert_non_null(bind);
	if (!bind) return;
	assert_int_equal(bind->count, 1);
	assert_non_null(strstr(bind->message, "('lower arm')"));
	test_sink text = { 0 };
	TEST_WARNINGS(rw);
	smdmx_scene *back = smd_back(s, &text, &rw);
	assert_true(back->joints[1].bind.position[0] == 10);
	free(text.data);
	smdmx_scene_free(back);
	smdmx_scene_free(s);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stub_animation),
		cmocka_unit_test(test_keys_not_unit),
		cmocka_unit_test(test_material_spaces),
		cmocka_unit_test(test_up_axis),
		cmocka_unit_test(test_diff_turned),
		cmocka_unit_test(test_jointless),
		cmocka_unit_test(test_diff_no_polygons),
		cmocka_unit_test(test_balance_not_finite),
		cmocka_unit_test(test_animation_bind_pose),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
