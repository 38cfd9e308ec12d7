/*
 * pool.c: the compute pool. POST /v1/estimate and POST /v1/rank run the model for
 * 5 ms to --time-limit seconds; run on libmicrohttpd's threads, one long request
 * would stall every other connection of its thread (GET /healthz included), and a
 * connection stays on the thread that accepted it. So once such a request's body is
 * in, http.c hands it here: the request goes on a bounded FIFO and its connection is
 * suspended (MHD_ALLOW_SUSPEND_RESUME), --threads compute threads take jobs in
 * order, each with its own lr_worker, store the answer in the request and resume
 * the connection; MHD then calls the access handler again, which sends the answer.
 *
 * Who may touch what, and when a request is freed. Four facts carry the design:
 *  1. libmicrohttpd neither times out nor polls a suspended connection, so it does
 *     not notice a client that hangs up (its documentation of
 *     MHD_suspend_connection says so): the completion callback of a request whose
 *     job is QUEUED or RUNNING does not come before the job resumed the connection.
 *     A client that closes mid-job is noticed when the answer is sent, and the
 *     request completes then ("client closed" or "error" in the access log).
 *  2. The one way around (1) is MHD_stop_daemon, and stopping with a suspended
 *     connection violates MHD's API. srv_http_stop therefore calls srv_pool_stop
 *     first, which resumes every connection (queued jobs are answered 503) and joins
 *     the compute threads; the mutex is destroyed (srv_pool_fini) only once MHD has
 *     stopped, since its threads take it until then.
 *  3. Right after MHD_resume_connection, MHD may send the answer and complete the
 *     request on its own thread while the compute thread is still returning from
 *     MHD_resume_connection. So the compute thread touches neither the connection
 *     nor the request after resuming, except to mark the job DONE under the mutex;
 *     the completion callback (srv_pool_release) frees the request only when the
 *     job is DONE, and otherwise sets released so that the compute thread frees it:
 *     whichever of the two comes last frees, decided under the mutex.
 *  4. Should (1) ever not hold (a future libmicrohttpd), the same rule keeps the
 *     memory safe: a QUEUED job is unlinked and freed by the callback, and a RUNNING
 *     one, finding released set, frees the request without resuming the connection
 *     MHD has closed.
 * The compute thread writes answer and answer_err before it takes the mutex to set
 * RESUMING; the access handler reads them after taking it (srv_pool_answered), so
 * the mutex orders the two threads, not MHD's internals.
 */
#include <stdlib.h>

#include "srv_int.h"

static void lock(srv_pool *p)
{
    pthread_mutex_lock(&p->mu);
}

static void unlock(srv_pool *p)
{
    pthread_mutex_unlock(&p->mu);
}

/* Hands a job's answer back to its connection: called without the mutex, after
 * answer or answer_err was written. See (3) and (4) at the top. */
static void job_finish(srv_pool *p, srv_request *req)
{
    lock(p);
    int abandoned = req->released;
    struct MHD_Connection *c = req->conn;
    req->job = abandoned ? SRV_JOB_DONE : SRV_JOB_RESUMING;
    unlock(p);
    if (abandoned) {
        srv_request_free(req);
        return;
    }
    MHD_resume_connection(c);
    /* From here on, req may be completed (but not freed) by MHD's thread. */
    lock(p);
    int free_it = req->released;
    req->job = SRV_JOB_DONE;
    unlock(p);
    if (free_it)
        srv_request_free(req);
}

/* Runs the job of req (pool.run: its route's handler) on this compute thread. The
 * connection is suspended, so nothing else touches req meanwhile (the fields the
 * mutex guards excepted). */
static void job_run(srv_server *s, srv_request *req)
{
    lr_error_clear(&req->answer_err);
    req->answer = s->pool.run(s, req, &req->answer_err);
    free(req->body); /* not needed while the answer is sent */
    req->body = NULL;
}

/* Takes the oldest job; NULL when the pool stops and the queue is empty. Called
 * with the mutex held. */
static srv_request *job_take(srv_pool *p)
{
    while (!p->head && !p->stopping)
        pthread_cond_wait(&p->work, &p->mu);
    srv_request *req = p->head;
    if (!req)
        return NULL;
    p->head = req->job_next;
    if (!p->head)
        p->tail = NULL;
    req->job_next = NULL;
    p->queued--;
    req->job = SRV_JOB_RUNNING;
    return req;
}

/* A compute thread. Its lr_worker is created on its first job (srv_worker_get) and
 * freed by the worker key's destructor when the thread returns, on this thread as
 * api.h requires. */
static void *compute_main(void *arg)
{
    srv_server *s = arg;
    srv_pool *p = &s->pool;
    srv_request *req;
    lock(p);
    while ((req = job_take(p)) != NULL) {
        unlock(p);
        job_run(s, req);
        job_finish(p, req);
        lock(p);
    }
    unlock(p);
    return NULL;
}

int srv_pool_start(srv_server *s, srv_job_fn run, lr_error *err)
{
    srv_pool *p = &s->pool;
    p->run = run;
    unsigned n = s->cfg->threads;
    if (pthread_mutex_init(&p->mu, NULL) != 0)
        return lr_error_set(err, LR_INTERNAL, NULL, "cannot create the compute pool's mutex");
    if (pthread_cond_init(&p->work, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        return lr_error_set(err, LR_INTERNAL, NULL,
                            "cannot create the compute pool's condition");
    }
    p->initialized = 1;
    p->threads = calloc(n, sizeof *p->threads);
    if (!p->threads) {
        srv_pool_fini(s);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory while starting %u threads",
                            n);
    }
    for (; p->nthreads < n; p->nthreads++) {
        if (pthread_create(&p->threads[p->nthreads], NULL, compute_main, s) != 0) {
            unsigned started = p->nthreads;
            srv_pool_stop(s);
            srv_pool_fini(s);
            return lr_error_set(err, LR_UNAVAILABLE, NULL,
                                "cannot start compute thread %u of %u (--threads)", started + 1,
                                n);
        }
    }
    return 0;
}

srv_submit srv_pool_submit(srv_server *s, srv_request *req, struct MHD_Connection *c)
{
    srv_pool *p = &s->pool;
    lock(p);
    srv_submit r = p->stopping                  ? SRV_SUBMIT_STOPPING
                   : p->queued >= SRV_QUEUE_MAX ? SRV_SUBMIT_FULL
                                                : SRV_SUBMIT_OK;
    if (r == SRV_SUBMIT_OK) {
        /* Suspended before any compute thread can see the job: resuming a
         * connection that is not suspended is undefined. */
        MHD_suspend_connection(c);
        req->submitted = 1;
        req->conn = c;
        req->job = SRV_JOB_QUEUED;
        req->job_next = NULL;
        if (p->tail)
            p->tail->job_next = req;
        else
            p->head = req;
        p->tail = req;
        p->queued++;
        pthread_cond_signal(&p->work);
    }
    unlock(p);
    return r;
}

int srv_pool_answered(srv_server *s, srv_request *req)
{
    srv_pool *p = &s->pool;
    lock(p);
    int answered = req->job == SRV_JOB_RESUMING || req->job == SRV_JOB_DONE;
    unlock(p);
    return answered;
}

/* Removes a queued job from the queue (only reached if fact (1) fails). */
static void queue_unlink(srv_pool *p, srv_request *req)
{
    srv_request **link = &p->head, *prev = NULL;
    while (*link && *link != req) {
        prev = *link;
        link = &(*link)->job_next;
    }
    if (!*link)
        return;
    *link = req->job_next;
    if (p->tail == req)
        p->tail = prev;
    p->queued--;
}

void srv_pool_release(srv_server *s, srv_request *req)
{
    if (!req->submitted) { /* never a job: only this thread has seen it */
        srv_request_free(req);
        return;
    }
    srv_pool *p = &s->pool;
    lock(p);
    int free_now = 1;
    switch (req->job) {
    case SRV_JOB_QUEUED:
        queue_unlink(p, req);
        req->job = SRV_JOB_DONE;
        break;
    case SRV_JOB_RUNNING:
    case SRV_JOB_RESUMING:
        req->released = 1; /* the compute thread frees it */
        free_now = 0;
        break;
    case SRV_JOB_NONE:
    case SRV_JOB_DONE:
        break;
    }
    unlock(p);
    if (free_now)
        srv_request_free(req);
}

void srv_pool_stop(srv_server *s)
{
    srv_pool *p = &s->pool;
    if (!p->initialized)
        return;
    /* Jobs still queued now waited through the whole drain (or a second signal
     * cut it short): answer them rather than make shutdown wait for them too. */
    lock(p);
    p->stopping = 1;
    srv_request *cancelled = p->head;
    p->head = p->tail = NULL;
    p->queued = 0;
    for (srv_request *req = cancelled; req; req = req->job_next)
        req->job = SRV_JOB_RUNNING; /* owned by this thread until job_finish */
    pthread_cond_broadcast(&p->work);
    unlock(p);
    for (srv_request *req = cancelled, *next; req; req = next) {
        next = req->job_next;
        req->job_next = NULL;
        lr_error_clear(&req->answer_err);
        lr_error_set(&req->answer_err, LR_UNAVAILABLE, NULL,
                     "the server is shutting down and did not start this request; send it "
                     "again once the server is back");
        job_finish(p, req);
    }
    /* Running jobs end within --time-limit, or within moments when the drain
     * cancelled them (lr_api_cancel), resume their connections and the threads
     * return; each frees its worker on its way out. */
    for (unsigned i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    p->threads = NULL;
    p->nthreads = 0;
}

void srv_pool_fini(srv_server *s)
{
    srv_pool *p = &s->pool;
    if (!p->initialized)
        return;
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    p->initialized = 0;
}

unsigned srv_pool_depth(srv_server *s)
{
    srv_pool *p = &s->pool;
    if (!p->initialized)
        return 0;
    lock(p);
    unsigned n = p->queued;
    unlock(p);
    return n;
}
