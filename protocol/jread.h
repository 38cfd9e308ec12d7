/*
 * jread: typed reads of request JSON that report precisely. Every getter takes the
 * JSON path of the value it reads, so an error says which input was wrong
 * ("kernel.fields[0].dims[1]: must be an integer from 1 to 2147483647, not 0.5").
 */
#ifndef LR_JREAD_H
#define LR_JREAD_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "lr_error.h"

/* A JSON path buffer: join(parent, ".key") or join(parent, "[i]"). */
typedef struct jpath {
    char s[LR_PATH_MAX];
} jpath;

void jp_key(jpath *out, const char *parent, const char *key);
void jp_index(jpath *out, const char *parent, int index);

/* Rejects keys of obj that are not in allowed (NULL-terminated): a misspelt option
 * must not be silently ignored. 0 or -1 with err. */
int jr_only_keys(const cJSON *obj, const char *path, const char *const *allowed, lr_error *err);

/* obj[key]; NULL when absent. */
const cJSON *jr_get(const cJSON *obj, const char *key);

/* An integer in [min, max]; 0 or -1 with err (path is the value's own path). */
int jr_int(const cJSON *v, const char *path, int64_t min, int64_t max, int64_t *out,
           lr_error *err);
/* A finite number in [min, max]. */
int jr_num(const cJSON *v, const char *path, double min, double max, double *out,
           lr_error *err);
/* A string of 1..maxlen bytes; *out points into v. */
int jr_str(const cJSON *v, const char *path, size_t maxlen, const char **out, lr_error *err);
/* An array of min..max elements; returns its size or -1 with err. */
int jr_array(const cJSON *v, const char *path, int min, int max, lr_error *err);
/* An object. */
int jr_object(const cJSON *v, const char *path, lr_error *err);

/* The error for a required member key of the object at path parent that is missing
 * ("missing: what", path parent.key). Returns -1. */
int jr_missing(const char *parent, const char *key, const char *what, lr_error *err);
/* An array of 1..3 integers in [min, max]; trailing entries are filled with fill. */
int jr_triple(const cJSON *v, const char *path, int64_t min, int64_t max, int64_t fill,
              int64_t out[3], int *n, lr_error *err);

/* Checks a body before it is parsed: valid UTF-8 (responses echo names and keys, so
 * invalid bytes would make them invalid JSON), no \u0000 escape (C strings would end
 * there, silently turning "A\u0000junk" into "A"), and nesting of [ and { at most
 * max_depth. 0, or -1 with err (LR_INVALID_JSON, the byte offset in the message). */
int jr_precheck(const char *text, size_t len, int max_depth, lr_error *err);

/* Checks text, which cJSON parsed into root, for raw control bytes (below 0x20):
 * cJSON takes them inside strings, where a NUL silently ends the C string
 * ("x+1<NUL>*y*y" would read as "x+1"), and between values, as white space. 0, or -1
 * with err (LR_INVALID_JSON; the JSON path of the string that holds one). */
int jr_check_controls(const char *text, size_t len, const cJSON *root, lr_error *err);

/* Refuses an object, anywhere under v (whose path is path), that has a key twice:
 * cJSON keeps both and lookups return the first, so the second would be silently
 * ignored. 0, or -1 with err (LR_INVALID_REQUEST, the path of the repeated key). */
int jr_unique_keys(const cJSON *v, const char *path, lr_error *err);

#endif
