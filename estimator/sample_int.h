/*
 * sample_int.h: what the sampler's files share (docs/model.md §3-§4).
 * sample.c runs one sampling (est_sample_run) and owns the sampler; sample_warp.c
 * counts sampled warps (L1 cycles, sectors requested from L2, store requests), with
 * the shape memo of warp_shapes.c;
 * sample_block.c counts sampled blocks' footprints and the reuse from earlier blocks.
 * Not included outside these files.
 */
#ifndef EST_SAMPLE_INT_H
#define EST_SAMPLE_INT_H

#include "cache.h"
#include "estimator_int.h"

/* The sorted unique byte addresses of one full block, from which every other full
 * block's footprint follows (sample_block.c, block_units). */
typedef struct est_base_fp {
    int64_t *addr; /* owned by the sampler; NULL until computed */
    size_t n;
    int64_t shift;
} est_base_fp;

/* One sampling of one binding; lives on est_sample_run's stack. */
typedef struct est_sampler {
    est_ctx *ctx; /* for its deadline flag and the warp memos it keeps */
    const est_binding *b;
    est_base_fp base[EST_MAX_FIELDS][2];
    int64_t granule;                   /* all counts depend on addresses modulo this */
    struct est_cache *warp_memo;       /* ctx's, not owned; emptied per sampling */
    est_warp_shapes *shapes;           /* ctx's, not owned; NULL: none */
    struct est_cache *block_memo;      /* owned, freed by est_sample_run */
    int64_t *buf;                      /* block address buffer; owned, freed likewise */
    uint64_t *tmp;                     /* the sort's second buffer, as large; owned */
    size_t bufcap;
    struct est_wspread *wspread; /* the warp spread's counts (warp_spread.h); NULL: none */
} est_sampler;

/* The error of a sampler that found its deadline passed; returns -1. Here, not in
 * sample.c, so that the warp and block passes use it without calling back into the
 * file that runs them. */
static inline int est_sample_past_deadline(lr_error *err)
{
    return lr_error_set(err, LR_BUDGET_EXCEEDED, NULL,
                        "the request ran past its time limit while sampling warps and "
                        "blocks; use fewer accesses, less folding or smaller blocks, rank "
                        "fewer configurations or raise the limit");
}

/* The launch coordinates of thread lin (linear in its block) of block blk. */
static inline void est_sample_coord(const est_binding *b, const int64_t blk[3], int lin,
                                    int64_t c[EST_NCOORD])
{
    const int *bd = b->cfg.launch.block;
    c[EST_T_X] = lin % bd[0];
    c[EST_T_Y] = (lin / bd[0]) % bd[1];
    c[EST_T_Z] = lin / (bd[0] * bd[1]);
    for (int d = 0; d < 3; d++)
        c[EST_B_X + d] = blk[d];
}

/* Blocks a gathering kernel's passes sample (b->spread): its blocks differ from one
 * another with the data they read, so the sample spreads over the whole grid (a 1-D
 * one, est_gather_check) instead of taking its first blocks; 64 blocks of up to 32
 * warps keep the warp pass near 2,000 warps. */
#define EST_SPREAD_BLOCKS 64

/* Sampled block i (0 <= i < est_spread_count) of a spread sample. */
static inline int64_t est_spread_count(const est_binding *b)
{
    return b->grid[0] < EST_SPREAD_BLOCKS ? b->grid[0] : EST_SPREAD_BLOCKS;
}
static inline void est_spread_block(const est_binding *b, int64_t i, int64_t blk[3])
{
    blk[0] = i * b->grid[0] / est_spread_count(b);
    blk[1] = blk[2] = 0;
}

/* A group's counts as the warp pass's two memos keep them (sample_warp.c and
 * warp_shapes.c): the same whole numbers in int32_t (a group has at most 2^17
 * instructions of at most 512 each, far below 2^31), in half the bytes of
 * est_warp_counts: a warp memo slot (with est_cache's head) takes 72 bytes, not
 * 120, and every new est_ctx zeroes the memos, which a warp pass reads at random.
 * est_pack_counts and est_unpack_counts go through every counter, as add_counts does. */
typedef struct est_packed_counts {
    int32_t v[EST_WARP_COUNTERS];
} est_packed_counts;

static inline est_packed_counts est_pack_counts(const est_warp_counts *w)
{
    est_packed_counts p;
    for (int i = 0; i < EST_WARP_COUNTERS; i++)
        p.v[i] = (int32_t)w->v[i];
    return p;
}

static inline est_warp_counts est_unpack_counts(const est_packed_counts *p)
{
    est_warp_counts w;
    for (int i = 0; i < EST_WARP_COUNTERS; i++)
        w.v[i] = p->v[i];
    return w;
}

/* a modulo the granule, in [0, granule): a mask when the granule is a power of two (it
 * is the largest of the device's lines, sectors and banks, which est_device_check
 * requires to be), which spares the warp pass a division per group and warp. */
static inline int64_t est_mod_granule(int64_t granule, int64_t a)
{
    if ((granule & (granule - 1)) == 0)
        return (int64_t)((uint64_t)a & (uint64_t)(granule - 1));
    return a - est_floordiv(a, granule) * granule;
}

/* sample_warp.c: the warp pass (docs/model.md §3): every sampled warp's counts into
 * out. 0, or -1 with err (deadline). */
int est_sample_warps(est_sampler *s, est_sample *out, lr_error *err);
/* sample_warp.c: each warp's load sector requests in the warp spread's block into the
 * spread (warp_spread.h), counted as the warp pass counts, scratch its workspace. 0, or
 * -1 with err (deadline). */
int est_sample_spread_requests(est_sampler *s, est_sample *scratch, lr_error *err);

/* sample_block.c: the block pass (docs/model.md §4): every sampled block's footprints
 * into out; then the overlap pass: the sectors the middle block shares with the blocks
 * that ran before it on its SM. 0, or -1 with err (deadline, limit, memory). */
int est_sample_blocks(est_sampler *s, est_sample *out, lr_error *err);
int est_sample_overlap(est_sampler *s, est_sample *out, lr_error *err);
/* sample_block.c: the labelled load addresses of the warp spread's block for the
 * fields whose loads move with the block and whose footprint the block pass did not
 * collect from a base block (which feeds the spread as it does). 0, or -1 with err. */
int est_sample_spread_rest(est_sampler *s, lr_error *err);
/* sample_waits.c: the waiting loads of each field per lattice update of the middle
 * block (docs/model.md §3) into out. 0, or -1 with err (deadline, memory). */
int est_sample_waits(est_sampler *s, est_sample *out, lr_error *err);
/* sample_block.c: an empty block memo (the caller frees it with est_cache_free), or NULL
 * when out of memory. */
struct est_cache *est_block_memo_new(void);

#endif
