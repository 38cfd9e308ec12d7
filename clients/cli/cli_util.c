/*
 * cli_util.c: see cli.h. The rows of options several subcommands share, error bodies, output
 * and input of the subcommands; none of it knows what a kernel is.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "api.h"

/* ---- options ------------------------------------------------------------------- */

const lr_opt cli_opt_pretty = {.name = "--pretty",
                               .help = "indent the JSON for reading",
                               .kind = LR_OPT_FLAG,
                               .offset = offsetof(cli_opts, pretty)};

const lr_opt cli_opt_db_cache = {
    .name = "--db",
    .arg = "PATH",
    .def = "no cache, every run computes afresh",
    .help = "cache predictions in the SQLite file PATH (created if missing), and know the "
            "devices stored there (launchrank devices add)",
    .kind = LR_OPT_TEXT,
    .offset = offsetof(cli_opts, db)};

const lr_opt cli_opt_max_request_mb = {
    .name = "--max-request-mb",
    .arg = "MB",
    .unit = "MiB",
    .def = "256, as the daemon's --max-request-mb",
    .help = "memory the request may be estimated to use, from its configurations, fields, "
            "accesses and foldings; a larger one is refused (limit_exceeded, exit 2) before "
            "anything is computed. 0 = no limit",
    .kind = LR_OPT_INT,
    .min = 0,
    .max = 1ll << 20,
    .offset = offsetof(cli_opts, max_request_mb)};

const lr_opt cli_opt_out = {.name = "--out",
                            .arg = "FILE",
                            .help = "write the description to FILE instead of standard output",
                            .kind = LR_OPT_TEXT,
                            .offset = offsetof(cli_opts, out)};

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char why[LR_OPT_WHY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    lr_opt_report(stderr, cmd, why);
    return CLI_EXIT_BAD_INPUT;
}

int cli_parse_args(const lr_opt_cmd *cmd, int argc, char **argv, cli_opts *o, int *rc)
{
    memset(o, 0, sizeof *o);
    o->top = -1;
    o->measure_top = -1;
    o->max_request_mb = -1;
    int parsed = lr_opt_run(cmd, argc, argv, o, o->pos, &o->npos);
    *rc = parsed == LR_OPT_BAD ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
    if (parsed == LR_OPT_OK && o->pretty && o->table) {
        *rc = cli_usage_error(cmd->name, "--pretty and --table exclude each other");
        return 1;
    }
    return parsed != LR_OPT_OK;
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
