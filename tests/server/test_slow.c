/*
 * test_slow.c: issue 41, items 3 and 4 (HTTP), live against the daemon linked with
 * fake_api.c: requests whose body framing is ambiguous or undecodable get 400 at once
 * (duplicate or conflicting Content-Length, Transfer-Encoding twice, beside a length,
 * or other than chunked), a 100 KB chunk extension gets a 4xx, a head trickled past
 * --head-deadline is cut, and a prompt client on 127.0.0.1 is answered within a
 * second while 512 connections from 127.0.0.2-5 trickle their heads and reconnect
 * whenever they are dropped.
 *
 * Before issue 41 the framing requests were answered by the first header (200), a
 * gzip encoding waited for the idle timeout, the chunk extension got libmicrohttpd's
 * 500, there was one deadline for a whole request, and the four trickling addresses
 * held the 512 connections libmicrohttpd allows (128 each, its per-address limit):
 * the prompt client was refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "api.h"
#include "check.h"
#include "daemon_client.h"

/* Checks an error answer of the daemon's: status, JSON body, the code. */
static void check_error(const http_resp *r, int status, const char *code, const char *says)
{
    CHECK_INT(r->status, status);
    cJSON *doc = r->body ? cJSON_ParseWithLengthOpts(r->body, r->body_len, NULL, 0) : NULL;
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(doc, "error");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(err, "code");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");
    CHECK_STR(cJSON_IsString(c) ? c->valuestring : NULL, code);
    CHECK_CONTAINS(cJSON_IsString(m) ? m->valuestring : NULL, says);
    cJSON_Delete(doc);
}

/* ---- framing --------------------------------------------------------------------- */

/* Sends head (a printf format of the port, before the blank line) and body, and reads
 * the answer; *seconds is how long it took. */
static void framed(unsigned port, const char *head, const char *body, http_resp *r,
                   double *seconds)
{
    char req[512];
    int n = snprintf(req, sizeof req, head, port);
    n += snprintf(req + n, sizeof req - (size_t)n, "\r\n%s", body);
    double t0 = now_s();
    http_raw(port, req, (size_t)n, r);
    *seconds = now_s() - t0;
}

#define POST_HEAD                                                                              \
    "POST /v1/estimate HTTP/1.1\r\nHost: " TEST_HOST "\r\nConnection: close\r\n"               \
    "Content-Type: application/json\r\n"

/* Issue 41, item 3: libmicrohttpd reads the first Content-Length and ignores a second,
 * and prefers Transfer-Encoding to a length; a proxy in front may read the other one
 * (request smuggling). An encoding it cannot decode left the body's end unknown
 * until --timeout. Each gets 400 from the head, before a body is read. */
static void test_ambiguous_framing_gets_400(unsigned port)
{
    static const struct {
        const char *head, *body, *says;
    } cases[] = {
        {POST_HEAD "Content-Length: 2\r\nContent-Length: 2\r\n", "{}", "2 Content-Length"},
        {POST_HEAD "Content-Length: 2\r\nContent-Length: 9\r\n", "{}", "2 Content-Length"},
        {POST_HEAD "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n",
         "2\r\n{}\r\n0\r\n\r\n", "both Content-Length and Transfer-Encoding"},
        {POST_HEAD "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
         "2\r\n{}\r\n0\r\n\r\n", "2 Transfer-Encoding"},
        {POST_HEAD "Transfer-Encoding: gzip\r\n", "{}", "'gzip' is not accepted"},
        {POST_HEAD "Transfer-Encoding: gzip, chunked\r\n", "2\r\n{}\r\n0\r\n\r\n",
         "'gzip, chunked' is not accepted"},
        {POST_HEAD "Transfer-Encoding: chunked, identity\r\n", "2\r\n{}\r\n0\r\n\r\n",
         "is not accepted"},
        {"GET /healthz HTTP/1.1\r\nHost: " TEST_HOST "\r\nTransfer-Encoding: x\r\n", "",
         "'x' is not accepted"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        http_resp r;
        double seconds;
        framed(port, cases[i].head, cases[i].body, &r, &seconds);
        if (r.status != 400)
            fprintf(stderr, "framing case %zu: status %d after %.2f s\n", i, r.status, seconds);
        check_error(&r, 400, "invalid_request", cases[i].says);
        CHECK(seconds < 1.0); /* at once, not after the idle --timeout (3 s here) */
        http_resp_free(&r);
    }
    /* One length, or chunked alone (in any case, as libmicrohttpd decodes it), is fine. */
    const char *const fine[][2] = {
        {POST_HEAD "Content-Length: 2\r\n", "{}"},
        {POST_HEAD "Transfer-Encoding: chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"},
        {POST_HEAD "Transfer-Encoding: Chunked\r\n", "2\r\n{}\r\n0\r\n\r\n"},
    };
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        http_resp r;
        double seconds;
        framed(port, fine[i][0], fine[i][1], &r, &seconds);
        CHECK_INT(r.status, 200);
        http_resp_free(&r);
    }
}

/* Issue 41, item 3: a chunk-size line longer than libmicrohttpd's read buffer (64 KiB
 * of connection memory) gets its 500 "internal server error", the client's mistake
 * reported as ours. libmicrohttpd decodes the chunks and calls none of our code while
 * it waits for the end of that line, so the daemon cannot answer instead; version 1.0
 * answers 413 itself. Checked there; with 0.9.x the answer is printed only. */
static void test_long_chunk_extension_gets_4xx(unsigned port)
{
    enum { EXTENSION = 100 * 1000 };
    char head[256];
    int n =
        snprintf(head, sizeof head, POST_HEAD "Transfer-Encoding: chunked\r\n\r\n2;x=", port);
    size_t len = (size_t)n + EXTENSION + 32;
    char *req = xrealloc(NULL, len);
    memcpy(req, head, (size_t)n);
    memset(req + n, 'a', EXTENSION);
    size_t end = (size_t)n + EXTENSION;
    end += (size_t)snprintf(req + end, len - end, "\r\n{}\r\n0\r\n\r\n");
    http_resp r;
    http_raw(port, req, end, &r);
    if (r.status < 400 || r.status > 499)
        fprintf(stderr, "100 KB chunk extension: status %d%s\n", r.status,
                MHD_VERSION < 0x01000000 ? " (libmicrohttpd 0.9.x: not checked)" : "");
#if MHD_VERSION >= 0x01000000
    CHECK(r.status >= 400 && r.status <= 499);
#endif
    http_resp_free(&r);
    free(req);
}

/* ---- deadlines -------------------------------------------------------------------- */

static int peer_closed(int fd)
{
    char c;
    ssize_t k = recv(fd, &c, 1, MSG_DONTWAIT);
    return k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Sends text a byte every 100 ms (restarting it when done) until the daemon closes
 * the connection; the seconds that took, or 0 when it was not closed within limit_s. */
static double trickle_until_closed(int fd, const char *text, double limit_s)
{
    double t0 = now_s();
    for (size_t i = 0; now_s() - t0 < limit_s; i++) {
        char byte = text[i % strlen(text)];
        if (send(fd, &byte, 1, MSG_NOSIGNAL) != 1 || peer_closed(fd))
            return now_s() - t0;
        sleep_ms(100);
    }
    return 0;
}

/* Issue 41, item 3: a head has --head-deadline (1 s here) and a body --body-deadline
 * (3 s) of its own; before, one --receive-deadline covered both. */
static void test_head_and_body_deadlines(void)
{
    enum { HEAD_S = 1, BODY_S = 3 };
    daemon_proc d = {0};
    const char *const opts[] = {"--no-cache", "--timeout",       "10", "--head-deadline",
                                "1",          "--body-deadline", "3",  NULL};
    int started = daemon_start(&d, "deadlines", opts) == 0;
    CHECK(started);
    if (!started)
        return;
    char head[256], body_head[256];
    snprintf(head, sizeof head,
             "GET /healthz HTTP/1.1\r\nHost: " TEST_HOST "\r\nX-Padding: "
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n",
             d.port);
    snprintf(body_head, sizeof body_head,
             "POST /v1/estimate HTTP/1.1\r\nHost: " TEST_HOST "\r\nContent-Type: "
             "application/json\r\nContent-Length: 200\r\n\r\n",
             d.port);
    int fd = http_connect(d.port);
    double head_cut = fd >= 0 ? trickle_until_closed(fd, head, 4 * HEAD_S) : 0;
    if (fd >= 0)
        close(fd);
    if (head_cut < HEAD_S - 0.3 || head_cut > HEAD_S + 1.0)
        fprintf(stderr, "trickled head: closed after %.2f s (0: not at all), want %d s\n",
                head_cut, HEAD_S);
    CHECK(head_cut >= HEAD_S - 0.3 && head_cut <= HEAD_S + 1.0);

    /* The body's deadline starts with its head, sent at once. */
    fd = http_connect(d.port);
    CHECK(fd >= 0 && send_all(fd, body_head, strlen(body_head)) == 0);
    double body_cut = fd >= 0 ? trickle_until_closed(fd, " ", 2 * BODY_S) : 0;
    if (fd >= 0)
        close(fd);
    if (body_cut < BODY_S - 0.3 || body_cut > BODY_S + 1.0)
        fprintf(stderr, "trickled body: closed after %.2f s (0: not at all), want %d s\n",
                body_cut, BODY_S);
    CHECK(body_cut >= BODY_S - 0.3 && body_cut <= BODY_S + 1.0);

    kill(d.pid, SIGTERM);
    int status = wait_exit(d.pid, 10);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *log = read_file(d.log_file);
    CHECK_CONTAINS(log, "\"POST /v1/estimate HTTP/1.1\" - - ");
    CHECK_CONTAINS(log, "(--body-deadline passed)");
    free(log);
}

/* ---- trickling connections from other addresses ------------------------------------ */

enum { TRICKLERS = 512, TRICKLE_ADDRS = 4, TRICKLE_EVERY_MS = 100 };

/* Connections that trickle a head that never ends, a byte each TRICKLE_EVERY_MS, from
 * 127.0.0.2 .. 127.0.0.5, and reconnect as soon as the daemon drops one: what a
 * slowloris attack does. One thread polls them all. */
typedef struct trickler {
    unsigned port;
    atomic_int stop;
    atomic_long reconnects;
    int fd[TRICKLERS];
    size_t sent[TRICKLERS];
} trickler;

static int trickle_open(unsigned port, int i)
{
    char src[16];
    snprintf(src, sizeof src, "127.0.0.%d", 2 + i % TRICKLE_ADDRS);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    int one = 1; /* the port is picked at connect(): four addresses share the range */
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET};
    inet_pton(AF_INET, src, &a.sin_addr);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        (connect(fd, (struct sockaddr *)&to, sizeof to) != 0 && errno != EINPROGRESS)) {
        close(fd);
        return -1;
    }
    return fd;
}

static void trickle_reopen(trickler *t, int i)
{
    if (t->fd[i] >= 0)
        close(t->fd[i]);
    t->fd[i] = trickle_open(t->port, i);
    t->sent[i] = 0;
    atomic_fetch_add(&t->reconnects, 1);
}

/* The next byte of connection i's endless head. */
static char trickle_byte(const trickler *t, int i, char *prefix, size_t prefix_size)
{
    int n = snprintf(prefix, prefix_size,
                     "GET /healthz HTTP/1.1\r\nHost: " TEST_HOST "\r\nX-T: ", t->port);
    return t->sent[i] < (size_t)n ? prefix[t->sent[i]] : 'a';
}

static void *trickler_main(void *arg)
{
    trickler *t = arg;
    static struct pollfd pfd[TRICKLERS];
    char prefix[96];
    double next_send = now_s();
    while (!atomic_load(&t->stop)) {
        for (int i = 0; i < TRICKLERS; i++) {
            if (t->fd[i] < 0)
                trickle_reopen(t, i);
            pfd[i] = (struct pollfd){.fd = t->fd[i], .events = POLLIN};
        }
        poll(pfd, TRICKLERS, 10);
        for (int i = 0; i < TRICKLERS; i++)
            if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
                trickle_reopen(t, i); /* an answer or the end: drop it and come back */
        if (now_s() < next_send)
            continue;
        next_send += TRICKLE_EVERY_MS / 1000.0;
        for (int i = 0; i < TRICKLERS; i++) {
            char byte = trickle_byte(t, i, prefix, sizeof prefix);
            ssize_t k =
                t->fd[i] >= 0 ? send(t->fd[i], &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT) : -1;
            if (k == 1)
                t->sent[i]++;
            else if (t->fd[i] >= 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
                     errno != ENOTCONN)
                trickle_reopen(t, i);
        }
    }
    for (int i = 0; i < TRICKLERS; i++)
        if (t->fd[i] >= 0)
            close(t->fd[i]);
    return NULL;
}

static int is_local_address(const char *ip)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    int ok = fd >= 0 && inet_pton(AF_INET, ip, &a.sin_addr) == 1 &&
             bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

/* Issue 41, item 3: 512 trickling connections from four addresses used to take
 * libmicrohttpd's 512 connections (its per-address limit of 128 allowed each address
 * a quarter), and a prompt client was refused about half the time; it must now be
 * answered, each request within a second (a generous bound: unloaded it takes about a
 * millisecond, and the test must pass on a busy 2-core machine under ASan). */
static void test_prompt_client_among_512_tricklers(void)
{
    enum { WARMUP_MS = 1500, CLIENT_S = 8 };
    if (!is_local_address("127.0.0.5")) { /* all of 127/8 is loopback on Linux */
        fprintf(stderr, "127.0.0.5 is not a local address here: fairness test skipped\n");
        return;
    }
    daemon_proc d = {0};
    const char *const opts[] = {"--no-cache", "--quiet", NULL}; /* the default limits */
    int started = daemon_start(&d, "tricklers", opts) == 0;
    CHECK(started);
    if (!started)
        return;
    static trickler t;
    t.port = d.port;
    for (int i = 0; i < TRICKLERS; i++)
        t.fd[i] = -1;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, trickler_main, &t) == 0);
    sleep_ms(WARMUP_MS);

    int sent = 0, answered = 0, slow = 0;
    double worst = 0, t0 = now_s();
    while (now_s() - t0 < CLIENT_S) {
        http_resp r;
        double t1 = now_s();
        if (sent % 2 == 0)
            http_get(d.port, "/healthz", &r);
        else
            http_post(d.port, "/v1/estimate", "{}", &r);
        double took = now_s() - t1;
        sent++;
        answered += r.status == 200;
        slow += r.status == 200 && took > 1.0;
        if (r.status == 200 && took > worst)
            worst = took;
        http_resp_free(&r);
        sleep_ms(50);
    }
    atomic_store(&t.stop, 1);
    pthread_join(th, NULL);
    fprintf(stderr,
            "prompt client among %d tricklers: %d of %d answered, %d of them after more "
            "than 1 s, the slowest in %.3f s; the tricklers reconnected %ld times\n",
            TRICKLERS, answered, sent, slow, worst, atomic_load(&t.reconnects));
    CHECK(sent >= 20);
    CHECK_INT(answered, sent);
    CHECK_INT(slow, 0);

    kill(d.pid, SIGTERM);
    int status = wait_exit(d.pid, 10);
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
    if (test_begin("test_slow"))
        return 77;
    double t0 = now_s();
    daemon_proc d = {0};
    const char *const opts[] = {"--no-cache", "--quiet", "--timeout", "3", NULL};
    int started = daemon_start(&d, "framing", opts) == 0;
    CHECK(started);
    if (started) {
        test_ambiguous_framing_gets_400(d.port);
        test_long_chunk_extension_gets_4xx(d.port);
        kill(d.pid, SIGTERM);
        int status = wait_exit(d.pid, 10);
        CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    test_head_and_body_deadlines();
    test_prompt_client_among_512_tricklers();
    fprintf(stderr, "test_slow: %.1f s\n", now_s() - t0);
    return test_end(
        check_report("slow_clients_are_cut_or_shed_and_ambiguous_framing_gets_400"));
}
