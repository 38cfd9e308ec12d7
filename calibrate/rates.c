/*
 * rates: instruction rates from the recorded microbenchmark (rates.h).
 */
#include "rates.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_name[CAL_RATE_CLASSES] = {"fp32", "fp64", "special", "integer",
                                                         "issue"};
static const char *const figure[CAL_RATE_CLASSES] = {
    "fp32_lanes", "fp64_lanes", "special_lanes", "integer_lanes", "issue_lanes"};
/* What each kernel runs (micro_kernels.cu), for the report and the sources. */
static const char *const how[CAL_RATE_CLASSES] = {"FFMA chains", "DFMA chains",
                                                  "MUFU chains (rsqrt, ex2)", "SHF+LOP3 chains",
                                                  "6 FFMA : 2 integer mix"};

/* Devices give figures up to 4096 (estimator/device.c): no GPU comes near. */
#define RATE_MAX 4096

const char *cal_rate_figure(int c)
{
    return c >= 0 && c < CAL_RATE_CLASSES ? figure[c] : NULL;
}

int cal_rate_round(double per_cycle)
{
    if (!(per_cycle > 0))
        return 1;
    double p = exp2(round(log2(per_cycle)));
    long r = fabs(per_cycle / p - 1) <= CAL_RATE_SNAP ? lround(p) : lround(per_cycle);
    return r < 1 ? 1 : r > RATE_MAX ? RATE_MAX : (int)r;
}

static int bad(lr_error *err, int i, const char *key, const char *why)
{
    char path[64];
    snprintf(path, sizeof path, "micro.rates[%d]%s%s", i, *key ? "." : "", key);
    return lr_error_set(err, LR_INVALID_REQUEST, path, "calibration record: %s", why);
}

/* Member key of row as a positive finite number, or 0. */
static double num(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(row, key);
    return cJSON_IsNumber(v) && v->valuedouble > 0 && isfinite(v->valuedouble) ? v->valuedouble
                                                                               : 0;
}

/* One row: its class into *c and its rate into out. 0, or -1 with err. */
static int analyse_row(const cJSON *r, int i, cal_rates *out, int *c, lr_error *err)
{
    static const char *const keys[] = {"threads_per_sm", "ops_per_thread", "cycles", "ns",
                                       NULL};
    const cJSON *cls = cJSON_GetObjectItem(r, "class");
    *c = 0;
    while (*c < CAL_RATE_CLASSES &&
           !(cJSON_IsString(cls) && !strcmp(cls->valuestring, class_name[*c])))
        (*c)++;
    if (*c == CAL_RATE_CLASSES)
        return bad(err, i, "class", "must be one of fp32, fp64, special, integer, issue");
    if (out->per_cycle[*c] > 0)
        return bad(err, i, "class", "measured twice");
    for (const char *const *k = keys; *k; k++)
        if (!num(r, *k))
            return bad(err, i, *k, "must be a positive number");
    double rate = num(r, "ops_per_thread") * num(r, "threads_per_sm") / num(r, "cycles");
    if (rate > RATE_MAX)
        return bad(err, i, "cycles", "gives more than 4096 results per cycle per SM");
    out->per_cycle[*c] = rate;
    out->ghz[*c] = num(r, "cycles") / num(r, "ns");
    out->lanes[*c] = cal_rate_round(rate);
    out->measured++;
    return 0;
}

int cal_rates_analyse(const cJSON *micro, cal_rates *out, cal_text *t, lr_error *err)
{
    memset(out, 0, sizeof *out);
    const cJSON *arr = micro ? cJSON_GetObjectItem(micro, "rates") : NULL;
    if (!arr)
        return 0;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
        return lr_error_set(err, LR_INVALID_REQUEST, "micro.rates",
                            "calibration record: needs an array of at least one row");
    int i = 0, c;
    for (const cJSON *r = arr->child; r; r = r->next, i++)
        if (!cJSON_IsObject(r) ? bad(err, i, "", "must be an object")
                               : analyse_row(r, i, out, &c, err))
            return -1;
    if (!t)
        return 0;
    cal_say(
        t, "\nInstruction rates (independent chains, all the threads an SM holds; per cycle of "
           "the SM clock under each load,\nclock64 over each block, the median over blocks):\n"
           "  class    kernel                         results/cycle/SM  clock GHz  written\n");
    for (c = 0; c < CAL_RATE_CLASSES; c++)
        if (out->per_cycle[c] > 0)
            cal_say(t, "  %-8s %-30s %16.1f %10.3f  %s %d\n", class_name[c], how[c],
                    out->per_cycle[c], out->ghz[c], figure[c], out->lanes[c]);
        else
            cal_say(t, "  %-8s not measured: %s stays the base device's\n", class_name[c],
                    figure[c]);
    return 0;
}

void cal_rates_apply(const cal_rates *r, est_device *dev)
{
    int *field[CAL_RATE_CLASSES] = {&dev->fp32_lanes, &dev->fp64_lanes, &dev->special_lanes,
                                    &dev->integer_lanes, &dev->issue_lanes};
    for (int c = 0; c < CAL_RATE_CLASSES; c++)
        if (r->per_cycle[c] > 0)
            *field[c] = r->lanes[c];
}

void cal_rates_source(const cal_rates *r, const char *who, char *key, size_t key_size, char *s,
                      size_t size)
{
    *key = 0;
    int n =
        snprintf(s, size,
                 "measured by launchrank calibrate on %s (docs/calibration.md, "
                 "\"Instruction rates\"): results per cycle per SM of independent "
                 "instruction chains, all the threads an SM holds, over the SM's own cycles "
                 "(clock64) under that load; the nearest power of two when within %.0f %% "
                 "of it:",
                 who, CAL_RATE_SNAP * 100);
    for (int c = 0; c < CAL_RATE_CLASSES; c++) {
        if (!(r->per_cycle[c] > 0))
            continue;
        size_t kl = strlen(key);
        snprintf(key + kl, key_size - kl, "%s%s", kl ? "," : "", figure[c]);
        if (n >= 0 && (size_t)n < size)
            n += snprintf(s + n, size - (size_t)n, "%s %s %d (%s, %.1f at %.3f GHz)",
                          kl ? ";" : "", figure[c], r->lanes[c], how[c], r->per_cycle[c],
                          r->ghz[c]);
    }
}
