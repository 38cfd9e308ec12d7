/*
 * dram_box: wave footprints counted by arithmetic (docs/model.md §5, "Counting boxes").
 *
 * In lattice space (dram.c, lattice_only) the thread sets of a wave are boxes of
 * lattice points, and an access whose every index is c*v + k in one lattice variable v
 * of its own (|c| = 1, or for x any stride that leaves no hole between fetch units)
 * maps a box onto a box of fetch units. Stencils and LBM kernels are written that way.
 * Then each footprint is a union of boxes, and every figure dram.c asks isl for (the
 * footprints, their overlaps, each after removing the previous neighbourhood) is a sum
 * of the volumes of the cells of that union by which sets cover them. A sweep over the
 * boxes' boundaries counts those exactly in integers, without GMP; any other access,
 * or a union too large for the sweep, is counted by isl as before.
 */
#include <stdlib.h>
#include <string.h>

#include "dram_int.h"

#define BOX_MAX EST_BOX_MAX
/* Cells the sweep may visit (z slabs x y slabs x x events) before isl is cheaper. */
#define BOX_SWEEP_MAX (1 << 22)
/* Counts at or beyond 2^53 go to isl: a double holds every integer below it. */
#define BOX_COUNT_MAX ((int64_t)1 << 53)

/* Index e as c * v + k in at most one lattice variable v: 0 with *v (-1 for a
 * constant), *c and *k; -1 when e is not of that form. An affine expression's
 * coefficients are its differences at the unit vectors. */
static int index_form(const est_expr *e, int *v, int64_t *c, int64_t *k)
{
    if ((est_expr_uses(e) & ~EST_VARS_LATTICE) || !est_expr_is_affine(e, 0))
        return -1;
    int64_t val[EST_VAR_COUNT] = {0};
    if (est_expr_eval_checked(e, val, k))
        return -1;
    *v = -1;
    *c = 0;
    for (int i = 0; i < 3; i++) {
        int64_t at, diff;
        val[i] = 1;
        if (est_expr_eval_checked(e, val, &at) || __builtin_sub_overflow(at, *k, &diff))
            return -1;
        val[i] = 0;
        if (diff == 0)
            continue;
        if (*v >= 0)
            return -1;
        *v = i;
        *c = diff;
    }
    return 0;
}

/* The smallest and largest of c * t + k over t in [lo, hi]; 0, or -1 on overflow. */
static int affine_range(int64_t c, int64_t k, int64_t lo, int64_t hi, int64_t r[2])
{
    int64_t a, z;
    if (__builtin_mul_overflow(c, c >= 0 ? lo : hi, &a) || __builtin_add_overflow(a, k, &a) ||
        __builtin_mul_overflow(c, c >= 0 ? hi : lo, &z) || __builtin_add_overflow(z, k, &z))
        return -1;
    r[0] = a;
    r[1] = z;
    return 0;
}

int est_box_image(const est_access *acc, int elem, int fetch, const int64_t lbox[6],
                  est_fbox *out)
{
    int used[3] = {0, 0, 0};
    for (int d = 0; d < 3; d++) {
        int j = 2 - d; /* F is written outermost index first (dram.c, fetch_map) */
        int v;
        int64_t c, k, r[2];
        if (d >= acc->n) { /* a missing index is 0 */
            out->lo[j] = out->hi[j] = 0;
            continue;
        }
        if (index_form(acc->idx[d], &v, &c, &k))
            return -1;
        if (v >= 0 && used[v]++)
            return -1;
        if (v < 0)
            r[0] = r[1] = k;
        else if (affine_range(c, k, lbox[v], lbox[3 + v], r))
            return -1;
        if (d == 0) {
            /* floor(i * elem / fetch) of consecutive i differs by at most one unit
             * when |c| * elem <= fetch: the units between the ends are all touched */
            if ((c < 0 ? -c : c) * elem > fetch || __builtin_mul_overflow(r[0], elem, &r[0]) ||
                __builtin_mul_overflow(r[1], elem, &r[1]))
                return -1;
            r[0] = est_floordiv(r[0], fetch);
            r[1] = est_floordiv(r[1], fetch);
        } else if (c > 1 || c < -1) {
            return -1; /* a stride leaves holes */
        }
        out->lo[j] = r[0];
        out->hi[j] = r[1];
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The sorted distinct boundaries lo and hi + 1 of dimension d of the boxes, into b;
 * returns their number. */
static int boundaries(const est_fbox *box, int n, int d, int64_t *b)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        b[m++] = box[i].lo[d];
        b[m++] = box[i].hi[d] + 1;
    }
    qsort(b, (size_t)m, sizeof *b, cmp_i64);
    int u = 0;
    for (int i = 0; i < m; i++)
        if (u == 0 || b[i] != b[u - 1])
            b[u++] = b[i];
    return u;
}

/* An end of a box along x: where it starts (+1) or ends (-1, at hi + 1). */
typedef struct x_event {
    int64_t x;
    int box, step;
} x_event;

static int cmp_event(const void *a, const void *b)
{
    const x_event *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

/* Lengths along x of the union of the active boxes, by which sets cover them, added
 * to len. Events are sorted by x; cnt counts the active boxes of each set over x. */
static void x_lengths(const est_fbox *box, const x_event *ev, int nev, const char *active,
                      int64_t len[16])
{
    int cnt[4] = {0, 0, 0, 0};
    int64_t prev = 0; /* read only once a box has started, after it was set */
    for (int e = 0; e < nev; e++) {
        if (!active[ev[e].box])
            continue;
        unsigned mask = 0;
        for (int s = 0; s < 4; s++)
            mask |= cnt[s] ? 1u << s : 0;
        if (mask)
            len[mask] += ev[e].x - prev;
        prev = ev[e].x;
        for (int s = 0; s < 4; s++)
            if (box[ev[e].box].set == 1u << s)
                cnt[s] += ev[e].step;
    }
}

/* a += b * f for each of 16 masks, exactly; -1 when a value reaches BOX_COUNT_MAX. */
static int add_scaled(int64_t a[16], const int64_t b[16], int64_t f)
{
    for (int m = 1; m < 16; m++) {
        int64_t p;
        if (__builtin_mul_overflow(b[m], f, &p) || __builtin_add_overflow(a[m], p, &a[m]) ||
            a[m] >= BOX_COUNT_MAX)
            return -1;
    }
    return 0;
}

/* The area of one z slab's active boxes in the (y, x) plane, by sets, into area. */
static int slab_area(const est_fbox *box, int n, const char *zact, const int64_t *ys, int ny,
                     const x_event *ev, int nev, int64_t area[16])
{
    char act[BOX_MAX];
    memset(area, 0, 16 * sizeof *area);
    for (int j = 0; j + 1 < ny; j++) {
        int any = 0;
        for (int i = 0; i < n; i++) {
            act[i] = zact[i] && box[i].lo[1] <= ys[j] && box[i].hi[1] >= ys[j + 1] - 1;
            any |= act[i];
        }
        if (!any)
            continue;
        int64_t len[16] = {0};
        x_lengths(box, ev, nev, act, len);
        if (add_scaled(area, len, ys[j + 1] - ys[j]))
            return -1;
    }
    return 0;
}

int est_box_volumes(const est_fbox *box, int n, int64_t vol[16])
{
    memset(vol, 0, 16 * sizeof *vol);
    if (n > BOX_MAX)
        return -1;
    int64_t zs[2 * BOX_MAX], ys[2 * BOX_MAX];
    x_event ev[2 * BOX_MAX];
    int nz = boundaries(box, n, 0, zs), ny = boundaries(box, n, 1, ys), nev = 0;
    if ((int64_t)nz * ny * 2 * n > BOX_SWEEP_MAX)
        return -1;
    for (int i = 0; i < n; i++) {
        ev[nev++] = (x_event){box[i].lo[2], i, +1};
        ev[nev++] = (x_event){box[i].hi[2] + 1, i, -1};
    }
    qsort(ev, (size_t)nev, sizeof *ev, cmp_event);
    char zact[BOX_MAX], last[BOX_MAX];
    int64_t area[16] = {0};
    int have_area = 0;
    for (int k = 0; k + 1 < nz; k++) {
        for (int i = 0; i < n; i++)
            zact[i] = box[i].lo[0] <= zs[k] && box[i].hi[0] >= zs[k + 1] - 1;
        /* consecutive slabs with the same boxes have the same area */
        if (!have_area || memcmp(zact, last, (size_t)n)) {
            if (slab_area(box, n, zact, ys, ny, ev, nev, area))
                return -1;
            memcpy(last, zact, (size_t)n);
            have_area = 1;
        }
        if (add_scaled(vol, area, zs[k + 1] - zs[k]))
            return -1;
    }
    return 0;
}
