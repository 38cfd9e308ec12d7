/*
 * acc_stats: the figures of each family of a measured set (acc_sets.h), no printing:
 * median |error| of GLup/s and of each data volume against the profiler's counters,
 * Spearman's rho of predicted vs measured GLup/s, where the predicted top 1 and the best
 * of the predicted top 3 land as a share of the measured best, the same for the decision's
 * pick (protocol/decide.h) and for the best single fixed block (the unfolded block with
 * the best geometric-mean share of the best over the corpus's families of its
 * dimensionality: what a code generator that never asks would hard-code), the timing
 * noise; the means over the families and the ranking's precision near the top.
 */
#ifndef ACC_STATS_H
#define ACC_STATS_H

#include <stddef.h>

#include "acc_sets.h"

typedef struct acc_figures acc_figures;

/* Figures for each family of S's corpus (zeroed; free() them); NULL when out of memory. */
acc_figures *acc_figures_new(const acc_set *S);
/* g[i]: family i's figures under the predictions being evaluated. */
void acc_stats_family(const acc_set *S, int i, acc_figures *g);
/* g[i] for every family of the corpus. */
void acc_stats_all(const acc_set *S, acc_figures *g);

/* Family i's median |error| of GLup/s; into *shortfall its top-1 shortfall (1 - top1). */
double acc_stats_term(const acc_set *S, int i, double *shortfall);

/* Sums and extremes of the figures g over the corpus's n families. */
typedef struct acc_summary {
    int n;
    double top1_sum, top1_min, top3_sum, top3_min, rho_sum, err_sum;
    double rec_sum, rec_min;            /* the decision's recommendation, as top1 */
    double adv_sum, adv_min;            /* a generator with the fixed block as its baseline */
    int beaten, rec_beaten, adv_beaten; /* families where the fixed block is ahead */
} acc_summary;
acc_summary acc_stats_summary(const acc_set *S, const acc_figures *g);

/* The precision of a ranking near its top (issue 11): for the configurations measured
 * within 10 % of their family's best, the deviation of predicted/measured GLup/s from
 * that family's median ratio near the top (a scale error common to a family does not
 * change its order), pooled over families; its 90th percentile (into *p90, the median
 * into *median, their count into *n) is how far apart two predictions must be before
 * the model can tell which runs faster. 0 when there is no such configuration. */
int acc_stats_rank_precision(const acc_set *S, size_t *n, double *p90, double *median);

#endif
