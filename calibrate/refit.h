/*
 * refit: the model-v2 parameters of a device refitted to the measurement log of the
 * store (`launchrank fit`, docs/calibration.md, "Refitting from your own
 * measurements").
 *
 * Every `launchrank measure --db` and `rank --measure-top --db` run appends its
 * timings to the log with the canonical request it timed (store/, schema 4). A refit
 * takes the rows whose request named the device, rebuilds each kernel from its
 * request, estimates every measured configuration on the device (est_estimate: the
 * volumes), groups the rows by kernel (the request without its launch) and runs the
 * same fit as `launchrank calibrate` and `tests/accuracy/accuracy --fit` (calibrate/fit.h).
 */
#ifndef CAL_REFIT_H
#define CAL_REFIT_H

#include <cjson/cJSON.h>

#include "devices.h"
#include "lr_error.h"
#include "store.h"

/* Fewer usable measurements than this are refused: eleven parameters want several
 * times as many timings (calibrate refuses under the same number). */
#define CAL_REFIT_MIN_MEASUREMENTS 20
/* Fewer kernels than this are refused: one kernel's timings fit it and nothing else. */
#define CAL_REFIT_MIN_KERNELS 2
/* At least one kernel must spread its measured GLup/s by this fraction (fastest over
 * slowest - 1): with less, the timings say nothing about which launch is better and
 * ranking cannot pull the parameters. */
#define CAL_REFIT_MIN_SPREAD 0.10

/* What a refit found in the log (for the report and the tests). */
typedef struct cal_refit_stats {
    int rows;             /* measurements in the log */
    int no_request;       /* rows from before the log kept requests: skipped */
    int other_device;     /* rows whose request named another device */
    int unusable;         /* rows whose request cannot be read again or whose launch does
                             not run on the device */
    int used;             /* measurements fitted */
    int kernels;          /* distinct kernels among them */
    double before, after; /* cal_objective under the device, and after the fit */
} cal_refit_stats;

/* Refits device (a name in devs: built-in or stored) to the measurement log of st.
 * The rows used are those whose canonical request names the device (case-insensitive
 * match on the name; the figures may differ, e.g. after a built-in was updated: the
 * kernels are estimated under the device's current figures). name is the new device's
 * name (NULL: "<device>-refit"); a built-in's name is refused. Returns the new
 * description (the JSON of lr_device_to_json with a "sources" entry; caller owns), or
 * NULL with err: LR_NOT_FOUND for an unknown device, LR_INVALID_REQUEST (path
 * "measurements") for too few or too uniform data (CAL_REFIT_MIN_*), or the store's
 * error. *stats (when not NULL) is filled as far as the refit got; *report (when not
 * NULL) receives the readable summary (malloc'd, caller frees), also on the refusals
 * of too few or too uniform data. */
cJSON *cal_refit(const lr_devices *devs, st_store *st, const char *device, const char *name,
                 cal_refit_stats *stats, char **report, lr_error *err);

#endif
