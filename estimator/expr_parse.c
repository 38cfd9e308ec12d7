/*
 * expr_parse: the parser of the address-expression language (est_expr_parse, expr.h;
 * grammar in docs/api.md and docs/model.md §1).
 *
 * A plain recursive descent over the bytes of the text (the tokens are single
 * characters, numbers and names, so no separate lexer pays for itself). It builds the
 * tree of expr_int.h, folds constants as it goes and enforces the language rules
 * (products, divisors) at the operator that breaks them, so every error can name the
 * column and token. Columns in messages are 1-based byte offsets.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_int.h"
#include "lr_suggest.h"

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

typedef struct parser {
    const char *text;
    size_t len;
    size_t pos; /* next byte to read */
    int depth;  /* current nesting of '(' and unary signs */
    const est_param *params;
    size_t nparams;
    const est_table *const *tables;
    size_t ntables;
    const char *path;
    lr_error *err;
} parser;

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
    node *n = est_node_new(N_NUM, NULL, NULL);
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
    if (kind == N_MUL && !est_node_is_launch_constant(l) && !est_node_is_launch_constant(r)) {
        fail(p, LR_UNSUPPORTED_EXPR, op_pos,
             "product of two variables at column %zu ('*'): one side must be constant once "
             "the launch is known",
             col);
        goto error;
    }
    if ((kind == N_DIV || kind == N_MOD) && !est_node_is_launch_constant(r)) {
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
        if (!est_node_fold(kind, l->num, kind == N_NEG ? 0 : r->num, &v)) {
            fail(p, LR_INVALID_REQUEST, op_pos,
                 "the constant computed at column %zu ('%c') does not fit in 64 bits", col, op);
            goto error;
        }
        est_node_free(r);
        l->num = v;
        return l;
    }
    n = est_node_new(kind, l, r);
    if (!n) {
        fail(p, LR_NO_MEMORY, op_pos, "out of memory");
        goto error;
    }
    return n;
error:
    est_node_free(l);
    est_node_free(r);
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

static node *parse_lookup(parser *p, const est_table *t, const char *tok, size_t col);

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
    if (next == '(') {
        for (i = 0; i < p->ntables; i++) {
            const char *tn = est_table_name(p->tables[i]);
            if (strlen(tn) == n && strncmp(tn, s, n) == 0)
                return parse_lookup(p, p->tables[i], tok, col);
        }
        lr_suggest sg;
        lr_suggest_init(&sg, s, n);
        for (i = 0; i < p->ntables; i++)
            lr_suggest_offer(&sg, est_table_name(p->tables[i]));
        const char *near = lr_suggest_best(&sg);
        return fail(p, LR_UNSUPPORTED_EXPR, start,
                    "call of %s at column %zu: functions are not supported; an address may "
                    "read an index field (a field with \"integer\": true and \"values\") as "
                    "name(j, x)%s%s%s",
                    tok, col, near ? "; did you mean '" : "", near ? near : "",
                    near ? "'?" : "");
    }
    if (next == '[')
        return fail(p, LR_UNSUPPORTED_EXPR, p->pos,
                    "'[' at column %zu: indirect addressing is not supported; an access is one "
                    "index expression per dimension",
                    p->pos + 1);
    for (i = 0; i < EST_VAR_COUNT; i++) {
        if (strlen(est_var_names[i]) == n && strncmp(est_var_names[i], s, n) == 0) {
            if (!(v = est_node_new(N_VAR, NULL, NULL)))
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
    lr_suggest sg;
    lr_suggest_init(&sg, s, n);
    for (i = 0; i < EST_VAR_COUNT; i++)
        lr_suggest_offer(&sg, est_var_names[i]);
    for (i = 0; i < p->nparams; i++)
        lr_suggest_offer(&sg, p->params[i].name);
    const char *near = lr_suggest_best(&sg);
    return fail(p, LR_INVALID_REQUEST, start,
                "unknown name %s at column %zu: it is neither a variable (x y z, tidx tidy "
                "tidz, threadIdx.x blockIdx.x blockDim.x gridDim.x and their .y .z) nor a "
                "parameter of the request%s%s%s",
                tok, col, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

static node *parse_expr(parser *p);
static int nest(parser *p);

/* The error at p->pos inside a read of table t: too few or too many arguments when the
 * next token is wrong (the other delimiter than expected), else a syntax error. */
static node *arity(parser *p, const est_table *t, const char *tok, size_t col, char wrong,
                   const char *expected)
{
    if (peek(p) == wrong)
        return fail(p, LR_INVALID_REQUEST, p->pos,
                    "%s at column %zu has %d dimension%s; give one index per dimension, "
                    "innermost first",
                    tok, col, t->ndims, t->ndims == 1 ? "" : "s");
    return reject_token(p, expected);
}

/* The arguments of a read of table t, p->pos at its '(' (name at column col): one
 * expression per dimension, separated by ','. */
static node *parse_lookup(parser *p, const est_table *t, const char *tok, size_t col)
{
    node *n = est_node_new(N_LOOKUP, NULL, NULL);
    if (!n)
        return fail(p, LR_NO_MEMORY, p->pos, "out of memory");
    n->table = t;
    n->uses = EST_USES_TABLE;
    if (nest(p) < 0) {
        est_node_free(n);
        return NULL;
    }
    p->pos++; /* '(' */
    for (int i = 0; i < t->ndims; i++) {
        char want = i > 0 ? ',' : '\0';
        if (want && peek(p) == ',')
            p->pos++;
        else if (want) {
            est_node_free(n);
            return arity(p, t, tok, col, ')', "',' before the next index");
        }
        if (!(n->arg[i] = parse_expr(p))) {
            est_node_free(n);
            return NULL;
        }
        n->uses |= n->arg[i]->uses;
    }
    if (peek(p) != ')') {
        est_node_free(n);
        return arity(p, t, tok, col, ',', "')' to close the index field's arguments");
    }
    p->pos++;
    p->depth--;
    return n;
}

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
        est_node_free(e);
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
    return est_expr_parse_tables(text, params, nparams, NULL, 0, path, err);
}

est_expr *est_expr_parse_tables(const char *text, const est_param *params, size_t nparams,
                                const est_table *const *tables, size_t ntables,
                                const char *path, lr_error *err)
{
    parser p = {.text = text,
                .params = params,
                .nparams = nparams,
                .tables = tables,
                .ntables = ntables,
                .path = path,
                .err = err};
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
        est_node_free(root);
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
        est_node_free(root);
        lr_error_set(err, LR_NO_MEMORY, path, "out of memory");
        return NULL;
    }
    e->root = root;
    return e;
}
