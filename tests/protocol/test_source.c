/*
 * test_source: kernel.source as the daemon reads it (protocol/request_source.c; issue 43,
 * item 2). The daemon compiles what strangers send, so it refuses what could read its
 * files: "file", a text mentioning include (also spread over lines by backslashes, or
 * by the ??/ trigraph), options that name files. Then, with NVRTC: the count fills
 * kernel.registers and the mix counted in its PTX kernel.instructions, the canonical
 * request is that of the counts, registers_assumed is off and the note names the
 * architecture; kernel.instructions sent wins; a kernel that keeps a loop gets no mix
 * and the note says why; kernel.source.arch overrides the device's.
 * The CLI's case `registers` (tests/cli) checks the answers byte for byte.
 *
 * Exit 77 (skipped) when the refusals passed and NVRTC cannot be loaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "request.h"

#define HEAD                                                                                   \
    "{\"device\": \"%s\", \"domain\": [64, 64, 64], \"launch\": {\"block\": [64, 2, 1]}, "     \
    "\"kernel\": {\"fields\": [{\"name\": \"a\", \"dims\": [66, 66, 66], \"loads\": "          \
    "[[\"x\", \"y\", \"z\"], [\"x+1\", \"y\", \"z\"]]}, {\"name\": \"b\", \"dims\": [64, 64, " \
    "64], \"stores\": [[\"x\", \"y\", \"z\"]]}]%s}}"

static const char kernel_text[] =
    "extern \\\"C\\\" __global__ void k(const double *a, double *b) { int i = threadIdx.x; "
    "b[i] = a[i] + a[i + 1]; }";

/* Parses the request of device with kernel members extra (after the fields) by the
 * daemon's rules (no local files); the error in err. */
static int parse(const lr_devices *devs, const char *device, const char *extra, lr_request *req,
                 lr_error *err)
{
    char body[2048];
    snprintf(body, sizeof body, HEAD, device, extra);
    lr_error_clear(err);
    return lr_request_parse(devs, body, strlen(body), LR_REQ_ESTIMATE, req, err);
}

/* The request must be refused at path with a message containing what. */
static void refused(const lr_devices *devs, const char *extra, const char *path,
                    const char *what)
{
    lr_request req;
    lr_error err;
    CHECK_INT(parse(devs, "H200-SXM-141GB", extra, &req, &err), -1);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    CHECK_STR(err.path, path);
    CHECK_CONTAINS(err.message, what);
}

static void test_daemon_refusals(const lr_devices *devs)
{
    refused(devs, ", \"source\": {\"text\": \"#include \\\"/etc/passwd\\\"\\n\"}",
            "kernel.source.text", "mentions include or import");
    refused(devs, ", \"source\": {\"text\": \"#inc\\\\\\nlude </etc/passwd>\\n\"}",
            "kernel.source.text", "mentions include");
    refused(devs, ", \"source\": {\"text\": \"%:inc?\?/\\nlude </etc/passwd>\\n\"}",
            "kernel.source.text", "mentions include");
    refused(devs, ", \"source\": {\"file\": \"/etc/passwd\"}", "kernel.source.file",
            "reads no files");
    refused(devs, ", \"source\": {\"text\": \"x\", \"options\": [\"-I/etc\"]}",
            "kernel.source.options[0]", "not '-I/etc'");
    refused(devs,
            ", \"source\": {\"text\": \"x\", \"options\": [\"--pre-include=/etc/passwd\"]}",
            "kernel.source.options[0]", "tune code generation");
    refused(devs, ", \"source\": {\"text\": \"x\", \"file\": \"y\"}", "kernel.source",
            "one of them");
    refused(devs, ", \"source\": {\"text\": \"x\", \"lang\": \"cuda\"}", "kernel.source.lang",
            "lang");
}

/* 77 when NVRTC cannot be loaded. */
static int test_compiled(const lr_devices *devs)
{
    char extra[512];
    lr_request req, want;
    lr_error err;
    snprintf(extra, sizeof extra, ", \"source\": {\"text\": \"%s\", \"name\": \"k\"}",
             kernel_text);
    if (parse(devs, "H200-SXM-141GB", extra, &req, &err)) {
        if (err.code == LR_UNAVAILABLE && strstr(err.message, "not found")) {
            CHECK_STR(err.path, "kernel.source");
            CHECK_CONTAINS(err.message, "send kernel.registers instead");
            return 77;
        }
        CHECK_STR(err.message, "");
        return 0;
    }
    int regs = est_kernel_registers(req.kernel);
    CHECK(regs >= 8 && regs <= 32);
    CHECK_INT(req.registers_assumed, 0);
    CHECK_CONTAINS(req.registers_note, "for sm_90: kernel k uses");
    /* the mix counted in the PTX fills kernel.instructions: two loads, a DADD, a store */
    est_instructions m;
    CHECK_INT(est_kernel_instructions(req.kernel, &m), 1);
    CHECK_NEAR(m.fp64, 1, 0, 1e-9);
    CHECK_NEAR(m.fp32 + m.special, 0, 0, 1e-9);
    CHECK(m.other >= 3);
    CHECK_CONTAINS(req.registers_note, "and kernel.instructions = {fp32 0.0, fp64 1.0, ");
    CHECK_CONTAINS(req.registers_note, "counted statically in its PTX");
    char with_regs[256];
    snprintf(with_regs, sizeof with_regs,
             ", \"registers\": %d, \"instructions\": {\"fp32\": %.17g, \"fp64\": %.17g, "
             "\"special\": %.17g, \"integer\": %.17g, \"other\": %.17g}",
             regs, m.fp32, m.fp64, m.special, m.integer, m.other);
    CHECK_INT(parse(devs, "H200-SXM-141GB", with_regs, &want, &err), 0);
    CHECK_STR(req.canonical, want.canonical);
    CHECK_STR(want.registers_note, "");
    lr_request_release(&want);
    lr_request_release(&req);

    /* kernel.instructions sent wins over the count, and the note leaves it out */
    snprintf(extra, sizeof extra,
             ", \"source\": {\"text\": \"%s\"}, \"instructions\": {\"fp64\": 5, \"other\": 9}",
             kernel_text);
    CHECK_INT(parse(devs, "H200-SXM-141GB", extra, &req, &err), 0);
    CHECK_INT(est_kernel_instructions(req.kernel, &m), 1);
    CHECK_NEAR(m.fp64 + m.other, 14, 0, 1e-9);
    CHECK(strstr(req.registers_note, "instructions") == NULL);
    lr_request_release(&req);

    /* a loop the compiler kept: its trip count is not in the code, so no mix */
    snprintf(extra, sizeof extra,
             ", \"source\": {\"text\": \"__global__ void k(double *b, int n) { double s = 0; "
             "for (int j = 0; j < n; j++) s += b[j]; b[threadIdx.x] = s; }\"}");
    CHECK_INT(parse(devs, "H200-SXM-141GB", extra, &req, &err), 0);
    CHECK_INT(est_kernel_instructions(req.kernel, &m), 0);
    /* (NVRTC 13.0 keeps two: the loop unrolled by 4 and its remainder) */
    CHECK_CONTAINS(req.registers_note, "kernel.instructions is not counted from it (the kernel "
                                       "keeps ");
    CHECK_CONTAINS(req.registers_note, "its code does not say): send it");
    lr_request_release(&req);

    /* the A100's own architecture, or the one asked for */
    CHECK_INT(parse(devs, "A100-SXM4-80GB", extra, &req, &err), 0);
    CHECK_CONTAINS(req.registers_note, "for sm_80:");
    lr_request_release(&req);
    snprintf(extra, sizeof extra,
             ", \"source\": {\"text\": \"%s\", \"arch\": \"sm_90\", \"options\": [\"-DN=4\"]}",
             kernel_text);
    CHECK_INT(parse(devs, "A100-SXM4-80GB", extra, &req, &err), 0);
    CHECK_CONTAINS(req.registers_note, "for sm_90:");
    lr_request_release(&req);
    return 0;
}

int main(void)
{
    lr_error err;
    lr_error_clear(&err);
    lr_devices *devs = lr_devices_load(&err);
    CHECK(devs != NULL);
    if (!devs)
        return 1;
    test_daemon_refusals(devs);
    int rc = test_compiled(devs);
    lr_devices_free(devs);
    if (rc == 77 && check_failures == 0) {
        fprintf(stderr, "test_source: NVRTC cannot be loaded: skipping the compile checks\n");
        return 77;
    }
    printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}
