/*
 * cli_table.c: see cli_table.h. Missing or mistyped values print as "-" rather than
 * failing, so a table still shows what it can when the response grows or changes;
 * only a response of the wrong kind altogether is refused.
 */
#include "cli_table.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "device.h"

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

/* Whether the configuration of r (a result) is the one of c (a decision entry). */
static int same_rank(const cJSON *r, const cJSON *c)
{
    return c && number_or(r, "rank", -1) == number_or(c, "rank", -2);
}

/* The mark of a row: R the recommendation, = in the tie group, ! with warnings. */
static const char *row_mark(const cJSON *r, const cJSON *decision)
{
    const cJSON *t;
    if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "warnings")) > 0)
        return "!";
    if (same_rank(r, cJSON_GetObjectItemCaseSensitive(decision, "recommended")))
        return "R";
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(decision, "tie_group"))
    {
        if (same_rank(r, t))
            return "=";
    }
    return "";
}

/* One ranked configuration. */
static void print_rank_row(FILE *out, const cJSON *r, const cJSON *decision)
{
    const cJSON *est = cJSON_GetObjectItemCaseSensitive(r, "estimate");
    const cJSON *perf = cJSON_GetObjectItemCaseSensitive(r, "performance");
    char block[48], fold[48], rank[24], pred[32], l2l[32], l2s[32], dl[32], ds[32], l1[32],
        occ[24], idle[24];
    /* a ranking of a mesh's orderings names the ordering where the folding goes (a
     * gathering kernel is not folded) */
    const char *ordering = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "ordering"));
    fprintf(out, "%4s  %-14s %-9s %9s  %-8s %8s %8s %9s %10s %9s %5s %5s %s\n",
            format_num(r, "rank", 0, 1, rank, sizeof rank),
            format_dims(own_or_launch(r, "block"), block, sizeof block),
            ordering ? ordering : format_dims(own_or_launch(r, "folding"), fold, sizeof fold),
            format_num(perf, "predicted", 2, 1, pred, sizeof pred), format_str(perf, "limiter"),
            format_num(est, "l2_load", 2, 1, l2l, sizeof l2l),
            format_num(est, "l2_store", 2, 1, l2s, sizeof l2s),
            format_num(est, "dram_load", 2, 1, dl, sizeof dl),
            format_num(est, "dram_store", 2, 1, ds, sizeof ds),
            format_num(est, "l1_cycles", 3, 1, l1, sizeof l1),
            format_num(r, "occupancy", 0, 100, occ, sizeof occ),
            format_num(r, "idle_threads", 1, 100, idle, sizeof idle), row_mark(r, decision));
}

/* "warning CODE at PATH: MESSAGE" for each entry of list. */
static void print_warnings(FILE *out, const cJSON *list, const char *indent)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, list)
    {
        const char *path = format_str(w, "path");
        fprintf(out, "%swarning %s%s%s: %s\n", indent, format_str(w, "code"),
                strcmp(path, "-") && path[0] ? " at " : "", strcmp(path, "-") ? path : "",
                format_str(w, "message"));
    }
}

/* One run of ranks, "6" or "8-12", after a comma unless it is the first. */
static void print_run(FILE *out, double start, double end, int *first)
{
    fprintf(out, "%s%.0f", *first ? "" : ", ", start);
    if (end > start)
        fprintf(out, "-%.0f", end);
    *first = 0;
}

/* "1-4, 6, 8-12": the ranks of the tie group, runs joined. */
static void print_tie_ranks(FILE *out, const cJSON *tie)
{
    const cJSON *t;
    double start = -1, prev = -1;
    int first = 1;
    cJSON_ArrayForEach(t, tie)
    {
        double r = number_or(t, "rank", -1);
        if (start >= 0 && r == prev + 1) {
            prev = r;
            continue;
        }
        if (start >= 0)
            print_run(out, start, prev, &first);
        start = prev = r;
    }
    if (start >= 0)
        print_run(out, start, prev, &first);
}

/* The decision on top of the table: recommendation and why, tie group, best / median /
 * worst, the baseline when the request named one, and the request's warnings. */
static void print_decision(FILE *out, const cJSON *root)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "decision");
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(d, "recommended");
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(d, "tie_group");
    char block[48], fold[48], n1[32], n2[32], n3[32], p[32];
    if (cJSON_IsArray(tie) && cJSON_GetArraySize(tie) > 0) {
        if (cJSON_IsObject(rec)) {
            const char *ord =
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "ordering"));
            fprintf(out, "recommended: block %s, %s %s (rank %s, %s GLup/s)\n",
                    format_dims(cJSON_GetObjectItemCaseSensitive(rec, "block"), block,
                                sizeof block),
                    ord ? "ordering" : "folding",
                    ord ? ord
                        : format_dims(cJSON_GetObjectItemCaseSensitive(rec, "folding"), fold,
                                      sizeof fold),
                    format_num(rec, "rank", 0, 1, n1, sizeof n1),
                    format_num(rec, "predicted", 2, 1, n2, sizeof n2));
            fprintf(out, "  why: %s\n", format_str(rec, "reason"));
        }
        fprintf(out, "tie group (within %s %% of the best): %d configuration%s, ranks ",
                format_num(d, "precision", 1, 100, p, sizeof p), cJSON_GetArraySize(tie),
                cJSON_GetArraySize(tie) == 1 ? "" : "s");
        print_tie_ranks(out, tie);
        fprintf(out, "\n");
        const char *k[] = {"best", "median", "worst"};
        fprintf(out, "predicted GLup/s:");
        for (int i = 0; i < 3; i++) {
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(d, k[i]);
            fprintf(out, "%s %s %s (rank %s)", i ? "," : "", k[i],
                    format_num(x, "predicted", 2, 1, n1, sizeof n1),
                    format_num(x, "rank", 0, 1, n3, sizeof n3));
        }
        fprintf(out, "\n");
    }
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(d, "note")))
        fprintf(out, "no recommendation: %s\n", format_str(d, "note"));
    /* a ranking past its time limit: the decision covers what was evaluated */
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(d, "incomplete")))
        fprintf(out, "incomplete: %s\n", format_str(d, "incomplete"));
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(d, "baseline");
    if (cJSON_IsObject(b))
        fprintf(out, "baseline (rank %s, %s GLup/s): %s\n",
                format_num(b, "rank", 0, 1, n1, sizeof n1),
                format_num(b, "predicted", 2, 1, n2, sizeof n2), format_str(b, "reason"));
    print_warnings(out, cJSON_GetObjectItemCaseSensitive(root, "warnings"), "");
    fprintf(out, "\n");
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

/* Whether reasons a and b say the same thing of different configurations: the same
 * text once each run of digits counts as one number ("2048 threads per block exceed
 * CUDA's 1024" is like "1056 threads per block exceed CUDA's 1024"). */
static int same_reason(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (isdigit((unsigned char)*a))
                a++;
            while (isdigit((unsigned char)*b))
                b++;
        } else if (*a++ != *b++) {
            return 0;
        }
    }
    return *a == *b;
}

/* The kinds of reason told apart when counting the most common one; a ranking's
 * configurations fail for a handful (threads, registers, grid, folding), and those
 * past this many are not counted, which only makes "most common" approximate. */
#define MAX_REASON_KINDS 32

/* The entry of list whose reason is the most common (as same_reason counts), its
 * count in *count; NULL for an empty list. */
static const cJSON *most_common_reason(const cJSON *list, int *count)
{
    const cJSON *kind[MAX_REASON_KINDS], *c;
    int n[MAX_REASON_KINDS], nk = 0, best = -1;
    cJSON_ArrayForEach(c, list)
    {
        const char *reason = format_str(c, "reason");
        int k = 0;
        while (k < nk && !same_reason(format_str(kind[k], "reason"), reason))
            k++;
        if (k == nk && nk < MAX_REASON_KINDS) {
            kind[nk] = c;
            n[nk++] = 0;
        }
        if (k < nk && ++n[k] > (best >= 0 ? n[best] : 0))
            best = k;
    }
    *count = best >= 0 ? n[best] : 0;
    return best >= 0 ? kind[best] : NULL;
}

/* "block 1024x1x1, folding 1x1x1: REASON" of one not_launchable entry. */
static void print_unlaunchable(FILE *out, const cJSON *c)
{
    char block[48], fold[48];
    fprintf(out, "block %s, folding %s: %s",
            format_dims(cJSON_GetObjectItemCaseSensitive(c, "block"), block, sizeof block),
            format_dims(cJSON_GetObjectItemCaseSensitive(c, "folding"), fold, sizeof fold),
            format_str(c, "reason"));
}

/* The configurations that cannot be launched: one line (how many, the most common
 * reason with one of its configurations) so that a ranking of a few rows is not
 * buried under hundreds of them, or with all, one row each. */
static void print_not_launchable(FILE *out, const cJSON *list, int all)
{
    const cJSON *c;
    int n = cJSON_GetArraySize(list), same;
    if (!cJSON_IsArray(list) || n == 0)
        return;
    if (!all) {
        const cJSON *common = most_common_reason(list, &same);
        fprintf(out, "\n%d configuration%s cannot be launched (", n, n == 1 ? "" : "s");
        if (n > 1 && same == n)
            fprintf(out, "all like ");
        else if (n > 1)
            fprintf(out, "%d of them like ", same);
        print_unlaunchable(out, common);
        fprintf(out, "); --all-unlaunchable lists %s\n", n == 1 ? "it" : "each");
        return;
    }
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

/* Which device the ranking is for, and what its figures rest on (device_provenance);
 * after the decision, which the table opens with. */
static void print_device_line(FILE *out, const cJSON *root)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "device_provenance");
    char prec[24];
    if (!cJSON_IsObject(p))
        return;
    fprintf(out, "device: %s, %s (rank precision %s %%): %s\n\n", format_str(root, "device"),
            format_str(p, "provenance"),
            format_num(p, est_mparam_sole(EST_RANKING)->name, 1, 100, prec, sizeof prec),
            format_str(p, "meaning"));
}

int cli_table_rank(FILE *out, const char *json, int all_unlaunchable)
{
    cJSON *root = parse(json);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    const cJSON *r;
    if (!cJSON_IsArray(results)) {
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *decision = cJSON_GetObjectItemCaseSensitive(root, "decision");
    print_decision(out, root);
    print_device_line(out, root);
    /* Two header lines, names then units, so every number says what it measures. */
    const cJSON *ords = cJSON_GetObjectItemCaseSensitive(root, "orderings"), *o;
    if (cJSON_IsArray(ords)) {
        fprintf(out, "orderings (one-time cost):");
        cJSON_ArrayForEach(o, ords)
        {
            char sec[32];
            fprintf(out, " %s %s s%s", format_str(o, "name"),
                    format_num(o, "seconds", 3, 1, sec, sizeof sec), o->next ? "," : "\n\n");
        }
    }
    fprintf(out, "%4s  %-14s %-9s %9s  %-8s %8s %8s %9s %10s %9s %5s %5s\n", "rank", "block",
            cJSON_IsArray(ords) ? "ordering" : "folding", "predicted", "limiter", "L2 load", "L2 store", "DRAM load", "DRAM store",
            "L1", "occ", "idle");
    fprintf(out, "%4s  %-14s %-9s %9s  %-8s %8s %8s %9s %10s %9s %5s %5s\n", "", "", "",
            "GLup/s", "", "B/Lup", "B/Lup", "B/Lup", "B/Lup", "cyc/Lup", "%", "%");
    cJSON_ArrayForEach(r, results) print_rank_row(out, r, decision);
    fprintf(out, "(R: recommended, =: tied with the best, !: has warnings)\n");
    cJSON_ArrayForEach(r, results)
    {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "warnings");
        char rank[24];
        if (cJSON_GetArraySize(w) > 0) {
            fprintf(out, "rank %s:\n", format_num(r, "rank", 0, 1, rank, sizeof rank));
            print_warnings(out, w, "  ");
        }
    }
    if (cJSON_GetArraySize(results) == 0)
        fprintf(out, "(no launchable configuration)\n");
    print_measured(out, root, results);
    print_not_launchable(out, cJSON_GetObjectItemCaseSensitive(root, "not_launchable"),
                         all_unlaunchable);
    const cJSON *inc = cJSON_GetObjectItemCaseSensitive(root, "incomplete");
    if (cJSON_IsObject(inc))
        fprintf(out,
                "\n%.0f of %.0f configurations evaluated before the time limit (%g s), "
                "%.0f from cache\n",
                number_or(inc, "evaluated", 0), number_or(inc, "of", 0),
                number_or(inc, "time_limit", 0), number_or(root, "cached_results", 0));
    else
        fprintf(out, "\n%.0f configurations evaluated, %.0f from cache\n",
                number_or(root, "evaluated", 0), number_or(root, "cached_results", 0));
    cJSON_Delete(root);
    return 0;
}

static void print_device_row(FILE *out, const cJSON *d)
{
    char sms[24], clock[24], l2[24], l2bw[24], drambw[24];
    /* stored devices (`devices add`) are marked after the figures, built-ins are not */
    fprintf(out, "%-18s %5s %9s %7s %8s %9s  %s%s\n", format_str(d, "name"),
            format_num(d, "sm_count", 0, 1, sms, sizeof sms),
            format_num(d, "clock_ghz", 3, 1, clock, sizeof clock),
            format_num(d, "l2_bytes", 2, 1.0 / (1024 * 1024), l2, sizeof l2),
            format_num(d, "l2_bw_gbs", 0, 1, l2bw, sizeof l2bw),
            format_num(d, "dram_bw_gbs", 0, 1, drambw, sizeof drambw),
            format_str(d, "provenance"),
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
    fprintf(out, "%-18s %5s %9s %7s %8s %9s  %s\n", "name", "SMs", "clock", "L2", "L2 BW",
            "DRAM BW", "provenance");
    fprintf(out, "%-18s %5s %9s %7s %8s %9s\n", "", "", "GHz", "MiB", "GB/s", "GB/s");
    if (cJSON_IsArray(list)) {
        cJSON_ArrayForEach(d, list) print_device_row(out, d);
    } else {
        print_device_row(out, cJSON_IsObject(one) ? one : root);
    }
    cJSON_Delete(root);
    return 0;
}
