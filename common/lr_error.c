/* lr_error: see lr_error.h. */
#include "lr_error.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "lr_utf8.h"

static const char *const code_names[LR_CODE_COUNT] = {
    [LR_OK] = "ok",
    [LR_INVALID_JSON] = "invalid_json",
    [LR_INVALID_REQUEST] = "invalid_request",
    [LR_UNSUPPORTED_EXPR] = "unsupported_expression",
    [LR_NOT_LAUNCHABLE] = "not_launchable",
    [LR_LIMIT_EXCEEDED] = "limit_exceeded",
    [LR_BUDGET_EXCEEDED] = "budget_exceeded",
    [LR_NOT_FOUND] = "not_found",
    [LR_METHOD_NOT_ALLOWED] = "method_not_allowed",
    [LR_UNAVAILABLE] = "unavailable",
    [LR_NO_MEMORY] = "out_of_memory",
    [LR_INTERNAL] = "internal",
};

void lr_error_clear(lr_error *err)
{
    err->code = LR_OK;
    err->message[0] = '\0';
    err->path[0] = '\0';
}

int lr_error_is_set(const lr_error *err)
{
    return err->code != LR_OK;
}

int lr_error_setv(lr_error *err, lr_code code, const char *path, const char *fmt, va_list ap)
{
    if (!err || err->code != LR_OK)
        return -1;
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    /* Both carry user text cut to a length ("%.60s", the buffer sizes), possibly
     * inside a character; the error body must stay UTF-8 whatever was cut. */
    lr_utf8_repair(err->message);
    lr_utf8_repair(err->path);
    return -1;
}

int lr_error_set(lr_error *err, lr_code code, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lr_error_setv(err, code, path, fmt, ap);
    va_end(ap);
    return -1;
}

const char *lr_code_name(lr_code code)
{
    if (code < 0 || code >= LR_CODE_COUNT)
        return "internal";
    return code_names[code];
}

char *lr_error_to_json(const lr_error *err, const char *model_version)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *e = cJSON_AddObjectToObject(root, "error");
    char *text = NULL;
    if (e && cJSON_AddStringToObject(e, "code", lr_code_name(err->code)) &&
        cJSON_AddStringToObject(e, "message", err->message) &&
        cJSON_AddStringToObject(e, "path", err->path) &&
        cJSON_AddStringToObject(root, "model_version", model_version))
        text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}
