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

static const char *const block_names[3] = {"block_size_x", "block_size_y", "block_size_z"};
static const char *const folding_names[3] = {"folding_x", "folding_y", "folding_z"};

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

/* A new T4 result of the configuration item (which has "block" and "folding"). */
static cJSON *new_result(const cJSON *item, const char *timestamp, const char *invalidity,
                         int correct)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *cfg = r ? cJSON_AddObjectToObject(r, "configuration") : NULL;
    const cJSON *block = cJSON_GetObjectItemCaseSensitive(item, "block");
    const cJSON *folding = cJSON_GetObjectItemCaseSensitive(item, "folding");
    int ok = cfg && cJSON_AddStringToObject(r, "timestamp", timestamp);
    for (int d = 0; ok && d < 6; d++) {
        const cJSON *v = cJSON_GetArrayItem(d < 3 ? block : folding, d % 3);
        ok = cJSON_AddNumberToObject(cfg, d < 3 ? block_names[d] : folding_names[d - 3],
                                     cJSON_IsNumber(v) ? v->valueint : 1) != NULL;
    }
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
static cJSON *ranked_result(const cJSON *item, double points, const char *timestamp)
{
    const cJSON *measured = cJSON_GetObjectItemCaseSensitive(item, "measured");
    int failed = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(measured, "error"));
    /* a configuration the GPU could not time did not run: T4 has no "not timed" */
    cJSON *r = new_result(item, timestamp, failed ? "runtime" : "correct", failed ? 0 : 1);
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
static cJSON *refused_result(const cJSON *item, const char *timestamp)
{
    cJSON *r = new_result(item, timestamp, "constraints", 0);
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "reason"));
    if (r && add_measurement(cJSON_GetObjectItemCaseSensitive(r, "measurements"), "reason",
                             cJSON_CreateString(why ? why : ""), "")) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

cJSON *cli_t4_from_rank(const char *rank_json, const char *timestamp)
{
    cJSON *resp = cJSON_Parse(rank_json);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(resp, "results");
    const cJSON *refused = cJSON_GetObjectItemCaseSensitive(resp, "not_launchable");
    const cJSON *domain = cJSON_GetObjectItemCaseSensitive(resp, "domain");
    if (!cJSON_IsArray(results) || !cJSON_IsArray(domain)) {
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
        cJSON *r = ok ? ranked_result(item, points, timestamp) : NULL;
        ok = r != NULL;
        cJSON_AddItemToArray(list, r);
    }
    cJSON_ArrayForEach(item, refused)
    {
        cJSON *r = ok ? refused_result(item, timestamp) : NULL;
        ok = r != NULL;
        cJSON_AddItemToArray(list, r);
    }
    cJSON_Delete(resp);
    if (!ok) {
        cJSON_Delete(t4);
        return NULL;
    }
    return t4;
}

int cli_t4_print(const char *rank_json)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON *t4 = cli_t4_from_rank(rank_json, stamp);
    if (!t4) {
        fprintf(stderr, "launchrank rank: out of memory writing the T4 results\n");
        return CLI_EXIT_FAILED;
    }
    int rc = cli_write_json("rank", NULL, t4);
    cJSON_Delete(t4);
    return rc;
}
