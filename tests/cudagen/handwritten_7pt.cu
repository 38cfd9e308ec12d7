/*
 * handwritten_7pt: the 3-D 7-point stencil written by hand, as the baseline the
 * generated kernel of test_cudagen_gpu ("3-D 7-point double", 256^3) is compared
 * with. Same arithmetic (the seven loads summed by fma with weights 1/2 .. 1/8),
 * same layout (one xy-plane of margin on each side, so x-1 .. z+1 stay inside),
 * same timing protocol as cg_measure: 3 warm-up runs, 10 timed runs with CUDA
 * events, a 128 MiB memset before each run to flush the L2, GLup/s from the median.
 * The difference: 32-bit index arithmetic and a plain 3-D thread mapping, what a
 * person writes.
 *
 * Not built by meson (CI has no nvcc). On a GPU machine:
 *   nvcc -O3 -arch=native -o handwritten_7pt tests/cudagen/handwritten_7pt.cu
 *   ./handwritten_7pt [n=256] [bx=128] [by=2] [bz=1]
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                                   \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                         cudaGetErrorString(e_));                                          \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

__global__ void stencil_7pt(const double *__restrict__ src, double *__restrict__ dst, int nx,
                            int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    int sy = nx, sz = nx * ny, i = x + y * sy + z * sz;
    double sum = 0.0;
    sum = fma(0.5, src[i], sum);
    sum = fma(1.0 / 3, src[i - 1], sum);
    sum = fma(0.25, src[i + 1], sum);
    sum = fma(0.2, src[i - sy], sum);
    sum = fma(1.0 / 6, src[i + sy], sum);
    sum = fma(1.0 / 7, src[i - sz], sum);
    sum = fma(0.125, src[i + sz], sum);
    dst[i] = sum;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 256;
    int bx = argc > 2 ? std::atoi(argv[2]) : 128, by = argc > 3 ? std::atoi(argv[3]) : 2,
        bz = argc > 4 ? std::atoi(argv[4]) : 1;
    size_t plane = (size_t)n * n, cells = plane * n, total = cells + 2 * plane;
    const size_t flush_bytes = (size_t)128 << 20;
    double *src, *dst;
    char *flush;

    CHECK_CUDA(cudaMalloc(&src, total * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&dst, total * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    {
        std::vector<double> h(total);
        for (size_t j = 0; j < total; j++)
            h[j] = (double)(j % 97) * 0.01;
        CHECK_CUDA(cudaMemcpy(src, h.data(), total * sizeof(double), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dst, h.data(), total * sizeof(double), cudaMemcpyHostToDevice));
    }
    dim3 block(bx, by, bz), grid((n + bx - 1) / bx, (n + by - 1) / by, (n + bz - 1) / bz);
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    std::vector<float> ms;
    for (int r = 0; r < 13; r++) {
        CHECK_CUDA(cudaMemset(flush, r, flush_bytes));
        CHECK_CUDA(cudaEventRecord(start));
        stencil_7pt<<<grid, block>>>(src + plane, dst + plane, n, n, n);
        CHECK_CUDA(cudaEventRecord(stop));
        CHECK_CUDA(cudaEventSynchronize(stop));
        CHECK_CUDA(cudaGetLastError());
        float t;
        CHECK_CUDA(cudaEventElapsedTime(&t, start, stop));
        if (r >= 3)
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    double median = 0.5 * (ms[4] + ms[5]);
    std::printf("handwritten 7-point double domain %d^3 block (%d,%d,%d): %.4f / %.4f / %.4f ms "
                "(min / median / max), %.1f GLup/s\n",
                n, bx, by, bz, ms.front(), median, ms.back(), (double)cells / (median * 1e6));
    cudaFree(src);
    cudaFree(dst);
    cudaFree(flush);
    return 0;
}
