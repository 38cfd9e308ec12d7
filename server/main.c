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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "server.h"
#include "srv_int.h"

#define SRV_DEFAULT_LISTEN "127.0.0.1:8080"
#define SRV_DEFAULT_DB "launchrank.sqlite"
/* Idle seconds before a connection is closed: a client that sends half a request
 * and stalls holds its memory no longer than this. Ten seconds is ages for a
 * client on the same host or network, which is where code generators run. */
#define SRV_DEFAULT_TIMEOUT_S 10
/* Seconds a client may take to send one whole request, headers and body, however
 * steadily it trickles (--timeout only bounds silence). A 1 MiB body takes
 * milliseconds on the networks code generators use and ten seconds at 100 KB/s;
 * thirty leave room for a slow link and still free a trickling client's connection
 * within half a minute. */
#define SRV_DEFAULT_RECEIVE_DEADLINE_S 30
/* Connections one client address may hold open at once: a quarter of
 * SRV_MAX_CONNECTIONS, so that one client, however many connections it opens or
 * stalls, leaves three quarters to the others; twice the 64 connections of the
 * load benchmark, more than a code generator on one host opens. */
#define SRV_DEFAULT_MAX_CLIENT_CONNS 128
_Static_assert(SRV_MAX_CONNECTIONS == 512, "update the --max-client-connections help");
/* Longest --allow-origin: a scheme, a host name (at most 253) and a port. */
#define SRV_ORIGIN_MAX 270
/* Compute threads at most: each owns an isl context and a store connection; beyond
 * a thousand, a number is a typo rather than a machine. */
#define SRV_MAX_THREADS 1024u
/* Largest --max-body: the protocol refuses bodies over LR_MAX_BODY_BYTES whatever the
 * daemon buffers, so --max-body can only lower that limit (a larger value used to be
 * accepted and then had no effect). */
#define SRV_MAX_BODY_CEILING ((size_t)LR_MAX_BODY_BYTES)

/* --help shows defaults from these texts; keep them equal to the values. */
#define SRV_STR_(x) #x
#define SRV_STR(x) SRV_STR_(x)
#define SRV_DEFAULT_MAX_BODY_TEXT "1048576 (1 MiB)"
#define LR_DEFAULT_CACHE_MAX_N 100000
_Static_assert(LR_DEFAULT_CACHE_MAX == LR_DEFAULT_CACHE_MAX_N, "update LR_DEFAULT_CACHE_MAX_N");
_Static_assert(LR_MAX_BODY_BYTES == 1048576, "update SRV_DEFAULT_MAX_BODY_TEXT");

enum { SRV_EXIT_OK = 0, SRV_EXIT_START_FAILED = 1, SRV_EXIT_BAD_OPTIONS = 2 };

/* What parsing produces: the configuration and what only srv_main needs. */
typedef struct srv_options {
    srv_config cfg;
    const char *listen; /* --listen as given, for messages */
    int no_cache;
    int help;
    char default_db[PATH_MAX]; /* $STATE_DIRECTORY/launchrank.sqlite, when set */
} srv_options;

typedef struct srv_option {
    const char *name; /* "--listen" */
    const char *arg;  /* the value's name in --help; NULL for a flag */
    const char *def;  /* the default as --help shows it; NULL when none */
    const char *help;
    /* Stores value (NULL for a flag); returns 0, or -1 with why filled in. */
    int (*set)(srv_options *o, const char *value, char *why, size_t why_size);
} srv_option;

/* ---- option setters ----------------------------------------------------------- */

/* A whole decimal number in [min, max]; 0 or -1. */
static int parse_count(const char *s, unsigned long long min, unsigned long long max,
                       unsigned long long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* HOST:PORT: 127.0.0.1:8080, localhost:8080, [::1]:8080 (listen.c resolves it). */
static int set_listen(srv_options *o, const char *value, char *why, size_t why_size)
{
    if (srv_listen_parse(value, &o->cfg.listen, why, why_size))
        return -1;
    o->listen = value;
    return 0;
}

static int set_db(srv_options *o, const char *value, char *why, size_t why_size)
{
    if (!*value) {
        snprintf(why, why_size, "the path is empty (use --no-cache to run without a cache)");
        return -1;
    }
    o->cfg.db_path = value;
    return 0;
}

static int set_no_cache(srv_options *o, const char *value, char *why, size_t why_size)
{
    o->no_cache = 1;
    return 0;
}

static int set_threads(srv_options *o, const char *value, char *why, size_t why_size)
{
    unsigned long long n;
    if (parse_count(value, 1, SRV_MAX_THREADS, &n)) {
        snprintf(why, why_size, "'%s' is not a number of threads from 1 to %u", value,
                 SRV_MAX_THREADS);
        return -1;
    }
    o->cfg.threads = (unsigned)n;
    return 0;
}

static int set_max_body(srv_options *o, const char *value, char *why, size_t why_size)
{
    unsigned long long n;
    if (parse_count(value, 1, SRV_MAX_BODY_CEILING, &n)) {
        snprintf(why, why_size, "'%s' is not a number of bytes from 1 to %zu", value,
                 SRV_MAX_BODY_CEILING);
        return -1;
    }
    o->cfg.max_body = (size_t)n;
    return 0;
}

/* A number of seconds from 1 to 3600 (an hour is beyond any sensible timeout). */
static int parse_seconds(const char *value, unsigned *out, char *why, size_t why_size)
{
    unsigned long long n;
    if (parse_count(value, 1, 3600, &n)) {
        snprintf(why, why_size, "'%s' is not a number of seconds from 1 to 3600", value);
        return -1;
    }
    *out = (unsigned)n;
    return 0;
}

static int set_timeout(srv_options *o, const char *value, char *why, size_t why_size)
{
    return parse_seconds(value, &o->cfg.timeout_s, why, why_size);
}

static int set_time_limit(srv_options *o, const char *value, char *why, size_t why_size)
{
    return parse_seconds(value, &o->cfg.time_limit_s, why, why_size);
}

/* Most predictions the cache keeps (a billion rows would be terabytes). */
#define SRV_MAX_CACHE_ENTRIES 1000000000ull

static int set_cache_max(srv_options *o, const char *value, char *why, size_t why_size)
{
    unsigned long long n;
    if (parse_count(value, 1, SRV_MAX_CACHE_ENTRIES, &n)) {
        snprintf(why, why_size, "'%s' is not a number of predictions from 1 to %llu", value,
                 SRV_MAX_CACHE_ENTRIES);
        return -1;
    }
    o->cfg.cache_max = (long)n;
    return 0;
}

static int set_receive_deadline(srv_options *o, const char *value, char *why, size_t why_size)
{
    return parse_seconds(value, &o->cfg.receive_deadline_s, why, why_size);
}

static int set_max_client_conns(srv_options *o, const char *value, char *why, size_t why_size)
{
    unsigned long long n;
    if (parse_count(value, 1, SRV_MAX_CONNECTIONS, &n)) {
        snprintf(why, why_size, "'%s' is not a number of connections from 1 to %u", value,
                 SRV_MAX_CONNECTIONS);
        return -1;
    }
    o->cfg.max_client_conns = (unsigned)n;
    return 0;
}

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

static int set_allow_origin(srv_options *o, const char *value, char *why, size_t why_size)
{
    srv_config *cfg = &o->cfg;
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

static int set_port_file(srv_options *o, const char *value, char *why, size_t why_size)
{
    o->cfg.port_file = value;
    return 0;
}

static int set_quiet(srv_options *o, const char *value, char *why, size_t why_size)
{
    o->cfg.quiet = 1;
    return 0;
}

static int set_help(srv_options *o, const char *value, char *why, size_t why_size)
{
    o->help = 1;
    return 0;
}

/* Every option of the daemon, in the order --help lists them. */
static const srv_option options[] = {
    {"--listen", "HOST:PORT", SRV_DEFAULT_LISTEN,
     "address or host name and port to listen on: 127.0.0.1:8080,\n"
     "                       localhost:8080, [::1]:8080 (IPv6 in brackets),\n"
     "                       0.0.0.0:8080 (every IPv4 interface); a name is\n"
     "                       resolved once, the first of its addresses that can be\n"
     "                       bound is used; port 0 picks a free port",
     set_listen},
    {"--db", "PATH",
     SRV_DEFAULT_DB " in $STATE_DIRECTORY (systemd's\n"
                    "                       StateDirectory=), else in the working directory",
     "SQLite file caching predictions (created if missing);\n"
     "                       the log names it by its absolute path",
     set_db},
    {"--no-cache", NULL, NULL, "run without the prediction cache", set_no_cache},
    {"--threads", "N", "the number of online cores",
     "threads computing estimates and rankings, each with its\n"
     "                       own model state; two more threads handle connections,\n"
     "                       so /healthz and the GET endpoints answer while all N\n"
     "                       compute",
     set_threads},
    {"--max-body", "BYTES", SRV_DEFAULT_MAX_BODY_TEXT,
     "largest request body accepted, at most the default; larger ones get 413", set_max_body},
    {"--timeout", "SECONDS", SRV_STR(SRV_DEFAULT_TIMEOUT_S),
     "idle seconds before a connection is closed (stalled clients)", set_timeout},
    {"--cache-max", "N", SRV_STR(LR_DEFAULT_CACHE_MAX_N),
     "predictions the cache keeps; past that, the least recently\n"
     "                       used are evicted (measurements and devices never are)",
     set_cache_max},
    {"--time-limit", "SECONDS", "30",
     "computing time one request may take; longer ones get 422 budget_exceeded",
     set_time_limit},
    {"--receive-deadline", "SECONDS", SRV_STR(SRV_DEFAULT_RECEIVE_DEADLINE_S),
     "time a client may take to send one request, headers and\n"
     "                       body, however steadily it trickles; then the\n"
     "                       connection is closed",
     set_receive_deadline},
    {"--max-client-connections", "N", SRV_STR(SRV_DEFAULT_MAX_CLIENT_CONNS),
     "connections one client address may hold open at once\n"
     "                       (512 in all); more are closed at once",
     set_max_client_conns},
    {"--allow-origin", "ORIGIN", NULL,
     "let web pages of ORIGIN (https://host[:port]) call the\n"
     "                       daemon (repeatable); requests from pages of other\n"
     "                       origins than http://ADDR:PORT get 403",
     set_allow_origin},
    {"--port-file", "PATH", NULL, "once listening, write the bound port there; removed at exit",
     set_port_file},
    {"--quiet", NULL, NULL,
     "no access log and no message about single connections\n"
     "                       (clients hanging up). The access log is one line per\n"
     "                       request on stderr in Common Log Format, then the\n"
     "                       duration: 127.0.0.1 - - [22/Nov/2026:21:40:05 +0000]\n"
     "                       \"POST /v1/rank HTTP/1.1\" 200 5120 12.5ms",
     set_quiet},
    {"--help", NULL, NULL, "show this help and exit (also -h)", set_help},
};
#define OPTION_COUNT (sizeof options / sizeof options[0])

static void print_help(FILE *f)
{
    fprintf(f, "usage: launchrank serve [OPTIONS]\n\n"
               "Runs the launchrank HTTP daemon: code generators POST GPU kernel\n"
               "descriptions as JSON and get performance predictions back. SIGINT or\n"
               "SIGTERM stops it gracefully: requests in flight are answered first\n"
               "(a second signal cancels them: they get 503).\n\nOptions:\n");
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        char left[40];
        snprintf(left, sizeof left, "%s%s%s", options[i].name, options[i].arg ? " " : "",
                 options[i].arg ? options[i].arg : "");
        if (strlen(left) > 20) /* a long name: its help starts on the next line */
            fprintf(f, "  %s\n  %-20s %s\n", left, "", options[i].help);
        else
            fprintf(f, "  %-20s %s\n", left, options[i].help);
        if (options[i].def)
            fprintf(f, "  %-20s (default: %s)\n", "", options[i].def);
    }
    fprintf(
        f, "\nEndpoints (bodies are JSON; see docs/api.md):\n"
           "  POST /v1/estimate        predict the performance of one kernel launch\n"
           "  POST /v1/rank            rank launch configurations of a kernel\n"
           "  GET  /v1/devices         the devices the model knows\n"
           "  GET  /v1/devices/{name}  one device's parameters\n"
           "  GET  /healthz            liveness, cache status, model version\n"
           "  GET  /v1/stats           request, error and cache counters, uptime\n"
           "  GET  /metrics            the same and more in Prometheus text format\n"
           "\nErrors are {\"error\":{\"code\",\"message\",\"path\"},\"model_version\"} with a\n"
           "status per code: 400 invalid_json and invalid_request, 403 a request\n"
           "from a web page of another origin, 404 not_found, 405\n"
           "method_not_allowed, 413 limit_exceeded, 415 a body not sent as\n"
           "application/json, 422 unsupported_expression, not_launchable and\n"
           "budget_exceeded, 500 internal, 503 unavailable and out_of_memory.\n"
           "Estimates and rankings wait for a compute thread in a queue of\n"
           "" SRV_STR(SRV_QUEUE_MAX) " requests; when it is full they get 503 unavailable\n"
                                     "(the server is busy: retry later).\n"
                                     "\nExample:\n"
                                     "  launchrank serve --listen 127.0.0.1:8080 &\n"
                                     "  curl -s -H 'Content-Type: application/json' --data "
                                     "@kernel.json \\\n"
                                     "       http://127.0.0.1:8080/v1/estimate\n"
                                     "\nExit status: 0 after a graceful shutdown, 1 when the "
                                     "daemon cannot start,\n"
                                     "2 on bad options.\n");
}

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
    o->cfg.threads = cores < 1 ? 1u : (unsigned)cores;
    o->cfg.max_body = LR_MAX_BODY_BYTES;
    o->cfg.timeout_s = SRV_DEFAULT_TIMEOUT_S;
    o->cfg.receive_deadline_s = SRV_DEFAULT_RECEIVE_DEADLINE_S;
    o->cfg.max_client_conns = SRV_DEFAULT_MAX_CLIENT_CONNS;
}

static const srv_option *option_find(const char *name, size_t len)
{
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (strlen(options[i].name) == len && strncmp(options[i].name, name, len) == 0)
            return &options[i];
    return NULL;
}

/* Accepts "--name value" and "--name=value". Returns 0, or -1 after telling the
 * user what is wrong. */
static int options_parse(srv_options *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if (strcmp(a, "-h") == 0) /* as every subcommand of launchrank takes it */
            a = "--help", len = strlen(a);
        const srv_option *opt = strncmp(a, "--", 2) == 0 ? option_find(a, len) : NULL;
        if (!opt) {
            fprintf(stderr, "launchrank serve: unknown option '%s'\n", a);
            goto bad;
        }
        const char *value = NULL;
        if (opt->arg && eq) {
            value = eq + 1;
        } else if (opt->arg) {
            if (i + 1 >= argc) {
                fprintf(stderr, "launchrank serve: %s needs a value (%s)\n", opt->name,
                        opt->arg);
                goto bad;
            }
            value = argv[++i];
        } else if (eq) {
            fprintf(stderr, "launchrank serve: %s takes no value\n", opt->name);
            goto bad;
        }
        char why[200];
        if (opt->set(o, value, why, sizeof why)) {
            fprintf(stderr, "launchrank serve: %s: %s\n", opt->name, why);
            goto bad;
        }
    }
    if (o->no_cache)
        o->cfg.db_path = NULL;
    return 0;
bad:
    fprintf(stderr, "Try 'launchrank serve --help'.\n");
    return -1;
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
                             .cache_max = cfg->cache_max};
    s.api = lr_api_new(&api_cfg, &err);
    if (!s.api) {
        srv_log("launchrank: cannot start: %s", err.message);
        return SRV_EXIT_START_FAILED;
    }
    if (srv_http_start(&s, &err)) {
        srv_log("launchrank: cannot listen on %s: %s", o->listen, err.message);
        lr_api_free(s.api);
        return SRV_EXIT_START_FAILED;
    }
    unsigned port = srv_http_port(&s);
    if (cfg->port_file && write_port_file(cfg->port_file, port)) {
        srv_http_stop(&s, NULL);
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
    atomic_store(&s.cache_said, cache); /* note_cache logs changes from here on */
    free(db_abs);
    if (lr_api_devices_warning(s.api))
        srv_log("launchrank: warning: %s", lr_api_devices_warning(s.api));

    int sig = 0;
    while (sigwait(sigs, &sig) != 0)
        ;
    srv_log("launchrank: %s, shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
    srv_http_stop(&s, sigs);
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
    if (options_parse(&o, argc, argv))
        return SRV_EXIT_BAD_OPTIONS;
    if (o.help) {
        print_help(stdout);
        return SRV_EXIT_OK;
    }

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
