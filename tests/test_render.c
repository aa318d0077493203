/* The renderer (src/render/): pictures checked by what they must show. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/render.h"
#include "smdmx/smdmx.h"
#include "util.h"

/* stb_image_write (Debian's libstb-dev), whose bytes sm_png_encode writes (decision 17): the
 * oracle every picture drawn here is compared with, through the same deflate. */
#define STBI_WRITE_NO_STDIO
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_ZLIB_COMPRESS sm_deflate
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wmissing-declarations"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wcast-align"
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#endif
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static size_t pngs_compared;

/* sm_png_encode's bytes of img are stb_image_write's. */
static void assert_png_as_stb(const sm_image *img)
{
	uint8_t *ours;
	size_t n;
	int theirs_size = 0;
	assert_true(sm_png_encode(img, &ours, &n));
	unsigned char *theirs = stbi_write_png_to_mem(img->rgb, (int)img->width * 3, (int)img->width, (int)img->height, 3, &theirs_size);
	assert_non_null(theirs);
	size_t at = 0;
	while (at < n && at < (size_t)theirs_size && ours[at] == theirs[at]) at++;
	if (n != (size_t)theirs_size || at != n)
		fail_msg("a %u x %u picture: %zu PNG bytes, stb_image_write's %d, the first difference at byte %zu", img->width,
		         img->height, n, theirs_size, at);
	free(ours);
	STBIW_FREE(theirs);
	pngs_compared++;
}

/* ---- models written as SMD text ---------------------------------------------------------- */

typedef struct text {
	char buf[65536];
	size_t len;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	t->len += (size_t)vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
	va_end(ap);
	assert_true(t->len < sizeof(t->buf));
}

/* A quad a b c d (two triangles) of one material on one bone, with UVs. */
static void quad(text *t, const char *mat, int bone, const double p[4][3], const double uv[4][2])
{
	static const int tris[2][3] = { { 0, 1, 2 }, { 0, 2, 3 } };
	for (int k = 0; k < 2; k++) {
		put(t, "%s\n", mat);
		for (int i = 0; i < 3; i++) {
			int c = tris[k][i];
			put(t, "%d %.9g %.9g %.9g 0 -1 0 %.9g %.9g\n", bone, p[c][0], p[c][1], p[c][2], uv ? uv[c][0] : 0, uv ? uv[c][1] : 0);
		}
	}
}

static smdmx_scene *read_text(const text *t)
{
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_memory(t->buf, t->len, NULL, &err, NULL);
	if (!s) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	return s;
}

static void header(text *t, int bones)
{
	put(t, "version 1\nnodes\n0 \"root\" -1\n");
	if (bones > 1) put(t, "1 \"arm\" 0\n");
	put(t, "end\nskeleton\ntime 0\n0 0 0 0 0 0 0\n");
	if (bones > 1) put(t, "1 1 0 0 0 0 0\n");
	put(t, "end\ntriangles\n");
}

/* One unit square in the XZ plane, facing the front, on one bone. */
static smdmx_scene *unit_square(void)
{
	static const double sq[4][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 0, 1 }, { 0, 0, 1 } };
	text t = { .len = 0 };
	header(&t, 1);
	quad(&t, "skin", 0, sq, NULL);
	put(&t, "end\n");
	return read_text(&t);
}

/* ---- pictures --------------------------------------------------------------------------- */

static sm_image draw(const smdmx_scene *s, const sm_render_options *o)
{
	sm_image img;
	smdmx_error err;
	if (!sm_render(s, o, &img, NULL, &err)) fail_msg("render: %s", err.message);
	assert_png_as_stb(&img);
	return img;
}

static const uint8_t *px(const sm_image *img, uint32_t x, uint32_t y)
{
	return img->rgb + ((size_t)y * img->width + x) * 3;
}

static bool same_px(const uint8_t *a, const uint8_t *b)
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* A unit cube from the front, 100 pixels: 90 units to the model (its 1 x 1 face) centred,
 * so the pixels whose centres lie in [5, 95] on both axes, columns and rows 5 to 94, are the
 * front face's, all one colour (it faces the light), and every other pixel is background. */
static void test_cube_front_box(void **state)
{
	(void)state;
	static const double faces[6][4][3] = {
		{ { -.5, -.5, -.5 }, { .5, -.5, -.5 }, { .5, -.5, .5 }, { -.5, -.5, .5 } }, /* front, -Y */
		{ { -.5, .5, -.5 }, { -.5, .5, .5 }, { .5, .5, .5 }, { .5, .5, -.5 } },
		{ { -.5, -.5, -.5 }, { -.5, -.5, .5 }, { -.5, .5, .5 }, { -.5, .5, -.5 } },
		{ { .5, -.5, -.5 }, { .5, .5, -.5 }, { .5, .5, .5 }, { .5, -.5, .5 } },
		{ { -.5, -.5, .5 }, { .5, -.5, .5 }, { .5, .5, .5 }, { -.5, .5, .5 } },
		{ { -.5, -.5, -.5 }, { -.5, .5, -.5 }, { .5, .5, -.5 }, { .5, -.5, -.5 } },
	};
	text t = { .len = 0 };
	header(&t, 1);
	for (int f = 0; f < 6; f++) quad(&t, "cube", 0, faces[f], NULL);
	put(&t, "end\n");
	smdmx_scene *s = read_text(&t);
	sm_render_options o = { .view = SM_VIEW_FRONT, .size = 100 };
	sm_image img = draw(s, &o);
	assert_int_equal(img.width, 100);
	assert_int_equal(img.height, 100);
	const uint8_t *bg = px(&img, 0, 0), *face = px(&img, 5, 5);
	assert_false(same_px(bg, face));
	size_t inside = 0, outside = 0;
	for (uint32_t y = 0; y < 100; y++)
		for (uint32_t x = 0; x < 100; x++) {
			bool in = x >= 5 && x <= 94 && y >= 5 && y <= 94;
			if (!same_px(px(&img, x, y), in ? face : bg)) fail_msg("pixel %u,%u is not %s", x, y, in ? "the face" : "background");
			in ? inside++ : outside++;
		}
	assert_int_equal(inside, 90 * 90);
	/* from the three-quarter view: the front and the right face the viewer alike, the top less */
	o.view = SM_VIEW_THREE_QUARTER;
	sm_image q = draw(s, &o);
	size_t shades = 0;
	uint8_t seen[8][3];
	for (size_t i = 0; i < (size_t)q.width * q.height; i++) {
		const uint8_t *p = q.rgb + i * 3;
		size_t k = 0;
		while (k < shades && !same_px(seen[k], p)) k++;
		if (k == shades && shades < 8) memcpy(seen[shades++], p, 3);
	}
	assert_int_equal(shades, 3); /* background, front and right, top */
	sm_render_free(&img, NULL);
	sm_render_free(&q, NULL);
	smdmx_scene_free(s);
}

/* Two triangles' UVs, and the same with V flipped (v -> 1 - v): the UV picture of one is the
 * other's mirror image, top to bottom, pixel for pixel. */
static void uv_model(text *t, bool flip)
{
	static const double uv[2][3][2] = { { { 0.25, 0.125 }, { 0.75, 0.25 }, { 0.375, 0.875 } },
	                                    { { 0.5, 0.5 }, { 0.875, 0.625 }, { 0.625, 1.0 } } };
	header(t, 1);
	for (int k = 0; k < 2; k++) {
		put(t, "skin\n");
		for (int i = 0; i < 3; i++)
			put(t, "0 %d %d 0 0 -1 0 %.9g %.9g\n", i, k * 2 + (i == 2), uv[k][i][0], flip ? 1 - uv[k][i][1] : uv[k][i][1]);
	}
	put(t, "end\n");
}

static void test_uv_flip_mirrors(void **state)
{
	(void)state;
	text a = { .len = 0 }, b = { .len = 0 };
	uv_model(&a, false);
	uv_model(&b, true);
	smdmx_scene *sa = read_text(&a), *sb = read_text(&b);
	sm_render_options o = { .uv = true, .size = 160 };
	sm_image ia = draw(sa, &o), ib = draw(sb, &o);
	assert_int_equal(ia.width, 160);
	assert_int_equal(ib.height, 160);
	size_t differ = 0;
	for (uint32_t y = 0; y < 160; y++)
		for (uint32_t x = 0; x < 160; x++) {
			if (!same_px(px(&ia, x, y), px(&ib, x, 159 - y))) fail_msg("pixel %u,%u is not the mirror of %u,%u", x, y, x, 159 - y);
			differ += !same_px(px(&ia, x, y), px(&ib, x, y));
		}
	assert_true(differ > 1000); /* and the two are not alike: the layout is not symmetric */
	/* the unit square's corner: u 0, v 1 at the top left, 8 pixels in */
	const uint8_t *bg = px(&ia, 0, 0);
	assert_true(same_px(px(&ia, 7, 7), bg));
	assert_false(same_px(px(&ia, 8, 8), bg));
	sm_render_free(&ia, NULL);
	sm_render_free(&ib, NULL);
	smdmx_scene_free(sa);
	smdmx_scene_free(sb);
}

/* Two quads side by side; a shape moves the left one up by 0.25. From the front (64 pixels
 * a unit here), exactly the pixels of the left quad's old and new places change, and the
 * right quad's are untouched. */
static void test_shape_moves_its_pixels(void **state)
{
	(void)state;
	static const double left[4][3] = { { -2, 0, -0.5 }, { -1, 0, -0.5 }, { -1, 0, 0.5 }, { -2, 0, 0.5 } };
	static const double right[4][3] = { { 1, 0, -0.5 }, { 2, 0, -0.5 }, { 2, 0, 0.5 }, { 1, 0, 0.5 } };
	text t = { .len = 0 };
	header(&t, 1);
	quad(&t, "skin", 0, left, NULL);
	quad(&t, "skin", 0, right, NULL);
	put(&t, "end\n");
	smdmx_scene *s = read_text(&t);
	/* the VTA: base frame, then frame 1 with the left quad's four corners moved */
	text v = { .len = 0 };
	put(&v, "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\ntime 1\nend\nvertexanimation\ntime 0\n");
	const double(*q[2])[3] = { left, right };
	for (int k = 0; k < 8; k++) put(&v, "%d %.9g 0 %.9g 0 -1 0\n", k, q[k / 4][k % 4][0], q[k / 4][k % 4][2]);
	put(&v, "time 1\n");
	for (int k = 0; k < 4; k++) put(&v, "%d %.9g 0 %.9g 0 -1 0\n", k, left[k][0], left[k][2] + 0.25);
	put(&v, "end\n");
	smdmx_scene *vs = read_text(&v);
	smdmx_error err;
	TEST_WARNINGS(w);
	assert_true(smdmx_scene_attach_vta(s, vs, &err, &w));
	assert_int_equal(s->flex_shape_count, 1);
	sm_render_options o = { .view = SM_VIEW_FRONT, .size = 288 };
	sm_image base = draw(s, &o);
	o.shape = s->flex_shapes[0].name;
	sm_image moved = draw(s, &o);
	/* Both framed on what they show: 4 units across (x -2 to 2) fit 259.2 pixels, 64.8 a
	 * unit, x 0 at column 144; z 0 at row 144 at rest, and the shape's picture centred on
	 * its z -0.5 to 0.75, z 0.125 at row 144 (the left quad moved up 0.25). */
	size_t drawn[2] = { 0, 0 };
	for (int k = 0; k < 2; k++)
		for (uint32_t y = 0; y < 288; y++)
			for (uint32_t x = 0; x < 288; x++) {
				const sm_image *img = k ? &moved : &base;
				bool on = !same_px(px(img, x, y), px(img, 0, 0));
				double ux = (x + 0.5 - 144) / 64.8, uz = (k ? 0.125 : 0) + (144 - (y + 0.5)) / 64.8;
				double lift = k ? 0.25 : 0, near = 0.02; /* pixels on an edge may go either way */
				bool in_left = ux > -2 && ux < -1 && uz > -0.5 + lift && uz < 0.5 + lift;
				bool in_right = ux > 1 && ux < 2 && uz > -0.5 && uz < 0.5;
				bool edge = fabs(fabs(ux) - 1) < near || fabs(fabs(ux) - 2) < near || fabs(uz + 0.5) < near || fabs(uz - 0.5) < near ||
				            fabs(uz + 0.5 - lift) < near || fabs(uz - 0.5 - lift) < near;
				if (!edge && on != (in_left || in_right))
					fail_msg("%s, pixel %u,%u: %s", k ? "the shape" : "the base", x, y, on ? "drawn" : "not drawn");
				drawn[k] += on;
			}
	/* the quads as large, one of them higher: the same count but for a row of 65 pixels on
	 * an edge, which the fill rule gives to one side or the other */
	assert_true(drawn[0] > 2 * 64 * 64 && (drawn[0] > drawn[1] ? drawn[0] - drawn[1] : drawn[1] - drawn[0]) <= 65);
	/* the sheet of shapes is framed on what they move: the left quad, before and after (x -2
	 * to -1, z -0.5 to 0.75), fills 90 of 100 pixels across its 1.25 units' height, 72 a unit,
	 * and the right quad is out of the picture */
	sm_render_options sheet = { .view = SM_VIEW_FRONT, .size = 100, .shapes = true };
	sm_image sh = draw(s, &sheet);
	assert_int_equal(sh.width, 200);
	size_t across = 0;
	for (uint32_t x = 0; x < 100; x++) across += !same_px(px(&sh, x, 60), px(&sh, 99, 99));
	assert_int_equal(across, 72); /* x from 14 to 86: the quad, 1 unit */
	sm_render_free(&sh, NULL);
	sm_render_free(&base, NULL);
	sm_render_free(&moved, NULL);
	smdmx_scene_free(vs);
	smdmx_scene_free(s);
}

/* An arm: a quad on bone "arm" (at x 1), and a clip whose frame 1 turns the arm a quarter
 * turn about Y, so that the quad, lying along +X from x 1 to 2, stands along +Z from the elbow. Frame 0 is
 * the bind pose's picture, pixel for pixel; at frame 1 the quad has left its place for the
 * one above the elbow. */
static void test_pose_moves_skinned_mesh(void **state)
{
	(void)state;
	static const double arm[4][3] = { { 1, 0, -0.25 }, { 2, 0, -0.25 }, { 2, 0, 0.25 }, { 1, 0, 0.25 } };
	static const double body[4][3] = { { -2, 0, -1 }, { 0, 0, -1 }, { 0, 0, 1 }, { -2, 0, 1 } };
	text t = { .len = 0 };
	header(&t, 2);
	quad(&t, "skin", 1, arm, NULL);
	quad(&t, "body", 0, body, NULL);
	put(&t, "end\n");
	smdmx_scene *s = read_text(&t);
	text a = { .len = 0 };
	/* -pi/2 about Y takes +X to +Z */
	put(&a, "version 1\nnodes\n0 \"root\" -1\n1 \"arm\" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 1 0 0 0 0 0\n"
	        "time 1\n0 0 0 0 0 0 0\n1 1 0 0 0 -1.57079632679 0\nend\n");
	smdmx_error err;
	smdmx_smd_read_options ro = { .name = "wave" };
	smdmx_scene *anim = smdmx_smd_read_memory(a.buf, a.len, &ro, &err, NULL);
	assert_non_null(anim);
	assert_true(smdmx_scene_add_clips(s, anim, &err));
	sm_render_options o = { .view = SM_VIEW_FRONT, .size = 200 };
	sm_image bind = draw(s, &o);
	o.clip = "wave";
	o.frame = 0;
	sm_image f0 = draw(s, &o);
	assert_memory_equal(bind.rgb, f0.rgb, (size_t)200 * 200 * 3);
	o.frame = 1;
	sm_image f1 = draw(s, &o);
	/* bound: 4 units (x -2 to 2) in 180 pixels, 45 a unit, x 0 at column 100, z 0 at row 100 */
	const uint8_t *bg = px(&bind, 0, 0);
	uint32_t arm_x = (uint32_t)(100 + 1.5 * 45), arm_z = 100; /* the arm's middle, bound */
	uint32_t up_x = (uint32_t)(100 + 1.0 * 45), up_z = (uint32_t)(100 - 0.5 * 45); /* standing: x 0.75 to 1.25, z 0 to 1 */
	assert_false(same_px(px(&bind, arm_x, arm_z), bg));
	assert_true(same_px(px(&bind, up_x, up_z), bg));
	/* frame 1 is framed on what it shows: x -2 to 1.25 and z -1 to 1, 3.25 units in 180
	 * pixels about x -0.375, z 0 */
	double k = 180 / 3.25;
	uint32_t up1_x = (uint32_t)(100 + (1.0 + 0.375) * k), up1_z = (uint32_t)(100 - 0.5 * k);
	uint32_t flat1_x = (uint32_t)(100 + (1.15 + 0.375) * k), flat1_z = (uint32_t)(100 + 0.1 * k); /* where it lay, below */
	assert_false(same_px(px(&f1, up1_x, up1_z), bg));
	assert_true(same_px(px(&f1, flat1_x, flat1_z), bg));
	assert_true(same_px(px(&f1, up1_x, up1_z), px(&bind, arm_x, arm_z))); /* the same quad, the same shade */
	/* the body, on the root, stays: its middle (x -1, z 0) drawn in its colour */
	assert_true(same_px(px(&f1, (uint32_t)(100 + (-1 + 0.375) * k), 100), px(&bind, 55, 100)));
	sm_render_free(&bind, NULL);
	sm_render_free(&f0, NULL);
	sm_render_free(&f1, NULL);
	smdmx_scene_free(anim);
	smdmx_scene_free(s);
}

/* A sheet's cells are named at their top left, light on a dark strip: 'FRONT' begins with
 * the F's top row (three pixels of ink at 1,1 to 3,1), 'SIDE' with the S's (its first column
 * blank); a picture of one view carries no name. */
static void test_sheet_labels(void **state)
{
	(void)state;
	smdmx_scene *s = unit_square();
	static const uint8_t ink[3] = { 232, 234, 240 }, strip[3] = { 16, 18, 24 };
	sm_render_options o = { .view = SM_VIEW_ALL, .size = 64 };
	sm_image img = draw(s, &o);
	assert_true(same_px(px(&img, 0, 0), strip));
	for (uint32_t x = 1; x <= 3; x++) assert_true(same_px(px(&img, x, 1), ink));
	assert_true(same_px(px(&img, 4, 1), strip));
	assert_true(same_px(px(&img, 65, 1), strip));
	assert_true(same_px(px(&img, 66, 1), ink));
	o.view = SM_VIEW_FRONT;
	sm_image one = draw(s, &o);
	for (uint32_t i = 0; i < 64 * 64; i++) assert_false(same_px(one.rgb + i * 3, ink));
	sm_render_free(&img, NULL);
	sm_render_free(&one, NULL);
	smdmx_scene_free(s);
}

/* What cannot be drawn is an error that names what there is. */
static void test_errors(void **state)
{
	(void)state;
	smdmx_scene *s = unit_square();
	sm_image img;
	sm_render_layout l;
	smdmx_error err;
	sm_render_options o = { .shape = "smile" };
	assert_false(sm_render(s, &o, &img, &l, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "no flex shape named 'smile' (the model has 0)");
	o = (sm_render_options){ .clip = "run" };
	assert_false(sm_render(s, &o, &img, &l, &err));
	assert_string_equal(err.message, "no clip named 'run' (the model has 0)");
	o = (sm_render_options){ .shapes = true };
	assert_false(sm_render(s, &o, &img, &l, &err));
	assert_int_equal(err.code, SMDMX_ERROR_EMPTY);
	assert_string_equal(err.message, "no flex shapes to draw");
	o = (sm_render_options){ .size = 8 };
	assert_false(sm_render(s, &o, &img, &l, &err));
	assert_string_equal(err.message, "the size is 16 to 4096 pixels, not 8");
	o = (sm_render_options){ .view = SM_VIEW_ALL, .size = 4096 };
	assert_false(sm_render(s, &o, &img, &l, &err));
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_string_equal(err.message, "a picture of 2 x 2 views of 4096 pixels is 67108864 pixels, past the limit of "
	                                 "33554432: give a smaller --size");
	/* a sheet of all four views, and its layout */
	o = (sm_render_options){ .view = SM_VIEW_ALL, .size = 64 };
	assert_true(sm_render(s, &o, &img, &l, &err));
	assert_int_equal(img.width, 128);
	assert_int_equal(l.cells, 4);
	assert_string_equal(l.names[0], "front");
	assert_string_equal(l.names[3], "three-quarter");
	sm_render_free(&img, &l);
	smdmx_scene_free(s);
}

/* PNG bytes: the signature, the header's size, and the same bytes for the same picture. */
static void test_png(void **state)
{
	(void)state;
	sm_image img = { 3, 2, NULL };
	uint8_t rgb[18];
	for (int i = 0; i < 18; i++) rgb[i] = (uint8_t)(i * 14);
	img.rgb = rgb;
	uint8_t *a, *b;
	size_t na, nb;
	assert_true(sm_png_encode(&img, &a, &na));
	assert_true(sm_png_encode(&img, &b, &nb));
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	assert_memory_equal(a, sig, 8);
	assert_memory_equal(a + 12, "IHDR", 4);
	assert_int_equal(a[19], 3);  /* width */
	assert_int_equal(a[23], 2);  /* height */
	assert_int_equal(a[24], 8);  /* bits */
	assert_int_equal(a[25], 2);  /* RGB */
	free(a);
	free(b);
	/* stb_image_write's bytes, for every filter's choice: noise, runs of a colour with edges
	 * (as pictures are), gradients (where the average and Paeth filters win), rows as the one
	 * above, black and not; narrow and one row tall */
	static const uint32_t sizes[][2] = { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 2, 3 }, { 7, 5 }, { 33, 17 }, { 128, 96 } };
	uint32_t seed = 12345;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (int kind = 0; kind < 5; kind++) {
			sm_image m = { sizes[k][0], sizes[k][1], malloc((size_t)sizes[k][0] * sizes[k][1] * 3) };
			assert_non_null(m.rgb);
			for (uint32_t y = 0; y < m.height; y++)
				for (uint32_t x = 0; x < m.width; x++)
					for (int c = 0; c < 3; c++) {
						seed = seed * 1103515245u + 12345u;
						uint8_t v = kind == 0 ? (uint8_t)(seed >> 16)
						          : kind == 1 ? (uint8_t)((x / 5 + y / 3) % 3 * 90 + c)
						          : kind == 2 ? (uint8_t)(x * 7 + y * 3 + c * 50)
						          : kind == 3 ? (uint8_t)((x * x + y * 13) / (c + 1) + (seed >> 29))
						                      : (uint8_t)(y < m.height / 2 ? 0u : y < m.height * 3 / 4 ? 40u * (uint32_t)c : x);
						m.rgb[((size_t)y * m.width + x) * 3 + (size_t)c] = v;
					}
			assert_png_as_stb(&m);
			free(m.rgb);
		}
}

/* The corpus libraries' QCs that name their meshes through $body and $bodygroup only (no
 * $model), drawn as the model studiomdl builds (smdmx_qc_body_scene): every one whose files
 * are all there has polygons and covers at least 2% of a 128-pixel three-quarter view; one
 * whose part is missing fails naming it. Before, they were drawn as the bare skeleton of
 * their first animation, with no polygon. */
static void test_corpus_body_qcs(void **state)
{
	(void)state;
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/library", test_corpus_dir());
	char **qcs;
	size_t n, drawn = 0, missing = 0;
	smdmx_error err;
	if (!smdmx_project_files(dir, NULL, &qcs, &n, &err)) fail_msg("%s", err.message);
	for (size_t i = 0; i < n; i++) {
		smdmx_qc_read_options ro;
		memset(&ro, 0, sizeof(ro));
		ro.keep_going = true;
		smdmx_qc *qc = smdmx_qc_read_file(qcs[i], &ro, &err, NULL);
		if (!qc) fail_msg("%s: %s", qcs[i], err.message);
		bool bodies = qc->part_count > 0 && qc->model_count == 0;
		if (!bodies) {
			smdmx_qc_free(qc);
			continue;
		}
		smdmx_scene *s = smdmx_qc_body_scene(qc, NULL, NULL, &err, NULL);
		if (!s) {
			/* only a file that is not there (a library names files nobody shipped) */
			if (err.code != SMDMX_ERROR_IO || !strstr(err.message, "cannot find"))
				fail_msg("%s: %s", qcs[i], err.message);
			missing++;
			smdmx_qc_free(qc);
			continue;
		}
		size_t polygons = 0;
		for (size_t m = 0; m < s->mesh_count; m++)
			for (size_t f = 0; f < s->meshes[m].face_set_count; f++) polygons += s->meshes[m].face_sets[f].polygon_count;
		if (!polygons) fail_msg("%s: no polygon", qcs[i]);
		sm_render_options o = { .view = SM_VIEW_THREE_QUARTER, .size = 128 };
		sm_image img = draw(s, &o);
		size_t shaded = 0;
		for (uint32_t y = 0; y < img.height; y++)
			for (uint32_t x = 0; x < img.width; x++) shaded += !same_px(px(&img, x, y), px(&img, 0, 0));
		if (shaded * 50 < (size_t)img.width * img.height)
			fail_msg("%s: %zu of %u pixels shaded", qcs[i], shaded, img.width * img.height);
		sm_render_free(&img, NULL);
		smdmx_scene_free(s);
		smdmx_qc_free(qc);
		drawn++;
	}
	smdmx_project_files_free(qcs);
	print_message("QCs of $body and $bodygroup: %zu drawn as models, %zu naming a file that is not there\n", drawn, missing);
	assert_true(drawn >= 10);
}

/* A clip that walks far from where it starts: its later frames are framed on the posed mesh
 * (they were framed on the rest pose, and frame 300 of a walk was an empty picture), drawn
 * at the size the rest pose is. */
static void test_pose_framed_as_shown(void **state)
{
	(void)state;
	smdmx_scene *s = unit_square();
	text a = { .len = 0 };
	put(&a, "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\ntime 1\n0 100 0 40 0 0 0\nend\n");
	smdmx_error err;
	smdmx_smd_read_options ro = { .name = "walk" };
	smdmx_scene *anim = smdmx_smd_read_memory(a.buf, a.len, &ro, &err, NULL);
	assert_non_null(anim);
	assert_true(smdmx_scene_add_clips(s, anim, &err));
	sm_render_options o = { .view = SM_VIEW_FRONT, .size = 100 };
	sm_image rest = draw(s, &o);
	o.clip = "walk";
	o.frame = 1;
	sm_image far = draw(s, &o);
	size_t shown[2] = { 0, 0 };
	for (uint32_t y = 0; y < 100; y++)
		for (uint32_t x = 0; x < 100; x++) {
			shown[0] += !same_px(px(&rest, x, y), px(&rest, 0, 0));
			shown[1] += !same_px(px(&far, x, y), px(&far, 0, 0));
		}
	assert_true(shown[0] > 90 * 90 / 2);
	assert_int_equal(shown[1], shown[0]);
	sm_render_free(&rest, NULL);
	sm_render_free(&far, NULL);
	smdmx_scene_free(anim);
	smdmx_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cube_front_box),
		cmocka_unit_test(test_uv_flip_mirrors),
		cmocka_unit_test(test_shape_moves_its_pixels),
		cmocka_unit_test(test_pose_moves_skinned_mesh),
		cmocka_unit_test(test_pose_framed_as_shown),
		cmocka_unit_test(test_sheet_labels),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_png),
		cmocka_unit_test(test_corpus_body_qcs),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	printf("pictures whose PNG bytes are stb_image_write's: %zu\n", pngs_compared);
	return failed;
}
