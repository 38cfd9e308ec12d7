/*
 * cli_registers: `launchrank registers FILE.cu`: the registers, spills, stack frame,
 * static shared and constant memory of each kernel of a CUDA source, as ptxas reports
 * them when NVRTC compiles it for a GPU's architecture (cudagen/resources.c), and each
 * kernel's instruction mix counted in the PTX (cudagen/ptxcount.c). No GPU is needed;
 * the counts are what a request's kernel.registers and kernel.instructions want.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "api.h"
#include "cli.h"
#include "cudagen.h"
#include "devices.h"

_Static_assert(sizeof(((cli_opts *)0)->nvrtc_options.v) / sizeof(const char *) ==
                   CG_MAX_OPTIONS,
               "cli.h's room for --option is cudagen's limit");

/* --option OPT, repeatable: collected in order (target: the whole cli_opts, as every
 * LR_OPT_CALL row gets it). */
static int add_option(void *target, const char *value, char *why, size_t why_size)
{
    cli_opts *o = target;
    if (o->nvrtc_options.n >= CG_MAX_OPTIONS) {
        snprintf(why, why_size, "at most %d options", CG_MAX_OPTIONS);
        return -1;
    }
    o->nvrtc_options.v[o->nvrtc_options.n++] = value;
    return 0;
}

static const lr_opt reg_device = {
    .name = "--device",
    .arg = "NAME",
    .help = "compile for this GPU's architecture (H100/H200: sm_90, A100: sm_80; see "
            "`launchrank devices`)",
    .kind = LR_OPT_TEXT,
    .offset = offsetof(cli_opts, device)};
static const lr_opt reg_arch = {.name = "--arch",
                                .arg = "sm_XY",
                                .help = "compile for this architecture instead",
                                .kind = LR_OPT_TEXT,
                                .offset = offsetof(cli_opts, arch)};
static const lr_opt reg_kernel = {.name = "--kernel",
                                  .arg = "NAME",
                                  .help = "only this kernel (its ptxas name, or a C++ "
                                          "kernel's bare name)",
                                  .kind = LR_OPT_TEXT,
                                  .offset = offsetof(cli_opts, kernel)};
static const lr_opt reg_option = {.name = "--option",
                                  .arg = "OPT",
                                  .help = "pass OPT to NVRTC (repeatable), e.g. "
                                          "--option=-DN=4 --option=-maxrregcount=64",
                                  .kind = LR_OPT_CALL,
                                  .set = add_option};
static const lr_opt reg_json = {.name = "--json",
                                .help = "print JSON instead of the table",
                                .kind = LR_OPT_FLAG,
                                .offset = offsetof(cli_opts, json)};
static const lr_opt reg_db = {.name = "--db",
                              .arg = "PATH",
                              .help = "also know the devices stored in the SQLite file PATH",
                              .kind = LR_OPT_TEXT,
                              .offset = offsetof(cli_opts, db)};
static const lr_opt *const registers_opts[] = {&reg_device,     &reg_arch, &reg_kernel,
                                               &reg_option,     &reg_json, &reg_db,
                                               &cli_opt_pretty, NULL};

static const lr_opt_cmd registers_cmd = {
    .name = "registers",
    .usage =
        "Usage: launchrank registers (--device NAME | --arch sm_XY) [OPTIONS] FILE.cu|-\n"
        "\n"
        "Compiles a CUDA source with NVRTC for the GPU's architecture and prints, per\n"
        "kernel, what ptxas reports (--ptxas-options=-v): registers per thread, spill\n"
        "stores and loads (bytes per thread), the stack frame (local memory, bytes per\n"
        "thread), static shared memory (bytes per block) and constant memory (the cmem\n"
        "banks ptxas lists; n/a when it lists none, as for sm_90). No GPU is needed, only\n"
        "NVRTC (libnvrtc.so of CUDA 12 or 13, loaded at run time).\n"
        "\n"
        "Then each kernel's instruction mix, counted in NVRTC's PTX: thread instructions\n"
        "per thread as compiled, by class (fp32, fp64, special, integer, other; those of\n"
        "a request's kernel.instructions), as ptxas for sm_90 expands them, on the likely\n"
        "path (bounds guards pass, the library functions' slow paths are skipped, other\n"
        "branches count half). Static, not measured: on the 18 compute kernels of\n"
        "lab/2026-11-29-compute the totals are 0.97-1.10 of what an H200 executed. A loop\n"
        "the compiler kept counts once (column loops); spill code is not in the PTX. For\n"
        "a kernel whose thread does F lattice updates, divide by F.\n"
        "\n"
        "Send the counts as a request's kernel.registers and kernel.instructions, or\n"
        "send the source itself as kernel.source (docs/api.md), which compiles it the\n"
        "same way and uses the mix unless kernel.instructions is sent (not for kernels\n"
        "with loops, spills or calls). Names are ptxas's: C++ kernels mangled\n"
        "(_Z5heavyILi64EEvPKfPf), extern \"C\" ones plain.\n"
        "NVRTC and nvcc agree on the registers; spill bytes may differ by a few bytes.\n"
        "\n"
        "An architecture this NVRTC cannot target (CUDA 13 dropped sm_70 and sm_35, the\n"
        "V100 and K20) is refused, naming both: compile with an older CUDA's nvcc\n"
        "-Xptxas -v, or choose a nearby --arch knowingly.\n"
        "\n",
    .opts = registers_opts,
    .epilogue =
        "\n"
        "Exit status: 0 success; 2 bad input or usage (the source does not compile,\n"
        "no such kernel or device; a JSON error on stderr); 1 no NVRTC, or an\n"
        "architecture it cannot target (error code \"unavailable\"), or other\n"
        "failures.\n"
        "\n"
        "Examples:\n"
        "  $ launchrank registers --device H200-SXM-141GB kernel.cu\n"
        "  $ launchrank registers --arch sm_80 --json kernel.cu\n"
        "  $ launchrank registers --arch sm_90 --kernel stencil7 kernel.cu\n",
    .min_pos = 1,
    .max_pos = 1};

/* A mix as a JSON object of its five classes, one decimal (the likely path halves). */
static cJSON *mix_json(const cg_instruction_mix *m)
{
    cJSON *o = cJSON_CreateObject();
    const double v[] = {m->fp32, m->fp64, m->special, m->integer, m->other};
    const char *const names[] = {"fp32", "fp64", "special", "integer", "other"};
    for (int i = 0; i < 5; i++)
        cJSON_AddNumberToObject(o, names[i], round(v[i] * 10) / 10);
    return o;
}

/* One kernel as the JSON output's object. */
static cJSON *kernel_json(const cg_kernel_usage *k)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", k->name);
    cJSON_AddNumberToObject(o, "registers", k->registers);
    cJSON_AddNumberToObject(o, "spill_store_bytes", (double)k->spill_store_bytes);
    cJSON_AddNumberToObject(o, "spill_load_bytes", (double)k->spill_load_bytes);
    cJSON_AddNumberToObject(o, "stack_bytes", (double)k->stack_bytes);
    cJSON_AddNumberToObject(o, "shared_bytes", (double)k->shared_bytes);
    if (k->constant_bytes >= 0)
        cJSON_AddNumberToObject(o, "constant_bytes", (double)k->constant_bytes);
    else
        cJSON_AddNullToObject(o, "constant_bytes");
    if (k->barriers >= 0)
        cJSON_AddNumberToObject(o, "barriers", k->barriers);
    else
        cJSON_AddNullToObject(o, "barriers");
    if (!k->has_mix) {
        cJSON_AddNullToObject(o, "instructions");
        return o;
    }
    cJSON_AddItemToObject(o, "instructions", mix_json(&k->mix.path));
    cJSON_AddItemToObject(o, "instructions_static", mix_json(&k->mix.all));
    cJSON_AddNumberToObject(o, "loops", k->mix.loops);
    cJSON_AddNumberToObject(o, "calls", k->mix.calls);
    return o;
}

/* The whole answer as JSON (printed by cli_print_json). */
static int print_json(const cli_opts *o, const cg_usage *u, const cg_kernel_usage *only)
{
    char nvrtc[16];
    cJSON *root = cJSON_CreateObject(), *ks;
    snprintf(nvrtc, sizeof nvrtc, "%d.%d", u->nvrtc_version[0], u->nvrtc_version[1]);
    cJSON_AddStringToObject(root, "source", o->pos[0]);
    cJSON_AddStringToObject(root, "arch", u->arch);
    if (o->device)
        cJSON_AddStringToObject(root, "device", o->device);
    else
        cJSON_AddNullToObject(root, "device");
    cJSON_AddStringToObject(root, "nvrtc", nvrtc);
    ks = cJSON_AddArrayToObject(root, "kernels");
    for (int i = 0; i < u->nkernels; i++)
        if (!only || only == &u->kernel[i])
            cJSON_AddItemToArray(ks, kernel_json(&u->kernel[i]));
    cJSON *units = cJSON_AddObjectToObject(root, "units");
    cJSON_AddStringToObject(units, "registers", "32-bit registers per thread");
    cJSON_AddStringToObject(units, "spill_store_bytes, spill_load_bytes, stack_bytes",
                            "bytes per thread");
    cJSON_AddStringToObject(units, "shared_bytes", "bytes of static shared memory per block");
    cJSON_AddStringToObject(units, "constant_bytes",
                            "bytes of the constant banks ptxas lists (null: it lists none)");
    cJSON_AddStringToObject(units, "instructions",
                            "thread instructions per thread as compiled, on the likely path, "
                            "counted in NVRTC's PTX (statically): kernel.instructions per "
                            "lattice update once divided by the kernel's folding");
    cJSON_AddStringToObject(units, "instructions_static",
                            "every PTX instruction once, as the same classes");
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "launchrank registers: out of memory\n");
        return CLI_EXIT_FAILED;
    }
    int rc = cli_print_json("registers", text, o->pretty);
    cJSON_free(text);
    return rc;
}

/* The instruction mix of each kernel, from its PTX, after the resource table. */
static void print_mix_table(const cg_usage *u, const cg_kernel_usage *only)
{
    printf("\ninstructions per thread, counted in NVRTC's PTX (likely path)\n");
    printf("%-28s %8s %8s %8s %8s %8s %8s %6s\n", "kernel", "fp32", "fp64", "special",
           "integer", "other", "total", "loops");
    for (int i = 0; i < u->nkernels; i++) {
        const cg_kernel_usage *k = &u->kernel[i];
        const cg_instruction_mix *m = &k->mix.path;
        if (only && only != k)
            continue;
        if (!k->has_mix) {
            printf("%-28s %8s\n", k->name, "n/a (no PTX)");
            continue;
        }
        printf("%-28s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %6d\n", k->name, m->fp32, m->fp64,
               m->special, m->integer, m->other,
               m->fp32 + m->fp64 + m->special + m->integer + m->other, k->mix.loops);
    }
    printf("per thread as compiled (a folded kernel: divide by its folding for "
           "kernel.instructions); static, not measured\n");
}

/* The table: one row per kernel, a unit on every number. */
static int print_table(const cli_opts *o, const cg_usage *u, const cg_kernel_usage *only)
{
    printf("%s compiled for %s%s%s%s by NVRTC %d.%d (ptxas -v)\n", o->pos[0], u->arch,
           o->device ? " (" : "", o->device ? o->device : "", o->device ? ")" : "",
           u->nvrtc_version[0], u->nvrtc_version[1]);
    printf("%-28s %10s %13s %12s %12s %14s %9s\n", "kernel", "registers", "spill stores",
           "spill loads", "stack frame", "static shared", "constant");
    for (int i = 0; i < u->nkernels; i++) {
        const cg_kernel_usage *k = &u->kernel[i];
        char cst[24] = "n/a";
        if (only && only != k)
            continue;
        if (k->constant_bytes >= 0)
            snprintf(cst, sizeof cst, "%lld B", (long long)k->constant_bytes);
        printf("%-28s %5d regs %11lld B %10lld B %10lld B %12lld B %9s\n", k->name,
               k->registers, (long long)k->spill_store_bytes, (long long)k->spill_load_bytes,
               (long long)k->stack_bytes, (long long)k->shared_bytes, cst);
    }
    printf("registers, spills and stack frame per thread; shared memory per block\n");
    print_mix_table(u, only);
    return cli_flush_stdout("registers");
}

/* The architecture of --arch, or of --device (known to the api of --db). */
static int target_arch(const cli_opts *o, char arch[16], lr_error *err)
{
    if (!o->device == !o->arch)
        return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                            "give --device NAME or --arch sm_XY, one of them: registers "
                            "depend on the architecture");
    if (o->arch) {
        snprintf(arch, 16, "%.15s", o->arch);
        return 0;
    }
    lr_api_config cfg = {.db_path = o->db, .threads = 1};
    lr_api *api = lr_api_new(&cfg, err);
    int found = api && lr_devices_find(lr_api_device_list(api), o->device);
    lr_api_free(api);
    if (!api)
        return -1;
    if (!found)
        return lr_error_set(err, LR_NOT_FOUND, NULL,
                            "no device '%.64s' (launchrank devices lists them)", o->device);
    if (cg_arch_of_device(o->device, arch))
        return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                            "the architecture of device '%.64s' is not known from its name: "
                            "give --arch sm_XY",
                            o->device);
    return 0;
}

/* cli_report of err, saying which device an architecture NVRTC refuses is for. */
static int report(const cli_opts *o, const char *arch, const lr_error *err)
{
    lr_error e;
    lr_error_clear(&e);
    if (err->code == LR_UNAVAILABLE && o->device && strstr(err->message, "cannot compile for"))
        lr_error_set(&e, err->code, NULL,
                     "%s is %s: %s; or give --arch with a nearby architecture, knowing that "
                     "its register counts may differ",
                     o->device, arch, err->message);
    return cli_report(e.code ? &e : err);
}

int cli_cmd_registers(int argc, char **argv)
{
    cli_opts o;
    char *src = NULL, arch[16];
    size_t len;
    int rc;
    lr_error err;
    cg_usage *u = calloc(1, sizeof *u);
    if (!u || cli_parse_args(&registers_cmd, argc, argv, &o, &rc) ||
        (rc = cli_read_request(argv[0], o.pos[0], &src, &len))) {
        free(u);
        return u ? rc : CLI_EXIT_FAILED;
    }
    lr_error_clear(&err);
    /* the file name the compiler's messages use */
    const char *base = strrchr(o.pos[0], '/'), *shown = base ? base + 1 : o.pos[0];
    const cg_kernel_usage *only = NULL;
    if (!strcmp(o.pos[0], "-"))
        shown = "stdin.cu";
    if (target_arch(&o, arch, &err) ||
        cg_usage_compile(src, shown, arch, o.nvrtc_options.v, o.nvrtc_options.n, u, &err) ||
        (o.kernel && !(only = cg_usage_find(u, o.kernel, &err))))
        rc = report(&o, arch, &err);
    else
        rc = o.json ? print_json(&o, u, only) : print_table(&o, u, only);
    free(src);
    free(u);
    return rc;
}
