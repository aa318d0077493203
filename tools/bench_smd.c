/* bench_smd: times one phase of smdmx on one file and reports MB/s and peak RSS.
 *
 *   bench_smd read FILE          read FILE into a scene
 *   bench_smd write FILE OUT     read FILE, then time writing the scene to the file OUT
 *   bench_smd format FILE        read FILE, then time writing the scene into a sink that
 *                                discards it (the writer alone, without the file system)
 *   bench_smd dmx-read FILE, dmx-format FILE, dmx-write FILE OUT: the same for keyvalues2
 *   bench_smd smd2dmx FILE.smd OUT.dmx, dmx2smd FILE.dmx OUT.smd: end to end, the rate is
 *                                input bytes per second of the whole conversion
 *   bench_smd draw FILE SIZE     read FILE, then time its picture (smdmx preview's default
 *                                three-quarter view, SIZE pixels square) and its PNG bytes; the
 *                                rate is the file's bytes per second of drawing
 *   bench_smd vta-read REF.smd FLEX.vta, vta-match REF.smd FLEX.vta: reading the VTA, and
 *                                matching it to the reference by position (the rate is the
 *                                VTA's bytes per second of matching)
 *
 * THREADS=N in the environment: threads for one file, in reading and writing (default 1).
 *
 * Output: one line "phase bytes seconds MB/s peak_rss_kib". MB is 10^6 bytes; the write
 * rate counts the bytes written. Timing uses CLOCK_MONOTONIC around the phase only. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"
#include "render/render.h"
#include "smdmx/smdmx.h"

static double now(void)
{
	return os_seconds();
}

/* THREADS in the environment: threads for one file (default 1). */
static unsigned threads(void)
{
	const char *t = getenv("THREADS");
	return t && atoi(t) > 0 ? (unsigned)atoi(t) : 1;
}

static bool discard(void *user, const void *data, size_t size)
{
	(void)data;
	*(size_t *)user += size;
	return true;
}

static long peak_rss_kib(void)
{
	return (long)os_peak_memory_kib();
}

/* DMX phases; the output keeps the input's encoding and version. */
static int bench_dmx(const char *phase, const char *path, const char *out)
{
	smdmx_error err;
	os_stat st;
	double t0 = now();
	smdmx_dmx_read_options dro = { .threads = threads() };
	smdmx_dm *dm = smdmx_dmx_read_file(path, &dro, &err, NULL);
	double t1 = now();
	if (!dm) {
		fprintf(stderr, "%s:%u:%u: error: %s\n", path, err.line, err.column, err.message);
		return 1;
	}
	const char *label = strcmp(dm->encoding, "binary") == 0 ? "bin" : "kv2";
	smdmx_dmx_write_options o = { .encoding = dm->encoding, .encoding_version = dm->encoding_version, .threads = dro.threads };
	if (!strcmp(phase, "read")) {
		os_stat_path(path, &st);
		printf("%s-read %lld %.6f %.1f %ld\n", label, (long long)st.size, t1 - t0,
		       (double)st.size / 1e6 / (t1 - t0), peak_rss_kib());
	} else if (!strcmp(phase, "format")) {
		size_t bytes = 0;
		double t2 = now();
		if (!smdmx_dmx_write(dm, discard, &bytes, &o, &err)) return 1;
		double t3 = now();
		printf("%s-format %zu %.6f %.1f %ld\n", label, bytes, t3 - t2, (double)bytes / 1e6 / (t3 - t2), peak_rss_kib());
	} else if (out) {
		double t2 = now();
		if (!smdmx_dmx_write_file(dm, out, &o, &err)) return 1;
		double t3 = now();
		os_stat_path(out, &st);
		printf("%s-write %lld %.6f %.1f %ld\n", label, (long long)st.size, t3 - t2,
		       (double)st.size / 1e6 / (t3 - t2), peak_rss_kib());
	} else {
		return 2;
	}
	smdmx_dm_free(dm);
	return 0;
}

/* A whole conversion, as the commands do it: read, map, write the file. */
static int end_to_end(const char *what, const char *in, const char *out)
{
	smdmx_error err;
	os_stat st;
	double t0 = now();
	bool ok;
	smdmx_smd_read_options ro = { .threads = threads() };
	smdmx_smd_write_options wo = { .threads = threads() };
	smdmx_dmx_read_options dro = { .threads = threads() };
	smdmx_dmx_write_options dwo = { .threads = threads() };
	if (!strcmp(what, "smd2dmx")) {
		smdmx_scene *s = smdmx_smd_read_file(in, &ro, &err, NULL);
		smdmx_dm *dm = s ? smdmx_model_from_scene(s, NULL, &err, NULL) : NULL;
		smdmx_scene_free(s);
		ok = dm && smdmx_dmx_write_file(dm, out, &dwo, &err);
		smdmx_dm_free(dm);
	} else {
		smdmx_dm *dm = smdmx_dmx_read_file(in, &dro, &err, NULL);
		smdmx_scene *s = dm ? smdmx_model_to_scene(dm, NULL, &err, NULL) : NULL;
		smdmx_dm_free(dm);
		ok = s && smdmx_smd_write_file(s, out, &wo, &err);
		smdmx_scene_free(s);
	}
	double t1 = now();
	if (!ok) {
		fprintf(stderr, "%s: error: %s\n", in, err.message);
		return 1;
	}
	os_stat_path(in, &st);
	printf("%s %lld %.6f %.1f %ld\n", what, (long long)st.size, t1 - t0, (double)st.size / 1e6 / (t1 - t0),
	       peak_rss_kib());
	return 0;
}

/* A VTA read, and matched to its reference. */
static int bench_vta(const char *phase, const char *ref_path, const char *vta_path)
{
	smdmx_error err;
	os_stat st;
	smdmx_scene *ref = smdmx_smd_read_file(ref_path, NULL, &err, NULL);
	double t0 = now();
	smdmx_scene *vta = ref ? smdmx_smd_read_file(vta_path, NULL, &err, NULL) : NULL;
	double t1 = now();
	smdmx_warnings w = { 0 };
	bool ok = vta && smdmx_scene_attach_vta(ref, vta, &err, &w);
	double t2 = now();
	if (!ok) {
		fprintf(stderr, "error: %s\n", err.message);
		smdmx_warnings_free(&w);
		return 1;
	}
	os_stat_path(vta_path, &st);
	double t = !strcmp(phase, "read") ? t1 - t0 : t2 - t1;
	printf("vta-%s %lld %.6f %.1f %ld\n", phase, (long long)st.size, t, (double)st.size / 1e6 / t, peak_rss_kib());
	for (size_t i = 0; i < w.count; i++) fprintf(stderr, "warning: %s\n", w.data[i].message);
	smdmx_warnings_free(&w);
	smdmx_scene_free(vta);
	smdmx_scene_free(ref);
	return 0;
}

static int bench_draw(const char *path, const char *size)
{
	smdmx_error err;
	smdmx_smd_read_options ro = { .threads = threads() };
	smdmx_scene *s = smdmx_smd_read_file(path, &ro, &err, NULL);
	if (!s) {
		fprintf(stderr, "%s:%u:%u: error: %s\n", path, err.line, err.column, err.message);
		return 1;
	}
	sm_render_options o = { .view = SM_VIEW_THREE_QUARTER, .size = (uint32_t)atoi(size) };
	sm_image img;
	uint8_t *png = NULL;
	size_t bytes = 0;
	double t0 = now();
	bool ok = sm_render(s, &o, &img, NULL, &err) && sm_png_encode(&img, &png, &bytes);
	double t1 = now();
	if (!ok) {
		fprintf(stderr, "%s: error: %s\n", path, err.message);
		return 1;
	}
	os_stat st;
	os_stat_path(path, &st);
	printf("draw %lld %.6f %.1f %ld\n", (long long)st.size, t1 - t0, (double)st.size / 1e6 / (t1 - t0), peak_rss_kib());
	free(png);
	sm_render_free(&img, NULL);
	smdmx_scene_free(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "draw")) return bench_draw(argv[2], argv[3]);
	if (argc == 4 && (!strcmp(argv[1], "vta-read") || !strcmp(argv[1], "vta-match"))) return bench_vta(argv[1] + 4, argv[2], argv[3]);
	if (argc >= 3 && !strncmp(argv[1], "dmx-", 4)) return bench_dmx(argv[1] + 4, argv[2], argc > 3 ? argv[3] : NULL);
	if (argc == 4 && (!strcmp(argv[1], "smd2dmx") || !strcmp(argv[1], "dmx2smd"))) return end_to_end(argv[1], argv[2], argv[3]);
	if (argc < 3 || (strcmp(argv[1], "read") && strcmp(argv[1], "write") && strcmp(argv[1], "format")) ||
	    (!strcmp(argv[1], "write") && argc < 4)) {
		fprintf(stderr, "usage: bench_smd read FILE | bench_smd write FILE OUT | bench_smd format FILE\n");
		return 2;
	}
	smdmx_error err;
	double t0 = now();
	smdmx_smd_read_options ro = { .threads = threads() };
	smdmx_smd_write_options wo = { .threads = threads() };
	smdmx_scene *s = smdmx_smd_read_file(argv[2], &ro, &err, NULL);
	double t1 = now();
	if (!s) {
		fprintf(stderr, "%s:%u:%u: error: %s\n", argv[2], err.line, err.column, err.message);
		return 1;
	}
	os_stat st;
	if (!strcmp(argv[1], "read")) {
		os_stat_path(argv[2], &st);
		printf("read %lld %.6f %.1f %ld\n", (long long)st.size, t1 - t0, (double)st.size / 1e6 / (t1 - t0),
		       peak_rss_kib());
	} else if (!strcmp(argv[1], "format")) {
		size_t bytes = 0;
		double t2 = now();
		if (!smdmx_smd_write(s, discard, &bytes, &wo, &err)) {
			fprintf(stderr, "error: %s\n", err.message);
			return 1;
		}
		double t3 = now();
		printf("format %zu %.6f %.1f %ld\n", bytes, t3 - t2, (double)bytes / 1e6 / (t3 - t2), peak_rss_kib());
	} else {
		double t2 = now();
		if (!smdmx_smd_write_file(s, argv[3], &wo, &err)) {
			fprintf(stderr, "%s: error: %s\n", argv[3], err.message);
			return 1;
		}
		double t3 = now();
		os_stat_path(argv[3], &st);
		printf("write %lld %.6f %.1f %ld\n", (long long)st.size, t3 - t2, (double)st.size / 1e6 / (t3 - t2),
		       peak_rss_kib());
	}
	smdmx_scene_free(s);
	return 0;
}
