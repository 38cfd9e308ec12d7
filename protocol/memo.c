/* memo: see memo.h. */
#include "memo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct memo_slot {
    char *body; /* owned; NULL = empty */
    size_t len;
    uint64_t hash;
    char *text[5]; /* owned: canonical, key, config, stamp, warnings */
} memo_slot;

struct lr_memo {
    memo_slot slot[LR_MEMO_SLOTS];
    lr_memo_entry entry; /* what lr_memo_find hands out */
};

/* FNV-1a over the body's bytes (which may hold NULs). */
static uint64_t hash_of(const char *body, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)body[i]) * 0x100000001b3ull;
    return h;
}

static void slot_clear(memo_slot *s)
{
    free(s->body);
    for (int i = 0; i < 5; i++)
        free(s->text[i]);
    memset(s, 0, sizeof *s);
}

lr_memo *lr_memo_new(void)
{
    return calloc(1, sizeof(lr_memo));
}

void lr_memo_free(lr_memo *m)
{
    if (!m)
        return;
    for (int i = 0; i < LR_MEMO_SLOTS; i++)
        slot_clear(&m->slot[i]);
    free(m);
}

const lr_memo_entry *lr_memo_find(lr_memo *m, const char *body, size_t len)
{
    if (len > LR_MEMO_BODY_MAX)
        return NULL;
    uint64_t h = hash_of(body, len);
    const memo_slot *s = &m->slot[h % LR_MEMO_SLOTS];
    if (!s->body || s->hash != h || s->len != len || memcmp(s->body, body, len) != 0)
        return NULL;
    m->entry = (lr_memo_entry){s->text[0], s->text[1], s->text[2], s->text[3], s->text[4]};
    return &m->entry;
}

void lr_memo_put(lr_memo *m, const char *body, size_t len, const lr_memo_entry *e)
{
    if (len > LR_MEMO_BODY_MAX)
        return;
    uint64_t h = hash_of(body, len);
    memo_slot *s = &m->slot[h % LR_MEMO_SLOTS];
    slot_clear(s);
    const char *from[5] = {e->canonical, e->key, e->config, e->stamp, e->warnings};
    s->body = malloc(len ? len : 1);
    int ok = s->body != NULL;
    for (int i = 0; i < 5 && ok; i++)
        ok = (s->text[i] = strdup(from[i])) != NULL;
    if (!ok) {
        slot_clear(s);
        return;
    }
    memcpy(s->body, body, len);
    s->len = len;
    s->hash = h;
}
