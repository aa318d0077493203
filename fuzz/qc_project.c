/* The qc fuzz target's second half: the project planner and the QC rewriting of `smdmx qc`,
 * on a library of two projects whose main QCs are the input (/z/main.qc and /z/sub/two.qc),
 * beside fixed files that are there or missing as the input's first byte says, converted
 * --to dmx or --to smd, with or without -k and --rig dmx. The conversions themselves are
 * not run: each task succeeds or fails as the input says, and the QCs are then edited and
 * rendered as smdmx qc would write them. Checked: no two tasks write one file, every output
 * lies in OUTDIR, and every rendered QC reads again (keep_going).
 *
 * It reaches the library's steps (plan, join, edits, render) through its private header. */
#include <stdlib.h>
#include <string.h>

#include "project/project_internal.h"

#include "fuzz.h"
#include "../tests/qc_mem.h"

void fuzz_qc_project(const uint8_t *data, size_t size, const char *qci, const char *smd, const char *vta);

static bool below_out(const char *path)
{
	return path && !strncmp(path, "/out/", 5);
}

void fuzz_qc_project(const uint8_t *data, size_t size, const char *qci, const char *smd, const char *vta)
{
	uint8_t flags = size ? data[0] : 0;
	qc_mem_file files[12];
	size_t n = 0;
	files[n++] = (qc_mem_file){ "/z/main.qc", size ? (const char *)data : "", size };
	files[n++] = (qc_mem_file){ "/z/sub/two.qc", size ? (const char *)data : "", size };
	files[n++] = (qc_mem_file){ "/z/loop.qci", "$include \"loop.qci\"\n", 0 };
	if (flags & 1) files[n++] = (qc_mem_file){ "/z/inc.qci", qci, 0 };
	if (flags & 2) files[n++] = (qc_mem_file){ "/z/m.smd", smd, 0 };
	if (flags & 4) files[n++] = (qc_mem_file){ "/z/m.vta", vta, 0 };
	if (flags & 8) files[n++] = (qc_mem_file){ "/z/a.dmx", "x", 0 };
	if (flags & 16) files[n++] = (qc_mem_file){ "/z/sub/s.smd", smd, 0 };
	if (flags & 16) files[n++] = (qc_mem_file){ "/z/sub/m.dmx", "x", 0 };
	qc_mem mem = { files, n };
	smdmx_project_options o;
	memset(&o, 0, sizeof(o));
	o.keep_going = o.lenient_qc = o.copy_failed = flags & 128;
	library lib;
	memset(&lib, 0, sizeof(lib));
	sm_alloc_init(&lib.mem, NULL);
	lib.keys.mem = lib.outs.mem = lib.seen.mem = lib.rec.mem = &lib.mem;
	lib.o = &o;
	lib.to = flags & 32 ? "smd" : "dmx";
	lib.rig_dmx = (flags & 64) && !(flags & 32);
	lib.root = pj_strdup(&lib.mem, "/z/");
	lib.outdir = pj_strdup(&lib.mem, "/out/");
	project projects[2];
	memset(projects, 0, sizeof(projects));
	lib.projects = projects;
	static const char *const mains[2] = { "/z/main.qc", "/z/sub/two.qc" };
	for (size_t i = 0; i < 2; i++) {
		smdmx_qc_read_options qo = qc_mem_options(&mem);
		qo.max_tokens = (size_t)1 << 16;
		qo.keep_going = o.keep_going;
		smdmx_error err;
		smdmx_qc *qc = smdmx_qc_read_file(mains[i], &qo, &err, NULL);
		if (!qc) continue;
		project *p = &projects[lib.project_count++];
		p->lib = &lib;
		p->diag.mem = &lib.mem;
		p->qc = qc;
		p->qcpath = mains[i];
		p->ok = qc->error_count == 0;
	}
	for (size_t i = 0; i < lib.project_count; i++) {
		qp_plan(&projects[i]);
		qp_count_missing(&lib, &projects[i]);
		qp_join(&lib, &projects[i]);
	}
	/* No two tasks write one file, and every output is in OUTDIR. */
	for (size_t i = 0; i < lib.task_count; i++) {
		const task *t = lib.tasks[i];
		if (!below_out(t->dst) || (t->vta_dst && !below_out(t->vta_dst))) abort();
		for (size_t k = 0; k < i; k++) {
			const task *u = lib.tasks[k];
			if (!strcmp(t->dst, u->dst) || (u->vta_dst && !strcmp(t->dst, u->vta_dst)) ||
			    (t->vta_dst && (!strcmp(t->vta_dst, u->dst) || (u->vta_dst && !strcmp(t->vta_dst, u->vta_dst))))) {
				fprintf(stderr, "two tasks write %s\n", t->dst);
				abort();
			}
		}
	}
	/* The tasks' outcomes, as the input says. */
	for (size_t i = 0; i < lib.task_count; i++) {
		task *t = lib.tasks[i];
		uint8_t b = size ? data[(i * 7 + 1) % size] : 0;
		t->status = b & 1 ? PJ_FAILED : PJ_OK;
		if (t->status == PJ_FAILED && o.keep_going && t->kind != TASK_COPY) t->copied = true;
		if (t->status == PJ_OK && t->kind == TASK_DMX_TO_SMD && t->model != SMDMX_NONE) {
			t->model_lines = pj_strdup(&lib.mem, b & 2 ? "\tflexfile \"m.vta\"\n\tflex a frame 1\n\tflexcontroller mouth a\n\t%a = a\n" : "");
			t->att_lines = pj_strdup(&lib.mem, b & 4 ? "$attachment \"a\" \"root\" 0 0 0\n" : "");
		}
	}
	rendered *done = NULL;
	size_t done_count = 0;
	for (size_t i = 0; i < lib.project_count; i++) {
		project *p = &projects[i];
		qp_edit_names(p);
		qp_edit_lines(p);
		rendered *mine;
		size_t count;
		qp_render_qc_files(p, done, done_count, &mine, &count);
		/* each rendered file reads again, beside the same files */
		for (size_t k = 0; k < count; k++) {
			if (!below_out(mine[k].path)) abort();
			qc_mem_file again[13];
			memcpy(again, files, n * sizeof(qc_mem_file));
			again[n] = (qc_mem_file){ "/z/again.qc", mine[k].text.text ? mine[k].text.text : "", mine[k].text.len };
			qc_mem m2 = { again, n + 1 };
			smdmx_qc_read_options qo = qc_mem_options(&m2);
			qo.max_tokens = (size_t)1 << 17;
			qo.keep_going = true;
			smdmx_error err;
			smdmx_qc *r = mine[k].text.len ? smdmx_qc_read_file("/z/again.qc", &qo, &err, NULL) : NULL;
			smdmx_qc_free(r);
		}
		rendered *all = realloc(done, (done_count + count + 1) * sizeof(rendered));
		if (!all) abort();
		done = all;
		for (size_t k = 0; k < count; k++) done[done_count++] = mine[k];
		pj_free(&lib.mem, mine);
	}
	for (size_t i = 0; i < done_count; i++) {
		pj_free(&lib.mem, done[i].path);
		pj_free(&lib.mem, done[i].text.text);
	}
	free(done);
	qp_library_free(&lib);
}
