/* smdmx qc: a whole QC project into the other format. Every file the QC and its includes
 * name is converted (or copied, when it is in the target format already, or not a model)
 * into OUTDIR at its place relative to the project's folder (the folder holding the main QC
 * and every file it reads), and the QC and its includes are written there with only what
 * the conversion changes (decision 15): file names, the flex lines that move into a DMX or
 * out of one, noautodmxrules (G4), and the $attachment lines a DMX held. The work is the
 * library's (smdmx_projects_convert, smdmx/project.h); here are the command's options, the
 * QCs it finds below folders (-r), and what it prints: the run's messages with -W, -q and
 * --max-warnings applied, the summary, the depfile and the report. And `smdmx info`/`check`
 * of a QC. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

static void list_push(char ***list, size_t *count, char *s)
{
	char **l = have(realloc(*list, (*count + 1) * sizeof(char *)));
	*list = l;
	l[(*count)++] = s;
}

/* ---- the command ------------------------------------------------------------------------------ */

#define usage(...) usage_of(CMD_QC, __VA_ARGS__)

/* Every .qc below dir (smdmx_project_files) onto list; false when a folder could not be
 * read (said). */
static bool find_qcs(const char *dir, char ***list, size_t *count)
{
	char **found;
	size_t n;
	smdmx_error err;
	bool ok = smdmx_project_files(dir, NULL, &found, &n, &err);
	if (!found && err.code == SMDMX_ERROR_OUT_OF_MEMORY) have(NULL);
	if (!ok) say("smdmx", "error", "%s", err.message);
	for (size_t i = 0; i < n; i++) list_push(list, count, xstrdup(found[i]));
	smdmx_project_files_free(found);
	return ok;
}

/* What `smdmx qc` was told besides conv_opts: the format, the rig's place and the paths
 * given (QCs or, with -r, directories); st reads the conversions' options into conv_opts. */
typedef struct qc_command {
	opt_state st;
	const char *to, *rig;
	char **args;
	size_t arg_count;
} qc_command;

static int qc_option(void *ctx, const cli_option *opt, const char *value, double number)
{
	qc_command *c = ctx;
	if (opt->id == OP_TO) c->to = value;
	else if (opt->id == OP_RIG) c->rig = value;
	else return conv_option(&c->st, opt, value, number);
	return -1;
}

static int qc_argument(void *ctx, const char *arg)
{
	qc_command *c = ctx;
	list_push(&c->args, &c->arg_count, (char *)arg);
	return -1;
}

/* The options and arguments of `smdmx qc` into o and c: -1 to go on, else the exit status
 * (--help answered, a usage error said). */
static int qc_options(int argc, char **argv, conv_opts *o, qc_command *c)
{
	c->rig = "qc";
	c->st.o = o;
	c->st.command = CMD_QC;
	opt_reader r = { CMD_QC, argc, argv, qc_option, qc_argument, c };
	int rc = opt_read(&r);
	if (rc >= 0) return rc;
	if (!c->arg_count) return usage("%s", o->recursive ? "-r needs a directory" : "qc needs a QC file");
	if (!c->to) return usage("%s", "--to is dmx or smd");
	if (!o->outdir) return usage("%s", "-d OUTDIR is required: the project is written there");
	if (!strcmp(c->rig, "dmx") && strcasecmp(c->to, "dmx")) return usage("%s", "--rig dmx applies to --to dmx");
	return apply_target(&c->st) ? -1 : EXIT_USAGE;
}

/* The QCs: those given, and with -r every .qc below the directories given (into dirs). */
static int collect_qcs(const conv_opts *o, char **args, size_t arg_count, char ***qcs, size_t *qc_count, char ***dirs,
                       size_t *dir_count)
{
	int rc = EXIT_OK;
	for (size_t i = 0; i < arg_count && rc == EXIT_OK; i++) {
		os_stat st;
		if (os_stat_path(args[i], &st) && st.kind == OS_DIRECTORY) {
			if (!o->recursive) rc = usage("'%s' is a directory (-r converts every QC below it)", args[i]);
			else {
				size_t before = *qc_count;
				if (!find_qcs(args[i], qcs, qc_count)) rc = EXIT_FAILED;
				else if (*qc_count == before) rc = usage("no .qc file below '%s'", args[i]);
				list_push(dirs, dir_count, xstrdup(args[i]));
			}
		} else {
			list_push(qcs, qc_count, xstrdup(args[i]));
		}
	}
	return rc;
}

/* A line a QC's messages print, and how many QCs print it alike. */
struct qc_line {
	const char *text;
	size_t len, count;
};

static int by_text(const void *a, const void *b)
{
	const struct qc_line *x = *(const struct qc_line *const *)a, *y = *(const struct qc_line *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->text, y->text, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The run's messages rendered: each QC's (in qcs) and each file's (in files). */
typedef struct said_run {
	diag_buf *qcs, *files;
} said_run;

static void said_run_free(said_run *s, const smdmx_project_run *run)
{
	for (size_t i = 0; i < run->qc_count; i++) diag_free(&s->qcs[i]);
	for (size_t i = 0; i < run->file_count; i++) diag_free(&s->files[i]);
	free(s->qcs);
	free(s->files);
}

/* The QCs' messages, each once: a message several QCs give alike (a file missing that a shared
 * include names, a form of that include) is one cause, said once with how many QCs it is for. */
static void report_qc_messages(const smdmx_project_run *run, const said_run *s)
{
	size_t n = 0;
	struct qc_line *lines = NULL;
	/* the lines sorted apart, to find one said before without comparing every pair */
	size_t total = 0;
	for (size_t qi = 0; qi < run->qc_count; qi++)
		for (const char *c = run->qcs[qi].qc ? s->qcs[qi].text : NULL; c && *c; c++) total += *c == '\n';
	lines = have(calloc(total + 1, sizeof(*lines)));
	struct qc_line **order = have(calloc(total + 1, sizeof(*order)));
	for (size_t qi = 0; qi < run->qc_count; qi++) {
		const char *c = run->qcs[qi].qc ? s->qcs[qi].text : NULL;
		while (c && *c) {
			const char *e = strchr(c, '\n');
			size_t len = e ? (size_t)(e - c) : strlen(c);
			lines[n] = (struct qc_line){ c, len, 1 };
			order[n] = &lines[n];
			n++;
			c += len + (e ? 1 : 0);
		}
	}
	qsort(order, n, sizeof(*order), by_text);
	/* the first of alike lines counts them all; the others are said with it */
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		while (k < n && by_text(&order[i], &order[k]) == 0) k++;
		struct qc_line *first = order[i];
		for (size_t j = i + 1; j < k; j++)
			if (order[j] < first) first = order[j];
		for (size_t j = i; j < k; j++) order[j]->count = order[j] == first ? k - i : 0;
		i = k;
	}
	for (size_t i = 0; i < n; i++) {
		if (lines[i].count > 1) os_printf(stderr, "%.*s (for %zu QCs)\n", (int)lines[i].len, lines[i].text, lines[i].count);
		else if (lines[i].count) os_printf(stderr, "%.*s\n", (int)lines[i].len, lines[i].text);
	}
	free(order);
	free(lines);
}

/* The messages (each QC's, then each file's, in the order planned) and the summary line. */
static void report(const conv_opts *o, const smdmx_project_run *run, const said_run *s, int rc)
{
	report_qc_messages(run, s);
	for (size_t i = 0; i < run->file_count; i++) {
		const smdmx_project_file *f = &run->files[i];
		os_puts(s->files[i].text ? s->files[i].text : "", stderr);
		if (o->verbose && f->ok && !f->up_to_date)
			for (size_t k = 0; k < f->written_count; k++) {
				diag_buf d = { 0 };
				diag_add(&d, NULL, f->source, 0, 0, "note", "-> %s", f->written[k]);
				os_puts(d.text ? d.text : "", stderr);
				diag_free(&d);
			}
	}
	if (o->verbose)
		for (size_t k = 0; k < run->qc_written_count; k++) say("smdmx", "note", "-> %s", run->qc_written[k]);
	size_t projects = run->qc_count - run->qcs_not_read, unread = run->qcs_not_read;
	if (projects && rc != EXIT_USAGE && !o->quiet &&
	    (run->file_count > 1 || run->failed || run->missing_count || run->lines_not_read || projects > 1)) {
		os_printf(stderr, "smdmx: ");
		if (run->qc_count > 1) os_printf(stderr, "%zu QC projects, ", run->qc_count);
		os_printf(stderr, "%zu converted, %zu copied, %zu missing, %zu failed", run->converted, run->copied, run->missing_count,
		        run->failed);
		if (run->lines_not_read)
			os_printf(stderr, ", %zu QC line%s not read", run->lines_not_read, run->lines_not_read == 1 ? "" : "s");
		if (unread) os_printf(stderr, ", %zu QC%s not read", unread, unread == 1 ? "" : "s");
		if (run->up_to_date) os_printf(stderr, ", %zu up to date", run->up_to_date);
		os_printf(stderr, "; %zu QC file%s written\n", run->qc_written_count, run->qc_written_count == 1 ? "" : "s");
	}
}

/* --report: a row per QC, its model beside the converted QC's (as smdmx preview draws a QC's
 * $model), with the messages said about the QC and the files it planned. */
static bool qc_report(const conv_opts *o, const smdmx_project_run *run, const said_run *s)
{
	report_page r = { 0 };
	text_buf title = { 0 };
	tb_puts(&title, "smdmx qc ");
	size_t rows = 0;
	for (size_t qi = 0; qi < run->qc_count; qi++) {
		const smdmx_project_qc *q = &run->qcs[qi];
		if (!q->qc) continue;
		text_buf said = { 0 };
		size_t warnings = s->qcs[qi].warnings + s->qcs[qi].hidden, errors = s->qcs[qi].errors;
		bool failed = !q->ok;
		tb_puts(&said, s->qcs[qi].text);
		for (size_t i = 0; i < run->file_count; i++) {
			const smdmx_project_file *f = &run->files[i];
			if (f->qc != qi) continue;
			tb_puts(&said, s->files[i].text);
			warnings += s->files[i].warnings + s->files[i].hidden;
			errors += s->files[i].errors;
			failed |= !f->ok;
		}
		/* a file another QC planned: its failure is this QC's too, said here as well */
		for (size_t k = 0; k < q->file_count; k++) {
			const smdmx_project_file *f = &run->files[q->files[k]];
			if (f->qc == qi || f->ok) continue;
			tb_puts(&said, s->files[q->files[k]].text);
			errors += s->files[q->files[k]].errors;
			failed = true;
		}
		os_stat st;
		bool there = q->output && os_stat_path(q->output, &st);
		have_done(!said.failed && report_add(&r, q->path, there ? q->output : NULL, failed ? REPORT_FAILED : REPORT_CONVERTED,
		                                     failed ? "failed" : "converted", said.text, warnings, errors));
		free(said.text);
		if (rows++ == 0) tb_shell_arg(&title, q->path);
	}
	char more[64] = "";
	if (rows > 1) snprintf(more, sizeof(more), " and %zu more QC%s", rows - 1, rows > 2 ? "s" : "");
	tb_puts(&title, more);
	have_done(!title.failed);
	r.title = title.text;
	bool ok = report_write(&r, o->report, o->jobs, o->force || o->update, "smdmx");
	if (ok && o->verbose) say("smdmx", "note", "report of %zu QC%s: %s", rows, rows == 1 ? "" : "s", o->report);
	free(title.text);
	return ok;
}

/* --depfile: every output of the run, then every file read. */
static int write_qc_depfile(const conv_opts *o, const smdmx_project_run *run)
{
	text_buf t = { 0 };
	bool first = true;
	for (size_t i = 0; i < run->file_count; i++)
		for (size_t k = 0; k < run->files[i].written_count; k++) {
			if (!first) tb_putc(&t, ' ');
			tb_dep_path(&t, run->files[i].written[k]);
			first = false;
		}
	for (size_t k = 0; k < run->qc_written_count + run->qc_kept_count; k++) {
		if (!first) tb_putc(&t, ' ');
		tb_dep_path(&t, k < run->qc_written_count ? run->qc_written[k] : run->qc_kept[k - run->qc_written_count]);
		first = false;
	}
	tb_putc(&t, ':');
	for (size_t i = 0; i < run->input_count; i++) {
		tb_putc(&t, ' ');
		tb_dep_path(&t, run->inputs[i]);
	}
	tb_putc(&t, '\n');
	char why[1024];
	if (!depfile_write(o->depfile, &t, why, sizeof(why))) {
		say("smdmx", "error", "cannot write the depfile '%s': %s", o->depfile, why);
		free(t.text);
		return EXIT_FAILED;
	}
	free(t.text);
	return EXIT_OK;
}

int cmd_qc(int argc, char **argv)
{
	conv_opts o;
	memset(&o, 0, sizeof(o));
	o.tool = TOOL_SMDMX;
	o.name = "smdmx";
	o.max_warnings = 20;
	qc_command c;
	memset(&c, 0, sizeof(c));
	int rc = qc_options(argc, argv, &o, &c);
	if (rc >= 0) {
		free(c.args);
		return rc;
	}
	rc = EXIT_OK;
	char **qcs = NULL, **dirs = NULL;
	size_t qc_count = 0, dir_count = 0;
	if (rc == EXIT_OK) rc = collect_qcs(&o, c.args, c.arg_count, &qcs, &qc_count, &dirs, &dir_count);
	free(c.args);
	smdmx_project_run *run = NULL;
	if (rc == EXIT_OK) {
		smdmx_project_options po;
		memset(&po, 0, sizeof(po));
		po.to_smd = !strcasecmp(c.to, "smd");
		po.outdir = o.outdir;
		po.rig_in_dmx = !strcmp(c.rig, "dmx");
		po.force = o.force;
		po.update = o.update;
		/* -k: every file and project, QC lines that cannot be read kept as written, a file that
		 * fails copied unchanged */
		po.keep_going = po.lenient_qc = po.copy_failed = o.keep_going;
		po.warnings_fail = o.werror;
		po.jobs = o.jobs;
		po.threads = o.threads;
		po.smd_read = o.ropts;
		po.dmx_read = o.xopts;
		po.smd_write = o.wopts;
		po.model = o.mopts;
		po.dmx_write = o.dopts;
		output_init();
		smdmx_error err;
		run = smdmx_projects_convert((const char *const *)qcs, qc_count, (const char *const *)dirs, dir_count, &po, &err);
		if (!run) {
			say("smdmx", "error", "%s", err.message);
			rc = EXIT_FAILED;
		}
	}
	if (run) {
		said_run s = { have(calloc(run->qc_count + 1, sizeof(diag_buf))), have(calloc(run->file_count + 1, sizeof(diag_buf))) };
		for (size_t i = 0; i < run->qc_count; i++) diag_take(&s.qcs[i], &o, run->qcs[i].messages, run->qcs[i].message_count);
		for (size_t i = 0; i < run->file_count; i++) diag_take(&s.files[i], &o, run->files[i].messages, run->files[i].message_count);
		/* the QCs that could not be read, then what the run said of itself, then the rest */
		for (size_t i = 0; i < run->qc_count; i++)
			if (!run->qcs[i].qc) os_puts(s.qcs[i].text ? s.qcs[i].text : "", stderr);
		for (size_t i = 0; i < run->message_count; i++) {
			const smdmx_message *m = &run->messages[i];
			if (!m->path) {
				say("smdmx", m->kind == SMDMX_MESSAGE_ERROR ? "error" : m->kind == SMDMX_MESSAGE_WARNING ? "warning" : "note", "%s",
				    m->text);
				continue;
			}
			diag_buf d = { 0 };
			diag_take(&d, &o, m, 1);
			os_puts(d.text ? d.text : "", stderr);
			diag_free(&d);
		}
		rc = run->status == SMDMX_ERROR_USAGE ? EXIT_USAGE : run->ok ? EXIT_OK : EXIT_FAILED;
		/* memory ran out once files were in place: those stay, the rest of the run not done */
		if (run->out_of_memory) say("smdmx", "error", "out of memory: the run stopped; the files written stay");
		if (run->messages_lost)
			say("smdmx", "error", "%zu message%s not shown: memory could not hold %s", run->messages_lost,
			    run->messages_lost == 1 ? "" : "s", run->messages_lost == 1 ? "it" : "them");
		report(&o, run, &s, rc);
		if (o.depfile && rc == EXIT_OK) rc = write_qc_depfile(&o, run);
		/* a usage error converted nothing: no page of rows that would say they were */
		if (o.report && rc != EXIT_USAGE && run->qc_count > run->qcs_not_read && !qc_report(&o, run, &s))
			rc = EXIT_FAILED;
		said_run_free(&s, run);
		smdmx_project_run_free(run);
	}
	for (size_t i = 0; i < qc_count; i++) free(qcs[i]);
	free(qcs);
	for (size_t i = 0; i < dir_count; i++) free(dirs[i]);
	free(dirs);
	return rc;
}

/* ---- smdmx info and check of a QC ------------------------------------------------------------ */

static const char *const ref_kinds[] = { "model", "collision", "animation", "flex", "other" };

static void json_str(const char *s)
{
	os_puts("\"", stdout);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') os_printf(stdout, "\\%c", c);
		else if (c < 32) os_printf(stdout, "\\u%04x", c);
		else os_write_text(stdout, (const char *)&c, 1);
	}
	os_puts("\"", stdout);
}

int qc_info(const char *path, bool json)
{
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_qc *qc = smdmx_qc_read_file(path, NULL, &err, &w);
	diag_buf d = { 0 };
	diag_warnings(&d, NULL, path, &w);
	if (!qc) diag_error(&d, path, &err);
	os_puts(d.text ? d.text : "", stderr);
	diag_free(&d);
	if (!qc) return EXIT_FAILED;
	size_t missing = 0;
	for (size_t i = 0; i < qc->ref_count; i++) missing += !qc->refs[i].found;
	if (json) {
		os_printf(stdout, "{\"file\": ");
		json_str(path);
		os_printf(stdout, ", \"kind\": \"qc\", \"files\": [");
		for (size_t i = 0; i < qc->file_count; i++) {
			os_printf(stdout, "%s", i ? ", " : "");
			json_str(qc->files[i].path);
		}
		os_printf(stdout, "], \"up_axis\": ");
		if (qc->up_axis) os_printf(stdout, "\"%c\"", qc->up_axis);
		else os_printf(stdout, "null");
		os_printf(stdout, ", \"scale\": %g, \"references\": [", qc->scale);
		for (size_t i = 0; i < qc->ref_count; i++) {
			const smdmx_qc_ref *r = &qc->refs[i];
			os_printf(stdout, "%s{\"kind\": \"%s\", \"command\": ", i ? ", " : "", ref_kinds[r->kind]);
			json_str(r->command);
			os_printf(stdout, ", \"name\": ");
			json_str(r->name);
			os_printf(stdout, ", \"path\": ");
			json_str(r->path);
			os_printf(stdout, ", \"found\": %s, \"line\": %u}", r->found ? "true" : "false", r->pos.line);
		}
		os_printf(stdout, "], \"models\": [");
		for (size_t i = 0; i < qc->model_count; i++) {
			const smdmx_qc_model *m = &qc->models[i];
			os_printf(stdout, "%s{\"name\": ", i ? ", " : "");
			json_str(m->name);
			os_printf(stdout, ", \"file\": ");
			json_str(qc->refs[m->ref].path);
			os_printf(stdout, ", \"flexes\": %zu, \"controllers\": %zu, \"rules\": %zu, \"noautodmxrules\": %s}", m->flex_count,
			       m->controller_count, m->rule_count, m->noautodmxrules ? "true" : "false");
		}
		os_printf(stdout, "], \"attachments\": %zu, \"missing\": %zu}\n", qc->attachment_count, missing);
	} else {
		os_printf(stdout, "%s: QC, %zu file%s read", path, qc->file_count, qc->file_count == 1 ? "" : "s");
		if (qc->up_axis) os_printf(stdout, ", $upaxis %c", qc->up_axis);
		if (qc->scale != 1) os_printf(stdout, ", $scale %g", qc->scale);
		os_printf(stdout, "\n");
		for (size_t i = 1; i < qc->file_count; i++) os_printf(stdout, "  includes %s\n", qc->files[i].path);
		for (size_t i = 0; i < qc->model_count; i++) {
			const smdmx_qc_model *m = &qc->models[i];
			os_printf(stdout, "  $model '%s': %s, %zu flex lines, %zu controllers, %zu rules%s\n", m->name, qc->refs[m->ref].path,
			       m->flex_count, m->controller_count, m->rule_count, m->noautodmxrules ? ", noautodmxrules" : "");
		}
		os_printf(stdout, "  references %zu (%zu missing), attachments %zu\n", qc->ref_count, missing, qc->attachment_count);
		for (size_t i = 0; i < qc->ref_count; i++) {
			const smdmx_qc_ref *r = &qc->refs[i];
			os_printf(stdout, "    %-9s %-16s %s%s%s\n", ref_kinds[r->kind], r->command, r->path, r->found ? "" : "  (missing)",
			       r->nocase ? "  (case differs)" : "");
		}
	}
	smdmx_qc_free(qc);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

typedef struct qc_findings {
	diag_buf *d;
	const char *path;
} qc_findings;

/* A finding of smdmx_qc_check, at its place. */
static void qc_finding(void *user, const smdmx_finding *f)
{
	const qc_findings *q = user;
	diag_add(q->d, NULL, f->file ? f->file : q->path, f->line, f->column, f->error ? "error" : "warning", "%s", f->message);
}

int qc_check(const char *path)
{
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_qc *qc = smdmx_qc_read_file(path, NULL, &err, &w);
	diag_buf d = { 0 };
	qc_findings q = { &d, path };
	diag_warnings(&d, NULL, path, &w);
	if (!qc) diag_error(&d, path, &err);
	else smdmx_qc_check(qc, NULL, qc_finding, &q);
	os_puts(d.text ? d.text : "", stderr);
	size_t errors = d.errors;
	diag_free(&d);
	smdmx_qc_free(qc);
	return errors ? EXIT_FAILED : EXIT_OK;
}
