/*
 * cli_levels: `launchrank levels FILE`, Langguth et al.'s figure for the user's own
 * kernel and GPU (issue 45, item 6): the request's mesh kernel estimated on synthetic
 * meshes of the same number of cells whose neighbours are random inside diagonal blocks
 * of b cells, from b = 32 to a random mesh, with the level each b falls in named
 * (memory-bound plateau, on-chip bound, the cliff past the L2, random), and the
 * request's own mesh placed among them.
 */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "api.h"
#include "cli.h"

/* The table is computed on the user's own machine, where no daemon thread is held: ten
 * times the daemon's limit, room for the 12 estimates of a 16 M-cell mesh on a loaded
 * machine (32 s under ASan at a load of 11 on two cores, 2026-11-29). */
#define LEVELS_DEFAULT_TIME_LIMIT_S 300.0

static const lr_opt levels_time_limit = {
    .name = "--time-limit",
    .arg = "SECONDS",
    .unit = "seconds",
    .def = "300",
    .help = "wall-clock seconds the whole table may compute: the request's own mesh and "
            "each synthetic one are estimated in turn within it (the daemon's POST "
            "/v1/levels within its --time-limit, 30 s by default); past it, "
            "budget_exceeded (exit 2)",
    .kind = LR_OPT_REAL,
    .max = CLI_MAX_TIME_LIMIT_S,
    .offset = offsetof(cli_opts, time_limit_s)};

static const lr_opt *const levels_opts[] = {&cli_opt_max_request_mb, &levels_time_limit,
                                            NULL};

const lr_opt_cmd cli_levels_cmd = {
    .name = "levels",
    .usage =
        "Usage: launchrank levels [OPTIONS] FILE|-\n"
        "\n"
        "Draws, as a table, how a kernel on an unstructured mesh performs against the\n"
        "order of its cells (Langguth et al. 2015's figure, for your kernel and GPU). FILE\n"
        "is an estimate request whose kernel reads through an index field (docs/api.md,\n"
        "\"Index fields\"); its launch is kept. The kernel is estimated on synthetic\n"
        "meshes of the same number of cells whose neighbours are random inside diagonal\n"
        "blocks of b cells (b = 32, 128, 512, ... and a random mesh), and each b is named\n"
        "by its level: \"memory\" (DRAM-bound at the compulsory traffic: every ordering\n"
        "this local is as good), \"on-chip\" (L2 or L1 bound: neighbours leave the\n"
        "block's L1), \"cliff\" (the blocks outgrow the L2: DRAM traffic grows) and\n"
        "\"random\". The request's own mesh is estimated too, with the level it reaches.\n"
        "Volumes are bytes per cell (B/Lup), performance GLup/s (cells per second).\n"
        "\n",
    .opts = levels_opts,
    .epilogue = "\n"
                "Exit status: 0 success; 2 bad request or usage (a JSON error on stderr);\n"
                "1 other failures.\n"
                "\n"
                "Examples:\n"
                "  $ launchrank levels tests/data/langguth_fv_mesh_h200.json\n",
    .min_pos = 1,
    .max_pos = 1};

/* The figures of one row of the answer. */
typedef struct level_row {
    double glups, dram, l2;
    const char *limiter, *level;
} level_row;

static level_row row_of(const cJSON *r)
{
    const cJSON *p = cJSON_GetObjectItem(r, "performance");
    const char *lim = cJSON_GetStringValue(cJSON_GetObjectItem(p, "limiter"));
    return (level_row){
        .glups = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "predicted")),
        .dram = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "dram_load")) +
                cJSON_GetNumberValue(cJSON_GetObjectItem(r, "dram_store")),
        .l2 = cJSON_GetNumberValue(cJSON_GetObjectItem(r, "l2_load")),
        .limiter = lim ? lim : "-",
        .level = cJSON_GetStringValue(cJSON_GetObjectItem(r, "level"))};
}

static void print_row(const char *first, const level_row *r)
{
    printf("%12s  %9.3g  %-12s %9.1f %9.1f  %s\n", first, r->glups, r->limiter, r->dram, r->l2,
           r->level ? r->level : "-");
}

/* The table of lr_api_levels' answer a: the synthetic meshes by rising b, then the
 * request's own. */
static void print_levels(const cJSON *a)
{
    printf("%12s  %9s  %-12s %9s %9s  %s\n", "diag. block", "predicted", "limiter", "DRAM",
           "L2 load", "level");
    printf("%12s  %9s  %-12s %9s %9s\n", "cells", "GLup/s", "", "B/Lup", "B/Lup");
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(a, "rows"))
    {
        char b[24];
        level_row row = row_of(r);
        snprintf(b, sizeof b, "%lld",
                 (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(r, "block_cells")));
        print_row(b, &row);
    }
    const cJSON *mine = cJSON_GetObjectItem(a, "mesh"),
                *like = cJSON_GetObjectItem(mine, "like_block_cells");
    level_row row = row_of(mine);
    print_row("your mesh", &row);
    if (cJSON_IsNumber(like))
        printf("\nyour mesh performs like diagonal blocks of about %lld cells%s\n",
               (long long)like->valuedouble,
               like->valuedouble > 32 ? "; search.orderings ranks orderings that shrink them"
                                      : "");
    else
        printf("\nyour mesh performs below a random mesh of its size\n");
}

static void say_block(void *user, int64_t b)
{
    fprintf(stderr, "launchrank levels: diagonal blocks of %lld cells\n", (long long)b);
}

int cli_cmd_levels(int argc, char **argv)
{
    cli_opts o;
    int rc;
    char *body;
    size_t len;
    if (cli_parse_args(&cli_levels_cmd, argc, argv, &o, &rc) ||
        (rc = cli_read_request(argv[0], o.pos[0], &body, &len)))
        return rc;
    lr_api_config cfg = {.local_files = 1,
                         .time_limit_s =
                             o.time_limit_s > 0 ? o.time_limit_s : LEVELS_DEFAULT_TIME_LIMIT_S,
                         .max_request_mb = o.max_request_mb < 0    ? 0
                                           : o.max_request_mb == 0 ? -1
                                                                   : (long)o.max_request_mb};
    lr_error err;
    lr_error_clear(&err);
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    char *out = w ? lr_api_levels(w, body, len, say_block, NULL, &err) : NULL;
    cJSON *a = out ? cJSON_Parse(out) : NULL;
    if (a) {
        print_levels(a);
        rc = cli_flush_stdout(argv[0]);
    } else
        rc = out ? cli_usage_error(argv[0], "out of memory") : cli_report(&err);
    cJSON_Delete(a);
    free(out);
    free(body);
    lr_worker_free(w);
    lr_api_free(api);
    return rc;
}
