/* vramest.conf parsing (see vs_conf.h for the format). */
#include "vs_conf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vramest/vramest.h>

#include "vs_util.h"

#define CONF_FILE_MAX ((size_t)1 << 20)
#define CONF_LINE_MAX 4096

/* A size key: its default and the range a site may choose. */
typedef struct size_key {
    const char *name;
    size_t offset;
    size_t def, min, max;
} size_key;

static const size_key size_keys[] = {
    {"max_directive_bytes", offsetof(vs_conf, max_directive_bytes), 65536, 256, (size_t)1 << 20},
    {"max_spec_bytes", offsetof(vs_conf, max_spec_bytes), (size_t)1 << 20, 1024, (size_t)16 << 20},
    {"max_model_bytes", offsetof(vs_conf, max_model_bytes), (size_t)16 << 20, 65536, (size_t)256 << 20},
    {"cache_models", offsetof(vs_conf, cache_models), 64, 1, 1024},
};
#define N_SIZE_KEYS (sizeof size_keys / sizeof size_keys[0])

void vs_conf_init(vs_conf *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < N_SIZE_KEYS; i++) *(size_t *)((char *)c + size_keys[i].offset) = size_keys[i].def;
}

void vs_conf_free(vs_conf *c)
{
    for (size_t i = 0; i < c->nallow; i++) free(c->allow[i]), free(c->written[i]);
    c->nallow = 0;
}

void vs_device_label(const vs_device *d, char *out, size_t cap)
{
    if (d->preset[0])
        snprintf(out, cap, "%s", d->preset);
    else
        snprintf(out, cap, "%g GiB", d->memory_gib);
}

/* A GPU preset of libvramest (any case), or "<number>GiB". */
static int parse_device(const char *v, vs_device *d, char *err, size_t cap)
{
    memset(d, 0, sizeof *d);
    uint32_t n = vramest_gpu_count();
    for (uint32_t i = 0; i < n; i++) {
        const char *name = NULL;
        if (vramest_gpu_info(i, &name, NULL) == VRAMEST_OK && name && strcasecmp(name, v) == 0) {
            snprintf(d->preset, sizeof d->preset, "%s", name);
            return 0;
        }
    }
    size_t l = strlen(v);
    if (l > 3 && strcasecmp(v + l - 3, "GiB") == 0) {
        char num[64];
        size_t nl = l - 3;
        while (nl && v[nl - 1] == ' ') nl--;
        if (nl && nl < sizeof num) {
            memcpy(num, v, nl);
            num[nl] = '\0';
            char *end = NULL;
            errno = 0;
            double g = strtod(num, &end);
            if (end && !*end && !errno && isfinite(g) && g > 0 && g <= 1048576) {
                d->memory_gib = g;
                return 0;
            }
        }
    }
    char q[96];
    vs_quote(q, sizeof q, v, strlen(v), 64);
    return vs_fail(err, cap, "%s is neither a GPU preset (see `vramest gpus`) nor a size such as 80GiB", q);
}

static int parse_bool(const char *v, bool *out)
{
    if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
        *out = true;
    else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
        *out = false;
    else
        return -1;
    return 0;
}

static int add_allow(vs_conf *c, const char *v, char *err, size_t cap)
{
    if (v[0] != '/') return vs_fail(err, cap, "allow = %s: the directory must be an absolute path", v);
    if (c->nallow == VS_CONF_MAX_ALLOW) return vs_fail(err, cap, "more than %d allow lines", VS_CONF_MAX_ALLOW);
    /* The site's own path: resolving its symlinks once here is what lets the
     * per-job check compare user paths against it without following any. */
    char *real = realpath(v, NULL);
    if (!real) return vs_fail(err, cap, "allow = %s: %s", v, strerror(errno));
    struct stat st;
    if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(real);
        return vs_fail(err, cap, "allow = %s: not a directory", v);
    }
    char *written = strdup(v);
    if (!written) {
        free(real);
        return vs_fail(err, cap, "out of memory");
    }
    for (size_t l = strlen(written); l > 1 && written[l - 1] == '/';) written[--l] = '\0';
    c->written[c->nallow] = written;
    c->allow[c->nallow++] = real;
    return 0;
}

static int valid_type_name(const char *k)
{
    size_t n = strlen(k);
    if (!n || n >= VS_NAME_CAP) return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = k[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '-' || ch == '.'))
            return 0;
    }
    return 1;
}

/* One "key = value" line, both trimmed. */
static int apply(vs_conf *c, const char *k, const char *v, unsigned *seen, char *err, size_t cap)
{
    if (!strcmp(k, "allow")) return add_allow(c, v, err, cap);
    if (!strcmp(k, "require")) {
        if (*seen & 1u) return vs_fail(err, cap, "require is set twice");
        *seen |= 1u;
        if (parse_bool(v, &c->require)) return vs_fail(err, cap, "require = %s: expected yes or no", v);
        return 0;
    }
    if (!strcmp(k, "default")) {
        if (c->has_default) return vs_fail(err, cap, "default is set twice");
        c->has_default = true;
        return parse_device(v, &c->default_dev, err, cap);
    }
    for (size_t i = 0; i < N_SIZE_KEYS; i++) {
        const size_key *sk = &size_keys[i];
        if (strcmp(k, sk->name) != 0) continue;
        if (*seen & (2u << i)) return vs_fail(err, cap, "%s is set twice", k);
        *seen |= 2u << i;
        uint64_t n = 0;
        int rc = vs_parse_u64(v, strlen(v), UINT64_MAX, &n);
        if (rc || n < sk->min || n > sk->max)
            return vs_fail(err, cap, "%s = %s: expected a whole number from %zu to %zu", k, v, sk->min, sk->max);
        *(size_t *)((char *)c + sk->offset) = (size_t)n;
        return 0;
    }
    if (!valid_type_name(k))
        return vs_fail(err, cap, "'%.64s' is not a GPU type name (letters, digits, '_', '-', '.')", k);
    for (size_t i = 0; i < c->ntypes; i++)
        if (!strcmp(c->types[i].type, k)) return vs_fail(err, cap, "GPU type '%s' is mapped twice", k);
    if (c->ntypes == VS_CONF_MAX_TYPES) return vs_fail(err, cap, "more than %d GPU types", VS_CONF_MAX_TYPES);
    snprintf(c->types[c->ntypes].type, VS_NAME_CAP, "%s", k);
    if (parse_device(v, &c->types[c->ntypes].dev, err, cap)) return -1;
    c->ntypes++;
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
    return s;
}

int vs_conf_parse(vs_conf *c, const char *text, size_t len, const char *origin, char *err, size_t cap)
{
    size_t bad = vs_utf8_bad_at(text, len);
    if (bad < len) return vs_fail(err, cap, "%s: invalid UTF-8 at byte %zu", origin, bad);
    if (memchr(text, '\0', len)) return vs_fail(err, cap, "%s: contains a NUL byte", origin);
    unsigned seen = 0;
    char line[CONF_LINE_MAX + 1], why[512];
    size_t pos = 0;
    for (unsigned lineno = 1; pos < len; lineno++) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (text + pos)) : len - pos;
        if (l > CONF_LINE_MAX) return vs_fail(err, cap, "%s:%u: line longer than %d bytes", origin, lineno, CONF_LINE_MAX);
        memcpy(line, text + pos, l);
        line[l] = '\0';
        pos += l + (nl ? 1 : 0);
        /* A comment starts a line or follows a blank, so paths may hold '#'. */
        for (char *h = line; (h = strchr(h, '#')); h++)
            if (h == line || h[-1] == ' ' || h[-1] == '\t') {
                *h = '\0';
                break;
            }
        char *s = trim(line);
        if (!*s) continue;
        char *eq = strchr(s, '=');
        if (!eq) return vs_fail(err, cap, "%s:%u: expected key = value", origin, lineno);
        *eq = '\0';
        char *k = trim(s), *v = trim(eq + 1);
        if (!*k || !*v) return vs_fail(err, cap, "%s:%u: expected key = value", origin, lineno);
        if (apply(c, k, v, &seen, why, sizeof why))
            return vs_fail(err, cap, "%s:%u: %s", origin, lineno, why);
    }
    return 0;
}

int vs_conf_load(vs_conf *c, const char *path, char *err, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return vs_fail(err, cap, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return vs_fail(err, cap, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > CONF_FILE_MAX) {
        close(fd);
        return vs_fail(err, cap, "%s: larger than %zu bytes", path, CONF_FILE_MAX);
    }
    size_t n = (size_t)st.st_size, got = 0;
    char *buf = malloc(n ? n : 1);
    if (!buf) {
        close(fd);
        return vs_fail(err, cap, "%s: out of memory", path);
    }
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    int rc = got == n ? vs_conf_parse(c, buf, n, path, err, cap) : vs_fail(err, cap, "%s: short read", path);
    free(buf);
    return rc;
}

const vs_device *vs_conf_device(const vs_conf *c, const char *type)
{
    if (!type || !*type) return c->has_default ? &c->default_dev : NULL;
    for (size_t i = 0; i < c->ntypes; i++)
        if (!strcmp(c->types[i].type, type)) return &c->types[i].dev;
    return NULL;
}
