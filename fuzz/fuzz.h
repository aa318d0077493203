/* Shared by the fuzz targets: a sink that discards what writers produce, the limits a
 * target reads with (small enough that one input stays well under a second), and the
 * libFuzzer entry point every target defines. */
#ifndef SMDMX_FUZZ_H
#define SMDMX_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "smdmx/smdmx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A call's warnings (read on every path, so that saying them is fuzzed too), started empty
 * and given back when the block ends. */
static inline void fuzz_warnings_done(smdmx_warnings *w)
{
	smdmx_warnings_free(w);
}
#define FUZZ_WARNINGS(name) smdmx_warnings name __attribute__((cleanup(fuzz_warnings_done))) = { 0 }

static inline bool fuzz_discard(void *user, const void *data, size_t size)
{
	(void)data;
	*(size_t *)user += size;
	return true;
}

/* Frames and keys bounded so that a tiny input cannot ask a writer for hours of output;
 * the limits themselves are tested at their defaults elsewhere. */
static inline smdmx_limits fuzz_limits(void)
{
	smdmx_limits l;
	memset(&l, 0, sizeof(l));
	l.max_frames = 2000;
	l.max_keys = (size_t)1 << 18;
	l.max_corners = (size_t)1 << 18;
	l.max_joints = 1024;
	return l;
}

/* Writes a scene as SMD (and VTA when it has shapes), then as a model DMX in binary 5 and
 * keyvalues2, all into the sink: the writers run on whatever a reader accepted. */
/* A scene drawn as smdmx preview draws it (small pictures): every view with the skeleton,
 * the UV layouts, a sheet of the shapes, and each clip's first and last frames posed. A
 * picture that is refused must say why. */
static inline void fuzz_draw(const smdmx_scene *s, const sm_render_options *o)
{
	sm_image img;
	smdmx_error err;
	if (sm_render(s, o, &img, NULL, &err)) {
		uint8_t *png;
		size_t n;
		if (sm_png_encode(&img, &png, &n)) free(png);
		sm_render_free(&img, NULL);
	} else if (!err.message[0]) {
		abort();
	}
}

static inline void fuzz_draw_scene(const smdmx_scene *s)
{
	sm_render_options o;
	memset(&o, 0, sizeof(o));
	o.size = 16;
	o.view = SM_VIEW_ALL;
	o.skeleton = true;
	fuzz_draw(s, &o);
	o.view = SM_VIEW_THREE_QUARTER;
	o.skeleton = false;
	o.uv = true;
	fuzz_draw(s, &o);
	o.uv = false;
	o.shapes = s->flex_shape_count > 0 && s->flex_shape_count < 64;
	if (o.shapes) fuzz_draw(s, &o);
	o.shapes = false;
	for (size_t c = 0; c < s->clip_count && c < 4; c++) {
		o.clip = s->clips[c].name;
		o.frame = 0;
		fuzz_draw(s, &o);
		double last = (double)s->clips[c].duration * s->clips[c].frame_rate / 10000.0; /* about the last */
		o.frame = last >= 0 && last < 1e9 ? (int64_t)last : 1000000000;
		fuzz_draw(s, &o);
		o.frame = 1000000000; /* past the end: refused with its range */
		fuzz_draw(s, &o);
	}
}

static inline void fuzz_write_scene(const smdmx_scene *s)
{
	fuzz_draw_scene(s);
	smdmx_error err;
	FUZZ_WARNINGS(w);
	size_t n = 0;
	smdmx_smd_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.limits = fuzz_limits();
	smdmx_smd_write(s, fuzz_discard, &n, &wo, &err);
	if (s->flex_shape_count) {
		wo.kind = SMDMX_SMD_WRITE_VTA;
		smdmx_smd_write(s, fuzz_discard, &n, &wo, &err);
	}
	smdmx_dm *dm = smdmx_model_from_scene(s, NULL, &err, &w);
	if (!dm) return;
	smdmx_dmx_write_options dw;
	memset(&dw, 0, sizeof(dw));
	dw.encoding = "binary";
	smdmx_dmx_write(dm, fuzz_discard, &n, &dw, &err);
	dw.encoding = "keyvalues2";
	smdmx_dmx_write(dm, fuzz_discard, &n, &dw, &err);
	smdmx_dm_free(dm);
}

/* The diff: a scene is the same model as itself; compared with itself moved (every length
 * scaled) and turned to Z up from another axis, it ends, whatever it finds. s is changed. */
static inline void fuzz_no_difference(void *user, const char *message)
{
	(void)user;
	/* a clip past the limit of a comparison is said, whatever the other side */
	if (!strstr(message, "too many frames to compare")) abort();
}

static inline void fuzz_diff_scene(smdmx_scene *s)
{
	smdmx_error err;
	if (!smdmx_scene_validate(s, &err)) return; /* the diff's contract */
	smdmx_compare_options co;
	memset(&co, 0, sizeof(co));
	co.flex_controls = true;
	smdmx_scene_diff(s, s, &co, fuzz_no_difference, NULL, NULL);
	char up = s->up_axis;
	if (!smdmx_scene_transform(s, 1.5, up == 'Z' ? 'Y' : up, &err)) return;
	/* s is now Z up and larger; compare it with a view of itself said to be Y up */
	smdmx_scene other = *s;
	other.up_axis = 'Y';
	smdmx_scene_diff(s, &other, &co, NULL, NULL, NULL);
	co.value_tolerance = 0.01;
	smdmx_scene_diff(&other, s, &co, NULL, NULL, NULL);
}

/* A datamodel written back in both encodings. */
static inline void fuzz_write_dm(smdmx_dm *dm)
{
	smdmx_error err;
	size_t n = 0;
	smdmx_dmx_write_options dw;
	memset(&dw, 0, sizeof(dw));
	dw.encoding = "keyvalues2";
	dw.encoding_version = 4;
	smdmx_dmx_write(dm, fuzz_discard, &n, &dw, &err);
	dw.encoding = "binary";
	dw.encoding_version = 9;
	smdmx_dmx_write(dm, fuzz_discard, &n, &dw, &err);
}

/* data behind a DMX header: as it is when it starts with one, else behind the header the
 * first byte picks (so that the fuzzer spends its time on the body). */
static inline uint8_t *fuzz_with_header(const uint8_t *data, size_t size, bool binary, size_t *out_size)
{
	static const int versions[] = { 1, 2, 3, 4, 5, 9 };
	if (size >= 4 && !memcmp(data, "<!--", 4)) {
		uint8_t *copy = malloc(size ? size : 1);
		if (copy) memcpy(copy, data, size);
		*out_size = size;
		return copy;
	}
	int v = size ? versions[data[0] % (binary ? 6 : 4)] : 1;
	if (size) {
		data++;
		size--;
	}
	char head[80];
	int hn = snprintf(head, sizeof(head), "<!-- dmx encoding %s %d format model 18 -->\n", binary ? "binary" : "keyvalues2", v);
	size_t extra = (size_t)hn + (binary ? 1 : 0);
	uint8_t *buf = malloc(extra + size + 1);
	if (!buf) return NULL;
	memcpy(buf, head, (size_t)hn);
	if (binary) buf[hn] = 0;
	if (size) memcpy(buf + extra, data, size);
	*out_size = extra + size;
	return buf;
}

/* The keyvalues2 and binary targets: read (behind the header), write back. */
static inline int fuzz_dmx_reader(const uint8_t *data, size_t size, bool binary)
{
	size_t n;
	uint8_t *buf = fuzz_with_header(data, size, binary, &n);
	if (!buf) return 0;
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(buf, n, NULL, &err, NULL);
	if (dm) {
		fuzz_write_dm(dm);
		smdmx_dm_free(dm);
	}
	free(buf);
	return 0;
}

#endif
