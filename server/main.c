/*
 * main.c: `launchrank serve`. Parses the options (declared once, in a table that
 * also writes --help), creates the lr_api, starts the HTTP daemon, waits for
 * SIGINT/SIGTERM and shuts down gracefully. The signals are blocked before any
 * thread exists, so every thread inherits the mask and only sigwait here sees
 * them: no handler runs inside libmicrohttpd's threads.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "lr_opt.h"
#include "server.h"
#include "srv_int.h"

#define SRV_DEFAULT_LISTEN "127.0.0.1:8080"
#define SRV_DEFAULT_DB "launchrank.sqlite"
/* Idle seconds before a connection is closed: a client that sends half a request
 * and stalls holds its memory no longer than this. Ten seconds is ages for a
 * client on the same host or network, which is where code generators run. */
#define SRV_DEFAULT_TIMEOUT_S 10
/* Seconds a client may take to send a request's head (request line and headers),
 * however steadily it trickles (--timeout only bounds silence), counted from the
 * connection's opening or the previous answer on it. A head is a few hundred bytes,
 * sent in one packet by every client; ten seconds equal --timeout, so an idle
 * kept-alive connection lasts as long as before, and a client trickling its head
 * frees its connection within ten seconds. */
#define SRV_DEFAULT_HEAD_DEADLINE_S 10
/* Seconds a client may take to send a request's body once its head is in. A 1 MiB
 * body takes milliseconds on the networks code generators use and ten seconds at
 * 100 KB/s; thirty leave room for a slow link and still free a trickling client's
 * connection within half a minute. */
#define SRV_DEFAULT_BODY_DEADLINE_S 30
/* Half-received connections (request not yet whole) of all clients at once: half of
 * SRV_MAX_CONNECTIONS, so that however many connections clients trickle, the other
 * half stays for requests that arrived (SRV_QUEUE_MAX of them may wait for a compute
 * thread) and new connections always find a slot to open in. Past it, the slowest
 * half-received connection is shed (conns.c). */
#define SRV_DEFAULT_MAX_RECEIVING 256
/* Half-received connections of one client address: half of the total, so that one
 * address trickling alone leaves the other half to the rest; twice the 64 connections
 * of the load benchmark, more than a code generator on one host opens at once. Past
 * it, that address's slowest is shed; a prompt client of the same address is not. */
#define SRV_DEFAULT_MAX_CLIENT_RECEIVING 128
_Static_assert(SRV_MAX_CONNECTIONS == 512, "update the --max-receiving help");
/* Longest --allow-origin: a scheme, a host name (at most 253) and a port. */
#define SRV_ORIGIN_MAX 270
/* Compute threads at most: each owns an isl context and a store connection; beyond
 * a thousand, a number is a typo rather than a machine. */
#define SRV_MAX_THREADS 1024u
/* Largest --max-body: the protocol refuses bodies over LR_MAX_BODY_BYTES whatever the
 * daemon buffers, so --max-body can only lower that limit (a larger value used to be
 * accepted and then had no effect). */
#define SRV_MAX_BODY_CEILING ((size_t)LR_MAX_BODY_BYTES)

/* --max-array-mb: an uploaded array (PUT /v1/arrays) is one value of the database, and
 * SQLite keeps at most 1e9 bytes in one (SQLITE_MAX_LENGTH, api.h's
 * LR_MAX_ARRAY_BYTES): 953 MiB. The default, 512 MiB, holds a 16 M-cell tetrahedral
 * mesh's neighbour list (4 x 16 M) as int64, or 8 neighbours as int32; an upload is
 * held in memory once while it is hashed and stored. */
#define SRV_DEFAULT_MAX_ARRAY_MB 512
#define SRV_MAX_ARRAY_MB (LR_MAX_ARRAY_BYTES >> 20)
/* --max-arrays-mb: up to 16 TiB, past which a disk is the limit, not the option. */
#define SRV_MAX_ARRAYS_MB (16ll << 20)

/* --help shows defaults from these texts; keep them equal to the values. */
#define SRV_STR_(x) #x
#define SRV_STR(x) SRV_STR_(x)
#define SRV_DEFAULT_MAX_BODY_TEXT "1048576 (1 MiB)"
#define LR_DEFAULT_CACHE_MAX_N 100000
_Static_assert(LR_DEFAULT_CACHE_MAX == LR_DEFAULT_CACHE_MAX_N, "update LR_DEFAULT_CACHE_MAX_N");
_Static_assert(LR_MAX_BODY_BYTES == 1048576, "update SRV_DEFAULT_MAX_BODY_TEXT");

enum { SRV_EXIT_OK = 0, SRV_EXIT_START_FAILED = 1, SRV_EXIT_BAD_OPTIONS = 2 };

/* What parsing produces: the configuration and what only srv_main needs. The
 * numbers are parsed into the long longs below (lr_opt's integer kind) and copied
 * into cfg once parsing is done. */
typedef struct srv_options {
    srv_config cfg;
    const char *listen; /* --listen as given, for messages */
    int no_cache;
    long long threads, max_body, timeout_s, cache_max, max_request_mb, max_array_mb,
        max_arrays_mb;
    long long head_deadline_s, body_deadline_s, max_receiving, max_client_receiving;
    double time_limit_s;       /* --time-limit, decimals allowed as for `launchrank rank` */
    char default_db[PATH_MAX]; /* $STATE_DIRECTORY/launchrank.sqlite, when set */
} srv_options;

/* ---- option setters ----------------------------------------------------------- */

/* HOST:PORT: 127.0.0.1:8080, localhost:8080, [::1]:8080 (listen.c resolves it). */
static int set_listen(void *target, const char *value, char *why, size_t why_size)
{
    srv_options *o = target;
    if (srv_listen_parse(value, &o->cfg.listen, why, why_size))
        return -1;
    o->listen = value;
    return 0;
}

static int set_db(void *target, const char *value, char *why, size_t why_size)
{
    srv_options *o = target;
    if (!*value) {
        snprintf(why, why_size, "the path is empty (use --no-cache to run without a cache)");
        return -1;
    }
    o->cfg.db_path = value;
    return 0;
}

/* Largest --max-request-mb: 1 TiB, beyond any machine's memory (0 turns it off). */
#define SRV_MAX_REQUEST_MB (1ll << 20)
/* Most predictions the cache keeps (a billion rows would be terabytes). */
#define SRV_MAX_CACHE_ENTRIES 1000000000ll
/* Longest --timeout, --time-limit and the deadlines: an hour is beyond any
 * sensible wait for one request. */
#define SRV_MAX_SECONDS 3600

/* Whether value is a web origin as browsers write it in Origin: http:// or https://,
 * a host and maybe :PORT, in printable ASCII, with nothing after (no path, no
 * trailing slash, no user). "null", which sandboxed pages and files send, is not:
 * any page can make its requests carry it. */
static int is_origin(const char *value)
{
    const char *host = strncasecmp(value, "http://", 7) == 0    ? value + 7
                       : strncasecmp(value, "https://", 8) == 0 ? value + 8
                                                                : NULL;
    if (!host || !*host || strlen(value) > SRV_ORIGIN_MAX)
        return 0;
    for (const char *p = host; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f || strchr("/?#@\\", *p))
            return 0;
    return 1;
}

static int set_allow_origin(void *target, const char *value, char *why, size_t why_size)
{
    srv_config *cfg = &((srv_options *)target)->cfg;
    if (cfg->n_allow_origins >= SRV_MAX_ALLOW_ORIGINS) {
        snprintf(why, why_size, "at most %d origins may be allowed", SRV_MAX_ALLOW_ORIGINS);
        return -1;
    }
    if (!is_origin(value)) {
        snprintf(why, why_size,
                 "'%.80s' is not a web origin such as https://example.org or "
                 "http://localhost:3000 (scheme, host and port only)",
                 value);
        return -1;
    }
    cfg->allow_origins[cfg->n_allow_origins++] = value;
    return 0;
}

/* ---- the option table ------------------------------------------------------------ */

#define SRV_OFF(field) offsetof(srv_options, field)

static const lr_opt opt_listen = {
    .name = "--listen",
    .arg = "HOST:PORT",
    .def = SRV_DEFAULT_LISTEN,
    .help = "address or host name and port to listen on: 127.0.0.1:8080, localhost:8080, "
            "[::1]:8080 (IPv6 in brackets), 0.0.0.0:8080 (every IPv4 interface); a name is "
            "resolved once, the first of its addresses that can be bound is used; port 0 "
            "picks a free port",
    .kind = LR_OPT_CALL,
    .set = set_listen};
static const lr_opt opt_db = {
    .name = "--db",
    .arg = "PATH",
    .def = SRV_DEFAULT_DB " in $STATE_DIRECTORY (systemd's StateDirectory=), else in the "
                          "working directory",
    .help = "SQLite file caching predictions (created if missing); the log names it by its "
            "absolute path",
    .kind = LR_OPT_CALL,
    .set = set_db};
static const lr_opt opt_no_cache = {.name = "--no-cache",
                                    .help = "run without the prediction cache",
                                    .kind = LR_OPT_FLAG,
                                    .offset = SRV_OFF(no_cache)};
static const lr_opt opt_threads = {
    .name = "--threads",
    .arg = "N",
    .unit = "threads",
    .def = "the number of online cores",
    .help = "threads computing estimates and rankings, each with its own model state; two "
            "more threads handle connections, so /healthz and the GET endpoints answer while "
            "all N compute",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_THREADS,
    .offset = SRV_OFF(threads)};
static const lr_opt opt_max_body = {
    .name = "--max-body",
    .arg = "BYTES",
    .unit = "bytes",
    .def = SRV_DEFAULT_MAX_BODY_TEXT,
    .help = "largest request body accepted, at most the default; larger ones get 413",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_BODY_CEILING,
    .offset = SRV_OFF(max_body)};
static const lr_opt opt_max_array_mb = {
    .name = "--max-array-mb",
    .arg = "MB",
    .unit = "MiB",
    .def = SRV_STR(SRV_DEFAULT_MAX_ARRAY_MB),
    .help = "largest array PUT /v1/arrays/{sha256} accepts (an index field's values, "
            "uploaded once and named by requests by their SHA-256; kept in the --db "
            "database); larger ones get 413. Only that route takes such a body; --max-body "
            "bounds the others. The upload must also arrive within --body-deadline",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_ARRAY_MB,
    .offset = SRV_OFF(max_array_mb)};
static const lr_opt opt_max_arrays_mb = {
    .name = "--max-arrays-mb",
    .arg = "MB",
    .unit = "MiB",
    .def = SRV_STR(LR_DEFAULT_MAX_ARRAYS_MB),
    .help = "what all arrays of the --db database may take together (uploads and the "
            "permutations rankings compute); storing one past it evicts the least recently "
            "stored or read, and a request naming an evicted array is refused until it is "
            "uploaded again. At least --max-array-mb",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_ARRAYS_MB,
    .offset = SRV_OFF(max_arrays_mb)};
static const lr_opt opt_timeout = {
    .name = "--timeout",
    .arg = "SECONDS",
    .unit = "seconds",
    .def = SRV_STR(SRV_DEFAULT_TIMEOUT_S),
    .help = "idle seconds before a connection is closed (stalled clients)",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_SECONDS,
    .offset = SRV_OFF(timeout_s)};
static const lr_opt opt_cache_max = {
    .name = "--cache-max",
    .arg = "N",
    .unit = "predictions",
    .def = SRV_STR(LR_DEFAULT_CACHE_MAX_N),
    .help = "predictions the cache keeps; past that, the least recently used are evicted "
            "(measurements and devices never are). A prediction takes 2.5 KB of the file "
            "when it is one of a ranking, up to 4.7 KB when it is an estimate of a request "
            "of its own: the default is 250-470 MB",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_CACHE_ENTRIES,
    .offset = SRV_OFF(cache_max)};
static const lr_opt opt_max_request_mb = {
    .name = "--max-request-mb",
    .arg = "MB",
    .unit = "MiB",
    .def = SRV_STR(LR_DEFAULT_MAX_REQUEST_MB),
    .help = "memory one request may be estimated to use, from its configurations, fields, "
            "accesses and foldings (docs/api.md, \"Limits\"); larger ones get 413 "
            "limit_exceeded before anything is computed. 0 = no limit. Requests of --threads "
            "compute threads together stay under --threads times this",
    .kind = LR_OPT_INT,
    .min = 0,
    .max = SRV_MAX_REQUEST_MB,
    .offset = SRV_OFF(max_request_mb)};
static const lr_opt opt_time_limit = {
    .name = "--time-limit",
    .arg = "SECONDS",
    .unit = "seconds",
    .def = "30",
    .help = "computing time one request may take (decimals allowed, e.g. 0.5); longer ones "
            "get 422 budget_exceeded, a ranking the configurations it evaluated by then",
    .kind = LR_OPT_REAL,
    .max = SRV_MAX_SECONDS,
    .offset = SRV_OFF(time_limit_s)};
static const lr_opt opt_head_deadline = {
    .name = "--head-deadline",
    .arg = "SECONDS",
    .unit = "seconds",
    .def = SRV_STR(SRV_DEFAULT_HEAD_DEADLINE_S),
    .help = "time a client may take to send a request's line and headers, however steadily "
            "it trickles, from the connection's opening or the previous answer on it; then "
            "the connection is closed without an answer",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_SECONDS,
    .offset = SRV_OFF(head_deadline_s)};
static const lr_opt opt_body_deadline = {
    .name = "--body-deadline",
    .arg = "SECONDS",
    .unit = "seconds",
    .def = SRV_STR(SRV_DEFAULT_BODY_DEADLINE_S),
    .help = "time a client may take to send a request's body once its headers are in; then "
            "the connection is closed without an answer",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_SECONDS,
    .offset = SRV_OFF(body_deadline_s)};
static const lr_opt opt_max_receiving = {
    .name = "--max-receiving",
    .arg = "N",
    .unit = "connections",
    .def = SRV_STR(SRV_DEFAULT_MAX_RECEIVING),
    .help = "connections whose request has not arrived whole, of all clients (512 "
            "connections in all); past it, the one receiving longest of the client address "
            "holding the most is closed",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_CONNECTIONS,
    .offset = SRV_OFF(max_receiving)};
static const lr_opt opt_max_client_receiving = {
    .name = "--max-client-receiving",
    .arg = "N",
    .unit = "connections",
    .def = SRV_STR(SRV_DEFAULT_MAX_CLIENT_RECEIVING),
    .help = "connections whose request has not arrived whole, of one client address; past "
            "it, that address's connection receiving longest is closed (a client sending "
            "its request promptly is not)",
    .kind = LR_OPT_INT,
    .min = 1,
    .max = SRV_MAX_CONNECTIONS,
    .offset = SRV_OFF(max_client_receiving)};
static const lr_opt opt_allow_origin = {
    .name = "--allow-origin",
    .arg = "ORIGIN",
    .help = "let web pages of ORIGIN (https://host[:port]) call the daemon (repeatable); "
            "requests from pages of other origins than http://ADDR:PORT get 403",
    .kind = LR_OPT_CALL,
    .set = set_allow_origin};
static const lr_opt opt_port_file = {
    .name = "--port-file",
    .arg = "PATH",
    .help = "once listening, write the bound port there; removed at exit",
    .kind = LR_OPT_TEXT,
    .offset = SRV_OFF(cfg.port_file)};
static const lr_opt opt_quiet = {
    .name = "--quiet",
    .help = "no access log and no message about single connections (clients hanging up). "
            "The access log is one line per request on stderr in Common Log Format, then "
            "the duration:\n127.0.0.1 - - [22/Nov/2026:21:40:05 +0000] \"POST /v1/rank "
            "HTTP/1.1\" 200 5120 12.5ms",
    .kind = LR_OPT_FLAG,
    .offset = SRV_OFF(cfg.quiet)};

/* Every option of the daemon, in the order --help lists them. */
static const lr_opt *const options[] = {&opt_listen,        &opt_db,
                                        &opt_no_cache,      &opt_threads,
                                        &opt_max_body,      &opt_max_array_mb,
                                        &opt_max_arrays_mb, &opt_timeout,
                                        &opt_cache_max,     &opt_max_request_mb, &opt_time_limit,
                                        &opt_head_deadline, &opt_body_deadline,
                                        &opt_max_receiving, &opt_max_client_receiving,
                                        &opt_allow_origin,  &opt_port_file,
                                        &opt_quiet,         NULL};

static const lr_opt_cmd serve_cmd = {
    .name = "serve",
    .usage = "Usage: launchrank serve [OPTIONS]\n"
             "\n"
             "Runs the launchrank HTTP daemon: code generators POST GPU kernel\n"
             "descriptions as JSON and get performance predictions back. SIGINT or\n"
             "SIGTERM stops it gracefully: requests in flight are answered first\n"
             "(a second signal cancels them: they get 503).\n"
             "\n",
    .opts = options,
    .epilogue =
        "\nEndpoints (bodies are JSON; see docs/api.md):\n"
        "  POST /v1/estimate        predict the performance of one kernel launch\n"
        "  POST /v1/rank            rank launch configurations of a kernel\n"
        "  POST /v1/levels          a mesh kernel against its cells' diagonal block size\n"
        "  GET  /v1/devices         the devices the model knows\n"
        "  GET  /v1/devices/{name}  one device's parameters\n"
        "  GET  /healthz            liveness, cache status, model version\n"
        "  GET  /v1/stats           request, error and cache counters, uptime\n"
        "  GET  /metrics            the same and more in Prometheus text format\n"
        "\nErrors are {\"error\":{\"code\",\"message\",\"path\"},\"model_version\"} with a\n"
        "status per code: 400 invalid_json and invalid_request (also two\n"
        "Content-Length headers, or a Transfer-Encoding that is not chunked\n"
        "alone), 403 a request from a web page of another origin, 404 not_found, 405\n"
        "method_not_allowed, 413 limit_exceeded, 415 a body not sent as\n"
        "application/json, 422 unsupported_expression, not_launchable and\n"
        "budget_exceeded, 500 internal, 503 unavailable and out_of_memory.\n"
        "Estimates and rankings wait for a compute thread in a queue of\n"
        "" SRV_STR(SRV_QUEUE_MAX) " requests; when it is full they get 503 unavailable\n"
                                  "(the server is busy: retry later).\n"
                                  "\nExit status: 0 after a graceful shutdown, 1 when the "
                                  "daemon cannot start,\n"
                                  "2 on bad options.\n"
                                  "\nExamples:\n"
                                  "  $ launchrank serve --listen 127.0.0.1:8080 &\n"
                                  "  $ curl --json @kernel.json 127.0.0.1:8080/v1/estimate\n",
    .min_pos = 0,
    .max_pos = 0};

/* ---- parsing -------------------------------------------------------------------- */

static void options_defaults(srv_options *o)
{
    char why[160];
    memset(o, 0, sizeof *o);
    set_listen(o, SRV_DEFAULT_LISTEN, why, sizeof why);
    o->cfg.db_path = SRV_DEFAULT_DB;
    /* Under systemd (StateDirectory=), the cache lives in the service's state
     * directory whatever the working directory is; the first of a list is ours. */
    const char *state = getenv("STATE_DIRECTORY");
    if (state && state[0] == '/') {
        size_t n = strcspn(state, ":");
        if (n + sizeof "/" SRV_DEFAULT_DB <= sizeof o->default_db) {
            snprintf(o->default_db, sizeof o->default_db, "%.*s/%s", (int)n, state,
                     SRV_DEFAULT_DB);
            o->cfg.db_path = o->default_db;
        }
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > (long)SRV_MAX_THREADS)
        cores = SRV_MAX_THREADS;
    o->threads = cores < 1 ? 1 : cores;
    o->max_body = LR_MAX_BODY_BYTES;
    o->max_request_mb = LR_DEFAULT_MAX_REQUEST_MB;
    o->max_array_mb = SRV_DEFAULT_MAX_ARRAY_MB;
    o->max_arrays_mb = LR_DEFAULT_MAX_ARRAYS_MB;
    o->timeout_s = SRV_DEFAULT_TIMEOUT_S;
    o->head_deadline_s = SRV_DEFAULT_HEAD_DEADLINE_S;
    o->body_deadline_s = SRV_DEFAULT_BODY_DEADLINE_S;
    o->max_receiving = SRV_DEFAULT_MAX_RECEIVING;
    o->max_client_receiving = SRV_DEFAULT_MAX_CLIENT_RECEIVING;
}

/* Parses argv by the table. Returns LR_OPT_OK, LR_OPT_HELP (help printed) or
 * LR_OPT_BAD (mistake printed). */
static int options_parse(srv_options *o, int argc, char **argv)
{
    const char *pos[1];
    int npos;
    int rc = lr_opt_run(&serve_cmd, argc, argv, o, pos, &npos);
    if (rc != LR_OPT_OK)
        return rc;
    /* the table's ranges hold every value within its field's type */
    o->cfg.threads = (unsigned)o->threads;
    o->cfg.max_body = (size_t)o->max_body;
    o->cfg.max_array = (size_t)o->max_array_mb << 20;
    o->cfg.max_arrays_mb = o->max_arrays_mb;
    if (o->max_arrays_mb < o->max_array_mb) {
        fprintf(stderr,
                "launchrank-serve: --max-arrays-mb %lld is less than --max-array-mb %lld: "
                "all arrays together must hold at least the largest one\n",
                o->max_arrays_mb, o->max_array_mb);
        return LR_OPT_BAD;
    }
    o->cfg.timeout_s = (unsigned)o->timeout_s;
    o->cfg.time_limit_s = o->time_limit_s;
    o->cfg.cache_max = (long)o->cache_max;
    o->cfg.max_request_mb = o->max_request_mb ? (long)o->max_request_mb : -1;
    o->cfg.head_deadline_s = (unsigned)o->head_deadline_s;
    o->cfg.body_deadline_s = (unsigned)o->body_deadline_s;
    o->cfg.max_receiving = (unsigned)o->max_receiving;
    o->cfg.max_client_receiving = (unsigned)o->max_client_receiving;
    if (o->no_cache)
        o->cfg.db_path = NULL;
    return LR_OPT_OK;
}

/* ---- running ---------------------------------------------------------------------- */

/* Writes the port to path through a temporary file and a rename, so a reader
 * polling for the file never sees it half written. */
static int write_port_file(const char *path, unsigned port)
{
    size_t n = strlen(path) + sizeof ".tmp";
    char *tmp = malloc(n);
    if (!tmp)
        return -1;
    snprintf(tmp, n, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int ok = f && fprintf(f, "%u\n", port) > 0;
    ok = f && fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        srv_log("launchrank: cannot write the port file %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return ok ? 0 : -1;
}

/* Runs the daemon with the signals of *sigs blocked; returns the exit status. */
static int serve(const srv_options *o, const sigset_t *sigs)
{
    const srv_config *cfg = &o->cfg;
    srv_server s = {.cfg = cfg};
    clock_gettime(CLOCK_MONOTONIC, &s.started);
    lr_error err;
    lr_error_clear(&err);

    /* One ranking thread per request: the compute pool already has a thread per
     * core, so parallel rankings inside each request would only oversubscribe them. */
    lr_api_config api_cfg = {.db_path = cfg->db_path,
                             .threads = 1,
                             .isl_max_operations = 0,
                             .time_limit_s = cfg->time_limit_s,
                             .cache_max = cfg->cache_max,
                             .max_arrays_mb = cfg->max_arrays_mb,
                             .max_request_mb = cfg->max_request_mb,
                             .compute_threads = (int)cfg->threads};
    s.api = lr_api_new(&api_cfg, &err);
    if (!s.api) {
        srv_log("launchrank: cannot start: %s", err.message);
        return SRV_EXIT_START_FAILED;
    }
    /* The cache's health as the start-up line will say it; the log says changes from
     * there on (note_cache, handlers.c), from the first request. */
    const char *last;
    srv_cache_log_start(&s.cache_log, lr_api_cache_status(s.api),
                        lr_api_cache_failures(s.api, &last),
                        s.started.tv_sec + s.started.tv_nsec / 1e9);
    if (srv_http_start(&s, &err)) {
        srv_log("launchrank: cannot listen on %s: %s", o->listen, err.message);
        srv_cache_log_end(&s.cache_log);
        lr_api_free(s.api);
        return SRV_EXIT_START_FAILED;
    }
    unsigned port = srv_http_port(&s);
    if (cfg->port_file && write_port_file(cfg->port_file, port)) {
        srv_http_stop(&s, NULL);
        srv_cache_log_end(&s.cache_log);
        lr_api_free(s.api);
        return SRV_EXIT_START_FAILED;
    }
    /* The URL as a client types it (the name given, or the address), then the
     * address actually bound when a name was resolved, and the cache by its absolute
     * path: an operator reading the log needs no working directory to find it. */
    char url_host[sizeof cfg->listen.host + 2], bound[INET6_ADDRSTRLEN + 2];
    srv_addr_text(&s.bound, bound, sizeof bound);
    if (cfg->listen.is_name)
        snprintf(url_host, sizeof url_host, "%s", cfg->listen.host);
    else
        snprintf(url_host, sizeof url_host, "%s", bound);
    char *db_abs = cfg->db_path ? realpath(cfg->db_path, NULL) : NULL;
    const char *cache = lr_api_cache_status(s.api);
    if (strcmp(cache, "ok") == 0)
        srv_log("launchrank: listening on http://%s:%u%s%s%s (cache: %s)", url_host, port,
                cfg->listen.is_name ? " (" : "", cfg->listen.is_name ? bound : "",
                cfg->listen.is_name ? ")" : "", db_abs ? db_abs : cfg->db_path);
    else {
        srv_log("launchrank: listening on http://%s:%u%s%s%s (cache: disabled: %s)", url_host,
                port, cfg->listen.is_name ? " (" : "", cfg->listen.is_name ? bound : "",
                cfg->listen.is_name ? ")" : "", cache);
    }
    free(db_abs);
    if (lr_api_devices_warning(s.api))
        srv_log("launchrank: warning: %s", lr_api_devices_warning(s.api));

    int sig = 0;
    while (sigwait(sigs, &sig) != 0)
        ;
    srv_log("launchrank: %s, shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
    srv_http_stop(&s, sigs);
    srv_cache_log_end(&s.cache_log);
    lr_api_free(s.api);
    if (cfg->port_file)
        unlink(cfg->port_file); /* a stale port would send clients elsewhere */
    srv_log("launchrank: stopped");
    return SRV_EXIT_OK;
}

int srv_main(int argc, char **argv)
{
    srv_options o;
    options_defaults(&o);
    int parsed = options_parse(&o, argc, argv);
    if (parsed != LR_OPT_OK)
        return parsed == LR_OPT_HELP ? SRV_EXIT_OK : SRV_EXIT_BAD_OPTIONS;

    sigset_t sigs, old_mask;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, &old_mask);
    /* A client that hangs up mid-answer must cost an error code, not the process. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old_pipe;
    sigaction(SIGPIPE, &ignore, &old_pipe);

    int rc = serve(&o, &sigs);

    /* Leave the caller's signal state as it was; swallow extra signals first, or
     * unblocking them would kill a process that just shut down cleanly. */
    const struct timespec now = {0, 0};
    while (sigtimedwait(&sigs, NULL, &now) > 0)
        ;
    sigaction(SIGPIPE, &old_pipe, NULL);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    return rc;
}
