/* A fast zlib stream for the PNG writer (png.c): one deflate block of fixed Huffman codes
 * (RFC 1951, 3.2.6), matches found by a hash of three bytes with one candidate each, no
 * lazy matching. A rendered picture is mostly runs of one colour, which PNG's filters turn
 * into runs of zeros: they compress nearly as well as with stb's search, at a fraction of
 * its time (it was three quarters of a report's time). The bytes depend on the input only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

enum { HASH_BITS = 15, WINDOW = 32768, MIN_MATCH = 3, MAX_MATCH = 258 };

typedef struct bits {
	uint8_t *out;
	size_t n;
	uint32_t buf;
	int count;
} bits;

static void put(bits *b, uint32_t value, int count)
{
	b->buf |= value << b->count;
	b->count += count;
	while (b->count >= 8) {
		b->out[b->n++] = (uint8_t)b->buf;
		b->buf >>= 8;
		b->count -= 8;
	}
}

/* A Huffman code, sent from its first bit (the stream packs bits from the lowest). */
static void put_code(bits *b, uint32_t code, int count)
{
	uint32_t r = 0;
	for (int i = 0; i < count; i++) r |= ((code >> i) & 1u) << (count - 1 - i);
	put(b, r, count);
}

/* The fixed code of each symbol 0 to 287, bits reversed as they are sent, and its length. */
typedef struct fixed_code {
	uint16_t bits[288];
	uint8_t length[288];
} fixed_code;

static void fixed_code_init(fixed_code *f)
{
	for (int s = 0; s < 288; s++) {
		uint32_t code = s <= 143 ? 0x30u + (uint32_t)s : s <= 255 ? 0x190u + (uint32_t)(s - 144) : s <= 279 ? (uint32_t)(s - 256) : 0xc0u + (uint32_t)(s - 280);
		int n = s <= 143 ? 8 : s <= 255 ? 9 : s <= 279 ? 7 : 8;
		uint32_t r = 0;
		for (int i = 0; i < n; i++) r |= ((code >> i) & 1u) << (n - 1 - i);
		f->bits[s] = (uint16_t)r;
		f->length[s] = (uint8_t)n;
	}
}

static void put_symbol(bits *b, const fixed_code *f, int s)
{
	put(b, f->bits[s], f->length[s]);
}

static const uint16_t length_base[29] = { 3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
	                                  31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t length_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
	                                193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

static void put_match(bits *b, const fixed_code *f, int length, int distance)
{
	int l = 28;
	while (length_base[l] > length) l--;
	put_symbol(b, f, 257 + l);
	put(b, (uint32_t)(length - length_base[l]), length_extra[l]);
	int d = 29;
	while (dist_base[d] > distance) d--;
	put_code(b, (uint32_t)d, 5);
	put(b, (uint32_t)(distance - dist_base[d]), dist_extra[d]);
}

static uint32_t hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
	return (v * 2654435761u) >> (32 - HASH_BITS);
}

unsigned char *sm_deflate(unsigned char *data, int data_len, int *out_len, int quality)
{
	(void)quality;
	size_t len = data_len > 0 ? (size_t)data_len : 0;
	/* at most 9 bits a byte as literals, the headers and the check */
	bits b = { malloc(len + len / 8 + 64), 0, 0, 0 };
	int32_t *head = malloc(sizeof(int32_t) << HASH_BITS);
	if (!b.out || !head) {
		free(b.out);
		free(head);
		return NULL;
	}
	memset(head, 0xff, sizeof(int32_t) << HASH_BITS);
	fixed_code f;
	fixed_code_init(&f);
	b.out[b.n++] = 0x78; /* deflate, 32 KB window */
	b.out[b.n++] = 0x01; /* the fastest; (0x78 << 8 | 0x01) % 31 == 0 */
	put(&b, 1, 1);       /* the final block */
	put(&b, 1, 2);       /* of fixed codes */
	size_t i = 0;
	while (i < len) {
		int best = 0;
		size_t from = 0;
		if (i + MIN_MATCH <= len) {
			uint32_t h = hash3(data + i);
			int32_t c = head[h];
			head[h] = (int32_t)i;
			if (c >= 0 && i - (size_t)c <= WINDOW) {
				size_t most = len - i < MAX_MATCH ? len - i : MAX_MATCH, n = 0;
				while (n < most && data[(size_t)c + n] == data[i + n]) n++;
				if (n >= MIN_MATCH) best = (int)n, from = (size_t)c;
			}
		}
		if (!best) {
			put_symbol(&b, &f, data[i++]);
			continue;
		}
		put_match(&b, &f, best, (int)(i - from));
		/* the positions a short match covers go into the hash, so that later text finds
		 * them; of a long one (a run) its last few, which a run after it finds as well */
		size_t k = best < 32 ? i + 1 : i + (size_t)best - 4;
		for (; k < i + (size_t)best && k + MIN_MATCH <= len; k++) head[hash3(data + k)] = (int32_t)k;
		i += (size_t)best;
	}
	put_symbol(&b, &f, 256); /* the block's end */
	if (b.count) put(&b, 0, 8 - b.count);
	uint32_t s1 = 1, s2 = 0;
	for (size_t k = 0; k < len;) { /* Adler-32, reduced every 5,552 bytes (before s2 can pass 2^32) */
		size_t end = len - k > 5552 ? k + 5552 : len;
		for (; k < end; k++) {
			s1 += data[k];
			s2 += s1;
		}
		s1 %= 65521u;
		s2 %= 65521u;
	}
	uint32_t adler = s2 << 16 | s1;
	for (int k = 3; k >= 0; k--) b.out[b.n++] = (uint8_t)(adler >> (8 * k));
	free(head);
	*out_len = (int)b.n;
	return b.out;
}
