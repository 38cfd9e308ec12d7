/*
 * calibrate: a device description from measurements on the GPU itself (`launchrank
 * calibrate`, docs/calibration.md).
 *
 * Two steps, kept apart so that the second runs (and is tested) without a GPU:
 *  1. cal_measure times the calibration suite (kernel families of the measured corpus,
 *     tests/accuracy/corpus/families/, embedded at build time) with cudagen on the GPU, exactly
 *     as `launchrank measure` does, and returns the raw record: the driver's figures
 *     and one timing per configuration.
 *  2. cal_analyse turns a raw record into a device description (the JSON of
 *     estimator/devices/NAME.json, with a `sources` entry for every figure): the driver's
 *     figures, the attainable DRAM and L2 bandwidths, and the model-v2 parameters
 *     fitted to the timings (calibrate/fit.h, the same fit as tests/accuracy/accuracy --fit).
 */
#ifndef CAL_CALIBRATE_H
#define CAL_CALIBRATE_H

#include <cjson/cJSON.h>

#include "cudagen.h"
#include "devices.h"
#include "lr_error.h"

/* Identifies a raw record (its "format" member). */
#define CAL_RAW_FORMAT "launchrank-calibration-raw-1"

typedef struct cal_opts {
    int quick;               /* every third configuration of the suite only */
    cg_measure_opts measure; /* GPU ordinal, repetitions, backend (cg_measure_opts_init) */
    /* called before each configuration (may be NULL): done of total, the family */
    void (*progress)(void *ctx, int done, int total, const char *family);
    void *progress_ctx;
} cal_opts;

void cal_opts_init(cal_opts *o);

/* Names of the suite's families, NULL-terminated. */
extern const char *const cal_suite_families[];

/* Times the suite on the GPU. Returns the raw record (caller owns), or NULL with err:
 * LR_UNAVAILABLE without a GPU, driver or NVRTC (checked before anything else runs),
 * or cudagen's errors. */
cJSON *cal_measure(const lr_devices *devs, const cal_opts *o, lr_error *err);

/* The device description a raw record gives. base names the built-in whose figures
 * the measurements do not determine (NULL: H100-SXM5-80GB); name is the new device's
 * name (NULL: "<GPU name> (calibrated)"). *report (when report is not NULL) receives
 * a readable summary of what was measured and how well the fitted model reproduces
 * the timings (malloc'd). Returns the description (caller owns) or NULL with err
 * (LR_INVALID_REQUEST naming the offending member of raw). */
cJSON *cal_analyse(const lr_devices *devs, const cJSON *raw, const char *base, const char *name,
                   char **report, lr_error *err);

#endif
