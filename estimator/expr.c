/*
 * expr: trees, evaluation, queries and the isl builder of the address-expression
 * language of docs/model.md §1 (interface and grammar in expr.h); expr_parse.c parses
 * it, and cudagen/print.c prints the tree as CUDA through the read-only view at the
 * end of this file.
 *
 * Each node records the variables of its subtree, which makes the "launch-constant"
 * test of the language rules, est_expr_uses and est_expr_is_affine O(1) per node.
 */
#include "expr_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/val.h>

const char *const est_var_names[EST_VAR_COUNT] = {
    "x",           "y",           "z",           "tidx",       "tidy",       "tidz",
    "threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z",
    "blockDim.x",  "blockDim.y",  "blockDim.z",  "gridDim.x",  "gridDim.y",  "gridDim.z",
};

const char *est_var_name(est_var v)
{
    if ((unsigned)v >= EST_VAR_COUNT)
        return "?";
    return est_var_names[v];
}

/* ---- nodes ---- */

void est_node_free(node *n)
{
    if (!n)
        return;
    est_node_free(n->l);
    est_node_free(n->r);
    for (int i = 0; i < 3; i++)
        est_node_free(n->arg[i]);
    free(n);
}

node *est_node_new(node_kind kind, node *l, node *r)
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
    c = est_node_new(n->kind, NULL, NULL);
    if (!c)
        return NULL;
    *c = *n;
    c->l = c->r = NULL;
    memset(c->arg, 0, sizeof c->arg);
    if ((n->l && !(c->l = node_copy(n->l))) || (n->r && !(c->r = node_copy(n->r)))) {
        est_node_free(c);
        return NULL;
    }
    for (int i = 0; i < 3; i++)
        if (n->arg[i] && !(c->arg[i] = node_copy(n->arg[i]))) {
            est_node_free(c);
            return NULL;
        }
    return c;
}

int est_node_is_launch_constant(const node *n)
{
    return (n->uses & ~(uint32_t)LAUNCH_VARS) == 0;
}

static int node_is_affine(const node *n, uint32_t consts);

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

/* The flat element of table t at indices a (innermost first), unchecked. */
static int64_t flat_index(const est_table *t, const int64_t a[3])
{
    int64_t flat = 0;
    for (int d = t->ndims - 1; d >= 0; d--)
        flat = flat * t->dims[d] + a[d];
    return flat;
}

/* The flat element of n's table at the given arguments, each clamped into its
 * dimension: requests are checked so that no thread that runs reads outside
 * (est_expr_bounds), and a thread past the domain must not read outside either. */
static int64_t lookup(const node *n, const int64_t a[3])
{
    const est_table *t = n->table;
    int64_t in[3] = {0, 0, 0};
    for (int d = 0; d < t->ndims; d++)
        in[d] = a[d] < 0 ? 0 : a[d] >= t->dims[d] ? t->dims[d] - 1 : a[d];
    return est_table_at(t, flat_index(t, in));
}

static int64_t node_eval(const node *n, const int64_t val[EST_VAR_COUNT])
{
    int64_t d;
    switch (n->kind) {
    case N_LOOKUP: {
        int64_t a[3] = {0, 0, 0};
        for (int i = 0; i < n->table->ndims; i++)
            a[i] = node_eval(n->arg[i], val);
        return lookup(n, a);
    }
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
static int node_eval_checked(const node *n, const int64_t val[EST_VAR_COUNT], int64_t *out)
{
    int64_t a, b = 0;
    if (n->kind == N_LOOKUP) {
        int64_t arg[3] = {0, 0, 0};
        for (int i = 0; i < n->table->ndims; i++)
            if (!node_eval_checked(n->arg[i], val, &arg[i]))
                return 0;
        *out = lookup(n, arg);
        return 1;
    }
    if (n->kind == N_NUM || n->kind == N_VAR) {
        *out = n->kind == N_NUM ? n->num : val[n->var];
        return 1;
    }
    if (!node_eval_checked(n->l, val, &a) ||
        (n->kind != N_NEG && !node_eval_checked(n->r, val, &b)))
        return 0;
    if ((n->kind == N_DIV || n->kind == N_MOD) && b <= 0)
        b = 1; /* same rule as node_eval */
    return est_node_fold(n->kind, a, b, out);
}

int est_expr_eval_checked(const est_expr *e, const int64_t val[EST_VAR_COUNT], int64_t *out)
{
    return node_eval_checked(e->root, val, out) ? 0 : -1;
}

/* Folds a constant operation at parse time; 0 on int64 overflow. */
int est_node_fold(node_kind kind, int64_t a, int64_t b, int64_t *out)
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

/* ---- queries ---- */

void est_expr_free(est_expr *e)
{
    if (!e)
        return;
    est_node_free(e->root);
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

static void rebind_node(node *n, const est_table *from, const est_table *to)
{
    if (!n)
        return;
    if (n->kind == N_LOOKUP && n->table == from)
        n->table = to;
    rebind_node(n->l, from, to);
    rebind_node(n->r, from, to);
    for (int i = 0; i < 3; i++)
        rebind_node(n->arg[i], from, to);
}

void est_expr_rebind(est_expr *e, const est_table *from, const est_table *to)
{
    if (e)
        rebind_node(e->root, from, to);
}

static uint32_t rename_node(node *n, const est_var map[EST_VAR_COUNT])
{
    if (!n)
        return 0;
    if (n->kind == N_VAR) {
        n->var = map[n->var];
        n->uses = EST_VAR_BIT(n->var);
    } else if (n->kind == N_LOOKUP) {
        n->uses = EST_USES_TABLE;
        for (int i = 0; i < 3; i++)
            n->uses |= rename_node(n->arg[i], map);
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
    case N_LOOKUP:
        return 0;
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

const est_table *est_expr_node_table(const est_expr_node *n)
{
    return n->kind == N_LOOKUP ? n->table : NULL;
}

const est_expr_node *est_expr_node_arg(const est_expr_node *n, int i)
{
    return n->kind == N_LOOKUP && i >= 0 && i < 3 ? n->arg[i] : NULL;
}

int est_expr_table_column(const est_expr *e, est_var v, const est_table **t, int64_t *c0,
                          int64_t *c1)
{
    const node *n = e ? e->root : NULL;
    if (!n || n->kind != N_LOOKUP)
        return 0;
    int64_t val[EST_VAR_COUNT] = {0}, at0[3] = {0, 0, 0}, at1[3] = {0, 0, 0};
    for (int i = 0; i < n->table->ndims; i++) {
        const node *a = n->arg[i];
        if ((a->uses & ~EST_VAR_BIT(v)) || !node_is_affine(a, 0))
            return 0;
        val[v] = 0;
        at0[i] = node_eval(a, val);
        val[v] = 1;
        at1[i] = node_eval(a, val);
    }
    *t = n->table;
    *c0 = flat_index(n->table, at0);
    *c1 = flat_index(n->table, at1) - *c0;
    return 1;
}

/* ---- bounds ---- */

typedef struct bounds_ctx {
    const int64_t *lo, *hi;
    char *why;
    size_t cap;
} bounds_ctx;

static int interval_mul(int64_t a0, int64_t a1, int64_t b0, int64_t b1, int64_t *lo, int64_t *hi)
{
    int64_t p[4];
    if (__builtin_mul_overflow(a0, b0, &p[0]) || __builtin_mul_overflow(a0, b1, &p[1]) ||
        __builtin_mul_overflow(a1, b0, &p[2]) || __builtin_mul_overflow(a1, b1, &p[3]))
        return -1;
    *lo = *hi = p[0];
    for (int i = 1; i < 4; i++) {
        *lo = p[i] < *lo ? p[i] : *lo;
        *hi = p[i] > *hi ? p[i] : *hi;
    }
    return 0;
}

static int node_bounds(const node *n, bounds_ctx *c, int64_t *lo, int64_t *hi)
{
    int64_t l0, l1, r0 = 0, r1 = 0;
    switch (n->kind) {
    case N_NUM:
        *lo = *hi = n->num;
        return 0;
    case N_VAR:
        *lo = c->lo[n->var];
        *hi = c->hi[n->var];
        return 0;
    case N_LOOKUP: {
        const est_table *t = n->table;
        for (int i = 0; i < t->ndims; i++) {
            if (node_bounds(n->arg[i], c, &l0, &l1))
                return -1;
            if (l0 < 0 || l1 >= t->dims[i]) {
                snprintf(c->why, c->cap,
                         "argument %d of %s() ranges over %lld..%lld, outside its dimension "
                         "0..%lld",
                         i + 1, t->name, (long long)l0, (long long)l1,
                         (long long)(t->dims[i] - 1));
                return -1;
            }
        }
        *lo = t->min;
        *hi = t->max;
        return 0;
    }
    default:
        break;
    }
    if (node_bounds(n->l, c, &l0, &l1) || (n->r && node_bounds(n->r, c, &r0, &r1)))
        return -1;
    int ovf = 0;
    switch (n->kind) {
    case N_NEG:
        ovf = __builtin_sub_overflow((int64_t)0, l1, lo) | __builtin_sub_overflow((int64_t)0, l0, hi);
        break;
    case N_ADD:
        ovf = __builtin_add_overflow(l0, r0, lo) | __builtin_add_overflow(l1, r1, hi);
        break;
    case N_SUB:
        ovf = __builtin_sub_overflow(l0, r1, lo) | __builtin_sub_overflow(l1, r0, hi);
        break;
    case N_MUL:
        ovf = interval_mul(l0, l1, r0, r1, lo, hi) != 0;
        break;
    case N_DIV:
        r0 = r0 < 1 ? 1 : r0; /* divisors are positive (node_eval's rule) */
        r1 = r1 < r0 ? r0 : r1;
        *lo = est_floordiv(l0, l0 < 0 ? r0 : r1);
        *hi = est_floordiv(l1, l1 < 0 ? r1 : r0);
        break;
    case N_MOD:
        r1 = r1 < 1 ? 1 : r1;
        *lo = 0;
        *hi = r1 - 1;
        if (l0 >= 0 && l1 < r0 && r0 >= 1) /* the value is its own remainder */
            *lo = l0, *hi = l1;
        break;
    default:
        break;
    }
    if (ovf)
        snprintf(c->why, c->cap, "the value may not fit in 64 bits");
    return ovf ? -1 : 0;
}

int est_expr_bounds(const est_expr *e, const int64_t lo[EST_VAR_COUNT],
                    const int64_t hi[EST_VAR_COUNT], int64_t *min, int64_t *max, char *why,
                    size_t cap)
{
    bounds_ctx c = {.lo = lo, .hi = hi, .why = why, .cap = cap};
    if (cap)
        why[0] = '\0';
    return e ? node_bounds(e->root, &c, min, max) : -1;
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
    case N_LOOKUP: /* data, not an affine function of the indices */
        return NULL;
    }
    return NULL;
}

__isl_give isl_aff *est_expr_to_aff(const est_expr *e, isl_aff *const var_aff[EST_VAR_COUNT])
{
    return e ? node_to_aff(e->root, var_aff) : NULL;
}
