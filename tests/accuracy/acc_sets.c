/*
 * acc_sets: loading the measured sets and predicting them (acc_sets.h).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acc_int.h"
#include "request.h"

acc_set *acc_set_new(const char *model)
{
    acc_set *S = calloc(1, sizeof *S);
    lr_error err;
    lr_error_clear(&err);
    if (!S)
        return NULL;
    S->model = model;
    snprintf(S->gpu_name, sizeof S->gpu_name, "?");
    S->devs = lr_devices_load(&err);
    if (!S->devs) {
        free(S);
        return NULL;
    }
    return S;
}

void acc_set_free(acc_set *S)
{
    if (!S)
        return;
    for (int i = 0; i < S->nall; i++) {
        free(S->fams[i].rows);
        est_kernel_free(S->fams[i].kernel);
        corpus_family_release(&S->fams[i].f);
    }
    free(S->fams);
    lr_devices_free(S->devs);
    free(S);
}

int acc_set_nfams(const acc_set *S)
{
    return S->nfams;
}

int acc_set_failures(const acc_set *S)
{
    return S->failures;
}

const char *acc_set_model(const acc_set *S)
{
    return S->model;
}

const char *acc_set_gpu_name(const acc_set *S)
{
    return S->gpu_name;
}

const est_device *acc_set_device(const acc_set *S)
{
    return &S->fams[0].dev;
}

int acc_set_close_corpus(acc_set *S)
{
    S->nfams = S->nall;
    return S->nfams;
}

/* ---- reading the measurements ---- */

static double jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* One line j of a measurement file onto row r; into the set's gpu_name, when title, the
 * GPU it names. */
static void attach_line(acc_set *S, row *r, const cJSON *j, int title)
{
    r->m.glups = jnum(j, "glups");
    r->m.glups_repeat = jnum(j, "glups_repeat");
    const cJSON *c = cJSON_GetObjectItem(j, "counters");
    /* a timing-only file may still give the register count (lab/2026-11-23-align):
     * its volume columns are then "-", not errors against NaN */
    r->m.registers = c ? (int)jnum(c, "registers") : 0;
    if (c && cJSON_IsNumber(cJSON_GetObjectItem(c, "dram_load"))) {
        r->m.has_counters = 1;
        r->m.dram_load = jnum(c, "dram_load");
        r->m.dram_store = jnum(c, "dram_store");
        r->m.l2_load = jnum(c, "l2_load");
        r->m.l2_store = jnum(c, "l2_store");
        r->m.l1_wavefronts = jnum(c, "l1_wavefronts");
        r->m.l2_load_requests = jnum(c, "l2_load_requests");
    }
    const cJSON *gpu = cJSON_GetObjectItem(j, "gpu");
    if (cJSON_IsString(gpu) && title)
        snprintf(S->gpu_name, sizeof S->gpu_name, "%s", gpu->valuestring);
}

/* The lines of path onto fams[f0, f1) (family names are unique within a set). */
static void attach_measurements(acc_set *S, const char *path, int f0, int f1, int title)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(1);
    }
    static char line[8192];
    while (fgets(line, sizeof line, f)) {
        cJSON *j = cJSON_Parse(line);
        const cJSON *fam = cJSON_GetObjectItem(j, "family");
        for (int i = f0; fam && i < f1; i++) {
            family *F = &S->fams[i];
            if (strcmp(F->f.name, fam->valuestring))
                continue;
            /* rows[k] is configuration k of the family */
            int k = corpus_config_index(&F->f, cJSON_GetObjectItem(j, "block"),
                                        cJSON_GetObjectItem(j, "folding"));
            if (k >= 0)
                attach_line(S, &F->rows[k], j, title);
        }
        cJSON_Delete(j);
    }
    fclose(f);
}

char *acc_device_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    static char text[1 << 16];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = 0;
    cJSON *j = cJSON_Parse(text);
    cJSON_DeleteItemFromObject(j, "sources");
    char *s = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!s) {
        fprintf(stderr, "accuracy: %s is not a JSON device description\n", path);
        exit(2);
    }
    return s;
}

int acc_set_save_device(const acc_set *S, const char *path, const est_device *d)
{
    cJSON *j = lr_device_to_json(S->devs, d, 0);
    char *s = j ? cJSON_Print(j) : NULL;
    FILE *f = s ? fopen(path, "w") : NULL;
    int ok = f && fputs(s, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "accuracy: cannot write the fitted device to %s\n", path);
    else
        printf("fitted device written to %s (read it with --device-file)\n", path);
    cJSON_free(s);
    cJSON_Delete(j);
    return ok;
}

/* Appends the families of the corpus directory dir (only the family `only` when given);
 * 0, or -1. */
static int load_dir(acc_set *S, const char *dir, const char *device, const char *only)
{
    int nfiles = 0;
    char **files = corpus_list(dir, &nfiles);
    family *grown =
        files ? realloc(S->fams, (size_t)(S->nall + nfiles) * sizeof *S->fams) : NULL;
    if (!grown)
        return -1;
    S->fams = grown;
    for (int i = 0; i < nfiles; i++) {
        family *F = &S->fams[S->nall];
        memset(F, 0, sizeof *F);
        if (corpus_family_load(files[i], &F->f))
            return -1;
        if (only && strcmp(only, F->f.name)) {
            corpus_family_release(&F->f);
            continue;
        }
        F->device = device;
        F->enters = ~0u;
        F->set = S;
        F->nrows = F->f.nconfigs;
        F->rows = calloc((size_t)F->nrows, sizeof *F->rows);
        for (int k = 0; k < F->nrows; k++)
            F->rows[k].c = F->f.configs[k];
        S->nall++;
    }
    corpus_list_free(files, nfiles);
    return 0;
}

/* A family the measurement file has no line of was not measured on that GPU (the H200
 * corpus predates the float LBM families): it is left out and said so, where a family
 * with some configurations missing counts them as failures (acc_set_predict). */
static void drop_unmeasured(acc_set *S, int f0, const char *measured)
{
    int kept = f0;
    for (int i = f0; i < S->nall; i++) {
        family *F = &S->fams[i];
        int measured_rows = 0;
        for (int k = 0; k < F->nrows; k++)
            measured_rows += F->rows[k].m.glups > 0;
        if (!measured_rows) {
            fprintf(stderr, "%s: not measured in %s, left out\n", F->f.name, measured);
            free(F->rows);
            corpus_family_release(&F->f);
            continue;
        }
        S->fams[kept++] = *F;
    }
    S->nall = kept;
}

int acc_set_load(acc_set *S, const char *corpus, const char *measured, const char *device,
                 const char *only, int title)
{
    int f0 = S->nall;
    char *dirs = strdup(corpus), *save = NULL;
    if (!dirs)
        return -1;
    for (char *dir = strtok_r(dirs, ",", &save); dir; dir = strtok_r(NULL, ",", &save))
        if (load_dir(S, dir, device, only))
            return -1;
    free(dirs);
    char *paths = strdup(measured);
    if (!paths)
        return -1;
    for (char *m = strtok_r(paths, ",", &save); m; m = strtok_r(NULL, ",", &save))
        attach_measurements(S, m, f0, S->nall, title);
    free(paths);
    drop_unmeasured(S, f0, measured);
    return S->nall - f0;
}

/* ---- predicting ---- */

void *acc_set_predict_family(void *arg)
{
    family *F = arg;
    acc_set *S = F->set;
    est_ctx *ctx = est_ctx_new(0);
    char extra[64];
    snprintf(extra, sizeof extra, "\"model\":\"%s\"", S->model);
    for (int k = 0; k < F->nrows; k++) {
        row *r = &F->rows[k];
        /* the compiler's register count of this very kernel: an input a code
         * generator has (kernel.registers), not a fitted figure */
        char *body = corpus_body(&F->f, k, extra, F->device, r->m.registers);
        lr_request req;
        lr_error err;
        lr_error_clear(&err);
        if (!body ||
            lr_request_parse(S->devs, body, strlen(body), LR_REQ_ESTIMATE, &req, &err)) {
            __atomic_add_fetch(&S->failures, 1, __ATOMIC_RELAXED);
            fprintf(stderr, "%s #%d: %s (%s)\n", F->f.name, k, err.message, err.path);
            free(body);
            continue;
        }
        free(body);
        est_config cfg = {{req.domain[0], req.domain[1], req.domain[2]}, req.launch};
        r->ok =
            !est_estimate(ctx, req.kernel, &req.device, &cfg, &r->r, &err) && r->r.launchable;
        if (!r->ok && r->m.glups > 0)
            __atomic_add_fetch(&S->failures, 1,
                               __ATOMIC_RELAXED); /* it ran, so it can launch */
        if (!r->ok)
            fprintf(stderr, "%s #%d: not estimated: %s %s\n", F->f.name, k, err.message,
                    r->r.reason);
        r->pred = r->r.predicted;
        if (!F->kernel) {
            F->kernel = req.kernel;
            F->dev = req.device;
            req.kernel = NULL;
        }
        lr_request_release(&req);
    }
    est_ctx_free(ctx);
    return NULL;
}

void acc_set_predict(acc_set *S)
{
    pthread_t *th = calloc((size_t)S->nall, sizeof *th);
    for (int i = 0; i < S->nall; i++)
        pthread_create(&th[i], NULL, acc_set_predict_family, &S->fams[i]);
    for (int i = 0; i < S->nall; i++) {
        pthread_join(th[i], NULL);
        const est_result *r0 = &S->fams[i].rows[0].r;
        S->fams[i].ndims = r0->config.domain[2] > 1 ? 3 : r0->config.domain[1] > 1 ? 2 : 1;
    }
    free(th);
}

void acc_set_count_unmeasured(acc_set *S, const char *measured)
{
    for (int i = 0; i < S->nfams; i++)
        for (int k = 0; k < S->fams[i].nrows; k++)
            if (!(S->fams[i].rows[k].m.glups > 0)) {
                fprintf(stderr, "%s #%d: no measurement in %s\n", S->fams[i].f.name, k,
                        measured);
                S->failures++;
            }
}

/* ---- the set as the samples of a fit (docs/model.md, "Fitted parameters") ---- */

cal_sample *acc_set_samples(acc_set *S, int *n)
{
    int total = 0;
    for (int i = 0; i < S->nfams; i++)
        total += S->fams[i].nrows;
    cal_sample *s = calloc(total > 0 ? (size_t)total : 1, sizeof *s);
    *n = 0;
    for (int i = 0; s && i < S->nfams; i++)
        for (int k = 0; k < S->fams[i].nrows; k++) {
            row *r = &S->fams[i].rows[k];
            if (r->ok)
                s[(*n)++] = (cal_sample){i, S->fams[i].kernel, &r->r, r->m.glups};
        }
    return s;
}

void acc_set_sync_predictions(acc_set *S)
{
    for (int i = 0; i < S->nfams; i++)
        for (int k = 0; k < S->fams[i].nrows; k++)
            if (S->fams[i].rows[k].ok)
                S->fams[i].rows[k].pred = S->fams[i].rows[k].r.predicted;
}
