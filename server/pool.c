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
 *     MHD notices a client that closes mid-job when the answer is sent, and the
 *     request completes then ("client closed" or "error" in the access log); the
 *     job itself looks earlier (below), to stop computing for nobody.
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
 *
 * One ranking on every idle thread, fairly (issue 12). A ranking puts itself on the
 * pool's list of rankings to help (lend_open, through the hooks handlers.c passes to
 * lr_api_rank_with); a compute thread that finds no job queued helps one of them
 * with its own worker (lr_rank_help: its own isl context, configuration by
 * configuration from the ranking's shared counter), and leaves it before its next
 * configuration as soon as a job is queued. So a ranking only ever takes threads
 * nobody else wants, and a job queued behind it waits for at most one configuration
 * while a helper is there to leave. When no thread is idle and none helps, the
 * ranking's own thread runs the estimate at the head of the queue itself between two
 * of its configurations (job_pause: an estimate is short and uses the same worker,
 * which the ranking does not use while it estimates), so an estimate waits for at
 * most one configuration of a ranking even with --threads 1; rankings queued behind
 * rankings wait in order as before. The ranking's answer is the same whoever helped: its own
 * thread alone reads and writes the cache, and the numbers do not depend on the
 * thread (rank.h). It waits for its helpers to leave before it returns (lend_close).
 *
 * An estimate lane. Besides the --threads compute threads, one more thread runs
 * estimates only, oldest first, and never helps a ranking: an estimate the cache does
 * not hold (cached ones never come here: http.c answers them on its I/O thread) waits
 * for the estimates queued before it, never for a ranking, however long one
 * configuration of a ranking takes (seconds, for deep foldings). The lane costs no
 * CPU while no estimate waits; while one computes beside a busy pool it shares the
 * cores with the rankings, which slows them by at most that estimate's time.
 *
 * A client that hangs up. By (1), MHD does not tell us while the job runs, so the job
 * looks itself: before it starts and before each configuration of a ranking, the
 * suspended connection's socket is polled for the peer's end of stream (POLLRDHUP;
 * the socket stays open while the connection is suspended, so the descriptor is the
 * connection's). A job whose client left is not run, and a ranking stops within the
 * configuration each of its threads is estimating; the threads take other work. A
 * client that shuts down only its sending side while waiting for the answer looks
 * the same, and is taken as gone: HTTP clients do not do that. The job's 503 is
 * still queued, but counted and logged as 499, not as an error (req->gone;
 * srv_respond_cancelled).
 *
 * Progress lines (docs/api.md, "Progress of a ranking"). A ranking whose client sent
 * Accept: application/x-ndjson gets a progress hook (job_progress): at most every
 * SRV_PROGRESS_INTERVAL_S it stores the latest line in the request and resumes the
 * connection if it is suspended. The first time, MHD calls the access handler, which
 * queues a chunked 200 answer read by stream_read (srv_pool_stream); the reader hands
 * out the pending line, or once the job is answered the answer and a newline, or
 * else suspends the connection itself until the next line or the answer resumes it.
 * suspended (under the mutex) says whether the connection is suspended and nobody is
 * resuming it, so exactly one thread resumes each suspension (job_finish included).
 * While a line is being sent, MHD watches the socket and may close it, so the job
 * polls it only while the reader has suspended the connection again; otherwise a
 * client gone is seen as the completion callback (released).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
 * answer or answer_err was written. See (3) and (4) at the top. The connection is
 * resumed unless a streamed answer's reader is running (it finds the answer). */
static void job_finish(srv_pool *p, srv_request *req)
{
    lock(p);
    int abandoned = req->released;
    struct MHD_Connection *c = req->conn;
    req->job = abandoned ? SRV_JOB_DONE : SRV_JOB_RESUMING;
    int resume = !abandoned && req->suspended;
    req->suspended = 0;
    unlock(p);
    if (abandoned) {
        srv_request_free(req);
        return;
    }
    if (resume)
        MHD_resume_connection(c);
    /* From here on, req may be completed (but not freed) by MHD's thread. */
    lock(p);
    int free_it = req->released;
    req->job = SRV_JOB_DONE;
    unlock(p);
    if (free_it)
        srv_request_free(req);
}

/* Whether the client of a suspended connection has closed it (or shut down its
 * sending side): the peer's end of stream, a reset or an error on fd. */
static int client_left(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLRDHUP};
    return fd >= 0 && poll(&pfd, 1, 0) > 0 &&
           (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* The ranking's cancelled hook: every thread of the ranking asks before each
 * configuration. Once seen, remembered. While the connection is suspended (since the
 * job was submitted, or by a streamed answer's reader waiting for the next line), its
 * socket is polled: MHD neither watches nor closes it then. While a progress line
 * resumed it, MHD watches the socket (and may close it, so the descriptor is not
 * ours to poll), and tells us by completing the request (released). */
static int job_gone(void *user)
{
    srv_request *req = user;
    if (atomic_load(&req->gone))
        return 1;
    srv_pool *p = req->pool;
    lock(p);
    /* suspended since submission until a progress line or the answer resumes it, and
     * again while a streamed answer's reader waits for its next line */
    int left = req->released || (req->suspended && client_left(req->fd));
    unlock(p);
    if (left)
        atomic_store(&req->gone, 1);
    return left;
}

/* ---- progress lines ------------------------------------------------------------ */

/* Seconds between two progress lines: often enough for a progress bar, rare enough
 * that the lines cost nothing next to the ranking (a ranking that ends sooner sends
 * none, only its answer). */
#define SRV_PROGRESS_INTERVAL_S 0.5

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int srv_pool_stream_wanted(struct MHD_Connection *c)
{
    const char *accept =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    return accept && strcasestr(accept, "application/x-ndjson") != NULL;
}

/* The ranking's progress hook (any of its threads, serialised by the ranking): keeps
 * the latest line for the reader, at most one per SRV_PROGRESS_INTERVAL_S (a line
 * not yet sent is replaced), and resumes the connection when it is suspended: the
 * first time so that the access handler queues the streamed answer, later so that
 * its waiting reader sends the line. */
static void job_progress(void *user, size_t done, size_t total)
{
    srv_request *req = user;
    srv_pool *p = req->pool;
    double now = mono_s();
    lock(p);
    if (req->released || now - req->progress_at < SRV_PROGRESS_INTERVAL_S) {
        unlock(p);
        return;
    }
    req->progress_at = now;
    double elapsed = now - ((double)req->start.tv_sec + 1e-9 * (double)req->start.tv_nsec);
    int n = snprintf(req->progress, sizeof req->progress,
                     "{\"progress\":{\"done\":%zu,\"of\":%zu,\"elapsed_s\":%.3f}}\n", done,
                     total, elapsed);
    req->progress_len = n > 0 && (size_t)n < sizeof req->progress ? (size_t)n : 0;
    req->progress_off = 0;
    req->stream_opened = 1;
    int resume = req->suspended;
    req->suspended = 0;
    struct MHD_Connection *c = req->conn;
    unlock(p);
    /* Still this job's (RUNNING: nobody frees req), and suspended until this call. */
    if (resume)
        MHD_resume_connection(c);
}

/* Copies what is left of text[0..len) from *off into buf (at most max bytes). */
static size_t copy_out(const char *text, size_t len, size_t *off, char *buf, size_t max)
{
    size_t n = len - *off < max ? len - *off : max;
    memcpy(buf, text + *off, n);
    *off += n;
    return n;
}

/* The streamed answer's reader (MHD's thread): the pending progress line, else the
 * answer and its newline once the job is answered, else nothing yet: it suspends the
 * connection, and the next line or the answer resumes it. An error after progress
 * was sent becomes the last line, {"error": ...}, as its body would be. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    srv_request *req = cls;
    srv_pool *p = req->pool;
    ssize_t n = 0;
    lock(p);
    int answered = req->job == SRV_JOB_RESUMING || req->job == SRV_JOB_DONE;
    /* a line begun is finished first; one not begun gives way to the answer */
    if (req->progress_off < req->progress_len && (!answered || req->progress_off > 0)) {
        n = (ssize_t)copy_out(req->progress, req->progress_len, &req->progress_off, buf, max);
    } else if (answered) {
        if (!req->answer.text) {
            char *e = lr_error_to_json(&req->answer_err, LR_MODEL_VERSION);
            req->answer = (srv_json){e, free, NULL, 0, 0};
        }
        size_t len = req->answer.text ? strlen(req->answer.text) : 0;
        if (req->final_off < len)
            n = (ssize_t)copy_out(req->answer.text, len, &req->final_off, buf, max);
        else if (req->final_off == len && max > 0) {
            buf[0] = '\n';
            req->final_off++;
            n = 1;
        } else
            n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        MHD_suspend_connection(req->conn);
        req->suspended = 1;
    }
    if (n > 0)
        req->bytes += (size_t)n;
    unlock(p);
    return n;
}

enum MHD_Result srv_pool_stream(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    if (!req->stream)
        return MHD_YES; /* not reached: only a streamed job is resumed unanswered */
    return srv_respond_stream(s, c, req, stream_read, req);
}

static void job_run(srv_server *s, srv_request *req);
static void job_pause(void *user);

/* The ranking's open hook: idle compute threads may help it from now on. */
static void lend_open(void *user, lr_rank_run *run)
{
    srv_request *req = user;
    srv_pool *p = req->pool;
    lock(p);
    req->lend = (srv_lend){.run = run, .next = p->lends};
    p->lends = &req->lend;
    pthread_cond_broadcast(&p->work);
    unlock(p);
}

/* The ranking's close hook: takes it off the list, then waits until every helper
 * has left (each finishes the configuration it is estimating). */
static void lend_close(void *user, lr_rank_run *run)
{
    srv_request *req = user;
    srv_pool *p = req->pool;
    lock(p);
    for (srv_lend **link = &p->lends; *link; link = &(*link)->next)
        if (*link == &req->lend) {
            *link = req->lend.next;
            break;
        }
    while (req->lend.helpers)
        pthread_cond_wait(&p->helped, &p->mu);
    unlock(p);
}

const lr_rank_hooks *srv_pool_rank_hooks(const srv_request *req)
{
    return &req->hooks;
}

/* Runs the job of req (pool.run: its route's handler) on this compute thread. The
 * connection is suspended, so nothing else touches req meanwhile (the fields the
 * mutex guards excepted). A job whose client has left already is not run. */
static void job_run(srv_server *s, srv_request *req)
{
    lr_error_clear(&req->answer_err);
    req->server = s;
    req->hooks = (lr_rank_hooks){.progress = req->stream ? job_progress : NULL,
                                 .cancelled = job_gone,
                                 .pause = job_pause,
                                 .open = lend_open,
                                 .close = lend_close,
                                 .user = req};
    lock(&s->pool);
    req->progress_at = mono_s(); /* the first line after an interval of computing */
    unlock(&s->pool);
    if (job_gone(req))
        lr_error_set(&req->answer_err, LR_UNAVAILABLE, NULL,
                     "the client closed the connection before the request was run");
    else
        req->answer = s->pool.run(s, req, &req->answer_err);
    free(req->body); /* not needed while the answer is sent */
    req->body = NULL;
}

/* Takes the oldest job (there is one) off the queue: this thread runs it now. Called
 * with the mutex held. */
static srv_request *queue_pop(srv_pool *p)
{
    srv_request *req = p->head;
    p->head = req->job_next;
    if (!p->head)
        p->tail = NULL;
    req->job_next = NULL;
    p->queued--;
    req->job = SRV_JOB_RUNNING;
    return req;
}

/* The ranking's pause hook, on its own thread between two of its configurations:
 * runs the oldest job if it is an estimate and no other thread will take it soon
 * (none idle, none helping a ranking, which would leave for it). */
static void job_pause(void *user)
{
    srv_request *owner = user;
    srv_pool *p = owner->pool;
    lock(p);
    srv_request *req = p->head;
    int helping = 0;
    for (srv_lend *l = p->lends; l; l = l->next)
        helping += l->helpers != 0;
    if (!req || !req->quick || p->idle || p->lane_idle || helping || p->stopping) {
        unlock(p);
        return;
    }
    queue_pop(p);
    unlock(p);
    job_run(owner->server, req);
    job_finish(p, req);
}

/* A helper's leave callback: go when a job waits or the pool stops, and remember
 * having been told (a helper that returns untold found the ranking drained). */
typedef struct srv_helper {
    srv_pool *p;
    int told;
} srv_helper;

static int helper_leave(void *user)
{
    srv_helper *h = user;
    lock(h->p);
    h->told = h->p->head != NULL || h->p->stopping;
    unlock(h->p);
    return h->told;
}

/* The open ranking with the fewest helpers that still has configurations to take,
 * or NULL. Called with the mutex held. */
static srv_lend *lend_pick(srv_pool *p)
{
    srv_lend *best = NULL;
    for (srv_lend *l = p->lends; l; l = l->next)
        if (!l->drained && (!best || l->helpers < best->helpers))
            best = l;
    return best;
}

/* Helps the ranking l with this thread's worker until it is drained or a job waits.
 * Called with the mutex held, which is released meanwhile. Returns 0, or -1 when
 * this thread has no worker (out of memory; it then helps no ranking until woken). */
static int lend_help(srv_server *s, srv_lend *l)
{
    srv_pool *p = &s->pool;
    l->helpers++;
    unlock(p);
    lr_error err;
    lr_error_clear(&err);
    lr_worker *w = srv_worker_get(s, &err);
    srv_helper h = {.p = p};
    if (w)
        lr_rank_help(w, l->run, helper_leave, &h);
    lock(p);
    if (w && !h.told)
        l->drained = 1;
    if (--l->helpers == 0)
        pthread_cond_broadcast(&p->helped);
    return w ? 0 : -1;
}

/* Takes the oldest job, helping open rankings while none is queued; NULL when the
 * pool stops. Called with the mutex held. */
static srv_request *job_take(srv_server *s)
{
    srv_pool *p = &s->pool;
    for (;;) {
        if (p->head || p->stopping)
            break;
        srv_lend *l = lend_pick(p);
        if (!l || lend_help(s, l)) {
            p->idle++;
            pthread_cond_wait(&p->work, &p->mu);
            p->idle--;
        }
    }
    return p->head ? queue_pop(p) : NULL;
}

/* Takes the oldest queued estimate off the queue (for the estimate lane), or NULL
 * when none is queued. Called with the mutex held. */
static srv_request *queue_pop_quick(srv_pool *p)
{
    srv_request *prev = NULL, *req = p->head;
    while (req && !req->quick)
        prev = req, req = req->job_next;
    if (!req)
        return NULL;
    if (prev)
        prev->job_next = req->job_next;
    else
        p->head = req->job_next;
    if (p->tail == req)
        p->tail = prev;
    req->job_next = NULL;
    p->queued--;
    req->job = SRV_JOB_RUNNING;
    return req;
}

/* The estimate lane's take (see the top): the oldest queued estimate, waiting for one;
 * NULL when the pool stops. Called with the mutex held. */
static srv_request *lane_take(srv_server *s)
{
    srv_pool *p = &s->pool;
    srv_request *req = NULL;
    while (!p->stopping && !(req = queue_pop_quick(p))) {
        p->lane_idle = 1;
        pthread_cond_wait(&p->work, &p->mu);
        p->lane_idle = 0;
    }
    return req;
}

/* Runs the jobs take hands this thread until it hands none. A thread's lr_worker is
 * created on its first job (srv_worker_get) and freed by the worker key's destructor
 * when the thread returns, on this thread as api.h requires. */
static void run_jobs(srv_server *s, srv_request *(*take)(srv_server *))
{
    srv_pool *p = &s->pool;
    srv_request *req;
    lock(p);
    while ((req = take(s)) != NULL) {
        unlock(p);
        job_run(s, req);
        job_finish(p, req);
        lock(p);
    }
    unlock(p);
}

/* A compute thread: any job, and idle, it helps rankings (job_take). */
static void *compute_main(void *arg)
{
    run_jobs(arg, job_take);
    return NULL;
}

/* The estimate lane: estimates only, no ranking helped. */
static void *lane_main(void *arg)
{
    run_jobs(arg, lane_take);
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
    if (pthread_cond_init(&p->helped, NULL) != 0) {
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->mu);
        return lr_error_set(err, LR_INTERNAL, NULL,
                            "cannot create the compute pool's condition");
    }
    p->initialized = 1;
    p->threads = calloc(n + 1, sizeof *p->threads);
    if (!p->threads) {
        srv_pool_fini(s);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory while starting %u threads",
                            n);
    }
    for (; p->nthreads <= n; p->nthreads++) {
        void *(*main_of)(void *) = p->nthreads < n ? compute_main : lane_main;
        if (pthread_create(&p->threads[p->nthreads], NULL, main_of, s) != 0) {
            unsigned started = p->nthreads;
            srv_pool_stop(s);
            srv_pool_fini(s);
            return started < n ? lr_error_set(err, LR_UNAVAILABLE, NULL,
                                              "cannot start compute thread %u of %u (--threads)",
                                              started + 1, n)
                               : lr_error_set(err, LR_UNAVAILABLE, NULL,
                                              "cannot start the estimate thread");
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
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        req->fd = ci ? (int)ci->connect_fd : -1;
        req->suspended = 1;
        req->pool = p;
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
        /* all: the one woken must be able to take it (the lane takes estimates only) */
        pthread_cond_broadcast(&p->work);
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

int srv_pool_cancelled(srv_server *s, srv_request *req)
{
    if (!req->submitted)
        return 0;
    if (atomic_load(&req->gone))
        return 1;
    srv_pool *p = &s->pool;
    lock(p);
    /* completed while its job waits or runs: MHD saw the client leave, see (4) */
    int held = req->job == SRV_JOB_QUEUED || req->job == SRV_JOB_RUNNING;
    unlock(p);
    return held;
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
    pthread_cond_destroy(&p->helped);
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
