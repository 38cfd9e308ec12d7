/* cache: the estimator's one hash table (cache.h). */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

/* A slot: the header, then the payload at PAYLOAD_AT. A slot is taken when its gen is
 * the table's (0 never is: a new table's slots are zeroed). */
typedef struct slot_head {
    uint64_t hash;
    uint32_t gen;
} slot_head;
#define PAYLOAD_AT ((sizeof(slot_head) + 7) & ~(size_t)7)

struct est_cache {
    unsigned char *slots; /* owned */
    size_t stride, mask, count;
    int shift, max_probes;
    uint32_t gen;
};

est_cache *est_cache_new(int slots_log2, size_t payload, int max_probes)
{
    if (slots_log2 < 1 || slots_log2 > 30 || max_probes < 1)
        return NULL;
    est_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->stride = (PAYLOAD_AT + payload + 7) & ~(size_t)7;
    c->mask = ((size_t)1 << slots_log2) - 1;
    c->shift = 64 - slots_log2;
    c->max_probes = max_probes > (int)c->mask + 1 ? (int)c->mask + 1 : max_probes;
    c->gen = 1;
    c->slots = calloc(c->mask + 1, c->stride);
    if (!c->slots) {
        free(c);
        return NULL;
    }
    return c;
}

void est_cache_free(est_cache *c)
{
    if (c)
        free(c->slots);
    free(c);
}

void est_cache_clear(est_cache *c)
{
    c->count = 0;
    if (++c->gen == 0) { /* after 2^32 - 1 clears: zero the slots once */
        memset(c->slots, 0, (c->mask + 1) * c->stride);
        c->gen = 1;
    }
}

size_t est_cache_count(const est_cache *c)
{
    return c->count;
}

static slot_head *slot_at(const est_cache *c, size_t i)
{
    return (slot_head *)(c->slots + i * c->stride);
}

/* Fibonacci hashing: the top bits of h times the golden ratio, so that hashes that
 * differ only in their high or only in their low bits spread alike. */
static size_t home(const est_cache *c, uint64_t h)
{
    return (size_t)((h * 0x9E3779B97F4A7C15ull) >> c->shift);
}

void *est_cache_find(est_cache *c, uint64_t h, est_cache_same same, const void *key, int *found)
{
    size_t i = home(c, h);
    *found = 0;
    for (int p = 0; p < c->max_probes; p++, i = (i + 1) & c->mask) {
        slot_head *s = slot_at(c, i);
        unsigned char *payload = (unsigned char *)s + PAYLOAD_AT;
        if (s->gen != c->gen)
            return payload;
        if (s->hash == h && (!same || same(payload, key))) {
            *found = 1;
            return payload;
        }
    }
    return NULL;
}

void *est_cache_home(est_cache *c, uint64_t h)
{
    return (unsigned char *)slot_at(c, home(c, h)) + PAYLOAD_AT;
}

void est_cache_take(est_cache *c, void *payload, uint64_t h)
{
    slot_head *s = (slot_head *)((unsigned char *)payload - PAYLOAD_AT);
    if (s->gen != c->gen)
        c->count++;
    s->hash = h;
    s->gen = c->gen;
}

uint64_t est_cache_hash(const int64_t *key, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint64_t)key[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}
