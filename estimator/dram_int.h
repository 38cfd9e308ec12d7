/*
 * dram_int.h: what dram.c (wave footprints with isl) and dram_box.c (the same
 * footprints counted by arithmetic where they are unions of boxes) share. Not included
 * outside these two files.
 */
#ifndef EST_DRAM_INT_H
#define EST_DRAM_INT_H

#include "estimator_int.h"

/* Boxes per count (4 thread sets x 64 accesses); larger unions go to isl. */
#define EST_BOX_MAX 256

/* A box of fetch units F[i2, i1, i0] (docs/model.md §5: the field's index tuple,
 * outermost first, x in units of the DRAM granularity), inclusive, and the bit of the
 * thread set whose footprint it belongs to. */
typedef struct est_fbox {
    int64_t lo[3], hi[3];
    unsigned set; /* a single bit, 1 << k for thread set k (at most 4 sets) */
} est_fbox;

/* The fetch units that access acc of a field of elem-byte elements touches from the
 * lattice points of lbox ([x, y, z] lows, then highs, inclusive), as a box in *out
 * (set left alone), with the DRAM granularity of fetch bytes: 0, or -1 when that image
 * is not a box (an index in two variables or in one that another index uses too, a
 * stride that leaves holes, a variable other than x, y, z, or values near overflow). */
int est_box_image(const est_access *acc, int elem, int fetch, const int64_t lbox[6],
                  est_fbox *out);

/* The points of the union of box[0..n), by which sets cover them: vol[m] counts the
 * points covered by the boxes of exactly the sets of mask m (vol[0] is 0). 0, or -1
 * when there are too many boxes for arithmetic to be cheaper than isl, or a count
 * would reach 2^53 (beyond which a double, what isl's count is read into, rounds). */
int est_box_volumes(const est_fbox *box, int n, int64_t vol[16]);

#endif
