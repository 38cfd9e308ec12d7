/*
 * memo: figures of earlier configurations, reused by later ones. Only numbers are
 * kept (never isl objects), so one memo can serve every thread of a ranking: a
 * footprint that one thread counted is not counted again by another.
 */
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "estimator_int.h"

/* 4096 entries hold the distinct wave boxes of a ranking of a few hundred
 * configurations of a kernel with a dozen fields; beyond that old entries are
 * overwritten, which costs time, never correctness. */
#define MEMO_ENTRIES_LOG2 12 /* 4096 */
#define MEMO_PROBES 8
#define MEMO_KEY_MAX 36
#define MEMO_VAL_MAX 6

typedef struct memo_entry {
    int n; /* key length */
    int64_t key[MEMO_KEY_MAX];
    double val[MEMO_VAL_MAX];
} memo_entry;

struct est_memo {
    pthread_mutex_t lock;
    est_cache *c; /* owned; MEMO_ENTRIES slots of memo_entry */
};

est_memo *est_memo_new(void)
{
    est_memo *m = calloc(1, sizeof *m);
    if (m && !(m->c = est_cache_new(MEMO_ENTRIES_LOG2, sizeof(memo_entry), MEMO_PROBES))) {
        free(m);
        return NULL;
    }
    if (m)
        pthread_mutex_init(&m->lock, NULL);
    return m;
}

void est_memo_free(est_memo *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->lock);
    est_cache_free(m->c);
    free(m);
}

typedef struct memo_key {
    const int64_t *key;
    int n;
} memo_key;

static int same_key(const void *payload, const void *key)
{
    const memo_entry *e = payload;
    const memo_key *k = key;
    return e->n == k->n && !memcmp(e->key, k->key, (size_t)k->n * sizeof *k->key);
}

int est_memo_get(est_memo *m, const int64_t *key, int n, double *val, int nval)
{
    uint64_t h = est_cache_hash(key, n);
    memo_key k = {key, n};
    int found;
    pthread_mutex_lock(&m->lock);
    const memo_entry *e = est_cache_find(m->c, h, same_key, &k, &found);
    if (found)
        memcpy(val, e->val, (size_t)nval * sizeof *val);
    pthread_mutex_unlock(&m->lock);
    return found;
}

void est_memo_put(est_memo *m, const int64_t *key, int n, const double *val, int nval)
{
    if (n > MEMO_KEY_MAX || nval > MEMO_VAL_MAX)
        return;
    uint64_t h = est_cache_hash(key, n);
    memo_key k = {key, n};
    int found;
    pthread_mutex_lock(&m->lock);
    memo_entry *e = est_cache_find(m->c, h, same_key, &k, &found);
    if (!e) /* no room near its place: it overwrites the older key there */
        e = est_cache_home(m->c, h);
    e->n = n;
    memcpy(e->key, key, (size_t)n * sizeof *key);
    memcpy(e->val, val, (size_t)nval * sizeof *val);
    est_cache_take(m->c, e, h);
    pthread_mutex_unlock(&m->lock);
}
