/* response: see response.h. */
#include "response.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "devices.h"
#include "jbuild.h"

/* Six significant digits: more than any model input is known to, and the JSON stays
 * readable. */
double lr_reported(double v)
{
    char buf[32];
    if (!isfinite(v))
        return 0;
    snprintf(buf, sizeof buf, "%.6g", v);
    return strtod(buf, NULL);
}

static void add_num(jb *b, cJSON *o, const char *key, double v)
{
    jb_num(b, o, key, lr_reported(v));
}

/* A limit or a level that does not apply is null, not 0. */
static void add_num_or_null(jb *b, cJSON *o, const char *key, double v, int present)
{
    if (present)
        add_num(b, o, key, v);
    else
        jb_null(b, o, key);
}

static void add_int3(jb *b, cJSON *o, const char *key, const int *v)
{
    int64_t w[3] = {v[0], v[1], v[2]};
    jb_ints(b, o, key, w, 3);
}

static void add_volumes(jb *b, cJSON *parent, const char *key, const est_volumes *v, int kepler)
{
    cJSON *o = jb_obj(b, parent, key);
    add_num_or_null(b, o, "l1_cycles", v->l1_cycles, !kepler);
    add_num_or_null(b, o, "smx_load", v->smx_load, kepler);
    add_num(b, o, "l1_load", v->l1_load);
    add_num(b, o, "l2_load_compulsory", v->l2_load_compulsory);
    add_num(b, o, "l2_load", v->l2_load);
    add_num(b, o, "l2_store", v->l2_store);
    add_num(b, o, "dram_load_compulsory", v->dram_load_compulsory);
    add_num(b, o, "dram_load_warm", v->dram_load_warm);
    add_num(b, o, "dram_load", v->dram_load);
    add_num(b, o, "dram_store", v->dram_store);
}

static void add_units(jb *b, cJSON *u)
{
    jb_str(b, u, "l1_cycles", "L1 cycles per lattice update, per SM");
    jb_str(b, u, "volumes",
           "bytes per lattice update (B/Lup): smx_load, l1_load, l2_*, dram_*");
    jb_str(b, u, "performance", "GLup/s (10^9 lattice updates per second); null = no limit");
    jb_str(b, u, "launch", "grid and wave in thread blocks, blocks_per_sm in blocks");
    jb_str(b, u, "details",
           "oversubscriptions and partial_sector_share are dimensionless; overlaps in B/Lup; "
           "updates_per_block in lattice updates, blocks_resident in blocks, active_threads_per_sm "
           "in threads, bytes_in_flight_per_sm in bytes, "
           "partial_sectors_in_flight_per_sm in L2 sectors, "
           "store_requests_per_update in L2 write requests and "
           "load_requests_per_update in L2 read requests per lattice update, "
           "l1_requests_per_update in warp load and store instructions per lattice update, "
           "l1_wavefronts in L1 data-pipe wavefronts per lattice update, "
           "stores_left_in_l2 in bytes, dram_charged, dram_saved_by_depth and "
           "l2_store_charged in B/Lup, "
           "launch_time_us in microseconds");
}

void lr_provenance_add(jb *b, cJSON *o, const est_device *dev)
{
    cJSON *p = jb_obj(b, o, "device_provenance");
    jb_str(b, p, "provenance", lr_provenance_name(dev->provenance));
    add_num(b, p, est_mparam_sole(EST_RANKING)->name, est_device_tie_width(dev));
    jb_str(b, p, "meaning", lr_provenance_meaning(dev->provenance));
}

cJSON *lr_units_json(void)
{
    jb b = {0};
    cJSON *u = jb_new_obj(&b);
    add_units(&b, u);
    return jb_finish(&b, u);
}

static void add_launch(jb *b, cJSON *l, const est_result *r)
{
    add_int3(b, l, "block", r->config.launch.block);
    add_int3(b, l, "folding", r->config.launch.folding);
    jb_ints(b, l, "grid", r->grid, 3);
    jb_num(b, l, "threads_per_block",
           r->config.launch.block[0] * r->config.launch.block[1] * r->config.launch.block[2]);
    jb_num(b, l, "blocks_per_sm", r->blocks_per_sm);
    jb_num(b, l, "wave_blocks", (double)r->wave_blocks);
    jb_ints(b, l, "wave_grid", r->wave_grid, 3);
    jb_bool(b, l, "launchable", r->launchable);
}

static void add_performance(jb *b, cJSON *p, const est_result *r, int v2)
{
    add_num_or_null(b, p, "flops", r->perf_flops, r->perf_flops > 0);
    add_num_or_null(b, p, "l1", r->perf_l1, r->perf_l1 > 0);
    add_num_or_null(b, p, "l2", r->perf_l2, r->perf_l2 > 0);
    add_num_or_null(b, p, "dram", r->perf_dram, r->perf_dram > 0);
    add_num_or_null(b, p, "latency", r->perf_latency, v2 && r->perf_latency > 0);
    add_num_or_null(b, p, "blocks", r->perf_blocks, v2 && r->perf_blocks > 0);
    add_num_or_null(b, p, "stores", r->perf_stores, v2 && r->perf_stores > 0);
    add_num_or_null(b, p, "l2_requests", r->perf_l2_requests, v2 && r->perf_l2_requests > 0);
    add_num_or_null(b, p, "l1_requests", r->perf_l1_requests, v2 && r->perf_l1_requests > 0);
    add_num(b, p, "predicted", r->predicted);
    jb_str(b, p, "limiter", est_limiter_name(r->limiter));
}

static void add_details(jb *b, cJSON *d, const est_result *r, int v2, int kepler)
{
    add_num(b, d, "l1_coverage", r->l1_coverage);
    add_num(b, d, "l2_oversubscription", r->l2_oversubscription);
    add_num(b, d, "wave_overlap_y", r->wave_overlap_y);
    add_num(b, d, "wave_overlap_z", r->wave_overlap_z);
    add_num(b, d, "wave_oversubscription_y", r->wave_oversub_y);
    add_num(b, d, "wave_oversubscription_z", r->wave_oversub_z);
    jb_num(b, d, "lattice_updates", (double)r->lattice_updates);
    if (v2) {
        add_num(b, d, "updates_per_block", r->updates_per_block);
        add_num(b, d, "blocks_resident", r->blocks_resident);
        add_num(b, d, "active_threads_per_sm", r->active_threads_per_sm);
        add_num(b, d, "bytes_in_flight_per_sm", r->bytes_in_flight_per_sm);
        add_num(b, d, "partial_sectors_in_flight_per_sm", r->partial_sectors_in_flight_per_sm);
        add_num(b, d, "partial_sector_share", r->partial_sector_share);
        add_num(b, d, "store_requests_per_update", r->total.l2_store_requests);
        add_num(b, d, "load_requests_per_update", r->total.l2_load_requests);
        add_num(b, d, "l1_requests_per_update", r->l1_requests_per_update);
        add_num_or_null(b, d, "l1_wavefronts", r->l1_wavefronts, !kepler);
        add_num(b, d, "stores_left_in_l2", r->stores_left_in_l2);
        add_num(b, d, "dram_charged", r->dram_charged);
        add_num(b, d, "dram_saved_by_depth", r->dram_saved_by_depth);
        add_num(b, d, "l2_store_charged", r->total.l2_store_charged);
        add_num(b, d, "launch_time_us", r->launch_time_us);
        add_num(b, d, "warp_active_share", r->warp_active_share);
    }
}

cJSON *lr_estimate_json(const est_result *r, const est_kernel *k, const est_device *dev)
{
    int kepler = dev->l1_model == EST_L1_KEPLER, v2 = est_kernel_model(k) == EST_MODEL_V2;
    jb b = {0};
    cJSON *o = jb_new_obj(&b);
    jb_str(&b, o, "model_version", LR_MODEL_VERSION);
    jb_str(&b, o, "model", v2 ? "v2" : "warpspeed");
    jb_str(&b, o, "device", dev->name);
    lr_provenance_add(&b, o, dev);
    jb_ints(&b, o, "domain", r->config.domain, 3);
    add_launch(&b, jb_obj(&b, o, "launch"), r);
    add_volumes(&b, o, "estimate", &r->total, kepler);
    add_performance(&b, jb_obj(&b, o, "performance"), r, v2);
    cJSON *f = jb_obj(&b, o, "fields");
    for (int i = 0; i < r->nfields; i++)
        add_volumes(&b, f, est_kernel_field_name(k, i), &r->field[i], kepler);
    add_details(&b, jb_obj(&b, o, "details"), r, v2, kepler);
    add_units(&b, jb_obj(&b, o, "units"));
    return jb_finish(&b, o);
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
