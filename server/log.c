/*
 * log.c: the daemon's log. One line per call on stderr, written with a single
 * stdio call so that lines of concurrent threads never interleave (stdio
 * locks the stream per call). Whoever runs the daemon (systemd, a container)
 * timestamps and keeps the lines, as for Redis under supervision.
 */
#include <stdio.h>
#include <string.h>

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
