/*
 * store.c: the SQLite prediction cache (see store.h): opening and migrating the
 * database, its prepared statements, predictions and statistics; records.c has the
 * measurement log, the export and the stored devices.
 *
 * Opening does the checks that let the caller decide, once, whether it runs with a
 * cache: the file must be SQLite, ours (application_id), not from a newer build
 * (user_version) and writable. After that each call is one prepared statement, or a
 * few in one transaction (storing a prediction with its request).
 * Errors copy sqlite3_errmsg into the caller's lr_error, prefixed with the path;
 * nothing here prints or aborts.
 */
#include "store_int.h"

#include "lr_hash.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* migrations[v] takes a database from schema v to v + 1; run in order inside one
 * BEGIN IMMEDIATE transaction. Never edit an entry once released: append one. */
static const char *const migrations[ST_SCHEMA_VERSION] = {
    /* 1: initial schema. Timestamps are ISO 8601 UTC text so exports read as-is
     * and still compare (and feed julianday()) correctly. */
    "CREATE TABLE prediction("
    "  key TEXT PRIMARY KEY NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  json TEXT NOT NULL,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));"
    "CREATE TABLE measurement("
    "  id INTEGER PRIMARY KEY,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  kernel_hash TEXT NOT NULL,"
    "  gpu_name TEXT NOT NULL,"
    "  driver_version TEXT NOT NULL,"
    "  block_x INTEGER NOT NULL, block_y INTEGER NOT NULL, block_z INTEGER NOT NULL,"
    "  fold_x INTEGER NOT NULL, fold_y INTEGER NOT NULL, fold_z INTEGER NOT NULL,"
    "  ms_min REAL NOT NULL, ms_median REAL NOT NULL, ms_max REAL NOT NULL,"
    "  glups REAL NOT NULL,"
    "  json TEXT NOT NULL);",
    /* 2: a prediction names the request it answers, so a lookup compares the
     * request and not only its hash (issue 10, item 4). The canonical request text
     * is stored once (every configuration of a ranking shares it), the configuration
     * with each row. Predictions of schema 1 cannot be checked: they are dropped
     * (they are a cache; measurements stay). */
    "DROP TABLE prediction;"
    "CREATE TABLE request("
    "  id INTEGER PRIMARY KEY,"
    "  text TEXT NOT NULL UNIQUE);"
    "CREATE TABLE prediction("
    "  key TEXT PRIMARY KEY NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  json TEXT NOT NULL,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  request_id INTEGER NOT NULL REFERENCES request(id),"
    "  config TEXT NOT NULL);",
    /* 3: devices that users add (`launchrank devices add`, issue 9 item 2). Device
     * names are matched case-insensitively everywhere, so the key is too. json is
     * the checked description (every figure, no "base"), written and read by
     * protocol/devices.c; the store only keeps it. */
    "CREATE TABLE device("
    "  name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,"
    "  json TEXT NOT NULL,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));",
    /* 4: a measurement keeps the canonical request it timed (kernel, domain, device
     * figures; the launch is in its own columns), so `launchrank fit` can rebuild
     * the kernel and estimate it again (issue 9 item 3): the hash alone could not.
     * Rows measured before have none (NULL): fit skips them and says how many. */
    "ALTER TABLE measurement ADD COLUMN request TEXT;",
    /* 5: a prediction remembers when it was last stored or read (julian day), so a
     * bounded cache evicts the least recently used first (issue 10, item 9). Rows
     * from before start at 0: they go first. */
    "ALTER TABLE prediction ADD COLUMN used REAL NOT NULL DEFAULT 0;"
    "CREATE INDEX prediction_used ON prediction(used);",
    /* 6: a row is checked once, when it is written, and stamped (issue 41): stamp is
     * the hash of the row's format, kind and text, so a read compares a hash instead
     * of parsing and checking the text again. A request row is found by the hash of
     * its text when stored (a unique index on the text itself stored every request
     * twice); a read compares the text itself. Unstamped rows cannot be trusted without the
     * old check: predictions are dropped (a cache), measurements and devices kept. */
    "DROP TABLE prediction;"
    "DROP TABLE request;"
    "CREATE TABLE request("
    "  id INTEGER PRIMARY KEY,"
    "  hash TEXT NOT NULL UNIQUE,"
    "  text TEXT NOT NULL);"
    "CREATE TABLE prediction("
    "  key TEXT PRIMARY KEY NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  json TEXT NOT NULL,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  request_id INTEGER NOT NULL REFERENCES request(id),"
    "  config TEXT NOT NULL,"
    "  used REAL NOT NULL DEFAULT 0,"
    "  stamp TEXT NOT NULL);"
    "CREATE INDEX prediction_used ON prediction(used);",
    /* 7: integer arrays uploaded to the daemon (PUT /v1/arrays/{sha256}: an index
     * field's values too large to send inline) and the permutations a ranking's
     * orderings computed (issue 45). Named by the SHA-256 of their bytes, which are
     * little-endian integers of width bytes each.
     * Older databases gain the empty table; nothing else changes. */
    "CREATE TABLE array("
    "  sha256 TEXT PRIMARY KEY NOT NULL,"
    "  width INTEGER NOT NULL,"
    "  count INTEGER NOT NULL,"
    "  data BLOB NOT NULL,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));",
    /* 8: arrays are bounded in total bytes (st_set_max_array_bytes), the least recently
     * stored or read evicted first. When each was last used is kept apart from its
     * bytes: SQLite rewrites a whole row, overflow pages and all, to update one column.
     * Arrays of schema 7 start as the least recent, in the order they were stored. */
    "CREATE TABLE array_use("
    "  sha256 TEXT PRIMARY KEY NOT NULL,"
    "  used REAL NOT NULL);"
    "CREATE INDEX array_use_used ON array_use(used);"
    "INSERT INTO array_use(sha256, used) SELECT sha256, rowid * 1e-8 FROM array;"
    "CREATE TRIGGER array_gone AFTER DELETE ON array BEGIN"
    "  DELETE FROM array_use WHERE sha256 = old.sha256;"
    "END;",
};

static void flush_touched(st_store *st);

/* Puts between two evictions of a bounded cache. */
#define EVICT_EVERY 64

static const char *const stmt_sql[ST_STMT_COUNT] = {
    [ST_STMT_BEGIN] = "BEGIN IMMEDIATE",
    [ST_STMT_COMMIT] = "COMMIT",
    [ST_STMT_ROLLBACK] = "ROLLBACK",
    /* a row under the key answers only the request and configuration it was stored
     * for: a key that collides is a miss */
    /* the row under the key and configuration; row_matches compares the request's
     * text and the stamp: a key that collides is a miss */
    [ST_STMT_GET] = "SELECT p.json, p.kind, p.stamp, r.text FROM prediction p"
                    " JOIN request r ON r.id = p.request_id WHERE p.key = ?1 AND p.config = ?2",
    /* a second text under the same hash (a collision) keeps the first: the second
     * request's rows then name the first's text and are misses, never wrong answers */
    [ST_STMT_PUT_REQUEST] = "INSERT OR IGNORE INTO request(hash, text) VALUES (?1, ?2)",
    /* used: julianday('now') has millisecond steps, and a fast cache stores and reads
     * many rows within one, whose order the eviction would then pick at random (the
     * row just read among them); so a row is always used after every other row,
     * by at least 1e-8 days (0.9 ms, well above the 5e-10 a julian day's double
     * resolves). Only the order of used matters: a busy cache may run it ahead of
     * the clock */
    [ST_STMT_PUT] = "INSERT OR REPLACE INTO prediction(key, kind, json, request_id, config,"
                    " used, stamp) VALUES (?1, ?2, ?3, (SELECT id FROM request WHERE hash = ?4),"
                    " ?5, max(julianday('now'), (SELECT ifnull(max(used), 0) FROM prediction)"
                    " + 1e-8), ?6)",
    [ST_STMT_TOUCH] = "UPDATE prediction SET used = max(julianday('now'), (SELECT"
                      " ifnull(max(used), 0) FROM prediction) + 1e-8) WHERE key = ?1",
    /* the least recently used rows beyond ?1, then the request texts nothing names */
    [ST_STMT_EVICT] = "DELETE FROM prediction WHERE key IN (SELECT key FROM prediction"
                      " ORDER BY used LIMIT max(0, (SELECT count(*) FROM prediction) - ?1))",
    [ST_STMT_EVICT_REQUESTS] =
        "DELETE FROM request WHERE id NOT IN (SELECT request_id FROM prediction)",
    [ST_STMT_MEASUREMENT_ADD] =
        "INSERT INTO measurement(kernel_hash, gpu_name, driver_version,"
        " block_x, block_y, block_z, fold_x, fold_y, fold_z,"
        " ms_min, ms_median, ms_max, glups, json, request)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    [ST_STMT_MEASUREMENT_LIST] =
        "SELECT kernel_hash, gpu_name, driver_version, block_x, block_y, block_z,"
        " fold_x, fold_y, fold_z, ms_min, ms_median, ms_max, glups, json, request, created"
        " FROM measurement ORDER BY id",
    [ST_STMT_STATS] = "SELECT (SELECT count(*) FROM prediction),"
                      " (SELECT count(*) FROM measurement),"
                      " (SELECT page_count FROM pragma_page_count())"
                      "   * (SELECT page_size FROM pragma_page_size()),"
                      " (SELECT user_version FROM pragma_user_version())",
    [ST_STMT_CLEAR] = "DELETE FROM prediction",
    [ST_STMT_CLEAR_REQUESTS] = "DELETE FROM request",
    /* Exports name their columns as the JSON keys, so a migration that adds a
     * column shows up in exports without touching the writer. */
    [ST_STMT_EXPORT_PREDICTIONS] =
        "SELECT key, kind, created, json FROM prediction ORDER BY key",
    [ST_STMT_EXPORT_MEASUREMENTS] = "SELECT * FROM measurement ORDER BY id",
    /* a name already stored (in any case) is left alone: sqlite3_changes() says 0 */
    [ST_STMT_DEVICE_ADD] = "INSERT INTO device(name, json) VALUES (?1, ?2)"
                           " ON CONFLICT(name) DO NOTHING",
    [ST_STMT_DEVICE_REPLACE] =
        "INSERT INTO device(name, json) VALUES (?1, ?2)"
        " ON CONFLICT(name) DO UPDATE SET name = excluded.name, json = excluded.json,"
        " created = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
    [ST_STMT_DEVICE_LIST] = "SELECT name, json FROM device ORDER BY name",
    [ST_STMT_DEVICE_REMOVE] = "DELETE FROM device WHERE name = ?1",
    [ST_STMT_EXPORT_DEVICES] = "SELECT name, created, json FROM device ORDER BY name",
    /* arrays.c: the bytes are read and written through SQLite's incremental blob I/O,
     * by rowid, so that neither goes through a statement's copy of a large value */
    [ST_STMT_ARRAY_FIND] = "SELECT rowid, width, length(data) FROM array WHERE sha256 = ?1",
    [ST_STMT_ARRAY_ADD] = "INSERT INTO array(sha256, width, count, data)"
                          " VALUES (?1, ?2, ?3, zeroblob(?4))",
    [ST_STMT_ARRAY_TOUCH] = "INSERT INTO array_use(sha256, used) VALUES (?1,"
                            " max(julianday('now'), (SELECT ifnull(max(used), 0)"
                            " FROM array_use) + 1e-8))"
                            " ON CONFLICT(sha256) DO UPDATE SET used = excluded.used",
    /* count * width: the bytes, without reading the blobs */
    [ST_STMT_ARRAY_BYTES] = "SELECT ifnull(sum(count * width), 0) FROM array",
    [ST_STMT_ARRAY_OLDEST] = "SELECT sha256 FROM array LEFT JOIN array_use USING (sha256)"
                             " ORDER BY ifnull(used, 0), array.rowid LIMIT 1",
    [ST_STMT_ARRAY_REMOVE] = "DELETE FROM array WHERE sha256 = ?1",
};

/* Which lr_code a SQLite failure is: the ones about the file, the disk or other
 * processes mean "no cache right now"; the rest are our bugs. */
static lr_code code_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_NOMEM:
        return LR_NO_MEMORY;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_CORRUPT:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_NOTADB:
    case SQLITE_PERM:
    case SQLITE_PROTOCOL:
        return LR_UNAVAILABLE;
    default:
        return LR_INTERNAL;
    }
}

/* Copies the connection's last error into err; doing says what we were at
 * ("storing a prediction"). Returns -1. */
int st_fail(st_store *st, lr_error *err, const char *doing)
{
    if (!st->db)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "cache database '%s': %s: out of memory",
                            st->path, doing);
    return lr_error_set(err, code_of(sqlite3_errcode(st->db)), NULL,
                        "cache database '%s': %s: %s", st->path, doing, sqlite3_errmsg(st->db));
}

int st_run_sql(st_store *st, const char *sql, const char *doing, lr_error *err)
{
    if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return st_fail(st, err, doing);
    return 0;
}

/* Runs a one-row, one-column query (only used on open, so prepared each time). */
static int query_int(st_store *st, const char *sql, int *out, lr_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
        *out = sqlite3_column_int(s, 0);
    if (rc != SQLITE_ROW)
        st_fail(st, err, "opening");
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* Ends one use of a prepared statement: the reset releases its read snapshot, the
 * clear drops the caller's buffers that were bound with SQLITE_STATIC. */
void st_stmt_done(sqlite3_stmt *s)
{
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

/* Steps a statement that returns no rows, then resets it. */
int st_rows_done(st_store *st, sqlite3_stmt *s, int rc, const char *doing, lr_error *err)
{
    if (rc != SQLITE_DONE)
        st_fail(st, err, doing);
    st_stmt_done(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

int st_step_done(st_store *st, sqlite3_stmt *s, const char *doing, lr_error *err)
{
    return st_rows_done(st, s, sqlite3_step(s), doing, err);
}

/* Brings the schema to ST_SCHEMA_VERSION. BEGIN IMMEDIATE takes the write lock
 * before user_version is read, so two processes opening a new file at once migrate
 * it once; it is also what proves the file (and its WAL) can be written. */
static int st_migrate(st_store *st, lr_error *err)
{
    int version = 0, app_id = 0, objects = 0;
    char sql[96];

    if (st_run_sql(st, "BEGIN IMMEDIATE", "opening for writing", err))
        return -1;
    if (query_int(st, "PRAGMA user_version", &version, err) ||
        query_int(st, "PRAGMA application_id", &app_id, err) ||
        query_int(st, "SELECT count(*) FROM sqlite_master", &objects, err))
        goto rollback;
    if (app_id != ST_APPLICATION_ID && (app_id != 0 || objects > 0)) {
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "cache database '%s' is a SQLite database of another program, not a "
                     "launchrank cache",
                     st->path);
        goto rollback;
    }
    if (version > ST_SCHEMA_VERSION) {
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "cache database '%s' was written by a newer launchrank (schema %d, this "
                     "build knows %d)",
                     st->path, version, ST_SCHEMA_VERSION);
        goto rollback;
    }
    for (int v = version; v < ST_SCHEMA_VERSION; v++)
        if (st_run_sql(st, migrations[v], "migrating the schema", err))
            goto rollback;
    if (version < ST_SCHEMA_VERSION) {
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d; PRAGMA application_id = %d",
                 ST_SCHEMA_VERSION, ST_APPLICATION_ID);
        if (st_run_sql(st, sql, "migrating the schema", err))
            goto rollback;
    }
    if (st_run_sql(st, "COMMIT", "migrating the schema", err))
        goto rollback;
    return 0;

rollback:
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static int st_prepare_all(st_store *st, lr_error *err)
{
    for (int i = 0; i < ST_STMT_COUNT; i++)
        if (sqlite3_prepare_v3(st->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
                               NULL) != SQLITE_OK)
            return st_fail(st, err, "preparing statements");
    return 0;
}

/* One attempt at opening; *busy is set when it failed only because another
 * connection held a lock SQLite would not wait for (see st_open). */
static st_store *open_once(const char *path, lr_error *err, int *busy)

{
    st_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        lr_error_set(err, LR_NO_MEMORY, NULL, "cache database '%s': out of memory", path);
        return NULL;
    }
    if (sqlite3_open_v2(path, &st->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        st_fail(st, err, "opening");
        goto error;
    }
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, ST_BUSY_TIMEOUT_MS);

    /* SQLite quietly opens a write-protected file read-only; the caller would
     * then fail on every put instead of once, here. */
    if (sqlite3_db_readonly(st->db, "main") == 1) {
        lr_error_set(err, LR_UNAVAILABLE, NULL,
                     "cache database '%s' is read-only (no write permission)", st->path);
        goto error;
    }
    /* Reading the schema is the cheap test that the header and first page are a
     * database ("file is not a database", "database disk image is malformed");
     * quick_check would read the whole file on every start. */
    if (st_run_sql(st, "SELECT count(*) FROM sqlite_master", "opening", err))
        goto error;
    /* WAL lets the other threads' connections read while one writes; NORMAL
     * sync is safe in WAL (a crash may lose the last commits, never corrupt),
     * and losing a few cached predictions costs only recomputation. */
    /* Rows are about 2.2 KB of prediction and 1-3 KB of request text: a 4 KiB page
     * holds one of either, half empty (4.2 KB per ranked prediction, 6.2 KB per
     * estimate of its own request, measured); 16 KiB pages hold seven. Only a new,
     * empty file takes it (before its first table); older files keep theirs. */
    if (st_run_sql(st, "PRAGMA page_size = 16384", "opening", err) ||
        st_run_sql(st, "PRAGMA journal_mode = WAL", "opening", err) ||
        st_run_sql(st, "PRAGMA synchronous = NORMAL", "opening", err) || st_migrate(st, err) ||
        st_prepare_all(st, err))
        goto error;
    return st;

error:
    if (st->db) {
        int code = sqlite3_extended_errcode(st->db) & 0xff;
        *busy = code == SQLITE_BUSY || code == SQLITE_LOCKED;
    }
    st_close(st);
    return NULL;
}

/* Several processes opening a new database at once can deadlock in SQLite's lock
 * escalation (one migrating under a reserved lock, another switching to WAL under a
 * shared one); SQLite then answers SQLITE_BUSY at once instead of calling the busy
 * handler. Opening is retried for as long as the busy timeout would have waited. */
st_store *st_open(const char *path, lr_error *err)
{
    for (int waited_ms = 0;; waited_ms += 20) {
        lr_error e;
        int busy = 0;
        lr_error_clear(&e);
        st_store *st = open_once(path, &e, &busy);
        if (st)
            return st;
        if (!busy || waited_ms >= ST_BUSY_TIMEOUT_MS) {
            *err = e;
            return NULL;
        }
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}

void st_close(st_store *st)
{
    if (!st)
        return;
    if (st->stmt[ST_STMT_TOUCH])
        flush_touched(st);
    for (int i = 0; i < st->n_touched; i++)
        free(st->touched[i]);
    free(st->format);
    for (int i = 0; i < ST_STMT_COUNT; i++)
        sqlite3_finalize(st->stmt[i]);
    sqlite3_close(st->db);
    free(st->path);
    free(st);
}

/* The stamp of a row: the hash of the connection's row format, the row's kind and its
 * text, so that a row damaged after it was written, or written in another format,
 * does not match. */
static void stamp_of(const st_store *st, const char *kind, const char *json,
                     char out[LR_HASH_HEX])
{
    const char *parts[] = {st->format ? st->format : "", "\n", kind, "\n", json};
    lr_hash_hex(parts, 5, out);
}

static double monotonic_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Writes the recency of the reads batched since the last flush, in one transaction;
 * a failure costs only the eviction order, so it is not reported. */
static void flush_touched(st_store *st)
{
    lr_error ignored;
    lr_error_clear(&ignored);
    if (st->n_touched > 0 &&
        st_step_texts(st, ST_STMT_BEGIN, NULL, 0, "marking predictions used", &ignored) == 0) {
        for (int i = 0; i < st->n_touched; i++)
            st_step_texts(st, ST_STMT_TOUCH, (const char *const *)&st->touched[i], 1,
                          "marking a prediction used", &ignored);
        if (st_step_texts(st, ST_STMT_COMMIT, NULL, 0, "marking predictions used", &ignored))
            st_step_done(st, st->stmt[ST_STMT_ROLLBACK], "rolling back", &ignored);
    }
    for (int i = 0; i < st->n_touched; i++)
        free(st->touched[i]);
    st->n_touched = 0;
}

/* Remembers that key was read: its recency is written with the batch, when the batch
 * is full or its first read is ST_TOUCH_MAX_AGE_S old (checked at each get and put),
 * before an eviction, and on close. */
static void touch(st_store *st, const char *key)
{
    if (st->max_predictions <= 0)
        return;
    char *copy = strdup(key);
    if (!copy)
        return; /* out of memory: this read's recency is lost, nothing else */
    if (st->n_touched == 0)
        st->touched_since = monotonic_s();
    st->touched[st->n_touched++] = copy;
    if (st->n_touched == ST_TOUCH_BATCH)
        flush_touched(st);
}

static void flush_touched_if_old(st_store *st)
{
    if (st->n_touched > 0 && monotonic_s() - st->touched_since >= ST_TOUCH_MAX_AGE_S)
        flush_touched(st);
}

/* Whether the current row of ST_STMT_GET answers request and is intact: the
 * request's bytes, then the stamp over the row's text (copied to stamp_out when it
 * matches). */
static int row_matches(const st_store *st, sqlite3_stmt *s, const char *request,
                       char stamp_out[LR_HASH_HEX])
{
    const char *json = (const char *)sqlite3_column_text(s, 0),
               *kind = (const char *)sqlite3_column_text(s, 1),
               *stamp = (const char *)sqlite3_column_text(s, 2),
               *text = (const char *)sqlite3_column_text(s, 3);
    if (!json || !kind || !stamp || !text)
        return 0;
    /* the row was found by a key that hashes the request: comparing the bytes is both
     * the proof and cheaper than hashing the request again */
    size_t n = strlen(request);
    if ((size_t)sqlite3_column_bytes(s, 3) != n || memcmp(text, request, n) != 0)
        return 0;
    char want[LR_HASH_HEX];
    stamp_of(st, kind, json, want);
    if (strcmp(stamp, want) != 0)
        return 0;
    memcpy(stamp_out, want, LR_HASH_HEX);
    return 1;
}

int st_prediction_get(st_store *st, const char *key, const char *request, const char *config,
                      char **json_out, lr_error *err)
{
    char stamp[LR_HASH_HEX];
    return st_prediction_get_stamped(st, key, request, config, json_out, stamp, err);
}

int st_prediction_get_stamped(st_store *st, const char *key, const char *request,
                              const char *config, char **json_out, char stamp[LR_HASH_HEX],
                              lr_error *err)
{
    sqlite3_stmt *s = st->stmt[ST_STMT_GET];
    int found = -1;

    *json_out = NULL;
    flush_touched_if_old(st);
    if (sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(s, 2, config, -1, SQLITE_STATIC) != SQLITE_OK) {
        st_fail(st, err, "reading a prediction");
        goto done;
    }
    switch (sqlite3_step(s)) {
    case SQLITE_ROW: {
        if (!row_matches(st, s, request, stamp)) {
            found = 0;
            break;
        }
        size_t len = (size_t)sqlite3_column_bytes(s, 0);
        char *copy = malloc(len + 1);
        if (!copy) {
            lr_error_set(err, LR_NO_MEMORY, NULL,
                         "cache database '%s': out of memory reading a prediction", st->path);
            break;
        }
        memcpy(copy, sqlite3_column_text(s, 0), len + 1);
        *json_out = copy;
        found = 1;
        break;
    }
    case SQLITE_DONE:
        found = 0;
        break;
    default:
        st_fail(st, err, "reading a prediction");
    }
done:
    st_stmt_done(s);
    if (found == 1)
        touch(st, key);
    return found;
}

void st_set_row_format(st_store *st, const char *format)
{
    char *copy = strdup(format ? format : "");
    if (!copy)
        return; /* the old format stays: rows then miss, nothing is served wrongly */
    free(st->format);
    st->format = copy;
}

/* Everything stored as "json" is embedded verbatim in exports, so it has to parse. */
int st_check_json(st_store *st, const char *json, const char *what, lr_error *err)
{
    const char *end = NULL;
    cJSON *doc = json ? cJSON_ParseWithOpts(json, &end, 1) : NULL;
    if (!doc)
        return lr_error_set(err, LR_INTERNAL, NULL,
                            "cache database '%s': refusing to store a %s that is not valid "
                            "JSON",
                            st->path, what);
    cJSON_Delete(doc);
    return 0;
}

/* Binds the n texts to s's parameters 1..n and steps it to its end. */
int st_step_texts(st_store *st, st_stmt_id id, const char *const *text, int n,
                  const char *doing, lr_error *err)
{
    sqlite3_stmt *s = st->stmt[id];
    for (int i = 0; i < n; i++)
        if (sqlite3_bind_text(s, i + 1, text[i], -1, SQLITE_STATIC) != SQLITE_OK) {
            st_fail(st, err, doing);
            st_stmt_done(s);
            return -1;
        }
    return st_step_done(st, s, doing, err);
}

void st_set_max_predictions(st_store *st, int64_t max)
{
    st->max_predictions = max > 0 ? max : 0;
}

/* Drops the least recently used predictions beyond max_predictions, and the request
 * texts no prediction names any more. */
static int evict(st_store *st, lr_error *err)
{
    sqlite3_stmt *s = st->stmt[ST_STMT_EVICT];
    flush_touched(st); /* the reads batched so far count */
    if (sqlite3_bind_int64(s, 1, st->max_predictions) != SQLITE_OK) {
        st_stmt_done(s);
        return st_fail(st, err, "evicting old predictions");
    }
    if (st_step_done(st, s, "evicting old predictions", err))
        return -1;
    return st_step_texts(st, ST_STMT_EVICT_REQUESTS, NULL, 0, "evicting old predictions", err);
}

int st_prediction_put(st_store *st, const char *key, const char *request, const char *config,
                      const char *kind, const char *json, lr_error *err)
{
    const char *doing = "storing a prediction";
    char request_hash[LR_HASH_HEX], stamp[LR_HASH_HEX];
    const char *parts[] = {request};
    lr_hash_hex(parts, 1, request_hash);
    if (st_check_json(st, json, "prediction", err))
        return -1;
    stamp_of(st, kind, json, stamp);
    const char *req_row[] = {request_hash, request};
    const char *row[] = {key, kind, json, request_hash, config, stamp};

    flush_touched_if_old(st);
    /* one transaction: the request row must still be there when the prediction
     * names it (another connection may clear the cache in between) */
    if (st_step_texts(st, ST_STMT_BEGIN, NULL, 0, doing, err))
        return -1;
    if (st_step_texts(st, ST_STMT_PUT_REQUEST, req_row, 2, doing, err) ||
        st_step_texts(st, ST_STMT_PUT, row, 6, doing, err) ||
        st_step_texts(st, ST_STMT_COMMIT, NULL, 0, doing, err)) {
        st_step_done(st, st->stmt[ST_STMT_ROLLBACK], "rolling back", err);
        return -1;
    }
    /* counting the rows costs a scan: check every EVICT_EVERY puts (the cache may
     * exceed its bound by fewer than that many rows) */
    if (st->max_predictions > 0 && st->puts++ % EVICT_EVERY == 0)
        return evict(st, err);
    return 0;
}

int st_get_stats(st_store *st, st_stats *out, lr_error *err)
{
    sqlite3_stmt *s = st->stmt[ST_STMT_STATS];
    int rc = sqlite3_step(s);

    if (rc == SQLITE_ROW) {
        out->predictions = sqlite3_column_int64(s, 0);
        out->measurements = sqlite3_column_int64(s, 1);
        out->bytes = sqlite3_column_int64(s, 2);
        out->schema_version = sqlite3_column_int(s, 3);
    } else {
        st_fail(st, err, "reading statistics");
    }
    st_stmt_done(s);
    return rc == SQLITE_ROW ? 0 : -1;
}

int st_clear_predictions(st_store *st, lr_error *err)
{
    const char *doing = "clearing predictions";
    if (st_step_texts(st, ST_STMT_BEGIN, NULL, 0, doing, err))
        return -1;
    if (st_step_texts(st, ST_STMT_CLEAR, NULL, 0, doing, err) ||
        st_step_texts(st, ST_STMT_CLEAR_REQUESTS, NULL, 0, doing, err) ||
        st_step_texts(st, ST_STMT_COMMIT, NULL, 0, doing, err)) {
        st_step_done(st, st->stmt[ST_STMT_ROLLBACK], "rolling back", err);
        return -1;
    }
    return 0;
}
