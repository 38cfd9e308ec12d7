/*
 * emit: prints the CUDA C++ source of a described kernel under one configuration
 * (cudagen.h says what the kernel computes), plus the small pieces of that
 * computation check.c redoes on the CPU (weights, accumulator type, chain length).
 *
 * Everything configuration-specific (domain, block, grid, folding, field extents) is
 * a literal in the source, as a code generator specialising for one launch writes
 * it, so the compiler sees the same constant index arithmetic the model assumes.
 * Index arithmetic is in long (64-bit): fields past 2^31 elements are real.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudagen_int.h"

/* ---- the computation, shared with check.c ---- */

int cg_acc_double(const est_kernel *k)
{
    if (est_kernel_fp64(k))
        return 1;
    if (est_kernel_flops(k) > 0)
        return 0;
    for (int f = 0; f < est_kernel_field_count(k); f++)
        if (est_kernel_field_elem_bytes(k, f) == 8)
            return 1;
    return 0;
}

int cg_access_is_lattice(const est_kernel *k, int f, int a)
{
    for (int d = 0; d < est_kernel_field_ndims(k, f); d++)
        if (est_expr_uses(est_kernel_access_index(k, f, a, d)) & EST_VARS_LATTICE)
            return 1;
    return 0;
}

int cg_access_is(const est_kernel *k, int f, int a, int is_store, int lattice)
{
    return !est_kernel_access_is_store(k, f, a) == !is_store &&
           !cg_access_is_lattice(k, f, a) == !lattice;
}

double cg_load_weight(int n, int acc_double)
{
    return acc_double ? 1.0 / (n + 2) : (double)(1.0f / (float)(n + 2));
}

/* Counts accesses by kind: lattice loads, lattice stores, thread loads, thread stores. */
static void count_accesses(const est_kernel *k, int count[4])
{
    memset(count, 0, 4 * sizeof count[0]);
    for (int f = 0; f < est_kernel_field_count(k); f++)
        for (int a = 0; a < est_kernel_access_count(k, f); a++)
            count[(cg_access_is_lattice(k, f, a) ? 0 : 2) +
                  (est_kernel_access_is_store(k, f, a) ? 1 : 0)]++;
}

int64_t cg_chain_steps(const est_kernel *k)
{
    int count[4];
    double steps;
    if (!(est_kernel_flops(k) > 0))
        return 0;
    count_accesses(k, count);
    /* each load is one fma (2 flops) into the sum, each store one add */
    steps = ceil((est_kernel_flops(k) - 2.0 * count[0] - count[1]) / 2);
    if (!(steps > 0))
        return 0;
    return steps > 1e15 ? (int64_t)1e15 : (int64_t)steps;
}

/* ---- configuration ---- */

int cg_config_check(const est_kernel *k, const est_config *cfg, lr_error *err)
{
    /* CUDA's limits and the model's are one check (estimator/launch.c), so that what
     * the model ranks is exactly what can be generated; no device here: a launch is
     * generated before cudagen knows which GPU runs it. */
    if (est_launch_check(k, NULL, cfg, err))
        return -1;
    /* the generated kernel would need the index field's values on the GPU; measuring
     * gathers is the mesh campaign's harness for now (lab/) */
    if (est_kernel_gathers(k))
        return lr_error_set(err, LR_UNSUPPORTED_EXPR, "kernel.fields",
                            "generating and measuring a kernel that reads through an index "
                            "field is not supported yet; its estimates are");
    for (int f = 0; f < est_kernel_field_count(k); f++) {
        int e = est_kernel_field_elem_bytes(k, f);
        if (e != 4 && e != 8) {
            char path[64];
            snprintf(path, sizeof path, "kernel.fields[%d].element_bytes", f);
            return lr_error_set(err, LR_INVALID_REQUEST, path,
                                "field '%s' has %d-byte elements; generated kernels support "
                                "4 (float) and 8 (double)",
                                est_kernel_field_name(k, f), e);
        }
    }
    return 0;
}

/* ---- printing ---- */

typedef struct emitter {
    FILE *f;
    const est_kernel *k;
    const est_config *cfg;
    int64_t grid[3];
    int acc_double;
    const char *acc; /* "double" or "float" */
    const char *fma; /* "fma" or "fmaf" */
    const char *var_text[EST_VAR_COUNT];
    int indent;            /* spaces */
    int load_no, store_no; /* running numbers: weights and store offsets */
    int count[4];          /* count_accesses */
    uint32_t uses;         /* variables any access uses */
} emitter;

static void line(emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(emitter *e, const char *fmt, ...)
{
    va_list ap;
    fprintf(e->f, "%*s", e->indent, "");
    va_start(ap, fmt);
    vfprintf(e->f, fmt, ap);
    va_end(ap);
    fputc('\n', e->f);
}

static const char *elem_type(const est_kernel *k, int f)
{
    return est_kernel_field_elem_bytes(k, f) == 8 ? "double" : "float";
}

/* A floating-point literal of the accumulator type that reads back as exactly v
 * (%.17g round-trips a double, %.9g a float). */
static void print_fp(emitter *e, char *buf, size_t cap, double v)
{
    int n = snprintf(buf, cap, e->acc_double ? "%.17g" : "%.9g", v);
    if (!strpbrk(buf, ".e"))
        snprintf(buf + n, cap - (size_t)n, ".0");
    if (!e->acc_double)
        strncat(buf, "f", cap - strlen(buf) - 1);
}

/* A field name in a comment: printable ASCII only, and no comment terminator. */
static void print_comment_name(FILE *f, const char *name)
{
    for (const char *c = name; *c; c++)
        fputc((*c >= 0x20 && *c < 0x7f && *c != '*' && *c != '/') ? *c : '?', f);
}

/* Text that is one operand in C: a name or number, or a call / parenthesised group
 * spanning all of it. */
static int is_atomic(const char *s)
{
    size_t n = strlen(s), i;
    int level = 0;
    if (n > 0 &&
        strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n)
        return 1;
    if (n < 2 || s[n - 1] != ')')
        return 0;
    i = strspn(s, "abcdefghijklmnopqrstuvwxyz_");
    if (s[i] != '(')
        return 0;
    for (; i < n; i++) {
        level += (s[i] == '(') - (s[i] == ')');
        if (level == 0 && i < n - 1)
            return 0;
    }
    return 1;
}

/* "f1[x + (y - 1) * 40L + z * 1200L]": the linear element index of docs/model.md §1.
 * Returns -1 on allocation failure. */
static int print_element(emitter *e, char **out, int f, int a)
{
    int64_t dims[3], stride = 1;
    char *idx = NULL;
    size_t len;
    int nd = est_kernel_field_ndims(e->k, f), failed = 0;
    FILE *m = open_memstream(&idx, &len);

    if (!m)
        return -1;
    est_kernel_field_dims(e->k, f, dims);
    fprintf(m, "f%d[", f);
    for (int d = 0; d < nd; d++) {
        char *t = cg_print_expr(est_kernel_access_index(e->k, f, a, d), e->var_text);
        if (!t) {
            failed = 1;
            break;
        }
        if (d == 0)
            fprintf(m, "%s", t);
        else
            fprintf(m, is_atomic(t) ? " + %s * %" PRId64 "L" : " + (%s) * %" PRId64 "L", t,
                    stride);
        free(t);
        stride *= dims[d];
    }
    fprintf(m, "]");
    failed |= ferror(m);
    if (fclose(m) != 0 || failed) {
        free(idx);
        return -1;
    }
    *out = idx;
    return 0;
}

/* One load per matching access: `into = fma(w, (acc)fN[...], into);`. */
static int emit_loads(emitter *e, int lattice, const char *into)
{
    for (int f = 0; f < est_kernel_field_count(e->k); f++) {
        int same = est_kernel_field_elem_bytes(e->k, f) == (e->acc_double ? 8 : 4);
        for (int a = 0; a < est_kernel_access_count(e->k, f); a++) {
            char *el, w[40];
            if (!cg_access_is(e->k, f, a, 0, lattice))
                continue;
            if (print_element(e, &el, f, a) < 0)
                return -1;
            print_fp(e, w, sizeof w, cg_load_weight(e->load_no++, e->acc_double));
            line(e, "%s = %s(%s, %s%s%s%s, %s);", into, e->fma, w, same ? "" : "(",
                 same ? "" : e->acc, same ? "" : ")", el, into);
            free(el);
        }
    }
    return 0;
}

/* One store per matching access: `fN[...] = from + n;`. */
static int emit_stores(emitter *e, int lattice, const char *from)
{
    for (int f = 0; f < est_kernel_field_count(e->k); f++) {
        int same = est_kernel_field_elem_bytes(e->k, f) == (e->acc_double ? 8 : 4);
        for (int a = 0; a < est_kernel_access_count(e->k, f); a++) {
            char *el, c[40];
            if (!cg_access_is(e->k, f, a, 1, lattice))
                continue;
            if (print_element(e, &el, f, a) < 0)
                return -1;
            print_fp(e, c, sizeof c, (double)e->store_no++);
            if (same)
                line(e, "%s = %s + %s;", el, from, c);
            else
                line(e, "%s = (%s)(%s + %s);", el, elem_type(e->k, f), from, c);
            free(el);
        }
    }
    return 0;
}

static void emit_header(emitter *e)
{
    const est_config *c = e->cfg;
    FILE *f = e->f;
    int64_t steps = cg_chain_steps(e->k);

    fprintf(f, "/*\n * lr_kernel: generated by launchrank (cudagen); regenerate it rather than "
               "edit it.\n *\n");
    fprintf(f,
            " * Configuration: domain %" PRId64 " x %" PRId64 " x %" PRId64
            ", block (%d, %d, %d),\n * folding (%d, %d, %d), grid (%" PRId64 ", %" PRId64
            ", %" PRId64 ").\n",
            c->domain[0], c->domain[1], c->domain[2], c->launch.block[0], c->launch.block[1],
            c->launch.block[2], c->launch.folding[0], c->launch.folding[1],
            c->launch.folding[2], e->grid[0], e->grid[1], e->grid[2]);
    fprintf(f, " * Arguments, one per field in this order, each pointing at element 0:\n");
    for (int i = 0; i < est_kernel_field_count(e->k); i++) {
        int64_t dims[3];
        int nd = est_kernel_field_ndims(e->k, i), loads = 0, stores = 0;
        est_kernel_field_dims(e->k, i, dims);
        for (int a = 0; a < est_kernel_access_count(e->k, i); a++)
            *(est_kernel_access_is_store(e->k, i, a) ? &stores : &loads) += 1;
        fprintf(f, " *   f%d '", i);
        print_comment_name(f, est_kernel_field_name(e->k, i));
        fprintf(f, "': %s", elem_type(e->k, i));
        for (int d = 0; d < nd; d++)
            fprintf(f, "%s%" PRId64, d ? " x " : " [", dims[d]);
        fprintf(f, "], %d load%s, %d store%s\n", loads, loads == 1 ? "" : "s", stores,
                stores == 1 ? "" : "s");
    }
    fprintf(f,
            " * Per lattice point: %d load%s summed by fma with weight 1/(n+2), %" PRId64
            " chained fma%s\n * (flops %g), %d store%s (store n writes sum + n); "
            "accumulator %s.\n",
            e->count[0], e->count[0] == 1 ? "" : "s", steps, steps == 1 ? "" : "s",
            est_kernel_flops(e->k), e->count[1], e->count[1] == 1 ? "" : "s", e->acc);
    if (e->count[2] || e->count[3])
        fprintf(f,
                " * Per thread (accesses without x, y, z): %d load%s (their sum starts "
                "every point's),\n * %d store%s (writing the sum of the thread's point "
                "results + n).\n",
                e->count[2], e->count[2] == 1 ? "" : "s", e->count[3],
                e->count[3] == 1 ? "" : "s");
    fprintf(f, " */\n\n");
    /* est_expr_eval's floor semantics: x-1 at the domain edge divides downwards. */
    fprintf(f, "__device__ __forceinline__ long lr_floordiv(long a, long c)\n{\n"
               "    long q;\n    if (c <= 0)\n        c = 1;\n    q = a / c;\n"
               "    return (a %% c != 0 && a < 0) ? q - 1 : q;\n}\n\n");
    fprintf(f, "__device__ __forceinline__ long lr_floormod(long a, long c)\n{\n"
               "    long r;\n    if (c <= 0)\n        c = 1;\n    r = a %% c;\n"
               "    return r < 0 ? r + c : r;\n}\n\n");
}

static void emit_signature(emitter *e)
{
    int n = est_kernel_field_count(e->k);
    fprintf(e->f, "extern \"C\" __global__ void lr_kernel(");
    for (int i = 0; i < n; i++) {
        int loads_only = 1;
        for (int a = 0; a < est_kernel_access_count(e->k, i); a++)
            loads_only &= !est_kernel_access_is_store(e->k, i, a);
        fprintf(e->f, "%s%s%s *%sf%d", i ? ", " : "", loads_only ? "const " : "",
                elem_type(e->k, i), est_kernel_restrict(e->k) ? "__restrict__ " : "", i);
    }
    fprintf(e->f, ")\n{\n");
}

/* Thread coordinates and folding-step counters of the generated code, x, y, z. */
static const char *const TID[3] = {"tidx", "tidy", "tidz"}, *const STEP[3] = {"ix", "iy", "iz"};

/* Into buf: dimension d of a thread's lattice point at folding step `step` (the loop
 * counter or a number; NULL: the first step), e.g. "tidz * 4 + iz"; just "tidz"
 * when d is not folded. */
static void point_text(char *buf, size_t cap, const est_launch *l, int d, const char *step)
{
    if (l->folding[d] == 1)
        snprintf(buf, cap, "%s", TID[d]);
    else if (!step)
        snprintf(buf, cap, "%s * %d", TID[d], l->folding[d]);
    else
        snprintf(buf, cap, "%s * %d + %s", TID[d], l->folding[d], step);
}

/* The launch constants and thread coordinates: only those the accesses use, so the
 * compiler has no unused variables to warn about. */
static void emit_prologue(emitter *e)
{
    const est_config *c = e->cfg;
    char first[3][32];

    line(e, "const long nx = %" PRId64 ", ny = %" PRId64 ", nz = %" PRId64 ";", c->domain[0],
         c->domain[1], c->domain[2]);
    for (int d = 0; d < 3; d++)
        if (e->uses & EST_VAR_BIT(EST_VAR_BLOCKDIM_X + d))
            line(e, "const long %s = %d;", e->var_text[EST_VAR_BLOCKDIM_X + d],
                 c->launch.block[d]);
    for (int d = 0; d < 3; d++)
        if (e->uses & EST_VAR_BIT(EST_VAR_GRIDDIM_X + d))
            line(e, "const long %s = %" PRId64 ";", e->var_text[EST_VAR_GRIDDIM_X + d],
                 e->grid[d]);
    line(e, "const long tix = threadIdx.x, tiy = threadIdx.y, tiz = threadIdx.z;");
    line(e, "const long bix = blockIdx.x, biy = blockIdx.y, biz = blockIdx.z;");
    line(e, "const long tidx = bix * %d + tix, tidy = biy * %d + tiy, tidz = biz * %d + tiz;",
         c->launch.block[0], c->launch.block[1], c->launch.block[2]);
    if (e->count[2])
        line(e, "%s tsum = 0.0%s;", e->acc, e->acc_double ? "" : "f");
    if (e->count[3])
        line(e, "%s acc = 0.0%s;", e->acc, e->acc_double ? "" : "f");
    fputc('\n', e->f);
    /* A thread whose first lattice point is outside has none inside: it issues
     * nothing, not even its per-thread accesses. */
    for (int d = 0; d < 3; d++)
        point_text(first[d], sizeof first[d], &c->launch, d, NULL);
    line(e, "if (%s >= nx || %s >= ny || %s >= nz)", first[0], first[1], first[2]);
    line(e, "    return;");
}

/* A lattice point's sum: its loads and the fma chain. */
static int emit_point_sum(emitter *e)
{
    int64_t steps = cg_chain_steps(e->k);
    char a[40], b[40];

    line(e, "%s sum = %s;", e->acc, e->count[2] ? "tsum" : e->acc_double ? "0.0" : "0.0f");
    if (emit_loads(e, 1, "sum") < 0)
        return -1;
    if (steps > 0) {
        print_fp(e, a, sizeof a, CG_CHAIN_A);
        print_fp(e, b, sizeof b, CG_CHAIN_B);
        line(e, "#pragma unroll 4");
        line(e, "for (int s = 0; s < %" PRId64 "; s++)", steps);
        line(e, "    sum = %s(sum, %s, %s);", e->fma, a, b);
    }
    return 0;
}

/* What consumes a lattice point's sum: its stores and the thread's accumulator. */
static int emit_point_use(emitter *e)
{
    if (emit_stores(e, 1, "sum") < 0)
        return -1;
    if (e->count[3])
        line(e, "acc += sum;");
    if (!e->count[1] && !e->count[3])
        /* no store consumes the sum: an empty asm that reads it keeps the loads */
        line(e, "asm volatile(\"\" :: \"%s\"(sum));", e->acc_double ? "d" : "f");
    return 0;
}

/* The per-lattice-point body inside the guard. */
static int emit_point(emitter *e)
{
    if (emit_point_sum(e) < 0)
        return -1;
    return emit_point_use(e);
}

/* Opens the folding loops (only for folded dimensions) and declares the lattice point
 * x, y, z of the step (all three when the guard needs them, else those the accesses
 * use); returns how many loops it opened. */
static int open_steps(emitter *e, int all)
{
    const est_launch *l = &e->cfg->launch;
    int opened = 0;
    char c[48], decl[200] = "";

    for (int d = 2; d >= 0; d--) {
        if (l->folding[d] == 1)
            continue;
        line(e, "#pragma unroll");
        line(e, "for (int %s = 0; %s < %d; %s++) {", STEP[d], STEP[d], l->folding[d], STEP[d]);
        e->indent += 4;
        opened++;
    }
    for (int d = 0; d < 3; d++) {
        static const char *const name[3] = {"x", "y", "z"};
        size_t used = strlen(decl);
        if (!all && !(e->uses & EST_VAR_BIT(EST_VAR_X + d)))
            continue;
        point_text(c, sizeof c, l, d, STEP[d]);
        snprintf(decl + used, sizeof decl - used, "%s%s = %s", used ? ", " : "", name[d], c);
    }
    if (decl[0])
        line(e, "const long %s;", decl);
    return opened;
}

static void close_steps(emitter *e, int opened)
{
    while (opened--) {
        e->indent -= 4;
        line(e, "}");
    }
}

/* One loop over the steps, each point guarded by the domain: stores follow each
 * point's loads. */
static int emit_points_guarded(emitter *e)
{
    int opened = open_steps(e, 1), rc;
    line(e, "if (x < nx && y < ny && z < nz) {");
    e->indent += 4;
    rc = emit_point(e);
    e->indent -= 4;
    line(e, "}");
    close_steps(e, opened);
    return rc;
}

/* docs/model.md, "Register reuse across folding steps": the model has the compiler load
 * an element that several steps of a thread need once. NVCC does that only when no
 * store comes between the loads (with each step's store in between it keeps most of
 * them, measured on the H100: 25 of 28 loads of a 7-point stencil folded 4 in z where
 * the rule says 22), so a thread whose steps all lie in the domain first computes every
 * step's sum, unguarded, then stores them all. */
static int emit_points_deferred(emitter *e)
{
    const int *fold = e->cfg->launch.folding;
    int n = fold[0] * fold[1] * fold[2], opened, rc, stride = 1;
    char idx[64] = "";

    /* the step's number, x fastest, from the loop counters of the folded dimensions */
    for (int d = 0; d < 3; d++) {
        size_t used = strlen(idx);
        if (fold[d] == 1)
            continue;
        if (stride == 1)
            snprintf(idx + used, sizeof idx - used, "%s%s", used ? " + " : "", STEP[d]);
        else
            snprintf(idx + used, sizeof idx - used, "%s%s * %d", used ? " + " : "", STEP[d],
                     stride);
        stride *= fold[d];
    }
    line(e, "%s sums[%d];", e->acc, n);
    opened = open_steps(e, 0);
    rc = emit_point_sum(e);
    line(e, "sums[%s] = sum;", idx);
    close_steps(e, opened);
    if (rc)
        return rc;
    opened = open_steps(e, 0);
    line(e, "const %s sum = sums[%s];", e->acc, idx);
    rc = emit_point_use(e);
    close_steps(e, opened);
    return rc;
}

/* Whether a folded thread's steps are emitted as loads first, stores after: the code
 * shape the model assumes (est_kernel_defers_stores). */
static int defer_stores(const emitter *e)
{
    const int *fold = e->cfg->launch.folding;
    return fold[0] * fold[1] * fold[2] > 1 && est_kernel_defers_stores(e->k);
}

/* The lattice points of a thread. Folded, when defer_stores: a thread whose last step
 * lies in the domain takes the deferred form; the others (only where the domain is not
 * a multiple of block x folding in some dimension) the guarded one. */
static int emit_points(emitter *e)
{
    const est_config *c = e->cfg;
    int load_no = e->load_no, store_no = e->store_no, rc;
    char last[3][64];

    if (!defer_stores(e))
        return emit_points_guarded(e);
    if (est_config_tiles_domain(c)) /* the entry guard returned every thread with a step
                                       outside */
        return emit_points_deferred(e);
    for (int d = 0; d < 3; d++) {
        char step[16];
        snprintf(step, sizeof step, "%d", c->launch.folding[d] - 1);
        point_text(last[d], sizeof last[d], &c->launch, d, step);
    }
    line(e, "if (%s < nx && %s < ny && %s < nz) {", last[0], last[1], last[2]);
    e->indent += 4;
    rc = emit_points_deferred(e);
    e->indent -= 4;
    line(e, "} else {");
    e->indent += 4;
    /* the same weights and store offsets in both forms */
    e->load_no = load_no;
    e->store_no = store_no;
    if (!rc)
        rc = emit_points_guarded(e);
    e->indent -= 4;
    line(e, "}");
    return rc;
}

char *cg_emit_source(const est_kernel *k, const est_config *cfg, lr_error *err)
{
    static const char *const text[EST_VAR_COUNT] = {
        [EST_VAR_X] = "x",
        [EST_VAR_Y] = "y",
        [EST_VAR_Z] = "z",
        [EST_VAR_TIDX] = "tidx",
        [EST_VAR_TIDY] = "tidy",
        [EST_VAR_TIDZ] = "tidz",
        [EST_VAR_THREADIDX_X] = "tix",
        [EST_VAR_THREADIDX_Y] = "tiy",
        [EST_VAR_THREADIDX_Z] = "tiz",
        [EST_VAR_BLOCKIDX_X] = "bix",
        [EST_VAR_BLOCKIDX_Y] = "biy",
        [EST_VAR_BLOCKIDX_Z] = "biz",
        [EST_VAR_BLOCKDIM_X] = "bdx",
        [EST_VAR_BLOCKDIM_Y] = "bdy",
        [EST_VAR_BLOCKDIM_Z] = "bdz",
        [EST_VAR_GRIDDIM_X] = "gdx",
        [EST_VAR_GRIDDIM_Y] = "gdy",
        [EST_VAR_GRIDDIM_Z] = "gdz",
    };
    emitter e = {.k = k, .cfg = cfg};
    char *src = NULL;
    size_t len;
    int rc, failed;
    int64_t steps;

    if (cg_config_check(k, cfg, err) < 0)
        return NULL;
    steps = cg_chain_steps(k);
    if (steps > CG_MAX_CHAIN) {
        lr_error_set(err, LR_LIMIT_EXCEEDED, "kernel.flops",
                     "%g flops per update would need a chain of %" PRId64
                     " fmas per lattice point; generated kernels have at most %d",
                     est_kernel_flops(k), steps, CG_MAX_CHAIN);
        return NULL;
    }
    memcpy(e.var_text, text, sizeof text);
    est_grid(cfg, e.grid);
    e.acc_double = cg_acc_double(k);
    e.acc = e.acc_double ? "double" : "float";
    e.fma = e.acc_double ? "fma" : "fmaf";
    count_accesses(k, e.count);
    for (int f = 0; f < est_kernel_field_count(k); f++)
        for (int a = 0; a < est_kernel_access_count(k, f); a++)
            for (int d = 0; d < est_kernel_field_ndims(k, f); d++)
                e.uses |= est_expr_uses(est_kernel_access_index(k, f, a, d));

    if (!(e.f = open_memstream(&src, &len))) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    emit_header(&e);
    emit_signature(&e);
    e.indent = 4;
    emit_prologue(&e);
    rc = 0;
    if (e.count[2]) {
        fputc('\n', e.f);
        rc = emit_loads(&e, 0, "tsum");
    }
    if (!rc) {
        fputc('\n', e.f);
        rc = emit_points(&e);
    }
    if (!rc && e.count[3]) {
        fputc('\n', e.f);
        rc = emit_stores(&e, 0, "acc");
    }
    fprintf(e.f, "}\n");
    failed = ferror(e.f);
    if (fclose(e.f) != 0 || failed || rc) {
        free(src);
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    return src;
}
