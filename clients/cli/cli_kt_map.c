/*
 * cli_kt_map.c: the mapping of Kernel Tuner's tune_params to a launch (see cli_kt.h),
 * as `import-kt` and `rank --format t4` read it from --block and --folding, and
 * import-kt's --ignore list. Only text is checked here; whether a name is one of a
 * cache's tune_params is the command's business.
 */
#include "cli_kt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A number in a MAP at most: a block side's largest (launchrank takes 1-1024 threads
 * per block; the folding's own range, 1-64, is checked with the launch). */
#define KT_MAP_MAX_NUMBER 1024

const cli_kt_map cli_kt_t4_default = {
    .block = {{"block_size_x", 0}, {"block_size_y", 0}, {"block_size_z", 0}},
    .folding = {{"folding_x", 0}, {"folding_y", 0}, {"folding_z", 0}}};

/* Whether the len characters at s are a C identifier. */
static int is_identifier(const char *s, size_t len)
{
    if (!len || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

/* Checks one item (len characters at s) of a list of names. 0, or -1 with why. */
static int check_name(const char *s, size_t len, const char *text, char *why, size_t n)
{
    if (!len) {
        snprintf(why, n, "'%.80s' has an empty item", text);
        return -1;
    }
    if (!is_identifier(s, len)) {
        snprintf(why, n,
                 "'%.*s' is not a tune_param name (letters, digits and _, not first "
                 "a digit)",
                 (int)(len > 80 ? 80 : len), s);
        return -1;
    }
    if (len >= CLI_KT_NAME_MAX) {
        snprintf(why, n, "'%.40s...' is longer than %d characters", s, CLI_KT_NAME_MAX - 1);
        return -1;
    }
    return 0;
}

int cli_kt_map_parse(const char *text, cli_kt_side out[3], char *why, size_t why_size)
{
    static const char axis[] = "xyz";
    int i = 0;
    for (const char *s = text;; i++) {
        size_t len = strcspn(s, ",");
        if (i == 3) {
            snprintf(why, why_size, "three items at most (x, y, z): '%.*s' is a fourth",
                     (int)(len > 80 ? 80 : len), s);
            return -1;
        }
        if (len && s[0] >= '0' && s[0] <= '9') {
            char *end;
            long v = strtol(s, &end, 10);
            if (end != s + len || v < 1 || v > KT_MAP_MAX_NUMBER) {
                snprintf(why, why_size,
                         "the %c item '%.*s' is neither a name nor a number "
                         "from 1 to %d",
                         axis[i], (int)(len > 80 ? 80 : len), s, KT_MAP_MAX_NUMBER);
                return -1;
            }
            out[i] = (cli_kt_side){.value = (int)v};
        } else {
            if (check_name(s, len, text, why, why_size))
                return -1;
            out[i] = (cli_kt_side){.value = 0};
            memcpy(out[i].name, s, len);
        }
        if (!s[len])
            break;
        s += len + 1;
    }
    for (i++; i < 3; i++)
        out[i] = (cli_kt_side){.value = 1};
    return 0;
}

static int set_map(const char **dest, const char *value, char *why, size_t why_size)
{
    cli_kt_side sides[3];
    if (cli_kt_map_parse(value, sides, why, why_size))
        return -1;
    *dest = value;
    return 0;
}

int cli_kt_set_block(void *target, const char *value, char *why, size_t why_size)
{
    return set_map(&((cli_opts *)target)->block, value, why, why_size);
}

int cli_kt_set_folding(void *target, const char *value, char *why, size_t why_size)
{
    return set_map(&((cli_opts *)target)->folding, value, why, why_size);
}

int cli_kt_set_ignore(void *target, const char *value, char *why, size_t why_size)
{
    for (const char *s = value;;) {
        size_t len = strcspn(s, ",");
        if (check_name(s, len, value, why, why_size))
            return -1;
        if (!s[len])
            break;
        s += len + 1;
    }
    ((cli_opts *)target)->ignore = value;
    return 0;
}

int cli_kt_list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = list; s && *s;) {
        size_t len = strcspn(s, ",");
        if (len == n && !strncmp(s, name, n))
            return 1;
        s += len + (s[len] == ',');
    }
    return 0;
}
