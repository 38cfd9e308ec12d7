/*
 * refit: a device's model-v2 parameters refitted to the store's measurement log
 * (refit.h, docs/calibration.md).
 *
 * Three steps: collect the rows of the log whose request names the device (one
 * kernel key per row: the request without its launch, under the device's current
 * figures), estimate each row's configuration (volumes), then check there is enough
 * to fit and fit. The report says what was skipped and why.
 */
#include "refit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fit.h"
#include "request.h"

/* One measurement of the device, its kernel known by the key text. */
typedef struct refit_row {
    int group;
    int block[3], folding[3];
    double glups;
    est_result r;
} refit_row;

/* One kernel: the request body without launch (the key) and its first kernel. */
typedef struct refit_group {
    char *key;     /* owned: the body text, device replaced by the refitted one */
    est_kernel *k; /* owned; NULL until a row of it was estimated */
    char label[24];
    char legend[200];
} refit_group;

typedef struct refit {
    const lr_devices *devs;
    const est_device *dev;
    cJSON *dev_json; /* owned: the device as every rebuilt request names it */
    refit_row *rows;
    int nrows, cap_rows;
    refit_group *groups;
    int ngroups, cap_groups;
    cal_refit_stats *stats;
    lr_error oom; /* set when out of memory stopped the walk */
} refit;

static int oom(refit *rf)
{
    lr_error_set(&rf->oom, LR_NO_MEMORY, NULL, "out of memory reading the measurement log");
    return 1;
}

/* "domain 512x512x256, fields u,v" for the report's legend. */
static void describe(const cJSON *body, char *out, size_t n)
{
    const cJSON *dom = cJSON_GetObjectItemCaseSensitive(body, "domain");
    const cJSON *fields = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(body, "kernel"), "fields");
    size_t len = (size_t)snprintf(out, n, "domain %gx%gx%g, fields ",
                                  cJSON_GetNumberValue(cJSON_GetArrayItem(dom, 0)),
                                  cJSON_GetNumberValue(cJSON_GetArrayItem(dom, 1)),
                                  cJSON_GetNumberValue(cJSON_GetArrayItem(dom, 2)));
    const cJSON *f;
    int i = 0;
    cJSON_ArrayForEach(f, fields)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "name"));
        if (len < n)
            len +=
                (size_t)snprintf(out + len, n - len, "%s%s", i++ ? "," : "", name ? name : "?");
    }
}

/* The group of key (taken), made when new. -1 when out of memory. */
static int group_of(refit *rf, char *key, const cJSON *body)
{
    for (int g = 0; g < rf->ngroups; g++)
        if (!strcmp(rf->groups[g].key, key)) {
            cJSON_free(key);
            return g;
        }
    if (rf->ngroups == rf->cap_groups) {
        int nc = rf->cap_groups ? 2 * rf->cap_groups : 16;
        refit_group *ng = realloc(rf->groups, sizeof *ng * (size_t)nc);
        if (!ng) {
            cJSON_free(key);
            return -1;
        }
        rf->groups = ng;
        rf->cap_groups = nc;
    }
    refit_group *g = &rf->groups[rf->ngroups];
    memset(g, 0, sizeof *g);
    g->key = key;
    snprintf(g->label, sizeof g->label, "kernel %d", rf->ngroups + 1);
    describe(body, g->legend, sizeof g->legend);
    return rf->ngroups++;
}

/* st_measurement_fn: keeps the rows of the device. */
static int collect(void *user, const st_measurement *m)
{
    refit *rf = user;
    rf->stats->rows++;
    if (!m->request) {
        rf->stats->no_request++;
        return 0;
    }
    lr_error e;
    lr_error_clear(&e);
    cJSON *body = lr_request_from_canonical(m->request, &e);
    const char *dname = body ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                                   cJSON_GetObjectItemCaseSensitive(body, "device"), "name"))
                             : NULL;
    if (!body || !dname) {
        cJSON_Delete(body);
        rf->stats->unusable++;
        return 0;
    }
    if (strcasecmp(dname, rf->dev->name)) {
        cJSON_Delete(body);
        rf->stats->other_device++;
        return 0;
    }
    cJSON *dev = cJSON_Duplicate(rf->dev_json, 1);
    char *key = dev && cJSON_ReplaceItemInObjectCaseSensitive(body, "device", dev)
                    ? cJSON_PrintUnformatted(body)
                    : NULL;
    int g = key ? group_of(rf, key, body) : -1;
    cJSON_Delete(body);
    if (g < 0)
        return oom(rf);
    if (rf->nrows == rf->cap_rows) {
        int nc = rf->cap_rows ? 2 * rf->cap_rows : 256;
        refit_row *nr = realloc(rf->rows, sizeof *nr * (size_t)nc);
        if (!nr)
            return oom(rf);
        rf->rows = nr;
        rf->cap_rows = nc;
    }
    refit_row *r = &rf->rows[rf->nrows++];
    memset(r, 0, sizeof *r);
    r->group = g;
    memcpy(r->block, m->block, sizeof r->block);
    memcpy(r->folding, m->folding, sizeof r->folding);
    r->glups = m->glups;
    return 0;
}

/* Estimates row i under the device; 0 when it can be fitted, 1 when it cannot (a
 * request this build does not read, a launch that does not run), -1 when out of
 * memory. */
static int estimate_row(refit *rf, est_ctx *ctx, refit_row *row)
{
    refit_group *g = &rf->groups[row->group];
    cJSON *body = cJSON_Parse(g->key);
    cJSON *launch = body ? cJSON_AddObjectToObject(body, "launch") : NULL;
    char *text = NULL;
    if (launch && cJSON_AddItemToObject(launch, "block", cJSON_CreateIntArray(row->block, 3)) &&
        cJSON_AddItemToObject(launch, "folding", cJSON_CreateIntArray(row->folding, 3)))
        text = cJSON_PrintUnformatted(body);
    cJSON_Delete(body);
    if (!text)
        return -1;
    lr_request req;
    lr_error e;
    lr_error_clear(&e);
    int rc = lr_request_parse(rf->devs, text, strlen(text), LR_REQ_ESTIMATE, &req, &e);
    cJSON_free(text);
    if (rc)
        return e.code == LR_NO_MEMORY ? -1 : 1;
    est_config cfg = {{req.domain[0], req.domain[1], req.domain[2]}, req.launch};
    rc = est_estimate(ctx, req.kernel, rf->dev, &cfg, &row->r, &e);
    if (!rc && row->r.launchable && row->glups > 0 && isfinite(row->glups)) {
        if (!g->k) {
            g->k = req.kernel;
            req.kernel = NULL;
        }
    } else {
        rc = rc && e.code == LR_NO_MEMORY ? -1 : 1;
    }
    lr_request_release(&req);
    return rc;
}

static void today(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%d", &tm);
}

/* The refusals of too little or too uniform data; 0 when the data can be fitted. */
static int check_data(const refit *rf, const cal_sample *smp, int n, lr_error *err)
{
    const char *dn = rf->dev->name;
    if (n < CAL_REFIT_MIN_MEASUREMENTS)
        return lr_error_set(err, LR_INVALID_REQUEST, "measurements",
                            "%d usable measurement%s of %s in the log; a fit needs at least %d "
                            "(launchrank measure --db or rank --measure-top --db add them)",
                            n, n == 1 ? "" : "s", dn, CAL_REFIT_MIN_MEASUREMENTS);
    if (rf->stats->kernels < CAL_REFIT_MIN_KERNELS)
        return lr_error_set(err, LR_INVALID_REQUEST, "measurements",
                            "the measurements of %s are of %d kernel%s only; a fit needs at "
                            "least %d (one kernel's timings fit that kernel and nothing else)",
                            dn, rf->stats->kernels, rf->stats->kernels == 1 ? "" : "s",
                            CAL_REFIT_MIN_KERNELS);
    for (int g = 0; g < rf->ngroups; g++) {
        double lo = INFINITY, hi = 0;
        for (int i = 0; i < n; i++)
            if (smp[i].group == g) {
                lo = fmin(lo, smp[i].measured);
                hi = fmax(hi, smp[i].measured);
            }
        if (hi > 0 && hi / lo - 1 >= CAL_REFIT_MIN_SPREAD)
            return 0;
    }
    return lr_error_set(err, LR_INVALID_REQUEST, "measurements",
                        "the measured GLup/s of %s vary by less than %.0f %% within every "
                        "kernel: too uniform to fit (measure launches that differ more)",
                        dn, 100 * CAL_REFIT_MIN_SPREAD);
}

/* The new description with its sources; NULL with err. */
static cJSON *describe_result(const refit *rf, const est_device *dev, lr_error *err)
{
    char why[160];
    const char *badfig = est_device_check(dev, why, sizeof why);
    if (badfig) {
        lr_error_set(err, LR_INVALID_REQUEST, badfig, "the fit gives an impossible figure: %s",
                     why);
        return NULL;
    }
    cJSON *out = lr_device_to_json(rf->devs, dev, 0);
    cJSON *src = out ? cJSON_AddObjectToObject(out, "sources") : NULL;
    char s[512], keys[512] = "", date[32];
    today(date, sizeof date);
    for (int q = 0; q < CAL_NPARAMS; q++)
        snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", q ? "," : "",
                 cal_param_name(q));
    snprintf(s, sizeof s,
             "launchrank fit on %d measurements of %d kernels, %s: model v2 refitted "
             "(calibrate/fit.c, objective %.4f -> %.4f)",
             rf->stats->used, rf->stats->kernels, date, rf->stats->before, rf->stats->after);
    int ok = src && cJSON_AddStringToObject(src, keys, s);
    snprintf(s, sizeof s, "those of %s (launchrank devices '%s' shows their sources)",
             rf->dev->name, rf->dev->name);
    ok = ok && cJSON_AddStringToObject(src, "other figures", s);
    if (!ok) {
        cJSON_Delete(out);
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    return out;
}

/* The refitted device's name into newname: name, else "DEVICE-refit" (a name devices
 * add takes: letters, digits, '.', '_' and '-'); refused when it is a built-in's or too
 * long. 0, or -1 with err set. */
static int refit_name(const lr_devices *devs, const est_device *target, const char *name,
                      char newname[EST_MAX_NAME + 16], lr_error *err)
{
    snprintf(newname, EST_MAX_NAME + 16, "%s%s", name ? name : target->name,
             name ? "" : "-refit");
    int at = lr_devices_index(devs, newname);
    if (at >= 0 && !lr_devices_is_stored(devs, at))
        return lr_error_set(err, LR_INVALID_REQUEST, "name",
                            "'%s' is a built-in device; a refit never replaces one (give "
                            "--name)",
                            newname);
    if (strlen(newname) >= EST_MAX_NAME)
        return lr_error_set(err, LR_INVALID_REQUEST, "name",
                            "the name has %d characters at most", EST_MAX_NAME - 1);
    return 0;
}

/* Estimates every collected row on the target device into smp (one sample per usable
 * row, their number in *n) and counts rows and kernels in rf->stats. 0, or -1 with err
 * set (out of memory). */
static int estimate_rows(refit *rf, est_ctx *ctx, cal_sample *smp, int *n, lr_error *err)
{
    *n = 0;
    for (int i = 0; i < rf->nrows; i++) {
        int rc = estimate_row(rf, ctx, &rf->rows[i]);
        if (rc < 0)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        if (rc > 0) {
            rf->stats->unusable++;
            continue;
        }
        refit_row *r = &rf->rows[i];
        smp[(*n)++] = (cal_sample){r->group, rf->groups[r->group].k, &r->r, r->glups};
    }
    rf->stats->used = *n;
    for (int g = 0; g < rf->ngroups; g++)
        rf->stats->kernels += rf->groups[g].k != NULL;
    return 0;
}

/* Checks the n samples, fits the target's parameters to them and reports in t; the
 * description of the fitted device called newname, or NULL with err set. */
static cJSON *fit_rows(refit *rf, cal_sample *smp, int n, const char *newname, cal_text *t,
                       lr_error *err)
{
    cal_refit_stats *stats = rf->stats;
    cal_say(t,
            "measurement log: %d rows; %d without their request (measured before launchrank "
            "kept it), %d of other devices, %d unusable; %d measurements of %d kernels of %s\n",
            stats->rows, stats->no_request, stats->other_device, stats->unusable, n,
            stats->kernels, rf->dev->name);
    if (check_data(rf, smp, n, err))
        return NULL;
    const char **labels = malloc(sizeof *labels * (size_t)rf->ngroups);
    if (!labels) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    for (int g = 0; g < rf->ngroups; g++) {
        labels[g] = rf->groups[g].label;
        if (rf->groups[g].k)
            cal_say(t, "  %s: %s\n", rf->groups[g].label, rf->groups[g].legend);
    }
    char title[128];
    snprintf(title, sizeof title, "with the parameters of %s:", rf->dev->name);
    est_device dev = cal_fit_reported(rf->dev, smp, n, t, title, "kernel", labels, rf->ngroups,
                                      &stats->before, &stats->after);
    free(labels);
    snprintf(dev.name, sizeof dev.name, "%s", newname);
    dev.provenance = EST_PROVENANCE_MEASURED; /* fitted to timings of this GPU's log */
    return describe_result(rf, &dev, err);
}

cJSON *cal_refit(const lr_devices *devs, st_store *st, const char *device, const char *name,
                 cal_refit_stats *stats, char **report, lr_error *err)
{
    cal_refit_stats own;
    if (!stats)
        stats = &own;
    memset(stats, 0, sizeof *stats);
    if (report)
        *report = NULL;
    const est_device *target = lr_devices_find(devs, device);
    if (!target) {
        lr_error_set(err, LR_NOT_FOUND, "device",
                     "unknown device '%s' (launchrank devices --db PATH lists them)", device);
        return NULL;
    }
    char newname[EST_MAX_NAME + 16];
    if (refit_name(devs, target, name, newname, err))
        return NULL;

    refit rf = {.devs = devs, .dev = target, .stats = stats};
    lr_error_clear(&rf.oom);
    cal_sample *smp = NULL;
    cal_text t = {0};
    cJSON *out = NULL;
    int n = 0, walk;
    est_ctx *ctx = est_ctx_new(0);
    rf.dev_json = lr_device_to_json(devs, target, 0);
    if (!ctx || !rf.dev_json)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    else if ((walk = st_measurement_each(st, collect, &rf, err)) > 0)
        *err = rf.oom;
    else if (!walk && !(smp = calloc((size_t)rf.nrows + 1, sizeof *smp)))
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    else if (!walk && !estimate_rows(&rf, ctx, smp, &n, err))
        out = fit_rows(&rf, smp, n, newname, &t, err);
    if (report)
        *report = t.s;
    else
        free(t.s);
    free(smp);
    for (int g = 0; g < rf.ngroups; g++) {
        free(rf.groups[g].key);
        est_kernel_free(rf.groups[g].k);
    }
    free(rf.groups);
    free(rf.rows);
    cJSON_Delete(rf.dev_json);
    est_ctx_free(ctx);
    return out;
}
