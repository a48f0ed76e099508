/* #VRAMEST directive scanning and word parsing (see vs_directive.h). */
#include "vs_directive.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vs_util.h"

#define TAG "#VRAMEST"
#define TAG_LEN 8

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return false;
    return true;
}

/* Append one directive line's payload, checked, to d->text. */
static int add_line(vs_directive *d, const char *line, size_t n, unsigned lineno, size_t max, char *err, size_t cap)
{
    const char *p = line + TAG_LEN;
    n -= TAG_LEN;
    while (n && (p[0] == ' ' || p[0] == '\t')) p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r')) n--;
    size_t bad = vs_utf8_bad_at(p, n);
    if (bad < n)
        return vs_fail(err, cap, "line %u: #VRAMEST: invalid UTF-8 at column %zu", lineno, (size_t)(p - line) + bad + 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] < 0x20 && p[i] != '\t')
            return vs_fail(err, cap, "line %u: #VRAMEST: control character 0x%02x", lineno, (unsigned)p[i]);
    if (!d->text) d->first_line = lineno;
    size_t need = d->len + (d->text ? 1 : 0) + n;
    if (need > max) return vs_fail(err, cap, "line %u: the #VRAMEST lines hold more than %zu bytes", lineno, max);
    char *t = realloc(d->text, need + 1);
    if (!t) return vs_fail(err, cap, "out of memory");
    d->text = t;
    if (d->len) t[d->len++] = '\n';
    memcpy(t + d->len, p, n);
    d->len += n;
    t[d->len] = '\0';
    return 0;
}

int vs_directive_scan(const char *script, size_t max_bytes, vs_directive *d, char *err, size_t cap)
{
    memset(d, 0, sizeof *d);
    if (!script) return 0;
    const char *s = script;
    for (unsigned lineno = 1; *s; lineno++) {
        size_t n = vs_span_to(s, '\n');
        const char *next = s + n + (s[n] == '\n');
        if (n >= TAG_LEN && !memcmp(s, TAG, TAG_LEN) && (n == TAG_LEN || s[TAG_LEN] == ' ' || s[TAG_LEN] == '\t' ||
                                                         s[TAG_LEN] == '\r')) {
            if (add_line(d, s, n, lineno, max_bytes, err, cap)) return -1;
        } else if (!(n && s[0] == '#') && !blank(s, n)) {
            break; /* the first command ends the header, as for #SBATCH */
        }
        s = next;
    }
    if (!d->text) return 0;
    if (blank(d->text, d->len))
        return vs_fail(err, cap, "line %u: #VRAMEST without anything after it", d->first_line);
    size_t i = 0;
    while (d->text[i] == ' ' || d->text[i] == '\t' || d->text[i] == '\n') i++;
    if (d->text[i] == '{') {
        d->kind = VS_DIR_JSON;
        return 0;
    }
    return vs_directive_words(d, err, cap);
}

/* Split d->text into words in d->arena (NUL-separated); returns their count or -1. */
static long split(vs_directive *d, const char **words, char *err, size_t cap)
{
    char *out = d->arena;
    const char *s = d->text;
    long n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\n') s++;
        if (!*s) break;
        if (n == VS_DIR_MAX_WORDS) return vs_fail(err, cap, "#VRAMEST: more than %d words", VS_DIR_MAX_WORDS);
        words[n++] = out;
        while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
            if (*s == '\'' || *s == '"') {
                char q = *s++;
                const char *end = strchr(s, q);
                if (!end) return vs_fail(err, cap, "#VRAMEST: a %c quote is not closed", q);
                memcpy(out, s, (size_t)(end - s));
                out += end - s;
                s = end + 1;
            } else {
                *out++ = *s++;
            }
        }
        *out++ = '\0';
    }
    return n;
}

int vs_directive_words(vs_directive *d, char *err, size_t cap)
{
    static const char *const opts[] = {"--model", "--precision", "--spec", "--set"};
    const char **slots[] = {&d->model, &d->precision, &d->spec_path, NULL};
    d->arena = malloc(d->len + 1);
    const char **words = malloc(VS_DIR_MAX_WORDS * sizeof *words);
    d->sets = malloc(VS_DIR_MAX_WORDS * sizeof *d->sets);
    int rc = -1;
    if (!d->arena || !words || !d->sets) {
        free(words);
        return vs_fail(err, cap, "out of memory");
    }
    long n = split(d, words, err, cap);
    char q[160];
    for (long i = 0; n >= 0 && i < n; i++) {
        const char *w = words[i];
        size_t nl = vs_span_to(w, '=');
        int which = -1;
        for (int k = 0; k < 4; k++)
            if (strlen(opts[k]) == nl && !strncmp(w, opts[k], nl)) which = k;
        if (which < 0) {
            vs_quote(q, sizeof q, w, strlen(w), 64);
            if (!strncmp(w, "--device", 8) || !strncmp(w, "--gpus", 6))
                vs_fail(err, cap, "#VRAMEST: %s is not a directive word: the device and the number of GPUs come "
                                  "from the job's GPU request (--gres=gpu:TYPE:N, --gpus ...)", q);
            else
                vs_fail(err, cap, "#VRAMEST: unknown word %s (expected --model, --precision, --set, --spec, or an "
                                  "inline JSON spec starting with '{')", q);
            goto out;
        }
        const char *v = w[nl] == '=' ? w + nl + 1 : i + 1 < n ? words[++i] : NULL;
        if (!v || !*v) {
            vs_fail(err, cap, "#VRAMEST: %s needs a value", opts[which]);
            goto out;
        }
        if (!slots[which]) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v) {
                vs_quote(q, sizeof q, v, strlen(v), 64);
                vs_fail(err, cap, "#VRAMEST: --set expects key=value, got %s", q);
                goto out;
            }
            d->sets[d->nsets++] = v;
        } else if (*slots[which]) {
            vs_fail(err, cap, "#VRAMEST: %s is given twice", opts[which]);
            goto out;
        } else {
            *slots[which] = v;
        }
    }
    if (n < 0) goto out;
    if (d->spec_path) {
        if (d->model || d->precision || d->nsets) {
            vs_fail(err, cap, "#VRAMEST: --spec cannot be combined with --model, --precision or --set");
            goto out;
        }
        d->kind = VS_DIR_SPECFILE;
    } else if (!d->model) {
        vs_fail(err, cap, "#VRAMEST: no model: give --model NAME|PATH, --spec FILE or an inline JSON spec");
        goto out;
    } else {
        d->kind = VS_DIR_WORDS;
    }
    rc = 0;
out:
    free(words);
    return rc;
}

void vs_directive_free(vs_directive *d)
{
    free(d->text);
    free(d->arena);
    free(d->sets);
    memset(d, 0, sizeof *d);
}
