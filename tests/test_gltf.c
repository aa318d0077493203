/* glTF 2.0 out (smdmx/gltf.h): the sample arm (its VTA's shape, its wave) as GLB and as glTF
 * with the buffer in a data URI: the GLB's chunks, the JSON's nodes, skin, morph target
 * names and clip, the vertices and weights in the buffer as the scene holds them; weight
 * links past 4 kept strongest and renormalised (or 8 in a second set), said with a count;
 * options refused; the same bytes twice; every allocation failing in turn. The Khronos
 * validator and an independent reader check the files of every corpus model (the cli
 * suite). */
#include <math.h>

#include "util.h"

static smdmx_scene *read_smd(const char *rel)
{
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_file(test_path(rel), NULL, &err, NULL);
	if (!s) fail_msg("%s: %s", rel, err.message);
	return s;
}

/* testdata/sample's arm with its VTA's shape and its wave as a clip. */
static smdmx_scene *arm(void)
{
	smdmx_scene *s = read_smd("testdata/sample/arm.smd");
	smdmx_scene *vta = read_smd("testdata/sample/arm.vta"), *wave = read_smd("testdata/sample/arm_wave.smd");
	smdmx_error err;
	assert_true(smdmx_scene_attach_vta(s, vta, &err, NULL));
	assert_true(smdmx_scene_add_clips(s, wave, &err));
	smdmx_scene_free(vta);
	smdmx_scene_free(wave);
	return s;
}

static uint32_t u32(const char *p)
{
	const unsigned char *b = (const unsigned char *)p;
	return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The GLB of s (options o): its JSON (NUL-ended, malloc'd) and its binary chunk. */
typedef struct glb {
	test_sink file;
	char *json;
	const char *bin;
	size_t bin_size;
} glb;

static void glb_write(const smdmx_scene *s, unsigned max_links, glb *g, smdmx_warnings *w)
{
	memset(g, 0, sizeof(*g));
	smdmx_gltf_write_options o = { .binary = true, .max_links = max_links };
	smdmx_error err;
	if (!smdmx_gltf_write(s, test_sink_write, &g->file, &o, &err, w)) fail_msg("%s", err.message);
	const char *d = g->file.data;
	assert_true(g->file.size >= 20);
	assert_memory_equal(d, "glTF", 4);
	assert_int_equal(u32(d + 4), 2);
	assert_int_equal(u32(d + 8), g->file.size);
	uint32_t json_size = u32(d + 12);
	assert_int_equal(json_size % 4, 0);
	assert_memory_equal(d + 16, "JSON", 4);
	g->json = malloc(json_size + 1);
	memcpy(g->json, d + 20, json_size);
	g->json[json_size] = 0;
	if (20 + json_size < g->file.size) {
		const char *c = d + 20 + json_size;
		assert_memory_equal(c + 4, "BIN\0", 4);
		g->bin = c + 8;
		g->bin_size = u32(c);
		assert_int_equal(g->bin_size % 4, 0);
		assert_int_equal(20 + json_size + 8 + g->bin_size, g->file.size);
	}
}

static void glb_free(glb *g)
{
	free(g->file.data);
	free(g->json);
}

/* The byte offset of accessor k's data, through its buffer view (the writer's layout: an
 * accessor a view, no offset of its own). */
static size_t accessor_offset(const char *json, size_t k)
{
	const char *a = strstr(json, "\"accessors\":[");
	assert_non_null(a);
	for (size_t i = 0; i <= k; i++) {
		a = strstr(a + 1, "{\"bufferView\":");
		assert_non_null(a);
	}
	size_t view = strtoul(a + 14, NULL, 10);
	const char *v = strstr(json, "\"bufferViews\":[");
	assert_non_null(v);
	for (size_t i = 0; i <= view; i++) {
		v = strstr(v + 1, "{\"buffer\":0,\"byteOffset\":");
		assert_non_null(v);
	}
	return strtoul(v + 25, NULL, 10);
}

static void test_arm(void **state)
{
	(void)state;
	smdmx_scene *s = arm();
	TEST_WARNINGS(w);
	glb g;
	glb_write(s, 0, &g, &w);
	/* a root turning Z up to Y up over the skeleton; the skinned mesh beside it */
	assert_non_null(strstr(g.json, "\"nodes\":[{\"name\":\"arm\",\"rotation\":[-0.70710677,0,0,0.70710677],\"children\":[1]},"
	                               "{\"name\":\"upper arm\",\"children\":[2]},{\"name\":\"lower arm\",\"translation\":[10,0,0]},"
	                               "{\"name\":\"arm\",\"mesh\":0,\"skin\":0}]"));
	assert_non_null(strstr(g.json, "\"scenes\":[{\"name\":\"arm\",\"nodes\":[0,3]}]"));
	assert_non_null(strstr(g.json, "\"skins\":[{\"inverseBindMatrices\":"));
	assert_non_null(strstr(g.json, ",\"skeleton\":0,\"joints\":[1,2]}]"));
	/* the shape as a morph target, named; the wave as an animation of its own */
	char names[256];
	snprintf(names, sizeof(names), "\"extras\":{\"targetNames\":[\"%s\"]}", s->flex_shapes[0].name);
	assert_non_null(strstr(g.json, names));
	assert_non_null(strstr(g.json, "\"weights\":[0]"));
	assert_non_null(strstr(g.json, "\"animations\":[{\"name\":\"arm_wave\",\"channels\":["));
	assert_non_null(strstr(g.json, "\"interpolation\":\"LINEAR\""));
	assert_non_null(strstr(g.json, "\"materials\":[{\"name\":\"arm_skin\""));
	/* the vertices, a corner each, and their weights as the scene holds them */
	const smdmx_mesh *m = &s->meshes[0];
	size_t pos = accessor_offset(g.json, 0);
	for (size_t c = 0; c < m->corner_count; c++) {
		float v[3];
		memcpy(v, g.bin + pos + c * 12, 12);
		assert_memory_equal(v, m->positions[m->position_indices[c]], 12);
	}
	assert_non_null(strstr(g.json, "\"JOINTS_0\":3,\"WEIGHTS_0\":4"));
	size_t joints = accessor_offset(g.json, 3), weights = accessor_offset(g.json, 4);
	for (size_t c = 0; c < m->corner_count; c++) {
		uint32_t p = m->position_indices[c];
		uint16_t j[4];
		float wt[4];
		memcpy(j, g.bin + joints + c * 8, 8);
		memcpy(wt, g.bin + weights + c * 16, 16);
		float sum = 0;
		for (int k = 0; k < 4; k++) sum += wt[k];
		assert_true(fabsf(sum - 1) < 1e-6f);
		for (uint32_t k = m->weight_offsets[p]; k < m->weight_offsets[p + 1]; k++) {
			bool found = false;
			for (int q = 0; q < 4; q++) found |= j[q] == m->weights[k].joint && wt[q] == m->weights[k].weight;
			if (!found) fail_msg("corner %zu: link to joint %u (%g) not in the buffer", c, m->weights[k].joint, m->weights[k].weight);
		}
	}
	/* nothing the arm holds is lost (its SMD and VTA hold no controller) */
	assert_int_equal(w.count, 0);
	glb_free(&g);
	smdmx_scene_free(s);
}

/* glTF JSON: the buffer inside it, the same bytes each time, and the GLB's JSON but for it. */
static void test_text(void **state)
{
	(void)state;
	smdmx_scene *s = arm();
	test_sink a = { 0 }, b = { 0 };
	smdmx_error err;
	assert_true(smdmx_gltf_write(s, test_sink_write, &a, NULL, &err, NULL));
	assert_true(smdmx_gltf_write(s, test_sink_write, &b, NULL, &err, NULL));
	assert_int_equal(a.size, b.size);
	assert_memory_equal(a.data, b.data, a.size);
	assert_memory_equal(a.data, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"smdmx " SMDMX_VERSION_STRING "\"}", 50);
	assert_memory_equal(a.data + a.size - 2, "}\n", 2);
	char *text = malloc(a.size + 1);
	memcpy(text, a.data, a.size);
	text[a.size] = 0;
	const char *uri = strstr(text, ",\"uri\":\"data:application/octet-stream;base64,");
	assert_non_null(uri);
	glb g;
	glb_write(s, 0, &g, NULL);
	/* the GLB's JSON is the text's up to the URI (then "}]}" and its padding) */
	size_t head = (size_t)(uri - text);
	assert_memory_equal(g.json, text, head);
	assert_memory_equal(g.json + head, "}]}", 3);
	/* the base64 is the binary chunk's bytes */
	const char *p = uri + strlen(",\"uri\":\"data:application/octet-stream;base64,");
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = 0;
	for (; *p != '"'; p += 4)
		for (int k = 0; k < 3; k++) {
			if (p[k + 1] == '=') break;
			unsigned v = (unsigned)(strchr(b64, p[k]) - b64) << (2 + 2 * k) & 0xFF;
			v |= (unsigned)(strchr(b64, p[k + 1]) - b64) >> (4 - 2 * k);
			assert_int_equal((unsigned char)g.bin[n++], v & 0xFF);
		}
	assert_true(n <= g.bin_size && n + 3 >= g.bin_size);
	free(text);
	free(a.data);
	free(b.data);
	glb_free(&g);
	smdmx_scene_free(s);
}

/* A vertex of 6 weight links: its 4 strongest, renormalised, said once; 8 keeps them all in
 * a second set. */
static void test_links(void **state)
{
	(void)state;
	char t[2048];
	size_t n = (size_t)snprintf(t, sizeof(t), "version 1\nnodes\n");
	for (int j = 0; j < 6; j++) n += (size_t)snprintf(t + n, sizeof(t) - n, "%d \"b%d\" -1\n", j, j);
	n += (size_t)snprintf(t + n, sizeof(t) - n, "end\nskeleton\ntime 0\n");
	for (int j = 0; j < 6; j++) n += (size_t)snprintf(t + n, sizeof(t) - n, "%d 0 0 0 0 0 0\n", j);
	n += (size_t)snprintf(t + n, sizeof(t) - n,
	                      "end\ntriangles\nm\n0 0 0 0 0 0 1 0 0 6 0 0.1 1 0.3 2 0.05 3 0.25 4 0.2 5 0.1\n"
	                      "0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\nend\n");
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(t, n, NULL, &err, NULL);
	if (!s) fail_msg("%s", err.message);
	TEST_WARNINGS(w);
	glb g;
	glb_write(s, 0, &g, &w);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_LINKS_TRUNCATED);
	assert_int_equal(w.data[0].count, 1);
	assert_string_equal(w.data[0].message,
	                    "glTF holds 4 weight links a vertex here: 1 vertices kept their 4 strongest, renormalised; use --links 8 to keep 8");
	assert_null(strstr(g.json, "JOINTS_1"));
	uint16_t j[4];
	float wt[4];
	assert_non_null(strstr(g.json, "\"JOINTS_0\":3,\"WEIGHTS_0\":4}"));
	memcpy(j, g.bin + accessor_offset(g.json, 3), 8);
	memcpy(wt, g.bin + accessor_offset(g.json, 4), 16);
	const uint16_t want_j[4] = { 1, 3, 4, 0 };
	assert_memory_equal(j, want_j, 8);
	const double kept = 0.3 + 0.25 + 0.2 + 0.1; /* the strongest four: b1, b3, b4, then b0 (b0 and b5 tie: the lower) */
	assert_float_equal(wt[0], 0.3 / kept, 1e-7);
	assert_float_equal(wt[3], 0.1 / kept, 1e-7);
	glb_free(&g);
	glb_write(s, 8, &g, &w);
	assert_int_equal(w.count, 0);
	assert_non_null(strstr(g.json, "\"JOINTS_0\":3,\"WEIGHTS_0\":4,\"JOINTS_1\":5,\"WEIGHTS_1\":6}"));
	uint16_t j8[4];
	memcpy(j8, g.bin + accessor_offset(g.json, 5), 8);
	const uint16_t want_j8[4] = { 5, 2, 0, 0 };
	assert_memory_equal(j8, want_j8, 8);
	glb_free(&g);
	smdmx_scene_free(s);
}

/* What the writer changes to fit glTF is counted: a zero normal, one not unit length, a name
 * that is not UTF-8 (Latin-1 bytes: é written as its two UTF-8 bytes), a corrective shape. */
static void test_fitted(void **state)
{
	(void)state;
	smdmx_scene *s = arm();
	smdmx_mesh *m = &s->meshes[0];
	assert_true(m->normal_count >= 2);
	memset(m->normals[0], 0, sizeof(m->normals[0])); /* normal 0 zero, normal 1 twice too long */
	for (int k = 0; k < 3; k++) m->normals[1][k] *= 2;
	size_t zero = 0, scaled = 0; /* the corners of each */
	for (size_t c = 0; c < m->corner_count; c++) zero += m->normal_indices[c] == 0, scaled += m->normal_indices[c] == 1;
	s->joints[1].name = smdmx_scene_strdup(s, "lower \xe9", NULL);
	s->flex_shapes[0].corrective = true;
	TEST_WARNINGS(w);
	glb g;
	glb_write(s, 0, &g, &w);
	assert_non_null(strstr(g.json, "{\"name\":\"lower \xc3\xa9\""));
	size_t seen = 0;
	for (size_t i = 0; i < w.count; i++) {
		if (w.data[i].code == SMDMX_WARNING_CORRECTIVE_PLAIN) assert_int_equal(w.data[i].count, 1), seen++;
		if (w.data[i].code == SMDMX_WARNING_NORMALS_ZERO) assert_int_equal(w.data[i].count, zero), seen++;
		if (w.data[i].code == SMDMX_WARNING_NORMALS_SCALED) assert_int_equal(w.data[i].count, scaled), seen++;
		if (w.data[i].code == SMDMX_WARNING_NAMES_LATIN1) assert_int_equal(w.data[i].count, 1), seen++;
	}
	assert_int_equal(seen, 4);
	assert_int_equal(w.count, 4); /* each said apart, nothing else */
	assert_true(zero > 0 && scaled > 0);
	glb_free(&g);
	smdmx_scene_free(s);
}

static void test_refused(void **state)
{
	(void)state;
	smdmx_scene *s = read_smd("testdata/sample/arm.smd");
	smdmx_error err;
	test_sink out = { 0 };
	smdmx_gltf_write_options o = { .max_links = 5 };
	assert_false(smdmx_gltf_write(s, test_sink_write, &out, &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "--links is 4 or 8, not 5");
	assert_int_equal(out.size, 0);
	assert_false(smdmx_gltf_write(s, NULL, &out, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_false(smdmx_gltf_write(NULL, test_sink_write, &out, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	out.fail_at = 100; /* a write that fails: said */
	assert_false(smdmx_gltf_write(s, test_sink_write, &out, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_IO);
	free(out.data);
	smdmx_scene_free(s);
}

/* Every allocation failing in turn: out of memory, nothing left, until the file is written. */
static void test_out_of_memory(void **state)
{
	(void)state;
	smdmx_scene *s = arm();
	size_t failures = 0;
	for (size_t n = 1;; n++) {
		test_counter c = { 0, 0, 0 };
		smdmx_gltf_write_options o = { .binary = (n & 1) != 0, .allocator = test_allocator(&c) };
		o.allocator.fail_after = n;
		test_sink out = { 0 };
		smdmx_error err;
		TEST_WARNINGS(w);
		bool ok = smdmx_gltf_write(s, test_sink_write, &out, &o, &err, &w);
		smdmx_warnings_free(&w);
		free(out.data);
		if (c.live != 0) fail_msg("allocation %zu failing: %lld bytes left", n, c.live);
		if (ok) break;
		if (err.code != SMDMX_ERROR_OUT_OF_MEMORY) fail_msg("allocation %zu failing: %s", n, err.message);
		failures++;
		if (n > 100000) fail_msg("no end to the sweep");
	}
	print_message("allocations failed in turn: %zu\n", failures);
	assert_true(failures > 20);
	smdmx_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_fitted),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
