/*
 * respond.c: how answers leave the daemon. The table from lr_error codes to HTTP
 * statuses lives here and only here; error bodies are built with cJSON, and every
 * body is handed to libmicrohttpd together with the function that frees it.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "srv_int.h"

/* The one mapping from error code to HTTP status. Decisions worth a word:
 *  - limit_exceeded is 413 for every limit of the service (body bytes, fields,
 *    configurations): in each case the request is too large for us and a smaller
 *    one would be accepted, which is what 413 tells a client.
 *  - budget_exceeded is 422: the request is within every size limit, but its
 *    analysis costs more isl operations than one request may; resending it will
 *    not help, unlike a 503.
 *  - unsupported_expression and not_launchable are 422: well-formed JSON that we
 *    understood and cannot process, not a malformed request (400).
 *  - out_of_memory is 503, not 500: it is a state of the server, a retry later may
 *    succeed. unavailable (no GPU, no NVRTC) is 503 for the same reason. */
static const unsigned status_of_code[LR_CODE_COUNT] = {
    [LR_OK] = MHD_HTTP_OK,
    [LR_INVALID_JSON] = MHD_HTTP_BAD_REQUEST,
    [LR_INVALID_REQUEST] = MHD_HTTP_BAD_REQUEST,
    [LR_UNSUPPORTED_EXPR] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [LR_NOT_LAUNCHABLE] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [LR_LIMIT_EXCEEDED] = MHD_HTTP_CONTENT_TOO_LARGE,
    [LR_BUDGET_EXCEEDED] = MHD_HTTP_UNPROCESSABLE_CONTENT,
    [LR_NOT_FOUND] = MHD_HTTP_NOT_FOUND,
    [LR_METHOD_NOT_ALLOWED] = MHD_HTTP_METHOD_NOT_ALLOWED,
    [LR_UNAVAILABLE] = MHD_HTTP_SERVICE_UNAVAILABLE,
    [LR_NO_MEMORY] = MHD_HTTP_SERVICE_UNAVAILABLE,
    [LR_INTERNAL] = MHD_HTTP_INTERNAL_SERVER_ERROR,
};

/* Sent when even the error body cannot be built: no allocation needed. */
static const char oom_body[] =
    "{\"error\":{\"code\":\"out_of_memory\",\"message\":\"the server is out of memory\","
    "\"path\":\"\"},\"model_version\":\"" LR_MODEL_VERSION "\"}";

unsigned srv_status_of(lr_code code)
{
    if (code < 0 || code >= LR_CODE_COUNT || status_of_code[code] == 0)
        return MHD_HTTP_INTERNAL_SERVER_ERROR;
    return status_of_code[code];
}

static char *error_json(const lr_error *err)
{
    return lr_error_to_json(err, LR_MODEL_VERSION);
}

/* What the web calculator's page may load and call: its own origin only, so that it
 * sends nothing anywhere else even if a bug or an injected string tried to (the SVG
 * charts are built in the page; the icon is a data: URL). */
#define SRV_PAGE_POLICY                                                                     \
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "       \
    "form-action 'none'; frame-ancestors 'none'"

/* type: the body's Content-Type, NULL for application/json. */
static enum MHD_Result queue(srv_server *s, struct MHD_Connection *c, srv_request *req,
                             unsigned status, struct MHD_Response *r, size_t len,
                             const char *type, const char *allow)
{
    if (!r)
        return MHD_NO; /* MHD closes the connection: nothing better is left */
    int ok = len == 0 || MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                                                 type ? type : "application/json") == MHD_YES;
    /* Bodies that are not JSON: the web page's files, held to their own origin by
     * the policy (which is harmless on the other such body, /metrics). */
    if (ok && type)
        ok = MHD_add_response_header(r, "Content-Security-Policy", SRV_PAGE_POLICY) == MHD_YES &&
             MHD_add_response_header(r, "X-Content-Type-Options", "nosniff") == MHD_YES;
    /* A page of an --allow-origin origin may read the answer; the answer depends on
     * Origin, which caches must know. */
    if (ok && req->cors_origin)
        ok = MHD_add_response_header(r, "Access-Control-Allow-Origin", req->cors_origin) ==
                 MHD_YES &&
             MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Origin") == MHD_YES;
    if (ok && allow)
        ok = MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow) == MHD_YES;
    /* Once shutdown began, tell keep-alive clients not to reuse the connection. */
    if (ok && atomic_load(&s->stopping))
        ok = MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close") == MHD_YES;
    enum MHD_Result ret = ok ? MHD_queue_response(c, status, r) : MHD_NO;
    MHD_destroy_response(r); /* MHD keeps its own reference while sending */
    if (ret == MHD_YES) {
        req->status = status;
        req->bytes = len;
    }
    return ret;
}

enum MHD_Result srv_respond_json(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                 unsigned status, srv_json body, const char *allow)
{
    size_t len = body.len ? body.len : strlen(body.text);
    struct MHD_Response *r =
        MHD_create_response_from_buffer_with_free_callback(len, body.text, body.free_fn);
    if (!r)
        body.free_fn(body.text); /* MHD took nothing */
    return queue(s, c, req, status, r, len, body.type, allow);
}

/* Bytes libmicrohttpd asks a stream's reader for at most: a progress line is about
 * 60 bytes, and the answer is sent in pieces of this size. */
#define SRV_STREAM_BLOCK 4096

enum MHD_Result srv_respond_stream(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                   MHD_ContentReaderCallback read, void *cls)
{
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, SRV_STREAM_BLOCK, read, cls, NULL);
    if (r && MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/x-ndjson") !=
                 MHD_YES) {
        MHD_destroy_response(r);
        r = NULL;
    }
    /* length 0: the reader counts the bytes it hands out in req->bytes */
    return queue(s, c, req, MHD_HTTP_OK, r, 0, NULL, NULL);
}

/* How long a browser may remember a preflight's answer: ten minutes spares a web
 * page a round trip per request, and a change of --allow-origin takes effect soon. */
#define SRV_PREFLIGHT_MAX_AGE "600"

enum MHD_Result srv_respond_preflight(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                      const char *allow)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    int ok =
        r && MHD_add_response_header(r, "Access-Control-Allow-Methods", allow) == MHD_YES &&
        MHD_add_response_header(r, "Access-Control-Allow-Headers", "Content-Type") == MHD_YES &&
        MHD_add_response_header(r, "Access-Control-Max-Age", SRV_PREFLIGHT_MAX_AGE) == MHD_YES;
    if (r && !ok) {
        MHD_destroy_response(r);
        return MHD_NO;
    }
    return queue(s, c, req, MHD_HTTP_NO_CONTENT, r, 0, NULL, allow);
}

/* Queues the error body of err with status, or the static out-of-memory body when
 * the error body cannot be built. */
static enum MHD_Result queue_error(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                   const lr_error *err, unsigned status, const char *allow)
{
    char *text = error_json(err);
    if (!text) {
        struct MHD_Response *r = MHD_create_response_from_buffer(
            sizeof oom_body - 1, (void *)oom_body, MHD_RESPMEM_PERSISTENT);
        return queue(s, c, req, MHD_HTTP_SERVICE_UNAVAILABLE, r, sizeof oom_body - 1, NULL,
                     NULL);
    }
    return srv_respond_json(s, c, req, status, (srv_json){text, cJSON_free, NULL, 0, 0}, allow);
}

enum MHD_Result srv_respond_error(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                  const lr_error *err, unsigned status, const char *allow)
{
    lr_code code = lr_error_is_set(err) ? err->code : LR_INTERNAL;
    if (status == 0)
        status = srv_status_of(code);
    srv_stats_count_error(&s->stats, code);
    srv_stats_count_route_error(&s->stats, req->route, code);
    /* 5xx are our problem, not the client's: keep a trace of them. */
    if (status >= 500)
        srv_log("launchrank: %s %s: %s: %s", req->method, req->url, lr_code_name(code),
                err->message);
    return queue_error(s, c, req, err, status, allow);
}

/* The client is gone: the body goes out only to a client that shut down just its
 * sending side (pool.c takes that for gone too), so it is queued all the same. But
 * nobody was refused: counting it as a 503 told operators the daemon was overloaded,
 * and a 5xx log line per hang-up would let any client write to the log, --quiet or
 * not. The access log and /metrics say 499 instead. */
enum MHD_Result srv_respond_cancelled(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                      const lr_error *err)
{
    lr_code code = lr_error_is_set(err) ? err->code : LR_INTERNAL;
    enum MHD_Result r = queue_error(s, c, req, err, srv_status_of(code), NULL);
    if (r == MHD_YES) {
        req->status = SRV_STATUS_CLIENT_CLOSED;
        req->bytes = 0;
    }
    return r;
}

enum MHD_Result srv_respond_code(srv_server *s, struct MHD_Connection *c, srv_request *req,
                                 lr_code code, unsigned status, const char *allow,
                                 const char *fmt, ...)
{
    lr_error err;
    lr_error_clear(&err);
    va_list ap;
    va_start(ap, fmt);
    lr_error_setv(&err, code, NULL, fmt, ap);
    va_end(ap);
    return srv_respond_error(s, c, req, &err, status, allow);
}
