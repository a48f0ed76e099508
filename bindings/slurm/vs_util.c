/* Text helpers of the Slurm plugin (see vs_util.h). */
#include "vs_util.h"

#include <stdio.h>
#include <string.h>

char *vs_appendf(char *buf, size_t cap, const char *fmt, ...)
{
    if (!cap) return buf;
    size_t len = strnlen(buf, cap - 1);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
    return buf;
}

int vs_fail(char *buf, size_t cap, const char *fmt, ...)
{
    if (cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned cp, min;
    if ((c & 0xE0) == 0xC0)
        len = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        len = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        len = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

size_t vs_utf8_bad_at(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t l = utf8_seq(u + i, n - i);
        if (!l) return i;
        i += l;
    }
    return n;
}

void vs_quote(char *out, size_t cap, const char *s, size_t n, size_t max)
{
    if (!cap) return;
    size_t o = 0;
    const unsigned char *u = (const unsigned char *)s;
    /* Room for the closing quote, "..." and the NUL. */
    if (cap < 6) {
        out[0] = '\0';
        return;
    }
    out[o++] = '"';
    size_t i = 0;
    while (i < n && i < max) {
        size_t l = utf8_seq(u + i, n - i);
        if (l == 0 || (l == 1 && (u[i] < 0x20 || u[i] == 0x7F))) {
            if (o + 5 >= cap) break;
            out[o++] = '?';
            i++;
            continue;
        }
        if (o + l + 5 >= cap || i + l > max) break;
        memcpy(out + o, u + i, l);
        o += l, i += l;
    }
    out[o++] = '"';
    if (i < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

int vs_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    if (!n) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (d > max || v > (max - d) / 10) return -2;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

size_t vs_span_to(const char *s, char c)
{
    const char *p = strchr(s, c);
    return p ? (size_t)(p - s) : strlen(s);
}
