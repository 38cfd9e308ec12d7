/*
 * test_dram_box.c: estimator/dram_box.c, the wave footprints counted by arithmetic
 * instead of isl (docs/model.md §5, "Counting boxes"):
 *   - est_box_image maps a lattice box through an access onto the box of fetch units
 *     isl's relation gives (hand-derived cases), and refuses every access whose image
 *     is not a box (two variables in one index, one variable in two indices, strides
 *     with holes, thread variables);
 *   - est_box_volumes counts the points of a union of boxes by the sets that cover
 *     them exactly: hand-derived unions, and 300 random unions against counting every
 *     point of the grid one by one.
 * That the whole estimate equals isl's to the bit is checked on the corpus by
 * tests/accuracy/accuracy --dump (docs/architecture.md, Speed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dram_int.h"

/* An access of n indices parsed from texts; est_box_image reads only idx and n. */
static est_access access_of(int n, const char *a, const char *b, const char *c)
{
    const char *t[3] = {a, b, c};
    est_access acc;
    memset(&acc, 0, sizeof acc);
    acc.n = n;
    for (int d = 0; d < n; d++) {
        lr_error err;
        lr_error_clear(&err);
        acc.idx[d] = est_expr_parse(t[d], NULL, 0, "test", &err);
        CHECK(acc.idx[d] != NULL);
    }
    return acc;
}

static void access_free(est_access *acc)
{
    for (int d = 0; d < acc->n; d++)
        est_expr_free(acc->idx[d]);
}

/* est_box_image of access (a, b, c) for 8-byte elements and 32-byte fetch units over
 * the lattice box lbox; 0 and the box in *out, or -1. */
static int image(int n, const char *a, const char *b, const char *c, const int64_t lbox[6],
                 est_fbox *out)
{
    est_access acc = access_of(n, a, b, c);
    int rc = est_box_image(&acc, 8, 32, lbox, out);
    access_free(&acc);
    return rc;
}

/* The box f spans want_lo..want_hi along its dimension d (each check keeps its line). */
#define CHECK_RANGE(f, d, want_lo, want_hi)                                                  \
    do {                                                                                     \
        CHECK_INT((f).lo[d], want_lo);                                                       \
        CHECK_INT((f).hi[d], want_hi);                                                       \
    } while (0)

static void images(void)
{
    const int64_t lbox[6] = {0, 1, 5, 63, 10, 5}; /* x 0..63, y 1..10, z 5 */
    est_fbox f;
    /* F[z, y - 1, floor((x + 1) * 8 / 32)]: x + 1 in 1..64 gives units 0..16 */
    CHECK_INT(image(3, "x+1", "y-1", "z", lbox, &f), 0);
    CHECK_RANGE(f, 0, 5, 5);
    CHECK_RANGE(f, 1, 0, 9);
    CHECK_RANGE(f, 2, 0, 16);
    /* a transpose: F[0, x, floor(y * 8 / 32)], missing indices are 0 */
    CHECK_INT(image(2, "y", "x", NULL, lbox, &f), 0);
    CHECK_RANGE(f, 0, 0, 0);
    CHECK_RANGE(f, 1, 0, 63);
    CHECK_RANGE(f, 2, 0, 2);
    /* a reversed index and a stride of 4 elements (exactly one 32-byte unit) */
    CHECK_INT(image(2, "4*x", "12-y", NULL, lbox, &f), 0);
    CHECK_RANGE(f, 1, 2, 11);
    CHECK_RANGE(f, 2, 0, 63);
    /* a constant index */
    CHECK_INT(image(2, "x", "7", NULL, lbox, &f), 0);
    CHECK_RANGE(f, 1, 7, 7);
    /* not boxes: isl counts these */
    CHECK_INT(image(2, "x+y", "z", NULL, lbox, &f), -1);
    CHECK_INT(image(2, "x", "x", NULL, lbox, &f), -1);
    CHECK_INT(image(2, "x", "2*y", NULL, lbox, &f), -1);
    CHECK_INT(image(1, "5*x", NULL, NULL, lbox, &f), -1); /* 40 B apart: holes */
    CHECK_INT(image(1, "x/2", NULL, NULL, lbox, &f), -1);
    CHECK_INT(image(1, "threadIdx.x", NULL, NULL, lbox, &f), -1);
}

static est_fbox fbox(unsigned set, int64_t z0, int64_t z1, int64_t y0, int64_t y1, int64_t x0,
                     int64_t x1)
{
    return (est_fbox){{z0, y0, x0}, {z1, y1, x1}, set};
}

static void hand_unions(void)
{
    int64_t v[16];
    /* two 10^3 cubes of sets 1 and 2 sharing half: 500 points each alone, 500 both */
    est_fbox two[] = {fbox(1, 0, 9, 0, 9, 0, 9), fbox(2, 0, 9, 0, 9, 5, 14)};
    CHECK_INT(est_box_volumes(two, 2, v), 0);
    CHECK_INT(v[1], 500);
    CHECK_INT(v[2], 500);
    CHECK_INT(v[3], 500);
    /* one set, two crossing slabs: 100 + 100 - 10 points */
    est_fbox cross[] = {fbox(1, 0, 9, 0, 0, 0, 9), fbox(1, 0, 9, 0, 9, 0, 0)};
    CHECK_INT(est_box_volumes(cross, 2, v), 0);
    CHECK_INT(v[1], 190);
    /* a point inside a cube of set 4, and a set-8 box apart */
    est_fbox apart[] = {fbox(4, -3, 3, -3, 3, -3, 3), fbox(1, 0, 0, 0, 0, 0, 0),
                        fbox(8, 100, 101, 0, 0, 0, 0)};
    CHECK_INT(est_box_volumes(apart, 3, v), 0);
    CHECK_INT(v[4], 343 - 1);
    CHECK_INT(v[5], 1);
    CHECK_INT(v[8], 2);
    /* more boxes than the sweep takes: -1, isl counts */
    static est_fbox many[EST_BOX_MAX + 1];
    for (int i = 0; i <= EST_BOX_MAX; i++)
        many[i] = fbox(1, i, i, 0, 0, 0, 0);
    CHECK_INT(est_box_volumes(many, EST_BOX_MAX + 1, v), -1);
}

/* Random unions of up to 16 boxes in a 24^3 grid against counting each point. */
static void random_unions(void)
{
    enum { G = 24 };
    srand(12);
    for (int run = 0; run < 300; run++) {
        est_fbox b[16];
        int n = 1 + rand() % 16;
        for (int i = 0; i < n; i++) {
            for (int d = 0; d < 3; d++) {
                int a = rand() % G, z = rand() % G;
                b[i].lo[d] = a < z ? a : z;
                b[i].hi[d] = a < z ? z : a;
            }
            b[i].set = 1u << (rand() % 4);
        }
        int64_t v[16], want[16] = {0};
        for (int z = 0; z < G; z++)
            for (int y = 0; y < G; y++)
                for (int x = 0; x < G; x++) {
                    unsigned m = 0;
                    for (int i = 0; i < n; i++)
                        if (z >= b[i].lo[0] && z <= b[i].hi[0] && y >= b[i].lo[1] &&
                            y <= b[i].hi[1] && x >= b[i].lo[2] && x <= b[i].hi[2])
                            m |= b[i].set;
                    want[m]++;
                }
        CHECK_INT(est_box_volumes(b, n, v), 0);
        for (int m = 1; m < 16; m++)
            CHECK_INT(v[m], want[m]);
    }
}

int main(void)
{
    images();
    hand_unions();
    random_unions();
    printf("test_dram_box: %d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}
