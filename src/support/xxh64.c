/* XXH64, from its specification (xxh64.h): 32-byte stripes into four accumulators, then the
 * length, the bytes left over and a final mixing. Every word read little-endian, byte by byte,
 * so that any machine gives the same hash. */
#include <string.h>

#include "support/xxh64.h"

#define P1 0x9E3779B185EBCA87u
#define P2 0xC2B2AE3D27D4EB4Fu
#define P3 0x165667B19E3779F9u
#define P4 0x85EBCA77C2B2AE63u
#define P5 0x27D4EB2F165667C5u

static uint64_t rotl(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t read64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	       (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static uint32_t read32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t round64(uint64_t acc, uint64_t lane)
{
	acc += lane * P2;
	return rotl(acc, 31) * P1;
}

static uint64_t merge(uint64_t acc, uint64_t v)
{
	acc ^= round64(0, v);
	return acc * P1 + P4;
}

/* whole stripes of p into v; returns the bytes taken (a multiple of 32) */
static size_t stripes(uint64_t v[4], const uint8_t *p, size_t n)
{
	uint64_t a = v[0], b = v[1], c = v[2], d = v[3];
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		a = round64(a, read64(p + i));
		b = round64(b, read64(p + i + 8));
		c = round64(c, read64(p + i + 16));
		d = round64(d, read64(p + i + 24));
	}
	v[0] = a;
	v[1] = b;
	v[2] = c;
	v[3] = d;
	return i;
}

void sm_xxh64_init(sm_xxh64_ctx *s, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->seed = seed;
	s->v[0] = seed + P1 + P2;
	s->v[1] = seed + P2;
	s->v[2] = seed;
	s->v[3] = seed - P1;
}

void sm_xxh64_update(sm_xxh64_ctx *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	s->bytes += n;
	if (s->used) {
		size_t take = 32 - s->used < n ? 32 - s->used : n;
		memcpy(s->stripe + s->used, p, take);
		s->used += take;
		p += take;
		n -= take;
		if (s->used < 32) return;
		stripes(s->v, s->stripe, 32);
		s->used = 0;
	}
	size_t done = stripes(s->v, p, n);
	memcpy(s->stripe, p + done, n - done);
	s->used = n - done;
}

uint64_t sm_xxh64_final(const sm_xxh64_ctx *s)
{
	uint64_t h;
	if (s->bytes >= 32) {
		const uint64_t *v = s->v;
		h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
		for (int i = 0; i < 4; i++) h = merge(h, v[i]);
	} else {
		h = s->seed + P5;
	}
	h += s->bytes;
	const uint8_t *p = s->stripe;
	size_t n = s->used;
	for (; n >= 8; p += 8, n -= 8) h = rotl(h ^ round64(0, read64(p)), 27) * P1 + P4;
	if (n >= 4) {
		h = rotl(h ^ (uint64_t)read32(p) * P1, 23) * P2 + P3;
		p += 4;
		n -= 4;
	}
	for (; n > 0; p++, n--) h = rotl(h ^ *p * P5, 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

uint64_t sm_xxh64(const void *data, size_t n, uint64_t seed)
{
	sm_xxh64_ctx s;
	sm_xxh64_init(&s, seed);
	sm_xxh64_update(&s, data, n);
	return sm_xxh64_final(&s);
}
