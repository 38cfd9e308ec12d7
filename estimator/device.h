/*
 * device: the figures of a GPU that the model needs (docs/model.md §8).
 *
 * A device is a plain value: the built-in ones are JSON files under
 * estimator/devices/ (embedded at build time and parsed by protocol/), and a user may
 * send any of these figures to model a hypothetical GPU. The capacity-miss fits of
 * docs/model.md §6 belong to the device, so a device can carry its own.
 */
#ifndef EST_DEVICE_H
#define EST_DEVICE_H

#include <stdint.h>

/* miss(O) = a * exp(-b * exp(-c * O)): a Gompertz sigmoid used as a miss rate. */
typedef struct est_fit {
    double a, b, c;
} est_fit;

double est_fit_eval(est_fit f, double oversubscription);

typedef enum est_l1_model {
    EST_L1_NV,    /* Volta and later: wavefronts of the unified L1 (docs/model.md §3) */
    EST_L1_KEPLER /* Kepler read-only data cache: half-warp 128-B segments */
} est_l1_model;

typedef struct est_device {
    char name[64];
    est_l1_model l1_model;
    int sm_count;
    double clock_ghz;
    int64_t l1_bytes;            /* per SM */
    int64_t l2_bytes;            /* the size the model uses (one half on A100/H100) */
    double l2_bw_gbs;            /* attainable L2 bandwidth, GB/s */
    double dram_bw_gbs;          /* attainable DRAM bandwidth, GB/s */
    double smx_bw_gbs;           /* Kepler: read-only cache bandwidth, whole chip; 0 = n/a */
    int l1_bank_bytes_per_cycle; /* 128 on Volta..Hopper */
    int fp64_lanes;              /* per SM per cycle */
    int fp32_lanes;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int max_threads_per_block;
    int regs_per_sm;
    int64_t shared_bytes_per_sm;
    int64_t shared_reserved_bytes_per_block; /* the driver's own share of every block's
                                                shared memory (1 KiB from compute
                                                capability 8.0, 0 before); 0 if unknown */
    int l1_line_bytes;
    int l1_sector_bytes;
    int l2_sector_bytes;
    int dram_fetch_bytes;
    est_fit miss_l1, miss_ovy, miss_ovz, miss_l2, miss_l2store;

    /* Model v2 (docs/model.md, "Latency and occupancy"): fitted on a measured corpus,
     * or measured by calibration. A device that does not give them gets
     * EST_V2_DEFAULTS (the H100 fit). */
    double block_rate_per_sm;  /* thread blocks an SM starts per microsecond */
    double latency_ns;         /* memory latency under load, one round trip, ns */
    double fold_overlap;       /* exponent a: a thread of F updates has F^a in flight */
    double block_granularity;  /* idle share of a block's slots while it drains */
    double limit_sharpness;    /* n of the smooth minimum (sum p_i^-n)^(-1/n) */
    double dram_efficiency;    /* attainable share of dram_bw_gbs */
    double l2_efficiency;      /* attainable share of l2_bw_gbs (may exceed 1) */
    double l1_efficiency;      /* attainable share of the L1 wavefront limit */
    double store_requests_per_ns; /* L1->L2 write requests (lines) the GPU serves per ns */
    double store_sectors_per_ns;  /* written L2 sectors the GPU serves per ns */
    double dram_overload_bytes_per_sm; /* bytes in flight per SM halving DRAM efficiency */
    double dram_streams_half;  /* arrays streamed at once that halve DRAM efficiency */
    double partial_sectors_half; /* sectors in flight per SM, left partly written for
                                    other blocks, that halve DRAM efficiency */
    double partial_sector_ns;  /* ns the whole GPU loses per sector (of 8-byte elements)
                                  a block leaves to other blocks, at long store bursts */
    double launch_overhead_us; /* fixed time of one launch (start, ramp, drain): measured */
    double l2_requests_per_ns; /* L2 tag lookups the GPU serves per ns: read requests,
                                  and written sectors at L2_TAG_STORE_SHARE of one */
    double l1_requests_per_cycle; /* warp load and store instructions an SM's L1 accepts
                                     per cycle */
    double depth_saving_share; /* share of the DRAM bytes a block's depth in z saves
                                  (against the block laid flat) that still cost DRAM time */

    /* Not a model input: the relative difference of two predictions below which the
     * model cannot tell which configuration runs faster (a ranking's tie group), as
     * bench/accuracy measures it on a corpus (docs/accuracy.md, "Rank precision"). */
    double rank_precision;
} est_device;

/* rank_precision of the H100 corpus: the value of devices measured on no corpus. */
#define EST_RANK_PRECISION_DEFAULT 0.0632

/* The model-v2 parameters of the H100 (docs/model.md): block rate, latency, fold
 * overlap, granularity, sharpness, DRAM, L2 and L1 efficiency, store request and store
 * sector rates, DRAM overload, DRAM streams, sectors left partial (in flight, and the
 * time per sector), fitted on the H100 corpus, its layer scan and its block depth scan
 * (bench/corpus/h100.jsonl, h100_layers.jsonl and h100_depth.jsonl, model 2026.11-25);
 * then the launch overhead in microseconds, measured on the H100 (bench/overhead), the
 * L2 request rate (chosen on a grid), the L1 request rate and the share of the DRAM
 * bytes a block's depth saves that still cost time (fitted with the first ones). */
#define EST_V2_DEFAULTS                                                                     \
    12.87, 802.5, 0.9669, 0.6975, 3.243, 1.095, 4.799, 1.07, 97.39, 178.3, 9.773e+11, 173.8,     \
        50500, 0.06271, 6.2, 120, 0.545, 0.1147

/* Sets d's model-v2 parameters to EST_V2_DEFAULTS. */
void est_device_set_v2_defaults(est_device *d);

/* Checks that every figure is in a sensible range; on failure returns the name of
 * the first bad figure and writes why into why (NULL when all is well). */
const char *est_device_check(const est_device *d, char *why, unsigned whysize);

#endif
