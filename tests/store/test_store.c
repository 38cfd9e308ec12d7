/*
 * test_store: the SQLite cache keeps what it is given (across close and reopen and
 * between two connections), exports records that parse, and refuses, with a message
 * naming the file, the files it must not use: not SQLite, corrupt, another
 * program's, written by a newer build, read-only. It keeps devices that users add,
 * one per name whatever its case, reads the measurement log back (with each row's
 * request, none for rows older than schema 4) and migrates databases of earlier
 * schemas. Every case works in its own database under one mkdtemp folder, removed at
 * the end.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

/* The request and configuration most cases store their predictions for. */
#define REQ "{\"kernel\":\"k\"}"
#define CFG "|block=32,4,1|folding=1,1,1"

/* The schema store.c writes (store_int.h's ST_SCHEMA_VERSION). */
#define ST_TEST_SCHEMA 8

/* The user a root run drops to for the read-only case (root writes anything). */
#define NOBODY_ID 65534

static char tmp_dir[] = "/tmp/lrstore-XXXXXX";

/* Fills buf with tmp_dir/name and removes leftovers of an earlier use of it. */
static const char *db_path(char *buf, size_t n, const char *name)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char side[512];
    snprintf(buf, n, "%s/%s", tmp_dir, name);
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(side, sizeof side, "%s%s", buf, suffixes[i]);
        unlink(side);
    }
    return buf;
}

static void write_bytes(const char *path, long offset, const void *data, size_t n)
{
    FILE *f = fopen(path, offset ? "r+b" : "wb");
    if (!f || fseek(f, offset, SEEK_SET) != 0 || fwrite(data, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fclose(f);
}

/* Runs sql on path with plain SQLite, as another program (or a newer build) would. */
static void raw_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "raw sql on %s failed: %s\n", path, sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_close(db);
}

static int raw_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int v = -1;
    if (sqlite3_open(path, &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

static st_measurement sample_measurement(const char *gpu, double ms)
{
    st_measurement m = {
        .kernel_hash = "k0",
        .gpu_name = gpu,
        .driver_version = "550.54",
        .block = {32, 4, 1},
        .folding = {1, 2, 1},
        .ms_min = ms,
        .ms_median = ms * 1.1,
        .ms_max = ms * 1.5,
        .glups = 12.5,
        .json = "{\"samples\":[1,2,3]}",
    };
    return m;
}

/* Expects st_prediction_get(key) to find exactly want. */
static void check_get(st_store *st, const char *key, const char *want)
{
    lr_error err;
    char *json = NULL;
    lr_error_clear(&err);
    CHECK_INT(st_prediction_get(st, key, REQ, CFG, &json, &err), 1);
    CHECK_STR(json, want);
    free(json);
}

static void check_missing(st_store *st, const char *key)
{
    lr_error err;
    char *json = (char *)"not reset";
    lr_error_clear(&err);
    CHECK_INT(st_prediction_get(st, key, REQ, CFG, &json, &err), 0);
    CHECK(json == NULL);
    CHECK(!lr_error_is_set(&err));
}

/* Expects st_open(path) to fail with a message naming path and containing why. */
static void check_refused(const char *path, const char *why)
{
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(path, &err);
    CHECK(st == NULL);
    CHECK_INT(err.code, LR_UNAVAILABLE);
    CHECK_CONTAINS(err.message, path);
    CHECK_CONTAINS(err.message, why);
    st_close(st);
}

static void test_roundtrip_and_persistence(void)
{
    char path[256];
    lr_error err;
    st_stats stats;
    lr_error_clear(&err);
    db_path(path, sizeof path, "roundtrip.db");

    st_store *st = st_open(path, &err);
    CHECK(st != NULL);
    if (!st)
        return;
    check_missing(st, "a");
    CHECK_INT(st_prediction_put(st, "a", REQ, CFG, "estimate", "{\"ms\":1.5}", &err), 0);
    check_get(st, "a", "{\"ms\":1.5}");
    CHECK_INT(st_prediction_put(st, "a", REQ, CFG, "rank", "[1,2]", &err), 0);
    check_get(st, "a", "[1,2]");
    check_missing(st, "b");
    CHECK_INT(st_get_stats(st, &stats, &err), 0);
    CHECK_INT(stats.predictions, 1);
    CHECK_INT(stats.measurements, 0);
    CHECK_INT(stats.schema_version, ST_TEST_SCHEMA);
    CHECK(stats.bytes > 0);
    CHECK(!lr_error_is_set(&err));
    st_close(st);

    CHECK_INT(raw_int(path, "PRAGMA user_version"), ST_TEST_SCHEMA);
    CHECK_INT(raw_int(path, "SELECT kind = 'rank' FROM prediction WHERE key = 'a'"), 1);
    st = st_open(path, &err);
    CHECK(st != NULL);
    if (st)
        check_get(st, "a", "[1,2]");
    st_close(st);
}

static void test_refuses_invalid_values(void)
{
    char path[256];
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "invalid.db"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(st_prediction_put(st, "k", REQ, CFG, "estimate", "{\"ms\":", &err), -1);
    CHECK_INT(err.code, LR_INTERNAL);
    CHECK_CONTAINS(err.message, "not valid JSON");
    check_missing(st, "k");

    st_measurement m = sample_measurement("H100", 1.0);
    m.ms_median = NAN;
    lr_error_clear(&err);
    CHECK_INT(st_measurement_add(st, &m, &err), -1);
    CHECK_CONTAINS(err.message, "non-finite");
    st_close(st);
}

static void test_refuses_unusable_files(void)
{
    char path[256];
    char garbage[2048];

    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (char)('a' + i % 26);
    write_bytes(db_path(path, sizeof path, "garbage.db"), 0, garbage, sizeof garbage);
    check_refused(path, "not a database");

    /* A real launchrank database whose first page (the schema) was overwritten. */
    lr_error err;
    lr_error_clear(&err);
    st_close(st_open(db_path(path, sizeof path, "corrupt.db"), &err));
    CHECK(!lr_error_is_set(&err));
    write_bytes(path, 100, garbage, 1000);
    check_refused(path, "malformed");

    lr_error_clear(&err);
    st_close(st_open(db_path(path, sizeof path, "newer.db"), &err));
    raw_sql(path, "PRAGMA user_version = 99");
    check_refused(path, "was written by a newer launchrank (schema 99, this build knows 8)");

    /* Another program's database: refused, and left exactly as it was. */
    raw_sql(db_path(path, sizeof path, "foreign.db"),
            "CREATE TABLE t(x); INSERT INTO t VALUES (7)");
    check_refused(path, "not a launchrank cache");
    CHECK_INT(raw_int(path, "SELECT count(*) FROM sqlite_master"), 1);
    CHECK_INT(raw_int(path, "PRAGMA user_version"), 0);
}

/* Child process of the read-only case: 0 when st_open refused path as read-only. */
static int open_read_only_child(const char *path)
{
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(path, &err);
    int ok = st == NULL && strstr(err.message, path) && strstr(err.message, "read-only");
    if (!ok)
        fprintf(stderr, "read-only open: %s\n", st ? "succeeded" : err.message);
    st_close(st);
    return ok ? 0 : 1;
}

static void test_refuses_read_only_file(void)
{
    char path[256];
    lr_error err;
    int status = 0;
    lr_error_clear(&err);
    st_close(st_open(db_path(path, sizeof path, "readonly.db"), &err));
    chmod(path, 0444);
    chmod(tmp_dir, 0555);

    if (geteuid() != 0) {
        check_refused(path, "read-only");
    } else {
        /* root ignores permissions, so the refusal is checked as user nobody. */
        pid_t pid = fork();
        if (pid == 0) {
            if (setgid(NOBODY_ID) != 0 || setuid(NOBODY_ID) != 0)
                exit(77);
            exit(open_read_only_child(path));
        }
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
            fprintf(stderr, "test_store: read-only case skipped (running as root, "
                            "cannot switch to an unprivileged user)\n");
        else
            CHECK_INT(status, 0);
    }
    chmod(tmp_dir, 0700);
    chmod(path, 0644);
}

static void test_clear_keeps_measurements(void)
{
    char path[256];
    lr_error err;
    st_stats stats;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "clear.db"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    st_measurement m = sample_measurement("H100", 2.0);
    CHECK_INT(st_prediction_put(st, "a", REQ, CFG, "estimate", "{}", &err), 0);
    CHECK_INT(st_prediction_put(st, "b", REQ, CFG, "rank", "[]", &err), 0);
    CHECK_INT(st_measurement_add(st, &m, &err), 0);
    CHECK_INT(st_measurement_add(st, &m, &err), 0);
    CHECK_INT(st_clear_predictions(st, &err), 0);
    CHECK_INT(st_get_stats(st, &stats, &err), 0);
    CHECK_INT(stats.predictions, 0);
    CHECK_INT(stats.measurements, 2);
    check_missing(st, "a");
    CHECK(!lr_error_is_set(&err));
    st_close(st);
}

/* Parses one export line; NULL (and a failed check) when it is not one JSON value. */
static cJSON *parse_line(const char *line)
{
    const char *end = NULL;
    cJSON *obj = cJSON_ParseWithOpts(line, &end, 1);
    CHECK(obj != NULL);
    return obj;
}

static void check_value(const cJSON *record, const char *want_minified)
{
    char *got = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(record, "value"));
    CHECK_STR(got, want_minified);
    cJSON_free(got);
}

static void test_export_is_json_lines(void)
{
    char path[256];
    char *text = NULL;
    size_t size = 0;
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "export.db"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    /* Keys and names with quotes and backslashes, a value spread over lines. */
    CHECK_INT(st_prediction_put(st, "k\"1\\", REQ, CFG, "estimate",
                                "{\n  \"ms\": 1.25,\n  \"s\": \"a\\nb\"\n}", &err),
              0);
    CHECK_INT(st_prediction_put(st, "k2", REQ, CFG, "rank", "[3,1,2]", &err), 0);
    st_measurement m = sample_measurement("NVIDIA \"H100\"\t80GB", 0.5);
    CHECK_INT(st_measurement_add(st, &m, &err), 0);

    FILE *out = open_memstream(&text, &size);
    CHECK_INT(st_export(st, out, &err), 0);
    fclose(out);
    CHECK(!lr_error_is_set(&err));

    cJSON *rec[3] = {NULL, NULL, NULL};
    int lines = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), lines++)
        if (lines < 3)
            rec[lines] = parse_line(line);
    CHECK_INT(lines, 3);
    if (rec[0] && rec[1] && rec[2]) {
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[0], "type")), "prediction");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[0], "key")), "k\"1\\");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[0], "kind")), "estimate");
        CHECK(cJSON_IsString(cJSON_GetObjectItem(rec[0], "created")));
        check_value(rec[0], "{\"ms\":1.25,\"s\":\"a\\nb\"}");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[1], "key")), "k2");
        check_value(rec[1], "[3,1,2]");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[2], "type")), "measurement");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[2], "gpu_name")),
                  "NVIDIA \"H100\"\t80GB");
        CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(rec[2], "block_x")), 32);
        CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(rec[2], "fold_y")), 2);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(rec[2], "ms_max")), 0.75, 0, 1e-12);
        check_value(rec[2], "{\"samples\":[1,2,3]}");
    }
    for (int i = 0; i < 3; i++)
        cJSON_Delete(rec[i]);
    free(text);
    st_close(st);
}

static void test_two_connections(void)
{
    char path[256];
    lr_error err;
    st_stats sa, sb;
    lr_error_clear(&err);
    db_path(path, sizeof path, "two.db");
    st_store *a = st_open(path, &err);
    st_store *b = st_open(path, &err);
    CHECK(a != NULL && b != NULL);
    if (a && b) {
        st_measurement m = sample_measurement("H100", 1.0);
        for (int i = 0; i < 20; i++) {
            char key[16], json[32];
            st_store *writer = i % 2 ? a : b, *reader = i % 2 ? b : a;
            snprintf(key, sizeof key, "k%d", i);
            snprintf(json, sizeof json, "{\"i\":%d}", i);
            CHECK_INT(st_prediction_put(writer, key, REQ, CFG, "estimate", json, &err), 0);
            CHECK_INT(st_measurement_add(reader, &m, &err), 0);
            check_get(reader, key, json);
        }
        CHECK_INT(st_get_stats(a, &sa, &err), 0);
        CHECK_INT(st_get_stats(b, &sb, &err), 0);
        CHECK_INT(sa.predictions, 20);
        CHECK_INT(sb.predictions, 20);
        CHECK_INT(sb.measurements, 20);
        CHECK(!lr_error_is_set(&err));
    }
    st_close(a);
    st_close(b);
}

/* Several processes opening a file that does not exist yet: one migrates, the
 * others wait for its lock and find the schema in place. */
static void test_concurrent_first_open(void)
{
    enum { PROCESSES = 4 };
    char path[256];
    pid_t pids[PROCESSES];
    int status;
    db_path(path, sizeof path, "race.db");
    for (int i = 0; i < PROCESSES; i++) {
        if ((pids[i] = fork()) == 0) {
            lr_error err;
            char key[16];
            lr_error_clear(&err);
            snprintf(key, sizeof key, "p%d", i);
            st_store *st = st_open(path, &err);
            int rc = st ? st_prediction_put(st, key, REQ, CFG, "estimate", "{}", &err) : -1;
            if (rc)
                fprintf(stderr, "process %d: %s\n", i, err.message);
            st_close(st);
            exit(rc ? 1 : 0);
        }
    }
    for (int i = 0; i < PROCESSES; i++) {
        waitpid(pids[i], &status, 0);
        CHECK_INT(status, 0);
    }
    CHECK_INT(raw_int(path, "SELECT count(*) FROM prediction"), PROCESSES);
    CHECK_INT(raw_int(path, "PRAGMA user_version"), ST_TEST_SCHEMA);
}

/* Issue 10, item 4: keys are a hash, and a hit used to trust it. A row stored under a
 * key answers only the request and configuration it was stored for: the same key
 * with another request text or another configuration (what a hash collision looks
 * like) is a miss, and storing the other request's answer replaces the row. The
 * request text is kept once for all its configurations. */
static void test_key_collision_is_a_miss(void)
{
    char path[256];
    lr_error err;
    char *json = (char *)"not reset";
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "collision.db"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    const char *a = "{\"kernel\":\"a\"}", *b = "{\"kernel\":\"b\"}";
    const char *c1 = "|block=32,4,1|folding=1,1,1", *c2 = "|block=64,2,1|folding=1,1,1";
    CHECK_INT(st_prediction_put(st, "k", a, c1, "estimate", "{\"answer\":\"a1\"}", &err), 0);
    CHECK_INT(st_prediction_get(st, "k", b, c1, &json, &err), 0);
    CHECK(json == NULL);
    CHECK_INT(st_prediction_get(st, "k", a, c2, &json, &err), 0);
    CHECK_INT(st_prediction_get(st, "k", a, c1, &json, &err), 1);
    CHECK_STR(json, "{\"answer\":\"a1\"}");
    free(json);
    CHECK_INT(st_prediction_put(st, "k", b, c1, "estimate", "{\"answer\":\"b1\"}", &err), 0);
    CHECK_INT(st_prediction_get(st, "k", a, c1, &json, &err), 0);
    CHECK_INT(st_prediction_get(st, "k", b, c1, &json, &err), 1);
    CHECK_STR(json, "{\"answer\":\"b1\"}");
    free(json);
    CHECK_INT(st_prediction_put(st, "k2", b, c2, "estimate", "{\"answer\":\"b2\"}", &err), 0);
    CHECK(!lr_error_is_set(&err));
    st_close(st);
    CHECK_INT(raw_int(path, "SELECT count(*) FROM request WHERE text = '{\"kernel\":\"b\"}'"),
              1);
    CHECK_INT(raw_int(path, "SELECT count(*) FROM prediction"), 2);
}

/* Collects what st_measurement_each visits: "gpu block folding glups request;" per
 * row ("-" for a row without its request). */
typedef struct measurement_walk {
    char seen[512];
    int n;
} measurement_walk;

static int collect_measurement(void *user, const st_measurement *m)
{
    measurement_walk *w = user;
    size_t len = strlen(w->seen);
    snprintf(w->seen + len, sizeof w->seen - len, "%s %d,%d,%d %d,%d,%d %g %s;", m->gpu_name,
             m->block[0], m->block[1], m->block[2], m->folding[0], m->folding[1], m->folding[2],
             m->glups, m->request ? m->request : "-");
    w->n++;
    return 0;
}

/* A database of schema 1 (predictions without their request) is migrated on open:
 * its predictions, which cannot be checked against a request, are dropped, its
 * measurements kept, and it caches again. */
static void test_migrates_schema_1(void)
{
    char path[256];
    lr_error err;
    st_stats stats;
    lr_error_clear(&err);
    raw_sql(db_path(path, sizeof path, "schema1.db"),
            "CREATE TABLE prediction(key TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL,"
            " json TEXT NOT NULL, created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ',"
            " 'now')));"
            "CREATE TABLE measurement(id INTEGER PRIMARY KEY, created TEXT NOT NULL DEFAULT"
            " (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), kernel_hash TEXT NOT NULL,"
            " gpu_name TEXT NOT NULL, driver_version TEXT NOT NULL, block_x INTEGER NOT NULL,"
            " block_y INTEGER NOT NULL, block_z INTEGER NOT NULL, fold_x INTEGER NOT NULL,"
            " fold_y INTEGER NOT NULL, fold_z INTEGER NOT NULL, ms_min REAL NOT NULL,"
            " ms_median REAL NOT NULL, ms_max REAL NOT NULL, glups REAL NOT NULL,"
            " json TEXT NOT NULL);"
            "INSERT INTO prediction(key, kind, json) VALUES ('k', 'estimate', '{}');"
            "INSERT INTO measurement(kernel_hash, gpu_name, driver_version, block_x, block_y,"
            " block_z, fold_x, fold_y, fold_z, ms_min, ms_median, ms_max, glups, json)"
            " VALUES ('h', 'H100', '1', 32, 4, 1, 1, 1, 1, 1, 1, 1, 1, '{}');"
            "PRAGMA user_version = 1; PRAGMA application_id = 1280470635;");
    st_store *st = st_open(path, &err);
    CHECK(st != NULL);
    if (!st) {
        fprintf(stderr, "schema 1: %s\n", err.message);
        return;
    }
    CHECK_INT(st_get_stats(st, &stats, &err), 0);
    CHECK_INT(stats.schema_version, ST_TEST_SCHEMA);
    CHECK_INT(stats.predictions, 0);
    CHECK_INT(stats.measurements, 1);
    check_missing(st, "k");
    CHECK_INT(st_prediction_put(st, "k", REQ, CFG, "estimate", "{\"v\":2}", &err), 0);
    check_get(st, "k", "{\"v\":2}");
    CHECK(!lr_error_is_set(&err));
    /* the old measurement reads back without a request; a new one keeps its own */
    st_measurement m = sample_measurement("H100", 2.0);
    m.request = REQ;
    CHECK_INT(st_measurement_add(st, &m, &err), 0);
    measurement_walk w = {{0}, 0};
    CHECK_INT(st_measurement_each(st, collect_measurement, &w, &err), 0);
    CHECK_INT(w.n, 2);
    CHECK_STR(w.seen, "H100 32,4,1 1,1,1 1 -;H100 32,4,1 1,2,1 12.5 " REQ ";");
    st_close(st);
}

/* Collects what st_device_each visits: "name=json;" per device, and stops after
 * stop_after devices when that is positive. */
typedef struct device_walk {
    char text[512];
    int seen, stop_after;
} device_walk;

static int collect_device(void *user, const char *name, const char *json)
{
    device_walk *w = user;
    size_t n = strlen(w->text);
    snprintf(w->text + n, sizeof w->text - n, "%s=%s;", name, json);
    return ++w->seen == w->stop_after ? 7 : 0;
}

static void check_devices(st_store *st, const char *want)
{
    device_walk w = {.text = ""};
    lr_error err;
    lr_error_clear(&err);
    CHECK_INT(st_device_each(st, collect_device, &w, &err), 0);
    CHECK_STR(w.text, want);
    CHECK(!lr_error_is_set(&err));
}

/* Devices that users add (issue 9, item 2): one per name regardless of case, kept
 * unless replacing is asked for, listed in name order, persistent, removable. */
static void test_stores_devices(void)
{
    char path[256];
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "devices.db"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    check_devices(st, "");
    CHECK_INT(st_device_put(st, "Gpu-B", "{\"v\":1}", 0, &err), 0);
    CHECK_INT(st_device_put(st, "Gpu-A", "{\"v\":2}", 0, &err), 0);
    check_devices(st, "Gpu-A={\"v\":2};Gpu-B={\"v\":1};");
    /* the same name in another case is the same device: refused, then replaced */
    CHECK_INT(st_device_put(st, "gpu-b", "{\"v\":3}", 0, &err), 1);
    check_devices(st, "Gpu-A={\"v\":2};Gpu-B={\"v\":1};");
    CHECK_INT(st_device_put(st, "gpu-b", "{\"v\":3}", 1, &err), 0);
    check_devices(st, "Gpu-A={\"v\":2};gpu-b={\"v\":3};");
    CHECK(!lr_error_is_set(&err));
    /* a walk stops when asked and says so */
    device_walk w = {.text = "", .stop_after = 1};
    CHECK_INT(st_device_each(st, collect_device, &w, &err), 7);
    CHECK_STR(w.text, "Gpu-A={\"v\":2};");
    /* text that is not JSON is never stored */
    CHECK_INT(st_device_put(st, "Gpu-C", "{broken", 0, &err), -1);
    CHECK_CONTAINS(err.message, "not valid JSON");
    lr_error_clear(&err);
    st_close(st);

    st = st_open(path, &err);
    CHECK(st != NULL);
    if (!st)
        return;
    check_devices(st, "Gpu-A={\"v\":2};gpu-b={\"v\":3};");
    CHECK_INT(st_device_remove(st, "GPU-A", &err), 0);
    CHECK_INT(st_device_remove(st, "GPU-A", &err), 1);
    check_devices(st, "gpu-b={\"v\":3};");
    /* clearing the cache keeps devices: they are data */
    CHECK_INT(st_clear_predictions(st, &err), 0);
    check_devices(st, "gpu-b={\"v\":3};");
    CHECK(!lr_error_is_set(&err));
    st_close(st);
}

/* A database of schema 2 (before stored devices) is migrated on open: its
 * measurements are kept (its predictions are dropped by schema 6), and it stores
 * devices. */
static void test_migrates_schema_2(void)
{
    char path[256];
    lr_error err;
    st_stats stats;
    lr_error_clear(&err);
    raw_sql(db_path(path, sizeof path, "schema2.db"),
            "CREATE TABLE measurement(id INTEGER PRIMARY KEY, created TEXT NOT NULL DEFAULT"
            " (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), kernel_hash TEXT NOT NULL,"
            " gpu_name TEXT NOT NULL, driver_version TEXT NOT NULL, block_x INTEGER NOT NULL,"
            " block_y INTEGER NOT NULL, block_z INTEGER NOT NULL, fold_x INTEGER NOT NULL,"
            " fold_y INTEGER NOT NULL, fold_z INTEGER NOT NULL, ms_min REAL NOT NULL,"
            " ms_median REAL NOT NULL, ms_max REAL NOT NULL, glups REAL NOT NULL,"
            " json TEXT NOT NULL);"
            "CREATE TABLE request(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);"
            "CREATE TABLE prediction(key TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL,"
            " json TEXT NOT NULL, created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ',"
            " 'now')), request_id INTEGER NOT NULL REFERENCES request(id),"
            " config TEXT NOT NULL);"
            "INSERT INTO request(id, text) VALUES (1, '" REQ "');"
            "INSERT INTO prediction(key, kind, json, request_id, config)"
            " VALUES ('k', 'estimate', '{\"v\":1}', 1, '" CFG "');"
            "INSERT INTO measurement(kernel_hash, gpu_name, driver_version, block_x, block_y,"
            " block_z, fold_x, fold_y, fold_z, ms_min, ms_median, ms_max, glups, json)"
            " VALUES ('h', 'H100', '1', 32, 4, 1, 1, 1, 1, 1, 1, 1, 1, '{}');"
            "PRAGMA user_version = 2; PRAGMA application_id = 1280470635;");
    st_store *st = st_open(path, &err);
    CHECK(st != NULL);
    if (!st) {
        fprintf(stderr, "schema 2: %s\n", err.message);
        return;
    }
    CHECK_INT(st_get_stats(st, &stats, &err), 0);
    CHECK_INT(stats.schema_version, ST_TEST_SCHEMA);
    /* schema 6 drops the predictions: they carry no stamp, so nothing says they are
     * intact without parsing them again (a cache; measurements stay) */
    CHECK_INT(stats.predictions, 0);
    CHECK_INT(stats.measurements, 1);
    check_missing(st, "k");
    CHECK_INT(st_device_put(st, "Gpu", "{}", 0, &err), 0);
    check_devices(st, "Gpu={};");
    CHECK(!lr_error_is_set(&err));
    st_close(st);
}

/* Arrays (schema 7, issue 45): stored once by their name, read back byte for byte, also
 * one larger than a blob piece (64 MiB, so it is written and read in two); a database
 * of schema 6 keeps its predictions and gains the table. */
static void test_arrays_round_trip_and_schema_6_gains_them(void)
{
    char path[256];
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "arrays.db"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    CHECK_INT(st_prediction_put(st, "k", REQ, CFG, "estimate", "{\"v\":1}", &err), 0);
    st_close(st);
    raw_sql(path, "DROP TABLE array; DROP TABLE array_use; PRAGMA user_version = 6");
    st = st_open(path, &err);
    CHECK(st != NULL);
    if (!st)
        return;
    check_get(st, "k", "{\"v\":1}");
    const char *a = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    int32_t small[3] = {1, -2, 3};
    void *data = NULL;
    int64_t bytes = 0;
    int width = 0;
    CHECK_INT(st_array_get(st, a, &data, &bytes, &width, &err), 0);
    CHECK_INT(st_array_put(st, a, 4, small, sizeof small, NULL, &err), 0);
    CHECK_INT(st_array_put(st, a, 4, small, sizeof small, NULL, &err), 1);
    CHECK_INT(st_array_get(st, a, &data, &bytes, &width, &err), 1);
    CHECK_INT((int)bytes, (int)sizeof small);
    CHECK_INT(width, 4);
    CHECK(data && memcmp(data, small, sizeof small) == 0);
    free(data);
    int64_t big_n = ((int64_t)64 << 20) / 8 + 3;
    int64_t *big = malloc((size_t)big_n * 8);
    CHECK(big != NULL);
    if (big) {
        for (int64_t i = 0; i < big_n; i++)
            big[i] = i * 7919;
        const char *b = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
        CHECK_INT(st_array_put(st, b, 8, big, big_n * 8, NULL, &err), 0);
        CHECK_INT(st_array_get(st, b, &data, &bytes, &width, &err), 1);
        CHECK(bytes == big_n * 8 && width == 8);
        CHECK(data && memcmp(data, big, (size_t)bytes) == 0);
        free(data);
        free(big);
    }
    CHECK(!lr_error_is_set(&err));
    st_close(st);
    CHECK_INT(raw_int(path, "PRAGMA user_version"), ST_TEST_SCHEMA);
}

/* A name of 64 hex digits from c. */
static void hex_name(char out[65], char c)
{
    memset(out, c, 64);
    out[64] = '\0';
}

/* Arrays are bounded in total bytes: storing one past the bound evicts the least
 * recently stored or read; one larger than the bound alone is refused; arrays of a
 * schema 7 database (no array_use rows) count as the least recent, oldest first. */
static void test_arrays_evict_least_recently_used(void)
{
    char path[256];
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "arrays_lru.db"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    char a[65], b[65], c[65], d[65], e[65];
    hex_name(a, 'a'), hex_name(b, 'b'), hex_name(c, 'c'), hex_name(d, 'd'), hex_name(e, 'e');
    int32_t ten[10] = {0}; /* 40 bytes */
    int32_t thirty[30] = {0};
    int64_t evicted = -1;
    CHECK_INT(st_array_put(st, a, 4, ten, sizeof ten, &evicted, &err), 0);
    CHECK_INT(st_array_put(st, b, 4, ten, sizeof ten, &evicted, &err), 0);
    CHECK_INT((int)evicted, 0); /* unbounded by default */
    st_set_max_array_bytes(st, 100);
    void *data = NULL;
    int64_t bytes;
    int width;
    CHECK_INT(st_array_get(st, a, &data, &bytes, &width, &err), 1); /* a is now the newer */
    free(data);
    CHECK_INT(st_array_put(st, c, 4, ten, sizeof ten, &evicted, &err), 0);
    CHECK_INT((int)evicted, 1);
    CHECK_INT(st_array_get(st, b, NULL, &bytes, &width, &err), 0); /* b went */
    CHECK_INT(st_array_get(st, a, NULL, &bytes, &width, &err), 1);
    CHECK_INT(st_array_get(st, c, NULL, &bytes, &width, &err), 1);
    /* 120 bytes alone are more than the bound: refused, nothing evicted */
    int32_t too_big[30];
    memset(too_big, 0, sizeof too_big);
    CHECK_INT(st_array_put(st, d, 4, too_big, 120, &evicted, &err), -1);
    CHECK_INT(err.code, LR_LIMIT_EXCEEDED);
    lr_error_clear(&err);
    CHECK_INT(st_array_get(st, a, NULL, &bytes, &width, &err), 1);
    /* storing a again only marks it used: c becomes the least recent */
    CHECK_INT(st_array_put(st, a, 4, ten, sizeof ten, &evicted, &err), 1);
    CHECK_INT(st_array_put(st, d, 4, thirty, 80, &evicted, &err), 0);
    CHECK_INT((int)evicted, 2); /* 80 bytes need both 40-byte arrays gone */
    CHECK_INT(st_array_get(st, a, NULL, &bytes, &width, &err), 0);
    CHECK_INT(st_array_get(st, d, NULL, &bytes, &width, &err), 1);
    /* schema 7: the recency table is new; its arrays are the least recent */
    st_close(st);
    raw_sql(path, "DROP TRIGGER array_gone; DROP TABLE array_use; PRAGMA user_version = 7");
    st = st_open(path, &err);
    CHECK(st != NULL);
    if (!st)
        return;
    st_set_max_array_bytes(st, 100);
    CHECK_INT(st_array_put(st, e, 4, ten, sizeof ten, &evicted, &err), 0);
    CHECK_INT((int)evicted, 1); /* d, from schema 7, made room */
    CHECK_INT(st_array_get(st, d, NULL, &bytes, &width, &err), 0);
    CHECK_INT(raw_int(path, "SELECT count(*) FROM array_use"), 1); /* the trigger kept it */
    CHECK(!lr_error_is_set(&err));
    st_close(st);
    CHECK_INT(raw_int(path, "PRAGMA user_version"), ST_TEST_SCHEMA);
}

static void remove_tmp_dir(void)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_store: could not remove %s\n", tmp_dir);
}

/* A bounded cache evicts the least recently used predictions (issue 10, item 9):
 * 300 predictions into a cache of 20, with "k0" read after every store, leave at most
 * 20 + 63 rows (eviction runs every 64 stores), keep k0 and the newest, drop the old
 * unread ones and the request texts nothing names; measurements are never evicted. */
static void test_bounded_cache_evicts_least_recently_used(void)
{
    char path[512];
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "bounded.sqlite"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    st_set_max_predictions(st, 20);
    st_measurement m = {.kernel_hash = "h", .gpu_name = "G", .driver_version = "1",
                        .block = {32, 1, 1}, .folding = {1, 1, 1}, .ms_min = 1,
                        .ms_median = 1, .ms_max = 1, .glups = 1, .json = "{}"};
    CHECK_INT(st_measurement_add(st, &m, &err), 0);
    for (int i = 0; i < 300; i++) {
        char key[32], req[64], *json = NULL;
        snprintf(key, sizeof key, "k%d", i);
        snprintf(req, sizeof req, "{\"kernel\":\"k%d\"}", i);
        CHECK_INT(st_prediction_put(st, key, req, CFG, "estimate", "{}", &err), 0);
        CHECK_INT(st_prediction_get(st, "k0", "{\"kernel\":\"k0\"}", CFG, &json, &err), 1);
        free(json);
    }
    st_stats stats;
    CHECK_INT(st_get_stats(st, &stats, &err), 0);
    CHECK(stats.predictions >= 20 && stats.predictions <= 20 + 63);
    CHECK_INT(stats.measurements, 1);
    char *json = NULL;
    CHECK_INT(st_prediction_get(st, "k1", "{\"kernel\":\"k1\"}", CFG, &json, &err), 0);
    CHECK_INT(st_prediction_get(st, "k299", "{\"kernel\":\"k299\"}", CFG, &json, &err), 1);
    free(json);
    st_close(st);
    int requests = raw_int(path, "SELECT count(*) FROM request");
    CHECK(requests >= 1 && requests <= 20 + 63);
}

/* Issue 41: a read writes nothing. The recency of reads is batched in memory and
 * written in one transaction per 256 reads or per second, before an eviction and on
 * close; before, every read was a write transaction (35 % of a cached answer). 100
 * reads within a second leave the rows' used times as they were for another
 * connection; closing the reader writes them. */
static void test_reads_batch_their_recency(void)
{
    char path[512];
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "recency.sqlite"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    st_set_max_predictions(st, 1000);
    CHECK_INT(st_prediction_put(st, "a", REQ, CFG, "estimate", "{\"v\":1}", &err), 0);
    CHECK_INT(st_prediction_put(st, "b", REQ, CFG, "estimate", "{\"v\":2}", &err), 0);
    char used_a[64], used_now[64];
    snprintf(used_a, sizeof used_a, "%d", raw_int(path, "SELECT used < (SELECT used FROM"
                                                       " prediction WHERE key = 'b') FROM"
                                                       " prediction WHERE key = 'a'"));
    CHECK_STR(used_a, "1"); /* stored first: a is older than b */
    for (int i = 0; i < 100; i++)
        check_get(st, "a", "{\"v\":1}");
    /* nothing written yet: a is still the older of the two */
    snprintf(used_now, sizeof used_now, "%d", raw_int(path, "SELECT used < (SELECT used FROM"
                                                         " prediction WHERE key = 'b') FROM"
                                                         " prediction WHERE key = 'a'"));
    CHECK_STR(used_now, "1");
    st_close(st);
    /* closing wrote the batch: a was read after b was stored */
    snprintf(used_now, sizeof used_now, "%d", raw_int(path, "SELECT used > (SELECT used FROM"
                                                         " prediction WHERE key = 'b') FROM"
                                                         " prediction WHERE key = 'a'"));
    CHECK_STR(used_now, "1");
}

/* Issue 41: a row is checked once, when it is stored, and stamped; a read compares the
 * stamp with the row's text instead of parsing it. A row changed after it was written
 * (damaged, or by another program) no longer matches its stamp and is a miss, and so
 * is every row of a connection that reads another row format. */
static void test_stamp_guards_rows(void)
{
    char path[512];
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "stamp.sqlite"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    st_set_row_format(st, "fmt-1");
    CHECK_INT(st_prediction_put(st, "a", REQ, CFG, "estimate", "{\"v\":1}", &err), 0);
    CHECK_INT(st_prediction_put(st, "b", REQ, CFG, "estimate", "{\"v\":2}", &err), 0);
    check_get(st, "a", "{\"v\":1}");
    raw_sql(path, "UPDATE prediction SET json = '{\"v\":9}' WHERE key = 'a'");
    check_missing(st, "a");
    check_get(st, "b", "{\"v\":2}");
    st_set_row_format(st, "fmt-2");
    check_missing(st, "b");
    /* a row stored again under the new format is read again */
    CHECK_INT(st_prediction_put(st, "b", REQ, CFG, "estimate", "{\"v\":2}", &err), 0);
    check_get(st, "b", "{\"v\":2}");
    CHECK(!lr_error_is_set(&err));
    st_close(st);
}

/* Issue 41: the request table holds each canonical request once. Its unique index was
 * on the text, which stored every request twice (490 MB for 44,902 predictions of
 * distinct requests); it is on the text's hash now. */
static void test_request_text_stored_once(void)
{
    char path[512];
    lr_error err;
    lr_error_clear(&err);
    st_store *st = st_open(db_path(path, sizeof path, "size.sqlite"), &err);
    CHECK(st != NULL);
    if (!st)
        return;
    static char req[3001]; /* 200 distinct requests of 3000 bytes */
    memset(req, 'x', sizeof req - 1);
    req[0] = '{', req[1] = '"', req[sizeof req - 4] = '"', req[sizeof req - 3] = ':';
    req[sizeof req - 2] = '}';
    for (int i = 0; i < 200; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%d", i);
        snprintf(req + 2, 8, "%07d", i);
        req[9] = 'x';
        CHECK_INT(st_prediction_put(st, key, req, CFG, "estimate", "{}", &err), 0);
    }
    st_close(st);
    int kib = raw_int(path, "SELECT page_count * page_size / 1024 FROM pragma_page_count(),"
                            " pragma_page_size()");
    /* 200 x 3000 B of request text is 586 KiB once, 1172 twice */
    CHECK(kib > 586 && kib < 900);
    if (!(kib > 586 && kib < 900))
        fprintf(stderr, "200 requests of 3000 B take %d KiB\n", kib);
}

int main(void)
{
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_roundtrip_and_persistence();
    test_refuses_invalid_values();
    test_refuses_unusable_files();
    test_refuses_read_only_file();
    test_clear_keeps_measurements();
    test_export_is_json_lines();
    test_two_connections();
    test_concurrent_first_open();
    test_key_collision_is_a_miss();
    test_migrates_schema_1();
    test_stores_devices();
    test_migrates_schema_2();
    test_bounded_cache_evicts_least_recently_used();
    test_reads_batch_their_recency();
    test_stamp_guards_rows();
    test_request_text_stored_once();
    test_arrays_round_trip_and_schema_6_gains_them();
    test_arrays_evict_least_recently_used();
    remove_tmp_dir();
    return check_report("test_store");
}
