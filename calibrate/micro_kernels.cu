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

// ---- instruction rates (micro.c, "rates") ----
// Each thread runs RATE_CHAINS independent dependency chains (the GPU's latency hidden
// by them and by 64 warps per SM); RATE_REP steps of every chain per loop iteration, so
// the loop's own instructions (a counter, a compare, a branch) are 2-3 % of the body.
// The per-iteration counts micro.c divides by (rate_bench) are these: change both.
// __launch_bounds__(1024, 2): at most 32 registers, so that the two blocks per SM
// micro.c launches are both resident and the per-block clocks span the same cycles.
#define RATE_REP16(X) X X X X X X X X X X X X X X X X
#define RATE_REP4(X) X X X X

// fp32 and fp64: 8 FMA chains, 16 steps: 128 FMA per iteration. k is a run-time value:
// the compiler cannot fold the chains (fma is not reassociated without fast math); the
// one body serves both types (fma overloads: FFMA for float, DFMA for double).
template <typename T>
__device__ __forceinline__ void rate_fma(int iters, T k, float *out, u64 *times)
{
    CLOCK_BEGIN
    T a0 = threadIdx.x * T(1e-3), a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4,
      a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
    for (int it = 0; it < iters; it++) {
        RATE_REP16(a0 = fma(a0, k, k); a1 = fma(a1, k, k); a2 = fma(a2, k, k);
                   a3 = fma(a3, k, k); a4 = fma(a4, k, k); a5 = fma(a5, k, k);
                   a6 = fma(a6, k, k); a7 = fma(a7, k, k);)
    }
    if (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 == T(1.25))
        out[blockIdx.x * blockDim.x + threadIdx.x] = (float)a0;
    CLOCK_END(times)
}

extern "C" __global__ void __launch_bounds__(1024, 2)
lr_rate_fp32(int iters, float k, float *out, u64 *times)
{
    rate_fma(iters, k, out, times);
}

extern "C" __global__ void __launch_bounds__(1024, 2)
lr_rate_fp64(int iters, double k, float *out, u64 *times)
{
    rate_fma(iters, k, out, times);
}

// special functions: each step of each of 8 chains is a reciprocal square root and a
// base-2 exponential (ex2.approx.ftz and rsqrt.approx.ftz: one MUFU instruction each,
// no range reduction around them); the values stay in [0.5, 3]. 4 steps: 64 MUFU per
// iteration.
__device__ __forceinline__ float rate_mufu(float x)
{
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(x) : "f"(y));
    return x;
}

extern "C" __global__ void __launch_bounds__(1024, 2)
lr_rate_special(int iters, float k, float *out, u64 *times)
{
    CLOCK_BEGIN
    float a0 = k + threadIdx.x * 1e-6f, a1 = a0 + 0.1f, a2 = a0 + 0.2f, a3 = a0 + 0.3f,
          a4 = a0 + 0.4f, a5 = a0 + 0.5f, a6 = a0 + 0.6f, a7 = a0 + 0.7f;
    for (int it = 0; it < iters; it++) {
        RATE_REP4(a0 = rate_mufu(a0); a1 = rate_mufu(a1); a2 = rate_mufu(a2);
                  a3 = rate_mufu(a3); a4 = rate_mufu(a4); a5 = rate_mufu(a5);
                  a6 = rate_mufu(a6); a7 = rate_mufu(a7);)
    }
    if (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 == 1.25f)
        out[blockIdx.x * blockDim.x + threadIdx.x] = a0;
    CLOCK_END(times)
}

// 32-bit integer: each step of each of 8 chains rotates by one bit (a funnel shift,
// SHF) and XORs a run-time value (LOP3). Neither is an IMAD, which runs on the FMA
// pipe, and the pair cannot merge into one instruction (a plain add can become IMAD.IADD;
// two logic operations in a row merge into one LOP3). 16 steps: 256 per iteration.
__device__ __forceinline__ unsigned rate_alu(unsigned x, unsigned k)
{
    unsigned y;
    asm("shf.l.wrap.b32 %0, %1, %1, 1;" : "=r"(y) : "r"(x));
    return y ^ k;
}

extern "C" __global__ void __launch_bounds__(1024, 2)
lr_rate_integer(int iters, unsigned k, float *out, u64 *times)
{
    CLOCK_BEGIN
    unsigned a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5,
             a6 = a0 + 6, a7 = a0 + 7;
    for (int it = 0; it < iters; it++) {
        RATE_REP16(a0 = rate_alu(a0, k); a1 = rate_alu(a1, k); a2 = rate_alu(a2, k);
                   a3 = rate_alu(a3, k); a4 = rate_alu(a4, k); a5 = rate_alu(a5, k);
                   a6 = rate_alu(a6, k); a7 = rate_alu(a7, k);)
    }
    if ((a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7) == 0x12345u)
        out[blockIdx.x * blockDim.x + threadIdx.x] = (float)a0;
    CLOCK_END(times)
}

// Issue: a mix no single pipe limits, 6 FFMA chains and one integer chain (SHF, LOP3):
// 8 instructions a step, 6 of them on the FMA pipe (3/4 of its rate at full issue) and 2
// on the integer pipe (1/4 of issue, half its rate on GPUs of 64 integer lanes). 16
// steps: 128 instructions per iteration.
extern "C" __global__ void __launch_bounds__(1024, 2)
lr_rate_issue(int iters, float k, unsigned m, float *out, u64 *times)
{
    CLOCK_BEGIN
    float a0 = threadIdx.x * 1e-3f, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4,
          a5 = a0 + 5;
    unsigned b = threadIdx.x;
    for (int it = 0; it < iters; it++) {
        RATE_REP16(a0 = fmaf(a0, k, k); a1 = fmaf(a1, k, k); a2 = fmaf(a2, k, k);
                   b = rate_alu(b, m); a3 = fmaf(a3, k, k); a4 = fmaf(a4, k, k);
                   a5 = fmaf(a5, k, k);)
    }
    if (a0 + a1 + a2 + a3 + a4 + a5 == 1.25f || b == 0x12345u)
        out[blockIdx.x * blockDim.x + threadIdx.x] = a0;
    CLOCK_END(times)
}
