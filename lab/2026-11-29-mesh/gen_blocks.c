/* Writes Langguth's synthetic diagonal-block neighbour array (gen_blocks.h says how it is
 * drawn) as int32 little-endian, 4*N entries, entry 4*x+j = neighbour j of cell x:
 *   ./gen_blocks N B OUT.i32
 * and the random ordering of an N-cell mesh (p[i] = new index of cell i):
 *   ./gen_blocks --perm N OUT.i32
 * Prints the FNV-1a 64 hash of the bytes written, which mesh_bench prints too.
 * Build: gcc -O2 -std=c11 -o gen_blocks gen_blocks.c (or g++ / nvcc -x cu). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen_blocks.h"

static uint64_t fnv1a(const void *p, size_t len)
{
    const unsigned char *c = (const unsigned char *)p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) { h ^= c[i]; h *= 0x100000001b3ull; }
    return h;
}

int main(int argc, char **argv)
{
    int perm = argc == 4 && strcmp(argv[1], "--perm") == 0;
    if (argc != 4) {
        fprintf(stderr, "usage: gen_blocks N B OUT.i32 | gen_blocks --perm N OUT.i32\n");
        return 2;
    }
    unsigned long n = strtoul(argv[perm ? 2 : 1], NULL, 0);
    unsigned long b = perm ? 0 : strtoul(argv[2], NULL, 0);
    if (n == 0 || n > 0x7fffffffUL || (!perm && (b == 0 || b > n))) {
        fprintf(stderr, "bad N or B\n");
        return 2;
    }
    size_t cnt = perm ? n : 4 * (size_t)n;
    int32_t *a = (int32_t *)malloc(cnt * sizeof(int32_t));
    if (!a) { perror("malloc"); return 1; }
    if (perm) random_perm((uint32_t)n, a);
    else gen_blocks_fill((uint32_t)n, (uint32_t)b, a);
    /* int32 little-endian: this host and the device are x86-64 (little-endian) */
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(a, sizeof(int32_t), cnt, f) != cnt || fclose(f) != 0) {
        perror(argv[3]);
        return 1;
    }
    printf("%s n=%lu b=%lu fnv1a=%016llx\n", argv[3], n, b,
           (unsigned long long)fnv1a(a, cnt * sizeof(int32_t)));
    free(a);
    return 0;
}
