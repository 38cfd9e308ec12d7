/*
 * lr_opt: the one command-line option parser of launchrank's executables (every
 * subcommand of `launchrank` and the daemon `launchrank-serve`).
 *
 * A command declares its options once, in a table of lr_opt rows: the option's name,
 * the name of its value in --help, the unit of a number, the default as --help shows
 * it, one help paragraph, and where the value goes. The same table checks the command
 * line and writes the Options part of --help, so the two never disagree. Every
 * command therefore takes `--opt VALUE` and `--opt=VALUE`, ends options at `--`,
 * treats `-` as an argument (standard input), matches names exactly (no
 * abbreviations, so a later option cannot change what an existing command line
 * means), lets -h/--help win over any other mistake on the line, and words every
 * mistake the same way: "launchrank SUB: --threads: 'x' is not a number of threads
 * from 1 to 1024", then "Try 'launchrank SUB --help'.".
 *
 * The parser knows nothing of what the options mean; it reads argv and writes the
 * caller's struct. Values of text options are borrowed from argv.
 */
#ifndef LR_OPT_H
#define LR_OPT_H

#include <stddef.h>
#include <stdio.h>

/* What an option's value is, and so what the parser checks and stores. */
typedef enum lr_opt_kind {
    LR_OPT_FLAG,   /* no value: stores 1 in an int */
    LR_OPT_TEXT,   /* a non-empty text: stores a const char * (borrowed from argv) */
    LR_OPT_INT,    /* a whole decimal number from min to max: stores a long long */
    LR_OPT_REAL,   /* a decimal number above min and at most max: stores a double */
    LR_OPT_CHOICE, /* one of the words of choices: stores a const char * */
    LR_OPT_CALL,   /* the row's set() checks the value and stores it */
} lr_opt_kind;

typedef struct lr_opt {
    const char *name; /* "--threads" */
    const char *arg;  /* the value's name in --help ("N"); NULL for a flag */
    const char *unit; /* what a number counts, for messages ("threads"); may be NULL */
    const char *def;  /* the default as --help shows it; NULL when there is none */
    const char *help; /* one paragraph (wrapped by lr_opt_help; "\n" breaks a line) */
    lr_opt_kind kind;
    size_t offset; /* where the value goes in the caller's struct (offsetof) */
    /* LR_OPT_INT: the range, both included. LR_OPT_REAL: min excluded, max included. */
    double min, max;
    /* LR_OPT_CHOICE: the accepted words, separated by single spaces ("json table t4") */
    const char *choices;
    /* LR_OPT_CALL: stores value (NULL for a flag) in target, the caller's whole struct
     * (offset is not applied: set() picks its field); returns 0, or -1 with why (the
     * message after "--name: ") filled in. */
    int (*set)(void *target, const char *value, char *why, size_t why_size);
} lr_opt;

/* One command: its name, --help around the options, its options and arguments. */
typedef struct lr_opt_cmd {
    const char *name;          /* "rank": messages start "launchrank rank: " */
    const char *usage;         /* --help before "Options:" (ends with a blank line) */
    const lr_opt *const *opts; /* NULL-terminated; -h/--help is implicit */
    const char *epilogue;      /* --help after the options (starts with a blank line) */
    int min_pos, max_pos;      /* how many arguments besides options */
    const char *missing;       /* message when fewer than min_pos; NULL: "missing argument" */
} lr_opt_cmd;

/* The longest message lr_opt_parse writes (an option's value is cut to fit). */
#define LR_OPT_WHY_MAX 320

enum {
    LR_OPT_OK = 0,   /* parsed: go on */
    LR_OPT_HELP = 1, /* -h or --help was given (before any "--"): nothing was stored */
    LR_OPT_BAD = -1, /* a mistake, said in why */
};

/* Parses argv[1..] (argv[0] is the command's name) by the table of cmd into target,
 * and the arguments that are not options, in order, into pos[0..max_pos) (borrowed
 * from argv), their number into *npos. Options may come in any order, before or
 * after arguments; a later value of the same option replaces an earlier one (a
 * LR_OPT_CALL row may collect them instead). Returns LR_OPT_OK, LR_OPT_HELP, or
 * LR_OPT_BAD with the message, without the "launchrank SUB: " prefix, in why. */
int lr_opt_parse(const lr_opt_cmd *cmd, int argc, char **argv, void *target, const char **pos,
                 int *npos, char *why, size_t why_size);

/* Prints "launchrank SUB: <why>" and "Try 'launchrank SUB --help'." on f. */
void lr_opt_report(FILE *f, const char *cmd_name, const char *why);

/* Prints the whole --help of cmd on f: usage, "Options:" with one entry per row
 * (name and value, then the help paragraph and "(default: ...)" wrapped to 79
 * columns) and -h/--help, then the epilogue. */
void lr_opt_help(FILE *f, const lr_opt_cmd *cmd);

/* Parses, and prints what the user must see: the help on stdout, or a mistake with
 * lr_opt_report on stderr. Returns LR_OPT_OK (go on), LR_OPT_HELP (help printed) or
 * LR_OPT_BAD (mistake printed). */
int lr_opt_run(const lr_opt_cmd *cmd, int argc, char **argv, void *target, const char **pos,
               int *npos);

#endif
