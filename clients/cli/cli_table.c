/*
 * cli_table.c: see cli_table.h. Missing or mistyped values print as "-" rather than
 * failing, so a table still shows what it can when the response grows or changes;
 * only a response of the wrong kind altogether is refused.
 */
#include "cli_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

/* Responses are ours and already validated by the api; the limit of cJSON
 * (CJSON_NESTING_LIMIT) is enough, and a parse failure just means "not a table". */
static cJSON *parse(const char *json)
{
    const char *end = NULL;
    return cJSON_ParseWithOpts(json, &end, 1);
}

/* "256x1x1" from [256,1,1]; "-" when v is not an array of numbers. */
static const char *format_dims(const cJSON *v, char *buf, size_t size)
{
    size_t used = 0;
    const cJSON *d;
    buf[0] = '\0';
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
        return "-";
    cJSON_ArrayForEach(d, v)
    {
        if (!cJSON_IsNumber(d))
            return "-";
        int n = snprintf(buf + used, size - used, "%s%.0f", used ? "x" : "", d->valuedouble);
        if (n < 0 || (size_t)n >= size - used)
            return "-";
        used += (size_t)n;
    }
    return buf;
}

/* The number under key in obj times scale, with digits decimals, or "-". */
static const char *format_num(const cJSON *obj, const char *key, int digits, double scale,
                              char *buf, size_t size)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return "-";
    snprintf(buf, size, "%.*f", digits, v->valuedouble * scale);
    return buf;
}

static const char *format_str(const cJSON *obj, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key));
    return s ? s : "-";
}

static double number_or(const cJSON *obj, const char *key, double fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

/* r's key, else its launch's: a result names its block and folding at the top level,
 * an estimate response inside "launch". */
static const cJSON *own_or_launch(const cJSON *r, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, key);
    return v ? v
             : cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "launch"),
                                                key);
}

/* One ranked configuration. */
static void print_rank_row(FILE *out, const cJSON *r)
{
    const cJSON *est = cJSON_GetObjectItemCaseSensitive(r, "estimate");
    const cJSON *perf = cJSON_GetObjectItemCaseSensitive(r, "performance");
    char block[48], fold[48], rank[24], pred[32], l2l[32], l2s[32], dl[32], ds[32], l1[32];
    fprintf(out, "%4s  %-14s %-9s %9s  %-8s %8s %8s %9s %10s %9s\n",
            format_num(r, "rank", 0, 1, rank, sizeof rank),
            format_dims(own_or_launch(r, "block"), block, sizeof block),
            format_dims(own_or_launch(r, "folding"), fold, sizeof fold),
            format_num(perf, "predicted", 2, 1, pred, sizeof pred), format_str(perf, "limiter"),
            format_num(est, "l2_load", 2, 1, l2l, sizeof l2l),
            format_num(est, "l2_store", 2, 1, l2s, sizeof l2s),
            format_num(est, "dram_load", 2, 1, dl, sizeof dl),
            format_num(est, "dram_store", 2, 1, ds, sizeof ds),
            format_num(est, "l1_cycles", 3, 1, l1, sizeof l1));
}

/* The measured figures of the ranked configurations that were timed on the GPU. */
static void print_measured(FILE *out, const cJSON *root, const cJSON *results)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "measure"), *r;
    if (!m)
        return;
    const char *status = format_str(m, "status");
    if (strcmp(status, "ok") != 0) {
        fprintf(out, "\nmeasurement %s: %s\n", status, format_str(m, "reason"));
        return;
    }
    fprintf(out, "\n%4s  %-14s %-9s %9s %9s %9s %10s  %s\n", "rank", "block", "folding",
            "predicted", "measured", "median", "pred/meas", "GPU");
    fprintf(out, "%4s  %-14s %-9s %9s %9s %9s %10s\n", "", "", "", "GLup/s", "GLup/s", "ms",
            "");
    cJSON_ArrayForEach(r, results)
    {
        const cJSON *me = cJSON_GetObjectItemCaseSensitive(r, "measured");
        if (!me)
            continue;
        char block[48], fold[48], rank[24], pred[32], g[32], ms[32], ratio[32];
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(me, "error");
        fprintf(out, "%4s  %-14s %-9s %9s ", format_num(r, "rank", 0, 1, rank, sizeof rank),
                format_dims(own_or_launch(r, "block"), block, sizeof block),
                format_dims(own_or_launch(r, "folding"), fold, sizeof fold),
                format_num(cJSON_GetObjectItemCaseSensitive(r, "performance"), "predicted", 2,
                           1, pred, sizeof pred));
        if (e)
            fprintf(out, "failed: %s\n", format_str(e, "message"));
        else
            fprintf(out, "%9s %9s %10s  %s\n", format_num(me, "glups", 2, 1, g, sizeof g),
                    format_num(me, "ms_median", 4, 1, ms, sizeof ms),
                    format_num(me, "predicted_over_measured", 2, 1, ratio, sizeof ratio),
                    format_str(me, "gpu"));
    }
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(m, "fastest");
    if (f) {
        char rank[24], g[32];
        fprintf(out, "fastest measured: rank %s at %s GLup/s\n",
                format_num(f, "rank", 0, 1, rank, sizeof rank),
                format_num(f, "glups", 2, 1, g, sizeof g));
    }
}

static void print_not_launchable(FILE *out, const cJSON *list)
{
    const cJSON *c;
    int n = cJSON_GetArraySize(list);
    if (!cJSON_IsArray(list) || n == 0)
        return;
    fprintf(out, "\n%d configuration%s cannot be launched:\n", n, n == 1 ? "" : "s");
    fprintf(out, "  %-14s %-9s %s\n", "block", "folding", "reason");
    cJSON_ArrayForEach(c, list)
    {
        char block[48], fold[48];
        fprintf(out, "  %-14s %-9s %s\n",
                format_dims(cJSON_GetObjectItemCaseSensitive(c, "block"), block, sizeof block),
                format_dims(cJSON_GetObjectItemCaseSensitive(c, "folding"), fold, sizeof fold),
                format_str(c, "reason"));
    }
}

int cli_table_rank(FILE *out, const char *json)
{
    cJSON *root = parse(json);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    const cJSON *r;
    if (!cJSON_IsArray(results)) {
        cJSON_Delete(root);
        return -1;
    }
    /* Two header lines, names then units, so every number says what it measures. */
    fprintf(out, "%4s  %-14s %-9s %9s  %-8s %8s %8s %9s %10s %9s\n", "rank", "block", "folding",
            "predicted", "limiter", "L2 load", "L2 store", "DRAM load", "DRAM store", "L1");
    fprintf(out, "%4s  %-14s %-9s %9s  %-8s %8s %8s %9s %10s %9s\n", "", "", "", "GLup/s", "",
            "B/Lup", "B/Lup", "B/Lup", "B/Lup", "cyc/Lup");
    cJSON_ArrayForEach(r, results) print_rank_row(out, r);
    if (cJSON_GetArraySize(results) == 0)
        fprintf(out, "(no launchable configuration)\n");
    print_measured(out, root, results);
    print_not_launchable(out, cJSON_GetObjectItemCaseSensitive(root, "not_launchable"));
    fprintf(out, "\n%.0f configurations evaluated, %.0f from cache\n",
            number_or(root, "evaluated", 0), number_or(root, "cached_results", 0));
    cJSON_Delete(root);
    return 0;
}

static void print_device_row(FILE *out, const cJSON *d)
{
    char sms[24], clock[24], l2[24], l2bw[24], drambw[24];
    /* stored devices (`devices add`) are marked after the figures, built-ins are not */
    fprintf(out, "%-18s %5s %9s %7s %8s %9s%s\n", format_str(d, "name"),
            format_num(d, "sm_count", 0, 1, sms, sizeof sms),
            format_num(d, "clock_ghz", 3, 1, clock, sizeof clock),
            format_num(d, "l2_bytes", 2, 1.0 / (1024 * 1024), l2, sizeof l2),
            format_num(d, "l2_bw_gbs", 0, 1, l2bw, sizeof l2bw),
            format_num(d, "dram_bw_gbs", 0, 1, drambw, sizeof drambw),
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "stored")) ? "  stored" : "");
}

int cli_table_devices(FILE *out, const char *json)
{
    cJSON *root = parse(json);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "devices");
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(root, "device");
    const cJSON *d;
    /* A list response carries "devices"; a single one "device", or is the device. */
    if (!cJSON_IsArray(list) && !cJSON_IsObject(one) &&
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "name"))) {
        cJSON_Delete(root);
        return -1;
    }
    fprintf(out, "%-18s %5s %9s %7s %8s %9s\n", "name", "SMs", "clock", "L2", "L2 BW",
            "DRAM BW");
    fprintf(out, "%-18s %5s %9s %7s %8s %9s\n", "", "", "GHz", "MiB", "GB/s", "GB/s");
    if (cJSON_IsArray(list)) {
        cJSON_ArrayForEach(d, list) print_device_row(out, d);
    } else {
        print_device_row(out, cJSON_IsObject(one) ? one : root);
    }
    cJSON_Delete(root);
    return 0;
}
