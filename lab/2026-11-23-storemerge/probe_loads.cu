// Store-merging probe, loads per store: each thread stores F consecutive elements of T
// bytes, OFF elements past alignment, each the sum of K+1 loads from separate arrays.
// lab/2026-11-23-storemerge/README.md
#include <cstdio>
#include "timing.cuh"
template <typename T, int F, int OFF, int K>
__global__ void k(const T *__restrict__ a, T *__restrict__ b, long n)
{
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t * F >= n) return;
    T v[F];
#pragma unroll
    for (int i = 0; i < F; i++) {
        T s = a[t * F + i];
#pragma unroll
        for (int j = 1; j <= K; j++) s += a[t * F + i + j * (n + 64)];
        v[i] = s;
    }
#pragma unroll
    for (int i = 0; i < F; i++) b[t * F + i + OFF] = v[i];
}
struct C { const char *name; void (*f)(const void*, void*, long, int, int); int F, T, off, k; };
template <typename T, int F, int OFF, int K>
void launch(const void *a, void *b, long n, int grid, int block)
{ k<T, F, OFF, K><<<grid, block>>>((const T*)a, (T*)b, n); }
#define E(T, F, O, K) {#T " F" #F " O" #O " K" #K, launch<T, F, O, K>, F, (int)sizeof(T), O, K}
#define EK(T, F, O) E(T, F, O, 0), E(T, F, O, 3), E(T, F, O, 12)
#define EO(T, F) EK(T, F, 0), EK(T, F, 1), EK(T, F, 2)
static C cs[] = { EO(double, 2), EO(double, 4), EO(double, 8), EO(float, 4), EO(float, 8) };
int main(int argc, char **argv)
{
    int timing = argc > 1 && argv[1][0] == 't';
    long n = 1L << 25;
    void *a, *b, *fl;
    cudaMalloc(&a, 13 * (n + 64) * 8); cudaMalloc(&b, (n + 64) * 8); cudaMalloc(&fl, 256 << 20);
    cudaMemset(a, 0, 13 * (n + 64) * 8);
    int blocks[] = {32, 128, 256};
    int id = 0;
    for (auto &c : cs)
        for (int bs : blocks) {
            long threads = n / c.F; int grid = (threads + bs - 1) / bs;
            auto run = [&] { c.f(a, b, n, grid, bs); };
            float ms = time_or_run_once(timing, run, fl, 7, 2);
            printf("%d,%s,%d,%d,%d,%d,%d,%.4f,%.2f,%s\n", id++, c.name, c.T, c.F, c.off, c.k, bs, ms,
                   ms > 0 ? n / ms / 1e6 : 0.0, cudaGetErrorString(cudaGetLastError()));
        }
    cudaDeviceSynchronize();
    return 0;
}
