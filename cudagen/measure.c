/*
 * measure: runs a generated kernel on a GPU backend and times it (cg_measure), and
 * the pieces cg_check shares: where each field lives (cg_field_layout) and opening
 * a kernel ready to run (cg_run_open).
 *
 * Fields get real margins around their declared extent, sized from the accesses
 * themselves, so halo loads at the domain edge read initialised memory instead of
 * faulting; element 0 keeps the base_offset_bytes alignment the model was told.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudagen_int.h"

/* Bytes written between runs to push the previous run's data out of the L2: twice
 * the largest L2 of current GPUs (H100 50 MB, H200 60 MB, B200 126 MB rounds to 128). */
#define CG_L2_FLUSH_BYTES ((size_t)128 << 20)
/* Host staging buffer for filling a field: 97 * 8192 elements (6 MiB of doubles)
 * hold whole periods of cg_init_value, so one buffer serves every chunk. */
#define FILL_CHUNK_ELEMS (97 * 8192)
/* Allocation alignment kept by the margins: cuMemAlloc returns 256-byte aligned
 * memory, and element 0 must keep its offset from a 128-byte line. */
#define ALLOC_ALIGN 256

static int64_t round_up(int64_t bytes)
{
    return (bytes + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
}

double cg_init_value(int64_t j)
{
    return (double)(j % 97) * 0.01;
}

void cg_measure_opts_init(cg_measure_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->warmup = 3;
    opts->repetitions = 10;
    opts->flush_l2 = 1;
    opts->max_seconds = CG_MEASURE_MAX_SECONDS;
}

/* Whether run i of total may start: -1 with err when the runs so far (spent seconds,
 * the last one took last seconds) say the rest would take longer than opts allows, or
 * the deadline has passed. A kernel that runs for seconds would otherwise hold the GPU
 * (and the daemon's one measuring lock) for warmup + repetitions times as long. */
static int may_run(const cg_measure_opts *opts, int i, int total, double spent, double last,
                   lr_error *err)
{
    if (opts->deadline > 0 && est_now() > opts->deadline)
        return lr_error_set(err, LR_BUDGET_EXCEEDED, NULL,
                            "measuring ran past the request's time limit after %d of %d runs; "
                            "measure fewer configurations or ask for fewer repetitions",
                            i, total);
    double budget = opts->max_seconds > 0 ? opts->max_seconds : CG_MEASURE_MAX_SECONDS;
    if (i > 0 && spent + last * (total - i) > budget)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, "measure.repetitions",
                            "one run of this configuration takes %.1f ms: %d runs (warm-up "
                            "included) would take %.1f s, more than the %.0f s one "
                            "measurement may take; ask for fewer repetitions or warm-up runs",
                            1e3 * last, total, spent + last * (total - i), budget);
    return 0;
}

/* ---- layout ---- */

/* Binds every variable for thread (t, blk) at folding step s, per dimension. */
static void bind_vars(const est_config *cfg, const int64_t grid[3], const int64_t t[3],
                      const int64_t blk[3], const int64_t s[3], int64_t val[EST_VAR_COUNT])
{
    for (int d = 0; d < 3; d++) {
        int64_t tid = blk[d] * cfg->launch.block[d] + t[d];
        val[EST_VAR_X + d] = tid * cfg->launch.folding[d] + s[d];
        val[EST_VAR_TIDX + d] = tid;
        val[EST_VAR_THREADIDX_X + d] = t[d];
        val[EST_VAR_BLOCKIDX_X + d] = blk[d];
        val[EST_VAR_BLOCKDIM_X + d] = cfg->launch.block[d];
        val[EST_VAR_GRIDDIM_X + d] = grid[d];
    }
}

/* Linear element index of access a of field f for the bound variables; 0, or -1 when
 * it does not fit in 64 bits (the request is nonsense, not a crash). */
static int element_index(const est_kernel *k, int f, int a, const int64_t val[EST_VAR_COUNT],
                         int64_t *out)
{
    int64_t dims[3], stride = 1, sum = 0, term;
    est_kernel_field_dims(k, f, dims);
    for (int d = 0; d < est_kernel_field_ndims(k, f); d++) {
        if (__builtin_mul_overflow(est_expr_eval(est_kernel_access_index(k, f, a, d), val),
                                   stride, &term) ||
            __builtin_add_overflow(sum, term, &sum) ||
            __builtin_mul_overflow(stride, dims[d], &stride))
            return -1;
    }
    *out = sum;
    return 0;
}

typedef struct bounds {
    int64_t lo, hi;
} bounds;

static int widen(const est_kernel *k, int f, int a, const int64_t val[EST_VAR_COUNT], bounds *b,
                 lr_error *err)
{
    int64_t i;
    if (element_index(k, f, a, val, &i) < 0) {
        char path[64];
        snprintf(path, sizeof path, "kernel.fields[%d]", f);
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            "an access of field '%s' reaches an element index beyond 64 bits",
                            est_kernel_field_name(k, f));
    }
    if (i < b->lo)
        b->lo = i;
    if (i > b->hi)
        b->hi = i;
    return 0;
}

/* An affine access (in threadIdx, blockIdx and the folding step, which x, y, z and
 * tid* are affine in) takes its extremes at corners of the launch box; the box holds
 * a few threads past the domain, so the bounds can only be too wide, never too narrow. */
static int bound_corners(const est_kernel *k, const est_config *cfg, const int64_t grid[3],
                         int f, int a, bounds *b, lr_error *err)
{
    int lattice = cg_access_is_lattice(k, f, a);
    for (int c = 0; c < 512; c++) {
        int64_t t[3], blk[3], s[3], val[EST_VAR_COUNT];
        for (int d = 0; d < 3; d++) {
            int bits = c >> (3 * d);
            t[d] = (bits & 1) ? cfg->launch.block[d] - 1 : 0;
            blk[d] = (bits & 2) ? grid[d] - 1 : 0;
            s[d] = lattice && (bits & 4) ? cfg->launch.folding[d] - 1 : 0;
        }
        bind_vars(cfg, grid, t, blk, s, val);
        if (widen(k, f, a, val, b, err) < 0)
            return -1;
    }
    return 0;
}

/* Any other access: visit every lattice point (or every thread with one) exactly. */
static int bound_all(const est_kernel *k, const est_config *cfg, const int64_t grid[3], int f,
                     int a, bounds *b, lr_error *err)
{
    int lattice = cg_access_is_lattice(k, f, a);
    int64_t n[3], t[3], blk[3], s[3], val[EST_VAR_COUNT], work = 1;

    for (int d = 0; d < 3; d++) {
        int64_t fold = cfg->launch.folding[d];
        n[d] = lattice ? cfg->domain[d] : (cfg->domain[d] + fold - 1) / fold;
        work *= n[d];
    }
    if (work > CG_LAYOUT_MAX_EVALS) {
        char path[64];
        snprintf(path, sizeof path, "kernel.fields[%d]", f);
        return lr_error_set(
            err, LR_LIMIT_EXCEEDED, path,
            "field '%s' has an access with '/' or '%%' whose extent can only be "
            "found point by point, and the domain has %" PRId64 " points (at most %" PRId64 ")",
            est_kernel_field_name(k, f), work, CG_LAYOUT_MAX_EVALS);
    }
    for (int64_t iz = 0; iz < n[2]; iz++)
        for (int64_t iy = 0; iy < n[1]; iy++)
            for (int64_t ix = 0; ix < n[0]; ix++) {
                int64_t p[3] = {ix, iy, iz};
                for (int d = 0; d < 3; d++) {
                    int64_t fold = lattice ? cfg->launch.folding[d] : 1;
                    int64_t tid = p[d] / fold;
                    s[d] = p[d] % fold;
                    t[d] = tid % cfg->launch.block[d];
                    blk[d] = tid / cfg->launch.block[d];
                }
                bind_vars(cfg, grid, t, blk, s, val);
                if (widen(k, f, a, val, b, err) < 0)
                    return -1;
            }
    return 0;
}

int cg_field_layout(const est_kernel *k, const est_config *cfg, cg_field_alloc out[],
                    lr_error *err)
{
    int64_t grid[3];
    est_grid(cfg, grid);
    for (int f = 0; f < est_kernel_field_count(k); f++) {
        int64_t dims[3], elem = est_kernel_field_elem_bytes(k, f);
        int64_t off = est_kernel_field_base_offset(k, f), pre, end;
        bounds b = {0, 0};
        char path[64];

        snprintf(path, sizeof path, "kernel.fields[%d].base_offset_bytes", f);
        if (elem <= 0 || off < 0 || off % elem != 0)
            return lr_error_set(err, LR_INVALID_REQUEST, path,
                                "field '%s': a base offset of %" PRId64
                                " bytes misaligns its %" PRId64
                                "-byte elements, which the GPU cannot load",
                                est_kernel_field_name(k, f), off, elem);
        est_kernel_field_dims(k, f, dims);
        b.hi = dims[0] * dims[1] * dims[2] - 1;
        for (int a = 0; a < est_kernel_access_count(k, f); a++) {
            int affine = 1, rc;
            for (int d = 0; d < est_kernel_field_ndims(k, f); d++)
                affine &= est_expr_is_affine(est_kernel_access_index(k, f, a, d), 0) != 0;
            rc = affine ? bound_corners(k, cfg, grid, f, a, &b, err)
                        : bound_all(k, cfg, grid, f, a, &b, err);
            if (rc < 0)
                return -1;
        }
        /* margins past 2^50 bytes cannot be allocated anywhere; say so before the
         * arithmetic below could overflow */
        if (b.lo < -((int64_t)1 << 47) || b.hi > ((int64_t)1 << 47))
            return lr_error_set(err, LR_LIMIT_EXCEEDED, path,
                                "field '%s' is accessed from element %" PRId64 " to %" PRId64
                                ", too far apart to allocate",
                                est_kernel_field_name(k, f), b.lo, b.hi);
        pre = -b.lo * elem - off; /* bytes needed before the base offset */
        out[f].lo = b.lo;
        out[f].hi = b.hi;
        out[f].elem0_offset = off + (pre > 0 ? round_up(pre) : 0);
        end = out[f].elem0_offset + (b.hi + 1) * elem;
        out[f].bytes = round_up(end);
    }
    return 0;
}

/* ---- a kernel ready to run ---- */

int cg_run_fill(cg_run *r, const est_kernel *k, int f, lr_error *err)
{
    int64_t elem = est_kernel_field_elem_bytes(k, f), total = r->layout[f].bytes / elem;
    int64_t chunk = total < FILL_CHUNK_ELEMS ? total : FILL_CHUNK_ELEMS;
    void *host = malloc((size_t)(chunk * elem));
    int rc = 0;

    if (!host)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    for (int64_t j = 0; j < chunk; j++) {
        if (elem == 8)
            ((double *)host)[j] = cg_init_value(j);
        else
            ((float *)host)[j] = (float)cg_init_value(j);
    }
    /* every chunk starts at a multiple of 97 elements, so all have the same values */
    for (int64_t j = 0; j < total && rc == 0; j += chunk) {
        int64_t n = total - j < chunk ? total - j : chunk;
        rc =
            r->b->upload(r->s, r->buf[f] + (uint64_t)(j * elem), host, (size_t)(n * elem), err);
    }
    free(host);
    return rc;
}

void cg_run_close(cg_run *r)
{
    if (!r->s)
        return;
    for (int f = 0; f < r->nfields; f++)
        r->b->release(r->s, r->buf[f]);
    r->b->close(r->s);
    r->s = NULL;
}

int cg_run_open(cg_run *r, const est_kernel *k, const est_config *cfg,
                const cg_measure_opts *opts, lr_error *err)
{
    char arch[32], *src = NULL, *image = NULL, *log = NULL;
    size_t size = 0;
    int64_t grid[3];
    int rc;

    memset(r, 0, sizeof *r);
    r->b = opts->backend ? opts->backend : cg_backend_cuda();
    r->nfields = est_kernel_field_count(k);
    if (cg_config_check(k, cfg, err) < 0)
        return -1;
    /* the GPU first: without one, the field layout (which can visit every lattice
     * point for non-affine accesses) and the code generation are wasted work */
    if (!(r->s = r->b->open(r->b, opts->device, &r->info, err)))
        return -1;
    /* the kernel is launched holding its declared shared memory (cuda_launch): more
     * than this GPU gives one block would fail in the driver with an error that names
     * nothing, so it is refused here, before anything is compiled */
    int64_t shared = est_kernel_shared_bytes(k);
    int64_t most = r->info.shared_bytes_per_sm - r->info.shared_reserved_bytes_per_block;
    if (shared > 0 && r->info.shared_bytes_per_sm > 0 && shared > most) {
        lr_error_set(err, LR_NOT_LAUNCHABLE, "kernel.shared_bytes",
                     "the kernel declares %lld B of shared memory per block; %s gives a block "
                     "at most %lld B (%lld per SM, less %lld the driver reserves per block)",
                     (long long)shared, r->info.name, (long long)most,
                     (long long)r->info.shared_bytes_per_sm,
                     (long long)r->info.shared_reserved_bytes_per_block);
        cg_run_close(r);
        return -1;
    }
    if (cg_field_layout(k, cfg, r->layout, err) < 0 || !(src = cg_emit_source(k, cfg, err))) {
        cg_run_close(r);
        return -1;
    }
    /* a cubin for exactly this GPU: no PTX JIT, so no dependence on the driver
     * knowing NVRTC's PTX version */
    snprintf(arch, sizeof arch, "sm_%d%d", r->info.cc_major, r->info.cc_minor);
    rc = cg_compile(src, arch, &image, &size, &log, err);
    free(src);
    free(log);
    if (rc == 0)
        rc = r->b->load(r->s, image, size, CG_ENTRY, err);
    free(image);
    for (int f = 0; f < r->nfields && rc == 0; f++) {
        rc = r->b->alloc(r->s, (size_t)r->layout[f].bytes, &r->buf[f], err);
        if (rc == 0)
            rc = cg_run_fill(r, k, f, err);
        r->elem0[f] = r->buf[f] + (uint64_t)r->layout[f].elem0_offset;
        r->args[f] = &r->elem0[f];
    }
    if (rc < 0) {
        cg_run_close(r);
        return -1;
    }
    est_grid(cfg, grid);
    for (int d = 0; d < 3; d++) {
        r->grid[d] = (unsigned)grid[d];
        r->block[d] = (unsigned)cfg->launch.block[d];
    }
    r->shared_bytes = (unsigned)est_kernel_shared_bytes(k);
    return 0;
}

/* ---- timing ---- */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int cg_measure(const est_kernel *k, const est_config *cfg, const cg_measure_opts *opts,
               cg_measurement *out, lr_error *err)
{
    cg_measure_opts defaults;
    cg_run r;
    uint64_t scratch = 0;
    float ms[CG_MAX_REPETITIONS];
    int rc = 0, n;

    if (!opts) {
        cg_measure_opts_init(&defaults);
        opts = &defaults;
    }
    n = opts->repetitions;
    if (n < 1 || n > CG_MAX_REPETITIONS || opts->warmup < 0 ||
        opts->warmup > CG_MAX_REPETITIONS)
        return lr_error_set(err, LR_INVALID_REQUEST, "measure",
                            "repetitions must be 1..%d and warm-up runs 0..%d (got %d and %d)",
                            CG_MAX_REPETITIONS, CG_MAX_REPETITIONS, n, opts->warmup);
    if (cg_run_open(&r, k, cfg, opts, err) < 0)
        return -1;
    if (opts->flush_l2)
        rc = r.b->alloc(r.s, CG_L2_FLUSH_BYTES, &scratch, err);
    double spent = 0, last = 0; /* seconds: the runs so far, the last one */
    for (int i = 0; i < opts->warmup + n && rc == 0; i++) {
        rc = may_run(opts, i, opts->warmup + n, spent, last, err);
        if (rc == 0 && opts->flush_l2)
            rc = r.b->fill(r.s, scratch, (unsigned char)i, CG_L2_FLUSH_BYTES, err);
        double t0 = est_now();
        if (rc == 0)
            rc = r.b->launch(r.s, r.grid, r.block, r.shared_bytes, r.args,
                             i < opts->warmup ? NULL : &ms[i - opts->warmup], err);
        /* host time of the run (launch waits for it), or the GPU's own where longer */
        last = est_now() - t0;
        if (rc == 0 && i >= opts->warmup && 1e-3 * ms[i - opts->warmup] > last)
            last = 1e-3 * ms[i - opts->warmup];
        spent += last;
    }
    if (rc == 0) {
        double points = (double)cfg->domain[0] * cfg->domain[1] * cfg->domain[2];
        qsort(ms, (size_t)n, sizeof ms[0], cmp_float);
        memset(out, 0, sizeof *out);
        out->ms_min = ms[0];
        out->ms_max = ms[n - 1];
        out->ms_median = n % 2 ? ms[n / 2] : 0.5 * ((double)ms[n / 2 - 1] + ms[n / 2]);
        out->glups = out->ms_median > 0 ? points / (out->ms_median * 1e6) : 0;
        snprintf(out->gpu_name, sizeof out->gpu_name, "%s", r.info.name);
        out->cc_major = r.info.cc_major;
        out->cc_minor = r.info.cc_minor;
        out->driver_version = r.info.driver_version;
    }
    r.b->release(r.s, scratch);
    cg_run_close(&r);
    return rc;
}

int cg_gpu_query(const cg_measure_opts *opts, cg_gpu_props *out, lr_error *err)
{
    cg_measure_opts defaults;
    if (!opts) {
        cg_measure_opts_init(&defaults);
        opts = &defaults;
    }
    const cg_backend *b = opts->backend ? opts->backend : cg_backend_cuda();
    memset(out, 0, sizeof *out);
    void *s = b->open(b, opts->device, out, err);
    if (!s)
        return -1;
    b->close(s);
    return 0;
}
