/* Labels on the cells of a sheet (raster.h): a 3 x 5 pixel font of smdmx's own, capitals,
 * digits and the marks names use, scaled whole. Letters are drawn as capitals; a character
 * the font lacks is a small box. */
#include <stddef.h>

#include "raster.h"

/* Rows top to bottom, three bits each, the left column the highest: row 0 in bits 14-12. */
#define G(a, b, c, d, e) (uint16_t)((0##a << 12) | (0##b << 9) | (0##c << 6) | (0##d << 3) | 0##e)
static uint16_t glyph(char ch)
{
	/* the octal digits above are the rows' bits: 5 is 101, 7 is 111, 2 is 010 */
	static const uint16_t letters[26] = {
		G(2, 5, 7, 5, 5), G(6, 5, 6, 5, 6), G(3, 4, 4, 4, 3), G(6, 5, 5, 5, 6), G(7, 4, 6, 4, 7), G(7, 4, 6, 4, 4),
		G(3, 4, 5, 5, 3), G(5, 5, 7, 5, 5), G(7, 2, 2, 2, 7), G(1, 1, 1, 5, 2), G(5, 5, 6, 5, 5), G(4, 4, 4, 4, 7),
		G(5, 7, 7, 5, 5), G(6, 5, 5, 5, 5), G(2, 5, 5, 5, 2), G(6, 5, 6, 4, 4), G(2, 5, 5, 6, 3), G(6, 5, 6, 5, 5),
		G(3, 4, 2, 1, 6), G(7, 2, 2, 2, 2), G(5, 5, 5, 5, 7), G(5, 5, 5, 5, 2), G(5, 5, 7, 7, 5), G(5, 5, 2, 5, 5),
		G(5, 5, 2, 2, 2), G(7, 1, 2, 4, 7),
	};
	static const uint16_t digits[10] = {
		G(7, 5, 5, 5, 7), G(2, 6, 2, 2, 7), G(6, 1, 2, 4, 7), G(6, 1, 2, 1, 6), G(5, 5, 7, 1, 1),
		G(7, 4, 6, 1, 6), G(3, 4, 7, 5, 7), G(7, 1, 2, 2, 2), G(7, 5, 7, 5, 7), G(7, 5, 7, 1, 6),
	};
	if (ch >= 'a' && ch <= 'z') return letters[ch - 'a'];
	if (ch >= 'A' && ch <= 'Z') return letters[ch - 'A'];
	if (ch >= '0' && ch <= '9') return digits[ch - '0'];
	switch (ch) {
	case ' ': return 0;
	case '_': return G(0, 0, 0, 0, 7);
	case '-': return G(0, 0, 7, 0, 0);
	case '.': return G(0, 0, 0, 0, 2);
	case ':': return G(0, 2, 0, 2, 0);
	case '(': return G(1, 2, 2, 2, 1);
	case ')': return G(4, 2, 2, 2, 4);
	case '/': return G(1, 1, 2, 4, 4);
	case '$': return G(3, 6, 2, 3, 6);
	default: return G(0, 7, 5, 7, 0);
	}
}
#undef G

static void block(const sm_cell *c, int64_t x, int64_t y, uint32_t w, uint32_t h, const uint8_t rgb[3])
{
	for (int64_t j = y; j < y + h; j++)
		for (int64_t i = x; i < x + w; i++)
			if (i >= c->x0 && i < c->x1 && j >= c->y0 && j < c->y1) {
				uint8_t *p = c->rgb + ((size_t)j * c->width + (size_t)i) * 3;
				p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2];
			}
}

void sm_draw_label(const sm_cell *c, const char *text, uint32_t scale)
{
	static const uint8_t back[3] = { 16, 18, 24 }, ink[3] = { 232, 234, 240 };
	size_t n = 0;
	uint32_t room = c->x1 - c->x0;
	/* as many characters as fit: 4 columns each, a margin of one on each side */
	while (text[n] && (n + 1) * 4 * scale + 2 * scale <= room) n++;
	if (!n) return;
	int64_t x = c->x0, y = c->y0;
	block(c, x, y, (uint32_t)(n * 4 + 1) * scale + scale, 7 * scale, back);
	for (size_t k = 0; k < n; k++) {
		uint16_t g = glyph(text[k]);
		for (int row = 0; row < 5; row++)
			for (int col = 0; col < 3; col++)
				if (g >> (14 - row * 3 - col) & 1)
					block(c, x + (int64_t)(scale + (k * 4 + (size_t)col) * scale), y + (int64_t)(scale + (uint32_t)row * scale), scale,
					      scale, ink);
	}
}
