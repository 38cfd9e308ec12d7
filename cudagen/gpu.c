/*
 * gpu: the CUDA driver as a cg_backend (cudagen_int.h), loaded with dlopen.
 *
 * libcuda.so.1 is the driver's user-space half and exists only where an NVIDIA
 * driver is installed, so it is opened at run time: without it every session fails
 * with LR_UNAVAILABLE and the rest of launchrank is unaffected. The types and entry
 * points used are declared here with cuda.h's ABI; versioned names (_v2) are the
 * ones cuda.h maps the plain names to since CUDA 4 (12.8 for cuEventElapsedTime).
 *
 * A session uses the device's primary context (cuDevicePrimaryCtxRetain) rather
 * than cuCtxCreate, whose signature CUDA 13 changed; releasing it in close means
 * that an error which poisons a context (an illegal address) is gone with the
 * session, as long as nothing else in the process holds the primary context.
 * libcuda is never dlclose'd: the driver starts threads that must not lose their
 * code.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudagen_int.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
};
#define CC_MAJOR 75 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
#define CC_MINOR 76 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */
/* CUdevice_attribute values of cuda.h for the figures of cg_gpu_props */
enum {
    ATTR_MAX_THREADS_PER_BLOCK = 1,
    ATTR_CLOCK_RATE = 13, /* kHz */
    ATTR_MULTIPROCESSOR_COUNT = 16,
    ATTR_MEMORY_CLOCK_RATE = 36, /* kHz */
    ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
    ATTR_L2_CACHE_SIZE = 38,
    ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
    ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
};
#define CU_EVENT_DEFAULT 0

typedef struct cuda_api {
    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*PrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*FuncSetAttribute)(CUfunction, int, int);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*GetErrorName)(CUresult, const char **);
    CUresult (*GetErrorString)(CUresult, const char **);
} cuda_api;

typedef struct session {
    cuda_api api;
    CUdevice dev;
    CUcontext ctx; /* retained primary context; NULL until retained */
    CUmodule mod;
    CUfunction fn;
    unsigned fn_shared_max; /* the dynamic shared memory fn was allowed (48 KiB until set) */
    CUevent start, stop;
} session;

/* Records a driver error for the user: which step failed and the driver's own name
 * and text for the code, mapped to the code the user can act on. */
static int drv_fail(const session *s, CUresult r, const char *what, lr_error *err)
{
    const char *name = NULL, *text = NULL;
    lr_code code = LR_INTERNAL;

    if (s->api.GetErrorName)
        s->api.GetErrorName(r, &name);
    if (s->api.GetErrorString)
        s->api.GetErrorString(r, &text);
    switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        code = LR_NO_MEMORY;
        break;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_INSUFFICIENT_DRIVER:
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        code = LR_UNAVAILABLE;
        break;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        code = LR_NOT_LAUNCHABLE;
        break;
    default:
        break;
    }
    return lr_error_set(err, code, NULL, "CUDA driver: %s failed: %s (%s, %d)", what,
                        text ? text : "unknown error", name ? name : "?", r);
}

/* The driver's entry points; a fallback name for those renamed between releases. */
static const cg_dl_sym cuda_syms[] = {
    {offsetof(cuda_api, Init), "cuInit", NULL},
    {offsetof(cuda_api, DriverGetVersion), "cuDriverGetVersion", NULL},
    {offsetof(cuda_api, DeviceGetCount), "cuDeviceGetCount", NULL},
    {offsetof(cuda_api, DeviceGet), "cuDeviceGet", NULL},
    {offsetof(cuda_api, DeviceGetName), "cuDeviceGetName", NULL},
    {offsetof(cuda_api, DeviceGetAttribute), "cuDeviceGetAttribute", NULL},
    {offsetof(cuda_api, PrimaryCtxRetain), "cuDevicePrimaryCtxRetain", NULL},
    {offsetof(cuda_api, PrimaryCtxRelease), "cuDevicePrimaryCtxRelease_v2",
     "cuDevicePrimaryCtxRelease"},
    {offsetof(cuda_api, CtxSetCurrent), "cuCtxSetCurrent", NULL},
    {offsetof(cuda_api, CtxSynchronize), "cuCtxSynchronize", NULL},
    {offsetof(cuda_api, ModuleLoadData), "cuModuleLoadData", NULL},
    {offsetof(cuda_api, ModuleGetFunction), "cuModuleGetFunction", NULL},
    {offsetof(cuda_api, FuncSetAttribute), "cuFuncSetAttribute", NULL},
    {offsetof(cuda_api, ModuleUnload), "cuModuleUnload", NULL},
    {offsetof(cuda_api, MemAlloc), "cuMemAlloc_v2", NULL},
    {offsetof(cuda_api, MemFree), "cuMemFree_v2", NULL},
    {offsetof(cuda_api, MemcpyHtoD), "cuMemcpyHtoD_v2", NULL},
    {offsetof(cuda_api, MemcpyDtoH), "cuMemcpyDtoH_v2", NULL},
    {offsetof(cuda_api, MemsetD8), "cuMemsetD8_v2", NULL},
    {offsetof(cuda_api, LaunchKernel), "cuLaunchKernel", NULL},
    {offsetof(cuda_api, EventCreate), "cuEventCreate", NULL},
    {offsetof(cuda_api, EventRecord), "cuEventRecord", NULL},
    {offsetof(cuda_api, EventSynchronize), "cuEventSynchronize", NULL},
    {offsetof(cuda_api, EventElapsedTime), "cuEventElapsedTime_v2", "cuEventElapsedTime"},
    {offsetof(cuda_api, EventDestroy), "cuEventDestroy_v2", "cuEventDestroy"},
    {offsetof(cuda_api, GetErrorName), "cuGetErrorName", NULL},
    {offsetof(cuda_api, GetErrorString), "cuGetErrorString", NULL},
};

static int api_load(cuda_api *a, lr_error *err)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return lr_error_set(err, LR_UNAVAILABLE, NULL,
                            "no CUDA driver (libcuda.so.1 not found): measuring needs an "
                            "NVIDIA GPU");
    return cg_dl_resolve(h, cuda_syms, sizeof cuda_syms / sizeof cuda_syms[0], a, "CUDA driver",
                         err);
}

static void cuda_close(void *p)
{
    session *s = p;
    if (!s)
        return;
    if (s->ctx) {
        s->api.CtxSetCurrent(s->ctx);
        if (s->mod)
            s->api.ModuleUnload(s->mod);
        if (s->start)
            s->api.EventDestroy(s->start);
        if (s->stop)
            s->api.EventDestroy(s->stop);
        s->api.CtxSetCurrent(NULL);
        s->api.PrimaryCtxRelease(s->dev);
    }
    free(s);
}

static void *cuda_open(const cg_backend *b, int ordinal, cg_gpu_info *info, lr_error *err)
{
    session *s = calloc(1, sizeof *s);
    CUresult r;
    int count = 0;

    (void)b;
    if (!s) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    if (api_load(&s->api, err) < 0)
        goto error;
    if ((r = s->api.Init(0)) != CUDA_SUCCESS) {
        /* whatever the code (no device, 999 in a container without one), no GPU */
        const char *name = NULL;
        s->api.GetErrorName(r, &name);
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "no usable GPU: the CUDA driver's cuInit failed with %s (%d)",
                     name ? name : "?", r);
        goto error;
    }
    if ((r = s->api.DeviceGetCount(&count)) != CUDA_SUCCESS || ordinal < 0 ||
        ordinal >= count) {
        if (r != CUDA_SUCCESS)
            drv_fail(s, r, "cuDeviceGetCount", err);
        else
            lr_error_set(err, LR_UNAVAILABLE, NULL, "no GPU %d: the driver sees %d GPU%s",
                         ordinal, count, count == 1 ? "" : "s");
        goto error;
    }
    memset(info, 0, sizeof *info);
    if ((r = s->api.DeviceGet(&s->dev, ordinal)) != CUDA_SUCCESS ||
        (r = s->api.DeviceGetName(info->name, (int)sizeof info->name - 1, s->dev)) !=
            CUDA_SUCCESS ||
        (r = s->api.DeviceGetAttribute(&info->cc_major, CC_MAJOR, s->dev)) != CUDA_SUCCESS ||
        (r = s->api.DeviceGetAttribute(&info->cc_minor, CC_MINOR, s->dev)) != CUDA_SUCCESS ||
        (r = s->api.DriverGetVersion(&info->driver_version)) != CUDA_SUCCESS) {
        drv_fail(s, r, "querying the GPU", err);
        goto error;
    }
    /* the remaining figures are informative: an old driver without one leaves it 0 */
    int v = 0;
#define ATTR(id, dst)                                                                          \
    if (s->api.DeviceGetAttribute(&v, id, s->dev) == CUDA_SUCCESS)                             \
        dst = v;
    ATTR(ATTR_MULTIPROCESSOR_COUNT, info->sm_count);
    ATTR(ATTR_MAX_THREADS_PER_MULTIPROCESSOR, info->max_threads_per_sm);
    ATTR(ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR, info->max_blocks_per_sm);
    ATTR(ATTR_MAX_THREADS_PER_BLOCK, info->max_threads_per_block);
    ATTR(ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR, info->regs_per_sm);
    ATTR(ATTR_L2_CACHE_SIZE, info->l2_bytes);
    ATTR(ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, info->shared_bytes_per_sm);
    ATTR(ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK, info->shared_reserved_bytes_per_block);
    ATTR(ATTR_CLOCK_RATE, info->clock_ghz);
    ATTR(ATTR_MEMORY_CLOCK_RATE, info->memory_clock_ghz);
    ATTR(ATTR_GLOBAL_MEMORY_BUS_WIDTH, info->memory_bus_bits);
#undef ATTR
    info->clock_ghz *= 1e-6; /* kHz */
    info->memory_clock_ghz *= 1e-6;
    if ((r = s->api.PrimaryCtxRetain(&s->ctx, s->dev)) != CUDA_SUCCESS) {
        s->ctx = NULL;
        drv_fail(s, r, "cuDevicePrimaryCtxRetain", err);
        goto error;
    }
    if ((r = s->api.CtxSetCurrent(s->ctx)) != CUDA_SUCCESS ||
        (r = s->api.EventCreate(&s->start, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
        (r = s->api.EventCreate(&s->stop, CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
        drv_fail(s, r, "creating the context's events", err);
        goto error;
    }
    return s;
error:
    cuda_close(s);
    return NULL;
}

static int cuda_load(void *p, const void *image, size_t size, const char *entry, lr_error *err)
{
    session *s = p;
    CUresult r;
    (void)size;
    if (s->mod) {
        s->api.ModuleUnload(s->mod);
        s->mod = NULL;
    }
    if ((r = s->api.ModuleLoadData(&s->mod, image)) != CUDA_SUCCESS) {
        s->mod = NULL;
        return drv_fail(s, r, "loading the compiled kernel (cuModuleLoadData)", err);
    }
    if ((r = s->api.ModuleGetFunction(&s->fn, s->mod, entry)) != CUDA_SUCCESS)
        return drv_fail(s, r, "cuModuleGetFunction", err);
    s->fn_shared_max = 0;
    return 0;
}

static int cuda_alloc(void *p, size_t bytes, uint64_t *dptr, lr_error *err)
{
    session *s = p;
    CUdeviceptr d = 0;
    CUresult r = s->api.MemAlloc(&d, bytes);
    *dptr = 0;
    if (r != CUDA_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "allocating %zu bytes of GPU memory", bytes);
        return drv_fail(s, r, what, err);
    }
    *dptr = d;
    return 0;
}

static void cuda_release(void *p, uint64_t dptr)
{
    session *s = p;
    if (dptr)
        s->api.MemFree((CUdeviceptr)dptr);
}

static int cuda_upload(void *p, uint64_t dst, const void *src, size_t bytes, lr_error *err)
{
    session *s = p;
    CUresult r = s->api.MemcpyHtoD((CUdeviceptr)dst, src, bytes);
    return r == CUDA_SUCCESS ? 0 : drv_fail(s, r, "copying to the GPU", err);
}

static int cuda_download(void *p, void *dst, uint64_t src, size_t bytes, lr_error *err)
{
    session *s = p;
    CUresult r = s->api.MemcpyDtoH(dst, (CUdeviceptr)src, bytes);
    return r == CUDA_SUCCESS ? 0 : drv_fail(s, r, "copying from the GPU", err);
}

static int cuda_fill(void *p, uint64_t dst, unsigned char byte, size_t bytes, lr_error *err)
{
    session *s = p;
    CUresult r = s->api.MemsetD8((CUdeviceptr)dst, byte, bytes);
    return r == CUDA_SUCCESS ? 0 : drv_fail(s, r, "cuMemsetD8", err);
}

/* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: beyond 48 KiB a function must be
 * allowed its dynamic shared memory before it is launched with it */
#define FUNC_MAX_DYNAMIC_SHARED 8
#define DEFAULT_DYNAMIC_SHARED (48u * 1024)

static int cuda_launch(void *p, const unsigned grid[3], const unsigned block[3],
                       unsigned shared_bytes, void **args, float *ms, lr_error *err)
{
    session *s = p;
    CUresult r;

    if (shared_bytes > DEFAULT_DYNAMIC_SHARED && shared_bytes > s->fn_shared_max) {
        if ((r = s->api.FuncSetAttribute(s->fn, FUNC_MAX_DYNAMIC_SHARED, (int)shared_bytes)) !=
            CUDA_SUCCESS)
            return drv_fail(s, r, "reserving the kernel's shared memory", err);
        s->fn_shared_max = shared_bytes;
    }

    if (ms && (r = s->api.EventRecord(s->start, NULL)) != CUDA_SUCCESS)
        return drv_fail(s, r, "cuEventRecord", err);
    r = s->api.LaunchKernel(s->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                            shared_bytes, NULL, args, NULL);
    if (r != CUDA_SUCCESS)
        return drv_fail(s, r, "launching the kernel", err);
    if (ms) {
        if ((r = s->api.EventRecord(s->stop, NULL)) != CUDA_SUCCESS ||
            (r = s->api.EventSynchronize(s->stop)) != CUDA_SUCCESS)
            return drv_fail(s, r, "running the kernel", err);
        if ((r = s->api.EventElapsedTime(ms, s->start, s->stop)) != CUDA_SUCCESS)
            return drv_fail(s, r, "cuEventElapsedTime", err);
        return 0;
    }
    if ((r = s->api.CtxSynchronize()) != CUDA_SUCCESS)
        return drv_fail(s, r, "running the kernel", err);
    return 0;
}

static const cg_backend cuda_backend = {
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .load = cuda_load,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .upload = cuda_upload,
    .download = cuda_download,
    .fill = cuda_fill,
    .launch = cuda_launch,
};

const cg_backend *cg_backend_cuda(void)
{
    return &cuda_backend;
}
