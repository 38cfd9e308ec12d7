/*
 * memo: what a worker remembers of the cached estimates it answered, so that the same
 * request body asked again is answered without parsing it or its stored prediction
 * (issue 41: parsing both cost a cache hit four times the lookup). An entry holds what
 * parsing the body gave (its canonical request, cache key and configuration) and the
 * warnings of the stored row it was answered from, known by that row's stamp. The
 * cache is still asked on every use: the store decides whether there is a prediction,
 * and a row with another stamp makes the entry useless. The api's devices do not
 * change while it lives, so a body means the same request for as long as the memo.
 *
 * One memo per worker, used by its thread only. A direct-mapped table: a body takes
 * the slot its hash names, replacing what was there.
 */
#ifndef LR_MEMO_H
#define LR_MEMO_H

#include <stddef.h>

#include "lr_hash.h"

/* Slots per memo, and the largest body remembered: at most about 128 x (16 KiB body
 * + its canonical text) = 4.5 MiB per worker. Requests of code generators are 1-30
 * KiB; a larger one is parsed each time, as before. */
#define LR_MEMO_SLOTS 128
#define LR_MEMO_BODY_MAX (16u * 1024)

typedef struct lr_memo lr_memo;

/* What a body was answered from. Strings owned by the memo. */
typedef struct lr_memo_entry {
    const char *canonical; /* the canonical request text */
    const char *key;       /* its cache key (lr_request_key) */
    const char *config;    /* the configuration text (lr_request_config_text) */
    const char *stamp;     /* the stamp of the row answered from (st_prediction_get_stamped) */
    const char *warnings;  /* the printed warnings array of that answer */
} lr_memo_entry;

/* NULL when out of memory: the caller then goes without. Free with lr_memo_free. */
lr_memo *lr_memo_new(void);
void lr_memo_free(lr_memo *m);

/* The entry of exactly this body (len bytes), or NULL. Valid until the next
 * lr_memo_put. */
const lr_memo_entry *lr_memo_find(lr_memo *m, const char *body, size_t len);

/* Remembers e for body (copied). A body over LR_MEMO_BODY_MAX, or no memory, leaves
 * the slot empty: the next ask parses again. */
void lr_memo_put(lr_memo *m, const char *body, size_t len, const lr_memo_entry *e);

#endif
