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
#include "jbuild.h"
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
    lr_rank_key key; /* read back from est, as the response reports it */
} rank_entry;

/* Times the first top results in order (results[i] is entry order[i]); fills each
 * item's "measured" (or its error) and adds the response's "measure" summary to resp,
 * through b. The configurations come from the entries, not read back out of the JSON.
 * Out of memory, here or in a measurement, sets b->failed: an answer with a
 * measurement reported as failed for want of memory is not the answer either. */
static void measure_top(jb *b, lr_worker *w, const lr_request *req, cJSON *resp, cJSON *results,
                        const rank_entry *ent, const size_t *order)
{
    cJSON *summary = jb_obj(b, resp, "measure");
    int n = cJSON_GetArraySize(results), top = req->measure.top < n ? req->measure.top : n;
    int best = -1, measured = 0;
    double best_glups = 0;
    lr_error err;
    for (int i = 0; i < top; i++) {
        cJSON *item = cJSON_GetArrayItem(results, i);
        const rank_entry *e = &ent[order[i]];
        est_config cfg = {.launch = e->launch};
        memcpy(cfg.domain, req->domain, sizeof cfg.domain);
        double predicted = e->key.predicted;
        lr_error_clear(&err);
        cJSON *m = api_measure_one(w, req, &cfg, predicted, &err);
        if (!m && err.code == LR_NO_MEMORY) {
            b->failed = 1;
            return;
        }
        if (!m && err.code == LR_UNAVAILABLE) {
            jb_str(b, summary, "status", "unavailable");
            jb_str(b, summary, "reason", err.message);
            return;
        }
        if (!m) {
            cJSON *ee = jb_obj(b, jb_obj(b, item, "measured"), "error");
            jb_str(b, ee, "code", lr_code_name(err.code));
            jb_str(b, ee, "message", err.message);
            continue;
        }
        double g = cJSON_GetNumberValue(cJSON_GetObjectItem(m, "glups"));
        if (g > best_glups) {
            best_glups = g;
            best = i;
        }
        measured++;
        jb_item(b, item, "measured", m);
    }
    jb_str(b, summary, "status", "ok");
    jb_num(b, summary, "measured", measured);
    if (best >= 0) {
        cJSON *item = cJSON_GetArrayItem(results, best), *f = jb_obj(b, summary, "fastest");
        jb_num(b, f, "rank", best + 1);
        jb_item(b, f, "block", cJSON_Duplicate(cJSON_GetObjectItem(item, "block"), 1));
        jb_item(b, f, "folding", cJSON_Duplicate(cJSON_GetObjectItem(item, "folding"), 1));
        jb_num(b, f, "glups", best_glups);
    }
}

static double num_at(const cJSON *o, const char *obj, const char *key)
{
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, obj), key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void entry_keys(rank_entry *e)
{
    e->key.predicted = num_at(e->est, "performance", "predicted");
    e->key.dram =
        num_at(e->est, "estimate", "dram_load") + num_at(e->est, "estimate", "dram_store");
    e->key.l2 = num_at(e->est, "estimate", "l2_load") + num_at(e->est, "estimate", "l2_store");
}

/* An entry's sort key beside its index: what qsort orders, so that the comparison
 * needs nothing outside its two arguments (C11's qsort passes no context). */
typedef struct keyed_entry {
    lr_rank_key key;
    size_t i;
} keyed_entry;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_entry *x = a, *y = b;
    int c = lr_rank_key_cmp(&x->key, &y->key);
    if (c)
        return c;
    return x->i < y->i ? -1 : 1;
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

unsigned api_rank_threads(const lr_api *api)
{
    int t = threads_for(api);
    return (unsigned)(api->cfg.compute_threads > t ? api->cfg.compute_threads : t);
}

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
 * configurations have warnings of their own; NULL (and b->failed) when out of memory. */
static cJSON *rank_warnings(jb *b, const lr_request *req, const lr_choice *c, size_t m)
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
        cJSON *o = jb_obj(b, w, NULL);
        jb_str(b, o, "code", "configurations_with_warnings");
        jb_str(b, o, "message", msg);
        jb_str(b, o, "path", "results");
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
 * configurations = cached + estimated. The response owns what is added; out of memory
 * sets b->failed (the response is then not to be sent: it would be half built). */
static void mark_incomplete(jb *b, cJSON *resp, const lr_request *req, size_t done, size_t n,
                            double limit_s, int baseline_missed)
{
    char msg[400];
    cJSON *o = jb_obj(b, resp, "incomplete");
    snprintf(msg, sizeof msg,
             "the ranking ran past its time limit of %g s: %zu of the %zu configurations "
             "were evaluated (cached or estimated) and are ranked here, the other %zu "
             "were not; rank fewer or raise the limit to rank them all",
             limit_s, done, n, n - done);
    jb_str(b, o, "reason", "time_limit");
    jb_num(b, o, "evaluated", (double)done);
    jb_num(b, o, "of", (double)n);
    jb_num(b, o, "time_limit", limit_s);
    jb_str(b, o, "message", msg);
    cJSON *d = cJSON_GetObjectItemCaseSensitive(resp, "decision");
    snprintf(msg, sizeof msg,
             "computed over the %zu of %zu configurations evaluated before the time limit: "
             "one of the other %zu may be better",
             done, n, n - done);
    jb_str(b, d, "incomplete", msg);
    cJSON *base = cJSON_GetObjectItemCaseSensitive(d, "baseline");
    if (!base || !baseline_missed)
        return;
    char bs[40], fs[40];
    const int *bl = req->baseline.block, *fl = req->baseline.folding;
    snprintf(bs, sizeof bs, "%dx%dx%d", bl[0], bl[1], bl[2]);
    snprintf(fs, sizeof fs, "%dx%dx%d", fl[0], fl[1], fl[2]);
    snprintf(msg, sizeof msg,
             "the baseline %s, folding %s was not evaluated before the time limit, so it "
             "cannot be compared; rank it alone or raise the limit",
             bs, fs);
    jb_set_str(b, base, "reason", msg);
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

/* One ranking's working state (lr_api_rank_with): its request and, per configuration
 * of its space (n of them), the estimator's result, the entry, whether it came from
 * the cache (skip) or was estimated here (fin), its cache key, and the order of the
 * launchable ones (m). All owned; freed by state_free. */
typedef struct rank_state {
    lr_request req;
    size_t n, hits, computed, m;
    est_result *res;
    rank_entry *ent;
    unsigned char *skip, *fin;
    size_t *order;
    char (*keys)[33];
    lr_choice *choices;
    long base_pos;  /* the baseline's place in the order, or -1 */
    double limit_s; /* the ranking's time limit */
} rank_state;

static int state_alloc(rank_state *s, lr_error *err)
{
    size_t n = s->n;
    s->res = calloc(n, sizeof *s->res);
    s->ent = calloc(n, sizeof *s->ent);
    s->skip = calloc(n, 1);
    s->fin = calloc(n ? n : 1, 1);
    s->order = calloc(n, sizeof *s->order);
    s->keys = calloc(n, sizeof *s->keys);
    s->base_pos = -1;
    if (s->res && s->ent && s->skip && s->fin && s->order && s->keys)
        return 0;
    return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
}

static void state_free(rank_state *s)
{
    for (size_t i = 0; s->ent && i < s->n; i++) {
        cJSON_Delete(s->ent[i].est);
        cJSON_Delete(s->ent[i].warn);
    }
    free(s->choices);
    free(s->res);
    free(s->ent);
    free(s->skip);
    free(s->fin);
    free(s->order);
    free(s->keys);
    lr_request_release(&s->req);
}

/* Sets up every configuration and takes what the cache has (skip, hits). */
static void rank_lookup(lr_worker *w, rank_state *s)
{
    const lr_request *req = &s->req;
    for (size_t i = 0; i < s->n; i++) {
        s->res[i].config.launch = req->space[i];
        memcpy(s->res[i].config.domain, req->domain, sizeof req->domain);
        s->ent[i].launch = req->space[i];
        lr_request_key(req, &req->space[i], s->keys[i]);
        if ((s->ent[i].est = api_cache_get(w, req, &req->space[i], s->keys[i]))) {
            s->skip[i] = 1;
            s->hits++;
        }
    }
}

/* Estimates the configurations the cache lacked (est_rank, with the caller's hooks)
 * and counts them (computed). 0, or -1 with err: the ranking failed or was stopped,
 * or the time limit came before any configuration was evaluated. */
static int rank_compute(lr_worker *w, rank_state *s, const est_rank_hooks *eh, lr_error *err)
{
    const lr_request *req = &s->req;
    s->limit_s = api_time_limit(w->api);
    if (est_rank(req->kernel, &req->device, s->res, s->n, s->skip, s->fin, threads_for(w->api),
                 (unsigned long)w->api->cfg.isl_max_operations, est_now() + s->limit_s,
                 w->api->stop, eh, err))
        return api_stopped(w->api, err);
    for (size_t i = 0; i < s->n; i++)
        s->computed += s->fin[i];
    if (s->hits + s->computed == 0 && s->n > 0) { /* nothing to rank: the limit is the answer */
        lr_error_set(err, LR_BUDGET_EXCEEDED, NULL,
                     "the ranking of %zu configurations ran past its time limit; rank fewer "
                     "or raise the limit",
                     s->n);
        return api_stopped(w->api, err);
    }
    atomic_fetch_add(&w->api->evaluated, s->computed);
    return 0;
}

/* The estimate objects of the launchable configurations estimated here, each stored
 * in the cache. 0, or -1 with err when out of memory (a configuration without its
 * estimate object would drop out of the ranking unseen). */
static int rank_store(lr_worker *w, rank_state *s, lr_error *err)
{
    const lr_request *req = &s->req;
    for (size_t i = 0; i < s->n; i++) {
        if (!s->fin[i] || !s->res[i].launchable)
            continue;
        s->ent[i].est = lr_estimate_json(&s->res[i], req->kernel, &req->device);
        if (!s->ent[i].est)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        char *t = cJSON_PrintUnformatted(s->ent[i].est);
        if (t) /* not printed: not cached, the answer itself stands */
            api_cache_put(w, req, &req->space[i], s->keys[i], t);
        free(t);
    }
    return 0;
}

/* Orders the entries that have an estimate (m of them) and makes the decision's
 * choices. 0, or -1 with err when out of memory. */
static int rank_order(rank_state *s, lr_error *err)
{
    keyed_entry *keyed = malloc((s->n ? s->n : 1) * sizeof *keyed);
    if (!keyed)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    for (size_t i = 0; i < s->n; i++)
        if (s->ent[i].est) {
            entry_keys(&s->ent[i]);
            keyed[s->m++] = (keyed_entry){s->ent[i].key, i};
        }
    qsort(keyed, s->m, sizeof *keyed, cmp_keyed);
    for (size_t r = 0; r < s->m; r++)
        s->order[r] = keyed[r].i;
    free(keyed);
    s->choices = rank_choices(&s->req, s->ent, s->order, s->m, &s->base_pos);
    if (!s->choices)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return 0;
}

/* Adds the response's "results": the best search.top (or all) entries, in order; each
 * takes its entry's launch, estimate, performance and warnings (an entry missing one
 * fails the build, as out of memory does). The array; b->failed when out of memory
 * (results[r] must be entry order[r]: measure_top relies on it). */
static cJSON *add_results(jb *b, cJSON *resp, rank_state *s)
{
    cJSON *results = jb_arr(b, resp, "results");
    size_t top = s->req.top > 0 && (size_t)s->req.top < s->m ? (size_t)s->req.top : s->m;
    for (size_t r = 0; r < top && !b->failed; r++) {
        rank_entry *en = &s->ent[s->order[r]];
        cJSON *e = en->est, *item = jb_obj(b, results, NULL);
        cJSON *launch = take(e, "launch");
        jb_num(b, item, "rank", (double)(r + 1));
        jb_item(b, item, "block",
                cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(launch, "block"), 1));
        jb_item(b, item, "folding",
                cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(launch, "folding"), 1));
        jb_item(b, item, "launch", launch);
        jb_item(b, item, "estimate", take(e, "estimate"));
        jb_item(b, item, "performance", take(e, "performance"));
        jb_num(b, item, "occupancy", round(s->choices[r].occupancy * 1e6) / 1e6);
        jb_num(b, item, "idle_threads", round(s->choices[r].idle * 1e6) / 1e6);
        jb_item(b, item, "warnings", en->warn);
        en->warn = NULL;
    }
    return results;
}

/* Adds "not_launchable": every configuration estimated here that cannot run, in
 * search order, with the reason. */
static void add_not_launchable(jb *b, cJSON *resp, const rank_state *s)
{
    const lr_request *req = &s->req;
    cJSON *nl = jb_arr(b, resp, "not_launchable");
    for (size_t i = 0; i < s->n && !b->failed; i++) {
        if (!s->fin[i] || s->res[i].launchable)
            continue;
        cJSON *item = jb_obj(b, nl, NULL);
        int64_t bl[3] = {req->space[i].block[0], req->space[i].block[1],
                         req->space[i].block[2]};
        int64_t f[3] = {req->space[i].folding[0], req->space[i].folding[1],
                        req->space[i].folding[2]};
        jb_ints(b, item, "block", bl, 3);
        jb_ints(b, item, "folding", f, 3);
        jb_str(b, item, "reason", s->res[i].reason);
    }
}

/* The rank response of an ordered ranking (docs/api.md), measuring its best when the
 * request asks to. The caller frees it; NULL with err when out of memory. */
static cJSON *rank_response(lr_worker *w, rank_state *s, lr_error *err)
{
    const lr_request *req = &s->req;
    size_t n = s->n, done = s->hits + s->computed;
    jb b = {0};
    cJSON *resp = jb_new_obj(&b);
    jb_str(&b, resp, "model_version", LR_MODEL_VERSION);
    jb_str(&b, resp, "device", req->device.name);
    jb_ints(&b, resp, "domain", req->domain, 3);
    jb_num(&b, resp, "evaluated", (double)n);
    jb_num(&b, resp, "launchable", (double)s->m);
    jb_num(&b, resp, "cached_results", (double)s->hits);
    jb_item(&b, resp, "warnings", rank_warnings(&b, req, s->choices, s->m));
    jb_item(&b, resp, "decision",
            lr_decision_json(s->choices, s->m, req->device.rank_precision, s->base_pos, req,
                             baseline_reason(req, s->res, s->fin, n)));
    if (done < n)
        mark_incomplete(&b, resp, req, done, n, s->limit_s,
                        baseline_unfinished(req, s->skip, s->fin, n) >= 0);
    cJSON *results = add_results(&b, resp, s);
    add_not_launchable(&b, resp, s);
    /* no measurement (seconds of GPU time, a row stored) for an answer not to be sent */
    if (req->measure.top > 0 && !b.failed)
        measure_top(&b, w, req, resp, results, s->ent, s->order);
    jb_item(&b, resp, "units", lr_units_json());
    jb_bool(&b, resp, "cached", s->hits == n);
    if (!(resp = jb_finish(&b, resp)))
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return resp;
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
    rank_state s = {0};
    if (lr_request_parse(w->api->devs, body, len, LR_REQ_RANK, &s.req, err))
        return NULL;
    if (api_memory_check(w->api, &s.req, api_rank_threads(w->api), err)) {
        lr_request_release(&s.req);
        return NULL;
    }
    s.n = s.req.nspace;
    char *out = NULL;
    cJSON *resp = NULL;
    if (state_alloc(&s, err) == 0) {
        rank_lookup(w, &s);
        if (rank_compute(w, &s, &eh, err) == 0 && rank_store(w, &s, err) == 0 &&
            rank_order(&s, err) == 0)
            resp = rank_response(w, &s, err);
    }
    if (resp && !(out = cJSON_PrintUnformatted(resp)))
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    cJSON_Delete(resp);
    state_free(&s);
    return out;
}
