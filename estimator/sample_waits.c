/*
 * sample_waits: the waiting loads of the middle block (docs/model.md §3, "Loads that
 * wait on their own warp's lines"). A load instruction waits when it touches an L1 line
 * that an earlier load of the same warp touched first in the block: the warp issues its
 * loads back to back, so the line is still on its way from L2 and the data pipe passes
 * the load again when it arrives. The pass runs the block's warps in order, each warp's
 * load instructions in order, without evictions. One block stands for all, as in the
 * overlap pass: whole blocks differ only by where their addresses start.
 */
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "sample_int.h"

/* The lines the block's loads touched, each with the load that touched it first, as
 * warp x instructions + instruction (open addressing; -1 marks a free slot, so that
 * every key, negative ones too, can be kept). Not an est_cache (cache.h): that table has
 * a fixed size and drops what finds no room, which a memo can afford and a count of
 * first touches cannot; this one grows. */
typedef struct first_toucher {
    int64_t *key, *first;
    size_t cap, n;
} first_toucher;

static int grow(first_toucher *t)
{
    size_t cap = t->cap ? 2 * t->cap : 1024;
    int64_t *key = malloc(cap * sizeof *key), *first = malloc(cap * sizeof *first);
    if (!key || !first) {
        free(key);
        free(first);
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        first[i] = -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->first[i] >= 0) {
            size_t h = (size_t)est_cache_mix((uint64_t)t->key[i]) & (cap - 1);
            while (first[h] >= 0)
                h = (h + 1) & (cap - 1);
            key[h] = t->key[i];
            first[h] = t->first[i];
        }
    free(t->key);
    free(t->first);
    *t = (first_toucher){.key = key, .first = first, .cap = cap, .n = t->n};
    return 0;
}

/* The load that touched line key first; load (>= 0) itself when none did before (it is
 * recorded as the first); -1 without memory. */
static int64_t first_touch(first_toucher *t, int64_t key, int64_t load)
{
    if (2 * (t->n + 1) > t->cap && grow(t))
        return -1;
    size_t h = (size_t)est_cache_mix((uint64_t)key) & (t->cap - 1);
    for (; t->first[h] >= 0; h = (h + 1) & (t->cap - 1))
        if (t->key[h] == key)
            return t->first[h];
    t->key[h] = key;
    t->first[h] = load;
    t->n++;
    return load;
}

/* A warp's lane addresses for its last load instruction: the next one that moves with it
 * (affine with the same coefficients and folding step) differs only by a constant, which
 * spares the pass most of its address arithmetic. */
typedef struct warp_lanes {
    const est_inst *last; /* NULL: none yet */
    int64_t addr[32];
    int valid[32];
} warp_lanes;

static int moves_with(const est_inst *a, const est_inst *b)
{
    if (!a || !a->affine || !b->affine || memcmp(a->step, b->step, sizeof a->step))
        return 0;
    return memcmp(a->coef, b->coef, sizeof a->coef) == 0;
}

/* The distinct lines of warp w's lanes (of the block's n threads) for load instruction
 * in, into line (at most 32), their number returned. */
static int warp_lines(const est_binding *b, const est_inst *in, int64_t (*coords)[EST_NCOORD],
                      int w, int n, warp_lanes *lanes, int64_t line[32])
{
    int k = 0, m = n - 32 * w < 32 ? n - 32 * w : 32, moved = moves_with(lanes->last, in);
    int64_t shift = moved ? in->c0 - lanes->last->c0 : 0;
    for (int j = 0; j < m; j++) {
        lanes->addr[j] = moved ? lanes->addr[j] + shift
                               : est_inst_address(b, in, coords[32 * w + j], &lanes->valid[j]);
        if (!lanes->valid[j])
            continue;
        int64_t l = est_floordiv(lanes->addr[j], b->dev->l1_line_bytes), seen = 0;
        for (int u = 0; u < k && !seen; u++)
            seen = line[u] == l;
        if (!seen)
            line[k++] = l;
    }
    lanes->last = in;
    return k;
}

/* Field f's waiting loads of the block whose n threads' coordinates are coords; -1
 * without memory or past the deadline. A line another warp touched first is not waited
 * on: that warp's request is older, so the line is likelier back, and which of the
 * warps runs first is not known. */
static double field_waits(est_sampler *s, int f, int64_t (*coords)[EST_NCOORD], int n)
{
    const est_binding *b = s->b;
    first_toucher t = {0};
    double waits = 0;
    int64_t ninst = b->ninst;
    for (int w = 0; w < (n + 31) / 32 && waits >= 0; w++) {
        if (est_ctx_expired(s->ctx))
            waits = -1;
        warp_lanes lanes = {.last = NULL};
        for (int i = b->first[f]; i < b->first[f] + b->count[f] && waits >= 0; i++) {
            if (b->inst[i].is_store)
                continue;
            int64_t line[32], load = w * ninst + i;
            int k = warp_lines(b, &b->inst[i], coords, w, n, &lanes, line), waits_here = 0;
            for (int u = 0; u < k && waits >= 0; u++) {
                int64_t first = first_touch(&t, line[u], load);
                if (first < 0)
                    waits = -1;
                waits_here |= first < load && first / ninst == w;
            }
            if (waits >= 0)
                waits += waits_here;
        }
    }
    free(t.key);
    free(t.first);
    return waits;
}

int est_sample_waits(est_sampler *s, est_sample *out, lr_error *err)
{
    const est_binding *b = s->b;
    int64_t mid[3] = {b->grid[0] / 2, b->grid[1] / 2, b->grid[2] / 2};
    int n = b->threads;
    int64_t(*coords)[EST_NCOORD] = malloc((size_t)n * sizeof *coords);
    if (!coords)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    double lups = 0;
    for (int j = 0; j < n; j++) {
        est_sample_coord(b, mid, j, coords[j]);
        lups += (double)est_thread_lups(b, coords[j]);
    }
    int rc = 0;
    for (int f = 0; f < b->k->nfields && !rc; f++) {
        int loads = 0;
        for (int i = b->first[f]; i < b->first[f] + b->count[f]; i++)
            loads += !b->inst[i].is_store;
        if (loads < 2) /* a load cannot wait on its own lines */
            continue;
        double w = field_waits(s, f, coords, n);
        if (w < 0)
            rc = est_ctx_expired(s->ctx) ? est_sample_past_deadline(err)
                                         : lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        else
            out->f[f].mid_load_waits = lups > 0 ? w / lups : 0;
    }
    free(coords);
    return rc;
}
