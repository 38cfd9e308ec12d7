/*
 * srv_int.h: what the files of server/ share and nobody else sees.
 *
 * One srv_server per running daemon, created by srv_main and passed explicitly to
 * every callback (no globals). It holds the validated configuration (immutable once
 * the daemon runs), the lr_api, the libmicrohttpd daemon, the compute pool, and the
 * counters of /v1/stats, which are C11 atomics because every thread updates them.
 *
 * Two kinds of threads serve requests: libmicrohttpd's few I/O threads (http.c)
 * parse, route, answer the cheap endpoints and send every answer; the compute
 * threads (pool.c, --threads of them) run the model for POST /v1/estimate and
 * POST /v1/rank, each with its own lr_worker (worker.c).
 */
#ifndef SRV_INT_H
#define SRV_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>
#include "lr_sha256.h" /* the body's incremental digest: nettle's sha256_ctx */

#include "api.h"
#include "lr_error.h"

/* ---- configuration (main.c) -------------------------------------------------- */

/* Open connections at most. Each may hold --max-body (1 MiB by default) while its
 * body arrives: 512 bound that to ~0.5 GiB, far above what code generators on one
 * host open at once. */
#define SRV_MAX_CONNECTIONS 512u

/* --allow-origin may be given this often: a few web pages, not a registry of them. */
#define SRV_MAX_ALLOW_ORIGINS 16

/* Addresses --listen keeps of what its host resolves to (localhost: ::1 and
 * 127.0.0.1); the daemon binds the first that works. */
#define SRV_LISTEN_ADDRS 4

/* --listen HOST:PORT, resolved (listen.c). */
typedef struct srv_listen {
    char host[256]; /* as given, without brackets: "localhost", "127.0.0.1", "::1" */
    int is_name;    /* host is a name, not a numeric address */
    unsigned port;  /* 0: the kernel picks a free one */
    struct sockaddr_storage addrs[SRV_LISTEN_ADDRS];
    socklen_t lens[SRV_LISTEN_ADDRS];
    unsigned n_addrs;
} srv_listen;

typedef struct srv_config {
    srv_listen listen;        /* --listen, already resolved */
    const char *db_path;      /* --db; NULL with --no-cache */
    unsigned threads;         /* --threads: compute threads running the model */
    size_t max_body;          /* --max-body: largest request body buffered */
    unsigned timeout_s;       /* --timeout: idle seconds before a connection is closed */
    double time_limit_s;      /* --time-limit: computing seconds per request; 0 = default */
    const char *port_file;    /* --port-file, or NULL */
    int quiet;                /* --quiet: no access log, no per-connection messages */
    unsigned head_deadline_s; /* --head-deadline: seconds to send a request's head */
    unsigned body_deadline_s; /* --body-deadline: seconds to send its body */
    unsigned max_receiving;   /* --max-receiving: half-received connections in all */
    unsigned max_client_receiving; /* --max-client-receiving: ... of one client address */
    long cache_max;                /* --cache-max: predictions kept; 0 = the default */
    long max_request_mb; /* --max-request-mb: a request's estimated memory; -1 = no limit */
    size_t max_array;    /* --max-array-mb in bytes: the largest body of PUT /v1/arrays */
    long long max_arrays_mb; /* --max-arrays-mb: all arrays of the database together */
    /* --allow-origin: web origins besides our own whose pages may call us (strings
     * of argv, "https://host[:port]") */
    const char *allow_origins[SRV_MAX_ALLOW_ORIGINS];
    unsigned n_allow_origins;
} srv_config;

/* ---- the running daemon ------------------------------------------------------- */

typedef struct srv_request srv_request;

/* Jobs that may wait for a compute thread. Each holds a suspended connection and its
 * body (up to --max-body) and waits behind the jobs before it: 256 jobs behind a
 * few threads at 5 ms .. 30 s each is already seconds to minutes of waiting, and a
 * client is better told 503 at once (retry later, or ask another instance) than left
 * waiting longer. It is half of SRV_MAX_CONNECTIONS, so that connections
 * remain for cheap requests such as GET /healthz while the queue is full. */
#define SRV_QUEUE_MAX 256

struct srv_server;
struct srv_json;
/* What a compute thread does with a job: srv_route_run (handlers.c), given to
 * srv_pool_start so that the pool knows nothing of routes. */
typedef struct srv_json (*srv_job_fn)(struct srv_server *s, const srv_request *req,
                                      lr_error *err);

/* A ranking that lends out its configurations (pool.c): while it is on the pool's
 * list, compute threads with no job to take help it (lr_rank_help). Part of the
 * ranking's srv_request; guarded by the pool's mu. */
typedef struct srv_lend {
    lr_rank_run *run;
    unsigned helpers;      /* threads inside lr_rank_help for run */
    int drained;           /* a helper found nothing left to take: help it no more */
    struct srv_lend *next; /* the pool's list of open rankings */
} srv_lend;

/* The compute pool (pool.c): a bounded FIFO of requests whose connections are
 * suspended, and the threads that run them. Everything here is guarded by mu, except
 * run, written before the threads start. */
typedef struct srv_pool {
    srv_job_fn run; /* runs one job's route on a compute thread */
    pthread_mutex_t mu;
    pthread_cond_t work;      /* a job was queued, a ranking opened, or stopping was set */
    pthread_cond_t helped;    /* a helper left a ranking */
    srv_lend *lends;          /* rankings idle threads may help, newest first */
    unsigned idle;            /* compute threads waiting for work */
    unsigned lane_idle;       /* 1 while the estimate lane waits for an estimate */
    srv_request *head, *tail; /* queued jobs, oldest first (linked by job_next) */
    unsigned queued;          /* jobs in the queue, at most SRV_QUEUE_MAX */
    int stopping;             /* srv_pool_stop began: no job is accepted any more */
    pthread_t *threads;       /* the compute threads and the estimate lane (malloc'd) */
    unsigned nthreads;        /* how many of them were started */
    int initialized;          /* mu and work exist */
} srv_pool;

/* HTTP statuses /metrics counts apart (metrics.c lists them; the last slot is any
 * other) and the finite buckets of its latency histogram (upper bounds in
 * metrics.c; one more slot counts the requests beyond the last). */
#define SRV_STATUS_SLOTS 14
#define SRV_LATENCY_BUCKETS 15

/* The status /metrics and the access log give a job whose client closed the
 * connection while the job waited or ran, which cancelled it (pool.c, job_gone):
 * nginx's 499 "client closed request", which operators and log tools know. It is
 * not an HTTP status anybody receives, and it keeps such a job out of the 503s, which
 * say the daemon was overloaded or stopping. */
#define SRV_STATUS_CLIENT_CLOSED 499u

/* The routes, as indices of the routing table (routes.c) and of the handlers
 * (handlers.c); SRV_ROUTE_COUNT is how many there are. */
typedef enum srv_route_id {
    SRV_ROUTE_ESTIMATE,  /* POST /v1/estimate */
    SRV_ROUTE_RANK,      /* POST /v1/rank */
    SRV_ROUTE_LEVELS,    /* POST /v1/levels */
    SRV_ROUTE_DEVICES,   /* GET /v1/devices */
    SRV_ROUTE_DEVICE,    /* GET /v1/devices/{name} */
    SRV_ROUTE_HEALTHZ,   /* GET /healthz */
    SRV_ROUTE_STATS,     /* GET /v1/stats */
    SRV_ROUTE_METRICS,   /* GET /metrics */
    SRV_ROUTE_PAGE,      /* GET / */
    SRV_ROUTE_ASSET,     /* GET /web/{file} */
    SRV_ROUTE_ARRAY_PUT, /* PUT /v1/arrays/{sha256} */
    SRV_ROUTE_ARRAY_GET, /* GET /v1/arrays/{sha256} */
    SRV_ROUTE_COUNT
} srv_route_id;

typedef struct srv_stats {
    atomic_uint_least64_t requests_total;
    atomic_uint_least64_t by_route[SRV_ROUTE_COUNT];
    atomic_uint_least64_t unrouted; /* requests answered 404 or 405 */
    atomic_uint_least64_t errors[LR_CODE_COUNT];
    /* For /metrics, counted when a request completes; index SRV_ROUTE_COUNT is the
     * requests of no route (404, 405). */
    atomic_uint_least64_t responses[SRV_ROUTE_COUNT + 1][SRV_STATUS_SLOTS];
    atomic_uint_least64_t latency[SRV_ROUTE_COUNT + 1][SRV_LATENCY_BUCKETS + 1];
    atomic_uint_least64_t latency_us[SRV_ROUTE_COUNT + 1]; /* sum, microseconds */
    atomic_uint_least64_t route_errors[SRV_ROUTE_COUNT + 1][LR_CODE_COUNT];
} srv_stats;

/* Where a connection's current request is (conns.c). A connection is
 * "half-received" in the first two: its request is not yet whole, so its client is
 * what the daemon waits for. */
typedef enum srv_conn_phase {
    SRV_CONN_HEAD,      /* waiting for the request line and headers (--head-deadline) */
    SRV_CONN_BODY,      /* headers in, the body arriving (--body-deadline) */
    SRV_CONN_ANSWERING, /* the request is whole: computed, answered, or being sent */
} srv_conn_phase;

/* Why conns.c shut a connection down, for the access log and /metrics. */
typedef enum srv_cut_reason {
    SRV_CUT_NONE,
    SRV_CUT_HEAD_DEADLINE, /* its head took longer than --head-deadline */
    SRV_CUT_BODY_DEADLINE, /* its body took longer than --body-deadline */
    SRV_CUT_SHED,          /* shed: half-received connections over their limit */
    SRV_CUT_REASONS
} srv_cut_reason;

/* One client address and what its connections are doing (conns.c): the unit of
 * --max-client-receiving, and of fairness when --max-receiving sheds. Lives while
 * the address has an open connection. Guarded by srv_conns.mu. */
typedef struct srv_peer {
    struct sockaddr_storage addr; /* the address only: the port is zero */
    unsigned conns;               /* its open connections */
    unsigned receiving;           /* ...of which half-received and not cut */
    struct srv_peer *next;
} srv_peer;

/* One open connection as conns.c tracks it for the deadlines and the limits on
 * half-received connections: MHD's socket context, created when MHD accepts the
 * connection and freed when MHD closes it. Guarded by srv_conns.mu. */
typedef struct srv_conn {
    MHD_socket fd;
    srv_conn_phase phase;
    struct timespec begun; /* CLOCK_MONOTONIC: the current request's head began to
                            * arrive (the opening, or the previous answer) */
    struct timespec since; /* ...and the current phase began */
    srv_cut_reason cut;    /* conns.c shut the socket down, and why */
    srv_peer *peer;
    struct srv_conn *prev, *next;
} srv_conn;

/* The open connections, their client addresses, and the thread that enforces the
 * deadlines on them (conns.c). MHD's idle timeout restarts with every byte, so a
 * client trickling a byte a second would hold a connection for ever; and while the
 * headers arrive MHD calls none of our code, so a thread of ours has to watch the
 * clock. The limits on half-received connections are enforced where MHD reports a
 * new connection. */
typedef struct srv_conns {
    pthread_mutex_t mu;
    pthread_cond_t wake; /* stopping was set */
    srv_conn *head;      /* open connections (linked by next) */
    srv_peer *peers;     /* the addresses of open connections */
    unsigned receiving;  /* half-received connections not cut, all addresses */
    atomic_uint_least64_t cuts[SRV_CUT_REASONS]; /* connections cut, by reason */
    pthread_t thread;
    int started;     /* thread runs */
    int stopping;    /* the thread is asked to end */
    int initialized; /* mu and wake exist */
} srv_conns;

/* What the log last said of the cache's health (log.c, srv_cache_log_*): a line when
 * it starts failing, one when it works again, a summary at most every
 * SRV_CACHE_SUMMARY_S while it fails, however many requests run into it. */
typedef struct srv_cache_log {
    pthread_mutex_t mu;     /* guards the rest: any thread may look */
    int failing;            /* the last line said the cache fails */
    uint64_t failures;      /* the api's failure count at the last look */
    uint64_t said_failures; /* ... at the last line, from which a summary counts */
    double failed_at;       /* when (monotonic seconds) failures last grew */
    double said_at;         /* when the last line was written */
} srv_cache_log;

/* Origins of the daemon itself: 3 host forms x with and without port 80. */
#define SRV_SELF_ORIGINS 6

typedef struct srv_server {
    const srv_config *cfg;         /* borrowed from srv_main */
    lr_api *api;                   /* owned by srv_main */
    struct MHD_Daemon *mhd;        /* NULL until srv_http_start succeeds */
    int listen_fd;                 /* bound by srv_http_start (listen.c), MHD's while it runs */
    struct sockaddr_storage bound; /* the address listen_fd is bound to, port included */
    srv_pool pool;                 /* started and stopped by srv_http_start/stop */
    pthread_key_t worker_key;      /* this thread's lr_worker; destructor frees it */
    int worker_key_created;
    atomic_uint live_workers; /* workers created and not yet freed */
    atomic_uint inflight;     /* requests whose headers arrived, not yet completed */
    atomic_bool stopping;     /* set once shutdown began: answers say Connection: close */
    srv_cache_log cache_log;  /* what the log said of the cache (handlers.c, log.c) */
    srv_stats stats;
    struct timespec started; /* CLOCK_MONOTONIC at start, for uptime_s */
    srv_conns conns;         /* started and stopped by srv_http_start/stop */
    /* Our own web origins as a browser writes them in Origin (http.c,
     * set_self_origin: "http://127.0.0.1:8080", "http://localhost:8080", and
     * without the port when it is 80), written once the port is bound, before
     * origin_ready is set; until then no Origin is ours. Unused entries are "". */
    char self_origin[SRV_SELF_ORIGINS][sizeof(((srv_listen *)0)->host) + 16];
    atomic_bool origin_ready;
} srv_server;

/* Where a request is with the compute pool. Only estimate and rank become jobs. */
typedef enum srv_job_state {
    SRV_JOB_NONE,     /* not handed to the pool: the MHD thread alone uses the request */
    SRV_JOB_QUEUED,   /* in the queue; its connection is suspended */
    SRV_JOB_RUNNING,  /* a compute thread runs the route; the connection is suspended */
    SRV_JOB_RESUMING, /* answer is final; the compute thread is resuming the connection */
    SRV_JOB_DONE,     /* the compute thread no longer touches the request or connection */
} srv_job_state;

/* A response body and the function that frees it (free for lr_api_* results,
 * cJSON_free for what cJSON printed, srv_keep_static for the embedded web page).
 * text is NULL when there is none. type is the Content-Type; NULL means
 * application/json, which every answer but the web page's files and an array's bytes
 * is. len is the body's length, 0 for a NUL-terminated text; status the answer's
 * status, 0 for 200 (PUT /v1/arrays answers 201 when it stored something new). */
typedef struct srv_json {
    char *text;
    void (*free_fn)(void *);
    const char *type;
    size_t len;
    unsigned status;
} srv_json;

/* One request (MHD's per-request context): created by http.c (srv_request_new of
 * request.c) on the first call of the access handler. When MHD reports the request
 * completed, http.c logs it and hands it to srv_pool_release, which frees it at once
 * unless a compute thread still holds it (then that thread frees it when done;
 * pool.c says when that happens). */
struct srv_request {
    int route;       /* index in the routing table, -1 for 404/405 */
    const char *arg; /* {name} of /v1/devices/{name}, {sha256} of /v1/arrays: into url */
    char *body;      /* accumulated POST or PUT body (malloc'd), NULL when empty */
    size_t body_len, body_cap;
    int body_too_large; /* more than max_body arrived: rest is discarded */
    int body_no_memory; /* growing the buffer failed: rest is discarded */
    /* PUT /v1/arrays: the body's SHA-256, updated as each piece arrives (so the body
     * is not read again to hash it), its hex digest once whole, and ?format= */
    int hashing;
    struct sha256_ctx hash;
    char body_sha256[LR_SHA256_HEX];
    char format[16];
    unsigned status;               /* status queued, 0 while none; 499 when the job
                                    * was cancelled by its client (respond.c) */
    size_t bytes;                  /* body bytes of the response queued */
    struct timespec start;         /* CLOCK_MONOTONIC when the headers had arrived */
    time_t received;               /* the same moment in wall-clock time, for the access log */
    char client[INET6_ADDRSTRLEN]; /* the client's address, "-" when unknown */
    char version[12];              /* "HTTP/1.1", printable ASCII */
    /* The compute job (pool.c). submitted is the MHD thread's own; the rest is
     * guarded by the pool's mutex while the request is a job, except body (the
     * compute thread's while RUNNING) and answer/answer_err (written by the compute
     * thread while RUNNING, read by the MHD thread once the state is RESUMING or
     * DONE, the mutex ordering the two). */
    int submitted; /* handed to the pool (srv_pool_submit succeeded) */
    srv_job_state job;
    int released;                /* MHD completed the request: the job frees it */
    struct MHD_Connection *conn; /* the suspended connection to resume */
    srv_request *job_next;       /* the queue's link */
    srv_json answer;             /* the job's body (owned until queued), or text NULL */
    lr_error answer_err;         /* ...and then the error */
    srv_conn *conn_state;        /* its connection in conns.c; NULL when not tracked */
    /* While the job runs (pool.c): the hooks its ranking is given (srv_pool_rank_hooks),
     * the pool they use, its entry on the pool's list of rankings to help, the socket
     * of its suspended connection (polled to see whether the client hung up) and
     * whether it did. */
    lr_rank_hooks hooks;
    struct srv_server *server;
    struct srv_pool *pool;
    srv_lend lend;
    int fd;
    atomic_int gone;
    /* Progress lines (pool.c, docs/api.md "Progress of a ranking"): stream is set by
     * http.c before the job is submitted; the rest is guarded by the pool's mutex. */
    int quick;          /* an estimate: a ranking's thread may run it in a pause */
    int stream;         /* the client asked for application/x-ndjson */
    int suspended;      /* the connection is suspended and nobody is resuming it */
    int stream_opened;  /* the connection was resumed for a progress line: from
                         * now on MHD, not the suspension, holds it (fd may close) */
    double progress_at; /* CLOCK_MONOTONIC seconds of the last progress line */
    char progress[160]; /* the latest progress line not yet sent whole */
    size_t progress_len, progress_off;
    size_t final_off;        /* bytes of the last line (the answer) sent */
    const char *cors_origin; /* an --allow-origin the request came from, or NULL */
    char method[16];         /* for the access log, printable ASCII: MHD's strings die with the
                              * request, and a client may send any bytes as a method */
    char url[];              /* the path, NUL-terminated */
};

/* ---- http.c: libmicrohttpd plumbing ------------------------------------------ */

/* Starts the compute pool and the MHD daemon on cfg->addr. Returns 0, or -1 with
 * err set (and nothing left running). */
int srv_http_start(srv_server *s, lr_error *err);
/* The port actually bound (meaningful after srv_http_start; resolves port 0). */
unsigned srv_http_port(const srv_server *s);
/* Stops accepting connections, lets in-flight requests finish (at most
 * SRV_DRAIN_MAX_S seconds, or until one of the signals in *hurry arrives), then
 * stops the compute pool (every worker freed on its thread) and the daemon. Safe to
 * call when start failed. */
void srv_http_stop(srv_server *s, const sigset_t *hurry);

/* ---- request.c: one request's memory ------------------------------------------- */

/* A request whose headers arrived on c: method, version and url copied (method and
 * version as printable ASCII), its start time and client address noted, route -1.
 * The caller owns it (srv_request_free); NULL when out of memory. */
srv_request *srv_request_new(struct MHD_Connection *c, const char *method, const char *url,
                             const char *version);
/* Appends n bytes of body, keeping at most max bytes: beyond them the body is
 * dropped and body_too_large set; body_no_memory is set when growing fails. Once
 * either is set, later chunks are discarded. With req->hashing, the bytes kept also
 * update req->hash. */
void srv_request_append(srv_request *req, size_t max, const char *data, size_t n);
/* Frees a request and what it owns (body, an answer not handed to MHD). */
void srv_request_free(srv_request *req);

/* ---- routes.c: the routing table (data only) ------------------------------------ */

/* Looks method and url up. Returns the route index (*arg set to the {name} of the
 * routes that have one), or -1: then *status is 404, or 405 with allow (a buffer of
 * allow_size bytes) listing the methods the path accepts, for the Allow header. */
int srv_route_find(const char *method, const char *url, const char **arg, char *allow,
                   size_t allow_size, unsigned *status);
/* Whether the route takes a request body (POST, PUT). */
int srv_route_has_body(int route);
/* Whether the route runs the model (estimate, rank): it runs on the compute pool. */
int srv_route_computes(int route);
/* "POST /v1/estimate": the route's name in /v1/stats and /metrics. */
const char *srv_route_label(int route);

/* ---- handlers.c: what each route does ------------------------------------------- */

/* Runs the handler of req's route. Returns the JSON body, or one with text NULL and
 * err set. */
srv_json srv_route_run(srv_server *s, const srv_request *req, lr_error *err);
/* An estimate answered without computing, on the calling (I/O) thread: 1 when
 * answered, *out holding the body or its text NULL with err set (an invalid request
 * is answered here too); 0 when the prediction is not cached and must be computed on
 * the pool. */
int srv_estimate_cached(srv_server *s, const srv_request *req, srv_json *out, lr_error *err);

/* ---- assets.c: the web calculator's files (web/, embedded at build time) -------- */

/* The embedded file called name ("index.html", "app.js"), as a body with its
 * Content-Type and a free_fn that frees nothing (the text is static); text NULL
 * when there is no such file. */
srv_json srv_asset_find(const char *name);
/* The free_fn of static bodies: frees nothing. */
void srv_keep_static(void *text);

/* ---- respond.c: statuses and JSON bodies --------------------------------------- */

/* The HTTP status of an error code: the one table of the project. */
unsigned srv_status_of(lr_code code);
/* Queues body (taking it, also on failure) with the given status, its Content-Type
 * (application/json unless body.type says otherwise; the web page's files also get
 * a Content-Security-Policy that keeps the page to its own origin), an Allow header
 * when allow is not NULL. Records status and size in req. */
enum MHD_Result srv_respond_json(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                 unsigned status, srv_json body, const char *allow);
/* Queues a 200 answer of Content-Type application/x-ndjson whose body read
 * produces (chunked; libmicrohttpd calls read(cls, ...) until it ends the stream). */
enum MHD_Result srv_respond_stream(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                   MHD_ContentReaderCallback read, void *cls);
/* Answers a CORS preflight (OPTIONS from a page of an --allow-origin origin, which
 * req->cors_origin names) with 204: the methods in allow and the Content-Type
 * header may be used. */
enum MHD_Result srv_respond_preflight(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                      const char *allow);
/* Queues the error body of err with status (0 = srv_status_of(err->code)) and
 * counts it in /v1/stats. */
enum MHD_Result srv_respond_error(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                  const lr_error *err, unsigned status, const char *allow);
/* For a job whose client closed the connection, which cancelled it (err says so):
 * queues err's error body all the same, but records the request as
 * SRV_STATUS_CLIENT_CLOSED with no bytes, and counts and logs no error. */
enum MHD_Result srv_respond_cancelled(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                      const lr_error *err);
/* srv_respond_error of an error made here: code, and the message of fmt. */
enum MHD_Result srv_respond_code(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                 lr_code code, unsigned status, const char *allow,
                                 const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* ---- headers.c: what the request line and headers decide ---------------------- */

/* Each answers req (400, 403, 415) and returns MHD_YES when its rule is broken, with
 * req->status set; MHD_YES with no answer when it holds; MHD_NO when an answer failed. */
/* A body whose end is ambiguous or cannot be decoded: duplicate or conflicting
 * Content-Length and Transfer-Encoding, a Transfer-Encoding other than chunked. */
enum MHD_Result srv_check_framing(srv_server *s, struct MHD_Connection *c, srv_request *req);
/* A Host that names neither this server nor an --allow-origin (DNS rebinding). */
enum MHD_Result srv_check_host(srv_server *s, struct MHD_Connection *c, srv_request *req);
/* An Origin of another web page than ours or an --allow-origin's. */
enum MHD_Result srv_check_origin(srv_server *s, struct MHD_Connection *c, srv_request *req);
/* A body that is not application/json (POST), or not application/octet-stream (PUT
 * /v1/arrays). */
enum MHD_Result srv_check_content_type(srv_server *s, struct MHD_Connection *c,
                                       srv_request *req);
/* Whether req is a browser's CORS preflight from an --allow-origin page. */
int srv_is_preflight(struct MHD_Connection *c, const srv_request *req);

/* ---- counts.c: the counters /v1/stats and /metrics read ----------------------- */

/* The statuses /metrics counts apart (the last slot: any other) and the upper bounds
 * of its latency buckets in seconds. */
extern const unsigned srv_status_slots[SRV_STATUS_SLOTS - 1];
extern const double srv_latency_bounds[SRV_LATENCY_BUCKETS];
void srv_stats_count_request(srv_stats *st, int route);
void srv_stats_count_error(srv_stats *st, lr_code code);
/* Counts a completed request for /metrics: its route (-1: none), the status sent
 * (0: none, the client left first) and its duration in seconds. */
void srv_stats_count_response(srv_stats *st, int route, unsigned status, double seconds);
/* Counts an error answer of route (-1: none) by its code, for /metrics. */
void srv_stats_count_route_error(srv_stats *st, int route, lr_code code);

/* ---- stats.c: /v1/stats -------------------------------------------------------- */

/* The /v1/stats body. */
srv_json srv_stats_json(srv_server *s, lr_error *err);
/* The /metrics body: every counter in the Prometheus text exposition format 0.0.4
 * (docs/operations.md lists the metrics). */
srv_json srv_metrics_text(srv_server *s, lr_error *err);
/* Seconds since the daemon started. */
double srv_uptime_s(const srv_server *s);

/* ---- pool.c: the compute pool ---------------------------------------------------- */

/* Starts cfg->threads compute threads, which run each job with run. Returns 0, or
 * -1 with err set (none left running). */
int srv_pool_start(srv_server *s, srv_job_fn run, lr_error *err);

typedef enum srv_submit {
    SRV_SUBMIT_OK,       /* queued; the connection is suspended */
    SRV_SUBMIT_FULL,     /* SRV_QUEUE_MAX jobs wait already: answer 503 */
    SRV_SUBMIT_STOPPING, /* the pool is stopping: answer 503 */
} srv_submit;

/* From the access handler, once req's body is complete: queues req as a job and
 * suspends c. A compute thread runs the route, stores the answer in req and resumes
 * c; MHD then calls the access handler again, which sends it (srv_pool_answered). */
srv_submit srv_pool_submit(srv_server *s, srv_request *req, struct MHD_Connection *c);
/* The hooks handlers.c gives lr_api_rank_with for the job req (a compute thread's,
 * valid while it runs): the pool's idle threads help the ranking, and it is cancelled
 * when its client hangs up. */
const lr_rank_hooks *srv_pool_rank_hooks(const srv_request *req);
/* Whether the client of c asks for progress lines (Accept: application/x-ndjson). */
int srv_pool_stream_wanted(struct MHD_Connection *c);
/* From the access handler, for a job with req->stream: queues the 200 answer of
 * newline-delimited JSON whose lines the pool supplies (progress, then the answer),
 * called when the pool resumed c for the first progress line or with the answer. */
enum MHD_Result srv_pool_stream(srv_server *s, struct MHD_Connection *c, srv_request *req);
/* Jobs waiting for a compute thread now (for /metrics). */
unsigned srv_pool_depth(srv_server *s);
/* Whether req's job has stored its answer (req->answer / req->answer_err). */
int srv_pool_answered(srv_server *s, srv_request *req);
/* From MHD's completion callback, before srv_pool_release: whether req was a job
 * its client cancelled by leaving while it waited or ran (job_gone saw it, or MHD
 * completed the request while the job still held it). */
int srv_pool_cancelled(srv_server *s, srv_request *req);
/* From MHD's completion callback: frees req now, or leaves that to the compute
 * thread that still holds it. */
void srv_pool_release(srv_server *s, srv_request *req);
/* Accepts no more jobs, answers those still queued with 503, waits for the running
 * ones (each resumes its connection) and joins the threads, which free their
 * workers. After it no connection is suspended, so MHD may be stopped. A no-op when
 * start failed or the pool is stopped already. */
void srv_pool_stop(srv_server *s);
/* Frees what is left of the pool (its mutex). Call after srv_pool_stop and after
 * MHD stopped: MHD's threads call srv_pool_answered and srv_pool_release until
 * then. A no-op when start failed. */
void srv_pool_fini(srv_server *s);

/* ---- worker.c: one lr_worker per compute thread --------------------------------- */

/* Creates the key under which each thread keeps its worker. Returns 0 or -1. */
int srv_workers_init(srv_server *s, lr_error *err);
/* This thread's worker, created on first use. NULL with err set on failure. */
lr_worker *srv_worker_get(srv_server *s, lr_error *err);
/* Deletes the key; call after every serving thread has exited (their workers were
 * freed on their own threads by the key's destructor). */
void srv_workers_fini(srv_server *s);

/* ---- conns.c: deadlines and limits on half-received connections ------------------ */

/* Starts the thread that shuts down connections whose request head did not arrive
 * within cfg->head_deadline_s, or whose body did not within cfg->body_deadline_s.
 * 0, or -1 with err. */
int srv_conns_start(srv_server *s, lr_error *err);
/* Stops that thread (connections are no longer cut by the clock). A no-op when not
 * started. */
void srv_conns_stop(srv_server *s);
/* Frees what is left; call after MHD stopped (it reports closed connections until
 * then). A no-op when start failed. */
void srv_conns_fini(srv_server *s);
/* MHD_OPTION_NOTIFY_CONNECTION: tracks connections from their opening (the head
 * deadline of their first request starts then) to their closing. A new connection
 * that puts its address over cfg->max_client_receiving half-received connections,
 * or all over cfg->max_receiving, sheds the slowest of them (conns.c says which). */
void srv_conns_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                      enum MHD_ConnectionNotificationCode toe);
/* The head of the request on conn is in: its body deadline starts. conn may be NULL. */
void srv_conn_head_received(srv_server *s, srv_conn *conn);
/* The request on conn has arrived whole (or was answered from its head): no deadline
 * runs and it is no longer half-received. conn may be NULL. */
void srv_conn_received(srv_server *s, srv_conn *conn);
/* The request on conn is done; the next one on the same (kept-alive) connection
 * starts its head deadline now. conn may be NULL. */
void srv_conn_next_request(srv_server *s, srv_conn *conn);
/* Why conns.c cut conn, or SRV_CUT_NONE (also for NULL). */
srv_cut_reason srv_conn_cut_reason(srv_server *s, srv_conn *conn);
/* What the access log says of a connection cut for reason ("--head-deadline passed"). */
const char *srv_cut_reason_text(srv_cut_reason reason);

/* ---- listen.c: --listen and the listening socket ---------------------------------- */

/* Parses HOST:PORT (127.0.0.1:8080, localhost:8080, [::1]:8080) and resolves HOST.
 * Returns 0, or -1 with why (a sentence for the user) filled in. */
int srv_listen_parse(const char *value, srv_listen *out, char *why, size_t why_size);
/* Binds and listens on the first address of l that works. Returns the socket (the
 * caller closes it) with *bound its address and real port, or -1 with err saying
 * which address and port failed and why (a port in use is named as such). */
int srv_listen_open(const srv_listen *l, struct sockaddr_storage *bound, lr_error *err);
/* An address as URLs and logs write it: 127.0.0.1, [::1]. */
void srv_addr_text(const struct sockaddr_storage *a, char *out, size_t size);

/* ---- log.c: the daemon's log (stderr) ------------------------------------------ */

void srv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void srv_logv(const char *fmt, va_list ap);
/* The access log line of a completed request, in Common Log Format followed by the
 * duration and, for a request that did not complete, why (docs/operations.md). */
void srv_log_access(const srv_request *req, double ms, const char *why);

/* At most this often, in seconds, the log sums up a cache that goes on failing. */
#define SRV_CACHE_SUMMARY_S 60.0
/* The cache works again, for the log, once its status is "ok" and no operation has
 * failed for this long (seconds): a cache whose reads succeed and whose writes fail
 * (a full disk, a read-only file) is "ok" between every two requests. */
#define SRV_CACHE_CALM_S 5.0

/* Starts c at now (monotonic seconds) from what the start-up line said: the cache's
 * status and the api's failure count (lr_api_cache_failures). */
void srv_cache_log_start(srv_cache_log *c, const char *status, uint64_t failures, double now);
/* Looks at the cache's health: its status, the api's failure count and last reason
 * (lr_api_cache_failures), at now. Logs "cache not used for now: WHY" when it starts
 * failing, "cache still failing: N failures in the last S s, last reason: WHY" at
 * most every SRV_CACHE_SUMMARY_S while failures go on, "cache working again" once
 * it has been calm for SRV_CACHE_CALM_S. Any thread, as often as wanted. */
void srv_cache_log_note(srv_cache_log *c, const char *status, uint64_t failures,
                        const char *last, double now);
void srv_cache_log_end(srv_cache_log *c);

#endif
