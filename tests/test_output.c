/* Outputs written whole or not at all (smdmx/output.h): a set is put in place all of it or
 * none, a file already there is kept unless the set may replace it, what a failure leaves
 * is only what was there, and an interrupt's cleanup removes every temporary file. */
#include <errno.h>
#include <stdatomic.h>

#include "support/internal.h"
#include "util.h"
#include "smdmx/output.h"

static char dir[4096];

/* The names in dir, sorted, one string ("a.txt b.txt "): what a call left there. */
static const char *names(void)
{
	static char list[4096];
	size_t n, at = 0;
	char **entries = test_list_dir(dir, &n);
	list[0] = 0;
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s ", test_base_name_of(entries[i]));
	test_free_list(entries, n);
	return list;
}

/* A dot file is a temporary one: names() leaves them out (test_list_dir), this counts them. */
static size_t temporaries(void)
{
	os_dir *d = os_dir_open(dir);
	assert_non_null(d);
	size_t n = 0;
	const char *e;
	while ((e = os_dir_next(d)))
		if (e[0] == '.' && strcmp(e, ".") && strcmp(e, "..")) n++;
	os_dir_close(d);
	return n;
}

static char *in_dir(const char *name)
{
	static char path[2][4200];
	static int k;
	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

static void put(const char *name, const char *text)
{
	FILE *f = os_fopen(in_dir(name), "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	char *tmp = os_temp_dir();
	assert_non_null(tmp);
	for (unsigned n = 0;; n++) {
		snprintf(dir, sizeof(dir), "%s/smdmx-test-output-%ld-%u", tmp, os_pid(), n);
		if (os_mkdir(dir)) break;
		assert_true(n < 100);
	}
	free(tmp);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	os_dir *d = os_dir_open(dir);
	const char *e;
	while (d && (e = os_dir_next(d)))
		if (strcmp(e, ".") && strcmp(e, "..")) os_remove(in_dir(e));
	if (d) os_dir_close(d);
	os_rmdir(dir);
	return 0;
}

static smdmx_output *open_write(smdmx_outputs *set, const char *name, const char *text)
{
	char why[4200];
	smdmx_output *o = smdmx_outputs_open(set, in_dir(name), why, sizeof(why));
	if (!o) fail_msg("%s", why);
	assert_true(smdmx_output_write(o, text, strlen(text)));
	return o;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++) free(list[i]);
	free(list);
}

/* Two files put in place together, listed in the order opened; nothing else left. */
static void test_commit_all(void **state)
{
	(void)state;
	smdmx_outputs *set = smdmx_outputs_new(0, NULL);
	open_write(set, "b.txt", "bee");
	open_write(set, "a.txt", "ay");
	assert_int_equal(smdmx_outputs_count(set), 2);
	assert_string_equal(names(), "");
	assert_int_equal(temporaries(), 2);
	char **written = NULL, why[4200];
	size_t n = 0;
	assert_int_equal(smdmx_outputs_commit(set, &written, &n, why, sizeof(why)), SMDMX_ERROR_NONE);
	assert_int_equal(n, 2);
	assert_string_equal(written[0], in_dir("b.txt"));
	assert_string_equal(written[1], in_dir("a.txt"));
	assert_string_equal(names(), "a.txt b.txt ");
	assert_int_equal(temporaries(), 0);
	assert_int_equal(smdmx_outputs_count(set), 0);
	assert_true(smdmx_file_same_bytes(in_dir("b.txt"), NULL, "bee", 3));
	assert_false(smdmx_file_same_bytes(in_dir("b.txt"), NULL, "be", 2));
	assert_false(smdmx_file_same_bytes(in_dir("b.txt"), in_dir("a.txt"), NULL, 0));
	free_list(written, n);
	smdmx_outputs_free(set);
}

/* A file of 20 MiB, written in pieces of 1 MiB + 1 byte: its writing to the disk is started
 * every 8 MiB as it is made (os_sync_start), and what is put in place is every byte. */
static void test_large_file(void **state)
{
	(void)state;
	enum { PIECE = (1 << 20) + 1, PIECES = 20 };
	char *piece = malloc(PIECE), *all = malloc((size_t)PIECE * PIECES);
	assert_non_null(piece);
	assert_non_null(all);
	smdmx_outputs *set = smdmx_outputs_new(0, NULL);
	char why[4200];
	smdmx_output *o = smdmx_outputs_open(set, in_dir("big.bin"), why, sizeof(why));
	if (!o) fail_msg("%s", why);
	for (int k = 0; k < PIECES; k++) {
		for (size_t i = 0; i < PIECE; i++) piece[i] = (char)('a' + (i + (size_t)k) % 26);
		memcpy(all + (size_t)k * PIECE, piece, PIECE);
		assert_true(smdmx_output_write(o, piece, PIECE));
	}
	char **written = NULL;
	size_t n = 0;
	assert_int_equal(smdmx_outputs_commit(set, &written, &n, why, sizeof(why)), SMDMX_ERROR_NONE);
	assert_int_equal(n, 1);
	assert_true(smdmx_file_same_bytes(in_dir("big.bin"), NULL, all, (size_t)PIECE * PIECES));
	assert_int_equal(temporaries(), 0);
	free_list(written, n);
	smdmx_outputs_free(set);
	free(piece);
	free(all);
}

static bool is_folder(const char *name)
{
	os_stat st;
	return os_stat_path(in_dir(name), &st) && st.kind == OS_DIRECTORY;
}

/* The folders an output needs are made; a set that is not put in place takes away those it
 * made (not those that were there, nor one another set still writes into); one put in place
 * keeps them. */
static void test_folders(void **state)
{
	(void)state;
	smdmx_outputs *set = smdmx_outputs_new(0, NULL);
	open_write(set, "n1/n2/x.txt", "x");
	assert_true(is_folder("n1/n2"));
	smdmx_outputs_free(set);
	assert_false(is_folder("n1"));
	assert_true(os_mkdir(in_dir("keep")));
	set = smdmx_outputs_new(0, NULL);
	open_write(set, "keep/n3/y.txt", "y");
	smdmx_outputs_free(set);
	assert_true(is_folder("keep"));
	assert_false(is_folder("keep/n3"));
	/* two sets in one new folder: the one that made it fails first, the other goes on */
	smdmx_outputs *a = smdmx_outputs_new(0, NULL), *b = smdmx_outputs_new(0, NULL);
	open_write(a, "n4/a.txt", "a");
	open_write(b, "n4/b.txt", "b");
	smdmx_outputs_free(a);
	assert_true(is_folder("n4"));
	char **written = NULL, why[4200];
	size_t n = 0;
	assert_int_equal(smdmx_outputs_commit(b, &written, &n, why, sizeof(why)), SMDMX_ERROR_NONE);
	assert_true(smdmx_file_same_bytes(in_dir("n4/b.txt"), NULL, "b", 1));
	free_list(written, n);
	smdmx_outputs_free(b);
	/* folders made two deep, put in place: they stay */
	smdmx_outputs *c = smdmx_outputs_new(0, NULL);
	open_write(c, "n5/m/c.txt", "c");
	written = NULL;
	n = 0;
	assert_int_equal(smdmx_outputs_commit(c, &written, &n, why, sizeof(why)), SMDMX_ERROR_NONE);
	free_list(written, n);
	smdmx_outputs_free(c);
	assert_true(is_folder("n5/m"));
	assert_true(os_remove(in_dir("n4/b.txt")));
	assert_true(os_rmdir(in_dir("n4")));
	assert_true(os_remove(in_dir("n5/m/c.txt")));
	assert_true(os_rmdir(in_dir("n5/m")));
	assert_true(os_rmdir(in_dir("n5")));
	assert_true(os_rmdir(in_dir("keep")));
}

/* A folder taken away while the walk that makes an output's folders goes through it (an
 * output that failed removes the empty folders it made, on another thread of a batch): the
 * walk starts again, never "cannot create the directory" (a batch of testdata/ under load
 * lost layout.dmx so, about one run in thirty). The other thread makes r and r/a where they
 * are not and removes what it made, over and over, as failing outputs do. */
static int taking_away;

static void take_away(void *arg)
{
	(void)arg;
	char r[4200], a[4300];
	snprintf(r, sizeof(r), "%s/r", dir);
	snprintf(a, sizeof(a), "%s/a", r);
	while (__atomic_load_n(&taking_away, __ATOMIC_ACQUIRE)) {
		bool made_r = os_mkdir(r), made_a = os_mkdir(a); /* each removes only what it made */
		if (made_a) (void)os_rmdir(a);
		if (made_r) (void)os_rmdir(r);
	}
}

static void test_folders_taken_away(void **state)
{
	(void)state;
	__atomic_store_n(&taking_away, 1, __ATOMIC_RELEASE);
	os_thread *t = os_thread_start(take_away, NULL);
	assert_non_null(t);
	size_t failed = 0;
	char why[4400] = "";
	for (int i = 0; i < 3000; i++) {
		size_t made = 0;
		char *path = in_dir("r/a/b/x.txt");
		if (!os_make_parent_dirs_made(path, &made, why, sizeof(why))) {
			failed++;
			continue;
		}
		/* what this walk made goes too while empty (made: the first, the others below it),
		 * as a failed output's folders go, for the race to go on; the path mended */
		if (strcmp(path, in_dir("r/a/b/x.txt")) != 0) fail_msg("the path was left cut: '%s'", path);
		bool made_r = made && made == strlen(in_dir("r")), made_a = made_r || (made && made == strlen(in_dir("r/a")));
		if (!os_rmdir(in_dir("r/a/b"))) {
			failed++;
			snprintf(why, sizeof(why), "r/a/b, made here, could not be removed: %s", os_error_text(errno));
		}
		if (made_a && os_rmdir(in_dir("r/a")) && made_r) (void)os_rmdir(in_dir("r"));
	}
	__atomic_store_n(&taking_away, 0, __ATOMIC_RELEASE);
	os_thread_join(t);
	if (failed) fail_msg("%zu of 3000 walks failed; the last: %s", failed, why);
	(void)os_rmdir(in_dir("r/a"));
	(void)os_rmdir(in_dir("r"));
	assert_string_equal(names(), "");
}

/* A file already there fails the set: it stays as it was, the file the set had already put
 * in place is taken back, no temporary file stays; with FORCE the set replaces it. */
static void test_already_there(void **state)
{
	(void)state;
	put("b.txt", "mine");
	smdmx_outputs *set = smdmx_outputs_new(0, NULL);
	open_write(set, "a.txt", "ay");
	open_write(set, "b.txt", "bee");
	char **written = NULL, why[4200];
	size_t n = 0;
	assert_int_equal(smdmx_outputs_commit(set, &written, &n, why, sizeof(why)), SMDMX_ERROR_EXISTS);
	char want[4300];
	snprintf(want, sizeof(want), "'%s' exists", in_dir("b.txt"));
	assert_string_equal(why, want);
	assert_int_equal(n, 0);
	assert_string_equal(names(), "b.txt ");
	assert_int_equal(temporaries(), 0);
	assert_true(smdmx_file_same_bytes(in_dir("b.txt"), NULL, "mine", 4));
	/* smdmx_output_allowed says the same before anything is written */
	assert_int_equal(smdmx_output_allowed(in_dir("b.txt"), NULL, 0, false, why, sizeof(why)), SMDMX_ERROR_EXISTS);
	assert_string_equal(why, want);
	assert_int_equal(smdmx_output_allowed(in_dir("b.txt"), NULL, 0, true, why, sizeof(why)), SMDMX_ERROR_NONE);
	/* forced */
	smdmx_outputs_set_flags(set, SMDMX_OUTPUTS_FORCE);
	assert_int_equal(smdmx_outputs_flags(set), SMDMX_OUTPUTS_FORCE);
	open_write(set, "b.txt", "bee");
	assert_int_equal(smdmx_outputs_commit(set, &written, &n, why, sizeof(why)), SMDMX_ERROR_NONE);
	assert_true(smdmx_file_same_bytes(in_dir("b.txt"), NULL, "bee", 3));
	free_list(written, n);
	/* one file of a set replaces its own earlier output, the set not forced */
	smdmx_outputs_set_flags(set, 0);
	written = NULL, n = 0;
	smdmx_output_set_replace(open_write(set, "b.txt", "again"), true);
	assert_int_equal(smdmx_outputs_commit(set, &written, &n, why, sizeof(why)), SMDMX_ERROR_NONE);
	assert_true(smdmx_file_same_bytes(in_dir("b.txt"), NULL, "again", 5));
	free_list(written, n);
	smdmx_outputs_free(set);
}

/* SAME_OK: a file there with the very bytes stays (and counts as written); one with other
 * bytes clashes. */
static void test_same_ok(void **state)
{
	(void)state;
	put("a.txt", "ay");
	put("b.txt", "other");
	smdmx_outputs *set = smdmx_outputs_new(SMDMX_OUTPUTS_SAME_OK, NULL);
	smdmx_output *a = open_write(set, "a.txt", "ay"), *b = open_write(set, "b.txt", "bee");
	char why[4200];
	assert_int_equal(smdmx_outputs_finish(set, why, sizeof(why)), SMDMX_ERROR_NONE);
	assert_false(smdmx_output_clashes(a));
	assert_true(smdmx_output_clashes(b));
	/* the clashing one takes another name in its folder */
	assert_true(smdmx_output_rename(b, in_dir("b_2.txt")));
	assert_string_equal(smdmx_output_path(b), in_dir("b_2.txt"));
	char **written = NULL;
	size_t n = 0;
	assert_int_equal(smdmx_outputs_commit(set, &written, &n, why, sizeof(why)), SMDMX_ERROR_NONE);
	assert_int_equal(n, 2);
	assert_string_equal(written[0], in_dir("a.txt"));
	assert_string_equal(names(), "a.txt b.txt b_2.txt ");
	assert_true(smdmx_file_same_bytes(in_dir("b.txt"), NULL, "other", 5));
	assert_int_equal(temporaries(), 0);
	free_list(written, n);
	smdmx_outputs_free(set);
}

/* Abort, free, and an interrupt's cleanup leave no temporary file; a path that is an input
 * or a directory is refused; a file that cannot be made says why. */
static void test_failures(void **state)
{
	(void)state;
	smdmx_outputs *set = smdmx_outputs_new(0, NULL);
	open_write(set, "a.txt", "ay");
	smdmx_outputs_abort(set);
	assert_int_equal(temporaries(), 0);
	assert_int_equal(smdmx_outputs_count(set), 0);
	open_write(set, "a.txt", "ay");
	open_write(set, "b.txt", "bee");
	assert_int_equal(temporaries(), 2);
	/* closed first: Windows removes an open file only once it is closed (as the process
	 * that a Ctrl-C ends closes it) */
	char why[4200], want[8600];
	assert_int_equal(smdmx_outputs_finish(set, why, sizeof(why)), SMDMX_ERROR_NONE);
	assert_int_equal(temporaries(), 2);
	smdmx_outputs_remove_temporary(); /* as a signal handler calls it */
	assert_int_equal(temporaries(), 0);
	smdmx_outputs_free(set);
	assert_string_equal(names(), "");

	put("in.smd", "x");
	const char *inputs[] = { in_dir("in.smd") };
	assert_int_equal(smdmx_output_allowed(in_dir("in.smd"), inputs, 1, true, why, sizeof(why)), SMDMX_ERROR_USAGE);
	snprintf(want, sizeof(want), "the output '%s' is the input '%s'", in_dir("in.smd"), in_dir("in.smd"));
	assert_string_equal(why, want);
	assert_int_equal(smdmx_output_allowed(dir, NULL, 0, true, why, sizeof(why)), SMDMX_ERROR_USAGE);
	snprintf(want, sizeof(want), "the output '%s' is a directory", dir);
	assert_string_equal(why, want);
	assert_int_equal(smdmx_output_allowed("-", inputs, 1, false, why, sizeof(why)), SMDMX_ERROR_NONE);

	/* a folder that cannot be made: a file stands where it would be */
	set = smdmx_outputs_new(0, NULL);
	put("file.txt", "f");
	assert_null(smdmx_outputs_open(set, in_dir("file.txt/x.dmx"), why, sizeof(why)));
	snprintf(want, sizeof(want), "cannot write '%s': ", in_dir("file.txt/x.dmx"));
	assert_memory_equal(why, want, strlen(want));
	assert_int_equal(smdmx_outputs_count(set), 0);
	smdmx_outputs_free(set);
	smdmx_outputs_free(NULL);
	assert_int_equal(temporaries(), 0);
	assert_string_equal(smdmx_error_code_name(SMDMX_ERROR_EXISTS), "exists");
}


/* Paths' roots and the paths made of them (platform/os.h): a Windows root stays as given,
 * "\\?\" and shares included, and ".." never goes above it. */
static void expect_absolute(const char *path, const char *want)
{
	char *got = os_path_absolute(path);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void expect_relative(const char *from, const char *to, const char *want)
{
	char *got = os_path_relative(from, to);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_path_roots(void **state)
{
	(void)state;
	assert_int_equal(os_path_root("/a/b"), 1);
	assert_int_equal(os_path_root("a/b"), 0);
	expect_relative("/a/b/x.qc", "/a/c/y.smd", "../c/y.smd");
	if (!os_windows_paths()) {
		expect_absolute("/a/./b/../c", "/a/c");
		expect_absolute("/..", "/");
		assert_int_equal(os_path_root("//?/C:/a"), 1);
		assert_int_equal(os_path_root("C:/a"), 0);
		expect_absolute("//server/share/a", "/server/share/a");
		return;
	}
	assert_int_equal(os_path_root("C:\\a"), 3);
	assert_int_equal(os_path_root("C:a"), 2);
	assert_int_equal(os_path_root("\\a"), 1);
	assert_int_equal(os_path_root("\\\\server\\share\\a"), 15);
	assert_int_equal(os_path_root("\\\\server\\share"), 14);
	assert_int_equal(os_path_root("\\\\?\\C:\\a"), 7);
	assert_int_equal(os_path_root("//?/C:/a"), 7);
	assert_int_equal(os_path_root("\\\\?\\UNC\\server\\share\\a"), 21);
	assert_int_equal(os_path_root("\\\\.\\Volume{x}\\a"), 14);
	char *cwd = os_getcwd(); /* "\\a": on the working directory's drive */
	assert_non_null(cwd);
	char want[64];
	snprintf(want, sizeof(want), "%.2s/a/c", cwd);
	free(cwd);
	expect_absolute("/a/./b/../c", want);
	expect_absolute("C:\\a\\.\\b\\..\\c", "C:/a/c");
	expect_absolute("C:\\..\\..", "C:/");
	expect_absolute("\\\\?\\C:\\a\\b\\..\\c", "//?/C:/a/c");
	expect_absolute("\\\\?\\C:\\..\\..", "//?/C:/");
	expect_absolute("\\\\server\\share\\a\\..\\..\\b", "//server/share/b");
	expect_absolute("\\\\?\\UNC\\server\\share\\..\\x", "//?/UNC/server/share/x");
	expect_relative("\\\\?\\C:\\m\\a\\x.qc", "\\\\?\\C:\\m\\b\\y.smd", "../b/y.smd");
	expect_relative("//s1/share/x.qc", "//s2/share/y.smd", "//s2/share/y.smd");
	expect_relative("C:/a/x.qc", "D:/a/y.smd", "D:/a/y.smd");
}


/* Names as the file system compares them (platform/os.h): a letter beyond ASCII and its
 * capital are one where names ignore case (Windows), and in a QC's names everywhere. */
static void test_names_fold(void **state)
{
	(void)state;
	assert_true(os_same_name_nocase("\xc3\x89" "clair", 7, "\xc3\xa9" "CLAIR", 7));                     /* Éclair, éCLAIR */
	assert_true(os_same_name_nocase("\xd0\x9c\xd0\xbe\xd0\xb4", 6, "\xd0\xbc\xd0\xbe\xd0\xb4", 6)); /* Мод, мод */
	assert_false(os_same_name_nocase("\xc3\x9f", 2, "SS", 2));                                       /* ß is no SS */
	assert_false(os_same_name_nocase("\xc3\xa9", 2, "e", 1));
	assert_false(os_same_name_nocase("a\xff", 2, "A\xfe", 2)); /* bytes of no character: themselves */
	char *k1 = os_path_key("Mods\\\xc3\x89" "clair.SMD"), *k2 = os_path_key("mods/\xc3\xa9" "CLAIR.smd");
	assert_non_null(k1);
	assert_non_null(k2);
	if (os_names_ignore_case()) {
		assert_string_equal(k1, k2);
		assert_int_equal(os_path_compare("Mods\\\xc3\x89" "clair.SMD", "mods/\xc3\xa9" "CLAIR.smd"), 0);
		assert_true(os_path_compare("a_b", "aZ") < 0); /* ASCII orders as its small letters */
	} else {
		assert_string_equal(k1, "Mods\\\xc3\x89" "clair.SMD");
		assert_true(os_path_compare("\xc3\x89" "clair", "\xc3\xa9" "clair") != 0);
	}
	free(k1);
	free(k2);
}

/* ---- a crew's rounds (sm_crew_run): each item once, the threads started once ------------- */

typedef struct crew_item {
	_Atomic int *runs;      /* per item of the round */
	size_t i;
	_Atomic int *busy;      /* items running */
} crew_item;

static void crew_item_run(void *arg)
{
	crew_item *it = arg;
	atomic_fetch_add(it->busy, 1);
	for (volatile int spin = 0; spin < 20000; spin++) {
	}
	atomic_fetch_add(&it->runs[it->i], 1);
	atomic_fetch_sub(it->busy, 1);
}

static void test_crew_rounds(void **state)
{
	(void)state;
	sm_crew c;
	memset(&c, 0, sizeof(c));
	static const size_t sizes[] = { 3, 1, 8, 5, 2, 8, 64, SM_TEAM_MAX + 9 };
	_Atomic int runs[SM_TEAM_MAX + 9], busy = 0;
	crew_item items[SM_TEAM_MAX + 9];
	size_t widest = 0;
	for (int round = 0; round < 40; round++) {
		size_t n = sizes[round % 8];
		for (size_t i = 0; i < n; i++) {
			atomic_store(&runs[i], 0);
			items[i] = (crew_item){ .runs = runs, .i = i, .busy = &busy };
		}
		sm_crew_run(&c, crew_item_run, items, sizeof(items[0]), n);
		for (size_t i = 0; i < n; i++)
			if (atomic_load(&runs[i]) != 1) fail_msg("round %d of %zu: item %zu ran %d times", round, n, i, atomic_load(&runs[i]));
		if (n > widest) widest = n;
		/* a thread for each item but the caller's (SM_TEAM_MAX at most), started once: as many
		 * as the widest round so far; a wider round's items go to the threads there are */
		assert_int_equal(c.started, widest - 1 < SM_TEAM_MAX ? widest - 1 : SM_TEAM_MAX);
		assert_int_equal(atomic_load(&busy), 0); /* every item done when the round returns */
	}
	sm_crew_end(&c);
	assert_int_equal(c.started, 0);
	assert_null(c.m);
	/* a crew ended is one never used: it starts again */
	atomic_store(&runs[0], 0);
	atomic_store(&runs[1], 0);
	sm_crew_run(&c, crew_item_run, items, sizeof(items[0]), 2);
	assert_int_equal(atomic_load(&runs[0]) + atomic_load(&runs[1]), 2);
	assert_int_equal(c.started, 1);
	sm_crew_end(&c);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commit_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folders, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folders_taken_away, setup, teardown),
		cmocka_unit_test_setup_teardown(test_already_there, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
		cmocka_unit_test(test_path_roots),
		cmocka_unit_test(test_names_fold),
		cmocka_unit_test(test_crew_rounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
