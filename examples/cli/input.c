/* Reading what the user names: a spec file (or standard input) with a size
 * limit, and a model that is either a bundled preset or a path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

int read_input(const char *path, char **out, size_t *out_len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "vramest: i/o error: cannot open '%s': %s\n", path, strerror(errno));
        return EXIT_BAD;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        if (len == cap) {
            if (cap >= MAX_INPUT_BYTES) {
                fprintf(stderr, "vramest: safety limit exceeded: '%s' is larger than %zu MiB\n", path,
                        MAX_INPUT_BYTES >> 20);
                rc = EXIT_BAD;
                break;
            }
            char *grown = realloc(buf, cap * 2);
            if (!grown) break;
            buf = grown, cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                fprintf(stderr, "vramest: i/o error: cannot read '%s': %s\n", path, strerror(errno));
                rc = EXIT_BAD;
            }
            break;
        }
    }
    if (f != stdin) fclose(f);
    if (!buf) {
        fprintf(stderr, "vramest: out of memory reading '%s'\n", path);
        return EXIT_BAD;
    }
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf, *out_len = len;
    return 0;
}

/* A name written like a path ("./m.json", "dir/", "x.gguf") is one, and a
 * missing one is "no such file", not "unknown preset (closest: ...)". */
static int looks_like_path(const char *s)
{
    static const char *const ext[] = {".json", ".gguf", ".safetensors"};
    size_t l = strlen(s);
    if (strchr(s, '/') || s[0] == '.' || s[0] == '~') return 1;
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t e = strlen(ext[i]);
        if (l > e && !strcmp(s + l - e, ext[i])) return 1;
    }
    return 0;
}

int load_model(const char *what, vramest_model **out)
{
    int rc = vramest_model_new_preset(what, out);
    if (rc == VRAMEST_OK) return 0;
    struct stat st;
    if (rc == VRAMEST_E_UNKNOWN_NAME && stat(what, &st) != 0) {
        if (looks_like_path(what)) {
            fprintf(stderr, "vramest: %s: cannot open '%s': %s\n", vramest_status_string(VRAMEST_E_IO), what,
                    strerror(errno));
            return EXIT_BAD;
        }
        fprintf(stderr, "vramest: %s: %s; nor is it a file or directory\n", vramest_status_string(rc),
                vramest_last_error_message());
        return EXIT_BAD;
    }
    if (rc != VRAMEST_E_UNKNOWN_NAME) return lib_error(rc);
    /* Not a preset but a file or directory: let the library detect what it is. */
    if ((rc = vramest_model_new(out))) return lib_error(rc);
    if ((rc = vramest_model_parse_file(*out, VRAMEST_SRC_AUTO, what))) return lib_error(rc);
    return 0;
}
