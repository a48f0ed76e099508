/* JSON text output shared by the plan and the advice. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/json_writer.h"

/* Two digits per division: a plan writes ~300 numbers. */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* v's digits, ending just before `end`. */
static void put_digits(char *end, uint64_t v)
{
    /* Four digits per 64-bit division, their two pairs in 32-bit arithmetic. */
    while (v >= 10000) {
        unsigned r = (unsigned)(v % 10000), hi = r / 100, lo = r % 100;
        v /= 10000;
        end -= 4;
        memcpy(end, digit_pairs + 2 * hi, 2);
        memcpy(end + 2, digit_pairs + 2 * lo, 2);
    }
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        *--end = digit_pairs[2 * r + 1];
        *--end = digit_pairs[2 * r];
    }
    if (v >= 10) {
        *--end = digit_pairs[2 * v + 1];
        *--end = digit_pairs[2 * v];
    } else {
        *--end = (char)('0' + v);
    }
}

static size_t count_digits(uint64_t v)
{
    static const uint64_t pow10[20] = {1u,
                                       10u,
                                       100u,
                                       1000u,
                                       10000u,
                                       100000u,
                                       1000000u,
                                       10000000u,
                                       100000000u,
                                       1000000000u,
                                       10000000000u,
                                       100000000000u,
                                       1000000000000u,
                                       10000000000000u,
                                       100000000000000u,
                                       1000000000000000u,
                                       10000000000000000u,
                                       100000000000000000u,
                                       1000000000000000000u,
                                       10000000000000000000u};
    /* floor(log10) from the bit length (1233 / 4096 ~ log10(2)), then one
     * comparison: no division per digit. */
    if (v < 10) return 1;
    unsigned t = (unsigned)(64 - __builtin_clzll(v)) * 1233u >> 12;
    return (size_t)t + (v >= pow10[t]);
}

void vx_jw_u64(vx_jw *w, uint64_t v)
{
    /* Straight into the buffer where it has room (a plan writes ~60
     * numbers): no copy, and nothing past the number is touched. */
    size_t n = count_digits(v);
    if (w->len < w->cap && w->cap - w->len >= n) {
        put_digits(w->buf + w->len + n, v);
        w->len += n;
        return;
    }
    char tmp[20];
    put_digits(tmp + sizeof tmp, v);
    vx_jw_put(w, tmp + sizeof tmp - n, n);
}

void vx_jw_pair(vx_jw *w, uint64_t lo, uint64_t hi)
{
    vx_jw_put(w, "[", 1);
    vx_jw_u64(w, lo);
    vx_jw_put(w, ",", 1);
    vx_jw_u64(w, hi);
    vx_jw_put(w, "]", 1);
}

void vx_jw_i64(vx_jw *w, int64_t v)
{
    if (v < 0) vx_jw_put(w, "-", 1);
    vx_jw_u64(w, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* The C library's "%.*g" / "%.*f" of v: what the writers below fall back to. */
static void jw_libc(vx_jw *w, char conv, int digits, double v)
{
    char tmp[352];
    int n = conv == 'g' ? snprintf(tmp, sizeof tmp, "%.*g", digits, v) : snprintf(tmp, sizeof tmp, "%.*f", digits, v);
    if (n > 0) vx_jw_put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 jw_u128;

/* a * 10^d (a >= 0, finite, 0 <= d <= 22) rounded to an integer exactly as
 * printf rounds (to nearest, ties to even, on the exact binary value):
 * a = m * 2^-k, so the quotient and remainder of m * 10^d by 2^k decide.
 * false when that is not below 2^64 or a's exponent is out of reach. */
static bool scaled(double a, int d, uint64_t *q)
{
    int e;
    double f = frexp(a, &e);
    uint64_t m = (uint64_t)ldexp(f, 53);
    int k = 53 - e;
    jw_u128 p10 = 1;
    for (int i = 0; i < d; i++) p10 *= 10;
    jw_u128 n = (jw_u128)m * p10;
    if (k <= 0) {
        if (k < -10 || (n >> (64 + k)) != 0) return false;
        *q = (uint64_t)(n << -k);
        return true;
    }
    if (k > 120) return false;
    jw_u128 whole = n >> k, rest = n - (whole << k), half = (jw_u128)1 << (k - 1);
    if (rest > half || (rest == half && (whole & 1))) whole++;
    if (whole >> 64) return false;
    *q = (uint64_t)whole;
    return true;
}

/* The digits of q, padded with zeros on the left to `width`; returns the count. */
static size_t digits_of(uint64_t q, size_t width, char *out)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + q % 10);
        q /= 10;
    } while (q);
    while (sizeof tmp - i < width) tmp[--i] = '0';
    memcpy(out, tmp + i, sizeof tmp - i);
    return sizeof tmp - i;
}
#endif

void vx_jw_g17(vx_jw *w, double v)
{
    /* Integral values below 10^15 have no exponent and no point: their
     * integer digits. */
    if (v == floor(v) && fabs(v) < 1e15 && !(v == 0 && signbit(v))) {
        vx_jw_i64(w, (int64_t)v);
        return;
    }
#ifdef __SIZEOF_INT128__
    /* Fixed notation (exponent X in -4..16): 17 significant digits, the
     * trailing zeros of the fraction dropped. X is found by trying: the
     * rounded value must have exactly 17 digits. */
    double a = fabs(v);
    if (a >= 1e-4 && a < 1e15) {
        int x = (int)floor(log10(a));
        uint64_t q = 0;
        for (int tries = 0; tries < 4; tries++) {
            if (!scaled(a, 16 - x, &q)) break;
            if (q >= 100000000000000000ull) {
                x++;
            } else if (q < 10000000000000000ull) {
                x--;
            } else {
                char d[17], out[40];
                size_t o = 0;
                digits_of(q, 17, d);
                if (v < 0) out[o++] = '-';
                int end = 17;
                while (end > (x >= 0 ? x + 1 : 0) && d[end - 1] == '0') end--;
                if (x >= 0) {
                    memcpy(out + o, d, (size_t)x + 1), o += (size_t)x + 1;
                    if (end > x + 1) out[o++] = '.', memcpy(out + o, d + x + 1, (size_t)(end - x - 1)), o += (size_t)(end - x - 1);
                } else {
                    out[o++] = '0', out[o++] = '.';
                    for (int z = 0; z < -x - 1; z++) out[o++] = '0';
                    memcpy(out + o, d, (size_t)end), o += (size_t)end;
                }
                vx_jw_put(w, out, o);
                return;
            }
            if (x < -4 || x > 14) break;
        }
    }
#endif
    jw_libc(w, 'g', 17, v);
}

void vx_jw_fixed(vx_jw *w, double v, int digits)
{
#ifdef __SIZEOF_INT128__
    uint64_t q;
    if (isfinite(v) && digits >= 0 && digits <= 9 && scaled(fabs(v), digits, &q)) {
        char out[48];
        size_t o = 0;
        if (signbit(v)) out[o++] = '-';
        uint64_t p10 = 1;
        for (int i = 0; i < digits; i++) p10 *= 10;
        o += digits_of(q / p10, 1, out + o);
        if (digits) {
            out[o++] = '.';
            o += digits_of(q % p10, (size_t)digits, out + o);
        }
        vx_jw_put(w, out, o);
        return;
    }
#endif
    jw_libc(w, 'f', digits, v);
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
        if (strncmp(f, ".17g", 4) == 0) {
            vx_jw_g17(w, va_arg(*ap, double));
            return 4;
        }
        if (f[1] >= '0' && f[1] <= '9' && f[2] == 'f') {
            vx_jw_fixed(w, va_arg(*ap, double), f[1] - '0');
            return 3;
        }
        return 0;
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
