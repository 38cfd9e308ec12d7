/*
 * lr_error: the error value that travels with every request.
 *
 * An error is a code (machine-readable, stable: clients switch on it), a message
 * written for the person who sent the request, and the JSON path of the offending
 * input where there is one ("kernel.fields[0].loads[3][1]"). The first error set on
 * a value wins, so deep callees can report precisely and callers just propagate.
 * The HTTP status of each code is decided once, in server/.
 */
#ifndef LR_ERROR_H
#define LR_ERROR_H

#include <stdarg.h>

typedef enum lr_code {
    LR_OK = 0,
    LR_INVALID_JSON,       /* body is not JSON, or nested too deep */
    LR_INVALID_REQUEST,    /* JSON is fine but a value is missing, mistyped or out of range */
    LR_UNSUPPORTED_EXPR,   /* an address expression outside the affine language */
    LR_NOT_LAUNCHABLE,     /* the configuration cannot run on the device */
    LR_LIMIT_EXCEEDED,     /* a size limit of the service (body, fields, configurations) */
    LR_BUDGET_EXCEEDED,    /* the isl operation budget of the request ran out */
    LR_NOT_FOUND,          /* unknown device, endpoint */
    LR_METHOD_NOT_ALLOWED, /* endpoint exists, method does not */
    LR_UNAVAILABLE,        /* a backend (GPU, NVRTC) is not present */
    LR_NO_MEMORY,
    LR_INTERNAL,
    LR_CODE_COUNT
} lr_code;

#define LR_MESSAGE_MAX 512
#define LR_PATH_MAX 256

typedef struct lr_error {
    lr_code code;
    char message[LR_MESSAGE_MAX];
    char path[LR_PATH_MAX]; /* "" when the error is not about one input value */
} lr_error;

/* Resets *err to "no error". */
void lr_error_clear(lr_error *err);

/* Records an error unless one is already recorded (first error wins). path may be
 * NULL. Message and path are cut to their buffers and made valid UTF-8 (a character
 * cut in two by a length limit is dropped), so error bodies are always UTF-8.
 * Returns -1 so callers can write `return lr_error_set(...)`. */
int lr_error_set(lr_error *err, lr_code code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int lr_error_setv(lr_error *err, lr_code code, const char *path, const char *fmt, va_list ap);

/* Non-zero when an error is recorded. */
int lr_error_is_set(const lr_error *err);

/* The stable machine-readable name of a code ("invalid_request"). */
const char *lr_code_name(lr_code code);

/* The error body every front end prints or sends:
 * {"error":{"code","message","path"},"model_version"}; path is "" when the error is
 * not about one input value, so the shape never changes. A malloc'd string the caller
 * frees with free(), or NULL when out of memory. */
char *lr_error_to_json(const lr_error *err, const char *model_version);

#endif
