/*
 * fake_api.c: a stand-in for protocol/ that lets tests/server exercise the HTTP
 * layer alone. It implements protocol/api.h with behaviour the test can steer from
 * the request body:
 *   - a body that is not JSON            -> invalid_json
 *   - {"bad": ...}                        -> invalid_request at kernel.fields[0].loads[3][1]
 *   - {"fail": "<code name>"}             -> that error code, at path "fake.path"
 *   - anything else                       -> {"ok":true,...} and one cache miss
 *   - {"sleep_ms": N, ...}                -> sleeps N ms first (then as above); a
 *                                            cancelled api ends the sleep and answers
 *                                            unavailable, and so does a ranking
 *                                            whose hooks say it is cancelled (its
 *                                            client hung up), as estimator/rank.c
 * lr_api_rank sleeps 200 ms unless sleep_ms says otherwise, so a test can signal
 * the daemon mid-request; sleep_ms lets a test hold a compute thread.
 * Workers remember their thread and abort if used or freed on another one: the
 * contract of api.h, checked on every call.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "api.h"

struct lr_api {
    int has_db;
    atomic_int cancelled; /* lr_api_cancel was called: sleeps end, answers are 503 */
    atomic_uint_least64_t hits, misses;
};

struct lr_worker {
    lr_api *api;
    pthread_t owner;
};

lr_api *lr_api_new(const lr_api_config *cfg, lr_error *err)
{
    /* A db path of "FAIL" lets the test check the daemon's start-up failure. */
    if (cfg->db_path && strcmp(cfg->db_path, "FAIL") == 0) {
        lr_error_set(err, LR_INTERNAL, NULL, "fake api asked to fail");
        return NULL;
    }
    lr_api *api = calloc(1, sizeof *api);
    if (!api) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    api->has_db = cfg->db_path != NULL;
    return api;
}

void lr_api_free(lr_api *api)
{
    free(api);
}

const char *lr_api_cache_status(const lr_api *api)
{
    return api->has_db ? "ok" : "no database configured";
}

uint64_t lr_api_cache_failures(const lr_api *api, const char **last)
{
    (void)api;
    *last = NULL;
    return 0;
}

const char *lr_api_devices_warning(const lr_api *api)
{
    (void)api;
    return NULL;
}

lr_worker *lr_worker_new(lr_api *api, lr_error *err)
{
    lr_worker *w = malloc(sizeof *w);
    if (!w) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    w->api = api;
    w->owner = pthread_self();
    return w;
}

static void check_owner(const lr_worker *w)
{
    if (!pthread_equal(w->owner, pthread_self()))
        abort(); /* a worker crossed threads: the daemon broke api.h's contract */
}

void lr_worker_free(lr_worker *w)
{
    if (!w)
        return;
    check_owner(w);
    free(w);
}

static char *dup_text(const char *s, lr_error *err)
{
    char *d = strdup(s);
    if (!d)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return d;
}

/* Whether a ranking's hooks (NULL: none) say that it is cancelled: asked before
 * each 10 ms, as estimator/rank.c asks before each configuration. */
static int hooks_cancelled(const lr_rank_hooks *hooks)
{
    return hooks && hooks->cancelled && hooks->cancelled(hooks->user);
}

/* At most 10 s, so that a typo cannot hang a test; in 10 ms steps that end at once
 * when the api is cancelled, as the estimator's deadline checks do, or the hooks
 * say so. Returns whether the hooks did. */
static int sleep_ms(lr_api *api, double ms, const lr_rank_hooks *hooks)
{
    long m = ms <= 0 ? 0 : ms >= 10000 ? 10000 : (long)ms;
    for (long slept = 0; slept < m && !atomic_load(&api->cancelled); slept += 10) {
        if (hooks_cancelled(hooks))
            return 1;
        long step = m - slept < 10 ? m - slept : 10;
        struct timespec t = {0, step * 1000000L};
        nanosleep(&t, NULL);
    }
    return hooks_cancelled(hooks);
}

void lr_api_cancel(lr_api *api)
{
    atomic_store(&api->cancelled, 1);
}

/* The steering described at the top; returns the body for success or NULL. hooks:
 * a ranking's (NULL for an estimate). */
static char *answer(lr_worker *w, const char *body, size_t len, double default_sleep_ms,
                    const char *ok_text, const lr_rank_hooks *hooks, lr_error *err)
{
    check_owner(w);
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    if (!doc) {
        sleep_ms(w->api, default_sleep_ms, NULL);
        lr_error_set(err, LR_INVALID_JSON, NULL, "the body is not JSON (byte %zu)",
                     end ? (size_t)(end - body) : (size_t)0);
        return NULL;
    }
    const cJSON *nap = cJSON_GetObjectItemCaseSensitive(doc, "sleep_ms");
    char *out = NULL;
    if (sleep_ms(w->api, cJSON_IsNumber(nap) ? nap->valuedouble : default_sleep_ms, hooks)) {
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "the ranking was cancelled: its client closed the connection");
        cJSON_Delete(doc);
        return NULL;
    }
    if (atomic_load(&w->api->cancelled)) {
        lr_error_set(err, LR_UNAVAILABLE, NULL, "fake api cancelled");
        cJSON_Delete(doc);
        return NULL;
    }
    const cJSON *fail = cJSON_GetObjectItemCaseSensitive(doc, "fail");
    if (cJSON_GetObjectItemCaseSensitive(doc, "bad")) {
        lr_error_set(err, LR_INVALID_REQUEST, "kernel.fields[0].loads[3][1]",
                     "kernel.fields[0].loads[3][1]: 'x*y' is not affine once the launch "
                     "is known");
    } else if (cJSON_IsString(fail)) {
        lr_code code = LR_INTERNAL;
        for (int c = 0; c < LR_CODE_COUNT; c++)
            if (strcmp(lr_code_name(c), fail->valuestring) == 0)
                code = c;
        lr_error_set(err, code, "fake.path", "fake failure: %s", fail->valuestring);
    } else {
        atomic_fetch_add(&w->api->misses, 1);
        out = dup_text(ok_text, err);
    }
    cJSON_Delete(doc);
    return out;
}

char *lr_api_estimate(lr_worker *w, const char *body, size_t len, lr_error *err)
{
    return answer(w, body, len, 0, "{\"ok\":true,\"model_version\":\"x\"}", NULL, err);
}

/* Nothing is cached here: every estimate goes to the compute pool, whose behaviour
 * these tests are about. */
int lr_api_estimate_cached(lr_worker *w, const char *body, size_t len, char **out,
                           lr_error *err)
{
    (void)w, (void)body, (void)len, (void)err;
    *out = NULL;
    return 0;
}

char *lr_api_levels(lr_worker *w, const char *body, size_t len, lr_levels_fn progress,
                    void *user, lr_error *err)
{
    return answer(w, body, len, 0, "{\"rows\":[],\"model_version\":\"x\"}", NULL, err);
}

static const char rank_text[] = "{\"ranking\":[],\"model_version\":\"x\"}";

char *lr_api_rank(lr_worker *w, const char *body, size_t len, lr_progress_fn progress,
                  void *progress_user, lr_error *err)
{
    return answer(w, body, len, 200, rank_text, NULL, err);
}

/* As lr_api_rank, cancelled when hooks->cancelled says so. The fake lends no
 * configurations (it never calls hooks->open), so the pool's helpers never reach
 * lr_rank_help. */
char *lr_api_rank_with(lr_worker *w, const char *body, size_t len, const lr_rank_hooks *hooks,
                       lr_error *err)
{
    return answer(w, body, len, 200, rank_text, hooks, err);
}

void lr_rank_help(lr_worker *w, lr_rank_run *run, int (*leave)(void *), void *user)
{
    abort(); /* no ranking of the fake is ever open */
}

char *lr_api_devices(lr_api *api, lr_error *err)
{
    return dup_text("{\"devices\":[{\"name\":\"h100\"}],\"model_version\":\"x\"}", err);
}

char *lr_api_device(lr_api *api, const char *name, lr_error *err)
{
    if (strcmp(name, "h100") != 0) {
        lr_error_set(err, LR_NOT_FOUND, NULL, "no device '%s'; GET /v1/devices lists them",
                     name);
        return NULL;
    }
    return dup_text("{\"name\":\"h100\",\"model_version\":\"x\"}", err);
}

/* Arrays: the fake keeps none (tests/server/test_arrays.py runs the real daemon). */
char *lr_api_array_put(lr_worker *w, const char *sha256, const char *format, const void *data,
                       size_t len, const char *data_sha256, int *created, lr_error *err)
{
    (void)w, (void)sha256, (void)format, (void)data, (void)len, (void)data_sha256;
    *created = 0;
    lr_error_set(err, LR_UNAVAILABLE, NULL, "the fake api keeps no arrays");
    return NULL;
}

int lr_api_array_get(lr_worker *w, const char *sha256, char **data, size_t *len, lr_error *err)
{
    (void)w;
    *data = NULL;
    *len = 0;
    return lr_error_set(err, LR_NOT_FOUND, "sha256", "no array %.64s", sha256);
}

void lr_api_get_stats(const lr_api *api, lr_api_stats *out)
{
    out->cache_hits = atomic_load(&((lr_api *)api)->hits);
    out->cache_misses = atomic_load(&((lr_api *)api)->misses);
    /* every answered estimate or rank counts as one configuration evaluated */
    out->configurations_evaluated = out->cache_misses;
    out->measurements = 0;
}
