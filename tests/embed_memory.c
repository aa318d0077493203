/* The memory contract as an embedder meets it (doc/library.md, "Memory"), against the
 * installed library: a job given an allocator takes every byte it allocates from it, and
 * under a memory_limit below what it needs fails cleanly, says so and leaks nothing.
 *
 * Built and run by tests/cli_batch.sh (group install) with pkg-config's flags, glibc only:
 * the program replaces malloc and its kin, and counts a call as the library's own when it
 * comes from code in libsmdmx (its return address, dladdr), so that the C library's own
 * allocations (a FILE, a folder's handle) are not taken for the library's.
 *
 * usage: embed_memory diff A.smd B.smd
 *        embed_memory convert WAY IN OUT     (WAY: smdmx_convert_way's number)
 *        embed_memory batch DIR OUTDIR       (the model files below DIR, as DMX)
 *        embed_memory projects OUTDIR QC...  (a QC library to DMX, then what it wrote back to SMD)
 *        embed_memory walks DIR A B          (the model files and QCs below DIR; trees A and B paired)
 * Prints what it measured, one line each; exit 0 when the contract held, 1 when not. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <smdmx/smdmx.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t alignment, size_t size);

/* ---- calls to malloc from the library ------------------------------------------------------ */

static _Atomic bool counting;
static size_t direct_calls, direct_bytes;
static _Thread_local bool inside; /* dladdr's own allocations are not counted */

static void seen(void *from, size_t size)
{
	if (!counting || inside) return;
	inside = true;
	Dl_info info;
	if (dladdr(from, &info) && info.dli_fname && strstr(info.dli_fname, "libsmdmx")) {
		__atomic_add_fetch(&direct_calls, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&direct_bytes, size, __ATOMIC_RELAXED);
	}
	inside = false;
}

void *malloc(size_t size)
{
	seen(__builtin_return_address(0), size);
	return __libc_malloc(size);
}

void *calloc(size_t count, size_t size)
{
	seen(__builtin_return_address(0), count * size);
	return __libc_calloc(count, size);
}

void *realloc(void *p, size_t size)
{
	seen(__builtin_return_address(0), size);
	return __libc_realloc(p, size);
}

void free(void *p)
{
	__libc_free(p);
}

void *aligned_alloc(size_t alignment, size_t size)
{
	seen(__builtin_return_address(0), size);
	return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
	seen(__builtin_return_address(0), size);
	*out = __libc_memalign(alignment, size);
	return *out ? 0 : 12; /* ENOMEM */
}

/* ---- the caller's allocator ------------------------------------------------------------------ */

/* The caller's allocator: malloc's, counted (atomically: a job's threads call it at once). */
typedef struct counter {
	_Atomic long long live, peak;
	_Atomic size_t calls;
} counter;

static void c_grew(counter *c, long long by)
{
	long long now = atomic_fetch_add(&c->live, by) + by, peak = atomic_load(&c->peak);
	while (now > peak && !atomic_compare_exchange_weak(&c->peak, &peak, now)) {
	}
	atomic_fetch_add(&c->calls, 1);
}

static void *c_alloc(void *user, size_t size)
{
	void *p = __libc_malloc(size);
	if (p) c_grew(user, (long long)size);
	return p;
}

static void *c_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
	void *p = __libc_realloc(ptr, new_size);
	if (p) c_grew(user, (long long)new_size - (long long)old_size);
	return p;
}

static void c_free(void *user, void *ptr, size_t size)
{
	counter *c = user;
	atomic_fetch_sub(&c->live, (long long)size);
	__libc_free(ptr);
}

static smdmx_allocator allocator_of(counter *c, size_t limit)
{
	smdmx_allocator a = { c_alloc, c_realloc, c_free, c, limit, 0 };
	return a;
}

static int failures;

static void expect(bool held, const char *what)
{
	if (!held) {
		printf("FAILED: %s\n", what);
		failures++;
	}
}

static void ignore(void *user, const char *message)
{
	(void)message;
	++*(size_t *)user;
}

/* A job run under a limit below its need: it failed, said out of memory, gave back all it
 * took and stayed under the limit; the line printed, "JOB under a limit of N bytes: ...". */
static int limited(const char *job, const char *done, long long limit, bool ok, bool said, const counter *d)
{
	printf("%s under a limit of %lld bytes: %s, %s, %lld bytes at most, %lld left\n", job, limit, ok ? done : "failed",
	       said ? "out of memory said" : "not said", d->peak, d->live);
	expect(!ok && said, "under the limit: failed out of memory, said");
	expect(d->live == 0, "under the limit: all it took given back");
	expect(d->peak <= limit, "the limit bounded the whole job");
	return failures ? 1 : 0;
}

/* ---- the jobs -------------------------------------------------------------------------------- */

static int job_diff(const char *pa, const char *pb)
{
	smdmx_error e;
	smdmx_scene *s[2];
	const char *paths[2] = { pa, pb };
	for (int k = 0; k < 2; k++) {
		counter r = { 0, 0, 0 };
		smdmx_smd_read_options ro = { .allocator = allocator_of(&r, 0) };
		direct_calls = direct_bytes = 0;
		counting = true;
		s[k] = smdmx_smd_read_file(paths[k], &ro, &e, NULL);
		counting = false;
		printf("reading %s: %zu allocations through the allocator, %zu direct (%zu bytes)\n", paths[k], r.calls, direct_calls,
		       direct_bytes);
		if (!s[k]) {
			fprintf(stderr, "%s\n", e.message);
			return 2;
		}
	}
	smdmx_compare_options o;
	smdmx_diff_options(NULL, NULL, &o);
	smdmx_diff_options(s[0], s[1], &o);
	/* with enough memory: every byte through the allocator, none left */
	counter c = { 0, 0, 0 };
	o.allocator = allocator_of(&c, 0);
	size_t said = 0;
	direct_calls = direct_bytes = 0;
	counting = true;
	size_t n = smdmx_scene_diff(s[0], s[1], &o, ignore, &said, &e);
	counting = false;
	printf("diff: %zu differences, %zu allocations through the allocator (%lld bytes at most), %zu direct (%zu bytes), %lld bytes left\n",
	       n, c.calls, c.peak, direct_calls, direct_bytes, c.live);
	expect(n != SIZE_MAX && n == said, "the diff ran and said each difference");
	expect(direct_calls == 0, "the diff allocated nothing but through the allocator");
	expect(c.live == 0 && c.calls > 0, "the diff used the allocator and gave back all it took");
	/* under a limit below what it needs (half its peak): out of memory, said, nothing left */
	long long peak = c.peak;
	counter d = { 0, 0, 0 };
	o.allocator = allocator_of(&d, (size_t)(peak / 2));
	said = 0;
	n = smdmx_scene_diff(s[0], s[1], &o, ignore, &said, &e);
	printf("diff under a limit of %lld bytes: %s (%s), %lld bytes at most, %lld left\n", peak / 2,
	       n == SIZE_MAX ? "failed" : "ran", n == SIZE_MAX ? e.message : "", d.peak, d.live);
	expect(n == SIZE_MAX && e.code == SMDMX_ERROR_OUT_OF_MEMORY, "the diff under the limit failed out of memory");
	expect(d.peak <= peak / 2, "the limit bounded the whole diff");
	expect(d.live == 0, "the failed diff gave back all it took");
	smdmx_scene_free(s[0]);
	smdmx_scene_free(s[1]);
	return failures ? 1 : 0;
}

/* One conversion (way: smdmx_convert_way's number) of in to out with the allocator: every
 * byte through it and none left; then under half its peak: a clean failure, said, nothing
 * left, no output. */
static int job_convert(int way, const char *in, const char *out)
{
	const char *inputs[1] = { in };
	smdmx_convert_options o;
	memset(&o, 0, sizeof(o));
	o.way = (smdmx_convert_way)way;
	o.inputs = inputs;
	o.input_count = 1;
	o.output = out;
	o.force = true;
	/* each file read and written on two threads where it is large enough to split */
	o.smd_read.threads = o.dmx_read.threads = o.smd_write.threads = o.dmx_write.threads = 2;
	counter c = { 0, 0, 0 };
	o.allocator = allocator_of(&c, 0);
	smdmx_error e;
	direct_calls = direct_bytes = 0;
	counting = true;
	smdmx_convert_result *r = smdmx_convert(&o, &e);
	bool ok = r && r->ok;
	smdmx_convert_result_free(r);
	counting = false;
	printf("convert: %s, %zu allocations through the allocator (%lld bytes at most), %zu direct (%zu bytes), %lld bytes left\n",
	       ok ? "converted" : "failed", c.calls, c.peak, direct_calls, direct_bytes, c.live);
	expect(ok, "the conversion ran");
	expect(direct_calls == 0, "the conversion allocated nothing but through the allocator");
	expect(c.live == 0 && c.calls > 0, "the conversion used the allocator and gave back all it took");
	remove(out);
	long long peak = c.peak;
	counter d = { 0, 0, 0 };
	o.allocator = allocator_of(&d, (size_t)(peak / 2));
	r = smdmx_convert(&o, &e);
	const char *said = "";
	for (size_t i = 0; r && i < r->message_count; i++)
		if (r->messages[i].kind == SMDMX_MESSAGE_ERROR) said = r->messages[i].text;
	bool failed = !r || !r->ok;
	FILE *f = fopen(out, "rb");
	printf("convert under a limit of %lld bytes: %s (%s), %lld bytes at most, %s output\n", peak / 2,
	       failed ? "failed" : "converted", r ? said : e.message, d.peak, f ? "an" : "no");
	expect(failed && strstr(r ? said : e.message, "out of memory"), "the conversion under the limit failed out of memory, said");
	expect(!f, "and wrote nothing");
	if (f) fclose(f);
	smdmx_convert_result_free(r);
	printf("convert under the limit: %lld bytes left\n", d.live);
	expect(d.live == 0, "the failed conversion gave back all it took");
	expect(d.peak <= peak / 2, "the limit bounded the whole conversion");
	return failures ? 1 : 0;
}

/* A batch of the model files below a folder (recursive, into outdir) with the allocator: every
 * byte through it, none left once freed; then under half its peak: out of memory (the batch
 * ends so, or its jobs fail saying so), nothing left. */
static int job_batch(const char *dir, const char *outdir)
{
	const char *inputs[1] = { dir };
	smdmx_batch_options o;
	memset(&o, 0, sizeof(o));
	o.program = SMDMX_BATCH_ANY;
	o.inputs = inputs;
	o.input_count = 1;
	o.recursive = true;
	o.outdir = outdir;
	o.to = "dmx";
	o.keep_going = true;
	o.convert.force = true;
	counter c = { 0, 0, 0 };
	o.convert.allocator = allocator_of(&c, 0);
	o.jobs = o.threads = 2; /* (two jobs at once, each file read and written on two threads) */
	smdmx_error e;
	direct_calls = direct_bytes = 0;
	counting = true;
	smdmx_batch *b = smdmx_batch_convert(&o, &e);
	size_t jobs = b ? b->job_count : 0, failed = b ? b->failed : 0;
	smdmx_batch_free(b);
	counting = false;
	printf("batch: %zu jobs, %zu failed, %zu allocations through the allocator (%lld bytes at most), %zu direct (%zu bytes), "
	       "%lld bytes left\n",
	       jobs, failed, c.calls, c.peak, direct_calls, direct_bytes, c.live);
	expect(b != NULL && jobs > 0, "the batch ran");
	expect(direct_calls == 0, "the batch allocated nothing but through the allocator");
	expect(c.live == 0 && c.calls > 0, "the batch used the allocator and gave back all it took");
	long long peak = c.peak;
	counter d = { 0, 0, 0 };
	o.convert.allocator = allocator_of(&d, (size_t)(peak / 2));
	b = smdmx_batch_convert(&o, &e);
	bool said = (!b || b->out_of_memory) && e.code == SMDMX_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; b && i < b->job_count; i++)
		for (size_t k = 0; k < b->jobs[i].message_count; k++) said = said || strstr(b->jobs[i].messages[k].text, "out of memory");
	bool ok = b && b->ok;
	smdmx_batch_free(b);
	return limited("batch", "converted", peak / 2, ok, said, &d);
}

/* The walks of a folder (its model files, its QCs) and the pairing of two trees, with the
 * caller's allocator: what they hand out is its memory, given back by their frees; under a
 * limit below their need each fails out of memory and leaves nothing. */
static bool walks_once(const char *dir, const char *a, const char *b, size_t limit, counter *c, size_t *found,
                       bool *said)
{
	smdmx_allocator al = allocator_of(c, limit);
	smdmx_error e;
	char **paths = NULL, **qcs = NULL;
	size_t n = 0, nq = 0;
	bool ok = smdmx_batch_files(SMDMX_BATCH_ANY, dir, &al, &paths, &n, &e);
	*said = !ok && e.code == SMDMX_ERROR_OUT_OF_MEMORY;
	ok = ok && smdmx_project_files(dir, &al, &qcs, &nq, &e);
	*said = *said || (!ok && e.code == SMDMX_ERROR_OUT_OF_MEMORY);
	smdmx_tree_pairs *pairs = ok ? smdmx_batch_pair_trees(a, b, &al, &e) : NULL;
	*said = *said || (ok && !pairs && e.code == SMDMX_ERROR_OUT_OF_MEMORY);
	*found = n + nq + (pairs ? pairs->count : 0);
	ok = ok && pairs;
	smdmx_tree_pairs_free(pairs);
	smdmx_project_files_free(qcs);
	smdmx_batch_files_free(paths);
	return ok;
}

static int job_walks(const char *dir, const char *a, const char *b)
{
	counter c = { 0, 0, 0 };
	size_t found = 0;
	bool said = false;
	direct_calls = direct_bytes = 0;
	counting = true;
	bool ok = walks_once(dir, a, b, 0, &c, &found, &said);
	counting = false;
	printf("walks: %zu found, %zu allocations through the allocator (%lld bytes at most), %zu direct (%zu bytes), "
	       "%lld bytes left\n",
	       found, c.calls, c.peak, direct_calls, direct_bytes, c.live);
	expect(ok && found > 0, "the walks and the pairing found files");
	expect(direct_calls == 0, "the walks allocated nothing but through the allocator");
	expect(c.live == 0 && c.calls > 0, "the walks used the allocator and gave back all it took");
	long long peak = c.peak;
	counter d = { 0, 0, 0 };
	ok = walks_once(dir, a, b, (size_t)(peak / 2), &d, &found, &said);
	return limited("walks", "found", peak / 2, ok, said, &d);
}

/* One run of QC projects with the allocator (limit: its memory_limit) on two threads, whose
 * counts it shares: whether the run converted every file; what the allocator held at most,
 * what was left once the run was freed, its calls, and whether a failed run said out of
 * memory. */
static bool projects_once(const char *const *qcs, size_t n, const char *outdir, bool to_smd, size_t limit, long long *peak,
                          long long *left, size_t *calls, bool *oom)
{
	smdmx_project_options o;
	memset(&o, 0, sizeof(o));
	o.outdir = outdir;
	o.to_smd = to_smd;
	o.jobs = 2;
	o.threads = 2;
	o.keep_going = true;
	o.force = true;
	counter c = { 0, 0, 0 };
	o.allocator = allocator_of(&c, limit);
	smdmx_error e;
	smdmx_project_run *r = smdmx_projects_convert(qcs, n, NULL, 0, &o, &e);
	bool ok = r && r->ok;
	*oom = (!r || r->out_of_memory) && e.code == SMDMX_ERROR_OUT_OF_MEMORY; /* (files in place: the run says so) */
	smdmx_project_run_free(r);
	*peak = c.peak;
	*left = c.live;
	*calls = c.calls;
	return ok;
}

static int job_projects(const char *outdir, const char *const *qcs, size_t n)
{
	char back[4096];
	snprintf(back, sizeof(back), "%s_back", outdir); /* (beside: not inside the projects read) */
	for (int way = 0; way < 2; way++) {
		/* the library to DMX; then each QC written, back to SMD */
		const char *written[64];
		char paths[64][4096];
		size_t count = 0;
		if (way == 1) {
			for (size_t i = 0; i < n && i < 64; i++) {
				const char *slash = strrchr(qcs[i], '/');
				snprintf(paths[count], sizeof(paths[count]), "%s/%s", outdir, slash ? slash + 1 : qcs[i]);
				FILE *f = fopen(paths[count], "rb");
				if (f) {
					fclose(f);
					written[count] = paths[count];
					count++;
				}
			}
		}
		const char *const *these = way ? written : qcs;
		size_t these_n = way ? count : n;
		const char *out = way ? back : outdir;
		long long peak, left;
		size_t calls;
		bool oom;
		direct_calls = direct_bytes = 0;
		counting = true;
		bool ok = projects_once(these, these_n, out, way == 1, 0, &peak, &left, &calls, &oom);
		counting = false;
		printf("projects %s: %zu QCs, %s, %zu allocations through the allocator (%lld bytes at most), %zu direct (%zu bytes), "
		       "%lld bytes left\n",
		       way ? "to SMD" : "to DMX", these_n, ok ? "converted" : "failed", calls, peak, direct_calls, direct_bytes, left);
		expect(ok && these_n > 0, "the projects ran");
		expect(direct_calls == 0, "the projects allocated nothing but through the allocator");
		expect(left == 0 && calls > 0, "the projects used the allocator and gave back all it took");
		long long full = peak;
		char limited[4200];
		snprintf(limited, sizeof(limited), "%s_limited", out);
		ok = projects_once(these, these_n, limited, way == 1, (size_t)(full / 2), &peak, &left, &calls, &oom);
		printf("projects %s under a limit of %lld bytes: %s, %s, %lld bytes at most, %lld left\n", way ? "to SMD" : "to DMX",
		       full / 2, ok ? "converted" : "failed", oom ? "out of memory said" : "not said", peak, left);
		expect(!ok && oom, "the projects under the limit failed out of memory, said");
		expect(left == 0, "the failed projects gave back all they took");
		expect(peak <= full / 2, "the limit bounded the whole run");
	}
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "projects")) return job_projects(argv[2], (const char *const *)argv + 3, (size_t)argc - 3);
	if (argc == 4 && !strcmp(argv[1], "batch")) return job_batch(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "diff")) return job_diff(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "walks")) return job_walks(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "convert")) return job_convert(atoi(argv[2]), argv[3], argv[4]);
	fprintf(stderr, "usage: embed_memory diff A.smd B.smd\n       embed_memory convert WAY IN OUT\n       embed_memory batch DIR OUTDIR\n"
	                "       embed_memory projects OUTDIR QC...\n       embed_memory walks DIR TREE_A TREE_B\n");
	return 2;
}
