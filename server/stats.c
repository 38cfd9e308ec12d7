/*
 * stats.c: the counters behind GET /v1/stats. Every thread may bump them, so they
 * are C11 atomics with relaxed ordering: each is an independent tally, nothing is
 * synchronised through them, and a reader only needs each number to be whole.
 * Errors are counted per stable code name, as Redis counts its error replies.
 */
#include <time.h>

#include <cjson/cJSON.h>

#include "srv_int.h"

static void bump(atomic_uint_least64_t *counter)
{
    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

static double read_counter(const atomic_uint_least64_t *counter)
{
    /* cJSON numbers are doubles: exact up to 2^53 requests, which is plenty. */
    return (double)atomic_load_explicit((atomic_uint_least64_t *)counter, memory_order_relaxed);
}

void srv_stats_count_request(srv_stats *st, int route)
{
    bump(&st->requests_total);
    bump(route >= 0 && route < SRV_ROUTE_COUNT ? &st->by_route[route] : &st->unrouted);
}

void srv_stats_count_error(srv_stats *st, lr_code code)
{
    if (code < 0 || code >= LR_CODE_COUNT)
        code = LR_INTERNAL;
    bump(&st->errors[code]);
}

double srv_uptime_s(const srv_server *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - s->started.tv_sec) +
           (double)(now.tv_nsec - s->started.tv_nsec) / 1e9;
}

/* Adds every counter to root; 0 when cJSON ran out of memory. */
static int add_counters(cJSON *root, srv_server *s)
{
    const srv_stats *st = &s->stats;
    lr_api_stats cache;
    lr_api_get_stats(s->api, &cache);

    int ok = cJSON_AddNumberToObject(root, "requests_total",
                                     read_counter(&st->requests_total)) != NULL;
    cJSON *requests = cJSON_AddObjectToObject(root, "requests");
    cJSON *errors = cJSON_AddObjectToObject(root, "errors");
    cJSON *cache_obj = cJSON_AddObjectToObject(root, "cache");
    if (!ok || !requests || !errors || !cache_obj)
        return 0;
    for (int i = 0; i < SRV_ROUTE_COUNT; i++)
        ok &= cJSON_AddNumberToObject(requests, srv_route_label(i),
                                      read_counter(&st->by_route[i])) != NULL;
    ok &= cJSON_AddNumberToObject(requests, "other", read_counter(&st->unrouted)) != NULL;
    /* Every code appears, zeros included: clients and dashboards get a fixed shape. */
    for (int c = LR_OK + 1; c < LR_CODE_COUNT; c++) {
        double n = read_counter(&st->errors[c]);
        ok &= cJSON_AddNumberToObject(errors, lr_code_name(c), n) != NULL;
    }
    ok &= cJSON_AddStringToObject(cache_obj, "status", lr_api_cache_status(s->api)) != NULL;
    ok &= cJSON_AddNumberToObject(cache_obj, "hits", (double)cache.cache_hits) != NULL;
    ok &= cJSON_AddNumberToObject(cache_obj, "misses", (double)cache.cache_misses) != NULL;
    ok &= cJSON_AddNumberToObject(root, "inflight", atomic_load(&s->inflight)) != NULL;
    ok &= cJSON_AddNumberToObject(root, "workers", atomic_load(&s->live_workers)) != NULL;
    ok &= cJSON_AddNumberToObject(root, "threads", s->cfg->threads) != NULL;
    ok &= cJSON_AddNumberToObject(root, "uptime_s", srv_uptime_s(s)) != NULL;
    ok &= cJSON_AddStringToObject(root, "model_version", LR_MODEL_VERSION) != NULL;
    return ok;
}

srv_json srv_stats_json(srv_server *s, lr_error *err)
{
    srv_json out = {NULL, cJSON_free, NULL};
    cJSON *root = cJSON_CreateObject();
    if (root && add_counters(root, s))
        out.text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!out.text)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory while building the statistics");
    return out;
}
