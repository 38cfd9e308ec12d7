/*
 * acc_stats: each family's figures (acc_stats.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "acc_int.h"
#include "decide.h"
#include "fit.h"
#include "response.h"

static int usable(const row *r)
{
    return r->ok && r->m.glups > 0;
}

static double best_measured(const family *F)
{
    double b = 0;
    for (int k = 0; k < F->nrows; k++)
        if (usable(&F->rows[k]) && F->rows[k].m.glups > b)
            b = F->rows[k].m.glups;
    return b;
}

static const lr_rank_key *order_keys; /* for by_rank (qsort has no context) */
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;

static int by_rank(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = lr_rank_key_cmp(&order_keys[x], &order_keys[y]);
    return c ? c : (x > y) - (x < y);
}

/* The usable rows of F, into idx, in the order `launchrank rank` lists them: by the
 * prediction, DRAM and L2 volumes its response reports (lr_rank_key_cmp), a tie in all
 * three to the earlier configuration. The prediction is the one under the parameters
 * being evaluated (row.pred). Their number; -1 when out of memory. */
static int ranked(const family *F, int *idx)
{
    lr_rank_key *keys = calloc(F->nrows > 0 ? (size_t)F->nrows : 1, sizeof *keys);
    if (!keys)
        return -1;
    int n = 0;
    for (int k = 0; k < F->nrows; k++)
        if (usable(&F->rows[k])) {
            keys[k] = lr_rank_key_of(&F->rows[k].r);
            keys[k].predicted = lr_reported(F->rows[k].pred);
            idx[n++] = k;
        }
    pthread_mutex_lock(&order_lock);
    order_keys = keys;
    qsort(idx, (size_t)n, sizeof *idx, by_rank);
    pthread_mutex_unlock(&order_lock);
    free(keys);
    return n;
}

/* fraction of the measured optimum reached by the best of the predicted top k, the n
 * rows idx in ranked order (ranked) */
static double top_k(const family *F, const int *idx, int n, int kk)
{
    double best = best_measured(F), got = 0;
    for (int t = 0; t < kk && t < n; t++)
        if (F->rows[idx[t]].m.glups > got)
            got = F->rows[idx[t]].m.glups;
    return best > 0 ? got / best : 0;
}

/* The row of F that runs block unfolded; -1 when F has none. */
static int unfolded_row(const family *F, const int block[3])
{
    for (int k = 0; k < F->nrows; k++) {
        const corpus_config *c = &F->rows[k].c;
        if (!memcmp(c->block, block, sizeof c->block) &&
            c->folding[0] * c->folding[1] * c->folding[2] == 1)
            return k;
    }
    return -1;
}

/* Measured speed of the configuration a ranking of the family would recommend
 * (protocol/decide.c: the preferred member of the tie group within the device's
 * rank_precision) as a share of the best measured: what a code generator that follows
 * the decision gets; into *advised the same for one that passes the fixed block fb as
 * its baseline and follows the advice (keep it inside the precision, else switch). The
 * n rows idx in ranked order (ranked). */
static double recommended(const family *F, const int *idx, int n, const int fb[3],
                          double *advised)
{
    lr_choice *c = calloc(n > 0 ? (size_t)n : 1, sizeof *c);
    double best = best_measured(F), got = 0;
    if (c && n > 0) {
        for (int i = 0; i < n; i++) {
            lr_choice_from_result(&c[i], &F->rows[idx[i]].r, &F->dev);
            c[i].predicted = F->rows[idx[i]].pred;
            c[i].rank = i + 1;
        }
        int v2 = strcmp(F->set->model, "v2") == 0;
        size_t p = lr_decision_pick(c, (size_t)n, F->dev.rank_precision, v2);
        got = p < (size_t)n ? F->rows[idx[p]].m.glups : 0;
        int fk = unfolded_row(F, fb);
        size_t base = (size_t)n;
        for (int i = 0; i < n; i++)
            if (idx[i] == fk)
                base = (size_t)i;
        size_t a = base < (size_t)n
                       ? lr_decision_follow(c, (size_t)n, F->dev.rank_precision, v2, base)
                       : p;
        *advised = a < (size_t)n && best > 0 ? F->rows[idx[a]].m.glups / best : 0;
    }
    free(c);
    return best > 0 ? got / best : 0;
}

/* Median |predicted / measured - 1| over the configurations with counters of one volume:
 * which 0, DRAM; 1, L2; else the L1 wavefronts. */
static double volume_err(const family *F, int which)
{
    double *e = malloc(sizeof(double) * (size_t)(F->nrows + 1));
    int n = 0;
    for (int k = 0; k < F->nrows; k++) {
        const row *r = &F->rows[k];
        if (!r->ok || !r->m.has_counters)
            continue;
        double p, m;
        switch (which) {
        case 0:
            /* the profiler counts one launch: without the stores it leaves in L2 */
            p = r->r.total.dram_load + r->r.total.dram_store -
                r->r.stores_left_in_l2 / (double)r->r.lattice_updates;
            m = r->m.dram_load + r->m.dram_store;
            break;
        case 1:
            p = r->r.total.l2_load + r->r.total.l2_store;
            m = r->m.l2_load + r->m.l2_store;
            break;
        default:
            /* v2 predicts the profiler's counter (docs/model.md §3 "Predicted
             * wavefronts"); the reference method only has its L1 cycles */
            p = strcmp(F->set->model, "warpspeed") ? r->r.l1_wavefronts : r->r.total.l1_cycles;
            m = r->m.l1_wavefronts;
        }
        if (m > 0)
            e[n++] = fabs(p / m - 1);
    }
    double med = cal_median(e, n);
    free(e);
    return med;
}

/* the best fixed block for the corpus's families of ndims: the unfolded block with the
 * highest geometric mean of (measured / measured best) over those families */
static void fixed_block(const acc_set *S, int ndims, int block[3])
{
    const family *fams = S->fams;
    double best = -1;
    for (int i = 0; i < S->nfams; i++) {
        if (fams[i].ndims != ndims)
            continue;
        for (int k = 0; k < fams[i].nrows; k++) {
            const corpus_config *c = &fams[i].rows[k].c;
            if (c->folding[0] * c->folding[1] * c->folding[2] != 1)
                continue;
            double lsum = 0;
            int n = 0, missing = 0;
            for (int j = 0; j < S->nfams; j++) {
                if (fams[j].ndims != ndims)
                    continue;
                int q = unfolded_row(&fams[j], c->block);
                double b = best_measured(&fams[j]), v = q >= 0 ? fams[j].rows[q].m.glups : 0;
                if (v <= 0 || b <= 0)
                    missing = 1;
                else
                    lsum += log(v / b), n++;
            }
            if (!missing && n && lsum / n > best) {
                best = lsum / n;
                memcpy(block, c->block, sizeof c->block);
            }
        }
    }
}

/* The rank statistics of F (top 1, top 3, the decision's pick, the fixed block) into g. */
static void rank_figures(const acc_set *S, const family *F, acc_figures *g)
{
    int *idx = calloc(F->nrows > 0 ? (size_t)F->nrows : 1, sizeof *idx);
    int nr = idx ? ranked(F, idx) : -1; /* once: top 1, top 3 and the decision read it */
    g->top1 = top_k(F, idx, nr, 1);
    g->top3 = top_k(F, idx, nr, 3);
    int fb[3] = {0, 0, 0};
    fixed_block(S, F->ndims, fb);
    g->rec = recommended(F, idx, nr, fb, &g->advised);
    free(idx);
    double b = best_measured(F);
    int fk = unfolded_row(F, fb);
    if (fk >= 0 && b > 0)
        g->fixed = F->rows[fk].m.glups / b;
    snprintf(g->fixed_block, sizeof g->fixed_block, "%dx%dx%d", fb[0], fb[1], fb[2]);
}

void acc_stats_family(const acc_set *S, int i, acc_figures *out)
{
    const family *F = &S->fams[i];
    acc_figures g;
    memset(&g, 0, sizeof g);
    int N = F->nrows;
    size_t cap = N > 0 ? (size_t)N : 1;
    double *pe = calloc(cap, sizeof(double)), *pp = calloc(cap, sizeof(double)),
           *mm = calloc(cap, sizeof(double)), *nz = calloc(cap, sizeof(double));
    int n = 0, nn = 0;
    double lo = INFINITY, hi = 0;
    for (int k = 0; k < N; k++) {
        const row *r = &F->rows[k];
        if (!usable(r))
            continue;
        pe[n] = fabs(r->pred / r->m.glups - 1);
        pp[n] = r->pred;
        mm[n] = r->m.glups;
        n++;
        lo = fmin(lo, r->m.glups);
        hi = fmax(hi, r->m.glups);
        if (r->m.glups_repeat > 0)
            nz[nn++] = fabs(r->m.glups_repeat / r->m.glups - 1);
    }
    g.n = n;
    g.rho = cal_spearman(pp, mm, n);
    g.err_glups = cal_median(pe, n);
    g.noise = cal_median(nz, nn);
    g.spread = hi > 0 ? 1 - lo / hi : 0;
    g.err_dram = volume_err(F, 0);
    g.err_l2 = volume_err(F, 1);
    g.err_l1 = volume_err(F, 2);
    rank_figures(S, F, &g);
    free(pe);
    free(pp);
    free(mm);
    free(nz);
    out[i] = g;
}

acc_figures *acc_figures_new(const acc_set *S)
{
    return calloc(S->nfams > 0 ? (size_t)S->nfams : 1, sizeof(acc_figures));
}

void acc_stats_all(const acc_set *S, acc_figures *g)
{
    for (int i = 0; i < S->nfams; i++)
        acc_stats_family(S, i, g);
}

double acc_stats_term(const acc_set *S, int i, double *shortfall)
{
    const family *F = &S->fams[i];
    double *e = calloc(F->nrows > 0 ? (size_t)F->nrows : 1, sizeof *e);
    int *idx = calloc(F->nrows > 0 ? (size_t)F->nrows : 1, sizeof *idx);
    int n = 0;
    for (int k = 0; e && k < F->nrows; k++)
        if (usable(&F->rows[k]))
            e[n++] = fabs(F->rows[k].pred / F->rows[k].m.glups - 1);
    double term = cal_median(e, n);
    int nr = idx ? ranked(F, idx) : -1;
    *shortfall = 1 - top_k(F, idx, nr, 1);
    free(e);
    free(idx);
    return term;
}

acc_summary acc_stats_summary(const acc_set *S, const acc_figures *g)
{
    acc_summary sm = {0, 0, 1e9, 0, 1e9, 0, 0, 0, 1e9, 0, 1e9, 0, 0, 0};
    for (int i = 0; i < S->nfams; i++) {
        const acc_figures *x = &g[i];
        sm.n++;
        sm.top1_sum += x->top1;
        sm.top3_sum += x->top3;
        sm.rho_sum += x->rho;
        sm.err_sum += x->err_glups;
        sm.top1_min = fmin(sm.top1_min, x->top1);
        sm.top3_min = fmin(sm.top3_min, x->top3);
        sm.rec_sum += x->rec;
        sm.rec_min = fmin(sm.rec_min, x->rec);
        sm.beaten += x->top1 < x->fixed;
        sm.rec_beaten += x->rec < x->fixed;
        sm.adv_sum += x->advised;
        sm.adv_min = fmin(sm.adv_min, x->advised);
        sm.adv_beaten += x->advised < x->fixed;
    }
    return sm;
}

int acc_stats_rank_precision(const acc_set *S, size_t *count, double *p90, double *median)
{
    size_t cap = 1, n = 0;
    for (int i = 0; i < S->nfams; i++)
        cap += (size_t)S->fams[i].nrows;
    double *dev = calloc(cap, sizeof *dev), *q = calloc(cap, sizeof *q);
    for (int i = 0; dev && q && i < S->nfams; i++) {
        const family *F = &S->fams[i];
        double best = best_measured(F);
        int m = 0;
        for (int k = 0; k < F->nrows; k++) {
            const row *r = &F->rows[k];
            if (usable(r) && r->m.glups >= 0.9 * best)
                q[m++] = r->pred / r->m.glups;
        }
        double med = cal_median(q, m);
        for (int k = 0; k < m && med > 0; k++)
            dev[n++] = fabs(q[k] / med - 1);
    }
    int some = dev && n > 0;
    if (some) {
        for (size_t i = 1; i < n; i++) /* insertion sort: a few hundred values */
            for (size_t j = i; j > 0 && dev[j - 1] > dev[j]; j--) {
                double t = dev[j];
                dev[j] = dev[j - 1];
                dev[j - 1] = t;
            }
        *count = n;
        *p90 = dev[(size_t)(0.9 * (double)(n - 1) + 0.5)];
        *median = dev[(n - 1) / 2];
    }
    free(dev);
    free(q);
    return some;
}
