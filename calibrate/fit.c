/*
 * fit: coordinate descent of the model-v2 parameters on measured kernels (fit.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"

/* The fitted parameters are the rows of estimator/params.def of kind EST_FITTED or
 * EST_HELD, in its order: fitted parameter i is the i-th such row. */
static const est_mparam *fitted(int i)
{
    for (int k = 0; k < est_nmparams; k++)
        if ((est_mparams[k].kind == EST_FITTED || est_mparams[k].kind == EST_HELD) &&
            i-- == 0)
            return &est_mparams[k];
    return NULL;
}

/* "name," for each EST_HELD row: the hold list CAL_HELD. */
#define CAL_HOLD_EST_HELD(name) #name ","
#define CAL_HOLD_EST_FITTED(name)
#define CAL_HOLD_EST_MEASURED(name)
#define CAL_HOLD_EST_RANKING(name)
const char cal_held[] = ""
#define EST_PARAM(name, kind, ...) CAL_HOLD_##kind(name)
#include "params.def"
#undef EST_PARAM
    ;

const char *cal_param_name(int i)
{
    const est_mparam *p = i >= 0 && i < CAL_NPARAMS ? fitted(i) : NULL;
    return p ? p->name : NULL;
}

double *cal_param(est_device *d, int i)
{
    return est_mparam_in(d, fitted(i));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cal_median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ranks with ties averaged, into rk */
static void ranks(const double *v, int n, double *rk)
{
    for (int i = 0; i < n; i++) {
        int below = 0, equal = 0;
        for (int j = 0; j < n; j++) {
            below += v[j] < v[i];
            equal += v[j] == v[i];
        }
        rk[i] = below + (equal + 1) / 2.0;
    }
}

double cal_spearman(const double *a, const double *b, int n)
{
    size_t m = n > 0 ? (size_t)n : 1;
    double *ra = calloc(m, sizeof(double)), *rb = calloc(m, sizeof(double));
    if (!ra || !rb) {
        free(ra);
        free(rb);
        return 0;
    }
    ranks(a, n, ra);
    ranks(b, n, rb);
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (int i = 0; i < n; i++) {
        ma += ra[i] / n;
        mb += rb[i] / n;
    }
    for (int i = 0; i < n; i++) {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma) * (ra[i] - ma);
        sbb += (rb[i] - mb) * (rb[i] - mb);
    }
    free(ra);
    free(rb);
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0;
}

void cal_apply(const est_device *d, cal_sample *s, int n)
{
    for (int i = 0; i < n; i++)
        est_result_performance(s[i].k, d, s[i].r);
}

/* The objective's term for group g; 0 samples: 0. */
/* Figures of group g over its samples that have a measurement and a prediction. */
typedef struct group_figs {
    int n;
    double top1;    /* measured speed of the predicted best / measured best */
    double rho;     /* Spearman, predicted vs measured */
    double log_err; /* median |log(predicted / measured)| */
    double rel_err; /* median |predicted / measured - 1| */
} group_figs;

/* pred, meas, err: scratch of n doubles each. */
static group_figs group_figures(const cal_sample *s, int n, int g, double *pred, double *meas,
                                double *err)
{
    group_figs f = {0};
    int arg = -1;
    double best = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].group != g || !(s[i].measured > 0) || !(s[i].r->predicted > 0))
            continue;
        pred[f.n] = s[i].r->predicted;
        meas[f.n] = s[i].measured;
        /* ties go to the earlier configuration, as rankings break them */
        if (arg < 0 || pred[f.n] > pred[arg])
            arg = f.n;
        if (meas[f.n] > best)
            best = meas[f.n];
        f.n++;
    }
    if (f.n == 0)
        return f;
    f.top1 = meas[arg] / best;
    f.rho = cal_spearman(pred, meas, f.n);
    for (int i = 0; i < f.n; i++)
        err[i] = fabs(log(pred[i] / meas[i]));
    f.log_err = cal_median(err, f.n);
    for (int i = 0; i < f.n; i++)
        err[i] = fabs(pred[i] / meas[i] - 1);
    f.rel_err = cal_median(err, f.n);
    return f;
}

double cal_objective(const est_device *d, cal_sample *s, int n, int left_out)
{
    cal_apply(d, s, n);
    int groups = 0;
    for (int i = 0; i < n; i++)
        groups = s[i].group + 1 > groups ? s[i].group + 1 : groups;
    size_t cap = n > 0 ? (size_t)n : 1;
    double *pred = malloc(cap * sizeof *pred), *meas = malloc(cap * sizeof *meas),
           *err = malloc(cap * sizeof *err);
    double sum = 0;
    int used = 0;
    for (int g = 0; pred && meas && err && g < groups; g++) {
        if (g == left_out)
            continue;
        int present = 0;
        for (int i = 0; i < n && !present; i++)
            present = s[i].group == g && s[i].measured > 0;
        if (!present)
            continue;
        group_figs f = group_figures(s, n, g, pred, meas, err);
        if (f.n)
            sum += f.log_err + 0.5 * (1 - f.top1) + 0.1 * (1 - f.rho);
        used++;
    }
    free(pred);
    free(meas);
    free(err);
    return used ? sum / used : 0;
}

/* The next name of the comma-separated list at *p, its length into *n, *p moved past
 * it; NULL at the end of the list. */
static const char *next_name(const char **p, size_t *n)
{
    const char *name = *p;
    if (!name || !*name)
        return NULL;
    const char *end = strchr(name, ',');
    *n = end ? (size_t)(end - name) : strlen(name);
    *p = end ? end + 1 : NULL;
    return name;
}

/* Whether the n characters at t are the name of parameter q. */
static int is_param(const char *t, size_t n, int q)
{
    const char *name = cal_param_name(q);
    return n == strlen(name) && strncmp(t, name, n) == 0;
}

/* Whether the list hold names parameter q. */
static int held_in(const char *hold, int q)
{
    size_t n;
    for (const char *p = hold, *t; (t = next_name(&p, &n));)
        if (is_param(t, n, q))
            return 1;
    return 0;
}

int cal_param_held_in(const char *hold, int i)
{
    return i >= 0 && i < CAL_NPARAMS && held_in(hold, i);
}

int cal_param_held(int i)
{
    return cal_param_held_in(CAL_HELD, i);
}

int cal_hold_valid(const char *hold)
{
    size_t n;
    for (const char *p = hold, *t; (t = next_name(&p, &n));) {
        int known = 0;
        for (int q = 0; q < CAL_NPARAMS && !known; q++)
            known = is_param(t, n, q);
        if (!known)
            return 0;
    }
    return 1;
}

est_device cal_fit(const est_device *start, cal_sample *s, int n, int left_out, int rounds)
{
    return cal_fit_holding(start, s, n, left_out, rounds, NULL);
}

/* docs/model.md, "Fitted parameters": coordinate descent lands in different minima
 * from different starts (the objective moved by as much between starts as between
 * model variants), so a fit keeps the best of several: from start's values and from
 * starts-1 starts whose free parameters are scaled by factors in [0.7, 1.4] (a fixed
 * sequence, so that fits repeat). Each start's objective goes to t when t is given.
 * Leaves the samples applied to the best. */
est_device cal_fit_best(const est_device *start, cal_sample *s, int n, const char *hold,
                        int starts, cal_text *t)
{
    est_device best = cal_fit_holding(start, s, n, -1, 6, hold);
    double best_obj = cal_objective(&best, s, n, -1);
    unsigned long long state = 0x9E3779B97F4A7C15ull;
    for (int k = 1; k < starts; k++) {
        est_device from = *start;
        for (int q = 0; q < CAL_NPARAMS; q++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(state >> 11) / 9007199254740992.0; /* [0, 1) */
            if (!cal_param_held_in(hold, q))
                *cal_param(&from, q) *= 0.7 * pow(2, u);
        }
        /* a perturbation that leaves a parameter's range (the DRAM overload, fitted
         * near its bound) keeps the start's value of that parameter */
        char why[160];
        const char *bad = est_device_check(&from, why, sizeof why);
        for (int tries = 0; bad && tries < CAL_NPARAMS; tries++) {
            int q = 0;
            while (q < CAL_NPARAMS && strcmp(cal_param_name(q), bad) != 0)
                q++;
            if (q == CAL_NPARAMS)
                break;
            *cal_param(&from, q) = *cal_param((est_device *)start, q);
            bad = est_device_check(&from, why, sizeof why);
        }
        if (bad) {
            if (t)
                cal_say(t, "start %d: skipped (%s: %s)\n", k, bad, why);
            continue;
        }
        est_device d = cal_fit_holding(&from, s, n, -1, 6, hold);
        double obj = cal_objective(&d, s, n, -1);
        if (t)
            cal_say(t, "start %d: objective %.4f\n", k, obj);
        if (obj < best_obj) {
            best = d;
            best_obj = obj;
        }
    }
    if (t && starts > 1)
        cal_say(t, "start 0 (the device's values) and %d more: best objective %.4f\n",
                starts - 1, best_obj);
    cal_apply(&best, s, n);
    return best;
}

est_device cal_fit_holding(const est_device *start, cal_sample *s, int n, int left_out,
                           int rounds, const char *hold)
{
    static const double steps[] = {0.5, 0.7, 0.85, 0.93, 0.97, 1.03, 1.07, 1.15, 1.3, 1.5, 2};
    est_device d = *start;
    double best = cal_objective(&d, s, n, left_out);
    int until_still = rounds < 0, sweeps = until_still ? -rounds : rounds;
    for (int it = 0; it < sweeps; it++) {
        int moved = 0;
        for (int q = 0; q < CAL_NPARAMS; q++) {
            if (held_in(hold, q))
                continue;
            double base = *cal_param(&d, q), keep = base;
            for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
                *cal_param(&d, q) = base * steps[k];
                char why[160];
                if (est_device_check(&d, why, sizeof why))
                    continue;
                double v = cal_objective(&d, s, n, left_out);
                if (v < best) {
                    best = v;
                    keep = *cal_param(&d, q);
                }
            }
            *cal_param(&d, q) = keep;
            moved |= keep != base;
        }
        if (until_still && !moved)
            break;
    }
    cal_apply(&d, s, n);
    return d;
}

/* ---- reports ---- */

void cal_say(cal_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t k = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    if (t->len + k + 1 > t->cap) {
        size_t nc = t->cap ? 2 * t->cap + k : 4096;
        char *ns = realloc(t->s, nc);
        if (!ns)
            return;
        t->s = ns;
        t->cap = nc;
    }
    memcpy(t->s + t->len, buf, k);
    t->len += k;
    t->s[t->len] = 0;
}

void cal_report_groups(cal_text *t, const char *title, const char *column,
                       const char *const *labels, int ngroups, const cal_sample *s, int n)
{
    cal_say(t, "%s\n  %-18s %5s %7s %6s %9s\n", title, column, "runs", "top1 %", "rho",
            "error %");
    double *p = malloc(sizeof(double) * (size_t)(n + 1)),
           *m = malloc(sizeof(double) * (size_t)(n + 1)),
           *e = malloc(sizeof(double) * (size_t)(n + 1));
    for (int g = 0; p && m && e && g < ngroups; g++) {
        group_figs f = group_figures(s, n, g, p, m, e);
        if (f.n)
            cal_say(t, "  %-18s %5d %7.1f %6.2f %9.1f\n", labels[g], f.n, 100 * f.top1, f.rho,
                    100 * f.rel_err);
    }
    free(p);
    free(m);
    free(e);
}

est_device cal_fit_reported(const est_device *start, cal_sample *s, int n, cal_text *t,
                            const char *before_title, const char *column,
                            const char *const *labels, int ngroups, double *before,
                            double *after)
{
    *before = cal_objective(start, s, n, -1);
    cal_report_groups(t, before_title, column, labels, ngroups, s, n);
    est_device dev = cal_fit_holding(start, s, n, -1, CAL_SWEEPS_TO_CONVERGE, CAL_HELD);
    *after = cal_objective(&dev, s, n, -1);
    cal_report_groups(t, "with the parameters fitted here:", column, labels, ngroups, s, n);
    cal_say(t, "objective %.4f -> %.4f\nfitted (%d):", *before, *after,
            CAL_NPARAMS - CAL_NHELD);
    for (int q = 0; q < CAL_NPARAMS; q++)
        if (!cal_param_held(q))
            cal_say(t, " %s %.4g", cal_param_name(q), *cal_param(&dev, q));
    cal_say(t, "\nheld (%d; estimator/params.def, kind EST_HELD):", CAL_NHELD);
    for (int q = 0; q < CAL_NPARAMS; q++)
        if (cal_param_held(q))
            cal_say(t, " %s %.4g", cal_param_name(q), *cal_param(&dev, q));
    cal_say(t, "\n");
    return dev;
}
