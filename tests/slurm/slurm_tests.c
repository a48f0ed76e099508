/* Helpers shared by the Slurm plugin's Criterion suites (slurm_tests.h). */
#include "slurm_tests.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

void st_mkdtemp(char *buf, const char *prefix)
{
    snprintf(buf, 64, "/tmp/%s.XXXXXX", prefix);
    cr_assert_not_null(mkdtemp(buf), "mkdtemp %s", buf);
    cr_assert_eq(chmod(buf, 0755), 0);
}

void st_rm_rf(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
