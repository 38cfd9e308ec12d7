/*
 * store_int.h: the body of st_store, private to store/.
 *
 * A store is one SQLite connection plus the statements it runs, prepared once on
 * open (after migration, so they see the current schema) and finalized on close.
 */
#ifndef ST_STORE_INT_H
#define ST_STORE_INT_H

#include <sqlite3.h>

#include "store.h"

/* The schema this build writes; bump it together with a new entry in migrations[]. */
#define ST_SCHEMA_VERSION 8

/* PRAGMA application_id of a launchrank database ("LRnk"), so open can tell our
 * file from another program's SQLite database before migrating anything into it. */
#define ST_APPLICATION_ID 0x4c526e6b

/* How long a statement waits for another connection's write lock (milliseconds):
 * writes are single-row and short, so this only expires when something is stuck. */
#define ST_BUSY_TIMEOUT_MS 5000

typedef enum st_stmt_id {
    ST_STMT_BEGIN,
    ST_STMT_COMMIT,
    ST_STMT_ROLLBACK,
    ST_STMT_GET,
    ST_STMT_PUT_REQUEST,
    ST_STMT_PUT,
    ST_STMT_TOUCH,
    ST_STMT_EVICT,
    ST_STMT_EVICT_REQUESTS,
    ST_STMT_MEASUREMENT_ADD,
    ST_STMT_MEASUREMENT_LIST,
    ST_STMT_STATS,
    ST_STMT_CLEAR,
    ST_STMT_CLEAR_REQUESTS,
    ST_STMT_EXPORT_PREDICTIONS,
    ST_STMT_EXPORT_MEASUREMENTS,
    ST_STMT_DEVICE_ADD,
    ST_STMT_DEVICE_REPLACE,
    ST_STMT_DEVICE_LIST,
    ST_STMT_DEVICE_REMOVE,
    ST_STMT_EXPORT_DEVICES,
    ST_STMT_ARRAY_FIND,
    ST_STMT_ARRAY_ADD,
    ST_STMT_ARRAY_TOUCH,
    ST_STMT_ARRAY_BYTES,
    ST_STMT_ARRAY_OLDEST,
    ST_STMT_ARRAY_REMOVE,
    ST_STMT_COUNT
} st_stmt_id;

/* Reads whose recency is written in one transaction (st_prediction_get): at most this
 * many, or those of ST_TOUCH_MAX_AGE_S, whichever comes first. */
#define ST_TOUCH_BATCH 256
#define ST_TOUCH_MAX_AGE_S 1.0

struct st_store {
    sqlite3 *db;
    char *path;                        /* owned; for messages */
    sqlite3_stmt *stmt[ST_STMT_COUNT]; /* owned; all NULL until open has migrated */
    int64_t max_predictions;           /* 0 = unbounded (st_set_max_predictions) */
    int64_t max_array_bytes;           /* 0 = unbounded (st_set_max_array_bytes) */
    uint64_t puts;                     /* predictions stored through this connection */
    char *format;                      /* owned; st_set_row_format, part of every stamp */
    char *touched[ST_TOUCH_BATCH];     /* each owned: keys read, recency not yet written */
    int n_touched;
    double touched_since;              /* CLOCK_MONOTONIC seconds of touched[0] */
};

/* Helpers store.c and records.c share. Each returns 0, or -1 with err. */

/* Copies the connection's last error into err; doing says what we were at
 * ("storing a prediction"). Returns -1. */
int st_fail(st_store *st, lr_error *err, const char *doing);
/* Runs sql (no rows, not prepared: used for transactions and on open). */
int st_run_sql(st_store *st, const char *sql, const char *doing, lr_error *err);
/* Ends one use of a prepared statement (reset, bindings cleared). */
void st_stmt_done(sqlite3_stmt *s);
/* Ends a walk over the rows of s whose last sqlite3_step returned rc: resets s and
 * returns 0 when rc is SQLITE_DONE, else -1 with the connection's error in err. */
int st_rows_done(st_store *st, sqlite3_stmt *s, int rc, const char *doing, lr_error *err);
/* Steps a statement that returns no rows, then resets it. */
int st_step_done(st_store *st, sqlite3_stmt *s, const char *doing, lr_error *err);
/* Refuses text that is not valid JSON (what is stored as "json" is exported verbatim). */
int st_check_json(st_store *st, const char *json, const char *what, lr_error *err);
/* Binds the n texts to statement id's parameters 1..n and steps it to its end. */
int st_step_texts(st_store *st, st_stmt_id id, const char *const *text, int n,
                  const char *doing, lr_error *err);

#endif
