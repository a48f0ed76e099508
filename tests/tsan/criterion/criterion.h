/* A stand-in for <criterion/criterion.h>, used only to build
 * tests/test_threads.c under ThreadSanitizer (tests/meson.build, when
 * b_sanitize has "thread"). Criterion's sandbox (boxfort) cannot map its
 * inheritable arena under TSan: it probes random addresses that TSan's shadow
 * memory occupies and aborts with "Could not initialize inheritable arena".
 * This runs each Test() in-process instead, which is what TSan needs anyway
 * (the threads and the library in one instrumented process). It supports the
 * subset test_threads.c uses; messages after the operands are not printed. */
#ifndef VT_TSAN_CRITERION_H
#define VT_TSAN_CRITERION_H

#include <stdio.h>
#include <stdlib.h>

typedef struct vt_test {
    const char *suite, *name;
    void (*fn)(void);
    struct vt_test *next;
} vt_test;

static vt_test *vt_tests;
static int vt_failures;

static inline void vt_check(int fatal, int ok, const char *what, const char *file, int line)
{
    if (ok) return;
    fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, fatal ? "assertion" : "expectation", what);
    vt_failures++;
    if (fatal) exit(1);
}

#define VT_FIRST(a, ...) (a)
#define VT_CMP(fatal, a, op, ...) \
    vt_check(fatal, (a) op VT_FIRST(__VA_ARGS__, 0), #a " " #op " " #__VA_ARGS__, __FILE__, __LINE__)
#define cr_assert(...) vt_check(1, !!(VT_FIRST(__VA_ARGS__, 0)), #__VA_ARGS__, __FILE__, __LINE__)
#define cr_expect(...) vt_check(0, !!(VT_FIRST(__VA_ARGS__, 0)), #__VA_ARGS__, __FILE__, __LINE__)
#define cr_assert_eq(a, ...) VT_CMP(1, a, ==, __VA_ARGS__)
#define cr_assert_neq(a, ...) VT_CMP(1, a, !=, __VA_ARGS__)
#define cr_assert_gt(a, ...) VT_CMP(1, a, >, __VA_ARGS__)
#define cr_assert_geq(a, ...) VT_CMP(1, a, >=, __VA_ARGS__)
#define cr_assert_lt(a, ...) VT_CMP(1, a, <, __VA_ARGS__)
#define cr_expect_eq(a, ...) VT_CMP(0, a, ==, __VA_ARGS__)
#define cr_expect_neq(a, ...) VT_CMP(0, a, !=, __VA_ARGS__)
#define cr_expect_gt(a, ...) VT_CMP(0, a, >, __VA_ARGS__)

#define Test(suite, name, ...)                                                  \
    static void suite##_##name(void);                                           \
    __attribute__((constructor)) static void suite##_##name##_register(void)    \
    {                                                                           \
        static vt_test t = {#suite, #name, suite##_##name, NULL};              \
        t.next = vt_tests;                                                      \
        vt_tests = &t;                                                          \
    }                                                                           \
    static void suite##_##name(void)

int main(void)
{
    int n = 0;
    for (vt_test *t = vt_tests; t; t = t->next, n++) {
        fprintf(stderr, "[RUN ] %s::%s\n", t->suite, t->name);
        int before = vt_failures;
        t->fn();
        fprintf(stderr, "[%s] %s::%s\n", vt_failures == before ? "PASS" : "FAIL", t->suite, t->name);
    }
    fprintf(stderr, "[====] Synthesis: Tested: %d | Failures: %d\n", n, vt_failures);
    return vt_failures != 0 || n == 0;
}

#endif
