/*
 * request_source: kernel.source (docs/api.md, "kernel.source"): the CUDA text of the
 * kernel, compiled with NVRTC for the device's architecture so that its register count
 * fills kernel.registers (cudagen/resources.c) and, when kernel.instructions is not
 * sent, its instruction mix counted in the PTX fills kernel.instructions
 * (cudagen/ptxcount.c; not for a kernel that keeps a loop, spills or calls a function:
 * what those add is not in the PTX). Only the counts enter the request's canonical form: a
 * kernel sent as source and the same kernel sent with its registers and instructions are one
 * prediction, and the answer says where the counts came from (req->registers_note, a
 * "registers_from_source" note among the warnings).
 *
 * The daemon compiles what strangers send, so there it refuses what could read its
 * files: "file", any mention of include (a preprocessor directive cannot be hidden
 * from that test, even spread over lines with backslashes), and options other than
 * those that only tune code generation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"
#include "request_int.h"

static const char *const source_keys[] = {"text", "file", "name", "options", "arch", NULL};

/* Options the daemon passes on: code generation only, nothing that names a file. */
static const char *const daemon_options[] = {"-D",
                                             "--define-macro=",
                                             "-U",
                                             "--undefine-macro=",
                                             "-maxrregcount=",
                                             "--maxrregcount=",
                                             "-use_fast_math",
                                             "--use_fast_math",
                                             "-ftz=",
                                             "--ftz=",
                                             "-prec-div=",
                                             "--prec-div=",
                                             "-prec-sqrt=",
                                             "--prec-sqrt=",
                                             "-fmad=",
                                             "--fmad=",
                                             "-std=",
                                             "--std=",
                                             "-lineinfo",
                                             "--generate-line-info",
                                             "-restrict",
                                             "--restrict",
                                             "-extra-device-vectorization",
                                             "--extra-device-vectorization",
                                             "-default-device",
                                             "--device-as-default-execution-space",
                                             NULL};

/* A source of the daemon's request: 0 when it mentions no include. */
static int check_no_include(const char *text, const char *path, lr_error *err)
{
    size_t n = strlen(text), o = 0;
    char *joined = malloc(n + 1);
    if (!joined)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    /* translation phase 2 first: a backslash (or the trigraph ??/) before a newline
     * joins two lines, so "#inc\<newline>lude" is an include */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        if (text[j] == '\\')
            j++;
        else if (!strncmp(text + j, "?\?/", 3))
            j += 3;
        else {
            joined[o++] = text[i];
            continue;
        }
        while (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')
            j++;
        if (text[j] == '\n')
            i = j;
        else
            joined[o++] = text[i];
    }
    joined[o] = '\0';
    int found = strstr(joined, "include") || strstr(joined, "import");
    free(joined);
    if (found)
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            "the daemon compiles no source that mentions include or import "
                            "(a #include would read the server's files): paste the headers' "
                            "text in, or run `launchrank registers` on your machine and send "
                            "kernel.registers");
    return 0;
}

/* The text of kernel.source: "text", or on the user's own machine "file". */
static int source_text(const cJSON *sv, const lr_request *req, char **text, char path[64],
                       lr_error *err)
{
    const cJSON *tv = jr_get(sv, "text"), *fv = jr_get(sv, "file");
    const char *s;
    *text = NULL;
    if (!tv == !fv)
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.source",
                            "give the CUDA source as \"text\" or (CLI, Python Local) as "
                            "\"file\", one of them");
    if (tv) {
        snprintf(path, 64, "kernel.source.text");
        if (jr_str(tv, path, CG_MAX_SOURCE_BYTES, &s, err))
            return -1;
        if (!req->local_files && check_no_include(s, path, err))
            return -1;
        return (*text = strdup(s)) ? 0 : lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    snprintf(path, 64, "kernel.source.file");
    if (!req->local_files)
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            "the daemon reads no files of its machine: send the source as "
                            "\"text\", or use the CLI or the Python Local back end");
    if (jr_str(fv, path, 4096, &s, err))
        return -1;
    FILE *f = fopen(s, "rb");
    char *buf = f ? calloc(1, CG_MAX_SOURCE_BYTES + 2) : NULL;
    size_t got = buf ? fread(buf, 1, CG_MAX_SOURCE_BYTES + 1, f) : 0;
    int e = errno, bad = f && (!buf || ferror(f));
    if (f)
        fclose(f);
    if (!f || bad) {
        free(buf);
        return lr_error_set(err, buf || !f ? LR_INVALID_REQUEST : LR_NO_MEMORY, path,
                            "cannot read '%.200s': %s", s, strerror(e));
    }
    if (got > CG_MAX_SOURCE_BYTES) {
        free(buf);
        return lr_error_set(err, LR_LIMIT_EXCEEDED, path, "'%.200s' exceeds %u bytes", s,
                            CG_MAX_SOURCE_BYTES);
    }
    *text = buf;
    return 0;
}

/* kernel.source.options into opts (borrowed from sv). 0, or -1 with err. */
static int source_options(const cJSON *ov, const lr_request *req, const char **opts, int *n,
                          lr_error *err)
{
    *n = 0;
    if (!ov)
        return 0;
    int m = jr_array(ov, "kernel.source.options", 0, CG_MAX_OPTIONS, err);
    if (m < 0)
        return -1;
    for (int i = 0; i < m; i++) {
        jpath p;
        jp_index(&p, "kernel.source.options", i);
        if (jr_str(cJSON_GetArrayItem(ov, i), p.s, 256, &opts[i], err))
            return -1;
        int ok = req->local_files;
        for (const char *const *a = daemon_options; *a && !ok; a++)
            ok = strncmp(opts[i], *a, strlen(*a)) == 0;
        if (!ok)
            return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                                "the daemon passes NVRTC only options that tune code "
                                "generation (-D, -U, -maxrregcount=, --use_fast_math, -ftz=, "
                                "-prec-div=, -prec-sqrt=, -fmad=, -std=, -lineinfo, ...), "
                                "not '%.64s'",
                                opts[i]);
    }
    *n = m;
    return 0;
}

/* The architecture to compile for: kernel.source.arch, else the device's. */
static int source_arch(const cJSON *sv, const lr_request *req, char arch[16], lr_error *err)
{
    const cJSON *av = jr_get(sv, "arch");
    const char *s;
    if (av) {
        if (jr_str(av, "kernel.source.arch", 8, &s, err))
            return -1;
        snprintf(arch, 16, "%s", s);
        return 0;
    }
    if (cg_arch_of_device(req->device.name, arch))
        return lr_error_set(err, LR_INVALID_REQUEST, "kernel.source",
                            "the architecture of device '%.64s' is not known from its name: "
                            "send kernel.source.arch, e.g. \"sm_90\"",
                            req->device.name);
    return 0;
}

/* An error of compiling, at the member it is about, with what to do instead. */
static int compile_error(const lr_error *e, const char *text_path, const char *arch,
                         const lr_request *req, lr_error *err)
{
    if (e->code == LR_UNAVAILABLE)
        return lr_error_set(err, LR_UNAVAILABLE, "kernel.source",
                            "kernel.source cannot be compiled here, send kernel.registers "
                            "instead (nvcc -Xptxas -v prints it); device %.64s, %s: %s",
                            req->device.name, arch, e->message);
    const char *path = strstr(e->message, "is refused")          ? "kernel.source.options"
                       : strstr(e->message, "could not compile") ? text_path
                                                                 : "kernel.source";
    return lr_error_set(err, e->code, path, "%s", e->message);
}

/* Whether k's mix may stand for kernel.instructions; else why not into why. A loop's
 * trip count, ptxas's spill code and a called function's body are not in the count, so
 * each leaves it too low by an unknown amount. */
static int mix_usable(const cg_kernel_usage *k, char *why, size_t cap)
{
    if (!k->has_mix)
        snprintf(why, cap, "NVRTC kept no PTX to count");
    else if (k->mix.loops)
        snprintf(why, cap,
                 "the kernel keeps %d loop%s whose trip count%s its code does not "
                 "say",
                 k->mix.loops, k->mix.loops > 1 ? "s" : "", k->mix.loops > 1 ? "s" : "");
    else if (k->spill_store_bytes || k->spill_load_bytes)
        snprintf(why, cap,
                 "ptxas spills %lld B and reloads %lld B, local loads and stores the "
                 "PTX does not hold",
                 (long long)k->spill_store_bytes, (long long)k->spill_load_bytes);
    else if (k->mix.calls)
        snprintf(why, cap, "the kernel calls %d function%s not inlined", k->mix.calls,
                 k->mix.calls > 1 ? "s" : "");
    else
        return 1;
    return 0;
}

/* The note of the answer: where kernel.registers (and kernel.instructions, when
 * counted: used) came from, and what else ptxas said. */
static void write_note(lr_request *req, const cg_usage *u, const cg_kernel_usage *k,
                       int mix_wanted, int used)
{
    char mix[320] = "", why[128];
    const cg_instruction_mix *m = &k->mix.path;
    if (used)
        snprintf(mix, sizeof mix,
                 " and kernel.instructions = {fp32 %.1f, fp64 %.1f, special %.1f, integer "
                 "%.1f, other %.1f}",
                 m->fp32, m->fp64, m->special, m->integer, m->other);
    int n =
        snprintf(req->registers_note, sizeof req->registers_note,
                 "kernel.registers = %d%s from compiling kernel.source with NVRTC %d.%d "
                 "for %s: kernel %.120s uses %d registers per thread, %lld B spill stores "
                 "and %lld B spill loads, %lld B stack frame (local memory), %lld B static "
                 "shared memory per block (kernel.shared_bytes is not set from it: add "
                 "dynamic shared memory and send it)",
                 k->registers, mix, u->nvrtc_version[0], u->nvrtc_version[1], u->arch, k->name,
                 k->registers, (long long)k->spill_store_bytes, (long long)k->spill_load_bytes,
                 (long long)k->stack_bytes, (long long)k->shared_bytes);
    size_t o = n < 0 ? 0 : (size_t)n, cap = sizeof req->registers_note;
    if (used && o < cap)
        snprintf(req->registers_note + o, cap - o,
                 "; the instructions are counted statically in its PTX on the likely path, "
                 "per thread as compiled and taken as per lattice update (send "
                 "kernel.instructions for a kernel whose thread does several updates)");
    else if (mix_wanted && o < cap && !mix_usable(k, why, sizeof why))
        snprintf(req->registers_note + o, cap - o,
                 "; kernel.instructions is not counted from it (%s): send it", why);
}

int lr_request_parse_source(const cJSON *sv, lr_request *req, int regs_sent, int64_t *regs,
                            est_instructions *mix, int *has_mix, lr_error *err)
{
    char *text = NULL, text_path[64], arch[16];
    const char *opts[CG_MAX_OPTIONS], *name = NULL;
    int nopts, rc = -1;
    lr_error e;
    if (jr_object(sv, "kernel.source", err) ||
        jr_only_keys(sv, "kernel.source", source_keys, err))
        return -1;
    if (jr_get(sv, "name") &&
        jr_str(jr_get(sv, "name"), "kernel.source.name", CG_KERNEL_NAME_MAX - 1, &name, err))
        return -1;
    if (source_options(jr_get(sv, "options"), req, opts, &nopts, err) ||
        source_arch(sv, req, arch, err) || source_text(sv, req, &text, text_path, err))
        return -1;
    cg_usage *usage = malloc(sizeof *usage);
    if (!usage) {
        free(text);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    lr_error_clear(&e);
    const cg_kernel_usage *k = NULL;
    if (cg_usage_cache_compile(req->sources, text, "kernel.cu", arch, opts, nopts, usage, NULL,
                               &e))
        compile_error(&e, text_path, arch, req, err);
    else if (!(k = cg_usage_find(usage, name, &e)))
        lr_error_set(err, e.code, "kernel.source.name", "%s", e.message);
    else if (regs_sent && *regs != k->registers)
        lr_error_set(err, LR_INVALID_REQUEST, "kernel.registers",
                     "kernel.registers is %lld but kernel.source compiles to %d registers per "
                     "thread (kernel %.120s, NVRTC %d.%d, %s): send one of them",
                     (long long)*regs, k->registers, k->name, usage->nvrtc_version[0],
                     usage->nvrtc_version[1], arch);
    else {
        char why[128];
        const cg_instruction_mix *m = &k->mix.path;
        *regs = k->registers;
        if (has_mix)
            *has_mix = mix && mix_usable(k, why, sizeof why);
        if (has_mix && *has_mix)
            *mix = (est_instructions){m->fp32, m->fp64, m->special, m->integer, m->other};
        write_note(req, usage, k, mix != NULL, has_mix && *has_mix);
        rc = 0;
    }
    free(usage);
    free(text);
    return rc;
}
