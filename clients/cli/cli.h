/*
 * cli: what the subcommands of the launchrank binary share (private to clients/cli).
 *
 * The options of every subcommand (cli_opts, parsed by common/lr_opt.h), the mapping of
 * lr_error codes to exit statuses and the printing of error bodies (cli_util.c), and the
 * subcommands that live in their own file (cli_cache.c). launchrank.c holds the
 * subcommand table and main.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>

#include "lr_error.h"
#include "lr_opt.h"

/* Exit statuses, as every --help documents them. CLI_EXIT_NOT_MEASURED: rank
 * --measure-top answered the ranking but could not time it (no GPU); a script that
 * asked for timings learns so from the status, one that does not care passes
 * --allow-no-gpu. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILED = 1,
    CLI_EXIT_BAD_INPUT = 2,
    CLI_EXIT_NOT_MEASURED = 3
};

#define CLI_DEFAULT_DB "launchrank.sqlite" /* cache subcommands; the daemon's default too */
/* The largest --time-limit (rank, levels), in seconds: a day; a ranking is bounded by 4096
 * configurations, the levels by 15 estimates, and a longer limit is a typo, not a plan. */
#define CLI_MAX_TIME_LIMIT_S 86400.0

/* The options of every subcommand, parsed by lr_opt (common/lr_opt.h) from each
 * subcommand's own table into this one struct: a subcommand's rows name the fields
 * it uses, the others stay as cli_parse_args leaves them. */
typedef struct cli_opts {
    const char *db;        /* --db PATH; NULL when not given */
    int pretty, table;     /* --pretty, --table */
    int replace;           /* devices add --replace */
    long long threads;     /* --threads N; 0 = every core */
    long long top;         /* --top K (0 = all); -1 when not given */
    long long measure_top; /* --measure-top K; -1 when not given */
    const char *format;    /* rank --format json|table|t4; NULL when not given */
    double time_limit_s;   /* rank --time-limit SECONDS; 0 = the api's default */
    int progress;          /* rank --progress: progress on stderr, terminal or not */
    int all_unlaunchable;  /* rank --all-unlaunchable: the table lists each one */
    int allow_no_gpu;      /* rank --allow-no-gpu: exit 0 when --measure-top cannot */
    long long max_request_mb; /* --max-request-mb; -1 when not given, 0 = no limit */
    /* calibrate (and fit's --out, --name) */
    const char *out, *raw, *from_raw, *name, *base;
    int quick;     /* --quick */
    long long gpu; /* --gpu N, the CUDA device ordinal */
    /* import-kt (and rank --format t4: --block MAP, --folding MAP) */
    const char *request, *block, *folding; /* --request FILE, --block MAP, --folding MAP */
    const char *ignore;                    /* import-kt --ignore NAMES */
    /* registers: --device NAME, --arch sm_XY, --kernel NAME, --json, --option OPT... */
    const char *device, *arch, *kernel;
    int json;
    struct {
        const char *v[31]; /* cudagen.h's CG_MAX_OPTIONS (cli_registers.c asserts it) */
        int n;
    } nvrtc_options;
    const char *pos[2]; /* arguments that are not options, in order (borrowed from argv) */
    int npos;
} cli_opts;

/* What calibrate and fit fit, in both --help texts: calibrate/fit.h's CAL_NPARAMS
 * less CAL_NHELD, and CAL_NHELD held (cli_fit.c asserts the numbers at compile time,
 * and both commands print them with the fit). */
#define CLI_FIT_PARAMS_TEXT "ten free model-v2 parameters (eleven more are held)"
#define CLI_FIT_PARAMS_FREE 10
#define CLI_FIT_PARAMS_HELD 11

/* Rows more than one subcommand shares word for word (cli_util.c). */
extern const lr_opt cli_opt_pretty;   /* --pretty */
extern const lr_opt cli_opt_db_cache; /* --db PATH of estimate and rank */
extern const lr_opt cli_opt_max_request_mb; /* --max-request-mb of estimate and rank */
extern const lr_opt cli_opt_out;      /* --out FILE of calibrate and fit */

/* Parses argv[1..] of a subcommand (argv[0] is its name) by cmd's table into *o
 * (zeroed first; top and measure_top -1), at most 2 arguments. Returns 0 to go on;
 * or non-zero when the command is done, with *rc its exit status: 0 after printing
 * the help (-h, --help), 2 after printing a usage error (also for --pretty with
 * --table). */
int cli_parse_args(const lr_opt_cmd *cmd, int argc, char **argv, cli_opts *o, int *rc);

/* Prints "launchrank CMD: <message>" and a hint to run CMD --help on stderr;
 * returns CLI_EXIT_BAD_INPUT. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints err on stderr as the daemon's error body, {"error":{"code","message",
 * "path"},"model_version"}, and returns its exit status: 2 for the codes of bad
 * input (invalid_json ... not_found), 1 for the others. */
int cli_report(const lr_error *err);

/* Prints a response on stdout followed by a newline: as given, or re-indented by
 * cJSON when pretty. Returns 0, or 1 (with a message) when stdout cannot be
 * written. json is borrowed. */
int cli_print_json(const char *cmd, const char *json, int pretty);

/* Writes j indented, with a newline, to the file path (NULL: stdout). Returns 0, or
 * 1 with a message naming cmd when it cannot be written. */
struct cJSON;
int cli_write_json(const char *cmd, const char *path, const struct cJSON *j);

/* Flushes stdout after a command wrote its output. Returns 0, or 1 (with a message
 * naming cmd) when it cannot be written, e.g. on a full disk. */
int cli_flush_stdout(const char *cmd);

/* Reads the whole of file ("-" = standard input) into *out (malloc'd, NUL-
 * terminated, caller frees) and its length into *len. Returns 0; or, with nothing
 * allocated, 1 after printing why the file cannot be read, or 2 after printing a
 * limit_exceeded error body when it is larger than LR_MAX_BODY_BYTES. */
int cli_read_request(const char *cmd, const char *file, char **out, size_t *len);

/* `launchrank cache stats|clear|export` (cli_cache.c); argv[0] is "cache". */
int cli_cmd_cache(int argc, char **argv);
/* cli_devices.c: launchrank devices [NAME | add FILE | remove NAME] */
int cli_cmd_devices(int argc, char **argv);
/* cli_levels.c: launchrank levels, a mesh kernel against its cells' order */
int cli_cmd_levels(int argc, char **argv);

/* cli_registers.c: launchrank registers FILE.cu, a kernel's resources from NVRTC */
int cli_cmd_registers(int argc, char **argv);

/* `launchrank calibrate` (cli_calibrate.c). */
int cli_cmd_calibrate(int argc, char **argv);

/* `launchrank fit` (cli_fit.c). */
int cli_cmd_fit(int argc, char **argv);

/* `launchrank emit` and `launchrank measure` (cli_gpu.c). */
int cli_cmd_emit(int argc, char **argv);
int cli_cmd_measure(int argc, char **argv);

/* Sets object.key of the request to value (creating the object), returning a new body
 * (caller frees with cJSON_free), or NULL when the body or its object is not a JSON
 * object: the caller then sends the body unchanged, so the api reports the mistake. */
char *cli_set_request_number(const char *body, const char *object, const char *key, long value);

#endif
