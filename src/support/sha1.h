/* SHA-1 (FIPS 180-4), only for name-based element ids (RFC 4122 version 5 UUIDs). */
#ifndef SMDMX_SUPPORT_SHA1_H
#define SMDMX_SUPPORT_SHA1_H

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

#endif
