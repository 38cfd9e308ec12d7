/*
 * mesh_bench: speed of the gather estimator on a large unstructured mesh (issue 45: "a
 * 16 M-cell mesh is estimated in <= 1 s on this 2-core machine"). Builds a random
 * 4-neighbour mesh of N cells (Langguth's worst ordering, every neighbour anywhere: the
 * DRAM trace's slowest case), writes it as int32-le, and times through the real request
 * path (lr_api, no cache) one estimate of issue 45's finite-volume kernel on the built-in
 * H200 at 256 threads per block, fp64, REPETITIONS times with a fresh worker each:
 * wall and CPU seconds (minimum, median, maximum), reading and hashing the neighbour file
 * included, as a client pays them. Then a ranking of the same request over blocks of
 * 128, 256 and 512 threads on one thread: what one more configuration costs ((ranking -
 * estimate) / 2, the request's reading, hashing and table paid once), which is what a
 * ranking of many block sizes pays per configuration.
 *   usage: mesh_bench [CELLS [REPETITIONS]]   (default 16777216 cells, 3 repetitions)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "mesh.h"

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The random mesh of n cells (one diagonal block of n) in file; 0 or -1. */
static int write_mesh(const char *file, int64_t n)
{
    int32_t *nbr = mesh_diagonal_blocks(n, 4, n, 1);
    if (!nbr)
        return -1;
    FILE *f = fopen(file, "wb");
    size_t wrote = f ? fwrite(nbr, 16, (size_t)n, f) : 0;
    int closed = f ? fclose(f) : EOF;
    free(nbr);
    return wrote == (size_t)n && closed == 0 ? 0 : -1;
}

/* One estimate (rank: a ranking) with a fresh worker: wall and CPU seconds; 0 or -1
 * (message printed). */
static int estimate_once(lr_api *api, const char *body, int rank, double *wall, double *cpu)
{
    lr_error err;
    lr_error_clear(&err);
    double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    lr_worker *w = lr_worker_new(api, &err);
    char *txt = !w     ? NULL
                : rank ? lr_api_rank(w, body, strlen(body), NULL, NULL, &err)
                       : lr_api_estimate(w, body, strlen(body), &err);
    lr_worker_free(w);
    *wall = clock_s(CLOCK_MONOTONIC) - w0;
    *cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (!txt) {
        fprintf(stderr, "mesh_bench: the estimate failed: %s\n", err.message);
        return -1;
    }
    free(txt);
    return 0;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 16777216;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (n < 1024 || n > 100000000 || reps < 1 || reps > 100) {
        fprintf(stderr, "usage: mesh_bench [CELLS (1024-1e8) [REPETITIONS (1-100)]]\n");
        return 2;
    }
    char file[] = "/tmp/lr_mesh_bench_XXXXXX";
    int fd = mkstemp(file);
    if (fd < 0 || (close(fd), write_mesh(file, n))) {
        fprintf(stderr, "mesh_bench: cannot write the mesh to %s\n", file);
        if (fd >= 0)
            unlink(file);
        return 1;
    }
    char body[2048];
    snprintf(
        body, sizeof body,
        "{\"device\":\"H200-SXM-141GB\",\"domain\":[%lld,1,1],"
        "\"launch\":{\"block\":[256,1,1]},\"kernel\":{\"registers\":24,\"flops\":11,"
        "\"fields\":[{\"name\":\"u\",\"dims\":[%lld],\"loads\":[[\"x\"],[\"nbr(0, x)\"],"
        "[\"nbr(1, x)\"],[\"nbr(2, x)\"],[\"nbr(3, x)\"]]},"
        "{\"name\":\"w\",\"dims\":[4,%lld],\"loads\":[[\"0\",\"x\"],[\"1\",\"x\"],"
        "[\"2\",\"x\"],[\"3\",\"x\"]]},"
        "{\"name\":\"nbr\",\"dims\":[4,%lld],\"integer\":true,\"values\":{\"file\":\"%s\"},"
        "\"loads\":[[\"0\",\"x\"],[\"1\",\"x\"],[\"2\",\"x\"],[\"3\",\"x\"]]},"
        "{\"name\":\"out\",\"dims\":[%lld],\"stores\":[[\"x\"]]}]}}",
        (long long)n, (long long)n, (long long)n, (long long)n, file, (long long)n);
    lr_api_config cfg = {.local_files = 1, .threads = 1};
    lr_error err;
    lr_error_clear(&err);
    lr_api *api = lr_api_new(&cfg, &err);
    double *wall = calloc((size_t)reps, sizeof *wall), *cpu = calloc((size_t)reps, sizeof *cpu);
    double *rwall = calloc((size_t)reps, sizeof *rwall),
           *rcpu = calloc((size_t)reps, sizeof *rcpu);
    int rc = api && wall && cpu && rwall && rcpu ? 0 : 1;
    /* the same request ranked over three blocks: "launch" becomes a search */
    char ranked[2200];
    const char *launch = strstr(body, "\"launch\":{\"block\":[256,1,1]}");
    if (launch)
        snprintf(ranked, sizeof ranked,
                 "%.*s\"search\":{\"blocks\":[[128,1,1],[256,1,1],"
                 "[512,1,1]]}%s",
                 (int)(launch - body), body,
                 launch + strlen("\"launch\":{\"block\":[256,1,1]}"));
    for (int i = 0; i < reps && rc == 0; i++)
        rc = estimate_once(api, body, 0, &wall[i], &cpu[i]) ||
                     estimate_once(api, ranked, 1, &rwall[i], &rcpu[i])
                 ? 1
                 : 0;
    unlink(file);
    if (rc == 0) {
        qsort(wall, (size_t)reps, sizeof *wall, cmp_double);
        qsort(cpu, (size_t)reps, sizeof *cpu, cmp_double);
        qsort(rcpu, (size_t)reps, sizeof *rcpu, cmp_double);
        printf("random mesh of %lld cells, one estimate (H200, 256 threads, fp64), %d runs:\n",
               (long long)n, reps);
        printf("  wall %.2f s min, %.2f s median, %.2f s max\n", wall[0], wall[reps / 2],
               wall[reps - 1]);
        printf("  CPU  %.2f s min, %.2f s median, %.2f s max (reading and hashing the file, "
               "the table and the estimate)\n",
               cpu[0], cpu[reps / 2], cpu[reps - 1]);
        printf("  ranking of 3 blocks: CPU %.2f s min, %.2f s median; one more configuration: "
               "%.2f s min, %.2f s median (target: one estimate <= 1 s)\n",
               rcpu[0], rcpu[reps / 2], (rcpu[0] - cpu[0]) / 2,
               (rcpu[reps / 2] - cpu[reps / 2]) / 2);
    }
    free(rwall);
    free(rcpu);
    free(wall);
    free(cpu);
    lr_api_free(api);
    return rc;
}
