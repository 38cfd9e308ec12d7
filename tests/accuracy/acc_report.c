/*
 * acc_report: printing the figures and writing the dump and golden files (acc_report.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "acc_int.h"
#include "acc_report.h"

/* One family's line of the table. */
static void table_row(const family *F, const acc_figures *x, int with_lofo,
                      const acc_figures *lofo)
{
    char vol[3][16]; /* "-" where the measured file has no counters (timings only) */
    const double err[3] = {x->err_dram, x->err_l2, x->err_l1};
    for (int v = 0; v < 3; v++) {
        if (isnan(err[v]))
            snprintf(vol[v], sizeof vol[v], "%6s", "-");
        else
            snprintf(vol[v], sizeof vol[v], "%6.1f", 100 * err[v]);
    }
    printf("%-18s %4d %6.0f | %6.1f %s %s %s | %5.2f %6.1f %6.1f %6.1f | %6.1f "
           "%-9s | %6.1f",
           F->f.name, x->n, 100 * x->spread, 100 * x->err_glups, vol[0], vol[1], vol[2], x->rho,
           100 * x->top1, 100 * x->top3, 100 * x->rec, 100 * x->fixed, x->fixed_block,
           100 * x->noise);
    if (with_lofo)
        printf(" %6.1f", 100 * lofo->top1);
    printf("\n");
}

void acc_report_table(const acc_set *S, const char *title, const acc_figures *g, int with_lofo,
                      const acc_figures *lofo, const acc_summary *sm)
{
    const char *model = S->model;
    printf("\n%s\n", title);
    /* no trailing blanks when there is no lofo1 column: the tables are pasted into docs */
    printf("%-18s %4s %6s | %6s %6s %6s %6s | %5s %6s %6s %6s | %6s %-9s | %6s%s\n", "family",
           "n", "spread", "GLup/s", "DRAM", "L2", "L1", "rho", "top1", "top3", "rec", "fixed",
           "block", "noise", with_lofo ? "  lofo1" : "");
    printf("%-18s %4s %6s | %27s | %26s | %16s |\n", "", "", "%", "median |error| %", "",
           "% of best");
    for (int i = 0; i < S->nfams; i++)
        table_row(&S->fams[i], &g[i], with_lofo, with_lofo ? &lofo[i] : NULL);
    int n = sm->n;
    printf("summary (%s, %d families): top1 mean %.1f %% (min %.1f), top3 mean %.1f %% (min "
           "%.1f), rho mean %.2f, median GLup/s error mean %.1f %%, fixed block beats top1 in "
           "%d\n",
           model, n, 100 * sm->top1_sum / n, 100 * sm->top1_min, 100 * sm->top3_sum / n,
           100 * sm->top3_min, sm->rho_sum / n, 100 * sm->err_sum / n, sm->beaten);
    /* by how much: the misses of a few hundredths of a per cent lie inside the timing
     * noise (column noise), the others not */
    if (sm->beaten) {
        printf("fixed block ahead of top1 (%s):", model);
        for (int i = 0; i < S->nfams; i++)
            if (g[i].top1 < g[i].fixed)
                printf(" %s by %.2f %% (noise %.2f %%);", S->fams[i].f.name,
                       100 * (g[i].fixed - g[i].top1), 100 * g[i].noise);
        printf("\n");
    }
    printf("recommended (%s): the decision's pick at %.1f %% of the best on average (min "
           "%.1f); the fixed block beats it in %d\n",
           model, 100 * sm->rec_sum / n, 100 * sm->rec_min, sm->rec_beaten);
    printf("advised (%s): with the fixed block as its baseline, following the advice, at "
           "%.1f %% of the best on average (min %.1f); below the fixed block in %d\n",
           model, 100 * sm->adv_sum / n, 100 * sm->adv_min, sm->adv_beaten);
}

/* Written into the devices' rank_precision (estimator/devices/NAME.json) and
 * docs/accuracy.md. */
void acc_report_rank_precision(const acc_set *S)
{
    size_t n = 0;
    double p90 = 0, median = 0;
    if (acc_stats_rank_precision(S, &n, &p90, &median))
        printf("rank precision (%s): 90th percentile of |predicted/measured / family median "
               "- 1| over %zu configurations within 10 %% of their family's measured best: "
               "%.2f %% (median %.2f %%)\n",
               S->model, n, 100 * p90, 100 * median);
}

/* name = value pairs added to o: numbers at full precision (cJSON prints a double with
 * as many digits as it takes to read it back), null where a figure is not a number (a
 * counter the measured line lacks), so that every line is JSON a script reads as is */
typedef struct dump_num {
    const char *name;
    double v;
} dump_num;

static void add_nums(cJSON *o, const dump_num *n, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (isfinite(n[i].v))
            cJSON_AddNumberToObject(o, n[i].name, n[i].v);
        else
            cJSON_AddNullToObject(o, n[i].name);
}

/* the pairs as an object of their own, named name in o */
static void add_group(cJSON *o, const char *name, const dump_num *n, size_t k)
{
    cJSON *g = cJSON_AddObjectToObject(o, name);
    if (g)
        add_nums(g, n, k);
}

static void add_triple(cJSON *o, const char *name, const int v[3])
{
    cJSON_AddItemToObject(o, name, cJSON_CreateIntArray(v, 3));
}

/* One configuration's line of --dump: the model's limits, volumes and intermediate
 * figures beside what was measured. */
static cJSON *dump_row(const char *family, const row *r)
{
    const est_result *e = &r->r;
    const est_volumes *t = &e->total;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "family", family);
    add_triple(o, "block", r->c.block);
    add_triple(o, "folding", r->c.folding);
    const dump_num head[] = {{"measured", r->m.glups}, {"predicted", r->pred}};
    add_nums(o, head, 2);
    cJSON_AddStringToObject(o, "limiter", est_limiter_name(e->limiter));
    const dump_num p[] = {{"flops", e->perf_flops},
                          {"l1", e->perf_l1},
                          {"l2", e->perf_l2},
                          {"dram", e->perf_dram},
                          {"latency", e->perf_latency},
                          {"blocks", e->perf_blocks},
                          {"stores", e->perf_stores},
                          {"l2_requests", e->perf_l2_requests},
                          {"l1_requests", e->perf_l1_requests}};
    add_group(o, "perf", p, sizeof p / sizeof *p);
    const dump_num mid[] = {{"blocks_per_sm", e->blocks_per_sm},
                            {"l1_cycles", t->l1_cycles},
                            {"l1_wavefronts", r->m.l1_wavefronts},
                            {"dram", t->dram_load + t->dram_store},
                            {"dram_m", r->m.dram_load + r->m.dram_store},
                            {"l2", t->l2_load + t->l2_store},
                            {"l2_m", r->m.l2_load + r->m.l2_store},
                            {"active_threads", e->active_threads_per_sm},
                            {"bytes_in_flight", e->bytes_in_flight_per_sm},
                            {"updates_per_block", e->updates_per_block},
                            {"registers", r->m.registers},
                            {"l1_wavefronts_predicted", e->l1_wavefronts}};
    add_nums(o, mid, sizeof mid / sizeof *mid);
    const dump_num v[] = {{"l2_load", t->l2_load},
                          {"l2_store", t->l2_store},
                          {"l2_store_charged", t->l2_store_charged},
                          {"l2_store_requests", t->l2_store_requests},
                          {"l2_load_requests", t->l2_load_requests},
                          {"l2_load_requests_m", r->m.l2_load_requests},
                          {"dram_load", t->dram_load},
                          {"dram_store", t->dram_store},
                          {"l2_store_partial", t->l2_store_partial},
                          {"l2_store_left", t->l2_store_left},
                          {"dram_charged", e->dram_charged}};
    add_group(o, "volumes", v, sizeof v / sizeof *v);
    const dump_num w[] = {{"overlap_y", e->wave_overlap_y},
                          {"overlap_z", e->wave_overlap_z},
                          {"oversub_y", e->wave_oversub_y},
                          {"oversub_z", e->wave_oversub_z}};
    add_group(o, "wave", w, sizeof w / sizeof *w);
    const dump_num tail[] = {
        {"dram_load_m", r->m.dram_load},
        {"lattice_updates", (double)e->lattice_updates},
        {"l1_requests_per_update", e->l1_requests_per_update},
        {"warp_active_share", e->warp_active_share},
        {"l1_coverage", e->l1_coverage},
        {"l1_load", t->l1_load},
        {"l2_load_compulsory", t->l2_load_compulsory},
        {"stores_left_in_l2", e->stores_left_in_l2 / (double)e->lattice_updates},
        {"dram_store_m", r->m.dram_store},
        {"dram_load_warm", t->dram_load_warm},
        {"partial_sector_share", e->partial_sector_share},
        {"partial_sectors_in_flight_per_sm", e->partial_sectors_in_flight_per_sm}};
    add_nums(o, tail, sizeof tail / sizeof *tail);
    return o;
}

void acc_report_dump(const acc_set *S, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    for (int i = 0; i < S->nfams; i++)
        for (int k = 0; k < S->fams[i].nrows; k++) {
            cJSON *o = dump_row(S->fams[i].f.name, &S->fams[i].rows[k]);
            char *text = cJSON_PrintUnformatted(o);
            if (text)
                fprintf(f, "%s\n", text);
            free(text);
            cJSON_Delete(o);
        }
    fclose(f);
}

/* One line per configuration of the model's own prediction, every figure at full
 * precision (%.17g: the bits of the double), for --golden: a restructuring must leave
 * each of them unchanged. Appended to *text (malloc'd); 0, or -1 when out of memory. */
static int golden_text(const acc_set *S, char **text, size_t *len)
{
    size_t cap = 4096;
    *len = 0;
    if (!(*text = malloc(cap)))
        return -1;
    for (int i = 0; i < S->nfams; i++)
        for (int k = 0; k < S->fams[i].nrows; k++) {
            const row *r = &S->fams[i].rows[k];
            const est_result *e = &r->r;
            char line[1024];
            int n = snprintf(
                line, sizeof line,
                "%s %d,%d,%d %d,%d,%d %s %.17g perf %.17g %.17g %.17g %.17g %.17g %.17g %.17g "
                "%.17g %.17g bps %d vol %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
                S->fams[i].f.name, r->c.block[0], r->c.block[1], r->c.block[2], r->c.folding[0],
                r->c.folding[1], r->c.folding[2], r->ok ? est_limiter_name(e->limiter) : "-",
                e->predicted, e->perf_flops, e->perf_l1, e->perf_l2, e->perf_dram,
                e->perf_latency, e->perf_blocks, e->perf_stores, e->perf_l2_requests,
                e->perf_l1_requests, e->blocks_per_sm, e->total.l1_cycles, e->l1_wavefronts,
                e->total.l2_load, e->total.l2_store, e->total.dram_load, e->total.dram_store,
                e->total.l2_store_requests, e->total.l2_load_requests);
            if (n < 0 || (size_t)n >= sizeof line)
                return -1;
            while (*len + (size_t)n + 1 > cap) {
                char *t = realloc(*text, cap *= 2);
                if (!t)
                    return -1;
                *text = t;
            }
            memcpy(*text + *len, line, (size_t)n + 1);
            *len += (size_t)n;
        }
    return 0;
}

int acc_report_golden(const acc_set *S, const char *path, int write)
{
    char *mine = NULL, *want = NULL;
    size_t n = 0;
    if (golden_text(S, &mine, &n)) {
        free(mine);
        fprintf(stderr, "golden: out of memory\n");
        return 1;
    }
    FILE *f = fopen(path, write ? "w" : "r");
    int bad = !f;
    if (f && write) {
        bad = fwrite(mine, 1, n, f) != n;
        printf("golden: %s written\n", path);
    } else if (f) {
        size_t cap = n + 2, got = 0;
        want = malloc(cap);
        got = want ? fread(want, 1, cap - 1, f) : 0;
        if (want)
            want[got] = '\0';
        bad = !want || got != n || memcmp(want, mine, n) != 0;
        int shown = 0, line = 1;
        for (const char *a = mine, *b = want ? want : ""; bad && *a && shown < 5; line++) {
            const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
            size_t la = ea ? (size_t)(ea - a) : strlen(a),
                   lb = eb ? (size_t)(eb - b) : strlen(b);
            if (la != lb || memcmp(a, b, la) != 0) {
                fprintf(stderr, "golden: %s line %d differs:\n  want %.*s\n  got  %.*s\n", path,
                        line, (int)lb, b, (int)la, a);
                shown++;
            }
            a += la + (ea != NULL);
            b += lb + (eb != NULL);
        }
        if (bad)
            fprintf(stderr,
                    "golden: predictions differ from %s (a change meant to move them "
                    "rewrites it with --golden-write, in a measured commit)\n",
                    path);
        else
            printf("golden: %d families, every prediction as in %s\n", S->nfams, path);
    }
    if (!f)
        perror(path);
    else
        fclose(f);
    free(mine);
    free(want);
    return bad;
}
