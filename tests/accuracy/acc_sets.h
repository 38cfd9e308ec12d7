/*
 * acc_sets: the measured sets the accuracy tool judges (tests/accuracy/corpus/): the
 * family files of one or more corpus directories, the measurement files' lines attached
 * to their configurations, and every configuration predicted through the request parser
 * a client's request goes through. Also the device descriptions --device-file reads and
 * --save writes, and the set's predictions as samples of calibrate/fit.h.
 */
#ifndef ACC_SETS_H
#define ACC_SETS_H

#include "device.h"
#include "fit.h"

typedef struct acc_set acc_set;

/* An empty set predicted by model ("v2" or "warpspeed"; not copied) for the built-in
 * devices; NULL when they cannot be loaded. Free with acc_set_free. */
acc_set *acc_set_new(const char *model);
void acc_set_free(acc_set *S);

/* Appends the families of the comma-separated corpus directories corpus, with the lines
 * of the comma-separated measurement files measured (family names are unique across the
 * corpora, e.g. the corpus and the layer scan the built-in H100 is fitted on), predicted
 * for the built-in device (NULL: the one each family's file names; not copied); only the
 * family `only` when given; title: the files name the GPU of the tables. A family no line
 * measured is left out, said on stderr. The number appended, or -1. */
int acc_set_load(acc_set *S, const char *corpus, const char *measured, const char *device,
                 const char *only, int title);
/* The families loaded so far are the corpus the tables show; those loaded after (the
 * --lofo-also sets) only enter the criteria of the axes they name. Their number. */
int acc_set_close_corpus(acc_set *S);

/* Predicts every configuration of every family (a thread per family), counting those that
 * cannot be predicted. */
void acc_set_predict(acc_set *S);
/* Counts the corpus's configurations without a measurement as failures, each named on
 * stderr (measured: the measurement files, for the message). */
void acc_set_count_unmeasured(acc_set *S, const char *measured);
/* Predicts the configurations of one family again from scratch (a thread's body: arg is
 * the family, as acc_set_family gives it). */
void *acc_set_predict_family(void *arg);

int acc_set_nfams(const acc_set *S);
/* Configurations that could not be predicted or matched. */
int acc_set_failures(const acc_set *S);
const char *acc_set_model(const acc_set *S);
const char *acc_set_gpu_name(const acc_set *S);
/* The device the first family is predicted for (the corpus's device). */
const est_device *acc_set_device(const acc_set *S);

/* Every predicted configuration of the corpus as a sample of calibrate/fit.h, one group
 * per family (malloc'd, the caller frees it; *n receives the count). */
cal_sample *acc_set_samples(acc_set *S, int *n);
/* The rows' predictions after a fit changed their results. */
void acc_set_sync_predictions(acc_set *S);

/* A device description file (launchrank calibrate's output) as one line of JSON without
 * its "sources" (malloc'd: the caller frees it); exits on failure. */
char *acc_device_file(const char *path);
/* The fitted device as a description --device-file reads back (the device's own name
 * and figures, the fitted parameters in place); 0 when it cannot be written. */
int acc_set_save_device(const acc_set *S, const char *path, const est_device *d);

#endif
