/*
 * lr_hash: a 128-bit FNV-1a digest as 32 hex characters. Keys the prediction cache
 * by the canonical request text; not cryptographic (the cache trusts its clients).
 */
#ifndef LR_HASH_H
#define LR_HASH_H

#include <stddef.h>

#define LR_HASH_HEX 33 /* 32 hex digits and the NUL */

/* Hashes the concatenation of the n strings in parts into out. */
void lr_hash_hex(const char *const *parts, size_t n, char out[LR_HASH_HEX]);

#endif
