/* Helpers shared by the Criterion suites (tests/helpers.c, in `test_helpers`
 * of tests/meson.build). Fixtures live in tests/data; meson passes its path in
 * $VRAMEST_TEST_DATA so a test binary works from any directory. */
#ifndef VT_HELPERS_H
#define VT_HELPERS_H

#include <stddef.h>

/* Absolute path of fixture `name` in a static per-thread buffer; aborts the
 * current test when $VRAMEST_TEST_DATA is unset or the path is too long. */
const char *vt_data_path(const char *name);

/* Read fixture `name` whole into a malloc'd buffer with a NUL after the last
 * byte (not counted in *out_len); the caller frees it. Aborts the current test
 * when the file cannot be read. */
char *vt_read_data(const char *name, size_t *out_len);

#endif
