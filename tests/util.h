/* Helpers shared by the test programs. */
#ifndef SMDMX_TEST_UTIL_H
#define SMDMX_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <locale.h>

#include "platform/os.h"
#include "smdmx/smdmx.h"

#ifndef SMDMX_SOURCE_ROOT
#error "SMDMX_SOURCE_ROOT must be defined by the build"
#endif

/* The thread counts a reading (TEST_READ_THREADS) or a writing (TEST_WRITE_THREADS) is
 * compared at, beside one thread. On Windows two of them: its tests run under Wine, where a
 * thread's start costs milliseconds (the keyvalues2 test was 68 s of CI's Wine suite, nearly
 * all of it thread starts). Which parts a count makes is the same code on every system; the
 * Linux runs, ThreadSanitizer's among them, compare every count. */
#ifdef _WIN32
#define TEST_READ_THREADS { 2, 5 }
#define TEST_WRITE_THREADS { 2, 5 }
#else
#define TEST_READ_THREADS { 2, 3, 5, 8 }
#define TEST_WRITE_THREADS { 2, 3, 5 }
#endif

/* A call's warnings, started empty and given back when the block ends (a failed check's jump
 * leaves them to the process's end). */
static inline void test_warnings_done(smdmx_warnings *w)
{
	smdmx_warnings_free(w);
}
#define TEST_WARNINGS(name) smdmx_warnings name __attribute__((cleanup(test_warnings_done))) = { 0 }

/* Whether a file name ends in ext (as written: ".smd"). */
static inline bool test_ends_with(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);
	return n >= e && strcmp(name + n - e, ext) == 0;
}

/* Made test files are written in the files' own syntax, '.' for the decimal point, whatever
 * locale the suite runs under (it also runs under a comma-decimal one): printf's numbers
 * between these two calls use the C locale. */
static inline char *test_c_numbers_begin(void)
{
	const char *now = setlocale(LC_NUMERIC, NULL);
	size_t n = now ? strlen(now) + 1 : 0;
	char *saved = n ? malloc(n) : NULL;
	if (saved) memcpy(saved, now, n);
	setlocale(LC_NUMERIC, "C");
	return saved;
}
static inline void test_c_numbers_end(char *saved)
{
	if (saved) setlocale(LC_NUMERIC, saved);
	free(saved);
}

/* Reads a whole file into malloc'd memory (NULL when it cannot be opened). */
static inline char *test_slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n == cap) buf = realloc(buf, cap *= 2);
		size_t k = fread(buf + n, 1, cap - n, f);
		if (k == 0) break;
		n += k;
	}
	fclose(f);
	*size = n;
	return buf;
}

static inline char *test_path(const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s/%s", SMDMX_SOURCE_ROOT, rel);
	return buf;
}

/* The corpus of real files beside the clone (SMDMX_CORPUS overrides), without checking that
 * it is there. */
static inline const char *test_corpus_root(void)
{
	const char *c = getenv("SMDMX_CORPUS");
	return c ? c : SMDMX_SOURCE_ROOT "/../shared/corpus";
}

static inline bool test_have_corpus(void)
{
	os_stat st;
	bool d = os_stat_path(test_corpus_root(), &st) && st.kind == OS_DIRECTORY;
	return d;
}

/* The corpus folder, for a test that reads it. A clone downloaded alone has no corpus: the
 * test is skipped, and says so. SMDMX_REQUIRE_CORPUS=1 (CI, where the corpus is always
 * beside the clone) makes a missing corpus a failure, so that a wrong path cannot turn the
 * corpus tests into skips unnoticed. */
static inline const char *test_corpus_dir(void)
{
	if (!test_have_corpus()) {
		const char *req = getenv("SMDMX_REQUIRE_CORPUS");
		if (req && strcmp(req, "0") != 0) fail_msg("the corpus %s is missing (SMDMX_REQUIRE_CORPUS is set)", test_corpus_root());
		print_message("skipped: this test reads the corpus, and there is none at %s\n", test_corpus_root());
		skip();
	}
	return test_corpus_root();
}

/* SMDMX_CORPUS_SAMPLE=N (CI's sanitizer runs, where every step costs several times more, as
 * cli_lib.sh's corpus_files): a test over many corpus files takes every Nth of them
 * (test_corpus_sampled), from every folder alike. 1 (every file) without it. */
static inline size_t test_corpus_sample(void)
{
	const char *v = getenv("SMDMX_CORPUS_SAMPLE");
	long n = v ? strtol(v, NULL, 10) : 1;
	return n > 1 ? (size_t)n : 1;
}

/* Whether the index-th file of a run over the corpus is in the sample. */
static inline bool test_corpus_sampled(size_t index)
{
	return index % test_corpus_sample() == 0;
}

/* A corpus path from a path inside the corpus. */
static inline char *test_corpus_path(const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s/%s", test_corpus_dir(), rel);
	return buf;
}

static inline const char *test_base_name_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static inline int test_compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a folder, sorted by name, without dot files; each entry is the full path.
 * A missing folder fails the test. Free with test_free_list. */
static inline char **test_list_dir(const char *dir, size_t *count)
{
	os_dir *dh = os_dir_open(dir);
	if (!dh) fail_msg("directory %s is missing", dir);
	char **list = NULL;
	size_t n = 0, cap = 0;
	const char *e;
	while ((e = os_dir_next(dh))) {
		if (e[0] == '.') continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			list = realloc(list, cap * sizeof(char *));
			assert_non_null(list);
		}
		size_t len = strlen(dir) + strlen(e) + 2;
		list[n] = malloc(len);
		assert_non_null(list[n]);
		snprintf(list[n++], len, "%s/%s", dir, e);
	}
	os_dir_close(dh);
	if (n) qsort(list, n, sizeof(char *), test_compare_names);
	*count = n;
	return list;
}

/* The files of a corpus folder (sub), as test_list_dir lists them. */
static inline char **test_corpus_files(const char *sub, size_t *count)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/%s", test_corpus_dir(), sub);
	return test_list_dir(dir, count);
}

/* The same for a folder and every folder below it (paths sorted as text). */
static inline char **test_corpus_tree(const char *sub, size_t *count)
{
	size_t n;
	char **top = test_corpus_files(sub, &n);
	char **list = NULL;
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		os_stat st;
		if (os_stat_path(top[i], &st) && st.kind == OS_DIRECTORY) {
			char rel[4096];
			snprintf(rel, sizeof(rel), "%s/%s", sub, test_base_name_of(top[i]));
			size_t m;
			char **below = test_corpus_tree(rel, &m);
			list = realloc(list, (total + m + 1) * sizeof(char *));
			assert_non_null(list);
			for (size_t k = 0; k < m; k++) list[total++] = below[k];
			free(below);
			free(top[i]);
			continue;
		}
		list = realloc(list, (total + 1) * sizeof(char *));
		assert_non_null(list);
		list[total++] = top[i];
	}
	free(top);
	if (total) qsort(list, total, sizeof(char *), test_compare_names);
	*count = total;
	return list;
}

static inline void test_free_list(char **list, size_t count)
{
	for (size_t i = 0; i < count; i++) free(list[i]);
	free(list);
}

/* The file name part of a path. */
static inline const char *test_base_name(const char *path)
{
	return test_base_name_of(path);
}

/* An allocator that counts live bytes, to prove that failures leak nothing; its counts
 * atomic, for hooks several threads call at once (a batch's jobs, a file read in parts). */
typedef struct test_counter {
	_Atomic long long live;
	_Atomic size_t calls;
	_Atomic long long peak; /* the most live at once */
} test_counter;

static inline void tc_grew(test_counter *c, long long by)
{
	long long now = atomic_fetch_add(&c->live, by) + by, peak = atomic_load(&c->peak);
	while (now > peak && !atomic_compare_exchange_weak(&c->peak, &peak, now)) {
	}
	atomic_fetch_add(&c->calls, 1);
}

static inline void *tc_alloc(void *user, size_t size)
{
	void *p = malloc(size);
	if (p) tc_grew(user, (long long)size);
	return p;
}

static inline void *tc_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
	void *p = realloc(ptr, new_size);
	if (p) tc_grew(user, (long long)new_size - (long long)old_size);
	return p;
}

static inline void tc_free(void *user, void *ptr, size_t size)
{
	test_counter *c = user;
	atomic_fetch_sub(&c->live, (long long)size);
	free(ptr);
}

static inline smdmx_allocator test_allocator(test_counter *c)
{
	smdmx_allocator a;
	memset(&a, 0, sizeof(a));
	a.alloc_fn = tc_alloc;
	a.realloc_fn = tc_realloc;
	a.free_fn = tc_free;
	a.user = c;
	return a;
}

/* A growable memory sink for writers. */
typedef struct test_sink {
	char *data;
	size_t size, cap;
	size_t fail_at; /* fail the write that would pass this many bytes; 0 = never */
} test_sink;

static inline bool test_sink_write(void *user, const void *data, size_t size)
{
	test_sink *s = user;
	if (s->fail_at && s->size + size >= s->fail_at) return false;
	if (s->size + size > s->cap) {
		s->cap = (s->size + size) * 2;
		s->data = realloc(s->data, s->cap);
	}
	memcpy(s->data + s->size, data, size);
	s->size += size;
	return true;
}

/* The sink's text as a C string: a NUL after the data, not counted in size. */
static inline char *test_sink_text(test_sink *s)
{
	s->data = realloc(s->data, s->size + 1);
	assert_non_null(s->data);
	s->data[s->size] = '\0';
	return s->data;
}

/* A path for a temporary file that does not exist yet, in the system's temporary folder
 * (malloc'd): tag, the process and a count make it unique. */
static inline char *test_temp_path(const char *tag)
{
	static unsigned long count;
	char *dir = os_temp_dir();
	if (!dir) fail_msg("no temporary folder");
	size_t n = strlen(dir) + strlen(tag) + 64;
	char *p = malloc(n);
	if (!p) fail_msg("out of memory");
	snprintf(p, n, "%s/smdmx-%s-%ld-%lu", dir, tag, os_pid(), count++);
	free(dir);
	return p;
}

/* A temporary file holding n bytes of data (malloc'd path; os_remove it after). */
static inline char *test_temp_file(const char *tag, const void *data, size_t n)
{
	char *p = test_temp_path(tag);
	os_file f = os_create_new(p);
	if (f == OS_NO_FILE) fail_msg("cannot create %s", p);
	if (!os_write_all(f, data, n) || !os_close(f)) fail_msg("cannot write %s", p);
	return p;
}

/* true when something is at path */
static inline bool test_exists(const char *path)
{
	os_stat st;
	return os_stat_path(path, &st);
}

/* Where needle first occurs in hay, or NULL (memmem, which not every C library has). */
static inline const void *test_memmem(const void *hay, size_t n, const void *needle, size_t k)
{
	if (k == 0) return hay;
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp((const char *)hay + i, needle, k)) return (const char *)hay + i;
	return NULL;
}

/* A warning says what happened to the data and whether the user should act: its last
 * clause, after the last "; ", is "nothing to do" (with its reason or condition, if any) or
 * says what to do (an imperative, or "if ..." with one). */
static inline bool test_warning_acts(const char *msg)
{
	static const char *const acts[] = { "nothing to do", "if ", "add ", "check ", "compile ", "export ", "fix ", "give ",
	                                    "keep ", "leave ", "make ", "move ", "put ", "reduce ", "remove ", "rename ",
	                                    "triangulate ", "use ", "write " };
	const char *last = NULL;
	for (const char *p = strstr(msg, "; "); p; p = strstr(p + 1, "; ")) last = p + 2;
	if (!last) return false;
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strncmp(last, acts[i], strlen(acts[i]))) return true;
	return false;
}

static inline void test_assert_warnings_act(const smdmx_warnings *w, const char *where)
{
	for (size_t i = 0; w && i < w->count; i++)
		if (!test_warning_acts(w->data[i].message))
			fail_msg("%s: a warning that does not say whether to act: %s", where, w->data[i].message);
}

/* The warning of a code, or NULL; every warning beside it must say whether to act. */
static inline const smdmx_warning *test_warning_of(const smdmx_warnings *w, smdmx_warning_code code)
{
	test_assert_warnings_act(w, "warnings");
	for (size_t i = 0; i < w->count; i++)
		if (w->data[i].code == code) return &w->data[i];
	return NULL;
}

/* w holds exactly one warning, of code, at line and column, saying message. */
static inline void test_assert_one_warning(const smdmx_warnings *w, smdmx_warning_code code, uint32_t line, uint32_t column,
                                           const char *message)
{
	assert_int_equal(w->count, 1);
	assert_int_equal(w->data[0].code, code);
	assert_int_equal(w->data[0].line, line);
	assert_int_equal(w->data[0].column, column);
	assert_string_equal(w->data[0].message, message);
}

/* ---- scenes read and written on several threads (the test includes src/support/internal.h first) --- */

static inline bool test_same_bytes(const void *a, const void *b, size_t n)
{
	return n == 0 || (a && b && memcmp(a, b, n) == 0);
}

/* Exact equality of two scenes read from one SMD: every array of every mesh in its order
 * (indices included), materials, lines, source. Writes the first difference to why. */
static inline bool test_scenes_identical(const smdmx_scene *a, const smdmx_scene *b, char *why, size_t n)
{
#define TEST_DIFF(...) do { snprintf(why, n, __VA_ARGS__); return false; } while (0)
	if (a->mesh_count != b->mesh_count) TEST_DIFF("mesh count %zu, %zu", a->mesh_count, b->mesh_count);
	if (a->material_count != b->material_count) TEST_DIFF("material count %zu, %zu", a->material_count, b->material_count);
	if (a->joint_count != b->joint_count) TEST_DIFF("joint count");
	for (size_t i = 0; i < a->material_count; i++)
		if (strcmp(a->materials[i].name, b->materials[i].name)) TEST_DIFF("material %zu", i);
	for (size_t m = 0; m < a->mesh_count; m++) {
		const smdmx_mesh *x = &a->meshes[m], *y = &b->meshes[m];
		if (x->corner_count != y->corner_count) TEST_DIFF("mesh %zu corners %zu, %zu", m, x->corner_count, y->corner_count);
		if (x->position_count != y->position_count || !test_same_bytes(x->positions, y->positions, x->position_count * sizeof(smdmx_vec3)))
			TEST_DIFF("mesh %zu positions", m);
		if (!test_same_bytes(x->position_indices, y->position_indices, x->corner_count * 4)) TEST_DIFF("mesh %zu position indices", m);
		if ((x->weight_offsets == NULL) != (y->weight_offsets == NULL) || x->weight_count != y->weight_count ||
		    (x->weight_offsets && !test_same_bytes(x->weight_offsets, y->weight_offsets, (x->position_count + 1) * 4)) ||
		    !test_same_bytes(x->weights, y->weights, x->weight_count * sizeof(smdmx_weight)))
			TEST_DIFF("mesh %zu weights", m);
		if (x->normal_count != y->normal_count || !test_same_bytes(x->normals, y->normals, x->normal_count * sizeof(smdmx_vec3)) ||
		    (x->normal_indices == NULL) != (y->normal_indices == NULL) ||
		    (x->normal_indices && !test_same_bytes(x->normal_indices, y->normal_indices, x->corner_count * 4)))
			TEST_DIFF("mesh %zu normals", m);
		if (x->uv_set_count != y->uv_set_count) TEST_DIFF("mesh %zu UV set count", m);
		for (size_t s = 0; s < x->uv_set_count; s++) {
			const smdmx_uv_set *u = &x->uv_sets[s], *v = &y->uv_sets[s];
			if (u->count != v->count || !test_same_bytes(u->data, v->data, u->count * sizeof(smdmx_vec2)) ||
			    !test_same_bytes(u->indices, v->indices, x->corner_count * 4) || strcmp(u->name, v->name))
				TEST_DIFF("mesh %zu UV set %zu", m, s);
		}
		if (x->face_set_count != y->face_set_count) TEST_DIFF("mesh %zu face set count", m);
		for (size_t f = 0; f < x->face_set_count; f++) {
			const smdmx_face_set *u = &x->face_sets[f], *v = &y->face_sets[f];
			if (u->material != v->material || u->corner_count != v->corner_count || u->polygon_count != v->polygon_count ||
			    !test_same_bytes(u->corners, v->corners, u->corner_count * 4) ||
			    !test_same_bytes(u->offsets, v->offsets, (u->polygon_count + 1) * 4))
				TEST_DIFF("mesh %zu face set %zu", m, f);
		}
	}
	size_t tris = a->mesh_count ? a->meshes[0].corner_count / 3 : 0;
	if ((a->source.material_lines == NULL) != (b->source.material_lines == NULL) ||
	    (a->source.material_lines && !test_same_bytes(a->source.material_lines, b->source.material_lines, a->material_count * 4)))
		TEST_DIFF("material lines");
	if ((a->source.triangle_lines == NULL) != (b->source.triangle_lines == NULL) ||
	    (a->source.triangle_lines && !test_same_bytes(a->source.triangle_lines, b->source.triangle_lines, tris * 4)))
		TEST_DIFF("triangle lines");
	if (a->source.smd_weight_links != b->source.smd_weight_links || a->source.smd_crlf != b->source.smd_crlf ||
	    a->source.smd_kind != b->source.smd_kind || a->flex_shape_count != b->flex_shape_count || a->clip_count != b->clip_count)
		TEST_DIFF("source or other parts");
	char diff[256];
	if (!smdmx_scene_compare(a, b, NULL, diff, sizeof(diff), NULL)) TEST_DIFF("%s", diff);
	return true;
#undef TEST_DIFF
}


#ifdef SMDMX_INTERNAL_H
/* A writer of a model (an smdmx_scene or smdmx_dm) on a number of threads. */
typedef bool (*test_writer)(const void *model, smdmx_write_fn write, void *user, unsigned threads, smdmx_error *error);

static inline bool test_write_smd(const void *model, smdmx_write_fn write, void *user, unsigned threads, smdmx_error *error)
{
	smdmx_smd_write_options o = { .threads = threads };
	return smdmx_smd_write(model, write, user, &o, error);
}

static inline bool test_write_dmx(const void *model, smdmx_write_fn write, void *user, unsigned threads, smdmx_error *error)
{
	smdmx_dmx_write_options o = { .threads = threads };
	return smdmx_dmx_write((smdmx_dm *)(uintptr_t)model, write, user, &o, error);
}

/* Writes the model on one thread and on TEST_WRITE_THREADS (in parts of part_min items, polygons or
 * values): fails unless the bytes, or the error, are the same. */
static inline void test_write_threads_same(const void *model, test_writer writer, const char *label, size_t part_min)
{
	size_t saved = sm_write_part_min;
	sm_write_part_min = part_min;
	test_sink one = { 0 }, more;
	smdmx_error e1, e;
	bool ok1 = writer(model, test_sink_write, &one, 1, &e1);
	static const unsigned counts[] = TEST_WRITE_THREADS;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		memset(&more, 0, sizeof(more));
		bool ok = writer(model, test_sink_write, &more, counts[k], &e);
		if (ok != ok1 || (!ok && (e.code != e1.code || strcmp(e.message, e1.message))))
			fail_msg("%s, writing on %u threads: %s; one thread: %s", label, counts[k], ok ? "ok" : e.message, ok1 ? "ok" : e1.message);
		if (ok && (more.size != one.size || memcmp(more.data, one.data, one.size)))
			fail_msg("%s, writing on %u threads: other bytes (%zu, one thread %zu)", label, counts[k], more.size, one.size);
		free(more.data);
	}
	/* A sink that fails half way and at the last byte: the same error at every thread count
	 * (and no thread left waiting). */
	for (size_t f = 0; ok1 && f < 2; f++) {
		size_t at = f ? one.size : one.size / 2 + 1;
		test_sink a = { .fail_at = at }, b;
		if (writer(model, test_sink_write, &a, 1, &e1)) fail_msg("%s: a sink failing at byte %zu, and no error", label, at);
		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			b = (test_sink){ .fail_at = at };
			if (writer(model, test_sink_write, &b, counts[k], &e) || e.code != e1.code || strcmp(e.message, e1.message))
				fail_msg("%s, a sink failing at byte %zu, on %u threads: %s; one thread: %s", label, at, counts[k],
				         e.message, e1.message);
			free(b.data);
		}
		free(a.data);
	}
	free(one.data);
	sm_write_part_min = saved;
}

#ifdef SMDMX_SMD_READ_H /* sm_smd_part_min, the SMD reader's */
/* Reads path on one thread and on TEST_READ_THREADS (in parts of at least part_min bytes):
 * fails unless the scene, or the error, and the warnings are the same. */
static inline void test_smd_threads_same(const char *path, uint64_t part_min)
{
	uint64_t saved = sm_smd_part_min;
	sm_smd_part_min = part_min;
	smdmx_smd_read_options o = { .record_lines = true, .threads = 1 };
	smdmx_error e1, e;
	TEST_WARNINGS(w1); TEST_WARNINGS(w);
	smdmx_scene *one = smdmx_smd_read_file(path, &o, &e1, &w1);
	static const unsigned counts[] = TEST_READ_THREADS;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		o.threads = counts[k];
		smdmx_scene *s = smdmx_smd_read_file(path, &o, &e, &w);
		if ((s == NULL) != (one == NULL)) fail_msg("%s, %u threads: %s", path, counts[k], s ? "read" : e.message);
		if (!s && (e.code != e1.code || e.line != e1.line || e.column != e1.column || strcmp(e.message, e1.message)))
			fail_msg("%s, %u threads: error %u:%u %s; one thread: %u:%u %s", path, counts[k], e.line, e.column,
			         e.message, e1.line, e1.column, e1.message);
		if (w.count != w1.count) fail_msg("%s, %u threads: %zu warnings, one thread %zu", path, counts[k], w.count, w1.count);
		for (size_t i = 0; i < w.count; i++)
			if (w.data[i].code != w1.data[i].code || w.data[i].line != w1.data[i].line ||
			    w.data[i].column != w1.data[i].column || w.data[i].count != w1.data[i].count ||
			    strcmp(w.data[i].message, w1.data[i].message))
				fail_msg("%s, %u threads: warning %zu at %u:%u x%zu (%s); one thread: %u:%u x%zu (%s)", path,
				         counts[k], i, w.data[i].line, w.data[i].column, w.data[i].count, w.data[i].message,
				         w1.data[i].line, w1.data[i].column, w1.data[i].count, w1.data[i].message);
		char why[300];
		if (s && !test_scenes_identical(one, s, why, sizeof(why))) fail_msg("%s, %u threads: %s", path, counts[k], why);
		smdmx_scene_free(s);
	}
	sm_smd_part_min = saved;
	if (one) {
		/* parts of about a 24th and a 6th of the triangles: several rounds of each size */
		size_t corners = 0;
		for (size_t m = 0; m < one->mesh_count; m++) corners += one->meshes[m].corner_count;
		test_write_threads_same(one, test_write_smd, path, corners / 72 + 1);
		test_write_threads_same(one, test_write_smd, path, corners / 18 + 1);
	}
	smdmx_scene_free(one);
}
#endif
#endif
#endif
