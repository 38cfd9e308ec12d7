/*
 * cli_kt.c: `launchrank import-kt`, Kernel Tuner's cache of measured configurations
 * read into the store's measurement log (see cli_kt.h, docs/kernel_tuner.md).
 *
 * A Kernel Tuner cache file (the `cache=` argument of tune_kernel; schemas 1.0.0 and
 * 1.1.0, and the older files without "schema_version": docs/kernel_tuner.md, "The
 * formats")
 * is one JSON object: "device_name", "kernel_name", "problem_size", "tune_params"
 * (name -> list of values), "tune_params_keys", "objective" and "cache", an object from
 * "v1,v2,..." (the values in tune_params_keys order) to the record of one configuration:
 * the parameter values by name, "time" (ms per run, the mean of "times"; or a string
 * such as "CompilationFailedConfig" when it did not run), "times" (ms of each run) and
 * bookkeeping times. While Kernel Tuner runs, the file is left open (no closing braces);
 * such a file is read as if closed.
 *
 * The cache does not say what the kernel reads and writes, so the user gives the
 * launchrank request that describes it (kernel, domain, device) and which tune_params
 * are the block sides and the folding. Each configuration that ran becomes one row of
 * the measurement log with the canonical request of that launch, exactly what
 * measuring on the GPU appends, so `launchrank fit` refits a device to it. Reading the
 * file (analysis) is kt_read; printing the summary is cmd's.
 */
#include "cli_kt.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "api.h"
#include "cli.h"
#include "lr_hash.h"
#include "request.h"
#include "store.h"

/* The plausible run time of one kernel launch, in ms: a "time" outside is no timing
 * but a marker (such as 1e20 for a configuration that failed) or a broken file, and
 * would put a GLup/s of 1e-20 or 1e300 into the log. */
#define KT_MIN_MS 1e-6 /* 1 ns, far below a launch's own overhead */
#define KT_MAX_MS 1e9  /* 11.6 days */

/* Kernel Tuner's block x side when tune_params has no block_size_x; y and z default to
 * 1 (docs/kernel_tuner.md, "The formats"). */
#define KT_DEFAULT_BLOCK_X 256

/* The largest cache file read: a brute-force run over 10^5 configurations with 32
 * timings each is about 150 MB of JSON; beyond this, a file is something else. */
#define KT_MAX_CACHE_BYTES (256u << 20)

static const lr_opt kt_db = {.name = "--db",
                             .arg = "PATH",
                             .def = CLI_DEFAULT_DB ", created if missing",
                             .help = "the database",
                             .kind = LR_OPT_TEXT,
                             .offset = offsetof(cli_opts, db)};
static const lr_opt kt_request = {
    .name = "--request",
    .arg = "FILE",
    .help = "the launchrank request describing the kernel; its \"launch\", \"search\" and "
            "\"measure\" are ignored",
    .kind = LR_OPT_TEXT,
    .offset = offsetof(cli_opts, request)};
static const lr_opt kt_block = {
    .name = "--block",
    .arg = "MAP",
    .def = "block_size_x,block_size_y,block_size_z, Kernel Tuner's names; one the cache "
           "lacks takes Kernel Tuner's default: 256 for x, 1 for y and z",
    .help = "the block sides",
    .kind = LR_OPT_CALL,
    .set = cli_kt_set_block};
static const lr_opt kt_folding = {.name = "--folding",
                                  .arg = "MAP",
                                  .def = "1,1,1",
                                  .help = "the lattice points per thread",
                                  .kind = LR_OPT_CALL,
                                  .set = cli_kt_set_folding};
static const lr_opt kt_ignore = {
    .name = "--ignore",
    .arg = "NAMES",
    .help = "comma-separated tune_params that change neither the block nor the points per "
            "thread (an unrolling factor, a switch): their configurations are imported as "
            "the launch they share. Every tune_param of the cache must be in --block, "
            "--folding or --ignore",
    .kind = LR_OPT_CALL,
    .set = cli_kt_set_ignore};
static const lr_opt *const import_opts[] = {&kt_db,      &kt_request, &kt_block,
                                            &kt_folding, &kt_ignore,  NULL};

static const lr_opt_cmd import_cmd = {
    .name = "import-kt",
    .usage =
        "Usage: launchrank import-kt [OPTIONS] --request FILE CACHE.json\n"
        "\n"
        "Reads a Kernel Tuner cache file (the JSON that tune_kernel(..., cache=...) writes:\n"
        "every configuration it timed) into the measurement log of the database, where\n"
        "`launchrank fit` refits a device to it, as to launchrank's own measurements.\n"
        "The cache does not say what the kernel reads and writes: --request names a\n"
        "launchrank request (kernel, domain, device; docs/api.md) describing the tuned\n"
        "kernel, and --block and --folding say which tune_params are the block sides and\n"
        "the points per thread. A MAP is up to three comma-separated items, x first, each\n"
        "the name of a tune_param or a number (missing trailing items are 1). A tune_param\n"
        "of the cache that --block and --folding do not name is refused (exit 2), not read\n"
        "as 1: name it there, or in --ignore when it does not change the launch.\n"
        "\n"
        "Each configuration that ran becomes one row: its block and folding, the median of\n"
        "its \"times\" (else its \"time\"), in ms, and the GLup/s that makes for the domain.\n"
        "Configurations without a timing (failed in Kernel Tuner: \"time\" is a string,\n"
        "or a number outside 1e-6 to 1e9 ms), or whose block or folding is outside\n"
        "launchrank's ranges (1-1024 threads, 1-64 points per side), are skipped, and so\n"
        "are rows imported before (importing a file twice adds nothing). A summary (JSON)\n"
        "goes to standard output; a warning to standard error when the cache's\n"
        "problem_size is not the request's domain (the GLup/s rest on the domain).\n"
        "\n",
    .opts = import_opts,
    .epilogue =
        "\n"
        "Exit status: 0 success; 2 bad usage, a request or cache file launchrank cannot use\n"
        "(a JSON error with code, message and path on stderr); 1 a file or database that\n"
        "cannot be read or written.\n"
        "\n"
        "Examples:\n"
        "  $ launchrank import-kt --request stencil.json kt_cache.json\n"
        "  $ launchrank import-kt --request k.json --block bx,by,1 kt.json\n"
        "  $ launchrank fit H100-SXM5-80GB\n",
    .min_pos = 1,
    .max_pos = 1,
    .missing = "which Kernel Tuner cache file?"};

/* What an import found (the summary). */
typedef struct kt_stats {
    int entries;   /* configurations in the cache */
    int imported;  /* rows added */
    int again;     /* already in the log from an earlier import */
    int not_timed; /* no usable "time": failed in Kernel Tuner, or KT_MIN/MAX_MS */
    int outside;   /* block or folding outside launchrank's ranges */
    /* the cache's problem_size where it is not the request's domain (then the GLup/s
     * rest on the domain, which may be a mistake); "" when they agree or it is not a
     * list of numbers */
    char problem_size[96];
    /* why the first of those was refused: "path: message" */
    char first_outside[LR_PATH_MAX + LR_MESSAGE_MAX + 2];
} kt_stats;

/* Reads the whole of path into *out (malloc'd, NUL-terminated). 0, or 1 after a
 * message, or 2 after a limit_exceeded error body. */
static int read_cache(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, used = 0;
    int bad = 0;
    if (!f) {
        fprintf(stderr, "launchrank import-kt: cannot read '%s': %s\n", path, strerror(errno));
        return CLI_EXIT_FAILED;
    }
    while (!bad) {
        if (used == cap) {
            if (cap > KT_MAX_CACHE_BYTES) { /* one byte past the limit: too large */
                fclose(f);
                free(buf);
                lr_error err;
                lr_error_clear(&err);
                lr_error_set(&err, LR_LIMIT_EXCEEDED, NULL,
                             "'%s' is larger than %u bytes, the largest cache file read", path,
                             KT_MAX_CACHE_BYTES);
                return cli_report(&err);
            }
            size_t next = cap ? 2 * cap : 1u << 20;
            if (next > (size_t)KT_MAX_CACHE_BYTES + 1)
                next = (size_t)KT_MAX_CACHE_BYTES + 1;
            char *grown = realloc(buf, next + 1); /* + 1 for the NUL */
            bad = !grown;
            if (grown) {
                buf = grown;
                cap = next;
            }
            continue;
        }
        size_t k = fread(buf + used, 1, cap - used, f);
        used += k;
        if (k == 0)
            break;
    }
    bad = bad || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "launchrank import-kt: cannot read '%s' (%s)\n", path,
                buf ? "read error" : "out of memory");
        free(buf);
        return CLI_EXIT_FAILED;
    }
    buf[used] = 0;
    *out = buf;
    *len = used;
    return 0;
}

/* The cache as JSON. A file Kernel Tuner is still writing ends after an entry, with
 * or without a comma, and lacks the closing braces of "cache" and of the file: it is
 * read with them added. NULL with err. */
static cJSON *parse_cache(char *text, size_t len, lr_error *err)
{
    cJSON *j = cJSON_ParseWithLength(text, len);
    if (j)
        return j;
    while (len && strchr(" \t\r\n", text[len - 1]))
        len--;
    if (len && text[len - 1] == ',')
        len--;
    char *closed = malloc(len + 3);
    if (closed) {
        memcpy(closed, text, len);
        memcpy(closed + len, "}}", 3);
        j = cJSON_ParseWithLength(closed, len + 2);
        free(closed);
    }
    if (!j)
        lr_error_set(err, LR_INVALID_JSON, NULL,
                     "the cache file is not JSON (nor a Kernel Tuner cache left open)");
    return j;
}

/* The value of side for the entry at key: a constant, or the entry's value of the
 * named tune_param. -1 with err when the entry lacks it or it is not an integer. */
static int side_value(const cli_kt_side *side, const cJSON *entry, const char *key,
                      lr_error *err)
{
    if (!side->name[0])
        return side->value;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(entry, side->name);
    char path[LR_PATH_MAX];
    snprintf(path, sizeof path, "cache[\"%s\"].%s", key, side->name);
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < 1 ||
        v->valuedouble > 1e6)
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            "'%s' must be a positive integer in every configuration",
                            side->name);
    return (int)v->valuedouble;
}

/* The run time of an entry in ms: the median of "times" when it has them, else
 * "time"; also the fastest and slowest run. 0 when the entry did not run. */
static double entry_ms(const cJSON *entry, double *lo, double *hi)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(entry, "time");
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(entry, "times");
    if (!cJSON_IsNumber(t) || !(t->valuedouble >= KT_MIN_MS && t->valuedouble <= KT_MAX_MS))
        return 0;
    *lo = *hi = t->valuedouble;
    int n = cJSON_GetArraySize(times), k = 0;
    double *v = n > 0 ? malloc(sizeof *v * (size_t)n) : NULL;
    const cJSON *x;
    cJSON_ArrayForEach(x, times)
    {
        if (v && cJSON_IsNumber(x) && x->valuedouble >= KT_MIN_MS &&
            x->valuedouble <= KT_MAX_MS)
            v[k++] = x->valuedouble;
    }
    double ms = t->valuedouble;
    if (k > 0) {
        for (int i = 1; i < k; i++) /* insertion sort: a few dozen timings */
            for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
                double s = v[j];
                v[j] = v[j - 1];
                v[j - 1] = s;
            }
        ms = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
        *lo = v[0];
        *hi = v[k - 1];
    }
    free(v);
    return ms;
}

/* A name of the mapping must be a tune_param of the cache; the default names need
 * not be: Kernel Tuner then launches blocks of KT_DEFAULT_BLOCK_X x 1 x 1. */
static int check_names(cli_kt_side s[3], int defaults, const cJSON *params, const char *what,
                       lr_error *err)
{
    for (int d = 0; d < 3; d++) {
        if (!s[d].name[0] || cJSON_GetObjectItemCaseSensitive(params, s[d].name))
            continue;
        if (defaults) { /* Kernel Tuner's own defaults of its names */
            s[d] = (cli_kt_side){.value = d == 0 ? KT_DEFAULT_BLOCK_X : 1};
            continue;
        }
        return lr_error_set(err, LR_INVALID_REQUEST, "tune_params",
                            "the %s names '%s', which is not one of the cache's tune_params",
                            what, s[d].name);
    }
    return 0;
}

/* Whether one of the three sides is the tune_param name. */
static int maps(const cli_kt_side s[3], const char *name)
{
    for (int d = 0; d < 3; d++)
        if (s[d].name[0] && !strcmp(s[d].name, name))
            return 1;
    return 0;
}

/* Every tune_param of the cache is mapped (a block side, a folding) or ignored, and
 * every ignored name is a tune_param that is not mapped: a parameter left out would
 * otherwise be read as folding 1 (as tile_size_z once was), and its configurations as
 * launches they are not. 0, or -1 with err naming the parameter. */
static int check_unmapped(const cli_kt_map *map, const char *ignore, const cJSON *params,
                          lr_error *err)
{
    char path[LR_PATH_MAX];
    const cJSON *p;
    cJSON_ArrayForEach(p, params)
    {
        const char *name = p->string;
        int mapped = maps(map->block, name) || maps(map->folding, name);
        snprintf(path, sizeof path, "tune_params.%s", name);
        if (mapped && cli_kt_list_has(ignore, name))
            return lr_error_set(err, LR_INVALID_REQUEST, path,
                                "'%s' is both mapped (--%s) and in --ignore: which is it?",
                                name, maps(map->block, name) ? "block" : "folding");
        if (!mapped && !cli_kt_list_has(ignore, name))
            return lr_error_set(
                err, LR_INVALID_REQUEST, path,
                "the tune_param '%s' is mapped by neither --block nor --folding: name it "
                "there (e.g. --folding 1,1,%s when each thread computes %s points along z), "
                "or, when it changes neither the block nor the points per thread (an "
                "unrolling factor, a switch), declare it with --ignore %s",
                name, name, name, name);
    }
    for (const char *s = ignore; s && *s;) {
        size_t len = strcspn(s, ",");
        char name[CLI_KT_NAME_MAX];
        snprintf(name, sizeof name, "%.*s", (int)len, s); /* shorter: cli_kt_set_ignore */
        if (!cJSON_GetObjectItemCaseSensitive(params, name))
            return lr_error_set(err, LR_INVALID_REQUEST, "tune_params",
                                "--ignore names '%s', which is not one of the cache's "
                                "tune_params",
                                name);
        s += len + (s[len] == ',');
    }
    return 0;
}

/* The import: everything between the files read and the summary printed. */
typedef struct kt_import {
    const lr_devices *devs;
    st_store *st;
    cJSON *body;        /* owned: the user's request, launch to be set per entry */
    const cJSON *cache; /* borrowed: the cache file's JSON */
    cli_kt_map map;
    int default_block;  /* map.block holds Kernel Tuner's default names */
    const char *ignore; /* --ignore NAMES (borrowed from argv); NULL when not given */
    char **seen;        /* owned: import ids already in the log */
    int nseen, capseen;
    kt_stats stats;
    char device[64];   /* the request's device name */
    int64_t domain[3]; /* and its domain, lattice points per axis */
} kt_import;

/* st_measurement_fn: collects the import ids of earlier imports. */
static int collect_ids(void *user, const st_measurement *m)
{
    kt_import *im = user;
    cJSON *j = m->json ? cJSON_Parse(m->json) : NULL;
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "import_id"));
    int rc = 0;
    if (id) {
        if (im->nseen == im->capseen) {
            int nc = im->capseen ? 2 * im->capseen : 64;
            char **g = realloc(im->seen, sizeof *g * (size_t)nc);
            if (!g)
                rc = 1;
            else {
                im->seen = g;
                im->capseen = nc;
            }
        }
        if (!rc && !(im->seen[im->nseen] = strdup(id)))
            rc = 1;
        if (!rc)
            im->nseen++;
    }
    cJSON_Delete(j);
    return rc;
}

static int cmp_ids(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether id was imported before: im->seen is sorted once the log has been read (a
 * large cache against a large log would otherwise compare every pair). */
static int seen(const kt_import *im, const char *id)
{
    return im->nseen && bsearch(&id, im->seen, (size_t)im->nseen, sizeof *im->seen, cmp_ids);
}

/* Sets the body's launch to block and folding and parses it. 0, 1 when the launch is
 * outside launchrank's ranges (the message kept in stats), -1 with err otherwise. */
static int parse_launch(kt_import *im, const int block[3], const int folding[3],
                        lr_request *req, lr_error *err)
{
    cJSON *launch = cJSON_CreateObject();
    if (!launch || !cJSON_AddItemToObject(launch, "block", cJSON_CreateIntArray(block, 3)) ||
        !cJSON_AddItemToObject(launch, "folding", cJSON_CreateIntArray(folding, 3))) {
        cJSON_Delete(launch);
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(im->body, "launch");
    cJSON_AddItemToObject(im->body, "launch", launch);
    char *text = cJSON_PrintUnformatted(im->body);
    if (!text)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    lr_error e;
    lr_error_clear(&e);
    int rc = lr_request_parse(im->devs, text, strlen(text), LR_REQ_ESTIMATE, req, &e);
    cJSON_free(text);
    if (rc && !strncmp(e.path, "launch", 6)) {
        if (!im->stats.outside++)
            snprintf(im->stats.first_outside, sizeof im->stats.first_outside, "%s: %s", e.path,
                     e.message);
        return 1;
    }
    if (rc)
        *err = e;
    return rc ? -1 : 0;
}

/* Appends the row of one entry (that ran, with this launch) to the log. */
static int add_row(kt_import *im, const lr_request *req, const char *key, const cJSON *entry,
                   double ms, double lo, double hi, lr_error *err)
{
    double points = (double)req->domain[0] * (double)req->domain[1] * (double)req->domain[2];
    char hash[LR_HASH_HEX], id[LR_HASH_HEX], mstext[32], config[LR_CONFIG_TEXT];
    const char *parts[] = {req->canonical};
    lr_hash_hex(parts, 1, hash);
    /* the same entry of the same file as the same launch of the same request: one row */
    snprintf(mstext, sizeof mstext, "%.17g", ms);
    lr_request_config_text(&req->launch, config);
    const char *stamp =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(entry, "timestamp"));
    const char *idparts[] = {req->canonical,     config, "|kt|", key, "|",
                             stamp ? stamp : "", "|",    mstext};
    lr_hash_hex(idparts, 8, id);
    if (seen(im, id)) {
        im->stats.again++;
        return 0;
    }
    const char *gpu =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(im->cache, "device_name"));
    const char *kname =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(im->cache, "kernel_name"));
    cJSON *rec = cJSON_CreateObject();
    char *text = NULL;
    if (rec && cJSON_AddStringToObject(rec, "source", "kernel_tuner") &&
        cJSON_AddStringToObject(rec, "import_id", id) &&
        cJSON_AddStringToObject(rec, "kernel_name", kname ? kname : "") &&
        cJSON_AddStringToObject(rec, "key", key) &&
        cJSON_AddItemToObject(rec, "entry", cJSON_Duplicate(entry, 1)))
        text = cJSON_PrintUnformatted(rec);
    cJSON_Delete(rec);
    if (!text)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    st_measurement m = {.kernel_hash = hash,
                        .gpu_name = gpu ? gpu : "",
                        .driver_version = "kernel_tuner",
                        .ms_min = lo,
                        .ms_median = ms,
                        .ms_max = hi,
                        /* lattice updates per second of the median, in GLup/s */
                        .glups = points / (ms * 1e6),
                        .json = text,
                        .request = req->canonical};
    memcpy(m.block, req->launch.block, sizeof m.block);
    memcpy(m.folding, req->launch.folding, sizeof m.folding);
    int rc = st_measurement_add(im->st, &m, err);
    cJSON_free(text);
    if (!rc)
        im->stats.imported++;
    return rc;
}

/* Notes the cache's problem_size when its points differ from the request's domain:
 * Kernel Tuner's problem_size is usually the domain, and a different one suggests the
 * request describes another size than the one that was timed. */
static void check_problem_size(kt_import *im, const int64_t domain[3])
{
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(im->cache, "problem_size"), *n;
    double points = cJSON_IsNumber(ps) ? ps->valuedouble : 1;
    if (!cJSON_IsNumber(ps) && (!cJSON_IsArray(ps) || cJSON_GetArraySize(ps) < 1))
        return; /* a string or a function's text: nothing to compare */
    cJSON_ArrayForEach(n, ps)
    {
        if (!cJSON_IsNumber(n))
            return;
        points *= n->valuedouble;
    }
    if (points == (double)domain[0] * (double)domain[1] * (double)domain[2])
        return;
    char *out = im->stats.problem_size;
    size_t size = sizeof im->stats.problem_size, len = 0;
    if (cJSON_IsNumber(ps))
        snprintf(out, size, "%g", points);
    cJSON_ArrayForEach(n, ps)
    {
        if (len + 1 >= size)
            break;
        len += (size_t)snprintf(out + len, size - len, "%s%g", len ? "x" : "", n->valuedouble);
    }
}

/* Imports every entry of the cache. 0, or -1 with err (the first bad value). */
static int kt_read(kt_import *im, lr_error *err)
{
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(im->cache, "cache");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(im->cache, "tune_params");
    if (!cJSON_IsObject(im->cache) || !cJSON_IsObject(entries))
        return lr_error_set(err, LR_INVALID_REQUEST, "cache",
                            "not a Kernel Tuner cache file: it has no \"cache\" object");
    if (!cJSON_IsObject(params))
        return lr_error_set(err, LR_INVALID_REQUEST, "tune_params",
                            "not a Kernel Tuner cache file: it has no \"tune_params\" object");
    if (check_names(im->map.block, im->default_block, params, "--block", err) ||
        check_names(im->map.folding, 0, params, "--folding", err) ||
        check_unmapped(&im->map, im->ignore, params, err))
        return -1;
    if (st_measurement_each(im->st, collect_ids, im, err) > 0)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (lr_error_is_set(err))
        return -1;
    if (im->nseen)
        qsort(im->seen, (size_t)im->nseen, sizeof *im->seen, cmp_ids);
    check_problem_size(im, im->domain);
    const cJSON *entry;
    cJSON_ArrayForEach(entry, entries)
    {
        im->stats.entries++;
        double lo, hi, ms = entry_ms(entry, &lo, &hi);
        if (ms <= 0) {
            im->stats.not_timed++;
            continue;
        }
        int block[3], folding[3];
        for (int d = 0; d < 3; d++)
            if ((block[d] = side_value(&im->map.block[d], entry, entry->string, err)) < 0 ||
                (folding[d] = side_value(&im->map.folding[d], entry, entry->string, err)) < 0)
                return -1;
        lr_request req;
        int rc = parse_launch(im, block, folding, &req, err);
        if (rc < 0)
            return -1;
        if (rc > 0)
            continue;
        rc = add_row(im, &req, entry->string, entry, ms, lo, hi, err);
        lr_request_release(&req);
        if (rc)
            return -1;
    }
    return 0;
}

/* Checks the user's request once (without a launch of the cache), so that its
 * mistakes are reported with their path before any entry. */
static int check_request(kt_import *im, lr_error *err)
{
    if (!cJSON_IsObject(im->body))
        return lr_error_set(err, LR_INVALID_REQUEST, "", "the request must be a JSON object");
    cJSON_DeleteItemFromObjectCaseSensitive(im->body, "search");
    cJSON_DeleteItemFromObjectCaseSensitive(im->body, "measure");
    lr_request req;
    const int one[3] = {1, 1, 1};
    int rc = parse_launch(im, one, one, &req, err);
    if (rc)
        return -1;
    snprintf(im->device, sizeof im->device, "%s", req.device.name);
    memcpy(im->domain, req.domain, sizeof im->domain);
    lr_request_release(&req);
    return 0;
}

static int print_summary(const kt_import *im, const char *db)
{
    const cJSON *c = im->cache;
    cJSON *s = cJSON_CreateObject();
    const char *kd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "device_name"));
    const char *kn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "kernel_name"));
    cJSON_AddStringToObject(s, "db", db);
    cJSON_AddStringToObject(s, "device", im->device);
    cJSON_AddStringToObject(s, "kernel_tuner_device", kd ? kd : "");
    cJSON_AddStringToObject(s, "kernel_name", kn ? kn : "");
    cJSON_AddNumberToObject(s, "entries", im->stats.entries);
    cJSON_AddNumberToObject(s, "imported", im->stats.imported);
    cJSON_AddNumberToObject(s, "already_imported", im->stats.again);
    cJSON_AddNumberToObject(s, "not_timed", im->stats.not_timed);
    cJSON_AddNumberToObject(s, "outside_launchrank_ranges", im->stats.outside);
    if (im->stats.outside)
        cJSON_AddStringToObject(s, "first_outside", im->stats.first_outside);
    if (im->stats.problem_size[0])
        cJSON_AddStringToObject(s, "problem_size_differs", im->stats.problem_size);
    cJSON_AddStringToObject(s, "model_version", LR_MODEL_VERSION);
    int rc = cli_write_json("import-kt", NULL, s);
    cJSON_Delete(s);
    const int64_t *d = im->domain;
    if (!rc && im->stats.problem_size[0])
        fprintf(stderr,
                "launchrank import-kt: warning: the cache's problem_size %s is not the "
                "request's domain %lldx%lldx%lld; the GLup/s are those of the domain\n",
                im->stats.problem_size, (long long)d[0], (long long)d[1], (long long)d[2]);
    if (!rc)
        fprintf(stderr,
                "launchrank import-kt: %d measurement%s of %s added; `launchrank fit --db %s "
                "%s` refits the device to the log\n",
                im->stats.imported, im->stats.imported == 1 ? "" : "s", im->device, db,
                im->device);
    return rc;
}

/* Reads the request and the cache file and imports the cache into the database db;
 * im holds the mapping. Returns the exit status (a summary or an error printed). */
static int import_files(kt_import *im, const char *db, const char *request, const char *file)
{
    char *reqtext = NULL, *cachetext = NULL;
    size_t reqlen = 0, cachelen = 0;
    lr_error err;
    lr_error_clear(&err);
    int rc;
    if ((rc = cli_read_request("import-kt", request, &reqtext, &reqlen)) ||
        (rc = read_cache(file, &cachetext, &cachelen))) {
        free(reqtext);
        return rc;
    }
    cJSON *cache = NULL;
    lr_api_config cfg = {.db_path = db};
    lr_api *api = lr_api_new(&cfg, &err);
    if (api) {
        im->devs = lr_api_device_list(api);
        im->body = lr_request_parse_json(reqtext, reqlen, &err);
    }
    if (api && (!im->body || check_request(im, &err)))
        fprintf(stderr, "launchrank import-kt: the request '%s' is refused:\n", request);
    else if (im->body && (cache = parse_cache(cachetext, cachelen, &err)) &&
             (im->cache = cache) && (im->st = st_open(db, &err)) && !kt_read(im, &err))
        rc = print_summary(im, db);
    if (lr_error_is_set(&err)) {
        if (im->body && im->cache && err.path[0])
            fprintf(stderr, "launchrank import-kt: in the cache file '%s' (%d rows added):\n",
                    file, im->stats.imported);
        rc = cli_report(&err);
    }
    cJSON_Delete(cache);
    lr_api_free(api);
    free(cachetext);
    free(reqtext);
    return rc;
}

int cli_cmd_import_kt(int argc, char **argv)
{
    cli_opts o;
    int rc;
    if (cli_parse_args(&import_cmd, argc, argv, &o, &rc))
        return rc;
    if (!o.request)
        return cli_usage_error(
            "import-kt", "--request FILE is needed: the launchrank request that "
                         "describes the kernel (the cache does not say what it accesses)");
    kt_import im = {
        .map = {.block = {{"block_size_x", 0}, {"block_size_y", 0}, {"block_size_z", 0}},
                .folding = {{"", 1}, {"", 1}, {"", 1}}},
        .ignore = o.ignore};
    char why[LR_OPT_WHY_MAX];
    im.default_block = !o.block;
    if ((o.block && cli_kt_map_parse(o.block, im.map.block, why, sizeof why)) ||
        (o.folding && cli_kt_map_parse(o.folding, im.map.folding, why, sizeof why)))
        return cli_usage_error("import-kt", "%s", why); /* lr_opt checked them already */
    rc = import_files(&im, o.db ? o.db : CLI_DEFAULT_DB, o.request, o.pos[0]);
    for (int i = 0; i < im.nseen; i++)
        free(im.seen[i]);
    free(im.seen);
    st_close(im.st);
    cJSON_Delete(im.body);
    return rc;
}
