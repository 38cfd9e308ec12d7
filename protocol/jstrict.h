/*
 * jstrict: the numbers of a request body, checked against RFC 8259 before cJSON reads
 * them. cJSON hands its number text to strtod, which also takes 0100, 64., -.5 and
 * 1.e5, and it rounds an integer past 2^53 to the nearest double without a word; a
 * request that says 9007199254740993 must not be estimated as ...992. One pass over
 * the text, no tree: it follows the object keys and array indices so that an error
 * can name the value by its JSON path, and gives the line and column of the token.
 */
#ifndef LR_JSTRICT_H
#define LR_JSTRICT_H

#include <stddef.h>

#include "lr_error.h"

/* The largest integer magnitude a request may write as an integer literal: beyond
 * 2^53 a double (what cJSON stores) no longer holds every integer. */
#define JS_MAX_EXACT_INTEGER "9007199254740992"

/* Checks every number of text (len bytes, need not be NUL-terminated nor valid JSON;
 * columns are counted right in UTF-8, which jr_precheck checks first). A number must
 * match -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; a bare word NaN, Inf or
 * Infinity (any case, any sign) is refused as a number. A number written as an
 * integer must be at most 2^53 in magnitude, and any number must be finite as a
 * double (1e400 is not). Other malformed JSON is left to cJSON. Returns 0, or -1 with
 * err: LR_INVALID_JSON for a token that is no JSON number, LR_INVALID_REQUEST for a
 * number out of range; the path of the value, the line and column (1-based, columns
 * in characters) in the message. */
int js_numbers_check(const char *text, size_t len, lr_error *err);

#endif
