// Device-side check of calibrate's instruction-rate kernels (calibrate/micro_kernels.cu),
// built with nvcc so that cuobjdump shows their SASS and ncu counts each pipe's
// instructions (device_run.sh). Prints, per kernel, the class's instructions per cycle
// per SM from the per-block clocks, as calibrate/micro.c computes them. One kernel more
// than calibrate runs: lr_rate_int_add, a plain add/xor chain, to see what ptxas makes of
// an add (IADD3 or IMAD.IADD on the FMA pipe).
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include "../../calibrate/micro_kernels.cu"

extern "C" __global__ void __launch_bounds__(1024, 2)
lr_rate_int_add(int iters, unsigned k, float *out, u64 *times)
{
    CLOCK_BEGIN
    unsigned a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5,
             a6 = a0 + 6, a7 = a0 + 7;
    for (int it = 0; it < iters; it++) {
        RATE_REP16(a0 = (a0 + k) ^ a1; a1 = (a1 + k) ^ a2; a2 = (a2 + k) ^ a3;
                   a3 = (a3 + k) ^ a4; a4 = (a4 + k) ^ a5; a5 = (a5 + k) ^ a6;
                   a6 = (a6 + k) ^ a7; a7 = (a7 + k) ^ a0;)
    }
    if ((a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7) == 0x12345u)
        out[blockIdx.x * blockDim.x + threadIdx.x] = (float)a0;
    CLOCK_END(times)
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

static u64 *times_d;
static float *out_d;
static int sms;

template <class F> static void run(const char *name, F launch, double ops_per_thread)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    launch();
    CK(cudaDeviceSynchronize());
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    int nb = 2 * sms;
    std::vector<u64> t(4 * nb);
    CK(cudaMemcpy(t.data(), times_d, t.size() * 8, cudaMemcpyDeviceToHost));
    std::vector<double> cyc(nb), ns(nb);
    for (int i = 0; i < nb; i++) { cyc[i] = t[4*i+1] - t[4*i]; ns[i] = t[4*i+3] - t[4*i+2]; }
    std::sort(cyc.begin(), cyc.end()); std::sort(ns.begin(), ns.end());
    double c = cyc[nb / 2], g = ns[nb / 2];
    printf("%-18s %8.3f ms  %12.0f cycles  %.3f GHz  %7.2f per cycle per SM (min blk %.0f max %.0f)\n",
           name, ms, c, c / g, ops_per_thread * 2048 / c, cyc[0], cyc[nb - 1]);
}

int main()
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    sms = p.multiProcessorCount;
    CK(cudaMalloc(&times_d, 4 * 8 * 2 * sms));
    CK(cudaMalloc(&out_d, 4 * 1024 * 2 * sms));
    printf("%s, %d SMs\n", p.name, sms);
    dim3 g(2 * sms), blk(1024);
    int it32 = 2048, it64 = 1024, itsp = 512, itint = 512;
    float kf = 0.999f, ks = 1.1f; double kd = 0.999; unsigned ki = 0x9E3779B9u;
    run("fp32", [&] { lr_rate_fp32<<<g, blk>>>(it32, kf, out_d, times_d); }, 128.0 * it32);
    run("fp64", [&] { lr_rate_fp64<<<g, blk>>>(it64, kd, out_d, times_d); }, 128.0 * it64);
    run("special", [&] { lr_rate_special<<<g, blk>>>(itsp, ks, out_d, times_d); }, 64.0 * itsp);
    run("integer", [&] { lr_rate_integer<<<g, blk>>>(itint, ki, out_d, times_d); }, 256.0 * itint);
    run("issue", [&] { lr_rate_issue<<<g, blk>>>(it32, kf, ki, out_d, times_d); }, 128.0 * it32);
    run("int_add(2 ops)", [&] { lr_rate_int_add<<<g, blk>>>(itint, ki, out_d, times_d); }, 256.0 * itint);
    CK(cudaGetLastError());
    return 0;
}
