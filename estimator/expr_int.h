/*
 * expr_int.h: what the address-expression files share (expr.c: trees, evaluation,
 * queries, isl; expr_parse.c: the parser). Not included outside estimator/expr*.c.
 */
#ifndef EST_EXPR_INT_H
#define EST_EXPR_INT_H

#include <stdint.h>

#include "expr.h"
#include "table_int.h"

/* blockDim.* and gridDim.* are fixed by the launch, so they count as constants for
 * the product and divisor rules and for affinity. */
#define LAUNCH_VARS                                                                            \
    (EST_VAR_BIT(EST_VAR_BLOCKDIM_X) | EST_VAR_BIT(EST_VAR_BLOCKDIM_Y) |                       \
     EST_VAR_BIT(EST_VAR_BLOCKDIM_Z) | EST_VAR_BIT(EST_VAR_GRIDDIM_X) |                        \
     EST_VAR_BIT(EST_VAR_GRIDDIM_Y) | EST_VAR_BIT(EST_VAR_GRIDDIM_Z))

/* The names of the variables as the language spells them (est_var_name). */
extern const char *const est_var_names[EST_VAR_COUNT];

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
#define N_LOOKUP EST_OP_LOOKUP

typedef struct est_expr_node {
    node_kind kind;
    int64_t num;                 /* N_NUM */
    est_var var;                 /* N_VAR */
    uint32_t uses;               /* EST_VAR_BIT()s of the variables in this subtree */
    struct est_expr_node *l, *r; /* operands; N_NEG uses l only */
    const est_table *table;      /* N_LOOKUP: borrowed */
    struct est_expr_node *arg[3]; /* N_LOOKUP: one per table dimension, owned */
} node;

struct est_expr {
    char *text; /* the source, for messages and est_expr_text */
    node *root;
};

/* A node of kind with operands l and r (taken; NULL for none), its uses their union;
 * NULL when out of memory (l and r are then not freed). */
node *est_node_new(node_kind kind, node *l, node *r);
/* Frees n and its subtree (NULL does nothing). */
void est_node_free(node *n);
/* Whether n uses no variable but the launch constants (blockDim, gridDim). */
int est_node_is_launch_constant(const node *n);
/* Folds a constant operation at parse time; 0 on int64 overflow. */
int est_node_fold(node_kind kind, int64_t a, int64_t b, int64_t *out);

#endif
