// Store-merging probe, stencil-shaped loads: a 2-D grid of W x H points, each thread
// folded F times in x stores F consecutive elements of T bytes one element past
// alignment (a halo), each the sum of R rows x (K+1) neighbours of one array, so that
// most loads hit L1 or L2 as a stencil's do (probe_loads.cu reads K+1 separate arrays
// from DRAM instead). lab/2026-11-23-storemerge/README.md
#include <cstdio>
#include "timing.cuh"
static const long W = 8192, H = 4096, P = W + 64; // P: the padded row
template <typename T, int F, int R, int K>
__global__ void k(const T *__restrict__ a, T *__restrict__ b)
{
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long x = t * F % W, y = t * F / W;
    if (y >= H) return;
    T v[F];
#pragma unroll
    for (int i = 0; i < F; i++) {
        T s = 0;
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int j = 0; j <= K; j++) s += a[(y + r) * P + x + i + j];
        v[i] = s;
    }
#pragma unroll
    for (int i = 0; i < F; i++) b[(y + 1) * P + x + i + 1] = v[i];
}
struct C { const char *name; void (*f)(const void*, void*, int, int); int F, T, r, k; };
template <typename T, int F, int R, int K>
void launch(const void *a, void *b, int grid, int block)
{ k<T, F, R, K><<<grid, block>>>((const T*)a, (T*)b); }
#define E(T, F, R, K) {#T " F" #F " R" #R " K" #K, launch<T, F, R, K>, F, (int)sizeof(T), R, K}
#define ER(T, F, R) E(T, F, R, 0), E(T, F, R, 2), E(T, F, R, 4), E(T, F, R, 8)
static C cs[] = { ER(double, 4, 1), ER(double, 4, 3), ER(float, 8, 1), ER(float, 8, 3),
                  ER(double, 2, 3), ER(float, 4, 3) };
int main(int argc, char **argv)
{
    int timing = argc > 1 && argv[1][0] == 't';
    long elems = (H + 8) * P;
    void *a, *b, *fl;
    cudaMalloc(&a, elems * 8); cudaMalloc(&b, elems * 8); cudaMalloc(&fl, 256 << 20);
    cudaMemset(a, 0, elems * 8);
    int blocks[] = {128, 256};
    int id = 0;
    for (auto &c : cs)
        for (int bs : blocks) {
            long threads = W * H / c.F; int grid = (threads + bs - 1) / bs;
            auto run = [&] { c.f(a, b, grid, bs); };
            float ms = time_or_run_once(timing, run, fl, 7, 2);
            printf("%d,%s,%d,%d,%d,%d,%d,%.4f,%.2f,%s\n", id++, c.name, c.T, c.F, c.r, c.k, bs, ms,
                   ms > 0 ? W * H / ms / 1e6 : 0.0, cudaGetErrorString(cudaGetLastError()));
        }
    cudaDeviceSynchronize();
    return 0;
}
