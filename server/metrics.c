/*
 * metrics.c: GET /metrics, every counter of the daemon in the Prometheus text
 * exposition format (version 0.0.4: "# HELP", "# TYPE", then one `name{labels} value`
 * line per series), so that a Prometheus server, or anything that reads its format,
 * scrapes the daemon without an exporter. /v1/stats stays the JSON view for people
 * and scripts; both read the same atomics (counts.c counts requests, errors, answers by
 * route and status and their latency; the api counts cache hits, configurations and
 * measurements). docs/operations.md lists the metrics.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv_int.h"

static uint64_t get(const atomic_uint_least64_t *counter)
{
    return atomic_load_explicit((atomic_uint_least64_t *)counter, memory_order_relaxed);
}

/* The text being written: grows as needed; failed once it could not. */
typedef struct text_buf {
    char *text;
    size_t len, cap;
    int failed;
} text_buf;

static void put(text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text_buf *b, const char *fmt, ...)
{
    for (int attempt = 0; attempt < 2 && !b->failed; attempt++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->text ? b->text + b->len : NULL, b->text ? b->cap - b->len : 0, fmt,
                          ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
        } else if (b->text && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        } else {
            size_t cap = (b->cap ? b->cap * 2 : 16384) + (size_t)n;
            char *grown = realloc(b->text, cap);
            if (!grown)
                b->failed = 1;
            else
                b->text = grown, b->cap = cap;
        }
    }
}

/* "# HELP" and "# TYPE" of a metric. */
static void head(text_buf *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A metric with one series and no labels. */
static void single(text_buf *b, const char *name, const char *type, const char *help,
                   double value)
{
    head(b, name, type, help);
    put(b, "%s %.17g\n", name, value);
}

/* Route labels are our own table's ("POST /v1/rank"): no quote or backslash to
 * escape. Index SRV_ROUTE_COUNT is "other" (404 and 405). */
static const char *route_label(int r)
{
    return r < SRV_ROUTE_COUNT ? srv_route_label(r) : "other";
}

static void put_requests(text_buf *b, const srv_stats *st)
{
    head(b, "launchrank_http_requests_total", "counter",
         "Requests completed, by route and HTTP status (code 0: no answer was sent, the "
         "client left or was cut off first; 499: the client closed the connection while "
         "its estimate or ranking waited or ran, which cancelled it).");
    for (int r = 0; r <= SRV_ROUTE_COUNT; r++)
        for (int i = 0; i < SRV_STATUS_SLOTS; i++) {
            uint64_t n = get(&st->responses[r][i]);
            if (!n)
                continue; /* a series appears with its first request */
            if (i < SRV_STATUS_SLOTS - 1)
                put(b, "launchrank_http_requests_total{route=\"%s\",code=\"%u\"} %llu\n",
                    route_label(r), srv_status_slots[i], (unsigned long long)n);
            else
                put(b, "launchrank_http_requests_total{route=\"%s\",code=\"other\"} %llu\n",
                    route_label(r), (unsigned long long)n);
        }
}

static void put_latency(text_buf *b, const srv_stats *st)
{
    head(b, "launchrank_http_request_duration_seconds", "histogram",
         "Seconds from a request's headers to the end of its answer, by route.");
    for (int r = 0; r <= SRV_ROUTE_COUNT; r++) {
        uint64_t count = 0;
        for (int i = 0; i <= SRV_LATENCY_BUCKETS; i++)
            count += get(&st->latency[r][i]);
        if (!count)
            continue;
        const char *route = route_label(r);
        uint64_t cumulative = 0;
        for (int i = 0; i < SRV_LATENCY_BUCKETS; i++) {
            cumulative += get(&st->latency[r][i]);
            put(b,
                "launchrank_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} "
                "%llu\n",
                route, srv_latency_bounds[i], (unsigned long long)cumulative);
        }
        put(b,
            "launchrank_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n"
            "launchrank_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n"
            "launchrank_http_request_duration_seconds_count{route=\"%s\"} %llu\n",
            route, (unsigned long long)count, route, (double)get(&st->latency_us[r]) / 1e6,
            route, (unsigned long long)count);
    }
}

static void put_errors(text_buf *b, const srv_stats *st)
{
    head(b, "launchrank_errors_total", "counter",
         "Error answers by their error code (the \"code\" of the error body); every code "
         "is listed, zeros included.");
    for (int c = LR_OK + 1; c < LR_CODE_COUNT; c++)
        put(b, "launchrank_errors_total{code=\"%s\"} %llu\n", lr_code_name(c),
            (unsigned long long)get(&st->errors[c]));
}

static void put_route_errors(text_buf *b, const srv_stats *st)
{
    head(b, "launchrank_route_errors_total", "counter",
         "Error answers by route and error code; a series appears with its first error.");
    for (int r = 0; r <= SRV_ROUTE_COUNT; r++)
        for (int c = LR_OK + 1; c < LR_CODE_COUNT; c++) {
            uint64_t n = get(&st->route_errors[r][c]);
            if (n)
                put(b, "launchrank_route_errors_total{route=\"%s\",code=\"%s\"} %llu\n",
                    route_label(r), lr_code_name(c), (unsigned long long)n);
        }
}

static void put_all(text_buf *b, srv_server *s)
{
    lr_api_stats api;
    lr_api_get_stats(s->api, &api);
    put_requests(b, &s->stats);
    put_latency(b, &s->stats);
    put_errors(b, &s->stats);
    put_route_errors(b, &s->stats);
    single(b, "launchrank_cache_hits_total", "counter",
           "Configurations answered from the prediction cache.", (double)api.cache_hits);
    single(b, "launchrank_cache_misses_total", "counter",
           "Configurations looked up in the prediction cache and not found (or not "
           "trusted).",
           (double)api.cache_misses);
    single(b, "launchrank_cache_healthy", "gauge",
           "1 while the prediction cache works, 0 when it is off or failing (/healthz says "
           "why).",
           strcmp(lr_api_cache_status(s->api), "ok") == 0 ? 1 : 0);
    single(b, "launchrank_configurations_evaluated_total", "counter",
           "Launch configurations the model computed (cache hits not included).",
           (double)api.configurations_evaluated);
    single(b, "launchrank_measurements_total", "counter",
           "Launch configurations compiled and timed on a GPU.", (double)api.measurements);
    single(b, "launchrank_queue_depth", "gauge",
           "Estimates and rankings waiting for a compute thread.", srv_pool_depth(s));
    single(b, "launchrank_queue_capacity", "gauge",
           "Jobs the queue holds; beyond it requests get 503.", SRV_QUEUE_MAX);
    single(b, "launchrank_requests_in_flight", "gauge",
           "Requests whose headers arrived and whose answer is not sent yet.",
           atomic_load(&s->inflight));
    single(b, "launchrank_compute_threads", "gauge",
           "Threads computing estimates and rankings (--threads).", s->cfg->threads);
    single(b, "launchrank_uptime_seconds", "gauge", "Seconds since the daemon started.",
           srv_uptime_s(s));
    head(b, "launchrank_model_info", "gauge",
         "Always 1; the model_version label is the version every answer carries.");
    put(b, "launchrank_model_info{model_version=\"%s\"} 1\n", LR_MODEL_VERSION);
}

srv_json srv_metrics_text(srv_server *s, lr_error *err)
{
    text_buf b = {0};
    put_all(&b, s);
    if (b.failed) {
        free(b.text);
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory while writing the metrics");
        return (srv_json){NULL, free, NULL, 0, 0};
    }
    return (srv_json){b.text, free, "text/plain; version=0.0.4; charset=utf-8", 0, 0};
}
