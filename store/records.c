/*
 * records: the store's rows other than predictions (store.h): the measurement log that
 * `launchrank fit` reads, the export of a whole database, and the devices that users
 * add. The connection, its statements and the helpers that run them are store.c's
 * (store_int.h).
 */
#include "store_int.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int st_measurement_add(st_store *st, const st_measurement *m, lr_error *err)
{
    sqlite3_stmt *s = st->stmt[ST_STMT_MEASUREMENT_ADD];
    const double times[4] = {m->ms_min, m->ms_median, m->ms_max, m->glups};
    int rc = SQLITE_OK;

    /* SQLite would store NaN as NULL and infinity as a number JSON cannot hold. */
    for (int i = 0; i < 4; i++)
        if (!isfinite(times[i]))
            return lr_error_set(err, LR_INTERNAL, NULL,
                                "cache database '%s': refusing a measurement with a "
                                "non-finite timing",
                                st->path);
    if (st_check_json(st, m->json, "measurement", err))
        return -1;
    rc = sqlite3_bind_text(s, 1, m->kernel_hash, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(s, 2, m->gpu_name, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(s, 3, m->driver_version, -1, SQLITE_STATIC);
    for (int i = 0; i < 3 && rc == SQLITE_OK; i++) {
        rc = sqlite3_bind_int(s, 4 + i, m->block[i]);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int(s, 7 + i, m->folding[i]);
    }
    for (int i = 0; i < 4 && rc == SQLITE_OK; i++)
        rc = sqlite3_bind_double(s, 10 + i, times[i]);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(s, 14, m->json, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = m->request ? sqlite3_bind_text(s, 15, m->request, -1, SQLITE_STATIC)
                        : sqlite3_bind_null(s, 15);
    if (rc != SQLITE_OK) {
        st_fail(st, err, "adding a measurement");
        st_stmt_done(s);
        return -1;
    }
    return st_step_done(st, s, "adding a measurement", err);
}

int st_measurement_each(st_store *st, st_measurement_fn fn, void *user, lr_error *err)
{
    sqlite3_stmt *s = st->stmt[ST_STMT_MEASUREMENT_LIST];
    int rc, stop = 0;

    while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        st_measurement m;
        const char *texts[4];
        const int cols[4] = {0, 1, 2, 13};
        memset(&m, 0, sizeof m);
        for (int i = 0; i < 4; i++)
            texts[i] = (const char *)sqlite3_column_text(s, cols[i]);
        m.kernel_hash = texts[0];
        m.gpu_name = texts[1];
        m.driver_version = texts[2];
        m.json = texts[3];
        for (int d = 0; d < 3; d++) {
            m.block[d] = sqlite3_column_int(s, 3 + d);
            m.folding[d] = sqlite3_column_int(s, 6 + d);
        }
        m.ms_min = sqlite3_column_double(s, 9);
        m.ms_median = sqlite3_column_double(s, 10);
        m.ms_max = sqlite3_column_double(s, 11);
        m.glups = sqlite3_column_double(s, 12);
        /* NULL for rows measured before schema 4 */
        m.request = (const char *)sqlite3_column_text(s, 14);
        m.created = (const char *)sqlite3_column_text(s, 15);
        if (!m.kernel_hash || !m.gpu_name || !m.driver_version || !m.json || !m.created) {
            st_stmt_done(s);
            return lr_error_set(err, LR_NO_MEMORY, NULL,
                                "cache database '%s': out of memory reading measurements",
                                st->path);
        }
        stop = fn(user, &m);
    }
    if (stop) {
        st_stmt_done(s);
        return stop;
    }
    return st_rows_done(st, s, rc, "reading measurements", err);
}

/* Adds stored JSON as the raw "value". JSON strings cannot hold raw line breaks,
 * so any in the text are whitespace between tokens: blanking them keeps the value
 * and keeps one record per line. */
static cJSON *add_raw_value(cJSON *obj, const char *json)
{
    char *flat = NULL;
    cJSON *item;

    if (strpbrk(json, "\r\n")) {
        if (!(flat = strdup(json)))
            return NULL;
        for (char *p = flat; (p = strpbrk(p, "\r\n")); p++)
            *p = ' ';
    }
    item = cJSON_CreateRaw(flat ? flat : json);
    free(flat);
    if (item && !cJSON_AddItemToObject(obj, "value", item)) {
        cJSON_Delete(item);
        item = NULL;
    }
    return item;
}

/* Builds one export record from the current row: every column under its own name,
 * except "json", which becomes "value". NULL when out of memory. */
static cJSON *row_to_json(sqlite3_stmt *s, const char *type)
{
    cJSON *obj = cJSON_CreateObject();
    int ok = obj && cJSON_AddStringToObject(obj, "type", type);

    for (int i = 0; ok && i < sqlite3_column_count(s); i++) {
        /* The type first: column_text converts the value, after which the type
         * is undefined. */
        int type_of = sqlite3_column_type(s, i);
        const char *name = sqlite3_column_name(s, i);
        const char *text;
        switch (type_of) {
        case SQLITE_INTEGER:
        case SQLITE_FLOAT:
            ok = cJSON_AddNumberToObject(obj, name, sqlite3_column_double(s, i)) != NULL;
            break;
        case SQLITE_NULL:
            ok = cJSON_AddNullToObject(obj, name) != NULL;
            break;
        default:
            if (!(text = (const char *)sqlite3_column_text(s, i)))
                ok = 0;
            else if (strcmp(name, "json") == 0)
                ok = add_raw_value(obj, text) != NULL;
            else
                ok = cJSON_AddStringToObject(obj, name, text) != NULL;
        }
    }
    if (!ok) {
        cJSON_Delete(obj);
        return NULL;
    }
    return obj;
}

static int export_rows(st_store *st, sqlite3_stmt *s, const char *type, FILE *out,
                       lr_error *err)
{
    int rc;

    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        cJSON *obj = row_to_json(s, type);
        char *line = obj ? cJSON_PrintUnformatted(obj) : NULL;
        cJSON_Delete(obj);
        if (!line) {
            st_stmt_done(s);
            return lr_error_set(err, LR_NO_MEMORY, NULL,
                                "cache database '%s': out of memory exporting", st->path);
        }
        fputs(line, out);
        fputc('\n', out);
        cJSON_free(line);
    }
    return st_rows_done(st, s, rc, "exporting", err);
}

int st_export(st_store *st, FILE *out, lr_error *err)
{
    /* One read transaction, so predictions and measurements come from the same
     * snapshot; in WAL mode it does not hold up writers. */
    if (st_run_sql(st, "BEGIN", "exporting", err))
        return -1;
    if (export_rows(st, st->stmt[ST_STMT_EXPORT_PREDICTIONS], "prediction", out, err) ||
        export_rows(st, st->stmt[ST_STMT_EXPORT_MEASUREMENTS], "measurement", out, err) ||
        export_rows(st, st->stmt[ST_STMT_EXPORT_DEVICES], "device", out, err)) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (st_run_sql(st, "COMMIT", "exporting", err))
        return -1;
    if (fflush(out) != 0 || ferror(out))
        return lr_error_set(err, LR_UNAVAILABLE, NULL,
                            "cache database '%s': writing the export failed", st->path);
    return 0;
}

/* ---- devices that users add ---- */

int st_device_put(st_store *st, const char *name, const char *json, int replace, lr_error *err)
{
    const char *doing = replace ? "replacing a device" : "adding a device";
    const char *row[] = {name, json};

    if (st_check_json(st, json, "device", err))
        return -1;
    if (st_step_texts(st, replace ? ST_STMT_DEVICE_REPLACE : ST_STMT_DEVICE_ADD, row, 2, doing,
                      err))
        return -1;
    return sqlite3_changes(st->db) > 0 ? 0 : 1;
}

int st_device_remove(st_store *st, const char *name, lr_error *err)
{
    if (st_step_texts(st, ST_STMT_DEVICE_REMOVE, &name, 1, "removing a device", err))
        return -1;
    return sqlite3_changes(st->db) > 0 ? 0 : 1;
}

int st_device_each(st_store *st, st_device_fn fn, void *user, lr_error *err)
{
    sqlite3_stmt *s = st->stmt[ST_STMT_DEVICE_LIST];
    int rc, stop = 0;

    while (!stop && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(s, 0);
        const char *json = (const char *)sqlite3_column_text(s, 1);
        if (!name || !json) {
            st_stmt_done(s);
            return lr_error_set(err, LR_NO_MEMORY, NULL,
                                "cache database '%s': out of memory reading devices", st->path);
        }
        stop = fn(user, name, json);
    }
    if (stop) {
        st_stmt_done(s);
        return stop;
    }
    return st_rows_done(st, s, rc, "reading devices", err);
}
