/* rank: see rank.h. Worker threads pull configuration indices from a shared counter. */
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

typedef struct rank_job {
    const est_kernel *k;
    const est_device *dev;
    est_result *results;
    size_t n;
    const unsigned char *skip;
    unsigned long max_ops;
    double deadline;
    est_stop *stop;          /* watched by every worker's context; NULL = none */
    unsigned char *finished; /* OUT: finished[i] = 1 once results[i] is estimated */
    est_memo *memo;          /* shared by the workers: a footprint is counted once */
    est_progress_fn progress;
    void *user;
    pthread_mutex_t lock; /* guards next, done, err and progress calls */
    size_t next, done;
    lr_error err;
} rank_job;

static void *rank_worker(void *arg)
{
    rank_job *job = arg;
    est_ctx *ctx = est_ctx_new(job->max_ops);
    if (ctx && job->memo)
        est_ctx_share_memo(ctx, job->memo);
    if (ctx)
        est_ctx_watch(ctx, job->stop);
    if (ctx && job->deadline > 0)
        est_ctx_set_deadline(ctx, job->deadline);
    for (;;) {
        pthread_mutex_lock(&job->lock);
        size_t i = job->next++;
        int stop = i >= job->n || lr_error_is_set(&job->err);
        pthread_mutex_unlock(&job->lock);
        if (stop)
            break;
        if (job->skip && job->skip[i])
            continue;
        if (job->deadline > 0 && est_now() > job->deadline)
            break; /* time is up: the rest stay unfinished, and that is no error */
        lr_error e;
        lr_error_clear(&e);
        est_config cfg = job->results[i].config;
        int rc = !ctx ? lr_error_set(&e, LR_NO_MEMORY, NULL, "out of memory")
                 : est_stop_raised(job->stop)
                     ? lr_error_set(&e, LR_UNAVAILABLE, NULL, "the ranking was stopped")
                     : est_estimate(ctx, job->k, job->dev, &cfg, &job->results[i], &e);
        /* the deadline interrupted this one (the watchdog raised expired, and no stop
         * did): it stays unfinished, like those after it */
        int cut = rc && e.code == LR_BUDGET_EXCEEDED && est_ctx_expired(ctx) &&
                  !est_stop_raised(job->stop);
        pthread_mutex_lock(&job->lock);
        if (rc && !cut && !lr_error_is_set(&job->err))
            job->err = e;
        if (!rc) {
            job->finished[i] = 1;
            job->done++;
            if (job->progress)
                job->progress(job->user, job->done, job->n);
        }
        pthread_mutex_unlock(&job->lock);
        if (cut)
            break;
    }
    est_ctx_free(ctx);
    return NULL;
}

int est_rank(const est_kernel *k, const est_device *dev, est_result *results, size_t n,
             const unsigned char *skip, unsigned char *finished, int nthreads,
             unsigned long max_ops, double deadline, est_stop *stop, est_progress_fn progress,
             void *user, lr_error *err)
{
    rank_job job = {.k = k,
                    .dev = dev,
                    .results = results,
                    .n = n,
                    .skip = skip,
                    .max_ops = max_ops,
                    .deadline = deadline,
                    .stop = stop,
                    .finished = finished,
                    .progress = progress,
                    .user = user};
    lr_error_clear(&job.err);
    job.memo = est_memo_new(); /* NULL: every worker keeps its own */
    if (skip)
        for (size_t i = 0; i < n; i++)
            job.done += skip[i] != 0;
    pthread_mutex_init(&job.lock, NULL);
    if (nthreads < 1)
        nthreads = 1;
    if ((size_t)nthreads > n)
        nthreads = n ? (int)n : 1;
    pthread_t *tids = calloc((size_t)nthreads, sizeof *tids);
    int started = 0;
    for (int t = 1; tids && t < nthreads; t++, started++)
        if (pthread_create(&tids[t], NULL, rank_worker, &job))
            break;
    rank_worker(&job); /* the calling thread works too */
    for (int t = 1; t <= started; t++)
        pthread_join(tids[t], NULL);
    free(tids);
    est_memo_free(job.memo);
    pthread_mutex_destroy(&job.lock);
    if (lr_error_is_set(&job.err)) {
        *err = job.err;
        return -1;
    }
    return 0;
}
