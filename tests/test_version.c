/* Version, status strings and the thread-local last error (black-box, shared library). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <vramest/vramest.h>

Test(version, runtime_matches_header_macros)
{
    cr_assert_eq(vramest_version_number(), (uint32_t)VRAMEST_VERSION_NUMBER,
                 "library %u vs header %u", vramest_version_number(),
                 (unsigned)VRAMEST_VERSION_NUMBER);
    cr_assert_not_null(vramest_version_string());
    cr_assert_str_eq(vramest_version_string(), VRAMEST_VERSION_STRING);
    cr_assert_eq(VRAMEST_VERSION_NUMBER,
                 VRAMEST_VERSION_MAJOR * 10000 + VRAMEST_VERSION_MINOR * 100 + VRAMEST_VERSION_PATCH);
}

/* The header is generated from meson.project_version(); a stale installed
 * header would be caught here. */
Test(version, header_matches_project_version)
{
    cr_assert_str_eq(VRAMEST_VERSION_STRING, VT_PROJECT_VERSION);
    cr_assert(VRAMEST_VERSION_CHECK(VRAMEST_VERSION_MAJOR, VRAMEST_VERSION_MINOR,
                                    VRAMEST_VERSION_PATCH));
    cr_assert(VRAMEST_VERSION_CHECK(1, 0, 0));
    cr_assert_not(VRAMEST_VERSION_CHECK(VRAMEST_VERSION_MAJOR + 1, 0, 0));
}

/* Every vramest_status value; append new codes here when the enum grows. */
static const int all_status[] = {
    VRAMEST_OK,
    VRAMEST_E_INVALID_ARG,
    VRAMEST_E_NOMEM,
    VRAMEST_E_IO,
    VRAMEST_E_PARSE,
    VRAMEST_E_NEED_MORE_DATA,
    VRAMEST_E_UNSUPPORTED,
    VRAMEST_E_UNKNOWN_OPTION,
    VRAMEST_E_TYPE,
    VRAMEST_E_RANGE,
    VRAMEST_E_CONFLICT,
    VRAMEST_E_INCOMPLETE_MODEL,
    VRAMEST_E_UNKNOWN_CATEGORY,
    VRAMEST_E_BUFFER_TOO_SMALL,
    VRAMEST_E_WRONG_HANDLE,
    VRAMEST_E_UNKNOWN_MODEL_TYPE,
    VRAMEST_E_OVERFLOW,
    VRAMEST_E_INVALID_MODEL,
    VRAMEST_E_UNKNOWN_NAME,
    VRAMEST_E_LIMIT,
    VRAMEST_E_DOES_NOT_FIT,
    VRAMEST_E_INTERNAL,
};
#define N_STATUS (sizeof all_status / sizeof all_status[0])

Test(status, every_code_has_a_distinct_string)
{
    const char *unknown = vramest_status_string(-12345);
    cr_assert_not_null(unknown);
    for (size_t i = 0; i < N_STATUS; i++) {
        const char *s = vramest_status_string(all_status[i]);
        cr_assert_not_null(s, "status %d has no string", all_status[i]);
        cr_assert(s[0] != '\0', "status %d has an empty string", all_status[i]);
        cr_assert(strcmp(s, unknown) != 0, "status %d reads as an unknown status (\"%s\")",
                  all_status[i], s);
        for (size_t j = 0; j < i; j++)
            cr_assert(strcmp(s, vramest_status_string(all_status[j])) != 0,
                      "status %d and %d share the string \"%s\"", all_status[i],
                      all_status[j], s);
    }
}

Test(status, unknown_codes_are_not_null)
{
    const int odd[] = {1, 42, -21, -98, -100, VRAMEST_STATUS_MIN_, 0x7FFFFFFF};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        cr_assert_not_null(vramest_status_string(odd[i]), "status %d", odd[i]);
}

Test(error, clear_gives_empty_message)
{
    vramest_option key;
    cr_assert_eq(vramest_option_from_name("vt_no_such_option", &key), VRAMEST_E_UNKNOWN_OPTION);
    cr_assert_not_null(strstr(vramest_last_error_message(), "vt_no_such_option"),
                       "message does not name the option: \"%s\"", vramest_last_error_message());
    vramest_clear_error();
    cr_assert_not_null(vramest_last_error_message());
    cr_assert_str_eq(vramest_last_error_message(), "");
}

/* Two threads fail with different names at the same time; each must read back
 * its own message, and the main thread's must stay untouched. */
struct failer {
    const char *name;
    pthread_barrier_t *failed;  /* both have failed before either reads */
    int status;
    char message[512];
};

static void *fail_and_read(void *arg)
{
    struct failer *f = arg;
    vramest_option key;
    f->status = vramest_option_from_name(f->name, &key);
    pthread_barrier_wait(f->failed);
    const char *msg = vramest_last_error_message();
    snprintf(f->message, sizeof f->message, "%s", msg ? msg : "(null)");
    return NULL;
}

Test(error, last_error_is_thread_local)
{
    vramest_clear_error();
    pthread_barrier_t barrier;
    cr_assert_eq(pthread_barrier_init(&barrier, NULL, 2), 0);
    struct failer a = {.name = "vt_thread_alpha_key", .failed = &barrier};
    struct failer b = {.name = "vt_thread_beta_key", .failed = &barrier};
    pthread_t ta, tb;
    cr_assert_eq(pthread_create(&ta, NULL, fail_and_read, &a), 0);
    cr_assert_eq(pthread_create(&tb, NULL, fail_and_read, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&barrier);

    cr_assert_eq(a.status, VRAMEST_E_UNKNOWN_OPTION);
    cr_assert_eq(b.status, VRAMEST_E_UNKNOWN_OPTION);
    cr_assert_not_null(strstr(a.message, a.name), "thread A read \"%s\"", a.message);
    cr_assert_not_null(strstr(b.message, b.name), "thread B read \"%s\"", b.message);
    cr_assert_null(strstr(a.message, b.name), "thread A sees B's message \"%s\"", a.message);
    cr_assert_null(strstr(b.message, a.name), "thread B sees A's message \"%s\"", b.message);
    cr_assert_str_eq(vramest_last_error_message(), "",
                     "the main thread sees \"%s\"", vramest_last_error_message());
}
