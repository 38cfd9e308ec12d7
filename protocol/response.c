/* response: see response.h. */
#include "response.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

/* Six significant digits: more than any model input is known to, and the JSON stays
 * readable. */
static double round6(double v)
{
    char buf[32];
    if (!isfinite(v))
        return 0;
    snprintf(buf, sizeof buf, "%.6g", v);
    return strtod(buf, NULL);
}

static void add_num(cJSON *o, const char *key, double v)
{
    cJSON_AddNumberToObject(o, key, round6(v));
}

/* A limit or a level that does not apply is null, not 0. */
static void add_num_or_null(cJSON *o, const char *key, double v, int present)
{
    if (present)
        add_num(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void add_ints(cJSON *o, const char *key, const int64_t *v, int n)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (int i = 0; i < n && a; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
}

static void add_int3(cJSON *o, const char *key, const int *v)
{
    int64_t w[3] = {v[0], v[1], v[2]};
    add_ints(o, key, w, 3);
}

static cJSON *volumes_json(const est_volumes *v, int kepler)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add_num_or_null(o, "l1_cycles", v->l1_cycles, !kepler);
    add_num_or_null(o, "smx_load", v->smx_load, kepler);
    add_num(o, "l1_load", v->l1_load);
    add_num(o, "l2_load_compulsory", v->l2_load_compulsory);
    add_num(o, "l2_load", v->l2_load);
    add_num(o, "l2_store", v->l2_store);
    add_num(o, "dram_load_compulsory", v->dram_load_compulsory);
    add_num(o, "dram_load_warm", v->dram_load_warm);
    add_num(o, "dram_load", v->dram_load);
    add_num(o, "dram_store", v->dram_store);
    return o;
}

cJSON *lr_units_json(void)
{
    cJSON *u = cJSON_CreateObject();
    if (!u)
        return NULL;
    cJSON_AddStringToObject(u, "l1_cycles", "L1 cycles per lattice update, per SM");
    cJSON_AddStringToObject(
        u, "volumes", "bytes per lattice update (B/Lup): smx_load, l1_load, l2_*, dram_*");
    cJSON_AddStringToObject(u, "performance",
                            "GLup/s (10^9 lattice updates per second); null = no limit");
    cJSON_AddStringToObject(u, "launch",
                            "grid and wave in thread blocks, blocks_per_sm in blocks");
    cJSON_AddStringToObject(u, "details",
                            "oversubscriptions are dimensionless; overlaps in B/Lup; "
                            "updates_per_block in lattice updates, active_threads_per_sm "
                            "in threads, bytes_in_flight_per_sm in bytes, "
                            "store_requests_per_update in L2 write requests per lattice "
                            "update");
    return u;
}

cJSON *lr_estimate_json(const est_result *r, const est_kernel *k, const est_device *dev)
{
    int kepler = dev->l1_model == EST_L1_KEPLER;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "model_version", LR_MODEL_VERSION);
    cJSON_AddStringToObject(o, "model",
                            est_kernel_model(k) == EST_MODEL_V2 ? "v2" : "warpspeed");
    cJSON_AddStringToObject(o, "device", dev->name);
    add_ints(o, "domain", r->config.domain, 3);
    cJSON *l = cJSON_AddObjectToObject(o, "launch");
    if (l) {
        add_int3(l, "block", r->config.launch.block);
        add_int3(l, "folding", r->config.launch.folding);
        add_ints(l, "grid", r->grid, 3);
        cJSON_AddNumberToObject(l, "threads_per_block",
                                r->config.launch.block[0] * r->config.launch.block[1] *
                                    r->config.launch.block[2]);
        cJSON_AddNumberToObject(l, "blocks_per_sm", r->blocks_per_sm);
        cJSON_AddNumberToObject(l, "wave_blocks", (double)r->wave_blocks);
        add_ints(l, "wave_grid", r->wave_grid, 3);
        cJSON_AddBoolToObject(l, "launchable", r->launchable);
    }
    cJSON_AddItemToObject(o, "estimate", volumes_json(&r->total, kepler));
    cJSON *p = cJSON_AddObjectToObject(o, "performance");
    if (p) {
        add_num_or_null(p, "flops", r->perf_flops, r->perf_flops > 0);
        add_num_or_null(p, "l1", r->perf_l1, r->perf_l1 > 0);
        add_num_or_null(p, "l2", r->perf_l2, r->perf_l2 > 0);
        add_num_or_null(p, "dram", r->perf_dram, r->perf_dram > 0);
        int v2 = est_kernel_model(k) == EST_MODEL_V2;
        add_num_or_null(p, "latency", r->perf_latency, v2 && r->perf_latency > 0);
        add_num_or_null(p, "blocks", r->perf_blocks, v2 && r->perf_blocks > 0);
        add_num_or_null(p, "stores", r->perf_stores, v2 && r->perf_stores > 0);
        add_num(p, "predicted", r->predicted);
        cJSON_AddStringToObject(p, "limiter", est_limiter_name(r->limiter));
    }
    cJSON *f = cJSON_AddObjectToObject(o, "fields");
    for (int i = 0; f && i < r->nfields; i++)
        cJSON_AddItemToObject(f, est_kernel_field_name(k, i),
                              volumes_json(&r->field[i], kepler));
    cJSON *d = cJSON_AddObjectToObject(o, "details");
    if (d) {
        add_num(d, "l1_coverage", r->l1_coverage);
        add_num(d, "l2_oversubscription", r->l2_oversubscription);
        add_num(d, "wave_overlap_y", r->wave_overlap_y);
        add_num(d, "wave_overlap_z", r->wave_overlap_z);
        add_num(d, "wave_oversubscription_y", r->wave_oversub_y);
        add_num(d, "wave_oversubscription_z", r->wave_oversub_z);
        cJSON_AddNumberToObject(d, "lattice_updates", (double)r->lattice_updates);
        if (est_kernel_model(k) == EST_MODEL_V2) {
            add_num(d, "updates_per_block", r->updates_per_block);
            add_num(d, "active_threads_per_sm", r->active_threads_per_sm);
            add_num(d, "bytes_in_flight_per_sm", r->bytes_in_flight_per_sm);
            add_num(d, "store_requests_per_update", r->total.l2_store_requests);
        }
    }
    cJSON_AddItemToObject(o, "units", lr_units_json());
    return o;
}

static int is_limiter_name(const char *s)
{
    for (int l = 0; l <= EST_LIMITER_NONE; l++)
        if (strcmp(s, est_limiter_name((est_limiter)l)) == 0)
            return 1;
    return 0;
}

/* Whether a has the shape of t, the writer's output for the same configuration
 * (a template whose result figures are zero). key is the member name of t in its
 * parent ("" for array elements and the root). */
static int same_shape(const cJSON *a, const cJSON *t, const char *key, int exact)
{
    if (cJSON_IsObject(t) || cJSON_IsArray(t)) {
        if ((a->type & 0xff) != (t->type & 0xff))
            return 0;
        /* domain, block and folding name the configuration: equal, not just numbers */
        int values =
            exact || !strcmp(key, "domain") || !strcmp(key, "block") || !strcmp(key, "folding");
        const cJSON *x = a->child, *y = t->child;
        for (; x && y; x = x->next, y = y->next) {
            if (cJSON_IsObject(t) && (!x->string || strcmp(x->string, y->string) != 0))
                return 0;
            if (!same_shape(x, y, cJSON_IsObject(t) ? y->string : "", values))
                return 0;
        }
        return !x && !y; /* members in the same number: no extra or repeated keys */
    }
    if (cJSON_IsString(t))
        return cJSON_IsString(a) &&
               (strcmp(key, "limiter") == 0 ? is_limiter_name(a->valuestring)
                                            : strcmp(a->valuestring, t->valuestring) == 0);
    if (cJSON_IsBool(t))
        return cJSON_IsBool(a) && cJSON_IsTrue(a) == cJSON_IsTrue(t);
    int number = cJSON_IsNumber(a) && isfinite(a->valuedouble);
    if (cJSON_IsNumber(t))
        return number && (!exact || a->valuedouble == t->valuedouble);
    /* the template writes null for a limit that is 0 in it; a result may have one */
    return cJSON_IsNull(t) && (number || cJSON_IsNull(a));
}

int lr_estimate_json_valid(const cJSON *o, const est_kernel *k, const est_device *dev,
                           const est_config *cfg)
{
    est_result *r = calloc(1, sizeof *r);
    if (!r || !o)
        return free(r), 0;
    r->config = *cfg;
    r->nfields = est_kernel_field_count(k);
    r->launchable = 1;
    r->limiter = EST_LIMITER_NONE;
    cJSON *t = lr_estimate_json(r, k, dev);
    free(r);
    int ok = t && same_shape(o, t, "", 0);
    cJSON_Delete(t);
    return ok;
}
