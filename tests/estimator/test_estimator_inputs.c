/*
 * test_estimator_inputs.c: the estimator called directly through its C API (as
 * calibrate/, tests/accuracy/ and other programs do, not through protocol/), issue 10:
 *   - est_estimate refuses every class of bad input with an error value naming the
 *     input (zero, negative and huge domains, domains whose point count overflows
 *     int64, block and folding sides of 0, INT_MAX or negative, a kernel without
 *     fields, registers, shared memory and flops out of range, a device with figures
 *     est_device_check refuses, NULL arguments) instead of SIGFPE or undefined
 *     behaviour (UBSan reports both in the test build);
 *   - good inputs pass the invariants est_estimate asserts (assert() is live here:
 *     meson's b_ndebug=if-release), and give the volumes of a 7-point stencil;
 *   - the launch limits have one source: cudagen's cg_config_check and the
 *     estimator's est_launch_check / est_estimate give the same code, path and message
 *     for the same configuration;
 *   - params.def has one EST_MEASURED and one EST_RANKING row, the rows the code outside
 *     the model reaches through est_mparam_sole instead of naming them (issue 42).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cudagen.h"
#include "cudagen/kernels.h"
#include "devices.h"
#include "estimator.h"

static lr_devices *devs;
static const est_device *h100;
static est_ctx *ctx;

/* A 2-D 5-point float stencil over nx x ny (kernels.h has the 3-D one). */
static est_kernel *kernel_2d(void)
{
    return tk_2d5pt(1000, 1000);
}

/* est_estimate of k under cfg on dev must fail with code and path, and the message
 * must contain want (NULL: any). */
static void expect_refused(const char *what, const est_kernel *k, const est_device *dev,
                           est_config cfg, lr_code code, const char *path, const char *want)
{
    est_result r;
    lr_error err;
    lr_error_clear(&err);
    int rc = est_estimate(ctx, k, dev, &cfg, &r, &err);
    CHECK_INT(rc, -1);
    CHECK_STR(lr_code_name(err.code), lr_code_name(code));
    CHECK_STR(err.path, path);
    if (want)
        CHECK_CONTAINS(err.message, want);
    if (rc != -1 || err.code != code)
        fprintf(stderr, "  case: %s (%s)\n", what, err.message);
}

/* est_estimate of k under cfg on dev must succeed with a configuration that cannot
 * launch, for a reason containing want. */
static void expect_unlaunchable(const est_kernel *k, const est_device *dev, est_config cfg,
                                const char *want)
{
    est_result r;
    lr_error err;
    lr_error_clear(&err);
    CHECK_INT(est_estimate(ctx, k, dev, &cfg, &r, &err), 0);
    CHECK_INT(r.launchable, 0);
    CHECK_CONTAINS(r.reason, want);
}

static void bad_domains(const est_kernel *k)
{
    const struct {
        int64_t d[3];
        const char *want;
    } cases[] = {
        {{0, 64, 64}, "x extent is 0; it must be 1 to 2147483647"},
        {{64, 0, 64}, "y extent is 0"},
        {{64, 64, 0}, "z extent is 0"},
        {{-5, 64, 1}, "x extent is -5"},
        {{INT64_MIN, 1, 1}, "x extent is -9223372036854775808"},
        {{(int64_t)1 << 31, 1, 1}, "x extent is 2147483648; it must be 1 to 2147483647"},
        {{INT64_MAX, INT64_MAX, INT64_MAX}, "x extent is 9223372036854775807"},
        /* every side allowed, the product past 2^42 (and past 2^63 as int64) */
        {{2147483647, 2147483647, 2147483647}, "more than 4398046511104 lattice points"},
        {{4194304, 1048577, 1}, "more than 4398046511104 lattice points"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        est_config c =
            tk_config(cases[i].d[0], cases[i].d[1], cases[i].d[2], 32, 4, 1, 1, 1, 1);
        expect_refused("domain", k, h100, c, LR_INVALID_REQUEST, "domain", cases[i].want);
    }
    /* est_grid is public: a ceiling that adds block - 1 to INT64_MAX overflowed */
    int64_t grid[3];
    est_config huge = tk_config(INT64_MAX, 1, 1, 32, 1, 1, 2, 1, 1);
    est_grid(&huge, grid);
    CHECK_INT(grid[0], INT64_MAX / 64 + 1);
    /* 2^42 points exactly is a domain: its checks pass and the grid is what stops it
     * (2^21 / 4 = 524288 blocks in y, beyond 65535), a configuration, not an error */
    est_config c = tk_config((int64_t)1 << 21, (int64_t)1 << 21, 1, 32, 4, 1, 1, 1, 1);
    expect_unlaunchable(k, h100, c, "the grid needs 524288 blocks in y, beyond CUDA's limits");
    est_result r;
    lr_error err;
    lr_error_clear(&err);
    est_estimate(ctx, k, h100, &c, &r, &err);
    CHECK_INT(r.lattice_updates, (int64_t)1 << 42);
}

static void bad_blocks_and_foldings(const est_kernel *k)
{
    const struct {
        int b[3], f[3];
        const char *path, *want;
    } cases[] = {
        {{0, 4, 1}, {1, 1, 1}, "launch.block", "(x: 0 and 1)"},
        {{32, -4, 1}, {1, 1, 1}, "launch.block", "(y: -4 and 1)"},
        {{32, 4, INT_MIN}, {1, 1, 1}, "launch.block", "at least 1"},
        {{32, 4, 1}, {0, 1, 1}, "launch.folding", "(x: 32 and 0)"},
        {{32, 4, 1}, {1, 1, -64}, "launch.folding", "(z: 1 and -64)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int *b = cases[i].b, *f = cases[i].f;
        est_config c = tk_config(1000, 1000, 1, b[0], b[1], b[2], f[0], f[1], f[2]);
        expect_refused("block/folding", k, h100, c, LR_INVALID_REQUEST, cases[i].path,
                       cases[i].want);
    }
    /* Sides too large are not errors but configurations that cannot run, and their
     * products must not overflow on the way (INT_MAX^3 as int is undefined). */
    const struct {
        int b[3], f[3];
        const char *want;
    } big[] = {
        {{INT_MAX, INT_MAX, INT_MAX}, {1, 1, 1}, "at most 1024 x 1024 x 64 threads"},
        {{1024, 1024, 64}, {1, 1, 1}, "67108864 threads per block exceed CUDA's 1024"},
        {{32, 4, 1}, {INT_MAX, INT_MAX, INT_MAX}, "folding 2147483647x2147483647x2147483647"},
        {{32, 4, 1}, {16, 16, 2}, "updates more than 256 points per thread"},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        const int *b = big[i].b, *f = big[i].f;
        est_config c = tk_config(1000, 1000, 1, b[0], b[1], b[2], f[0], f[1], f[2]);
        expect_unlaunchable(k, h100, c, big[i].want);
    }
}

static void bad_kernels(void)
{
    est_config c = tk_config(1000, 1000, 1, 32, 4, 1, 1, 1, 1);
    est_kernel *empty = est_kernel_new();
    expect_refused("no fields", empty, h100, c, LR_INVALID_REQUEST, "kernel.fields",
                   "no fields");
    est_kernel_free(empty);

    est_kernel *k = kernel_2d();
    const struct {
        double flops, fp;
        int regs;
        int64_t shared;
        const char *path, *want;
    } cases[] = {
        {0, -1, 256, 0, "kernel.registers", "256 registers per thread; CUDA allows 0 to 255"},
        {0, -1, -1, 0, "kernel.registers", "-1 registers"},
        {0, -1, INT_MAX, 0, "kernel.registers", "2147483647 registers"},
        {0, -1, 32, -1, "kernel.shared_bytes", "-1 bytes of shared memory"},
        {NAN, -1, 32, 0, "kernel.flops", "finite"},
        {INFINITY, 1, 32, 0, "kernel.flops", "finite"},
        {-1, 1, 32, 0, "kernel.flops", "flops at least 0"},
        {10, NAN, 32, 0, "kernel.flops", "finite"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        est_kernel_set_compute(k, cases[i].flops, cases[i].fp, 0, cases[i].regs,
                               cases[i].shared);
        expect_refused("kernel", k, h100, c, LR_INVALID_REQUEST, cases[i].path, cases[i].want);
    }
    /* shared memory past what an SM has: a configuration that cannot run */
    est_kernel_set_compute(k, 0, -1, 0, 32, (int64_t)1 << 40);
    expect_unlaunchable(k, h100, c, "fits on an SM: it needs 1099511627776 B of shared memory");
    /* issue 43: a block short of registers is refused naming registers with both
     * figures (96 x 1024 = 98,304 of the SM's 65,536), not the SM's shared memory */
    est_config big = tk_config(1024, 1024, 1, 1024, 1, 1, 1, 1, 1);
    est_kernel_set_compute(k, 0, -1, 0, 96, 0);
    expect_unlaunchable(k, h100, big,
                        "no block of 1024 threads fits on an SM: 96 registers per thread "
                        "need 98304 registers per block (per warp in units of 256), the SM "
                        "has 65536");
    /* and the occupancy rule's thresholds: 256-thread blocks hold 8 per SM up to 32
     * registers, 6 from 33 (8 warps x 1280 registers: 65536 / 10240), none from 256 (never
     * here) */
    int none;
    est_kernel_set_compute(k, 0, -1, 0, 32, 0);
    CHECK_INT(est_register_threshold(k, h100, 256, &none), 33);
    CHECK_INT(none, EST_MAX_REGISTERS + 1);
    CHECK_INT(est_register_threshold(k, h100, 1024, &none), 33);
    CHECK_INT(none, 65);
    est_kernel_free(k);
}

static void bad_devices_and_arguments(const est_kernel *k)
{
    est_config c = tk_config(1000, 1000, 1, 32, 4, 1, 1, 1, 1);
    est_device d = *h100;
    d.sm_count = 0; /* wave_blocks 0: a division by zero in the wave's shape */
    expect_refused("sm_count 0", k, &d, c, LR_INVALID_REQUEST, "device.sm_count", "1..4096");
    d = *h100;
    d.dram_bw_gbs = 5e-324; /* its limit would underflow to 0, "no limit" */
    expect_refused("subnormal bandwidth", k, &d, c, LR_INVALID_REQUEST, "device.dram_bw_gbs",
                   NULL);
    d = *h100;
    d.l2_bytes = 0;
    expect_refused("no L2", k, &d, c, LR_INVALID_REQUEST, "device.l2_bytes", NULL);
    d = *h100;
    d.max_threads_per_sm = 0;
    expect_refused("no threads per SM", k, &d, c, LR_INVALID_REQUEST,
                   "device.max_threads_per_sm", NULL);

    est_result r;
    lr_error err;
    lr_error_clear(&err);
    CHECK_INT(est_estimate(ctx, NULL, h100, &c, &r, &err), -1);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    lr_error_clear(&err);
    CHECK_INT(est_estimate(ctx, k, NULL, &c, &r, &err), -1);
    lr_error_clear(&err);
    CHECK_INT(est_estimate(ctx, k, h100, NULL, &r, &err), -1);
    lr_error_clear(&err);
    CHECK_INT(est_estimate(NULL, k, h100, &c, &r, &err), -1);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
}

/* Shared memory is counted as the driver counts it (docs/model.md §2, model 2026.11-23):
 * every block also holds the device's shared_reserved_bytes_per_block (1 KiB on the
 * H100, as cudaDevAttrReservedSharedMemoryPerBlock says there, lab/2026-11-27-knee). 32 KiB
 * blocks of 256 threads: 233472 / (32768 + 1024) = 6.9 -> 6 per SM (7 without the
 * reservation, 8 by threads); a block of 228 KiB - 512 B fits without the reservation
 * and not with it, and the refusal names it. The kernel's shared memory is allocated in
 * units of shared_alloc_bytes (128 B from compute capability 8.0): blocks of 45,670 B run
 * 4 per SM on an H200, not 5 (lab/2026-11-29-lbmocc), the same on the H100's SM. */
static void shared_memory_as_the_driver_counts_it(void)
{
    est_kernel *k = kernel_2d();
    est_config c = tk_config(1000, 1000, 1, 256, 1, 1, 1, 1, 1);
    est_device d = *h100;
    CHECK_INT((int)d.shared_reserved_bytes_per_block, 1024);
    est_kernel_set_compute(k, 0, -1, 0, 32, 32768);
    est_result r;
    lr_error err;
    lr_error_clear(&err);
    CHECK_INT(est_estimate(ctx, k, &d, &c, &r, &err), 0);
    CHECK_INT(r.blocks_per_sm, 6);
    CHECK_INT((int)d.shared_alloc_bytes, 128);
    est_kernel_set_compute(k, 0, -1, 0, 32, 45670);
    CHECK_INT(est_estimate(ctx, k, &d, &c, &r, &err), 0);
    CHECK_INT(r.blocks_per_sm, 4);
    d.shared_alloc_bytes = 0;
    CHECK_INT(est_estimate(ctx, k, &d, &c, &r, &err), 0);
    CHECK_INT(r.blocks_per_sm, 5);
    d.shared_alloc_bytes = 96;
    expect_refused("an allocation unit that is not a power of two", k, &d, c,
                   LR_INVALID_REQUEST, "device.shared_alloc_bytes", "power of two");
    d.shared_alloc_bytes = 128;
    est_kernel_set_compute(k, 0, -1, 0, 32, 32768);
    d.shared_reserved_bytes_per_block = 0;
    CHECK_INT(est_estimate(ctx, k, &d, &c, &r, &err), 0);
    CHECK_INT(r.blocks_per_sm, 7);
    est_kernel_set_compute(k, 0, -1, 0, 32, 233472 - 512);
    CHECK_INT(est_estimate(ctx, k, &d, &c, &r, &err), 0);
    CHECK_INT(r.blocks_per_sm, 1);
    expect_unlaunchable(k, h100, c, "plus the 1024 B the driver reserves; the SM has 233472 B");
    d.shared_reserved_bytes_per_block = -1;
    expect_refused("negative reservation", k, &d, c, LR_INVALID_REQUEST,
                   "device.shared_reserved_bytes_per_block", "0..65536");
    est_kernel_free(k);
}

/* Good inputs: the invariants est_estimate asserts hold (a failed assert aborts this
 * program), and the figures are those of a 7-point double stencil: 8 B/Lup of DRAM
 * load and 8 of store each within 15 % (the halo and the layers a wave re-reads add
 * a little), the L2 load between one and seven loads of 8 bytes. */
static void good_inputs_keep_the_invariants(void)
{
    est_kernel *k = tk_3d7pt(256, 256, 64);
    const int blocks[][3] = {{32, 4, 1}, {128, 2, 1}, {256, 1, 1}, {32, 8, 4}, {1024, 1, 1}};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        est_config c = tk_config(256, 256, 64, blocks[i][0], blocks[i][1], blocks[i][2], 1, 1,
                                 i == 3 ? 2 : 1);
        est_result r;
        lr_error err;
        lr_error_clear(&err);
        CHECK_INT(est_estimate(ctx, k, h100, &c, &r, &err), 0);
        CHECK_INT(r.launchable, 1);
        CHECK(r.blocks_per_sm >= 1);
        CHECK_NEAR(r.field[0].dram_load, 8.0, 0.15, 0);
        CHECK_NEAR(r.field[1].dram_store, 8.0, 0.15, 0);
        CHECK(r.total.l2_load >= 8.0 && r.total.l2_load <= 7 * 8.0);
        CHECK(r.predicted > 0 && isfinite(r.predicted));
    }
    est_kernel_free(k);
}

/* The same configuration through both paths: cudagen's cg_config_check and the
 * estimator's est_launch_check (no device) give the same result, code, path and
 * message; est_estimate on the H100 (1024 threads per block, as CUDA) refuses the
 * invalid ones with the same error and reports the unlaunchable ones with the same
 * message as their reason. Before issue 10 they disagreed: cudagen said
 * invalid_request for a folding past 64 points (the estimator not_launchable), the
 * estimator checked no domain and only the device's thread count, not CUDA's. */
static void one_source_of_launch_limits(void)
{
    est_kernel *k = tk_3d7pt(40, 30, 20);
    const est_config cases[] = {
        tk_config(40, 30, 20, 32, 4, 2, 1, 1, 2),               /* fine */
        tk_config(0, 30, 20, 32, 4, 2, 1, 1, 1),                /* domain x 0 */
        tk_config(40, 30, -1, 32, 4, 2, 1, 1, 1),               /* domain z -1 */
        tk_config((int64_t)1 << 32, 30, 20, 32, 4, 2, 1, 1, 1), /* domain side > 2^31-1 */
        tk_config(40, 30, 20, 0, 4, 2, 1, 1, 1),                /* block x 0 */
        tk_config(40, 30, 20, 32, 4, 2, 1, 0, 1),               /* folding y 0 */
        tk_config(40, 30, 20, 64, 32, 1, 1, 1, 1),              /* 2048 threads */
        tk_config(40, 30, 20, 1, 1, 128, 1, 1, 1),              /* 128 in z */
        tk_config(40, 30, 20, 2048, 1, 1, 1, 1, 1),             /* 2048 in x */
        tk_config(40, 30, 20, 32, 4, 1, 16, 16, 2),             /* folding 512 */
        tk_config(40, 30, 20, 32, 4, 1, 257, 1, 1),             /* folding side 257 */
        tk_config(1 << 20, 1 << 20, 1, 1, 1, 1, 1, 1, 1),       /* grid y past 65535 */
        tk_config(2147483647, 1, 1, 1, 1, 1, 1, 1, 1),          /* grid x 2^31-1: fine */
    };
    int refused = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lr_error cg, est;
        lr_error_clear(&cg);
        lr_error_clear(&est);
        int rc_cg = cg_config_check(k, &cases[i], &cg);
        int rc_est = est_launch_check(k, NULL, &cases[i], &est);
        CHECK_INT(rc_cg, rc_est);
        CHECK_STR(lr_code_name(cg.code), lr_code_name(est.code));
        CHECK_STR(cg.path, est.path);
        CHECK_STR(cg.message, est.message);
        refused += rc_cg != 0;
        /* and est_estimate on a device, for the cheap ones (no 2^31-point domain) */
        if (cases[i].domain[0] * cases[i].domain[1] > ((int64_t)1 << 24) && rc_cg == 0)
            continue;
        est_result r;
        lr_error e;
        lr_error_clear(&e);
        int rc = est_estimate(ctx, k, h100, &cases[i], &r, &e);
        if (rc_cg && cg.code == LR_INVALID_REQUEST) {
            CHECK_INT(rc, -1);
            CHECK_STR(lr_code_name(e.code), "invalid_request");
            CHECK_STR(e.path, cg.path);
            CHECK_STR(e.message, cg.message);
        } else if (rc_cg) {
            CHECK_INT(rc, 0);
            CHECK_INT(r.launchable, 0);
            CHECK_STR(lr_code_name(cg.code), "not_launchable");
            CHECK_STR(r.reason, cg.message);
        } else {
            CHECK_INT(rc, 0);
            CHECK_INT(r.launchable, 1);
        }
    }
    CHECK_INT(refused, 11);
    est_kernel_free(k);

    /* The one difference, on purpose: a folded store in thread variables is no launch
     * limit (CUDA runs it; cudagen writes the thread's sum of its points there) but
     * the model cannot predict it per lattice update (issue 11), so est_estimate
     * alone refuses it. */
    k = tk_threadvars(130, 70);
    est_config c = tk_config(130, 70, 1, 32, 4, 1, 2, 1, 1);
    lr_error e;
    lr_error_clear(&e);
    CHECK_INT(cg_config_check(k, &c, &e), 0);
    CHECK_INT(est_launch_check(k, h100, &c, &e), 0);
    expect_unlaunchable(k, h100, c, "folding 2x1x1 needs stores in x, y, z");
    est_kernel_free(k);
}

static void sole_rows_of_params_def(void)
{
    const est_mparam *measured = est_mparam_sole(EST_MEASURED);
    const est_mparam *ranking = est_mparam_sole(EST_RANKING);
    CHECK(measured && ranking);
    CHECK(!est_mparam_sole(EST_FITTED)); /* many rows: no sole one */
    if (ranking)
        CHECK(est_device_tie_width(h100) == *est_mparam_in((est_device *)h100, ranking));
    CHECK(est_device_tie_width(h100) > 0 && est_device_tie_width(h100) <= 0.5);
}

int main(void)
{
    lr_error err;
    lr_error_clear(&err);
    devs = lr_devices_load(&err);
    h100 = devs ? lr_devices_find(devs, "H100-SXM5-80GB") : NULL;
    ctx = est_ctx_new(0);
    CHECK(h100 && ctx);
    if (!h100 || !ctx)
        return 1;
    est_kernel *k = kernel_2d();
    bad_domains(k);
    bad_blocks_and_foldings(k);
    est_kernel_free(k);
    k = tk_1d(100000);
    bad_devices_and_arguments(k);
    est_kernel_free(k);
    bad_kernels();
    good_inputs_keep_the_invariants();
    shared_memory_as_the_driver_counts_it();
    one_source_of_launch_limits();
    sole_rows_of_params_def();
    est_ctx_free(ctx);
    lr_devices_free(devs);
    return check_report(
        "estimator_refuses_bad_direct_inputs_with_errors_and_shares_launch_limits_"
        "with_cudagen");
}
