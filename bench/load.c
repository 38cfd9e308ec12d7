/*
 * load.c: a small HTTP/1.1 load generator for the launchrank daemon (bench/).
 *
 * N keep-alive connections to 127.0.0.1:PORT, each with one request in flight at a
 * time (no pipelining), driven by epoll from T client threads. Every request POSTs the
 * same JSON body, or with --vary-domain a body whose "domain" differs per request, so
 * that each one misses the prediction cache. Runs for a fixed time (after an optional
 * warm-up whose requests are not counted) or a fixed number of requests, records the
 * latency of every request from its first byte sent to its last byte received, and
 * prints one line:
 *
 *   requests=… errors=… cached=…% reconnects=… seconds=… rps=… p50_ms=… p90_ms=…
 *   p99_ms=… max_ms=… unanswered=… oldest_ms=…
 *
 * "cached" is the share of answers saying "cached":true; "unanswered" counts the
 * requests still waiting for their answer when the time was up (with the age of the
 * oldest), which the percentiles cannot show. Only loopback is ever
 * contacted: this is a tool for benchmarking a local daemon, not a load tester for
 * other people's servers.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#define LOAD_MAX_CONNECTIONS 4096
#define LOAD_MAX_THREADS 64
#define LOAD_RECV_CHUNK 65536

/* ---- options and shared state ------------------------------------------------------ */

typedef struct load_opts {
    unsigned port;
    const char *path; /* the endpoint: /v1/estimate */
    const char *body_file;
    int connections;
    int threads;
    double duration_s; /* measured time; 0 with --requests */
    double warmup_s;   /* before it, answers are not counted */
    long requests;     /* total requests with --requests; 0 with --duration */
    int vary_domain;   /* rewrite "domain" per request */
    long vary_start;   /* first value of the per-request counter */
} load_opts;

/* The body split around its "domain" array, for --vary-domain. */
typedef struct body_template {
    char *text; /* the whole body as read */
    size_t len;
    size_t dom_start, dom_end; /* text[dom_start..dom_end) is "[a, b, c]" */
    long base[3];
    int ndims;
} body_template;

static load_opts opts;
static body_template body;
static double t_start, t_measure, t_end; /* CLOCK_MONOTONIC seconds */
static atomic_long issued;               /* requests started (--requests mode) */
static atomic_long completed;            /* requests answered (--requests mode) */
static atomic_long vary_counter;
static atomic_int stop;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        perror("malloc");
        exit(1);
    }
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        perror("realloc");
        exit(1);
    }
    return q;
}

/* ---- the request body ------------------------------------------------------------- */

static int load_body(const char *file, body_template *b)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        fprintf(stderr, "load: cannot open %s: %s\n", file, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n;
    b->text = xmalloc(cap);
    b->len = 0;
    while ((n = fread(b->text + b->len, 1, cap - b->len - 1, f)) > 0) {
        b->len += n;
        if (cap - b->len < 1024)
            b->text = xrealloc(b->text, cap *= 2);
    }
    fclose(f);
    b->text[b->len] = '\0';
    return 0;
}

/* Finds "domain": [a, b, c] (1 to 3 integers). 0, or -1 when there is none. */
static int find_domain(body_template *b)
{
    const char *key = strstr(b->text, "\"domain\"");
    const char *p = key ? strchr(key + 8, '[') : NULL;
    if (!p)
        return -1;
    b->dom_start = (size_t)(p - b->text);
    p++;
    b->ndims = 0;
    while (b->ndims < 3) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return -1;
        b->base[b->ndims++] = v;
        p = end;
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
            p++;
        if (*p == ']')
            break;
        if (*p != ',')
            return -1;
        p++;
    }
    if (*p != ']')
        return -1;
    b->dom_end = (size_t)(p + 1 - b->text);
    return 0;
}

/* The i-th varied domain: a 64 x 64 x ... neighbourhood of the original one, walked
 * in order, so that domains stay close to the request's (and its cost) while no two
 * requests of a run are alike. Writes "[a,b,c]" into out. */
static int varied_domain(const body_template *b, long i, char *out, size_t size)
{
    long off[3] = {i % 64, (i / 64) % 64, i / 4096};
    if (b->ndims == 1)
        off[0] = i;
    else if (b->ndims == 2)
        off[1] = i / 64;
    int n = snprintf(out, size, "[");
    for (int d = 0; d < b->ndims; d++)
        n += snprintf(out + n, size - (size_t)n, "%s%ld", d ? "," : "", b->base[d] + off[d]);
    n += snprintf(out + n, size - (size_t)n, "]");
    return n;
}

/* The whole HTTP request into *out (grown as needed); returns its length. */
static size_t build_request(char **out, size_t *cap, long i)
{
    char dom[96];
    size_t dlen = 0, blen = body.len;
    if (opts.vary_domain) {
        dlen = (size_t)varied_domain(&body, i, dom, sizeof dom);
        blen = body.len - (body.dom_end - body.dom_start) + dlen;
    }
    size_t need = blen + 256 + strlen(opts.path);
    if (*cap < need)
        *out = xrealloc(*out, *cap = need);
    int n = snprintf(*out, *cap,
                     "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n",
                     opts.path, opts.port, blen);
    size_t len = (size_t)n;
    if (opts.vary_domain) {
        memcpy(*out + len, body.text, body.dom_start);
        len += body.dom_start;
        memcpy(*out + len, dom, dlen);
        len += dlen;
        memcpy(*out + len, body.text + body.dom_end, body.len - body.dom_end);
        len += body.len - body.dom_end;
    } else {
        memcpy(*out + len, body.text, body.len);
        len += body.len;
    }
    return len;
}

/* ---- connections ------------------------------------------------------------------ */

typedef struct conn {
    int fd;
    char *req; /* the request in flight */
    size_t req_cap, req_len, sent;
    char *in; /* what arrived of its answer */
    size_t in_len, in_cap;
    double t0;     /* when its first byte was sent */
    int in_flight; /* a request was started and not yet answered */
} conn;

typedef struct worker {
    int first, count; /* its connections: conns[first .. first+count) */
    conn *conns;
    int ep;
    double *lat_ms; /* latencies of the counted requests */
    size_t nlat, lat_cap;
    long errors, hits, reconnects;
    long unanswered;  /* requests still in flight when the run ended */
    double oldest_ms; /* the age of the oldest of them */
    char first_error[256];
} worker;

static int connect_loopback(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)opts.port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* Whether another request may start now. */
static int may_start(void)
{
    if (atomic_load(&stop))
        return 0;
    if (opts.requests)
        return atomic_fetch_add(&issued, 1) < opts.requests;
    return now_s() < t_end;
}

static void conn_watch(worker *w, conn *c, uint32_t events, int op)
{
    struct epoll_event ev = {.events = events, .data.ptr = c};
    epoll_ctl(w->ep, op, c->fd, &ev);
}

/* Starts the next request on c, or leaves it idle when the run is over. */
static void conn_start(worker *w, conn *c)
{
    c->in_flight = 0;
    if (!may_start())
        return;
    long i = opts.vary_start + atomic_fetch_add(&vary_counter, 1);
    c->req_len = build_request(&c->req, &c->req_cap, i);
    c->sent = 0;
    c->in_len = 0;
    c->in_flight = 1;
    c->t0 = now_s();
    conn_watch(w, c, EPOLLOUT | EPOLLIN, EPOLL_CTL_MOD);
}

/* The connection broke (or the server closed it): reopen it and, if a request was
 * in flight, count an error and send it again. */
static void conn_reopen(worker *w, conn *c, const char *why)
{
    if (c->fd >= 0) {
        epoll_ctl(w->ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    w->reconnects++;
    if (c->in_flight) {
        w->errors++;
        if (!w->first_error[0])
            snprintf(w->first_error, sizeof w->first_error, "%s", why);
    }
    c->fd = connect_loopback();
    if (c->fd < 0) {
        fprintf(stderr, "load: cannot reconnect to 127.0.0.1:%u: %s\n", opts.port,
                strerror(errno));
        atomic_store(&stop, 1);
        return;
    }
    conn_watch(w, c, EPOLLIN, EPOLL_CTL_ADD);
    if (c->in_flight) {
        c->sent = 0;
        c->in_len = 0;
        c->t0 = now_s();
        conn_watch(w, c, EPOLLOUT | EPOLLIN, EPOLL_CTL_MOD);
    } else {
        conn_start(w, c);
    }
}

/* Whether c->in holds a whole answer; fills its status and whether the server will
 * close the connection after it. */
static int answer_complete(conn *c, int *status, int *closing, size_t *body_at)
{
    if (c->in_len < 12)
        return 0;
    c->in[c->in_len] = '\0';
    char *sep = strstr(c->in, "\r\n\r\n");
    if (!sep)
        return 0;
    *sep = '\0';
    const char *cl = strcasestr(c->in, "\r\nContent-Length:");
    size_t want = cl ? (size_t)strtoull(cl + 17, NULL, 10) : 0;
    *closing = strcasestr(c->in, "\r\nConnection: close") != NULL;
    *sep = '\r';
    *body_at = (size_t)(sep + 4 - c->in);
    if (c->in_len < *body_at + want)
        return 0;
    *status = atoi(c->in + 9);
    return 1;
}

static void record(worker *w, conn *c, int status, size_t body_at)
{
    double done = now_s();
    int counted = opts.requests ? 1 : (c->t0 >= t_measure && done <= t_end);
    if (opts.requests)
        atomic_fetch_add(&completed, 1);
    if (!counted)
        return;
    if (status != 200) {
        w->errors++;
        if (!w->first_error[0])
            snprintf(w->first_error, sizeof w->first_error, "status %d: %.200s", status,
                     c->in + body_at);
        return;
    }
    if (strstr(c->in + body_at, "\"cached\":true"))
        w->hits++;
    if (w->nlat == w->lat_cap)
        w->lat_ms = xrealloc(w->lat_ms, (w->lat_cap = w->lat_cap ? 2 * w->lat_cap : 4096) *
                                            sizeof *w->lat_ms);
    w->lat_ms[w->nlat++] = (done - c->t0) * 1e3;
}

static void on_writable(worker *w, conn *c)
{
    while (c->in_flight && c->sent < c->req_len) {
        ssize_t k = send(c->fd, c->req + c->sent, c->req_len - c->sent, MSG_NOSIGNAL);
        if (k > 0) {
            c->sent += (size_t)k;
        } else if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
            return;
        } else {
            conn_reopen(w, c, "send failed");
            return;
        }
    }
    conn_watch(w, c, EPOLLIN, EPOLL_CTL_MOD);
}

static void on_readable(worker *w, conn *c)
{
    for (;;) {
        if (c->in_cap - c->in_len < LOAD_RECV_CHUNK + 1)
            c->in = xrealloc(c->in, c->in_cap = c->in_len + 2 * LOAD_RECV_CHUNK + 1);
        ssize_t k = recv(c->fd, c->in + c->in_len, LOAD_RECV_CHUNK, 0);
        if (k > 0) {
            c->in_len += (size_t)k;
            continue;
        }
        if (k < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        conn_reopen(w, c, k == 0 ? "the server closed the connection" : strerror(errno));
        return;
    }
    int status, closing;
    size_t body_at;
    if (!c->in_flight || !answer_complete(c, &status, &closing, &body_at))
        return;
    record(w, c, status, body_at);
    c->in_flight = 0;
    if (closing)
        conn_reopen(w, c, "");
    else
        conn_start(w, c);
}

static int run_over(void)
{
    if (atomic_load(&stop))
        return 1;
    if (opts.requests)
        return atomic_load(&completed) >= opts.requests;
    return now_s() >= t_end;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < w->count; i++) {
        conn *c = &w->conns[w->first + i];
        conn_watch(w, c, EPOLLIN, EPOLL_CTL_ADD);
        conn_start(w, c);
    }
    struct epoll_event ev[64];
    while (!run_over()) {
        int n = epoll_wait(w->ep, ev, 64, 20);
        for (int i = 0; i < n; i++) {
            conn *c = ev[i].data.ptr;
            if (ev[i].events & EPOLLOUT)
                on_writable(w, c);
            if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                on_readable(w, c);
        }
        /* Idle (all requests issued) and nothing in flight: this worker is done. */
        int busy = 0;
        for (int i = 0; i < w->count && !busy; i++)
            busy = w->conns[w->first + i].in_flight;
        if (!busy && !opts.requests && now_s() >= t_end)
            break;
        if (!busy && opts.requests && atomic_load(&issued) >= opts.requests)
            break;
    }
    /* Requests the server never answered in time are not in the percentiles: count them,
     * or a stalled connection would look like a fast one. */
    double end = now_s();
    for (int i = 0; i < w->count; i++) {
        conn *c = &w->conns[w->first + i];
        if (c->in_flight) {
            w->unanswered++;
            if ((end - c->t0) * 1e3 > w->oldest_ms)
                w->oldest_ms = (end - c->t0) * 1e3;
        }
    }
    return NULL;
}

/* ---- results ------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n). */
static double percentile(const double *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return v[rank - 1];
}

/* ---- options ------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: load --port PORT --body FILE [--path /v1/estimate] [--connections N]\n"
               "            [--threads T] (--duration S [--warmup S] | --requests M)\n"
               "            [--vary-domain [--vary-start K]]\n"
               "\n"
               "POSTs FILE to http://127.0.0.1:PORT/PATH over N keep-alive connections (one\n"
               "request in flight on each) for S seconds or M requests, and prints requests/s\n"
               "and latency percentiles. --vary-domain changes the body's \"domain\" on every\n"
               "request (a walk through a 64x64x... neighbourhood of it, starting at step K)\n"
               "so that each request misses the daemon's prediction cache.\n");
}

static int parse_opts(int argc, char **argv)
{
    opts.path = "/v1/estimate";
    opts.connections = 1;
    opts.threads = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--port") && v)
            opts.port = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--path") && v)
            opts.path = v;
        else if (!strcmp(a, "--body") && v)
            opts.body_file = v;
        else if (!strcmp(a, "--connections") && v)
            opts.connections = atoi(v);
        else if (!strcmp(a, "--threads") && v)
            opts.threads = atoi(v);
        else if (!strcmp(a, "--duration") && v)
            opts.duration_s = atof(v);
        else if (!strcmp(a, "--warmup") && v)
            opts.warmup_s = atof(v);
        else if (!strcmp(a, "--requests") && v)
            opts.requests = atol(v);
        else if (!strcmp(a, "--vary-start") && v)
            opts.vary_start = atol(v);
        else if (!strcmp(a, "--vary-domain"))
            opts.vary_domain = 1, takes = 0;
        else if (!strcmp(a, "--help"))
            return usage(stdout), 1;
        else {
            fprintf(stderr, "load: unknown option or missing value: %s\n", a);
            return -1;
        }
        i += takes;
    }
    if (!opts.port || opts.port > 65535 || !opts.body_file || opts.connections < 1 ||
        opts.connections > LOAD_MAX_CONNECTIONS || opts.threads < 1 ||
        opts.threads > LOAD_MAX_THREADS || (opts.duration_s <= 0) == (opts.requests <= 0)) {
        usage(stderr);
        return -1;
    }
    if (opts.threads > opts.connections)
        opts.threads = opts.connections;
    return 0;
}

int main(int argc, char **argv)
{
    int rc = parse_opts(argc, argv);
    if (rc)
        return rc < 0 ? 2 : 0;
    if (load_body(opts.body_file, &body))
        return 2;
    if (opts.vary_domain && find_domain(&body)) {
        fprintf(stderr, "load: --vary-domain: no \"domain\": [n, ...] in %s\n", opts.body_file);
        return 2;
    }
    conn *conns = calloc((size_t)opts.connections, sizeof *conns);
    worker *workers = calloc((size_t)opts.threads, sizeof *workers);
    pthread_t *th = calloc((size_t)opts.threads, sizeof *th);
    if (!conns || !workers || !th)
        return 1;
    for (int i = 0; i < opts.connections; i++) {
        conns[i].fd = connect_loopback();
        if (conns[i].fd < 0) {
            fprintf(stderr, "load: cannot connect to 127.0.0.1:%u: %s\n", opts.port,
                    strerror(errno));
            return 1;
        }
    }
    t_start = now_s();
    t_measure = t_start + opts.warmup_s;
    t_end = t_measure + opts.duration_s;
    for (int t = 0, first = 0; t < opts.threads; t++) {
        worker *w = &workers[t];
        w->conns = conns;
        w->first = first;
        w->count = opts.connections / opts.threads + (t < opts.connections % opts.threads);
        first += w->count;
        w->ep = epoll_create1(0);
        pthread_create(&th[t], NULL, worker_main, w);
    }
    long errors = 0, hits = 0, reconnects = 0, unanswered = 0;
    double oldest_ms = 0;
    size_t n = 0;
    for (int t = 0; t < opts.threads; t++) {
        pthread_join(th[t], NULL);
        n += workers[t].nlat;
        errors += workers[t].errors;
        hits += workers[t].hits;
        reconnects += workers[t].reconnects;
        unanswered += workers[t].unanswered;
        if (workers[t].oldest_ms > oldest_ms)
            oldest_ms = workers[t].oldest_ms;
    }
    double seconds = opts.requests ? now_s() - t_start : opts.duration_s;
    double *all = xmalloc(n * sizeof *all);
    size_t k = 0;
    for (int t = 0; t < opts.threads; t++) {
        memcpy(all + k, workers[t].lat_ms, workers[t].nlat * sizeof *all);
        k += workers[t].nlat;
        if (workers[t].first_error[0])
            fprintf(stderr, "load: first error: %s\n", workers[t].first_error);
    }
    qsort(all, n, sizeof *all, cmp_double);
    printf("requests=%zu errors=%ld cached=%.1f%% reconnects=%ld seconds=%.2f rps=%.1f "
           "p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f unanswered=%ld oldest_ms=%.0f\n",
           n, errors, n ? 100.0 * (double)hits / (double)n : 0.0, reconnects, seconds,
           (double)n / seconds, percentile(all, n, 50), percentile(all, n, 90),
           percentile(all, n, 99), n ? all[n - 1] : 0.0, unanswered, oldest_ms);
    for (int i = 0; i < opts.connections; i++) {
        if (conns[i].fd >= 0)
            close(conns[i].fd);
        free(conns[i].req);
        free(conns[i].in);
    }
    for (int t = 0; t < opts.threads; t++) {
        close(workers[t].ep);
        free(workers[t].lat_ms);
    }
    free(all);
    free(conns);
    free(workers);
    free(th);
    free(body.text);
    return errors ? 1 : 0;
}
