/*
 * order: the cell orderings of mesh.h. The cell graph (cells adjacent when one lists
 * the other as a neighbour, symmetric, without self loops or repeats) is built once
 * per ordering in compressed-row form, which both reverse Cuthill-McKee and METIS read.
 */
#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mesh.h"

/* A mesh's graph may have at most this many cells: METIS's indices are 32-bit. */
#define MESH_MAX_CELLS 2000000000ll

int mesh_order_parse(const char *text, const char *path, mesh_order *out, lr_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", text);
    static const struct {
        const char *name;
        mesh_order_kind kind;
        int with_param;
    } kinds[] = {{"given", MESH_GIVEN, 0},
                 {"random", MESH_RANDOM, 0},
                 {"rcm", MESH_RCM, 0},
                 {"metis", MESH_METIS, 1},
                 {"blocks", MESH_BLOCKS, 1}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i].name);
        if (strncmp(text, kinds[i].name, n) != 0 || (text[n] != '\0' && text[n] != ':'))
            continue;
        out->kind = kinds[i].kind;
        if (!kinds[i].with_param) {
            if (text[n] == ':')
                return lr_error_set(err, LR_INVALID_REQUEST, path, "'%s' takes no number",
                                    kinds[i].name);
            return 0;
        }
        char *end;
        long long v = text[n] == ':' ? strtoll(text + n + 1, &end, 10) : 0;
        if (text[n] != ':' || end == text + n + 1 || *end || v < 1 || v > MESH_MAX_CELLS)
            return lr_error_set(err, LR_INVALID_REQUEST, path,
                                "'%s': write %s:N with N a whole number of %s from 1", text,
                                kinds[i].name, out->kind == MESH_METIS ? "parts" : "cells");
        out->param = v;
        return 0;
    }
    return lr_error_set(err, LR_INVALID_REQUEST, path,
                        "unknown ordering '%s'; the orderings are \"given\", \"random\", "
                        "\"rcm\", \"metis:K\" (K parts) and \"blocks:B\" (parts of B cells)",
                        text);
}

typedef struct graph {
    idx_t n;
    idx_t *xadj, *adj; /* compressed rows; owned */
} graph;

static int cmp_idx(const void *a, const void *b)
{
    idx_t x = *(const idx_t *)a, y = *(const idx_t *)b;
    return (x > y) - (x < y);
}

/* The symmetric cell graph of nbr. 0, or -1 when out of memory. */
static int graph_build(const est_table *nbr, int64_t ncells, graph *g)
{
    int64_t per = est_table_size(nbr) / ncells, edges = 0;
    memset(g, 0, sizeof *g);
    g->n = (idx_t)ncells;
    idx_t *deg = calloc((size_t)ncells + 1, sizeof *deg);
    if (!deg)
        return -1;
    for (int64_t x = 0; x < ncells; x++)
        for (int64_t j = 0; j < per; j++) {
            int64_t y = est_table_get(nbr, x * per + j);
            if (y >= 0 && y < ncells && y != x)
                deg[x]++, deg[y]++, edges += 2;
        }
    g->xadj = malloc(((size_t)ncells + 1) * sizeof *g->xadj);
    g->adj = malloc((size_t)(edges ? edges : 1) * sizeof *g->adj);
    if (!g->xadj || !g->adj) {
        free(deg);
        return -1;
    }
    g->xadj[0] = 0;
    for (int64_t x = 0; x < ncells; x++)
        g->xadj[x + 1] = g->xadj[x] + deg[x], deg[x] = g->xadj[x];
    for (int64_t x = 0; x < ncells; x++)
        for (int64_t j = 0; j < per; j++) {
            int64_t y = est_table_get(nbr, x * per + j);
            if (y >= 0 && y < ncells && y != x) {
                g->adj[deg[x]++] = (idx_t)y;
                g->adj[deg[y]++] = (idx_t)x;
            }
        }
    free(deg);
    /* sort and drop repeats (two cells that list each other), compacting in place */
    idx_t out = 0;
    for (idx_t x = 0; x < g->n; x++) {
        idx_t a = g->xadj[x], b = g->xadj[x + 1];
        qsort(g->adj + a, (size_t)(b - a), sizeof *g->adj, cmp_idx);
        g->xadj[x] = out;
        for (idx_t i = a; i < b; i++)
            if (i == a || g->adj[i] != g->adj[i - 1])
                g->adj[out++] = g->adj[i];
    }
    g->xadj[g->n] = out;
    return 0;
}

static void graph_free(graph *g)
{
    free(g->xadj);
    free(g->adj);
}

/* Reverse Cuthill-McKee: each connected component breadth first from a cell of least
 * degree, neighbours in order of rising degree; the whole order reversed. */
static int rcm(const graph *g, int64_t *perm)
{
    idx_t n = g->n;
    idx_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    char *seen = calloc((size_t)n + 1, 1);
    idx_t *bydeg = malloc((size_t)(n ? n : 1) * sizeof *bydeg);
    if (!order || !seen || !bydeg) {
        free(order), free(seen), free(bydeg);
        return -1;
    }
    /* cells by rising degree (counting sort): the start of each component */
    idx_t maxdeg = 0;
    for (idx_t x = 0; x < n; x++)
        maxdeg = g->xadj[x + 1] - g->xadj[x] > maxdeg ? g->xadj[x + 1] - g->xadj[x] : maxdeg;
    idx_t *count = calloc((size_t)maxdeg + 2, sizeof *count);
    if (!count) {
        free(order), free(seen), free(bydeg);
        return -1;
    }
    for (idx_t x = 0; x < n; x++)
        count[g->xadj[x + 1] - g->xadj[x] + 1]++;
    for (idx_t d = 1; d <= maxdeg + 1; d++)
        count[d] += count[d - 1];
    for (idx_t x = 0; x < n; x++)
        bydeg[count[g->xadj[x + 1] - g->xadj[x]]++] = x;
    free(count);
    idx_t head = 0, tail = 0;
    for (idx_t s = 0; s < n; s++) {
        if (seen[bydeg[s]])
            continue;
        seen[bydeg[s]] = 1;
        order[tail++] = bydeg[s];
        while (head < tail) {
            idx_t x = order[head++], first = tail;
            for (idx_t i = g->xadj[x]; i < g->xadj[x + 1]; i++)
                if (!seen[g->adj[i]]) {
                    seen[g->adj[i]] = 1;
                    order[tail++] = g->adj[i];
                }
            /* the new ones by rising degree (few: a tetrahedron has four faces) */
            for (idx_t i = first + 1; i < tail; i++)
                for (idx_t j = i; j > first; j--) {
                    idx_t a = order[j - 1], b = order[j];
                    if (g->xadj[a + 1] - g->xadj[a] <= g->xadj[b + 1] - g->xadj[b])
                        break;
                    order[j - 1] = b, order[j] = a;
                }
        }
    }
    for (idx_t i = 0; i < n; i++)
        perm[order[i]] = n - 1 - i;
    free(order), free(seen), free(bydeg);
    return 0;
}

/* METIS k-way partition into parts, then cells by part, in their given order within
 * one. 0, or -1 with err. */
static int metis_order(const graph *g, int64_t parts, int64_t *perm, lr_error *err)
{
    idx_t n = g->n, ncon = 1, k = (idx_t)(parts < n ? parts : n), objval;
    if (k <= 1 || g->xadj[n] == 0) {
        for (idx_t x = 0; x < n; x++)
            perm[x] = x;
        return 0;
    }
    idx_t *part = malloc((size_t)n * sizeof *part), options[METIS_NOPTIONS];
    int64_t *start = calloc((size_t)k + 1, sizeof *start);
    if (!part || !start) {
        free(part), free(start);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1; /* the same partition every time */
    int rc = METIS_PartGraphKway(&n, &ncon, g->xadj, g->adj, NULL, NULL, NULL, &k, NULL, NULL,
                                 options, &objval, part);
    if (rc != METIS_OK) {
        free(part), free(start);
        return lr_error_set(err, rc == METIS_ERROR_MEMORY ? LR_NO_MEMORY : LR_INVALID_REQUEST,
                            NULL, "METIS could not partition the mesh (status %d)", rc);
    }
    for (idx_t x = 0; x < n; x++)
        start[part[x] + 1]++;
    for (idx_t p = 0; p < k; p++)
        start[p + 1] += start[p];
    for (idx_t x = 0; x < n; x++)
        perm[x] = start[part[x]]++;
    free(part), free(start);
    return 0;
}

/* splitmix64: the orderings and synthetic meshes must be the same on every machine */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void random_order(int64_t n, int64_t *perm)
{
    uint64_t s = 0x5EED;
    for (int64_t x = 0; x < n; x++)
        perm[x] = x;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(next_random(&s) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
}

int32_t *mesh_diagonal_blocks(int64_t n, int64_t per, int64_t b, uint64_t seed)
{
    if (n < 1 || n > MESH_MAX_CELLS || per < 1 || b < 1 || b > n)
        return NULL;
    int32_t *a = malloc((size_t)n * (size_t)per * sizeof *a);
    for (int64_t x = 0; a && x < n; x++) {
        int64_t lo = x / b * b, size = lo + b <= n ? b : n - lo;
        for (int64_t j = 0; j < per; j++)
            a[x * per + j] = (int32_t)(lo + (int64_t)(next_random(&seed) % (uint64_t)size));
    }
    return a;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int mesh_permutation(const est_table *nbr, int64_t ncells, const mesh_order *order,
                     int64_t **perm, double *seconds, lr_error *err)
{
    double t0 = now();
    *perm = NULL;
    if (ncells < 1 || ncells > MESH_MAX_CELLS || est_table_size(nbr) % ncells)
        return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                            "the index field %s does not list neighbours of %lld cells",
                            est_table_name(nbr), (long long)ncells);
    int64_t *p = malloc((size_t)ncells * sizeof *p);
    if (!p)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    int rc = 0;
    if (order->kind == MESH_GIVEN) {
        for (int64_t x = 0; x < ncells; x++)
            p[x] = x;
    } else if (order->kind == MESH_RANDOM) {
        random_order(ncells, p);
    } else {
        graph g;
        if (graph_build(nbr, ncells, &g))
            rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        else if (order->kind == MESH_RCM)
            rc = rcm(&g, p) ? lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory") : 0;
        else
            rc = metis_order(&g,
                             order->kind == MESH_METIS
                                 ? order->param
                                 : (ncells + order->param - 1) / order->param,
                             p, err);
        graph_free(&g);
    }
    if (rc) {
        free(p);
        return -1;
    }
    *perm = p;
    *seconds = now() - t0;
    return 0;
}
