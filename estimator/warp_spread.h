/*
 * warp_spread.h: how evenly the warps of a block share its work (docs/model.md, "Warp
 * spread in deep blocks"). A block ends when its slowest warp does, so the share of its
 * warps that work over its life is the mean over the maximum of their times. The
 * sampler's own passes feed it: the warp pass each warp's load sector requests in the
 * block in the middle of the grid, the block pass the warp of every load address it
 * collects for a block's footprint. Not included outside the sampler and estimate.c.
 */
#ifndef EST_WARP_SPREAD_H
#define EST_WARP_SPREAD_H

#include "estimator_int.h"

/* The labelled keys are address x EST_SPREAD_LABELS + label: the warp of the block, or
 * EST_SPREAD_OTHER for a warp of the blocks beside it (blocks of at most 32 warps,
 * addresses below 1e17: no overflow). */
#define EST_SPREAD_LABELS 64
#define EST_SPREAD_OTHER 32

typedef struct est_wspread est_wspread;

/* Whether the spread counts for b's blocks: model v2, a block of at least params.def's
 * share of the SM's threads, not a gathering kernel, 2..EST_SPREAD_LABELS warps. */
int est_wspread_counts(const est_binding *b);

/* The counts of one sampling of b (est_wspread_counts(b)), or NULL without memory. Free
 * with est_wspread_free. */
est_wspread *est_wspread_new(const est_binding *b);
void est_wspread_free(est_wspread *ws);

/* The block whose warps are counted: the one in the middle of the grid. */
const int64_t *est_wspread_block(const est_wspread *ws);

/* Where the warp pass writes each warp's load sector requests in that block (distinct
 * sectors per load instruction, summed): an array of the block's warps. */
double *est_wspread_requests(est_wspread *ws);

/* Whether field f's loads are still to be counted. */
int est_wspread_wants(const est_wspread *ws, int f);

/* Field f's lone sectors: those one warp of the middle block alone loads, and no warp of
 * the blocks beside it in x and y, count for that warp. Three steps, one field at a
 * time: est_wspread_lone takes the sorted keys[0..n) of block blk's loads of f, moved
 * onto the middle block (blk itself, or a full block whose loads move with it: every
 * one affine, the same block coefficients), and keeps the sectors one warp alone loads
 * (keys labelled EST_SPREAD_OTHER count as another warp's); 0, or -1 with err (no
 * memory). est_wspread_exclude drops those that sorted keys moved by delta bytes load,
 * est_wspread_count counts the rest for their warps. */
int est_wspread_lone(est_wspread *ws, int f, const int64_t blk[3], const int64_t *keys,
                     size_t n, lr_error *err);
void est_wspread_exclude(est_wspread *ws, const int64_t *keys, size_t n, int64_t delta);
void est_wspread_count(est_wspread *ws);

/* The three steps for the sorted keys of full block blk, whose loads move with the
 * block: its keys moved onto the middle block and onto the blocks beside it. 0, or -1
 * with err. */
int est_wspread_field(est_wspread *ws, int f, const int64_t blk[3], const int64_t *keys,
                      size_t n, lr_error *err);

/* The share: the mean over the maximum, across the block's working warps, of their
 * requests plus params.def's weight per sector they alone load. In (0, 1]. */
double est_wspread_share(const est_wspread *ws);

#endif
