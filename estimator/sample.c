/*
 * sample: L1 cycles (docs/model.md §3) and L2<-L1 volumes (section 4) from the
 * concrete addresses of sampled warps and thread blocks.
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

#include "estimator_int.h"

/* Warps are sampled over the first 64 threads of each grid dimension and blocks over
 * the first 8 blocks of each dimension (Warpspeed's sample). */
#define WARP_SAMPLE_THREADS 64
#define BLOCK_SAMPLE_BLOCKS 8
/* Blocks that ran earlier on the same SM whose reuse is averaged (docs/model.md §4). */
#define OVERLAP_PREDECESSORS 40
/* One block's address list must fit comfortably in memory: 1024 threads x 4096
 * instructions is 32 MiB of addresses. */
#define MAX_BLOCK_ADDRESSES (1 << 22)

typedef struct warp_counts {
    int c, tag, dp;
    int load_sectors, store_sectors, segments;
    int store_lines; /* distinct L1 lines of a store instruction: its L2 write requests */
} warp_counts;

/* Memo of full-warp counts: key (instruction, warp in block, shift mod granule).
 * 50 instructions x 32 warps x 16 shifts is a realistic worst case; 2^16 slots keep
 * the table sparse. Slots carry the generation of the estimate that wrote them, so
 * the table (kept in the thread's est_ctx) never needs clearing. */
#define WARP_MEMO_SLOTS (1 << 16)
struct est_warp_slot {
    uint64_t key;
    uint32_t gen;
    warp_counts v;
};
typedef struct est_warp_slot warp_slot;

/* The sorted unique byte addresses of one full block, from which every other full
 * block's footprint follows (block_units). */
typedef struct base_fp {
    int64_t *addr; /* owned; NULL until computed */
    size_t n;
    int64_t shift;
} base_fp;

typedef struct sampler {
    est_ctx *ctx; /* for its deadline flag */
    const est_binding *b;
    base_fp base[EST_MAX_FIELDS][2];
    int64_t granule; /* all counts depend on addresses modulo this */
    uint32_t gen;
    warp_slot *warp_memo;
    struct block_slot *block_memo;
    int64_t *buf; /* block address buffer */
    size_t bufcap;
} sampler;

static void sort_i64(int64_t *a, size_t n);

/* The error of a sampler that found its deadline passed; returns -1. */
static int past_deadline(lr_error *err)
{
    return lr_error_set(err, LR_BUDGET_EXCEEDED, NULL,
                        "the request ran past its time limit while sampling warps and "
                        "blocks; use fewer accesses, less folding or smaller blocks, rank "
                        "fewer configurations or raise the limit");
}

static int count_distinct_sorted(const int64_t *a, size_t n)
{
    int d = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || a[i] != a[i - 1])
            d++;
    return d;
}

static void isort(int64_t *a, int n)
{
    for (int i = 1; i < n; i++) {
        int64_t v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static int distinct_granules(const int64_t *addr, int n, int64_t g)
{
    int64_t k[32];
    for (int i = 0; i < n; i++)
        k[i] = est_floordiv(addr[i], g);
    isort(k, n);
    return count_distinct_sorted(k, (size_t)n);
}

/* docs/model.md §3: data-pipe cycles (bank conflicts of distinct words), tag cycles
 * (distinct lines), the half-warp minimum; plus the sectors requested from L2 and,
 * for Kepler, the 128-B segments of each half-warp. */
static warp_counts warp_metrics(const est_device *dev, int elem, const int64_t *addr, int n)
{
    warp_counts w = {0};
    int64_t words[32];
    for (int i = 0; i < n; i++)
        words[i] = est_floordiv(addr[i], elem);
    isort(words, n);
    int nbanks = dev->l1_bank_bytes_per_cycle / elem;
    if (nbanks < 1)
        nbanks = 1;
    int per_bank[1024] = {0};
    for (int i = 0; i < n; i++) {
        if (i > 0 && words[i] == words[i - 1])
            continue;
        int bank = (int)(words[i] - est_floordiv(words[i], nbanks) * nbanks);
        if (++per_bank[bank] > w.dp)
            w.dp = per_bank[bank];
    }
    int lines = distinct_granules(addr, n, dev->l1_line_bytes);
    w.tag = (lines + 2 + 3) / 4;
    int m = 32 * elem / dev->l1_bank_bytes_per_cycle;
    if (m < 1)
        m = 1;
    w.c = m;
    if (w.tag > w.c)
        w.c = w.tag;
    if (w.dp > w.c)
        w.c = w.dp;

    w.load_sectors = distinct_granules(addr, n, dev->l1_sector_bytes);
    int half = n < 16 ? n : 16;
    w.segments = distinct_granules(addr, half, 128);
    if (n > 16)
        w.segments += distinct_granules(addr + 16, n - 16, 128);
    return w;
}

static warp_slot *warp_memo_find(sampler *s, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    for (int probe = 0; probe < 64; probe++) {
        warp_slot *sl = &s->warp_memo[(h >> 40) % WARP_MEMO_SLOTS];
        if (sl->gen != s->gen) {
            sl->gen = s->gen;
            sl->key = 0;
        }
        if (sl->key == key || sl->key == 0)
            return sl;
        h += 0x632BE59BD9B4E019ull;
    }
    return NULL;
}

static void coord_of(const est_binding *b, const int64_t blk[3], int lin, int64_t c[EST_NCOORD])
{
    const int *bd = b->cfg.launch.block;
    c[EST_T_X] = lin % bd[0];
    c[EST_T_Y] = (lin / bd[0]) % bd[1];
    c[EST_T_Z] = lin / (bd[0] * bd[1]);
    for (int d = 0; d < 3; d++)
        c[EST_B_X + d] = blk[d];
}

static void add_counts(est_field_sample *fs, const warp_counts *w)
{
    fs->c += w->c;
    fs->tag += w->tag;
    fs->dp += w->dp;
    /* Kepler's SMX volume counts stores too (Su et al.: 7 loads + 1 store = 80 B/Lup) */
    fs->smx_segments += w->segments;
    fs->store_sectors += w->store_sectors;
    fs->store_lines += w->store_lines;
    fs->load_sectors += w->load_sectors;
}

static void sum_counts(warp_counts *t, const warp_counts *w)
{
    t->c += w->c;
    t->tag += w->tag;
    t->dp += w->dp;
    t->segments += w->segments;
    t->store_sectors += w->store_sectors;
    t->store_lines += w->store_lines;
    t->load_sectors += w->load_sectors;
}

/* Lattice updates of the lanes of warp w of block blk; *all_full is set when every
 * lane exists and updates its full folding (then every instruction runs on all 32
 * lanes). A warp's lanes span a box of threads, so the box corners decide fullness. */
static double warp_lups(const est_binding *b, const int64_t blk[3], int w, int lanes,
                        int64_t coords[32][EST_NCOORD], int *all_full)
{
    const int *fold = b->cfg.launch.folding;
    int64_t full = (int64_t)fold[0] * fold[1] * fold[2];
    coord_of(b, blk, 32 * w, coords[0]);
    coord_of(b, blk, 32 * w + lanes - 1, coords[lanes - 1]);
    int64_t hi[EST_NCOORD];
    memcpy(hi, coords[0], sizeof hi);
    for (int d = 0; d < 3; d++) {
        /* the last lane has the largest y and z; x spans the block row if the warp wraps */
        int64_t last = coords[lanes - 1][EST_T_X + d];
        hi[EST_T_X + d] = d == 0 && coords[lanes - 1][EST_T_Y] + coords[lanes - 1][EST_T_Z] !=
                                        coords[0][EST_T_Y] + coords[0][EST_T_Z]
                              ? b->cfg.launch.block[0] - 1
                              : last;
    }
    *all_full = lanes == 32 && est_thread_lups(b, hi) == full;
    if (*all_full)
        return 32.0 * (double)full;
    double n = 0;
    for (int j = 0; j < lanes; j++) {
        coord_of(b, blk, 32 * w + j, coords[j]);
        n += (double)est_thread_lups(b, coords[j]);
    }
    return n;
}

/* Counts of instruction i for the lanes of one warp; 0 when no lane executes it. */
static int inst_counts(sampler *s, int i, int lanes, int64_t coords[32][EST_NCOORD],
                       warp_counts *wc)
{
    const est_binding *b = s->b;
    const est_inst *in = &b->inst[i];
    int64_t addr[32];
    int n = 0, valid;
    for (int j = 0; j < lanes; j++) {
        int64_t a = est_inst_address(b, in, coords[j], &valid);
        if (valid)
            addr[n++] = a;
    }
    if (n == 0)
        return 0;
    *wc = warp_metrics(b->dev, b->k->fields[in->field].elem_bytes, addr, n);
    if (in->is_store) {
        wc->store_sectors = wc->load_sectors;
        wc->load_sectors = 0;
        wc->store_lines = distinct_granules(addr, n, b->dev->l1_line_bytes);
    }
    return 1;
}

/* One warp (warp index w of block blk): every instruction's counts. A full warp's
 * counts for a group of instructions that move together depend only on the group's
 * shift modulo the granule, so they are memoised per (group, warp, shift). 0, or -1
 * when the deadline passed (a warp of a large kernel can have 10^5 groups, so the
 * flag is read per group). */
static int sample_warp(sampler *s, const int64_t blk[3], int w, est_sample *out)
{
    const est_binding *b = s->b;
    int lanes = b->threads - 32 * w < 32 ? b->threads - 32 * w : 32;
    int64_t coords[32][EST_NCOORD];
    int all_full, have_coords;
    out->warp_lups += warp_lups(b, blk, w, lanes, coords, &all_full);
    have_coords = !all_full;
    for (int g = 0; g < b->ngroups; g++) {
        const est_group *G = &b->groups[g];
        warp_slot *sl = NULL;
        uint64_t key = 0;
        if (est_ctx_expired(s->ctx))
            return -1;
        if (G->affine && all_full) {
            int valid;
            int64_t a0 = est_inst_address(b, &b->inst[b->member[G->first]], coords[0], &valid);
            int64_t shift = a0 - est_floordiv(a0, s->granule) * s->granule;
            key =
                (((uint64_t)g * 64 + (uint64_t)w) * (uint64_t)s->granule + (uint64_t)shift) + 1;
            sl = warp_memo_find(s, key);
            if (sl && sl->key == key) {
                add_counts(&out->f[G->field], &sl->v);
                continue;
            }
        }
        if (!have_coords) {
            for (int j = 1; j < lanes; j++)
                coord_of(b, blk, 32 * w + j, coords[j]);
            have_coords = 1;
        }
        warp_counts sum = {0}, wc;
        for (int m = 0; m < G->n; m++)
            if (inst_counts(s, b->member[G->first + m], lanes, coords, &wc))
                sum_counts(&sum, &wc);
        if (sl) {
            sl->key = key;
            sl->v = sum;
        }
        add_counts(&out->f[G->field], &sum);
    }
    return 0;
}

static int warp_pass(sampler *s, est_sample *out, lr_error *err)
{
    const est_binding *b = s->b;
    const int *bd = b->cfg.launch.block;
    int64_t lim[3], nblk[3];
    for (int d = 0; d < 3; d++) {
        int64_t ext = b->grid[d] * bd[d];
        lim[d] = ext < WARP_SAMPLE_THREADS ? ext : WARP_SAMPLE_THREADS;
        nblk[d] = (lim[d] + bd[d] - 1) / bd[d];
    }
    int nwarps = (b->threads + 31) / 32;
    int64_t blk[3];
    for (blk[2] = 0; blk[2] < nblk[2]; blk[2]++)
        for (blk[1] = 0; blk[1] < nblk[1]; blk[1]++)
            for (blk[0] = 0; blk[0] < nblk[0]; blk[0]++)
                for (int w = 0; w < nwarps; w++) {
                    int64_t c[EST_NCOORD];
                    coord_of(b, blk, 32 * w, c);
                    int inside = 1;
                    for (int d = 0; d < 3; d++)
                        inside &= blk[d] * bd[d] + c[EST_T_X + d] < lim[d];
                    if (inside && sample_warp(s, blk, w, out))
                        return past_deadline(err);
                }
    return 0;
}

/* ---- block footprints ---- */

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

/* Collects the addresses of one kind (loads or stores) of field f issued by block
 * blk, divided by granule, sorted and made unique. Returns the count or -1. */
/* Makes room for need addresses in s->buf. 0 or -1 with err. */
static int reserve(sampler *s, int f, size_t need, lr_error *err)
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
    }
    return 0;
}

/* The sorted, unique addresses of one kind (loads or stores) of field f issued by
 * block blk, divided by granule, into s->buf; returns their count or -1. */
static int64_t collect_units(sampler *s, int f, int is_store, const int64_t blk[3],
                             int64_t granule, lr_error *err)
{
    const est_binding *b = s->b;
    if (reserve(s, f, (size_t)b->threads * (size_t)b->count[f], err))
        return -1;
    size_t n = 0;
    for (int t = 0; t < b->threads; t++) {
        int64_t c[EST_NCOORD];
        if (est_ctx_expired(s->ctx))
            return past_deadline(err);
        coord_of(b, blk, t, c);
        for (int i = b->first[f]; i < b->first[f] + b->count[f]; i++) {
            const est_inst *in = &b->inst[i];
            int valid;
            if (in->is_store != is_store)
                continue;
            int64_t a = est_inst_address(b, in, c, &valid);
            if (valid)
                s->buf[n++] = est_floordiv(a, granule);
        }
    }
    sort_i64(s->buf, n);
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
static int64_t block_units(sampler *s, int f, int is_store, const int64_t blk[3],
                           int64_t granule, lr_error *err)
{
    const est_binding *b = s->b;
    if (!block_full(b, blk) || !translates(b, b->first[f], b->count[f], is_store))
        return collect_units(s, f, is_store, blk, granule, err);
    base_fp *base = &s->base[f][is_store];
    if (!base->addr) {
        int64_t n = collect_units(s, f, is_store, blk, 1, err);
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
    for (size_t i = 0; i < base->n; i++) {
        int64_t unit = est_floordiv(base->addr[i] + delta, granule);
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
    uint64_t key;  /* 0 = empty */
    uint64_t want; /* the key this slot is reserved for */
    int64_t sectors, lines;
} block_slot;

#define BLOCK_MEMO_SLOTS 4096

static block_slot *block_memo_find(sampler *s, int f, int st, const int64_t blk[3])
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
    key = (key * 0x100000001B3ull + (uint64_t)shift) | 1; /* never 0 */
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    for (int probe = 0; probe < 32; probe++) {
        block_slot *m = &s->block_memo[(h >> 40) % BLOCK_MEMO_SLOTS];
        if (m->key == key)
            return m;
        if (m->key == 0 && m->want == 0) {
            m->want = key;
            return m;
        }
        if (m->key == 0 && m->want == key)
            return m;
        h += 0x632BE59BD9B4E019ull;
    }
    return NULL;
}

static int block_pass(sampler *s, est_sample *out, lr_error *err)
{
    const est_binding *b = s->b;
    const est_device *dev = b->dev;
    int64_t nblk[3];
    for (int d = 0; d < 3; d++)
        nblk[d] = b->grid[d] < BLOCK_SAMPLE_BLOCKS ? b->grid[d] : BLOCK_SAMPLE_BLOCKS;
    int nf = b->k->nfields;
    int rc = 0;
    int64_t blk[3];
    for (blk[2] = 0; blk[2] < nblk[2] && !rc; blk[2]++)
        for (blk[1] = 0; blk[1] < nblk[1] && !rc; blk[1]++)
            for (blk[0] = 0; blk[0] < nblk[0] && !rc; blk[0]++) {
                if (est_ctx_expired(s->ctx)) {
                    rc = past_deadline(err);
                    break;
                }
                out->block_lups += block_lups(b, blk);
                out->nblocks++;
                for (int f = 0; f < nf && !rc; f++) {
                    for (int st = 0; st < 2; st++) {
                        int has = st ? b->k->fields[f].nstores : b->k->fields[f].nloads;
                        if (!has)
                            continue;
                        block_slot *m = NULL, fresh;
                        if (translates(b, b->first[f], b->count[f], st))
                            m = block_memo_find(s, f, st, blk);
                        if (!m || m->key == 0) {
                            int64_t lines = block_units(s, f, st, blk, dev->l1_line_bytes, err);
                            int64_t sectors =
                                st ? 0 : block_units(s, f, st, blk, dev->l2_sector_bytes, err);
                            if (lines < 0 || sectors < 0) {
                                rc = -1;
                                break;
                            }
                            fresh =
                                (block_slot){m ? m->want : 0, m ? m->want : 0, sectors, lines};
                            if (m)
                                *m = fresh;
                            else
                                m = &fresh;
                        }
                        if (st) {
                            out->f[f].blk_store_lines += (double)m->lines;
                        } else {
                            out->f[f].blk_load_lines += (double)m->lines;
                            out->f[f].blk_load_sectors += (double)m->sectors;
                        }
                    }
                }
            }
    return rc;
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
static int overlap_pass(sampler *s, est_sample *out, lr_error *err)
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
                return past_deadline(err);
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

static void sort_i64(int64_t *a, size_t n)
{
    if (n < 64) {
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
    uint64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) {
        /* fall back to an in-place sort rather than fail */
        for (size_t i = 1; i < n; i++) {
            uint64_t v = u[i];
            size_t j = i;
            while (j > 0 && u[j - 1] > v) {
                u[j] = u[j - 1];
                j--;
            }
            u[j] = v;
        }
    } else {
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
        free(tmp);
    }
    for (size_t i = 0; i < n; i++)
        u[i] ^= 1ull << 63;
}

int est_sample_run(est_ctx *ctx, const est_binding *b, est_sample *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ctx->warp_memo)
        ctx->warp_memo = calloc(WARP_MEMO_SLOTS, sizeof *ctx->warp_memo);
    if (!ctx->warp_memo)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    sampler s = {.ctx = ctx,
                 .b = b,
                 .granule = 128,
                 .gen = ++ctx->warp_memo_gen,
                 .warp_memo = ctx->warp_memo};
    int g[] = {b->dev->l1_line_bytes, b->dev->l1_sector_bytes, b->dev->l2_sector_bytes,
               b->dev->l1_bank_bytes_per_cycle};
    for (int i = 0; i < 4; i++)
        if (g[i] > s.granule)
            s.granule = g[i];
    s.block_memo = calloc(BLOCK_MEMO_SLOTS, sizeof *s.block_memo);
    int rc = 0;
    if (!s.block_memo)
        rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (!rc && est_ctx_expired(ctx)) /* binding may have taken the rest of the time */
        rc = past_deadline(err);
    if (!rc)
        rc = warp_pass(&s, out, err);
    if (!rc)
        rc = block_pass(&s, out, err);
    if (!rc)
        rc = overlap_pass(&s, out, err);
    free(s.block_memo);
    for (int f = 0; f < EST_MAX_FIELDS; f++)
        for (int k = 0; k < 2; k++)
            free(s.base[f][k].addr);
    free(s.buf);
    return rc;
}
