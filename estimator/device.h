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

#include <stddef.h>
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

/* What a device's model-v2 parameters and its tie width (est_device_tie_width) rest on. Not a model input:
 * the estimator never reads it; answers report it (docs/accuracy.md, "What each device
 * rests on"), so that a prediction says how far to trust it. */
typedef enum est_provenance {
    EST_PROVENANCE_BORROWED, /* the H100's fit and precision, not this GPU's */
    EST_PROVENANCE_DERIVED,  /* figures derived from publications, not timed here */
    EST_PROVENANCE_MEASURED  /* fitted to timings of this GPU (corpus or calibrate) */
} est_provenance;

typedef struct est_device {
    char name[64];
    est_l1_model l1_model;
    est_provenance provenance;
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
    int issue_lanes;   /* thread instructions issued per cycle per SM; 0 = unknown */
    int special_lanes; /* special-function (MUFU) results per cycle per SM; 0 = unknown */
    int integer_lanes; /* 32-bit integer results per cycle per SM; 0 = unknown */
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int max_threads_per_block;
    int regs_per_sm;
    int64_t shared_bytes_per_sm;
    int64_t shared_reserved_bytes_per_block; /* the driver's own share of every block's
                                                shared memory (1 KiB from compute
                                                capability 8.0, 0 before); 0 if unknown */
    int64_t shared_alloc_bytes; /* the unit a block's shared memory is allocated in (128 B
                                   from compute capability 8.0, 256 before); 0 if unknown */
    int l1_line_bytes;
    int l1_sector_bytes;
    int l2_sector_bytes;
    int dram_fetch_bytes;
    est_fit miss_l1, miss_ovy, miss_ovz, miss_l2, miss_l2store;

    /* Model v2's parameters and the ranking's precision, one double per row of
     * params.def, which says what each is, its unit, bounds and default (the H100's). */
#define EST_PARAM(name, ...) double name;
#include "params.def"
#undef EST_PARAM
} est_device;

/* How a parameter of params.def is determined. */
typedef enum est_mparam_kind {
    EST_FITTED,   /* fitted on measured kernels (calibrate/fit.c) */
    EST_HELD,     /* fitted only when a fit is told to; held at the device's otherwise */
    EST_MEASURED, /* measured by calibration, not fitted */
    EST_RANKING   /* not a model input: the ranking's tie width */
} est_mparam_kind;

/* One row of params.def. */
typedef struct est_mparam {
    const char *name;
    est_mparam_kind kind;
    size_t offset; /* of the double in est_device */
    double h100;   /* the value of a device that does not give it */
    double lo, hi; /* bounds; lo_open / hi_open: the bound itself is excluded */
    int lo_open, hi_open;
    const char *must; /* what est_device_check says when it is out of bounds */
    const char *unit; /* unit and meaning, as the device endpoint reports them */
} est_mparam;

/* The rows of params.def, in its order, and how many there are. */
extern const est_mparam est_mparams[];
extern const int est_nmparams;

/* The value of parameter p in d. */
double *est_mparam_in(est_device *d, const est_mparam *p);

/* The one row of params.def of a kind that has one: EST_MEASURED, the launch overhead
 * calibration measures; EST_RANKING, the ranking's tie width. NULL for a kind with no row
 * or several (tests/model holds these two to one row each). Code outside the table and
 * the model reaches those figures through it, so that their names are written once. */
const est_mparam *est_mparam_sole(est_mparam_kind kind);

/* The fraction of the best prediction within which a ranking's predictions tie: d's
 * EST_RANKING figure, measured by tests/accuracy/accuracy (docs/accuracy.md, "Rank
 * precision"). Not a model input. */
double est_device_tie_width(const est_device *d);

/* Sets every parameter of params.def in d to its default (the H100's). */
void est_device_set_v2_defaults(est_device *d);

/* Checks that every figure is in a sensible range; on failure returns the name of
 * the first bad figure and writes why into why (NULL when all is well). */
const char *est_device_check(const est_device *d, char *why, unsigned whysize);

#endif
