/*
 * table: the values of an index field, an integer array that other fields' addresses
 * read through (docs/model.md, "Gathers through an index field"): the neighbour list
 * of an unstructured mesh, nbr(j, x) in an address. Built once per request from the
 * values the client sent, then read-only and shared by every configuration.
 */
#ifndef EST_TABLE_H
#define EST_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "lr_error.h"

typedef struct est_table est_table;

/* A table named name (the index field's name, as addresses call it) of ndims
 * dimensions dims (innermost first, trailing 1s) holding dims[0]*dims[1]*dims[2]
 * integers of elem_bytes (4 or 8) bytes each in values, which it takes (malloc'd; freed
 * with the table, also on error). NULL with err (path) on a bad shape or no memory. */
est_table *est_table_new(const char *name, int ndims, const int64_t dims[3], int elem_bytes,
                         void *values, const char *path, lr_error *err);
void est_table_free(est_table *t);

const char *est_table_name(const est_table *t);
int est_table_ndims(const est_table *t);
void est_table_dims(const est_table *t, int64_t dims[3]);
int est_table_elem_bytes(const est_table *t);
int64_t est_table_size(const est_table *t);
/* Element flat (0 <= flat < est_table_size), innermost dimension fastest. */
int64_t est_table_get(const est_table *t, int64_t flat);
/* The smallest and largest value held. */
int64_t est_table_min(const est_table *t);
int64_t est_table_max(const est_table *t);
/* The table with cell ids relabelled: the copy's element (j, perm[x]) is
 * perm[value (j, x)], x the outermost index (a cell), for a table whose values are
 * cells of the same numbering (a neighbour list); perm has est_table_dims()[ndims-1]
 * entries, a permutation. NULL when out of memory or a value lies outside perm. */
est_table *est_table_permuted(const est_table *t, const int64_t *perm, int64_t ncells);

#endif
