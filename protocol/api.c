/*
 * api: see api.h. Each call parses the request, looks every configuration up in the
 * cache (one SQLite connection per worker), estimates what is missing and stores it.
 * A cache that fails never fails a request: the answer is computed and the failure
 * is reported once, through lr_api_cache_status. A row read from the cache is trusted
 * only when it answers exactly this request (the store compares the canonical request
 * and the configuration, not only their hash) and has exactly the shape the response
 * writer gives this configuration (lr_estimate_json_valid); any other row is a miss,
 * recomputed and replaced, never served or read.
 */
#include "api.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>

#include "cudagen.h"
#include "devices.h"
#include "decide.h"
#include "lr_hash.h"
#include "plausible.h"
#include "rank.h"
#include "request.h"
#include "response.h"
#include "store.h"

/* Distinct cache failures the api keeps as messages (each one until lr_api_free): a
 * cache fails in few ways (disk full, file unreadable, locked), and a bound keeps a
 * flapping disk from growing the list. */
#define LR_CACHE_MESSAGES 16

/* How often a computing thread looks whether its cache database file was deleted or
 * replaced, in seconds: soon enough that a deleted cache is remade within a request
 * or two, and a stat per quarter second costs nothing. */
#define LR_CACHE_LOOK_S 0.25

struct lr_api {
    lr_api_config cfg;
    char *db_path;    /* owned copy; NULL = no cache */
    lr_devices *devs; /* owned: the built-ins, then the devices stored in db_path */
    char devices_warning[LR_MESSAGE_MAX]; /* "" = every stored device was loaded */
    /* The cache's health, which recovers (issue 10): the current failure, NULL while
     * the cache works. It points into messages, whose strings are never changed or
     * freed before lr_api_free, so lr_api_cache_status can hand one out while another
     * thread records the next. */
    _Atomic(const char *) cache_error;
    pthread_mutex_t cache_mu;          /* guards messages and n_messages */
    char *messages[LR_CACHE_MESSAGES]; /* owned: the distinct failures seen */
    unsigned n_messages;
    char *deleted; /* owned: what the status says while the database file is gone */
    atomic_uint_fast64_t hits, misses;
    atomic_uint_fast64_t evaluated, measured; /* configurations computed, timed */
    est_stop *stop; /* owned; raised by lr_api_cancel, watched by every computation */
};

struct lr_worker {
    lr_api *api;
    est_ctx *ctx;     /* owned */
    st_store *store;  /* owned; NULL without cache, or while it cannot be opened */
    struct stat file; /* the database file store has open (st_dev, st_ino) */
    double looked;    /* est_now() when store_keep last looked at the file */
};

/* Records a cache failure as the cache's status until an operation succeeds. */
static void cache_failed(lr_api *api, const lr_error *e)
{
    static const char too_many[] = "the cache failed (more kinds of failure than are kept)";
    const char *msg = NULL;
    pthread_mutex_lock(&api->cache_mu);
    for (unsigned i = 0; i < api->n_messages && !msg; i++)
        if (strcmp(api->messages[i], e->message) == 0)
            msg = api->messages[i];
    if (!msg && api->n_messages < LR_CACHE_MESSAGES &&
        (api->messages[api->n_messages] = strdup(e->message)))
        msg = api->messages[api->n_messages++];
    pthread_mutex_unlock(&api->cache_mu);
    atomic_store(&api->cache_error, msg ? msg : too_many);
}

/* A cache operation succeeded: the cache works (again). */
static void cache_ok(lr_api *api)
{
    if (atomic_load_explicit(&api->cache_error, memory_order_relaxed))
        atomic_store(&api->cache_error, NULL);
}

/* ---- stored devices ---- */

/* Reads one stored description (written by lr_api_device_add: every figure, no
 * "base") into a device and its sources (caller owns). 0 or -1 with err. */
static int stored_device(const lr_devices *devs, const char *json, est_device *dev,
                         cJSON **sources, lr_error *err)
{
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithOpts(json, &end, 1);
    int rc = o ? lr_device_from_json(devs, o, "", dev, err)
               : lr_error_set(err, LR_INVALID_JSON, NULL, "not JSON");
    *sources = rc ? NULL : cJSON_DetachItemFromObjectCaseSensitive(o, "sources");
    cJSON_Delete(o);
    return rc;
}

typedef struct load_ctx {
    lr_api *api;
    lr_error err; /* a database failure, or out of memory */
} load_ctx;

/* Adds one stored device to the api's list. A description this build cannot read,
 * or whose name a built-in has taken since, is skipped and reported once
 * (lr_api_devices_warning): the built-in keeps its name, the rest still load. */
static int load_device(void *user, const char *name, const char *json)
{
    load_ctx *c = user;
    lr_api *api = c->api;
    est_device dev;
    cJSON *sources = NULL;
    lr_error e;
    lr_error_clear(&e);
    if (lr_devices_find(api->devs, name))
        lr_error_set(&e, LR_INVALID_REQUEST, "name", "a built-in device has that name");
    else if (stored_device(api->devs, json, &dev, &sources, &e) == 0)
        lr_devices_add(api->devs, &dev, sources, &e);
    if (e.code == LR_NO_MEMORY) {
        c->err = e;
        return 1;
    }
    if (lr_error_is_set(&e) && !api->devices_warning[0])
        snprintf(api->devices_warning, sizeof api->devices_warning,
                 "stored device '%.64s' of '%.128s' is not used: %.64s%s%.200s", name,
                 api->db_path, e.path, e.path[0] ? ": " : "", e.message);
    return 0;
}

/* Adds the devices stored in st after the built-ins. A database error is a cache
 * failure (the api goes on with the built-ins alone). */
static void load_devices(lr_api *api, st_store *st)
{
    load_ctx c = {.api = api};
    lr_error_clear(&c.err);
    if (st_device_each(st, load_device, &c, &c.err) != 0)
        cache_failed(api, &c.err);
}

lr_api *lr_api_new(const lr_api_config *cfg, lr_error *err)
{
    lr_api *api = calloc(1, sizeof *api);
    if (!api) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    api->cfg = *cfg;
    api->stop = est_stop_new();
    api->devs = api->stop ? lr_devices_load(err) : NULL;
    if (!api->devs) {
        if (!api->stop)
            lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        est_stop_free(api->stop);
        free(api);
        return NULL;
    }
    pthread_mutex_init(&api->cache_mu, NULL);
    if (cfg->db_path) {
        api->db_path = strdup(cfg->db_path);
        if (asprintf(&api->deleted,
                     "the cache database %.400s was deleted; each computing thread makes a new "
                     "one at its next request",
                     cfg->db_path) < 0)
            api->deleted = NULL;
        lr_error e;
        lr_error_clear(&e);
        st_store *st = st_open(cfg->db_path, &e);
        if (!st)
            cache_failed(api, &e);
        else
            load_devices(api, st);
        st_close(st);
    }
    return api;
}

void lr_api_free(lr_api *api)
{
    if (!api)
        return;
    lr_devices_free(api->devs);
    free(api->db_path);
    est_stop_free(api->stop); /* every worker was freed before, as api.h requires */
    for (unsigned i = 0; i < api->n_messages; i++)
        free(api->messages[i]);
    free(api->deleted);
    pthread_mutex_destroy(&api->cache_mu);
    free(api);
}

void lr_api_cancel(lr_api *api)
{
    est_stop_raise(api->stop);
}

/* After a failed computation: when lr_api_cancel stopped it, the error says so (the
 * estimator reports a stop as a deadline passed). Returns -1. */
static int stopped(const lr_api *api, lr_error *err)
{
    if (est_stop_raised(api->stop)) {
        lr_error_clear(err);
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "the server is shutting down and cancelled this request; send it again "
                     "once the server is back");
    }
    return -1;
}

const lr_devices *lr_api_device_list(const lr_api *api)
{
    return api->devs;
}

const char *lr_api_devices_warning(const lr_api *api)
{
    return api->devices_warning[0] ? api->devices_warning : NULL;
}

const char *lr_api_cache_status(const lr_api *api)
{
    if (!api->db_path)
        return "no cache database (--no-cache)";
    /* Noticed here, at once: the workers' connections still write to the deleted
     * file until they look again (store_keep) and make a new one. */
    struct stat st;
    if (stat(api->db_path, &st) != 0 && errno == ENOENT && api->deleted)
        return api->deleted;
    const char *e = atomic_load(&((lr_api *)api)->cache_error);
    return e ? e : "ok";
}

void lr_api_get_stats(const lr_api *api, lr_api_stats *out)
{
    out->cache_hits = atomic_load(&((lr_api *)api)->hits);
    out->cache_misses = atomic_load(&((lr_api *)api)->misses);
    out->configurations_evaluated = atomic_load(&((lr_api *)api)->evaluated);
    out->measurements = atomic_load(&((lr_api *)api)->measured);
}

/* Keeps w's store connection on the database file db_path names: opened when there is
 * none (the cache failed to open before, or the file was gone), reopened when the
 * file was deleted or replaced (a connection to a deleted file would go on writing to
 * it unseen). Looks at most every LR_CACHE_LOOK_S: a stat costs microseconds, a
 * ranking looks up hundreds of configurations. */
static void store_keep(lr_worker *w)
{
    lr_api *api = w->api;
    double now = est_now();
    if (!api->db_path || now - w->looked < LR_CACHE_LOOK_S)
        return;
    w->looked = now;
    struct stat st;
    int present = stat(api->db_path, &st) == 0;
    if (w->store && present && st.st_dev == w->file.st_dev && st.st_ino == w->file.st_ino)
        return;
    st_close(w->store); /* gone or replaced: this connection no longer caches anything */
    w->store = NULL;
    lr_error e;
    lr_error_clear(&e);
    w->store = st_open(api->db_path, &e);
    if (!w->store || stat(api->db_path, &w->file) != 0) {
        if (lr_error_is_set(&e))
            cache_failed(api, &e);
        return;
    }
    st_set_max_predictions(w->store,
                           api->cfg.cache_max > 0 ? api->cfg.cache_max : LR_DEFAULT_CACHE_MAX);
    cache_ok(api);
}

lr_worker *lr_worker_new(lr_api *api, lr_error *err)
{
    lr_worker *w = calloc(1, sizeof *w);
    if (w)
        w->ctx = est_ctx_new((unsigned long)api->cfg.isl_max_operations);
    if (!w || !w->ctx) {
        lr_worker_free(w);
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    w->api = api;
    est_ctx_watch(w->ctx, api->stop);
    w->looked = -LR_CACHE_LOOK_S; /* look now */
    store_keep(w);
    return w;
}

void lr_worker_free(lr_worker *w)
{
    if (!w)
        return;
    est_ctx_free(w->ctx);
    st_close(w->store);
    free(w);
}

/* ---- cache ---- */

/* The cached estimate object of configuration l of req (caller owns), or NULL when
 * there is none that can be trusted: no row, a row of another request, or a row that
 * does not parse or is not exactly what lr_estimate_json writes for l. */
static cJSON *cache_get(lr_worker *w, const lr_request *req, const est_launch *l,
                        const char *key)
{
    store_keep(w);
    if (!w->store)
        return NULL;
    char *json = NULL, config[LR_CONFIG_TEXT];
    lr_error e;
    lr_error_clear(&e);
    lr_request_config_text(l, config);
    int rc = st_prediction_get(w->store, key, req->canonical, config, &json, &e);
    if (rc < 0)
        cache_failed(w->api, &e);
    else
        cache_ok(w->api);
    cJSON *o = NULL;
    if (rc == 1) {
        est_config cfg = {.launch = *l};
        memcpy(cfg.domain, req->domain, sizeof cfg.domain);
        o = cJSON_ParseWithOpts(json, NULL, 1);
        if (o && !lr_estimate_json_valid(o, req->kernel, &req->device, &cfg)) {
            cJSON_Delete(o);
            o = NULL;
        }
    }
    free(json);
    atomic_fetch_add(o ? &w->api->hits : &w->api->misses, 1);
    return o;
}

/* Stores (or replaces) the prediction of configuration l of req. */
static void cache_put(lr_worker *w, const lr_request *req, const est_launch *l, const char *key,
                      const char *json)
{
    if (!w->store)
        return;
    char config[LR_CONFIG_TEXT];
    lr_error e;
    lr_error_clear(&e);
    lr_request_config_text(l, config);
    if (st_prediction_put(w->store, key, req->canonical, config, "estimate", json, &e))
        cache_failed(w->api, &e);
    else
        cache_ok(w->api);
}

/* The warnings of launch l of req (plausible.h): those of the request, then those of
 * the configuration, whose estimate object is est. A new array (caller owns) or NULL. */
static cJSON *warnings_of(const lr_request *req, const est_launch *l, const cJSON *est)
{
    lr_plausible *p = lr_plausible_new(req);
    cJSON *w = p ? lr_plausible_request_warnings(p) : NULL,
          *c = p && w ? lr_plausible_warnings(p, l, est) : NULL;
    while (c && c->child)
        cJSON_AddItemToArray(w, cJSON_DetachItemViaPointer(c, c->child));
    cJSON_Delete(c);
    lr_plausible_free(p);
    return w;
}

/* The estimate response: a prediction's text (stored texts hold neither) with
 * "warnings" and "cached" added. */
static char *estimate_answer(const lr_request *req, const char *text, int cached, lr_error *err)
{
    cJSON *o = cJSON_Parse(text), *w = o ? warnings_of(req, &req->launch, o) : NULL;
    char *out = NULL;
    if (w && cJSON_AddItemToObject(o, "warnings", w)) {
        w = NULL;
        if (cJSON_AddBoolToObject(o, "cached", cached))
            out = cJSON_PrintUnformatted(o);
    }
    cJSON_Delete(w);
    cJSON_Delete(o);
    if (!out)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return out;
}

/* Generated code must not touch memory outside its fields: 0, or -1 with err. */
static int bounds_error(const lr_request *req, lr_error *err)
{
    lr_plausible *p = lr_plausible_new(req);
    int rc = p ? lr_plausible_bounds_error(p, err)
               : lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    lr_plausible_free(p);
    return rc;
}

/* The wall-clock limit of one estimate, and of one measurement. */
static double time_limit(const lr_api *api)
{
    return api->cfg.time_limit_s > 0 ? api->cfg.time_limit_s : LR_DEFAULT_TIME_LIMIT_S;
}

/* ---- measuring on the GPU ---- */

/* Timings on one GPU mean nothing when they overlap: one measurement at a time. */
static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;

static void measure_opts(const lr_request *req, cg_measure_opts *o)
{
    cg_measure_opts_init(o);
    o->repetitions = req->measure.repetitions;
    o->warmup = req->measure.warmup;
    o->flush_l2 = req->measure.flush_l2;
}

/* Times one configuration; the measured object (caller owns) or NULL with err.
 * The measurement is also appended to the store, where it is kept for calibration. */
static cJSON *measure_one(lr_worker *w, const lr_request *req, const est_config *cfg,
                          double predicted, lr_error *err)
{
    cg_measure_opts o;
    cg_measurement m;
    if (bounds_error(req, err) || (est_stop_raised(w->api->stop) && stopped(w->api, err)))
        return NULL;
    measure_opts(req, &o);
    pthread_mutex_lock(&gpu_lock);
    /* the same limit as an estimate's, from when this measurement has the GPU */
    o.deadline = est_now() + time_limit(w->api);
    int rc = cg_measure(req->kernel, cfg, &o, &m, err);
    pthread_mutex_unlock(&gpu_lock);
    if (rc)
        return NULL;
    atomic_fetch_add(&w->api->measured, 1);
    cJSON *j = cJSON_CreateObject();
    if (!j) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", m.cc_major, m.cc_minor);
    cJSON_AddNumberToObject(j, "ms_min", m.ms_min);
    cJSON_AddNumberToObject(j, "ms_median", m.ms_median);
    cJSON_AddNumberToObject(j, "ms_max", m.ms_max);
    cJSON_AddNumberToObject(j, "glups", m.glups);
    cJSON_AddStringToObject(j, "gpu", m.gpu_name);
    cJSON_AddStringToObject(j, "compute_capability", cc);
    cJSON_AddNumberToObject(j, "driver_version", m.driver_version);
    cJSON_AddNumberToObject(j, "warmup", o.warmup);
    cJSON_AddNumberToObject(j, "repetitions", o.repetitions);
    cJSON_AddBoolToObject(j, "flush_l2", o.flush_l2);
    cJSON_AddNumberToObject(j, "predicted_over_measured",
                            m.glups > 0 ? predicted / m.glups : 0);
    if (w->store) {
        char hash[LR_HASH_HEX], drv[16];
        const char *parts[] = {req->canonical};
        lr_hash_hex(parts, 1, hash);
        snprintf(drv, sizeof drv, "%d", m.driver_version);
        char *text = cJSON_PrintUnformatted(j);
        st_measurement sm = {.kernel_hash = hash,
                             .gpu_name = m.gpu_name,
                             .driver_version = drv,
                             .ms_min = m.ms_min,
                             .ms_median = m.ms_median,
                             .ms_max = m.ms_max,
                             .glups = m.glups,
                             .json = text ? text : "{}",
                             /* what `launchrank fit` rebuilds the kernel from */
                             .request = req->canonical};
        memcpy(sm.block, cfg->launch.block, sizeof sm.block);
        memcpy(sm.folding, cfg->launch.folding, sizeof sm.folding);
        lr_error e;
        lr_error_clear(&e);
        if (st_measurement_add(w->store, &sm, &e))
            cache_failed(w->api, &e);
        cJSON_free(text);
    }
    return j;
}

/* ---- endpoints ---- */

static int not_launchable(const est_result *r, lr_error *err)
{
    /* the folding rules' reasons start with "folding": point at it, not the block */
    return lr_error_set(err, LR_NOT_LAUNCHABLE,
                        strncmp(r->reason, "folding", 7) ? "launch.block" : "launch.folding",
                        "block %dx%dx%d cannot run on this device: %s",
                        r->config.launch.block[0], r->config.launch.block[1],
                        r->config.launch.block[2], r->reason);
}

/* Estimates one configuration of req as estimate-response text (no "cached"). */
static char *estimate_text(lr_worker *w, const lr_request *req, const est_launch *l,
                           est_result *r, lr_error *err)
{
    est_config cfg = {.launch = *l};
    memcpy(cfg.domain, req->domain, sizeof cfg.domain);
    est_ctx_set_deadline(w->ctx, est_now() + time_limit(w->api));
    int rc = est_estimate(w->ctx, req->kernel, &req->device, &cfg, r, err);
    est_ctx_set_deadline(w->ctx, 0);
    atomic_fetch_add(&w->api->evaluated, 1);
    if (rc) {
        stopped(w->api, err);
        return NULL;
    }
    if (!r->launchable) {
        not_launchable(r, err);
        return NULL;
    }
    cJSON *o = lr_estimate_json(r, req->kernel, &req->device);
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!s)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return s;
}

char *lr_api_estimate(lr_worker *w, const char *body, size_t len, lr_error *err)
{
    lr_request req;
    if (lr_request_parse(w->api->devs, body, len, LR_REQ_ESTIMATE, &req, err))
        return NULL;
    char key[33];
    lr_request_key(&req, &req.launch, key);
    cJSON *hit = cache_get(w, &req, &req.launch, key);
    char *text = NULL, *out = NULL;
    if (hit) {
        /* printed from the checked tree, not the row's text: byte for byte what the
         * writer stored, and nothing else */
        text = cJSON_PrintUnformatted(hit);
        cJSON_Delete(hit);
        if (!text)
            lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    } else {
        est_result *r = malloc(sizeof *r);
        text = r ? estimate_text(w, &req, &req.launch, r, err)
                 : (lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory"), NULL);
        free(r);
        if (text)
            cache_put(w, &req, &req.launch, key, text);
    }
    if (text)
        out = estimate_answer(&req, text, hit != NULL, err);
    free(text);
    lr_request_release(&req);
    return out;
}

char *lr_api_measure(lr_worker *w, const char *body, size_t len, lr_error *err)
{
    lr_request req;
    if (lr_request_parse(w->api->devs, body, len, LR_REQ_ESTIMATE, &req, err))
        return NULL;
    est_result *r = malloc(sizeof *r);
    char *text = r ? estimate_text(w, &req, &req.launch, r, err)
                   : (lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory"), NULL);
    char *out = NULL;
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    cJSON *m = o ? measure_one(w, &req, &r->config, r->predicted, err) : NULL;
    if (m) {
        cJSON_AddItemToObject(o, "measured", m);
        cJSON_AddBoolToObject(o, "cached", 0);
        out = cJSON_PrintUnformatted(o);
        if (!out)
            lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    cJSON_Delete(o);
    free(text);
    free(r);
    lr_request_release(&req);
    return out;
}

char *lr_api_emit(lr_worker *w, const char *body, size_t len, lr_error *err)
{
    lr_request req;
    if (lr_request_parse(w->api->devs, body, len, LR_REQ_ESTIMATE, &req, err))
        return NULL;
    est_config cfg = {.launch = req.launch};
    memcpy(cfg.domain, req.domain, sizeof cfg.domain);
    char *src = bounds_error(&req, err) ? NULL : cg_emit_source(req.kernel, &cfg, err);
    lr_request_release(&req);
    return src;
}

/* One rank entry: its cached or computed estimate object, its configuration and the
 * sort keys. */
typedef struct rank_entry {
    cJSON *est;  /* owned; NULL when not launchable */
    cJSON *warn; /* owned: its plausibility warnings (plausible.h) */
    est_launch launch;
    double predicted, dram, l2;
} rank_entry;

/* Times the first top results in order (results[i] is entry order[i]); fills each
 * item's "measured" (or its error) and returns the response's "measure" summary. The
 * configurations come from the entries, not read back out of the JSON. */
static cJSON *measure_top(lr_worker *w, const lr_request *req, cJSON *results,
                          const rank_entry *ent, const size_t *order)
{
    cJSON *summary = cJSON_CreateObject();
    int n = cJSON_GetArraySize(results), top = req->measure.top < n ? req->measure.top : n;
    int best = -1, measured = 0;
    double best_glups = 0;
    lr_error err;
    for (int i = 0; i < top; i++) {
        cJSON *item = cJSON_GetArrayItem(results, i);
        const rank_entry *e = &ent[order[i]];
        est_config cfg = {.launch = e->launch};
        memcpy(cfg.domain, req->domain, sizeof cfg.domain);
        double predicted = e->predicted;
        lr_error_clear(&err);
        cJSON *m = measure_one(w, req, &cfg, predicted, &err);
        if (!m && err.code == LR_UNAVAILABLE) {
            cJSON_AddStringToObject(summary, "status", "unavailable");
            cJSON_AddStringToObject(summary, "reason", err.message);
            return summary;
        }
        if (!m) {
            cJSON *e = cJSON_AddObjectToObject(item, "measured");
            cJSON *ee = cJSON_AddObjectToObject(e, "error");
            cJSON_AddStringToObject(ee, "code", lr_code_name(err.code));
            cJSON_AddStringToObject(ee, "message", err.message);
            continue;
        }
        double g = cJSON_GetNumberValue(cJSON_GetObjectItem(m, "glups"));
        if (g > best_glups) {
            best_glups = g;
            best = i;
        }
        measured++;
        cJSON_AddItemToObject(item, "measured", m);
    }
    cJSON_AddStringToObject(summary, "status", "ok");
    cJSON_AddNumberToObject(summary, "measured", measured);
    if (best >= 0) {
        cJSON *item = cJSON_GetArrayItem(results, best),
              *f = cJSON_AddObjectToObject(summary, "fastest");
        cJSON_AddNumberToObject(f, "rank", best + 1);
        cJSON_AddItemToObject(f, "block",
                              cJSON_Duplicate(cJSON_GetObjectItem(item, "block"), 1));
        cJSON_AddItemToObject(f, "folding",
                              cJSON_Duplicate(cJSON_GetObjectItem(item, "folding"), 1));
        cJSON_AddNumberToObject(f, "glups", best_glups);
    }
    return summary;
}

static double num_at(const cJSON *o, const char *obj, const char *key)
{
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, obj), key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void entry_keys(rank_entry *e)
{
    e->predicted = num_at(e->est, "performance", "predicted");
    e->dram =
        num_at(e->est, "estimate", "dram_load") + num_at(e->est, "estimate", "dram_store");
    e->l2 = num_at(e->est, "estimate", "l2_load") + num_at(e->est, "estimate", "l2_store");
}

static const rank_entry *sort_base;
static int cmp_entry(const void *a, const void *b)
{
    const rank_entry *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
    if (x->predicted != y->predicted)
        return x->predicted > y->predicted ? -1 : 1;
    if (x->dram != y->dram)
        return x->dram < y->dram ? -1 : 1;
    if (x->l2 != y->l2)
        return x->l2 < y->l2 ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static cJSON *take(cJSON *o, const char *key)
{
    return cJSON_DetachItemFromObjectCaseSensitive(o, key);
}

static int threads_for(const lr_api *api)
{
    if (api->cfg.threads > 0)
        return api->cfg.threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static pthread_mutex_t sort_lock = PTHREAD_MUTEX_INITIALIZER;

/* The m ranked entries (ent[order[r]]) as the decision sees them, each entry's warnings
 * set; *base_pos: the baseline's position, or -1. Caller frees; NULL when out of
 * memory. */
static lr_choice *rank_choices(const lr_request *req, rank_entry *ent, const size_t *order,
                               size_t m, long *base_pos)
{
    lr_plausible *p = lr_plausible_new(req);
    lr_choice *c = p ? calloc(m ? m : 1, sizeof *c) : NULL;
    for (size_t r = 0; c && r < m; r++) {
        rank_entry *e = &ent[order[r]];
        e->warn = lr_plausible_warnings(p, &e->launch, e->est);
        c[r].launch = e->launch;
        c[r].rank = (int)r + 1;
        lr_choice_from_estimate(&c[r], e->est, req);
        c[r].warned = cJSON_GetArraySize(e->warn) > 0;
        if (req->has_baseline && !memcmp(&e->launch, &req->baseline, sizeof e->launch))
            *base_pos = (long)r;
    }
    lr_plausible_free(p);
    return c;
}

/* Why the request's baseline cannot run (NULL when it can, or there is none). */
static const char *baseline_reason(const lr_request *req, const est_result *res,
                                   const unsigned char *skip, size_t n)
{
    for (size_t i = 0; req->has_baseline && i < n; i++)
        if (!skip[i] && !res[i].launchable &&
            !memcmp(&req->space[i], &req->baseline, sizeof req->baseline))
            return res[i].reason;
    return NULL;
}

/* The rank response's "warnings": those of the request, and how many ranked
 * configurations have warnings of their own. */
static cJSON *rank_warnings(const lr_request *req, const lr_choice *c, size_t m)
{
    lr_plausible *p = lr_plausible_new(req);
    cJSON *w = p ? lr_plausible_request_warnings(p) : NULL;
    size_t warned = 0;
    for (size_t r = 0; r < m; r++)
        warned += c[r].warned != 0;
    if (w && warned) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%zu of the %zu ranked configurations have warnings (results[].warnings): "
                 "their predictions do not describe the kernel, and the decision leaves "
                 "them out (decision.note when that is all of them)",
                 warned, m);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "code", "configurations_with_warnings");
        cJSON_AddStringToObject(o, "message", msg);
        cJSON_AddStringToObject(o, "path", "results");
        cJSON_AddItemToArray(w, o);
    }
    lr_plausible_free(p);
    return w;
}

char *lr_api_rank(lr_worker *w, const char *body, size_t len, lr_progress_fn progress,
                  void *progress_user, lr_error *err)
{
    lr_request req;
    if (lr_request_parse(w->api->devs, body, len, LR_REQ_RANK, &req, err))
        return NULL;
    size_t n = req.nspace, hits = 0;
    est_result *res = calloc(n, sizeof *res);
    rank_entry *ent = calloc(n, sizeof *ent);
    unsigned char *skip = calloc(n, 1);
    size_t *order = calloc(n, sizeof *order);
    char(*keys)[33] = calloc(n, sizeof *keys);
    char *out = NULL;
    cJSON *resp = NULL;
    lr_choice *choices = NULL;
    long base_pos = -1;
    if (!res || !ent || !skip || !order || !keys) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        res[i].config.launch = req.space[i];
        memcpy(res[i].config.domain, req.domain, sizeof req.domain);
        ent[i].launch = req.space[i];
        lr_request_key(&req, &req.space[i], keys[i]);
        if ((ent[i].est = cache_get(w, &req, &req.space[i], keys[i]))) {
            skip[i] = 1;
            hits++;
        }
    }
    if (est_rank(req.kernel, &req.device, res, n, skip, threads_for(w->api),
                 (unsigned long)w->api->cfg.isl_max_operations, est_now() + time_limit(w->api),
                 w->api->stop, (est_progress_fn)progress, progress_user, err)) {
        stopped(w->api, err);
        goto done;
    }
    atomic_fetch_add(&w->api->evaluated, n - hits);
    for (size_t i = 0; i < n; i++) {
        if (skip[i] || !res[i].launchable)
            continue;
        ent[i].est = lr_estimate_json(&res[i], req.kernel, &req.device);
        char *t = ent[i].est ? cJSON_PrintUnformatted(ent[i].est) : NULL;
        if (t)
            cache_put(w, &req, &req.space[i], keys[i], t);
        free(t);
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (ent[i].est) {
            entry_keys(&ent[i]);
            order[m++] = i;
        }
    pthread_mutex_lock(&sort_lock); /* qsort has no context argument in C11 */
    sort_base = ent;
    qsort(order, m, sizeof *order, cmp_entry);
    pthread_mutex_unlock(&sort_lock);
    choices = rank_choices(&req, ent, order, m, &base_pos);
    if (!choices) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        goto done;
    }

    resp = cJSON_CreateObject();
    if (!resp) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        goto done;
    }
    cJSON_AddStringToObject(resp, "model_version", LR_MODEL_VERSION);
    cJSON_AddStringToObject(resp, "device", req.device.name);
    cJSON *dom = cJSON_AddArrayToObject(resp, "domain");
    for (int d = 0; d < 3; d++)
        cJSON_AddItemToArray(dom, cJSON_CreateNumber((double)req.domain[d]));
    cJSON_AddNumberToObject(resp, "evaluated", (double)n);
    cJSON_AddNumberToObject(resp, "launchable", (double)m);
    cJSON_AddNumberToObject(resp, "cached_results", (double)hits);
    cJSON_AddItemToObject(resp, "warnings", rank_warnings(&req, choices, m));
    cJSON_AddItemToObject(resp, "decision",
                          lr_decision_json(choices, m, req.device.rank_precision, base_pos,
                                           &req, baseline_reason(&req, res, skip, n)));
    cJSON *results = cJSON_AddArrayToObject(resp, "results");
    size_t top = req.top > 0 && (size_t)req.top < m ? (size_t)req.top : m;
    for (size_t r = 0; r < top && results; r++) {
        cJSON *e = ent[order[r]].est, *item = cJSON_CreateObject();
        if (!item || !cJSON_AddItemToArray(results, item)) {
            /* results[r] must be entry order[r]: measure_top relies on it */
            cJSON_Delete(item);
            lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
            goto done;
        }
        cJSON *launch = take(e, "launch");
        cJSON_AddNumberToObject(item, "rank", (double)(r + 1));
        cJSON_AddItemToObject(
            item, "block",
            cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(launch, "block"), 1));
        cJSON_AddItemToObject(
            item, "folding",
            cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(launch, "folding"), 1));
        cJSON_AddItemToObject(item, "launch", launch);
        cJSON_AddItemToObject(item, "estimate", take(e, "estimate"));
        cJSON_AddItemToObject(item, "performance", take(e, "performance"));
        cJSON_AddNumberToObject(item, "occupancy", round(choices[r].occupancy * 1e6) / 1e6);
        cJSON_AddNumberToObject(item, "idle_threads", round(choices[r].idle * 1e6) / 1e6);
        cJSON_AddItemToObject(item, "warnings", ent[order[r]].warn);
        ent[order[r]].warn = NULL;
    }
    cJSON *nl = cJSON_AddArrayToObject(resp, "not_launchable");
    for (size_t i = 0; i < n && nl; i++) {
        if (skip[i] || res[i].launchable)
            continue;
        cJSON *item = cJSON_CreateObject();
        int64_t b[3] = {req.space[i].block[0], req.space[i].block[1], req.space[i].block[2]};
        int64_t f[3] = {req.space[i].folding[0], req.space[i].folding[1],
                        req.space[i].folding[2]};
        cJSON *ba = cJSON_AddArrayToObject(item, "block"),
              *fa = cJSON_AddArrayToObject(item, "folding");
        for (int d = 0; d < 3; d++) {
            cJSON_AddItemToArray(ba, cJSON_CreateNumber((double)b[d]));
            cJSON_AddItemToArray(fa, cJSON_CreateNumber((double)f[d]));
        }
        cJSON_AddStringToObject(item, "reason", res[i].reason);
        cJSON_AddItemToArray(nl, item);
    }
    if (req.measure.top > 0)
        cJSON_AddItemToObject(resp, "measure", measure_top(w, &req, results, ent, order));
    cJSON_AddItemToObject(resp, "units", lr_units_json());
    cJSON_AddBoolToObject(resp, "cached", hits == n);
    out = cJSON_PrintUnformatted(resp);
    if (!out)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
done:
    cJSON_Delete(resp);
    for (size_t i = 0; ent && i < n; i++) {
        cJSON_Delete(ent[i].est);
        cJSON_Delete(ent[i].warn);
    }
    free(choices);
    free(res);
    free(ent);
    free(skip);
    free(order);
    free(keys);
    lr_request_release(&req);
    return out;
}

char *lr_api_devices(lr_api *api, lr_error *err)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = o ? cJSON_AddArrayToObject(o, "devices") : NULL;
    for (int i = 0; arr && i < lr_devices_count(api->devs); i++)
        cJSON_AddItemToArray(arr,
                             lr_device_to_json(api->devs, lr_devices_get(api->devs, i), 1));
    if (o)
        cJSON_AddStringToObject(o, "model_version", LR_MODEL_VERSION);
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!s)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return s;
}

char *lr_api_device(lr_api *api, const char *name, lr_error *err)
{
    const est_device *d = lr_devices_find(api->devs, name);
    if (!d) {
        lr_error_set(err, LR_NOT_FOUND, NULL,
                     "no %s device '%.64s'; GET /v1/devices lists them",
                     api->db_path ? "built-in or stored" : "built-in", name);
        return NULL;
    }
    cJSON *o = cJSON_CreateObject();
    if (o) {
        cJSON_AddItemToObject(o, "device", lr_device_to_json(api->devs, d, 1));
        cJSON_AddStringToObject(o, "model_version", LR_MODEL_VERSION);
    }
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!s)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return s;
}

/* A stored device's name is a path segment of GET /v1/devices/{name} and a word on a
 * command line: letters, digits, '.', '_' and '-' need no quoting in either. */
static int name_ok(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
            return 0;
    return 1;
}

/* The checked device of a description to store, and the text to store (caller frees):
 * every figure as GET /v1/devices shows it (a "base" resolved), the file's sources,
 * no units (they come from the figure table when shown). NULL with err. */
static char *device_to_store(lr_api *api, const char *body, size_t len, est_device *dev,
                             lr_error *err)
{
    cJSON *root = lr_request_parse_json(body, len, err);
    if (!root)
        return NULL;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    char *text = NULL;
    if (!cJSON_IsObject(root))
        lr_error_set(err, LR_INVALID_REQUEST, "",
                     "must be a device object (as `launchrank calibrate` writes it)");
    else if (!name)
        lr_error_set(err, LR_INVALID_REQUEST, "name",
                     "missing: a stored device needs a name, which requests then use");
    else if (cJSON_IsString(name) && !name_ok(name->valuestring))
        lr_error_set(err, LR_INVALID_REQUEST, "name",
                     "may only hold letters, digits, '.', '_' and '-' (it is also a URL "
                     "path segment)");
    else if (lr_device_from_json(api->devs, root, "", dev, err) == 0) {
        int k = lr_devices_index(api->devs, dev->name);
        if (k >= 0 && !lr_devices_is_stored(api->devs, k)) {
            lr_error_set(err, LR_INVALID_REQUEST, "name",
                         "'%s' is a built-in device; a stored device never shadows one: "
                         "give it a name of its own",
                         lr_devices_get(api->devs, k)->name);
        } else {
            cJSON *o = lr_device_to_json(NULL, dev, 0);
            cJSON *src = cJSON_DetachItemFromObjectCaseSensitive(root, "sources");
            if (o && src)
                cJSON_AddItemToObject(o, "sources", src);
            else
                cJSON_Delete(src);
            text = o ? cJSON_PrintUnformatted(o) : NULL;
            cJSON_Delete(o);
            if (!text)
                lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        }
    }
    cJSON_Delete(root);
    return text;
}

/* The answer of devices add/remove: {key: name, ["replaced": bool,] "db", "model_version"};
 * replaced < 0 leaves "replaced" out. */
static char *device_answer(const lr_api *api, const char *key, const char *name, int replaced,
                           lr_error *err)
{
    cJSON *o = cJSON_CreateObject();
    char *out = NULL;
    if (o && cJSON_AddStringToObject(o, key, name) &&
        (replaced < 0 || cJSON_AddBoolToObject(o, "replaced", replaced)) &&
        cJSON_AddStringToObject(o, "db", api->db_path) &&
        cJSON_AddStringToObject(o, "model_version", LR_MODEL_VERSION))
        out = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!out)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return out;
}

char *lr_api_device_add(lr_api *api, const char *body, size_t len, int replace, lr_error *err)
{
    est_device dev;
    if (!api->db_path) {
        lr_error_set(err, LR_UNAVAILABLE, NULL, "no database to store the device in");
        return NULL;
    }
    char *text = device_to_store(api, body, len, &dev, err);
    if (!text)
        return NULL;
    st_store *st = st_open(api->db_path, err);
    int rc = st ? st_device_put(st, dev.name, text, 0, err) : -1, replaced = 0;
    if (rc == 1 && replace) {
        rc = st_device_put(st, dev.name, text, 1, err);
        replaced = 1;
    }
    st_close(st);
    free(text);
    if (rc == 1)
        lr_error_set(err, LR_INVALID_REQUEST, "name",
                     "a device '%s' is stored already; add --replace to replace it", dev.name);
    if (rc)
        return NULL;
    return device_answer(api, "name", dev.name, replaced, err);
}

char *lr_api_device_remove(lr_api *api, const char *name, lr_error *err)
{
    if (!api->db_path) {
        lr_error_set(err, LR_UNAVAILABLE, NULL, "no database to remove the device from");
        return NULL;
    }
    st_store *st = st_open(api->db_path, err);
    int rc = st ? st_device_remove(st, name, err) : -1;
    st_close(st);
    if (rc == 1)
        lr_error_set(err, LR_NOT_FOUND, NULL, "no stored device '%.64s' in '%s'", name,
                     api->db_path);
    if (rc)
        return NULL;
    return device_answer(api, "removed", name, -1, err);
}
