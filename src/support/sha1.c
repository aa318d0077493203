/* SHA-1 (FIPS 180-4), only for name-based element ids (RFC 4122 version 5 UUIDs).
 *
 * An element id is the digest of a short description (its parent's id, an attribute name, an
 * index, a type and a name: one or two 64-byte blocks), and a model of a few hundred bones and
 * flex shapes makes thousands: over a library of small files the hash was a fifth of
 * smd2dmx's time. So the blocks go to the processor's own SHA-1 instructions where it has
 * them (x86's SHA extensions, asked of CPUID once), else to a portable compression that keeps
 * the schedule in 16 words; the padding is written at once. Both give the same digests
 * (test_kv2 checks FIPS 180's examples on each). */
#include <string.h>

#include "support/sha1.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SHA1_X86 1
#include <cpuid.h>
#include <immintrin.h>
#include <stdatomic.h>
#endif

static inline uint32_t rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static inline uint32_t load_be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The portable compression of n blocks: w holds the last 16 words of the schedule. */
void sm_sha1_blocks_portable(uint32_t h[5], const uint8_t *p, size_t n)
{
	for (; n; n--, p += 64) {
		uint32_t w[16];
		for (int i = 0; i < 16; i++) w[i] = load_be32(p + 4 * i);
		uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
#define SHA1_NEXT(i) (w[(i) & 15] = rol(w[((i) + 13) & 15] ^ w[((i) + 8) & 15] ^ w[((i) + 2) & 15] ^ w[(i) & 15], 1))
#define SHA1_ROUND(f, k, wi)                                                                                   \
	do {                                                                                                           \
		uint32_t t = rol(a, 5) + (f) + e + (k) + (wi);                                                             \
		e = d;                                                                                                     \
		d = c;                                                                                                     \
		c = rol(b, 30);                                                                                            \
		b = a;                                                                                                     \
		a = t;                                                                                                     \
	} while (0)
		for (int i = 0; i < 16; i++) SHA1_ROUND((b & c) | (~b & d), 0x5A827999u, w[i]);
		for (int i = 16; i < 20; i++) SHA1_ROUND((b & c) | (~b & d), 0x5A827999u, SHA1_NEXT(i));
		for (int i = 20; i < 40; i++) SHA1_ROUND(b ^ c ^ d, 0x6ED9EBA1u, SHA1_NEXT(i));
		for (int i = 40; i < 60; i++) SHA1_ROUND((b & c) | (b & d) | (c & d), 0x8F1BBCDCu, SHA1_NEXT(i));
		for (int i = 60; i < 80; i++) SHA1_ROUND(b ^ c ^ d, 0xCA62C1D6u, SHA1_NEXT(i));
#undef SHA1_ROUND
#undef SHA1_NEXT
		h[0] += a;
		h[1] += b;
		h[2] += c;
		h[3] += d;
		h[4] += e;
	}
}

#ifdef SHA1_X86
/* The SHA extensions' compression of n blocks. abcd holds A in its highest lane down to D in
 * its lowest; e4 holds E (plus the next four schedule words) in its highest. Each step is
 * four rounds: sha1rnds4 of the words with E added, sha1nexte giving the E of the next four
 * (the A of four rounds back, rotated) added to their words; the schedule runs four words at a
 * time, W[t..t+3] = msg2(msg1(W[t-16..], W[t-12..]) ^ W[t-8..], W[t-4..]). */
__attribute__((target("sha,sse4.1"))) static void sha1_blocks_x86(uint32_t h[5], const uint8_t *p, size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)h), 0x1B);
	__m128i e0 = _mm_set_epi32((int)h[4], 0, 0, 0);
	for (; n; n--, p += 64) {
		__m128i abcd_in = abcd, e_in = e0, last = abcd, m[4], we;
		for (int i = 0; i < 4; i++) m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)), swap);
/* four rounds of group g (0..19) of function f; m[g % 4] holds its words */
#define SHA1_GROUP(g, f)                                                                                                \
	do {                                                                                                                \
		if ((g) >= 4)                                                                                                   \
			m[(g) % 4] = _mm_sha1msg2_epu32(                                                                            \
			    _mm_xor_si128(_mm_sha1msg1_epu32(m[(g) % 4], m[((g) + 1) % 4]), m[((g) + 2) % 4]), m[((g) + 3) % 4]); \
		we = (g) == 0 ? _mm_add_epi32(e0, m[0]) : _mm_sha1nexte_epu32(last, m[(g) % 4]);                                \
		last = abcd;                                                                                                    \
		abcd = _mm_sha1rnds4_epu32(abcd, we, f);                                                                        \
	} while (0)
		SHA1_GROUP(0, 0);
		SHA1_GROUP(1, 0);
		SHA1_GROUP(2, 0);
		SHA1_GROUP(3, 0);
		SHA1_GROUP(4, 0);
		SHA1_GROUP(5, 1);
		SHA1_GROUP(6, 1);
		SHA1_GROUP(7, 1);
		SHA1_GROUP(8, 1);
		SHA1_GROUP(9, 1);
		SHA1_GROUP(10, 2);
		SHA1_GROUP(11, 2);
		SHA1_GROUP(12, 2);
		SHA1_GROUP(13, 2);
		SHA1_GROUP(14, 2);
		SHA1_GROUP(15, 3);
		SHA1_GROUP(16, 3);
		SHA1_GROUP(17, 3);
		SHA1_GROUP(18, 3);
		SHA1_GROUP(19, 3);
#undef SHA1_GROUP
		/* E after 80 rounds is the A of the last group's start, rotated */
		e0 = _mm_sha1nexte_epu32(last, e_in);
		abcd = _mm_add_epi32(abcd, abcd_in);
	}
	_mm_storeu_si128((__m128i *)(void *)h, _mm_shuffle_epi32(abcd, 0x1B));
	h[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

/* Whether this processor has the SHA extensions (and SSSE3 and SSE4.1, which the code above
 * also uses): CPUID once (a virtual machine's hypervisor answers it slowly), then a relaxed
 * atomic read (any thread may ask first; each finds the same answer). */
bool sm_sha1_has_x86(void)
{
	static atomic_int known; /* 0: not asked yet, 1: no, 2: yes */
	int k = atomic_load_explicit(&known, memory_order_relaxed);
	if (!k) {
		unsigned a, b, c, d;
		bool yes = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 9)) && (c & (1u << 19)) &&
		           __get_cpuid_max(0, NULL) >= 7;
		if (yes) {
			__cpuid_count(7, 0, a, b, c, d);
			yes = (b & (1u << 29)) != 0;
		}
		k = yes ? 2 : 1;
		atomic_store_explicit(&known, k, memory_order_relaxed);
	}
	return k == 2;
}

bool sm_sha1_blocks_x86(uint32_t h[5], const uint8_t *p, size_t n)
{
	if (!sm_sha1_has_x86()) return false;
	sha1_blocks_x86(h, p, n);
	return true;
}
#else
bool sm_sha1_has_x86(void)
{
	return false;
}

bool sm_sha1_blocks_x86(uint32_t h[5], const uint8_t *p, size_t n)
{
	(void)h, (void)p, (void)n;
	return false;
}
#endif

static void blocks(uint32_t h[5], const uint8_t *p, size_t n)
{
	if (!sm_sha1_blocks_x86(h, p, n)) sm_sha1_blocks_portable(h, p, n);
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
	if (s->used) {
		size_t k = 64 - s->used < n ? 64 - s->used : n;
		memcpy(s->block + s->used, p, k);
		s->used += k;
		p += k;
		n -= k;
		if (s->used < 64) return;
		blocks(s->h, s->block, 1);
		s->used = 0;
	}
	if (n >= 64) {
		blocks(s->h, p, n / 64);
		p += n / 64 * 64;
		n %= 64;
	}
	if (n) memcpy(s->block, p, n);
	s->used = n;
}

void sm_sha1_final(sm_sha1_ctx *s, uint8_t out[20])
{
	uint64_t bits = s->bytes * 8;
	size_t u = s->used;
	s->block[u++] = 0x80;
	if (u > 56) {
		memset(s->block + u, 0, 64 - u);
		blocks(s->h, s->block, 1);
		u = 0;
	}
	memset(s->block + u, 0, 56 - u);
	for (int i = 0; i < 8; i++) s->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	blocks(s->h, s->block, 1);
	s->used = 0;
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
