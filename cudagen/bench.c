/*
 * bench: hand-written benchmark kernels on a GPU backend (cg_bench_*, cudagen.h).
 *
 * calibrate/'s microbenchmarks (L2 bandwidth against working-set size, pointer-chasing
 * latencies, DRAM bandwidth against bytes in flight, clock under load) are not
 * described kernels but CUDA sources of their own; this file gives them the same
 * backend (NVRTC cubin for the GPU's own architecture, libcuda via dlopen, a fake in
 * tests) that cg_measure uses, and owns every allocation they make.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudagen_int.h"

/* Buffers one bench session may hold: calibrate uses at most four at a time. */
#define CG_BENCH_MAX_BUFS 16

struct cg_bench {
    const cg_backend *b;
    void *s; /* backend session, owned */
    cg_gpu_info info;
    uint64_t buf[CG_BENCH_MAX_BUFS]; /* owned; 0 = free slot */
    /* the last source compiled and its cubin (owned): loading another entry of the
     * same source reuses it, since NVRTC takes about a second per compile */
    char *src, *image;
    size_t size;
};

cg_bench *cg_bench_open(const cg_measure_opts *opts, cg_gpu_props *info, lr_error *err)
{
    cg_measure_opts def;
    if (!opts) {
        cg_measure_opts_init(&def);
        opts = &def;
    }
    cg_bench *bn = calloc(1, sizeof *bn);
    if (!bn) {
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    bn->b = opts->backend ? opts->backend : cg_backend_cuda();
    if (!(bn->s = bn->b->open(bn->b, opts->device, &bn->info, err))) {
        free(bn);
        return NULL;
    }
    if (info)
        *info = bn->info;
    return bn;
}

void cg_bench_close(cg_bench *bn)
{
    if (!bn)
        return;
    for (int i = 0; i < CG_BENCH_MAX_BUFS; i++)
        bn->b->release(bn->s, bn->buf[i]);
    bn->b->close(bn->s);
    free(bn->src);
    free(bn->image);
    free(bn);
}

int cg_bench_load(cg_bench *bn, const char *src, const char *entry, lr_error *err)
{
    if (!bn->src || strcmp(bn->src, src)) {
        char arch[32], *image = NULL, *log = NULL, *copy = strdup(src);
        size_t size = 0;
        if (!copy)
            return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
        /* a cubin for exactly this GPU, as cg_run_open compiles described kernels */
        snprintf(arch, sizeof arch, "sm_%d%d", bn->info.cc_major, bn->info.cc_minor);
        int rc = cg_compile(src, arch, &image, &size, &log, err);
        free(log);
        if (rc) {
            free(copy);
            return -1;
        }
        free(bn->src);
        free(bn->image);
        bn->src = copy;
        bn->image = image;
        bn->size = size;
    }
    return bn->b->load(bn->s, bn->image, bn->size, entry, err);
}

int cg_bench_alloc(cg_bench *bn, size_t bytes, uint64_t *dptr, lr_error *err)
{
    *dptr = 0;
    for (int i = 0; i < CG_BENCH_MAX_BUFS; i++)
        if (!bn->buf[i]) {
            if (bn->b->alloc(bn->s, bytes, &bn->buf[i], err))
                return -1;
            *dptr = bn->buf[i];
            return 0;
        }
    return lr_error_set(err, LR_INTERNAL, NULL, "a benchmark holds more than %d GPU buffers",
                        CG_BENCH_MAX_BUFS);
}

void cg_bench_free(cg_bench *bn, uint64_t dptr)
{
    for (int i = 0; i < CG_BENCH_MAX_BUFS && dptr; i++)
        if (bn->buf[i] == dptr) {
            bn->b->release(bn->s, dptr);
            bn->buf[i] = 0;
        }
}

int cg_bench_upload(cg_bench *bn, uint64_t dst, const void *src, size_t bytes, lr_error *err)
{
    return bn->b->upload(bn->s, dst, src, bytes, err);
}

int cg_bench_download(cg_bench *bn, void *dst, uint64_t src, size_t bytes, lr_error *err)
{
    return bn->b->download(bn->s, dst, src, bytes, err);
}

int cg_bench_fill(cg_bench *bn, uint64_t dst, unsigned char byte, size_t bytes, lr_error *err)
{
    return bn->b->fill(bn->s, dst, byte, bytes, err);
}

int cg_bench_run(cg_bench *bn, const unsigned grid[3], const unsigned block[3], void **args,
                 float *ms, lr_error *err)
{
    return bn->b->launch(bn->s, grid, block, 0, args, ms, err);
}
