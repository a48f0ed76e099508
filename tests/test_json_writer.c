/* The plan writer's number formats (lib/common/json_writer.c) against the
 * C library's printf, which wrote them before: a plan must not change by a
 * byte. vx_jw_g17 is "%.17g" and vx_jw_fixed "%.Nf", computed exactly with
 * 128-bit integers instead of through printf; they are checked on random bit
 * patterns over the whole double range, on short decimals (what settings
 * hold), on exact ties (printf rounds half to even), and at the edges of
 * the fixed notation (10^-4, 10^15, 10^17). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_writer.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* What the writer wrote for one call of `put`, NUL-terminated. */
static const char *written(char *buf, size_t cap, void (*put)(vx_jw *, double, int), double v, int digits)
{
    vx_jw w = {buf, cap, 0};
    put(&w, v, digits);
    cr_assert(w.len < cap);
    buf[w.len] = '\0';
    return buf;
}

static void put_g17(vx_jw *w, double v, int digits)
{
    (void)digits;
    vx_jw_g17(w, v);
}

static void put_fixed(vx_jw *w, double v, int digits)
{
    vx_jw_fixed(w, v, digits);
}

static void check(double v)
{
    char got[512], want[512];
    snprintf(want, sizeof want, "%.17g", v);
    cr_assert_str_eq(written(got, sizeof got, put_g17, v, 17), want, "%%.17g of %a", v);
    for (int d = 0; d <= 9; d++) {
        snprintf(want, sizeof want, "%.*f", d, v);
        cr_assert_str_eq(written(got, sizeof got, put_fixed, v, d), want, "%%.%df of %a", d, v);
    }
}

Test(json_writer, random_bit_patterns)
{
    for (int i = 0; i < 4000; i++) {
        uint64_t bits = next();
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v)) check(v);
    }
}

Test(json_writer, values_settings_hold)
{
    /* Short decimals and their neighbours, in the ranges settings take. */
    for (int i = 0; i < 2000; i++) {
        int scale = (int)(next() % 10);
        double v = (double)(int64_t)(next() % 2000001 - 1000000) / pow(10, scale);
        check(v);
        check(nextafter(v, INFINITY));
        check(nextafter(v, -INFINITY));
    }
    static const double fixed[] = {0.0,    -0.0,  0.9,     0.999, 1.093,  0.1,    0.05,  1e-4,  9.9999999999999991e-5,
                                   1e-5,   1e15,  1e15 - 0.5, 1e17, 1e16 + 2, 123456789012345.67, 0.0005, 0.125,
                                   2.5,    0.375, 1e300,   5e-324, DBL_MAX, DBL_MIN, 4503599627370495.5, 0.30000000000000004};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        check(fixed[i]);
        check(-fixed[i]);
    }
}

Test(json_writer, exact_ties_round_to_even)
{
    /* k / 2^j has an exact decimal expansion: at d digits some are ties. */
    for (int j = 1; j <= 12; j++)
        for (int k = -250; k <= 250; k++) check(ldexp((double)k, -j));
}

Test(json_writer, integers_and_bands)
{
    char got[64], want[64];
    for (int i = 0; i < 5000; i++) {
        uint64_t v = next() >> (next() % 64), lo = v / 3;
        vx_jw w = {got, sizeof got, 0};
        vx_jw_pair(&w, lo, v);
        got[w.len] = '\0';
        snprintf(want, sizeof want, "[%llu,%llu]", (unsigned long long)lo, (unsigned long long)v);
        cr_assert_str_eq(got, want);
    }
    /* Every power of 10 and of 2 and either side of each, into buffers
     * from none to roomy: the text up to the end, the length needed. */
    uint64_t edges[3 * (20 + 64) + 2];
    size_t n = 0;
    for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10) edges[n++] = p, edges[n++] = p - 1, edges[n++] = p + 1;
    for (int k = 0; k < 64; k++) edges[n++] = 1ull << k, edges[n++] = (1ull << k) - 1, edges[n++] = (1ull << k) + 1;
    edges[n++] = UINT64_MAX, edges[n++] = 0;
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(want, sizeof want, "%llu", (unsigned long long)edges[i]);
        for (size_t cap = 0; cap <= 40; cap++) {
            char buf[64];
            memset(buf, '#', sizeof buf);
            vx_jw w = {buf, cap, 0};
            vx_jw_u64(&w, edges[i]);
            cr_assert_eq(w.len, (size_t)len, "%s: length %zu at cap %zu", want, w.len, cap);
            size_t shown = cap < (size_t)len ? cap : (size_t)len;
            cr_assert(!memcmp(buf, want, shown), "%s at cap %zu", want, cap);
            cr_assert_eq(buf[shown], '#', "%s: wrote past cap %zu", want, cap);
        }
    }
}
