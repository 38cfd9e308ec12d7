/*
 * warp_shapes.h: the shape memo of the warp pass (warp_shapes.c), used by sample_warp.c
 * only.
 *
 * A full warp's counts for one group of instructions that move together are a function
 * of what its addresses look like up to a move by a multiple of the granule: the first
 * address modulo the granule, the lanes' offsets from lane 0, the members' offsets from
 * the first member, which of them store and at which folding step, the element size,
 * and the device's bank, line and sector widths. Other warps of the same block (a block row of
 * 32 or more threads gives every warp the same lanes), other block shapes and the later
 * configurations of a ranking repeat these, so the thread's est_ctx keeps them, keyed
 * by that whole description (compared in full, never by a hash alone). A move by a
 * multiple of the granule keeps every count only when the element size and the banks'
 * period divide it (est_warp_shapes_exact); other element sizes stay with the
 * per-estimate memo. When the table fills up it starts again empty: that costs time,
 * never exactness.
 */
#ifndef EST_WARP_SHAPES_H
#define EST_WARP_SHAPES_H

#include "sample_int.h"

#define EST_SHAPE_MAX_MEMBERS 256 /* larger groups are counted as before */
#define EST_SHAPE_HEAD 6          /* element and model, bank, line, sector, granule, shift */
#define EST_SHAPE_KEY_MAX (EST_SHAPE_HEAD + 31 + 2 * EST_SHAPE_MAX_MEMBERS)

/* An empty shape memo (free with est_warp_shapes_free), or NULL when out of memory. */
est_warp_shapes *est_warp_shapes_new(void);

/* Whether moving every address by a multiple of the granule keeps every count of the
 * warp pass (warp_metrics) for elements of elem bytes: the words, lines, sectors, 128-B
 * segments and the banks' period (nbanks words) must all divide the granule. */
int est_warp_shapes_exact(const est_device *dev, int64_t granule, int elem);

/* The description of group G's addresses in a full warp whose lanes are at coords
 * and whose first address is a0, into key; its length, or 0 when the group is not
 * memoised this way. */
int est_warp_shapes_key(const est_sampler *s, const est_group *G, int64_t a0,
                        int64_t coords[32][EST_NCOORD], int64_t key[EST_SHAPE_KEY_MAX]);

/* 1 and the counts kept for key[0..n) (hash h: est_cache_hash) into *out when known,
 * else 0 and *out untouched. */
int est_warp_shapes_get(est_warp_shapes *m, const int64_t *key, int n, uint64_t h,
                        est_warp_counts *out);

/* Keeps v for key[0..n) (hash h); when memory runs short it is not kept, which costs
 * time, never exactness. */
void est_warp_shapes_put(est_warp_shapes *m, const int64_t *key, int n, uint64_t h,
                         const est_warp_counts *v);

#endif
