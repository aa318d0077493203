/* Output files written all or nothing: a temporary file beside the target, renamed into
 * place only when everything was written. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

bool sm_out_flush(sm_out *o)
{
	if (o->len && !o->write(o->user, o->buf, o->len)) return sm_fail(o->error, SMDMX_ERROR_IO, 0, 0, "write failed");
	o->len = 0;
	return true;
}

bool sm_out_put_slow(sm_out *o, const char *s, size_t n)
{
	while (n) {
		SM_CHECK(sm_out_room(o, 1));
		size_t k = SM_OUT_CAP - o->len < n ? SM_OUT_CAP - o->len : n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
	return true;
}

static bool fd_write(void *user, const void *data, size_t size)
{
	int fd = *(int *)user;
	const char *p = data;
	while (size) {
		ssize_t n = write(fd, p, size);
		if (n < 0) {
			if (errno == EINTR) continue;
			return false;
		}
		p += n;
		size -= (size_t)n;
	}
	return true;
}

bool sm_write_file_atomic(const char *path, sm_produce_fn produce, void *ctx, smdmx_error *error)
{
	memset(error, 0, sizeof(*error));
	if (strcmp(path, "-") == 0) {
		int fd = 1;
		return produce(ctx, fd_write, &fd, error);
	}
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	if (!tmp) return sm_fail_oom(error);
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp-XXXXXX", 12);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return false;
	}
	fchmod(fd, 0644);
	bool ok = produce(ctx, fd_write, &fd, error);
	if (close(fd) != 0 && ok) ok = sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot write '%s': %s", path, strerror(errno));
	if (ok && rename(tmp, path) != 0)
		ok = sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot rename to '%s': %s", path, strerror(errno));
	if (!ok) unlink(tmp);
	free(tmp);
	return ok;
}

/* ---- files for the QC reader ----------------------------------------------------------------- */

int sm_fs_read(void *user, const char *path, void **data, size_t *size);
char *sm_fs_find(void *user, const char *path, bool *nocase);
void sm_fs_free(void *user, void *data);

int sm_fs_read(void *user, const char *path, void **data, size_t *size)
{
	(void)user;
	*data = NULL;
	*size = 0;
	FILE *f = fopen(path, "rb");
	if (!f) return errno == ENOENT || errno == ENOTDIR ? 1 : 2;
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return 2;
	}
	size_t cap = (size_t)st.st_size + 1, len = 0;
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
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The path of an existing file: as given, else with each component matched ignoring case
 * (QC names come from Windows, FORMATS G1). */
char *sm_fs_find(void *user, const char *path, bool *nocase)
{
	(void)user;
	*nocase = false;
	if (is_file(path)) return strdup(path);
	size_t n = strlen(path);
	char *out = malloc(n + 1);
	if (!out) return NULL;
	size_t len = 0;
	const char *p = path;
	if (*p == '/') {
		out[len++] = '/';
		p++;
	}
	while (*p) {
		const char *q = strchr(p, '/');
		size_t comp = q ? (size_t)(q - p) : strlen(p);
		out[len] = 0;
		char *want = strndup(p, comp);
		if (!want) {
			free(out);
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
				struct stat st;
				found = stat(probe, &st) == 0;
				free(probe);
			}
			if (!found) {
				DIR *d = opendir(len ? out : ".");
				if (d) {
					struct dirent *e;
					while ((e = readdir(d)) != NULL) {
						if (strlen(e->d_name) == comp && !strcasecmp(e->d_name, want)) {
							memcpy(want, e->d_name, comp);
							found = true;
							*nocase = true;
							break;
						}
					}
					closedir(d);
				}
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
