/*
 * fit: the model-v2 parameters of a device (docs/model.md, "Fitted parameters") fitted
 * to measured kernels. One table names every fitted parameter, so `launchrank
 * calibrate`, `tests/accuracy/accuracy --fit` and the documentation agree on what is fitted
 * and how: each parameter has exactly this one way to be determined.
 *
 * A sample is one measured configuration of one kernel with its model volumes (an
 * est_result from est_estimate: volumes do not depend on the fitted parameters, so
 * only est_result_performance runs again for each trial). Samples of one kernel form a
 * group; the objective is averaged over groups so that a kernel with many
 * configurations does not outweigh one with few.
 */
#ifndef CAL_FIT_H
#define CAL_FIT_H

#include <stddef.h>

#include "estimator.h"

/* The fitted parameters: the rows of estimator/params.def of kind EST_FITTED or
 * EST_HELD. */
enum {
    CAL_NPARAMS = 0
#define EST_PARAM(name, kind, ...) +((kind) == EST_FITTED || (kind) == EST_HELD)
#include "params.def"
#undef EST_PARAM
};
/* Of those, the EST_HELD rows: every fit of calibrate and launchrank fit holds them
 * (CAL_HELD below), so they fit CAL_NPARAMS - CAL_NHELD. */
enum {
    CAL_NHELD = 0
#define EST_PARAM(name, kind, ...) +((kind) == EST_HELD)
#include "params.def"
#undef EST_PARAM
};

/* Name (the device-figure key) and address in d of fitted parameter i, the i-th
 * fitted or held row of params.def. */
const char *cal_param_name(int i);
double *cal_param(est_device *d, int i);

typedef struct cal_sample {
    int group;             /* kernel (family) index, 0.. */
    const est_kernel *k;   /* not owned */
    est_result *r;         /* not owned; its performance is recomputed by the fit */
    double measured;       /* GLup/s; samples with measured <= 0 are ignored */
} cal_sample;

/* Median of v[0..n) (reorders v); NAN when n == 0. */
double cal_median(double *v, int n);

/* Spearman's rank correlation of a and b (ties get average ranks); 0 when either is
 * constant. */
double cal_spearman(const double *a, const double *b, int n);

/* Recomputes the predicted performance of every sample under d (d's fitted
 * parameters, the rest of each result as estimated). */
void cal_apply(const est_device *d, cal_sample *s, int n);

/* What the fit minimises, averaged over the groups other than left_out (-1: none):
 * per group the median |log(predicted / measured)|, plus half the top-1 shortfall
 * (1 - measured speed of the predicted best / measured best), plus a tenth of
 * (1 - Spearman rho): ranking, not only absolute error, pulls the parameters.
 * Applies d (cal_apply) first. */
double cal_objective(const est_device *d, cal_sample *s, int n, int left_out);

/* Coordinate descent on multiplicative steps from start, `rounds` sweeps over the
 * parameters, keeping only values est_device_check accepts; with rounds < 0, sweeps
 * until one moves no parameter (a fixed point: a fit started from the result returns
 * it unchanged), at most -rounds of them. Returns the fitted device (start with its
 * fitted parameters replaced); the samples are left applied to it. */
est_device cal_fit(const est_device *start, cal_sample *s, int n, int left_out, int rounds);
/* The fitted parameters every fit of the project holds at the device's value unless
 * told otherwise (tests/accuracy/accuracy --hold, calibrate, launchrank fit), as a hold list:
 * the rows of estimator/params.def of kind EST_HELD, which says why each is held. */
extern const char cal_held[];
#define CAL_HELD cal_held

/* The sweeps of calibrate's and launchrank fit's fits (cal_fit_reported): until a
 * sweep moves nothing, at most this many. Four fixed sweeps, until model 2026.11-22,
 * left the H200's calibration short of where further sweeps went (objective 0.0326
 * where three more analyses reached 0.0314; docs/calibration.md). */
#define CAL_SWEEPS_TO_CONVERGE (-40)

/* cal_fit holding the parameters named in hold (a comma-separated list of
 * cal_param_name names; NULL or "" holds none) at their values in start. */
est_device cal_fit_holding(const est_device *start, cal_sample *s, int n, int left_out,
                           int rounds, const char *hold);
/* Whether parameter i is one of CAL_HELD: 1 or 0. */
int cal_param_held(int i);
/* Whether the list hold (as for cal_fit_holding; NULL or "" names none) names
 * parameter i: 1 or 0. */
int cal_param_held_in(const char *hold, int i);
/* Whether hold (as for cal_fit_holding) lists only parameter names: 1 or 0. */
int cal_hold_valid(const char *hold);

/* A growing text (the readable reports of calibrate and refit). s is malloc'd and
 * NUL-terminated once anything was said; the owner frees it. Out of memory drops the
 * rest of the text, never the process. */
typedef struct cal_text {
    char *s;
    size_t len, cap;
} cal_text;

/* The best of `starts` fits holding hold (6 rounds each): from start's values and from
 * starts-1 fixed perturbations of its free parameters (factors 0.7 to 1.4); each
 * start's objective reported to t unless t is NULL. Leaves the samples applied to the
 * best. */
est_device cal_fit_best(const est_device *start, cal_sample *s, int n, const char *hold,
                        int starts, cal_text *t);


void cal_say(cal_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends to t the table of how well the samples' current predictions (cal_apply
 * first) match the measurements: the title, then one line per group with samples,
 * named labels[g] under the column heading `column` ("family", "kernel"): runs,
 * top-1 (measured speed of the predicted best, % of the measured best), Spearman rho,
 * median |predicted / measured - 1| in %. */
void cal_report_groups(cal_text *t, const char *title, const char *column,
                       const char *const *labels, int ngroups, const cal_sample *s, int n);

/* cal_fit_holding(start, s, n, -1, 4, CAL_HELD), reported: appends to t the table of start's
 * predictions under before_title, the table of the fitted device's, "objective B ->
 * A" and the fitted parameters (the groups as cal_report_groups has them). The
 * objectives before and after go to *before and *after. Returns the fitted device. */
est_device cal_fit_reported(const est_device *start, cal_sample *s, int n, cal_text *t,
                            const char *before_title, const char *column,
                            const char *const *labels, int ngroups, double *before,
                            double *after);

#endif
