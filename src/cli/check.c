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


int cmd_check(int argc, char **argv)
{
	const char *path = NULL, *target = "sdk2013";
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			os_printf(stdout, "%s\n", "usage: smdmx check FILE [--target T]\n"
			     "Lints a model for a target engine (goldsrc, sdk2013 (default), tf2, gmod, l4d2, portal2,\n"
			     "csgo, sfm, source2): bones over the limit, weight links above the target's limit,\n"
			     "jointCount against the weights present, unnormalised weights, degenerate and duplicate\n"
			     "triangles, names GoldSrc, studiomdl or QC files cannot hold, missing or repeated frames.\n"
			     "A QC: files it names that do not exist, rules naming unknown flexes or controllers\n"
			     "(checked against a DMX model's shapes and controls).\n"
			     "Errors and warnings go to stderr. Exit codes: 0 no error, 1 an error was found, 2 a\n"
			     "usage error.");
			return EXIT_OK;
		} else if (value_missing("check", argv[i], i + 1 == argc, (const char *const[]){ "--target", "--name", NULL })) {
			return EXIT_USAGE;
		} else if (!strcmp(argv[i], "--target")) {
			target = argv[++i];
		} else if (!strcmp(argv[i], "--name")) {
			stdin_name = argv[++i];
			if (name_refused(stdin_name)) {
				say("smdmx", "error", "%s (try 'smdmx check --help')", name_refused(stdin_name));
				return EXIT_USAGE;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			say("smdmx", "error", "unknown option '%s' (try 'smdmx check --help')", argv[i]);
			return EXIT_USAGE;
		} else if (!path) {
			path = argv[i];
		} else {
			say("smdmx", "error", "check takes one file");
			return EXIT_USAGE;
		}
	}
	const smdmx_engine_target *et = engine_target_find(target, true);
	if (!et) {
		say("smdmx", "error", "unknown --target '%s' (%s)", target, engine_target_names(true));
		return EXIT_USAGE;
	}
	if (!path) {
		say("smdmx", "error", "check needs a file (try 'smdmx check --help')");
		return EXIT_USAGE;
	}
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
