/* A tolerance is a true tolerance: two models whose values all differ by at most it are equal,
 * and a larger difference is found, at every tolerance (values that fall on two sides of a
 * step of the tolerance are still neighbours). A property: random models, and every model of
 * the corpus, with every mesh value moved by up to half the tolerance compare equal to what
 * they were, and with one value moved by twice the tolerance compare different. */
#include <math.h>
#include <strings.h>

#include "util.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

/* xorshift64*: the same numbers on every system */
static double rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717u) >> 11) / 9007199254740992.0;
}

/* A model of n random triangles within [-scale, scale], on two bones, with 6-decimal values. */
static char *random_smd(size_t n, double scale)
{
	char *locale = test_c_numbers_begin();
	size_t cap = 256 + n * 400, k = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	k += (size_t)snprintf(t + k, cap - k, "version 1\nnodes\n0 \"root\" -1\n1 \"arm\" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n"
	                                      "1 1 0 0 0 0 0\nend\ntriangles\n");
	for (size_t i = 0; i < n; i++) {
		k += (size_t)snprintf(t + k, cap - k, "mat%zu\n", i % 3);
		for (int v = 0; v < 3; v++) {
			double w = rnd();
			k += (size_t)snprintf(t + k, cap - k, "0 %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f 2 0 %.6f 1 %.6f\n", (rnd() * 2 - 1) * scale,
			                      (rnd() * 2 - 1) * scale, (rnd() * 2 - 1) * scale, rnd() * 2 - 1, rnd() * 2 - 1, rnd() * 2 - 1, rnd(),
			                      rnd(), w, 1 - w);
		}
	}
	k += (size_t)snprintf(t + k, cap - k, "end\n");
	test_c_numbers_end(locale);
	return t;
}

/* Every mesh value of s (positions, normals, UVs, weights), as pointers. */
static float **mesh_values(smdmx_scene *s, size_t *count)
{
	size_t n = 0;
	for (size_t m = 0; m < s->mesh_count; m++) {
		const smdmx_mesh *me = &s->meshes[m];
		n += 3 * me->position_count + 3 * (me->normals ? me->normal_count : 0) + me->weight_count;
		for (size_t u = 0; u < me->uv_set_count; u++) n += 2 * me->uv_sets[u].count;
	}
	float **v = malloc((n + 1) * sizeof(float *));
	assert_non_null(v);
	size_t k = 0;
	for (size_t m = 0; m < s->mesh_count; m++) {
		smdmx_mesh *me = &s->meshes[m];
		for (size_t p = 0; p < me->position_count; p++)
			for (int d = 0; d < 3; d++) v[k++] = &me->positions[p][d];
		for (size_t p = 0; me->normals && p < me->normal_count; p++)
			for (int d = 0; d < 3; d++) v[k++] = &me->normals[p][d];
		for (size_t u = 0; u < me->uv_set_count; u++)
			for (size_t p = 0; p < me->uv_sets[u].count; p++)
				for (int d = 0; d < 2; d++) v[k++] = &me->uv_sets[u].data[p][d];
		for (size_t w = 0; w < me->weight_count; w++) v[k++] = &me->weights[w].weight;
	}
	*count = k;
	return v;
}

/* b, a copy of a: equal at tol after every value moved by up to tol / 2, different after one
 * value moved by 2 tol. */
static void check_pair(const char *what, smdmx_scene *a, smdmx_scene *(*copy)(void *), void *arg, double tol)
{
	smdmx_compare_options o = { .value_tolerance = tol };
	char diff[256];
	smdmx_scene *b = copy(arg);
	size_t n;
	float **v = mesh_values(b, &n);
	if (!n) {
		free(v);
		smdmx_scene_free(b);
		return;
	}
	for (size_t i = 0; i < n; i++) *v[i] = (float)(*v[i] + (rnd() * 2 - 1) * tol / 2);
	if (!smdmx_scene_compare(a, b, &o, diff, sizeof(diff), NULL))
		fail_msg("%s: every value moved by up to %g differs at tolerance %g: %s", what, tol / 2, tol, diff);
	free(v);
	smdmx_scene_free(b);
	b = copy(arg);
	v = mesh_values(b, &n);
	size_t one = (size_t)(rnd() * (double)n) % n;
	*v[one] = (float)(*v[one] + (rnd() < 0.5 ? -2 : 2) * tol);
	if (smdmx_scene_compare(a, b, &o, diff, sizeof(diff), NULL))
		fail_msg("%s: value %zu of %zu moved by %g is equal at tolerance %g", what, one, n, 2 * tol, tol);
	free(v);
	smdmx_scene_free(b);
}

static smdmx_scene *read_text(void *text)
{
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(text, strlen(text), NULL, &err, NULL);
	if (!s) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	return s;
}

/* Random models at tolerances from 1e-5 to 0.3, each value up to half the tolerance off. */
static void test_random_models(void **state)
{
	(void)state;
	static const double tols[] = { 1e-5, 1e-3, 0.011, 0.05, 0.3 };
	for (size_t t = 0; t < sizeof(tols) / sizeof(tols[0]); t++) {
		for (int round = 0; round < 8; round++) {
			char *text = random_smd(40 + (size_t)round * 20, round % 2 ? 1.0 : 100.0);
			smdmx_scene *a = read_text(text);
			char what[64];
			snprintf(what, sizeof(what), "random model %d", round);
			check_pair(what, a, read_text, text, tols[t]);
			smdmx_scene_free(a);
			free(text);
		}
	}
}

/* The pair: first corners at x = 0.045 and 0.055 are one corner at 0.011, 0.05, 0.1. */
static void test_neighbours_across_a_step(void **state)
{
	(void)state;
#define PAIR_SMD(X) "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n0 " X \
	                    " 0 0 0 0 1 0 0\n0 1 1 0 0 0 1 1 0\n0 0 1 1 0 0 1 0 1\nend\n"
	char ta[] = PAIR_SMD("0.045"), tb[] = PAIR_SMD("0.055");
#undef PAIR_SMD
	smdmx_scene *a = read_text(ta), *b = read_text(tb);
	static const double equal[] = { 0.011, 0.05, 0.1 }, differ[] = { 0.005, 0.0099 };
	for (size_t i = 0; i < 3; i++) {
		smdmx_compare_options o = { .value_tolerance = equal[i] };
		char diff[256];
		if (!smdmx_scene_compare(a, b, &o, diff, sizeof(diff), NULL)) fail_msg("at %g: %s", equal[i], diff);
	}
	for (size_t i = 0; i < 2; i++) {
		smdmx_compare_options o = { .value_tolerance = differ[i] };
		assert_false(smdmx_scene_compare(a, b, &o, NULL, 0, NULL));
	}
	smdmx_scene_free(a);
	smdmx_scene_free(b);
}

static smdmx_scene *read_model(void *path)
{
	smdmx_error err;
	const char *p = path;
	if (test_ends_with(p, ".dmx")) {
		smdmx_dm *dm = smdmx_dmx_read_file(p, NULL, &err, NULL);
		if (!dm) fail_msg("%s: %s", p, err.message);
		smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, NULL);
		smdmx_dm_free(dm);
		if (!s) fail_msg("%s: %s", p, err.message);
		return s;
	}
	smdmx_scene *s = smdmx_smd_read_file(p, NULL, &err, NULL);
	if (!s) fail_msg("%s: %s", p, err.message);
	return s;
}

/* Every model of the corpus (reference SMDs and model DMX with a mesh), at 1e-3. Under the
 * sanitizers every 4th file of the large folders. */
static void test_corpus_models(void **state)
{
	(void)state;
	static const char *const dirs[] = { "smd_ref", "dmx_binary", "dmx_kv2_model", "dmx_kv2_datamodelpy", "other", "qc", "library" };
	bool sampled = false;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	sampled = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
	sampled = true;
#endif
#endif
	size_t models = 0;
	test_corpus_dir();
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		size_t n;
		char **paths = test_corpus_tree(dirs[d], &n);
		for (size_t i = 0; i < n; i++) {
			const char *p = paths[i];
			if (!test_ends_with(p, ".smd") && !test_ends_with(p, ".dmx")) continue;
			if (sampled && d >= 5 && i % 4) continue;
			smdmx_error err;
			smdmx_scene *a = NULL;
			if (test_ends_with(p, ".dmx")) {
				smdmx_dm *dm = smdmx_dmx_read_file(p, NULL, &err, NULL);
				a = dm ? smdmx_model_to_scene(dm, NULL, &err, NULL) : NULL;
				smdmx_dm_free(dm);
			} else {
				a = smdmx_smd_read_file(p, NULL, &err, NULL);
			}
			if (!a) continue; /* files that do not read are the reading tests' */
			bool faces = false;
			for (size_t m = 0; m < a->mesh_count; m++) faces = faces || a->meshes[m].face_set_count;
			if (faces) {
				check_pair(test_base_name(p), a, read_model, (void *)p, 1e-3);
				models++;
			}
			smdmx_scene_free(a);
		}
		test_free_list(paths, n);
	}
	print_message("%zu corpus models compared with their values moved by 5e-4 and 2e-3\n", models);
	assert_true(models >= 20);
}

static void count_difference(void *user, const char *message)
{
	(void)message;
	(*(size_t *)user)++;
}

/* Two bones of one name (a published COD animation has them) pair in their order: a file is
 * equal to itself, and a change to the second of them is one difference. */
static void test_duplicate_bone_names(void **state)
{
	(void)state;
#define DUP_SMD(X) "version 1\nnodes\n0 \"root\" -1\n1 \"bone\" 0\n2 \"bone\" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n" \
	                 "1 1 0 0 0 0 0\n2 0 1 0 0 0 0\ntime 1\n0 0 0 0 0 0 0\n1 1 0 1 0 0 0\n2 0 1 " X " 0 0 0\nend\ntriangles\nm\n" \
	                 "1 0 0 0 0 0 1 0 0\n2 1 0 0 0 0 1 1 0\n1 0 1 0 0 0 1 0 1\nend\n"
	char ta[] = DUP_SMD("2"), tb[] = DUP_SMD("3");
#undef DUP_SMD
	smdmx_scene *a = read_text(ta), *a2 = read_text(ta), *b = read_text(tb);
	size_t n = 0;
	assert_int_equal(smdmx_scene_diff(a, a2, NULL, count_difference, &n, NULL), 0);
	assert_int_equal(n, 0);
	char diff[256];
	if (!smdmx_scene_compare(a, a2, NULL, diff, sizeof(diff), NULL)) fail_msg("%s", diff);
	assert_int_equal(smdmx_scene_diff(a, b, NULL, count_difference, &n, NULL), 1);
	assert_false(smdmx_scene_compare(a, b, NULL, NULL, 0, NULL));
	smdmx_scene_free(a);
	smdmx_scene_free(a2);
	smdmx_scene_free(b);
}

/* A scene that repeats every name it can: two meshes 'm' (the second moved by `shift`), each
 * with a shape 'smile', two attachments 'tip' and two clips 'wave' that differ. Arrays are
 * the model's and arm_wave's, shared; the copies it makes are in `own`. */
typedef struct twice {
	smdmx_scene s;
	smdmx_mesh meshes[2];
	smdmx_flex_shape shapes[2];
	smdmx_attachment atts[2];
	smdmx_clip clips[2];
	smdmx_channel *channels;
	smdmx_vec3 *positions, *keys;
} twice;

static void twice_make(twice *t, const smdmx_scene *model, const smdmx_scene *anim, float shift)
{
	memset(t, 0, sizeof(*t));
	t->s = *model;
	const smdmx_mesh *m = &model->meshes[0];
	t->positions = malloc((m->position_count + 1) * sizeof(smdmx_vec3));
	assert_non_null(t->positions);
	for (size_t p = 0; p < m->position_count; p++)
		for (int d = 0; d < 3; d++) t->positions[p][d] = m->positions[p][d] + (d == 0 ? 10.0f + shift : 0.0f);
	t->meshes[0] = t->meshes[1] = *m;
	t->meshes[1].positions = t->positions;
	t->s.meshes = t->meshes;
	t->s.mesh_count = 2;
	t->shapes[0] = t->shapes[1] = model->flex_shapes[0];
	t->shapes[1].mesh = 1;
	t->s.flex_shapes = t->shapes;
	t->s.flex_shape_count = 2;
	t->s.flex_controller_count = 0;
	t->s.flex_rule_count = 0;
	for (int i = 0; i < 2; i++) {
		t->atts[i] = (smdmx_attachment){ .name = "tip", .parent_joint = 1, .transform = { { (float)i, 0, 0 }, { 0, 0, 0, 1 } } };
		t->clips[i] = anim->clips[0];
	}
	t->s.attachments = t->atts;
	t->s.attachment_count = 2;
	/* the second clip: every position key 1 unit higher */
	const smdmx_clip *c = &anim->clips[0];
	size_t keys = 0;
	for (size_t k = 0; k < c->channel_count; k++) keys += c->channels[k].position_count;
	t->channels = malloc((c->channel_count + 1) * sizeof(smdmx_channel));
	t->keys = malloc((keys + 1) * sizeof(smdmx_vec3));
	assert_true(t->channels && t->keys);
	keys = 0;
	for (size_t k = 0; k < c->channel_count; k++) {
		t->channels[k] = c->channels[k];
		t->channels[k].positions = t->keys + keys;
		for (size_t q = 0; q < c->channels[k].position_count; q++, keys++)
			for (int d = 0; d < 3; d++) t->keys[keys][d] = c->channels[k].positions[q][d] + (d == 2 ? 1.0f : 0.0f);
	}
	t->clips[1].channels = t->channels;
	t->s.clips = t->clips;
	t->s.clip_count = 2;
}

static void twice_free(twice *t)
{
	free(t->positions);
	free(t->channels);
	free(t->keys);
}

static smdmx_scene *lift(const char *path)
{
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_file(path, NULL, &err, NULL);
	smdmx_scene *s = dm ? smdmx_model_to_scene(dm, NULL, &err, NULL) : NULL;
	smdmx_dm_free(dm);
	if (!s) fail_msg("%s: %s", path, err.message);
	return s;
}

typedef struct said {
	size_t count;
	char first[256];
} said;

static void keep_difference(void *user, const char *message)
{
	said *x = user;
	if (!x->count++) snprintf(x->first, sizeof(x->first), "%s", message);
}

/* Duplicate names of meshes, shapes, attachments and clips pair in their order: a model that
 * repeats each is equal to itself, both by meaning and strictly, and a change to the second
 * of a name is found there, and only there. */
/* A model of joints bones, unanimated, and one clip of frames frames (at 10,000 fps: a
 * frame a tick). */
static smdmx_scene *long_clip(size_t joints, long long frames)
{
	smdmx_error e;
	smdmx_scene *s = smdmx_scene_new(NULL, &e);
	assert_non_null(s);
	smdmx_joint *j = smdmx_scene_alloc(s, joints * sizeof(smdmx_joint), &e);
	smdmx_clip *clip = smdmx_scene_alloc(s, sizeof(smdmx_clip), &e);
	assert_non_null(j);
	assert_non_null(clip);
	for (size_t i = 0; i < joints; i++) {
		char name[32];
		snprintf(name, sizeof(name), "bone%zu", i);
		j[i].name = smdmx_scene_strdup(s, name, &e);
		j[i].parent = SMDMX_NONE;
		j[i].bind.orientation[3] = 1;
	}
	*clip = (smdmx_clip){ .name = "long", .frame_rate = 10000, .start = 0, .duration = (int32_t)(frames - 1) };
	s->joints = j;
	s->joint_count = joints;
	s->clips = clip;
	s->clip_count = 1;
	assert_int_equal(smdmx_clip_frames(clip), frames);
	return s;
}

/* The comparison's limits (doc/limits.md), at their values and one past: a clip's frames
 * (the diff and the comparison), and its bone poses (the diff): past one, the comparison is
 * not made, SMDMX_ERROR_LIMIT, never a difference. */
static void test_clip_limits(void **state)
{
	(void)state;
	static const struct {
		size_t joints;
		long long frames;
		bool over;
		const char *why;
	} cases[] = {
		{ 1, 1000000, false, NULL },
		{ 1, 1000001, true, "clip 'long': too many frames to compare (1000001 frames of 1 joints; the limit is 2^26 bone poses)" },
		{ 100, 671088, false, NULL },
		{ 100, 671089, true, "clip 'long': too many frames to compare (671089 frames of 100 joints; the limit is 2^26 bone poses)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		smdmx_scene *s = long_clip(cases[i].joints, cases[i].frames);
		smdmx_error e;
		size_t n = smdmx_scene_diff(s, s, NULL, NULL, NULL, &e);
		if (!cases[i].over) {
			assert_int_equal(n, 0);
			assert_int_equal(e.code, SMDMX_ERROR_NONE);
		} else {
			assert_int_equal(n, SIZE_MAX);
			assert_int_equal(e.code, SMDMX_ERROR_LIMIT);
			assert_string_equal(e.message, cases[i].why);
		}
		char why[200];
		bool same = smdmx_scene_compare(s, s, NULL, why, sizeof(why), &e);
		bool frames_over = cases[i].frames > 1000000;
		assert_int_equal(same, !frames_over);
		assert_int_equal(e.code, frames_over ? SMDMX_ERROR_LIMIT : SMDMX_ERROR_NONE);
		if (frames_over) assert_string_equal(why, "clip 'long': too many frames to compare (1000001; the limit is 1000000)");
		smdmx_scene_free(s);
	}
}

static void test_duplicate_names(void **state)
{
	(void)state;
	smdmx_scene *model = lift(test_path("testdata/model/arm.dmx")), *anim = lift(test_path("testdata/model/arm_wave.dmx"));
	assert_int_equal(model->flex_shape_count, 1);
	twice a, a2, b;
	twice_make(&a, model, anim, 0);
	twice_make(&a2, model, anim, 0);
	twice_make(&b, model, anim, 0.5f);
	smdmx_compare_options strict = { .strict = true };
	for (int k = 0; k < 2; k++) {
		const smdmx_compare_options *o = k ? &strict : NULL;
		said x = { 0 };
		smdmx_scene_diff(&a.s, &a.s, o, keep_difference, &x, NULL);
		if (x.count) fail_msg("itself, %s: %zu differences, the first: %s", k ? "strict" : "by meaning", x.count, x.first);
		smdmx_scene_diff(&a.s, &a2.s, o, keep_difference, &x, NULL);
		if (x.count) fail_msg("a copy, %s: %zu differences, the first: %s", k ? "strict" : "by meaning", x.count, x.first);
		/* by meaning, each of the 20 triangles of the second mesh; strictly, its first */
		smdmx_scene_diff(&a.s, &b.s, o, keep_difference, &x, NULL);
		assert_int_equal(x.count, k ? 1 : 20);
		assert_string_equal(x.first, k ? "mesh 'arm' polygon 0: positions differ"
		                               : "mesh 'arm': a polygon of material 'arm_skin': the corner at (20 -2 -2) differs in its "
		                                 "position");
	}
	twice_free(&a);
	twice_free(&a2);
	twice_free(&b);
	smdmx_scene_free(model);
	smdmx_scene_free(anim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_neighbours_across_a_step),
		cmocka_unit_test(test_random_models),
		cmocka_unit_test(test_corpus_models),
		cmocka_unit_test(test_duplicate_bone_names),
		cmocka_unit_test(test_duplicate_names),
		cmocka_unit_test(test_clip_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
