/*
 * rates: the instruction rates a calibrated device gets (docs/calibration.md,
 * "Instruction rates"; docs/model.md "Instruction issue").
 *
 * micro.c times five kernels of independent instruction chains (FFMA, DFMA, MUFU,
 * integer SHF+LOP3, and a mix that no single pipe limits) and records, for each, the
 * instructions per thread and the SM cycles they took. This module turns that record
 * into results per cycle per SM, rounds them to the figures a device gives
 * (fp32_lanes, fp64_lanes, special_lanes, integer_lanes, issue_lanes) and says how.
 * No GPU is needed: it is tested on recorded runs.
 */
#ifndef CAL_RATES_H
#define CAL_RATES_H

#include <cjson/cJSON.h>

#include "device.h"
#include "fit.h"
#include "lr_error.h"

enum {
    CAL_RATE_FP32,
    CAL_RATE_FP64,
    CAL_RATE_SPECIAL,
    CAL_RATE_INTEGER,
    CAL_RATE_ISSUE,
    CAL_RATE_CLASSES
};

/* A measured rate within this share of a power of two is that power of two: every rate
 * of the CUDA programming guide's arithmetic-instruction table is one, and the loop
 * around the measured chains costs 2-3 % of the issue. */
#define CAL_RATE_SNAP 0.15

typedef struct cal_rates {
    int measured;                       /* classes the record measured (0: none) */
    double per_cycle[CAL_RATE_CLASSES]; /* results per cycle per SM; 0 = not measured */
    double ghz[CAL_RATE_CLASSES];       /* the SM clock under that load (cycles / ns) */
    int lanes[CAL_RATE_CLASSES];        /* the figure written: per_cycle, rounded */
} cal_rates;

/* The device figure class c sets ("fp32_lanes", ...). */
const char *cal_rate_figure(int c);

/* The device figure for a measured rate: the nearest power of two when within
 * CAL_RATE_SNAP of it, else the rate rounded to an integer; at least 1. */
int cal_rate_round(double per_cycle);

/* Analyses the "rates" member of the raw "micro" object (may be NULL, or lack it: a
 * record made before calibrate measured them, then out->measured is 0). Appends a
 * table to t (may be NULL). 0, or -1 with err (LR_INVALID_REQUEST naming the bad
 * member, "micro.rates[i].cycles"). */
int cal_rates_analyse(const cJSON *micro, cal_rates *out, cal_text *t, lr_error *err);

/* Sets dev's figures of every measured class. */
void cal_rates_apply(const cal_rates *r, est_device *dev);

/* The sources entry: its key (the measured figures, comma-separated) into key and its
 * sentence (who: "GPU, CUDA driver X.Y, date") into s. */
void cal_rates_source(const cal_rates *r, const char *who, char *key, size_t key_size, char *s,
                      size_t size);

#endif
