/* Every layer against every small file: each file in testdata/ (SMD, VTA, keyvalues2 and,
 * written from those, binary DMX) and the small binary files of the corpus is
 *   - cut at every byte and read: a clean result or a clean error, never a crash;
 *   - read with its 1st, 2nd, ... allocation failing: out of memory, nothing leaked;
 * and what reads goes through every later layer the same way, each allocation failing in
 * turn: the model lift (datamodel to scene), the model lowering (scene to datamodel), the
 * SMD, VTA, keyvalues2 and binary writers into memory, and the writers into files, which
 * must leave no file behind when they fail; a DMX's places (where each element stands). */
#define _DEFAULT_SOURCE
#include <locale.h>

#include "util.h"
#include "qc_mem.h"

/* ---- one layer, every allocation failing in turn ----------------------------------------- */

enum { MAX_ALLOCATIONS = 200000 };

/* f with every allocation count in turn: each attempt either fails with out of memory or
 * ends as f ends with no failure injected (a success, or the same error at the same
 * place: the bad files fail on their own once enough allocations succeed), and none leaks.
 * Returns the count at which it ended. */
typedef bool (*attempt_fn)(void *ctx, smdmx_allocator allocator, smdmx_error *err);

static size_t attempts, cuts;
static bool sweep_ok; /* whether the last sweep's f succeeds without failures injected */

static size_t sweep(const char *what, const char *file, attempt_fn f, void *ctx)
{
	smdmx_error want;
	memset(&want, 0, sizeof(want));
	bool want_ok = f(ctx, (smdmx_allocator){ 0 }, &want);
	size_t n;
	for (n = 1; n < MAX_ALLOCATIONS; n++) {
		test_counter c = { 0, 0, 0 };
		smdmx_allocator a = test_allocator(&c);
		a.fail_after = n;
		smdmx_error err;
		memset(&err, 0, sizeof(err));
		bool ok = f(ctx, a, &err);
		attempts++;
		if (c.live != 0) fail_msg("%s of %s: %lld bytes leaked failing allocation %zu", what, file, c.live, n);
		if (ok != want_ok && ok) fail_msg("%s of %s succeeded failing allocation %zu, but fails without", what, file, n);
		if (ok) break;
		if (err.code == SMDMX_ERROR_OUT_OF_MEMORY) continue;
		if (!want_ok && err.code == want.code && err.line == want.line && err.column == want.column) break;
		fail_msg("%s of %s, allocation %zu failing: %s (%s), not out of memory", what, file, n,
		         smdmx_error_code_name(err.code), err.message);
	}
	if (n == MAX_ALLOCATIONS) fail_msg("%s of %s never ended", what, file);
	sweep_ok = want_ok;
	return n;
}

/* ---- the attempts ------------------------------------------------------------------------ */

typedef struct bytes {
	const char *data;
	size_t size;
} bytes;

static bool read_smd(void *ctx, smdmx_allocator a, smdmx_error *err)
{
	bytes *b = ctx;
	smdmx_smd_read_options o = { .allocator = a };
	TEST_WARNINGS(w); /* its room too through the allocator */
	smdmx_scene *s = smdmx_smd_read_memory(b->data, b->size, &o, err, &w);
	smdmx_scene_free(s);
	return s != NULL;
}

static bool read_dmx(void *ctx, smdmx_allocator a, smdmx_error *err)
{
	bytes *b = ctx;
	smdmx_dmx_read_options o = { .allocator = a };
	TEST_WARNINGS(w);
	smdmx_dm *dm = smdmx_dmx_read_memory(b->data, b->size, &o, err, &w);
	smdmx_dm_free(dm);
	return dm != NULL;
}

/* Hooks whose allocations fail from the armed one on (0: none), counting what is live. */
typedef struct armed {
	long long live;
	size_t calls, fail_at;
} armed;

static void *armed_alloc(void *user, size_t size)
{
	armed *m = user;
	if (m->fail_at && ++m->calls >= m->fail_at) return NULL;
	void *p = malloc(size);
	if (p) m->live += (long long)size;
	return p;
}

static void *armed_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
	armed *m = user;
	if (m->fail_at && ++m->calls >= m->fail_at) return NULL;
	void *p = realloc(ptr, new_size);
	if (p) m->live += (long long)new_size - (long long)old_size;
	return p;
}

static void armed_free(void *user, void *ptr, size_t size)
{
	armed *m = user;
	if (ptr) m->live -= (long long)size;
	free(ptr);
}

static size_t places_ran_out; /* attempts whose places ran out */

/* A DMX's places (smdmx_dm_places_new, in the datamodel's memory: a keyvalues2 file's lines,
 * a binary file's ways from the root, as smdmx check places its findings), each allocation
 * failing in turn once the datamodel is read: NULL and nothing left, until every element is
 * placed. */
static void sweep_places(const char *file, const char *data, size_t size)
{
	armed m = { 0, 0, 0 };
	smdmx_dmx_read_options o = { .allocator = { armed_alloc, armed_realloc, armed_free, &m, 0, 0 } };
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(data, size, &o, &err, NULL);
	if (!dm) fail_msg("%s: %s", file, err.message);
	bool text = strcmp(dm->encoding, "binary") != 0 && strcmp(dm->encoding, "binary_seqids") != 0;
	for (size_t k = 1;; k++) {
		long long before = m.live;
		m.calls = 0;
		m.fail_at = k;
		smdmx_dm_places *p = smdmx_dm_places_new(dm, text ? data : NULL, text ? size : 0);
		m.fail_at = 0;
		if (!p) {
			if (m.live != before) fail_msg("%s: places failing at allocation %zu left %lld bytes", file, k, m.live - before);
			places_ran_out++;
			if (k > 100000) fail_msg("%s: no end to the places' sweep", file);
			continue;
		}
		for (uint32_t e = 0; e < dm->element_count; e++) {
			uint32_t line = 0, column = 0;
			char path[256] = "";
			smdmx_dm_place(p, e, &line, &column, path, sizeof(path));
			if (!line && !path[0]) fail_msg("%s: element %u has no place", file, e);
		}
		smdmx_dm_places_free(p);
		if (m.live != before) fail_msg("%s: places freed left %lld bytes", file, m.live - before);
		break;
	}
	smdmx_dm_free(dm);
	if (m.live != 0) fail_msg("%s: %lld bytes left", file, m.live);
}

static bool lift(void *ctx, smdmx_allocator a, smdmx_error *err)
{
	smdmx_model_options o = { .allocator = a };
	TEST_WARNINGS(w);
	smdmx_scene *s = smdmx_model_to_scene(ctx, &o, err, &w);
	smdmx_scene_free(s);
	return s != NULL;
}

static bool lower(void *ctx, smdmx_allocator a, smdmx_error *err)
{
	smdmx_model_options o = { .allocator = a };
	TEST_WARNINGS(w);
	smdmx_dm *dm = smdmx_model_from_scene(ctx, &o, err, &w);
	smdmx_dm_free(dm);
	return dm != NULL;
}

typedef struct smd_out {
	const smdmx_scene *scene;
	smdmx_smd_write_kind kind;
	const char *path; /* NULL: into memory */
} smd_out;

static bool write_smd(void *ctx, smdmx_allocator a, smdmx_error *err)
{
	smd_out *w = ctx;
	smdmx_smd_write_options o = { .allocator = a, .kind = w->kind };
	if (w->path) return smdmx_smd_write_file(w->scene, w->path, &o, err);
	test_sink s = { 0 };
	bool ok = smdmx_smd_write(w->scene, test_sink_write, &s, &o, err);
	free(s.data);
	return ok;
}

typedef struct dmx_out {
	smdmx_dm *dm;
	const char *encoding;
	int version;
	const char *path;
} dmx_out;

static bool write_dmx(void *ctx, smdmx_allocator a, smdmx_error *err)
{
	dmx_out *w = ctx;
	smdmx_dmx_write_options o = { .allocator = a, .encoding = w->encoding, .encoding_version = w->version };
	if (w->path) return smdmx_dmx_write_file(w->dm, w->path, &o, err);
	test_sink s = { 0 };
	bool ok = smdmx_dmx_write(w->dm, test_sink_write, &s, &o, err);
	free(s.data);
	return ok;
}

/* ---- the layers after reading ------------------------------------------------------------ */

static char out_dir[400];

/* What the output directory holds besides `keep` (the one file a success wrote). */
static size_t stray_files(const char *keep)
{
	os_dir *d = os_dir_open(out_dir);
	size_t n = 0;
	const char *e;
	while (d && (e = os_dir_next(d)))
		if (!keep || strcmp(e, keep)) n++;
	os_dir_close(d);
	return n;
}

static void sweep_file_writer(const char *what, const char *file, attempt_fn f, void *ctx, const char *name)
{
	sweep(what, file, f, ctx);
	/* every failing attempt left nothing; a success wrote exactly the output */
	if (stray_files(sweep_ok ? name : NULL) != 0) fail_msg("%s of %s left a file behind", what, file);
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	if (sweep_ok && !test_exists(path)) fail_msg("%s of %s: no output", what, file);
	os_remove(path);
}

static void sweep_dm_writers(smdmx_dm *dm, const char *file)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/out.dmx", out_dir);
	dmx_out kv2 = { dm, "keyvalues2", 4, NULL }, bin = { dm, "binary", 9, NULL }, bin5 = { dm, "binary", 5, NULL };
	sweep("keyvalues2 writing", file, write_dmx, &kv2);
	sweep("binary 9 writing", file, write_dmx, &bin);
	bin5.path = path;
	sweep_file_writer("binary 5 writing to a file", file, write_dmx, &bin5, "out.dmx");
	kv2.path = path;
	sweep_file_writer("keyvalues2 writing to a file", file, write_dmx, &kv2, "out.dmx");
}

/* A scene against itself: the diff by meaning (with a tolerance: the near matching too),
 * strict, and the comparison; each finds nothing, or fails (for memory, or as it fails
 * without an allocation failing: a clip too long to compare). */
typedef struct diff_case {
	const smdmx_scene *s;
	double tolerance;
	bool strict, compare;
} diff_case;

static void first_difference(void *user, const char *message)
{
	char *first = user;
	if (!*first) snprintf(first, 300, "%s", message);
}

static bool diff_self(void *ctx, smdmx_allocator a, smdmx_error *err)
{
	const diff_case *d = ctx;
	smdmx_compare_options o;
	smdmx_diff_options(NULL, NULL, &o);
	o.value_tolerance = d->tolerance;
	o.strict = d->strict;
	o.allocator = a;
	if (d->compare) {
		char why[200];
		bool same = smdmx_scene_compare(d->s, d->s, &o, why, sizeof(why), err);
		if (!same && err->code == SMDMX_ERROR_NONE) fail_msg("a scene differs from itself: %s", why);
		if (!same && err->code == SMDMX_ERROR_OUT_OF_MEMORY && strcmp(why, "out of memory") != 0)
			fail_msg("the comparison out of memory says '%s'", why);
		return same;
	}
	char first[300] = "";
	size_t n = smdmx_scene_diff(d->s, d->s, &o, first_difference, first, err);
	if (n != 0 && n != SIZE_MAX) fail_msg("a scene has %zu differences from itself: %s", n, first);
	if ((n == SIZE_MAX) != (err->code != SMDMX_ERROR_NONE)) fail_msg("the diff's count %zu, its error '%s'", n, err->message);
	return n == 0;
}

static void sweep_scene_layers(const smdmx_scene *s, const char *file)
{
	diff_case dc[] = { { s, 0, false, false }, { s, 0.01, false, false }, { s, 0, true, false }, { s, 0, false, true } };
	const char *dn[] = { "diff", "diff within 0.01", "strict diff", "comparison" };
	for (size_t i = 0; i < 4; i++) sweep(dn[i], file, diff_self, &dc[i]);
	char path[512];
	snprintf(path, sizeof(path), "%s/out.smd", out_dir);
	smd_out smd = { s, SMDMX_SMD_WRITE_AUTO, NULL };
	sweep("SMD writing", file, write_smd, &smd);
	if (s->mesh_count) {
		smd_out vta = { s, SMDMX_SMD_WRITE_VTA, NULL };
		sweep("VTA writing", file, write_smd, &vta);
	}
	smd.path = path;
	sweep_file_writer("SMD writing to a file", file, write_smd, &smd, "out.smd");
	sweep("model lowering", file, lower, (void *)s);
	smdmx_error err;
	smdmx_dm *dm = smdmx_model_from_scene(s, NULL, &err, NULL);
	if (!dm) fail_msg("%s: model lowering failed: %s", file, err.message);
	sweep_dm_writers(dm, file);
	smdmx_dm_free(dm);
}

/* ---- one input --------------------------------------------------------------------------- */

static bool is_dmx(const char *data, size_t size)
{
	return size >= 4 && !memcmp(data, "<!--", 4);
}

/* Every cut of the input reads to a result or a clean error; a DMX that reads is lifted,
 * and a scene that results is valid. */
static void cut_everywhere(const char *file, const char *data, size_t size, bool dmx)
{
	for (size_t n = 0; n <= size; n++) {
		char *cut = malloc(n ? n : 1); /* exact size: ASan sees any read past the end */
		memcpy(cut, data, n);
		cuts++;
		smdmx_error err;
		memset(&err, 0, sizeof(err));
		if (dmx) {
			smdmx_dm *dm = smdmx_dmx_read_memory(cut, n, NULL, &err, NULL);
			if (dm) {
				smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, NULL);
				if (s && !smdmx_scene_validate(s, &err)) fail_msg("%s cut at %zu: lifted an invalid scene: %s", file, n, err.message);
				if (!s && (err.code == SMDMX_ERROR_NONE || !err.message[0])) fail_msg("%s cut at %zu: a lift failure without a message", file, n);
				smdmx_scene_free(s);
				smdmx_dm_free(dm);
			} else if (err.code == SMDMX_ERROR_NONE || !err.message[0]) {
				fail_msg("%s cut at %zu: a failure without a message", file, n);
			}
		} else {
			smdmx_scene *s = smdmx_smd_read_memory(cut, n, NULL, &err, NULL);
			if (s) {
				if (!smdmx_scene_validate(s, &err)) fail_msg("%s cut at %zu: an invalid scene: %s", file, n, err.message);
				smdmx_scene_free(s);
			} else if (err.code == SMDMX_ERROR_NONE || err.line < 1 || !err.message[0]) {
				fail_msg("%s cut at %zu: a failure without a position or message", file, n);
			}
		}
		free(cut);
	}
}

static size_t inputs_swept;

static void sweep_input(const char *file, const char *data, size_t size)
{
	bool dmx = is_dmx(data, size);
	bytes b = { data, size };
	cut_everywhere(file, data, size, dmx);
	sweep(dmx ? "DMX reading" : "SMD reading", file, dmx ? read_dmx : read_smd, &b);
	smdmx_error err;
	inputs_swept++;
	if (!dmx) {
		smdmx_scene *s = smdmx_smd_read_memory(data, size, NULL, &err, NULL);
		if (!s) return; /* testdata/bad: the cuts and the reader's failures are its layers */
		sweep_scene_layers(s, file);
		smdmx_scene_free(s);
		return;
	}
	smdmx_dm *dm = smdmx_dmx_read_memory(data, size, NULL, &err, NULL);
	if (!dm) return;
	sweep_places(file, data, size);
	sweep_dm_writers(dm, file);
	smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, NULL);
	if (s) {
		sweep("model lift", file, lift, dm);
		sweep_scene_layers(s, file);
		smdmx_scene_free(s);
	}
	/* the same datamodel as binary: the binary reader's sweep over our own files */
	if (strcmp(dm->encoding, "binary") != 0) {
		test_sink bin = { 0 };
		smdmx_dmx_write_options o = { .encoding = "binary", .encoding_version = 5 };
		if (smdmx_dmx_write(dm, test_sink_write, &bin, &o, &err)) {
			char name[600];
			snprintf(name, sizeof(name), "%s (as binary 5)", file);
			bytes bb = { bin.data, bin.size };
			cut_everywhere(name, bin.data, bin.size, true);
			sweep("DMX reading", name, read_dmx, &bb);
			inputs_swept++;
		}
		free(bin.data);
	}
	smdmx_dm_free(dm);
}

/* Every file below a testdata folder, in name order. */
static void sweep_folder(const char *rel)
{
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/%s", SMDMX_SOURCE_ROOT, rel);
	size_t n;
	char **names = test_list_dir(dir, &n);
	for (size_t i = 0; i < n; i++) {
		size_t size = 0;
		char *data = test_slurp(names[i], &size);
		if (data && size <= 64 * 1024) sweep_input(names[i], data, size);
		free(data);
	}
	test_free_list(names, n);
}

static void test_smd_files(void **state)
{
	(void)state;
	sweep_folder("testdata/ok");
	sweep_folder("testdata/sample");
	sweep_folder("testdata/bad");
}

static void test_dmx_files(void **state)
{
	(void)state;
	sweep_folder("testdata/kv2/ok");
	sweep_folder("testdata/kv2/bad");
	sweep_folder("testdata/model");
	print_message("the places of a DMX ran out %zu times, the reading done\n", places_ran_out);
	assert_true(places_ran_out > 0);
}

/* Binary files other tools wrote (srctools, Blender Source Tools), small enough to sweep. */
static void test_corpus_binary(void **state)
{
	(void)state;
	static const char *const small[] = {
		"dmx_binary/TeamSpen210__srctools__test_export_regression_binary_v1_.dmx",
		"dmx_binary/TeamSpen210__srctools__binary_v2.dmx",
		"dmx_binary/TeamSpen210__srctools__test_export_regression_binary_v3_.dmx",
		"dmx_binary/TeamSpen210__srctools__binary_v4.dmx",
		"dmx_binary/TeamSpen210__srctools__binary_v5.dmx",
		"dmx_binary/Artfunkel__BlenderSourceTools__X_Axis.dmx",
		"dmx_binary/Artfunkel__BlenderSourceTools__Cube_NoArmature_Cube.dmx",
	};
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		size_t size = 0;
		char *data = test_slurp(test_corpus_path(small[i]), &size);
		if (!data) fail_msg("corpus file %s is missing", test_corpus_path(small[i]));
		sweep_input(small[i], data, size);
		free(data);
	}
}


/* ---- QC ---------------------------------------------------------------------------------------- */

typedef struct qc_ctx {
	qc_mem mem;
} qc_ctx;

static bool read_qc(void *ctx, smdmx_allocator a, smdmx_error *err)
{
	qc_ctx *c = ctx;
	smdmx_qc_read_options o = qc_mem_options(&c->mem);
	o.allocator = a;
	TEST_WARNINGS(w);
	smdmx_qc *qc = smdmx_qc_read_file(c->mem.files[0].path, &o, err, &w);
	bool ok = qc != NULL;
	/* and everything edited, written back */
	if (ok && qc->model_count && qc->ref_count) {
		ok = smdmx_qc_rename(qc, 0, "x.dmx", err) && smdmx_qc_remove_lines(qc, 0, SMDMX_QC_LINES_FLEX, err) &&
		     smdmx_qc_append_to_model(qc, 0, "\tnoautodmxrules\n", err);
		for (uint32_t f = 0; ok && f < qc->file_count; f++) {
			test_sink t = { 0 };
			ok = smdmx_qc_write(qc, f, test_sink_write, &t, err);
			free(t.data);
		}
	}
	smdmx_qc_free(qc);
	return ok;
}

/* The face: SMD, VTA and QC read, the rig applied, and written back as QC lines. */
static bool face_rig(void *ctx, smdmx_allocator a, smdmx_error *err)
{
	(void)ctx;
	smdmx_smd_read_options ro = { .allocator = a };
	smdmx_qc_read_options qo = { .allocator = a };
	TEST_WARNINGS(w);
	smdmx_scene *s = smdmx_smd_read_file(test_path("testdata/qc/face/face.smd"), &ro, err, NULL);
	smdmx_scene *v = s ? smdmx_smd_read_file(test_path("testdata/qc/face/face.vta"), &ro, err, NULL) : NULL;
	smdmx_qc *qc = v ? smdmx_qc_read_file(test_path("testdata/qc/face/face.qc"), &qo, err, NULL) : NULL;
	bool ok = qc && smdmx_scene_attach_vta(s, v, err, &w) && smdmx_qc_apply_rig(qc, 0, s, NULL, err, &w) &&
	          smdmx_qc_apply_attachments(qc, s, err, &w);
	char *lines = NULL, *atts = NULL;
	ok = ok && smdmx_qc_from_scene(s, "face.vta", &lines, &atts, err, &w);
	smdmx_qc_text_free(lines);
	smdmx_qc_text_free(atts);
	smdmx_qc_free(qc);
	smdmx_scene_free(v);
	smdmx_scene_free(s);
	return ok;
}

static void test_qc_files(void **state)
{
	(void)state;
	static const char *const qcs[] = { "testdata/qc/face/face.qc", "testdata/qc/face/face_flexes.qci" };
	size_t n0 = 0, n1 = 0;
	char *face = test_slurp(test_path(qcs[0]), &n0), *flexes = test_slurp(test_path(qcs[1]), &n1);
	assert_non_null(face);
	assert_non_null(flexes);
	for (size_t which = 0; which < 2; which++) {
		const char *data = which ? flexes : face;
		size_t size = which ? n1 : n0;
		/* every cut of the one file, the other whole */
		for (size_t n = 0; n <= size; n++) {
			char *cut = malloc(n ? n : 1);
			memcpy(cut, data, n);
			qc_mem_file files[4] = {
				{ "/f/face.qc", which ? face : cut, which ? n0 : n },
				{ "/f/face_flexes.qci", which ? cut : flexes, which ? n : n1 },
				{ "/f/face.smd", "x", 0 },
				{ "/f/face.vta", "x", 0 },
			};
			if (!files[0].size) files[0] = (qc_mem_file){ "/f/face.qc", "", 0 };
			if (!files[1].size) files[1] = (qc_mem_file){ "/f/face_flexes.qci", "", 0 };
			qc_ctx c = { { files, 4 } };
			smdmx_error err;
			memset(&err, 0, sizeof(err));
			cuts++;
			smdmx_qc_read_options o = qc_mem_options(&c.mem);
			smdmx_qc *qc = smdmx_qc_read_file("/f/face.qc", &o, &err, NULL);
			if (!qc && (err.code == SMDMX_ERROR_NONE || !err.message[0] || err.line < 1))
				fail_msg("%s cut at %zu: a failure without a position or message (%s)", qcs[which], n, err.message);
			smdmx_qc_free(qc);
			free(cut);
		}
	}
	qc_mem_file files[4] = { { "/f/face.qc", face, n0 }, { "/f/face_flexes.qci", flexes, n1 }, { "/f/face.smd", "x", 0 },
		                     { "/f/face.vta", "x", 0 } };
	qc_ctx c = { { files, 4 } };
	sweep("QC reading and editing", qcs[0], read_qc, &c);
	sweep("QC rig", qcs[0], face_rig, NULL);
	inputs_swept += 2;
	free(face);
	free(flexes);
}

int main(void)
{
	setlocale(LC_ALL, "");
	char *dir = test_temp_path("sweeps");
	if (!os_mkdir(dir)) return 1;
	snprintf(out_dir, sizeof(out_dir), "%s", dir);
	free(dir);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smd_files),
		cmocka_unit_test(test_dmx_files),
		cmocka_unit_test(test_corpus_binary),
		cmocka_unit_test(test_qc_files),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	printf("swept %zu inputs: %zu cuts, %zu attempts with an allocation failing\n", inputs_swept, cuts, attempts);
	os_rmdir(out_dir);
	return rc;
}
