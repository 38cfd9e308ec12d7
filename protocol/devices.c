/*
 * devices: see devices.h. One table lists every device figure with its JSON name,
 * type, unit and meaning; parsing, printing and the documentation of the device
 * object all come from it.
 */
#include "devices.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "embedded.h"
#include "jbuild.h"
#include "jread.h"
#include "lr_suggest.h"

typedef enum { T_INT, T_I64, T_DBL } ftype;

typedef struct dev_field {
    const char *name;
    ftype type;
    size_t off;
    double max; /* plausibility bound; est_device_check has the precise rules */
    const char *unit;
    int optional; /* a device object without "base" may leave it out (default below) */
} dev_field;

#define F(n, t, m, u)                                                                          \
    {                                                                                          \
#n, t, offsetof(est_device, n), m, u, 0                                                \
    }
/* An optional figure: 0 when a device without "base" leaves it out (smx_bw_gbs, which
 * only a Kepler device needs and est_device_check demands of it). */
#define O(n, t, m, u)                                                                          \
    {                                                                                          \
#n, t, offsetof(est_device, n), m, u, 1                                                \
    }
/* The parameters of estimator/params.def: optional, the H100's when absent, bounded
 * there (est_device_check). */
#define EST_PARAM(n, kind, h100, lo, lo_open, hi, hi_open, must, unit, doc)                   \
    {#n, T_DBL, offsetof(est_device, n), hi, unit, 1},
static const dev_field fields[] = {
    F(sm_count, T_INT, 4096, "SMs"),
    F(clock_ghz, T_DBL, 10, "GHz"),
    F(l1_bytes, T_I64, 1 << 24, "bytes per SM"),
    F(l2_bytes, T_I64, 17179869184.0, "bytes"),
    F(l2_bw_gbs, T_DBL, 1e6, "GB/s"),
    F(dram_bw_gbs, T_DBL, 1e6, "GB/s"),
    O(smx_bw_gbs, T_DBL, 1e6, "GB/s (Kepler read-only cache, whole chip)"),
    F(l1_bank_bytes_per_cycle, T_INT, 1024, "bytes per cycle per SM"),
    F(fp64_lanes, T_INT, 4096, "fp64 operations per cycle per SM"),
    F(fp32_lanes, T_INT, 4096, "fp32 operations per cycle per SM"),
    O(issue_lanes, T_INT, 4096, "thread instructions issued per cycle per SM"),
    O(special_lanes, T_INT, 4096, "special-function results per cycle per SM"),
    O(integer_lanes, T_INT, 4096, "32-bit integer operations per cycle per SM"),
    F(max_threads_per_sm, T_INT, 65536, "threads"),
    F(max_blocks_per_sm, T_INT, 1024, "blocks"),
    F(max_threads_per_block, T_INT, 65536, "threads"),
    F(regs_per_sm, T_INT, 4194304, "32-bit registers"),
    F(shared_bytes_per_sm, T_I64, 1 << 24, "bytes"),
    O(shared_reserved_bytes_per_block, T_I64, 1 << 16, "bytes per block"),
    O(shared_alloc_bytes, T_I64, 1 << 16, "bytes"),
    F(l1_line_bytes, T_INT, 1024, "bytes"),
    F(l1_sector_bytes, T_INT, 1024, "bytes"),
    F(l2_sector_bytes, T_INT, 1024, "bytes"),
    F(dram_fetch_bytes, T_INT, 4096, "bytes"),
#include "params.def"
};
#undef F
#undef O
#undef EST_PARAM
#define NFIELDS (sizeof fields / sizeof fields[0])

static const char *const fit_names[] = {"miss_l1", "miss_ovy", "miss_ovz", "miss_l2",
                                        "miss_l2store"};

static est_fit *fit_of(est_device *d, int i)
{
    est_fit *f[] = {&d->miss_l1, &d->miss_ovy, &d->miss_ovz, &d->miss_l2, &d->miss_l2store};
    return f[i];
}

/* The built-in devices come first (n_builtin of them), then those lr_devices_add
 * appended (stored devices, read from the SQLite store by api.c). */
struct lr_devices {
    est_device *dev;
    cJSON **sources; /* per device, owned, may be NULL */
    /* per device, owned: lr_device_to_json(NULL, dev, 0) printed, the device's part of
     * every canonical request that names it (printing its figures per request cost a
     * cached answer more than the lookup itself) */
    char **canonical;
    int n, n_builtin, cap;
};

/* The canonical text of dev (malloc'd), or NULL when out of memory. */
static char *canonical_of(const est_device *dev)
{
    cJSON *o = lr_device_to_json(NULL, dev, 0);
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return text;
}

static void set_field(est_device *d, const dev_field *f, double v)
{
    char *p = (char *)d + f->off;
    if (f->type == T_INT)
        *(int *)p = (int)v;
    else if (f->type == T_I64)
        *(int64_t *)p = (int64_t)v;
    else
        *(double *)p = v;
}

static double get_field(const est_device *d, const dev_field *f)
{
    const char *p = (const char *)d + f->off;
    if (f->type == T_INT)
        return *(const int *)p;
    if (f->type == T_I64)
        return (double)*(const int64_t *)p;
    return *(const double *)p;
}

/* The keys a device object may have: these, then every figure of fields[] (in that
 * order, which jr_only_keys' message lists). */
static const char *const device_keys[] = {"name", "base",    "l1_model", "provenance",
                                          "fits", "sources", "units",    "stored"};
#define NDEVICE_KEYS (sizeof device_keys / sizeof device_keys[0])

/* The numeric figures of fields[] present in obj into *d. full: every figure that
 * is not optional is required. */
static int read_numbers(const cJSON *obj, const char *path, int full, est_device *d,
                        lr_error *err)
{
    jpath p;
    for (size_t i = 0; i < NFIELDS; i++) {
        const cJSON *v = jr_get(obj, fields[i].name);
        jp_key(&p, path, fields[i].name);
        if (!v) {
            if (full && !fields[i].optional)
                return lr_error_set(
                    err, LR_INVALID_REQUEST, p.s,
                    "missing: a device without \"base\" must give every figure");
            continue;
        }
        double x = 0;
        int64_t k = 0;
        if (fields[i].type == T_DBL ? jr_num(v, p.s, 0, fields[i].max, &x, err)
                                    : jr_int(v, p.s, 0, (int64_t)fields[i].max, &k, err))
            return -1;
        set_field(d, &fields[i], fields[i].type == T_DBL ? x : (double)k);
    }
    return 0;
}

/* "l1_model": "nv" or "kepler", when present. */
static int read_l1_model(const cJSON *obj, const char *path, est_device *d, lr_error *err)
{
    const cJSON *m = jr_get(obj, "l1_model");
    jpath p;
    const char *s;
    jp_key(&p, path, "l1_model");
    if (!m)
        return 0;
    if (jr_str(m, p.s, 16, &s, err))
        return -1;
    if (strcmp(s, "nv") == 0)
        d->l1_model = EST_L1_NV;
    else if (strcmp(s, "kepler") == 0)
        d->l1_model = EST_L1_KEPLER;
    else
        return lr_error_set(err, LR_INVALID_REQUEST, p.s, "must be \"nv\" or \"kepler\"");
    return 0;
}

/* The provenance words, indexed by est_provenance. */
static const char *const provenance_names[] = {"borrowed", "derived", "measured"};

/* What each provenance means for a prediction, indexed by est_provenance: the sentence
 * answers carry (docs/accuracy.md, "What each device rests on"). */
static const char *const provenance_meanings[] = {
    "the model-v2 parameters are the H100's (H100-SXM5-80GB), not this GPU's, and the rank "
    "precision is that of a GPU predicted with parameters not fitted on it: rankings may be "
    "off by more; calibrate the GPU (docs/calibration.md)",
    "some model-v2 parameters are derived for this GPU from publications or fitted on its "
    "published timings (its sources say which), the others are the H100's, and the rank "
    "precision is that of a GPU predicted with parameters not fitted on it; only published "
    "timings checked them (docs/accuracy.md): measure the top configurations (measure.top) "
    "or calibrate the GPU",
    "the model-v2 parameters were fitted to timings of this GPU; the rank precision is the "
    "measured one where the device's sources say so"};

const char *lr_provenance_name(est_provenance p)
{
    return provenance_names[p];
}

const char *lr_provenance_meaning(est_provenance p)
{
    return provenance_meanings[p];
}

/* "provenance": one of provenance_names, when present. */
static int read_provenance(const cJSON *obj, const char *path, est_device *d, lr_error *err)
{
    const cJSON *m = jr_get(obj, "provenance");
    jpath p;
    const char *s;
    jp_key(&p, path, "provenance");
    if (!m)
        return 0;
    if (jr_str(m, p.s, 16, &s, err))
        return -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(s, provenance_names[i]) == 0) {
            d->provenance = (est_provenance)i;
            return 0;
        }
    return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                        "must be \"measured\", \"derived\" or \"borrowed\"");
}

/* One capacity-miss fit {a, b, c} (fit_names[i]) at path into *fit. */
static int read_fit(const cJSON *f, const char *path, est_fit *fit, lr_error *err)
{
    static const char *const abc[] = {"a", "b", "c", NULL};
    if (jr_object(f, path, err) || jr_only_keys(f, path, abc, err))
        return -1;
    double *coef[3] = {&fit->a, &fit->b, &fit->c};
    for (int c = 0; c < 3; c++) {
        const cJSON *cv = jr_get(f, abc[c]);
        jpath cp;
        jp_key(&cp, path, abc[c]);
        if (!cv)
            return lr_error_set(
                err, LR_INVALID_REQUEST, cp.s,
                "missing: a fit needs a, b and c of miss(O) = a*exp(-b*exp(-c*O))");
        if (jr_num(cv, cp.s, 0, 1e6, coef[c], err))
            return -1;
    }
    return 0;
}

/* "fits", when present; required when full. */
static int read_fits(const cJSON *obj, const char *path, int full, est_device *d, lr_error *err)
{
    static const char *const fa[] = {"miss_l1", "miss_ovy",     "miss_ovz",
                                     "miss_l2", "miss_l2store", NULL};
    const cJSON *fits = jr_get(obj, "fits");
    jpath p;
    jp_key(&p, path, "fits");
    if (!fits && full)
        return lr_error_set(
            err, LR_INVALID_REQUEST, p.s,
            "missing: a device without \"base\" must give its capacity-miss fits");
    if (!fits)
        return 0;
    if (jr_object(fits, p.s, err) || jr_only_keys(fits, p.s, fa, err))
        return -1;
    for (int i = 0; i < 5; i++) {
        const cJSON *f = jr_get(fits, fit_names[i]);
        jpath fp;
        jp_key(&fp, p.s, fit_names[i]);
        if (f && read_fit(f, fp.s, fit_of(d, i), err))
            return -1;
    }
    return 0;
}

/* Reads the figures present in obj into *d. full: every figure is required. */
static int read_figures(const cJSON *obj, const char *path, int full, est_device *d,
                        lr_error *err)
{
    const char *allowed[NDEVICE_KEYS + NFIELDS + 1];
    for (size_t i = 0; i < NDEVICE_KEYS; i++)
        allowed[i] = device_keys[i];
    for (size_t i = 0; i < NFIELDS; i++)
        allowed[NDEVICE_KEYS + i] = fields[i].name;
    allowed[NDEVICE_KEYS + NFIELDS] = NULL;
    if (jr_only_keys(obj, path, allowed, err))
        return -1;
    if (full) {
        /* a description without base: the H100's fit, unless it says otherwise */
        est_device_set_v2_defaults(d);
        d->provenance = EST_PROVENANCE_BORROWED;
    }
    if (read_numbers(obj, path, full, d, err) || read_l1_model(obj, path, d, err) ||
        read_provenance(obj, path, d, err) || read_fits(obj, path, full, d, err))
        return -1;
    return 0;
}

static int check(const est_device *d, const char *path, lr_error *err)
{
    char why[160];
    const char *bad = est_device_check(d, why, sizeof why);
    if (!bad)
        return 0;
    jpath p;
    jp_key(&p, path, bad);
    return lr_error_set(err, LR_INVALID_REQUEST, p.s, "%s", why);
}

lr_devices *lr_devices_load(lr_error *err)
{
    lr_devices *ds = calloc(1, sizeof *ds);
    unsigned n = lr_builtin_device_files_count;
    if (ds) {
        ds->dev = calloc(n, sizeof *ds->dev);
        ds->sources = calloc(n, sizeof *ds->sources);
        ds->canonical = calloc(n, sizeof *ds->canonical);
    }
    if (!ds || !ds->dev || !ds->sources || !ds->canonical) {
        lr_devices_free(ds);
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    for (unsigned i = 0; i < n; i++) {
        const lr_embedded_file *f = &lr_builtin_device_files[i];
        cJSON *j = cJSON_Parse(f->text);
        est_device *d = &ds->dev[i];
        const char *name = NULL;
        int rc = j ? 0
                   : lr_error_set(err, LR_INTERNAL, NULL, "built-in device file %s is not JSON",
                                  f->name);
        /* as in every request and stored device: a key given twice is an error, not the
         * later value silently winning */
        if (!rc)
            rc = jr_unique_keys(j, f->name, err);
        if (!rc)
            rc = jr_str(jr_get(j, "name"), f->name, 63, &name, err);
        if (!rc)
            rc = read_figures(j, f->name, 1, d, err);
        if (!rc)
            rc = check(d, f->name, err);
        if (!rc) {
            snprintf(d->name, sizeof d->name, "%s", name);
            if (!(ds->canonical[i] = canonical_of(d)))
                rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        }
        if (rc) {
            cJSON_Delete(j);
            lr_devices_free(ds);
            return NULL;
        }
        ds->sources[i] = cJSON_DetachItemFromObjectCaseSensitive(j, "sources");
        cJSON_Delete(j);
        ds->n++;
    }
    ds->n_builtin = ds->cap = ds->n;
    return ds;
}

int lr_devices_add(lr_devices *ds, const est_device *dev, cJSON *sources, lr_error *err)
{
    if (lr_devices_index(ds, dev->name) >= 0) {
        cJSON_Delete(sources);
        return lr_error_set(err, LR_INVALID_REQUEST, "name", "a device '%s' exists already",
                            dev->name);
    }
    if (ds->n == ds->cap) {
        int cap = ds->cap ? 2 * ds->cap : 8;
        est_device *d = realloc(ds->dev, (size_t)cap * sizeof *d);
        if (d)
            ds->dev = d;
        cJSON **s = d ? realloc(ds->sources, (size_t)cap * sizeof *s) : NULL;
        if (s)
            ds->sources = s;
        char **c = s ? realloc(ds->canonical, (size_t)cap * sizeof *c) : NULL;
        if (c)
            ds->canonical = c;
        if (!d || !s || !c) {
            cJSON_Delete(sources);
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        }
        ds->cap = cap;
    }
    if (!(ds->canonical[ds->n] = canonical_of(dev))) {
        cJSON_Delete(sources);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    ds->dev[ds->n] = *dev;
    ds->sources[ds->n] = sources;
    ds->n++;
    return 0;
}

int lr_devices_is_stored(const lr_devices *d, int i)
{
    return i >= d->n_builtin;
}

int lr_devices_index(const lr_devices *d, const char *name)
{
    for (int i = 0; i < d->n; i++)
        if (strcasecmp(d->dev[i].name, name) == 0)
            return i;
    return -1;
}

void lr_devices_free(lr_devices *ds)
{
    if (!ds)
        return;
    for (int i = 0; i < ds->n; i++) {
        cJSON_Delete(ds->sources[i]);
        free(ds->canonical[i]);
    }
    free(ds->canonical);
    free(ds->sources);
    free(ds->dev);
    free(ds);
}

int lr_devices_count(const lr_devices *d)
{
    return d->n;
}

const est_device *lr_devices_get(const lr_devices *d, int i)
{
    return &d->dev[i];
}

const est_device *lr_devices_find(const lr_devices *d, const char *name)
{
    int i = lr_devices_index(d, name);
    return i >= 0 ? &d->dev[i] : NULL;
}

const char *lr_device_canonical_text(const lr_devices *d, const cJSON *v)
{
    int i = cJSON_IsString(v) && v->valuestring ? lr_devices_index(d, v->valuestring) : -1;
    return i >= 0 ? d->canonical[i] : NULL;
}

static int unknown(const lr_devices *d, const char *name, const char *path, lr_error *err)
{
    char list[384] = "";
    lr_suggest sg;
    lr_suggest_init(&sg, name, strlen(name));
    for (int i = 0; i < d->n; i++) {
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 d->dev[i].name);
        lr_suggest_offer(&sg, d->dev[i].name);
    }
    const char *near = lr_suggest_best(&sg);
    return lr_error_set(err, LR_INVALID_REQUEST, path,
                        "unknown device '%.64s'; %s devices are %s (or send a device "
                        "object)%s%s%s",
                        name, d->n > d->n_builtin ? "built-in and stored" : "built-in", list,
                        near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

int lr_device_from_json(const lr_devices *d, const cJSON *v, const char *path, est_device *out,
                        lr_error *err)
{
    if (cJSON_IsString(v)) {
        const est_device *b = v->valuestring ? lr_devices_find(d, v->valuestring) : NULL;
        if (!b)
            return unknown(d, v->valuestring ? v->valuestring : "", path, err);
        *out = *b;
        return 0;
    }
    if (!cJSON_IsObject(v))
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            "must be a built-in device name or a device object");
    const cJSON *base = jr_get(v, "base");
    jpath p;
    memset(out, 0, sizeof *out);
    if (base) {
        jp_key(&p, path, "base");
        const char *bn;
        if (jr_str(base, p.s, 63, &bn, err))
            return -1;
        const est_device *b = lr_devices_find(d, bn);
        if (!b)
            return unknown(d, bn, p.s, err);
        *out = *b;
    }
    if (read_figures(v, path, base == NULL, out, err))
        return -1;
    const cJSON *name = jr_get(v, "name");
    if (name) {
        const char *s;
        jp_key(&p, path, "name");
        if (jr_str(name, p.s, 63, &s, err))
            return -1;
        snprintf(out->name, sizeof out->name, "%s", s);
    } else if (base) {
        /* a modified built-in must not pass for the original in responses */
        size_t n = strnlen(out->name, sizeof out->name - 10);
        memcpy(out->name + n, " (custom)", 10);
    } else {
        snprintf(out->name, sizeof out->name, "custom");
    }
    return check(out, path, err);
}

cJSON *lr_device_to_json(const lr_devices *ds, const est_device *dev, int with_sources)
{
    /* part of every canonical request: a figure missing would change the cache key */
    jb b = {0};
    cJSON *o = jb_new_obj(&b);
    int k = with_sources && ds ? lr_devices_index(ds, dev->name) : -1;
    jb_str(&b, o, "name", dev->name);
    if (with_sources)
        jb_bool(&b, o, "stored", k >= 0 && lr_devices_is_stored(ds, k));
    jb_str(&b, o, "l1_model", dev->l1_model == EST_L1_KEPLER ? "kepler" : "nv");
    jb_str(&b, o, "provenance", provenance_names[dev->provenance]);
    for (size_t i = 0; i < NFIELDS; i++)
        jb_num(&b, o, fields[i].name, get_field(dev, &fields[i]));
    cJSON *fits = jb_obj(&b, o, "fits");
    for (int i = 0; i < 5; i++) {
        cJSON *f = jb_obj(&b, fits, fit_names[i]);
        est_fit *ft = fit_of((est_device *)dev, i);
        jb_num(&b, f, "a", ft->a);
        jb_num(&b, f, "b", ft->b);
        jb_num(&b, f, "c", ft->c);
    }
    if (with_sources) {
        cJSON *units = jb_obj(&b, o, "units");
        for (size_t i = 0; i < NFIELDS; i++)
            jb_str(&b, units, fields[i].name, fields[i].unit);
        if (k >= 0 && ds->sources[k])
            jb_item(&b, o, "sources", cJSON_Duplicate(ds->sources[k], 1));
    }
    return jb_finish(&b, o);
}
