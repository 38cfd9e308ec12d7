/*
 * dram: DRAM->L2 volumes from wave footprints (docs/model.md §5), counted with isl.
 *
 * Per field, an isl map sends a thread's global index [tx,ty,tz] to the N-D fetch
 * units its accesses touch (union over accesses and folding steps, each guarded by
 * "this lattice point lies in the domain"). Thread sets of the current wave and of
 * the x, y, z neighbourhoods are boxes; applying the map and counting points with
 * isl_set_count_val gives the footprints without ever enumerating threads, so the
 * cost does not depend on the grid size.
 *
 * When every load (or store) of a field is written in x, y, z alone, the map starts
 * from lattice points instead, one piece per access: the points a box of folded
 * threads updates form a box again, so the same footprints are counted without a
 * union over folding steps, and the cost no longer grows with the folding (docs/
 * model.md §5, "Counting in lattice space"). When moreover every such access maps a
 * box of lattice points onto a box, dram_box.c counts the footprints by arithmetic and
 * isl is not needed at all.
 */
#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/space.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/val.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "dram_int.h"

static int isl_failed(isl_ctx *ctx, lr_error *err)
{
    if (isl_ctx_last_error(ctx) == isl_error_abort || isl_ctx_aborted(ctx))
        return lr_error_set(err, LR_BUDGET_EXCEEDED, NULL,
                            "the request ran past its time limit while counting wave "
                            "footprints; simplify the address expressions, rank fewer "
                            "configurations or raise the limit");
    if (isl_ctx_last_error(ctx) == isl_error_quota)
        return lr_error_set(
            err, LR_BUDGET_EXCEEDED, NULL,
            "the wave footprint needs more isl operations than the per-request "
            "budget allows; simplify the address expressions or raise the budget");
    const char *msg = isl_ctx_last_error_msg(ctx);
    return lr_error_set(err, LR_UNSUPPORTED_EXPR, NULL,
                        "isl could not count the wave footprint: %s",
                        msg ? msg : "unknown error");
}

/* The box lo[d] <= t_d <= hi[d] (inclusive) in the space of thread indices (or of
 * lattice points). The bounds go in as isl_vals: isl_set_*_bound_si takes an int, and
 * est_estimate called directly may pass sides beyond 2^31 (issue 10). */
static __isl_give isl_set *box(isl_ctx *ctx, const int64_t lo[3], const int64_t hi[3])
{
    isl_set *s = isl_set_universe(isl_space_set_alloc(ctx, 0, 3));
    for (int d = 0; d < 3; d++) {
        s = isl_set_lower_bound_val(s, isl_dim_set, d, isl_val_int_from_si(ctx, (long)lo[d]));
        s = isl_set_upper_bound_val(s, isl_dim_set, d, isl_val_int_from_si(ctx, (long)hi[d]));
    }
    return s;
}

/* Threads that execute instruction in: those whose lattice point (or, for an access
 * in thread variables, whose first lattice point) lies in the domain. */
static __isl_give isl_set *valid_threads(isl_ctx *ctx, const est_binding *b, const est_inst *in)
{
    int64_t lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        int64_t f = b->cfg.launch.folding[d], s = in->lattice ? in->step[d] : 0;
        lo[d] = 0;
        hi[d] = est_floordiv(b->cfg.domain[d] - 1 - s, f);
    }
    return box(ctx, lo, hi);
}

/* The map from the 3-D space of ls (thread indices or lattice points) to the fetch
 * units access acc of field fd touches, var[v] put in for each variable it uses, its
 * domain intersected with valid (taken). */
static __isl_give isl_map *fetch_map(isl_ctx *ctx, const est_binding *b, const est_field *fd,
                                     const est_access *acc, isl_aff *const var[EST_VAR_COUNT],
                                     __isl_keep isl_local_space *ls, __isl_take isl_set *valid)
{
    /* The fetch-unit tuple is written outermost dimension first, F[i2, i1, i0]:
     * isl counts the last dimension of a set as whole ranges and pays per combination
     * of the others, and i0 (x) has by far the most values. */
    isl_aff_list *list = isl_aff_list_alloc(ctx, 3);
    for (int d = 2; d >= 0; d--) {
        isl_aff *a = d < acc->n ? est_expr_to_aff(acc->idx[d], var)
                                : isl_aff_zero_on_domain(isl_local_space_copy(ls));
        /* docs/model.md §5: x is counted in fetch units of the DRAM granularity */
        if (d == 0)
            a = isl_aff_floor(isl_aff_scale_down_ui(
                isl_aff_scale_val(a, isl_val_int_from_si(ctx, fd->elem_bytes)),
                (unsigned)b->dev->dram_fetch_bytes));
        list = isl_aff_list_add(list, a);
    }
    isl_space *dom = isl_local_space_get_space(ls);
    isl_space *range = isl_space_set_tuple_name(isl_space_copy(dom), isl_dim_set, "F");
    isl_space *space = isl_space_map_from_domain_and_range(dom, range);
    isl_map *m = isl_map_from_multi_aff(isl_multi_aff_from_aff_list(space, list));
    return isl_map_intersect_domain(m, valid);
}

/* The map thread index -> fetch unit of one instruction. */
static __isl_give isl_map *inst_map(isl_ctx *ctx, const est_binding *b, const est_inst *in)
{
    const est_field *fd = &b->k->fields[in->field];
    const int *bd = b->cfg.launch.block, *fold = b->cfg.launch.folding;
    isl_local_space *ls = isl_local_space_from_space(isl_space_set_alloc(ctx, 0, 3));
    isl_aff *var[EST_VAR_COUNT];
    for (int d = 0; d < 3; d++) {
        isl_aff *t = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, d);
        var[EST_VAR_X + d] = isl_aff_add_constant_si(
            isl_aff_scale_val(isl_aff_copy(t), isl_val_int_from_si(ctx, fold[d])), in->step[d]);
        var[EST_VAR_TIDX + d] = isl_aff_copy(t);
        var[EST_VAR_THREADIDX_X + d] =
            isl_aff_mod_val(isl_aff_copy(t), isl_val_int_from_si(ctx, bd[d]));
        var[EST_VAR_BLOCKIDX_X + d] = isl_aff_floor(isl_aff_scale_down_ui(t, (unsigned)bd[d]));
        var[EST_VAR_BLOCKDIM_X + d] =
            isl_aff_val_on_domain(isl_local_space_copy(ls), isl_val_int_from_si(ctx, bd[d]));
        var[EST_VAR_GRIDDIM_X + d] = isl_aff_val_on_domain(
            isl_local_space_copy(ls), isl_val_int_from_si(ctx, b->grid[d]));
    }
    isl_map *m = fetch_map(ctx, b, fd, in->acc, var, ls, valid_threads(ctx, b, in));
    for (int v = 0; v < EST_VAR_COUNT; v++)
        isl_aff_free(var[v]);
    isl_local_space_free(ls);
    return m;
}

/* Whether every load (is_store 0) or store of field f is written in x, y, z and in
 * nothing else. Such an access is issued once per lattice point a thread updates, and
 * guarded by that point lying in the domain (valid_threads): the accesses of a box of
 * threads [lo, hi] with folding F then touch exactly the images of the lattice points
 * [lo F, min(hi F + F - 1, n - 1)], a box. Loads model v2 keeps in registers change
 * nothing: their addresses were loaded by an earlier step of the same thread, whose
 * point is valid whenever theirs is. */
static int lattice_only(const est_binding *b, int f, int is_store)
{
    const est_field *fd = &b->k->fields[f];
    for (int a = 0; a < fd->nacc; a++) {
        uint32_t u = fd->acc[a].uses;
        if (fd->acc[a].is_store == is_store &&
            (!(u & EST_VARS_LATTICE) || (u & ~EST_VARS_LATTICE)))
            return 0;
    }
    return 1;
}

/* The map lattice point -> fetch unit of access a of field f (lattice_only), with the
 * point guarded to lie in the domain. */
static __isl_give isl_map *lattice_map(isl_ctx *ctx, const est_binding *b, int f,
                                       const est_access *acc)
{
    isl_local_space *ls = isl_local_space_from_space(isl_space_set_alloc(ctx, 0, 3));
    isl_aff *var[EST_VAR_COUNT] = {0}; /* lattice_only: no other variable occurs */
    int64_t lo[3] = {0, 0, 0}, hi[3];
    for (int d = 0; d < 3; d++) {
        var[EST_VAR_X + d] = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, d);
        hi[d] = b->cfg.domain[d] - 1;
    }
    isl_map *m = fetch_map(ctx, b, &b->k->fields[f], acc, var, ls, box(ctx, lo, hi));
    for (int d = 0; d < 3; d++)
        isl_aff_free(var[EST_VAR_X + d]);
    isl_local_space_free(ls);
    return m;
}

/* Access maps are cached per thread: within a ranking they depend only on the folding
 * and, when the kernel uses threadIdx/blockIdx/blockDim/gridDim, on the block. */
static int map_key(const est_binding *b, int f, int is_store, int64_t key[12])
{
    if (lattice_only(b, f, is_store)) {
        /* a lattice map: the same for every folding and block (folding 0 marks it) */
        memset(key, 0, 12 * sizeof *key);
        key[0] = (int64_t)b->k->uid;
        key[1] = f * 2 + is_store;
        key[2] = b->dev->dram_fetch_bytes;
        for (int d = 0; d < 3; d++)
            key[6 + d] = b->cfg.domain[d];
        return 1;
    }
    uint32_t uses = 0;
    for (int i = b->first[f]; i < b->first[f] + b->count[f]; i++)
        if (b->inst[i].is_store == is_store)
            uses |= b->inst[i].acc->uses;
    int by_block = (uses & ~(EST_VARS_LATTICE | EST_VAR_BIT(EST_VAR_TIDX) |
                             EST_VAR_BIT(EST_VAR_TIDY) | EST_VAR_BIT(EST_VAR_TIDZ))) != 0;
    key[0] = (int64_t)b->k->uid;
    key[1] = f * 2 + is_store;
    key[2] = b->dev->dram_fetch_bytes;
    for (int d = 0; d < 3; d++) {
        key[3 + d] = b->cfg.launch.folding[d];
        key[6 + d] = b->cfg.domain[d];
        key[9 + d] = by_block ? b->cfg.launch.block[d] : 0;
    }
    return 0;
}

/* The access map of the loads (is_store 0) or stores of field f, or NULL when the
 * field has none of that kind (not an error: *err stays clear). */
static __isl_give isl_map *access_map(est_ctx *ctx, const est_binding *b, int f, int is_store,
                                      lr_error *err)
{
    const est_field *fd = &b->k->fields[f];
    if (!(is_store ? fd->nstores : fd->nloads))
        return NULL;
    int64_t key[12];
    map_key(b, f, is_store, key);
    for (int i = 0; i < EST_MAP_CACHE; i++)
        if (ctx->maps[i].map && !memcmp(ctx->maps[i].key, key, sizeof key))
            return isl_map_copy(ctx->maps[i].map);
    isl_map *m = NULL;
    if (key[3] == 0) { /* map_key: a lattice map, one piece per access */
        for (int a = 0; a < fd->nacc; a++) {
            if (fd->acc[a].is_store != is_store)
                continue;
            isl_map *one = lattice_map(ctx->isl, b, f, &fd->acc[a]);
            m = m ? isl_map_union(m, one) : one;
        }
    } else {
        for (int i = b->first[f]; i < b->first[f] + b->count[f]; i++) {
            if (b->inst[i].is_store != is_store)
                continue;
            isl_map *one = inst_map(ctx->isl, b, &b->inst[i]);
            m = m ? isl_map_union(m, one) : one;
        }
    }
    m = isl_map_coalesce(m);
    if (!m) {
        isl_failed(ctx->isl, err);
        return NULL;
    }
    est_map_entry *slot = &ctx->maps[ctx->next_map++ % EST_MAP_CACHE];
    isl_map_free(slot->map);
    slot->map = isl_map_copy(m);
    memcpy(slot->key, key, sizeof key);
    return m;
}

/* The threads of blocks [lo, hi) in each dimension that can execute anything (those
 * whose first lattice point lies in the domain), as an inclusive box in tbox[6];
 * 0 when empty. Clipping makes equal footprints have equal boxes (see count_footprint). */
static int thread_box(const est_binding *b, const int64_t lo[3], const int64_t hi[3],
                      int64_t tbox[6])
{
    const int *bd = b->cfg.launch.block, *fold = b->cfg.launch.folding;
    for (int d = 0; d < 3; d++) {
        int64_t valid = (b->cfg.domain[d] + fold[d] - 1) / fold[d];
        tbox[d] = lo[d] * bd[d] < 0 ? 0 : lo[d] * bd[d];
        tbox[3 + d] = (hi[d] * bd[d] < valid ? hi[d] * bd[d] : valid) - 1;
        if (tbox[3 + d] < tbox[d])
            return 0;
    }
    return 1;
}

/* Number of points of set (consumed); -1 on error. */
static double count_take(__isl_take isl_set *set)
{
    if (!set)
        return -1;
    isl_val *v = isl_set_count_val(set);
    isl_set_free(set);
    if (!v)
        return -1;
    double d = isl_val_get_d(v);
    isl_val_free(v);
    return d;
}

/* Footprint sizes |A(S)| per thread, keyed by the access map and the clipped thread
 * box: within a ranking, the z layer below the wave is the same box for every block
 * shape with the same z blocking, and counting it is the most expensive step. */
static double count_footprint(est_ctx *ctx, const int64_t mapkey[12], const int64_t tbox[6],
                              __isl_keep isl_set *footprint)
{
    int64_t key[18];
    double n;
    memcpy(key, mapkey, 12 * sizeof *key);
    memcpy(key + 12, tbox, 6 * sizeof *key);
    est_memo *memo = est_ctx_memo(ctx);
    if (memo && est_memo_get(memo, key, 18, &n, 1))
        return n;
    n = count_take(isl_set_copy(footprint));
    if (n >= 0 && memo)
        est_memo_put(memo, key, 18, &n, 1);
    return n;
}

/* The lattice points the threads of the inclusive box tbox update, clipped to the
 * domain, into lbox (inclusive); returns lbox (lattice_only explains why a box). */
static const int64_t *lattice_box(const est_binding *b, const int64_t tbox[6], int64_t lbox[6])
{
    for (int d = 0; d < 3; d++) {
        int64_t f = b->cfg.launch.folding[d], last = tbox[3 + d] * f + f - 1;
        lbox[d] = tbox[d] * f;
        lbox[3 + d] = last < b->cfg.domain[d] - 1 ? last : b->cfg.domain[d] - 1;
    }
    return lbox;
}

/* Lattice points updated by the threads of blocks [lo, hi). */
static double box_lups(const est_binding *b, const int64_t lo[3], const int64_t hi[3])
{
    double n = 1;
    for (int d = 0; d < 3; d++) {
        int64_t span = (int64_t)b->cfg.launch.block[d] * b->cfg.launch.folding[d];
        int64_t a = lo[d] * span, z = hi[d] * span;
        if (a < 0)
            a = 0;
        if (z > b->cfg.domain[d])
            z = b->cfg.domain[d];
        n *= z > a ? (double)(z - a) : 0;
    }
    return n;
}

/* The footprint A(S) of the threads of the inclusive box tbox: the addresses (or
 * lattice points, for a lattice map) they access through m; NULL for no box. */
static __isl_give isl_set *box_footprint(isl_ctx *ctx, const int64_t *tbox,
                                         __isl_keep isl_map *m)
{
    if (!tbox)
        return NULL;
    int64_t lo[3] = {tbox[0], tbox[1], tbox[2]}, hi[3] = {tbox[3], tbox[4], tbox[5]};
    return isl_set_coalesce(isl_set_apply(box(ctx, lo, hi), isl_map_copy(m)));
}

/* What field_wave counts for one field's loads or stores, in fetch units: the
 * indices of its vol[WAVE_FIGURES] (an array, as the memo keeps it). boxes[4] of
 * field_wave are the current wave and its x, y and z neighbourhoods, in this order. */
enum wave_figure {
    WAVE_CUR,       /* |A(cur)|: the current wave's footprint */
    WAVE_OVERLAP_X, /* shared by A(cur) and A(x) */
    WAVE_OVERLAP_Y, /* shared by A(cur) without A(x), and A(y) */
    WAVE_OVERLAP_Z, /* shared by A(cur) without A(x) and A(y), and A(z) */
    WAVE_OLD_Y,     /* |A(y)|: the block row below the wave */
    WAVE_OLD_Z,     /* |A(z)|: the z layer below the wave */
    WAVE_FIGURES
};

/* field_wave's figures counted by arithmetic (dram_box.c): when every load (is_store
 * 0) or store of field f maps each lattice box lboxes[k] (NULL: none) onto a box, the
 * footprints are unions of boxes, and each figure is a sum over the cells of their
 * union by the sets that cover them (bit k for lboxes[k]). 0, or -1 when an access is
 * not of that kind or the union is too large: then isl counts. */
static int box_wave(const est_binding *b, int f, int is_store, const int64_t *const lboxes[4],
                    double vol[WAVE_FIGURES])
{
    const est_field *fd = &b->k->fields[f];
    est_fbox box[EST_BOX_MAX];
    int n = 0;
    for (int a = 0; a < fd->nacc; a++) {
        if (fd->acc[a].is_store != is_store)
            continue;
        for (int k = 0; k < 4; k++) {
            if (!lboxes[k])
                continue;
            if (n == EST_BOX_MAX || est_box_image(&fd->acc[a], fd->elem_bytes,
                                                  b->dev->dram_fetch_bytes, lboxes[k], &box[n]))
                return -1;
            box[n++].set = 1u << k;
        }
    }
    int64_t v[16];
    if (est_box_volumes(box, n, v))
        return -1;
    int64_t fig[WAVE_FIGURES] = {0};
    for (unsigned m = 1; m < 16; m++) {
        int cur = m & 1, x = m & 2, y = m & 4, z = m & 8;
        fig[WAVE_CUR] += cur ? v[m] : 0;
        fig[WAVE_OVERLAP_X] += cur && x ? v[m] : 0;
        fig[WAVE_OVERLAP_Y] += cur && !x && y ? v[m] : 0;
        fig[WAVE_OVERLAP_Z] += cur && !x && !y && z ? v[m] : 0;
        fig[WAVE_OLD_Y] += y ? v[m] : 0;
        fig[WAVE_OLD_Z] += z ? v[m] : 0;
    }
    for (int i = 0; i < WAVE_FIGURES; i++) {
        if (fig[i] >= (int64_t)1 << 53) /* a double would round it: isl counts */
            return -1;
        vol[i] = (double)fig[i];
    }
    return 0;
}

/* |A(cur)|, the x, y, z overlaps (each after removing the previous neighbourhood's
 * footprint), |A(y)| and |A(z)| of one field's loads or stores, in fetch units,
 * indexed by enum wave_figure. Empty neighbourhoods (NULL sets) cost nothing. */
static int field_wave(est_ctx *ctx, const est_binding *b, int f, int is_store,
                      const int64_t *const boxes[4], double vol[WAVE_FIGURES], lr_error *err)
{
    const est_field *fd = &b->k->fields[f];
    if (!(is_store ? fd->nstores : fd->nloads))
        return 0;
    /* Different block shapes often give the same clipped thread boxes; then every
     * figure below is the same, and the whole result is reused. */
    int64_t key[36], lbox[4][6];
    const int64_t *lb[4];
    int lattice = map_key(b, f, is_store, key);
    if (lattice) {
        /* a lattice map: the boxes of lattice points the thread boxes update */
        for (int k = 0; k < 4; k++)
            lb[k] = boxes[k] ? lattice_box(b, boxes[k], lbox[k]) : NULL;
        boxes = (const int64_t *const *)lb;
    }
    for (int k = 0; k < 4; k++)
        for (int d = 0; d < 6; d++)
            key[12 + 6 * k + d] = boxes[k] ? boxes[k][d] : -1;
    est_memo *memo = est_ctx_memo(ctx);
    if (memo && est_memo_get(memo, key, 36, vol, WAVE_FIGURES))
        return 0;
    if (lattice && box_wave(b, f, is_store, boxes, vol) == 0) {
        if (memo)
            est_memo_put(memo, key, 36, vol, WAVE_FIGURES);
        return 0;
    }
    isl_map *m = access_map(ctx, b, f, is_store, err);
    if (!m)
        return lr_error_is_set(err) ? -1 : 0;
    const int64_t *mk = key;
    isl_set *cur = box_footprint(ctx->isl, boxes[0], m),
            *ax = box_footprint(ctx->isl, boxes[1], m);
    isl_set *ay = box_footprint(ctx->isl, boxes[2], m),
            *az = box_footprint(ctx->isl, boxes[3], m);
    isl_map_free(m);
    vol[WAVE_CUR] = count_footprint(ctx, mk, boxes[0], cur);
    if (ax) {
        vol[WAVE_OVERLAP_X] =
            count_take(isl_set_intersect(isl_set_copy(cur), isl_set_copy(ax)));
        cur = isl_set_subtract(cur, ax);
    }
    if (ay) {
        vol[WAVE_OVERLAP_Y] =
            count_take(isl_set_intersect(isl_set_copy(cur), isl_set_copy(ay)));
        cur = isl_set_subtract(cur, isl_set_copy(ay));
        vol[WAVE_OLD_Y] = count_footprint(ctx, mk, boxes[2], ay);
        isl_set_free(ay);
    }
    if (az) {
        vol[WAVE_OVERLAP_Z] =
            count_take(isl_set_intersect(isl_set_copy(cur), isl_set_copy(az)));
        vol[WAVE_OLD_Z] = count_footprint(ctx, mk, boxes[3], az);
        isl_set_free(az);
    }
    isl_set_free(cur);
    for (int i = 0; i < WAVE_FIGURES; i++)
        if (vol[i] < 0)
            return isl_failed(ctx->isl, err);
    if (memo)
        est_memo_put(memo, key, 36, vol, WAVE_FIGURES);
    return 0;
}

/* field_wave's figures of every field for the current wave [cur_lo, cur_hi) (in blocks)
 * and its x, y, z neighbourhoods, added into out times weight (a share of the wave:
 * est_wave_run). */
static int wave_figures(est_ctx *ctx, const est_binding *b, const int64_t cur_lo[3],
                        const int64_t cur_hi[3], double weight, est_wave *out, lr_error *err)
{
    const int64_t *g = b->grid;
    int64_t w0 = cur_hi[0] - cur_lo[0], z0 = cur_lo[2];
    int64_t x_lo[3] = {g[0] - 2 * w0, cur_lo[1], z0},
            x_hi[3] = {cur_lo[0], cur_hi[1], cur_hi[2]};
    int64_t y_lo[3] = {0, cur_lo[1] - 1, z0}, y_hi[3] = {g[0], cur_lo[1], cur_hi[2]};
    int64_t z_lo[3] = {0, 0, z0 - 1}, z_hi[3] = {g[0], g[1], z0};
    out->cur_lups += weight * box_lups(b, cur_lo, cur_hi);
    int64_t tb[4][6];
    const int64_t *boxes[4] = {thread_box(b, cur_lo, cur_hi, tb[0]) ? tb[0] : NULL,
                               thread_box(b, x_lo, x_hi, tb[1]) ? tb[1] : NULL,
                               thread_box(b, y_lo, y_hi, tb[2]) ? tb[2] : NULL,
                               thread_box(b, z_lo, z_hi, tb[3]) ? tb[3] : NULL};
    if (!boxes[0])
        return lr_error_set(err, LR_INTERNAL, NULL, "the current wave is empty");
    double u = weight * b->dev->dram_fetch_bytes;
    for (int f = 0; f < b->k->nfields; f++) {
        double lv[WAVE_FIGURES] = {0}, sv[WAVE_FIGURES] = {0};
        if (field_wave(ctx, b, f, 0, boxes, lv, err) ||
            field_wave(ctx, b, f, 1, boxes, sv, err))
            return -1;
        est_field_wave *fw = &out->f[f];
        fw->vnew_load += lv[WAVE_CUR] * u;
        fw->ov_y += (lv[WAVE_OVERLAP_X] + lv[WAVE_OVERLAP_Y]) * u;
        fw->ov_z += lv[WAVE_OVERLAP_Z] * u;
        fw->old_y += (lv[WAVE_OLD_Y] + sv[WAVE_OLD_Y]) * u;
        fw->old_z += (lv[WAVE_OLD_Z] + sv[WAVE_OLD_Z]) * u;
        fw->vnew_store += sv[WAVE_CUR] * u;
        fw->ov_store_y += (sv[WAVE_OVERLAP_X] + sv[WAVE_OVERLAP_Y]) * u;
        fw->ov_store_z += sv[WAVE_OVERLAP_Z] * u;
    }
    return 0;
}

int est_wave_run(est_ctx *ctx, const est_binding *b, int64_t W, est_wave *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    isl_ctx *ic = ctx->isl;
    isl_ctx_reset_error(ic);
    isl_ctx_reset_operations(ic);
    isl_ctx_set_max_operations(ic, ctx->max_ops);
    const int64_t *g = b->grid;
    const int *bd = b->cfg.launch.block, *fold = b->cfg.launch.folding;
    const int64_t *n = b->cfg.domain;
    /* docs/model.md §5: wave extent; the block rows count valid blocks of a row, folding
     * included (Warpspeed divides by the block size alone). */
    double row = (double)n[0] / ((double)bd[0] * fold[0]);
    double layer = row * (double)n[1] / ((double)bd[1] * fold[1]);
    int64_t w[3];
    w[0] = g[0] < W ? g[0] : W;
    w[1] = (int64_t)ceil((double)W / row);
    w[1] = g[1] < w[1] ? g[1] : w[1];
    w[2] = (int64_t)ceil((double)W / layer);
    w[2] = g[2] < w[2] ? g[2] : w[2];
    memcpy(out->dims, w, sizeof w);
    /* shift the wave one block row down when the last block row is < 10 % valid */
    int64_t shift = 0;
    double last_row = (double)(n[1] - (g[1] - 1) * bd[1] * fold[1]) / ((double)bd[1] * fold[1]);
    if (g[1] > 1 && last_row < 0.1)
        shift = 1;
    int64_t z0 = g[2] / 2;
    int64_t cur_lo[3] = {g[0] - w[0], g[1] - w[1] - shift, z0};
    int64_t cur_hi[3] = {g[0], g[1] - shift, z0 + w[2]};
    /* docs/model.md, "A wave of whole layers and a part": a wave of W / layer = k + p
     * layers (k >= 1, 0 < p < 1) is not the box of k + 1 whole layers; its footprint and
     * its updates are those of k layers and the share p of the (k + 1)-th layer's. Only
     * on a device that reuses nothing of earlier waves (miss_ovy = miss_ovz = 1, the
     * K20m as Su et al.'s groups), where the wave's footprint is what it loads: the
     * curves of the others were fitted on the box of whole layers */
    double p = (double)W / layer - (double)(w[2] - 1);
    int part = b->rules.partial_layer && w[2] > 1 && p > 0 && p < 1 &&
               est_fit_eval(b->dev->miss_ovy, 0) >= 1 && est_fit_eval(b->dev->miss_ovz, 0) >= 1;
    int rc = wave_figures(ctx, b, cur_lo, cur_hi, part ? p : 1, out, err);
    if (!rc && part) {
        cur_hi[2]--;
        rc = wave_figures(ctx, b, cur_lo, cur_hi, 1 - p, out, err);
    }
    for (int f = 0; f < b->k->nfields && !rc; f++)
        /* a store written in x, y, z alone writes its element once per lattice update
         * (docs/model.md, "Stores shared with the previous wave") */
        if (b->k->fields[f].nstores && lattice_only(b, f, 1))
            out->f[f].store_floor = est_kernel_field_store_bytes(b->k, f);
    return rc;
}

est_ctx *est_ctx_new(unsigned long max_operations)
{
    est_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->isl = isl_ctx_alloc();
    if (!c->isl) {
        free(c);
        return NULL;
    }
    est_deadline_start(c);
    /* never abort the process, never print: errors come back as values */
    isl_options_set_on_error(c->isl, ISL_ON_ERROR_CONTINUE);
    c->max_ops = max_operations ? max_operations : EST_DEFAULT_MAX_OPS;
    return c;
}

est_memo *est_ctx_memo(est_ctx *c)
{
    if (!c->memo)
        c->memo = c->own_memo = est_memo_new(); /* NULL when out of memory: no memo */
    return c->memo;
}

void est_ctx_share_memo(est_ctx *c, est_memo *shared)
{
    c->memo = shared;
}

void est_ctx_free(est_ctx *c)
{
    if (!c)
        return;
    est_deadline_stop(c);
    est_memo_free(c->own_memo);
    for (int i = 0; i < EST_MAP_CACHE; i++)
        isl_map_free(c->maps[i].map);
    est_cache_free(c->warp_memo);
    est_warp_shapes_free(c->warp_shapes);
    isl_ctx_free(c->isl);
    free(c);
}
