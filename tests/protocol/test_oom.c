/*
 * test_oom: JSON building under allocation failure (issue 10: "JSON building ignores
 * ~90 allocation failures"). cJSON's allocator is replaced (cJSON_InitHooks) by one
 * that fails the N-th allocation (transient: only that one) or every allocation from
 * the N-th on (persistent), and N is swept over every cJSON allocation of a build:
 *
 *   1. the canonical request (lr_request_parse: device, domain, kernel, model version)
 *   2. a whole estimate answer (lr_api_estimate: parse, canonical, estimate JSON,
 *      warnings, print)
 *   2b. the same from an empty cache each time: whatever a run stores is the row a run
 *      without failure stores (before jbuild, 218 of these runs cached a row with
 *      members missing)
 *   3. the parts of a rank answer protocol/ builds outside api_rank.c: the estimate
 *      JSON of each configuration, its warnings, the request's warnings, the decision
 *   4. a whole rank answer (lr_api_rank: parse, canonical, each configuration's
 *      estimate JSON, entries moved into results, warnings, decision, not_launchable,
 *      units, print) of a small space with an unlaunchable block and search.top (issue
 *      42, item 5: api_rank.c built with ~60 raw cJSON adds, most unchecked). Not swept:
 *      measure.top (it would time a GPU where there is one) and "incomplete" (the
 *      time limit's cut is not repeatable); both add through the same jb build.
 *
 * For every N the call must either give byte for byte the text it gives without
 * failure or fail with LR_NO_MEMORY: never a text missing a member (which would be
 * sent, and for 1 and 2 cached under a key of a different request), never a crash;
 * ASan's leak check runs at exit. N starts after the allocations of cJSON_Parse of
 * the body: cJSON does not tell a failed allocation from a syntax error, so those
 * fail as invalid JSON (400), which sends and caches nothing.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "check.h"
#include "decide.h"
#include "estimator.h"
#include "plausible.h"
#include "request.h"
#include "response.h"
#include "store.h"

/* ---- the failing allocator (a test program's own state) ---- */

static long n_alloc;      /* cJSON allocations since counting_reset */
static long fail_at = -1; /* the allocation (0-based) that fails; -1: none */
static int persistent;    /* every allocation from fail_at on fails too */
static long n_failed;     /* allocations refused since counting_reset */

static void *counting_malloc(size_t n)
{
    long i = n_alloc++;
    if (fail_at >= 0 && (i == fail_at || (persistent && i > fail_at))) {
        n_failed++;
        return NULL;
    }
    return malloc(n);
}

static void counting_reset(long at, int pers)
{
    n_alloc = 0;
    n_failed = 0;
    fail_at = at;
    persistent = pers;
}

static const char *body =
    "{\"device\": \"V100-PCIe-32GB\", \"domain\": [64, 32, 8], \"model\": \"v2\","
    " \"kernel\": {\"parameters\": {\"ny\": 34, \"nx\": 66}, \"flops\": 5,"
    "  \"fields\": ["
    "   {\"name\": \"src\", \"dims\": [66, 34, 10], \"loads\": [[\"x+1\", \"y+1\", \"z+1\"],"
    "    [\"x\", \"y+1\", \"z+1\"], [\"x + 2\", \"y+1\", \"z+1\"], [\"x+1\", \"y\", \"z+1\"],"
    "    [\"x+1\", \"y+2\", \"z+1\"]]},"
    "   {\"name\": \"coef\", \"dims\": [1], \"loads\": [\"0\"]},"
    "   {\"name\": \"edge\", \"dims\": [16], \"element_bytes\": 4, \"loads\": [\"x\"]},"
    "   {\"name\": \"dst\", \"dims\": [66, 34, 10], \"stores\": [[\"x+1\", \"y+1\", "
    "\"z+1\"]]}]},"
    " \"launch\": {\"block\": [32, 4, 1], \"folding\": [1, 2, 1]},"
    " \"search\": {\"blocks\": [[32, 4, 1], [64, 2, 1], [128, 1, 1]],"
    "  \"foldings\": [[1, 1, 1], [1, 2, 1]], \"baseline\": {\"block\": [64, 2, 1]}}}";

/* The rank request of 4: body's kernel with 128 registers a thread, so that 1024
 * threads do not fit an SM (two not_launchable entries), the best three of four kept. */
static const char *rank_body =
    "{\"device\": \"V100-PCIe-32GB\", \"domain\": [64, 32, 8], \"model\": \"v2\","
    " \"kernel\": {\"parameters\": {\"ny\": 34, \"nx\": 66}, \"flops\": 5, \"registers\": 128,"
    "  \"fields\": ["
    "   {\"name\": \"src\", \"dims\": [66, 34, 10], \"loads\": [[\"x+1\", \"y+1\", \"z+1\"],"
    "    [\"x\", \"y+1\", \"z+1\"], [\"x + 2\", \"y+1\", \"z+1\"], [\"x+1\", \"y\", \"z+1\"],"
    "    [\"x+1\", \"y+2\", \"z+1\"]]},"
    "   {\"name\": \"coef\", \"dims\": [1], \"loads\": [\"0\"]},"
    "   {\"name\": \"edge\", \"dims\": [16], \"element_bytes\": 4, \"loads\": [\"x\"]},"
    "   {\"name\": \"dst\", \"dims\": [66, 34, 10], \"stores\": [[\"x+1\", \"y+1\", "
    "\"z+1\"]]}]},"
    " \"search\": {\"blocks\": [[32, 4, 1], [64, 2, 1], [1024, 1, 1]], \"top\": 3,"
    "  \"foldings\": [[1, 1, 1], [1, 2, 1]], \"baseline\": {\"block\": [64, 2, 1]}}}";

/* The allocations cJSON_Parse makes for text (not swept: see the file comment). */
static long parse_allocations(const char *text)
{
    lr_error e;
    counting_reset(-1, 0);
    cJSON *o = lr_request_parse_json(text, strlen(text), &e);
    long n = n_alloc;
    cJSON_Delete(o);
    return n;
}

/* One build under test: its text (caller frees) or NULL with err. */
typedef char *(*build_fn)(void *user, lr_error *err);

/* Sweeps N over every allocation of fn in both modes; returns the allocation points
 * (allocations of a run without failure) from first on. */
static long sweep(const char *name, build_fn fn, void *user, long first)
{
    lr_error e;
    lr_error_clear(&e);
    counting_reset(-1, 0);
    char *ref = fn(user, &e);
    long total = n_alloc;
    CHECK(ref != NULL);
    if (!ref) {
        fprintf(stderr, "%s: %s\n", name, e.message);
        return 0;
    }
    long failed = 0, wrong = 0;
    for (int pers = 0; pers < 2; pers++)
        for (long n = first; n < total; n++) {
            lr_error_clear(&e);
            counting_reset(n, pers);
            char *out = fn(user, &e);
            if (!out) {
                failed++;
                if (e.code != LR_NO_MEMORY && wrong++ < 5)
                    fprintf(stderr, "%s: allocation %ld (%s) failed with %s: %s\n", name, n,
                            pers ? "persistent" : "transient", lr_code_name(e.code), e.message);
                CHECK_INT(e.code, LR_NO_MEMORY);
            } else {
                /* an answer despite a refused allocation must be the same answer */
                if (strcmp(out, ref) != 0 && wrong++ < 5)
                    fprintf(stderr, "%s: allocation %ld (%s) refused, answer differs:\n%s\n",
                            name, n, pers ? "persistent" : "transient", out);
                CHECK(strcmp(out, ref) == 0);
            }
            free(out);
        }
    counting_reset(-1, 0);
    printf("%s: %ld allocation points (from %ld), %ld failed runs of %ld, all "
           "LR_NO_MEMORY or the same text\n",
           name, total - first, first, failed, 2 * (total - first));
    free(ref);
    return total - first;
}

/* ---- 1. the canonical request ---- */

static char *canonical(void *user, lr_error *err)
{
    lr_request req;
    if (lr_request_parse(user, body, strlen(body), LR_REQ_RANK, &req, err))
        return NULL;
    char *s = strdup(req.canonical);
    lr_request_release(&req);
    if (!s)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return s;
}

/* ---- 2. the estimate answer ---- */

static char *estimate(void *user, lr_error *err)
{
    return lr_api_estimate(user, body, strlen(body), err);
}

/* ---- 4. the rank answer ---- */

static char *rank_answer(void *user, lr_error *err)
{
    return lr_api_rank(user, rank_body, strlen(rank_body), NULL, NULL, err);
}

/* ---- 2b. the same with a cache: a failed estimate stores nothing half-built ---- */

typedef struct cached {
    lr_worker *w;
    st_store *st; /* a second connection to the worker's database */
    lr_request req;
    char key[33], config[LR_CONFIG_TEXT];
    char *row;  /* the row a run without failure stores */
    long wrong; /* runs after which the row was another text */
} cached;

static char *stored_row(cached *c)
{
    char *json = NULL;
    lr_error e;
    return st_prediction_get(c->st, c->key, c->req.canonical, c->config, &json, &e) == 1 ? json
                                                                                         : NULL;
}

/* From an empty cache: the answer, and whatever the run stored must be the row. */
static char *estimate_cached(void *user, lr_error *err)
{
    cached *c = user;
    lr_error e;
    st_clear_predictions(c->st, &e);
    char *out = lr_api_estimate(c->w, body, strlen(body), err), *row = stored_row(c);
    if (row && c->row && strcmp(row, c->row) != 0)
        c->wrong++;
    if (!c->row)
        c->row = row;
    else
        free(row);
    return out;
}

/* From the cache, as a daemon's I/O thread asks (lr_api_estimate_cached, with its memo
 * of request bodies): the same answer, or none. No answer (0) means the daemon would
 * compute it on the pool instead; it counts here as a failure, which the sweep requires
 * to be LR_NO_MEMORY: never a half-built answer served. */
static char *estimate_from_cache(void *user, lr_error *err)
{
    cached *c = user;
    char *out = NULL;
    int rc = lr_api_estimate_cached(c->w, body, strlen(body), &out, err);
    if (rc == 0)
        lr_error_set(err, LR_NO_MEMORY, NULL, "not answered from the cache: to be computed");
    return rc == 1 ? out : (free(out), NULL);
}

/* ---- 3. the rank answer's parts ---- */

typedef struct ranked {
    lr_request req;
    est_result *res; /* req.nspace results, launchable */
} ranked;

static char *append(char *acc, const cJSON *o)
{
    char *t = o ? cJSON_PrintUnformatted(o) : NULL, *r = NULL;
    if (acc && t && (r = malloc(strlen(acc) + strlen(t) + 2)))
        sprintf(r, "%s\n%s", acc, t);
    free(acc);
    free(t);
    return r;
}

static char *rank_parts(void *user, lr_error *err)
{
    ranked *rk = user;
    const lr_request *req = &rk->req;
    char *acc = strdup("");
    lr_plausible *p = lr_plausible_new(req);
    lr_choice *c = calloc(req->nspace, sizeof *c);
    cJSON *w = p ? lr_plausible_request_warnings(p) : NULL;
    acc = append(acc, w);
    cJSON_Delete(w);
    long base = -1;
    for (size_t i = 0; i < req->nspace && acc && c; i++) {
        cJSON *est = lr_estimate_json(&rk->res[i], req->kernel, &req->device);
        cJSON *warn = est && p ? lr_plausible_warnings(p, &req->space[i], est) : NULL;
        acc = append(append(acc, est), warn);
        c[i].launch = req->space[i];
        c[i].rank = (int)i + 1;
        if (est)
            lr_choice_from_estimate(&c[i], est, req);
        c[i].warned = cJSON_GetArraySize(warn) > 0;
        if (!memcmp(&req->space[i], &req->baseline, sizeof req->baseline))
            base = (long)i;
        cJSON_Delete(est);
        cJSON_Delete(warn);
    }
    cJSON *d = c ? lr_decision_json(c, req->nspace, req->device.rank_precision, base, req, NULL)
                 : NULL;
    acc = append(acc, d);
    cJSON_Delete(d);
    free(c);
    lr_plausible_free(p);
    if (!acc)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return acc;
}

int main(void)
{
    lr_error err;
    lr_error_clear(&err);
    cJSON_Hooks hooks = {counting_malloc, free};
    cJSON_InitHooks(&hooks);
    long first = parse_allocations(body);
    lr_api_config cfg = {0};
    cfg.threads = 1;
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    CHECK(w != NULL);
    if (!w)
        return check_report("test_oom");
    const lr_devices *devs = lr_api_device_list(api);
    long points = sweep("canonical request", canonical, (void *)devs, first);
    points += sweep("estimate answer", estimate, w, first);

    char db[] = "/tmp/lr_test_oom_XXXXXX";
    int fd = mkstemp(db);
    CHECK(fd >= 0);
    close(fd);
    lr_api_config dcfg = {.db_path = db, .threads = 1};
    lr_api *dapi = lr_api_new(&dcfg, &err);
    cached c = {.w = dapi ? lr_worker_new(dapi, &err) : NULL, .st = st_open(db, &err)};
    CHECK(c.w && c.st);
    if (c.st) /* the worker's rows are stamped with the writer's format */
        st_set_row_format(c.st, LR_ESTIMATE_FORMAT);
    CHECK_INT(lr_request_parse(devs, body, strlen(body), LR_REQ_ESTIMATE, &c.req, &err), 0);
    lr_request_key(&c.req, &c.req.launch, c.key);
    lr_request_config_text(&c.req.launch, c.config);
    if (c.w && c.st) {
        sweep("estimate answer, cached", estimate_cached, &c, first);
        CHECK(c.row && strstr(c.row, "\"fields\":{\"src\""));
        CHECK_INT(c.wrong, 0);
        /* a run without failure stores the row (the sweep's last runs may not have):
         * its answer from the cache, memo and all */
        lr_error_clear(&err);
        free(lr_api_estimate(c.w, body, strlen(body), &err));
        sweep("estimate answer, from the cache on an I/O thread", estimate_from_cache, &c,
              first);
    }
    free(c.row);
    lr_request_release(&c.req);
    st_close(c.st);
    lr_worker_free(c.w);
    lr_api_free(dapi);
    unlink(db);

    /* the rank answer's parts, on the results of a real ranking of the space */
    ranked rk;
    counting_reset(-1, 0);
    CHECK_INT(lr_request_parse(devs, body, strlen(body), LR_REQ_RANK, &rk.req, &err), 0);
    CHECK_INT(rk.req.nspace, 6);
    rk.res = calloc(rk.req.nspace, sizeof *rk.res);
    est_ctx *ctx = est_ctx_new(0);
    for (size_t i = 0; ctx && rk.res && i < rk.req.nspace; i++) {
        est_config c = {.launch = rk.req.space[i]};
        memcpy(c.domain, rk.req.domain, sizeof c.domain);
        CHECK_INT(est_estimate(ctx, rk.req.kernel, &rk.req.device, &c, &rk.res[i], &err), 0);
        CHECK(rk.res[i].launchable);
    }
    /* the parts are what they should be: warnings of each kind, a decision */
    char *ref = rank_parts(&rk, &err);
    CHECK(ref && strstr(ref, "access_outside_field") && strstr(ref, "load_not_folded") &&
          strstr(ref, "\"recommended\"") && strstr(ref, "\"baseline\""));
    free(ref);
    points += sweep("rank answer parts", rank_parts, &rk, 0);
    est_ctx_free(ctx);
    free(rk.res);
    lr_request_release(&rk.req);

    /* the whole rank answer: what it should hold, then every allocation refused */
    counting_reset(-1, 0);
    char *rref = rank_answer(w, &err);
    cJSON *ra = rref ? cJSON_Parse(rref) : NULL;
    CHECK(ra != NULL);
    if (!rref)
        fprintf(stderr, "rank answer: %s\n", err.message);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(ra, "launchable")) == 4);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(ra, "results")), 3);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(ra, "not_launchable")), 2);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(ra, "decision"), "recommended") &&
          cJSON_GetObjectItem(ra, "units") && cJSON_IsFalse(cJSON_GetObjectItem(ra, "cached")));
    cJSON_Delete(ra);
    free(rref);
    points += sweep("rank answer", rank_answer, w, parse_allocations(rank_body));
    lr_worker_free(w);
    lr_api_free(api);
    printf("%ld allocation points in all\n", points);
    return check_report("test_oom");
}
