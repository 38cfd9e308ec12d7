/*
 * routes.c: the routing table and its handlers. Each handler turns one request into
 * one lr_api_* call (or, for /healthz and /v1/stats, into what the daemon itself
 * knows) and returns a JSON body or an lr_error; statuses are decided elsewhere
 * (respond.c), bodies, content types and sizes were checked before (http.c). GET /
 * and GET /web/{file} serve the web calculator's embedded files (assets.c).
 * estimate and rank run on a compute thread (pool.c), which owns the lr_worker they
 * use; the other handlers run on libmicrohttpd's threads and need no worker.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "srv_int.h"

typedef srv_json (*srv_handler)(srv_server *s, const srv_request *req, lr_error *err);

typedef struct srv_route {
    const char *method;
    const char *path;  /* exact path, or with has_arg the prefix before {name} */
    int has_arg;       /* path is followed by one non-empty segment, the argument */
    const char *label; /* the route's name in /v1/stats */
    int computes;      /* runs the model (5 ms .. --time-limit): on the compute pool */
    srv_handler run;
} srv_route;

static srv_json from_api(char *text)
{
    return (srv_json){text, free, NULL}; /* lr_api_* bodies are malloc'd */
}

/* A cache that stops working (full disk, file removed) degrades speed, not answers:
 * the api goes on without it and /healthz says why; it recovers when the cause goes
 * away (issue 10). The log says so once per change of the status (the api's status
 * strings live as long as the api, so the last one said can be compared); it looks
 * around each computation and at each /healthz, a stat of the file each time. */
static void note_cache(srv_server *s)
{
    if (!s->cfg->db_path)
        return;
    const char *status = lr_api_cache_status(s->api);
    const char *was = atomic_exchange(&s->cache_said, status);
    if (status == was || (was && strcmp(status, was) == 0))
        return;
    if (strcmp(status, "ok") == 0)
        srv_log("launchrank: cache working again");
    else
        srv_log("launchrank: cache not used for now: %s", status);
}

static srv_json handle_estimate(srv_server *s, const srv_request *req, lr_error *err)
{
    lr_worker *w = srv_worker_get(s, err);
    if (!w)
        return from_api(NULL);
    note_cache(s); /* before too: the request may remake a deleted database file */
    srv_json out = from_api(lr_api_estimate(w, req->body ? req->body : "", req->body_len, err));
    note_cache(s);
    return out;
}

static srv_json handle_rank(srv_server *s, const srv_request *req, lr_error *err)
{
    lr_worker *w = srv_worker_get(s, err);
    if (!w)
        return from_api(NULL);
    note_cache(s);
    /* No progress callback: a response is sent whole, when the ranking is done. */
    srv_json out =
        from_api(lr_api_rank(w, req->body ? req->body : "", req->body_len, NULL, NULL, err));
    note_cache(s);
    return out;
}

static srv_json handle_devices(srv_server *s, const srv_request *req, lr_error *err)
{
    return from_api(lr_api_devices(s->api, err));
}

static srv_json handle_device(srv_server *s, const srv_request *req, lr_error *err)
{
    return from_api(lr_api_device(s->api, req->arg, err));
}

/* {"status":"ok","cache":"ok"|"<why not>","model_version":...}. The daemon answers,
 * so it is up; a cache that cannot be used degrades speed, not answers, so it is
 * reported but still "ok". */
static srv_json handle_healthz(srv_server *s, const srv_request *req, lr_error *err)
{
    srv_json out = {NULL, cJSON_free, NULL};
    note_cache(s);
    cJSON *root = cJSON_CreateObject();
    if (cJSON_AddStringToObject(root, "status", "ok") &&
        cJSON_AddStringToObject(root, "cache", lr_api_cache_status(s->api)) &&
        cJSON_AddStringToObject(root, "model_version", LR_MODEL_VERSION))
        out.text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!out.text)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory while building the health report");
    return out;
}

static srv_json handle_stats(srv_server *s, const srv_request *req, lr_error *err)
{
    return srv_stats_json(s, err);
}

static srv_json handle_metrics(srv_server *s, const srv_request *req, lr_error *err)
{
    return srv_metrics_text(s, err);
}

/* The web calculator (docs/web.md): a client of the routes above, served from the
 * files embedded at build time. */
static srv_json handle_page(srv_server *s, const srv_request *req, lr_error *err)
{
    srv_json out = srv_asset_find("index.html");
    if (!out.text)
        lr_error_set(err, LR_INTERNAL, NULL, "the web page was not built into this daemon");
    return out;
}

static srv_json handle_asset(srv_server *s, const srv_request *req, lr_error *err)
{
    srv_json out = srv_asset_find(req->arg);
    if (!out.text)
        lr_error_set(err, LR_NOT_FOUND, NULL, "no file '%.64s' in the web page; GET / loads it",
                     req->arg);
    return out;
}

/* The whole HTTP surface. HEAD is accepted wherever GET is (MHD omits the body). */
static const srv_route routes[] = {
    {"POST", "/v1/estimate", 0, "POST /v1/estimate", 1, handle_estimate},
    {"POST", "/v1/rank", 0, "POST /v1/rank", 1, handle_rank},
    {"GET", "/v1/devices", 0, "GET /v1/devices", 0, handle_devices},
    {"GET", "/v1/devices/", 1, "GET /v1/devices/{name}", 0, handle_device},
    {"GET", "/healthz", 0, "GET /healthz", 0, handle_healthz},
    {"GET", "/v1/stats", 0, "GET /v1/stats", 0, handle_stats},
    {"GET", "/metrics", 0, "GET /metrics", 0, handle_metrics},
    {"GET", "/", 0, "GET /", 0, handle_page},
    {"GET", "/web/", 1, "GET /web/{file}", 0, handle_asset},
};
_Static_assert(sizeof routes / sizeof routes[0] == SRV_ROUTE_COUNT,
               "SRV_ROUTE_COUNT in srv_int.h must match the routing table");

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
    return strcmp(routes[route].method, "POST") == 0;
}

int srv_route_computes(int route)
{
    return routes[route].computes;
}

const char *srv_route_label(int route)
{
    return routes[route].label;
}

srv_json srv_route_run(srv_server *s, const srv_request *req, lr_error *err)
{
    srv_json out = routes[req->route].run(s, req, err);
    if (!out.text && !lr_error_is_set(err))
        lr_error_set(err, LR_INTERNAL, NULL, "%s returned neither a body nor an error",
                     routes[req->route].label);
    return out;
}
