/*
 * resources: the registers, spills, shared, local and constant memory of a user's
 * kernels (cudagen.h, "a user's kernels"), as ptxas reports them when NVRTC compiles
 * the source for the GPU's architecture with --ptxas-options=-v. No GPU is needed.
 *
 * Why the log and not the cubin: spills exist only in ptxas's report (the cubin's
 * .nv.info attributes hold the register count and frame size but no spill counts), and
 * the report is what users compare with (nvcc -Xptxas -v prints the same lines). The
 * parser accepts NVRTC's and nvcc's wording, and a kernel whose report lacks its
 * "Used N registers" line is an error, never a zero.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#include "cudagen_int.h"
#include "lr_sha256.h"

/* ---- the report ---- */

/* The number just before the words at p in line ("1664 bytes stack frame"), or -1. */
static long long number_before(const char *line, const char *p)
{
    while (p > line && p[-1] == ' ')
        p--;
    const char *end = p;
    while (p > line && isdigit((unsigned char)p[-1]))
        p--;
    return p == end ? -1 : strtoll(p, NULL, 10);
}

/* "Used 32 registers, used 1 barriers, 1664 bytes cumulative stack size, 1024 bytes
 * smem, 368 bytes cmem[0]" into k (older ptxas: no barriers, "N bytes lmem"). */
static int parse_used(const char *line, cg_kernel_usage *k)
{
    const char *p = strstr(line, "Used ");
    if (!p || sscanf(p, "Used %d registers", &k->registers) != 1)
        return -1;
    k->barriers = -1;
    k->constant_bytes = -1;
    for (const char *c = strchr(p, ','); c; c = strchr(c + 1, ',')) {
        const char *item = c + 1;
        while (*item == ' ')
            item++;
        long long v;
        int bank, end = -1;
        /* %n: every word matched, not only the number ("372 bytes cmem[0]" is no smem) */
        if (sscanf(item, "used %lld barriers%n", &v, &end) == 1 && end > 0)
            k->barriers = (int)v;
        else if (sscanf(item, "%lld bytes smem%n", &v, &end) == 1 && end > 0)
            k->shared_bytes = v;
        else if (sscanf(item, "%lld bytes cmem[%d]%n", &v, &bank, &end) == 2 && end > 0)
            k->constant_bytes = (k->constant_bytes < 0 ? 0 : k->constant_bytes) + v;
    }
    return 0;
}

/* "N bytes stack frame, N bytes spill stores, N bytes spill loads" into k. */
static int parse_frame(const char *line, cg_kernel_usage *k)
{
    const char *p = strstr(line, " bytes stack frame");
    long long frame = number_before(line, p), st, ld;
    if (frame < 0 || sscanf(p,
                            " bytes stack frame, %lld bytes spill stores, %lld bytes spill "
                            "loads",
                            &st, &ld) != 2)
        return -1;
    k->stack_bytes = frame;
    k->spill_store_bytes = st;
    k->spill_load_bytes = ld;
    return 0;
}

/* The text between the quotes after key in line into out, or -1. */
static int quoted_after(const char *line, const char *key, char *out, size_t cap)
{
    const char *p = strstr(line, key), *e;
    if (!p || !(e = strchr(p += strlen(key), '\'')) || (size_t)(e - p) >= cap)
        return -1;
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = '\0';
    return 0;
}

/* One line of the report into u; *cur is the entry being reported (-1: none), *props
 * whether the last "Function properties for" named it (a called device function's
 * properties come too). */
static int parse_line(const char *line, cg_usage *u, int *cur, int *props, int *used,
                      lr_error *err)
{
    if (strstr(line, "Compiling entry function '")) {
        if (u->nkernels >= CG_MAX_KERNELS)
            return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                                "the source defines more than %d kernels", CG_MAX_KERNELS);
        cg_kernel_usage *k = &u->kernel[u->nkernels];
        memset(k, 0, sizeof *k);
        if (quoted_after(line, "Compiling entry function '", k->name, sizeof k->name))
            return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                                "a kernel name is longer than %d characters",
                                CG_KERNEL_NAME_MAX - 1);
        *cur = u->nkernels++;
        *props = 0;
        used[*cur] = 0;
        return 0;
    }
    const char *p = strstr(line, "Function properties for ");
    if (p) {
        p += strlen("Function properties for ");
        *props = *cur >= 0 &&
                 strncmp(p, u->kernel[*cur].name, strlen(u->kernel[*cur].name)) == 0 &&
                 (p[strlen(u->kernel[*cur].name)] == '\0' ||
                  isspace((unsigned char)p[strlen(u->kernel[*cur].name)]));
        return 0;
    }
    if (strstr(line, " bytes stack frame") && *props) {
        *props = 0;
        return parse_frame(line, &u->kernel[*cur]) ? 1 : 0;
    }
    if (strstr(line, "Used ") && strstr(line, " registers") && *cur >= 0 && !used[*cur]) {
        if (parse_used(line, &u->kernel[*cur]))
            return 1;
        used[*cur] = 1;
    }
    return 0;
}

int cg_usage_parse_log(const char *log, cg_usage *out, lr_error *err)
{
    int cur = -1, props = 0, used[CG_MAX_KERNELS] = {0};
    char line[1024];
    out->nkernels = 0;
    for (const char *s = log ? log : ""; *s;) {
        size_t n = strcspn(s, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), s);
        int rc = parse_line(line, out, &cur, &props, used, err);
        if (rc < 0)
            return -1;
        if (rc > 0)
            return lr_error_set(err, LR_INTERNAL, NULL,
                                "ptxas's report has a line launchrank does not understand: "
                                "'%.200s'",
                                line);
        s += n + (s[n] == '\n');
    }
    if (out->nkernels == 0)
        return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                            "the source defines no kernel (no __global__ function; a template "
                            "kernel needs an explicit instantiation)");
    for (int i = 0; i < out->nkernels; i++)
        if (!used[i])
            return lr_error_set(err, LR_INTERNAL, NULL,
                                "ptxas's report of kernel %.200s has no \"Used N registers\" "
                                "line",
                                out->kernel[i].name);
    return 0;
}

/* ---- finding a kernel ---- */

/* Whether mangled is a C++ function name _Z<len><name>... of name. */
static int bare_name_of(const char *mangled, const char *name)
{
    size_t n = strlen(name);
    char head[32];
    snprintf(head, sizeof head, "_Z%zu", n);
    return strncmp(mangled, head, strlen(head)) == 0 &&
           strncmp(mangled + strlen(head), name, n) == 0;
}

/* "a, b, c" of u's kernel names into out. */
static void kernel_list(const cg_usage *u, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < u->nkernels && o + 1 < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? ", " : "", u->kernel[i].name);
}

const cg_kernel_usage *cg_usage_find(const cg_usage *u, const char *name, lr_error *err)
{
    char list[300];
    int found = -1, count = 0;
    kernel_list(u, list, sizeof list);
    if (!name) {
        if (u->nkernels == 1)
            return &u->kernel[0];
        lr_error_set(err, LR_INVALID_REQUEST, NULL,
                     "the source defines %d kernels (%s): name the one to use", u->nkernels,
                     list);
        return NULL;
    }
    for (int i = 0; i < u->nkernels; i++)
        if (strcmp(u->kernel[i].name, name) == 0)
            return &u->kernel[i];
    for (int i = 0; i < u->nkernels; i++)
        if (bare_name_of(u->kernel[i].name, name) && count++ == 0)
            found = i;
    if (count == 1)
        return &u->kernel[found];
    if (count > 1)
        lr_error_set(err, LR_INVALID_REQUEST, NULL,
                     "%d kernels are called '%.64s' (%s): name one by its mangled name", count,
                     name, list);
    else
        lr_error_set(err, LR_INVALID_REQUEST, NULL,
                     "the source has no kernel '%.64s'; it defines %s", name, list);
    return NULL;
}

/* ---- architectures ---- */

/* GPU names and their architecture, the more specific first: the built-in devices and
 * the data-centre GPUs a calibrated device is likely named after. */
static const struct {
    const char *name, *arch;
} arch_table[] = {
    {"GH200", "sm_90"}, {"H100", "sm_90"},  {"H200", "sm_90"}, {"H800", "sm_90"},
    {"B200", "sm_100"}, {"B100", "sm_100"}, {"A100", "sm_80"}, {"A800", "sm_80"},
    {"A30", "sm_80"},   {"L40", "sm_89"},   {"L4", "sm_89"},   {"V100", "sm_70"},
    {"K20", "sm_35"},   {"K40", "sm_35"},   {"K80", "sm_37"},
};

int cg_arch_of_device(const char *device_name, char arch[16])
{
    for (size_t i = 0; device_name && i < sizeof arch_table / sizeof arch_table[0]; i++)
        if (strcasestr(device_name, arch_table[i].name)) {
            snprintf(arch, 16, "%s", arch_table[i].arch);
            return 0;
        }
    return -1;
}

/* ---- compiling ---- */

_Static_assert(CG_MAX_OPTIONS < CG_NVRTC_MAX_OPTIONS, "room for --ptxas-options=-v");

/* Options that would change what is compiled for, or produce no machine code: the
 * target comes from the device (or --arch), and ptxas must run. */
static const char *const refused_options[] = {
    "-arch", "--gpu-architecture", "-dlto", "--dlink-time-opt", "-ptx", "--ptx", NULL};

static int check_options(const char *const *opts, int nopts, lr_error *err)
{
    for (int i = 0; i < nopts; i++)
        for (const char *const *r = refused_options; *r; r++)
            if (strncmp(opts[i], *r, strlen(*r)) == 0 &&
                (opts[i][strlen(*r)] == '\0' || opts[i][strlen(*r)] == '='))
                return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                                    "option %d, '%.64s', is refused: the architecture is the "
                                    "device's (or the one asked for), and ptxas must compile "
                                    "to machine code to report registers",
                                    i, opts[i]);
    return 0;
}

int cg_usage_compile(const char *src, const char *name, const char *arch,
                     const char *const *opts, int nopts, cg_usage *out, lr_error *err)
{
    const char *all[CG_NVRTC_MAX_OPTIONS];
    char *log = NULL, *ptx = NULL, quoted[CG_LOG_QUOTE_MAX + 8];
    memset(out, 0, sizeof *out);
    if (strncmp(arch, "sm_", 3) != 0 || strlen(arch) > 8 || !isdigit((unsigned char)arch[3]))
        return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                            "'%.32s' is not a GPU architecture: write sm_XY, e.g. sm_90", arch);
    if (strlen(src) > CG_MAX_SOURCE_BYTES)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, NULL, "the source exceeds %u bytes",
                            CG_MAX_SOURCE_BYTES);
    if (nopts > CG_MAX_OPTIONS)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, NULL, "at most %d compiler options",
                            CG_MAX_OPTIONS);
    if (check_options(opts, nopts, err))
        return -1;
    all[0] = "--ptxas-options=-v";
    for (int i = 0; i < nopts; i++)
        all[i + 1] = opts[i];
    cg_nvrtc_job job = {.src = src,
                        .name = name ? name : "kernel.cu",
                        .arch = arch,
                        .opts = all,
                        .nopts = nopts + 1,
                        .ptx = &ptx};
    snprintf(out->arch, sizeof out->arch, "%s", arch);
    int rc = cg_nvrtc_compile(&job, NULL, NULL, &log, out->nvrtc_version, err);
    if (rc > 0) {
        cg_nvrtc_quote_log(log, quoted, sizeof quoted);
        rc = lr_error_set(err, LR_INVALID_REQUEST, NULL,
                          "NVRTC %d.%d could not compile it for %s: %s", out->nvrtc_version[0],
                          out->nvrtc_version[1], arch, quoted);
    }
    if (rc == 0)
        rc = cg_usage_parse_log(log, out, err);
    for (int i = 0; rc == 0 && ptx && i < out->nkernels; i++) {
        cg_kernel_usage *k = &out->kernel[i];
        lr_error e;
        lr_error_clear(&e);
        /* a kernel whose PTX cannot be counted keeps its registers; has_mix says so */
        k->has_mix = cg_ptx_count(ptx, k->name, &k->mix, &e) == 0;
    }
    free(ptx);
    free(log);
    return rc;
}

/* ---- the cache ---- */

typedef struct cache_slot {
    char key[LR_SHA256_HEX]; /* "" = empty */
    int failed;              /* the source's own error, remembered: err */
    lr_error err;
    cg_usage usage;
} cache_slot;

struct cg_usage_cache {
    pthread_mutex_t mu;         /* guards next and slot[] */
    pthread_mutex_t compile_mu; /* held while compiling: one compilation at a time, so a
                                   source asked for by two threads at once compiles once
                                   (the second finds the first's result) */
    unsigned next;              /* the slot the next miss replaces: the oldest */
    cache_slot slot[CG_USAGE_CACHE_SLOTS];
};

cg_usage_cache *cg_usage_cache_new(void)
{
    cg_usage_cache *c = calloc(1, sizeof *c);
    if (c && pthread_mutex_init(&c->mu, NULL)) {
        free(c);
        return NULL;
    }
    if (c && pthread_mutex_init(&c->compile_mu, NULL)) {
        pthread_mutex_destroy(&c->mu);
        free(c);
        return NULL;
    }
    return c;
}

void cg_usage_cache_free(cg_usage_cache *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->mu);
    pthread_mutex_destroy(&c->compile_mu);
    free(c);
}

/* The SHA-256 of arch, the options and src, each with its length (no two different
 * triples hash alike by moving bytes between them). */
static void cache_key(const char *src, const char *name, const char *arch,
                      const char *const *opts, int nopts, char key[LR_SHA256_HEX])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    const char *parts[3] = {arch, name ? name : "", src};
    for (int i = -3; i < nopts; i++) {
        const char *p = i < 0 ? parts[i + 3] : opts[i];
        char len[24];
        int n = snprintf(len, sizeof len, "%zu:", strlen(p));
        sha256_update(&ctx, (size_t)n, (const uint8_t *)len);
        sha256_update(&ctx, strlen(p), (const uint8_t *)p);
    }
    lr_sha256_finish(&ctx, key);
}

/* Whether the slot of key answers: *out or err filled from it. */
static int cache_find(cg_usage_cache *c, const char *key, cg_usage *out, int *rc, lr_error *err)
{
    int found = 0;
    pthread_mutex_lock(&c->mu);
    for (unsigned i = 0; i < CG_USAGE_CACHE_SLOTS && !found; i++) {
        cache_slot *s = &c->slot[i];
        if (strcmp(s->key, key) != 0)
            continue;
        found = 1;
        if (s->failed)
            *rc = lr_error_set(err, s->err.code, NULL, "%s", s->err.message);
        else {
            *out = s->usage;
            *rc = 0;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return found;
}

int cg_usage_cache_compile(cg_usage_cache *c, const char *src, const char *name,
                           const char *arch, const char *const *opts, int nopts, cg_usage *out,
                           int *compiled, lr_error *err)
{
    char key[LR_SHA256_HEX];
    int rc;
    if (compiled)
        *compiled = 0;
    if (!c) {
        if (compiled)
            *compiled = 1;
        return cg_usage_compile(src, name, arch, opts, nopts, out, err);
    }
    cache_key(src, name, arch, opts, nopts, key);
    if (cache_find(c, key, out, &rc, err))
        return rc;
    pthread_mutex_lock(&c->compile_mu);
    if (cache_find(c, key, out, &rc, err)) { /* compiled while this thread waited */
        pthread_mutex_unlock(&c->compile_mu);
        return rc;
    }
    lr_error e;
    lr_error_clear(&e);
    rc = cg_usage_compile(src, name, arch, opts, nopts, out, &e);
    if (compiled)
        *compiled = 1;
    /* the source's own errors are as lasting as its results; a missing NVRTC is not */
    if (rc == 0 || e.code == LR_INVALID_REQUEST) {
        pthread_mutex_lock(&c->mu);
        cache_slot *s = &c->slot[c->next];
        c->next = (c->next + 1) % CG_USAGE_CACHE_SLOTS;
        snprintf(s->key, sizeof s->key, "%s", key);
        s->failed = rc != 0;
        s->err = e;
        if (rc == 0)
            s->usage = *out;
        pthread_mutex_unlock(&c->mu);
    }
    pthread_mutex_unlock(&c->compile_mu);
    if (rc)
        lr_error_set(err, e.code, NULL, "%s", e.message);
    return rc;
}
