/* jstrict: see jstrict.h. */
#include "jstrict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lr_utf8.h"

/* Containers deeper than this are not followed by an error's path (it then names the
 * deepest one followed). jr_precheck has already refused bodies nested deeper than
 * the request limit, far below this. */
#define JS_DEPTH 64

/* Significant digits kept to decide whether a number overflows a double: the bound
 * where strtod rounds to infinity (2^1024 - 2^970) has 309, so these and a sticky
 * digit for the rest decide exactly. */
#define JS_SIG_DIGITS 400

/* Bytes of a bad token quoted in a message; a token of a megabyte is cut. */
#define JS_QUOTE 40

/* Written into messages, so that a refused client sees what would be accepted. */
#define JS_GRAMMAR "-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?"

typedef struct js_frame {
    int is_object;
    int index;              /* the element or member being read, from 0 */
    size_t key_at, key_len; /* its key as written, escapes and all (objects) */
} js_frame;

typedef struct js_scan {
    const char *t;
    js_frame frame[JS_DEPTH];
    int depth;      /* open containers, those past JS_DEPTH included */
    int expect_key; /* the next string of the innermost object is a key */
} js_scan;

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Bytes a bare token (a number, a literal, a typo of one) is made of. */
static int is_token_byte(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' ||
           c == '-' || c == '.' || c == '_';
}

/* Whether t[0..n) is what strtod reads as a non-finite number: NaN, Inf, Infinity in
 * any case, with a sign or without. */
static int is_nonfinite_word(const char *t, size_t n)
{
    static const char *const words[] = {"nan", "inf", "infinity"};
    if (n > 0 && (*t == '-' || *t == '+')) {
        t++;
        n--;
    }
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
        if (strlen(words[w]) == n && strncasecmp(t, words[w], n) == 0)
            return 1;
    return 0;
}

/* grammar's reason for a number followed by more token bytes; the message names the
 * first of them. */
static const char js_trailing[] = "hex, '_' and a second '.' are not JSON";

/* Why t[0..n) is not a JSON number, or NULL when it is one; *integer: it has neither
 * fraction nor exponent; *stop: where the number the grammar allows ends. */
static const char *grammar(const char *t, size_t n, int *integer, size_t *stop)
{
    size_t i = 0;
    if (is_nonfinite_word(t, n))
        return "JSON has no NaN or Infinity";
    if (t[0] == '+')
        return "a number has no '+' sign";
    if (t[0] == '-')
        i++;
    if (i == n)
        return "a '-' must be followed directly by a digit";
    if (t[i] == '.')
        return "a number needs a digit before its '.'";
    if (!is_digit(t[i]))
        return "a number starts with a digit or '-'";
    if (t[i] == '0' && i + 1 < n && is_digit(t[i + 1]))
        return "a leading zero is not allowed";
    while (i < n && is_digit(t[i]))
        i++;
    *integer = 1;
    if (i < n && t[i] == '.') {
        *integer = 0;
        if (++i == n || !is_digit(t[i]))
            return "a number needs a digit after its '.'";
        while (i < n && is_digit(t[i]))
            i++;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        *integer = 0;
        if (++i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        if (i == n || !is_digit(t[i]))
            return "an exponent needs a digit";
        while (i < n && is_digit(t[i]))
            i++;
    }
    *stop = i;
    return i == n ? NULL : js_trailing;
}

/* Whether the integer t[0..n) (digits after an optional '-', no leading zero) is
 * beyond 2^53 in magnitude. */
static int beyond_exact(const char *t, size_t n)
{
    const size_t m = sizeof JS_MAX_EXACT_INTEGER - 1;
    if (*t == '-') {
        t++;
        n--;
    }
    return n > m || (n == m && memcmp(t, JS_MAX_EXACT_INTEGER, m) > 0);
}

/* Whether the JSON number t[0..n) overflows a double. Its value is 0.D * 10^E, D its
 * significant digits: E below 309 is finite, above is not, and at 309 strtod decides
 * on "De<E - digits>" (no '.', so the locale does not matter). */
static int overflows(const char *t, size_t n)
{
    char sig[JS_SIG_DIGITS + 32];
    size_t i = t[0] == '-', nsig = 0;
    long long intlen = 0, pos = 0, first = -1, e = 0;
    int dot = 0, sticky = 0, neg = 0;
    for (; i < n && t[i] != 'e' && t[i] != 'E'; i++) {
        if (t[i] == '.') {
            dot = 1;
            continue;
        }
        if (first < 0 && t[i] != '0')
            first = pos;
        if (first >= 0 && nsig < JS_SIG_DIGITS)
            sig[nsig++] = t[i];
        else if (first >= 0 && t[i] != '0')
            sticky = 1;
        intlen += !dot;
        pos++;
    }
    if (i < n && ++i < n && (t[i] == '+' || t[i] == '-'))
        neg = t[i++] == '-';
    for (; i < n; i++)
        if (e < 1000000000) /* past this any exponent decides alone */
            e = e * 10 + (t[i] - '0');
    if (first < 0)
        return 0; /* zero */
    long long E = intlen - first + (neg ? -e : e);
    if (E != 309)
        return E > 309;
    if (sticky)
        sig[nsig++] = '1';
    snprintf(sig + nsig, sizeof sig - nsig, "e%lld", E - (long long)nsig);
    return isinf(strtod(sig, NULL));
}

/* The JSON path of the value the scan is at ("" for the top level). */
static void scan_path(const js_scan *s, char out[LR_PATH_MAX])
{
    size_t n = 0;
    int depth = s->depth < JS_DEPTH ? s->depth : JS_DEPTH;
    out[0] = '\0';
    for (int d = 0; d < depth && n < LR_PATH_MAX; d++) {
        const js_frame *f = &s->frame[d];
        int w;
        if (!f->is_object)
            w = snprintf(out + n, LR_PATH_MAX - n, "[%d]", f->index);
        else if (d == s->depth - 1 && s->expect_key)
            break; /* a token where a key belongs: name the object */
        else
            w = snprintf(out + n, LR_PATH_MAX - n, "%s%.*s", n ? "." : "", (int)f->key_len,
                         s->t + f->key_at);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* Refuses the token t[at..at+n): "<text> at line L, column C", then what. */
static int refuse(const js_scan *s, size_t at, size_t n, lr_code code, const char *before,
                  const char *what, lr_error *err)
{
    char path[LR_PATH_MAX];
    unsigned long line, col;
    lr_utf8_line_column(s->t, at, &line, &col);
    scan_path(s, path);
    return lr_error_set(err, code, path, "%s%.*s%s at line %lu, column %lu %s", before,
                        (int)(n > JS_QUOTE ? JS_QUOTE : n), s->t + at,
                        n > JS_QUOTE ? "..." : "", line, col, what);
}

/* Checks the bare token t[at..at+n). 0 or -1 with err. */
static int check_token(const js_scan *s, size_t at, size_t n, lr_error *err)
{
    const char *t = s->t + at;
    int integer = 0;
    size_t stop = 0;
    if (!is_digit(*t) && *t != '-' && *t != '+' && *t != '.' && !is_nonfinite_word(t, n))
        return 0; /* true, false, null, or a typo cJSON will refuse */
    const char *why = grammar(t, n, &integer, &stop);
    if (why) {
        char what[256], ends[48] = "";
        if (why == js_trailing)
            snprintf(ends, sizeof ends, "the number ends before '%c' (", t[stop]);
        snprintf(what, sizeof what,
                 "is no JSON number: %s%s%s; a JSON number is written " JS_GRAMMAR, ends, why,
                 *ends ? ")" : "");
        return refuse(s, at, n, LR_INVALID_JSON, "the body is not valid JSON: ", what, err);
    }
    if (integer && beyond_exact(t, n))
        return refuse(s, at, n, LR_INVALID_REQUEST, "the integer ",
                      "is beyond 2^53 = " JS_MAX_EXACT_INTEGER ": a double, which holds JSON "
                      "numbers here, cannot hold every integer past it, so another number "
                      "would be read",
                      err);
    if (overflows(t, n))
        return refuse(s, at, n, LR_INVALID_REQUEST, "the number ",
                      "is beyond the largest double (about 1.8e308)", err);
    return 0;
}

/* Skips the string that starts at t[i] (a '"'), recording it as the innermost
 * object's key when one is expected. The index after its closing quote. */
static size_t skip_string(js_scan *s, size_t len, size_t i)
{
    size_t j = i + 1;
    while (j < len && s->t[j] != '"')
        j += s->t[j] == '\\' ? 2 : 1;
    j = j < len ? j : len;
    if (s->expect_key && s->depth > 0 && s->depth <= JS_DEPTH) {
        s->frame[s->depth - 1].key_at = i + 1;
        s->frame[s->depth - 1].key_len = j - (i + 1);
    }
    s->expect_key = 0;
    return j + 1;
}

int js_numbers_check(const char *text, size_t len, lr_error *err)
{
    js_scan s = {.t = text};
    size_t i = 0;
    while (i < len) {
        char c = text[i];
        js_frame *top = s.depth > 0 && s.depth <= JS_DEPTH ? &s.frame[s.depth - 1] : NULL;
        if (c == '"') {
            i = skip_string(&s, len, i);
            continue;
        }
        if (is_token_byte(c)) {
            size_t n = 1;
            while (i + n < len && is_token_byte(text[i + n]))
                n++;
            if (check_token(&s, i, n, err))
                return -1;
            i += n;
            continue;
        }
        if (c == '{' || c == '[') {
            if (s.depth < JS_DEPTH)
                s.frame[s.depth] = (js_frame){.is_object = c == '{'};
            s.depth++;
            s.expect_key = c == '{';
        } else if ((c == '}' || c == ']') && s.depth > 0) {
            s.depth--;
            s.expect_key = 0;
        } else if (c == ',' && top) {
            top->index++;
            s.expect_key = top->is_object;
        }
        i++;
    }
    return 0;
}
