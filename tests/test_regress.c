/* Replays every fuzz input kept in the repository through the fuzz harness
 * (tests/fuzz/harness.c), in every build CI runs (plain, ASan+UBSan,
 * valgrind): the crashes the fuzzers found (tests/data/regress/<target>/)
 * and the seed corpora (tests/fuzz/corpus/<target>/). The harness aborts on
 * a broken promise, which Criterion reports as a crash of that test; the
 * sanitizers and valgrind report memory errors the same way.
 *
 * Each saved crash also has a row in tests/test_hostile.c with the status
 * and message the library now gives (e.g. gguf_4d_signed_product); the
 * inputs of issue #19 have their status in tests/data/regress/EXPECTED,
 * checked here, and their messages in the suites EXPECTED names. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramest/vramest.h>

#include "fuzz/harness.h"
#include "helpers.h"

/* The status tests/data/regress/EXPECTED lists for "<target>/<file>"
 * (lines "target/file status why"), or false when it lists none. */
static bool expected_status(const char *rel, int *status)
{
    size_t len = 0;
    char *text = vt_read_data("regress/EXPECTED", &len);
    size_t n = strlen(rel);
    bool found = false;
    for (char *line = text; line && *line && !found;) {
        char *next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (line[0] != '#' && strncmp(line, rel, n) == 0 && line[n] == ' ') {
            *status = atoi(line + n + 1);
            found = true;
        }
        line = next;
    }
    free(text);
    return found;
}

/* $VRAMEST_TEST_DATA/<sub>/<target>: every regular file, in name order. */
static size_t replay_dir(const char *sub, int target)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s/%s", sub, vf_target_names[target]);
    const char *dir = vt_data_path(rel);
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    struct dirent **list = NULL;
    int n = scandir(path, &list, NULL, alphasort);
    if (n < 0) return 0; /* no such directory: nothing kept for this target yet */
    size_t replayed = 0;
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.') {
            char name[512];
            snprintf(name, sizeof name, "%s/%s", rel, list[i]->d_name);
            size_t len = 0;
            char *data = vt_read_data(name, &len);
            cr_log_info("replaying %s (%zu bytes)", name, len);
            int rc = vf_run(target, (const uint8_t *)data, len), want;
            char key[300];
            snprintf(key, sizeof key, "%s/%s", vf_target_names[target], list[i]->d_name);
            if (strcmp(sub, "regress") == 0 && expected_status(key, &want))
                cr_expect_eq(rc, want, "%s: status %d, EXPECTED lists %d (%s)", key, rc, want, vramest_last_error_message());
            free(data);
            replayed++;
        }
        free(list[i]);
    }
    free(list);
    return replayed;
}

static void replay(int target, size_t min_seeds)
{
    size_t seeds = replay_dir("../fuzz/corpus", target);
    size_t crashes = replay_dir("regress", target);
    cr_log_info("%s: %zu seeds, %zu saved crashes replayed", vf_target_names[target], seeds, crashes);
    cr_expect_geq(seeds, min_seeds, "the %s seed corpus is missing (tests/fuzz/make_corpus.py writes it)",
                  vf_target_names[target]);
}

Test(regress, hf_config) { replay(VF_HF_CONFIG, 10); }
Test(regress, safetensors) { replay(VF_SAFETENSORS, 5); }
Test(regress, st_index) { replay(VF_ST_INDEX, 3); }
Test(regress, gguf) { replay(VF_GGUF, 5); }
Test(regress, spec) { replay(VF_SPEC, 10); }
