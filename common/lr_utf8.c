/* lr_utf8: see lr_utf8.h. */
#include "lr_utf8.h"

#include <string.h>

size_t lr_utf8_seq_len(const unsigned char *p, size_t n)
{
    if (n == 0)
        return 0;
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

int lr_utf8_prefix(const char *s, size_t max)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), at = 0;
    while (at < n) {
        size_t k = lr_utf8_seq_len(p + at, n - at);
        if (k == 0)
            k = 1; /* not UTF-8: counted as one byte, lr_utf8_repair deals with it */
        if (at + k > max)
            break;
        at += k;
    }
    return (int)at;
}

/* Whether p (n bytes left) starts a character that was cut short: a lead byte
 * followed by fewer continuation bytes than it announces. */
static size_t cut_char_len(const unsigned char *p, size_t n)
{
    size_t want = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (want == 0 || p[0] > 0xF4)
        return 0;
    size_t have = 1;
    while (have < want && have < n && (p[have] & 0xC0) == 0x80)
        have++;
    return have < want ? have : 0;
}

void lr_utf8_repair(char *s)
{
    unsigned char *r = (unsigned char *)s, *w = r;
    size_t n = strlen(s);
    const unsigned char *end = r + n;
    while (r < end) {
        size_t k = lr_utf8_seq_len(r, (size_t)(end - r));
        if (k > 0) {
            memmove(w, r, k);
            w += k;
            r += k;
            continue;
        }
        size_t cut = cut_char_len(r, (size_t)(end - r));
        if (cut > 0) {
            r += cut; /* a character cut short: drop what is left of it */
        } else {
            *w++ = '?';
            r++;
        }
    }
    *w = '\0';
}

void lr_ascii_excerpt(const char *in, size_t max_chars, char *out, size_t size)
{
    static const char more[] = "...";
    if (size == 0)
        return;
    size_t room = size - 1 < max_chars ? size - 1 : max_chars, n = 0;
    for (; in[n] && n < room; n++) {
        unsigned char c = (unsigned char)in[n];
        out[n] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (in[n] && n >= sizeof more - 1 && size > sizeof more - 1) {
        n -= sizeof more - 1; /* say the value goes on */
        memcpy(out + n, more, sizeof more - 1);
        n += sizeof more - 1;
    }
    out[n] = '\0';
}

void lr_utf8_line_column(const char *text, size_t at, unsigned long *line,
                         unsigned long *column)
{
    unsigned long l = 1, c = 1;
    for (size_t i = 0; i < at; i++) {
        unsigned char b = (unsigned char)text[i];
        if (b == '\n') {
            l++;
            c = 1;
        } else if ((b & 0xC0) != 0x80) { /* count characters, not UTF-8 bytes */
            c++;
        }
    }
    *line = l;
    *column = c;
}
