/* The files below a folder that a program or smdmx qc takes (smdmx_batch_files,
 * smdmx_project_files, and a batch's inputs with recursive), in byte order of the names, so
 * that a run's order never depends on the file system. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"
#include "smdmx/batch.h"
#include "support/internal.h"

static bool smd_family(const char *ext)
{
	return !strcasecmp(ext, "smd") || !strcasecmp(ext, "sma") || !strcasecmp(ext, "phys") || !strcasecmp(ext, "vta");
}

walk_kind pj_walk_kind_of(smdmx_batch_program program)
{
	return program == SMDMX_BATCH_SMD2DMX ? WALK_SMD : program == SMDMX_BATCH_DMX2SMD ? WALK_DMX : WALK_ANY;
}

bool pj_wanted(walk_kind kind, const char *ext)
{
	switch (kind) {
	case WALK_SMD: return smd_family(ext);
	case WALK_DMX: return !strcasecmp(ext, "dmx");
	case WALK_QC: return !strcasecmp(ext, "qc");
	default: return smd_family(ext) || !strcasecmp(ext, "dmx");
	}
}

void pj_found_push(pj_found_list *l, char *path, char *rel)
{
	if (path && rel && l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		pj_found *f = pj_realloc(l->mem, l->items, cap * sizeof(*f));
		if (f) {
			l->items = f;
			l->cap = cap;
		}
	}
	if (!path || !rel || l->count == l->cap) {
		pj_free(l->mem, path);
		pj_free(l->mem, rel);
		return;
	}
	l->items[l->count++] = (pj_found){ path, rel };
}

void pj_found_free(pj_found_list *l)
{
	for (size_t i = 0; i < l->count; i++) {
		pj_free(l->mem, l->items[i].path);
		pj_free(l->mem, l->items[i].rel);
	}
	pj_free(l->mem, l->items);
	const sm_alloc *m = l->mem;
	memset(l, 0, sizeof(*l));
	l->mem = m;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **pj_dir_names(const sm_alloc *m, os_dir *d, size_t *count)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	const char *e;
	while ((e = os_dir_next(d))) {
		if (e[0] == '.') continue; /* hidden files and smdmx's temporary files */
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **t = pj_realloc(m, names, cap * sizeof(*t));
			if (!t) break;
			names = t;
		}
		if ((names[n] = pj_strdup(m, e))) n++;
	}
	os_dir_close(d);
	if (n) qsort(names, n, sizeof(*names), by_name); /* an empty folder has no names (NULL) */
	*count = n;
	return names;
}

bool pj_walk(walk_kind kind, const char *dir, const char *rel, pj_found_list *out, unsigned depth,
                 pj_msgs *said, smdmx_error *error)
{
	char why[1200];
	const sm_alloc *m = out->mem;
	os_mem om = pj_os_mem(m);
	os_dir *d = depth > 256 ? NULL : os_dir_open_in(&om, dir);
	if (!d) {
		if (depth > 256) snprintf(why, sizeof(why), "'%s': directories nested too deep", dir);
		else snprintf(why, sizeof(why), "cannot read the directory '%s': %s", dir, os_error_text(errno));
		if (said) pj_error(said, depth > 256 ? SMDMX_ERROR_LIMIT : SMDMX_ERROR_IO, NULL, 0, 0, "%s", why);
		if (error && !error->code) sm_fail(error, SMDMX_ERROR_IO, 0, 0, "%s", why);
		return false;
	}
	size_t n;
	char **names = pj_dir_names(m, d, &n);
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		char *path = pj_path_join(m, dir, names[i]);
		char *r = *rel ? pj_asprintf(m, "%s/%s", rel, names[i]) : pj_strdup(m, names[i]);
		os_stat st;
		if (path && r && os_lstat_path(path, &st) && st.kind == OS_DIRECTORY && !st.link) {
			ok = pj_walk(kind, path, r, out, depth + 1, said, error) && ok;
			pj_free(m, path);
			pj_free(m, r);
		} else if (path && r && os_stat_path(path, &st) && st.kind == OS_REGULAR && pj_wanted(kind, os_path_extension(names[i]))) {
			pj_found_push(out, path, r);
		} else {
			pj_free(m, path);
			pj_free(m, r);
		}
		pj_free(m, names[i]);
	}
	pj_free(m, names);
	return ok;
}

char *pj_folder_of(const sm_alloc *m, const char *a)
{
	size_t len = strlen(a);
	while (len > 1 && os_is_separator(a[len - 1])) len--;
	char *d = pj_asprintf(m, "%.*s", (int)len, a);
	if (d && os_path_separator_of(d) != os_path_separator_of(a)) {
		char *kept = pj_asprintf(m, "%s%c", d, os_path_separator_of(a));
		pj_free(m, d);
		d = kept;
	}
	return d;
}

/* A list of paths handed out: the hooks its blocks are freed through before it (their
 * budget's caller's, the budget being over when the list is handed out). */
typedef struct paths_head {
	smdmx_allocator hooks;
	char *paths[];
} paths_head;

static void paths_free(char **paths)
{
	if (!paths) return;
	paths_head *h = (paths_head *)(void *)((char *)paths - offsetof(paths_head, paths)); /* (malloc-aligned) */
	sm_alloc m;
	sm_alloc_init(&m, &h->hooks);
	for (size_t i = 0; paths[i]; i++) pj_free(&m, paths[i]);
	pj_free(&m, h);
}

/* The files of a kind below dir, as smdmx_batch_files says, in allocator's memory: a budget
 * over it knows when the walk ran out. */
static bool files_below(walk_kind kind, const char *dir, const smdmx_allocator *allocator, char ***paths, size_t *count,
                        smdmx_error *error)
{
	SM_ERROR_START(error);
	const char *call = kind == WALK_QC ? "smdmx_project_files" : "smdmx_batch_files";
	if (!paths || !count) return sm_fail_null(error, call, !paths ? "paths" : "count");
	*paths = NULL;
	*count = 0;
	if (!dir) return sm_fail_null(error, call, "dir");
	sm_budget budget;
	smdmx_allocator hooks = sm_budget_start(&budget, allocator);
	sm_alloc m;
	sm_alloc_init(&m, &hooks);
	char *d = pj_folder_of(&m, dir);
	pj_found_list f = { .mem = &m };
	bool ok = d && pj_walk(kind, d, "", &f, 0, NULL, error);
	pj_free(&m, d);
	size_t n = f.count;
	paths_head *h = pj_malloc(&m, sizeof(paths_head) + (n + 1) * sizeof(char *));
	if (h) {
		h->hooks = hooks; /* the walk's until it is handed out */
		for (size_t i = 0; i < n; i++) {
			h->paths[i] = f.items[i].path;
			f.items[i].path = NULL;
		}
		h->paths[n] = NULL;
	}
	pj_found_free(&f);
	if (sm_budget_ran_out(&budget)) {
		if (h) paths_free(h->paths);
		memset(error, 0, sizeof(*error));
		return sm_fail_oom(error);
	}
	/* handed out: freed through the caller's hooks (a budget's blocks are theirs, of the
	 * same sizes) */
	h->hooks = budget.outer;
	h->hooks.memory_limit = h->hooks.fail_after = 0;
	*paths = h->paths;
	*count = n;
	return ok;
}

bool smdmx_batch_files(smdmx_batch_program program, const char *dir, const smdmx_allocator *allocator, char ***paths,
                       size_t *count, smdmx_error *error)
{
	return files_below(pj_walk_kind_of(program), dir, allocator, paths, count, error);
}

void smdmx_batch_files_free(char **paths)
{
	paths_free(paths);
}

bool smdmx_project_files(const char *dir, const smdmx_allocator *allocator, char ***paths, size_t *count,
                         smdmx_error *error)
{
	return files_below(WALK_QC, dir, allocator, paths, count, error);
}

void smdmx_project_files_free(char **paths)
{
	paths_free(paths);
}
