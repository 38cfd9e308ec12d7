/*
 * cudagen_int.h: what cudagen's own files share (emit.c, nvrtc.c, gpu.c, measure.c,
 * check.c) and the GPU backend interface tests implement to run without a GPU.
 * Not included outside cudagen/ and tests/cudagen/.
 */
#ifndef CG_CUDAGEN_INT_H
#define CG_CUDAGEN_INT_H

#include "cudagen.h"

/* ---- what the generated kernel computes (emit.c prints it, check.c redoes it) ---- */

/* The flop chain's step sum = fma(sum, A, B): A = 1 - 2^-10 and B = 2^-10 are exact
 * in float and double, |A| < 1 keeps the sum bounded, and after the longest chain
 * (CG_MAX_CHAIN) the loads still weigh A^65536 ~ 1e-28 of the result, so a wrong load
 * still shows in a check of a short chain. */
#define CG_CHAIN_A 0.9990234375
#define CG_CHAIN_B 0.0009765625

/* Non-zero when the kernel accumulates in double: when fp64 is set, or when no flops
 * are given and some field holds doubles (a plain double stencil computes in double).
 * With flops given, fp64 alone decides, so the chain runs on the lanes the model's
 * flop limiter assumed. */
int cg_acc_double(const est_kernel *k);

/* Non-zero when access a of field f is written in x, y or z (issued once per
 * lattice point); otherwise it is issued once per thread. */
int cg_access_is_lattice(const est_kernel *k, int f, int a);

/* Non-zero when access a of field f is a store (is_store) or a load, issued per
 * lattice point (lattice) or per thread: the four groups the kernel is printed in. */
int cg_access_is(const est_kernel *k, int f, int a, int is_store, int lattice);

/* Weight of load number n (numbered thread-level loads first, then per-point loads,
 * each in field and access order): 1/(n+2), rounded to the accumulator type. */
double cg_load_weight(int n, int acc_double);

/* Initial value of element j of an allocation (j counted from its start). */
double cg_init_value(int64_t j);

/* ---- GPU backend ---- */

/* The backends fill every figure they know (cudagen.h). */
typedef cg_gpu_props cg_gpu_info;

/* A GPU behind function pointers, so that the runner (measure.c, check.c) is the same
 * for the CUDA driver and for a test's fake. A session is one context on one device
 * with at most one loaded module. Every int function returns 0, or -1 with err set;
 * the session owns what it creates and `close` frees it all except buffers, which the
 * caller releases (release of 0 does nothing). */
struct cg_backend {
    const char *name;
    /* Opens device ordinal; returns the session, or NULL with err (LR_UNAVAILABLE when
     * there is no driver or no such GPU). */
    void *(*open)(const cg_backend *b, int ordinal, cg_gpu_info *info, lr_error *err);
    void (*close)(void *s);
    /* Loads a PTX or cubin image and finds its function named entry. */
    int (*load)(void *s, const void *image, size_t size, const char *entry, lr_error *err);
    int (*alloc)(void *s, size_t bytes, uint64_t *dptr, lr_error *err);
    void (*release)(void *s, uint64_t dptr);
    int (*upload)(void *s, uint64_t dst, const void *src, size_t bytes, lr_error *err);
    int (*download)(void *s, void *dst, uint64_t src, size_t bytes, lr_error *err);
    int (*fill)(void *s, uint64_t dst, unsigned char byte, size_t bytes, lr_error *err);
    /* Runs the loaded function once and waits for it; args as for cuLaunchKernel,
     * shared_bytes of dynamic shared memory per block (the kernel does not use it: it
     * holds the SM's shared memory as the kernel the request describes would, so that
     * the blocks per SM are those the model counts). With ms not NULL, the run is
     * timed with events. */
    int (*launch)(void *s, const unsigned grid[3], const unsigned block[3],
                  unsigned shared_bytes, void **args, float *ms, lr_error *err);
    void *data; /* the implementation's own */
};

/* The CUDA driver, loaded with dlopen("libcuda.so.1") at each open. */
const cg_backend *cg_backend_cuda(void);

/* ---- runner (measure.c), shared by cg_measure and cg_check ---- */

/* One kernel ready to run: session open, module loaded, fields allocated and filled. */
typedef struct cg_run {
    const cg_backend *b;
    void *s; /* the backend session, owned */
    cg_gpu_info info;
    int nfields;
    cg_field_alloc layout[EST_MAX_FIELDS];
    uint64_t buf[EST_MAX_FIELDS];   /* allocations, owned (0: none) */
    uint64_t elem0[EST_MAX_FIELDS]; /* the kernel arguments: buf + elem0_offset */
    void *args[EST_MAX_FIELDS];     /* &elem0[f] */
    unsigned grid[3], block[3];
    unsigned shared_bytes; /* the kernel's kernel.shared_bytes, reserved at launch */
} cg_run;

/* Opens the backend, generates, compiles for the GPU, loads and allocates. On error
 * returns -1 with err, having released everything. */
int cg_run_open(cg_run *r, const est_kernel *k, const est_config *cfg,
                const cg_measure_opts *opts, lr_error *err);
void cg_run_close(cg_run *r);

/* Fills field f's allocation with cg_init_value (via a host buffer of bounded size). */
int cg_run_fill(cg_run *r, const est_kernel *k, int f, lr_error *err);

/* ---- dl.c: entry points of the libraries opened with dlopen ------------------ */

/* One entry point: where its address goes in a struct of function pointers
 * (offsetof), its name, and an older name to try when it is missing (NULL: none). */
typedef struct cg_dl_sym {
    size_t offset;
    const char *name, *fallback;
} cg_dl_sym;

/* Resolves the n entry points of syms in the library h (from dlopen) into the struct
 * at api. 0, or -1 with an LR_UNAVAILABLE error saying that `library` lacks the first
 * missing one ("the CUDA driver lacks cuInit; it is too old"). */
int cg_dl_resolve(void *h, const cg_dl_sym *syms, size_t n, void *api, const char *library,
                  lr_error *err);

/* ---- nvrtc.c: one NVRTC compilation ------------------------------------------ */

/* Options one compilation may add to --gpu-architecture: a user's handful (-D, -maxrregcount,
 * --use_fast_math) with room to spare. */
#define CG_NVRTC_MAX_OPTIONS 32

/* How much of a compiler log an error message quotes: the first error is what matters,
 * and it must fit LR_MESSAGE_MAX with the explanation. */
#define CG_LOG_QUOTE_MAX 300

typedef struct cg_nvrtc_job {
    const char *src;           /* CUDA C++ text */
    const char *name;          /* file name in the log's messages; NULL: "lr_kernel.cu" */
    const char *arch;          /* compute_XY (PTX) or sm_XY (cubin) */
    const char *const *opts;   /* options after --gpu-architecture, nopts of them */
    int nopts;
    char **ptx;                /* NULL, or gets the PTX too on success (malloc'd,
                                  NUL-terminated; NULL when NVRTC keeps none), untouched
                                  otherwise; the caller frees it */
} cg_nvrtc_job;

/* Compiles job with NVRTC. image (NULL: not wanted) gets the PTX or cubin (malloc'd, size
 * bytes); *log always gets the compiler's log (malloc'd or NULL; the caller frees); version
 * NVRTC's major and minor (0 0 when it was not loaded). 0 on success; 1 when the source
 * or an option was refused (the log says why; err untouched: the caller knows whose
 * mistake it is); -1 with err: LR_UNAVAILABLE without NVRTC or when it does not know
 * job->arch, LR_INVALID_REQUEST for an arch not written compute_XY or sm_XY,
 * LR_LIMIT_EXCEEDED past CG_NVRTC_MAX_OPTIONS, LR_NO_MEMORY, LR_INTERNAL. */
int cg_nvrtc_compile(const cg_nvrtc_job *job, char **image, size_t *size, char **log,
                     int version[2], lr_error *err);

/* The start of log (NULL: "") on one line into out (cap bytes): newlines become "; ",
 * at most CG_LOG_QUOTE_MAX characters, "..." when cut. */
void cg_nvrtc_quote_log(const char *log, char *out, size_t cap);

#endif
