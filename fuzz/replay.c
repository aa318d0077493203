/* Runs a fuzz target over files without libFuzzer: every file named, and every file below
 * every directory named (recursively, in byte order). CI replays the seed corpus and every
 * saved finding this way, with any compiler. A crash, a sanitizer report or an abort fails
 * the run; a directory that is missing does too, except the corpus named by --corpus, which
 * a clone downloaded alone does not have.
 * usage: replay_TARGET [--corpus DIR] PATH... */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "platform/os.h"

static size_t files;

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return 1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(f);
			return 1;
		}
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap) break;
		uint8_t *grown = realloc(buf, cap * 2);
		if (!grown) free(buf);
		buf = grown;
		cap *= 2;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	files++;
	return 0;
}

static int run_path(const char *path)
{
	os_stat st;
	if (!os_stat_path(path, &st)) {
		fprintf(stderr, "replay: %s is missing\n", path);
		return 1;
	}
	if (st.kind != OS_DIRECTORY) return run_file(path);
	os_dir *d = os_dir_open(path);
	if (!d) return 1;
	char **names = NULL;
	size_t n = 0;
	const char *e;
	while ((e = os_dir_next(d))) {
		if (e[0] == '.') continue;
		char **grown = realloc(names, (n + 1) * sizeof(*names));
		if (!grown) break;
		names = grown;
		names[n] = malloc(strlen(e) + 1);
		if (!names[n]) break;
		strcpy(names[n++], e);
	}
	os_dir_close(d);
	qsort(names, n, sizeof(*names), cmp);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(path) + strlen(names[i]) + 2;
		char *child = malloc(len);
		if (child) {
			snprintf(child, len, "%s/%s", path, names[i]);
			rc |= run_path(child);
			free(child);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--corpus") && i + 1 < argc) {
			/* The corpus beside the clone: a clone downloaded alone has none, and replays
			 * only the rest, saying so; with SMDMX_REQUIRE_CORPUS set (CI) it must be there. */
			const char *corpus = argv[++i], *req = getenv("SMDMX_REQUIRE_CORPUS");
			os_stat st;
			if (!os_stat_path(corpus, &st) && !(req && strcmp(req, "0") != 0)) {
				printf("skipped the corpus: there is none at %s\n", corpus);
				continue;
			}
			rc |= run_path(corpus);
			continue;
		}
		rc |= run_path(argv[i]);
	}
	printf("replayed %zu files\n", files);
	return rc || files == 0;
}
