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

#endif
