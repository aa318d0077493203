/* The rasteriser: triangles over a depth buffer and lines, into one cell of a picture.
 *
 * Rules (exact, the same on every system): a vertex is snapped to 1/16 pixel; a pixel is
 * covered when its centre is inside the triangle, or on an edge the triangle owns (the
 * top-left rule: of two triangles that share an edge, exactly one draws its pixels); depth is
 * interpolated at the centre, and a pixel is drawn when it is nearer than what is there (a
 * tie keeps the first). A line lights, at each pixel centre along its longer axis between its
 * ends, the pixel it crosses that row or column in (both pixels where it crosses on their
 * border), so that the mirror image of a line lights the mirror image of its pixels. */
#ifndef SM_RASTER_H
#define SM_RASTER_H

#include <stdint.h>

/* A cell of a picture: pixels x0 <= x < x1, y0 <= y < y1 of an image width pixels wide.
 * depth: one float per pixel of the image (smaller is nearer), or NULL for no depth test. */
typedef struct sm_cell {
	uint8_t *rgb;
	float *depth;
	uint32_t width;
	uint32_t x0, y0, x1, y1;
} sm_cell;

/* v: three vertices, x and y in pixels of the image (y down), z depth. */
void sm_fill_triangle(const sm_cell *c, float v[3][3], const uint8_t rgb[3]);
/* A line from a to b (pixels of the image), drawn over everything. */
void sm_draw_line(const sm_cell *c, const float a[2], const float b[2], const uint8_t rgb[3]);
/* Every pixel of the cell, or of the square of side 2 * r + 1 around (x, y) within it. */
void sm_fill_cell(const sm_cell *c, const uint8_t rgb[3]);
void sm_fill_dot(const sm_cell *c, const float p[2], int r, const uint8_t rgb[3]);
/* text at the cell's top left, light on a dark strip, in a 3 x 5 font scaled by scale (label.c);
 * cut to the cell's width */
void sm_draw_label(const sm_cell *c, const char *text, uint32_t scale);

#endif
