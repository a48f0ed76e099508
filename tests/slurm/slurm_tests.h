/* Helpers shared by the Slurm plugin's Criterion suites (tests/slurm). */
#ifndef SLURM_TESTS_H
#define SLURM_TESTS_H

/* Create a fresh directory /tmp/PREFIX.XXXXXX (mode 0755) into buf (64 bytes). */
void st_mkdtemp(char *buf, const char *prefix);

/* Remove a directory tree made by a test. */
void st_rm_rf(const char *dir);

#endif
