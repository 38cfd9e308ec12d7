/*
 * corpus: kernel families (the JSON files in tests/accuracy/corpus/families/ and the calibration
 * suite in calibrate/suite/, written by lab/corpus-tools/make_families.py) as requests the
 * API understands.
 *
 * A family is one kernel on one domain and device with a list of launch
 * configurations; corpus_body() turns one configuration into an estimate request
 * body, so the measuring program and the accuracy program go through exactly the
 * parsing a client's request goes through.
 */
#ifndef BENCH_CORPUS_H
#define BENCH_CORPUS_H

#include <stddef.h>

typedef struct corpus_config {
    int block[3], folding[3];
} corpus_config;

typedef struct corpus_family {
    char name[64];
    char description[160];
    char *request;          /* owned: {"device":..,"kernel":..,"domain":.. without "}" */
    corpus_config *configs; /* owned */
    int nconfigs;
} corpus_family;

/* The whole file at path, NUL-terminated (malloc'd: the caller frees it); NULL when
 * it cannot be read. */
char *corpus_read_text(const char *path);

/* Reads one family file into *fam. 0, or -1 with a message on stderr. Free with
 * corpus_family_release. */
int corpus_family_load(const char *path, corpus_family *fam);
/* The same from the file's text; path only names it in messages. */
int corpus_family_parse(const char *text, const char *path, corpus_family *fam);
void corpus_family_release(corpus_family *fam);

/* The index of fam's configuration with this block and folding (JSON arrays of
 * three integers, as the measurement files write them), or -1 when there is none or
 * they are not such arrays. */
struct cJSON;
int corpus_config_index(const corpus_family *fam, const struct cJSON *block,
                        const struct cJSON *folding);

/* The estimate request of configuration i, with `extra` (a JSON member list such as
 * "\"model\":\"warpspeed\"", or NULL) added at the top level, `device` instead of
 * the family's device (a built-in's name, or a JSON device object starting with '{';
 * NULL: the family's) and, when registers > 0,
 * kernel.registers set to it. malloc'd; NULL on allocation failure. */
char *corpus_body(const corpus_family *fam, int i, const char *extra, const char *device,
                  int registers);

/* Names of the family files in dir (sorted, malloc'd array of malloc'd full paths);
 * *n receives the count. NULL with a message when dir cannot be read. */
char **corpus_list(const char *dir, int *n);
void corpus_list_free(char **paths, int n);

#endif
