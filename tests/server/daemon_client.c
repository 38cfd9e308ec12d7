/*
 * daemon_client.c: what the live HTTP tests of tests/server share: daemons run by
 * srv_main in forked children (bound to 127.0.0.1 port 0, the port read back from
 * --port-file), and a tiny HTTP/1.1 client over plain sockets (every request says
 * Connection: close, so a response ends at EOF). Every socket has a 5 s timeout.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>

#include "daemon_client.h"
#include "server.h"

char tmpdir[64];

/* ---- time -------------------------------------------------------------------- */

double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* ---- daemons in child processes ---------------------------------------------- */

/* Forks a child that runs srv_main(argv) with stdout and stderr in files under
 * tmpdir named after tag. Returns the pid. */
pid_t fork_srv_main(const char *tag, char **argv, char *log_file, size_t log_size)
{
    char out_file[128];
    snprintf(log_file, log_size, "%s/%s.log", tmpdir, tag);
    snprintf(out_file, sizeof out_file, "%s/%s.out", tmpdir, tag);
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    alarm(TEST_DEADLINE_S); /* alarms are not inherited */
    int err = open(log_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int out = open(out_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err < 0 || out < 0)
        _exit(99);
    dup2(err, STDERR_FILENO);
    dup2(out, STDOUT_FILENO);
    close(err);
    close(out);
    int argc = 0;
    while (argv[argc])
        argc++;
    int rc = srv_main(argc, argv);
    fflush(NULL);
    exit(rc); /* exit, not _exit: LeakSanitizer checks the child at exit */
}

/* Waits at most timeout_s for pid; returns its wait status, or -1 on timeout. */
int wait_exit(pid_t pid, double timeout_s)
{
    double end = now_s() + timeout_s;
    int status;
    while (now_s() < end) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        sleep_ms(10);
    }
    return -1;
}

/* Runs srv_main(argv) to its end in a child; returns its exit code (-1 if it died
 * or did not end within 10 s). */
int run_srv_main(const char *tag, char **argv)
{
    char log_file[128];
    pid_t pid = fork_srv_main(tag, argv, log_file, sizeof log_file);
    int status = wait_exit(pid, 10);
    if (status == -1) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* realloc or die: a test out of memory has nothing better to do. */
void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        perror("realloc");
        exit(1);
    }
    return q;
}

char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            buf = xrealloc(buf, cap);
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = '\0';
    return buf;
}

/* Starts a daemon on 127.0.0.1:0 with the given extra options (NULL-terminated) and
 * waits for its port file. Returns 0, or -1 when it did not come up in 10 s. */
int daemon_start(daemon_proc *d, const char *tag, const char *const *extra)
{
    char *argv[32];
    int n = 0;
    snprintf(d->port_file, sizeof d->port_file, "%s/%s.port", tmpdir, tag);
    argv[n++] = "serve";
    argv[n++] = "--listen";
    argv[n++] = "127.0.0.1:0";
    argv[n++] = "--port-file";
    argv[n++] = d->port_file;
    for (; *extra && n < 31; extra++)
        argv[n++] = (char *)*extra;
    argv[n] = NULL;
    d->pid = fork_srv_main(tag, argv, d->log_file, sizeof d->log_file);
    double end = now_s() + 10;
    while (now_s() < end) {
        char *text = read_file(d->port_file);
        if (text) {
            d->port = (unsigned)strtoul(text, NULL, 10);
            free(text);
            return d->port ? 0 : -1;
        }
        if (waitpid(d->pid, NULL, WNOHANG) == d->pid)
            return -1;
        sleep_ms(10);
    }
    kill(d->pid, SIGKILL);
    waitpid(d->pid, NULL, 0);
    return -1;
}

/* ---- a tiny HTTP/1.1 client ---------------------------------------------------- */

void http_resp_free(http_resp *r)
{
    free(r->head);
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* A socket with the test's timeouts, connected to ip (IPv4 or IPv6 text) and port
 * from src (IPv4, or NULL for any); -1 on failure. */
static int connect_to(const char *ip, unsigned port, const char *src)
{
    struct sockaddr_storage a = {0};
    socklen_t len;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&a;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&a;
    if (inet_pton(AF_INET, ip, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        len = sizeof *v4;
    } else if (inet_pton(AF_INET6, ip, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        len = sizeof *v6;
    } else {
        return -1;
    }
    int fd = socket(a.ss_family, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {SOCKET_TIMEOUT_S, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (src) {
        struct sockaddr_in from = {.sin_family = AF_INET};
        inet_pton(AF_INET, src, &from.sin_addr);
        if (bind(fd, (struct sockaddr *)&from, sizeof from) != 0) {
            close(fd);
            return -1;
        }
    }
    if (connect(fd, (struct sockaddr *)&a, len) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int http_connect_from(unsigned port, const char *src)
{
    return connect_to("127.0.0.1", port, src);
}

int http_connect(unsigned port)
{
    return http_connect_from(port, NULL);
}

int http_raw_at(const char *ip, unsigned port, const char *req, size_t len, http_resp *r)
{
    memset(r, 0, sizeof *r);
    int fd = connect_to(ip, port, NULL);
    if (fd < 0)
        return -1;
    int rc = send_all(fd, req, len) == 0 ? read_response(fd, r) : -1;
    close(fd);
    return rc;
}

int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Reads until EOF and splits status line, headers and body. */
int read_response(int fd, http_resp *r)
{
    size_t len = 0, cap = 4096;
    char *buf = xrealloc(NULL, cap);
    for (;;) {
        if (len + 2048 > cap)
            buf = xrealloc(buf, cap *= 2);
        ssize_t k = recv(fd, buf + len, cap - len - 1, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break; /* EOF, or the timeout: parse what arrived */
        len += (size_t)k;
    }
    buf[len] = '\0';
    memset(r, 0, sizeof *r);
    char *sep = strstr(buf, "\r\n\r\n");
    if (!sep || sscanf(buf, "HTTP/1.%*d %d", &r->status) != 1) {
        r->status = 0;
        r->head = buf;
        r->body = calloc(1, 1);
        return -1;
    }
    *sep = '\0';
    r->body_len = len - (size_t)(sep + 4 - buf);
    r->body = xrealloc(NULL, r->body_len + 1);
    memcpy(r->body, sep + 4, r->body_len + 1);
    r->head = buf;
    return 0;
}

int http_raw(unsigned port, const char *req, size_t len, http_resp *r)
{
    return http_raw_at("127.0.0.1", port, req, len, r);
}

/* The request line, Host (127.0.0.1:port, as clients of the test daemons write it),
 * Connection: close, Content-Type when ctype is not NULL and Content-Length when body
 * is not NULL. */
int format_request(char *out, size_t size, unsigned port, const char *method, const char *path,
                   const char *ctype, const char *body)
{
    int n =
        snprintf(out, size, "%s %s HTTP/1.1\r\nHost: " TEST_HOST "\r\nConnection: close\r\n",
                 method, path, port);
    if (ctype)
        n += snprintf(out + n, size - (size_t)n, "Content-Type: %s\r\n", ctype);
    if (body)
        n += snprintf(out + n, size - (size_t)n, "Content-Length: %zu\r\n", strlen(body));
    n += snprintf(out + n, size - (size_t)n, "\r\n%s", body ? body : "");
    return n;
}

int http_do(unsigned port, const char *method, const char *path, const char *ctype,
            const char *body, http_resp *r)
{
    char req[8192];
    int n = format_request(req, sizeof req, port, method, path, ctype, body);
    return http_raw(port, req, (size_t)n, r);
}

int http_send(unsigned port, const char *method, const char *path, const char *body)
{
    int fd = http_connect(port);
    if (fd < 0)
        return -1;
    char req[1024];
    int n = format_request(req, sizeof req, port, method, path,
                           body ? "application/json" : NULL, body);
    if (send_all(fd, req, (size_t)n) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int http_get(unsigned port, const char *path, http_resp *r)
{
    return http_do(port, "GET", path, NULL, NULL, r);
}

int http_post(unsigned port, const char *path, const char *body, http_resp *r)
{
    return http_do(port, "POST", path, "application/json", body, r);
}

/* The value of header name (copied into out), or NULL. */
const char *header(const http_resp *r, const char *name, char *out, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, "\r\n%s:", name);
    const char *h = r->head ? strcasestr(r->head, key) : NULL;
    if (!h)
        return NULL;
    h += strlen(key);
    while (*h == ' ')
        h++;
    size_t n = strcspn(h, "\r\n");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), h);
    return out;
}

/* Sends the request with one more header line (extra, with its CRLF) after the
 * request line. */
int http_do_extra(unsigned port, const char *method, const char *path, const char *ctype,
                  const char *body, const char *extra, http_resp *r)
{
    char req[8192];
    int n = format_request(req, sizeof req, port, method, path, ctype, body);
    char *after_host = strstr(req, "\r\n") + 2;
    size_t m = strlen(extra);
    memmove(after_host + m, after_host, (size_t)n - (size_t)(after_host - req) + 1);
    memcpy(after_host, extra, m);
    return http_raw(port, req, (size_t)n + m, r);
}

int test_begin(const char *name)
{
    alarm(TEST_DEADLINE_S);
    signal(SIGPIPE, SIG_IGN);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lr_%s.XXXXXX", name);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return -1;
    }
    /* The daemons resolve --db relative to the working directory. */
    return chdir(tmpdir);
}

int test_end(int rc)
{
    char cmd[128];
    if (rc != 0) {
        fprintf(stderr, "daemon logs kept in %s\n", tmpdir);
        return rc;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return rc;
}
