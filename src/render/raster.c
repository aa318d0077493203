/* The rasteriser (raster.h): fixed-point edge functions, top-left fill rule. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "raster.h"

enum { SUB = 16 }; /* subpixel steps per pixel */
#define LIMIT 1048576.0 /* pixels: coordinates are clamped here, far past any cell */

static int64_t snap(float v)
{
	double d = v;
	if (!(d > -LIMIT)) d = -LIMIT; /* NaN too */
	if (d > LIMIT) d = LIMIT;
	return (int64_t)floor(d * SUB + 0.5);
}

static void put(const sm_cell *c, uint32_t x, uint32_t y, const uint8_t rgb[3])
{
	uint8_t *p = c->rgb + ((size_t)y * c->width + x) * 3;
	p[0] = rgb[0];
	p[1] = rgb[1];
	p[2] = rgb[2];
}

void sm_fill_cell(const sm_cell *c, const uint8_t rgb[3])
{
	for (uint32_t y = c->y0; y < c->y1; y++)
		for (uint32_t x = c->x0; x < c->x1; x++) put(c, x, y, rgb);
}

void sm_fill_dot(const sm_cell *c, const float p[2], int r, const uint8_t rgb[3])
{
	int64_t cx = snap(p[0]) >> 4, cy = snap(p[1]) >> 4;
	for (int64_t y = cy - r; y <= cy + r; y++)
		for (int64_t x = cx - r; x <= cx + r; x++)
			if (x >= c->x0 && x < c->x1 && y >= c->y0 && y < c->y1) put(c, (uint32_t)x, (uint32_t)y, rgb);
}

/* The edge function of a -> b at p, all in subpixels: > 0 on the inside of a triangle whose
 * vertices run a, b, then the third with a positive area. */
static int64_t edge(const int64_t a[2], const int64_t b[2], int64_t px, int64_t py)
{
	return (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]);
}

/* An edge owns the pixel centres on it when it runs down the picture, or along a row
 * leftwards: every edge two triangles share runs one way in one and the other in the other. */
static int64_t bias(const int64_t a[2], const int64_t b[2])
{
	int64_t dy = b[1] - a[1], dx = b[0] - a[0];
	return dy > 0 || (dy == 0 && dx < 0) ? 0 : -1;
}

void sm_fill_triangle(const sm_cell *c, float v[3][3], const uint8_t rgb[3])
{
	int64_t p[3][2];
	float z[3];
	for (int i = 0; i < 3; i++) {
		p[i][0] = snap(v[i][0]);
		p[i][1] = snap(v[i][1]);
		z[i] = v[i][2];
	}
	int64_t area = edge(p[0], p[1], p[2][0], p[2][1]);
	if (area == 0) return;
	if (area < 0) { /* both sides are drawn: run the other way round */
		int64_t t0 = p[1][0], t1 = p[1][1];
		float tz = z[1];
		p[1][0] = p[2][0], p[1][1] = p[2][1], z[1] = z[2];
		p[2][0] = t0, p[2][1] = t1, z[2] = tz;
		area = -area;
	}
	/* the pixels whose centres the bounding box can hold, within the cell */
	int64_t lo[2], hi[2];
	for (int k = 0; k < 2; k++) {
		int64_t mn = p[0][k], mx = p[0][k];
		for (int i = 1; i < 3; i++) {
			if (p[i][k] < mn) mn = p[i][k];
			if (p[i][k] > mx) mx = p[i][k];
		}
		/* centre of pixel n is n * SUB + SUB / 2 */
		lo[k] = (mn - SUB / 2 + SUB - 1) >> 4;
		hi[k] = (mx - SUB / 2) >> 4;
	}
	if (lo[0] < c->x0) lo[0] = c->x0;
	if (lo[1] < c->y0) lo[1] = c->y0;
	if (hi[0] > (int64_t)c->x1 - 1) hi[0] = (int64_t)c->x1 - 1;
	if (hi[1] > (int64_t)c->y1 - 1) hi[1] = (int64_t)c->y1 - 1;
	if (lo[0] > hi[0] || lo[1] > hi[1]) return;
	const int64_t *e[3][2] = { { p[1], p[2] }, { p[2], p[0] }, { p[0], p[1] } };
	int64_t b[3], sx[3], sy[3], row[3];
	int64_t cx = lo[0] * SUB + SUB / 2, cy = lo[1] * SUB + SUB / 2;
	for (int i = 0; i < 3; i++) {
		b[i] = bias(e[i][0], e[i][1]);
		sx[i] = -(e[i][1][1] - e[i][0][1]) * SUB;
		sy[i] = (e[i][1][0] - e[i][0][0]) * SUB;
		row[i] = edge(e[i][0], e[i][1], cx, cy);
	}
	double inv = 1.0 / (double)area;
	for (int64_t y = lo[1]; y <= hi[1]; y++) {
		int64_t w[3] = { row[0], row[1], row[2] };
		for (int64_t x = lo[0]; x <= hi[0]; x++) {
			if (w[0] + b[0] >= 0 && w[1] + b[1] >= 0 && w[2] + b[2] >= 0) {
				size_t at = (size_t)y * c->width + (size_t)x;
				float d = (float)(((double)w[0] * z[0] + (double)w[1] * z[1] + (double)w[2] * z[2]) * inv);
				if (!c->depth || d < c->depth[at]) {
					if (c->depth) c->depth[at] = d;
					put(c, (uint32_t)x, (uint32_t)y, rgb);
				}
			}
			for (int i = 0; i < 3; i++) w[i] += sx[i];
		}
		for (int i = 0; i < 3; i++) row[i] += sy[i];
	}
}

void sm_draw_line(const sm_cell *c, const float a[2], const float b[2], const uint8_t rgb[3])
{
	double ax = (double)snap(a[0]) / SUB, ay = (double)snap(a[1]) / SUB;
	double bx = (double)snap(b[0]) / SUB, by = (double)snap(b[1]) / SUB;
	bool steep = fabs(by - ay) > fabs(bx - ax);
	if (steep) { /* walk along y */
		double t = ax;
		ax = ay, ay = t;
		t = bx;
		bx = by, by = t;
	}
	if (ax > bx) {
		double t = ax;
		ax = bx, bx = t;
		t = ay;
		ay = by, by = t;
	}
	int64_t first = (int64_t)ceil(ax - 0.5), last = (int64_t)floor(bx - 0.5);
	if (first > last) { /* shorter than a pixel: its middle */
		first = last = (int64_t)floor((ax + bx) / 2);
	}
	int64_t lo = steep ? c->y0 : c->x0, hi = steep ? (int64_t)c->y1 - 1 : (int64_t)c->x1 - 1;
	if (first < lo) first = lo;
	if (last > hi) last = hi;
	double slope = bx > ax ? (by - ay) / (bx - ax) : 0;
	for (int64_t i = first; i <= last; i++) {
		double m = ay + ((double)i + 0.5 - ax) * slope;
		int64_t j = (int64_t)floor(m);
		/* on the border of two pixels, both: a line and its mirror image light mirrored pixels */
		for (int64_t k = m == (double)j ? j - 1 : j; k <= j; k++) {
			int64_t x = steep ? k : i, y = steep ? i : k;
			if (x >= c->x0 && x < c->x1 && y >= c->y0 && y < c->y1) put(c, (uint32_t)x, (uint32_t)y, rgb);
		}
	}
}
