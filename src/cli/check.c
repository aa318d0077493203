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
	const loaded *l;
	/* keyvalues2: the file's text and where its lines start, for an element's line */
	const char *text;
	size_t size;
	uint32_t *line_starts;
	size_t lines;
	/* binary DMX: each element's way from the root, for an element's path */
	uint32_t *parent, *via_index;
	const char **via;
	bool walked;
} lint;

/* A finding's place: ":line:col" after the path, or an element path before the message. */
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

/* Every element's first way from the root (breadth first), for binary DMX paths. */
static void walk_paths(lint *t)
{
	const smdmx_dm *dm = t->l->dm;
	t->walked = true;
	t->parent = malloc((dm->element_count + 1) * sizeof(uint32_t));
	t->via_index = malloc((dm->element_count + 1) * sizeof(uint32_t));
	t->via = malloc((dm->element_count + 1) * sizeof(char *));
	uint32_t *queue = malloc((dm->element_count + 1) * sizeof(uint32_t));
	if (!t->parent || !t->via_index || !t->via || !queue || dm->root == SMDMX_NONE) {
		free(queue);
		return;
	}
	for (size_t e = 0; e < dm->element_count; e++) t->parent[e] = SMDMX_NONE, t->via[e] = NULL;
	size_t head = 0, tail = 0;
	queue[tail++] = dm->root;
	t->via[dm->root] = "";
	while (head < tail) {
		uint32_t e = queue[head++];
		const smdmx_dm_element *el = &dm->elements[e];
		for (size_t a = 0; a < el->attr_count; a++) {
			const smdmx_dm_attr *at = &el->attrs[a];
			if (at->type != SMDMX_DM_ELEMENT) continue;
			size_t n = at->is_array ? at->value.array.count : 1;
			for (size_t i = 0; i < n; i++) {
				uint32_t x = at->is_array ? ((const uint32_t *)at->value.array.data)[i] : at->value.element;
				if (x == SMDMX_NONE || x >= dm->element_count || t->via[x]) continue;
				t->via[x] = at->name;
				t->via_index[x] = at->is_array ? (uint32_t)i : UINT32_MAX;
				t->parent[x] = e;
				queue[tail++] = x;
			}
		}
	}
	free(queue);
}

/* An element's place: its line in keyvalues2, its path from the root in binary. */
static place at_element(lint *t, uint32_t e)
{
	place p = { "", "" };
	const smdmx_dm *dm = t->l->dm;
	if (!dm || e == SMDMX_NONE || e >= dm->element_count) return p;
	const smdmx_dm_element *el = &dm->elements[e];
	if (el->source_offset != SIZE_MAX && t->text) {
		if (!t->line_starts) {
			size_t n = 1;
			for (size_t i = 0; i < t->size; i++) n += t->text[i] == '\n';
			t->line_starts = malloc(n * sizeof(uint32_t));
			if (t->line_starts) {
				t->line_starts[0] = 0;
				t->lines = 1;
				for (size_t i = 0; i < t->size; i++)
					if (t->text[i] == '\n') t->line_starts[t->lines++] = (uint32_t)(i + 1);
			}
		}
		if (t->line_starts) {
			size_t lo = 0, hi = t->lines;
			while (hi - lo > 1) {
				size_t mid = (lo + hi) / 2;
				if (t->line_starts[mid] <= el->source_offset) lo = mid;
				else hi = mid;
			}
			snprintf(p.loc, sizeof(p.loc), ":%zu:%zu", lo + 1, el->source_offset - t->line_starts[lo] + 1);
			return p;
		}
	}
	if (!t->walked) walk_paths(t);
	if (!t->via || !t->via[e]) {
		snprintf(p.elem, sizeof(p.elem), "%s '%s' (not under the root): ", el->type, el->name);
		return p;
	}
	/* the path, built from the element up */
	char path[256] = "";
	for (uint32_t x = e; x != dm->root && x != SMDMX_NONE; x = t->parent[x]) {
		char step[128], rest[256];
		if (t->via_index[x] != UINT32_MAX) snprintf(step, sizeof(step), ".%s[%u]", t->via[x], t->via_index[x]);
		else snprintf(step, sizeof(step), ".%s", t->via[x]);
		snprintf(rest, sizeof(rest), "%s%s", step, path);
		memcpy(path, rest, sizeof(path));
	}
	snprintf(p.elem, sizeof(p.elem), "root%s (%s '%s'): ", path, el->type, el->name);
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
	fprintf(stderr, "%s%s: %s: %s%s\n", t->path, p.loc, error ? "error" : "warning", p.elem, msg);
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

/* What a lint holds besides the model. */
static void lint_free(lint *t)
{
	free(t->line_starts);
	free(t->parent);
	free(t->via_index);
	free(t->via);
}

int cmd_check(int argc, char **argv)
{
	const char *path = NULL, *target = "sdk2013";
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			puts("usage: smdmx check FILE [--target T]\n"
			     "Lints a model for a target engine (goldsrc, sdk2013 (default), tf2, gmod, l4d2, portal2,\n"
			     "csgo, sfm, source2): bones over the limit, weight links above the target's limit,\n"
			     "jointCount against the weights present, unnormalised weights, degenerate and duplicate\n"
			     "triangles, names GoldSrc, studiomdl or QC files cannot hold, missing or repeated frames.\n"
			     "A QC: files it names that do not exist, rules naming unknown flexes or controllers\n"
			     "(checked against a DMX model's shapes and controls).\n"
			     "Errors and warnings go to stderr. Exit codes: 0 no error, 1 an error was found, 2 a\n"
			     "usage error.");
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
			target = argv[++i];
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			stdin_name = argv[++i];
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
	smdmx_warnings w;
	loaded l;
	diag_buf d = { 0 };
	bool loaded_ok = load_model(path, &l, &d, &w, 0, true);
	t.l = &l;
	size_t text_size = 0;
	char *text = NULL;
	if (loaded_ok && l.dm && l.dm->encoding && strncmp(l.dm->encoding, "binary", 6)) {
		/* keyvalues2: its text, for the lines of elements */
		if (!strcmp(path, "-")) {
			char why[256];
			t.text = stdin_data(&text_size, why, sizeof(why));
		} else {
			text = os_read_whole(path, &text_size);
			t.text = text;
		}
		t.size = text_size;
	}
	if (!loaded_ok) {
		fputs(d.text ? d.text : "", stderr);
		diag_free(&d);
		return EXIT_FAILED;
	}
	for (size_t i = 0; i < w.count; i++) {
		char where[64] = "";
		if (w.data[i].line) snprintf(where, sizeof(where), ":%u:%u", w.data[i].line, w.data[i].column ? w.data[i].column : 1);
		fprintf(stderr, "%s%s: warning: %s%s\n", path, where, w.data[i].message, w.data[i].count > 1 ? " (and more like it)" : "");
		t.warnings++;
	}
	if (!l.scene) {
		lint_say(&t, true, "not a model: %s", l.lift_error);
		free(text);
		lint_free(&t);
		unload_model(&l);
		return EXIT_FAILED;
	}
	smdmx_check_model(l.scene, l.dm, et, say_finding, &t);
	if (t.errors || t.warnings)
		fprintf(stderr, "%s: %zu error%s, %zu warning%s\n", path, t.errors, t.errors == 1 ? "" : "s", t.warnings,
		        t.warnings == 1 ? "" : "s");
	free(text);
	lint_free(&t);
	unload_model(&l);
	return t.errors ? EXIT_FAILED : EXIT_OK;
}
