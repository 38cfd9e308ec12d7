/*
 * test_cache.c: estimator/cache.h, the one hash table of the estimator's memos: a key
 * taken is found again with its payload, keys whose hashes collide are told apart by the
 * user's comparison, a full neighbourhood answers NULL (the memo counts again) and
 * est_cache_home names the slot to overwrite, and est_cache_clear empties the table.
 */
#include <stdint.h>

#include "cache.h"
#include "check.h"

typedef struct entry {
    int64_t key;
    double val;
} entry;

static int same_entry(const void *payload, const void *key)
{
    return ((const entry *)payload)->key == *(const int64_t *)key;
}

/* Puts key with val under hash h; 0, or -1 when there is no room. */
static int put(est_cache *c, uint64_t h, int64_t key, double val)
{
    int found;
    entry *e = est_cache_find(c, h, same_entry, &key, &found);
    if (!e)
        return -1;
    *e = (entry){key, val};
    est_cache_take(c, e, h);
    return 0;
}

/* The value kept for key under hash h, or -1 when none is. */
static double get(est_cache *c, uint64_t h, int64_t key)
{
    int found;
    const entry *e = est_cache_find(c, h, same_entry, &key, &found);
    return found ? e->val : -1;
}

static void keys_and_collisions(void)
{
    est_cache *c = est_cache_new(4, sizeof(entry), 4);
    CHECK(c);
    if (!c)
        return;
    for (int64_t k = 0; k < 4; k++) /* four keys, one hash: one probe sequence */
        CHECK_INT(put(c, 7, k, (double)k * 10), 0);
    CHECK_INT(est_cache_count(c), 4);
    for (int64_t k = 0; k < 4; k++)
        CHECK(get(c, 7, k) == (double)k * 10);
    CHECK(get(c, 7, 4) == -1);
    CHECK_INT(put(c, 7, 4, 40), -1); /* four probes, all taken by other keys */
    entry *home = est_cache_home(c, 7);
    *home = (entry){4, 40};
    est_cache_take(c, home, 7);
    CHECK_INT(est_cache_count(c), 4); /* overwritten, not added */
    CHECK(get(c, 7, 4) == 40);
    CHECK_INT(put(c, 7, 2, 21), 0); /* an existing key is rewritten in place */
    CHECK(get(c, 7, 2) == 21);
    est_cache_clear(c);
    CHECK_INT(est_cache_count(c), 0);
    CHECK(get(c, 7, 2) == -1);
    CHECK_INT(put(c, 7, 2, 22), 0);
    CHECK(get(c, 7, 2) == 22);
    est_cache_free(c);
}

static void scalar_keys_need_no_comparison(void)
{
    est_cache *c = est_cache_new(10, sizeof(double), 64);
    CHECK(c);
    if (!c)
        return;
    int found;
    for (uint64_t k = 1; k <= 500; k++) {
        double *v = est_cache_find(c, est_cache_mix(k), NULL, NULL, &found);
        CHECK(v && !found);
        if (v) {
            *v = (double)k;
            est_cache_take(c, v, est_cache_mix(k));
        }
    }
    int kept = 0;
    for (uint64_t k = 1; k <= 500; k++) {
        const double *v = est_cache_find(c, est_cache_mix(k), NULL, NULL, &found);
        kept += found && *v == (double)k;
    }
    CHECK_INT(kept, 500);
    CHECK(est_cache_hash((const int64_t[]){1, 2}, 2) !=
          est_cache_hash((const int64_t[]){2, 1}, 2));
    CHECK(!est_cache_new(0, 8, 1) && !est_cache_new(31, 8, 1));
    est_cache_free(c);
}

int main(void)
{
    keys_and_collisions();
    scalar_keys_need_no_comparison();
    return check_report("estimator_cache_finds_what_it_kept_and_tells_colliding_keys_apart");
}
