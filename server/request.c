/*
 * request.c: the life of one srv_request, MHD's per-request context: created when a
 * request's headers are in (http.c), its body accumulated under --max-body, and
 * freed by whoever holds it last (http.c's completion callback or the compute thread
 * of its job, as pool.c decides). Both http.c and pool.c use it, and it uses
 * neither.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "lr_utf8.h"
#include "srv_int.h"

/* First allocation for a body whose size is not announced (chunked uploads). */
#define SRV_BODY_FIRST_CAP ((size_t)16 * 1024)

/* The client's address as the access log writes it (127.0.0.1, ::1), or "-". */
static void client_address(struct MHD_Connection *c, char *out, size_t size)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *a = info ? info->client_addr : NULL;
    const void *ip =
        !a                         ? NULL
        : a->sa_family == AF_INET  ? (const void *)&((const struct sockaddr_in *)a)->sin_addr
        : a->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr
                                   : NULL;
    if (!ip || !inet_ntop(a->sa_family, ip, out, (socklen_t)size))
        snprintf(out, size, "-");
}

srv_request *srv_request_new(struct MHD_Connection *c, const char *method, const char *url,
                             const char *version)
{
    size_t n = strlen(url);
    srv_request *req = calloc(1, sizeof *req + n + 1);
    if (!req)
        return NULL;
    req->route = -1;
    lr_ascii_excerpt(method, sizeof req->method - 1, req->method, sizeof req->method);
    lr_ascii_excerpt(version, sizeof req->version - 1, req->version, sizeof req->version);
    memcpy(req->url, url, n + 1);
    clock_gettime(CLOCK_MONOTONIC, &req->start);
    req->received = time(NULL);
    client_address(c, req->client, sizeof req->client);
    return req;
}

/* Past max (a chunked upload announces no size) the buffer is dropped and the rest
 * discarded as it arrives: the answer is 413 whatever follows, and holding it would
 * let a client make us buffer any amount. */
void srv_request_append(srv_request *req, size_t max, const char *data, size_t n)
{
    if (req->body_too_large || req->body_no_memory)
        return;
    if (n > max - req->body_len) {
        req->body_too_large = 1;
        free(req->body);
        req->body = NULL;
        req->body_len = req->body_cap = 0;
        return;
    }
    if (req->body_len + n > req->body_cap) {
        size_t cap = req->body_cap ? req->body_cap : SRV_BODY_FIRST_CAP;
        if (cap > max)
            cap = max;
        while (cap < req->body_len + n)
            cap = cap > max / 2 ? max : cap * 2;
        char *grown = realloc(req->body, cap);
        if (!grown) {
            req->body_no_memory = 1;
            return;
        }
        req->body = grown;
        req->body_cap = cap;
    }
    memcpy(req->body + req->body_len, data, n);
    req->body_len += n;
    if (req->hashing)
        sha256_update(&req->hash, n, (const uint8_t *)data);
}

void srv_request_free(srv_request *req)
{
    if (!req)
        return;
    if (req->answer.text)
        req->answer.free_fn(req->answer.text);
    free(req->body);
    free(req);
}
