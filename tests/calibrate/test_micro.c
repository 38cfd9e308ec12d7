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
 * 5. On a fake GPU that counts launches, each microbenchmark runs as often as it
 *    should: the memory-bound clock run once, not six times (needs NVRTC, which
 *    compiles the kernels as for a GPU; skipped without it).
 *
 * Usage: test_micro DATA_DIR
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cudagen.h"
#include "cudagen_int.h"
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

/* ---- how often each microbenchmark runs, on a fake GPU ---- */

#define COUNT_STEPS 8
#define COUNT_KERNELS 24

/* A GPU that runs nothing (cudagen_int.h's backend) and counts the launches of each
 * kernel entry during each step of cal_micro_measure (the progress callback says
 * when a step begins). Its downloads are zeros. */
typedef struct counting_gpu {
    int steps;                     /* steps begun */
    const char *step[COUNT_STEPS]; /* their names (micro.c's literals) */
    char entry[COUNT_KERNELS][32]; /* kernel entries loaded, in order of first load */
    int nentries, loaded;          /* how many; the one loaded now */
    int launches[COUNT_STEPS][COUNT_KERNELS];
    uint64_t next; /* next fake device address */
} counting_gpu;

static counting_gpu counted;

static void *counting_open(const cg_backend *b, int ordinal, cg_gpu_info *info, lr_error *err)
{
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "Counting fake GPU");
    info->cc_major = 9;
    info->cc_minor = 0;
    info->sm_count = 132;
    info->l2_bytes = 50 * 1024 * 1024;
    counted.next = 0x10000;
    return &counted;
}

static void counting_close(void *s)
{
}

static int counting_load(void *s, const void *image, size_t size, const char *entry,
                         lr_error *err)
{
    int i = 0;
    while (i < counted.nentries && strcmp(counted.entry[i], entry))
        i++;
    if (i == COUNT_KERNELS)
        return lr_error_set(err, LR_INTERNAL, NULL, "counting fake: too many kernels");
    if (i == counted.nentries)
        snprintf(counted.entry[counted.nentries++], sizeof counted.entry[0], "%s", entry);
    counted.loaded = i;
    return 0;
}

static int counting_alloc(void *s, size_t bytes, uint64_t *dptr, lr_error *err)
{
    *dptr = counted.next;
    counted.next += (bytes + 0xffff) & ~(uint64_t)0xffff;
    return 0;
}

static void counting_release(void *s, uint64_t dptr)
{
}

static int counting_upload(void *s, uint64_t dst, const void *src, size_t bytes, lr_error *err)
{
    return 0;
}

static int counting_download(void *s, void *dst, uint64_t src, size_t bytes, lr_error *err)
{
    memset(dst, 0, bytes);
    return 0;
}

static int counting_fill(void *s, uint64_t dst, unsigned char byte, size_t bytes, lr_error *err)
{
    return 0;
}

static int counting_launch(void *s, const unsigned grid[3], const unsigned block[3],
                           unsigned shared_bytes, void **args, float *ms, lr_error *err)
{
    if (counted.steps < 1 || counted.steps > COUNT_STEPS)
        return lr_error_set(err, LR_INTERNAL, NULL, "counting fake: a launch outside a step");
    counted.launches[counted.steps - 1][counted.loaded]++;
    if (ms)
        *ms = 1;
    return 0;
}

static const cg_backend counting_backend = {
    .name = "counting fake",
    .open = counting_open,
    .close = counting_close,
    .load = counting_load,
    .alloc = counting_alloc,
    .release = counting_release,
    .upload = counting_upload,
    .download = counting_download,
    .fill = counting_fill,
    .launch = counting_launch,
};

static void counting_step(void *ctx, const char *what)
{
    if (counted.steps < COUNT_STEPS)
        counted.step[counted.steps] = what;
    counted.steps++;
}

/* Launches of kernel entry during the step named step; -1 when either is unknown. */
static int launches(const char *step, const char *entry)
{
    for (int s = 0; s < counted.steps && s < COUNT_STEPS; s++)
        for (int k = 0; k < counted.nentries; k++)
            if (!strcmp(counted.step[s], step) && !strcmp(counted.entry[k], entry))
                return counted.launches[s][k];
    return -1;
}

static void counted_runs(void)
{
    cg_measure_opts opts;
    cg_measure_opts_init(&opts);
    opts.backend = &counting_backend;
    lr_error err = {0};
    memset(&counted, 0, sizeof counted);
    cJSON *m = cal_micro_measure(&opts, 0, counting_step, NULL, &err);
    if (!m && err.code == LR_UNAVAILABLE) {
        printf("no NVRTC here (%s): the runs of the microbenchmarks are not counted\n",
               err.message);
        return;
    }
    CHECK(m != NULL);
    CHECK_INT(counted.steps, cal_micro_steps(0));
    /* The clock under load: the FMA probe that sizes the compute run and that run, then
     * one run of the DRAM stream, whose per-block clocks give the memory-bound clock
     * (it used to be timed as the sweeps are, a warm-up and five runs: six). */
    CHECK_INT(launches("SM clock under load", "lr_fma"), 2);
    CHECK_INT(launches("SM clock under load", "lr_stream4"), 1);
    /* The sweeps still time each point: a warm-up and the median of five runs, for each
     * of the 6 thread counts per SM with 4 loads in flight per thread. */
    CHECK_INT(launches("DRAM bandwidth against bytes in flight", "lr_stream4"), 6 * 6);
    /* Each instruction-rate kernel is timed as the sweeps are: a warm-up and five runs,
     * the per-block clocks of the last one. */
    static const char *const rate_kernels[] = {
        "lr_rate_fp32", "lr_rate_fp64", "lr_rate_special", "lr_rate_integer", "lr_rate_issue"};
    for (int i = 0; i < 5; i++)
        CHECK_INT(launches("instruction rates (fp32, fp64, special functions, integer, issue)",
                           rate_kernels[i]),
                  6);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(m, "rates")), 5);
    cJSON_Delete(m);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_micro DATA_DIR\n");
        return 2;
    }
    recorded(argv[1]);
    compiles();
    counted_runs();
    on_gpu();
    return check_report("test_micro");
}
