/*
 * launch_overhead: the fixed time of a launch from recorded size scans (lab/2026-11-23-overhead/,
 * docs/model.md "Launch overhead"), per scan and as the median a device carries. The
 * fit is calibrate/overhead.c's, the one `launchrank calibrate` uses. No GPU needed.
 *
 *   launch_overhead [--check | --families DIR] FILE.jsonl...
 *
 * Each FILE holds `lab/corpus-tools/corpus_measure time` timings of lab/2026-11-23-overhead/families (or of
 * the size-scan families in DIR, such as lab/2026-11-27-foldscan/families): one
 * JSON line per launch configuration with its family, block, folding, ms_median and
 * the GPU, NVIDIA driver and date. --check (the CI test) exits 1 unless the built-in
 * device of each file's GPU carries the median as launch_overhead_us, to 0.05 us: the
 * device figure and its measurement must not drift apart.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "devices.h"
#include "overhead.h"

#define FAMILIES SOURCE_DIR "/lab/2026-11-23-overhead/families"

/* The folder of the family files whose domains the scans' lines name. */
static const char *families = FAMILIES;
#define CHECK_TOLERANCE_US 0.05

/* The built-in device of each GPU the scans were measured on. */
static const struct {
    const char *gpu, *device;
} device_of_gpu[] = {{"NVIDIA H100 80GB HBM3", "H100-SXM5-80GB"},
                     {"NVIDIA H200", "H200-SXM-141GB"}};

/* Lattice updates of a family file's domain; 0 when it cannot be read. */
static double family_updates(const char *family)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.json", families, family);
    char *text = corpus_read_text(path);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    double n = 1;
    const cJSON *d, *dom = cJSON_GetObjectItemCaseSensitive(j, "domain");
    cJSON_ArrayForEach(d, dom) n *= cJSON_IsNumber(d) ? d->valuedouble : 0;
    n = cJSON_IsArray(dom) ? n : 0;
    cJSON_Delete(j);
    return n;
}

/* One JSON line into *p (and the GPU's name into gpu). 0, or -1 with a message. */
static int read_point(const char *path, int line, const cJSON *r, cal_scan_point *p,
                      char *gpu, size_t gpusize)
{
    const char *family = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "family"));
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(r, "ms_median");
    const char *g = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "gpu"));
    if (cal_scan_group_of(r, p->group) || !cJSON_IsNumber(ms) || !g) {
        fprintf(stderr, "%s:%d: not a size-scan timing (family KERNEL_nN, block, folding, "
                        "ms_median, gpu)\n", path, line);
        return -1;
    }
    p->lattice_updates = family_updates(family);
    if (!(p->lattice_updates > 0)) {
        fprintf(stderr, "%s:%d: no family file %s/%s.json with a domain\n", path, line,
                families, family);
        return -1;
    }
    p->ms = ms->valuedouble;
    snprintf(gpu, gpusize, "%s", g);
    return 0;
}

/* The points of one file (malloc'd) and its GPU; NULL with a message. */
static cal_scan_point *read_file(const char *path, int *n, char *gpu, size_t gpusize)
{
    char *text = corpus_read_text(path);
    if (!text) {
        perror(path);
        return NULL;
    }
    size_t lines = 1;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    cal_scan_point *p = calloc(lines, sizeof *p);
    *n = 0;
    int line = 0, bad = !p;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && !bad;
         l = strtok_r(NULL, "\n", &save)) {
        line++;
        cJSON *r = cJSON_Parse(l);
        bad = !r || read_point(path, line, r, &p[*n], gpu, gpusize);
        cJSON_Delete(r);
        *n += !bad;
    }
    free(text);
    if (bad || *n == 0) {
        if (!bad)
            fprintf(stderr, "%s: no timings\n", path);
        free(p);
        return NULL;
    }
    return p;
}

/* Prints the scans of one file and, with check, compares the median with the device.
 * 0, or 1 on a failure. */
static int report(const lr_devices *devs, const char *path, int check)
{
    char gpu[128] = "";
    int n;
    cal_scan_point *p = read_file(path, &n, gpu, sizeof gpu);
    if (!p)
        return 1;
    cal_scan_line *lines = calloc((size_t)n, sizeof *lines);
    cal_overhead o;
    lr_error err;
    lr_error_clear(&err);
    int rc = !lines || cal_overhead_fit(p, n, &o, lines, &err);
    free(p);
    if (rc) {
        fprintf(stderr, "%s: %s\n", path, lines ? err.message : "out of memory");
        free(lines);
        return 1;
    }
    printf("%s: %s\n  %-40s %5s %8s %12s\n", path, gpu, "scan (kernel, block, folding)",
           "sizes", "t0 us", "body GLup/s");
    for (int i = 0; i < o.scans; i++)
        printf("  %-40s %5d %8.2f %12.1f\n", lines[i].group, lines[i].sizes, lines[i].us,
               lines[i].body_glups);
    printf("  launch overhead: median %.2f us over %d scans (%.2f to %.2f us)\n", o.us,
           o.scans, o.lo_us, o.hi_us);
    free(lines);
    if (!check)
        return 0;
    const char *name = NULL;
    for (size_t i = 0; i < sizeof device_of_gpu / sizeof *device_of_gpu; i++)
        if (strcmp(gpu, device_of_gpu[i].gpu) == 0)
            name = device_of_gpu[i].device;
    const est_device *d = name ? lr_devices_find(devs, name) : NULL;
    if (!d) {
        printf("  no built-in device for the GPU '%s'\n", gpu);
        return 1;
    }
    int ok = fabs(d->launch_overhead_us - o.us) <= CHECK_TOLERANCE_US;
    printf("  %s: launch_overhead_us %.2f us, measured %.2f us: %s (tolerance %.2f us)\n",
           name, d->launch_overhead_us, o.us, ok ? "OK" : "DIFFERENT", CHECK_TOLERANCE_US);
    return !ok;
}

int main(int argc, char **argv)
{
    int check = argc > 1 && strcmp(argv[1], "--check") == 0, first = 1 + check;
    if (argc > 1 && strcmp(argv[1], "--families") == 0) {
        families = argc > 2 ? argv[2] : NULL;
        first = 3;
    }
    if (argc <= first || !families || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: launch_overhead [--check | --families DIR] FILE.jsonl...\n"
                        "The launch overhead (us) of recorded size scans (lab/2026-11-23-overhead/"
                        "README.md); --check compares it with the built-in devices;\n"
                        "--families DIR reads the scans' domains from DIR's family files "
                        "instead of lab/2026-11-23-overhead/families.\n");
        return 2;
    }
    lr_error err;
    lr_error_clear(&err);
    lr_devices *devs = lr_devices_load(&err);
    if (!devs) {
        fprintf(stderr, "launch_overhead: %s\n", err.message);
        return 1;
    }
    int failed = 0;
    for (int i = first; i < argc; i++)
        failed |= report(devs, argv[i], check);
    lr_devices_free(devs);
    return failed;
}
