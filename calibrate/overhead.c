/*
 * overhead: the launch overhead from size scans (overhead.h, docs/model.md "Launch
 * overhead").
 */
#include "overhead.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cal_scan_kernel(const char *family, char *out, size_t size)
{
    const char *cut = strrchr(family, '_');
    if (!cut || cut[1] != 'n' || !isdigit((unsigned char)cut[2]))
        return -1;
    for (const char *c = cut + 2; *c; c++)
        if (!isdigit((unsigned char)*c))
            return -1;
    size_t len = (size_t)(cut - family);
    if (len == 0 || len >= size)
        return -1;
    memcpy(out, family, len);
    out[len] = 0;
    return 0;
}

void cal_scan_group(const char *kernel, const int block[3], const int folding[3],
                    char out[96])
{
    snprintf(out, 96, "%s %dx%dx%d %dx%dx%d", kernel, block[0], block[1], block[2],
             folding[0], folding[1], folding[2]);
}

/* A JSON array of three integers into v; 0, or -1 when it is not one. */
static int read_int3(const cJSON *a, int v[3])
{
    if (cJSON_GetArraySize(a) != 3)
        return -1;
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(x) || x->valuedouble != (int)x->valuedouble)
            return -1;
        v[i] = (int)x->valuedouble;
    }
    return 0;
}

int cal_scan_group_of(const cJSON *run, char out[96])
{
    const char *fam = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "family"));
    int block[3], folding[3];
    char kernel[64];
    if (!fam || cal_scan_kernel(fam, kernel, sizeof kernel) ||
        read_int3(cJSON_GetObjectItemCaseSensitive(run, "block"), block) ||
        read_int3(cJSON_GetObjectItemCaseSensitive(run, "folding"), folding))
        return -1;
    cal_scan_group(kernel, block, folding, out);
    return 0;
}

static int cmp_group(const void *a, const void *b)
{
    const cal_scan_point *x = *(const cal_scan_point *const *)a;
    const cal_scan_point *y = *(const cal_scan_point *const *)b;
    int c = strcmp(x->group, y->group);
    if (c)
        return c;
    return (x->lattice_updates > y->lattice_updates) - (x->lattice_updates < y->lattice_updates);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The line through the n points of one scan, sorted by size, into *l; 0, or -1 when
 * they span fewer than CAL_SCAN_MIN_SIZES sizes. */
static int scan_line(const cal_scan_point *const *p, int n, cal_scan_line *l)
{
    int sizes = 0;
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        sizes += i == 0 || p[i]->lattice_updates != p[i - 1]->lattice_updates;
        mx += p[i]->lattice_updates / n;
        my += p[i]->ms * 1e3 / n;
    }
    if (sizes < CAL_SCAN_MIN_SIZES)
        return -1;
    double sxy = 0, sxx = 0;
    for (int i = 0; i < n; i++) {
        double dx = p[i]->lattice_updates - mx;
        sxy += dx * (p[i]->ms * 1e3 - my);
        sxx += dx * dx;
    }
    double slope = sxy / sxx; /* us per update */
    memcpy(l->group, p[0]->group, sizeof l->group);
    l->sizes = sizes;
    l->us = my - slope * mx;
    l->body_glups = slope > 0 ? 1e-3 / slope : 0;
    return 0;
}

int cal_overhead_fit(const cal_scan_point *p, int n, cal_overhead *out, cal_scan_line *lines,
                     lr_error *err)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++)
        if (!(p[i].lattice_updates > 0 && isfinite(p[i].lattice_updates) && p[i].ms > 0 &&
              isfinite(p[i].ms)))
            return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                                "size scan %s: a launch of %g updates timed at %g ms; both "
                                "must be positive numbers",
                                p[i].group, p[i].lattice_updates, p[i].ms);
    const cal_scan_point **sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
    double *icpt = malloc((size_t)(n > 0 ? n : 1) * sizeof *icpt);
    if (!sorted || !icpt) {
        free(sorted);
        free(icpt);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    for (int i = 0; i < n; i++)
        sorted[i] = &p[i];
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_group);
    int m = 0;
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && strcmp(sorted[j]->group, sorted[i]->group) == 0; j++)
            ;
        cal_scan_line l;
        if (scan_line(sorted + i, j - i, &l))
            continue;
        if (lines)
            lines[m] = l;
        icpt[m++] = l.us;
    }
    free(sorted);
    if (m == 0) {
        free(icpt);
        return lr_error_set(err, LR_INVALID_REQUEST, NULL,
                            "no size scan has %d sizes: the launch overhead cannot be fitted",
                            CAL_SCAN_MIN_SIZES);
    }
    qsort(icpt, (size_t)m, sizeof *icpt, cmp_double);
    out->us = m % 2 ? icpt[m / 2] : 0.5 * (icpt[m / 2 - 1] + icpt[m / 2]);
    out->lo_us = icpt[0];
    out->hi_us = icpt[m - 1];
    out->scans = m;
    free(icpt);
    return 0;
}
