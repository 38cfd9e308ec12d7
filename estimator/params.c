/* params: the tables of params.def (device.h's est_mparams, estimator_int.h's
 * est_rules). */
#include <stddef.h>

#include "estimator_int.h"

const est_mparam est_mparams[] = {
#define EST_PARAM(n, kind, h100, lo, lo_open, hi, hi_open, must, unit)                        \
    {#n, kind, offsetof(est_device, n), h100, lo, hi, lo_open, hi_open, must, unit},
#include "params.def"
#undef EST_PARAM
};
const int est_nmparams = (int)(sizeof est_mparams / sizeof est_mparams[0]);

double *est_mparam_in(est_device *d, const est_mparam *p)
{
    return (double *)((char *)d + p->offset);
}

const double est_rules[EST_NRULES] = {
#define EST_RULE(name, value, section, meaning) value,
#include "params.def"
#undef EST_RULE
};
