/*
 * http.c: the libmicrohttpd plumbing. Starts and stops the daemon, keeps one
 * srv_request per request (the body accumulated under --max-body), answers what can
 * be answered from the headers alone (404, 405, 415, 413 by Content-Length) before
 * any body is read, and once the body is complete answers the cheap routes at once
 * and hands estimate and rank to the compute pool (pool.c), sending their answer
 * when the pool resumes the connection. It writes the access log line when MHD
 * reports the request done.
 *
 * Threads: MHD's few I/O threads call everything here except start and stop. A
 * connection stays on one of them; a srv_request is shared only with the compute
 * thread that runs its job, under the rules of pool.c. Everything else the threads
 * share is in srv_server and is atomic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "srv_int.h"

/* Memory MHD may use per connection for the request line, headers and its read
 * buffer (bodies are ours, bounded by --max-body). Requests carry a few short
 * headers; 64 KiB leaves room for proxies' additions and rejects header floods. */
#define SRV_CONNECTION_MEMORY ((size_t)64 * 1024)

/* Open connections at most. Each may hold --max-body (1 MiB by default) while its
 * body arrives: 512 bound that to ~0.5 GiB, far above what code generators on one
 * host open at once. */
#define SRV_MAX_CONNECTIONS 512u

/* libmicrohttpd's threads. They only parse, route, answer the cheap endpoints and
 * send (microseconds per request); the model runs on the compute pool. Two keep
 * connections served while one thread is busy sending a large answer. */
#define SRV_IO_THREADS 2u

/* Seconds shutdown waits for requests in flight to be answered, the compute threads
 * working through the queue meanwhile. A ranking takes seconds; this also covers
 * sending to a slow reader. After it we stop anyway: jobs still queued are answered
 * 503, running ones are let finish (within --time-limit), and answers not sent by
 * the time libmicrohttpd stops are dropped. */
#define SRV_DRAIN_MAX_S 30

/* First allocation for a body whose size is not announced (chunked uploads). */
#define SRV_BODY_FIRST_CAP ((size_t)16 * 1024)

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    srv_log("launchrank: libmicrohttpd: %s", msg);
}

static double ms_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) * 1e3 + (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
}

/* ---- requests --------------------------------------------------------------- */

static srv_request *request_new(const char *method, const char *url)
{
    size_t n = strlen(url);
    srv_request *req = calloc(1, sizeof *req + n + 1);
    if (!req)
        return NULL;
    req->route = -1;
    snprintf(req->method, sizeof req->method, "%s", method);
    memcpy(req->url, url, n + 1);
    clock_gettime(CLOCK_MONOTONIC, &req->start);
    return req;
}

/* Lenient on purpose: no Content-Type at all (curl -d sends form type, but many
 * hand-written clients send none) and any application/json with parameters
 * (charset) are JSON; everything else was meant for another server. */
static int is_json_content_type(const char *ct)
{
    if (!ct)
        return 1;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    static const char json[] = "application/json";
    if (strncasecmp(ct, json, sizeof json - 1) != 0)
        return 0;
    char next = ct[sizeof json - 1];
    return next == '\0' || next == ';' || next == ' ' || next == '\t';
}

static enum MHD_Result respond_code(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                    lr_code code, unsigned status, const char *allow,
                                    const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static enum MHD_Result respond_code(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                    lr_code code, unsigned status, const char *allow,
                                    const char *fmt, ...)
{
    lr_error err;
    lr_error_clear(&err);
    va_list ap;
    va_start(ap, fmt);
    lr_error_setv(&err, code, NULL, fmt, ap);
    va_end(ap);
    return srv_respond_error(s, c, req, &err, status, allow);
}

/* Everything decided by the request line and headers, before the body is read.
 * Answering now spares buffering a body we would refuse; MHD then closes the
 * connection instead of reading the rest. */
static enum MHD_Result request_begin(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    char allow[64];
    unsigned status;
    req->route = srv_route_find(req->method, req->url, &req->arg, allow, sizeof allow, &status);
    srv_stats_count_request(&s->stats, req->route);
    if (req->route < 0 && status == MHD_HTTP_METHOD_NOT_ALLOWED)
        return respond_code(s, c, req, LR_METHOD_NOT_ALLOWED, 0, allow,
                            "%s does not accept %s; it accepts %s", req->url, req->method,
                            allow);
    if (req->route < 0)
        return respond_code(s, c, req, LR_NOT_FOUND, 0, NULL,
                            "no endpoint at %s; the endpoints are POST /v1/estimate, POST "
                            "/v1/rank, GET /v1/devices, GET /v1/devices/{name}, GET /healthz "
                            "and GET /v1/stats",
                            req->url);
    if (!srv_route_has_body(req->route))
        return MHD_YES;

    const char *ct =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    if (!is_json_content_type(ct))
        return respond_code(s, c, req, LR_INVALID_REQUEST, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
                            NULL,
                            "the body is sent as '%s'; send it as application/json (with curl: "
                            "-H 'Content-Type: application/json')",
                            ct);

    /* MHD has already refused a malformed Content-Length with 400. */
    const char *cl =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    unsigned long long announced = cl ? strtoull(cl, NULL, 10) : 0;
    if (announced > s->cfg->max_body)
        return respond_code(s, c, req, LR_LIMIT_EXCEEDED, 0, NULL,
                            "the body has %llu bytes; this server accepts at most %zu "
                            "(--max-body)",
                            announced, s->cfg->max_body);
    if (announced > 0) {
        /* Allocate once; a client that announces and never sends is cut by the
         * connection timeout, and the buffer is bounded by max_body anyway. */
        req->body = malloc(announced);
        req->body_cap = req->body ? announced : 0;
    }
    return MHD_YES;
}

/* Appends one chunk of body. Past max_body (a chunked upload announces no size)
 * the buffer is dropped and the rest discarded as it arrives: the answer is 413
 * whatever follows, and holding it would let a client make us buffer any amount. */
static void request_append(srv_server *s, srv_request *req, const char *data, size_t n)
{
    size_t max = s->cfg->max_body;
    if (req->body_too_large || req->body_no_memory || !srv_route_has_body(req->route))
        return;
    if (n > max - req->body_len) {
        req->body_too_large = 1;
        free(req->body);
        req->body = NULL;
        req->body_len = req->body_cap = 0;
        return;
    }
    if (req->body_len + n > req->body_cap) {
        size_t cap = req->body_cap ? req->body_cap : SRV_BODY_FIRST_CAP;
        if (cap > max)
            cap = max;
        while (cap < req->body_len + n)
            cap = cap > max / 2 ? max : cap * 2;
        char *grown = realloc(req->body, cap);
        if (!grown) {
            req->body_no_memory = 1;
            return;
        }
        req->body = grown;
        req->body_cap = cap;
    }
    memcpy(req->body + req->body_len, data, n);
    req->body_len += n;
}

/* Sends the answer a compute thread stored in req. */
static enum MHD_Result request_answer(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    srv_json out = req->answer;
    req->answer.text = NULL; /* MHD's now, or freed by srv_respond_json */
    if (!out.text)
        return srv_respond_error(s, c, req, &req->answer_err, 0, NULL);
    return srv_respond_json(s, c, req, MHD_HTTP_OK, out, NULL);
}

/* Queues req on the compute pool (suspending c), or answers 503 when it cannot. */
static enum MHD_Result request_submit(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    switch (srv_pool_submit(s, req, c)) {
    case SRV_SUBMIT_OK:
        return MHD_YES; /* MHD calls on_request again once the job resumed c */
    case SRV_SUBMIT_FULL:
        return respond_code(s, c, req, LR_UNAVAILABLE, 0, NULL,
                            "the server is busy: its queue of requests waiting for a "
                            "computing thread is full; retry in a moment");
    case SRV_SUBMIT_STOPPING:
    default:
        return respond_code(s, c, req, LR_UNAVAILABLE, 0, NULL,
                            "the server is shutting down; send the request again once it "
                            "is back");
    }
}

/* The whole request is in: run a cheap route and queue the answer, or hand a
 * computing one to the pool. */
static enum MHD_Result request_finish(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    if (req->body_too_large)
        return respond_code(s, c, req, LR_LIMIT_EXCEEDED, 0, NULL,
                            "the body is larger than %zu bytes, the most this server "
                            "accepts (--max-body)",
                            s->cfg->max_body);
    if (req->body_no_memory)
        return respond_code(s, c, req, LR_NO_MEMORY, 0, NULL,
                            "out of memory while receiving the body");
    if (srv_route_computes(req->route))
        return request_submit(s, c, req);
    lr_error err;
    lr_error_clear(&err);
    srv_json out = srv_route_run(s, req, &err);
    free(req->body); /* not needed while the answer is sent */
    req->body = NULL;
    if (!out.text)
        return srv_respond_error(s, c, req, &err, 0, NULL);
    return srv_respond_json(s, c, req, MHD_HTTP_OK, out, NULL);
}

/* MHD calls this first when the headers are in, then once per chunk of body with
 * *upload_data_size > 0, then with 0 until an answer is queued: once for most
 * requests, and once more for a job, after the compute pool resumed the connection
 * (a suspended connection is not called). */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    srv_server *s = cls;
    srv_request *req = *con_cls;
    if (!req) {
        req = request_new(method, url);
        if (!req)
            return MHD_NO; /* MHD closes the connection */
        *con_cls = req;
        atomic_fetch_add(&s->inflight, 1);
        return request_begin(s, c, req);
    }
    if (*upload_data_size > 0) {
        if (!req->status)
            request_append(s, req, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (req->status)
        return MHD_YES; /* answered from the headers already */
    if (req->submitted) {
        if (!srv_pool_answered(s, req))
            return MHD_YES; /* not reached: a connection is suspended until then */
        return request_answer(s, c, req);
    }
    return request_finish(s, c, req);
}

static const char *termination_reason(enum MHD_RequestTerminationCode toe)
{
    switch (toe) {
    case MHD_REQUEST_TERMINATED_COMPLETED_OK:
        return "completed";
    case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED:
        return "timed out";
    case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN:
        return "server shutdown";
    case MHD_REQUEST_TERMINATED_CLIENT_ABORT:
        return "client closed";
    case MHD_REQUEST_TERMINATED_READ_ERROR:
        return "read error";
    default:
        return "error";
    }
}

/* The access log line, METHOD PATH STATUS BYTES DURATION: one per request, written
 * when MHD is done with it so that the duration includes sending. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    srv_server *s = cls;
    srv_request *req = *con_cls;
    if (!req)
        return;
    if (!s->cfg->quiet) {
        if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
            srv_log("%s %s %u %zu %.1fms", req->method, req->url, req->status, req->bytes,
                    ms_since(&req->start));
        else
            srv_log("%s %s %u %zu %.1fms (%s)", req->method, req->url, req->status,
                    req->status ? req->bytes : 0, ms_since(&req->start),
                    termination_reason(toe));
    }
    *con_cls = NULL;
    atomic_fetch_sub(&s->inflight, 1);
    srv_pool_release(s, req); /* frees req, now or when its job is done */
}

void srv_request_free(srv_request *req)
{
    if (!req)
        return;
    if (req->answer.text)
        req->answer.free_fn(req->answer.text);
    free(req->body);
    free(req);
}

/* ---- the daemon ------------------------------------------------------------- */

static int hex_value(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Decodes %XX in a URL in place, but only into printable ASCII: any other byte stays
 * written as %XX. Paths and device names are ASCII; decoding %00 would cut
 * "K20m%00junk" down to "K20m", and %ff would put a byte into the answer that is not
 * UTF-8 (so the answer would not be JSON). Raw bytes outside printable ASCII become
 * '?' (the URL can only shrink in place). */
static size_t unescape(void *cls, struct MHD_Connection *c, char *u)
{
    char *w = u;
    for (const char *r = u; *r;) {
        int hi = r[0] == '%' ? hex_value(r[1]) : -1, lo = hi >= 0 ? hex_value(r[2]) : -1;
        int v = hi * 16 + lo;
        if (hi >= 0 && lo >= 0 && v > 0x20 && v < 0x7f) {
            *w++ = (char)v;
            r += 3;
        } else {
            unsigned char b = (unsigned char)*r++;
            *w++ = b > 0x20 && b < 0x7f ? (char)b : '?'; /* a raw non-ASCII byte */
        }
    }
    *w = '\0';
    return (size_t)(w - u);
}

int srv_http_start(srv_server *s, lr_error *err)
{
    const srv_config *cfg = s->cfg;
    if (srv_workers_init(s, err))
        return -1;
    if (srv_pool_start(s, err)) {
        srv_workers_fini(s);
        return -1;
    }
    /* MHD_USE_AUTO picks epoll on Linux (no FD_SETSIZE ceiling); MHD_USE_ITC is what
     * MHD_quiesce_daemon needs to wake the I/O threads, and what lets a compute
     * thread's MHD_resume_connection wake them (MHD_ALLOW_SUSPEND_RESUME implies it). */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (cfg->addr.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    struct MHD_OptionItem pool[] = {
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)SRV_IO_THREADS, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    /* One option and its arguments per line. */
    /* clang-format off */
    s->mhd = MHD_start_daemon(
        flags, 0 /* the port comes from MHD_OPTION_SOCK_ADDR */, NULL, NULL, on_request, s,
        /* first, so that MHD's own start-up messages reach our log too */
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&cfg->addr,
        MHD_OPTION_ARRAY, pool,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, SRV_CONNECTION_MEMORY,
        MHD_OPTION_CONNECTION_LIMIT, SRV_MAX_CONNECTIONS,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, s,
        MHD_OPTION_END);
    /* clang-format on */
    if (!s->mhd) {
        srv_pool_stop(s);
        srv_pool_fini(s);
        srv_workers_fini(s);
        return lr_error_set(err, LR_UNAVAILABLE, NULL,
                            "the HTTP daemon did not start (libmicrohttpd says why above)");
    }
    return 0;
}

unsigned srv_http_port(const srv_server *s)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* Waits until no request is in flight, SRV_DRAIN_MAX_S passed, or a signal of
 * *hurry arrived (a second Ctrl-C means "now"). Polls: shutdown happens once, and a
 * 10 ms tick keeps the code free of a condition variable in every request path. */
static void drain(srv_server *s, const sigset_t *hurry)
{
    const struct timespec tick = {0, 10 * 1000 * 1000};
    unsigned n = atomic_load(&s->inflight);
    if (n)
        srv_log("launchrank: waiting for %u request(s) in flight", n);
    for (long waited_ms = 0; atomic_load(&s->inflight) > 0; waited_ms += 10) {
        if (waited_ms >= SRV_DRAIN_MAX_S * 1000L) {
            srv_log("launchrank: %u request(s) still in flight after %d s, stopping anyway",
                    atomic_load(&s->inflight), SRV_DRAIN_MAX_S);
            return;
        }
        if (hurry) {
            if (sigtimedwait(hurry, NULL, &tick) > 0) {
                srv_log("launchrank: second signal, stopping without waiting");
                return;
            }
        } else {
            nanosleep(&tick, NULL);
        }
    }
}

void srv_http_stop(srv_server *s, const sigset_t *hurry)
{
    if (s->mhd) {
        atomic_store(&s->stopping, 1);
        /* New connections wait in the backlog and are refused when the socket closes;
         * connections already open are served until their requests are done, the
         * compute threads working through the queue meanwhile. */
        MHD_socket listen_fd = MHD_quiesce_daemon(s->mhd);
        drain(s, hurry);
        /* Before MHD stops: stopping it with a suspended connection breaks its API.
         * Jobs still queued after the drain are answered 503, running ones finish;
         * every compute thread frees its worker as it exits. */
        srv_pool_stop(s);
        MHD_stop_daemon(s->mhd);
        if (listen_fd != MHD_INVALID_SOCKET)
            close(listen_fd); /* only now: MHD's threads may use it until they stop */
        s->mhd = NULL;
    }
    /* Only now: MHD's threads take the pool's mutex until they are joined. */
    srv_pool_fini(s);
    srv_workers_fini(s);
}
