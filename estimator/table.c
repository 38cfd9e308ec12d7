/*
 * table: an index field's values (table.h).
 */
#include <stdlib.h>
#include <string.h>

#include "table_int.h"

static void set_range(est_table *t)
{
    t->min = t->size ? est_table_at(t, 0) : 0;
    t->max = t->min;
    for (int64_t i = 1; i < t->size; i++) {
        int64_t v = est_table_at(t, i);
        t->min = v < t->min ? v : t->min;
        t->max = v > t->max ? v : t->max;
    }
}

est_table *est_table_new(const char *name, int ndims, const int64_t dims[3], int elem_bytes,
                         void *values, const char *path, lr_error *err)
{
    est_table *t = NULL;
    if (ndims < 1 || ndims > 3 || (elem_bytes != 4 && elem_bytes != 8) || !values) {
        lr_error_set(err, LR_INVALID_REQUEST, path,
                     "an index field has 1 to 3 dimensions and 4- or 8-byte integers");
        goto fail;
    }
    if (!(t = calloc(1, sizeof *t)) || !(t->name = strdup(name ? name : ""))) {
        lr_error_set(err, LR_NO_MEMORY, path, "out of memory");
        goto fail;
    }
    t->ndims = ndims;
    t->size = 1;
    for (int d = 0; d < 3; d++) {
        t->dims[d] = d < ndims ? dims[d] : 1;
        t->size *= t->dims[d];
    }
    t->elem_bytes = elem_bytes;
    t->values = values;
    set_range(t);
    return t;
fail:
    if (t)
        free(t->name);
    free(t);
    free(values);
    return NULL;
}

void est_table_free(est_table *t)
{
    if (!t)
        return;
    free(t->name);
    free(t->values);
    free(t);
}

const char *est_table_name(const est_table *t)
{
    return t->name;
}

int est_table_ndims(const est_table *t)
{
    return t->ndims;
}

void est_table_dims(const est_table *t, int64_t dims[3])
{
    memcpy(dims, t->dims, sizeof t->dims);
}

int est_table_elem_bytes(const est_table *t)
{
    return t->elem_bytes;
}

int64_t est_table_size(const est_table *t)
{
    return t->size;
}

int64_t est_table_get(const est_table *t, int64_t flat)
{
    return est_table_at(t, flat);
}

int64_t est_table_min(const est_table *t)
{
    return t->min;
}

int64_t est_table_max(const est_table *t)
{
    return t->max;
}

est_table *est_table_permuted(const est_table *t, const int64_t *perm, int64_t ncells)
{
    int64_t inner = t->size / (t->dims[t->ndims - 1] ? t->dims[t->ndims - 1] : 1);
    if (ncells != t->dims[t->ndims - 1] || t->min < 0 || t->max >= ncells)
        return NULL;
    void *v = malloc((size_t)t->size * (size_t)t->elem_bytes);
    if (!v)
        return NULL;
    for (int64_t x = 0; x < ncells; x++)
        for (int64_t j = 0; j < inner; j++) {
            int64_t to = perm[x] * inner + j, val = perm[est_table_at(t, x * inner + j)];
            if (t->elem_bytes == 4)
                ((int32_t *)v)[to] = (int32_t)val;
            else
                ((int64_t *)v)[to] = val;
        }
    lr_error err;
    lr_error_clear(&err);
    return est_table_new(t->name, t->ndims, t->dims, t->elem_bytes, v, NULL, &err);
}
