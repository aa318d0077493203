/* PNG bytes of a picture, by stb_image_write (Debian's libstb-dev; decision 17): its own
 * deflate, so that one picture is the same bytes on every system. The implementation is
 * compiled here, without its stdio half, through smdmx's allocation. */
#include <stdlib.h>

#include "render.h"

#define STBI_WRITE_NO_STDIO
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_ZLIB_COMPRESS sm_deflate /* deflate.c: stb's search was most of a report's time */
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

typedef struct buffer {
	uint8_t *data;
	size_t size, cap;
	bool failed;
} buffer;

static void append(void *user, void *data, int size)
{
	buffer *b = user;
	if (b->failed || size <= 0) return;
	if (b->size + (size_t)size > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->size + (size_t)size) cap *= 2;
		uint8_t *g = realloc(b->data, cap);
		if (!g) {
			b->failed = true;
			return;
		}
		b->data = g, b->cap = cap;
	}
	memcpy(b->data + b->size, data, (size_t)size);
	b->size += (size_t)size;
}

bool sm_png_encode(const sm_image *img, uint8_t **data, size_t *size)
{
	buffer b = { 0 };
	*data = NULL, *size = 0;
	if (img->width > 0x7fffffff / 3 || img->height > 0x7fffffff) return false;
	int ok = stbi_write_png_to_func(append, &b, (int)img->width, (int)img->height, 3, img->rgb, (int)(img->width * 3));
	if (!ok || b.failed) {
		free(b.data);
		return false;
	}
	*data = b.data, *size = b.size;
	return true;
}
