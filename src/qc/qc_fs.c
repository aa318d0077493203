/* The QC reader's files on disk (the default of smdmx_qc_read_options' file system): a file
 * read whole, and a name found as studiomdl on Windows finds it, ignoring case where the file
 * system does not. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"
#include "qc/qc_internal.h"

int sm_fs_read(void *user, const char *path, void **data, size_t *size)
{
	(void)user;
	*data = NULL;
	*size = 0;
	os_stat st;
	if (!os_stat_path(path, &st)) return errno == ENOENT || errno == ENOTDIR ? 1 : 2;
	if (st.kind != OS_REGULAR || st.size >= SIZE_MAX) return 2;
	FILE *f = os_fopen(path, "rb");
	if (!f) return errno == ENOENT || errno == ENOTDIR ? 1 : 2;
	size_t cap = (size_t)st.size + 1, len = 0;
	char *buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return 2;
	}
	for (;;) {
		if (len == cap) {
			char *b = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!b) {
				free(buf);
				fclose(f);
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
		free(buf);
		return 2;
	}
	*data = buf;
	*size = len;
	return 0;
}

void sm_fs_free(void *user, void *data)
{
	(void)user;
	free(data);
}

static bool is_file(const char *path)
{
	os_stat st;
	return os_stat_path(path, &st) && st.kind == OS_REGULAR;
}

/* Folder listings, read once in a QC's reading: a QC names many files in a few folders, and
 * a name that is not there as written has its folder looked through. Each listing holds the
 * names in the order the folder gives them, each ended by a NUL. */
typedef struct fs_listing {
	char *folder;
	char *names;
	size_t size;
} fs_listing;

/* A name looked for, and what it found (NULL: nothing). */
typedef struct fs_found {
	char *path, *found;
	bool nocase;
} fs_found;

struct sm_fs_cache {
	fs_listing *dirs;
	size_t count, cap;
	fs_found *names; /* open addressing, cap a power of two at least twice the count */
	size_t name_count, name_cap;
	bool oom;        /* an allocation of the lookup under way failed: its NULL is not remembered */
};

sm_fs_cache *sm_fs_cache_new(void)
{
	return calloc(1, sizeof(sm_fs_cache));
}

void sm_fs_cache_free(sm_fs_cache *c)
{
	if (!c) return;
	for (size_t i = 0; i < c->count; i++) {
		free(c->dirs[i].folder);
		free(c->dirs[i].names);
	}
	free(c->dirs);
	for (size_t i = 0; i < c->name_cap; i++) {
		free(c->names[i].path);
		free(c->names[i].found);
	}
	free(c->names);
	free(c);
}

static size_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3u;
	return (size_t)(h ^ h >> 32);
}

/* The slot of path in c's names: its own, or the empty one where it goes. */
static fs_found *name_slot(const sm_fs_cache *c, const char *path)
{
	size_t i = name_hash(path) & (c->name_cap - 1);
	while (c->names[i].path && strcmp(c->names[i].path, path)) i = (i + 1) & (c->name_cap - 1);
	return &c->names[i];
}

/* path and what it found (owned by c from here), kept; nothing when out of memory. */
static void remember(sm_fs_cache *c, const char *path, const char *found, bool nocase)
{
	if (2 * (c->name_count + 1) > c->name_cap) {
		size_t ncap = c->name_cap ? c->name_cap * 2 : 64;
		fs_found *grown = calloc(ncap, sizeof(fs_found)), *old = c->names;
		if (!grown) return;
		size_t old_cap = c->name_cap;
		c->names = grown;
		c->name_cap = ncap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].path) *name_slot(c, old[i].path) = old[i];
		free(old);
	}
	fs_found f = { strdup(path), found ? strdup(found) : NULL, nocase };
	if (!f.path || (found && !f.found)) {
		free(f.path);
		free(f.found);
		return;
	}
	*name_slot(c, path) = f;
	c->name_count++;
}

/* The names in folder (none when it cannot be read; false only when out of memory). */
static bool read_listing(const char *folder, fs_listing *l)
{
	l->names = NULL;
	l->size = 0;
	os_dir *d = os_dir_open(folder);
	if (!d) return true;
	size_t cap = 0;
	bool ok = true;
	const char *e;
	while (ok && (e = os_dir_next(d)) != NULL) {
		size_t n = strlen(e) + 1;
		if (l->size + n > cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			while (ncap < l->size + n) ncap *= 2;
			char *grown = realloc(l->names, ncap);
			if (!grown) {
				ok = false;
				break;
			}
			l->names = grown;
			cap = ncap;
		}
		memcpy(l->names + l->size, e, n);
		l->size += n;
	}
	os_dir_close(d);
	if (!ok) {
		free(l->names);
		l->names = NULL;
		l->size = 0;
	}
	return ok;
}

/* folder's listing in c, read into it the first time; NULL when out of memory. */
static const fs_listing *find_listing(sm_fs_cache *c, const char *folder)
{
	for (size_t i = 0; i < c->count; i++)
		if (!strcmp(c->dirs[i].folder, folder)) return &c->dirs[i];
	if (c->count == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 16;
		fs_listing *grown = realloc(c->dirs, ncap * sizeof(*grown));
		if (!grown) return NULL;
		c->dirs = grown;
		c->cap = ncap;
	}
	fs_listing l;
	l.folder = strdup(folder);
	if (!l.folder || !read_listing(folder, &l)) {
		free(l.folder);
		return NULL;
	}
	c->dirs[c->count] = l;
	return &c->dirs[c->count++];
}

/* folder's listing: the cache's, or, without a cache, read into *own for the caller to free.
 * NULL when out of memory (said in the cache). */
static const fs_listing *listing_of(sm_fs_cache *c, const char *folder, fs_listing *own)
{
	if (!c) return read_listing(folder, own) ? own : NULL;
	const fs_listing *l = find_listing(c, folder);
	if (!l) c->oom = true;
	return l;
}

/* The first name of folder equal to want (comp bytes) but for case, into want; with exact,
 * none when want itself is there. */
static bool match_in_folder(sm_fs_cache *c, const char *folder, char *want, size_t comp, bool exact)
{
	fs_listing own = { NULL, NULL, 0 };
	const fs_listing *l = listing_of(c, folder, &own);
	if (!l) return false;
	const char *other = NULL;
	for (size_t at = 0; at < l->size;) {
		const char *e = l->names + at;
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
	free(own.names);
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
static char *find(sm_fs_cache *cache, const char *path, bool *nocase, bool *oom)
{
	*nocase = false;
	bool fold = os_names_ignore_case();
	if (!fold && is_file(path)) {
		char *same = strdup(path);
		*oom = same == NULL;
		return same;
	}
	size_t n = strlen(path);
	char *out = malloc(n + 1);
	*oom = out == NULL;
	if (!out) return NULL;
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
		char *want = malloc(comp + 1);
		if (want) {
			memcpy(want, p, comp);
			want[comp] = 0;
		}
		if (!want) {
			free(out);
			*oom = true;
			return NULL;
		}
		bool found = false;
		if (comp == 0 || !strcmp(want, ".") || !strcmp(want, "..")) {
			found = true;
		} else {
			/* The component as written, if it exists; else the first entry equal but for case. */
			char *probe = malloc(len + comp + 1);
			if (probe) {
				memcpy(probe, out, len);
				memcpy(probe + len, want, comp + 1);
				os_stat st;
				found = os_stat_path(probe, &st);
				free(probe);
			} else {
				*oom = true;
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
			free(want);
			free(out);
			return NULL;
		}
		memcpy(out + len, want, comp);
		len += comp;
		free(want);
		if (!q) break;
		out[len++] = '/';
		p = q + 1;
	}
	out[len] = 0;
	if (!is_file(out)) {
		free(out);
		return NULL;
	}
	return out;
}

char *sm_fs_find(void *user, const char *path, bool *nocase)
{
	sm_fs_cache *c = user;
	bool oom;
	if (!c) return find(NULL, path, nocase, &oom);
	/* A QC names many files more than once (an animation in several $sequences, each of its
	 * extensions tried): each name is looked for once in a reading. */
	if (c->name_cap) {
		const fs_found *f = name_slot(c, path);
		if (f->path) {
			*nocase = f->nocase;
			return f->found ? strdup(f->found) : NULL;
		}
	}
	c->oom = false;
	char *found = find(c, path, nocase, &oom);
	if (!oom && !c->oom) remember(c, path, found, *nocase);
	return found;
}
