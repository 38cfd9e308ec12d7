/*
 * sample_warp: the warp pass of the sampler (docs/model.md §3): every sampled warp's
 * L1 cycles (data-pipe and tag), the sectors its loads request from L2, its stores'
 * sectors and write requests, and Kepler's half-warp segments. A full warp's counts
 * for a group of instructions that move together are memoised by the group's shift
 * modulo the granule (sample.c says why that is exact).
 */
#include <stdlib.h>
#include <string.h>

#include "sample_int.h"
#include "warp_spread.h"
#include "warp_shapes.h"

/* Warps are sampled over the first 64 threads of each grid dimension (Warpspeed's
 * sample). */
#define WARP_SAMPLE_THREADS 64

/* Memo of full-warp counts: key (instruction, warp in block, shift mod granule).
 * 50 instructions x 32 warps x 16 shifts is a realistic worst case; 2^16 slots keep
 * the table sparse. The table is kept in the thread's est_ctx and emptied by each
 * sampling (est_cache_clear: no slot is touched). */
#define WARP_MEMO_SLOTS_LOG2 16
#define WARP_MEMO_PROBES 64

static int count_distinct_sorted(const int64_t *a, size_t n)
{
    int d = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || a[i] != a[i - 1])
            d++;
    return d;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* merge_step_stores merges the stores of groups of at most MERGE_MEMBERS members, at
 * most MERGE_STORES of them per folding step. */
#define MERGE_MEMBERS 1024
#define MERGE_STORES 64

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
 * for Kepler, the 128-B segments of each half-warp, or for a gather (an address read
 * through an index field) the read-only cache's 32-B lines (Langguth et al.: the
 * read-only cache fetches 32 B; docs/model.md "Gathers through an index field"). */
static est_warp_counts warp_metrics(const est_device *dev, int elem, const int64_t *addr, int n,
                                    int gather)
{
    int64_t words[32];
    for (int i = 0; i < n; i++)
        words[i] = est_floordiv(addr[i], elem);
    isort(words, n);
    int nbanks = dev->l1_bank_bytes_per_cycle / elem;
    if (nbanks < 1)
        nbanks = 1;
    int per_bank[1024] = {0}, dp = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && words[i] == words[i - 1])
            continue;
        int bank = (int)(words[i] - est_floordiv(words[i], nbanks) * nbanks);
        if (++per_bank[bank] > dp)
            dp = per_bank[bank];
    }
    int lines = distinct_granules(addr, n, dev->l1_line_bytes);
    int tag = (lines + 2 + 3) / 4;
    int m = 32 * elem / dev->l1_bank_bytes_per_cycle;
    if (m < 1)
        m = 1;
    int c = m;
    if (tag > c)
        c = tag;
    if (dp > c)
        c = dp;
    int half = n < 16 ? n : 16, seg = gather ? dev->l1_line_bytes : 128;
    double segments = distinct_granules(addr, half, seg) * (seg / 128.0);
    if (n > 16)
        segments += distinct_granules(addr + 16, n - 16, seg) * (seg / 128.0);
    int sectors = distinct_granules(addr, n, dev->l1_sector_bytes);
    return (est_warp_counts){
        .c = c, .tag = tag, .dp = dp, .load_sectors = sectors, .smx_segments = segments,
        .load_m = m, .load_lines = lines, .inst = 1, .load_inst = 1};
}

/* The one adder of the warp pass's counters: an instruction's into its group's sum, a
 * group's into its field's, a whole block's into the sample's. (Read from a copy, the
 * counters are added two at a time without first checking whether t and w overlap.) */
static void add_counts(est_warp_counts *t, const est_warp_counts *w)
{
    est_warp_counts add = *w;
    for (int i = 0; i < EST_WARP_COUNTERS; i++)
        t->v[i] += add.v[i];
}

/* Lattice updates of the lanes of warp w of block blk; *all_full is set when every
 * lane exists and updates its full folding (then every instruction runs on all 32
 * lanes). A warp's lanes span a box of threads, so the box corners decide fullness. */
static double warp_lups(const est_binding *b, const int64_t blk[3], int w, int lanes,
                        int64_t coords[32][EST_NCOORD], int *all_full)
{
    const int *fold = b->cfg.launch.folding;
    int64_t full = (int64_t)fold[0] * fold[1] * fold[2];
    est_sample_coord(b, blk, 32 * w, coords[0]);
    est_sample_coord(b, blk, 32 * w + lanes - 1, coords[lanes - 1]);
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
        est_sample_coord(b, blk, 32 * w + j, coords[j]);
        n += (double)est_thread_lups(b, coords[j]);
    }
    return n;
}

/* Counts of instruction i for the lanes of one warp; 0 when no lane executes it. */
static int inst_counts(est_sampler *s, int i, int lanes, int64_t coords[32][EST_NCOORD],
                       est_warp_counts *wc)
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
    *wc = warp_metrics(b->dev, b->k->fields[in->field].elem_bytes, addr, n,
                       (in->acc->uses & EST_USES_TABLE) != 0);
    if (in->is_store) {
        wc->store_sectors = wc->load_sectors;
        wc->load_sectors = 0;
        wc->store_lines = distinct_granules(addr, n, b->dev->l1_line_bytes);
        wc->store_c = wc->c;
        wc->load_m = 0;
        wc->load_lines = 0;
        wc->load_inst = 0;
    }
    return 1;
}

/* The bytes that the sectors written at key[0..n) still miss, and in *merged the writes
 * to the sectors they complete that L2 does not see: a sector that k stores of one step
 * complete reaches L2 as one write, not k (docs/model.md "Partly written sectors"). A
 * key is an element's address * MERGE_STORES + the index of the store that wrote it
 * (elements of elem bytes; sorted here, so by address). */
static double unwritten_bytes(int64_t *key, int n, int elem, int64_t sec, double *merged)
{
    uint64_t full = sec == 64 ? ~0ull : (1ull << sec) - 1;
    double unwritten = 0;
    qsort(key, (size_t)n, sizeof *key, cmp_i64);
    *merged = 0;
    for (int i = 0; i < n;) {
        int64_t s0 = est_floordiv(est_floordiv(key[i], MERGE_STORES), sec);
        uint64_t bytes = 0, stores = 0;
        for (; i < n; i++) {
            int64_t a = est_floordiv(key[i], MERGE_STORES);
            if (est_floordiv(a, sec) != s0)
                break;
            bytes |= ((1ull << elem) - 1) << (a - s0 * sec);
            stores |= 1ull << (key[i] - a * MERGE_STORES);
        }
        int missing = (int)sec - __builtin_popcountll(bytes & full);
        unwritten += (double)missing;
        if (missing == 0)
            *merged += (double)(__builtin_popcountll(stores) - 1);
    }
    return unwritten;
}

/* The binding's partial_sectors rule (model v2; docs/model.md, "Partly written
 * sectors"): the bytes that the sectors group G's stores write for the lanes at coords
 * still miss after each folding step, the stores of one step merged, into
 * wc->store_unwritten; the writes to sectors a step's stores complete beyond the first,
 * into wc->store_merged. A kernel whose threads store
 * after all their steps (est_kernel_defers_stores) merges the stores of every step as
 * one step's. Steps with more than MERGE_STORES stores of the group, groups of more than
 * MERGE_MEMBERS members and elements as wide as a sector count none. */
static void merge_step_stores(const est_binding *b, const est_group *G, int lanes,
                              int64_t coords[32][EST_NCOORD], est_warp_counts *wc)
{
    int64_t key[MERGE_STORES * 32], sec = b->dev->l1_sector_bytes;
    int elem = b->k->fields[G->field].elem_bytes;
    if (G->n > MERGE_MEMBERS || !b->rules.partial_sectors || elem >= sec || sec > 64)
        return;
    char done[MERGE_MEMBERS] = {0};
    double unwritten = 0, merged_all = 0;
    int one_step = b->merge_all_steps;
    for (int m = 0; m < G->n; m++) {
        const est_inst *in = &b->inst[b->member[G->first + m]];
        if (!in->is_store || done[m])
            continue;
        int n = 0, valid, members = 0;
        for (int o = m; o < G->n; o++) {
            const est_inst *io = &b->inst[b->member[G->first + o]];
            if (!io->is_store || (!one_step && memcmp(io->step, in->step, sizeof in->step)))
                continue;
            done[o] = 1;
            if (members == MERGE_STORES)
                return; /* too many to merge */
            for (int j = 0; j < lanes; j++) {
                int64_t a = est_inst_address(b, io, coords[j], &valid);
                if (valid)
                    key[n++] = a * MERGE_STORES + members;
            }
            members++;
        }
        double merged;
        unwritten += unwritten_bytes(key, n, elem, sec, &merged);
        merged_all += merged;
    }
    wc->store_unwritten = unwritten;
    wc->store_merged = merged_all;
}

/* The summed counts of group G's members for the lanes at coords (all of them, for a
 * full warp whose first address is a0, through the shape memo when it applies). */
static est_warp_counts group_counts(est_sampler *s, const est_group *G, int lanes, int full,
                                    int64_t a0, int64_t coords[32][EST_NCOORD])
{
    int64_t key[EST_SHAPE_KEY_MAX];
    int n = full && s->shapes ? est_warp_shapes_key(s, G, a0, coords, key) : 0;
    uint64_t h = n ? est_cache_hash(key, n) : 0;
    est_warp_counts sum = {0}, wc;
    if (n && est_warp_shapes_get(s->shapes, key, n, h, &sum))
        return sum;
    for (int m = 0; m < G->n; m++)
        if (inst_counts(s, s->b->member[G->first + m], lanes, coords, &wc))
            add_counts(&sum, &wc);
    merge_step_stores(s->b, G, lanes, coords, &sum);
    if (n)
        est_warp_shapes_put(s->shapes, key, n, h, &sum);
    return sum;
}

/* One warp (warp index w of block blk): every instruction's counts. A full warp's
 * counts for a group of instructions that move together depend only on the group's
 * shift modulo the granule, so they are memoised per (group, warp, shift), and across
 * estimates by the shape memo. 0, or -1 when the deadline passed (a warp of a large
 * kernel can have 10^5 groups, so the flag is read per group). */
static int sample_warp(est_sampler *s, const int64_t blk[3], int w, est_sample *out)
{
    const est_binding *b = s->b;
    int lanes = b->threads - 32 * w < 32 ? b->threads - 32 * w : 32;
    int64_t coords[32][EST_NCOORD];
    int all_full, have_coords;
    double lups = warp_lups(b, blk, w, lanes, coords, &all_full);
    out->warp_lups += lups;
    out->warps += lups > 0;
    have_coords = !all_full;
    for (int g = 0; g < b->ngroups; g++) {
        const est_group *G = &b->groups[g];
        est_packed_counts *sl = NULL;
        uint64_t h = 0;
        int64_t a0 = 0;
        if (est_ctx_expired(s->ctx))
            return -1;
        if (G->affine && all_full) {
            int valid;
            a0 = est_inst_address(b, &b->inst[b->member[G->first]], coords[0], &valid);
            int64_t shift = est_mod_granule(s->granule, a0);
            int found;
            h = est_cache_mix(((uint64_t)g * 64 + (uint64_t)w) * (uint64_t)s->granule +
                              (uint64_t)shift);
            sl = est_cache_find(s->warp_memo, h, NULL, NULL, &found);
            if (found) {
                est_warp_counts kept = est_unpack_counts(sl);
                add_counts(&out->f[G->field].warp, &kept);
                continue;
            }
        }
        if (!have_coords) {
            for (int j = 1; j < lanes; j++)
                est_sample_coord(b, blk, 32 * w + j, coords[j]);
            have_coords = 1;
        }
        est_warp_counts sum = group_counts(s, G, lanes, G->affine && all_full, a0, coords);
        if (sl) {
            *sl = est_pack_counts(&sum);
            est_cache_take(s->warp_memo, sl, h);
        }
        add_counts(&out->f[G->field].warp, &sum);
    }
    return 0;
}

/* ---- whole blocks: the warp pass per block ---- */

/* A block whose warps are all sampled and full adds, per field, counts that depend only
 * on where each group's addresses start modulo the granule (the per-warp shifts follow
 * from those), once every count is exact under such moves (est_warp_shapes_exact). Within one
 * estimate, the blocks of the warp pass repeat a handful of these start vectors, so
 * their sums are kept by that vector: a block costs one address per group instead of
 * one per group and warp. */
#define WBLOCK_SLOTS 64        /* start vectors kept per estimate; later ones are counted */
#define WBLOCK_INDEX_LOG2 7    /* the index of the kept vectors: 128 slots, half full */
#define WBLOCK_MAX_GROUPS 1024 /* larger kernels are counted warp by warp */

typedef struct wblock_memo {
    int ngroups, n;
    est_cache *index; /* owned; vector -> its row (an int) */
    double lups[WBLOCK_SLOTS];
    double warps[WBLOCK_SLOTS]; /* warps that update a lattice point */
    int64_t *keys;         /* (WBLOCK_SLOTS + 1) x ngroups, the last row a candidate's */
    est_warp_counts *sums; /* WBLOCK_SLOTS x nfields, the warp pass's counters; owned */
    est_sample scratch;    /* one block's counts */
} wblock_memo;

static void wblock_free(wblock_memo *m);

typedef struct wblock_key {
    const wblock_memo *m;
    const int64_t *key;
} wblock_key;

static int same_start(const void *payload, const void *key)
{
    const wblock_key *k = key;
    size_t ng = (size_t)k->m->ngroups;
    size_t row = (size_t)*(const int *)payload;
    return !memcmp(&k->m->keys[row * ng], k->key, ng * sizeof *k->key);
}

/* The memo for this estimate (free with wblock_free), or NULL when its blocks cannot
 * be memoised this way (a group not affine or not exact under moves) or no memory. */
static wblock_memo *wblock_new(const est_sampler *s)
{
    const est_binding *b = s->b;
    if (b->threads % 32 || b->ngroups > WBLOCK_MAX_GROUPS)
        return NULL;
    for (int g = 0; g < b->ngroups; g++)
        if (!b->groups[g].affine ||
            !est_warp_shapes_exact(b->dev, s->granule,
                                   b->k->fields[b->groups[g].field].elem_bytes))
            return NULL;
    wblock_memo *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->ngroups = b->ngroups;
    m->keys = malloc((size_t)(WBLOCK_SLOTS + 1) * (size_t)(b->ngroups ? b->ngroups : 1) *
                     sizeof *m->keys);
    m->sums = malloc((size_t)WBLOCK_SLOTS * (size_t)b->k->nfields * sizeof *m->sums);
    m->index = est_cache_new(WBLOCK_INDEX_LOG2, sizeof(int), 1 << WBLOCK_INDEX_LOG2);
    if (!m->keys || !m->sums || !m->index) {
        wblock_free(m);
        return NULL;
    }
    return m;
}

static void wblock_free(wblock_memo *m)
{
    if (!m)
        return;
    est_cache_free(m->index);
    free(m->keys);
    free(m->sums);
    free(m);
}

/* Whether every warp of block blk is sampled (inside lim) and full (every thread's
 * lattice points in the domain, 32 lanes each). */
static int wblock_whole(const est_binding *b, const int64_t blk[3], const int64_t lim[3])
{
    for (int d = 0; d < 3; d++) {
        int64_t end = (blk[d] + 1) * b->cfg.launch.block[d];
        if (end > lim[d] || end * b->cfg.launch.folding[d] > b->cfg.domain[d])
            return 0;
    }
    return b->threads % 32 == 0;
}

/* The warp pass of whole block blk (wblock_whole) into out, through m. 0, or -1 when
 * the deadline passed. */
static int wblock_sample(est_sampler *s, wblock_memo *m, const int64_t blk[3], int nwarps,
                         est_sample *out)
{
    const est_binding *b = s->b;
    int nf = b->k->nfields, valid, slot = -1, found;
    int64_t c[EST_NCOORD], *key = &m->keys[(size_t)m->n * (size_t)m->ngroups];
    if (est_ctx_expired(s->ctx))
        return -1;
    est_sample_coord(b, blk, 0, c);
    for (int g = 0; g < m->ngroups; g++) {
        const est_inst *first = &b->inst[b->member[b->groups[g].first]];
        key[g] = est_mod_granule(s->granule, est_inst_address(b, first, c, &valid));
    }
    uint64_t h = est_cache_hash(key, m->ngroups);
    wblock_key k = {m, key};
    int *row = est_cache_find(m->index, h, same_start, &k, &found);
    if (found)
        slot = *row;
    if (slot < 0) {
        est_sample *t = &m->scratch;
        t->warp_lups = 0;
        t->warps = 0;
        memset(t->f, 0, (size_t)nf * sizeof *t->f);
        for (int w = 0; w < nwarps; w++)
            if (sample_warp(s, blk, w, t))
                return -1;
        if (m->n == WBLOCK_SLOTS) { /* full: this block's counts go out unkept */
            out->warp_lups += t->warp_lups;
            out->warps += t->warps;
            for (int f = 0; f < nf; f++)
                add_counts(&out->f[f].warp, &t->f[f].warp);
            return 0;
        }
        slot = m->n++;
        *row = slot; /* never NULL: the index is at most half full */
        est_cache_take(m->index, row, h);
        m->lups[slot] = t->warp_lups;
        m->warps[slot] = t->warps;
        for (int f = 0; f < nf; f++)
            m->sums[(size_t)slot * (size_t)nf + (size_t)f] = t->f[f].warp;
    }
    out->warp_lups += m->lups[slot];
    out->warps += m->warps[slot];
    for (int f = 0; f < nf; f++)
        add_counts(&out->f[f].warp, &m->sums[(size_t)slot * (size_t)nf + (size_t)f]);
    return 0;
}

/* The warps of block blk inside lim into out, one by one. 0, or -1 (deadline). */
static int sample_warps_of(est_sampler *s, const int64_t blk[3], const int64_t lim[3],
                           int nwarps, est_sample *out)
{
    const est_binding *b = s->b;
    for (int w = 0; w < nwarps; w++) {
        int64_t c[EST_NCOORD];
        est_sample_coord(b, blk, 32 * w, c);
        int inside = 1;
        for (int d = 0; d < 3; d++)
            inside &= blk[d] * b->cfg.launch.block[d] + c[EST_T_X + d] < lim[d];
        if (inside && sample_warp(s, blk, w, out))
            return -1;
    }
    return 0;
}

int est_sample_warps(est_sampler *s, est_sample *out, lr_error *err)
{
    const est_binding *b = s->b;
    est_ctx *ctx = s->ctx;
    if (!ctx->warp_memo)
        ctx->warp_memo =
            est_cache_new(WARP_MEMO_SLOTS_LOG2, sizeof(est_packed_counts), WARP_MEMO_PROBES);
    if (!ctx->warp_memo)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    est_cache_clear(ctx->warp_memo);
    s->warp_memo = ctx->warp_memo;
    if (!ctx->warp_shapes) /* no memory for it: counted without, just as exactly */
        ctx->warp_shapes = est_warp_shapes_new();
    s->shapes = ctx->warp_shapes;
    const int *bd = b->cfg.launch.block;
    int64_t lim[3], nblk[3];
    int nwarps = (b->threads + 31) / 32, rc = 0;
    if (b->spread) {
        for (int d = 0; d < 3; d++)
            lim[d] = b->cfg.domain[d];
        int64_t blk[3];
        for (int64_t i = 0; i < est_spread_count(b) && !rc; i++) {
            est_spread_block(b, i, blk);
            rc = sample_warps_of(s, blk, lim, nwarps, out);
        }
        return rc ? est_sample_past_deadline(err) : 0;
    }
    for (int d = 0; d < 3; d++) {
        int64_t ext = b->grid[d] * bd[d];
        lim[d] = ext < WARP_SAMPLE_THREADS ? ext : WARP_SAMPLE_THREADS;
        nblk[d] = (lim[d] + bd[d] - 1) / bd[d];
    }
    wblock_memo *m = wblock_new(s); /* NULL: warp by warp, just as exactly */
    int64_t blk[3];
    for (blk[2] = 0; blk[2] < nblk[2] && !rc; blk[2]++)
        for (blk[1] = 0; blk[1] < nblk[1] && !rc; blk[1]++)
            for (blk[0] = 0; blk[0] < nblk[0] && !rc; blk[0]++)
                rc = m && wblock_whole(b, blk, lim) ? wblock_sample(s, m, blk, nwarps, out)
                                                    : sample_warps_of(s, blk, lim, nwarps, out);
    wblock_free(m);
    return rc ? est_sample_past_deadline(err) : 0;
}

int est_sample_spread_requests(est_sampler *s, est_sample *scratch, lr_error *err)
{
    const est_binding *b = s->b;
    double *requests = est_wspread_requests(s->wspread), before = 0;
    memset(scratch, 0, sizeof *scratch);
    for (int w = 0; w < (b->threads + 31) / 32; w++) {
        if (sample_warp(s, est_wspread_block(s->wspread), w, scratch))
            return est_sample_past_deadline(err);
        double now = 0;
        for (int f = 0; f < b->k->nfields; f++)
            now += scratch->f[f].warp.load_sectors;
        requests[w] = now - before;
        before = now;
    }
    return 0;
}
