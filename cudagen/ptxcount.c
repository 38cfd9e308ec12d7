/*
 * ptxcount: the instruction mix of a user's kernels (cudagen.h, "instruction mix"),
 * counted in the PTX that NVRTC writes before ptxas compiles it, in the classes of a
 * request's kernel.instructions (fp32, fp64, special, integer, other: the pipes Nsight
 * Compute counts, docs/api.md). Users have NVRTC but no nvdisasm, so the SASS cannot be
 * read; the PTX can, and each PTX instruction is charged what ptxas makes of it for
 * sm_90. Two counts per kernel: `path`, the instructions one thread executes on the
 * likely path (what the model wants), and `all`, every instruction once.
 *
 * What ptxas makes of PTX (measured with nvcc 13.0.88 -O3 -arch=sm_90 and cuobjdump
 * -sass on the H200 machine: one-operation kernels `y[i] = OP(a[i], b[i])` of float
 * and double for /, sqrt, rsqrt, 1/x, sinf, cosf, expf, logf, __fdividef, __expf,
 * __sinf, __fsqrt_rn, fminf/fmaxf, fabsf, casts and constants, each against x * z,
 * and the 18 kernels of lab/2026-11-29-compute, which ptx_counts.py there compares):
 * one SASS instruction per arithmetic, compare, select,
 * load and store; register moves, cvta, neg and abs (operand modifiers), cvt.sat of a
 * float (a .SAT modifier) and widening to 64 bits unsigned vanish; a 64-bit address add
 * becomes the IMAD.WIDE that mul.wide already is; an f64 constant whose low word is not
 * zero costs two moves (no 64-bit immediates in DFMA). The macro-operations expand as
 * the table below says, fast path only (their slow paths, a CALL to a subroutine, run
 * for denormal or huge operands). The pipes are those of Nsight Compute's counters:
 * FMNMX, FSETP, FSEL, SEL and FCHK on the ALU (integer); IMAD and IMAD.WIDE on the FMA
 * pipe but not FP32 (other); F2I, I2F, I2FP and F2F on the XU (special); DSETP on the
 * fp64 pipe but not DFMA/DADD/DMUL (other).
 *
 * The likely path: a thread's weight flows forward through the branches. A branch to a
 * block that only returns (a bounds guard) is not taken; a branch on a range check (a
 * compare against infinity, NaN or a constant of magnitude 2^16 or more, floats, or
 * 2^20 or more, integers: the guards of the library functions' slow paths, such as
 * sinf's Payne-Hanek reduction for |x| >= 105615) goes the way of ordinary values; any
 * other branch is taken half the time. A loop the compiler kept is counted once (its
 * trip count is not in the code): `loops` says how many there are.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudagen_int.h"

/* ---- what one PTX instruction costs ---- */

typedef struct cost {
    double fp32, fp64, special, integer, other;
} cost;

/* The fast path of the macro-operations ptxas expands (SASS for sm_90, nvcc 13.0.88,
 * counted between BSSY and BSYNC without the CALL to the slow path; e.g. div.rn.f32:
 * MUFU.RCP, 5 FFMA, FCHK, BSSY + BRA + BSYNC). Matched on the opcode's start and type;
 * the first match wins, so the .ftz forms come before the others. */
static const struct {
    const char *prefix, *type;
    cost c;
} macros[] = {
    {"div.rn", "f32", {5, 0, 1, 1, 3}},           {"div.full", "f32", {3, 0, 1, 1, 0}},
    {"div.approx", "f32", {3, 0, 1, 1, 0}},       {"div.rn", "f64", {1, 8, 1, 2, 3}},
    {"rcp.rn", "f32", {3, 0, 1, 3, 3}},           {"rcp.rn", "f64", {0, 5, 1, 2, 3}},
    {"sqrt.rn", "f32", {4, 0, 1, 2, 3}},          {"sqrt.rn", "f64", {0, 9, 1, 3, 4}},
    {"rsqrt.approx.ftz", "f64", {0, 0, 1, 0, 0}}, {"rsqrt.approx", "f64", {0, 5, 1, 2, 3}},
    {"rcp.approx.ftz", "f64", {0, 0, 1, 0, 0}},   {"rcp.approx.ftz", "f32", {0, 0, 1, 0, 0}},
    {"rcp.approx", "f32", {2, 0, 1, 1, 0}},       {"sqrt.approx.ftz", "f32", {0, 0, 1, 0, 0}},
    {"sqrt.approx", "f32", {2, 0, 1, 1, 0}},      {"rsqrt.approx.ftz", "f32", {0, 0, 1, 0, 0}},
    {"rsqrt.approx", "f32", {2, 0, 1, 1, 0}},     {"ex2.approx.ftz", "f32", {0, 0, 1, 0, 0}},
    {"ex2.approx", "f32", {2, 0, 1, 1, 0}},       {"lg2.approx.ftz", "f32", {0, 0, 1, 0, 0}},
    {"lg2.approx", "f32", {2, 0, 1, 1, 0}},       {"sin.approx", "f32", {1, 0, 1, 0, 0}},
    {"cos.approx", "f32", {1, 0, 1, 0, 0}},       {"tanh.approx", "f32", {0, 0, 1, 0, 0}},
};

/* Whether the opcode op has the dot-separated part part ("ftz" in "add.rn.ftz.f32"). */
static int has_part(const char *op, const char *part)
{
    size_t n = strlen(part);
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.'))
        if (strncmp(p + 1, part, n) == 0 && (p[1 + n] == '.' || p[1 + n] == '\0'))
            return 1;
    return 0;
}

/* The last part of op ("f32" of "fma.rn.f32"), where the type is written. */
static const char *type_of(const char *op)
{
    const char *d = strrchr(op, '.');
    return d ? d + 1 : "";
}

/* Whether the first word of op (before any dot) is one of the space-separated names. */
static int op_is(const char *op, const char *names)
{
    size_t n = strcspn(op, ".");
    for (const char *w = names; *w;) {
        size_t m = strcspn(w, " ");
        if (m == n && strncmp(w, op, n) == 0)
            return 1;
        w += m + (w[m] == ' ');
    }
    return 0;
}

/* The moves an f64 constant of args costs: two per 0d constant whose low word is not
 * zero (DFMA takes a 32-bit immediate as the high word only). */
static double f64_constant_moves(const char *args)
{
    double moves = 0;
    for (const char *p = strstr(args, "0d"); p; p = strstr(p + 2, "0d")) {
        if (p > args && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        unsigned long long bits = strtoull(p + 2, NULL, 16);
        if (bits & 0xffffffffull)
            moves += 2;
    }
    return moves;
}

/* cvt.<modes>.D.S: conversions between integers and floats, and of a float's
 * precision, run on the XU; a float's own saturation or rounding mode folds into the
 * instruction before it; integer widening is a sign extension (signed) or nothing. */
static cost cvt_cost(const char *op)
{
    char d[8] = "", s[8] = "";
    const char *last = strrchr(op, '.'), *prev = last;
    while (prev > op && prev[-1] != '.')
        prev--;
    if (!last || prev <= op)
        return (cost){0, 0, 0, 0, 1};
    snprintf(d, sizeof d, "%.*s", (int)(last - prev), prev);
    snprintf(s, sizeof s, "%s", last + 1);
    int df = d[0] == 'f' || d[0] == 'b', sf = s[0] == 'f' || s[0] == 'b';
    if (!strcmp(d, "f16") || !strcmp(s, "f16") || !strcmp(d, "bf16") || !strcmp(s, "bf16"))
        return (cost){0, 0, 0, 0, 1};
    if (df && sf && !strcmp(d, s))
        return has_part(op, "rni") || has_part(op, "rzi") || has_part(op, "rmi") ||
                       has_part(op, "rpi")
                   ? (cost){0, 0, 1, 0, 0}
                   : (cost){0, 0, 0, 0, 0};
    if (df || sf)
        return (cost){0, 0, 1, 0, 0};
    /* integer to integer: s64 of s32 needs the sign word; the rest is register naming */
    return d[1] == '6' && s[1] != '6' && s[0] == 's' ? (cost){0, 0, 0, 1, 0}
                                                     : (cost){0, 0, 0, 0, 0};
}

/* Floating-point arithmetic, compares and selects of type t ("f32", "f64"). */
static int float_cost(const char *op, const char *t, const char *args, cost *c)
{
    int f64 = !strcmp(t, "f64");
    if (strcmp(t, "f32") && !f64)
        return 0;
    double moves = f64 ? f64_constant_moves(args) : 0;
    if (op_is(op, "add sub mul fma mad"))
        *c = f64 ? (cost){0, 1, 0, 0, moves} : (cost){1, 0, 0, 0, 0};
    else if (op_is(op, "neg abs mov"))
        *c = (cost){0, 0, 0, 0, moves};
    else if (op_is(op, "min max setp"))
        *c = f64 ? (cost){0, 0, 0, 0, 1 + moves} : (cost){0, 0, 0, 1, 0};
    else if (op_is(op, "selp copysign testp"))
        *c = (cost){0, 0, 0, f64 ? 2 : 1, moves};
    else
        return 0;
    return 1;
}

/* Integer and bit operations of type t: 32 bits one ALU instruction, 64 bits two;
 * multiplications are IMAD (the FMA pipe, not fp32); a 64-bit add is an address. */
static int integer_cost(const char *op, const char *t, cost *c)
{
    if (!t[0] || !strchr("sub", t[0]) || !isdigit((unsigned char)t[1]))
        return op_is(op, "and or xor not") && !strcmp(t, "pred")
                   ? (*c = (cost){0, 0, 0, 1, 0}, 1)
                   : 0;
    int wide = t[1] == '6';
    if (op_is(op, "mul mad mul24 mad24"))
        *c = (cost){0, 0, 0, 0, 1};
    else if (op_is(op, "add sub") && wide)
        *c = (cost){0, 0, 0, 0, 1};
    else if (op_is(op, "mov"))
        *c = (cost){0, 0, 0, 0, 0};
    else if (op_is(op, "add sub and or xor not shl shr min max abs neg bfe bfi prmt popc "
                       "clz brev lop3 shf setp selp slct cnot sad"))
        *c = (cost){0, 0, 0, wide ? 2 : 1, 0};
    else
        return 0;
    return 1;
}

/* The cost of one PTX instruction op (its opcode with modifiers) with arguments args. */
static cost ptx_cost(const char *op, const char *args)
{
    const char *t = type_of(op);
    cost c;
    for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++)
        if (strncmp(op, macros[i].prefix, strlen(macros[i].prefix)) == 0 &&
            !strcmp(t, macros[i].type))
            return macros[i].c;
    if (op_is(op, "cvt"))
        return cvt_cost(op);
    if (op_is(op, "cvta"))
        return (cost){0, 0, 0, 0, 0};
    if (op_is(op, "mov") &&
        (strstr(args, "%tid") || strstr(args, "%ctaid") || strstr(args, "%ntid") ||
         strstr(args, "%nctaid") || strstr(args, "%laneid") || strstr(args, "%clock")))
        return (cost){0, 0, 0, 0, 1}; /* S2R, S2UR or LDC of a special register */
    if (float_cost(op, t, args, &c) || integer_cost(op, t, &c))
        return c;
    if (op_is(op, "mov"))
        return (cost){0, 0, 0, 0, 0};
    if (op_is(op, "sin cos ex2 lg2 rcp sqrt rsqrt tanh"))
        return (cost){0, 0, 1, 0, 0};
    return (cost){0, 0, 0, 0, 1}; /* loads, stores, branches, barriers, shuffles, ... */
}

/* ---- the likely path ---- */

/* What a predicate register says, from the setp that last wrote it. */
enum { PRED_UNKNOWN = -1, PRED_TRUE_ABNORMAL = 0, PRED_TRUE_NORMAL = 1 };

/* Whether the literal s is extreme: a float's infinity, NaN or magnitude >= 2^16, an
 * integer's magnitude >= 2^20. *neg: its sign. */
static int extreme_literal(const char *s, int *neg)
{
    double v;
    while (*s == ' ')
        s++;
    if ((s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) && isxdigit((unsigned char)s[2])) {
        uint32_t bits = (uint32_t)strtoul(s + 2, NULL, 16);
        float f;
        memcpy(&f, &bits, sizeof f);
        *neg = f < 0;
        return isnan(f) || fabsf(f) >= 65536.0f;
    }
    if ((s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) && isxdigit((unsigned char)s[2])) {
        uint64_t bits = strtoull(s + 2, NULL, 16);
        memcpy(&v, &bits, sizeof v);
        *neg = v < 0;
        return isnan(v) || fabs(v) >= 65536.0;
    }
    if (!(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
        return 0;
    v = (double)strtoll(s, NULL, 0);
    *neg = v < 0;
    return fabs(v) >= 1048576.0;
}

/* What "setp.CMP.T p, a, b" says when p is true: PRED_TRUE_NORMAL when it holds for
 * ordinary values (a below a huge bound, not infinite), PRED_TRUE_ABNORMAL when it marks
 * the rare case, PRED_UNKNOWN when it is no range check. */
static int setp_meaning(const char *op, const char *args)
{
    char cmp[8];
    const char *c1 = strchr(args, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    int neg = 0, first;
    if (sscanf(op, "setp.%7[a-z]", cmp) != 1 || !c1)
        return PRED_UNKNOWN;
    if (!strcmp(cmp, "nan"))
        return PRED_TRUE_ABNORMAL;
    if (!strcmp(cmp, "num"))
        return PRED_TRUE_NORMAL;
    if (!c2)
        return PRED_UNKNOWN;
    if (extreme_literal(c2 + 1, &neg))
        first = 0;
    else if (extreme_literal(c1 + 1, &neg))
        first = 1; /* the bound on the left: a < b reads b > a */
    else
        return PRED_UNKNOWN;
    if (!strncmp(cmp, "eq", 2))
        return PRED_TRUE_ABNORMAL;
    if (!strncmp(cmp, "ne", 2))
        return PRED_TRUE_NORMAL;
    int below = !strncmp(cmp, "lt", 2) || !strncmp(cmp, "le", 2) || !strcmp(cmp, "lo") ||
                !strcmp(cmp, "ls");
    /* "x below a huge positive bound" or "x above a huge negative one" is ordinary */
    return (below != first) != neg ? PRED_TRUE_NORMAL : PRED_TRUE_ABNORMAL;
}

/* One statement of an entry's body: a label, or an instruction with its guard. */
typedef struct stmt {
    int label;      /* 1: "name:" (the name in args) */
    int neg;        /* guard "@!%p" */
    char op[48];    /* "fma.rn.f32" */
    char guard[24]; /* "%p3", "" when unguarded */
    char args[256]; /* the operands, cut at 255 characters (only constants matter) */
} stmt;

typedef struct body {
    stmt *s;
    int n, cap;
} body;

/* Appends one statement's text (a label, or "[@p] op args") to b. */
static int add_stmt(body *b, const char *text, size_t len, int label)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 256;
        stmt *s = cap <= CG_PTX_MAX_STATEMENTS ? realloc(b->s, (size_t)cap * sizeof *s) : NULL;
        if (!s)
            return -1;
        b->s = s;
        b->cap = cap;
    }
    stmt *st = memset(&b->s[b->n++], 0, sizeof(stmt));
    st->label = label;
    if (label) {
        snprintf(st->args, sizeof st->args, "%.*s", (int)len, text);
        return 0;
    }
    const char *p = text, *end = text + len;
    if (*p == '@') {
        st->neg = p[1] == '!';
        p += 1 + st->neg;
        size_t g = strcspn(p, " \t");
        snprintf(st->guard, sizeof st->guard, "%.*s", (int)(g < (size_t)(end - p) ? g : 0), p);
        p += g;
        while (p < end && isspace((unsigned char)*p))
            p++;
    }
    size_t o = strcspn(p, " \t\n");
    if (o > (size_t)(end - p))
        o = (size_t)(end - p);
    snprintf(st->op, sizeof st->op, "%.*s", (int)o, p);
    p += o;
    while (p < end && isspace((unsigned char)*p))
        p++;
    size_t a = 0;
    for (; p < end && a + 1 < sizeof st->args; p++) /* newlines of a call become spaces */
        st->args[a++] = isspace((unsigned char)*p) ? ' ' : *p;
    st->args[a] = '\0';
    return 0;
}

/* The body of entry name in ptx as statements into b; 0, 1 when ptx has no such
 * entry, -1 out of memory. Comments, directives (.reg, .pragma, .loc) and the braces
 * of call scopes are left out; a statement ends at its ';', which may be lines later. */
static int parse_entry(const char *ptx, const char *name, body *b)
{
    size_t n = strlen(name);
    const char *p = ptx;
    for (;; p += 7) {
        if (!(p = strstr(p, ".entry ")))
            return 1;
        if (!strncmp(p + 7, name, n) && (p[7 + n] == '(' || isspace((unsigned char)p[7 + n])))
            break;
    }
    if (!(p = strstr(p, "\n{")))
        return 1;
    p += 2;
    int depth = 0;
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!strncmp(p, "//", 2)) {
            p += strcspn(p, "\n");
            continue;
        }
        if (*p == '{' || *p == '}') {
            if (*p == '}' && depth-- == 0)
                return 0;
            depth += *p == '{';
            p++;
            continue;
        }
        size_t line = strcspn(p, "\n");
        if (line > 0 && p[line - 1] == ':' && !memchr(p, ';', line)) {
            if (add_stmt(b, p, line - 1, 1))
                return -1;
            p += line;
            continue;
        }
        size_t len = strcspn(p, ";");
        if (!p[len])
            break;
        if (*p != '.' && add_stmt(b, p, len, 0))
            return -1;
        p += len + 1;
    }
    return 0;
}

/* ---- contraction: ptxas fuses a mul and the add that alone uses it into one FMA ---- */

/* Uses of each virtual register in an entry: an open-addressing table of the names. */
typedef struct uses {
    struct use {
        char name[16];  /* "%f12"; "" empty */
        int count;      /* operands naming it, its definitions included */
        int last;       /* the statement of the last one */
        int imm;        /* set by a mov of an f32 constant (0f...) */
        uint32_t value; /* that constant's bits */
    } * slot;
    size_t cap;
} uses;

static struct use *use_slot(uses *u, const char *name, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
    for (size_t i = h % u->cap;; i = (i + 1) % u->cap) {
        struct use *s = &u->slot[i];
        if (!s->name[0] || (strlen(s->name) == len && !strncmp(s->name, name, len)))
            return s;
    }
}

/* Counts every register operand of b (a table of twice the operands: never full). */
static int count_uses(const body *b, uses *u)
{
    u->cap = 1;
    for (int i = 0; i < b->n; i++)
        for (const char *p = strchr(b->s[i].args, '%'); p; p = strchr(p + 1, '%'))
            u->cap++;
    u->cap *= 2;
    if (!(u->slot = calloc(u->cap, sizeof *u->slot)))
        return -1;
    for (int i = 0; i < b->n; i++) {
        if (b->s[i].label)
            continue;
        for (const char *p = strchr(b->s[i].args, '%'); p; p = strchr(p + 1, '%')) {
            size_t len = 1 + strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789_");
            if (len >= sizeof u->slot->name)
                continue;
            struct use *s = use_slot(u, p, len);
            snprintf(s->name, sizeof s->name, "%.*s", (int)len, p);
            s->count++;
            s->last = i;
            if (p == b->s[i].args && op_is(b->s[i].op, "mov") && strstr(b->s[i].args, ", 0f")) {
                s->imm = 1;
                s->value = (uint32_t)strtoul(strstr(b->s[i].args, ", 0f") + 4, NULL, 16);
            }
        }
    }
    return 0;
}

/* Whether op rounds explicitly (.rn, .rz, .rm, .rp): ptxas then keeps it as written. */
static int rounds(const char *op)
{
    return has_part(op, "rn") || has_part(op, "rz") || has_part(op, "rm") || has_part(op, "rp");
}

/* Whether the mul at statement i is fused into the add or sub that is its result's only
 * use (mul.f32 and add.f32 without a rounding mode may contract, PTX ISA "mul"): then
 * the pair is one FFMA (DFMA), charged to the add. */
static int contracted(const body *b, uses *u, int i)
{
    const stmt *s = &b->s[i];
    if (!op_is(s->op, "mul") || rounds(s->op) ||
        (strcmp(type_of(s->op), "f32") && strcmp(type_of(s->op), "f64")))
        return 0;
    size_t len = strcspn(s->args, ", ");
    if (s->args[0] != '%' || len >= 16)
        return 0;
    const struct use *d = use_slot(u, s->args, len);
    if (d->count != 2 || d->last <= i)
        return 0;
    const stmt *a = &b->s[d->last];
    return op_is(a->op, "add sub") && !rounds(a->op) && !a->guard[0] && !s->guard[0] &&
           !strcmp(type_of(a->op), type_of(s->op));
}

static void add_cost(cg_instruction_mix *m, cost c, double w)
{
    m->fp32 += w * c.fp32;
    m->fp64 += w * c.fp64;
    m->special += w * c.special;
    m->integer += w * c.integer;
    m->other += w * c.other;
}

/* The labels of a body sorted by name, so that a branch finds its target in log n
 * (a generated kernel has thousands of branches). */
typedef struct label_index {
    const char *name;
    int at;
} label_index;

static int label_cmp(const void *a, const void *b)
{
    return strcmp(((const label_index *)a)->name, ((const label_index *)b)->name);
}

/* The sorted labels of b (malloc'd, *n of them), or NULL when out of memory. */
static label_index *index_labels(const body *b, int *n)
{
    label_index *l = malloc(((size_t)b->n + 1) * sizeof *l);
    *n = 0;
    for (int i = 0; l && i < b->n; i++)
        if (b->s[i].label)
            l[(*n)++] = (label_index){b->s[i].args, i};
    if (l)
        qsort(l, (size_t)*n, sizeof *l, label_cmp);
    return l;
}

/* The statement index of label name, or -1. */
static int find_label(const label_index *l, int n, const char *name)
{
    label_index key = {name, 0};
    const label_index *f = bsearch(&key, l, (size_t)n, sizeof *l, label_cmp);
    return f ? f->at : -1;
}

/* Whether the first instruction at or after statement i returns. */
static int returns_at(const body *b, int i)
{
    while (i < b->n && b->s[i].label)
        i++;
    return i < b->n && (op_is(b->s[i].op, "ret") || op_is(b->s[i].op, "exit"));
}

/* The predicate number of "%pN" (-1 for other names, or past max). */
static int pred_index(const char *name, int max)
{
    char *end;
    if (strncmp(name, "%p", 2) || !isdigit((unsigned char)name[2]))
        return -1;
    long v = strtol(name + 2, &end, 10);
    return (*end && *end != ',' && *end != '|' && !isspace((unsigned char)*end)) || v >= max
               ? -1
               : (int)v;
}

/* The share of a thread's weight the branch at statement i sends to its target t. */
static double taken_share(const body *b, int i, int t, const signed char *meaning, int np)
{
    const stmt *s = &b->s[i];
    if (!s->guard[0])
        return 1;
    if (returns_at(b, t))
        return 0; /* a bounds guard: the thread goes on */
    int p = pred_index(s->guard, np);
    if (p < 0 || meaning[p] == PRED_UNKNOWN)
        return 0.5;
    return (meaning[p] == PRED_TRUE_NORMAL) != s->neg ? 1 : 0;
}

/* Forward branches that skip at most this many instructions (and no label or branch)
 * become predicated instructions in SASS: no branch, the skipped ones issued by every
 * thread (sinf's quadrant selection: "@P1 FFMA"). */
#define PREDICATED_MAX 4

/* Whether the branch at i to t (t > i) is short enough for ptxas to predicate. */
static int predicated(const body *b, int i, int t)
{
    int n = 0;
    for (int j = i + 1; j < t; j++)
        if (b->s[j].label || op_is(b->s[j].op, "bra ret exit call") || ++n > PREDICATED_MAX)
            return 0;
    return 1;
}

/* The walk's state: the weight falling through, what reaches each label, what the
 * predicates say, and the registers' uses. */
typedef struct walker {
    const body *b;
    double w, *pending;
    signed char *meaning;
    int np;
    uses u;
    label_index *labels;
    int nlabels;
    cg_kernel_mix *out;
    uint32_t constant[256]; /* f32 constants already in a register */
    int nconst;
} walker;

/* Moves for f32 constants: an FFMA (FADD, FSEL ...) holds one 32-bit immediate; a
 * further constant operand (a literal, or a register that mov set to one) needs a
 * register, which ptxas fills once per kernel for each value. */
static double f32_constant_moves(walker *k, const stmt *s)
{
    if (strcmp(type_of(s->op), "f32") || !op_is(s->op, "fma add sub mul selp setp min max"))
        return 0;
    int n = 0;
    double extra = 0;
    for (const char *p = strchr(s->args, ','); p; p = strchr(p + 1, ',')) {
        const char *a = p + 1 + strspn(p + 1, " ");
        size_t len = strcspn(a, ", ");
        uint32_t v;
        if (!strncmp(a, "0f", 2))
            v = (uint32_t)strtoul(a + 2, NULL, 16);
        else if (*a == '%' && len < 16 && use_slot(&k->u, a, len)->imm)
            v = use_slot(&k->u, a, len)->value;
        else
            continue;
        if (n++ == 0)
            continue; /* the instruction's immediate */
        int known = 0;
        for (int j = 0; j < k->nconst && !known; j++)
            known = k->constant[j] == v;
        if (!known && k->nconst < (int)(sizeof k->constant / sizeof *k->constant))
            k->constant[k->nconst++] = v;
        extra += !known;
    }
    return extra;
}

/* A branch at statement i: where the thread's weight goes, and what SASS adds. */
static void walk_branch(walker *k, int i)
{
    const stmt *s = &k->b->s[i];
    char target[256];
    snprintf(target, sizeof target, "%.*s", (int)strcspn(s->args, " ;"), s->args);
    int t = find_label(k->labels, k->nlabels, target);
    if (t < 0)
        return;
    if (t <= i) {                  /* a loop: its body counted once, and the thread leaves it */
        k->out->loops += k->w > 0; /* loops of a path never taken do not matter */
        k->w = s->guard[0] ? k->w : 0;
        return;
    }
    if (s->guard[0] && predicated(k->b, i, t)) { /* no branch: take back its cost */
        k->out->all.other -= 1;
        k->out->path.other -= k->w;
        return;
    }
    double q = taken_share(k->b, i, t, k->meaning, k->np);
    if (s->guard[0] && !returns_at(k->b, t)) { /* BSSY and BSYNC around the branch */
        k->out->all.other += 2;
        k->out->path.other += 2 * k->w;
    }
    k->pending[t] += k->w * q;
    k->w *= 1 - q;
}

/* One instruction at statement i: its cost, the predicate it writes, where it goes. */
static void walk_instruction(walker *k, int i)
{
    const stmt *s = &k->b->s[i];
    cost c = contracted(k->b, &k->u, i) ? (cost){0, 0, 0, 0, 0} : ptx_cost(s->op, s->args);
    c.other += f32_constant_moves(k, s);
    add_cost(&k->out->all, c, 1);
    add_cost(&k->out->path, c, k->w);
    int p = pred_index(s->args, k->np); /* the predicate this instruction writes */
    if (p >= 0 && !op_is(s->op, "bra"))
        k->meaning[p] = op_is(s->op, "setp") && !s->guard[0]
                            ? (signed char)setp_meaning(s->op, s->args)
                            : PRED_UNKNOWN;
    k->out->calls += op_is(s->op, "call");
    if (op_is(s->op, "ret exit") && !s->guard[0])
        k->w = 0;
    else if (op_is(s->op, "bra"))
        walk_branch(k, i);
}

/* Walks b in order: a thread's weight falls through, forward branches carry their share
 * to their label, backward ones (loops) are counted in out->loops and carry nothing. */
static int walk(const body *b, cg_kernel_mix *out)
{
    walker k = {.b = b, .w = 1, .np = 1 << 16, .out = out};
    k.pending = calloc((size_t)b->n + 1, sizeof *k.pending);
    k.meaning = malloc((size_t)k.np);
    k.labels = index_labels(b, &k.nlabels);
    int rc = !k.pending || !k.meaning || !k.labels || count_uses(b, &k.u) ? -1 : 0;
    if (rc == 0) {
        memset(k.meaning, PRED_UNKNOWN, (size_t)k.np);
        for (int i = 0; i < b->n; i++) {
            if (b->s[i].label)
                k.w += k.pending[i];
            else
                walk_instruction(&k, i);
        }
    }
    free(k.pending);
    free(k.meaning);
    free(k.u.slot);
    free(k.labels);
    return rc;
}

int cg_ptx_count(const char *ptx, const char *entry, cg_kernel_mix *out, lr_error *err)
{
    body b = {0};
    memset(out, 0, sizeof *out);
    int rc = parse_entry(ptx ? ptx : "", entry, &b);
    if (rc == 0 && walk(&b, out))
        rc = -1;
    free(b.s);
    if (rc < 0)
        return lr_error_set(err, LR_NO_MEMORY, NULL,
                            "out of memory counting the instructions of %.120s (at most %d PTX "
                            "statements)",
                            entry, CG_PTX_MAX_STATEMENTS);
    if (rc > 0)
        return lr_error_set(err, LR_INTERNAL, NULL, "NVRTC's PTX has no entry %.120s", entry);
    return 0;
}
