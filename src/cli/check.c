/* smdmx check: lints a model for a target engine (the engine table): limits of bones and
 * weight links, names the target, studiomdl or QC files cannot hold, degenerate and duplicate
 * triangles, frames; each finding at its place in the file (line and column where it has
 * them). A QC is checked in qcproj.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* ---- smdmx check ------------------------------------------------------------------------- */

typedef struct lint {
	const char *path;
	size_t errors, warnings;
	smdmx_dm_places *places; /* a DMX's: where its elements are */
} lint;

/* A finding's place: ":line:col" after the path, or an element's way before the message. */
typedef struct place {
	char loc[32];
	char elem[300];
} place;

static place at_line(uint32_t line)
{
	place p = { "", "" };
	if (line) snprintf(p.loc, sizeof(p.loc), ":%u:1", line);
	return p;
}

/* An element's place: its line in keyvalues2, its way from the root in binary. */
static place at_element(lint *t, uint32_t e)
{
	place p = { "", "" };
	if (!t->places) return p;
	uint32_t line, column;
	char way[280];
	smdmx_dm_place(t->places, e, &line, &column, way, sizeof(way));
	if (line) snprintf(p.loc, sizeof(p.loc), ":%u:%u", line, column);
	else if (way[0]) snprintf(p.elem, sizeof(p.elem), "%s: ", way);
	return p;
}

static void lint_at(lint *t, bool error, place p, const char *fmt, ...) __attribute__((format(OS_PRINTF, 4, 5)));
static void lint_at(lint *t, bool error, place p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	os_printf(stderr, "%s%s: %s: %s%s\n", t->path, p.loc, error ? "error" : "warning", p.elem, msg);
	if (error) t->errors++;
	else t->warnings++;
}

/* A finding about the whole file: at its start. */
#define lint_say(t, error, ...) lint_at(t, error, at_line(1), __VA_ARGS__)

/* A finding of smdmx_check_model, at its place in the file. */
static void say_finding(void *user, const smdmx_finding *f)
{
	lint *t = user;
	lint_at(t, f->error, f->element != SMDMX_NONE ? at_element(t, f->element) : at_line(f->line), "%s", f->message);
}


typedef struct check_args {
	const char *path, *target;
} check_args;

static int check_option(void *ctx, const cli_option *opt, const char *value, double number)
{
	(void)number;
	if (opt->id == OP_TARGET) ((check_args *)ctx)->target = value;
	else if (opt->id == OP_NAME) stdin_name = value;
	return -1;
}

static int check_input(void *ctx, const char *arg)
{
	return one_input(&((check_args *)ctx)->path, CMD_CHECK, arg);
}

int cmd_check(int argc, char **argv)
{
	check_args args = { NULL, "sdk2013" };
	opt_reader r = { CMD_CHECK, argc, argv, check_option, check_input, &args };
	int rc = opt_read(&r);
	if (rc >= 0) return rc;
	const char *path = args.path;
	const smdmx_engine_target *et = engine_target_find(args.target, true);
	if (!et) return usage_of(CMD_CHECK, "unknown --target '%s' (%s)", args.target, engine_target_names(true));
	if (!path) return usage_of(CMD_CHECK, "check needs a file");
	if (!strcasecmp(os_path_extension(path), "qc") || !strcasecmp(os_path_extension(path), "qci")) return qc_check(path);
	lint t;
	memset(&t, 0, sizeof(t));
	t.path = path;
	/* Read warnings (missing frames, weight remainders...) are findings too. */
	smdmx_warnings w = { 0 };
	loaded l;
	diag_buf d = { 0 };
	bool loaded_ok = load_model(path, &l, &d, &w, 0, true);
	char *text = NULL;
	if (loaded_ok && l.dm) {
		/* keyvalues2: its text, for the lines of elements */
		const char *kv2 = NULL;
		size_t text_size = 0;
		if (l.dm->encoding && strncmp(l.dm->encoding, "binary", 6)) {
			char why[256];
			kv2 = !strcmp(path, "-") ? stdin_data(&text_size, why, sizeof(why)) : (text = os_read_whole(path, &text_size));
		}
		t.places = have(smdmx_dm_places_new(l.dm, kv2, text_size));
	}
	if (!loaded_ok) {
		smdmx_warnings_free(&w);
		os_puts(d.text ? d.text : "", stderr);
		diag_free(&d);
		return EXIT_FAILED;
	}
	for (size_t i = 0; i < w.count; i++) {
		char where[64] = "";
		if (w.data[i].line) snprintf(where, sizeof(where), ":%u:%u", w.data[i].line, w.data[i].column ? w.data[i].column : 1);
		os_printf(stderr, "%s%s: warning: %s%s\n", path, where, w.data[i].message, w.data[i].count > 1 ? " (and more like it)" : "");
		t.warnings++;
	}
	smdmx_warnings_free(&w);
	if (!l.scene) {
		lint_say(&t, true, "not a model: %s", l.not_model);
		free(text);
		smdmx_dm_places_free(t.places);
		unload_model(&l);
		return EXIT_FAILED;
	}
	smdmx_check_model(l.scene, l.dm, et, say_finding, &t);
	if (t.errors || t.warnings)
		os_printf(stderr, "%s: %zu error%s, %zu warning%s\n", path, t.errors, t.errors == 1 ? "" : "s", t.warnings,
		        t.warnings == 1 ? "" : "s");
	free(text);
	smdmx_dm_places_free(t.places);
	unload_model(&l);
	return t.errors ? EXIT_FAILED : EXIT_OK;
}
