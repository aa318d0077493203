/* Output files written all or nothing: a temporary file beside the target, renamed into
 * place only when everything was written. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
