/*
 * rank_vs_exhaustive: how close the measured best of the predicted top 1, 3 and 5 comes
 * to the best of timing *every* configuration (issue 4), and what each costs.
 *
 * For the 3-D 25-point range-4 stencil (640x512x512 doubles, docs/model.md §9 case 3)
 * on the device given (default H100-SXM5-80GB, the GPU we can measure on), it ranks the
 * default block space with foldings (1,1,1) and (1,1,2), then compiles and times every
 * configuration in rank order on the GPU present. Prints, with units: ranking time,
 * measured GLup/s of the top 1/3/5 and of all, the time each search took (ranking +
 * timing its candidates), and Spearman's rank correlation of predicted vs measured.
 * One JSON line per configuration goes to the file named by the second argument.
 *   usage: rank_vs_exhaustive [DEVICE [OUT.jsonl [MAX_CONFIGS]]]
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "stencil25.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *device = "H100-SXM5-80GB";

static void kernel_json(char *buf, size_t n, const char *tail)
{
    stencil25_request(buf, n, device, 512, tail);
}

typedef struct row {
    int block[3], folding[3];
    double predicted, measured, seconds; /* seconds: compile + timing of this one */
    int rank;
} row;

static double spearman(const row *r, int n)
{
    /* ranks by predicted are 1..n in order; rank the measured values */
    double *mr = calloc((size_t)n, sizeof *mr), d2 = 0;
    for (int i = 0; i < n; i++) {
        int higher = 0, equal = 0;
        for (int j = 0; j < n; j++) {
            higher += r[j].measured > r[i].measured;
            equal += r[j].measured == r[i].measured;
        }
        mr[i] = higher + (equal + 1) / 2.0;
        d2 += (mr[i] - (i + 1)) * (mr[i] - (i + 1));
    }
    free(mr);
    return 1 - 6 * d2 / ((double)n * ((double)n * n - 1));
}

int main(int argc, char **argv)
{
    if (argc > 1)
        device = argv[1];
    FILE *out = argc > 2 ? fopen(argv[2], "w") : NULL;
    int max = argc > 3 ? atoi(argv[3]) : 100000;
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 0};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    if (!w) {
        fprintf(stderr, "rank_vs_exhaustive: %s\n", err.message);
        return 1;
    }
    static char body[16384];
    kernel_json(body, sizeof body, "\"search\":{\"foldings\":[[1,1,1],[1,1,2]]}");
    double t0 = now();
    char *resp = lr_api_rank(w, body, strlen(body), NULL, NULL, &err);
    double t_rank = now() - t0;
    if (!resp) {
        fprintf(stderr, "rank_vs_exhaustive: %s\n", err.message);
        return 1;
    }
    cJSON *root = cJSON_Parse(resp);
    free(resp);
    cJSON *results = cJSON_GetObjectItem(root, "results");
    int n = cJSON_GetArraySize(results);
    if (n > max)
        n = max;
    row *rows = calloc((size_t)n, sizeof *rows);
    int measured = 0;
    for (int i = 0; i < n; i++) {
        cJSON *it = cJSON_GetArrayItem(results, i);
        row *r = &rows[i];
        r->rank = i + 1;
        for (int d = 0; d < 3; d++) {
            r->block[d] = cJSON_GetArrayItem(cJSON_GetObjectItem(it, "block"), d)->valueint;
            r->folding[d] = cJSON_GetArrayItem(cJSON_GetObjectItem(it, "folding"), d)->valueint;
        }
        r->predicted = cJSON_GetObjectItem(cJSON_GetObjectItem(it, "performance"), "predicted")
                           ->valuedouble;
        char launch[256];
        snprintf(launch, sizeof launch,
                 "\"launch\":{\"block\":[%d,%d,%d],\"folding\":[%d,%d,%d]}", r->block[0],
                 r->block[1], r->block[2], r->folding[0], r->folding[1], r->folding[2]);
        kernel_json(body, sizeof body, launch);
        lr_error_clear(&err);
        double t1 = now();
        char *m = lr_api_measure(w, body, strlen(body), &err);
        r->seconds = now() - t1;
        if (!m) {
            fprintf(stderr, "rank %d (%dx%dx%d, %dx%dx%d): %s\n", i + 1, r->block[0],
                    r->block[1], r->block[2], r->folding[0], r->folding[1], r->folding[2],
                    err.message);
            if (err.code == LR_UNAVAILABLE)
                return 77;
            continue;
        }
        cJSON *mj = cJSON_Parse(m);
        r->measured =
            cJSON_GetObjectItem(cJSON_GetObjectItem(mj, "measured"), "glups")->valuedouble;
        if (out)
            fprintf(out,
                    "{\"rank\":%d,\"block\":[%d,%d,%d],\"folding\":[%d,%d,%d],\"predicted_"
                    "glups\":%.4g,"
                    "\"measured_glups\":%.4g,\"seconds\":%.3f}\n",
                    r->rank, r->block[0], r->block[1], r->block[2], r->folding[0],
                    r->folding[1], r->folding[2], r->predicted, r->measured, r->seconds);
        if (out)
            fflush(out); /* a run cut short still leaves every measurement made */
        if ((i + 1) % 50 == 0)
            fprintf(stderr, "measured %d of %d\n", i + 1, n);
        cJSON_Delete(mj);
        free(m);
        measured++;
    }
    double best_all = 0, t_all = t_rank;
    int best_rank = 0;
    for (int i = 0; i < n; i++) {
        t_all += rows[i].seconds;
        if (rows[i].measured > best_all) {
            best_all = rows[i].measured;
            best_rank = i + 1;
        }
    }
    printf("device model %s; %d configurations ranked in %.3f s, %d measured\n", device,
           cJSON_GetArraySize(results), t_rank, measured);
    printf("%-22s %14s %12s %16s\n", "search", "best GLup/s", "of optimum", "time (s)");
    int ks[] = {1, 3, 5};
    for (int q = 0; q < 3; q++) {
        double b = 0, t = t_rank;
        for (int i = 0; i < ks[q] && i < n; i++) {
            b = rows[i].measured > b ? rows[i].measured : b;
            t += rows[i].seconds;
        }
        printf("predicted top %-8d %14.2f %11.1f%% %16.2f\n", ks[q], b, 100 * b / best_all, t);
    }
    printf("%-22s %14.2f %11.1f%% %16.2f   (optimum: predicted rank %d)\n", "exhaustive",
           best_all, 100.0, t_all, best_rank);
    printf("Spearman rank correlation, predicted vs measured: %.3f\n", spearman(rows, n));
    printf("top 5 predicted vs measured (GLup/s):\n");
    for (int i = 0; i < 5 && i < n; i++)
        printf("  %d: block %dx%dx%d folding %dx%dx%d  predicted %.1f  measured %.1f\n", i + 1,
               rows[i].block[0], rows[i].block[1], rows[i].block[2], rows[i].folding[0],
               rows[i].folding[1], rows[i].folding[2], rows[i].predicted, rows[i].measured);
    free(rows);
    cJSON_Delete(root);
    if (out)
        fclose(out);
    lr_worker_free(w);
    lr_api_free(api);
    return 0;
}
