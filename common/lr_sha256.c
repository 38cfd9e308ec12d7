/* lr_sha256: see lr_sha256.h. */
#include "lr_sha256.h"

#include <stdint.h>
#include <stdio.h>

void lr_sha256_finish(struct sha256_ctx *ctx, char out[LR_SHA256_HEX])
{
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(ctx, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

void lr_sha256_hex(const void *data, size_t n, char out[LR_SHA256_HEX])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, n, (const uint8_t *)data);
    lr_sha256_finish(&ctx, out);
}
