/* device: capacity-miss fits and the sanity check of device figures. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "device.h"

double est_fit_eval(est_fit f, double o)
{
    return f.a * exp(-f.b * exp(-f.c * o));
}

static int is_pow2(long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* One rule of est_device_check: whether the figure is acceptable, its name and what
 * it must be. */
typedef struct device_rule {
    int ok;
    const char *field, *must;
} device_rule;

/* The first rule of rules[0..n) that is broken: its field, with what it must be in
 * why; NULL when none is. */
static const char *first_broken(const device_rule *rules, size_t n, char *why, unsigned whysize)
{
    for (size_t i = 0; i < n; i++)
        if (!rules[i].ok) {
            snprintf(why, whysize, "%s", rules[i].must);
            return rules[i].field;
        }
    return NULL;
}

/* The machine: SMs, clock, caches and bandwidths. Lower bounds are real figures, not
 * just "positive": a subnormal bandwidth such as 5e-324 would make its limit underflow
 * to 0, which the model reads as "no limit". */
static const char *machine_broken(const est_device *d, char *why, unsigned whysize)
{
    const device_rule rules[] = {
        {d->sm_count >= 1 && d->sm_count <= 4096, "sm_count", "must be 1..4096"},
        {d->clock_ghz >= 0.01 && d->clock_ghz <= 10, "clock_ghz", "must be 0.01..10 GHz"},
        {d->l1_bytes >= 1024 && d->l1_bytes <= (1 << 24), "l1_bytes", "must be 1 KiB..16 MiB"},
        {d->l2_bytes >= 65536 && d->l2_bytes <= (1ll << 34), "l2_bytes",
         "must be 64 KiB..16 GiB"},
        {d->l2_bw_gbs >= 1 && d->l2_bw_gbs < 1e6, "l2_bw_gbs", "must be in [1, 1e6) GB/s"},
        {d->dram_bw_gbs >= 1 && d->dram_bw_gbs < 1e6, "dram_bw_gbs",
         "must be in [1, 1e6) GB/s"},
        {d->l1_model != EST_L1_KEPLER || (d->smx_bw_gbs >= 1 && d->smx_bw_gbs < 1e6),
         "smx_bw_gbs", "a Kepler device needs its read-only cache bandwidth in GB/s"},
    };
    return first_broken(rules, sizeof rules / sizeof *rules, why, whysize);
}

/* The parameters of params.def, in its order: each within its bounds. */
static const char *params_broken(const est_device *d, char *why, unsigned whysize)
{
    for (int i = 0; i < est_nmparams; i++) {
        const est_mparam *p = &est_mparams[i];
        double v = *est_mparam_in((est_device *)d, p);
        device_rule r = {(p->lo_open ? v > p->lo : v >= p->lo) &&
                             (p->hi_open ? v < p->hi : v <= p->hi),
                         p->name, p->must};
        if (first_broken(&r, 1, why, whysize))
            return r.field;
    }
    return NULL;
}

/* Lanes, occupancy limits and the granularities of caches and DRAM. */
static const char *occupancy_broken(const est_device *d, char *why, unsigned whysize)
{
    const device_rule rules[] = {
        {d->fp64_lanes >= 0 && d->fp64_lanes <= 4096, "fp64_lanes", "must be 0..4096"},
        {d->fp32_lanes >= 0 && d->fp32_lanes <= 4096, "fp32_lanes", "must be 0..4096"},
        {d->issue_lanes >= 0 && d->issue_lanes <= 4096, "issue_lanes", "must be 0..4096"},
        {d->special_lanes >= 0 && d->special_lanes <= 4096, "special_lanes", "must be 0..4096"},
        {d->integer_lanes >= 0 && d->integer_lanes <= 4096, "integer_lanes", "must be 0..4096"},
        {d->max_threads_per_sm >= 32 && d->max_threads_per_sm <= 65536, "max_threads_per_sm",
         "must be 32..65536"},
        {d->max_blocks_per_sm >= 1 && d->max_blocks_per_sm <= 1024, "max_blocks_per_sm",
         "must be 1..1024"},
        {d->max_threads_per_block >= 32 && d->max_threads_per_block <= 65536,
         "max_threads_per_block", "must be 32..65536"},
        {d->regs_per_sm >= 1024 && d->regs_per_sm <= (1 << 22), "regs_per_sm",
         "must be 1024..4194304"},
        {d->shared_bytes_per_sm >= 0 && d->shared_bytes_per_sm <= (1 << 24),
         "shared_bytes_per_sm", "must be 0..16 MiB"},
        {d->shared_reserved_bytes_per_block >= 0 && d->shared_reserved_bytes_per_block <= 65536,
         "shared_reserved_bytes_per_block", "must be 0..65536 bytes"},
        {d->shared_alloc_bytes >= 0 && d->shared_alloc_bytes <= 65536 &&
             (d->shared_alloc_bytes & (d->shared_alloc_bytes - 1)) == 0,
         "shared_alloc_bytes", "must be 0 or a power of two up to 65536 bytes"},
        {is_pow2(d->l1_bank_bytes_per_cycle) && d->l1_bank_bytes_per_cycle <= 1024,
         "l1_bank_bytes_per_cycle", "must be a power of two up to 1024"},
        {is_pow2(d->l1_line_bytes) && d->l1_line_bytes <= 1024, "l1_line_bytes",
         "must be a power of two up to 1024"},
        {is_pow2(d->l1_sector_bytes) && d->l1_sector_bytes <= d->l1_line_bytes,
         "l1_sector_bytes", "must be a power of two no larger than l1_line_bytes"},
        {is_pow2(d->l2_sector_bytes) && d->l2_sector_bytes <= 1024, "l2_sector_bytes",
         "must be a power of two up to 1024"},
        {is_pow2(d->dram_fetch_bytes) && d->dram_fetch_bytes <= 4096, "dram_fetch_bytes",
         "must be a power of two up to 4096"},
    };
    return first_broken(rules, sizeof rules / sizeof *rules, why, whysize);
}

/* The capacity-miss fits: a in [0, 1] (a miss rate), b and c >= 0. */
static const char *fits_broken(const est_device *d, char *why, unsigned whysize)
{
    const est_fit *fits[] = {&d->miss_l1, &d->miss_ovy, &d->miss_ovz, &d->miss_l2,
                             &d->miss_l2store};
    const char *names[] = {"fits.miss_l1", "fits.miss_ovy", "fits.miss_ovz", "fits.miss_l2",
                           "fits.miss_l2store"};
    for (int i = 0; i < 5; i++) {
        const est_fit *f = fits[i];
        device_rule r = {f->a >= 0 && f->a <= 1 && f->b >= 0 && f->b < 1e6 && f->c >= 0 &&
                             f->c < 1e6,
                         names[i], "needs 0 <= a <= 1 (a miss rate), b >= 0, c >= 0"};
        if (first_broken(&r, 1, why, whysize))
            return r.field;
    }
    return NULL;
}

/* In the order the rules were always checked, so that the first broken one named is
 * the same. */
const char *est_device_check(const est_device *d, char *why, unsigned whysize)
{
    const char *field = machine_broken(d, why, whysize);
    if (!field)
        field = params_broken(d, why, whysize);
    if (!field)
        field = occupancy_broken(d, why, whysize);
    return field ? field : fits_broken(d, why, whysize);
}

void est_device_set_v2_defaults(est_device *d)
{
    for (int i = 0; i < est_nmparams; i++)
        *est_mparam_in(d, &est_mparams[i]) = est_mparams[i].h100;
}
