/*
 * hostile.h: the harness of test_hostile.c. A growable byte buffer, the daemon under
 * test as a child process (fork/exec of the real binary, stderr captured to a file), a
 * small HTTP/1.1 client over plain sockets, the check of an error answer, and the
 * helpers that derive hostile JSON bodies from valid ones. Nothing here counts test
 * failures: functions return what they saw and test_hostile.c decides.
 */
#ifndef LR_FUZZ_HOSTILE_H
#define LR_FUZZ_HOSTILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

/* CLOCK_MONOTONIC in seconds. */
double hz_now(void);
void hz_sleep_ms(long ms);

/* ---- buffers ---------------------------------------------------------------------- */

/* A growable byte buffer, NUL-terminated once anything was added; {0} is empty. The
 * owner frees p with buf_free (or takes it with buf_take). Exits when out of memory. */
typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

void buf_add(buf *b, const void *p, size_t n);
void buf_puts(buf *b, const char *s);
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* times copies of s, back to back. */
void buf_repeat(buf *b, const char *s, size_t times);
/* open, times copies of s separated by commas, close: "[s,s,s]". */
void buf_list(buf *b, const char *open, const char *s, size_t times, const char *close);
/* The text (malloc'd, the caller frees it; "" when empty); b is empty afterwards. */
char *buf_take(buf *b);
void buf_free(buf *b);

/* The whole file, malloc'd and NUL-terminated (*len without the NUL), or NULL. */
char *hz_read_file(const char *path, size_t *len);
/* Prints at most max bytes of p[0..n), other than printable ASCII as \xNN. */
void hz_print_excerpt(FILE *f, const char *p, size_t n, size_t max);
/* Whether p[0..n) is well-formed UTF-8 (no overlongs, surrogates, > U+10FFFF). */
int hz_utf8_valid(const unsigned char *p, size_t n);

/* ---- the daemon under test --------------------------------------------------------- */

typedef struct hz_daemon {
    pid_t pid; /* 0 once it exited and was reaped */
    unsigned port;
    char dir[64]; /* temporary directory: port file, cache database, stderr log */
    char port_file[128], db[128], log[128];
    size_t log_seen; /* bytes of the log already scanned by hz_daemon_new_report */
} hz_daemon;

/* Runs `bin serve --listen 127.0.0.1:0 --port-file --db --quiet --threads 2 --timeout
 * timeout_s` with stderr in d->log and UBSan told to continue after a report; waits for
 * the port file. 0, or -1 when it did not come up within 30 s. */
int hz_daemon_start(hz_daemon *d, const char *bin, const char *timeout_s);
/* 1 while it runs; 0 once it has exited (*status gets its wait status, -1 when it was
 * reaped before). */
int hz_daemon_alive(hz_daemon *d, int *status);
/* SIGTERM, then waits up to 45 s (the daemon drains for at most 30). Returns the wait
 * status, or -1 when it had to be killed or was gone already. */
int hz_daemon_stop(hz_daemon *d);
/* What the daemon wrote to stderr since the last call, malloc'd, when it holds a
 * sanitizer report (AddressSanitizer, UBSan's "runtime error:", LeakSanitizer);
 * NULL otherwise. */
char *hz_daemon_new_report(hz_daemon *d);
/* Whether text holds a sanitizer report. */
int hz_has_sanitizer_report(const char *text);
/* Removes the temporary files and directory. */
void hz_daemon_cleanup(hz_daemon *d);

/* ---- HTTP/1.1 client --------------------------------------------------------------- */

typedef struct http_resp {
    int status;    /* final status (1xx skipped); 0 when none came */
    int closed;    /* the server closed the connection (EOF or reset) */
    int timed_out; /* nothing complete within the time limit */
    char *head;    /* status line and headers, NUL-terminated; NULL when none */
    char *body;    /* NUL-terminated; NULL when none */
    size_t body_len;
    double seconds; /* from connect to the answer, close or time limit */
} http_resp;

void http_resp_free(http_resp *r);
/* A non-blocking socket connected to 127.0.0.1:port, or -1. */
int http_connect(unsigned port);
/* The value of header name in head, copied into out; NULL when absent. */
const char *http_header(const char *head, const char *name, char *out, size_t size);
/* Fills r from in when in holds a complete answer (1xx answers in front are dropped
 * from in); 1 when filled, 0 when more bytes are needed. Without Content-Length the
 * body ends at EOF (at_eof); after HEAD there is none. */
int http_parse_response(buf *in, int is_head, int at_eof, http_resp *r);
/* Sends req[0..len) on a new connection while reading, so that an answer the server
 * sends before the whole request is in (413 from the headers) is read, not lost in a
 * reset. Waits at most timeout_s. */
void http_exchange(unsigned port, const char *req, size_t len, int is_head, double timeout_s,
                   http_resp *r);
/* METHOD PATH HTTP/1.1, Host (127.0.0.1:port, the daemon's own: it refuses other
 * names with 403), Connection: close, Content-Type when ctype is not NULL,
 * Content-Length when body is not NULL, the extra header lines ("Name: v\r\n"...),
 * the blank line, then body. */
void http_build_request(buf *out, unsigned port, const char *method, const char *path,
                        const char *ctype, const char *body, size_t len, const char *extra);
/* Why r is not a proper error answer, or NULL when it is: a 4xx (want_status when not
 * 0), Content-Type application/json, a valid UTF-8 body holding exactly one JSON value
 * {"error":{"code","message","path"}} with a non-empty code and message. */
const char *hz_error_shape_problem(const http_resp *r, int want_status);

/* ---- JSON bodies ----------------------------------------------------------------- */

/* The item at path ("kernel.fields[0].loads[1][0]"; "" is the root) and, in *parent,
 * the object or array holding it. When only the last key is missing, returns NULL with
 * *parent set to the object that lacks it. */
cJSON *hz_json_at(cJSON *root, const char *path, cJSON **parent);
/* base printed unformatted with the value at path replaced by raw, printed verbatim
 * (a key missing from an existing object is added). cJSON_free the result. Exits on
 * a path that does not exist: that is a bug of the test. */
char *hz_json_with_raw(const cJSON *base, const char *path, const char *raw);
/* text with its first occurrence of from replaced by to (malloc'd); exits when absent. */
char *hz_replace_once(const char *text, const char *from, const char *to);

typedef struct hz_json_path {
    char path[128];
    int kind; /* HZ_KIND_* */
} hz_json_path;

enum {
    HZ_KIND_STRING,
    HZ_KIND_NUMBER,
    HZ_KIND_NULL,
    HZ_KIND_BOOL,
    HZ_KIND_OBJECT,
    HZ_KIND_ARRAY
};

/* Appends every value below v (depth first) to out[*n..max). */
void hz_json_paths(const cJSON *v, const char *path, hz_json_path *out, int *n, int max);

#endif
