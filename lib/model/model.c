/* The model handle: public new/clone/free/set/get/reset/validate/param_count
 * and the rebuild that keeps shape and inventory current after every
 * mutation, so that const users (estimates on many threads) never compute
 * lazily. Setters accept values one at a time: a model that is still
 * incomplete or inconsistent is not an error for the setter, it is recorded
 * in status/status_msg and reported by validate, param_count and estimate. */
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "model/model.h"

#define H_MODEL VRAMEST_HANDLE_MODEL

static int check(const vramest_model *m, const char *fn)
{
    if (!m) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: model is NULL", fn);
    if (m->magic != VX_MAGIC_MODEL) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: not a vramest_model handle", fn);
    return VRAMEST_OK;
}

/* Parameter totals of the architecture inventory: all groups, and the body
 * without head tensors (what vx_params_for_head() adds heads to). */
static void count_params(vx_shape *s, const vx_tensor *inv, size_t n)
{
    uint64_t total = 0, active = 0, body = 0, body_active = 0;
    for (size_t i = 0; i < n; i++) {
        const vx_tensor *t = &inv[i];
        if (!t->trainable_default) continue;
        uint64_t e = vx_tensor_elems(t);
        /* A token runs through experts_per_tok of the routed experts. */
        uint64_t act = e;
        if (t->expert && s->experts > 0 && t->n_per_layer == s->experts)
            act = vx_sat_mul(vx_sat_mul((uint64_t)t->rows, (uint64_t)t->cols),
                             vx_sat_mul((uint64_t)(t->n_layers > 0 ? t->n_layers : 1), (uint64_t)s->experts_per_tok));
        total = vx_sat_add(total, e);
        active = vx_sat_add(active, act);
        if (!VX_ROLE_IS_HEAD(t->role)) {
            body = vx_sat_add(body, e);
            body_active = vx_sat_add(body_active, act);
        }
    }
    s->params_total = total;
    s->params_active = active;
    s->body_total = body;
    s->body_active = body_active;
}

/* Checkpoint bytes at the stored dtypes. */
static uint64_t checkpoint_bytes(const struct vramest_model *m)
{
    if (m->has_file_inv && m->file_total_bytes) return m->file_total_bytes;
    int sd = vx_dtype_plain_float((int)m->shape.torch_dtype) ? (int)m->shape.torch_dtype : VRAMEST_DTYPE_FP32;
    uint64_t sum = m->has_file_inv ? m->disk_only_bytes : m->mtp_bytes;
    for (size_t i = 0; i < m->n_inv; i++) {
        const vx_tensor *t = &m->inv[i];
        if (t->file_bytes) {
            sum = vx_sat_add(sum, t->file_bytes);
            continue;
        }
        int d = t->dtype != VRAMEST_DTYPE_AUTO ? t->dtype : sd;
        sum = vx_sat_add(sum, vx_dtype_bytes(d, vx_tensor_elems(t)));
    }
    return sum;
}

int vx_model_rebuild(struct vramest_model *m)
{
    /* Rebuilding is part of a successful setter: it must not leave a
     * failure message behind that the caller's call did not produce. */
    char saved[1024];
    vx_strlcpy(saved, vramest_last_error_message(), sizeof saved);

    m->n_inv = 0;
    vx_memo_clear(&m->memo);
    int rc = vx_shape_resolve(m, &m->shape, &m->layers);
    if (rc == VRAMEST_OK) rc = vx_inventory_build(&m->a, &m->shape, &m->layers, &m->inv, &m->n_inv, &m->cap_inv);
    if (rc == VRAMEST_OK && m->tower.kind)
        rc = vx_tower_build(&m->tower, &m->shape, &m->inv, &m->n_inv, &m->cap_inv, &m->tower.params,
                            &m->tower.a_params);
    if (rc == VRAMEST_OK) {
        count_params(&m->shape, m->inv, m->n_inv);
        if (m->shape.params_total == UINT64_MAX)
            rc = vx_fail(VRAMEST_E_OVERFLOW, "the parameter count of this architecture does not fit in 64 bits");
    }
    /* The checkpoint's own storage (quantization_config) and what it holds
     * beside the class (MTP layers): stored dtypes and scale tensors, not
     * parameters. */
    int sd = vx_dtype_plain_float((int)m->shape.torch_dtype) ? (int)m->shape.torch_dtype : VRAMEST_DTYPE_FP32;
    if (rc == VRAMEST_OK) rc = vx_ckpt_quant_apply(&m->ckq, sd, &m->inv, &m->n_inv, &m->cap_inv);
    m->mtp_elems = m->mtp_bytes = 0;
    if (rc == VRAMEST_OK) rc = vx_mtp_on_disk(m);
    /* Tensors read from files are the exact truth about what is stored:
     * they replace the architecture's groups (the counts above stay those
     * of the HF class, which a checkpoint may exceed with buffers or
     * duplicated tied weights), and what they lack is added at the
     * architecture's size (cover.c). */
    m->cover_note[0] = m->disk_note[0] = '\0';
    m->disk_only_bytes = 0;
    if (rc == VRAMEST_OK && m->has_file_inv) rc = vx_cover_file_tensors(m);
    m->checkpoint_bytes = rc == VRAMEST_OK ? checkpoint_bytes(m) : 0;
    if (rc != VRAMEST_OK) {
        m->n_inv = 0;
        vx_strlcpy(m->status_msg, vramest_last_error_message(), sizeof m->status_msg);
    } else {
        m->status_msg[0] = '\0';
    }
    m->status = rc;
    m->default_head_total = m->default_head_active = 0;
    if (rc == VRAMEST_OK) {
        uint64_t act = 0, tot = vx_params_for_head(m, VX_HEAD_AUTO, 0, &act);
        m->default_head_total = tot, m->default_head_active = act;
    }

    if (saved[0])
        vx_fail(VRAMEST_OK, "%s", saved);
    else
        vramest_clear_error();
    return rc;
}

static void model_init(struct vramest_model *m)
{
    memset(m, 0, sizeof *m);
    m->magic = VX_MAGIC_MODEL;
    vx_memo_init(&m->memo);
    vx_opt_defaults(&m->a, m->set_bits, H_MODEL);
}

VRAMEST_API int vramest_model_new(vramest_model **out)
{
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_new: out is NULL");
    *out = NULL;
    vramest_model *m = malloc(sizeof *m);
    if (!m) return vx_fail(VRAMEST_E_NOMEM, "vramest_model_new: out of memory");
    model_init(m);
    vx_model_rebuild(m); /* records "model_type is not set" */
    *out = m;
    return VRAMEST_OK;
}

static int dup_tensors(const vx_tensor *src, size_t n, vx_tensor **dst, size_t *cap)
{
    *dst = NULL;
    *cap = 0;
    if (!n) return VRAMEST_OK;
    *dst = malloc(n * sizeof **dst);
    if (!*dst) return vx_fail(VRAMEST_E_NOMEM, "vramest_model_clone: out of memory");
    memcpy(*dst, src, n * sizeof **dst);
    *cap = n;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_model_clone(const vramest_model *model, vramest_model **out)
{
    int rc = check(model, "vramest_model_clone");
    if (rc) return rc;
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_clone: out is NULL");
    *out = NULL;
    vramest_model *m = malloc(sizeof *m);
    if (!m) return vx_fail(VRAMEST_E_NOMEM, "vramest_model_clone: out of memory");
    memcpy(m, model, sizeof *m);
    vx_memo_init(&m->memo); /* a clone works out its own */
    if ((rc = dup_tensors(model->inv, model->n_inv, &m->inv, &m->cap_inv)) ||
        (rc = dup_tensors(model->file_inv, model->n_file_inv, &m->file_inv, &m->cap_file_inv))) {
        free(m->inv);
        m->magic = VX_MAGIC_DEAD;
        free(m);
        return rc;
    }
    *out = m;
    return VRAMEST_OK;
}

VRAMEST_API void vramest_model_free(vramest_model *model)
{
    if (!model || model->magic != VX_MAGIC_MODEL) return;
    model->magic = VX_MAGIC_DEAD;
    free(model->inv);
    free(model->file_inv);
    vx_memo_clear(&model->memo);
    model->inv = model->file_inv = NULL;
    free(model);
}

VRAMEST_API int vramest_model_set_i64(vramest_model *model, vramest_option key, int64_t value)
{
    int rc = check(model, "vramest_model_set_i64");
    if (rc) return rc;
    if ((rc = vx_opt_set_i64(&model->a, model->set_bits, H_MODEL, key, value))) return rc;
    if (key == VRAMEST_MODEL_MODEL_TYPE) model->family_note[0] = '\0'; /* the family is now the caller's */
    vx_model_rebuild(model);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_model_set_f64(vramest_model *model, vramest_option key, double value)
{
    int rc = check(model, "vramest_model_set_f64");
    if (rc) return rc;
    if ((rc = vx_opt_set_f64(&model->a, model->set_bits, H_MODEL, key, value))) return rc;
    if (key == VRAMEST_MODEL_MODEL_TYPE) model->family_note[0] = '\0'; /* the family is now the caller's */
    vx_model_rebuild(model);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_model_set_str(vramest_model *model, vramest_option key, const char *value)
{
    int rc = check(model, "vramest_model_set_str");
    if (rc) return rc;
    if ((rc = vx_opt_set_str(&model->a, model->set_bits, H_MODEL, key, value))) return rc;
    if (key == VRAMEST_MODEL_MODEL_TYPE) model->family_note[0] = '\0'; /* the family is now the caller's */
    vx_model_rebuild(model);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_model_reset(vramest_model *model, vramest_option key)
{
    int rc = check(model, "vramest_model_reset");
    if (rc) return rc;
    if ((rc = vx_opt_reset(&model->a, model->set_bits, H_MODEL, key))) return rc;
    vx_model_rebuild(model);
    return VRAMEST_OK;
}

/* The value the resolved shape uses for an unset (or family-interpreted)
 * option. Returns false when the shape does not define one. */
static bool effective_i64(const vramest_model *m, vramest_option key, int64_t *out)
{
    const vx_shape *s = &m->shape;
    if (!s->family) return false;
    int64_t v;
    switch (key) {
    case VRAMEST_MODEL_HIDDEN_SIZE: v = s->hidden; break;
    case VRAMEST_MODEL_NUM_HIDDEN_LAYERS: v = s->enc_dec ? s->enc_layers : s->layers; break;
    case VRAMEST_MODEL_NUM_DECODER_LAYERS: v = s->enc_dec ? s->layers : 0; break;
    case VRAMEST_MODEL_NUM_ATTENTION_HEADS: v = s->heads; break;
    case VRAMEST_MODEL_NUM_KEY_VALUE_HEADS: v = s->kv_heads; break;
    case VRAMEST_MODEL_HEAD_DIM: v = s->head_dim; break;
    case VRAMEST_MODEL_INTERMEDIATE_SIZE: v = s->ffn; break;
    case VRAMEST_MODEL_VOCAB_SIZE: v = s->vocab; break;
    case VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE: v = s->moe_ffn; break;
    case VRAMEST_MODEL_WORD_EMBED_PROJ_DIM: v = s->fam->embed_proj ? s->embed_dim : 0; break;
    case VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE: v = s->shared_kind == VX_SHX_GATED_ONE ? s->shared_ffn : 0; break;
    case VRAMEST_MODEL_TIE_WORD_EMBEDDINGS: *out = s->tied; return true;
    case VRAMEST_MODEL_ATTENTION_BIAS: *out = s->attn_bias; return true;
    case VRAMEST_MODEL_MLP_BIAS: *out = s->mlp_bias; return true;
    case VRAMEST_MODEL_HIDDEN_ACT: *out = s->act; return true;
    case VRAMEST_MODEL_IS_GATED_ACT: *out = s->gated; return true;
    case VRAMEST_MODEL_SLIDING_WINDOW: *out = s->sliding_window; return true;
    case VRAMEST_MODEL_ROTARY_DIM: v = s->rotary_dim; break;
    default: return false;
    }
    if (v <= 0) return false;
    *out = v;
    return true;
}

static int lookup_model_option(vramest_option key, const vx_option_def **d)
{
    *d = vx_option_find(key, NULL);
    if (!*d) return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "unknown option key %d", (int)key);
    if ((*d)->handle != H_MODEL)
        return vx_fail(VRAMEST_E_WRONG_HANDLE, "option '%s' is not a model option", (*d)->name);
    return VRAMEST_OK;
}

/* Raw when the shape has nothing to say, else the effective value; unset
 * with neither a family value nor an in-bounds table default is an error. */
static int get_i64(const vramest_model *m, const vx_option_def *d, int64_t *out)
{
    int64_t v;
    if (effective_i64(m, d->key, &v)) {
        *out = v;
        return VRAMEST_OK;
    }
    int rc = vx_opt_get_i64(&m->a, H_MODEL, d->key, &v);
    if (rc) return rc;
    bool set = vx_opt_is_set(m->set_bits, H_MODEL, d->key);
    /* Without a resolvable family, the defaults every family shares. */
    if (!set) {
        const vx_arch *a = &m->a;
        if (d->key == VRAMEST_MODEL_NUM_KEY_VALUE_HEADS && a->num_attention_heads > 0) {
            *out = a->num_attention_heads;
            return VRAMEST_OK;
        }
        if (d->key == VRAMEST_MODEL_HEAD_DIM && a->num_attention_heads > 0 && a->hidden_size > 0 &&
            a->hidden_size % a->num_attention_heads == 0) {
            *out = a->hidden_size / a->num_attention_heads;
            return VRAMEST_OK;
        }
        if (d->key == VRAMEST_MODEL_NUM_DECODER_LAYERS && a->num_hidden_layers > 0) {
            *out = a->num_hidden_layers;
            return VRAMEST_OK;
        }
    }
    if (!set) {
        bool in_bounds = d->type == VRAMEST_TYPE_ENUM ? vx_enum_name_of(d->enums, v) != NULL
                                                      : ((double)v >= d->min && (double)v <= d->max);
        if (d->key == VRAMEST_MODEL_MODEL_TYPE) in_bounds = false; /* "no family" is not a value */
        if (!in_bounds) {
            if (m->status != VRAMEST_OK && m->status_msg[0])
                return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "option '%s' is not set and has no default (%s)", d->name,
                               m->status_msg);
            return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "option '%s' is not set and has no default", d->name);
        }
    }
    *out = v;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_model_get_i64(const vramest_model *model, vramest_option key, int64_t *out)
{
    int rc = check(model, "vramest_model_get_i64");
    if (rc) return rc;
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_get_i64: out is NULL");
    const vx_option_def *d;
    if ((rc = lookup_model_option(key, &d))) return rc;
    if (d->type == VRAMEST_TYPE_F64 || d->type == VRAMEST_TYPE_STRING)
        return vx_opt_get_i64(&model->a, H_MODEL, key, out); /* the generic type error */
    return get_i64(model, d, out);
}

VRAMEST_API int vramest_model_get_f64(const vramest_model *model, vramest_option key, double *out)
{
    int rc = check(model, "vramest_model_get_f64");
    if (rc) return rc;
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_get_f64: out is NULL");
    const vx_option_def *d;
    if ((rc = lookup_model_option(key, &d))) return rc;
    if (d->type == VRAMEST_TYPE_STRING) return vx_opt_get_f64(&model->a, H_MODEL, key, out);
    if (d->type != VRAMEST_TYPE_F64) {
        int64_t v;
        if ((rc = get_i64(model, d, &v))) return rc;
        *out = (double)v;
        return VRAMEST_OK;
    }
    if (!vx_opt_is_set(model->set_bits, H_MODEL, key) && model->shape.family) {
        switch (key) {
        case VRAMEST_MODEL_HIDDEN_DROPOUT: *out = model->shape.hidden_dropout; return VRAMEST_OK;
        case VRAMEST_MODEL_ATTENTION_DROPOUT: *out = model->shape.attn_dropout; return VRAMEST_OK;
        default: break;
        }
    }
    return vx_opt_get_f64(&model->a, H_MODEL, key, out);
}

VRAMEST_API int vramest_model_get_str(const vramest_model *model, vramest_option key, const char **out)
{
    int rc = check(model, "vramest_model_get_str");
    if (rc) return rc;
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_get_str: out is NULL");
    const vx_option_def *d;
    if ((rc = lookup_model_option(key, &d))) return rc;
    if (d->type == VRAMEST_TYPE_ENUM) {
        int64_t v;
        if ((rc = get_i64(model, d, &v))) return rc;
        const char *n = vx_enum_name_of(d->enums, v);
        if (!n) return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "option '%s' is not set and has no default", d->name);
        *out = n;
        return VRAMEST_OK;
    }
    return vx_opt_get_str(&model->a, H_MODEL, key, out);
}

VRAMEST_API int vramest_model_validate(const vramest_model *model)
{
    int rc = check(model, "vramest_model_validate");
    if (rc) return rc;
    if (model->status != VRAMEST_OK) return vx_fail(model->status, "%s", model->status_msg);
    return VRAMEST_OK;
}

uint64_t vx_params_for_head(const struct vramest_model *m, int head, int64_t num_labels, uint64_t *active)
{
    if (active) *active = 0;
    if (m->status != VRAMEST_OK) return 0;
    const vx_shape *s = &m->shape;
    /* The default head, computed at rebuild (then both totals are set). */
    if ((head == VX_HEAD_AUTO || head == s->default_head) && (num_labels <= 0 || num_labels == s->num_labels) &&
        m->default_head_total) {
        if (active) *active = m->default_head_active;
        return m->default_head_total;
    }
    vx_tensor t[VX_HEAD_MAX_TENSORS];
    size_t n = 0;
    if (vx_head_tensors(s, head, num_labels, t, VX_ARRAY_LEN(t), &n) != VRAMEST_OK) return 0;
    uint64_t total = s->body_total, act = s->body_active;
    for (size_t i = 0; i < n; i++) {
        total = vx_sat_add(total, vx_tensor_elems(&t[i]));
        act = vx_sat_add(act, vx_tensor_elems(&t[i]));
    }
    if (active) *active = act;
    return total;
}

VRAMEST_API int vramest_model_param_count(const vramest_model *model, uint64_t *out_total, uint64_t *out_active)
{
    int rc = check(model, "vramest_model_param_count");
    if (rc) return rc;
    if (model->status != VRAMEST_OK) return vx_fail(model->status, "%s", model->status_msg);
    if (out_total) *out_total = model->shape.params_total;
    if (out_active) *out_active = model->shape.params_active;
    return VRAMEST_OK;
}
