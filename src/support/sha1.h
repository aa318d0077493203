/* SHA-1 (FIPS 180-4), only for name-based element ids (RFC 4122 version 5 UUIDs). */
#ifndef SMDMX_SUPPORT_SHA1_H
#define SMDMX_SUPPORT_SHA1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sm_sha1_ctx {
	uint32_t h[5];
	uint8_t block[64];
	size_t used;
	uint64_t bytes;
} sm_sha1_ctx;

void sm_sha1_init(sm_sha1_ctx *s);
void sm_sha1_update(sm_sha1_ctx *s, const void *data, size_t n);
void sm_sha1_final(sm_sha1_ctx *s, uint8_t out[20]);
/* The digest of n bytes at data, in one call. */
void sm_sha1(const void *data, size_t n, uint8_t out[20]);


/* The compression of n 64-byte blocks into h, each way (for the tests): the portable one,
 * and the processor's SHA-1 instructions, which return false (doing nothing) where this
 * processor or build has none. */
void sm_sha1_blocks_portable(uint32_t h[5], const uint8_t *p, size_t n);
bool sm_sha1_blocks_x86(uint32_t h[5], const uint8_t *p, size_t n);
bool sm_sha1_has_x86(void);

#endif
