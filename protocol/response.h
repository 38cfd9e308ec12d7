/*
 * response: estimator results as response JSON. Every number carries its unit in the
 * "units" object of the response; see docs/api.md.
 */
#ifndef LR_RESPONSE_H
#define LR_RESPONSE_H

#include <cjson/cJSON.h>

#include "estimator.h"

/* The body of an estimate response for a launchable result (without "cached"):
 * launch, estimate, performance, fields, details, units, device, domain,
 * model_version. NULL on allocation failure; the caller owns the result. */
cJSON *lr_estimate_json(const est_result *r, const est_kernel *k, const est_device *dev);

/* The units object shared by estimate and rank responses. */
cJSON *lr_units_json(void);

#endif
