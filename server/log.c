/*
 * log.c: the daemon's log. One line per call on stderr, written with a single
 * stdio call so that lines of concurrent threads never interleave (stdio
 * locks the stream per call). Whoever runs the daemon (systemd, a container)
 * timestamps and keeps the lines, as for Redis under supervision. The access log
 * lines carry their own time and client address, in Common Log Format, so that log
 * tools read them as they read a web server's (docs/operations.md).
 */
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
