/*
 * cli_fit: `launchrank fit`, a device's model-v2 parameters refitted to the measurement
 * log of the store (calibrate/refit.h, docs/calibration.md).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "cli.h"
#include "fit.h"
#include "refit.h"
#include "store.h"

static const lr_opt fit_db = {.name = "--db",
                              .arg = "PATH",
                              .def = CLI_DEFAULT_DB,
                              .help = "the database with the measurement log; it must exist",
                              .kind = LR_OPT_TEXT,
                              .offset = offsetof(cli_opts, db)};
static const lr_opt fit_name = {.name = "--name",
                                .arg = "NAME",
                                .def = "DEVICE-refit",
                                .help = "the new device's name (never a built-in's name)",
                                .kind = LR_OPT_TEXT,
                                .offset = offsetof(cli_opts, name)};
static const lr_opt *const fit_opts[] = {&fit_db, &cli_opt_out, &fit_name, NULL};

_Static_assert(CAL_NPARAMS - CAL_NHELD == CLI_FIT_PARAMS_FREE &&
                   CAL_NHELD == CLI_FIT_PARAMS_HELD,
               "estimator/params.def changed the fitted or held count: update "
               "CLI_FIT_PARAMS_TEXT and its numbers in cli.h");

static const lr_opt_cmd fit_cmd = {
    .name = "fit",
    .usage =
        "Usage: launchrank fit [--db PATH] [--out FILE] [--name NAME] DEVICE\n"
        "\n"
        "Refits the " CLI_FIT_PARAMS_TEXT " of DEVICE\n"
        "(docs/model.md, \"Fitted parameters\") to the GPU timings in the measurement log\n"
        "of the database (every `launchrank measure --db PATH` and `launchrank rank\n"
        "--measure-top K --db PATH` run and the daemon's measured rankings add to it).\n"
        "It uses the measurements whose request named DEVICE (a built-in or a device\n"
        "stored with `launchrank devices add`, by name, any case), estimates each\n"
        "measured launch on DEVICE, groups them by kernel and runs the fit of\n"
        "`launchrank calibrate`. How well DEVICE and the refitted\n"
        "device predict those measurements (per kernel: runs, top-1 %, Spearman rho,\n"
        "median error) goes to standard error; the new description (DEVICE's figures with\n"
        "the refitted parameters and a \"sources\" entry) to standard output. Nothing is\n"
        "stored: `launchrank devices add` it when it is better. Measurements taken before\n"
        "launchrank kept their request cannot be refitted from and are skipped (counted).\n"
        "\n"
        "It refuses (exit 2) fewer than 20 usable measurements, fewer than 2 kernels, or\n"
        "timings that vary by less than 10 % within every kernel.\n"
        "\n",
    .opts = fit_opts,
    .epilogue =
        "\n"
        "Exit status: 0 success; 2 bad usage, an unknown device or too few or too uniform\n"
        "measurements; 1 a database that cannot be read or other failures.\n"
        "\n"
        "Examples:\n"
        "  $ launchrank rank --db " CLI_DEFAULT_DB " --measure-top 5 k1.json\n"
        "  $ launchrank rank --db " CLI_DEFAULT_DB " --measure-top 5 k2.json\n"
        "  $ launchrank fit --name lab --out lab.json H100-SXM5-80GB\n"
        "  $ launchrank devices add lab.json\n",
    .min_pos = 1,
    .max_pos = 1,
    .missing = "which device? (launchrank devices lists them)"};

int cli_cmd_fit(int argc, char **argv)
{
    cli_opts o;
    int rc;
    if (cli_parse_args(&fit_cmd, argc, argv, &o, &rc))
        return rc;
    const char *db = o.db ? o.db : CLI_DEFAULT_DB, *device = o.pos[0];
    /* st_open creates a missing database; a refit only reads one. */
    if (access(db, F_OK) != 0) {
        fprintf(stderr, "launchrank fit: cannot open '%s': %s\n", db, strerror(errno));
        return CLI_EXIT_FAILED;
    }
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.db_path = db};
    lr_api *api = lr_api_new(&cfg, &err);
    if (!api)
        return cli_report(&err);
    const char *warning = lr_api_devices_warning(api);
    if (warning)
        fprintf(stderr, "launchrank fit: warning: %s\n", warning);
    st_store *st = st_open(db, &err);
    char *report = NULL;
    cJSON *dev = NULL;
    if (!st) {
        rc = cli_report(&err);
    } else {
        dev = cal_refit(lr_api_device_list(api), st, device, o.name, NULL, &report, &err);
        if (report)
            fputs(report, stderr);
        rc = dev ? cli_write_json("fit", o.out, dev) : cli_report(&err);
    }
    free(report);
    cJSON_Delete(dev);
    st_close(st);
    lr_api_free(api);
    return rc;
}
