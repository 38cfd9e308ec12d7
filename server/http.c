/*
 * http.c: the libmicrohttpd plumbing. Starts and stops the daemon, keeps one
 * srv_request per request (request.c: the body accumulated under --max-body), answers what can
 * be answered from the headers alone (headers.c's checks: 400 for an ambiguous or
 * undecodable body framing, 403 for a foreign Host or web origin, 415; here 404, 405 and
 * 413 by Content-Length) before any body is read, and once the body is complete
 * answers the cheap routes at once and hands estimate and rank to the compute pool
 * (pool.c), sending their answer when the pool resumes the connection. It writes
 * the access log line when MHD reports the request done.
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

#include <arpa/inet.h>

#include "lr_sha256.h"
#include "lr_utf8.h"
#include "srv_int.h"

/* Memory MHD may use per connection for the request line, headers and its read
 * buffer (bodies are ours, bounded by --max-body). Requests carry a few short
 * headers; 64 KiB leaves room for proxies' additions and rejects header floods. */
#define SRV_CONNECTION_MEMORY ((size_t)64 * 1024)

/* libmicrohttpd's threads. They only parse, route, answer the cheap endpoints and
 * send (microseconds per request); the model runs on the compute pool. Two keep
 * connections served while one thread is busy sending a large answer. */
#define SRV_IO_THREADS 2u

/* Seconds shutdown waits for requests in flight to be answered, the compute threads
 * working through the queue meanwhile. A ranking takes seconds; this also covers
 * sending to a slow reader. After it we stop anyway: jobs still queued are answered
 * 503, running ones are cancelled (they answer 503 within moments), and answers not
 * sent by the time libmicrohttpd stops are dropped. */
#define SRV_DRAIN_MAX_S 30

/* libmicrohttpd's messages about one client's connection (it hung up early, was
 * refused by a connection limit, sent a malformed request), as opposed to the
 * daemon's own state. Under --quiet they are dropped like the access log: any
 * client could otherwise write a log line per connection it opens. MHD gives its
 * messages no severity, so they are known by their text (libmicrohttpd 0.9.7x); an
 * unknown message is logged. */
static const char *const per_connection_messages[] = {
    "closed by remote side",
    "Socket has been disconnected",
    "Connection socket is closed",
    "forcibly closed by remote peer",
    "socket is no longer available",
    "socket is not connected",
    "reached connection limit",
    "Error processing request",
    "value of 'Content-Length'",
    "parse `Content-Length'",
    "Failed to receive",
    "Failed to send",
};

static int is_per_connection(const char *msg)
{
    size_t n = sizeof per_connection_messages / sizeof per_connection_messages[0];
    for (size_t i = 0; i < n; i++)
        if (strstr(msg, per_connection_messages[i]))
            return 1;
    return 0;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    const srv_server *s = cls;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (s->cfg->quiet && is_per_connection(msg))
        return;
    srv_log("launchrank: libmicrohttpd: %s", msg);
}

static double ms_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) * 1e3 + (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
}

/* ---- requests --------------------------------------------------------------- */

/* The largest body req's route accepts: an array's bytes up to --max-array-mb, any
 * other body up to --max-body. */
static size_t body_limit(const srv_server *s, const srv_request *req)
{
    return req->route == SRV_ROUTE_ARRAY_PUT ? s->cfg->max_array : s->cfg->max_body;
}

/* 413 for a body of size bytes (0: not announced, found while it arrived). */
static enum MHD_Result body_too_large(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                      unsigned long long size)
{
    int array = req->route == SRV_ROUTE_ARRAY_PUT;
    const char *option = array ? "--max-array-mb" : "--max-body";
    if (size)
        return srv_respond_code(s, c, req, LR_LIMIT_EXCEEDED, 0, NULL,
                                "the body has %llu bytes; this server accepts at most %zu%s "
                                "(%s)",
                                size, body_limit(s, req), array ? " in one array" : "", option);
    return srv_respond_code(s, c, req, LR_LIMIT_EXCEEDED, 0, NULL,
                            "the body is larger than %zu bytes, the most this server accepts%s "
                            "(%s)",
                            body_limit(s, req), array ? " in one array" : "", option);
}

/* PUT /v1/arrays: the body is hashed as it arrives, and ?format= kept (checked by the
 * api, which names it). */
static void array_begin(struct MHD_Connection *c, srv_request *req)
{
    const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
    if (format)
        lr_ascii_excerpt(format, sizeof req->format - 1, req->format, sizeof req->format);
    req->hashing = 1;
    sha256_init(&req->hash);
}

/* The hex digest of the body hashed as it arrived. */
static void array_digest(srv_request *req)
{
    lr_sha256_finish(&req->hash, req->body_sha256);
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
    enum MHD_Result r = srv_check_framing(s, c, req);
    if (r == MHD_YES && !req->status)
        r = srv_check_host(s, c, req);
    if (r == MHD_YES && !req->status)
        r = srv_check_origin(s, c, req);
    if (r != MHD_YES || req->status)
        return r; /* answered (or the answer failed: MHD closes the connection) */
    if (req->route < 0 && status == MHD_HTTP_METHOD_NOT_ALLOWED && srv_is_preflight(c, req))
        return srv_respond_preflight(s, c, req, allow);
    if (req->route < 0 && status == MHD_HTTP_METHOD_NOT_ALLOWED)
        return srv_respond_code(s, c, req, LR_METHOD_NOT_ALLOWED, 0, allow,
                            "%s does not accept %s; it accepts %s", req->url, req->method,
                            allow);
    if (req->route < 0)
        return srv_respond_code(s, c, req, LR_NOT_FOUND, 0, NULL,
                            "no endpoint at %s; the endpoints are POST /v1/estimate, POST "
                            "/v1/rank, POST /v1/levels, GET /v1/devices, GET /v1/devices/{name}, PUT and GET "
                            "/v1/arrays/{sha256}, GET /healthz, GET /v1/stats, GET /metrics "
                            "and GET / (the web calculator)",
                            req->url);
    if (!srv_route_has_body(req->route))
        return MHD_YES;
    r = srv_check_content_type(s, c, req);
    if (r != MHD_YES || req->status)
        return r;

    /* MHD has already refused a malformed Content-Length with 400. */
    const char *cl =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    unsigned long long announced = cl ? strtoull(cl, NULL, 10) : 0;
    if (announced > body_limit(s, req))
        return body_too_large(s, c, req, announced);
    if (req->route == SRV_ROUTE_ARRAY_PUT)
        array_begin(c, req);
    if (announced > 0) {
        /* Allocate once; a client that announces and never sends is cut by the
         * connection timeout, and the buffer is bounded by max_body anyway. */
        req->body = malloc(announced);
        req->body_cap = req->body ? announced : 0;
    }
    return MHD_YES;
}

/* Sends the answer a compute thread stored in req. */
static enum MHD_Result request_answer(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    if (req->stream && req->answer.text)
        return srv_pool_stream(s, c, req); /* as the last line of progress */
    srv_json out = req->answer;
    req->answer.text = NULL; /* MHD's now, or freed by srv_respond_json */
    /* A job whose client hung up was cancelled: its answer goes to nobody. */
    if (!out.text && atomic_load(&req->gone))
        return srv_respond_cancelled(s, c, req, &req->answer_err);
    if (!out.text)
        return srv_respond_error(s, c, req, &req->answer_err, 0, NULL);
    return srv_respond_json(s, c, req, out.status ? out.status : MHD_HTTP_OK, out, NULL);
}

/* Queues req on the compute pool (suspending c), or answers 503 when it cannot. */
static enum MHD_Result request_submit(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    req->stream = req->route == SRV_ROUTE_RANK && srv_pool_stream_wanted(c);
    req->quick = req->route == SRV_ROUTE_ESTIMATE;
    switch (srv_pool_submit(s, req, c)) {
    case SRV_SUBMIT_OK:
        return MHD_YES; /* MHD calls on_request again once the job resumed c */
    case SRV_SUBMIT_FULL:
        return srv_respond_code(s, c, req, LR_UNAVAILABLE, 0, NULL,
                            "the server is busy: its queue of requests waiting for a "
                            "computing thread is full; retry in a moment");
    case SRV_SUBMIT_STOPPING:
    default:
        return srv_respond_code(s, c, req, LR_UNAVAILABLE, 0, NULL,
                            "the server is shutting down; send the request again once it "
                            "is back");
    }
}

/* The whole request is in: run a cheap route and queue the answer, or hand a
 * computing one to the pool. */
static enum MHD_Result request_finish(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    if (req->body_too_large)
        return body_too_large(s, c, req, 0);
    if (req->body_no_memory)
        return srv_respond_code(s, c, req, LR_NO_MEMORY, 0, NULL,
                            "out of memory while receiving the body");
    if (req->hashing)
        array_digest(req);
    lr_error err;
    lr_error_clear(&err);
    srv_json out = {NULL, NULL, NULL, 0, 0};
    /* A cached estimate (or an invalid one) is answered here, in microseconds: queued,
     * it would wait for a compute thread behind rankings. */
    int answered = req->route == SRV_ROUTE_ESTIMATE && srv_estimate_cached(s, req, &out, &err);
    if (!answered && srv_route_computes(req->route))
        return request_submit(s, c, req);
    if (!answered)
        out = srv_route_run(s, req, &err);
    free(req->body); /* not needed while the answer is sent */
    req->body = NULL;
    if (!out.text)
        return srv_respond_error(s, c, req, &err, 0, NULL);
    return srv_respond_json(s, c, req, out.status ? out.status : MHD_HTTP_OK, out, NULL);
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
        req = srv_request_new(c, method, url, version);
        if (!req)
            return MHD_NO; /* MHD closes the connection */
        *con_cls = req;
        atomic_fetch_add(&s->inflight, 1);
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        req->conn_state = info ? info->socket_context : NULL;
        enum MHD_Result r = request_begin(s, c, req);
        if (req->status)
            srv_conn_received(s, req->conn_state); /* the rest of it does not matter */
        else
            srv_conn_head_received(s, req->conn_state); /* the body deadline runs */
        return r;
    }
    if (*upload_data_size > 0) {
        if (!req->status && srv_route_has_body(req->route))
            srv_request_append(req, body_limit(s, req), upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    srv_conn_received(s, req->conn_state);
    if (req->status)
        return MHD_YES; /* answered from the headers already */
    if (req->submitted) {
        if (!srv_pool_answered(s, req))
            return srv_pool_stream(s, c, req); /* resumed for its first progress line */
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

/* The access log line (log.c) and the request's /metrics counts: one per request,
 * when MHD is done with it so that the duration includes sending. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    srv_server *s = cls;
    srv_request *req = *con_cls;
    if (!req)
        return;
    double ms = ms_since(&req->start);
    /* A job its client cancelled is a 499 however the request ends. Resuming it, MHD
     * may find the closed socket and end the request before the access handler
     * queues the answer srv_respond_cancelled counts as 499: the same hang-up was then
     * a 0 or a 499 by timing. Only one with no status yet: a streamed answer's 200
     * went out with its first progress line. */
    if (req->status == 0 && srv_pool_cancelled(s, req))
        req->status = SRV_STATUS_CLIENT_CLOSED;
    srv_stats_count_response(&s->stats, req->route, req->status, ms / 1e3);
    /* A cancelled job's body may have reached the closed socket's buffer: MHD then
     * reports it sent, but the reason is known. */
    if (!s->cfg->quiet) {
        const char *cut = srv_cut_reason_text(srv_conn_cut_reason(s, req->conn_state));
        srv_log_access(req, ms,
                       req->status == SRV_STATUS_CLIENT_CLOSED      ? "client closed"
                       : toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? NULL
                       : cut                                        ? cut
                                                                    : termination_reason(toe));
    }
    /* A kept-alive connection's next request has the head deadline from now on. */
    srv_conn_next_request(s, req->conn_state);
    *con_cls = NULL;
    atomic_fetch_sub(&s->inflight, 1);
    srv_pool_release(s, req); /* frees req, now or when its job is done */
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

/* Our origins as browsers write them in Origin: http://HOST:PORT, and http://HOST
 * when the port is HTTP's default, for HOST the bound address (127.0.0.1, [::1]),
 * the name given to --listen (localhost), and "localhost" on a loopback address (a
 * page opened as http://localhost:8080 of a daemon on 127.0.0.1:8080). A wildcard
 * address (0.0.0.0) is no page's origin: only --allow-origin lets pages in then. */
static void set_self_origin(srv_server *s, unsigned port)
{
    char hosts[3][sizeof s->cfg->listen.host + 2] = {"", "", ""};
    srv_addr_text(&s->bound, hosts[0], sizeof hosts[0]);
    if (s->cfg->listen.is_name)
        snprintf(hosts[1], sizeof hosts[1], "%s", s->cfg->listen.host);
    const struct sockaddr_storage *a = &s->bound;
    int loopback = a->ss_family == AF_INET6
                       ? IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr)
                       : (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
    if (loopback && strcasecmp(hosts[1], "localhost") != 0)
        snprintf(hosts[2], sizeof hosts[2], "localhost");
    unsigned n = 0;
    for (int i = 0; i < 3; i++) {
        if (!hosts[i][0])
            continue;
        int len = (int)sizeof hosts[0]; /* what fits, as GCC cannot see it */
        snprintf(s->self_origin[n++], sizeof s->self_origin[0], "http://%.*s:%u", len, hosts[i],
                 port);
        if (port == 80)
            snprintf(s->self_origin[n++], sizeof s->self_origin[0], "http://%.*s", len,
                     hosts[i]);
    }
}

int srv_http_start(srv_server *s, lr_error *err)
{
    const srv_config *cfg = s->cfg;
    if (srv_workers_init(s, err))
        return -1;
    if (srv_pool_start(s, srv_route_run, err)) {
        srv_workers_fini(s);
        return -1;
    }
    /* Bound here, not by MHD: we try each address of a name and can say which port
     * is taken when another daemon holds it. */
    s->listen_fd = srv_listen_open(&cfg->listen, &s->bound, err);
    if (s->listen_fd < 0 || srv_conns_start(s, err)) {
        if (s->listen_fd >= 0)
            close(s->listen_fd);
        s->listen_fd = -1;
        srv_pool_stop(s);
        srv_pool_fini(s);
        srv_workers_fini(s);
        return -1;
    }
    /* poll(), not epoll: with a pool of I/O threads, MHD_quiesce_daemon (0.9.75 to at
     * least 1.0) removes the listening socket from each thread's epoll set while that
     * thread may be removing it itself, and aborts (MHD_PANIC) when it finds it gone:
     * a SIGTERM under load ended once in SIGABRT. With poll() quiescing only wakes the
     * threads, which leave the socket out of their next poll. Like epoll, poll has no
     * FD_SETSIZE ceiling; SRV_MAX_CONNECTIONS bounds its set. MHD_USE_ITC is what
     * MHD_quiesce_daemon needs to wake the I/O threads, and what lets a compute
     * thread's MHD_resume_connection wake them (MHD_ALLOW_SUSPEND_RESUME implies it). */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (s->bound.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    struct MHD_OptionItem pool[] = {
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)SRV_IO_THREADS, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    /* One option and its arguments per line. */
    /* clang-format off */
    s->mhd = MHD_start_daemon(
        flags, 0 /* the socket comes from MHD_OPTION_LISTEN_SOCKET */, NULL, NULL, on_request, s,
        /* first, so that MHD's own start-up messages reach our log too */
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)s->listen_fd,
        MHD_OPTION_ARRAY, pool,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, SRV_CONNECTION_MEMORY,
        MHD_OPTION_CONNECTION_LIMIT, SRV_MAX_CONNECTIONS,
        /* no MHD_OPTION_PER_IP_CONNECTION_LIMIT: it refused every connection of an
         * address past the limit, so a client trickling requests locked out the
         * prompt clients of its address (all local ones share 127.0.0.1); conns.c
         * bounds half-received connections instead, shedding the slowest */
        MHD_OPTION_NOTIFY_CONNECTION, srv_conns_notify, s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, s,
        MHD_OPTION_END);
    /* clang-format on */
    if (!s->mhd) {
        close(s->listen_fd);
        s->listen_fd = -1;
        srv_conns_stop(s);
        srv_conns_fini(s);
        srv_pool_stop(s);
        srv_pool_fini(s);
        srv_workers_fini(s);
        return lr_error_set(err, LR_UNAVAILABLE, NULL,
                            "the HTTP daemon did not start (libmicrohttpd says why above)");
    }
    set_self_origin(s, srv_http_port(s));
    atomic_store(&s->origin_ready, 1);
    return 0;
}

unsigned srv_http_port(const srv_server *s)
{
    return s->bound.ss_family == AF_INET6
               ? ntohs(((const struct sockaddr_in6 *)&s->bound)->sin6_port)
               : ntohs(((const struct sockaddr_in *)&s->bound)->sin_port);
}

/* Waits until no request is in flight, SRV_DRAIN_MAX_S passed, or a signal of
 * *hurry arrived (a second Ctrl-C means "now"); in the last two cases the running
 * computations are cancelled (lr_api_cancel). Polls: shutdown happens once, and a
 * 10 ms tick keeps the code free of a condition variable in every request path. */
static void drain(srv_server *s, const sigset_t *hurry)
{
    const struct timespec tick = {0, 10 * 1000 * 1000};
    unsigned n = atomic_load(&s->inflight);
    if (n)
        srv_log("launchrank: waiting for %u request(s) in flight", n);
    for (long waited_ms = 0; atomic_load(&s->inflight) > 0; waited_ms += 10) {
        if (waited_ms >= SRV_DRAIN_MAX_S * 1000L) {
            srv_log("launchrank: %u request(s) still in flight after %d s, cancelling "
                    "them",
                    atomic_load(&s->inflight), SRV_DRAIN_MAX_S);
            lr_api_cancel(s->api);
            return;
        }
        if (hurry) {
            if (sigtimedwait(hurry, NULL, &tick) > 0) {
                /* The estimator's deadline path ends the running computations within
                 * moments (they answer 503); the queued ones are answered 503 next. */
                srv_log("launchrank: second signal, cancelling the requests in flight");
                lr_api_cancel(s->api);
                return;
            }
        } else {
            nanosleep(&tick, NULL);
        }
    }
}

/* Milliseconds shutdown gives libmicrohttpd to send the answers srv_pool_stop just
 * handed back (503s of cancelled and queued jobs, a few hundred bytes each to clients
 * on this host or network): without it MHD_stop_daemon may close their connections
 * first, and a client cannot tell "shutting down" from a crash. A client that does
 * not read holds shutdown no longer than this. */
#define SRV_FLUSH_MAX_MS 1000

/* Waits until every request in flight is answered, at most SRV_FLUSH_MAX_MS. */
static void flush(srv_server *s)
{
    const struct timespec tick = {0, 10 * 1000 * 1000};
    for (long waited_ms = 0; atomic_load(&s->inflight) > 0 && waited_ms < SRV_FLUSH_MAX_MS;
         waited_ms += 10)
        nanosleep(&tick, NULL);
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
         * Jobs still queued after the drain are answered 503, running ones finish
         * (at once when the drain cancelled them); every compute thread frees its
         * worker as it exits. */
        srv_pool_stop(s);
        flush(s);
        srv_conns_stop(s);
        MHD_stop_daemon(s->mhd);
        if (listen_fd != MHD_INVALID_SOCKET)
            close(listen_fd); /* only now: MHD's threads may use it until they stop */
        s->mhd = NULL;
    }
    /* Only now: MHD's threads take the pool's and conns' mutexes until joined. */
    srv_pool_fini(s);
    srv_conns_fini(s);
    srv_workers_fini(s);
}
