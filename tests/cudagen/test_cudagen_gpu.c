/*
 * test_cudagen_gpu: generated kernels on a real GPU (cudagen/cudagen.h).
 *
 * Differential runs: each kernel of kernels.h, under several launch shapes (folding
 * in every dimension, partial blocks everywhere), runs once on the GPU and every
 * stored element is compared with the CPU evaluation of its description
 * (cg_check). Then the 3-D 7-point stencil on 256^3 doubles is timed (cg_measure)
 * and its GLup/s printed, for comparison with tests/cudagen/handwritten_7pt.cu; and a
 * 1-D kernel that declares shared memory is timed holding it: with all the SM's
 * shared memory per 256-thread block (one block per SM) it must run at less than 60 %
 * of the same kernel without (lab/2026-11-27-knee: a third on the H100 and the H200).
 *
 * Exit 77 with "no GPU: skipping" when there is no driver or no GPU (CI).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cudagen_int.h"
#include "kernels.h"

typedef struct gpu_case {
    const char *name;
    est_kernel *k;
    est_config cfg;
} gpu_case;

static void check_case(const gpu_case *c)
{
    lr_error err;
    double rel = -1;
    int rc;

    lr_error_clear(&err);
    rc = cg_check(c->k, &c->cfg, &rel, &err);
    printf("check %-34s domain %4lld x %3lld x %3lld block (%3d,%2d,%2d) folding (%d,%d,%d): "
           "max relative error %.3g%s%s\n",
           c->name, (long long)c->cfg.domain[0], (long long)c->cfg.domain[1],
           (long long)c->cfg.domain[2], c->cfg.launch.block[0], c->cfg.launch.block[1],
           c->cfg.launch.block[2], c->cfg.launch.folding[0], c->cfg.launch.folding[1],
           c->cfg.launch.folding[2], rel, rc ? ": " : "", rc ? err.message : "");
    CHECK_INT(rc, 0);
    CHECK(rel >= 0);
}

/* Times k under cfg and prints it; returns its GLup/s (0 on failure). */
static double measure_case(const char *name, est_kernel *k, est_config cfg)
{
    cg_measurement m;
    lr_error err;
    int rc;

    lr_error_clear(&err);
    rc = cg_measure(k, &cfg, NULL, &m, &err);
    if (rc < 0)
        fprintf(stderr, "measure %s: %s\n", name, err.message);
    CHECK_INT(rc, 0);
    if (rc == 0) {
        printf("measure %-20s domain %lld x %lld x %lld block (%d,%d,%d) folding (%d,%d,%d): "
               "%.4f / %.4f / %.4f ms (min / median / max), %.1f GLup/s\n",
               name, (long long)cfg.domain[0], (long long)cfg.domain[1],
               (long long)cfg.domain[2], cfg.launch.block[0], cfg.launch.block[1],
               cfg.launch.block[2], cfg.launch.folding[0], cfg.launch.folding[1],
               cfg.launch.folding[2], m.ms_min, m.ms_median, m.ms_max, m.glups);
        CHECK(m.ms_min > 0 && m.ms_min <= m.ms_median && m.ms_median <= m.ms_max);
        CHECK(m.glups > 0);
    }
    return rc == 0 ? m.glups : 0;
}

int main(void)
{
    const cg_backend *b = cg_backend_cuda();
    cg_gpu_info info;
    lr_error err;
    void *s;

    lr_error_clear(&err);
    if (!(s = b->open(b, 0, &info, &err))) {
        printf("no GPU: skipping (%s)\n", err.message);
        return 77;
    }
    b->close(s);
    printf("GPU: %s, compute capability %d.%d, driver %d\n", info.name, info.cc_major,
           info.cc_minor, info.driver_version);

    {
        gpu_case cases[] = {
            {"1-D float, (x+1)/2, chain", tk_1d(10000),
             tk_config(10000, 1, 1, 128, 1, 1, 2, 1, 1)},
            {"1-D float, no folding", tk_1d(9999), tk_config(9999, 1, 1, 96, 1, 1, 1, 1, 1)},
            {"2-D 5-point, chain", tk_2d5pt(130, 70), tk_config(130, 70, 1, 32, 4, 1, 1, 1, 1)},
            {"2-D 5-point, folded x and y", tk_2d5pt(131, 71),
             tk_config(131, 71, 1, 16, 8, 1, 3, 2, 1)},
            {"3-D 7-point, folded z", tk_3d7pt(40, 30, 20),
             tk_config(40, 30, 20, 32, 4, 2, 1, 1, 2)},
            {"3-D 7-point, folded x y z", tk_3d7pt(41, 29, 19),
             tk_config(41, 29, 19, 16, 4, 4, 2, 1, 3)},
            {"thread variables, folded x", tk_threadvars(130, 70),
             tk_config(130, 70, 1, 32, 4, 1, 2, 1, 1)},
            {"thread variables, no folding", tk_threadvars(77, 33),
             tk_config(77, 33, 1, 64, 2, 1, 1, 1, 1)},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            check_case(&cases[i]);
            est_kernel_free(cases[i].k);
        }
    }

    {
        est_kernel *k = tk_3d7pt(256, 256, 256);
        measure_case("3-D 7-point double", k, tk_config(256, 256, 256, 128, 2, 1, 1, 1, 1));
        measure_case("3-D 7-point double", k, tk_config(256, 256, 256, 32, 8, 1, 1, 1, 1));
        measure_case("3-D 7-point double", k, tk_config(256, 256, 256, 256, 1, 1, 1, 1, 2));
        measure_case("3-D 7-point double", k, tk_config(256, 256, 256, 64, 4, 1, 1, 2, 1));
        est_kernel_free(k);
        k = tk_1d(1 << 26);
        est_config c1 = tk_config(1 << 26, 1, 1, 256, 1, 1, 1, 1, 1);
        double plain = measure_case("1-D float", k, c1);
        /* one block per SM: all the shared memory the driver lets a block have */
        int64_t one = info.shared_bytes_per_sm - info.shared_reserved_bytes_per_block;
        est_kernel_set_compute(k, 0, -1, 0, 32, one);
        char name[64];
        snprintf(name, sizeof name, "1-D float, %lld B shared", (long long)one);
        double held = measure_case(name, k, c1);
        CHECK(held > 0 && held < 0.6 * plain);
        est_kernel_free(k);
    }
    return check_report("test_cudagen_gpu");
}
