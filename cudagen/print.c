/*
 * print: address expressions as CUDA C (cg_print_expr, cudagen.h), next to emit.c,
 * which defines the lr_floordiv/lr_floormod helpers the printed text calls. The tree
 * comes from the estimator's read-only view (expr.h); nothing here analyses it.
 *
 * The printer brackets every operand that is not atomic (a literal, a variable or a
 * call), except where precedence makes it safe to leave out: the left operand of '+'
 * or '-' may be any sum or product, the right one only a product, so that
 * "a - (b + c)" keeps its parentheses. C multiplies any two expressions, so launch
 * constants are printed as written, and floor division and its remainder become
 * calls of the generated source's lr_floordiv/lr_floormod (C's own '/' and '%'
 * truncate towards zero, which is wrong for x-1 at the domain edge).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudagen_int.h"

typedef const est_expr_node node;

/* True when the text needs no parentheses around it: a name, a non-negative number
 * or one parenthesised group. */
static int text_is_atomic(const char *s)
{
    int level = 0;
    size_t i, n = strlen(s);
    if (n > 0 &&
        strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n)
        return 1;
    if (n < 2 || s[0] != '(' || s[n - 1] != ')')
        return 0;
    for (i = 0; i < n; i++) {
        level += (s[i] == '(') - (s[i] == ')');
        if (level == 0 && i < n - 1)
            return 0; /* "(a) + (b)": the first group closes early */
    }
    return 1;
}

/* Negative literals are bracketed, so that a unary minus before one never prints as
 * C's "--". */
static void print_int(FILE *f, int64_t v)
{
    fprintf(f, v < 0 ? "(%" PRId64 ")" : "%" PRId64, v);
}

static void print_node(FILE *f, node *n, const char *const var_text[EST_VAR_COUNT]);

static const char *var_text_of(node *n, const char *const var_text[EST_VAR_COUNT])
{
    est_var v = est_expr_node_var(n);
    return var_text && var_text[v] ? var_text[v] : est_var_name(v);
}

/* Literals and variables (print_node brackets negative numbers and compound variable
 * text itself) and calls need no parentheses in C. */
static int prints_atomic(node *n)
{
    est_expr_op op = est_expr_node_op(n);
    return op == EST_OP_NUM || op == EST_OP_VAR || op == EST_OP_FLOORDIV ||
           op == EST_OP_FLOORMOD;
}

static void print_child(FILE *f, node *n, const char *const var_text[EST_VAR_COUNT], int loose)
{
    int wrap = !loose && !prints_atomic(n);
    fprintf(f, "%s", wrap ? "(" : "");
    print_node(f, n, var_text);
    fprintf(f, "%s", wrap ? ")" : "");
}

static void print_node(FILE *f, node *n, const char *const var_text[EST_VAR_COUNT])
{
    node *l = est_expr_node_left(n), *r = est_expr_node_right(n);
    est_expr_op op = est_expr_node_op(n);
    switch (op) {
    case EST_OP_NUM:
        print_int(f, est_expr_node_num(n));
        return;
    case EST_OP_VAR: {
        const char *t = var_text_of(n, var_text);
        fprintf(f, text_is_atomic(t) ? "%s" : "(%s)", t);
        return;
    }
    case EST_OP_NEG:
        fprintf(f, "-");
        print_child(f, l, var_text, 0);
        return;
    case EST_OP_ADD:
    case EST_OP_SUB:
        print_child(f, l, var_text, est_expr_node_op(l) != EST_OP_NEG);
        fprintf(f, op == EST_OP_ADD ? " + " : " - ");
        print_child(f, r, var_text, est_expr_node_op(r) == EST_OP_MUL);
        return;
    case EST_OP_MUL:
        print_child(f, l, var_text, 0);
        fprintf(f, " * ");
        print_child(f, r, var_text, 0);
        return;
    case EST_OP_FLOORDIV:
    case EST_OP_FLOORMOD:
        fprintf(f, op == EST_OP_FLOORDIV ? "lr_floordiv(" : "lr_floormod(");
        print_node(f, l, var_text);
        fprintf(f, ", ");
        print_node(f, r, var_text);
        fprintf(f, ")");
        return;
    case EST_OP_LOOKUP: /* never generated (cg_config_check refuses gathers): readable */
        fprintf(f, "%s(", est_table_name(est_expr_node_table(n)));
        for (int i = 0; i < est_table_ndims(est_expr_node_table(n)); i++) {
            fprintf(f, i ? ", " : "");
            print_node(f, (node *)est_expr_node_arg(n, i), var_text);
        }
        fprintf(f, ")");
        return;
    }
}

/* Prints into a memory stream: the printers stay plain fprintf calls and a failed
 * allocation shows up once, as the stream's error flag. */
char *cg_print_expr(const est_expr *e, const char *const var_text[EST_VAR_COUNT])
{
    char *s = NULL;
    size_t len;
    FILE *f;
    int failed;

    if (!e || !(f = open_memstream(&s, &len)))
        return NULL;
    print_node(f, est_expr_root(e), var_text);
    failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        free(s);
        return NULL;
    }
    return s;
}
