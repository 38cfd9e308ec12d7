/*
 * launch: occupancy (docs/model.md §2) and the launchability check. A
 * configuration that cannot run is reported with the limit it breaks, so a user sees
 * why a block size is missing from a ranking. The check is the one source of the
 * launch limits: cudagen (cg_config_check) calls it too, so what the model refuses
 * and what the code generator refuses are the same, with the same code and message.
 */
#include <stdio.h>

#include "estimator_int.h"

/* CUDA's launch limits (programming guide, "compute capabilities" table, the same
 * for every compute capability since 3.0): blocks of at most 1024 x 1024 x 64 threads
 * and 1024 in all; grids of at most 2^31-1 x 65535 x 65535 blocks. */
#define CUDA_BLOCK_XY_MAX 1024
#define CUDA_BLOCK_Z_MAX 64
#define CUDA_BLOCK_THREADS_MAX 1024
#define CUDA_GRID_X_MAX 2147483647ll
#define CUDA_GRID_YZ_MAX 65535ll

/* The registers one block holds with regs per thread: at least 32 per thread are
 * allocated, per warp in units of 256 (docs/model.md §2). */
static int64_t block_registers(int regs, int threads)
{
    int warps = (threads + 31) / 32;
    if (regs < 32)
        regs = 32;
    return (int64_t)warps * ((32 * regs + 255) / 256 * 256);
}

/* Blocks of threads threads resident on one SM of dev under each limit (what
 * est_blocks_per_sm takes the least of). */
typedef struct sm_limits {
    int64_t by_threads, by_regs, by_blocks, by_shared; /* by_shared: -1 = no shared memory */
} sm_limits;

static sm_limits sm_limits_of(int regs, int64_t shared, const est_device *dev, int threads)
{
    sm_limits l;
    l.by_threads = dev->max_threads_per_sm / threads;
    l.by_regs = dev->regs_per_sm / block_registers(regs, threads);
    l.by_blocks = dev->max_blocks_per_sm;
    /* a block's shared memory is allocated in units (128 B from compute capability
     * 8.0), and the driver adds its own reservation to it (1 KiB from 8.0): 32 KiB
     * blocks fit 6 to an H100 SM, not 7, and 45,670 B blocks 4 to an H200 SM, not 5
     * (docs/model.md §2) */
    int64_t unit = dev->shared_alloc_bytes > 0 ? dev->shared_alloc_bytes : 1;
    int64_t taken = (shared + unit - 1) / unit * unit + dev->shared_reserved_bytes_per_block;
    l.by_shared = shared > 0 ? dev->shared_bytes_per_sm / taken : -1;
    return l;
}

/* The whole blocks an SM holds: the least of its limits. */
static int least_blocks(sm_limits l)
{
    int64_t n = l.by_blocks;
    if (l.by_threads < n)
        n = l.by_threads;
    if (l.by_regs < n)
        n = l.by_regs;
    if (l.by_shared >= 0 && l.by_shared < n)
        n = l.by_shared;
    return (int)n;
}

static int blocks_per_sm_at(int regs, int64_t shared, const est_device *dev, int threads)
{
    return threads > 0 ? least_blocks(sm_limits_of(regs, shared, dev, threads)) : 0;
}

int est_blocks_per_sm(const est_kernel *k, const est_device *dev, int threads)
{
    return blocks_per_sm_at(k->registers, k->shared_bytes, dev, threads);
}

/* The warps of a block of bd threads (x fastest) that hold a thread below c in every
 * dimension, i.e. one that updates a lattice point. */
static int working_warps(const int bd[3], const int64_t c[3])
{
    int threads = bd[0] * bd[1] * bd[2], warps = 0;
    for (int w = 0; w * 32 < threads; w++)
        for (int t = w * 32; t < w * 32 + 32 && t < threads; t++)
            if (t % bd[0] < c[0] && t / bd[0] % bd[1] < c[1] && t / bd[0] / bd[1] < c[2]) {
                warps++;
                break;
            }
    return warps;
}

double est_blocks_with_idle_warps(const est_kernel *k, const est_device *dev,
                                  const est_config *cfg, const int64_t grid[3])
{
    const int *bd = cfg->launch.block;
    int threads = bd[0] * bd[1] * bd[2];
    if (threads <= 0)
        return 0;
    sm_limits l = sm_limits_of(k->registers, k->shared_bytes, dev, threads);
    int full = least_blocks(l);
    /* only a launch whose every block is cut alike (one block across a side shorter than
     * the block): where only the blocks at the domain's edge are cut, the SM holds whole
     * blocks nearly all the time */
    int64_t covered[3];
    int cut = 0;
    for (int d = 0; d < 3; d++) {
        int64_t side = (cfg->domain[d] + cfg->launch.folding[d] - 1) / cfg->launch.folding[d];
        covered[d] = grid[d] == 1 && side < bd[d] ? side : bd[d];
        cut |= covered[d] < bd[d];
    }
    int working = cut ? working_warps(bd, covered) : 0;
    if (working == 0 || working * 32 >= threads)
        return full;
    /* the SM starts another block when a whole block's registers and warp slots are free
     * beside the working warps of those it runs; shared memory stays a whole block's */
    double n = dev->max_blocks_per_sm;
    double by_regs = (double)(dev->regs_per_sm - block_registers(k->registers, threads)) /
                     (double)block_registers(k->registers, working * 32);
    double by_threads = (double)(dev->max_threads_per_sm - threads) / (working * 32.0);
    n = by_regs < n ? by_regs : n;
    n = by_threads < n ? by_threads : n;
    if (l.by_shared >= 0 && (double)l.by_shared < n)
        n = (double)l.by_shared;
    return n > full ? n : full;
}

int est_register_threshold(const est_kernel *k, const est_device *dev, int threads,
                           int *unlaunchable)
{
    int now = est_blocks_per_sm(k, dev, threads), drop = EST_MAX_REGISTERS + 1;
    *unlaunchable = EST_MAX_REGISTERS + 1;
    for (int r = k->registers + 1; r <= EST_MAX_REGISTERS; r++) {
        int n = blocks_per_sm_at(r, k->shared_bytes, dev, threads);
        if (n < now && drop > EST_MAX_REGISTERS)
            drop = r;
        if (n == 0) {
            *unlaunchable = r;
            break;
        }
    }
    return drop;
}

void est_grid(const est_config *cfg, int64_t grid[3])
{
    for (int d = 0; d < 3; d++) {
        int64_t per_block = (int64_t)cfg->launch.block[d] * cfg->launch.folding[d];
        /* ceil without domain + per_block - 1, which overflows near INT64_MAX */
        grid[d] =
            per_block > 0 ? cfg->domain[d] / per_block + (cfg->domain[d] % per_block > 0) : 0;
    }
}

int est_config_tiles_domain(const est_config *cfg)
{
    for (int d = 0; d < 3; d++) {
        int64_t per_block = (int64_t)cfg->launch.block[d] * cfg->launch.folding[d];
        if (per_block <= 0 || cfg->domain[d] % per_block)
            return 0;
    }
    return 1;
}

/* Sides of the domain, block and folding are at least 1; the domain's within
 * EST_MAX_DOMAIN_SIDE and EST_MAX_DOMAIN_POINTS, so that every product of them below
 * (and the estimate's) fits in int64. */
static int check_sides(const est_config *cfg, lr_error *err)
{
    static const char xyz[] = "xyz";
    int64_t points = 1;
    for (int d = 0; d < 3; d++) {
        int64_t n = cfg->domain[d];
        if (n < 1 || n > EST_MAX_DOMAIN_SIDE)
            return lr_error_set(err, LR_INVALID_REQUEST, "domain",
                                "the domain's %c extent is %lld; it must be 1 to %lld", xyz[d],
                                (long long)n, (long long)EST_MAX_DOMAIN_SIDE);
        if (n > EST_MAX_DOMAIN_POINTS / points)
            return lr_error_set(err, LR_INVALID_REQUEST, "domain",
                                "the domain has more than %lld lattice points",
                                (long long)EST_MAX_DOMAIN_POINTS);
        points *= n;
    }
    for (int d = 0; d < 3; d++)
        if (cfg->launch.block[d] < 1 || cfg->launch.folding[d] < 1)
            return lr_error_set(err, LR_INVALID_REQUEST,
                                cfg->launch.block[d] < 1 ? "launch.block" : "launch.folding",
                                "block and folding sides must be at least 1 (%c: %d and %d)",
                                xyz[d], cfg->launch.block[d], cfg->launch.folding[d]);
    return 0;
}

/* CUDA's block limits, then dev's threads per block (dev not NULL): CUDA's first, so
 * that a block no GPU runs gets the same message with a device as without one. */
static int check_block(const est_device *dev, const int b[3], lr_error *err)
{
    if (b[0] > CUDA_BLOCK_XY_MAX || b[1] > CUDA_BLOCK_XY_MAX || b[2] > CUDA_BLOCK_Z_MAX)
        return lr_error_set(err, LR_NOT_LAUNCHABLE, "launch.block",
                            "CUDA allows blocks of at most %d x %d x %d threads (%d in all)",
                            CUDA_BLOCK_XY_MAX, CUDA_BLOCK_XY_MAX, CUDA_BLOCK_Z_MAX,
                            CUDA_BLOCK_THREADS_MAX);
    long threads = (long)b[0] * b[1] * b[2];
    if (threads > CUDA_BLOCK_THREADS_MAX)
        return lr_error_set(err, LR_NOT_LAUNCHABLE, "launch.block",
                            "%ld threads per block exceed CUDA's %d", threads,
                            CUDA_BLOCK_THREADS_MAX);
    if (dev && threads > dev->max_threads_per_block)
        return lr_error_set(err, LR_NOT_LAUNCHABLE, "launch.block",
                            "%ld threads per block exceed the device's %d", threads,
                            dev->max_threads_per_block);
    return 0;
}

int est_folding_check(const est_kernel *k, const est_config *cfg, lr_error *err)
{
    const int *f = cfg->launch.folding;
    long fp = (long)f[0] * f[1] * f[2];
    /* An access in thread variables is issued once per thread (the code generator
     * already folded it, docs/api.md): under a folding of F points per thread, a store
     * written so leaves F-1 of every F lattice points unwritten. The prediction per
     * lattice update would be that of a kernel doing 1/F of the work (issue 11). */
    for (int i = 0; fp > 1 && i < k->nfields; i++)
        for (int a = 0; a < k->fields[i].nacc; a++) {
            const est_access *acc = &k->fields[i].acc[a];
            if (acc->is_store && !(acc->uses & EST_VARS_LATTICE))
                return lr_error_set(
                    err, LR_NOT_LAUNCHABLE, "launch.folding",
                    "folding %dx%dx%d needs stores in x, y, z: the stores of field '%s' are in "
                    "thread variables (already folded), so %ld of every %ld lattice points "
                    "would never be written",
                    f[0], f[1], f[2], k->fields[i].name, fp - 1, fp);
        }
    return 0;
}

/* LR_NOT_LAUNCHABLE naming the limit that leaves no block of threads threads on an
 * SM of dev, with its figures (issue 43: a block short of registers was explained with
 * the SM's shared memory). Each message fits est_result's 160-byte reason. */
static int not_resident(const est_kernel *k, const est_device *dev, int threads, lr_error *err)
{
    sm_limits l = sm_limits_of(k->registers, k->shared_bytes, dev, threads);
    if (l.by_regs == 0)
        return lr_error_set(
            err, LR_NOT_LAUNCHABLE, "launch.block",
            "no block of %d threads fits on an SM: %d registers per thread need %lld "
            "registers per block (per warp in units of 256), the SM has %lld",
            threads, k->registers, (long long)block_registers(k->registers, threads),
            (long long)dev->regs_per_sm);
    if (l.by_shared == 0) {
        char reserved[80] = "";
        if (dev->shared_reserved_bytes_per_block > 0)
            snprintf(reserved, sizeof reserved, " plus the %lld B the driver reserves",
                     (long long)dev->shared_reserved_bytes_per_block);
        return lr_error_set(err, LR_NOT_LAUNCHABLE, "launch.block",
                            "no block of %d threads fits on an SM: it needs %lld B of shared "
                            "memory%s; the SM has %lld B",
                            threads, (long long)k->shared_bytes, reserved,
                            (long long)dev->shared_bytes_per_sm);
    }
    if (l.by_threads == 0)
        return lr_error_set(err, LR_NOT_LAUNCHABLE, "launch.block",
                            "no block of %d threads fits on an SM: the SM holds %lld threads",
                            threads, (long long)dev->max_threads_per_sm);
    return lr_error_set(err, LR_NOT_LAUNCHABLE, "launch.block",
                        "no block of %d threads fits on an SM: the device allows %lld blocks "
                        "per SM",
                        threads, (long long)dev->max_blocks_per_sm);
}

int est_launch_check(const est_kernel *k, const est_device *dev, const est_config *cfg,
                     lr_error *err)
{
    const int *b = cfg->launch.block, *f = cfg->launch.folding;
    if (check_sides(cfg, err) || check_block(dev, b, err))
        return -1;
    /* each side first: a product of three large sides would overflow */
    if (f[0] > EST_MAX_FOLDING || f[1] > EST_MAX_FOLDING || f[2] > EST_MAX_FOLDING ||
        (long)f[0] * f[1] * f[2] > EST_MAX_FOLDING)
        return lr_error_set(err, LR_NOT_LAUNCHABLE, "launch.folding",
                            "folding %dx%dx%d updates more than %d points per thread", f[0],
                            f[1], f[2], EST_MAX_FOLDING);
    int64_t grid[3];
    est_grid(cfg, grid);
    for (int d = 0; d < 3; d++)
        if (grid[d] > (d == 0 ? CUDA_GRID_X_MAX : CUDA_GRID_YZ_MAX))
            return lr_error_set(
                err, LR_NOT_LAUNCHABLE, "launch.block",
                "the grid needs %lld blocks in %c, beyond CUDA's limits (%lld x "
                "%lld x %lld); use larger blocks or more folding",
                (long long)grid[d], "xyz"[d], CUDA_GRID_X_MAX, CUDA_GRID_YZ_MAX,
                CUDA_GRID_YZ_MAX);
    int threads = b[0] * b[1] * b[2];
    if (dev && est_blocks_per_sm(k, dev, threads) == 0)
        return not_resident(k, dev, threads, err);
    return 0;
}
