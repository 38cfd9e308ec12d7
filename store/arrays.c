/*
 * arrays.c: integer arrays kept by their SHA-256 (store.h): an index field's values
 * uploaded to the daemon, a ranking's permutations. An array can be hundreds of MB (a
 * 16 M-cell neighbour list is 256 MB of int32), so its bytes never pass through a
 * statement's bound or returned value, which SQLite would copy whole: a row is
 * inserted with a zeroblob of the right size and filled, or read, through the
 * incremental blob interface, in pieces of ARRAY_PIECE bytes. Their total is bounded:
 * storing one evicts the least recently stored or read (array_use) until it fits.
 */
#include "store_int.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* Bytes written or read per sqlite3_blob call: its length is an int. */
#define ARRAY_PIECE (64 << 20)

/* The row of sha256: 1 with its rowid, width and length in bytes; 0 when none; -1. */
static int array_find(st_store *st, const char *sha256, sqlite3_int64 *rowid, int *width,
                      int64_t *bytes, lr_error *err)
{
    sqlite3_stmt *s = st->stmt[ST_STMT_ARRAY_FIND];
    int found = -1;
    if (sqlite3_bind_text(s, 1, sha256, -1, SQLITE_STATIC) != SQLITE_OK) {
        st_fail(st, err, "looking an array up");
        st_stmt_done(s);
        return -1;
    }
    switch (sqlite3_step(s)) {
    case SQLITE_ROW:
        *rowid = sqlite3_column_int64(s, 0);
        *width = sqlite3_column_int(s, 1);
        *bytes = sqlite3_column_int64(s, 2);
        found = 1;
        break;
    case SQLITE_DONE:
        found = 0;
        break;
    default:
        st_fail(st, err, "looking an array up");
    }
    st_stmt_done(s);
    return found;
}

/* Copies between buf and the data of row rowid, in pieces (write: into the blob). */
static int blob_io(st_store *st, sqlite3_int64 rowid, int write, void *buf, int64_t bytes,
                   lr_error *err)
{
    const char *doing = write ? "storing an array" : "reading an array";
    sqlite3_blob *b = NULL;
    if (sqlite3_blob_open(st->db, "main", "array", "data", rowid, write, &b) != SQLITE_OK) {
        sqlite3_blob_close(b);
        return st_fail(st, err, doing);
    }
    int rc = SQLITE_OK;
    for (int64_t off = 0; off < bytes && rc == SQLITE_OK; off += ARRAY_PIECE) {
        int n = (int)(bytes - off < ARRAY_PIECE ? bytes - off : ARRAY_PIECE);
        rc = write ? sqlite3_blob_write(b, (const char *)buf + off, n, (int)off)
                   : sqlite3_blob_read(b, (char *)buf + off, n, (int)off);
    }
    if (rc != SQLITE_OK) {
        st_fail(st, err, doing);
        sqlite3_blob_close(b);
        return -1;
    }
    if (sqlite3_blob_close(b) != SQLITE_OK)
        return st_fail(st, err, doing);
    return 0;
}

void st_set_max_array_bytes(st_store *st, int64_t max)
{
    st->max_array_bytes = max > 0 ? max : 0;
}

/* Marks sha256 as just used. */
static int array_touch(st_store *st, const char *sha256, lr_error *err)
{
    return st_step_texts(st, ST_STMT_ARRAY_TOUCH, &sha256, 1, "recording an array's use", err);
}

/* Bytes of every stored array into *total; 0 or -1. */
static int arrays_total(st_store *st, int64_t *total, lr_error *err)
{
    sqlite3_stmt *s = st->stmt[ST_STMT_ARRAY_BYTES];
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *total = sqlite3_column_int64(s, 0);
    st_stmt_done(s);
    return rc == SQLITE_ROW ? 0 : st_fail(st, err, "counting the arrays' bytes");
}

/* Inside the put's transaction: deletes the least recently used arrays until bytes
 * more fit under max_array_bytes, counting them in *evicted; 0 or -1. */
static int make_room(st_store *st, int64_t bytes, int64_t *evicted, lr_error *err)
{
    const char *doing = "evicting an array";
    int64_t total = 0;
    if (arrays_total(st, &total, err))
        return -1;
    while (total + bytes > st->max_array_bytes && total > 0) {
        sqlite3_stmt *s = st->stmt[ST_STMT_ARRAY_OLDEST];
        char oldest[80] = "";
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            snprintf(oldest, sizeof oldest, "%s", (const char *)sqlite3_column_text(s, 0));
        else if (rc != SQLITE_DONE)
            st_fail(st, err, doing);
        st_stmt_done(s);
        if (rc == SQLITE_DONE)
            return lr_error_set(err, LR_INTERNAL, NULL,
                                "cache database '%s': %lld bytes of arrays, none to evict",
                                st->path, (long long)total);
        const char *name = oldest;
        if (rc != SQLITE_ROW || st_step_texts(st, ST_STMT_ARRAY_REMOVE, &name, 1, doing, err) ||
            arrays_total(st, &total, err))
            return -1;
        (*evicted)++;
    }
    return 0;
}

/* Inserts the row and its bytes, inside the transaction; 0 or -1. */
static int array_insert(st_store *st, const char *sha256, int width, const void *data,
                        int64_t bytes, lr_error *err)
{
    const char *doing = "storing an array";
    sqlite3_stmt *s = st->stmt[ST_STMT_ARRAY_ADD];
    int ok = sqlite3_bind_text(s, 1, sha256, -1, SQLITE_STATIC) == SQLITE_OK &&
             sqlite3_bind_int(s, 2, width) == SQLITE_OK &&
             sqlite3_bind_int64(s, 3, bytes / width) == SQLITE_OK &&
             sqlite3_bind_int64(s, 4, bytes) == SQLITE_OK;
    if (!ok) {
        st_fail(st, err, doing);
        st_stmt_done(s);
        return -1;
    }
    /* another connection may have stored it since array_find: OR IGNORE is not used,
     * so that case fails here and is reported as stored after the rollback */
    if (st_step_done(st, s, doing, err) ||
        blob_io(st, sqlite3_last_insert_rowid(st->db), 1, (void *)data, bytes, err))
        return -1;
    return array_touch(st, sha256, err);
}

int st_array_put(st_store *st, const char *sha256, int width, const void *data, int64_t bytes,
                 int64_t *evicted, lr_error *err)
{
    const char *doing = "storing an array";
    sqlite3_int64 rowid;
    int old_width;
    int64_t old_bytes, none = 0;
    if (!evicted)
        evicted = &none;
    *evicted = 0;
    if (bytes <= 0 || bytes > ST_ARRAY_MAX_BYTES || (width != 4 && width != 8) || bytes % width)
        return lr_error_set(err, LR_INTERNAL, NULL,
                            "cache database '%s': an array of %lld bytes of %d-byte integers "
                            "cannot be stored",
                            st->path, (long long)bytes, width);
    if (st->max_array_bytes > 0 && bytes > st->max_array_bytes)
        return lr_error_set(err, LR_LIMIT_EXCEEDED, NULL,
                            "an array of %lld bytes is larger than the %lld bytes all arrays "
                            "may take together",
                            (long long)bytes, (long long)st->max_array_bytes);
    int found = array_find(st, sha256, &rowid, &old_width, &old_bytes, err);
    if (found == 1) { /* there already (the name is the hash of the bytes) */
        lr_error ignored;
        lr_error_clear(&ignored);
        array_touch(st, sha256, &ignored); /* recency is advice: a failure loses nothing */
        return 1;
    }
    if (found < 0 || st_step_texts(st, ST_STMT_BEGIN, NULL, 0, doing, err))
        return -1;
    int rc = st->max_array_bytes > 0 ? make_room(st, bytes, evicted, err) : 0;
    if (rc == 0)
        rc = array_insert(st, sha256, width, data, bytes, err);
    if (rc == 0)
        rc = st_step_texts(st, ST_STMT_COMMIT, NULL, 0, doing, err);
    if (rc != 0) {
        lr_error ignored;
        lr_error_clear(&ignored);
        st_step_done(st, st->stmt[ST_STMT_ROLLBACK], "rolling back", &ignored);
        *evicted = 0;
        if (array_find(st, sha256, &rowid, &old_width, &old_bytes, &ignored) == 1) {
            lr_error_clear(err);
            return 1;
        }
        return -1;
    }
    return 0;
}

int st_array_get(st_store *st, const char *sha256, void **data, int64_t *bytes, int *width,
                 lr_error *err)
{
    sqlite3_int64 rowid;
    if (data)
        *data = NULL;
    int found = array_find(st, sha256, &rowid, width, bytes, err);
    if (found != 1 || !data)
        return found;
    lr_error ignored;
    lr_error_clear(&ignored);
    array_touch(st, sha256, &ignored); /* recency is advice: a failure loses nothing */
    void *buf = malloc((size_t)(*bytes > 0 ? *bytes : 1));
    if (!buf)
        return lr_error_set(err, LR_NO_MEMORY, NULL,
                            "cache database '%s': out of memory reading an array of %lld bytes",
                            st->path, (long long)*bytes);
    if (blob_io(st, rowid, 0, buf, *bytes, err)) {
        free(buf);
        return -1;
    }
    *data = buf;
    return 1;
}
