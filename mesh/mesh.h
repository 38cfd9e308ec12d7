/*
 * mesh: cell orderings of an unstructured mesh (docs/model.md, "Gathers through an
 * index field"; docs/api.md, search.orderings). A mesh is given by its neighbour list,
 * the index field nbr whose element (j, x) is cell x's j-th neighbour; an ordering is a
 * permutation of the cells, after which the kernel reads the same mesh with other cell
 * numbers: nbr'(j, p[x]) = p[nbr(j, x)]. launchrank ranks orderings with block sizes
 * because the ordering decides how far apart a cell's neighbours lie in memory.
 */
#ifndef LR_MESH_H
#define LR_MESH_H

#include <stdint.h>

#include "estimator.h"

typedef enum mesh_order_kind {
    MESH_GIVEN,  /* the cells as numbered */
    MESH_RANDOM, /* a random permutation (seeded: the same every time): the worst case */
    MESH_RCM,    /* reverse Cuthill-McKee: breadth first from a peripheral cell */
    MESH_METIS,  /* METIS k-way partition into K parts, cells sorted by part */
    MESH_BLOCKS  /* METIS partition into parts of about B cells (Langguth's diagonal blocks) */
} mesh_order_kind;

typedef struct mesh_order {
    mesh_order_kind kind;
    int64_t param; /* K of metis:K, B of blocks:B; 0 otherwise */
    char name[32]; /* as the request spells it: "given", "rcm", "metis:64", ... */
} mesh_order;

/* Parses an ordering's name ("given", "random", "rcm", "metis:K", "blocks:B").
 * 0, or -1 with err (path) naming what is wrong. */
int mesh_order_parse(const char *text, const char *path, mesh_order *out, lr_error *err);

/* The permutation of order for the mesh whose neighbour list is nbr (an index field
 * whose last dimension counts the ncells cells and whose values are cells; values
 * outside 0..ncells-1, such as a boundary marker, are no neighbour): *perm (malloc'd,
 * caller frees) gets each cell's new number, *seconds the wall time it took. 0, or -1
 * with err. MESH_GIVEN gives the identity. */
int mesh_permutation(const est_table *nbr, int64_t ncells, const mesh_order *order,
                     int64_t **perm, double *seconds, lr_error *err);

/* Langguth et al.'s synthetic mesh: n cells of per neighbours each, drawn at random
 * (splitmix64 from seed) inside the cell's diagonal block of b cells (the last block
 * holds what is left); element (j, x) at x * per + j. malloc'd (caller frees), NULL
 * when out of memory or an argument is out of range. */
int32_t *mesh_diagonal_blocks(int64_t n, int64_t per, int64_t b, uint64_t seed);

#endif
