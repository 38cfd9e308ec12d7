/*
 * warp_shapes: the shape memo of the warp pass (sample_warp.c; warp_shapes.h says what
 * it keeps and why that is exact): full-warp counts of a group of instructions, kept
 * in the thread's est_ctx across estimates and keyed by the whole description of the
 * group's addresses.
 */
#include <stdlib.h>
#include <string.h>

#include "warp_shapes.h"

#define SHAPE_SLOTS_LOG2 13 /* 8192 slots, 640 KiB */
#define SHAPE_SLOTS (1 << SHAPE_SLOTS_LOG2)
#define SHAPE_ARENA (1 << 19) /* int64 words of stored keys at most: 4 MiB */

typedef struct shape_slot {
    uint32_t off, len; /* the key is arena[off .. off+len) */
    est_packed_counts v;
} shape_slot;

struct est_warp_shapes {
    est_cache *slots; /* owned; SHAPE_SLOTS of shape_slot */
    int64_t *arena;   /* owned; grown as keys arrive, up to SHAPE_ARENA words */
    size_t used, cap; /* arena words in use, allocated */
};

est_warp_shapes *est_warp_shapes_new(void)
{
    est_warp_shapes *m = calloc(1, sizeof *m);
    if (m && !(m->slots = est_cache_new(SHAPE_SLOTS_LOG2, sizeof(shape_slot), SHAPE_SLOTS))) {
        free(m);
        return NULL;
    }
    return m;
}

void est_warp_shapes_free(est_warp_shapes *m)
{
    if (m) {
        est_cache_free(m->slots);
        free(m->arena);
    }
    free(m);
}

int est_warp_shapes_exact(const est_device *dev, int64_t granule, int elem)
{
    int nbanks = dev->l1_bank_bytes_per_cycle / elem;
    if (nbanks < 1)
        nbanks = 1;
    return granule % elem == 0 && (granule / elem) % nbanks == 0 &&
           granule % dev->l1_line_bytes == 0 && granule % dev->l1_sector_bytes == 0 &&
           granule % 128 == 0;
}

int est_warp_shapes_key(const est_sampler *s, const est_group *G, int64_t a0,
                        int64_t coords[32][EST_NCOORD], int64_t key[EST_SHAPE_KEY_MAX])
{
    const est_binding *b = s->b;
    const est_device *dev = b->dev;
    int elem = b->k->fields[G->field].elem_bytes;
    if (G->n > EST_SHAPE_MAX_MEMBERS || !est_warp_shapes_exact(dev, s->granule, elem))
        return 0;
    const est_inst *first = &b->inst[b->member[G->first]];
    int n = 0, valid;
    /* the rules and the code shape: merge_step_stores */
    key[n++] =
        elem + 1024 * (int64_t)b->rules.partial_sectors + 4096 * (int64_t)b->merge_all_steps;
    key[n++] = dev->l1_bank_bytes_per_cycle;
    key[n++] = dev->l1_line_bytes;
    key[n++] = dev->l1_sector_bytes;
    key[n++] = s->granule;
    key[n++] = est_mod_granule(s->granule, a0);
    for (int j = 1; j < 32; j++)
        key[n++] = est_inst_address(b, first, coords[j], &valid) - a0;
    for (int m = 0; m < G->n; m++) {
        const est_inst *in = &b->inst[b->member[G->first + m]];
        key[n++] = in->c0 - first->c0; /* same coefficients: the same offset in every lane */
        /* a store's folding step too: step_store_sectors merges stores per step */
        key[n++] =
            in->is_store ? 1 + in->step[0] + 1024 * (in->step[1] + 1024 * in->step[2]) : 0;
    }
    return n;
}

typedef struct shape_key_ref {
    const est_warp_shapes *m;
    const int64_t *key;
    int n;
} shape_key_ref;

static int same_shape(const void *payload, const void *key)
{
    const shape_slot *sl = payload;
    const shape_key_ref *k = key;
    return sl->len == (uint32_t)k->n &&
           !memcmp(&k->m->arena[sl->off], k->key, (size_t)k->n * sizeof *k->key);
}

/* The slot of key: its own when known (*found = 1), else the empty one it would take;
 * never NULL (every slot is probed, and est_warp_shapes_put keeps a quarter empty). */
static shape_slot *shape_find(est_warp_shapes *m, const int64_t *key, int n, uint64_t h,
                              int *found)
{
    shape_key_ref k = {m, key, n};
    return est_cache_find(m->slots, h, same_shape, &k, found);
}

int est_warp_shapes_get(est_warp_shapes *m, const int64_t *key, int n, uint64_t h,
                        est_warp_counts *out)
{
    int found;
    const shape_slot *sl = shape_find(m, key, n, h, &found);
    if (found)
        *out = est_unpack_counts(&sl->v);
    return found;
}

void est_warp_shapes_put(est_warp_shapes *m, const int64_t *key, int n, uint64_t h,
                         const est_warp_counts *v)
{
    int found;
    if (m->used + (size_t)n > SHAPE_ARENA || est_cache_count(m->slots) >= SHAPE_SLOTS / 4 * 3) {
        est_cache_clear(m->slots);
        m->used = 0;
    }
    if (m->used + (size_t)n > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 4096;
        cap = cap < SHAPE_ARENA ? cap : SHAPE_ARENA;
        int64_t *a = realloc(m->arena, cap * sizeof *a);
        if (!a)
            return; /* not kept: counted again when met again */
        m->arena = a;
        m->cap = cap;
    }
    shape_slot *sl = shape_find(m, key, n, h, &found);
    memcpy(&m->arena[m->used], key, (size_t)n * sizeof *key);
    *sl = (shape_slot){.off = (uint32_t)m->used, .len = (uint32_t)n, .v = est_pack_counts(v)};
    est_cache_take(m->slots, sl, h);
    m->used += (size_t)n;
}
