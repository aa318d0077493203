/* Key lookup shared by the animation sampler (scene/) and the renderer's poses (render/): a
 * header of its own, inline, so that the renderer, which links the library's public API only,
 * uses the same rule. */
#ifndef SM_KEYS_H
#define SM_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* Where t falls among n >= 1 increasing key times: the key at or before it, and the fraction
 * of the way to the next one; 0 at a key and outside the keys, which hold the first and
 * last values (decision 11). */
static inline size_t sm_key_span(const int32_t *times, size_t n, int32_t t, double *f)
{
	*f = 0;
	if (t <= times[0]) return 0;
	if (t >= times[n - 1]) return n - 1;
	size_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (times[mid] <= t) lo = mid;
		else hi = mid;
	}
	*f = (double)((int64_t)t - times[lo]) / (double)((int64_t)times[lo + 1] - times[lo]); /* may span all of int32 */
	return lo;
}

#endif
