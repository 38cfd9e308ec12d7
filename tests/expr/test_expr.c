/*
 * test_expr: the address-expression language of docs/model.md §1 (estimator/expr.h).
 * Golden cases: text in, value / affinity / error out. The isl affine expressions
 * est_expr_to_aff builds are checked against est_expr_eval at integer points, with
 * the variables bound the way estimator/dram.c binds them, for hand-picked cases and
 * for a few hundred expressions from a small deterministic generator.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/local_space.h>
#include <isl/point.h>
#include <isl/space.h>
#include <isl/val.h>

#include "check.h"
#include "expr.h"

#define PATH "kernel.fields[1].loads[0][2]"

static const est_param params[] = {{"w", 130}, {"nx_pad", 64}, {"x", 5}, {"neg", -3}};
#define NPARAMS (sizeof params / sizeof params[0])

static est_expr *parse(const char *text)
{
    lr_error err;
    est_expr *e;
    lr_error_clear(&err);
    e = est_expr_parse(text, params, NPARAMS, PATH, &err);
    if (!e)
        fprintf(stderr, "unexpected error for '%s': %s\n", text, err.message);
    CHECK(e != NULL);
    CHECK_INT(err.code, LR_OK);
    return e;
}

/* Variables bound to distinct values: x=3 y=2 z=1, and 100+v for the rest. */
static void default_vals(int64_t val[EST_VAR_COUNT])
{
    int v;
    for (v = 0; v < EST_VAR_COUNT; v++)
        val[v] = 100 + v;
    val[EST_VAR_X] = 3;
    val[EST_VAR_Y] = 2;
    val[EST_VAR_Z] = 1;
}

/* Value of text with x bound to x and the other defaults; -999999 on parse error. */
static int64_t eval_x(const char *text, int64_t x)
{
    int64_t val[EST_VAR_COUNT], r = -999999;
    est_expr *e = parse(text);
    default_vals(val);
    val[EST_VAR_X] = x;
    if (e)
        r = est_expr_eval(e, val);
    est_expr_free(e);
    return r;
}

static int64_t eval(const char *text)
{
    return eval_x(text, 3);
}

static int affine(const char *text, uint32_t const_mask)
{
    est_expr *e = parse(text);
    int r = e ? est_expr_is_affine(e, const_mask) : -1;
    est_expr_free(e);
    return r;
}

static int printable(const char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e)
            return 0;
    return 1;
}

/* Parses text, which must fail with code, at PATH, with a message that quotes the
 * expression and contains each of the (up to three) substrings. */
static void expect_error(const char *text, lr_code code, const char *s1, const char *s2,
                         const char *s3)
{
    lr_error err;
    char quoted[LR_MESSAGE_MAX];
    est_expr *e;
    lr_error_clear(&err);
    e = est_expr_parse(text, params, NPARAMS, PATH, &err);
    CHECK(e == NULL);
    est_expr_free(e);
    if (err.code != code)
        fprintf(stderr, "  for '%s': got %s: %s\n", text, lr_code_name(err.code), err.message);
    CHECK_INT(err.code, code);
    CHECK_STR(err.path, PATH);
    if (strlen(text) < 60 && printable(text)) {
        snprintf(quoted, sizeof quoted, "'%s': ", text);
        CHECK(strncmp(err.message, quoted, strlen(quoted)) == 0);
    }
    if (s1)
        CHECK_CONTAINS(err.message, s1);
    if (s2)
        CHECK_CONTAINS(err.message, s2);
    if (s3)
        CHECK_CONTAINS(err.message, s3);
}

static void test_variables(void)
{
    int64_t val[EST_VAR_COUNT];
    int v;
    default_vals(val);
    for (v = 0; v < EST_VAR_COUNT; v++) {
        est_expr *e = parse(est_var_name((est_var)v));
        if (!e)
            continue;
        CHECK_INT(est_expr_eval(e, val), val[v]);
        CHECK_INT(est_expr_uses(e), EST_VAR_BIT(v));
        est_expr_free(e);
    }
    CHECK_STR(est_var_name(EST_VAR_THREADIDX_X), "threadIdx.x");
    CHECK_STR(est_var_name(EST_VAR_GRIDDIM_Z), "gridDim.z");
    CHECK_STR(est_var_name(EST_VAR_TIDY), "tidy");
    /* Whitespace anywhere between tokens, none inside them. */
    CHECK_INT(eval(" \t threadIdx.x\n+\r1 "), 107);
    expect_error("threadIdx .x", LR_INVALID_REQUEST, "unknown name 'threadIdx' at column 1",
                 NULL, NULL);
    expect_error("ThreadIdx.x", LR_INVALID_REQUEST, "unknown name 'ThreadIdx.x'", NULL, NULL);
    expect_error("threadIdx.w", LR_INVALID_REQUEST, "unknown name 'threadIdx.w'", NULL, NULL);
    expect_error("2 * foo + 1", LR_INVALID_REQUEST, "unknown name 'foo' at column 5",
                 "neither a variable", NULL);
}

static void test_arithmetic(void)
{
    CHECK_INT(eval("1 + 2*3"), 7);
    CHECK_INT(eval("(1 + 2)*3"), 9);
    CHECK_INT(eval("10 - 4 - 3"), 3);
    CHECK_INT(eval("2*3 % 4"), 2);
    CHECK_INT(eval("40/2/5"), 4);
    CHECK_INT(eval("-2*x"), -6);
    CHECK_INT(eval("--x"), 3);
    CHECK_INT(eval("x--1"), 4);
    CHECK_INT(eval("-(x + 1)"), -4);
    CHECK_INT(eval("+x"), 3);
    CHECK_INT(eval("x + y*10 + z*100"), 123);
    CHECK_INT(eval("blockIdx.x*blockDim.x + threadIdx.x"), 109 * 112 + 106);
    CHECK_INT(eval("9007199254740992"), INT64_C(9007199254740992));
    CHECK_INT(eval("0"), 0);
    /* Floor semantics where C would truncate: the halo cell left of x = 0. */
    CHECK_INT(eval_x("(x-1)/8", 0), -1);
    CHECK_INT(eval_x("(x-1)%8", 0), 7);
    CHECK_INT(eval_x("(x-1)/8", 9), 1);
    CHECK_INT(eval_x("(x-1)%8", 9), 0);
    CHECK_INT(eval_x("-x/3", 1), -1);
    CHECK_INT(eval_x("-x%3", 1), 2);
    CHECK_INT(eval_x("x/3", -3), -1);
    CHECK_INT(eval("(-7)/2"), -4);
    CHECK_INT(eval("(-7)%2"), 1);
    CHECK_INT(eval("x / gridDim.x"), 0);
    /* A launch-constant divisor that turns out 0 counts as 1 (see expr.h). */
    {
        int64_t val[EST_VAR_COUNT];
        est_expr *e = parse("x / (blockDim.x - 4)");
        default_vals(val);
        val[EST_VAR_BLOCKDIM_X] = 4;
        if (e)
            CHECK_INT(est_expr_eval(e, val), 3);
        est_expr_free(e);
    }
}

static void test_parameters_and_folding(void)
{
    est_expr *e;
    CHECK_INT(eval("x + y*w"), 263);
    CHECK_INT(eval("nx_pad*2 + 1"), 129);
    CHECK_INT(eval("x*neg"), -9);
    /* A parameter named like a variable does not shadow it. */
    CHECK_INT(eval("x"), 3);
    /* Constant subtrees, parameters included, fold to one literal. */
    e = parse("w*2 + 1 - nx_pad/4");
    if (e) {
        CHECK_INT(est_expr_uses(e), 0);
        CHECK_INT(est_expr_is_affine(e, 0), 1);
    }
    est_expr_free(e);
    CHECK_INT(eval("w*2 + 1 - nx_pad/4"), 245);
    CHECK_INT(eval("2*3*x"), 18);
    CHECK_INT(eval("x*(w - 128)"), 6);
    e = parse("2*3*x + y");
    if (e)
        CHECK_INT(est_expr_uses(e), EST_VAR_BIT(EST_VAR_X) | EST_VAR_BIT(EST_VAR_Y));
    est_expr_free(e);
    {
        est_param big[] = {{"huge", INT64_C(1) << 60}};
        lr_error err;
        lr_error_clear(&err);
        e = est_expr_parse("x*huge", big, 1, PATH, &err);
        CHECK(e == NULL);
        CHECK_INT(err.code, LR_INVALID_REQUEST);
        CHECK_CONTAINS(err.message, "parameter 'huge' at column 3");
        CHECK_CONTAINS(err.message, "too large");
        est_expr_free(e);
    }
    /* No parameters at all is fine. */
    {
        lr_error err;
        lr_error_clear(&err);
        e = est_expr_parse("x + 1", NULL, 0, PATH, &err);
        CHECK(e != NULL);
        est_expr_free(e);
    }
}

static void test_affinity(void)
{
    uint32_t bx = EST_VAR_BIT(EST_VAR_BLOCKIDX_X), lat = EST_VARS_LATTICE;
    CHECK_INT(affine("x + 2*y - 1", 0), 1);
    CHECK_INT(affine("x/2", 0), 0);
    CHECK_INT(affine("x/2", EST_VAR_BIT(EST_VAR_X)), 1);
    CHECK_INT(affine("x%4", 0), 0);
    CHECK_INT(affine("3 + (x/2)*2", lat), 1);
    CHECK_INT(affine("blockIdx.x*blockDim.x + threadIdx.x", 0), 1);
    CHECK_INT(affine("x*blockDim.x", 0), 1);
    CHECK_INT(affine("x/blockDim.x", 0), 0);
    CHECK_INT(affine("blockIdx.x/2*blockDim.x + threadIdx.x", 0), 0);
    CHECK_INT(affine("blockIdx.x/2*blockDim.x + threadIdx.x", bx), 1);
    CHECK_INT(affine("gridDim.x % 3 + tidx", 0), 1);
}

/* ---- est_expr_to_aff against est_expr_eval ---- */

/* One launch as estimator/dram.c sees it: per dimension the folding, the lattice step
 * of the access, the block and the grid. */
typedef struct launch {
    int64_t fold[3], step[3], block[3], grid[3];
} launch;

/* Two launches: a plain one and one with folding, non-zero steps and a block whose
 * z extent makes "blockDim.z - 2" zero (a divisor that counts as 1). */
static const launch launches[] = {
    {{1, 1, 1}, {0, 0, 0}, {128, 4, 1}, {7, 3, 2}},
    {{2, 1, 4}, {1, -1, 3}, {32, 8, 2}, {5, 9, 4}},
};
#define NLAUNCHES (sizeof launches / sizeof launches[0])

/* Thread indices [tx, ty, tz] the expressions are evaluated at: block edges, zero and
 * negative values (where floor and C's truncation differ). */
static const int64_t points[][3] = {
    {0, 0, 0},   {1, 0, 0},    {-1, 0, 0},    {-9, -2, -1},  {7, 3, 1},   {127, 1, 0},
    {128, 4, 2}, {129, -5, 3}, {1000, 65, 7}, {-130, 9, -4}, {255, 7, 1}, {33, -1, 5},
};
#define NPOINTS (sizeof points / sizeof points[0])

static int64_t test_floordiv(int64_t a, int64_t d)
{
    return a / d - (a % d != 0 && (a < 0) != (d < 0));
}

/* The variables of l as affine expressions of [tx, ty, tz], built exactly as
 * estimator/dram.c's inst_map() builds them. The caller frees var[]. */
static void launch_affs(isl_ctx *ctx, const launch *l, isl_aff *var[EST_VAR_COUNT])
{
    isl_local_space *ls = isl_local_space_from_space(isl_space_set_alloc(ctx, 0, 3));
    int d;
    for (d = 0; d < 3; d++) {
        isl_aff *t = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, d);
        var[EST_VAR_X + d] = isl_aff_add_constant_si(
            isl_aff_scale_val(isl_aff_copy(t), isl_val_int_from_si(ctx, l->fold[d])),
            (int)l->step[d]);
        var[EST_VAR_TIDX + d] = isl_aff_copy(t);
        var[EST_VAR_THREADIDX_X + d] =
            isl_aff_mod_val(isl_aff_copy(t), isl_val_int_from_si(ctx, l->block[d]));
        var[EST_VAR_BLOCKIDX_X + d] =
            isl_aff_floor(isl_aff_scale_down_ui(t, (unsigned)l->block[d]));
        var[EST_VAR_BLOCKDIM_X + d] = isl_aff_val_on_domain(
            isl_local_space_copy(ls), isl_val_int_from_si(ctx, l->block[d]));
        var[EST_VAR_GRIDDIM_X + d] = isl_aff_val_on_domain(
            isl_local_space_copy(ls), isl_val_int_from_si(ctx, l->grid[d]));
    }
    isl_local_space_free(ls);
}

/* The same variables as numbers at thread index t, computed independently. */
static void launch_vals(const launch *l, const int64_t t[3], int64_t val[EST_VAR_COUNT])
{
    int d;
    for (d = 0; d < 3; d++) {
        int64_t b = test_floordiv(t[d], l->block[d]);
        val[EST_VAR_X + d] = l->fold[d] * t[d] + l->step[d];
        val[EST_VAR_TIDX + d] = t[d];
        val[EST_VAR_THREADIDX_X + d] = t[d] - b * l->block[d];
        val[EST_VAR_BLOCKIDX_X + d] = b;
        val[EST_VAR_BLOCKDIM_X + d] = l->block[d];
        val[EST_VAR_GRIDDIM_X + d] = l->grid[d];
    }
}

/* Value of aff (kept) at thread index t; *ok is cleared when isl fails or the value
 * is not an integer. */
static int64_t aff_at(isl_ctx *ctx, isl_aff *aff, const int64_t t[3], int *ok)
{
    isl_point *pnt = isl_point_zero(isl_space_set_alloc(ctx, 0, 3));
    isl_val *v;
    int64_t r = 0;
    int d;
    for (d = 0; d < 3; d++)
        pnt = isl_point_set_coordinate_val(pnt, isl_dim_set, d, isl_val_int_from_si(ctx, t[d]));
    v = isl_aff_eval(isl_aff_copy(aff), pnt);
    if (v && isl_val_is_int(v))
        r = isl_val_get_num_si(v);
    else
        *ok = 0;
    isl_val_free(v);
    return r;
}

/* Builds e with est_expr_to_aff under each launch and checks that it equals
 * est_expr_eval at every point; label names e in failure messages. */
static void check_aff(isl_ctx *ctx, const est_expr *e, const char *label)
{
    size_t li, pi;
    for (li = 0; li < NLAUNCHES; li++) {
        isl_aff *var[EST_VAR_COUNT], *aff;
        int v, bad = 0;
        launch_affs(ctx, &launches[li], var);
        aff = est_expr_to_aff(e, var);
        CHECK(aff != NULL);
        for (pi = 0; aff && pi < NPOINTS; pi++) {
            int64_t val[EST_VAR_COUNT], got, want;
            int ok = 1;
            launch_vals(&launches[li], points[pi], val);
            want = est_expr_eval(e, val);
            got = aff_at(ctx, aff, points[pi], &ok);
            if ((!ok || got != want) && !bad++)
                fprintf(stderr,
                        "  '%.60s', launch %zu, t = [%" PRId64 ", %" PRId64 ", %" PRId64
                        "]: isl %s%" PRId64 ", eval %" PRId64 "\n",
                        label, li, points[pi][0], points[pi][1], points[pi][2],
                        ok ? "" : "(failed) ", got, want);
        }
        CHECK_INT(bad, 0);
        isl_aff_free(aff);
        for (v = 0; v < EST_VAR_COUNT; v++)
            isl_aff_free(var[v]);
    }
}

static void check_aff_text(isl_ctx *ctx, const char *text)
{
    est_expr *e = parse(text);
    if (e)
        check_aff(ctx, e, text);
    est_expr_free(e);
}

static void test_to_aff_hand_picked(void)
{
    static const char *const cases[] = {
        /* the halo cell left of x = 0: floor, not C's truncation */
        "(x-1)/8",
        "(x-1)%8",
        "(x - 1) / 8 + y*w",
        "-x/3",
        "-x%3",
        "(-7)/2",
        "(-7)%2",
        "x - 3",
        /* thread variables and the identity dram.c's bindings must keep */
        "blockIdx.x*blockDim.x + threadIdx.x",
        "tidx - blockIdx.x*blockDim.x - threadIdx.x",
        "threadIdx.x + blockIdx.x*blockDim.x + (y*w)",
        "threadIdx.y*blockDim.x + threadIdx.x",
        "blockIdx.z*gridDim.y + blockIdx.y",
        "(tidz*(gridDim.x*blockDim.x) + tidy)*2 - z",
        "blockIdx.x/2*blockDim.x + threadIdx.x",
        "gridDim.x % 3 + tidx",
        /* parameters, constants and folding */
        "x + y*w",
        "nx_pad*2 + 1",
        "x*neg",
        "w*2 + 1 - nx_pad/4",
        "x*(w - 128)",
        "42",
        "0",
        "-3",
        "blockDim.x*gridDim.x",
        /* unary minus */
        "-x",
        "--x",
        "-(x + 1)",
        "-3*x + y",
        "y - x*neg",
        "x + -3",
        /* nested divisions and launch-constant divisors */
        "((x/2)/3)%5",
        "3*((x/2) % 5)",
        "((x - 5)%7)/2 - (y + 1)/3",
        "x / (blockDim.x + 1)",
        "(x + y) % (blockDim.y*2)",
        "x/gridDim.x",
        "x/(gridDim.x/2)",
        "(x + 5)/blockDim.x*blockDim.x",
        "threadIdx.x % 4 + (blockIdx.y - 1)/3",
        "(z - 2)/(blockDim.z*2)",
        /* a divisor that is 0 or negative once the launch is known counts as 1 */
        "x / (blockDim.z - 2)",
        "(x - 7) % (blockDim.z - 2)",
    };
    isl_ctx *ctx = isl_ctx_alloc();
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_aff_text(ctx, cases[i]);
    isl_ctx_free(ctx);
}

/* A deterministic generator over the language (a 64-bit LCG, fixed seed). */
typedef struct gen {
    uint64_t state;
    char buf[2048];
    size_t len;
} gen;

static unsigned gen_pick(gen *g, unsigned n)
{
    g->state = g->state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return (unsigned)(g->state >> 33) % n;
}

static void gen_put(gen *g, const char *s)
{
    size_t n = strlen(s);
    if (g->len + n < sizeof g->buf) {
        memcpy(g->buf + g->len, s, n + 1);
        g->len += n;
    }
}

/* A launch-constant factor (any sign) or, with divisor set, a divisor whose first
 * token is a positive constant ("blockDim.z - 2" is still 0 or -1 at run time). */
static void gen_const(gen *g, int divisor)
{
    static const char *const any[] = {"neg", "(-4)", "0", "(blockDim.z - 2)"};
    static const char *const pos[] = {
        "blockDim.x",
        "blockDim.y",
        "blockDim.z",
        "gridDim.x",
        "gridDim.y",
        "gridDim.z",
        "w",
        "nx_pad",
        "gridDim.y*2",
        "(blockDim.x + 3)",
        "(gridDim.x/2 + 1)",
        "(blockDim.y % 3 + 1)",
    };
    char lit[8];
    unsigned k = gen_pick(g, 20);
    if (k < 6) {
        snprintf(lit, sizeof lit, "%u", 1 + gen_pick(g, 9));
        gen_put(g, lit);
    } else if (k < 18 || (divisor && k == 18)) {
        gen_put(g, pos[gen_pick(g, sizeof pos / sizeof pos[0])]);
    } else if (divisor) {
        gen_put(g, "(blockDim.z - 2)");
    } else {
        gen_put(g, any[gen_pick(g, sizeof any / sizeof any[0])]);
    }
}

/* An expression of the given depth. Operands are bracketed only half the time, so
 * that the parser's precedence is exercised too; a factor or divisor always starts
 * with a constant token, so unbracketed text never becomes a product of variables. */
static void gen_expr(gen *g, int depth)
{
    static const char *const names[] = {"w", "nx_pad", "neg"};
    /* below the last level mostly an operator (3..9); a leaf (0..2) is a variable
     * three times in five */
    unsigned leaf = gen_pick(g, 5);
    unsigned k = depth > 0 && gen_pick(g, 8) ? 3 + gen_pick(g, 7) : leaf < 3 ? 0 : leaf - 2;
    int wrap = gen_pick(g, 2);
    char lit[8];
    switch (k) {
    case 0:
        gen_put(g, est_var_name((est_var)gen_pick(g, EST_VAR_COUNT)));
        return;
    case 1:
        snprintf(lit, sizeof lit, "%u", gen_pick(g, 21));
        gen_put(g, lit);
        return;
    case 2:
        gen_put(g, names[gen_pick(g, 3)]);
        return;
    case 9:
        gen_put(g, "(");
        gen_expr(g, depth - 1);
        gen_put(g, ")");
        return;
    case 5:
        gen_put(g, wrap ? "-(" : "-");
        gen_expr(g, depth - 1);
        gen_put(g, wrap ? ")" : "");
        return;
    }
    gen_put(g, wrap ? "(" : "");
    if (k == 6 && gen_pick(g, 2)) {
        gen_const(g, 0);
        gen_put(g, "*");
        gen_expr(g, depth - 1);
    } else {
        gen_expr(g, depth - 1);
        gen_put(g, k == 3 ? " + " : k == 4 ? " - " : k == 6 ? "*" : k == 7 ? " / " : " % ");
        if (k == 3 || k == 4)
            gen_expr(g, depth - 1);
        else
            gen_const(g, k != 6);
    }
    gen_put(g, wrap ? ")" : "");
}

static void test_to_aff_random(void)
{
    gen g = {UINT64_C(20240611), {0}, 0};
    isl_ctx *ctx = isl_ctx_alloc();
    int i;
    for (i = 0; i < 300; i++) {
        g.len = 0;
        g.buf[0] = '\0';
        gen_expr(&g, 1 + i % 5);
        check_aff_text(ctx, g.buf);
    }
    isl_ctx_free(ctx);
}

static void test_copy_and_text(void)
{
    int64_t val[EST_VAR_COUNT];
    est_expr *e = parse("  (x - 1) / 8 + y*w "), *c;
    default_vals(val);
    c = est_expr_copy(e);
    CHECK(c != NULL);
    est_expr_free(e);
    if (!c)
        return;
    CHECK_STR(est_expr_text(c), "  (x - 1) / 8 + y*w ");
    CHECK_INT(est_expr_eval(c, val), 260);
    CHECK_INT(est_expr_uses(c), EST_VAR_BIT(EST_VAR_X) | EST_VAR_BIT(EST_VAR_Y));
    est_expr_free(c);
    est_expr_free(NULL);
}

/* Issue 11, finding 4: pystencils 2 prints "(int64_t) blockIdx.x * ..."; integer casts
 * are accepted anywhere a unary operand may stand and change no value; other casts
 * and look-alikes are still errors. */
static void test_casts(void)
{
    int64_t val[EST_VAR_COUNT];
    default_vals(val);
    const char *pairs[][2] = {
        {"(int64_t) blockIdx.x * (int64_t) blockDim.x + (int64_t) threadIdx.x",
         "blockIdx.x * blockDim.x + threadIdx.x"},
        {"(int64_t)(blockIdx.y*blockDim.y + threadIdx.y + 1) * w", "(blockIdx.y*blockDim.y + threadIdx.y + 1) * w"},
        {"( long long )x - (unsigned int) y + (size_t)(z)", "x - y + z"},
        {"-(int32_t)x % 7", "-x % 7"},
        {"(int)(int64_t)x * 3", "3*x"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        est_expr *a = parse(pairs[i][0]), *b = parse(pairs[i][1]);
        if (a && b) {
            CHECK_INT(est_expr_eval(a, val), est_expr_eval(b, val));
            CHECK_INT(est_expr_uses(a), est_expr_uses(b));
            CHECK_INT(est_expr_is_affine(a, 0), est_expr_is_affine(b, 0));
        }
        est_expr_free(a);
        est_expr_free(b);
    }
    expect_error("(float) x", LR_INVALID_REQUEST, "unknown name 'float'", NULL, NULL);
    expect_error("(int64_t)", LR_INVALID_REQUEST, NULL, NULL, NULL);
    expect_error("(int64_t x)", LR_INVALID_REQUEST, NULL, NULL, NULL);
}

static void test_rejections(void)
{
    /* Valid syntax outside the language. */
    expect_error("x*y", LR_UNSUPPORTED_EXPR, "product of two variables at column 2 ('*')",
                 "one side must be constant once the launch is known", NULL);
    expect_error("threadIdx.x*blockIdx.x", LR_UNSUPPORTED_EXPR, "column 12 ('*')", NULL, NULL);
    expect_error("(x+1)*(y-1)", LR_UNSUPPORTED_EXPR, "product of two variables at column 6",
                 NULL, NULL);
    expect_error("x/y", LR_UNSUPPORTED_EXPR, "division by a variable at column 2 ('/')",
                 "the divisor must be constant once the launch is known", NULL);
    expect_error("x % blockIdx.x", LR_UNSUPPORTED_EXPR, "remainder by a variable at column 3",
                 NULL, NULL);
    expect_error("x/0", LR_UNSUPPORTED_EXPR, "division by 0 at column 2 ('/')", "positive",
                 NULL);
    expect_error("x%(2-5)", LR_UNSUPPORTED_EXPR, "remainder by -3 at column 2 ('%')", NULL,
                 NULL);
    expect_error("x/neg", LR_UNSUPPORTED_EXPR, "division by -3", NULL, NULL);
    expect_error("A[x]", LR_UNSUPPORTED_EXPR, "'[' at column 2: indirect addressing",
                 "one index expression per dimension", NULL);
    expect_error("B[C[x]] + 1", LR_UNSUPPORTED_EXPR, "'[' at column 2", NULL, NULL);
    expect_error("x[1]", LR_UNSUPPORTED_EXPR, "'[' at column 2", NULL, NULL);
    expect_error("x + ]", LR_UNSUPPORTED_EXPR, "']' at column 5", NULL, NULL);
    expect_error("min(x, 3)", LR_UNSUPPORTED_EXPR, "call of 'min' at column 1",
                 "functions are not supported", NULL);
    expect_error("1 + f (x)", LR_UNSUPPORTED_EXPR, "call of 'f' at column 5", NULL, NULL);
    expect_error("x > 0 ? x : 0", LR_UNSUPPORTED_EXPR, "'>' at column 3", "comparisons", NULL);
    expect_error("x ? 1 : 0", LR_UNSUPPORTED_EXPR, "'?' at column 3", "conditional", NULL);
    expect_error("(x == 1)", LR_UNSUPPORTED_EXPR, "'==' at column 4", NULL, NULL);
    expect_error("x <= 1", LR_UNSUPPORTED_EXPR, "'<=' at column 3", NULL, NULL);
    expect_error("x != 1", LR_UNSUPPORTED_EXPR, "'!=' at column 3", NULL, NULL);
    expect_error("x << 2", LR_UNSUPPORTED_EXPR, "'<<' at column 3", "shifts", NULL);
    expect_error("(x >> 1) + 1", LR_UNSUPPORTED_EXPR, "'>>' at column 4", "shifts", NULL);
    expect_error("x & 7", LR_UNSUPPORTED_EXPR, "'&' at column 3", "bitwise", NULL);
    expect_error("x && y", LR_UNSUPPORTED_EXPR, "'&&' at column 3", NULL, NULL);
    expect_error("x | 1", LR_UNSUPPORTED_EXPR, "'|' at column 3", NULL, NULL);
    expect_error("x ^ 1", LR_UNSUPPORTED_EXPR, "'^' at column 3", NULL, NULL);
    expect_error("~x", LR_UNSUPPORTED_EXPR, "'~' at column 1", NULL, NULL);
    expect_error("!x", LR_UNSUPPORTED_EXPR, "'!' at column 1", NULL, NULL);
    expect_error("x = 1", LR_UNSUPPORTED_EXPR, "'=' at column 3", "assignment", NULL);
    expect_error("x + 1.5", LR_UNSUPPORTED_EXPR, "floating-point literal '1.5' at column 5",
                 NULL, NULL);
    expect_error("x * .5", LR_UNSUPPORTED_EXPR, "floating-point literal '.5' at column 5", NULL,
                 NULL);
    expect_error("2.*x", LR_UNSUPPORTED_EXPR, "'2.' at column 1", NULL, NULL);
    expect_error("x + 0x10", LR_UNSUPPORTED_EXPR, "'0x10' at column 5", "decimal", NULL);
    expect_error("2x", LR_UNSUPPORTED_EXPR, "'2x' at column 1", "decimal", NULL);
    expect_error("x + 1e3", LR_UNSUPPORTED_EXPR, "'1e3' at column 5", NULL, NULL);
    expect_error("x + 010", LR_UNSUPPORTED_EXPR, "'010' at column 5", "octal", NULL);

    /* Syntax errors. */
    expect_error("", LR_INVALID_REQUEST, "the expression is empty", NULL, NULL);
    expect_error("   \t", LR_INVALID_REQUEST, "the expression is empty", NULL, NULL);
    expect_error("x +", LR_INVALID_REQUEST, "unexpected end of the expression at column 4",
                 "expected a number, a variable or '('", NULL);
    expect_error("(x + 1", LR_INVALID_REQUEST, "end of the expression at column 7",
                 "expected ')' to close the '(' at column 1", NULL);
    expect_error("((x)", LR_INVALID_REQUEST, "to close the '(' at column 1", NULL, NULL);
    expect_error("x + 1)", LR_INVALID_REQUEST, "unexpected ')' at column 6", "no matching '('",
                 NULL);
    expect_error("()", LR_INVALID_REQUEST, "unexpected ')' at column 2",
                 "expected a number, a variable or '('", NULL);
    expect_error("x y", LR_INVALID_REQUEST, "unexpected 'y' at column 3",
                 "expected an operator (+ - * / %) or the end of the expression", NULL);
    expect_error("x 1", LR_INVALID_REQUEST, "unexpected '1' at column 3", NULL, NULL);
    expect_error("(x)(y)", LR_INVALID_REQUEST, "unexpected '(' at column 4", NULL, NULL);
    expect_error("x * * y", LR_INVALID_REQUEST, "unexpected '*' at column 5", NULL, NULL);
    expect_error("x, y", LR_INVALID_REQUEST, "',' at column 2", "one expression per", NULL);
    expect_error("x;", LR_INVALID_REQUEST, "unexpected ';' at column 2", NULL, NULL);
    expect_error("x + $", LR_INVALID_REQUEST, "unexpected '$' at column 5", NULL, NULL);
    expect_error("x + \xc3\xa9", LR_INVALID_REQUEST, "'\\xC3' at column 5", NULL, NULL);
    expect_error("x.y", LR_INVALID_REQUEST, "unknown name 'x.y'", NULL, NULL);

    /* Numbers out of range. */
    expect_error("9007199254740993", LR_INVALID_REQUEST,
                 "the number '9007199254740993' at column 1 is too large", NULL, NULL);
    expect_error("x + 99999999999999999999999999999999", LR_INVALID_REQUEST, "too large",
                 "column 5", NULL);
    expect_error("9007199254740992*9007199254740992", LR_INVALID_REQUEST,
                 "column 17 ('*') does not fit in 64 bits", NULL, NULL);
    expect_error("x + 9007199254740992*512*1024 - 1", LR_INVALID_REQUEST, "column 25 ('*')",
                 NULL, NULL);
}

static void test_limits(void)
{
    char text[8192];
    int i;
    lr_error err;
    est_expr *e;

    /* 64 levels of parentheses are fine, 65 are not. */
    memset(text, '(', 64);
    text[64] = 'x';
    memset(text + 65, ')', 64);
    text[129] = '\0';
    e = parse(text);
    est_expr_free(e);
    memset(text, '(', 65);
    text[65] = 'x';
    memset(text + 66, ')', 65);
    text[131] = '\0';
    expect_error(text, LR_INVALID_REQUEST, "nesting deeper than 64 levels", "column 65", NULL);
    memset(text, '-', 100);
    strcpy(text + 100, "x");
    expect_error(text, LR_INVALID_REQUEST, "nesting deeper than 64", NULL, NULL);

    /* 4096 bytes are fine, 4097 are not. */
    for (i = 0; i < 4096; i += 2)
        memcpy(text + i, "x+", 2);
    text[4095] = ' ';
    text[4096] = '\0';
    e = parse(text);
    if (e) {
        int64_t val[EST_VAR_COUNT];
        est_expr *c = est_expr_copy(e);
        isl_ctx *ctx = isl_ctx_alloc();
        default_vals(val);
        CHECK_INT(est_expr_eval(e, val), 3 * 2048);
        CHECK_INT(est_expr_is_affine(e, 0), 1);
        /* the tree is 2048 levels deep on one side: the isl builder walks it too */
        check_aff(ctx, c, "2048 x's");
        est_expr_free(c);
        isl_ctx_free(ctx);
    }
    est_expr_free(e);
    strcpy(text + 4096, "+1");
    lr_error_clear(&err);
    e = est_expr_parse(text, params, NPARAMS, PATH, &err);
    CHECK(e == NULL);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    CHECK_CONTAINS(err.message, "longer than 4096 characters");
    CHECK(strlen(err.message) < 200);
    est_expr_free(e);

    lr_error_clear(&err);
    CHECK(est_expr_parse(NULL, NULL, 0, PATH, &err) == NULL);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    /* A long expression is quoted as an excerpt around the error. */
    memset(text, ' ', 3000);
    strcpy(text + 3000, "x*y");
    expect_error(text, LR_UNSUPPORTED_EXPR, "...", "x*y", "column 3002");
}

/* Strings built to break parsers: each must parse or fail cleanly, with an error
 * that is printable ASCII. Run under ASan/UBSan this is the no-crash guarantee. */
static void test_hostile(void)
{
    static const char *const fixed[] = {
        "",
        " ",
        "(",
        ")",
        ")(",
        "-",
        "+",
        "*",
        "/",
        "%",
        "--",
        "-+-+",
        "x-",
        "x*",
        "*x",
        "x/",
        "/x",
        "((x)",
        "(x))",
        "x(",
        "[",
        "]",
        "[[[",
        "A[",
        "f(",
        "f()",
        "1/0",
        "1%0",
        "0/1",
        ".",
        "..",
        ".x",
        "x.",
        "x..y",
        "threadIdx.",
        "threadIdx..x",
        "blockDim.x.y",
        "\xff\xfe",
        "\xe2\x82\xac",
        "x\x01",
        "\t\n\r\v\f",
        "x\x7f",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "18446744073709551616",
        "1e999999",
        "'x'",
        "\"x\"",
        "x\\",
        "x#y",
        "@x",
        "x`",
        "{x}",
        "x--",
        "x++",
        "x+++y",
        "x/-1",
        "x%-0",
        "-0",
        "0*x*y",
        "x*0*y",
        "blockDim.x*gridDim.x*blockIdx.x*threadIdx.x",
        "blockIdx.x*threadIdx.x",
        "x/(blockDim.x-blockDim.x)",
        "(((((((((((x)))))))))))",
    };
    static char big[6][12000];
    int64_t val[EST_VAR_COUNT];
    isl_ctx *ctx = isl_ctx_alloc();
    size_t i;

    memset(big[0], '(', 10000);
    memset(big[1], '(', 4000);
    memset(big[2], '9', 5000);
    memset(big[3], '9', 4000);
    memset(big[4], '-', 4000);
    for (i = 0; i < 4090; i += 3)
        memcpy(big[5] + i, "(x+", 3);
    default_vals(val);
    for (i = 0; i < sizeof fixed / sizeof fixed[0] + 6; i++) {
        const char *text = i < sizeof fixed / sizeof fixed[0]
                               ? fixed[i]
                               : big[i - sizeof fixed / sizeof fixed[0]];
        lr_error err;
        est_expr *e;
        lr_error_clear(&err);
        e = est_expr_parse(text, params, NPARAMS, PATH, &err);
        CHECK((e != NULL) != (err.code != LR_OK));
        if (e) {
            est_expr *c = est_expr_copy(e);
            CHECK(c != NULL);
            (void)est_expr_eval(e, val);
            (void)est_expr_is_affine(e, 0);
            check_aff(ctx, e, text);
            est_expr_free(c);
            est_expr_free(e);
            continue;
        }
        CHECK(err.message[0] != '\0' && strlen(err.message) < LR_MESSAGE_MAX - 1);
        CHECK(printable(err.message));
        CHECK_STR(err.path, PATH);
    }
    isl_ctx_free(ctx);
}

int main(void)
{
    test_variables();
    test_arithmetic();
    test_parameters_and_folding();
    test_affinity();
    test_to_aff_hand_picked();
    test_to_aff_random();
    test_copy_and_text();
    test_rejections();
    test_casts();
    test_limits();
    test_hostile();
    return check_report("test_expr");
}
