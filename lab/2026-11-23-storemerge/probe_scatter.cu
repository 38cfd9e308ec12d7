// Store-merging probe, scattered rows: a transposed copy out[y + x*NY] = in[x + y*NX]
// of T-byte elements, folded F in y (each thread stores F consecutive elements of one
// output row), blocks of bx x (256/bx): a warp's store instruction touches bx rows, so
// bx times as many lines as a contiguous run of the same bytes.
// lab/2026-11-23-storemerge/README.md
#include <cstdio>
#include "timing.cuh"
static const long NX = 8192, NY = 4096;
template <typename T, int F>
__global__ void k(const T *__restrict__ in, T *__restrict__ out)
{
    long x = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long y0 = ((long)blockIdx.y * blockDim.y + threadIdx.y) * F;
    if (x >= NX || y0 >= NY) return;
    T v[F];
#pragma unroll
    for (int i = 0; i < F; i++) v[i] = in[x + (y0 + i) * NX];
#pragma unroll
    for (int i = 0; i < F; i++) out[y0 + i + x * NY] = v[i];
}
struct C { const char *name; void (*f)(const void*, void*, dim3, dim3); int F, T; };
template <typename T, int F>
void launch(const void *a, void *b, dim3 g, dim3 bl) { k<T, F><<<g, bl>>>((const T*)a, (T*)b); }
#define E(T, F) {#T " F" #F, launch<T, F>, F, (int)sizeof(T)}
static C cs[] = { E(float,1), E(float,2), E(float,4), E(float,8),
                  E(double,1), E(double,2), E(double,4), E(double,8) };
int main(int argc, char **argv)
{
    int timing = argc > 1 && argv[1][0] == 't';
    long n = NX * NY;
    void *a, *b, *fl;
    cudaMalloc(&a, n * 8); cudaMalloc(&b, n * 8); cudaMalloc(&fl, 256 << 20);
    cudaMemset(a, 0, n * 8);
    int bxs[] = {1, 2, 4, 8, 16, 32};
    int id = 0;
    for (auto &c : cs)
        for (int bx : bxs) {
            dim3 bl(bx, 256 / bx), g(NX / bx, NY / (256 / bx) / c.F);
            auto run = [&] { c.f(a, b, g, bl); };
            float ms = time_or_run_once(timing, run, fl, 7, 2);
            printf("%d,%s,%d,%d,%d,%d,%.4f,%.2f,%s\n", id++, c.name, c.T, c.F, bx, 256 / bx, ms,
                   ms > 0 ? n / ms / 1e6 : 0.0, cudaGetErrorString(cudaGetLastError()));
        }
    cudaDeviceSynchronize();
    return 0;
}
