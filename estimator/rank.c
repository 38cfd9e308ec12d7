/* rank: see rank.h. The threads of a ranking (those est_rank starts, the calling one, and
 * any a lender gives it through est_rank_help) pull configuration indices from one shared
 * counter, so the cached rows and the answer are the same whoever computes what. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "estimator_int.h"
#include "rank.h"

/* The largest power of two a block side may take along a domain extent: one block
 * may stick out (a power of two covers any extent), but no further; x keeps a whole
 * warp even on a narrow domain. */
static int side_limit(int64_t extent, int min_side)
{
    int s = 1;
    while (s < extent && s < 1024)
        s *= 2;
    return s > min_side ? s : min_side;
}

size_t est_search_default(int min_threads, int max_threads, int max_bz, int min_bx,
                          const int64_t domain[3], const int (*foldings)[3], size_t nfold,
                          est_launch *out, size_t cap)
{
    size_t n = 0;
    int lim[3] = {side_limit(domain[0], 32), side_limit(domain[1], 1),
                  side_limit(domain[2], 1)};
    for (int bz = 1; bz <= max_bz && bz <= max_threads && bz <= lim[2]; bz *= 2)
        for (int by = 1; by * bz <= max_threads && by <= lim[1]; by *= 2)
            for (int bx = min_bx; bx * by * bz <= max_threads && bx <= lim[0]; bx *= 2) {
                if (bx * by * bz < min_threads)
                    continue;
                for (size_t f = 0; f < nfold; f++, n++)
                    if (n < cap) {
                        est_launch *l = &out[n];
                        l->block[0] = bx;
                        l->block[1] = by;
                        l->block[2] = bz;
                        memcpy(l->folding, foldings[f], sizeof l->folding);
                    }
            }
    return n;
}

/* One ranking (rank.h): what every thread that works on it shares. Lives on
 * est_rank's stack; lent threads (est_rank_help) use it only between the lender's
 * open and close. */
struct est_rank_run {
    const est_kernel *k;
    const est_device *dev;
    est_result *results;
    size_t n;
    const unsigned char *skip;
    unsigned long max_ops;
    double deadline;
    est_stop *stop;              /* watched by every worker's context; NULL = none */
    unsigned char *finished;     /* OUT: finished[i] = 1 once results[i] is estimated */
    est_memo *memo;              /* shared by the workers: a footprint is counted once */
    const est_rank_hooks *hooks; /* never NULL (est_rank gives an empty one) */
    pthread_mutex_t lock;        /* guards next, done, err and progress calls */
    size_t next, done;
    lr_error err;
};

/* Estimates run's configurations with ctx, one index at a time from the shared
 * counter, until none is left, the ranking failed or was cancelled, its deadline
 * passed, or leave(user) says to go. ctx is set up for the ranking by the caller. */
static void rank_loop(est_rank_run *run, est_ctx *ctx, int (*leave)(void *), void *user)
{
    const est_rank_hooks *h = run->hooks;
    for (;;) {
        if (leave && leave(user))
            break;
        int cancelled = h->cancelled && h->cancelled(h->user);
        pthread_mutex_lock(&run->lock);
        if (cancelled && !lr_error_is_set(&run->err))
            lr_error_set(&run->err, LR_UNAVAILABLE, NULL,
                         "the ranking was cancelled: its client closed the connection");
        size_t i = run->next++;
        int stop = i >= run->n || lr_error_is_set(&run->err);
        pthread_mutex_unlock(&run->lock);
        if (stop)
            break;
        if (run->skip && run->skip[i])
            continue;
        if (run->deadline > 0 && est_now() > run->deadline)
            break; /* time is up: the rest stay unfinished, and that is no error */
        lr_error e;
        lr_error_clear(&e);
        est_config cfg = run->results[i].config;
        int rc = !ctx ? lr_error_set(&e, LR_NO_MEMORY, NULL, "out of memory")
                 : est_stop_raised(run->stop)
                     ? lr_error_set(&e, LR_UNAVAILABLE, NULL, "the ranking was stopped")
                     : est_estimate(ctx, run->k, run->dev, &cfg, &run->results[i], &e);
        /* the deadline interrupted this one (the watchdog raised expired, and no stop
         * did): it stays unfinished, like those after it */
        int cut = rc && e.code == LR_BUDGET_EXCEEDED && est_ctx_expired(ctx) &&
                  !est_stop_raised(run->stop);
        pthread_mutex_lock(&run->lock);
        if (rc && !cut && !lr_error_is_set(&run->err))
            run->err = e;
        if (!rc) {
            run->finished[i] = 1;
            run->done++;
            if (h->progress)
                h->progress(h->user, run->done, run->n);
        }
        pthread_mutex_unlock(&run->lock);
        if (cut)
            break;
    }
}

/* The calling thread's leave test: never leaves, but first gives the caller its
 * pause between two configurations (rank.h). */
static int pause_between(void *arg)
{
    const est_rank_hooks *h = ((est_rank_run *)arg)->hooks;
    h->pause(h->user);
    return 0;
}

/* A thread of the ranking with a context of its own for its time: one est_rank
 * started, or (leave, user) the calling thread. */
static void rank_own(est_rank_run *run, int (*leave)(void *), void *user)
{
    est_ctx *ctx = est_ctx_new(run->max_ops);
    if (ctx && run->memo)
        est_ctx_share_memo(ctx, run->memo);
    if (ctx)
        est_ctx_watch(ctx, run->stop);
    if (ctx && run->deadline > 0)
        est_ctx_set_deadline(ctx, run->deadline);
    rank_loop(run, ctx, leave, user);
    est_ctx_free(ctx);
}

static void *rank_worker(void *arg)
{
    rank_own(arg, NULL, NULL);
    return NULL;
}

void est_rank_help(est_rank_run *run, est_ctx *ctx, int (*leave)(void *), void *user)
{
    if (run->memo)
        est_ctx_share_memo(ctx, run->memo);
    est_ctx_set_deadline(ctx, run->deadline);
    rank_loop(run, ctx, leave, user);
    /* its own memo again (NULL: made on first use), and no deadline until the next
     * request of its thread sets one */
    est_ctx_share_memo(ctx, ctx->own_memo);
    est_ctx_set_deadline(ctx, 0);
}

int est_rank(const est_kernel *k, const est_device *dev, est_result *results, size_t n,
             const unsigned char *skip, unsigned char *finished, int nthreads,
             unsigned long max_ops, double deadline, est_stop *stop,
             const est_rank_hooks *hooks, lr_error *err)
{
    static const est_rank_hooks none = {0};
    est_rank_run run = {.k = k,
                        .dev = dev,
                        .results = results,
                        .n = n,
                        .skip = skip,
                        .max_ops = max_ops,
                        .deadline = deadline,
                        .stop = stop,
                        .finished = finished,
                        .hooks = hooks ? hooks : &none};
    lr_error_clear(&run.err);
    run.memo = est_memo_new(); /* NULL: every worker keeps its own */
    if (skip)
        for (size_t i = 0; i < n; i++)
            run.done += skip[i] != 0;
    pthread_mutex_init(&run.lock, NULL);
    if (nthreads < 1)
        nthreads = 1;
    if ((size_t)nthreads > n)
        nthreads = n ? (int)n : 1;
    pthread_t *tids = calloc((size_t)nthreads, sizeof *tids);
    int started = 0;
    for (int t = 1; tids && t < nthreads; t++, started++)
        if (pthread_create(&tids[t], NULL, rank_worker, &run))
            break;
    if (run.hooks->open)
        run.hooks->open(run.hooks->user, &run);
    /* the calling thread works too, pausing between configurations if asked to */
    rank_own(&run, run.hooks->pause ? pause_between : NULL, &run);
    if (run.hooks->close)
        run.hooks->close(run.hooks->user, &run); /* returns once no lent thread is in */
    for (int t = 1; t <= started; t++)
        pthread_join(tids[t], NULL);
    free(tids);
    est_memo_free(run.memo);
    pthread_mutex_destroy(&run.lock);
    if (lr_error_is_set(&run.err)) {
        *err = run.err;
        return -1;
    }
    return 0;
}
