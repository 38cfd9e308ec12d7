/*
 * test_cudagen: code generation without a GPU (cudagen/cudagen.h).
 *
 * 1. Golden sources: the generated CUDA of four kernels (tests/cudagen/kernels.h)
 *    is compared byte for byte with tests/cudagen/golden/<name>.cu. After an
 *    intended change of the generator, run with LR_REGEN_GOLDEN=1 to rewrite them,
 *    and read the diff.
 * 2. NVRTC compiles each to PTX for compute_75, compute_80 and compute_90; a folded
 *    stencil's PTX loads each element once per thread (the model's register reuse).
 * 3. The C printer, configuration checks and field layout, with exact expectations.
 * 4. The runner against a fake GPU backend: errors on every step come back as
 *    values with all device memory released, and timing statistics are right.
 *
 * Usage: test_cudagen [golden-dir]. Exit 77 (skipped) only when everything that
 * can run without NVRTC passed and NVRTC cannot be loaded at all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cudagen_int.h"
#include "kernels.h"

typedef struct golden_case {
    const char *name;
    est_kernel *k;
    est_config cfg;
} golden_case;

/* ---- golden sources ---- */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(s = malloc((size_t)n + 1))) {
        fclose(f);
        return NULL;
    }
    if (fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        fclose(f);
        return NULL;
    }
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Prints the first line where got and want differ, so a failure is readable. */
static void show_difference(const char *name, const char *got, const char *want)
{
    int lineno = 1;
    const char *g = got, *w = want;
    while (*g && *g == *w) {
        lineno += *g == '\n';
        g++;
        w++;
    }
    while (g > got && g[-1] != '\n')
        g--, w--;
    fprintf(stderr, "%s.cu differs at line %d:\n  got:  %.*s\n  want: %.*s\n", name, lineno,
            (int)strcspn(g, "\n"), g, (int)strcspn(w, "\n"), w);
}

static void test_golden(const golden_case *c, const char *dir, int regen)
{
    char path[1024], *want;
    lr_error err;
    char *src;

    lr_error_clear(&err);
    src = cg_emit_source(c->k, &c->cfg, &err);
    CHECK(src != NULL);
    if (!src) {
        fprintf(stderr, "%s: %s\n", c->name, err.message);
        return;
    }
    snprintf(path, sizeof path, "%s/%s.cu", dir, c->name);
    if (regen) {
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        if (f) {
            fputs(src, f);
            fclose(f);
            fprintf(stderr, "wrote %s\n", path);
        }
    } else {
        want = read_file(path);
        if (!want)
            fprintf(stderr, "cannot read %s (LR_REGEN_GOLDEN=1 writes it)\n", path);
        CHECK(want != NULL);
        if (want && strcmp(src, want) != 0)
            show_difference(c->name, src, want);
        CHECK(want && strcmp(src, want) == 0);
        free(want);
    }
    free(src);
}

/* Returns 0 when compiled for every architecture, 1 when NVRTC is missing. */
static int test_nvrtc(const golden_case *c)
{
    static const char *const archs[] = {"compute_75", "compute_80", "compute_90"};
    lr_error err;
    char *src, *image, *log;
    size_t size;

    lr_error_clear(&err);
    if (!(src = cg_emit_source(c->k, &c->cfg, &err)))
        return 0; /* reported by test_golden */
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
        int rc = cg_compile(src, archs[i], &image, &size, &log, &err);
        if (rc < 0 && err.code == LR_UNAVAILABLE && strstr(err.message, "not found")) {
            fprintf(stderr, "%s\n", err.message);
            free(src);
            return 1;
        }
        if (rc < 0)
            fprintf(stderr, "%s for %s: %s\n", c->name, archs[i], err.message);
        CHECK_INT(rc, 0);
        if (rc == 0) {
            CHECK(size > 100 && image[size - 1] == '\0');
            CHECK_CONTAINS(image, ".entry lr_kernel");
            /* a clean source compiles without warnings */
            if (log && log[0])
                fprintf(stderr, "%s for %s: NVRTC log: %s\n", c->name, archs[i], log);
            CHECK(!log || !log[0]);
        }
        free(image);
        free(log);
    }
    /* the cubin path, and a compile error that reports NVRTC's log */
    CHECK_INT(cg_compile(src, "sm_80", &image, &size, NULL, &err), 0);
    CHECK(size > 100 && image && memcmp(image, "\177ELF", 4) == 0);
    free(image);
    free(src);
    return 0;
}

static void test_compile_errors(void)
{
    lr_error err;
    char *image = (char *)1, *log = NULL;
    size_t size = 1;

    lr_error_clear(&err);
    CHECK_INT(cg_compile("extern \"C\" __global__ void k() { undeclared = 1; }", "compute_80",
                         &image, &size, &log, &err),
              -1);
    CHECK_INT(err.code, LR_INTERNAL);
    CHECK_CONTAINS(err.message, "undeclared");
    CHECK(image == NULL && size == 0);
    CHECK_CONTAINS(log, "undeclared");
    free(log);

    lr_error_clear(&err);
    CHECK_INT(cg_compile("", "vulkan_1", &image, &size, NULL, &err), -1);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    lr_error_clear(&err);
    CHECK_INT(cg_compile("", "compute_10", &image, &size, NULL, &err), -1);
    CHECK_INT(err.code, LR_UNAVAILABLE);
    CHECK_CONTAINS(err.message, "cannot compile for compute_10");
}

/* Counts the global loads in the PTX NVRTC makes of kernel k under cfg (-1 when it
 * does not compile). */
static int ptx_loads(const est_kernel *k, const est_config *cfg)
{
    lr_error err;
    char *src, *image = NULL;
    size_t size;
    int n = -1;

    lr_error_clear(&err);
    if (!(src = cg_emit_source(k, cfg, &err)))
        return -1;
    if (cg_compile(src, "compute_90", &image, &size, NULL, &err) == 0) {
        n = 0;
        for (const char *p = image; (p = strstr(p, "ld.global")); p++)
            n++;
    }
    free(image);
    free(src);
    return n;
}

/* docs/model.md, "Register reuse across folding steps": a 7-point stencil folded 4 in z
 * loads 7 elements per point, 28 per thread, of which the centre column z-1 .. z+4 is
 * 6 distinct ones instead of 12, so 22 loads with __restrict__ (the generated code
 * computes every step's sum before it stores); without it the stores in between make
 * the compiler load all 28. The domain is a multiple of block x folding, so only the
 * deferred form is emitted. */
static void test_register_reuse(void)
{
    est_kernel *k = tk_3d7pt(64, 32, 32);
    est_config c = tk_config(64, 32, 32, 32, 4, 1, 1, 1, 4);

    CHECK_INT(ptx_loads(k, &c), 22);
    est_kernel_set_model(k, EST_MODEL_V2, 0);
    CHECK_INT(ptx_loads(k, &c), 28);
    est_kernel_free(k);
}

/* ---- printer, checks, layout ---- */

static void test_print_c(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"x + 1", "x + 1"},
        {"x - (y + 1)", "x - (y + 1)"},
        {"-x + 3", "(-x) + 3"},
        {"(x - 1) / 2", "lr_floordiv(x - 1, 2)"},
        {"(x + 3) % 4 * 2", "lr_floormod(x + 3, 4) * 2"},
        {"threadIdx.x + blockIdx.x*blockDim.x", "tix + bix * bdx"},
        {"x - -3", "x - (-3)"},
        {"2 * (tidx - 1)", "2 * (tidx - 1)"},
        {"x / blockDim.x", "lr_floordiv(x, bdx)"},
    };
    const char *text[EST_VAR_COUNT] = {NULL};
    lr_error err;

    text[EST_VAR_THREADIDX_X] = "tix";
    text[EST_VAR_BLOCKIDX_X] = "bix";
    text[EST_VAR_BLOCKDIM_X] = "bdx";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        est_expr *e;
        char *s;
        lr_error_clear(&err);
        e = est_expr_parse(cases[i].in, NULL, 0, "t", &err);
        CHECK(e != NULL);
        s = cg_print_expr(e, text);
        CHECK_STR(s, cases[i].out);
        free(s);
        est_expr_free(e);
    }
    /* a NULL table prints the language's own names, bracketed when not atomic */
    {
        est_expr *e = est_expr_parse("threadIdx.y * 4", NULL, 0, "t", &err);
        char *s = cg_print_expr(e, NULL);
        CHECK_STR(s, "(threadIdx.y) * 4");
        free(s);
        est_expr_free(e);
    }
}

static void test_config_checks(void)
{
    est_kernel *k = tk_3d7pt(40, 30, 20), *bad;
    est_config c;
    lr_error err;
    int64_t grid[3];

    c = tk_config(40, 30, 20, 32, 4, 2, 1, 1, 2);
    est_grid(&c, grid);
    CHECK_INT(grid[0], 2);
    CHECK_INT(grid[1], 8);
    CHECK_INT(grid[2], 5);

    lr_error_clear(&err);
    c = tk_config(40, 30, 20, 64, 32, 1, 1, 1, 1);
    CHECK(cg_emit_source(k, &c, &err) == NULL);
    CHECK_INT(err.code, LR_NOT_LAUNCHABLE);
    CHECK_STR(err.path, "launch.block");

    lr_error_clear(&err);
    c = tk_config(1 << 20, 1 << 20, 1, 1, 1, 1, 1, 1, 1);
    CHECK_INT(cg_config_check(k, &c, &err), -1);
    CHECK_INT(err.code, LR_NOT_LAUNCHABLE);
    CHECK_CONTAINS(err.message, "beyond CUDA's limits");

    lr_error_clear(&err);
    c = tk_config(0, 30, 20, 32, 4, 2, 1, 1, 1);
    CHECK_INT(cg_config_check(k, &c, &err), -1);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    CHECK_STR(err.path, "domain");

    bad = est_kernel_new();
    tk_field(bad, "half", 2, 1, 100, 1, 1, 0);
    tk_access(bad, 0, 1, 1, "x", NULL, NULL);
    lr_error_clear(&err);
    c = tk_config(100, 1, 1, 128, 1, 1, 1, 1, 1);
    CHECK(cg_emit_source(bad, &c, &err) == NULL);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    CHECK_STR(err.path, "kernel.fields[0].element_bytes");
    CHECK_CONTAINS(err.message, "2-byte elements");
    est_kernel_free(bad);

    /* a flop figure beyond the chain limit */
    bad = tk_1d(100);
    est_kernel_set_compute(bad, 1e9, -1, 0, 32, 0);
    lr_error_clear(&err);
    CHECK(cg_emit_source(bad, &c, &err) == NULL);
    CHECK_INT(err.code, LR_LIMIT_EXCEEDED);
    CHECK_INT(cg_chain_steps(bad), 499999998);
    est_kernel_free(bad);
    est_kernel_free(k);
}

static void test_layout(void)
{
    est_kernel *k = tk_3d7pt(40, 30, 20), *k1 = tk_1d(1000);
    est_config c = tk_config(40, 30, 20, 32, 4, 2, 1, 1, 2);
    cg_field_alloc l[EST_MAX_FIELDS];
    lr_error err;

    lr_error_clear(&err);
    CHECK_INT(cg_field_layout(k, &c, l, &err), 0);
    /* z - 1 at z = 0; z + 1 in the last block's last folding step */
    CHECK_INT(l[0].lo, -1200);
    /* grid (2, 8, 5) covers x < 64, y < 32, z < 20: the corner (63, 31, 19 + 1) */
    CHECK_INT(l[0].hi, 63 + 31 * 40 + 20 * 1200);
    CHECK_INT(l[0].elem0_offset, 9728); /* 1200 doubles rounded up to 256 bytes */
    CHECK_INT(l[0].bytes % 256, 0);
    CHECK(l[0].bytes >= l[0].elem0_offset + (l[0].hi + 1) * 8);
    CHECK_INT(l[1].lo, 0);
    CHECK_INT(l[1].elem0_offset, 0);

    /* 1-D: a keeps its 64-byte offset. x is bounded by the launch box (4 blocks of 256
     * points, so up to 1023: too wide is safe), (x+1)/2 point by point (500). */
    c = tk_config(1000, 1, 1, 128, 1, 1, 2, 1, 1);
    CHECK_INT(cg_field_layout(k1, &c, l, &err), 0);
    CHECK_INT(l[0].lo, 0);
    CHECK_INT(l[0].hi, 1023);
    CHECK_INT(l[0].elem0_offset, 64);
    CHECK_INT(l[0].bytes, 4352); /* 64 + 1024 * 4 rounded up to 256 */
    {
        /* a field reached only through (x+1)/2 */
        est_kernel *h = est_kernel_new();
        tk_field(h, "h", 8, 1, 10, 1, 1, 0);
        tk_access(h, 0, 0, 1, "(x + 1) / 2", NULL, NULL);
        CHECK_INT(cg_field_layout(h, &c, l, &err), 0);
        CHECK_INT(l[0].lo, 0);
        CHECK_INT(l[0].hi, 500);
        est_kernel_free(h);
    }

    /* misaligned base offset */
    est_kernel_free(k1);
    k1 = est_kernel_new();
    tk_field(k1, "m", 8, 1, 100, 1, 1, 4);
    lr_error_clear(&err);
    CHECK_INT(cg_field_layout(k1, &c, l, &err), -1);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    CHECK_STR(err.path, "kernel.fields[0].base_offset_bytes");
    est_kernel_free(k1);
    est_kernel_free(k);
}

/* ---- the runner against a fake GPU ---- */

/* A GPU that runs nothing: it counts live allocations, fails the step it is told
 * to, and reports run times from a script. */
typedef struct fake {
    int fail_at;      /* which step fails: 0 none, 1 open, 2 load, 3 second alloc, 4 launch */
    int allocs, live; /* allocations made, still live */
    int launches;
    unsigned shared_bytes; /* of the last launch */
    uint64_t next; /* next fake device address */
    unsigned grid[3], block[3];
    int nargs_seen;
    uint64_t arg0;
} fake;

static fake the_fake;

static void *fake_open(const cg_backend *b, int ordinal, cg_gpu_info *info, lr_error *err)
{
    if (the_fake.fail_at == 1) {
        lr_error_set(err, LR_UNAVAILABLE, NULL, "fake: no GPU %d", ordinal);
        return NULL;
    }
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "Fake GPU");
    info->cc_major = 8;
    info->cc_minor = 0;
    info->driver_version = 13000;
    info->shared_bytes_per_sm = 167936; /* an A100's */
    info->shared_reserved_bytes_per_block = 1024;
    the_fake.next = 0x10000;
    return &the_fake;
}

static void fake_close(void *s)
{
    (void)s;
}

static int fake_load(void *s, const void *image, size_t size, const char *entry, lr_error *err)
{
    CHECK(memcmp(image, "\177ELF", 4) == 0); /* a cubin for sm_80 */
    CHECK_STR(entry, "lr_kernel");
    if (the_fake.fail_at == 2)
        return lr_error_set(err, LR_INTERNAL, NULL, "fake: bad image");
    return 0;
}

static int fake_alloc(void *s, size_t bytes, uint64_t *dptr, lr_error *err)
{
    if (the_fake.fail_at == 3 && the_fake.allocs == 1)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "fake: out of memory");
    the_fake.allocs++;
    the_fake.live++;
    *dptr = the_fake.next;
    the_fake.next += (bytes + 0xffff) & ~(uint64_t)0xffff;
    return 0;
}

static void fake_release(void *s, uint64_t dptr)
{
    if (dptr)
        the_fake.live--;
}

static int fake_copy(void *s, uint64_t dst, const void *src, size_t bytes, lr_error *err)
{
    return 0;
}

static int fake_download(void *s, void *dst, uint64_t src, size_t bytes, lr_error *err)
{
    memset(dst, 0, bytes); /* the kernel "wrote" zeros everywhere */
    return 0;
}

static int fake_fill(void *s, uint64_t dst, unsigned char byte, size_t bytes, lr_error *err)
{
    return 0;
}

static int fake_launch(void *s, const unsigned grid[3], const unsigned block[3],
                       unsigned shared_bytes, void **args, float *ms, lr_error *err)
{
    static const float script[] = {4, 2, 9, 3, 5, 1, 7, 8, 6, 10};
    if (the_fake.fail_at == 4)
        return lr_error_set(err, LR_NOT_LAUNCHABLE, NULL, "fake: too many resources");
    the_fake.shared_bytes = shared_bytes;
    memcpy(the_fake.grid, grid, sizeof the_fake.grid);
    memcpy(the_fake.block, block, sizeof the_fake.block);
    the_fake.arg0 = *(uint64_t *)args[0];
    if (ms)
        *ms = script[the_fake.launches++ % 10];
    return 0;
}

static const cg_backend fake_backend = {
    .name = "fake",
    .open = fake_open,
    .close = fake_close,
    .load = fake_load,
    .alloc = fake_alloc,
    .release = fake_release,
    .upload = fake_copy,
    .download = fake_download,
    .fill = fake_fill,
    .launch = fake_launch,
};

static void test_fake_runner(void)
{
    est_kernel *k = tk_3d7pt(40, 30, 20);
    est_config c = tk_config(40, 30, 20, 32, 4, 2, 1, 1, 2);
    cg_measure_opts o;
    cg_measurement m;
    lr_error err;
    double rel;

    cg_measure_opts_init(&o);
    o.backend = &fake_backend;

    /* timing: 3 untimed, 10 timed runs with the script's times 1..10 ms */
    memset(&the_fake, 0, sizeof the_fake);
    lr_error_clear(&err);
    CHECK_INT(cg_measure(k, &c, &o, &m, &err), 0);
    CHECK_INT(the_fake.launches, 10);
    CHECK_NEAR(m.ms_min, 1, 0, 0);
    CHECK_NEAR(m.ms_median, 5.5, 0, 0);
    CHECK_NEAR(m.ms_max, 10, 0, 0);
    CHECK_NEAR(m.glups, 40.0 * 30 * 20 / 5.5e6, 1e-12, 0);
    CHECK_STR(m.gpu_name, "Fake GPU");
    CHECK_INT(m.cc_major, 8);
    CHECK_INT(the_fake.grid[0] * 1000000 + the_fake.grid[1] * 1000 + the_fake.grid[2], 2008005);
    CHECK_INT(the_fake.block[0] * 100 + the_fake.block[1] * 10 + the_fake.block[2], 3242);
    CHECK_INT(the_fake.arg0, 0x10000 + 9728); /* element 0 after the margin */
    CHECK_INT(the_fake.allocs, 3);            /* two fields and the L2 flush buffer */
    CHECK_INT(the_fake.live, 0);
    CHECK_INT((int)the_fake.shared_bytes, 0);

    /* a kernel that declares shared memory is launched holding it (dynamic shared
     * memory it does not use), so that as many blocks share an SM as the model counts */
    est_kernel_set_compute(k, 0, -1, 0, 32, 100000);
    memset(&the_fake, 0, sizeof the_fake);
    lr_error_clear(&err);
    CHECK_INT(cg_measure(k, &c, &o, &m, &err), 0);
    CHECK_INT((int)the_fake.shared_bytes, 100000);
    /* more than the GPU gives a block: refused naming the field, nothing launched or
     * left allocated (the driver would have failed the launch with an internal error) */
    est_kernel_set_compute(k, 0, -1, 0, 32, 167936 - 1024 + 1);
    memset(&the_fake, 0, sizeof the_fake);
    lr_error_clear(&err);
    CHECK_INT(cg_measure(k, &c, &o, &m, &err), -1);
    CHECK_STR(lr_code_name(err.code), lr_code_name(LR_NOT_LAUNCHABLE));
    CHECK_STR(err.path, "kernel.shared_bytes");
    CHECK_CONTAINS(err.message, "gives a block at most 166912 B");
    CHECK_INT(the_fake.launches, 0);
    CHECK_INT(the_fake.live, 0);
    est_kernel_set_compute(k, 0, -1, 0, 32, 0);

    /* every failing step comes back as the backend's error, nothing left allocated */
    for (int step = 1; step <= 4; step++) {
        static const lr_code want[] = {LR_OK, LR_UNAVAILABLE, LR_INTERNAL, LR_NO_MEMORY,
                                       LR_NOT_LAUNCHABLE};
        memset(&the_fake, 0, sizeof the_fake);
        the_fake.fail_at = step;
        lr_error_clear(&err);
        CHECK_INT(cg_measure(k, &c, &o, &m, &err), -1);
        CHECK_INT(err.code, want[step]);
        CHECK_CONTAINS(err.message, "fake: ");
        CHECK_INT(the_fake.live, 0);
    }

    /* a measurement that would overrun its time: the fake's runs take 4, 2, 9 ... ms;
     * with 20 ms allowed, the first timed run (4 ms) says 10 runs need 40: refused
     * before the second, with the path of the option to change (issue 10) */
    memset(&the_fake, 0, sizeof the_fake);
    o.max_seconds = 0.020;
    lr_error_clear(&err);
    CHECK_INT(cg_measure(k, &c, &o, &m, &err), -1);
    CHECK_INT(err.code, LR_LIMIT_EXCEEDED);
    CHECK_STR(err.path, "measure.repetitions");
    CHECK_CONTAINS(err.message, "one run of this configuration takes 4.0 ms");
    CHECK_INT(the_fake.launches, 1);
    CHECK_INT(the_fake.live, 0);
    o.max_seconds = CG_MEASURE_MAX_SECONDS;
    /* past the deadline no run starts */
    memset(&the_fake, 0, sizeof the_fake);
    o.deadline = est_now() - 1;
    lr_error_clear(&err);
    CHECK_INT(cg_measure(k, &c, &o, &m, &err), -1);
    CHECK_INT(err.code, LR_BUDGET_EXCEEDED);
    CHECK_INT(the_fake.launches, 0);
    CHECK_INT(the_fake.live, 0);
    o.deadline = 0;

    /* bad options */
    o.repetitions = 0;
    lr_error_clear(&err);
    CHECK_INT(cg_measure(k, &c, &o, &m, &err), -1);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    o.repetitions = 10;

    /* the check notices a kernel that did not do its work (the fake writes zeros) */
    memset(&the_fake, 0, sizeof the_fake);
    lr_error_clear(&err);
    CHECK_INT(cg_check_with(k, &c, &o, &rel, &err), -1);
    CHECK_INT(err.code, LR_INTERNAL);
    CHECK_CONTAINS(err.message, "disagrees with the CPU reference: field 'dst'");
    CHECK(rel > 0.5);
    CHECK_INT(the_fake.live, 0);

    /* and refuses domains too large for the CPU */
    c = tk_config(256, 256, 256, 32, 4, 2, 1, 1, 2);
    lr_error_clear(&err);
    CHECK_INT(cg_check_with(k, &c, &o, &rel, &err), -1);
    CHECK_INT(err.code, LR_LIMIT_EXCEEDED);
    est_kernel_free(k);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/cudagen/golden";
    const char *regen_env = getenv("LR_REGEN_GOLDEN");
    int regen = regen_env && strcmp(regen_env, "1") == 0, no_nvrtc = 0;
    golden_case cases[] = {
        {"kernel_1d", tk_1d(10000), tk_config(10000, 1, 1, 128, 1, 1, 2, 1, 1)},
        {"stencil_2d_5pt", tk_2d5pt(130, 70), tk_config(130, 70, 1, 32, 4, 1, 1, 1, 1)},
        {"stencil_3d_7pt", tk_3d7pt(40, 30, 20), tk_config(40, 30, 20, 32, 4, 2, 1, 1, 2)},
        {"thread_variables", tk_threadvars(130, 70), tk_config(130, 70, 1, 32, 4, 1, 2, 1, 1)},
    };
    size_t n = sizeof cases / sizeof cases[0];

    for (size_t i = 0; i < n; i++)
        test_golden(&cases[i], dir, regen);
    test_print_c();
    test_config_checks();
    test_layout();
    for (size_t i = 0; i < n && !no_nvrtc; i++)
        no_nvrtc = test_nvrtc(&cases[i]);
    if (!no_nvrtc) {
        test_compile_errors();
        test_register_reuse();
        test_fake_runner();
    }
    for (size_t i = 0; i < n; i++)
        est_kernel_free(cases[i].k);
    if (no_nvrtc && !check_failures) {
        fprintf(stderr, "test_cudagen: NVRTC cannot be loaded: skipping the compile tests\n");
        return 77;
    }
    return check_report("test_cudagen");
}
