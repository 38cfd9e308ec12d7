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

/* One rank entry: its configuration, the figures the ranking orders and decides by,
 * and its estimate object and warnings as text, which the answer takes as they are.
 * The figures are read once from the estimate object (entry_fill), as the response
 * reports them, whether it was cached or computed here: the two are judged alike. */
typedef struct rank_entry {
    char *text;     /* owned: the estimate object, unformatted; NULL when not launchable */
    char *warnings; /* owned: its plausibility warnings (plausible.h), a printed array */
    est_launch launch;
    lr_rank_key key;  /* the sort key */
    lr_choice choice; /* launch, predicted, occupancy, idle (lr_choice_from_estimate) */
    int warned;       /* warnings is not empty */
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

/* Fills e's figures (sort key, the decision's figures) and warnings (through p) from
 * est, its estimate object (__keep), for req; e->launch is set. 0, or -1 when out of
 * memory. The caller sets e->text. */
static int entry_fill(rank_entry *e, const cJSON *est, const lr_plausible *p,
                      const lr_request *req)
{
    e->key.predicted = num_at(est, "performance", "predicted");
    e->key.dram = num_at(est, "estimate", "dram_load") + num_at(est, "estimate", "dram_store");
    e->key.l2 = num_at(est, "estimate", "l2_load") + num_at(est, "estimate", "l2_store");
    e->choice.launch = e->launch;
    lr_choice_from_estimate(&e->choice, est, req);
    cJSON *w = lr_plausible_warnings(p, &e->launch, est);
    e->warned = cJSON_GetArraySize(w) > 0;
    e->warnings = w ? cJSON_PrintUnformatted(w) : NULL;
    cJSON_Delete(w);
    return e->warnings ? 0 : -1;
}

/* The end of the JSON string that starts at s (its closing quote), or NULL. */
static const char *string_end(const char *s)
{
    for (s++; *s && *s != '"'; s++)
        if (*s == '\\' && !*++s)
            return NULL;
    return *s ? s : NULL;
}

/* The end of the JSON value that starts at s (just past it), or NULL. */
static const char *value_end(const char *s)
{
    int depth = 0;
    for (; *s; s++) {
        if (*s == '"') {
            if (!(s = string_end(s)))
                return NULL;
            if (!depth)
                return s + 1;
        } else if (*s == '{' || *s == '[') {
            depth++;
        } else if (*s == '}' || *s == ']') {
            if (!depth)
                return s; /* a number, true, false or null ends at its container's end */
            if (!--depth)
                return s + 1;
        } else if (*s == ',' && !depth) {
            return s;
        }
    }
    return NULL;
}

/* Adds member key of the object text (unformatted, as cJSON prints it: an entry's
 * text) to o as raw text: the bytes printing that member's value gives. A text
 * without the member, or out of memory, sets b->failed. */
static void add_member_text(jb *b, cJSON *o, const char *key, const char *text)
{
    size_t nk = strlen(key);
    const char *s = text && *text == '{' ? text + 1 : NULL;
    while (s && *s == '"') {
        const char *k = string_end(s), *v = k && k[1] == ':' ? k + 2 : NULL,
                   *end = v ? value_end(v) : NULL;
        if (!end)
            break;
        if ((size_t)(k - s - 1) == nk && !memcmp(s + 1, key, nk)) {
            char *piece = malloc((size_t)(end - v) + 1);
            if (piece) {
                memcpy(piece, v, (size_t)(end - v));
                piece[end - v] = '\0';
            }
            jb_raw(b, piece ? o : NULL, key, piece);
            free(piece);
            return;
        }
        s = *end == ',' ? end + 1 : NULL;
    }
    b->failed = 1;
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

/* The m ranked entries (ent[order[r]]) as the decision sees them; *base_pos: the
 * baseline's position, or -1. Caller frees; NULL when out of memory. */
static lr_choice *rank_choices(const lr_request *req, const rank_entry *ent,
                               const size_t *order, size_t m, long *base_pos)
{
    lr_choice *c = calloc(m ? m : 1, sizeof *c);
    for (size_t r = 0; c && r < m; r++) {
        const rank_entry *e = &ent[order[r]];
        c[r] = e->choice;
        c[r].rank = (int)r + 1;
        c[r].warned = e->warned;
        if (req->has_baseline && !memcmp(&e->launch, &req->baseline, sizeof e->launch))
            *base_pos = (long)r;
    }
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

/* The rank response's "warnings": those of the request (with registers assumed, where
 * the recommendation would change), and how many ranked configurations have warnings
 * of their own; NULL (and b->failed) when out of memory. */
static cJSON *rank_warnings(jb *b, const lr_request *req, const lr_choice *c, size_t m)
{
    lr_plausible *p = lr_plausible_new(req);
    cJSON *w = p ? lr_plausible_request_warnings(p) : NULL;
    size_t warned = 0;
    if (w)
        lr_plausible_registers_rank(b, w, req, c, m);
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
    lr_plausible *plausible; /* what the entries' warnings are checked with */
    long base_pos;  /* the baseline's place in the order, or -1 */
    double limit_s;  /* the ranking's time limit */
    double deadline; /* when it runs out (est_now's clock), counted from the request's start */
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
    s->plausible = lr_plausible_new(&s->req);
    s->base_pos = -1;
    if (s->res && s->ent && s->skip && s->fin && s->order && s->keys && s->plausible)
        return 0;
    return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
}

static void state_free(rank_state *s)
{
    for (size_t i = 0; s->ent && i < s->n; i++) {
        free(s->ent[i].text);
        cJSON_free(s->ent[i].warnings);
    }
    lr_plausible_free(s->plausible);
    free(s->choices);
    free(s->res);
    free(s->ent);
    free(s->skip);
    free(s->fin);
    free(s->order);
    free(s->keys);
    lr_request_release(&s->req);
}

/* Entry e from its cached text (__take): one parse for its figures (no check: the
 * row was checked when it was stored, and its stamp holds it to that). 1 when it is
 * set, 0 when the text does not parse (out of memory: then it is computed), -1 when
 * out of memory after. */
static int entry_cached(rank_entry *e, char *text, const rank_state *s)
{
    cJSON *o = cJSON_ParseWithOpts(text, NULL, 1);
    int rc = !o ? 0 : entry_fill(e, o, s->plausible, &s->req) ? -1 : 1;
    cJSON_Delete(o);
    if (rc == 1)
        e->text = text;
    else
        free(text);
    return rc;
}

/* Sets up every configuration and takes what the cache has (skip, hits). 0, or -1
 * with err when out of memory. */
static int rank_lookup(lr_worker *w, rank_state *s, lr_error *err)
{
    const lr_request *req = &s->req;
    for (size_t i = 0; i < s->n; i++) {
        s->res[i].config.launch = req->space[i];
        memcpy(s->res[i].config.domain, req->domain, sizeof req->domain);
        s->ent[i].launch = req->space[i];
        lr_request_key(req, &req->space[i], s->keys[i]);
        char *text = api_cache_get(w, req, &req->space[i], s->keys[i]);
        int rc = text ? entry_cached(&s->ent[i], text, s) : 0;
        if (rc < 0)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        if (rc) {
            s->skip[i] = 1;
            s->hits++;
        }
    }
    return 0;
}

/* Estimates the configurations the cache lacked (est_rank, with the caller's hooks)
 * and counts them (computed). 0, or -1 with err: the ranking failed or was stopped,
 * or the time limit came before any configuration was evaluated. */
static int rank_compute(lr_worker *w, rank_state *s, const est_rank_hooks *eh, lr_error *err)
{
    const lr_request *req = &s->req;
    if (est_rank(req->kernel, &req->device, s->res, s->n, s->skip, s->fin, threads_for(w->api),
                 (unsigned long)w->api->cfg.isl_max_operations, s->deadline,
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

/* The entries of the launchable configurations estimated here: each estimate object
 * printed once, its figures read, and the text stored in the cache. 0, or -1 with err
 * when out of memory (a configuration without its entry would drop out of the
 * ranking unseen). */
static int rank_store(lr_worker *w, rank_state *s, lr_error *err)
{
    const lr_request *req = &s->req;
    for (size_t i = 0; i < s->n; i++) {
        if (!s->fin[i] || !s->res[i].launchable)
            continue;
        rank_entry *e = &s->ent[i];
        cJSON *o = lr_estimate_json(&s->res[i], req->kernel, &req->device);
        e->text = o ? cJSON_PrintUnformatted(o) : NULL;
        int filled = e->text && entry_fill(e, o, s->plausible, req) == 0;
        if (filled)
            api_cache_put(w, req, &req->space[i], s->keys[i], o, e->text);
        cJSON_Delete(o);
        if (!filled)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
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
        if (s->ent[i].text)
            keyed[s->m++] = (keyed_entry){s->ent[i].key, i};
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
 * takes its entry's launch (whose block and folding are the entry's), estimate and
 * performance out of the entry's text as they are, and its warnings (an entry text
 * missing one fails the build, as out of memory does). The array; b->failed when out
 * of memory (results[r] must be entry order[r]: measure_top relies on it). */
static cJSON *add_results(jb *b, cJSON *resp, const rank_state *s)
{
    cJSON *results = jb_arr(b, resp, "results");
    size_t top = s->req.top > 0 && (size_t)s->req.top < s->m ? (size_t)s->req.top : s->m;
    for (size_t r = 0; r < top && !b->failed; r++) {
        const rank_entry *en = &s->ent[s->order[r]];
        const int *bl = en->launch.block, *fl = en->launch.folding;
        int64_t block[3] = {bl[0], bl[1], bl[2]}, folding[3] = {fl[0], fl[1], fl[2]};
        cJSON *item = jb_obj(b, results, NULL);
        jb_num(b, item, "rank", (double)(r + 1));
        jb_ints(b, item, "block", block, 3);
        jb_ints(b, item, "folding", folding, 3);
        if (s->req.norderings)
            jb_str(b, item, "ordering", lr_request_ordering_name(&s->req, en->launch.ordering));
        add_member_text(b, item, "launch", en->text);
        add_member_text(b, item, "estimate", en->text);
        add_member_text(b, item, "performance", en->text);
        jb_num(b, item, "occupancy", round(s->choices[r].occupancy * 1e6) / 1e6);
        jb_num(b, item, "idle_threads", round(s->choices[r].idle * 1e6) / 1e6);
        jb_raw(b, item, "warnings", en->warnings);
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
        if (req->norderings)
            jb_str(b, item, "ordering", lr_request_ordering_name(req, req->space[i].ordering));
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
    lr_provenance_add(&b, resp, &req->device);
    jb_ints(&b, resp, "domain", req->domain, 3);
    jb_num(&b, resp, "evaluated", (double)n);
    jb_num(&b, resp, "launchable", (double)s->m);
    jb_num(&b, resp, "cached_results", (double)s->hits);
    if (req->norderings) {
        cJSON *ords = jb_arr(&b, resp, "orderings");
        for (size_t i = 0; i < req->norderings; i++) {
            cJSON *o = jb_obj(&b, ords, NULL);
            jb_str(&b, o, "name", req->orderings[i].name);
            jb_num(&b, o, "seconds", round(req->orderings[i].seconds * 1e4) / 1e4);
            jb_str(&b, o, "permutation_sha256", req->orderings[i].perm_sha256);
        }
    }
    jb_item(&b, resp, "warnings", rank_warnings(&b, req, s->choices, s->m));
    jb_item(&b, resp, "decision",
            lr_decision_json(s->choices, s->m, est_device_tie_width(&req->device), s->base_pos, req,
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
    /* the time limit covers the whole request: computing its orderings, then ranking */
    s.limit_s = api_time_limit(w->api);
    s.deadline = est_now() + s.limit_s;
    if (api_parse(w, body, len, LR_REQ_RANK, s.deadline, &s.req, err))
        return NULL;
    if (api_memory_check(w->api, &s.req, api_rank_threads(w->api), err)) {
        lr_request_release(&s.req);
        return NULL;
    }
    s.n = s.req.nspace;
    char *out = NULL;
    cJSON *resp = NULL;
    if (state_alloc(&s, err) == 0 && rank_lookup(w, &s, err) == 0) {
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
