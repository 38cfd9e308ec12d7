/*
 * gather: kernels that read through an index field (docs/model.md, "Gathers through
 * an index field"): a cell-centred finite-volume kernel on an unstructured mesh reads
 * u(nbr(j, x)). Their L1 and L2 figures come from the samplers, which evaluate the
 * table reads like any other address, on blocks spread over the grid (sample.c); their
 * DRAM volumes cannot come from wave footprints in isl, so this file counts them from
 * the addresses of every lattice update, wave by wave, with the L2 holding the sectors
 * touched most recently.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimator_int.h"
#include "table_int.h"

/* The path of access a of field f as a request names it. */
static void access_path(const est_kernel *k, int f, int a, char *out, size_t cap)
{
    const est_field *fd = &k->fields[f];
    int nth = 0;
    for (int i = 0; i < a; i++)
        nth += fd->acc[i].is_store == fd->acc[a].is_store;
    snprintf(out, cap, "kernel.fields[%d].%s[%d]", f, fd->acc[a].is_store ? "stores" : "loads",
             nth);
}

/* The ranges of the variables over the domain of cfg, a 1-D launch without folding
 * (x = tidx = the thread's cell), for est_expr_bounds. */
static void variable_ranges(const est_config *cfg, int64_t lo[EST_VAR_COUNT],
                            int64_t hi[EST_VAR_COUNT])
{
    int64_t B = cfg->launch.block[0], n = cfg->domain[0], grid = (n + B - 1) / B;
    memset(lo, 0, EST_VAR_COUNT * sizeof *lo);
    memset(hi, 0, EST_VAR_COUNT * sizeof *hi);
    hi[EST_VAR_X] = hi[EST_VAR_TIDX] = n - 1;
    hi[EST_VAR_THREADIDX_X] = B - 1;
    hi[EST_VAR_BLOCKIDX_X] = grid - 1;
    lo[EST_VAR_BLOCKDIM_X] = hi[EST_VAR_BLOCKDIM_X] = B;
    lo[EST_VAR_BLOCKDIM_Y] = hi[EST_VAR_BLOCKDIM_Y] = 1;
    lo[EST_VAR_BLOCKDIM_Z] = hi[EST_VAR_BLOCKDIM_Z] = 1;
    lo[EST_VAR_GRIDDIM_X] = hi[EST_VAR_GRIDDIM_X] = grid;
    lo[EST_VAR_GRIDDIM_Y] = hi[EST_VAR_GRIDDIM_Y] = 1;
    lo[EST_VAR_GRIDDIM_Z] = hi[EST_VAR_GRIDDIM_Z] = 1;
}

/* Whether access a of field f stays inside its table reads and its field while the
 * variables stay in [lo, hi]. */
static int check_access(const est_kernel *k, int f, int a, const int64_t lo[EST_VAR_COUNT],
                        const int64_t hi[EST_VAR_COUNT], lr_error *err)
{
    const est_field *fd = &k->fields[f];
    const est_access *acc = &fd->acc[a];
    char path[96], why[160];
    for (int d = 0; d < acc->n; d++) {
        int64_t mn, mx;
        if (!(est_expr_uses(acc->idx[d]) & EST_USES_TABLE))
            continue;
        access_path(k, f, a, path, sizeof path);
        snprintf(path + strlen(path), sizeof path - strlen(path), "[%d]", d);
        if (est_expr_bounds(acc->idx[d], lo, hi, &mn, &mx, why, sizeof why))
            return lr_error_set(err, LR_INVALID_REQUEST, path, "'%s': %s",
                                est_expr_text(acc->idx[d]), why);
        if (mn < 0 || mx >= fd->dims[d])
            return lr_error_set(err, LR_INVALID_REQUEST, path,
                                "'%s' takes values %" PRId64 "..%" PRId64
                                " over the domain, outside field '%s' (0..%" PRId64
                                " in this dimension): an index field's values must address "
                                "elements of the field they index",
                                est_expr_text(acc->idx[d]), mn, mx, fd->name, fd->dims[d] - 1);
    }
    return 0;
}

int est_gather_check(const est_kernel *k, const est_config *cfg, lr_error *err)
{
    if (!k->gathers)
        return 0;
    const est_launch *l = &cfg->launch;
    if (cfg->domain[1] != 1 || cfg->domain[2] != 1)
        return lr_error_set(err, LR_INVALID_REQUEST, "domain",
                            "a kernel that reads through an index field runs over a 1-D "
                            "domain of cells, [n, 1, 1]");
    if (l->block[1] != 1 || l->block[2] != 1)
        return lr_error_set(err, LR_NOT_LAUNCHABLE, "launch.block",
                            "a kernel that reads through an index field is estimated with "
                            "1-D blocks [b, 1, 1]");
    if (l->folding[0] * l->folding[1] * l->folding[2] != 1)
        return lr_error_set(err, LR_NOT_LAUNCHABLE, "launch.folding",
                            "folding a kernel that reads through an index field is not "
                            "modelled: one thread per cell");
    int64_t lo[EST_VAR_COUNT], hi[EST_VAR_COUNT];
    variable_ranges(cfg, lo, hi);
    for (int f = 0; f < k->nfields; f++)
        for (int a = 0; a < k->fields[f].nacc; a++)
            if (check_access(k, f, a, lo, hi, err))
                return -1;
    return 0;
}

/* One field's DRAM count: the wave that last touched each of its DRAM fetch units
 * ("sectors" below; -1: none). Volumes in bytes. */
typedef struct field_trace {
    int32_t *last;   /* per sector of the field's extent: last wave that touched it */
    int32_t *stored; /* likewise, the last wave that stored into it; NULL: no stores */
    int64_t nsec;
    int gathered; /* an access of the field reads through an index field */
    double miss_load, store, touched;
    double miss_scattered; /* the part of miss_load that table reads fetch */
} field_trace;

/* How one instruction's byte address follows from a thread's cell x: through a table
 * column (base + elem * table[c0 + c1 * x]), or in general (est_inst_address). */
typedef struct inst_walk {
    const est_inst *in;
    const est_table *t; /* NULL: general */
    int64_t c0, c1, base, elem;
    int gathers; /* the address reads through a table */
} inst_walk;

/* Bytes in the field's extent (its elements and base offset). */
static int64_t field_bytes(const est_field *f)
{
    return f->base_offset + f->elem_bytes * f->dims[0] * f->dims[1] * f->dims[2];
}

/* At most this many accesses are traced sector by sector in all; past it, a sample
 * of the sectors, chosen by a hash of their number, is traced and its counts scaled by
 * the rate (spatial sampling: every access to a sampled sector is followed, so its
 * reuse history is exact; the counts' relative error is about 1 / sqrt(sampled sectors
 * touched), under 1 % at this size). */
#define GATHER_TRACED_ACCESSES (1ll << 22)

typedef struct gather_run {
    const est_binding *b;
    field_trace tr[EST_MAX_FIELDS];
    inst_walk *walk;
    int64_t B, per_wave;
    int sec_shift;    /* log2 of the DRAM fetch unit */
    int sample_shift; /* log2 of the sampling rate (0: every sector) */
    double capacity;  /* bytes of distinct sectors the L2 keeps */
    double *start;    /* distinct bytes touched before each wave */
    double *gone;     /* trace's: evicted() of each earlier wave's sectors, by wave */
} gather_run;

static int sampled(const gather_run *g, int64_t s)
{
    return g->sample_shift == 0 ||
           ((uint64_t)s * 0x9E3779B97F4A7C15ull) >> (64 - g->sample_shift) == 0;
}

/* The chance that a fetch unit is gone from L2 once d distinct bytes were touched after
 * it: 1 - exp(-(d / capacity)^k), a cliff at the capacity that a wave's spread in time
 * softens (docs/model.md, "Gathers through an index field"). */
static double evicted(const gather_run *g, double d)
{
    double x = d / g->capacity;
    return isinf(g->capacity) ? 0 : 1 - exp(-pow(x, RULE(GATHER_L2_SHARPNESS)));
}

/* Traces instruction i over the cells [first, end) of wave w. */
static void trace(gather_run *g, const inst_walk *iw, int64_t w, int64_t first, int64_t end)
{
    const est_inst *in = iw->in;
    field_trace *t = &g->tr[in->field];
    double sec = (double)(1 << g->sec_shift), scale = sec * (double)(1ll << g->sample_shift);
    int64_t B = g->B, tx = first % B, bx = first / B;
    /* the chance of each earlier wave's sectors being gone, once per call rather than
     * once per access (an exp and a pow each) */
    for (int64_t v = 0; v < w; v++)
        g->gone[v] = evicted(g, g->start[w] - g->start[v]);
    for (int64_t x = first; x < end; x++) {
        int64_t a;
        if (iw->t) {
            a = iw->base + iw->elem * est_table_at(iw->t, iw->c0 + iw->c1 * x);
        } else if (in->affine) {
            a = in->c0 + in->coef[EST_T_X] * tx + in->coef[EST_B_X] * bx;
        } else {
            int64_t c[EST_NCOORD] = {tx, 0, 0, bx, 0, 0};
            int valid;
            a = est_inst_address(g->b, in, c, &valid);
        }
        if (++tx == B)
            tx = 0, bx++;
        int64_t s = a >> g->sec_shift;
        if (!sampled(g, s))
            continue;
        s = s < 0 ? 0 : s >= t->nsec ? t->nsec - 1 : s;
        if (in->is_store && t->stored[s] != (int32_t)w) {
            t->store += scale;
            t->stored[s] = (int32_t)w;
        }
        int32_t v = t->last[s];
        if (v == (int32_t)w)
            continue;
        t->touched += scale;
        if (!in->is_store) {
            double miss = v < 0 ? scale : scale * g->gone[v];
            t->miss_load += miss;
            if (iw->gathers)
                t->miss_scattered += miss;
        }
        t->last[s] = (int32_t)w;
    }
}

static int setup(gather_run *g, const est_binding *b, lr_error *err)
{
    const est_kernel *k = b->k;
    /* DRAM moves dram_fetch_bytes at a time (64 B, two sectors, from Volta on): a
     * gather that misses costs a whole fetch unit, and what L2 keeps is counted in them */
    int64_t sec = b->dev->dram_fetch_bytes;
    while ((1ll << g->sec_shift) < sec)
        g->sec_shift++;
    g->walk = calloc((size_t)(b->ninst ? b->ninst : 1), sizeof *g->walk);
    if (!g->walk)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    int64_t traced = 0;
    for (int i = 0; i < b->ninst; i++) {
        inst_walk *iw = &g->walk[i];
        const est_field *f = &k->fields[b->inst[i].field];
        iw->in = &b->inst[i];
        iw->base = f->base_offset;
        iw->elem = f->elem_bytes;
        if (f->ndims == 1 &&
            !est_expr_table_column(iw->in->acc->idx[0], EST_VAR_X, &iw->t, &iw->c0, &iw->c1))
            est_expr_table_column(iw->in->acc->idx[0], EST_VAR_TIDX, &iw->t, &iw->c0, &iw->c1);
        iw->gathers = (iw->in->acc->uses & EST_USES_TABLE) != 0;
        if (iw->gathers)
            g->tr[iw->in->field].gathered = 1;
    }
    for (int i = 0; i < b->ninst; i++)
        traced += g->tr[b->inst[i].field].gathered ? b->cfg.domain[0] : 0;
    while ((traced >> g->sample_shift) > GATHER_TRACED_ACCESSES)
        g->sample_shift++;
    for (int f = 0; f < k->nfields; f++) {
        field_trace *t = &g->tr[f];
        t->nsec = (field_bytes(&k->fields[f]) + sec - 1) / sec + 1;
        t->last = malloc((size_t)t->nsec * sizeof *t->last);
        if (k->fields[f].nstores)
            t->stored = malloc((size_t)t->nsec * sizeof *t->stored);
        if (!t->last || (k->fields[f].nstores && !t->stored))
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        memset(t->last, 0xff, (size_t)t->nsec * sizeof *t->last);
        if (t->stored)
            memset(t->stored, 0xff, (size_t)t->nsec * sizeof *t->stored);
    }
    return 0;
}

static void release(gather_run *g, int nfields)
{
    for (int f = 0; f < nfields; f++) {
        free(g->tr[f].last);
        free(g->tr[f].stored);
    }
    free(g->walk);
    free(g->start);
    free(g->gone);
}

/* The fields no access of which reads through a table stream: their traffic per wave
 * is that of any other full wave, so the two middle waves are traced, exactly, the
 * second against the first, and its counts stand for every wave. Into one[f] (the
 * field's counts of one full wave) and *touched (those of all streamed fields). */
static void stream_fields(gather_run *g, int64_t nwaves, field_trace *one, double *touched)
{
    const est_binding *b = g->b;
    int64_t m = nwaves / 2;
    int keep = g->sample_shift;
    double cap = g->capacity;
    g->sample_shift = 0;
    g->capacity = INFINITY; /* the wave before is still in L2 */
    g->start[m - 1] = g->start[m] = 0;
    field_trace before[EST_MAX_FIELDS];
    for (int64_t w = m - 1; w <= m; w++) {
        if (w == m)
            memcpy(before, g->tr, sizeof before);
        for (int i = 0; i < b->ninst; i++)
            if (!g->tr[b->inst[i].field].gathered)
                trace(g, &g->walk[i], w, w * g->per_wave, (w + 1) * g->per_wave);
    }
    *touched = 0;
    for (int f = 0; f < b->k->nfields; f++) {
        field_trace *t = &g->tr[f];
        one[f].miss_load = t->miss_load - before[f].miss_load;
        one[f].store = t->store - before[f].store;
        one[f].touched = t->touched - before[f].touched;
        if (!t->gathered)
            *touched += one[f].touched;
    }
    g->sample_shift = keep;
    g->capacity = cap;
}

int est_gather_waves(est_ctx *ctx, const est_binding *b, int64_t wave_blocks, est_wave *out,
                     lr_error *err)
{
    const est_kernel *k = b->k;
    memset(out, 0, sizeof *out);
    gather_run g = {.b = b, .B = b->cfg.launch.block[0]};
    int64_t n = b->cfg.domain[0];
    g.per_wave = wave_blocks * g.B;
    int64_t nwaves = (n + g.per_wave - 1) / g.per_wave;
    g.capacity = RULE(GATHER_L2_SHARE) * (double)b->dev->l2_bytes;
    int rc = setup(&g, b, err);
    if (!rc && (!(g.start = calloc((size_t)nwaves + 1, sizeof *g.start)) ||
                !(g.gone = calloc((size_t)nwaves + 1, sizeof *g.gone))))
        rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    /* few waves: every field is traced in full */
    int streams = nwaves >= 4;
    for (int f = 0; f < k->nfields && !streams; f++)
        g.tr[f].gathered = 1;
    field_trace one[EST_MAX_FIELDS];
    memset(one, 0, sizeof one);
    double stream_touched = 0;
    if (!rc && streams)
        stream_fields(&g, nwaves, one, &stream_touched);
    for (int64_t w = 0; w < nwaves && !rc; w++) {
        if (est_ctx_expired(ctx)) {
            rc = lr_error_set(err, LR_BUDGET_EXCEEDED, NULL,
                              "the request ran past its time limit while counting the DRAM "
                              "traffic of a kernel that reads through an index field; rank "
                              "fewer configurations or raise the limit");
            break;
        }
        int64_t first = w * g.per_wave, end = first + g.per_wave < n ? first + g.per_wave : n;
        double before = 0, after = 0;
        for (int f = 0; f < k->nfields; f++)
            before += g.tr[f].gathered ? g.tr[f].touched : 0;
        for (int i = 0; i < b->ninst; i++)
            if (g.tr[b->inst[i].field].gathered)
                trace(&g, &g.walk[i], w, first, end);
        for (int f = 0; f < k->nfields; f++)
            after += g.tr[f].gathered ? g.tr[f].touched : 0;
        g.start[w + 1] = g.start[w] + (after - before) +
                         stream_touched * (double)(end - first) / (double)g.per_wave;
    }
    double waves = (double)n / (double)g.per_wave;
    for (int f = 0; f < k->nfields && !rc; f++) {
        const field_trace *t = g.tr[f].gathered ? &g.tr[f] : &one[f];
        double scale = g.tr[f].gathered ? 1 : waves;
        out->f[f].vnew_load = t->miss_load * scale;
        out->f[f].scattered_load = t->miss_scattered * scale;
        out->f[f].vnew_store = t->store * scale;
    }
    release(&g, k->nfields);
    out->cur_lups = (double)n;
    out->dims[0] = nwaves;
    out->dims[1] = out->dims[2] = 1;
    return rc;
}
