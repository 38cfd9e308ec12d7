/* jread: see jread.h. */
#include "jread.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_suggest.h"
#include "lr_utf8.h"

void jp_key(jpath *out, const char *parent, const char *key)
{
    snprintf(out->s, sizeof out->s, "%s%s%s", parent, *parent ? "." : "", key);
}

void jp_index(jpath *out, const char *parent, int index)
{
    snprintf(out->s, sizeof out->s, "%s[%d]", parent, index);
}

const cJSON *jr_get(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static const char *kind(const cJSON *v)
{
    if (!v || cJSON_IsNull(v))
        return "null";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsArray(v))
        return "an array";
    return "an object";
}

int jr_only_keys(const cJSON *obj, const char *path, const char *const *allowed, lr_error *err)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, obj)
    {
        int ok = 0;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = c->string && strcmp(c->string, *a) == 0;
        if (!ok) {
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         a == allowed ? "" : ", ", *a);
            jpath p;
            jp_key(&p, path, c->string ? c->string : "?");
            const char *key = c->string ? c->string : "?";
            lr_suggest sg;
            lr_suggest_init(&sg, key, strlen(key));
            for (const char *const *a = allowed; *a; a++)
                lr_suggest_offer(&sg, *a);
            const char *near = lr_suggest_best(&sg);
            return lr_error_set(
                err, LR_INVALID_REQUEST, p.s, "unknown key '%.*s'; expected one of: %s%s%s%s",
                lr_utf8_prefix(key, 60), key, list, near ? "; did you mean '" : "",
                near ? near : "", near ? "'?" : "");
        }
    }
    return 0;
}

int jr_int(const cJSON *v, const char *path, int64_t min, int64_t max, int64_t *out,
           lr_error *err)
{
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!cJSON_IsNumber(v) || !isfinite(d) || d != floor(d) || d < (double)min ||
        d > (double)max)
        return lr_error_set(
            err, LR_INVALID_REQUEST, path, "must be an integer from %lld to %lld, not %s%s",
            (long long)min, (long long)max, cJSON_IsNumber(v) ? "" : kind(v),
            cJSON_IsNumber(v) ? (d != floor(d) ? "a fraction" : "a value out of range") : "");
    *out = (int64_t)d;
    return 0;
}

int jr_num(const cJSON *v, const char *path, double min, double max, double *out, lr_error *err)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < min ||
        v->valuedouble > max)
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            "must be a number from %g to %g, not %s", min, max,
                            cJSON_IsNumber(v) ? "a value out of range" : kind(v));
    *out = v->valuedouble;
    return 0;
}

int jr_str(const cJSON *v, const char *path, size_t maxlen, const char **out, lr_error *err)
{
    if (!cJSON_IsString(v) || !v->valuestring)
        return lr_error_set(err, LR_INVALID_REQUEST, path, "must be a string, not %s", kind(v));
    size_t n = strlen(v->valuestring);
    if (n == 0 || n > maxlen)
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            "must be a string of 1 to %zu bytes, not %zu", maxlen, n);
    *out = v->valuestring;
    return 0;
}

int jr_array(const cJSON *v, const char *path, int min, int max, lr_error *err)
{
    if (!cJSON_IsArray(v))
        return lr_error_set(err, LR_INVALID_REQUEST, path, "must be an array, not %s", kind(v));
    int n = cJSON_GetArraySize(v);
    /* An array of at most 3 entries is a shape (dimensions), so a fourth entry is a
     * malformed request; past a larger bound the request is too big (413). */
    if (n < min || n > max)
        return lr_error_set(err, n > max && max > 3 ? LR_LIMIT_EXCEEDED : LR_INVALID_REQUEST,
                            path, "must have %d to %d elements, not %d", min, max, n);
    return n;
}

int jr_object(const cJSON *v, const char *path, lr_error *err)
{
    if (!cJSON_IsObject(v))
        return lr_error_set(err, LR_INVALID_REQUEST, path, "must be an object, not %s",
                            kind(v));
    return 0;
}

int jr_triple(const cJSON *v, const char *path, int64_t min, int64_t max, int64_t fill,
              int64_t out[3], int *n, lr_error *err)
{
    int len = jr_array(v, path, 1, 3, err);
    if (len < 0)
        return -1;
    for (int i = 0; i < 3; i++)
        out[i] = fill;
    for (int i = 0; i < len; i++) {
        jpath p;
        jp_index(&p, path, i);
        if (jr_int(cJSON_GetArrayItem(v, i), p.s, min, max, &out[i], err))
            return -1;
    }
    if (n)
        *n = len;
    return 0;
}

int jr_precheck(const char *text, size_t len, int max_depth, lr_error *err)
{
    const unsigned char *t = (const unsigned char *)text;
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len;) {
        size_t n = lr_utf8_seq_len(t + i, len - i);
        if (n == 0)
            return lr_error_set(err, LR_INVALID_JSON, "",
                                "the body is not valid UTF-8 (byte %zu)", i);
        if (n > 1) {
            i += n;
            continue;
        }
        unsigned char c = t[i];
        if (in_str) {
            if (c == '\\') {
                if (i + 5 < len && t[i + 1] == 'u' && t[i + 2] == '0' && t[i + 3] == '0' &&
                    t[i + 4] == '0' && t[i + 5] == '0')
                    return lr_error_set(err, LR_INVALID_JSON, "",
                                        "a string contains \\u0000 (byte %zu); names and "
                                        "expressions cannot contain NUL",
                                        i);
                i += 2;
                continue;
            }
            if (c == '"')
                in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth)
                return lr_error_set(err, LR_INVALID_JSON, "",
                                    "JSON nested deeper than %d levels", max_depth);
        } else if (c == ']' || c == '}') {
            depth--;
        }
        i++;
    }
    return 0;
}

/* ---- raw control characters --------------------------------------------------- */

/* Containers deeper than this are not followed by the path of a control-character
 * error (the path then names the deepest container followed). jr_precheck has
 * already refused bodies nested deeper than the request limit, far below this. */
#define JR_SCAN_DEPTH 64

/* Where the scan of jr_check_controls is: for each open container, which of its
 * elements or members it is in. */
typedef struct jr_scan {
    int index[JR_SCAN_DEPTH]; /* element or member index in each open container */
    int depth;                /* open containers */
} jr_scan;

/* The JSON path of where the scan is, read from the parsed tree: cJSON keeps the
 * members of an object in their order in the text, so index k is the k-th child. */
static void scan_path(const jr_scan *sc, const cJSON *root, jpath *out)
{
    const cJSON *node = root;
    out->s[0] = '\0';
    int depth = sc->depth < JR_SCAN_DEPTH ? sc->depth : JR_SCAN_DEPTH;
    for (int d = 0; d < depth && node; d++) {
        const cJSON *child = cJSON_GetArrayItem(node, sc->index[d]);
        jpath parent = *out;
        if (cJSON_IsObject(node) && child && child->string)
            jp_key(out, parent.s, child->string);
        else if (cJSON_IsArray(node))
            jp_index(out, parent.s, sc->index[d]);
        node = child;
    }
}

static int control_error(const jr_scan *sc, const cJSON *root, int in_key, unsigned char c,
                         size_t at, lr_error *err)
{
    jpath p;
    scan_path(sc, root, &p);
    return lr_error_set(err, LR_INVALID_JSON, p.s,
                        "%s holds the raw control byte 0x%02X (byte %zu of the body); JSON "
                        "strings cannot contain bytes below 0x20 unescaped",
                        in_key ? "the key of this value" : "the string", c, at);
}

int jr_check_controls(const char *text, size_t len, const cJSON *root, lr_error *err)
{
    const unsigned char *t = (const unsigned char *)text;
    jr_scan sc = {.depth = 0};
    int in_str = 0, in_key = 0;
    int is_object[JR_SCAN_DEPTH] = {0}, expect_key = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = t[i];
        if (in_str) {
            if (c == '\\')
                i++; /* the escaped byte cannot end the string */
            else if (c == '"')
                in_str = 0;
            else if (c < 0x20)
                return control_error(&sc, root, in_key, c, i, err);
            continue;
        }
        int top = sc.depth - 1;
        switch (c) {
        case '"':
            in_str = 1;
            in_key = top >= 0 && top < JR_SCAN_DEPTH && is_object[top] && expect_key;
            expect_key = 0;
            break;
        case '{':
        case '[':
            if (sc.depth < JR_SCAN_DEPTH) {
                sc.index[sc.depth] = 0;
                is_object[sc.depth] = c == '{';
            }
            sc.depth++;
            expect_key = c == '{';
            break;
        case '}':
        case ']':
            sc.depth--;
            break;
        case ',':
            if (top >= 0 && top < JR_SCAN_DEPTH) {
                sc.index[top]++;
                expect_key = is_object[top];
            }
            break;
        case ' ':
        case '\t':
        case '\n':
        case '\r':
            break;
        default:
            /* cJSON skips every byte up to 0x20 as white space; JSON allows four. */
            if (c < 0x20)
                return lr_error_set(err, LR_INVALID_JSON, "",
                                    "the body holds the control byte 0x%02X (byte %zu) "
                                    "outside a string; JSON allows only space, tab, CR and "
                                    "LF between values",
                                    c, i);
        }
    }
    return 0;
}

/* ---- duplicate keys --------------------------------------------------------------- */

/* Objects with at most this many members are checked pairwise (no allocation); a
 * larger one (a hostile 100k-key object) is sorted instead. */
#define JR_PAIRWISE_MAX 16

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key of obj that a later member repeats, or NULL. -1 in *oom when the
 * sort buffer could not be allocated. */
static const char *repeated_key(const cJSON *obj, int *oom)
{
    int n = cJSON_GetArraySize(obj);
    const cJSON *a, *b;
    if (n <= JR_PAIRWISE_MAX) {
        for (a = obj->child; a; a = a->next)
            for (b = a->next; b; b = b->next)
                if (a->string && b->string && strcmp(a->string, b->string) == 0)
                    return a->string;
        return NULL;
    }
    const char **keys = malloc((size_t)n * sizeof *keys);
    if (!keys) {
        *oom = 1;
        return NULL;
    }
    int k = 0;
    cJSON_ArrayForEach(a, obj) keys[k++] = a->string ? a->string : "";
    qsort(keys, (size_t)k, sizeof *keys, cmp_keys);
    const char *dup = NULL;
    for (int i = 1; i < k && !dup; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0)
            dup = keys[i];
    free(keys);
    return dup;
}

/* The first object under v (v included, depth first, each object before its
 * members) that repeats a key, with the key in *dup; NULL when none does, or when out
 * of memory (*oom set). */
static const cJSON *find_repeated(const cJSON *v, const char **dup, int *oom)
{
    if (cJSON_IsObject(v) && (*dup = repeated_key(v, oom)))
        return v;
    const cJSON *c;
    cJSON_ArrayForEach(c, v)
    {
        const cJSON *o = *oom || !(cJSON_IsObject(c) || cJSON_IsArray(c))
                             ? NULL
                             : find_repeated(c, dup, oom);
        if (o || *oom)
            return o;
    }
    return NULL;
}

/* Writes the path of target, a value under v (whose path is path), to out. Paths are
 * built only here, for the error: a request's thousands of values need none. 1 when
 * target was found. */
static int path_of(const cJSON *v, const char *path, const cJSON *target, jpath *out)
{
    if (v == target) {
        snprintf(out->s, sizeof out->s, "%s", path);
        return 1;
    }
    const cJSON *c;
    int i = 0;
    cJSON_ArrayForEach(c, v)
    {
        jpath p;
        if (cJSON_IsObject(v))
            jp_key(&p, path, c->string ? c->string : "?");
        else
            jp_index(&p, path, i);
        i++;
        if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && path_of(c, p.s, target, out))
            return 1;
    }
    return 0;
}

int jr_unique_keys(const cJSON *v, const char *path, lr_error *err)
{
    int oom = 0;
    const char *dup = NULL;
    const cJSON *o = find_repeated(v, &dup, &oom);
    if (oom)
        return lr_error_set(err, LR_NO_MEMORY, NULL, "out of memory");
    if (!o)
        return 0;
    jpath at, p;
    if (!path_of(v, path, o, &at))
        snprintf(at.s, sizeof at.s, "%s", path);
    jp_key(&p, at.s, dup);
    return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                        "the key '%.*s' appears more than once in this object; give each key "
                        "once (which one would count is not defined)",
                        lr_utf8_prefix(dup, 60), dup);
}

int jr_missing(const char *parent, const char *key, const char *what, lr_error *err)
{
    jpath p;
    jp_key(&p, parent, key);
    return lr_error_set(err, LR_INVALID_REQUEST, p.s, "missing: %s", what);
}
