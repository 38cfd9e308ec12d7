/*
 * launchrank.c: the command-line front end, one binary with subcommands.
 *
 * It only moves bytes: request JSON from a file or stdin goes to the lr_api_* calls
 * of protocol/api.h unchanged (except --top, which edits search.top), and their
 * response JSON goes to stdout unchanged, so the CLI and the daemon can never answer
 * the same request differently. Errors of a request print the daemon's error body
 * on stderr; the exit status is 0 on success, 2 for bad input or usage, 1 for
 * anything else (unreadable file, cache database that cannot be used).
 *
 * Subcommands live in one table (commands[] below); adding one is one line there
 * plus its function. Shared plumbing is in cli_util.c, tables in cli_table.c, the
 * cache commands in cli_cache.c, devices in cli_devices.c. `serve` hands the process to srv_main before any thread
 * exists.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "api.h"
#include "cli.h"
#include "cli_kt.h"
#include "cli_table.h"
#include "lr_error.h"

/* the daemon executable `serve` runs (clients/cli/launchrank_serve.c) */
#define SERVE_EXE "launchrank-serve"

#ifndef LR_VERSION /* set by meson from project(version:) */
#define LR_VERSION "unknown"
#endif

/* ---- the api, once per process -------------------------------------------------- */

/* Creates the api and this thread's worker. With --db, a cache that cannot be used
 * is a warning, not a failure: the prediction is the same without it. Returns 0, or
 * the exit status of an error already printed. */
static int open_api(const char *cmd, const cli_opts *o, double time_limit_s, lr_api **api,
                    lr_worker **w)
{
    lr_api_config cfg = {.db_path = o->db,
                         .local_files = 1,
                         .threads = (int)o->threads,
                         .isl_max_operations = 0,
                         .time_limit_s = time_limit_s,
                         .max_request_mb = o->max_request_mb < 0    ? 0
                                           : o->max_request_mb == 0 ? -1
                                                                    : (long)o->max_request_mb};
    lr_error err;
    lr_error_clear(&err);
    *w = NULL;
    *api = lr_api_new(&cfg, &err);
    if (!*api)
        return cli_report(&err);
    const char *status = lr_api_cache_status(*api);
    if (o->db && status && strcmp(status, "ok") != 0)
        fprintf(stderr, "launchrank %s: warning: running without the cache: %s\n", cmd, status);
    if (lr_api_devices_warning(*api))
        fprintf(stderr, "launchrank %s: warning: %s\n", cmd, lr_api_devices_warning(*api));
    *w = lr_worker_new(*api, &err);
    if (!*w) {
        lr_api_free(*api);
        *api = NULL;
        return cli_report(&err);
    }
    return 0;
}

static void close_api(lr_api *api, lr_worker *w)
{
    lr_worker_free(w);
    lr_api_free(api);
}

/* ---- estimate ------------------------------------------------------------------- */

static const lr_opt *const estimate_opts[] = {&cli_opt_db_cache, &cli_opt_max_request_mb,
                                              &cli_opt_pretty, NULL};

static const lr_opt_cmd estimate_cmd = {
    .name = "estimate",
    .usage =
        "Usage: launchrank estimate [OPTIONS] FILE|-\n"
        "\n"
        "Predicts the performance of one launch configuration: reads a request (kernel,\n"
        "domain, device, launch) from FILE or, with -, from standard input, and prints the\n"
        "response JSON: data volumes in bytes per lattice update (B/Lup), the limiting\n"
        "level and the predicted performance in GLup/s. docs/api.md describes both.\n"
        "\n",
    .opts = estimate_opts,
    .epilogue =
        "\n"
        "Exit status: 0 success; 2 bad request or usage (a JSON error with code, message\n"
        "and the path of the offending input is printed on stderr); 1 other failures\n"
        "(file cannot be read, ...).\n"
        "\n"
        "Examples:\n"
        "  $ launchrank estimate --pretty stencil2d.json\n",
    .min_pos = 1,
    .max_pos = 1};

static int cmd_estimate(int argc, char **argv)
{
    cli_opts o;
    lr_api *api;
    lr_worker *w;
    char *body, *resp;
    size_t len;
    lr_error err;
    int rc;
    if (cli_parse_args(&estimate_cmd, argc, argv, &o, &rc) ||
        (rc = cli_read_request(argv[0], o.pos[0], &body, &len)))
        return rc;
    if ((rc = open_api(argv[0], &o, 0, &api, &w))) {
        free(body);
        return rc;
    }
    lr_error_clear(&err);
    resp = lr_api_estimate(w, body, len, &err);
    rc = resp ? cli_print_json(argv[0], resp, o.pretty) : cli_report(&err);
    free(resp);
    free(body);
    close_api(api, w);
    return rc;
}

/* ---- rank ----------------------------------------------------------------------- */

/* --threads at most: beyond a thousand, a number is a typo rather than a machine
 * (the daemon uses the same bound). */
#define CLI_MAX_THREADS 1024
/* --top at most: far above any search space a request may ask for; the api applies
 * its own, stricter limit and reports it with the request's path. */
#define CLI_MAX_TOP 1000000
/* --measure-top at most: timing takes seconds per configuration; the api's bound. */
#define CLI_MAX_MEASURE_TOP 32

static const lr_opt rank_table = {
    .name = "--table",
    .help = "print a table instead of JSON: the recommendation and why, the tie group, "
            "best/median/worst and the baseline advice on top; then rank, block, folding, "
            "predicted GLup/s, limiter, L2 and DRAM volumes (B/Lup), L1 cycles per Lup, "
            "occupancy and idle threads (%), and a mark (R recommended, = tied, ! warnings)",
    .kind = LR_OPT_FLAG,
    .offset = offsetof(cli_opts, table)};
static const lr_opt rank_format = {
    .name = "--format",
    .arg = "F",
    .def = "json",
    .help = "json, table (as --table) or t4: the T4 results JSON of the auto-tuning "
            "community, as Kernel Tuner writes it, with block_size_x/y/z and folding_x/y/z, "
            "the predicted time (ms) and, for timed configurations, the measured time (ms); "
            "see docs/kernel_tuner.md",
    .kind = LR_OPT_CHOICE,
    .choices = "json table t4",
    .offset = offsetof(cli_opts, format)};
static const lr_opt rank_top = {
    .name = "--top",
    .arg = "K",
    .unit = "configurations",
    .def = "the request's search.top, else all",
    .help = "keep the K best configurations, 0 = all (sets search.top of the request)",
    .kind = LR_OPT_INT,
    .max = CLI_MAX_TOP,
    .offset = offsetof(cli_opts, top)};
static const lr_opt rank_threads = {.name = "--threads",
                                    .arg = "N",
                                    .unit = "threads",
                                    .def = "0: every core",
                                    .help = "threads evaluating configurations",
                                    .kind = LR_OPT_INT,
                                    .max = CLI_MAX_THREADS,
                                    .offset = offsetof(cli_opts, threads)};
static const lr_opt rank_measure_top = {
    .name = "--measure-top",
    .arg = "K",
    .unit = "configurations",
    .help = "compile and time the K best predicted configurations on the GPU (sets "
            "measure.top; needs an NVIDIA GPU: without one, stderr says so before the "
            "ranking, which comes back with measure.status \"unavailable\", and the exit "
            "status is 3 unless --allow-no-gpu)",
    .kind = LR_OPT_INT,
    .max = CLI_MAX_MEASURE_TOP,
    .offset = offsetof(cli_opts, measure_top)};
static const lr_opt rank_time_limit = {
    .name = "--time-limit",
    .arg = "SECONDS",
    .unit = "seconds",
    .def = "30, as the daemon's --time-limit",
    .help = "wall-clock seconds the whole ranking may compute (decimals allowed, e.g. 0.5). "
            "Past it no configuration is started: the answer ranks those finished (cached "
            "or estimated) and says so in \"incomplete\" {evaluated, of} and "
            "decision.incomplete; when none finished it is a budget_exceeded error (exit 2)",
    .kind = LR_OPT_REAL,
    .max = CLI_MAX_TIME_LIMIT_S,
    .offset = offsetof(cli_opts, time_limit_s)};

static const lr_opt rank_progress = {
    .name = "--progress",
    .help = "show progress (configurations evaluated) on stderr also when it is not a "
            "terminal, one line per percent (on a terminal it is shown anyway, on one line)",
    .kind = LR_OPT_FLAG,
    .offset = offsetof(cli_opts, progress)};

static const lr_opt rank_allow_no_gpu = {
    .name = "--allow-no-gpu",
    .help = "with --measure-top, exit 0 when there is no GPU to time on (the ranking "
            "alone, as scripts that run on any machine want), rather than 3",
    .kind = LR_OPT_FLAG,
    .offset = offsetof(cli_opts, allow_no_gpu)};

static const lr_opt rank_all_unlaunchable = {
    .name = "--all-unlaunchable",
    .help = "the table lists every configuration that cannot be launched, with its reason "
            "(else one line: how many, and the most common reason)",
    .kind = LR_OPT_FLAG,
    .offset = offsetof(cli_opts, all_unlaunchable)};

static const lr_opt rank_block = {
    .name = "--block",
    .arg = "MAP",
    .def = "block_size_x,block_size_y,block_size_z",
    .help = "with --format t4: what the T4 configuration calls the block sides, the "
            "mapping import-kt reads: up to three comma-separated items, x first, each "
            "your tune_param's name, or a number for a side that is no tune_param (left "
            "out; every configuration must have that value there); missing trailing items "
            "are 1",
    .kind = LR_OPT_CALL,
    .set = cli_kt_set_block};
static const lr_opt rank_folding = {
    .name = "--folding",
    .arg = "MAP",
    .def = "folding_x,folding_y,folding_z",
    .help = "with --format t4: what it calls the points per thread (the folding), as "
            "--block (e.g. 1,1,tile_size_z)",
    .kind = LR_OPT_CALL,
    .set = cli_kt_set_folding};

static const lr_opt *const rank_opts[] = {
    &rank_table,       &rank_format,     &rank_block,    &rank_folding,
    &rank_top,         &rank_threads,    &rank_measure_top,
    &rank_allow_no_gpu, &rank_all_unlaunchable,
    &cli_opt_db_cache, &cli_opt_max_request_mb, &rank_time_limit, &rank_progress,
    &cli_opt_pretty,   NULL};

static const lr_opt_cmd rank_cmd = {
    .name = "rank",
    .usage =
        "Usage: launchrank rank [OPTIONS] FILE|-\n"
        "\n"
        "Ranks the launch configurations (block sizes and thread foldings) of a kernel by\n"
        "predicted performance: reads a request (kernel, domain, device, optional search)\n"
        "from FILE or, with -, from standard input, and prints the response JSON, best\n"
        "first, with the configurations that cannot be launched and why, plausibility\n"
        "warnings, and a decision: the configurations the model cannot tell apart from\n"
        "the best (within the device's rank precision), the one recommended among them\n"
        "and why, and with search.baseline (your current launch) whether to keep it.\n"
        "\n",
    .opts = rank_opts,
    .epilogue =
        "\n"
        "On a terminal (or with --progress), progress (configurations evaluated) is\n"
        "shown on stderr.\n"
        "\n"
        "Exit status: 0 success; 2 bad request or usage (a JSON error with code, message\n"
        "and the path of the offending input is printed on stderr); 3 --measure-top\n"
        "without a GPU to time on: stderr says so first, the ranking is printed\n"
        "unmeasured (--allow-no-gpu makes it 0); 1 other failures.\n"
        "\n"
        "Examples:\n"
        "  $ launchrank rank --table --top 10 stencil2d.json\n"
        "  $ launchrank rank --format t4 --measure-top 5 stencil2d.json\n"
        "  $ launchrank rank --format t4 --block bx,by,1 stencil3d.json\n",
    .min_pos = 1,
    .max_pos = 1};

/* The progress line on a terminal. The api may report from its ranking threads, so
 * the state is locked; a line is written only when the percentage changes, which
 * bounds the output to a hundred lines however many configurations there are. */
typedef struct cli_progress {
    pthread_mutex_t lock;
    int percent; /* last shown; -1 before the first line */
    int width;   /* characters of the last line, to blank it at the end */
    int tty;     /* stderr is a terminal: one line rewritten; else a line per percent */
} cli_progress;

static void show_progress(void *user, size_t done, size_t total)
{
    cli_progress *p = user;
    if (total == 0)
        return;
    int percent = (int)(done * 100 / total);
    pthread_mutex_lock(&p->lock);
    if (percent != p->percent) {
        p->percent = percent;
        p->width = fprintf(stderr,
                           p->tty ? "\rranking: %zu/%zu configurations"
                                  : "ranking: %zu/%zu configurations\n",
                           done, total) -
                   1;
        fflush(stderr);
    }
    pthread_mutex_unlock(&p->lock);
}

static void clear_progress(cli_progress *p)
{
    if (p->percent >= 0 && p->tty)
        fprintf(stderr, "\r%*s\r", p->width > 0 ? p->width : 0, "");
}

/* T4 results have no place for "incomplete": a ranking past its time limit says on
 * stderr that they hold only the configurations evaluated. */
static void warn_incomplete(const char *cmd, const char *resp)
{
    cJSON *r = cJSON_Parse(resp);
    const cJSON *inc = cJSON_GetObjectItemCaseSensitive(r, "incomplete");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(inc, "message");
    if (cJSON_IsString(msg))
        fprintf(stderr, "launchrank %s: warning: %s; the T4 results hold only those\n", cmd,
                msg->valuestring);
    cJSON_Delete(r);
}

/* The request with --top and --measure-top written into it (search.top, measure.top):
 * a new body the caller frees with cJSON_free, or NULL to send body unchanged (no
 * such option, or a body that is not a JSON object, which the api then reports). */
static char *rank_edit_request(const char *body, const cli_opts *o)
{
    char *edited = NULL;
    if (o->top >= 0)
        edited = cli_set_request_number(body, "search", "top", (long)o->top);
    if (o->measure_top >= 0) {
        char *m = cli_set_request_number(edited ? edited : body, "measure", "top",
                                         (long)o->measure_top);
        if (m) {
            cJSON_free(edited);
            edited = m;
        }
    }
    return edited;
}

/* The names of the T4 configuration: --block and --folding over the defaults. 0, or
 * the exit status of a usage error (a name given to two sides). */
static int rank_t4_names(const char *cmd, const cli_opts *o, cli_kt_map *names)
{
    char why[LR_OPT_WHY_MAX];
    *names = cli_kt_t4_default;
    if ((o->block && cli_kt_map_parse(o->block, names->block, why, sizeof why)) ||
        (o->folding && cli_kt_map_parse(o->folding, names->folding, why, sizeof why)))
        return cli_usage_error(cmd, "%s", why); /* checked by lr_opt already */
    const cli_kt_side *all[6] = {&names->block[0],   &names->block[1],   &names->block[2],
                                 &names->folding[0], &names->folding[1], &names->folding[2]};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < i; j++)
            if (all[i]->name[0] && !strcmp(all[i]->name, all[j]->name))
                return cli_usage_error(cmd,
                                       "--block and --folding name '%s' twice: a T4 "
                                       "configuration has one value per tune_param",
                                       all[i]->name);
    return 0;
}

/* Prints a rank response as --format or --table ask; returns the exit status. */
static int rank_print(const char *cmd, const char *resp, const cli_opts *o)
{
    if (o->format && !strcmp(o->format, "t4")) {
        cli_kt_map names;
        int rc = rank_t4_names(cmd, o, &names);
        if (rc)
            return rc;
        warn_incomplete(cmd, resp);
        return cli_t4_print(resp, &names);
    }
    if (!o->table)
        return cli_print_json(cmd, resp, o->pretty);
    if (cli_table_rank(stdout, resp, o->all_unlaunchable) != 0) {
        fprintf(stderr, "launchrank rank: the response has no results to tabulate\n");
        return CLI_EXIT_FAILED;
    }
    return cli_flush_stdout(cmd);
}

/* Whether resp says that its measurement could not run (measure.status
 * "unavailable": no GPU, driver or NVRTC); if so, says why on stderr, before the
 * ranking is printed, so that the reason is the first thing a reader sees. */
static int measure_unavailable(const char *cmd, const char *resp, const cli_opts *o)
{
    cJSON *r = cJSON_Parse(resp);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "measure");
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "status"));
    const char *reason = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "reason"));
    int unavailable = status && !strcmp(status, "unavailable");
    int fails = o->measure_top > 0 && !o->allow_no_gpu;
    if (unavailable)
        fprintf(stderr,
                "launchrank %s: cannot measure: %s; the ranking is predicted only (exit "
                "status %d%s)\n",
                cmd, reason ? reason : "no GPU", fails ? CLI_EXIT_NOT_MEASURED : 0,
                fails ? "; --allow-no-gpu makes it 0" : "");
    cJSON_Delete(r);
    return unavailable;
}

/* Prints a rank response as --format or --table ask; returns the exit status:
 * CLI_EXIT_NOT_MEASURED when --measure-top could not time, unless --allow-no-gpu. A
 * request's own measure.top keeps exit 0, as before: the Python client's Local
 * backend reads measure.status, as from the daemon. */
static int rank_output(const char *cmd, const char *resp, const cli_opts *o)
{
    int unmeasured = measure_unavailable(cmd, resp, o);
    int rc = rank_print(cmd, resp, o);
    return rc == CLI_EXIT_OK && unmeasured && o->measure_top > 0 && !o->allow_no_gpu
               ? CLI_EXIT_NOT_MEASURED
               : rc;
}

static int cmd_rank(int argc, char **argv)
{
    cli_opts o;
    lr_api *api;
    lr_worker *w;
    char *body, *edited, *resp;
    size_t len;
    lr_error err;
    cli_progress progress = {.lock = PTHREAD_MUTEX_INITIALIZER, .percent = -1};
    int rc;
    if (cli_parse_args(&rank_cmd, argc, argv, &o, &rc))
        return rc;
    if (o.format && strcmp(o.format, "table") && o.table)
        return cli_usage_error(argv[0], "--table and --format %s contradict each other",
                               o.format);
    o.table |= o.format && !strcmp(o.format, "table");
    if ((o.block || o.folding) && !(o.format && !strcmp(o.format, "t4")))
        return cli_usage_error(argv[0],
                               "%s names tune_params in T4 results: it needs --format t4",
                               o.block ? "--block" : "--folding");
    cli_kt_map names;
    if (o.format && !strcmp(o.format, "t4") && (rc = rank_t4_names(argv[0], &o, &names)))
        return rc; /* before the ranking, which may take long */
    if ((rc = cli_read_request(argv[0], o.pos[0], &body, &len)))
        return rc;
    if ((edited = rank_edit_request(body, &o)))
        len = strlen(edited);
    if ((rc = open_api(argv[0], &o, o.time_limit_s, &api, &w))) {
        cJSON_free(edited);
        free(body);
        return rc;
    }
    lr_error_clear(&err);
    progress.tty = isatty(2);
    resp = lr_api_rank(w, edited ? edited : body, len,
                       progress.tty || o.progress ? show_progress : NULL, &progress, &err);
    clear_progress(&progress);
    rc = resp ? rank_output(argv[0], resp, &o) : cli_report(&err);
    free(resp);
    cJSON_free(edited);
    free(body);
    close_api(api, w);
    return rc;
}

/* ---- serve ---------------------------------------------------------------------- */

/* The daemon is its own executable, launchrank-serve, next to this one (or on PATH):
 * only `serve` needs libmicrohttpd and its TLS libraries, so the other subcommands
 * start without loading them. exec keeps the process id, so signals sent to
 * `launchrank serve` reach the daemon. */
static int cmd_serve(int argc, char **argv)
{
    char self[4096], path[4096 + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) {
        fprintf(stderr, "launchrank serve: out of memory\n");
        return CLI_EXIT_FAILED;
    }
    args[0] = (char *)SERVE_EXE;
    for (int i = 1; i < argc; i++)
        args[i] = argv[i];
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            snprintf(path, sizeof path, "%s/%s", self, SERVE_EXE);
            execv(path, args);
        }
    }
    execvp(SERVE_EXE, args); /* installed elsewhere on PATH */
    fprintf(stderr,
            "launchrank serve: cannot start %s (looked next to this executable and on PATH): "
            "%s\n",
            SERVE_EXE, strerror(errno));
    free(args);
    return CLI_EXIT_FAILED;
}

/* ---- dispatch ------------------------------------------------------------------- */

/* Every subcommand, in the order the top-level help lists them. run gets the
 * arguments from the subcommand's name on (argv[0] is "rank") and returns the exit
 * status. To add one, write its function and add one line here. */
typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} cli_command;

static const cli_command commands[] = {
    {"estimate", cmd_estimate, "predict the performance of one launch configuration"},
    {"rank", cmd_rank, "rank the launch configurations of a kernel, best first"},
    {"levels", cli_cmd_levels, "a mesh kernel's performance against its cells' order"},
    {"devices", cli_cmd_devices, "list the GPU models, show one, or store one (add)"},
    {"serve", cmd_serve, "run the HTTP daemon (JSON API, shared prediction cache)"},
    {"cache", cli_cmd_cache, "show, clear or export the SQLite prediction cache"},
    {"registers", cli_cmd_registers, "registers, spills and memory of CUDA kernels (NVRTC)"},
    {"emit", cli_cmd_emit, "print the CUDA source of one configuration's kernel"},
    {"measure", cli_cmd_measure, "compile and time one configuration on the GPU"},
    {"calibrate", cli_cmd_calibrate, "measure this GPU into a device description"},
    {"fit", cli_cmd_fit, "refit a device's model parameters to the measurement log"},
    {"import-kt", cli_cmd_import_kt, "add a Kernel Tuner cache file to the measurement log"},
};

static void print_top_help(FILE *f)
{
    fprintf(f, "Usage: launchrank COMMAND [OPTIONS] [ARGS]\n"
               "\n"
               "Predicts the performance of GPU stencil kernels from JSON kernel\n"
               "descriptions (address expressions of each field's loads and stores) with an\n"
               "analytic cache and bandwidth model, and ranks launch configurations.\n"
               "\n"
               "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n"
               "Options:\n"
               "  -h, --help   show this help; `launchrank COMMAND --help` explains a command\n"
               "  --version    print the program and model versions\n"
               "\n"
               "estimate and rank run without a cache unless given --db PATH, so a run\n"
               "depends only on its input; serve caches in " CLI_DEFAULT_DB " by default.\n"
               "\n"
               "Exit status: 0 success; 2 bad input (a JSON error on stderr) or bad usage;\n"
               "1 other failures (unreadable file, unusable cache database, ...); 3 rank\n"
               "--measure-top without a GPU (the ranking unmeasured; see rank --help).\n"
               "\n"
               "Examples:\n"
               "  $ launchrank devices --table\n"
               "  $ launchrank rank --table --top 10 stencil2d.json\n"
               "  $ launchrank serve --listen 127.0.0.1:8080\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_top_help(stderr);
        return CLI_EXIT_BAD_INPUT;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_top_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("launchrank %s (model %s)\n", LR_VERSION, LR_MODEL_VERSION);
        return CLI_EXIT_OK;
    }
    /* `launchrank help [COMMAND]`, for those who type it. */
    if (strcmp(name, "help") == 0 && argc <= 3) {
        if (argc == 2) {
            print_top_help(stdout);
            return CLI_EXIT_OK;
        }
        char help_opt[] = "--help";
        char *help_argv[] = {argv[2], help_opt, NULL};
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[2], commands[i].name) == 0)
                return commands[i].run(2, help_argv);
        name = argv[2];
    } else {
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(name, commands[i].name) == 0)
                return commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "launchrank: unknown command '%s'\nTry 'launchrank --help'.\n", name);
    return CLI_EXIT_BAD_INPUT;
}
