/* QC projects, the QC files written: each reference renamed as its task named its output, the
 * flex and rig lines moved as the conversion needs (decision 15), each QC file rendered and
 * written once however many projects include it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"

/* ---- the QC's edits ------------------------------------------------------------------------- */

static bool edit_fail(project *p, const smdmx_error *e)
{
	pj_add_error(&p->diag, p->qcpath, e);
	return false;
}

static task *model_task(const project *p, uint32_t model)
{
	uint32_t ref = p->qc->models[model].ref;
	uint32_t ti = ref == SMDMX_NONE ? SMDMX_NONE : p->task_of[ref];
	return ti == SMDMX_NONE ? NULL : p->lib->tasks[ti];
}

/* Reference i is renamed: its file was converted (or its copy took a name of its own). */
static bool renamed_ref(const project *p, size_t i)
{
	uint32_t ti = p->task_of[i];
	if (ti == SMDMX_NONE) return false;
	const task *t = p->lib->tasks[ti];
	/* a copy that took a name of its own (something else was where it would go) */
	bool moved_copy = t->kind == TASK_COPY && t->status == PJ_OK && p->ref_out[i] && strcmp(t->dst, p->ref_out[i]);
	if (!qp_converted(t) && !moved_copy) return false;
	/* a rebased VTA keeps its name unless it had to take another; its flexfile line goes */
	return !(t->kind == TASK_VTA_REBASE && (!strcmp(t->dst, p->ref_out[i]) || !strcmp(p->qc->refs[i].command, "flexfile")));
}

static bool rename_ref(project *p, size_t i, bool report)
{
	const task *t = p->lib->tasks[p->task_of[i]];
	char *name = qp_new_name(&p->lib->mem, p->qc->refs[i].name, t->src, t->dst);
	if (!name) return false; /* out of memory: said; nothing is written */
	smdmx_error err;
	bool ok = smdmx_qc_rename(p->qc, (uint32_t)i, name, &err) || (report && edit_fail(p, &err));
	pj_free(&p->lib->mem, name);
	return ok;
}

/* Whether a reference that keeps its name had its text changed by another's new name (a macro's
 * body, a variable both use): it would name another file. *first: the first such. */
static bool changed_kept(const project *p, const bool *keep, size_t *first)
{
	for (size_t i = 0; i < p->qc->ref_count; i++) {
		if ((renamed_ref(p, i) && !keep[i]) || !smdmx_qc_ref_changed(p->qc, (uint32_t)i)) continue;
		*first = i;
		return true;
	}
	return false;
}

/* src copied to dst (the file kept with its name and format): the very bytes there stay. */
static bool copy_kept(project *p, task *t, const char *src, const char *dst)
{
	char why[1024];
	pj_outputs set = { .hooks = &p->lib->mem.hooks, .mem = &p->lib->mem };
	set.force = p->lib->o->force || p->lib->o->update;
	set.same_ok = true;
	char *ins[1] = { (char *)src };
	const char *at = qp_copy_into(&set, src, dst, ins, 1, true, why, sizeof(why));
	/* among the task's outputs (the depfile names them), listed whole (pj_outputs_commit) */
	bool ok = !at && pj_outputs_commit(&set, &t->written, &t->written_count, why, sizeof(why));
	if (at) pj_outputs_abort(&set);
	if (!ok) pj_error(&p->diag, set.code, dst, 0, 0, "cannot copy '%s' here: %s", src, why);
	return ok;
}

/* Names of the files converted, and the flex lines that moved into their DMXs. */
bool qp_edit_names(project *p)
{
	smdmx_qc *qc = p->qc;
	smdmx_error err;
	bool ok = true;
	bool *keep = pj_calloc(&p->lib->mem, qc->ref_count + 1, sizeof(bool));
	if (!keep) return false;
	/* A reference that keeps its name (a copy planned so, or with -k one that failed) whose
	 * text another's new name changed would name another file: the files renamed through
	 * that text keep their names too (copied as they are), round by round; where that cannot
	 * be, an error, and the project's QC files are not written. Without -k, QC files are
	 * written only when nothing failed, so only planned copies come here. */
	for (size_t round = 0; round <= qc->ref_count; round++) {
		smdmx_qc_clear_edits(qc);
		for (size_t i = 0; i < qc->ref_count && ok; i++)
			if (renamed_ref(p, i) && !keep[i]) ok = rename_ref(p, i, true);
		size_t first = 0;
		if (!ok || !changed_kept(p, keep, &first)) break;
		bool more = false;
		for (size_t i = 0; i < qc->ref_count; i++) {
			if (!renamed_ref(p, i) || keep[i]) continue;
			const task *t = p->lib->tasks[p->task_of[i]];
			smdmx_qc_clear_edits(qc);
			if (!rename_ref(p, i, false) || !smdmx_qc_ref_changed(qc, (uint32_t)first)) continue;
			/* a $model whose VTA went into its DMX cannot simply keep its file */
			if (t->kind == TASK_SMD_TO_DMX && t->vta != SMDMX_NONE) continue;
			keep[i] = more = true;
		}
		if (!more) {
			smdmx_qc_clear_edits(qc);
			const smdmx_qc_ref *r = &qc->refs[first];
			pj_error(&p->diag, SMDMX_ERROR_USAGE, r->pos.file ? qc->files[r->pos.file].path : p->qcpath, r->pos.line, r->pos.column,
			         "'%s' keeps its name, but the text that makes it (a macro's body, a variable) changed for another file's new "
			         "name: the written QC would name another file; this project's QC files are not written",
			         r->name);
			p->unwritable = true;
			ok = false;
			break;
		}
	}
	for (size_t i = 0; i < qc->ref_count && ok; i++) {
		if (!keep[i]) continue;
		const smdmx_qc_ref *r = &qc->refs[i];
		bool done = false;
		for (size_t k = 0; k < i && !done; k++) done = keep[k] && !strcmp(qc->refs[k].path, r->path);
		if (done) continue;
		ok = copy_kept(p, p->lib->tasks[p->task_of[i]], r->path, p->ref_out[i]);
		if (ok)
			pj_add(&p->diag, r->pos.file ? qc->files[r->pos.file].path : p->qcpath, r->pos.line, r->pos.column, "note",
			         "'%s' keeps its name and format (copied as it is): the text that makes its name (a macro's body, a "
			         "variable) names a file that keeps its own too",
			         r->name);
	}
	pj_free(&p->lib->mem, keep);
	if (!strcmp(p->lib->to, "dmx")) {
		for (size_t k = 0; k < qc->model_count && ok; k++) {
			const task *t = model_task(p, (uint32_t)k);
			const smdmx_qc_model *m = &qc->models[k];
			if (!qp_converted(t) || t->kind != TASK_SMD_TO_DMX || t->model == SMDMX_NONE || !m->flex_count) continue;
			bool rig_dmx = p->lib->rig_dmx && !m->lost_lines;
			ok = smdmx_qc_remove_lines(qc, (uint32_t)k, SMDMX_QC_LINES_FLEX | (rig_dmx ? SMDMX_QC_LINES_RIG | SMDMX_QC_LINES_NOAUTODMXRULES : 0),
			                           &err) ||
			     edit_fail(p, &err);
			if (ok && !rig_dmx && !m->noautodmxrules)
				ok = smdmx_qc_append_to_model(qc, (uint32_t)k, "\tnoautodmxrules\n", &err) || edit_fail(p, &err);
		}
	}
	return ok;
}

/* The QC lines of DMX model t for model k of project p: its flexfile line names the VTA from
 * p's folder for the model (one DMX made once for QCs that name it from other folders). */
static char *lines_for(const project *p, uint32_t k, const task *t)
{
	if (!t->has_vta || !t->vta_dst || p == t->proj) return pj_strdup(&p->lib->mem, t->model_lines);
	char *old = qp_vta_name(t->proj, t->model, t->vta_dst), *neu = qp_vta_name(p, k, t->vta_dst);
	char *was = old ? pj_asprintf(&p->lib->mem, "\tflexfile \"%s\"\n", old) : NULL;
	char *now = neu ? pj_asprintf(&p->lib->mem, "\tflexfile \"%s\"\n", neu) : NULL;
	char *at = was && now ? strstr(t->model_lines, was) : NULL;
	char *lines = !at ? NULL : pj_asprintf(&p->lib->mem, "%.*s%s%s", (int)(at - t->model_lines), t->model_lines, now, at + strlen(was));
	pj_free(&p->lib->mem, old);
	pj_free(&p->lib->mem, neu);
	pj_free(&p->lib->mem, was);
	pj_free(&p->lib->mem, now);
	return lines; /* NULL: out of memory (the line is there: the task wrote it) */
}

/* DMX to SMD: the lines the DMXs held. */
bool qp_edit_lines(project *p)
{
	smdmx_qc *qc = p->qc;
	smdmx_error err;
	bool ok = true;
	for (size_t k = 0; k < qc->model_count && ok; k++) {
		const task *t = model_task(p, (uint32_t)k);
		if (!qp_converted(t) || t->kind != TASK_DMX_TO_SMD || t->model == SMDMX_NONE) continue;
		const smdmx_qc_model *m = &qc->models[k];
		if (t->model_lines && *t->model_lines) {
			char *lines = lines_for(p, (uint32_t)k, t);
			if (!lines) return false;
			if (m->noautodmxrules) {
				/* The QC's own rig stays: only the shapes come out of the DMX, at the start of the
				 * block, before the rules that read them (studiomdl refuses a rule for a flex
				 * not yet defined). */
				char *w = lines;
				for (char *s = lines; *s;) {
					char *e = strchr(s, '\n');
					size_t len = e ? (size_t)(e - s + 1) : strlen(s);
					if (!strncmp(s, "\tflexfile ", 10) || !strncmp(s, "\tflex ", 6) || !strncmp(s, "\tflexpair ", 10)) {
						memmove(w, s, len);
						w += len;
					}
					s += len;
				}
				*w = 0;
				ok = smdmx_qc_remove_lines(qc, (uint32_t)k, SMDMX_QC_LINES_NOAUTODMXRULES, &err) || edit_fail(p, &err);
				ok = ok && (smdmx_qc_prepend_to_model(qc, (uint32_t)k, lines, &err) || edit_fail(p, &err));
			} else {
				ok = smdmx_qc_append_to_model(qc, (uint32_t)k, lines, &err) || edit_fail(p, &err);
			}
			pj_free(&p->lib->mem, lines);
		}
		if (ok && t->att_lines && *t->att_lines)
			ok = smdmx_qc_insert_after_model(qc, (uint32_t)k, t->att_lines, &err) || edit_fail(p, &err);
	}
	/* the models of $body and $bodygroup: their attachments after the command that names them
	 * first */
	for (size_t i = 0; i < qc->ref_count && ok; i++) {
		const task *t = p->task_of[i] == SMDMX_NONE ? NULL : p->lib->tasks[p->task_of[i]];
		if (!qp_converted(t) || t->kind != TASK_DMX_TO_SMD || t->model != SMDMX_NONE || !t->att_lines || !*t->att_lines ||
		    qp_body_ref(p, t) != i)
			continue;
		ok = smdmx_qc_insert_after_ref(qc, (uint32_t)i, t->att_lines, &err) || edit_fail(p, &err);
	}
	return ok;
}

/* ---- the QC files -------------------------------------------------------------------------- */


static bool render_fn(void *user, const void *data, size_t size)
{
	pj_text *b = user;
	for (size_t i = 0; i < size; i++) pj_putc(b, ((const char *)data)[i]);
	return true;
}

/* Whether the text rendered for path cannot be written there: a project before wrote other
 * bytes there, or (without --force or -u) a file with other bytes is there already, a user's
 * or another run's for another QC (the record's: record.c). *same: a project before wrote
 * these very bytes. */
static bool include_clash(const project *p, const char *path, const pj_text *text, const rendered *done, size_t done_count,
                          bool *same)
{
	*same = false;
	for (size_t k = 0; k < done_count; k++) {
		if (strcmp(done[k].path, path)) continue;
		*same = done[k].text.len == text->len && (!text->len || !memcmp(done[k].text.text, text->text, text->len));
		return !*same;
	}
	const smdmx_project_options *o = p->lib->o;
	if (o->force || o->update) return false;
	os_stat st;
	return os_stat_path(path, &st) && !smdmx_file_same_bytes(path, NULL, text->text, text->len) && !qp_record_own(p->lib, path, p->qcpath);
}

/* Who made the file at path this run ("an earlier run" when no project did). */
static const char *include_clash_owner(const char *path, const rendered *done, size_t done_count)
{
	for (size_t k = 0; k < done_count; k++)
		if (!strcmp(done[k].path, path)) return done[k].by->qcpath;
	return "the file already there, written before this run";
}

/* The project's QC and its includes as they are to be written, each file once in the
 * library. An include two projects share is written once when both need the same bytes; when
 * the later needs other bytes, or a file with other bytes is already where it would go (an
 * earlier run's, a user's: never overwritten without --force), the later project's $include
 * names a file of its own, named after its QC ("shared_head2.qci"), said in a note. Files
 * already rendered by an earlier project are left out of *mine. */
bool qp_render_qc_files(project *p, const rendered *done, size_t done_count, rendered **mine_out, size_t *mine_count)
{
	library *l = p->lib;
	smdmx_qc *qc = p->qc;
	size_t fc = qc->file_count;
	char **dst = pj_calloc(&l->mem, fc + 1, sizeof(char *));
	rendered *mine = pj_calloc(&l->mem, fc + 1, sizeof(rendered));
	*mine_out = mine;
	*mine_count = 0;
	for (size_t i = 0; dst && i < fc; i++) dst[i] = qp_out_path(l, qc->files[i].path);
	/* An include renamed changes the file that includes it: round after round until none
	 * clashes (each round renames one at least, or ends). */
	char *qcstem = qp_stem_of(&l->mem, p->qcpath);
	bool ok = dst && mine && qcstem && !qp_ran_out(l); /* out of memory: nothing rendered */
	for (size_t round = 0; round <= fc && ok; round++) {
		bool renamed = false;
		for (size_t i = fc; i-- > 1 && ok;) {
			pj_text text = { .mem = &l->mem };
			smdmx_error err;
			smdmx_qc_write(qc, (uint32_t)i, render_fn, &text, &err);
			bool same;
			bool clash = include_clash(p, dst[i], &text, done, done_count, &same);
			if (clash) {
				const char *ext = os_path_extension(dst[i]);
				size_t stem = strlen(dst[i]) - strlen(ext) - (*ext ? 1 : 0);
				char *alt = NULL;
				for (unsigned n = 1;; n++) {
					pj_free(&l->mem, alt);
					alt = n == 1 ? pj_asprintf(&l->mem, "%.*s_%s%s%s", (int)stem, dst[i], qcstem, *ext ? "." : "", ext)
					             : pj_asprintf(&l->mem, "%.*s_%s%u%s%s", (int)stem, dst[i], qcstem, n, *ext ? "." : "", ext);
					bool alt_same;
					if (!alt || !include_clash(p, alt, &text, done, done_count, &alt_same)) break;
				}
				if (!alt) {
					ok = false;
					pj_free(&l->mem, text.text);
					break;
				}
				char *name = qc->files[i].name ? qp_new_name(&l->mem, qc->files[i].name, dst[i], alt) : NULL;
				if (!name || !smdmx_qc_rename_include(qc, (uint32_t)i, name, &err)) {
					if (name) pj_add_error(&p->diag, p->qcpath, &err);
					else pj_error(&p->diag, SMDMX_ERROR_USAGE, qc->files[i].path, 0, 0, "%s needs it written otherwise than it is in the "
					              "output, and no $include of its names it: this project's QC files are not written", p->qcpath);
					ok = false;
				} else {
					pj_add(&p->diag, qc->files[i].path, 0, 0, "note",
					         "%s needs it written otherwise than %s (a file it names is converted another way): written as '%s' for this QC",
					         p->qcpath, include_clash_owner(dst[i], done, done_count), alt);
					pj_free(&l->mem, dst[i]);
					dst[i] = alt;
					alt = NULL;
					renamed = true;
				}
				pj_free(&l->mem, name);
				pj_free(&l->mem, alt);
			}
			pj_free(&l->mem, text.text);
		}
		if (!renamed) break;
	}
	pj_free(&l->mem, qcstem);
	size_t n = 0;
	for (size_t i = 0; i < fc && ok && !qp_ran_out(l); i++) {
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++) dup = !strcmp(mine[k].path, dst[i]);
		if (dup) continue;
		rendered r = { dst[i], { .mem = &l->mem }, p, (uint32_t)i };
		smdmx_error err;
		smdmx_qc_write(qc, (uint32_t)i, render_fn, &r.text, &err);
		bool same = false;
		for (size_t k = 0; k < done_count && !same; k++)
			same = !strcmp(done[k].path, dst[i]) && done[k].text.len == r.text.len &&
			       (!r.text.len || !memcmp(done[k].text.text, r.text.text, r.text.len));
		if (same) {
			pj_free(&l->mem, r.text.text);
			continue;
		}
		dst[i] = NULL;
		mine[n++] = r;
	}
	for (size_t i = 0; dst && i < fc; i++) pj_free(&l->mem, dst[i]);
	pj_free(&l->mem, dst);
	*mine_count = n;
	return ok && !qp_ran_out(l); /* a text cut short is never written */
}

/* The rendered files of a project into OUTDIR, all or none; they join done. */
bool qp_write_qc_files(project *p, rendered **done, size_t *done_count)
{
	library *l = p->lib;
	rendered *mine;
	size_t n;
	bool ok = qp_render_qc_files(p, *done, *done_count, &mine, &n);
	if (!mine) return false; /* out of memory */
	pj_outputs set = { .hooks = &p->lib->mem.hooks, .mem = &p->lib->mem };
	set.force = l->o->force || l->o->update;
	set.same_ok = true;
	char why[1024];
	for (size_t i = 0; i < n && ok; i++) {
		rendered *r = &mine[i];
		/* -u, or an include an earlier run wrote with these very bytes (one QC at a time into
		 * one folder): it stands as it is */
		if ((l->o->update || (r->file != 0 && !set.force)) && smdmx_file_same_bytes(r->path, NULL, r->text.text, r->text.len)) {
			qp_list_push(&l->mem, &l->qc_kept, &l->qc_kept_count, pj_strdup(&l->mem, r->path));
			continue;
		}
		char *ins[1] = { (char *)p->qc->files[r->file].path };
		pj_output *o = pj_output_allowed(&set, r->path, ins, 1, set.force || set.same_ok, why, sizeof(why))
		                ? pj_outputs_open(&set, r->path, why, sizeof(why))
		                : NULL;
		if (o) smdmx_output_set_replace(o, qp_record_own(l, r->path, p->qcpath)); /* this QC's, as an earlier run wrote it */
		if (!o) {
			pj_error(&p->diag, set.code, r->path, 0, 0, "%s", why);
			ok = false;
		} else if (!pj_output_write(o, r->text.text ? r->text.text : "", r->text.len)) {
			pj_error(&p->diag, SMDMX_ERROR_IO, r->path, 0, 0, "cannot write: %s", os_error_text(smdmx_output_errno(o)));
			ok = false;
		}
	}
	size_t before = l->qc_written_count;
	ok = ok && !qp_ran_out(p->lib);
	if (ok) ok = pj_outputs_commit(&set, &l->qc_written, &l->qc_written_count, why, sizeof(why)) ||
	             (pj_error(&p->diag, set.code, p->qcpath, 0, 0, "%s", why), false);
	else pj_outputs_abort(&set);
	for (size_t k = before; k < l->qc_written_count; k++) qp_record_written(l, l->qc_written[k], p->qcpath);
	/* what was written stays, for the projects after */
	rendered *all = pj_realloc(&l->mem, *done, (*done_count + n + 1) * sizeof(rendered));
	if (all) *done = all;
	for (size_t i = 0; i < n; i++) {
		if (ok && all) {
			all[(*done_count)++] = mine[i];
		} else {
			pj_free(&l->mem, mine[i].path);
			pj_free(&l->mem, mine[i].text.text);
		}
	}
	pj_free(&l->mem, mine);
	return ok;
}

/* What the library holds, its projects' too (not the projects' array itself). */
void qp_library_free(library *lib)
{
	for (size_t i = 0; i < lib->task_count; i++) qp_task_free(lib->tasks[i]);
	pj_free(&lib->mem, lib->tasks);
	for (size_t pi = 0; pi < lib->project_count; pi++) {
		project *p = &lib->projects[pi];
		for (size_t i = 0; i < p->task_count; i++) qp_task_free(p->tasks[i]);
		pj_free(&lib->mem, p->tasks);
		pj_free(&lib->mem, p->task_of);
		if (p->ref_out)
			for (size_t i = 0; i < p->qc->ref_count; i++) pj_free(&lib->mem, p->ref_out[i]);
		pj_free(&lib->mem, p->ref_out);
		pj_free(&lib->mem, p->vta_consumed);
		pj_msgs_free(&p->diag);
		smdmx_qc_free(p->qc);
	}
	for (size_t k = 0; k < lib->qc_written_count; k++) pj_free(&lib->mem, lib->qc_written[k]);
	pj_free(&lib->mem, lib->qc_written);
	for (size_t k = 0; k < lib->qc_kept_count; k++) pj_free(&lib->mem, lib->qc_kept[k]);
	pj_free(&lib->mem, lib->qc_kept);
	for (size_t i = 0; i < lib->missing_count; i++) pj_free(&lib->mem, lib->missing[i]);
	pj_free(&lib->mem, lib->missing);
	for (size_t i = 0; i < lib->consumed_count; i++) pj_free(&lib->mem, lib->consumed[i]);
	pj_free(&lib->mem, lib->consumed);
	qp_record_free(lib);
	qp_str_map_free(&lib->keys);
	qp_str_map_free(&lib->outs);
	qp_str_map_free(&lib->seen);
	pj_free(&lib->mem, lib->root);
	pj_free(&lib->mem, lib->outdir);
	if (lib->lock) os_mutex_destroy(lib->lock);
}
