/* Job specs (design.md §6). The keys inside each object are option names and
 * are resolved through the public option registry (name, group, type), so an
 * option added to a table is a spec key with no change here. What this file
 * knows on its own is only the document's frame: the top-level objects, the
 * model sources and the "solve" question. */
#include <json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonlimit.h"
#include "io/files.h"
#include "spec/spec.h"

/* Owned by vx_spec_read until handed to the caller. */
typedef struct spec_handles {
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
} spec_handles;

static const char *const top_keys[] = {"model", "precision", "workload", "parallel", "device", "runtime", "solve"};
static const char *const model_sources[] = {"hf_config", "hf_config_file", "safetensors", "gguf", "path", "arch"};
/* What "solve": {"max": ...} may search (design.md §6). */
static const char *const solve_keys[] = {"batch_size", "seq_len",   "prompt_len",   "gen_len", "gpus",
                                          "beams",      "lora_rank", "max_num_seqs", "max_model_len", "n_ctx"};

/* ---- messages ---- */

/* User text quoted in a message: short, printable, so a hostile spec cannot
 * flood or garble a log line. */
static const char *quote(const char *s, char *buf, size_t cap)
{
    size_t i = 0, o = 0;
    for (; s[i] && o + 4 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        buf[o++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
    }
    if (s[i]) {
        o = o > cap - 4 ? cap - 4 : o;
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}
#define Q(s, b) quote((s), (b), sizeof(b))

static const char *json_kind(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return "null";
    case json_type_boolean: return "a boolean";
    case json_type_double: return "a number";
    case json_type_int: return "an integer";
    case json_type_object: return "an object";
    case json_type_array: return "an array";
    case json_type_string: return "a string";
    }
    return "?";
}

/* The spec object where options of a registry group are written. */
static const char *group_place(const char *group)
{
    return strcmp(group, "model") == 0 ? "model.arch" : group;
}

static unsigned close_enough(const char *name)
{
    size_t n = strlen(name);
    return n <= 4 ? 1 : n <= 8 ? 2 : 3;
}

/* Up to three names of `list` (or of the options of `group`) close to
 * `name`, as ` (did you mean "a", "b"?)`. */
static void suggest(const char *name, const char *const *list, size_t n, const char *group, char *out, size_t cap)
{
    vx_close c;
    vx_close_init(&c, name, close_enough(name));
    c.prefix = true;
    uint32_t count = group ? vramest_option_count() : (uint32_t)n;
    for (uint32_t i = 0; i < count; i++) {
        const char *cand;
        if (group) {
            vramest_option k;
            const char *g;
            if (vramest_option_at(i, &k) != VRAMEST_OK) continue;
            if (!(g = vramest_option_group(k)) || strcmp(g, group) != 0) continue;
            cand = vramest_option_name(k);
        } else {
            cand = list[i];
        }
        if (cand) vx_close_offer(&c, cand);
    }
    out[0] = '\0';
    if (!c.best[0]) return;
    size_t used = (size_t)snprintf(out, cap, " (did you mean");
    for (int j = 0; j < VX_CLOSE_N && c.best[j] && used < cap; j++)
        used += (size_t)snprintf(out + used, cap - used, "%s \"%s\"", j ? "," : "", c.best[j]);
    if (used < cap) snprintf(out + used, cap - used, "?)");
}

/* An option of another object is the likeliest mistake ("tp" under
 * "workload"), so say where it goes before guessing at spelling. */
static int fail_unknown_key(const char *where, const char *name, const char *group, const char *const *list, size_t n)
{
    char qb[80], hint[200];
    vramest_option k;
    const char *g;
    if (vramest_option_from_name(name, &k) == VRAMEST_OK && (g = vramest_option_group(k)) != NULL &&
        (!group || strcmp(g, group) != 0))
        snprintf(hint, sizeof hint, " (\"%s\" is an option of \"%s\")", vramest_option_name(k), group_place(g));
    else
        suggest(name, list, n, group, hint, sizeof hint);
    /* A short fixed list is worth spelling out when nothing is close. */
    if (!hint[0] && list && n <= 8) {
        size_t used = (size_t)snprintf(hint, sizeof hint, " (expected");
        for (size_t i = 0; i < n && used < sizeof hint; i++)
            used += (size_t)snprintf(hint + used, sizeof hint - used, "%s \"%s\"", i ? "," : "", list[i]);
        if (used < sizeof hint) snprintf(hint + used, sizeof hint - used, ")");
    }
    return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "spec: unknown key \"%s\" in \"%s\"%s", Q(name, qb), where, hint);
}

/* ---- option lookup and typed setting ---- */

/* One name can live in two objects (precision.kv_cache is a dtype,
 * workload.kv_cache a bool), and the registry's name lookup returns the
 * first; only when that one belongs elsewhere are the canonical names of the
 * object searched. Aliases (n_embd, d_model) come with the registry lookup. */
static bool find_option(const char *group, const char *name, vramest_option *out)
{
    vramest_option k;
    const char *g;
    if (vramest_option_from_name(name, &k) != VRAMEST_OK) return false;
    if ((g = vramest_option_group(k)) && strcmp(g, group) == 0) {
        *out = k;
        return true;
    }
    uint32_t n = vramest_option_count();
    for (uint32_t i = 0; i < n; i++) {
        const char *nm;
        if (vramest_option_at(i, &k) != VRAMEST_OK || !(nm = vramest_option_name(k)) || strcmp(nm, name) != 0)
            continue;
        if ((g = vramest_option_group(k)) && strcmp(g, group) == 0) {
            *out = k;
            return true;
        }
    }
    return false;
}

static int h_set_i64(spec_handles *h, int handle, vramest_option key, int64_t v)
{
    switch (handle) {
    case VRAMEST_HANDLE_MODEL: return vramest_model_set_i64(h->m, key, v);
    case VRAMEST_HANDLE_PRECISION: return vramest_precision_set_i64(h->p, key, v);
    case VRAMEST_HANDLE_CONFIG: return vramest_config_set_i64(h->c, key, v);
    }
    return vx_fail(VRAMEST_E_INTERNAL, "spec: option key %d has no handle", (int)key);
}

static int h_set_f64(spec_handles *h, int handle, vramest_option key, double v)
{
    switch (handle) {
    case VRAMEST_HANDLE_MODEL: return vramest_model_set_f64(h->m, key, v);
    case VRAMEST_HANDLE_PRECISION: return vramest_precision_set_f64(h->p, key, v);
    case VRAMEST_HANDLE_CONFIG: return vramest_config_set_f64(h->c, key, v);
    }
    return vx_fail(VRAMEST_E_INTERNAL, "spec: option key %d has no handle", (int)key);
}

static int h_set_str(spec_handles *h, int handle, vramest_option key, const char *v)
{
    switch (handle) {
    case VRAMEST_HANDLE_MODEL: return vramest_model_set_str(h->m, key, v);
    case VRAMEST_HANDLE_PRECISION: return vramest_precision_set_str(h->p, key, v);
    case VRAMEST_HANDLE_CONFIG: return vramest_config_set_str(h->c, key, v);
    }
    return vx_fail(VRAMEST_E_INTERNAL, "spec: option key %d has no handle", (int)key);
}

/* A JSON string as a C string; an embedded NUL would silently cut it. */
static int get_cstr(json_object *v, const char *where, const char *name, const char **out)
{
    const char *s = json_object_get_string(v);
    *out = s;
    if (strlen(s) != (size_t)json_object_get_string_len(v))
        return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: the string contains a NUL character", where, name);
    *out = s;
    return VRAMEST_OK;
}

/* The enum's names, for a message: "load, train, infer". */
static void enum_names(vramest_option key, double mn, double mx, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    if (!(mn >= 0 && mx <= 4096)) return;
    for (int64_t v = (int64_t)mn; v <= (int64_t)mx && used + 2 < cap; v++) {
        const char *nm = vramest_option_value_name(key, v);
        if (!nm) continue;
        int w = snprintf(out + used, cap - used, "%s%s", used ? ", " : "", nm);
        if (w < 0 || (size_t)w >= cap - used) {
            if (cap > 4) memcpy(out + cap - 4, "...", 4);
            return;
        }
        used += (size_t)w;
    }
}

/* A list of strings for a STRING option, comma-joined as the C API takes it.
 * An element with a comma would change the list, so it is refused. */
static int join_list(json_object *arr, const char *where, const char *name, double max_len, char **out)
{
    size_t n = json_object_array_length(arr), total = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        const char *s;
        if (!json_object_is_type(e, json_type_string))
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s[%zu]: expected a string, got %s", where, name, i,
                           json_kind(e));
        int rc = get_cstr(e, where, name, &s);
        if (rc) return rc;
        if (strchr(s, ',')) {
            char qb[80];
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s[%zu]: \"%s\" contains a comma (give one name per element)",
                           where, name, i, Q(s, qb));
        }
        total += strlen(s) + (i > 0);
        if ((double)total > max_len)
            return vx_fail(VRAMEST_E_RANGE, "spec: %s.%s: the list is longer than the %.0f bytes allowed", where, name,
                           max_len);
    }
    char *buf = malloc(total + 1);
    if (!buf) return vx_fail(VRAMEST_E_NOMEM, "spec: %s.%s: out of memory", where, name);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = json_object_get_string(json_object_array_get_idx(arr, i));
        size_t l = strlen(s);
        if (i) buf[o++] = ',';
        memcpy(buf + o, s, l);
        o += l;
    }
    buf[o] = '\0';
    *out = buf;
    return VRAMEST_OK;
}

/* An integral JSON number as int64. json-c clamps integers beyond int64 to
 * INT64_MAX (or keeps them as uint64), so such values are out of range. */
static int get_integer(json_object *v, const char *where, const char *name, int64_t *out)
{
    if (json_object_is_type(v, json_type_int)) {
        int64_t x = json_object_get_int64(v);
        if (x == INT64_MAX && json_object_get_uint64(v) > (uint64_t)INT64_MAX)
            return vx_fail(VRAMEST_E_RANGE, "spec: %s.%s: %s is beyond 64-bit integers", where, name,
                           json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
        *out = x;
        return VRAMEST_OK;
    }
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        /* 8.0 and 1e3 are integers written as floats; 8.5 is not. */
        if (!isfinite(d) || d != floor(d))
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected an integer, got %.17g", where, name, d);
        if (d < -9.2233720368547758e18 || d >= 9.2233720368547758e18)
            return vx_fail(VRAMEST_E_RANGE, "spec: %s.%s: %.17g is beyond 64-bit integers", where, name, d);
        *out = (int64_t)d;
        return VRAMEST_OK;
    }
    return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected an integer, got %s", where, name, json_kind(v));
}

/* Set one option from its JSON value; `where` is the spec object for messages. */
static int set_option(spec_handles *h, const char *where, const char *name, vramest_option key, json_object *v)
{
    int type = 0, handle = 0, rc;
    double mn = 0, mx = 0;
    if ((rc = vramest_option_info(key, &type, &handle, &mn, &mx, NULL))) return rc;
    switch (type) {
    case VRAMEST_TYPE_I64: {
        int64_t x = 0;
        if ((rc = get_integer(v, where, name, &x))) return rc;
        rc = h_set_i64(h, handle, key, x);
        break;
    }
    case VRAMEST_TYPE_F64: {
        if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected a number, got %s", where, name, json_kind(v));
        double d = json_object_get_double(v);
        if (!isfinite(d))
            return vx_fail(VRAMEST_E_RANGE, "spec: %s.%s: %g is not a finite number", where, name, d);
        rc = h_set_f64(h, handle, key, d);
        break;
    }
    case VRAMEST_TYPE_BOOL:
        if (!json_object_is_type(v, json_type_boolean))
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected true or false, got %s", where, name, json_kind(v));
        rc = h_set_i64(h, handle, key, json_object_get_boolean(v) ? 1 : 0);
        break;
    case VRAMEST_TYPE_ENUM: {
        const char *s;
        if (!json_object_is_type(v, json_type_string)) {
            char names[400];
            enum_names(key, mn, mx, names, sizeof names);
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected a name (%s), got %s", where, name, names,
                           json_kind(v));
        }
        if ((rc = get_cstr(v, where, name, &s))) return rc;
        rc = h_set_str(h, handle, key, s);
        break;
    }
    case VRAMEST_TYPE_STRING: {
        if (json_object_is_type(v, json_type_array)) {
            char *joined = NULL;
            if ((rc = join_list(v, where, name, mx, &joined))) return rc;
            rc = h_set_str(h, handle, key, joined);
            free(joined);
        } else if (json_object_is_type(v, json_type_string)) {
            const char *s;
            if ((rc = get_cstr(v, where, name, &s))) return rc;
            rc = h_set_str(h, handle, key, s);
        } else {
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected a string or a list of strings, got %s", where,
                           name, json_kind(v));
        }
        break;
    }
    default: return vx_fail(VRAMEST_E_INTERNAL, "spec: option \"%s\" has unknown type %d", name, type);
    }
    if (rc) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "spec: %s: ", where);
        return vx_fail_prefix(rc, prefix);
    }
    return VRAMEST_OK;
}

/* Every member of `obj` is an option of registry group `group`. `skip` is a
 * frame key handled by the caller ("preset"); `rename` maps one extra key to
 * an option name ("name" -> "device"). */
static int apply_options(spec_handles *h, json_object *obj, const char *where, const char *group, const char *skip,
                         const char *rename_from, const char *rename_to)
{
    struct json_object_iterator it = json_object_iter_begin(obj), end = json_object_iter_end(obj);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *name = json_object_iter_peek_name(&it);
        json_object *v = json_object_iter_peek_value(&it);
        if (skip && strcmp(name, skip) == 0) continue;
        const char *oname = rename_from && strcmp(name, rename_from) == 0 ? rename_to : name;
        vramest_option key;
        if (!find_option(group, oname, &key)) return fail_unknown_key(where, name, group, NULL, 0);
        int rc = set_option(h, where, name, key, v);
        if (rc) return rc;
    }
    return VRAMEST_OK;
}

static int expect_object(json_object *v, const char *where)
{
    if (!json_object_is_type(v, json_type_object))
        return vx_fail(VRAMEST_E_TYPE, "spec: \"%s\" must be an object, got %s", where, json_kind(v));
    return VRAMEST_OK;
}

/* ---- the objects ---- */

static int read_model(spec_handles *h, json_object *v)
{
    int rc;
    char qb[80];
    if (json_object_is_type(v, json_type_string)) {
        const char *name;
        if ((rc = get_cstr(v, "spec", "model", &name))) return rc;
        if ((rc = vramest_model_new_preset(name, &h->m))) return vx_fail_prefix(rc, "spec: model: ");
        return VRAMEST_OK;
    }
    if (!json_object_is_type(v, json_type_object))
        return vx_fail(VRAMEST_E_TYPE, "spec: \"model\" must be a preset name or an object, got %s", json_kind(v));
    /* One source per model object keeps the meaning obvious; merging several
     * sources is the C API's vramest_model_parse(), called repeatedly. */
    int n = json_object_object_length(v);
    if (n != 1) {
        if (n == 0)
            return vx_fail(VRAMEST_E_INVALID_ARG,
                           "spec: \"model\" is empty: give one of hf_config, hf_config_file, safetensors, gguf, path, "
                           "arch");
        struct json_object_iterator it = json_object_iter_begin(v);
        char qa[80];
        const char *a = json_object_iter_peek_name(&it);
        json_object_iter_next(&it);
        return vx_fail(VRAMEST_E_CONFLICT, "spec: \"model\" takes exactly one source, got \"%s\" and \"%s\"",
                       Q(a, qa), Q(json_object_iter_peek_name(&it), qb));
    }
    struct json_object_iterator it = json_object_iter_begin(v);
    const char *src = json_object_iter_peek_name(&it);
    json_object *sv = json_object_iter_peek_value(&it);
    size_t which = VX_ARRAY_LEN(model_sources);
    for (size_t i = 0; i < VX_ARRAY_LEN(model_sources); i++)
        if (strcmp(src, model_sources[i]) == 0) which = i;
    if (which == VX_ARRAY_LEN(model_sources))
        return fail_unknown_key("model", src, NULL, model_sources, VX_ARRAY_LEN(model_sources));

    if ((rc = vramest_model_new(&h->m))) return rc;
    char prefix[48];
    snprintf(prefix, sizeof prefix, "spec: model.%s: ", src);
    if (strcmp(src, "arch") == 0) {
        if ((rc = expect_object(sv, "model.arch"))) return rc;
        return apply_options(h, sv, "model.arch", "model", NULL, NULL, NULL);
    }
    if (strcmp(src, "hf_config") == 0) {
        if ((rc = expect_object(sv, "model.hf_config"))) return rc;
        /* Offsets in the config parser's messages refer to this compact text. */
        size_t len = 0;
        const char *text = json_object_to_json_string_length(sv, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
                                                             &len);
        if (!text) return vx_fail(VRAMEST_E_NOMEM, "spec: model.hf_config: out of memory");
        size_t needed = 0;
        if ((rc = vramest_model_parse(h->m, VRAMEST_SRC_HF_CONFIG_JSON, text, len, &needed)))
            return vx_fail_prefix(rc, prefix);
        return VRAMEST_OK;
    }
    /* The rest name a file. */
    const char *path;
    if (!json_object_is_type(sv, json_type_string))
        return vx_fail(VRAMEST_E_TYPE, "spec: model.%s: expected a path string, got %s", src, json_kind(sv));
    if ((rc = get_cstr(sv, "model", src, &path))) return rc;
    if (!*path) return vx_fail(VRAMEST_E_INVALID_ARG, "spec: model.%s: empty path", src);
    vramest_source kind = VRAMEST_SRC_AUTO;
    if (strcmp(src, "hf_config_file") == 0) {
        kind = VRAMEST_SRC_HF_CONFIG_JSON;
    } else if (strcmp(src, "gguf") == 0) {
        kind = VRAMEST_SRC_GGUF_HEADER;
    } else if (strcmp(src, "safetensors") == 0) {
        size_t l = strlen(path);
        kind = l >= 5 && vx_strcasecmp(path + l - 5, ".json") == 0 ? VRAMEST_SRC_SAFETENSORS_INDEX
                                                                   : VRAMEST_SRC_SAFETENSORS_HEADER;
    }
    if ((rc = vramest_model_parse_file(h->m, kind, path))) return vx_fail_prefix(rc, prefix);
    return VRAMEST_OK;
}

static int read_precision(spec_handles *h, json_object *v)
{
    int rc;
    if (json_object_is_type(v, json_type_string)) {
        const char *name;
        if ((rc = get_cstr(v, "spec", "precision", &name))) return rc;
        if ((rc = vramest_precision_new_preset(name, &h->p))) return vx_fail_prefix(rc, "spec: precision: ");
        return VRAMEST_OK;
    }
    if (!json_object_is_type(v, json_type_object))
        return vx_fail(VRAMEST_E_TYPE, "spec: \"precision\" must be a preset name or an object, got %s",
                       json_kind(v));
    if ((rc = vramest_precision_new(&h->p))) return rc;
    /* The preset is the base the other keys adjust, wherever it is written. */
    json_object *preset;
    if (json_object_object_get_ex(v, "preset", &preset)) {
        const char *name;
        if (!json_object_is_type(preset, json_type_string))
            return vx_fail(VRAMEST_E_TYPE, "spec: precision.preset: expected a preset name, got %s",
                           json_kind(preset));
        if ((rc = get_cstr(preset, "precision", "preset", &name))) return rc;
        if ((rc = vramest_precision_apply_preset(h->p, name))) return vx_fail_prefix(rc, "spec: precision: ");
    }
    return apply_options(h, v, "precision", "precision", "preset", NULL, NULL);
}

static int read_device(spec_handles *h, json_object *v)
{
    if (json_object_is_type(v, json_type_string)) {
        vramest_option key;
        if (!find_option("device", "device", &key))
            return vx_fail(VRAMEST_E_INTERNAL, "spec: the registry has no \"device\" option");
        return set_option(h, "device", "device", key, v);
    }
    if (!json_object_is_type(v, json_type_object))
        return vx_fail(VRAMEST_E_TYPE, "spec: \"device\" must be a GPU name or an object, got %s", json_kind(v));
    return apply_options(h, v, "device", "device", NULL, "name", "device");
}

static int read_solve(json_object *v, vx_spec_solve *solve)
{
    int rc;
    char qb[80];
    if ((rc = expect_object(v, "solve"))) return rc;
    static const char *const solve_members[] = {"max", "advice"};
    bool advice = false;
    const char *max = NULL;
    struct json_object_iterator it = json_object_iter_begin(v), end = json_object_iter_end(v);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *name = json_object_iter_peek_name(&it);
        json_object *sv = json_object_iter_peek_value(&it);
        if (strcmp(name, "max") == 0) {
            if (!json_object_is_type(sv, json_type_string))
                return vx_fail(VRAMEST_E_TYPE, "spec: solve.max: expected an option name, got %s", json_kind(sv));
            const char *s;
            if ((rc = get_cstr(sv, "solve", "max", &s))) return rc;
            for (size_t i = 0; i < VX_ARRAY_LEN(solve_keys); i++)
                if (strcmp(s, solve_keys[i]) == 0) max = solve_keys[i];
            if (!max)
                return vx_fail(VRAMEST_E_UNKNOWN_NAME,
                               "spec: solve.max: cannot search \"%s\" (valid: batch_size, seq_len, prompt_len, "
                               "gen_len, gpus, beams, lora_rank, max_num_seqs, max_model_len, n_ctx)",
                               Q(s, qb));
        } else if (strcmp(name, "advice") == 0) {
            if (!json_object_is_type(sv, json_type_boolean))
                return vx_fail(VRAMEST_E_TYPE, "spec: solve.advice: expected true or false, got %s", json_kind(sv));
            advice = json_object_get_boolean(sv);
        } else {
            return fail_unknown_key("solve", name, NULL, solve_members, VX_ARRAY_LEN(solve_members));
        }
    }
    if (max && advice)
        return vx_fail(VRAMEST_E_CONFLICT, "spec: \"solve\" asks one question: \"max\" or \"advice\", not both");
    if (max) {
        vramest_option key;
        if (vramest_option_from_name(max, &key))
            return vx_fail(VRAMEST_E_INTERNAL, "spec: the registry has no \"%s\" option", max);
        solve->kind = VX_SOLVE_MAX;
        solve->key = key;
        solve->name = max;
    } else if (advice) {
        solve->kind = VX_SOLVE_ADVICE;
        solve->name = "advice";
    } else if (json_object_object_length(v) == 0) {
        return vx_fail(VRAMEST_E_INVALID_ARG, "spec: \"solve\" is empty: ask {\"max\": \"batch_size\"} or "
                                              "{\"advice\": true}");
    }
    return VRAMEST_OK;
}

/* ---- the document ---- */

/* json-c keeps the last of two equal keys. A spec that says "batch_size"
 * twice (or holds two "workload" objects) is a mistake to report, not to
 * resolve, so the text is walked once more with the file readers' strict
 * scanner, which also refuses what json-c tolerates (NaN, single quotes). */
typedef struct dup_key {
    const char *s;
    size_t len;
    uint64_t at;
} dup_key;

static int cmp_key(const void *a, const void *b)
{
    const dup_key *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* `arena` receives every decoded key; len + 1 bytes always suffice because
 * a key never decodes longer than its quoted text. */
static int check_keys(vx_jscan *j, char *arena, size_t *used)
{
    int c = vx_js_peek(j), rc;
    if (c != '{' && c != '[') return vx_js_skip(j);
    if ((rc = vx_js_open(j, (char)c, "the spec"))) return rc;
    dup_key *keys = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0;; k++) {
        int more;
        if ((rc = vx_js_next(j, c == '{' ? '}' : ']', k, &more, "the spec")) || !more) break;
        if (c == '{') {
            if (n == cap) {
                size_t ncap = cap ? 2 * cap : 16;
                dup_key *grown = realloc(keys, ncap * sizeof *grown);
                if (!grown) {
                    rc = vx_fail(VRAMEST_E_NOMEM, "spec: out of memory");
                    break;
                }
                keys = grown, cap = ncap;
            }
            vx_js_peek(j);
            dup_key *key = &keys[n++];
            key->at = vx_js_at(j);
            key->s = arena + *used;
            if ((rc = vx_js_string(j, arena + *used, &key->len, "an object key"))) break;
            *used += key->len + 1;
            if ((rc = vx_js_expect(j, ':', "an object"))) break;
        }
        if ((rc = check_keys(j, arena, used))) break;
    }
    if (!rc && n > 1) {
        qsort(keys, n, sizeof *keys, cmp_key);
        for (size_t i = 1; i < n && !rc; i++)
            if (keys[i].len == keys[i - 1].len && memcmp(keys[i].s, keys[i - 1].s, keys[i].len) == 0) {
                char qb[80];
                rc = vx_fail(VRAMEST_E_PARSE, "spec: duplicate key \"%s\" at byte %llu (first at byte %llu)",
                             Q(keys[i].s, qb), (unsigned long long)keys[i].at, (unsigned long long)keys[i - 1].at);
            }
    }
    free(keys);
    return rc;
}

static int check_duplicate_keys(const char *json, size_t len, size_t skip)
{
    char *arena = malloc(len + 1);
    if (!arena) return vx_fail(VRAMEST_E_NOMEM, "spec: out of memory");
    vx_jscan j = {json + skip, len - skip, 0, skip, "spec", 0};
    size_t used = 0;
    int rc = check_keys(&j, arena, &used);
    free(arena);
    return rc;
}

static void line_col(const char *s, size_t off, size_t *line, size_t *col)
{
    *line = 1, *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (s[i] == '\n')
            ++*line, *col = 1;
        else
            ++*col;
    }
}

static int parse_json(const char *json, size_t len, json_object **out)
{
    /* A byte-order mark is what some editors save; it is not JSON, but
     * rejecting it would only confuse. */
    size_t skip = len >= 3 && memcmp(json, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    int lrc = vx_json_check_size(json, len, "spec");
    if (lrc) return lrc;
    struct json_tokener *tok = json_tokener_new_ex(VX_MAX_JSON_DEPTH);
    if (!tok) return vx_fail(VRAMEST_E_NOMEM, "spec: out of memory");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *root = json_tokener_parse_ex(tok, json + skip, (int)(len - skip));
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = skip + json_tokener_get_parse_end(tok);
    if (!root && jerr == json_tokener_continue) {
        /* The buffer is the whole document: a NUL tells json-c so, which
         * completes a bare top-level value ("null", "12"). */
        root = json_tokener_parse_ex(tok, "", 1);
        jerr = json_tokener_get_error(tok);
        end = len;
    }
    json_tokener_free(tok);
    size_t line, col;
    if (!root && jerr == json_tokener_success)
        return vx_fail(VRAMEST_E_TYPE, "spec: the document must be a JSON object, got null");
    if (!root) {
        if (jerr == json_tokener_error_parse_eof && end < len) {
            line_col(json, end, &line, &col);
            return vx_fail(VRAMEST_E_PARSE, "spec: NUL byte at byte %zu (line %zu, column %zu)", end, line, col);
        }
        if (jerr == json_tokener_continue || jerr == json_tokener_error_parse_eof) {
            line_col(json, len, &line, &col);
            return vx_fail(VRAMEST_E_PARSE, "spec: unexpected end of JSON at byte %zu (line %zu, column %zu)", len,
                           line, col);
        }
        line_col(json, end, &line, &col);
        return vx_fail(jerr == json_tokener_error_depth ? VRAMEST_E_LIMIT : VRAMEST_E_PARSE,
                       "spec: %s at byte %zu (line %zu, column %zu)%s", json_tokener_error_desc(jerr), end, line, col,
                       jerr == json_tokener_error_depth ? " (nesting deeper than 64)" : "");
    }
    for (size_t i = end; i < len; i++)
        if (json[i] != ' ' && json[i] != '\t' && json[i] != '\r' && json[i] != '\n') {
            json_object_put(root);
            line_col(json, i, &line, &col);
            return vx_fail(VRAMEST_E_PARSE, "spec: unexpected data after the JSON document at byte %zu (line %zu, "
                                            "column %zu)",
                           i, line, col);
        }
    int rc = check_duplicate_keys(json, len, skip);
    if (rc) {
        json_object_put(root);
        return rc;
    }
    *out = root;
    return VRAMEST_OK;
}

static int read_spec(json_object *root, spec_handles *h, vx_spec_solve *solve, bool want_model)
{
    int rc;
    if (!json_object_is_type(root, json_type_object))
        return vx_fail(VRAMEST_E_TYPE, "spec: the document must be a JSON object, got %s", json_kind(root));
    struct json_object_iterator it = json_object_iter_begin(root), end = json_object_iter_end(root);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *name = json_object_iter_peek_name(&it);
        bool known = false;
        for (size_t i = 0; i < VX_ARRAY_LEN(top_keys); i++) known |= strcmp(name, top_keys[i]) == 0;
        if (!known) return fail_unknown_key("spec", name, NULL, top_keys, VX_ARRAY_LEN(top_keys));
    }
    json_object *v;
    if (!json_object_object_get_ex(root, "model", &v))
        return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "spec: \"model\" is required (a preset name or a source object)");

    /* Cheap checks first, file reads (model sources) last. */
    if (json_object_object_get_ex(root, "solve", &v) && (rc = read_solve(v, solve))) return rc;
    if (json_object_object_get_ex(root, "precision", &v)) {
        if ((rc = read_precision(h, v))) return rc;
    } else if ((rc = vramest_precision_new(&h->p))) {
        return rc;
    }
    if ((rc = vramest_config_new(&h->c))) return rc;
    /* A fixed order, so the result never depends on how the document is laid out. */
    static const char *const cfg_objects[] = {"workload", "parallel", "runtime"};
    for (size_t i = 0; i < VX_ARRAY_LEN(cfg_objects); i++) {
        if (!json_object_object_get_ex(root, cfg_objects[i], &v)) continue;
        if ((rc = expect_object(v, cfg_objects[i]))) return rc;
        if ((rc = apply_options(h, v, cfg_objects[i], cfg_objects[i], NULL, NULL, NULL))) return rc;
    }
    if (json_object_object_get_ex(root, "device", &v) && (rc = read_device(h, v))) return rc;

    if (!want_model) return VRAMEST_OK; /* the caller has this model already */
    json_object_object_get_ex(root, "model", &v);
    if ((rc = read_model(h, v))) return rc;
    if ((rc = vramest_model_validate(h->m))) return vx_fail_prefix(rc, "spec: model: ");
    return VRAMEST_OK;
}

int vx_spec_read(const char *json, size_t len, vramest_model **out_model, vramest_precision **out_prec,
                 vramest_config **out_cfg, vx_spec_solve *out_solve)
{
    if (out_model) *out_model = NULL;
    if (out_prec) *out_prec = NULL;
    if (out_cfg) *out_cfg = NULL;
    if (out_solve) *out_solve = (vx_spec_solve){VX_SOLVE_NONE, (vramest_option)0, NULL};
    if (!out_prec || !out_cfg || !out_solve)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_spec_parse: NULL output pointer");
    if (!json && len) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_spec_parse: json is NULL");
    if (len > VX_MAX_SPEC_BYTES)
        return vx_fail(VRAMEST_E_LIMIT, "spec: %zu bytes is larger than the %u bytes a job spec may have", len,
                       VX_MAX_SPEC_BYTES);
    if (!len) return vx_fail(VRAMEST_E_PARSE, "spec: empty document at byte 0 (line 1, column 1)");

    json_object *root = NULL;
    int rc = parse_json(json, len, &root);
    if (rc) return rc;
    spec_handles h = {NULL, NULL, NULL};
    vx_spec_solve solve = {VX_SOLVE_NONE, (vramest_option)0, NULL};
    rc = read_spec(root, &h, &solve, out_model != NULL);
    json_object_put(root);
    if (rc) {
        vramest_model_free(h.m);
        vramest_precision_free(h.p);
        vramest_config_free(h.c);
        return rc;
    }
    if (out_model) *out_model = h.m;
    *out_prec = h.p;
    *out_cfg = h.c;
    *out_solve = solve;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_spec_parse(const char *json, size_t len, vramest_model **out_model,
                                   vramest_precision **out_prec, vramest_config **out_cfg)
{
    vx_spec_solve solve;
    return vx_spec_read(json, len, out_model, out_prec, out_cfg, &solve);
}
