/*
 * overhead: the fixed time of a launch, from size scans (docs/model.md, "Launch
 * overhead"). A scan is one kernel with one launch configuration timed at several
 * domain sizes; a straight line through time against lattice updates (least squares)
 * has its time at zero updates as the scan's intercept, and the device's launch overhead
 * (the EST_MEASURED row of estimator/params.def) is the median intercept of the scans. `launchrank calibrate`
 * times the scans of lab/2026-11-23-overhead/families (embedded by calibrate/meson.build);
 * lab/2026-11-23-overhead reads scans recorded with lab/corpus-tools/corpus_measure.
 */
#ifndef CAL_OVERHEAD_H
#define CAL_OVERHEAD_H

#include <stddef.h>

#include "lr_error.h"

/* One timed launch of a scan. group names the scan: its kernel, block and folding. */
typedef struct cal_scan_point {
    char group[96];
    double lattice_updates;
    double ms; /* median time of one launch */
} cal_scan_point;

typedef struct cal_overhead {
    double us;           /* the median intercept, microseconds */
    double lo_us, hi_us; /* the smallest and the largest intercept */
    int scans;           /* scans with at least CAL_SCAN_MIN_SIZES distinct sizes */
} cal_overhead;

/* A scan needs this many sizes for its line to say anything. */
#define CAL_SCAN_MIN_SIZES 3

/* The kernel of a size-scan family: its name without the "_nN" suffix that
 * lab/2026-11-23-overhead/make_families.py gives each size ("star3d_r1_f64_n128" ->
 * "star3d_r1_f64"), into out. 0, or -1 when the name has no such suffix. */
int cal_scan_kernel(const char *family, char *out, size_t size);

/* The group of a point: kernel, block and folding, as "KERNEL BXxBYxBZ FXxFYxFZ". */
void cal_scan_group(const char *kernel, const int block[3], const int folding[3],
                    char out[96]);

/* The group of a timed run, a JSON object with "family" (a size-scan family,
 * KERNEL_nN) and "block" and "folding" (three integers each), as calibrate's raw
 * records and lab/corpus-tools/corpus_measure write them, into out. 0, or -1 when it lacks one. */
struct cJSON;
int cal_scan_group_of(const struct cJSON *run, char out[96]);

/* One scan's line, for reports. */
typedef struct cal_scan_line {
    char group[96];
    int sizes;          /* distinct sizes timed */
    double us;          /* time at zero updates, microseconds */
    double body_glups;  /* 1 / slope: the rate of the launch's body, GLup/s */
} cal_scan_line;

/* The launch overhead of the n points p (any order). lines, when not NULL, has room
 * for n and receives the scans that count (out->scans of them), sorted by group.
 * 0, or -1 with err when no scan has CAL_SCAN_MIN_SIZES sizes or a time or size is not
 * a positive number. */
int cal_overhead_fit(const cal_scan_point *p, int n, cal_overhead *out, cal_scan_line *lines,
                     lr_error *err);

#endif
