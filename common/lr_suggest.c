/* lr_suggest: see lr_suggest.h. */
#include "lr_suggest.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* Names longer than this are never close: keys, devices and parameters are at most 63
 * characters, and the table stays on the stack. */
#define LR_SUGGEST_LEN 64

static int lower(char c)
{
    return tolower((unsigned char)c);
}

/* Edit distance of a and b (optimal string alignment: a swap of neighbours is one
 * edit), case-insensitive, over bytes; stops early above limit (returns limit + 1). */
static int distance(const char *a, size_t na, const char *b, size_t nb, int limit)
{
    int row[3][LR_SUGGEST_LEN + 1]; /* rows i-2, i-1, i of the table, by i % 3 */
    if (na > LR_SUGGEST_LEN || nb > LR_SUGGEST_LEN ||
        ((na > nb ? na - nb : nb - na) > (size_t)limit))
        return limit + 1;
    for (size_t j = 0; j <= nb; j++)
        row[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int *cur = row[i % 3], *prev = row[(i - 1) % 3], *prev2 = row[(i - 2 + 3) % 3];
        int least = cur[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int cost = lower(a[i - 1]) != lower(b[j - 1]);
            int d = prev[j - 1] + cost;
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
                lower(a[i - 2]) == lower(b[j - 1]) && prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
            if (d < least)
                least = d;
        }
        if (least > limit)
            return limit + 1;
    }
    return row[na % 3][nb];
}

void lr_suggest_init(lr_suggest *s, const char *word, size_t wlen)
{
    memset(s, 0, sizeof *s);
    s->word = word ? word : "";
    s->wlen = word ? wlen : 0;
    s->best_distance = LR_SUGGEST_MAX_DISTANCE + 1;
}

void lr_suggest_offer(lr_suggest *s, const char *candidate)
{
    if (!candidate)
        return;
    size_t n = strlen(candidate);
    int d = distance(s->word, s->wlen, candidate, n, LR_SUGGEST_MAX_DISTANCE);
    if (d < s->best_distance) {
        s->best_distance = d;
        s->best = candidate;
    }
    if (n > s->wlen && strncasecmp(candidate, s->word, s->wlen) == 0) {
        if (s->prefix_count++ == 0)
            s->prefix_of = candidate;
    }
}

const char *lr_suggest_best(const lr_suggest *s)
{
    if (s->best && (size_t)s->best_distance * 2 < s->wlen)
        return s->best;
    if (s->prefix_count == 1 && s->wlen >= 3)
        return s->prefix_of;
    return NULL;
}
