/*
 * acc_report: what the accuracy tool prints and writes of a measured set (acc_sets.h) and
 * its figures (acc_stats.h); no analysis: the per-family table and its summary lines,
 * the rank precision, the --dump file (one JSON line per configuration, prediction and
 * measurement side by side) and the golden files (every prediction at %.17g, which
 * --golden holds a run to bit for bit).
 */
#ifndef ACC_REPORT_H
#define ACC_REPORT_H

#include "acc_sets.h"
#include "acc_stats.h"

/* The table of the figures g of S's corpus under title, with the leave-one-family-out
 * top 1 of lofo as a last column when with_lofo, then the summary sm (acc_stats_summary
 * of g). */
void acc_report_table(const acc_set *S, const char *title, const acc_figures *g, int with_lofo,
                      const acc_figures *lofo, const acc_summary *sm);
/* The rank precision of S (acc_stats_rank_precision), when there is one. */
void acc_report_rank_precision(const acc_set *S);
/* Writes the --dump file at path (a message on stderr when it cannot be opened). */
void acc_report_dump(const acc_set *S, const char *path);
/* --golden FILE: the predictions must be FILE's, line for line (0), else the first
 * differing lines are printed and 1 returned. write (--golden-write FILE): writes them. */
int acc_report_golden(const acc_set *S, const char *path, int write);

#endif
