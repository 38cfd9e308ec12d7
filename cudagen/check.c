/*
 * check: the differential test of generated code. A kernel runs once on the GPU;
 * the CPU then does what the description says, thread by thread, with the same
 * correctly rounded operations in the same order (fma for every load and chain step,
 * one add per store, conversions to the field's type), and every element of every
 * stored field is compared. Any difference means emit.c printed something other
 * than the description (a wrong index, a lost guard, a missed folding step).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudagen_int.h"

/* Host copies the check may hold: all fields, margins included. Small domains with
 * sane margins need megabytes; 2 GiB says the request is not a small domain. */
#define CHECK_MAX_HOST_BYTES ((int64_t)1 << 31)

/* The accumulator's arithmetic on doubles holding either doubles or floats: for a
 * float accumulator every result is the correctly rounded float one, as on the GPU. */
typedef struct arith {
    int dbl;
} arith;

static double a_conv(arith a, double v)
{
    return a.dbl ? v : (double)(float)v;
}

static double a_fma(arith a, double x, double y, double z)
{
    return a.dbl ? fma(x, y, z) : (double)fmaf((float)x, (float)y, (float)z);
}

static double a_add(arith a, double x, double y)
{
    return a.dbl ? x + y : (double)((float)x + (float)y);
}

/* The CPU's image of the fields: one buffer per field laid out as on the GPU. */
typedef struct image {
    const est_kernel *k;
    const cg_field_alloc *layout;
    void *host[EST_MAX_FIELDS]; /* owned */
    lr_error *err;
} image;

/* Element slot of access a of field f for the bound variables, or -1 with err when it
 * falls outside the allocation (cg_field_layout promised it cannot). */
static int64_t slot(image *im, int f, int a, const int64_t val[EST_VAR_COUNT])
{
    int64_t dims[3], stride = 1, idx = 0, elem = est_kernel_field_elem_bytes(im->k, f);
    int64_t j, total = im->layout[f].bytes / elem;
    est_kernel_field_dims(im->k, f, dims);
    for (int d = 0; d < est_kernel_field_ndims(im->k, f); d++) {
        idx += est_expr_eval(est_kernel_access_index(im->k, f, a, d), val) * stride;
        stride *= dims[d];
    }
    j = im->layout[f].elem0_offset / elem + idx;
    if (j < 0 || j >= total) {
        lr_error_set(im->err, LR_INTERNAL, NULL,
                     "cudagen's layout misses element %" PRId64 " of field '%s' (bug)", idx,
                     est_kernel_field_name(im->k, f));
        return -1;
    }
    return j;
}

static double get(const image *im, int f, int64_t j)
{
    return est_kernel_field_elem_bytes(im->k, f) == 8 ? ((double *)im->host[f])[j]
                                                      : (double)((float *)im->host[f])[j];
}

static void put(image *im, int f, int64_t j, double v)
{
    if (est_kernel_field_elem_bytes(im->k, f) == 8)
        ((double *)im->host[f])[j] = v;
    else
        ((float *)im->host[f])[j] = (float)v;
}

/* Performs the accesses of one kind (loads or stores; of lattice or of thread
 * variables), numbered from *n: load number n adds its weighted value to *acc, store
 * number n writes *acc + n. One walk for both, so that loads and stores are numbered
 * alike, in the generated kernel's order. */
static int do_accesses(image *im, arith ar, int store, int lattice,
                       const int64_t val[EST_VAR_COUNT], int *n, double *acc)
{
    for (int f = 0; f < est_kernel_field_count(im->k); f++)
        for (int a = 0; a < est_kernel_access_count(im->k, f); a++) {
            int64_t j;
            if (!cg_access_is(im->k, f, a, store, lattice))
                continue;
            if ((j = slot(im, f, a, val)) < 0)
                return -1;
            if (store)
                put(im, f, j, a_add(ar, *acc, (double)(*n)++));
            else
                *acc =
                    a_fma(ar, cg_load_weight((*n)++, ar.dbl), a_conv(ar, get(im, f, j)), *acc);
        }
    return 0;
}

/* One thread of the generated kernel, in the generated kernel's order. */
static int run_thread(image *im, arith ar, const est_config *cfg, const int64_t grid[3],
                      const int64_t t[3], const int64_t blk[3], int64_t steps,
                      int first_thread_store)
{
    int64_t val[EST_VAR_COUNT], s[3];
    const int *fold = cfg->launch.folding;
    double tsum = 0, acc = 0;
    int nthread_loads = 0;

    for (int d = 0; d < 3; d++) {
        val[EST_VAR_TIDX + d] = blk[d] * cfg->launch.block[d] + t[d];
        if (val[EST_VAR_TIDX + d] * fold[d] >= cfg->domain[d])
            return 0; /* no lattice point of this thread is in the domain */
    }
    for (int d = 0; d < 3; d++) {
        val[EST_VAR_X + d] = val[EST_VAR_TIDX + d] * fold[d];
        val[EST_VAR_THREADIDX_X + d] = t[d];
        val[EST_VAR_BLOCKIDX_X + d] = blk[d];
        val[EST_VAR_BLOCKDIM_X + d] = cfg->launch.block[d];
        val[EST_VAR_GRIDDIM_X + d] = grid[d];
    }
    if (do_accesses(im, ar, 0, 0, val, &nthread_loads, &tsum) < 0)
        return -1;
    for (s[2] = 0; s[2] < fold[2]; s[2]++)
        for (s[1] = 0; s[1] < fold[1]; s[1]++)
            for (s[0] = 0; s[0] < fold[0]; s[0]++) {
                int n = nthread_loads, valid = 1;
                double sum = tsum;
                for (int d = 0; d < 3; d++) {
                    val[EST_VAR_X + d] = val[EST_VAR_TIDX + d] * fold[d] + s[d];
                    valid &= val[EST_VAR_X + d] < cfg->domain[d];
                }
                if (!valid)
                    continue;
                if (do_accesses(im, ar, 0, 1, val, &n, &sum) < 0)
                    return -1;
                for (int64_t i = 0; i < steps; i++)
                    sum = a_fma(ar, sum, CG_CHAIN_A, CG_CHAIN_B);
                n = 0;
                if (do_accesses(im, ar, 1, 1, val, &n, &sum) < 0)
                    return -1;
                acc = a_add(ar, acc, sum);
            }
    return do_accesses(im, ar, 1, 0, val, &first_thread_store, &acc);
}

/* The whole grid, block by block and thread by thread. */
static int run_cpu(image *im, const est_config *cfg)
{
    int64_t grid[3], blk[3], t[3], steps = cg_chain_steps(im->k);
    arith ar = {cg_acc_double(im->k)};
    int first_thread_store = 0; /* thread stores are numbered after the lattice ones */

    for (int f = 0; f < est_kernel_field_count(im->k); f++)
        for (int a = 0; a < est_kernel_access_count(im->k, f); a++)
            first_thread_store += cg_access_is(im->k, f, a, 1, 1);
    est_grid(cfg, grid);
    for (blk[2] = 0; blk[2] < grid[2]; blk[2]++)
        for (blk[1] = 0; blk[1] < grid[1]; blk[1]++)
            for (blk[0] = 0; blk[0] < grid[0]; blk[0]++)
                for (t[2] = 0; t[2] < cfg->launch.block[2]; t[2]++)
                    for (t[1] = 0; t[1] < cfg->launch.block[1]; t[1]++)
                        for (t[0] = 0; t[0] < cfg->launch.block[0]; t[0]++)
                            if (run_thread(im, ar, cfg, grid, t, blk, steps,
                                           first_thread_store) < 0)
                                return -1;
    return 0;
}

static double rel_diff(double got, double want)
{
    if (isnan(got) || isnan(want))
        return isnan(got) && isnan(want) ? 0 : INFINITY;
    if (got == want)
        return 0;
    return fabs(got - want) / fmax(fabs(want), 1e-300);
}

/* Compares the GPU's copy of stored field f (in gpu) with the CPU's. */
static int compare(const image *im, const est_kernel *k, int f, const void *gpu, double tol,
                   double *max_rel, lr_error *err)
{
    int64_t elem = est_kernel_field_elem_bytes(k, f), total = im->layout[f].bytes / elem;
    image g = *im;
    g.host[f] = (void *)gpu;
    for (int64_t j = 0; j < total; j++) {
        double got = get(&g, f, j), want = get(im, f, j), r = rel_diff(got, want);
        if (r > *max_rel)
            *max_rel = r;
        if (r > tol)
            return lr_error_set(err, LR_INTERNAL, NULL,
                                "the generated kernel disagrees with the CPU reference: field "
                                "'%s' element %" PRId64
                                " is %.17g on the GPU, %.17g on the CPU "
                                "(relative difference %.3g > %g)",
                                est_kernel_field_name(k, f),
                                j - im->layout[f].elem0_offset / elem, got, want, r, tol);
    }
    return 0;
}

int cg_check_with(const est_kernel *k, const est_config *cfg, const cg_measure_opts *opts,
                  double *max_rel_err, lr_error *err)
{
    cg_measure_opts defaults;
    cg_run r;
    image im = {.k = k, .err = err};
    void *gpu = NULL;
    int64_t points = 1, bytes = 0;
    int nf = est_kernel_field_count(k), rc = 0;
    double tol = cg_acc_double(k) ? CG_CHECK_TOL_DOUBLE : CG_CHECK_TOL_FLOAT;

    *max_rel_err = 0;
    if (!opts) {
        cg_measure_opts_init(&defaults);
        opts = &defaults;
    }
    for (int d = 0; d < 3; d++)
        points *= cfg->domain[d] > 0 ? cfg->domain[d] : 1;
    if (points > CG_CHECK_MAX_POINTS)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, "domain",
                            "checking against the CPU is for small domains: %" PRId64
                            " points, at most %" PRId64,
                            points, CG_CHECK_MAX_POINTS);
    if (cg_run_open(&r, k, cfg, opts, err) < 0)
        return -1;
    im.layout = r.layout;
    for (int f = 0; f < nf; f++)
        bytes += r.layout[f].bytes;
    if (bytes > CHECK_MAX_HOST_BYTES)
        rc = lr_error_set(err, LR_LIMIT_EXCEEDED, NULL,
                          "the fields' allocations total %" PRId64
                          " bytes; the CPU check holds at most %" PRId64,
                          bytes, CHECK_MAX_HOST_BYTES);
    /* the same initial values as cg_run_fill wrote to the GPU */
    for (int f = 0; f < nf && rc == 0; f++) {
        int64_t elem = est_kernel_field_elem_bytes(k, f), total = r.layout[f].bytes / elem;
        if (!(im.host[f] = malloc((size_t)r.layout[f].bytes))) {
            rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
            break;
        }
        for (int64_t j = 0; j < total; j++)
            put(&im, f, j, cg_init_value(j));
    }
    if (rc == 0)
        rc = r.b->launch(r.s, r.grid, r.block, r.shared_bytes, r.args, NULL, err);
    if (rc == 0)
        rc = run_cpu(&im, cfg);
    for (int f = 0; f < nf && rc == 0; f++) {
        int stored = 0;
        for (int a = 0; a < est_kernel_access_count(k, f); a++)
            stored |= est_kernel_access_is_store(k, f, a);
        if (!stored)
            continue;
        free(gpu);
        if (!(gpu = malloc((size_t)r.layout[f].bytes)))
            rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        if (rc == 0)
            rc = r.b->download(r.s, gpu, r.buf[f], (size_t)r.layout[f].bytes, err);
        if (rc == 0)
            rc = compare(&im, k, f, gpu,
                         est_kernel_field_elem_bytes(k, f) == 4 ? CG_CHECK_TOL_FLOAT : tol,
                         max_rel_err, err);
    }
    free(gpu);
    for (int f = 0; f < nf; f++)
        free(im.host[f]);
    cg_run_close(&r);
    return rc;
}

int cg_check(const est_kernel *k, const est_config *cfg, double *max_rel_err, lr_error *err)
{
    return cg_check_with(k, cfg, NULL, max_rel_err, err);
}
