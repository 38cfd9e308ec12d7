/*
 * lr_sha256: SHA-256 digests as the API names uploaded arrays, index-field values and
 * permutations: 64 lowercase hex digits, computed by nettle.
 */
#ifndef LR_SHA256_H
#define LR_SHA256_H

#include <stddef.h>

#include <nettle/sha2.h>

#define LR_SHA256_HEX 65 /* 64 hex digits and the NUL */

/* The digest of n bytes at data into out. */
void lr_sha256_hex(const void *data, size_t n, char out[LR_SHA256_HEX]);

/* Ends an incremental digest (sha256_init and sha256_update of nettle) into out; ctx is
 * reset, as sha256_digest leaves it. */
void lr_sha256_finish(struct sha256_ctx *ctx, char out[LR_SHA256_HEX]);

#endif
