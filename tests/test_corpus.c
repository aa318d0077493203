/* Every SMD and VTA in ../shared/corpus: it reads (or, for the known-invalid empty file,
 * fails with the right code), and SMD -> scene -> SMD -> scene gives an equal scene:
 * positions, normals, UVs and weights equal at float32, rotations equal as matrices within
 * 1e-6, names, parents, materials and frames identical. Writing is deterministic (also with
 * the writer's text of values kept each other way), and a
 * second generation (scene -> SMD -> scene -> SMD -> scene) is still equal. Text need not
 * be byte-identical across generations: near a gimbal pole a float32 quaternion fixes rx
 * and rz only to about 1e-7 / cos(ry), so equivalent angles may print differently. */
#include <locale.h>
#include <strings.h>

#include "support/internal.h"
#include "smd/smd_read.h" /* sm_smd_part_min */
#include "util.h"

static bool smd_family(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (!dot) return false;
	return !strcasecmp(dot, ".smd") || !strcasecmp(dot, ".sma") || !strcasecmp(dot, ".phys") || !strcasecmp(dot, ".vta");
}

static smdmx_scene *reread(const test_sink *text, const char *name)
{
	smdmx_error err;
	smdmx_smd_read_options o = { .name = name };
	smdmx_scene *s = smdmx_smd_read_memory(text->data, text->size, &o, &err, NULL);
	if (!s) fail_msg("re-reading the output of %s: %u:%u: %s", name, err.line, err.column, err.message);
	return s;
}

static void round_trip(const char *path, const char *name, size_t *files, size_t *bytes)
{
	smdmx_error err;
	TEST_WARNINGS(warn);
	smdmx_scene *a = smdmx_smd_read_file(path, NULL, &err, &warn);
	if (!a) {
		os_stat st;
		if (!os_stat_path(path, &st)) st.size = 1;
		if (st.size == 0 && err.code == SMDMX_ERROR_EMPTY && err.line == 1) return; /* other/empty.smd */
		fail_msg("%s:%u:%u: %s", name, err.line, err.column, err.message);
	}
	test_assert_warnings_act(&warn, name);
	test_sink t1 = { 0 }, t2 = { 0 };
	if (!smdmx_smd_write(a, test_sink_write, &t1, NULL, &err)) fail_msg("%s: write: %s", name, err.message);
	/* again, and with the values' text kept in caches of two slots and in pools: the same bytes */
	for (int mode = 0; mode <= 2; mode++) {
		test_sink t3 = { 0 };
		sm_smd_value_texts = mode;
		bool ok = smdmx_smd_write(a, test_sink_write, &t3, NULL, &err);
		sm_smd_value_texts = 0;
		if (!ok) fail_msg("%s: write (values' text %d): %s", name, mode, err.message);
		if (t1.size != t3.size || memcmp(t1.data, t3.data, t1.size) != 0)
			fail_msg("%s: output not deterministic (values' text %d)", name, mode);
		free(t3.data);
	}
	smdmx_scene *b = reread(&t1, a->name);
	char diff[512];
	if (!smdmx_scene_compare(a, b, NULL, diff, sizeof(diff), NULL)) fail_msg("%s: round trip differs: %s", name, diff);
	/* names and frame numbers identical */
	assert_string_equal(a->name, b->name);
	for (size_t i = 0; i < a->material_count; i++) assert_string_equal(a->materials[i].name, b->materials[i].name);
	if (!smdmx_smd_write(b, test_sink_write, &t2, NULL, &err)) fail_msg("%s: write: %s", name, err.message);
	smdmx_scene *c = reread(&t2, a->name);
	if (!smdmx_scene_compare(a, c, NULL, diff, sizeof(diff), NULL)) fail_msg("%s: second generation differs: %s", name, diff);
	smdmx_scene_free(c);
	*files += 1;
	*bytes += t1.size;
	free(t1.data);
	free(t2.data);
	smdmx_scene_free(a);
	smdmx_scene_free(b);
}

static void test_corpus_round_trip(void **state)
{
	(void)state;
	/* qc/ holds whole QC projects, their SMD and VTA files in folders below */
	static const char *const dirs[] = { "smd_ref", "smd_anim", "vta", "other", "qc" };
	size_t files = 0, bytes = 0, seen = 0;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		size_t n;
		char **paths = test_corpus_tree(dirs[d], &n);
		for (size_t i = 0; i < n; i++)
			if (smd_family(test_base_name(paths[i])) && test_corpus_sampled(seen++))
				round_trip(paths[i], test_base_name(paths[i]), &files, &bytes);
		test_free_list(paths, n);
	}
	/* The corpus holds 33 readable SMD/VTA files, and 69 more in Valve's SDK sample project
	 * (and one empty file, which is no round trip): of a sample, its share. */
	assert_true(files >= (33 + 69) / test_corpus_sample());
	print_message("round-tripped %zu of %zu corpus files (%zu bytes of SMD written)\n", files, seen, bytes);
}

/* A known corpus file, read at exact values (Blender Source Tools' Cube.vta). */
static void test_corpus_vta_values(void **state)
{
	(void)state;
	char path[4096];
	snprintf(path, sizeof(path), "%s/vta/Artfunkel__BlenderSourceTools__Cube.vta", test_corpus_dir());
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_file(path, NULL, &err, NULL);
	assert_non_null(s);
	assert_int_equal(s->meshes[0].corner_count, 36);
	assert_int_equal(s->flex_shape_count, 1);
	assert_string_equal(s->flex_shapes[0].name, "Key 1");
	assert_int_equal(s->flex_shapes[0].position_count, 18);
	/* vertex 0: (-1,-1,1) -> (-1,-1,2) */
	assert_int_equal(s->flex_shapes[0].position_indices[0], 0);
	assert_true(s->flex_shapes[0].position_deltas[0][2] == 1.0f);
	smdmx_scene_free(s);
}

/* Every corpus file read on several threads, in parts of 256 bytes and of 4 KiB, is the
 * scene (every index in its order), the error and the warnings of one thread. */
static void test_corpus_threads(void **state)
{
	(void)state;
	static const char *const dirs[] = { "smd_ref", "smd_anim", "vta", "other", "qc" };
	size_t files = 0, seen = 0;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		size_t n;
		char **paths = test_corpus_tree(dirs[d], &n);
		for (size_t i = 0; i < n; i++) {
			if (!smd_family(test_base_name(paths[i])) || !test_corpus_sampled(seen++)) continue;
			test_smd_threads_same(paths[i], 256);
			test_smd_threads_same(paths[i], 4096);
			files++;
		}
		test_free_list(paths, n);
	}
	assert_true(files >= (33 + 69) / test_corpus_sample());
	static const unsigned counts[] = TEST_READ_THREADS;
	print_message("read %zu of %zu corpus files on 1 thread and %zu counts more alike\n", files, seen,
	              sizeof(counts) / sizeof(counts[0]));
}

int main(void)
{
	setlocale(LC_ALL, "");
	if (test_corpus_sample() > 1)
		printf("note: a sample of the corpus: every %zuth file (SMDMX_CORPUS_SAMPLE)\n", test_corpus_sample());
	const char *req = getenv("SMDMX_REQUIRE_CORPUS");
	if (!test_have_corpus() && !(req && strcmp(req, "0") != 0)) {
		/* every test here reads the corpus: the whole program is skipped (77 tells meson) */
		printf("skipped: these tests read the corpus, and there is none at %s\n", test_corpus_root());
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus_round_trip),
		cmocka_unit_test(test_corpus_vta_values),
		cmocka_unit_test(test_corpus_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
