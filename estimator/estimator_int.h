/*
 * estimator_int.h: struct bodies and helpers shared by the estimator's own files
 * (kernel.c, bind.c, sample.c, dram.c, estimate.c, rank.c). Not installed, not
 * included outside estimator/.
 */
#ifndef EST_ESTIMATOR_INT_H
#define EST_ESTIMATOR_INT_H

#include <isl/ctx.h>
#include <pthread.h>
#include <stdatomic.h>
#include <isl/map_type.h>

#include "estimator.h"

/* The constants of the model's equations, the EST_RULE rows of params.def, read as
 * RULE(NAME) (params.c holds their values). */
enum est_rule_id {
#define EST_RULE(name, ...) EST_RULE_##name,
#include "params.def"
#undef EST_RULE
    EST_NRULES
};
extern double est_rules[EST_NRULES]; /* params.def's values unless est_rule_set */
#define RULE(name) (est_rules[EST_RULE_##name])

typedef struct est_access {
    est_expr *idx[3]; /* one per array dimension of the field; owned */
    int n;
    int is_store;
    uint32_t uses; /* EST_VAR_BIT mask of all idx[] */
} est_access;

typedef struct est_field {
    char name[EST_MAX_NAME];
    int elem_bytes;
    int ndims;
    int64_t dims[3]; /* unused trailing dims are 1 */
    int64_t base_offset;
    est_access *acc; /* owned array */
    int nacc, cap;
    int nloads, nstores;
    est_table *table; /* an index field's values (owned), NULL for a data field */
} est_field;

/* The byte address of field f's element i (an index per dimension, unused ones 0), as C
 * computes it from the indices: est_bind has checked that those of a grid stay in int64. */
static inline int64_t est_field_address(const est_field *f, const int64_t i[3])
{
    return f->base_offset +
           f->elem_bytes * (i[0] + i[1] * f->dims[0] + i[2] * f->dims[0] * f->dims[1]);
}

struct est_kernel {
    uint64_t uid;      /* identity: keys the per-thread map caches (est_kernel_set_identity) */
    est_field *fields; /* owned array */
    int nfields, cap;
    double flops;
    double fp_instructions;
    est_instructions instructions; /* valid when has_instructions */
    int has_instructions;
    int fp64;
    int registers;
    int64_t shared_bytes;
    est_model model;
    int restrict_; /* loads of one thread's folding steps may share registers */
    int gathers;   /* accesses that read through an index field (gather.c) */
    struct est_kernel **variant; /* owned: the mesh renumbered (est_kernel_add_variant) */
    int nvariants;
};

/* Access maps kept per thread between configurations (see dram.c). */
#define EST_MAP_CACHE 64
typedef struct est_map_entry {
    int64_t key[12];
    struct isl_map *map; /* owned */
} est_map_entry;

/* warp_shapes.c: full-warp counts kept across estimates by the thread's est_ctx. */
typedef struct est_warp_shapes est_warp_shapes;
void est_warp_shapes_free(est_warp_shapes *m);

/* memo.c: numbers keyed by integer vectors, safe to share between threads. */
typedef struct est_memo est_memo;
est_memo *est_memo_new(void);
void est_memo_free(est_memo *m);
/* 1 and val[0..nval) when key[0..n) is known, else 0. */
int est_memo_get(est_memo *m, const int64_t *key, int n, double *val, int nval);
void est_memo_put(est_memo *m, const int64_t *key, int n, const double *val, int nval);

struct est_ctx {
    isl_ctx *isl; /* owned */
    /* the watchdog: a thread that interrupts isl at the deadline (see deadline.c) */
    pthread_t watchdog;
    int watchdog_started;
    pthread_mutex_t lock; /* guards deadline and stop */
    pthread_cond_t wake;
    double deadline; /* 0 = none */
    int stop;
    /* set by the watchdog at the deadline (or by a raised est_stop), cleared by
     * est_ctx_set_deadline unless the stop was raised: the samplers, which
     * isl_ctx_abort cannot reach, poll it (est_ctx_expired) */
    atomic_int expired;
    est_stop *watched;          /* the stop this context watches, or NULL */
    struct est_ctx *watch_next; /* the next context watching it (guarded by its lock) */
    unsigned long max_ops;
    est_map_entry maps[EST_MAP_CACHE];
    unsigned next_map;
    est_memo *own_memo;              /* owned; NULL until first used */
    est_memo *memo;                  /* own_memo, or a ranking's shared one (not owned) */
    struct est_cache *warp_memo;  /* owned (est_cache_free); see sample_warp.c */
    est_warp_shapes *warp_shapes; /* owned (est_warp_shapes_free); see warp_shapes.c */
};

/* Thread coordinates of the 6 launch variables an instruction's address depends on. */
enum { EST_T_X, EST_T_Y, EST_T_Z, EST_B_X, EST_B_Y, EST_B_Z, EST_NCOORD };

/* One warp-level memory instruction of the kernel under one configuration: an access
 * at one folding step. An access in x,y,z is issued once per folding step, one in
 * thread variables once per thread. */
typedef struct est_inst {
    int field;
    int is_store;
    const est_access *acc;
    int step[3]; /* folding offsets of this instance */
    int lattice; /* the access uses x,y,z: validity is per lattice point */
    int affine;  /* address = c0 + sum coef[i]*coord[i] */
    int64_t c0;
    int64_t coef[EST_NCOORD];
} est_inst;

/* Instructions of one field whose addresses move together: all affine with the same
 * coefficients, so a warp's counts for the whole group depend on one shift. */
typedef struct est_group {
    int field;
    int affine;
    int first, n; /* members are member[first .. first+n) of est_binding */
} est_group;

/* Where model v2 counts a volume otherwise than the published method, each rule named
 * by its section of docs/model.md. est_bind sets them from the kernel's model (all on
 * under v2, all off under the reference), so that the samplers and volumes.c read
 * rules, not the model. */
typedef struct est_volume_rules {
    int partial_sectors;   /* "Partly written sectors": the samplers count the bytes the
                              stores' sectors still miss and the writes L1 merges */
    int charge_received;   /* "Partly written sectors": the limits charge the store sectors
                              L2 receives, not every store instruction's */
    int merge_requests;    /* "Merged store requests": an unfolded thread's write requests
                              merge as its sectors do */
    int warm_folded_waves; /* "Warm cache of folded waves": L2 sees one step of a folded
                              wave between a row's first use and its reuse */
    int shared_stores;     /* "Stores shared with the previous wave": a fetch unit both
                              store into is written back once */
    int evict_partial;     /* "Partly written sectors": L2 evicts some partly written
                              sectors, each a DRAM read and write */
    int dirty_at_end;      /* "Stores left in L2": reports the stores still in L2 */
    int partial_layer;     /* "A wave of whole layers and a part": a wave of more than
                              a layer is its whole layers and a share of the next */
    int wave_reloads;      /* "Reloads within a wave": L2 capacity misses reload a share
                              of the wave's DRAM loads (a device parameter, params.def) */
} est_volume_rules;

/* A kernel bound to one configuration: everything the samplers need. */
typedef struct est_binding {
    const est_kernel *k;
    const est_device *dev;
    est_config cfg;
    int64_t grid[3];
    int threads;    /* per block */
    int spread;     /* the kernel gathers: sample blocks spread over the grid, not the
                       first ones (sample.c) */
    int merge_all_steps; /* model v2: L1 merges the stores of all of a thread's folding
                          * steps as one step's (bind.c, merges_all_steps) */
    double store_unmerged; /* with merge_all_steps: the share of the steps' sector
                            * writes that still reach L2 unmerged (bind.c) */
    est_volume_rules rules; /* how volumes.c counts (the kernel's model) */
    est_inst *inst; /* owned; grouped by field, loads before stores */
    int ninst;
    int first[EST_MAX_FIELDS], count[EST_MAX_FIELDS];
    est_group *groups; /* owned */
    int ngroups;
    int *member;                         /* owned; instruction indices ordered by group */
    char field_path[EST_MAX_FIELDS][24]; /* "kernel.fields[i]", for error paths */
} est_binding;


/* bind.c */
int est_bind(est_binding *b, const est_kernel *k, const est_device *dev, const est_config *cfg,
             lr_error *err);
void est_binding_release(est_binding *b);
/* Byte address of instruction in for the thread at coord; valid is set to whether
 * that thread executes the instruction (its lattice point lies in the domain). */
int64_t est_inst_address(const est_binding *b, const est_inst *in,
                         const int64_t coord[EST_NCOORD], int *valid);
/* Lattice points the thread at coord updates (0..folding product). */
int64_t est_thread_lups(const est_binding *b, const int64_t coord[EST_NCOORD]);

/* sample.c: L1 cycles and L2 volumes from concrete addresses. */

/* The warp pass's counters of one field (docs/model.md §3): one warp instruction's
 * counts (sample_warp.c) and their sums over a group of instructions, a block and every
 * sampled warp. The sampler adds (and packs for its memos) them only through v
 * (sample_warp.c, add_counts), so a counter added here is summed everywhere; the
 * assertion below stops the build until EST_WARP_COUNTERS counts it. Whole numbers in
 * doubles: the sums stay exact below 2^53. */
#define EST_WARP_COUNTERS 14
typedef union est_warp_counts {
    struct {
        double c, tag, dp;   /* L1 cycles */
        double load_sectors; /* sectors requested by load instructions */
        double store_sectors;
        /* model v2: bytes the sectors a warp's stores leave partly written after a
         * folding step still miss (docs/model.md "Partly written sectors") */
        double store_unwritten;
        /* model v2: the sector writes of store_sectors that L1 merges because one folding
         * step's stores complete the sector (docs/model.md "Partly written sectors") */
        double store_merged;
        double store_lines; /* distinct lines per store instruction, summed: write requests */
        double store_c;     /* the part of c from store instructions (L1 wavefronts) */
        /* Kepler half-warp 128-B segments, of loads and of stores: the SMX volume counts
         * stores too (Su et al.: 7 loads + 1 store = 80 B/Lup) */
        double smx_segments;
        /* the minimum cycles m of load instructions (one per 128 B the warp reads): the
         * wavefronts that return a load's data (L1 wavefronts, docs/model.md §3) */
        double load_m;
        /* distinct lines per load instruction, summed: L1 load requests (what misses
         * of them reaches L2 as requests, docs/model.md "L2 requests") */
        double load_lines;
        /* model v2: warp load and store instructions, one each: the requests the L1
         * accepts (docs/model.md, "L1 requests") */
        double inst;
        double load_inst; /* warp load instructions, one each (docs/model.md §3) */
    };
    double v[EST_WARP_COUNTERS]; /* the same counters, to add them all alike */
} est_warp_counts;
_Static_assert(sizeof(est_warp_counts) == EST_WARP_COUNTERS * sizeof(double),
               "EST_WARP_COUNTERS must count every member of est_warp_counts");

typedef struct est_field_sample {
    est_warp_counts warp; /* warp pass, sums over sampled warp instructions */
    /* block pass, sums over sampled blocks */
    double blk_load_sectors; /* distinct sectors loaded per block */
    double blk_load_lines;
    double blk_store_lines;
    double blk_store_unwritten; /* model v2: bytes the block's store sectors still miss */
    double overlap_sectors; /* average shared sectors with earlier blocks on the SM */
    /* load instructions of the middle block that wait on a line their own warp's earlier
     * load touched first, per lattice update (sample_waits.c) */
    double mid_load_waits;
} est_field_sample;

typedef struct est_sample {
    est_field_sample f[EST_MAX_FIELDS];
    double warp_lups;      /* lattice updates of the sampled warps */
    double warps;          /* sampled warps that update at least one lattice point */
    double block_lups;     /* lattice updates of the sampled blocks */
    int nblocks;           /* sampled blocks */
    double mid_block_lups; /* lattice updates of the middle block (overlap) */
    double warp_active_share; /* the warps of a block that work over its life (1: all;
                                 warp_spread.h) */
} est_sample;

int est_sample_run(est_ctx *ctx, const est_binding *b, est_sample *out, lr_error *err);

/* dram.c: wave footprints with isl. Volumes in bytes. */
typedef struct est_field_wave {
    double vnew_load, vnew_store;
    double scattered_load; /* gathers (gather.c): the part of vnew_load that reads through
                              an index field fetches, one scattered fetch unit at a time */
    double ov_y, ov_z;   /* Ox+Oy and Oz, loads */
    double ov_store_y, ov_store_z; /* Ox+Oy and Oz, stores */
    double store_floor; /* bytes per lattice update the stores write at the least */
    double old_y, old_z; /* |A(y)|, |A(z)|, loads and stores */
} est_field_wave;

typedef struct est_wave {
    est_field_wave f[EST_MAX_FIELDS];
    double cur_lups; /* lattice updates of the current-wave thread set */
    int64_t dims[3]; /* wave extent in blocks used for the thread sets */
} est_wave;

int est_wave_run(est_ctx *ctx, const est_binding *b, int64_t wave_blocks, est_wave *out,
                 lr_error *err);

/* gather.c (docs/model.md, "Gathers through an index field"): whether k's gathers can
 * be estimated for cfg (1-D launches without folding: LR_NOT_LAUNCHABLE otherwise;
 * every table read and every address inside its table and field over the domain:
 * LR_INVALID_REQUEST naming the access otherwise). 0, or -1 with err. */
int est_gather_check(const est_kernel *k, const est_config *cfg, lr_error *err);
/* gather.c: the DRAM volumes of a gathering kernel, counted from the addresses of every
 * lattice update wave by wave, with the L2 keeping what the last l2_bytes of distinct
 * sectors touched; into out as one wave of all updates (est_dram_volumes reads it). */
int est_gather_waves(est_ctx *ctx, const est_binding *b, int64_t wave_blocks, est_wave *out,
                     lr_error *err);

/* The memo the ctx uses: a ranking's shared one, or its own (created on demand). */
est_memo *est_ctx_memo(est_ctx *ctx);
void est_ctx_share_memo(est_ctx *ctx, est_memo *shared);

/* deadline.c */
int est_deadline_start(est_ctx *ctx);
void est_deadline_stop(est_ctx *ctx);

/* Non-zero once ctx's deadline has passed. One relaxed atomic load, so loops that
 * isl does not run (the samplers) can afford it every warp or thread. */
static inline int est_ctx_expired(est_ctx *ctx)
{
    return atomic_load_explicit(&ctx->expired, memory_order_relaxed);
}

/* kernel.c: whether an access of f reads through an index field */
int est_field_gathers(const est_field *f);

/* kernel.c: the store instructions of one lattice update, all fields: a folded
 * thread issues them once per step (its store burst, docs/model.md) */
int est_kernel_stores(const est_kernel *k);

/* kernel.c: the bytes field f's stores write per lattice update (its store
 * instructions times its element size) */
double est_kernel_field_store_bytes(const est_kernel *k, int f);

/* launch.c */
int est_blocks_per_sm(const est_kernel *k, const est_device *dev, int threads);
/* launch.c: the most blocks of cfg (grid its grid) an SM can hold where every block has
 * warps with no lattice point to update: those return at once and give back their
 * registers and warp slots, so the SM may start a block before the last one ends
 * (docs/model.md, "Blocks with idle warps"); est_blocks_per_sm where none are idle */
double est_blocks_with_idle_warps(const est_kernel *k, const est_device *dev,
                                  const est_config *cfg, const int64_t grid[3]);
/* launch.c: whether the model can estimate cfg's folding of k: a folding of more than
 * one point per thread needs every store in lattice variables (x, y, z); a store in
 * thread variables would leave lattice points unwritten (issue 11). 0, or -1 with err
 * (LR_NOT_LAUNCHABLE, path "launch.folding", the message starting with "folding"). */
int est_folding_check(const est_kernel *k, const est_config *cfg, lr_error *err);


/* a / b, or 0 when b is not positive (a limit or volume of nothing). */
static inline double div0(double a, double b)
{
    return b > 0 ? a / b : 0;
}

static inline double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/* ---- volumes.c, warpspeed.c, v2.c: a configuration's volumes and performance ---- */

/* t += v, member by member. */
void est_add_volumes(est_volumes *t, const est_volumes *v);
/* L1 cycles and wavefronts, L2 volumes and requests per field (docs/model.md §3, §4). */
void est_l1_l2_volumes(const est_binding *b, const est_sample *s, est_result *r);
/* DRAM volumes per field from the wave footprints w of wave_lups lattice updates
 * (docs/model.md §5, §6). */
void est_dram_volumes(const est_binding *b, const est_wave *w, int64_t wave_lups,
                      est_result *r);
/* The published method's four limits (docs/model.md §7) into r; 0 = no limit. */
void est_warpspeed_limits(const est_kernel *k, const est_device *dev, est_result *r);
/* The smallest positive limit of lim[0..n) (ties: the first) as r's prediction and
 * limiter. */
void est_smallest_limit(const double *lim, int n, est_result *r);
/* The published method's prediction: its limits and the smallest. */
void est_warpspeed_performance(const est_kernel *k, const est_device *dev, est_result *r);
/* Model v2's prediction (v2.c). */
void est_v2_performance(const est_kernel *k, const est_device *dev, est_result *r);

#endif
