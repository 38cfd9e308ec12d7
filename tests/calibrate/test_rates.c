/*
 * test_rates: the instruction rates calibrate measures (issue 43, item 3;
 * calibrate/rates.h).
 *
 * 1. Rounding: a measured rate within 15 % of a power of two is that power of two.
 * 2. Hand-made records: the rate is instructions per thread x threads per SM / SM cycles,
 *    exactly; classes not measured keep the device's figure.
 * 3. Broken records are refused with the path of the bad member.
 * 4. The recorded H200 run (tests/data/calibration/h200_rates_raw.json, made by
 *    `launchrank calibrate --raw` on 2026-11-29) gives the rates docs/calibration.md
 *    quotes, and the description calibrate writes from it carries them with a sources
 *    entry saying how they were measured.
 * 5. With --gpu: the microbenchmark on the GPU at hand gives rates in physical ranges
 *    (exit 77, skipped, without a GPU).
 *
 * Usage: test_rates DATA_DIR | test_rates --gpu
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "check.h"
#include "corpus.h"
#include "cudagen.h"
#include "devices.h"
#include "micro.h"
#include "rates.h"

static void rounding(void)
{
    CHECK_INT(cal_rate_round(125.3), 128); /* fp32 with the loop's 2 % */
    CHECK_INT(cal_rate_round(112), 128);   /* 12.5 % below */
    CHECK_INT(cal_rate_round(62.9), 64);
    CHECK_INT(cal_rate_round(16.2), 16);
    CHECK_INT(cal_rate_round(1.9), 2);
    CHECK_INT(cal_rate_round(96), 96);     /* 1.5 x 64: no power of two near */
    CHECK_INT(cal_rate_round(100.4), 100); /* 22 % below 128: the measured value */
    CHECK_INT(cal_rate_round(0.4), 1);     /* at least one */
    CHECK_INT(cal_rate_round(0), 1);
    CHECK_INT(cal_rate_round(5000), 4096); /* a device figure's bound */
}

/* A "micro" object with one row per class given (NULL ends the list). */
static cJSON *record(const char *const *cls, const double *rate, const double *ghz)
{
    cJSON *micro = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(micro, "rates");
    for (int i = 0; cls[i]; i++) {
        cJSON *r = cJSON_CreateObject();
        double ops = 262144, cycles = ops * 2048 / rate[i];
        cJSON_AddStringToObject(r, "class", cls[i]);
        cJSON_AddStringToObject(r, "kernel", "k");
        cJSON_AddNumberToObject(r, "threads_per_sm", 2048);
        cJSON_AddNumberToObject(r, "ops_per_thread", ops);
        cJSON_AddNumberToObject(r, "cycles", cycles);
        cJSON_AddNumberToObject(r, "ns", cycles / ghz[i]);
        cJSON_AddNumberToObject(r, "ms", cycles / ghz[i] * 1e-6);
        cJSON_AddItemToArray(arr, r);
    }
    return micro;
}

static void hand_made(void)
{
    static const char *const cls[] = {"fp32", "fp64", "special", "integer", "issue", NULL};
    static const double rate[] = {125.0, 63.5, 15.9, 100.0, 124.0};
    static const double ghz[] = {1.98, 1.755, 1.98, 1.98, 1.5};
    cJSON *micro = record(cls, rate, ghz);
    cal_rates r;
    cal_text t = {0};
    lr_error err = {0};
    CHECK_INT(cal_rates_analyse(micro, &r, &t, &err), 0);
    CHECK_INT(r.measured, 5);
    CHECK_NEAR(r.per_cycle[CAL_RATE_FP32], 125.0, 1e-12, 0);
    CHECK_NEAR(r.per_cycle[CAL_RATE_FP64], 63.5, 1e-12, 0);
    CHECK_NEAR(r.ghz[CAL_RATE_FP64], 1.755, 1e-12, 0);
    CHECK_NEAR(r.ghz[CAL_RATE_ISSUE], 1.5, 1e-12, 0);
    CHECK_INT(r.lanes[CAL_RATE_FP32], 128);
    CHECK_INT(r.lanes[CAL_RATE_FP64], 64);
    CHECK_INT(r.lanes[CAL_RATE_SPECIAL], 16);
    CHECK_INT(r.lanes[CAL_RATE_INTEGER], 100);
    CHECK_INT(r.lanes[CAL_RATE_ISSUE], 128);
    CHECK_CONTAINS(t.s, "Instruction rates");
    CHECK_CONTAINS(t.s, "fp64_lanes 64");
    est_device dev = {0};
    dev.integer_lanes = 7;
    cal_rates_apply(&r, &dev);
    CHECK_INT(dev.fp32_lanes, 128);
    CHECK_INT(dev.fp64_lanes, 64);
    CHECK_INT(dev.special_lanes, 16);
    CHECK_INT(dev.integer_lanes, 100);
    CHECK_INT(dev.issue_lanes, 128);
    char key[128], s[1024];
    cal_rates_source(&r, "GPU X, CUDA driver 13.0, 2026-11-29", key, sizeof key, s, sizeof s);
    CHECK_STR(key, "fp32_lanes,fp64_lanes,special_lanes,integer_lanes,issue_lanes");
    CHECK_CONTAINS(s,
                   "measured by launchrank calibrate on GPU X, CUDA driver 13.0, 2026-11-29");
    CHECK_CONTAINS(s, "fp64_lanes 64 (DFMA chains, 63.5 at 1.755 GHz)");
    free(t.s);
    cJSON_Delete(micro);

    /* two classes only: the others keep the device's figures, and the source names two */
    static const char *const two[] = {"fp64", "special", NULL};
    micro = record(two, (const double[]){2.1, 31.0}, (const double[]){1.4, 1.4});
    CHECK_INT(cal_rates_analyse(micro, &r, NULL, &err), 0);
    CHECK_INT(r.measured, 2);
    dev = (est_device){.fp32_lanes = 128, .fp64_lanes = 64, .integer_lanes = 64};
    cal_rates_apply(&r, &dev);
    CHECK_INT(dev.fp32_lanes, 128);
    CHECK_INT(dev.fp64_lanes, 2);
    CHECK_INT(dev.special_lanes, 32);
    CHECK_INT(dev.integer_lanes, 64);
    cal_rates_source(&r, "G", key, sizeof key, s, sizeof s);
    CHECK_STR(key, "fp64_lanes,special_lanes");
    cJSON_Delete(micro);

    /* a record made before calibrate measured rates: nothing, no error */
    micro = cJSON_CreateObject();
    CHECK_INT(cal_rates_analyse(micro, &r, NULL, &err), 0);
    CHECK_INT(r.measured, 0);
    CHECK_INT(cal_rates_analyse(NULL, &r, NULL, &err), 0);
    cJSON_Delete(micro);
}

/* Analyses micro after edit; wants the error path. */
static void refused(cJSON *micro, const char *path)
{
    cal_rates r;
    lr_error err = {0};
    CHECK_INT(cal_rates_analyse(micro, &r, NULL, &err), -1);
    CHECK_STR(err.path, path);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    cJSON_Delete(micro);
}

static cJSON *row_of(cJSON *micro, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(micro, "rates"), i);
}

static void broken(void)
{
    static const char *const cls[] = {"fp32", "fp64", NULL};
    static const double rate[] = {128, 64}, ghz[] = {2, 2};
    cJSON *m = record(cls, rate, ghz);
    cJSON_SetNumberHelper(cJSON_GetObjectItem(row_of(m, 1), "cycles"), -1);
    refused(m, "micro.rates[1].cycles");
    m = record(cls, rate, ghz);
    cJSON_DeleteItemFromObject(row_of(m, 0), "ns");
    refused(m, "micro.rates[0].ns");
    m = record(cls, rate, ghz);
    cJSON_ReplaceItemInObject(row_of(m, 1), "class", cJSON_CreateString("fp16"));
    refused(m, "micro.rates[1].class");
    m = record((const char *const[]){"fp32", "fp32", NULL}, rate, ghz);
    refused(m, "micro.rates[1].class");
    m = record(cls, (const double[]){128, 5000}, ghz); /* more than a device may give */
    refused(m, "micro.rates[1].cycles");
    m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "rates", "fast");
    refused(m, "micro.rates");
    m = record(cls, rate, ghz);
    cJSON_AddItemToArray(cJSON_GetObjectItem(m, "rates"), cJSON_CreateNumber(3));
    refused(m, "micro.rates[2]");
}

static cJSON *load(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = corpus_read_text(path);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    return j;
}

static void recorded(const char *dir)
{
    cJSON *raw = load(dir, "h200_rates_raw.json");
    lr_error err = {0};
    lr_devices *devs = lr_devices_load(&err);
    CHECK(raw != NULL && devs != NULL);
    if (!raw || !devs) {
        cJSON_Delete(raw);
        lr_devices_free(devs);
        return;
    }
    cal_rates r;
    CHECK_INT(cal_rates_analyse(cJSON_GetObjectItem(raw, "micro"), &r, NULL, &err), 0);
    CHECK_INT(r.measured, 5);
    /* per cycle of the SM clock under load (1.980 GHz, the driver's maximum, for every
     * kernel): the CUDA programming guide's rates for compute capability 9.0, FFMA and
     * the mix 0.8 % below theirs (the loop's own instructions share the issue) */
    CHECK_NEAR(r.per_cycle[CAL_RATE_FP32], 126.906, 1e-4, 0);
    CHECK_NEAR(r.per_cycle[CAL_RATE_FP64], 63.750, 1e-4, 0);
    CHECK_NEAR(r.per_cycle[CAL_RATE_SPECIAL], 15.999, 1e-4, 0);
    CHECK_NEAR(r.per_cycle[CAL_RATE_INTEGER], 63.745, 1e-4, 0);
    CHECK_NEAR(r.per_cycle[CAL_RATE_ISSUE], 126.949, 1e-4, 0);
    for (int c = 0; c < CAL_RATE_CLASSES; c++)
        CHECK_NEAR(r.ghz[c], 1.980, 0.001, 0);
    CHECK_INT(r.lanes[CAL_RATE_FP32], 128);
    CHECK_INT(r.lanes[CAL_RATE_FP64], 64);
    CHECK_INT(r.lanes[CAL_RATE_SPECIAL], 16);
    CHECK_INT(r.lanes[CAL_RATE_INTEGER], 64);
    CHECK_INT(r.lanes[CAL_RATE_ISSUE], 128);

    /* the description calibrate writes from the record: the measured figures, with a
     * sources entry, whatever the base gives (the A100's fp32 and fp64 are half) */
    char *report = NULL;
    cJSON *dev = cal_analyse(devs, raw, "A100-SXM4-40GB", "H200-rates", &report, &err);
    CHECK(dev != NULL);
    if (dev) {
        CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "fp32_lanes")), 128);
        CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "fp64_lanes")), 64);
        CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "special_lanes")), 16);
        CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "integer_lanes")), 64);
        CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "issue_lanes")), 128);
        const cJSON *src = cJSON_GetObjectItem(
            cJSON_GetObjectItem(dev, "sources"),
            "fp32_lanes,fp64_lanes,special_lanes,integer_lanes,issue_lanes");
        CHECK(cJSON_IsString(src));
        if (cJSON_IsString(src))
            CHECK_CONTAINS(src->valuestring, "measured by launchrank calibrate on NVIDIA H200");
        CHECK_CONTAINS(report, "Instruction rates");
    }
    free(report);
    cJSON_Delete(dev);

    /* a broken row of the record: calibrate refuses it, naming the member */
    cJSON *row =
        cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(raw, "micro"), "rates"), 2);
    cJSON_ReplaceItemInObject(row, "ops_per_thread", cJSON_CreateString("many"));
    lr_error_clear(&err);
    CHECK(cal_analyse(devs, raw, NULL, NULL, NULL, &err) == NULL);
    CHECK_STR(err.path, "micro.rates[2].ops_per_thread");
    cJSON_Delete(raw);
    lr_devices_free(devs);
}

/* On the GPU at hand: exit 77 without one. */
static int on_gpu(void)
{
    lr_error err = {0};
    cg_gpu_props gpu;
    if (cg_gpu_query(NULL, &gpu, &err)) {
        printf("no GPU (%s): skipped\n", err.message);
        return 77;
    }
    cJSON *m = cal_micro_measure(NULL, 1, NULL, NULL, &err);
    CHECK(m != NULL);
    if (!m) {
        fprintf(stderr, "%s\n", err.message);
        return check_report("test_rates --gpu");
    }
    cal_rates r;
    CHECK_INT(cal_rates_analyse(m, &r, NULL, &err), 0);
    CHECK_INT(r.measured, 5);
    /* physical ranges of any NVIDIA GPU since Kepler (the programming guide's table),
     * not this GPU's figures; the issue rate bounds each pipe's */
    CHECK(r.per_cycle[CAL_RATE_FP32] >= 32 && r.per_cycle[CAL_RATE_FP32] <= 260);
    CHECK(r.per_cycle[CAL_RATE_FP64] >= 0.5 && r.per_cycle[CAL_RATE_FP64] <= 130);
    CHECK(r.per_cycle[CAL_RATE_SPECIAL] >= 4 && r.per_cycle[CAL_RATE_SPECIAL] <= 64);
    CHECK(r.per_cycle[CAL_RATE_INTEGER] >= 16 && r.per_cycle[CAL_RATE_INTEGER] <= 260);
    CHECK(r.per_cycle[CAL_RATE_ISSUE] >= 32 && r.per_cycle[CAL_RATE_ISSUE] <= 260);
    printf("GPU %s: fp32 %.1f, fp64 %.1f, special %.1f, integer %.1f, issue %.1f per cycle per "
           "SM\n",
           gpu.name, r.per_cycle[0], r.per_cycle[1], r.per_cycle[2], r.per_cycle[3],
           r.per_cycle[4]);
    cJSON_Delete(m);
    return check_report("test_rates --gpu");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_rates DATA_DIR | test_rates --gpu\n");
        return 2;
    }
    if (!strcmp(argv[1], "--gpu"))
        return on_gpu();
    rounding();
    hand_made();
    broken();
    recorded(argv[1]);
    return check_report("test_rates");
}
