/* Where given bytes stand in 64 bytes of text, as one mask: what lets a reader find every
 * separator of an array at once, so that reading each item does not wait for the
 * end of the one before it. SSE2 (every x86-64) only: where it is not, SM_HAVE_MASK64 is
 * undefined and the readers go a byte at a time. */
#ifndef SMDMX_SUPPORT_BYTES_H
#define SMDMX_SUPPORT_BYTES_H
#include <stdint.h>

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <emmintrin.h>
#define SM_HAVE_MASK64 1

/* Bit i set where s[i] is c, for the 64 bytes at s (all of them readable). */
static inline uint64_t sm_mask64_eq(const char *s, char c)
{
	const __m128i v = _mm_set1_epi8(c);
	uint64_t m = 0;
	for (int i = 0; i < 4; i++)
		m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + 16 * i)), v))
		     << (16 * i);
	return m;
}
#endif

#endif
