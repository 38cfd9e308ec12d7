/*
 * warp_spread.c: the spread of the warps' work within a block (warp_spread.h).
 */
#include <stdlib.h>

#include "warp_spread.h"

#define SPREAD_LABEL_BITS 6 /* log2(EST_SPREAD_LABELS) */
_Static_assert(EST_SPREAD_LABELS == 1 << SPREAD_LABEL_BITS, "SPREAD_LABEL_BITS");

struct est_wspread {
    const est_binding *b;
    int64_t mid[3];
    int nwarps;
    double requests[EST_SPREAD_LABELS];
    double alone[EST_SPREAD_LABELS]; /* sectors only that warp loads */
    char counted[EST_MAX_FIELDS];
    /* the field being counted: its lone sectors (sorted), their warps, whether a block
     * beside the middle one loads them; owned, NULL between fields */
    int64_t *lone;
    int *lone_warp;
    char *hit;
    size_t nlone;
    int sector_log2;
};

/* Drops the field's pending lone sectors, counted or not. */
static void drop_lone(est_wspread *ws)
{
    free(ws->lone);
    free(ws->lone_warp);
    free(ws->hit);
    ws->lone = NULL;
    ws->lone_warp = NULL;
    ws->hit = NULL;
    ws->nlone = 0;
}

int est_wspread_counts(const est_binding *b)
{
    int nw = (b->threads + 31) / 32;
    return b->k->model == EST_MODEL_V2 && !b->spread && nw >= 2 && nw <= EST_SPREAD_LABELS &&
           b->threads >= RULE(SPREAD_BLOCK_SHARE) * b->dev->max_threads_per_sm;
}

est_wspread *est_wspread_new(const est_binding *b)
{
    est_wspread *ws = calloc(1, sizeof *ws);
    if (!ws)
        return NULL;
    ws->b = b;
    ws->nwarps = (b->threads + 31) / 32;
    for (int d = 0; d < 3; d++)
        ws->mid[d] = b->grid[d] / 2;
    return ws;
}

void est_wspread_free(est_wspread *ws)
{
    if (ws)
        drop_lone(ws);
    free(ws);
}

const int64_t *est_wspread_block(const est_wspread *ws)
{
    return ws->mid;
}

double *est_wspread_requests(est_wspread *ws)
{
    return ws->requests;
}

int est_wspread_wants(const est_wspread *ws, int f)
{
    return !ws->counted[f];
}

/* The byte offset of field f's loads in block blk (they move together). */
static int64_t load_shift(const est_binding *b, int f, const int64_t blk[3])
{
    for (int i = b->first[f]; i < b->first[f] + b->count[f]; i++)
        if (!b->inst[i].is_store)
            return b->inst[i].coef[EST_B_X] * blk[0] + b->inst[i].coef[EST_B_Y] * blk[1] +
                   b->inst[i].coef[EST_B_Z] * blk[2];
    return 0;
}

/* floor(a / 2^k) for any a: the division was this file's hottest instruction (the
 * offset of 2^63 orders the signed values as unsigned ones) */
static inline int64_t floor_shift(int64_t a, int k)
{
    const uint64_t bias = (uint64_t)1 << 63;
    return (int64_t)((((uint64_t)a ^ bias) >> k) - (bias >> k));
}

static int64_t address_of(int64_t key)
{
    return floor_shift(key, SPREAD_LABEL_BITS);
}

/* Marks in hit[] the sectors of alone[0..na) (sorted) that the block whose addresses are
 * those of keys (sorted) moved by delta bytes loads: its sectors (of 2^k bytes) come in
 * order, so one merge finds them. */
static void mark_loaded(const int64_t *keys, size_t n, int64_t delta, int k,
                        const int64_t *alone, size_t na, char *hit)
{
    size_t j = 0;
    for (size_t i = 0; i < n && j < na; i++) {
        int64_t s = floor_shift(address_of(keys[i]) + delta, k);
        while (j < na && alone[j] < s)
            j++;
        if (j < na && alone[j] == s)
            hit[j] = 1;
    }
}

int est_wspread_lone(est_wspread *ws, int f, const int64_t blk[3], const int64_t *keys,
                     size_t n, lr_error *err)
{
    const est_binding *b = ws->b;
    drop_lone(ws);
    ws->sector_log2 = 0; /* sectors of 2^k bytes (est_device_check) */
    while (((int64_t)1 << ws->sector_log2) < b->dev->l1_sector_bytes)
        ws->sector_log2++;
    int k = ws->sector_log2;
    int64_t to_mid = load_shift(b, f, ws->mid) - load_shift(b, f, blk);
    ws->counted[f] = 1;
    ws->lone = malloc((n ? n : 1) * sizeof *ws->lone);
    ws->lone_warp = malloc((n ? n : 1) * sizeof *ws->lone_warp);
    ws->hit = calloc(n ? n : 1, 1);
    if (!ws->lone || !ws->lone_warp || !ws->hit) {
        drop_lone(ws);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    /* the sectors one warp alone loads in the middle block, in order */
    for (size_t i = 0, e; i < n; i = e) {
        int64_t s = floor_shift(address_of(keys[i]) + to_mid, k);
        int w = (int)(keys[i] & (EST_SPREAD_LABELS - 1)), one = 1;
        for (e = i + 1; e < n && floor_shift(address_of(keys[e]) + to_mid, k) == s; e++)
            one &= (int)(keys[e] & (EST_SPREAD_LABELS - 1)) == w;
        if (one && w < EST_SPREAD_OTHER) {
            ws->lone[ws->nlone] = s;
            ws->lone_warp[ws->nlone++] = w;
        }
    }
    return 0;
}

void est_wspread_exclude(est_wspread *ws, const int64_t *keys, size_t n, int64_t delta)
{
    mark_loaded(keys, n, delta, ws->sector_log2, ws->lone, ws->nlone, ws->hit);
}

void est_wspread_count(est_wspread *ws)
{
    for (size_t j = 0; j < ws->nlone; j++)
        ws->alone[ws->lone_warp[j]] += !ws->hit[j];
    drop_lone(ws);
}

int est_wspread_field(est_wspread *ws, int f, const int64_t blk[3], const int64_t *keys,
                      size_t n, lr_error *err)
{
    const est_binding *b = ws->b;
    if (est_wspread_lone(ws, f, blk, keys, n, err))
        return -1;
    /* less those the blocks beside it in x and y load: the keys moved the same way */
    for (int d = 0; d < 2; d++)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            int64_t nb[3] = {ws->mid[0], ws->mid[1], ws->mid[2]};
            nb[d] += sgn;
            if (nb[d] >= 0 && nb[d] < b->grid[d])
                est_wspread_exclude(ws, keys, n, load_shift(b, f, nb) - load_shift(b, f, blk));
        }
    est_wspread_count(ws);
    return 0;
}

double est_wspread_share(const est_wspread *ws)
{
    double sum = 0, most = 0;
    int busy = 0;
    for (int w = 0; w < ws->nwarps; w++) {
        double work = ws->requests[w] + RULE(SPREAD_MISS_WEIGHT) * ws->alone[w];
        sum += work;
        busy += work > 0;
        most = work > most ? work : most;
    }
    return busy > 1 ? sum / busy / most : 1;
}
