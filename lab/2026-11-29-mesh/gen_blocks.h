/* Deterministic inputs of the mesh campaign, shared by gen_blocks.c (gcc, here) and
 * mesh_bench.cu (nvcc, on the device), so both make the same bytes.
 *
 * splitmix64 (Steele, Lea, Flood 2014; Vigna's reference code): state += 0x9E3779B97F4A7C15,
 * then the usual xor-shift-multiply finaliser.
 *
 * Langguth's synthetic diagonal blocks (gen_blocks_fill): n cells in consecutive blocks of
 * b cells (the last block may be shorter when b does not divide n); cell x's 4 neighbours
 * are drawn uniformly inside its own block [s, s+len), s = (x/b)*b, len = min(b, n-s):
 *   r = splitmix64(&state); nbr[4*x+j] = s + (uint32)(((r >> 32) * len) >> 32)
 * for x = 0..n-1, j = 0..3 in that order, from one state seeded with
 *   seed = 0x4C414E4755544832 ^ b          ("LANGUTH2" as ASCII, xor the block size)
 * A neighbour may be the cell itself (as a boundary face is); nothing else is excluded.
 * Lemire's multiply-shift has a bias of at most len/2^32, negligible here.
 *
 * The random ordering (random_perm) of a mesh of n cells: Fisher-Yates on the identity,
 * for i = n-1 down to 1: k = ((splitmix64(&s) >> 32) * (i+1)) >> 32, swap p[i], p[k];
 * seed = 0x52414E444F4D5031 ^ n ("RANDOMP1" xor n). p[i] is the new index of cell i.
 *
 * u and w (fill_values): u[x] = uniform in [-1, 1), w[k] = uniform in [0.5, 1.5), from
 * splitmix64 seeded with 0x5556414C55455331 ^ n ("UVALUES1" xor n): first n values of u,
 * then 4n of w; uniform = (r >> 11) * 2^-53.
 */
#ifndef GEN_BLOCKS_H
#define GEN_BLOCKS_H
#include <stdint.h>
#include <stddef.h>

static inline uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void gen_blocks_fill(uint32_t n, uint32_t b, int32_t *nbr)
{
    uint64_t st = 0x4C414E4755544832ull ^ (uint64_t)b;
    for (uint32_t x = 0; x < n; x++) {
        uint32_t s = (x / b) * b;
        uint64_t len = (uint64_t)((n - s) < b ? (n - s) : b);
        for (int j = 0; j < 4; j++) {
            uint64_t r = splitmix64(&st);
            nbr[4 * (size_t)x + j] = (int32_t)(s + (uint32_t)(((r >> 32) * len) >> 32));
        }
    }
}

static inline void random_perm(uint32_t n, int32_t *p)
{
    uint64_t st = 0x52414E444F4D5031ull ^ (uint64_t)n;
    for (uint32_t i = 0; i < n; i++) p[i] = (int32_t)i;
    for (uint32_t i = n - 1; i >= 1; i--) {
        uint32_t k = (uint32_t)(((splitmix64(&st) >> 32) * (uint64_t)(i + 1)) >> 32);
        int32_t t = p[i]; p[i] = p[k]; p[k] = t;
    }
}

static inline double unif01(uint64_t *st)
{
    return (double)(splitmix64(st) >> 11) * (1.0 / 9007199254740992.0);
}

static inline void fill_values(uint32_t n, double *u, double *w)
{
    uint64_t st = 0x5556414C55455331ull ^ (uint64_t)n;
    for (uint32_t x = 0; x < n; x++) u[x] = 2.0 * unif01(&st) - 1.0;
    for (size_t k = 0; k < 4 * (size_t)n; k++) w[k] = 0.5 + unif01(&st);
}

/* nbr2[4*p[i]+j] = p[nbr[4*i+j]] */
static inline void permute_nbr(uint32_t n, const int32_t *nbr, const int32_t *p, int32_t *nbr2)
{
    for (uint32_t i = 0; i < n; i++)
        for (int j = 0; j < 4; j++)
            nbr2[4 * (size_t)p[i] + j] = p[nbr[4 * (size_t)i + j]];
}
#endif
