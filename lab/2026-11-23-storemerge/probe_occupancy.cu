// Store-merging probe, occupancy: each thread stores F consecutive elements of T bytes
// (after one load each, L1, or none, L0; G1 puts 16 dependent FMAs before each store),
// over 5 block sizes and, with 48 KiB of shared memory per block, at 4 blocks per SM.
// lab/2026-11-23-storemerge/README.md
#include <cstdio>
#include "timing.cuh"
template <typename T, int F, int LOAD, int GAP>
__global__ void k(const T *__restrict__ a, T *__restrict__ b, long n)
{
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t * F >= n) return;
    T v[F];
#pragma unroll
    for (int i = 0; i < F; i++) v[i] = LOAD ? a[t * F + i] : (T)(t * F + i);
#pragma unroll
    for (int i = 0; i < F; i++) {
        T x = v[i];
#pragma unroll
        for (int g = 0; g < GAP * 16; g++) x = x * (T)1.0000001 + (T)0.5;
        b[t * F + i] = x;
    }
}
struct C { const char *name; void (*f)(const void*, void*, long, int, int, int); int F, T, load, gap; };
template <typename T, int F, int LOAD, int GAP>
void launch(const void *a, void *b, long n, int grid, int block, int smem)
{ k<T, F, LOAD, GAP><<<grid, block, smem>>>((const T*)a, (T*)b, n); }
#define E(T, F, L, G) {#T " F" #F " L" #L " G" #G, launch<T, F, L, G>, F, (int)sizeof(T), L, G}
static C cs[] = {
  E(double,1,1,0),E(double,2,1,0),E(double,4,1,0),E(double,8,1,0),
  E(double,1,0,0),E(double,2,0,0),E(double,4,0,0),E(double,8,0,0),
  E(double,2,1,1),E(double,4,1,1),E(double,8,1,1),
  E(float,1,1,0),E(float,2,1,0),E(float,4,1,0),E(float,8,1,0),
  E(float,2,0,0),E(float,4,0,0),E(float,8,0,0),
  E(float,4,1,1),E(float,8,1,1),
};
int main(int argc, char **argv)
{
    int timing = argc > 1 && argv[1][0] == 't';
    long n = 1L << 25;
    void *a, *b, *fl;
    cudaMalloc(&a, n * 8); cudaMalloc(&b, n * 8); cudaMalloc(&fl, 256 << 20);
    cudaMemset(a, 0, n * 8);
    int blocks[] = {32, 64, 128, 256, 1024};
    int id = 0;
    for (auto &c : cs)
        for (int bs : blocks)
            for (int occ = 0; occ < 2; occ++) {
                // occ 1: 48 KiB of shared memory per block, so 4 blocks per SM
                if (occ && (bs == 32 || bs == 1024)) continue;
                if (occ && !(c.F >= 2 && c.load && !c.gap)) continue;
                int smem = occ == 0 ? 0 : 48 * 1024;
                long threads = n / c.F; int grid = (threads + bs - 1) / bs;
                auto run = [&] { c.f(a, b, n, grid, bs, smem); };
                float ms = time_or_run_once(timing, run, fl, 8, 2);
                cudaError_t err = cudaGetLastError();
                printf("%d,%s,%d,%d,%d,%d,%d,%d,%.4f,%.2f,%s\n", id++, c.name, c.T, c.F, c.load, c.gap, bs, smem, ms,
                       ms > 0 ? n / ms / 1e6 : 0.0, cudaGetErrorString(err));
            }
    cudaDeviceSynchronize();
    return 0;
}
