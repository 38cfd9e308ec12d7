/*
 * api: see api.h. The api object and its workers (one SQLite connection and one
 * estimator context per computing thread), the cache's health, which never fails a
 * request (a failure is computed around and reported once, through
 * lr_api_cache_status, until an operation succeeds again), the stored devices, and
 * the device endpoints. The cache lookups and the estimate, measure and emit endpoints
 * are in api_estimate.c, rank in api_rank.c; api_int.h is what they share.
 */
#include "api_int.h"

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
#include "jbuild.h"
#include "lr_hash.h"
#include "plausible.h"
#include "rank.h"
#include "request.h"
#include "response.h"
#include "store.h"

/* Records a cache failure as the cache's status until an operation succeeds, and
 * counts it (lr_api_cache_failures). */
void api_cache_failed(lr_api *api, const lr_error *e)
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
    atomic_store(&api->cache_last, msg ? msg : too_many);
    atomic_store(&api->cache_error, msg ? msg : too_many);
    atomic_fetch_add(&api->cache_failures, 1);
}

/* A cache operation succeeded: the cache works (again). */
void api_cache_ok(lr_api *api)
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
        api_cache_failed(api, &c.err);
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
    api->sources = cg_usage_cache_new(); /* NULL (no memory): each request compiles */
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
            api_cache_failed(api, &e);
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
    cg_usage_cache_free(api->sources);
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
int api_stopped(const lr_api *api, lr_error *err)
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

uint64_t lr_api_cache_failures(const lr_api *api, const char **last)
{
    /* the count first: api_cache_failed stores a reason before it counts it */
    uint64_t n = atomic_load(&((lr_api *)api)->cache_failures);
    *last = atomic_load(&((lr_api *)api)->cache_last);
    return n;
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
void api_store_keep(lr_worker *w)
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
            api_cache_failed(api, &e);
        return;
    }
    st_set_max_predictions(w->store,
                           api->cfg.cache_max > 0 ? api->cfg.cache_max : LR_DEFAULT_CACHE_MAX);
    st_set_max_array_bytes(
        w->store,
        (api->cfg.max_arrays_mb > 0 ? api->cfg.max_arrays_mb : LR_DEFAULT_MAX_ARRAYS_MB) << 20);
    st_set_row_format(w->store, LR_ESTIMATE_FORMAT);
    api_cache_ok(api);
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
    api_store_keep(w);
    return w;
}

void lr_worker_free(lr_worker *w)
{
    if (!w)
        return;
    est_ctx_free(w->ctx);
    st_close(w->store);
    lr_memo_free(w->memo);
    free(w);
}

char *lr_api_devices(lr_api *api, lr_error *err)
{
    jb b = {0};
    cJSON *o = jb_new_obj(&b);
    cJSON *arr = jb_arr(&b, o, "devices");
    for (int i = 0; !b.failed && i < lr_devices_count(api->devs); i++)
        jb_item(&b, arr, NULL, lr_device_to_json(api->devs, lr_devices_get(api->devs, i), 1));
    jb_str(&b, o, "model_version", LR_MODEL_VERSION);
    o = jb_finish(&b, o);
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
    jb b = {0};
    cJSON *o = jb_new_obj(&b);
    jb_item(&b, o, "device", lr_device_to_json(api->devs, d, 1));
    jb_str(&b, o, "model_version", LR_MODEL_VERSION);
    o = jb_finish(&b, o);
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
            jb b = {0};
            cJSON *o = lr_device_to_json(NULL, dev, 0);
            cJSON *src = cJSON_DetachItemFromObjectCaseSensitive(root, "sources");
            if (src) /* kept whole, or the device is not stored */
                jb_item(&b, o, "sources", src);
            o = jb_finish(&b, o);
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
    jb b = {0};
    cJSON *o = jb_new_obj(&b);
    jb_str(&b, o, key, name);
    if (replaced >= 0)
        jb_bool(&b, o, "replaced", replaced);
    jb_str(&b, o, "db", api->db_path);
    jb_str(&b, o, "model_version", LR_MODEL_VERSION);
    o = jb_finish(&b, o);
    char *out = o ? cJSON_PrintUnformatted(o) : NULL;
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
