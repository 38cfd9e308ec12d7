/*
 * test_refit: `launchrank fit` on a recorded measurement log (issue 9, item 3).
 *
 * The log is filled the way measuring fills it (the canonical request of the parsed
 * request, block, folding and measured GLup/s through st_measurement_add) with real
 * H100 timings: the rows of tests/accuracy/corpus/h100.jsonl of four families, joined with the
 * family requests of tests/accuracy/corpus/families/ (corpus_body). cal_refit must refit
 * H100-SXM5-80GB from them to a device that reproduces them at least as well as the
 * built-in (numbers asserted with tolerances), skip rows it cannot use and say so, and
 * refuse an empty log, a log of one kernel and uniform timings. The launchrank binary
 * is run on the same databases for its exit statuses and messages.
 *
 * Usage: test_refit CORPUS_DIR LAUNCHRANK
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "corpus.h"
#include "refit.h"
#include "request.h"
#include "store.h"

#define DEVICE "H100-SXM5-80GB"

static const char *corpus_dir, *launchrank;
static char tmp_dir[] = "/tmp/lrrefit-XXXXXX";
static lr_devices *devs;

/* Appends the recorded H100 timings of family (every row of h100.jsonl naming it) to
 * st; uniform: every row gets the same GLup/s. Returns the number of rows added. */
static int add_family(st_store *st, const char *family, int uniform)
{
    char path[512], line[8192];
    corpus_family fam;
    snprintf(path, sizeof path, "%s/families/%s.json", corpus_dir, family);
    if (corpus_family_load(path, &fam)) {
        CHECK(!"family file readable");
        return 0;
    }
    snprintf(path, sizeof path, "%s/h100.jsonl", corpus_dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int added = 0;
    while (f && fgets(line, sizeof line, f)) {
        cJSON *rec = cJSON_Parse(line);
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(rec, "family"));
        if (!name || strcmp(name, family)) {
            cJSON_Delete(rec);
            continue;
        }
        corpus_config c;
        for (int d = 0; d < 3; d++) {
            c.block[d] = cJSON_GetArrayItem(cJSON_GetObjectItem(rec, "block"), d)->valueint;
            c.folding[d] = cJSON_GetArrayItem(cJSON_GetObjectItem(rec, "folding"), d)->valueint;
        }
        int i = 0;
        while (i < fam.nconfigs && memcmp(&fam.configs[i], &c, sizeof c))
            i++;
        CHECK(i < fam.nconfigs);
        char *body = i < fam.nconfigs ? corpus_body(&fam, i, NULL, NULL, 0) : NULL;
        lr_request req;
        lr_error err;
        lr_error_clear(&err);
        if (body &&
            lr_request_parse(devs, body, strlen(body), LR_REQ_ESTIMATE, &req, &err) == 0) {
            double glups =
                uniform ? 100 : cJSON_GetNumberValue(cJSON_GetObjectItem(rec, "glups"));
            st_measurement m = {.kernel_hash = "recorded",
                                .gpu_name = "NVIDIA H100 80GB HBM3",
                                .driver_version = "580159",
                                .ms_min = 1,
                                .ms_median = 1,
                                .ms_max = 1,
                                .glups = glups,
                                .json = "{}",
                                .request = req.canonical};
            memcpy(m.block, c.block, sizeof m.block);
            memcpy(m.folding, c.folding, sizeof m.folding);
            CHECK_INT(st_measurement_add(st, &m, &err), 0);
            added++;
            lr_request_release(&req);
        } else {
            CHECK(!"a corpus request parses");
        }
        free(body);
        cJSON_Delete(rec);
    }
    if (f)
        fclose(f);
    corpus_family_release(&fam);
    return added;
}

static st_store *new_db(const char *name, char *path, size_t n)
{
    lr_error err;
    lr_error_clear(&err);
    snprintf(path, n, "%s/%s", tmp_dir, name);
    st_store *st = st_open(path, &err);
    CHECK(st != NULL);
    if (!st)
        fprintf(stderr, "%s: %s\n", path, err.message);
    return st;
}

/* Runs `launchrank fit --db db ARGS` (args: one string, split on spaces); returns its
 * exit status and its stderr in err_text. */
static int run_fit(const char *db, const char *args, char *err_text, size_t n)
{
    char cmd[2048], errf[512];
    snprintf(errf, sizeof errf, "%s/stderr.txt", tmp_dir);
    snprintf(cmd, sizeof cmd, "'%s' fit --db '%s' %s >'%s/stdout.json' 2>'%s'", launchrank, db,
             args, tmp_dir, errf);
    int st = system(cmd);
    FILE *f = fopen(errf, "r");
    size_t k = f ? fread(err_text, 1, n - 1, f) : 0;
    err_text[k] = 0;
    if (f)
        fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The recorded H100 timings of four kernels: the refit is no worse than the built-in
 * on them, and rows it cannot use are counted, not fitted. */
static void test_refits_recorded_h100_log(void)
{
    char path[512], text[16384];
    st_store *st = new_db("h100.sqlite", path, sizeof path);
    if (!st)
        return;
    const char *fams[] = {"star3d_r1_f64", "star2d_r1_f32", "box3d_r1_f64", "varcoef3d_f64"};
    int added = 0;
    for (int i = 0; i < 4; i++)
        added += add_family(st, fams[i], 0);
    CHECK_INT(added, 160);
    /* a row from before the log kept requests, and one of another device */
    lr_error err;
    lr_error_clear(&err);
    st_measurement old = {.kernel_hash = "h",
                          .gpu_name = "g",
                          .driver_version = "1",
                          .block = {32, 4, 1},
                          .folding = {1, 1, 1},
                          .ms_min = 1,
                          .ms_median = 1,
                          .ms_max = 1,
                          .glups = 10,
                          .json = "{}"};
    CHECK_INT(st_measurement_add(st, &old, &err), 0);
    corpus_family fam;
    char fpath[512];
    snprintf(fpath, sizeof fpath, "%s/families/star3d_r1_f64.json", corpus_dir);
    CHECK_INT(corpus_family_load(fpath, &fam), 0);
    char *body = corpus_body(&fam, 0, NULL, "H200-SXM-141GB", 0);
    lr_request req;
    CHECK_INT(lr_request_parse(devs, body, strlen(body), LR_REQ_ESTIMATE, &req, &err), 0);
    old.request = req.canonical;
    CHECK_INT(st_measurement_add(st, &old, &err), 0);
    lr_request_release(&req);
    free(body);
    corpus_family_release(&fam);

    cal_refit_stats s;
    char *report = NULL;
    cJSON *dev = cal_refit(devs, st, "h100-sxm5-80gb", NULL, &s, &report, &err);
    CHECK(dev != NULL);
    if (!dev)
        fprintf(stderr, "refit: %s\n", err.message);
    CHECK_INT(s.rows, 162);
    CHECK_INT(s.no_request, 1);
    CHECK_INT(s.other_device, 1);
    CHECK_INT(s.unusable, 0);
    CHECK_INT(s.used, 160);
    CHECK_INT(s.kernels, 4);
    /* the built-in was fitted to the whole corpus (17 kernels); on these four the
     * refit must do at least as well, and it does better (model 2026.11-37: 0.0308 ->
     * 0.0301 in the binary's report below; the figures of earlier models are in git) */
    CHECK_NEAR(s.before, 0.0308, 0.02, 0);
    CHECK_NEAR(s.after, 0.0301, 0.10, 0);
    CHECK(s.after <= s.before);
    CHECK_CONTAINS(report, "162 rows; 1 without their request");
    CHECK_CONTAINS(report, "1 of other devices");
    CHECK_CONTAINS(report, "160 measurements of 4 kernels of H100-SXM5-80GB");
    CHECK_CONTAINS(report, "with the parameters fitted here:");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(dev, "name")), DEVICE "-refit");
    /* the description reads back as a device */
    est_device back;
    CHECK_INT(lr_device_from_json(devs, dev, "", &back, &err), 0);
    char *src = cJSON_PrintUnformatted(cJSON_GetObjectItem(dev, "sources"));
    CHECK_CONTAINS(src, "launchrank fit on 160 measurements of 4 kernels");
    free(src);
    cJSON_Delete(dev);
    free(report);

    /* a built-in's name is refused */
    lr_error_clear(&err);
    CHECK(cal_refit(devs, st, DEVICE, "A100-SXM4-40GB", NULL, NULL, &err) == NULL);
    CHECK_STR(err.path, "name");
    lr_error_clear(&err);
    CHECK(cal_refit(devs, st, "no-such-gpu", NULL, NULL, NULL, &err) == NULL);
    CHECK_INT(err.code, LR_NOT_FOUND);
    st_close(st);

    /* the binary: the description on stdout (or --out), the report on stderr */
    snprintf(path, sizeof path, "%s/h100.sqlite", tmp_dir);
    char args[600];
    snprintf(args, sizeof args, "--name H100-lab --out '%s/lab.json' " DEVICE, tmp_dir);
    CHECK_INT(run_fit(path, args, text, sizeof text), 0);
    CHECK_CONTAINS(text, "objective 0.0308");
    char lab[512];
    snprintf(lab, sizeof lab, "%s/lab.json", tmp_dir);
    FILE *f = fopen(lab, "r");
    char buf[16384] = "";
    size_t k = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[k] = 0;
    if (f)
        fclose(f);
    CHECK_CONTAINS(buf, "\"name\":\t\"H100-lab\"");
    CHECK_INT(run_fit(path, "A100-SXM4-40GB", text, sizeof text), 2);
    CHECK_CONTAINS(text, "0 usable measurements of A100-SXM4-40GB");
}

/* An empty log, a log of one kernel, and timings that do not vary are refused. */
static void test_refuses_too_little_data(void)
{
    char path[512], text[16384];
    lr_error err;
    st_store *st = new_db("empty.sqlite", path, sizeof path);
    if (!st)
        return;
    lr_error_clear(&err);
    CHECK(cal_refit(devs, st, DEVICE, NULL, NULL, NULL, &err) == NULL);
    CHECK_INT(err.code, LR_INVALID_REQUEST);
    CHECK_STR(err.path, "measurements");
    CHECK_CONTAINS(err.message, "0 usable measurements of H100-SXM5-80GB in the log");
    st_close(st);
    CHECK_INT(run_fit(path, DEVICE, text, sizeof text), 2);
    CHECK_CONTAINS(text, "a fit needs at least 20");
    CHECK_CONTAINS(text, "\"code\":\"invalid_request\"");

    st = new_db("one.sqlite", path, sizeof path);
    if (!st)
        return;
    CHECK_INT(add_family(st, "star3d_r1_f64", 0), 40);
    lr_error_clear(&err);
    CHECK(cal_refit(devs, st, DEVICE, NULL, NULL, NULL, &err) == NULL);
    CHECK_CONTAINS(err.message, "of 1 kernel only; a fit needs at least 2");
    st_close(st);
    CHECK_INT(run_fit(path, DEVICE, text, sizeof text), 2);
    CHECK_CONTAINS(text, "40 measurements of 1 kernels of H100-SXM5-80GB");
    CHECK_CONTAINS(text, "of 1 kernel only");

    st = new_db("uniform.sqlite", path, sizeof path);
    if (!st)
        return;
    add_family(st, "star3d_r1_f64", 1);
    add_family(st, "star2d_r1_f32", 1);
    lr_error_clear(&err);
    CHECK(cal_refit(devs, st, DEVICE, NULL, NULL, NULL, &err) == NULL);
    CHECK_CONTAINS(err.message, "vary by less than 10 % within every kernel");
    st_close(st);

    CHECK_INT(run_fit(path, "", text, sizeof text), 2); /* no device: usage */
    snprintf(path, sizeof path, "%s/missing.sqlite", tmp_dir);
    CHECK_INT(run_fit(path, DEVICE, text, sizeof text), 1);
    CHECK(access(path, F_OK) != 0); /* not created */
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_refit CORPUS_DIR LAUNCHRANK\n");
        return 2;
    }
    corpus_dir = argv[1];
    launchrank = argv[2];
    lr_error err;
    lr_error_clear(&err);
    if (!mkdtemp(tmp_dir) || !(devs = lr_devices_load(&err))) {
        perror("setup");
        return 1;
    }
    test_refits_recorded_h100_log();
    test_refuses_too_little_data();
    lr_devices_free(devs);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp_dir);
    return check_report("test_refit");
}
