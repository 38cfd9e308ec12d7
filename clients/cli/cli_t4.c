/*
 * cli_t4.c: a rank response in the T4 results format (see cli_kt.h).
 *
 * T4 (the "Open Autotuning Results Schema" 1.0.0 that Kernel Tuner writes;
 * docs/kernel_tuner.md, "The formats") is a list of results, each with the
 * "configuration" (parameter name -> value), "times", "invalidity" (one of timeout,
 * compile, runtime, correctness, constraints, correct), "correctness" (a number),
 * "objectives" and "measurements" ({name, value, unit}). The conversion only reads
 * the response JSON, so it is the same whatever computed the ranking; the Python
 * client's launchrank_client.kernel_tuner.to_t4 writes the same document.
 */
#include "cli_kt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "cli.h"

/* What the conversion needs besides each item: the names, and why it stopped. */
typedef struct t4_ctx {
    const cli_kt_map *names;
    const char *timestamp;
    char *why; /* the message when a configuration does not fit names */
    size_t why_size;
    int bad_input; /* 1 when it did not fit names (the user's mapping), else 0 */
} t4_ctx;

/* {"name", "value", "unit"} appended to list; value is taken. 0, or -1 when out of
 * memory (value freed). */
static int add_measurement(cJSON *list, const char *name, cJSON *value, const char *unit)
{
    cJSON *m = value ? cJSON_CreateObject() : NULL;
    if (!m || !cJSON_AddStringToObject(m, "name", name) ||
        !cJSON_AddItemToObject(m, "value", value) ||
        !cJSON_AddStringToObject(m, "unit", unit)) {
        if (!m || !cJSON_GetObjectItemCaseSensitive(m, "value"))
            cJSON_Delete(value);
        cJSON_Delete(m);
        return -1;
    }
    cJSON_AddItemToArray(list, m);
    return 0;
}

static int add_number(cJSON *list, const char *name, const cJSON *from, const char *key,
                      const char *unit)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);
    if (!cJSON_IsNumber(v))
        return 0; /* absent figures are left out, not written as 0 */
    return add_measurement(list, name, cJSON_CreateNumber(v->valuedouble), unit);
}

/* The configuration of item (which has "block" and "folding") into cfg: a key per
 * named side; a side mapped to a number must have that value. 0, or -1 (with ctx->why
 * when the item does not fit the names). */
static int add_configuration(cJSON *cfg, const cJSON *item, t4_ctx *ctx)
{
    static const char axis[] = "xyz";
    const cJSON *block = cJSON_GetObjectItemCaseSensitive(item, "block");
    const cJSON *folding = cJSON_GetObjectItemCaseSensitive(item, "folding");
    for (int d = 0; d < 6; d++) {
        const cli_kt_side *side = d < 3 ? &ctx->names->block[d] : &ctx->names->folding[d - 3];
        const cJSON *v = cJSON_GetArrayItem(d < 3 ? block : folding, d % 3);
        int value = cJSON_IsNumber(v) ? v->valueint : 1;
        if (side->name[0]) {
            if (!cJSON_AddNumberToObject(cfg, side->name, value))
                return -1;
        } else if (value != side->value) {
            const cJSON *rank = cJSON_GetObjectItemCaseSensitive(item, "rank");
            char at[48] = "a configuration that cannot run";
            if (cJSON_IsNumber(rank))
                snprintf(at, sizeof at, "rank %d", rank->valueint);
            const char *what = d < 3 ? "block" : "folding";
            snprintf(ctx->why, ctx->why_size,
                     "--%s fixes %s %c at %d, but the ranking holds %s %c = %d (%s); name a "
                     "tune_param there, or narrow the request's search to your tune_params",
                     what, what, axis[d % 3], side->value, what, axis[d % 3], value, at);
            ctx->bad_input = 1;
            return -1;
        }
    }
    return 0;
}

/* A new T4 result of the configuration item (which has "block" and "folding"). */
static cJSON *new_result(const cJSON *item, t4_ctx *ctx, const char *invalidity, int correct)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *cfg = r ? cJSON_AddObjectToObject(r, "configuration") : NULL;
    int ok = cfg && cJSON_AddStringToObject(r, "timestamp", ctx->timestamp) &&
             !add_configuration(cfg, item, ctx);
    cJSON *objectives = ok ? cJSON_AddArrayToObject(r, "objectives") : NULL;
    ok = objectives && cJSON_AddObjectToObject(r, "times") &&
         cJSON_AddStringToObject(r, "invalidity", invalidity) &&
         cJSON_AddNumberToObject(r, "correctness", correct) &&
         cJSON_AddArrayToObject(r, "measurements");
    cJSON *obj = ok ? cJSON_CreateString("predicted_time") : NULL;
    if (!obj) {
        cJSON_Delete(r);
        return NULL;
    }
    cJSON_AddItemToArray(objectives, obj);
    return r;
}

/* The T4 result of one ranked configuration; points = lattice updates of the domain. */
static cJSON *ranked_result(const cJSON *item, double points, t4_ctx *ctx)
{
    const cJSON *measured = cJSON_GetObjectItemCaseSensitive(item, "measured");
    int failed = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(measured, "error"));
    /* a configuration the GPU could not time did not run: T4 has no "not timed" */
    cJSON *r = new_result(item, ctx, failed ? "runtime" : "correct", failed ? 0 : 1);
    cJSON *list = cJSON_GetObjectItemCaseSensitive(r, "measurements");
    const cJSON *perf = cJSON_GetObjectItemCaseSensitive(item, "performance");
    const cJSON *pred = cJSON_GetObjectItemCaseSensitive(perf, "predicted");
    int rc = r ? 0 : -1;
    if (!rc && cJSON_IsNumber(pred) && pred->valuedouble > 0)
        /* ms per run: points / (GLup/s * 1e9) s = points / (GLup/s * 1e6) ms */
        rc = add_measurement(list, "predicted_time",
                             cJSON_CreateNumber(points / (pred->valuedouble * 1e6)), "ms");
    rc = rc ? rc : add_number(list, "predicted_glups", perf, "predicted", "GLup/s");
    const char *limiter =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(perf, "limiter"));
    if (!rc && limiter)
        rc = add_measurement(list, "limiter", cJSON_CreateString(limiter), "");
    rc = rc ? rc : add_number(list, "rank", item, "rank", "");
    if (!rc && cJSON_IsObject(measured) && !failed) {
        rc = add_number(list, "time", measured, "ms_median", "ms");
        rc = rc ? rc : add_number(list, "time_min", measured, "ms_min", "ms");
        rc = rc ? rc : add_number(list, "time_max", measured, "ms_max", "ms");
        rc = rc ? rc : add_number(list, "measured_glups", measured, "glups", "GLup/s");
        rc = rc ? rc
                : add_number(list, "predicted_over_measured", measured,
                             "predicted_over_measured", "");
    } else if (!rc && failed) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(measured, "error");
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
        rc = add_measurement(list, "measure_error", cJSON_CreateString(msg ? msg : "?"), "");
    }
    if (rc) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

/* The T4 result of a configuration that cannot run on the device. */
static cJSON *refused_result(const cJSON *item, t4_ctx *ctx)
{
    cJSON *r = new_result(item, ctx, "constraints", 0);
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "reason"));
    if (r && add_measurement(cJSON_GetObjectItemCaseSensitive(r, "measurements"), "reason",
                             cJSON_CreateString(why ? why : ""), "")) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

cJSON *cli_t4_from_rank(const char *rank_json, const char *timestamp, const cli_kt_map *names,
                        char *why, size_t why_size, int *bad_input)
{
    t4_ctx ctx = {names ? names : &cli_kt_t4_default, timestamp, why, why_size, 0};
    cJSON *resp = cJSON_Parse(rank_json);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(resp, "results");
    const cJSON *refused = cJSON_GetObjectItemCaseSensitive(resp, "not_launchable");
    const cJSON *domain = cJSON_GetObjectItemCaseSensitive(resp, "domain");
    snprintf(why, why_size, "out of memory writing the T4 results");
    if (bad_input)
        *bad_input = 0;
    if (!cJSON_IsArray(results) || !cJSON_IsArray(domain)) {
        snprintf(why, why_size, "the response is no ranking (no \"results\" or \"domain\")");
        cJSON_Delete(resp);
        return NULL;
    }
    double points = 1;
    const cJSON *n;
    cJSON_ArrayForEach(n, domain) points *= cJSON_IsNumber(n) ? n->valuedouble : 1;
    cJSON *t4 = cJSON_CreateObject();
    cJSON *list = t4 ? cJSON_AddArrayToObject(t4, "results") : NULL;
    int ok = list && cJSON_AddStringToObject(t4, "schema_version", CLI_T4_SCHEMA_VERSION);
    const cJSON *item;
    cJSON_ArrayForEach(item, results)
    {
        cJSON *r = ok ? ranked_result(item, points, &ctx) : NULL;
        ok = r != NULL;
        cJSON_AddItemToArray(list, r);
    }
    cJSON_ArrayForEach(item, refused)
    {
        cJSON *r = ok ? refused_result(item, &ctx) : NULL;
        ok = r != NULL;
        cJSON_AddItemToArray(list, r);
    }
    cJSON_Delete(resp);
    if (bad_input)
        *bad_input = ctx.bad_input;
    if (!ok) {
        cJSON_Delete(t4);
        return NULL;
    }
    return t4;
}

int cli_t4_print(const char *rank_json, const cli_kt_map *names)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char why[LR_MESSAGE_MAX];
    int bad_input;
    cJSON *t4 = cli_t4_from_rank(rank_json, stamp, names, why, sizeof why, &bad_input);
    if (!t4) {
        fprintf(stderr, "launchrank rank: %s\n", why);
        return bad_input ? CLI_EXIT_BAD_INPUT : CLI_EXIT_FAILED;
    }
    int rc = cli_write_json("rank", NULL, t4);
    cJSON_Delete(t4);
    return rc;
}
