/* XXH64 (Yann Collet's xxHash, 64-bit variant, as its specification "xxHash fast digest
 * algorithm" v0.1.1 defines it), only for the record of the files smdmx qc wrote: a check
 * that a file is still as written, at the speed of memory (decision 18). */
#ifndef SMDMX_SUPPORT_XXH64_H
#define SMDMX_SUPPORT_XXH64_H

#include <stddef.h>
#include <stdint.h>

typedef struct sm_xxh64_ctx {
	uint64_t v[4];
	uint8_t stripe[32]; /* the bytes of a stripe not yet whole */
	size_t used;
	uint64_t bytes;
	uint64_t seed;
} sm_xxh64_ctx;

void sm_xxh64_init(sm_xxh64_ctx *s, uint64_t seed);
void sm_xxh64_update(sm_xxh64_ctx *s, const void *data, size_t n);
uint64_t sm_xxh64_final(const sm_xxh64_ctx *s);
/* The hash of n bytes at data, in one call. */
uint64_t sm_xxh64(const void *data, size_t n, uint64_t seed);

#endif
