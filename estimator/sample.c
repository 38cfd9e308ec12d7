/*
 * sample: L1 cycles (docs/model.md §3) and L2<-L1 volumes (section 4) from the
 * concrete addresses of sampled warps and thread blocks. This file runs one sampling;
 * sample_warp.c counts the warps, sample_block.c the blocks, sample_waits.c the loads
 * that wait on their own warp's lines (sample_int.h).
 *
 * Counting distinct lines, sectors and banks of every warp of a large sample is the
 * hot loop of a ranking. Two observations keep it cheap: (1) for an affine address,
 * moving a warp (or a whole block) shifts all its addresses by the same amount, and
 * (2) every count here depends only on the addresses modulo the largest granule (the
 * 128-B line). So a full warp's (or block's) counts are memoised by its shift modulo
 * that granule; only partial warps, edge blocks and non-affine addresses are counted
 * one by one.
 *
 * These loops are plain C, out of reach of isl_ctx_abort, so they poll the context's
 * deadline flag (est_ctx_expired) themselves: every instruction group of a sampled
 * warp, every block and every thread of a block whose addresses are collected. Past it they
 * stop with LR_BUDGET_EXCEEDED.
 */
#include <stdlib.h>
#include <string.h>

#include "sample_int.h"
#include "warp_spread.h"

/* The warp spread of b's blocks (warp_spread.h) from the passes' counts, into out; 1
 * where it does not count. 0, or -1 with err. */
static int spread_share(est_sampler *s, est_sample *out, lr_error *err)
{
    out->warp_active_share = 1;
    if (!s->wspread)
        return 0;
    est_sample *scratch = malloc(sizeof *scratch);
    int rc = scratch ? est_sample_spread_requests(s, scratch, err)
                     : lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (!rc)
        rc = est_sample_spread_rest(s, err);
    if (!rc)
        out->warp_active_share = est_wspread_share(s->wspread);
    free(scratch);
    return rc;
}

int est_sample_run(est_ctx *ctx, const est_binding *b, est_sample *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    est_sampler s = {.ctx = ctx, .b = b, .granule = 128};
    int g[] = {b->dev->l1_line_bytes, b->dev->l1_sector_bytes, b->dev->l2_sector_bytes,
               b->dev->l1_bank_bytes_per_cycle};
    for (int i = 0; i < 4; i++)
        if (g[i] > s.granule)
            s.granule = g[i];
    s.block_memo = est_block_memo_new();
    int spreads = est_wspread_counts(b);
    s.wspread = spreads ? est_wspread_new(b) : NULL;
    int rc = 0;
    if (!s.block_memo || (spreads && !s.wspread))
        rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (!rc && est_ctx_expired(ctx)) /* binding may have taken the rest of the time */
        rc = est_sample_past_deadline(err);
    if (!rc)
        rc = est_sample_warps(&s, out, err);
    if (!rc)
        rc = est_sample_blocks(&s, out, err);
    if (!rc)
        rc = est_sample_overlap(&s, out, err);
    if (!rc)
        rc = est_sample_waits(&s, out, err);
    if (!rc)
        rc = spread_share(&s, out, err);
    est_cache_free(s.block_memo);
    est_wspread_free(s.wspread);
    for (int f = 0; f < EST_MAX_FIELDS; f++)
        for (int k = 0; k < 2; k++)
            free(s.base[f][k].addr);
    free(s.buf);
    free(s.tmp);
    return rc;
}
