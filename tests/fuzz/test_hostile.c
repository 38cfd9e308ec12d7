/*
 * test_hostile.c: the real daemon (`launchrank serve`, path in argv[1], built with
 * the sanitizers like this test) against hostile and malformed requests.
 *
 * The promise under test: whatever a client sends, the daemon answers 4xx with the
 * error body {"error":{"code","message","path"}} (valid JSON, valid UTF-8, Content-Type
 * application/json), keeps serving everyone else, and shuts down cleanly on SIGTERM
 * with no sanitizer report. The cases are generated from valid requests (the 2-D
 * 5-point one of tests/data, the 3-D 7-point K20m one, and a ranking of one block) by
 * a deterministic PRNG, so a failure reproduces exactly; each failure prints its
 * category, a label, the start of the request and of the answer, and a summary table
 * ends the run (LR_HOSTILE_VERBOSE=1 prints every answer, not just failures).
 *
 * The daemon runs as a child process (fork/exec) on 127.0.0.1 port 0 with --port-file,
 * a temporary --db and --timeout 2; its stderr goes to a file that is scanned after
 * every request, so a sanitizer report is pinned to the request that caused it
 * (UBSan is told to continue: one run shows every report, not just the first).
 *
 * Two exceptions to "4xx with a JSON body", both stated where they are checked: a
 * ranking lists blocks that cannot be launched under "not_launchable" with a 200; and
 * framing errors that libmicrohttpd answers itself (request lines and headers past the
 * 64 KiB connection memory, malformed Content-Length or chunking, unknown HTTP
 * versions) never reach our code, so their bodies are MHD's HTML: that category only
 * requires a 4xx (505 for an unknown HTTP version) or a closed connection.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <errno.h>
#include <poll.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "hostile.h"

#define TEST_SEED 0x1a2b3c4d5e6f7788ull
#define TEST_DEADLINE_S 170        /* alarm() for the whole program; meson allows 180 */
#define IDLE_TIMEOUT_S 2           /* --timeout of the daemon: slow clients are cut after it */
#define IDLE_TIMEOUT_TEXT "2"      /* the same, as the option's text */
#define ANSWER_TIMEOUT_S 20.0      /* one request; the slowest hostile case takes < 1 s */
#define MAX_BODY ((size_t)1 << 20) /* the daemon's default --max-body */
#define HUGE_N 100000              /* elements of the "huge array" cases */

static const char *data_dir = SOURCE_DATA_DIR;
static int verbose; /* LR_HOSTILE_VERBOSE set: every answer is printed, not just failures */

/* ---- deterministic choices --------------------------------------------------------- */

static uint64_t rng_state = TEST_SEED;

/* xorshift64*: deterministic, so every run sends the same requests. */
static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static size_t rng_below(size_t n)
{
    return (size_t)(rng_next() % n);
}

/* ---- the daemon under test --------------------------------------------------------- */

static hz_daemon daemon_;
static int daemon_died; /* reported once; later cases are skipped */

/* Whether the daemon still runs; its death is a failure, reported once. */
static int alive(void)
{
    int status;
    if (daemon_died)
        return 0;
    if (hz_daemon_alive(&daemon_, &status))
        return 1;
    daemon_died = 1;
    check_failures++;
    fprintf(stderr, "FAIL: the daemon died (%s %d) during the test; its stderr is in %s\n",
            WIFSIGNALED(status) ? "signal" : "exit status",
            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), daemon_.log);
    return 0;
}

/* A sanitizer report written since the last call is a failure pinned to label, the
 * request just answered (UBSan writes before the answer is queued). */
static void scan_log(const char *label)
{
    char *report = hz_daemon_new_report(&daemon_);
    if (report) {
        check_failures++;
        fprintf(stderr, "FAIL: sanitizer report after request %s:\n%.3000s\n", label, report);
        free(report);
    }
}

/* ---- categories and the check of one answer -------------------------------------------- */

enum {
    C_TRUNCATED,
    C_SYNTAX,
    C_WRONG_TYPE,
    C_DEEP,
    C_HUGE_ARRAY,
    C_LITERAL,
    C_HUGE_SIZE,
    C_NEGATIVE,
    C_BLOCK,
    C_UNICODE,
    C_EXPR,
    C_EMPTY,
    C_CTYPE,
    C_METHOD,
    C_PATH,
    C_LONG,
    C_OVERSIZED,
    C_FRAMING,
    C_SLOW,
    C_CONTROL,
    C_REPEATED,
    C_ORIGIN,
    C_HOST,
    C_COUNT
};

static struct {
    const char *name;
    int sent, failed;
} cats[C_COUNT] = {
    [C_TRUNCATED] = {"truncated JSON (prefixes of valid requests)"},
    [C_SYNTAX] = {"malformed JSON (garbage, trailing data, bad escapes)"},
    [C_WRONG_TYPE] = {"wrong type at every path"},
    [C_DEEP] = {"deep nesting (10 to 10000)"},
    [C_HUGE_ARRAY] = {"100k-element arrays and objects"},
    [C_LITERAL] = {"NaN/Infinity/1e400 and other bad number literals"},
    [C_HUGE_SIZE] = {"10^12-sized domains, dims and counts"},
    [C_NEGATIVE] = {"negative sizes"},
    [C_BLOCK] = {"absurd block sizes"},
    [C_UNICODE] = {"unicode, control bytes, bad UTF-8, \\u0000"},
    [C_EXPR] = {"expressions isl cannot or should not handle"},
    [C_EMPTY] = {"empty bodies"},
    [C_CTYPE] = {"wrong content types (415)"},
    [C_METHOD] = {"wrong methods (405)"},
    [C_PATH] = {"unknown paths (404)"},
    [C_LONG] = {"long paths and header values (< 64 KiB)"},
    [C_OVERSIZED] = {"bodies over 1 MiB (413)"},
    [C_FRAMING] = {"HTTP framing errors (answered by libmicrohttpd)"},
    [C_SLOW] = {"slow clients (stall past --timeout)"},
    [C_CONTROL] = {"raw control bytes in strings (400, their path)"},
    [C_REPEATED] = {"keys given twice (400, their path)"},
    [C_ORIGIN] = {"foreign origins and untyped POSTs (403, 415)"},
    [C_HOST] = {"foreign, malformed and long Host headers (403)"},
};

static void fail_case(int cat, const char *label, const char *req, size_t req_len,
                      const http_resp *r, const char *why)
{
    cats[cat].failed++;
    check_failures++;
    fprintf(stderr, "FAIL [%s] %s: %s; status %d%s%s after %.2f s\n  request: ", cats[cat].name,
            label, why, r->status, r->timed_out ? " (timed out)" : "",
            r->closed && !r->status ? " (closed without an answer)" : "", r->seconds);
    hz_print_excerpt(stderr, req, req_len, 300);
    fprintf(stderr, "\n  answer:  ");
    if (r->body)
        hz_print_excerpt(stderr, r->body, r->body_len, 400);
    fprintf(stderr, "\n");
}

/* Sends one request and requires a proper error answer (want_status 0 = any 4xx). */
static void expect_error_raw(int cat, const char *label, const char *req, size_t len,
                             int is_head, int want_status)
{
    if (!alive())
        return;
    http_resp r;
    cats[cat].sent++;
    http_exchange(daemon_.port, req, len, is_head, ANSWER_TIMEOUT_S, &r);
    const char *why;
    if (is_head) /* no body to check: the status says it all */
        why = r.status >= 400 && r.status <= 499 && (!want_status || r.status == want_status)
                  ? NULL
                  : "not the expected 4xx";
    else
        why = hz_error_shape_problem(&r, want_status);
    if (why)
        fail_case(cat, label, req, len, &r, why);
    else if (verbose) {
        fprintf(stderr, "ok [%s] %s: %d ", cats[cat].name, label, r.status);
        hz_print_excerpt(stderr, r.body ? r.body : "", r.body_len, 160);
        fputc('\n', stderr);
    }
    http_resp_free(&r);
    scan_log(label);
}

/* POSTs body (len bytes, which may hold NULs) to /v1/estimate and requires the
 * error answer want_status with the given code and JSON path. */
static void expect_error_at(int cat, const char *label, const char *body, size_t len,
                            int want_status, const char *want_code, const char *want_path)
{
    if (!alive())
        return;
    buf req = {0};
    http_build_request(&req, daemon_.port, "POST", "/v1/estimate", "application/json", body,
                       len, NULL);
    http_resp r;
    cats[cat].sent++;
    http_exchange(daemon_.port, req.p, req.n, 0, ANSWER_TIMEOUT_S, &r);
    const char *why = hz_error_shape_problem(&r, want_status);
    if (!why) {
        cJSON *doc = cJSON_ParseWithLength(r.body, r.body_len);
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");
        const char *code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "code"));
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "path"));
        if (!code || strcmp(code, want_code) != 0)
            why = "not the expected error code";
        else if (!path || strcmp(path, want_path) != 0)
            why = "not the path of the offending value";
        cJSON_Delete(doc);
    }
    if (why)
        fail_case(cat, label, req.p, req.n, &r, why);
    http_resp_free(&r);
    buf_free(&req);
    scan_log(label);
}

static void expect_error(int cat, const char *label, const char *method, const char *path,
                         const char *ctype, const char *body, size_t len, const char *extra,
                         int want_status)
{
    buf req = {0};
    http_build_request(&req, daemon_.port, method, path, ctype, body, len, extra);
    expect_error_raw(cat, label, req.p, req.n, strcmp(method, "HEAD") == 0, want_status);
    buf_free(&req);
}

static void post_error(int cat, const char *label, const char *endpoint, const char *body,
                       size_t len, int want_status)
{
    expect_error(cat, label, "POST", endpoint, "application/json", body, len, NULL,
                 want_status);
}

static void post_estimate(int cat, const char *label, const char *body, int want_status)
{
    post_error(cat, label, "/v1/estimate", body, strlen(body), want_status);
}

/* Requires a 200 (positive controls: the requests the cases are made from are good). */
static void expect_ok(const char *label, const char *method, const char *path, const char *body)
{
    if (!alive())
        return;
    buf req = {0};
    http_build_request(&req, daemon_.port, method, path, body ? "application/json" : NULL, body,
                       body ? strlen(body) : 0, NULL);
    http_resp r;
    http_exchange(daemon_.port, req.p, req.n, 0, ANSWER_TIMEOUT_S, &r);
    if (r.status != 200) {
        check_failures++;
        fprintf(stderr, "FAIL: control request %s: status %d: %.300s\n", label, r.status,
                r.body ? r.body : "");
    }
    check_count++;
    http_resp_free(&r);
    buf_free(&req);
    scan_log(label);
}

/* A ranking of one block that cannot be launched: 200, no results, and the block
 * listed under "not_launchable" with a reason. */
static void expect_rank_not_launchable(int cat, const char *label, const char *body)
{
    if (!alive())
        return;
    buf req = {0};
    http_build_request(&req, daemon_.port, "POST", "/v1/rank", "application/json", body,
                       strlen(body), NULL);
    http_resp r;
    cats[cat].sent++;
    http_exchange(daemon_.port, req.p, req.n, 0, ANSWER_TIMEOUT_S, &r);
    cJSON *doc = r.status == 200 ? cJSON_ParseWithLength(r.body, r.body_len) : NULL;
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results");
    const cJSON *refused = cJSON_GetObjectItemCaseSensitive(doc, "not_launchable");
    if (r.status != 200)
        fail_case(cat, label, req.p, req.n, &r, "not a 200 ranking");
    else if (cJSON_GetArraySize(results) != 0 || cJSON_GetArraySize(refused) != 1)
        fail_case(cat, label, req.p, req.n, &r,
                  "the block is ranked, not listed as not_launchable");
    cJSON_Delete(doc);
    http_resp_free(&r);
    buf_free(&req);
    scan_log(label);
}

/* ---- the requests the cases are made from ----------------------------------------------- */

typedef struct base_req {
    const char *name;
    cJSON *doc;
    char *compact;
    char *pretty;
} base_req;

static base_req base2, base3, base_rank;

static int load_base(base_req *b, const char *name, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", data_dir, file);
    char *text = hz_read_file(path, NULL);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    b->name = name;
    b->doc = cJSON_Parse(text);
    free(text);
    if (!b->doc)
        return -1;
    b->compact = cJSON_PrintUnformatted(b->doc);
    b->pretty = cJSON_Print(b->doc);
    return 0;
}

static void free_base(base_req *b)
{
    cJSON_Delete(b->doc);
    cJSON_free(b->compact);
    cJSON_free(b->pretty);
}

/* ---- the cases: bodies ------------------------------------------------------------------- */

static void cases_truncated(void)
{
    /* Every proper prefix is invalid (the root object closes at the last byte);
     * a third of them, chosen by the PRNG, plus the first and last few. */
    const char *texts[] = {base2.compact, base3.pretty, base_rank.compact};
    const char *names[] = {"2-D compact", "3-D pretty", "rank compact"};
    for (int t = 0; t < 3; t++) {
        size_t n = strlen(texts[t]);
        for (size_t len = 0; len < n; len++) {
            if (len > 4 && len + 4 < n && rng_below(3) != 0)
                continue;
            char label[96];
            snprintf(label, sizeof label, "%s prefix of %zu/%zu bytes", names[t], len, n);
            post_error(C_TRUNCATED, label, t == 2 ? "/v1/rank" : "/v1/estimate", texts[t], len,
                       400);
        }
    }
}

static void cases_syntax(void)
{
    static const char *const bodies[] = {
        "{",
        "}",
        "[",
        "]",
        "{]",
        "[}",
        "{\"device\"}",
        "{\"device\":}",
        "{,}",
        "{\"a\":1,}",
        "[1,]",
        "{'device':'K20m'}",
        "{device:\"K20m\"}",
        "nul",
        "tru",
        "\"unterminated",
        "\"bad escape \\q\"",
        "{\"a\":\"\\u12\"}",
        "{\"a\":\"\\uZZZZ\"}",
        "\x01",
        "\xff\xfe{}",
        "{\"a\" 1}",
        "{\"a\":1 \"b\":2}",
        "{\"a\":--1}",
        "/* comment */ {}",
        "{} // comment",
        "{\"device\":\"K20m\"",
        "null",
        "true",
        "42",
        "\"a string\"",
        "[]",
        "[{}]",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "malformed body #%zu", i);
        post_estimate(C_SYNTAX, label, bodies[i], 0);
    }
    /* A valid request followed by more bytes is not one JSON document. */
    static const char *const tails[] = {"garbage", "}",     "]", ",{}",
                                        "{}",      "\"x\"", "1", "\x00garbage"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        buf b = {0};
        buf_puts(&b, base2.compact);
        if (i == sizeof tails / sizeof tails[0] - 1)
            buf_add(&b, tails[i], 8); /* with its NUL */
        else
            buf_puts(&b, tails[i]);
        char label[64];
        snprintf(label, sizeof label, "valid request + trailing bytes #%zu", i);
        post_error(C_SYNTAX, label, "/v1/estimate", b.p, b.n, 400);
        buf_free(&b);
    }
    {
        buf b = {0};
        buf_puts(&b, base2.compact);
        buf_puts(&b, base3.compact);
        post_error(C_SYNTAX, "two requests concatenated", "/v1/estimate", b.p, b.n, 400);
        buf_free(&b);
    }
}

static void cases_wrong_types(void)
{
    static const char *const variants[6][5] = {
        {"\"\"", "\"x\"", "\"15000\"", "\"A100-SXM4-80GB\"", "\"[1,2]\""},
        {"0", "-1", "7", "1e300", "3.5"},
        {"null", "null", "null", "null", "null"},
        {"true", "false", "true", "false", "true"},
        {"{}", "{\"k\":1}", "{\"block\":[1,1,1]}", "{\"\":null}", "{\"x\":{}}"},
        {"[]", "[1]", "[\"x\"]", "[[1,2],[3]]", "[null]"},
    };
    static const char *const kind_names[] = {"string", "number", "null",
                                             "bool",   "object", "array"};
    const base_req *bases[] = {&base2, &base3, &base_rank};
    for (int b = 0; b < 3; b++) {
        hz_json_path paths[256];
        int n = 0;
        hz_json_paths(bases[b]->doc, "", paths, &n, 256);
        for (int i = 0; i < n; i++) {
            int own = paths[i].kind;
            for (int k = 0; k < 6; k++) {
                if (k == own)
                    continue;
                const char *raw = variants[k][rng_below(5)];
                char *body = hz_json_with_raw(bases[b]->doc, paths[i].path, raw);
                /* the precision only restates that path ends within its array, which
                 * GCC cannot see through paths[i] (-Wformat-truncation) */
                char label[256];
                snprintf(label, sizeof label, "%s: %.*s := %s (%s)", bases[b]->name,
                         (int)sizeof paths[i].path - 1, paths[i].path, raw, kind_names[k]);
                post_error(C_WRONG_TYPE, label, b == 2 ? "/v1/rank" : "/v1/estimate", body,
                           strlen(body), 0);
                cJSON_free(body);
            }
        }
    }
}

static void cases_deep(void)
{
    static const int depths[] = {10, 31, 32, 33, 64, 100, 1000, 4096, 10000};
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
        int d = depths[i];
        char label[96];
        buf b = {0};

        buf_repeat(&b, "[", (size_t)d);
        buf_repeat(&b, "]", (size_t)d);
        snprintf(label, sizeof label, "root array nested %d deep", d);
        post_error(C_DEEP, label, "/v1/estimate", b.p, b.n, 400);
        buf_free(&b);

        buf_repeat(&b, "{\"a\":", (size_t)d);
        buf_puts(&b, "1");
        buf_repeat(&b, "}", (size_t)d);
        snprintf(label, sizeof label, "root object nested %d deep", d);
        post_error(C_DEEP, label, "/v1/estimate", b.p, b.n, 400);
        buf_free(&b);

        buf_repeat(&b, "[", (size_t)d);
        buf_puts(&b, "15000");
        buf_repeat(&b, "]", (size_t)d);
        char *body = hz_json_with_raw(base2.doc, "domain", b.p);
        snprintf(label, sizeof label, "domain nested %d deep", d);
        post_estimate(C_DEEP, label, body, 400);
        cJSON_free(body);
        buf_free(&b);

        buf_repeat(&b, "[{\"fields\":", (size_t)d);
        buf_puts(&b, "[]");
        buf_repeat(&b, "}]", (size_t)d);
        body = hz_json_with_raw(base3.doc, "kernel.fields", b.p);
        snprintf(label, sizeof label, "kernel.fields mixing [{ %d deep", d);
        post_estimate(C_DEEP, label, body, 400);
        cJSON_free(body);
        buf_free(&b);

        buf_repeat(&b, "[", (size_t)d);
        snprintf(label, sizeof label, "%d unclosed brackets", d);
        post_error(C_DEEP, label, "/v1/estimate", b.p, b.n, 400);
        buf_free(&b);

        /* Brackets the depth pre-scan must not be fooled by: closers first inside a
         * string, then real openers. */
        buf_puts(&b, "{\"device\":\"");
        buf_repeat(&b, "]", (size_t)d);
        buf_puts(&b, "\",\"kernel\":");
        buf_repeat(&b, "[", (size_t)d);
        buf_repeat(&b, "]", (size_t)d);
        buf_puts(&b, "}");
        snprintf(label, sizeof label, "closers in a string then %d openers", d);
        post_error(C_DEEP, label, "/v1/estimate", b.p, b.n, 400);
        buf_free(&b);
    }
}

static void cases_huge_arrays(void)
{
    static const struct {
        const char *path;
        const char *elem;
        int rank;
    } cases[] = {
        {"domain", "1", 0},
        {"domain", "null", 0},
        {"domain", "1e400", 0},
        {"kernel.fields[0].dims", "2", 0},
        {"kernel.fields[0].dims", "[]", 0},
        {"kernel.fields[0].loads", "\"x\"", 0},
        {"kernel.fields[0].loads", "[\"x\",\"y\"]", 0},
        {"kernel.fields[1].stores", "\"x\"", 0},
        {"kernel.fields[0].loads[0]", "\"x\"", 0},
        {"kernel.fields", "{}", 0},
        {"launch.block", "1", 0},
        {"search.blocks", "[32,4,1]", 1},
        {"search.blocks", "1", 1},
        {"search.foldings", "[1,1,1]", 1},
        {"domain", "1", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* As many elements as fit: HUGE_N where the element is short. */
        size_t elem = strlen(cases[i].elem) + 1;
        size_t n = HUGE_N;
        if (n * elem > MAX_BODY - 4096)
            n = (MAX_BODY - 4096) / elem;
        buf b = {0};
        buf_list(&b, "[", cases[i].elem, n, "]");
        char *body =
            hz_json_with_raw(cases[i].rank ? base_rank.doc : base2.doc, cases[i].path, b.p);
        char label[128];
        snprintf(label, sizeof label, "%s = [%s x %zu]", cases[i].path, cases[i].elem, n);
        post_error(C_HUGE_ARRAY, label, cases[i].rank ? "/v1/rank" : "/v1/estimate", body,
                   strlen(body), 0);
        cJSON_free(body);
        buf_free(&b);
    }
    /* Objects with 100k keys: parameters and the root (unknown keys). */
    buf b = {0};
    buf_puts(&b, "{");
    for (int i = 0; i < HUGE_N && b.n < MAX_BODY - 4096; i++)
        buf_printf(&b, "%s\"%x\":1", i ? "," : "", (unsigned)i);
    buf_puts(&b, "}");
    {
        cJSON *doc = cJSON_Duplicate(base2.doc, 1);
        cJSON_AddItemToObject(cJSON_GetObjectItem(doc, "kernel"), "parameters",
                              cJSON_CreateRaw(b.p));
        char *text = cJSON_PrintUnformatted(doc);
        post_estimate(C_HUGE_ARRAY, "kernel.parameters with 100k keys", text, 0);
        cJSON_free(text);
        cJSON_Delete(doc);
    }
    b.p[b.n - 1] = ',';
    buf_puts(&b, "\"device\":\"K20m\"}");
    post_error(C_HUGE_ARRAY, "root object with 100k unknown keys", "/v1/estimate", b.p, b.n,
               400);
    buf_free(&b);
    /* A root array of 100k numbers, and a single 1 MiB string. */
    buf_list(&b, "[", "1", HUGE_N, "]");
    post_error(C_HUGE_ARRAY, "root array of 100k numbers", "/v1/estimate", b.p, b.n, 400);
    buf_free(&b);
    buf_puts(&b, "\"");
    buf_repeat(&b, "x+", (MAX_BODY - 4096) / 2);
    buf_puts(&b, "x\"");
    char *text = hz_json_with_raw(base2.doc, "kernel.fields[0].loads[0][0]", b.p);
    post_estimate(C_HUGE_ARRAY, "a 1 MiB expression", text, 400);
    cJSON_free(text);
    buf_free(&b);
}

/* Numeric paths of the 2-D request and whether the value must be an integer. */
static const struct {
    const char *path;
    int integer;
} numeric_paths[] = {
    {"domain[0]", 1},
    {"domain[1]", 1},
    {"kernel.fields[0].element_bytes", 1},
    {"kernel.fields[0].dims[0]", 1},
    {"kernel.fields[0].dims[1]", 1},
    {"kernel.fields[0].base_offset_bytes", 1},
    {"kernel.fields[1].element_bytes", 1},
    {"kernel.fields[1].dims[1]", 1},
    {"kernel.flops", 0},
    {"launch.block[0]", 1},
    {"launch.block[1]", 1},
    {"launch.block[2]", 1},
};
#define NUMERIC_PATH_COUNT (sizeof numeric_paths / sizeof numeric_paths[0])

static void cases_literals(void)
{
    static const char *const any[] = {
        "NaN", "-NaN", "nan", "Infinity", "-Infinity", "inf", "1e400", "-1e400", "1e999999999",
        "+1", ".5", "0x10", "1e", "-", "1.5.1", "Inf",
        /* issue 41, item 4: cJSON's strtod took these as numbers (0100 as 100) */
        "0100", "-01", "00", "64.", "1.e5", "-.5", "9007199254740993"};
    static const char *const integer_only[] = {"1.5", "2.0000001", "0.5"};
    for (size_t p = 0; p < NUMERIC_PATH_COUNT; p++) {
        for (size_t i = 0; i < sizeof any / sizeof any[0]; i++) {
            char *body = hz_json_with_raw(base2.doc, numeric_paths[p].path, any[i]);
            char label[128];
            snprintf(label, sizeof label, "%s = %s", numeric_paths[p].path, any[i]);
            post_estimate(C_LITERAL, label, body, 400);
            cJSON_free(body);
        }
        for (size_t i = 0; numeric_paths[p].integer && i < 3; i++) {
            char *body = hz_json_with_raw(base2.doc, numeric_paths[p].path, integer_only[i]);
            char label[128];
            snprintf(label, sizeof label, "%s = %s", numeric_paths[p].path, integer_only[i]);
            post_estimate(C_LITERAL, label, body, 0);
            cJSON_free(body);
        }
    }
}

static void cases_huge_sizes(void)
{
    static const struct {
        const char *path, *raw;
    } cases[] = {
        {"domain[0]", "1000000000000"},
        {"domain[1]", "1000000000000"},
        {"domain", "[1000000000000,1000000000000,1000000000000]"},
        {"domain", "[2147483648]"},
        {"domain", "[2147483647,2147483647,2147483647]"},
        {"domain", "[65536,65536,1025]"}, /* just over 2^42 points */
        {"domain", "[4398046511105]"},
        {"domain", "[9223372036854775807,1,1]"},
        {"domain", "[18446744073709551616,1,1]"},
        {"domain", "\"1000000000000\""},
        {"kernel.fields[0].dims", "[1000000000000,1000000000000]"},
        {"kernel.fields[0].dims[0]", "1000000000000"},
        {"kernel.fields[0].dims", "[2147483647,2147483647]"}, /* > 1 PiB */
        {"kernel.fields[0].dims", "[2147483647,2147483647,2147483647]"},
        {"kernel.fields[0].element_bytes", "1000000000000"},
        {"kernel.fields[0].element_bytes", "32"},
        {"kernel.fields[0].element_bytes", "3"},
        {"kernel.fields[0].base_offset_bytes", "1000000000000"},
        {"kernel.flops", "1000000000000"},
        {"launch.block", "[1000000000000,1,1]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *body = hz_json_with_raw(base2.doc, cases[i].path, cases[i].raw);
        char label[128];
        snprintf(label, sizeof label, "%s = %s", cases[i].path, cases[i].raw);
        post_estimate(C_HUGE_SIZE, label, body, 0);
        cJSON_free(body);
    }
    static const struct {
        const char *key, *raw;
    } kernel_keys[] = {{"registers", "1000000000000"},
                       {"shared_bytes", "1000000000000"},
                       {"fp_instructions", "1000000000000"}};
    for (size_t i = 0; i < 3; i++) {
        cJSON *doc = cJSON_Duplicate(base2.doc, 1);
        cJSON_AddItemToObject(cJSON_GetObjectItem(doc, "kernel"), kernel_keys[i].key,
                              cJSON_CreateRaw(kernel_keys[i].raw));
        char *body = cJSON_PrintUnformatted(doc);
        char label[96];
        snprintf(label, sizeof label, "kernel.%s = 10^12", kernel_keys[i].key);
        post_estimate(C_HUGE_SIZE, label, body, 0);
        cJSON_free(body);
        cJSON_Delete(doc);
    }
    static const struct {
        const char *key, *raw;
    } search[] = {{"top", "1000000000000"},
                  {"max_threads", "1000000000000"},
                  {"blocks", "[[1000000000000,1,1]]"},
                  {"foldings", "[[1000000000000,1,1]]"}};
    for (size_t i = 0; i < 4; i++) {
        cJSON *doc = cJSON_Duplicate(base_rank.doc, 1);
        cJSON *s = cJSON_GetObjectItem(doc, "search");
        cJSON_DeleteItemFromObject(s, search[i].key);
        cJSON_AddItemToObject(s, search[i].key, cJSON_CreateRaw(search[i].raw));
        char *body = cJSON_PrintUnformatted(doc);
        char label[96];
        snprintf(label, sizeof label, "rank search.%s = %s", search[i].key, search[i].raw);
        post_error(C_HUGE_SIZE, label, "/v1/rank", body, strlen(body), 0);
        cJSON_free(body);
        cJSON_Delete(doc);
    }
    cJSON *doc = cJSON_Duplicate(base2.doc, 1);
    cJSON_AddItemToObject(cJSON_GetObjectItem(doc, "launch"), "folding",
                          cJSON_CreateRaw("[1000000000000,1,1]"));
    char *body = cJSON_PrintUnformatted(doc);
    post_estimate(C_HUGE_SIZE, "launch.folding = [10^12,1,1]", body, 0);
    cJSON_free(body);
    cJSON_Delete(doc);
}

static void cases_negative(void)
{
    static const char *const values[] = {"-1", "-2147483648", "-1000000000000", "-0.5"};
    for (size_t p = 0; p < NUMERIC_PATH_COUNT; p++)
        for (size_t i = 0; i < 4; i++) {
            if (!numeric_paths[p].integer && i == 3)
                continue; /* flops is a number; -0.5 is covered by -1 */
            char *body = hz_json_with_raw(base2.doc, numeric_paths[p].path, values[i]);
            char label[128];
            snprintf(label, sizeof label, "%s = %s", numeric_paths[p].path, values[i]);
            post_estimate(C_NEGATIVE, label, body, 400);
            cJSON_free(body);
        }
    static const char *const paths3[] = {"domain[2]", "kernel.fields[0].dims[2]",
                                         "kernel.fields[1].base_offset_bytes",
                                         "launch.block[2]"};
    for (size_t p = 0; p < 4; p++)
        for (size_t i = 0; i < 4; i++) {
            char *body = hz_json_with_raw(base3.doc, paths3[p], values[i]);
            char label[128];
            snprintf(label, sizeof label, "3-D %s = %s", paths3[p], values[i]);
            post_estimate(C_NEGATIVE, label, body, 400);
            cJSON_free(body);
        }
    cJSON *doc = cJSON_Duplicate(base2.doc, 1);
    cJSON_AddItemToObject(cJSON_GetObjectItem(doc, "launch"), "folding",
                          cJSON_CreateRaw("[-1,1,1]"));
    char *body = cJSON_PrintUnformatted(doc);
    post_estimate(C_NEGATIVE, "launch.folding = [-1,1,1]", body, 400);
    cJSON_free(body);
    cJSON_Delete(doc);
}

static void cases_blocks(void)
{
    static const char *const values[] = {"0",       "1025",       "2147483648", "-1",
                                         "1.5",     "4294967297", "1e308",      "65536",
                                         "\"512\"", "[512]"};
    const base_req *bases[] = {&base2, &base3};
    for (int b = 0; b < 2; b++)
        for (int d = 0; d < 3; d++)
            for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
                char path[32], label[128];
                snprintf(path, sizeof path, "launch.block[%d]", d);
                char *body = hz_json_with_raw(bases[b]->doc, path, values[i]);
                snprintf(label, sizeof label, "%s: %s = %s", bases[b]->name, path, values[i]);
                post_estimate(C_BLOCK, label, body, 0);
                cJSON_free(body);
            }
    /* Well-formed blocks that no GPU can launch (over 1024 threads, or blockDim.z over
     * CUDA's 64) come first; the rest are malformed. */
    static const char *const blocks[] = {
        "[1024,2,1]",  "[32,32,2]", "[1,1,65]",   "[1024,1024,64]", "[513,2,1]",
        "[]",          "[1,1,1,1]", "\"512\"",    "[[512]]",        "[0,0,0]",
        "{\"x\":512}", "[2048]",    "[1,1025,1]", "[1,1,1025]",
    };
    enum { UNLAUNCHABLE = 5 };
    for (int b = 0; b < 2; b++)
        for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
            char *body = hz_json_with_raw(bases[b]->doc, "launch.block", blocks[i]);
            char label[128];
            snprintf(label, sizeof label, "%s: block = %s", bases[b]->name, blocks[i]);
            post_estimate(C_BLOCK, label, body, 0);
            cJSON_free(body);
        }
    /* A ranking lists unlaunchable blocks under "not_launchable" (200); malformed ones
     * are errors. */
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        buf raw = {0};
        buf_printf(&raw, "[%s]", blocks[i]);
        char *body = hz_json_with_raw(base_rank.doc, "search.blocks", raw.p);
        char label[128];
        snprintf(label, sizeof label, "rank: search.blocks = [%s]", blocks[i]);
        if (i < UNLAUNCHABLE)
            expect_rank_not_launchable(C_BLOCK, label, body);
        else
            post_error(C_BLOCK, label, "/v1/rank", body, strlen(body), 0);
        cJSON_free(body);
        buf_free(&raw);
    }
}

static void cases_unicode(void)
{
    /* Field names: any 1 to 63 bytes of text are allowed, but not bytes that are not
     * UTF-8 (the name comes back in the answer) and not NUL (C strings end there, so
     * "A\u0000zz" would silently become "A"). */
    static const char *const names[] = {
        "\"A\\u0000zz\"",
        "\"\\u0000\"",
        "\"A\xff\xfe\"",
        "\"\xc0\xaf\"",
        "\"\xed\xa0\x80\"",
        "\"\\ud800\"",
        "\"\\udc00x\"",
        "\"\x80\"",
        "\"\xf8\x88\x80\x80\x80\"",
        "\"\xf4\x90\x80\x80\"",
        "\"B\"", /* the other field's name */
        "\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3"
        "\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3"
        "\xa9\"", /* 32 x e-acute: 64 bytes */
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *body = hz_json_with_raw(base2.doc, "kernel.fields[0].name", names[i]);
        char label[128];
        snprintf(label, sizeof label, "field name #%zu", i);
        post_estimate(C_UNICODE, label, body, 0);
        cJSON_free(body);
    }
    /* Expressions are ASCII: anything else is an error, also when it looks alike. */
    static const char *const exprs[] = {
        "\"x+\xc3\xa9\"",
        "\"x\\u0000y\"",
        "\"x+\\u00001\"",
        "\"x\\u0001\"",
        "\"x\\u007f\"",
        "\"x\\u00a0+1\"",
        "\"x\xe2\x88\x92"
        "1\"",
        "\"x\xff\"",
        "\"\xef\xbb\xbfx\"",
        "\"x\xe2\x80\xae+1\"",
        "\"x+\xef\xbc\x91\"",
        "\"\xd1\x85\"", /* Cyrillic x */
        "\"x\x01\"",
        "\"x\x1b[31m\"",
        "\"\\ud83d\\ude00\"",
        "\"x\\\\y\"",
        "\"x\\\"y\"",
        "\"x\\u0000\"",
    };
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        char *body = hz_json_with_raw(base2.doc, "kernel.fields[0].loads[0][0]", exprs[i]);
        char label[128];
        snprintf(label, sizeof label, "expression #%zu", i);
        post_estimate(C_UNICODE, label, body, 0);
        cJSON_free(body);
    }
    /* Keys: a known key with something appended or changed is an unknown key. */
    static const struct {
        const char *from, *to;
    } keys[] = {
        {"\"flops\"", "\"flops\\u0000x\""},
        {"\"flops\"", "\"fl\xc3\xb6ps\""},
        {"\"flops\"", "\"flo\x01ps\""},
        {"\"flops\"", "\"flops\xff\""},
        {"\"device\"", "\"\\u0000\""},
        {"\"device\"", "\"device\\u0000\""},
        {"\"launch\"", "\"\""},
        {"\"launch\"", "\"l\\u0061unch\\u0000\""},
        {"\"name\"", "\"n\xc3\xa4me\""},
        {"\"dims\"", "\"dims\\u0000dims\""},
        {"\"loads\"", "\"\xef\xbb\xbfloads\""},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char *body = hz_replace_once(base2.compact, keys[i].from, keys[i].to);
        char label[128];
        snprintf(label, sizeof label, "key #%zu (%s)", i, keys[i].from);
        post_estimate(C_UNICODE, label, body, 0);
        free(body);
    }
    /* Device names. */
    static const char *const devices[] = {"\"A100-SXM4-80GB\\u0000junk\"", "\"\xff\xfe\"",
                                          "\"K20m\\u0000\"",
                                          "\"K\xc3\xa9"
                                          "20m\"",
                                          "\"\\u0000K20m\""};
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        char *body = hz_json_with_raw(base2.doc, "device", devices[i]);
        char label[128];
        snprintf(label, sizeof label, "device name #%zu", i);
        post_estimate(C_UNICODE, label, body, 0);
        cJSON_free(body);
    }
    /* And in the path of GET /v1/devices/{name} (the name is echoed in the error). */
    static const char *const dev_paths[] = {"/v1/devices/%ff%fe", "/v1/devices/%00",
                                            "/v1/devices/K20m%00junk", "/v1/devices/%c3%a9",
                                            "/v1/devices/\xff"};
    for (size_t i = 0; i < sizeof dev_paths / sizeof dev_paths[0]; i++) {
        char label[128];
        snprintf(label, sizeof label, "GET %s", dev_paths[i]);
        expect_error(C_UNICODE, label, "GET", dev_paths[i], NULL, NULL, 0, NULL, 404);
    }
}

static void cases_expressions(void)
{
    static const char *const exprs[] = {
        "x*y",
        "y*y",
        "(x+1)*(y+1)",
        "A[B[i]]",
        "x[1]",
        "x(1)",
        "x/0",
        "x/(0)",
        "0/0",
        "x%(-3)",
        "x%0",
        "x%-1",
        "x/-1",
        "x/y",
        "x%y",
        "1e3*x",
        "0x10*x",
        "1.5*x",
        "x/2.0",
        "x>>1",
        "x<<1",
        "x^2",
        "x**2",
        "x&&y",
        "x==y",
        "x=1",
        "x?1:2",
        "&x",
        "*x",
        "!x",
        "~x",
        "x++",
        "x--",
        "x;y",
        "x,y",
        "sizeof(x)",
        "floor(x/2)",
        "max(x,y)",
        "N*x",
        "x.y",
        "threadIdx.w",
        "blockIdx",
        "x y",
        "(",
        "x)",
        " ",
        "%",
        "x+9223372036854775808",
        "x+99999999999999999999999",
        "-9223372036854775808*x",
        "9223372036854775807+x+1",
        "9007199254740993*x",
        "x*1000000000000000",
        "x*10000000000000",
        /* Products whose constants are each in range but whose value is not: */
        "1000000000000000*x*1000000000000000",
        "2147483647*2147483647*x",
        "x*9007199254740992*9007199254740992",
        "(x/2)*9007199254740992*9007199254740992",
        "threadIdx.x*9007199254740992*1024",
        "gridDim.x*blockDim.x*9007199254740992",
        "9007199254740992*9007199254740992+x",
    };
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        cJSON *s = cJSON_CreateString(exprs[i]);
        char *raw = cJSON_PrintUnformatted(s);
        cJSON_Delete(s);
        char label[160];
        char *body = hz_json_with_raw(base2.doc, "kernel.fields[0].loads[0][0]", raw);
        snprintf(label, sizeof label, "2-D load '%s'", exprs[i]);
        post_estimate(C_EXPR, label, body, 0);
        cJSON_free(body);
        body = hz_json_with_raw(base3.doc, "kernel.fields[1].stores[0][1]", raw);
        snprintf(label, sizeof label, "3-D store '%s'", exprs[i]);
        post_estimate(C_EXPR, label, body, 0);
        cJSON_free(body);
        cJSON_free(raw);
    }
    /* Nesting inside one expression: 10000 parentheses (over the 4 KiB expression
     * limit), 2040 (under it: the parser's recursion), long unary chains. */
    static const struct {
        const char *open, *mid, *close;
        size_t n;
    } nests[] = {{"(", "x", ")", 10000}, {"(", "x", ")", 2040}, {"-", "x", "", 4000},
                 {"+", "x", "", 4000},   {"(", "x", "", 2040},  {"x*(", "1", ")", 1000},
                 {"(", "", ")", 2040}};
    for (size_t i = 0; i < sizeof nests / sizeof nests[0]; i++) {
        buf e = {0};
        buf_puts(&e, "\"");
        buf_repeat(&e, nests[i].open, nests[i].n);
        buf_puts(&e, nests[i].mid);
        buf_repeat(&e, nests[i].close, nests[i].n);
        buf_puts(&e, "\"");
        char *body = hz_json_with_raw(base2.doc, "kernel.fields[0].loads[0][0]", e.p);
        char label[96];
        snprintf(label, sizeof label, "'%s' x %zu around '%s'", nests[i].open, nests[i].n,
                 nests[i].mid);
        post_estimate(C_EXPR, label, body, 0);
        cJSON_free(body);
        buf_free(&e);
    }
}

static void cases_empty(void)
{
    static const char *const bodies[] = {"", " ", "\r\n", "\t\t", "\n\n\n"};
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char label[64];
        snprintf(label, sizeof label, "body of %zu blank bytes", strlen(bodies[i]));
        post_error(C_EMPTY, label, "/v1/estimate", bodies[i], strlen(bodies[i]), 400);
        post_error(C_EMPTY, label, "/v1/rank", bodies[i], strlen(bodies[i]), 400);
    }
    expect_error(C_EMPTY, "POST without Content-Length", "POST", "/v1/estimate",
                 "application/json", NULL, 0, NULL, 400);
    buf chunked = {0};
    buf_printf(&chunked,
               "POST /v1/estimate HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n"
               "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
               daemon_.port);
    expect_error_raw(C_EMPTY, "chunked body of 0 bytes", chunked.p, chunked.n, 0, 400);
    buf_free(&chunked);
}

static void cases_content_types(void)
{
    static const char *const types[] = {"text/plain",
                                        "multipart/form-data; boundary=xyz",
                                        "application/x-www-form-urlencoded",
                                        "application/jsonp",
                                        "application/json-seq",
                                        "application/xml",
                                        "text/json",
                                        "",
                                        "json",
                                        "application/ json",
                                        "application",
                                        "*/*",
                                        "application/javascript",
                                        "application/json\x01",
                                        "text/plain; application/json"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char label[128];
        snprintf(label, sizeof label, "Content-Type '%s'", types[i]);
        expect_error(C_CTYPE, label, "POST", "/v1/estimate", types[i], base2.compact,
                     strlen(base2.compact), NULL, 415);
        expect_error(C_CTYPE, label, "POST", "/v1/rank", types[i], base_rank.compact,
                     strlen(base_rank.compact), NULL, 415);
    }
    const char *multipart = "--xyz\r\nContent-Disposition: form-data; name=\"k\"\r\n\r\n{}\r\n"
                            "--xyz--\r\n";
    expect_error(C_CTYPE, "a real multipart body", "POST", "/v1/estimate",
                 "multipart/form-data; boundary=xyz", multipart, strlen(multipart), NULL, 415);
}

static void cases_methods(void)
{
    static const char *const methods[] = {"PUT",   "DELETE",   "PATCH", "OPTIONS",
                                          "TRACE", "GET",      "HEAD",  "BREW",
                                          "post",  "PROPFIND", "POSTX", "M-SEARCH"};
    static const char *const body_paths[] = {"/v1/estimate", "/v1/rank"};
    for (size_t p = 0; p < 2; p++)
        for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
            char label[96];
            snprintf(label, sizeof label, "%s %s", methods[i], body_paths[p]);
            expect_error(C_METHOD, label, methods[i], body_paths[p], "application/json",
                         base2.compact, strlen(base2.compact), NULL, 405);
        }
    static const char *const get_paths[] = {"/healthz",  "/v1/devices", "/v1/devices/K20m",
                                            "/v1/stats", "/",           "/web/app.js"};
    static const char *const not_get[] = {"POST", "PUT", "DELETE", "PATCH", "get"};
    for (size_t p = 0; p < sizeof get_paths / sizeof get_paths[0]; p++)
        for (size_t i = 0; i < sizeof not_get / sizeof not_get[0]; i++) {
            char label[96];
            snprintf(label, sizeof label, "%s %s", not_get[i], get_paths[p]);
            expect_error(C_METHOD, label, not_get[i], get_paths[p], "application/json", "{}", 2,
                         NULL, 405);
        }
}

static void cases_paths(void)
{
    static const char *const paths[] = {
        "/web/", /* GET / is the web calculator, /web/{file} its files */
        "/web/a/b",
        "/web/%2e%2e%2fREADME.md",
        "/v1",
        "/v1/",
        "/v1/estimate/",
        "/v1/estimatex",
        "/V1/ESTIMATE",
        "//v1/estimate",
        "/v1//estimate",
        "/v1/./estimate",
        "/v1/../v1/estimate",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/v1/devices/",
        "/v1/devices/a/b",
        "/v1/devices/NoSuchGPU",
        "/healthz/",
        "/healthz/x",
        "/v1/stats/",
        "/v2/estimate",
        "*",
        "estimate",
        "/v1/rank;x",
        "/%ff",
        "/\xc3\xa9",
        "http://127.0.0.1/v1/estimatex",
        "/v1/devices/..",
        "/.git/config",
        "/v1/rank/",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char label[128];
        snprintf(label, sizeof label, "GET %s", paths[i]);
        expect_error(C_PATH, label, "GET", paths[i], NULL, NULL, 0, NULL, 404);
        snprintf(label, sizeof label, "POST %s", paths[i]);
        if (strncmp(paths[i], "/v1/devices/", 12) != 0 || !strcmp(paths[i], "/v1/devices/") ||
            strchr(paths[i] + 12, '/'))
            expect_error(C_PATH, label, "POST", paths[i], "application/json", "{}", 2, NULL,
                         404);
    }
    /* Random paths from the PRNG (printable ASCII, never a route). */
    for (int i = 0; i < 30; i++) {
        char path[80];
        size_t n = 2 + rng_below(60);
        path[0] = '/';
        for (size_t k = 1; k < n; k++) {
            char c;
            do
                c = (char)(0x21 + rng_below(0x7e - 0x21 + 1));
            while (c == '?' || c == '#' || c == '%');
            path[k] = c;
        }
        path[n] = '\0';
        char label[128];
        snprintf(label, sizeof label, "GET random path %s", path);
        expect_error(C_PATH, label, "GET", path, NULL, NULL, 0, NULL, 404);
    }
}

static void cases_long(void)
{
    static const size_t lengths[] = {1024, 8192, 16384, 32768, 60000};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        buf path = {0};
        buf_puts(&path, "/v1/");
        buf_repeat(&path, "a", lengths[i]);
        char label[96];
        snprintf(label, sizeof label, "GET of a %zu-byte path", path.n);
        expect_error(C_LONG, label, "GET", path.p, NULL, NULL, 0, NULL, 404);
        snprintf(label, sizeof label, "POST of a %zu-byte path", path.n);
        expect_error(C_LONG, label, "POST", path.p, "application/json", "{}", 2, NULL, 404);
        buf_free(&path);

        buf extra = {0};
        buf_puts(&extra, "X-Long: ");
        buf_repeat(&extra, "b", lengths[i]);
        buf_puts(&extra, "\r\n");
        snprintf(label, sizeof label, "a %zu-byte header value on a 404", lengths[i]);
        expect_error(C_LONG, label, "GET", "/nope", NULL, NULL, 0, extra.p, 404);
        snprintf(label, sizeof label, "a %zu-byte header value on a bad estimate", lengths[i]);
        expect_error(C_LONG, label, "POST", "/v1/estimate", "application/json", "{}", 2,
                     extra.p, 400);
        buf_free(&extra);

        buf ct = {0};
        buf_puts(&ct, "application/json; charset=");
        buf_repeat(&ct, "c", lengths[i]);
        snprintf(label, sizeof label, "a %zu-byte Content-Type parameter", lengths[i]);
        expect_error(C_LONG, label, "POST", "/v1/estimate", ct.p, "[]", 2, NULL, 400);
        buf_free(&ct);
    }
}

/* Sends n bytes of body in chunked encoding, chunk by chunk. */
static void chunked_request(buf *out, const char *path, size_t n)
{
    buf_puts(out, "POST ");
    buf_puts(out, path);
    buf_printf(out,
               " HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n"
               "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
               daemon_.port);
    static char chunk[60000];
    memset(chunk, ' ', sizeof chunk);
    for (size_t sent = 0; sent < n;) {
        size_t k = n - sent < sizeof chunk ? n - sent : sizeof chunk;
        buf_printf(out, "%zx\r\n", k);
        buf_add(out, chunk, k);
        buf_puts(out, "\r\n");
        sent += k;
    }
    buf_puts(out, "0\r\n\r\n");
}

static void cases_oversized(void)
{
    static const size_t sizes[] = {MAX_BODY + 1, MAX_BODY + 4096, 2 * MAX_BODY};
    for (size_t i = 0; i < 3; i++) {
        /* A valid request padded with blanks past the limit: only the size is wrong. */
        buf body = {0};
        buf_puts(&body, base2.compact);
        buf_repeat(&body, " ", sizes[i] - body.n);
        char label[96];
        snprintf(label, sizeof label, "%zu-byte body with Content-Length", sizes[i]);
        post_error(C_OVERSIZED, label, "/v1/estimate", body.p, body.n, 413);
        post_error(C_OVERSIZED, label, "/v1/rank", body.p, body.n, 413);
        buf_free(&body);
        buf req = {0};
        chunked_request(&req, "/v1/estimate", sizes[i]);
        snprintf(label, sizeof label, "%zu-byte chunked body", sizes[i]);
        expect_error_raw(C_OVERSIZED, label, req.p, req.n, 0, 413);
        buf_free(&req);
    }
    static const char *const announced[] = {"1048577", "1000000000000000",
                                            "18446744073709551615", "4294967296"};
    for (size_t i = 0; i < 4; i++) {
        buf req = {0};
        buf_printf(&req,
                   "POST /v1/estimate HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n"
                   "Content-Type: application/json\r\nContent-Length: ",
                   daemon_.port);
        buf_puts(&req, announced[i]);
        buf_puts(&req, "\r\n\r\n{\"device\":");
        char label[96];
        snprintf(label, sizeof label, "Content-Length %s, 11 bytes sent", announced[i]);
        expect_error_raw(C_OVERSIZED, label, req.p, req.n, 0, 413);
        buf_free(&req);
    }
}

/* req (len bytes) into out, its "Host: x" line, if any, naming the daemon
 * (127.0.0.1:PORT) instead: the tables of requests below are written before the port
 * is known, and a request of another Host would be refused (403) before the framing
 * or stalling it is about mattered. */
static void with_daemon_host(buf *out, const char *req, size_t len)
{
    static const char placeholder[] = "Host: x\r\n";
    const char *at = strstr(req, placeholder); /* the Host line precedes any NUL */
    if (!at || (size_t)(at - req) >= len) {
        buf_add(out, req, len);
        return;
    }
    buf_add(out, req, (size_t)(at - req));
    buf_printf(out, "Host: 127.0.0.1:%u\r\n", daemon_.port);
    size_t done = (size_t)(at - req) + sizeof placeholder - 1;
    buf_add(out, req + done, len - done);
}

/* Framing errors: libmicrohttpd answers them itself (HTML body) or closes; what
 * matters is a 4xx (505 for a version it does not speak), the connection closed, and
 * the daemon unharmed. */
static void cases_framing(void)
{
    static const struct {
        const char *label, *req;
        int allow_505;
    } cases[] = {
        {"garbage request line", "GARBAGE\r\n\r\n", 0},
        {"HTTP/2.0", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 1},
        {"HTTP/9.9", "GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n", 1},
        {"HTTP/1.1 without Host", "GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n", 0},
        {"Content-Length abc",
         "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 0},
        {"Content-Length -1",
         "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 0},
        {"Content-Length past 2^64",
         "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n"
         "\r\n",
         0},
        {"two Content-Lengths",
         "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: "
         "6\r\n\r\n"
         "{}",
         0},
        {"Transfer-Encoding gzip",
         "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n{}", 0},
        {"bad chunk size",
         "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
         0},
        {"chunk size past 2^64",
         "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
         "fffffffffffffffffff\r\n",
         0},
        {"header line without a colon",
         "GET /healthz HTTP/1.1\r\nHost: x\r\nbad header line\r\n\r\n", 0},
        {"NUL in a header", "GET /nope HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n", 0},
        {"space before the colon", "GET /nope HTTP/1.1\r\nHost: x\r\nX-A : b\r\n\r\n", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!alive())
            return;
        size_t len = strlen(cases[i].req);
        if (strstr(cases[i].label, "NUL"))
            len += strlen(cases[i].req + len + 1) + 1; /* the NUL and what follows it */
        buf framed = {0};
        with_daemon_host(&framed, cases[i].req, len);
        const char *req = framed.p;
        len = framed.n;
        http_resp r;
        cats[C_FRAMING].sent++;
        http_exchange(daemon_.port, req, len, 0, 5.0, &r);
        int ok = (r.status >= 400 && r.status <= 499) ||
                 (cases[i].allow_505 && r.status == 505) || (!r.status && r.closed);
        if (!ok)
            fail_case(C_FRAMING, cases[i].label, req, len, &r,
                      "neither a 4xx nor a closed connection");
        http_resp_free(&r);
        buf_free(&framed);
        scan_log(cases[i].label);
    }
    /* Past the 64 KiB of connection memory: MHD answers 414 or 431 itself, or (query
     * arguments) says nothing and closes at --timeout. */
    enum { LONG_PATH, LONG_HEADER, MANY_HEADERS, MANY_ARGS, BIG_COUNT };
    static const char *const big_labels[] = {"70000-byte path", "70000-byte header value",
                                             "1000 header lines", "3000 query arguments"};
    for (int i = 0; i < BIG_COUNT; i++) {
        buf path = {0}, extra = {0}, req = {0};
        buf_puts(&path, "/nope");
        if (i == LONG_PATH)
            buf_repeat(&path, "a", 70000);
        for (int k = 0; i == MANY_ARGS && k < 3000; k++)
            buf_printf(&path, "%ck%d=v", k ? '&' : '?', k);
        if (i == LONG_HEADER) {
            buf_puts(&extra, "X-Long: ");
            buf_repeat(&extra, "b", 70000);
            buf_puts(&extra, "\r\n");
        }
        for (int k = 0; i == MANY_HEADERS && k < 1000; k++)
            buf_printf(&extra, "X-H%d: v\r\n", k);
        http_build_request(&req, daemon_.port, "GET", path.p, NULL, NULL, 0, extra.p);
        http_resp r;
        cats[C_FRAMING].sent++;
        http_exchange(daemon_.port, req.p, req.n, 0, IDLE_TIMEOUT_S + 3.0, &r);
        if (!(r.status >= 400 && r.status <= 499) && !(!r.status && r.closed))
            fail_case(C_FRAMING, big_labels[i], req.p, req.n, &r,
                      "neither a 4xx nor a closed connection");
        http_resp_free(&r);
        buf_free(&req);
        buf_free(&path);
        buf_free(&extra);
        scan_log(big_labels[i]);
    }
}

/* ---- slow clients ------------------------------------------------------------------------ */

/* Stalled connections (each sent part of a request and then nothing) must not stop
 * other clients from being served, and must be closed once --timeout has passed. */
static void cases_slow(void)
{
    static const char *const partial[] = {
        "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Ty",
        "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 1000\r\n\r\n{\"device\":\"K20m\",\"kernel\":",
        "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 1048576\r\n\r\n[",
        "POST /v1/rank HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"dev",
        "GET /healthz HTTP/1.1\r\nHo",
        "G",
        "", /* connects and says nothing */
    };
    enum { PER_KIND = 3, N = PER_KIND * (int)(sizeof partial / sizeof partial[0]) };
    int fds[N];
    double closed_at[N];
    double t0 = hz_now();
    for (int i = 0; i < N; i++) {
        fds[i] = http_connect(daemon_.port);
        closed_at[i] = 0;
        buf p = {0};
        with_daemon_host(&p, partial[i / PER_KIND], strlen(partial[i / PER_KIND]));
        if (fds[i] >= 0 && p.n)
            send(fds[i], p.p, p.n, MSG_NOSIGNAL);
        buf_free(&p);
        cats[C_SLOW].sent++;
    }
    /* Meanwhile everybody else is served, and promptly. */
    for (int i = 0; i < 12; i++) {
        if (!alive())
            break;
        http_resp r;
        buf req = {0};
        const char *what;
        int want;
        if (i % 3 == 0) {
            http_build_request(&req, daemon_.port, "GET", "/healthz", NULL, NULL, 0, NULL);
            what = "GET /healthz while clients stall", want = 200;
        } else if (i % 3 == 1) {
            http_build_request(&req, daemon_.port, "POST", "/v1/estimate", "application/json",
                               base3.compact, strlen(base3.compact), NULL);
            what = "valid estimate while clients stall", want = 200;
        } else {
            http_build_request(&req, daemon_.port, "POST", "/v1/estimate", "application/json",
                               "{\"device\":1}", 12, NULL);
            what = "bad estimate while clients stall", want = 400;
        }
        http_exchange(daemon_.port, req.p, req.n, 0, IDLE_TIMEOUT_S, &r);
        cats[C_SLOW].sent++;
        if (r.status != want)
            fail_case(C_SLOW, what, req.p, req.n, &r, "not answered within --timeout");
        http_resp_free(&r);
        buf_free(&req);
        scan_log(what);
    }
    /* Then each stalled connection is closed: EOF or reset, with at most an error
     * answer before it. */
    double deadline = t0 + IDLE_TIMEOUT_S + 4.0;
    int open_left = 0;
    for (int i = 0; i < N; i++)
        open_left += fds[i] >= 0;
    buf got[N];
    memset(got, 0, sizeof got);
    while (open_left > 0 && hz_now() < deadline) {
        struct pollfd p[N];
        for (int i = 0; i < N; i++)
            p[i] = (struct pollfd){closed_at[i] == 0 ? fds[i] : -1, POLLIN, 0};
        poll(p, N, 50);
        for (int i = 0; i < N; i++) {
            if (fds[i] < 0 || closed_at[i] != 0 ||
                !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char chunk[4096];
            ssize_t k = recv(fds[i], chunk, sizeof chunk, 0);
            if (k > 0) {
                buf_add(&got[i], chunk, (size_t)k);
            } else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
                closed_at[i] = hz_now() - t0;
                open_left--;
            }
        }
    }
    for (int i = 0; i < N; i++) {
        char label[96];
        snprintf(label, sizeof label, "stalled client #%d (sent %zu bytes)", i,
                 strlen(partial[i / PER_KIND]));
        http_resp r = {0};
        r.seconds = closed_at[i];
        if (fds[i] < 0) {
            fail_case(C_SLOW, label, "", 0, &r, "could not connect");
            continue;
        }
        if (closed_at[i] == 0) {
            fail_case(C_SLOW, label, partial[i / PER_KIND], strlen(partial[i / PER_KIND]), &r,
                      "still open well after --timeout");
        } else if (closed_at[i] < IDLE_TIMEOUT_S - 0.5) {
            fail_case(C_SLOW, label, partial[i / PER_KIND], strlen(partial[i / PER_KIND]), &r,
                      "closed before --timeout");
        } else if (got[i].n) {
            /* Something was said before closing: it must be a proper error. */
            if (http_parse_response(&got[i], 0, 1, &r)) {
                const char *why = hz_error_shape_problem(&r, 0);
                if (why)
                    fail_case(C_SLOW, label, partial[i / PER_KIND],
                              strlen(partial[i / PER_KIND]), &r, why);
            } else {
                fail_case(C_SLOW, label, got[i].p, got[i].n, &r, "a partial answer");
            }
        }
        http_resp_free(&r);
        buf_free(&got[i]);
        close(fds[i]);
    }
    scan_log("slow clients");
}

/* Issue 10, item 7: every control byte, raw, inside each kind of string (device name,
 * field name, expression) and in a key: cJSON took them, and a NUL cut the string
 * ("x+1<NUL>*y*y" was estimated as "x+1"). Now 400 invalid_json with the path. */
static void cases_control_bytes(void)
{
    static const struct {
        const char *path, *raw;
    } places[] = {
        {"device", "\"A100-SXM4-@80GB\""},
        {"kernel.fields[0].name", "\"A@\""},
        {"kernel.fields[1].loads", "[[\"x+1@*y*y\",\"y\"]]"},
        {"kernel.fields[0].loads[2][1]", "\"y@\""},
    };
    static const char *const want_path[] = {"device", "kernel.fields[0].name",
                                            "kernel.fields[1].loads[0][0]",
                                            "kernel.fields[0].loads[2][1]"};
    for (size_t p = 0; p < sizeof places / sizeof places[0]; p++)
        for (int b = 0; b < 0x20; b++) {
            char *body = hz_json_with_raw(base2.doc, places[p].path, places[p].raw);
            size_t len = strlen(body);
            *strchr(body, '@') = (char)b;
            char label[128];
            snprintf(label, sizeof label, "byte 0x%02x in %s", b, want_path[p]);
            expect_error_at(C_CONTROL, label, body, len, 400, "invalid_json", want_path[p]);
            cJSON_free(body);
        }
    /* In a key, and between values (cJSON skipped them as white space). */
    for (int b = 0; b < 0x20; b++) {
        char label[96];
        char *body = hz_replace_once(base2.compact, "\"flops\"", "\"fl@ops\"");
        size_t len = strlen(body);
        *strchr(body, '@') = (char)b;
        snprintf(label, sizeof label, "byte 0x%02x in the key flops", b);
        char path[32];
        snprintf(path, sizeof path, "kernel.fl%cops", b); /* "kernel.fl" for a NUL */
        expect_error_at(C_CONTROL, label, body, len, 400, "invalid_json", path);
        free(body);
        if (b == '\t' || b == '\n' || b == '\r')
            continue; /* JSON white space */
        body = hz_replace_once(base2.compact, ",\"domain\"", ",@\"domain\"");
        len = strlen(body);
        *strchr(body, '@') = (char)b;
        snprintf(label, sizeof label, "byte 0x%02x between values", b);
        expect_error_at(C_CONTROL, label, body, len, 400, "invalid_json", "");
        free(body);
    }
}

/* Issue 10, item 9: a key given twice, at every level; the first one used to win
 * silently. Now 400 invalid_request with the path of the key. */
static void cases_repeated_keys(void)
{
    static const struct {
        const char *from, *to, *path;
    } cases[] = {
        {"\"device\":", "\"device\":\"K20m\",\"device\":", "device"},
        {"\"domain\":", "\"domain\":[1],\"domain\":", "domain"},
        {"\"model\":", "\"model\":\"v2\",\"model\":", "model"},
        {"\"flops\":", "\"flops\":1,\"flops\":", "kernel.flops"},
        {"\"fields\":", "\"fields\":[],\"fields\":", "kernel.fields"},
        {"\"dims\":", "\"dims\":[1],\"dims\":", "kernel.fields[0].dims"},
        {"\"name\":\"B\"", "\"name\":\"C\",\"name\":\"B\"", "kernel.fields[1].name"},
        {"\"block\":", "\"block\":[1],\"block\":", "launch.block"},
        {"\"launch\":{", "\"launch\":{\"folding\":[1],\"folding\":[1],", "launch.folding"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *body = hz_replace_once(base2.compact, cases[i].from, cases[i].to);
        char label[96];
        snprintf(label, sizeof label, "%s twice", cases[i].path);
        expect_error_at(C_REPEATED, label, body, strlen(body), 400, "invalid_request",
                        cases[i].path);
        free(body);
    }
    /* A large object (sorted, not compared pairwise) with one key twice. */
    buf big = {0};
    buf_puts(&big, "{\"x\":{");
    for (int i = 0; i < 5000; i++) {
        char kv[32];
        snprintf(kv, sizeof kv, "%s\"k%d\":%d", i ? "," : "", i, i);
        buf_puts(&big, kv);
    }
    buf_puts(&big, ",\"k4321\":0}}");
    expect_error_at(C_REPEATED, "one of 5001 keys twice", big.p, big.n, 400, "invalid_request",
                    "x.k4321");
    buf_free(&big);
}

/* Issue 10, item 8: web pages of other origins, and POSTs without a type (which a
 * page may send without asking the browser), are refused before anything runs; and
 * the header values echoed in those errors are shown as ASCII (item 5). */
static void cases_origins(void)
{
    static const char *const origins[] = {"http://evil.example",
                                          "null",
                                          "http://127.0.0.1",
                                          "http://localhost:8080",
                                          "https://127.0.0.1",
                                          "http://127.0.0.1:1",
                                          "file://",
                                          "http://\xc3\xa9.example",
                                          "\xff\xfe",
                                          "http://127.0.0.1:8080/x"};
    static const char *const paths[] = {"/v1/estimate", "/v1/rank",    "/healthz",
                                        "/v1/stats",    "/v1/devices", "/v1/devices/K20m",
                                        "/nope"};
    for (size_t i = 0; i < sizeof origins / sizeof origins[0]; i++)
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            char extra[128], label[160];
            snprintf(extra, sizeof extra, "Origin: %s\r\n", origins[i]);
            snprintf(label, sizeof label, "Origin '%s' on %s", origins[i], paths[p]);
            int post = p < 2;
            expect_error(C_ORIGIN, label, post ? "POST" : "GET", paths[p],
                         post ? "text/plain" : NULL, post ? base2.compact : NULL,
                         post ? strlen(base2.compact) : 0, extra, 403);
        }
    expect_error(C_ORIGIN, "estimate without Content-Type", "POST", "/v1/estimate", NULL,
                 base2.compact, strlen(base2.compact), NULL, 415);
    expect_error(C_ORIGIN, "rank without Content-Type", "POST", "/v1/rank", NULL,
                 base_rank.compact, strlen(base_rank.compact), NULL, 415);
    static const char *const types[] = {"text/\xff\xfe", "application/json\xc3", "\xe2\x82",
                                        "text/plain; q=\xc3\xa9\xc3"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        expect_error(C_ORIGIN, "a Content-Type that is not UTF-8", "POST", "/v1/estimate",
                     types[i], base2.compact, strlen(base2.compact), NULL, 415);
    static const char *const methods[] = {"AAAAAAAAAAAAAA\xc3\xa9", "P\xffST", "\xe2\x82\xac"};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        expect_error(C_ORIGIN, "a method that is not ASCII", methods[i], "/v1/estimate",
                     "application/json", "{}", 2, NULL, 0);
}

/* GET path with the Host header host must be answered 200. */
static void expect_host_served(const char *path, const char *host)
{
    buf req = {0}, label = {0};
    buf_printf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host);
    buf_printf(&label, "GET %s, Host %s", path, host);
    http_resp r;
    cats[C_HOST].sent++;
    http_exchange(daemon_.port, req.p, req.n, 0, ANSWER_TIMEOUT_S, &r);
    if (r.status != 200)
        fail_case(C_HOST, label.p, req.p, req.n, &r, "not served (200)");
    http_resp_free(&r);
    buf_free(&req);
    buf_free(&label);
}

/* Issue 10 (DNS rebinding): a request whose Host header names another server is
 * refused with 403 and a JSON error before anything runs, whatever its route, and the
 * value is shown as printable ASCII, cut: names, wrong ports, raw control and
 * non-UTF-8 bytes, a value of 60000 bytes. libmicrohttpd may refuse a header with
 * control bytes itself (a 4xx or a closed connection, as in cases_framing); GET
 * /healthz answers any Host (load balancers' health checks), and the daemon's own
 * names are served. */
static void cases_hosts(void)
{
    char port[16];
    snprintf(port, sizeof port, "%u", daemon_.port);
    buf long_host = {0};
    buf_repeat(&long_host, "h", 60000);
    const char *const hosts[] = {"evil.example",
                                 "evil.example:%s",
                                 "127.0.0.1",
                                 "127.0.0.1:1",
                                 "localhost",
                                 "[::1]:%s",
                                 "127.0.0.1:%s.evil.example",
                                 "127.0.0.1:%s@evil.example",
                                 "127.0.0.1:%s/",
                                 "",
                                 "127.0.0.1:%s\x01",
                                 "127.0.0.1\x7f:%s",
                                 "\x1b[31m127.0.0.1:%s",
                                 "127.0.0.1:\t%s",
                                 "\xff\xfe:%s",
                                 "\xc3\xa9.example:%s",
                                 long_host.p};
    static const char *const paths[] = {"/v1/estimate", "/v1/rank", "/v1/stats",
                                        "/v1/devices",  "/",        "/nope"};
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
        buf host = {0};
        if (hosts[i] == long_host.p)
            buf_puts(&host, long_host.p); /* past buf_printf's 511 bytes */
        else
            buf_printf(&host, hosts[i], port);
        buf_add(&host, "", 1); /* NUL-terminated, also when empty */
        host.n--;
        int raw_bytes = strcspn(host.p, "\x01\x7f\x1b\t") < host.n;
        for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
            int post = p < 2;
            const char *body = p == 0 ? base2.compact : base_rank.compact;
            buf req = {0}, label = {0};
            buf_printf(&req, "%s %s HTTP/1.1\r\nHost: ", post ? "POST" : "GET", paths[p]);
            buf_puts(&req, host.p);
            buf_puts(&req, "\r\nConnection: close\r\n");
            if (post)
                buf_printf(&req, "Content-Type: application/json\r\nContent-Length: %zu\r\n",
                           strlen(body));
            buf_puts(&req, "\r\n");
            if (post)
                buf_puts(&req, body);
            buf_printf(&label, "Host '%.40s' (%zu bytes) on %s", host.p, host.n, paths[p]);
            if (!raw_bytes) {
                expect_error_raw(C_HOST, label.p, req.p, req.n, 0, 403);
            } else if (alive()) { /* libmicrohttpd may refuse it first */
                http_resp r;
                cats[C_HOST].sent++;
                http_exchange(daemon_.port, req.p, req.n, 0, ANSWER_TIMEOUT_S, &r);
                const char *why =
                    r.status == 403 ? hz_error_shape_problem(&r, 403)
                    : (r.status >= 400 && r.status <= 499) || (!r.status && r.closed)
                        ? NULL
                        : "neither a 403 of ours, a 4xx nor a closed connection";
                if (why)
                    fail_case(C_HOST, label.p, req.p, req.n, &r, why);
                http_resp_free(&r);
                scan_log(label.p);
            }
            buf_free(&req);
            buf_free(&label);
        }
        buf_free(&host);
    }
    buf_free(&long_host);
    /* The daemon's own names: served, and /healthz whatever the name. */
    char host[64];
    snprintf(host, sizeof host, "localhost:%u", daemon_.port);
    expect_host_served("/v1/devices", host);
    expect_host_served("/healthz", "evil.example");
}

/* ---- main ----------------------------------------------------------------------------- */

static void run_cases(void)
{
    cases_truncated();
    cases_syntax();
    cases_wrong_types();
    cases_deep();
    cases_huge_arrays();
    cases_literals();
    cases_huge_sizes();
    cases_negative();
    cases_blocks();
    cases_unicode();
    cases_expressions();
    cases_empty();
    cases_content_types();
    cases_methods();
    cases_paths();
    cases_long();
    cases_oversized();
    cases_framing();
    cases_control_bytes();
    cases_repeated_keys();
    cases_origins();
    cases_hosts();
    cases_slow();
}

/* After the barrage: still healthy, and no request was counted as an internal error. */
static void check_still_serving(void)
{
    if (!alive())
        return;
    http_resp r;
    buf req = {0};
    http_build_request(&req, daemon_.port, "GET", "/healthz", NULL, NULL, 0, NULL);
    http_exchange(daemon_.port, req.p, req.n, 0, ANSWER_TIMEOUT_S, &r);
    CHECK_INT(r.status, 200);
    CHECK(r.body && strstr(r.body, "\"status\":\"ok\""));
    http_resp_free(&r);
    buf_free(&req);

    http_build_request(&req, daemon_.port, "GET", "/v1/stats", NULL, NULL, 0, NULL);
    http_exchange(daemon_.port, req.p, req.n, 0, ANSWER_TIMEOUT_S, &r);
    CHECK_INT(r.status, 200);
    cJSON *doc = r.body ? cJSON_Parse(r.body) : NULL;
    const cJSON *errors = cJSON_GetObjectItemCaseSensitive(doc, "errors");
    const cJSON *internal = cJSON_GetObjectItemCaseSensitive(errors, "internal");
    const cJSON *oom = cJSON_GetObjectItemCaseSensitive(errors, "out_of_memory");
    CHECK(cJSON_IsNumber(internal) && internal->valuedouble == 0);
    CHECK(cJSON_IsNumber(oom) && oom->valuedouble == 0);
    cJSON_Delete(doc);
    http_resp_free(&r);
    buf_free(&req);
    scan_log("final /healthz and /v1/stats");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH-TO-launchrank\n", argv[0]);
        return 2;
    }
    alarm(TEST_DEADLINE_S);
    signal(SIGPIPE, SIG_IGN);
    verbose = getenv("LR_HOSTILE_VERBOSE") != NULL;
    if (load_base(&base2, "2-D", "ref2_2d5pt_a100_80gb.json") ||
        load_base(&base3, "3-D", "su_k20_7pt.json")) {
        fprintf(stderr, "cannot load the requests of %s\n", data_dir);
        return 1;
    }
    /* A ranking with one block: the base of the /v1/rank cases. */
    base_rank.name = "rank";
    base_rank.doc = cJSON_Duplicate(base2.doc, 1);
    cJSON_DeleteItemFromObject(base_rank.doc, "launch");
    cJSON *search = cJSON_AddObjectToObject(base_rank.doc, "search");
    cJSON_AddItemToObject(search, "blocks", cJSON_Parse("[[32,4,1]]"));
    base_rank.compact = cJSON_PrintUnformatted(base_rank.doc);
    base_rank.pretty = cJSON_Print(base_rank.doc);

    if (hz_daemon_start(&daemon_, argv[1], IDLE_TIMEOUT_TEXT)) {
        fprintf(stderr, "the daemon %s did not start; its stderr:\n", argv[1]);
        char *log = hz_read_file(daemon_.log, NULL);
        fprintf(stderr, "%s\n", log ? log : "(none)");
        free(log);
        return 1;
    }
    double t0 = hz_now();

    /* Positive controls: the requests every case is derived from are valid. */
    expect_ok("2-D estimate", "POST", "/v1/estimate", base2.compact);
    expect_ok("3-D estimate", "POST", "/v1/estimate", base3.compact);
    expect_ok("rank of one block", "POST", "/v1/rank", base_rank.compact);
    expect_ok("GET /healthz", "GET", "/healthz", NULL);
    /* ... and so are they after the mutation helpers put the same values back. */
    char *same = hz_json_with_raw(base2.doc, "kernel.fields[0].name", "\"A\"");
    expect_ok("2-D estimate, name rewritten", "POST", "/v1/estimate", same);
    cJSON_free(same);
    same = hz_json_with_raw(base3.doc, "kernel.fields[1].stores[0][1]", "\"y+1\"");
    expect_ok("3-D estimate, store rewritten", "POST", "/v1/estimate", same);
    cJSON_free(same);
    same = hz_json_with_raw(base_rank.doc, "search.blocks", "[[32,4,1]]");
    expect_ok("rank, blocks rewritten", "POST", "/v1/rank", same);
    cJSON_free(same);

    run_cases();
    check_still_serving();

    int status = daemon_died ? 0 : hz_daemon_stop(&daemon_);
    if (daemon_died) {
        /* reported when it was found dead */
    } else if (status == -1) {
        check_failures++;
        fprintf(stderr, "FAIL: the daemon did not stop within 45 s of SIGTERM\n");
    } else {
        CHECK(WIFEXITED(status));
        if (WIFEXITED(status))
            CHECK_INT(WEXITSTATUS(status), 0);
        else
            fprintf(stderr, "FAIL: the daemon ended by signal %d\n", WTERMSIG(status));
    }
    scan_log("shutdown (leaks are reported at exit)");
    char *log = hz_read_file(daemon_.log, NULL);
    CHECK(!hz_has_sanitizer_report(log));
    free(log);

    int total = 0, failed = 0;
    fprintf(stderr, "\n%-55s %6s %6s\n", "category", "sent", "failed");
    for (int c = 0; c < C_COUNT; c++) {
        fprintf(stderr, "%-55s %6d %6d\n", cats[c].name, cats[c].sent, cats[c].failed);
        total += cats[c].sent;
        failed += cats[c].failed;
        check_count += cats[c].sent;
    }
    fprintf(stderr, "%-55s %6d %6d   (%.1f s)\n", "total", total, failed, hz_now() - t0);
    CHECK(total >= 200);

    if (!check_failures)
        hz_daemon_cleanup(&daemon_);
    else
        fprintf(stderr, "the daemon's stderr is in %s\n", daemon_.log);
    free_base(&base2);
    free_base(&base3);
    free_base(&base_rank);
    return check_report("test_hostile");
}
