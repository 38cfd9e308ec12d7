/*
 * test_requests: bad input gets a clear error that names the offending value. Each
 * case is a request body, the error code and the exact JSON path expected, and a
 * piece of the message; run through lr_api_estimate or lr_api_rank. A few good
 * requests check defaults, custom devices and the cache.
 */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "response.h"
#include "lr_hash.h"
#include "check.h"
#include "request.h"

#define FIELD_A "{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y\"]]}"
#define KERNEL_OK "\"kernel\":{\"fields\":[" FIELD_A "]}"
#define OK_REST "\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64]," KERNEL_OK

typedef struct bad_case {
    int rank; /* 1: POST /v1/rank, 0: estimate */
    const char *body;
    const char *code;
    const char *path;
    const char *msg; /* a substring of the message */
} bad_case;

static const bad_case cases[] = {
    {0, "", "invalid_json", "", "empty"},
    {0, "{", "invalid_json", "", "not valid JSON"},
    {0, "{\"device\": \"A100-SXM4-40GB\",}", "invalid_json", "", "not valid JSON"},
    {0, "[1,2]", "invalid_request", "", "must be an object"},
    /* issue 41, item 4: refused before cJSON now, with the path and the column */
    {0, "{\"device\": NaN}", "invalid_json", "device",
     "not valid JSON: NaN at line 1, column 12"},
    {0, "{\"device\": Infinity}", "invalid_json", "device", "not valid JSON: Infinity at"},
    /* regressions from tests/fuzz */
    {0, "{" OK_REST ",\"launch\":{\"block\":[32]}} garbage", "invalid_json", "",
     "unexpected data after"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[32]}}{}", "invalid_json", "",
     "unexpected data after"},
    {0, "{\"device\":\"A100-SXM4-80GB\\u0000junk\"}", "invalid_json", "", "u0000"},
    {0, "{\"device\":\"\xff\xfe\"}", "invalid_json", "", "not valid UTF-8 (byte 11)"},
    {0, "{\"device\":\"\xc0\xaf\"}", "invalid_json", "", "not valid UTF-8"},
    {0, "{\"device\":\"\xed\xa0\x80\"}", "invalid_json", "", "not valid UTF-8"},
    {0, "{}", "invalid_request", "device", "missing"},
    {0, "{\"device\":\"B200\",\"domain\":[1]}", "invalid_request", "device",
     "unknown device 'B200'"},
    {0, "{\"device\":42}", "invalid_request", "device", "built-in device name"},
    {0, "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"l2_bytes\":-5}}", "invalid_request",
     "device.l2_bytes", "integer"},
    {0, "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"l2_byte\":5}}", "invalid_request",
     "device.l2_byte", "unknown key"},
    /* issue 44: a device's provenance is one of three words */
    {0, "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"provenance\":\"guessed\"}}",
     "invalid_request", "device.provenance",
     "must be \"measured\", \"derived\" or \"borrowed\""},
    {0, "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"provenance\":1}}", "invalid_request",
     "device.provenance", "string"},
    {0, "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"l1_line_bytes\":100}}", "invalid_request",
     "device.l1_line_bytes", "power of two"},
    /* a subnormal bandwidth would make its limit underflow to 0, read as "no limit" */
    {0, "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"dram_bw_gbs\":5e-324}}", "invalid_request",
     "device.dram_bw_gbs", "[1, 1e6)"},
    {0, "{\"device\":{\"base\":\"H100-SXM5-80GB\",\"store_requests_per_ns\":1e-300}}",
     "invalid_request", "device.store_requests_per_ns", "[0.001, 1e6)"},
    /* model 2026.11-18's L2 request rate: 0 would make its limit read as "no limit" */
    {0, "{\"device\":{\"base\":\"H100-SXM5-80GB\",\"l2_requests_per_ns\":0}}",
     "invalid_request", "device.l2_requests_per_ns", "[0.001, 1e6)"},
    /* model 2026.11-6's figures: fewer than one array, a negative launch time */
    {0, "{\"device\":{\"base\":\"H100-SXM5-80GB\",\"dram_streams_half\":0.5}}",
     "invalid_request", "device.dram_streams_half", "[1, 1e6) arrays"},
    /* model 2026.11-10's: no sectors at all would divide by zero */
    {0, "{\"device\":{\"base\":\"H100-SXM5-80GB\",\"partial_sectors_half\":0}}",
     "invalid_request", "device.partial_sectors_half", "[0.01, 1e6) sectors"},
    {0, "{\"device\":{\"base\":\"H100-SXM5-80GB\",\"launch_overhead_us\":-1}}",
     "invalid_request", "device.launch_overhead_us", "from 0 to 1e+06"},
    {0, "{\"device\":{\"base\":\"H100-SXM5-80GB\",\"launch_overhead_us\":1e7}}",
     "invalid_request", "device.launch_overhead_us", "from 0 to 1e+06"},
    {0, "{\"device\":{\"sm_count\":10}}", "invalid_request", "device.clock_ghz", "missing"},
    {0, "{\"device\":\"A100-SXM4-40GB\"}", "invalid_request", "domain", "missing"},
    {0, "{\"device\":\"A100-SXM4-40GB\",\"domain\":[]}", "invalid_request", "domain",
     "1 to 3 elements"},
    {0, "{\"device\":\"A100-SXM4-40GB\",\"domain\":[1,2,3,4]}", "invalid_request", "domain",
     "1 to 3 elements"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[1,1,128]}}", "not_launchable", "launch.block",
     "1024 x 1024 x 64"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[32]},\"search\":{\"top\":-1}}", "invalid_request",
     "search.top", "integer from 0"},
    {1, "{" OK_REST ",\"launch\":{\"block\":[0]}}", "invalid_request", "launch.block[0]",
     "integer from 1"},
    {0, "{\"device\":\"A100-SXM4-40GB\",\"domain\":[0]}", "invalid_request", "domain[0]",
     "integer from 1"},
    {0, "{\"device\":\"A100-SXM4-40GB\",\"domain\":[\"64\"]}", "invalid_request", "domain[0]",
     "not a string"},
    {0, "{\"device\":\"A100-SXM4-40GB\",\"domain\":[1.5]}", "invalid_request", "domain[0]",
     "fraction"},
    {0, "{\"device\":\"A100-SXM4-40GB\",\"domain\":[1e12,1e12]}", "invalid_request",
     "domain[0]", "integer from 1"},
    {0, "{\"device\":\"A100-SXM4-40GB\",\"domain\":[1000000,1000000,100000]}",
     "invalid_request", "domain", "2^42"},
    {0, "{" OK_REST "}", "invalid_request", "launch", "missing"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[0,1,1]}}", "invalid_request", "launch.block[0]",
     "integer from 1 to 1024"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[4096]}}", "invalid_request", "launch.block[0]",
     "integer from 1 to 1024"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[1024,1024,1]}}", "not_launchable", "launch.block",
     "threads per block exceed"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[32],\"folding\":[0]}}", "invalid_request",
     "launch.folding[0]", "integer from 1"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[32],\"fold\":[2]}}", "invalid_request",
     "launch.fold", "unknown key"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[32]},\"extra\":1}", "invalid_request", "extra",
     "unknown key"},
    {0, "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]}}",
     "invalid_request", "kernel", "missing"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[]}}",
     "invalid_request", "kernel.fields", "1 to 64 elements"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":{}}}",
     "invalid_request", "kernel.fields", "must be an array"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"dims\":[4]}]}}",
     "invalid_request", "kernel.fields[0].name", "missing"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\"}]}}",
     "invalid_request", "kernel.fields[0].dims", "missing"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64],\"element_bytes\":3,\"loads\":[\"x\"]}]}}",
     "invalid_request", "kernel.fields[0].element_bytes", "1, 2, 4, 8 or 16"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64]}]}}",
     "invalid_request", "kernel.fields", "no loads and no stores"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\"]]}]}}",
     "invalid_request", "kernel.fields[0].loads[0]", "2 dimensions"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y\"],[\"x\",\"y\"],["
     "\"x\",\"y\"],[\"x*y\",\"y\"]]}]}}",
     "unsupported_expression", "kernel.fields[0].loads[3][0]", "product of two variables"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"B[y]\"]]}]}}",
     "unsupported_expression", "kernel.fields[0].loads[0][1]", "indirect"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"(y+\"]]}]}}",
     "invalid_request", "kernel.fields[0].loads[0][1]", "column"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"w\"]]}]}}",
     "invalid_request", "kernel.fields[0].loads[0][1]", "'w'"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y % 0\"]]}]}}",
     "unsupported_expression", "kernel.fields[0].loads[0][1]", ""},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y\"]]},{\"name\":\"A\","
     "\"dims\":[4],\"loads\":[\"x\"]}]}}",
     "invalid_request", "kernel.fields[1].name", "used twice"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y\"]]}],\"registers\":"
     "1000}}",
     "invalid_request", "kernel.registers", "1 to 255"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[1024]},"
     "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y\"]]}],"
     "\"registers\":255}}",
     "not_launchable", "launch.block", "registers"},
    /* kernel.instructions (issue 43, item 3): an object of known classes, each 0..1e6,
     * one positive */
#define INSTR_CASE(mix)                                                                        \
    "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"     \
    "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y\"]]}],"                  \
    "\"instructions\":" mix "}}"
    {0, INSTR_CASE("[1,2]"), "invalid_request", "kernel.instructions", "object"},
    {0, INSTR_CASE("{\"fp32\":10,\"sqrt\":2}"), "invalid_request", "kernel.instructions.sqrt",
     "fp32, fp64, special, integer, other"},
    {0, INSTR_CASE("{\"fp32\":-1}"), "invalid_request", "kernel.instructions.fp32", "0 to"},
    {0, INSTR_CASE("{\"fp64\":\"many\"}"), "invalid_request", "kernel.instructions.fp64",
     "number"},
    {0, INSTR_CASE("{\"fp32\":0,\"other\":0}"), "invalid_request", "kernel.instructions",
     "no instruction counted"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y\"]]}],\"parameters\":"
     "{\"w\":1.5}}}",
     "invalid_request", "kernel.parameters.w", "fraction"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x*4503599627370496\",\"y\"]]}"
     "]}}",
     "invalid_request", "kernel.fields[0]", "beyond what any GPU"},
    /* regressions from tests/fuzz: products that overflow int64 must be refused, not wrapped */
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x*9007199254740992*"
     "9007199254740992\",\"y\"]]}]}}",
     "invalid_request", "kernel.fields[0]", "int64 overflow"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"2147483647*2147483647*x\","
     "\"y\"]]}]}}",
     "invalid_request", "kernel.fields[0]", "beyond what any GPU"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"gridDim.x*blockDim.x*"
     "9007199254740992\",\"y\"]]}]}}",
     "invalid_request", "kernel.fields[0]", "beyond what any GPU"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y\"]]}],\"precision\":"
     "\"fp16\"}}",
     "invalid_request", "kernel.precision", "fp32"},
    /* model v2 (issue 8): the model choice and the restrict flag */
    {0, "{" OK_REST ",\"launch\":{\"block\":[32]},\"model\":\"v3\"}", "invalid_request",
     "model", "warpspeed"},
    {1, "{" OK_REST ",\"model\":7}", "invalid_request", "model", "string"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},\"kernel\":"
     "{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x\",\"y\"]]}],\"restrict\":"
     "1}}",
     "invalid_request", "kernel.restrict", "true"},
    {0,
     "{\"device\":{\"base\":\"H100-SXM5-80GB\",\"limit_sharpness\":0.5},\"domain\":[64,64],"
     "\"launch\":{\"block\":[32]}," KERNEL_OK "}",
     "invalid_request", "device.limit_sharpness", "1..100"},
    {1, "{" OK_REST ",\"search\":{\"blocks\":[[0]]}}", "invalid_request", "search.blocks[0][0]",
     "integer from 1 to 1024"},
    {1, "{" OK_REST ",\"search\":{\"blocks\":[]}}", "invalid_request", "search.blocks",
     "1 to 4096 elements"},
    {1, "{" OK_REST ",\"search\":{\"min_threads\":512,\"max_threads\":64}}", "invalid_request",
     "search.min_threads", "larger"},
    {1, "{" OK_REST ",\"search\":{\"foldings\":[[1,1,300]]}}", "invalid_request",
     "search.foldings[0][2]", "integer from 1"},
    {1, "{" OK_REST ",\"search\":{\"top\":-1}}", "invalid_request", "search.top",
     "integer from 0"},
    /* issue 10, item 7: raw control bytes in strings (NULs in raw_nul_cases) */
    {0, "{\"device\":\"A100-SXM4-40GB\x01\"}", "invalid_json", "device", "0x01"},
    {0, "{\"device\":\"A100\tSXM4-40GB\"}", "invalid_json", "device", "0x09"},
    {0,
     "{" OK_REST ",\"launch\":{\"block\":[32]},\"search\":{\"foldings\":[[1],[2,\"\x1b\"]]}}",
     "invalid_json", "search.foldings[1][1]", "0x1B"},
    {0, "{\"dev\nice\":1}", "invalid_json", "dev\nice", "the key of this value"},
    {0, "[\"\x7f\", \"\x1f\"]", "invalid_json", "[1]", "0x1F"},
    /* ... and keys given twice (the first used to win silently) */
    {0, "{\"device\":\"A100-SXM4-40GB\",\"device\":\"K20m\"}", "invalid_request", "device",
     "more than once"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},"
     "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"dims\":[8],\"loads\":[["
     "\"x\",\"y\"]]}]}}",
     "invalid_request", "kernel.fields[0].dims", "'dims' appears more than once"},
    {0, "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"l2_bytes\":5,\"l2_bytes\":6}}",
     "invalid_request", "device.l2_bytes", "more than once"},
    {0,
     "{" OK_REST ",\"launch\":{\"block\":[32]},\"x\":{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,"
     "\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,\"k10\":10,\"k11\":11,"
     "\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k16\":16,\"k7\":17}}",
     "invalid_request", "x.k7", "more than once"},
    {0, "{\"a\":[{\"b\":1},{\"c\":{\"d\":1,\"d\":1}}]}", "invalid_request", "a[1].c.d",
     "more than once"},
    /* issue 46, item 4: invalid JSON is located by line and column (in characters), the
     * byte offset kept */
    {0, "{\n  \"device\": \"A100-SXM4-40GB\",\n  \"domain\": [64,]\n}", "invalid_json", "",
     "the body is not valid JSON (error near line 3, column 17, byte 48)"},
    {0, "{\"\xc3\xa9\xc3\xa9\": 1,,}", "invalid_json", "", "(error near line 1, column 11, byte 12)"},
    {0, "{\"device\": \"K20m\"}\n\n  x", "invalid_json", "",
     "unexpected data after the JSON object (line 3, column 3, byte 22); send one object"},
    /* issue 46, item 3: "did you mean" the closest allowed name (edit distance at most
     * 2, case aside, or the one name the word begins) after the message as it was */
    {0, "{" OK_REST ",\"lunch\":{\"block\":[32]}}", "invalid_request", "lunch",
     "unknown key 'lunch'; expected one of: device, kernel, domain, launch, search, measure, "
     "model; did you mean 'launch'?"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[32],\"foldign\":[1]}}", "invalid_request",
     "launch.foldign", "expected one of: block, folding; did you mean 'folding'?"},
    {0, "{" OK_REST ",\"launch\":{\"block\":[32],\"fold\":[1]}}", "invalid_request",
     "launch.fold", "; did you mean 'folding'?"},
    {0, "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"L2_Byte\":5}}", "invalid_request",
     "device.L2_Byte", "; did you mean 'l2_bytes'?"},
    {0, "{\"device\":\"A100-SXM4-40G\",\"domain\":[1]}", "invalid_request", "device",
     "(or send a device object); did you mean 'A100-SXM4-40GB'?"},
    {0, "{\"device\":\"H100\",\"domain\":[1]}", "invalid_request", "device",
     "; did you mean 'H100-SXM5-80GB'?"},
    {0, "{\"device\":{\"base\":\"K20\"}}", "invalid_request", "device.base",
     "unknown device 'K20'; built-in devices are"},
    {0, "{\"device\":{\"base\":\"K20\"}}", "invalid_request", "device.base",
     "; did you mean 'K20m'?"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},"
     "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"threadidx.x\","
     "\"y\"]]}]}}",
     "invalid_request", "kernel.fields[0].loads[0][0]",
     "nor a parameter of the request; did you mean 'threadIdx.x'?"},
    {0,
     "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},"
     "\"kernel\":{\"parameters\":{\"width\":66},\"fields\":[{\"name\":\"A\",\"dims\":[4356],"
     "\"loads\":[\"x+y*widht\"]}]}}",
     "invalid_request", "kernel.fields[0].loads[0]", "; did you mean 'width'?"},
};

/* Cases whose body holds a raw NUL, with its length. Issue 10, item 7: a raw NUL
 * inside a string used to cut it there, so "x+1<NUL>*y*y" was estimated as "x+1". */
#define RAW(lit) lit, sizeof(lit) - 1
static const struct {
    const char *body;
    size_t len;
    const char *code, *path, *msg;
} raw_nul_cases[] = {
    {RAW("{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},"
         "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"x+1\0*y*y\","
         "\"y\"]]}]}}"),
     "invalid_json", "kernel.fields[0].loads[0][0]", "raw control byte 0x00"},
    {RAW("{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},"
         "\"kernel\":{\"fields\":[{\"name\":\"A\0B\",\"dims\":[64,64],\"loads\":[[\"x\","
         "\"y\"]]}]}}"),
     "invalid_json", "kernel.fields[0].name", "0x00"},
    {RAW("{\"device\":\"A100-SXM4-40GB\",\0\"domain\":[64,64]}"), "invalid_json", "",
     "outside a string"},
};

static void run_case_len(lr_worker *w, const bad_case *c, size_t len, int i)
{
    lr_error err;
    lr_error_clear(&err);
    char *out = c->rank ? lr_api_rank(w, c->body, len, NULL, NULL, &err)
                        : lr_api_estimate(w, c->body, len, &err);
    if (out) {
        check_failures++;
        fprintf(stderr, "case %d: accepted, expected %s at '%s': %s\n", i, c->code, c->path,
                c->body);
        free(out);
        return;
    }
    check_count++;
    if (strcmp(lr_code_name(err.code), c->code) || strcmp(err.path, c->path) ||
        !strstr(err.message, c->msg)) {
        check_failures++;
        fprintf(stderr, "case %d: got %s at '%s': %s\n   want %s at '%s' containing '%s'\n", i,
                lr_code_name(err.code), err.path, err.message, c->code, c->path, c->msg);
    }
}

static void run_case(lr_worker *w, const bad_case *c, int i)
{
    run_case_len(w, c, strlen(c->body), i);
}

/* Issue 46, item 3: a name close to none of the allowed ones gets no "did you mean",
 * nor does a short one that any allowed name is a letter or two away from. */
static void no_suggestion_without_a_close_name(lr_worker *w)
{
    static const char *const bodies[] = {
        "{" OK_REST ",\"zzzzzz\":1}",
        "{" OK_REST ",\"launch\":{\"block\":[32],\"b\":[1]}}",
        "{\"device\":\"B200\",\"domain\":[1]}",
        "{\"device\":\"A100\",\"domain\":[1]}", /* the start of two names */
        "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64],\"launch\":{\"block\":[32]},"
        "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[64],\"loads\":[\"q\"]}]}}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        lr_error err;
        lr_error_clear(&err);
        char *out = lr_api_estimate(w, bodies[i], strlen(bodies[i]), &err);
        CHECK(out == NULL);
        free(out);
        CHECK(err.message[0] != 0);
        if (strstr(err.message, "did you mean")) {
            check_failures++;
            fprintf(stderr, "suggested for %s: %s\n", bodies[i], err.message);
        }
    }
}

/* Whether s is valid UTF-8 (written here again, not taken from common/, so that the
 * test does not trust the code it tests). */
static int is_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80             ? 1
                : (*p & 0xE0) == 0xC0 ? 2
                : (*p & 0xF0) == 0xE0 ? 3
                : (*p & 0xF8) == 0xF0 ? 4
                                      : 0;
        if (n == 0 || (n == 2 && *p < 0xC2))
            return 0;
        for (int i = 1; i < n; i++)
            if ((p[i] & 0xC0) != 0x80)
                return 0;
        p += n;
    }
    return 1;
}

/* Appends n copies of s to buf (size bytes). */
static void repeat(char *buf, size_t size, const char *s, int n)
{
    for (int i = 0; i < n; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s", s);
}

/* Issue 10, item 5: user text cut to a length (60 bytes of an unknown key, 64 of a
 * device name, the 256 bytes of a path) was cut inside a character, and the error
 * body was not UTF-8 (clients failed to decode it). Each name is 'a' and then
 * two-byte characters, so every even limit falls inside one. */
static void errors_are_utf8(lr_worker *w)
{
    char body[2048], name[1024];
    const char *bodies[4];
    char store[4][2048];

    strcpy(name, "a");
    repeat(name, sizeof name, "\xc3\xa9", 100); /* a, then 100 x e-acute */
    snprintf(store[0], sizeof store[0], "{\"%s\":1}", name);
    snprintf(store[1], sizeof store[1], "{\"device\":\"%s\",\"domain\":[64]}", name);
    snprintf(store[2], sizeof store[2], "{\"device\":{\"base\":\"%s\"}}", name);
    /* a nested unknown key: the path "kernel.fields[0]." and the name pass 256 bytes */
    snprintf(store[3], sizeof store[3],
             "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":[32]},"
             "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],\"%s%s\":1}]}}",
             name, name + 1);
    for (int i = 0; i < 4; i++)
        bodies[i] = store[i];
    for (int i = 0; i < 4; i++) {
        lr_error err;
        lr_error_clear(&err);
        snprintf(body, sizeof body, "%s", bodies[i]);
        char *out = lr_api_estimate(w, body, strlen(body), &err);
        CHECK(out == NULL);
        free(out);
        CHECK(lr_error_is_set(&err));
        if (!is_utf8(err.message) || !is_utf8(err.path)) {
            check_failures++;
            fprintf(stderr, "utf-8 case %d: the error is not UTF-8: %s at %s\n", i, err.message,
                    err.path);
        }
        char *json = lr_error_to_json(&err, "x");
        cJSON *doc = json ? cJSON_Parse(json) : NULL;
        CHECK(doc != NULL && is_utf8(json));
        cJSON_Delete(doc);
        free(json);
    }
    /* The unknown key is shown up to a character boundary, not dropped. */
    lr_error err;
    lr_error_clear(&err);
    CHECK(lr_api_estimate(w, store[0], strlen(store[0]), &err) == NULL);
    CHECK_CONTAINS(err.message, "unknown key 'a\xc3\xa9\xc3\xa9");
}

/* Limits of size: an oversized body and deep nesting are refused before parsing. */
static void hostile_sizes(lr_worker *w)
{
    lr_error err;
    size_t n = LR_MAX_BODY_BYTES + 10;
    char *big = malloc(n + 1);
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    big[n] = '\0';
    lr_error_clear(&err);
    CHECK(lr_api_estimate(w, big, n, &err) == NULL);
    CHECK_STR(lr_code_name(err.code), "limit_exceeded");
    free(big);
    char deep[200];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    lr_error_clear(&err);
    CHECK(lr_api_estimate(w, deep, sizeof deep, &err) == NULL);
    CHECK_STR(lr_code_name(err.code), "invalid_json");
    CHECK_CONTAINS(err.message, "nested deeper");
}

/* A tiny isl budget: a clear budget error, not a stuck worker. The index x+y makes
 * footprints that are not unions of boxes, which isl counts (docs/model.md §5,
 * "Counting boxes": boxes are counted without isl, and so without its budget). */
static void isl_budget(void)
{
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1, .isl_max_operations = 200};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = lr_worker_new(api, &err);
    const char *body = "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"kernel\":{"
                       "\"fields\":[{\"name\":\"A\",\"dims\":[128,64],\"loads\":[[\"x+y\","
                       "\"y\"]]}]},\"launch\":{\"block\":[32,2]}}";
    char *out = lr_api_estimate(w, body, strlen(body), &err);
    CHECK(out == NULL);
    CHECK_STR(lr_code_name(err.code), "budget_exceeded");
    free(out);
    lr_worker_free(w);
    lr_api_free(api);
}

/* A wall-clock limit interrupts isl mid-computation: a kernel of six floor
 * divisions, ranked with a 0.3 s limit, fails with budget_exceeded within ~1 s (it
 * needs several seconds otherwise), and the worker serves the next request. */
static void time_limit(void)
{
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1, .time_limit_s = 0.3};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = lr_worker_new(api, &err);
    const char *slow = "{\"device\":\"A100-SXM4-80GB\",\"domain\":[1024,1024],"
                       "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[1026,1026],"
                       "\"loads\":[[\"x/2+x/3+x/5+x/7+x/11+x/13\",\"y\"]]}]}}";
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char *out = lr_api_rank(w, slow, strlen(slow), NULL, NULL, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    CHECK(out == NULL);
    CHECK_STR(lr_code_name(err.code), "budget_exceeded");
    CHECK_CONTAINS(err.message, "time limit");
    CHECK(s < 1.5);
    free(out);
    lr_error_clear(&err);
    const char *body = "{" OK_REST ",\"launch\":{\"block\":[32,2]}}";
    out = lr_api_estimate(w, body, strlen(body), &err);
    CHECK(out != NULL);
    free(out);
    lr_worker_free(w);
    lr_api_free(api);
}

/* Issue 10 item 1: the time limit held only isl, so a request whose time goes to the
 * warp and block samplers (a 1024-thread block folded 4x4x4 with eight non-affine
 * x/2+k loads: 576 instructions without the affine fast path) ran 7 s optimised and
 * minutes under ASan against any limit. Every stage now stops at the one deadline:
 * estimate and rank answer budget_exceeded within twice the limit, and the worker
 * serves the next request. */
static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* The request whose time goes to the samplers (see above) into body, with more members
 * (",\"search\":...", or "") after its launch. */
static void sampler_heavy_request(char *body, size_t size, const char *more)
{
    char loads[512] = "";
    for (int k = 0; k < 8; k++)
        snprintf(loads + strlen(loads), sizeof loads - strlen(loads),
                 "%s[\"x/2+%d\",\"y\",\"z\"]", k ? "," : "", k);
    snprintf(body, size,
             "{\"device\":\"A100-SXM4-40GB\",\"domain\":[512,512,512],"
             "\"kernel\":{\"fields\":[{\"name\":\"u\",\"dims\":[520,512,512],\"loads\":[%s]},"
             "{\"name\":\"v\",\"dims\":[512,512,512],\"stores\":[[\"x\",\"y\",\"z\"]]}]},"
             "\"launch\":{\"block\":[1024,1,1],\"folding\":[4,4,4]}%s}",
             loads, more);
}

static void time_limit_stops_the_samplers(void)
{
    const double limit = 0.5;
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 2, .time_limit_s = limit};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = lr_worker_new(api, &err);
    char body[2048];
    sampler_heavy_request(
        body, sizeof body,
        ",\"search\":{\"blocks\":[[1024,1,1],[512,2,1]],\"foldings\":[[4,4,4]]}");
    for (int rank = 0; rank < 2; rank++) {
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        lr_error_clear(&err);
        char *out = rank ? lr_api_rank(w, body, strlen(body), NULL, NULL, &err)
                         : lr_api_estimate(w, body, strlen(body), &err);
        double s = seconds_since(&t0);
        CHECK(out == NULL);
        CHECK_STR(lr_code_name(err.code), "budget_exceeded");
        CHECK_CONTAINS(err.message, "time limit");
        CHECK(s < 2 * limit);
        if (s >= 2 * limit)
            fprintf(stderr, "%s answered after %.2f s, limit %.2f s\n",
                    rank ? "rank" : "estimate", s, limit);
        free(out);
    }
    lr_error_clear(&err);
    const char *cheap = "{" OK_REST ",\"launch\":{\"block\":[32,2]}}";
    char *out = lr_api_estimate(w, cheap, strlen(cheap), &err);
    CHECK(out != NULL);
    free(out);
    lr_worker_free(w);
    lr_api_free(api);
}

/* Issue 10, item 9: a daemon's second SIGTERM cancels the requests it runs
 * (lr_api_cancel, through the estimator's deadline path) instead of waiting up to the
 * time limit. Two slow requests run on their own threads under the default 30 s
 * limit: a ranking whose time goes to isl (six floor divisions, seconds without a
 * limit) and an estimate whose time goes to the samplers (the kernel of
 * time_limit_stops_the_samplers). Cancelled after 0.3 s, both answer unavailable
 * within a second, and so does every request after (a cancelled api stays so). */
typedef struct cancel_job {
    lr_api *api;
    const char *body;
    int rank;
    lr_error err;
    char *out;
    double done_at; /* CLOCK_MONOTONIC seconds */
} cancel_job;

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *cancel_job_run(void *p)
{
    cancel_job *j = p;
    lr_error_clear(&j->err);
    lr_worker *w = lr_worker_new(j->api, &j->err); /* freed on this thread, as api.h asks */
    if (w)
        j->out = j->rank ? lr_api_rank(w, j->body, strlen(j->body), NULL, NULL, &j->err)
                         : lr_api_estimate(w, j->body, strlen(j->body), &j->err);
    j->done_at = mono_s();
    lr_worker_free(w);
    return NULL;
}

static void cancel_stops_running_requests(void)
{
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1};
    lr_api *api = lr_api_new(&cfg, &err);
    char sampler_heavy[2048];
    sampler_heavy_request(sampler_heavy, sizeof sampler_heavy, "");
    cancel_job jobs[2] = {
        {.api = api,
         .rank = 1,
         .body = "{\"device\":\"A100-SXM4-80GB\",\"domain\":[1024,1024],"
                 "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[1026,1026],"
                 "\"loads\":[[\"x/2+x/3+x/5+x/7+x/11+x/13\",\"y\"]]}]}}"},
        {.api = api, .rank = 0, .body = sampler_heavy},
    };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK_INT(pthread_create(&t[i], NULL, cancel_job_run, &jobs[i]), 0);
    struct timespec nap = {0, 300 * 1000 * 1000};
    nanosleep(&nap, NULL);
    double cancelled_at = mono_s();
    lr_api_cancel(api);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        double after = jobs[i].done_at - cancelled_at;
        CHECK(jobs[i].out == NULL);
        CHECK_STR(lr_code_name(jobs[i].err.code), "unavailable");
        CHECK_CONTAINS(jobs[i].err.message, "shutting down");
        CHECK(after < 1.0);
        if (after >= 1.0)
            fprintf(stderr, "%s answered %.2f s after the cancel\n", i ? "estimate" : "rank",
                    after);
        free(jobs[i].out);
    }
    /* and later requests too, however cheap, without computing */
    cancel_job later = {
        .api = api, .rank = 0, .body = "{" OK_REST ",\"launch\":{\"block\":[32,2]}}"};
    cancel_job_run(&later);
    CHECK(later.out == NULL);
    CHECK_STR(lr_code_name(later.err.code), "unavailable");
    free(later.out);
    lr_api_free(api);
}

/* The estimator's per-thread caches (access maps, footprint counts, wave results) are
 * shared by equal kernels across requests; they must never change an answer: a worker
 * that has served other configurations of the kernel answers exactly like a fresh one. */
static void caches_are_invisible(void)
{
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *warm = lr_worker_new(api, &err);
    static const char *const blocks[] = {"[32,4,1]", "[64,2,1]", "[16,8,2]", "[32,2,2]"};
    char body[1024];
    for (int i = 0; i < 4; i++) {
        snprintf(
            body, sizeof body,
            "{\"device\":\"A100-SXM4-40GB\",\"domain\":[200,100,40],\"launch\":{\"block\":%s},"
            "\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[202,102,42],\"loads\":"
            "[[\"x+1\",\"y+1\",\"z+1\"],[\"x\",\"y+1\",\"z+1\"],[\"x+2\",\"y+1\",\"z+1\"],"
            "[\"x+1\",\"y\",\"z+1\"],[\"x+1\",\"y+2\",\"z+1\"],[\"x+1\",\"y+1\",\"z\"],"
            "[\"x+1\",\"y+1\",\"z+2\"]]},{\"name\":\"B\",\"dims\":[202,102,42],"
            "\"stores\":[[\"x+1\",\"y+1\",\"z+1\"]]}]}}",
            blocks[i]);
        lr_worker *fresh = lr_worker_new(api, &err);
        char *a = lr_api_estimate(warm, body, strlen(body), &err);
        char *b = lr_api_estimate(fresh, body, strlen(body), &err);
        CHECK(a && b && strcmp(a, b) == 0);
        free(a);
        free(b);
        lr_worker_free(fresh);
    }
    lr_worker_free(warm);
    lr_api_free(api);
}

/* The member paths of v, one per line, in order (arrays as [], their members by the
 * first element's shape): the shape of an answer, without its values. */
static void shape_of(const cJSON *v, const char *path, char *out, size_t size)
{
    size_t n = strlen(out);
    snprintf(out + n, size - n, "%s\n", path);
    char sub[256];
    if (cJSON_IsObject(v))
        for (const cJSON *c = v->child; c; c = c->next) {
            snprintf(sub, sizeof sub, "%s.%s", path, c->string);
            shape_of(c, sub, out, size);
        }
    else if (cJSON_IsArray(v) && v->child) {
        snprintf(sub, sizeof sub, "%s[]", path);
        shape_of(v->child, sub, out, size);
    }
}

/* Issue 41: a cached row is checked only when it is written, and its stamp carries the
 * writer's format (LR_ESTIMATE_FORMAT, response.h), so that a build writing other
 * members never reads an older build's rows. This holds the two together: the shape of
 * an estimate answer (its member paths, values aside) hashes to the value recorded
 * here for the current format. A change of the members fails it until both the format
 * and this hash change. The request sends its registers: warnings are added to the
 * answer, never stored, and one without registers would have a registers_assumed
 * warning in the shape (issue 43). */
static void estimate_format_is_pinned(void)
{
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    static const char body[] =
        "{\"device\":\"A100-SXM4-40GB\",\"domain\":[200,100,40],\"launch\":{\"block\":[32,4,1]},"
        "\"kernel\":{\"registers\":32,\"fields\":[{\"name\":\"A\",\"dims\":[202,102,42],"
        "\"loads\":[[\"x+1\",\"y+1\",\"z+1\"],[\"x\",\"y+1\",\"z+1\"]]},{\"name\":\"B\","
        "\"dims\":[202,102,42],\"stores\":[[\"x+1\",\"y+1\",\"z+1\"]]}]}}";
    char *out = w ? lr_api_estimate(w, body, strlen(body), &err) : NULL;
    cJSON *o = out ? cJSON_Parse(out) : NULL;
    static char shape[16384];
    shape[0] = '\0';
    if (o)
        shape_of(o, "", shape, sizeof shape);
    const char *parts[] = {shape};
    char hash[LR_HASH_HEX];
    lr_hash_hex(parts, 1, hash);
    CHECK(o != NULL);
    CHECK_STR(LR_ESTIMATE_FORMAT, "estimate/2026.11-35-blocks-resident");
    CHECK_STR(hash, "db7b5923445cc8a7982016f758b92592");
    cJSON_Delete(o);
    free(out);
    lr_worker_free(w);
    lr_api_free(api);
}

/* Runs sql on the cache database at path, as a damaged disk or another program would;
 * with out, copies the first column of the first row there. */
static void raw_sql(const char *path, const char *sql, char *out, size_t outsize)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_open(path, &db) == SQLITE_OK &&
                     sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK
                 ? sqlite3_step(s)
                 : SQLITE_ERROR;
    if (out && rc == SQLITE_ROW)
        snprintf(out, outsize, "%s", (const char *)sqlite3_column_text(s, 0));
    CHECK(rc == SQLITE_ROW || rc == SQLITE_DONE);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        fprintf(stderr, "raw sql failed: %s: %s\n", sql, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    sqlite3_close(db);
}

/* The answer parses as one JSON object whose "cached" is want_cached. */
static void check_answer(const char *out, int want_cached, const char *what)
{
    cJSON *o = out ? cJSON_ParseWithOpts(out, NULL, 1) : NULL;
    CHECK(o != NULL);
    CHECK(cJSON_IsBool(cJSON_GetObjectItem(o, "cached")) &&
          cJSON_IsTrue(cJSON_GetObjectItem(o, "cached")) == want_cached);
    if (!o || cJSON_IsTrue(cJSON_GetObjectItem(o, "cached")) != want_cached)
        fprintf(stderr, "%s: answer %.200s\n", what, out ? out : "(null)");
    cJSON_Delete(o);
}

static void remove_db(const char *db)
{
    char side[96];
    unlink(db);
    snprintf(side, sizeof side, "%s-wal", db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db);
    unlink(side);
}

/* Issue 10, item 3: cache rows were trusted blindly. A damaged row (text that is not
 * JSON, a member missing or of the wrong type, another configuration's numbers) was
 * served as a 200 with an invalid or wrong body, and a row without launch.block
 * crashed the process on a rank with measure.top >= 1. Each such row is now a miss:
 * recomputed (the same answer as a fresh one), replaced, and the next ask a hit. */
static void damaged_cache_rows_are_misses(const char *dir)
{
    static const char *const damage[] = {
        "UPDATE prediction SET json = substr(json, 1, 40) || '}'",
        "UPDATE prediction SET json = '[1]'",
        "UPDATE prediction SET json = json_remove(json, '$.launch.block')",
        "UPDATE prediction SET json = json_set(json, '$.performance.predicted', 'fast')",
        "UPDATE prediction SET json = json_set(json, '$.launch.block[0]', 64)",
        "UPDATE prediction SET json = json_set(json, '$.estimate.dram_load', 1e999)",
        "UPDATE prediction SET json = json_set(json, '$.device', 'H100 \"evil\"')",
        "UPDATE prediction SET json = json_insert(json, '$.extra', 1)",
    };
    char db[96];
    snprintf(db, sizeof db, "%s/damaged.sqlite", dir);
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1, .db_path = db};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = lr_worker_new(api, &err);
    const char *body = "{" OK_REST ",\"launch\":{\"block\":[32,2]}}";
    char *fresh = lr_api_estimate(w, body, strlen(body), &err);
    check_answer(fresh, 0, "fresh");
    for (size_t i = 0; i < sizeof damage / sizeof *damage; i++) {
        /* each case damages a good row */
        raw_sql(db, "DELETE FROM prediction", NULL, 0);
        free(lr_api_estimate(w, body, strlen(body), &err));
        raw_sql(db, damage[i], NULL, 0);
        lr_error_clear(&err);
        char *a = lr_api_estimate(w, body, strlen(body), &err);
        check_answer(a, 0, damage[i]);
        CHECK(a && fresh && strcmp(a, fresh) == 0);
        char *b = lr_api_estimate(w, body, strlen(body), &err);
        check_answer(b, 1, damage[i]);
        free(a);
        free(b);
    }
    /* a rank that measures its best configuration reads block and folding of cached
     * rows: a row without launch.block was a NULL dereference */
    const char *rank = "{" OK_REST ",\"search\":{\"blocks\":[[32,2],[64,1]],"
                       "\"foldings\":[[1]]},\"measure\":{\"top\":1}}";
    lr_error_clear(&err);
    char *r = lr_api_rank(w, rank, strlen(rank), NULL, NULL, &err);
    check_answer(r, 0, "rank, first");
    free(r);
    raw_sql(db, "UPDATE prediction SET json = json_remove(json, '$.launch.block')", NULL, 0);
    r = lr_api_rank(w, rank, strlen(rank), NULL, NULL, &err);
    check_answer(r, 0, "rank without launch.block");
    CHECK_CONTAINS(r, "\"cached_results\":0");
    CHECK_CONTAINS(r, "\"measure\":{\"status\":");
    free(r);
    r = lr_api_rank(w, rank, strlen(rank), NULL, NULL, &err);
    check_answer(r, 1, "rank, repaired");
    free(r);
    free(fresh);
    lr_worker_free(w);
    lr_api_free(api);
    remove_db(db);
}

/* Issue 10, item 4: the cache key is a hash, and a hit never compared the request,
 * so a collision answered with another kernel's numbers. The collision is made by
 * hand: kernel A's row moved under kernel B's key. B's answer must be B's own. */
static void colliding_cache_keys_are_misses(const char *dir)
{
    char db[96], key_b[64] = "", sql[256];
    snprintf(db, sizeof db, "%s/collision.sqlite", dir);
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1, .db_path = db};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = lr_worker_new(api, &err);
    const char *a = "{" OK_REST ",\"launch\":{\"block\":[32,2]}}";
    const char *b = "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"kernel\":{\"fields\":"
                    "[{\"name\":\"A\",\"dims\":[64,64],\"loads\":[[\"y\",\"x\"]]}]},"
                    "\"launch\":{\"block\":[32,2]}}";
    char *b0 = lr_api_estimate(w, b, strlen(b), &err);
    raw_sql(db, "SELECT key FROM prediction", key_b, sizeof key_b);
    char *a0 = lr_api_estimate(w, a, strlen(a), &err);
    CHECK(a0 && b0 && strcmp(a0, b0) != 0);
    snprintf(sql, sizeof sql, "DELETE FROM prediction WHERE key = '%s'", key_b);
    raw_sql(db, sql, NULL, 0);
    snprintf(sql, sizeof sql, "UPDATE prediction SET key = '%s'", key_b);
    raw_sql(db, sql, NULL, 0);
    char *b1 = lr_api_estimate(w, b, strlen(b), &err);
    check_answer(b1, 0, "B after the collision");
    CHECK(b1 && b0 && strcmp(b1, b0) == 0);
    char *b2 = lr_api_estimate(w, b, strlen(b), &err);
    check_answer(b2, 1, "B stored again");
    free(a0);
    free(b0);
    free(b1);
    free(b2);
    lr_worker_free(w);
    lr_api_free(api);
    remove_db(db);
}

/* An api (one ranking thread) caching in db, a new file cache.sqlite in a new
 * directory made from the template dir, and its worker *w; the caller frees both and
 * removes the files. */
static lr_api *api_on_new_db(char *dir, char *db, size_t db_size, lr_worker **w, lr_error *err)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(db, db_size, "%s/cache.sqlite", dir);
    lr_error_clear(err);
    lr_api_config cfg = {.threads = 1, .db_path = db};
    lr_api *api = lr_api_new(&cfg, err);
    *w = api ? lr_worker_new(api, err) : NULL;
    return api;
}

/* Good requests: a custom device, and the cache answering the second time. */
/* The device_provenance an estimate of body answers with: "<provenance> <rank_precision>",
 * or "" when the answer lacks it. */
static void provenance_of(lr_worker *w, const char *device, char *out, size_t size)
{
    char body[16384]; /* a full description with its sources and units */
    lr_error err;
    snprintf(
        body, sizeof body,
        "{\"device\":%s,\"domain\":[64,64],\"kernel\":{\"registers\":32,\"fields\":[" FIELD_A
        "]},\"launch\":{\"block\":[32,2]}}",
        device);
    lr_error_clear(&err);
    char *a = lr_api_estimate(w, body, strlen(body), &err);
    cJSON *o = a ? cJSON_Parse(a) : NULL;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "device_provenance");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(p, "provenance");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(p, "rank_precision");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(p, "meaning");
    out[0] = '\0';
    if (cJSON_IsString(k) && cJSON_IsNumber(r) && cJSON_IsString(m) &&
        strlen(m->valuestring) > 40)
        snprintf(out, size, "%s %g", k->valuestring, r->valuedouble);
    cJSON_Delete(o);
    free(a);
}

/* Issue 44, item 2: every answer says what its device's figures rest on. The built-ins
 * measured on their GPU (H100, H200) say "measured" with their corpus' precision, the A100s
 * "derived" and the others "borrowed", both with an uncalibrated GPU's 0.08; a built-in with
 * overrides keeps its base's, a full description without one borrows, and one that states
 * its provenance keeps it. */
static void answers_carry_the_device_provenance(lr_api *api, lr_worker *w)
{
    char got[128];
    provenance_of(w, "\"H100-SXM5-80GB\"", got, sizeof got);
    CHECK_STR(got, "measured 0.0668");
    provenance_of(w, "\"H200-SXM-141GB\"", got, sizeof got);
    CHECK_STR(got, "measured 0.059");
    provenance_of(w, "\"A100-SXM4-40GB\"", got, sizeof got);
    CHECK_STR(got, "derived 0.08");
    provenance_of(w, "\"K20m\"", got, sizeof got);
    CHECK_STR(got, "borrowed 0.08");
    provenance_of(w, "{\"base\":\"H200-SXM-141GB\",\"dram_bw_gbs\":4000}", got, sizeof got);
    CHECK_STR(got, "measured 0.059");
    provenance_of(w, "{\"base\":\"V100-PCIe-32GB\",\"provenance\":\"derived\"}", got,
                  sizeof got);
    CHECK_STR(got, "derived 0.08");
    /* the same figures under another provenance are another answer, not a cache hit of
     * the first (the canonical request carries it) */
    provenance_of(w, "{\"base\":\"V100-PCIe-32GB\",\"provenance\":\"measured\"}", got,
                  sizeof got);
    CHECK_STR(got, "measured 0.08");
    /* a full description: GET /v1/devices/K20m's form without its provenance */
    cJSON *k20 = NULL;
    lr_error err;
    char *dj = lr_api_device(api, "K20m", &err);
    k20 = dj ? cJSON_Parse(dj) : NULL;
    free(dj);
    cJSON *dev = cJSON_DetachItemFromObjectCaseSensitive(k20, "device");
    if (!dev)
        dev = k20, k20 = NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(dev, "provenance");
    cJSON_DeleteItemFromObjectCaseSensitive(dev, "rank_precision");
    char *text = dev ? cJSON_PrintUnformatted(dev) : NULL;
    CHECK(text != NULL);
    if (text) {
        provenance_of(w, text, got, sizeof got);
        CHECK_STR(got, "borrowed 0.0632");
    }
    free(text);
    cJSON_Delete(dev);
    cJSON_Delete(k20);
}

static void good_requests(void)
{
    char dir[] = "/tmp/lr-test-XXXXXX", db[64];
    lr_error err;
    lr_worker *w;
    lr_api *api = api_on_new_db(dir, db, sizeof db, &w, &err);
    CHECK_STR(lr_api_cache_status(api), "ok");
    const char *body = "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"l2_bytes\":41943040},"
                       "\"domain\":[64,64]," KERNEL_OK ",\"launch\":{\"block\":[32,2]}}";
    char *a = lr_api_estimate(w, body, strlen(body), &err);
    char *b = lr_api_estimate(w, body, strlen(body), &err);
    CHECK(a && strstr(a, "\"cached\":false"));
    CHECK(b && strstr(b, "\"cached\":true"));
    CHECK(a && strstr(a, "A100-SXM4-40GB (custom)"));
    /* the same request with other key order and spacing hits the same entry */
    const char *same =
        "{ \"launch\":{\"block\":[32,2,1],\"folding\":[1,1,1]}, \"domain\":[64,64,1],"
        "\"device\":{\"l2_bytes\":41943040,\"base\":\"A100-SXM4-40GB\"}," KERNEL_OK "}";
    char *c = lr_api_estimate(w, same, strlen(same), &err);
    CHECK(c && strstr(c, "\"cached\":true"));
    /* an absent store list is an empty one */
    const char *renamed =
        "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"l2_bytes\":41943040},"
        "\"domain\":[64,64],\"kernel\":{\"fields\":[{\"name\":\"A\",\"dims\":[64,64],"
        "\"loads\":[[\"x\",\"y\"]],\"stores\":[]}]},\"launch\":{\"block\":[32,2]}}";
    char *e = lr_api_estimate(w, renamed, strlen(renamed), &err);
    CHECK(e && strstr(e, "\"cached\":true"));
    free(e);
    /* a different device figure is a different prediction */
    const char *other = "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"l2_bytes\":41943041},"
                        "\"domain\":[64,64]," KERNEL_OK ",\"launch\":{\"block\":[32,2]}}";
    char *d = lr_api_estimate(w, other, strlen(other), &err);
    CHECK(d && strstr(d, "\"cached\":false"));
    lr_api_stats st;
    lr_api_get_stats(api, &st);
    CHECK_INT(st.cache_hits, 3);
    free(a);
    free(b);
    free(c);
    free(d);
    lr_worker_free(w);
    lr_api_free(api);
    unlink(db);
    char side[80];
    snprintf(side, sizeof side, "%s-wal", db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db);
    unlink(side);
    rmdir(dir);
}

/* One cheap estimate on w: 0 when it answers (a cache never fails a request). */
static int estimate_ok(lr_worker *w)
{
    const char *body = "{" OK_REST ",\"launch\":{\"block\":[32,2]}}";
    lr_error err;
    lr_error_clear(&err);
    char *out = lr_api_estimate(w, body, strlen(body), &err);
    int ok = out != NULL;
    free(out);
    return ok ? 0 : -1;
}

/* Issue 10, item 9: the cache's status latched its first failure for ever, and a
 * deleted database file went unnoticed (the connections wrote on to the deleted
 * file). Now lr_api_cache_status (GET /healthz) says at once that the file was
 * deleted, the next request after a quarter second makes a new one and the status is
 * "ok" again; a cache that cannot be opened (a directory in the file's place) is
 * reported, and recovers once the cause is gone. */
static void cache_health_recovers(void)
{
    char dir[] = "/tmp/lr-test-XXXXXX", db[64];
    lr_error err;
    lr_worker *w;
    lr_api *api = api_on_new_db(dir, db, sizeof db, &w, &err);
    struct timespec look = {0, 300 * 1000 * 1000}; /* past the quarter second */
    CHECK_INT(estimate_ok(w), 0);
    CHECK_STR(lr_api_cache_status(api), "ok");

    remove_db(db);
    CHECK_CONTAINS(lr_api_cache_status(api), "was deleted");
    nanosleep(&look, NULL);
    CHECK_INT(estimate_ok(w), 0);
    CHECK_STR(lr_api_cache_status(api), "ok");
    CHECK_INT(access(db, F_OK), 0); /* a new database */
    CHECK_INT(estimate_ok(w), 0);   /* ... that caches: the second answer is a hit */
    lr_api_stats st;
    lr_api_get_stats(api, &st);
    CHECK_INT(st.cache_hits, 1);

    remove_db(db);
    CHECK_INT(mkdir(db, 0700), 0); /* nothing can open it as a database now */
    nanosleep(&look, NULL);
    CHECK_INT(estimate_ok(w), 0);
    const char *status = lr_api_cache_status(api);
    CHECK(strcmp(status, "ok") != 0 && !strstr(status, "was deleted"));
    CHECK_INT(rmdir(db), 0);
    nanosleep(&look, NULL);
    CHECK_INT(estimate_ok(w), 0);
    CHECK_STR(lr_api_cache_status(api), "ok");

    lr_worker_free(w);
    lr_api_free(api);
    remove_db(db);
    rmdir(dir);
}

/* ---- issue 41, item 4: JSON numbers exactly as RFC 8259 writes them ---------------- */

/* Number forms cJSON (strtod behind it) took, or that are no JSON at all, each put in
 * domain[0]: refused as invalid_json naming domain[0], line 1, column 25. */
static const char *const bad_numbers[] = {
    "0100", "-0100", "01.5", "64.",      ".5",        "-",     "+1",   "1e",    "1e+",
    "1.e5", "0x10",  "NaN",  "Infinity", "-Infinity", "1_000", "- 1",  "1.5.5", "00",
    "-.5",  "1E",    "0e",   "-01",      "1e-",       "inf",   "-nan", "0.e1",  "1.5e+-3"};

/* Valid edge forms with the value a double holds. */
static const struct {
    const char *text;
    double value;
} good_numbers[] = {{"0", 0},
                    {"-0", -0.0},
                    {"0.5", 0.5},
                    {"1e5", 1e5},
                    {"1E+5", 1e5},
                    {"1e-5", 1e-5},
                    {"-1.25e-3", -1.25e-3},
                    {"0e0", 0},
                    {"10", 10},
                    {"9007199254740992", 9007199254740992.0},
                    {"-9007199254740992", -9007199254740992.0},
                    {"1.7976931348623157e308", 1.7976931348623157e308},
                    {"1.7976931348623158e308", 1.7976931348623157e308}, /* rounds down */
                    {"1e-400", 0},                               /* underflow is finite: 0 */
                    {"9007199254740993.0", 9007199254740992.0}}; /* a double: rounded */

/* body's error through estimate: code, path and a piece of the message. */
static void check_refused(lr_worker *w, const char *body, const char *code, const char *path,
                          const char *msg)
{
    lr_error err;
    lr_error_clear(&err);
    char *out = lr_api_estimate(w, body, strlen(body), &err);
    if (out || strcmp(lr_code_name(err.code), code) || strcmp(err.path, path) ||
        !strstr(err.message, msg)) {
        check_failures++;
        fprintf(stderr,
                "number case %s: got %s at '%s': %s\n   want %s at '%s' containing '%s'\n",
                body, out ? "an answer" : lr_code_name(err.code), err.path, err.message, code,
                path, msg);
    }
    check_count++;
    free(out);
}

static void json_numbers_are_strict(lr_worker *w)
{
    char body[2048], msg[128];
    for (size_t i = 0; i < sizeof bad_numbers / sizeof bad_numbers[0]; i++) {
        snprintf(body, sizeof body,
                 "{\"device\":\"A100-SXM4-40GB\",\"domain\":[%s,64]," KERNEL_OK
                 ",\"launch\":{\"block\":[32]}}",
                 bad_numbers[i]);
        /* the token quoted is the number up to a space ("- 1" is the token "-") */
        snprintf(msg, sizeof msg, "not valid JSON: %.*s at line 1, column 38 is no JSON number",
                 (int)strcspn(bad_numbers[i], " "), bad_numbers[i]);
        check_refused(w, body, "invalid_json", "domain[0]", msg);
    }
    for (size_t i = 0; i < sizeof good_numbers / sizeof good_numbers[0]; i++) {
        lr_error err;
        lr_error_clear(&err);
        snprintf(body, sizeof body, "{\"v\":[%s]}", good_numbers[i].text);
        cJSON *root = lr_request_parse_json(body, strlen(body), &err);
        const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "v"), 0);
        if (!cJSON_IsNumber(v) || v->valuedouble != good_numbers[i].value ||
            signbit(v->valuedouble) != signbit(good_numbers[i].value)) {
            check_failures++;
            fprintf(stderr, "good number %s: refused or misread: %s\n", good_numbers[i].text,
                    err.message);
        }
        check_count++;
        cJSON_Delete(root);
    }
    /* Line and column (in characters: the e-acute is one) on a body of several lines;
     * the path names a value inside arrays and objects. */
    check_refused(
        w,
        "{\n  \"device\": \"A100-SXM4-40GB\",\n  \"domain\": [64, 64],\n"
        "  \"kernel\": {\"fields\": [{\"name\": \"\xc3\xa9\", \"dims\": [64, 064]}]}\n}",
        "invalid_json", "kernel.fields[0].dims[1]", "064 at line 4, column 52");
    check_refused(w, "{\"device\":\"x\\\"y\",\"domain\":{\"a\\\"b\":[[1],[2,+3]]}}",
                  "invalid_json", "domain.a\\\"b[1][1]", "+3 at line 1, column 43");
    check_refused(w, "[1, 2, 01]", "invalid_json", "[2]", "01 at line 1, column 8");
    check_refused(w, "-1.", "invalid_json", "", "-1. at line 1, column 1");
    check_refused(w, "{\"a\":0x10}", "invalid_json", "a", "the number ends before 'x' (hex");
    check_refused(w, "{\"a\":1.5.5}", "invalid_json", "a", "the number ends before '.' (");
    /* Integers past 2^53: kernel parameters take up to 2^53, and 2^53 + 1 used to be
     * read as 2^53 without a word. */
    const char *params =
        "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64],\"launch\":{\"block\":"
        "[32]},\"kernel\":{\"fields\":[" FIELD_A "],\"parameters\":{\"w\":%s}}}";
    snprintf(body, sizeof body, params, "9007199254740993");
    check_refused(w, body, "invalid_request", "kernel.parameters.w",
                  "the integer 9007199254740993 at line 1, column 156 is beyond 2^53");
    snprintf(body, sizeof body, params, "-9007199254740993");
    check_refused(w, body, "invalid_request", "kernel.parameters.w", "beyond 2^53");
    snprintf(body, sizeof body, params, "123456789012345678901234567890");
    check_refused(w, body, "invalid_request", "kernel.parameters.w", "beyond 2^53");
    for (int sign = 0; sign < 2; sign++) {
        snprintf(body, sizeof body, params, sign ? "-9007199254740992" : "9007199254740992");
        lr_error err;
        lr_error_clear(&err);
        char *out = lr_api_estimate(w, body, strlen(body), &err);
        CHECK(out != NULL);
        if (!out)
            fprintf(stderr, "2^53 refused: %s at %s\n", err.message, err.path);
        free(out);
    }
    check_refused(w,
                  "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,64]," KERNEL_OK
                  ",\"launch\":{\"block\":[32]},\"x\":[{\"y\":9007199254740993}]}",
                  "invalid_request", "x[0].y", "beyond 2^53");
    /* Numbers beyond a double */
    check_refused(w, "{\"device\":{\"base\":\"A100-SXM4-40GB\",\"clock_ghz\":1e400}}",
                  "invalid_request", "device.clock_ghz",
                  "the number 1e400 at line 1, column 48 is beyond the largest double");
    check_refused(w, "{\"a\":-1.7976931348623159e308}", "invalid_request", "a",
                  "beyond the largest double");
    check_refused(w, "{\"a\":0.001e312}", "invalid_request", "a", "largest double");
    check_refused(w, "{\"a\":1e99999999999999999999}", "invalid_request", "a",
                  "largest double");
    strcpy(body, "{\"a\":1");
    repeat(body, sizeof body, "0", 400);
    strcat(body, ".5}");
    check_refused(w, body, "invalid_request", "a",
                  "1000000000000000000000000000000000000000..."
                  " at line 1, column 6 is beyond");
    /* Every body a client sends gets the check: rank, measure, emit, a device to store. */
    const char *octal = "{\"device\":\"A100-SXM4-40GB\",\"domain\":[64,064]," KERNEL_OK
                        ",\"launch\":{\"block\":[32]}}";
    lr_error err;
    lr_error_clear(&err);
    char *out = lr_api_rank(w, octal, strlen(octal), NULL, NULL, &err);
    CHECK(out == NULL);
    CHECK_STR(err.path, "domain[1]");
    CHECK_CONTAINS(err.message, "a leading zero");
    free(out);
    lr_error_clear(&err);
    out = lr_api_measure(w, octal, strlen(octal), &err);
    CHECK(out == NULL);
    CHECK_STR(err.path, "domain[1]");
    free(out);
    lr_error_clear(&err);
    out = lr_api_emit(w, octal, strlen(octal), &err);
    CHECK(out == NULL);
    CHECK_STR(err.path, "domain[1]");
    free(out);
    char dir[] = "/tmp/lr-test-XXXXXX", db[64];
    lr_worker *dw;
    lr_api *api = api_on_new_db(dir, db, sizeof db, &dw, &err);
    const char *dev = "{\"name\":\"mine\",\"base\":\"A100-SXM4-40GB\",\"sm_count\":0108}";
    lr_error_clear(&err);
    out = lr_api_device_add(api, dev, strlen(dev), 0, &err);
    CHECK(out == NULL);
    CHECK_STR(lr_code_name(err.code), "invalid_json");
    CHECK_STR(err.path, "sm_count");
    CHECK_CONTAINS(err.message, "0108 at line 1, column 51");
    free(out);
    lr_worker_free(dw);
    lr_api_free(api);
    remove_db(db);
    rmdir(dir);
}

/* Issue 41, item 5: a ranking whose estimated memory (protocol/reqmem.h) passes the
 * api's max_request_mb is refused before anything is computed, with the path of what
 * drives it and both figures; smaller requests of the same api are answered. */
static void memory_limit_refuses_large_requests(void)
{
    lr_error err;
    lr_error_clear(&err);
    lr_api_config cfg = {.threads = 1, .max_request_mb = 2};
    lr_api *api = lr_api_new(&cfg, &err);
    lr_worker *w = api ? lr_worker_new(api, &err) : NULL;
    CHECK(w != NULL);
    if (!w)
        return;
    /* 32 blocks x 4 foldings: 128 configurations, about 4 MB */
    char blocks[512] = "", body[1024];
    for (int by = 1; by <= 32; by++)
        snprintf(blocks + strlen(blocks), sizeof blocks - strlen(blocks), "%s[32,%d]",
                 by > 1 ? "," : "", by);
    snprintf(body, sizeof body,
             "{" OK_REST ",\"search\":{\"blocks\":[%s],\"foldings\":[[1],[1,2],[2],[2,2]]}}",
             blocks);
    char *out = lr_api_rank(w, body, strlen(body), NULL, NULL, &err);
    CHECK(out == NULL);
    CHECK_STR(lr_code_name(err.code), "limit_exceeded");
    CHECK_STR(err.path, "search");
    CHECK_CONTAINS(err.message, "ranking of 128 configurations");
    CHECK_CONTAINS(err.message, "more than the 2 MB a request may use (--max-request-mb)");
    CHECK_CONTAINS(err.message, "rank fewer configurations");
    free(out);
    lr_api_stats st;
    lr_api_get_stats(api, &st);
    CHECK_INT((long long)st.configurations_evaluated, 0);

    /* the same kernel over 2 configurations, and one estimate, fit */
    const char *small =
        "{" OK_REST ",\"search\":{\"blocks\":[[32,1],[32,2]],\"foldings\":[[1]]}}";
    lr_error_clear(&err);
    out = lr_api_rank(w, small, strlen(small), NULL, NULL, &err);
    CHECK(out != NULL);
    free(out);
    const char *est = "{" OK_REST ",\"launch\":{\"block\":[32,2]}}";
    lr_error_clear(&err);
    out = lr_api_estimate(w, est, strlen(est), &err);
    CHECK(out != NULL);
    free(out);
    lr_worker_free(w);
    lr_api_free(api);
}

/* Issue 43, item 1: a request without kernel.registers was answered with 32 assumed,
 * silently. Now it is warned (registers_assumed, path kernel.registers) with the
 * assumed count and the counts from which the answer would change; a request that
 * sends registers is not. */
static void expect_answer(lr_worker *w, int rank, const char *body, const char *want,
                          int present)
{
    lr_error err;
    lr_error_clear(&err);
    char *out = rank ? lr_api_rank(w, body, strlen(body), NULL, NULL, &err)
                     : lr_api_estimate(w, body, strlen(body), &err);
    CHECK(out != NULL);
    if (!out) {
        fprintf(stderr, "  %s: %s\n", body, err.message);
        return;
    }
    if (present)
        CHECK_CONTAINS(out, want);
    else
        CHECK(strstr(out, want) == NULL);
    free(out);
}

#define REGS_2D(regs, more)                                                                    \
    "{\"device\":\"A100-SXM4-40GB\",\"domain\":[1024,1024],\"kernel\":{" regs                  \
    "\"fields\":[{\"name\":\"A\",\"dims\":[1024,1024],\"loads\":[[\"x\",\"y\"]]},"             \
    "{\"name\":\"B\",\"dims\":[1024,1024],\"stores\":[[\"x\",\"y\"]]}]}," more "}"

static void registers_never_silently_assumed(lr_worker *w)
{
    const char *est = REGS_2D("", "\"launch\":{\"block\":[1024,1,1]}");
    expect_answer(w, 0, est,
                  "{\"code\":\"registers_assumed\",\"message\":\"kernel.registers was not "
                  "sent, so 32 registers per thread are assumed; at block 1024x1x1 as many "
                  "of its blocks fit on an SM up to 32 registers per thread, fewer from 33 "
                  "(lower occupancy), and none from 65 (it cannot launch); send "
                  "kernel.registers, the count that ptxas -v",
                  1);
    expect_answer(w, 0, est, "\"path\":\"kernel.registers\"", 1);
    /* 256 threads never run out of registers on an A100 (255 x 256 fits 65536) */
    expect_answer(w, 0, REGS_2D("", "\"launch\":{\"block\":[32,8,1]}"),
                  "fewer from 33 (lower occupancy), and it launches up to 255", 1);
    /* registers sent, even the default count: no warning */
    expect_answer(w, 0, REGS_2D("\"registers\":32,", "\"launch\":{\"block\":[1024,1,1]}"),
                  "registers_assumed", 0);
    expect_answer(w, 1, REGS_2D("\"registers\":64,", "\"search\":{\"blocks\":[[1024,1,1]]}"),
                  "registers_assumed", 0);
    /* a ranking: where the recommendation would change. Both blocks hold 1024 threads,
     * so whichever is picked, from 65 registers nothing launches. */
    expect_answer(w, 1, REGS_2D("", "\"search\":{\"blocks\":[[1024,1,1],[512,2,1]]}"),
                  "none from 65 (it cannot launch); the pick holds up to 64 registers per "
                  "thread; from 65 no configuration launches (decided on the predictions at "
                  "32 registers)",
                  1);
    /* 1024 x 1 x 1 is picked over 32 x 1 x 1 (32 blocks of 32 threads fill half an SM);
     * from 65 registers it cannot launch and the pick is the other one */
    expect_answer(w, 1, REGS_2D("", "\"search\":{\"blocks\":[[1024,1,1],[32,1,1]]}"),
                  "the recommendation 1024x1x1: as many of its blocks fit on an SM up to 32 "
                  "registers per thread, fewer from 33 (lower occupancy), and none from 65 (it "
                  "cannot launch); the pick holds up to 64 registers per thread; from 65 the "
                  "pick among the configurations that still launch is 32x1x1",
                  1);
}

/* A device without "base" that leaves out shared_alloc_bytes rounds no shared memory
 * (docs/api.md, the device figures): blocks of 45,670 B (1,024 B reserved) fit 5 to an
 * H200 SM of 233,472 B unrounded, 4 in its 128-B units. The answer warns, in an estimate
 * and at a ranking's top level; with the figure, or with shared memory of a multiple of
 * 256 B (alike in every unit), it does not. */
#define SHARED_REQ(dev, shared, launch)                                                        \
    "{\"device\":" dev ",\"domain\":[1024,1024],\"kernel\":{\"registers\":32,"                 \
    "\"shared_bytes\":" shared ",\"fields\":[{\"name\":\"A\",\"dims\":[1024,1024],"            \
    "\"loads\":[[\"x\",\"y\"]]},{\"name\":\"B\",\"dims\":[1024,1024],\"stores\":"              \
    "[[\"x\",\"y\"]]}]}," launch "}"

static void shared_alloc_never_silently_assumed(lr_worker *w)
{
    lr_error err;
    lr_error_clear(&err);
    lr_devices *devs = lr_devices_load(&err);
    const est_device *h200 = devs ? lr_devices_find(devs, "H200-SXM-141GB") : NULL;
    cJSON *o = h200 ? lr_device_to_json(NULL, h200, 0) : NULL;
    CHECK(o != NULL);
    if (!o) {
        lr_devices_free(devs);
        return;
    }
    cJSON_ReplaceItemInObject(o, "name", cJSON_CreateString("myh200"));
    char *with = cJSON_PrintUnformatted(o);
    cJSON_DeleteItemFromObject(o, "shared_alloc_bytes");
    char *without = cJSON_PrintUnformatted(o);
    size_t n = strlen(with) + 512;
    char *body = malloc(n);
    CHECK(with && without && body);
    const char *est = "\"launch\":{\"block\":[256,1,1]}";
    snprintf(body, n, SHARED_REQ("%s", "45670", "%s"), without, est);
    expect_answer(w, 0, body,
                  "{\"code\":\"shared_alloc_unknown\",\"message\":\"device 'myh200' gives "
                  "no shared_alloc_bytes, so kernel.shared_bytes (45670 B per block) is not "
                  "rounded up",
                  1);
    expect_answer(w, 0, body, "\"path\":\"device.shared_alloc_bytes\"", 1);
    expect_answer(w, 0, body, "\"blocks_per_sm\":5,", 1);
    snprintf(body, n, SHARED_REQ("%s", "45670", "%s"), without,
             "\"search\":{\"blocks\":[[256,1,1],[128,2,1]]}");
    expect_answer(w, 1, body, "\"code\":\"shared_alloc_unknown\"", 1);
    snprintf(body, n, SHARED_REQ("%s", "45670", "%s"), with, est);
    expect_answer(w, 0, body, "shared_alloc_unknown", 0);
    expect_answer(w, 0, body, "\"blocks_per_sm\":4,", 1);
    snprintf(body, n, SHARED_REQ("%s", "45568", "%s"), without, est);
    expect_answer(w, 0, body, "shared_alloc_unknown", 0);
    free(body);
    cJSON_free(with);
    cJSON_free(without);
    cJSON_Delete(o);
    lr_devices_free(devs);
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
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(w, &cases[i], (int)i);
    for (size_t i = 0; i < sizeof raw_nul_cases / sizeof raw_nul_cases[0]; i++) {
        bad_case c = {0, raw_nul_cases[i].body, raw_nul_cases[i].code, raw_nul_cases[i].path,
                      raw_nul_cases[i].msg};
        run_case_len(w, &c, raw_nul_cases[i].len, 1000 + (int)i);
    }
    no_suggestion_without_a_close_name(w);
    hostile_sizes(w);
    errors_are_utf8(w);
    json_numbers_are_strict(w);
    registers_never_silently_assumed(w);
    shared_alloc_never_silently_assumed(w);
    answers_carry_the_device_provenance(api, w);
    memory_limit_refuses_large_requests();
    lr_worker_free(w);
    lr_api_free(api);
    isl_budget();
    time_limit();
    time_limit_stops_the_samplers();
    cancel_stops_running_requests();
    cache_health_recovers();
    caches_are_invisible();
    estimate_format_is_pinned();
    good_requests();
    char dir[] = "/tmp/lr-cache-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    damaged_cache_rows_are_misses(dir);
    colliding_cache_keys_are_misses(dir);
    rmdir(dir);
    return check_report("test_requests");
}
