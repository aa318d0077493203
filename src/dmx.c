/* DMX files: read whole into memory and handed to the codec of their encoding. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dm_internal.h"

smdmx_dm *smdmx_dmx_read_memory(const void *data, size_t size, const smdmx_dmx_read_options *options, smdmx_error *error)
{
	memset(error, 0, sizeof(*error));
	return sm_kv2_read(data ? data : "", data ? size : 0, options, error);
}

smdmx_dm *smdmx_dmx_read_file(const char *path, const smdmx_dmx_read_options *options, smdmx_error *error)
{
	memset(error, 0, sizeof(*error));
	smdmx_dmx_read_options opts;
	memset(&opts, 0, sizeof(opts));
	if (options) opts = *options;
	smdmx_dm_limits limits = sm_dm_limits_resolve(&opts.limits);
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	struct stat st;
	/* A regular file is mapped, not copied: the reader only reads it. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((uint64_t)st.st_size > limits.max_file_size) {
			if (fd != 0) close(fd);
			sm_fail(error, SMDMX_ERROR_LIMIT, 0, 0, "file larger than %zu bytes", limits.max_file_size);
			return NULL;
		}
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (map != MAP_FAILED) {
			if (fd != 0) close(fd);
			smdmx_dm *dm = sm_kv2_read(map, (size_t)st.st_size, options, error);
			munmap(map, (size_t)st.st_size);
			return dm;
		}
	}
	sm_alloc a;
	sm_alloc_init(&a, &opts.allocator);
	size_t cap = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 16;
	if (cap > limits.max_file_size + 1) cap = limits.max_file_size + 1;
	char *buf = sm_malloc(&a, cap);
	size_t len = 0;
	bool ok = buf != NULL;
	if (!ok) sm_fail_oom(error);
	while (ok) {
		if (len == cap) {
			if (cap > limits.max_file_size) {
				ok = sm_fail(error, SMDMX_ERROR_LIMIT, 0, 0, "file larger than %zu bytes", limits.max_file_size);
				break;
			}
			size_t ncap = cap * 2 > limits.max_file_size + 1 ? limits.max_file_size + 1 : cap * 2;
			char *nb = sm_realloc(&a, buf, cap, ncap);
			if (!nb) {
				ok = sm_fail_oom(error);
				break;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR) continue;
		if (n < 0) ok = sm_fail(error, SMDMX_ERROR_IO, 0, 0, "read failed: %s", strerror(errno));
		if (n <= 0) break;
		len += (size_t)n;
	}
	if (fd != 0) close(fd);
	smdmx_dm *dm = NULL;
	if (ok) dm = sm_kv2_read(buf, len, options, error);
	sm_free(&a, buf, cap);
	return dm;
}
