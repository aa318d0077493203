/* SHA-1 (FIPS 180-4), only for name-based element ids (RFC 4122 version 5 UUIDs). */
#include <string.h>

#include "support/sha1.h"

static uint32_t rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void sha1_block(sm_sha1_ctx *s, const uint8_t *b)
{
	uint32_t w[80];
	for (int i = 0; i < 16; i++) w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 | (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	for (int i = 16; i < 80; i++) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	uint32_t a = s->h[0], bb = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20) f = (bb & c) | (~bb & d), k = 0x5A827999u;
		else if (i < 40) f = bb ^ c ^ d, k = 0x6ED9EBA1u;
		else if (i < 60) f = (bb & c) | (bb & d) | (c & d), k = 0x8F1BBCDCu;
		else f = bb ^ c ^ d, k = 0xCA62C1D6u;
		uint32_t t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol(bb, 30);
		bb = a;
		a = t;
	}
	s->h[0] += a;
	s->h[1] += bb;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
}

void sm_sha1_init(sm_sha1_ctx *s)
{
	static const uint32_t h0[5] = { 0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u };
	memcpy(s->h, h0, sizeof(h0));
	s->used = 0;
	s->bytes = 0;
}

void sm_sha1_update(sm_sha1_ctx *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	s->bytes += n;
	while (n) {
		size_t k = 64 - s->used < n ? 64 - s->used : n;
		memcpy(s->block + s->used, p, k);
		s->used += k;
		p += k;
		n -= k;
		if (s->used == 64) {
			sha1_block(s, s->block);
			s->used = 0;
		}
	}
}

void sm_sha1_final(sm_sha1_ctx *s, uint8_t out[20])
{
	uint64_t bits = s->bytes * 8;
	uint8_t pad = 0x80;
	sm_sha1_update(s, &pad, 1);
	pad = 0;
	while (s->used != 56) sm_sha1_update(s, &pad, 1);
	uint8_t len[8];
	for (int i = 0; i < 8; i++) len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sm_sha1_update(s, len, 8);
	for (int i = 0; i < 5; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

void sm_sha1(const void *data, size_t n, uint8_t out[20])
{
	sm_sha1_ctx s;
	sm_sha1_init(&s);
	sm_sha1_update(&s, data, n);
	sm_sha1_final(&s, out);
}
