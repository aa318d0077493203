/* PNG bytes of a picture (decision 17): 8-bit RGB, no metadata, one IDAT chunk holding
 * deflate.c's zlib stream of the filtered rows. Each row takes the filter of the five whose
 * bytes, read as signed, have the least sum of magnitudes (the first such): stb_image_write's
 * rule and layout, so that these are the bytes it writes (test_render compares the two on
 * every picture it draws). stb filtered a row five times in loops of a switch a byte, summed
 * each in another pass and filtered the chosen one again: 40% of a report's time. Here each
 * filter is one loop that writes and sums (vectorised), the best kept as it is found, and a
 * row as the one above (a background) is known without a filter tried. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

enum { CHANNELS = 3 };

/* PNG's Paeth predictor of a byte from its left (a), upper (b) and upper-left (c) neighbours,
 * ties broken a, then b (RFC 2083, 6.6); written without branches, so that a loop of them is
 * vectorised. */
static inline int paeth(int a, int b, int c)
{
	int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
	int bc = pb <= pc ? b : c;
	return pa <= pb && pa <= pc ? a : bc;
}

/* |u| of a filtered byte read as signed: the lesser of u and -u, as bytes (128 is 128) */
static inline uint8_t magnitude(uint8_t u)
{
	uint8_t minus = (uint8_t)(0u - u);
	return u < minus ? u : minus;
}

/* The row z through filter f (0 none, 1 sub, 2 up, 3 average, 4 Paeth) into out, up the row
 * above (zeros above the first row; left of the first pixel every byte is 0 too); returns
 * the sum of the filtered bytes' magnitudes. Each filter a loop of its own, the first pixel
 * apart: loops without branches, which a compiler vectorises. */
static uint32_t filter_row(uint8_t *restrict out, const uint8_t *restrict z, const uint8_t *restrict up, size_t w, int f)
{
	size_t n = w < CHANNELS ? w : CHANNELS, i;
	uint32_t sum = 0;
	switch (f) {
	case 0:
		for (i = 0; i < w; i++) sum += magnitude(out[i] = z[i]);
		break;
	case 1:
		for (i = 0; i < n; i++) sum += magnitude(out[i] = z[i]);
		for (; i < w; i++) sum += magnitude(out[i] = (uint8_t)(z[i] - z[i - CHANNELS]));
		break;
	case 2:
		for (i = 0; i < w; i++) sum += magnitude(out[i] = (uint8_t)(z[i] - up[i]));
		break;
	case 3:
		for (i = 0; i < n; i++) sum += magnitude(out[i] = (uint8_t)(z[i] - (up[i] >> 1)));
		for (; i < w; i++) sum += magnitude(out[i] = (uint8_t)(z[i] - ((z[i - CHANNELS] + up[i]) >> 1)));
		break;
	default:
		for (i = 0; i < n; i++) sum += magnitude(out[i] = (uint8_t)(z[i] - up[i]));
		for (; i < w; i++) sum += magnitude(out[i] = (uint8_t)(z[i] - paeth(z[i - CHANNELS], up[i], up[i - CHANNELS])));
		break;
	}
	return sum;
}

/* The filter whose bytes of the row sum least in magnitude (the first such), its bytes
 * written into out; line is room for a row. */
static int best_filter(uint8_t *restrict out, uint8_t *restrict line, const uint8_t *z, const uint8_t *up, size_t w)
{
	uint32_t best_sum = UINT32_MAX;
	int best = 0;
	for (int f = 0; f < 5; f++) {
		uint32_t sum = filter_row(f == 0 ? out : line, z, up, w, f);
		if (sum < best_sum) {
			best_sum = sum, best = f;
			if (f) memcpy(out, line, w);
		}
	}
	return best;
}

static uint8_t *put32(uint8_t *o, uint32_t v)
{
	o[0] = (uint8_t)(v >> 24), o[1] = (uint8_t)(v >> 16), o[2] = (uint8_t)(v >> 8), o[3] = (uint8_t)v;
	return o + 4;
}

/* A chunk's CRC-32 (ISO 3309, as PNG asks) over its type and data, which end at o, put there. */
static uint8_t *put_crc(uint8_t *o, size_t data_size, const uint32_t table[256])
{
	uint32_t crc = 0xffffffffu;
	for (const uint8_t *p = o - data_size - 4; p < o; p++) crc = table[(crc ^ *p) & 0xff] ^ (crc >> 8);
	return put32(o, ~crc);
}

bool sm_png_encode(const sm_image *img, uint8_t **data, size_t *size)
{
	*data = NULL, *size = 0;
	size_t w = (size_t)img->width * CHANNELS, h = img->height;
	/* the filtered rows go to the compressor as an int's worth of bytes */
	if (img->width > INT_MAX / CHANNELS || h > INT_MAX || (h && w + 1 > (size_t)INT_MAX / h)) return false;
	uint8_t *filtered = malloc((w + 1) * h + 1), *zeros = calloc(w + 1, 1), *line = malloc(w + 1);
	if (!filtered || !zeros || !line) {
		free(filtered);
		free(zeros);
		free(line);
		return false;
	}
	for (size_t y = 0; y < h; y++) {
		const uint8_t *z = img->rgb + y * w, *up = y ? z - w : zeros;
		uint8_t *row = filtered + y * (w + 1);
		if (y && w && !memcmp(z, up, w)) {
			/* a row as the one above (a picture's background): up filters it to zeros, and
			 * only a black row has none and sub sum to 0 as well (the first wins) */
			row[0] = (uint8_t)(z[0] == 0 && !memcmp(z, z + 1, w - 1) ? 0 : 2);
			memset(row + 1, 0, w);
			continue;
		}
		row[0] = (uint8_t)best_filter(row + 1, line, z, up, w);
	}
	free(zeros);
	free(line);
	int zlen = 0;
	uint8_t *zlib = sm_deflate(filtered, (int)((w + 1) * h), &zlen, 8);
	free(filtered);
	if (!zlib) return false;
	size_t total = 8 + (12 + 13) + (12 + (size_t)zlen) + 12;
	uint8_t *out = malloc(total);
	if (!out) {
		free(zlib);
		return false;
	}
	uint32_t table[256];
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[n] = c;
	}
	static const uint8_t signature[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
	uint8_t *o = out;
	memcpy(o, signature, 8);
	o = put32(o + 8, 13);
	memcpy(o, "IHDR", 4);
	o = put32(o + 4, img->width);
	o = put32(o, img->height);
	/* 8 bits a sample, truecolour (2), deflate, the adaptive filters, no interlace */
	o[0] = 8, o[1] = 2, o[2] = 0, o[3] = 0, o[4] = 0;
	o = put_crc(o + 5, 13, table);
	o = put32(o, (uint32_t)zlen);
	memcpy(o, "IDAT", 4);
	memcpy(o + 4, zlib, (size_t)zlen);
	o = put_crc(o + 4 + zlen, (size_t)zlen, table);
	free(zlib);
	o = put32(o, 0);
	memcpy(o, "IEND", 4);
	o = put_crc(o + 4, 0, table);
	*data = out, *size = (size_t)(o - out);
	return true;
}
