/* Times conv15.cu's kernel (a template over the block here, otherwise the same code) on
 * the GPU it runs on, for every block of the A100 set: 3 warm-up launches, then the
 * median of 21 launches timed with CUDA events, back to back as Kernel Tuner runs them
 * (the 67.6 MB input is larger than the L2). Prints "bx by ms registers error" per block.
 * nvcc -O3 -arch=sm_90 -std=c++17 -o bench bench.cu */
#include <algorithm>
#include <cstdio>
#include <vector>

template <int bx, int by> __global__ void conv_t(float *out, const float *in);

#define OUT_N 4096
#define FW 15
#define IN_N (OUT_N + FW - 1)
__constant__ float weights[33 * 33];

template <int bx, int by> __global__ void conv_t(float *out, const float *in)
{
    const int cx = blockIdx.x * bx + threadIdx.x;
    const int cy = blockIdx.y * by + threadIdx.y;
    const bool guarded = (OUT_N % bx) != 0 || (OUT_N % by) != 0;
    float acc = 0.0f;
#pragma unroll
    for (int r = 0; r < FW; r++)
#pragma unroll
        for (int c = 0; c < FW; c++) {
            float v = 0.0f;
            if (!guarded || (cy < IN_N && cx < IN_N))
                v = in[(cy + r) * IN_N + (cx + c)];
            acc += v * weights[r * FW + c];
        }
    if (!guarded || (cy < OUT_N && cx < OUT_N))
        out[cy * OUT_N + cx] = acc;
}

template <int bx, int by> static void time_one(float *out, const float *in)
{
    dim3 block(bx, by), grid((OUT_N + bx - 1) / bx, (OUT_N + by - 1) / by);
    cudaFuncAttributes a;
    cudaFuncGetAttributes(&a, conv_t<bx, by>);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> t;
    for (int i = 0; i < 24; i++) {
        cudaEventRecord(e0);
        conv_t<bx, by><<<grid, block>>>(out, in);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (i >= 3)
            t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    printf("%d %d %.5f %d %s\n", bx, by, t[t.size() / 2], a.numRegs,
           cudaGetErrorString(cudaGetLastError()));
}

template <int bx, int by> static void row(float *out, const float *in)
{
    if constexpr (bx * by <= 1024)
        time_one<bx, by>(out, in);
}

template <int bx> static void col(float *out, const float *in)
{
    row<bx, 1>(out, in);
    row<bx, 2>(out, in);
    row<bx, 4>(out, in);
    row<bx, 8>(out, in);
    row<bx, 16>(out, in);
}

int main()
{
    float *in, *out;
    size_t nin = (size_t)IN_N * (IN_N + 1); /* the last rows' guarded threads read past */
    cudaMalloc(&in, nin * sizeof(float));
    cudaMalloc(&out, (size_t)OUT_N * OUT_N * sizeof(float));
    std::vector<float> h(nin, 1.0f), w(FW * FW, 1.0f / (FW * FW));
    cudaMemcpy(in, h.data(), nin * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(weights, w.data(), w.size() * sizeof(float));
    col<16>(out, in); col<32>(out, in); col<48>(out, in); col<64>(out, in);
    col<80>(out, in); col<96>(out, in); col<112>(out, in); col<128>(out, in);
    col<144>(out, in); col<160>(out, in); col<176>(out, in); col<192>(out, in);
    col<208>(out, in); col<224>(out, in); col<240>(out, in); col<256>(out, in);
    int dev;
    cudaDeviceProp p;
    cudaGetDevice(&dev);
    cudaGetDeviceProperties(&p, dev);
    printf("# %s\n", p.name);
    return 0;
}
