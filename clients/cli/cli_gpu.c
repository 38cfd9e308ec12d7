/*
 * cli_gpu: `launchrank emit` (the CUDA source of one configuration, to take home) and
 * `launchrank measure` (compile it with NVRTC and time it on the GPU). Both read the
 * same request as `estimate`; the work is done by protocol/api.c and cudagen/.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "cli.h"

static const lr_opt *const emit_opts[] = {NULL};

static const lr_opt_cmd emit_cmd = {
    .name = "emit",
    .usage =
        "Usage: launchrank emit [OPTIONS] FILE|-\n"
        "\n"
        "Prints the CUDA C++ source of the kernel a request describes, for its launch\n"
        "configuration (the request of `launchrank estimate`): one thread per block x\n"
        "folding, the domain guard, every load and store of every field. The kernel is\n"
        "`extern \"C\" __global__ void lr_kernel(...)` with one pointer per field; its header\n"
        "comment states block, grid and folding. Compile it with nvcc or NVRTC.\n"
        "\n",
    .opts = emit_opts,
    .epilogue = "\n"
                "Exit status: 0 success; 2 bad request or usage; 1 other failures.\n"
                "\n"
                "Examples:\n"
                "  $ launchrank emit stencil3d.json > stencil3d.cu\n",
    .min_pos = 1,
    .max_pos = 1};

static const lr_opt measure_db = {.name = "--db",
                                  .arg = "PATH",
                                  .help = "keep the measurement in the SQLite file PATH",
                                  .kind = LR_OPT_TEXT,
                                  .offset = offsetof(cli_opts, db)};
static const lr_opt *const measure_opts[] = {&measure_db, &cli_opt_pretty, NULL};

static const lr_opt_cmd measure_cmd = {
    .name = "measure",
    .usage =
        "Usage: launchrank measure [OPTIONS] FILE|-\n"
        "\n"
        "Predicts one launch configuration (as `launchrank estimate`) and also compiles the\n"
        "generated kernel with NVRTC and times it on the GPU with CUDA events: warm-up runs,\n"
        "then timed repetitions, each after flushing the L2 (set with the request's\n"
        "\"measure\": {\"warmup\": 3, \"repetitions\": 10, \"flush_l2\": true}). Prints the\n"
        "estimate JSON plus \"measured\": min/median/max time (ms), GLup/s of the median,\n"
        "the GPU and driver, and predicted/measured. With --db the measurement is also\n"
        "appended to the SQLite file, where it is kept.\n"
        "\n"
        "Needs an NVIDIA GPU with its driver (libcuda) and NVRTC; without them it exits 1\n"
        "with an error of code \"unavailable\".\n"
        "\n",
    .opts = measure_opts,
    .epilogue = "\n"
                "Exit status: 0 success; 2 bad request or usage; 1 no GPU or other failures.\n"
                "\n"
                "Examples:\n"
                "  $ launchrank measure --pretty stencil3d.json\n",
    .min_pos = 1,
    .max_pos = 1};

/* Runs one api call on the request in the file named by the command's argument. */
static int run(int argc, char **argv, const lr_opt_cmd *cmd,
               char *(*call)(lr_worker *, const char *, size_t, lr_error *), int json)
{
    cli_opts o;
    char *body, *resp;
    size_t len;
    lr_error err;
    int rc;
    if (cli_parse_args(cmd, argc, argv, &o, &rc) ||
        (rc = cli_read_request(argv[0], o.pos[0], &body, &len)))
        return rc;
    lr_error_clear(&err);
    lr_api_config cfg = {.db_path = o.db, .threads = 1};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    resp = w ? call(w, body, len, &err) : NULL;
    if (!resp)
        rc = cli_report(&err);
    else if (json)
        rc = cli_print_json(argv[0], resp, o.pretty);
    else {
        fputs(resp, stdout);
        rc = cli_flush_stdout(argv[0]);
    }
    free(resp);
    free(body);
    lr_worker_free(w);
    lr_api_free(api);
    return rc;
}

int cli_cmd_emit(int argc, char **argv)
{
    return run(argc, argv, &emit_cmd, lr_api_emit, 0);
}

int cli_cmd_measure(int argc, char **argv)
{
    return run(argc, argv, &measure_cmd, lr_api_measure, 1);
}
