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
 *
 * The same count holds for a radius-2 star folded 192 in x (a thread updates 192
 * consecutive points of its row, so a warp's load instruction spans 32 sectors): every
 * warp requests 5 x 192 x 32 sectors, the bottom warp alone loads the row two planes
 * below the block, the top one two above, 192 x 8 sectors each (the planes one away are
 * shared with the warp beside them). Its 960 load instructions on 1024 threads are
 * within the block pass's address limit, five blocks of them are not.
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

/* u, nx x 3 x (nz + 4) doubles from z = -2, read at z - 2 .. z + 2; v written at z. */
static est_kernel *z_star2(int64_t nx, int64_t nz)
{
    est_kernel *k = est_kernel_new();
    int64_t du[3] = {nx, 3, nz + 4}, dv[3] = {nx, 3, nz};
    lr_error err;
    lr_error_clear(&err);
    int u = est_kernel_add_field(k, "u", 8, 3, du, 16 * nx * 3, "test", &err);
    int v = est_kernel_add_field(k, "v", 8, 3, dv, 0, "test", &err);
    CHECK(u >= 0 && v >= 0);
    const char *dz[] = {"z - 2", "z - 1", "z", "z + 1", "z + 2"};
    for (int i = 0; i < 5; i++)
        access_z(k, u, 0, dz[i]);
    access_z(k, v, 1, "z");
    return k;
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

/* Three blocks of 32 x 1 x 32 threads folded 192 in x, 3 in y: the middle block of a
 * 96 deep grid is whole (the block pass's base block gives its lone sectors), that of a
 * 48 deep one holds 16 z rows, and the spread walks it and its four neighbours, whose
 * addresses together exceed the block limit, one block at a time. In units of 192
 * sectors, whole: 30 warps work 160 and 2 work 160 + 4 x 8 = 192, share 5184/6144 =
 * 27/32; cut: 14 x 160 and 2 x 192, 2624/3072 = 41/48. */
static void folded_block_counts_every_lone_sector(void)
{
    int64_t nx = 3 * 32 * 192;
    for (int cut = 0; cut < 2; cut++) {
        est_kernel *k = z_star2(nx, cut ? 48 : 96);
        est_config c = {{nx, 3, cut ? 48 : 96}, {{32, 1, 32}, {192, 1, 1}, 0}};
        CHECK_NEAR(share(k, c), cut ? 41.0 / 48.0 : 27.0 / 32.0, 1e-12, 0);
        est_kernel_free(k);
    }
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
    folded_block_counts_every_lone_sector();
    small_blocks_and_warpspeed_count_no_spread();
    est_ctx_free(ctx);
    lr_devices_free(devs);
    return check_report("test_warp_spread");
}
