/* Batch reports in the programs' words: the rows' messages as the programs print them, the
 * page written all or nothing, smdmx report's options. The rows are read, drawn, compared
 * and made a page by report/ (report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* What reading said, as the programs print it (every warning shown). */
static void said_format(text_buf *out, const smdmx_message *m, size_t n)
{
	diag_buf d = { 0 };
	diag_take(&d, NULL, m, n);
	tb_puts(out, d.text);
	diag_free(&d);
}

smdmx_scene *cli_picture_scene(const picture_input *in, diag_buf *d, const conv_opts *shown, bool *posed)
{
	picture_input i = *in;
	if (!strcmp(in->path, "-") || (in->vta && !strcmp(in->vta, "-"))) {
		char why[256];
		i.name = stdin_name;
		if (!(i.data = stdin_data(&i.size, why, sizeof(why)))) {
			diag_add(d, NULL, "-", 0, 0, "error", "%s", why);
			return NULL;
		}
	}
	said_list said = { 0 };
	smdmx_scene *s = picture_scene(&i, &said, posed);
	have_done(!said.failed);
	diag_take(d, shown, said.m, said.count);
	said_free(&said);
	return s;
}

/* Whether the page at path may be written, said when not: a page that is there and is not to
 * be replaced is refused before the trees are walked or a row is drawn, not after (a report
 * of 40,000 files was told so 44 s later). Every file of the page, its pictures' among them,
 * is checked again as it is written. */
static bool page_allowed(const char *path, bool force, const char *name)
{
	char why[1024];
	if (output_allowed(path, NULL, 0, force, why, sizeof(why))) return true;
	say(name, "error", "the report was not written: %s", why);
	return false;
}

bool report_write(report_page *r, const char *path, unsigned workers, bool force, const char *name)
{
	char why[1024] = "out of memory";
	if (!page_allowed(path, force, name)) {
		report_free(r);
		return false;
	}
	if (!r->format) r->format = said_format;
	bool ok = report_make(r, workers);
	report_files files = { 0 };
	ok = ok && report_page_files(r, path, &files);
	ok = ok && write_files_whole(files.files, files.count, files.read, files.read_count, force, why, sizeof(why));
	report_free(r);
	report_files_free(&files);
	if (!ok) say(name, "error", "the report was not written: %s", why);
	return ok;
}

/* ---- smdmx report A_DIR B_DIR -------------------------------------------------------------- */

/* What smdmx report was told. */
typedef struct report_args {
	const char *dirs[2], *out;
	size_t nd;
	unsigned jobs;
	bool force, quiet;
} report_args;

static int report_option(void *ctx, const cli_option *opt, const char *value, double number)
{
	report_args *a = ctx;
	if (opt->id == OP_OUT) a->out = value;
	else if (opt->id == OP_JOBS) a->jobs = (unsigned)number;
	else if (opt->id == OP_FORCE) a->force = true;
	else if (opt->id == OP_QUIET) a->quiet = true;
	return -1;
}

static int report_input(void *ctx, const char *arg)
{
	report_args *a = ctx;
	if (a->nd == 2) return usage_of(CMD_REPORT, "report compares two folders");
	a->dirs[a->nd++] = arg;
	return -1;
}

int cmd_report(int argc, char **argv)
{
	report_args args = { { NULL, NULL }, NULL, 0, 0, false, false };
	opt_reader reader = { CMD_REPORT, argc, argv, report_option, report_input, &args };
	int read = opt_read(&reader);
	if (read >= 0) return read;
	if (args.nd != 2 || !args.out) return usage_of(CMD_REPORT, "report needs two folders and -o FILE.html");
	const char **dirs = args.dirs, *out = args.out;
	unsigned jobs = args.jobs;
	bool force = args.force, quiet = args.quiet;
	if (!page_allowed(out, force, "smdmx")) return EXIT_FAILED;
	smdmx_error err;
	smdmx_tree_pairs *pairs = smdmx_batch_pair_trees(dirs[0], dirs[1], NULL, &err);
	if (!pairs && err.code == SMDMX_ERROR_OUT_OF_MEMORY) have(NULL);
	if (!pairs) say("smdmx", "error", "%s", err.message);
	bool ok = pairs != NULL;
	report_page r = { .format = said_format };
	text_buf tb = { 0 };
	tb_puts(&tb, "smdmx report ");
	tb_shell_arg(&tb, dirs[0]);
	tb_putc(&tb, ' ');
	tb_shell_arg(&tb, dirs[1]);
	have_done(!tb.failed);
	char *title = tb.text;
	r.title = title;
	for (size_t i = 0; ok && i < pairs->count; i++) {
		const smdmx_tree_pair *p = &pairs->pairs[i];
		char *why = NULL;
		bool copied = p->path[0] && p->path[1] && !strcasecmp(os_path_extension(p->path[0]), os_path_extension(p->path[1])) &&
		              smdmx_file_same_bytes(p->path[0], p->path[1], NULL, 0);
		if (!p->path[0] || !p->path[1])
			why = xasprintf("%s: note: only in %s: %s has no model file at its place (its path below %s, in any model "
			                "format)\n", p->path[0] ? p->path[0] : p->path[1], p->path[0] ? "A" : "B", p->path[0] ? "B" : "A",
			                p->path[0] ? dirs[1] : dirs[0]);
		else if (copied)
			why = xasprintf("%s: note: copied: B holds the same bytes, as smdmx qc copies a file it does not convert (one in "
			                "the format already, or one that failed with -k)\n", p->path[1]);
		have_done(report_add(&r, p->path[0], p->path[1], REPORT_NOT_RUN,
		                                   copied ? "copied" : p->path[0] && p->path[1] ? "paired" : p->path[0] ? "only in A" : "only in B", why,
		                                   0, 0));
		free(why);
		for (int k = 0; k < 2; k++)
			if (p->vta[k]) have_done(report_vta(&r, k, p->vta[k]));
	}
	size_t rows = r.count;
	if (ok) ok = report_write(&r, out, jobs, force, "smdmx");
	else report_free(&r);
	if (ok && !quiet) os_printf(stdout, "%s: %zu rows\n", out, rows);
	smdmx_tree_pairs_free(pairs);
	free(title);
	return ok ? EXIT_OK : EXIT_FAILED;
}
