/*
 * request_kernel: the "kernel" part of a request (request.h): fields, their accesses
 * (parsed once by estimator/expr), parameters, precision, model and indexing, read in
 * one walk that also writes their canonical form, as request.c does for the rest.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "jread.h"
#include "lr_hash.h"
#include "request_int.h"
#include "values.h"

static const char *const kernel_keys[] = {
    "fields",     "flops",    "fp_instructions", "registers", "shared_bytes", "precision",
    "parameters", "restrict", "indexing",        "source",    "instructions", NULL};
/* kernel.instructions: thread instructions per lattice update, by pipe (estimator.h) */
static const char *const instruction_keys[] = {"fp32",    "fp64",  "special",
                                               "integer", "other", NULL};
static const char *const field_keys[] = {
    "name",    "element_bytes", "dims", "base_offset_bytes", "loads", "stores",
    "integer", "values",        NULL};

/* What the first pass over the fields learnt of each, for the second (their accesses):
 * index fields must all be known before any address reads one. */
typedef struct field_head {
    cJSON *canon;   /* the field's canonical object */
    char sha256[LR_SHA256_HEX]; /* an index field's values, "" for a data field */
    int integer;
} field_head;

/* The index fields' tables, which addresses may read. */
typedef struct tables {
    const est_table *t[EST_MAX_FIELDS];
    size_t n;
} tables;

/* Adds the expression text without white space, the canonical form of an access, to
 * the array a. */
static void add_canonical_expr(jb *b, cJSON *a, const char *text)
{
    size_t n = strlen(text);
    char *c = malloc(n + 1), *o = c;
    if (!c) {
        b->failed = 1;
        return;
    }
    for (const char *p = text; *p; p++)
        if (!isspace((unsigned char)*p))
            *o++ = *p;
    *o = '\0';
    jb_str(b, a, NULL, c);
    free(c);
}

static int parse_params(const cJSON *v, est_param *params, size_t *n, jb *b, cJSON *canon,
                        lr_error *err)
{
    *n = 0;
    if (!v)
        return 0;
    if (jr_object(v, "kernel.parameters", err))
        return -1;
    const cJSON *c;
    cJSON_ArrayForEach(c, v)
    {
        jpath p;
        jp_key(&p, "kernel.parameters", c->string ? c->string : "?");
        if (*n >= LR_MAX_PARAMETERS)
            return lr_error_set(err, LR_LIMIT_EXCEEDED, "kernel.parameters",
                                "at most %d parameters", LR_MAX_PARAMETERS);
        const char *s = c->string ? c->string : "";
        int ok = (isalpha((unsigned char)s[0]) || s[0] == '_') && strlen(s) < 64;
        for (const char *q = s; *q && ok; q++)
            ok = isalnum((unsigned char)*q) || *q == '_';
        if (!ok)
            return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                                "a parameter name is a C identifier of at most 63 characters");
        int64_t val;
        if (jr_int(c, p.s, -(1ll << 53), 1ll << 53, &val, err))
            return -1;
        params[*n].name = s;
        params[*n].value = val;
        (*n)++;
    }
    /* canonical: sorted by name */
    for (size_t i = 1; i < *n; i++)
        for (size_t j = i; j > 0 && strcmp(params[j - 1].name, params[j].name) > 0; j--) {
            est_param t = params[j];
            params[j] = params[j - 1];
            params[j - 1] = t;
        }
    cJSON *o = jb_obj(b, canon, "parameters");
    for (size_t i = 0; i < *n; i++)
        jb_num(b, o, params[i].name, (double)params[i].value);
    return 0;
}

/* The m index expressions of access acc (at path ap) into idx: parsed, checked and,
 * under kernel.indexing "blockwise4d" (rename not NULL), renamed; each is written to
 * cacc in canonical form. 0, or -1 with err set and idx[0..m) freed. */
static int parse_index_exprs(const cJSON *acc, const jpath *ap, int m, const est_param *params,
                             size_t nparams, const tables *tabs, const est_var *rename,
                             est_expr *idx[3], jb *b, cJSON *cacc, lr_error *err)
{
    for (int d = 0; d < m; d++) {
        const cJSON *e = cJSON_IsString(acc) ? acc : cJSON_GetArrayItem(acc, d);
        jpath ep;
        if (cJSON_IsString(acc))
            ep = *ap;
        else
            jp_index(&ep, ap->s, d);
        const char *text;
        if (jr_str(e, ep.s, 4096, &text, err) ||
            !(idx[d] = est_expr_parse_tables(text, params, nparams, tabs->t, tabs->n, ep.s,
                                             err))) {
            for (int q = 0; q < d; q++)
                est_expr_free(idx[q]);
            return -1;
        }
        if (rename && (est_expr_uses(idx[d]) &
                       (EST_VAR_BIT(EST_VAR_BLOCKIDX_Z) | EST_VAR_BIT(EST_VAR_GRIDDIM_Z)))) {
            for (int q = 0; q <= d; q++)
                est_expr_free(idx[q]);
            return lr_error_set(err, LR_INVALID_REQUEST, ep.s,
                                "'%s': blockIdx.z and gridDim.z count a fourth dimension "
                                "under kernel.indexing \"blockwise4d\"; a domain has "
                                "three",
                                text);
        }
        if (rename)
            est_expr_rename(idx[d], rename);
        add_canonical_expr(b, cacc, text);
    }
    return 0;
}

static int parse_accesses(est_kernel *k, int f, int ndims, const cJSON *list, const char *path,
                          int is_store, const est_param *params, size_t nparams,
                          const tables *tabs, const est_var *rename, int *total, jb *b,
                          cJSON *canon, lr_error *err)
{
    if (!list) {
        /* canonical: an absent list is an empty one */
        jb_arr(b, canon, is_store ? "stores" : "loads");
        return 0;
    }
    int n = jr_array(list, path, 0, EST_MAX_ACCESSES, err);
    if (n < 0)
        return -1;
    cJSON *carr = jb_arr(b, canon, is_store ? "stores" : "loads");
    for (int a = 0; a < n; a++) {
        const cJSON *acc = cJSON_GetArrayItem(list, a);
        jpath ap;
        jp_index(&ap, path, a);
        if (++*total > LR_MAX_TOTAL_ACCESSES)
            return lr_error_set(err, LR_LIMIT_EXCEEDED, ap.s,
                                "a kernel may have at most %d accesses in all",
                                LR_MAX_TOTAL_ACCESSES);
        /* a 1-D access may be written as a bare string */
        int m = cJSON_IsString(acc) ? 1 : jr_array(acc, ap.s, 1, 3, err);
        if (m < 0)
            return -1;
        if (m != ndims)
            return lr_error_set(
                err, LR_INVALID_REQUEST, ap.s,
                "the field has %d dimension%s (dims) but this access has %d index "
                "expression%s",
                ndims, ndims == 1 ? "" : "s", m, m == 1 ? "" : "s");
        est_expr *idx[3] = {NULL, NULL, NULL};
        cJSON *cacc = jb_arr(b, carr, NULL);
        if (parse_index_exprs(acc, &ap, m, params, nparams, tabs, rename, idx, b, cacc, err))
            return -1;
        if (est_kernel_add_access(k, f, is_store, idx, m, ap.s, err))
            return -1;
    }
    return 0;
}

/* The first pass over field i: its name, shape and (an index field) values, added to
 * k; its canonical object begun in cfields. 0, or -1 with err. */
static int parse_field_head(est_kernel *k, const cJSON *fv, int i, const lr_request *req, jb *b,
                            cJSON *cfields, field_head *head, lr_error *err)
{
    jpath fp, p;
    jp_index(&fp, "kernel.fields", i);
    if (jr_object(fv, fp.s, err) || jr_only_keys(fv, fp.s, field_keys, err))
        return -1;
    const char *name;
    int64_t elem = 8, dims[3], off = 0;
    int ndims;
    jp_key(&p, fp.s, "name");
    if (!jr_get(fv, "name"))
        return jr_missing(fp.s, "name", "every field needs a name", err);
    if (jr_str(jr_get(fv, "name"), p.s, EST_MAX_NAME - 1, &name, err))
        return -1;
    for (int j = 0; j < est_kernel_field_count(k); j++)
        if (strcmp(est_kernel_field_name(k, j), name) == 0)
            return lr_error_set(err, LR_INVALID_REQUEST, p.s, "field name '%s' is used twice",
                                name);
    const cJSON *iv = jr_get(fv, "integer"), *vv = jr_get(fv, "values");
    jp_key(&p, fp.s, "integer");
    if (iv && !cJSON_IsBool(iv))
        return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                            "must be true (an index field: integers other fields' addresses "
                            "may read, given with \"values\") or false");
    head->integer = cJSON_IsTrue(iv);
    if (vv && !head->integer) {
        jp_key(&p, fp.s, "values");
        return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                            "only an index field (\"integer\": true) has values");
    }
    elem = head->integer ? 4 : 8;
    jp_key(&p, fp.s, "element_bytes");
    if (jr_get(fv, "element_bytes") &&
        jr_int(jr_get(fv, "element_bytes"), p.s, 1, 16, &elem, err))
        return -1;
    if (elem & (elem - 1))
        return lr_error_set(err, LR_INVALID_REQUEST, p.s, "must be 1, 2, 4, 8 or 16 bytes");
    if (head->integer && elem != 4 && elem != 8)
        return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                            "an index field holds 4- or 8-byte integers (int32 or int64)");
    jp_key(&p, fp.s, "dims");
    if (!jr_get(fv, "dims"))
        return jr_missing(fp.s, "dims", "the array extents, innermost first, in elements", err);
    if (jr_triple(jr_get(fv, "dims"), p.s, 1, 2147483647, 1, dims, &ndims, err))
        return -1;
    if ((double)dims[0] * dims[1] * dims[2] * elem > (double)(1ll << 50))
        return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                            "the field would be larger than 1 PiB");
    jp_key(&p, fp.s, "base_offset_bytes");
    if (jr_get(fv, "base_offset_bytes") &&
        jr_int(jr_get(fv, "base_offset_bytes"), p.s, 0, 1 << 20, &off, err))
        return -1;
    int f = est_kernel_add_field(k, name, (int)elem, ndims, dims, off, fp.s, err);
    if (f < 0)
        return -1;
    head->sha256[0] = '\0';
    if (vv) {
        est_table *t;
        jp_key(&p, fp.s, "values");
        if (lr_values_read(vv, p.s, name, ndims, dims, req->local_files, req->arrays, &t,
                           head->sha256, err) ||
            est_kernel_set_table(k, f, t, p.s, err))
            return -1;
    }
    head->canon = jb_obj(b, cfields, NULL);
    jb_num(b, head->canon, "base_offset_bytes", (double)off);
    jb_ints(b, head->canon, "dims", dims, ndims);
    jb_num(b, head->canon, "element_bytes", (double)elem);
    if (head->integer)
        jb_bool(b, head->canon, "integer", 1);
    return 0;
}

/* The second pass over field f: its loads and stores, which may read the index fields
 * of tabs; the rest of its canonical object. 0, or -1 with err. */
static int parse_field_accesses(est_kernel *k, const cJSON *fv, int f, const est_param *params,
                                size_t nparams, const tables *tabs, const est_var *rename,
                                int *total, jb *b, const field_head *head, lr_error *err)
{
    jpath fp, p;
    jp_index(&fp, "kernel.fields", f);
    int ndims = est_kernel_field_ndims(k, f);
    jp_key(&p, fp.s, "loads");
    if (parse_accesses(k, f, ndims, jr_get(fv, "loads"), p.s, 0, params, nparams, tabs, rename,
                       total, b, head->canon, err))
        return -1;
    jb_str(b, head->canon, "name", est_kernel_field_name(k, f));
    jp_key(&p, fp.s, "stores");
    if (parse_accesses(k, f, ndims, jr_get(fv, "stores"), p.s, 1, params, nparams, tabs, rename,
                       total, b, head->canon, err))
        return -1;
    if (head->sha256[0]) {
        cJSON *cv = jb_obj(b, head->canon, "values");
        jb_str(b, cv, "sha256", head->sha256);
    }
    return 0;
}

int lr_request_parse_model(const cJSON *v, est_model *out, lr_error *err)
{
    const char *s;
    *out = EST_MODEL_V2;
    if (!v)
        return 0;
    if (jr_str(v, "model", 16, &s, err))
        return -1;
    if (!strcmp(s, "v2"))
        return 0;
    if (!strcmp(s, "warpspeed")) {
        *out = EST_MODEL_WARPSPEED;
        return 0;
    }
    return lr_error_set(err, LR_INVALID_REQUEST, "model",
                        "must be \"v2\" (the default) or \"warpspeed\" (the reference "
                        "method without latency and register reuse), not \"%s\"",
                        s);
}

/* kernel.indexing: how the kernel's CUDA indices walk the lattice. "linear3d" (the
 * default): x = blockIdx.x*blockDim.x + threadIdx.x, likewise y and z. "blockwise4d":
 * x = threadIdx.x, y = blockIdx.x, z = blockIdx.y, one block of [nx, 1, 1] threads per
 * (y, z) line. Part of the kernel's identity when not the default. */
static int parse_indexing(const cJSON *v, lr_request *req, jb *b, cJSON *ck, lr_error *err)
{
    const char *s;
    if (!v)
        return 0;
    if (jr_str(v, "kernel.indexing", 16, &s, err))
        return -1;
    if (strcmp(s, "linear3d") && strcmp(s, "blockwise4d"))
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.indexing",
                            "must be \"linear3d\" (x = blockIdx.x*blockDim.x + threadIdx.x, "
                            "the default) or \"blockwise4d\" (x = threadIdx.x, y = "
                            "blockIdx.x, z = blockIdx.y), not \"%s\"",
                            s);
    req->blockwise4d = strcmp(s, "blockwise4d") == 0;
    if (req->blockwise4d)
        jb_str(b, ck, "indexing", "blockwise4d");
    return 0;
}

/* kernel.flops, fp_instructions, registers and shared_bytes (absent: the defaults
 * already in the outputs). 0, or -1 with err set. */
static int parse_compute(const cJSON *kv, double *flops, double *fpi, int64_t *regs,
                         int64_t *shared, lr_error *err)
{
    const cJSON *v;
    if (((v = jr_get(kv, "flops")) && jr_num(v, "kernel.flops", 0, 1e6, flops, err)) ||
        ((v = jr_get(kv, "fp_instructions")) &&
         jr_num(v, "kernel.fp_instructions", 0, 1e6, fpi, err)) ||
        ((v = jr_get(kv, "registers")) && jr_int(v, "kernel.registers", 1, 255, regs, err)) ||
        ((v = jr_get(kv, "shared_bytes")) &&
         jr_int(v, "kernel.shared_bytes", 0, 1 << 20, shared, err)))
        return -1;
    return 0;
}

/* kernel.instructions (present) into *mix. 0, or -1 with err set. */
static int parse_instructions(const cJSON *v, est_instructions *mix, lr_error *err)
{
    if (jr_object(v, "kernel.instructions", err) ||
        jr_only_keys(v, "kernel.instructions", instruction_keys, err))
        return -1;
    double *slot[] = {&mix->fp32, &mix->fp64, &mix->special, &mix->integer, &mix->other};
    double total = 0;
    for (int i = 0; instruction_keys[i]; i++) {
        char path[48];
        snprintf(path, sizeof path, "kernel.instructions.%s", instruction_keys[i]);
        const cJSON *n = jr_get(v, instruction_keys[i]);
        *slot[i] = 0;
        if (n && jr_num(n, path, 0, 1e6, slot[i], err))
            return -1;
        total += *slot[i];
    }
    if (total <= 0)
        return lr_error_set(
            err, LR_INVALID_REQUEST, "kernel.instructions",
            "no instruction counted: give the thread instructions executed "
            "per lattice update by class (fp32, fp64, special, integer, other), "
            "or leave instructions out");
    return 0;
}

/* The instruction mix into ck's "instructions", whether sent or counted from the
 * source: it is part of the kernel's identity. */
static void canon_instructions(const est_instructions *mix, jb *b, cJSON *ck)
{
    const double v[] = {mix->fp32, mix->fp64, mix->special, mix->integer, mix->other};
    cJSON *ci = jb_obj(b, ck, "instructions");
    for (int i = 0; instruction_keys[i]; i++)
        jb_num(b, ci, instruction_keys[i], v[i]);
}

/* The nf fields of kernel.fields into req->kernel (created here), written to ck's
 * "fields"; *max_elem gets the largest element size in bytes. 0, or -1 with err set. */
static int parse_fields(const cJSON *fields, int nf, const est_param *params, size_t nparams,
                        lr_request *req, jb *b, cJSON *ck, int *max_elem, lr_error *err)
{
    est_var rename[EST_VAR_COUNT];
    for (int i = 0; i < EST_VAR_COUNT; i++)
        rename[i] = (est_var)i;
    /* Blockwise4D's blockIdx.x, .y walk y and z: the standard launch's blockIdx.y, .z
     * with one block of [nx, 1, 1] threads per line (docs/api.md, kernel.indexing) */
    rename[EST_VAR_BLOCKIDX_X] = EST_VAR_BLOCKIDX_Y;
    rename[EST_VAR_BLOCKIDX_Y] = EST_VAR_BLOCKIDX_Z;
    rename[EST_VAR_GRIDDIM_X] = EST_VAR_GRIDDIM_Y;
    rename[EST_VAR_GRIDDIM_Y] = EST_VAR_GRIDDIM_Z;
    req->kernel = est_kernel_new();
    if (!req->kernel)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    cJSON *cfields = jb_arr(b, ck, "fields");
    int total = 0;
    *max_elem = 0;
    field_head *heads = calloc((size_t)nf, sizeof *heads);
    tables tabs = {.n = 0};
    if (!heads)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    int rc = 0;
    for (int i = 0; i < nf && !rc; i++) {
        rc = parse_field_head(req->kernel, cJSON_GetArrayItem(fields, i), i, req,
                              b, cfields, &heads[i], err);
        if (!rc && est_kernel_field_table(req->kernel, i))
            tabs.t[tabs.n++] = est_kernel_field_table(req->kernel, i);
    }
    for (int i = 0; i < nf && !rc; i++) {
        rc = parse_field_accesses(req->kernel, cJSON_GetArrayItem(fields, i), i, params,
                                  nparams, &tabs, req->blockwise4d ? rename : NULL, &total, b,
                                  &heads[i], err);
        int e = est_kernel_field_elem_bytes(req->kernel, i);
        *max_elem = e > *max_elem ? e : *max_elem;
    }
    free(heads);
    if (rc)
        return -1;
    if (total == 0)
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.fields",
                            "the kernel has no loads and no stores: nothing to estimate");
    return 0;
}

/* kernel.precision (default: fp64 when a field has elements of 8 bytes or more) and
 * kernel.restrict (default true). 0, or -1 with err set. */
static int parse_precision(const cJSON *kv, int max_elem, int *fp64, int *restrict_,
                           lr_error *err)
{
    const cJSON *v;
    *fp64 = max_elem >= 8;
    if ((v = jr_get(kv, "precision"))) {
        const char *s;
        if (jr_str(v, "kernel.precision", 8, &s, err))
            return -1;
        if (strcmp(s, "fp64") && strcmp(s, "fp32"))
            return lr_error_set(err, LR_INVALID_REQUEST, "kernel.precision",
                                "must be \"fp32\" or \"fp64\"");
        *fp64 = strcmp(s, "fp64") == 0;
    }
    *restrict_ = 1;
    if ((v = jr_get(kv, "restrict"))) {
        if (!cJSON_IsBool(v))
            return lr_error_set(err, LR_INVALID_REQUEST, "kernel.restrict",
                                "must be true (pointers are __restrict__, the default) or "
                                "false");
        *restrict_ = cJSON_IsTrue(v);
    }
    return 0;
}

/* Equal canonical kernels share the estimator's per-thread caches across requests:
 * the kernel's identity is 64 bits of the 128-bit digest of its canonical form ck (a
 * collision among a process's kernels is vanishingly unlikely). */
static void set_identity(est_kernel *k, jb *b, const cJSON *ck)
{
    char *text = b->failed ? NULL : cJSON_PrintUnformatted(ck), hex[LR_HASH_HEX];
    b->failed |= !text; /* without its identity the kernel would share another's caches */
    if (text) {
        const char *parts[] = {text};
        lr_hash_hex(parts, 1, hex);
        hex[16] = '\0';
        est_kernel_set_identity(k, strtoull(hex, NULL, 16));
        cJSON_free(text);
    }
}

int lr_request_parse_kernel(const cJSON *kv, est_model model, lr_request *req, jb *b,
                            cJSON *canon, lr_error *err)
{
    if (!kv)
        return jr_missing("", "kernel", "the kernel description (fields and their accesses)",
                          err);
    if (jr_object(kv, "kernel", err) || jr_only_keys(kv, "kernel", kernel_keys, err))
        return -1;
    cJSON *ck = jb_obj(b, canon, "kernel");
    est_param params[LR_MAX_PARAMETERS];
    size_t nparams;
    double flops = 0, fpi = -1;
    int64_t regs = 32, shared = 0;
    int max_elem = 0, fp64 = 0, restrict_ = 1;
    if (parse_compute(kv, &flops, &fpi, &regs, &shared, err))
        return -1;
    const cJSON *sv = jr_get(kv, "source");
    req->registers_assumed = jr_get(kv, "registers") == NULL && !sv;
    cJSON *fields = (cJSON *)jr_get(kv, "fields");
    if (!fields)
        return jr_missing("kernel", "fields", "the list of arrays the kernel reads and writes",
                          err);
    int nf = jr_array(fields, "kernel.fields", 1, EST_MAX_FIELDS, err);
    if (nf < 0 || parse_params(jr_get(kv, "parameters"), params, &nparams, b, ck, err) ||
        parse_indexing(jr_get(kv, "indexing"), req, b, ck, err) ||
        parse_fields(fields, nf, params, nparams, req, b, ck, &max_elem, err) ||
        parse_precision(kv, max_elem, &fp64, &restrict_, err))
        return -1;
    est_instructions mix;
    const cJSON *iv = jr_get(kv, "instructions");
    int has_mix = iv != NULL;
    if (iv && parse_instructions(iv, &mix, err))
        return -1;
    /* compiled once the rest is known to be valid: compiling is the dear part; the
     * instructions counted in it only when none are sent */
    if (sv && lr_request_parse_source(sv, req, jr_get(kv, "registers") != NULL, &regs,
                                      iv ? NULL : &mix, iv ? NULL : &has_mix, err))
        return -1;
    est_kernel_set_compute(req->kernel, flops, fpi, fp64, (int)regs, shared);
    est_kernel_set_model(req->kernel, model, restrict_);
    if (has_mix)
        canon_instructions(&mix, b, ck);
    est_kernel_set_instructions(req->kernel, has_mix ? &mix : NULL);
    /* model and restrict change the instructions the estimator samples, so they are
     * part of the kernel's identity */
    jb_str(b, ck, "model", model == EST_MODEL_WARPSPEED ? "warpspeed" : "v2");
    jb_bool(b, ck, "restrict", restrict_);
    set_identity(req->kernel, b, ck);
    jb_num(b, ck, "flops", flops);
    jb_num(b, ck, "fp_instructions", est_kernel_fp_instructions(req->kernel));
    jb_str(b, ck, "precision", fp64 ? "fp64" : "fp32");
    jb_num(b, ck, "registers", (double)regs);
    jb_num(b, ck, "shared_bytes", (double)shared);
    return 0;
}
