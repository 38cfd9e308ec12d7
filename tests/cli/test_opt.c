/*
 * test_opt: the option parser every launchrank command uses (common/lr_opt.h), on a
 * table with one row of each kind. Each case is a command line and the exact outcome:
 * what is stored, or the message a user reads. The CLI and daemon cases
 * (tests/cli/cli_cases.sh, tests/server/test_http.c) check the same messages through
 * the executables.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lr_opt.h"

typedef struct opts {
    int quiet;
    const char *db, *format, *origin;
    long long threads;
    double seconds;
    int origins; /* how many times --origin was given */
} opts;

/* LR_OPT_CALL: accepts https:// values only, and counts them. */
static int set_origin(void *target, const char *value, char *why, size_t why_size)
{
    opts *o = target;
    if (strncmp(value, "https://", 8) != 0) {
        snprintf(why, why_size, "'%s' does not start with https://", value);
        return -1;
    }
    o->origin = value;
    o->origins++;
    return 0;
}

static const lr_opt opt_quiet = {.name = "--quiet",
                                 .help = "say less",
                                 .kind = LR_OPT_FLAG,
                                 .offset = offsetof(opts, quiet)};
static const lr_opt opt_db = {.name = "--db",
                              .arg = "PATH",
                              .help = "the database",
                              .kind = LR_OPT_TEXT,
                              .offset = offsetof(opts, db)};
static const lr_opt opt_threads = {.name = "--threads",
                                   .arg = "N",
                                   .unit = "threads",
                                   .def = "4",
                                   .help = "threads computing, each with its own state; "
                                           "this sentence is long enough to be wrapped "
                                           "onto a second and a third line of the help",
                                   .kind = LR_OPT_INT,
                                   .min = 1,
                                   .max = 256,
                                   .offset = offsetof(opts, threads)};
static const lr_opt opt_seconds = {.name = "--time-limit",
                                   .arg = "SECONDS",
                                   .unit = "seconds",
                                   .help = "wall-clock seconds",
                                   .kind = LR_OPT_REAL,
                                   .min = 0,
                                   .max = 60,
                                   .offset = offsetof(opts, seconds)};
static const lr_opt opt_format = {.name = "--format",
                                  .arg = "F",
                                  .help = "json or table",
                                  .kind = LR_OPT_CHOICE,
                                  .choices = "json table",
                                  .offset = offsetof(opts, format)};
static const lr_opt opt_origin = {.name = "--origin",
                                  .arg = "ORIGIN",
                                  .help = "repeatable",
                                  .kind = LR_OPT_CALL,
                                  .set = set_origin};
static const lr_opt opt_long = {.name = "--a-very-long-option-name",
                                .arg = "VALUE",
                                .help = "its help starts on the next line",
                                .kind = LR_OPT_TEXT,
                                .offset = offsetof(opts, db)};
static const lr_opt *const rows[] = {&opt_quiet,  &opt_db,     &opt_threads, &opt_seconds,
                                     &opt_format, &opt_origin, &opt_long,    NULL};
static const lr_opt_cmd cmd = {.name = "test",
                               .usage = "Usage: launchrank test [OPTIONS] FILE [FILE]\n\n",
                               .opts = rows,
                               .epilogue = "\nExit status: 0.\n",
                               .min_pos = 1,
                               .max_pos = 2,
                               .missing = "which file?"};

/* The outcome of one command line, given as a NULL-terminated list after "test". */
typedef struct outcome {
    int rc;
    opts o;
    const char *pos[2];
    int npos;
    char why[LR_OPT_WHY_MAX];
} outcome;

static outcome parse(const char *first, ...)
{
    static char *argv[32];
    outcome r;
    va_list ap;
    int argc = 0;
    memset(&r, 0, sizeof r);
    argv[argc++] = (char *)"test";
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    r.rc = lr_opt_parse(&cmd, argc, argv, &r.o, r.pos, &r.npos, r.why, sizeof r.why);
    return r;
}

static void test_values(void)
{
    /* --opt value and --opt=value store the same */
    outcome a = parse("--threads", "8", "--time-limit", "0.5", "f.json", NULL);
    outcome b = parse("--threads=8", "--time-limit=0.5", "f.json", NULL);
    CHECK_INT(a.rc, LR_OPT_OK);
    CHECK_INT(b.rc, LR_OPT_OK);
    CHECK_INT(a.o.threads, 8);
    CHECK_INT(b.o.threads, 8);
    CHECK_NEAR(a.o.seconds, 0.5, 0, 0);
    CHECK_NEAR(b.o.seconds, 0.5, 0, 0);
    CHECK_STR(a.pos[0], "f.json");
    CHECK_INT(a.npos, 1);
    /* options after arguments, flags, text, choice, a value with '=' in it */
    outcome c = parse("f.json", "--quiet", "--db=a=b.sqlite", "--format", "table", "g", NULL);
    CHECK_INT(c.rc, LR_OPT_OK);
    CHECK_INT(c.o.quiet, 1);
    CHECK_STR(c.o.db, "a=b.sqlite");
    CHECK_STR(c.o.format, "table");
    CHECK_INT(c.npos, 2);
    CHECK_STR(c.pos[1], "g");
    /* a later value replaces an earlier one; a CALL row may collect them */
    outcome d = parse("--threads", "2", "--threads", "3", "--origin", "https://a",
                      "--origin=https://b", "f", NULL);
    CHECK_INT(d.o.threads, 3);
    CHECK_INT(d.o.origins, 2);
    CHECK_STR(d.o.origin, "https://b");
    /* "-" is an argument (standard input); "--" ends the options */
    outcome e = parse("-", "--", "--threads", NULL);
    CHECK_INT(e.rc, LR_OPT_OK);
    CHECK_INT(e.npos, 2);
    CHECK_STR(e.pos[0], "-");
    CHECK_STR(e.pos[1], "--threads");
    CHECK_INT(e.o.threads, 0);
    /* the range's ends are accepted */
    CHECK_INT(parse("--threads=1", "f", NULL).o.threads, 1);
    CHECK_INT(parse("--threads=256", "f", NULL).o.threads, 256);
    CHECK_NEAR(parse("--time-limit=60", "f", NULL).o.seconds, 60, 0, 0);
}

/* Each bad command line and the exact message (after "launchrank test: "). */
static void test_mistakes(void)
{
    static const struct {
        const char *args[4];
        const char *why;
    } cases[] = {
        {{"--frobnicate", "f"}, "unknown option '--frobnicate'"},
        {{"-x", "f"}, "unknown option '-x'"},
        {{"--thread=2", "f"}, "unknown option '--thread=2'"}, /* no abbreviations */
        {{"f", "--threads"}, "--threads needs a value (N)"},
        {{"f", "--db"}, "--db needs a value (PATH)"},
        {{"--db=", "f"}, "--db needs a value (PATH), not an empty one"},
        {{"--quiet=yes", "f"}, "--quiet takes no value"},
        {{"--threads", "x", "f"}, "--threads: 'x' is not a number of threads from 1 to 256"},
        {{"--threads=0", "f"}, "--threads: '0' is not a number of threads from 1 to 256"},
        {{"--threads=257", "f"}, "--threads: '257' is not a number of threads from 1 to 256"},
        {{"--threads=-1", "f"}, "--threads: '-1' is not a number of threads from 1 to 256"},
        {{"--threads= 8", "f"}, "--threads: ' 8' is not a number of threads from 1 to 256"},
        {{"--threads=8k", "f"}, "--threads: '8k' is not a number of threads from 1 to 256"},
        {{"--threads=99999999999999999999", "f"},
         "--threads: '99999999999999999999' is not a number of threads from 1 to 256"},
        {{"--time-limit=0", "f"},
         "--time-limit: '0' is not a number of seconds above 0 and at most 60"},
        {{"--time-limit=nan", "f"},
         "--time-limit: 'nan' is not a number of seconds above 0 and at most 60"},
        {{"--time-limit=61", "f"},
         "--time-limit: '61' is not a number of seconds above 0 and at most 60"},
        {{"--time-limit=", "f"},
         "--time-limit: '' is not a number of seconds above 0 and at most 60"},
        {{"--format=xml", "f"}, "--format: 'xml' is not json or table"},
        {{"--format=jso", "f"}, "--format: 'jso' is not json or table"},
        {{"--origin", "http://a", "f"}, "--origin: 'http://a' does not start with https://"},
        {{"a", "b", "c"}, "unexpected argument 'c'"},
        {{"--quiet"}, "which file?"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const *a = cases[i].args;
        outcome r = parse(a[0], a[1], a[2], a[3], NULL);
        CHECK_INT(r.rc, LR_OPT_BAD);
        CHECK_STR(r.why, cases[i].why);
    }
}

static void test_help(void)
{
    /* -h and --help win over any mistake on the line, but not after "--" */
    CHECK_INT(parse("--frobnicate", "-h", NULL).rc, LR_OPT_HELP);
    CHECK_INT(parse("--threads=x", "--help", NULL).rc, LR_OPT_HELP);
    CHECK_INT(parse("f", "--", "--help", NULL).rc, LR_OPT_OK);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    lr_opt_help(f, &cmd);
    fclose(f);
    CHECK(strncmp(text, "Usage: launchrank test", 22) == 0);
    CHECK_CONTAINS(text, "\nOptions:\n  --quiet               say less\n");
    CHECK_CONTAINS(text, "\n  --threads N           threads computing,");
    CHECK_CONTAINS(text, "\n  --a-very-long-option-name VALUE\n"
                         "                        its help starts on the next line\n");
    CHECK_CONTAINS(text, "(default: 4)");
    CHECK_CONTAINS(text, "\n  -h, --help            show this help\n\nExit status: 0.\n");
    /* wrapped to 79 columns, continuation lines under the help column (24: the
     * widest name that fits, "--time-limit SECONDS", and four spaces) */
    int lines = 0;
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        CHECK(end && end - line <= 79);
        if (!end)
            break;
        lines += strncmp(line, "                        ", 24) == 0;
    }
    CHECK(lines >= 2); /* --threads' help took more than one line */
    free(text);
}

int main(void)
{
    test_values();
    test_mistakes();
    test_help();
    return check_report("test_opt");
}
