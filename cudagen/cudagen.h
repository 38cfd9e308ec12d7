/*
 * cudagen: real CUDA code for a described kernel, so predictions can be checked.
 *
 * From a kernel description (estimator.h) and one configuration, cudagen prints a
 * CUDA C++ kernel that performs exactly the described accesses (cg_emit_source),
 * compiles it with NVRTC (cg_compile), and runs it through the CUDA driver to time
 * it (cg_measure) or to compare its stores with a CPU evaluation of the same
 * description (cg_check). NVRTC and libcuda are loaded with dlopen, never linked:
 * the daemon builds and runs without CUDA, and these calls then fail with
 * LR_UNAVAILABLE.
 *
 * The generated kernel `extern "C" __global__ void lr_kernel(...)` takes one
 * pointer per field, in field order, each pointing at the field's element 0 (its
 * allocation start + cg_field_alloc.elem0_offset). Per lattice point it sums every
 * load with weight 1/(k+2) (k: the load's number) by fma, runs a dependent fma
 * chain for the kernel's flops (cg_chain_steps), and store k writes sum + k.
 * Accesses written without x, y, z run once per thread, as the model counts them.
 * Pointers are __restrict__ unless the kernel says otherwise (est_kernel_restrict). A
 * folded thread with __restrict__ pointers and no field both loaded and stored computes
 * every step's sum before it stores any, so that the compiler loads an element several
 * steps need once, as model v2 counts (docs/model.md, "Register reuse across folding
 * steps"); threads with a step outside the domain guard each step instead.
 *
 * Threads: every call is independent (no state kept between calls); the driver's
 * primary context is shared by the process, so measurements on one GPU should not
 * run concurrently if their timings are to mean anything.
 */
#ifndef CG_CUDAGEN_H
#define CG_CUDAGEN_H

#include <stddef.h>
#include <stdint.h>

#include "estimator.h"
#include "lr_error.h"

/* The entry point of every generated source. */
#define CG_ENTRY "lr_kernel"

/* ---- code generation ---- */

/* Checks that cfg can be generated and launched as CUDA: est_launch_check without a
 * device (estimator.h: the one source of the launch limits, so its codes, paths and
 * messages), then fields of 4- or 8-byte elements. 0, or -1 with err
 * (LR_INVALID_REQUEST or LR_NOT_LAUNCHABLE). */
int cg_config_check(const est_kernel *k, const est_config *cfg, lr_error *err);

/* The grid of a configuration is est_grid's (estimator.h). */

/* Steps of the dependent fma chain each lattice point runs so that the generated
 * kernel does the kernel's flops per update: ceil((flops - 2*loads - stores) / 2)
 * with loads and stores counted per lattice point, 0 when flops are not given. */
int64_t cg_chain_steps(const est_kernel *k);

/* The CUDA C++ source of lr_kernel for k under cfg, with a header comment stating
 * the configuration. Returns malloc'd text the caller frees, or NULL with err
 * (cg_config_check's errors, LR_LIMIT_EXCEEDED for a flop chain past CG_MAX_CHAIN,
 * LR_NO_MEMORY). */
char *cg_emit_source(const est_kernel *k, const est_config *cfg, lr_error *err);

/* Longest flop chain generated: 2^16 fmas per lattice point is far beyond any real
 * stencil or LBM kernel (a few hundred flops) and keeps one launch under seconds. */
#define CG_MAX_CHAIN 65536

/* Where a field lives in device memory for cfg: enough elements before and after
 * the declared extent for every element an access reaches in the domain, and element
 * 0 placed base_offset_bytes after a 256-byte boundary, as docs/model.md §1 describes. */
typedef struct cg_field_alloc {
    int64_t lo, hi;       /* lowest and highest element index reached, and 0..n-1 */
    int64_t elem0_offset; /* byte offset of element 0 in the allocation */
    int64_t bytes;        /* allocation size, a multiple of 256 */
} cg_field_alloc;

/* Fills out[f] for every field. Affine accesses are bounded by evaluating them at the
 * corners of the launch box; accesses with floor division or remainder by visiting
 * every lattice point (LR_LIMIT_EXCEEDED beyond CG_LAYOUT_MAX_EVALS evaluations).
 * LR_INVALID_REQUEST when base_offset_bytes is not a multiple of the element size
 * (the GPU faults on misaligned elements). 0 or -1 with err. */
int cg_field_layout(const est_kernel *k, const est_config *cfg, cg_field_alloc out[],
                    lr_error *err);

/* Evaluations of non-affine accesses cg_field_layout may spend: 2^27 is a 512^3
 * domain with one such access, about a second of CPU. */
#define CG_LAYOUT_MAX_EVALS ((int64_t)1 << 27)

/* ---- compilation ---- */

/* Compiles src with NVRTC (loaded with dlopen: libnvrtc.so, libnvrtc.so.13,
 * libnvrtc.so.12, then the same names under /usr/local/cuda/lib64). arch
 * "compute_XY" gives PTX (NUL-terminated), "sm_XY" a cubin. On success *image
 * (size bytes) is malloc'd for the caller. *log, when log is not NULL, receives the
 * compiler's log (malloc'd, possibly "") on success and on compile errors; the
 * caller frees it. Errors: LR_UNAVAILABLE when no NVRTC can be loaded (the message
 * lists what was searched) or when this NVRTC does not know arch; LR_INTERNAL when
 * the source does not compile, with the start of the log in the message (generated
 * sources always compile, so that is our bug, not the user's). */
int cg_compile(const char *src, const char *arch, char **image, size_t *size, char **log,
               lr_error *err);

/* Prints e as a CUDA C expression (cudagen/print.c): integers, + - *, and floor
 * division and its remainder as calls lr_floordiv(a, c) and lr_floormod(a, c), which
 * cg_emit_source defines with est_expr_eval's semantics (floor for negative a; a
 * divisor <= 0 counts as 1). var_text[v] (NULL, or a NULL entry: the variable's own
 * name) is put in for each variable and parenthesised unless it is a name, a number
 * or one parenthesised group. Returns a malloc'd string the caller frees, or NULL on
 * allocation failure. */
char *cg_print_expr(const est_expr *e, const char *const var_text[EST_VAR_COUNT]);

/* ---- a user's kernels: their resource usage (resources.c) ---- */

/* What ptxas reports for one __global__ function compiled for one architecture. */
#define CG_KERNEL_NAME_MAX 256
/* Thread instructions by class, the classes of a request's kernel.instructions:
 * fp32 (FFMA, FADD, FMUL), fp64 (DFMA, DADD, DMUL), special (the XU pipe: MUFU and
 * conversions), integer (the ALU pipe: integer and logic, compares, selects, FMNMX),
 * other (the rest: IMAD, loads, stores, moves, branches). */
typedef struct cg_instruction_mix {
    double fp32, fp64, special, integer, other;
} cg_instruction_mix;

/* A kernel's instruction mix counted in its PTX (ptxcount.c), per thread as compiled
 * (a folded kernel's thread does all its lattice updates). */
typedef struct cg_kernel_mix {
    cg_instruction_mix path; /* on the likely path: bounds guards pass, the library
                                functions' range checks take the ordinary values' way,
                                other branches half and half, each loop once */
    cg_instruction_mix all;  /* every instruction once (the static count) */
    int loops;               /* loops the compiler kept: counted once each */
    int calls;               /* calls of functions not inlined: their bodies not counted */
} cg_kernel_mix;

typedef struct cg_kernel_usage {
    char name[CG_KERNEL_NAME_MAX]; /* as ptxas names it: the mangled name of C++ kernels */
    int registers;                 /* per thread */
    int barriers;                  /* named barriers used (-1: not reported) */
    int64_t spill_store_bytes;     /* per thread */
    int64_t spill_load_bytes;      /* per thread */
    int64_t stack_bytes;           /* local memory: the stack frame, per thread */
    int64_t shared_bytes;          /* static shared memory per block (__shared__ arrays) */
    int64_t constant_bytes;        /* the cmem[] banks ptxas lists, summed; -1 when it
                                      lists none (ptxas for sm_90 never does) */
    int has_mix;                   /* 1 when mix was counted (the PTX had the kernel) */
    cg_kernel_mix mix;             /* the instruction mix, from NVRTC's PTX */
} cg_kernel_usage;

/* Kernels one source may define: a code generator's file has a few. */
#define CG_MAX_KERNELS 64
/* Options a caller may add to a compilation: a user's handful (-D, -maxrregcount=,
 * --use_fast_math) with room to spare. */
#define CG_MAX_OPTIONS 31
/* Largest source compiled: 1 MiB of CUDA is far beyond a generated kernel file. */
#define CG_MAX_SOURCE_BYTES (1u << 20)

typedef struct cg_usage {
    char arch[16];                       /* sm_XY compiled for */
    int nvrtc_version[2];                /* major, minor */
    int nkernels;                        /* in the order ptxas compiled them */
    cg_kernel_usage kernel[CG_MAX_KERNELS];
} cg_usage;

/* Compiles src (name: the file name its messages use, NULL for "kernel.cu") with NVRTC
 * for arch (sm_XY), with the nopts (at most CG_MAX_OPTIONS) options opts added, and fills *out from ptxas's
 * verbose report (--ptxas-options=-v). 0, or -1 with err: LR_UNAVAILABLE without NVRTC
 * or when this NVRTC cannot target arch (the message names both); LR_INVALID_REQUEST
 * when the source does not compile or an option is refused (the start of the compiler's
 * log in the message), when it defines no kernel, when an option would change the
 * target (-arch, --gpu-architecture, -dlto), or more than CG_MAX_KERNELS; LR_INTERNAL
 * when the report cannot be read. No path is set: the caller's request knows it. */
int cg_usage_compile(const char *src, const char *name, const char *arch,
                     const char *const *opts, int nopts, cg_usage *out, lr_error *err);

/* Counts the instructions of the kernel entry (its PTX name: the mangled name of a
 * C++ kernel) in ptx (NVRTC's, for sm_XY) into *out, in the classes of
 * kernel.instructions and as ptxas for sm_90 expands them (ptxcount.c says how each
 * PTX instruction is charged and how the likely path is chosen). 0, or -1 with err:
 * LR_INTERNAL when ptx has no such entry, LR_NO_MEMORY past CG_PTX_MAX_STATEMENTS. */
#define CG_PTX_MAX_STATEMENTS (1 << 20)
int cg_ptx_count(const char *ptx, const char *entry, cg_kernel_mix *out, lr_error *err);

/* Fills *out's kernels from a ptxas -v log (NVRTC's or nvcc's wording). 0, or -1 with
 * err (LR_INVALID_REQUEST: no kernel; LR_INTERNAL: a kernel's report incomplete). */
int cg_usage_parse_log(const char *log, cg_usage *out, lr_error *err);

/* The kernel of u called name: its name as ptxas prints it, or the bare name of a C++
 * kernel (heavy for _Z5heavyILi64EEvPKfPf) when only one kernel has it; name NULL: the
 * only kernel. NULL with err (LR_INVALID_REQUEST listing the kernels) otherwise. */
const cg_kernel_usage *cg_usage_find(const cg_usage *u, const char *name, lr_error *err);

/* The sm_XY of a GPU known by its name (H100, H200: sm_90; A100: sm_80; V100: sm_70;
 * K20: sm_35, ...) into arch; 0, or -1 when the name says nothing (the caller then asks
 * for the architecture). */
int cg_arch_of_device(const char *device_name, char arch[16]);

/* Compilations remembered by their source, architecture and options (a SHA-256 of the
 * three), so that a request repeated does not compile again; compile errors of the
 * source are remembered too. Bounded by CG_USAGE_CACHE_SLOTS (the oldest goes first);
 * thread-safe, with one compilation at a time: a source asked for by several threads at
 * once compiles once, and other sources wait for it (a daemon compiles rarely). */
typedef struct cg_usage_cache cg_usage_cache;
#define CG_USAGE_CACHE_SLOTS 64
/* NULL when out of memory. Free with cg_usage_cache_free (NULL: nothing). */
cg_usage_cache *cg_usage_cache_new(void);
void cg_usage_cache_free(cg_usage_cache *c);
/* cg_usage_compile through c (NULL: no cache); *compiled (may be NULL) is 1 when NVRTC
 * ran, 0 when the answer was remembered. */
int cg_usage_cache_compile(cg_usage_cache *c, const char *src, const char *name,
                           const char *arch, const char *const *opts, int nopts,
                           cg_usage *out, int *compiled, lr_error *err);

/* ---- running on the GPU ---- */

typedef struct cg_backend cg_backend; /* cudagen_int.h; NULL means the CUDA driver */

typedef struct cg_measure_opts {
    int device;                /* CUDA device ordinal, default 0 */
    int warmup;                /* untimed runs first, default 3 */
    int repetitions;           /* timed runs, default 10, at most CG_MAX_REPETITIONS */
    int flush_l2;              /* overwrite a 128 MiB buffer before each run, default 1:
                                  the model assumes data comes from DRAM, not a warm L2 */
    const cg_backend *backend; /* NULL: the CUDA driver (tests pass a fake) */
    double max_seconds;        /* GPU time one measurement may take, warm-up included,
                                  default CG_MEASURE_MAX_SECONDS: refused as soon as the
                                  runs so far say the rest would overrun it */
    double deadline;           /* est_now() time after which no further run starts;
                                  0: none (the daemon passes its time limit) */
} cg_measure_opts;

/* Runs per measurement: 1000 runs of a 100 ms kernel already take 100 s. */
#define CG_MAX_REPETITIONS 1000
/* Default of max_seconds: a thousand runs of a 10 ms kernel. */
#define CG_MEASURE_MAX_SECONDS 10.0

void cg_measure_opts_init(cg_measure_opts *opts);

/* What the driver says about a GPU (cuDeviceGetAttribute); a figure the driver does
 * not give is 0. */
typedef struct cg_gpu_props {
    char name[128];
    int cc_major, cc_minor;
    int driver_version; /* cuDriverGetVersion: 13000 for CUDA 13.0 */
    int sm_count, max_threads_per_sm, max_blocks_per_sm, max_threads_per_block;
    int regs_per_sm;
    int64_t l2_bytes, shared_bytes_per_sm;
    int64_t shared_reserved_bytes_per_block; /* the driver's per block (1 KiB from 8.0) */
    double clock_ghz;        /* the maximum SM clock, not the clock under load */
    double memory_clock_ghz; /* with memory_bus_bits: the DRAM data-sheet bandwidth */
    int memory_bus_bits;
} cg_gpu_props;

/* The properties of GPU opts->device (opts NULL: defaults) through opts->backend.
 * 0, or -1 with err (LR_UNAVAILABLE when there is no driver or no such GPU). */
int cg_gpu_query(const cg_measure_opts *opts, cg_gpu_props *out, lr_error *err);

typedef struct cg_measurement {
    double ms_min, ms_median, ms_max; /* kernel time per run, CUDA events */
    double glups;                     /* domain points / median time, GLup/s */
    char gpu_name[128];
    int cc_major, cc_minor;
    int driver_version; /* cuDriverGetVersion: 13000 for CUDA 13.0 */
} cg_measurement;

/* Generates, compiles (cubin for the GPU's sm_XY) and times k under cfg on the GPU:
 * fields allocated by cg_field_layout and filled with (i % 97) * 0.01, opts->warmup
 * untimed runs, then opts->repetitions timed ones (opts NULL: defaults). 0 and *out,
 * or -1 with err: LR_LIMIT_EXCEEDED (path "measure.repetitions") when the runs would
 * take more than opts->max_seconds, LR_BUDGET_EXCEEDED past opts->deadline,
 * LR_UNAVAILABLE "no CUDA driver (libcuda.so.1 not found): measuring
 * needs an NVIDIA GPU" or no GPU / no NVRTC, LR_NO_MEMORY when the fields do not fit,
 * LR_NOT_LAUNCHABLE when the launch is refused, LR_INTERNAL for other driver errors
 * and compile errors. Device memory is freed on every path. */
int cg_measure(const est_kernel *k, const est_config *cfg, const cg_measure_opts *opts,
               cg_measurement *out, lr_error *err);

/* ---- hand-written kernels (calibrate's microbenchmarks) ---- */

/* One GPU session for hand-written CUDA sources: at most one loaded kernel at a time
 * (a load replaces the previous one), and the GPU buffers it allocates, which
 * cg_bench_close frees. Every int function returns 0, or -1 with err. */
typedef struct cg_bench cg_bench;

/* Opens GPU opts->device through opts->backend (opts NULL: defaults) and writes its
 * properties into info (may be NULL). NULL with err (LR_UNAVAILABLE: no driver or GPU). */
cg_bench *cg_bench_open(const cg_measure_opts *opts, cg_gpu_props *info, lr_error *err);
void cg_bench_close(cg_bench *bn);
/* Compiles src with NVRTC into a cubin for the session's GPU and loads its function
 * entry (declare it extern "C"). A source that does not compile is LR_INTERNAL. */
int cg_bench_load(cg_bench *bn, const char *src, const char *entry, lr_error *err);
/* A GPU buffer of bytes, owned by the session (cg_bench_free gives it back early). */
int cg_bench_alloc(cg_bench *bn, size_t bytes, uint64_t *dptr, lr_error *err);
void cg_bench_free(cg_bench *bn, uint64_t dptr);
int cg_bench_upload(cg_bench *bn, uint64_t dst, const void *src, size_t bytes, lr_error *err);
int cg_bench_download(cg_bench *bn, void *dst, uint64_t src, size_t bytes, lr_error *err);
int cg_bench_fill(cg_bench *bn, uint64_t dst, unsigned char byte, size_t bytes, lr_error *err);
/* Runs the loaded kernel once and waits; args as for cuLaunchKernel; with ms not NULL
 * the run is timed with CUDA events (milliseconds). */
int cg_bench_run(cg_bench *bn, const unsigned grid[3], const unsigned block[3], void **args,
                 float *ms, lr_error *err);

/* Lattice points cg_check evaluates on the CPU: 2^22 (e.g. 160^3) keeps the check
 * within about a second. */
#define CG_CHECK_MAX_POINTS ((int64_t)1 << 22)
/* Largest relative difference cg_check accepts. The CPU and GPU do the same
 * correctly rounded operations in the same order, so results agree bit for bit;
 * the tolerances only keep a future compiler's harmless reassociation from failing. */
#define CG_CHECK_TOL_DOUBLE 1e-12
#define CG_CHECK_TOL_FLOAT 1e-5

/* Runs k under cfg once on the GPU and compares every element of every stored field
 * (halo margins included) with a CPU evaluation of the same description. Threads are
 * emulated one after another, so kernels where one thread loads what another stores
 * (in-place updates of neighbours) or several threads store one element are not
 * deterministic and cannot be checked. *max_rel_err receives the largest relative
 * difference. 0 when it is within tolerance; -1 with err otherwise (LR_INTERNAL
 * naming the first differing element), or on cg_measure's errors, or
 * LR_LIMIT_EXCEEDED past CG_CHECK_MAX_POINTS. */
int cg_check(const est_kernel *k, const est_config *cfg, double *max_rel_err, lr_error *err);

/* cg_check on opts->device through opts->backend (opts NULL: defaults). */
int cg_check_with(const est_kernel *k, const est_config *cfg, const cg_measure_opts *opts,
                  double *max_rel_err, lr_error *err);

#endif
