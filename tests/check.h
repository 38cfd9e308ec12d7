/*
 * check.h: the few assertion macros the test programs share. A failed check prints
 * file:line, the expression and both values, and makes the program exit non-zero at
 * the end (checks go on, so one run shows every failure). Exit 77 means "skipped".
 */
#ifndef LR_CHECK_H
#define LR_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        check_count++;                                                                         \
        if (!(cond)) {                                                                         \
            check_failures++;                                                                  \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);           \
        }                                                                                      \
    } while (0)

#define CHECK_INT(got, want)                                                                   \
    do {                                                                                       \
        long long g_ = (long long)(got), w_ = (long long)(want);                               \
        check_count++;                                                                         \
        if (g_ != w_) {                                                                        \
            check_failures++;                                                                  \
            fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", __FILE__, __LINE__, #got, g_,     \
                    w_);                                                                       \
        }                                                                                      \
    } while (0)

/* Relative tolerance rel (0.05 = 5 %); values within abs_tol of want also pass. */
#define CHECK_NEAR(got, want, rel, abs_tol)                                                    \
    do {                                                                                       \
        double g_ = (double)(got), w_ = (double)(want);                                        \
        check_count++;                                                                         \
        if (!(fabs(g_ - w_) <= (rel)*fabs(w_) || fabs(g_ - w_) <= (abs_tol))) {                \
            check_failures++;                                                                  \
            fprintf(stderr, "%s:%d: %s = %.6g, want %.6g (rel tol %g)\n", __FILE__, __LINE__,  \
                    #got, g_, w_, (double)(rel));                                              \
        }                                                                                      \
    } while (0)

#define CHECK_STR(got, want)                                                                   \
    do {                                                                                       \
        const char *g_ = (got), *w_ = (want);                                                  \
        check_count++;                                                                         \
        if (!g_ || strcmp(g_, w_) != 0) {                                                      \
            check_failures++;                                                                  \
            fprintf(stderr, "%s:%d: %s = \"%s\", want \"%s\"\n", __FILE__, __LINE__, #got,     \
                    g_ ? g_ : "(null)", w_);                                                   \
        }                                                                                      \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                            \
    do {                                                                                       \
        const char *h_ = (hay), *n_ = (needle);                                                \
        check_count++;                                                                         \
        if (!h_ || !strstr(h_, n_)) {                                                          \
            check_failures++;                                                                  \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,     \
                    h_ ? h_ : "(null)", n_);                                                   \
        }                                                                                      \
    } while (0)

static inline int check_report(const char *name)
{
    fprintf(stderr, "%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
