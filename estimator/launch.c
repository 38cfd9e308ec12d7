/*
 * launch: occupancy (docs/model.md §2) and the launchability check. A
 * configuration that cannot run is reported with the limit it breaks, so a user sees
 * why a block size is missing from a ranking.
 */
#include <stdio.h>

#include "estimator_int.h"

/* CUDA's grid limits: x up to 2^31-1 blocks, y and z up to 65535. */
#define GRID_X_MAX 2147483647ll
#define GRID_YZ_MAX 65535ll

int est_blocks_per_sm(const est_kernel *k, const est_device *dev, int threads)
{
    if (threads <= 0)
        return 0;
    int warps = (threads + 31) / 32;
    int regs = k->registers > 32 ? k->registers : 32;
    /* registers are allocated per warp in units of 256 */
    int regs_per_warp = (32 * regs + 255) / 256 * 256;
    int by_threads = dev->max_threads_per_sm / threads;
    int by_regs = dev->regs_per_sm / (warps * regs_per_warp);
    int n = dev->max_blocks_per_sm;
    if (by_threads < n)
        n = by_threads;
    if (by_regs < n)
        n = by_regs;
    if (k->shared_bytes > 0) {
        int64_t by_shared = dev->shared_bytes_per_sm / k->shared_bytes;
        if (by_shared < n)
            n = (int)by_shared;
    }
    return n;
}

void est_grid(const est_config *cfg, int64_t grid[3])
{
    for (int d = 0; d < 3; d++) {
        int64_t per_block = (int64_t)cfg->launch.block[d] * cfg->launch.folding[d];
        grid[d] = per_block > 0 ? (cfg->domain[d] + per_block - 1) / per_block : 0;
    }
}

int est_launch_check(const est_kernel *k, const est_device *dev, const est_config *cfg,
                     char *buf, size_t bufsize)
{
    const int *b = cfg->launch.block, *f = cfg->launch.folding;
    for (int d = 0; d < 3; d++) {
        if (b[d] < 1 || f[d] < 1) {
            snprintf(buf, bufsize, "block and folding sides must be at least 1");
            return -1;
        }
    }
    if (b[0] > 1024 || b[1] > 1024 || b[2] > 64) {
        snprintf(buf, bufsize, "CUDA allows blocks of at most 1024 x 1024 x 64 threads");
        return -1;
    }
    long threads = (long)b[0] * b[1] * b[2];
    if (threads > dev->max_threads_per_block) {
        snprintf(buf, bufsize, "%ld threads per block exceed the device's %d", threads,
                 dev->max_threads_per_block);
        return -1;
    }
    if ((long)f[0] * f[1] * f[2] > EST_MAX_FOLDING) {
        snprintf(buf, bufsize, "folding %dx%dx%d updates more than %d points per thread", f[0],
                 f[1], f[2], EST_MAX_FOLDING);
        return -1;
    }
    /* An access in thread variables is issued once per thread (the code generator
     * already folded it, docs/api.md): under a folding of F points per thread, a store
     * written so leaves F-1 of every F lattice points unwritten. The prediction per
     * lattice update would be that of a kernel doing 1/F of the work (issue 11). */
    long fp = (long)f[0] * f[1] * f[2];
    for (int i = 0; fp > 1 && i < k->nfields; i++)
        for (int a = 0; a < k->fields[i].nacc; a++) {
            const est_access *acc = &k->fields[i].acc[a];
            if (acc->is_store && !(acc->uses & EST_VARS_LATTICE)) {
                snprintf(buf, bufsize,
                         "folding %dx%dx%d needs stores in x, y, z: the stores of field '%s' "
                         "are in thread variables (already folded), so %ld of every %ld "
                         "lattice points would never be written",
                         f[0], f[1], f[2], k->fields[i].name, fp - 1, fp);
                return -1;
            }
        }
    int64_t grid[3];
    est_grid(cfg, grid);
    for (int d = 0; d < 3; d++) {
        if (grid[d] > (d == 0 ? GRID_X_MAX : GRID_YZ_MAX)) {
            snprintf(buf, bufsize, "the grid needs %lld blocks in %c, more than CUDA allows",
                     (long long)grid[d], "xyz"[d]);
            return -1;
        }
    }
    if (est_blocks_per_sm(k, dev, (int)threads) == 0) {
        snprintf(buf, bufsize,
                 "no block of %ld threads fits on an SM (%d registers per thread, %lld B "
                 "shared memory per block)",
                 threads, k->registers, (long long)k->shared_bytes);
        return -1;
    }
    return 0;
}
