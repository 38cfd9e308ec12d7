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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "check.h"

/* The published relations hold to within this share (issue 44: 10 %). */
#define PUBLISHED_TOL 0.10

static lr_worker *worker;
static const char *datadir;

/* The Ernst et al. ranking of tests/data/ref3_3d25pt_a100.json's kernel on device
 * (model v2, the default), with extra (a JSON array of blocks, may be "") added to the
 * paper's 56 blocks. The rank response (caller frees), or NULL. */
static cJSON *ernst_ranking(const char *device, const char *extra)
{
    char path[512];
    snprintf(path, sizeof path, "%s/ref3_3d25pt_a100.json", datadir);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cJSON *req = cJSON_Parse(buf);
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
    char *body = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    lr_error err;
    lr_error_clear(&err);
    char *out = body ? lr_api_rank(worker, body, strlen(body), NULL, NULL, &err) : NULL;
    free(body);
    if (!out) {
        fprintf(stderr, "rank failed: %s (%s)\n", err.message, err.path);
        return NULL;
    }
    cJSON *r = cJSON_Parse(out);
    free(out);
    return r;
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
 * rates 54.7 and 64.7, +27.5 %). */
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

/* Ernst et al. Sect. 5.8, measured on the V100 (the GPU of Sai et al.'s comparison):
 * (16,2,32) runs 36 % faster than (8,8,8), both unfolded. Predicted 1.363 (model
 * 2026.11-25). */
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
 * in the tie group (model 2026.11-26: folded 2 in z, 3rd, 1.4 % below the best; unfolded it
 * is 24th, 20.7 % below: docs/accuracy.md, "The published relations"). */
static void v100_published_best_block_is_in_the_tie_group(void)
{
    cJSON *r = ernst_ranking("V100-PCIe-32GB", "");
    CHECK(r != NULL);
    CHECK(block_tied(r, 32, 2, 16));
    cJSON_Delete(r);
}

/* Su et al. 2015 (seed 004) Sect. 3.5, 7PT-1 on the K20m, block (32,4,1), z-blocked: a
 * thread computing chunk_z points keeps the z column in registers, so registers <-> read-only
 * cache traffic is (8 + 2/chunk_z) * 8 = 64 + 16/chunk_z B/Lup, and their V_SMX matches the
 * profiler exactly (Sect. 4). Model v2's register reuse across folding steps gives the same
 * for every chunk_z launchrank accepts (1 to 64; their 128 and 256 exceed EST_MAX_FOLDING). */
static void k20_z_blocked_read_only_cache_volume_is_su_et_al_s(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/su_k20_7pt.json", datadir);
    FILE *f = fopen(path, "rb");
    static char buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    for (int chunk = 1; chunk <= 64; chunk *= 2) {
        cJSON *req = cJSON_Parse(buf);
        CHECK(req != NULL);
        cJSON_DeleteItemFromObjectCaseSensitive(req, "model"); /* the file's is warpspeed */
        char launch[96];
        snprintf(launch, sizeof launch, "{\"block\":[32,4,1],\"folding\":[1,1,%d]}", chunk);
        cJSON_ReplaceItemInObjectCaseSensitive(req, "launch", cJSON_Parse(launch));
        char *body = cJSON_PrintUnformatted(req);
        cJSON_Delete(req);
        lr_error err;
        lr_error_clear(&err);
        char *out = body ? lr_api_estimate(worker, body, strlen(body), &err) : NULL;
        cJSON *r = out ? cJSON_Parse(out) : NULL;
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "estimate");
        const cJSON *smx = cJSON_GetObjectItemCaseSensitive(e, "smx_load");
        CHECK(cJSON_IsNumber(smx));
        if (cJSON_IsNumber(smx))
            CHECK_NEAR(smx->valuedouble, 64.0 + 16.0 / chunk, 0.001, 0);
        cJSON_Delete(r);
        free(out);
        free(body);
    }
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
    v100_deep_block_over_the_cube_is_the_measured_ratio();
    v100_published_best_block_is_in_the_tie_group();
    k20_z_blocked_read_only_cache_volume_is_su_et_al_s();
    lr_worker_free(worker);
    lr_api_free(api);
    return check_report("test_published");
}
