/*
 * cache: the one hash table of the estimator's memos (memo.c, the warp, shape and
 * whole-block memos of sample_warp.c, the block memo of sample_block.c, the register
 * reuse of bind.c). A fixed number of slots, a power of two, each the 64-bit hash of a
 * key and a payload of fixed size that the user lays out; the user compares keys (its
 * payload holds the key, or where the key is kept), so one table serves scalar keys,
 * int64 vectors and keys kept in an arena alike. A lookup probes a bounded number of
 * slots: a memo that finds no room counts again, which costs time, never exactness.
 * Slots carry a generation, so emptying the table is one increment.
 */
#ifndef EST_CACHE_H
#define EST_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct est_cache est_cache;

/* Whether payload holds key (the user's comparison). */
typedef int (*est_cache_same)(const void *payload, const void *key);

/* A table of 2^slots_log2 slots (1 <= slots_log2 <= 30) of payload bytes each, whose
 * lookups probe at most max_probes slots; NULL when out of memory. Free with
 * est_cache_free. */
est_cache *est_cache_new(int slots_log2, size_t payload, int max_probes);
void est_cache_free(est_cache *c);

/* Empties c. */
void est_cache_clear(est_cache *c);

/* Keys taken since c was last emptied. */
size_t est_cache_count(const est_cache *c);

/* The payload of the slot of the key whose hash is h: the slot that holds it (*found =
 * 1; same NULL: keys with equal hashes are equal, as for a scalar key through
 * est_cache_mix), else an empty slot it may take with est_cache_take (*found = 0), NULL
 * when the probed slots hold other keys. The slot stays empty until taken. */
void *est_cache_find(est_cache *c, uint64_t h, est_cache_same same, const void *key,
                     int *found);

/* The first slot the key of hash h would probe, whatever it holds: where a memo that
 * finds no room overwrites an older key. */
void *est_cache_home(est_cache *c, uint64_t h);

/* Marks payload's slot (from est_cache_find or est_cache_home) as holding the key of
 * hash h; the user has written, or now writes, the payload. */
void est_cache_take(est_cache *c, void *payload, uint64_t h);

/* The hash of an int64 vector (FNV-1a over its words). */
uint64_t est_cache_hash(const int64_t *key, int n);

/* The hash of a scalar key: a bijection, so equal hashes mean equal keys. */
static inline uint64_t est_cache_mix(uint64_t key)
{
    return key * 0x9E3779B97F4A7C15ull;
}

#endif
