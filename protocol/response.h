/*
 * response: estimator results as response JSON. Every number carries its unit in the
 * "units" object of the response; see docs/api.md.
 */
#ifndef LR_RESPONSE_H
#define LR_RESPONSE_H

#include <cjson/cJSON.h>

#include "estimator.h"
#include "jbuild.h"

/* The format of what lr_estimate_json writes, part of every cached row's stamp
 * (store.h): a cache file keeps rows across upgrades, and a row is checked only when
 * it is written, so a build that writes other members must not read the old rows.
 * Change it with lr_estimate_json's members; tests/protocol holds the two together. */
#define LR_ESTIMATE_FORMAT "estimate/2026.11-35-blocks-resident"

/* The body of an estimate response for a launchable result (without "cached"):
 * device_provenance, launch, estimate, performance, fields, details, units, device, domain,
 * model_version. NULL when any allocation failed (never an object missing a member:
 * jbuild.h); the caller owns the result. */
cJSON *lr_estimate_json(const est_result *r, const est_kernel *k, const est_device *dev);

/* Whether o (a prediction about to be cached) is what lr_estimate_json writes
 * for a launchable result of cfg: the same members in the same order with the same
 * types, the same strings (model version, model, device, field names, units) except
 * the limiter, which must be a limiter's name, the same domain, block and folding, and
 * finite numbers (null only where the writer may write null). 1 when it is, 0 when it
 * is not or out of memory: a row that fails is not stored. */
int lr_estimate_json_valid(const cJSON *o, const est_kernel *k, const est_device *dev,
                           const est_config *cfg);

/* Adds "device_provenance" to o: dev's provenance, its tie width (est_device_tie_width) and what the
 * provenance means for a prediction (docs/api.md). On allocation failure b's flag is set
 * (jbuild.h). */
void lr_provenance_add(jb *b, cJSON *o, const est_device *dev);

/* A number as a response reports it: six significant digits (0 when not finite). */
double lr_reported(double v);

/* The units object shared by estimate and rank responses (caller owns; NULL when out
 * of memory, never a partial object). */
cJSON *lr_units_json(void);

#endif
