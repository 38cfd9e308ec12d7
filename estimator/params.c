/* params: the tables of params.def (device.h's est_mparams, estimator_int.h's
 * est_rules) and the figures read through a row's kind (est_mparam_sole); the rules by
 * name for tools (estimator.h, est_rule_set). */
#include <stddef.h>
#include <string.h>

#include "estimator_int.h"

const est_mparam est_mparams[] = {
#define EST_PARAM(n, kind, h100, lo, lo_open, hi, hi_open, must, unit, doc)                   \
    {#n, kind, offsetof(est_device, n), h100, lo, hi, lo_open, hi_open, must, unit},
#include "params.def"
#undef EST_PARAM
};
const int est_nmparams = (int)(sizeof est_mparams / sizeof est_mparams[0]);

double *est_mparam_in(est_device *d, const est_mparam *p)
{
    return (double *)((char *)d + p->offset);
}

const est_mparam *est_mparam_sole(est_mparam_kind kind)
{
    const est_mparam *found = NULL;
    for (int i = 0; i < est_nmparams; i++) {
        if (est_mparams[i].kind != kind)
            continue;
        if (found)
            return NULL;
        found = &est_mparams[i];
    }
    return found;
}

double est_device_tie_width(const est_device *d)
{
    return *(const double *)((const char *)d + est_mparam_sole(EST_RANKING)->offset);
}

/* Not const: a tool that studies the model may set a rule (est_rule_set); nothing in
 * the library or the server does, so every estimate reads params.def's values. */
double est_rules[EST_NRULES] = {
#define EST_RULE(name, value, section, meaning) value,
#include "params.def"
#undef EST_RULE
};

static const char *const rule_names[EST_NRULES] = {
#define EST_RULE(name, value, section, meaning) #name,
#include "params.def"
#undef EST_RULE
};

/* The index of the rule called name, or -1. */
static int rule_index(const char *name)
{
    for (int i = 0; i < EST_NRULES; i++)
        if (!strcmp(rule_names[i], name))
            return i;
    return -1;
}

int est_rule_get(const char *name, double *value)
{
    int i = rule_index(name);
    if (i < 0)
        return -1;
    *value = est_rules[i];
    return 0;
}

int est_rule_set(const char *name, double value)
{
    int i = rule_index(name);
    if (i < 0)
        return -1;
    est_rules[i] = value;
    return 0;
}
