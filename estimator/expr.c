/*
 * expr: parser, evaluator and isl builder for the address-expression language of
 * docs/model.md §1 (interface and grammar in expr.h); cudagen/print.c prints the
 * tree as CUDA through the read-only view at the end of this file.
 *
 * The parser is a plain recursive descent over the bytes of the text (the tokens are
 * single characters, numbers and names, so no separate lexer pays for itself). It
 * builds a small tree, folds constants as it goes and enforces the language rules
 * (products, divisors) at the operator that breaks them, so every error can name the
 * column and token. Each node records the variables of its subtree, which makes the
 * "launch-constant" test of the rules, est_expr_uses and est_expr_is_affine O(1) per
 * node. Columns in messages are 1-based byte offsets.
 */
#include "expr.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/val.h>

/* Longest expression accepted, in bytes. Real stencil accesses are well under 200
 * characters; 4096 leaves room for generated code while bounding the work and,
 * since every operator needs at least one byte per operand, the height of the tree
 * (about 2048) that the recursive walkers below descend. */
#define EXPR_TEXT_MAX 4096
/* Deepest nesting of parentheses and unary signs. The parser recurses once per
 * level; 64 is far beyond what anyone writes by hand or a generator emits, and keeps
 * the parser's stack use small on worker threads. */
#define EXPR_DEPTH_MAX 64
/* Largest literal or parameter magnitude: 2^53, the integers every JSON
 * implementation represents exactly, so what the client sent is what we compute. */
#define EXPR_LITERAL_MAX ((int64_t)1 << 53)
/* How much of the expression (and of one token) an error message quotes: enough to
 * recognise it, short enough to fit LR_MESSAGE_MAX with the explanation. */
#define QUOTE_MAX 80
#define TOKEN_QUOTE_MAX 24

/* blockDim.* and gridDim.* are fixed by the launch, so they count as constants for
 * the product and divisor rules and for affinity. */
#define LAUNCH_VARS                                                                            \
    (EST_VAR_BIT(EST_VAR_BLOCKDIM_X) | EST_VAR_BIT(EST_VAR_BLOCKDIM_Y) |                       \
     EST_VAR_BIT(EST_VAR_BLOCKDIM_Z) | EST_VAR_BIT(EST_VAR_GRIDDIM_X) |                        \
     EST_VAR_BIT(EST_VAR_GRIDDIM_Y) | EST_VAR_BIT(EST_VAR_GRIDDIM_Z))

static const char *const var_names[EST_VAR_COUNT] = {
    "x",           "y",           "z",           "tidx",       "tidy",       "tidz",
    "threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z",
    "blockDim.x",  "blockDim.y",  "blockDim.z",  "gridDim.x",  "gridDim.y",  "gridDim.z",
};

/* The node kinds are the operators expr.h shows to printers, under short names. */
typedef est_expr_op node_kind;
#define N_NUM EST_OP_NUM
#define N_VAR EST_OP_VAR
#define N_NEG EST_OP_NEG
#define N_ADD EST_OP_ADD
#define N_SUB EST_OP_SUB
#define N_MUL EST_OP_MUL
#define N_DIV EST_OP_FLOORDIV
#define N_MOD EST_OP_FLOORMOD

typedef struct est_expr_node {
    node_kind kind;
    int64_t num;        /* N_NUM */
    est_var var;        /* N_VAR */
    uint32_t uses;      /* EST_VAR_BIT()s of the variables in this subtree */
    struct est_expr_node *l, *r; /* operands; N_NEG uses l only */
} node;

struct est_expr {
    char *text; /* the source, for messages and est_expr_text */
    node *root;
};

typedef struct parser {
    const char *text;
    size_t len;
    size_t pos; /* next byte to read */
    int depth;  /* current nesting of '(' and unary signs */
    const est_param *params;
    size_t nparams;
    const char *path;
    lr_error *err;
} parser;

const char *est_var_name(est_var v)
{
    if ((unsigned)v >= EST_VAR_COUNT)
        return "?";
    return var_names[v];
}

/* ---- nodes ---- */

static void node_free(node *n)
{
    if (!n)
        return;
    node_free(n->l);
    node_free(n->r);
    free(n);
}

static node *node_new(node_kind kind, node *l, node *r)
{
    node *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->kind = kind;
    n->l = l;
    n->r = r;
    n->uses = (l ? l->uses : 0) | (r ? r->uses : 0);
    return n;
}

static node *node_copy(const node *n)
{
    node *c;
    if (!n)
        return NULL;
    c = node_new(n->kind, NULL, NULL);
    if (!c)
        return NULL;
    *c = *n;
    c->l = c->r = NULL;
    if ((n->l && !(c->l = node_copy(n->l))) || (n->r && !(c->r = node_copy(n->r)))) {
        node_free(c);
        return NULL;
    }
    return c;
}

static int is_launch_constant(const node *n)
{
    return (n->uses & ~(uint32_t)LAUNCH_VARS) == 0;
}

/* ---- arithmetic ---- */

/* Evaluation wraps on overflow instead of invoking undefined behaviour: accepted
 * literals are below 2^53 and real index values far smaller, so a wrap means the
 * caller passed nonsense, and it must not be able to crash the daemon. */
#define WRAP(a, op, b) ((int64_t)((uint64_t)(a)op(uint64_t)(b)))

/* Floor division (est_floordiv) and its non-negative remainder, d > 0: indices such
 * as x-1 are negative at the domain edge, where C's truncation would give the wrong
 * cell. */
static int64_t floor_mod(int64_t a, int64_t d)
{
    int64_t r = a % d;
    return r < 0 ? r + d : r;
}

static int64_t node_eval(const node *n, const int64_t val[EST_VAR_COUNT])
{
    int64_t d;
    switch (n->kind) {
    case N_NUM:
        return n->num;
    case N_VAR:
        return val[n->var];
    case N_NEG:
        return WRAP(0, -, node_eval(n->l, val));
    case N_ADD:
        return WRAP(node_eval(n->l, val), +, node_eval(n->r, val));
    case N_SUB:
        return WRAP(node_eval(n->l, val), -, node_eval(n->r, val));
    case N_MUL:
        return WRAP(node_eval(n->l, val), *, node_eval(n->r, val));
    case N_DIV:
    case N_MOD:
        d = node_eval(n->r, val);
        if (d <= 0)
            d = 1; /* documented in expr.h; the parser and launch checks prevent it */
        return n->kind == N_DIV ? est_floordiv(node_eval(n->l, val), d)
                                : floor_mod(node_eval(n->l, val), d);
    }
    return 0;
}

/* node_eval, but 0 when any intermediate value overflows int64 (then *out is unset). */
static int fold(node_kind kind, int64_t a, int64_t b, int64_t *out);

static int node_eval_checked(const node *n, const int64_t val[EST_VAR_COUNT], int64_t *out)
{
    int64_t a, b = 0;
    if (n->kind == N_NUM || n->kind == N_VAR) {
        *out = n->kind == N_NUM ? n->num : val[n->var];
        return 1;
    }
    if (!node_eval_checked(n->l, val, &a) ||
        (n->kind != N_NEG && !node_eval_checked(n->r, val, &b)))
        return 0;
    if ((n->kind == N_DIV || n->kind == N_MOD) && b <= 0)
        b = 1; /* same rule as node_eval */
    return fold(n->kind, a, b, out);
}

int est_expr_eval_checked(const est_expr *e, const int64_t val[EST_VAR_COUNT], int64_t *out)
{
    return node_eval_checked(e->root, val, out) ? 0 : -1;
}

/* Folds a constant operation at parse time; 0 on int64 overflow. */
static int fold(node_kind kind, int64_t a, int64_t b, int64_t *out)
{
    switch (kind) {
    case N_NEG:
        return !__builtin_sub_overflow((int64_t)0, a, out);
    case N_ADD:
        return !__builtin_add_overflow(a, b, out);
    case N_SUB:
        return !__builtin_sub_overflow(a, b, out);
    case N_MUL:
        return !__builtin_mul_overflow(a, b, out);
    case N_DIV:
        *out = est_floordiv(a, b);
        return 1;
    case N_MOD:
        *out = floor_mod(a, b);
        return 1;
    default:
        return 0;
    }
}

/* ---- error messages ---- */

/* Writes text[start, start+n) to out (size cap) as printable ASCII, so messages stay
 * valid UTF-8 JSON whatever bytes the client sent; stops early with "..." when the
 * escaped form would not fit. */
static void quote_bytes(char *out, size_t cap, const char *s, size_t n, int more_before,
                        int more_after)
{
    size_t o = 0, i;
    if (more_before)
        o += (size_t)snprintf(out + o, cap - o, "...");
    for (i = 0; i < n && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f)
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02X", c);
    }
    out[o] = '\0';
    if (more_after || i < n)
        snprintf(out + o, cap - o, "...");
}

/* The part of the expression to quote: all of it when short, else a window around
 * the error position. */
static void quote_text(const parser *p, size_t at, char *out, size_t cap)
{
    size_t start = 0, n = p->len;
    if (p->len > QUOTE_MAX) {
        start = at > QUOTE_MAX / 2 ? at - QUOTE_MAX / 2 : 0;
        if (start > p->len - QUOTE_MAX)
            start = p->len - QUOTE_MAX;
        n = QUOTE_MAX;
    }
    quote_bytes(out, cap, p->text + start, n, start > 0, start + n < p->len);
}

static int is_name_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Length of the token at pos, for naming it: a whole number or name, a two-byte
 * operator of C, or a single byte. */
static size_t token_len(const parser *p, size_t pos)
{
    static const char *const pairs[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
    const char *s = p->text + pos;
    size_t i, n = 0;
    if (pos >= p->len)
        return 0;
    if (is_name_char(s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]))) {
        while (pos + n < p->len && (is_name_char(s[n]) || s[n] == '.'))
            n++;
        return n;
    }
    for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (strncmp(s, pairs[i], 2) == 0)
            return 2;
    return 1;
}

/* Records an error: "'<expression>': <detail>". at is the byte offset the quote
 * window centres on. Returns NULL so parse functions can `return fail(...)`. */
static node *fail(parser *p, lr_code code, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static node *fail(parser *p, lr_code code, size_t at, const char *fmt, ...)
{
    char detail[LR_MESSAGE_MAX], quoted[QUOTE_MAX * 4 + 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    quote_text(p, at, quoted, sizeof quoted);
    lr_error_set(p->err, code, p->path, "'%s': %s", quoted, detail);
    return NULL;
}

/* The token at pos, quoted for a message ("'['", "'foo'", "'\xE2'"). */
static const char *token_text(const parser *p, size_t pos, char *out, size_t cap)
{
    size_t n = token_len(p, pos);
    char body[TOKEN_QUOTE_MAX * 4 + 16];
    quote_bytes(body, sizeof body, p->text + pos, n < TOKEN_QUOTE_MAX ? n : TOKEN_QUOTE_MAX, 0,
                n > TOKEN_QUOTE_MAX);
    snprintf(out, cap, "'%s'", body);
    return out;
}

/* Explains why the token at pos cannot be read where `expected` was wanted. C
 * operators outside the language are LR_UNSUPPORTED_EXPR (the user wrote something
 * meaningful we do not model); anything else is a syntax error. */
static node *reject_token(parser *p, const char *expected)
{
    size_t pos = p->pos, col = pos + 1, n = token_len(p, pos);
    const char *s = p->text + pos;
    char tok[TOKEN_QUOTE_MAX * 4 + 24];
    const char *why = NULL;

    if (pos >= p->len) {
        if (pos == 0 || strspn(p->text, " \t\r\n") == p->len)
            return fail(p, LR_INVALID_REQUEST, pos, "the expression is empty");
        return fail(p, LR_INVALID_REQUEST, pos,
                    "unexpected end of the expression at column %zu; expected %s", col,
                    expected);
    }
    token_text(p, pos, tok, sizeof tok);
    if (*s == '[' || *s == ']')
        why = "indirect addressing is not supported; an access is one index expression per "
              "dimension";
    else if (*s == '?' || *s == ':')
        why = "conditional expressions are not supported";
    else if (n == 2 && (*s == '<' || *s == '>') && s[1] == *s)
        why = "shifts are not supported; multiply or divide by a power of two instead";
    else if (*s == '<' || *s == '>' || (n == 2 && s[1] == '='))
        why = "comparisons are not supported; an address is an integer expression";
    else if (strchr("!&|^~", *s))
        why = "logical and bitwise operators are not supported";
    else if (*s == '=')
        why = "assignments are not supported; an access is an expression";
    if (why)
        return fail(p, LR_UNSUPPORTED_EXPR, pos, "%s at column %zu: %s", tok, col, why);
    if (*s == ',')
        return fail(p, LR_INVALID_REQUEST, pos,
                    "',' at column %zu: give one expression per array dimension, as separate "
                    "elements of the access",
                    col);
    return fail(p, LR_INVALID_REQUEST, pos, "unexpected %s at column %zu; expected %s", tok,
                col, expected);
}

/* ---- parser ---- */

static char peek(parser *p)
{
    while (p->pos < p->len && isspace((unsigned char)p->text[p->pos]))
        p->pos++;
    return p->pos < p->len ? p->text[p->pos] : '\0';
}

static node *make_num(parser *p, int64_t v)
{
    node *n = node_new(N_NUM, NULL, NULL);
    if (!n)
        return fail(p, LR_NO_MEMORY, p->pos, "out of memory");
    n->num = v;
    return n;
}

/* Combines operands at the operator at op_pos (takes l and r, also on error): checks
 * the language rules, then folds constants or builds the node. */
static node *make_op(parser *p, node_kind kind, node *l, node *r, size_t op_pos)
{
    size_t col = op_pos + 1;
    char op = p->text[op_pos];
    int64_t v;
    node *n;

    if (!l || (kind != N_NEG && !r))
        goto error;
    if (kind == N_MUL && !is_launch_constant(l) && !is_launch_constant(r)) {
        fail(p, LR_UNSUPPORTED_EXPR, op_pos,
             "product of two variables at column %zu ('*'): one side must be constant once "
             "the launch is known",
             col);
        goto error;
    }
    if ((kind == N_DIV || kind == N_MOD) && !is_launch_constant(r)) {
        fail(p, LR_UNSUPPORTED_EXPR, op_pos,
             "%s by a variable at column %zu ('%c'): the divisor must be constant once the "
             "launch is known",
             kind == N_DIV ? "division" : "remainder", col, op);
        goto error;
    }
    if ((kind == N_DIV || kind == N_MOD) && r->kind == N_NUM && r->num <= 0) {
        fail(p, LR_UNSUPPORTED_EXPR, op_pos,
             "%s by %" PRId64 " at column %zu ('%c'): the divisor must be a positive constant",
             kind == N_DIV ? "division" : "remainder", r->num, col, op);
        goto error;
    }
    if (l->kind == N_NUM && (kind == N_NEG || r->kind == N_NUM)) {
        if (!fold(kind, l->num, kind == N_NEG ? 0 : r->num, &v)) {
            fail(p, LR_INVALID_REQUEST, op_pos,
                 "the constant computed at column %zu ('%c') does not fit in 64 bits", col, op);
            goto error;
        }
        node_free(r);
        l->num = v;
        return l;
    }
    n = node_new(kind, l, r);
    if (!n) {
        fail(p, LR_NO_MEMORY, op_pos, "out of memory");
        goto error;
    }
    return n;
error:
    node_free(l);
    node_free(r);
    return NULL;
}

/* A decimal literal. C's other spellings are rejected rather than misread: a
 * leading 0 means octal to a C programmer, "1.5" is not an address. */
static node *parse_number(parser *p)
{
    size_t start = p->pos, n = token_len(p, start), col = start + 1, i;
    const char *s = p->text + start;
    char tok[TOKEN_QUOTE_MAX * 4 + 24];
    int64_t v = 0;

    token_text(p, start, tok, sizeof tok);
    if (memchr(s, '.', n))
        return fail(p, LR_UNSUPPORTED_EXPR, start,
                    "floating-point literal %s at column %zu: addresses are integers", tok,
                    col);
    if (strspn(s, "0123456789") < n)
        return fail(p, LR_UNSUPPORTED_EXPR, start,
                    "literal %s at column %zu: integer literals are plain decimal digits", tok,
                    col);
    if (n > 1 && s[0] == '0')
        return fail(p, LR_UNSUPPORTED_EXPR, start,
                    "literal %s at column %zu: a leading 0 means octal in C; write the decimal "
                    "number without it",
                    tok, col);
    for (i = 0; i < n && v <= EXPR_LITERAL_MAX; i++)
        v = v * 10 + (s[i] - '0');
    if (v > EXPR_LITERAL_MAX)
        return fail(p, LR_INVALID_REQUEST, start,
                    "the number %s at column %zu is too large (the limit is 2^53 = %" PRId64
                    ")",
                    tok, col, EXPR_LITERAL_MAX);
    p->pos += n;
    return make_num(p, v);
}

/* A variable or parameter. Built-ins are spelled with a dot, so a name is
 * identifier characters joined by dots ("threadIdx.x"). */
static node *parse_name(parser *p)
{
    size_t start = p->pos, n = 0, col = start + 1, i;
    const char *s = p->text + start;
    char tok[TOKEN_QUOTE_MAX * 4 + 24];
    char next;
    node *v;

    while (start + n < p->len &&
           (is_name_char(s[n]) || (s[n] == '.' && is_name_start(s[n + 1]))))
        n++;
    token_text(p, start, tok, sizeof tok);
    p->pos += n;
    next = peek(p);
    if (next == '(')
        return fail(p, LR_UNSUPPORTED_EXPR, start,
                    "call of %s at column %zu: functions are not supported", tok, col);
    if (next == '[')
        return fail(p, LR_UNSUPPORTED_EXPR, p->pos,
                    "'[' at column %zu: indirect addressing is not supported; an access is one "
                    "index expression per dimension",
                    p->pos + 1);
    for (i = 0; i < EST_VAR_COUNT; i++) {
        if (strlen(var_names[i]) == n && strncmp(var_names[i], s, n) == 0) {
            if (!(v = node_new(N_VAR, NULL, NULL)))
                return fail(p, LR_NO_MEMORY, start, "out of memory");
            v->var = (est_var)i;
            v->uses = EST_VAR_BIT(i);
            return v;
        }
    }
    for (i = 0; i < p->nparams; i++) {
        const est_param *par = &p->params[i];
        if (!par->name || strlen(par->name) != n || strncmp(par->name, s, n) != 0)
            continue;
        if (par->value > EXPR_LITERAL_MAX || par->value < -EXPR_LITERAL_MAX)
            return fail(p, LR_INVALID_REQUEST, start,
                        "parameter %s at column %zu is %" PRId64
                        ", too large (the limit is 2^53)",
                        tok, col, par->value);
        return make_num(p, par->value);
    }
    return fail(p, LR_INVALID_REQUEST, start,
                "unknown name %s at column %zu: it is neither a variable (x y z, tidx tidy "
                "tidz, threadIdx.x blockIdx.x blockDim.x gridDim.x and their .y .z) nor a "
                "parameter of the request",
                tok, col);
}

static node *parse_expr(parser *p);

/* Entering a '(' or a unary sign: bounds the parser's recursion. */
static int nest(parser *p)
{
    if (++p->depth <= EXPR_DEPTH_MAX)
        return 0;
    fail(p, LR_INVALID_REQUEST, p->pos,
         "nesting deeper than %d levels of parentheses and signs at column %zu", EXPR_DEPTH_MAX,
         p->pos + 1);
    return -1;
}

static node *parse_atom(parser *p)
{
    char c = peek(p);
    size_t open;
    node *e;

    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p->text[p->pos + 1])))
        return parse_number(p);
    if (is_name_start(c))
        return parse_name(p);
    if (c != '(')
        return reject_token(p, "a number, a variable or '('");
    open = p->pos;
    if (nest(p) < 0)
        return NULL;
    p->pos++;
    e = parse_expr(p);
    if (e && peek(p) != ')') {
        char expected[64];
        snprintf(expected, sizeof expected, "')' to close the '(' at column %zu", open + 1);
        node_free(e);
        return reject_token(p, expected);
    }
    p->pos++;
    p->depth--;
    return e;
}

/* The integer types a cast may name: code generators cast indices to them
 * ("(int64_t) blockIdx.x * 256", pystencils 2). Every index fits in them, so a cast
 * changes no value and the parser drops it. */
static const char *const cast_types[] = {"int64_t",
                                         "int32_t",
                                         "int",
                                         "long",
                                         "long long",
                                         "long int",
                                         "ptrdiff_t",
                                         "uint64_t",
                                         "uint32_t",
                                         "unsigned",
                                         "unsigned int",
                                         "unsigned long",
                                         "unsigned long long",
                                         "size_t",
                                         "long long int",
                                         NULL};

/* The length of a cast "( type )" at p->pos (white space inside allowed, words
 * separated by one or more blanks), or 0 when none starts there. */
static size_t cast_len(const parser *p)
{
    size_t i = p->pos + 1;
    char word[32];
    size_t w = 0;
    if (p->text[p->pos] != '(')
        return 0;
    while (i < p->len && isspace((unsigned char)p->text[i]))
        i++;
    while (i < p->len && p->text[i] != ')' && w < sizeof word - 1) {
        if (isspace((unsigned char)p->text[i])) {
            while (i < p->len && isspace((unsigned char)p->text[i]))
                i++;
            if (i < p->len && p->text[i] != ')')
                word[w++] = ' ';
            continue;
        }
        if (!is_name_char(p->text[i]))
            return 0;
        word[w++] = p->text[i++];
    }
    word[w] = '\0';
    if (i >= p->len || p->text[i] != ')')
        return 0;
    for (int t = 0; cast_types[t]; t++)
        if (strcmp(word, cast_types[t]) == 0)
            return i + 1 - p->pos;
    return 0;
}

static node *parse_unary(parser *p)
{
    char c = peek(p);
    size_t op_pos = p->pos, cast = cast_len(p);
    node *e;

    if (cast) {
        if (nest(p) < 0)
            return NULL;
        p->pos += cast;
        e = parse_unary(p);
        p->depth--;
        return e;
    }
    if (c != '-' && c != '+')
        return parse_atom(p);
    if (nest(p) < 0)
        return NULL;
    p->pos++;
    e = parse_unary(p);
    p->depth--;
    return c == '-' ? make_op(p, N_NEG, e, NULL, op_pos) : e;
}

static node *parse_term(parser *p)
{
    node *e = parse_unary(p);
    char c;

    while (e && ((c = peek(p)) == '*' || c == '/' || c == '%')) {
        size_t op_pos = p->pos++;
        node_kind kind = c == '*' ? N_MUL : c == '/' ? N_DIV : N_MOD;
        e = make_op(p, kind, e, parse_unary(p), op_pos);
    }
    return e;
}

static node *parse_expr(parser *p)
{
    node *e = parse_term(p);
    char c;

    while (e && ((c = peek(p)) == '+' || c == '-')) {
        size_t op_pos = p->pos++;
        e = make_op(p, c == '+' ? N_ADD : N_SUB, e, parse_term(p), op_pos);
    }
    return e;
}

est_expr *est_expr_parse(const char *text, const est_param *params, size_t nparams,
                         const char *path, lr_error *err)
{
    parser p = {.text = text, .params = params, .nparams = nparams, .path = path, .err = err};
    est_expr *e;
    node *root;

    if (!text) {
        lr_error_set(err, LR_INVALID_REQUEST, path, "the expression is missing");
        return NULL;
    }
    p.len = strnlen(text, EXPR_TEXT_MAX + 1);
    if (p.len > EXPR_TEXT_MAX) {
        fail(&p, LR_INVALID_REQUEST, 0, "the expression is longer than %d characters",
             EXPR_TEXT_MAX);
        return NULL;
    }
    root = parse_expr(&p);
    if (root && peek(&p) != '\0') {
        node_free(root);
        if (p.text[p.pos] == ')')
            fail(&p, LR_INVALID_REQUEST, p.pos,
                 "unexpected ')' at column %zu: it has no matching '('", p.pos + 1);
        else
            reject_token(&p, "an operator (+ - * / %) or the end of the expression");
        return NULL;
    }
    if (!root)
        return NULL;
    e = malloc(sizeof *e);
    if (!e || !(e->text = strdup(text))) {
        free(e);
        node_free(root);
        lr_error_set(err, LR_NO_MEMORY, path, "out of memory");
        return NULL;
    }
    e->root = root;
    return e;
}

/* ---- queries ---- */

void est_expr_free(est_expr *e)
{
    if (!e)
        return;
    node_free(e->root);
    free(e->text);
    free(e);
}

est_expr *est_expr_copy(const est_expr *e)
{
    est_expr *c;
    if (!e || !(c = malloc(sizeof *c)))
        return NULL;
    c->text = strdup(e->text);
    c->root = node_copy(e->root);
    if (!c->text || !c->root) {
        est_expr_free(c);
        return NULL;
    }
    return c;
}

static uint32_t rename_node(node *n, const est_var map[EST_VAR_COUNT])
{
    if (!n)
        return 0;
    if (n->kind == N_VAR) {
        n->var = map[n->var];
        n->uses = EST_VAR_BIT(n->var);
    } else
        n->uses = rename_node(n->l, map) | rename_node(n->r, map);
    return n->uses;
}

void est_expr_rename(est_expr *e, const est_var map[EST_VAR_COUNT])
{
    if (e)
        rename_node(e->root, map);
}

uint32_t est_expr_uses(const est_expr *e)
{
    return e ? e->root->uses : 0;
}

const char *est_expr_text(const est_expr *e)
{
    return e ? e->text : NULL;
}

int64_t est_expr_eval(const est_expr *e, const int64_t val[EST_VAR_COUNT])
{
    return e ? node_eval(e->root, val) : 0;
}

static int node_is_affine(const node *n, uint32_t consts)
{
    int lc, rc;
    switch (n->kind) {
    case N_NUM:
    case N_VAR:
        return 1;
    case N_NEG:
        return node_is_affine(n->l, consts);
    case N_ADD:
    case N_SUB:
        return node_is_affine(n->l, consts) && node_is_affine(n->r, consts);
    case N_MUL:
        lc = (n->l->uses & ~consts) == 0;
        rc = (n->r->uses & ~consts) == 0;
        return (lc || rc) && node_is_affine(n->l, consts) && node_is_affine(n->r, consts);
    case N_DIV:
    case N_MOD:
        return (n->uses & ~consts) == 0;
    }
    return 0;
}

int est_expr_is_affine(const est_expr *e, uint32_t const_mask)
{
    return e ? node_is_affine(e->root, const_mask | LAUNCH_VARS) : 0;
}

/* ---- the tree, for printers (expr.h) ---- */

const est_expr_node *est_expr_root(const est_expr *e)
{
    return e ? e->root : NULL;
}

est_expr_op est_expr_node_op(const est_expr_node *n)
{
    return n->kind;
}

int64_t est_expr_node_num(const est_expr_node *n)
{
    return n->num;
}

est_var est_expr_node_var(const est_expr_node *n)
{
    return n->var;
}

const est_expr_node *est_expr_node_left(const est_expr_node *n)
{
    return n->l;
}

const est_expr_node *est_expr_node_right(const est_expr_node *n)
{
    return n->r;
}

/* ---- isl affine expressions ---- */

static __isl_give isl_aff *node_to_aff(const node *n, isl_aff *const var_aff[EST_VAR_COUNT])
{
    isl_aff *l, *r;
    isl_val *v;
    switch (n->kind) {
    case N_NUM:
        return isl_aff_val_on_domain(
            isl_aff_get_domain_local_space(var_aff[EST_VAR_X]),
            isl_val_int_from_si(isl_aff_get_ctx(var_aff[EST_VAR_X]), n->num));
    case N_VAR:
        return isl_aff_copy(var_aff[n->var]);
    case N_NEG:
        return isl_aff_neg(node_to_aff(n->l, var_aff));
    case N_ADD:
        return isl_aff_add(node_to_aff(n->l, var_aff), node_to_aff(n->r, var_aff));
    case N_SUB:
        return isl_aff_sub(node_to_aff(n->l, var_aff), node_to_aff(n->r, var_aff));
    case N_MUL:
        /* the parser guarantees one side is launch-constant, which isl requires */
        return isl_aff_mul(node_to_aff(n->l, var_aff), node_to_aff(n->r, var_aff));
    case N_DIV:
    case N_MOD:
        l = node_to_aff(n->l, var_aff);
        r = node_to_aff(n->r, var_aff);
        v = r && isl_aff_is_cst(r) ? isl_aff_get_constant_val(r) : NULL;
        isl_aff_free(r);
        if (v && isl_val_is_nonpos(v))
            v = isl_val_set_si(v, 1); /* same rule as est_expr_eval */
        if (!v) {
            isl_aff_free(l);
            return NULL;
        }
        if (n->kind == N_MOD)
            return isl_aff_mod_val(l, v);
        return isl_aff_floor(isl_aff_scale_down_val(l, v));
    }
    return NULL;
}

__isl_give isl_aff *est_expr_to_aff(const est_expr *e, isl_aff *const var_aff[EST_VAR_COUNT])
{
    return e ? node_to_aff(e->root, var_aff) : NULL;
}
