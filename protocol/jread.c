/* jread: see jread.h. */
#include "jread.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
            return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                                "unknown key '%.60s'; expected one of: %s",
                                c->string ? c->string : "?", list);
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

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid: no
 * overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    if (p[0] < 0x80)
        return 1;
    size_t len = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (len == 0 || len > n || p[0] > 0xF4)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] > 0x9F) ||
        (p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] > 0x8F))
        return 0;
    return len;
}

int jr_precheck(const char *text, size_t len, int max_depth, lr_error *err)
{
    const unsigned char *t = (const unsigned char *)text;
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_len(t + i, len - i);
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
