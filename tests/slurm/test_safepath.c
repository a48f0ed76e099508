/* Checked opening of user-named paths (bindings/slurm/vs_safepath.c): the
 * allowed directories, the user's permissions, symlinks, FIFOs, traversal. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurm_tests.h"
#include "vs_conf.h"
#include "vs_safepath.h"

static char base[64], allowed[128], outside[128], err[2048];
static vs_conf c;
static const vs_who nobody = {.uid = 65534, .gid = 65534, .groups = {65534}, .ngroups = 1};
static const vs_who other = {.uid = 4242, .gid = 4242, .groups = {4242}, .ngroups = 1};
static const vs_who root = {.uid = 0, .gid = 0, .groups = {0}, .ngroups = 1};

static void put(const char *rel, const char *text, mode_t mode, uid_t uid, gid_t gid)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    fclose(f);
    cr_assert_eq(chmod(p, mode), 0);
    if (geteuid() == 0) cr_assert_eq(chown(p, uid, gid), 0);
}

static void sub(const char *rel, mode_t mode)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    cr_assert_eq(mkdir(p, mode), 0, "%s", p);
    cr_assert_eq(chmod(p, mode), 0);
}

static void link_to(const char *target, const char *rel)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    cr_assert_eq(symlink(target, p), 0, "%s", p);
}

static void setup(void)
{
    st_mkdtemp(base, "vs-safepath");
    snprintf(allowed, sizeof allowed, "%s/allowed", base);
    snprintf(outside, sizeof outside, "%s/outside", base);
    sub("allowed", 0755);
    sub("allowed/model", 0755);
    sub("allowed/closed", 0700);
    sub("outside", 0755);
    put("allowed/model/config.json", "{\"model_type\": \"llama\"}", 0644, 0, 0);
    put("allowed/private.json", "{}", 0600, 0, 0);
    put("allowed/closed/x.json", "{}", 0644, 0, 0);
    put("allowed/group.json", "{}", 0640, 0, 65534);
    put("allowed/owner_denied.json", "{}", 0044, 65534, 65534);
    put("outside/secret.json", "{}", 0644, 0, 0);
    link_to("model/config.json", "allowed/link_in");
    link_to("../outside/secret.json", "allowed/link_out");
    link_to("/etc/passwd", "allowed/abs_out");
    link_to("loop2", "allowed/loop1");
    link_to("loop1", "allowed/loop2");
    char p[256];
    snprintf(p, sizeof p, "%s/allowed/fifo.json", base);
    cr_assert_eq(mkfifo(p, 0644), 0);
    char text[256];
    snprintf(text, sizeof text, "allow = %s\n", allowed);
    vs_conf_init(&c);
    cr_assert_eq(vs_conf_parse(&c, text, strlen(text), "t", err, sizeof err), 0, "%s", err);
}

static void teardown(void)
{
    vs_conf_free(&c);
    st_rm_rf(base);
}

TestSuite(safepath, .init = setup, .fini = teardown);

static vs_file open_ok(const char *rel, const vs_who *w)
{
    char p[256];
    vs_file f;
    snprintf(p, sizeof p, "%s/%s", base, rel);
    cr_assert_eq(vs_open_checked(&c, p, w, &f, err, sizeof err), 0, "%s: %s", rel, err);
    cr_assert_geq(f.fd, 0);
    return f;
}

static void open_fails(const char *path, const vs_who *w, const char *needle)
{
    char p[256];
    vs_file f;
    if (path[0] == '/' || path[0] == '.')
        snprintf(p, sizeof p, "%s", path);
    else
        snprintf(p, sizeof p, "%s/%s", base, path);
    cr_assert_eq(vs_open_checked(&c, p, w, &f, err, sizeof err), -1, "opened %s", p);
    cr_assert_eq(f.fd, -1);
    cr_assert(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

Test(safepath, regular_file_and_directory)
{
    vs_file f = open_ok("allowed/model/config.json", &nobody);
    cr_assert(!f.is_dir);
    cr_assert_eq(f.size, strlen("{\"model_type\": \"llama\"}"));
    char buf[8] = {0};
    cr_assert_eq(read(f.fd, buf, 7), 7);
    cr_assert_str_eq(buf, "{\"model");
    vs_file_close(&f);
    f = open_ok("allowed//./model/", &nobody);
    cr_assert(f.is_dir);
    cr_assert(strstr(f.path, "/allowed/model") && !strstr(f.path, "//"), "%s", f.path);
    vs_file_close(&f);
}

Test(safepath, outside_and_traversal)
{
    open_fails("outside/secret.json", &root, "is outside the directories vramest may read");
    open_fails("allowed/../outside/secret.json", &root, "path traversal ('..') is not allowed");
    open_fails("./relative/config.json", &root, "is not an absolute path");
    open_fails("/etc/passwd", &root, "outside the directories");
}

Test(safepath, symlinks)
{
    vs_file f = open_ok("allowed/link_in", &nobody);
    cr_assert(strstr(f.path, "/allowed/model/config.json"), "%s", f.path);
    vs_file_close(&f);
    open_fails("allowed/link_out", &root, "a symlink leads to");
    open_fails("allowed/abs_out", &root, "a symlink leads to '/etc/passwd', outside");
    open_fails("allowed/loop1", &root, "more than 8 symlinks");
}

Test(safepath, not_regular)
{
    open_fails("allowed/fifo.json", &root, "is not a regular file or a directory");
    open_fails("allowed/missing.json", &root, "No such file or directory");
    open_fails("allowed/model/config.json/x", &root, "is not a directory");
}

Test(safepath, permissions_of_the_user)
{
    if (geteuid() != 0) cr_skip_test("needs root to give files to other users");
    open_fails("allowed/private.json", &nobody, "uid 65534 may not read");
    vs_file f = open_ok("allowed/private.json", &root);
    vs_file_close(&f);
    open_fails("allowed/closed/x.json", &nobody, "uid 65534 may not search the directory");
    f = open_ok("allowed/group.json", &nobody); /* group 65534 may read */
    vs_file_close(&f);
    open_fails("allowed/group.json", &other, "uid 4242 may not read");
    /* The owner class decides even when group and other could read. */
    open_fails("allowed/owner_denied.json", &nobody, "uid 65534 may not read");
    f = open_ok("allowed/owner_denied.json", &other);
    vs_file_close(&f);
}

Test(safepath, entry_of_a_directory)
{
    vs_file d = open_ok("allowed/model", &nobody), f;
    cr_assert_eq(vs_open_entry(&c, &d, "config.json", &nobody, &f, err, sizeof err), 0, "%s", err);
    vs_file_close(&f);
    cr_assert_eq(vs_open_entry(&c, &d, "../private.json", &nobody, &f, err, sizeof err), -1);
    cr_assert(strstr(err, "is not a file name"), "%s", err);
    vs_file_close(&d);
}

Test(safepath, who_lookup)
{
    vs_who w;
    cr_assert_eq(vs_who_lookup(0, (uint32_t)-1, &w, err, sizeof err), 0, "%s", err);
    cr_assert_eq(w.gid, 0);
    cr_assert_geq(w.ngroups, 1);
    cr_assert_eq(vs_who_lookup(3999999999u, (uint32_t)-1, &w, err, sizeof err), -1);
    cr_assert(strstr(err, "not in the passwd database"), "%s", err);
}
