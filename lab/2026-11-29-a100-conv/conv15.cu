/* A 15x15 float convolution of a 4096x4096 image (input 4110x4110, row-major), one output
 * point per thread, the filter in constant memory, every input value read from global
 * memory: written for launchrank's A100 set (README.md) to have the loop structure,
 * indexing, types and constant-memory filter of the kernel Kernel Tuner timed on an
 * A100-PCIE-40GB (benchmark_hub convolution_milo, use_shmem=0, tile 1x1, read_only=0),
 * so that NVRTC's register count and the instruction mix can stand for it. Compile with
 * -DBX=<block_size_x> -DBY=<block_size_y>: as in the original the block is a compile-time
 * constant, and the bounds checks exist only when the block does not divide 4096. */
#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 4
#endif
#define OUT_N 4096
#define FW 15
#define IN_N (OUT_N + FW - 1)

__constant__ float weights[33 * 33];

extern "C" __global__ void conv15(float *out, float *in, float *unused_filter)
{
    const int col0 = blockIdx.x * BX;
    const int row0 = blockIdx.y * BY;
    const int cx = col0 + threadIdx.x;
    const int cy = row0 + threadIdx.y;
    float acc = 0.0f;
#pragma unroll
    for (int r = 0; r < FW; r++) {
#pragma unroll
        for (int c = 0; c < FW; c++) {
            const float w = weights[r * FW + c];
            float v = 0.0f;
#if (OUT_N % BY != 0) || (OUT_N % BX != 0)
            /* the original guards its loads by the input's extent, not the image's */
            if (cy < IN_N && cx < IN_N)
#endif
                v = in[(cy + r) * IN_N + (cx + c)];
            acc += v * w;
        }
    }
#if (OUT_N % BY != 0) || (OUT_N % BX != 0)
    if (cy < OUT_N && cx < OUT_N)
#endif
        out[cy * OUT_N + cx] = acc;
}
