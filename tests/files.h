/* Test helpers over the platform's files (platform/os.h), for the tests that make folders. */
#ifndef SMDMX_TEST_FILES_H
#define SMDMX_TEST_FILES_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"

/* Everything below path removed, and path itself (a run's output folder). */
static inline void test_remove_tree(const char *path)
{
	os_stat st;
	if (!os_lstat_path(path, &st)) return;
	if (st.kind == OS_DIRECTORY && !st.link) {
		os_dir *d = os_dir_open(path);
		const char *e;
		while (d && (e = os_dir_next(d))) {
			if (!strcmp(e, ".") || !strcmp(e, "..")) continue;
			size_t n = strlen(path) + strlen(e) + 2;
			char *sub = malloc(n);
			if (!sub) continue;
			snprintf(sub, n, "%s/%s", path, e);
			test_remove_tree(sub);
			free(sub);
		}
		if (d) os_dir_close(d);
		os_rmdir(path);
	} else {
		os_remove(path);
	}
}

/* Runs whose every allocation fails in turn (an allocator's fail_after): under Wine a run's files cost
 * much more, there every fifth allocation fails; under ThreadSanitizer, whose checks a run on
 * one job cannot use, every tenth (the Linux build fails every one, and so do the Address and
 * UndefinedBehavior sanitizers). */
#if defined(_WIN32)
#define SWEEP_STRIDE 5
#elif defined(__SANITIZE_THREAD__)
#define SWEEP_STRIDE 10
#else
#define SWEEP_STRIDE 1
#endif

#endif
