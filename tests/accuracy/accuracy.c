/*
 * accuracy: how well the model predicts the measured corpus (issue 8, tests/accuracy/corpus/).
 *
 * For every kernel family and GPU of the corpus it predicts every measured
 * configuration and prints, per family: median |error| of each data volume against
 * the profiler's counters and of the predicted GLup/s against the timing; Spearman's
 * rho of predicted vs measured GLup/s; where the predicted top 1 and the best of the
 * predicted top 3 land as a percentage of the measured best; the same for the best
 * single fixed block (the block with the best geometric-mean fraction of the optimum
 * over all families of its dimensionality: what a code generator that never asks
 * would hard-code), and the noise floor (median difference of two timing passes).
 * A summary line closes the table. No GPU is needed.
 *
 *   accuracy [--model warpspeed|v2] [--corpus DIR] [--measured FILE]
 *            [--device NAME | --device-file FILE] [--dump FILE]
 *            [--lofo | --lofo-rules NAME=LO:HI:STEP,... [--lofo-by error|error+top1]
 *            [--lofo-joint | --lofo-also NAME[+NAME...]=DIR:MEASURED[:DEVICE] ...
 *            [--lofo-choose NAME=no-worse|top1-first,...]]] [--fit]
 *            [--golden FILE | --golden-write FILE]
 *            [--check] [--family NAME]
 *
 * --corpus and --measured take comma-separated lists (several corpora, their files).
 * --measured picks the measurements (default tests/accuracy/corpus/h100.jsonl), --device the
 * built-in device every family is predicted for (default: the one its file names, the
 * H100): tests/accuracy/corpus/h200.jsonl with --device H200-SXM-141GB is the H200 corpus;
 * --device-file a description such as `launchrank calibrate` writes.
 *
 * --golden FILE holds every prediction (limits, blocks per SM, volumes; %.17g) to FILE's,
 * line for line, and fails the run on the first difference; --golden-write FILE writes
 * them (tests/accuracy/corpus/golden/: the files each CI run of this program compares with).
 * --dump writes one JSON line per configuration (prediction and measurement side by
 * side, with the predicted volumes in bytes per update; every number at full precision,
 * null where the measured line lacks a counter) for closer study; --lofo adds
 * leave-one-family-out figures: the model's fitted parameters (docs/model.md, "Fitted
 * parameters") are refitted without each family and that family is predicted with them.
 * --lofo-rules NAME=LO:HI:STEP,... does so for constants chosen on a grid instead, and
 * --lofo-also and --lofo-choose add data and criteria to its choices (acc_lofo.h).
 * --fit refits the device's fitted parameters on every family and prints them (how the
 * built-in defaults were made), then the table again with the fitted parameters (the
 * --dump file then holds their predictions), --starts N does so from N starts and keeps
 * the best (best_fit below), --save FILE writes the fitted device as a description
 * --device-file reads (fit on one corpus, judge on another: docs/accuracy.md, "Block
 * depth scan"); --hold names parameters both keep at the device's values (DEFAULT_HOLD
 * below). --check (the CI test) exits 1 when a configuration cannot be predicted or
 * measured, or when model v2 falls below the floors of docs/accuracy.md (options.floors,
 * on the leave-one-family-out figures with --lofo; the top-1 floors also hold the
 * decision's recommendation; --floors with five fractions replaces them and implies
 * --check): a regression guard, not the goal.
 *
 * The modules: acc_sets (the families and their measurements, predicted), acc_stats (each
 * family's figures), acc_report (the tables, --dump, --golden), acc_lofo (both
 * leave-one-family-out modes); this file reads the options and runs them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acc_lofo.h"
#include "acc_report.h"
#include "acc_sets.h"
#include "acc_stats.h"
#include "fit.h"

/* The parameters --fit and --lofo hold at the device's values unless --hold says
 * otherwise: those every fit holds (CAL_HELD, calibrate/fit.h), how the built-in
 * defaults were made (docs/model.md, "Fitted parameters"). */
#define DEFAULT_HOLD CAL_HELD

#ifndef SOURCE_DIR
#define SOURCE_DIR "."
#endif

/* The command line. */
typedef struct options {
    const char *model, *corpus, *measured;
    const char *device_name; /* --device: a built-in instead of each family's */
    char *device_json;       /* --device-file's description, owned (device_name points here) */
    const char *dump_path, *only, *hold, *save_path, *golden_path;
    int lofo, refit, check, starts, golden_write;
    acc_lofo *L; /* --lofo-rules and its companions */
    /* Floors for --check, a little under what model v2 reaches on the committed corpus
     * (docs/accuracy.md): a change that ranks worse fails CI. top-1 mean and min, top-3
     * mean, rho mean, and the most the mean over families of the median |error| of
     * GLup/s may be; --floors replaces them (the H200 test: a GPU the parameters were not
     * fitted on). top-1 min 0.96 since model 2026.11-11 (0.97 before): on the corpus
     * measured with cudagen's deferred stores star3d_r1_f64 picks a z-folded block at
     * 96.7 % of its best (docs/accuracy.md); 0.95, issue 8's own floor, since the float
     * LBM families joined the corpus (2026-11-27): d3q27_pull_f32 picks a block folded
     * in y at 95.5 % */
    double floors[5];
} options;

static const char usage[] =
    "usage: accuracy [--model warpspeed|v2] [--corpus DIR] "
    "[--measured FILE] [--device NAME | --device-file FILE] [--dump FILE] "
    "[--family NAME] "
    "[--golden FILE | --golden-write FILE] "
    "[--lofo | --lofo-rules NAME=LO:HI:STEP,... [--lofo-by error|error+top1] "
    "[--lofo-joint] [--lofo-also NAME[+NAME...]=DIR:MEASURED[:DEVICE] ...] "
    "[--lofo-choose NAME=no-worse|top1-first,...]] "
    "[--fit] [--starts N] [--save FILE] [--hold NAME,...] [--check] "
    "[--floors T1MEAN,T1MIN,T3MEAN,RHO,ERR]\n"
    "--lofo-rules chooses the named rules (EST_RULE) and device "
    "parameters, each on its grid with the others as in the model "
    "(--lofo-joint: on the grid of their combinations), without each "
    "family instead of refitting the device's parameters (default by "
    "error+top1)\n"
    "--hold names fitted parameters (calibrate/fit.c) that --fit and "
    "--lofo keep at the device's values (default \"%s\"; \"\" "
    "holds none); --starts N fits from the device's values "
    "and N-1 perturbed starts and keeps the best; --save FILE (implies "
    "--fit) writes the fitted device for --device-file\n";

/* The leave-one-family-out options at argv[*i] (and their arguments, *i moved past
 * them): 1 when it is one, 0 when not, -1 when --lofo-rules is not understood (said on
 * stderr). */
static int lofo_option(options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!strcmp(a, "--lofo"))
        o->lofo = 1;
    else if (!strcmp(a, "--lofo-rules") && next) {
        ++*i;
        if (acc_lofo_parse_rules(o->L, next))
            return -1;
        o->lofo = 1;
    } else if (!strcmp(a, "--lofo-joint"))
        acc_lofo_set_joint(o->L);
    else if (!strcmp(a, "--lofo-also") && next && !acc_lofo_add_also(o->L, next))
        ++*i;
    else if (!strcmp(a, "--lofo-choose") && next)
        acc_lofo_set_choose(o->L, argv[++*i]);
    else if (!strcmp(a, "--lofo-by") && next &&
             (!strcmp(next, "error") || !strcmp(next, "error+top1")))
        acc_lofo_set_by_error(o->L, !strcmp(argv[++*i], "error"));
    else
        return 0;
    return 1;
}

/* The fitting and checking options at argv[*i], as lofo_option (no -1). */
static int fit_option(options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    double *fl = o->floors;
    if (!strcmp(a, "--save") && next)
        o->save_path = argv[++*i], o->refit = 1;
    else if (!strcmp(a, "--fit"))
        o->refit = 1;
    else if (!strcmp(a, "--starts") && next && sscanf(argv[++*i], "%d", &o->starts) == 1 &&
             o->starts >= 1 && o->starts <= 1000)
        o->refit = 1;
    else if (!strcmp(a, "--hold") && next && cal_hold_valid(next))
        o->hold = argv[++*i];
    else if (!strcmp(a, "--check"))
        o->check = 1;
    else if (!strcmp(a, "--floors") && next &&
             sscanf(argv[++*i], "%lf,%lf,%lf,%lf,%lf", &fl[0], &fl[1], &fl[2], &fl[3],
                    &fl[4]) == 5)
        o->check = 1;
    else
        return 0;
    return 1;
}

/* The options naming what is predicted and what is written, as fit_option. */
static int set_option(options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!next)
        return 0;
    if (!strcmp(a, "--model"))
        o->model = argv[++*i];
    else if (!strcmp(a, "--corpus"))
        o->corpus = argv[++*i];
    else if (!strcmp(a, "--measured"))
        o->measured = argv[++*i];
    else if (!strcmp(a, "--device"))
        o->device_name = argv[++*i];
    else if (!strcmp(a, "--device-file")) {
        free(o->device_json);
        o->device_name = o->device_json = acc_device_file(argv[++*i]);
    } else if (!strcmp(a, "--dump"))
        o->dump_path = argv[++*i];
    else if (!strcmp(a, "--golden") || !strcmp(a, "--golden-write"))
        o->golden_write = !strcmp(a, "--golden-write"), o->golden_path = argv[++*i];
    else if (!strcmp(a, "--family"))
        o->only = argv[++*i];
    else
        return 0;
    return 1;
}

/* The command line into *o; 0, or 2 (the exit status) with the usage or the reason on
 * stderr. */
static int parse_options(options *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int got = set_option(o, argc, argv, &i);
        if (!got)
            got = lofo_option(o, argc, argv, &i);
        if (got < 0)
            return 2;
        if (!got && !fit_option(o, argc, argv, &i)) {
            fprintf(stderr, usage, DEFAULT_HOLD);
            return 2;
        }
    }
    return 0;
}

/* --fit with --starts N: the best of N fits (calibrate/fit.c, cal_fit_best: from the
 * device's values and N-1 fixed perturbations), each start's objective printed. Leaves
 * the samples applied to the best. */
static est_device best_fit(const est_device *dev, cal_sample *smp, int ns, const char *hold,
                           int starts)
{
    cal_text t = {0};
    est_device best = cal_fit_best(dev, smp, ns, hold, starts, &t);
    if (t.s)
        fputs(t.s, stdout);
    free(t.s);
    return best;
}

/* --fit: the device's parameters fitted on every family of the corpus (the samples smp)
 * and printed, then the table again with their predictions (into g). 0, or 1 when --save
 * cannot write the fitted device. */
static int fit(const options *o, acc_set *S, cal_sample *smp, int ns, acc_figures *g)
{
    est_device was = *acc_set_device(S);
    const est_device *dev = &was;
    int saved_badly = 0;
    double before = cal_objective(dev, smp, ns, -1);
    est_device d = best_fit(dev, smp, ns, o->hold, o->starts);
    printf("\nparameters fitted on all %d families (objective %.4f -> %.4f):\n",
           acc_set_nfams(S), before, cal_objective(&d, smp, ns, -1));
    for (int q = 0; q < CAL_NPARAMS; q++)
        printf("  %-26s %10.4g (was %.4g)\n", cal_param_name(q), *cal_param(&d, q),
               *cal_param(&was, q));
    if (o->save_path && !acc_set_save_device(S, o->save_path, &d))
        saved_badly = 1;
    /* the table and the dump below show the fitted parameters' predictions */
    acc_set_sync_predictions(S);
    acc_stats_all(S, g);
    acc_summary sm = acc_stats_summary(S, g);
    acc_report_table(S, "model v2 with the parameters fitted above", g, 0, NULL, &sm);
    acc_report_rank_precision(S);
    return saved_badly;
}

/* The tables of the corpus: the figures g (and, with --lofo, the leave-one-family-out
 * figures lg, computed here); the summary --check holds (the held-out one with --lofo).
 * -1 when --lofo-rules cannot refit. */
static int tables(const options *o, acc_set *S, cal_sample *smp, int ns, acc_figures *g,
                  acc_figures *lg, acc_summary *sm)
{
    int v2 = strcmp(o->model, "v2") == 0;
    char title[160];
    snprintf(title, sizeof title, "model %s, measured on %s (%s), device %s", o->model,
             acc_set_gpu_name(S), o->measured,
             o->device_name ? o->device_name : "of each family");
    acc_stats_all(S, g);
    if (o->lofo && acc_lofo_has_rules(o->L) && v2) {
        /* each family predicted with the axes chosen on a grid without it */
        if (acc_lofo_rules(o->L, acc_set_device(S), lg))
            return -1;
    } else if (o->lofo && v2) {
        /* each family predicted with parameters fitted on the others */
        acc_lofo_refit(S, acc_set_device(S), smp, ns, o->hold, lg);
    }
    *sm = acc_stats_summary(S, g);
    acc_report_table(S, title, g, o->lofo, lg, sm);
    acc_report_rank_precision(S);
    if (o->lofo && v2) {
        snprintf(title, sizeof title, "model v2, leave one family out (%s without it)",
                 acc_lofo_has_rules(o->L) ? "the --lofo-rules axes chosen"
                                          : "the device's parameters fitted");
        *sm = acc_stats_summary(S, lg); /* --check holds the held-out figures */
        acc_report_table(S, title, lg, 0, NULL, sm);
    }
    return 0;
}

/* --check: 1 when a configuration could not be predicted or model v2's summary sm falls
 * below the floors, printed; else 0. */
static int check(const options *o, int failures, const acc_summary *sm)
{
    const double *fl = o->floors;
    int n = sm->n, bad = failures > 0;
    if (!strcmp(o->model, "v2"))
        bad |= sm->top1_sum / n < fl[0] || sm->top1_min < fl[1] || sm->top3_sum / n < fl[2] ||
               sm->rho_sum / n < fl[3] || sm->err_sum / n > fl[4] || sm->rec_sum / n < fl[0] ||
               sm->rec_min < fl[1];
    printf("check: %d configurations not predicted; floors top1 (and the recommendation) "
           "mean %.1f %%, min %.1f %%, top3 mean %.1f %%, rho %.2f, GLup/s error at most "
           "%g %%: %s\n",
           failures, 100 * fl[0], 100 * fl[1], 100 * fl[2], fl[3], 100 * fl[4],
           bad ? "FAILED" : "passed");
    return bad;
}

/* Loads and predicts the set, prints its tables, fits, dumps; the exit status. */
static int run(const options *o, acc_set *S)
{
    if (acc_set_load(S, o->corpus, o->measured, o->device_name, o->only, 1) < 0)
        return 1;
    if (acc_set_close_corpus(S) == 0) {
        /* a summary over no family would print means of nothing (NaN) */
        fprintf(stderr,
                "accuracy: no family of %s was measured in %s: nothing to compare "
                "(--measured names the measurements)\n",
                o->corpus, o->measured);
        return 1;
    }
    if (acc_lofo_load(o->L, S))
        return 1;
    acc_set_predict(S);
    int golden_bad = o->golden_path ? acc_report_golden(S, o->golden_path, o->golden_write) : 0;
    acc_set_count_unmeasured(S, o->measured);
    acc_figures *g = acc_figures_new(S), *lg = acc_figures_new(S);
    int ns = 0, saved_badly = 0;
    cal_sample *smp = acc_set_samples(S, &ns);
    acc_summary sm;
    int refused = !g || !lg || tables(o, S, smp, ns, g, lg, &sm);
    if (!refused && o->refit && strcmp(o->model, "v2") == 0)
        saved_badly = fit(o, S, smp, ns, g);
    free(smp);
    if (!refused && o->dump_path)
        acc_report_dump(S, o->dump_path);
    free(g);
    free(lg);
    if (refused)
        return 1;
    int bad = o->check && check(o, acc_set_failures(S), &sm);
    return bad || saved_badly || golden_bad;
}

int main(int argc, char **argv)
{
    options o = {.model = "v2",
                 .corpus = SOURCE_DIR "/tests/accuracy/corpus/families",
                 .measured = SOURCE_DIR "/tests/accuracy/corpus/h100.jsonl",
                 .hold = DEFAULT_HOLD,
                 .starts = 1,
                 .floors = {0.99, 0.95, 0.99, 0.85, 0.08},
                 .L = acc_lofo_new()};
    if (!o.L)
        return 1;
    int status = parse_options(&o, argc, argv);
    acc_set *S = status ? NULL : acc_set_new(o.model);
    if (!status)
        status = S ? run(&o, S) : 1;
    acc_set_free(S);
    acc_lofo_free(o.L);
    free(o.device_json);
    return status;
}
