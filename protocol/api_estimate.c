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
#include "jbuild.h"
#include "lr_hash.h"
#include "plausible.h"
#include "rank.h"
#include "request.h"
#include "response.h"
#include "store.h"

/* ---- cache ---- */

/* The stored prediction for the canonical request and configuration text config
 * under key (caller frees), with its stamp, or NULL when there is none that can be
 * trusted: no row, a row of another request, or a row whose stamp does not match its
 * text (damaged, or of another format). Rows are checked before they are stored
 * (api_cache_put), so a hit is served as it is read. The caller counts it (count). */
static char *cache_lookup(lr_worker *w, const char *canonical, const char *key,
                          const char *config, char stamp[LR_HASH_HEX])
{
    api_store_keep(w);
    if (!w->store)
        return NULL;
    char *json = NULL;
    lr_error e;
    lr_error_clear(&e);
    int rc = st_prediction_get_stamped(w->store, key, canonical, config, &json, stamp, &e);
    if (rc < 0)
        api_cache_failed(w->api, &e);
    else
        api_cache_ok(w->api);
    return rc == 1 ? json : (free(json), NULL);
}

/* Counts a lookup in /v1/stats: a hit, or a miss (which is then computed). */
static void count(lr_worker *w, int hit)
{
    atomic_fetch_add(hit ? &w->api->hits : &w->api->misses, 1);
}

/* cache_lookup of configuration l of req. */
static char *cache_get_text(lr_worker *w, const lr_request *req, const est_launch *l,
                            const char *key, char stamp[LR_HASH_HEX])
{
    char config[LR_CONFIG_TEXT];
    lr_request_config_text(l, config);
    return cache_lookup(w, req->canonical, key, config, stamp);
}

char *api_cache_get(lr_worker *w, const lr_request *req, const est_launch *l, const char *key)
{
    char stamp[LR_HASH_HEX];
    char *json = cache_get_text(w, req, l, key, stamp);
    count(w, json != NULL);
    return json;
}

/* Stores (or replaces) the prediction of configuration l of req, the estimate object est
 * printed as json, once est is checked to be exactly what lr_estimate_json writes for l:
 * the one check a row gets. */
void api_cache_put(lr_worker *w, const lr_request *req, const est_launch *l, const char *key,
                   const cJSON *est, const char *json)
{
    if (!w->store)
        return;
    est_config cfg = {.launch = *l};
    memcpy(cfg.domain, req->domain, sizeof cfg.domain);
    if (!lr_estimate_json_valid(est, req->kernel, &req->device, &cfg))
        return; /* a writer's bug or no memory: not cached, the answer itself stands */
    char config[LR_CONFIG_TEXT];
    lr_error e;
    lr_error_clear(&e);
    lr_request_config_text(l, config);
    if (st_prediction_put(w->store, key, req->canonical, config, "estimate", json, &e))
        api_cache_failed(w->api, &e);
    else
        api_cache_ok(w->api);
}

/* The warnings of launch l of req (plausible.h): those of the request (registers
 * assumed last), then those of the configuration, whose estimate object is est. A new
 * array (caller owns) or NULL. */
static cJSON *warnings_of(const lr_request *req, const est_launch *l, const cJSON *est)
{
    jb b = {0};
    lr_plausible *p = lr_plausible_new(req);
    cJSON *w = p ? lr_plausible_request_warnings(p) : NULL,
          *c = p && w ? lr_plausible_warnings(p, l, est) : NULL;
    if (w)
        lr_plausible_registers_estimate(&b, w, req, l);
    while (c && c->child)
        jb_item(&b, w, NULL, cJSON_DetachItemViaPointer(c, c->child));
    /* out of memory: no answer, not one without its configuration's warnings */
    b.failed |= !c;
    cJSON_Delete(c);
    lr_plausible_free(p);
    return jb_finish(&b, w);
}

/* The estimate response: a prediction's text (stored texts hold neither) with the
 * printed warnings array and "cached" added as its last members. The text is
 * extended, not printed again: the same bytes as printing the whole tree, since cJSON
 * prints what it parsed from its own output unchanged. */
static char *with_warnings(const char *text, const char *warnings, int cached, lr_error *err)
{
    static const char mid[] = ",\"warnings\":";
    const char *tail = cached ? ",\"cached\":true}" : ",\"cached\":false}";
    size_t n = strlen(text), nw = strlen(warnings), nt = strlen(tail);
    char *out = n >= 2 && text[n - 1] == '}' ? malloc(n - 1 + sizeof mid - 1 + nw + nt + 1)
                                             : NULL;
    if (!out) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    char *p = out;
    memcpy(p, text, n - 1), p += n - 1;
    memcpy(p, mid, sizeof mid - 1), p += sizeof mid - 1;
    memcpy(p, warnings, nw), p += nw;
    memcpy(p, tail, nt + 1);
    return out;
}

/* The printed warnings of req's launch answered with the estimate object est (malloc'd),
 * or NULL when out of memory. */
static char *warnings_printed(const lr_request *req, const cJSON *est)
{
    cJSON *w = warnings_of(req, &req->launch, est);
    char *printed = w ? cJSON_PrintUnformatted(w) : NULL;
    cJSON_Delete(w);
    return printed;
}

/* warnings_printed of the prediction text. */
static char *warnings_text(const lr_request *req, const char *text)
{
    cJSON *o = cJSON_Parse(text);
    char *printed = o ? warnings_printed(req, o) : NULL;
    cJSON_Delete(o);
    return printed;
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
int api_memory_check(const lr_api *api, const lr_request *req, unsigned threads, lr_error *err)
{
    long mb = api->cfg.max_request_mb ? api->cfg.max_request_mb : LR_DEFAULT_MAX_REQUEST_MB;
    return lr_request_memory_check(req, threads, mb, err);
}

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
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", m.cc_major, m.cc_minor);
    jb b = {0};
    cJSON *j = jb_new_obj(&b);
    jb_num(&b, j, "ms_min", m.ms_min);
    jb_num(&b, j, "ms_median", m.ms_median);
    jb_num(&b, j, "ms_max", m.ms_max);
    jb_num(&b, j, "glups", m.glups);
    jb_str(&b, j, "gpu", m.gpu_name);
    jb_str(&b, j, "compute_capability", cc);
    jb_num(&b, j, "driver_version", m.driver_version);
    jb_num(&b, j, "warmup", o.warmup);
    jb_num(&b, j, "repetitions", o.repetitions);
    jb_bool(&b, j, "flush_l2", o.flush_l2);
    jb_num(&b, j, "predicted_over_measured", m.glups > 0 ? predicted / m.glups : 0);
    if (!(j = jb_finish(&b, j))) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
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

/* Estimates one configuration of req, stopped at the api's time limit from now or at
 * deadline (0: none) if earlier: its estimate object (caller owns; no "warnings" or
 * "cached"), or NULL with err. */
static cJSON *estimate_tree(lr_worker *w, const lr_request *req, const est_launch *l,
                            est_result *r, double deadline, lr_error *err)
{
    est_config cfg = {.launch = *l};
    memcpy(cfg.domain, req->domain, sizeof cfg.domain);
    double limit = est_now() + api_time_limit(w->api);
    est_ctx_set_deadline(w->ctx, deadline > 0 && deadline < limit ? deadline : limit);
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
    if (!o)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return o;
}

/* The answer to body from the cache through w's memo: 1 with *out; 0 when the memo
 * does not know body, when the cache holds another row for it (then parsed as if
 * new), or when the cache no longer holds one (*looked set: it is to be computed). */
static int estimate_memo(lr_worker *w, const char *body, size_t len, char **out, int *looked,
                         lr_error *err)
{
    const lr_memo_entry *m = w->memo ? lr_memo_find(w->memo, body, len) : NULL;
    *looked = 0;
    if (!m)
        return 0;
    char stamp[LR_HASH_HEX];
    char *text = cache_lookup(w, m->canonical, m->key, m->config, stamp);
    *looked = !text;
    int same = text && strcmp(stamp, m->stamp) == 0;
    if (same) {
        count(w, 1);
        *out = with_warnings(text, m->warnings, 1, err);
    }
    free(text);
    return same ? (*out ? 1 : -1) : 0;
}

/* The answer to the estimate req (whose body is body) from the cache, or NULL when it
 * is not there; remembered in w's memo. */
static char *estimate_cached(lr_worker *w, const lr_request *req, const char *key,
                             const char *body, size_t len, lr_error *err)
{
    char stamp[LR_HASH_HEX], config[LR_CONFIG_TEXT];
    lr_request_config_text(&req->launch, config);
    char *text = cache_lookup(w, req->canonical, key, config, stamp);
    if (text || !body)
        count(w, text != NULL); /* a miss with a body is counted where it is computed */
    char *warnings = text ? warnings_text(req, text) : NULL, *out = NULL;
    if (text && !warnings)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (warnings)
        out = with_warnings(text, warnings, 1, err);
    if (out && body && (w->memo || (w->memo = lr_memo_new()))) {
        lr_memo_entry e = {req->canonical, key, config, stamp, warnings};
        lr_memo_put(w->memo, body, len, &e);
    }
    cJSON_free(warnings);
    free(text);
    return out;
}

int lr_api_estimate_cached(lr_worker *w, const char *body, size_t len, char **out,
                           lr_error *err)
{
    *out = NULL;
    int looked = 0, rc = estimate_memo(w, body, len, out, &looked, err);
    if (rc != 0 || looked)
        return rc; /* answered, failed, or the row is gone: to be computed */
    lr_request req;
    if (api_parse(w, body, len, LR_REQ_ESTIMATE, 0, &req, err))
        return -1;
    if (api_memory_check(w->api, &req, 1, err)) {
        lr_request_release(&req);
        return -1;
    }
    char key[LR_HASH_HEX];
    lr_request_key(&req, &req.launch, key);
    *out = estimate_cached(w, &req, key, body, len, err);
    rc = *out ? 1 : lr_error_is_set(err) ? -1 : 0;
    lr_request_release(&req);
    return rc;
}

char *lr_api_estimate(lr_worker *w, const char *body, size_t len, lr_error *err)
{
    return api_estimate_with(w, body, len, api_arrays(w), 0, err);
}

char *api_estimate_with(lr_worker *w, const char *body, size_t len, const lr_arrays *arrays,
                        double deadline, lr_error *err)
{
    lr_request req;
    if (api_parse_arrays(w, body, len, LR_REQ_ESTIMATE, 0, arrays, &req, err))
        return NULL;
    if (api_memory_check(w->api, &req, 1, err)) {
        lr_request_release(&req);
        return NULL;
    }
    char key[LR_HASH_HEX];
    lr_request_key(&req, &req.launch, key);
    char *out = estimate_cached(w, &req, key, NULL, 0, err);
    if (!out && !lr_error_is_set(err)) {
        /* the object is printed once, checked for the cache and warned about as it is */
        est_result *r = malloc(sizeof *r);
        cJSON *o = r ? estimate_tree(w, &req, &req.launch, r, deadline, err)
                     : (lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory"), NULL);
        free(r);
        char *text = o ? cJSON_PrintUnformatted(o) : NULL;
        char *warnings = text ? warnings_printed(&req, o) : NULL;
        if (o && !warnings)
            lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        if (warnings) {
            api_cache_put(w, &req, &req.launch, key, o, text);
            out = with_warnings(text, warnings, 0, err);
        }
        cJSON_free(warnings);
        cJSON_free(text);
        cJSON_Delete(o);
    }
    lr_request_release(&req);
    return out;
}

char *lr_api_measure(lr_worker *w, const char *body, size_t len, lr_error *err)
{
    lr_request req;
    if (api_parse(w, body, len, LR_REQ_ESTIMATE, 0, &req, err))
        return NULL;
    est_result *r = malloc(sizeof *r);
    cJSON *o = r ? estimate_tree(w, &req, &req.launch, r, 0, err)
                 : (lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory"), NULL);
    char *out = NULL;
    cJSON *m = o ? api_measure_one(w, &req, &r->config, r->predicted, err) : NULL;
    if (m) {
        jb b = {0};
        jb_item(&b, o, "measured", m);
        jb_bool(&b, o, "cached", 0);
        o = jb_finish(&b, o);
        out = o ? cJSON_PrintUnformatted(o) : NULL;
        if (!out)
            lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    cJSON_Delete(o);
    free(r);
    lr_request_release(&req);
    return out;
}

char *lr_api_emit(lr_worker *w, const char *body, size_t len, lr_error *err)
{
    lr_request req;
    if (api_parse(w, body, len, LR_REQ_ESTIMATE, 0, &req, err))
        return NULL;
    est_config cfg = {.launch = req.launch};
    memcpy(cfg.domain, req.domain, sizeof cfg.domain);
    char *src = bounds_error(&req, err) ? NULL : cg_emit_source(req.kernel, &cfg, err);
    lr_request_release(&req);
    return src;
}
