/*
 * handlers.c: what each route does. Each handler turns one request into one
 * lr_api_* call (or, for /healthz, /v1/stats and /metrics, into what the daemon
 * itself knows) and returns a JSON body or an lr_error; statuses are decided
 * elsewhere (respond.c), the route was found and bodies, content types and sizes
 * were checked before (routes.c, http.c). GET / and GET /web/{file} serve the web
 * calculator's embedded files (assets.c). estimate and rank run on a compute thread
 * (pool.c, which http.c gives srv_route_run), which owns the lr_worker they use; the
 * other handlers run on libmicrohttpd's threads and need no worker, except
 * srv_estimate_cached: an estimate the cache holds is answered on the I/O thread
 * with that thread's own worker, so that it never waits behind a computation.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "srv_int.h"

typedef srv_json (*srv_handler)(srv_server *s, const srv_request *req, lr_error *err);

static srv_json from_api(char *text)
{
    return (srv_json){text, free, NULL, 0, 0}; /* lr_api_* bodies are malloc'd */
}

/* A cache that stops working (full disk, file removed) degrades speed, not answers:
 * the api goes on without it and /healthz says why; it recovers when the cause goes
 * away (issue 10). The log says so when it starts failing and when it works again,
 * and sums up the failures in between (log.c: a status that changed at every
 * request wrote two lines a request, issue 41). It looks around each computation and
 * at each /healthz, a stat of the file each time. */
static void note_cache(srv_server *s)
{
    if (!s->cfg->db_path)
        return;
    const char *status = lr_api_cache_status(s->api), *last;
    uint64_t failures = lr_api_cache_failures(s->api, &last);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    srv_cache_log_note(&s->cache_log, status, failures, last, now.tv_sec + now.tv_nsec / 1e9);
}

/* The cache's status as /healthz says it: with the database's directories left out
 * (its base name stays), in a new string (caller frees) or NULL when out of memory.
 * /healthz answers any Host, so that a load balancer may check the daemon by its
 * address: it must not tell whoever asks where the daemon keeps its files. The log
 * and /v1/stats (our own Host only) keep the full path. The api's messages name the
 * database by the path it was given, --db's value. */
static char *status_without_dirs(const char *status, const char *db_path)
{
    const char *slash = db_path ? strrchr(db_path, '/') : NULL;
    if (!slash)
        return strdup(status); /* no directory to leave out */
    size_t dirs = (size_t)(slash + 1 - db_path), n = strlen(db_path);
    char *out = malloc(strlen(status) + 1); /* never longer than status */
    if (!out)
        return NULL;
    char *o = out;
    for (const char *p = status; *p;) {
        if (strncmp(p, db_path, n) == 0) {
            memcpy(o, db_path + dirs, n - dirs);
            o += n - dirs;
            p += n;
        } else
            *o++ = *p++;
    }
    *o = '\0';
    return out;
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

int srv_estimate_cached(srv_server *s, const srv_request *req, srv_json *out, lr_error *err)
{
    lr_worker *w = srv_worker_get(s, err);
    if (!w) {
        lr_error_clear(err); /* the compute thread's worker may still do */
        return 0;
    }
    char *text = NULL;
    int rc = lr_api_estimate_cached(w, req->body ? req->body : "", req->body_len, &text, err);
    if (rc == 0)
        return 0;
    note_cache(s);
    *out = from_api(text);
    return 1;
}

static srv_json handle_rank(srv_server *s, const srv_request *req, lr_error *err)
{
    lr_worker *w = srv_worker_get(s, err);
    if (!w)
        return from_api(NULL);
    note_cache(s);
    /* The pool's hooks: idle compute threads help, a client that hangs up cancels. */
    srv_json out = from_api(lr_api_rank_with(w, req->body ? req->body : "", req->body_len,
                                             srv_pool_rank_hooks(req), err));
    note_cache(s);
    return out;
}

/* POST /v1/levels: estimates in turn, one request's time limit in all (api.h). */
static srv_json handle_levels(srv_server *s, const srv_request *req, lr_error *err)
{
    lr_worker *w = srv_worker_get(s, err);
    if (!w)
        return from_api(NULL);
    note_cache(s);
    srv_json out = from_api(
        lr_api_levels(w, req->body ? req->body : "", req->body_len, NULL, NULL, err));
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
 * reported but still "ok", naming the database by its base name alone. */
static srv_json handle_healthz(srv_server *s, const srv_request *req, lr_error *err)
{
    srv_json out = {NULL, cJSON_free, NULL, 0, 0};
    note_cache(s);
    char *cache = status_without_dirs(lr_api_cache_status(s->api), s->cfg->db_path);
    cJSON *root = cJSON_CreateObject();
    if (cache && cJSON_AddStringToObject(root, "status", "ok") &&
        cJSON_AddStringToObject(root, "cache", cache) &&
        cJSON_AddStringToObject(root, "model_version", LR_MODEL_VERSION))
        out.text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(cache);
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

/* PUT /v1/arrays/{sha256}: the body, hashed by http.c as it arrived, stored by the
 * api under its digest: 201 when new, 200 when it was stored already. */
static srv_json handle_array_put(srv_server *s, const srv_request *req, lr_error *err)
{
    lr_worker *w = srv_worker_get(s, err);
    if (!w)
        return from_api(NULL);
    int created = 0;
    srv_json out =
        from_api(lr_api_array_put(w, req->arg, req->format[0] ? req->format : NULL, req->body,
                                  req->body_len, req->body_sha256, &created, err));
    out.status = created ? MHD_HTTP_CREATED : 0;
    note_cache(s);
    return out;
}

/* GET /v1/arrays/{sha256}: the stored bytes as they were uploaded (a permutation:
 * int64-le), application/octet-stream. */
static srv_json handle_array_get(srv_server *s, const srv_request *req, lr_error *err)
{
    lr_worker *w = srv_worker_get(s, err);
    if (!w)
        return from_api(NULL);
    char *data;
    size_t len;
    srv_json out = from_api(NULL);
    if (lr_api_array_get(w, req->arg, &data, &len, err) == 0)
        out = (srv_json){data, free, "application/octet-stream", len, 0};
    note_cache(s);
    return out;
}

/* The handler of each route of the routing table (routes.c). */
static const srv_handler handlers[SRV_ROUTE_COUNT] = {
    [SRV_ROUTE_ESTIMATE] = handle_estimate,   [SRV_ROUTE_RANK] = handle_rank,
    [SRV_ROUTE_LEVELS] = handle_levels,
    [SRV_ROUTE_DEVICES] = handle_devices,     [SRV_ROUTE_DEVICE] = handle_device,
    [SRV_ROUTE_HEALTHZ] = handle_healthz,     [SRV_ROUTE_STATS] = handle_stats,
    [SRV_ROUTE_METRICS] = handle_metrics,     [SRV_ROUTE_PAGE] = handle_page,
    [SRV_ROUTE_ASSET] = handle_asset,         [SRV_ROUTE_ARRAY_PUT] = handle_array_put,
    [SRV_ROUTE_ARRAY_GET] = handle_array_get,
};

srv_json srv_route_run(srv_server *s, const srv_request *req, lr_error *err)
{
    srv_json out = handlers[req->route](s, req, err);
    if (!out.text && !lr_error_is_set(err))
        lr_error_set(err, LR_INTERNAL, NULL, "%s returned neither a body nor an error",
                     srv_route_label(req->route));
    return out;
}
