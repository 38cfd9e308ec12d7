/*
 * test_langguth: issue 45, item 4. Langguth et al. 2015 (seed 003; ../shared/SEED-NUMBERS.md
 * 1.4) measure the finite-volume gather kernel on a K20 over synthetic meshes of 10^6 cells
 * whose four neighbours are random inside diagonal blocks of b cells: a memory-bandwidth
 * plateau (29.42 GFLOPS measured, 11 flops per cell), an L2 plateau (23.08 GFLOPS at
 * b = 13,333, with 5.62 L2 reads of 32 B per cell) and a cliff once the blocks outgrow L2
 * (their estimate: b = 80,000). The reference method's limits on the built-in K20m are
 * Langguth's own model (bandwidth over traffic); they hold the two levels and the L2
 * reads within 10 %. The cliff: Langguth's L2 level holds up to b = 80,000 (their L2 model
 * reproduces the measured kernel within 3 % over 1,000-80,000) and performance falls
 * beyond. Taken the same way here, as where the prediction falls 10 % below its own L2
 * level, it comes at b = 82,000-84,000 (+3-5 %); the DRAM limit first touches the L2 limit
 * earlier, at about 66,000, but stays within 10 % of it up to there (docs/meshes.md,
 * "Against Langguth et al. on the K20").
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "check.h"
#include "mesh.h"

#define N 1000000

typedef struct level {
    double gflops, dram_gflops, l2_gflops, l2_load, dram_load;
} level;

/* The K20m's estimate (reference method, blocks of 512, Langguth's Kernel 2) of the mesh
 * of diagonal blocks of b cells. */
static int estimate(lr_worker *w, int b, const char *file, level *out)
{
    int32_t *nbr = mesh_diagonal_blocks(N, 4, b, (uint64_t)b);
    if (!nbr)
        return -1;
    FILE *f = fopen(file, "wb");
    size_t wrote = f ? fwrite(nbr, 16, N, f) : 0;
    if (f)
        fclose(f);
    free(nbr);
    if (wrote != N)
        return -1;
    char body[2048];
    snprintf(body, sizeof body,
             "{\"device\":\"K20m\",\"model\":\"warpspeed\",\"domain\":[%d,1,1],"
             "\"launch\":{\"block\":[512,1,1]},\"kernel\":{\"registers\":32,\"flops\":11,"
             "\"fields\":[{\"name\":\"x\",\"dims\":[%d],\"loads\":[[\"x\"],[\"I(0, x)\"],"
             "[\"I(1, x)\"],[\"I(2, x)\"],[\"I(3, x)\"]]},"
             "{\"name\":\"A\",\"dims\":[4,%d],\"loads\":[[\"0\",\"x\"],[\"1\",\"x\"],"
             "[\"2\",\"x\"],[\"3\",\"x\"]]},"
             "{\"name\":\"I\",\"dims\":[4,%d],\"integer\":true,\"values\":{\"file\":\"%s\"},"
             "\"loads\":[[\"0\",\"x\"],[\"1\",\"x\"],[\"2\",\"x\"],[\"3\",\"x\"]]},"
             "{\"name\":\"y\",\"dims\":[%d],\"stores\":[[\"x\"]]}]}}",
             N, N, N, N, file, N);
    lr_error err;
    lr_error_clear(&err);
    char *txt = lr_api_estimate(w, body, strlen(body), &err);
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    free(txt);
    if (!o) {
        fprintf(stderr, "b = %d refused: %s\n", b, err.message);
        return -1;
    }
    const cJSON *p = cJSON_GetObjectItem(o, "performance"),
                *e = cJSON_GetObjectItem(o, "estimate");
    out->gflops = 11 * cJSON_GetObjectItem(p, "predicted")->valuedouble;
    out->dram_gflops = 11 * cJSON_GetObjectItem(p, "dram")->valuedouble;
    out->l2_gflops = 11 * cJSON_GetObjectItem(p, "l2")->valuedouble;
    out->l2_load = cJSON_GetObjectItem(e, "l2_load")->valuedouble;
    out->dram_load = cJSON_GetObjectItem(e, "dram_load")->valuedouble;
    cJSON_Delete(o);
    return 0;
}

int main(void)
{
    lr_api_config cfg = {.local_files = 1};
    lr_error err;
    lr_error_clear(&err);
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    char file[] = "/tmp/lr_langguth_XXXXXX";
    int fd = mkstemp(file);
    if (!w || fd < 0) {
        fprintf(stderr, "cannot start: %s\n", err.message);
        return 1;
    }
    close(fd);
    level plateau, l2, before, after;
    CHECK(estimate(w, 32, file, &plateau) == 0);
    CHECK(estimate(w, 13333, file, &l2) == 0);
    CHECK(estimate(w, 72000, file, &before) == 0);
    CHECK(estimate(w, 88000, file, &after) == 0);
    unlink(file);
    printf("b = 32: %.2f GFLOPS (DRAM limit %.2f; Langguth measured 29.42), DRAM %.1f B/cell\n",
           plateau.gflops, plateau.dram_gflops, plateau.dram_load);
    printf("b = 13333: %.2f GFLOPS (L2 limit %.2f; Langguth 23.08), L2 %.1f B/cell (179.8)\n",
           l2.gflops, l2.l2_gflops, l2.l2_load);
    printf("b = 72000: %.2f GFLOPS, b = 88000: %.2f (%.1f and %.1f %% against the L2 level)\n",
           before.gflops, after.gflops, 100 * (before.gflops / l2.gflops - 1),
           100 * (after.gflops / l2.gflops - 1));
    /* the memory plateau: 56 B read + 8 B written per cell at the K20m's 161 GB/s */
    CHECK_NEAR(plateau.dram_load, 56, 0.01, 0);
    CHECK_NEAR(plateau.dram_gflops, 29.42, 0.10, 0);
    CHECK_NEAR(plateau.gflops, 29.42, 0.10, 0);
    /* the L2 plateau: 5.62 reads of 32 B per cell, at the K20m's 368 GB/s */
    CHECK_NEAR(l2.l2_load, 5.62 * 32, 0.10, 0);
    CHECK_NEAR(l2.l2_gflops, 23.08, 0.10, 0);
    CHECK_NEAR(l2.gflops, 23.08, 0.10, 0);
    /* the cliff within 10 % of Langguth's 80,000: still within 10 % of the L2 level at
     * 72,000 (-5.7 %), more than 10 % below it at 88,000 (-11.6 %) */
    CHECK(before.gflops > 0.9 * l2.gflops);
    CHECK(after.gflops < 0.9 * l2.gflops);
    CHECK(after.dram_gflops < after.l2_gflops);
    lr_worker_free(w);
    lr_api_free(api);
    return check_report("test_langguth");
}
