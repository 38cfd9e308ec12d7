/*
 * request_orderings: search.orderings of a ranking (request_int.h): a gathering
 * kernel's mesh renumbered by each ordering (mesh/), ranked with every block.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"
#include "lr_sha256.h"
#include "mesh.h"
#include "request_int.h"

/* The index field that lists the cells' neighbours: the first whose last dimension
 * counts the domain's cells. */
static const est_table *mesh_of(const est_kernel *k, int64_t ncells)
{
    for (int f = 0; f < est_kernel_field_count(k); f++) {
        const est_table *t = est_kernel_field_table(k, f);
        int64_t dims[3];
        if (!t)
            continue;
        est_table_dims(t, dims);
        if (dims[est_table_ndims(t) - 1] == ncells)
            return t;
    }
    return NULL;
}

/* Ordering i (at path) into req->orderings[i], its renumbered mesh added to the kernel;
 * *variant gets the launch.ordering that selects it. */
static int one_ordering(const cJSON *v, const char *path, const est_table *mesh,
                        lr_request *req, size_t i, int *variant, lr_error *err)
{
    const char *text;
    mesh_order order;
    if (jr_str(v, path, 31, &text, err) || mesh_order_parse(text, path, &order, err))
        return -1;
    for (size_t j = 0; j < i; j++)
        if (strcmp(req->orderings[j].name, text) == 0)
            return lr_error_set(err, LR_INVALID_REQUEST, path, "'%s' is given twice", text);
    lr_ordering *o = &req->orderings[i];
    snprintf(o->name, sizeof o->name, "%s", text);
    int64_t n = req->domain[0], *perm;
    lr_error why;
    lr_error_clear(&why);
    /* a partition cannot be stopped once begun: the limit is checked before each */
    if (order.kind != MESH_GIVEN && req->deadline > 0 && est_now() > req->deadline)
        return lr_error_set(err, LR_BUDGET_EXCEEDED, path,
                            "'%s': the request's time limit ran out computing the orderings "
                            "before it (a METIS partition takes up to a minute per million "
                            "cells); rank fewer orderings, order the mesh beforehand, or raise "
                            "the limit",
                            text);
    if (mesh_permutation(mesh, n, &order, &perm, &o->seconds, &why))
        return lr_error_set(err, why.code, path, "%s", why.message);
    lr_sha256_hex(perm, (size_t)n * sizeof *perm, o->perm_sha256);
    /* kept where the caller keeps arrays (the daemon's database), downloadable by the
     * digest the response reports (GET /v1/arrays/{sha256}) */
    if (req->arrays && req->arrays->put)
        req->arrays->put(req->arrays->user, o->perm_sha256, (int)sizeof *perm, perm,
                         n * (int64_t)sizeof *perm);
    *variant = 0;
    if (order.kind != MESH_GIVEN)
        *variant = est_kernel_add_variant(req->kernel, perm, n, &why);
    free(perm);
    if (*variant < 0)
        return lr_error_set(err, why.code, path, "%s", why.message);
    return 0;
}

int lr_request_parse_orderings(const cJSON *sv, lr_request *req, jb *b, cJSON *canon,
                               lr_error *err)
{
    const cJSON *ov = sv ? jr_get(sv, "orderings") : NULL;
    if (!ov)
        return 0;
    int n = jr_array(ov, "search.orderings", 1, LR_MAX_ORDERINGS, err);
    if (n < 0)
        return -1;
    const est_table *mesh = mesh_of(req->kernel, req->domain[0]);
    if (!est_kernel_gathers(req->kernel) || !mesh)
        return lr_error_set(err, LR_INVALID_REQUEST, "search.orderings",
                            "orderings renumber the cells of a mesh: the kernel needs an "
                            "index field (\"integer\": true with \"values\") whose last "
                            "dimension counts the domain's %lld cells, read by another "
                            "field's address",
                            (long long)req->domain[0]);
    /* each ordering but "given" holds a renumbered copy of every index field */
    double copy = 0;
    for (int f = 0; f < est_kernel_field_count(req->kernel); f++) {
        const est_table *t = est_kernel_field_table(req->kernel, f);
        copy += t ? (double)est_table_size(t) * est_table_elem_bytes(t) : 0;
    }
    int copies = 0;
    for (int i = 0; i < n; i++)
        copies += !cJSON_IsString(cJSON_GetArrayItem(ov, i)) ||
                  strcmp(cJSON_GetArrayItem(ov, i)->valuestring, "given") != 0;
    if (copy * copies > LR_MAX_ORDERING_BYTES)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, "search.orderings",
                            "%d orderings of this mesh would hold about %.0f MB of renumbered "
                            "index fields, more than the %.0f MB a request may; rank fewer "
                            "orderings at a time",
                            copies, copy * copies / 1e6, LR_MAX_ORDERING_BYTES / 1e6);
    if ((size_t)n * req->nspace > LR_MAX_CONFIGS)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, "search.orderings",
                            "%d orderings x %zu configurations exceed %d per request", n,
                            req->nspace, LR_MAX_CONFIGS);
    req->orderings = calloc((size_t)n, sizeof *req->orderings);
    est_launch *space = calloc((size_t)n * req->nspace, sizeof *space);
    if (!req->orderings || !space) {
        free(space);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    req->norderings = (size_t)n;
    cJSON *names = jb_arr(b, canon, "orderings");
    for (int i = 0; i < n; i++) {
        jpath p;
        jp_index(&p, "search.orderings", i);
        int variant = 0;
        if (one_ordering(cJSON_GetArrayItem(ov, i), p.s, mesh, req, (size_t)i, &variant, err)) {
            free(space);
            return -1;
        }
        jb_str(b, names, NULL, req->orderings[i].name);
        req->orderings[i].variant = variant;
        for (size_t c = 0; c < req->nspace; c++) {
            space[(size_t)i * req->nspace + c] = req->space[c];
            space[(size_t)i * req->nspace + c].ordering = variant;
        }
    }
    free(req->space);
    req->space = space;
    req->nspace *= (size_t)n;
    return 0;
}

const char *lr_request_ordering_name(const lr_request *req, int variant)
{
    for (size_t i = 0; i < req->norderings; i++)
        if (req->orderings[i].variant == variant)
            return req->orderings[i].name;
    return "given";
}
