/*
 * values: an index field's integers from a request (values.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jread.h"
#include "lr_sha256.h"
#include "values.h"

static const char *const value_keys[] = {"data", "file", "format", "sha256", NULL};

int lr_is_sha256(const char *text)
{
    size_t n = 0;
    for (; text[n]; n++)
        if (!((text[n] >= '0' && text[n] <= '9') || (text[n] >= 'a' && text[n] <= 'f')))
            return 0;
    return n == 64;
}

/* Narrows v (count int64 values) to int32 in place when every value fits: the
 * estimator reads half the bytes, and equal values are stored, hashed and cached
 * alike whatever width they came in. Returns the element size kept. */
static int narrow(int64_t *v, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        if (v[i] < INT32_MIN || v[i] > INT32_MAX)
            return 8;
    int32_t *o = (int32_t *)v;
    for (int64_t i = 0; i < count; i++)
        o[i] = (int32_t)v[i];
    return 4;
}

static int read_format(const cJSON *v, const char *path, const char **format, int *width,
                       lr_error *err);

static int read_data(const cJSON *data, const char *path, int64_t count, int64_t **out,
                     lr_error *err)
{
    jpath p;
    jp_key(&p, path, "data");
    if (!cJSON_IsArray(data))
        return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                            "must be an array of integers, the field's elements innermost "
                            "dimension first");
    int n = cJSON_GetArraySize(data);
    if (n != count)
        return lr_error_set(err, LR_INVALID_REQUEST, p.s,
                            "holds %d values; the field's dims make %lld elements", n,
                            (long long)count);
    int64_t *v = malloc((size_t)(count ? count : 1) * sizeof *v);
    if (!v)
        return lr_error_set(err, LR_NO_MEMORY, p.s, "out of memory");
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, data)
    {
        jpath ep;
        jp_index(&ep, p.s, i);
        if (jr_int(e, ep.s, -(1ll << 53), 1ll << 53, &v[i], err)) {
            free(v);
            return -1;
        }
        i++;
    }
    *out = v;
    return 0;
}

static int read_file(const cJSON *v, const char *path, int64_t count, int64_t **out,
                     int *width_out, lr_error *err)
{
    jpath fp;
    jp_key(&fp, path, "file");
    const char *file, *format;
    int width;
    if (jr_str(jr_get(v, "file"), fp.s, 4096, &file, err) ||
        read_format(v, path, &format, &width, err))
        return -1;
    struct stat st;
    FILE *f = fopen(file, "rb");
    if (!f || fstat(fileno(f), &st) != 0) {
        int e = errno;
        if (f)
            fclose(f);
        return lr_error_set(err, LR_INVALID_REQUEST, fp.s, "cannot read '%s': %s", file,
                            strerror(e));
    }
    if ((int64_t)st.st_size != count * width) {
        fclose(f);
        return lr_error_set(err, LR_INVALID_REQUEST, fp.s,
                            "'%s' has %lld bytes; the field's dims make %lld elements of %d "
                            "bytes (%s), %lld bytes",
                            file, (long long)st.st_size, (long long)count, width, format,
                            (long long)(count * width));
    }
    /* int32-le is read as it is stored (narrow() keeps it); int64-le is read whole */
    int64_t *vals = malloc((size_t)(count ? count : 1) * (size_t)width);
    if (!vals) {
        fclose(f);
        return lr_error_set(err, LR_NO_MEMORY, fp.s, "out of memory");
    }
    size_t got = fread(vals, (size_t)width, (size_t)count, f);
    fclose(f);
    if ((int64_t)got != count) {
        free(vals);
        return lr_error_set(err, LR_INVALID_REQUEST, fp.s, "'%s': short read", file);
    }
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "values.c reads little-endian files into native integers"
#endif
    *width_out = width;
    *out = vals;
    return 0;
}

/* The "format" of v (at path), int32-le when absent: *width 4 or 8. */
static int read_format(const cJSON *v, const char *path, const char **format, int *width,
                       lr_error *err)
{
    jpath mp;
    jp_key(&mp, path, "format");
    *format = "int32-le";
    if (jr_get(v, "format") && jr_str(jr_get(v, "format"), mp.s, 16, format, err))
        return -1;
    *width = strcmp(*format, "int32-le") == 0 ? 4 : strcmp(*format, "int64-le") == 0 ? 8 : 0;
    if (!*width)
        return lr_error_set(err, LR_INVALID_REQUEST, mp.s,
                            "'%s': the formats are \"int32-le\" and \"int64-le\"", *format);
    return 0;
}

/* {"sha256": HEX}: the array uploaded under that name (PUT /v1/arrays/{sha256}), read
 * from arrays; its length must be the field's element count. */
static int read_stored(const cJSON *v, const char *path, int64_t count, const lr_arrays *arrays,
                       int64_t **out, int *width_out, lr_error *err)
{
    jpath sp;
    jp_key(&sp, path, "sha256");
    const char *hex;
    if (jr_str(jr_get(v, "sha256"), sp.s, 64, &hex, err))
        return -1;
    if (!lr_is_sha256(hex))
        return lr_error_set(err, LR_INVALID_REQUEST, sp.s,
                            "'%s' is not a SHA-256: 64 lowercase hexadecimal digits, the "
                            "digest of the bytes uploaded with PUT /v1/arrays/{sha256}",
                            hex);
    if (!arrays || !arrays->get)
        return lr_error_set(err, LR_INVALID_REQUEST, sp.s,
                            "there is no database of uploaded arrays here: upload the array "
                            "to a daemon that runs with a database (PUT /v1/arrays/%s), or "
                            "give the values as \"data\" or, on your own machine, \"file\"",
                            hex);
    void *data;
    int64_t bytes;
    int width;
    lr_error why;
    lr_error_clear(&why);
    int found = arrays->get(arrays->user, hex, &data, &bytes, &width, &why);
    if (found < 0)
        return lr_error_set(err, why.code, sp.s, "%s", why.message);
    if (!found)
        return lr_error_set(err, LR_INVALID_REQUEST, sp.s,
                            "no array %s is stored: upload its bytes first with PUT "
                            "/v1/arrays/%s (Content-Type: application/octet-stream, "
                            "little-endian int32, or int64 with ?format=int64-le); a daemon "
                            "keeps arrays up to its --max-arrays-mb, evicting the least "
                            "recently used",
                            hex, hex);
    const char *format;
    int want = width;
    if (jr_get(v, "format") && read_format(v, path, &format, &want, err)) {
        free(data);
        return -1;
    }
    if (want != width) {
        free(data);
        jpath mp;
        jp_key(&mp, path, "format");
        return lr_error_set(err, LR_INVALID_REQUEST, mp.s,
                            "'%s', but array %s was uploaded as int%d-le", format, hex,
                            8 * width);
    }
    if (bytes != count * width) {
        free(data);
        return lr_error_set(err, LR_INVALID_REQUEST, sp.s,
                            "array %s holds %lld int%d values; the field's dims make %lld "
                            "elements",
                            hex, (long long)(bytes / width), 8 * width, (long long)count);
    }
    *width_out = width;
    *out = data;
    return 0;
}

int lr_values_read(const cJSON *v, const char *path, const char *name, int ndims,
                   const int64_t dims[3], int local_files, const lr_arrays *arrays,
                   est_table **out, char sha256[LR_SHA256_HEX], lr_error *err)
{
    *out = NULL;
    if (jr_object(v, path, err) || jr_only_keys(v, path, value_keys, err))
        return -1;
    int64_t count = dims[0] * dims[1] * dims[2];
    int64_t *vals = NULL;
    int width = 8; /* of what was read: narrow() may halve it */
    int has_data = jr_get(v, "data") != NULL, has_file = jr_get(v, "file") != NULL,
        has_sha = jr_get(v, "sha256") != NULL;
    if (has_data + has_file + has_sha != 1)
        return lr_error_set(err, LR_INVALID_REQUEST, path,
                            "give the values as exactly one of \"data\" (an array of "
                            "integers), \"sha256\" (an array uploaded to the daemon with PUT "
                            "/v1/arrays/{sha256}) and \"file\" (a file of little-endian "
                            "integers, read by the CLI and the Python Local back end)");
    if (has_sha) {
        if (read_stored(v, path, count, arrays, &vals, &width, err))
            return -1;
    } else if (has_data) {
        if (count > LR_MAX_INLINE_VALUES)
            return lr_error_set(err, LR_LIMIT_EXCEEDED, path,
                                "%lld values inline; at most %d: give a larger index field "
                                "as a file",
                                (long long)count, LR_MAX_INLINE_VALUES);
        if (read_data(jr_get(v, "data"), path, count, &vals, err))
            return -1;
    } else {
        jpath fp;
        jp_key(&fp, path, "file");
        if (!local_files)
            return lr_error_set(err, LR_INVALID_REQUEST, fp.s,
                                "the daemon reads no files of its machine: send the values "
                                "inline as \"data\", or estimate with the CLI or the Python "
                                "Local back end, which read the file on your machine");
        if (read_file(v, path, count, &vals, &width, err))
            return -1;
    }
    if (width == 8)
        width = narrow(vals, count);
    lr_sha256_hex(vals, (size_t)(count * width), sha256);
    if (width == 4) { /* give back the half narrowing freed, if it did */
        int64_t *s = realloc(vals, (size_t)(count ? count : 1) * 4);
        vals = s ? s : vals;
    }
    *out = est_table_new(name, ndims, dims, width, vals, path, err);
    return *out ? 0 : -1;
}
