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

#include <stddef.h>

struct cJSON;

/* ---- mappings (cli_kt_map.c) ------------------------------------------------------
 * Which tune_params are the block sides and the points per thread (folding), x first:
 * `import-kt --block MAP --folding MAP` reads a cache by them, `rank --format t4
 * --block MAP --folding MAP` names the T4 configuration by them, so one mapping serves
 * both directions. A MAP is up to three comma-separated items, each the name of a
 * tune_param or a number (a side that is no tune_param); missing trailing items are
 * the number 1. */

/* The longest tune_param name taken, with its NUL: Kernel Tuner's names are C macro
 * names of a few words (block_size_x); a longer one is a mistake, not a name. */
#define CLI_KT_NAME_MAX 64

/* One side of a mapping: a tune_param's name, or the constant value when name is "". */
typedef struct cli_kt_side {
    char name[CLI_KT_NAME_MAX];
    int value;
} cli_kt_side;

typedef struct cli_kt_map {
    cli_kt_side block[3], folding[3];
} cli_kt_map;

/* Parses the MAP text into out[0..3). Names are C identifiers (Kernel Tuner defines
 * each tune_param as a macro); numbers are 1-1024. 0, or -1 with why naming the bad
 * item (an empty one, a fourth, a name that is not an identifier, a number out of
 * range). */
int cli_kt_map_parse(const char *text, cli_kt_side out[3], char *why, size_t why_size);

/* lr_opt set() of the --block and --folding rows (LR_OPT_CALL; target is a cli_opts):
 * checks the MAP with cli_kt_map_parse and keeps its text in block or folding. */
int cli_kt_set_block(void *target, const char *value, char *why, size_t why_size);
int cli_kt_set_folding(void *target, const char *value, char *why, size_t why_size);

/* lr_opt set() of import-kt's --ignore NAMES: comma-separated tune_param names (C
 * identifiers, none empty), kept as text in ignore. */
int cli_kt_set_ignore(void *target, const char *value, char *why, size_t why_size);

/* Whether name is one of the comma-separated items of list (NULL: none). */
int cli_kt_list_has(const char *list, const char *name);

/* The names the T4 export writes when --block and --folding are not given:
 * block_size_x/y/z (Kernel Tuner's) and folding_x/y/z. */
extern const cli_kt_map cli_kt_t4_default;

/* The T4 results schema version written (docs/kernel_tuner.md, "The formats"). */
#define CLI_T4_SCHEMA_VERSION "1.0.0"

/* The T4 results document of a rank response (rank_json, the text lr_api_rank returns):
 * one result per ranked configuration, then one per configuration that cannot run
 * (invalidity "constraints"). Each configuration holds a key per named side of names
 * (NULL: cli_kt_t4_default); a side mapped to a number is left out, and a configuration
 * whose side is another number cannot be written (the ranking holds a launch the
 * user's tune_params do not). The objective is "predicted_time" (ms, the domain's
 * lattice updates at the predicted GLup/s), and a configuration that was timed also
 * has "time" (ms, the median), "time_min", "time_max" and "measured_glups". timestamp
 * (ISO 8601) is written on every result. Caller frees with cJSON_Delete; NULL, with
 * why, when rank_json is not a rank response (no "results" array or no "domain"), a
 * configuration does not fit names, or out of memory; *bad_input (may be NULL) is 1
 * for the one the user can fix: a configuration that does not fit names. */
struct cJSON *cli_t4_from_rank(const char *rank_json, const char *timestamp,
                               const cli_kt_map *names, char *why, size_t why_size,
                               int *bad_input);

/* `rank --format t4`: prints the T4 document of rank_json on stdout, every result
 * stamped with the present time (UTC), named by names (NULL: cli_kt_t4_default). 0;
 * 2 after a message when a configuration does not fit names; 1 after a message. */
int cli_t4_print(const char *rank_json, const cli_kt_map *names);

/* `launchrank import-kt` (cli_kt.c); argv[0] is "import-kt". */
int cli_cmd_import_kt(int argc, char **argv);

#endif
