/*
 * hostile.c: see hostile.h. The harness of test_hostile.c: buffers, the daemon child,
 * the HTTP client and the JSON helpers. Everything fails loudly (exit) on what would be
 * a bug of the test itself, and reports what the daemon did as values.
 */
#include "hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

double hz_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void hz_sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* ---- buffers ---------------------------------------------------------------------- */

void buf_add(buf *b, const void *p, size_t n)
{
    /* No buffer of the tests comes near this; saying so also shows GCC that
     * b->n + n + 1 cannot wrap around to a small size (its release build warned of a
     * write past the end, -Wstringop-overflow, for an n of SIZE_MAX). */
    if (n > SIZE_MAX / 4 || b->n > SIZE_MAX / 4) {
        fprintf(stderr, "buf_add: %zu more bytes is too much\n", n);
        exit(1);
    }
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            perror("realloc");
            exit(1);
        }
        b->p = q;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void buf_puts(buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

void buf_printf(buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        buf_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void buf_repeat(buf *b, const char *s, size_t times)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < times; i++)
        buf_add(b, s, n);
}

void buf_list(buf *b, const char *open, const char *s, size_t times, const char *close)
{
    buf_puts(b, open);
    for (size_t i = 0; i < times; i++) {
        if (i)
            buf_add(b, ",", 1);
        buf_puts(b, s);
    }
    buf_puts(b, close);
}

char *buf_take(buf *b)
{
    if (!b->p)
        buf_add(b, "", 0);
    char *p = b->p;
    memset(b, 0, sizeof *b);
    return p;
}

void buf_free(buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

char *hz_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_add(&b, chunk, n);
    fclose(f);
    if (len)
        *len = b.n;
    return buf_take(&b);
}

void hz_print_excerpt(FILE *f, const char *p, size_t n, size_t max)
{
    for (size_t i = 0; i < n && i < max; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\\')
            fputs("\\\\", f);
        else if (c >= 0x20 && c < 0x7f)
            fputc(c, f);
        else if (c == '\r')
            fputs("\\r", f);
        else if (c == '\n')
            fputs("\\n", f);
        else
            fprintf(f, "\\x%02X", c);
    }
    if (n > max)
        fprintf(f, "... (%zu bytes)", n);
}

int hz_utf8_valid(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i], cp, min;
        size_t k;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            k = 1, min = 0x80, cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            k = 2, min = 0x800, cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            k = 3, min = 0x10000, cp = c & 0x07;
        } else {
            return 0;
        }
        for (size_t j = 1; j <= k; j++) {
            if (i + j >= n || (p[i + j] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (p[i + j] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* ---- the daemon under test --------------------------------------------------------- */

int hz_daemon_start(hz_daemon *d, const char *bin, const char *timeout_s)
{
    memset(d, 0, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "/tmp/lr-hostile-XXXXXX");
    if (!mkdtemp(d->dir))
        return -1;
    snprintf(d->port_file, sizeof d->port_file, "%s/port", d->dir);
    snprintf(d->db, sizeof d->db, "%s/cache.sqlite", d->dir);
    snprintf(d->log, sizeof d->log, "%s/stderr.log", d->dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test */
        int err = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_RDWR);
        if (err < 0 || nul < 0)
            _exit(126);
        dup2(nul, STDIN_FILENO);
        dup2(nul, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        /* Keep what meson set, but let UBSan go on after a report (one run then names
         * every bad request, not just the first) and say where it happened. */
        char ubsan[512];
        const char *old = getenv("UBSAN_OPTIONS");
        snprintf(ubsan, sizeof ubsan, "%s%shalt_on_error=0:print_stacktrace=1", old ? old : "",
                 old && *old ? ":" : "");
        setenv("UBSAN_OPTIONS", ubsan, 1);
        execl(bin, bin, "serve", "--listen", "127.0.0.1:0", "--port-file", d->port_file, "--db",
              d->db, "--quiet", "--threads", "2", "--timeout", timeout_s, (char *)NULL);
        _exit(127);
    }
    d->pid = pid;
    double end = hz_now() + 30;
    while (hz_now() < end) {
        char *text = hz_read_file(d->port_file, NULL);
        if (text) {
            d->port = (unsigned)strtoul(text, NULL, 10);
            free(text);
            if (d->port)
                return 0;
        }
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            d->pid = 0;
            return -1;
        }
        hz_sleep_ms(20);
    }
    return -1;
}

int hz_daemon_alive(hz_daemon *d, int *status)
{
    *status = -1;
    if (!d->pid)
        return 0;
    if (waitpid(d->pid, status, WNOHANG) == d->pid) {
        d->pid = 0;
        return 0;
    }
    return 1;
}

int hz_daemon_stop(hz_daemon *d)
{
    if (!d->pid)
        return -1;
    kill(d->pid, SIGTERM);
    double end = hz_now() + 45;
    int status;
    while (hz_now() < end) {
        if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
            d->pid = 0;
            return status;
        }
        hz_sleep_ms(20);
    }
    kill(d->pid, SIGKILL);
    waitpid(d->pid, NULL, 0);
    d->pid = 0;
    return -1;
}

int hz_has_sanitizer_report(const char *text)
{
    static const char *const markers[] = {"ERROR: AddressSanitizer",
                                          "runtime error:", "LeakSanitizer"};
    for (size_t i = 0; text && i < sizeof markers / sizeof markers[0]; i++)
        if (strstr(text, markers[i]))
            return 1;
    return 0;
}

char *hz_daemon_new_report(hz_daemon *d)
{
    size_t len;
    char *text = hz_read_file(d->log, &len);
    char *report = NULL;
    if (text && len > d->log_seen) {
        if (hz_has_sanitizer_report(text + d->log_seen))
            report = strdup(text + d->log_seen);
        d->log_seen = len;
    }
    free(text);
    return report;
}

void hz_daemon_cleanup(hz_daemon *d)
{
    static const char *const names[] = {"port",
                                        "port.tmp",
                                        "cache.sqlite",
                                        "cache.sqlite-journal",
                                        "cache.sqlite-wal",
                                        "cache.sqlite-shm",
                                        "stderr.log"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s", d->dir, names[i]);
        unlink(path);
    }
    rmdir(d->dir);
}

/* ---- HTTP/1.1 client --------------------------------------------------------------- */

void http_resp_free(http_resp *r)
{
    free(r->head);
    free(r->body);
    memset(r, 0, sizeof *r);
}

int http_connect(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

const char *http_header(const char *head, const char *name, char *out, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, "\r\n%s:", name);
    const char *h = head ? strcasestr(head, key) : NULL;
    if (!h)
        return NULL;
    h += strlen(key);
    while (*h == ' ' || *h == '\t')
        h++;
    size_t n = strcspn(h, "\r\n");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), h);
    return out;
}

int http_parse_response(buf *in, int is_head, int at_eof, http_resp *r)
{
    for (;;) {
        char *sep = in->p ? strstr(in->p, "\r\n\r\n") : NULL;
        int status = 0;
        if (!sep || sscanf(in->p, "HTTP/1.%*d %d", &status) != 1)
            return 0;
        size_t head_len = (size_t)(sep - in->p), start = head_len + 4;
        if (status >= 100 && status < 200) { /* 100 Continue: the answer follows */
            memmove(in->p, in->p + start, in->n - start + 1);
            in->n -= start;
            continue;
        }
        char cl[32];
        size_t want = in->n - start;
        if (is_head) {
            want = 0;
        } else {
            buf head = {0};
            buf_add(&head, in->p, head_len);
            int known = http_header(head.p, "Content-Length", cl, sizeof cl) != NULL;
            buf_free(&head);
            if (known)
                want = (size_t)strtoull(cl, NULL, 10);
            else if (!at_eof)
                return 0;
        }
        if (in->n - start < want)
            return 0;
        buf head = {0}, body = {0};
        buf_add(&head, in->p, head_len);
        buf_add(&body, in->p + start, want);
        r->status = status;
        r->head = buf_take(&head);
        r->body = buf_take(&body);
        r->body_len = want;
        return 1;
    }
}

void http_exchange(unsigned port, const char *req, size_t len, int is_head, double timeout_s,
                   http_resp *r)
{
    memset(r, 0, sizeof *r);
    double t0 = hz_now();
    int fd = http_connect(port);
    if (fd < 0) {
        r->closed = 1;
        return;
    }
    buf in = {0};
    size_t off = 0;
    for (;;) {
        double left = t0 + timeout_s - hz_now();
        if (left <= 0) {
            r->timed_out = 1;
            break;
        }
        struct pollfd p = {fd, (short)(POLLIN | (off < len ? POLLOUT : 0)), 0};
        if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
            break;
        if ((p.revents & POLLOUT) && off < len) {
            ssize_t k = send(fd, req + off, len - off, MSG_NOSIGNAL);
            if (k > 0)
                off += (size_t)k;
            else if (k < 0 && errno != EAGAIN && errno != EINTR)
                off = len; /* the server stopped reading: its answer may be there */
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            char chunk[65536];
            ssize_t k = recv(fd, chunk, sizeof chunk, 0);
            if (k > 0) {
                buf_add(&in, chunk, (size_t)k);
                if (http_parse_response(&in, is_head, 0, r))
                    break;
            } else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
                r->closed = 1;
                http_parse_response(&in, is_head, 1, r);
                break;
            }
        }
    }
    close(fd);
    buf_free(&in);
    r->seconds = hz_now() - t0;
}

void http_build_request(buf *out, unsigned port, const char *method, const char *path,
                        const char *ctype, const char *body, size_t len, const char *extra)
{
    buf_puts(out, method);
    buf_puts(out, " ");
    buf_puts(out, path);
    buf_printf(out, " HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n", port);
    if (ctype) {
        buf_puts(out, "Content-Type: ");
        buf_puts(out, ctype);
        buf_puts(out, "\r\n");
    }
    if (body)
        buf_printf(out, "Content-Length: %zu\r\n", len);
    if (extra)
        buf_puts(out, extra);
    buf_puts(out, "\r\n");
    if (body)
        buf_add(out, body, len);
}

const char *hz_error_shape_problem(const http_resp *r, int want_status)
{
    static char why[64];
    char ct[128];
    if (r->status < 400 || r->status > 499)
        return r->status ? "not a 4xx" : "no answer";
    if (want_status && r->status != want_status) {
        snprintf(why, sizeof why, "expected %d", want_status);
        return why;
    }
    if (!http_header(r->head, "Content-Type", ct, sizeof ct) ||
        strcmp(ct, "application/json") != 0)
        return "Content-Type is not application/json";
    if (!hz_utf8_valid((const unsigned char *)r->body, r->body_len))
        return "the body is not valid UTF-8 (so not JSON: RFC 8259, 8.1)";
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(r->body, r->body_len, &end, 0);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(e, "path");
    const char *problem = NULL;
    if (!doc)
        problem = "the body is not JSON";
    else if (end != r->body + r->body_len)
        problem = "the body has bytes after its JSON value";
    else if (!cJSON_IsObject(e))
        problem = "no \"error\" object";
    else if (!cJSON_IsString(code) || !code->valuestring[0])
        problem = "error.code is not a non-empty string";
    else if (!cJSON_IsString(msg) || !msg->valuestring[0])
        problem = "error.message is not a non-empty string";
    else if (!cJSON_IsString(path))
        problem = "error.path is not a string";
    cJSON_Delete(doc);
    return problem;
}

/* ---- JSON bodies ----------------------------------------------------------------- */

cJSON *hz_json_at(cJSON *root, const char *path, cJSON **parent)
{
    cJSON *cur = root, *par = NULL;
    const char *p = path;
    while (*p && cur) {
        if (*p == '.')
            p++;
        par = cur;
        if (*p == '[') {
            char *end;
            long i = strtol(p + 1, &end, 10);
            cur = cJSON_GetArrayItem(cur, (int)i);
            p = end + 1;
        } else {
            size_t n = strcspn(p, ".[");
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)n, p);
            cur = cJSON_GetObjectItemCaseSensitive(cur, key);
            p += n;
        }
    }
    if (!cur && *p)
        par = NULL; /* missing before the last step */
    if (parent)
        *parent = par;
    return cur;
}

char *hz_json_with_raw(const cJSON *base, const char *path, const char *raw)
{
    cJSON *doc = cJSON_Duplicate(base, 1);
    cJSON *parent, *item = hz_json_at(doc, path, &parent);
    const char *dot = strrchr(path, '.');
    if (item && cJSON_IsObject(parent)) { /* keeps the key, unlike ...ViaPointer */
        cJSON_ReplaceItemInObjectCaseSensitive(parent, item->string, cJSON_CreateRaw(raw));
    } else if (item && parent) {
        cJSON_ReplaceItemViaPointer(parent, item, cJSON_CreateRaw(raw));
    } else if (!item && cJSON_IsObject(parent) && dot && !strchr(dot, '[')) {
        cJSON_AddItemToObject(parent, dot + 1, cJSON_CreateRaw(raw));
    } else {
        fprintf(stderr, "test bug: no value at %s\n", path);
        exit(2);
    }
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return text;
}

char *hz_replace_once(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        fprintf(stderr, "test bug: '%s' not found\n", from);
        exit(2);
    }
    buf b = {0};
    buf_add(&b, text, (size_t)(at - text));
    buf_puts(&b, to);
    buf_puts(&b, at + strlen(from));
    return buf_take(&b);
}

static int kind_of(const cJSON *v)
{
    if (cJSON_IsBool(v))
        return HZ_KIND_BOOL;
    if (cJSON_IsNumber(v))
        return HZ_KIND_NUMBER;
    if (cJSON_IsString(v))
        return HZ_KIND_STRING;
    if (cJSON_IsNull(v))
        return HZ_KIND_NULL;
    if (cJSON_IsObject(v))
        return HZ_KIND_OBJECT;
    return HZ_KIND_ARRAY;
}

void hz_json_paths(const cJSON *v, const char *path, hz_json_path *out, int *n, int max)
{
    const cJSON *c;
    int i = 0;
    cJSON_ArrayForEach(c, v)
    {
        char p[128];
        if (cJSON_IsArray(v))
            snprintf(p, sizeof p, "%s[%d]", path, i);
        else
            snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", c->string);
        i++;
        if (*n < max) {
            snprintf(out[*n].path, sizeof out[*n].path, "%s", p);
            out[*n].kind = kind_of(c);
            (*n)++;
        }
        hz_json_paths(c, p, out, n, max);
    }
}
