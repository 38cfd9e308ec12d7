/* decide: see decide.h. */
#include "decide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jbuild.h"

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

static void add_int3(jb *b, cJSON *o, const char *key, const int *v)
{
    int64_t w[3] = {v[0], v[1], v[2]};
    jb_ints(b, o, key, w, 3);
}

static double round6(double v)
{
    return round(v * 1e6) / 1e6;
}

/* {"rank", "block", "folding", "predicted"[, "occupancy", "idle_threads"]} as member
 * key of parent (an element when key is NULL); returns the object. */
static cJSON *add_choice(jb *b, cJSON *parent, const char *key, const lr_choice *c, int full)
{
    cJSON *o = jb_obj(b, parent, key);
    jb_num(b, o, "rank", c->rank);
    add_int3(b, o, "block", c->launch.block);
    add_int3(b, o, "folding", c->launch.folding);
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
    double gain = base->predicted > 0 ? rec->predicted / base->predicted - 1 : 0;
    int keep = !base->warned && (tied || gain <= precision);
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

cJSON *lr_decision_json(const lr_choice *c, size_t n, double precision, long baseline,
                        const lr_request *req, const char *baseline_reason)
{
    /* the decision looks at the configurations without warnings, if there are any */
    size_t *pos = calloc(n ? n : 1, sizeof *pos), m = 0;
    if (!pos)
        return NULL;
    jb b = {0};
    cJSON *o = jb_new_obj(&b);
    for (size_t i = 0; i < n; i++)
        if (!c[i].warned)
            pos[m++] = i;
    int with_warned = m == 0;
    for (size_t i = 0; with_warned && i < n; i++)
        pos[m++] = i;
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
        add_choice(&b, o, "best", best, 0);
        add_choice(&b, o, "median", &c[pos[(m - 1) / 2]], 0);
        add_choice(&b, o, "worst", &c[pos[m - 1]], 0);
        cJSON *tie = jb_arr(&b, o, "tie_group");
        const lr_choice *rec = best;
        int ntied = 0, base_tied = 0;
        for (size_t i = 0; i < m; i++) {
            const lr_choice *x = &c[pos[i]];
            if (x->predicted < (1 - precision) * best->predicted)
                break;
            ntied++;
            base_tied |= (long)pos[i] == baseline;
            add_choice(&b, tie, NULL, x, 1);
            if (better(x, rec))
                rec = x;
        }
        /* no recommendation out of predictions that do not describe the kernel */
        if (with_warned) {
            jb_null(&b, o, "recommended");
        } else {
            char why[512];
            reason(why, sizeof why, rec, best, ntied, precision);
            jb_str(&b, add_choice(&b, o, "recommended", rec, 1), "reason", why);
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
