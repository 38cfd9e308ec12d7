/*
 * request: see request.h. The parser walks the JSON once, reporting the first bad
 * value by its path, and builds the canonical description in the same walk so that
 * two requests that mean the same thing (key order, whitespace, defaults spelt out or
 * not) share a cache entry.
 */
#include "request.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "jbuild.h"
#include "jread.h"
#include "jstrict.h"
#include "lr_hash.h"
#include "lr_utf8.h"
#include "request_int.h"

static const char *const top_keys[] = {"device", "kernel",  "domain", "launch",
                                       "search", "measure", "model",  NULL};
static const char *const launch_keys[] = {"block", "folding", NULL};
static const char *const search_keys[] = {"orderings", "blocks",      "foldings",         "min_threads",
                                          "max_threads", "max_bz",           "top",
                                          "baseline",    "warp_multiple_bx", NULL};
static const char *const measure_keys[] = {"top", "repetitions", "warmup", "flush_l2", NULL};

static int parse_launch(const cJSON *v, const char *path, est_launch *l, lr_error *err)
{
    jpath p;
    int64_t b[3], f[3] = {1, 1, 1};
    if (jr_object(v, path, err) || jr_only_keys(v, path, launch_keys, err))
        return -1;
    jp_key(&p, path, "block");
    if (!jr_get(v, "block"))
        return jr_missing(path, "block", "the thread-block size [bx, by, bz]", err);
    if (jr_triple(jr_get(v, "block"), p.s, 1, 1024, 1, b, NULL, err))
        return -1;
    jp_key(&p, path, "folding");
    if (jr_get(v, "folding") &&
        jr_triple(jr_get(v, "folding"), p.s, 1, EST_MAX_FOLDING, 1, f, NULL, err))
        return -1;
    for (int d = 0; d < 3; d++) {
        l->block[d] = (int)b[d];
        l->folding[d] = (int)f[d];
    }
    return 0;
}

/* The axis the default foldings fold by 2 besides 1 (docs/api.md "search"): the
 * outermost one the domain extends along, where folding shares the loads of
 * neighbouring layers. -1 (no folding 2) for a domain of one point, when a store
 * is written in thread variables, which cannot be folded (est_launch_check), and for
 * a kernel that reads through an index field. */
static int default_folding_axis(const lr_request *req)
{
    const est_kernel *k = req->kernel;
    if (est_kernel_gathers(k)) /* one thread per cell (estimator/gather.c) */
        return -1;
    for (int f = 0; f < est_kernel_field_count(k); f++)
        for (int a = 0; a < est_kernel_access_count(k, f); a++) {
            uint32_t uses = 0;
            for (int d = 0; d < est_kernel_field_ndims(k, f); d++)
                uses |= est_expr_uses(est_kernel_access_index(k, f, a, d));
            if (est_kernel_access_is_store(k, f, a) && !(uses & EST_VARS_LATTICE))
                return -1;
        }
    for (int d = 2; d >= 0; d--)
        if (req->domain[d] > 1)
            return d;
    return -1;
}

/* search.baseline: the code generator's current launch. It is ranked with the space
 * (appended when the space lacks it), so the decision can compare it. */
static int add_baseline(const cJSON *x, lr_request *req, lr_error *err)
{
    if (parse_launch(x, "search.baseline", &req->baseline, err))
        return -1;
    req->has_baseline = 1;
    for (size_t i = 0; i < req->nspace; i++)
        if (!memcmp(&req->space[i], &req->baseline, sizeof req->baseline))
            return 0;
    if (req->nspace + 1 > LR_MAX_CONFIGS)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, "search.baseline",
                            "the search space and the baseline exceed %d configurations",
                            LR_MAX_CONFIGS);
    est_launch *s = realloc(req->space, (req->nspace + 1) * sizeof *s);
    if (!s)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    req->space = s;
    req->space[req->nspace++] = req->baseline;
    return 0;
}

/* The bounds of the default block space (search.min_threads ... warp_multiple_bx). */
typedef struct search_bounds {
    int64_t min_threads, max_threads, max_bz, top;
    int warp; /* bx a multiple of 32 */
} search_bounds;

static int parse_search_bounds(const cJSON *v, search_bounds *b, lr_error *err)
{
    *b = (search_bounds){.min_threads = 32, .max_threads = 1024, .max_bz = 64, .warp = 1};
    if (!v)
        return 0;
    const cJSON *x;
    if (((x = jr_get(v, "min_threads")) &&
         jr_int(x, "search.min_threads", 1, 1024, &b->min_threads, err)) ||
        ((x = jr_get(v, "max_threads")) &&
         jr_int(x, "search.max_threads", 1, 1024, &b->max_threads, err)) ||
        ((x = jr_get(v, "max_bz")) && jr_int(x, "search.max_bz", 1, 64, &b->max_bz, err)) ||
        ((x = jr_get(v, "top")) && jr_int(x, "search.top", 0, LR_MAX_CONFIGS, &b->top, err)))
        return -1;
    if ((x = jr_get(v, "warp_multiple_bx"))) {
        if (!cJSON_IsBool(x))
            return lr_error_set(err, LR_INVALID_REQUEST, "search.warp_multiple_bx",
                                "must be true (the default space's bx is a multiple of 32) "
                                "or false");
        b->warp = cJSON_IsTrue(x);
    }
    if (b->min_threads > b->max_threads)
        return lr_error_set(err, LR_INVALID_REQUEST, "search.min_threads",
                            "is larger than search.max_threads (%lld)",
                            (long long)b->max_threads);
    return 0;
}

/* search.foldings, or the default: no folding and, for the default block space, a
 * folding of 2 along the outer axis. Returns the foldings (caller frees) and their
 * number in *nfold, or NULL with err set. */
static int (*parse_foldings(const cJSON *v, const lr_request *req, int *nfold,
                            lr_error *err))[3]
{
    const cJSON *fv = v ? jr_get(v, "foldings") : NULL;
    /* explicit blocks are ranked as given: folded only when foldings say so */
    int outer = v && jr_get(v, "blocks") ? -1 : default_folding_axis(req);
    *nfold = fv ? jr_array(fv, "search.foldings", 1, 64, err) : outer >= 0 ? 2 : 1;
    if (*nfold < 0)
        return NULL;
    int(*fold)[3] = calloc((size_t)*nfold, sizeof *fold);
    if (!fold) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    fold[0][0] = fold[0][1] = fold[0][2] = 1;
    if (!fv && outer >= 0) {
        fold[1][0] = fold[1][1] = fold[1][2] = 1;
        fold[1][outer] = 2;
    }
    for (int i = 0; fv && i < *nfold; i++) {
        jpath p;
        int64_t f[3];
        jp_index(&p, "search.foldings", i);
        if (jr_triple(cJSON_GetArrayItem(fv, i), p.s, 1, EST_MAX_FOLDING, 1, f, NULL, err)) {
            free(fold);
            return NULL;
        }
        for (int d = 0; d < 3; d++)
            fold[i][d] = (int)f[d];
    }
    return fold;
}

/* req->space of search.blocks bv, each with every folding. 0 (req->space NULL when
 * out of memory: the caller says so), or -1 with err set. */
static int space_of_blocks(const cJSON *bv, int (*fold)[3], int nfold, lr_request *req,
                           lr_error *err)
{
    int nblocks = jr_array(bv, "search.blocks", 1, LR_MAX_CONFIGS, err);
    if (nblocks < 0)
        return -1;
    est_launch *blocks = calloc((size_t)nblocks, sizeof *blocks);
    if (!blocks)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    for (int i = 0; i < nblocks; i++) {
        jpath p;
        int64_t b[3];
        jp_index(&p, "search.blocks", i);
        if (jr_triple(cJSON_GetArrayItem(bv, i), p.s, 1, 1024, 1, b, NULL, err)) {
            free(blocks);
            return -1;
        }
        for (int d = 0; d < 3; d++)
            blocks[i].block[d] = (int)b[d];
    }
    if ((size_t)nblocks * (size_t)nfold > LR_MAX_CONFIGS) {
        free(blocks);
        return lr_error_set(err, LR_LIMIT_EXCEEDED, "search",
                            "%d blocks x %d foldings exceed %d configurations per request",
                            nblocks, nfold, LR_MAX_CONFIGS);
    }
    req->nspace = (size_t)nblocks * (size_t)nfold;
    req->space = calloc(req->nspace, sizeof *req->space);
    for (int i = 0; req->space && i < nblocks; i++)
        for (int f = 0; f < nfold; f++) {
            est_launch *l = &req->space[(size_t)i * (size_t)nfold + (size_t)f];
            memcpy(l->block, blocks[i].block, sizeof l->block);
            memcpy(l->folding, fold[f], sizeof l->folding);
        }
    free(blocks);
    return 0;
}

/* req->space of the default block space within b, each block with every folding;
 * returns as space_of_blocks. */
static int space_default(const search_bounds *b, int (*fold)[3], int nfold, lr_request *req,
                         lr_error *err)
{
    req->nspace = est_search_default((int)b->min_threads, (int)b->max_threads, (int)b->max_bz,
                                     b->warp ? 32 : 1, req->domain, (const int(*)[3])fold,
                                     (size_t)nfold, NULL, 0);
    if (req->nspace > LR_MAX_CONFIGS)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, "search.foldings",
                            "the default block space times %d foldings exceeds %d "
                            "configurations",
                            nfold, LR_MAX_CONFIGS);
    req->space = calloc(req->nspace ? req->nspace : 1, sizeof *req->space);
    if (req->space)
        est_search_default((int)b->min_threads, (int)b->max_threads, (int)b->max_bz,
                           b->warp ? 32 : 1, req->domain, (const int(*)[3])fold, (size_t)nfold,
                           req->space, req->nspace);
    return 0;
}

static int parse_search(const cJSON *v, lr_request *req, lr_error *err)
{
    search_bounds b;
    int nfold;
    if (v && (jr_object(v, "search", err) || jr_only_keys(v, "search", search_keys, err)))
        return -1;
    if (parse_search_bounds(v, &b, err))
        return -1;
    req->top = (int)b.top;
    int(*fold)[3] = parse_foldings(v, req, &nfold, err);
    if (!fold)
        return -1;
    const cJSON *bv = v ? jr_get(v, "blocks") : NULL, *x;
    int rc = bv ? space_of_blocks(bv, fold, nfold, req, err)
                : space_default(&b, fold, nfold, req, err);
    free(fold);
    if (rc)
        return -1;
    if (!req->space)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (req->nspace == 0)
        return lr_error_set(err, LR_INVALID_REQUEST, "search", "the search space is empty");
    if (v && (x = jr_get(v, "baseline")) && add_baseline(x, req, err))
        return -1;
    return 0;
}

static int parse_measure(const cJSON *v, lr_measure_opts *m, lr_error *err)
{
    int64_t top = 0, reps = 10, warm = 3;
    m->flush_l2 = 1; /* the model assumes data comes from DRAM, not a warm L2 */
    if (v) {
        const cJSON *x;
        if (jr_object(v, "measure", err) || jr_only_keys(v, "measure", measure_keys, err))
            return -1;
        if ((x = jr_get(v, "top")) && jr_int(x, "measure.top", 0, 32, &top, err))
            return -1;
        if ((x = jr_get(v, "repetitions")) &&
            jr_int(x, "measure.repetitions", 1, 1000, &reps, err))
            return -1;
        if ((x = jr_get(v, "warmup")) && jr_int(x, "measure.warmup", 0, 100, &warm, err))
            return -1;
        if ((x = jr_get(v, "flush_l2"))) {
            if (!cJSON_IsBool(x))
                return lr_error_set(err, LR_INVALID_REQUEST, "measure.flush_l2",
                                    "must be true or false");
            m->flush_l2 = cJSON_IsTrue(x);
        }
    }
    m->top = (int)top;
    m->repetitions = (int)reps;
    m->warmup = (int)warm;
    return 0;
}

/* Under kernel.indexing "blockwise4d" the launch is fixed: blocks of [nx, 1, 1] threads,
 * one per (y, z) line, no folding. launch may say so (anything else is an error);
 * search may only set top. */
static int blockwise_launch(const cJSON *lv, const cJSON *sv, lr_request_kind kind,
                            lr_request *req, lr_error *err)
{
    est_launch l = {{(int)req->domain[0], 1, 1}, {1, 1, 1}, 0};
    if (req->domain[0] > 1024)
        return lr_error_set(err, LR_INVALID_REQUEST, "domain[0]",
                            "kernel.indexing \"blockwise4d\" puts a whole x line of %lld "
                            "points in one block; CUDA allows at most 1024 threads",
                            (long long)req->domain[0]);
    if (lv) {
        if (parse_launch(lv, "launch", &req->launch, err))
            return -1;
        if (memcmp(&req->launch, &l, sizeof l))
            return lr_error_set(err, LR_INVALID_REQUEST, "launch",
                                "under kernel.indexing \"blockwise4d\" the block is [nx, 1, "
                                "1] = [%d, 1, 1] and the folding [1, 1, 1] (one block per "
                                "(y, z) line); leave launch out or give exactly that",
                                l.block[0]);
    }
    req->launch = l;
    const cJSON *x;
    int64_t top = 0;
    if (sv) {
        static const char *const only_top[] = {"top", NULL};
        if (jr_object(sv, "search", err) || jr_only_keys(sv, "search", only_top, err))
            return -1;
        if ((x = jr_get(sv, "top")) && jr_int(x, "search.top", 0, LR_MAX_CONFIGS, &top, err))
            return -1;
    }
    req->top = (int)top;
    if (kind == LR_REQ_RANK || sv) {
        req->space = calloc(1, sizeof *req->space);
        if (!req->space)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        req->space[0] = l;
        req->nspace = 1;
    }
    return 0;
}

/* Reads root into req and writes its canonical form into canon through b (a failed add
 * leaves b->failed set for lr_request_parse to report). */
static int parse_body(const lr_devices *devs, const cJSON *root, lr_request_kind kind,
                      lr_request *req, jb *b, cJSON *canon, lr_error *err)
{
    if (jr_object(root, "", err) || jr_only_keys(root, "", top_keys, err))
        return -1;
    const cJSON *dv = jr_get(root, "device");
    if (!dv)
        return jr_missing("", "device", "a built-in device name or a device object", err);
    if (lr_device_from_json(devs, dv, "device", &req->device, err))
        return -1;
    /* the cache key holds every device figure; the name too, since responses carry it */
    const char *named = lr_device_canonical_text(devs, dv);
    if (named)
        jb_raw(b, canon, "device", named);
    else
        jb_item(b, canon, "device", lr_device_to_json(NULL, &req->device, 0));
    const cJSON *domv = jr_get(root, "domain");
    if (!domv)
        return jr_missing("", "domain", "the lattice points updated, [nx, ny, nz]", err);
    if (jr_triple(domv, "domain", 1, 2147483647, 1, req->domain, NULL, err))
        return -1;
    if ((double)req->domain[0] * req->domain[1] * req->domain[2] > (double)LR_MAX_DOMAIN_POINTS)
        return lr_error_set(err, LR_INVALID_REQUEST, "domain",
                            "%lld x %lld x %lld lattice points exceed the limit of 2^42",
                            (long long)req->domain[0], (long long)req->domain[1],
                            (long long)req->domain[2]);
    jb_ints(b, canon, "domain", req->domain, 3);
    est_model model;
    if (lr_request_parse_model(jr_get(root, "model"), &model, err) ||
        lr_request_parse_kernel(jr_get(root, "kernel"), model, req, b, canon, err))
        return -1;
    /* Both sections are checked whichever endpoint reads the request, so one request
     * can go to /v1/estimate and /v1/rank and a mistake in either is never silent. */
    const cJSON *lv = jr_get(root, "launch");
    if (req->blockwise4d) {
        if (blockwise_launch(lv, jr_get(root, "search"), kind, req, err) ||
            parse_measure(jr_get(root, "measure"), &req->measure, err))
            return -1;
        jb_str(b, canon, "model_version", LR_MODEL_VERSION);
        return 0;
    }
    if (kind == LR_REQ_ESTIMATE && !lv)
        return jr_missing("", "launch",
                          "the configuration to estimate, {\"block\": [bx, by, bz]}", err);
    if (lv && parse_launch(lv, "launch", &req->launch, err))
        return -1;
    if ((kind == LR_REQ_RANK || jr_get(root, "search")) &&
        parse_search(jr_get(root, "search"), req, err))
        return -1;
    if (parse_measure(jr_get(root, "measure"), &req->measure, err))
        return -1;
    jb_str(b, canon, "model_version", LR_MODEL_VERSION);
    if (kind == LR_REQ_RANK &&
        lr_request_parse_orderings(jr_get(root, "search"), req, b, canon, err))
        return -1;
    return 0;
}

cJSON *lr_request_parse_json(const char *body, size_t len, lr_error *err)
{
    if (len == 0) {
        lr_error_set(err, LR_INVALID_JSON, "", "the request body is empty; send a JSON object");
        return NULL;
    }
    if (len > LR_MAX_BODY_BYTES) {
        lr_error_set(err, LR_LIMIT_EXCEEDED, "", "the request body exceeds %u bytes",
                     LR_MAX_BODY_BYTES);
        return NULL;
    }
    /* Numbers before cJSON: it would take 0100 and round 9007199254740993. */
    if (jr_precheck(body, len, LR_MAX_JSON_DEPTH, err) || js_numbers_check(body, len, err))
        return NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    if (!root) {
        size_t at = end && end >= body && end <= body + len ? (size_t)(end - body) : 0;
        unsigned long line, col;
        lr_utf8_line_column(body, at, &line, &col);
        lr_error_set(err, LR_INVALID_JSON, "",
                     "the body is not valid JSON (error near line %lu, column %lu, byte %zu)",
                     line, col, at);
        return NULL;
    }
    size_t at = (size_t)(end - body);
    while (at < len &&
           (body[at] == ' ' || body[at] == '\t' || body[at] == '\n' || body[at] == '\r'))
        at++;
    if (at < len) {
        cJSON_Delete(root);
        unsigned long line, col;
        lr_utf8_line_column(body, at, &line, &col);
        lr_error_set(err, LR_INVALID_JSON, "",
                     "unexpected data after the JSON object (line %lu, column %lu, byte %zu); "
                     "send one object",
                     line, col, at);
        return NULL;
    }
    /* What cJSON accepts but must not pass: raw control bytes, repeated keys. */
    if (jr_check_controls(body, len, root, err) || jr_unique_keys(root, "", err)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int lr_request_parse(const lr_devices *devs, const char *body, size_t len, lr_request_kind kind,
                     lr_request *req, lr_error *err)
{
    return lr_request_parse_local(devs, body, len, kind, 0, req, err);
}

int lr_request_parse_local(const lr_devices *devs, const char *body, size_t len,
                           lr_request_kind kind, int local_files, lr_request *req,
                           lr_error *err)
{
    return lr_request_parse_with(devs, body, len, kind, local_files, NULL, NULL, 0, req, err);
}

int lr_request_parse_with(const lr_devices *devs, const char *body, size_t len,
                          lr_request_kind kind, int local_files, const lr_arrays *arrays,
                          cg_usage_cache *sources, double deadline, lr_request *req,
                          lr_error *err)
{
    memset(req, 0, sizeof *req);
    req->local_files = local_files;
    req->arrays = arrays;
    req->sources = sources;
    req->deadline = deadline;
    cJSON *root = lr_request_parse_json(body, len, err);
    if (!root)
        return -1;
    jb b = {0};
    cJSON *canon = jb_new_obj(&b);
    int rc = canon ? parse_body(devs, root, kind, req, &b, canon, err) : 0;
    /* a canonical text missing a member would key the cache with a different request */
    if (!rc && b.failed)
        rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (!rc) {
        req->canonical = cJSON_PrintUnformatted(canon);
        if (!req->canonical)
            rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    cJSON_Delete(canon);
    cJSON_Delete(root);
    req->arrays = NULL; /* borrowed for the parse only */
    req->sources = NULL;
    req->deadline = 0;
    if (rc)
        lr_request_release(req);
    return rc;
}

void lr_request_release(lr_request *req)
{
    est_kernel_free(req->kernel);
    free(req->space);
    free(req->orderings);
    free(req->canonical);
    memset(req, 0, sizeof *req);
}

/* The canonical text is the request as parse_body wrote it, except that the model
 * sits in the kernel (it is part of the kernel's identity there) and the model
 * version is added: undo those two. */
cJSON *lr_request_from_canonical(const char *canonical, lr_error *err)
{
    const char *end = NULL;
    cJSON *o = canonical ? cJSON_ParseWithOpts(canonical, &end, 1) : NULL;
    cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "kernel");
    if (!cJSON_IsObject(o) || !cJSON_IsObject(k) ||
        !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "device")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "domain"))) {
        cJSON_Delete(o);
        lr_error_set(err, LR_INVALID_REQUEST, NULL,
                     "not a canonical request (an object with device, domain and kernel)");
        return NULL;
    }
    jb b = {0};
    cJSON *model = cJSON_DetachItemFromObjectCaseSensitive(k, "model");
    if (model)
        jb_item(&b, o, "model", model);
    cJSON_DeleteItemFromObjectCaseSensitive(o, "model_version");
    if (!(o = jb_finish(&b, o)))
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return o;
}

void lr_request_config_text(const est_launch *l, char out[LR_CONFIG_TEXT])
{
    if (l->ordering) { /* the canonical text's "orderings" names it */
        snprintf(out, LR_CONFIG_TEXT, "|block=%d,%d,%d|folding=%d,%d,%d|ordering=%d",
                 l->block[0], l->block[1], l->block[2], l->folding[0], l->folding[1],
                 l->folding[2], l->ordering);
        return;
    }
    snprintf(out, LR_CONFIG_TEXT, "|block=%d,%d,%d|folding=%d,%d,%d", l->block[0], l->block[1],
             l->block[2], l->folding[0], l->folding[1], l->folding[2]);
}

void lr_request_key(const lr_request *req, const est_launch *l, char key[33])
{
    char launch[LR_CONFIG_TEXT];
    lr_request_config_text(l, launch);
    const char *parts[] = {req->canonical, launch};
    lr_hash_hex(parts, 2, key);
}
