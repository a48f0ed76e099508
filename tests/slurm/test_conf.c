/* vramest.conf (bindings/slurm/vs_conf.c): the example file, and an error
 * naming the line for every kind of mistake. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vs_conf.h"

static vs_conf c;
static char err[2048];

static int parse(const char *text)
{
    vs_conf_free(&c);
    vs_conf_init(&c);
    err[0] = '\0';
    return vs_conf_parse(&c, text, strlen(text), "vramest.conf", err, sizeof err);
}

static void teardown(void)
{
    vs_conf_free(&c);
}

TestSuite(conf, .fini = teardown);

Test(conf, example_file)
{
    const char *path = getenv("VS_CONF_EXAMPLE");
    cr_assert_not_null(path, "VS_CONF_EXAMPLE is set by tests/slurm/meson.build");
    vs_conf_init(&c);
    cr_assert_eq(vs_conf_load(&c, path, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.ntypes, 3);
    cr_assert_str_eq(vs_conf_device(&c, "a100")->preset, "A100-80GB");
    cr_assert_str_eq(vs_conf_device(&c, "")->preset, "A100-80GB");
    cr_assert_null(vs_conf_device(&c, "v100"));
    cr_assert(!c.require);
}

Test(conf, defaults)
{
    cr_assert_eq(parse("# nothing\n\n"), 0, "%s", err);
    cr_assert_eq(c.max_directive_bytes, 65536);
    cr_assert_eq(c.max_spec_bytes, 1048576);
    cr_assert_eq(c.max_model_bytes, 16777216);
    cr_assert_eq(c.cache_models, 64);
    cr_assert_eq(c.nallow, 0);
    cr_assert(!c.has_default);
    cr_assert_null(vs_conf_device(&c, ""));
}

Test(conf, everything)
{
    char dir[] = "/tmp/vs-conf-test.XXXXXX", text[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(text, sizeof text,
             "a100 = a100-80gb   # any case\nmi300x = 192 GiB\nh100=H100-80GB\ndefault = T4\nallow = %s/\n"
             "require = yes\nmax_directive_bytes = 4096\nmax_spec_bytes = 2048\nmax_model_bytes = 131072\n"
             "cache_models = 8\n",
             dir);
    cr_assert_eq(parse(text), 0, "%s", err);
    cr_assert_str_eq(vs_conf_device(&c, "a100")->preset, "A100-80GB");
    cr_assert_str_eq(vs_conf_device(&c, "mi300x")->preset, "");
    cr_assert_float_eq(vs_conf_device(&c, "mi300x")->memory_gib, 192.0, 1e-9);
    cr_assert_str_eq(vs_conf_device(&c, "")->preset, "T4");
    cr_assert(c.require);
    cr_assert_eq(c.nallow, 1);
    cr_assert_str_eq(c.written[0], dir);
    cr_assert_eq(c.max_directive_bytes, 4096);
    cr_assert_eq(c.cache_models, 8);
    rmdir(dir);
}

static void fails(const char *text, const char *needle)
{
    cr_assert_eq(parse(text), -1, "accepted: %s", text);
    cr_assert(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

Test(conf, errors_name_the_line)
{
    fails("a100 = A100-80GB\nv100 = V100-99GB\n", "vramest.conf:2: \"V100-99GB\" is neither a GPU preset");
    fails("a100 = A100-80GB\na100 = A100-40GB\n", ":2: GPU type 'a100' is mapped twice");
    fails("require = maybe\n", ":1: require = maybe: expected yes or no");
    fails("require = yes\nrequire = no\n", ":2: require is set twice");
    fails("default = T4\ndefault = T4\n", "default is set twice");
    fails("allow = shared/models\n", "must be an absolute path");
    fails("allow = /nonexistent/vramest/dir\n", "No such file or directory");
    fails("allow = /etc/passwd\n", "not a directory");
    fails("max_spec_bytes = 20000000\n", "expected a whole number from 1024 to 16777216");
    fails("cache_models = -1\n", "expected a whole number");
    fails("cache_models = 99999999999999999999999\n", "expected a whole number");
    fails("just words\n", ":1: expected key = value");
    fails("a100 =\n", "expected key = value");
    fails("a 100 = T4\n", "is not a GPU type name");
    fails("requre = yes\n", "\"yes\" is neither a GPU preset"); /* a typo cannot pass as a type */
    fails("mi300x = 0GiB\n", "neither a GPU preset");
    fails("mi300x = nanGiB\n", "neither a GPU preset");
}

Test(conf, hostile_bytes)
{
    fails("a100 = A100-80GB\n\xff\n", "invalid UTF-8 at byte 17");
    vs_conf_free(&c);
    vs_conf_init(&c);
    cr_assert_eq(vs_conf_parse(&c, "a=T4\0b=T4\n", 10, "x", err, sizeof err), -1);
    cr_assert(strstr(err, "NUL"), "%s", err);
    char *long_line = malloc(10000);
    cr_assert_not_null(long_line);
    memset(long_line, 'a', 9999);
    long_line[9999] = '\0';
    fails(long_line, "line longer than 4096 bytes");
    free(long_line);
}

Test(conf, missing_file)
{
    vs_conf_init(&c);
    cr_assert_eq(vs_conf_load(&c, "/nonexistent/vramest.conf", err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent/vramest.conf: No such file"), "%s", err);
    cr_assert_eq(vs_conf_load(&c, "/dev/null", err, sizeof err), -1);
    cr_assert(strstr(err, "not a regular file"), "%s", err);
}
