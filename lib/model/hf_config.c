/* Hugging Face config.json -> model options. Every value goes through the
 * option setters, so bounds and types are checked in one place; this file
 * only knows where config.json files disagree with the option vocabulary
 * (family-specific keys, nulls, key aliases that collide). config.json files
 * carry many keys irrelevant to memory (token ids, rope scaling, generation
 * settings): unknown keys are ignored, never errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/hf_config.h"
#include "common/jsonlimit.h"

#define H_MODEL VRAMEST_HANDLE_MODEL
#define MAX_CONFIG_BYTES VX_MAX_SPEC_BYTES /* a config.json is a few KiB */

/* One config.json being mapped (a family's config hook sees it through
 * the vx_cfgmap_* functions). */
typedef struct vx_cfgmap {
    vx_arch a;
    uint64_t bits[VX_SET_WORDS];
    bool assigned[64 * VX_SET_WORDS]; /* options this file gave, by table slot */
    json_object *root;
    const char *model_type;           /* as the file spells it ("" if absent) */
} pstate;

static const char *json_type_label(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return "null";
    case json_type_boolean: return "bool";
    case json_type_double: return "number";
    case json_type_int: return "integer";
    case json_type_object: return "object";
    case json_type_array: return "array";
    case json_type_string: return "string";
    default: return "?";
    }
}

static int type_error(const char *key, const char *expected, json_object *v)
{
    return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s': expected %s, got %s", key, expected, json_type_label(v));
}

/* The setter's message names the option; say which config.json key it came from. */
static int keyed(int rc, const char *key)
{
    if (rc == VRAMEST_OK) return rc;
    char prefix[128];
    snprintf(prefix, sizeof prefix, "config.json: key '%.80s': ", key);
    return vx_fail_prefix(rc, prefix);
}

static bool is_set(const pstate *p, vramest_option k)
{
    return vx_opt_is_set(p->bits, H_MODEL, k);
}

/* Whether this file gave the option (under any of its names). */
static bool given(const pstate *p, vramest_option k)
{
    size_t slot;
    return vx_option_find(k, &slot) && slot < VX_ARRAY_LEN(p->assigned) && p->assigned[slot];
}

static int set_i64(pstate *p, vramest_option k, int64_t v, const char *key)
{
    return keyed(vx_opt_set_i64(&p->a, p->bits, H_MODEL, k, v), key);
}

/* Store one JSON value into option `d` (slot `slot`). */
static int apply(pstate *p, const vx_option_def *d, size_t slot, const char *key, json_object *v)
{
    vramest_option k = d->key;
    enum json_type t = json_object_get_type(v);
    p->assigned[slot] = true;
    if (t == json_type_null) return keyed(vx_opt_reset(&p->a, p->bits, H_MODEL, k), key);

    switch (d->type) {
    case VRAMEST_TYPE_I64:
        /* "sliding_window": false means no window in some configs. */
        if (t == json_type_boolean && k == VRAMEST_MODEL_SLIDING_WINDOW && !json_object_get_boolean(v))
            return keyed(vx_opt_reset(&p->a, p->bits, H_MODEL, k), key);
        if (t == json_type_int) return set_i64(p, k, json_object_get_int64(v), key);
        if (t == json_type_double)
            return keyed(vx_opt_set_f64(&p->a, p->bits, H_MODEL, k, json_object_get_double(v)), key);
        return type_error(key, "integer", v);
    case VRAMEST_TYPE_BOOL:
        if (t == json_type_boolean) return set_i64(p, k, json_object_get_boolean(v) ? 1 : 0, key);
        if (t == json_type_int) return set_i64(p, k, json_object_get_int64(v), key);
        return type_error(key, "true or false", v);
    case VRAMEST_TYPE_F64:
        if (t == json_type_int || t == json_type_double)
            return keyed(vx_opt_set_f64(&p->a, p->bits, H_MODEL, k, json_object_get_double(v)), key);
        return type_error(key, "number", v);
    case VRAMEST_TYPE_ENUM: {
        if (t != json_type_string) return type_error(key, "string", v);
        const char *s = json_object_get_string(v);
        int rc = vx_opt_set_str(&p->a, p->bits, H_MODEL, k, s);
        /* An activation we do not know by name changes no tensor: keep the
         * family's rather than refuse a real checkpoint's config. */
        if (rc == VRAMEST_E_UNKNOWN_NAME && k == VRAMEST_MODEL_HIDDEN_ACT) return VRAMEST_OK;
        return keyed(rc, key);
    }
    case VRAMEST_TYPE_STRING:
        if (k == VRAMEST_MODEL_ARCHITECTURES && t == json_type_array) {
            if (json_object_array_length(v) == 0) return keyed(vx_opt_reset(&p->a, p->bits, H_MODEL, k), key);
            json_object *first = json_object_array_get_idx(v, 0);
            if (json_object_get_type(first) != json_type_string) return type_error(key, "array of strings", v);
            return keyed(vx_opt_set_str(&p->a, p->bits, H_MODEL, k, json_object_get_string(first)), key);
        }
        if (t != json_type_string) return type_error(key, "string", v);
        return keyed(vx_opt_set_str(&p->a, p->bits, H_MODEL, k, json_object_get_string(v)), key);
    default: return vx_fail(VRAMEST_E_INTERNAL, "config.json: key '%s': option of unknown type", key);
    }
}

/* Keys whose meaning depends on the family, or that set several options. */
static int apply_bool_pair(pstate *p, json_object *root, const char *key, vramest_option k1, vramest_option k2)
{
    json_object *v;
    if (!json_object_object_get_ex(root, key, &v) || json_object_get_type(v) == json_type_null) return VRAMEST_OK;
    if (json_object_get_type(v) != json_type_boolean) return type_error(key, "true or false", v);
    int b = json_object_get_boolean(v) ? 1 : 0;
    int rc = VRAMEST_OK;
    if (k1 && !given(p, k1)) rc = set_i64(p, k1, b, key);
    if (!rc && k2 && !given(p, k2)) rc = set_i64(p, k2, b, key);
    return rc;
}

/* A family's own key (vx_cfg_key in its row). */
static int apply_family_key(pstate *p, json_object *root, const vx_cfg_key *k)
{
    json_object *v;
    if (k->how == VX_CK_BOOL_PAIR) return apply_bool_pair(p, root, k->key, k->opt[0], k->opt[1]);
    if (!json_object_object_get_ex(root, k->key, &v) || json_object_get_type(v) == json_type_null) return VRAMEST_OK;
    if (k->how == VX_CK_INT_FORCE) {
        if (json_object_get_type(v) != json_type_int) return VRAMEST_OK;
        return set_i64(p, k->opt[0], json_object_get_int64(v), k->key);
    }
    if (given(p, k->opt[0])) return VRAMEST_OK;
    enum json_type t = json_object_get_type(v);
    if (k->how == VX_CK_F64_SOFT) {
        if (t != json_type_int && t != json_type_double) return type_error(k->key, "number", v);
        return keyed(vx_opt_set_f64(&p->a, p->bits, H_MODEL, k->opt[0], json_object_get_double(v)), k->key);
    }
    if (t != json_type_int) return type_error(k->key, "integer", v);
    return set_i64(p, k->opt[0], json_object_get_int64(v), k->key);
}

static int family_keys(pstate *p, json_object *root)
{
    int rc = VRAMEST_OK;
    json_object *v;
    const vx_family *f = vx_family_of(p->a.model_type);
    if (f) {
        for (size_t i = 0; i < VX_FAMILY_KEYS && f->keys[i].key; i++)
            if ((rc = apply_family_key(p, root, &f->keys[i]))) return rc;
        if (f->config && (rc = f->config(p))) return rc;
    }
    /* Partial rotary (Phi, GPT-NeoX, StableLM) as a fraction of the head. */
    const char *rk = json_object_object_get_ex(root, "partial_rotary_factor", &v) ? "partial_rotary_factor"
                     : json_object_object_get_ex(root, "rotary_pct", &v)          ? "rotary_pct"
                                                                                  : NULL;
    if (rk && !given(p, VRAMEST_MODEL_ROTARY_DIM) &&
        (json_object_get_type(v) == json_type_double || json_object_get_type(v) == json_type_int)) {
        double fr = json_object_get_double(v);
        const vx_arch *a = &p->a;
        int64_t hd = a->head_dim > 0 ? a->head_dim
                     : (a->num_attention_heads > 0 ? a->hidden_size / a->num_attention_heads : 0);
        if (!(fr > 0.0 && fr <= 1.0))
            return vx_fail(VRAMEST_E_RANGE, "config.json: key '%s': %g is not in (0, 1]", rk, fr);
        if (hd > 0 && (rc = set_i64(p, VRAMEST_MODEL_ROTARY_DIM, (int64_t)(fr * (double)hd), rk))) return rc;
    }
    /* transformers saves the label map, not num_labels. */
    if (!given(p, VRAMEST_MODEL_NUM_LABELS) && json_object_object_get_ex(root, "id2label", &v) &&
        json_object_get_type(v) == json_type_object && json_object_object_length(v) > 0)
        if ((rc = set_i64(p, VRAMEST_MODEL_NUM_LABELS, json_object_object_length(v), "id2label"))) return rc;
    return rc;
}

/* ---- what a family's config hook may do (hf_config.h) ---- */

const char *vx_cfgmap_model_type(const struct vx_cfgmap *m)
{
    return m->model_type;
}

bool vx_cfgmap_given(const struct vx_cfgmap *m, vramest_option k)
{
    return given(m, k);
}

int vx_cfgmap_string(struct vx_cfgmap *m, const char *key, const char **out)
{
    json_object *v;
    *out = NULL;
    if (!json_object_object_get_ex(m->root, key, &v) || json_object_get_type(v) == json_type_null) return VRAMEST_OK;
    if (json_object_get_type(v) != json_type_string) return type_error(key, "string", v);
    *out = json_object_get_string(v);
    return VRAMEST_OK;
}

int vx_cfgmap_set_i64(struct vx_cfgmap *m, vramest_option k, int64_t v, const char *key)
{
    return set_i64(m, k, v, key);
}

int vx_cfgmap_set_name(struct vx_cfgmap *m, vramest_option k, const char *name, const char *key)
{
    int rc = vx_opt_set_str(&m->a, m->bits, H_MODEL, k, name);
    /* A name we do not know changes no tensor (an activation): keep the family's. */
    if (rc == VRAMEST_E_UNKNOWN_NAME) rc = VRAMEST_OK;
    return keyed(rc, key);
}

/* Find the model option a config.json key names: by canonical name (pass 0)
 * or by alias (pass 1). */
static const vx_option_def *find_key(const char *key, int pass, size_t *slot)
{
    for (size_t i = 0; i < vx_model_option_count; i++) {
        const vx_option_def *d = &vx_model_options[i];
        if (pass == 0 ? !strcmp(d->name, key) : vx_in_list(d->aliases, key)) {
            *slot = i;
            return d;
        }
    }
    return NULL;
}

static int unknown_model_type(const char *name)
{
    char list[600];
    size_t used = 0;
    list[0] = '\0';
    for (const vx_enum_name *e = vx_family_enum; e->name && used + 24 < sizeof list; e++)
        if (e->name[0])
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", e->name);
    return vx_fail(VRAMEST_E_UNKNOWN_MODEL_TYPE, "config.json: model_type '%.100s' is not supported (supported: %s)",
                   name, list);
}

static int map_config(pstate *p, json_object *root)
{
    json_object *v;
    const char *model_type = "";
    int rc;
    p->root = root;
    p->model_type = "";

    if (json_object_object_get_ex(root, "vision_config", &v) && json_object_get_type(v) == json_type_object)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "config.json: a multimodal model (key 'vision_config'); only text models are supported");
    if (json_object_object_get_ex(root, "model_type", &v) && json_object_get_type(v) != json_type_null) {
        if (json_object_get_type(v) != json_type_string) return type_error("model_type", "string", v);
        model_type = json_object_get_string(v);
        p->model_type = model_type;
        rc = vx_opt_set_str(&p->a, p->bits, H_MODEL, VRAMEST_MODEL_MODEL_TYPE, model_type);
        if (rc == VRAMEST_E_UNKNOWN_NAME) return unknown_model_type(model_type);
        if (rc) return keyed(rc, "model_type");
        p->assigned[0] = true;
    } else if (!is_set(p, VRAMEST_MODEL_MODEL_TYPE)) {
        return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "config.json: key 'model_type' is missing");
    }

    /* Canonical names first, so that where a file gives both (Gemma's
     * hidden_act and hidden_activation) the option's own name wins; nulls
     * last, so that a null alias ("max_sequence_length": null next to
     * "n_positions": 8192) does not unset what another key gives. */
    for (int pass = 0; pass < 3; pass++) {
        json_object_object_foreach(root, key, val)
        {
            size_t slot;
            const vx_option_def *d = find_key(key, pass == 1, &slot);
            if (!d && pass == 2) d = find_key(key, 1, &slot);
            if (!d || d->key == VRAMEST_MODEL_MODEL_TYPE || p->assigned[slot]) continue;
            if ((json_object_get_type(val) == json_type_null) != (pass == 2)) continue;
            if ((rc = apply(p, d, slot, key, val))) return rc;
        }
    }
    return family_keys(p, root);
}

static int parse_root(const char *buf, size_t len, json_object **out)
{
    *out = NULL;
    if (len > MAX_CONFIG_BYTES)
        return vx_fail(VRAMEST_E_LIMIT, "config.json: %zu bytes is more than the %u accepted", len,
                       (unsigned)MAX_CONFIG_BYTES);
    size_t start = 0;
    while (start < len && (buf[start] == ' ' || buf[start] == '\t' || buf[start] == '\n' || buf[start] == '\r'))
        start++;
    if (start == len) return vx_fail(VRAMEST_E_PARSE, "config.json: empty input");
    if (buf[start] != '{')
        return vx_fail(VRAMEST_E_PARSE, "config.json: byte %zu: the top-level value must be an object", start);
    int lrc = vx_json_check_size(buf, len, "config.json");
    if (lrc) return lrc;

    json_tokener *tok = json_tokener_new_ex(VX_MAX_JSON_DEPTH);
    if (!tok) return vx_fail(VRAMEST_E_NOMEM, "config.json: out of memory");
    json_object *root = json_tokener_parse_ex(tok, buf, (int)len);
    enum json_tokener_error err = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    int rc = VRAMEST_OK;
    if (!root) {
        if (err == json_tokener_continue)
            rc = vx_fail(VRAMEST_E_PARSE, "config.json: unexpected end of data at byte %zu (truncated file?)", len);
        else if (err == json_tokener_error_depth)
            rc = vx_fail(VRAMEST_E_LIMIT, "config.json: byte %zu: nesting deeper than %d levels", end,
                         VX_MAX_JSON_DEPTH);
        else
            rc = vx_fail(VRAMEST_E_PARSE, "config.json: byte %zu: %s", end, json_tokener_error_desc(err));
    } else {
        for (size_t i = end; i < len && rc == VRAMEST_OK; i++)
            if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r' && buf[i] != '\0')
                rc = vx_fail(VRAMEST_E_PARSE, "config.json: byte %zu: unexpected data after the top-level object", i);
        if (rc == VRAMEST_OK && json_object_get_type(root) != json_type_object)
            rc = vx_fail(VRAMEST_E_PARSE, "config.json: the top-level value must be an object");
    }
    json_tokener_free(tok);
    if (rc) {
        json_object_put(root);
        return rc;
    }
    *out = root;
    return VRAMEST_OK;
}

/* quantization_config.quant_method: every estimate says when the precision
 * does not store the weights that way (estimate/model_notes.c). Kept only
 * as a short name of [A-Za-z0-9_.-]. */
static void declared_quant(json_object *root, char *out, size_t cap)
{
    out[0] = '\0';
    json_object *q, *qm;
    if (!json_object_object_get_ex(root, "quantization_config", &q) || json_object_is_type(q, json_type_null)) return;
    const char *name = json_object_is_type(q, json_type_object) && json_object_object_get_ex(q, "quant_method", &qm) &&
                               json_object_is_type(qm, json_type_string)
                           ? json_object_get_string(qm)
                           : "";
    size_t n = strlen(name);
    bool plain = n > 0 && n < cap;
    for (size_t i = 0; plain && i < n; i++)
        plain = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
                (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-' || name[i] == '.';
    snprintf(out, cap, "%s", plain ? name : "(unnamed)");
}

int vx_parse_hf_config(struct vramest_model *m, const char *buf, size_t len)
{
    if (!m || (!buf && len)) return vx_fail(VRAMEST_E_INVALID_ARG, "vx_parse_hf_config: NULL argument");
    json_object *root;
    int rc = parse_root(buf ? buf : "", len, &root);
    if (rc) return rc;

    /* Work on a copy; the model changes only once everything resolved. */
    pstate *p = calloc(1, sizeof *p);
    if (!p) {
        json_object_put(root);
        return vx_fail(VRAMEST_E_NOMEM, "config.json: out of memory");
    }
    p->a = m->a;
    memcpy(p->bits, m->set_bits, sizeof p->bits);
    rc = map_config(p, root);
    char quant[sizeof m->declared_quant];
    declared_quant(root, quant, sizeof quant);
    json_object_put(root);

    if (rc == VRAMEST_OK) {
        struct vramest_model tmp = *m;
        tmp.a = p->a;
        memcpy(tmp.set_bits, p->bits, sizeof tmp.set_bits);
        vx_shape shape;
        rc = vx_shape_resolve(&tmp, &shape, &tmp.layers);
        if (rc) vx_fail_prefix(rc, "config.json: ");
    }
    if (rc == VRAMEST_OK) {
        vx_arch old = m->a;
        uint64_t old_bits[VX_SET_WORDS];
        memcpy(old_bits, m->set_bits, sizeof old_bits);
        m->a = p->a;
        memcpy(m->set_bits, p->bits, sizeof m->set_bits);
        memcpy(m->declared_quant, quant, sizeof quant);
        rc = vx_model_rebuild(m);
        if (rc) {
            char msg[256];
            vx_strlcpy(msg, m->status_msg, sizeof msg);
            m->a = old;
            memcpy(m->set_bits, old_bits, sizeof m->set_bits);
            vx_model_rebuild(m);
            rc = vx_fail(rc, "config.json: %s", msg);
        }
    }
    free(p);
    return rc;
}
