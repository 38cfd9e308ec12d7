/*
 * lr_utf8: the few UTF-8 operations that keep every answer valid UTF-8 (and so valid
 * JSON). Request bodies are checked to be UTF-8 before they are parsed; what can
 * still break an answer is our own cutting of user text to a length (a byte limit
 * may fall inside a character) and bytes from outside the body (headers).
 */
#ifndef LR_UTF8_H
#define LR_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at p (at most n bytes available), or 0 when
 * p does not start one: no overlong forms, no surrogates, nothing above U+10FFFF. */
size_t lr_utf8_seq_len(const unsigned char *p, size_t n);

/* The length in bytes of the longest prefix of s that has at most max bytes and
 * ends on a character boundary; for printf's "%.*s" where "%.60s" could cut a
 * character in two. */
int lr_utf8_prefix(const char *s, size_t max);

/* Makes s valid UTF-8 in place (it can only shrink): a character cut short at the
 * end or before other text (what a byte limit leaves) is dropped, any other byte
 * that is not UTF-8 becomes '?'. */
void lr_utf8_repair(char *s);

/* Copies the printable ASCII of in (at most max_chars of it) to out (size bytes),
 * every other byte written as '?', and "..." when in is longer. For echoing header
 * values a client chose (Content-Type, Origin, the method) in a message: they are
 * not checked to be UTF-8 by anyone, and need not be shown whole. */
void lr_ascii_excerpt(const char *in, size_t max_chars, char *out, size_t size);

/* The line and column (1-based; columns in characters, not bytes) of byte offset at
 * of text, which holds at least at bytes of UTF-8: what a person finds in an editor,
 * where a byte offset means nothing. Lines end at '\n' ("\r\n" counts once). */
void lr_utf8_line_column(const char *text, size_t at, unsigned long *line,
                         unsigned long *column);

#endif
