/*
 * cli_util.c: see cli.h. The option parser, error bodies, output and input of the
 * subcommands; none of it knows what a kernel is.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "api.h"

/* --threads at most: beyond a thousand, a number is a typo rather than a machine
 * (the daemon uses the same bound). */
#define CLI_MAX_THREADS 1024
/* --top at most: far above any search space a request may ask for; the api applies
 * its own, stricter limit and reports it with the request's path. */
#define CLI_MAX_TOP 1000000

/* ---- options ------------------------------------------------------------------- */

static const struct cli_option {
    const char *name;
    unsigned bit;
    int takes_value;
} cli_options[] = {
    {"--db", CLI_OPT_DB, 1},           {"--pretty", CLI_OPT_PRETTY, 0},
    {"--table", CLI_OPT_TABLE, 0},     {"--threads", CLI_OPT_THREADS, 1},
    {"--top", CLI_OPT_TOP, 1},         {"--measure-top", CLI_OPT_MEASURE_TOP, 1},
    {"--replace", CLI_OPT_REPLACE, 0},
};

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "launchrank %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'launchrank %s --help'.\n", cmd);
    va_end(ap);
    return CLI_EXIT_BAD_INPUT;
}

/* A whole decimal number in [min, max]; 0, or -1 when s is anything else. */
static int parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int set_option(const char *cmd, unsigned bit, const char *value, cli_opts *o)
{
    long n;
    switch (bit) {
    case CLI_OPT_DB:
        if (!*value)
            return cli_usage_error(cmd, "--db needs a file name");
        o->db = value;
        return 0;
    case CLI_OPT_PRETTY:
        o->pretty = 1;
        return 0;
    case CLI_OPT_TABLE:
        o->table = 1;
        return 0;
    case CLI_OPT_REPLACE:
        o->replace = 1;
        return 0;
    case CLI_OPT_THREADS:
        if (parse_long(value, 0, CLI_MAX_THREADS, &n))
            return cli_usage_error(cmd, "--threads: '%s' is not a number from 0 to 1024",
                                   value);
        o->threads = (int)n;
        return 0;
    case CLI_OPT_TOP:
        if (parse_long(value, 0, CLI_MAX_TOP, &n))
            return cli_usage_error(cmd, "--top: '%s' is not a number from 0 to 1000000", value);
        o->top = n;
        return 0;
    case CLI_OPT_MEASURE_TOP:
        if (parse_long(value, 0, 32, &n))
            return cli_usage_error(cmd, "--measure-top: '%s' is not a number from 0 to 32",
                                   value);
        o->measure_top = n;
        return 0;
    }
    return cli_usage_error(cmd, "internal: unknown option bit %u", bit);
}

/* Options are matched exactly (no abbreviations): a later option can then never
 * change what an existing command line means. */
int cli_parse_args(int argc, char **argv, unsigned accepts, int min_pos, int max_pos,
                   cli_opts *o)
{
    const char *cmd = argv[0];
    int options_done = 0;
    memset(o, 0, sizeof *o);
    o->top = -1;
    o->measure_top = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_done || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->npos == max_pos)
                return cli_usage_error(cmd, "unexpected argument '%s'", a);
            o->pos[o->npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options_done = 1;
            continue;
        }
        const char *eq = strchr(a, '=');
        size_t name_len = eq ? (size_t)(eq - a) : strlen(a);
        const struct cli_option *opt = NULL;
        for (size_t k = 0; k < sizeof cli_options / sizeof cli_options[0]; k++)
            if ((cli_options[k].bit & accepts) && strlen(cli_options[k].name) == name_len &&
                strncmp(cli_options[k].name, a, name_len) == 0)
                opt = &cli_options[k];
        if (!opt)
            return cli_usage_error(cmd, "unknown option '%s'", a);
        const char *value = eq ? eq + 1 : NULL;
        if (opt->takes_value && !value) {
            if (i + 1 == argc)
                return cli_usage_error(cmd, "%s needs a value", opt->name);
            value = argv[++i];
        } else if (!opt->takes_value && value) {
            return cli_usage_error(cmd, "%s takes no value", opt->name);
        }
        int rc = set_option(cmd, opt->bit, value, o);
        if (rc)
            return rc;
    }
    if (o->npos < min_pos)
        return cli_usage_error(cmd, "%s",
                               min_pos == 1 ? "missing argument" : "missing arguments");
    if (o->pretty && o->table)
        return cli_usage_error(cmd, "--pretty and --table exclude each other");
    return 0;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

/* ---- errors and output ------------------------------------------------------- */

/* Input errors (the user can fix the request) exit 2, everything else 1. */
static int exit_status_of(lr_code code)
{
    switch (code) {
    case LR_OK:
        return CLI_EXIT_OK;
    case LR_INVALID_JSON:
    case LR_INVALID_REQUEST:
    case LR_UNSUPPORTED_EXPR:
    case LR_NOT_LAUNCHABLE:
    case LR_LIMIT_EXCEEDED:
    case LR_BUDGET_EXCEEDED:
    case LR_NOT_FOUND:
        return CLI_EXIT_BAD_INPUT;
    default:
        return CLI_EXIT_FAILED;
    }
}

/* The same body as the daemon's (server/respond.c), so scripts parse one shape. */
int cli_report(const lr_error *err)
{
    char *text = lr_error_to_json(err, LR_MODEL_VERSION);
    if (text)
        fprintf(stderr, "%s\n", text);
    else /* out of memory: say it without allocating */
        fprintf(stderr, "launchrank: %s: %s\n", lr_code_name(err->code), err->message);
    free(text);
    return exit_status_of(err->code);
}

int cli_print_json(const char *cmd, const char *json, int pretty)
{
    cJSON *root = NULL;
    char *text = NULL;
    if (pretty) {
        const char *end = NULL;
        root = cJSON_ParseWithOpts(json, &end, 1);
        text = root ? cJSON_Print(root) : NULL;
    }
    fprintf(stdout, "%s\n", text ? text : json);
    cJSON_free(text);
    cJSON_Delete(root);
    return cli_flush_stdout(cmd);
}

int cli_write_json(const char *cmd, const char *path, const struct cJSON *j)
{
    char *s = cJSON_Print(j);
    FILE *f = path ? fopen(path, "w") : stdout;
    int ok = s && f && fputs(s, f) >= 0 && fputc('\n', f) != EOF;
    if (f && f != stdout)
        ok &= fclose(f) == 0;
    else if (f)
        ok &= fflush(f) == 0;
    free(s);
    if (!ok)
        fprintf(stderr, "launchrank %s: cannot write %s\n", cmd, path ? path : "stdout");
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}

int cli_flush_stdout(const char *cmd)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "launchrank %s: cannot write the output: %s\n", cmd, strerror(errno));
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

/* The cap is the daemon's body limit: what the daemon would refuse, the CLI refuses
 * too. Reading one byte past it tells "exactly the limit" from "too large". */
int cli_read_request(const char *cmd, const char *file, char **out, size_t *len)
{
    int is_stdin = strcmp(file, "-") == 0;
    const char *name = is_stdin ? "standard input" : file;
    FILE *f = is_stdin ? stdin : fopen(file, "rb");
    size_t cap = 0, used = 0;
    char *buf = NULL;
    int rc = CLI_EXIT_OK, saved_errno = 0;
    if (!f) {
        fprintf(stderr, "launchrank %s: cannot read '%s': %s\n", cmd, name, strerror(errno));
        return CLI_EXIT_FAILED;
    }
    for (;;) {
        if (used == cap) {
            if (cap > LR_MAX_BODY_BYTES) { /* read one byte past the limit: too large */
                lr_error err;
                lr_error_clear(&err);
                lr_error_set(&err, LR_LIMIT_EXCEEDED, NULL,
                             "%s is larger than %u bytes, the largest request accepted", name,
                             LR_MAX_BODY_BYTES);
                rc = cli_report(&err);
                break;
            }
            size_t next = cap ? cap * 2 : 64 * 1024;
            if (next > (size_t)LR_MAX_BODY_BYTES + 1)
                next = (size_t)LR_MAX_BODY_BYTES + 1;
            char *grown = realloc(buf, next + 1); /* + 1 for the NUL */
            if (!grown) {
                saved_errno = ENOMEM;
                break;
            }
            buf = grown;
            cap = next;
        }
        size_t n = fread(buf + used, 1, cap - used, f);
        used += n;
        if (n == 0) {
            if (ferror(f))
                saved_errno = errno ? errno : EIO;
            break;
        }
    }
    if (!is_stdin)
        fclose(f);
    if (saved_errno) {
        fprintf(stderr, "launchrank %s: cannot read '%s': %s\n", cmd, name,
                strerror(saved_errno));
        rc = CLI_EXIT_FAILED;
    }
    if (rc != CLI_EXIT_OK) {
        free(buf);
        return rc;
    }
    buf[used] = '\0';
    *out = buf;
    *len = used;
    return CLI_EXIT_OK;
}

char *cli_set_request_number(const char *body, const char *object, const char *key, long value)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(body, &end, 1);
    cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, object);
    char *text = NULL;
    if (cJSON_IsObject(root) && !obj)
        obj = cJSON_AddObjectToObject(root, object);
    if (cJSON_IsObject(obj)) {
        cJSON *n = cJSON_CreateNumber((double)value);
        if (n && (cJSON_GetObjectItemCaseSensitive(obj, key)
                      ? cJSON_ReplaceItemInObjectCaseSensitive(obj, key, n)
                      : cJSON_AddItemToObject(obj, key, n)))
            text = cJSON_PrintUnformatted(root);
        else
            cJSON_Delete(n);
    }
    cJSON_Delete(root);
    return text;
}
