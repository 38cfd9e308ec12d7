/*
 * stats.c: GET /v1/stats, the counters (counts.c bumps them) as JSON for people and
 * scripts. Errors are listed per stable code name, as Redis counts its error replies.
 */
#include <time.h>

#include <cjson/cJSON.h>

#include "srv_int.h"

static double read_counter(const atomic_uint_least64_t *counter)
{
    /* cJSON numbers are doubles: exact up to 2^53 requests, which is plenty. */
    return (double)atomic_load_explicit((atomic_uint_least64_t *)counter, memory_order_relaxed);
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
    srv_json out = {NULL, cJSON_free, NULL, 0, 0};
    cJSON *root = cJSON_CreateObject();
    if (root && add_counters(root, s))
        out.text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!out.text)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory while building the statistics");
    return out;
}
