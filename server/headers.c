/*
 * headers.c: what is decided from a request's line and headers alone, before its body
 * is read (http.c's request_begin asks in this order): a body whose end is ambiguous
 * (400), a Host that is not this server (403, DNS rebinding), a web page of another
 * origin (403), a browser's CORS preflight, and a body that is not application/json
 * (415). Each answers through srv_respond_code and returns MHD_YES, or MHD_NO when
 * even the answer failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>

#include "lr_utf8.h"
#include "srv_int.h"

/* Characters of a header value a client chose (Content-Type, Origin) that an error
 * message shows: enough to recognise it, not a way to make our answers large. */
#define SRV_ECHO_MAX 64

/* application/json, with parameters (charset) or not. A body sent without a type is
 * refused too: a web page of any origin may POST text/plain or no type at all
 * without asking the browser first (a CORS "simple request"), but never
 * application/json, so requiring it keeps pages of other origins out even where the
 * Origin check cannot (older browsers, no Origin sent). */
static int is_content_type(const char *ct, const char *want)
{
    if (!ct)
        return 0;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    size_t n = strlen(want);
    if (strncasecmp(ct, want, n) != 0)
        return 0;
    char next = ct[n];
    return next == '\0' || next == ';' || next == ' ' || next == '\t';
}

/* Whether origin is one of ours: the listen address as a browser writes it, or an
 * --allow-origin (then *allowed points to it, for Access-Control-Allow-Origin).
 * Scheme and host are case-insensitive. */
static int origin_allowed(const srv_server *s, const char *origin, const char **allowed)
{
    *allowed = NULL;
    for (int i = 0; i < SRV_SELF_ORIGINS && atomic_load(&s->origin_ready); i++)
        if (s->self_origin[i][0] && strcasecmp(origin, s->self_origin[i]) == 0)
            return 1;
    for (unsigned i = 0; i < s->cfg->n_allow_origins; i++)
        if (strcasecmp(origin, s->cfg->allow_origins[i]) == 0) {
            *allowed = s->cfg->allow_origins[i];
            return 1;
        }
    return 0;
}

/* Browsers name the web page behind every cross-origin request (and every POST) in
 * Origin; a request from a page of another origin is refused, whatever it asks,
 * before its body is read: any page open in the operator's browser could otherwise
 * make the daemon compute, and read what it answers. Clients that are not browsers
 * send no Origin and are not concerned. */
enum MHD_Result srv_check_origin(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    if (!origin || origin_allowed(s, origin, &req->cors_origin))
        return MHD_YES;
    char shown[SRV_ECHO_MAX + 1];
    lr_ascii_excerpt(origin, SRV_ECHO_MAX, shown, sizeof shown);
    return srv_respond_code(s, c, req, LR_INVALID_REQUEST, MHD_HTTP_FORBIDDEN, NULL,
                        "requests from web pages of '%s' are refused: this server answers "
                        "pages of its own origin (%s) and of those named with --allow-origin",
                        shown, s->self_origin[0]);
}

/* Whether the daemon listens on every interface (0.0.0.0, ::): then it has no one
 * name, and a client may reach it by any of the machine's addresses or names. */
static int listens_everywhere(const srv_server *s)
{
    const struct sockaddr_storage *a = &s->bound;
    if (a->ss_family == AF_INET6)
        return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)a)->sin6_addr);
    return ((const struct sockaddr_in *)a)->sin_addr.s_addr == htonl(INADDR_ANY);
}

/* Whether host (a Host header: HOST or HOST:PORT) names the web origin origin
 * ("https://app.example:3000"): the same host and port, the port being the scheme's
 * default when the origin has none. Case-insensitive, as host names are. */
static int host_of_origin(const char *host, const char *origin)
{
    const char *sep = strstr(origin, "://");
    if (!sep)
        return 0;
    const char *authority = sep + 3;
    if (strcasecmp(host, authority) == 0)
        return 1;
    const char *bracket = strrchr(authority, ']');
    if (strchr(bracket ? bracket : authority, ':'))
        return 0; /* a port given, and not host's */
    size_t n = strlen(authority);
    const char *port = strncasecmp(origin, "https", 5) == 0 ? "443" : "80";
    return strncasecmp(host, authority, n) == 0 && host[n] == ':' &&
           strcmp(host + n + 1, port) == 0;
}

/* Whether host is a name this daemon answers to: its own origins' hosts
 * (set_self_origin: the bound address, the --listen name, localhost on a loopback
 * address, with the port, and without it on port 80) or an --allow-origin's host
 * (its page, served by a proxy of the same origin, addresses us by that name). */
static int host_allowed(const srv_server *s, const char *host)
{
    static const size_t scheme = sizeof "http://" - 1;
    for (int i = 0; i < SRV_SELF_ORIGINS && atomic_load(&s->origin_ready); i++)
        if (s->self_origin[i][0] && strcasecmp(host, s->self_origin[i] + scheme) == 0)
            return 1;
    for (unsigned i = 0; i < s->cfg->n_allow_origins; i++)
        if (host_of_origin(host, s->cfg->allow_origins[i]))
            return 1;
    return 0;
}

/* DNS rebinding: a web page of evil.example can have its own name resolve to
 * 127.0.0.1 after loading, and then call us as "its own origin": the browser sends
 * Origin http://evil.example:8080 only with POSTs, not with GETs, so GETs would run
 * and their answers be read by the page. The Host header still says evil.example, so
 * a request whose Host names neither us nor an --allow-origin is refused, whatever it
 * asks. Exceptions: a daemon listening on every interface has no one name (any Host
 * is accepted, docs/api.md; the Origin check still keeps foreign pages' POSTs out);
 * GET /healthz, which tells only whether the daemon lives, answers any Host, since
 * health checks of load balancers and orchestrators address backends by their IP;
 * and a request without Host comes from no browser (they always send one). */
enum MHD_Result srv_check_host(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (!host || req->route == SRV_ROUTE_HEALTHZ || listens_everywhere(s) ||
        host_allowed(s, host))
        return MHD_YES;
    char shown[SRV_ECHO_MAX + 1];
    lr_ascii_excerpt(host, SRV_ECHO_MAX, shown, sizeof shown);
    return srv_respond_code(s, c, req, LR_INVALID_REQUEST, MHD_HTTP_FORBIDDEN, NULL,
                        "the Host header names '%s', which is not this server: it answers "
                        "requests addressed to %s (and to the hosts of --allow-origin), so "
                        "that a web page cannot reach it through a name of its own (DNS "
                        "rebinding)",
                        shown, s->self_origin[0] + sizeof "http://" - 1);
}

/* Whether req is a browser's CORS preflight from an --allow-origin page: before a
 * POST of application/json to another origin, a browser asks with OPTIONS whether it
 * may. Pages of our own origin never ask, and others are refused by check_origin. */
int srv_is_preflight(struct MHD_Connection *c, const srv_request *req)
{
    return req->cors_origin && strcmp(req->method, "OPTIONS") == 0 &&
           MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Access-Control-Request-Method");
}

/* Content-Type of a POST: application/json, or 415. An array's bytes (PUT
 * /v1/arrays) are application/octet-stream, which a page of another origin cannot send
 * without a preflight either. */
enum MHD_Result srv_check_content_type(srv_server *s, struct MHD_Connection *c,
                                          srv_request *req)
{
    const char *ct =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    const char *want = req->route == SRV_ROUTE_ARRAY_PUT ? "application/octet-stream"
                                                         : "application/json";
    if (is_content_type(ct, want))
        return MHD_YES;
    if (!ct)
        return srv_respond_code(s, c, req, LR_INVALID_REQUEST, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
                            NULL,
                            "the body is sent without a Content-Type; send it as "
                            "%s (with curl: -H 'Content-Type: %s')", want, want);
    /* The value is the client's bytes, not checked by anyone: shown as ASCII. */
    char shown[SRV_ECHO_MAX + 1];
    lr_ascii_excerpt(ct, SRV_ECHO_MAX, shown, sizeof shown);
    return srv_respond_code(s, c, req, LR_INVALID_REQUEST, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL,
                        "the body is sent as '%s'; send it as %s (with curl: "
                        "-H 'Content-Type: %s')",
                        shown, want, want);
}

/* The headers that say where a request's body ends, counted over every header line:
 * MHD's lookups see only the first of a repeated header. */
typedef struct srv_framing {
    unsigned lengths;     /* Content-Length headers */
    unsigned encodings;   /* Transfer-Encoding headers */
    const char *encoding; /* the value of the last of them */
} srv_framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    (void)kind;
    srv_framing *f = cls;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
        f->lengths++;
    else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        f->encodings++;
        f->encoding = value;
    }
    return MHD_YES;
}

/* A request must say in one way only where its body ends: one Content-Length, or
 * Transfer-Encoding: chunked alone (case aside, as libmicrohttpd compares it). A
 * second length, or a length beside an encoding, is how requests are smuggled past
 * a proxy that reads the other one (libmicrohttpd would silently use the first
 * header, or the encoding); and an encoding libmicrohttpd cannot decode (gzip, "chunked,
 * chunked") would leave it reading a body of unknown end until the idle timeout. All
 * get 400 now, before any body is read. */
enum MHD_Result srv_check_framing(srv_server *s, struct MHD_Connection *c, srv_request *req)
{
    srv_framing f = {0, 0, NULL};
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
    if (f.lengths > 1)
        return srv_respond_code(s, c, req, LR_INVALID_REQUEST, MHD_HTTP_BAD_REQUEST, NULL,
                            "the request has %u Content-Length headers; send exactly one, "
                            "so that where the body ends is not ambiguous",
                            f.lengths);
    if (f.encodings > 1)
        return srv_respond_code(s, c, req, LR_INVALID_REQUEST, MHD_HTTP_BAD_REQUEST, NULL,
                            "the request has %u Transfer-Encoding headers; send the body "
                            "with one Content-Length, or with one Transfer-Encoding: chunked",
                            f.encodings);
    if (f.encodings && f.lengths)
        return srv_respond_code(s, c, req, LR_INVALID_REQUEST, MHD_HTTP_BAD_REQUEST, NULL,
                            "the request has both Content-Length and Transfer-Encoding; "
                            "send one of them, so that where the body ends is not ambiguous");
    if (f.encodings && strcasecmp(f.encoding, "chunked") != 0) {
        char shown[SRV_ECHO_MAX + 1];
        lr_ascii_excerpt(f.encoding, SRV_ECHO_MAX, shown, sizeof shown);
        return srv_respond_code(s, c, req, LR_INVALID_REQUEST, MHD_HTTP_BAD_REQUEST, NULL,
                            "Transfer-Encoding '%s' is not accepted: send the body with a "
                            "Content-Length, or with Transfer-Encoding: chunked",
                            shown);
    }
    return MHD_YES;
}
