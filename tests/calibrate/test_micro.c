/*
 * test_micro: the calibration microbenchmarks (issue 9, item 1; calibrate/micro.h).
 *
 * 1. The analysis of the recorded runs on an H100 and an H200 (tests/data/calibration/
 *    h100_micro_raw.json, h200_micro_raw.json, made by `launchrank calibrate --raw` on
 *    2026-11-22) gives the figures docs/calibration.md quotes. The analysis is
 *    deterministic, so the tolerances (0.5 %) only absorb printing-level rounding.
 * 2. Broken records are refused with the JSON path of the bad member.
 * 3. The benchmark source compiles with NVRTC for sm_80 and sm_90 (needs NVRTC, not a
 *    GPU; skipped without NVRTC).
 * 4. With a GPU, cal_micro_measure --quick runs and its own record analyses to figures
 *    in physical ranges (skipped without a GPU).
 *
 * Usage: test_micro DATA_DIR
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cudagen.h"
#include "embedded.h"
#include "micro.h"

extern const lr_embedded_file cal_micro_files[];

static cJSON *load(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return cJSON_Parse(buf);
}

static const cJSON *micro_of(const cJSON *raw)
{
    return cJSON_GetObjectItem(raw, "micro");
}

static double gpu_l2(const cJSON *raw)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(raw, "gpu"), "l2_bytes"));
}

#define MIB (1024.0 * 1024.0)

static void recorded(const char *dir)
{
    cJSON *h100 = load(dir, "h100_micro_raw.json"), *h200 = load(dir, "h200_micro_raw.json");
    CHECK(h100 && h200);
    if (!h100 || !h200)
        return;
    cal_micro_figures f;
    cal_text t = {0};
    lr_error err = {0};

    CHECK_INT(cal_micro_analyse(micro_of(h100), 132, gpu_l2(h100), &f, &t, &err), 0);
    /* L2: the median of the working sets up to 25 MiB; reuse pays in full up to ~35 MiB,
     * more than the 25 MiB (half the driver's 50 MiB) the model counts */
    CHECK_NEAR(f.l2_plateau_gbs, 7943, 0.005, 0);
    CHECK_NEAR(f.l2_effective_bytes / MIB, 34.9, 0.005, 0);
    CHECK_NEAR(f.l2_floor_gbs, 3146, 0.005, 0);
    /* DRAM: ~3.0 TB/s of reads; 8 KiB in flight per SM reach 90 % of it */
    CHECK_NEAR(f.dram_peak_gbs, 3030, 0.005, 0);
    CHECK_NEAR(f.dram_near_peak_bytes_per_sm, 8192, 0, 0.5);
    CHECK_NEAR(f.dram_latency_ns, 171, 0.005, 0);
    /* pointer chasing */
    CHECK_NEAR(f.l1_hit_ns, 24.2, 0.005, 0);
    CHECK_NEAR(f.l2_hit_ns, 147.9, 0.005, 0);
    CHECK_NEAR(f.dram_ns, 361, 0.005, 0);
    CHECK_NEAR(f.dram_far_ns, 369, 0.005, 0);
    CHECK_NEAR(f.translation_reach_bytes / MIB, 4096, 0, 0.5);
    /* L1: one 128-byte line per cycle per SM (the model's l1_bank_bytes_per_cycle) */
    for (int k = 1; k < 6; k++)
        CHECK_NEAR(f.l1_lines_per_cycle[k], 1.0, 0.005, 0);
    CHECK_NEAR(f.l1_lines_per_cycle[0], 0.600, 0.005, 0);
    /* the SM clock does not drop under load: the driver's 1.98 GHz */
    CHECK_NEAR(f.clock_compute_ghz, 1.980, 0.005, 0);
    CHECK_NEAR(f.clock_memory_ghz, 1.980, 0.005, 0);
    CHECK_CONTAINS(t.s, "L2 bandwidth against working-set size");
    CHECK_CONTAINS(t.s, "implied latency");
    CHECK_CONTAINS(t.s, "SM clock under load: 1.980 GHz compute-bound");
    free(t.s);

    /* the H200: the same SMs and caches, more L2 and faster memory */
    CHECK_INT(cal_micro_analyse(micro_of(h200), 132, gpu_l2(h200), &f, NULL, &err), 0);
    CHECK_NEAR(f.l2_plateau_gbs, 8815, 0.005, 0);
    CHECK_NEAR(f.l2_effective_bytes / MIB, 50.1, 0.005, 0);
    CHECK_NEAR(f.dram_peak_gbs, 4439, 0.005, 0);
    CHECK_NEAR(f.dram_near_peak_bytes_per_sm, 16384, 0, 0.5);
    CHECK_NEAR(f.l2_hit_ns, 146.3, 0.005, 0);
    CHECK_NEAR(f.dram_ns, 354, 0.005, 0);

    /* broken records: the path names the member */
    cJSON *m = cJSON_Duplicate(micro_of(h100), 1);
    cJSON_SetNumberHelper(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "chase"), 2),
                                              "cycles"), -1);
    CHECK_INT(cal_micro_analyse(m, 132, gpu_l2(h100), &f, NULL, &err), -1);
    CHECK_STR(err.path, "micro.chase[2].cycles");
    cJSON_DeleteItemFromObject(m, "l2_sweep");
    err = (lr_error){0}; /* the first error wins: start afresh */
    CHECK_INT(cal_micro_analyse(m, 132, gpu_l2(h100), &f, NULL, &err), -1);
    CHECK_STR(err.path, "micro.l2_sweep");
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    err = (lr_error){0};
    CHECK_INT(cal_micro_analyse(micro_of(h100), 0, gpu_l2(h100), &f, NULL, &err), -1);
    CHECK_STR(err.path, "gpu");
    cJSON_Delete(m);
    cJSON_Delete(h100);
    cJSON_Delete(h200);
}

static void compiles(void)
{
    static const char *const arch[] = {"sm_80", "sm_90"};
    for (int i = 0; i < 2; i++) {
        char *image = NULL, *log = NULL;
        size_t size = 0;
        lr_error err = {0};
        int rc = cg_compile(cal_micro_files[0].text, arch[i], &image, &size, &log, &err);
        if (rc && err.code == LR_UNAVAILABLE) {
            printf("no NVRTC here (%s): compilation not checked\n", err.message);
            return;
        }
        CHECK_INT(rc, 0);
        CHECK(size > 1000 && image && memcmp(image, "\177ELF", 4) == 0);
        free(image);
        free(log);
    }
}

static void step(void *ctx, const char *what)
{
    (*(int *)ctx)++;
    printf("  %s\n", what);
}

/* Returns 1 when a GPU ran the benchmarks. */
static int on_gpu(void)
{
    lr_error err = {0};
    int steps = 0;
    cg_gpu_props gpu;
    if (cg_gpu_query(NULL, &gpu, &err)) {
        printf("no GPU (%s): the measurement is not checked\n", err.message);
        return 0;
    }
    cJSON *m = cal_micro_measure(NULL, 1, step, &steps, &err);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    CHECK_INT(steps, cal_micro_steps(1));
    cal_micro_figures f;
    CHECK_INT(cal_micro_analyse(m, gpu.sm_count, (double)gpu.l2_bytes, &f, NULL, &err), 0);
    /* physical ranges for any GPU of the last ten years, not this GPU's figures */
    CHECK(f.dram_peak_gbs > 100 && f.dram_peak_gbs < 20000);
    CHECK(f.l2_plateau_gbs > f.l2_floor_gbs);
    CHECK(f.l1_hit_ns > 5 && f.l1_hit_ns < f.l2_hit_ns && f.l2_hit_ns < f.dram_ns);
    CHECK(f.clock_compute_ghz > 0.3 && f.clock_compute_ghz < 4);
    CHECK(f.l1_lines_per_cycle[3] > 0.2 && f.l1_lines_per_cycle[3] < 8);
    printf("GPU %s: L2 %.0f GB/s, DRAM %.0f GB/s, latencies %.1f / %.1f / %.0f ns\n", gpu.name,
           f.l2_plateau_gbs, f.dram_peak_gbs, f.l1_hit_ns, f.l2_hit_ns, f.dram_ns);
    cJSON_Delete(m);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_micro DATA_DIR\n");
        return 2;
    }
    recorded(argv[1]);
    compiles();
    on_gpu();
    return check_report("test_micro");
}
