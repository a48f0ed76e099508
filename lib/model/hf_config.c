/* Hugging Face config.json -> model options. Every value goes through the
 * option setters, so bounds and types are checked in one place; this file
 * only knows where config.json files disagree with the option vocabulary
 * (family-specific keys, nulls, key aliases that collide). config.json files
 * carry many keys irrelevant to memory (token ids, rope scaling, generation
 * settings): unknown keys are ignored, never errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_reader.h"
#include "model/ckpt_quant.h"
#include "model/hf_config.h"
#include "model/tower.h"

#define H_MODEL VRAMEST_HANDLE_MODEL
#define MAX_CONFIG_BYTES VX_MAX_SPEC_BYTES /* a config.json is a few KiB */

/* One config.json being mapped (a family's config hook sees it through
 * the vx_cfgmap_* functions). */
typedef struct vx_cfgmap {
    vx_arch a;
    uint64_t bits[VX_SET_WORDS];
    bool assigned[64 * VX_SET_WORDS]; /* options this file gave, by table slot */
    const vx_jdoc *doc;
    const vx_jv *root;
    const char *model_type;           /* as the file spells it ("" if absent) */
    vx_tower tower;                   /* a multimodal wrapper's tower (model/tower.h) */
    bool gave_type;                   /* the file has a model_type */
    char family_note[VX_NOTE_LEN];    /* the file's model_type stood in for by the generic decoder */
    char config_note[VX_NOTE_LEN];    /* what the reader left out (a wrapper's vision tower) */
} pstate;

static const char *json_type_label(const vx_jv *v)
{
    switch (v->type) {
    case VX_J_NULL: return "null";
    case VX_J_TRUE:
    case VX_J_FALSE: return "bool";
    case VX_J_NUM: return "number";
    case VX_J_INT: return "integer";
    case VX_J_OBJ: return "object";
    case VX_J_ARR: return "array";
    case VX_J_STR: return "string";
    default: return "?";
    }
}

static int type_error(const char *key, const char *expected, const vx_jv *v)
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

/* A string value as a C string: one holding U+0000 is refused, never cut. */
static int str_of(const pstate *p, const char *key, const vx_jv *v, const char **out)
{
    if (!(v->flags & VX_JF_NUL)) return *out = vx_jstr(p->doc, v), VRAMEST_OK;
    char where[128];
    snprintf(where, sizeof where, "config.json: key '%.80s'", key);
    return vx_jcstr(p->doc, v, where, out);
}

/* An integer value (numbers parsed once: json_reader.h says which are).
 * Messages name the key and what is wrong, not the file's text. */
static int int_of(const char *key, const vx_jv *v, int64_t *out)
{
    switch (vx_jnum_i64(v, out)) {
    case VRAMEST_OK: return VRAMEST_OK;
    case VX_JN_NOT_NUMBER: return type_error(key, "integer", v);
    case VX_JN_TOO_BIG:
        return vx_fail(VRAMEST_E_RANGE, "config.json: key '%s': an integer beyond 64 bits (or a float form of one "
                                        "beyond 2^53)", key);
    case VX_JN_NONFINITE:
        return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s': expected integer, got NaN or an infinity", key);
    default: return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s': expected integer, got a fraction", key);
    }
}

/* A finite number; NaN and the infinities Python writes are refused here,
 * where the value would be used. */
static int num_of(const char *key, const vx_jv *v, double *out)
{
    int rc = vx_jnum_f64(v, out);
    if (rc == VX_JN_NOT_NUMBER) return type_error(key, "number", v);
    if (rc) return vx_fail(VRAMEST_E_RANGE, "config.json: key '%s': NaN or an infinity is not a finite number", key);
    return VRAMEST_OK;
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
static int apply(pstate *p, const vx_option_def *d, size_t slot, const char *key, const vx_jv *v)
{
    vramest_option k = d->key;
    int t = v->type, rc;
    int64_t i;
    double f;
    const char *s;
    p->assigned[slot] = true;
    if (t == VX_J_NULL) return keyed(vx_opt_reset(&p->a, p->bits, H_MODEL, k), key);

    switch (d->type) {
    case VRAMEST_TYPE_I64:
        /* "sliding_window": false means no window in some configs. */
        if (t == VX_J_FALSE && k == VRAMEST_MODEL_SLIDING_WINDOW)
            return keyed(vx_opt_reset(&p->a, p->bits, H_MODEL, k), key);
        /* "auto" (Mamba's time_step_rank, Falcon-H1's mamba_d_head): the
         * value the class derives, which is the option's default. */
        if (t == VX_J_STR && !strcmp(vx_jstr(p->doc, v), "auto"))
            return keyed(vx_opt_reset(&p->a, p->bits, H_MODEL, k), key);
        /* 0 experts: the part is absent (Granite 4.0's dense models,
         * "num_local_experts": 0, "num_experts_per_tok": 0); any other 0
         * stays a range error naming the key (a 0-wide shared expert is
         * the option's own 0). */
        if (t == VX_J_INT && v->u.i == 0 &&
            (k == VRAMEST_MODEL_NUM_LOCAL_EXPERTS || k == VRAMEST_MODEL_NUM_EXPERTS_PER_TOK))
            return keyed(vx_opt_reset(&p->a, p->bits, H_MODEL, k), key);
        if ((rc = int_of(key, v, &i))) return rc;
        return set_i64(p, k, i, key);
    case VRAMEST_TYPE_BOOL:
        if (t == VX_J_TRUE || t == VX_J_FALSE) return set_i64(p, k, t == VX_J_TRUE, key);
        if (t == VX_J_INT) return set_i64(p, k, v->u.i, key);
        return type_error(key, "true or false", v);
    case VRAMEST_TYPE_F64:
        if ((rc = num_of(key, v, &f))) return rc;
        return keyed(vx_opt_set_f64(&p->a, p->bits, H_MODEL, k, f), key);
    case VRAMEST_TYPE_ENUM: {
        if (t != VX_J_STR) return type_error(key, "string", v);
        if ((rc = str_of(p, key, v, &s))) return rc;
        rc = vx_opt_set_str(&p->a, p->bits, H_MODEL, k, s);
        /* An activation we do not know by name changes no tensor: keep the
         * family's rather than refuse a real checkpoint's config. */
        if (rc == VRAMEST_E_UNKNOWN_NAME && k == VRAMEST_MODEL_HIDDEN_ACT) return VRAMEST_OK;
        return keyed(rc, key);
    }
    case VRAMEST_TYPE_STRING:
        if (k == VRAMEST_MODEL_ARCHITECTURES && t == VX_J_ARR) {
            if (v->u.c.count == 0) return keyed(vx_opt_reset(&p->a, p->bits, H_MODEL, k), key);
            const vx_jv *first = vx_jfirst(v);
            if (first->type != VX_J_STR) return type_error(key, "array of strings", v);
            if ((rc = str_of(p, key, first, &s))) return rc;
            return keyed(vx_opt_set_str(&p->a, p->bits, H_MODEL, k, s), key);
        }
        if (t != VX_J_STR) return type_error(key, "string", v);
        if ((rc = str_of(p, key, v, &s))) return rc;
        return keyed(vx_opt_set_str(&p->a, p->bits, H_MODEL, k, s), key);
    default: return vx_fail(VRAMEST_E_INTERNAL, "config.json: key '%s': option of unknown type", key);
    }
}

/* Keys whose meaning depends on the family, or that set several options. */
static int apply_bool_pair(pstate *p, const vx_jv *root, const char *key, vramest_option k1, vramest_option k2)
{
    const vx_jv *v = vx_jget(p->doc, root, key);
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_TRUE && v->type != VX_J_FALSE) return type_error(key, "true or false", v);
    int b = v->type == VX_J_TRUE;
    int rc = VRAMEST_OK;
    if (k1 && !given(p, k1)) rc = set_i64(p, k1, b, key);
    if (!rc && k2 && !given(p, k2)) rc = set_i64(p, k2, b, key);
    return rc;
}

/* A family's own key (vx_cfg_key in its row). */
static int apply_family_key(pstate *p, const vx_jv *root, const vx_cfg_key *k)
{
    if (k->how == VX_CK_BOOL_PAIR) return apply_bool_pair(p, root, k->key, k->opt[0], k->opt[1]);
    const vx_jv *v = vx_jget(p->doc, root, k->key);
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (k->how == VX_CK_INT_FORCE) {
        if (v->type != VX_J_INT) return VRAMEST_OK;
        return set_i64(p, k->opt[0], v->u.i, k->key);
    }
    if (given(p, k->opt[0])) return VRAMEST_OK;
    if (k->how == VX_CK_F64_SOFT) {
        double f;
        int rc = num_of(k->key, v, &f);
        return rc ? rc : keyed(vx_opt_set_f64(&p->a, p->bits, H_MODEL, k->opt[0], f), k->key);
    }
    if (v->type != VX_J_INT) return type_error(k->key, "integer", v);
    return set_i64(p, k->opt[0], v->u.i, k->key);
}

static int family_keys(pstate *p, const vx_jv *root)
{
    /* The hooks read the language model's own object (a wrapper's
     * text_config: Qwen3.5's layer_types). */
    p->root = root;
    int rc = vx_hf_layer_lists(p);
    const vx_jv *v;
    const vx_family *f = vx_family_of(p->a.model_type);
    if (rc) return rc;
    if (f) {
        for (size_t i = 0; i < VX_FAMILY_KEYS && f->keys[i].key; i++)
            if ((rc = apply_family_key(p, root, &f->keys[i]))) return rc;
        if (f->config && (rc = f->config(p))) return rc;
    }
    /* Partial rotary (Phi, GPT-NeoX, StableLM) as a fraction of the head. */
    const char *rk = (v = vx_jget(p->doc, root, "partial_rotary_factor")) ? "partial_rotary_factor"
                     : (v = vx_jget(p->doc, root, "rotary_pct"))          ? "rotary_pct"
                                                                          : NULL;
    if (rk && !given(p, VRAMEST_MODEL_ROTARY_DIM) && (v->type == VX_J_NUM || v->type == VX_J_INT)) {
        double fr = 0;
        const vx_arch *a = &p->a;
        int64_t hd = a->head_dim > 0 ? a->head_dim
                     : (a->num_attention_heads > 0 ? a->hidden_size / a->num_attention_heads : 0);
        if (vx_jnum_f64(v, &fr) || !(fr > 0.0 && fr <= 1.0))
            return vx_fail(VRAMEST_E_RANGE, "config.json: key '%s': the fraction is not in (0, 1]", rk);
        if (hd > 0 && (rc = set_i64(p, VRAMEST_MODEL_ROTARY_DIM, (int64_t)(fr * (double)hd), rk))) return rc;
    }
    /* transformers saves the label map, not num_labels. */
    if (!given(p, VRAMEST_MODEL_NUM_LABELS) && (v = vx_jget(p->doc, root, "id2label")) && v->type == VX_J_OBJ &&
        v->u.c.count > 0)
        if ((rc = set_i64(p, VRAMEST_MODEL_NUM_LABELS, v->u.c.count, "id2label"))) return rc;
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
    const vx_jv *v = vx_jget(m->doc, m->root, key);
    *out = NULL;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_STR) return type_error(key, "string", v);
    return str_of(m, key, v, out);
}

int vx_cfgmap_int(struct vx_cfgmap *m, const char *key, int64_t *out)
{
    const vx_jv *v = vx_jget(m->doc, m->root, key);
    *out = -1;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    return int_of(key, v, out);
}

int vx_cfgmap_ints(struct vx_cfgmap *m, const char *key, int64_t *out, size_t cap, size_t *n)
{
    const vx_jv *v = vx_jget(m->doc, m->root, key);
    *n = 0;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_ARR) return type_error(key, "array of integers", v);
    if (v->u.c.count > cap)
        return vx_fail(VRAMEST_E_LIMIT, "config.json: key '%s': %zu entries, at most %zu", key, (size_t)v->u.c.count,
                       cap);
    size_t i = 0;
    for (const vx_jv *e = vx_jfirst(v); e < vx_jend(v); e = vx_jskip(e)) {
        if (e->type != VX_J_INT) return type_error(key, "array of integers", v);
        out[i++] = e->u.i;
    }
    *n = i;
    return VRAMEST_OK;
}

/* The names a family knows, for the message about one it does not. */
static void letter_names(const vx_name_letter *map, char *known, size_t cap)
{
    size_t used = 0;
    known[0] = '\0';
    for (const vx_name_letter *q = map; q->name && used + 24 < cap; q++)
        used += (size_t)snprintf(known + used, cap - used, "%s'%s'", used ? ", " : "", q->name);
}

int vx_cfgmap_letters(struct vx_cfgmap *m, const char *key, const vx_name_letter *map, char *out, size_t cap,
                      size_t *n)
{
    const vx_jv *v = vx_jget(m->doc, m->root, key);
    *n = 0;
    out[0] = '\0';
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_ARR && v->type != VX_J_STR) return type_error(key, "array of strings or a string", v);
    const char *text = v->type == VX_J_STR ? vx_jstr(m->doc, v) : NULL;
    size_t len = text ? v->u.s.len : v->u.c.count;
    if (len + 1 > cap)
        return vx_fail(VRAMEST_E_LIMIT, "config.json: key '%s': %zu layers, at most %zu", key, len, cap - 1);
    const vx_jv *e = text ? NULL : vx_jfirst(v);
    for (size_t i = 0; i < len; i++) {
        char one[2] = {text ? text[i] : 0, 0};
        const char *what = one;
        if (!text) {
            if (e->type != VX_J_STR) return type_error(key, "array of strings", v);
            what = vx_jstr(m->doc, e);
            e = vx_jskip(e);
        }
        const vx_name_letter *k = map;
        while (k->name && strcmp(k->name, what)) k++;
        if (!k->name) {
            char known[200];
            letter_names(map, known, sizeof known);
            return vx_fail(VRAMEST_E_INVALID_MODEL,
                           "config.json: key '%s': entry %zu is '%.40s', not a layer type of this family (%s)", key, i,
                           what, known);
        }
        out[i] = k->letter;
    }
    out[len] = '\0';
    *n = len;
    return VRAMEST_OK;
}

static int64_t name_flag(const char *s, size_t n, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strlen(names[i]) == n && !strncmp(s, names[i], n)) return (int64_t)1 << i;
    return 0;
}

int vx_cfgmap_name_flags(struct vx_cfgmap *m, const char *key, const char *const *names, int64_t *flags)
{
    const vx_jv *v = vx_jget(m->doc, m->root, key);
    *flags = 0;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type == VX_J_STR) {
        const char *s = vx_jstr(m->doc, v);
        for (const char *p = s; *p;) {
            size_t n = strcspn(p, "|");
            while (n && *p == ' ') p++, n--;
            *flags |= name_flag(p, n, names);
            p += n;
            if (*p == '|') p++;
        }
        return VRAMEST_OK;
    }
    if (v->type != VX_J_ARR) return type_error(key, "a list of names", v);
    for (const vx_jv *e = vx_jfirst(v); e < vx_jend(v); e = vx_jskip(e)) {
        if (e->type != VX_J_STR) return type_error(key, "a list of names", v);
        *flags |= name_flag(vx_jstr(m->doc, e), e->u.s.len, names);
    }
    return VRAMEST_OK;
}

#define MAX_LIST 100000 /* entries of a per-layer list (the layer bound) */

/* The index of a list entry: an integer, a bool, or a name of `names`. */
static int list_entry(const pstate *p, const char *key, const vx_jv *v, const char *const *names, int64_t *out)
{
    if (!names) {
        if (v->type == VX_J_TRUE || v->type == VX_J_FALSE) return *out = v->type == VX_J_TRUE, VRAMEST_OK;
        if (v->type == VX_J_INT) return *out = v->u.i, VRAMEST_OK;
        return type_error(key, "a list of integers", v);
    }
    if (v->type != VX_J_STR) return type_error(key, "a list of strings", v);
    const char *sv;
    int rc = str_of(p, key, v, &sv);
    if (rc) return rc;
    for (int64_t i = 0; names[i]; i++)
        if (!strcmp(sv, names[i])) return *out = i, VRAMEST_OK;
    return vx_fail(VRAMEST_E_INVALID_MODEL,
                   "config.json: key '%s': an entry is not one of the layer types known for this family (%s%s%s)", key,
                   names[0], names[1] ? ", " : "", names[1] ? names[1] : "");
}

int vx_cfgmap_list(struct vx_cfgmap *m, const char *key, const char *const *names, const char *letters, int64_t **out,
                   size_t *n)
{
    const vx_jv *v = vx_jget(m->doc, m->root, key);
    *out = NULL;
    *n = 0;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    bool str = v->type == VX_J_STR;
    if (str && !letters) return type_error(key, "a list", v);
    if (!str && v->type != VX_J_ARR) return type_error(key, "a list", v);
    const char *text = NULL;
    int rc = str ? str_of(m, key, v, &text) : VRAMEST_OK;
    if (rc) return rc;
    size_t len = str ? v->u.s.len : v->u.c.count;
    if (len > MAX_LIST)
        return vx_fail(VRAMEST_E_LIMIT, "config.json: key '%s': %zu entries is more than the %d layers accepted", key,
                       len, MAX_LIST);
    int64_t *a = calloc(len ? len : 1, sizeof *a);
    if (!a) return vx_fail(VRAMEST_E_NOMEM, "config.json: key '%s': out of memory", key);
    const vx_jv *e = str ? NULL : vx_jfirst(v);
    for (size_t i = 0; i < len && rc == VRAMEST_OK; i++) {
        if (str) {
            const char *p = strchr(letters, text[i]);
            rc = p && *p ? (a[i] = p - letters, VRAMEST_OK)
                         : vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: key '%s': letter %zu is none of '%s'", key, i,
                                   letters);
        } else {
            rc = list_entry(m, key, e, names, &a[i]);
            e = vx_jskip(e);
        }
    }
    if (rc) {
        free(a);
        return rc;
    }
    *out = a;
    *n = len;
    return VRAMEST_OK;
}

int vx_cfgmap_set_i64(struct vx_cfgmap *m, vramest_option k, int64_t v, const char *key)
{
    return set_i64(m, k, v, key);
}

int vx_cfgmap_claim_i64(struct vx_cfgmap *m, vramest_option k, int64_t v, const char *key)
{
    size_t slot;
    if (vx_option_find(k, &slot) && slot < VX_ARRAY_LEN(m->assigned)) m->assigned[slot] = true;
    return set_i64(m, k, v, key);
}

int vx_cfgmap_set_str(struct vx_cfgmap *m, vramest_option k, const char *v, const char *key)
{
    return keyed(vx_opt_set_str(&m->a, m->bits, H_MODEL, k, v), key);
}

const vx_jdoc *vx_cfgmap_doc(const struct vx_cfgmap *m)
{
    return m->doc;
}

const vx_jv *vx_cfgmap_root(const struct vx_cfgmap *m)
{
    return m->root;
}

int64_t vx_cfgmap_layers(const struct vx_cfgmap *m)
{
    return m->a.num_hidden_layers;
}

const vx_arch *vx_cfgmap_arch(const struct vx_cfgmap *m)
{
    return &m->a;
}

int vx_cfgmap_set_name(struct vx_cfgmap *m, vramest_option k, const char *name, const char *key)
{
    int rc = vx_opt_set_str(&m->a, m->bits, H_MODEL, k, name);
    /* A name we do not know changes no tensor (an activation): keep the family's. */
    if (rc == VRAMEST_E_UNKNOWN_NAME) rc = VRAMEST_OK;
    return keyed(rc, key);
}

int vx_cfgmap_bool(struct vx_cfgmap *m, const char *key, bool *out)
{
    const vx_jv *v = vx_jget(m->doc, m->root, key);
    if (!v || v->type == VX_J_NULL) return 0;
    if (v->type != VX_J_TRUE && v->type != VX_J_FALSE) return type_error(key, "true or false", v);
    *out = v->type == VX_J_TRUE;
    return 1;
}

int vx_cfgmap_number(struct vx_cfgmap *m, const char *key, double *out)
{
    const vx_jv *v = vx_jget(m->doc, m->root, key);
    if (!v || v->type == VX_J_NULL) return 0;
    int rc = num_of(key, v, out);
    return rc ? rc : 1;
}

bool vx_cfgmap_null(struct vx_cfgmap *m, const char *key)
{
    const vx_jv *v = vx_jget(m->doc, m->root, key);
    return v && v->type == VX_J_NULL;
}

static int unknown_model_type(const char *name)
{
    char list[600];
    size_t used = 0;
    list[0] = '\0';
    for (const vx_enum_name *e = vx_family_enum; e->name && used + 24 < sizeof list; e++)
        if (e->name[0])
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", e->name);
    return vx_fail(VRAMEST_E_UNKNOWN_MODEL_TYPE,
                   "config.json: model_type '%.100s' is not supported, and the config lacks the integers a generic "
                   "decoder needs (hidden_size, num_hidden_layers, num_attention_heads, vocab_size) (supported: %s)",
                   name, list);
}

/* A member of the file and the model options its key names: as an option's
 * own name and as another's alias. Looked up once, used by three passes. */
typedef struct member {
    const vx_jv *key;
    const vx_option_def *canon, *alias;
    size_t cslot, aslot;
} member;

static void resolve(const vx_jdoc *doc, const vx_jv *k, member *m)
{
    bool exact;
    const vx_optname *nm = vx_option_spelling(vx_jstr(doc, k), k->u.s.len, &exact);
    *m = (member){k, NULL, NULL, 0, 0};
    for (unsigned i = 0; nm && i < nm->n_refs; i++) {
        vx_optref r = nm->refs[i];
        if (r.table != H_MODEL - 1) continue;
        if (!r.alias && exact && !m->canon) m->canon = vx_optref_def(r), m->cslot = r.row;
        if (r.alias && !m->alias) m->alias = vx_optref_def(r), m->aslot = r.row;
    }
}

static int map_members(pstate *p, const vx_jv *root, member *ms)
{
    const vx_jdoc *doc = p->doc;
    size_t n = 0;
    int rc;
    for (const vx_jv *k = vx_jfirst(root); k < vx_jend(root); k = vx_jskip(k + 1)) resolve(doc, k, &ms[n++]);
    /* Canonical names first, so that where a file gives both (Gemma's
     * hidden_act and hidden_activation) the option's own name wins; nulls
     * last, so that a null alias ("max_sequence_length": null next to
     * "n_positions": 8192) does not unset what another key gives. */
    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; i < n; i++) {
            const member *m = &ms[i];
            const vx_option_def *d = pass == 1 ? m->alias : m->canon;
            size_t slot = pass == 1 ? m->aslot : m->cslot;
            if (!d && pass == 2) d = m->alias, slot = m->aslot;
            if (!d || d->key == VRAMEST_MODEL_MODEL_TYPE || p->assigned[slot]) continue;
            const vx_jv *val = m->key + 1;
            if ((val->type == VX_J_NULL) != (pass == 2)) continue;
            if ((rc = apply(p, d, slot, vx_jstr(doc, m->key), val))) return rc;
        }
    }
    return VRAMEST_OK;
}

/* The keys a multimodal wrapper's own level gives for its language model:
 * tie_word_embeddings there is what the *ForConditionalGeneration class
 * ties by (it wins over text_config's), the dtype only when text_config
 * has none. */
static int wrapper_keys(pstate *p, const vx_jv *root, const char *text_type)
{
    const vx_jdoc *doc = p->doc;
    int rc;
    const vx_text_default *td = vx_tower_text_defaults(text_type);
    for (; td && td->key; td++)
        if (!given(p, (vramest_option)td->key) && (rc = set_i64(p, (vramest_option)td->key, td->value, "text_config")))
            return rc;
    for (const vx_jv *k = vx_jfirst(root); k < vx_jend(root); k = vx_jskip(k + 1)) {
        member m;
        resolve(doc, k, &m);
        const vx_option_def *d = m.canon ? m.canon : m.alias;
        size_t slot = m.canon ? m.cslot : m.aslot;
        if (!d || (k + 1)->type == VX_J_NULL) continue;
        bool tie = d->key == VRAMEST_MODEL_TIE_WORD_EMBEDDINGS;
        if (!tie && (d->key != VRAMEST_MODEL_TORCH_DTYPE || given(p, d->key))) continue;
        if ((rc = apply(p, d, slot, vx_jstr(doc, k), k + 1))) return rc;
    }
    return VRAMEST_OK;
}

/* The usual keys of a decoder config (issue #16 item 5): with them, a
 * model_type no row describes is estimated as the generic decoder. */
static bool usual_keys(const pstate *p, const vx_jv *root)
{
    static const vramest_option need[] = {VRAMEST_MODEL_HIDDEN_SIZE, VRAMEST_MODEL_NUM_HIDDEN_LAYERS,
                                          VRAMEST_MODEL_NUM_ATTENTION_HEADS, VRAMEST_MODEL_VOCAB_SIZE};
    for (size_t i = 0; i < VX_ARRAY_LEN(need); i++) {
        bool found = false;
        for (const vx_jv *k = vx_jfirst(root); k < vx_jend(root) && !found; k = vx_jskip(k + 1)) {
            member m;
            resolve(p->doc, k, &m);
            const vx_option_def *d = m.canon ? m.canon : m.alias;
            found = d && d->key == need[i] && k[1].type == VX_J_INT;
        }
        if (!found) return false;
    }
    return true;
}

/* A key of a config whose layers are not all attention (state-space,
 * linear attention): a generic decoder cannot stand in for it (its count
 * came out 3x too large on Nemotron-H). NULL when none. */
static const char *hybrid_key(const pstate *p, const vx_jv *root)
{
    static const char *const keys[] = {"ssm_state_size", "mamba_d_state", "mamba_expand", "mamba_n_heads",
                                       "hybrid_override_pattern", "layers_block_type", "attn_layer_period",
                                       "linear_num_value_heads", "linear_key_head_dim", "state_size"};
    const vx_jv *v;
    for (size_t i = 0; i < VX_ARRAY_LEN(keys); i++)
        if (vx_jget(p->doc, root, keys[i])) return keys[i];
    if ((v = vx_jget(p->doc, root, "layer_types")) && v->type == VX_J_ARR)
        for (const vx_jv *e = vx_jfirst(v); e < vx_jend(v); e = vx_jskip(e)) {
            const char *t = e->type == VX_J_STR ? vx_jstr(p->doc, e) : NULL;
            if (t && strcmp(t, "full_attention") && strcmp(t, "sliding_attention")) return "layer_types";
        }
    return NULL;
}

/* A wrapper config without a vision_config (Llama-4 text checkpoints)
 * keeps the language model's keys in text_config: they are read as the
 * model's (text_config's keys first; the wrapper's model_type names the
 * family, and its other keys, such as architectures and
 * quantization_config, count where text_config lacks them). The
 * text_config object, or NULL when the root is read as it is; `note` says
 * that the vision tower is not counted when the class has one. */
static const vx_jv *text_only(const pstate *p, const vx_jv *root, char *note, size_t cap)
{
    const vx_jv *tc = vx_jget(p->doc, root, "text_config"), *v;
    note[0] = '\0';
    if (!tc || tc->type != VX_J_OBJ || ((v = vx_jget(p->doc, root, "vision_config")) && v->type != VX_J_NULL))
        return NULL;
    /* The class a ...ForConditionalGeneration names has a vision tower even
     * then (transformers builds its default one): say it is not counted. */
    const vx_jv *arch = vx_jget(p->doc, root, "architectures");
    const vx_jv *a0 = arch && arch->type == VX_J_ARR && arch->u.c.count ? vx_jfirst(arch) : NULL;
    const char *name = a0 && a0->type == VX_J_STR && !(a0->flags & VX_JF_NUL) ? vx_jstr(p->doc, a0) : "";
    if (strstr(name, "ForConditionalGeneration"))
        snprintf(note, cap,
                 "config.json: %.60s without a vision_config: the language model (text_config) only; the vision "
                 "tower transformers would build is not counted",
                 name);
    return tc;
}

static int map_config(pstate *p, const vx_jv *root)
{
    const vx_jv *v;
    const char *model_type = "";
    int rc;
    p->root = root;
    p->model_type = "";

    /* The language model's keys: a multimodal wrapper's text_config (or its
     * root, Qwen2-VL's flat layout), a text_config-only wrapper's, or the root. */
    const vx_jv *text = root;
    const char *text_type = NULL;
    bool tower = vx_tower_present(p->doc, root);
    const vx_jv *tc = tower ? NULL : text_only(p, root, p->config_note, sizeof p->config_note);
    if (tc) text = tc;
    if ((v = vx_jget(p->doc, root, "model_type")) && v->type != VX_J_NULL) {
        if (v->type != VX_J_STR) return type_error("model_type", "string", v);
        if ((rc = str_of(p, "model_type", v, &model_type))) return rc;
        p->model_type = model_type;
        p->gave_type = true;
        /* A multimodal wrapper: its tower, and the family of its language model. */
        if (tower) {
            if ((rc = vx_tower_read(p->doc, root, model_type, &p->tower, &text, &text_type))) return rc;
            rc = vx_opt_set_str(&p->a, p->bits, H_MODEL, VRAMEST_MODEL_MODEL_TYPE, text_type);
            if (rc == VRAMEST_E_UNKNOWN_NAME)
                return vx_fail(VRAMEST_E_UNKNOWN_MODEL_TYPE, "config.json: the language model of '%.60s' is a "
                               "'%.60s' model, which is not supported", model_type, text_type);
        } else {
            rc = vx_opt_set_str(&p->a, p->bits, H_MODEL, VRAMEST_MODEL_MODEL_TYPE, model_type);
            const char *hk = rc == VRAMEST_E_UNKNOWN_NAME ? hybrid_key(p, text) : NULL;
            if (hk)
                return vx_fail(VRAMEST_E_UNKNOWN_MODEL_TYPE,
                               "config.json: model_type '%.100s' is not supported, and its key '%s' describes layers "
                               "that are not attention (state-space or linear attention), which a generic decoder "
                               "cannot stand in for",
                               model_type, hk);
            if (rc == VRAMEST_E_UNKNOWN_NAME && usual_keys(p, text)) {
                rc = vx_opt_set_str(&p->a, p->bits, H_MODEL, VRAMEST_MODEL_MODEL_TYPE, "generic");
                snprintf(p->family_note, sizeof p->family_note,
                         "model_type '%.40s' is unknown: estimated as a generic decoder (Llama's layout, the config's "
                         "sizes); weights approximate (safetensors make them exact)",
                         model_type);
            }
        }
        if (rc == VRAMEST_E_UNKNOWN_NAME) return unknown_model_type(model_type);
        if (rc) return keyed(rc, "model_type");
        p->assigned[0] = true;
    } else if (!is_set(p, VRAMEST_MODEL_MODEL_TYPE)) {
        return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "config.json: key 'model_type' is missing");
    }

    /* hooks and per-layer lists read the language model's keys */
    p->root = text;
    if ((rc = vx_hf_layer_string_keys(p))) return rc;
    const vx_family *fam = vx_family_of(p->a.model_type);
    if (fam && fam->config_pre && (rc = fam->config_pre(p))) return rc;
    member local[128];
    uint32_t count = text->u.c.count > root->u.c.count ? text->u.c.count : root->u.c.count;
    member *ms = count <= VX_ARRAY_LEN(local) ? local : malloc(count * sizeof *ms);
    if (!ms) return vx_fail(VRAMEST_E_NOMEM, "config.json: out of memory");
    rc = map_members(p, text, ms);
    if (rc == VRAMEST_OK && tc) rc = map_members(p, root, ms); /* options are taken once: text_config's win */
    if (ms != local) free(ms);
    if (!rc && text != root && !tc) rc = wrapper_keys(p, root, text_type);
    if (rc) return rc;
    return family_keys(p, text);
}

/* quantization_config.quant_method: every estimate says when the precision
 * does not store the weights that way (estimate/model_notes.c). Kept only
 * as a short name of [A-Za-z0-9_.-]. */
static void declared_quant(const vx_jdoc *doc, const vx_jv *root, char *out, size_t cap)
{
    out[0] = '\0';
    const vx_jv *q = vx_jget(doc, root, "quantization_config"), *qm;
    if (!q || q->type == VX_J_NULL) return;
    const char *name = (qm = vx_jget(doc, q, "quant_method")) && qm->type == VX_J_STR ? vx_jstr(doc, qm) : "";
    size_t n = qm && qm->type == VX_J_STR ? qm->u.s.len : 0; /* a NUL inside is not [A-Za-z0-9_.-] */
    bool plain = n > 0 && n < cap;
    for (size_t i = 0; plain && i < n; i++)
        plain = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
                (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-' || name[i] == '.';
    snprintf(out, cap, "%s", plain ? name : "(unnamed)");
}

/* Apply a parsed config.json object to the model (hf_config.h). */
int vx_hf_config_apply(struct vramest_model *m, const vx_jdoc *doc, const vx_jv *root)
{
    if (root->type != VX_J_OBJ)
        return vx_fail(VRAMEST_E_PARSE, "config.json: the top-level value must be an object, got %s",
                       vx_jkind(root));
    /* Work on a copy; the model changes only once everything resolved. */
    pstate *p = calloc(1, sizeof *p);
    if (!p) return vx_fail(VRAMEST_E_NOMEM, "config.json: out of memory");
    p->a = m->a;
    p->doc = doc;
    memcpy(p->bits, m->set_bits, sizeof p->bits);
    int rc = map_config(p, root);
    char quant[sizeof m->declared_quant];
    declared_quant(doc, root, quant, sizeof quant);
    /* The checkpoint's own storage; its unquantized tensors are bf16 when
     * the file does not say (the quantizers' update_dtype default). */
    vx_ckpt_quant ckq;
    if (rc == VRAMEST_OK) rc = vx_ckpt_quant_parse(doc, vx_jget(doc, root, "quantization_config"), &ckq);
    if (rc == VRAMEST_OK && ckq.method != VX_CQ_NONE && !is_set(p, VRAMEST_MODEL_TORCH_DTYPE))
        rc = set_i64(p, VRAMEST_MODEL_TORCH_DTYPE, VRAMEST_DTYPE_BF16, "quantization_config");

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
        vx_tower old_tower = m->tower;
        uint64_t old_bits[VX_SET_WORDS];
        char old_quant[sizeof m->declared_quant];
        memcpy(old_bits, m->set_bits, sizeof old_bits);
        memcpy(old_quant, m->declared_quant, sizeof old_quant);
        m->a = p->a;
        m->tower = p->tower;
        memcpy(m->set_bits, p->bits, sizeof m->set_bits);
        memcpy(m->declared_quant, quant, sizeof quant);
        if (p->gave_type) memcpy(m->family_note, p->family_note, sizeof m->family_note);
        char old_note[sizeof m->config_note];
        memcpy(old_note, m->config_note, sizeof old_note);
        memcpy(m->config_note, p->config_note, sizeof m->config_note);
        vx_ckpt_quant old_ckq = m->ckq;
        m->ckq = ckq;
        rc = vx_model_rebuild(m);
        if (rc) {
            char msg[256];
            vx_strlcpy(msg, m->status_msg, sizeof msg);
            m->a = old;
            m->tower = old_tower;
            memcpy(m->set_bits, old_bits, sizeof m->set_bits);
            memcpy(m->declared_quant, old_quant, sizeof old_quant);
            memcpy(m->config_note, old_note, sizeof old_note);
            m->ckq = old_ckq;
            vx_model_rebuild(m);
            rc = vx_fail(rc, "config.json: %s", msg);
        }
    }
    free(p);
    return rc;
}

int vx_parse_hf_config(struct vramest_model *m, const char *buf, size_t len)
{
    if (!m || (!buf && len)) return vx_fail(VRAMEST_E_INVALID_ARG, "vx_parse_hf_config: NULL argument");
    if (len > MAX_CONFIG_BYTES)
        return vx_fail(VRAMEST_E_LIMIT, "config.json: %zu bytes is more than the %u accepted", len,
                       (unsigned)MAX_CONFIG_BYTES);
    vx_jdoc doc;
    int rc = vx_json_parse(&doc, buf ? buf : "", len, "config.json");
    if (!rc) rc = vx_hf_config_apply(m, &doc, vx_jroot(&doc));
    vx_json_free(&doc);
    return rc;
}
