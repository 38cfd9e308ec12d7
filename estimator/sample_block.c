/*
 * sample_block: the block pass of the sampler (docs/model.md §4): the distinct lines
 * and sectors each sampled block touches (compulsory L2 volumes), and the overlap
 * pass: the sectors the middle block shares with the blocks that ran before it on its
 * SM. A full block's footprint follows from one base block's sorted addresses, and
 * footprints are memoised by shift modulo the granule (sample.c says why that is exact).
 */
#include <stdlib.h>
#include <string.h>

#include "sample_int.h"
#include "warp_spread.h"

/* Blocks are sampled over the first 8 blocks of each dimension (Warpspeed's sample). */
#define BLOCK_SAMPLE_BLOCKS 8
/* Blocks that ran earlier on the same SM whose reuse is averaged (docs/model.md §4). */
#define OVERLAP_PREDECESSORS 40
/* One block's address list must fit comfortably in memory: 1024 threads x 4096
 * instructions is 32 MiB of addresses. */
#define MAX_BLOCK_ADDRESSES (1 << 22)
/* Kepler's read-only data cache is four texture L1s of 12 KB (Mei et al. 2014, seed 002,
 * measure 12 KB from one thread of a GK110), one per quad of texture units, each serving
 * the warps of one of the SMX's four schedulers (among which the SMX distributes its
 * warps: CUDA C Programming Guide, compute capability 3.x); a block's warps are taken
 * to go to them in turn (docs/k20.md, "The read-only cache in quarters"): L2 fills each
 * quarter with the footprint of the warps it serves, whatever the other quarters hold. */
#define KEPLER_RODC_SLICES 4

static void sort_i64(int64_t *a, size_t n, uint64_t *tmp);

/* log2 of a granule that is a power of two (est_device_check requires lines and
 * sectors to be), else -1. */
static int granule_log2(int64_t g)
{
    int k = 0;
    while (k < 62 && ((int64_t)1 << k) < g)
        k++;
    return ((int64_t)1 << k) == g ? k : -1;
}

/* floor(a / granule), k = granule_log2(granule). A power of two divides by a shift:
 * the division was the block pass's hottest instruction. Addresses stay within 1e17
 * (bind.c, ADDRESS_LIMIT), so adding 2^62 makes them positive without overflow, and
 * shifting a positive value is its floor division. */
static inline int64_t unit_of(int64_t a, int64_t granule, int k)
{
    if (k < 0)
        return est_floordiv(a, granule);
    const uint64_t bias = (uint64_t)1 << 62;
    return (int64_t)(((uint64_t)a + bias) >> k) - (int64_t)(bias >> k);
}

/* Lattice updates of block blk: the threads' lattice points form a box, so the count
 * is the product over dimensions of the box's extent inside the domain. */
static double block_lups(const est_binding *b, const int64_t blk[3])
{
    double n = 1;
    for (int d = 0; d < 3; d++) {
        int64_t span = (int64_t)b->cfg.launch.block[d] * b->cfg.launch.folding[d];
        int64_t lo = blk[d] * span, hi = lo + span;
        hi = hi < b->cfg.domain[d] ? hi : b->cfg.domain[d];
        n *= hi > lo ? (double)(hi - lo) : 0;
    }
    return n;
}

static int block_full(const est_binding *b, const int64_t blk[3])
{
    for (int d = 0; d < 3; d++) {
        int64_t span = (int64_t)b->cfg.launch.block[d] * b->cfg.launch.folding[d];
        if ((blk[d] + 1) * span > b->cfg.domain[d])
            return 0;
    }
    return 1;
}

/* Whether instructions [first, first+n) of one kind shift together when the block
 * moves: all affine with the same blockIdx coefficients. */
static int translates(const est_binding *b, int first, int n, int is_store)
{
    const est_inst *ref = NULL;
    for (int i = first; i < first + n; i++) {
        const est_inst *in = &b->inst[i];
        if (in->is_store != is_store)
            continue;
        if (!in->affine)
            return 0;
        if (!ref)
            ref = in;
        else if (memcmp(&ref->coef[EST_B_X], &in->coef[EST_B_X], 3 * sizeof(int64_t)))
            return 0;
    }
    return 1;
}

static int64_t block_shift(const est_binding *b, int first, int n, int is_store,
                           const int64_t blk[3])
{
    for (int i = first; i < first + n; i++) {
        const est_inst *in = &b->inst[i];
        if (in->is_store == is_store)
            return in->coef[EST_B_X] * blk[0] + in->coef[EST_B_Y] * blk[1] +
                   in->coef[EST_B_Z] * blk[2];
    }
    return 0;
}

/* Makes room for need addresses in s->buf, and in s->tmp for sorting them (without
 * it, sort_i64 sorts in place, slowly: no error). 0 or -1 with err. */
static int reserve(est_sampler *s, int f, size_t need, lr_error *err)
{
    if (need > MAX_BLOCK_ADDRESSES)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, NULL,
                            "field '%s': %zu addresses per block exceed the limit of %d; use "
                            "fewer accesses, less folding or smaller blocks",
                            s->b->k->fields[f].name, need, MAX_BLOCK_ADDRESSES);
    if (need > s->bufcap) {
        int64_t *nb = realloc(s->buf, need * sizeof *nb);
        if (!nb)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        s->buf = nb;
        s->bufcap = need;
        uint64_t *nt = realloc(s->tmp, need * sizeof *nt);
        if (!nt)
            free(s->tmp);
        s->tmp = nt;
    }
    return 0;
}

/* What emit_addresses writes per address: its granule unit, or for the warp spread
 * its byte address times EST_SPREAD_LABELS plus its warp (EMIT_WARP) or plus
 * EST_SPREAD_OTHER (EMIT_OTHER: a warp of a block beside the counted one). */
enum { EMIT_UNITS, EMIT_WARP, EMIT_OTHER };

/* Appends the addresses of one kind (loads or stores) of field f issued by block blk at
 * s->buf[*n], as mode says, which s->buf must have room for. Only the warps w with
 * w % KEPLER_RODC_SLICES == slice issue them, or all when slice < 0. 0, or -1 with
 * err (deadline). */
static int emit_addresses(est_sampler *s, int f, int is_store, const int64_t blk[3],
                          int64_t granule, int slice, int mode, size_t *n, lr_error *err)
{
    const est_binding *b = s->b;
    int k = granule_log2(granule);
    for (int t = 0; t < b->threads; t++) {
        int64_t c[EST_NCOORD];
        if (slice >= 0 && (t / 32) % KEPLER_RODC_SLICES != slice)
            continue;
        if (est_ctx_expired(s->ctx))
            return est_sample_past_deadline(err);
        est_sample_coord(b, blk, t, c);
        int64_t label = mode == EMIT_WARP ? t / 32 : EST_SPREAD_OTHER;
        for (int i = b->first[f]; i < b->first[f] + b->count[f]; i++) {
            const est_inst *in = &b->inst[i];
            int valid;
            if (in->is_store != is_store)
                continue;
            int64_t a = est_inst_address(b, in, c, &valid);
            if (valid)
                s->buf[(*n)++] =
                    mode == EMIT_UNITS ? unit_of(a, granule, k) : a * EST_SPREAD_LABELS + label;
        }
    }
    return 0;
}

/* The sorted, unique addresses of one kind (loads or stores) of field f issued by
 * block blk, divided by granule, into s->buf; returns their count or -1. Only the
 * warps w with w % KEPLER_RODC_SLICES == slice issue them, or all when slice < 0.
 * With label (byte addresses of loads), the warp spread gets them first, sorted with
 * their warps (warp_spread.h). */
static int64_t collect_units(est_sampler *s, int f, int is_store, const int64_t blk[3],
                             int64_t granule, int slice, int label, lr_error *err)
{
    const est_binding *b = s->b;
    if (reserve(s, f, (size_t)b->threads * (size_t)b->count[f], err))
        return -1;
    size_t n = 0;
    if (emit_addresses(s, f, is_store, blk, granule, slice, label ? EMIT_WARP : EMIT_UNITS, &n,
                       err))
        return -1;
    sort_i64(s->buf, n, s->tmp);
    if (label) {
        if (est_wspread_field(s->wspread, f, blk, s->buf, n, err))
            return -1;
        for (size_t i = 0; i < n; i++)
            s->buf[i] = est_floordiv(s->buf[i], EST_SPREAD_LABELS);
    }
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || s->buf[i] != s->buf[u - 1])
            s->buf[u++] = s->buf[i];
    return (int64_t)u;
}

/* The units of block blk, like collect_units. A full block whose instructions move
 * together has the byte addresses of the first such block (its base) moved by the
 * difference of their shifts, and floor((a + delta) / granule) keeps the base's order:
 * its units follow from the base's sorted addresses in one pass, without sorting. */
static int64_t block_units(est_sampler *s, int f, int is_store, const int64_t blk[3],
                           int64_t granule, lr_error *err)
{
    const est_binding *b = s->b;
    if (!block_full(b, blk) || !translates(b, b->first[f], b->count[f], is_store))
        return collect_units(s, f, is_store, blk, granule, -1, 0, err);
    est_base_fp *base = &s->base[f][is_store];
    if (!base->addr) {
        int label = s->wspread && !is_store && est_wspread_wants(s->wspread, f) &&
                    block_full(b, est_wspread_block(s->wspread));
        int64_t n = collect_units(s, f, is_store, blk, 1, -1, label, err);
        if (n < 0)
            return -1;
        base->addr = malloc((size_t)(n ? n : 1) * sizeof *base->addr);
        if (!base->addr)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        memcpy(base->addr, s->buf, (size_t)n * sizeof *base->addr);
        base->n = (size_t)n;
        base->shift = block_shift(b, b->first[f], b->count[f], is_store, blk);
    }
    if (reserve(s, f, base->n, err))
        return -1;
    int64_t delta = block_shift(b, b->first[f], b->count[f], is_store, blk) - base->shift;
    size_t u = 0;
    int k = granule_log2(granule);
    for (size_t i = 0; i < base->n; i++) {
        int64_t unit = unit_of(base->addr[i] + delta, granule, k);
        if (u == 0 || unit != s->buf[u - 1])
            s->buf[u++] = unit;
    }
    return (int64_t)u;
}

/* Block footprints memoised by (field, kind, validity signature, shift mod granule).
 * The signature is the block index along each dimension in which the block is cut by
 * the domain boundary (-1 where it is whole): blocks with equal signatures have the
 * same set of active threads, so equal shifts give equal counts. */
typedef struct block_slot {
    int64_t sectors, lines;
    int64_t unwritten; /* stores: bytes their sectors still miss (model v2) */
} block_slot;

#define BLOCK_MEMO_SLOTS_LOG2 12 /* 4096 */
#define BLOCK_MEMO_PROBES 32

est_cache *est_block_memo_new(void)
{
    return est_cache_new(BLOCK_MEMO_SLOTS_LOG2, sizeof(block_slot), BLOCK_MEMO_PROBES);
}

/* The hash of the memo's key of field f's loads (st 0) or stores of block blk: the key
 * itself, mixed (est_cache_mix), so equal hashes are equal keys. */
static uint64_t block_memo_hash(const est_sampler *s, int f, int st, const int64_t blk[3])
{
    const est_binding *b = s->b;
    int64_t shift = block_shift(b, b->first[f], b->count[f], st, blk);
    shift -= est_floordiv(shift, s->granule) * s->granule;
    uint64_t key = (uint64_t)f * 2 + (uint64_t)st;
    for (int d = 0; d < 3; d++) {
        int64_t span = (int64_t)b->cfg.launch.block[d] * b->cfg.launch.folding[d];
        int64_t sig = (blk[d] + 1) * span > b->cfg.domain[d] ? blk[d] : -1;
        key = key * 0x100000001B3ull + (uint64_t)(sig + 2);
    }
    return est_cache_mix(key * 0x100000001B3ull + (uint64_t)shift);
}

/* Kepler: the sectors field f's loads of block blk bring from L2 into the read-only
 * cache's quarters, the sum of the footprints of the warps each quarter serves. */
static int64_t kepler_slice_sectors(est_sampler *s, int f, const int64_t blk[3], lr_error *err)
{
    int64_t sum = 0;
    for (int q = 0; q < KEPLER_RODC_SLICES; q++) {
        int64_t n = collect_units(s, f, 0, blk, s->b->dev->l2_sector_bytes, q, 0, err);
        if (n < 0)
            return -1;
        sum += n;
    }
    return sum;
}

/* The lines and (for loads) sectors of field f's loads (st 0) or stores of block blk:
 * the memo's slot when it has them, else counted, kept in the memo's slot when there
 * is one and returned there or in *fresh. NULL with err on failure. */
static const block_slot *block_counts(est_sampler *s, int f, int st, const int64_t blk[3],
                                      block_slot *fresh, lr_error *err)
{
    const est_binding *b = s->b;
    block_slot *m = NULL;
    uint64_t h = 0;
    int found = 0;
    if (translates(b, b->first[f], b->count[f], st)) {
        h = block_memo_hash(s, f, st, blk);
        m = est_cache_find(s->block_memo, h, NULL, NULL, &found);
    }
    if (found)
        return m;
    int64_t lines = block_units(s, f, st, blk, b->dev->l1_line_bytes, err);
    int64_t sec = b->dev->l2_sector_bytes, elem = b->k->fields[f].elem_bytes;
    int64_t sectors = 0, unwritten = 0;
    /* a gather's L2 reads on Kepler keep the block's footprint and the spill rule that
     * Langguth et al.'s K20 levels hold (docs/meshes.md) */
    if (lines >= 0 && !st && b->dev->l1_model == EST_L1_KEPLER && !b->spread)
        sectors = kepler_slice_sectors(s, f, blk, err);
    else if (lines >= 0 && !st)
        sectors = block_units(s, f, st, blk, sec, err);
    else if (lines >= 0 && b->rules.partial_sectors && elem < sec) {
        /* model v2: the bytes the stores' sectors still miss, the sectors they touch
         * less the elements they write (docs/model.md, "Partly written sectors") */
        int64_t touched = block_units(s, f, st, blk, sec, err);
        int64_t elems = touched < 0 ? -1 : block_units(s, f, st, blk, elem, err);
        unwritten = touched * sec - elems * elem;
        sectors = elems < 0 ? -1 : 0;
    }
    if (lines < 0 || sectors < 0)
        return NULL;
    *fresh = (block_slot){sectors, lines, unwritten};
    if (!m)
        return fresh;
    *m = *fresh;
    est_cache_take(s->block_memo, m, h);
    return m;
}

/* Block blk's footprints of every field, loads and stores, added to out. 0 or -1. */
static int sample_block(est_sampler *s, const int64_t blk[3], est_sample *out, lr_error *err)
{
    const est_binding *b = s->b;
    out->block_lups += block_lups(b, blk);
    out->nblocks++;
    for (int f = 0; f < b->k->nfields; f++) {
        for (int st = 0; st < 2; st++) {
            if (!(st ? b->k->fields[f].nstores : b->k->fields[f].nloads))
                continue;
            block_slot fresh;
            const block_slot *m = block_counts(s, f, st, blk, &fresh, err);
            if (!m)
                return -1;
            if (st) {
                out->f[f].blk_store_lines += (double)m->lines;
                out->f[f].blk_store_unwritten += (double)m->unwritten;
            } else {
                out->f[f].blk_load_lines += (double)m->lines;
                out->f[f].blk_load_sectors += (double)m->sectors;
            }
        }
    }
    return 0;
}

int est_sample_blocks(est_sampler *s, est_sample *out, lr_error *err)
{
    const est_binding *b = s->b;
    int64_t nblk[3];
    int64_t blk[3];
    for (int64_t i = 0; b->spread && i < est_spread_count(b); i++) {
        if (est_ctx_expired(s->ctx))
            return est_sample_past_deadline(err);
        est_spread_block(b, i, blk);
        if (sample_block(s, blk, out, err))
            return -1;
    }
    if (b->spread)
        return 0;
    for (int d = 0; d < 3; d++)
        nblk[d] = b->grid[d] < BLOCK_SAMPLE_BLOCKS ? b->grid[d] : BLOCK_SAMPLE_BLOCKS;
    for (blk[2] = 0; blk[2] < nblk[2]; blk[2]++)
        for (blk[1] = 0; blk[1] < nblk[1]; blk[1]++)
            for (blk[0] = 0; blk[0] < nblk[0]; blk[0]++) {
                if (est_ctx_expired(s->ctx))
                    return est_sample_past_deadline(err);
                if (sample_block(s, blk, out, err))
                    return -1;
            }
    return 0;
}

/* The sorted labelled keys of field f's loads of block blk into s->buf, as
 * emit_addresses's mode says; their count, or -1 with err. */
static int64_t labelled_keys(est_sampler *s, int f, const int64_t blk[3], int mode,
                             lr_error *err)
{
    size_t n = 0;
    if (reserve(s, f, (size_t)s->b->threads * (size_t)s->b->count[f], err) ||
        emit_addresses(s, f, 0, blk, 1, -1, mode, &n, err))
        return -1;
    sort_i64(s->buf, n, s->tmp);
    return (int64_t)n;
}

/* The fields the block pass left to the warp spread (its middle block is cut by the
 * domain, or their loads do not move with the block: no base block moves onto it) walk
 * the middle block, then each block beside it in x and y: one block's addresses at a
 * time, as many as the block pass held for every field. */
int est_sample_spread_rest(est_sampler *s, lr_error *err)
{
    const est_binding *b = s->b;
    for (int f = 0; s->wspread && f < b->k->nfields; f++) {
        if (!b->k->fields[f].nloads || !est_wspread_wants(s->wspread, f))
            continue;
        const int64_t *mid = est_wspread_block(s->wspread);
        int64_t n = labelled_keys(s, f, mid, EMIT_WARP, err);
        if (n < 0 || est_wspread_lone(s->wspread, f, mid, s->buf, (size_t)n, err))
            return -1;
        for (int d = 0; d < 2; d++)
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                int64_t nb[3] = {mid[0], mid[1], mid[2]};
                nb[d] += sgn;
                if (nb[d] < 0 || nb[d] >= b->grid[d])
                    continue;
                if ((n = labelled_keys(s, f, nb, EMIT_OTHER, err)) < 0)
                    return -1;
                est_wspread_exclude(s->wspread, s->buf, (size_t)n, 0);
            }
        est_wspread_count(s->wspread);
    }
    return 0;
}

/* |A ∩ B| for sorted unique A and B. */
static int64_t intersection_size(const int64_t *a, int64_t na, const int64_t *bb, int64_t nb)
{
    int64_t i = 0, j = 0, n = 0;
    while (i < na && j < nb) {
        int64_t x = a[i], y = bb[j];
        if (x == y) {
            n++;
            i++;
            j++;
        } else if (x < y) {
            i++;
        } else {
            j++;
        }
    }
    return n;
}

/* docs/model.md §4: sectors the middle block shares with the blocks that ran before it on
 * the same SM (linear ids id - k*SMs), averaged over those blocks. */
int est_sample_overlap(est_sampler *s, est_sample *out, lr_error *err)
{
    const est_binding *b = s->b;
    const int64_t *g = b->grid;
    int64_t mid[3] = {g[0] / 2, g[1] / 2, g[2] / 2};
    int64_t id = mid[0] + g[0] * (mid[1] + g[1] * mid[2]);
    out->mid_block_lups = block_lups(b, mid);
    int64_t sec = b->dev->l2_sector_bytes;
    for (int f = 0; f < b->k->nfields; f++) {
        if (!b->k->fields[f].nloads)
            continue;
        int64_t nm = block_units(s, f, 0, mid, sec, err);
        if (nm < 0)
            return -1;
        int64_t *sm = malloc((size_t)(nm ? nm : 1) * sizeof *sm);
        if (!sm)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        memcpy(sm, s->buf, (size_t)nm * sizeof *sm);
        int tr = translates(b, b->first[f], b->count[f], 0) && block_full(b, mid);
        double sum = 0;
        int count = 0;
        for (int k = 1; k <= OVERLAP_PREDECESSORS; k++) {
            int64_t pid = id - (int64_t)k * b->dev->sm_count;
            if (pid < 0)
                break;
            if (est_ctx_expired(s->ctx)) {
                free(sm);
                return est_sample_past_deadline(err);
            }
            int64_t p[3] = {pid % g[0], (pid / g[0]) % g[1], pid / (g[0] * g[1])};
            count++;
            if (nm == 0)
                continue;
            int64_t delta = block_shift(b, b->first[f], b->count[f], 0, p) -
                            block_shift(b, b->first[f], b->count[f], 0, mid);
            if (tr) {
                /* the predecessor's footprint lies within the middle one's moved by
                 * delta bytes (fewer threads may be active in it, never more): the two
                 * are disjoint when delta exceeds the footprint's span */
                int64_t span = (sm[nm - 1] - sm[0] + 1) * sec;
                if (delta >= span || -delta >= span)
                    continue;
            }
            int64_t np = block_units(s, f, 0, p, sec, err);
            if (np < 0) {
                free(sm);
                return -1;
            }
            sum += (double)intersection_size(sm, nm, s->buf, np);
        }
        out->f[f].overlap_sectors = count ? sum / count : 0;
        free(sm);
    }
    return 0;
}

/* ---- sorting: LSD radix sort, block address lists are large ---- */

/* Sorts a[0..n); tmp (n words) is the radix sort's second buffer, NULL: none, then an
 * insertion sort in place (slow but no failure). */
static void sort_i64(int64_t *a, size_t n, uint64_t *tmp)
{
    if (n < 64 || !tmp) { /* short, or out of memory for tmp: sort in place, not fail */
        for (size_t i = 1; i < n; i++) {
            int64_t v = a[i];
            size_t j = i;
            while (j > 0 && a[j - 1] > v) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    uint64_t *u = (uint64_t *)a, mn = UINT64_MAX, mx = 0;
    for (size_t i = 0; i < n; i++) {
        u[i] ^= 1ull << 63; /* order signed values as unsigned */
        if (u[i] < mn)
            mn = u[i];
        if (u[i] > mx)
            mx = u[i];
    }
    uint64_t range = mx - mn;
    uint64_t *src = u, *dst = tmp;
    for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += 11) {
        size_t cnt[2048] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((src[i] - mn) >> shift) & 2047]++;
        size_t pos = 0;
        for (int bkt = 0; bkt < 2048; bkt++) {
            size_t c = cnt[bkt];
            cnt[bkt] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[((src[i] - mn) >> shift) & 2047]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != u)
        memcpy(u, src, n * sizeof *u);
    for (size_t i = 0; i < n; i++)
        u[i] ^= 1ull << 63;
}
