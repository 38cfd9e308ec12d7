// DRAM rate of a kernel that streams n arrays in and n arrays out (an LBM update without its
// collision: every load of a cell before the first store, one cell per thread), against the
// threads per SM, forced with dynamic shared memory a block reserves and does not use
// (lab/2026-11-29-streams/README.md). Usage: streams OUT.csv [sides]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));        \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

template <typename T, int N> struct Ptrs {
    const T *in[N];
    T *out[N];
};

// D3Q27's velocities, rest first, then D3Q19's faces and edges, then the corners: the first
// N of them are the shifts of N arrays read as an LBM pull reads them
__constant__ int VEL[27][3] = {{0, 0, 0},   {1, 0, 0},   {-1, 0, 0}, {0, 1, 0},   {0, -1, 0},
                               {0, 0, 1},   {0, 0, -1},  {1, 1, 0},  {-1, -1, 0}, {1, -1, 0},
                               {-1, 1, 0},  {1, 0, 1},   {-1, 0, -1}, {1, 0, -1}, {-1, 0, 1},
                               {0, 1, 1},   {0, -1, -1}, {0, 1, -1}, {0, -1, 1},  {1, 1, 1},
                               {-1, -1, -1}, {1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {-1, 1, -1},
                               {1, -1, -1}, {-1, 1, 1}};
static const int SIDE = 160, PAD = SIDE + 2;
// an aligned layout: rows of 192 elements (768 or 1536 B), the interior from element 32 (a line
// start for floats and doubles), one row and plane of halo in y and z
static const int APX = 192, AOFF = 32, APY = SIDE + 2;

// SHIFT 0: every array read and written at the cell's index; 1: arrays padded by one cell on
// every side, array a read at the cell less velocity a (an LBM pull), written at the cell;
// 2: only the velocity's x (rows misaligned by one element); 3: only its y and z (other rows);
// 4: the padded layout of 1-3, no shift; 5: the aligned layout (APX), an LBM pull; 6: the aligned
// layout, no shift; 7: the padded layout, read at the cell, array a written at the cell plus
// velocity a (an LBM push); 8: read in the padded layout, written in the aligned one (only the
// loads' rows misaligned); 9: read aligned, written padded (only the stores' rows misaligned)
template <typename T, int N, int SHIFT>
__global__ void stream_kernel(Ptrs<T, N> p, long cells)
{
    extern __shared__ char unused[];
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cells)
        return;
    long x = i % SIDE, y = i / SIDE % SIDE, z = i / SIDE / SIDE;
    long padded = (x + 1) + (y + 1) * PAD + (z + 1) * (long)PAD * PAD;
    long aligned = (x + AOFF) + (y + 1) * APX + (z + 1) * (long)APX * APY;
    bool pad_in = (SHIFT >= 1 && SHIFT <= 4) || SHIFT == 7 || SHIFT == 8;
    bool pad_out = (SHIFT >= 1 && SHIFT <= 4) || SHIFT == 7 || SHIFT == 9;
    long at = SHIFT == 0 ? i : pad_in ? padded : aligned;
    long to = SHIFT == 0 ? i : pad_out ? padded : aligned;
    long px = pad_in ? PAD : APX, pxy = pad_in ? (long)PAD * PAD : (long)APX * APY;
    T v[N];
#pragma unroll
    for (int a = 0; a < N; a++) {
        long from = at;
        if (SHIFT == 1 || SHIFT == 2 || SHIFT == 5)
            from -= VEL[a][0];
        if (SHIFT == 1 || SHIFT == 3 || SHIFT == 5)
            from -= VEL[a][1] * px + VEL[a][2] * pxy;
        v[a] = __ldg(p.in[a] + from);
    }
#pragma unroll
    for (int a = 0; a < N; a++) {
        long dst = to;
        if (SHIFT == 7)
            dst += VEL[a][0] + VEL[a][1] * px + VEL[a][2] * pxy;
        p.out[a][dst] = v[(a + 1) % N] * (T)1.0001;
    }
    if (v[0] == (T)-12345.0)
        unused[0] = 1; // keeps the shared memory allocated
}

static const long CELLS = 160L * 160 * 160, ARRAY = 192L * 162 * 162;

template <typename T, int N, int SHIFT> static void run(FILE *out, char *pool)
{
    Ptrs<T, N> p;
    for (int a = 0; a < N; a++) {
        p.in[a] = (const T *)(pool + (size_t)a * ARRAY * sizeof(T));
        p.out[a] = (T *)(pool + (size_t)(N + a) * ARRAY * sizeof(T));
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    auto k = stream_kernel<T, N, SHIFT>;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)prop.sharedMemPerMultiprocessor - 1024));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    const int blocks_sizes[] = {160, 256};
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int bs : blocks_sizes)
        for (int want = 0; want <= 12; want++) { // 0: no shared memory (the resources' limit)
            size_t shared = 0;
            if (want > 0)
                shared = (prop.sharedMemPerMultiprocessor / want) / 128 * 128 - 1024;
            if (want > 0 && shared > (size_t)prop.sharedMemPerMultiprocessor - 1024)
                continue;
            int per_sm = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, bs, shared));
            if (per_sm == 0 || (want > 0 && per_sm != want))
                continue;
            long grid = (CELLS + bs - 1) / bs;
            std::vector<float> ms;
            for (int r = 0; r < 12; r++) {
                CK(cudaEventRecord(e0));
                k<<<grid, bs, shared>>>(p, CELLS);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                float t;
                CK(cudaEventElapsedTime(&t, e0, e1));
                if (r >= 2)
                    ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            double med = ms[ms.size() / 2];
            double bytes = 2.0 * N * CELLS * sizeof(T);
            fprintf(out, "%d,%d,%d,%d,%d,%zu,%d,%d,%.5f,%.1f\n", SHIFT, (int)sizeof(T), N, bs, want, shared,
                    per_sm, fa.numRegs, med, bytes / med / 1e6);
            fflush(out);
        }
}

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 3 && !strcmp(argv[2], "sides"))) {
        fprintf(stderr, "usage: streams OUT.csv [sides]\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out)
        return 1;
    fprintf(out, "shift,element_bytes,arrays_in,block,blocks_wanted,shared_bytes,blocks_per_sm,registers,ms,gbs\n");
    char *pool;
    CK(cudaMalloc(&pool, (size_t)2 * 27 * ARRAY * 8));
    CK(cudaMemset(pool, 0x3f, (size_t)2 * 27 * ARRAY * 8)); // 0.747f, 0.49: not zero pages
    if (argc == 3) { // which side's misaligned rows cost: a push, loads only, stores only
        run<float, 19, 7>(out, pool);
        run<double, 19, 7>(out, pool);
        run<float, 19, 8>(out, pool);
        run<double, 19, 8>(out, pool);
        run<float, 19, 9>(out, pool);
        run<double, 19, 9>(out, pool);
        run<double, 4, 7>(out, pool);
        run<double, 4, 8>(out, pool);
        run<double, 4, 9>(out, pool);
        run<double, 19, 4>(out, pool); // the padded layout again: the day's reference
        run<double, 19, 6>(out, pool);
        fclose(out);
        return 0;
    }
    run<float, 4, 0>(out, pool);
    run<float, 9, 0>(out, pool);
    run<float, 19, 0>(out, pool);
    run<float, 27, 0>(out, pool);
    run<double, 4, 0>(out, pool);
    run<double, 9, 0>(out, pool);
    run<double, 19, 0>(out, pool);
    run<double, 27, 0>(out, pool);
    run<float, 4, 4>(out, pool);
    run<float, 9, 4>(out, pool);
    run<float, 19, 4>(out, pool);
    run<float, 27, 4>(out, pool);
    run<double, 4, 4>(out, pool);
    run<double, 9, 4>(out, pool);
    run<double, 19, 4>(out, pool);
    run<double, 27, 4>(out, pool);
    run<float, 4, 5>(out, pool);
    run<float, 9, 5>(out, pool);
    run<float, 19, 5>(out, pool);
    run<float, 27, 5>(out, pool);
    run<double, 4, 5>(out, pool);
    run<double, 9, 5>(out, pool);
    run<double, 19, 5>(out, pool);
    run<double, 27, 5>(out, pool);
    run<float, 4, 6>(out, pool);
    run<float, 9, 6>(out, pool);
    run<float, 19, 6>(out, pool);
    run<float, 27, 6>(out, pool);
    run<double, 4, 6>(out, pool);
    run<double, 9, 6>(out, pool);
    run<double, 19, 6>(out, pool);
    run<double, 27, 6>(out, pool);
    run<float, 4, 1>(out, pool);
    run<float, 9, 1>(out, pool);
    run<float, 19, 1>(out, pool);
    run<float, 27, 1>(out, pool);
    run<double, 4, 1>(out, pool);
    run<double, 9, 1>(out, pool);
    run<double, 19, 1>(out, pool);
    run<double, 27, 1>(out, pool);
    fclose(out);
    return 0;
}
