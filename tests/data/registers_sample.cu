// registers_sample.cu: the sample of `launchrank registers` (tests/cudagen/test_resources.c,
// tests/cli, docs/api.md). Two kernels: a 7-point stencil (22 registers on sm_90), and a
// template whose 64 live values per thread do not fit the 32 registers that
// __launch_bounds__(1024, 2) leaves (65536 / 2048), so ptxas spills.
extern "C" __global__ void stencil7(const double *__restrict__ in, double *__restrict__ out, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < 1 || y < 1 || z < 1 || x >= n - 1 || y >= n - 1 || z >= n - 1)
        return;
    long i = ((long)z * n + y) * n + x;
    out[i] = 0.25 * in[i] + 0.125 * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n] +
                                     in[i - (long)n * n] + in[i + (long)n * n]);
}

template <int N>
__global__ void __launch_bounds__(1024, 2) heavy(const float *in, float *out)
{
    __shared__ float tile[256];
    float acc[N];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int k = 0; k < N; k++)
        acc[k] = in[t + k * 4096];
    tile[threadIdx.x % 256] = acc[0];
    __syncthreads();
#pragma unroll
    for (int r = 0; r < 8; r++)
#pragma unroll
        for (int k = 0; k < N; k++)
            acc[k] = acc[k] * acc[(k + r + 1) % N] + tile[(threadIdx.x + k) % 256];
    float s = 0;
#pragma unroll
    for (int k = 0; k < N; k++)
        s += acc[k] * (k + 1);
    out[t] = s;
}
template __global__ void heavy<64>(const float *, float *);
