/*
 * test_expr: the address-expression language of MODEL.md section 1 (estimator/expr.h).
 * Golden cases: text in, value / affinity / isl text / error out. The isl strings
 * pinned here were checked by hand against isl 0.25's parser.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* isl text of text with x -> tx, y -> ty, z -> tz, blockIdx.x -> bx, threadIdx.x ->
 * tx and the launch constants as literals (blockDim.x = 128, gridDim.x = 7). */
static char *isl_with(const char *text, const char *x_text)
{
    const char *vt[EST_VAR_COUNT] = {0};
    est_expr *e = parse(text);
    char *s;
    int v;
    for (v = 0; v < EST_VAR_COUNT; v++)
        vt[v] = "q";
    vt[EST_VAR_X] = x_text;
    vt[EST_VAR_Y] = "ty";
    vt[EST_VAR_Z] = "tz";
    vt[EST_VAR_THREADIDX_X] = "tx";
    vt[EST_VAR_BLOCKIDX_X] = "bx";
    vt[EST_VAR_BLOCKDIM_X] = "128";
    vt[EST_VAR_BLOCKDIM_Y] = "(4)";
    vt[EST_VAR_GRIDDIM_X] = "7";
    s = e ? est_expr_print_isl(e, vt) : NULL;
    est_expr_free(e);
    return s;
}

#define CHECK_ISL(text, x_text, want)                                                          \
    do {                                                                                       \
        char *s_ = isl_with(text, x_text);                                                     \
        CHECK_STR(s_, want);                                                                   \
        free(s_);                                                                              \
    } while (0)

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
    CHECK_ISL("w*2 + 1 - nx_pad/4", "tx", "245");
    CHECK_ISL("2*3*x", "tx", "6*tx");
    CHECK_ISL("x*(w - 128)", "tx", "2*tx");
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

static void test_isl(void)
{
    CHECK_ISL("(x+1)/2", "(2*tx + 1)", "floor(((2*tx + 1) + 1)/2)");
    CHECK_ISL("x % 4", "tx", "((tx) mod 4)");
    CHECK_ISL("x - 3", "tx", "tx - 3");
    CHECK_ISL("x + -3", "tx", "tx + (-3)");
    CHECK_ISL("-3", "tx", "(-3)");
    CHECK_ISL("-3*x + y", "tx", "(-3*tx) + ty");
    CHECK_ISL("y - x*neg", "tx", "ty - (-3*tx)");
    CHECK_ISL("y - (x + 1)", "tx", "ty - (tx + 1)");
    CHECK_ISL("y - x + 1", "tx", "ty - tx + 1");
    CHECK_ISL("2*(x + 1)", "tx", "2*(tx + 1)");
    CHECK_ISL("x*2", "2*tx + 1", "2*(2*tx + 1)");
    CHECK_ISL("-x", "tx", "-tx");
    CHECK_ISL("-(x + 1)", "tx", "-(tx + 1)");
    CHECK_ISL("blockIdx.x*blockDim.x + threadIdx.x", "tx", "128*bx + tx");
    CHECK_ISL("threadIdx.x + blockIdx.x*blockDim.x + (y*w)", "tx", "tx + 128*bx + 130*ty");
    CHECK_ISL("x / (blockDim.x + 1)", "tx", "floor((tx)/129)");
    CHECK_ISL("(x + y) % (blockDim.y*2)", "tx", "((tx + ty) mod 8)");
    CHECK_ISL("x + blockDim.x*gridDim.x", "tx", "tx + 896");
    CHECK_ISL("3*((x/2) % 5)", "tx", "3*((floor((tx)/2)) mod 5)");
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
        const char *vt[EST_VAR_COUNT] = {0};
        char *s;
        est_expr *c = est_expr_copy(e);
        default_vals(val);
        CHECK_INT(est_expr_eval(e, val), 3 * 2048);
        CHECK_INT(est_expr_is_affine(e, 0), 1);
        vt[EST_VAR_X] = "tx";
        s = est_expr_print_isl(e, vt);
        CHECK(s && strlen(s) == 2048 * 2 + 2047 * 3);
        free(s);
        est_expr_free(c);
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
    const char *vt[EST_VAR_COUNT];
    int64_t val[EST_VAR_COUNT];
    size_t i;
    int v;

    memset(big[0], '(', 10000);
    memset(big[1], '(', 4000);
    memset(big[2], '9', 5000);
    memset(big[3], '9', 4000);
    memset(big[4], '-', 4000);
    for (i = 0; i < 4090; i += 3)
        memcpy(big[5] + i, "(x+", 3);
    for (v = 0; v < EST_VAR_COUNT; v++)
        vt[v] = "1";
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
            char *s = est_expr_print_isl(e, vt);
            est_expr *c = est_expr_copy(e);
            CHECK(s != NULL && c != NULL);
            (void)est_expr_eval(e, val);
            (void)est_expr_is_affine(e, 0);
            free(s);
            est_expr_free(c);
            est_expr_free(e);
            continue;
        }
        CHECK(err.message[0] != '\0' && strlen(err.message) < LR_MESSAGE_MAX - 1);
        CHECK(printable(err.message));
        CHECK_STR(err.path, PATH);
    }
}

int main(void)
{
    test_variables();
    test_arithmetic();
    test_parameters_and_folding();
    test_affinity();
    test_isl();
    test_copy_and_text();
    test_rejections();
    test_limits();
    test_hostile();
    return check_report("test_expr");
}
