/*
 * api_arrays.c: arrays kept in the api's database by the SHA-256 of their bytes
 * (api.h, docs/api.md "Arrays"): PUT and GET /v1/arrays/{sha256} of the daemon, and the
 * lr_arrays through which a request's parse reads an index field's {"sha256"} values
 * and keeps a ranking's permutations (request.h). The digest of an upload is computed
 * by the caller as the body arrives and only compared here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "jbuild.h"
#include "values.h"

_Static_assert(LR_MAX_ARRAY_BYTES == ST_ARRAY_MAX_BYTES, "api.h and store.h: one limit");

/* lr_arrays.get on the worker's store. */
static int arrays_get(void *user, const char *sha256, void **data, int64_t *bytes, int *width,
                      lr_error *err)
{
    lr_worker *w = user;
    if (!w->store)
        return lr_error_set(err, LR_UNAVAILABLE, NULL,
                            "the database of uploaded arrays cannot be read now: %s",
                            lr_api_cache_status(w->api));
    lr_error e;
    lr_error_clear(&e);
    int found = st_array_get(w->store, sha256, data, bytes, width, &e);
    if (found < 0) {
        api_cache_failed(w->api, &e);
        return lr_error_set(err, e.code, NULL, "%s", e.message);
    }
    return found;
}

/* lr_arrays.put on the worker's store: a failure marks the cache's health only. */
static void arrays_put(void *user, const char *sha256, int width, const void *data,
                       int64_t bytes)
{
    lr_worker *w = user;
    lr_error e;
    lr_error_clear(&e);
    /* a permutation larger than every array may take together is not kept: its
     * download answers 404, which says how it is made again */
    if (w->store && bytes <= ST_ARRAY_MAX_BYTES &&
        st_array_put(w->store, sha256, width, data, bytes, NULL, &e) < 0 &&
        e.code != LR_LIMIT_EXCEEDED)
        api_cache_failed(w->api, &e);
}

const lr_arrays *api_arrays(lr_worker *w)
{
    if (!w->api->db_path)
        return NULL;
    api_store_keep(w); /* a database file deleted since is made again */
    w->arrays = (lr_arrays){arrays_get, arrays_put, w};
    return &w->arrays;
}

int api_parse_arrays(lr_worker *w, const char *body, size_t len, lr_request_kind kind,
                     double deadline, const lr_arrays *arrays, lr_request *req, lr_error *err)
{
    return lr_request_parse_with(w->api->devs, body, len, kind, w->api->cfg.local_files, arrays,
                                 w->api->sources, deadline, req, err);
}

int api_parse(lr_worker *w, const char *body, size_t len, lr_request_kind kind,
              double deadline, lr_request *req, lr_error *err)
{
    return api_parse_arrays(w, body, len, kind, deadline, api_arrays(w), req, err);
}

/* The store of w for an array route, or NULL with err (503 without a database). */
static st_store *array_store(lr_worker *w, lr_error *err)
{
    if (!w->api->db_path) {
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "this server runs without a database (--no-cache), where arrays are "
                     "kept: give the values inline as \"data\", or run it with --db");
        return NULL;
    }
    api_store_keep(w);
    if (!w->store)
        lr_error_set(err, LR_UNAVAILABLE, NULL, "the database of arrays cannot be used now: %s",
                     lr_api_cache_status(w->api));
    return w->store;
}

static int check_name(const char *sha256, lr_error *err)
{
    if (lr_is_sha256(sha256))
        return 0;
    return lr_error_set(err, LR_INVALID_REQUEST, "sha256",
                        "'%.80s' is not a SHA-256: an array is named by the digest of its "
                        "bytes, 64 lowercase hexadecimal digits (sha256sum FILE prints it)",
                        sha256);
}

/* The answer of a PUT: {"sha256","format","count","bytes","evicted"}. */
static char *put_answer(const char *sha256, int width, size_t len, int64_t evicted,
                        lr_error *err)
{
    jb b = {0};
    cJSON *o = jb_new_obj(&b);
    jb_str(&b, o, "sha256", sha256);
    jb_str(&b, o, "format", width == 4 ? "int32-le" : "int64-le");
    jb_num(&b, o, "count", (double)(len / (size_t)width));
    jb_num(&b, o, "bytes", (double)len);
    jb_num(&b, o, "evicted", (double)evicted);
    o = jb_finish(&b, o);
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    return text;
}

/* The width of format (NULL: int32-le), 4 or 8; 0 with err. */
static int width_of(const char *format, lr_error *err)
{
    if (!format || strcmp(format, "int32-le") == 0)
        return 4;
    if (strcmp(format, "int64-le") == 0)
        return 8;
    lr_error_set(err, LR_INVALID_REQUEST, "format",
                 "'%.32s': the formats are int32-le (the default) and int64-le "
                 "(?format=int64-le)",
                 format);
    return 0;
}

char *lr_api_array_put(lr_worker *w, const char *sha256, const char *format, const void *data,
                       size_t len, const char *data_sha256, int *created, lr_error *err)
{
    *created = 0;
    int width = width_of(format, err);
    if (!width || check_name(sha256, err))
        return NULL;
    if (len == 0) {
        lr_error_set(err, LR_INVALID_REQUEST, "body",
                     "the body is empty: send the integers as little-endian bytes");
        return NULL;
    }
    if (len % (size_t)width) {
        lr_error_set(err, LR_INVALID_REQUEST, "body",
                     "the body has %zu bytes, not a whole number of %d-byte integers (%s)", len,
                     width, width == 4 ? "int32-le" : "int64-le");
        return NULL;
    }
    if (len > (size_t)ST_ARRAY_MAX_BYTES) {
        lr_error_set(err, LR_LIMIT_EXCEEDED, "body",
                     "the body has %zu bytes; an array holds at most %lld", len,
                     ST_ARRAY_MAX_BYTES);
        return NULL;
    }
    if (strcmp(sha256, data_sha256) != 0) {
        lr_error_set(err, LR_INVALID_REQUEST, "sha256",
                     "the body's SHA-256 is %s, not %s as the path says: an array is named "
                     "by the digest of its bytes (the body was damaged, or the path names "
                     "another array)",
                     data_sha256, sha256);
        return NULL;
    }
    st_store *st = array_store(w, err);
    if (!st)
        return NULL;
    lr_error e;
    lr_error_clear(&e);
    int64_t evicted = 0;
    /* stored already (1): st_array_put only marks it used; then its width must match */
    int rc = st_array_put(st, sha256, width, data, (int64_t)len, &evicted, &e);
    int64_t old_bytes;
    int old_width = width;
    if (rc == 1 && st_array_get(st, sha256, NULL, &old_bytes, &old_width, &e) < 0)
        rc = -1;
    if (rc == 1 && old_width != width) {
        lr_error_set(err, LR_INVALID_REQUEST, "format",
                     "these bytes are stored already as int%d-le; name them with that format",
                     8 * old_width);
        return NULL;
    }
    if (rc < 0 && e.code == LR_LIMIT_EXCEEDED) {
        lr_error_set(err, LR_LIMIT_EXCEEDED, "body", "%s (the daemon's --max-arrays-mb)",
                     e.message);
        return NULL;
    }
    if (rc < 0) {
        api_cache_failed(w->api, &e);
        lr_error_set(err, e.code == LR_INTERNAL ? LR_INTERNAL : LR_UNAVAILABLE, NULL, "%s",
                     e.message);
        return NULL;
    }
    api_cache_ok(w->api);
    *created = rc == 0;
    return put_answer(sha256, width, len, evicted, err);
}

int lr_api_array_get(lr_worker *w, const char *sha256, char **data, size_t *len, lr_error *err)
{
    *data = NULL;
    *len = 0;
    if (check_name(sha256, err))
        return -1;
    st_store *st = array_store(w, err);
    if (!st)
        return -1;
    void *bytes_out;
    int64_t bytes;
    int width;
    lr_error e;
    lr_error_clear(&e);
    int found = st_array_get(st, sha256, &bytes_out, &bytes, &width, &e);
    if (found < 0) {
        api_cache_failed(w->api, &e);
        return lr_error_set(err, e.code, NULL, "%s", e.message);
    }
    if (!found)
        return lr_error_set(err, LR_NOT_FOUND, "sha256",
                            "no array %s is stored here: PUT /v1/arrays/%s uploads one, and a "
                            "ranking with search.orderings stores each ordering's permutation "
                            "under its permutation_sha256",
                            sha256, sha256);
    *data = bytes_out;
    *len = (size_t)bytes;
    return 0;
}
