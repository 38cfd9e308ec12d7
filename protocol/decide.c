/* decide: see decide.h. */
#include "decide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jbuild.h"
#include "response.h"

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* c's occupancy and idle share from its grid (blocks per axis) and blocks per SM. */
static void occupancy_and_idle(lr_choice *c, const double grid[3], double blocks_per_sm,
                               const est_device *dev, const int64_t domain[3])
{
    const int *bd = c->launch.block;
    c->occupancy = blocks_per_sm * bd[0] * bd[1] * bd[2] / (double)dev->max_threads_per_sm;
    /* launched threads per axis against those with a lattice point to update */
    double launched = 1, working = 1;
    for (int d = 0; d < 3; d++) {
        int64_t f = c->launch.folding[d];
        launched *= grid[d] * bd[d];
        working *= (double)((domain[d] + f - 1) / f);
    }
    c->idle = launched > 0 && working < launched ? 1 - working / launched : 0;
}

void lr_choice_from_estimate(lr_choice *c, const cJSON *est, const lr_request *req)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(est, "launch"),
                *grid = cJSON_GetObjectItemCaseSensitive(l, "grid");
    c->predicted = num(cJSON_GetObjectItemCaseSensitive(est, "performance"), "predicted");
    double g[3];
    for (int d = 0; d < 3; d++) {
        const cJSON *x = cJSON_GetArrayItem(grid, d);
        g[d] = cJSON_IsNumber(x) ? x->valuedouble : 0;
    }
    occupancy_and_idle(c, g, num(l, "blocks_per_sm"), &req->device, req->domain);
}

void lr_choice_from_result(lr_choice *c, const est_result *r, const est_device *dev)
{
    c->launch = r->config.launch;
    c->predicted = r->predicted;
    double g[3] = {(double)r->grid[0], (double)r->grid[1], (double)r->grid[2]};
    occupancy_and_idle(c, g, r->blocks_per_sm, dev, r->config.domain);
}

static int warp_multiple(const lr_choice *c)
{
    return c->launch.block[0] % 32 == 0;
}

/* Idle shares closer than this are the same: a block that sticks out of a 15000-wide
 * domain by 8 threads or by 32 leaves 0.05 % or 0.2 % idle, which decides nothing that
 * occupancy should not decide first. */
#define IDLE_SAME 0.01

/* Whether a is preferred to b within the tie group: a warp-multiple bx first. Model v2
 * predicts what idle threads and occupancy cost (its latency and block limits), so
 * under it the better prediction decides next. Until model 2026.11-6 the fewest idle
 * threads and the highest occupancy came first under v2 too; on the measured corpora
 * that picked configurations the model ranked lower and that run slower
 * (tests/accuracy/accuracy's "rec": H100 97.3 % of the best on average, min 85.7 % for D3Q19,
 * whose tie group holds most blocks; H200 97.0 %, min 82.5 %, below the best fixed
 * block in 4 families) where the prediction gets 99.7 % (min 98.4) and 99.6 % (98.2).
 * The reference method ("warpspeed") sees neither, so there they decide before the
 * prediction. */
static int better(const lr_choice *a, const lr_choice *b, int v2)
{
    if (warp_multiple(a) != warp_multiple(b))
        return warp_multiple(a);
    if (!v2 && fabs(a->idle - b->idle) > IDLE_SAME)
        return a->idle < b->idle;
    if (!v2 && fabs(a->occupancy - b->occupancy) > 1e-9)
        return a->occupancy > b->occupancy;
    return a->rank < b->rank;
}

static void add_int3(jb *b, cJSON *o, const char *key, const int *v)
{
    int64_t w[3] = {v[0], v[1], v[2]};
    jb_ints(b, o, key, w, 3);
}

static double round6(double v)
{
    return round(v * 1e6) / 1e6;
}

lr_rank_key lr_rank_key_of(const est_result *r)
{
    const est_volumes *t = &r->total;
    return (lr_rank_key){
        .predicted = lr_reported(r->predicted),
        .dram = lr_reported(t->dram_load) + lr_reported(t->dram_store),
        .l2 = lr_reported(t->l2_load) + lr_reported(t->l2_store)};
}

int lr_rank_key_cmp(const lr_rank_key *a, const lr_rank_key *b)
{
    if (a->predicted != b->predicted)
        return a->predicted > b->predicted ? -1 : 1;
    if (a->dram != b->dram)
        return a->dram < b->dram ? -1 : 1;
    if (a->l2 != b->l2)
        return a->l2 < b->l2 ? -1 : 1;
    return 0;
}

/* {"rank", "block", "folding"[, "ordering"], "predicted"[, "occupancy", "idle_threads"]}
 * (the ordering when req ranks orderings) as member
 * key of parent (an element when key is NULL); returns the object. */
static cJSON *add_choice(jb *b, cJSON *parent, const char *key, const lr_choice *c, int full,
                         const lr_request *req)
{
    cJSON *o = jb_obj(b, parent, key);
    jb_num(b, o, "rank", c->rank);
    add_int3(b, o, "block", c->launch.block);
    add_int3(b, o, "folding", c->launch.folding);
    if (req && req->norderings)
        jb_str(b, o, "ordering", lr_request_ordering_name(req, c->launch.ordering));
    jb_num(b, o, "predicted", c->predicted);
    if (full) {
        jb_num(b, o, "occupancy", round6(c->occupancy));
        jb_num(b, o, "idle_threads", round6(c->idle));
    }
    return o;
}

static const char *dims(const int *v, char *buf, size_t n)
{
    snprintf(buf, n, "%dx%dx%d", v[0], v[1], v[2]);
    return buf;
}

/* One line: why the recommendation is this configuration. */
static void reason(char *buf, size_t n, const lr_choice *rec, const lr_choice *best, int ntied,
                   double precision, int v2)
{
    if (ntied == 1)
        snprintf(buf, n,
                 "the only configuration predicted within %.1f %% (the model's precision on "
                 "this device) of the best, %.4g GLup/s",
                 100 * precision, best->predicted);
    else if (v2)
        snprintf(buf, n,
                 "one of %d configurations predicted within %.1f %% of the best (%.4g "
                 "GLup/s), which the model cannot order for certain (its precision on this "
                 "device); chosen as the best predicted %s (occupancy %.0f %%, idle threads "
                 "%.1f %%: model v2 predicts what both cost)",
                 ntied, 100 * precision, best->predicted,
                 warp_multiple(rec) ? "with a warp-multiple bx"
                                    : "(no tied bx is a multiple of 32)",
                 100 * rec->occupancy, 100 * rec->idle);
    else
        snprintf(buf, n,
                 "one of %d configurations predicted within %.1f %% of the best (%.4g "
                 "GLup/s), which the model cannot order (its precision on this device); "
                 "chosen for %s, then the fewest idle threads (%.1f %%; within 1 %% is a "
                 "tie), then the highest occupancy (%.0f %%), which the reference model does "
                 "not see",
                 ntied, 100 * precision, best->predicted,
                 warp_multiple(rec) ? "a warp-multiple bx"
                                    : "the block (no tied bx is a "
                                      "multiple of 32)",
                 100 * rec->idle, 100 * rec->occupancy);
}

/* The recommendation's predicted gain over the baseline (0 when the baseline predicts
 * nothing). */
static double gain_over(const lr_choice *base, const lr_choice *rec)
{
    return base->predicted > 0 ? rec->predicted / base->predicted - 1 : 0;
}

/* The advice on a baseline: keep it when it has no warnings and is tied with the best
 * or the recommendation's gain over it lies inside the precision. */
static int keeps(const lr_choice *base, const lr_choice *rec, int tied, double precision)
{
    return !base->warned && (tied || gain_over(base, rec) <= precision);
}

static void add_baseline(jb *j, cJSON *parent, const lr_choice *c, long baseline,
                         const lr_choice *rec, int tied, double precision,
                         const lr_request *req, const char *why_not)
{
    cJSON *o = jb_obj(j, parent, "baseline");
    char msg[400], b[40], f[40];
    add_int3(j, o, "block", req->baseline.block);
    add_int3(j, o, "folding", req->baseline.folding);
    dims(req->baseline.block, b, sizeof b);
    dims(req->baseline.folding, f, sizeof f);
    if (baseline < 0) {
        jb_null(j, o, "rank");
        jb_null(j, o, "predicted");
        jb_null(j, o, "gain");
        jb_str(j, o, "advice", "switch");
        snprintf(msg, sizeof msg, "the baseline %s, folding %s cannot run: %s", b, f,
                 why_not ? why_not : "not launchable");
        jb_str(j, o, "reason", msg);
        return;
    }
    const lr_choice *base = &c[baseline];
    double gain = gain_over(base, rec);
    int keep = keeps(base, rec, tied, precision);
    jb_num(j, o, "rank", base->rank);
    jb_num(j, o, "predicted", base->predicted);
    jb_num(j, o, "gain", round6(gain));
    jb_str(j, o, "advice", keep ? "keep" : "switch");
    if (base->warned)
        snprintf(msg, sizeof msg,
                 "the baseline %s, folding %s has plausibility warnings (see its result); "
                 "the recommendation is predicted %.1f %% faster",
                 b, f, 100 * gain);
    else if (keep)
        snprintf(msg, sizeof msg,
                 "keep the baseline %s, folding %s: the recommendation is predicted %.1f %% "
                 "faster, inside the model's %.1f %% precision on this device",
                 b, f, 100 * gain, 100 * precision);
    else
        snprintf(msg, sizeof msg,
                 "switch: the recommendation is predicted %.1f %% faster than the baseline "
                 "%s, folding %s, beyond the model's %.1f %% precision on this device",
                 100 * gain, b, f, 100 * precision);
    jb_str(j, o, "reason", msg);
}

/* The tie group of c[pos[0..m)) (ranked): how many are within precision of the best,
 * into *ntied; returns the position in pos of the one the decision prefers. */
static size_t pick(const lr_choice *c, const size_t *pos, size_t m, double precision, int v2,
                   size_t *ntied)
{
    size_t rec = 0;
    *ntied = 0;
    for (size_t i = 0; i < m; i++) {
        if (c[pos[i]].predicted < (1 - precision) * c[pos[0]].predicted)
            break;
        (*ntied)++;
        if (better(&c[pos[i]], &c[pos[rec]], v2))
            rec = i;
    }
    return rec;
}

/* The positions in c[0..n) the decision looks at, into pos (room for n): those
 * without warnings, or all of them when every one has warnings (then *with_warned is
 * set: no recommendation). Returns how many. */
static size_t considered(const lr_choice *c, size_t n, size_t *pos, int *with_warned)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!c[i].warned)
            pos[m++] = i;
    *with_warned = m == 0;
    for (size_t i = 0; *with_warned && i < n; i++)
        pos[m++] = i;
    return m;
}

/* The index in c[0..n) of the recommendation (n when there is none: n is 0, out of
 * memory, or every configuration has warnings); into *base_tied whether the one at
 * index baseline is in the tie group. */
static size_t recommend(const lr_choice *c, size_t n, double precision, int v2,
                        size_t baseline, int *base_tied)
{
    size_t *pos = calloc(n ? n : 1, sizeof *pos), ntied = 0, rec = n;
    int with_warned;
    *base_tied = 0;
    if (!pos)
        return n;
    size_t m = considered(c, n, pos, &with_warned);
    if (m && !with_warned) {
        rec = pos[pick(c, pos, m, precision, v2, &ntied)];
        for (size_t i = 0; i < ntied; i++)
            *base_tied |= pos[i] == baseline;
    }
    free(pos);
    return rec;
}

size_t lr_decision_pick(const lr_choice *c, size_t n, double precision, int v2)
{
    int tied;
    return recommend(c, n, precision, v2, n, &tied);
}

size_t lr_decision_follow(const lr_choice *c, size_t n, double precision, int v2,
                          size_t baseline)
{
    int tied;
    size_t rec = recommend(c, n, precision, v2, baseline, &tied);
    return rec < n && baseline < n && keeps(&c[baseline], &c[rec], tied, precision)
               ? baseline
               : rec;
}

cJSON *lr_decision_json(const lr_choice *c, size_t n, double precision, long baseline,
                        const lr_request *req, const char *baseline_reason)
{
    size_t *pos = calloc(n ? n : 1, sizeof *pos);
    int with_warned;
    if (!pos)
        return NULL;
    jb b = {0};
    cJSON *o = jb_new_obj(&b);
    size_t m = considered(c, n, pos, &with_warned);
    jb_num(&b, o, "precision", precision);
    jb_num(&b, o, "considered", (double)m);
    if (m == 0) {
        jb_null(&b, o, "best");
        jb_null(&b, o, "median");
        jb_null(&b, o, "worst");
        jb_arr(&b, o, "tie_group");
        jb_null(&b, o, "recommended");
    } else {
        const lr_choice *best = &c[pos[0]];
        add_choice(&b, o, "best", best, 0, req);
        add_choice(&b, o, "median", &c[pos[(m - 1) / 2]], 0, req);
        add_choice(&b, o, "worst", &c[pos[m - 1]], 0, req);
        cJSON *tie = jb_arr(&b, o, "tie_group");
        size_t ntied;
        int v2 = est_kernel_model(req->kernel) == EST_MODEL_V2;
        const lr_choice *rec = &c[pos[pick(c, pos, m, precision, v2, &ntied)]];
        int base_tied = 0;
        for (size_t i = 0; i < ntied; i++) {
            base_tied |= (long)pos[i] == baseline;
            add_choice(&b, tie, NULL, &c[pos[i]], 1, req);
        }
        /* no recommendation out of predictions that do not describe the kernel */
        if (with_warned) {
            jb_null(&b, o, "recommended");
        } else {
            char why[512];
            reason(why, sizeof why, rec, best, (int)ntied, precision, v2);
            jb_str(&b, add_choice(&b, o, "recommended", rec, 1, req), "reason", why);
        }
        if (req->has_baseline && !with_warned)
            add_baseline(&b, o, c, baseline, rec, base_tied, precision, req, baseline_reason);
    }
    if (with_warned && n > 0)
        jb_str(&b, o, "note",
               "every configuration has plausibility warnings, so there is no "
               "recommendation: the predictions do not describe the kernel "
               "the request means; fix what the warnings name first");
    free(pos);
    return jb_finish(&b, o);
}
