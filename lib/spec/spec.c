/* Job specs (design.md §6). The keys inside each object are option names and
 * are resolved through the public option registry (name, group, type), so an
 * option added to a table is a spec key with no change here. What this file
 * knows on its own is only the document's frame: the top-level objects, the
 * model sources and the "solve" question. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/hf_config.h"
#include "runtime/config.h" /* VX_TRI_ON */
#include "spec/spec.h"

/* Owned by vx_spec_read until handed to the caller. */
typedef struct spec_handles {
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
    bool rebuild; /* model options were written since its last rebuild */
} spec_handles;

static const char *const top_keys[] = {"model", "precision", "workload", "parallel", "device", "runtime", "solve", "rl"};
static const char *const model_sources[] = {"hf_config", "hf_config_file", "safetensors", "gguf", "path", "arch"};
/* What "solve": {"max": ...} may search (design.md §6). */
static const char *const solve_keys[] = {"batch_size", "seq_len",   "prompt_len",   "gen_len", "gpus",
                                          "beams",      "lora_rank", "max_num_seqs", "max_model_len", "n_ctx",
                                          "rollout_batch_size", "num_generations", "micro_batch_size"};

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
 * object searched. Aliases (n_embd, d_model) come with the registry lookup.
 * Both through the generated index: no scan of the tables. */
static const vx_option_def *find_option(const char *group, const char *name, size_t len)
{
    const vx_option_def *d = vx_option_named(0, name, len, VX_NAME_ANY, NULL);
    if (!d) return NULL;
    if (strcmp(d->group, group) == 0) return d;
    bool exact;
    const vx_optname *nm = vx_option_spelling(name, len, &exact);
    for (unsigned i = 0; exact && i < nm->n_refs; i++) {
        if (nm->refs[i].alias) continue;
        d = vx_optref_def(nm->refs[i]);
        if (strcmp(d->group, group) == 0) return d;
    }
    return NULL;
}

/* Options are written into the handles' values directly; the model is
 * rebuilt once after its object (spec_handles.rebuild), not per key. */
static int h_set_i64(spec_handles *h, const vx_option_def *d, int64_t v)
{
    switch (d->handle) {
    case VRAMEST_HANDLE_MODEL: h->rebuild = true; return vx_opt_set_i64(&h->m->a, h->m->set_bits, d->handle, d->key, v);
    case VRAMEST_HANDLE_PRECISION: return vramest_precision_set_i64(h->p, d->key, v);
    case VRAMEST_HANDLE_CONFIG: return vramest_config_set_i64(h->c, d->key, v);
    }
    return vx_fail(VRAMEST_E_INTERNAL, "spec: option \"%s\" has no handle", d->name);
}

static int h_set_f64(spec_handles *h, const vx_option_def *d, double v)
{
    switch (d->handle) {
    case VRAMEST_HANDLE_MODEL: h->rebuild = true; return vx_opt_set_f64(&h->m->a, h->m->set_bits, d->handle, d->key, v);
    case VRAMEST_HANDLE_PRECISION: return vramest_precision_set_f64(h->p, d->key, v);
    case VRAMEST_HANDLE_CONFIG: return vramest_config_set_f64(h->c, d->key, v);
    }
    return vx_fail(VRAMEST_E_INTERNAL, "spec: option \"%s\" has no handle", d->name);
}

static int h_set_str(spec_handles *h, const vx_option_def *d, const char *v)
{
    switch (d->handle) {
    case VRAMEST_HANDLE_MODEL: h->rebuild = true; return vx_opt_set_str(&h->m->a, h->m->set_bits, d->handle, d->key, v);
    case VRAMEST_HANDLE_PRECISION: return vramest_precision_set_str(h->p, d->key, v);
    case VRAMEST_HANDLE_CONFIG: return vramest_config_set_str(h->c, d->key, v);
    }
    return vx_fail(VRAMEST_E_INTERNAL, "spec: option \"%s\" has no handle", d->name);
}

/* A JSON string as a C string; an embedded NUL would silently cut it. */
static int get_cstr(const vx_jdoc *doc, const vx_jv *v, const char *where, const char *name, const char **out)
{
    if (!(v->flags & VX_JF_NUL)) return *out = vx_jstr(doc, v), VRAMEST_OK;
    char place[160];
    snprintf(place, sizeof place, "spec: %s.%.100s", where, name);
    return vx_jcstr(doc, v, place, out);
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
static int join_list(const vx_jdoc *doc, const vx_jv *arr, const char *where, const char *name, double max_len,
                     bool numbers, char **out)
{
    size_t total = 0, i = 0;
    int rc;
    /* A list of numbers (llama.cpp's tensor_split, `numbers`) is written as
     * the numbers, "%.17g" each. */
    char num[32];
    for (const vx_jv *e = vx_jfirst(arr); e < vx_jend(arr); e = vx_jskip(e), i++) {
        const char *s;
        if (numbers && (e->type == VX_J_INT || e->type == VX_J_NUM)) {
            total += (size_t)snprintf(num, sizeof num, "%.17g", e->type == VX_J_INT ? (double)e->u.i : e->u.d) + (i > 0);
            if ((double)total > max_len)
                return vx_fail(VRAMEST_E_RANGE, "spec: %s.%s: the list is longer than the %.0f bytes allowed", where,
                               name, max_len);
            continue;
        }
        if (e->type != VX_J_STR)
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s[%zu]: expected a string, got %s", where, name, i,
                           vx_jkind(e));
        if ((rc = get_cstr(doc, e, where, name, &s))) return rc;
        if (strchr(s, ',')) {
            char qb[80];
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s[%zu]: \"%s\" contains a comma (give one name per element)",
                           where, name, i, Q(s, qb));
        }
        total += e->u.s.len + (i > 0);
        if ((double)total > max_len)
            return vx_fail(VRAMEST_E_RANGE, "spec: %s.%s: the list is longer than the %.0f bytes allowed", where, name,
                           max_len);
    }
    char *buf = malloc(total + 1);
    if (!buf) return vx_fail(VRAMEST_E_NOMEM, "spec: %s.%s: out of memory", where, name);
    size_t o = 0;
    i = 0;
    for (const vx_jv *e = vx_jfirst(arr); e < vx_jend(arr); e = vx_jskip(e), i++) {
        if (i) buf[o++] = ',';
        if (numbers && (e->type == VX_J_INT || e->type == VX_J_NUM)) {
            o += (size_t)snprintf(buf + o, total + 1 - o, "%.17g", e->type == VX_J_INT ? (double)e->u.i : e->u.d);
            continue;
        }
        memcpy(buf + o, vx_jstr(doc, e), e->u.s.len);
        o += e->u.s.len;
    }
    buf[o] = '\0';
    *out = buf;
    return VRAMEST_OK;
}

/* An integer option's value: an integer literal, or a number written with a
 * fraction or exponent whose value is an exact integer ("8.0", "1e3"; the
 * reader's rule, json_reader.h). */
static int get_integer(const vx_jdoc *doc, const vx_jv *v, const char *where, const char *name, int64_t *out)
{
    char lit[48];
    switch (vx_jnum_i64(v, out)) {
    case VRAMEST_OK: return VRAMEST_OK;
    case VX_JN_NOT_NUMBER:
        return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected an integer, got %s", where, name, vx_jkind(v));
    case VX_JN_TOO_BIG:
        vx_jliteral(doc, v, lit, sizeof lit);
        /* The Python binding's wording for the same value (_options.py). */
        if (v->flags & VX_JF_BIG)
            return vx_fail(VRAMEST_E_RANGE, "spec: %s.%s: %s is beyond 64-bit integers", where, name, lit);
        return vx_fail(VRAMEST_E_RANGE, "spec: %s.%s: %s is not an exact integer (a float beyond 2^53)", where, name,
                       lit);
    default:
        vx_jliteral(doc, v, lit, sizeof lit);
        return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected an integer, got %s", where, name, lit);
    }
}

/* Set one option from its JSON value; `where` is the spec object for messages. */
static int set_option(spec_handles *h, const vx_jdoc *doc, const char *where, const char *name,
                      const vx_option_def *d, const vx_jv *v)
{
    int rc;
    const char *s;
    switch (d->type) {
    case VRAMEST_TYPE_I64: {
        int64_t x = 0;
        if ((rc = get_integer(doc, v, where, name, &x))) return rc;
        rc = h_set_i64(h, d, x);
        break;
    }
    case VRAMEST_TYPE_F64: {
        double x = 0;
        char lit[48];
        int nrc = vx_jnum_f64(v, &x);
        if (nrc == VX_JN_NOT_NUMBER)
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected a number, got %s", where, name, vx_jkind(v));
        if (nrc) {
            vx_jliteral(doc, v, lit, sizeof lit);
            return vx_fail(VRAMEST_E_RANGE, "spec: %s.%s: %s is not a finite number", where, name, lit);
        }
        rc = h_set_f64(h, d, x);
        break;
    }
    case VRAMEST_TYPE_BOOL:
        if (v->type != VX_J_TRUE && v->type != VX_J_FALSE)
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected true or false, got %s", where, name, vx_jkind(v));
        rc = h_set_i64(h, d, v->type == VX_J_TRUE);
        break;
    case VRAMEST_TYPE_ENUM:
        if (v->type != VX_J_STR) {
            char names[400];
            enum_names(d->key, d->min, d->max, names, sizeof names);
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected a name (%s), got %s", where, name, names,
                           vx_jkind(v));
        }
        if ((rc = get_cstr(doc, v, where, name, &s))) return rc;
        rc = h_set_str(h, d, s);
        break;
    case VRAMEST_TYPE_STRING:
        if (v->type == VX_J_ARR) {
            char *joined = NULL;
            if ((rc = join_list(doc, v, where, name, d->max, d->key == VRAMEST_CFG_TENSOR_SPLIT, &joined))) return rc;
            rc = h_set_str(h, d, joined);
            free(joined);
        } else if (v->type == VX_J_STR) {
            if ((rc = get_cstr(doc, v, where, name, &s))) return rc;
            rc = h_set_str(h, d, s);
        } else {
            return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected a string or a list of strings, got %s", where,
                           name, vx_jkind(v));
        }
        break;
    default: return vx_fail(VRAMEST_E_INTERNAL, "spec: option \"%s\" has unknown type %d", name, (int)d->type);
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
static int apply_options(spec_handles *h, const vx_jdoc *doc, const vx_jv *obj, const char *where, const char *group,
                         const char *skip, const char *rename_from, const char *rename_to)
{
    for (const vx_jv *k = vx_jfirst(obj); k < vx_jend(obj); k = vx_jskip(k + 1)) {
        const char *name = vx_jstr(doc, k), *oname = name;
        size_t len = k->u.s.len;
        if (skip && strcmp(name, skip) == 0) continue;
        if (rename_from && strcmp(name, rename_from) == 0) oname = rename_to, len = strlen(rename_to);
        const vx_option_def *d = find_option(group, oname, len);
        if (!d) return fail_unknown_key(where, name, group, NULL, 0);
        int rc = set_option(h, doc, where, name, d, k + 1);
        if (rc) return rc;
    }
    return VRAMEST_OK;
}

static int expect_object(const vx_jv *v, const char *where)
{
    if (v->type != VX_J_OBJ)
        return vx_fail(VRAMEST_E_TYPE, "spec: \"%s\" must be an object, got %s", where, vx_jkind(v));
    return VRAMEST_OK;
}

/* ---- the objects ---- */

static int read_model(spec_handles *h, const vx_jdoc *doc, const vx_jv *v)
{
    int rc;
    char qb[80];
    if (v->type == VX_J_STR) {
        const char *name;
        if ((rc = get_cstr(doc, v, "spec", "model", &name))) return rc;
        if ((rc = vramest_model_new_preset(name, &h->m))) return vx_fail_prefix(rc, "spec: model: ");
        return VRAMEST_OK;
    }
    if (v->type != VX_J_OBJ)
        return vx_fail(VRAMEST_E_TYPE, "spec: \"model\" must be a preset name or an object, got %s", vx_jkind(v));
    /* One source per model object keeps the meaning obvious; merging several
     * sources is the C API's vramest_model_parse(), called repeatedly. */
    if (v->u.c.count != 1) {
        if (v->u.c.count == 0)
            return vx_fail(VRAMEST_E_INVALID_ARG,
                           "spec: \"model\" is empty: give one of hf_config, hf_config_file, safetensors, gguf, path, "
                           "arch");
        char qa[80];
        const vx_jv *a = vx_jfirst(v), *b = vx_jskip(a + 1);
        return vx_fail(VRAMEST_E_CONFLICT, "spec: \"model\" takes exactly one source, got \"%s\" and \"%s\"",
                       Q(vx_jstr(doc, a), qa), Q(vx_jstr(doc, b), qb));
    }
    const vx_jv *k = vx_jfirst(v), *sv = k + 1;
    const char *src = vx_jstr(doc, k);
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
        return apply_options(h, doc, sv, "model.arch", "model", NULL, NULL, NULL);
    }
    if (strcmp(src, "hf_config") == 0) {
        if ((rc = expect_object(sv, "model.hf_config"))) return rc;
        /* Straight from the tape: byte offsets in messages are the spec's. */
        if ((rc = vx_hf_config_apply(h->m, doc, sv))) return vx_fail_prefix(rc, prefix);
        return VRAMEST_OK;
    }
    /* The rest name a file. */
    const char *path;
    if (sv->type != VX_J_STR)
        return vx_fail(VRAMEST_E_TYPE, "spec: model.%s: expected a path string, got %s", src, vx_jkind(sv));
    if ((rc = get_cstr(doc, sv, "model", src, &path))) return rc;
    if (!*path) return vx_fail(VRAMEST_E_INVALID_ARG, "spec: model.%s: empty path", src);
    if ((rc = vramest_model_parse_file(h->m, vx_spec_source_kind(src, path), path))) return vx_fail_prefix(rc, prefix);
    return VRAMEST_OK;
}

vramest_source vx_spec_source_kind(const char *src, const char *path)
{
    if (strcmp(src, "hf_config_file") == 0) return VRAMEST_SRC_HF_CONFIG_JSON;
    if (strcmp(src, "gguf") == 0) return VRAMEST_SRC_GGUF_HEADER;
    if (strcmp(src, "safetensors") == 0) {
        size_t l = strlen(path);
        return l >= 5 && vx_strcasecmp(path + l - 5, ".json") == 0 ? VRAMEST_SRC_SAFETENSORS_INDEX
                                                                   : VRAMEST_SRC_SAFETENSORS_HEADER;
    }
    return VRAMEST_SRC_AUTO;
}

static int read_precision(spec_handles *h, const vx_jdoc *doc, const vx_jv *v)
{
    int rc;
    if (v->type == VX_J_STR) {
        const char *name;
        if ((rc = get_cstr(doc, v, "spec", "precision", &name))) return rc;
        if ((rc = vramest_precision_new_preset(name, &h->p))) return vx_fail_prefix(rc, "spec: precision: ");
        return VRAMEST_OK;
    }
    if (v->type != VX_J_OBJ)
        return vx_fail(VRAMEST_E_TYPE, "spec: \"precision\" must be a preset name or an object, got %s",
                       vx_jkind(v));
    if ((rc = vramest_precision_new(&h->p))) return rc;
    /* The preset is the base the other keys adjust, wherever it is written. */
    const vx_jv *preset = vx_jget(doc, v, "preset");
    if (preset) {
        const char *name;
        if (preset->type != VX_J_STR)
            return vx_fail(VRAMEST_E_TYPE, "spec: precision.preset: expected a preset name, got %s",
                           vx_jkind(preset));
        if ((rc = get_cstr(doc, preset, "precision", "preset", &name))) return rc;
        if ((rc = vramest_precision_apply_preset(h->p, name))) return vx_fail_prefix(rc, "spec: precision: ");
    }
    return apply_options(h, doc, v, "precision", "precision", "preset", NULL, NULL);
}

static int read_device(spec_handles *h, const vx_jdoc *doc, const vx_jv *v)
{
    if (v->type == VX_J_STR) {
        const vx_option_def *d = find_option("device", "device", 6);
        if (!d) return vx_fail(VRAMEST_E_INTERNAL, "spec: the registry has no \"device\" option");
        return set_option(h, doc, "device", "device", d, v);
    }
    if (v->type != VX_J_OBJ)
        return vx_fail(VRAMEST_E_TYPE, "spec: \"device\" must be a GPU name or an object, got %s", vx_jkind(v));
    return apply_options(h, doc, v, "device", "device", NULL, "name", "device");
}

static int read_solve(const vx_jdoc *doc, const vx_jv *v, vx_spec_solve *solve)
{
    int rc;
    char qb[80];
    if ((rc = expect_object(v, "solve"))) return rc;
    static const char *const solve_members[] = {"max", "advice"};
    bool advice = false;
    const char *max = NULL;
    for (const vx_jv *k = vx_jfirst(v); k < vx_jend(v); k = vx_jskip(k + 1)) {
        const char *name = vx_jstr(doc, k);
        const vx_jv *sv = k + 1;
        if (strcmp(name, "max") == 0) {
            if (sv->type != VX_J_STR)
                return vx_fail(VRAMEST_E_TYPE, "spec: solve.max: expected an option name, got %s", vx_jkind(sv));
            const char *s;
            if ((rc = get_cstr(doc, sv, "solve", "max", &s))) return rc;
            for (size_t i = 0; i < VX_ARRAY_LEN(solve_keys); i++)
                if (strcmp(s, solve_keys[i]) == 0) max = solve_keys[i];
            if (!max)
                return vx_fail(VRAMEST_E_UNKNOWN_NAME,
                               "spec: solve.max: cannot search \"%s\" (valid: batch_size, seq_len, prompt_len, "
                               "gen_len, gpus, beams, lora_rank, max_num_seqs, max_model_len, n_ctx, "
                               "rollout_batch_size, num_generations, micro_batch_size)",
                               Q(s, qb));
        } else if (strcmp(name, "advice") == 0) {
            if (sv->type != VX_J_TRUE && sv->type != VX_J_FALSE)
                return vx_fail(VRAMEST_E_TYPE, "spec: solve.advice: expected true or false, got %s", vx_jkind(sv));
            advice = sv->type == VX_J_TRUE;
        } else {
            return fail_unknown_key("solve", name, NULL, solve_members, VX_ARRAY_LEN(solve_members));
        }
    }
    if (max && advice)
        return vx_fail(VRAMEST_E_CONFLICT, "spec: \"solve\" asks one question: \"max\" or \"advice\", not both");
    if (max) {
        const vx_option_def *d = vx_option_find_name(max);
        if (!d) return vx_fail(VRAMEST_E_INTERNAL, "spec: the registry has no \"%s\" option", max);
        solve->kind = VX_SOLVE_MAX;
        solve->key = d->key;
        solve->name = max;
    } else if (advice) {
        solve->kind = VX_SOLVE_ADVICE;
        solve->name = "advice";
    } else if (v->u.c.count == 0) {
        return vx_fail(VRAMEST_E_INVALID_ARG, "spec: \"solve\" is empty: ask {\"max\": \"batch_size\"} or "
                                              "{\"advice\": true}");
    }
    return VRAMEST_OK;
}

/* A model of its own for a role (vramest_role): {"model": <a preset name
 * or a model source object, as the spec's "model">, "precision": <as the
 * spec's "precision", optional: the job's when absent>}. The config keeps
 * copies (vramest_config_set_role_model), so both are freed here. */
static void free_handles(spec_handles *h);

static int read_role_model(spec_handles *h, const vx_jdoc *doc, const char *where, int role, const vx_jv *v)
{
    const vx_jv *mv = vx_jget(doc, v, "model"), *pv = vx_jget(doc, v, "precision");
    if (!mv || v->u.c.count != 1u + (pv != NULL))
        return vx_fail(VRAMEST_E_INVALID_ARG,
                       "spec: %s: give {\"model\": ..., \"precision\": ...} (the model a preset name or a model source "
                       "object, the precision optional), or a name",
                       where);
    spec_handles r = {NULL, NULL, NULL, false};
    int rc = vx_spec_model(doc, mv, &r.m);
    if (!rc && pv) rc = read_precision(&r, doc, pv);
    if (!rc) rc = vramest_config_set_role_model(h->c, role, r.m, r.p);
    free_handles(&r);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "spec: %s: ", where);
    return rc ? vx_fail_prefix(rc, prefix) : VRAMEST_OK;
}

/* The "rl" object (issue #23): its members are options of group "rl";
 * the members of its "rollout" object are the rollout_* options. A null
 * member keeps the default ("critic": null is no critic); true and false
 * of an auto/off/on setting are on and off. The reference, reward and
 * critic take a model of their own in place of a name. */
static int set_rl_member(spec_handles *h, const vx_jdoc *doc, const char *where, const char *name, const char *oname,
                         const vx_jv *v)
{
    if (v->type == VX_J_NULL) return VRAMEST_OK;
    const vx_option_def *d = find_option("rl", oname, strlen(oname));
    if (!d) return fail_unknown_key(where, name, "rl", NULL, 0);
    if (v->type == VX_J_OBJ) {
        static const struct {
            vramest_option key;
            int role;
            const char *where;
        } roles[] = {{VRAMEST_CFG_RL_REFERENCE, VRAMEST_ROLE_REFERENCE, "rl.reference"},
                     {VRAMEST_CFG_RL_REWARD, VRAMEST_ROLE_REWARD, "rl.reward"},
                     {VRAMEST_CFG_RL_CRITIC, VRAMEST_ROLE_CRITIC, "rl.critic"}};
        for (size_t i = 0; i < VX_ARRAY_LEN(roles); i++)
            if (d->key == roles[i].key) return read_role_model(h, doc, roles[i].where, roles[i].role, v);
        return vx_fail(VRAMEST_E_TYPE, "spec: %s.%s: expected a value, got an object", where, name);
    }
    const char *on = d->type == VRAMEST_TYPE_ENUM ? vramest_option_value_name(d->key, VX_TRI_ON) : NULL;
    if ((v->type == VX_J_TRUE || v->type == VX_J_FALSE) && on && strcmp(on, "on") == 0) {
        int rc = h_set_str(h, d, v->type == VX_J_TRUE ? "on" : "off");
        return rc ? vx_fail_prefix(rc, "spec: rl: ") : VRAMEST_OK;
    }
    return set_option(h, doc, where, name, d, v);
}

static int read_rl(spec_handles *h, const vx_jdoc *doc, const vx_jv *v)
{
    int rc;
    if ((rc = expect_object(v, "rl"))) return rc;
    for (const vx_jv *k = vx_jfirst(v); k < vx_jend(v); k = vx_jskip(k + 1)) {
        const char *name = vx_jstr(doc, k);
        const vx_jv *sv = k + 1;
        if (strcmp(name, "rollout") != 0) {
            if ((rc = set_rl_member(h, doc, "rl", name, name, sv))) return rc;
            continue;
        }
        if (sv->type == VX_J_NULL) continue;
        if ((rc = expect_object(sv, "rl.rollout"))) return rc;
        for (const vx_jv *rk = vx_jfirst(sv); rk < vx_jend(sv); rk = vx_jskip(rk + 1)) {
            const char *rname = vx_jstr(doc, rk);
            char oname[96], qb[80];
            if ((size_t)snprintf(oname, sizeof oname, "rollout_%s", rname) >= sizeof oname)
                return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "spec: unknown key \"%s\" in \"rl.rollout\"", Q(rname, qb));
            if ((rc = set_rl_member(h, doc, "rl.rollout", rname, oname, rk + 1))) return rc;
        }
    }
    return VRAMEST_OK;
}

/* ---- the document ---- */

int vx_spec_open(vx_jdoc *doc, const char *json, size_t len)
{
    /* Nothing to free unless vx_json_parse ran. */
    doc->v = NULL, doc->str = NULL;
    if (!json && len) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_spec_parse: json is NULL");
    if (len > VX_MAX_SPEC_BYTES)
        return vx_fail(VRAMEST_E_LIMIT, "spec: %zu bytes is larger than the %u bytes a job spec may have", len,
                       VX_MAX_SPEC_BYTES);
    int rc = vx_json_parse(doc, json ? json : "", len, "spec");
    if (rc) return rc;
    const vx_jv *root = vx_jroot(doc);
    if (root->type != VX_J_OBJ)
        return vx_fail(VRAMEST_E_TYPE, "spec: the document must be a JSON object, got %s", vx_jkind(root));
    for (const vx_jv *k = vx_jfirst(root); k < vx_jend(root); k = vx_jskip(k + 1)) {
        const char *name = vx_jstr(doc, k);
        size_t i = 0;
        while (i < VX_ARRAY_LEN(top_keys) && strcmp(name, top_keys[i]) != 0) i++;
        if (i == VX_ARRAY_LEN(top_keys)) return fail_unknown_key("spec", name, NULL, top_keys, VX_ARRAY_LEN(top_keys));
    }
    if (!vx_jget(doc, root, "model"))
        return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "spec: \"model\" is required (a preset name or a source object)");
    return VRAMEST_OK;
}

static void free_handles(spec_handles *h)
{
    vramest_model_free(h->m);
    vramest_precision_free(h->p);
    vramest_config_free(h->c);
    *h = (spec_handles){NULL, NULL, NULL, false};
}

int vx_spec_settings(const vx_jdoc *doc, vramest_precision **out_prec, vramest_config **out_cfg,
                     vx_spec_solve *out_solve)
{
    const vx_jv *root = vx_jroot(doc), *v;
    spec_handles h = {NULL, NULL, NULL, false};
    vx_spec_solve solve = {VX_SOLVE_NONE, (vramest_option)0, NULL};
    int rc = VRAMEST_OK;
    /* Cheap checks first, file reads (model sources) last. */
    if ((v = vx_jget(doc, root, "solve")) && (rc = read_solve(doc, v, &solve))) goto out;
    if ((v = vx_jget(doc, root, "precision")))
        rc = read_precision(&h, doc, v);
    else
        rc = vramest_precision_new(&h.p);
    if (rc || (rc = vramest_config_new(&h.c))) goto out;
    /* A fixed order, so the result never depends on how the document is laid out. */
    static const char *const cfg_objects[] = {"workload", "parallel", "runtime"};
    for (size_t i = 0; i < VX_ARRAY_LEN(cfg_objects); i++) {
        if (!(v = vx_jget(doc, root, cfg_objects[i]))) continue;
        if ((rc = expect_object(v, cfg_objects[i]))) goto out;
        /* runtime.draft_model: the draft of speculative decoding, a model of its own (issue #18) */
        const char *own = strcmp(cfg_objects[i], "runtime") == 0 ? "draft_model" : NULL;
        if ((rc = apply_options(&h, doc, v, cfg_objects[i], cfg_objects[i], own, NULL, NULL))) goto out;
        const vx_jv *dv = own ? vx_jget(doc, v, own) : NULL;
        if (dv && (rc = expect_object(dv, "runtime.draft_model"))) goto out;
        if (dv && (rc = read_role_model(&h, doc, "runtime.draft_model", VRAMEST_ROLE_DRAFT, dv))) goto out;
    }
    if ((v = vx_jget(doc, root, "device")) && (rc = read_device(&h, doc, v))) goto out;
    if ((v = vx_jget(doc, root, "rl")) && (rc = read_rl(&h, doc, v))) goto out;
out:
    if (rc) {
        free_handles(&h);
        return rc;
    }
    *out_prec = h.p;
    *out_cfg = h.c;
    *out_solve = solve;
    return VRAMEST_OK;
}

int vx_spec_model(const vx_jdoc *doc, const vx_jv *v, vramest_model **out)
{
    spec_handles h = {NULL, NULL, NULL, false};
    int rc = read_model(&h, doc, v);
    if (!rc && h.rebuild) vx_model_rebuild(h.m); /* its status is validate's to report */
    if (!rc && (rc = vramest_model_validate(h.m))) rc = vx_fail_prefix(rc, "spec: model: ");
    if (rc) {
        free_handles(&h);
        return rc;
    }
    *out = h.m;
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
    vx_jdoc doc;
    int rc = vx_spec_open(&doc, json, len);
    if (!rc) rc = vx_spec_settings(&doc, out_prec, out_cfg, out_solve);
    /* the caller has this model already when it asks for none */
    if (!rc && out_model && (rc = vx_spec_model(&doc, vx_jget(&doc, vx_jroot(&doc), "model"), out_model))) {
        vramest_precision_free(*out_prec);
        vramest_config_free(*out_cfg);
        *out_prec = NULL, *out_cfg = NULL;
        *out_solve = (vx_spec_solve){VX_SOLVE_NONE, (vramest_option)0, NULL};
    }
    vx_json_free(&doc);
    return rc;
}

VRAMEST_API int vramest_spec_parse(const char *json, size_t len, vramest_model **out_model,
                                   vramest_precision **out_prec, vramest_config **out_cfg)
{
    vx_spec_solve solve;
    return vx_spec_read(json, len, out_model, out_prec, out_cfg, &solve);
}
