/*
 * lr_opt.c: see lr_opt.h. Matching argv against a table, checking and storing each
 * value by its kind, and writing --help from the same table.
 */
#include "lr_opt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --help is wrapped to this many columns: a terminal's 80 less the cursor's column. */
#define OPT_HELP_COLUMNS 79
/* An option's name and value wider than this go on a line of their own, so that one
 * long name does not push every help paragraph to the right. */
#define OPT_NAME_COLUMNS 22

/* Writes why and returns LR_OPT_BAD. A value quoted in it is cut to keep it short. */
__attribute__((format(printf, 3, 4))) static int bad(char *why, size_t why_size,
                                                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
    return LR_OPT_BAD;
}

/* "of threads " when unit is "threads", "" without a unit. */
static void unit_words(const lr_opt *o, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", o->unit ? "of " : "", o->unit ? o->unit : "",
             o->unit ? " " : "");
}

/* A whole decimal number in [min, max]: digits only (no sign, no blank, no "0x"). */
static int store_int(const lr_opt *o, const char *value, long long *out, char *why,
                     size_t why_size)
{
    char *end, unit[64];
    errno = 0;
    long long v = *value >= '0' && *value <= '9' ? strtoll(value, &end, 10) : 0;
    if (*value < '0' || *value > '9' || errno || *end || v < (long long)o->min ||
        v > (long long)o->max) {
        unit_words(o, unit, sizeof unit);
        return bad(why, why_size, "%s: '%.80s' is not a number %sfrom %lld to %lld", o->name,
                   value, unit, (long long)o->min, (long long)o->max);
    }
    *out = v;
    return LR_OPT_OK;
}

/* A decimal number (a fraction or exponent allowed) above min and at most max. It
 * starts with a digit or a point, so "inf", "nan", signs and blanks are refused. */
static int store_real(const lr_opt *o, const char *value, double *out, char *why,
                      size_t why_size)
{
    char *end, unit[64];
    int starts = (*value >= '0' && *value <= '9') || *value == '.';
    errno = 0;
    double v = starts ? strtod(value, &end) : 0;
    if (!starts || errno || *end || !(v > o->min) || !(v <= o->max)) {
        unit_words(o, unit, sizeof unit);
        return bad(why, why_size, "%s: '%.80s' is not a number %sabove %g and at most %g",
                   o->name, value, unit, o->min, o->max);
    }
    *out = v;
    return LR_OPT_OK;
}

/* Whether value is one of the space-separated words of choices. */
static int is_choice(const char *choices, const char *value)
{
    size_t n = strlen(value);
    for (const char *w = choices; n && *w;) {
        size_t len = strcspn(w, " ");
        if (len == n && strncmp(w, value, n) == 0)
            return 1;
        w += len + (w[len] == ' ');
    }
    return 0;
}

/* "json, table or t4" of "json table t4", into buf. */
static void choice_words(const char *choices, char *buf, size_t n)
{
    const char *last = strrchr(choices, ' ');
    size_t used = 0;
    buf[0] = '\0';
    for (const char *w = choices; *w && used < n;) {
        size_t len = strcspn(w, " ");
        const char *sep = w == choices ? "" : w == last + 1 ? " or " : ", ";
        int k = snprintf(buf + used, n - used, "%s%.*s", sep, (int)len, w);
        used += k > 0 ? (size_t)k : 0;
        w += len + (w[len] == ' ');
    }
}

/* Checks value by the row's kind and stores it at the row's offset in target. */
static int store(const lr_opt *o, const char *value, void *target, char *why, size_t why_size)
{
    char *at = (char *)target + o->offset;
    switch (o->kind) {
    case LR_OPT_FLAG:
        *(int *)(void *)at = 1;
        return LR_OPT_OK;
    case LR_OPT_TEXT:
        if (!*value)
            return bad(why, why_size, "%s needs a value (%s), not an empty one", o->name,
                       o->arg);
        *(const char **)(void *)at = value;
        return LR_OPT_OK;
    case LR_OPT_INT:
        return store_int(o, value, (long long *)(void *)at, why, why_size);
    case LR_OPT_REAL:
        return store_real(o, value, (double *)(void *)at, why, why_size);
    case LR_OPT_CHOICE:
        if (!is_choice(o->choices, value)) {
            char words[128];
            choice_words(o->choices, words, sizeof words);
            return bad(why, why_size, "%s: '%.80s' is not %s", o->name, value, words);
        }
        *(const char **)(void *)at = value;
        return LR_OPT_OK;
    case LR_OPT_CALL: {
        char msg[LR_OPT_WHY_MAX - 40];
        if (o->set(target, value, msg, sizeof msg))
            return bad(why, why_size, "%s: %s", o->name, msg);
        return LR_OPT_OK;
    }
    }
    return bad(why, why_size, "%s: unknown kind of option", o->name);
}

/* The row named by the first len characters of name, or NULL. */
static const lr_opt *find(const lr_opt_cmd *cmd, const char *name, size_t len)
{
    for (const lr_opt *const *o = cmd->opts; *o; o++)
        if (strlen((*o)->name) == len && strncmp((*o)->name, name, len) == 0)
            return *o;
    return NULL;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

/* One option at argv[*i] (which starts with '-' and is not "-" or "--"); takes its
 * value from the next argument when it is not written with '='. */
static int parse_option(const lr_opt_cmd *cmd, int argc, char **argv, int *i, void *target,
                        char *why, size_t why_size)
{
    const char *a = argv[*i];
    const char *eq = strchr(a, '=');
    const lr_opt *o = find(cmd, a, eq ? (size_t)(eq - a) : strlen(a));
    if (!o)
        return bad(why, why_size, "unknown option '%.80s'", a);
    const char *value = eq ? eq + 1 : NULL;
    if (!o->arg && value)
        return bad(why, why_size, "%s takes no value", o->name);
    if (o->arg && !value) {
        if (*i + 1 >= argc)
            return bad(why, why_size, "%s needs a value (%s)", o->name, o->arg);
        value = argv[++*i];
    }
    return store(o, value, target, why, why_size);
}

int lr_opt_parse(const lr_opt_cmd *cmd, int argc, char **argv, void *target, const char **pos,
                 int *npos, char *why, size_t why_size)
{
    int options_done = 0;
    *npos = 0;
    if (wants_help(argc, argv))
        return LR_OPT_HELP;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = 1;
        } else if (options_done || a[0] != '-' || a[1] == '\0') {
            if (*npos == cmd->max_pos)
                return bad(why, why_size, "unexpected argument '%.80s'", a);
            pos[(*npos)++] = a;
        } else if (parse_option(cmd, argc, argv, &i, target, why, why_size)) {
            return LR_OPT_BAD;
        }
    }
    if (*npos < cmd->min_pos)
        return bad(why, why_size, "%s",
                   cmd->missing        ? cmd->missing
                   : cmd->min_pos == 1 ? "missing argument"
                                       : "missing arguments");
    return LR_OPT_OK;
}

void lr_opt_report(FILE *f, const char *cmd_name, const char *why)
{
    fprintf(f, "launchrank %s: %s\nTry 'launchrank %s --help'.\n", cmd_name, why, cmd_name);
}

/* ---- --help ------------------------------------------------------------------- */

/* Prints text wrapped at word boundaries into the columns from indent to
 * OPT_HELP_COLUMNS, every line but the first indented (the first continues the
 * name column, which has already been printed); "\n" in text starts a new line. */
static void print_wrapped(FILE *f, const char *text, int indent)
{
    int col = indent;
    while (*text) {
        if (*text == '\n' || *text == ' ') {
            if (*text == '\n')
                col = OPT_HELP_COLUMNS; /* forces the next word onto a new line */
            text++;
            continue;
        }
        int len = (int)strcspn(text, " \n");
        if (col > indent && col + 1 + len > OPT_HELP_COLUMNS) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", len, text);
        col += len;
        text += len;
    }
    fputc('\n', f);
}

/* "--threads N" into buf. */
static int left_text(const lr_opt *o, char *buf, size_t n)
{
    return snprintf(buf, n, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

/* One option's entry: its name and value, then its help from column indent (on the
 * next line when the name is wider than the column). */
static void print_entry(FILE *f, const char *left, const char *help, const char *def,
                        int indent)
{
    size_t n = strlen(help) + (def ? strlen(def) + 16 : 0) + 1;
    char *text = malloc(n);
    if ((int)strlen(left) > indent - 4)
        fprintf(f, "  %s\n%*s", left, indent, "");
    else
        fprintf(f, "  %-*s", indent - 2, left);
    if (!text) { /* out of memory: the help without its default */
        print_wrapped(f, help, indent);
        return;
    }
    snprintf(text, n, "%s%s%s%s", help, def ? " (default: " : "", def ? def : "",
             def ? ")" : "");
    print_wrapped(f, text, indent);
    free(text);
}

void lr_opt_help(FILE *f, const lr_opt_cmd *cmd)
{
    char left[96];
    int width = (int)strlen("-h, --help");
    for (const lr_opt *const *o = cmd->opts; *o; o++) {
        int w = left_text(*o, left, sizeof left);
        if (w <= OPT_NAME_COLUMNS && w > width)
            width = w;
    }
    int indent = 2 + width + 2;
    fputs(cmd->usage, f);
    fputs("Options:\n", f);
    for (const lr_opt *const *o = cmd->opts; *o; o++) {
        left_text(*o, left, sizeof left);
        print_entry(f, left, (*o)->help, (*o)->def, indent);
    }
    print_entry(f, "-h, --help", "show this help", NULL, indent);
    fputs(cmd->epilogue, f);
}

int lr_opt_run(const lr_opt_cmd *cmd, int argc, char **argv, void *target, const char **pos,
               int *npos)
{
    char why[LR_OPT_WHY_MAX];
    int rc = lr_opt_parse(cmd, argc, argv, target, pos, npos, why, sizeof why);
    if (rc == LR_OPT_HELP)
        lr_opt_help(stdout, cmd);
    else if (rc == LR_OPT_BAD)
        lr_opt_report(stderr, cmd->name, why);
    return rc;
}
