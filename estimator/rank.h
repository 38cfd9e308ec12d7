/*
 * rank: estimate many configurations of one kernel in parallel. The order of a
 * ranking (docs/model.md §7: best predicted performance first, ties broken by the
 * lower DRAM volume, then the lower L2 volume) is cmp_entry in protocol/api.c.
 */
#ifndef EST_RANK_H
#define EST_RANK_H

#include "estimator.h"

/* Called from worker threads (serialised by a mutex) after each configuration. */
typedef void (*est_progress_fn)(void *user, size_t done, size_t total);

/* Blocks of the default search space: every block whose sides are powers of two with
 * min_threads <= bx*by*bz <= max_threads, bz <= max_bz and bx >= min_bx (a power of
 * two; 32 keeps bx a multiple of the warp), no side larger than the
 * smallest power of two that covers the domain's extent (bx at least 32), so a 2-D
 * domain gets bz = 1 and no block leaves a whole layer idle; combined with each of the
 * nfold foldings. Writes at most cap launches into out and returns how many there are
 * in all (call with cap 0 to size the array). */
size_t est_search_default(int min_threads, int max_threads, int max_bz, int min_bx,
                          const int64_t domain[3], const int (*foldings)[3], size_t nfold,
                          est_launch *out, size_t cap);

/* Estimates results[i] for every i with skip == NULL or !skip[i] (the caller may have
 * filled some from a cache), using up to nthreads threads, each with its own est_ctx,
 * and sets finished[i] (n flags, zeroed by the caller) for each one it estimated.
 * deadline (est_now() seconds, 0 = none) bounds the wall-clock time of the whole
 * ranking: past it no configuration is started, those it interrupts are left
 * unfinished (results[i] then holds nothing to read), and the call still returns 0:
 * the caller ranks what finished (protocol/api_rank.c). Raising stop (NULL: none)
 * ends it sooner with LR_UNAVAILABLE. Any other error of a configuration stops the
 * ranking: -1 with err set. */
int est_rank(const est_kernel *k, const est_device *dev, est_result *results, size_t n,
             const unsigned char *skip, unsigned char *finished, int nthreads,
             unsigned long max_ops, double deadline, est_stop *stop, est_progress_fn progress,
             void *user, lr_error *err);

#endif
