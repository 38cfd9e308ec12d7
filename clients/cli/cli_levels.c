/*
 * cli_levels: `launchrank levels FILE`, Langguth et al.'s figure for the user's own
 * kernel and GPU (issue 45, item 6): the request's mesh kernel estimated on synthetic
 * meshes of the same number of cells whose neighbours are random inside diagonal blocks
 * of b cells, from b = 32 to a random mesh, with the level each b falls in named
 * (memory-bound plateau, on-chip bound, the cliff past the L2, random), and the
 * request's own mesh placed among them.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "cli.h"
#include "mesh.h"

static const lr_opt *const levels_opts[] = {&cli_opt_max_request_mb, NULL};

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

typedef struct level_row {
    int64_t b; /* 0: the request's own mesh */
    double glups, dram, l2;
    char limiter[24];
} level_row;

/* The index field of req that lists n cells' neighbours ("integer" with "values" and
 * n as its last dimension), or NULL; *per gets its neighbours per cell. */
static cJSON *mesh_field(cJSON *req, int64_t n, int64_t *per)
{
    cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(cJSON_GetObjectItem(req, "kernel"), "fields"))
    {
        const cJSON *dims = cJSON_GetObjectItem(f, "dims");
        int nd = cJSON_GetArraySize(dims);
        if (!cJSON_IsTrue(cJSON_GetObjectItem(f, "integer")) || nd < 1 ||
            !cJSON_GetObjectItem(f, "values"))
            continue;
        if ((int64_t)cJSON_GetArrayItem(dims, nd - 1)->valuedouble != n)
            continue;
        *per = 1;
        for (int d = 0; d < nd - 1; d++)
            *per *= (int64_t)cJSON_GetArrayItem(dims, d)->valuedouble;
        return f;
    }
    return NULL;
}

/* Writes the synthetic mesh of n cells with per neighbours each, random in diagonal
 * blocks of b cells (mesh.h), to path as int32-le. 0, or -1. */
static int write_mesh(const char *path, int64_t n, int64_t per, int64_t b)
{
    int32_t *a = mesh_diagonal_blocks(n, per, b, (uint64_t)b);
    FILE *f = a ? fopen(path, "wb") : NULL;
    int ok = f && fwrite(a, sizeof *a * (size_t)per, (size_t)n, f) == (size_t)n;
    free(a);
    return f && fclose(f) == 0 && ok ? 0 : -1;
}

/* The estimate of req into row. 0, or the exit status of the refusal (printed). */
static int estimate(lr_worker *w, const cJSON *req, level_row *row)
{
    char *body = cJSON_PrintUnformatted(req);
    lr_error err;
    lr_error_clear(&err);
    char *out = body ? lr_api_estimate(w, body, strlen(body), &err) : NULL;
    free(body);
    cJSON *o = out ? cJSON_Parse(out) : NULL;
    free(out);
    if (!o)
        return cli_report(&err);
    const cJSON *p = cJSON_GetObjectItem(o, "performance"),
                *e = cJSON_GetObjectItem(o, "estimate");
    row->glups = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "predicted"));
    row->dram = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "dram_load")) +
                cJSON_GetNumberValue(cJSON_GetObjectItem(e, "dram_store"));
    row->l2 = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "l2_load"));
    const char *lim = cJSON_GetStringValue(cJSON_GetObjectItem(p, "limiter"));
    snprintf(row->limiter, sizeof row->limiter, "%s", lim ? lim : "-");
    cJSON_Delete(o);
    return 0;
}

/* The level of row against the smallest diagonal block's DRAM traffic (the compulsory
 * one): random for the whole mesh, cliff once DRAM grows 5 % past it, memory while DRAM
 * limits, on-chip otherwise. */
static const char *level_of(const level_row *row, double dram0, int64_t n)
{
    if (row->b == n)
        return "random";
    if (row->dram > 1.05 * dram0)
        return "cliff";
    if (strcmp(row->limiter, "dram") == 0 || strcmp(row->limiter, "latency") == 0)
        return "memory";
    return "on-chip";
}

/* The table: rows[1..] the synthetic meshes by rising b, rows[0] the request's own. */
static void print_levels(const level_row *rows, int nrows, int64_t n)
{
    double dram0 = rows[1].dram;
    printf("%12s  %9s  %-12s %9s %9s  %s\n", "diag. block", "predicted", "limiter", "DRAM",
           "L2 load", "level");
    printf("%12s  %9s  %-12s %9s %9s\n", "cells", "GLup/s", "", "B/Lup", "B/Lup");
    for (int i = 1; i < nrows; i++)
        printf("%12lld  %9.3g  %-12s %9.1f %9.1f  %s\n", (long long)rows[i].b, rows[i].glups,
               rows[i].limiter, rows[i].dram, rows[i].l2, level_of(&rows[i], dram0, n));
    /* the own mesh: the first (smallest) diagonal block it does as well as */
    int64_t like = 0;
    for (int i = 1; i < nrows && !like; i++)
        if (rows[0].glups >= rows[i].glups * (1 - 1e-9))
            like = rows[i].b;
    printf("%12s  %9.3g  %-12s %9.1f %9.1f  %s\n", "your mesh", rows[0].glups, rows[0].limiter,
           rows[0].dram, rows[0].l2, level_of(&rows[0], dram0, n));
    if (like)
        printf("\nyour mesh performs like diagonal blocks of about %lld cells%s\n",
               (long long)like,
               like > 32 ? "; search.orderings ranks orderings that shrink them" : "");
    else
        printf("\nyour mesh performs below a random mesh of its size\n");
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
    cJSON *req = cJSON_ParseWithLength(body, len);
    free(body);
    const cJSON *dom = cJSON_GetObjectItem(req, "domain");
    int64_t n = cJSON_IsArray(dom) ? (int64_t)cJSON_GetArrayItem(dom, 0)->valuedouble : 0, per;
    cJSON *mesh = req && n > 0 ? mesh_field(req, n, &per) : NULL;
    if (!mesh || n > 2147483647) {
        cJSON_Delete(req);
        return cli_usage_error(argv[0],
                               "%s is not an estimate request of a kernel that reads "
                               "through an index field of its domain's cells "
                               "(docs/api.md, \"Index fields\")",
                               o.pos[0]);
    }
    lr_api_config cfg = {.local_files = 1,
                         .max_request_mb = o.max_request_mb < 0    ? 0
                                           : o.max_request_mb == 0 ? -1
                                                                   : (long)o.max_request_mb};
    lr_error err;
    lr_error_clear(&err);
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    char path[] = "/tmp/launchrank-levels-XXXXXX";
    int fd = w ? mkstemp(path) : -1;
    if (fd < 0) {
        rc = w ? cli_usage_error(argv[0], "cannot create a temporary file") : cli_report(&err);
        goto done;
    }
    close(fd);
    level_row rows[24];
    int nrows = 0;
    /* the request's own mesh first, then the synthetic ones */
    rows[nrows].b = 0;
    if ((rc = estimate(w, req, &rows[nrows])))
        goto done;
    nrows++;
    cJSON *file = cJSON_CreateObject();
    cJSON_AddStringToObject(file, "file", path);
    cJSON_ReplaceItemInObject(mesh, "values", file);
    for (int64_t b = 32;; b = b * 4 < n ? b * 4 : n) {
        fprintf(stderr, "launchrank levels: diagonal blocks of %lld cells\n", (long long)b);
        rows[nrows].b = b;
        if (write_mesh(path, n, per, b)) {
            rc = cli_usage_error(argv[0], "cannot write %s", path);
            goto done;
        }
        if ((rc = estimate(w, req, &rows[nrows])))
            goto done;
        nrows++;
        if (b >= n || nrows == (int)(sizeof rows / sizeof rows[0]))
            break;
    }
    print_levels(rows, nrows, n);
done:
    if (fd >= 0)
        unlink(path);
    lr_worker_free(w);
    lr_api_free(api);
    cJSON_Delete(req);
    return rc;
}
