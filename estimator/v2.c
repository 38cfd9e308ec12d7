/*
 * v2: model v2's performance (docs/model.md, "Model v2: latency and occupancy"; the
 * equations at a glance there), in the order of its equations: the published method's
 * limits (warpspeed.c) with v2's L1 and DRAM charges, concurrency and the block start
 * rate, the request limits, the attained bandwidths, their combination, and the times
 * that add to the body's. Its parameters and constants are rows of params.def.
 */
#include <math.h>

#include "estimator_int.h"

/* docs/model.md "L2 requests and the L1 data pipe", "Deep blocks": what v2 charges L1
 * and DRAM where the published method charges otherwise. */
static void v2_volume_limits(const est_device *dev, est_result *r)
{
    /* a block deep in z pays part of the DRAM bytes its depth saves */
    r->perf_dram = div0(dev->dram_bw_gbs,
                        r->dram_charged + dev->depth_saving_share * r->dram_saved_by_depth);
}

/* docs/model.md "Instruction issue": the share of cycles a scheduler finds one of its
 * threads / issue_lanes warps ready to issue, 1 - exp(-w / k); 1 where the device gives no
 * issue rate or k is 0. */
static double scheduler_busy(const est_device *dev, double threads, double k)
{
    if (k <= 0 || dev->issue_lanes <= 0)
        return 1;
    return 1 - exp(-threads / dev->issue_lanes / k);
}

/* docs/model.md "Instruction issue": a kernel that gives its instruction mix is limited
 * by the SM's issue rate and by each pipe's instead of by its fp instructions alone, at
 * the share a scheduler's warps keep busy: 1 - exp(-w / ISSUE_WARPS) with w the working
 * warps per scheduler (a dependent instruction waits for its operands; other warps fill
 * the wait). A rate the device does not give (0) does not limit. */
static void v2_instruction_limit(const est_kernel *k, const est_device *dev, est_result *r)
{
    est_instructions m;
    if (!est_kernel_instructions(k, &m) || dev->issue_lanes <= 0)
        return;
    double total = m.fp32 + m.fp64 + m.special + m.integer + m.other;
    const double per_cycle[] = {div0(dev->issue_lanes, total), div0(dev->fp32_lanes, m.fp32),
                                div0(dev->fp64_lanes, m.fp64),
                                div0(dev->special_lanes, m.special),
                                div0(dev->integer_lanes, m.integer)};
    double least = 0;
    for (size_t i = 0; i < sizeof per_cycle / sizeof *per_cycle; i++)
        if (per_cycle[i] > 0 && (least == 0 || per_cycle[i] < least))
            least = per_cycle[i];
    r->perf_flops = dev->sm_count * dev->clock_ghz *
                    scheduler_busy(dev, r->active_threads_per_sm, RULE(ISSUE_WARPS)) * least;
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

/* The updates a thread of `fold` keeps in flight: the compiler hoists some loads of later
 * folding steps (docs/model.md "Latency and occupancy", fold_overlap). */
static double fold_in_flight(const est_device *dev, int fold)
{
    return pow((double)fold, dev->fold_overlap);
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
    double in_flight = fold_in_flight(dev, fold);
    r->perf_latency = dev->sm_count * r->active_threads_per_sm * in_flight / dev->latency_ns;
    r->bytes_in_flight_per_sm =
        r->active_threads_per_sm * in_flight * r->dram_charged;
    /* every sector a warp's stores leave partly written, whoever completes it: other
     * blocks, later folding steps, or (counted in part, as volumes.c says) the
     * block's other warps ("Partly written sectors") */
    r->partial_sectors_in_flight_per_sm = r->active_threads_per_sm * in_flight *
                                          r->total.l2_store_partial / dev->l2_sector_bytes;
    r->perf_blocks = dev->block_rate_per_sm * 1e-3 * dev->sm_count * r->updates_per_block;
}

/* docs/model.md "Scattered stores (store requests)", "L2 requests and the L1 data
 * pipe", "L1 requests": the limits of requests rather than bytes. */
static void v2_request_limits(const est_kernel *k, const est_device *dev, est_result *r)
{
    /* a store instruction sends one write request per line it touches, and each
     * (partial) sector is written separately: scattered stores are limited by these
     * rates long before their bytes reach a bandwidth */
    const est_volumes *t = &r->total;
    double store_ns = div0(t->l2_store_requests, dev->store_requests_per_ns) +
                      div0(t->l2_store_charged / dev->l2_sector_bytes, dev->store_sectors_per_ns);
    r->perf_stores = div0(1, store_ns);
    /* the L2's tags look up every read request and every written sector: the unit that
     * holds the range-4 star's unfolded blocks (lab/2026-11-23-stalls) */
    double load_requests = t->l2_load_requests;
    /* a gather's requests ask for a sector each, where a stencil's ask for lines: the
     * tags serve them faster (docs/model.md, "Gathers through an index field") */
    for (int f = 0; f < k->nfields; f++)
        if (est_field_gathers(&k->fields[f]))
            load_requests -= (1 - RULE(GATHER_REQUEST_SHARE)) * r->field[f].l2_load_requests;
    r->perf_l2_requests =
        div0(dev->l2_requests_per_ns, load_requests + RULE(L2_TAG_STORE_SHARE) *
                                                          t->l2_store_charged /
                                                          dev->l2_sector_bytes);
}

/* docs/model.md "L2 requests and the L1 data pipe", "L1 requests", "The L1 pipes at low
 * occupancy": the L1's two limits, times the share of cycles the SM's schedulers find a
 * warp to issue a load, 1 - exp(-w / L1_ISSUE_WARPS) with w the working warps of the whole
 * blocks resident per scheduler (not the drained active threads: a block's end does not
 * leave the L1 without loads, its successor starts at once). */
static void v2_l1_limits(const est_device *dev, est_result *r, int fold)
{
    double working = r->blocks_per_sm * r->updates_per_block / fold;
    double busy = scheduler_busy(dev, working, RULE(L1_ISSUE_WARPS));
    /* the L1 data pipe serves one wavefront per cycle: model v2 counts the predicted
     * wavefronts (§3), not the reference method's L1 cycles, whose tag and allocation
     * terms stood in for the L2 tags */
    if (dev->l1_model != EST_L1_KEPLER)
        r->perf_l1 = div0(dev->sm_count * dev->clock_ghz, r->l1_wavefronts) *
                     dev->l1_efficiency * busy;
    /* the L1 accepts about one warp load or store instruction every other cycle per
     * SM, whatever its width, while threads issue them as a burst before they use a
     * value: float stencils with many loads per update meet this before the
     * wavefronts. Beyond the burst a thread issues one per consumed value, and the L1
     * serves those at its own rate: the 125- and 49-point float boxes run at 0.78
     * and 0.66 per cycle where the 25- and 27-point boxes stay at 0.55 */
    double rate = dev->l1_requests_per_cycle, per_step = 32 * r->l1_requests_per_update;
    double burst = RULE(L1_BURST_REQUESTS);
    if (per_step > burst)
        rate = per_step /
               (burst / rate + (per_step - burst) / RULE(L1_STREAMED_REQUESTS_PER_CYCLE));
    r->perf_l1_requests =
        div0(dev->sm_count * dev->clock_ghz * rate, r->l1_requests_per_update) * busy;
}

/* docs/model.md "Attainable bandwidths and DRAM overload", "DRAM streams", "Sectors
 * left to other blocks": the bandwidth limits as the GPU attains them. */
static void v2_bandwidths(const est_kernel *k, const est_device *dev, est_result *r)
{
    if (dev->l1_model == EST_L1_KEPLER)
        r->perf_l1 *= dev->l1_efficiency;
    r->perf_l2 *= dev->l2_efficiency;
    /* far more bytes requested than the memory system can queue: the L2 thrashes and
     * DRAM efficiency drops, to half at dram_overload_bytes_per_sm */
    double overload = r->bytes_in_flight_per_sm / dev->dram_overload_bytes_per_sm;
    r->perf_dram *= dev->dram_efficiency / (1 + overload * overload);
    /* every array is a stream of its own through the DRAM pages: many at once (LBM's
     * 38 and 54) cost a share of the bandwidth, half at dram_streams_half arrays of
     * doubles. An array of floats counts 2^dram_streams_size_exponent times (twice on
     * the H100): a warp moves half as many of its bytes at a time, so its pages are
     * opened more often per byte */
    double streams = 0;
    for (int f = 0; f < k->nfields; f++)
        streams += pow(8.0 / k->fields[f].elem_bytes, dev->dram_streams_size_exponent);
    /* beyond dram_streams_most arrays the loss stops growing: on the H200 D3Q27's 54
     * arrays move as many bytes per second as D3Q19's 38 (docs/model.md) */
    if (k->nfields > dev->dram_streams_most)
        streams *= dev->dram_streams_most / k->nfields;
    /* not for a gathering kernel: the H200 mesh corpus attains the same 4.4 TB/s with
     * four float arrays as with doubles, where the term would take 4.6 and 2.9 % */
    if (!k->gathers)
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
    /* a block ends when its slowest warp does: the warps that finished early leave the
     * on-chip units idle (docs/model.md, "Warp spread in deep blocks") */
    double spread = pow(r->warp_active_share, RULE(SPREAD_EXPONENT));
    /* the knee of DRAM with the latency and the on-chip limits is soft, but it bends
     * toward a DRAM limit a little above the real one, which then caps it: the DRAM
     * plateau is reached, not approached */
    double outer[3] = {r->perf_dram * RULE(DRAM_SOFT_HEADROOM), r->perf_latency,
                       smooth_min(on_chip, nchip, n_chip) * spread};
    est_smallest_limit(lim, nlim, r); /* the limiter named is the tightest single limit */
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
     * memory pipeline, draining the last wave), measured by lab/2026-11-23-overhead and
     * launchrank calibrate: the limits say how fast the body runs, the prediction is
     * the whole launch */
    double lups = (double)r->lattice_updates;
    if (r->predicted > 0) {
        r->launch_time_us = (lups / r->predicted + dev->launch_overhead_us * 1e3) * 1e-3;
        r->predicted = lups / (r->launch_time_us * 1e3);
    }
}

/* docs/model.md "Blocks with idle warps": where every block has warps with no point to
 * update, those return at once and the SM may start another block before the last one
 * ends, if a block lives long beside the time the SM takes to start one (ADMIT_NS_PER_WARP
 * per warp of the block): short stencil blocks of 1024 threads on a 256-wide domain stay
 * at whole blocks, LBM blocks that live microseconds get most of the bound. The threads
 * this adds raise the concurrency (the latency limit, the issue's busy share); the bytes
 * and partial sectors in flight stay at whole blocks, which the DRAM terms were fitted
 * on. 1 where the blocks resident exceed the whole blocks. */
static int v2_idle_warp_blocks(const est_device *dev, est_result *r)
{
    double whole = r->blocks_per_sm, most = r->blocks_idle_bound;
    r->blocks_resident = whole;
    if (most <= whole || r->predicted <= 0)
        return 0;
    const int *bd = r->config.launch.block;
    int warps = (bd[0] * bd[1] * bd[2] + 31) / 32;
    /* a block's life at whole blocks, in ns: the blocks an SM holds over those it ends per ns */
    double life = whole * r->updates_per_block * dev->sm_count / r->predicted;
    double share = 1 - pow(RULE(ADMIT_NS_PER_WARP) * warps / life, RULE(ADMIT_EXPONENT));
    if (share <= 0)
        return 0;
    r->blocks_resident = whole + share * (most - whole);
    double scale = r->blocks_resident / whole;
    r->active_threads_per_sm *= scale;
    r->perf_latency *= scale;
    return 1;
}

/* The byte address of a store at lattice point (x, y, z); 0 and *addr, or -1 when the
 * access reads anything but the lattice coordinates (thread indices, an index field),
 * whose rows cannot be placed without a launch. */
static int lattice_address(const est_field *f, const est_access *a, int64_t x, int64_t y,
                           int64_t z, int64_t *addr)
{
    if (a->uses & ~(uint32_t)EST_VARS_LATTICE)
        return -1;
    int64_t val[EST_VAR_COUNT] = {0}, i[3] = {0, 0, 0};
    val[EST_VAR_X] = x;
    val[EST_VAR_Y] = y;
    val[EST_VAR_Z] = z;
    for (int d = 0; d < a->n; d++)
        i[d] = est_expr_eval(a->idx[d], val);
    *addr = est_field_address(f, i);
    return 0;
}

/* Whether some store's rows of the domain begin or end inside a sector (a row, plane
 * or the row's end off a sector boundary): the sectors at the row ends stay partly
 * written, whatever the block shape. */
static int stores_misaligned(const est_kernel *k, const est_device *dev, const int64_t dom[3])
{
    const int64_t pts[4][3] = {{0, 0, 0}, {dom[0], 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const int used[4] = {1, 1, dom[1] > 1, dom[2] > 1};
    for (int f = 0; f < k->nfields; f++)
        for (int j = 0; j < k->fields[f].nacc; j++) {
            const est_access *a = &k->fields[f].acc[j];
            if (!a->is_store)
                continue;
            for (int p = 0; p < 4; p++) {
                int64_t addr;
                if (used[p] &&
                    !lattice_address(&k->fields[f], a, pts[p][0], pts[p][1], pts[p][2], &addr) &&
                    addr % dev->l2_sector_bytes)
                    return 1;
            }
        }
    return 0;
}

/* docs/model.md "Misaligned rows and the updates in flight": where stores leave the
 * sectors at their row ends partly written, DRAM attains less the more updates each SM
 * holds in flight beyond DRAM_THREADS_KNEE, for kernels of many arrays (half the
 * exponent at DRAM_THREADS_ARRAYS arrays): LBM peaks at 300-600 working threads per SM
 * and loses 7-9 % toward 1,500, aligned rows and few-array stencils lose nothing. It
 * follows the blocks resident, so it applies after them. 1 when it lowered the limit. */
static int v2_misaligned_rows(const est_kernel *k, const est_device *dev, est_result *r,
                              int fold)
{
    double knee = RULE(DRAM_THREADS_KNEE);
    double in_flight = r->active_threads_per_sm * fold_in_flight(dev, fold);
    if (dev->dram_threads_exponent <= 0 || k->gathers || in_flight <= knee ||
        !stores_misaligned(k, dev, r->config.domain))
        return 0;
    double n2 = (double)k->nfields * k->nfields, half = RULE(DRAM_THREADS_ARRAYS);
    r->perf_dram /= pow(in_flight / knee, dev->dram_threads_exponent * n2 / (n2 + half * half));
    return 1;
}

void est_v2_performance(const est_kernel *k, const est_device *dev, est_result *r)
{
    const int *f = r->config.launch.folding;
    int fold = f[0] * f[1] * f[2];
    est_warpspeed_limits(k, dev, r);
    v2_volume_limits(dev, r);
    v2_concurrency(dev, r, fold);
    v2_instruction_limit(k, dev, r);
    v2_request_limits(k, dev, r);
    v2_l1_limits(dev, r, fold);
    v2_bandwidths(k, dev, r);
    v2_combine(dev, r);
    v2_serial_times(k, dev, r, fold);
    /* the blocks resident follow from the prediction at whole blocks (a block's life),
     * the misaligned rows' DRAM rate from the updates they hold in flight */
    int again = v2_idle_warp_blocks(dev, r);
    if (v2_misaligned_rows(k, dev, r, fold) || again) {
        v2_instruction_limit(k, dev, r);
        v2_combine(dev, r);
        v2_serial_times(k, dev, r, fold);
    }
}

