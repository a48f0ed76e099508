#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *vt_data_path(const char *name)
{
    static _Thread_local char path[4096];
    const char *dir = getenv("VRAMEST_TEST_DATA");
    cr_assert(dir != NULL && dir[0] != '\0',
              "VRAMEST_TEST_DATA is not set (run the test through `meson test`)");
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert(n > 0 && (size_t)n < sizeof path, "fixture path too long: %s/%s", dir, name);
    return path;
}

char *vt_read_data(const char *name, size_t *out_len)
{
    const char *path = vt_data_path(name);
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "cannot open fixture %s", path);
    cr_assert(fseek(f, 0, SEEK_END) == 0, "cannot seek in %s", path);
    long size = ftell(f);
    cr_assert(size >= 0, "cannot size %s", path);
    cr_assert(fseek(f, 0, SEEK_SET) == 0, "cannot seek in %s", path);
    char *buf = malloc((size_t)size + 1);
    cr_assert(buf != NULL, "out of memory reading %s", path);
    size_t got = fread(buf, 1, (size_t)size, f);
    fclose(f);
    cr_assert(got == (size_t)size, "short read of %s: %zu of %ld bytes", path, got, size);
    buf[size] = '\0';
    if (out_len)
        *out_len = (size_t)size;
    return buf;
}
