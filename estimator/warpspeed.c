/*
 * warpspeed: the published method's performance (Ernst et al. 2023; docs/model.md §7):
 * the four limits of flops, L1, L2 and DRAM from the volumes, and the smallest of them
 * as the prediction. Frozen: model v2 (v2.c) builds on these limits and changes
 * nothing here; a change to the reference method is a change of the paper's.
 */
#include "estimator_int.h"

/* docs/model.md §7: the four limiters in GLup/s; 0 = no limit. */
void est_warpspeed_limits(const est_kernel *k, const est_device *dev, est_result *r)
{
    const est_volumes *t = &r->total;
    int lanes = k->fp64 ? dev->fp64_lanes : dev->fp32_lanes;
    r->perf_flops = k->fp_instructions > 0
                        ? dev->clock_ghz * dev->sm_count * lanes / k->fp_instructions
                        : 0;
    if (dev->l1_model == EST_L1_KEPLER)
        r->perf_l1 = div0(dev->smx_bw_gbs, t->smx_load);
    else
        r->perf_l1 = div0(dev->sm_count * dev->clock_ghz, t->l1_cycles);
    r->perf_l2 = div0(dev->l2_bw_gbs, t->l2_load + t->l2_store_charged);
    r->perf_dram = div0(dev->dram_bw_gbs, r->dram_charged);
}

/* The smallest positive limit of lim[0..n) (ties: the first) into r. */
void est_smallest_limit(const double *lim, int n, est_result *r)
{
    r->predicted = 0;
    r->limiter = EST_LIMITER_NONE;
    for (int i = 0; i < n; i++)
        if (lim[i] > 0 && (r->limiter == EST_LIMITER_NONE || lim[i] < r->predicted)) {
            r->predicted = lim[i];
            r->limiter = (est_limiter)i;
        }
}

void est_warpspeed_performance(const est_kernel *k, const est_device *dev, est_result *r)
{
    est_warpspeed_limits(k, dev, r);
    double lim[4] = {r->perf_flops, r->perf_l1, r->perf_l2, r->perf_dram};
    est_smallest_limit(lim, 4, r);
}
