/*
 * estimate: one configuration from occupancy to predicted performance, in order:
 * occupancy and waves (launch_shape), binding, sampling and wave footprints, the
 * volumes (volumes.c), then the limits of the model the kernel asks for: the published
 * method (warpspeed.c) or model v2 (v2.c), each step named after its quantity in
 * docs/model.md.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator_int.h"
#include "lr_utf8.h"

const char *est_limiter_name(est_limiter l)
{
    static const char *const names[] = {"flops",  "l1",     "l2",          "dram",
                                        "latency", "blocks", "stores",     "l2_requests",
                                        "l1_requests", "none"};
    return l <= EST_LIMITER_NONE ? names[l] : "none";
}

void est_result_performance(const est_kernel *k, const est_device *dev, est_result *r)
{
    if (k->model == EST_MODEL_V2)
        est_v2_performance(k, dev, r);
    else
        est_warpspeed_performance(k, dev, r);
}

/* What est_estimate needs of its inputs beyond the launch (est_launch_check): the
 * protocol checks all of it where it reads a request, but the estimator is a library
 * with direct callers (calibrate, bench, tests), and a bad figure must come back as
 * an error, not as a division by zero or an overflow deep inside. Paths are those of
 * the request fields that carry each figure. */
static int check_inputs(const est_kernel *k, const est_device *dev, lr_error *err)
{
    if (k->nfields < 1)
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.fields",
                            "the kernel has no fields: there is nothing to estimate");
    if (k->registers < 0 || k->registers > EST_MAX_REGISTERS)
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.registers",
                            "%d registers per thread; CUDA allows 0 to %d", k->registers,
                            EST_MAX_REGISTERS);
    if (k->shared_bytes < 0)
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.shared_bytes",
                            "%lld bytes of shared memory per block; it must be at least 0",
                            (long long)k->shared_bytes);
    /* a negative fp_instructions is "none given" (est_kernel_new's -1) */
    if (!(isfinite(k->flops) && k->flops >= 0) || !isfinite(k->fp_instructions))
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.flops",
                            "flops and fp_instructions per lattice update must be finite "
                            "numbers, flops at least 0");
    char why[160], path[64];
    const char *field = est_device_check(dev, why, sizeof why);
    if (field) {
        snprintf(path, sizeof path, "device.%s", field);
        return lr_error_set(err, LR_INVALID_REQUEST, path, "%s", why);
    }
    return 0;
}

#ifndef NDEBUG /* only the asserts of check_invariants call these */
static int finite_nonnegative(double x)
{
    return isfinite(x) && x >= 0;
}

static int all_finite_nonnegative(const est_volumes *v)
{
    const double x[] = {
        v->l1_cycles,      v->smx_load,  v->l1_load,           v->l2_load_compulsory,
        v->l2_load,        v->l2_store,  v->l2_store_requests, v->dram_load_compulsory,
        v->dram_load_warm, v->dram_load, v->dram_store,         v->l2_store_charged};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        if (!finite_nonnegative(x[i]))
            return 0;
    return 1;
}
#endif

/* The invariants of a launchable result, which docs/model.md's formulas keep for
 * every input est_estimate accepts: a wave of at least one block, volumes that are
 * byte counts (finite, >= 0), limits that are rates, the share of a wave's thread
 * slots that update lattice points in [0, 1], and a prediction no faster than its
 * tightest limit (the smooth minimum of model v2 lies below every limit). Asserted
 * (live in the test and debug builds; meson's b_ndebug=if-release drops them from
 * release builds): a violation is a bug of the model's code, not of the input. */
static void check_invariants(const est_kernel *k, const est_result *r)
{
    const est_config *c = &r->config;
    int threads = c->launch.block[0] * c->launch.block[1] * c->launch.block[2];
    assert(r->blocks_per_sm >= 1 && r->wave_blocks >= r->blocks_per_sm);
    for (int d = 0; d < 3; d++)
        assert(r->grid[d] >= 1 && r->wave_grid[d] >= 1 && r->wave_grid[d] <= r->grid[d]);
    assert(r->lattice_updates >= 1);
    assert(all_finite_nonnegative(&r->total));
    for (int f = 0; f < k->nfields; f++)
        assert(all_finite_nonnegative(&r->field[f]));
    assert(finite_nonnegative(r->l1_coverage) && finite_nonnegative(r->l2_oversubscription));
    assert(finite_nonnegative(r->wave_oversub_y) && finite_nonnegative(r->wave_oversub_z));
    assert(finite_nonnegative(r->l1_wavefronts) && finite_nonnegative(r->stores_left_in_l2));
    assert(finite_nonnegative(r->launch_time_us));
    const double lim[] = {r->perf_flops,   r->perf_l1,     r->perf_l2,
                          r->perf_dram,    r->perf_latency, r->perf_blocks,
                          r->perf_stores,  r->perf_l2_requests, r->perf_l1_requests};
    double tightest = INFINITY;
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        assert(finite_nonnegative(lim[i]));
        if (lim[i] > 0 && lim[i] < tightest)
            tightest = lim[i];
    }
    assert(finite_nonnegative(r->predicted));
    assert(r->predicted <= tightest * (1 + 1e-12));
    double slots = r->blocks_resident * threads;
    double working = r->active_threads_per_sm / slots;
    assert(finite_nonnegative(working) && working <= 1 + 1e-12);
    (void)k, (void)working, (void)tightest; /* unused when NDEBUG drops the asserts */
}

/* The launch's shape into r: grid, lattice updates, blocks per SM and the wave (blocks
 * dispatched in x, then y, then z order). cfg launches (est_launch_check passed). */
static void launch_shape(const est_kernel *k, const est_device *dev, const est_config *cfg,
                         est_result *r)
{
    const int *bd = cfg->launch.block;
    est_grid(cfg, r->grid);
    r->lattice_updates = cfg->domain[0] * cfg->domain[1] * cfg->domain[2];
    r->blocks_per_sm = est_blocks_per_sm(k, dev, bd[0] * bd[1] * bd[2]);
    r->wave_blocks = (int64_t)r->blocks_per_sm * dev->sm_count;
    r->blocks_idle_bound = est_blocks_with_idle_warps(k, dev, cfg, r->grid);
    r->blocks_resident = r->blocks_per_sm; /* model v2 may raise it (v2.c) */
    int64_t W = r->wave_blocks, *g = r->grid;
    r->wave_grid[0] = g[0] < W ? g[0] : W;
    r->wave_grid[1] = W / g[0] < 1 ? 1 : W / g[0];
    r->wave_grid[1] = r->wave_grid[1] < g[1] ? r->wave_grid[1] : g[1];
    r->wave_grid[2] = W / g[0] / g[1] < 1 ? 1 : W / g[0] / g[1];
    r->wave_grid[2] = r->wave_grid[2] < g[2] ? r->wave_grid[2] : g[2];
    r->launchable = 1;
}

/* docs/model.md, "Deep blocks": into *saved the DRAM bytes per update a block deep in z
 * (bz > 1) saves against the same threads laid flat, bx x (by * bz) x 1 with the same
 * folding: the z layers its warps share and load once. The flat block's warm DRAM loads
 * come from its wave footprints alone (dram_volumes; no sampling, which they do not
 * need): its loads less the deep block's, 0 when the flat block cannot launch (by * bz
 * past the device's limits) or saves nothing. Its footprints are bound like the deep
 * block's: past the context's operations or deadline the estimate fails with that
 * error (a ranking then leaves it unfinished), as it would in any other stage, instead
 * of answering without the term. A model-v2 figure. */
static int saved_by_depth(est_ctx *ctx, const est_kernel *k, const est_device *dev,
                          const est_config *cfg, const est_result *r, double *saved,
                          lr_error *err)
{
    const int *bd = cfg->launch.block, *fold = cfg->launch.folding;
    *saved = 0;
    if (k->model != EST_MODEL_V2 || bd[2] <= 1 || cfg->domain[2] <= 1)
        return 0;
    est_config flat = *cfg;
    flat.launch.block[1] = bd[1] * bd[2];
    flat.launch.block[2] = 1;
    lr_error why;
    lr_error_clear(&why);
    if (est_launch_check(k, dev, &flat, &why) || est_folding_check(k, &flat, &why))
        return 0;
    est_result *rf = calloc(1, sizeof *rf);
    est_wave *w = malloc(sizeof *w);
    est_binding b;
    int rc = (!rf || !w) ? lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory")
                         : est_bind(&b, k, dev, &flat, err);
    if (!rc) {
        rf->config = flat;
        rf->nfields = k->nfields;
        launch_shape(k, dev, &flat, rf);
        int64_t threads = (int64_t)bd[0] * bd[1] * bd[2];
        rc = est_wave_run(ctx, &b, rf->wave_blocks, w, err);
        if (!rc) {
            est_dram_volumes(&b, w, rf->wave_blocks * threads * fold[0] * fold[1] * fold[2], rf);
            double s = 0;
            for (int f = 0; f < k->nfields; f++)
                s += rf->field[f].dram_load_warm - r->field[f].dram_load_warm;
            *saved = s > 0 ? s : 0;
        }
        est_binding_release(&b);
    }
    free(rf);
    free(w);
    return rc;
}

int est_estimate(est_ctx *ctx, const est_kernel *k, const est_device *dev,
                 const est_config *cfg, est_result *r, lr_error *err)
{
    if (!ctx || !k || !dev || !cfg || !r)
        return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                            "est_estimate needs a context, a kernel, a device, a "
                            "configuration and a result");
    memset(r, 0, sizeof *r);
    r->config = *cfg;
    /* a renumbered mesh is a kernel of its own (est_kernel_add_variant) */
    int ord = cfg->launch.ordering;
    if (ord < 0 || ord > k->nvariants)
        return lr_error_set(err, LR_INVALID_REQUEST, "launch.ordering",
                            "ordering %d: the kernel has %d renumbered meshes", ord,
                            k->nvariants);
    if (ord > 0)
        k = k->variant[ord - 1];
    r->nfields = k->nfields;
    r->limiter = EST_LIMITER_NONE;
    if (check_inputs(k, dev, err))
        return -1;
    lr_error why;
    lr_error_clear(&why);
    int runs = est_launch_check(k, dev, cfg, &why) == 0 &&
               est_folding_check(k, cfg, &why) == 0 && est_gather_check(k, cfg, &why) == 0;
    if (!runs && why.code != LR_NOT_LAUNCHABLE)
        return lr_error_set(err, why.code, why.path, "%s", why.message);
    /* the sides are valid from here on: no division by 0, no product past 2^42 */
    const int *bd = cfg->launch.block, *fold = cfg->launch.folding;
    est_grid(cfg, r->grid);
    r->lattice_updates = cfg->domain[0] * cfg->domain[1] * cfg->domain[2];
    if (!runs) {
        snprintf(r->reason, sizeof r->reason, "%.*s",
                 lr_utf8_prefix(why.message, sizeof r->reason - 1), why.message);
        return 0;
    }
    int threads = bd[0] * bd[1] * bd[2];
    launch_shape(k, dev, cfg, r);
    int64_t W = r->wave_blocks;

    est_binding b;
    if (est_bind(&b, k, dev, cfg, err))
        return -1;
    est_sample *s = malloc(sizeof *s);
    est_wave *w = malloc(sizeof *w);
    int rc = (!s || !w) ? lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory") : 0;
    if (!rc)
        rc = est_sample_run(ctx, &b, s, err);
    if (!rc)
        rc = k->gathers ? est_gather_waves(ctx, &b, W, w, err) : est_wave_run(ctx, &b, W, w, err);
    if (!rc) {
        r->warp_active_share = s->warp_active_share;
        est_l1_l2_volumes(&b, s, r);
        est_dram_volumes(&b, w, W * threads * fold[0] * fold[1] * fold[2], r);
        for (int f = 0; f < k->nfields; f++)
            est_add_volumes(&r->total, &r->field[f]);
        rc = saved_by_depth(ctx, k, dev, cfg, r, &r->dram_saved_by_depth, err);
    }
    if (!rc) {
        est_result_performance(k, dev, r);
        check_invariants(k, r);
    }
    free(s);
    free(w);
    est_binding_release(&b);
    return rc;
}
