/* The batch, printed: the command line's options in the library's terms (smdmx/batch.h),
 * what each input says printed in input order as the library's jobs settle, with a progress
 * line on a terminal; the summary; a make-style depfile; the --report page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

typedef struct printer {
	const conv_opts *o;
	diag_buf *diags;     /* per job, as printed (-W, -q, --max-warnings applied) */
	bool *rendered;
	size_t count;
	size_t printed;      /* jobs printed, in input order */
	bool progress;
	os_term term;        /* progress: what the terminal shows */
	unsigned columns;    /* progress: its width */
	size_t shown;        /* progress: columns the line holds now */
	char line[1024];     /* progress: the text it holds */
} printer;

/* Job i's messages as this program prints them (once). */
static diag_buf *rendered(printer *p, const smdmx_batch *b, size_t i)
{
	if (!p->diags) {
		p->count = b->job_count;
		p->diags = have(calloc(p->count ? p->count : 1, sizeof(diag_buf)));
		p->rendered = have(calloc(p->count ? p->count : 1, sizeof(bool)));
	}
	if (!p->rendered[i]) {
		p->rendered[i] = true;
		const smdmx_batch_job *j = &b->jobs[i];
		diag_take(&p->diags[i], p->o, j->messages, j->message_count);
		diag_finish(&p->diags[i], p->o, j->inputs[0]);
	}
	return &p->diags[i];
}

/* The progress line rewritten to text ("" clears it), added to what is to be written. */
static void progress_add(printer *p, text_buf *t, const char *text)
{
	char line[1024];
	progress_render(p->term, p->columns, &p->shown, text, line, sizeof(line));
	tb_puts(t, line);
}

/* The jobs settled since, printed; the progress line after them (under the batch's lock), in
 * one write: the line cleared, the messages and the line again. */
static void on_change(void *user, const smdmx_batch *b)
{
	printer *p = user;
	/* standard output's reader is gone (| head): where no signal ended the program (Windows),
	 * it ends here, as quietly, before the job's "cannot write" is printed */
	if (b->broken_pipe) os_exit_broken_pipe();
	/* the line: the first job not settled (printed below), and what of its input is read */
	char text[1024];
	const smdmx_batch_job *at = &b->jobs[b->settled < b->job_count ? b->settled : 0];
	bool show = p->term != OS_TERM_NONE && b->job_count && b->finished < b->job_count &&
	            progress_text(text, sizeof(text), p->o->name, b->finished, b->job_count, at->inputs[0], at->size, at->read);
	/* nothing new: the line as it is */
	if (p->printed == b->settled && show && !strcmp(text, p->line)) return;
	text_buf t = { 0 };
	if (p->progress) progress_add(p, &t, "");
	p->progress = p->progress || show;
	p->line[0] = 0;
	for (; p->printed < b->settled; p->printed++) {
		const diag_buf *d = rendered(p, b, p->printed);
		for (size_t k = 0; k < d->len; k++) tb_putc(&t, d->text[k]);
	}
	if (show) {
		progress_add(p, &t, text);
		snprintf(p->line, sizeof(p->line), "%s", text);
	}
	if (t.failed) have(NULL);
	if (t.len) os_write_text(stderr, t.text, t.len);
	free(t.text);
}

bool files_below(tool_kind tool, const char *name, const char *dir, char ***paths, size_t *count)
{
	smdmx_error err;
	smdmx_batch_program program = tool == TOOL_SMD2DMX ? SMDMX_BATCH_SMD2DMX : tool == TOOL_DMX2SMD ? SMDMX_BATCH_DMX2SMD : SMDMX_BATCH_ANY;
	bool ok = smdmx_batch_files(program, dir, NULL, paths, count, &err);
	if (!*paths && err.code == SMDMX_ERROR_OUT_OF_MEMORY) have(NULL);
	if (!ok) say(name, "error", "%s", err.message);
	return ok;
}

/* --report: a row per job, its input beside its output as written (with the VTA and clips
 * each side has), the job's messages; the page drawn and written. */
static bool report_batch(const conv_opts *o, printer *p, const smdmx_batch *b)
{
	report_page r = { 0 };
	text_buf title = { 0 };
	tb_puts(&title, o->name);
	tb_putc(&title, ' ');
	for (size_t i = 0; i < b->job_count; i++) {
		const smdmx_batch_job *j = &b->jobs[i];
		bool done = j->state == SMDMX_BATCH_CONVERTED, current = j->state == SMDMX_BATCH_UP_TO_DATE;
		bool ran = done || j->state == SMDMX_BATCH_FAILED;
		const char *state = current ? "up to date" : !ran ? "not converted" : done ? "converted" : "failed";
		const diag_buf *d = rendered(p, b, i);
		have_done(report_add(&r, j->inputs[0], done || current ? j->output : NULL,
		                     ran && !done ? REPORT_FAILED : REPORT_CONVERTED, state, d->text, d->warnings + d->hidden, d->errors));
		if (j->vta) have_done(report_vta(&r, 0, j->vta));
		for (size_t k = 1; k < j->input_count; k++) have_done(report_clip(&r, 0, j->inputs[k]));
		for (size_t k = 0; done && k < j->written_count; k++) {
			const char *w = j->written[k], *ext = os_path_extension(w);
			if (!os_path_compare(w, j->output) || !strcasecmp(ext, "qc")) continue;
			have_done(!strcasecmp(ext, "vta") ? report_vta(&r, 1, w) : report_clip(&r, 1, w));
		}
		if (i == 0) tb_shell_arg(&title, j->inputs[0]);
	}
	char more[64] = "";
	if (b->job_count > 1) snprintf(more, sizeof(more), " and %zu more input%s", b->job_count - 1, b->job_count > 2 ? "s" : "");
	tb_puts(&title, more);
	have_done(!title.failed);
	r.title = title.text ? title.text : o->name;
	bool ok = report_write(&r, o->report, o->jobs, o->force || o->update, o->name);
	if (ok && o->verbose) say(o->name, "note", "report of %zu input%s: %s", b->job_count, b->job_count == 1 ? "" : "s", o->report);
	free(title.text);
	return ok;
}

static bool write_depfile(const conv_opts *o, const smdmx_batch *b)
{
	text_buf t = { 0 };
	for (size_t i = 0; i < b->job_count; i++) {
		const smdmx_batch_job *j = &b->jobs[i];
		if (!j->written_count) continue;
		for (size_t k = 0; k < j->written_count; k++) {
			if (k) tb_putc(&t, ' ');
			tb_dep_path(&t, j->written[k]);
		}
		tb_putc(&t, ':');
		for (size_t k = 0; k < j->input_count; k++) {
			if (!strcmp(j->inputs[k], "-")) continue; /* standard input is no file make knows */
			tb_putc(&t, ' ');
			tb_dep_path(&t, j->inputs[k]);
		}
		if (j->vta) {
			tb_putc(&t, ' ');
			tb_dep_path(&t, j->vta);
		}
		for (size_t k = 0; k < j->dep_count; k++) {
			tb_putc(&t, ' ');
			tb_dep_path(&t, j->deps[k]);
		}
		tb_putc(&t, '\n');
	}
	char why[1024];
	bool ok = depfile_write(o->depfile, &t, why, sizeof(why));
	free(t.text);
	if (!ok) say(o->name, "error", "%s", why);
	return ok;
}

/* The command line's options in the library's terms; false (said) when standard input, its
 * one input, cannot be read. */
static bool options_of(const conv_opts *o, char **inputs, size_t input_count, smdmx_batch_options *bo)
{
	memset(bo, 0, sizeof(*bo));
	bo->program = o->tool == TOOL_SMD2DMX ? SMDMX_BATCH_SMD2DMX : o->tool == TOOL_DMX2SMD ? SMDMX_BATCH_DMX2SMD : SMDMX_BATCH_ANY;
	bo->inputs = (const char *const *)inputs;
	bo->input_count = input_count;
	bo->recursive = o->recursive;
	bo->output = o->out;
	bo->outdir = o->outdir;
	bo->to = o->to;
	bo->clips = o->clips;
	bo->qc = o->tool == TOOL_SMD2DMX ? o->qc : NULL;
	bo->stdin_name = stdin_name;
	bo->update = o->update;
	bo->keep_going = bo->biggest_first = o->keep_going; /* -k: both (its help says so) */
	bo->jobs = o->jobs;
	bo->threads = o->threads;
	bo->given = o->given;
	smdmx_convert_options *c = &bo->convert;
	c->vta = o->vta;
	c->qc = o->tool == TOOL_DMX2SMD ? o->qc : NULL;
	c->model = o->model;
	c->clip = o->clip_name;
	c->scale = o->scale;
	c->up_axis = o->up_axis;
	c->force = o->force;
	c->warnings_fail = o->werror;
	c->notes = o->verbose;
	c->smd_read = o->ropts;
	c->dmx_read = o->xopts;
	c->smd_write = o->wopts;
	c->model_options = o->mopts;
	c->dmx_write = o->dopts;
	c->gltf.max_links = o->links;
	if (input_count == 1 && !strcmp(inputs[0], "-")) {
		char why[256];
		c->input_data = stdin_data(&c->input_size, why, sizeof(why));
		if (!c->input_data) {
			os_printf(stderr, "-: error: %s\n", why);
			return false;
		}
	}
	return true;
}

int batch_main(conv_opts *o, char **inputs, size_t input_count)
{
	smdmx_batch_options bo;
	if (!options_of(o, inputs, input_count, &bo)) return EXIT_FAILED;
	output_init();
	printer p = { .o = o };
	p.term = !o->quiet ? os_terminal(stderr, &p.columns) : OS_TERM_NONE;
	bo.on_change = on_change;
	bo.user = &p;
	smdmx_error err;
	/* A batch allocates and frees models of similar sizes again and again: the program tells
	 * its allocator so (the library leaves its host's alone). */
	os_tune_allocator();
	smdmx_batch *b = smdmx_batch_convert(&bo, &err);
	if (!b) {
		say(o->name, "error", "%s", err.message);
		return EXIT_FAILED;
	}
	if (b->broken_pipe) os_exit_broken_pipe(); /* (a batch whose one job settled untold) */
	int rc = b->ok ? EXIT_OK : EXIT_FAILED;
	if (b->status == SMDMX_ERROR_USAGE) rc = EXIT_USAGE;
	/* What is left to print: jobs after one that never ran (the batch stopped). */
	if (p.progress) {
		text_buf t = { 0 };
		progress_add(&p, &t, "");
		if (t.len) os_write_text(stderr, t.text, t.len);
		free(t.text);
	}
	for (size_t i = p.printed; rc != EXIT_USAGE && i < b->job_count; i++) {
		smdmx_batch_state s = b->jobs[i].state;
		const diag_buf *d = s == SMDMX_BATCH_NOT_RUN || s == SMDMX_BATCH_CANCELLED ? NULL : rendered(&p, b, i);
		if (d && d->len) os_write_text(stderr, d->text, d->len);
	}
	for (size_t i = 0; i < b->message_count; i++) {
		const smdmx_message *m = &b->messages[i];
		if (m->kind == SMDMX_MESSAGE_NOTE && o->quiet) continue;
		bool werror = m->kind == SMDMX_MESSAGE_WARNING && o->werror;
		say(o->name, werror || m->kind == SMDMX_MESSAGE_ERROR ? "error" : m->kind == SMDMX_MESSAGE_WARNING ? "warning" : "note", "%s%s",
		    m->text, werror ? " (-W error)" : "");
	}
	/* memory ran out once files were in place: those stay (their jobs say so), the rest not */
	size_t lost = b->messages_lost;
	for (size_t i = 0; i < b->job_count; i++) lost += b->jobs[i].messages_lost;
	if (b->out_of_memory) say(o->name, "error", "%s: the batch stopped; the files written stay", err.message);
	if (lost) say(o->name, "error", "%zu message%s not shown: memory could not hold %s", lost, lost == 1 ? "" : "s",
	              lost == 1 ? "it" : "them");
	if (rc != EXIT_USAGE && !b->out_of_memory) {
		if (!b->failed && o->depfile && !write_depfile(o, b)) rc = EXIT_FAILED;
		if (o->report && !report_batch(o, &p, b)) rc = EXIT_FAILED;
	}
	for (size_t i = 0; i < p.count; i++) diag_free(&p.diags[i]);
	free(p.diags);
	free(p.rendered);
	smdmx_batch_free(b);
	return rc;
}
