/*
 * test_overhead: the launch overhead from size scans (calibrate/overhead.c,
 * docs/model.md "Launch overhead") on hand-made scans whose lines are known exactly,
 * and the names of size-scan families; calibrate's analysis of a recorded run with
 * scans (argv[1]: tests/data/calibration), whole and broken. The recorded H100 and
 * H200 scans are checked by tests/accuracy/launch_overhead --check (tests/accuracy/meson.build).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "check.h"
#include "corpus.h"
#include "devices.h"
#include "overhead.h"

/* Scan g: t(us) = t0 + updates / (rate GLup/s * 1e3) at the given sizes. */
static int scan(cal_scan_point *p, const char *kernel, int bx, double t0, double rate,
                const double *sizes, int nsizes)
{
    int block[3] = {bx, 1, 1}, folding[3] = {1, 1, 1};
    for (int i = 0; i < nsizes; i++) {
        cal_scan_group(kernel, block, folding, p[i].group);
        p[i].lattice_updates = sizes[i];
        p[i].ms = (t0 + sizes[i] / (rate * 1e3)) * 1e-3;
    }
    return nsizes;
}

static void exact_lines(void)
{
    static const double sizes[] = {1 << 14, 1 << 18, 1 << 22, 1 << 24};
    cal_scan_point p[32];
    int n = 0;
    /* three scans with intercepts 4, 5 and 7 us: median 5, range 4-7 */
    n += scan(p + n, "copy", 256, 4.0, 120.0, sizes, 4);
    n += scan(p + n, "star", 128, 7.0, 150.0, sizes, 4);
    n += scan(p + n, "varcoef", 64, 5.0, 70.0, sizes, 3);
    /* two sizes only: no line, left out (else the median would be 6) */
    n += scan(p + n, "short", 32, 100.0, 10.0, sizes, 2);
    /* the same scan timed twice, in another order: still one scan */
    cal_scan_point twice[8];
    int m = scan(twice, "copy", 1024, 6.0, 100.0, sizes, 4);
    for (int i = 0; i < m; i++)
        p[n + i] = twice[m - 1 - i];
    n += m;
    for (int i = 0; i < m; i++)
        p[n + i] = twice[i];
    n += m;
    cal_scan_line lines[32];
    cal_overhead o;
    lr_error err;
    lr_error_clear(&err);
    CHECK_INT(cal_overhead_fit(p, n, &o, lines, &err), 0);
    CHECK_INT(o.scans, 4);
    CHECK_NEAR(o.us, 5.5, 1e-9, 0); /* 4, 5, 6, 7: the mean of the middle two */
    CHECK_NEAR(o.lo_us, 4.0, 1e-9, 0);
    CHECK_NEAR(o.hi_us, 7.0, 1e-9, 0);
    /* sorted by group; each line's rate and sizes come back */
    CHECK_STR(lines[0].group, "copy 1024x1x1 1x1x1");
    CHECK_NEAR(lines[0].us, 6.0, 1e-9, 0);
    CHECK_NEAR(lines[0].body_glups, 100.0, 1e-9, 0);
    CHECK_INT(lines[0].sizes, 4);
    CHECK_STR(lines[1].group, "copy 256x1x1 1x1x1");
    CHECK_NEAR(lines[1].body_glups, 120.0, 1e-9, 0);
    CHECK_STR(lines[3].group, "varcoef 64x1x1 1x1x1");
    CHECK_INT(lines[3].sizes, 3);
}

static void refusals(void)
{
    static const double sizes[] = {1 << 14, 1 << 18};
    cal_scan_point p[4];
    cal_overhead o;
    lr_error err;
    int n = scan(p, "copy", 256, 4.0, 120.0, sizes, 2);
    lr_error_clear(&err);
    CHECK_INT(cal_overhead_fit(p, n, &o, NULL, &err), -1);
    CHECK(strstr(err.message, "no size scan has 3 sizes") != NULL);
    n += scan(p + n, "copy", 256, 4.0, 120.0, sizes, 1);
    p[n - 1].lattice_updates = 1 << 20;
    p[0].ms = 0;
    lr_error_clear(&err);
    CHECK_INT(cal_overhead_fit(p, n, &o, NULL, &err), -1);
    CHECK(strstr(err.message, "must be positive") != NULL);
    p[0].ms = NAN;
    lr_error_clear(&err);
    CHECK_INT(cal_overhead_fit(p, n, &o, NULL, &err), -1);
    lr_error_clear(&err);
    CHECK_INT(cal_overhead_fit(p, 0, &o, NULL, &err), -1);
}

static void kernel_names(void)
{
    char k[64];
    CHECK_INT(cal_scan_kernel("star3d_r1_f64_n128", k, sizeof k), 0);
    CHECK_STR(k, "star3d_r1_f64");
    CHECK_INT(cal_scan_kernel("copy_strided_f64_n16777216", k, sizeof k), 0);
    CHECK_STR(k, "copy_strided_f64");
    CHECK_INT(cal_scan_kernel("star3d_r1_f64", k, sizeof k), -1); /* no size */
    CHECK_INT(cal_scan_kernel("star3d_r1_f64_n", k, sizeof k), -1);
    CHECK_INT(cal_scan_kernel("star3d_r1_f64_n12x", k, sizeof k), -1);
    CHECK_INT(cal_scan_kernel("_n12", k, sizeof k), -1);
    CHECK_INT(cal_scan_kernel("star3d_r1_f64_n128", k, 4), -1); /* does not fit */
}

/* The recorded H100 run with its scans: 6.11 us (the CLI test checks the same); a
 * scan without its time is refused with the record's path, not skipped. */
static void recorded_run(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/h100_scans_raw.json", dir);
    char *text = corpus_read_text(path);
    cJSON *raw = text ? cJSON_Parse(text) : NULL;
    free(text);
    lr_error err;
    lr_error_clear(&err);
    lr_devices *devs = lr_devices_load(&err);
    CHECK(raw != NULL && devs != NULL);
    if (!raw || !devs) {
        cJSON_Delete(raw);
        lr_devices_free(devs);
        return;
    }
    cJSON *dev = cal_analyse(devs, raw, NULL, "scans", NULL, &err);
    CHECK(dev != NULL);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "launch_overhead_us")), 6.11, 0,
               1e-9);
    cJSON_Delete(dev);
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(raw, "overhead"), 3);
    cJSON_DeleteItemFromObject(run, "ms");
    lr_error_clear(&err);
    CHECK(cal_analyse(devs, raw, NULL, "scans", NULL, &err) == NULL);
    CHECK_STR(err.path, "overhead[3]");
    CHECK(strstr(err.message, "lattice_updates and ms") != NULL);
    cJSON_Delete(raw);
    lr_devices_free(devs);
}

int main(int argc, char **argv)
{
    exact_lines();
    refusals();
    kernel_names();
    if (argc > 1)
        recorded_run(argv[1]);
    else
        CHECK(!"usage: test_overhead DIR (tests/data/calibration)");
    return check_report("test_overhead");
}
