/*
 * lr_suggest: "did you mean" for a name that is not one of a known few (an unknown
 * key of a request object, a device name, a name in an expression). The closest
 * candidate by edit distance, compared without regard to case, when it is close
 * enough to be a likely misspelling rather than another word.
 */
#ifndef LR_SUGGEST_H
#define LR_SUGGEST_H

#include <stddef.h>

/* The largest edit distance suggested (insertions, deletions, substitutions and
 * swaps of two neighbouring characters, each 1): 'lunch' -> 'launch' is 1,
 * 'l2_byte' -> 'l2_bytes' 1, 'foldign' -> 'folding' 1; at 3, unrelated short names
 * start to match ('grid' -> 'block' is 4, 'top' -> 'tops' 1, 'x' -> 'z' 1). */
#define LR_SUGGEST_MAX_DISTANCE 2

/* The state of one search: the word, then each candidate offered in turn. */
typedef struct lr_suggest {
    const char *word; /* borrowed; not NUL-terminated, wlen bytes */
    size_t wlen;
    const char *best; /* borrowed from the candidate offered; NULL while none is close */
    int best_distance;
    int prefix_count;      /* candidates that start with the word (case-insensitive) */
    const char *prefix_of; /* the first of them */
} lr_suggest;

/* Starts a search for word (wlen bytes). */
void lr_suggest_init(lr_suggest *s, const char *word, size_t wlen);

/* Offers one candidate name (NUL-terminated, borrowed until lr_suggest_best). */
void lr_suggest_offer(lr_suggest *s, const char *candidate);

/* The candidate to suggest, or NULL: the first candidate at the smallest distance when
 * that is at most LR_SUGGEST_MAX_DISTANCE and less than half the word's length
 * ('a' suggests nothing), else the one candidate the word is a prefix of when the word
 * has at least 3 characters ('fold' -> 'folding', 'H100' -> 'H100-SXM5-80GB'). A
 * candidate equal to the word, case aside, is suggested (a case error). */
const char *lr_suggest_best(const lr_suggest *s);

#endif
