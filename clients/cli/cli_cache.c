/*
 * cli_cache.c: `launchrank cache stats|clear|export`, the maintenance commands of
 * the SQLite prediction cache (store/store.h). They work on the file directly, so
 * they also work while no daemon runs; SQLite's locking makes them safe while one
 * does.
 */
#include "cli.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "store.h"

static const lr_opt cache_db = {.name = "--db",
                                .arg = "PATH",
                                .def = CLI_DEFAULT_DB ", as for serve",
                                .help = "the cache database; it must exist: these commands "
                                        "never create one",
                                .kind = LR_OPT_TEXT,
                                .offset = offsetof(cli_opts, db)};
static const lr_opt cache_pretty = {.name = "--pretty",
                                    .help = "indent the JSON of stats and clear",
                                    .kind = LR_OPT_FLAG,
                                    .offset = offsetof(cli_opts, pretty)};
static const lr_opt *const cache_opts[] = {&cache_db, &cache_pretty, NULL};

static const lr_opt_cmd cache_cmd = {
    .name = "cache",
    .usage = "Usage: launchrank cache stats|clear|export [OPTIONS]\n"
             "\n"
             "Inspects the SQLite prediction cache that `launchrank serve` and --db fill.\n"
             "  stats    print JSON: predictions and measurements stored, file size in bytes,\n"
             "           schema version\n"
             "  clear    delete every cached prediction (measurements are data and are kept);\n"
             "           prints JSON with how many predictions were removed\n"
             "  export   write every prediction and measurement as JSON lines to stdout\n"
             "\n",
    .opts = cache_opts,
    .epilogue = "\n"
                "Exit status: 0 success; 2 bad usage; 1 the database is missing or unusable.\n"
                "\n"
                "Examples:\n"
                "  $ launchrank cache stats --db /var/lib/launchrank/cache.sqlite\n",
    .min_pos = 1,
    .max_pos = 1};

/* Prints the counts of a store (and, for clear, how many predictions went) as JSON. */
static int print_cache_stats(const char *path, const st_stats *s, long long removed, int pretty)
{
    cJSON *root = cJSON_CreateObject();
    char *text = NULL;
    if (cJSON_AddStringToObject(root, "path", path) &&
        (removed < 0 ||
         cJSON_AddNumberToObject(root, "removed_predictions", (double)removed)) &&
        cJSON_AddNumberToObject(root, "predictions", (double)s->predictions) &&
        cJSON_AddNumberToObject(root, "measurements", (double)s->measurements) &&
        cJSON_AddNumberToObject(root, "size_bytes", (double)s->bytes) &&
        cJSON_AddNumberToObject(root, "schema_version", s->schema_version))
        text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "launchrank cache: out of memory\n");
        return CLI_EXIT_FAILED;
    }
    int rc = cli_print_json("cache", text, pretty);
    cJSON_free(text);
    return rc;
}

int cli_cmd_cache(int argc, char **argv)
{
    cli_opts o;
    lr_error err;
    st_stats before, after;
    int rc;
    if (cli_parse_args(&cache_cmd, argc, argv, &o, &rc))
        return rc;
    const char *action = o.pos[0], *path = o.db ? o.db : CLI_DEFAULT_DB;
    if (strcmp(action, "stats") && strcmp(action, "clear") && strcmp(action, "export"))
        return cli_usage_error("cache", "unknown action '%s' (stats, clear or export)", action);
    /* st_open creates a missing database; inspecting one must not. */
    if (access(path, F_OK) != 0) {
        fprintf(stderr, "launchrank cache: cannot open '%s': %s\n", path, strerror(errno));
        return CLI_EXIT_FAILED;
    }
    lr_error_clear(&err);
    st_store *st = st_open(path, &err);
    if (!st)
        return cli_report(&err);
    if (strcmp(action, "stats") == 0) {
        rc = st_get_stats(st, &after, &err) ? cli_report(&err)
                                            : print_cache_stats(path, &after, -1, o.pretty);
    } else if (strcmp(action, "clear") == 0) {
        if (st_get_stats(st, &before, &err) || st_clear_predictions(st, &err) ||
            st_get_stats(st, &after, &err))
            rc = cli_report(&err);
        else
            rc = print_cache_stats(
                path, &after, (long long)(before.predictions - after.predictions), o.pretty);
    } else if (st_export(st, stdout, &err)) {
        rc = cli_report(&err);
    } else {
        rc = cli_flush_stdout("cache");
    }
    st_close(st);
    return rc;
}
