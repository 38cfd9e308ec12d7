/*
 * micro: the calibration microbenchmarks (micro.h, docs/calibration.md).
 */
#include "micro.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"

extern const lr_embedded_file cal_micro_files[];
extern const unsigned cal_micro_files_count;

typedef unsigned long long u64;

#define MIB ((u64)1 << 20)
/* Threads per block of the full-occupancy kernels, two blocks per SM (2048 threads:
 * the most an SM of compute capability 7.0..9.0 holds). */
#define FULL_BLOCK 1024
/* The DRAM sweep's buffer: far larger than any L2, so reads come from DRAM. */
#define DRAM_BUFFER (1024 * MIB)
/* Written before a cold pointer chase to push the chain out of L2 (as cg_measure's
 * flush: twice the largest L2 of current GPUs). */
#define FLUSH_BYTES (256 * MIB)
/* Bytes of a 128-byte line as 8-byte chain elements. */
#define LINE_ELEMS 16
/* Multiplier of the chain's line order: odd (a bijection modulo a power of two) and
 * far from small, so consecutive lines land on unrelated pages. */
#define CHAIN_MULT 0x9E3779B97F4A7C15ull

typedef struct bench {
    cg_bench *bn;
    cg_gpu_props gpu;
    int quick;
    void (*progress)(void *ctx, const char *step);
    void *ctx;
    uint64_t out;   /* a sink for results no kernel ever writes (see micro_kernels.cu) */
    uint64_t times; /* per-block clocks, 4 u64 per block */
    unsigned nblocks_max;
} bench;

static void step(bench *b, const char *what)
{
    if (b->progress)
        b->progress(b->ctx, what);
}

int cal_micro_steps(int quick)
{
    (void)quick;
    return 6;
}

/* Median of the timed runs after one warm-up run. */
static int time_kernel(bench *b, unsigned grid, unsigned block, void **args, double *ms,
                       lr_error *err)
{
    const unsigned g[3] = {grid, 1, 1}, t[3] = {block, 1, 1};
    float runs[5];
    int n = b->quick ? 3 : 5;
    if (cg_bench_run(b->bn, g, t, args, NULL, err))
        return -1;
    for (int i = 0; i < n; i++)
        if (cg_bench_run(b->bn, g, t, args, &runs[i], err))
            return -1;
    for (int i = 1; i < n; i++) /* insertion sort of at most five */
        for (int j = i; j > 0 && runs[j] < runs[j - 1]; j--) {
            float x = runs[j];
            runs[j] = runs[j - 1];
            runs[j - 1] = x;
        }
    *ms = runs[n / 2];
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

/* The median over the last run's blocks of cycles and nanoseconds (CLOCK_END). */
static int block_clocks(bench *b, unsigned nblocks, double *cycles, double *ns, lr_error *err)
{
    u64 *t = malloc((size_t)nblocks * 4 * sizeof *t);
    double *c = malloc((size_t)nblocks * sizeof *c), *g = malloc((size_t)nblocks * sizeof *g);
    int rc = t && c && g ? 0 : lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (!rc)
        rc = cg_bench_download(b->bn, t, b->times, (size_t)nblocks * 4 * sizeof *t, err);
    for (unsigned i = 0; i < nblocks && !rc; i++) {
        c[i] = (double)(t[4 * i + 1] - t[4 * i]);
        g[i] = (double)(t[4 * i + 3] - t[4 * i + 2]);
    }
    if (!rc) {
        qsort(c, nblocks, sizeof *c, cmp_double);
        qsort(g, nblocks, sizeof *g, cmp_double);
        *cycles = c[nblocks / 2];
        *ns = g[nblocks / 2];
    }
    free(t);
    free(c);
    free(g);
    return rc;
}

/* Reads bytes (rounded to whole grid rounds) from a footprint-byte buffer with
 * threads_per_sm threads of `loads` loads in flight each; *read gets the bytes read.
 * *ms is the median of time_kernel's runs, or with once the time of a single run:
 * what a caller wants who reads the run's per-block clocks, which only the last run
 * leaves behind. */
static int stream(bench *b, uint64_t buf, u64 footprint, int threads_per_sm, int loads,
                  double bytes, int once, double *read, double *ms, lr_error *err)
{
    char entry[32];
    snprintf(entry, sizeof entry, "lr_stream%d", loads);
    if (cg_bench_load(b->bn, cal_micro_files[0].text, entry, err))
        return -1;
    unsigned block = threads_per_sm < FULL_BLOCK ? (unsigned)threads_per_sm : FULL_BLOCK;
    unsigned grid = (unsigned)b->gpu.sm_count * ((unsigned)threads_per_sm / block);
    u64 threads = (u64)grid * block, n = footprint / 16, st = threads % n;
    double per_iter = (double)threads * loads * 16;
    int iters = (int)fmax(1, ceil(bytes / per_iter));
    void *args[] = {&buf, &n, &st, &iters, &b->out, &b->times};
    *read = per_iter * iters;
    if (!once)
        return time_kernel(b, grid, block, args, ms, err);
    const unsigned g[3] = {grid, 1, 1}, t[3] = {block, 1, 1};
    float run;
    if (cg_bench_run(b->bn, g, t, args, &run, err))
        return -1;
    *ms = run;
    return 0;
}

static cJSON *add_row(cJSON *arr)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(arr, o);
    return o;
}

/* L2 bandwidth against working-set size, full occupancy, 4 loads in flight. */
static int l2_sweep(bench *b, cJSON *out, lr_error *err)
{
    static const int full[] = {1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 48, 56, 64, 80, 96, 128, 256};
    static const int quick[] = {2, 8, 16, 24, 32, 40, 48, 64, 128, 256};
    const int *mib = b->quick ? quick : full;
    int n = b->quick ? (int)(sizeof quick / sizeof *quick) : (int)(sizeof full / sizeof *full);
    uint64_t buf;
    step(b, "L2 bandwidth against working-set size");
    if (cg_bench_alloc(b->bn, 256 * MIB, &buf, err) || cg_bench_fill(b->bn, buf, 0, 256 * MIB, err))
        return -1;
    cJSON *arr = cJSON_AddArrayToObject(out, "l2_sweep");
    for (int i = 0; i < n; i++) {
        double read, ms;
        if (stream(b, buf, (u64)mib[i] * MIB, 2 * FULL_BLOCK, 4, b->quick ? 1e9 : 2e9, 0, &read,
                   &ms, err))
            return -1;
        cJSON *r = add_row(arr);
        cJSON_AddNumberToObject(r, "footprint_bytes", (double)((u64)mib[i] * MIB));
        cJSON_AddNumberToObject(r, "bytes_read", read);
        cJSON_AddNumberToObject(r, "ms", ms);
    }
    cg_bench_free(b->bn, buf);
    return 0;
}

/* DRAM read bandwidth against threads per SM and loads in flight per thread, and the
 * SM clock under that memory-bound load. */
static int dram_sweep(bench *b, uint64_t buf, cJSON *out, lr_error *err)
{
    static const int tps_full[] = {64, 128, 256, 512, 1024, 2048}, tps_quick[] = {64, 256, 2048};
    static const int loads_full[] = {1, 2, 4, 8}, loads_quick[] = {1, 4};
    const int *tps = b->quick ? tps_quick : tps_full, *lds = b->quick ? loads_quick : loads_full;
    int nt = b->quick ? 3 : 6, nl = b->quick ? 2 : 4;
    step(b, "DRAM bandwidth against bytes in flight");
    cJSON *arr = cJSON_AddArrayToObject(out, "dram_inflight");
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < nl; j++) {
            double read, ms;
            if (stream(b, buf, DRAM_BUFFER, tps[i], lds[j], 512.0 * MIB, 0, &read, &ms, err))
                return -1;
            cJSON *r = add_row(arr);
            cJSON_AddNumberToObject(r, "threads_per_sm", tps[i]);
            cJSON_AddNumberToObject(r, "loads_per_thread", lds[j]);
            cJSON_AddNumberToObject(r, "bytes_read", read);
            cJSON_AddNumberToObject(r, "ms", ms);
        }
    return 0;
}

/* Writes a chain of k lines over a footprint of nlines lines into buf. */
static int chain(bench *b, uint64_t buf, u64 nlines, u64 k, lr_error *err)
{
    if (cg_bench_load(b->bn, cal_micro_files[0].text, "lr_chain", err))
        return -1;
    u64 mult = CHAIN_MULT, le = LINE_ELEMS;
    void *args[] = {&buf, &nlines, &k, &mult, &le};
    const unsigned g[3] = {(unsigned)((k + 255) / 256), 1, 1}, t[3] = {256, 1, 1};
    return cg_bench_run(b->bn, g, t, args, NULL, err);
}

/* Follows the chain for steps loads (warm: after an untimed pass of as many in the same
 * launch; cold: after flushing L2). */
static int chase(bench *b, uint64_t buf, const char *kind, int steps, int warm, uint64_t flush,
                 double *cycles, double *ns, lr_error *err)
{
    char entry[32];
    snprintf(entry, sizeof entry, "lr_chase_%s", kind);
    if (cg_bench_load(b->bn, cal_micro_files[0].text, entry, err))
        return -1;
    u64 start = 0, res[3];
    void *args[] = {&buf, &start, &steps, &warm, &b->out};
    const unsigned one[3] = {1, 1, 1};
    if (!warm && cg_bench_fill(b->bn, flush, 1, FLUSH_BYTES, err))
        return -1;
    if (cg_bench_run(b->bn, one, one, args, NULL, err) ||
        cg_bench_download(b->bn, res, b->out, sizeof res, err))
        return -1;
    *cycles = (double)res[1];
    *ns = (double)res[2];
    return 0;
}

static int latency_row(bench *b, cJSON *arr, const char *level, u64 footprint, u64 k, int warm,
                       uint64_t flush, lr_error *err)
{
    uint64_t buf;
    double cyc, ns;
    int steps = (int)k;
    if (cg_bench_alloc(b->bn, footprint, &buf, err) || chain(b, buf, footprint / 128, k, err) ||
        chase(b, buf, strcmp(level, "l1") ? "cg" : "ca", steps, warm, flush, &cyc, &ns, err))
        return -1;
    cg_bench_free(b->bn, buf);
    cJSON *r = add_row(arr);
    cJSON_AddStringToObject(r, "level", level);
    cJSON_AddNumberToObject(r, "footprint_bytes", (double)footprint);
    cJSON_AddNumberToObject(r, "steps", steps);
    cJSON_AddNumberToObject(r, "cycles", cyc);
    cJSON_AddNumberToObject(r, "ns", ns);
    return 0;
}

/* Pointer chasing: L1 hits (16 KiB, cached in L1), L2 hits over footprints from 1 MiB
 * up (lines warm in L2: only address translation changes), DRAM (cold, after a flush). */
static int latencies(bench *b, cJSON *out, lr_error *err)
{
    static const int l2_full[] = {1, 4, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
    static const int l2_quick[] = {1, 32, 256, 2048};
    const int *l2 = b->quick ? l2_quick : l2_full;
    int nl2 = b->quick ? 4 : 11;
    uint64_t flush;
    step(b, "latencies by pointer chasing");
    if (cg_bench_alloc(b->bn, FLUSH_BYTES, &flush, err))
        return -1;
    cJSON *arr = cJSON_AddArrayToObject(out, "chase");
    /* 128 lines: the whole 16 KiB, so the warm pass leaves every line in L1 */
    if (latency_row(b, arr, "l1", 16 * 1024, 128, 1, flush, err))
        return -1;
    /* 4096 lines (512 KiB) fit any L2 however far apart they lie */
    for (int i = 0; i < nl2; i++)
        if (latency_row(b, arr, "l2", (u64)l2[i] * MIB, 4096, 1, flush, err))
            return -1;
    if (latency_row(b, arr, "dram", 32 * MIB, 4096, 0, flush, err) ||
        latency_row(b, arr, "dram", 2048 * MIB, 4096, 0, flush, err))
        return -1;
    cg_bench_free(b->bn, flush);
    return 0;
}

/* L1 lines per cycle: 2 blocks of 1024 threads per SM, each thread 8 loads per
 * iteration, each warp load touching S lines. */
static int l1_rates(bench *b, cJSON *out, lr_error *err)
{
    static const int lines[] = {1, 2, 4, 8, 16, 32};
    uint64_t buf;
    step(b, "L1 throughput");
    if (cg_bench_alloc(b->bn, 64 * 1024, &buf, err) || cg_bench_fill(b->bn, buf, 0, 64 * 1024, err))
        return -1;
    cJSON *arr = cJSON_AddArrayToObject(out, "l1");
    unsigned grid = 2 * (unsigned)b->gpu.sm_count;
    for (int i = 0; i < 6; i++) {
        char entry[32];
        snprintf(entry, sizeof entry, "lr_l1_s%d", lines[i]);
        int iters = (b->quick ? 1024 : 4096) / lines[i];
        void *args[] = {&buf, &iters, &b->out, &b->times};
        double ms, cyc, ns;
        if (cg_bench_load(b->bn, cal_micro_files[0].text, entry, err) ||
            time_kernel(b, grid, FULL_BLOCK, args, &ms, err) ||
            block_clocks(b, grid, &cyc, &ns, err))
            return -1;
        cJSON *r = add_row(arr);
        cJSON_AddNumberToObject(r, "lines_per_load", lines[i]);
        /* warp loads per SM: two blocks of 32 warps */
        cJSON_AddNumberToObject(r, "loads_per_sm", 2.0 * 32 * 8 * iters);
        cJSON_AddNumberToObject(r, "cycles", cyc);
    }
    cg_bench_free(b->bn, buf);
    return 0;
}

/* The SM clock under a sustained compute-bound load (FMA chains) and a memory-bound one
 * (the DRAM stream at full occupancy), each about 0.3 s (quick: 0.1 s). */
static int clocks(bench *b, uint64_t dram, cJSON *out, lr_error *err)
{
    double secs = b->quick ? 0.1 : 0.3, cyc, ns, ms, read;
    (void)ms;
    unsigned grid = 2 * (unsigned)b->gpu.sm_count;
    step(b, "SM clock under load");
    cJSON *arr = cJSON_AddArrayToObject(out, "clock");
    if (cg_bench_load(b->bn, cal_micro_files[0].text, "lr_fma", err))
        return -1;
    /* a probe of 1e5 iterations (a few ms: 2048 threads x 4 FMA are 64 cycles per
     * iteration on 128 lanes) sizes the real run; one run, no repetitions */
    int iters = 100000;
    const unsigned g[3] = {grid, 1, 1}, blk[3] = {FULL_BLOCK, 1, 1};
    void *args[] = {&iters, &b->out, &b->times};
    float probe, run;
    if (cg_bench_run(b->bn, g, blk, args, &probe, err))
        return -1;
    iters = (int)fmin(1e9, fmax(1e5, 1e5 * secs * 1e3 / fmax(probe, 1e-3)));
    if (cg_bench_run(b->bn, g, blk, args, &run, err) || block_clocks(b, grid, &cyc, &ns, err))
        return -1;
    cJSON *r = add_row(arr);
    cJSON_AddStringToObject(r, "load", "compute");
    cJSON_AddNumberToObject(r, "cycles", cyc);
    cJSON_AddNumberToObject(r, "ns", ns);
    /* about 3 TB/s: bytes for secs seconds, in one run as the compute load's: the
     * clocks are those of the last run, and timing it (a warm-up and five runs, 1.8 s
     * instead of 0.3 on an H100) measured nothing more */
    if (stream(b, dram, DRAM_BUFFER, 2 * FULL_BLOCK, 4, 3e12 * secs, 1, &read, &ms, err) ||
        block_clocks(b, grid, &cyc, &ns, err))
        return -1;
    r = add_row(arr);
    cJSON_AddStringToObject(r, "load", "memory");
    cJSON_AddNumberToObject(r, "cycles", cyc);
    cJSON_AddNumberToObject(r, "ns", ns);
    return 0;
}

/* The parameter lists of the rate kernels (micro_kernels.cu): (iters, k, out, times)
 * with k of the kernel's type, the issue kernel taking a float and an integer k. */
enum rate_args { ARGS_FLOAT, ARGS_DOUBLE, ARGS_SPECIAL, ARGS_INTEGER, ARGS_MIXED };

/* The instruction-rate benchmarks (micro_kernels.cu, "instruction rates"): the class
 * each measures, its kernel and parameter list, the class's instructions per thread per
 * loop iteration (the kernel's chains times its steps: change both together) and the
 * iterations that take about 2 ms on an H100 at the CUDA programming guide's rates. */
static const struct rate_bench {
    const char *cls, *entry;
    enum rate_args args;
    int per_iter, iters;
} rate_benches[] = {
    {"fp32", "lr_rate_fp32", ARGS_FLOAT, 8 * 16, 2048},
    {"fp64", "lr_rate_fp64", ARGS_DOUBLE, 8 * 16, 1024},
    {"special", "lr_rate_special", ARGS_SPECIAL, 8 * 4 * 2, 512},
    {"integer", "lr_rate_integer", ARGS_INTEGER, 8 * 16 * 2, 512},
    {"issue", "lr_rate_issue", ARGS_MIXED, 8 * 16, 2048},
};

/* Instructions per cycle per SM of each class: as many threads as an SM holds, in 2
 * blocks per SM (both resident: the kernels take at most 32 registers), each thread
 * running independent chains of the class's instructions; the cycles are the SM's own
 * (clock64 over the block, the median over blocks), so the rate is per cycle at the
 * clock under this load, which the record keeps too (ns over the same span). */
static int rates(bench *b, cJSON *out, lr_error *err)
{
    step(b, "instruction rates (fp32, fp64, special functions, integer, issue)");
    cJSON *arr = cJSON_AddArrayToObject(out, "rates");
    unsigned grid = 2 * (unsigned)b->gpu.sm_count;
    /* 2048 on compute capability 7.0, 8.0 and 9.0, 1536 on 8.6 and 8.9, 1024 on 7.5 */
    int tps = b->gpu.max_threads_per_sm >= 64 && b->gpu.max_threads_per_sm <= 2 * FULL_BLOCK
                  ? b->gpu.max_threads_per_sm
                  : 2 * FULL_BLOCK;
    float kf = 0.999f, kspecial = 1.1f;
    double kd = 0.999;
    unsigned ki = 0x9E3779B9u;
    for (size_t i = 0; i < sizeof rate_benches / sizeof *rate_benches; i++) {
        const struct rate_bench *rb = &rate_benches[i];
        /* --quick too: the whole step takes about 60 ms, and a quarter of it (0.5 ms a
         * kernel) read FFMA 4 % above its peak on an H200, the median block having run
         * alone on its SM for a larger share of its time */
        int iters = rb->iters;
        void *lists[][5] = {
            [ARGS_FLOAT] = {&iters, &kf, &b->out, &b->times},
            [ARGS_DOUBLE] = {&iters, &kd, &b->out, &b->times},
            [ARGS_SPECIAL] = {&iters, &kspecial, &b->out, &b->times},
            [ARGS_INTEGER] = {&iters, &ki, &b->out, &b->times},
            [ARGS_MIXED] = {&iters, &kf, &ki, &b->out, &b->times},
        };
        void **args = lists[rb->args];
        double ms, cyc, ns;
        if (cg_bench_load(b->bn, cal_micro_files[0].text, rb->entry, err) ||
            time_kernel(b, grid, (unsigned)tps / 2, args, &ms, err) ||
            block_clocks(b, grid, &cyc, &ns, err))
            return -1;
        cJSON *r = add_row(arr);
        cJSON_AddStringToObject(r, "class", rb->cls);
        cJSON_AddStringToObject(r, "kernel", rb->entry);
        cJSON_AddNumberToObject(r, "threads_per_sm", tps);
        cJSON_AddNumberToObject(r, "ops_per_thread", (double)rb->per_iter * iters);
        cJSON_AddNumberToObject(r, "cycles", cyc);
        cJSON_AddNumberToObject(r, "ns", ns);
        cJSON_AddNumberToObject(r, "ms", ms);
    }
    return 0;
}

cJSON *cal_micro_measure(const cg_measure_opts *opts, int quick,
                         void (*progress)(void *ctx, const char *step), void *ctx,
                         lr_error *err)
{
    bench b = {0};
    b.quick = quick;
    b.progress = progress;
    b.ctx = ctx;
    if (!(b.bn = cg_bench_open(opts, &b.gpu, err)))
        return NULL;
    cJSON *out = cJSON_CreateObject();
    uint64_t dram = 0;
    b.nblocks_max = 2 * (unsigned)b.gpu.sm_count * 16;
    int rc = out ? 0 : lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (!rc && b.gpu.sm_count <= 0)
        rc = lr_error_set(err, LR_UNAVAILABLE, NULL, "the driver gives no SM count");
    if (!rc)
        rc = cg_bench_alloc(b.bn, 3 * sizeof(u64), &b.out, err) ||
             cg_bench_alloc(b.bn, (size_t)b.nblocks_max * 4 * sizeof(u64), &b.times, err) ||
             cg_bench_alloc(b.bn, DRAM_BUFFER, &dram, err) ||
             cg_bench_fill(b.bn, dram, 0, DRAM_BUFFER, err);
    if (!rc)
        rc = l2_sweep(&b, out, err) || dram_sweep(&b, dram, out, err) ||
             latencies(&b, out, err) || l1_rates(&b, out, err) || clocks(&b, dram, out, err) ||
             rates(&b, out, err);
    cg_bench_close(b.bn);
    if (rc) {
        cJSON_Delete(out);
        return NULL;
    }
    return out;
}

/* ---- analysis ---- */

static int bad(lr_error *err, const char *path, const char *why)
{
    return lr_error_set(err, LR_INVALID_REQUEST, path, "calibration record: %s", why);
}

/* Member key of row as a positive number, or 0. */
static double num(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(row, key);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : 0;
}

/* Checks that every row of micro.name has the positive numbers keys. */
static int rows_ok(const cJSON *micro, const char *name, const char *const *keys,
                   const cJSON **arr, lr_error *err)
{
    char path[96];
    *arr = cJSON_GetObjectItem(micro, name);
    snprintf(path, sizeof path, "micro.%s", name);
    if (!cJSON_IsArray(*arr) || cJSON_GetArraySize(*arr) < 2)
        return bad(err, path, "needs an array of at least two rows");
    int i = 0;
    for (const cJSON *r = (*arr)->child; r; r = r->next, i++)
        for (const char *const *k = keys; *k; k++)
            if (!num(r, *k)) {
                snprintf(path, sizeof path, "micro.%s[%d].%s", name, i, *k);
                return bad(err, path, "must be a positive number");
            }
    return 0;
}

static double gbs(const cJSON *r)
{
    return num(r, "bytes_read") / (num(r, "ms") * 1e6);
}

/* Fraction of the L2 plateau below which reuse no longer pays in full: the effective
 * L2 size is the working set where read bandwidth falls below it. */
#define L2_RELIABLE 0.9

static int analyse_l2(const cJSON *micro, double l2_driver, cal_micro_figures *f, cal_text *t,
                      lr_error *err)
{
    static const char *const keys[] = {"footprint_bytes", "bytes_read", "ms", NULL};
    const cJSON *arr, *r;
    if (rows_ok(micro, "l2_sweep", keys, &arr, err))
        return -1;
    /* the plateau: the median over working sets up to half the L2 the driver reports
     * (the smallest ones read faster still: the near L2 partition alone serves them) */
    double in[64];
    int n = 0;
    cJSON_ArrayForEach(r, arr) {
        if (n < 64 && (num(r, "footprint_bytes") <= l2_driver / 2 || n == 0))
            in[n++] = gbs(r);
        f->l2_floor_gbs = gbs(r); /* the last, largest working set */
    }
    qsort(in, (size_t)n, sizeof *in, cmp_double);
    f->l2_plateau_gbs = in[n / 2];
    cal_say(t, "\nL2 bandwidth against working-set size (reads, 2048 threads per SM):\n"
               "  working set MiB   GB/s\n");
    double prev_fp = 0, prev_bw = 0, low = L2_RELIABLE * f->l2_plateau_gbs;
    cJSON_ArrayForEach(r, arr) {
        double fp = num(r, "footprint_bytes"), bw = gbs(r);
        cal_say(t, "  %15.0f %6.0f\n", fp / MIB, bw);
        /* the first drop below L2_RELIABLE of the plateau, interpolated in log size */
        if (!f->l2_effective_bytes && prev_bw >= low && bw < low) {
            double w = (prev_bw - low) / (prev_bw - bw);
            f->l2_effective_bytes = exp(log(prev_fp) + w * (log(fp) - log(prev_fp)));
        }
        prev_fp = fp;
        prev_bw = bw;
    }
    cal_say(t, "  plateau %.0f GB/s (median up to half the driver's L2 of %.0f MiB), %.0f GB/s "
               "at the largest working set; below %.0f %% of the plateau from %.1f MiB\n",
            f->l2_plateau_gbs, l2_driver / MIB, f->l2_floor_gbs, L2_RELIABLE * 100,
            f->l2_effective_bytes / MIB);
    return 0;
}

/* Fraction of the peak DRAM bandwidth that counts as reaching it. */
#define DRAM_NEAR_PEAK 0.9

static int analyse_dram(const cJSON *micro, int sm_count, cal_micro_figures *f, cal_text *t,
                        lr_error *err)
{
    static const char *const keys[] = {"threads_per_sm", "loads_per_thread", "bytes_read", "ms",
                                       NULL};
    const cJSON *arr, *r;
    if (rows_ok(micro, "dram_inflight", keys, &arr, err))
        return -1;
    cJSON_ArrayForEach(r, arr) f->dram_peak_gbs = fmax(f->dram_peak_gbs, gbs(r));
    cal_say(t, "\nDRAM read bandwidth against bytes in flight per SM (16-byte loads; implied "
               "latency: Little's law,\nSMs x bytes in flight per SM / bandwidth):\n"
               "  threads/SM  loads/thread  KiB in flight/SM   GB/s  implied latency ns\n");
    double least = INFINITY;
    cJSON_ArrayForEach(r, arr) {
        double bif = num(r, "threads_per_sm") * num(r, "loads_per_thread") * 16;
        double lat = sm_count * bif / gbs(r);
        cal_say(t, "  %10.0f %13.0f %17.1f %6.0f %19.0f\n", num(r, "threads_per_sm"),
                num(r, "loads_per_thread"), bif / 1024, gbs(r), lat);
        if (bif < least) {
            least = bif;
            f->dram_latency_ns = lat;
        }
        if (gbs(r) >= DRAM_NEAR_PEAK * f->dram_peak_gbs &&
            (!f->dram_near_peak_bytes_per_sm || bif < f->dram_near_peak_bytes_per_sm))
            f->dram_near_peak_bytes_per_sm = bif;
    }
    cal_say(t, "  peak %.0f GB/s; %.0f %% of it from %.0f KiB in flight per SM; implied latency "
               "at the least load %.0f ns\n", f->dram_peak_gbs, DRAM_NEAR_PEAK * 100,
            f->dram_near_peak_bytes_per_sm / 1024, f->dram_latency_ns);
    return 0;
}

static int analyse_chase(const cJSON *micro, cal_micro_figures *f, cal_text *t, lr_error *err)
{
    static const char *const keys[] = {"footprint_bytes", "steps", "cycles", "ns", NULL};
    const cJSON *arr, *r;
    if (rows_ok(micro, "chase", keys, &arr, err))
        return -1;
    cal_say(t, "\nLatency by pointer chasing (one load after another):\n"
               "  level  footprint MiB   cycles     ns\n");
    double first_l2 = 0;
    int l2_slower = 0;
    cJSON_ArrayForEach(r, arr) {
        const cJSON *lv = cJSON_GetObjectItem(r, "level");
        const char *level = cJSON_IsString(lv) ? lv->valuestring : "";
        double cyc = num(r, "cycles") / num(r, "steps"), ns = num(r, "ns") / num(r, "steps");
        cal_say(t, "  %-5s %14.3f %8.0f %6.0f\n", level, num(r, "footprint_bytes") / MIB, cyc, ns);
        if (!strcmp(level, "l1"))
            f->l1_hit_ns = ns;
        else if (!strcmp(level, "l2")) {
            if (!first_l2)
                f->l2_hit_ns = first_l2 = ns;
            l2_slower |= ns > 1.1 * first_l2;
            if (!l2_slower)
                f->translation_reach_bytes = num(r, "footprint_bytes");
        } else if (!strcmp(level, "dram")) {
            if (!f->dram_ns)
                f->dram_ns = ns;
            f->dram_far_ns = ns;
        }
    }
    cal_say(t, "  L1 hit %.1f ns, L2 hit %.1f ns, DRAM %.0f ns (%.0f ns over the largest "
               "footprint); L2 hits within 10 %% of the first up to %.0f MiB%s\n",
            f->l1_hit_ns, f->l2_hit_ns, f->dram_ns, f->dram_far_ns,
            f->translation_reach_bytes / MIB, l2_slower ? "" : " (the largest footprint tried)");
    return 0;
}

static int analyse_l1(const cJSON *micro, cal_micro_figures *f, cal_text *t, lr_error *err)
{
    static const char *const keys[] = {"lines_per_load", "loads_per_sm", "cycles", NULL};
    const cJSON *arr, *r;
    if (rows_ok(micro, "l1", keys, &arr, err))
        return -1;
    cal_say(t, "\nL1 throughput (loads hitting L1, 2048 threads per SM):\n"
               "  lines per warp load   lines per cycle per SM\n");
    cJSON_ArrayForEach(r, arr) {
        double lines = num(r, "lines_per_load"), rate = lines * num(r, "loads_per_sm") /
                                                        num(r, "cycles");
        int k = (int)round(log2(lines));
        if (k >= 0 && k < 6 && lines == (double)(1 << k))
            f->l1_lines_per_cycle[k] = rate;
        cal_say(t, "  %19.0f %24.3f\n", lines, rate);
    }
    return 0;
}

static int analyse_clock(const cJSON *micro, cal_micro_figures *f, cal_text *t, lr_error *err)
{
    static const char *const keys[] = {"cycles", "ns", NULL};
    const cJSON *arr, *r;
    if (rows_ok(micro, "clock", keys, &arr, err))
        return -1;
    cJSON_ArrayForEach(r, arr) {
        const cJSON *ld = cJSON_GetObjectItem(r, "load");
        double ghz = num(r, "cycles") / num(r, "ns");
        if (cJSON_IsString(ld) && !strcmp(ld->valuestring, "compute"))
            f->clock_compute_ghz = ghz;
        else if (cJSON_IsString(ld) && !strcmp(ld->valuestring, "memory"))
            f->clock_memory_ghz = ghz;
    }
    cal_say(t, "\nSM clock under load: %.3f GHz compute-bound, %.3f GHz memory-bound\n",
            f->clock_compute_ghz, f->clock_memory_ghz);
    return 0;
}

int cal_micro_analyse(const cJSON *micro, int sm_count, double l2_driver_bytes,
                      cal_micro_figures *out, cal_text *t, lr_error *err)
{
    cal_text scratch = {0};
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(micro))
        return bad(err, "micro", "must be an object");
    if (sm_count <= 0 || !(l2_driver_bytes > 0))
        return bad(err, "gpu", "needs sm_count and l2_bytes (positive numbers)");
    int rc = analyse_l2(micro, l2_driver_bytes, out, t ? t : &scratch, err) ||
             analyse_dram(micro, sm_count, out, t ? t : &scratch, err) ||
             analyse_chase(micro, out, t ? t : &scratch, err) ||
             analyse_l1(micro, out, t ? t : &scratch, err) ||
             analyse_clock(micro, out, t ? t : &scratch, err);
    free(scratch.s);
    return rc ? -1 : 0;
}
