/*
 * nvrtc: compiles generated sources with NVIDIA's runtime compiler, loaded with
 * dlopen so that launchrank builds and runs without the CUDA toolkit.
 *
 * The few NVRTC types and entry points are declared here (nvrtc.h's ABI, stable
 * since CUDA 7); no CUDA header is needed. The library is opened per compile and
 * left loaded: dlopen of a loaded library is a reference count, and unloading
 * NVRTC buys nothing but a reload on the next request.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudagen_int.h"

typedef int nvrtcResult; /* NVRTC_SUCCESS = 0 */
typedef struct _nvrtcProgram *nvrtcProgram;

#define NVRTC_SUCCESS 0
#define NVRTC_ERROR_INVALID_OPTION 5
#define NVRTC_ERROR_COMPILATION 6

/* Where NVRTC is looked for, in order: the loader's path with the development
 * symlink, then the versioned sonames of CUDA 13 and 12 (runtime-only installs have
 * no symlink), then the toolkit's default location for hosts without ldconfig
 * entries (CI has /usr/local/cuda/lib64/libnvrtc.so.13 only). */
static const char *const nvrtc_names[] = {
    "libnvrtc.so",
    "libnvrtc.so.13",
    "libnvrtc.so.12",
    "/usr/local/cuda/lib64/libnvrtc.so",
    "/usr/local/cuda/lib64/libnvrtc.so.13",
    "/usr/local/cuda/lib64/libnvrtc.so.12",
};
#define NNAMES (sizeof nvrtc_names / sizeof nvrtc_names[0])

typedef struct nvrtc_api {
    const char *(*GetErrorString)(nvrtcResult);
    nvrtcResult (*Version)(int *, int *);
    nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                 const char *const *, const char *const *);
    nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetPTX)(nvrtcProgram, char *);
    nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*DestroyProgram)(nvrtcProgram *);
} nvrtc_api;

/* NVRTC's entry points. */
static const cg_dl_sym nvrtc_syms[] = {
    {offsetof(nvrtc_api, GetErrorString), "nvrtcGetErrorString", NULL},
    {offsetof(nvrtc_api, Version), "nvrtcVersion", NULL},
    {offsetof(nvrtc_api, CreateProgram), "nvrtcCreateProgram", NULL},
    {offsetof(nvrtc_api, CompileProgram), "nvrtcCompileProgram", NULL},
    {offsetof(nvrtc_api, GetProgramLogSize), "nvrtcGetProgramLogSize", NULL},
    {offsetof(nvrtc_api, GetProgramLog), "nvrtcGetProgramLog", NULL},
    {offsetof(nvrtc_api, GetPTXSize), "nvrtcGetPTXSize", NULL},
    {offsetof(nvrtc_api, GetPTX), "nvrtcGetPTX", NULL},
    {offsetof(nvrtc_api, GetCUBINSize), "nvrtcGetCUBINSize", NULL},
    {offsetof(nvrtc_api, GetCUBIN), "nvrtcGetCUBIN", NULL},
    {offsetof(nvrtc_api, DestroyProgram), "nvrtcDestroyProgram", NULL},
};

/* Opens NVRTC and resolves its entry points into *api. */
static int nvrtc_load(nvrtc_api *api, lr_error *err)
{
    void *h = NULL;
    char tried[LR_MESSAGE_MAX / 2] = "";

    for (size_t i = 0; i < NNAMES && !h; i++) {
        h = dlopen(nvrtc_names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(tried + strlen(tried), sizeof tried - strlen(tried), "%s%s", i ? ", " : "",
                     nvrtc_names[i]);
    }
    if (!h)
        return lr_error_set(err, LR_UNAVAILABLE, NULL,
                            "NVRTC not found (tried %s): compiling CUDA needs the CUDA "
                            "toolkit's runtime compiler",
                            tried);
    return cg_dl_resolve(h, nvrtc_syms, sizeof nvrtc_syms / sizeof nvrtc_syms[0], api,
                         "NVRTC library found", err);
}

/* The program's log as a malloc'd string ("" when empty), or NULL. */
static char *program_log(const nvrtc_api *api, nvrtcProgram prog)
{
    size_t n = 0;
    char *log;
    if (api->GetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0)
        n = 1;
    if (!(log = calloc(1, n)))
        return NULL;
    if (n > 1 && api->GetProgramLog(prog, log) != NVRTC_SUCCESS)
        log[0] = '\0';
    log[n - 1] = '\0';
    return log;
}

/* The program's PTX as a malloc'd string, or NULL (none kept, or out of memory: the
 * instruction mix is then not counted, which the caller says). */
static char *program_ptx(const nvrtc_api *api, nvrtcProgram prog)
{
    size_t n = 0;
    char *ptx;
    if (api->GetPTXSize(prog, &n) != NVRTC_SUCCESS || n == 0 || !(ptx = malloc(n + 1)))
        return NULL;
    if (api->GetPTX(prog, ptx) != NVRTC_SUCCESS) {
        free(ptx);
        return NULL;
    }
    ptx[n] = '\0';
    return ptx;
}

void cg_nvrtc_quote_log(const char *log, char *out, size_t cap)
{
    size_t o = 0;
    const char *s = log ? log : "";
    for (const char *c = s; *c && o + 4 < cap && c - s < CG_LOG_QUOTE_MAX; c++) {
        if (*c == '\n') {
            if (c[1] && o > 0)
                o += (size_t)snprintf(out + o, cap - o, "; ");
        } else if (*c >= 0x20 && *c < 0x7f) {
            out[o++] = *c;
        }
    }
    out[o] = '\0';
    if (strlen(s) > CG_LOG_QUOTE_MAX)
        snprintf(out + o, cap - o, "...");
}

int cg_nvrtc_compile(const cg_nvrtc_job *job, char **image, size_t *size, char **log,
                     int version[2], lr_error *err)
{
    nvrtc_api api = {0};
    nvrtcProgram prog = NULL;
    nvrtcResult r;
    char opt[64];
    const char *opts[CG_NVRTC_MAX_OPTIONS + 1] = {opt};
    int cubin, rc = -1;
    char *plog = NULL, *out = NULL;
    size_t n = 0;

    if (image)
        *image = NULL;
    if (size)
        *size = 0;
    *log = NULL;
    version[0] = version[1] = 0;
    cubin = strncmp(job->arch, "sm_", 3) == 0;
    if (!cubin && strncmp(job->arch, "compute_", 8) != 0)
        return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                            "unknown GPU architecture '%.32s': use compute_XY (PTX) or sm_XY "
                            "(cubin)",
                            job->arch);
    if (job->nopts < 0 || job->nopts > CG_NVRTC_MAX_OPTIONS)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, NULL, "at most %d compiler options",
                            CG_NVRTC_MAX_OPTIONS);
    if (nvrtc_load(&api, err) < 0)
        return -1;
    api.Version(&version[0], &version[1]);
    snprintf(opt, sizeof opt, "--gpu-architecture=%.40s", job->arch);
    for (int i = 0; i < job->nopts; i++)
        opts[i + 1] = job->opts[i];

    r = api.CreateProgram(&prog, job->src, job->name ? job->name : "lr_kernel.cu", 0, NULL,
                          NULL);
    if (r != NVRTC_SUCCESS)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "NVRTC could not create a program: %s",
                            api.GetErrorString(r));
    r = api.CompileProgram(prog, job->nopts + 1, opts);
    plog = program_log(&api, prog);
    if (r == NVRTC_ERROR_INVALID_OPTION && plog && strstr(plog, "gpu-architecture")) {
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "NVRTC %d.%d cannot compile for %.32s; a CUDA toolkit that still (or "
                     "already) supports this architecture is needed",
                     version[0], version[1], job->arch);
        goto done;
    }
    if (r == NVRTC_ERROR_INVALID_OPTION || r == NVRTC_ERROR_COMPILATION) {
        rc = 1; /* the caller says whose mistake it is */
        goto done;
    }
    if (r != NVRTC_SUCCESS) {
        lr_error_set(err, LR_INTERNAL, NULL, "NVRTC %d.%d failed for %.32s: %s", version[0],
                     version[1], job->arch, api.GetErrorString(r));
        goto done;
    }
    rc = 0;
    if (job->ptx)
        *job->ptx = program_ptx(&api, prog);
    if (!image)
        goto done;
    r = cubin ? api.GetCUBINSize(prog, &n) : api.GetPTXSize(prog, &n);
    if (r == NVRTC_SUCCESS && n > 0 && !(out = malloc(n))) {
        rc = lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        goto done;
    }
    if (r != NVRTC_SUCCESS || n == 0 ||
        (cubin ? api.GetCUBIN(prog, out) : api.GetPTX(prog, out)) != NVRTC_SUCCESS) {
        rc = lr_error_set(err, LR_INTERNAL, NULL,
                          "NVRTC compiled the kernel but its %s could not be read",
                          cubin ? "cubin" : "PTX");
        free(out);
        goto done;
    }
    *image = out;
    *size = n;
done:
    api.DestroyProgram(&prog);
    *log = plog;
    return rc;
}

int cg_compile(const char *src, const char *arch, char **image, size_t *size, char **log,
               lr_error *err)
{
    cg_nvrtc_job job = {.src = src, .arch = arch};
    char *plog = NULL, quoted[CG_LOG_QUOTE_MAX + 8];
    int version[2];
    int rc = cg_nvrtc_compile(&job, image, size, &plog, version, err);
    if (rc > 0) {
        cg_nvrtc_quote_log(plog, quoted, sizeof quoted);
        rc = lr_error_set(err, LR_INTERNAL, NULL,
                          "NVRTC %d.%d could not compile the generated kernel for %.32s: %s",
                          version[0], version[1], arch, quoted);
    }
    if (log)
        *log = plog;
    else
        free(plog);
    return rc;
}
