/*
 * acc_lofo: leave-one-family-out, refitting the device's parameters or choosing
 * constants on grids (acc_lofo.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acc_int.h"
#include "acc_lofo.h"

/* One axis of --lofo-rules: a constant of the equations (an EST_RULE row of
 * estimator/params.def) or a fitted model-v2 parameter of the device, and the grid lo,
 * lo + step, ..., hi it is chosen on. */
typedef struct rule_axis {
    char name[64];
    int param;              /* cal_param's index, or -1 for a rule */
    double lo, step, value; /* value: the rule's in params.def, or the device's */
    int n;                  /* grid points */
} rule_axis;

enum { MAX_AXES = 6, MAX_GRID = 200000 };

/* --lofo-also NAME[+NAME...]=DIR:MEASURED[:DEVICE] (repeated, one per set): measured sets
 * whose families always enter the named axes' criteria beside the corpus's (the data a
 * constant was chosen on besides the corpus), never left out nor shown in the tables;
 * DEVICE as --device (none: the one each family's file names). --lofo-choose
 * NAME=HOW[,...] chooses an axis otherwise than by the least mean term: no-worse, the least
 * grid value at which no family of its criterion has a term (error, plus the top-1
 * shortfall unless --lofo-by error) above its term at the grid's highest value (the L1
 * burst's criterion, docs/model-history.md); top1-first, the best mean top 1, and of the
 * points that reach it the least mean error (as dram_streams_most was read off its grid).
 * Both resolved after the arguments (acc_lofo_load). */
enum { MAX_ALSO = 32 };
#define CORPUS_BIT (1u << 31) /* family.enters: a family of the corpus (every axis too) */
/* how axis a is chosen: the least mean term (by_error_only), --lofo-choose NAME=no-worse
 * or NAME=top1-first (the best mean top 1, of those the least mean error) */
enum { BY_MEAN, BY_NO_WORSE, BY_TOP1_FIRST };

struct acc_lofo {
    acc_set *S; /* the set the --lofo-also sets were loaded into (acc_lofo_load) */
    rule_axis axes[MAX_AXES];
    int naxes;
    /* what a grid point is chosen by: the objective ISSUE_WARPS was chosen by (docs/model-
     * history.md, 2026.11-26: mean median |error| of GLup/s plus mean top-1 shortfall over
     * the families), or with --lofo-by error the mean median |error| alone */
    int by_error_only;
    int joint_grid; /* --lofo-joint */
    const char *also_arg[MAX_ALSO];
    char *also_spec[MAX_ALSO]; /* their copies, which family.device points into */
    int nalso;
    const char *choose_arg;
    int choose[MAX_AXES];
    /* chosen[(i + 1) * naxes + a]: axis a's value without family i (i = -1: on all) */
    double *chosen;
};

acc_lofo *acc_lofo_new(void)
{
    return calloc(1, sizeof(acc_lofo));
}

void acc_lofo_free(acc_lofo *L)
{
    if (!L)
        return;
    for (int s = 0; s < L->nalso; s++)
        free(L->also_spec[s]);
    free(L->chosen);
    free(L);
}

void acc_lofo_set_joint(acc_lofo *L)
{
    L->joint_grid = 1;
}

void acc_lofo_set_by_error(acc_lofo *L, int error_only)
{
    L->by_error_only = error_only;
}

int acc_lofo_add_also(acc_lofo *L, const char *arg)
{
    if (L->nalso == MAX_ALSO)
        return -1;
    L->also_arg[L->nalso++] = arg;
    return 0;
}

void acc_lofo_set_choose(acc_lofo *L, const char *arg)
{
    L->choose_arg = arg;
}

int acc_lofo_has_rules(const acc_lofo *L)
{
    return L->naxes > 0;
}

int acc_lofo_parse_rules(acc_lofo *L, const char *spec)
{
    char *list = strdup(spec), *save = NULL;
    long points = 1;
    L->naxes = 0;
    for (char *t = list ? strtok_r(list, ",", &save) : NULL; t;
         t = strtok_r(NULL, ",", &save)) {
        rule_axis *a = &L->axes[L->naxes];
        double hi;
        char *eq = strchr(t, '=');
        if (L->naxes == MAX_AXES || !eq || (size_t)(eq - t) >= sizeof a->name ||
            sscanf(eq + 1, "%lf:%lf:%lf", &a->lo, &hi, &a->step) != 3 || !(a->step > 0) ||
            !(hi >= a->lo)) {
            fprintf(stderr,
                    "accuracy: --lofo-rules takes at most %d NAME=LO:HI:STEP with "
                    "STEP > 0 and HI >= LO, not \"%s\"\n",
                    MAX_AXES, t);
            free(list);
            return -1;
        }
        snprintf(a->name, sizeof a->name, "%.*s", (int)(eq - t), t);
        a->n = (int)floor((hi - a->lo) / a->step + 1e-9) + 1;
        a->param = -1;
        int not_rule = est_rule_get(a->name, &a->value);
        if (not_rule)
            for (int q = 0; q < CAL_NPARAMS; q++)
                if (!strcmp(cal_param_name(q), a->name))
                    a->param = q; /* its value is the device's (acc_lofo_rules) */
        if (a->param < 0 && not_rule) {
            fprintf(stderr,
                    "accuracy: --lofo-rules: %s is neither a rule (EST_RULE) nor a "
                    "fitted device parameter (EST_PARAM) of estimator/params.def\n",
                    a->name);
            free(list);
            return -1;
        }
        points *= a->n;
        L->naxes++;
        if (points > MAX_GRID) {
            fprintf(stderr, "accuracy: --lofo-rules: more than %d grid points\n", MAX_GRID);
            free(list);
            return -1;
        }
    }
    free(list);
    return L->naxes ? 0 : -1;
}

/* The bit of family.enters for axis a. */
static unsigned axis_bit(int a)
{
    return 1u << a;
}

/* The bits of family.enters for axes [a0, a1). */
static unsigned axes_mask(int a0, int a1)
{
    unsigned mask = 0;
    for (int a = a0; a < a1; a++)
        mask |= axis_bit(a);
    return mask;
}

/* The bits of the --lofo-rules axes named in the list (separated by any of sep) into
 * *bits; 0, or -1 with the reason on stderr. */
static int axis_bits(acc_lofo *L, const char *list, const char *sep, const char *opt,
                     unsigned *bits)
{
    char *names = strdup(list), *save = NULL;
    *bits = 0;
    for (char *t = names ? strtok_r(names, sep, &save) : NULL; t;
         t = strtok_r(NULL, sep, &save)) {
        int a = 0;
        while (a < L->naxes && strcmp(L->axes[a].name, t))
            a++;
        if (a == L->naxes) {
            fprintf(stderr, "accuracy: %s: %s is not an axis of --lofo-rules\n", opt, t);
            free(names);
            return -1;
        }
        *bits |= axis_bit(a);
    }
    free(names);
    return *bits ? 0 : -1;
}

/* --lofo-choose NAME=no-worse|top1-first[,...] into choose[]; 0, or -1 with the reason. */
static int parse_choose(acc_lofo *L)
{
    char *list = strdup(L->choose_arg), *save = NULL;
    int bad = !list;
    for (char *t = list ? strtok_r(list, ",", &save) : NULL; t && !bad;
         t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        unsigned bit = 0;
        int how = !eq                             ? -1
                  : !strcmp(eq + 1, "no-worse")   ? BY_NO_WORSE
                  : !strcmp(eq + 1, "top1-first") ? BY_TOP1_FIRST
                                                  : -1;
        if (how < 0)
            fprintf(stderr,
                    "accuracy: --lofo-choose takes NAME=no-worse or "
                    "NAME=top1-first, not \"%s\"\n",
                    t);
        else
            *eq = '\0';
        bad = how < 0 || axis_bits(L, t, ",", "--lofo-choose", &bit);
        for (int a = 0; !bad && a < L->naxes; a++)
            if (bit & axis_bit(a))
                L->choose[a] = how;
    }
    free(list);
    return bad ? -1 : 0;
}

/* Loads the --lofo-also sets after the corpus (their families from nfams on) and reads
 * --lofo-choose; 0, or -1 with the reason on stderr. */
int acc_lofo_load(acc_lofo *L, acc_set *S)
{
    L->S = S;
    if ((L->nalso || L->choose_arg) && (!L->naxes || L->joint_grid)) {
        fprintf(stderr, "accuracy: --lofo-also and --lofo-choose need --lofo-rules, each "
                        "axis on its own grid (not --lofo-joint)\n");
        return -1;
    }
    if (L->choose_arg && parse_choose(L))
        return -1;
    for (int s = 0; s < L->nalso; s++) {
        char *spec = L->also_spec[s] = strdup(L->also_arg[s]);
        char *eq = spec ? strchr(spec, '=') : NULL, *dir = eq ? eq + 1 : NULL;
        char *meas = dir ? strchr(dir, ':') : NULL, *dev = meas ? strchr(meas + 1, ':') : NULL;
        unsigned bits = 0;
        if (!meas || meas == dir || !meas[1] || (dev && !dev[1])) {
            fprintf(stderr,
                    "accuracy: --lofo-also takes NAME[+NAME...]=DIR:MEASURED[:DEVICE], "
                    "not \"%s\"\n",
                    L->also_arg[s]);
            return -1;
        }
        *eq = *meas++ = '\0';
        if (dev)
            *dev++ = '\0';
        int f0 = S->nall;
        if (axis_bits(L, spec, "+", "--lofo-also", &bits) ||
            acc_set_load(S, dir, meas, dev, NULL, 0) < 0)
            return -1;
        for (int i = f0; i < S->nall; i++)
            S->fams[i].enters = bits;
    }
    for (int i = 0; i < S->nfams; i++)
        S->fams[i].enters = ~0u; /* every axis, and CORPUS_BIT */
    return 0;
}

/* A device-parameter axis is the corpus's device's: every --lofo-also family of its
 * criterion must be predicted for that device too. 0, or -1 with the set named. */
static int lofo_also_check(acc_lofo *L, const est_device *dev)
{
    acc_set *S = L->S;
    for (int i = S->nfams; i < S->nall; i++)
        for (int a = 0; a < L->naxes; a++)
            if (L->axes[a].param >= 0 && (S->fams[i].enters & axis_bit(a)) &&
                strcmp(S->fams[i].dev.name, dev->name)) {
                fprintf(stderr,
                        "accuracy: --lofo-also: %s is a parameter of %s, but %s is predicted "
                        "for %s\n",
                        L->axes[a].name, dev->name, S->fams[i].f.name, S->fams[i].dev.name);
                return -1;
            }
    return 0;
}

/* The grid points of axes [a0, a1). */
static long grid_points(acc_lofo *L, int a0, int a1)
{
    long n = 1;
    for (int a = a0; a < a1; a++)
        n *= L->axes[a].n;
    return n;
}

/* Sets axis a to x: a rule in the estimator, a parameter in d. */
static void axis_put(acc_lofo *L, est_device *d, int a, double x)
{
    if (L->axes[a].param >= 0)
        *cal_param(d, L->axes[a].param) = x;
    else
        est_rule_set(L->axes[a].name, x);
}

/* Sets axes [a0, a1) to their values at point g of their grid (the last axis varies
 * fastest), the other axes to theirs in the model (g < 0: every axis): rules in the
 * estimator, parameters in d. Into v[a], when given, each axis' value. */
static void axes_set(acc_lofo *L, est_device *d, int a0, int a1, long g, double *v)
{
    for (int a = L->naxes - 1; a >= 0; a--) {
        double x = L->axes[a].value;
        if (g >= 0 && a >= a0 && a < a1) {
            x = L->axes[a].lo + (double)(g % L->axes[a].n) * L->axes[a].step;
            g /= L->axes[a].n;
        }
        axis_put(L, d, a, x);
        if (v)
            v[a] = x;
    }
}

/* Every family whose bits in enters meet mask run again through model v2's performance
 * stage (est_result_performance, as the device fits do) under d, the corpus's device: the
 * corpus's families with d itself, a --lofo-also set's with its own device, taking d's
 * values of the device-parameter axes when it is the same device (lofo_also_check). */
static void apply_devices(acc_lofo *L, unsigned mask, const est_device *d)
{
    acc_set *S = L->S;
    for (int i = 0; i < S->nall; i++) {
        if (!(S->fams[i].enters & mask))
            continue;
        est_device own = S->fams[i].dev, src = *d;
        for (int a = 0; a < L->naxes; a++)
            if (L->axes[a].param >= 0 && !strcmp(own.name, d->name))
                *cal_param(&own, L->axes[a].param) = *cal_param(&src, L->axes[a].param);
        const est_device *use = i < S->nfams ? d : &own;
        for (int k = 0; k < S->fams[i].nrows; k++) {
            row *r = &S->fams[i].rows[k];
            if (r->ok) {
                est_result_performance(S->fams[i].kernel, use, &r->r);
                r->pred = r->r.predicted;
            }
        }
    }
}

/* Rule axis a of rules_only_in_performance: its families' fresh estimates at its grid's
 * far end against the stage re-run; 1 when they differ (memory running out counts). */
static int rule_moves_volumes(acc_lofo *L, const est_device *d, int a)
{
    acc_set *S = L->S;
    double far = L->axes[a].lo + (L->axes[a].n - 1) * L->axes[a].step;
    if (far == L->axes[a].value)
        far = L->axes[a].lo;
    row **kept = calloc((size_t)S->nall, sizeof *kept);
    double **fresh = calloc((size_t)S->nall, sizeof *fresh);
    pthread_t *th = calloc((size_t)S->nall, sizeof *th);
    int bad = !kept || !fresh || !th;
    est_rule_set(L->axes[a].name, far);
    for (int i = 0; !bad && i < S->nall; i++)
        if ((S->fams[i].enters & axis_bit(a)) &&
            (kept[i] = malloc((size_t)S->fams[i].nrows * sizeof(row))))
            memcpy(kept[i], S->fams[i].rows, (size_t)S->fams[i].nrows * sizeof(row));
    for (int i = 0; !bad && i < S->nall; i++)
        if (kept[i])
            pthread_create(&th[i], NULL, acc_set_predict_family, &S->fams[i]);
    for (int i = 0; !bad && i < S->nall; i++)
        if (kept[i]) {
            pthread_join(th[i], NULL);
            if ((fresh[i] = malloc((size_t)S->fams[i].nrows * sizeof(double) + 1)))
                for (int k = 0; k < S->fams[i].nrows; k++)
                    fresh[i][k] = S->fams[i].rows[k].r.predicted;
            memcpy(S->fams[i].rows, kept[i], (size_t)S->fams[i].nrows * sizeof(row));
        }
    apply_devices(L, axis_bit(a), d);
    for (int i = 0; !bad && i < S->nall; i++)
        for (int k = 0; kept[i] && k < S->fams[i].nrows; k++)
            bad |=
                !fresh[i] || (kept[i][k].ok && fresh[i][k] != S->fams[i].rows[k].r.predicted);
    for (int i = 0; kept && fresh && i < S->nall; i++) {
        free(kept[i]);
        free(fresh[i]);
    }
    free(kept);
    free(fresh);
    free(th);
    est_rule_set(L->axes[a].name, L->axes[a].value);
    return bad;
}

/* The grid re-runs only model v2's performance stage (apply_devices): a rule read where
 * the volumes are estimated (volumes.c, bind.c, gather.c) would leave the predictions as
 * they were. So each rule axis is set to its grid's far end, every family of its criterion
 * estimated again from scratch and compared with the stage re-run; 0 when they agree bit
 * for bit, else -1 with the rule named on stderr. */
static int rules_only_in_performance(acc_lofo *L, const est_device *d)
{
    acc_set *S = L->S;
    int bad = 0, failed = S->failures;
    for (int a = 0; a < L->naxes && !bad; a++) {
        if (L->axes[a].param >= 0)
            continue;
        bad = rule_moves_volumes(L, d, a);
        if (bad)
            fprintf(stderr,
                    "accuracy: --lofo-rules: %s enters the estimated volumes, not "
                    "only model v2's performance stage: the grid cannot refit it\n",
                    L->axes[a].name);
    }
    S->failures = failed; /* the estimates again: their failures are counted once */
    apply_devices(L, ~0u, d);
    return bad ? -1 : 0;
}

/* Objectives closer than this (a mean over families: 0.01 points) are equal: the LBM
 * kernels' far L1 request limits move their predictions by parts in a million with the
 * burst, which must not choose it. The same margin is what a family of a no-worse axis
 * may lose (--lofo-choose). */
#define GRID_TIE 1e-4

/* Whether family i enters the criterion of the axes [a0, a1) without family left_out. */
static int counted(acc_lofo *L, int i, int a0, int a1, int left_out)
{
    acc_set *S = L->S;
    unsigned mask = axes_mask(a0, a1);
    return i != left_out && (S->fams[i].enters & mask);
}

/* The terms of grid_terms: family i's at point g, error and top-1 shortfall. */
static double term_at(acc_lofo *L, const double *term, long g, int i, int part)
{
    acc_set *S = L->S;
    return term[(g * S->nall + i) * 2 + part];
}

static double family_term(acc_lofo *L, const double *term, long g, int i)
{
    return term_at(L, term, g, i, 0) + (L->by_error_only ? 0 : term_at(L, term, g, i, 1));
}

/* The first point of the grid (the least values) at which no family of the criterion of
 * axis a without left_out has a term above its term at the grid's last point. */
static long grid_no_worse(acc_lofo *L, const double *term, long points, int a, int left_out)
{
    acc_set *S = L->S;
    for (long g = 0; g < points; g++) {
        int worse = 0;
        for (int i = 0; i < S->nall && !worse; i++)
            worse = counted(L, i, a, a + 1, left_out) &&
                    family_term(L, term, g, i) > family_term(L, term, points - 1, i) + GRID_TIE;
        if (!worse)
            return g;
    }
    return points - 1;
}

/* The mean over the families of the criterion of axes [a0, a1) without left_out at
 * point g: of the term (part -1), of the error (0) or of the top-1 shortfall (1). */
static double grid_mean(acc_lofo *L, const double *term, long g, int a0, int a1, int left_out,
                        int part)
{
    acc_set *S = L->S;
    double sum = 0;
    int n = 0;
    for (int i = 0; i < S->nall; i++)
        if (counted(L, i, a0, a1, left_out)) {
            sum += part < 0 ? family_term(L, term, g, i) : term_at(L, term, g, i, part);
            n++;
        }
    return n ? sum / n : 0;
}

/* The point of the grid of axes [a0, a1) chosen without family left_out (-1: none): by
 * default the one whose mean term is least, of those within GRID_TIE of it the first (the
 * least values); a single axis as --lofo-choose says. term: grid_terms's. */
static long grid_best(acc_lofo *L, const double *term, long points, int a0, int a1,
                      int left_out)
{
    int how = a1 == a0 + 1 ? L->choose[a0] : BY_MEAN;
    if (how == BY_NO_WORSE)
        return grid_no_worse(L, term, points, a0, left_out);
    double least_short = INFINITY, least = INFINITY;
    for (long g = 0; how == BY_TOP1_FIRST && g < points; g++)
        least_short = fmin(least_short, grid_mean(L, term, g, a0, a1, left_out, 1));
    /* the points in the running: every one, or those within GRID_TIE of the best top 1 */
    int part = how == BY_TOP1_FIRST ? 0 : -1;
#define IN_RUNNING(g)                                                                          \
    (how != BY_TOP1_FIRST ||                                                                   \
     grid_mean(L, term, g, a0, a1, left_out, 1) <= least_short + GRID_TIE)
    for (long g = 0; g < points; g++)
        if (IN_RUNNING(g))
            least = fmin(least, grid_mean(L, term, g, a0, a1, left_out, part));
    for (long g = 0; g < points; g++)
        if (IN_RUNNING(g) && grid_mean(L, term, g, a0, a1, left_out, part) <= least + GRID_TIE)
            return g;
#undef IN_RUNNING
    return 0;
}

/* Every family's error and top-1 shortfall (term_at) at every point of the grid of axes
 * [a0, a1), the others at their values in the model (malloc'd; NULL when out of memory);
 * only the families of their criterion are run again and scored. */
static double *grid_terms(acc_lofo *L, const est_device *dev, int a0, int a1)
{
    acc_set *S = L->S;
    long points = grid_points(L, a0, a1);
    double *term = calloc((size_t)points * (size_t)S->nall * 2, sizeof *term);
    est_device d = *dev;
    unsigned mask = axes_mask(a0, a1);
    for (long g = 0; term && g < points; g++) {
        axes_set(L, &d, a0, a1, g, NULL);
        apply_devices(L, mask, &d);
        for (int i = 0; i < S->nall; i++)
            if (S->fams[i].enters & mask)
                term[(g * S->nall + i) * 2] =
                    acc_stats_term(S, i, &term[(g * S->nall + i) * 2 + 1]);
    }
    return term;
}

static void print_choice(acc_lofo *L, const char *who, const double *v)
{
    printf("  %-28s", who);
    for (int a = 0; a < L->naxes; a++)
        printf(" %s=%g", L->axes[a].name, v[a]);
    printf("\n");
}

/* How each axis is chosen, and on which families beside the corpus's. */
static void print_criteria(acc_lofo *L)
{
    acc_set *S = L->S;
    printf("\n%s chosen by the mean over the families of the median |error| of GLup/s%s "
           "(within %g of the least: the least values)",
           L->joint_grid ? "together on the grid of their combinations, the axes"
                         : "each on its own grid, the others as in the model, the axes",
           L->by_error_only ? "" : " plus the top-1 shortfall", GRID_TIE);
    int other = 0;
    for (int a = 0; a < L->naxes; a++)
        other |= L->choose[a] != BY_MEAN;
    if (!other && S->nall == S->nfams) {
        printf(":\n");
        return;
    }
    printf(", over the corpus's families without the one left out and:\n");
    for (int a = 0; a < L->naxes; a++) {
        int n = 0;
        for (int i = S->nfams; i < S->nall; i++)
            n += (S->fams[i].enters & axis_bit(a)) != 0;
        printf("  %s: %d families of --lofo-also sets%s\n", L->axes[a].name, n,
               L->choose[a] == BY_NO_WORSE
                   ? "; instead of the least mean, the least value at which no family's term "
                     "exceeds its term at the grid's highest value by more than the margin"
               : L->choose[a] == BY_TOP1_FIRST
                   ? "; instead of the least mean term, the best mean top 1 (within the "
                     "margin), and of those values the least mean error"
                   : "");
    }
}

/* The choices of acc_lofo_rules: how, and each axis' value in the model, on every family
 * and without each. */
static void print_choices(acc_lofo *L)
{
    acc_set *S = L->S;
    double v[MAX_AXES];
    print_criteria(L);
    for (int a = 0; a < L->naxes; a++)
        v[a] = L->axes[a].value;
    print_choice(L, "as in the model", v);
    print_choice(L, "on every family", L->chosen);
    for (int i = 0; i < S->nfams; i++) {
        char who[96];
        snprintf(who, sizeof who, "without %s", S->fams[i].f.name);
        print_choice(L, who, &L->chosen[(i + 1) * L->naxes]);
    }
}

/* Each device-parameter axis' grid within the device's bounds (est_device_check), its
 * value in the model read off dev; 0, or -1 with the reason on stderr. */
static int grids_in_bounds(acc_lofo *L, const est_device *dev)
{
    for (int a = 0; a < L->naxes; a++) {
        if (L->axes[a].param < 0)
            continue;
        est_device ends = *dev;
        char why[160];
        const char *bad = NULL;
        L->axes[a].value = *cal_param(&ends, L->axes[a].param);
        for (int end = 0; end < 2 && !bad; end++) {
            *cal_param(&ends, L->axes[a].param) =
                L->axes[a].lo + end * (L->axes[a].n - 1) * L->axes[a].step;
            bad = est_device_check(&ends, why, sizeof why);
        }
        if (bad) {
            fprintf(stderr, "accuracy: --lofo-rules: %s's grid leaves its bounds: %s\n",
                    L->axes[a].name, why);
            return -1;
        }
    }
    return 0;
}

/* Into L->chosen each axis' value on every family and without each: each axis chosen on
 * its own grid with the others at their values in the model, as they were chosen one at
 * a time (docs/model-history.md), or with --lofo-joint all on the grid of their
 * combinations. 0, or -1 when memory runs out. */
static int choose_all(acc_lofo *L, const est_device *dev)
{
    acc_set *S = L->S;
    int groups = L->joint_grid ? 1 : L->naxes;
    double *chosen = L->chosen =
        calloc((size_t)(S->nfams + 1) * (size_t)L->naxes, sizeof *L->chosen);
    est_device d = *dev;
    int bad = !chosen;
    for (int grp = 0; grp < groups && !bad; grp++) {
        int a0 = L->joint_grid ? 0 : grp, a1 = L->joint_grid ? L->naxes : grp + 1;
        double *term = grid_terms(L, dev, a0, a1), v[MAX_AXES];
        bad = !term;
        for (int i = -1; !bad && i < S->nfams; i++) {
            axes_set(L, &d, a0, a1, grid_best(L, term, grid_points(L, a0, a1), a0, a1, i), v);
            for (int a = a0; a < a1; a++)
                chosen[(i + 1) * L->naxes + a] = v[a];
        }
        free(term);
    }
    return bad ? -1 : 0;
}

/* Each axis chosen on the corpus's families and those of the --lofo-also sets that name
 * it. */
int acc_lofo_rules(acc_lofo *L, const est_device *dev, acc_figures *lg)
{
    acc_set *S = L->S;
    if (grids_in_bounds(L, dev) || lofo_also_check(L, dev) || rules_only_in_performance(L, dev))
        return -1;
    if (S->nfams < 2) {
        fprintf(stderr, "accuracy: --lofo-rules needs two families or more\n");
        return -1;
    }
    est_device d = *dev;
    int bad = choose_all(L, dev);
    if (!bad)
        print_choices(L);
    for (int i = 0; i < S->nfams && !bad; i++) {
        for (int a = 0; a < L->naxes; a++)
            axis_put(L, &d, a, L->chosen[(i + 1) * L->naxes + a]);
        apply_devices(L, CORPUS_BIT, &d);
        acc_stats_family(S, i, lg);
    }
    axes_set(L, &d, 0, 0, -1, NULL);
    apply_devices(L, ~0u, dev);
    return bad ? -1 : 0;
}

void acc_lofo_refit(acc_set *S, const est_device *dev, cal_sample *smp, int ns,
                    const char *hold, acc_figures *lg)
{
    est_device all = *dev;
    for (int i = 0; i < S->nfams; i++) {
        cal_fit_holding(&all, smp, ns, i, 2, hold);
        acc_set_sync_predictions(S);
        acc_stats_family(S, i, lg);
        fprintf(stderr, "leave-one-family-out: %d of %d\r", i + 1, S->nfams);
    }
    fprintf(stderr, "\n");
    cal_apply(&all, smp, ns);
    acc_set_sync_predictions(S);
}
