/*
 * calibrate: the calibration suite on the GPU, and a device description from its
 * timings (calibrate.h, docs/calibration.md).
 */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"
#include "embedded.h"
#include "fit.h"
#include "micro.h"
#include "overhead.h"
#include "rates.h"
#include "request.h"

/* calibrate/meson.build embeds these corpus families (tests/accuracy/corpus/families/): the
 * kernels whose timings pin the model-v2 parameters down. A copy of four-float
 * structs (block start rate, DRAM bandwidth, partial-sector stores), a transposed copy
 * (store requests), a 3-D 7-point stencil in double and a 2-D 5-point stencil in float
 * (latency, folding, L1/L2), and D3Q19 LBM streaming (many streams: DRAM overload). */
extern const lr_embedded_file cal_suite_files[];
extern const unsigned cal_suite_files_count;

const char *const cal_suite_families[] = {"copy_aos_f32", "d3q19_pull_f64", "star2d_r1_f32",
                                          "star3d_r1_f64", "transpose2d_f32", NULL};

/* calibrate/meson.build embeds the size scans of lab/2026-11-23-overhead/families: three corpus
 * kernels at 6 to 8 domain sizes each, timed for the launch overhead (overhead.h). */
extern const lr_embedded_file cal_overhead_files[];
extern const unsigned cal_overhead_files_count;

/* --quick keeps every QUICK_STRIDE-th configuration of each family. */
#define DRAM_FAMILY "copy_aos_f32" /* the streaming copy: DRAM bandwidth */
#define QUICK_STRIDE 3

void cal_opts_init(cal_opts *o)
{
    memset(o, 0, sizeof *o);
    cg_measure_opts_init(&o->measure);
}

/* Families the suite may hold: calibrate/meson.build embeds five; and any embedded
 * set of families (the size scans: 22). */
#define MAX_SUITE 16
#define MAX_FAMILIES 32

/* The embedded families files[0..count) into fams (MAX_FAMILIES at most). */
static int load_families(const lr_embedded_file *files, unsigned count, corpus_family *fams,
                         int *n, lr_error *err)
{
    *n = 0;
    if (count > MAX_FAMILIES)
        return lr_error_set(err, LR_INTERNAL, NULL, "%u embedded families, more than the %d "
                            "calibrate.c holds", count, MAX_FAMILIES);
    for (unsigned i = 0; i < count; i++) {
        if (corpus_family_parse(files[i].text, files[i].name, &fams[*n]))
            return lr_error_set(err, LR_INTERNAL, NULL, "embedded family file %s is broken",
                                files[i].name);
        (*n)++;
    }
    return 0;
}

static int load_suite(corpus_family fams[MAX_SUITE], int *n, lr_error *err)
{
    return load_families(cal_suite_files, cal_suite_files_count, fams, n, err);
}

static void release_suite(corpus_family *fams, int n)
{
    for (int i = 0; i < n; i++)
        corpus_family_release(&fams[i]);
}

static cJSON *int3(const int v[3])
{
    return cJSON_CreateIntArray(v, 3);
}


static void today(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%d", &tm);
}

static cJSON *gpu_json(const cg_gpu_props *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", g->name);
    cJSON_AddNumberToObject(o, "cc_major", g->cc_major);
    cJSON_AddNumberToObject(o, "cc_minor", g->cc_minor);
    cJSON_AddNumberToObject(o, "driver_version", g->driver_version);
    cJSON_AddNumberToObject(o, "sm_count", g->sm_count);
    cJSON_AddNumberToObject(o, "max_threads_per_sm", g->max_threads_per_sm);
    cJSON_AddNumberToObject(o, "max_blocks_per_sm", g->max_blocks_per_sm);
    cJSON_AddNumberToObject(o, "max_threads_per_block", g->max_threads_per_block);
    cJSON_AddNumberToObject(o, "regs_per_sm", g->regs_per_sm);
    cJSON_AddNumberToObject(o, "l2_bytes", (double)g->l2_bytes);
    cJSON_AddNumberToObject(o, "shared_bytes_per_sm", (double)g->shared_bytes_per_sm);
    cJSON_AddNumberToObject(o, "shared_reserved_bytes_per_block",
                            (double)g->shared_reserved_bytes_per_block);
    cJSON_AddNumberToObject(o, "clock_ghz", g->clock_ghz);
    cJSON_AddNumberToObject(o, "memory_clock_ghz", g->memory_clock_ghz);
    cJSON_AddNumberToObject(o, "memory_bus_bits", g->memory_bus_bits);
    return o;
}

/* Progress of the microbenchmarks as steps after the suite's configurations. */
typedef struct micro_progress {
    const cal_opts *o;
    int done, total;
} micro_progress;

static void micro_step(void *ctx, const char *what)
{
    micro_progress *p = ctx;
    if (p->o->progress)
        p->o->progress(p->o->progress_ctx, p->done++, p->total, what);
}

/* Times configuration i of fam as `launchrank measure` does and appends its run
 * (family, block, folding, ms, glups; with updates also the lattice updates, which the
 * size scans need) to runs. 0, or -1 with err. */
static int time_config(const lr_devices *devs, const cal_opts *o, const corpus_family *fam,
                       int i, int updates, cJSON *runs, lr_error *err)
{
    char *body = corpus_body(fam, i, NULL, NULL, 0);
    lr_request req;
    if (!body)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    int rc = lr_request_parse(devs, body, strlen(body), LR_REQ_ESTIMATE, &req, err);
    free(body);
    if (rc)
        return -1;
    est_config cfg = {{req.domain[0], req.domain[1], req.domain[2]}, req.launch};
    cg_measurement meas;
    rc = cg_measure(req.kernel, &cfg, &o->measure, &meas, err);
    lr_request_release(&req);
    if (rc)
        return -1;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "family", fam->name);
    cJSON_AddItemToObject(r, "block", int3(fam->configs[i].block));
    cJSON_AddItemToObject(r, "folding", int3(fam->configs[i].folding));
    if (updates)
        cJSON_AddNumberToObject(r, "lattice_updates",
                                (double)cfg.domain[0] * (double)cfg.domain[1] *
                                    (double)cfg.domain[2]);
    cJSON_AddNumberToObject(r, "ms", meas.ms_median);
    cJSON_AddNumberToObject(r, "glups", meas.glups);
    cJSON_AddItemToArray(runs, r);
    return 0;
}

/* Times every configuration of fams[0..nf) (with --quick those of suite families
 * every QUICK_STRIDE-th) into runs, counting progress in *done. 0, or -1 with err. */
static int time_families(const lr_devices *devs, const cal_opts *o, const corpus_family *fams,
                         int nf, int scans, cJSON *runs, int *done, int total, lr_error *err)
{
    for (int f = 0; f < nf; f++)
        for (int i = 0; i < fams[f].nconfigs; i++) {
            if (o->quick && !scans && i % QUICK_STRIDE)
                continue;
            if (o->progress)
                o->progress(o->progress_ctx, *done, total, fams[f].name);
            if (time_config(devs, o, &fams[f], i, scans, runs, err))
                return -1;
            (*done)++;
        }
    return 0;
}

cJSON *cal_measure(const lr_devices *devs, const cal_opts *o, lr_error *err)
{
    /* the GPU first: without one nothing else is worth doing */
    cg_gpu_props gpu;
    if (cg_gpu_query(&o->measure, &gpu, err))
        return NULL;
    corpus_family fams[MAX_SUITE], scans[MAX_FAMILIES];
    int nf = 0, ns = 0;
    if (load_suite(fams, &nf, err) ||
        load_families(cal_overhead_files, cal_overhead_files_count, scans, &ns, err)) {
        release_suite(fams, nf);
        release_suite(scans, ns);
        return NULL;
    }
    int total = 0;
    for (int f = 0; f < nf; f++)
        for (int i = 0; i < fams[f].nconfigs; i++)
            total += !o->quick || i % QUICK_STRIDE == 0;
    for (int f = 0; f < ns; f++)
        total += scans[f].nconfigs;
    total += cal_micro_steps(o->quick);
    cJSON *raw = cJSON_CreateObject();
    char date[32];
    today(date, sizeof date);
    cJSON_AddStringToObject(raw, "format", CAL_RAW_FORMAT);
    cJSON_AddStringToObject(raw, "date", date);
    cJSON_AddItemToObject(raw, "gpu", gpu_json(&gpu));
    cJSON_AddBoolToObject(raw, "quick", o->quick);
    cJSON *m = cJSON_AddObjectToObject(raw, "measure");
    cJSON_AddNumberToObject(m, "warmup", o->measure.warmup);
    cJSON_AddNumberToObject(m, "repetitions", o->measure.repetitions);
    cJSON_AddBoolToObject(m, "flush_l2", o->measure.flush_l2);
    cJSON *runs = cJSON_AddArrayToObject(raw, "runs");
    cJSON *overhead = cJSON_AddArrayToObject(raw, "overhead");
    int done = 0;
    int rc = time_families(devs, o, fams, nf, 0, runs, &done, total, err) ||
             time_families(devs, o, scans, ns, 1, overhead, &done, total, err);
    if (!rc) {
        micro_progress mp = {o, done, total};
        cJSON *micro = cal_micro_measure(&o->measure, o->quick, micro_step, &mp, err);
        if (micro)
            cJSON_AddItemToObject(raw, "micro", micro);
        else
            rc = -1;
        done = mp.done;
    }
    if (o->progress && !rc)
        o->progress(o->progress_ctx, done, total, NULL);
    release_suite(fams, nf);
    release_suite(scans, ns);
    if (rc) {
        cJSON_Delete(raw);
        return NULL;
    }
    return raw;
}

/* ---- analysis ---- */

/* One configuration of the raw record, estimated. */
typedef struct cal_row {
    int family;
    double glups;
    est_result r;
} cal_row;

static int bad_raw(lr_error *err, const char *path, const char *why)
{
    return lr_error_set(err, LR_INVALID_REQUEST, path, "calibration record: %s", why);
}

static double gpu_num(const cJSON *gpu, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(gpu, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The driver's figures into dev; a figure the driver did not give (0) keeps dev's. */
static void driver_figures(const cJSON *gpu, est_device *dev)
{
    double v;
    if ((v = gpu_num(gpu, "sm_count")) > 0)
        dev->sm_count = (int)v;
    if ((v = gpu_num(gpu, "max_threads_per_sm")) > 0)
        dev->max_threads_per_sm = (int)v;
    if ((v = gpu_num(gpu, "max_blocks_per_sm")) > 0)
        dev->max_blocks_per_sm = (int)v;
    if ((v = gpu_num(gpu, "max_threads_per_block")) > 0)
        dev->max_threads_per_block = (int)v;
    if ((v = gpu_num(gpu, "regs_per_sm")) > 0)
        dev->regs_per_sm = (int)v;
    if ((v = gpu_num(gpu, "shared_bytes_per_sm")) > 0)
        dev->shared_bytes_per_sm = (int64_t)v;
    /* a record made before calibrate asked the driver for it (cuDeviceGetAttribute 111)
     * has the compute capability: the driver reserves 1 KiB of shared memory per
     * block from 8.0 on, none before (CUDA programming guide, "Occupancy") */
    if ((v = gpu_num(gpu, "shared_reserved_bytes_per_block")) > 0)
        dev->shared_reserved_bytes_per_block = (int64_t)v;
    else if (gpu_num(gpu, "cc_major") > 0)
        dev->shared_reserved_bytes_per_block = gpu_num(gpu, "cc_major") >= 8 ? 1024 : 0;
    /* the driver does not report the unit shared memory is allocated in: NVIDIA's
     * occupancy calculator gives 128 B from compute capability 8.0, 256 B before */
    if (gpu_num(gpu, "cc_major") > 0)
        dev->shared_alloc_bytes = gpu_num(gpu, "cc_major") >= 8 ? 128 : 256;
    /* docs/model.md §8: from compute capability 8.0 the L2 is two partitions that
     * duplicate lines, and the model counts one of them */
    if ((v = gpu_num(gpu, "l2_bytes")) > 0)
        dev->l2_bytes = (int64_t)(gpu_num(gpu, "cc_major") >= 8 ? v / 2 : v);
    if ((v = gpu_num(gpu, "clock_ghz")) > 0)
        dev->clock_ghz = v;
}

/* Reads and estimates every run of raw under dev. Returns the rows (malloc'd, *n) or
 * NULL with err. The kernels are kept per family in kernels[] (owned by the caller). */
static cal_row *estimate_runs(const lr_devices *devs, const cJSON *runs, const est_device *dev,
                              corpus_family *fams, int nf, est_kernel **kernels, int *n,
                              lr_error *err)
{
    int count = cJSON_GetArraySize(runs);
    cal_row *rows = calloc(count > 0 ? (size_t)count : 1, sizeof *rows);
    est_ctx *ctx = est_ctx_new(0);
    *n = 0;
    int rc = rows && ctx ? 0 : lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    for (int k = 0; k < count && !rc; k++) {
        const cJSON *r = cJSON_GetArrayItem(runs, k);
        char path[64];
        snprintf(path, sizeof path, "runs[%d]", k);
        const cJSON *fam = cJSON_GetObjectItem(r, "family");
        const cJSON *blk = cJSON_GetObjectItem(r, "block");
        const cJSON *fold = cJSON_GetObjectItem(r, "folding");
        const cJSON *gl = cJSON_GetObjectItem(r, "glups");
        if (!cJSON_IsString(fam) || !cJSON_IsArray(blk) || !cJSON_IsArray(fold) ||
            !cJSON_IsNumber(gl) || !(gl->valuedouble > 0)) {
            rc = bad_raw(err, path,
                         "every run needs family, block, folding and glups (a positive number)");
            break;
        }
        int f = 0;
        while (f < nf && strcmp(fams[f].name, fam->valuestring))
            f++;
        int c = f < nf ? corpus_config_index(&fams[f], blk, fold) : -1;
        if (c < 0) {
            rc = bad_raw(err, path, "not a configuration of the calibration suite");
            break;
        }
        char *body = corpus_body(&fams[f], c, NULL, NULL, 0);
        lr_request req;
        if (!body || lr_request_parse(devs, body, strlen(body), LR_REQ_ESTIMATE, &req, err)) {
            free(body);
            rc = body ? -1 : lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
            break;
        }
        free(body);
        est_config cfg = {{req.domain[0], req.domain[1], req.domain[2]}, req.launch};
        cal_row *row = &rows[*n];
        row->family = f;
        row->glups = gl->valuedouble;
        if (est_estimate(ctx, req.kernel, dev, &cfg, &row->r, err)) {
            lr_request_release(&req);
            rc = -1;
            break;
        }
        if (!kernels[f]) {
            kernels[f] = req.kernel;
            req.kernel = NULL;
        }
        lr_request_release(&req);
        if (row->r.launchable)
            (*n)++;
    }
    est_ctx_free(ctx);
    if (rc) {
        free(rows);
        return NULL;
    }
    return rows;
}

/* The base device of a raw record after checking its header (format, gpu.name, date,
 * runs); NULL with err set. */
static const est_device *raw_base(const lr_devices *devs, const cJSON *raw, const char *base,
                                  lr_error *err)
{
    const cJSON *fmt = cJSON_GetObjectItem(raw, "format");
    const cJSON *gpu = cJSON_GetObjectItem(raw, "gpu");
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, CAL_RAW_FORMAT)) {
        bad_raw(err, "format", "not a calibration record (format \"" CAL_RAW_FORMAT "\")");
        return NULL;
    }
    if (!cJSON_IsString(cJSON_GetObjectItem(gpu, "name")) ||
        !cJSON_IsArray(cJSON_GetObjectItem(raw, "runs")) ||
        !cJSON_IsString(cJSON_GetObjectItem(raw, "date"))) {
        bad_raw(err, "gpu", "needs gpu.name, date and runs");
        return NULL;
    }
    const est_device *b = lr_devices_find(devs, base ? base : "H100-SXM5-80GB");
    if (!b)
        lr_error_set(err, LR_INVALID_REQUEST, "base", "unknown built-in device '%s'",
                     base ? base : "");
    return b;
}

/* Attainable bandwidths: DRAM from the streaming copy, unfolded: it stores exactly the
 * elements it loads, so it moves twice its compulsory load volume (32 B per update);
 * L2 as the most L2 traffic any suite kernel moved in the volumes the model's limits
 * charge (l2_store_charged: every store instruction's sectors, as the L2 limit
 * counts them). 0, or -1 with err. */
static int set_bandwidths(est_device *dev, const cal_row *rows, int n,
                          const corpus_family *fams, lr_error *err)
{
    double dram = 0, l2 = 0;
    for (int i = 0; i < n; i++) {
        const est_volumes *v = &rows[i].r.total;
        const int *fo = rows[i].r.config.launch.folding;
        if (!strcmp(fams[rows[i].family].name, DRAM_FAMILY) && fo[0] * fo[1] * fo[2] == 1)
            dram = fmax(dram, rows[i].glups * 2 * v->dram_load_compulsory);
        l2 = fmax(l2, rows[i].glups * (v->l2_load + v->l2_store_charged));
    }
    if (!(dram > 0))
        return bad_raw(err, "runs", "no unfolded run of " DRAM_FAMILY " to measure DRAM with");
    dev->dram_bw_gbs = round(dram);
    dev->l2_bw_gbs = round(l2);
    return 0;
}

/* The launch overhead of the raw record's size scans ("overhead": runs with family,
 * block, folding, lattice_updates, ms) into *o. 1 when measured, 0 when the record has
 * none (records made before calibrate timed them), -1 with err when they are broken. */
static int scan_overhead(const cJSON *raw, cal_overhead *o, lr_error *err)
{
    const cJSON *runs = cJSON_GetObjectItem(raw, "overhead"), *r;
    int n = cJSON_GetArraySize(runs), k = 0;
    if (!cJSON_IsArray(runs) || n == 0)
        return 0;
    cal_scan_point *p = calloc((size_t)n, sizeof *p);
    if (!p)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    cJSON_ArrayForEach(r, runs)
    {
        const cJSON *ups = cJSON_GetObjectItem(r, "lattice_updates");
        const cJSON *ms = cJSON_GetObjectItem(r, "ms");
        char path[48];
        if (cal_scan_group_of(r, p[k].group) || !cJSON_IsNumber(ups) || !cJSON_IsNumber(ms)) {
            free(p);
            snprintf(path, sizeof path, "overhead[%d]", k);
            return bad_raw(err, path, "a size scan needs family (KERNEL_nN), block, folding, "
                                      "lattice_updates and ms");
        }
        p[k].lattice_updates = ups->valuedouble;
        p[k++].ms = ms->valuedouble;
    }
    int rc = cal_overhead_fit(p, k, o, NULL, err);
    free(p);
    return rc ? -1 : 1;
}

/* The record's launch overhead into dev (scan_overhead), said in t: 1, 0 when the
 * record has no size scans (dev keeps its figure), -1 with err. */
static int set_overhead(const cJSON *raw, est_device *dev, cal_overhead *ov, cal_text *t,
                        lr_error *err)
{
    int scanned = scan_overhead(raw, ov, err);
    if (scanned > 0) {
        /* to 0.01 us, as the built-in devices give it */
        *est_mparam_in(dev, est_mparam_sole(EST_MEASURED)) = round(ov->us * 100) / 100;
        cal_say(t, "launch overhead: %.2f us, the median of %d size scans (%.2f to %.2f us)\n",
                ov->us, ov->scans, ov->lo_us, ov->hi_us);
    }
    return scanned;
}

/* What the "sources" of a calibrated device say. */
typedef struct cal_sources {
    char who[256];                  /* "GPU, CUDA driver 12.4, date" */
    int n;                          /* timed configurations */
    double before, after;           /* the fit's objective */
    const cal_micro_figures *micro; /* NULL without microbenchmarks */
    const cal_rates *rates;         /* NULL without measured instruction rates */
    const cal_overhead *overhead;   /* NULL when the record has no size scans */
    const char *base;               /* the built-in device of the other figures */
} cal_sources;

/* The sentence on the microbenchmarks' figures, into s. */
static void micro_source(char *s, size_t size, const char *who, const cal_micro_figures *mf)
{
    snprintf(s, size,
             "launchrank calibrate's microbenchmarks on %s (docs/calibration.md; the model "
             "does not use them): L2 reads %.0f GB/s (median up to half the L2), below 90 %% "
             "of that from a working set of %.1f MiB, %.0f GB/s at 256 MiB; DRAM reads "
             "%.0f GB/s at most, 90 %% of it from %.0f KiB in flight per SM, implied "
             "latency at the least load %.0f ns (Little's law); pointer chasing: L1 hit "
             "%.1f ns, L2 hit %.1f ns, DRAM %.0f ns (%.0f ns over 2 GiB), L2 hits within "
             "10 %% up to %.0f MiB; L1 %.2f lines per cycle per SM for loads of 2 to 32 "
             "lines (%.2f for coalesced 4-byte loads, issue-bound); SM clock %.3f GHz "
             "compute-bound, %.3f GHz memory-bound",
             who, mf->l2_plateau_gbs, mf->l2_effective_bytes / (1 << 20), mf->l2_floor_gbs,
             mf->dram_peak_gbs, mf->dram_near_peak_bytes_per_sm / 1024, mf->dram_latency_ns,
             mf->l1_hit_ns, mf->l2_hit_ns, mf->dram_ns, mf->dram_far_ns,
             mf->translation_reach_bytes / (1 << 20), mf->l1_lines_per_cycle[5],
             mf->l1_lines_per_cycle[0], mf->clock_compute_ghz, mf->clock_memory_ghz);
}

/* Adds to src one entry per group of figures saying where they come from. */
static void add_sources(cJSON *src, const cal_sources *cs)
{
    char s[1024];
    snprintf(s, sizeof s,
             "the CUDA driver (cuDeviceGetAttribute) on %s; l2_bytes is half the driver's "
             "figure from compute capability 8.0 (one of the two L2 partitions, docs/model.md "
             "section 8); clock_ghz is the maximum SM clock, not the clock under load; "
             "shared_reserved_bytes_per_block is the driver's, or 1024 from compute "
             "capability 8.0 where a record made before calibrate asked for it lacks it",
             cs->who);
    cJSON_AddStringToObject(src,
                            "sm_count,max_threads_per_sm,max_blocks_per_sm,"
                            "max_threads_per_block,regs_per_sm,shared_bytes_per_sm,"
                            "shared_reserved_bytes_per_block,l2_bytes,"
                            "clock_ghz",
                            s);
    cJSON_AddStringToObject(src, "shared_alloc_bytes",
                            "NVIDIA's CUDA occupancy calculator by the compute capability the "
                            "driver reports: shared memory is allocated per block in units of "
                            "128 B from 8.0, 256 B before");
    snprintf(s, sizeof s,
             "launchrank calibrate on %s: DRAM, the fastest unfolded run of the streaming "
             "copy " DRAM_FAMILY " (32 B per update); L2, the most L2 traffic (model "
             "volumes x measured GLup/s) any of the %d timed configurations moved",
             cs->who, cs->n);
    cJSON_AddStringToObject(src, "dram_bw_gbs,l2_bw_gbs", s);
    snprintf(s, sizeof s,
             "launchrank calibrate on %s: model v2 fitted to the %d timed configurations "
             "(calibrate/fit.c, objective %.4f -> %.4f)",
             cs->who, cs->n, cs->before, cs->after);
    char keys[512] = "", held[256] = "";
    for (int q = 0; q < CAL_NPARAMS; q++) {
        char *k = cal_param_held(q) ? held : keys;
        size_t size = cal_param_held(q) ? sizeof held : sizeof keys;
        snprintf(k + strlen(k), size - strlen(k), "%s%s", *k ? "," : "", cal_param_name(q));
    }
    cJSON_AddStringToObject(src, keys, s);
    cJSON_AddStringToObject(src, held,
                            "held at the built-in default (estimator/params.def, the H100 corpus "
                            "fit): it describes what the compiler hoists across folding "
                            "steps more than the GPU, and the fit is flat along it "
                            "(estimator/params.def, kind EST_HELD)");
    if (cs->micro) {
        micro_source(s, sizeof s, cs->who, cs->micro);
        cJSON_AddStringToObject(src, "microbenchmarks", s);
    }
    if (cs->rates) {
        char key[128];
        cal_rates_source(cs->rates, cs->who, key, sizeof key, s, sizeof s);
        cJSON_AddStringToObject(src, key, s);
    }
    if (cs->overhead) {
        snprintf(s, sizeof s,
                 "launchrank calibrate on %s: the median, over %d size scans of three "
                 "kernels (lab/2026-11-23-overhead/families), of the time at zero updates of a "
                 "straight line through time against updates (%.2f to %.2f us; "
                 "docs/model.md \"Launch overhead\")",
                 cs->who, cs->overhead->scans, cs->overhead->lo_us, cs->overhead->hi_us);
        cJSON_AddStringToObject(src, est_mparam_sole(EST_MEASURED)->name, s);
    }
    snprintf(s, sizeof s, "not measured: the figures of the built-in %s", cs->base);
    cJSON_AddStringToObject(src, "other figures", s);
}

/* The device description of dev with its sources; NULL with err set. */
static cJSON *device_with_sources(const lr_devices *devs, const est_device *dev,
                                  const cal_sources *cs, lr_error *err)
{
    char why[160];
    const char *badfig = est_device_check(dev, why, sizeof why);
    if (badfig) {
        lr_error_set(err, LR_INVALID_REQUEST, badfig,
                     "calibration gives an impossible figure: %s", why);
        return NULL;
    }
    cJSON *out = lr_device_to_json(devs, dev, 0);
    cJSON *src = out ? cJSON_AddObjectToObject(out, "sources") : NULL;
    if (!src) {
        cJSON_Delete(out);
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    add_sources(src, cs);
    return out;
}

/* The device the analysis starts from: the base's figures, the driver's, the base's
 * model-v2 parameters (the built-in H100 fit for a device that has none of its own; a
 * device calibrated before, such as the built-in H200, starts from its own, and the
 * fit holds CAL_HELD at them), and the name (given, or the GPU's with " (calibrated)"). */
static est_device start_device(const est_device *b, const cJSON *gpu, const char *name)
{
    est_device dev = *b;
    const char *gname = cJSON_GetObjectItem(gpu, "name")->valuestring;
    char devname[EST_MAX_NAME];
    snprintf(devname, sizeof devname, "%s%s", name ? name : gname, name ? "" : " (calibrated)");
    snprintf(dev.name, sizeof dev.name, "%s", devname);
    driver_figures(gpu, &dev);
    /* its model-v2 parameters are fitted to this GPU's timings (the rank precision stays
     * the base's: the suite is too small to measure it) */
    dev.provenance = EST_PROVENANCE_MEASURED;
    /* the launch overhead is measured, not fitted (lab/2026-11-23-overhead): it stays the
     * base device's unless the record has size scans (set_overhead), like the others
     * calibration does not measure */
    return dev;
}

/* The microbenchmarks of the record (micro may be NULL): their tables into t, their
 * figures into mf, and the instruction rates, the one figure of theirs the model takes,
 * into rt and dev. 0, or -1 with err. */
static int analyse_micro(const cJSON *micro, const cJSON *gpu, est_device *dev,
                         cal_micro_figures *mf, cal_rates *rt, cal_text *t, lr_error *err)
{
    if ((micro &&
         cal_micro_analyse(micro, dev->sm_count, gpu_num(gpu, "l2_bytes"), mf, t, err)) ||
        cal_rates_analyse(micro, rt, t, err))
        return -1;
    cal_rates_apply(rt, dev);
    return 0;
}

cJSON *cal_analyse(const lr_devices *devs, const cJSON *raw, const char *base, const char *name,
                   char **report, lr_error *err)
{
    if (report)
        *report = NULL;
    const est_device *b = raw_base(devs, raw, base, err);
    if (!b)
        return NULL;
    const cJSON *gpu = cJSON_GetObjectItem(raw, "gpu");
    const char *gname = cJSON_GetObjectItem(gpu, "name")->valuestring;
    const char *date = cJSON_GetObjectItem(raw, "date")->valuestring;
    est_device dev = start_device(b, gpu, name);

    corpus_family fams[MAX_SUITE];
    int nf = 0, n = 0;
    est_kernel *kernels[MAX_SUITE] = {0};
    cJSON *out = NULL;
    cal_row *rows = NULL;
    cal_sample *smp = NULL;
    cal_text t = {0};
    if (load_suite(fams, &nf, err))
        return NULL;
    rows =
        estimate_runs(devs, cJSON_GetObjectItem(raw, "runs"), &dev, fams, nf, kernels, &n, err);
    if (!rows)
        goto done;
    if (n < 20) {
        bad_raw(err, "runs", "too few runs to fit (at least 20 launchable configurations)");
        goto done;
    }
    if (set_bandwidths(&dev, rows, n, fams, err))
        goto done;
    smp = calloc((size_t)n, sizeof *smp);
    if (!smp) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++)
        smp[i] =
            (cal_sample){rows[i].family, kernels[rows[i].family], &rows[i].r, rows[i].glups};
    int drv = (int)gpu_num(gpu, "driver_version");
    cal_say(&t, "GPU %s (compute capability %d.%d, CUDA driver %d.%d), %d runs, measured %s\n",
            gname, (int)gpu_num(gpu, "cc_major"), (int)gpu_num(gpu, "cc_minor"), drv / 1000,
            drv % 1000 / 10, n, date);
    cal_say(&t, "attainable bandwidths: DRAM %.0f GB/s, L2 %.0f GB/s\n", dev.dram_bw_gbs,
            dev.l2_bw_gbs);
    cal_micro_figures mf;
    cal_rates rt;
    const cJSON *micro = cJSON_GetObjectItem(raw, "micro");
    if (analyse_micro(micro, gpu, &dev, &mf, &rt, &t, err))
        goto done;
    cal_overhead ov;
    int scanned = set_overhead(raw, &dev, &ov, &t, err);
    if (scanned < 0)
        goto done;
    cal_sources cs = {.n = n,
                      .micro = micro ? &mf : NULL,
                      .rates = rt.measured ? &rt : NULL,
                      .overhead = scanned ? &ov : NULL,
                      .base = b->name};
    snprintf(cs.who, sizeof cs.who, "%s, CUDA driver %d.%d, %s", gname, drv / 1000,
             drv % 1000 / 10, date);
    const char *labels[MAX_SUITE];
    for (int f = 0; f < nf; f++)
        labels[f] = fams[f].name;
    dev = cal_fit_reported(&dev, smp, n, &t,
                           "with the built-in model-v2 parameters (the H100 fit):", "family",
                           labels, nf, &cs.before, &cs.after);
    out = device_with_sources(devs, &dev, &cs, err);
done:
    if (report && out)
        *report = t.s;
    else
        free(t.s);
    free(smp);
    free(rows);
    for (int f = 0; f < nf; f++)
        est_kernel_free(kernels[f]);
    release_suite(fams, nf);
    return out;
}
