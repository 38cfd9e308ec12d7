/*
 * test_cache_log.c: what the daemon's log says of the cache's health
 * (server/log.c, srv_cache_log_*), on a clock the test sets. Issue 41, item 6: a cache
 * whose reads succeed and whose writes fail (an unwritable or full file) changed
 * status at every request, and the log wrote "cache not used for now" and "cache
 * working again" in turns, about 500 lines a second under load, --quiet or not. Now
 * one line when it starts failing, a summary at most every SRV_CACHE_SUMMARY_S while
 * failures go on, one line once it has been calm for SRV_CACHE_CALM_S. Each case is
 * a look (status, failure count, last reason, time) and the exact lines it writes.
 * tests/server/test_cache_health.py runs the same against the real daemon under load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "srv_int.h"

#define READ_ONLY "cache database '/srv/lr/cache.sqlite': storing a prediction: disk I/O error"
#define DELETED "the cache database /srv/lr/cache.sqlite was deleted"

/* What one srv_cache_log_note writes to stderr (a static buffer, "" for nothing). */
static const char *said(srv_cache_log *c, const char *status, uint64_t failures,
                        const char *last, double now)
{
    static char text[4096];
    text[0] = '\0';
    FILE *f = tmpfile();
    int saved = dup(STDERR_FILENO);
    if (!f || saved < 0 || dup2(fileno(f), STDERR_FILENO) < 0) {
        CHECK(!"stderr could not be captured");
        return text;
    }
    srv_cache_log_note(c, status, failures, last, now);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* A cache that starts working, then fails every write while reads succeed: the
 * status the log sees goes from "ok" to the failure and back at every look. */
static void flapping_cache_is_said_once_summed_up_and_said_to_recover_once(void)
{
    srv_cache_log c;
    srv_cache_log_start(&c, "ok", 0, 100.0);
    CHECK_STR(said(&c, "ok", 0, NULL, 100.5), "");
    /* the first failure, seen while the status says it */
    CHECK_STR(said(&c, READ_ONLY, 1, READ_ONLY, 101.0),
              "launchrank: cache not used for now: " READ_ONLY "\n");
    /* 59 s of requests, 10 a second: ok and failing in turns, nothing more said */
    uint64_t n = 1;
    int lines = 0;
    for (int i = 1; i < 600; i++) {
        n++;
        lines += said(&c, (n & 1) ? "ok" : READ_ONLY, n, READ_ONLY, 101.0 + i * 0.1)[0] != '\0';
    }
    CHECK_INT(lines, 0);
    /* a minute after the first line: the summary, counting from that line */
    CHECK_STR(said(&c, "ok", n + 1, READ_ONLY, 161.0),
              "launchrank: cache still failing: 600 failures in the last 60 s, last "
              "reason: " READ_ONLY "\n");
    CHECK_STR(said(&c, "ok", n + 2, READ_ONLY, 162.0), "");
    /* the disk has room again: "ok", no failure; said after SRV_CACHE_CALM_S */
    CHECK_STR(said(&c, "ok", n + 2, READ_ONLY, 165.0), "");
    CHECK_STR(said(&c, "ok", n + 2, READ_ONLY, 166.9), "");
    CHECK_STR(said(&c, "ok", n + 2, READ_ONLY, 167.0), "launchrank: cache working again\n");
    CHECK_STR(said(&c, "ok", n + 2, READ_ONLY, 200.0), "");
    /* a failure between two looks, whose status the look no longer sees */
    CHECK_STR(said(&c, "ok", n + 3, READ_ONLY, 201.0),
              "launchrank: cache not used for now: " READ_ONLY "\n");
    srv_cache_log_end(&c);
}

/* A summary needs failures: a cache that fails no more, but whose status still says
 * so (no request came to remake a deleted file), is not summed up every minute. */
static void no_summary_without_failures_and_no_recovery_while_the_status_fails(void)
{
    srv_cache_log c;
    srv_cache_log_start(&c, "ok", 0, 0.0);
    CHECK_STR(said(&c, DELETED, 0, NULL, 1.0),
              "launchrank: cache not used for now: " DELETED "\n");
    CHECK_STR(said(&c, DELETED, 0, NULL, 100.0), "");
    CHECK_STR(
        said(&c, DELETED, 4, "cannot open", 130.0),
        "launchrank: cache still failing: 4 failures in the last 129 s, last reason: " DELETED
        "\n");
    CHECK_STR(said(&c, DELETED, 4, "cannot open", 1000.0), "");
    CHECK_STR(said(&c, "ok", 4, "cannot open", 1001.0), "launchrank: cache working again\n");
    srv_cache_log_end(&c);
}

/* The start-up line already said that the cache failed to open: no second line. */
static void a_cache_failing_at_start_is_not_said_again(void)
{
    srv_cache_log c;
    srv_cache_log_start(&c, READ_ONLY, 1, 10.0);
    CHECK_STR(said(&c, READ_ONLY, 1, READ_ONLY, 11.0), "");
    CHECK_STR(said(&c, READ_ONLY, 2, READ_ONLY, 12.0), "");
    CHECK_STR(said(&c, "ok", 2, READ_ONLY, 16.0), "");
    CHECK_STR(said(&c, "ok", 2, READ_ONLY, 17.0), "launchrank: cache working again\n");
    srv_cache_log_end(&c);
}

int main(void)
{
    flapping_cache_is_said_once_summed_up_and_said_to_recover_once();
    no_summary_without_failures_and_no_recovery_while_the_status_fails();
    a_cache_failing_at_start_is_not_said_again();
    return check_report("test_cache_log");
}
