/*
 * daemon_client.h: daemons in child processes and a tiny HTTP/1.1 client, shared by
 * the live HTTP tests of tests/server (test_http.c, test_ops.c).
 */
#ifndef LR_TEST_DAEMON_CLIENT_H
#define LR_TEST_DAEMON_CLIENT_H

#include <stddef.h>
#include <sys/types.h>

#define TEST_DEADLINE_S 60 /* each program; meson's timeout is 60 too */
#define SOCKET_TIMEOUT_S 5

/* The test's temporary directory (daemon logs, port files); the program creates it. */
extern char tmpdir[64];

typedef struct daemon_proc {
    pid_t pid;
    unsigned port;
    char port_file[128];
    char log_file[128];
} daemon_proc;

typedef struct http_resp {
    int status; /* 0 when no status line came back */
    char *head; /* status line and headers, NUL-terminated */
    char *body; /* NUL-terminated */
    size_t body_len;
} http_resp;

/* Monotonic seconds, and a sleep in milliseconds. */
double now_s(void);
void sleep_ms(long ms);

/* Forks a child that runs srv_main(argv) with stdout and stderr in files under
 * tmpdir named after tag (tag.out, tag.log; log_file receives the latter's path).
 * Returns the pid. */
pid_t fork_srv_main(const char *tag, char **argv, char *log_file, size_t log_size);
/* Waits at most timeout_s for pid; returns its wait status, or -1 on timeout. */
int wait_exit(pid_t pid, double timeout_s);
/* Runs srv_main(argv) to its end in a child; returns its exit code (-1 if it died or
 * did not end within 10 s). */
int run_srv_main(const char *tag, char **argv);
/* Starts a daemon on 127.0.0.1:0 with the given extra options (NULL-terminated; a
 * later --listen overrides) and waits for its port file. 0, or -1 when it did not
 * come up in 10 s. */
int daemon_start(daemon_proc *d, const char *tag, const char *const *extra);

/* realloc or exit; a file's whole text (caller frees) or NULL. */
void *xrealloc(void *p, size_t n);
char *read_file(const char *path);

void http_resp_free(http_resp *r);
/* A connection to 127.0.0.1:port from the address src (another loopback address is
 * another client to the daemon), or from any when src is NULL; -1 on failure. */
int http_connect_from(unsigned port, const char *src);
int http_connect(unsigned port);
int send_all(int fd, const char *p, size_t n);
/* Reads until EOF and splits status line, headers and body. */
int read_response(int fd, http_resp *r);
/* Sends req (len bytes) on a new connection to 127.0.0.1:port and reads the answer. */
int http_raw(unsigned port, const char *req, size_t len, http_resp *r);
/* The same to ip ("::1", "127.0.0.1"). */
int http_raw_at(const char *ip, unsigned port, const char *req, size_t len, http_resp *r);
/* The Host of a request to the test daemon on 127.0.0.1 (a printf format of its
 * port): the daemon refuses requests whose Host names another server (403). */
#define TEST_HOST "127.0.0.1:%u"
/* The request line, Host (TEST_HOST), Connection: close, Content-Type when ctype is
 * not NULL and Content-Length when body is not NULL. */
int format_request(char *out, size_t size, unsigned port, const char *method, const char *path,
                   const char *ctype, const char *body);
int http_do(unsigned port, const char *method, const char *path, const char *ctype,
            const char *body, http_resp *r);
/* Opens a connection and sends one request on it (a JSON body when body is not
 * NULL) without reading the answer. Returns the socket (the caller closes it), or -1. */
int http_send(unsigned port, const char *method, const char *path, const char *body);
int http_get(unsigned port, const char *path, http_resp *r);
int http_post(unsigned port, const char *path, const char *body, http_resp *r);
/* The value of header name (copied into out), or NULL. */
const char *header(const http_resp *r, const char *name, char *out, size_t size);
/* Sends the request with one more header line (extra, with its CRLF) after the
 * request line. */
int http_do_extra(unsigned port, const char *method, const char *path, const char *ctype,
                  const char *body, const char *extra, http_resp *r);
/* A test program's start: an alarm of TEST_DEADLINE_S, SIGPIPE ignored, and a fresh
 * tmpdir (/tmp/lr_NAME.XXXXXX) as the working directory. 0, or -1 (then skip: 77). */
int test_begin(const char *name);
/* A test program's end with check_report's rc: tmpdir removed when it passed, kept
 * (and named) for the logs when not. Returns rc. */
int test_end(int rc);

#endif
