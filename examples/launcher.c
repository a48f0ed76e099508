/* A training launcher that sizes its micro-batch with libvramest before it
 * starts anything:
 *
 *   vramest-launcher --spec job.json [-- python train.py --micro-batch {}]
 *
 * It reads the job spec, checks that the configured micro-batch fits the
 * device, finds the largest one that does, and then runs the command with
 * every "{}" replaced by that micro-batch (also exported as
 * MICRO_BATCH_SIZE). Exit status: the command's, or 1 when nothing fits,
 * 2 on bad input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vramest/vramest.h>

static char *read_all(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        char *grown = realloc(buf, cap *= 2);
        if (!grown) free(buf);
        buf = grown;
    }
    if (f != stdin) fclose(f);
    *len = n;
    return buf;
}

static int fail(const char *what, int rc)
{
    fprintf(stderr, "vramest-launcher: %s: %s: %s\n", what, vramest_status_string(rc), vramest_last_error_message());
    return 2;
}

int main(int argc, char **argv)
{
    const char *spec_path = NULL;
    int cmd = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--spec") && i + 1 < argc)
            spec_path = argv[++i];
        else if (!strcmp(argv[i], "--")) {
            cmd = i + 1;
            break;
        } else {
            fprintf(stderr, "usage: vramest-launcher --spec FILE|- [-- COMMAND ARGS... ({} = micro-batch)]\n");
            return 2;
        }
    }
    if (!spec_path) {
        fprintf(stderr, "usage: vramest-launcher --spec FILE|- [-- COMMAND ARGS...]\n");
        return 2;
    }
    size_t len = 0;
    char *spec = read_all(spec_path, &len);
    if (!spec) {
        fprintf(stderr, "vramest-launcher: cannot read %s: %s\n", spec_path, strerror(errno));
        return 2;
    }
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    int rc = vramest_spec_parse(spec, len, &m, &p, &c);
    free(spec);
    if (rc) return fail("job spec", rc);

    int64_t wanted = 0, best = 0;
    uint64_t bytes = 0;
    int status = 0;
    vramest_config_get_i64(c, VRAMEST_CFG_BATCH_SIZE, &wanted);
    rc = vramest_solve_max(m, p, c, VRAMEST_CFG_BATCH_SIZE, &best, &bytes);
    if (rc == VRAMEST_E_DOES_NOT_FIT) {
        fprintf(stderr, "vramest-launcher: %s\n", vramest_last_error_message());
        status = 1;
    } else if (rc) {
        status = fail("solve", rc);
    } else {
        int64_t chosen = wanted <= best ? wanted : best;
        printf("micro-batch %lld: the largest that fits is %lld (%.2f GiB per GPU at that size)%s\n",
               (long long)chosen, (long long)best, (double)bytes / (1024.0 * 1024.0 * 1024.0),
               wanted > best ? "; the configured micro-batch does not fit, using the largest" : "");
        fflush(stdout);
        if (cmd < argc) {
            char value[32];
            snprintf(value, sizeof value, "%lld", (long long)chosen);
            setenv("MICRO_BATCH_SIZE", value, 1);
            for (int i = cmd; i < argc; i++)
                if (!strcmp(argv[i], "{}")) argv[i] = value;
            vramest_model_free(m);
            vramest_precision_free(p);
            vramest_config_free(c);
            execvp(argv[cmd], argv + cmd);
            fprintf(stderr, "vramest-launcher: cannot run %s: %s\n", argv[cmd], strerror(errno));
            return 127;
        }
    }
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    return status;
}
