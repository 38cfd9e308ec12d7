/*
 * test_resources: a user's kernels' registers, spills and memory from NVRTC's ptxas
 * report (cudagen/resources.c), without a GPU.
 *
 * 1. The report parser on fixed logs in NVRTC's and nvcc's wording (sm_75 with cmem,
 *    a called device function's properties, an old ptxas without barriers).
 * 2. Kernel lookup by ptxas name, by bare C++ name, and the refusals.
 * 3. With NVRTC: tests/data/registers_sample.cu for sm_90 gives exactly the numbers
 *    below, and the instruction mix counted in its PTX (test_sample_mix); sm_70 is refused
 * naming it and NVRTC's version (CUDA 13 dropped it); a syntax error quotes the log; -arch is
 * refused; the cache compiles once.
 *
 * The expected numbers, NVRTC 13.0 for sm_90. nvcc 13.0.88 (-arch=sm_90 -cubin -Xptxas
 * -v) prints the same registers (22 and 32), barriers and shared memory; its spills of
 * heavy<64> are 1672 B stack frame, 2640 B stores and 4288 B loads against NVRTC's
 * 1664, 2636 and 4264, because nvcc's front end addresses shared memory with 32-bit
 * pointers where NVRTC's uses 64-bit ones (their PTX differs there).
 *
 * Usage: test_resources SAMPLE.cu. Exit 77 (skipped) only when everything that can run
 * without NVRTC passed and NVRTC cannot be loaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cudagen.h"

static const char nvrtc_log[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z5heavyILi64EEvPKfPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z5heavyILi64EEvPKfPf\n"
    "ptxas         .     1664 bytes stack frame, 2636 bytes spill stores, 4264 bytes spill "
    "loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 1664 bytes cumulative stack size, "
    "1024 bytes smem\n"
    "ptxas info    : Compile time = 404.142 ms\n"
    "ptxas info    : Function properties for _Z6helperf\n"
    "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'stencil7' for 'sm_90'\n"
    "ptxas info    : Function properties for stencil7\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 22 registers, used 0 barriers\n";

static const char nvcc_log_sm75[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'stencil7' for 'sm_75'\n"
    "ptxas info    : Function properties for stencil7\n"
    "    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 22 registers, used 0 barriers, 372 bytes cmem[0], 8 bytes "
    "cmem[2]\n";

static const char old_log[] = "ptxas info    : Compiling entry function 'k' for 'sm_35'\n"
                              "ptxas info    : Used 40 registers, 336 bytes cmem[0]\n";

static void test_parser(void)
{
    static cg_usage u;
    lr_error err;
    lr_error_clear(&err);
    CHECK_INT(cg_usage_parse_log(nvrtc_log, &u, &err), 0);
    CHECK_INT(u.nkernels, 2);
    CHECK_STR(u.kernel[0].name, "_Z5heavyILi64EEvPKfPf");
    CHECK_INT(u.kernel[0].registers, 32);
    CHECK_INT(u.kernel[0].barriers, 1);
    CHECK_INT(u.kernel[0].stack_bytes, 1664);
    CHECK_INT(u.kernel[0].spill_store_bytes, 2636);
    CHECK_INT(u.kernel[0].spill_load_bytes, 4264);
    CHECK_INT(u.kernel[0].shared_bytes, 1024);
    CHECK_INT(u.kernel[0].constant_bytes, -1); /* not reported for sm_90 */
    /* the called device function's frame is not stencil7's */
    CHECK_STR(u.kernel[1].name, "stencil7");
    CHECK_INT(u.kernel[1].registers, 22);
    CHECK_INT(u.kernel[1].stack_bytes, 0);
    CHECK_INT(u.kernel[1].spill_store_bytes, 0);

    CHECK_INT(cg_usage_parse_log(nvcc_log_sm75, &u, &err), 0);
    CHECK_INT(u.nkernels, 1);
    CHECK_INT(u.kernel[0].stack_bytes, 16);
    CHECK_INT(u.kernel[0].constant_bytes, 380);

    CHECK_INT(cg_usage_parse_log(old_log, &u, &err), 0);
    CHECK_INT(u.kernel[0].registers, 40);
    CHECK_INT(u.kernel[0].barriers, -1);
    CHECK_INT(u.kernel[0].constant_bytes, 336);

    CHECK_INT(cg_usage_parse_log("ptxas info    : 0 bytes gmem\n", &u, &err), -1);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    CHECK_CONTAINS(err.message, "no kernel");
    lr_error_clear(&err);
    CHECK_INT(cg_usage_parse_log("ptxas info    : Compiling entry function 'k' for 'sm_90'\n",
                                 &u, &err),
              -1);
    CHECK_INT(err.code, LR_INTERNAL);
    CHECK_CONTAINS(err.message, "Used N registers");
}

static void test_find(void)
{
    static cg_usage u;
    lr_error err;
    lr_error_clear(&err);
    CHECK_INT(cg_usage_parse_log(nvrtc_log, &u, &err), 0);
    const cg_kernel_usage *k = cg_usage_find(&u, "stencil7", &err);
    CHECK(k && k->registers == 22);
    k = cg_usage_find(&u, "_Z5heavyILi64EEvPKfPf", &err);
    CHECK(k && k->registers == 32);
    k = cg_usage_find(&u, "heavy", &err);
    CHECK(k && k->registers == 32);
    CHECK(!cg_usage_find(&u, "heav", &err));
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    CHECK_CONTAINS(err.message, "no kernel 'heav'; it defines _Z5heavyILi64EEvPKfPf, stencil7");
    lr_error_clear(&err);
    CHECK(!cg_usage_find(&u, NULL, &err));
    CHECK_CONTAINS(err.message, "defines 2 kernels");

    char arch[16];
    CHECK_INT(cg_arch_of_device("H200-SXM-141GB", arch), 0);
    CHECK_STR(arch, "sm_90");
    CHECK_INT(cg_arch_of_device("A100-SXM4-80GB", arch), 0);
    CHECK_STR(arch, "sm_80");
    CHECK_INT(cg_arch_of_device("V100-PCIe-32GB", arch), 0);
    CHECK_STR(arch, "sm_70");
    CHECK_INT(cg_arch_of_device("K20m", arch), 0);
    CHECK_STR(arch, "sm_35");
    CHECK_INT(cg_arch_of_device("my-gpu", arch), -1);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s = NULL;
    long n;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (s = calloc(1, (size_t)n + 1)) && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (f)
        fclose(f);
    return s;
}

/* The instruction mix counted in the sample's PTX (cudagen/ptxcount.c): NVRTC 13.0's
 * exact counts (stencil7: fp64 7, integer 22, other 40; heavy<64>: fp32 576, integer
 * 192, other 205, every path the likely one); under another NVRTC stencil7's 7 fp64
 * instructions (six adds, one multiply) and no loop or call. */
static void test_sample_mix(const cg_usage *u, const cg_kernel_usage *s,
                            const cg_kernel_usage *h)
{
    CHECK(s->has_mix && h->has_mix);
    CHECK_NEAR(s->mix.path.fp64, 7, 0, 1e-9);
    CHECK(s->mix.path.integer > 0 && s->mix.path.other > 0);
    CHECK_INT(s->mix.loops + h->mix.loops + s->mix.calls + h->mix.calls, 0);
    if (u->nvrtc_version[0] != 13 || u->nvrtc_version[1] != 0)
        return;
    const double want[3][5] = {{0, 7, 0, 22, 40}, {576, 0, 0, 192, 205}, {576, 0, 0, 192, 205}};
    const cg_instruction_mix *got[3] = {&s->mix.path, &h->mix.path, &h->mix.all};
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(got[i]->fp32, want[i][0], 0, 1e-9);
        CHECK_NEAR(got[i]->fp64, want[i][1], 0, 1e-9);
        CHECK_NEAR(got[i]->special, want[i][2], 0, 1e-9);
        CHECK_NEAR(got[i]->integer, want[i][3], 0, 1e-9);
        CHECK_NEAR(got[i]->other, want[i][4], 0, 1e-9);
    }
}

/* The compile tests; 77 when NVRTC cannot be loaded. */
static int test_nvrtc(const char *sample)
{
    static cg_usage u;
    lr_error err;
    lr_error_clear(&err);
    char *src = read_file(sample);
    CHECK(src != NULL);
    if (!src)
        return 1;
    if (cg_usage_compile(src, "registers_sample.cu", "sm_90", NULL, 0, &u, &err) &&
        err.code == LR_UNAVAILABLE && strstr(err.message, "not found")) {
        free(src);
        return 77;
    }
    CHECK_STR(err.message, "");
    CHECK_INT(u.nkernels, 2);
    const cg_kernel_usage *s = cg_usage_find(&u, "stencil7", &err),
                          *h = cg_usage_find(&u, "heavy", &err);
    CHECK(s && h);
    if (s && h) {
        CHECK_INT(s->registers, 22);
        CHECK_INT(s->spill_store_bytes + s->spill_load_bytes + s->stack_bytes, 0);
        CHECK_INT(s->shared_bytes, 0);
        CHECK_INT(h->registers, 32);
        CHECK_INT(h->barriers, 1);
        CHECK_INT(h->shared_bytes, 1024);
        /* NVRTC 13.0's spills (nvcc's differ by a few bytes, see the header); a later
         * NVRTC may spill otherwise, so spills are only required present */
        if (u.nvrtc_version[0] == 13 && u.nvrtc_version[1] == 0) {
            CHECK_INT(h->stack_bytes, 1664);
            CHECK_INT(h->spill_store_bytes, 2636);
            CHECK_INT(h->spill_load_bytes, 4264);
        }
        CHECK(h->spill_store_bytes > 0 && h->spill_load_bytes > 0);
        test_sample_mix(&u, s, h);
    }

    /* CUDA 13 cannot target Volta: refused, naming the architecture and the NVRTC */
    char want[64];
    snprintf(want, sizeof want, "NVRTC %d.%d cannot compile for sm_70", u.nvrtc_version[0],
             u.nvrtc_version[1]);
    lr_error_clear(&err);
    if (u.nvrtc_version[0] >= 13) {
        CHECK_INT(cg_usage_compile(src, NULL, "sm_70", NULL, 0, &u, &err), -1);
        CHECK_INT(err.code, LR_UNAVAILABLE);
        CHECK_CONTAINS(err.message, want);
    }

    lr_error_clear(&err);
    CHECK_INT(cg_usage_compile("__global__ void k() { undefined_name = 1; }", "broken.cu",
                               "sm_90", NULL, 0, &u, &err),
              -1);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    CHECK_CONTAINS(err.message, "could not compile it for sm_90: broken.cu(1): error");
    CHECK_CONTAINS(err.message, "undefined_name");

    const char *arch_opt[] = {"-arch=sm_80"};
    lr_error_clear(&err);
    CHECK_INT(cg_usage_compile(src, NULL, "sm_90", arch_opt, 1, &u, &err), -1);
    CHECK_CONTAINS(err.message, "'-arch=sm_80', is refused");

    /* one compile per (source, architecture, options), errors of the source included */
    cg_usage_cache *c = cg_usage_cache_new();
    const char *maxr[] = {"-maxrregcount=24"};
    int compiled = -1;
    lr_error_clear(&err);
    CHECK_INT(cg_usage_cache_compile(c, src, NULL, "sm_90", maxr, 1, &u, &compiled, &err), 0);
    CHECK_INT(compiled, 1);
    s = cg_usage_find(&u, "stencil7", &err);
    CHECK(s && s->registers <= 24);
    CHECK_INT(cg_usage_cache_compile(c, src, NULL, "sm_90", maxr, 1, &u, &compiled, &err), 0);
    CHECK_INT(compiled, 0);
    CHECK_INT(cg_usage_cache_compile(c, src, NULL, "sm_90", NULL, 0, &u, &compiled, &err), 0);
    CHECK_INT(compiled, 1);
    s = cg_usage_find(&u, "stencil7", &err);
    CHECK(s && s->registers == 22);
    for (int i = 0; i < 2; i++) {
        lr_error_clear(&err);
        CHECK_INT(cg_usage_cache_compile(c, "__global__ void k( {}", NULL, "sm_90", NULL, 0, &u,
                                         &compiled, &err),
                  -1);
        CHECK_INT(compiled, i == 0);
        CHECK_INT(err.code, LR_INVALID_REQUEST);
    }
    cg_usage_cache_free(c);
    free(src);
    return 0;
}

int main(int argc, char **argv)
{
    test_parser();
    test_find();
    int rc = argc > 1 ? test_nvrtc(argv[1]) : 0;
    if (rc == 77 && check_failures == 0) {
        fprintf(stderr, "test_resources: NVRTC cannot be loaded: skipping the compile tests\n");
        return 77;
    }
    printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}
