/*
 * cli_devices: `launchrank devices`: list the GPU models (built in and stored), show one,
 * store a calibrated one (add) or remove one, through protocol/api.h's device calls.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cli.h"
#include "cli_table.h"
#include "lr_error.h"

static const lr_opt devices_db = {.name = "--db",
                                  .arg = "PATH",
                                  .help =
                                      "the SQLite file of stored devices (and of the cache)",
                                  .kind = LR_OPT_TEXT,
                                  .offset = offsetof(cli_opts, db)};
static const lr_opt devices_replace = {.name = "--replace",
                                       .help = "add: replace a stored device of the same name",
                                       .kind = LR_OPT_FLAG,
                                       .offset = offsetof(cli_opts, replace)};
static const lr_opt devices_table = {
    .name = "--table",
    .help = "print a table: name, SMs, clock (GHz), L2 size (MiB), L2 and DRAM bandwidth "
            "(GB/s, attainable, not data-sheet peaks)",
    .kind = LR_OPT_FLAG,
    .offset = offsetof(cli_opts, table)};
static const lr_opt *const devices_opts[] = {&devices_db, &devices_replace, &devices_table,
                                             &cli_opt_pretty, NULL};

static const lr_opt_cmd devices_cmd = {
    .name = "devices",
    .usage =
        "Usage: launchrank devices [OPTIONS] [NAME]\n"
        "  or:  launchrank devices add [--db PATH] [--replace] FILE|-\n"
        "  or:  launchrank devices remove [--db PATH] NAME\n"
        "\n"
        "Lists the GPU models the estimator knows, or prints the figures of the one\n"
        "called NAME (e.g. A100-SXM4-80GB), as JSON. A request names one with \"device\"\n"
        "or sends its own figures to model a hypothetical GPU. Without --db the list\n"
        "holds the built-in devices; with --db PATH also the devices stored in PATH\n"
        "(\"stored\": true in the JSON, \"stored\" after the figures in the table).\n"
        "\n"
        "add stores a device description in the SQLite file PATH (default " CLI_DEFAULT_DB ",\n"
        "as for serve; created if missing): the output of `launchrank calibrate`, or a\n"
        "description written by hand (every figure, or \"base\" and the figures that\n"
        "differ; see docs/api.md, \"The device\"). It needs a \"name\" of letters, digits,\n"
        "'.', '_' and '-'. It is checked as a request's device is, and refused with the\n"
        "JSON path of the bad figure; a built-in device's name is refused (a stored\n"
        "device never shadows a built-in), and so is the name of a stored one unless\n"
        "--replace is given. With \"base\", the base's figures are copied now. \"sources\"\n"
        "is kept and shown; \"units\" is dropped (the units are always those of the\n"
        "figure table). Then estimate, rank, devices and serve given --db PATH know the\n"
        "device by name. A running daemon reads its devices when it starts: restart it\n"
        "to see a device added since. remove deletes a stored device.\n"
        "\n",
    .opts = devices_opts,
    .epilogue =
        "\n"
        "Exit status: 0 success; 2 unknown device, a description or name refused, or bad\n"
        "usage (a JSON error with code, message and path on stderr); 1 other failures\n"
        "(unreadable file, database that cannot be written).\n"
        "\n"
        "Examples:\n"
        "  $ launchrank devices --table\n"
        "  $ launchrank calibrate --out my-gpu.json --name my-gpu\n"
        "  $ launchrank devices add --db lab.sqlite my-gpu.json\n"
        "  $ launchrank devices --db lab.sqlite --table\n"
        "  $ launchrank rank --db lab.sqlite --table my-gpu-request.json\n",
    .min_pos = 0,
    .max_pos = 2};

/* Prints a response (or reports the error) the way every devices action does. */
static int devices_output(const char *resp, const lr_error *err, const cli_opts *o)
{
    if (!resp)
        return cli_report(err);
    if (!o->table)
        return cli_print_json("devices", resp, o->pretty);
    if (cli_table_devices(stdout, resp) != 0) {
        fprintf(stderr, "launchrank devices: the response holds no device to tabulate\n");
        return CLI_EXIT_FAILED;
    }
    return cli_flush_stdout("devices");
}

/* `devices add FILE` and `devices remove NAME`: o->pos[1] is the argument. */
static int devices_change(const cli_opts *o)
{
    int add = strcmp(o->pos[0], "add") == 0, rc;
    char *body = NULL, *resp;
    size_t len = 0;
    lr_error err;
    if (o->npos != 2)
        return cli_usage_error("devices", "%s needs %s", o->pos[0], add ? "a FILE" : "a NAME");
    if (o->table)
        return cli_usage_error("devices", "--table does not apply to %s", o->pos[0]);
    if (!add && o->replace)
        return cli_usage_error("devices", "--replace applies to add only");
    if (add && (rc = cli_read_request("devices", o->pos[1], &body, &len)))
        return rc;
    lr_api_config cfg = {.db_path = o->db ? o->db : CLI_DEFAULT_DB};
    lr_error_clear(&err);
    lr_api *api = lr_api_new(&cfg, &err);
    if (!api) {
        free(body);
        return cli_report(&err);
    }
    resp = add ? lr_api_device_add(api, body, len, o->replace, &err)
               : lr_api_device_remove(api, o->pos[1], &err);
    rc = devices_output(resp, &err, o);
    free(resp);
    free(body);
    lr_api_free(api);
    return rc;
}

int cli_cmd_devices(int argc, char **argv)
{
    cli_opts o;
    lr_error err;
    int rc;
    if (cli_parse_args(&devices_cmd, argc, argv, &o, &rc))
        return rc;
    if (o.npos && (strcmp(o.pos[0], "add") == 0 || strcmp(o.pos[0], "remove") == 0))
        return devices_change(&o);
    if (o.npos == 2)
        return cli_usage_error(argv[0], "unexpected argument '%s'", o.pos[1]);
    if (o.replace)
        return cli_usage_error(argv[0], "--replace applies to add only");
    /* without --db no store: the built-in devices only */
    lr_api_config cfg = {.db_path = o.db};
    lr_error_clear(&err);
    lr_api *api = lr_api_new(&cfg, &err);
    if (!api)
        return cli_report(&err);
    const char *status = lr_api_cache_status(api);
    if (o.db && strcmp(status, "ok") != 0)
        fprintf(stderr, "launchrank devices: warning: no stored devices: %s\n", status);
    if (lr_api_devices_warning(api))
        fprintf(stderr, "launchrank devices: warning: %s\n", lr_api_devices_warning(api));
    char *resp = o.npos ? lr_api_device(api, o.pos[0], &err) : lr_api_devices(api, &err);
    rc = devices_output(resp, &err, &o);
    free(resp);
    lr_api_free(api);
    return rc;
}
