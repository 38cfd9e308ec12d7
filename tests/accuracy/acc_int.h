/*
 * acc_int.h: the bodies of the accuracy tool's structs, private to tests/accuracy/acc_*.c
 * (as SQLite's btreeInt.h is to btree.c): a measured set's families, their
 * configurations' predictions and measurements, the figures of one family. accuracy.c
 * sees only the modules' headers.
 */
#ifndef ACC_INT_H
#define ACC_INT_H

#include "acc_sets.h"
#include "acc_stats.h"
#include "corpus.h"
#include "devices.h"
#include "estimator.h"

typedef struct meas {
    double glups, glups_repeat;
    int has_counters;
    double dram_load, dram_store, l2_load, l2_store, l1_wavefronts, l2_load_requests;
    int registers;
} meas;

typedef struct row {
    corpus_config c;
    est_result r;
    int ok;
    meas m;
    double pred; /* GLup/s under the parameters being evaluated */
} row;

typedef struct family {
    corpus_family f;
    int ndims; /* of the domain: 1, 2 or 3 */
    row *rows;
    int nrows;
    est_kernel *kernel; /* owned; of the first configuration (all share it) */
    est_device dev;
    const char *device; /* the built-in it is predicted for (--device; NULL: its file's) */
    unsigned enters;    /* bit a: it enters --lofo-rules axis a's criterion */
    acc_set *set;       /* the set it belongs to (its model, devices, failure count) */
} family;

struct acc_set {
    const char *model; /* "v2" or "warpspeed" */
    lr_devices *devs;
    family *fams;
    /* fams[0, nfams): the corpus the tables show; fams[nfams, nall): the --lofo-also
     * sets' families, which only enter the criteria of the axes they name */
    int nfams, nall;
    int failures;      /* configurations that could not be predicted or matched */
    char gpu_name[64]; /* the GPU the measurements name */
};

struct acc_figures {
    int n;
    double err_glups, err_dram, err_l2, err_l1, rho, top1, top3, rec, fixed, spread, noise;
    double advised; /* what a generator with the fixed block as its baseline runs */
    char fixed_block[32];
};

#endif
