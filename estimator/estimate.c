/*
 * estimate: one configuration from occupancy to predicted performance. Combines the
 * sampler's L1/L2 counts and the isl wave footprints with the capacity-miss fits
 * (docs/model.md §4-§7); every step is named after the quantity in docs/model.md.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator_int.h"
#include "lr_utf8.h"

const char *est_limiter_name(est_limiter l)
{
    static const char *const names[] = {"flops",  "l1",     "l2",          "dram",
                                        "latency", "blocks", "stores",     "l2_requests",
                                        "l1_requests", "none"};
    return l <= EST_LIMITER_NONE ? names[l] : "none";
}

static void add_volumes(est_volumes *t, const est_volumes *v)
{
    t->l1_cycles += v->l1_cycles;
    t->smx_load += v->smx_load;
    t->l1_load += v->l1_load;
    t->l2_load_compulsory += v->l2_load_compulsory;
    t->l2_load += v->l2_load;
    t->l2_store += v->l2_store;
    t->l2_store_charged += v->l2_store_charged;
    t->l2_store_requests += v->l2_store_requests;
    t->l2_load_requests += v->l2_load_requests;
    t->l2_store_partial += v->l2_store_partial;
    t->l2_store_left += v->l2_store_left;
    t->dram_load_compulsory += v->dram_load_compulsory;
    t->dram_load_warm += v->dram_load_warm;
    t->dram_load += v->dram_load;
    t->dram_store += v->dram_store;
}

static double div0(double a, double b)
{
    return b > 0 ? a / b : 0;
}

static double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/* docs/model.md §4, "Partly written sectors", "Merged store requests": the store
 * volumes and write requests of one field, per lattice update. */
static void l2_stores(const est_binding *b, const est_sample *s, const est_field_sample *fs,
                      est_volumes *v)
{
    const est_device *dev = b->dev;
    const est_warp_counts *w = &fs->warp;
    /* L2 receives a sector that one folding step's stores complete once, and where
     * the stores of all steps merge, the share left unmerged (store_unmerged,
     * bind.c) comes back (docs/model.md "Partly written sectors"). Model v2's limits
     * charge what L2 receives; the reference model charges every store
     * instruction's sectors, except where the stores of all steps merge */
    double per_instruction = div0(w->store_sectors * dev->l1_sector_bytes, s->warp_lups);
    v->l2_store =
        div0((w->store_sectors - w->store_merged) * dev->l1_sector_bytes, s->warp_lups);
    if (b->merge_all_steps)
        v->l2_store += b->store_unmerged * (per_instruction - v->l2_store);
    v->l2_store_charged = b->merge_all_steps || b->k->model == EST_MODEL_V2
                              ? v->l2_store
                              : per_instruction;
    /* partly written sectors completed later (model v2's evictions): by other
     * blocks, or, when threads fold, by later folding steps of the warp or of the
     * block's other warps; unfolded, the block's other warps complete theirs at
     * the same step, and those count in part (BLOCK_PARTIAL_SHARE) */
    const int *fold = b->cfg.launch.folding;
    int folded = fold[0] * fold[1] * fold[2] > 1;
    double warp_unwritten = div0(w->store_unwritten, s->warp_lups);
    v->l2_store_left = div0(fs->blk_store_unwritten, s->block_lups);
    v->l2_store_partial =
        folded ? warp_unwritten
               : v->l2_store_left +
                     RULE(BLOCK_PARTIAL_SHARE) * (warp_unwritten - v->l2_store_left);
    /* one write request per line each store instruction touches; where an unfolded
     * thread's stores complete their sectors together, L1 sends them as the sectors
     * L2 receives, and the requests merge with them (model 2026.11-25: the
     * array-of-structs copy's four stores, 0.125 requests per update measured
     * against 0.5 per instruction; docs/model.md "Merged store requests"). The
     * hardware merges a folded thread's requests as its sectors too, but the
     * model's sector merge is wrong for some folded threads (a transposed copy's
     * 16x16 block folded 4 in y: 75 % merged in the model, 12 % on the H100), so
     * those keep a request per line and instruction */
    v->l2_store_requests = div0(w->store_lines, s->warp_lups);
    if (b->k->model == EST_MODEL_V2 && per_instruction > 0 && !folded)
        v->l2_store_requests *= v->l2_store / per_instruction;
}

/* docs/model.md §3 and §4: L1 cycles and L2 volumes per field, per lattice update. */
static void l1_l2_volumes(const est_binding *b, const est_sample *s, est_result *r)
{
    const est_device *dev = b->dev;
    double block_l1_alloc = 0, block_l2_load = 0;
    r->l1_wavefronts = RULE(L1_WF_PER_WARP) * div0(s->warps, s->warp_lups);
    r->l1_requests_per_update = 0;
    for (int f = 0; f < b->k->nfields; f++) {
        const est_field_sample *fs = &s->f[f];
        const est_warp_counts *w = &fs->warp;
        est_volumes *v = &r->field[f];
        double C = div0(w->c, s->warp_lups), TAG = div0(w->tag, s->warp_lups);
        double DP = div0(w->dp, s->warp_lups), CST = div0(w->store_c, s->warp_lups);
        r->l1_wavefronts += RULE(L1_WF_PER_LOAD_CYCLE) * (C - CST) +
                            RULE(L1_WF_PER_STORE_CYCLE) * CST +
                            RULE(L1_WF_PER_LOAD_MIN_CYCLE) * div0(w->load_m, s->warp_lups);
        /* The allocation cost counts the lines of loads and of stores separately:
         * this is what reproduces the reference L1 cycles (docs/model.md). */
        double ALLOC = div0(fs->blk_load_lines + fs->blk_store_lines, s->block_lups);
        if (dev->l1_model == EST_L1_KEPLER)
            v->smx_load = div0(w->smx_segments * 128.0, s->warp_lups);
        else
            v->l1_cycles = max3(C, TAG, DP + ALLOC);
        v->l1_load = div0(w->load_sectors * dev->l1_sector_bytes, s->warp_lups);
        r->l1_requests_per_update += div0(w->inst, s->warp_lups);
        l2_stores(b, s, fs, v);
        v->l2_load_compulsory =
            div0(fs->blk_load_sectors * dev->l2_sector_bytes, s->block_lups);
        if (s->nblocks) {
            block_l1_alloc += fs->blk_load_lines * dev->l1_line_bytes / s->nblocks;
            block_l2_load += fs->blk_load_sectors * dev->l2_sector_bytes / s->nblocks;
        }
    }
    r->l1_coverage = block_l1_alloc / sqrt((double)dev->l1_bytes) / sqrt(128.0 * 1024.0);
    double miss_cov = est_fit_eval(dev->miss_l1, r->l1_coverage);
    double hit_overlap =
        1 - est_fit_eval(dev->miss_l1, 2 * block_l2_load / (double)dev->l1_bytes);
    for (int f = 0; f < b->k->nfields; f++) {
        est_volumes *v = &r->field[f];
        double overlap =
            div0(s->f[f].overlap_sectors * dev->l2_sector_bytes, s->mid_block_lups);
        double redundant = v->l1_load - v->l2_load_compulsory;
        double evicts = (redundant > 0 ? redundant : 0) * miss_cov;
        v->l2_load = v->l2_load_compulsory - overlap * hit_overlap + evicts;
        /* the lines load instructions request, in the share of their bytes L1 misses */
        v->l2_load_requests = div0(s->f[f].warp.load_lines, s->warp_lups) *
                              div0(v->l2_load, v->l1_load);
    }
}

/* Bytes of the launch's stores still dirty in L2 when it ends. */
static void keep_dirty_lines(const est_binding *b, est_result *r)
{
    double stored = 0;
    for (int f = 0; f < b->k->nfields; f++)
        stored += r->field[f].dram_store * (double)r->lattice_updates;
    double kept = RULE(L2_DIRTY_SHARE) * (double)b->dev->l2_bytes;
    r->stores_left_in_l2 = stored < kept ? stored : kept;
}

/* Model v2 (docs/model.md, "Partly written sectors"): the share of the sectors left
 * partly written that L2 evicts before they are completed, which costs a DRAM read to
 * fill them and a write. What else passes through L2 meanwhile decides it: one step
 * of every resident thread, D = (L2 load + store bytes per update) * resident threads,
 * times sqrt(F) for a thread folded F times (it stores its steps back to back after
 * all their loads, so its sectors stay open longer), against PARTIAL_REACH L2 sizes:
 * 1 - exp(-(D / (PARTIAL_REACH * l2_bytes))^2). */
static double partial_evicted(const est_binding *b, const est_result *r)
{
    double l2 = 0;
    for (int f = 0; f < b->k->nfields; f++)
        l2 += r->field[f].l2_load + r->field[f].l2_store;
    const int *fold = b->cfg.launch.folding;
    l2 *= sqrt((double)fold[0] * fold[1] * fold[2]);
    double d = l2 * (double)r->wave_blocks * b->threads /
               (RULE(PARTIAL_REACH) * (double)b->dev->l2_bytes);
    return 1 - exp(-d * d);
}

/* docs/model.md §5: DRAM volumes per field from the wave footprints. */
static void dram_volumes(const est_binding *b, const est_wave *w, int64_t wave_lups,
                         est_result *r)
{
    const est_device *dev = b->dev;
    int nf = b->k->nfields;
    double lups = w->cur_lups;
    double vnew_load = 0, vnew_store = 0, ov_y = 0, ov_z = 0, old_y = 0, old_z = 0;
    for (int f = 0; f < nf; f++) {
        const est_field_wave *fw = &w->f[f];
        est_volumes *v = &r->field[f];
        v->dram_load_compulsory = div0(fw->vnew_load, lups);
        v->dram_store = div0(fw->vnew_store, lups);
        vnew_load += v->dram_load_compulsory;
        vnew_store += v->dram_store;
        ov_y += div0(fw->ov_y, lups);
        ov_z += div0(fw->ov_z, lups);
        old_y += fw->old_y;
        old_z += fw->old_z;
    }
    r->wave_overlap_y = ov_y;
    r->wave_overlap_z = ov_z;
    /* whole-wave volumes are the per-update ones scaled to exactly W blocks */
    double wl = (double)wave_lups;
    int v2 = b->k->model == EST_MODEL_V2;
    /* model v2 (docs/model.md, "Warm cache of folded waves"): a folded wave's blocks
     * make their steps together, so between a row's (layer's) first use and its reuse
     * L2 sees one step of the wave; the row (layer) of blocks before it has made all
     * its steps before the reuse, so its whole footprint counts (2026.11-20: dividing
     * it by the folding too put z-folded blocks on large layers far below the misses
     * bench/corpus/h100_layers.jsonl measures). The reference model counts all steps */
    const int *fold = b->cfg.launch.folding;
    double steps = v2 ? (double)fold[0] * fold[1] * fold[2] : 1;
    r->wave_oversub_y = (old_y + (vnew_load - ov_y) * wl / steps) / (double)dev->l2_bytes;
    r->wave_oversub_z = (old_z + (vnew_load - ov_z) * wl / steps) / (double)dev->l2_bytes;
    double hit_y = 1 - est_fit_eval(dev->miss_ovy, r->wave_oversub_y);
    double hit_z = 1 - est_fit_eval(dev->miss_ovz, r->wave_oversub_z);
    r->l2_oversubscription =
        (vnew_load + vnew_store) * wl / sqrt((double)dev->l2_bytes) / 2048.0;
    double miss_store = est_fit_eval(dev->miss_l2store, r->l2_oversubscription);
    double p_evict = v2 ? partial_evicted(b, r) : 0;
    r->dram_charged = 0;
    for (int f = 0; f < nf; f++) {
        const est_field_wave *fw = &w->f[f];
        est_volumes *v = &r->field[f];
        v->dram_load_warm = v->dram_load_compulsory - div0(fw->ov_y, lups) * hit_y -
                            div0(fw->ov_z, lups) * hit_z;
        /* model v2 (docs/model.md, "Stores shared with the previous wave"): a fetch
         * unit the wave stores into, and the row (layer) before it stored into too, is
         * written back once when L2 still holds it */
        if (v2) {
            double vnew = v->dram_store;
            double first = vnew - div0(fw->ov_store_y, lups) * hit_y -
                           div0(fw->ov_store_z, lups) * hit_z;
            double floor = fw->store_floor < vnew ? fw->store_floor : vnew;
            v->dram_store = first > floor ? first : floor;
        }
        double partial = v->l2_store_charged - v->dram_store;
        double evicts = (partial > 0 ? partial : 0) * miss_store;
        /* what the DRAM limit charges: the volumes under the reference rule */
        r->dram_charged += v->dram_load_warm + v->dram_store + 2 * evicts;
        if (v2)
            evicts = v->l2_store_partial * p_evict;
        v->dram_store += evicts;
        v->dram_load = v->dram_load_warm + evicts;
    }
    if (b->k->model == EST_MODEL_V2)
        keep_dirty_lines(b, r);
}

/* docs/model.md §7: the four limiters in GLup/s; 0 = no limit. */
static void throughput_limits(const est_kernel *k, const est_device *dev, est_result *r)
{
    const est_volumes *t = &r->total;
    int lanes = k->fp64 ? dev->fp64_lanes : dev->fp32_lanes;
    r->perf_flops = k->fp_instructions > 0
                        ? dev->clock_ghz * dev->sm_count * lanes / k->fp_instructions
                        : 0;
    if (dev->l1_model == EST_L1_KEPLER)
        r->perf_l1 = div0(dev->smx_bw_gbs, t->smx_load);
    else if (k->model == EST_MODEL_V2)
        /* the L1 data pipe serves one wavefront per cycle: model v2 counts the
         * predicted wavefronts (§3), not the reference method's L1 cycles, whose tag
         * and allocation terms stood in for the L2 tags (docs/model.md "L2 requests
         * and the L1 data pipe") */
        r->perf_l1 = div0(dev->sm_count * dev->clock_ghz, r->l1_wavefronts);
    else
        r->perf_l1 = div0(dev->sm_count * dev->clock_ghz, t->l1_cycles);
    r->perf_l2 = div0(dev->l2_bw_gbs, t->l2_load + t->l2_store_charged);
    /* model v2: a block deep in z pays part of the DRAM bytes its depth saves
     * (docs/model.md, "Deep blocks"); 0 under the reference model */
    r->perf_dram = div0(dev->dram_bw_gbs,
                        r->dram_charged + dev->depth_saving_share * r->dram_saved_by_depth);
}

/* The smallest positive limit of lim[0..n) (ties: the first) into r. */
static void smallest(const double *lim, int n, est_result *r)
{
    r->predicted = 0;
    r->limiter = EST_LIMITER_NONE;
    for (int i = 0; i < n; i++)
        if (lim[i] > 0 && (r->limiter == EST_LIMITER_NONE || lim[i] < r->predicted)) {
            r->predicted = lim[i];
            r->limiter = (est_limiter)i;
        }
}

/* The smooth minimum (sum of v_i^-n)^(-1/n) of the positive values of v[0..k) (0 when
 * none is positive), taken relative to the smallest so that no term overflows or
 * underflows: with a sharpness of 100 (the largest a device may set) limits of a few
 * thousand GLup/s raised to -100 are below the smallest double, and the plain sum
 * came out 0, a prediction of no limit at all. */
static double smooth_min(const double *v, int k, double n)
{
    double least = 0, sum = 0;
    for (int i = 0; i < k; i++)
        if (v[i] > 0 && (least == 0 || v[i] < least))
            least = v[i];
    if (least == 0)
        return 0;
    for (int i = 0; i < k; i++)
        if (v[i] > 0)
            sum += pow(v[i] / least, -n);
    return least * pow(sum, -1 / n);
}

/* The time per lattice update, in ns of the whole GPU, that stores leaving sectors
 * partly written for other blocks, or sent as scattered requests, add to a launch:
 * partial_sector_ns per such sector (weighted by element size: a float's costs half a
 * double's) and SCATTERED_REQUEST_SHARE of it per scattered request, times the
 * thread's store burst B (its store instructions times its folding):
 * B^2 / (B^2 + 2.5^2), so one store per thread costs 14 % of a burst of 19
 * (docs/model.md). */
static double partial_sector_time(const est_kernel *k, const est_device *dev,
                                  const est_result *r, int fold)
{
    double sectors = 0, scattered = 0;
    for (int f = 0; f < k->nfields; f++) {
        const est_volumes *v = &r->field[f];
        sectors += v->l2_store_left * k->fields[f].elem_bytes / 8.0;
        /* the share of a sector that one write request of this field fills */
        double fill = div0(est_kernel_field_store_bytes(k, f),
                           v->l2_store_requests * dev->l2_sector_bytes);
        if (fill < 1)
            scattered += v->l2_store_requests * (1 - fill);
    }
    sectors /= dev->l2_sector_bytes;
    sectors += RULE(SCATTERED_REQUEST_SHARE) * scattered;
    double burst = (double)fold * est_kernel_stores(k), half = RULE(STORE_BURST_HALF);
    return dev->partial_sector_ns * sectors * burst * burst / (burst * burst + half * half);
}

/* docs/model.md "Latency and occupancy" and "Block start rate": the threads that work,
 * what they keep in flight, and the latency and block-rate limits. */
static void v2_concurrency(const est_device *dev, est_result *r, int fold)
{
    double blocks = (double)r->grid[0] * (double)r->grid[1] * (double)r->grid[2];
    r->updates_per_block = div0((double)r->lattice_updates, blocks);
    /* threads with work: a block wider than the domain, or cut by its edge, has idle
     * threads that hold slots but request nothing; they return at once, so only the
     * working ones drain */
    double working = r->updates_per_block / fold;
    double drain = 1 - dev->block_granularity * working / (double)dev->max_threads_per_sm;
    r->active_threads_per_sm = r->blocks_per_sm * working * drain;
    double in_flight = pow((double)fold, dev->fold_overlap);
    r->perf_latency = dev->sm_count * r->active_threads_per_sm * in_flight / dev->latency_ns;
    r->bytes_in_flight_per_sm =
        r->active_threads_per_sm * in_flight * r->dram_charged;
    /* every sector a warp's stores leave partly written, whoever completes it: other
     * blocks, later folding steps, or (counted in part, BLOCK_PARTIAL_SHARE) the
     * block's other warps ("Partly written sectors") */
    r->partial_sectors_in_flight_per_sm = r->active_threads_per_sm * in_flight *
                                          r->total.l2_store_partial / dev->l2_sector_bytes;
    r->perf_blocks = dev->block_rate_per_sm * 1e-3 * dev->sm_count * r->updates_per_block;
}

/* docs/model.md "Scattered stores (store requests)", "L2 requests and the L1 data
 * pipe", "L1 requests": the limits of requests rather than bytes. */
static void v2_request_limits(const est_device *dev, est_result *r)
{
    /* a store instruction sends one write request per line it touches, and each
     * (partial) sector is written separately: scattered stores are limited by these
     * rates long before their bytes reach a bandwidth */
    const est_volumes *t = &r->total;
    double store_ns = div0(t->l2_store_requests, dev->store_requests_per_ns) +
                      div0(t->l2_store_charged / dev->l2_sector_bytes, dev->store_sectors_per_ns);
    r->perf_stores = div0(1, store_ns);
    /* the L2's tags look up every read request and every written sector: the unit that
     * holds the range-4 star's unfolded blocks (bench/stalls) */
    r->perf_l2_requests =
        div0(dev->l2_requests_per_ns, t->l2_load_requests + RULE(L2_TAG_STORE_SHARE) *
                                                                t->l2_store_charged /
                                                                dev->l2_sector_bytes);
    /* the L1 accepts about one warp load or store instruction every other cycle per
     * SM, whatever its width: float stencils with many loads per update meet this
     * before the wavefronts. A fitted rate, not a hardware figure */
    r->perf_l1_requests = div0(dev->sm_count * dev->clock_ghz * dev->l1_requests_per_cycle,
                               r->l1_requests_per_update);
}

/* docs/model.md "Attainable bandwidths and DRAM overload", "DRAM streams", "Sectors
 * left to other blocks": the bandwidth limits as the GPU attains them. */
static void v2_bandwidths(const est_kernel *k, const est_device *dev, est_result *r)
{
    r->perf_l1 *= dev->l1_efficiency;
    r->perf_l2 *= dev->l2_efficiency;
    /* far more bytes requested than the memory system can queue: the L2 thrashes and
     * DRAM efficiency drops, to half at dram_overload_bytes_per_sm */
    double overload = r->bytes_in_flight_per_sm / dev->dram_overload_bytes_per_sm;
    r->perf_dram *= dev->dram_efficiency / (1 + overload * overload);
    /* every array is a stream of its own through the DRAM pages: many at once (LBM's
     * 38 and 54) cost a share of the bandwidth, half at dram_streams_half arrays of
     * doubles. An array of floats counts twice: a warp moves half as many of its bytes
     * at a time, so its pages are opened twice as often per byte */
    double streams = 0;
    for (int f = 0; f < k->nfields; f++)
        streams += 8.0 / k->fields[f].elem_bytes;
    r->perf_dram /= 1 + streams / dev->dram_streams_half;
    /* sectors that a block's stores leave partly written for another block to
     * complete keep DRAM less busy than their volumes say, the more of them the SM
     * has in flight: half at partial_sectors_half */
    double partial = r->partial_sectors_in_flight_per_sm / dev->partial_sectors_half;
    r->perf_dram /= 1 + pow(partial, RULE(PARTIAL_EXPONENT));
}

/* docs/model.md "On-chip limits first", "The block start rate as a ceiling", "A soft
 * knee below a hard DRAM cap": the limits combined into the body's rate. */
static void v2_combine(const est_device *dev, est_result *r)
{
    double lim[] = {r->perf_flops,       r->perf_l1,      r->perf_l2,
                    r->perf_dram,        r->perf_latency, r->perf_blocks,
                    r->perf_stores,      r->perf_l2_requests, r->perf_l1_requests};
    double n = dev->limit_sharpness, n_chip = fmax(RULE(CHIP_SHARPNESS), n);
    int nlim = (int)(sizeof lim / sizeof *lim);
    /* the block start rate is a ceiling, not one more overlapping limit: blocks of 32
     * and 64 threads run at the same block rate in every kernel of the corpus. The
     * on-chip limits meet each other more sharply than they meet DRAM and the latency:
     * several of them close together cost less than the one smooth minimum of all */
    double on_chip[EST_LIMITER_NONE];
    int nchip = 0;
    for (int i = 0; i < nlim; i++)
        if (i != EST_LIMITER_BLOCKS && i != EST_LIMITER_DRAM && i != EST_LIMITER_LATENCY)
            on_chip[nchip++] = lim[i];
    /* the knee of DRAM with the latency and the on-chip limits is soft, but it bends
     * toward a DRAM limit a little above the real one, which then caps it: the DRAM
     * plateau is reached, not approached */
    double outer[3] = {r->perf_dram * RULE(DRAM_SOFT_HEADROOM), r->perf_latency,
                       smooth_min(on_chip, nchip, n_chip)};
    smallest(lim, nlim, r); /* the limiter named is the tightest single limit */
    r->predicted = smooth_min(outer, 3, n);
    if (r->perf_dram > 0 && r->perf_dram < r->predicted)
        r->predicted = r->perf_dram;
    if (r->perf_blocks > 0 && r->perf_blocks < r->predicted)
        r->predicted = r->perf_blocks;
}

/* docs/model.md "Store bursts that leave sectors to other blocks", "Launch overhead":
 * the times that add to the body's instead of overlapping it. */
static void v2_serial_times(const est_kernel *k, const est_device *dev, est_result *r,
                            int fold)
{
    /* the stores that leave sectors to other blocks hold the load/store pipe while
     * every limit waits */
    if (r->predicted > 0) {
        double partial_ns = partial_sector_time(k, dev, r, fold);
        r->predicted = 1 / (1 / r->predicted + partial_ns);
        r->partial_sector_share = partial_ns * r->predicted;
    }
    /* a launch also costs a fixed time of its own (starting the grid, filling the
     * memory pipeline, draining the last wave), measured by bench/overhead and
     * launchrank calibrate: the limits say how fast the body runs, the prediction is
     * the whole launch */
    double lups = (double)r->lattice_updates;
    if (r->predicted > 0) {
        r->launch_time_us = (lups / r->predicted + dev->launch_overhead_us * 1e3) * 1e-3;
        r->predicted = lups / (r->launch_time_us * 1e3);
    }
}

/* Model v2 (docs/model.md, "The equations of model v2 at a glance"), in the order of
 * its equations. */
static void v2_limits(const est_kernel *k, const est_device *dev, est_result *r)
{
    const int *f = r->config.launch.folding;
    int fold = f[0] * f[1] * f[2];
    v2_concurrency(dev, r, fold);
    v2_request_limits(dev, r);
    v2_bandwidths(k, dev, r);
    v2_combine(dev, r);
    v2_serial_times(k, dev, r, fold);
}

void est_result_performance(const est_kernel *k, const est_device *dev, est_result *r)
{
    throughput_limits(k, dev, r);
    if (k->model == EST_MODEL_V2) {
        v2_limits(k, dev, r);
        return;
    }
    double lim[4] = {r->perf_flops, r->perf_l1, r->perf_l2, r->perf_dram};
    smallest(lim, 4, r);
}

/* What est_estimate needs of its inputs beyond the launch (est_launch_check): the
 * protocol checks all of it where it reads a request, but the estimator is a library
 * with direct callers (calibrate, bench, tests), and a bad figure must come back as
 * an error, not as a division by zero or an overflow deep inside. Paths are those of
 * the request fields that carry each figure. */
static int check_inputs(const est_kernel *k, const est_device *dev, lr_error *err)
{
    if (k->nfields < 1)
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.fields",
                            "the kernel has no fields: there is nothing to estimate");
    if (k->registers < 0 || k->registers > EST_MAX_REGISTERS)
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.registers",
                            "%d registers per thread; CUDA allows 0 to %d", k->registers,
                            EST_MAX_REGISTERS);
    if (k->shared_bytes < 0)
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.shared_bytes",
                            "%lld bytes of shared memory per block; it must be at least 0",
                            (long long)k->shared_bytes);
    /* a negative fp_instructions is "none given" (est_kernel_new's -1) */
    if (!(isfinite(k->flops) && k->flops >= 0) || !isfinite(k->fp_instructions))
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.flops",
                            "flops and fp_instructions per lattice update must be finite "
                            "numbers, flops at least 0");
    char why[160], path[64];
    const char *field = est_device_check(dev, why, sizeof why);
    if (field) {
        snprintf(path, sizeof path, "device.%s", field);
        return lr_error_set(err, LR_INVALID_REQUEST, path, "%s", why);
    }
    return 0;
}

#ifndef NDEBUG /* only the asserts of check_invariants call these */
static int finite_nonnegative(double x)
{
    return isfinite(x) && x >= 0;
}

static int all_finite_nonnegative(const est_volumes *v)
{
    const double x[] = {
        v->l1_cycles,      v->smx_load,  v->l1_load,           v->l2_load_compulsory,
        v->l2_load,        v->l2_store,  v->l2_store_requests, v->dram_load_compulsory,
        v->dram_load_warm, v->dram_load, v->dram_store,         v->l2_store_charged};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        if (!finite_nonnegative(x[i]))
            return 0;
    return 1;
}
#endif

/* The invariants of a launchable result, which docs/model.md's formulas keep for
 * every input est_estimate accepts: a wave of at least one block, volumes that are
 * byte counts (finite, >= 0), limits that are rates, the share of a wave's thread
 * slots that update lattice points in [0, 1], and a prediction no faster than its
 * tightest limit (the smooth minimum of model v2 lies below every limit). Asserted
 * (live in the test and debug builds; meson's b_ndebug=if-release drops them from
 * release builds): a violation is a bug of the model's code, not of the input. */
static void check_invariants(const est_kernel *k, const est_result *r)
{
    const est_config *c = &r->config;
    int threads = c->launch.block[0] * c->launch.block[1] * c->launch.block[2];
    assert(r->blocks_per_sm >= 1 && r->wave_blocks >= r->blocks_per_sm);
    for (int d = 0; d < 3; d++)
        assert(r->grid[d] >= 1 && r->wave_grid[d] >= 1 && r->wave_grid[d] <= r->grid[d]);
    assert(r->lattice_updates >= 1);
    assert(all_finite_nonnegative(&r->total));
    for (int f = 0; f < k->nfields; f++)
        assert(all_finite_nonnegative(&r->field[f]));
    assert(finite_nonnegative(r->l1_coverage) && finite_nonnegative(r->l2_oversubscription));
    assert(finite_nonnegative(r->wave_oversub_y) && finite_nonnegative(r->wave_oversub_z));
    assert(finite_nonnegative(r->l1_wavefronts) && finite_nonnegative(r->stores_left_in_l2));
    assert(finite_nonnegative(r->launch_time_us));
    const double lim[] = {r->perf_flops,   r->perf_l1,     r->perf_l2,
                          r->perf_dram,    r->perf_latency, r->perf_blocks,
                          r->perf_stores,  r->perf_l2_requests, r->perf_l1_requests};
    double tightest = INFINITY;
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        assert(finite_nonnegative(lim[i]));
        if (lim[i] > 0 && lim[i] < tightest)
            tightest = lim[i];
    }
    assert(finite_nonnegative(r->predicted));
    assert(r->predicted <= tightest * (1 + 1e-12));
    double slots = (double)r->blocks_per_sm * threads;
    double working = r->active_threads_per_sm / slots;
    assert(finite_nonnegative(working) && working <= 1 + 1e-12);
    (void)k, (void)working, (void)tightest; /* unused when NDEBUG drops the asserts */
}

/* The launch's shape into r: grid, lattice updates, blocks per SM and the wave (blocks
 * dispatched in x, then y, then z order). cfg launches (est_launch_check passed). */
static void launch_shape(const est_kernel *k, const est_device *dev, const est_config *cfg,
                         est_result *r)
{
    const int *bd = cfg->launch.block;
    est_grid(cfg, r->grid);
    r->lattice_updates = cfg->domain[0] * cfg->domain[1] * cfg->domain[2];
    r->blocks_per_sm = est_blocks_per_sm(k, dev, bd[0] * bd[1] * bd[2]);
    r->wave_blocks = (int64_t)r->blocks_per_sm * dev->sm_count;
    int64_t W = r->wave_blocks, *g = r->grid;
    r->wave_grid[0] = g[0] < W ? g[0] : W;
    r->wave_grid[1] = W / g[0] < 1 ? 1 : W / g[0];
    r->wave_grid[1] = r->wave_grid[1] < g[1] ? r->wave_grid[1] : g[1];
    r->wave_grid[2] = W / g[0] / g[1] < 1 ? 1 : W / g[0] / g[1];
    r->wave_grid[2] = r->wave_grid[2] < g[2] ? r->wave_grid[2] : g[2];
    r->launchable = 1;
}

/* docs/model.md, "Deep blocks": into *saved the DRAM bytes per update a block deep in z
 * (bz > 1) saves against the same threads laid flat, bx x (by * bz) x 1 with the same
 * folding: the z layers its warps share and load once. The flat block's warm DRAM loads
 * come from its wave footprints alone (dram_volumes; no sampling, which they do not
 * need): its loads less the deep block's, 0 when the flat block cannot launch (by * bz
 * past the device's limits) or saves nothing. Its footprints are bound like the deep
 * block's: past the context's operations or deadline the estimate fails with that
 * error (a ranking then leaves it unfinished), as it would in any other stage, instead
 * of answering without the term. A model-v2 figure. */
static int saved_by_depth(est_ctx *ctx, const est_kernel *k, const est_device *dev,
                          const est_config *cfg, const est_result *r, double *saved,
                          lr_error *err)
{
    const int *bd = cfg->launch.block, *fold = cfg->launch.folding;
    *saved = 0;
    if (k->model != EST_MODEL_V2 || bd[2] <= 1 || cfg->domain[2] <= 1)
        return 0;
    est_config flat = *cfg;
    flat.launch.block[1] = bd[1] * bd[2];
    flat.launch.block[2] = 1;
    lr_error why;
    lr_error_clear(&why);
    if (est_launch_check(k, dev, &flat, &why) || est_folding_check(k, &flat, &why))
        return 0;
    est_result *rf = calloc(1, sizeof *rf);
    est_wave *w = malloc(sizeof *w);
    est_binding b;
    int rc = (!rf || !w) ? lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory")
                         : est_bind(&b, k, dev, &flat, err);
    if (!rc) {
        rf->config = flat;
        rf->nfields = k->nfields;
        launch_shape(k, dev, &flat, rf);
        int64_t threads = (int64_t)bd[0] * bd[1] * bd[2];
        rc = est_wave_run(ctx, &b, rf->wave_blocks, w, err);
        if (!rc) {
            dram_volumes(&b, w, rf->wave_blocks * threads * fold[0] * fold[1] * fold[2], rf);
            double s = 0;
            for (int f = 0; f < k->nfields; f++)
                s += rf->field[f].dram_load_warm - r->field[f].dram_load_warm;
            *saved = s > 0 ? s : 0;
        }
        est_binding_release(&b);
    }
    free(rf);
    free(w);
    return rc;
}

int est_estimate(est_ctx *ctx, const est_kernel *k, const est_device *dev,
                 const est_config *cfg, est_result *r, lr_error *err)
{
    if (!ctx || !k || !dev || !cfg || !r)
        return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                            "est_estimate needs a context, a kernel, a device, a "
                            "configuration and a result");
    memset(r, 0, sizeof *r);
    r->config = *cfg;
    r->nfields = k->nfields;
    r->limiter = EST_LIMITER_NONE;
    if (check_inputs(k, dev, err))
        return -1;
    lr_error why;
    lr_error_clear(&why);
    int runs = est_launch_check(k, dev, cfg, &why) == 0 && est_folding_check(k, cfg, &why) == 0;
    if (!runs && why.code != LR_NOT_LAUNCHABLE)
        return lr_error_set(err, why.code, why.path, "%s", why.message);
    /* the sides are valid from here on: no division by 0, no product past 2^42 */
    const int *bd = cfg->launch.block, *fold = cfg->launch.folding;
    est_grid(cfg, r->grid);
    r->lattice_updates = cfg->domain[0] * cfg->domain[1] * cfg->domain[2];
    if (!runs) {
        snprintf(r->reason, sizeof r->reason, "%.*s",
                 lr_utf8_prefix(why.message, sizeof r->reason - 1), why.message);
        return 0;
    }
    int threads = bd[0] * bd[1] * bd[2];
    launch_shape(k, dev, cfg, r);
    int64_t W = r->wave_blocks;

    est_binding b;
    if (est_bind(&b, k, dev, cfg, err))
        return -1;
    est_sample *s = malloc(sizeof *s);
    est_wave *w = malloc(sizeof *w);
    int rc = (!s || !w) ? lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory") : 0;
    if (!rc)
        rc = est_sample_run(ctx, &b, s, err);
    if (!rc)
        rc = est_wave_run(ctx, &b, W, w, err);
    if (!rc) {
        l1_l2_volumes(&b, s, r);
        dram_volumes(&b, w, W * threads * fold[0] * fold[1] * fold[2], r);
        for (int f = 0; f < k->nfields; f++)
            add_volumes(&r->total, &r->field[f]);
        rc = saved_by_depth(ctx, k, dev, cfg, r, &r->dram_saved_by_depth, err);
    }
    if (!rc) {
        est_result_performance(k, dev, r);
        check_invariants(k, r);
    }
    free(s);
    free(w);
    est_binding_release(&b);
    return rc;
}
