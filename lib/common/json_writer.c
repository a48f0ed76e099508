/* JSON text output shared by the plan and the advice. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/json_writer.h"

void vx_jw_puts(vx_jw *w, const char *s)
{
    vx_jw_put(w, s, strlen(s));
}

void vx_jw_u64(vx_jw *w, uint64_t v)
{
    char tmp[20];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    vx_jw_put(w, tmp + i, sizeof tmp - i);
}

void vx_jw_i64(vx_jw *w, int64_t v)
{
    if (v < 0) vx_jw_put(w, "-", 1);
    vx_jw_u64(w, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* %.17g as printf writes it: integral values below 10^15 have no exponent
 * and no point, so they are their integer digits. */
static void jw_g17(vx_jw *w, double v)
{
    if (v == floor(v) && fabs(v) < 1e15 && !(v == 0 && signbit(v))) {
        vx_jw_i64(w, (int64_t)v);
        return;
    }
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%.17g", v);
    if (n > 0) vx_jw_put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* One conversion at f (just after its '%') written from ap: its length,
 * or 0 when it is not one the fast path knows. */
static size_t conv(vx_jw *w, const char *f, va_list *ap)
{
    switch (f[0]) {
    case 's': vx_jw_puts(w, va_arg(*ap, const char *)); return 1;
    case 'd': vx_jw_i64(w, va_arg(*ap, int)); return 1;
    case 'u': vx_jw_u64(w, va_arg(*ap, unsigned)); return 1;
    case '%': vx_jw_put(w, "%", 1); return 1;
    case 'z':
        if (f[1] != 'u') return 0;
        vx_jw_u64(w, va_arg(*ap, size_t));
        return 2;
    case 'l':
        if (f[1] != 'l' || (f[2] != 'd' && f[2] != 'u')) return 0;
        if (f[2] == 'd')
            vx_jw_i64(w, va_arg(*ap, long long));
        else
            vx_jw_u64(w, va_arg(*ap, unsigned long long));
        return 3;
    case '.':
        if (strncmp(f, ".17g", 4) != 0) return 0;
        jw_g17(w, va_arg(*ap, double));
        return 4;
    default: return 0;
    }
}

void vx_jw_printf(vx_jw *w, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    size_t start = w->len;
    const char *lit = fmt, *f;
    while ((f = strchr(lit, '%')) != NULL) {
        vx_jw_put(w, lit, (size_t)(f - lit));
        size_t n = conv(w, f + 1, &ap);
        if (!n) {
            /* Not ours: undo, and let the C library write it all. */
            char tmp[256];
            w->len = start;
            int k = vsnprintf(tmp, sizeof tmp, fmt, again);
            if (k > 0) vx_jw_put(w, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
            va_end(again);
            va_end(ap);
            return;
        }
        lit = f + 1 + n;
    }
    vx_jw_puts(w, lit);
    va_end(again);
    va_end(ap);
}

/* Bytes a JSON string must escape (and the terminating NUL). */
static const unsigned char must_escape[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1 /* " */, ['\\'] = 1,
};

void vx_jw_str(vx_jw *w, const char *s)
{
    vx_jw_put(w, "\"", 1);
    for (;;) {
        const char *run = s;
        while (!must_escape[(unsigned char)*s]) s++;
        vx_jw_put(w, run, (size_t)(s - run));
        unsigned char c = (unsigned char)*s;
        if (!c) break;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            vx_jw_put(w, e, 2);
        } else {
            static const char hex[] = "0123456789abcdef";
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            vx_jw_put(w, e, 6);
        }
        s++;
    }
    vx_jw_put(w, "\"", 1);
}

void vx_jw_key(vx_jw *w, const char *k, int *first)
{
    if (!*first) vx_jw_put(w, ",", 1);
    *first = 0;
    vx_jw_str(w, k);
    vx_jw_put(w, ":", 1);
}

int vx_jw_finish(vx_jw *w, size_t *out_needed, const char *fn)
{
    size_t need = w->len + 1;
    if (out_needed) *out_needed = need;
    if (need > w->cap) {
        if (w->cap) w->buf[0] = '\0';
        return vx_fail(VRAMEST_E_BUFFER_TOO_SMALL, "%s: %zu bytes needed, buffer has %zu", fn, need, w->cap);
    }
    w->buf[w->len] = '\0';
    return VRAMEST_OK;
}
