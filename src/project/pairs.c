/* Two trees of model files paired by place (smdmx_batch_pair_trees, smdmx/batch.h): what
 * `smdmx report A B` compares. Each tree's files come from the batch's walk; a file's place
 * is its path below its tree without the extension, compared as the file system names
 * files (os_path_compare). Files are sorted by place once, so that finding a place's files
 * is a binary search and a tree of tens of thousands of files pairs in n log n. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"
#include "smdmx/batch.h"
#include "support/internal.h"

typedef struct tree_file {
	char *path;
	char *place;           /* below the tree's folder, without the extension */
	const char *ext;
	bool vta, used;
} tree_file;

/* A file's place and its index in the walk's order, as sorted. */
typedef struct placed {
	const char *place;
	size_t index;
} placed;

typedef struct tree {
	tree_file *files;      /* in the walk's order (byte order of the names) */
	size_t count;
	placed *by_place;      /* every file, sorted by place, then in walk order */
} tree;

static int by_place_order(const void *x, const void *y)
{
	const placed *a = x, *b = y;
	int c = os_path_compare(a->place, b->place);
	return c ? c : (a->index > b->index) - (a->index < b->index);
}

static void tree_free(tree *t, const sm_alloc *m)
{
	for (size_t i = 0; t->files && i < t->count; i++) {
		pj_free(m, t->files[i].path);
		pj_free(m, t->files[i].place);
	}
	pj_free(m, t->files);
	pj_free(m, t->by_place);
	memset(t, 0, sizeof(*t));
}

/* The model files below dir, with their places, sorted, in m; false when the folder cannot
 * be read (error says why) or memory ran out (m's budget knows). */
static bool tree_read(const char *dir, tree *t, const sm_alloc *m, smdmx_error *error)
{
	char **paths;
	size_t n;
	if (!smdmx_batch_files(SMDMX_BATCH_ANY, dir, &m->hooks, &paths, &n, error)) {
		smdmx_batch_files_free(paths);
		return false;
	}
	t->files = pj_calloc(m, n + 1, sizeof(tree_file));
	t->by_place = pj_malloc(m, (n + 1) * sizeof(placed));
	size_t skip = strlen(dir);
	while (skip > 1 && os_is_separator(dir[skip - 1])) skip--;
	for (size_t i = 0; t->files && t->by_place && i < n; i++) {
		tree_file *f = &t->files[t->count];
		const char *rel = paths[i] + skip + (os_is_separator(paths[i][skip]) ? 1 : 0);
		const char *ext = os_path_extension(rel);
		size_t stem = strlen(rel) - (*ext ? strlen(ext) + 1 : 0);
		f->place = pj_asprintf(m, "%.*s", (int)stem, rel);
		if (!f->place) break;
		f->path = paths[i];
		paths[i] = NULL;
		f->ext = os_path_extension(f->path);
		f->vta = !strcasecmp(f->ext, "vta");
		t->by_place[t->count] = (placed){ f->place, t->count };
		t->count++;
	}
	/* those not taken (after the first not taken: memory ran out) given back with the list */
	memmove(paths, paths + t->count, (n - t->count + 1) * sizeof(char *));
	smdmx_batch_files_free(paths);
	if (t->count < n) return false;
	if (t->count) qsort(t->by_place, t->count, sizeof(placed), by_place_order);
	return true;
}

/* The file of t at f's place: another format's first (a conversion's result), else the same
 * format's; the VTA of that place with vta. Unused ones only, the first in walk order. */
static tree_file *partner(tree *t, const tree_file *f, bool vta)
{
	size_t lo = 0, hi = t->count;
	while (lo < hi) { /* the first of f's place */
		size_t mid = lo + (hi - lo) / 2;
		if (os_path_compare(t->by_place[mid].place, f->place) < 0) lo = mid + 1;
		else hi = mid;
	}
	tree_file *same = NULL;
	for (size_t k = lo; k < t->count; k++) {
		tree_file *g = &t->files[t->by_place[k].index];
		if (os_path_compare(g->place, f->place)) break;
		if (g->used || g->vta != vta) continue;
		if (vta || strcasecmp(g->ext, f->ext)) return g;
		if (!same) same = g;
	}
	return same;
}

typedef struct pairs_run {
	smdmx_tree_pair *pairs;
	size_t count, cap;
	const sm_alloc *m;
} pairs_run;

static bool add_pair(pairs_run *p, tree t[2], tree_file *a, tree_file *b)
{
	if (p->count == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		smdmx_tree_pair *n = pj_realloc(p->m, p->pairs, cap * sizeof(*n));
		if (!n) return false;
		p->pairs = n;
		p->cap = cap;
	}
	smdmx_tree_pair *pair = &p->pairs[p->count++];
	memset(pair, 0, sizeof(*pair));
	tree_file *f[2] = { a, b };
	for (int k = 0; k < 2; k++) {
		if (!f[k]) continue;
		f[k]->used = true;
		pair->path[k] = f[k]->path;
		tree_file *v = strcasecmp(f[k]->ext, "smd") ? NULL : partner(&t[k], f[k], true);
		if (v) {
			v->used = true;
			pair->vta[k] = v->path;
		}
	}
	return true;
}

struct smdmx_tree_pairs_owned {
	smdmx_tree_pairs pub;
	tree t[2];
	sm_alloc m; /* whose blocks they are: the caller's hooks once handed out */
};

smdmx_tree_pairs *smdmx_batch_pair_trees(const char *a, const char *b, const smdmx_allocator *allocator,
                                         smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!a || !b) return sm_fail_null(error, __func__, !a ? "a" : "b"), NULL;
	/* the pairing's memory in one budget over the caller's allocator, which knows when it
	 * ran out */
	sm_budget budget;
	smdmx_allocator hooks = sm_budget_start(&budget, allocator);
	sm_alloc m;
	sm_alloc_init(&m, &hooks);
	struct smdmx_tree_pairs_owned *o = pj_calloc(&m, 1, sizeof(*o));
	if (!o) {
		sm_fail_oom(error);
		return NULL;
	}
	o->m = m;
	pairs_run p = { NULL, 0, 0, &o->m };
	bool ok = tree_read(a, &o->t[0], &o->m, error) && tree_read(b, &o->t[1], &o->m, error);
	for (int side = 0; ok && side < 2; side++) {
		tree *t = &o->t[side];
		for (size_t i = 0; ok && i < t->count; i++) {
			tree_file *f = &t->files[i];
			if (f->used || (f->vta && partner(t, f, false))) continue; /* an SMD's VTA goes with it */
			ok = side ? add_pair(&p, o->t, NULL, f) : add_pair(&p, o->t, f, partner(&o->t[1], f, f->vta));
		}
	}
	o->pub.pairs = p.pairs;
	o->pub.count = p.count;
	/* handed out (or freed): through the caller's hooks, a budget's blocks being theirs, of
	 * the same sizes */
	o->m.hooks = budget.outer;
	o->m.hooks.memory_limit = o->m.hooks.fail_after = 0;
	if (!ok || sm_budget_ran_out(&budget)) {
		bool ran_out = sm_budget_ran_out(&budget);
		smdmx_tree_pairs_free(&o->pub);
		if (ran_out) {
			memset(error, 0, sizeof(*error));
			sm_fail_oom(error);
		}
		return NULL;
	}
	return &o->pub;
}

void smdmx_tree_pairs_free(smdmx_tree_pairs *pairs)
{
	if (!pairs) return;
	struct smdmx_tree_pairs_owned *o = (struct smdmx_tree_pairs_owned *)pairs;
	sm_alloc m = o->m;
	tree_free(&o->t[0], &m);
	tree_free(&o->t[1], &m);
	pj_free(&m, (void *)o->pub.pairs);
	pj_free(&m, o);
}
