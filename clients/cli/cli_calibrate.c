/*
 * cli_calibrate: `launchrank calibrate`, a device description of this machine's GPU
 * from measurements (calibrate/calibrate.h, docs/calibration.md).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "cli.h"

static const lr_opt cal_raw = {
    .name = "--raw",
    .arg = "FILE",
    .help = "also keep the raw timings (the driver's figures and one time per "
            "configuration) in FILE, for --from-raw later",
    .kind = LR_OPT_TEXT,
    .offset = offsetof(cli_opts, raw)};
static const lr_opt cal_from_raw = {.name = "--from-raw",
                                    .arg = "FILE",
                                    .help = "no GPU: analyse timings kept with --raw",
                                    .kind = LR_OPT_TEXT,
                                    .offset = offsetof(cli_opts, from_raw)};
static const lr_opt cal_name = {.name = "--name",
                                .arg = "NAME",
                                .def = "\"GPU-NAME (calibrated)\", the name the driver gives",
                                .help = "the device's name",
                                .kind = LR_OPT_TEXT,
                                .offset = offsetof(cli_opts, name)};
static const lr_opt cal_base = {
    .name = "--base",
    .arg = "DEVICE",
    .def = "H100-SXM5-80GB",
    .help = "built-in device whose figures are not measured (L1 geometry, line and "
            "sector sizes, capacity-miss fits; the instruction rates of a record that "
            "lacks them)",
    .kind = LR_OPT_TEXT,
    .offset = offsetof(cli_opts, base)};
static const lr_opt cal_quick = {.name = "--quick",
                                 .help = "every third configuration of the suite only, fewer "
                                         "microbenchmark points (about 30 s on an H100)",
                                 .kind = LR_OPT_FLAG,
                                 .offset = offsetof(cli_opts, quick)};
static const lr_opt cal_gpu = {.name = "--gpu",
                               .arg = "N",
                               .def = "0",
                               .help = "CUDA device ordinal",
                               .kind = LR_OPT_INT,
                               .max = 64,
                               .offset = offsetof(cli_opts, gpu)};
static const lr_opt *const calibrate_opts[] = {
    &cli_opt_out, &cal_raw, &cal_from_raw, &cal_name, &cal_base, &cal_quick, &cal_gpu, NULL};

static const lr_opt_cmd calibrate_cmd = {
    .name = "calibrate",
    .usage =
        "Usage: launchrank calibrate [OPTIONS]\n"
        "  or:  launchrank calibrate --from-raw FILE [OPTIONS]\n"
        "\n"
        "Measures this machine's NVIDIA GPU and prints a device description in the format\n"
        "of the built-in devices (GET /v1/devices/NAME), each figure with a \"sources\"\n"
        "entry saying how and when it was measured. It\n"
        "  -  reads SM count, L2 size, register, shared-memory and thread limits and the\n"
        "     SM clock from the driver;\n"
        "  -  times the calibration suite (184 configurations of five corpus kernels:\n"
        "     an array-of-structs copy, a transposed copy, 2-D and 3-D stencils, D3Q19\n"
        "     LBM) with NVRTC and CUDA events, as `launchrank measure` does, L2 flushed;\n"
        "  -  sets the DRAM and L2 bandwidths to the most traffic any of them moved,\n"
        "     and fits the " CLI_FIT_PARAMS_TEXT " of\n"
        "     docs/model.md to the timings, sweeping them until a sweep changes none;\n"
        "  -  times size scans (three kernels at 6 to 8 domain sizes, 52 launches) for\n"
        "     the fixed time of a launch, the device's launch overhead;\n"
        "  -  measures the instruction rates (fp32, fp64, special-function and integer\n"
        "     results and instructions issued, per cycle per SM) with chains of\n"
        "     independent instructions.\n"
        "A summary (bandwidths, how well the fitted model ranks each kernel before and\n"
        "after) goes to standard error. Takes about a minute on an H100 (--quick:\n"
        "about 30 s). Use the result as a request's \"device\" object (its \"sources\"\n"
        "are ignored there).\n"
        "\n",
    .opts = calibrate_opts,
    .epilogue = "\n"
                "Exit status: 0 success; 2 bad usage or a bad raw file; 1 no GPU (error code\n"
                "\"unavailable\") or other failures.\n"
                "\n"
                "Examples:\n"
                "  $ launchrank calibrate --out my-gpu.json --raw my-gpu.raw.json\n"
                "  $ launchrank calibrate --from-raw my-gpu.raw.json --name my-gpu\n",
    .min_pos = 0,
    .max_pos = 0};

typedef struct progress_state {
    int tty;
    const char *last;
} progress_state;

static void progress(void *ctx, int done, int total, const char *family)
{
    progress_state *p = ctx;
    if (p->tty) {
        fprintf(stderr, "\rcalibrating: %d of %d configurations%s%-20s", done, total,
                family ? ", " : " ", family ? family : "done");
        if (!family)
            fputc('\n', stderr);
    } else if (family && (!p->last || strcmp(p->last, family))) {
        fprintf(stderr, "calibrating: %s (%d of %d configurations done)\n", family, done,
                total);
    }
    p->last = family;
}

static cJSON *read_json(const char *path, int *rc)
{
    char *text;
    size_t len;
    *rc = cli_read_request("calibrate", path, &text, &len);
    if (*rc)
        return NULL;
    cJSON *j = cJSON_ParseWithLength(text, len);
    free(text);
    if (!j) {
        lr_error err;
        lr_error_clear(&err);
        lr_error_set(&err, LR_INVALID_JSON, "", "%s is not JSON", path);
        *rc = cli_report(&err);
    }
    return j;
}

int cli_cmd_calibrate(int argc, char **argv)
{
    cli_opts opts;
    int rc;
    if (cli_parse_args(&calibrate_cmd, argc, argv, &opts, &rc))
        return rc;
    const char *out = opts.out, *raw_path = opts.raw, *from = opts.from_raw;
    cal_opts o;
    cal_opts_init(&o);
    o.quick = opts.quick;
    o.measure.device = (int)opts.gpu;
    if (from && (raw_path || o.quick))
        return cli_usage_error("calibrate", "--from-raw analyses kept timings: --raw and "
                                            "--quick do not apply");
    lr_error err;
    lr_error_clear(&err);
    lr_devices *devs = lr_devices_load(&err);
    if (!devs)
        return cli_report(&err);
    cJSON *raw = NULL;
    if (from) {
        raw = read_json(from, &rc);
    } else {
        progress_state ps = {isatty(2), NULL};
        o.progress = progress;
        o.progress_ctx = &ps;
        raw = cal_measure(devs, &o, &err);
        if (!raw)
            rc = cli_report(&err);
        else if (raw_path)
            rc = cli_write_json("calibrate", raw_path, raw);
    }
    char *report = NULL;
    cJSON *dev =
        raw && !rc ? cal_analyse(devs, raw, opts.base, opts.name, &report, &err) : NULL;
    if (raw && !rc && !dev)
        rc = cli_report(&err);
    if (dev) {
        if (report)
            fputs(report, stderr);
        rc = cli_write_json("calibrate", out, dev);
    }
    free(report);
    cJSON_Delete(dev);
    cJSON_Delete(raw);
    lr_devices_free(devs);
    return rc;
}
