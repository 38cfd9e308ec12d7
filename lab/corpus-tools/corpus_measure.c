/*
 * corpus_measure: times (or runs once, for a profiler) every configuration of the
 * measured corpus's kernel families on the GPU present (issue 8, tests/accuracy/corpus/).
 *
 *   corpus_measure time DIR OUT.jsonl [FAMILY...]
 *       3 warm-up and 10 timed runs per configuration, L2 flushed before each run
 *       (cudagen's cg_measure, exactly as `launchrank measure`); one JSON line each.
 *   corpus_measure profile DIR ORDER.txt [FAMILY...]
 *       one run per configuration, L2 flushed, no warm-up: run it under
 *       `ncu -k lr_kernel`; ORDER.txt lists "family i ok|error" in launch order so
 *       that lab/corpus-tools/collect.py can pair the profiler's rows with configurations.
 *
 * DIR holds the family files; FAMILY names restrict the run. Progress goes to stderr.
 * Exit 77 when no GPU can be used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"
#include "cudagen.h"
#include "devices.h"
#include "request.h"

static int wanted(const char *name, int argc, char **argv, int first)
{
    if (argc <= first)
        return 1;
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], name))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "time") && strcmp(argv[1], "profile"))) {
        fprintf(stderr, "usage: corpus_measure time|profile DIR OUT [FAMILY...]\n");
        return 2;
    }
    int profile = !strcmp(argv[1], "profile");
    lr_error err;
    lr_error_clear(&err);
    lr_devices *devs = lr_devices_load(&err);
    FILE *out = fopen(argv[3], "w");
    int nfiles = 0;
    char **files = corpus_list(argv[2], &nfiles);
    if (!devs || !out || !files) {
        fprintf(stderr, "corpus_measure: cannot start (%s)\n", err.message);
        return 1;
    }
    cg_measure_opts opts;
    cg_measure_opts_init(&opts);
    if (profile) {
        opts.warmup = 0;
        opts.repetitions = 1;
    }
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    int rc = 0;
    for (int fi = 0; fi < nfiles && rc == 0; fi++) {
        corpus_family fam;
        if (corpus_family_load(files[fi], &fam))
            return 1;
        if (!wanted(fam.name, argc, argv, 4)) {
            corpus_family_release(&fam);
            continue;
        }
        fprintf(stderr, "%s: %d configurations\n", fam.name, fam.nconfigs);
        for (int i = 0; i < fam.nconfigs; i++) {
            char *body = corpus_body(&fam, i, NULL, NULL, 0);
            lr_request req;
            lr_error_clear(&err);
            cg_measurement m;
            int ok = body && !lr_request_parse(devs, body, strlen(body), LR_REQ_ESTIMATE,
                                               &req, &err);
            free(body);
            if (ok) {
                est_config cfg = {{req.domain[0], req.domain[1], req.domain[2]}, req.launch};
                ok = !cg_measure(req.kernel, &cfg, &opts, &m, &err);
                lr_request_release(&req);
            }
            const corpus_config *c = &fam.configs[i];
            for (char *q = err.message; *q; q++)
                if (*q == '"' || *q == '\\' || (unsigned char)*q < 0x20)
                    *q = '\''; /* the message goes into a JSON string */
            if (!ok && err.code == LR_UNAVAILABLE) {
                fprintf(stderr, "corpus_measure: %s\n", err.message);
                rc = 77;
                break;
            }
            if (profile)
                fprintf(out, "%s %d %s\n", fam.name, i, ok ? "ok" : "error");
            else if (ok)
                fprintf(out,
                        "{\"family\":\"%s\",\"block\":[%d,%d,%d],\"folding\":[%d,%d,%d],"
                        "\"ms_min\":%.6g,\"ms_median\":%.6g,\"ms_max\":%.6g,\"glups\":%.6g,"
                        "\"gpu\":\"%s\",\"cc\":\"%d.%d\",\"driver\":%d,\"date\":\"%s\"}\n",
                        fam.name, c->block[0], c->block[1], c->block[2], c->folding[0],
                        c->folding[1], c->folding[2], m.ms_min, m.ms_median, m.ms_max,
                        m.glups, m.gpu_name, m.cc_major, m.cc_minor, m.driver_version, date);
            else
                fprintf(out,
                        "{\"family\":\"%s\",\"block\":[%d,%d,%d],\"folding\":[%d,%d,%d],"
                        "\"error\":\"%s\"}\n",
                        fam.name, c->block[0], c->block[1], c->block[2], c->folding[0],
                        c->folding[1], c->folding[2], err.message);
            fflush(out); /* a run cut short keeps what it measured */
        }
        corpus_family_release(&fam);
    }
    fclose(out);
    corpus_list_free(files, nfiles);
    lr_devices_free(devs);
    return rc;
}
