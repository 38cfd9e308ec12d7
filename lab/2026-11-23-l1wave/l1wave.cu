// L1 data-pipe wavefronts per warp instruction on Volta-Hopper, by access shape:
// element size (4/8 B), alignment (shift in elements), L1 hit or miss, load or store.
// Run under Nsight Compute (l1wave.sh); each kernel is one case, named in its launch.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// One load, one aligned store. mask wraps the load into a small L1-resident window
// (hits) or not (0xffffffff: every line is new, misses).
template <typename T>
__global__ void ld1(const T *__restrict__ a, T *__restrict__ b, int s, unsigned mask)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    b[i] = a[(i & mask) + s];
}

// Two loads: aligned then shifted by s (the second meets lines the first allocated).
template <typename T>
__global__ void ld2(const T *__restrict__ a, T *__restrict__ b, int s)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    b[i] = a[i] + a[i + s];
}

// Three loads: shifted -1, 0, +1 (a 1-D 3-point stencil).
template <typename T>
__global__ void ld3(const T *__restrict__ a, T *__restrict__ b)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    b[i] = a[i - 1] + a[i] + a[i + 1];
}

// One aligned load, a store shifted by s.
template <typename T>
__global__ void st1(const T *__restrict__ a, T *__restrict__ b, int s)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    b[i + s] = a[i];
}

// Strided load: lane j reads element j*stride (each lane its own line for stride >= 32/T).
template <typename T>
__global__ void ldstride(const T *__restrict__ a, T *__restrict__ b, int stride)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    b[i] = a[(size_t)i * stride];
}

int main()
{
    const unsigned n = 1u << 22;
    void *a, *b;
    cudaMalloc(&a, (size_t)n * 8 * 40);
    cudaMalloc(&b, (size_t)n * 8 + 4096);
    cudaMemset(a, 0, (size_t)n * 8 * 40);
    dim3 blk(256), grd(n / 256);
    float *fa = (float *)a, *fb = (float *)b;
    double *da = (double *)a, *db = (double *)b;
    // order matters: l1wave.sh names the cases in this order
    for (int s = 0; s < 3; s++) ld1<float><<<grd, blk>>>(fa, fb, s, 0xffffffffu);   // 0-2 f32 miss
    for (int s = 0; s < 3; s++) ld1<float><<<grd, blk>>>(fa, fb, s, 1023u);         // 3-5 f32 hit
    for (int s = 0; s < 3; s++) ld1<double><<<grd, blk>>>(da, db, s, 0xffffffffu);  // 6-8 f64 miss
    for (int s = 0; s < 3; s++) ld1<double><<<grd, blk>>>(da, db, s, 1023u);        // 9-11 f64 hit
    ld2<float><<<grd, blk>>>(fa, fb, 1);                                             // 12
    ld2<double><<<grd, blk>>>(da, db, 1);                                            // 13
    ld3<float><<<grd, blk>>>(fa, fb);                                                // 14
    ld3<double><<<grd, blk>>>(da, db);                                               // 15
    st1<float><<<grd, blk>>>(fa, fb, 1);                                             // 16
    st1<double><<<grd, blk>>>(da, db, 1);                                            // 17
    ldstride<float><<<grd, blk>>>(fa, fb, 2);                                        // 18
    ldstride<float><<<grd, blk>>>(fa, fb, 32);                                       // 19
    ldstride<double><<<grd, blk>>>(da, db, 2);                                       // 20
    ldstride<double><<<grd, blk>>>(da, db, 16);                                      // 21
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
