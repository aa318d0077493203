/* QC projects converted through the library (smdmx/project.h): the run's rows, counts and
 * messages; a project to DMX and back to SMD; an output folder inside the projects'; and
 * every allocation of a run failing in turn, which ends the run out of memory, with nothing
 * left but whole files. */
#include "util.h"
#include "project/project_internal.h"
#include "files.h"
#include "support/xxh64.h"

#include <inttypes.h>

static char *out_root;

/* Files below path, "./a ./b/c " sorted (a dot file but the record counts as a temporary). */
static void tree(const char *path, const char *rel, char *list, size_t size, size_t *temporaries)
{
	os_dir *d = os_dir_open(path);
	if (!d) return;
	char *names[64];
	size_t n = 0;
	const char *e;
	while ((e = os_dir_next(d)) && n < 64)
		if (strcmp(e, ".") && strcmp(e, "..")) names[n++] = strdup(e);
	os_dir_close(d);
	qsort(names, n, sizeof(*names), test_compare_names);
	for (size_t i = 0; i < n; i++) {
		char sub[4200], subrel[4200];
		snprintf(sub, sizeof(sub), "%s/%s", path, names[i]);
		snprintf(subrel, sizeof(subrel), "%s/%s", rel, names[i]);
		os_stat st;
		if (os_stat_path(sub, &st) && st.kind == OS_DIRECTORY) {
			tree(sub, subrel, list, size, temporaries);
		} else {
			if (names[i][0] == '.' && strcmp(names[i], ".smdmx-written")) ++*temporaries;
			size_t at = strlen(list);
			snprintf(list + at, size - at, "%s ", subrel);
		}
		free(names[i]);
	}
}

static char *out_dir(const char *name)
{
	static char path[2][4200];
	static int k;
	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", out_root, name);
	return path[k];
}

static int setup(void **state)
{
	(void)state;
	out_root = test_temp_path("project");
	assert_true(os_mkdir(out_root));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_remove_tree(out_root);
	free(out_root);
	return 0;
}

/* Every run's memory counted here (one job: one thread at a time), and from the sweep's
 * allocation on refused (0: none). */
static test_counter run_memory;
static size_t run_fail_after;

static smdmx_project_run *convert_all(const char *const *qcs, size_t n, const char *out, bool to_smd, bool keep_going,
                                      smdmx_error *err)
{
	smdmx_project_options o;
	memset(&o, 0, sizeof(o));
	o.outdir = out;
	o.to_smd = to_smd;
	o.keep_going = o.lenient_qc = o.copy_failed = keep_going; /* smdmx qc -k */
	o.jobs = 1;
	o.allocator = test_allocator(&run_memory);
	o.allocator.fail_after = run_fail_after;
	return smdmx_projects_convert(qcs, n, NULL, 0, &o, err);
}

static smdmx_project_run *convert(const char *qc, const char *out, bool to_smd, smdmx_error *err)
{
	return convert_all(&qc, 1, out, to_smd, false, err);
}

/* XXH64 as its specification gives it (values of the reference xxhsum -H64): the empty
 * input, a byte, three, 37 (one stripe and the rest in eights, fours and bytes) and 100,000,
 * whole and fed in pieces that split the stripes anywhere. */
static void test_xxh64(void **state)
{
	(void)state;
	assert_true(sm_xxh64("", 0, 0) == 0xef46db3751d8e999u);
	assert_true(sm_xxh64("a", 1, 0) == 0xd24ec4f1a98c6e5bu);
	assert_true(sm_xxh64("abc", 3, 0) == 0x44bc2cf5ad770999u);
	static uint8_t pat[100000];
	for (size_t i = 0; i < sizeof(pat); i++) pat[i] = (uint8_t)(i * 7 + i / 13);
	assert_true(sm_xxh64(pat, 37, 0) == 0xd09a30db2fd3fb1eu);
	assert_true(sm_xxh64(pat, sizeof(pat), 0) == 0x417a8ec98870ab17u);
	const size_t pieces[] = { 1, 5, 31, 32, 33, 4096 };
	for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
		sm_xxh64_ctx x;
		sm_xxh64_init(&x, 0);
		for (size_t at = 0; at < sizeof(pat); at += pieces[k])
			sm_xxh64_update(&x, pat + at, at + pieces[k] <= sizeof(pat) ? pieces[k] : sizeof(pat) - at);
		assert_true(sm_xxh64_final(&x) == 0x417a8ec98870ab17u);
	}
}

/* The whole of a file (NUL-ended), its size in *n. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = os_fopen(path, "rb");
	assert_non_null(f);
	char *buf = malloc(1 << 20);
	assert_non_null(buf);
	*n = fread(buf, 1, (1 << 20) - 1, f);
	buf[*n] = 0;
	fclose(f);
	return buf;
}

static void spill(const char *path, const char *text)
{
	FILE *f = os_fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001b3u;
	return h;
}

/* The record's line of file rel ("hash size\tqc\trel"), or NULL. */
static const char *record_line(const char *record, const char *rel)
{
	char tail[256];
	snprintf(tail, sizeof(tail), "\t%s\n", rel);
	const char *t = strstr(record, tail);
	if (!t) return NULL;
	while (t > record && t[-1] != '\n') t--;
	return t;
}

/* Whether the record's line of rel holds the XXH64 hash and the size of dir/rel. */
static bool recorded_xxh64(const char *record, const char *dir, const char *rel)
{
	char path[4300], want[64];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	size_t n;
	char *bytes = slurp(path, &n);
	snprintf(want, sizeof(want), "%016" PRIx64 " %zu\t", sm_xxh64(bytes, n, 0), n);
	free(bytes);
	const char *line = record_line(record, rel);
	return line && !strncmp(line, want, strlen(want));
}

/* The record of what smdmx qc wrote: XXH64 hashes under a head that says so. A record an
 * earlier smdmx wrote (FNV-1a under its own head) still says which files are its own: they
 * are replaced without a word, a line of a file not written again is kept (its hash made
 * XXH64), and a line whose file was edited since is dropped (nobody's, as before). */
static void test_record(void **state)
{
	(void)state;
	char *qc = strdup(test_path("testdata/qc/face/face.qc"));
	char *dir = strdup(out_dir("rec"));
	char rec_path[4300], other[4300];
	snprintf(rec_path, sizeof(rec_path), "%s/.smdmx-written", dir);
	smdmx_error err;
	smdmx_project_run *run = convert(qc, dir, false, &err);
	assert_non_null(run);
	assert_true(run->ok);
	smdmx_project_run_free(run);
	size_t n;
	char *rec = slurp(rec_path, &n);
	assert_non_null(strstr(rec, "the XXH64 hash of"));
	assert_true(recorded_xxh64(rec, dir, "face.dmx"));
	assert_true(recorded_xxh64(rec, dir, "face.qc"));
	assert_true(recorded_xxh64(rec, dir, "face_flexes.qci"));
	free(rec);

	/* the record as an earlier smdmx wrote it, with a line of another QC's file */
	snprintf(other, sizeof(other), "%s/other.txt", dir);
	spill(other, "another QC's output\n");
	const char *files[] = { "face.dmx", "face.qc", "face_flexes.qci", "other.txt" };
	char old[8192] = "# smdmx qc: the files it wrote into this folder. A later run for the same QC replaces a file\n"
	                 "# whose bytes are still these; it leaves any other alone. One line a file: the FNV-1a hash of\n"
	                 "# its bytes, its size, its QC (from this folder), its path here (tab-separated).\n";
	for (size_t i = 0; i < 4; i++) {
		char path[4300];
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		char *bytes = slurp(path, &n);
		size_t at = strlen(old);
		snprintf(old + at, sizeof(old) - at, "%016" PRIx64 " %zu\t%s\t%s\n", fnv1a(bytes, n), n, i == 3 ? "other.qc" : qc, files[i]);
		free(bytes);
	}
	spill(rec_path, old);
	run = convert(qc, dir, false, &err);
	assert_non_null(run);
	assert_true(run->ok); /* its own files: replaced, no clash */
	assert_int_equal(run->message_count, 0);
	smdmx_project_run_free(run);
	char list[4096] = "";
	size_t temporaries = 0;
	tree(dir, ".", list, sizeof(list), &temporaries);
	assert_string_equal(list, "./.smdmx-written ./face.dmx ./face.qc ./face_flexes.qci ./other.txt ");
	rec = slurp(rec_path, &n);
	assert_non_null(strstr(rec, "the XXH64 hash of"));
	for (size_t i = 0; i < 4; i++)
		if (!recorded_xxh64(rec, dir, files[i])) fail_msg("%s: not recorded by its XXH64:\n%s", files[i], rec);
	free(rec);

	/* an earlier smdmx's line of a file edited since: dropped, the file someone's */
	spill(rec_path, old);
	spill(other, "edited\n");
	run = convert(qc, dir, false, &err);
	assert_non_null(run);
	assert_true(run->ok);
	smdmx_project_run_free(run);
	rec = slurp(rec_path, &n);
	assert_null(record_line(rec, "other.txt"));
	assert_true(recorded_xxh64(rec, dir, "face.dmx"));
	free(rec);
	free(dir);
	free(qc);
}

/* The face to DMX: one file converted (its VTA into it), the QC and its include written; its
 * row and its file's row; run again, its own outputs replaced. Then back to SMD and VTA. */
static void test_face_both_ways(void **state)
{
	(void)state;
	char *qc = strdup(test_path("testdata/qc/face/face.qc"));
	smdmx_error err;
	smdmx_project_run *run = convert(qc, out_dir("dmx"), false, &err);
	assert_non_null(run);
	assert_int_equal(run->status, SMDMX_ERROR_NONE);
	assert_true(run->ok);
	assert_int_equal(run->qc_count, 1);
	assert_non_null(run->qcs[0].qc);
	assert_true(run->qcs[0].ok);
	assert_int_equal(run->converted, 1);
	assert_int_equal(run->copied, 0);
	assert_int_equal(run->failed, 0);
	assert_int_equal(run->missing_count, 0);
	assert_int_equal(run->qc_written_count, 2);
	/* the model's SMD into DMX, its flexfile VTA consumed (no row of its own) */
	assert_int_equal(run->file_count, 1);
	assert_int_equal(run->files[0].action, SMDMX_PROJECT_SMD_TO_DMX);
	assert_true(run->files[0].ok);
	assert_int_equal(run->files[0].qc, 0);
	assert_int_equal(run->files[0].written_count, 1);
	char want[4300];
	snprintf(want, sizeof(want), "%s/face.dmx", out_dir("dmx"));
	assert_string_equal(run->files[0].written[0], want);
	/* its inputs, each once: the QC files, the SMD, the VTA */
	assert_int_equal(run->input_count, 4);
	/* nothing to say of it */
	assert_int_equal(run->files[0].message_count, 0);
	assert_int_equal(run->qcs[0].message_count, 0);
	assert_int_equal(run->message_count, 0);
	char list[4096] = "";
	size_t temporaries = 0;
	tree(out_dir("dmx"), ".", list, sizeof(list), &temporaries);
	assert_string_equal(list, "./.smdmx-written ./face.dmx ./face.qc ./face_flexes.qci ");
	assert_int_equal(temporaries, 0);
	smdmx_project_run_free(run);
	/* again: its own outputs, as it wrote them, replaced without force */
	run = convert(qc, out_dir("dmx"), false, &err);
	assert_non_null(run);
	assert_true(run->ok);
	assert_int_equal(run->converted, 1);
	smdmx_project_run_free(run);
	/* the DMX project back to SMD: the model and its VTA */
	snprintf(want, sizeof(want), "%s/face.qc", out_dir("dmx"));
	run = convert(want, out_dir("smd"), true, &err);
	assert_non_null(run);
	assert_true(run->ok);
	assert_int_equal(run->converted, 1);
	assert_int_equal(run->files[0].action, SMDMX_PROJECT_DMX_TO_SMD);
	assert_int_equal(run->files[0].written_count, 2);
	list[0] = 0;
	tree(out_dir("smd"), ".", list, sizeof(list), &temporaries);
	assert_string_equal(list, "./.smdmx-written ./face.qc ./face.smd ./face.vta ./face_flexes.qci ");
	smdmx_project_run_free(run);
	free(qc);
}

/* An output folder inside the projects' folder: nothing runs, said as the run's own. */
static void test_outdir_inside(void **state)
{
	(void)state;
	char *qc = strdup(test_path("testdata/qc/face/face.qc"));
	char *out = strdup(test_path("testdata/qc/face/out"));
	smdmx_error err;
	smdmx_project_run *run = convert(qc, out, false, &err);
	assert_non_null(run);
	assert_int_equal(run->status, SMDMX_ERROR_USAGE);
	assert_false(run->ok);
	assert_int_equal(run->file_count, 0);
	assert_int_equal(run->message_count, 1);
	assert_null(run->messages[0].path);
	assert_int_equal(run->messages[0].kind, SMDMX_MESSAGE_ERROR);
	assert_int_equal(run->messages[0].code, SMDMX_ERROR_USAGE);
	assert_non_null(strstr(run->messages[0].text, "is inside the project's folder"));
	assert_false(test_exists(out));
	smdmx_project_run_free(run);
	free(qc);
	free(out);
}

/* A QC that cannot be read: its row has no QC and says why; nothing else runs. */
static void test_unread(void **state)
{
	(void)state;
	char *qc = strdup(test_path("testdata/qc/face/none.qc"));
	smdmx_error err;
	smdmx_project_run *run = convert(qc, out_dir("none"), false, &err);
	assert_non_null(run);
	assert_false(run->ok);
	assert_int_equal(run->qc_count, 1);
	assert_int_equal(run->qcs_not_read, 1);
	assert_null(run->qcs[0].qc);
	assert_int_equal(run->qcs[0].message_count, 1);
	assert_int_equal(run->qcs[0].messages[0].kind, SMDMX_MESSAGE_ERROR);
	assert_int_equal(run->qcs[0].messages[0].code, SMDMX_ERROR_IO); /* (a QC not there) */
	assert_int_equal(run->file_count, 0);
	smdmx_project_run_free(run);
	free(qc);
}

/* A library of three QCs naming one body.smd: the file is planned once, by a.qc, and every
 * QC's row lists it among its files; b.qc's wave at 30 fps is a file of its own, c.qc's
 * wave a's. */
static void test_files_of_each_qc(void **state)
{
	(void)state;
	char *qcs[3];
	static const char *const names[3] = { "a", "b", "c" };
	for (size_t i = 0; i < 3; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "testdata/qc/shared/%s.qc", names[i]);
		qcs[i] = strdup(test_path(rel));
	}
	smdmx_error err;
	smdmx_project_run *run = convert_all((const char *const *)qcs, 3, out_dir("each"), false, false, &err);
	assert_non_null(run);
	assert_true(run->ok);
	assert_int_equal(run->file_count, 3);
	size_t body = 0;
	while (body < run->file_count && !test_ends_with(run->files[body].source, "shared/body.smd")) body++;
	assert_true(body < run->file_count);
	assert_int_equal(run->files[body].qc, 0);
	for (size_t i = 0; i < 3; i++) {
		const smdmx_project_qc *q = &run->qcs[i];
		assert_int_equal(q->file_count, 2);
		assert_int_equal(q->files[0], body);
		assert_true(test_ends_with(run->files[q->files[1]].source, "shared/wave.smd"));
	}
	assert_int_not_equal(run->qcs[1].files[1], run->qcs[0].files[1]); /* wave at 30 fps */
	assert_int_equal(run->qcs[2].files[1], run->qcs[0].files[1]);
	smdmx_project_run_free(run);
	for (size_t i = 0; i < 3; i++) free(qcs[i]);
}

/* The QCs below a folder, as `smdmx qc -r` finds them: .qc only (no .qci, .smd), in byte order
 * of the paths' names at every level; a folder named with its separator at the end; a
 * folder that is not there fails with an I/O error. */
static void test_files(void **state)
{
	(void)state;
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/", test_path("testdata/qc"));
	char **paths;
	size_t count;
	smdmx_error err;
	assert_true(smdmx_project_files(dir, NULL, &paths, &count, &err));
	assert_int_equal(count, 15);
	assert_string_equal(paths[0], test_path("testdata/qc/face/face.qc"));
	assert_string_equal(paths[7], test_path("testdata/qc/modelname/crate.qc"));
	assert_string_equal(paths[8], test_path("testdata/qc/modelname/crate_open.qc"));
	assert_string_equal(paths[9], test_path("testdata/qc/parts/parts.qc"));
	assert_string_equal(paths[14], test_path("testdata/qc/shared/c.qc"));
	assert_null(paths[15]);
	smdmx_project_files_free(paths);
	assert_false(smdmx_project_files(test_path("testdata/qc/nowhere"), NULL, &paths, &count, &err));
	assert_int_equal(err.code, SMDMX_ERROR_IO);
	assert_non_null(strstr(err.message, "cannot read the directory"));
	assert_int_equal(count, 0);
	smdmx_project_files_free(paths);
}

/* Every allocation of a run failing in turn (one job, so that the count is the same each
 * time): the run ends out of memory (NULL, SMDMX_ERROR_OUT_OF_MEMORY), never crashes, and
 * leaves no temporary file; the count after the last failure converts. Both ways. */

static bool test_file_exists(const char *path)
{
	os_stat st;
	return os_stat_path(path, &st) && st.kind == OS_REGULAR;
}

/* Runs that ran out once files were in place (out_of_memory), over all sweeps. */
static size_t placed_after, lost_after;

/* A run that ran out once files were in place: it says so, and the files there (but the
 * folder's record) are exactly those it lists, each once. */
static void check_placed(const smdmx_project_run *run, const smdmx_error *err, const char *list, size_t n)
{
	assert_int_equal(run->status, SMDMX_ERROR_OUT_OF_MEMORY);
	assert_int_equal(err->code, SMDMX_ERROR_OUT_OF_MEMORY);
	assert_false(run->ok);
	size_t listed = run->qc_written_count, there = 0;
	for (size_t i = 0; i < run->file_count; i++) listed += run->files[i].written_count;
	for (size_t i = 0; i < run->qc_written_count; i++)
		if (!test_file_exists(run->qc_written[i])) fail_msg("allocation %zu failing: '%s' listed, not there", n, run->qc_written[i]);
	for (size_t i = 0; i < run->file_count; i++)
		for (size_t k = 0; k < run->files[i].written_count; k++)
			if (!test_file_exists(run->files[i].written[k]))
				fail_msg("allocation %zu failing: '%s' listed, not there", n, run->files[i].written[k]);
	for (const char *p = list; (p = strchr(p, ' ')); p++) there++;
	if (strstr(list, ".smdmx-written")) there--;
	if (listed != there) fail_msg("allocation %zu failing: %zu files there (%s), %zu listed", n, there, list, listed);
	placed_after++;
	lost_after += run->messages_lost > 0;
}

static void sweep(const char *const *qcs, size_t count, bool to_smd, bool keep_going, bool want_ok, size_t *failures)
{
	for (size_t n = 1;; n += SWEEP_STRIDE) {
		test_remove_tree(out_dir("sweep"));
		run_fail_after = n;
		long long before = run_memory.live;
		smdmx_error err;
		smdmx_project_run *run = convert_all(qcs, count, out_dir("sweep"), to_smd, keep_going, &err);
		run_fail_after = 0;
		if (!run && run_memory.live != before)
			fail_msg("allocation %zu failing left %lld bytes", n, run_memory.live - before);
		char list[4096] = "";
		size_t temporaries = 0;
		tree(out_dir("sweep"), ".", list, sizeof(list), &temporaries);
		if (temporaries) fail_msg("allocation %zu failing left %zu temporary files: %s", n, temporaries, list);
		if (run && run->out_of_memory) {
			check_placed(run, &err, list, n);
			smdmx_project_run_free(run);
			if (run_memory.live != before) fail_msg("the run freed left %lld bytes", run_memory.live - before);
			++*failures;
			continue;
		}
		if (run) {
			bool ok = run->ok;
			/* only a run that ran out loses a message */
			if (run->messages_lost) fail_msg("allocation %zu failing: %zu messages lost, the run whole", n, run->messages_lost);
			smdmx_project_run_free(run);
			if (ok != want_ok) fail_msg("allocation %zu failing: a run that failed without saying out of memory", n);
			if (run_memory.live != before) fail_msg("the run freed left %lld bytes", run_memory.live - before);
			break;
		}
		if (err.code != SMDMX_ERROR_OUT_OF_MEMORY) fail_msg("allocation %zu failing: %s", n, err.message);
		++*failures;
		if (n > 100000) fail_msg("no end to the sweep");
	}
}

/* What `smdmx qc -k` turns on, one setting at a time: keep_going alone converts what it can and
 * copies nothing that failed; copy_failed with it copies the broken SMD unchanged; lenient_qc
 * alone reads a QC whose line cannot be read (the line kept as written), which without it is
 * not read. */
static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static smdmx_project_run *convert_with(const char *qc, const char *out, bool keep_going, bool lenient_qc, bool copy_failed)
{
	smdmx_project_options o;
	memset(&o, 0, sizeof(o));
	o.outdir = out;
	o.keep_going = keep_going;
	o.lenient_qc = lenient_qc;
	o.copy_failed = copy_failed;
	o.jobs = 1;
	smdmx_error err;
	smdmx_project_run *run = smdmx_projects_convert(&qc, 1, NULL, 0, &o, &err);
	if (!run) fail_msg("%s", err.message);
	return run;
}

static void test_keep_going_parts(void **state)
{
	(void)state;
	char src[4300], qc[4400], bad[4400];
	snprintf(src, sizeof(src), "%s", out_dir("kparts"));
	assert_true(os_mkdir(src));
	snprintf(qc, sizeof(qc), "%s/m.qc", src);
	snprintf(bad, sizeof(bad), "%s/b.qc", src);
	char path[4500];
	snprintf(path, sizeof(path), "%s/good.smd", src);
	put_file(path, "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n"
	               "0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n");
	snprintf(path, sizeof(path), "%s/broken.smd", src);
	put_file(path, "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 x\nend\n");
	put_file(qc, "$modelname \"m.mdl\"\n$body body \"good.smd\"\n$sequence idle \"broken.smd\"\n");
	put_file(bad, "$modelname \"b.mdl\"\n$body body \"good.smd\"\n$scale\n");
	const struct {
		bool keep_going, copy_failed;
		size_t copied;
	} copies[] = { { true, false, 0 }, { true, true, 1 } };
	for (size_t i = 0; i < 2; i++) {
		char out[64];
		snprintf(out, sizeof(out), "kout%zu", i);
		smdmx_project_run *run = convert_with(qc, out_dir(out), copies[i].keep_going, false, copies[i].copy_failed);
		if (run->converted != 1) {
			for (size_t q = 0; q < run->qc_count; q++)
				for (size_t k = 0; k < run->qcs[q].message_count; k++) print_message("%s\n", run->qcs[q].messages[k].text);
			for (size_t f = 0; f < run->file_count; f++)
				for (size_t k = 0; k < run->files[f].message_count; k++) print_message("%s\n", run->files[f].messages[k].text);
			fail_msg("converted %zu failed %zu", run->converted, run->failed);
		}
		assert_int_equal(run->failed, 1);
		size_t copied = 0;
		for (size_t f = 0; f < run->file_count; f++) copied += run->files[f].copied && strstr(run->files[f].source, "broken.smd");
		assert_int_equal(copied, copies[i].copied);
		smdmx_project_run_free(run);
	}
	for (int lenient = 0; lenient < 2; lenient++) {
		char out[64];
		snprintf(out, sizeof(out), "kqc%d", lenient);
		smdmx_project_run *run = convert_with(bad, out_dir(out), false, lenient, false);
		assert_int_equal(run->qcs_not_read, lenient ? 0 : 1);
		assert_int_equal(run->lines_not_read, lenient ? 1 : 0);
		smdmx_project_run_free(run);
	}
}

static void test_out_of_memory(void **state)
{
	(void)state;
	char *qc = strdup(test_path("testdata/qc/face/face.qc"));
	size_t failures = 0;
	sweep((const char *const *)&qc, 1, false, false, true, &failures);
	assert_true(failures > 50 / SWEEP_STRIDE);
	smdmx_error err;
	run_memory.peak = run_memory.live;
	long long base = run_memory.live;
	size_t calls = run_memory.calls;
	smdmx_project_run *run = convert(qc, out_dir("dmx2"), false, &err);
	assert_non_null(run);
	assert_true(run->ok);
	smdmx_project_run_free(run);
	/* every run took its memory from the run's allocator (its readers', writers', threads'
	 * with it), and gave back all it took */
	assert_true(run_memory.calls - calls > 100);
	assert_int_equal(run_memory.live, base);
	/* under a limit of half what it took at most: out of memory, nothing left, no temporary
	 * file */
	long long peak = run_memory.peak - base;
	smdmx_project_options o;
	memset(&o, 0, sizeof(o));
	o.outdir = out_dir("limited");
	o.jobs = 1;
	test_counter c = { 0, 0, 0 };
	o.allocator = test_allocator(&c);
	o.allocator.memory_limit = (size_t)(peak / 2);
	const char *one[1] = { qc };
	assert_null(smdmx_projects_convert(one, 1, NULL, 0, &o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
	assert_int_equal(c.live, 0);
	assert_true(c.peak <= peak / 2);
	char list[4096] = "";
	size_t temporaries = 0;
	tree(out_dir("limited"), ".", list, sizeof(list), &temporaries);
	assert_int_equal(temporaries, 0);
	/* given to a step besides the run: refused, nothing done */
	o.allocator.memory_limit = 0;
	o.smd_read.allocator = test_allocator(&c);
	calls = c.calls;
	assert_null(smdmx_projects_convert(one, 1, NULL, 0, &o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_non_null(strstr(err.message, "give it in the run's allocator"));
	assert_int_equal(c.calls, calls);
	char back[4300];
	snprintf(back, sizeof(back), "%s/face.qc", out_dir("dmx2"));
	const char *backs[1] = { back };
	size_t back_failures = 0;
	sweep(backs, 1, true, false, true, &back_failures);
	assert_true(back_failures > 50 / SWEEP_STRIDE);
	free(qc);
	/* a library: an include two QCs need written two ways, a file made two ways; and one
	 * with files missing, kept going (it fails, as it should, when memory lasts) */
	char *lib[3], *missing[3];
	static const char *const lib_names[3] = { "a", "b", "c" }, *const missing_names[3] = { "x", "y", "z" };
	for (size_t i = 0; i < 3; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "testdata/qc/shared/%s.qc", lib_names[i]);
		lib[i] = strdup(test_path(rel));
		snprintf(rel, sizeof(rel), "testdata/qc/missing/%s.qc", missing_names[i]);
		missing[i] = strdup(test_path(rel));
	}
	size_t lib_failures = 0, missing_failures = 0;
	sweep((const char *const *)lib, 3, false, true, true, &lib_failures);
	assert_true(lib_failures > 100 / SWEEP_STRIDE);
	sweep((const char *const *)missing, 3, false, true, false, &missing_failures);
	assert_true(missing_failures > 50 / SWEEP_STRIDE);
	for (size_t i = 0; i < 3; i++) {
		free(lib[i]);
		free(missing[i]);
	}
	print_message("allocations failed in turn: %zu, %zu back to SMD, %zu of a library, %zu with files missing; %zu of them "
	              "once files were in place, each listing them (%zu counting messages lost)\n",
	              failures, back_failures, lib_failures, missing_failures, placed_after, lost_after);
	assert_true(placed_after > 0);
	assert_true(lost_after > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_face_both_ways),
		cmocka_unit_test(test_xxh64),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_outdir_inside),
		cmocka_unit_test(test_unread),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_files_of_each_qc),
		cmocka_unit_test(test_keep_going_parts),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
