/*
 * test_gathers: issue 45, items 1 and 2. A kernel that reads through an index field
 * (Langguth et al.'s finite-volume kernel on an unstructured mesh: a cell, its four
 * neighbours nbr(j, x), four weights, one store) is estimated from the actual indices,
 * and every bad index field gets a 4xx naming the offending value.
 *
 * The volumes asserted are derived by hand (in B/Lup, fp64 u, w and out, int32 nbr):
 * each cell loads its own u (8 B), w's four weights (32 B), nbr's four indices (16 B)
 * and stores out (8 B); when every neighbour lies in the cell's own block of 32 cells
 * (Langguth's diagonal blocks, b = 32, blocks of 256 threads), the gathers touch no
 * sector the block does not load anyway, so L2 loads and DRAM loads are the
 * compulsory 56 B/Lup and stores 8 (Langguth's "56 B read + 8 B written").
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "check.h"
#include "request.h"

#define N 8192

static uint64_t rng = 1;
static uint64_t next_random(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The neighbours of cell x: random inside its block of b cells (b = 0: itself). */
static void neighbours(int32_t *nbr, int n, int b)
{
    rng = 1;
    for (int x = 0; x < n; x++)
        for (int j = 0; j < 4; j++)
            nbr[4 * x + j] = b ? (int32_t)(x / b * b + (int)(next_random() % (uint64_t)b)) : x;
}

/* The request body (caller frees): values is the nbr field's "values" text, extra is
 * spliced into the kernel's first field (e.g. another load), launch the tail. */
static char *body_of(int n, const char *values, const char *u_loads, const char *device,
                     const char *tail)
{
    size_t cap = strlen(values) + 4096;
    char *s = malloc(cap);
    snprintf(s, cap,
             "{\"device\":\"%s\",\"domain\":[%d,1,1],\"kernel\":{\"registers\":32,\"flops\":11,"
             "\"fields\":["
             "{\"name\":\"u\",\"dims\":[%d],\"loads\":%s},"
             "{\"name\":\"w\",\"dims\":[4,%d],\"loads\":[[\"0\",\"x\"],[\"1\",\"x\"],"
             "[\"2\",\"x\"],[\"3\",\"x\"]]},"
             "{\"name\":\"nbr\",\"dims\":[4,%d],\"integer\":true,\"values\":%s,"
             "\"loads\":[[\"0\",\"x\"],[\"1\",\"x\"],[\"2\",\"x\"],[\"3\",\"x\"]]},"
             "{\"name\":\"out\",\"dims\":[%d],\"stores\":[[\"x\"]]}]},%s}",
             device, n, n, u_loads, n, n, values, n, tail);
    return s;
}

#define U_LOADS "[[\"x\"],[\"nbr(0, x)\"],[\"nbr(1, x)\"],[\"nbr(2, x)\"],[\"nbr(3, x)\"]]"

/* "{"data":[...]}" of the values (caller frees). */
static char *inline_values(const int32_t *v, int count)
{
    char *s = malloc((size_t)count * 12 + 32), *o = s;
    if (!s)
        abort();
    o += sprintf(o, "{\"data\":[");
    for (int i = 0; i < count; i++)
        o += sprintf(o, "%s%d", i ? "," : "", v[i]);
    sprintf(o, "]}");
    return s;
}

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
    return cJSON_IsNumber(x) ? x->valuedouble : -1;
}

static cJSON *estimate(lr_worker *w, const char *body)
{
    lr_error err;
    lr_error_clear(&err);
    char *out = lr_api_estimate(w, body, strlen(body), &err);
    if (!out) {
        fprintf(stderr, "refused: %s at %s\n", err.message, err.path);
        return NULL;
    }
    cJSON *o = cJSON_Parse(out);
    free(out);
    return o;
}

/* The refusal of body: its code, path and a piece of its message. */
static void refused(lr_worker *w, const char *body, lr_code code, const char *path,
                    const char *msg)
{
    lr_error err;
    lr_error_clear(&err);
    char *out = lr_api_estimate(w, body, strlen(body), &err);
    CHECK(out == NULL);
    free(out);
    CHECK_INT(err.code, code);
    CHECK_STR(err.path, path);
    if (!strstr(err.message, msg)) {
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err.message, msg);
        CHECK(0);
    }
}

static void volumes_of_diagonal_blocks(lr_worker *w, const int32_t *nbr)
{
    char *v = inline_values(nbr, 4 * N);
    char *body = body_of(N, v, U_LOADS, "H200-SXM-141GB", "\"launch\":{\"block\":[256,1,1]}");
    cJSON *o = estimate(w, body);
    CHECK(o != NULL);
    if (o) {
        CHECK_NEAR(num(o, "estimate", "dram_load"), 56, 0.001, 0);
        CHECK_NEAR(num(o, "estimate", "dram_store"), 8, 0.001, 0);
        CHECK_NEAR(num(o, "estimate", "l2_load_compulsory"), 56, 0.001, 0);
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "fields");
        CHECK_NEAR(num(f, "u", "dram_load"), 8, 0.001, 0);
        CHECK_NEAR(num(f, "nbr", "dram_load"), 16, 0.001, 0);
        /* the gathers' L1 requests: each warp's 32 cells read their neighbours among the
         * same 32 cells (8 sectors of doubles), so a gather asks for at most 8 sectors,
         * 8 B/Lup; the own load exactly 8 */
        double l1 = num(f, "u", "l1_load");
        CHECK(l1 > 8 + 4 * 4 && l1 <= 8 + 4 * 8 + 1e-9);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                      cJSON_GetObjectItem(o, "performance"), "limiter")),
                  "dram");
    }
    cJSON_Delete(o);
    free(body);
    free(v);
}

/* Every neighbour the cell itself: the gathers are coalesced like the own load. */
static void self_neighbours(lr_worker *w, int32_t *nbr)
{
    neighbours(nbr, N, 0);
    char *v = inline_values(nbr, 4 * N);
    char *body = body_of(N, v, U_LOADS, "H200-SXM-141GB", "\"launch\":{\"block\":[128,1,1]}");
    cJSON *o = estimate(w, body);
    CHECK(o != NULL);
    if (o) {
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "fields");
        CHECK_NEAR(num(f, "u", "l1_load"), 5 * 8, 1e-9, 0);
        CHECK_NEAR(num(f, "u", "l2_load_compulsory"), 8, 1e-9, 0);
    }
    cJSON_Delete(o);
    free(body);
    free(v);
}

/* A fully random mesh on the K20 (1.25 MiB of L2): u is 256 Ki cells x 8 B = 2 MiB, so
 * at most 1.25 / 2 of the gathers' sectors can still be in L2 (less: the streams share
 * it), and each miss costs a 32-B sector for an 8-B value: the DRAM loads lie between
 * 56 + 4 x 32 x (1 - 1.25 / 2) = 104 and 56 + 4 x 32 = 184 B/Lup. */
static void random_mesh_misses(lr_worker *w)
{
    int n = 1 << 18;
    int32_t *nbr = malloc((size_t)n * 16);
    neighbours(nbr, n, n);
    char path[] = "/tmp/lr_gather_XXXXXX", v[128];
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, nbr, (size_t)n * 16) == (ssize_t)n * 16);
    close(fd);
    snprintf(v, sizeof v, "{\"file\":\"%s\"}", path);
    char *body = body_of(n, v, U_LOADS, "K20m", "\"launch\":{\"block\":[128,1,1]}");
    cJSON *o = estimate(w, body);
    CHECK(o != NULL);
    double dram = o ? num(o, "estimate", "dram_load") : -1;
    CHECK(dram >= 104 && dram <= 184 + 1e-9);
    cJSON_Delete(o);
    free(body);
    unlink(path);
    free(nbr);
}

/* The same values inline and from a file are the same request (one cache key). */
static void file_and_inline_are_one_request(lr_api *api, const int32_t *nbr)
{
    char path[] = "/tmp/lr_gather_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, nbr, (size_t)N * 16) == (ssize_t)N * 16);
    close(fd);
    char fv[128];
    snprintf(fv, sizeof fv, "{\"file\":\"%s\",\"format\":\"int32-le\"}", path);
    char *v = inline_values(nbr, 4 * N);
    char *a = body_of(N, v, U_LOADS, "H200-SXM-141GB", "\"launch\":{\"block\":[256,1,1]}");
    char *b = body_of(N, fv, U_LOADS, "H200-SXM-141GB", "\"launch\":{\"block\":[256,1,1]}");
    lr_request ra, rb;
    lr_error err;
    lr_error_clear(&err);
    int ok_a = lr_request_parse_local(lr_api_device_list(api), a, strlen(a), LR_REQ_ESTIMATE, 1,
                                      &ra, &err) == 0;
    int ok_b = lr_request_parse_local(lr_api_device_list(api), b, strlen(b), LR_REQ_ESTIMATE, 1,
                                      &rb, &err) == 0;
    CHECK(ok_a && ok_b);
    if (ok_a && ok_b) {
        CHECK_STR(ra.canonical, rb.canonical);
        CHECK(strstr(ra.canonical, "\"sha256\"") != NULL);
    }
    if (ok_a)
        lr_request_release(&ra);
    if (ok_b)
        lr_request_release(&rb);
    /* the daemon reads no file of its machine */
    lr_error_clear(&err);
    CHECK(lr_request_parse(lr_api_device_list(api), b, strlen(b), LR_REQ_ESTIMATE, &rb, &err) ==
          -1);
    CHECK_STR(err.path, "kernel.fields[2].values.file");
    CHECK(strstr(err.message, "reads no files") != NULL);
    /* a file of the wrong size */
    FILE *f = fopen(path, "wb");
    fwrite(nbr, 4, 5, f);
    fclose(f);
    lr_error_clear(&err);
    CHECK(lr_request_parse_local(lr_api_device_list(api), b, strlen(b), LR_REQ_ESTIMATE, 1, &rb,
                                 &err) == -1);
    CHECK_STR(err.path, "kernel.fields[2].values.file");
    CHECK(strstr(err.message, "has 20 bytes") != NULL);
    unlink(path);
    free(a);
    free(b);
    free(v);
}

/* A fake of the daemon's arrays (lr_arrays, request.h): one array under one name, and
 * the permutations a ranking keeps, counted. */
typedef struct fake_arrays {
    char sha256[65];
    const void *data;
    int64_t bytes;
    int width;
    int puts;          /* put calls */
    int64_t put_bytes; /* of the last one */
    char put_sha256[65];
} fake_arrays;

static int fake_get(void *user, const char *sha256, void **data, int64_t *bytes, int *width,
                    lr_error *err)
{
    fake_arrays *f = user;
    (void)err;
    if (strcmp(sha256, f->sha256) != 0)
        return 0;
    *data = malloc((size_t)f->bytes);
    memcpy(*data, f->data, (size_t)f->bytes);
    *bytes = f->bytes;
    *width = f->width;
    return 1;
}

static void fake_put(void *user, const char *sha256, int width, const void *data, int64_t bytes)
{
    fake_arrays *f = user;
    (void)data;
    f->puts++;
    f->put_bytes = width == 8 ? bytes : -1;
    snprintf(f->put_sha256, sizeof f->put_sha256, "%s", sha256);
}

/* Parses body with arrays (kind: estimate or rank); 0 or -1 with err. */
static int parse_with(lr_api *api, const char *body, lr_request_kind kind,
                      const lr_arrays *arrays, lr_request *req, lr_error *err)
{
    lr_error_clear(err);
    return lr_request_parse_with(lr_api_device_list(api), body, strlen(body), kind, 0, arrays,
                                 NULL, 0, req, err);
}

/* Issue 45, item 1: values named by the SHA-256 of an uploaded array ({"sha256"}) are the
 * request of the same values inline (one canonical text), uploaded as int32 or int64;
 * an unknown name, a length that does not match dims, another format and no arrays at
 * all are refused naming .values.sha256 (or .format); a ranking keeps each ordering's
 * permutation through put, under the digest it reports. */
static void uploaded_and_inline_are_one_request(lr_api *api, const int32_t *nbr)
{
    const char *launch = "\"launch\":{\"block\":[256,1,1]}";
    char *v = inline_values(nbr, 4 * N);
    char *a = body_of(N, v, U_LOADS, "H200-SXM-141GB", launch);
    lr_request ra, rb;
    lr_error err;
    CHECK_INT(parse_with(api, a, LR_REQ_ESTIMATE, NULL, &ra, &err), 0);
    const char *at = ra.canonical ? strstr(ra.canonical, "\"sha256\":\"") : NULL;
    CHECK(at != NULL);
    if (!at) {
        free(v), free(a);
        return;
    }
    fake_arrays f = {.data = nbr, .bytes = (int64_t)N * 16, .width = 4};
    memcpy(f.sha256, at + strlen("\"sha256\":\""), 64);
    lr_arrays arrays = {fake_get, fake_put, &f};
    char named[128];
    snprintf(named, sizeof named, "{\"sha256\":\"%s\"}", f.sha256);
    char *b = body_of(N, named, U_LOADS, "H200-SXM-141GB", launch);
    if (parse_with(api, b, LR_REQ_ESTIMATE, &arrays, &rb, &err) == 0) {
        CHECK_STR(ra.canonical, rb.canonical);
        lr_request_release(&rb);
    } else
        CHECK_STR(err.message, "(parsed)");
    /* the same integers uploaded as int64 */
    int64_t *wide = malloc((size_t)N * 32);
    for (int i = 0; i < 4 * N; i++)
        wide[i] = nbr[i];
    f.data = wide, f.bytes = (int64_t)N * 32, f.width = 8;
    if (parse_with(api, b, LR_REQ_ESTIMATE, &arrays, &rb, &err) == 0) {
        CHECK_STR(ra.canonical, rb.canonical);
        lr_request_release(&rb);
    } else
        CHECK_STR(err.message, "(parsed)");
    /* "format" beside it must be the upload's */
    char formatted[160];
    snprintf(formatted, sizeof formatted, "{\"sha256\":\"%s\",\"format\":\"int32-le\"}",
             f.sha256);
    char *c = body_of(N, formatted, U_LOADS, "H200-SXM-141GB", launch);
    CHECK_INT(parse_with(api, c, LR_REQ_ESTIMATE, &arrays, &rb, &err), -1);
    CHECK_STR(err.path, "kernel.fields[2].values.format");
    /* a length that does not match dims */
    f.bytes -= 8;
    CHECK_INT(parse_with(api, b, LR_REQ_ESTIMATE, &arrays, &rb, &err), -1);
    CHECK_STR(err.path, "kernel.fields[2].values.sha256");
    CHECK(strstr(err.message, "dims make 32768 elements") != NULL);
    /* unknown, and nowhere to look */
    f.sha256[0] = f.sha256[0] == '0' ? '1' : '0';
    CHECK_INT(parse_with(api, b, LR_REQ_ESTIMATE, &arrays, &rb, &err), -1);
    CHECK_STR(err.path, "kernel.fields[2].values.sha256");
    CHECK(strstr(err.message, "upload its bytes first with PUT /v1/arrays/") != NULL);
    CHECK_INT(parse_with(api, b, LR_REQ_ESTIMATE, NULL, &rb, &err), -1);
    CHECK_STR(err.path, "kernel.fields[2].values.sha256");
    /* not a digest */
    char *d = body_of(N, "{\"sha256\":\"ABC\"}", U_LOADS, "H200-SXM-141GB", launch);
    CHECK_INT(parse_with(api, d, LR_REQ_ESTIMATE, &arrays, &rb, &err), -1);
    CHECK_STR(err.path, "kernel.fields[2].values.sha256");
    /* a ranking's orderings keep their permutations */
    char *r = body_of(N, v, U_LOADS, "H200-SXM-141GB",
                      "\"search\":{\"blocks\":[[256,1,1]],\"orderings\":[\"given\",\"rcm\"]}");
    if (parse_with(api, r, LR_REQ_RANK, &arrays, &rb, &err) == 0) {
        CHECK_INT(f.puts, 2);
        CHECK(f.put_bytes == (int64_t)N * 8);
        CHECK_STR(f.put_sha256, rb.orderings[1].perm_sha256);
        lr_request_release(&rb);
    } else
        CHECK_STR(err.message, "(parsed)");
    lr_request_release(&ra);
    free(wide), free(v), free(a), free(b), free(c), free(d), free(r);
}

static void bad_index_fields(lr_worker *w, int32_t *nbr)
{
    const char *launch = "\"launch\":{\"block\":[256,1,1]}";
    neighbours(nbr, N, 32);
    nbr[4 * 100 + 1] = N; /* one index past u */
    char *v = inline_values(nbr, 4 * N);
    char *body = body_of(N, v, U_LOADS, "H200-SXM-141GB", launch);
    refused(w, body, LR_INVALID_REQUEST, "kernel.fields[0].loads[1][0]", "outside field 'u'");
    free(body);
    free(v);
    neighbours(nbr, N, 32);
    v = inline_values(nbr, 4 * N - 1);
    body = body_of(N, v, U_LOADS, "H200-SXM-141GB", launch);
    refused(w, body, LR_INVALID_REQUEST, "kernel.fields[2].values.data",
            "holds 32767 values; the field's dims make 32768");
    free(body);
    free(v);
    char *bad[][4] = {
        {"{\"data\":[1.5]}", U_LOADS, "kernel.fields[2].values.data", "holds 1 values"},
        {"{\"sha\":1}", U_LOADS, "kernel.fields[2].values.sha", "unknown key"},
        {"{\"data\":[0],\"file\":\"x\"}", U_LOADS, "kernel.fields[2].values", "exactly one"},
        {"{\"file\":\"/nonexistent\",\"format\":\"int16-le\"}", U_LOADS,
         "kernel.fields[2].values.format", "the formats are"},
        {"{\"file\":\"/nonexistent\"}", U_LOADS, "kernel.fields[2].values.file",
         "cannot read '/nonexistent'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        body = body_of(N, bad[i][0], bad[i][1], "H200-SXM-141GB", launch);
        refused(w, body, LR_INVALID_REQUEST, bad[i][2], bad[i][3]);
        free(body);
    }
    v = inline_values(nbr, 4 * N);
    body = body_of(N, v, "[[\"nbr(x)\"]]", "H200-SXM-141GB", launch);
    refused(w, body, LR_INVALID_REQUEST, "kernel.fields[0].loads[0][0]", "has 2 dimensions");
    free(body);
    body = body_of(N, v, "[[\"nbrs(0, x)\"]]", "H200-SXM-141GB", launch);
    refused(w, body, LR_UNSUPPORTED_EXPR, "kernel.fields[0].loads[0][0]", "did you mean 'nbr'");
    free(body);
    body = body_of(N, v, "[[\"nbr(4, x)\"]]", "H200-SXM-141GB", launch);
    refused(w, body, LR_INVALID_REQUEST, "kernel.fields[0].loads[0][0]",
            "argument 1 of nbr() ranges over 4..4, outside its dimension 0..3");
    free(body);
    /* a 2-D domain: cells are a 1-D domain */
    body = body_of(N, v, U_LOADS, "H200-SXM-141GB", launch);
    char *flat = strstr(body, "\"domain\":[8192,1,1]");
    CHECK(flat != NULL);
    if (flat)
        memcpy(flat, "\"domain\":[4096,2,1]", 19);
    refused(w, body, LR_INVALID_REQUEST, "domain", "1-D domain of cells");
    free(body);
    /* a 2-D block cannot launch such a kernel */
    body = body_of(N, v, U_LOADS, "H200-SXM-141GB", "\"launch\":{\"block\":[128,2,1]}");
    refused(w, body, LR_NOT_LAUNCHABLE, "launch.block", "1-D blocks");
    free(body);
    free(v);
    /* values on a data field */
    body = body_of(N, "{\"data\":[0]}", U_LOADS, "H200-SXM-141GB", launch);
    char *integer = strstr(body, "\"integer\":true,");
    if (integer)
        memcpy(integer, "\"integer\":!!!!,", 15);
    if (integer)
        memmove(integer, integer + 15, strlen(integer + 15) + 1);
    refused(w, body, LR_INVALID_REQUEST, "kernel.fields[2].values", "only an index field");
    free(body);
}

static cJSON *rank(lr_worker *w, const char *body, lr_error *err)
{
    lr_error_clear(err);
    char *out = lr_api_rank(w, body, strlen(body), NULL, NULL, err);
    cJSON *o = out ? cJSON_Parse(out) : NULL;
    free(out);
    return o;
}

/* The block-diagonal mesh with its cells numbered at random: "given" scatters every
 * cell's neighbours over the mesh; "blocks:32" (METIS parts of 32 cells) finds the
 * diagonal blocks again, and its gathers load no more than the block's own cells. */
static void orderings(lr_worker *w, int32_t *nbr)
{
    int64_t *perm = malloc(N * sizeof *perm);
    int32_t *scrambled = malloc((size_t)N * 16);
    for (int x = 0; x < N; x++)
        perm[x] = x;
    rng = 7;
    for (int i = N - 1; i > 0; i--) {
        int j = (int)(next_random() % (uint64_t)(i + 1));
        int64_t t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    neighbours(nbr, N, 32);
    for (int x = 0; x < N; x++)
        for (int j = 0; j < 4; j++)
            scrambled[4 * perm[x] + j] = (int32_t)perm[nbr[4 * x + j]];
    char *v = inline_values(scrambled, 4 * N);
    char *body = body_of(N, v, U_LOADS, "H200-SXM-141GB",
                         "\"search\":{\"blocks\":[[256,1,1]],\"orderings\":[\"given\","
                         "\"blocks:32\",\"rcm\"]}");
    lr_error err;
    cJSON *o = rank(w, body, &err);
    CHECK(o != NULL);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(o, "results"), *r;
    CHECK_INT(cJSON_GetArraySize(results), 3);
    double l2_given = -1, l2_blocks = -1;
    cJSON_ArrayForEach(r, results)
    {
        const char *name =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "ordering"));
        double l2 = num(r, "estimate", "l2_load_compulsory");
        if (name && !strcmp(name, "given"))
            l2_given = l2;
        if (name && !strcmp(name, "blocks:32"))
            l2_blocks = l2;
    }
    /* scattered: a block's 1024 gathers land on 2048 x (1 - e^-1/2) = 806 of u's 2048
     * sectors, 101 B/Lup on top of the 56 (less what the own loads share): about 150 */
    CHECK(l2_given > 140);
    CHECK_NEAR(l2_blocks, 56, 0.1, 0);
    const cJSON *first = cJSON_GetArrayItem(results, 0);
    CHECK(
        strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(first, "ordering")) ?: "",
               "given") != 0);
    const cJSON *ords = cJSON_GetObjectItemCaseSensitive(o, "orderings");
    CHECK_INT(cJSON_GetArraySize(ords), 3);
    cJSON_ArrayForEach(r, ords)
    {
        const cJSON *sec = cJSON_GetObjectItemCaseSensitive(r, "seconds");
        CHECK(cJSON_IsNumber(sec) && sec->valuedouble >= 0 && sec->valuedouble < 10);
        const char *sha =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "permutation_sha256"));
        CHECK(sha && strlen(sha) == 64);
    }
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "decision"), "recommended");
    CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rec, "ordering")));
    cJSON_Delete(o);
    free(body);
    const char *bad[][3] = {
        {"[\"metis\"]", "search.orderings[0]", "write metis:N"},
        {"[\"rcm\",\"bogus\"]", "search.orderings[1]", "unknown ordering 'bogus'"},
        {"[\"rcm\",\"rcm\"]", "search.orderings[1]", "given twice"},
        {"[\"blocks:0\"]", "search.orderings[0]", "from 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char tail[256];
        snprintf(tail, sizeof tail, "\"search\":{\"blocks\":[[256,1,1]],\"orderings\":%s}",
                 bad[i][0]);
        body = body_of(N, v, U_LOADS, "H200-SXM-141GB", tail);
        o = rank(w, body, &err);
        CHECK(o == NULL);
        CHECK_STR(err.path, bad[i][1]);
        CHECK(strstr(err.message, bad[i][2]) != NULL);
        cJSON_Delete(o);
        free(body);
    }
    /* orderings copy the mesh: 16 M cells (256 MB of int32) in five orderings besides the
     * given one would hold 1.3 GB, past the 1 GB a request may (LR_MAX_ORDERING_BYTES) */
    int64_t big = 1 << 24;
    char path[] = "/tmp/lr_gather_big_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && ftruncate(fd, big * 16) == 0); /* zeros: every neighbour is cell 0 */
    close(fd);
    char fv[128];
    snprintf(fv, sizeof fv, "{\"file\":\"%s\"}", path);
    body = body_of((int)big, fv, U_LOADS, "H200-SXM-141GB",
                   "\"search\":{\"blocks\":[[256,1,1]],\"orderings\":[\"given\",\"rcm\","
                   "\"random\",\"blocks:64\",\"blocks:128\",\"metis:8\"]}");
    o = rank(w, body, &err);
    CHECK(o == NULL);
    CHECK_INT(err.code, LR_LIMIT_EXCEEDED);
    CHECK_STR(err.path, "search.orderings");
    CHECK(strstr(err.message, "5 orderings of this mesh would hold about 1342 MB") != NULL);
    cJSON_Delete(o);
    free(body);
    unlink(path);
    /* the time limit covers the orderings: past it, none more is computed (a METIS
     * partition cannot be stopped once begun), the refusal naming the next one */
    lr_api_config quick = {.local_files = 1, .time_limit_s = 1e-9};
    lr_api *qapi = lr_api_new(&quick, &err);
    lr_worker *qw = qapi ? lr_worker_new(qapi, &err) : NULL;
    CHECK(qw != NULL);
    body = body_of(N, v, U_LOADS, "H200-SXM-141GB",
                   "\"search\":{\"blocks\":[[256,1,1]],\"orderings\":[\"given\",\"rcm\"]}");
    o = qw ? rank(qw, body, &err) : NULL;
    CHECK(o == NULL);
    CHECK_INT(err.code, LR_BUDGET_EXCEEDED);
    CHECK_STR(err.path, "search.orderings[1]");
    CHECK(strstr(err.message, "'rcm': the request's time limit ran out") != NULL);
    cJSON_Delete(o);
    free(body);
    lr_worker_free(qw);
    lr_api_free(qapi);
    /* a kernel that reads through no index field has no mesh to renumber */
    const char *stencil =
        "{\"device\":\"H200-SXM-141GB\",\"domain\":[1024,1,1],\"kernel\":{\"fields\":[{"
        "\"name\":\"u\",\"dims\":[1026],\"loads\":[[\"x\"],[\"x+2\"]]}]},"
        "\"search\":{\"orderings\":[\"rcm\"]}}";
    o = rank(w, stencil, &err);
    CHECK(o == NULL);
    CHECK_STR(err.path, "search.orderings");
    cJSON_Delete(o);
    free(v);
    free(scrambled);
    free(perm);
}

/* Generated hostile index fields and gathers (a deterministic PRNG): values anywhere in
 * int32, nested and malformed table reads, odd shapes. Every request is answered or
 * refused with a path; none crashes (the sanitizer builds run this) or hangs. */
static void hostile(lr_worker *w)
{
    static const char *const exprs[] = {
        "nbr(0, x)", "nbr(3, x) + 1", "nbr(0, x) - 1", "2 * nbr(1, x)", "nbr(1, x) / 2",
        "nbr(2, x) % 8", "nbr(nbr(0, x) % 4, x)", "nbr(0, nbr(1, x))", "nbr(0, x % 8)",
        "nbr(0)", "nbr(0, x, 1)", "nbr(0, x", "nbr()", "nbr(,x)", "nbr(0, x) * nbr(1, x)",
        "x / nbr(0, x)", "nbr(-1, x)", "nbr(0, x + 1)", "nbr(0, blockIdx.x)", "nbr(0, tidx)",
        "w(0, x)", "nbr(0, x)(1)", "(nbr)(0, x)", "nbr (0, x)", "nbr(0, 9223372036854775807)"};
    int n = 64, failures = 0;
    rng = 99;
    for (int c = 0; c < 400; c++) {
        int32_t v[4 * 64];
        int mode = (int)(next_random() % 4);
        for (int i = 0; i < 4 * n; i++) {
            uint64_t r = next_random();
            v[i] = mode == 0   ? (int32_t)(r % (uint64_t)n)
                   : mode == 1 ? (int32_t)r
                   : mode == 2 ? (int32_t)(r % 3) - 1
                               : (int32_t)(i / 4);
        }
        char *vals = inline_values(v, 4 * n - (int)(next_random() % 3 == 0));
        char loads[256];
        snprintf(loads, sizeof loads, "[[\"x\"],[\"%s\"],[\"%s\"]]",
                 exprs[next_random() % (sizeof exprs / sizeof exprs[0])],
                 exprs[next_random() % (sizeof exprs / sizeof exprs[0])]);
        char *body = body_of(n, vals, loads, next_random() % 2 ? "H200-SXM-141GB" : "K20m",
                             next_random() % 2 ? "\"launch\":{\"block\":[32,1,1]}"
                                               : "\"launch\":{\"block\":[64,2,1]}");
        lr_error err;
        lr_error_clear(&err);
        char *out = lr_api_estimate(w, body, strlen(body), &err);
        cJSON *o = out ? cJSON_Parse(out) : NULL;
        int ok = out ? o != NULL : err.code != LR_OK && err.message[0];
        if (!ok && failures++ < 5)
            fprintf(stderr, "hostile case %d: %s -> %s\n", c, loads, out ? out : err.message);
        cJSON_Delete(o);
        free(out);
        free(body);
        free(vals);
    }
    CHECK_INT(failures, 0);
}

int main(void)
{
    lr_api_config cfg = {.local_files = 1};
    lr_error err;
    lr_error_clear(&err);
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    if (!w) {
        fprintf(stderr, "cannot start: %s\n", err.message);
        return 1;
    }
    int32_t *nbr = malloc((size_t)N * 16);
    neighbours(nbr, N, 32);
    volumes_of_diagonal_blocks(w, nbr);
    file_and_inline_are_one_request(api, nbr);
    uploaded_and_inline_are_one_request(api, nbr);
    self_neighbours(w, nbr);
    random_mesh_misses(w);
    bad_index_fields(w, nbr);
    orderings(w, nbr);
    hostile(w);
    free(nbr);
    lr_worker_free(w);
    lr_api_free(api);
    return check_report("test_gathers");
}
