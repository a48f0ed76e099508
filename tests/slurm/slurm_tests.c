/* Helpers shared by the Slurm plugin's Criterion suites (slurm_tests.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "slurm_tests.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

void st_mkdtemp(char *buf, const char *prefix)
{
    snprintf(buf, 64, "/tmp/%s.XXXXXX", prefix);
    cr_assert_not_null(mkdtemp(buf), "mkdtemp %s", buf);
    cr_assert_eq(chmod(buf, 0755), 0);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* In-process, not `system("rm -rf")`: under valgrind --trace-children a shell
 * and rm per test cost seconds each. */
void st_rm_rf(const char *dir)
{
    cr_assert_eq(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0, "removing %s", dir);
}
