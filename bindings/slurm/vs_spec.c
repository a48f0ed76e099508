/* Directives as job specs (see vs_spec.h). */
#include "vs_spec.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vs_util.h"

#define SPEC_MAX_DEPTH 64

/* What a user wrote, quoted for a message: only on the error paths. */
#define QUOTE(buf, text, n) (vs_quote(buf, sizeof buf, text, n, 64), buf)

/* Every option's name and key, sorted by name: a --set key is resolved with
 * one binary search instead of a scan of the registry per handle kind. */
struct vs_optnames {
    struct entry {
        const char *name; /* static, from the registry */
        vramest_option key;
    } *e;
    size_t n;
};

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

vs_optnames *vs_optnames_new(void)
{
    vs_optnames *t = calloc(1, sizeof *t);
    uint32_t n = vramest_option_count();
    if (!t || !(t->e = calloc(n ? n : 1, sizeof *t->e))) {
        free(t);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        vramest_option k;
        const char *name;
        if (vramest_option_at(i, &k) == VRAMEST_OK && (name = vramest_option_name(k)))
            t->e[t->n].name = name, t->e[t->n++].key = k;
    }
    qsort(t->e, t->n, sizeof *t->e, entry_cmp);
    return t;
}

void vs_optnames_free(vs_optnames *t)
{
    if (t) free(t->e);
    free(t);
}

/* The options named `name`: *first and the count (names shared by two groups, e.g. kv_cache). */
static size_t named(const vs_optnames *t, const char *name, const struct entry **first)
{
    struct entry probe = {.name = name};
    const struct entry *hit = bsearch(&probe, t->e, t->n, sizeof *t->e, entry_cmp);
    if (!hit) return 0;
    const struct entry *lo = hit, *hi = hit;
    while (lo > t->e && !strcmp(lo[-1].name, name)) lo--;
    while (hi + 1 < t->e + t->n && !strcmp(hi[1].name, name)) hi++;
    *first = lo;
    return (size_t)(hi - lo) + 1;
}

/* The option a --set key names: "name" (unique across groups) or "group.name".
 * Names the table does not hold (aliases such as n_embd) go to the registry,
 * which also says "did you mean". */
static int resolve(const vs_optnames *t, const char *key, vramest_option *out, char *err, size_t cap)
{
    char group[32], q[96];
    const char *dot = strchr(key, '.'), *name = dot ? dot + 1 : key;
    const struct entry *first = NULL;
    size_t hits = t ? named(t, name, &first) : 0;
    if (dot) {
        size_t gl = (size_t)(dot - key);
        if (gl >= sizeof group)
            return vs_fail(err, cap, "#VRAMEST: --set %s: no such option group", QUOTE(q, key, strlen(key)));
        memcpy(group, key, gl);
        group[gl] = '\0';
        if (!strcmp(group, "arch")) strcpy(group, "model");
        for (size_t i = 0; i < hits; i++) {
            const char *g = vramest_option_group(first[i].key);
            if (g && !strcmp(g, group)) {
                *out = first[i].key;
                return 0;
            }
        }
        int handle = !strcmp(group, "model")       ? VRAMEST_HANDLE_MODEL
                     : !strcmp(group, "precision") ? VRAMEST_HANDLE_PRECISION
                                                   : VRAMEST_HANDLE_CONFIG;
        if (vramest_option_lookup(handle, name, out))
            return vs_fail(err, cap, "#VRAMEST: --set %s: %s", QUOTE(q, key, strlen(key)),
                           vramest_last_error_message());
        const char *g = vramest_option_group(*out);
        if (!g || strcmp(g, group) != 0)
            return vs_fail(err, cap, "#VRAMEST: --set %s: the option belongs to '%s'", QUOTE(q, key, strlen(key)),
                           g ? g : "?");
        return 0;
    }
    if (hits == 1) {
        *out = first->key;
        return 0;
    }
    if (hits > 1) {
        char both[160] = "";
        for (size_t i = 0; i < hits; i++)
            vs_appendf(both, sizeof both, "%s%s.%s", i ? " or " : "", vramest_option_group(first[i].key), name);
        return vs_fail(err, cap, "#VRAMEST: --set %s is ambiguous: write %s", QUOTE(q, key, strlen(key)), both);
    }
    /* Not in the table (or no table): the registry, per handle kind. */
    static const int handles[] = {VRAMEST_HANDLE_MODEL, VRAMEST_HANDLE_PRECISION, VRAMEST_HANDLE_CONFIG};
    char both[160] = "";
    for (int i = 0; i < 3; i++) {
        vramest_option k;
        if (vramest_option_lookup(handles[i], name, &k) != VRAMEST_OK) continue;
        vs_appendf(both, sizeof both, "%s%s.%s", hits ? " or " : "", vramest_option_group(k), vramest_option_name(k));
        *out = k, hits++;
    }
    if (hits > 1)
        return vs_fail(err, cap, "#VRAMEST: --set %s is ambiguous: write %s", QUOTE(q, key, strlen(key)), both);
    if (hits == 1) return 0;
    vramest_option k;
    if (vramest_option_from_name(name, &k) != VRAMEST_OK)
        return vs_fail(err, cap, "#VRAMEST: --set %s: %s", QUOTE(q, key, strlen(key)), vramest_last_error_message());
    *out = k;
    return 0;
}

/* The value of a --set as JSON of the option's type. */
static int typed(vramest_option k, const char *key, const char *val, json_object **out, char *err, size_t cap)
{
    int type = 0;
    char q[96], kq[96];
    if (vramest_option_info(k, &type, NULL, NULL, NULL, NULL))
        return vs_fail(err, cap, "#VRAMEST: --set %s: %s", QUOTE(kq, key, strlen(key)), vramest_last_error_message());
    char *end = NULL;
    errno = 0;
    switch (type) {
    case VRAMEST_TYPE_I64: {
        long long v = strtoll(val, &end, 10);
        if (!*val || *end || errno)
            return vs_fail(err, cap, "#VRAMEST: --set %s: %s is not a 64-bit integer", QUOTE(kq, key, strlen(key)),
                           QUOTE(q, val, strlen(val)));
        *out = json_object_new_int64(v);
        break;
    }
    case VRAMEST_TYPE_F64: {
        double v = strtod(val, &end);
        if (!*val || *end || errno || !isfinite(v))
            return vs_fail(err, cap, "#VRAMEST: --set %s: %s is not a finite number", QUOTE(kq, key, strlen(key)),
                           QUOTE(q, val, strlen(val)));
        *out = json_object_new_double(v);
        break;
    }
    case VRAMEST_TYPE_BOOL:
        if (!strcmp(val, "true") || !strcmp(val, "1") || !strcmp(val, "yes"))
            *out = json_object_new_boolean(1);
        else if (!strcmp(val, "false") || !strcmp(val, "0") || !strcmp(val, "no"))
            *out = json_object_new_boolean(0);
        else
            return vs_fail(err, cap, "#VRAMEST: --set %s: %s is not true or false", QUOTE(kq, key, strlen(key)),
                           QUOTE(q, val, strlen(val)));
        break;
    case VRAMEST_TYPE_ENUM: {
        int64_t v;
        if (vramest_option_value_from_name(k, val, &v))
            return vs_fail(err, cap, "#VRAMEST: --set %s: %s", QUOTE(kq, key, strlen(key)),
                           vramest_last_error_message());
        *out = json_object_new_string(val);
        break;
    }
    default: *out = json_object_new_string(val); break;
    }
    return *out ? 0 : vs_fail(err, cap, "out of memory");
}

/* spec[group], created as an object when missing. */
static json_object *group_object(json_object *spec, const char *group)
{
    json_object *g = NULL;
    if (json_object_object_get_ex(spec, group, &g)) {
        if (json_object_is_type(g, json_type_string) && !strcmp(group, "precision")) {
            /* --precision bf16 --set weights=nf4: the preset and its overrides */
            json_object *obj = json_object_new_object();
            if (!obj) return NULL;
            json_object_object_add(obj, "preset", json_object_get(g));
            json_object_object_add(spec, group, obj);
            return obj;
        }
        return g;
    }
    g = json_object_new_object();
    if (g) json_object_object_add(spec, group, g);
    return g;
}

static int add_set(const vs_optnames *t, json_object *spec, const char *assignment, char *err, size_t cap)
{
    char key[128], q[96];
    size_t kl = vs_span_to(assignment, '=');
    if (kl >= sizeof key) return vs_fail(err, cap, "#VRAMEST: --set %s: key too long", QUOTE(q, assignment, kl));
    memcpy(key, assignment, kl);
    key[kl] = '\0';
    vramest_option k;
    if (resolve(t, key, &k, err, cap)) return -1;
    const char *group = vramest_option_group(k), *name = vramest_option_name(k);
    if (!group || !name) return vs_fail(err, cap, "#VRAMEST: --set %s: unknown option", QUOTE(q, key, kl));
    if (!strcmp(group, "model"))
        return vs_fail(err, cap, "#VRAMEST: --set %s: architecture options cannot be --set on a model; use an "
                                 "inline JSON spec with {\"model\": {\"arch\": {...}}}", QUOTE(q, key, kl));
    if (!strcmp(group, "device"))
        return vs_fail(err, cap, "#VRAMEST: --set %s: the device comes from the job's GPU request "
                                 "(--gres=gpu:TYPE:N), not from the directive", QUOTE(q, key, kl));
    json_object *g = group_object(spec, group), *v = NULL, *old;
    if (!g) return vs_fail(err, cap, "out of memory");
    if (json_object_object_get_ex(g, name, &old))
        return vs_fail(err, cap, "#VRAMEST: --set %s is given twice", QUOTE(q, key, kl));
    if (typed(k, key, assignment + kl + 1, &v, err, cap)) return -1;
    json_object_object_add(g, name, v);
    return 0;
}

int vs_spec_from_words(const vs_optnames *names, const vs_directive *d, json_object **out, char *err, size_t cap)
{
    *out = NULL;
    json_object *spec = json_object_new_object(), *m = NULL;
    if (!spec) return vs_fail(err, cap, "out of memory");
    /* A name with a slash is a path, anything else a preset: stat()ing what a
     * user typed to find out would already touch the file system. */
    if (strchr(d->model, '/')) {
        m = json_object_new_object();
        if (m) json_object_object_add(m, "path", json_object_new_string(d->model));
    } else {
        m = json_object_new_string(d->model);
    }
    json_object_object_add(spec, "model", m);
    if (d->precision) json_object_object_add(spec, "precision", json_object_new_string(d->precision));
    for (size_t i = 0; i < d->nsets; i++) {
        if (add_set(names, spec, d->sets[i], err, cap)) {
            json_object_put(spec);
            return -1;
        }
    }
    *out = spec;
    return 0;
}

int vs_spec_from_text(const char *text, size_t len, size_t max, const char *what, int quiet, json_object **out,
                      char *err, size_t cap)
{
    *out = NULL;
    if (len > max)
        return vs_fail(err, cap, "%s is %zu bytes, more than this site's max_spec_bytes (%zu)", what, len, max);
    size_t bad = vs_utf8_bad_at(text, len);
    if (bad < len) return vs_fail(err, cap, "%s: invalid UTF-8 at byte %zu", what, bad);
    if (memchr(text, '\0', len)) return vs_fail(err, cap, "%s: contains a NUL byte", what);
    json_tokener *tok = json_tokener_new_ex(SPEC_MAX_DEPTH);
    if (!tok) return vs_fail(err, cap, "out of memory");
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t at = tok->char_offset;
    json_tokener_free(tok);
    while (root && at < len && strchr(" \t\r\n", text[at])) at++;
    if (!root || jerr != json_tokener_success || at != len) {
        json_object_put(root);
        if (quiet) return vs_fail(err, cap, "%s is not valid JSON (byte %zu)", what, at);
        return vs_fail(err, cap, "%s: JSON error at byte %zu: %s", what, at,
                       jerr == json_tokener_success ? "text after the spec" : json_tokener_error_desc(jerr));
    }
    json_object *m;
    if (!json_object_is_type(root, json_type_object) || !json_object_object_get_ex(root, "model", &m)) {
        json_object_put(root);
        return vs_fail(err, cap, "%s is not a job spec: it must be a JSON object with a \"model\"", what);
    }
    *out = root;
    return 0;
}

int vs_spec_model_src(json_object *spec, vs_model_src *src, char *err, size_t cap)
{
    static const struct {
        const char *key;
        vramest_source kind;
    } files[] = {{"path", VRAMEST_SRC_AUTO},
                 {"safetensors", VRAMEST_SRC_AUTO},
                 {"gguf", VRAMEST_SRC_GGUF_HEADER},
                 {"hf_config_file", VRAMEST_SRC_HF_CONFIG_JSON}};
    json_object *m = NULL;
    memset(src, 0, sizeof *src);
    if (!json_object_object_get_ex(spec, "model", &m)) return vs_fail(err, cap, "the spec has no \"model\"");
    if (json_object_is_type(m, json_type_string)) {
        src->kind = VS_MODEL_PRESET, src->text = json_object_get_string(m);
        return 0;
    }
    if (json_object_is_type(m, json_type_object) && json_object_object_length(m) == 1) {
        json_object_object_foreach(m, key, val)
        {
            for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
                if (strcmp(key, files[i].key) != 0) continue;
                if (!json_object_is_type(val, json_type_string))
                    return vs_fail(err, cap, "model.%s: expected a path string", key);
                src->kind = VS_MODEL_FILE, src->text = json_object_get_string(val), src->file_kind = files[i].kind;
                if (!strcmp(key, "safetensors")) {
                    size_t l = strlen(src->text);
                    src->file_kind = l >= 5 && !strcasecmp(src->text + l - 5, ".json")
                                         ? VRAMEST_SRC_SAFETENSORS_INDEX
                                         : VRAMEST_SRC_SAFETENSORS_HEADER;
                }
                return 0;
            }
        }
    }
    /* arch, hf_config, or something libvramest will explain. */
    src->kind = VS_MODEL_INLINE;
    src->text = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    return src->text ? 0 : vs_fail(err, cap, "out of memory");
}

static void device_text(json_object *v, char *out, size_t cap)
{
    json_object *g;
    if (json_object_is_type(v, json_type_string))
        snprintf(out, cap, "%.64s", json_object_get_string(v));
    else if (json_object_is_type(v, json_type_object) && json_object_object_get_ex(v, "memory_gib", &g))
        snprintf(out, cap, "%g GiB", json_object_get_double(g));
    else
        snprintf(out, cap, "(not a device)");
}

static int bind_count(json_object *par, const char *key, uint64_t want, const char *why, char *err, size_t cap)
{
    json_object *have;
    if (json_object_object_get_ex(par, key, &have)) {
        if (!json_object_is_type(have, json_type_int) || json_object_get_int64(have) < 0 ||
            (uint64_t)json_object_get_int64(have) != want)
            return vs_fail(err, cap, "the directive says parallel.%s = %.32s, but %s %llu", key,
                           json_object_get_string(have), why, (unsigned long long)want);
        return 0;
    }
    json_object_object_add(par, key, json_object_new_int64((int64_t)want));
    return 0;
}

int vs_spec_bind(json_object *spec, const vs_device *dev, uint64_t gpus, uint64_t gpus_per_node, char *err,
                 size_t cap)
{
    json_object *want = NULL, *have = NULL, *par = NULL;
    if (dev->preset[0]) {
        want = json_object_new_string(dev->preset);
    } else {
        want = json_object_new_object();
        if (want) json_object_object_add(want, "memory_gib", json_object_new_double(dev->memory_gib));
    }
    if (!want) return vs_fail(err, cap, "out of memory");
    if (json_object_object_get_ex(spec, "device", &have)) {
        bool same = dev->preset[0] ? json_object_is_type(have, json_type_string) &&
                                         !strcasecmp(json_object_get_string(have), dev->preset)
                                   : json_object_equal(have, want);
        if (!same) {
            char a[96], b[96];
            device_text(have, a, sizeof a);
            device_text(want, b, sizeof b);
            json_object_put(want);
            return vs_fail(err, cap, "the directive names device %s, but the job's GPUs are %s here; leave "
                                     "\"device\" out (vramest.conf maps GPU types to devices)", a, b);
        }
    }
    json_object_object_add(spec, "device", want);
    if (!json_object_object_get_ex(spec, "parallel", &par)) {
        par = json_object_new_object();
        if (!par) return vs_fail(err, cap, "out of memory");
        json_object_object_add(spec, "parallel", par);
    } else if (!json_object_is_type(par, json_type_object)) {
        return vs_fail(err, cap, "the directive's \"parallel\" must be an object");
    }
    if (bind_count(par, "gpus", gpus, "the job requests", err, cap)) return -1;
    if (gpus_per_node && bind_count(par, "gpus_per_node", gpus_per_node, "the job requests per node", err, cap))
        return -1;
    return 0;
}
