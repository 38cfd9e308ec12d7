/*
 * table_int.h: the body of est_table, for the estimator's files that read it in their
 * hot loops (expr.c's evaluation). Not included outside estimator/.
 */
#ifndef EST_TABLE_INT_H
#define EST_TABLE_INT_H

#include "table.h"

struct est_table {
    char *name;
    int ndims;
    int64_t dims[3];
    int64_t size;
    int elem_bytes; /* 4 or 8 */
    void *values;   /* owned: int32_t or int64_t */
    int64_t min, max;
};

static inline int64_t est_table_at(const est_table *t, int64_t flat)
{
    return t->elem_bytes == 4 ? ((const int32_t *)t->values)[flat]
                              : ((const int64_t *)t->values)[flat];
}

#endif
