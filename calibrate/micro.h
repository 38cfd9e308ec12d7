/*
 * micro: calibration microbenchmarks (docs/calibration.md, "Microbenchmarks").
 *
 * Hand-written kernels (calibrate/micro_kernels.cu, embedded at build time) that
 * measure what the calibration suite's stencils cannot separate:
 *  - L2 bandwidth against working-set size (where L2 reuse stops: the effective L2);
 *  - DRAM bandwidth against bytes in flight per SM (Little's law: the latency under
 *    load), by threads per SM and independent loads per thread;
 *  - latencies by pointer chasing: L1 hit, L2 hit, DRAM, and L2 hits over a growing
 *    footprint (the reach of the address translation);
 *  - L1 throughput: 128-byte lines per cycle per SM for loads touching 1..32 lines;
 *  - the SM clock under a compute-bound and a memory-bound load.
 * As for the suite, measuring (on the GPU) and analysing (no GPU, tested on recorded
 * raw data) are apart: cal_micro_measure returns raw timings, cal_micro_analyse turns
 * them into figures and tables.
 */
#ifndef CAL_MICRO_H
#define CAL_MICRO_H

#include <cjson/cJSON.h>

#include "cudagen.h"
#include "fit.h"
#include "lr_error.h"

/* Steps cal_micro_measure reports through progress (for the caller's total). */
int cal_micro_steps(int quick);

/* Runs the microbenchmarks on GPU opts->device. progress (may be NULL) is called before
 * each step with the step's name. Returns the raw "micro" object of the calibration
 * record (caller owns), or NULL with err (LR_UNAVAILABLE without a GPU; cudagen's
 * errors). quick: fewer points and shorter runs (about 5 s instead of 15). */
cJSON *cal_micro_measure(const cg_measure_opts *opts, int quick,
                         void (*progress)(void *ctx, const char *step), void *ctx,
                         lr_error *err);

/* What the analysis finds; a figure that the record does not give is 0. */
typedef struct cal_micro_figures {
    double l2_plateau_gbs;     /* L2 read bandwidth: median over working sets up to half
                                  the driver's L2 size */
    double l2_floor_gbs;       /* read bandwidth at the largest working set (DRAM) */
    double l2_effective_bytes; /* working set from which bandwidth is below 90 % of the
                                  plateau: where L2 reuse stops being reliable */
    double dram_peak_gbs;      /* highest read bandwidth over bytes in flight */
    double dram_latency_ns;    /* Little's law at the least load measured (fewest bytes in
                                  flight): SMs x bytes in flight per SM / bandwidth */
    double dram_near_peak_bytes_per_sm; /* fewest bytes in flight per SM that reach 90 %
                                           of the peak */
    double l1_hit_ns, l2_hit_ns, dram_ns; /* pointer chasing, one load after another */
    double dram_far_ns;        /* DRAM over the largest footprint (translation misses) */
    double translation_reach_bytes; /* largest footprint up to which L2 hits are not
                                       slower than the smallest footprint's by 10 % */
    double l1_lines_per_cycle[6];   /* per SM, for loads touching 1,2,4,8,16,32 lines */
    double clock_compute_ghz, clock_memory_ghz; /* SM clock under load */
} cal_micro_figures;

/* Analyses the raw "micro" object of a GPU with sm_count SMs and an L2 of
 * l2_driver_bytes (the driver's figure, both partitions): fills *out and appends the
 * tables to t (may be NULL). 0, or -1 with err (LR_INVALID_REQUEST naming the bad
 * member, under "micro"). */
int cal_micro_analyse(const cJSON *micro, int sm_count, double l2_driver_bytes,
                      cal_micro_figures *out, cal_text *t, lr_error *err);

#endif
