// lab/2026-11-27-knee/probe.cu: how DRAM throughput follows the threads an SM holds, for streams
// and a stencil (lab/2026-11-27-knee/README.md). Each kernel runs with 256-thread blocks, folded
// F = 1, 2 or 4 (consecutive points per thread: x for the streams, y for the stencil, as
// cudagen folds), with dynamic shared memory reserved so that 1 to 8 blocks fit on an SM
// (the kernels do not use it: it only caps the resident blocks). Like cudagen's code, a
// folded thread loads and computes all its points before it stores any.
// Usage: probe t   -> CSV on stdout: kernel,fold,smem_bytes,blocks_per_sm,threads_per_sm,ms,glups
//        probe p   -> nothing: each stream once, for `device_run.sh OUT profile` (Nsight Compute)
//        probe x   -> kernel,block,fold,ms,glups: the streams folded consecutively and
//                     block-strided ("_bs"), no shared memory
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "../storemerge/timing.cuh"

#define CHECK(x)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (x);                                                           \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                    \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static const long N1 = 1l << 25;          // points of the 1-D streams
static const int NX = 8192, NY = 4096;    // the 2-D stencil's interior
static const int PX = NX + 2;             // its rows, with a halo of 1 (stores start 4 B into a line, as in the corpus)

// a[i] = b[i] + s * c[i] (double, 24 B per point)
template <int F>
__global__ void triad(double *__restrict__ a, const double *__restrict__ b,
                      const double *__restrict__ c, double s)
{
    long i0 = ((long)blockIdx.x * blockDim.x + threadIdx.x) * F;
    double v[F];
#pragma unroll
    for (int j = 0; j < F; j++)
        v[j] = b[i0 + j] + s * c[i0 + j];
#pragma unroll
    for (int j = 0; j < F; j++)
        a[i0 + j] = v[j];
}

// b[i] = a[2 i] (double, the corpus's copy_strided_f64: 24 B per point)
template <int F>
__global__ void strided(double *__restrict__ b, const double *__restrict__ a)
{
    long i0 = ((long)blockIdx.x * blockDim.x + threadIdx.x) * F;
    double v[F];
#pragma unroll
    for (int j = 0; j < F; j++)
        v[j] = a[2 * (i0 + j)];
#pragma unroll
    for (int j = 0; j < F; j++)
        b[i0 + j] = v[j];
}

// b[i] = s * a[i] (double, 16 B per point)
template <int F>
__global__ void scale(double *__restrict__ b, const double *__restrict__ a, double s)
{
    long i0 = ((long)blockIdx.x * blockDim.x + threadIdx.x) * F;
    double v[F];
#pragma unroll
    for (int j = 0; j < F; j++)
        v[j] = s * a[i0 + j];
#pragma unroll
    for (int j = 0; j < F; j++)
        b[i0 + j] = v[j];
}

// the triad and the strided copy with the F points of a thread blockDim.x apart
// ("block-strided": every warp instruction reads and writes 32 consecutive points, as
// unfolded code does) instead of consecutive (cudagen's folding: lanes F points apart)
template <int F>
__global__ void triad_bs(double *__restrict__ a, const double *__restrict__ b,
                         const double *__restrict__ c, double s)
{
    long i0 = (long)blockIdx.x * blockDim.x * F + threadIdx.x;
    double v[F];
#pragma unroll
    for (int j = 0; j < F; j++)
        v[j] = b[i0 + j * blockDim.x] + s * c[i0 + j * blockDim.x];
#pragma unroll
    for (int j = 0; j < F; j++)
        a[i0 + j * blockDim.x] = v[j];
}

template <int F>
__global__ void strided_bs(double *__restrict__ b, const double *__restrict__ a)
{
    long i0 = (long)blockIdx.x * blockDim.x * F + threadIdx.x;
    double v[F];
#pragma unroll
    for (int j = 0; j < F; j++)
        v[j] = a[2 * (i0 + j * blockDim.x)];
#pragma unroll
    for (int j = 0; j < F; j++)
        b[i0 + j * blockDim.x] = v[j];
}

// 2-D 5-point star, float, blocks 256 x 1 folded F in y (8 B of DRAM per point)
template <int F>
__global__ void star(float *__restrict__ v, const float *__restrict__ u)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
    int y0 = blockIdx.y * F + 1;
    float r[F];
#pragma unroll
    for (int j = 0; j < F; j++) {
        long p = (long)(y0 + j) * PX + x;
        r[j] = 0.25f * (u[p - 1] + u[p + 1] + u[p - PX] + u[p + PX]) - u[p];
    }
#pragma unroll
    for (int j = 0; j < F; j++)
        v[(long)(y0 + j) * PX + x] = r[j];
}

static void *flush;
static double *A, *B, *C;
static float *U, *V;

template <typename K>
static int fit_blocks(K kernel, int smem)
{
    int nb = 0;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, 256, smem));
    return nb;
}

template <int F>
static void run_all(int smem)
{
    struct {
        const char *name;
        double points;
    } k[4] = {{"triad_f64", (double)N1}, {"strided_f64", (double)N1}, {"scale_f64", (double)N1},
              {"star2d_r1_f32", (double)NX * NY}};
    for (int i = 0; i < 4; i++) {
        int nb = 0;
        float ms = 0;
        if (i == 0) {
            nb = fit_blocks(triad<F>, smem);
            ms = median_ms([&] { triad<F><<<N1 / 256 / F, 256, smem>>>(A, B, C, 3.0); },
                           flush, 13, 3);
        } else if (i == 1) {
            nb = fit_blocks(strided<F>, smem);
            ms = median_ms([&] { strided<F><<<N1 / 256 / F, 256, smem>>>(B, A); }, flush, 13, 3);
        } else if (i == 2) {
            nb = fit_blocks(scale<F>, smem);
            ms = median_ms([&] { scale<F><<<N1 / 256 / F, 256, smem>>>(B, A, 3.0); }, flush, 13,
                           3);
        } else {
            nb = fit_blocks(star<F>, smem);
            ms = median_ms([&] { star<F><<<dim3(NX / 256, NY / F), 256, smem>>>(V, U); }, flush,
                           13, 3);
        }
        CHECK(cudaGetLastError());
        printf("%s,%d,%d,%d,%d,%.5f,%.3f\n", k[i].name, F, smem, nb, nb * 256, ms,
               k[i].points / ms * 1e-6);
    }
}

// mode x: the streams folded consecutively and block-strided, blocks of 128 to 1024
// threads, no shared memory reserved (the corpus's conditions), two passes
template <int F>
static void run_layouts(int bx)
{
    float ms[4];
    long g = N1 / bx / F;
    ms[0] = median_ms([&] { triad<F><<<g, bx>>>(A, B, C, 3.0); }, flush, 13, 3);
    ms[1] = median_ms([&] { triad_bs<F><<<g, bx>>>(A, B, C, 3.0); }, flush, 13, 3);
    ms[2] = median_ms([&] { strided<F><<<g, bx>>>(B, A); }, flush, 13, 3);
    ms[3] = median_ms([&] { strided_bs<F><<<g, bx>>>(B, A); }, flush, 13, 3);
    CHECK(cudaGetLastError());
    const char *name[4] = {"triad_f64", "triad_f64_bs", "strided_f64", "strided_f64_bs"};
    for (int i = 0; i < 4; i++)
        printf("%s,%d,%d,%.5f,%.3f\n", name[i], bx, F, ms[i], (double)N1 / ms[i] * 1e-6);
}

// mode p: each stream once (256-thread blocks, no shared memory) after the flush, for
// a profiler (device_run.sh OUT profile): folded 1, 2 and 4, consecutively and block-strided
static void profile_once(void)
{
    long g1 = N1 / 256;
    auto once = [&](auto launch) {
        CHECK(cudaMemset(flush, 1, 256 << 20));
        launch();
        CHECK(cudaDeviceSynchronize());
    };
    once([&] { triad<1><<<g1, 256>>>(A, B, C, 3.0); });
    once([&] { triad<2><<<g1 / 2, 256>>>(A, B, C, 3.0); });
    once([&] { triad_bs<2><<<g1 / 2, 256>>>(A, B, C, 3.0); });
    once([&] { triad_bs<4><<<g1 / 4, 256>>>(A, B, C, 3.0); });
    once([&] { strided<1><<<g1, 256>>>(B, A); });
    once([&] { strided<2><<<g1 / 2, 256>>>(B, A); });
    once([&] { strided_bs<2><<<g1 / 2, 256>>>(B, A); });
    once([&] { strided_bs<4><<<g1 / 4, 256>>>(B, A); });
}

int main(int argc, char **argv)
{
    if (argc < 2 || (argv[1][0] != 't' && argv[1][0] != 'x' && argv[1][0] != 'p')) {
        fprintf(stderr, "usage: probe t|x|p\n");
        return 2;
    }
    int smem_per_sm = 0, reserved = 0;
    CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
    CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0));
    CHECK(cudaMalloc(&flush, 256 << 20));
    CHECK(cudaMalloc(&A, 2 * N1 * sizeof(double)));
    CHECK(cudaMalloc(&B, N1 * sizeof(double)));
    CHECK(cudaMalloc(&C, N1 * sizeof(double)));
    CHECK(cudaMalloc(&U, (long)PX * (NY + 2) * sizeof(float)));
    CHECK(cudaMalloc(&V, (long)PX * (NY + 2) * sizeof(float)));
    CHECK(cudaMemset(A, 0, 2 * N1 * sizeof(double)));
    CHECK(cudaMemset(B, 0, N1 * sizeof(double)));
    CHECK(cudaMemset(C, 0, N1 * sizeof(double)));
    CHECK(cudaMemset(U, 0, (long)PX * (NY + 2) * sizeof(float)));
    if (argv[1][0] == 'p') {
        profile_once();
        return 0;
    }
    if (argv[1][0] == 'x') {
        printf("kernel,block,fold,ms,glups\n");
        for (int pass = 0; pass < 2; pass++)
            for (int bx = 128; bx <= 1024; bx *= 2) {
                run_layouts<1>(bx);
                run_layouts<2>(bx);
                run_layouts<4>(bx);
            }
        return 0;
    }
    printf("# shared memory per SM %d B, reserved per block %d B\n", smem_per_sm, reserved);
    printf("kernel,fold,smem_bytes,blocks_per_sm,threads_per_sm,ms,glups\n");
    for (int pass = 0; pass < 2; pass++)
        for (int level = 1; level <= 9; level++) {
            // the most dynamic shared memory that still lets b blocks fit, 128-B granules;
            // level 8 reserves none (the threads cap the blocks at 8), level 9 is 8 blocks
            // with the shared memory reserved (what the carve-out alone costs)
            int b = level > 8 ? 8 : level;
            int smem = level == 8 ? 0 : (smem_per_sm / b - reserved) / 128 * 128;
            run_all<1>(smem);
            run_all<2>(smem);
            run_all<4>(smem);
        }
    return 0;
}
