/*
 * test_ops.c: what an operator relies on (issue 13, item 3), against the daemon
 * linked with fake_api.c:
 *   - GET /metrics parses as the Prometheus text exposition format (0.0.4) with the
 *     small parser below, written here so that the test does not trust the writer,
 *     and its counters move by exactly the requests the test sends;
 *   - the access log is Common Log Format (client address, timestamp, request line,
 *     status, bytes) followed by the duration;
 *   - a ranking cancelled by its client's hang-up is a 499 there and in /metrics,
 *     not a 503 (an overloaded daemon's answer);
 *   - --listen takes host names (localhost:0) and IPv6 ([::1]:0; skipped, saying so,
 *     where the sandbox has no IPv6 loopback), and pages of http://localhost:PORT
 *     are the daemon's own origin, and the Host names it is reached by are its own
 *     (others get 403);
 *   - a second daemon on a busy port says which port, and `serve -h` is --help.
 */
#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "check.h"
#include "api.h"
#include "daemon_client.h"

/* ---- a Prometheus text-format parser ----------------------------------------------- */

#define MAX_SAMPLES 2048
#define MAX_FAMILIES 128

typedef struct sample {
    char name[128];
    char labels[256]; /* name="value" pairs as written, "" without labels */
    double value;
} sample;

typedef struct family {
    char name[128];
    char type[16]; /* counter, gauge, histogram, summary, untyped */
    int has_help;
    int samples;
} family;

typedef struct metrics {
    sample s[MAX_SAMPLES];
    int n;
    family f[MAX_FAMILIES];
    int nf;
    char error[256]; /* the first violation of the format, "" when none */
} metrics;

static int is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

/* Reads a metric or label name at *p into out; 0 or -1. */
static int read_name(const char **p, char *out, size_t size, int label)
{
    size_t n = 0;
    if (!is_name_start(**p) || (label && **p == ':'))
        return -1;
    while (is_name_char(**p) && !(label && **p == ':')) {
        if (n + 1 >= size)
            return -1;
        out[n++] = *(*p)++;
    }
    out[n] = '\0';
    return 0;
}

/* A sample value: a float as Go's ParseFloat reads it, or +Inf, -Inf, NaN. */
static int read_value(const char **p, double *v)
{
    if (strncmp(*p, "+Inf", 4) == 0 || strncmp(*p, "-Inf", 4) == 0 ||
        strncmp(*p, "NaN", 3) == 0) {
        *v = **p == '-' ? -INFINITY : **p == '+' ? INFINITY : NAN;
        *p += **p == 'N' ? 3 : 4;
        return 0;
    }
    char *end;
    *v = strtod(*p, &end);
    if (end == *p)
        return -1;
    *p = end;
    return 0;
}

/* The family a sample name belongs to: a histogram's _bucket, _sum and _count
 * samples belong to the histogram. */
static family *family_of(metrics *m, const char *name)
{
    for (int i = 0; i < m->nf; i++) {
        size_t n = strlen(m->f[i].name);
        if (strncmp(name, m->f[i].name, n) != 0)
            continue;
        const char *rest = name + n;
        if (!*rest ||
            (strcmp(m->f[i].type, "histogram") == 0 &&
             (!strcmp(rest, "_bucket") || !strcmp(rest, "_sum") || !strcmp(rest, "_count"))))
            return &m->f[i];
    }
    return NULL;
}

static int fail(metrics *m, int line, const char *why)
{
    if (!m->error[0])
        snprintf(m->error, sizeof m->error, "line %d: %s", line, why);
    return -1;
}

/* "# HELP name text" or "# TYPE name type"; other comments are allowed. */
static int parse_comment(metrics *m, int line, const char *p, const char **current)
{
    int help = strncmp(p, "# HELP ", 7) == 0, type = strncmp(p, "# TYPE ", 7) == 0;
    if (!help && !type)
        return 0;
    p += 7;
    char name[128];
    if (read_name(&p, name, sizeof name, 0) || *p != ' ')
        return fail(m, line, "a HELP or TYPE line without a metric name");
    p++;
    family *f = NULL;
    for (int i = 0; i < m->nf; i++)
        if (strcmp(m->f[i].name, name) == 0)
            f = &m->f[i];
    if (!f) {
        if (m->nf == MAX_FAMILIES)
            return fail(m, line, "too many metric families");
        f = &m->f[m->nf++];
        snprintf(f->name, sizeof f->name, "%s", name);
    } else if (f->samples) {
        return fail(m, line, "HELP or TYPE after the family's samples");
    }
    if (help) {
        if (f->has_help++)
            return fail(m, line, "a second HELP line");
    } else {
        if (f->type[0])
            return fail(m, line, "a second TYPE line");
        if (strcmp(p, "counter") && strcmp(p, "gauge") && strcmp(p, "histogram") &&
            strcmp(p, "summary") && strcmp(p, "untyped"))
            return fail(m, line, "an unknown TYPE");
        snprintf(f->type, sizeof f->type, "%s", p);
    }
    *current = f->name;
    return 0;
}

/* {a="x",b="y\"z"}: label names, quoted values with \\, \" and \n escapes. */
static int parse_labels(metrics *m, int line, const char **pp, char *out, size_t size)
{
    const char *p = *pp;
    size_t n = 0;
    out[0] = '\0';
    if (*p != '{')
        return 0;
    p++;
    while (*p != '}') {
        char label[64];
        if (read_name(&p, label, sizeof label, 1) || *p++ != '=' || *p++ != '"')
            return fail(m, line, "a label that is not name=\"value\"");
        n += (size_t)snprintf(out + n, size - n, "%s%s=\"", n ? "," : "", label);
        for (; *p != '"'; p++) {
            if (!*p)
                return fail(m, line, "an unterminated label value");
            if (*p == '\\') {
                p++;
                if (*p != '\\' && *p != '"' && *p != 'n')
                    return fail(m, line, "a label value with an unknown escape");
            }
            if (n + 3 < size)
                out[n++] = *p;
        }
        p++;
        n += (size_t)snprintf(out + n, size - n, "\"");
        if (n >= size)
            return fail(m, line, "labels too long for the test");
        if (*p == ',')
            p++;
        else if (*p != '}')
            return fail(m, line, "labels not separated by commas");
    }
    *pp = p + 1;
    return 0;
}

static int parse_sample(metrics *m, int line, const char *p, const char *current)
{
    if (m->n == MAX_SAMPLES)
        return fail(m, line, "too many samples");
    sample *s = &m->s[m->n];
    if (read_name(&p, s->name, sizeof s->name, 0))
        return fail(m, line, "a sample without a valid metric name");
    if (parse_labels(m, line, &p, s->labels, sizeof s->labels))
        return -1;
    if (*p++ != ' ' || read_value(&p, &s->value))
        return fail(m, line, "a sample without a value");
    if (*p == ' ') { /* an optional timestamp in milliseconds */
        p++;
        strtoll(p, (char **)&p, 10);
    }
    if (*p)
        return fail(m, line, "text after the value");
    family *f = family_of(m, s->name);
    if (!f || !f->type[0])
        return fail(m, line, "a sample before its TYPE line");
    if (!current || strcmp(current, f->name) != 0)
        return fail(m, line, "a family's samples are not together");
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->s[i].name, s->name) && !strcmp(m->s[i].labels, s->labels))
            return fail(m, line, "the same series twice");
    if (!strcmp(f->type, "counter") && !(s->value >= 0))
        return fail(m, line, "a counter below zero");
    f->samples++;
    m->n++;
    return 0;
}

/* The value of series name{labels}, or -1 when absent (every value checked here is
 * >= 0). */
static double metric(const metrics *m, const char *name, const char *labels)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->s[i].name, name) && !strcmp(m->s[i].labels, labels))
            return m->s[i].value;
    return -1;
}

/* The labels of a histogram sample without its le="..." (the last label we write,
 * but found wherever it is). */
static void without_le(const char *labels, char *out, size_t size, double *le)
{
    const char *at = strstr(labels, "le=\"");
    *le = NAN;
    if (!at) {
        snprintf(out, size, "%s", labels);
        return;
    }
    const char *end = strchr(at + 4, '"');
    const char *v = at + 4;
    read_value(&v, le);
    size_t head = (size_t)(at - labels);
    if (head && labels[head - 1] == ',')
        head--;
    snprintf(out, size, "%.*s%s", (int)head, labels,
             end[1] == ',' && !head ? end + 2 : end + 1);
}

/* Histograms: buckets in increasing le, counts that never decrease, a +Inf bucket
 * equal to _count. */
static void check_histograms(metrics *m)
{
    for (int i = 0; i < m->n; i++) {
        size_t n = strlen(m->s[i].name);
        if (n < 7 || strcmp(m->s[i].name + n - 7, "_bucket") != 0)
            continue;
        char series[256], base[128];
        double le;
        without_le(m->s[i].labels, series, sizeof series, &le);
        snprintf(base, sizeof base, "%.*s", (int)(n - 7), m->s[i].name);
        /* the next bucket of the same series, if any, must be further along */
        for (int j = i + 1; j < m->n; j++) {
            if (strcmp(m->s[j].name, m->s[i].name) != 0)
                continue;
            char other[256];
            double le2;
            without_le(m->s[j].labels, other, sizeof other, &le2);
            if (strcmp(other, series) != 0)
                continue;
            if (!(le2 > le) || m->s[j].value < m->s[i].value)
                fail(m, 0, "histogram buckets out of order or decreasing");
            break;
        }
        if (isinf(le)) {
            char count[160];
            snprintf(count, sizeof count, "%s_count", base);
            if (metric(m, count, series) != m->s[i].value)
                fail(m, 0, "a +Inf bucket that differs from _count");
        }
    }
}

/* Parses text; 0, or -1 with m->error saying what is wrong. */
static int metrics_parse(metrics *m, char *text)
{
    memset(m, 0, sizeof *m);
    size_t len = strlen(text);
    if (!len || text[len - 1] != '\n')
        return fail(m, 0, "the text does not end with a newline");
    const char *current = NULL;
    int line = 0;
    for (char *p = text, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        *nl = '\0';
        line++;
        int rc = !*p         ? 0
                 : *p == '#' ? parse_comment(m, line, p, &current)
                             : parse_sample(m, line, p, current);
        if (rc)
            return -1;
    }
    check_histograms(m);
    return m->error[0] ? -1 : 0;
}

/* GET /metrics, parsed into *m; 0 or -1 (with a failed check). */
static int scrape(unsigned port, metrics *m)
{
    http_resp r;
    char ct[96];
    int rc = http_get(port, "/metrics", &r);
    CHECK_INT(rc, 0);
    CHECK_INT(r.status, 200);
    CHECK_STR(header(&r, "Content-Type", ct, sizeof ct),
              "text/plain; version=0.0.4; charset=utf-8");
    rc = rc == 0 && r.status == 200 ? metrics_parse(m, r.body) : -1;
    if (rc)
        fprintf(stderr, "/metrics does not parse: %s\n", m->error);
    CHECK_INT(rc, 0);
    http_resp_free(&r);
    return rc;
}

/* ---- the cases ------------------------------------------------------------------------ */

/* The parser refuses what the format forbids: it can fail. */
static void test_parser_refuses_bad_text(void)
{
    static const char *const bad[] = {
        "x 1\n",                                                    /* no TYPE */
        "# TYPE x counter\nx 1",                                    /* no final newline */
        "# TYPE x counter\nx{a=\"1} 1\n",                           /* unterminated value */
        "# TYPE x counter\nx{a=1} 1\n",                             /* unquoted value */
        "# TYPE x counter\nx -1\n",                                 /* counter below zero */
        "# TYPE x counter\nx 1\nx 2\n",                             /* the same series twice */
        "# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a=\"b\"} 1\n", /* split family */
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",
        "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 3\n",
        "# TYPE x frobnicator\nx 1\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        static metrics m;
        char text[256];
        snprintf(text, sizeof text, "%s", bad[i]);
        CHECK_INT(metrics_parse(&m, text), -1);
    }
    static metrics m;
    char good[] = "# HELP x a counter\n# TYPE x counter\nx{a=\"q\\\"\",b=\"\"} 3 1700000000\n"
                  "# TYPE h histogram\nh_bucket{r=\"a\",le=\"0.5\"} 1\n"
                  "h_bucket{r=\"a\",le=\"+Inf\"} 2\nh_sum{r=\"a\"} 0.75\nh_count{r=\"a\"} 2\n";
    CHECK_INT(metrics_parse(&m, good), 0);
    CHECK_NEAR(metric(&m, "x", "a=\"q\"\",b=\"\""), 3, 0, 0);
    CHECK_NEAR(metric(&m, "h_count", "r=\"a\""), 2, 0, 0);
}

/* What the test sends between two scrapes, and what must have moved by exactly
 * that much. The fake api answers {} with 200 and counts one cache miss (and so one
 * configuration evaluated); "not json" is invalid_json (400). */
static void test_metrics_move(unsigned port)
{
    static metrics before, after;
    if (scrape(port, &before))
        return;
    http_resp r;
    for (int i = 0; i < 3; i++) {
        CHECK_INT(http_get(port, "/healthz", &r), 0);
        CHECK_INT(r.status, 200);
        http_resp_free(&r);
    }
    for (int i = 0; i < 2; i++) {
        CHECK_INT(http_post(port, "/v1/estimate", "{}", &r), 0);
        CHECK_INT(r.status, 200);
        http_resp_free(&r);
    }
    CHECK_INT(http_post(port, "/v1/estimate", "not json", &r), 0);
    CHECK_INT(r.status, 400);
    http_resp_free(&r);
    CHECK_INT(http_get(port, "/no/such/path", &r), 0);
    CHECK_INT(r.status, 404);
    http_resp_free(&r);
    if (scrape(port, &after))
        return;

    static const struct {
        const char *name, *labels;
        double delta;
    } moved[] = {
        {"launchrank_http_requests_total", "route=\"GET /healthz\",code=\"200\"", 3},
        {"launchrank_http_requests_total", "route=\"POST /v1/estimate\",code=\"200\"", 2},
        {"launchrank_http_requests_total", "route=\"POST /v1/estimate\",code=\"400\"", 1},
        {"launchrank_http_requests_total", "route=\"other\",code=\"404\"", 1},
        {"launchrank_http_request_duration_seconds_count", "route=\"GET /healthz\"", 3},
        {"launchrank_http_request_duration_seconds_bucket",
         "route=\"GET /healthz\",le=\"+Inf\"", 3},
        {"launchrank_http_request_duration_seconds_count", "route=\"POST /v1/estimate\"", 3},
        {"launchrank_errors_total", "code=\"invalid_json\"", 1},
        {"launchrank_errors_total", "code=\"not_found\"", 1},
        {"launchrank_errors_total", "code=\"budget_exceeded\"", 0},
        {"launchrank_route_errors_total", "route=\"POST /v1/estimate\",code=\"invalid_json\"",
         1},
        {"launchrank_route_errors_total", "route=\"other\",code=\"not_found\"", 1},
        {"launchrank_cache_misses_total", "", 2},
        {"launchrank_cache_hits_total", "", 0},
        {"launchrank_configurations_evaluated_total", "", 2},
        {"launchrank_measurements_total", "", 0},
    };
    for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++) {
        double a = metric(&after, moved[i].name, moved[i].labels);
        double b = metric(&before, moved[i].name, moved[i].labels);
        if (b < 0 && moved[i].delta > 0)
            b = 0; /* a series appears with its first request */
        if (a < 0 || b < 0 || a - b != moved[i].delta)
            fprintf(stderr, "%s{%s}: %g -> %g, want +%g\n", moved[i].name, moved[i].labels, b,
                    a, moved[i].delta);
        CHECK(a >= 0 && b >= 0 && a - b == moved[i].delta);
    }
    /* The first scrape was counted when it completed, before the second began. */
    CHECK(metric(&after, "launchrank_http_requests_total",
                 "route=\"GET /metrics\",code=\"200\"") >= 1);
    /* Three healthz answers of a fake api take well under 10 s each. */
    double sum = metric(&after, "launchrank_http_request_duration_seconds_sum",
                        "route=\"GET /healthz\"");
    CHECK(sum >= 0 && sum < 30);
    CHECK_NEAR(metric(&after, "launchrank_http_request_duration_seconds_bucket",
                      "route=\"GET /healthz\",le=\"10\""),
               metric(&after, "launchrank_http_request_duration_seconds_count",
                      "route=\"GET /healthz\""),
               0, 0);
    CHECK_NEAR(metric(&after, "launchrank_queue_depth", ""), 0, 0, 0);
    CHECK_NEAR(metric(&after, "launchrank_queue_capacity", ""), 256, 0, 0);
    CHECK_NEAR(metric(&after, "launchrank_compute_threads", ""), 2, 0, 0);
    CHECK_NEAR(metric(&after, "launchrank_cache_healthy", ""), 1, 0, 0);
    CHECK(metric(&after, "launchrank_uptime_seconds", "") >= 0);
    CHECK_NEAR(
        metric(&after, "launchrank_model_info", "model_version=\"" LR_MODEL_VERSION "\""), 1, 0,
        0);
}

/* 127.0.0.1 - - [22/Nov/2026:21:41:58 +0000] "GET /healthz HTTP/1.1" 200 76 0.4ms:
 * every line of the access log, from client, with a timestamp within a minute of now;
 * each /healthz line with the bytes its client received (the same body each time). */
static void test_access_log(const char *log, const char *client, size_t healthz_bytes)
{
    regex_t re;
    const char *pattern =
        "^([0-9a-f.:]+) - - \\[([0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:"
        "[0-9]{2}:[0-9]{2} [+-][0-9]{4})\\] \"([A-Z]+) ([^ \"]+) "
        "(HTTP/1\\.[01])\" ([0-9]{3}|-) ([0-9]+|-) [0-9]+\\.[0-9]ms( \\(.*\\))?$";
    CHECK_INT(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE), 0);
    int lines = 0, healthz = 0;
    time_t now = time(NULL);
    for (const char *p = log; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        p += n + (nl != NULL);
        if (strncmp(line, "launchrank", 10) == 0)
            continue; /* the daemon's own messages */
        lines++;
        regmatch_t g[9];
        int ok = regexec(&re, line, 9, g, 0) == 0;
        if (!ok)
            fprintf(stderr, "not Common Log Format: %s\n", line);
        CHECK(ok);
        if (!ok)
            continue;
        CHECK_INT(strncmp(line + g[1].rm_so, client, strlen(client)), 0);
        struct tm tm = {0};
        char *end = strptime(line + g[2].rm_so, "%d/%b/%Y:%H:%M:%S %z", &tm);
        CHECK(end == line + g[2].rm_eo);
        long offset = tm.tm_gmtoff; /* before timegm, which resets it */
        time_t t = timegm(&tm) - offset;
        CHECK(t > now - 60 && t <= now + 1);
        if (strncmp(line + g[4].rm_so, "/healthz ", 9) == 0) {
            healthz++;
            CHECK_INT(strtol(line + g[6].rm_so, NULL, 10), 200);
            CHECK_INT(strtol(line + g[7].rm_so, NULL, 10), (long)healthz_bytes);
        }
    }
    CHECK(lines >= 1);
    CHECK(healthz >= 1);
    regfree(&re);
}

/* GET /healthz to ip:port (Host: host): 200; returns the body's length. */
static size_t healthz_at(const char *ip, const char *host, unsigned port, const char *origin)
{
    char req[256];
    snprintf(req, sizeof req,
             "GET /healthz HTTP/1.1\r\nHost: %s:%u\r\n%s%s%sConnection: close\r\n\r\n", host,
             port, origin ? "Origin: " : "", origin ? origin : "", origin ? "\r\n" : "");
    http_resp r;
    CHECK_INT(http_raw_at(ip, port, req, strlen(req), &r), 0);
    CHECK_INT(r.status, 200);
    size_t n = r.body_len;
    http_resp_free(&r);
    return n;
}

/* The address a daemon logged it listens on by name: "listening on
 * http://localhost:PORT (ADDR)". */
static int logged_address(const char *log_file, char *ip, size_t size)
{
    for (int tries = 0; tries < 100; tries++) {
        char *log = read_file(log_file);
        const char *at = log ? strstr(log, "listening on http://localhost:") : NULL;
        const char *open = at ? strstr(at, " (") : NULL;
        if (open) {
            open += 2;
            if (*open == '[')
                open++;
            size_t n = strcspn(open, "]) ");
            snprintf(ip, size, "%.*s", (int)n, open);
            free(log);
            return 0;
        }
        free(log);
        sleep_ms(10);
    }
    return -1;
}

static int stop(daemon_proc *d)
{
    kill(d->pid, SIGTERM);
    int status = wait_exit(d->pid, 10);
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* GET path on ip:port with the Host header host: the status (0 when no answer). */
static int status_with_host(const char *ip, unsigned port, const char *path, const char *host)
{
    char req[256];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path,
             host);
    http_resp r;
    http_raw_at(ip, port, req, strlen(req), &r);
    int status = r.status;
    http_resp_free(&r);
    return status;
}

/* A ranking whose client hangs up is cancelled (server/pool.c); it used to be counted
 * as a 503 "unavailable", which reads as an overloaded daemon. Now it is code 499
 * (nginx's "client closed request") in launchrank_http_requests_total and the access
 * log, with no error counted and no 5xx line logged. The fake ranking sleeps 5 s and
 * asks its hooks every 10 ms whether it is cancelled, as estimator/rank.c asks before
 * each configuration. */
static void test_hang_up_counts_as_499_not_503(void)
{
    daemon_proc d;
    const char *const opts[] = {"--no-cache", "--threads", "1", NULL};
    CHECK_INT(daemon_start(&d, "hang_up", opts), 0);
    static metrics before, after;
    if (scrape(d.port, &before))
        return;
    int fd = http_send(d.port, "POST", "/v1/rank", "{\"sleep_ms\":5000}");
    CHECK(fd >= 0);
    sleep_ms(200); /* the ranking runs */
    double hung_up = now_s();
    close(fd);
    static const char rank499[] = "route=\"POST /v1/rank\",code=\"499\"";
    double counted = -1;
    while (counted < 1 && now_s() - hung_up < 3) {
        sleep_ms(20);
        if (scrape(d.port, &after))
            return;
        counted = metric(&after, "launchrank_http_requests_total", rank499);
    }
    CHECK_NEAR(counted, 1, 0, 0);
    CHECK(now_s() - hung_up < 3); /* cancelled, not slept to its end */
    CHECK_NEAR(metric(&after, "launchrank_http_requests_total",
                      "route=\"POST /v1/rank\",code=\"503\""),
               -1, 0, 0); /* no such series */
    CHECK_NEAR(metric(&after, "launchrank_errors_total", "code=\"unavailable\""),
               metric(&before, "launchrank_errors_total", "code=\"unavailable\""), 0, 0);
    CHECK_NEAR(metric(&after, "launchrank_route_errors_total",
                      "route=\"POST /v1/rank\",code=\"unavailable\""),
               -1, 0, 0);
    /* its duration is counted like any request's: the 0.2 s it ran, not 5 s */
    CHECK_NEAR(metric(&after, "launchrank_http_request_duration_seconds_count",
                      "route=\"POST /v1/rank\""),
               1, 0, 0);
    CHECK(metric(&after, "launchrank_http_request_duration_seconds_sum",
                 "route=\"POST /v1/rank\"") < 3);
    CHECK_INT(stop(&d), 0);
    char *log = read_file(d.log_file);
    CHECK_CONTAINS(log, "\"POST /v1/rank HTTP/1.1\" 499 - ");
    CHECK_CONTAINS(log, "ms (client closed)\n");
    CHECK(log && !strstr(log, "unavailable")); /* no 5xx line */
    free(log);
}

/* --listen localhost:0: served on the address the name resolves to, pages of
 * http://localhost:PORT are ours, others still 403; Host localhost:PORT and the
 * bound address are ours, another name is refused (403); /metrics and the access
 * log. */
static void test_host_name(void)
{
    daemon_proc d;
    /* the fake api reports a --db cache "ok" without creating a file */
    const char *const opts[] = {"--listen",  "localhost:0", "--db", "cache.sqlite",
                                "--threads", "2",           NULL};
    CHECK_INT(daemon_start(&d, "localhost", opts), 0);
    char ip[64];
    CHECK_INT(logged_address(d.log_file, ip, sizeof ip), 0);
    size_t healthz_bytes = healthz_at(ip, "localhost", d.port, NULL);
    CHECK(healthz_bytes > 10);
    char origin[64], req[256], host[96];
    snprintf(host, sizeof host, "LocalHost:%u", d.port); /* names are case-insensitive */
    CHECK_INT(status_with_host(ip, d.port, "/v1/devices", host), 200);
    snprintf(host, sizeof host, strchr(ip, ':') ? "[%s]:%u" : "%s:%u", ip, d.port);
    CHECK_INT(status_with_host(ip, d.port, "/v1/devices", host), 200);
    snprintf(host, sizeof host, "evil.example:%u", d.port);
    CHECK_INT(status_with_host(ip, d.port, "/v1/devices", host), 403);
    snprintf(origin, sizeof origin, "http://localhost:%u", d.port);
    snprintf(req, sizeof req,
             "GET /v1/devices HTTP/1.1\r\nHost: localhost:%u\r\nOrigin: %s\r\n\r\n", d.port,
             origin);
    http_resp r;
    CHECK_INT(http_raw_at(ip, d.port, req, strlen(req), &r), 0);
    CHECK_INT(r.status, 200);
    http_resp_free(&r);
    snprintf(req, sizeof req,
             "GET /v1/devices HTTP/1.1\r\nHost: localhost:%u\r\nOrigin: "
             "http://evil.example\r\n\r\n",
             d.port);
    CHECK_INT(http_raw_at(ip, d.port, req, strlen(req), &r), 0);
    CHECK_INT(r.status, 403);
    http_resp_free(&r);
    if (strcmp(ip, "127.0.0.1") == 0)
        test_metrics_move(d.port);
    else
        fprintf(stderr, "localhost is %s here: /metrics is tested on 127.0.0.1\n", ip);
    CHECK_INT(stop(&d), 0);
    char *log = read_file(d.log_file);
    test_access_log(log, ip, healthz_bytes);
    free(log);
}

/* --listen [::1]:0, where the sandbox has an IPv6 loopback. */
static void test_ipv6(void)
{
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (!ok) {
        fprintf(stderr, "skipping --listen [::1]:0: no IPv6 loopback here (%s)\n", strerror(e));
        return;
    }
    daemon_proc d;
    const char *const opts[] = {"--listen", "[::1]:0", "--no-cache", NULL};
    CHECK_INT(daemon_start(&d, "ipv6", opts), 0);
    char origin[64];
    snprintf(origin, sizeof origin, "http://[::1]:%u", d.port);
    size_t n = healthz_at("::1", "[::1]", d.port, origin);
    char host[64];
    snprintf(host, sizeof host, "[::1]:%u", d.port);
    CHECK_INT(status_with_host("::1", d.port, "/v1/devices", host), 200);
    snprintf(host, sizeof host, "localhost:%u", d.port); /* a loopback address */
    CHECK_INT(status_with_host("::1", d.port, "/v1/devices", host), 200);
    snprintf(host, sizeof host, "[::2]:%u", d.port);
    CHECK_INT(status_with_host("::1", d.port, "/v1/devices", host), 403);
    CHECK_INT(stop(&d), 0);
    char *log = read_file(d.log_file);
    char want[96];
    snprintf(want, sizeof want, "listening on http://[::1]:%u ", d.port);
    CHECK_CONTAINS(log, want);
    test_access_log(log, "::1", n);
    free(log);
}

/* A second daemon on the port of the first names the port; -h is --help; names that
 * do not resolve and short IPv4 forms are bad options. */
static void test_busy_port_and_options(void)
{
    daemon_proc d;
    const char *const opts[] = {"--no-cache", "--quiet", NULL};
    CHECK_INT(daemon_start(&d, "first", opts), 0);
    char listen[32];
    snprintf(listen, sizeof listen, "127.0.0.1:%u", d.port);
    char *second[] = {"serve", "--listen", listen, "--no-cache", NULL};
    CHECK_INT(run_srv_main("second", second), 1);
    char path[160], want[128];
    snprintf(path, sizeof path, "%s/second.log", tmpdir);
    char *log = read_file(path);
    snprintf(want, sizeof want, "port %u is already in use on 127.0.0.1", d.port);
    CHECK_CONTAINS(log, want);
    free(log);
    CHECK_INT(stop(&d), 0);

    char *h[] = {"serve", "-h", NULL};
    CHECK_INT(run_srv_main("short_help", h), 0);
    snprintf(path, sizeof path, "%s/short_help.out", tmpdir);
    char *text = read_file(path);
    CHECK_CONTAINS(text, "Usage: launchrank serve [OPTIONS]");
    CHECK_CONTAINS(text, "--listen HOST:PORT");
    CHECK_CONTAINS(text, "GET  /metrics");
    free(text);

    /* (no unresolvable name: without a network, the resolver may take its time) */
    static const char *const bad[] = {"1.2.3:8080", "::1:8080", "[localhost]:8080",
                                      "localhost:", "localhost:99999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[] = {"serve", "--listen", (char *)bad[i], "--no-cache", NULL};
        CHECK_INT(run_srv_main("bad_listen", argv), 2);
    }
}

int main(void)
{
    if (test_begin("test_ops"))
        return 77;
    /* The access log's timestamps are local time with their offset: any zone works,
     * one far from UTC shows that the offset is right. */
    setenv("TZ", "America/St_Johns", 1);
    tzset();
    test_parser_refuses_bad_text();
    test_busy_port_and_options();
    test_host_name();
    test_hang_up_counts_as_499_not_503();
    test_ipv6();
    return test_end(
        check_report("daemon_serves_metrics_access_log_and_host_names_for_operators"));
}
