/*
 * api_estimate: the cache lookups every endpoint shares, and the estimate, measure and
 * emit endpoints (api.h). A row read from the cache is trusted only when it answers
 * exactly this request (the store compares the canonical request and the
 * configuration, not only their hash) and has exactly the shape the response writer
 * gives this configuration (lr_estimate_json_valid); any other row is a miss,
 * recomputed and replaced, never served or read.
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
#include "lr_hash.h"
#include "plausible.h"
#include "rank.h"
#include "request.h"
#include "response.h"
#include "store.h"

/* ---- cache ---- */

/* The cached estimate object of configuration l of req (caller owns), or NULL when
 * there is none that can be trusted: no row, a row of another request, or a row that
 * does not parse or is not exactly what lr_estimate_json writes for l. */
cJSON *api_cache_get(lr_worker *w, const lr_request *req, const est_launch *l, const char *key)
{
    api_store_keep(w);
    if (!w->store)
        return NULL;
    char *json = NULL, config[LR_CONFIG_TEXT];
    lr_error e;
    lr_error_clear(&e);
    lr_request_config_text(l, config);
    int rc = st_prediction_get(w->store, key, req->canonical, config, &json, &e);
    if (rc < 0)
        api_cache_failed(w->api, &e);
    else
        api_cache_ok(w->api);
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
void api_cache_put(lr_worker *w, const lr_request *req, const est_launch *l, const char *key,
                   const char *json)
{
    if (!w->store)
        return;
    char config[LR_CONFIG_TEXT];
    lr_error e;
    lr_error_clear(&e);
    lr_request_config_text(l, config);
    if (st_prediction_put(w->store, key, req->canonical, config, "estimate", json, &e))
        api_cache_failed(w->api, &e);
    else
        api_cache_ok(w->api);
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
    if (!c) /* out of memory: no answer, not one without its configuration's warnings */
        cJSON_Delete(w), w = NULL;
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
double api_time_limit(const lr_api *api)
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
cJSON *api_measure_one(lr_worker *w, const lr_request *req, const est_config *cfg,
                       double predicted, lr_error *err)
{
    cg_measure_opts o;
    cg_measurement m;
    if (bounds_error(req, err) || (est_stop_raised(w->api->stop) && api_stopped(w->api, err)))
        return NULL;
    measure_opts(req, &o);
    pthread_mutex_lock(&gpu_lock);
    /* the same limit as an estimate's, from when this measurement has the GPU */
    o.deadline = est_now() + api_time_limit(w->api);
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
            api_cache_failed(w->api, &e);
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
    est_ctx_set_deadline(w->ctx, est_now() + api_time_limit(w->api));
    int rc = est_estimate(w->ctx, req->kernel, &req->device, &cfg, r, err);
    est_ctx_set_deadline(w->ctx, 0);
    atomic_fetch_add(&w->api->evaluated, 1);
    if (rc) {
        api_stopped(w->api, err);
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
    cJSON *hit = api_cache_get(w, &req, &req.launch, key);
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
            api_cache_put(w, &req, &req.launch, key, text);
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
    cJSON *m = o ? api_measure_one(w, &req, &r->config, r->predicted, err) : NULL;
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
