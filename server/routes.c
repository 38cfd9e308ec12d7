/*
 * routes.c: the routing table, the whole HTTP surface as data: each route's method,
 * path, name (the label /v1/stats and /metrics count it under) and whether it runs
 * the model. It calls nothing else of server/, so that http.c, the handlers
 * (handlers.c) and the counters (stats.c, metrics.c) can all read it.
 */
#include <stdio.h>
#include <string.h>

#include "srv_int.h"

typedef struct srv_route {
    const char *method;
    const char *path;  /* exact path, or with has_arg the prefix before {name} */
    int has_arg;       /* path is followed by one non-empty segment, the argument */
    const char *label; /* the route's name in /v1/stats and /metrics */
    int computes;      /* runs the model (5 ms .. --time-limit): on the compute pool */
} srv_route;

/* The whole HTTP surface. HEAD is accepted wherever GET is (MHD omits the body). */
static const srv_route routes[] = {
    [SRV_ROUTE_ESTIMATE] = {"POST", "/v1/estimate", 0, "POST /v1/estimate", 1},
    [SRV_ROUTE_RANK] = {"POST", "/v1/rank", 0, "POST /v1/rank", 1},
    [SRV_ROUTE_LEVELS] = {"POST", "/v1/levels", 0, "POST /v1/levels", 1},
    [SRV_ROUTE_DEVICES] = {"GET", "/v1/devices", 0, "GET /v1/devices", 0},
    [SRV_ROUTE_DEVICE] = {"GET", "/v1/devices/", 1, "GET /v1/devices/{name}", 0},
    [SRV_ROUTE_HEALTHZ] = {"GET", "/healthz", 0, "GET /healthz", 0},
    [SRV_ROUTE_STATS] = {"GET", "/v1/stats", 0, "GET /v1/stats", 0},
    [SRV_ROUTE_METRICS] = {"GET", "/metrics", 0, "GET /metrics", 0},
    [SRV_ROUTE_PAGE] = {"GET", "/", 0, "GET /", 0},
    [SRV_ROUTE_ASSET] = {"GET", "/web/", 1, "GET /web/{file}", 0},
    /* Arrays are read from and written to the database, up to --max-array-mb: on the
     * compute pool, where a worker has its store and an I/O thread is not held up */
    [SRV_ROUTE_ARRAY_PUT] = {"PUT", "/v1/arrays/", 1, "PUT /v1/arrays/{sha256}", 1},
    [SRV_ROUTE_ARRAY_GET] = {"GET", "/v1/arrays/", 1, "GET /v1/arrays/{sha256}", 1},
};
_Static_assert(sizeof routes / sizeof routes[0] == SRV_ROUTE_COUNT,
               "srv_route_id in srv_int.h must list the routing table's routes");

/* Whether url is the route's path; sets *arg for routes with a {name}. */
static int path_matches(const srv_route *r, const char *url, const char **arg)
{
    if (!r->has_arg)
        return strcmp(url, r->path) == 0;
    size_t n = strlen(r->path);
    if (strncmp(url, r->path, n) != 0 || url[n] == '\0' || strchr(url + n, '/'))
        return 0;
    *arg = url + n;
    return 1;
}

static int method_matches(const srv_route *r, const char *method)
{
    return strcmp(method, r->method) == 0 ||
           (strcmp(method, MHD_HTTP_METHOD_HEAD) == 0 && strcmp(r->method, "GET") == 0);
}

int srv_route_find(const char *method, const char *url, const char **arg, char *allow,
                   size_t allow_size, unsigned *status)
{
    int path_known = 0;
    allow[0] = '\0';
    for (int i = 0; i < SRV_ROUTE_COUNT; i++) {
        const char *a = NULL;
        if (!path_matches(&routes[i], url, &a))
            continue;
        if (method_matches(&routes[i], method)) {
            *arg = a;
            return i;
        }
        /* Collect every method the path accepts for the Allow header. */
        size_t used = strlen(allow);
        snprintf(allow + used, allow_size - used, "%s%s%s", used ? ", " : "", routes[i].method,
                 strcmp(routes[i].method, "GET") == 0 ? ", HEAD" : "");
        path_known = 1;
    }
    *status = path_known ? MHD_HTTP_METHOD_NOT_ALLOWED : MHD_HTTP_NOT_FOUND;
    return -1;
}

int srv_route_has_body(int route)
{
    const char *m = routes[route].method;
    return strcmp(m, "POST") == 0 || strcmp(m, "PUT") == 0;
}

int srv_route_computes(int route)
{
    return routes[route].computes;
}

const char *srv_route_label(int route)
{
    return routes[route].label;
}
