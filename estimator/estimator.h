/*
 * estimator: the performance model of docs/model.md, as a library with no I/O.
 *
 * A kernel (fields and their address expressions) is built once; each configuration
 * (domain, block, folding) on a device is then estimated: occupancy and waves, L1
 * cycles, L2<-L1 volumes from thread-block footprints, DRAM<-L2 volumes from wave
 * footprints counted with isl, capacity-miss fits, and the four limiters. Volumes are
 * bytes per lattice update (B/Lup), performance in GLup/s.
 *
 * Threads: kernels and devices are read-only during estimation and can be shared;
 * an est_ctx (which owns an isl_ctx) belongs to one thread at a time.
 */
#ifndef EST_ESTIMATOR_H
#define EST_ESTIMATOR_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "expr.h"
#include "lr_error.h"
#include "table.h"

/* Fields per kernel: a D3Q27 LBM kernel with separate pdf fields has 2*27 + a few;
 * 64 keeps every result a fixed-size value (no per-field allocation in rankings). */
#define EST_MAX_FIELDS 64
/* Accesses per field: a range-4 3-D star has 25; a 27-point box per pdf 27; 512 is
 * generous and bounds the work of one warp sample (accesses x folding steps). */
#define EST_MAX_ACCESSES 512
/* Lattice points per thread, per axis and as the product: Su et al. 2015 (seed 004,
 * Sect. 3.5) measure columns of up to 256 points per thread on the K20 (chunk_z 2^0 to
 * 2^8). The sampling cost grows linearly with it (a 25-point star on blocks of 512
 * threads folded 256 is estimated in 0.3 s), and a block with more addresses than the
 * sampler holds is refused (MAX_BLOCK_ADDRESSES, sample_block.c). */
#define EST_MAX_FOLDING 256
#define EST_MAX_NAME 64
/* A domain side: CUDA's grid (2^31-1 blocks in x) and the fields' int64 indices are
 * far beyond it, and the protocol reads sides up to this (protocol/request.c). */
#define EST_MAX_DOMAIN_SIDE 2147483647ll
/* Lattice points of a domain, as the protocol's LR_MAX_DOMAIN_POINTS: 2^42 (~4.4e12)
 * is beyond any GPU's memory, and keeps products of points, threads and bytes per
 * point within int64 (2^63) wherever the estimator forms them. */
#define EST_MAX_DOMAIN_POINTS (1ll << 42)
/* Registers per thread: CUDA's limit (255 since compute capability 3.5). */
#define EST_MAX_REGISTERS 255

/* ---- kernel ---- */

typedef struct est_kernel est_kernel;

/* New empty kernel (32 registers, no flops, no shared memory). Free with
 * est_kernel_free. NULL on allocation failure. */
est_kernel *est_kernel_new(void);
void est_kernel_free(est_kernel *k);

/* Adds a field; returns its index, or -1 with err set (path names the field).
 * dims are innermost first; ndims is 1..3. */
int est_kernel_add_field(est_kernel *k, const char *name, int elem_bytes, int ndims,
                         const int64_t dims[], int64_t base_offset_bytes, const char *path,
                         lr_error *err);

/* Adds an access (one expression per dimension of the field) to field `field`.
 * Takes ownership of the n expressions in idx, also on error. 0 or -1 with err. */
int est_kernel_add_access(est_kernel *k, int field, int is_store, est_expr *idx[], int n,
                          const char *path, lr_error *err);

/* Gives field the values of an index field (table.h), which its own dims must match;
 * the kernel takes t, also on error. Other fields' accesses parsed with
 * est_expr_parse_tables may then read it. 0, or -1 with err (path). */
int est_kernel_set_table(est_kernel *k, int field, est_table *t, const char *path,
                         lr_error *err);
/* field's values, or NULL for a data field. */
const est_table *est_kernel_field_table(const est_kernel *k, int field);
/* The number of accesses that read through an index field (docs/model.md, "Gathers
 * through an index field"): such a kernel is estimated on 1-D launches without folding,
 * from its actual addresses. */
int est_kernel_gathers(const est_kernel *k);

/* Adds to k (a gathering kernel) the variant of its mesh whose cells are renumbered by
 * perm (perm[x] the new number of cell x, ncells cells): every index field whose last
 * dimension counts the cells is permuted (element (j, perm[x]) = perm[value (j, x)]);
 * a launch with .ordering = the returned index (1, 2, ...) is estimated on it. -1 with
 * err when an index field holds a value that is not a cell, or out of memory. */
int est_kernel_add_variant(est_kernel *k, const int64_t *perm, int64_t ncells, lr_error *err);

/* Compute figures. fp_instructions < 0 means the default ceil(flops/2); fp64 selects
 * the fp64 lanes for the flop limiter. */
void est_kernel_set_compute(est_kernel *k, double flops, double fp_instructions, int fp64,
                            int registers, int64_t shared_bytes_per_block);

/* Thread instructions executed per lattice update, by the pipe that runs them (docs/
 * model.md, "Instruction issue"): fp32 (FFMA, FADD, FMUL), fp64 (DFMA, DADD, DMUL),
 * special (the XU pipe: MUFU's reciprocal, reciprocal square root, sine, cosine, base-2
 * exponential and logarithm, and conversions), integer (the ALU pipe: IADD3, LOP3,
 * shifts, compares, min/max, selects) and other (everything else the SM issues: IMAD,
 * loads, stores, moves, branches). */
typedef struct est_instructions {
    double fp32, fp64, special, integer, other;
} est_instructions;

/* The kernel's instruction mix; NULL: none given (the default), when model v2 limits
 * arithmetic by fp_instructions alone. */
void est_kernel_set_instructions(est_kernel *k, const est_instructions *mix);

/* 1 with *mix when the kernel has an instruction mix, else 0. */
int est_kernel_instructions(const est_kernel *k, est_instructions *mix);

/* Which performance model estimates a kernel (docs/model.md): EST_MODEL_V2, the
 * default, adds register reuse across folding steps, the concurrency (latency)
 * limiter and the block-scheduling terms to the volumes and limiters of the reference
 * method; EST_MODEL_WARPSPEED is the reference method exactly as published (the
 * numbers of docs/model.md "Results against the references"). */
typedef enum est_model { EST_MODEL_V2 = 0, EST_MODEL_WARPSPEED = 1 } est_model;

/* Model, and whether the kernel is compiled with __restrict__ pointers (restrict_ 1,
 * the default): only then may the compiler keep a value that several folding steps
 * of one thread load in a register, which model v2 counts (docs/model.md). Part of
 * the kernel's identity: set it before est_kernel_set_identity's caller hashes. */
void est_kernel_set_model(est_kernel *k, est_model model, int restrict_);
est_model est_kernel_model(const est_kernel *k);
int est_kernel_restrict(const est_kernel *k);

/* Whether a folded thread of this kernel computes all its lattice points before it
 * stores any: with __restrict__ pointers and no field both loaded and stored (a store
 * could change a later step's load). The code shape model v2 assumes (its loads kept in
 * registers across steps, its stores of all steps merged as one step's) and the one
 * cudagen emits (docs/model.md, "Register reuse across folding steps"). */
int est_kernel_defers_stores(const est_kernel *k);

/* Kernels with equal identity must have equal fields and accesses: each thread's
 * caches (access maps, footprint counts) then serve them all, across requests. By
 * default every kernel object has an identity of its own; the request layer sets one
 * derived from the kernel's canonical description. */
void est_kernel_set_identity(est_kernel *k, uint64_t identity);

int est_kernel_field_count(const est_kernel *k);
const char *est_kernel_field_name(const est_kernel *k, int field);
int est_kernel_field_elem_bytes(const est_kernel *k, int field);
double est_kernel_flops(const est_kernel *k);
double est_kernel_fp_instructions(const est_kernel *k);
int est_kernel_fp64(const est_kernel *k);
int est_kernel_registers(const est_kernel *k);
int64_t est_kernel_shared_bytes(const est_kernel *k);
int est_kernel_field_ndims(const est_kernel *k, int field);
/* dims[0..2], trailing unused dimensions are 1 */
void est_kernel_field_dims(const est_kernel *k, int field, int64_t dims[3]);
int64_t est_kernel_field_base_offset(const est_kernel *k, int field);
int est_kernel_access_count(const est_kernel *k, int field);
int est_kernel_access_is_store(const est_kernel *k, int field, int access);
/* Index expression d (0..ndims-1) of an access; owned by the kernel. */
const est_expr *est_kernel_access_index(const est_kernel *k, int field, int access, int d);

/* ---- configurations and results ---- */

typedef struct est_launch {
    int block[3];
    int folding[3];
    int ordering; /* a gathering kernel's cell ordering: 0 the mesh as given, i > 0 its
                     variant i (est_kernel_add_variant) */
} est_launch;

typedef struct est_config {
    int64_t domain[3]; /* lattice points updated, trailing 1s for 1-D and 2-D */
    est_launch launch;
} est_config;

/* Volumes in bytes per lattice update; l1_cycles in L1 cycles per update per SM. */
typedef struct est_volumes {
    double l1_cycles;            /* NV: L1 data-pipe/tag cycles (docs/model.md §3); Kepler: 0 */
    double smx_load;             /* Kepler: read-only-cache volume V_SMX; NV: 0 */
    double l1_load;              /* requested L2->L1 volume, no reuse between instructions */
    double l2_load_compulsory;   /* L2LoadV1: thread-block footprint */
    double l2_load;              /* L2LoadV2: with reuse and L1 capacity misses */
    double l2_store;             /* write-through store volume (v2: what L2 receives) */
    double l2_store_charged;     /* the store volume the limits charge: every store
                                    instruction's sectors, before model v2's merge */
    double l2_store_partial;     /* model v2: bytes the sectors stores leave partly written
                                    after a warp's folding step still miss */
    double l2_store_requests;    /* model v2: L1->L2 write requests (lines per store) */
    double l2_load_requests;     /* model v2: L1->L2 read requests (lines loads miss) */
    double l2_store_left;        /* model v2: bytes the sectors a thread block's stores
                                    touch still miss: completed by other blocks */
    double dram_load_compulsory; /* memLoadV1: wave footprint */
    double dram_load_warm;       /* memLoadV2: with reuse of the previous waves' data */
    double dram_load;            /* memLoadV3: with store-eviction reads */
    double dram_store;           /* memStoreV2 */
} est_volumes;

typedef enum est_limiter {
    EST_LIMITER_FLOPS,
    EST_LIMITER_L1,
    EST_LIMITER_L2,
    EST_LIMITER_DRAM,
    EST_LIMITER_LATENCY, /* model v2: too few updates in flight (Little's law) */
    EST_LIMITER_BLOCKS,  /* model v2: blocks too small for the block start rate */
    EST_LIMITER_STORES,  /* model v2: scattered stores, too many L2 write requests */
    EST_LIMITER_L2_REQUESTS, /* model v2: the L2 tags, too many requests and sectors */
    EST_LIMITER_L1_REQUESTS, /* model v2: too many load and store instructions */
    EST_LIMITER_NONE
} est_limiter;

const char *est_limiter_name(est_limiter l);

typedef struct est_result {
    est_config config;
    int64_t grid[3];
    int blocks_per_sm;
    int64_t wave_blocks;  /* blocks_per_sm * SMs */
    int64_t wave_grid[3]; /* concurrently running blocks in x, y, z order */
    int launchable;
    char reason[160];        /* why not launchable */
    int64_t lattice_updates; /* domain points */

    est_volumes total;
    int nfields;
    est_volumes field[EST_MAX_FIELDS];

    /* Limits in GLup/s; 0 means "no limit" (e.g. a kernel without flops). */
    double perf_flops, perf_l1, perf_l2, perf_dram;
    double predicted; /* GLup/s, the smallest limit */
    est_limiter limiter;

    /* Intermediate figures a user needs to see why (all documented in docs/model.md). */
    double l1_coverage;                    /* L1 allocation oversubscription fed to miss_L1 */
    double l2_oversubscription;            /* O_L2 */
    double wave_overlap_y, wave_overlap_z; /* ov_y, ov_z in B/Lup */
    double wave_oversub_y, wave_oversub_z; /* O_y, O_z */

    /* Model v2 (docs/model.md, "Latency and occupancy"); 0 under "warpspeed". */
    double blocks_idle_bound;     /* the most blocks an SM can hold where every block has
                                     idle warps (est_blocks_with_idle_warps); blocks_per_sm
                                     where none are idle */
    double blocks_resident;       /* blocks an SM holds on average: blocks_per_sm, or up to
                                     blocks_idle_bound (docs/model.md, "Blocks with idle
                                     warps") */
    double active_threads_per_sm; /* threads that update lattice points, per SM */
    double warp_active_share;     /* the warps of a block that work over its life (1: all;
                                     docs/model.md, "Warp spread in deep blocks") */
    double bytes_in_flight_per_sm; /* DRAM bytes the active threads have requested */
    double partial_sectors_in_flight_per_sm; /* sectors the active threads' stores leave
                                                partly written, whoever completes them */
    double partial_sector_share;  /* share of the predicted time lost to the stores
                                     that leave those sectors (docs/model.md) */
    double perf_latency;          /* GLup/s the concurrency allows (Little's law) */
    double perf_blocks;           /* GLup/s the block start rate allows */
    double perf_stores;           /* GLup/s the L2 write request rate allows */
    double perf_l2_requests;      /* model v2: GLup/s the L2 tag lookup rate allows */
    double perf_l1_requests;      /* model v2: GLup/s the L1 request rate allows */
    double l1_requests_per_update; /* model v2: warp load and store instructions per
                                      lattice update, all fields */
    double updates_per_block;     /* lattice updates per thread block, average */
    double l1_wavefronts;         /* predicted L1 data-pipe wavefronts per lattice update */
    double stores_left_in_l2;     /* bytes of stores dirty in L2 when the launch ends */
    double dram_charged; /* bytes per update the DRAM limit charges: under v2 with the
                            reference rule's partial-store evictions (docs/model.md) */
    double launch_time_us;        /* model v2: predicted time of the launch, with overhead */
    double dram_saved_by_depth;   /* model v2: DRAM bytes per update the block's depth in z
                                     saves against the same block laid flat (bx, by * bz, 1);
                                     the DRAM limit charges a share of them (v2.c) */
} est_result;

/* ---- estimation ---- */

typedef struct est_ctx est_ctx;

/* A per-thread estimation context owning an isl_ctx whose errors never abort and
 * whose work per configuration is bounded by max_operations (0: EST_DEFAULT_MAX_OPS).
 * Free with est_ctx_free. NULL on allocation failure. */
est_ctx *est_ctx_new(unsigned long max_operations);
void est_ctx_free(est_ctx *ctx);

/* isl operations one configuration may cost: the 3-D 25-point case needs ~2e5, a
 * D3Q19 LBM kernel with 38 fields up to 2e6; 5e6 leaves room. Operations are not
 * time (a request of six floor divisions costs 2e5 per second), so time is bounded
 * separately by est_ctx_set_deadline. */
#define EST_DEFAULT_MAX_OPS 5000000ul

/* Wall-clock limit for the estimates made with ctx: at the deadline (seconds on
 * CLOCK_MONOTONIC, as est_now returns; 0 = none) the isl work in progress is
 * interrupted and est_estimate fails with LR_BUDGET_EXCEEDED. */
void est_ctx_set_deadline(est_ctx *ctx, double deadline);
double est_now(void);

/* A way to end computations early from another thread, through the same path as the
 * deadline: a daemon shutting down raises it, and every est_ctx that watches it
 * expires at once (isl interrupted, the samplers stop at their next poll), as do the
 * estimates started on them later. Create with est_stop_new; free with est_stop_free
 * once no context watches it any more (the creator owns it). */
typedef struct est_stop est_stop;
est_stop *est_stop_new(void);
void est_stop_free(est_stop *stop);
/* Any thread, any number of times: every watching context expires now. */
void est_stop_raise(est_stop *stop);
/* Whether stop was raised (NULL: never). */
int est_stop_raised(est_stop *stop);
/* ctx expires when stop is raised (at once if it was); est_ctx_free ends the watch.
 * A context watches one stop at most; NULL stops watching. */
void est_ctx_watch(est_ctx *ctx, est_stop *stop);

/* Estimates one configuration into *out. A configuration that cannot launch is not
 * an error: out->launchable is 0 and out->reason says why (est_launch_check's
 * LR_NOT_LAUNCHABLE message). Returns 0, or -1 with err set: LR_INVALID_REQUEST for
 * inputs no request could hold, checked first (any argument NULL, a kernel without
 * fields or with registers outside 0..EST_MAX_REGISTERS, negative shared memory, flops
 * that are not finite and >= 0, a device est_device_check refuses (path "device.NAME"),
 * est_launch_check's LR_INVALID_REQUEST for the domain, block and folding);
 * LR_BUDGET_EXCEEDED when isl ran out of operations or the deadline passed. Never
 * divides by zero or overflows on any input. */
int est_estimate(est_ctx *ctx, const est_kernel *k, const est_device *dev,
                 const est_config *cfg, est_result *out, lr_error *err);

/* Recomputes the limits and the predicted performance of r (whose volumes, occupancy
 * and launch figures est_estimate filled) for dev's performance figures, under k's
 * model. Cheap: for refitting a device's model-v2 parameters on stored results. */
void est_result_performance(const est_kernel *k, const est_device *dev, est_result *r);

/* A constant of the model's equations (an EST_RULE row of params.def) by its name: its
 * value into *value (est_rule_get), or a new value for every later estimate in the
 * process (est_rule_set); 0, or -1 when no rule has that name. For tools that study the
 * model (tests/accuracy/accuracy --lofo-rules refits rules without one family): the
 * library, calibrate and the server never set one, and a set while another thread
 * estimates races with it. */
int est_rule_get(const char *name, double *value);
int est_rule_set(const char *name, double value);

/* The grid of cfg: ceil(domain / (block * folding)) thread blocks in each dimension
 * (0 where a block or folding side is not positive). */
void est_grid(const est_config *cfg, int64_t grid[3]);

/* Whether block x folding tiles cfg's domain in every dimension, so that every thread
 * the entry guard keeps has all its folding steps in the domain. cudagen emits a
 * folded thread's steps in one form then, else with a guarded second form for the
 * threads at the edge, and the model v2's store merging follows that code shape
 * (docs/model.md, "Partly written sectors"). */
int est_config_tiles_domain(const est_config *cfg);

/* The one check of launch limits (launch.c), which est_estimate and cudagen's
 * cg_config_check both call. Returns 0 when cfg can run, else -1 with err:
 *   LR_INVALID_REQUEST for a domain side outside 1..EST_MAX_DOMAIN_SIDE or more than
 *     EST_MAX_DOMAIN_POINTS points (path "domain"), a block or folding side below 1
 *     (path "launch.block" or "launch.folding");
 *   LR_NOT_LAUNCHABLE for what CUDA refuses (block sides past 1024 x 1024 x 64 or
 *     more than 1024 threads, a grid past 2^31-1 x 65535 x 65535) or the model and
 *     cudagen do not handle (a folding past EST_MAX_FOLDING points), path
 *     "launch.block" or "launch.folding" (messages about folding start with
 *     "folding"); and, with dev not NULL, a block of more threads than
 *     dev->max_threads_per_block or one that fits on no SM (the message names the limit
 *     that leaves none, registers, shared memory, threads or blocks per SM, with its
 *     figures).
 * dev NULL checks what holds on every GPU (cudagen, before it knows which). The
 * model's own refusal of folded stores in thread variables is not a launch limit
 * (cudagen generates such a store as a per-thread sum): est_estimate adds it. */
int est_launch_check(const est_kernel *k, const est_device *dev, const est_config *cfg,
                     lr_error *err);

/* The register counts per thread, above k's, at which blocks of threads threads of k
 * change on dev (occupancy rule, docs/model.md §2; shared memory as k has it): returns
 * the smallest count at which fewer blocks fit on an SM than at k's count, and
 * *unlaunchable gets the smallest at which none fits. Either is EST_MAX_REGISTERS + 1
 * when no count up to EST_MAX_REGISTERS reaches it. */
int est_register_threshold(const est_kernel *k, const est_device *dev, int threads,
                           int *unlaunchable);

#endif
