/*
 * values: the "values" of an index field (docs/api.md, "Index fields"): the integers
 * an unstructured mesh's neighbour list holds, given inline ({"data": [...]}) or, where
 * the request is read on the client's own machine (the CLI, the Python Local back end),
 * as a file of little-endian integers ({"file": PATH, "format": "int32-le"}), or, for
 * the daemon, by the SHA-256 of an array uploaded to it ({"sha256": HEX}: PUT
 * /v1/arrays/{sha256}, read through the lr_arrays the api passes in).
 */
#ifndef LR_VALUES_H
#define LR_VALUES_H

#include <cjson/cJSON.h>

#include "estimator.h"
#include "request.h"

/* Values for field name with ndims dimensions dims: how many a request may send inline
 * (a JSON array of integers costs the parser about 60 bytes each; larger meshes come
 * as a file). */
#define LR_MAX_INLINE_VALUES 1000000

/* Reads v (the field's "values", at path) into a table of the field's shape, its
 * integers stored in 4 bytes when every one fits, else 8; sha256 gets the hex digest of
 * the stored bytes (the request's identity: the canonical form names the values by it,
 * not by where they came from: an int32 array uploaded and the same integers inline
 * are one request). local_files: whether "file" may be read; arrays (NULL: none):
 * where "sha256" is looked up. 0, or -1 with err naming the offending member. */
int lr_values_read(const cJSON *v, const char *path, const char *name, int ndims,
                   const int64_t dims[3], int local_files, const lr_arrays *arrays,
                   est_table **out, char sha256[LR_SHA256_HEX], lr_error *err);

/* Whether text is a SHA-256 as arrays are named: 64 lowercase hexadecimal digits. */
int lr_is_sha256(const char *text);

#endif
