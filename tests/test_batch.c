/* Many files converted through the library (smdmx/batch.h): a folder's files planned and
 * converted, a VTA joining its SMD; the jobs settling in input order; what cannot work refused
 * before anything runs; two inputs of one output failed; an option that applies to some jobs
 * said on the others; the first failure stopping the batch; and every allocation of a batch
 * failing in turn. */
#include <math.h>

#include "util.h"
#include "project/project_internal.h"
#include "files.h"

static char *root;

/* root/rel, kept until the end (inputs point at these). */
static char **made;
static size_t made_count;

static const char *at(const char *rel)
{
	char *p = malloc(strlen(root) + strlen(rel) + 2);
	char **m = realloc(made, (made_count + 1) * sizeof(char *));
	assert_non_null(p);
	assert_non_null(m);
	sprintf(p, "%s/%s", root, rel);
	made = m;
	made[made_count++] = p;
	return p;
}

static void copy(const char *from_rel, const char *to)
{
	size_t n;
	char *data = test_slurp(test_path(from_rel), &n);
	assert_non_null(data);
	FILE *f = fopen(to, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
	free(data);
}

/* in/: a.smd with a.vta beside it, b.smd, sub/w.smd (an animation), notes.txt */
static int setup(void **state)
{
	(void)state;
	root = test_temp_path("batch");
	assert_true(os_mkdir(root));
	assert_true(os_mkdir(at("in")));
	assert_true(os_mkdir(at("in/sub")));
	copy("testdata/sample/arm.smd", at("in/a.smd"));
	copy("testdata/sample/arm.vta", at("in/a.vta"));
	copy("testdata/sample/arm.smd", at("in/b.smd"));
	copy("testdata/sample/arm_wave.smd", at("in/sub/w.smd"));
	copy("testdata/sample/arm.smd", at("in/notes.txt"));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_remove_tree(root);
	free(root);
	for (size_t i = 0; i < made_count; i++) free(made[i]);
	free(made);
	return 0;
}

static smdmx_batch_options options(const char *const *inputs, size_t n, const char *outdir)
{
	smdmx_batch_options o;
	memset(&o, 0, sizeof(o));
	o.program = SMDMX_BATCH_SMD2DMX;
	o.inputs = inputs;
	o.input_count = n;
	o.outdir = outdir;
	o.jobs = 2;
	return o;
}

typedef struct seen {
	size_t calls, settled[16];
	bool backwards;
} seen;

static void on_change(void *user, const smdmx_batch *b)
{
	seen *s = user;
	if (s->calls && b->settled < s->settled[s->calls - 1]) s->backwards = true;
	if (s->calls < 16) s->settled[s->calls++] = b->settled;
	/* what has settled is final: its state is no longer "not run" */
	for (size_t i = 0; i < b->settled; i++) assert_int_not_equal(b->jobs[i].state, SMDMX_BATCH_NOT_RUN);
}

/* What on_change sees of job 0's reading. */
typedef struct reading {
	uint64_t reads[128];
	size_t count;
	bool backwards;
} reading;

static void on_read(void *user, const smdmx_batch *b)
{
	reading *r = user;
	uint64_t now = b->jobs[0].read;
	if (r->count && now < r->reads[r->count - 1]) r->backwards = true;
	if (r->count < 128 && (!r->count || now != r->reads[r->count - 1])) r->reads[r->count++] = now;
}

/* The caller's own progress in the reading options: told too. */
static void count_bytes(void *user, uint64_t bytes)
{
	*(uint64_t *)user += bytes;
}

/* One big file: on_change told as its input is read (at each hundredth of its size), job.read
 * growing to its size; a progress the caller's reading options hold told the same bytes. */
static void test_read_progress(void **state)
{
	(void)state;
	assert_true(os_mkdir(at("big")));
	FILE *f = fopen(at("big/big.smd"), "wb");
	assert_non_null(f);
	fputs("version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n", f);
	for (int i = 0; i < 60000; i++) {
		fputs("skin\n", f);
		for (int v = 0; v < 3; v++)
			fprintf(f, "0 %d.%03d %d.5 %d.25 0.000000 0.000000 1.000000 0.%03d 0.%03d\n", i % 997, v, i / 997, v, i % 1000, v * 7);
	}
	fputs("end\n", f);
	assert_int_equal(fclose(f), 0);
	const char *in[1] = { at("big/big.smd") };
	smdmx_batch_options o = options(in, 1, at("big_out"));
	o.threads = 1;
	uint64_t given = 0;
	o.convert.smd_read.progress = (smdmx_progress){ count_bytes, &given };
	reading r = { .count = 0 };
	o.on_change = on_read;
	o.user = &r;
	smdmx_batch *b = smdmx_batch_convert(&o, NULL);
	assert_non_null(b);
	assert_true(b->ok);
	os_stat st;
	assert_true(os_stat_path(in[0], &st));
	assert_true(st.size > 2 * ((uint64_t)4 << 20));
	assert_int_equal(b->jobs[0].size, st.size);
	assert_int_equal(b->jobs[0].read, st.size);
	assert_int_equal(given, st.size);
	/* told as it was read, a step at a time, never backwards, to the whole */
	assert_false(r.backwards);
	assert_true(r.count >= 3);
	assert_true(r.reads[0] > 0 && r.reads[0] < st.size);
	assert_int_equal(r.reads[r.count - 1], st.size);
	smdmx_batch_free(b);
}

/* A folder with -r: a job per model in byte order of the names, the VTA with its SMD, the
 * outputs below the output folder as the inputs are below theirs; a text file not taken. */
static void test_folder(void **state)
{
	(void)state;
	const char *in[1] = { at("in") };
	smdmx_batch_options o = options(in, 1, at("out"));
	o.recursive = true;
	seen s = { 0 };
	o.on_change = on_change;
	o.user = &s;
	smdmx_error err;
	smdmx_batch *b = smdmx_batch_convert(&o, &err);
	assert_non_null(b);
	assert_int_equal(b->status, SMDMX_ERROR_NONE);
	assert_true(b->ok);
	assert_int_equal(b->job_count, 3);
	assert_int_equal(b->settled, 3);
	assert_int_equal(b->finished, 3);
	assert_string_equal(b->jobs[0].inputs[0], at("in/a.smd"));
	assert_string_equal(b->jobs[0].vta, at("in/a.vta"));
	assert_string_equal(b->jobs[0].output, at("out/a.dmx"));
	assert_string_equal(b->jobs[1].inputs[0], at("in/b.smd"));
	assert_null(b->jobs[1].vta);
	assert_string_equal(b->jobs[2].output, at("out/sub/w.dmx"));
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(b->jobs[i].state, SMDMX_BATCH_CONVERTED);
		assert_int_equal(b->jobs[i].written_count, 1);
		assert_string_equal(b->jobs[i].written[0], b->jobs[i].output);
		assert_true(test_exists(b->jobs[i].output));
	}
	assert_int_equal(b->message_count, 0);
	assert_true(s.calls >= 1);
	assert_false(s.backwards);
	smdmx_batch_free(b);
	/* again with update: every job up to date, nothing run, a note counts them */
	o.update = true;
	o.on_change = NULL;
	b = smdmx_batch_convert(&o, &err);
	assert_non_null(b);
	assert_int_equal(b->up_to_date, 3);
	for (size_t i = 0; i < 3; i++) assert_int_equal(b->jobs[i].state, SMDMX_BATCH_UP_TO_DATE);
	assert_int_equal(b->message_count, 1);
	assert_int_equal(b->messages[0].kind, SMDMX_MESSAGE_NOTE);
	assert_string_equal(b->messages[0].text, "3 of 3 inputs up to date (-u)");
	smdmx_batch_free(b);
	/* the files a program takes below a folder, as recursive finds them */
	char **paths;
	size_t count;
	assert_true(smdmx_batch_files(SMDMX_BATCH_SMD2DMX, at("in/"), NULL, &paths, &count, &err));
	assert_int_equal(count, 4);
	assert_string_equal(paths[0], at("in/a.smd"));
	assert_string_equal(paths[1], at("in/a.vta"));
	assert_string_equal(paths[3], at("in/sub/w.smd"));
	assert_null(paths[4]);
	smdmx_batch_files_free(paths);
	assert_true(smdmx_batch_files(SMDMX_BATCH_DMX2SMD, at("out"), NULL, &paths, &count, NULL));
	assert_int_equal(count, 3);
	smdmx_batch_files_free(paths);
	assert_false(smdmx_batch_files(SMDMX_BATCH_ANY, at("none"), NULL, &paths, &count, &err));
	assert_int_equal(err.code, SMDMX_ERROR_IO);
	assert_int_equal(count, 0);
	smdmx_batch_files_free(paths);
}

/* What cannot work is refused before anything runs: a folder without recursive, a file the
 * program does not take, an option that applies to no job; nothing written. */
static void test_refused(void **state)
{
	(void)state;
	const char *in[2] = { at("in"), at("in/notes.txt") };
	smdmx_batch_options o = options(in, 2, at("refused"));
	smdmx_batch *b = smdmx_batch_convert(&o, NULL);
	assert_non_null(b);
	assert_int_equal(b->status, SMDMX_ERROR_USAGE);
	assert_int_equal(b->message_count, 2);
	char want[4400];
	snprintf(want, sizeof(want), "'%s' is a directory (-r converts the files below it)", at("in"));
	assert_string_equal(b->messages[0].text, want);
	assert_null(b->messages[0].path);
	snprintf(want, sizeof(want), "'%s': not an input of smd2dmx (.smd, .sma, .phys, .vta)", at("in/notes.txt"));
	assert_string_equal(b->messages[1].text, want);
	smdmx_batch_free(b);
	const char *one[1] = { at("in/b.smd") };
	o = options(one, 1, at("refused"));
	o.given = SMDMX_BATCH_GIVEN_GOLDSRC;
	b = smdmx_batch_convert(&o, NULL);
	assert_int_equal(b->status, SMDMX_ERROR_USAGE);
	snprintf(want, sizeof(want), "'--goldsrc' does not apply to '%s' (it shapes SMD output)", at("in/b.smd"));
	assert_string_equal(b->messages[0].text, want);
	assert_int_equal(b->jobs[0].state, SMDMX_BATCH_NOT_RUN);
	smdmx_batch_free(b);
	assert_false(test_exists(at("refused")));
}

/* Options no writer or reader takes are refused before any work, by the check a caller can
 * make first (smdmx_convert_options_check), by one conversion, a batch and a QC run: each
 * says the programs' option, and nothing is read or written. */
static void test_options_checked(void **state)
{
	(void)state;
	smdmx_error err;
	smdmx_convert_options c;
	memset(&c, 0, sizeof(c));
	assert_true(smdmx_convert_options_check(&c, &err)); /* zero: the defaults */
	struct {
		void (*set)(smdmx_convert_options *);
		const char *message;
	} cases[] = {
		{ NULL, "--encoding binary is version 1 to 5 or 9, not 7" },
		{ NULL, "--scale wants a positive number, not -2" },
		{ NULL, "--scale wants a positive number, not nan" },
		{ NULL, "--up-axis is X, Y or Z, not 'Q'" },
		{ NULL, "--fps wants a positive number, not -30" },
		{ NULL, "--model-version is 1, 15, 18 or 22, not 11" },
		{ NULL, "--key-tolerance is a number, 0 or more, not -1" },
		{ NULL, "no way of conversion 99" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		memset(&c, 0, sizeof(c));
		switch (k) {
		case 0: c.dmx_write.encoding = "binary", c.dmx_write.encoding_version = 7; break;
		case 1: c.scale = -2; break;
		case 2: c.scale = NAN; break;
		case 3: c.up_axis = 'Q'; break;
		case 4: c.smd_read.frame_rate = -30; break;
		case 5: c.model_options.model_version = 11; break;
		case 6: c.model_options.key_tolerance = -1; break;
		default: c.way = (smdmx_convert_way)99; break;
		}
		assert_false(smdmx_convert_options_check(&c, &err));
		assert_int_equal(err.code, SMDMX_ERROR_USAGE);
		if (k != 2) assert_string_equal(err.message, cases[k].message); /* a NaN's spelling is the C library's */
	}
	/* one conversion: NULL, nothing written */
	const char *one[1] = { at("in/b.smd") };
	memset(&c, 0, sizeof(c));
	c.inputs = one;
	c.input_count = 1;
	c.output = at("checked/b.dmx");
	c.dmx_write.encoding = "binary";
	c.dmx_write.encoding_version = 7;
	assert_null(smdmx_convert(&c, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "--encoding binary is version 1 to 5 or 9, not 7");
	/* a batch: its status, said once, no job run */
	smdmx_batch_options o = options(one, 1, at("checked"));
	o.convert.dmx_write = c.dmx_write;
	smdmx_batch *b = smdmx_batch_convert(&o, &err);
	assert_non_null(b);
	assert_int_equal(b->status, SMDMX_ERROR_USAGE);
	assert_false(b->ok);
	assert_int_equal(b->message_count, 1);
	assert_string_equal(b->messages[0].text, "--encoding binary is version 1 to 5 or 9, not 7");
	assert_int_equal(b->job_count, 0);
	smdmx_batch_free(b);
	/* the biggest first is a setting of its own, and goes with keep_going alone */
	o = options(one, 1, at("checked"));
	o.biggest_first = true;
	b = smdmx_batch_convert(&o, &err);
	assert_int_equal(b->status, SMDMX_ERROR_USAGE);
	assert_string_equal(b->messages[0].text, "biggest_first without keep_going: the jobs go in input order, the first failure stopping them");
	smdmx_batch_free(b);
	/* a QC run: NULL, nothing done */
	smdmx_project_options po;
	memset(&po, 0, sizeof(po));
	po.outdir = at("checked");
	po.model.model_version = 11;
	const char *qc[1] = { test_path("testdata/qc/face/face.qc") };
	assert_null(smdmx_projects_convert(qc, 1, NULL, 0, &po, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "--model-version is 1, 15, 18 or 22, not 11");
	po.model.model_version = 0;
	po.copy_failed = true; /* a setting of its own, that goes with keep_going alone */
	assert_null(smdmx_projects_convert(qc, 1, NULL, 0, &po, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "copy_failed without keep_going: the first failure stops the run, nothing is copied in its place");
	assert_false(test_exists(at("checked")));
}

/* Two inputs of one output fail without running, each naming the other; the others convert
 * (keep_going). An option that applies to some jobs is a warning on the others. */
static void test_clash_and_warning(void **state)
{
	(void)state;
	const char *in[3] = { at("in/a.smd"), at("in/sub/w.smd"), at("in/a.smd") };
	smdmx_batch_options o = options(in, 3, at("clash"));
	o.program = SMDMX_BATCH_ANY;
	o.to = "dmx";
	o.keep_going = true;
	o.given = SMDMX_BATCH_GIVEN_FPS;
	o.convert.smd_read.frame_rate = 24;
	smdmx_batch *b = smdmx_batch_convert(&o, NULL);
	assert_non_null(b);
	assert_false(b->ok);
	assert_int_equal(b->failed, 2);
	char want[4400];
	snprintf(want, sizeof(want), "'%s' would also be written from '%s'", at("clash/a.dmx"), at("in/a.smd"));
	assert_int_equal(b->jobs[0].state, SMDMX_BATCH_FAILED);
	assert_int_equal(b->jobs[0].message_count, 1);
	assert_string_equal(b->jobs[0].messages[0].text, want);
	assert_string_equal(b->jobs[0].messages[0].path, at("in/a.smd"));
	assert_int_equal(b->jobs[1].state, SMDMX_BATCH_CONVERTED);
	assert_true(b->jobs[1].used & SMDMX_CONVERT_GIVEN_FPS);
	assert_int_equal(b->message_count, 1);
	assert_string_equal(b->messages[0].text, "2 of 3 inputs failed");
	smdmx_batch_free(b);
	/* --vta for a DMX written again: said on that one, taken by the SMD */
	const char *mixed[2] = { at("in/b.smd"), at("clash/w.dmx") };
	o = options(mixed, 2, at("mixed"));
	o.program = SMDMX_BATCH_ANY;
	o.to = "dmx";
	o.given = SMDMX_BATCH_GIVEN_VTA;
	o.convert.vta = at("in/a.vta");
	b = smdmx_batch_convert(&o, NULL);
	assert_non_null(b);
	assert_true(b->ok);
	assert_int_equal(b->jobs[1].message_count, 1);
	assert_int_equal(b->jobs[1].messages[0].kind, SMDMX_MESSAGE_WARNING);
	assert_string_equal(b->jobs[1].messages[0].text,
	                    "'--vta' does not apply here (a DMX holds its shapes itself): ignored for this file; nothing to do");
	smdmx_batch_free(b);
}

/* Without keep_going the first failure stops the batch, the same at any number of workers:
 * what comes before it is in place, nothing after it is. */
static void test_stops(void **state)
{
	(void)state;
	FILE *f = fopen(at("in/bad.smd"), "wb");
	assert_non_null(f);
	fputs("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n0 0 0 0 0 0 0 0 0\n", f);
	fclose(f);
	const char *in[4] = { at("in/b.smd"), at("in/bad.smd"), at("in/a.smd"), at("in/sub/w.smd") };
	for (unsigned jobs = 1; jobs <= 4; jobs++) {
		char out[32];
		snprintf(out, sizeof(out), "stop%u", jobs);
		smdmx_batch_options o = options(in, 4, at(out));
		o.jobs = jobs;
		smdmx_batch *b = smdmx_batch_convert(&o, NULL);
		assert_non_null(b);
		assert_false(b->ok);
		assert_int_equal(b->jobs[0].state, SMDMX_BATCH_CONVERTED);
		assert_int_equal(b->jobs[1].state, SMDMX_BATCH_FAILED);
		assert_true(b->jobs[1].message_count >= 1);
		assert_true(b->jobs[2].state == SMDMX_BATCH_NOT_RUN || b->jobs[2].state == SMDMX_BATCH_CANCELLED);
		assert_true(b->jobs[3].state == SMDMX_BATCH_NOT_RUN || b->jobs[3].state == SMDMX_BATCH_CANCELLED);
		assert_int_equal(b->not_run, 2);
		assert_string_equal(b->messages[b->message_count - 1].text,
		                    "stopped after the first failure: 2 of 4 inputs not converted (--keep-going converts the rest)");
		char where[64];
		snprintf(where, sizeof(where), "%s/b.dmx", out);
		assert_true(test_exists(at(where)));
		snprintf(where, sizeof(where), "%s/a.dmx", out);
		assert_false(test_exists(at(where)));
		smdmx_batch_free(b);
	}
	os_remove(at("in/bad.smd"));
}

/* Temporary files (a dot first) below path. */
static size_t temporaries(const char *path)
{
	size_t n = 0;
	os_dir *d = os_dir_open(path);
	const char *e;
	while (d && (e = os_dir_next(d))) {
		if (!strcmp(e, ".") || !strcmp(e, "..")) continue;
		char sub[4200];
		snprintf(sub, sizeof(sub), "%s/%s", path, e);
		os_stat st;
		if (os_stat_path(sub, &st) && st.kind == OS_DIRECTORY) n += temporaries(sub);
		else n += e[0] == '.';
	}
	if (d) os_dir_close(d);
	return n;
}

/* What on_change sees of a long batch: settled never going back, and the files of the jobs
 * it has settled in place when it is told. */
typedef struct placed {
	size_t calls, last, between;
	bool backwards, missing;
} placed;

static void on_placed(void *user, const smdmx_batch *b)
{
	placed *p = user;
	if (b->settled < p->last) p->backwards = true;
	p->last = b->settled;
	p->calls++;
	if (b->settled > 0 && b->settled < b->job_count) p->between++;
	for (size_t i = 0; i < b->settled; i++) {
		/* (each job here writes one file) */
		if (b->jobs[i].state == SMDMX_BATCH_CONVERTED && b->jobs[i].written_count != 1) p->missing = true;
		for (size_t k = 0; k < b->jobs[i].written_count; k++)
			if (!test_exists(b->jobs[i].written[k])) p->missing = true;
	}
}

/* Forty inputs, the 26th bad, at one and two jobs at once, stopping at the failure and with
 * keep_going: the outputs are put in place a few jobs at a time (each flushed before its
 * rename), so the batch settles in steps before its end, each settled job's file is there
 * when it is told, the jobs before the failure (all others, with keep_going) are converted
 * and in place, none after it (without), and no temporary file is left. */
static void test_many(void **state)
{
	(void)state;
	enum { N = 40, BAD = 25 };
	char rel[64];
	const char *in[N];
	assert_true(os_mkdir(at("many")));
	for (int i = 0; i < N; i++) {
		snprintf(rel, sizeof(rel), "many/m%02d.smd", i);
		in[i] = at(rel);
		if (i != BAD) {
			copy("testdata/sample/arm.smd", at(rel));
			continue;
		}
		FILE *f = fopen(in[i], "wb");
		assert_non_null(f);
		fputs("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n0 0 0 0 0 0 0 0 0\n", f);
		fclose(f);
	}
	for (unsigned run = 0; run < 4; run++) {
		bool keep = run & 1;
		char out[32];
		snprintf(out, sizeof(out), "many_out%u", run);
		smdmx_batch_options o = options(in, N, at(out));
		o.jobs = 1 + run / 2;
		o.keep_going = keep;
		placed p = { 0 };
		o.on_change = on_placed;
		o.user = &p;
		smdmx_batch *b = smdmx_batch_convert(&o, NULL);
		assert_non_null(b);
		assert_false(b->ok);
		assert_false(p.backwards);
		assert_false(p.missing);
		/* In steps: one worker puts each group in place as it fills, and without keep_going a
		 * second waits at most 32 jobs ahead of the first not in place. With keep_going two
		 * workers have no such bound: the first job may still run, on a busy machine, when
		 * the other has done all the rest, and the batch then settles only at its end. */
		if (o.jobs == 1 || !keep) assert_true(p.between >= 1);
		assert_int_equal(b->settled, N);
		assert_int_equal(b->failed, 1);
		assert_int_equal(b->not_run, keep ? 0 : N - BAD - 1);
		for (int i = 0; i < N; i++) {
			snprintf(rel, sizeof(rel), "%s/m%02d.dmx", out, i);
			bool converted = i < BAD || (keep && i != BAD);
			assert_int_equal(b->jobs[i].state, converted ? SMDMX_BATCH_CONVERTED
			                                   : i == BAD  ? SMDMX_BATCH_FAILED
			                                   : b->jobs[i].state == SMDMX_BATCH_CANCELLED ? SMDMX_BATCH_CANCELLED
			                                               : SMDMX_BATCH_NOT_RUN);
			assert_int_equal(b->jobs[i].written_count, converted ? 1 : 0);
			assert_int_equal(test_exists(at(rel)), converted);
		}
		smdmx_batch_free(b);
		assert_int_equal(temporaries(at(out)), 0);
	}
}

/* Every allocation of a batch failing in turn (one worker, one thread a file), through its
 * allocator (convert.allocator: the batch's own memory and every job's): it ends out of
 * memory (NULL) before any file is in place, or after, saying so with every file in place
 * listed, or with the jobs that ran out failed and saying so; never a crash, no temporary
 * file, and once it is freed nothing left; the count after the last failure converts. */
static void test_out_of_memory(void **state)
{
	(void)state;
	/* a folder (its jobs' outputs put in place a few at a time, by the batch) and one file
	 * (its outputs by its conversion, whose list the job keeps) */
	for (int one = 0; one < 2; one++) {
	const char *in[1] = { one ? at("in/a.smd") : at("in") };
	size_t failures = 0, nothing_done = 0, placed_after = 0, lost_some = 0;
	/* (with a stride, the last allocations, those after the files are in place, each in turn
	 * once the stride has passed them) */
	size_t step = SWEEP_STRIDE;
	for (size_t n = 1;; n += step) {
		test_remove_tree(at("sweep"));
		smdmx_batch_options o = options(in, 1, at("sweep"));
		o.recursive = !one;
		o.convert.notes = one; /* (said once the files are in place: room that may run out then) */
		o.jobs = 1;
		o.threads = 1;
		test_counter c = { 0, 0, 0 };
		o.convert.allocator = test_allocator(&c);
		o.convert.allocator.fail_after = n;
		smdmx_error err;
		smdmx_batch *b = smdmx_batch_convert(&o, &err);
		size_t left = temporaries(at("sweep"));
		if (left) fail_msg("allocation %zu failing left %zu temporary files", n, left);
		bool ok = b && b->ok;
		/* a message memory could not hold is counted, and only a batch that ran out loses one */
		size_t lost = b ? b->messages_lost : 0;
		for (size_t i = 0; b && i < b->job_count; i++) lost += b->jobs[i].messages_lost;
		if (lost && !b->out_of_memory) fail_msg("allocation %zu failing: %zu messages lost, and the batch did not run out", n, lost);
		lost_some += lost > 0;
		if (b && b->out_of_memory) {
			/* files were in place when memory ran out: the batch says so, and which they are,
			 * every one of them */
			assert_int_equal(b->status, SMDMX_ERROR_OUT_OF_MEMORY);
			assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
			assert_false(ok);
			char **there = NULL;
			size_t n_there = 0, listed = 0;
			assert_true(smdmx_batch_files(SMDMX_BATCH_ANY, at("sweep"), NULL, &there, &n_there, NULL));
			for (size_t i = 0; i < b->job_count; i++) {
				listed += b->jobs[i].written_count;
				for (size_t k = 0; k < b->jobs[i].written_count; k++) {
					bool found = false;
					for (size_t q = 0; q < n_there && !found; q++) found = !strcmp(there[q], b->jobs[i].written[k]);
					if (!found) fail_msg("allocation %zu failing: '%s' listed as written, not there", n, b->jobs[i].written[k]);
				}
			}
			if (listed != n_there) fail_msg("allocation %zu failing: %zu files there, %zu listed", n, n_there, listed);
			assert_true(listed > 0);
			smdmx_batch_files_free(there);
			placed_after++;
		} else if (b && !ok) {
			for (size_t i = 0; i < b->job_count; i++) {
				if (b->jobs[i].state != SMDMX_BATCH_FAILED) continue;
				bool said = false;
				for (size_t k = 0; k < b->jobs[i].message_count; k++) said = said || strstr(b->jobs[i].messages[k].text, "out of memory");
				if (!said)
					fail_msg("allocation %zu failing: job %zu failed without saying out of memory (%zu messages: '%s')", n, i,
					         b->jobs[i].message_count, b->jobs[i].message_count ? b->jobs[i].messages[0].text : "");
			}
		}
		smdmx_batch_free(b);
		if (c.live != 0) fail_msg("allocation %zu failing: %lld bytes left", n, c.live);
		if (ok && step > 1) {
			n -= step;
			step = 1;
			continue;
		}
		if (ok) break;
		if (!b && err.code != SMDMX_ERROR_OUT_OF_MEMORY) fail_msg("allocation %zu failing: %s", n, err.message);
		nothing_done += !b;
		failures++;
		if (n > 100000) fail_msg("no end to the sweep");
	}
	print_message("%s: allocations failed in turn: %zu (%zu ending the batch before any file was in place, %zu after, "
	              "%zu of those with messages lost)\n",
	              one ? "one file" : "a folder", failures, nothing_done, placed_after, lost_some);
	assert_true(failures > 30 / SWEEP_STRIDE);
	assert_true(nothing_done > 0);
	assert_true(placed_after > 0);
	assert_true(lost_some > 0); /* (the notes said after the files are in place) */
	}
}

/* One conversion of each way a model file goes, through its allocator with each allocation
 * failing in turn: NULL out of memory, or a result that fails saying so; no output, no
 * temporary file, nothing left once the result is freed; then it converts. */
static void test_convert_out_of_memory(void **state)
{
	(void)state;
	static const struct {
		smdmx_convert_way way;
		const char *in, *out;
	} ways[] = {
		{ SMDMX_CONVERT_SMD_TO_DMX, "testdata/sample/arm.smd", "conv/a.dmx" },
		{ SMDMX_CONVERT_DMX_TO_DMX, "testdata/model/arm.dmx", "conv/b.dmx" },
		{ SMDMX_CONVERT_DMX_TO_SMD, "testdata/model/arm_wave.dmx", "conv/c.smd" },
		{ SMDMX_CONVERT_SMD_TO_SMD, "testdata/sample/arm.smd", "conv/d.smd" },
	};
	for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
		size_t n, failures = 0;
		for (n = 1; n < 100000; n++) {
			test_remove_tree(at("conv"));
			const char *in[1] = { test_path(ways[w].in) };
			smdmx_convert_options o;
			memset(&o, 0, sizeof(o));
			o.way = ways[w].way;
			o.inputs = in;
			o.input_count = 1;
			o.output = at(ways[w].out);
			test_counter c = { 0, 0, 0 };
			o.allocator = test_allocator(&c);
			o.allocator.fail_after = n;
			smdmx_error err;
			smdmx_convert_result *r = smdmx_convert(&o, &err);
			bool ok = r && r->ok, said = !r && err.code == SMDMX_ERROR_OUT_OF_MEMORY;
			char first[300] = "";
			for (size_t i = 0; r && i < r->message_count; i++) {
				said = said || strstr(r->messages[i].text, "out of memory");
				if (!*first) snprintf(first, sizeof(first), "%s", r->messages[i].text);
			}
			if (!r) snprintf(first, sizeof(first), "%s", err.message);
			smdmx_convert_result_free(r);
			if (c.live != 0) fail_msg("way %d, allocation %zu failing: %lld bytes left", ways[w].way, n, c.live);
			size_t left = temporaries(at("conv"));
			if (left) fail_msg("way %d, allocation %zu failing: %zu temporary files left", ways[w].way, n, left);
			FILE *f = fopen(at(ways[w].out), "rb");
			if (f) fclose(f);
			if (ok) {
				assert_non_null(f);
				break;
			}
			if (!said) fail_msg("way %d, allocation %zu failing: a failure that does not say out of memory: '%s'", ways[w].way, n, first);
			if (f) fail_msg("way %d, allocation %zu failing: an output in place", ways[w].way, n);
			failures++;
		}
		if (failures < 20) fail_msg("way %d: only %zu allocations to fail", ways[w].way, failures);
	}
	test_remove_tree(at("conv"));
}

/* Every error a result carries has its code: an output already there (EXISTS), an input
 * that is not there (IO), the warnings of -W error (WARNINGS), a batch's own usage error
 * (USAGE) and its line of failures (the first failed job's code); warnings and notes none. */
static int first_error_code(const smdmx_message *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].kind == SMDMX_MESSAGE_ERROR) return (int)m[i].code;
	return -1;
}

static void test_message_codes(void **state)
{
	(void)state;
	test_remove_tree(at("codes"));
	assert_true(os_mkdir(at("codes")));
	const char *in[1] = { test_path("testdata/sample/arm.smd") };
	smdmx_convert_options o;
	memset(&o, 0, sizeof(o));
	o.way = SMDMX_CONVERT_SMD_TO_DMX;
	o.inputs = in;
	o.input_count = 1;
	o.output = at("codes/arm.dmx");
	o.notes = true;
	smdmx_convert_result *r = smdmx_convert(&o, NULL);
	assert_true(r && r->ok);
	for (size_t i = 0; i < r->message_count; i++) assert_int_equal(r->messages[i].code, SMDMX_ERROR_NONE);
	smdmx_convert_result_free(r);
	r = smdmx_convert(&o, NULL); /* again: the file is there */
	assert_true(r && !r->ok);
	assert_int_equal(first_error_code(r->messages, r->message_count), SMDMX_ERROR_EXISTS);
	smdmx_convert_result_free(r);
	in[0] = at("codes/not_there.smd");
	o.output = at("codes/n.dmx");
	r = smdmx_convert(&o, NULL);
	assert_true(r && !r->ok);
	assert_int_equal(first_error_code(r->messages, r->message_count), SMDMX_ERROR_IO);
	smdmx_convert_result_free(r);
	/* a batch: its own usage error, and its line of failures */
	const char *none[1] = { at("codes") };
	smdmx_batch_options bo = options(none, 1, at("codes_out"));
	smdmx_batch *b = smdmx_batch_convert(&bo, NULL);
	assert_non_null(b);
	assert_int_equal(b->status, SMDMX_ERROR_USAGE);
	assert_int_equal(b->messages[0].code, SMDMX_ERROR_USAGE);
	smdmx_batch_free(b);
	const char *two[2] = { at("codes/not_there.smd"), test_path("testdata/sample/arm.smd") };
	bo = options(two, 2, at("codes_out"));
	bo.keep_going = true;
	b = smdmx_batch_convert(&bo, NULL);
	assert_non_null(b);
	assert_int_equal(b->failed, 1);
	assert_int_equal(first_error_code(b->jobs[0].messages, b->jobs[0].message_count), SMDMX_ERROR_IO);
	assert_int_equal(b->message_count, 1);
	assert_string_equal(b->messages[0].text, "1 of 2 inputs failed");
	assert_int_equal(b->messages[0].code, SMDMX_ERROR_IO);
	assert_int_equal(b->messages[0].byte, 0);
	smdmx_batch_free(b);
	/* a binary DMX cut short: its error's place is a byte (line 0), in the conversion's
	 * message and the batch job's alike */
	in[0] = test_path("testdata/sample/arm.smd");
	o.output = at("codes/bin.dmx");
	o.dmx_write.encoding = "binary";
	r = smdmx_convert(&o, NULL);
	assert_true(r && r->ok);
	smdmx_convert_result_free(r);
	size_t size = 0;
	char *bin = test_slurp(at("codes/bin.dmx"), &size);
	assert_non_null(bin);
	FILE *f = fopen(at("codes/cut.dmx"), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bin, 1, size / 2, f), size / 2);
	assert_int_equal(fclose(f), 0);
	free(bin);
	const char *cut[1] = { at("codes/cut.dmx") };
	memset(&o, 0, sizeof(o));
	o.way = SMDMX_CONVERT_DMX_TO_SMD;
	o.inputs = cut;
	o.input_count = 1;
	o.output = at("codes/cut.smd");
	r = smdmx_convert(&o, NULL);
	assert_true(r && !r->ok);
	const smdmx_message *e = NULL;
	for (size_t i = 0; i < r->message_count && !e; i++)
		if (r->messages[i].kind == SMDMX_MESSAGE_ERROR) e = &r->messages[i];
	assert_non_null(e);
	if (!e) return;
	assert_int_equal(e->line, 0);
	assert_non_null(strstr(e->text, "byte "));
	assert_int_equal(e->byte, strtoull(strstr(e->text, "byte ") + 5, NULL, 10) + 1);
	uint64_t want = e->byte;
	assert_true(want > 0);
	smdmx_convert_result_free(r);
	bo = options(cut, 1, at("codes_out"));
	bo.program = SMDMX_BATCH_DMX2SMD;
	b = smdmx_batch_convert(&bo, NULL);
	assert_non_null(b);
	e = NULL;
	for (size_t i = 0; i < b->jobs[0].message_count && !e; i++)
		if (b->jobs[0].messages[i].kind == SMDMX_MESSAGE_ERROR) e = &b->jobs[0].messages[i];
	assert_non_null(e);
	if (e) assert_int_equal(e->byte, want);
	smdmx_batch_free(b);
	test_remove_tree(at("codes"));
	test_remove_tree(at("codes_out"));
}

/* threads left 0 (the batch's choice) or given with a memory limit on a step's own allocator:
 * the jobs convert (the reader counts its threads together under the limit). */
static void test_threads_under_limit(void **state)
{
	(void)state;
	const char *in[1] = { at("in") };
	smdmx_batch_options o = options(in, 1, at("limited"));
	o.recursive = true;
	o.jobs = 1;
	o.convert.smd_read.allocator.memory_limit = (size_t)64 << 20;
	for (unsigned threads = 0; threads <= 2; threads += 2) {
		o.threads = threads;
		smdmx_batch *b = smdmx_batch_convert(&o, NULL);
		assert_non_null(b);
		if (!b->ok) fail_msg("%zu of %zu jobs failed under a limit with threads %u", b->failed, b->job_count, threads);
		smdmx_batch_free(b);
		test_remove_tree(at("limited"));
	}
}

static bool said_in_jobs(const smdmx_batch *b, const char *text)
{
	for (size_t i = 0; i < b->job_count; i++)
		for (size_t k = 0; k < b->jobs[i].message_count; k++)
			if (strstr(b->jobs[i].messages[k].text, text)) return true;
	return false;
}

/* One allocator for a whole batch (convert.allocator): every job's readers, writers and
 * model take from it on the batch's threads, two jobs at once and two threads a file; its
 * limit bounds the batch (its peak stays under it), and a limit too small fails the jobs
 * out of memory, said, with all it took given back. Given besides a step's own allocator:
 * refused before anything runs. */
static void test_batch_allocator(void **state)
{
	(void)state;
	const char *in[1] = { at("in") };
	smdmx_batch_options o = options(in, 1, at("one_allocator"));
	o.recursive = true;
	o.threads = 2;
	test_counter c = { 0, 0, 0 };
	o.convert.allocator = test_allocator(&c);
	o.convert.allocator.memory_limit = (size_t)64 << 20;
	smdmx_batch *b = smdmx_batch_convert(&o, NULL);
	assert_non_null(b);
	if (!b->ok) fail_msg("%zu of %zu jobs failed with the batch's allocator", b->failed, b->job_count);
	assert_true(atomic_load(&c.live) > 0); /* its lists of files written, the batch's */
	assert_true(atomic_load(&c.calls) > 0);
	long long peak = atomic_load(&c.peak);
	smdmx_batch_free(b);
	assert_int_equal(atomic_load(&c.live), 0);
	test_remove_tree(at("one_allocator"));
	/* under a limit of half that peak: some job runs out, says so, and nothing is left */
	test_counter d = { 0, 0, 0 };
	o.convert.allocator.user = &d;
	o.convert.allocator.memory_limit = (size_t)(peak / 2);
	o.keep_going = true;
	b = smdmx_batch_convert(&o, NULL);
	assert_non_null(b);
	assert_false(b->ok);
	assert_true(b->failed > 0);
	assert_true(said_in_jobs(b, "out of memory"));
	if (atomic_load(&d.peak) > peak / 2) fail_msg("the batch took %lld bytes at once under a limit of %lld", atomic_load(&d.peak), peak / 2);
	smdmx_batch_free(b);
	assert_int_equal(atomic_load(&d.live), 0);
	test_remove_tree(at("one_allocator"));
	/* the allocator given twice: a usage error, nothing run */
	o.convert.smd_read.allocator.memory_limit = 1 << 20;
	b = smdmx_batch_convert(&o, NULL);
	assert_non_null(b);
	assert_int_equal(b->status, SMDMX_ERROR_USAGE);
	assert_int_equal(b->message_count, 1);
	assert_string_equal(b->messages[0].text, PJ_ALLOCATOR_TWICE);
	assert_int_equal(b->finished, 0);
	smdmx_batch_free(b);
	/* one conversion's scene (a QC's model, drawn): made with the allocator, the caller's
	 * after, freed through it */
	test_counter e = { 0, 0, 0 };
	const char *qc[1] = { test_path("testdata/qc/face/face.qc") };
	smdmx_convert_options co;
	memset(&co, 0, sizeof(co));
	co.way = SMDMX_CONVERT_QC_SCENE;
	co.inputs = qc;
	co.input_count = 1;
	co.allocator = test_allocator(&e);
	co.allocator.memory_limit = (size_t)64 << 20;
	smdmx_error err;
	smdmx_convert_result *r = smdmx_convert(&co, &err);
	assert_non_null(r);
	assert_true(r->ok);
	smdmx_scene *scene = r->scene;
	smdmx_convert_result_free(r);
	assert_non_null(scene);
	assert_true(atomic_load(&e.live) > 0);
	assert_int_equal(scene->flex_shape_count, 6);
	smdmx_scene_free(scene);
	assert_int_equal(atomic_load(&e.live), 0);
	/* and the conversion given it twice: refused, nothing done */
	co.dmx_read.allocator.fail_after = 3;
	assert_null(smdmx_convert(&co, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, PJ_ALLOCATOR_TWICE);
}

/* Two trees paired by place for smdmx report: another format first, then the same; an SMD's
 * VTA with it; a VTA alone a pair; the files left in B after A's; places compared as the
 * file system compares names (Case.smd meets case.dmx where names ignore case). Then every
 * allocation failing in turn, and a folder that is not there. */
static void touch(const char *rel)
{
	FILE *f = fopen(at(rel), "wb");
	assert_non_null(f);
	fclose(f);
}

static void test_pairs(void **state)
{
	(void)state;
	static const char *const files[] = { "pa/Case.smd", "pa/lone.vta", "pa/only_a.smd", "pa/sub/z.smd", "pa/x.dmx",
		                             "pa/x.smd", "pa/x.vta", "pa/y.smd", "pb/case.dmx", "pb/lone.vta", "pb/only_b.dmx",
		                             "pb/sub/z.dmx", "pb/x.dmx", "pb/x.smd", "pb/y.dmx", "pb/y.vta" };
	assert_true(os_mkdir(at("pa")) && os_mkdir(at("pa/sub")) && os_mkdir(at("pb")) && os_mkdir(at("pb/sub")));
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) touch(files[i]);
	bool fold = os_names_ignore_case();
	/* A's file, B's, A's VTA, B's VTA ("" for none), in order */
	static const char *const want[][4] = {
		{ "pa/Case.smd", "", "", "" }, { "pa/lone.vta", "pb/lone.vta", "", "" },
		{ "pa/only_a.smd", "", "", "" }, { "pa/sub/z.smd", "pb/sub/z.dmx", "", "" },
		{ "pa/x.dmx", "pb/x.smd", "", "" }, { "pa/x.smd", "pb/x.dmx", "pa/x.vta", "" },
		{ "pa/y.smd", "pb/y.dmx", "", "" }, { "", "pb/case.dmx", "", "" },
		{ "", "pb/only_b.dmx", "", "" }, { "", "pb/y.vta", "", "" },
	};
	smdmx_error err;
	smdmx_tree_pairs *p = smdmx_batch_pair_trees(at("pa"), at("pb/"), NULL, &err);
	assert_non_null(p);
	assert_int_equal(p->count, fold ? 9 : 10);
	for (size_t i = 0, w = 0; i < p->count; i++, w++) {
		if (fold && w == 7) w++; /* case.dmx went with Case.smd */
		for (int k = 0; k < 4; k++) {
			const char *got = k < 2 ? p->pairs[i].path[k] : p->pairs[i].vta[k - 2];
			const char *expect = fold && i == 0 && k == 1 ? "pb/case.dmx" : want[w][k];
			if (!*expect) assert_null(got);
			else assert_string_equal(got, at(expect));
		}
	}
	smdmx_tree_pairs_free(p);
	/* in the caller's memory: every block through its allocator, none left once freed; each
	 * allocation failed in turn, out of memory said and nothing left */
	test_counter c = { 0, 0, 0 };
	smdmx_allocator a = test_allocator(&c);
	p = smdmx_batch_pair_trees(at("pa"), at("pb"), &a, &err);
	assert_non_null(p);
	size_t needed = c.calls;
	assert_true(c.live > 0);
	smdmx_tree_pairs_free(p);
	assert_int_equal(c.live, 0);
	size_t failures = 0;
	for (size_t n = 1;; n++) {
		test_counter k = { 0, 0, 0 };
		smdmx_allocator f = test_allocator(&k);
		f.fail_after = n;
		p = smdmx_batch_pair_trees(at("pa"), at("pb"), &f, &err);
		if (p) {
			smdmx_tree_pairs_free(p);
			assert_int_equal(k.live, 0);
			break;
		}
		assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
		assert_int_equal(k.live, 0);
		failures++;
		assert_true(n < 10000);
	}
	assert_int_equal(failures, needed - 1); /* the last allocation's failure the last to fail */
	/* a limit below what the pairing needs: out of memory, nothing left */
	a.memory_limit = 256;
	assert_null(smdmx_batch_pair_trees(at("pa"), at("pb"), &a, &err));
	assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
	assert_int_equal(c.live, 0);
	/* the walk alone, in the caller's memory, each allocation failed in turn */
	char **paths = NULL;
	size_t count = 0;
	for (size_t n = 1;; n++) {
		test_counter k = { 0, 0, 0 };
		smdmx_allocator f = test_allocator(&k);
		f.fail_after = n;
		bool ok = smdmx_batch_files(SMDMX_BATCH_ANY, at("pa"), &f, &paths, &count, &err);
		if (ok) {
			assert_int_equal(count, 8);
			smdmx_batch_files_free(paths);
			assert_int_equal(k.live, 0);
			break;
		}
		assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
		assert_null(paths);
		assert_int_equal(k.live, 0);
		assert_true(n < 10000);
	}
	assert_null(smdmx_batch_pair_trees(at("pa"), at("nowhere"), NULL, &err));
	assert_int_equal(err.code, SMDMX_ERROR_IO);
	assert_non_null(strstr(err.message, "nowhere"));
	assert_null(smdmx_batch_pair_trees(at("pa"), at("nowhere"), NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folder),
		cmocka_unit_test(test_read_progress),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_options_checked),
		cmocka_unit_test(test_clash_and_warning),
		cmocka_unit_test(test_stops),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_convert_out_of_memory),
		cmocka_unit_test(test_message_codes),
		cmocka_unit_test(test_threads_under_limit),
		cmocka_unit_test(test_batch_allocator),
		cmocka_unit_test(test_pairs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
