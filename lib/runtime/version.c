/* Reading and writing version strings (version.h). Strict on the numbers
 * (no signs, no overflow, bounded digits), lenient only on what follows a
 * release: pip's and torch's suffixes (".dev20240907", "a0", "rc1",
 * "+cu121", ".post1") name builds of that release. */
#include <stdio.h>
#include <string.h>

#include "runtime/version.h"

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_alnum(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Up to `max_digits` decimal digits at *p into *out, no larger than `max`. */
static int number(const char **p, int max_digits, long max, long *out)
{
    const char *s = *p;
    long v = 0;
    int n = 0;
    while (is_digit(*s)) {
        if (++n > max_digits) return -1;
        v = v * 10 + (*s - '0');
        s++;
    }
    if (n == 0 || v > max) return -1;
    *p = s;
    *out = v;
    return 0;
}

/* What may follow a release: nothing, or a separator or letter and then
 * letters, digits and separators ("a0", ".dev0", "rc1", "+cu121", "-beta"). */
static int suffix_ok(const char *s)
{
    if (!*s) return 1;
    if (*s == '.' && is_digit(s[1])) return 0; /* a fourth number */
    if (!(*s == '.' || *s == '+' || *s == '-' || *s == '_' || (is_alnum(*s) && !is_digit(*s)))) return 0;
    for (; *s; s++)
        if (!(is_alnum(*s) || *s == '.' || *s == '+' || *s == '-' || *s == '_')) return 0;
    return 1;
}

static int release(const char *s, int *out)
{
    long maj, min, patch = 0;
    if (*s == 'v' || *s == 'V') s++;
    if (number(&s, 4, 2146, &maj) || *s++ != '.' || number(&s, 3, 999, &min)) return -1;
    /* a third number only when digits follow the dot; ".dev0" is a suffix */
    if (*s == '.' && is_digit(s[1])) {
        s++;
        if (number(&s, 3, 999, &patch)) return -1;
    }
    if (!suffix_ok(s)) return -1;
    *out = VX_VER((int)maj, (int)min, (int)patch);
    return *out > 0 ? 0 : -1;
}

static int build(const char *s, int *out)
{
    long n;
    if (*s++ != 'b' || number(&s, 9, VX_VER_MAX, &n) || *s || n <= 0) return -1;
    *out = (int)n;
    return 0;
}

static int date(const char *s, int *out)
{
    long y, m, d = 0;
    const char *p = s;
    if (number(&p, 4, 2146, &y) || p - s != 4 || y < 1990 || *p++ != '-') return -1;
    s = p;
    if (number(&p, 2, 12, &m) || p - s != 2 || m < 1) return -1;
    if (*p == '-') {
        s = ++p;
        if (number(&p, 2, 31, &d) || p - s != 2 || d < 1) return -1;
    }
    if (*p) return -1;
    *out = VX_VER((int)y, (int)m, (int)d);
    return 0;
}

int vx_version_parse(const char *s, int schemes, int *out, int *form)
{
    int v = 0, f = 0;
    if (!s || !*s) return -1;
    if ((schemes & VX_VS_DATE) && !date(s, &v))
        f = VX_VS_DATE;
    else if ((schemes & VX_VS_BUILD) && !build(s, &v))
        f = VX_VS_BUILD;
    else if ((schemes & VX_VS_RELEASE) && !release(s, &v))
        f = VX_VS_RELEASE;
    else
        return -1;
    *out = v;
    if (form) *form = f;
    return 0;
}

/* n (>= 0) in decimal, at least `width` digits, at p; returns the end. */
static char *put_uint(char *p, int n, int width)
{
    char t[12];
    int k = 0;
    do t[k++] = (char)('0' + n % 10), n /= 10;
    while (n);
    while (k < width) t[k++] = '0';
    while (k) *p++ = t[--k];
    return p;
}

/* Every estimate echoes the versions it ran at (estimate/context/context.c):
 * written digit by digit, as snprintf would, at a tenth of its cost. */
void vx_version_format(int v, int form, char *buf, size_t cap)
{
    if (!buf || !cap) return;
    if (v < 0) { /* never parsed; printf's rules for signs and padding */
        snprintf(buf, cap, "%d", v);
        return;
    }
    char t[40], *p = t;
    int maj = VX_VER_MAJOR(v), min = VX_VER_MINOR(v), patch = VX_VER_PATCH(v);
    int date = form == VX_VS_DATE;
    if (form == VX_VS_BUILD) {
        *p++ = 'b';
        p = put_uint(p, v, 1);
    } else {
        p = put_uint(p, maj, date ? 4 : 1);
        *p++ = date ? '-' : '.';
        p = put_uint(p, min, date ? 2 : 1);
        if (patch) {
            *p++ = date ? '-' : '.';
            p = put_uint(p, patch, date ? 2 : 1);
        }
    }
    size_t n = (size_t)(p - t) < cap ? (size_t)(p - t) : cap - 1;
    memcpy(buf, t, n);
    buf[n] = 0;
}

const char *vx_version_forms(int schemes)
{
    switch (schemes) {
    case VX_VS_RELEASE: return "a release such as 2.9 or 0.6.1";
    case VX_VS_BUILD: return "a build such as b4823";
    case VX_VS_DATE: return "a date such as 2024-06";
    case VX_VS_RELEASE | VX_VS_DATE: return "a release such as 2026.8.19, or a date such as 2026-08";
    case VX_VS_BUILD | VX_VS_DATE: return "a build such as b4823, or a date such as 2025-01";
    default: return "no version of its own";
    }
}
