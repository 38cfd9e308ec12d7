/*
 * memo: figures of earlier configurations, reused by later ones. Only numbers are
 * kept (never isl objects), so one memo can serve every thread of a ranking: a
 * footprint that one thread counted is not counted again by another.
 */
#include <stdlib.h>
#include <string.h>

#include "estimator_int.h"

/* 4096 entries hold the distinct wave boxes of a ranking of a few hundred
 * configurations of a kernel with a dozen fields; beyond that old entries are
 * overwritten, which costs time, never correctness. */
#define MEMO_ENTRIES 4096
#define MEMO_PROBES 8
#define MEMO_KEY_MAX 36
#define MEMO_VAL_MAX 6

typedef struct memo_entry {
    int n; /* key length; 0 = empty */
    int64_t key[MEMO_KEY_MAX];
    double val[MEMO_VAL_MAX];
} memo_entry;

struct est_memo {
    pthread_mutex_t lock;
    memo_entry e[MEMO_ENTRIES];
};

est_memo *est_memo_new(void)
{
    est_memo *m = calloc(1, sizeof *m);
    if (m)
        pthread_mutex_init(&m->lock, NULL);
    return m;
}

void est_memo_free(est_memo *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static uint64_t hash(const int64_t *key, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint64_t)key[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

int est_memo_get(est_memo *m, const int64_t *key, int n, double *val, int nval)
{
    uint64_t h = hash(key, n);
    int found = 0;
    pthread_mutex_lock(&m->lock);
    for (int p = 0; p < MEMO_PROBES && !found; p++) {
        const memo_entry *e = &m->e[(h + (uint64_t)p) % MEMO_ENTRIES];
        if (e->n == n && !memcmp(e->key, key, (size_t)n * sizeof *key)) {
            memcpy(val, e->val, (size_t)nval * sizeof *val);
            found = 1;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return found;
}

void est_memo_put(est_memo *m, const int64_t *key, int n, const double *val, int nval)
{
    if (n > MEMO_KEY_MAX || nval > MEMO_VAL_MAX)
        return;
    uint64_t h = hash(key, n);
    pthread_mutex_lock(&m->lock);
    memo_entry *slot = &m->e[h % MEMO_ENTRIES];
    for (int p = 0; p < MEMO_PROBES; p++) {
        memo_entry *e = &m->e[(h + (uint64_t)p) % MEMO_ENTRIES];
        if (e->n == 0 || (e->n == n && !memcmp(e->key, key, (size_t)n * sizeof *key))) {
            slot = e;
            break;
        }
    }
    slot->n = n;
    memcpy(slot->key, key, (size_t)n * sizeof *key);
    memcpy(slot->val, val, (size_t)nval * sizeof *val);
    pthread_mutex_unlock(&m->lock);
}
