/*
 * test_warp_spread.c: the warps' active share of a block (estimator/warp_spread.h;
 * docs/model.md, "Warp spread in deep blocks"), counted by hand on a kernel whose
 * warps' sectors can be listed: a double field read at z-1, z and z+1 and written at z,
 * 256 wide (rows of whole sectors), on an H200 (2048 threads per SM).
 *
 * A block of 32 x 1 x 32 threads has one warp per z row. Each warp requests 3 x 8
 * sectors (3 loads of 32 doubles); the warp at the block's bottom alone loads the plane
 * below it and the one at its top the plane above, 8 sectors each, which no block beside
 * it in x or y loads. With 4 requests per lone sector (params.def) the two face warps
 * work 24 + 32 = 56, the other 30 warps 24: the share is (30 x 24 + 2 x 56) / 32 / 56 =
 * 26/56. Flat, 32 x 32 x 1, every warp alone loads its three rows: all work alike.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "devices.h"
#include "estimator.h"

static est_ctx *ctx;
static const est_device *h200;

/* Field f read (or written) at (x, y, z + dz). */
static void access_z(est_kernel *k, int f, int is_store, const char *z)
{
    const char *text[3] = {"x", "y", z};
    est_expr *idx[3];
    lr_error err;
    lr_error_clear(&err);
    for (int d = 0; d < 3; d++)
        idx[d] = est_expr_parse(text[d], NULL, 0, "test", &err);
    CHECK(idx[0] && idx[1] && idx[2]);
    CHECK_INT(est_kernel_add_access(k, f, is_store, idx, 3, "test", &err) < 0, 0);
}

/* u, n x n x (n + 2) doubles from z = -1, read at z - 1, z and z + 1; v written at z. */
static est_kernel *z_star(int64_t n)
{
    est_kernel *k = est_kernel_new();
    int64_t du[3] = {n, n, n + 2}, dv[3] = {n, n, n};
    lr_error err;
    lr_error_clear(&err);
    int u = est_kernel_add_field(k, "u", 8, 3, du, 8 * n * n, "test", &err);
    int v = est_kernel_add_field(k, "v", 8, 3, dv, 0, "test", &err);
    CHECK(u >= 0 && v >= 0);
    access_z(k, u, 0, "z - 1");
    access_z(k, u, 0, "z");
    access_z(k, u, 0, "z + 1");
    access_z(k, v, 1, "z");
    return k;
}

static est_config config(int64_t nz, int bx, int by, int bz)
{
    est_config c = {{256, 256, nz}, {{bx, by, bz}, {1, 1, 1}, 0}};
    return c;
}

static double share(const est_kernel *k, est_config cfg)
{
    est_result r;
    lr_error err;
    lr_error_clear(&err);
    CHECK_INT(est_estimate(ctx, k, h200, &cfg, &r, &err), 0);
    CHECK_INT(r.launchable, 1);
    return r.warp_active_share;
}

/* The middle block of a 256^3 grid: whole, so the block pass's base block, moved onto
 * it and onto its neighbours, gives the lone sectors. */
static void deep_block_waits_for_its_face_warps(void)
{
    est_kernel *k = z_star(256);
    CHECK_NEAR(share(k, config(256, 32, 1, 32)), 26.0 / 56.0, 1e-12, 0);
    CHECK_NEAR(share(k, config(256, 32, 32, 1)), 1.0, 1e-12, 0);
    est_kernel_free(k);
}

/* 48 deep: the middle block (the second in z) holds 16 z rows, so the spread walks it
 * and its neighbours itself. Its 16 working warps: 14 x 24 and 2 x 56, share 28/56. */
static void cut_middle_block_counts_its_working_warps(void)
{
    est_kernel *k = z_star(256);
    CHECK_NEAR(share(k, config(48, 32, 1, 32)), 0.5, 1e-12, 0);
    est_kernel_free(k);
}

/* Blocks below 40 % of the SM's threads (params.def) and the reference model do not
 * count the spread: the share is 1. */
static void small_blocks_and_warpspeed_count_no_spread(void)
{
    est_kernel *k = z_star(256);
    CHECK_NEAR(share(k, config(256, 32, 1, 16)), 1.0, 0, 0);
    est_kernel_set_model(k, EST_MODEL_WARPSPEED, 0);
    CHECK_NEAR(share(k, config(256, 32, 1, 32)), 1.0, 0, 0);
    est_kernel_free(k);
}

int main(void)
{
    lr_error err;
    lr_error_clear(&err);
    lr_devices *devs = lr_devices_load(&err);
    h200 = devs ? lr_devices_find(devs, "H200-SXM-141GB") : NULL;
    ctx = est_ctx_new(0);
    if (!h200 || !ctx) {
        fprintf(stderr, "no H200 or no context: %s\n", err.message);
        return 1;
    }
    deep_block_waits_for_its_face_warps();
    cut_middle_block_counts_its_working_warps();
    small_blocks_and_warpspeed_count_no_spread();
    est_ctx_free(ctx);
    lr_devices_free(devs);
    return check_report("test_warp_spread");
}
