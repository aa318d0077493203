/* Files and folders dropped on a program in Explorer (Windows starts it with their paths and
 * a console of its own): each file converts beside itself, into the other format, and says
 * what it wrote; a folder converts the files below it the same way. smdmx takes SMD-family
 * files to DMX and DMX to SMD, and a QC's whole project into a folder beside the QC's; the
 * converters do what they always do. A VTA dropped goes with the SMD of its name beside it,
 * as the pair the command line takes ("hero.smd hero.vta"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

const char *dropped_help(void)
{
	switch (TOOL) {
	case TOOL_SMD2DMX:
		return "Drop SMD files (a VTA goes with the SMD of its name beside it), or folders of them, on\n"
		       "smd2dmx to convert them to DMX beside themselves.";
	case TOOL_DMX2SMD:
		return "Drop DMX files, or folders of them, on dmx2smd to convert them to SMD (and VTA) beside\n"
		       "themselves.";
	default:
		return "Drop SMD files (a VTA goes with the SMD of its name beside it), DMX files, or folders of\n"
		       "them, on smdmx to convert them beside themselves, SMD to DMX and DMX to SMD; drop a QC to\n"
		       "convert its whole project into a folder beside the QC's (C:\\Mods\\hero\\hero.qc into\n"
		       "C:\\Mods\\hero_dmx), or a folder of QCs to convert every project in it into a folder\n"
		       "beside it (C:\\Mods\\heroes into C:\\Mods\\heroes_dmx).";
	}
}

bool all_paths(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		os_stat st;
		if (argv[i][0] == '-' || !os_stat_path(argv[i], &st) || (st.kind != OS_REGULAR && st.kind != OS_DIRECTORY)) return false;
	}
	return argc > 1;
}

typedef struct path_list {
	char **items;
	int count, cap;
} path_list;

static void list_push(path_list *l, char *p)
{
	if (l->count == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->items = have(realloc(l->items, (size_t)l->cap * sizeof(char *)));
	}
	l->items[l->count++] = p;
}

static bool has_extension(const char *path, const char *ext)
{
	return !strcasecmp(os_path_extension(path), ext);
}

/* The SMD of a VTA's name beside it (STEM.smd, or STEM.SMD), or NULL. Malloc'd. */
static char *smd_beside(const char *vta)
{
	static const char *const exts[] = { "smd", "SMD", "Smd" };
	for (size_t k = 0; k < sizeof(exts) / sizeof(exts[0]); k++) {
		char *smd = path_with_extension(vta, exts[k]);
		os_stat st;
		if (os_stat_path(smd, &st) && st.kind == OS_REGULAR) return smd;
		free(smd);
	}
	return NULL;
}

/* Whether a dropped VTA takes the SMD at path with it (so the SMD is not taken alone). */
static bool taken_by_a_vta(int argc, char **argv, const char *path)
{
	for (int i = 1; i < argc; i++) {
		if (!has_extension(argv[i], "vta")) continue;
		char *smd = smd_beside(argv[i]);
		bool same = smd && os_same_file(smd, path);
		free(smd);
		if (same) return true;
	}
	return false;
}

/* The folder a dropped QC's project is written to: beside the QC's folder, named after it
 * with "_dmx" or "_smd" (C:\Mods\hero\hero.qc to C:\Mods\hero_dmx). Malloc'd. */
static char *project_out(const char *qc, const char *to)
{
	const char *slash = os_last_separator(qc);
	size_t folder = slash ? (size_t)(slash - qc) : 0;
	if (!folder) return xasprintf("%s_%s", "project", to);
	return xasprintf("%.*s_%s", (int)folder, qc, to);
}

/* What a dropped QC's models become: SMD when every model file it names is a DMX, else DMX. */
static const char *project_to(const char *qc)
{
	smdmx_qc_read_options ro = { .keep_going = true };
	smdmx_error e;
	smdmx_qc *q = smdmx_qc_read_file(qc, &ro, &e, NULL);
	bool smd = false;
	for (size_t i = 0; q && i < q->ref_count; i++) {
		smdmx_qc_ref_kind k = q->refs[i].kind;
		if (k == SMDMX_QC_REF_OTHER) continue;
		smd = smd || !has_extension(q->refs[i].path ? q->refs[i].path : q->refs[i].name, "dmx");
	}
	bool any = q && q->ref_count;
	smdmx_qc_free(q);
	return !any || smd ? "dmx" : "smd";
}

/* A dropped QC's project converted (smdmx qc), -v -k as a drop converts. */
static int convert_project(const char *qc)
{
	const char *to = project_to(qc);
	char *out = project_out(qc, to);
	char *args[] = { (char *)qc, (char *)"--to", (char *)to, (char *)"-d", out, (char *)"-v", (char *)"-k", NULL };
	int rc = cmd_qc(7, args);
	free(out);
	return rc;
}

/* Whether a folder holds a QC (below it too). */
static bool holds_qc(const char *dir)
{
	char **paths = NULL;
	size_t n = 0;
	smdmx_error e;
	smdmx_project_files(dir, NULL, &paths, &n, &e);
	if (!paths && e.code == SMDMX_ERROR_OUT_OF_MEMORY) have(NULL);
	smdmx_project_files_free(paths);
	return n > 0;
}

static int by_file_id(const void *a, const void *b)
{
	const os_file_id *x = a, *y = b;
	if (x->device != y->device) return x->device < y->device ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

/* A dropped folder that holds QCs: a library of projects (smdmx qc -r), into a folder beside
 * it named after it (C:\Mods\heroes into C:\Mods\heroes_dmx), in SMD when every model file
 * its QCs name is a DMX, else DMX; -v -k as a drop converts. The model files no QC names are
 * not converted: said, with their count (each QC read once, the files compared by identity). */
static int convert_library(const char *dir)
{
	char **qcs = NULL, **models = NULL;
	size_t nq = 0, nm = 0, loose = 0, ni = 0;
	smdmx_error e;
	smdmx_project_files(dir, NULL, &qcs, &nq, &e);
	if (!qcs && e.code == SMDMX_ERROR_OUT_OF_MEMORY) have(NULL);
	bool smd = nq > 0;
	os_file_id *named = NULL;
	size_t cap = 0;
	for (size_t q = 0; q < nq; q++) {
		smdmx_qc_read_options ro = { .keep_going = true };
		smdmx_qc *qc = smdmx_qc_read_file(qcs[q], &ro, &e, NULL);
		bool any = false, all_dmx = true;
		for (size_t r = 0; qc && r < qc->ref_count; r++) {
			const smdmx_qc_ref *ref = &qc->refs[r];
			if (ref->kind != SMDMX_QC_REF_OTHER) {
				any = true;
				all_dmx = all_dmx && has_extension(ref->path ? ref->path : ref->name, "dmx");
			}
			if (!ref->found) continue;
			if (ni == cap) named = have(realloc(named, (cap = cap ? 2 * cap : 64) * sizeof(*named)));
			if (os_file_id_of(ref->path, &named[ni])) ni++;
		}
		smd = smd && qc && any && all_dmx; /* as project_to decides for one QC */
		smdmx_qc_free(qc);
	}
	smdmx_project_files_free(qcs);
	const char *to = smd ? "smd" : "dmx";
	size_t n = strlen(dir);
	while (n > 1 && os_is_separator(dir[n - 1])) n--;
	char *out = xasprintf("%.*s_%s", (int)n, dir, to);
	char *args[] = { (char *)"-r", (char *)dir, (char *)"--to", (char *)to, (char *)"-d", out, (char *)"-v", (char *)"-k", NULL };
	os_printf(stderr, "%s: note: '%s' holds QC files: its projects convert into '%s', as smdmx qc -r converts them\n", NAME,
	          dir, out);
	int rc = cmd_qc(8, args);
	/* the model files below it that no QC names */
	if (named) qsort(named, ni, sizeof(*named), by_file_id);
	if (files_below(TOOL, NAME, dir, &models, &nm)) {
		for (size_t m = 0; m < nm; m++) {
			os_file_id id;
			loose += !os_file_id_of(models[m], &id) || !named || !bsearch(&id, named, ni, sizeof(*named), by_file_id);
		}
	}
	smdmx_batch_files_free(models);
	free(named);
	if (loose == 1)
		os_printf(stderr, "%s: note: 1 model file in '%s' is named by no QC and was not converted: drop it on %s by itself "
		          "to convert it\n", NAME, dir, NAME);
	else if (loose)
		os_printf(stderr, "%s: note: %zu model files in '%s' are named by no QC and were not converted: drop them on %s by "
		          "themselves to convert them\n", NAME, loose, dir, NAME);
	free(out);
	return rc;
}

/* The files below the dropped folders, and the dropped files, onto the two lists (0: to DMX,
 * or all for the converters; 1: DMX to SMD on smdmx), the QCs onto qcs and the folders that
 * hold QCs (smdmx) onto libs; false when a folder cannot be read (said). *failed: a VTA with
 * no SMD beside it (said). */
static bool gather(int argc, char **argv, path_list lists[2], path_list *qcs, path_list *libs, path_list *found, bool *failed)
{
	for (int i = 1; i < argc; i++) {
		os_stat st;
		bool dir = os_stat_path(argv[i], &st) && st.kind == OS_DIRECTORY;
		if (dir && TOOL == TOOL_SMDMX && holds_qc(argv[i])) {
			list_push(libs, argv[i]);
		} else if (dir) {
			char **paths;
			size_t n;
			if (!files_below(TOOL, NAME, argv[i], &paths, &n)) {
				smdmx_batch_files_free(paths);
				return false;
			}
			if (!n) os_printf(stderr, "%s: note: '%s' holds no file %s converts\n", NAME, argv[i], NAME);
			for (size_t q = 0; q < n; q++) {
				char *p = xstrdup(paths[q]); /* the program's own: the list is the library's */
				list_push(found, p);
				list_push(&lists[TOOL == TOOL_SMDMX && has_extension(p, "dmx") ? 1 : 0], p);
			}
			smdmx_batch_files_free(paths);
		} else if (TOOL == TOOL_SMDMX && has_extension(argv[i], "qc")) {
			list_push(qcs, argv[i]);
		} else if (has_extension(argv[i], "vta") && TOOL != TOOL_DMX2SMD) {
			char *smd = smd_beside(argv[i]);
			if (!smd) {
				os_printf(stderr, "%s: error: a VTA holds a model's shapes, and there is no SMD of its name beside it: put it "
				        "beside its reference SMD and drop it again\n", argv[i]);
				*failed = true;
				continue;
			}
			list_push(found, smd);
			list_push(&lists[0], smd);
			list_push(&lists[0], argv[i]); /* the pair: the VTA after its SMD */
		} else if (!(has_extension(argv[i], "smd") && taken_by_a_vta(argc, argv, argv[i]))) {
			list_push(&lists[TOOL == TOOL_SMDMX && has_extension(argv[i], "dmx") ? 1 : 0], argv[i]);
		}
	}
	return true;
}

int run_dropped(int argc, char **argv, int (*convert)(int argc, char **argv))
{
	outputs_in_explorer_terms();
	path_list lists[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } }, qcs = { NULL, 0, 0 }, libs = { NULL, 0, 0 }, found = { NULL, 0, 0 };
	bool failed = false, read = gather(argc, argv, lists, &qcs, &libs, &found, &failed);
	int rc = read ? EXIT_OK : EXIT_FAILED;
	/* pass 0: to DMX (or all, for the converters); pass 1: DMX to SMD (smdmx); then the QCs */
	for (int pass = 0; read && pass < 2; pass++) {
		path_list *l = &lists[pass];
		if (!l->count) continue;
		if (TOOL == TOOL_SMDMX) {
			list_push(l, (char *)"--to");
			list_push(l, (char *)(pass ? "smd" : "dmx"));
		}
		list_push(l, (char *)"-v");
		list_push(l, (char *)"-k"); /* one file that fails stops none of the others */
		int r = convert(l->count, l->items);
		if (r > rc) rc = r;
	}
	for (int i = 0; read && i < qcs.count; i++) {
		int r = convert_project(qcs.items[i]);
		if (r > rc) rc = r;
	}
	for (int i = 0; read && i < libs.count; i++) {
		int r = convert_library(libs.items[i]);
		if (r > rc) rc = r;
	}
	if (failed && rc == EXIT_OK) rc = EXIT_FAILED;
	for (int i = 0; i < found.count; i++) free(found.items[i]);
	free(found.items);
	free(lists[0].items);
	free(lists[1].items);
	free(qcs.items);
	free(libs.items);
	return rc;
}
