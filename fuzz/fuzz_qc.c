/* Fuzz target: smdmx qc's project planner and QC rewriting on a library of this input as two
 * projects, files present or missing (qc_project.c); the QC reader (tokens, includes,
 * variables, macros, commands, rules) on a main QC from the input, beside fixed files it may
 * include or name; then the editor (every file
 * written back unchanged must be its bytes, then renamed, lines removed and added) and, for
 * a $model naming the fixed SMD and VTA, the rig both ways: the QC's lines into the scene,
 * and the scene's rig back into QC lines, which must read again. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "../tests/qc_mem.h"

static const char fixed_smd[] =
    "version 1\nnodes\n0 \"root\" -1\n1 \"jaw\" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 0 1 0 0 0\nend\ntriangles\n"
    "a\n0 -2 0 0 0 -1 0 0 0\n0 2 0 0 0 -1 0 1 0\n0 0 0 2 0 -1 0 0 1\n"
    "a\n0 -2 0 0 0 -1 0 0 0\n0 0 0 2 0 -1 0 0 1\n1 -2 0 2 0 -1 0 1 1\nend\n";

static const char fixed_vta[] =
    "version 1\nnodes\n0 \"root\" -1\n1 \"jaw\" 0\nend\nskeleton\ntime 0\ntime 1 # a\ntime 2 # b\ntime 3 # a_b\nend\n"
    "vertexanimation\ntime 0\n0 -2 0 0 0 -1 0\n1 2 0 0 0 -1 0\n2 0 0 2 0 -1 0\n3 -2 0 0 0 -1 0\n4 0 0 2 0 -1 0\n"
    "5 -2 0 2 0 -1 0\ntime 1\n0 -2 0 1 0 -1 0\n3 -2 0 1 0 -1 0\ntime 2\n1 2 0 1 0 -1 0\ntime 3\n2 0.5 0 2.5 0 -1 0\n4 0.5 0 2.5 0 -1 0\nend\n";

static const char fixed_qci[] =
    "flexfile \"m.vta\"\nflexpair a 1 frame 1\nflex b frame 2\nflex a_b frame 3\n"
    "flexcontroller mouth range 0 1 right_a left_a b\n%aR = right_a\n%aL = left_a * (1 - b)\n%b = b\n%a_b = %aR * b\n";

/* What the QC writer produced, kept to compare with the bytes read. */
typedef struct fuzz_buf {
	char *data;
	size_t len, cap;
} fuzz_buf;

static bool mem_write(void *user, const void *data, size_t size)
{
	fuzz_buf *b = user;
	if (b->len + size > b->cap) {
		size_t cap = (b->len + size) * 2 + 64;
		char *d = realloc(b->data, cap);
		if (!d) return false;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, size);
	b->len += size;
	return true;
}

static void rig(smdmx_qc *qc, uint32_t m, bool in_qc)
{
	smdmx_error err;
	FUZZ_WARNINGS(w);
	smdmx_scene *s = smdmx_smd_read_memory(fixed_smd, sizeof(fixed_smd) - 1, NULL, &err, NULL);
	smdmx_scene *v = smdmx_smd_read_memory(fixed_vta, sizeof(fixed_vta) - 1, NULL, &err, NULL);
	if (!s || !v) abort();
	bool ok = smdmx_scene_attach_vta(s, v, &err, &w);
	smdmx_qc_rig_options ro = { .rig_in_qc = in_qc };
	ok = ok && smdmx_qc_apply_rig(qc, m, s, &ro, &err, &w) && smdmx_qc_apply_attachments(qc, s, &err, &w);
	if (ok && !smdmx_scene_validate(s, &err)) abort(); /* a rig applied leaves a valid scene */
	char *lines = NULL, *atts = NULL;
	if (ok && smdmx_qc_from_scene(s, "m.vta", &lines, &atts, &err, &w)) {
		fuzz_write_scene(s);
		/* the lines written read again */
		size_t n = strlen(lines) + strlen(atts) + 64;
		char *text = malloc(n);
		if (!text) abort();
		snprintf(text, n, "$model m \"m.smd\" {\n%s}\n%s", lines, atts);
		qc_mem_file files[3] = { { "/w/w.qc", text, 0 }, { "/w/m.smd", "x", 0 }, { "/w/m.vta", "x", 0 } };
		qc_mem mem = { files, 3 };
		smdmx_qc_read_options o = qc_mem_options(&mem);
		smdmx_qc *again = smdmx_qc_read_file("/w/w.qc", &o, &err, NULL);
		if (!again) {
			fprintf(stderr, "the rig's QC lines do not read: %u:%u: %s\n%s\n", err.line, err.column, err.message, text);
			abort();
		}
		smdmx_qc_free(again);
		free(text);
	}
	smdmx_qc_text_free(lines);
	smdmx_qc_text_free(atts);
	smdmx_scene_free(v);
	smdmx_scene_free(s);
}

void fuzz_qc_project(const uint8_t *data, size_t size, const char *qci, const char *smd, const char *vta);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* smdmx qc's planner and rewriting over a library of this QC (qc_project.c) */
	fuzz_qc_project(data, size, fixed_qci, fixed_smd, fixed_vta);
	qc_mem_file files[] = {
		{ "/z/main.qc", (const char *)data, size },
		{ "/z/inc.qci", fixed_qci, 0 },
		{ "/z/loop.qci", "$include \"loop.qci\"\n", 0 },
		{ "/z/m.smd", fixed_smd, 0 },
		{ "/z/m.vta", fixed_vta, 0 },
		{ "/z/a.dmx", "x", 0 },
		{ "/z/sub/s.smd", "x", 0 },
	};
	if (size == 0) files[0] = (qc_mem_file){ "/z/main.qc", "", 0 };
	qc_mem mem = { files, sizeof(files) / sizeof(files[0]) };
	smdmx_qc_read_options o = qc_mem_options(&mem);
	o.max_tokens = (size_t)1 << 16;
	smdmx_error err;
	FUZZ_WARNINGS(w);
	smdmx_qc *qc = smdmx_qc_read_file("/z/main.qc", &o, &err, &w);
	if (!qc) {
		if (err.code == SMDMX_ERROR_NONE || !err.message[0]) abort(); /* a failure says what */
		return 0;
	}
	/* unchanged: the bytes as read */
	for (uint32_t f = 0; f < qc->file_count; f++) {
		fuzz_buf b = { 0 };
		if (!smdmx_qc_write(qc, f, mem_write, &b, &err)) abort();
		if (b.len != qc->files[f].size || (b.len && memcmp(b.data, qc->files[f].data, b.len))) abort();
		free(b.data);
	}
	for (uint32_t m = 0; m < qc->model_count; m++) {
		const smdmx_qc_ref *r = &qc->refs[qc->models[m].ref];
		uint32_t vta = smdmx_qc_model_vta(qc, m, &err);
		if (r->found && !strcmp(r->path, "/z/m.smd") && vta != SMDMX_NONE && !strcmp(qc->refs[vta].path, "/z/m.vta")) {
			rig(qc, m, false);
			rig(qc, m, true);
		}
	}
	/* edits: each may be refused (a name in a macro, made by a variable), none may crash */
	for (uint32_t i = 0; i < qc->ref_count; i++) smdmx_qc_rename(qc, i, i % 2 ? "renamed.dmx" : "a b/c.smd", &err);
	for (uint32_t m = 0; m < qc->model_count; m++) {
		smdmx_qc_remove_lines(qc, m, m % 2 ? SMDMX_QC_LINES_FLEX : SMDMX_QC_LINES_RIG | SMDMX_QC_LINES_NOAUTODMXRULES, &err);
		smdmx_qc_append_to_model(qc, m, "\tnoautodmxrules\n", &err);
		smdmx_qc_insert_after_model(qc, m, "$attachment a root 0 0 0\n", &err);
	}
	for (uint32_t f = 0; f < qc->file_count; f++) {
		fuzz_buf b = { 0 };
		if (!smdmx_qc_write(qc, f, mem_write, &b, &err)) abort();
		free(b.data);
	}
	smdmx_qc_free(qc);
	return 0;
}
