/*
 * test_published: relations that the seed papers publish between measured launch
 * configurations, held with the default model and the built-in devices (issue 44,
 * item 3). Only the relations that hold are here; those that do not, and the figure
 * by which each misses, are in docs/accuracy.md ("The published relations").
 *
 * The first kernel is Ernst et al. 2023's 3-D 25-point star of range 4 in double on
 * 640 x 512 x 512 (seed 001, Sect. 5.8; fields laid out as tests/data/ref3_3d25pt_a100.json),
 * over their search space: blocks of 1024 threads with bx, by powers of two and
 * bz <= 64 (56 blocks), each unfolded, folded 2 in y and folded 2 in z. The second is Su
 * et al. 2015's 7-point star on the K20m (seed 004; tests/data/su_k20_7pt.json, docs/k20.md).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "check.h"

/* The published relations hold to within this share (issue 44: 10 %). */
#define PUBLISHED_TOL 0.10

static lr_worker *worker;
static const char *datadir;

/* tests/data/NAME parsed (caller frees), or NULL with the reason on stderr. */
static cJSON *read_data(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", datadir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cJSON *doc = cJSON_Parse(buf);
    if (!doc)
        fprintf(stderr, "%s: not JSON\n", path);
    return doc;
}

/* Sends req (owned: deleted here) as a rank request when rank, else as an estimate: the
 * response (caller frees), or NULL with the error on stderr. */
static cJSON *post(cJSON *req, int rank)
{
    char *body = req ? cJSON_PrintUnformatted(req) : NULL;
    cJSON_Delete(req);
    lr_error err;
    lr_error_clear(&err);
    char *out = !body ? NULL
                : rank ? lr_api_rank(worker, body, strlen(body), NULL, NULL, &err)
                       : lr_api_estimate(worker, body, strlen(body), &err);
    free(body);
    if (!out) {
        fprintf(stderr, "%s failed: %s (%s)\n", rank ? "rank" : "estimate", err.message,
                err.path);
        return NULL;
    }
    cJSON *r = cJSON_Parse(out);
    free(out);
    return r;
}

/* The Ernst et al. ranking of tests/data/ref3_3d25pt_a100.json's kernel on device
 * (model v2, the default), with extra (a JSON array of blocks, may be "") added to the
 * paper's 56 blocks. The rank response (caller frees), or NULL. */
static cJSON *ernst_ranking(const char *device, const char *extra)
{
    cJSON *req = read_data("ref3_3d25pt_a100.json");
    if (!req)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(req, "model"); /* the file's is warpspeed */
    cJSON_DeleteItemFromObjectCaseSensitive(req, "launch");
    cJSON_ReplaceItemInObjectCaseSensitive(req, "device", cJSON_CreateString(device));
    char blocks[4096] = "[";
    for (int a = 0; a <= 10; a++)
        for (int b = 0; a + b <= 10; b++)
            if (10 - a - b <= 6)
                snprintf(blocks + strlen(blocks), sizeof blocks - strlen(blocks),
                         "%s[%d,%d,%d]", strlen(blocks) > 1 ? "," : "", 1 << a, 1 << b,
                         1 << (10 - a - b));
    snprintf(blocks + strlen(blocks), sizeof blocks - strlen(blocks), "%s%s]",
             extra[0] ? "," : "", extra);
    char search[4400];
    snprintf(search, sizeof search, "{\"blocks\":%s,\"foldings\":[[1,1,1],[1,2,1],[1,1,2]]}",
             blocks);
    cJSON_AddItemToObject(req, "search", cJSON_Parse(search));
    return post(req, 1);
}

static int same3(const cJSON *a, int x, int y, int z)
{
    return cJSON_GetArraySize(a) == 3 && cJSON_GetArrayItem(a, 0)->valueint == x &&
           cJSON_GetArrayItem(a, 1)->valueint == y && cJSON_GetArrayItem(a, 2)->valueint == z;
}

/* The predicted GLup/s of block b folded f in ranking r, or -1 when it is not there. */
static double predicted(const cJSON *r, const int b[3], const int f[3])
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "results"))
    {
        if (same3(cJSON_GetObjectItemCaseSensitive(c, "block"), b[0], b[1], b[2]) &&
            same3(cJSON_GetObjectItemCaseSensitive(c, "folding"), f[0], f[1], f[2]))
            return cJSON_GetObjectItemCaseSensitive(
                       cJSON_GetObjectItemCaseSensitive(c, "performance"), "predicted")
                ->valuedouble;
    }
    return -1;
}

/* Whether block b (any folding) is in ranking r's tie group (decision.tie_group). */
static int block_tied(const cJSON *r, int x, int y, int z)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(r, "decision"), "tie_group"))
    {
        if (same3(cJSON_GetObjectItemCaseSensitive(c, "block"), x, y, z))
            return 1;
    }
    return 0;
}

/* Ernst et al. Sect. 5.8 on the A100-SXM4-40GB: (64,4,4) folded 2 in z is the fastest
 * measured configuration, at 53 GLup/s; the paper's predicted best, (16,2,32) folded 2 in z,
 * runs at 50.7, and the paper calls such blocks L2-bound. Model 2026.11-26 with the A100's
 * derived L2 rates (its sources: gpu-benches' L2 bandwidths): 54.3 and 52.6 (with the H100's
 * rates 54.7 and 64.7, +27.5 %); 53.8 and 49.7 since the warp spread of deep blocks. */
static void a100_published_timings_are_predicted_within_ten_percent(void)
{
    cJSON *r = ernst_ranking("A100-SXM4-40GB", "");
    CHECK(r != NULL);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "results")), 168);
    static const int fastest[3] = {64, 4, 4}, pick[3] = {16, 2, 32}, z2[3] = {1, 1, 2};
    CHECK_NEAR(predicted(r, fastest, z2), 53.0, PUBLISHED_TOL, 0);
    CHECK_NEAR(predicted(r, pick, z2), 50.7, PUBLISHED_TOL, 0);
    cJSON_Delete(r);
}

/* lab/2026-11-29-ernst/deepflat on the H200: the flat (64,16,1) folded 2 in z runs at
 * 140.8 GLup/s, the deep (16,8,8) at 124.4, with 79 and 68 % of the warps active. Model
 * 2026.11-29 predicted the deep block above the flat one (138.1 against 133.4); the
 * spread of the warps' private misses (docs/model.md, "Warp spread in deep blocks")
 * leaves the flat block as it was (every warp reads its own z halo) and lowers the deep
 * one, whose z-face warps alone read theirs, below it (133.388 and 131.267; 134.971 and
 * 132.326 with the H200's own L1 capacity-miss curve, docs/model.md §6, and model
 * 2026.11-37's wavefronts). */
static void h200_deep_block_waits_for_its_slowest_warp(void)
{
    cJSON *r = ernst_ranking("H200-SXM-141GB", "");
    CHECK(r != NULL);
    static const int flat[3] = {64, 16, 1}, deep[3] = {16, 8, 8}, z2[3] = {1, 1, 2};
    double f = predicted(r, flat, z2), d = predicted(r, deep, z2);
    CHECK_NEAR(f, 134.971, 0.001, 0);
    CHECK_NEAR(d, 132.326, 0.001, 0);
    CHECK(d < f);
    cJSON_Delete(r);
}

/* Ernst et al. Sect. 5.8, measured on the V100 (the GPU of Sai et al.'s comparison):
 * (16,2,32) runs 36 % faster than (8,8,8), both unfolded. Predicted 1.363 (model
 * 2026.11-25), 1.342 (2026.11-31), 1.322 with the V100's DRAM limit at its scale rate, 1.311 with its reloads
 * within a wave (2026.11-33), 1.225 with its L2 rates derived from gpu-benches and its L1 share
 * fitted on Ernst's V100 timings (2026.11-34): (16,2,32) then within 1 % of the 25.86 GLup/s
 * those timings give it, (8,8,8) as fast as the model puts that GPU's 8-wide blocks, 7-14 %
 * above their timings with the H100's L1 share. */
static void v100_deep_block_over_the_cube_is_the_measured_ratio(void)
{
    cJSON *r = ernst_ranking("V100-PCIe-32GB", "[8,8,8]");
    CHECK(r != NULL);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "results")), 171);
    static const int deep[3] = {16, 2, 32}, cube[3] = {8, 8, 8}, one[3] = {1, 1, 1};
    double d = predicted(r, deep, one), c = predicted(r, cube, one);
    CHECK(d > 0 && c > 0);
    CHECK_NEAR(d / c, 1.36, PUBLISHED_TOL, 0);
    cJSON_Delete(r);
}

/* Ernst et al. Sect. 5.8: "The original version of this paper ([4]) found the thread block
 * size (32, 2, 16) to be the optimal thread block size on the V100". The paper names a
 * block, not a folding, in a search space that folds; the block at its best folding must be
 * in the tie group (folded 2 in z, 4th, 4.5 % below the best; unfolded it is 14th, 14.9 %
 * below: docs/accuracy.md, "The published relations"). */
static void v100_published_best_block_is_in_the_tie_group(void)
{
    cJSON *r = ernst_ranking("V100-PCIe-32GB", "");
    CHECK(r != NULL);
    CHECK(block_tied(r, 32, 2, 16));
    cJSON_Delete(r);
}

/* The default model's estimate of Su et al.'s 7PT-1 (tests/data/su_k20_7pt.json) on n^3
 * (pitch the next multiple of 16 elements above n + 2, as the file's 272 for 256), block
 * (32,4,1), each thread chunk points in z (folding (1,1,chunk)), with kernel.registers
 * when registers > 0. The response (caller frees), or NULL. */
static cJSON *k20_estimate(int n, int chunk, int registers)
{
    cJSON *req = read_data("su_k20_7pt.json");
    if (!req)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(req, "model"); /* the file's is warpspeed */
    char text[128];
    snprintf(text, sizeof text, "{\"block\":[32,4,1],\"folding\":[1,1,%d]}", chunk);
    cJSON_ReplaceItemInObjectCaseSensitive(req, "launch", cJSON_Parse(text));
    snprintf(text, sizeof text, "[%d,%d,%d]", n, n, n);
    cJSON_ReplaceItemInObjectCaseSensitive(req, "domain", cJSON_Parse(text));
    snprintf(text, sizeof text, "[%d,%d,%d]", (n + 2 + 15) / 16 * 16, n + 2, n + 2);
    const cJSON *fd;
    cJSON_ArrayForEach(fd, cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(req, "kernel"), "fields"))
        cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)fd, "dims", cJSON_Parse(text));
    if (registers > 0)
        cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(req, "kernel"), "registers",
                                registers);
    return post(req, 0);
}

/* estimate.key of response r, or -1. */
static double estimate_num(const cJSON *r, const char *key)
{
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "estimate"), key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Su et al. 2015's model (seed 004, Eqs. 5-17; the baseline when chunk is 0) of 7PT-1 on
 * the K20 at n^3, block (32,4,1), delta = epsilon = 0.01, and eta = 0.01 (Eq. 17's third
 * constant, whose value the paper does not print: taken as the other two), in B/Lup:
 * v[0] = V_L2, v[1] = V_GM. Their per-size figures are only the model's average error
 * against nvprof (Tables 3 and 4: 3-9 % for 7PT-1), so the model is the reference. As
 * their Table 2: the x halo costs a 256-B line per row (row 16), 16 blocks of 128
 * threads per SMX, 208 per group. Where a group spans whole layers (64^3, 128^3) width_y
 * is capped at the domain's n, and a z-blocked block covers chunk layers (Eq. 14's Bz
 * times chunk_z), capped at n. */
static void su_model(int n, int chunk, double v[2])
{
    const double bx = 32, by = 4, bz = 1, halo = 2, line = 256.0 / 8, tpb = 128, rodc = 6144;
    double c = chunk ? chunk : 1, lups = (double)n * n * n;
    double blocks = lups / c / tpb, per_group = 16 * 13;
    double net, miss;
    if (!chunk) { /* Eqs. 6 and 8 */
        net = bx * by * bz + (bx * bz + bx * by) * halo + line * by * bz * 2;
        miss = 2048 * net / (tpb * rodc) * 0.01;
    } else { /* Eqs. 16 and 17 */
        net = bx * by * bz * c + (bx * bz * c + bx * by) * halo + line * by * bz * c * 2;
        miss = 2048 * net / (tpb * rodc) * (1 + halo) / (c + halo) * 0.01 +
               log2(c * (tpb / 32) / (192.0 / 32)) * 0.01;
    }
    v[0] = blocks * (net * (1 + miss) + tpb * c) * 8 / lups; /* Eqs. 5, 7 */
    double wy = by * ceil(per_group * bx / n),
           hz = bz * c * ceil(per_group / (n * n / (bx * by)));
    wy = (wy < n ? wy : n) + halo;
    hz = (hz < n ? hz : n) + halo;
    double gm_net = (n + 32.0 / 8 * 2) * wy * hz;                            /* Eqs. 12-14 */
    double gm = gm_net * (1 + gm_net * 8 / 1310720 * 0.01);                  /* Eqs. 11, 15 */
    v[1] = ceil(blocks / per_group) * (gm + per_group * tpb * c) * 8 / lups; /* Eqs. 9, 10 */
}

/* Su et al. 2015 (seed 004), 7PT-1 on the K20m, block (32,4,1), at their four sizes:
 * L2 -> read-only cache (V_L2) and DRAM (V_GM) volumes within 10 % of their model. The
 * read-only cache is four 12-KB texture L1s (Mei et al. 2014, seed 002, measure 12 KB
 * from one thread on a GK110), each filled with the footprint of the warps of one
 * scheduler: 42 B/Lup of loads + 8 of stores (docs/model.md, "Kepler (K20m)"), where the
 * block's footprint is 30 + 8 and Su's Table 2 (844 MiB of L2, 534 of DRAM at 256^3, 5.9 %
 * and 3.2 % from nvprof) is 52.8 and 33.4. At 64^3 and 128^3 a wave of 208 blocks spans
 * 6.5 and 1.625 layers: its footprint is that of its whole layers and the share of the
 * next (docs/model.md, "A wave of whole layers and a part"), where Su's Eq. 14 takes
 * the ceiling of the layers (128^3: -8.8 %; with the box of 2 whole layers -15.5 %). */
static void k20_l2_and_dram_volumes_are_su_et_al_s_at_each_size(void)
{
    double su[2];
    su_model(256, 0, su); /* the test's equations are Table 2's */
    CHECK_NEAR(su[0] * 256 * 256 * 256 / (1 << 20), 844, 0.002, 0);
    CHECK_NEAR(su[1] * 256 * 256 * 256 / (1 << 20), 534, 0.002, 0);
    for (int n = 64; n <= 512; n *= 2) {
        cJSON *r = k20_estimate(n, 1, 0);
        CHECK(r != NULL);
        su_model(n, 0, su);
        double l2 = estimate_num(r, "l2_load") + estimate_num(r, "l2_store");
        double gm = estimate_num(r, "dram_load") + estimate_num(r, "dram_store");
        CHECK_NEAR(l2, su[0], PUBLISHED_TOL, 0);
        CHECK_NEAR(gm, su[1], PUBLISHED_TOL, 0);
        if (n == 256) { /* against the printed MiB */
            CHECK_NEAR(l2 * 256 * 256 * 256 / (1 << 20), 844, PUBLISHED_TOL, 0);
            CHECK_NEAR(gm * 256 * 256 * 256 / (1 << 20), 534, PUBLISHED_TOL, 0);
        }
        cJSON_Delete(r);
    }
}

/* Su et al. 2015 (seed 004) Sect. 3.5, the same kernel z-blocked: a thread computing
 * chunk_z points keeps the z column in registers, so registers <-> read-only cache
 * traffic is (8 + 2/chunk_z) * 8 = 64 + 16/chunk_z B/Lup, and their V_SMX matches the
 * profiler exactly (Sect. 4): model v2's register reuse across folding steps gives it for
 * every chunk_z of theirs (2^0 to 2^8, folding (1,1,chunk_z)). V_L2 is within 10 % of their
 * Eqs. 16-17 for every chunk_z at all four sizes (the K20m's miss_l1 curve is fitted on
 * them at 256^3: estimator/devices/K20m.json), V_GM of Eqs. 9-15 where a group lies within
 * one layer (256^3 and 512^3), the K20m's reloads within a wave being their Eq. 15
 * (wave_reload_share = epsilon). Not at 256^3 and chunk_z 256 (-18 %): Su's Eq. 10 charges
 * 3 groups for the 512 blocks' 2.46, the stores of 112 blocks the launch does not have
 * included; the same 20.1 B/Lup is held (1 %) against Eq. 9 with 2.46 groups. */
static void k20_z_blocked_volumes_are_su_et_al_s(void)
{
    for (int chunk = 1; chunk <= 256; chunk *= 2) {
        cJSON *r = k20_estimate(256, chunk, 0);
        CHECK(r != NULL);
        CHECK_NEAR(estimate_num(r, "smx_load"), 64.0 + 16.0 / chunk, 0.001, 0);
        cJSON_Delete(r);
    }
    for (int n = 64; n <= 512; n *= 2)
        for (int chunk = 1; chunk <= 256; chunk *= 2) {
            cJSON *r = k20_estimate(n, chunk, 0);
            CHECK(r != NULL);
            double su[2];
            su_model(n, chunk, su);
            double gm = estimate_num(r, "dram_load") + estimate_num(r, "dram_store");
            CHECK_NEAR(estimate_num(r, "l2_load") + estimate_num(r, "l2_store"), su[0],
                       PUBLISHED_TOL, 0);
            if (n >= 256 && !(n == 256 && chunk == 256))
                CHECK_NEAR(gm, su[1], PUBLISHED_TOL, 0);
            else if (n == 256) /* Eq. 9 with the 512 blocks' 2.46 groups, not 3 */
                CHECK_NEAR(gm, su[1] * (512.0 / 208) / 3, 0.01, 0);
            cJSON_Delete(r);
        }
}

/* performance.key of response r, or -1. */
static double performance_num(const cJSON *r, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r, "performance"), key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Su et al. 2015 (seed 004) Eq. 18 divides the predicted time by the occupancy efficiency
 * (current over maximal occupancy). Model v2's counterpart is its latency limit, Little's
 * law over the SM's active threads (docs/model.md "Latency and occupancy"): 64 registers
 * per thread halve the K20m's blocks per SMX for 7PT-1 at 256^3, block (32,4,1) (16 -> 8),
 * and the limit halves, Su's factor 1 / 0.5 (within 1 %). The prediction moves by 0.3 %
 * only (5.307 -> 5.291 GLup/s): the kernel is DRAM-bound and v2 takes a smooth minimum of
 * its limits where Eq. 18 multiplies. Eq. 18's other factor, 1 + 1/#groups (1.0016 here),
 * has no counterpart: v2's limits are rates over the launch, and the last wave's few
 * blocks keep its binding limit (docs/k20.md, "Eq. 18"). */
static void k20_occupancy_scales_the_latency_limit_as_su_et_al_s_eq_18(void)
{
    cJSON *full = k20_estimate(256, 1, 32), *half = k20_estimate(256, 1, 64);
    CHECK(full != NULL && half != NULL);
    const cJSON *bf = cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(full, "launch"), "blocks_per_sm"),
                *bh = cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(half, "launch"), "blocks_per_sm");
    CHECK(cJSON_IsNumber(bf) && cJSON_IsNumber(bh));
    if (cJSON_IsNumber(bf) && cJSON_IsNumber(bh)) {
        CHECK_INT(bf->valueint, 16);
        CHECK_INT(bh->valueint, 8);
    }
    CHECK_NEAR(performance_num(full, "latency") / performance_num(half, "latency"), 1 / 0.5,
               0.01, 0);
    CHECK_NEAR(performance_num(full, "predicted") / performance_num(half, "predicted"), 1.003,
               0.003, 0);
    cJSON_Delete(full);
    cJSON_Delete(half);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Ernst's own V100 volumes of a 13-point double star folded 1, 2 and 4 in z
 * (tests/data/published/v100_13pt_volumes.json: te42kyfo/warpspeed's blocking_test
 * notebook, 2021; 18 configurations). Model 2026.11-32's built-in V100: DRAM loads within a
 * median 7.3 % (6.5 % under 2026.11-33, the V100's reloads within a wave fitted on the
 * other published V100 set; unfolded 1.9-7.4 %; folded 4 in z 7-42 % low: a wave of the 4-wide
 * blocks spans 6.5 MB against the 6 MiB L2, 28.0-28.1 B measured against 16.3-16.9), L2
 * loads within a median 4.9 % (folded 2 in z, 4-wide blocks 16-19 % low). Both medians are
 * held to 10 %. */
static void v100_volumes_are_ernst_s_published_ones(void)
{
    cJSON *doc = read_data("published/v100_13pt_volumes.json");
    CHECK(doc != NULL);
    if (!doc)
        return;
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(doc, "request"), *m;
    double dram[32], l2[32];
    int n = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(doc, "measured"))
    {
        if (n == 32)
            break;
        cJSON *q = cJSON_Duplicate(req, 1), *launch = cJSON_CreateObject();
        cJSON_AddItemToObject(launch, "block",
                              cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(m, "block"), 1));
        cJSON_AddItemToObject(launch, "folding",
                              cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(m, "folding"), 1));
        cJSON_AddItemToObject(q, "launch", launch);
        cJSON *r = post(q, 0);
        CHECK(r != NULL);
        if (!r)
            continue;
        double md = cJSON_GetObjectItemCaseSensitive(m, "dram_load")->valuedouble;
        double ml = cJSON_GetObjectItemCaseSensitive(m, "l2_load")->valuedouble;
        dram[n] = fabs(estimate_num(r, "dram_load") / md - 1);
        l2[n++] = fabs(estimate_num(r, "l2_load") / ml - 1);
        cJSON_Delete(r);
    }
    cJSON_Delete(doc);
    CHECK_INT(n, 18);
    qsort(dram, (size_t)n, sizeof *dram, cmp_double);
    qsort(l2, (size_t)n, sizeof *l2, cmp_double);
    printf("V100 13-point star, published volumes: median |error| DRAM %.1f %%, L2 %.1f %%\n",
           100 * dram[n / 2], 100 * l2[n / 2]);
    CHECK(dram[n / 2] <= PUBLISHED_TOL);
    CHECK(l2[n / 2] <= PUBLISHED_TOL);
}

int main(int argc, char **argv)
{
    datadir = argc > 1 ? argv[1] : "tests/data";
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 0};
    lr_api *api = lr_api_new(&cfg, &err);
    worker = api ? lr_worker_new(api, &err) : NULL;
    if (!worker) {
        fprintf(stderr, "cannot start: %s\n", err.message);
        return 1;
    }
    a100_published_timings_are_predicted_within_ten_percent();
    h200_deep_block_waits_for_its_slowest_warp();
    v100_deep_block_over_the_cube_is_the_measured_ratio();
    v100_published_best_block_is_in_the_tie_group();
    v100_volumes_are_ernst_s_published_ones();
    k20_l2_and_dram_volumes_are_su_et_al_s_at_each_size();
    k20_z_blocked_volumes_are_su_et_al_s();
    k20_occupancy_scales_the_latency_limit_as_su_et_al_s_eq_18();
    lr_worker_free(worker);
    lr_api_free(api);
    return check_report("test_published");
}
