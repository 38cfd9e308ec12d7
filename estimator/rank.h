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

/* One ranking in progress, as est_rank shares it with the threads a lender gives it
 * (below). Opaque; it lives from est_rank's open call to its close call. */
typedef struct est_rank_run est_rank_run;

/* What may come along with a ranking besides its configurations (each member may be
 * 0/NULL):
 *  - progress(user, done, total) after each configuration, from any thread of the
 *    ranking, serialised; done counts the skipped (cached) ones too;
 *  - cancelled(user), asked by every thread of the ranking before each configuration
 *    (any thread, not serialised): nonzero ends the ranking with LR_UNAVAILABLE, its
 *    threads leaving within the configuration each is estimating (a daemon whose
 *    client hung up);
 *  - a lender of threads: open(user, run) once the ranking can be shared, after which
 *    any thread may call est_rank_help(run, ...) with its own est_ctx until
 *    close(user, run) returns; est_rank calls close before it returns (also on error),
 *    and close must not return while a thread is inside est_rank_help for run or may
 *    still enter it. This is how a daemon lends its idle compute threads to one
 *    ranking; the calling thread and the nthreads - 1 threads est_rank starts work
 *    beside the lent ones;
 *  - pause(user), called by the calling thread alone before each of its
 *    configurations: it may do other work there (a daemon with no idle thread runs
 *    an estimate that waits, so that a ranking does not hold it up for long); the
 *    ranking's other threads go on meanwhile. */
typedef struct est_rank_hooks {
    est_progress_fn progress;
    int (*cancelled)(void *user);
    void (*pause)(void *user);
    void (*open)(void *user, est_rank_run *run);
    void (*close)(void *user, est_rank_run *run);
    void *user;
} est_rank_hooks;

/* Estimates results[i] for every i with skip == NULL or !skip[i] (the caller may have
 * filled some from a cache), using up to nthreads threads, each with its own est_ctx,
 * and sets finished[i] (n flags, zeroed by the caller) for each one it estimated.
 * deadline (est_now() seconds, 0 = none) bounds the wall-clock time of the whole
 * ranking: past it no configuration is started, those it interrupts are left
 * unfinished (results[i] then holds nothing to read), and the call still returns 0:
 * the caller ranks what finished (protocol/api_rank.c). Raising stop (NULL: none), or
 * hooks->cancelled, ends it sooner with LR_UNAVAILABLE. Any other error of a
 * configuration stops the ranking: -1 with err set. Which thread estimates a
 * configuration changes no number: every memo is exact (docs/architecture.md). */
int est_rank(const est_kernel *k, const est_device *dev, est_result *results, size_t n,
             const unsigned char *skip, unsigned char *finished, int nthreads,
             unsigned long max_ops, double deadline, est_stop *stop,
             const est_rank_hooks *hooks, lr_error *err);

/* Lends the calling thread to run (between the lender's open and close): estimates
 * its configurations with ctx, the caller's own context (which should watch the same
 * stop as the ranking; its memo and deadline are the ranking's for the time of the
 * call and its own again after), until none is left, the ranking ends, or leave(user)
 * (asked before each configuration; NULL: never) says to go. Errors are the
 * ranking's, reported by est_rank. */
void est_rank_help(est_rank_run *run, est_ctx *ctx, int (*leave)(void *), void *user);

#endif
