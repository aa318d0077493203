/* Pictures of a scene, drawn on the CPU: shaded triangles lit from the viewer over a depth
 * buffer, each material in its own colour, in fixed views (decision 17); the skeleton over
 * the mesh, a flex shape applied, a frame of a clip skinned by the weights, the UV layout of
 * each material; and the picture as PNG bytes.
 *
 * The same scene and options give the same pixels on every system: the views are fixed
 * matrices, the rasteriser works in fixed point with a top-left fill rule, and nothing in
 * the result goes through the C library's trigonometry. */
#ifndef SM_RENDER_H
#define SM_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smdmx/smdmx.h"

#if defined(__MINGW32__)
#define RD_NODISCARD __attribute__((warn_unused_result))
#define RD_PRINTF(f, a) __attribute__((format(gnu_printf, f, a))) /* mingw's C99 printf */
#elif defined(__GNUC__)
#define RD_NODISCARD __attribute__((warn_unused_result))
#define RD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define RD_NODISCARD
#define RD_PRINTF(f, a)
#endif

/* The views, in the order --views all lays them out (left to right, top to bottom). A model
 * source faces -Y (Valve's SDK characters do; studiomdl turns them to face +X), Z up. */
typedef enum sm_view {
	SM_VIEW_FRONT = 0,     /* from -Y: +X to the right, Z up */
	SM_VIEW_SIDE,          /* from -X (the model's right): its front (-Y) to the right, Z up */
	SM_VIEW_TOP,           /* from +Z: +X to the right, +Y up (the front down) */
	SM_VIEW_THREE_QUARTER, /* from between the front and the right, 30 degrees above the ground */
	SM_VIEW_COUNT,
	SM_VIEW_ALL = SM_VIEW_COUNT
} sm_view;

/* Names of the views as --views takes them, and the view of a name (SM_VIEW_COUNT + 1: none). */
const char *sm_view_name(sm_view v);
sm_view sm_view_find(const char *name);

/* A picture: 8-bit RGB, rows top to bottom, width * 3 bytes each. */
typedef struct sm_image {
	uint32_t width, height;
	uint8_t *rgb;
} sm_image;

typedef struct sm_render_options {
	sm_view view;         /* one view, or SM_VIEW_ALL: the four in a 2 x 2 sheet */
	uint32_t size;        /* pixels of one view's square; 0: 512 */
	bool skeleton;        /* bones as lines over the mesh */
	const char *shape;    /* the mesh with this flex shape applied at weight 1, or NULL */
	bool shapes;          /* a sheet: the base mesh, then each shape */
	const char *clip;     /* the mesh posed by this clip, or NULL (the bind pose) */
	int64_t frame;        /* the clip's frame, counted from its first */
	bool uv;              /* the UV layout of each material instead of the mesh */
	/* Another scene whose rest pose the frame takes in too, or NULL: two pictures drawn each
	 * with the other share one frame and compare pixel by pixel (a report's two sides). */
	const smdmx_scene *frame_with;
} sm_render_options;

/* Limits: a view is 16 to 4096 pixels square; a picture holds at most 2^25 pixels. */
#define SM_RENDER_MIN_SIZE 16u
#define SM_RENDER_MAX_SIZE 4096u
#define SM_RENDER_MAX_PIXELS ((uint64_t)1 << 25)

/* What a picture is made of: how many cells it has, and what each shows ("front", a shape's
 * name, a material's name), for a legend. names[i] points into the scene or is static. */
typedef struct sm_render_layout {
	uint32_t columns, rows, cells;
	const char **names;
	uint32_t empty;       /* cells in which nothing but the background was drawn */
} sm_render_layout;

/* Draws the scene (it must be valid: smdmx_scene_validate). Fails with SMDMX_ERROR_USAGE on
 * a shape or clip it does not have or a frame outside the clip (the message names what it
 * has), SMDMX_ERROR_EMPTY when there is nothing to draw (no polygons, no joints; with --uv
 * no UVs), SMDMX_ERROR_LIMIT past the limits above. The image and layout->names are
 * malloc'd (sm_render_free). layout may be NULL. */
RD_NODISCARD bool sm_render(const smdmx_scene *s, const sm_render_options *o, sm_image *out,
                            sm_render_layout *layout, smdmx_error *error);
void sm_render_free(sm_image *img, sm_render_layout *layout);

/* Fills error (when its code is still none) and returns false. */
bool sm_render_fail(smdmx_error *error, smdmx_error_code code, const char *fmt, ...) RD_PRINTF(3, 4);

/* The picture as PNG bytes (8-bit RGB, no metadata; the same bytes on every system), into
 * *data (malloc'd) and *size. Fails only when out of memory. */
RD_NODISCARD bool sm_png_encode(const sm_image *img, uint8_t **data, size_t *size);

/* zlib bytes of data (a PNG's IDAT), malloc'd, with the arguments of stb_image_write's
 * compressor (deflate.c; png.c calls it, and the renderer's test through stb_image_write);
 * NULL when memory ran out. */
unsigned char *sm_deflate(unsigned char *data, int data_len, int *out_len, int quality);

#endif
