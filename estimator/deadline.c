/*
 * deadline: the wall-clock limit of an est_ctx. isl counts operations, not time, and
 * some expressions cost far more time per operation than others, so a per-request time
 * limit needs a second thread: it sleeps until the deadline and then calls
 * isl_ctx_abort, which isl documents as the way to interrupt a computation from
 * another thread; the estimate then fails with LR_BUDGET_EXCEEDED. The same moment
 * sets ctx->expired, which the samplers (sample.c: plain C loops, not isl) poll per
 * instruction group of a warp, per block and per thread, so every stage of an estimate
 * stops at one deadline. Binding (bind.c) is not polled (est_estimate does not pass it
 * the context): its work is linear in the instructions, which the input limits bound
 * (2048 accesses x 64 folding steps; 0.7 s optimised, 1.5 s under ASan for the
 * largest expressions a 1 MiB body holds), and the samplers check the flag as soon
 * as it is done.
 *
 * An est_stop ends computations the same way before their deadline: raising it does
 * at once, for every context that watches it, what the watchdog does at the deadline
 * (a daemon's second SIGTERM cancels the requests it is running). Lock order: a
 * stop's lock, then a context's.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "estimator_int.h"

double est_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *watch(void *arg)
{
    est_ctx *c = arg;
    pthread_mutex_lock(&c->lock);
    while (!c->stop) {
        if (c->deadline <= 0) {
            pthread_cond_wait(&c->wake, &c->lock);
            continue;
        }
        double d = c->deadline;
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        int rc = pthread_cond_timedwait(&c->wake, &c->lock, &ts);
        if (rc == ETIMEDOUT && c->deadline == d && est_now() >= d) {
            isl_ctx_abort(c->isl);
            atomic_store_explicit(&c->expired, 1, memory_order_relaxed);
            c->deadline = 0;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

int est_deadline_start(est_ctx *c)
{
    pthread_condattr_t a;
    pthread_mutex_init(&c->lock, NULL);
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&c->wake, &a);
    pthread_condattr_destroy(&a);
    atomic_init(&c->expired, 0);
    return 0;
}

struct est_stop {
    pthread_mutex_t lock; /* guards watchers and the watch_next links */
    atomic_int raised;
    est_ctx *watchers;
};

/* c's computation ends now, as at its deadline. */
static void expire_now(est_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    isl_ctx_abort(c->isl);
    atomic_store_explicit(&c->expired, 1, memory_order_relaxed);
    pthread_mutex_unlock(&c->lock);
}

void est_ctx_set_deadline(est_ctx *c, double deadline)
{
    pthread_mutex_lock(&c->lock);
    c->deadline = deadline;
    /* a raised stop outlives every deadline */
    atomic_store_explicit(&c->expired, est_stop_raised(c->watched), memory_order_relaxed);
    /* the thread is started on first use: most contexts never get a deadline */
    if (deadline > 0 && !c->watchdog_started)
        c->watchdog_started = pthread_create(&c->watchdog, NULL, watch, c) == 0;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
    if (deadline > 0)
        isl_ctx_resume(c->isl);      /* a previous abort must not fail the next estimate */
    if (est_stop_raised(c->watched)) /* raised meanwhile: the resume undid its abort */
        expire_now(c);
}

est_stop *est_stop_new(void)
{
    est_stop *s = calloc(1, sizeof *s);
    if (s && pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

void est_stop_free(est_stop *s)
{
    if (!s)
        return;
    pthread_mutex_destroy(&s->lock);
    free(s);
}

int est_stop_raised(est_stop *s)
{
    return s && atomic_load(&s->raised);
}

void est_stop_raise(est_stop *s)
{
    pthread_mutex_lock(&s->lock);
    atomic_store(&s->raised, 1);
    for (est_ctx *c = s->watchers; c; c = c->watch_next)
        expire_now(c);
    pthread_mutex_unlock(&s->lock);
}

/* Takes c off its stop's list. */
static void unwatch(est_ctx *c)
{
    est_stop *s = c->watched;
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    for (est_ctx **link = &s->watchers; *link; link = &(*link)->watch_next)
        if (*link == c) {
            *link = c->watch_next;
            break;
        }
    c->watched = NULL;
    c->watch_next = NULL;
    pthread_mutex_unlock(&s->lock);
}

void est_ctx_watch(est_ctx *c, est_stop *s)
{
    unwatch(c);
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    c->watched = s;
    c->watch_next = s->watchers;
    s->watchers = c;
    if (atomic_load(&s->raised))
        expire_now(c);
    pthread_mutex_unlock(&s->lock);
}

void est_deadline_stop(est_ctx *c)
{
    unwatch(c);
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
    if (c->watchdog_started)
        pthread_join(c->watchdog, NULL);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->lock);
}
