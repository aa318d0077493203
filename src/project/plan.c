/* QC projects, planning: a task per file each QC names (converted, copied, or consumed by its
 * model's DMX), tasks that make one output shared across the library, outputs that would
 * clash renamed, and with -u only what is out of date. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"

/* ---- planning ------------------------------------------------------------------------------ */

static task *add_task(project *p, task_kind kind, const char *src, char *dst, uint32_t ref)
{
	task *t = pj_calloc(&p->lib->mem, 1, sizeof(*t));
	char *s = pj_strdup(&p->lib->mem, src);
	if (!t || !s) { /* out of memory: said (qp_ran_out) */
		pj_free(&p->lib->mem, t);
		pj_free(&p->lib->mem, s);
		pj_free(&p->lib->mem, dst);
		return NULL;
	}
	p->tasks[p->task_count++] = t;
	t->kind = kind;
	t->src = s;
	t->dst = dst;
	t->proj = p;
	t->ref = ref;
	t->model = SMDMX_NONE;
	t->vta = SMDMX_NONE;
	t->status = -1;
	t->diag.mem = &p->lib->mem;
	return t;
}

void qp_task_free(task *t)
{
	if (!t) return;
	pj_free(&t->proj->lib->mem, t->src);
	pj_free(&t->proj->lib->mem, t->dst);
	pj_free(&t->proj->lib->mem, t->key);
	pj_free(&t->proj->lib->mem, t->vta_dst);
	pj_free(&t->proj->lib->mem, t->other_dst);
	pj_free(&t->proj->lib->mem, t->other_vta);
	pj_free(&t->proj->lib->mem, t->model_lines);
	pj_free(&t->proj->lib->mem, t->att_lines);
	pj_msgs_free(&t->diag);
	for (size_t k = 0; k < t->written_count; k++) pj_free(&t->proj->lib->mem, t->written[k]);
	pj_free(&t->proj->lib->mem, t->written);
	pj_free(&t->proj->lib->mem, t->sums);
	pj_free(&t->proj->lib->mem, t);
}

bool qp_ext_is(const char *path, const char *ext)
{
	return !strcasecmp(os_path_extension(path), ext);
}

/* The same file already has a task in this project. */
static uint32_t task_for(const project *p, const char *src)
{
	for (size_t i = 0; i < p->task_count; i++)
		if (!strcmp(p->tasks[i]->src, src)) return (uint32_t)i;
	return SMDMX_NONE;
}

/* dst made unique among the project's outputs: "x.smd" taken becomes "x_dmx.smd". */
static char *unique_dst(const project *p, char *dst, const char *src)
{
	for (int round = 0; dst && round < 2; round++) {
		bool clash = false;
		for (size_t i = 0; i < p->task_count && !clash; i++)
			clash = (p->tasks[i]->dst && !os_path_compare(p->tasks[i]->dst, dst)) || (p->tasks[i]->vta_dst && !os_path_compare(p->tasks[i]->vta_dst, dst));
		for (size_t i = 0; i < p->qc->ref_count && !clash; i++)
			clash = p->ref_out[i] && !os_path_compare(p->ref_out[i], dst) && strcmp(p->qc->refs[i].path, src);
		if (!clash) return dst;
		const char *ext = os_path_extension(dst), *oext = os_path_extension(src);
		char *stem = pj_strdup(&p->lib->mem, dst);
		if (stem) stem[strlen(stem) - strlen(ext) - (*ext ? 1 : 0)] = 0;
		char *alt = stem ? pj_asprintf(&p->lib->mem, "%s_%s.%s", stem, oext, ext) : NULL;
		pj_free(&p->lib->mem, stem);
		pj_free(&p->lib->mem, dst);
		dst = alt;
	}
	return dst;
}

/* A texture name seen once (case aside, as Windows finds files), with the file naming it. */
static bool texture_add(const sm_alloc *m, char ***names, const char ***from, size_t *n, size_t *cap, const char *name, const char *by)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcasecmp((*names)[i], name)) return true;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		char **g = pj_realloc(m, *names, c * sizeof(char *));
		if (!g) return false;
		*names = g;
		const char **h = pj_realloc(m, *from, c * sizeof(char *));
		if (!h) return false;
		*from = h;
		*cap = c;
	}
	(*names)[*n] = pj_strdup(m, name);
	(*from)[*n] = by;
	return (*names)[(*n)++] != NULL;
}

/* GoldSrc: the textures Half-Life's studiomdl reads with the model (doc/qc.md, "Textures"):
 * every .bmp the triangles of the files the QC's body parts name and every texture its
 * $texturegroup names, looked for where studiomdl looks (smdmx_qc_find_texture). Each one found
 * is copied to its place below OUTDIR, as it is; one not found is missing, as a file the QC
 * names would be (studiomdl stops there). */
static bool plan_textures(project *p)
{
	const smdmx_qc *qc = p->qc;
	if (!qc->texture_dir_count) return true;
	char **names = NULL;
	const char **from = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	for (size_t i = 0; i < qc->ref_count && ok; i++) {
		const smdmx_qc_ref *r = &qc->refs[i];
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++) seen = qc->refs[k].found && !strcmp(qc->refs[k].path, r->path);
		if (r->kind != SMDMX_QC_REF_MODEL || !r->found || seen) continue;
		smdmx_model_file m;
		smdmx_error err;
		if (!smdmx_model_file_read(r->path, NULL, 0, &p->lib->o->smd_read, &m, &err, NULL)) continue; /* said when converted */
		for (size_t k = 0; m.scene && k < m.scene->material_count && ok; k++) {
			const char *name = m.scene->materials[k].name;
			size_t len = strlen(name);
			if (len > 4 && !strcasecmp(name + len - 4, ".bmp")) ok = texture_add(&p->lib->mem, &names, &from, &n, &cap, name, r->path);
		}
		smdmx_model_file_free(&m);
	}
	for (size_t i = 0; i < qc->texture_count && ok; i++) ok = texture_add(&p->lib->mem, &names, &from, &n, &cap, qc->textures[i], NULL);
	char folders[512] = "";
	for (size_t d = 0; d < qc->texture_dir_count; d++) {
		size_t at = strlen(folders);
		snprintf(folders + at, sizeof(folders) - at, "%s'%s'", d ? ", " : "", *qc->texture_dirs[d] ? qc->texture_dirs[d] : "./");
	}
	bool all = true;
	for (size_t i = 0; i < n && ok; i++) {
		bool nocase = false;
		char *path = smdmx_qc_find_texture(qc, names[i], &nocase);
		if (!path) {
			pj_error(&p->diag, SMDMX_ERROR_IO, from[i] ? from[i] : p->qcpath, 0, 0,
			       "cannot find the texture '%s' (%s) in the folders Half-Life's studiomdl looks in (%s, from the QC's "
			       "folder)%s",
			       names[i], from[i] ? "its triangles name it" : "the QC's $texturegroup names it", folders,
			       p->lib->o->keep_going ? ": not copied" : "");
			/* counted missing where studiomdl looks first */
			const char *main = qc->files[0].path, *sep = os_last_separator(main);
			char *expected = pj_asprintf(&p->lib->mem, "%.*s%s%s", sep ? (int)(sep - main + 1) : 0, main, qc->texture_dirs[0], names[i]);
			if (expected) qp_add_missing(p->lib, expected);
			pj_free(&p->lib->mem, expected);
			all = false;
			continue;
		}
		if (task_for(p, path) == SMDMX_NONE) {
			task **g = pj_realloc(&p->lib->mem, p->tasks, (p->task_count + 2) * sizeof(task *));
			if (!g) ok = false;
			else {
				p->tasks = g;
				char *dst = qp_out_path(p->lib, path);
				ok = dst && add_task(p, TASK_COPY, path, dst, SMDMX_NONE) != NULL;
			}
		}
		smdmx_qc_path_free(qc, path);
	}
	for (size_t i = 0; i < n; i++) pj_free(&p->lib->mem, names[i]);
	pj_free(&p->lib->mem, names);
	pj_free(&p->lib->mem, from);
	return ok && all;
}

bool qp_plan(project *p)
{
	const library *l = p->lib;
	smdmx_qc *qc = p->qc;
	p->tasks = pj_calloc(&l->mem, qc->ref_count + 1, sizeof(task *));
	p->task_of = pj_calloc(&l->mem, qc->ref_count + 1, sizeof(uint32_t));
	p->ref_out = pj_calloc(&l->mem, qc->ref_count + 1, sizeof(char *));
	p->vta_consumed = pj_calloc(&l->mem, qc->ref_count + 1, sizeof(bool));
	if (!p->tasks || !p->task_of || !p->ref_out || !p->vta_consumed) return false;
	for (size_t i = 0; i < qc->ref_count; i++)
		if (qc->refs[i].found) p->ref_out[i] = qp_out_path(l, qc->refs[i].path);
	/* out of memory (qp_ran_out): the run stops after this step, which stops here */
	if (qp_ran_out(p->lib)) return false;
	bool to_dmx = !strcmp(l->to, "dmx");
	bool ok = true;
	for (size_t i = 0; i < qc->ref_count; i++) {
		const smdmx_qc_ref *r = &qc->refs[i];
		p->task_of[i] = SMDMX_NONE;
		const char *where = r->pos.file ? qc->files[r->pos.file].path : p->qcpath;
		char shown[1024];
		if (!r->found) {
			os_path_shown(r->path, qc->separator, shown, sizeof(shown));
			if (r->kind == SMDMX_QC_REF_OTHER) {
				pj_add(&p->diag, where, r->pos.line, r->pos.column, "warning", "cannot find '%s' (named by %s): not copied, and the "
				         "QC still names it; put it in the written project if studiomdl needs it",
				         shown, r->command);
			} else {
				pj_error(&p->diag, SMDMX_ERROR_IO, where, r->pos.line, r->pos.column, "cannot find '%s' (named by %s)%s", shown,
				         r->command, l->o->keep_going ? ": the QC keeps naming it" : "");
				ok = false;
			}
			continue;
		}
		uint32_t existing = task_for(p, r->path);
		if (existing != SMDMX_NONE) {
			p->task_of[i] = existing;
			task *t = p->tasks[existing];
			if (r->kind == SMDMX_QC_REF_MODEL || r->kind == SMDMX_QC_REF_COLLISION) t->reference = true;
			if (r->kind == SMDMX_QC_REF_MODEL && !strcmp(r->command, "$model") && t->model == SMDMX_NONE) t->model = r->model;
			continue;
		}
		bool model_file = r->kind == SMDMX_QC_REF_MODEL || r->kind == SMDMX_QC_REF_COLLISION || r->kind == SMDMX_QC_REF_ANIMATION;
		task *t;
		if (to_dmx && model_file && !qp_ext_is(r->path, "dmx")) {
			t = add_task(p, TASK_SMD_TO_DMX, r->path, NULL, (uint32_t)i);
			if (t) t->dst = unique_dst(p, pj_path_with_extension(&l->mem, p->ref_out[i], "dmx"), r->path);
		} else if (!to_dmx && model_file && qp_ext_is(r->path, "dmx")) {
			t = add_task(p, TASK_DMX_TO_SMD, r->path, NULL, (uint32_t)i);
			if (t) t->dst = unique_dst(p, pj_path_with_extension(&l->mem, p->ref_out[i], "smd"), r->path);
		} else {
			t = add_task(p, TASK_COPY, r->path, pj_strdup(&l->mem, p->ref_out[i]), (uint32_t)i);
		}
		if (!t || !t->dst) return false;
		t->fps = r->fps;
		t->reference = r->kind == SMDMX_QC_REF_MODEL || r->kind == SMDMX_QC_REF_COLLISION;
		if (r->kind == SMDMX_QC_REF_MODEL && !strcmp(r->command, "$model")) t->model = r->model;
		p->task_of[i] = (uint32_t)(p->task_count - 1);
	}
	/* A file whose name the QC makes where no new name can be written (a macro argument or a
	 * variable that also names something else) keeps its name and format: copied, said at the
	 * name. */
	for (size_t i = 0; i < qc->ref_count; i++) {
		if (p->task_of[i] == SMDMX_NONE) continue;
		task *t = p->tasks[p->task_of[i]];
		if (t->kind != TASK_SMD_TO_DMX && t->kind != TASK_DMX_TO_SMD) continue;
		const smdmx_qc_ref *r = &qc->refs[i];
		char *name = qp_new_name(&l->mem, r->name, t->src, t->dst);
		if (!name) return false;
		smdmx_error err;
		if (!smdmx_qc_can_rename(qc, (uint32_t)i, name, &err)) {
			const char *where = err.file[0] ? err.file : p->qcpath;
			pj_add(&p->diag, where, err.line, err.column, "note", "%s; so the file keeps its name and format (copied unchanged)",
			         err.message);
			t->kind = TASK_COPY;
			pj_free(&l->mem, t->dst);
			t->dst = pj_strdup(&l->mem, p->ref_out[t->ref]);
			t->vta = SMDMX_NONE;
		}
		pj_free(&l->mem, name);
		if (!t->dst) return false;
	}
	/* The models: their flexfile (SMD to DMX), their VTA (DMX to SMD). A model whose block
	 * lost an include, or whose VTA is missing, cannot carry its shapes: with -k it is
	 * copied as it is, and its lines stay. */
	for (size_t ti = 0; ti < p->task_count; ti++) {
		task *t = p->tasks[ti];
		if (t->model == SMDMX_NONE) continue;
		const smdmx_qc_model *m = &qc->models[t->model];
		if (t->kind != TASK_COPY && m->incomplete) {
			t->why_copy = "its $model line or an $include in its block could not be read (see above)";
		} else if (t->kind == TASK_SMD_TO_DMX) {
			smdmx_error err;
			t->vta = smdmx_qc_model_vta(qc, t->model, &err);
			if (t->vta == SMDMX_NONE && err.code) {
				pj_add_error(&p->diag, p->qcpath, &err);
				ok = false;
				t->why_copy = "its flex lines read two VTAs";
			} else if (t->vta != SMDMX_NONE && !qc->refs[t->vta].found) {
				t->why_copy = "the VTA its flex lines read is missing";
			}
		}
		if (t->why_copy) {
			t->kind = TASK_COPY;
			pj_free(&l->mem, t->dst);
			t->dst = pj_strdup(&l->mem, p->ref_out[t->ref]);
			t->vta = SMDMX_NONE;
		} else if (t->kind == TASK_DMX_TO_SMD) {
			t->vta_dst = unique_dst(p, pj_path_with_extension(&l->mem, t->dst, "vta"), t->src);
		}
		if (!t->dst) return false;
	}
	if (qp_ran_out(l)) return false;
	/* A flexfile VTA moves into its model's DMX; one that eyelid lines read too stays, made
	 * to meet the DMX's base when a defaultflex moved it. */
	for (size_t i = 0; to_dmx && i < qc->ref_count; i++) {
		const smdmx_qc_ref *r = &qc->refs[i];
		if (r->kind != SMDMX_QC_REF_FLEX || p->task_of[i] == SMDMX_NONE) continue;
		task *t = p->tasks[p->task_of[i]];
		if (t->kind != TASK_COPY) continue;
		bool flexfile_only = true, converted_model = false;
		uint32_t model = SMDMX_NONE;
		for (size_t k = 0; k < qc->ref_count; k++) {
			if (qc->refs[k].kind != SMDMX_QC_REF_FLEX || p->task_of[k] != p->task_of[i]) continue;
			if (strcmp(qc->refs[k].command, "flexfile") && strcmp(qc->refs[k].command, "flex")) flexfile_only = false;
			else model = qc->refs[k].model;
		}
		if (model != SMDMX_NONE) {
			uint32_t mr = qc->models[model].ref;
			uint32_t mt = mr == SMDMX_NONE ? SMDMX_NONE : p->task_of[mr];
			converted_model = mt != SMDMX_NONE && p->tasks[mt]->kind == TASK_SMD_TO_DMX;
		}
		if (converted_model && flexfile_only) {
			t->kind = TASK_CONSUMED;
			for (size_t k = 0; k < qc->ref_count; k++)
				if (p->task_of[k] == p->task_of[i]) p->vta_consumed[k] = true;
		} else if (converted_model) {
			const smdmx_qc_model *m = &qc->models[model];
			bool moved = false;
			for (size_t f = 0; f < m->flex_count; f++) moved = moved || (m->flexes[f].kind == SMDMX_QC_DEFAULTFLEX && m->flexes[f].frame != 0);
			if (moved) {
				t->kind = TASK_VTA_REBASE;
				t->model = model;
			}
		}
	}
	return plan_textures(p) && ok;
}

/* What a $model's file is made with besides itself: its VTA and its rig, as text; with the
 * rig staying in the QC (rig_in_qc), only its flex lines, which alone reach the DMX. */
static void model_key(pj_text *b, const project *p, uint32_t model, bool rig_in_qc)
{
	const smdmx_qc *qc = p->qc;
	const smdmx_qc_model *m = &qc->models[model];
	char num[160];
	for (size_t f = 0; f < m->flex_count; f++) {
		const smdmx_qc_flex *x = &m->flexes[f];
		snprintf(num, sizeof(num), "|f%d %d %.17g %.17g %.17g ", (int)x->kind, (int)x->frame, x->split, x->position, x->decay);
		pj_puts(b, num);
		pj_puts(b, x->name ? x->name : "");
		pj_putc(b, ' ');
		pj_puts(b, x->vta != SMDMX_NONE ? qc->refs[x->vta].path : "");
	}
	pj_putc(b, m->lost_lines ? 'L' : 'l');
	if (rig_in_qc) return;
	for (size_t c = 0; c < m->controller_count; c++) {
		const smdmx_qc_controller *x = &m->controllers[c];
		snprintf(num, sizeof(num), "|c%.17g %.17g ", x->min, x->max);
		pj_puts(b, num);
		pj_puts(b, x->group);
		pj_putc(b, ' ');
		pj_puts(b, x->name);
	}
	for (size_t r = 0; r < m->rule_count; r++) {
		pj_putc(b, '|');
		pj_putc(b, 'r');
		pj_puts(b, m->rules[r].name);
		pj_putc(b, '=');
		pj_puts(b, m->rules[r].expression ? m->rules[r].expression : "(local)");
	}
	pj_putc(b, m->noautodmxrules ? 'N' : 'n');
}

/* The task's key: what its output is made of. Two projects' tasks of one key are one task. */
static char *task_key(const task *t)
{
	const project *p = t->proj;
	pj_text b = { .mem = &p->lib->mem };
	char head[64];
	/* One file made one way is one task, however the QCs name it (doc/qc.md, "Files made
	 * once"): an SMD read at no fps is read at the default, as at that fps given; an SMD
	 * written of a DMX holds no rate; a DMX of an SMD is the same whatever role the QC gives
	 * the file, and a $model's is its SMD's unless flex lines (and, with the rig in the DMX,
	 * controllers and rules) go into it. */
	double fps = t->fps;
	bool reference = t->reference;
	bool rig_in_qc = !p->lib->rig_dmx || (t->model != SMDMX_NONE && p->qc->models[t->model].lost_lines);
	bool rigged = t->model != SMDMX_NONE && (p->qc->models[t->model].flex_count ||
	                                         (!rig_in_qc && (p->qc->models[t->model].controller_count || p->qc->models[t->model].rule_count)));
	if (t->kind == TASK_SMD_TO_DMX) {
		if (!(fps > 0)) fps = p->lib->o->smd_read.frame_rate > 0 ? p->lib->o->smd_read.frame_rate : 30;
		reference = false;
	} else if (t->kind == TASK_DMX_TO_SMD) {
		fps = 0;
	}
	/* a copy is its file: the same bytes at the same place whatever names it */
	if (t->kind == TASK_COPY) snprintf(head, sizeof(head), "%d|", (int)t->kind);
	else snprintf(head, sizeof(head), "%d %d %.17g|", (int)t->kind, (int)reference, fps);
	for (const char *c = head; *c; c++) pj_putc(&b, *c);
	for (const char *c = t->src; *c; c++) pj_putc(&b, *c);
	if (t->kind == TASK_SMD_TO_DMX && rigged) {
		pj_putc(&b, '|');
		for (const char *c = t->vta != SMDMX_NONE ? p->qc->refs[t->vta].path : ""; *c; c++) pj_putc(&b, *c);
		model_key(&b, p, t->model, rig_in_qc);
	} else if (t->kind == TASK_VTA_REBASE) {
		pj_putc(&b, '|');
		for (const char *c = p->qc->refs[p->qc->models[t->model].ref].path; *c; c++) pj_putc(&b, *c);
		model_key(&b, p, t->model, false);
	} else if (t->kind == TASK_DMX_TO_SMD && t->model != SMDMX_NONE) {
		/* a $model's QC lines: its rig unless the QC keeps its own (the flexfile line, which
		 * names the VTA from each QC's folder for the model, is each QC's: qp_edit_lines) */
		pj_putc(&b, '|');
		pj_putc(&b, p->qc->models[t->model].noautodmxrules ? 'N' : 'n');
	}
	pj_putc(&b, 0);
	if (b.lost) { /* out of memory: no key (a key cut short could be another task's) */
		pj_free(&p->lib->mem, b.text);
		return NULL;
	}
	return b.text;
}

/* The library's outputs by path as the file system names them (os_path_key: "Éclair.dmx" and
 * "éclair.dmx" are one file on Windows, and one output here). */
static uint32_t outs_get(const library *l, const char *path)
{
	char *k = pj_path_key(&l->mem, path);
	uint32_t v = qp_str_get(&l->outs, k);
	pj_free(&l->mem, k);
	return v;
}

static void outs_set(library *l, const char *path, uint32_t v)
{
	char *k = pj_path_key(&l->mem, path);
	qp_str_set(&l->outs, k, v);
	pj_free(&l->mem, k);
}

static bool dst_taken(const library *l, const char *dst, const task *but)
{
	uint32_t g = outs_get(l, dst);
	return g != SMDMX_NONE && l->tasks[g] != but;
}

/* path with "_NAME" (then a number) before its extension, free in the library (and, with
 * own_for, in the file system too, but for that QC's own earlier output). */
static char *named_dst_in(const library *l, const char *path, const char *name, const task *but, const char *own_for)
{
	const char *ext = os_path_extension(path);
	size_t stem = strlen(path) - strlen(ext) - (*ext ? 1 : 0);
	char *alt = name ? pj_asprintf(&l->mem, "%.*s_%s%s%s", (int)stem, path, name, *ext ? "." : "", ext) : NULL;
	os_stat st;
	for (unsigned n = 2; alt && (dst_taken(l, alt, but) || (own_for && os_stat_path(alt, &st) && !qp_record_own(l, alt, own_for))); n++) {
		pj_free(&l->mem, alt);
		alt = pj_asprintf(&l->mem, "%.*s_%s%u%s%s", (int)stem, path, name, n, *ext ? "." : "", ext);
	}
	return alt;
}

static char *named_dst(const library *l, const char *path, const char *name, const task *but)
{
	return named_dst_in(l, path, name, but, NULL);
}

char *qp_other_name(library *l, const char *path, const char *qcpath, const task *t, uint32_t index)
{
	char *stem = qp_stem_of(&l->mem, qcpath);
	char *alt = named_dst_in(l, path, stem, t, qcpath);
	pj_free(&l->mem, stem);
	outs_set(l, alt, index);
	return alt;
}

/* The stem of a path's file name. */
char *qp_stem_of(const sm_alloc *m, const char *path)
{
	const char *s = os_last_separator(path);
	char *stem = pj_strdup(m, s ? s + 1 : path);
	char *dot = stem ? strrchr(stem, '.') : NULL;
	if (dot && dot != stem) *dot = 0;
	return stem;
}

/* The project's tasks join the library's: one of a key already there is that one; an output
 * another task of the library writes is named after this project's QC. */
void qp_join(library *l, project *p)
{
	uint32_t *map = pj_calloc(&l->mem, p->task_count + 1, sizeof(uint32_t));
	char *qcstem = qp_stem_of(&l->mem, p->qcpath);
	if (!map || !qcstem) {
		pj_free(&l->mem, map);
		pj_free(&l->mem, qcstem);
		return; /* out of memory: the run stops after this step (its tasks stay the project's) */
	}
	for (size_t i = 0; i < p->task_count; i++) map[i] = SMDMX_NONE;
	/* a task moved into the library or freed leaves the project's list; out of memory
	 * (qp_ran_out) stops the join, the rest freed with the project */
	for (size_t i = 0; i < p->task_count && !qp_ran_out(l); i++) {
		task *t = p->tasks[i];
		if (t->kind == TASK_CONSUMED) {
			char *k = pj_asprintf(&l->mem, "consumed|%s", t->src);
			if (qp_str_get(&l->seen, k) == SMDMX_NONE) {
				qp_str_set(&l->seen, k, 0);
				qp_list_push(&l->mem, &l->consumed, &l->consumed_count, pj_strdup(&l->mem, t->src));
			}
			pj_free(&l->mem, k);
			qp_task_free(t);
			p->tasks[i] = NULL;
			continue;
		}
		t->key = task_key(t);
		if (!t->key) break;
		map[i] = qp_str_get(&l->keys, t->key);
		if (map[i] != SMDMX_NONE) {
			task *g = l->tasks[map[i]];
			g->reference = g->reference || t->reference;
			qp_task_free(t);
			p->tasks[i] = NULL;
			continue;
		}
		if (t->kind == TASK_COPY) {
			/* a copy keeps its name: a conversion of another project that took it moves */
			uint32_t g = outs_get(l, t->dst);
			task *o = g != SMDMX_NONE ? l->tasks[g] : NULL;
			if (o && o->kind != TASK_COPY && !os_path_compare(o->dst, t->dst)) {
				char *ostem = qp_stem_of(&l->mem, o->proj->qcpath);
				char *alt = named_dst(l, o->dst, ostem, o);
				pj_free(&l->mem, ostem);
				if (!alt) break;
				pj_add(&o->diag, o->src, 0, 0, "note", "'%s' is a file %s copies: written as '%s'", o->dst, p->qcpath, alt);
				outs_set(l, o->dst, SMDMX_NONE);
				outs_set(l, alt, g);
				pj_free(&l->mem, o->dst);
				o->dst = alt;
			}
		} else {
			if (dst_taken(l, t->dst, NULL)) {
				char *alt = named_dst(l, t->dst, qcstem, NULL);
				if (!alt) break;
				pj_add(&t->diag, t->src, 0, 0, "note",
				         "%s needs it made another way than a QC before it does (another VTA, rig or rate): written as '%s'",
				         p->qcpath, alt);
				pj_free(&l->mem, t->dst);
				t->dst = alt;
				if (t->vta_dst) {
					pj_free(&l->mem, t->vta_dst);
					if (!(t->vta_dst = pj_path_with_extension(&l->mem, t->dst, "vta"))) break;
				}
			}
			if (t->vta_dst && dst_taken(l, t->vta_dst, NULL)) {
				char *alt = named_dst(l, t->vta_dst, qcstem, NULL);
				if (!alt) break;
				pj_free(&l->mem, t->vta_dst);
				t->vta_dst = alt;
			}
		}
		if (l->task_count == l->task_cap) {
			size_t cap = l->task_cap ? 2 * l->task_cap : 64;
			task **n = pj_realloc(&l->mem, l->tasks, cap * sizeof(task *));
			if (!n) break;
			l->tasks = n;
			l->task_cap = cap;
		}
		map[i] = (uint32_t)l->task_count;
		l->tasks[l->task_count++] = t;
		p->tasks[i] = NULL;
		qp_str_set(&l->keys, t->key, map[i]);
		outs_set(l, t->dst, map[i]);
		if (t->vta_dst) outs_set(l, t->vta_dst, map[i]);
	}
	for (size_t i = 0; i < p->qc->ref_count; i++)
		if (p->task_of[i] != SMDMX_NONE) p->task_of[i] = map[p->task_of[i]];
	pj_free(&l->mem, map);
	pj_free(&l->mem, qcstem);
	if (qp_ran_out(l)) return; /* the tasks not joined are freed with the project */
	pj_free(&l->mem, p->tasks);
	p->tasks = NULL;
	p->task_count = 0;
}

void qp_add_missing(library *l, const char *path)
{
	/* names come from Windows, where case does not matter: one file in two spellings is one */
	char *k = pj_asprintf(&l->mem, "missing|%s", path);
	if (!k) return;
	for (char *c = k; *c; c++)
		if (*c >= 'A' && *c <= 'Z') *c = (char)(*c + 32);
	if (qp_str_get(&l->seen, k) == SMDMX_NONE) {
		qp_str_set(&l->seen, k, 0);
		qp_list_push(&l->mem, &l->missing, &l->missing_count, pj_strdup(&l->mem, path));
	}
	pj_free(&l->mem, k);
}

/* The files named that are not there, each once in the library. */
void qp_count_missing(library *l, const project *p)
{
	for (size_t i = 0; i < p->qc->ref_count; i++) {
		const smdmx_qc_ref *r = &p->qc->refs[i];
		if (!r->found && r->kind != SMDMX_QC_REF_OTHER) qp_add_missing(l, r->path);
	}
}

/* ---- -u: only what is out of date ------------------------------------------------------------ */

static bool newer(const os_stat *a, const os_stat *b)
{
	return a->mtime_sec != b->mtime_sec ? a->mtime_sec > b->mtime_sec : a->mtime_nsec > b->mtime_nsec;
}

/* As make does: a task whose outputs are there and no older than what it reads (its file, its
 * VTA, the QC files of its project) does not run; one whose outputs are older replaces them.
 * A DMX that holds a $model runs always: the QC lines it gives come from reading it. */
void qp_plan_update(library *l)
{
	for (size_t i = 0; i < l->task_count; i++) {
		task *t = l->tasks[i];
		if (t->why_copy || (t->kind == TASK_DMX_TO_SMD && t->model != SMDMX_NONE)) {
			t->replace = true;
			continue;
		}
		os_stat out, in;
		if (!os_stat_path(t->dst, &out)) continue;
		t->replace = true;
		bool stale = !os_stat_path(t->src, &in) || newer(&in, &out);
		if (!stale && t->vta != SMDMX_NONE) stale = !os_stat_path(t->proj->qc->refs[t->vta].path, &in) || newer(&in, &out);
		if (!stale && t->kind == TASK_VTA_REBASE) {
			const smdmx_qc *qc = t->proj->qc;
			stale = !os_stat_path(qc->refs[qc->models[t->model].ref].path, &in) || newer(&in, &out);
		}
		for (size_t f = 0; !stale && t->kind != TASK_COPY && f < t->proj->qc->file_count; f++)
			stale = os_stat_path(t->proj->qc->files[f].path, &in) && newer(&in, &out);
		if (stale) continue;
		t->up_to_date = true;
		t->status = PJ_OK;
		qp_list_push(&l->mem, &t->written, &t->written_count, pj_strdup(&l->mem, t->dst));
	}
}

bool qp_converted(const task *t)
{
	return t && (t->kind == TASK_SMD_TO_DMX || t->kind == TASK_DMX_TO_SMD || t->kind == TASK_VTA_REBASE) && t->status == PJ_OK &&
	       !t->copied;
}

uint32_t qp_body_ref(const project *p, const task *t)
{
	for (size_t i = 0; i < p->qc->ref_count; i++) {
		const smdmx_qc_ref *r = &p->qc->refs[i];
		if (r->kind == SMDMX_QC_REF_MODEL && (!strcmp(r->command, "$body") || !strcmp(r->command, "studio")) &&
		    p->task_of[i] != SMDMX_NONE && p->lib->tasks[p->task_of[i]] == t)
			return (uint32_t)i;
	}
	return SMDMX_NONE;
}
