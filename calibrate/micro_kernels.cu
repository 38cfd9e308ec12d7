// The calibration microbenchmarks (calibrate/micro.c, docs/calibration.md), one source
// compiled once with NVRTC; micro.c loads one entry at a time. Every kernel that reads
// sums what it read into acc and stores it only if it equals a value the data never
// gives (all buffers are zero-filled), so the compiler cannot drop the loads.
typedef unsigned long long u64;

__device__ __forceinline__ u64 global_ns()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Thread 0 of each block writes [clock64 start, end, globaltimer start, end] of the
// whole block (the barrier waits for its last warp: warps of one block do not finish
// together): the SM clock under this load is (end - start cycles) / (end - start ns).
#define CLOCK_BEGIN u64 c0 = clock64(), g0 = global_ns();
#define CLOCK_END(times)                                                    \
    __syncthreads();                                                        \
    if (threadIdx.x == 0) {                                                 \
        u64 c1 = clock64(), g1 = global_ns();                               \
        times[4 * blockIdx.x + 0] = c0; times[4 * blockIdx.x + 1] = c1;     \
        times[4 * blockIdx.x + 2] = g0; times[4 * blockIdx.x + 3] = g1;     \
    }

// Streaming read through L2 (ld.global.cg: not cached in L1). Thread t reads the
// 16-byte elements t, t + T, t + 2T, ... (T threads in all) modulo n, so each round of
// the grid reads T consecutive elements, coalesced; step = T mod n. U independent
// loads per thread are in flight at once (the loop body waits for them all).
#define STREAM(U)                                                                       \
    extern "C" __global__ void lr_stream##U(const float4 *buf, u64 n, u64 step,         \
                                            int iters, float *out, u64 *times)           \
    {                                                                                   \
        CLOCK_BEGIN                                                                     \
        u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x, i = tid % n;              \
        float acc = 0.f;                                                                \
        for (int it = 0; it < iters; it++) {                                            \
            float4 v[U];                                                                \
            _Pragma("unroll") for (int u = 0; u < U; u++) {                             \
                v[u] = __ldcg(buf + i);                                                 \
                i += step;                                                              \
                if (i >= n) i -= n;                                                     \
            }                                                                           \
            _Pragma("unroll") for (int u = 0; u < U; u++) acc += v[u].x + v[u].y + v[u].z + v[u].w; \
        }                                                                               \
        if (acc == 1.25f) out[tid] = acc;                                               \
        CLOCK_END(times)                                                                \
    }
STREAM(1)
STREAM(2)
STREAM(4)
STREAM(8)

// Writes the pointer-chasing chain: K lines chosen as (k * mult) mod nlines (a
// bijection: nlines is a power of two, mult odd), each holding the element index of
// the next, the last pointing back to the first.
extern "C" __global__ void lr_chain(u64 *buf, u64 nlines, u64 k_lines, u64 mult, u64 line_elems)
{
    u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= k_lines)
        return;
    u64 a = k * mult & (nlines - 1), b = (k + 1) % k_lines * mult & (nlines - 1);
    buf[a * line_elems] = b * line_elems;
}

// One thread follows the chain for steps loads: out = [last index, cycles, ns]. With
// warm, an untimed pass of as many loads comes first, in the same launch: a kernel
// launch invalidates L1, so a warm-up launch would leave nothing in L1.
// ca: cached in L1 and L2; cg: in L2 only.
#define CHASE(KIND)                                                                     \
    extern "C" __global__ void lr_chase_##KIND(const u64 *buf, u64 start, int steps, int warm, \
                                               u64 *out)                                \
    {                                                                                   \
        u64 j = start;                                                                  \
        for (int s = 0; warm && s < steps; s++)                                         \
            asm volatile("ld.global." #KIND ".u64 %0, [%1];" : "=l"(j) : "l"(buf + j) : "memory"); \
        u64 c0 = clock64(), g0 = global_ns();                                           \
        for (int s = 0; s < steps; s++)                                                \
            asm volatile("ld.global." #KIND ".u64 %0, [%1];" : "=l"(j) : "l"(buf + j) : "memory"); \
        u64 c1 = clock64(), g1 = global_ns();                                           \
        out[0] = j; out[1] = c1 - c0; out[2] = g1 - g0;                                 \
    }
CHASE(ca)
CHASE(cg)

// L1 throughput: every warp reads the same 32 KiB window (L1-resident after the first
// pass: each SM's L1 keeps its own copy), lane l at element l * S (4-byte elements),
// so one warp instruction touches S 128-byte lines (S <= 32); 8 independent loads per
// iteration, at distinct lines. The addresses move on by one more line than the
// iteration read (so never by a multiple of the window): loads of the same addresses
// in every iteration would be hoisted out of the loop by ptxas.
#define L1(S)                                                                           \
    extern "C" __global__ void lr_l1_s##S(const float *buf, int iters, float *out, u64 *times) \
    {                                                                                   \
        CLOCK_BEGIN                                                                     \
        const unsigned lane = threadIdx.x & 31;                                         \
        float acc = 0.f;                                                                \
        for (int it = 0; it < iters; it++) {                                            \
            unsigned base = (unsigned)it * (8 * 32 * S + 32) + lane * S;                       \
            float v[8];                                                                 \
            _Pragma("unroll") for (int u = 0; u < 8; u++)                               \
                asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(v[u])                   \
                             : "l"(buf + ((base + u * 32 * S) & 8191u)));                \
            _Pragma("unroll") for (int u = 0; u < 8; u++) acc += v[u];                  \
        }                                                                               \
        if (acc == 1.25f) out[blockIdx.x * blockDim.x + threadIdx.x] = acc;             \
        CLOCK_END(times)                                                                \
    }
L1(1)
L1(2)
L1(4)
L1(8)
L1(16)
L1(32)

// Compute-bound clock: four independent FMA chains per thread.
extern "C" __global__ void lr_fma(int iters, float *out, u64 *times)
{
    CLOCK_BEGIN
    float a = threadIdx.x * 1e-3f, b = a + 1.f, c = a + 2.f, d = a + 3.f;
    for (int it = 0; it < iters; it++) {
        a = fmaf(a, 0.999f, 1e-3f);
        b = fmaf(b, 0.999f, 1e-3f);
        c = fmaf(c, 0.999f, 1e-3f);
        d = fmaf(d, 0.999f, 1e-3f);
    }
    if (a + b + c + d == 1.25f) out[blockIdx.x * blockDim.x + threadIdx.x] = a;
    CLOCK_END(times)
}
