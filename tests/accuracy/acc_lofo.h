/*
 * acc_lofo: the accuracy tool's leave-one-family-out figures, in two modes. --lofo: the
 * device's fitted parameters (docs/model.md, "Fitted parameters") refitted without each
 * family and that family predicted with them. --lofo-rules NAME=LO:HI:STEP,...: constants
 * chosen on a grid instead (rules of estimator/params.def, or device parameters such as
 * dram_streams_most), every other parameter as the device has it: each family is predicted
 * with the grid point that is best on the others (each axis on its own grid, the others as
 * in the model; --lofo-joint: all together), by the mean median |error| of GLup/s plus the
 * mean top-1 shortfall (ISSUE_WARPS's criterion; --lofo-by error: the error alone), and
 * the choices are printed; only rules of model v2's performance stage can be so refitted,
 * which it checks. --lofo-also adds, to the named axes' criteria only, the families of
 * other measured sets (the data a constant was chosen on besides the corpus),
 * --lofo-choose chooses an axis by another criterion.
 */
#ifndef ACC_LOFO_H
#define ACC_LOFO_H

#include "acc_sets.h"
#include "acc_stats.h"
#include "fit.h"

typedef struct acc_lofo acc_lofo;

/* The options of --lofo-rules and its companions, none given yet (NULL when out of
 * memory). Free with acc_lofo_free, after the set it loaded into. */
acc_lofo *acc_lofo_new(void);
void acc_lofo_free(acc_lofo *L);

/* The options, as the command line gives them. --lofo-rules NAME=LO:HI:STEP[,...]: 0, or
 * -1 with the reason on stderr. --lofo-also DIR sets and --lofo-choose are resolved by
 * acc_lofo_load; acc_lofo_add_also: 0, or -1 when there are too many. */
int acc_lofo_parse_rules(acc_lofo *L, const char *spec);
void acc_lofo_set_joint(acc_lofo *L);
void acc_lofo_set_by_error(acc_lofo *L, int error_only);
int acc_lofo_add_also(acc_lofo *L, const char *arg);
void acc_lofo_set_choose(acc_lofo *L, const char *arg);
/* Whether --lofo-rules named axes. */
int acc_lofo_has_rules(const acc_lofo *L);

/* Loads the --lofo-also sets into S after its corpus (acc_set_close_corpus) and reads
 * --lofo-choose; 0, or -1 with the reason on stderr. */
int acc_lofo_load(acc_lofo *L, acc_set *S);

/* --lofo-rules: each family of S's corpus predicted with the axes chosen without it (the
 * device dev's other parameters as they are), its figures into lg; the choices printed.
 * 0, or -1 when an axis cannot be refitted so or memory runs out. S's predictions are
 * left as they were. */
int acc_lofo_rules(acc_lofo *L, const est_device *dev, acc_figures *lg);

/* --lofo: each family of S's corpus predicted with dev's parameters fitted on the others
 * (the samples smp of acc_set_samples, holding hold), its figures into lg; leaves the
 * samples and the predictions with dev's parameters fitted on every family. */
void acc_lofo_refit(acc_set *S, const est_device *dev, cal_sample *smp, int ns,
                    const char *hold, acc_figures *lg);

#endif
