/*
 * api_rank: the rank endpoint (api.h, docs/model.md §7): every configuration of the
 * search space from the cache or the estimator, one order, the decision, and the
 * measurement of the best (api_estimate.c's api_measure_one).
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
        cJSON *m = api_measure_one(w, req, &cfg, predicted, &err);
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
                                   const unsigned char *fin, size_t n)
{
    for (size_t i = 0; req->has_baseline && i < n; i++)
        if (fin[i] && !res[i].launchable &&
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

/* The index of the request's baseline in its space when the time limit left it
 * unestimated (neither cached nor finished), else -1. */
static long baseline_unfinished(const lr_request *req, const unsigned char *skip,
                                const unsigned char *fin, size_t n)
{
    for (size_t i = 0; req->has_baseline && i < n; i++)
        if (!skip[i] && !fin[i] &&
            !memcmp(&req->space[i], &req->baseline, sizeof req->baseline))
            return (long)i;
    return -1;
}

/* A ranking the time limit cut short (docs/api.md, "A ranking past its time limit"):
 * adds the response's "incomplete" object, and a sentence in the decision (and in its
 * baseline's reason when the baseline was not reached) saying what they cover; done
 * configurations = cached + estimated. The response owns what is added. Returns 0, or
 * -1 when out of memory (the response is then not to be sent: it would be half built). */
static int mark_incomplete(cJSON *resp, const lr_request *req, size_t done, size_t n,
                           double limit_s, int baseline_missed)
{
    char msg[400];
    cJSON *o = cJSON_CreateObject();
    snprintf(msg, sizeof msg,
             "the ranking ran past its time limit of %g s: %zu of the %zu configurations "
             "were evaluated (cached or estimated) and are ranked here, the other %zu "
             "were not; rank fewer or raise the limit to rank them all",
             limit_s, done, n, n - done);
    int ok = o && cJSON_AddStringToObject(o, "reason", "time_limit") &&
             cJSON_AddNumberToObject(o, "evaluated", (double)done) &&
             cJSON_AddNumberToObject(o, "of", (double)n) &&
             cJSON_AddNumberToObject(o, "time_limit", limit_s) &&
             cJSON_AddStringToObject(o, "message", msg);
    if (!ok || !cJSON_AddItemToObject(resp, "incomplete", o)) {
        cJSON_Delete(o);
        return -1;
    }
    cJSON *d = cJSON_GetObjectItemCaseSensitive(resp, "decision");
    snprintf(msg, sizeof msg,
             "computed over the %zu of %zu configurations evaluated before the time limit: "
             "one of the other %zu may be better",
             done, n, n - done);
    if (!d || !cJSON_AddStringToObject(d, "incomplete", msg))
        return -1;
    cJSON *b = cJSON_GetObjectItemCaseSensitive(d, "baseline");
    if (!b || !baseline_missed)
        return 0;
    char bs[40], fs[40];
    const int *bl = req->baseline.block, *fl = req->baseline.folding;
    snprintf(bs, sizeof bs, "%dx%dx%d", bl[0], bl[1], bl[2]);
    snprintf(fs, sizeof fs, "%dx%dx%d", fl[0], fl[1], fl[2]);
    snprintf(msg, sizeof msg,
             "the baseline %s, folding %s was not evaluated before the time limit, so it "
             "cannot be compared; rank it alone or raise the limit",
             bs, fs);
    cJSON *r = cJSON_CreateString(msg);
    if (!r || !cJSON_ReplaceItemInObjectCaseSensitive(b, "reason", r)) {
        cJSON_Delete(r);
        return -1;
    }
    return 0;
}

/* A ranking as its lent threads see it: the caller's hooks, and the estimator's run
 * they are handed (set by run_open). Lives on lr_api_rank_with's stack. */
struct lr_rank_run {
    const lr_rank_hooks *hooks;
    est_rank_run *est;
};

/* The estimator's hooks (est_rank_hooks), passing each call on to the caller's. */
static void run_progress(void *user, size_t done, size_t total)
{
    const lr_rank_run *r = user;
    r->hooks->progress(r->hooks->user, done, total);
}

static int run_cancelled(void *user)
{
    const lr_rank_run *r = user;
    return r->hooks->cancelled(r->hooks->user);
}

static void run_pause(void *user)
{
    const lr_rank_run *r = user;
    r->hooks->pause(r->hooks->user);
}

static void run_open(void *user, est_rank_run *est)
{
    lr_rank_run *r = user;
    r->est = est;
    r->hooks->open(r->hooks->user, r);
}

static void run_close(void *user, est_rank_run *est)
{
    lr_rank_run *r = user;
    r->hooks->close(r->hooks->user, r);
}

void lr_rank_help(lr_worker *w, lr_rank_run *run, int (*leave)(void *), void *user)
{
    est_rank_help(run->est, w->ctx, leave, user);
}

char *lr_api_rank(lr_worker *w, const char *body, size_t len, lr_progress_fn progress,
                  void *progress_user, lr_error *err)
{
    lr_rank_hooks h = {.progress = progress, .user = progress_user};
    return lr_api_rank_with(w, body, len, &h, err);
}

char *lr_api_rank_with(lr_worker *w, const char *body, size_t len, const lr_rank_hooks *hooks,
                       lr_error *err)
{
    static const lr_rank_hooks none = {0};
    lr_rank_run run = {.hooks = hooks ? hooks : &none};
    est_rank_hooks eh = {.progress = run.hooks->progress ? run_progress : NULL,
                         .cancelled = run.hooks->cancelled ? run_cancelled : NULL,
                         .pause = run.hooks->pause ? run_pause : NULL,
                         .open = run.hooks->open ? run_open : NULL,
                         .close = run.hooks->close ? run_close : NULL,
                         .user = &run};
    lr_request req;
    if (lr_request_parse(w->api->devs, body, len, LR_REQ_RANK, &req, err))
        return NULL;
    size_t n = req.nspace, hits = 0;
    est_result *res = calloc(n, sizeof *res);
    rank_entry *ent = calloc(n, sizeof *ent);
    unsigned char *skip = calloc(n, 1);
    unsigned char *fin = calloc(n ? n : 1, 1); /* estimated here (est_rank) */
    size_t *order = calloc(n, sizeof *order);
    char(*keys)[33] = calloc(n, sizeof *keys);
    char *out = NULL;
    cJSON *resp = NULL;
    lr_choice *choices = NULL;
    long base_pos = -1;
    if (!res || !ent || !skip || !fin || !order || !keys) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        res[i].config.launch = req.space[i];
        memcpy(res[i].config.domain, req.domain, sizeof req.domain);
        ent[i].launch = req.space[i];
        lr_request_key(&req, &req.space[i], keys[i]);
        if ((ent[i].est = api_cache_get(w, &req, &req.space[i], keys[i]))) {
            skip[i] = 1;
            hits++;
        }
    }
    double limit_s = api_time_limit(w->api);
    if (est_rank(req.kernel, &req.device, res, n, skip, fin, threads_for(w->api),
                 (unsigned long)w->api->cfg.isl_max_operations, est_now() + limit_s,
                 w->api->stop, &eh, err)) {
        api_stopped(w->api, err);
        goto done;
    }
    size_t computed = 0;
    for (size_t i = 0; i < n; i++)
        computed += fin[i];
    if (hits + computed == 0 && n > 0) { /* nothing to rank: the limit is the answer */
        lr_error_set(err, LR_BUDGET_EXCEEDED, NULL,
                     "the ranking of %zu configurations ran past its time limit; rank fewer "
                     "or raise the limit",
                     n);
        api_stopped(w->api, err);
        goto done;
    }
    atomic_fetch_add(&w->api->evaluated, computed);
    for (size_t i = 0; i < n; i++) {
        if (!fin[i] || !res[i].launchable)
            continue;
        ent[i].est = lr_estimate_json(&res[i], req.kernel, &req.device);
        char *t = ent[i].est ? cJSON_PrintUnformatted(ent[i].est) : NULL;
        if (t)
            api_cache_put(w, &req, &req.space[i], keys[i], t);
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
                                           &req, baseline_reason(&req, res, fin, n)));
    if (hits + computed < n && mark_incomplete(resp, &req, hits + computed, n, limit_s,
                                               baseline_unfinished(&req, skip, fin, n) >= 0)) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        goto done;
    }
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
        if (!fin[i] || res[i].launchable)
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
    free(fin);
    free(order);
    free(keys);
    lr_request_release(&req);
    return out;
}
