/*
 * kernel: the kernel description (fields, their accesses, compute figures). Built
 * once per request, then shared read-only by every configuration's estimate.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "estimator_int.h"
#include "table_int.h"

est_kernel *est_kernel_new(void)
{
    est_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    static _Atomic uint64_t next_uid = 1;
    k->uid = next_uid++;
    k->registers = 32;
    k->fp_instructions = -1;
    k->model = EST_MODEL_V2;
    k->restrict_ = 1;
    return k;
}

void est_kernel_free(est_kernel *k)
{
    if (!k)
        return;
    for (int f = 0; f < k->nfields; f++) {
        est_field *fd = &k->fields[f];
        for (int a = 0; a < fd->nacc; a++)
            for (int d = 0; d < fd->acc[a].n; d++)
                est_expr_free(fd->acc[a].idx[d]);
        free(fd->acc);
        est_table_free(fd->table);
    }
    for (int i = 0; i < k->nvariants; i++)
        est_kernel_free(k->variant[i]);
    free(k->variant);
    free(k->fields);
    free(k);
}

int est_kernel_add_field(est_kernel *k, const char *name, int elem_bytes, int ndims,
                         const int64_t dims[], int64_t base_offset_bytes, const char *path,
                         lr_error *err)
{
    if (k->nfields >= EST_MAX_FIELDS)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, path, "a kernel may have at most %d fields",
                            EST_MAX_FIELDS);
    if (ndims < 1 || ndims > 3)
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            "a field has 1 to 3 dimensions, not %d", ndims);
    if (k->nfields == k->cap) {
        int cap = k->cap ? 2 * k->cap : 8;
        est_field *nf = realloc(k->fields, (size_t)cap * sizeof *nf);
        if (!nf)
            return lr_error_set(err, LR_NO_MEMORY, path, "out of memory");
        k->fields = nf;
        k->cap = cap;
    }
    est_field *f = &k->fields[k->nfields];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->elem_bytes = elem_bytes;
    f->ndims = ndims;
    for (int d = 0; d < 3; d++)
        f->dims[d] = d < ndims ? dims[d] : 1;
    f->base_offset = base_offset_bytes;
    return k->nfields++;
}

int est_kernel_add_access(est_kernel *k, int field, int is_store, est_expr *idx[], int n,
                          const char *path, lr_error *err)
{
    est_field *f = &k->fields[field];
    int rc = 0;
    if (n != f->ndims)
        rc = lr_error_set(err, LR_INVALID_REQUEST, path,
                          "field '%s' has %d dimension%s but this access has %d index "
                          "expression%s",
                          f->name, f->ndims, f->ndims == 1 ? "" : "s", n, n == 1 ? "" : "s");
    else if (f->nacc >= EST_MAX_ACCESSES)
        rc = lr_error_set(err, LR_LIMIT_EXCEEDED, path, "a field may have at most %d accesses",
                          EST_MAX_ACCESSES);
    if (!rc && f->nacc == f->cap) {
        int cap = f->cap ? 2 * f->cap : 8;
        est_access *na = realloc(f->acc, (size_t)cap * sizeof *na);
        if (!na)
            rc = lr_error_set(err, LR_NO_MEMORY, path, "out of memory");
        else {
            f->acc = na;
            f->cap = cap;
        }
    }
    if (rc) {
        for (int d = 0; d < n; d++)
            est_expr_free(idx[d]);
        return -1;
    }
    est_access *a = &f->acc[f->nacc++];
    memset(a, 0, sizeof *a);
    a->n = n;
    a->is_store = is_store;
    for (int d = 0; d < n; d++) {
        a->idx[d] = idx[d];
        a->uses |= est_expr_uses(idx[d]);
    }
    if (is_store)
        f->nstores++;
    else
        f->nloads++;
    if (a->uses & EST_USES_TABLE)
        k->gathers++;
    return 0;
}

int est_kernel_set_table(est_kernel *k, int field, est_table *t, const char *path,
                         lr_error *err)
{
    est_field *f = &k->fields[field];
    int64_t dims[3];
    est_table_dims(t, dims);
    int same = est_table_ndims(t) == f->ndims;
    for (int d = 0; d < 3; d++)
        same &= dims[d] == f->dims[d];
    if (!same || f->table) {
        est_table_free(t);
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            f->table ? "field '%s' has values already"
                                     : "the values of field '%s' do not match its dims",
                            f->name);
    }
    f->table = t;
    return 0;
}

const est_table *est_kernel_field_table(const est_kernel *k, int field)
{
    return k->fields[field].table;
}

int est_field_gathers(const est_field *f)
{
    for (int a = 0; a < f->nacc; a++)
        if (f->acc[a].uses & EST_USES_TABLE)
            return 1;
    return 0;
}

int est_kernel_gathers(const est_kernel *k)
{
    return k->gathers;
}

void est_kernel_set_compute(est_kernel *k, double flops, double fp_instructions, int fp64,
                            int registers, int64_t shared_bytes_per_block)
{
    k->flops = flops;
    k->fp_instructions = fp_instructions < 0 ? ceil(flops / 2) : fp_instructions;
    k->fp64 = fp64;
    k->registers = registers;
    k->shared_bytes = shared_bytes_per_block;
}

void est_kernel_set_instructions(est_kernel *k, const est_instructions *mix)
{
    k->has_instructions = mix != NULL;
    if (mix)
        k->instructions = *mix;
}

int est_kernel_instructions(const est_kernel *k, est_instructions *mix)
{
    if (k->has_instructions)
        *mix = k->instructions;
    return k->has_instructions;
}

void est_kernel_set_model(est_kernel *k, est_model model, int restrict_)
{
    k->model = model;
    k->restrict_ = restrict_ != 0;
}

est_model est_kernel_model(const est_kernel *k)
{
    return k->model;
}

int est_kernel_restrict(const est_kernel *k)
{
    return k->restrict_;
}

int est_kernel_defers_stores(const est_kernel *k)
{
    if (!k->restrict_)
        return 0;
    for (int f = 0; f < k->nfields; f++)
        if (k->fields[f].nloads && k->fields[f].nstores)
            return 0;
    return 1;
}

int est_kernel_stores(const est_kernel *k)
{
    int stores = 0;
    for (int f = 0; f < k->nfields; f++)
        stores += k->fields[f].nstores;
    return stores;
}

double est_kernel_field_store_bytes(const est_kernel *k, int f)
{
    return (double)k->fields[f].nstores * k->fields[f].elem_bytes;
}

void est_kernel_set_identity(est_kernel *k, uint64_t identity)
{
    /* the top bit keeps content identities apart from the counter's */
    k->uid = identity | (1ull << 63);
}

int est_kernel_field_count(const est_kernel *k)
{
    return k->nfields;
}

const char *est_kernel_field_name(const est_kernel *k, int field)
{
    return k->fields[field].name;
}

int est_kernel_field_elem_bytes(const est_kernel *k, int field)
{
    return k->fields[field].elem_bytes;
}

double est_kernel_flops(const est_kernel *k)
{
    return k->flops;
}

double est_kernel_fp_instructions(const est_kernel *k)
{
    return k->fp_instructions < 0 ? ceil(k->flops / 2) : k->fp_instructions;
}

int est_kernel_fp64(const est_kernel *k)
{
    return k->fp64;
}

int est_kernel_registers(const est_kernel *k)
{
    return k->registers;
}

int64_t est_kernel_shared_bytes(const est_kernel *k)
{
    return k->shared_bytes;
}

int est_kernel_field_ndims(const est_kernel *k, int field)
{
    return k->fields[field].ndims;
}

void est_kernel_field_dims(const est_kernel *k, int field, int64_t dims[3])
{
    memcpy(dims, k->fields[field].dims, 3 * sizeof *dims);
}

int64_t est_kernel_field_base_offset(const est_kernel *k, int field)
{
    return k->fields[field].base_offset;
}

int est_kernel_access_count(const est_kernel *k, int field)
{
    return k->fields[field].nacc;
}

int est_kernel_access_is_store(const est_kernel *k, int field, int access)
{
    return k->fields[field].acc[access].is_store;
}

const est_expr *est_kernel_access_index(const est_kernel *k, int field, int access, int d)
{
    return k->fields[field].acc[access].idx[d];
}

/* c gets k's fields, every index field of ncells cells with its values renumbered by
 * perm. 0, or -1 with err. */
static int copy_fields(est_kernel *c, const est_kernel *k, const int64_t *perm, int64_t ncells,
                       lr_error *err)
{
    for (int f = 0; f < k->nfields; f++) {
        const est_field *fd = &k->fields[f];
        if (est_kernel_add_field(c, fd->name, fd->elem_bytes, fd->ndims, fd->dims,
                                 fd->base_offset, NULL, err) < 0)
            return -1;
        const est_table *t = fd->table;
        if (!t)
            continue;
        c->fields[f].table =
            t->dims[t->ndims - 1] == ncells ? est_table_permuted(t, perm, ncells) : NULL;
        if (!c->fields[f].table)
            return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                                "the cells of index field '%s' cannot be renumbered: its last "
                                "dimension must count the %lld cells and every value be a cell",
                                fd->name, (long long)ncells);
    }
    return 0;
}

/* c gets access a of k's field f, its table reads reading c's tables. 0, or -1. */
static int copy_access(est_kernel *c, const est_kernel *k, int f, int a, lr_error *err)
{
    const est_access *acc = &k->fields[f].acc[a];
    est_expr *idx[3] = {NULL, NULL, NULL};
    int ok = 1;
    for (int d = 0; d < acc->n; d++) {
        idx[d] = est_expr_copy(acc->idx[d]);
        ok &= idx[d] != NULL;
        for (int g = 0; idx[d] && g < k->nfields; g++)
            if (k->fields[g].table)
                est_expr_rebind(idx[d], k->fields[g].table, c->fields[g].table);
    }
    if (!ok) {
        for (int d = 0; d < acc->n; d++)
            est_expr_free(idx[d]);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    return est_kernel_add_access(c, f, acc->is_store, idx, acc->n, NULL, err);
}

/* A copy of k whose mesh is renumbered by perm (est_kernel_add_variant). NULL with err. */
static est_kernel *renumbered(const est_kernel *k, const int64_t *perm, int64_t ncells,
                              lr_error *err)
{
    est_kernel *c = est_kernel_new();
    if (!c) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    uint64_t uid = c->uid;
    *c = *k;
    c->uid = uid;
    c->fields = NULL;
    c->nfields = c->cap = 0;
    c->variant = NULL;
    c->nvariants = 0;
    c->gathers = 0;
    int rc = copy_fields(c, k, perm, ncells, err);
    for (int f = 0; f < k->nfields && !rc; f++)
        for (int a = 0; a < k->fields[f].nacc && !rc; a++)
            rc = copy_access(c, k, f, a, err);
    if (rc) {
        est_kernel_free(c);
        return NULL;
    }
    return c;
}

int est_kernel_add_variant(est_kernel *k, const int64_t *perm, int64_t ncells, lr_error *err)
{
    est_kernel **v = realloc(k->variant, (size_t)(k->nvariants + 1) * sizeof *v);
    if (!v)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    k->variant = v;
    est_kernel *c = renumbered(k, perm, ncells, err);
    if (!c)
        return -1;
    k->variant[k->nvariants++] = c;
    return k->nvariants;
}
