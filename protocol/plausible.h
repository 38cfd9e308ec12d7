/*
 * plausible: checks that a prediction answers the kernel the request means (issue 11).
 *
 * A description can be valid and still describe something else than the kernel its
 * author runs: stores that leave lattice points unwritten (a grid that does not map
 * threads to lattice points as the indices assume), fields smaller than the domain,
 * loads written in thread variables under a folding. The model then answers with
 * plausible but impossible numbers. These checks turn that into warnings
 * (`warnings` of estimate and rank responses, docs/api.md "Warnings"); the cases whose
 * answer would be meaningless are errors elsewhere (est_launch_check refuses a folding
 * of stores written in thread variables; lr_plausible_bounds_error refuses code
 * generation for accesses outside their field).
 */
#ifndef LR_PLAUSIBLE_H
#define LR_PLAUSIBLE_H

#include <cjson/cJSON.h>

#include "decide.h"
#include "jbuild.h"
#include "request.h"

/* What the checks need of one request, computed once (static analysis of the
 * accesses). Free with lr_plausible_free. NULL when out of memory. */
typedef struct lr_plausible lr_plausible;
lr_plausible *lr_plausible_new(const lr_request *req);
void lr_plausible_free(lr_plausible *p);

/* The warnings of one configuration: a new JSON array (caller owns; NULL when out of
 * memory, never an array missing a warning or a member) of {"code", "message", "path"} for launch l, whose estimate object est is
 * what lr_estimate_json writes (or a cached copy of it). */
cJSON *lr_plausible_warnings(const lr_plausible *p, const est_launch *l, const cJSON *est);

/* The warnings that do not depend on the configuration (a domain whose dimensions the
 * accesses do not match, accesses outside their field), as a new JSON array the
 * caller owns (NULL when out of memory). */
cJSON *lr_plausible_request_warnings(const lr_plausible *p);

/* issue 43: when req->registers_assumed, appends to arr (through b) the warning
 * "registers_assumed" (path "kernel.registers"): the registers per thread assumed and
 * the counts from which the answer would change. For an estimate of launch l: the
 * counts from which fewer of its blocks fit on an SM and from which none does
 * (est_register_threshold). Nothing when the request sent registers. Before it, when
 * kernel.registers was compiled from kernel.source, the note "registers_from_source"
 * (path "kernel.source", req->registers_note), and the warnings of figures the device
 * lacks that change the answer ("instruction_rate_unknown", "shared_alloc_unknown"), in
 * both functions. */
void lr_plausible_registers_estimate(jb *b, cJSON *arr, const lr_request *req,
                                     const est_launch *l);

/* The same for a ranking whose launchable configurations are c[0..m) (ranked, best
 * first, as lr_decision_json takes them): the recommendation's counts, and the first
 * count at which the recommendation among the configurations that still launch is
 * another one (re-decided on the predictions made at the assumed count: at most one
 * decision per distinct count at which a configuration stops launching, each O(m)).
 * Out of memory sets b->failed. */
void lr_plausible_registers_rank(jb *b, cJSON *arr, const lr_request *req, const lr_choice *c,
                                 size_t m);

/* 0, or -1 with err (LR_NOT_LAUNCHABLE, the path of the access) when an access leaves
 * its field by more than the stencil's reach: generated code would read or write
 * outside the allocation, so emit and measure refuse it. */
int lr_plausible_bounds_error(const lr_plausible *p, lr_error *err);

/* Share of a prediction below the compulsory traffic that is still accepted: the
 * volumes are rounded to 6 digits and sampled, 1 % covers both. */
#define LR_PLAUSIBLE_SLACK 0.01

#endif
