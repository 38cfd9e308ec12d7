/*
 * counts.c: the daemon's counters, bumped by every thread that answers (http.c,
 * respond.c) and read by /v1/stats (stats.c) and /metrics (metrics.c). They are C11
 * atomics with relaxed ordering: each is an independent tally, nothing is
 * synchronised through them, and a reader only needs each number to be whole. Kept
 * apart from the two readers so that answering depends on counting only, never on
 * what renders the counts (which asks the pool for its queue).
 */
#include "srv_int.h"

/* The statuses counted apart, in slot order; any other lands in the last slot.
 * 0 is a request that got no answer (the client left, or a receive deadline cut it);
 * 499 an estimate or ranking its client cancelled by closing the connection. */
const unsigned srv_status_slots[SRV_STATUS_SLOTS - 1] = {
    0, 200, 204, 400, 403, 404, 405, 413, 415, 422, SRV_STATUS_CLIENT_CLOSED, 500, 503};

/* Upper bounds of the latency buckets, in seconds: a cached estimate answers in well
 * under a millisecond, a ranking in tens of milliseconds to seconds, and --time-limit
 * (30 s by default) bounds computing, so 1 ms .. 60 s covers every answer. */
const double srv_latency_bounds[SRV_LATENCY_BUCKETS] = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

static void bump(atomic_uint_least64_t *counter, uint64_t by)
{
    atomic_fetch_add_explicit(counter, by, memory_order_relaxed);
}

void srv_stats_count_request(srv_stats *st, int route)
{
    bump(&st->requests_total, 1);
    bump(route >= 0 && route < SRV_ROUTE_COUNT ? &st->by_route[route] : &st->unrouted, 1);
}

void srv_stats_count_error(srv_stats *st, lr_code code)
{
    if (code < 0 || code >= LR_CODE_COUNT)
        code = LR_INTERNAL;
    bump(&st->errors[code], 1);
}

void srv_stats_count_response(srv_stats *st, int route, unsigned status, double seconds)
{
    int r = route >= 0 && route < SRV_ROUTE_COUNT ? route : SRV_ROUTE_COUNT;
    int slot = SRV_STATUS_SLOTS - 1;
    for (int i = 0; i < SRV_STATUS_SLOTS - 1; i++)
        if (srv_status_slots[i] == status)
            slot = i;
    bump(&st->responses[r][slot], 1);
    int b = 0;
    while (b < SRV_LATENCY_BUCKETS && seconds > srv_latency_bounds[b])
        b++;
    bump(&st->latency[r][b], 1);
    bump(&st->latency_us[r], seconds > 0 ? (uint64_t)(seconds * 1e6 + 0.5) : 0);
}

void srv_stats_count_route_error(srv_stats *st, int route, lr_code code)
{
    int r = route >= 0 && route < SRV_ROUTE_COUNT ? route : SRV_ROUTE_COUNT;
    bump(&st->route_errors[r][code > LR_OK && code < LR_CODE_COUNT ? code : LR_INTERNAL], 1);
}
