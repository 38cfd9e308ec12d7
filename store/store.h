/*
 * store: the SQLite prediction cache and measurement log.
 *
 * Predictions are JSON texts keyed by a hash of the canonical request (computed by
 * the caller). Each row also holds the request it answers (the canonical request
 * text, stored once for all its configurations, and the configuration), and a lookup
 * compares both: a hash that collides is a miss, never another request's answer.
 * Measurements (cudagen timings) are rows that are never overwritten, so they can
 * later calibrate the model. Devices that users add (`launchrank devices add`) are
 * JSON texts by name; protocol/devices.c writes and checks them. One st_store = one SQLite
 * connection: open one per thread. The database runs in WAL mode with a busy timeout; its
 * schema version lives in PRAGMA user_version and is migrated on open.
 *
 * Failures never take the service down: every function reports through lr_error and
 * the caller may go on without a cache.
 */
#ifndef ST_STORE_H
#define ST_STORE_H

#include <stdint.h>
#include <stdio.h>

#include "lr_error.h"
#include "lr_hash.h"

typedef struct st_store st_store;

/* Opens (creating and migrating if needed) the database at path. NULL with err set
 * when it cannot be opened, is not a launchrank database or is corrupt. The caller
 * frees the result with st_close. */
st_store *st_open(const char *path, lr_error *err);
void st_close(st_store *st);

/* Looks key up. Returns 1 and sets *json_out (malloc'd, caller frees) when a row is
 * stored under key for exactly this request (the canonical request text: its hash,
 * then its bytes are compared) and config (the configuration within it), and the row
 * is intact (its stamp, written with it, matches its format, kind and text); 0 when
 * there is none, also when the row under key answers another request or
 * configuration or is damaged; -1 with err set on a database error. Nothing is parsed:
 * a row is checked once, by the caller, before it is stored. */
int st_prediction_get(st_store *st, const char *key, const char *request, const char *config,
                      char **json_out, lr_error *err);

/* st_prediction_get that also gives the row's stamp (on 1): the same stamp means the
 * same row text, so a caller may keep what it derived from a row by its stamp. */
int st_prediction_get_stamped(st_store *st, const char *key, const char *request,
                              const char *config, char **json_out, char stamp[LR_HASH_HEX],
                              lr_error *err);

/* The format of the rows this connection writes and accepts (the response writer's
 * version): part of every row's stamp, so rows of another format are misses. "" after
 * st_open. */
void st_set_row_format(st_store *st, const char *format);

/* Bounds the predictions this connection keeps: every 64 stores, the least recently
 * stored or read beyond max are deleted (measurements and devices never are). 0 (the
 * default after st_open) keeps everything. Reads are not written one by one: their
 * recency is written in one transaction per 256 reads or per second (at the next get
 * or put after it), before each eviction and on close. The order the eviction sees
 * may therefore lack the last second's reads of other connections. */
void st_set_max_predictions(st_store *st, int64_t max);

/* Inserts or replaces the prediction for key, recording the request and config it
 * answers. kind is "estimate" or "rank" (what the JSON is). 0 on success, -1 with
 * err set. */
int st_prediction_put(st_store *st, const char *key, const char *request, const char *config,
                      const char *kind, const char *json, lr_error *err);

/* One timing of one configuration on a real GPU. */
typedef struct st_measurement {
    const char *kernel_hash; /* hash of the canonical kernel+domain */
    const char *gpu_name;    /* as reported by the driver */
    const char *driver_version;
    int block[3];
    int folding[3];
    double ms_min, ms_median, ms_max;
    double glups;     /* lattice updates per second of the median, in GLup/s */
    const char *json; /* the full measured record, for later analysis */
    /* the canonical request text (lr_request's canonical: kernel, domain, device
     * figures and name, model version) that was measured; NULL when unknown (rows
     * written before schema 4) */
    const char *request;
    const char *created; /* read back only: when it was stored (ISO 8601 UTC) */
} st_measurement;

/* Appends a measurement (timestamped by the database; m->created is ignored). 0 or -1
 * with err set. */
int st_measurement_add(st_store *st, const st_measurement *m, lr_error *err);

/* Called with each stored measurement, oldest first; m and its texts are valid during
 * the call only (m->request is NULL for rows that predate it). A non-zero return
 * stops the walk. */
typedef int (*st_measurement_fn)(void *user, const st_measurement *m);

/* Walks the measurement log: 0 when every row was visited, fn's non-zero return when
 * it stopped the walk, -1 with err set on a database error. */
int st_measurement_each(st_store *st, st_measurement_fn fn, void *user, lr_error *err);

typedef struct st_stats {
    int64_t predictions;  /* rows in the prediction table */
    int64_t measurements; /* rows in the measurement table */
    int64_t bytes;        /* page_count * page_size of the main database file */
    int schema_version;
} st_stats;

int st_get_stats(st_store *st, st_stats *out, lr_error *err);

/* Deletes every prediction (measurements are kept: they are data, not a cache). */
int st_clear_predictions(st_store *st, lr_error *err);

/* Stores the device description json (must parse) under name, unique regardless of
 * case. Returns 0 when stored; 1, storing nothing, when a device of that name exists
 * and replace is 0 (with replace it is overwritten, name and all); -1 with err set. */
int st_device_put(st_store *st, const char *name, const char *json, int replace, lr_error *err);

/* Removes the device of that name (any case). 0 when removed, 1 when there was none,
 * -1 with err set. */
int st_device_remove(st_store *st, const char *name, lr_error *err);

/* Called with each stored device, in name order; name and json are valid during the
 * call only. A non-zero return stops the walk. */
typedef int (*st_device_fn)(void *user, const char *name, const char *json);

/* Walks the stored devices: 0 when every one was visited, fn's non-zero return when it
 * stopped the walk, -1 with err set on a database error. */
int st_device_each(st_store *st, st_device_fn fn, void *user, lr_error *err);

/* Integer arrays (arrays.c): the bytes of little-endian integers of width 4 or 8,
 * named by the hex SHA-256 of those bytes, which the caller computed and checked (the
 * store does not hash them again). They are not cleared with the predictions nor
 * exported; their total is bounded by st_set_max_array_bytes, the least recently stored
 * or read evicted first. */

/* Largest array the store keeps, in bytes: SQLite's default SQLITE_MAX_LENGTH (1e9
 * bytes) bounds one value, and the array is one value. */
#define ST_ARRAY_MAX_BYTES 1000000000ll

/* Bounds the bytes of all arrays this connection keeps: storing one deletes the least
 * recently stored or read others until it fits. 0 (the default after st_open) keeps
 * everything. */
void st_set_max_array_bytes(st_store *st, int64_t max);

/* Stores bytes bytes of data (width 4 or 8, bytes a multiple of it) under sha256 (64
 * lowercase hex digits), first evicting what st_set_max_array_bytes asks. 0 when stored
 * (*evicted, when not NULL: how many arrays made room); 1, writing nothing but the
 * array's recency, when an array of that name is stored already; -1 with err set
 * (LR_LIMIT_EXCEEDED: larger than the bound alone). */
int st_array_put(st_store *st, const char *sha256, int width, const void *data, int64_t bytes,
                 int64_t *evicted, lr_error *err);

/* The array stored under sha256: 1 with *data (malloc'd, caller frees; NULL when data
 * is NULL: only *bytes and *width are wanted, and its recency is left alone), *bytes
 * and *width set; 0 when there is none; -1 with err set. */
int st_array_get(st_store *st, const char *sha256, void **data, int64_t *bytes, int *width,
                 lr_error *err);

/* Writes every prediction, measurement and stored device as JSON lines to out. */
int st_export(st_store *st, FILE *out, lr_error *err);

#endif
