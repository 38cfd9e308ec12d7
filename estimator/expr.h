/*
 * expr: the address-expression language of docs/model.md §1.
 *
 * An expression is parsed once per kernel into an opaque tree, with the request's
 * named integer parameters already substituted. Per launch configuration the caller
 * evaluates it (L1/L2 sampling), asks whether it is affine (fast paths), builds it
 * as an isl affine expression over the thread indices (DRAM wave footprints), and
 * shows its tree to printers (cudagen prints it as CUDA).
 *
 * Grammar (integers are int64; '/' and '%' are floor division and its remainder by a
 * positive constant, as C computes them on non-negative values):
 *   expr   := term (('+' | '-') term)*
 *   term   := unary (('*' | '/' | '%') unary)*
 *   unary  := ('-' | '+') unary | '(' INTTYPE ')' unary | atom
 * (INTTYPE: int64_t, int32_t, int, long, unsigned, size_t and the like; a cast changes
 * no value: indices fit every one of them)
 *   atom   := INTEGER | VARIABLE | PARAMETER | '(' expr ')' | TABLE '(' expr (',' expr)* ')'
 * TABLE names an index field given to est_expr_parse_tables (table.h), with one
 * argument per dimension, innermost first: nbr(j, x) is the value of element (j, x).
 * Its value is data, never launch-constant; an expression that reads one is not affine.
 * A product is allowed only when one side is launch-constant (literals, parameters,
 * blockDim.*, gridDim.*); the right side of '/' and '%' must be launch-constant and,
 * when it is known at parse time, positive. Anything else is rejected with an error
 * that quotes the expression, gives the 1-based column and names the offending token.
 */
#ifndef EST_EXPR_H
#define EST_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include <isl/aff_type.h>
#include <isl/ctx.h>

#include "lr_error.h"
#include "table.h"

/* The variables an expression may reference. */
typedef enum est_var {
    EST_VAR_X,
    EST_VAR_Y,
    EST_VAR_Z, /* lattice point */
    EST_VAR_TIDX,
    EST_VAR_TIDY,
    EST_VAR_TIDZ, /* blockIdx*blockDim+threadIdx */
    EST_VAR_THREADIDX_X,
    EST_VAR_THREADIDX_Y,
    EST_VAR_THREADIDX_Z,
    EST_VAR_BLOCKIDX_X,
    EST_VAR_BLOCKIDX_Y,
    EST_VAR_BLOCKIDX_Z,
    EST_VAR_BLOCKDIM_X,
    EST_VAR_BLOCKDIM_Y,
    EST_VAR_BLOCKDIM_Z,
    EST_VAR_GRIDDIM_X,
    EST_VAR_GRIDDIM_Y,
    EST_VAR_GRIDDIM_Z,
    EST_VAR_COUNT
} est_var;

/* Bit masks of est_var values, for est_expr_uses. */
#define EST_VAR_BIT(v) (1u << (v))
/* In est_expr_uses' mask beside the variables: the expression reads an index table. */
#define EST_USES_TABLE (1u << 31)
#define EST_VARS_LATTICE                                                                       \
    (EST_VAR_BIT(EST_VAR_X) | EST_VAR_BIT(EST_VAR_Y) | EST_VAR_BIT(EST_VAR_Z))

/* The source spelling of a variable ("threadIdx.x"). */
const char *est_var_name(est_var v);

/* Floor division by a positive divisor, the language's '/' (C truncates toward 0,
 * which is wrong for indices such as x-1 at the domain edge). */
static inline int64_t est_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* A named integer parameter given with the request (grid widths, strides). */
typedef struct est_param {
    const char *name;
    int64_t value;
} est_param;

typedef struct est_expr est_expr;

/* Parses text. Parameters are looked up by name and substituted; a name that is
 * neither a variable nor a parameter is an error. On error returns NULL and fills
 * err (code LR_UNSUPPORTED_EXPR for valid syntax outside the language, otherwise
 * LR_INVALID_REQUEST) with path as its JSON path and a message that quotes text.
 * The caller owns the result and frees it with est_expr_free. */
est_expr *est_expr_parse(const char *text, const est_param *params, size_t nparams,
                         const char *path, lr_error *err);

void est_expr_free(est_expr *e);

/* est_expr_parse where the ntables tables (borrowed: they must outlive the result and
 * its copies) may be read as TABLE(args). */
est_expr *est_expr_parse_tables(const char *text, const est_param *params, size_t nparams,
                                const est_table *const *tables, size_t ntables,
                                const char *path, lr_error *err);

/* Whether e is one table read whose flat element is affine in variable v alone,
 * table[*c0 + *c1 * v] (the gather u(nbr(j, x)) reads through nbr(j, x)): then *t, *c0
 * and *c1 are set and 1 is returned, else 0. For fast paths over every lattice point. */
int est_expr_table_column(const est_expr *e, est_var v, const est_table **t, int64_t *c0,
                          int64_t *c1);

/* Bounds of e's value when every variable v lies in [lo[v], hi[v]], a table read
 * taking any value its table holds: conservative (interval arithmetic). 0 with
 * *min, *max; -1 with why (cap bytes) when a table's argument may fall outside its
 * dimensions or a bound overflows int64. */
int est_expr_bounds(const est_expr *e, const int64_t lo[EST_VAR_COUNT],
                    const int64_t hi[EST_VAR_COUNT], int64_t *min, int64_t *max, char *why,
                    size_t cap);

/* Renames every variable v of e to map[v] (the text stays as written): a kernel whose
 * indexing scheme walks the lattice with other CUDA indices than the standard one
 * (protocol/request.c, kernel.indexing) is estimated as the equivalent standard
 * launch. */
void est_expr_rename(est_expr *e, const est_var map[EST_VAR_COUNT]);

/* Deep copy; NULL on allocation failure. */
est_expr *est_expr_copy(const est_expr *e);

/* Makes every read of table from in e read to instead (same shape). */
void est_expr_rebind(est_expr *e, const est_table *from, const est_table *to);

/* Mask of EST_VAR_BIT()s of the variables e references. */
uint32_t est_expr_uses(const est_expr *e);

/* Evaluates e with every variable bound to val[var]. Division and remainder are
 * floor division by the (positive) divisor; a divisor <= 0 evaluates as 1 (the parser
 * and the launch checks make that impossible for accepted requests). */
int64_t est_expr_eval(const est_expr *e, const int64_t val[EST_VAR_COUNT]);

/* est_expr_eval without wrapping: 0 and *out, or -1 when an intermediate value
 * overflows int64 (est_expr_eval's result would then be meaningless). */
int est_expr_eval_checked(const est_expr *e, const int64_t val[EST_VAR_COUNT], int64_t *out);

/* Non-zero when e is affine in the variables not in const_mask, i.e. when no '/' or
 * '%' has a non-constant left side and no product has two non-constant sides once the
 * variables of const_mask are known. */
int est_expr_is_affine(const est_expr *e, uint32_t const_mask);

/* A read-only view of a parsed expression's tree, for printers outside the estimator
 * (cudagen/print.c prints it as CUDA): analysis stays here, printing stays with the
 * code generator that defines the helpers the printed text calls. Nodes are borrowed
 * from their expression and live as long as it. */
typedef enum est_expr_op {
    EST_OP_NUM,      /* an integer literal (est_expr_node_num) */
    EST_OP_VAR,      /* a variable (est_expr_node_var) */
    EST_OP_NEG,      /* -left */
    EST_OP_ADD,      /* left + right */
    EST_OP_SUB,      /* left - right */
    EST_OP_MUL,      /* left * right */
    EST_OP_FLOORDIV, /* floor(left / right), right a positive launch constant */
    EST_OP_FLOORMOD, /* left - right * floor(left / right) */
    EST_OP_LOOKUP    /* a table's element (est_expr_node_table, est_expr_node_arg) */
} est_expr_op;

typedef struct est_expr_node est_expr_node;

const est_expr_node *est_expr_root(const est_expr *e);
est_expr_op est_expr_node_op(const est_expr_node *n);
int64_t est_expr_node_num(const est_expr_node *n);
est_var est_expr_node_var(const est_expr_node *n);
const est_expr_node *est_expr_node_left(const est_expr_node *n);  /* NULL for leaves */
const est_expr_node *est_expr_node_right(const est_expr_node *n); /* NULL unless binary */
/* EST_OP_LOOKUP: the table read and its arguments (est_table_ndims of them). */
const est_table *est_expr_node_table(const est_expr_node *n);
const est_expr_node *est_expr_node_arg(const est_expr_node *n, int i);

/* Builds e as an isl affine expression (floor and mod become isl divisions), with
 * var_aff[v] put in for each variable (all on the same domain space). Returns NULL
 * on an isl error and for an expression that reads a table. */
__isl_give isl_aff *est_expr_to_aff(const est_expr *e,
                                    __isl_keep isl_aff *const var_aff[EST_VAR_COUNT]);

/* The original text the expression was parsed from (owned by e). */
const char *est_expr_text(const est_expr *e);

#endif
