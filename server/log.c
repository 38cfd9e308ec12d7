/*
 * log.c: the daemon's log. One line per call on stderr, written with a single
 * stdio call so that lines of concurrent threads never interleave (stdio
 * locks the stream per call). Whoever runs the daemon (systemd, a container)
 * timestamps and keeps the lines, as for Redis under supervision. The access log
 * lines carry their own time and client address, in Common Log Format, so that log
 * tools read them as they read a web server's (docs/operations.md). The cache's
 * health is said once per change and summed up while it fails (srv_cache_log_*), so
 * that a failing cache under load writes a few lines a minute, not one a request.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "srv_int.h"

/* Longest line we log; longer ones are cut (an lr_error message is 512 bytes). */
#define SRV_LOG_LINE_MAX 2048

void srv_logv(const char *fmt, va_list ap)
{
    char line[SRV_LOG_LINE_MAX];
    vsnprintf(line, sizeof line, fmt, ap);
    /* libmicrohttpd's messages end in a newline, ours do not: print exactly one. */
    size_t n = strlen(line);
    while (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    /* Paths and messages carry client bytes (MHD decodes %0A in a URL): a control
     * character must not forge a log line or drive the terminal. */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = '?';
    fprintf(stderr, "%s\n", line);
}

void srv_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    srv_logv(fmt, ap);
    va_end(ap);
}

/* Copies s into out (size bytes) with '"' and '\\' escaped by a backslash, as
 * Apache writes the request line of its Common Log Format: a quote in a URL must
 * not end the quoted field. */
static void quote_escape(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; *s && n + 3 < size; s++) {
        if (*s == '"' || *s == '\\')
            out[n++] = '\\';
        out[n++] = *s;
    }
    out[n] = '\0';
}

void srv_log_access(const srv_request *req, double ms, const char *why)
{
    /* [10/Oct/2000:13:55:36 -0700]: local time and its offset, as CLF has it; the
     * daemon never calls setlocale, so the month is English as CLF wants. */
    char when[40] = "-";
    struct tm tm;
    if (localtime_r(&req->received, &tm))
        strftime(when, sizeof when, "%d/%b/%Y:%H:%M:%S %z", &tm);
    char url[1024];
    quote_escape(req->url, url, sizeof url);
    char status[12] = "-", bytes[24] = "-";
    if (req->status)
        snprintf(status, sizeof status, "%u", req->status);
    if (req->status && req->bytes)
        snprintf(bytes, sizeof bytes, "%zu", req->bytes);
    srv_log("%s - - [%s] \"%s %s %s\" %s %s %.1fms%s%s%s", req->client, when, req->method, url,
            req->version, status, bytes, ms, why ? " (" : "", why ? why : "", why ? ")" : "");
}

/* ---- the cache's health ---- */

void srv_cache_log_start(srv_cache_log *c, const char *status, uint64_t failures, double now)
{
    pthread_mutex_init(&c->mu, NULL);
    c->failing = strcmp(status, "ok") != 0; /* the start-up line said so */
    c->failures = c->said_failures = failures;
    c->failed_at = c->said_at = now;
}

void srv_cache_log_note(srv_cache_log *c, const char *status, uint64_t failures,
                        const char *last, double now)
{
    int bad = strcmp(status, "ok") != 0;
    /* What the cache fails with: the status while it says so, else the last failure
     * (a write that failed between two reads that succeeded). */
    const char *why = bad ? status : last ? last : "unknown";
    pthread_mutex_lock(&c->mu);
    if (failures != c->failures) {
        c->failures = failures;
        c->failed_at = now;
    }
    if (!c->failing) {
        if (bad || failures != c->said_failures) {
            c->failing = 1;
            srv_log("launchrank: cache not used for now: %s", why);
            c->said_at = now;
            c->said_failures = failures;
        }
    } else if (!bad && now - c->failed_at >= SRV_CACHE_CALM_S) {
        c->failing = 0;
        srv_log("launchrank: cache working again");
        c->said_at = now;
        c->said_failures = failures;
    } else if (now - c->said_at >= SRV_CACHE_SUMMARY_S && failures != c->said_failures) {
        srv_log("launchrank: cache still failing: %" PRIu64
                " failures in the last %.0f s, last reason: %s",
                failures - c->said_failures, now - c->said_at, why);
        c->said_at = now;
        c->said_failures = failures;
    }
    pthread_mutex_unlock(&c->mu);
}

void srv_cache_log_end(srv_cache_log *c)
{
    pthread_mutex_destroy(&c->mu);
}
