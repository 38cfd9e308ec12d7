/*
 * cli_kt: Kernel Tuner interop of the launchrank command (docs/kernel_tuner.md).
 *
 * Two directions: a ranking written in the T4 results format of the auto-tuning
 * community (`launchrank rank --format t4`, cli_t4.c), which Kernel Tuner itself writes,
 * and Kernel Tuner's JSON cache of measured configurations read into the store's
 * measurement log (`launchrank import-kt`, cli_kt.c), where `launchrank fit` finds it.
 */
#ifndef CLI_KT_H
#define CLI_KT_H

struct cJSON;

/* The T4 results schema version written (docs/kernel_tuner.md, "The formats"). */
#define CLI_T4_SCHEMA_VERSION "1.0.0"

/* The T4 results document of a rank response (rank_json, the text lr_api_rank returns):
 * one result per ranked configuration, then one per configuration that cannot run
 * (invalidity "constraints"). Configurations are named as Kernel Tuner names them by
 * default (block_size_x/y/z) plus folding_x/y/z; the objective is "predicted_time" (ms,
 * the domain's lattice updates at the predicted GLup/s), and a configuration that was
 * timed also has "time" (ms, the median), "time_min", "time_max" and "measured_glups".
 * timestamp (ISO 8601) is written on every result. Caller frees with cJSON_Delete; NULL
 * when rank_json is not a rank response (no "results" array or no "domain") or out of
 * memory. */
struct cJSON *cli_t4_from_rank(const char *rank_json, const char *timestamp);

/* `rank --format t4`: prints the T4 document of rank_json on stdout, every result
 * stamped with the present time (UTC). 0, or 1 after a message. */
int cli_t4_print(const char *rank_json);

/* `launchrank import-kt` (cli_kt.c); argv[0] is "import-kt". */
int cli_cmd_import_kt(int argc, char **argv);

#endif
