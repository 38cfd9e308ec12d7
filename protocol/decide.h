/*
 * decide: a ranking turned into a decision (issue 11, docs/api.md "The decision").
 *
 * Predictions closer to the best than the device's tie width (est_device_tie_width,
 * measured by tests/accuracy/accuracy, docs/accuracy.md "Rank precision") cannot be told
 * apart by the model for certain: they form the tie group. Among them the recommendation prefers a
 * warp-multiple bx, then (model v2, which predicts what idle threads and occupancy
 * cost) the better prediction; under "warpspeed" the fewest idle threads (shares within
 * 1 % count as equal) and the highest occupancy come before the prediction. With a baseline (the code
 * generator's current launch), the decision says how much better the recommendation
 * is predicted to be, and to keep the baseline when
 * the gain lies inside the precision. Configurations with plausibility warnings are
 * left out of the decision; when every configuration has some, best, median, worst and
 * the tie group are those of all of them and there is no recommendation ("note" says
 * why).
 */
#ifndef LR_DECIDE_H
#define LR_DECIDE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "request.h"

/* One ranked configuration, as the decision sees it. */
typedef struct lr_choice {
    est_launch launch;
    int rank;         /* 1 = best predicted */
    double predicted; /* GLup/s */
    double occupancy; /* resident threads per SM / the device's max_threads_per_sm */
    double idle;      /* share of the launched threads that update no lattice point */
    int warned;       /* the configuration has plausibility warnings */
} lr_choice;

/* What a ranking orders configurations by (docs/api.md, "POST /v1/rank"): the prediction as the
 * response reports it, higher first; then the DRAM volume (load + store) and the L2
 * volume, as reported, smaller first; a tie in all three goes to the configuration
 * earlier in the search. */
typedef struct lr_rank_key {
    double predicted, dram, l2;
} lr_rank_key;

/* The key of a result, from the numbers a response reports for it (lr_reported). */
lr_rank_key lr_rank_key_of(const est_result *r);

/* < 0 when a ranks before b, > 0 when after, 0 when they tie. */
int lr_rank_key_cmp(const lr_rank_key *a, const lr_rank_key *b);

/* Fills c's predicted, occupancy and idle from est (an estimate object as
 * lr_estimate_json writes it) for req's device and domain. */
void lr_choice_from_estimate(lr_choice *c, const cJSON *est, const lr_request *req);

/* The same from an estimator result on dev (launch, prediction, grid, occupancy). */
void lr_choice_from_result(lr_choice *c, const est_result *r, const est_device *dev);

/* The index in c[0..n) (ranked, best first) of the configuration the decision would
 * recommend: the preferred member of the tie group of those without warnings (the
 * rules of lr_decision_json; v2: the predictions are model v2's); n when every one has
 * warnings or n is 0. */
size_t lr_decision_pick(const lr_choice *c, size_t n, double precision, int v2);

/* The index in c[0..n) of the configuration a code generator runs that passes the one
 * at index baseline as its baseline and follows the advice: the baseline when the
 * decision keeps it, else the recommendation; n as lr_decision_pick. */
size_t lr_decision_follow(const lr_choice *c, size_t n, double precision, int v2,
                          size_t baseline);

/* The "decision" object of a rank response (caller owns; NULL when out of memory) for
 * the n launchable configurations c[0..n) in ranked order. baseline: the position in
 * c of the request's baseline, -1 when it has none or it cannot run; then
 * baseline_reason (NULL when the request has none) says why it cannot. */
cJSON *lr_decision_json(const lr_choice *c, size_t n, double precision, long baseline,
                        const lr_request *req, const char *baseline_reason);

#endif
