/*
 * test_domain_dimensions: issue 46, item 2. A kernel whose accesses do not match the
 * domain's dimensions gets the request-level warning domain_dimensions, which names
 * the dimension: a 2-D kernel (accesses in x, y) sent a 3-D domain (15000 x 15000 x 64
 * was answered with no warning at all, 256^3 with two that did not name the cause),
 * and a 3-D kernel sent a flat domain. Kernels whose dimensions match get none.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "check.h"

/* A 2-D 5-point stencil on n x n plus a halo, in lattice or thread variables. */
#define FIVE_POINT(n, X, Y)                                                                    \
    "{\"fields\":[{\"name\":\"u\",\"dims\":[" n "," n "],\"loads\":[[\"" X "+1\",\"" Y         \
    "+1\"],[\"" X "\",\"" Y "+1\"],[\"" X "+2\",\"" Y "+1\"],[\"" X "+1\",\"" Y "\"],[\"" X    \
    "+1\",\"" Y "+2\"]]},{\"name\":\"v\",\"dims\":[" n "," n "],\"stores\":[[\"" X "+1\",\"" Y \
    "+1\"]]}],\"flops\":5}"

/* A 3-D 7-point stencil on 258^3 (256^3 and a halo). */
#define SEVEN_POINT                                                                            \
    "{\"fields\":[{\"name\":\"u\",\"dims\":[258,258,258],\"loads\":[[\"x+1\",\"y+1\",\"z+1\"]" \
    ","                                                                                        \
    "[\"x\",\"y+1\",\"z+1\"],[\"x+2\",\"y+1\",\"z+1\"],[\"x+1\",\"y\",\"z+1\"],"               \
    "[\"x+1\",\"y+2\",\"z+1\"],[\"x+1\",\"y+1\",\"z\"],[\"x+1\",\"y+1\",\"z+2\"]]},"           \
    "{\"name\":\"v\",\"dims\":[258,258,258],\"stores\":[[\"x+1\",\"y+1\",\"z+1\"]]}],"         \
    "\"flops\":7}"

/* A 1-D 3-point stencil over a line of 4098 elements. */
#define THREE_POINT                                                                            \
    "{\"fields\":[{\"name\":\"u\",\"dims\":[4098],\"loads\":[[\"x\"],[\"x+1\"],[\"x+2\"]]},"   \
    "{\"name\":\"v\",\"dims\":[4098],\"stores\":[[\"x+1\"]]}],\"flops\":3}"

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* The warnings of an estimate (launch [128, 2, 1]) or, rank set, the top-level
 * warnings of a ranking over two blocks, of kernel on domain; a new array (caller
 * frees) or NULL when the request failed. */
static cJSON *warnings_of(lr_worker *w, int rank, const char *kernel, const char *domain)
{
    char body[4096];
    snprintf(body, sizeof body,
             "{\"device\":\"A100-SXM4-40GB\",\"domain\":%s,\"kernel\":%s,%s}", domain, kernel,
             rank ? "\"search\":{\"blocks\":[[128,2,1],[256,1,1]]}"
                  : "\"launch\":{\"block\":[128,2,1]}");
    lr_error err;
    lr_error_clear(&err);
    char *out = rank ? lr_api_rank(w, body, strlen(body), NULL, NULL, &err)
                     : lr_api_estimate(w, body, strlen(body), &err);
    if (!out) {
        fprintf(stderr, "refused: %s (%s)\n", err.message, body);
        return NULL;
    }
    cJSON *o = cJSON_Parse(out);
    free(out);
    cJSON *list = o ? cJSON_DetachItemFromObjectCaseSensitive(o, "warnings") : NULL;
    cJSON_Delete(o);
    return list;
}

/* The message of the warning domain_dimensions at path in list; NULL when none. */
static const char *dimension_warning(const cJSON *list, const char *path)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, list)
    {
        if (!strcmp(cJSON_GetStringValue(get(x, "code")), "domain_dimensions") &&
            !strcmp(cJSON_GetStringValue(get(x, "path")), path))
            return cJSON_GetStringValue(get(x, "message"));
    }
    return NULL;
}

static int count(const cJSON *list, const char *code)
{
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, list) n += !strcmp(cJSON_GetStringValue(get(x, "code")), code);
    return n;
}

/* Issue 46's request: a 2-D kernel on 15000 x 15000 x 64, estimated and ranked. */
static void flat_kernel_on_a_deep_domain(lr_worker *w)
{
    for (int rank = 0; rank < 2; rank++) {
        cJSON *list = warnings_of(w, rank, FIVE_POINT("15002", "x", "y"), "[15000,15000,64]");
        CHECK(list != NULL);
        const char *m = dimension_warning(list, "domain");
        CHECK(m != NULL);
        CHECK_INT(count(list, "domain_dimensions"), 1);
        if (m) {
            CHECK(strstr(m, "the domain has 64 points in z, but no access of the kernel "
                            "uses z") != NULL);
            CHECK(strstr(m, "send domain [15000, 15000, 1], or write the accesses in z") !=
                  NULL);
        }
        cJSON_Delete(list);
    }
    /* 256^3: the cause is named too, not only its consequences */
    cJSON *list = warnings_of(w, 0, FIVE_POINT("258", "x", "y"), "[256,256,256]");
    const char *m = dimension_warning(list, "domain");
    CHECK(m && strstr(m, "256 points in z") && strstr(m, "send domain [256, 256, 1]"));
    cJSON_Delete(list);
}

/* Thread variables place an access too: tidx/tidy is 2-D, so is threadIdx/blockIdx. */
static void thread_variables_count_as_their_dimension(lr_worker *w)
{
    cJSON *list = warnings_of(w, 0, FIVE_POINT("1026", "tidx", "tidy"), "[1024,1024,8]");
    const char *m = dimension_warning(list, "domain");
    CHECK(m && strstr(m, "8 points in z") &&
          strstr(m, "z is blockIdx.z*blockDim.z + threadIdx.z"));
    cJSON_Delete(list);
    list = warnings_of(w, 0, FIVE_POINT("1026", "tidx", "tidy"), "[1024,1024]");
    CHECK_INT(count(list, "domain_dimensions"), 0);
    cJSON_Delete(list);
}

/* A 1-D kernel on a 2-D domain: y is named, and the domain to send is 1 in y. */
static void line_kernel_on_a_plane(lr_worker *w)
{
    cJSON *list = warnings_of(w, 0, THREE_POINT, "[4096,16]");
    const char *m = dimension_warning(list, "domain");
    CHECK(m && strstr(m, "16 points in y") && strstr(m, "send domain [4096, 1, 1]"));
    CHECK_INT(count(list, "domain_dimensions"), 1);
    cJSON_Delete(list);
}

/* The reverse: a 3-D kernel on a flat domain is named at its first access in z. */
static void deep_kernel_on_a_flat_domain(lr_worker *w)
{
    for (int rank = 0; rank < 2; rank++) {
        cJSON *list = warnings_of(w, rank, SEVEN_POINT, "[256,256]");
        const char *m = dimension_warning(list, "kernel.fields[0].loads[0]");
        CHECK(m && strstr(m, "the domain has 1 point in z, but the kernel's accesses use z"));
        CHECK_INT(count(list, "domain_dimensions"), 1);
        cJSON_Delete(list);
    }
}

/* Kernels whose dimensions match their domains: no such warning (nor any other
 * but registers_assumed: these requests send no kernel.registers, issue 43). */
static void matching_dimensions_are_quiet(lr_worker *w)
{
    cJSON *a = warnings_of(w, 0, FIVE_POINT("1026", "x", "y"), "[1024,1024]"),
          *b = warnings_of(w, 0, SEVEN_POINT, "[256,256,256]"),
          *c = warnings_of(w, 1, THREE_POINT, "[4096]");
    CHECK(a && b && c);
    CHECK_INT(cJSON_GetArraySize(a) - count(a, "registers_assumed"), 0);
    CHECK_INT(cJSON_GetArraySize(b) - count(b, "registers_assumed"), 0);
    CHECK_INT(cJSON_GetArraySize(c) - count(c, "registers_assumed"), 0);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
}

int main(void)
{
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    if (!w) {
        fprintf(stderr, "cannot start: %s\n", err.message);
        return 1;
    }
    flat_kernel_on_a_deep_domain(w);
    thread_variables_count_as_their_dimension(w);
    line_kernel_on_a_plane(w);
    deep_kernel_on_a_flat_domain(w);
    matching_dimensions_are_quiet(w);
    lr_worker_free(w);
    lr_api_free(api);
    return check_report("test_domain_dimensions");
}
