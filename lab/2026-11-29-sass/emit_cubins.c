/*
 * emit_cubins: the cubin of every configuration of a measured set, built exactly as
 * corpus_measure built it on the GPU (cudagen's source, NVRTC, --gpu-architecture=sm_90),
 * without a GPU. Sources that differ only in their header comment share one cubin.
 *
 *   emit_cubins OUTDIR SET FAMILYDIR [SET FAMILYDIR ...] > map.tsv
 *
 * map.tsv: set family index bx by bz fx fy fz key, one line per configuration; the
 * cubin is OUTDIR/key.cubin and its source OUTDIR/key.cu. Built by build.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "cudagen.h"
#include "devices.h"
#include "request.h"

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Compiles src into OUTDIR/key.cubin unless that exists; 0 or -1. */
static int build(const char *outdir, const char *key, const char *src)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.cubin", outdir, key);
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        return 0;
    }
    char *image = NULL, *log = NULL;
    size_t size = 0;
    lr_error err;
    lr_error_clear(&err);
    if (cg_compile(src, "sm_90", &image, &size, &log, &err)) {
        fprintf(stderr, "emit_cubins: %s: %s\n", key, err.message);
        free(log);
        return -1;
    }
    f = fopen(path, "wb");
    int bad = !f || fwrite(image, 1, size, f) != size;
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/%s.cu", outdir, key);
    f = fopen(path, "w");
    bad |= !f || fputs(src, f) < 0;
    if (f)
        fclose(f);
    free(image);
    free(log);
    return bad ? -1 : 0;
}

static int one_set(const lr_devices *devs, const char *outdir, const char *set,
                   const char *dir)
{
    int nfiles = 0;
    char **files = corpus_list(dir, &nfiles);
    if (!files)
        return -1;
    for (int fi = 0; fi < nfiles; fi++) {
        corpus_family fam;
        if (corpus_family_load(files[fi], &fam))
            return -1;
        for (int i = 0; i < fam.nconfigs; i++) {
            const corpus_config *c = &fam.configs[i];
            char *body = corpus_body(&fam, i, NULL, NULL, 0);
            lr_request req;
            lr_error err;
            lr_error_clear(&err);
            char key[32] = "-";
            if (body && !lr_request_parse(devs, body, strlen(body), LR_REQ_ESTIMATE, &req,
                                          &err)) {
                est_config cfg = {{req.domain[0], req.domain[1], req.domain[2]}, req.launch};
                char *src = cg_emit_source(req.kernel, &cfg, &err);
                /* the header comment names the configuration: the code starts after it */
                const char *code = src ? strstr(src, " */\n") : NULL;
                if (code) {
                    snprintf(key, sizeof key, "%016llx", (unsigned long long)fnv1a(code));
                    if (build(outdir, key, src))
                        snprintf(key, sizeof key, "-");
                }
                free(src);
                lr_request_release(&req);
            }
            free(body);
            printf("%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", set, fam.name, i, c->block[0],
                   c->block[1], c->block[2], c->folding[0], c->folding[1], c->folding[2],
                   key);
            fflush(stdout);
        }
        corpus_family_release(&fam);
    }
    corpus_list_free(files, nfiles);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc % 2) {
        fprintf(stderr, "usage: emit_cubins OUTDIR SET FAMILYDIR [SET FAMILYDIR ...]\n");
        return 2;
    }
    lr_error err;
    lr_error_clear(&err);
    lr_devices *devs = lr_devices_load(&err);
    if (!devs) {
        fprintf(stderr, "emit_cubins: %s\n", err.message);
        return 1;
    }
    int rc = 0;
    for (int a = 2; a + 1 < argc && !rc; a += 2)
        rc = one_set(devs, argv[1], argv[a], argv[a + 1]) ? 1 : 0;
    lr_devices_free(devs);
    return rc;
}
