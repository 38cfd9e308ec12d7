/*
 * bind: a kernel under one configuration becomes a list of instructions (access x
 * folding step), each with its address as a function of the six launch coordinates
 * (threadIdx, blockIdx). Most stencil addresses are affine in those coordinates; for
 * them the address is a dot product, which keeps the samplers fast.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "estimator_int.h"

/* Addresses must stay far from int64 overflow in the samplers' arithmetic. */
#define ADDRESS_LIMIT 1e17

static void fill_vars(const est_binding *b, const est_inst *in, const int64_t c[EST_NCOORD],
                      int64_t val[EST_VAR_COUNT])
{
    const int *blk = b->cfg.launch.block, *fold = b->cfg.launch.folding;
    for (int d = 0; d < 3; d++) {
        int64_t tid = c[EST_B_X + d] * blk[d] + c[EST_T_X + d];
        val[EST_VAR_THREADIDX_X + d] = c[EST_T_X + d];
        val[EST_VAR_BLOCKIDX_X + d] = c[EST_B_X + d];
        val[EST_VAR_BLOCKDIM_X + d] = blk[d];
        val[EST_VAR_GRIDDIM_X + d] = b->grid[d];
        val[EST_VAR_TIDX + d] = tid;
        val[EST_VAR_X + d] = tid * fold[d] + in->step[d];
    }
}

static int64_t linear_address(const est_binding *b, const est_inst *in,
                              const int64_t val[EST_VAR_COUNT])
{
    const est_field *f = &b->k->fields[in->field];
    int64_t i[3] = {0, 0, 0};
    for (int d = 0; d < in->acc->n; d++)
        i[d] = est_expr_eval(in->acc->idx[d], val);
    return est_field_address(f, i);
}

/* The byte address in double precision with every index evaluated without wrapping;
 * -1 when an index overflows int64 (the caller reports it). */
static int checked_address(const est_binding *b, const est_inst *in,
                           const int64_t val[EST_VAR_COUNT], double *out)
{
    const est_field *f = &b->k->fields[in->field];
    int64_t i[3] = {0, 0, 0};
    for (int d = 0; d < in->acc->n; d++)
        if (est_expr_eval_checked(in->acc->idx[d], val, &i[d]))
            return -1;
    *out = (double)f->base_offset +
           (double)f->elem_bytes * ((double)i[0] + (double)i[1] * (double)f->dims[0] +
                                    (double)i[2] * (double)f->dims[0] * (double)f->dims[1]);
    return 0;
}

int64_t est_inst_address(const est_binding *b, const est_inst *in, const int64_t c[EST_NCOORD],
                         int *valid)
{
    const int *fold = b->cfg.launch.folding;
    const int *blk = b->cfg.launch.block;
    int ok = 1;
    for (int d = 0; d < 3; d++) {
        int64_t p = (c[EST_B_X + d] * blk[d] + c[EST_T_X + d]) * fold[d] + in->step[d];
        if (p < 0 || p >= b->cfg.domain[d])
            ok = 0;
    }
    *valid = ok;
    if (in->affine) {
        int64_t a = in->c0;
        for (int i = 0; i < EST_NCOORD; i++)
            a += in->coef[i] * c[i];
        return a;
    }
    int64_t val[EST_VAR_COUNT];
    fill_vars(b, in, c, val);
    return linear_address(b, in, val);
}

int64_t est_thread_lups(const est_binding *b, const int64_t c[EST_NCOORD])
{
    int64_t n = 1;
    for (int d = 0; d < 3; d++) {
        int f = b->cfg.launch.folding[d];
        int64_t first = (c[EST_B_X + d] * b->cfg.launch.block[d] + c[EST_T_X + d]) * f;
        int64_t left = b->cfg.domain[d] - first;
        n *= left <= 0 ? 0 : (left < f ? left : f);
    }
    return n;
}

/* Checks that the instruction's addresses stay far inside int64 over the whole grid:
 * every index is evaluated without wrapping at the corners of the launch (the origin,
 * the unit vectors and the far corner of every coordinate); for an affine address that
 * bounds every address the samplers compute. Then fills in->c0/coef, which for an
 * affine address are exact: its value at the origin and the differences at the unit
 * vectors. */
static int linearize(est_binding *b, est_inst *in, int field, lr_error *err)
{
    const char *fname = b->k->fields[field].name;
    int64_t c[EST_NCOORD] = {0}, val[EST_VAR_COUNT];
    double a, bound = 0;
    for (int i = -1; i < 2 * EST_NCOORD; i++) {
        memset(c, 0, sizeof c);
        if (i >= 0 && i < EST_NCOORD)
            c[i] = 1;
        else if (i >= EST_NCOORD) { /* far corner along one coordinate */
            int k = i - EST_NCOORD;
            c[k] = k < EST_B_X ? b->cfg.launch.block[k] - 1 : b->grid[k - EST_B_X] - 1;
        }
        fill_vars(b, in, c, val);
        if (checked_address(b, in, val, &a) || fabs(a) > ADDRESS_LIMIT)
            return lr_error_set(err, LR_INVALID_REQUEST, b->field_path[field],
                                "field '%s': an access reaches addresses beyond what any GPU "
                                "can address (int64 overflow or more than 1e17 bytes)",
                                fname);
        bound = fabs(a) > bound ? fabs(a) : bound;
    }
    int64_t zero[EST_NCOORD] = {0};
    fill_vars(b, in, zero, val);
    in->c0 = linear_address(b, in, val);
    double sum = fabs((double)in->c0);
    for (int i = 0; i < EST_NCOORD; i++) {
        int64_t unit[EST_NCOORD] = {0};
        unit[i] = 1;
        fill_vars(b, in, unit, val);
        in->coef[i] = linear_address(b, in, val) - in->c0;
        int64_t extent = i < EST_B_X ? b->cfg.launch.block[i] : b->grid[i - EST_B_X];
        sum += fabs((double)in->coef[i]) * (double)extent;
    }
    if (in->affine && sum > ADDRESS_LIMIT)
        return lr_error_set(err, LR_INVALID_REQUEST, b->field_path[field],
                            "field '%s': addresses reach %.3g bytes, beyond what any GPU can "
                            "address",
                            fname, sum);
    return 0;
}

static int push_inst(est_binding *b, int *cap, const est_inst *in, lr_error *err)
{
    if (b->ninst == *cap) {
        int ncap = *cap ? 2 * *cap : 64;
        est_inst *ni = realloc(b->inst, (size_t)ncap * sizeof *ni);
        if (!ni)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        b->inst = ni;
        *cap = ncap;
    }
    b->inst[b->ninst++] = *in;
    return 0;
}

/* The affine addresses bound so far, hashed, so that in_register finds an equal one
 * in constant time: a scan of all earlier instructions made binding quadratic (5 s
 * for 4 fields x 512 loads x 64 folding steps, far more under ASan), and binding does
 * not poll the request's deadline, so its cost must stay bounded by the input limits.
 * A slot holds an instruction's index (an int) into the binding's inst. */
typedef struct addr_set {
    est_cache *slots; /* owned; NULL: no load can be reused */
} addr_set;

static uint64_t addr_hash(const est_inst *in)
{
    uint64_t h = (uint64_t)in->field * 0x9E3779B97F4A7C15ull ^ (uint64_t)in->c0;
    for (int i = 0; i < EST_NCOORD; i++)
        h = (h ^ (uint64_t)in->coef[i]) * 0x100000001B3ull;
    return h ^ (h >> 29);
}

static int same_address(const est_inst *a, const est_inst *b)
{
    return a->field == b->field && a->affine && b->affine && a->c0 == b->c0 &&
           !memcmp(a->coef, b->coef, sizeof a->coef);
}

/* docs/model.md, "Register reuse across folding steps": under model v2, a load of a
 * field the kernel never stores, with __restrict__ pointers, at an address that an
 * earlier folding step of the same thread already loaded, is served from a register:
 * the compiler may keep the value because nothing can overwrite it. Addresses are
 * compared as affine functions of the launch coordinates (equal for every thread);
 * other loads are never merged. set holds every reusable load bound so far; the
 * field is part of the address compared. */
static int may_reuse(const est_binding *b, int f, const est_inst *in)
{
    const est_kernel *k = b->k;
    return k->model == EST_MODEL_V2 && k->restrict_ && k->fields[f].nstores == 0 &&
           !in->is_store && in->affine;
}

/* Whether step a comes no later than step b in every dimension: then a thread that
 * executes step b (its lattice point lies in the domain) executes step a too. */
static int step_not_later(const est_inst *a, const est_inst *b)
{
    return a->step[0] <= b->step[0] && a->step[1] <= b->step[1] && a->step[2] <= b->step[2];
}

/* Whether in's address is already held by a bound load of the same thread: then in is
 * not issued. Accesses are bound one after another, each over all its steps, so the
 * load bound first may belong to a later step than in; then in takes its place as the
 * one load of that address (same address, the earlier step's guard: at the domain's
 * edge the later step does not run, the earlier one does). Steps that differ in two
 * dimensions in opposite directions keep the load bound first (docs/model.md, "Register
 * reuse across folding steps"). */
typedef struct addr_key {
    const est_binding *b;
    const est_inst *in;
} addr_key;

static int same_slot_address(const void *payload, const void *key)
{
    const addr_key *k = key;
    return same_address(&k->b->inst[*(const int *)payload], k->in);
}

static int in_register(est_binding *b, const addr_set *set, int f, const est_inst *in)
{
    if (!may_reuse(b, f, in) || !set->slots)
        return 0;
    addr_key k = {b, in};
    int found;
    const int *idx = est_cache_find(set->slots, addr_hash(in), same_slot_address, &k, &found);
    if (!found)
        return 0;
    est_inst *had = &b->inst[*idx];
    if (!step_not_later(had, in) && step_not_later(in, had)) {
        had->acc = in->acc;
        memcpy(had->step, in->step, sizeof had->step);
    }
    return 1;
}

/* Adds instruction idx (just pushed, not in the set) to set. */
static void remember(const est_binding *b, addr_set *set, int f, int idx)
{
    const est_inst *in = &b->inst[idx];
    if (!may_reuse(b, f, in) || !set->slots)
        return;
    uint64_t h = addr_hash(in);
    addr_key k = {b, in};
    int found;
    /* not found (in_register said so): the free slot it takes, never NULL (the set is
     * at most half full and every slot may be probed) */
    int *slot = est_cache_find(set->slots, h, same_slot_address, &k, &found);
    *slot = idx;
    est_cache_take(set->slots, slot, h);
}

/* A set for every instruction k can bind under cfg, at most half full; a set with
 * no slots when no load can be reused. -1 when out of memory. */
static int addr_set_init(addr_set *set, const est_kernel *k, const int *fold)
{
    size_t n = 0;
    int log2 = 4;
    set->slots = NULL;
    if (k->model != EST_MODEL_V2 || !k->restrict_)
        return 0;
    for (int f = 0; f < k->nfields; f++)
        n += (size_t)k->fields[f].nacc * (size_t)fold[0] * (size_t)fold[1] * (size_t)fold[2];
    while (((size_t)1 << log2) < 2 * n)
        log2++;
    set->slots = est_cache_new(log2, sizeof(int), 1 << log2);
    return set->slots ? 0 : -1;
}

/* Groups each field's affine instructions by their coefficient vectors; a
 * non-affine instruction is a group of its own. */
static int make_groups(est_binding *b)
{
    b->groups = calloc((size_t)(b->ninst ? b->ninst : 1), sizeof *b->groups);
    b->member = calloc((size_t)(b->ninst ? b->ninst : 1), sizeof *b->member);
    int *of = calloc((size_t)(b->ninst ? b->ninst : 1), sizeof *of);
    if (!b->groups || !b->member || !of) {
        free(of);
        return -1;
    }
    for (int i = 0; i < b->ninst; i++) {
        const est_inst *in = &b->inst[i];
        int g = -1;
        for (int j = b->ngroups - 1; in->affine && j >= 0 && b->groups[j].field == in->field;
             j--) {
            const est_inst *ref = &b->inst[b->member[b->groups[j].first]];
            if (b->groups[j].affine && !memcmp(ref->coef, in->coef, sizeof in->coef)) {
                g = j;
                break;
            }
        }
        if (g < 0) {
            g = b->ngroups++;
            b->groups[g] = (est_group){.field = in->field, .affine = in->affine, .first = i};
            b->member[i] = i; /* placeholder: fixed below */
        }
        of[i] = g;
        b->groups[g].n++;
    }
    /* lay the members out contiguously, group by group */
    int pos = 0;
    for (int g = 0; g < b->ngroups; g++) {
        b->groups[g].first = pos;
        pos += b->groups[g].n;
        b->groups[g].n = 0;
    }
    for (int i = 0; i < b->ninst; i++) {
        est_group *gr = &b->groups[of[i]];
        b->member[gr->first + gr->n++] = i;
    }
    free(of);
    return 0;
}

/* Address variables fixed by the launch: an expression of them and the lattice
 * coordinates stays affine (docs/model.md §1). */
static const uint32_t launch_consts =
    EST_VAR_BIT(EST_VAR_BLOCKDIM_X) | EST_VAR_BIT(EST_VAR_BLOCKDIM_Y) |
    EST_VAR_BIT(EST_VAR_BLOCKDIM_Z) | EST_VAR_BIT(EST_VAR_GRIDDIM_X) |
    EST_VAR_BIT(EST_VAR_GRIDDIM_Y) | EST_VAR_BIT(EST_VAR_GRIDDIM_Z);

/* Access acc of field f at every folding step (one step when it does not depend on the
 * lattice point): an instruction each, unless register reuse keeps an earlier step's
 * load. 0, or -1 with err. */
static int bind_access(est_binding *b, int *cap, addr_set *set, int f, const est_access *acc,
                       lr_error *err)
{
    est_inst in = {.field = f, .is_store = acc->is_store, .acc = acc};
    in.lattice = (acc->uses & EST_VARS_LATTICE) != 0;
    in.affine = 1;
    for (int d = 0; d < acc->n; d++)
        in.affine &= est_expr_is_affine(acc->idx[d], launch_consts);
    int steps[3] = {1, 1, 1};
    if (in.lattice)
        memcpy(steps, b->cfg.launch.folding, sizeof steps);
    for (int s2 = 0; s2 < steps[2]; s2++)
        for (int s1 = 0; s1 < steps[1]; s1++)
            for (int s0 = 0; s0 < steps[0]; s0++) {
                in.step[0] = s0;
                in.step[1] = s1;
                in.step[2] = s2;
                if (linearize(b, &in, f, err))
                    return -1;
                if (in_register(b, set, f, &in))
                    continue;
                if (push_inst(b, cap, &in, err))
                    return -1;
                remember(b, set, f, b->ninst - 1);
            }
    return 0;
}

/* Every access of every field, loads before stores within a field (the order the
 * instructions and their groups keep). 0, or -1 with err. */
static int bind_fields(est_binding *b, addr_set *set, lr_error *err)
{
    const est_kernel *k = b->k;
    int cap = 0;
    for (int f = 0; f < k->nfields; f++) {
        const est_field *fd = &k->fields[f];
        b->first[f] = b->ninst;
        for (int pass = 0; pass < 2; pass++)
            for (int a = 0; a < fd->nacc; a++)
                if (fd->acc[a].is_store == pass && bind_access(b, &cap, set, f, &fd->acc[a], err))
                    return -1;
        b->count[f] = b->ninst - b->first[f];
    }
    return 0;
}

/* How much of a folded thread's stores reach L2 merged, by the bytes R the thread
 * stores over all fields and steps when it issues them back to back (model v2;
 * docs/model.md, "Partly written sectors"; measured with lab/2026-11-23-storemerge): up to
 * RULE(MERGE_FULL_BYTES) all merge, from RULE(MERGE_PART_BYTES) none, in between an
 * unmerged share that falls with the loads per store, interpolated linearly in R. */
static double bytes_stored_per_step(const est_kernel *k)
{
    double bytes = 0;
    for (int f = 0; f < k->nfields; f++)
        bytes += est_kernel_field_store_bytes(k, f);
    return bytes;
}

static double loads_per_store(const est_kernel *k)
{
    int loads = 0, stores = est_kernel_stores(k);
    for (int f = 0; f < k->nfields; f++)
        loads += k->fields[f].nloads;
    return stores ? (double)loads / stores : 0;
}

/* Whether the stores of all of a folded thread's steps are sampled as one step's
 * (model v2), and the share of the steps' sector writes that still reach L2 unmerged
 * (*unmerged, 0 to 1). Where block x folding does not tile the domain, cudagen adds a
 * guarded second form for the edge threads; with two steps NVCC then issues the first
 * step's store while the second step's loads are in flight, and the second store one
 * memory latency later (SASS, H100: doubles folded 2 in x on the odd domains measure
 * 16.5 B/Lup of L2 stores, the per-instruction count). With more steps the inner
 * threads' form stores all steps back to back (SASS), as on tiled domains. */
static int merges_all_steps(const est_kernel *k, const est_config *cfg, double *unmerged)
{
    const int *fold = cfg->launch.folding;
    int64_t steps = (int64_t)fold[0] * fold[1] * fold[2];
    *unmerged = 0;
    if (k->model != EST_MODEL_V2 || steps == 1 || !est_kernel_defers_stores(k) ||
        (steps == 2 && !est_config_tiles_domain(cfg)))
        return 0;
    double R = bytes_stored_per_step(k) * (double)steps;
    if (R > RULE(MERGE_PART_BYTES))
        return 0;
    if (R > RULE(MERGE_FULL_BYTES)) {
        /* at most 0.75, with no load at all */
        double u = RULE(MERGE_UNMERGED_ONE_LOAD) -
                   RULE(MERGE_UNMERGED_PER_LOAD) * (loads_per_store(k) - 1);
        if (u < 0)
            u = 0;
        *unmerged = u * (R - RULE(MERGE_FULL_BYTES)) /
                    (RULE(MERGE_PART_BYTES) - RULE(MERGE_FULL_BYTES));
    }
    return 1;
}

int est_bind(est_binding *b, const est_kernel *k, const est_device *dev, const est_config *cfg,
             lr_error *err)
{
    memset(b, 0, sizeof *b);
    b->k = k;
    b->dev = dev;
    b->cfg = *cfg;
    const int *blk = cfg->launch.block;
    b->threads = blk[0] * blk[1] * blk[2];
    b->spread = k->gathers > 0;
    b->merge_all_steps = merges_all_steps(k, cfg, &b->store_unmerged);
    int v2 = k->model == EST_MODEL_V2;
    b->rules = (est_volume_rules){v2, v2, v2, v2, v2, v2, v2, v2, v2};
    for (int f = 0; f < k->nfields && f < EST_MAX_FIELDS; f++)
        snprintf(b->field_path[f], sizeof b->field_path[f], "kernel.fields[%d]", f);
    est_grid(cfg, b->grid);
    addr_set set;
    if (addr_set_init(&set, k, cfg->launch.folding))
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    int rc = bind_fields(b, &set, err);
    est_cache_free(set.slots);
    if (!rc && make_groups(b))
        rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (rc)
        est_binding_release(b);
    return rc;
}

void est_binding_release(est_binding *b)
{
    free(b->inst);
    free(b->groups);
    free(b->member);
    b->inst = NULL;
    b->groups = NULL;
    b->member = NULL;
    b->ninst = b->ngroups = 0;
}
