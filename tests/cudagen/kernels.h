/*
 * kernels.h: the kernel descriptions both cudagen tests use (test_cudagen.c for the
 * golden sources and NVRTC, test_cudagen_gpu.c on the GPU), built through the public
 * estimator API exactly as protocol/ builds them from a request.
 *
 * Domains are odd-sized on purpose: every one leaves partial blocks, so a lost
 * domain guard writes where the CPU reference does not and the check fails.
 */
#ifndef LR_TEST_CUDAGEN_KERNELS_H
#define LR_TEST_CUDAGEN_KERNELS_H

#include <stdio.h>
#include <stdlib.h>

#include "estimator.h"

/* Adds one access; the expressions for the field's dimensions follow. Exits on any
 * error: a test kernel that does not build is a broken test, not a result. */
static void tk_access(est_kernel *k, int f, int is_store, int n, const char *e0, const char *e1,
                      const char *e2)
{
    const char *text[3] = {e0, e1, e2};
    est_expr *idx[3] = {NULL, NULL, NULL};
    lr_error err;
    lr_error_clear(&err);
    for (int d = 0; d < n; d++)
        if (!(idx[d] = est_expr_parse(text[d], NULL, 0, "test", &err))) {
            fprintf(stderr, "test kernel: '%s': %s\n", text[d], err.message);
            exit(2);
        }
    if (est_kernel_add_access(k, f, is_store, idx, n, "test", &err) < 0) {
        fprintf(stderr, "test kernel: %s\n", err.message);
        exit(2);
    }
}

static int tk_field(est_kernel *k, const char *name, int elem, int nd, int64_t d0, int64_t d1,
                    int64_t d2, int64_t base_offset)
{
    int64_t dims[3] = {d0, d1, d2};
    lr_error err;
    int f;
    lr_error_clear(&err);
    if ((f = est_kernel_add_field(k, name, elem, nd, dims, base_offset, "test", &err)) < 0) {
        fprintf(stderr, "test kernel: %s\n", err.message);
        exit(2);
    }
    return f;
}

static est_config tk_config(int64_t nx, int64_t ny, int64_t nz, int bx, int by, int bz, int fx,
                            int fy, int fz)
{
    est_config c = {{nx, ny, nz}, {{bx, by, bz}, {fx, fy, fz}, 0}};
    return c;
}

/* 1-D, float: b[x] = a[x] and a[(x+1)/2] (a floor division), 8 flops per update, so a
 * 2-step float fma chain; a is 64 bytes off a line. */
static est_kernel *tk_1d(int64_t n)
{
    est_kernel *k = est_kernel_new();
    int a = tk_field(k, "a", 4, 1, n, 1, 1, 64), b = tk_field(k, "b", 4, 1, n, 1, 1, 0);
    tk_access(k, a, 0, 1, "x", NULL, NULL);
    tk_access(k, a, 0, 1, "(x + 1) / 2", NULL, NULL);
    tk_access(k, b, 1, 1, "x", NULL, NULL);
    est_kernel_set_compute(k, 8, -1, 0, 32, 0);
    return k;
}

/* 2-D 5-point Jacobi step on a grid with a 1-point halo, doubles, 20 flops. */
static est_kernel *tk_2d5pt(int64_t nx, int64_t ny)
{
    est_kernel *k = est_kernel_new();
    int src = tk_field(k, "src", 8, 2, nx + 2, ny + 2, 1, 0);
    int dst = tk_field(k, "dst", 8, 2, nx + 2, ny + 2, 1, 0);
    tk_access(k, src, 0, 2, "x + 1", "y + 1", NULL);
    tk_access(k, src, 0, 2, "x", "y + 1", NULL);
    tk_access(k, src, 0, 2, "x + 2", "y + 1", NULL);
    tk_access(k, src, 0, 2, "x + 1", "y", NULL);
    tk_access(k, src, 0, 2, "x + 1", "y + 2", NULL);
    tk_access(k, dst, 1, 2, "x + 1", "y + 1", NULL);
    est_kernel_set_compute(k, 20, -1, 1, 32, 0);
    return k;
}

/* 3-D 7-point stencil written with the halo as negative offsets (x-1 at x = 0 reads
 * the margin before element 0), doubles, no flop figure. */
static est_kernel *tk_3d7pt(int64_t nx, int64_t ny, int64_t nz)
{
    est_kernel *k = est_kernel_new();
    int src = tk_field(k, "src", 8, 3, nx, ny, nz, 0);
    int dst = tk_field(k, "dst", 8, 3, nx, ny, nz, 0);
    tk_access(k, src, 0, 3, "x", "y", "z");
    tk_access(k, src, 0, 3, "x - 1", "y", "z");
    tk_access(k, src, 0, 3, "x + 1", "y", "z");
    tk_access(k, src, 0, 3, "x", "y - 1", "z");
    tk_access(k, src, 0, 3, "x", "y + 1", "z");
    tk_access(k, src, 0, 3, "x", "y", "z - 1");
    tk_access(k, src, 0, 3, "x", "y", "z + 1");
    tk_access(k, dst, 1, 3, "x", "y", "z");
    return k;
}

/* Thread variables as pystencils writes them (a linear field addressed with
 * threadIdx/blockIdx/blockDim), a per-thread load from a coefficient table and a
 * per-thread store of a block-level sum, mixed float and double fields. */
static est_kernel *tk_threadvars(int64_t nx, int64_t ny)
{
    est_kernel *k = est_kernel_new();
    int64_t w = nx + 2;
    char ld[160], st[160];
    int u = tk_field(k, "u", 8, 1, w * (ny + 2), 1, 1, 0);
    int coef = tk_field(k, "coef", 4, 1, 64, 1, 1, 0);
    int v = tk_field(k, "v", 4, 2, nx, ny, 1, 0);
    int part = tk_field(k, "partial", 8, 1, 8 * ((nx + 7) / 8) * ny, 1, 1, 8);
    snprintf(ld, sizeof ld, "(threadIdx.x + blockIdx.x*blockDim.x + 1) + (tidy + 1) * %lld",
             (long long)w);
    tk_access(k, u, 0, 1, ld, NULL, NULL);
    snprintf(ld, sizeof ld, "x + 2 + (y + 1) * %lld", (long long)w);
    tk_access(k, u, 0, 1, ld, NULL, NULL);
    tk_access(k, coef, 0, 1, "threadIdx.x % 64", NULL, NULL);
    tk_access(k, v, 1, 2, "x", "y", NULL);
    snprintf(st, sizeof st, "tidx + tidy * gridDim.x * blockDim.x");
    tk_access(k, part, 1, 1, st, NULL, NULL);
    est_kernel_set_compute(k, 0, -1, 1, 32, 0);
    return k;
}

#endif
