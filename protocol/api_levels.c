/*
 * api_levels: Langguth et al.'s figure for the user's own kernel and GPU (api.h,
 * lr_api_levels; docs/meshes.md). The request's mesh kernel is estimated on synthetic
 * meshes of the same number of cells whose neighbours are random inside diagonal blocks
 * of b cells (mesh.h), from b = 32 to a random mesh, and each b is named by its level
 * (memory-bound plateau, on-chip bound, the cliff past the L2, random); the request's
 * own mesh is placed among them. The synthetic neighbour lists are made in memory and
 * handed to the request's parse as uploaded arrays (lr_arrays), so that each one is an
 * ordinary estimate request (cached by its values' digest like any other) and nothing
 * is written to disk.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "jbuild.h"
#include "jread.h"
#include "lr_sha256.h"
#include "mesh.h"

/* Rows of one answer: b = 32 * 4^k up to the cell count (at most 2^31 cells: 14 sizes)
 * and the random mesh, with room to spare. */
#define LEVELS_MAX_ROWS 24

/* DRAM traffic this far above the smallest block's (the compulsory traffic) is the
 * cliff: the diagonal blocks no longer fit in the L2 and neighbours come from DRAM
 * again. 5 % is above the few per cent the sampling of the DRAM volume varies by. */
#define LEVELS_CLIFF_RATIO 1.05

/* One estimate's figures, as its answer wrote them. */
typedef struct level_row {
    int64_t b;                /* diagonal block in cells; 0: the request's own mesh */
    cJSON *est;               /* owned: the estimate's answer */
    const cJSON *performance; /* in est */
    double glups, dram_load, dram_store, l2_load;
    const char *limiter; /* in est */
} level_row;

/* The synthetic mesh the next estimate's parse asks for, by the name the request gives
 * its values: an lr_arrays whose get hands the neighbour list over (taken: the parse
 * frees it) and passes any other name on to the store's arrays. */
typedef struct levels_arrays {
    const lr_arrays *store; /* NULL: no database */
    char name[LR_SHA256_HEX];
    int32_t *mesh; /* owned until handed over */
    int64_t bytes;
} levels_arrays;

static int levels_get(void *user, const char *sha256, void **data, int64_t *bytes, int *width,
                      lr_error *err)
{
    levels_arrays *a = user;
    if (a->mesh && strcmp(sha256, a->name) == 0) {
        *data = a->mesh, *bytes = a->bytes, *width = 4;
        a->mesh = NULL;
        return 1;
    }
    return a->store && a->store->get
               ? a->store->get(a->store->user, sha256, data, bytes, width, err)
               : 0;
}

/* The index field of req listing the neighbours of its n cells ("integer" with "values"
 * and n as its last dimension), or NULL; *per gets its neighbours per cell, *at its
 * position in kernel.fields. */
static cJSON *mesh_field(const cJSON *req, int64_t n, int64_t *per, int *at)
{
    cJSON *f;
    int i = 0;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(cJSON_GetObjectItem(req, "kernel"), "fields"))
    {
        const cJSON *dims = cJSON_GetObjectItem(f, "dims");
        int nd = cJSON_GetArraySize(dims);
        *at = i++;
        if (!cJSON_IsTrue(cJSON_GetObjectItem(f, "integer")) || nd < 1 ||
            !cJSON_GetObjectItem(f, "values") ||
            !cJSON_IsNumber(cJSON_GetArrayItem(dims, nd - 1)))
            continue;
        if ((int64_t)cJSON_GetArrayItem(dims, nd - 1)->valuedouble != n)
            continue;
        *per = 1;
        for (int d = 0; d < nd - 1; d++)
            *per *= cJSON_IsNumber(cJSON_GetArrayItem(dims, d))
                        ? (int64_t)cJSON_GetArrayItem(dims, d)->valuedouble
                        : 0;
        if (*per > 0)
            return f;
    }
    return NULL;
}

/* The cells of req's domain (its first extent), or 0 when it has none. */
static int64_t domain_cells(const cJSON *req)
{
    const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(req, "domain"), 0);
    return cJSON_IsNumber(d) && d->valuedouble >= 1 ? (int64_t)d->valuedouble : 0;
}

/* The figures of an estimate answer (text) into row. 0, or -1 with err. */
static int read_row(const char *text, level_row *row, lr_error *err)
{
    cJSON *o = cJSON_Parse(text);
    const cJSON *p = cJSON_GetObjectItem(o, "performance"),
                *e = cJSON_GetObjectItem(o, "estimate");
    row->est = o;
    row->performance = p;
    if (p) {
        row->glups = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "predicted"));
        row->limiter = cJSON_GetStringValue(cJSON_GetObjectItem(p, "limiter"));
        row->dram_load = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "dram_load"));
        row->dram_store = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "dram_store"));
        row->l2_load = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "l2_load"));
    }
    return p ? 0 : lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
}

/* The level of row against the smallest diagonal block's DRAM traffic (the compulsory
 * one): random for the whole mesh, cliff once DRAM grows past LEVELS_CLIFF_RATIO of
 * it, memory while DRAM (or the latency of its loads) limits, on-chip otherwise. */
static const char *level_of(const level_row *row, double dram0, int64_t n)
{
    if (row->b == n)
        return "random";
    if (row->dram_load + row->dram_store > LEVELS_CLIFF_RATIO * dram0)
        return "cliff";
    const char *lim = row->limiter ? row->limiter : "";
    if (strcmp(lim, "dram") == 0 || strcmp(lim, "latency") == 0)
        return "memory";
    return "on-chip";
}

/* Gives the levels' error for a row that failed: the time limit, which all the rows
 * share, says so. Returns -1. */
static int row_failed(const lr_api *api, int64_t b, lr_error *err)
{
    if (err->code != LR_BUDGET_EXCEEDED)
        return -1;
    lr_error_clear(err);
    return lr_error_set(
        err, LR_BUDGET_EXCEEDED, "domain",
        "the levels ran past the request's time limit (%g s) at %s: the "
        "request's own mesh and each synthetic one are estimated in turn within "
        "it; estimate a smaller mesh or raise the limit",
        api_time_limit(api), b ? "a synthetic mesh" : "the request's own mesh");
}

/* The estimate of req with the index field at f's values named {"sha256": name} into
 * row: the synthetic mesh of diagonal blocks of row->b cells, made here and handed to
 * the parse through a. 0, or -1 with err. */
static int synthetic_row(lr_worker *w, cJSON *req, cJSON *f, levels_arrays *a, int64_t n,
                         int64_t per, double deadline, level_row *row, lr_error *err)
{
    a->mesh = mesh_diagonal_blocks(n, per, row->b, (uint64_t)row->b);
    a->bytes = n * per * (int64_t)sizeof(int32_t);
    if (!a->mesh)
        return lr_error_set(err, LR_NO_MEMORY, "domain",
                            "no memory for a synthetic mesh of %lld cells", (long long)n);
    /* a name for the lookup only: the parse hashes the values it gets for the request's
     * identity (values.c), so they are not hashed twice here */
    char label[96];
    snprintf(label, sizeof label, "launchrank levels %lld %lld %lld", (long long)n,
             (long long)per, (long long)row->b);
    lr_sha256_hex(label, strlen(label), a->name);
    jb b = {0};
    cJSON_DeleteItemFromObject(f, "values");
    jb_str(&b, jb_obj(&b, f, "values"), "sha256", a->name);
    char *body = b.failed ? NULL : cJSON_PrintUnformatted(req);
    char *out = body ? api_estimate_with(w, body, strlen(body),
                                         &(lr_arrays){levels_get, NULL, a}, deadline, err)
                     : (lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory"), NULL);
    cJSON_free(body);
    free(a->mesh); /* not handed over when the parse failed first */
    a->mesh = NULL;
    int rc = out ? read_row(out, row, err) : row_failed(w->api, row->b, err);
    free(out);
    return rc;
}

/* One row of the answer as member key of parent (NULL: an element of the array parent),
 * with its level and the diagonal block (-1: null) under block_key. */
static void add_row(jb *b, cJSON *parent, const char *key, const level_row *r,
                    const char *block_key, int64_t value, const char *level)
{
    cJSON *o = jb_obj(b, parent, key);
    if (value >= 0)
        jb_num(b, o, block_key, (double)value);
    else
        jb_null(b, o, block_key);
    jb_str(b, o, "level", level);
    jb_item(b, o, "performance", cJSON_Duplicate(r->performance, 1));
    jb_num(b, o, "dram_load", r->dram_load);
    jb_num(b, o, "dram_store", r->dram_store);
    jb_num(b, o, "l2_load", r->l2_load);
}

/* The answer: rows[1..] the synthetic meshes by rising b, rows[0] the request's own,
 * which performs like the first (smallest) diagonal block it does as well as. */
static char *answer(const cJSON *field, int64_t n, int64_t per, const level_row *rows,
                    int nrows, lr_error *err)
{
    double dram0 = rows[1].dram_load + rows[1].dram_store;
    jb b = {0};
    cJSON *o = jb_new_obj(&b);
    jb_str(&b, o, "model_version", LR_MODEL_VERSION);
    /* the device and launch as the own mesh's estimate resolved them */
    jb_item(&b, o, "device", cJSON_Duplicate(cJSON_GetObjectItem(rows[0].est, "device"), 1));
    const cJSON *launch = cJSON_GetObjectItem(rows[0].est, "launch");
    cJSON *l = jb_obj(&b, o, "launch");
    jb_item(&b, l, "block", cJSON_Duplicate(cJSON_GetObjectItem(launch, "block"), 1));
    jb_item(&b, l, "folding", cJSON_Duplicate(cJSON_GetObjectItem(launch, "folding"), 1));
    jb_str(&b, o, "index_field", cJSON_GetStringValue(cJSON_GetObjectItem(field, "name")));
    jb_num(&b, o, "cells", (double)n);
    jb_num(&b, o, "neighbours_per_cell", (double)per);
    cJSON *arr = jb_arr(&b, o, "rows");
    for (int i = 1; i < nrows; i++)
        add_row(&b, arr, NULL, &rows[i], "block_cells", rows[i].b,
                level_of(&rows[i], dram0, n));
    int64_t like = -1;
    for (int i = 1; i < nrows && like < 0; i++)
        if (rows[0].glups >= rows[i].glups * (1 - 1e-9))
            like = rows[i].b;
    add_row(&b, o, "mesh", &rows[0], "like_block_cells", like, level_of(&rows[0], dram0, n));
    cJSON *units = jb_obj(&b, o, "units");
    jb_str(&b, units, "block_cells", "cells");
    jb_str(&b, units, "performance", "GLup/s");
    jb_str(&b, units, "volume", "B/Lup");
    char *text = (o = jb_finish(&b, o)) ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return text;
}

/* The request tree of body when it is a mesh kernel's: *field its index field, *n its
 * cells, *per the neighbours of each. NULL with err otherwise. */
static cJSON *mesh_request(const char *body, size_t len, cJSON **field, int64_t *n,
                           int64_t *per, lr_error *err)
{
    cJSON *req = lr_request_parse_json(body, len, err);
    int at = 0;
    *n = req ? domain_cells(req) : 0;
    *field = *n > 0 ? mesh_field(req, *n, per, &at) : NULL;
    if (req && !*field) {
        lr_error_set(err, LR_INVALID_REQUEST, "kernel.fields",
                     "the levels are of a kernel that reads through an index field of its "
                     "domain's cells: an \"integer\" field with \"values\" whose last "
                     "dimension is domain[0] (docs/api.md, \"Index fields\")");
    } else if (req && *n > INT32_MAX) {
        lr_error_set(err, LR_LIMIT_EXCEEDED, "domain",
                     "%lld cells; the synthetic meshes of the levels number at most "
                     "2147483647 cells (int32)",
                     (long long)*n);
        *field = NULL;
    }
    if (*field)
        return req;
    cJSON_Delete(req);
    return NULL;
}

char *lr_api_levels(lr_worker *w, const char *body, size_t len, lr_levels_fn progress,
                    void *user, lr_error *err)
{
    double deadline = est_now() + api_time_limit(w->api);
    cJSON *field;
    int64_t n, per;
    cJSON *req = mesh_request(body, len, &field, &n, &per, err);
    if (!req)
        return NULL;
    level_row rows[LEVELS_MAX_ROWS] = {{0}};
    int nrows = 0;
    char *out = api_estimate_with(w, body, len, api_arrays(w), deadline, err);
    int rc = out ? read_row(out, &rows[nrows++], err) : row_failed(w->api, 0, err);
    free(out);
    levels_arrays a = {.store = api_arrays(w)};
    /* b = 32, 128, ... and n, the random mesh (a mesh of fewer cells: that one only) */
    for (int64_t b = n < 32 ? n : 32; !rc && nrows < LEVELS_MAX_ROWS;
         b = b * 4 < n ? b * 4 : n) {
        if (progress)
            progress(user, b);
        rows[nrows].b = b;
        rc = synthetic_row(w, req, field, &a, n, per, deadline, &rows[nrows], err);
        nrows++;
        if (b >= n)
            break;
    }
    out = rc ? NULL : answer(field, n, per, rows, nrows, err);
    for (int i = 0; i < nrows; i++)
        cJSON_Delete(rows[i].est);
    cJSON_Delete(req);
    return out;
}
