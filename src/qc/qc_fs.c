/* The QC reader's files on disk (the default of smdmx_qc_read_options' file system): a file
 * read whole, and a name found as studiomdl on Windows finds it, ignoring case where the file
 * system does not. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"
#include "qc/qc_internal.h"

/* Where the blocks of a lookup or a read are: the cache's memory (its allocator's), or
 * malloc's without a cache. */
static sm_alloc *cache_alloc(sm_fs_cache *c);
static void cache_ran_out(sm_fs_cache *c);

static sm_alloc *fs_mem(void *user, sm_alloc *alone)
{
	if (user) return cache_alloc(user);
	sm_alloc_init(alone, NULL);
	return alone;
}

int sm_fs_read(void *user, const char *path, void **data, size_t *size)
{
	sm_alloc alone, *a = fs_mem(user, &alone);
	*data = NULL;
	*size = 0;
	os_stat st;
	if (!os_stat_path(path, &st)) return errno == ENOENT || errno == ENOTDIR ? 1 : 2;
	if (st.kind != OS_REGULAR || st.size >= SIZE_MAX) return 2;
	FILE *f = os_fopen(path, "rb");
	if (!f) return errno == ENOENT || errno == ENOTDIR ? 1 : 2;
	size_t cap = (size_t)st.size + 1, len = 0;
	char *buf = sm_new(a, 1, cap);
	if (!buf) {
		fclose(f);
		if (user) cache_ran_out(user);
		return 2;
	}
	for (;;) {
		if (len == cap) {
			char *b = cap > SIZE_MAX / 2 ? NULL : sm_renew(a, buf, 2, cap);
			if (!b) {
				sm_del(a, buf);
				fclose(f);
				if (user) cache_ran_out(user);
				return 2;
			}
			buf = b;
			cap *= 2;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) break;
	}
	bool bad = ferror(f) != 0;
	fclose(f);
	if (bad) {
		sm_del(a, buf);
		return 2;
	}
	*data = buf;
	*size = len;
	return 0;
}

void sm_fs_free(void *user, void *data)
{
	sm_alloc alone;
	sm_del(fs_mem(user, &alone), data);
}

static bool is_file(const char *path)
{
	os_stat st;
	return os_stat_path(path, &st) && st.kind == OS_REGULAR;
}

/* Folder listings, read once in a QC's reading: a QC names many files in a few folders, and
 * a name that is not there as written has its folder looked through. Each listing holds the
 * names in the order the folder gives them, each ended by a NUL. Everything a cache holds is
 * its owner's (sm_owner), freed with it. */
typedef struct fs_listing {
	const char *folder;
	sm_vec names; /* char */
} fs_listing;

/* A name looked for, and what it found (NULL: nothing). */
typedef struct fs_found {
	const char *path, *found;
	bool nocase;
} fs_found;

struct sm_fs_cache {
	sm_owner *mem;
	sm_vec dirs;          /* fs_listing */
	sm_names dir_index;   /* folder -> its listing */
	sm_vec names;         /* fs_found */
	sm_names name_index;  /* name looked for -> what it found */
	bool oom;             /* an allocation of the lookup under way failed: what it found is not remembered */
	bool ran_out;         /* an allocation of any lookup or read failed: what they told may be wrong */
};

static sm_alloc *cache_alloc(sm_fs_cache *c)
{
	return &c->mem->alloc;
}

static void cache_ran_out(sm_fs_cache *c)
{
	c->ran_out = true;
}

bool sm_fs_cache_ran_out(const sm_fs_cache *c)
{
	return c && c->ran_out;
}

sm_fs_cache *sm_fs_cache_new(const smdmx_allocator *hooks)
{
	smdmx_error e;
	sm_owner *mem = sm_owner_new(hooks, &e);
	sm_fs_cache *c = mem ? sm_owned_calloc(mem, 1, sizeof(*c), &e) : NULL;
	if (!c) {
		sm_owner_free(mem);
		return NULL;
	}
	c->mem = mem;
	c->dirs = c->names = (sm_vec)SM_VEC_INIT;
	return c;
}

void sm_fs_cache_free(sm_fs_cache *c)
{
	if (!c) return;
	sm_names_free(&c->mem->alloc, &c->dir_index);
	sm_names_free(&c->mem->alloc, &c->name_index);
	sm_owner_free(c->mem); /* c with it */
}

/* path and what it found, kept; nothing when out of memory. */
static void remember(sm_fs_cache *c, const char *path, const char *found, bool nocase)
{
	smdmx_error e;
	fs_found f = { sm_strdup(c->mem, path, strlen(path), &e), found ? sm_strdup(c->mem, found, strlen(found), &e) : NULL,
		       nocase };
	fs_found *slot = f.path && (f.found || !found) ? sm_vec_push(c->mem, &c->names, sizeof(fs_found), &e) : NULL;
	if (!slot) return;
	*slot = f;
	if (!sm_names_put(&c->mem->alloc, &c->name_index, f.path, (uint32_t)c->names.count - 1, true)) c->names.count--;
}

/* folder's listing, read into c the first time (none when it cannot be read); NULL when out
 * of memory. */
static const fs_listing *listing_of(sm_fs_cache *c, const char *folder)
{
	uint32_t k = sm_names_get(&c->dir_index, folder);
	if (k != SMDMX_NONE) return (const fs_listing *)c->dirs.data + k;
	smdmx_error err;
	fs_listing l = { sm_strdup(c->mem, folder, strlen(folder), &err), SM_VEC_INIT };
	if (!l.folder) return NULL;
	os_mem om = sm_os_mem(&c->mem->alloc.hooks);
	os_dir *d = os_dir_open_in(&om, folder);
	bool ok = true;
	const char *e;
	while (ok && d && (e = os_dir_next(d)) != NULL) {
		size_t n = strlen(e) + 1;
		ok = sm_vec_reserve(c->mem, &l.names, 1, l.names.count + n, &err);
		if (ok) memcpy((char *)l.names.data + l.names.count, e, n);
		l.names.count += ok ? n : 0;
	}
	if (d) os_dir_close(d);
	fs_listing *slot = ok ? sm_vec_push(c->mem, &c->dirs, sizeof(fs_listing), &err) : NULL;
	if (!slot) return NULL;
	*slot = l;
	if (sm_names_put(&c->mem->alloc, &c->dir_index, l.folder, (uint32_t)c->dirs.count - 1, true)) return slot;
	c->dirs.count--;
	return NULL;
}

/* The first name of folder equal to want (comp bytes) but for case, into want; with exact,
 * none when want itself is there. */
static bool match_in_folder(sm_fs_cache *c, const char *folder, char *want, size_t comp, bool exact)
{
	const fs_listing *l = listing_of(c, folder);
	if (!l) {
		c->oom = true;
		return false;
	}
	const char *other = NULL;
	for (size_t at = 0; at < l->names.count;) {
		const char *e = (const char *)l->names.data + at;
		size_t n = strlen(e);
		at += n + 1;
		if (n != comp) continue;
		if (exact && !memcmp(e, want, comp)) {
			other = NULL;
			break;
		}
		if (!other && os_same_name_nocase(e, comp, want, comp)) {
			other = e;
			if (!exact) break;
		}
	}
	if (other) memcpy(want, other, comp);
	return other != NULL;
}

/* The name as the folder holds it when it differs from want only in case (any letter's, as
 * os_same_name_nocase folds them; a spelling of another length in bytes is not looked for):
 * where the file system ignores case, a name that opens need not be the name on the disk. */
static void name_on_disk(sm_fs_cache *c, const char *folder, char *want, size_t comp, bool *nocase)
{
	if (memchr(want, ':', comp)) return; /* a drive */
	if (match_in_folder(c, *folder ? folder : ".", want, comp, true)) *nocase = true;
}

/* The path of an existing file: as given, else with each component matched ignoring case
 * (QC names come from Windows, doc/formats.md G1). Where the file system ignores case itself, the
 * name found is the one on the disk, and a difference in case is reported alike. */
static char *find(sm_fs_cache *cache, const char *path, bool *nocase)
{
	*nocase = false;
	sm_alloc *a = &cache->mem->alloc;
	bool fold = os_names_ignore_case();
	size_t n = strlen(path);
	if (!fold && is_file(path)) {
		char *same = sm_new(a, 1, n + 1);
		if (same) memcpy(same, path, n + 1);
		else cache->oom = true;
		return same;
	}
	char *out = sm_new(a, 1, n + 1);
	if (!out) {
		cache->oom = true;
		return NULL;
	}
	/* the root as it is ("/", "C:/", "//server/share/", "//?/C:/": os_path_root) */
	size_t len = os_path_root(path);
	if (!fold) {
		/* The longest leading folder there as written: the walk below would take each of its
		 * components as written (every folder above one that is there is there), so it starts
		 * after it. A name a QC cannot find most often lacks only its last component: two
		 * looks, not one per folder from the root. */
		memcpy(out, path, n + 1);
		for (size_t k = n; k > len; k--) {
			os_stat st;
			if (out[k - 1] != '/' || k - 1 <= len) continue;
			out[k - 1] = 0;
			bool there = os_stat_path(out, &st);
			out[k - 1] = '/';
			if (there) {
				len = k;
				break;
			}
		}
	}
	memcpy(out, path, len);
	const char *p = path + len;
	while (*p) {
		const char *q = strchr(p, '/');
		size_t comp = q ? (size_t)(q - p) : strlen(p);
		out[len] = 0;
		char *want = sm_new(a, 1, comp + 1);
		if (want) {
			memcpy(want, p, comp);
			want[comp] = 0;
		}
		if (!want) {
			sm_del(a, out);
			cache->oom = true;
			return NULL;
		}
		bool found = false;
		if (comp == 0 || !strcmp(want, ".") || !strcmp(want, "..")) {
			found = true;
		} else {
			/* The component as written, if it exists; else the first entry equal but for case. */
			char *probe = sm_new(a, 1, len + comp + 1);
			if (probe) {
				memcpy(probe, out, len);
				memcpy(probe + len, want, comp + 1);
				os_stat st;
				found = os_stat_path(probe, &st);
				sm_del(a, probe);
			} else {
				cache->oom = true;
			}
			if (found && fold) {
				out[len] = 0;
				name_on_disk(cache, out, want, comp, nocase);
			}
			if (!found && match_in_folder(cache, len ? out : ".", want, comp, false)) {
				found = true;
				*nocase = true;
			}
		}
		if (!found) {
			sm_del(a, want);
			sm_del(a, out);
			return NULL;
		}
		memcpy(out + len, want, comp);
		len += comp;
		sm_del(a, want);
		if (!q) break;
		out[len++] = '/';
		p = q + 1;
	}
	out[len] = 0;
	if (!is_file(out)) {
		sm_del(a, out);
		return NULL;
	}
	return out;
}

char *sm_fs_find(void *user, const char *path, bool *nocase)
{
	/* without a cache (user NULL), one for this lookup alone */
	sm_fs_cache *c = user, *own = c ? NULL : sm_fs_cache_new(NULL);
	*nocase = false;
	if (!c && !(c = own)) return NULL; /* out of memory */
	/* A QC names many files more than once (an animation in several $sequences, each of its
	 * extensions tried): each name is looked for once in a reading. */
	uint32_t k = sm_names_get(&c->name_index, path);
	char *found;
	if (k != SMDMX_NONE) {
		const fs_found *f = (const fs_found *)c->names.data + k;
		*nocase = f->nocase;
		size_t n = f->found ? strlen(f->found) + 1 : 0;
		found = n ? sm_new(&c->mem->alloc, 1, n) : NULL;
		if (found) memcpy(found, f->found, n);
		else if (n) c->ran_out = true;
	} else {
		c->oom = false;
		found = find(c, path, nocase);
		if (!c->oom) remember(c, path, found, *nocase);
		else c->ran_out = true;
	}
	sm_fs_cache_free(own);
	return found;
}
