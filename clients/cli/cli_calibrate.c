/*
 * cli_calibrate: `launchrank calibrate`, a device description of this machine's GPU
 * from measurements (calibrate/calibrate.h, docs/calibration.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "cli.h"

static const char calibrate_help[] =
    "Usage: launchrank calibrate [OPTIONS]\n"
    "       launchrank calibrate --from-raw FILE [OPTIONS]\n"
    "\n"
    "Measures this machine's NVIDIA GPU and prints a device description in the format\n"
    "of the built-in devices (GET /v1/devices/NAME), each figure with a \"sources\"\n"
    "entry saying how and when it was measured. It\n"
    "  - reads SM count, L2 size, register, shared-memory and thread limits and the SM\n"
    "    clock from the driver;\n"
    "  - times the calibration suite (184 configurations of five corpus kernels: an\n"
    "    array-of-structs copy, a transposed copy, 2-D and 3-D stencils, D3Q19 LBM)\n"
    "    with NVRTC and CUDA events, as `launchrank measure` does, L2 flushed;\n"
    "  - sets the DRAM and L2 bandwidths to the most traffic any of them moved, and\n"
    "    fits the eleven model-v2 parameters (docs/model.md) to the timings.\n"
    "A summary (bandwidths, how well the fitted model ranks each kernel before and\n"
    "after) goes to standard error. Takes about a minute on an H100 (--quick: a third\n"
    "of the configurations). Use the result as a request's \"device\" object (its\n"
    "\"sources\" are ignored there).\n"
    "\n"
    "Options:\n"
    "  --out FILE       write the description to FILE instead of standard output\n"
    "  --raw FILE       also keep the raw timings (the driver's figures and one time\n"
    "                   per configuration) in FILE, for --from-raw later\n"
    "  --from-raw FILE  no GPU: analyse timings kept with --raw\n"
    "  --name NAME      the device's name (default: the GPU's name + \" (calibrated)\")\n"
    "  --base DEVICE    built-in device whose figures are not measured (L1 geometry,\n"
    "                   line and sector sizes, capacity-miss fits); default\n"
    "                   H100-SXM5-80GB\n"
    "  --quick          every third configuration only (about 20 s)\n"
    "  --gpu N          CUDA device ordinal (default 0)\n"
    "  -h, --help       show this help\n"
    "\n"
    "Examples:\n"
    "  launchrank calibrate --out my-gpu.json --raw my-gpu.raw.json\n"
    "  launchrank calibrate --from-raw tests/data/calibration/h100_raw.json --name H100-cal\n"
    "\n"
    "Exit status: 0 success; 2 bad usage or a bad raw file; 1 no GPU (error code\n"
    "\"unavailable\") or other failures.\n";

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
    if (cli_wants_help(argc, argv))
        return fputs(calibrate_help, stdout), CLI_EXIT_OK;
    const char *out = NULL, *raw_path = NULL, *from = NULL, *name = NULL, *base = NULL;
    cal_opts o;
    cal_opts_init(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = !strcmp(a, "--out")        ? &out
                            : !strcmp(a, "--raw")      ? &raw_path
                            : !strcmp(a, "--from-raw") ? &from
                            : !strcmp(a, "--name")     ? &name
                            : !strcmp(a, "--base")     ? &base
                                                       : NULL;
        if (slot) {
            if (i + 1 >= argc)
                return cli_usage_error("calibrate", "%s needs a value", a);
            *slot = argv[++i];
        } else if (!strcmp(a, "--quick")) {
            o.quick = 1;
        } else if (!strcmp(a, "--gpu") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0 || v > 64)
                return cli_usage_error("calibrate", "--gpu needs a device ordinal 0..64");
            o.measure.device = (int)v;
        } else {
            return cli_usage_error("calibrate", "unknown argument '%s'", a);
        }
    }
    if (from && (raw_path || o.quick))
        return cli_usage_error("calibrate", "--from-raw analyses kept timings: --raw and "
                                            "--quick do not apply");
    lr_error err;
    lr_error_clear(&err);
    lr_devices *devs = lr_devices_load(&err);
    if (!devs)
        return cli_report(&err);
    int rc = 0;
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
    cJSON *dev = raw && !rc ? cal_analyse(devs, raw, base, name, &report, &err) : NULL;
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
