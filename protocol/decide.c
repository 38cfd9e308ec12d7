/* decide: see decide.h. */
#include "decide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

void lr_choice_from_estimate(lr_choice *c, const cJSON *est, const lr_request *req)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(est, "launch"),
                *grid = cJSON_GetObjectItemCaseSensitive(l, "grid");
    c->predicted = num(cJSON_GetObjectItemCaseSensitive(est, "performance"), "predicted");
    c->occupancy = num(l, "blocks_per_sm") * num(l, "threads_per_block") /
                   (double)req->device.max_threads_per_sm;
    /* launched threads per axis against those with a lattice point to update */
    double launched = 1, working = 1;
    for (int d = 0; d < 3; d++) {
        const cJSON *g = cJSON_GetArrayItem(grid, d);
        int64_t f = c->launch.folding[d];
        launched *= (cJSON_IsNumber(g) ? g->valuedouble : 0) * c->launch.block[d];
        working *= (double)((req->domain[d] + f - 1) / f);
    }
    c->idle = launched > 0 && working < launched ? 1 - working / launched : 0;
}

static int warp_multiple(const lr_choice *c)
{
    return c->launch.block[0] % 32 == 0;
}

/* Idle shares closer than this are the same: a block that sticks out of a 15000-wide
 * domain by 8 threads or by 32 leaves 0.05 % or 0.2 % idle, which decides nothing that
 * occupancy should not decide first. */
#define IDLE_SAME 0.01

/* Whether a is preferred to b within the tie group. */
static int better(const lr_choice *a, const lr_choice *b)
{
    if (warp_multiple(a) != warp_multiple(b))
        return warp_multiple(a);
    if (fabs(a->idle - b->idle) > IDLE_SAME)
        return a->idle < b->idle;
    if (fabs(a->occupancy - b->occupancy) > 1e-9)
        return a->occupancy > b->occupancy;
    return a->rank < b->rank;
}

static void add_int3(cJSON *o, const char *key, const int *v)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (int d = 0; d < 3 && a; d++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[d]));
}

static double round6(double v)
{
    return round(v * 1e6) / 1e6;
}

/* {"rank", "block", "folding", "predicted"[, "occupancy", "idle_threads"]} */
static cJSON *choice_json(const lr_choice *c, int full)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "rank", c->rank);
    add_int3(o, "block", c->launch.block);
    add_int3(o, "folding", c->launch.folding);
    cJSON_AddNumberToObject(o, "predicted", c->predicted);
    if (full) {
        cJSON_AddNumberToObject(o, "occupancy", round6(c->occupancy));
        cJSON_AddNumberToObject(o, "idle_threads", round6(c->idle));
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
                   double precision)
{
    if (ntied == 1)
        snprintf(buf, n,
                 "the only configuration predicted within %.1f %% (the model's precision on "
                 "this device) of the best, %.4g GLup/s",
                 100 * precision, best->predicted);
    else
        snprintf(buf, n,
                 "one of %d configurations predicted within %.1f %% of the best (%.4g "
                 "GLup/s), which the model cannot order (its precision on this device); "
                 "chosen for %s, then the fewest idle threads (%.1f %%; within 1 %% is a "
                 "tie), then the highest "
                 "occupancy (%.0f %%)",
                 ntied, 100 * precision, best->predicted,
                 warp_multiple(rec) ? "a warp-multiple bx"
                                    : "the block (no tied bx is a "
                                      "multiple of 32)",
                 100 * rec->idle, 100 * rec->occupancy);
}

static cJSON *baseline_json(const lr_choice *c, long baseline, const lr_choice *rec, int tied,
                            double precision, const lr_request *req, const char *why_not)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char msg[400], b[40], f[40];
    add_int3(o, "block", req->baseline.block);
    add_int3(o, "folding", req->baseline.folding);
    dims(req->baseline.block, b, sizeof b);
    dims(req->baseline.folding, f, sizeof f);
    if (baseline < 0) {
        cJSON_AddNullToObject(o, "rank");
        cJSON_AddNullToObject(o, "predicted");
        cJSON_AddNullToObject(o, "gain");
        cJSON_AddStringToObject(o, "advice", "switch");
        snprintf(msg, sizeof msg, "the baseline %s, folding %s cannot run: %s", b, f,
                 why_not ? why_not : "not launchable");
        cJSON_AddStringToObject(o, "reason", msg);
        return o;
    }
    const lr_choice *base = &c[baseline];
    double gain = base->predicted > 0 ? rec->predicted / base->predicted - 1 : 0;
    int keep = !base->warned && (tied || gain <= precision);
    cJSON_AddNumberToObject(o, "rank", base->rank);
    cJSON_AddNumberToObject(o, "predicted", base->predicted);
    cJSON_AddNumberToObject(o, "gain", round6(gain));
    cJSON_AddStringToObject(o, "advice", keep ? "keep" : "switch");
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
    cJSON_AddStringToObject(o, "reason", msg);
    return o;
}

cJSON *lr_decision_json(const lr_choice *c, size_t n, double precision, long baseline,
                        const lr_request *req, const char *baseline_reason)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    /* the decision looks at the configurations without warnings, if there are any */
    size_t *pos = calloc(n ? n : 1, sizeof *pos), m = 0;
    if (!pos) {
        cJSON_Delete(o);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!c[i].warned)
            pos[m++] = i;
    int with_warned = m == 0;
    for (size_t i = 0; with_warned && i < n; i++)
        pos[m++] = i;
    cJSON_AddNumberToObject(o, "precision", precision);
    cJSON_AddNumberToObject(o, "considered", (double)m);
    if (m == 0) {
        cJSON_AddNullToObject(o, "best");
        cJSON_AddNullToObject(o, "median");
        cJSON_AddNullToObject(o, "worst");
        cJSON_AddArrayToObject(o, "tie_group");
        cJSON_AddNullToObject(o, "recommended");
    } else {
        const lr_choice *best = &c[pos[0]];
        cJSON_AddItemToObject(o, "best", choice_json(best, 0));
        cJSON_AddItemToObject(o, "median", choice_json(&c[pos[(m - 1) / 2]], 0));
        cJSON_AddItemToObject(o, "worst", choice_json(&c[pos[m - 1]], 0));
        cJSON *tie = cJSON_AddArrayToObject(o, "tie_group");
        const lr_choice *rec = best;
        int ntied = 0, base_tied = 0;
        for (size_t i = 0; i < m; i++) {
            const lr_choice *x = &c[pos[i]];
            if (x->predicted < (1 - precision) * best->predicted)
                break;
            ntied++;
            base_tied |= (long)pos[i] == baseline;
            cJSON_AddItemToArray(tie, choice_json(x, 1));
            if (better(x, rec))
                rec = x;
        }
        /* no recommendation out of predictions that do not describe the kernel */
        cJSON *r = with_warned ? NULL : choice_json(rec, 1);
        char why[512];
        reason(why, sizeof why, rec, best, ntied, precision);
        if (r)
            cJSON_AddStringToObject(r, "reason", why);
        if (r)
            cJSON_AddItemToObject(o, "recommended", r);
        else
            cJSON_AddNullToObject(o, "recommended");
        if (req->has_baseline && !with_warned)
            cJSON_AddItemToObject(
                o, "baseline",
                baseline_json(c, baseline, rec, base_tied, precision, req, baseline_reason));
    }
    if (with_warned && n > 0)
        cJSON_AddStringToObject(o, "note",
                                "every configuration has plausibility warnings, so there is no "
                                "recommendation: the predictions do not describe the kernel "
                                "the request means; fix what the warnings name first");
    free(pos);
    return o;
}
