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
};

/* Puts between two evictions of a bounded cache. */
#define EVICT_EVERY 64

static const char *const stmt_sql[ST_STMT_COUNT] = {
    [ST_STMT_BEGIN] = "BEGIN IMMEDIATE",
    [ST_STMT_COMMIT] = "COMMIT",
    [ST_STMT_ROLLBACK] = "ROLLBACK",
    /* a row under the key answers only the request and configuration it was stored
     * for: a key that collides is a miss */
    [ST_STMT_GET] = "SELECT p.json FROM prediction p JOIN request r ON r.id = p.request_id"
                    " WHERE p.key = ?1 AND r.text = ?2 AND p.config = ?3",
    [ST_STMT_PUT_REQUEST] = "INSERT OR IGNORE INTO request(text) VALUES (?1)",
    /* used: julianday('now') has millisecond steps, and a fast cache stores and reads
     * many rows within one, whose order the eviction would then pick at random (the
     * row just read among them); so a row is always used after every other row,
     * by at least 1e-8 days (0.9 ms, well above the 5e-10 a julian day's double
     * resolves). Only the order of used matters: a busy cache may run it ahead of
     * the clock */
    [ST_STMT_PUT] = "INSERT OR REPLACE INTO prediction(key, kind, json, request_id, config,"
                    " used) VALUES (?1, ?2, ?3, (SELECT id FROM request WHERE text = ?4), ?5,"
                    " max(julianday('now'), (SELECT ifnull(max(used), 0) FROM prediction)"
                    " + 1e-8))",
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
    if (st_run_sql(st, "PRAGMA journal_mode = WAL", "opening", err) ||
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
    for (int i = 0; i < ST_STMT_COUNT; i++)
        sqlite3_finalize(st->stmt[i]);
    sqlite3_close(st->db);
    free(st->path);
    free(st);
}

int st_prediction_get(st_store *st, const char *key, const char *request, const char *config,
                      char **json_out, lr_error *err)
{
    sqlite3_stmt *s = st->stmt[ST_STMT_GET];
    int found = -1;

    *json_out = NULL;
    if (sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(s, 2, request, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(s, 3, config, -1, SQLITE_STATIC) != SQLITE_OK) {
        st_fail(st, err, "reading a prediction");
        goto done;
    }
    switch (sqlite3_step(s)) {
    case SQLITE_ROW: {
        const unsigned char *text = sqlite3_column_text(s, 0);
        size_t len = (size_t)sqlite3_column_bytes(s, 0);
        char *copy = text ? malloc(len + 1) : NULL;
        if (!copy) {
            lr_error_set(err, LR_NO_MEMORY, NULL,
                         "cache database '%s': out of memory reading a prediction", st->path);
            break;
        }
        memcpy(copy, text, len + 1);
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
    if (found == 1 && st->max_predictions > 0) {
        /* recency for the eviction; a failure here costs only the order */
        lr_error ignored;
        lr_error_clear(&ignored);
        st_step_texts(st, ST_STMT_TOUCH, &key, 1, "marking a prediction used", &ignored);
    }
    return found;
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
    const char *row[] = {key, kind, json, request, config};

    if (st_check_json(st, json, "prediction", err))
        return -1;
    /* one transaction: the request row must still be there when the prediction
     * names it (another connection may clear the cache in between) */
    if (st_step_texts(st, ST_STMT_BEGIN, NULL, 0, doing, err))
        return -1;
    if (st_step_texts(st, ST_STMT_PUT_REQUEST, &request, 1, doing, err) ||
        st_step_texts(st, ST_STMT_PUT, row, 5, doing, err) ||
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
