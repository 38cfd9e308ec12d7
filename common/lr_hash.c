/* lr_hash: see lr_hash.h. Two FNV-1a lanes with different offset bases. */
#include "lr_hash.h"

#include <stdint.h>
#include <stdio.h>

void lr_hash_hex(const char *const *parts, size_t n, char out[LR_HASH_HEX])
{
    uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
    for (size_t i = 0; i < n; i++)
        for (const unsigned char *p = (const unsigned char *)parts[i]; *p; p++) {
            h1 = (h1 ^ *p) * 0x100000001b3ull;
            h2 = (h2 ^ (*p + 0x9eu)) * 0x100000001b3ull;
        }
    snprintf(out, LR_HASH_HEX, "%016llx%016llx", (unsigned long long)h1,
             (unsigned long long)h2);
}
