/* Tensor names -> inventory roles, and the grouping that keeps a file's
 * inventory small. A checkpoint names every tensor of every layer and
 * expert (DeepSeek-V3: ~90k names); estimates iterate the inventory, so
 * tensors that differ only by their layer or expert index become one group
 * with n_layers x n_per_layer copies and the exact sum of their bytes.
 *
 * Hugging Face names are matched by their module leaf ("q_proj", "c_attn",
 * "dense_4h_to_h") and, where a leaf is ambiguous ("dense", "wo", "c_proj",
 * "gate"), by the modules above it. GGUF names (llama.cpp's tensor naming:
 * blk.N.attn_q, ffn_gate_exps, ...) are translated to the Hugging Face leaf
 * of the same module, so that precision skip lists and LoRA targets, which
 * use Hugging Face names, apply to GGUF files too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/files.h"

/* ---- name components ---------------------------------------------------- */

#define MAX_COMPS 48

typedef struct comp {
    const char *p;
    size_t n;
} comp;

typedef struct split {
    comp c[MAX_COMPS];
    int n;
} split;

static void split_name(const char *name, split *s)
{
    s->n = 0;
    const char *p = name;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (s->n < MAX_COMPS) {
            s->c[s->n].p = p;
            s->c[s->n].n = len;
            s->n++;
        } else {
            /* Absurdly deep names: fold the rest into the last component. */
            s->c[MAX_COMPS - 1].n = (size_t)(p + len - s->c[MAX_COMPS - 1].p);
        }
        if (!dot) break;
        p = dot + 1;
    }
}

static bool ceq(comp c, const char *s)
{
    size_t n = strlen(s);
    return c.n == n && memcmp(c.p, s, n) == 0;
}

static bool cin(comp c, const char *const *list)
{
    for (; *list; list++)
        if (ceq(c, *list)) return true;
    return false;
}

/* Case-insensitive substring test within a component. */
static bool ccontains(comp c, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= c.n; i++) {
        size_t k = 0;
        for (; k < n; k++) {
            char a = c.p[i + k];
            if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
            if (a != s[k]) break;
        }
        if (k == n) return true;
    }
    return false;
}

static bool cstarts(comp c, const char *s)
{
    size_t n = strlen(s);
    return c.n >= n && memcmp(c.p, s, n) == 0;
}

static bool cends(comp c, const char *s)
{
    size_t n = strlen(s);
    return c.n >= n && memcmp(c.p + c.n - n, s, n) == 0;
}

/* A decimal index (bounded: a layer or expert number). */
static int64_t cnum(comp c)
{
    if (c.n == 0 || c.n > 9) return -1;
    int64_t v = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (c.p[i] < '0' || c.p[i] > '9') return -1;
        v = v * 10 + (c.p[i] - '0');
    }
    return v;
}

static void set_leaf(vx_tensor *t, const char *p, size_t n)
{
    if (n >= sizeof t->name) n = sizeof t->name - 1;
    memcpy(t->name, p, n);
    t->name[n] = '\0';
}

/* ---- role tables ---------------------------------------------------------- */

typedef struct leaf_role {
    const char *leaf;
    uint16_t role;
} leaf_role;

/* Leaves whose role does not depend on where they sit. */
static const leaf_role hf_leaves[] = {
    {"q_proj", VX_ROLE_ATTN_Q}, {"q", VX_ROLE_ATTN_Q}, {"query", VX_ROLE_ATTN_Q}, {"wq", VX_ROLE_ATTN_Q},
    {"q_lin", VX_ROLE_ATTN_Q}, {"q_attn", VX_ROLE_ATTN_Q},
    {"k_proj", VX_ROLE_ATTN_K}, {"k", VX_ROLE_ATTN_K}, {"key", VX_ROLE_ATTN_K}, {"wk", VX_ROLE_ATTN_K},
    {"k_lin", VX_ROLE_ATTN_K},
    {"v_proj", VX_ROLE_ATTN_V}, {"v", VX_ROLE_ATTN_V}, {"value", VX_ROLE_ATTN_V}, {"wv", VX_ROLE_ATTN_V},
    {"v_lin", VX_ROLE_ATTN_V},
    {"o_proj", VX_ROLE_ATTN_O}, {"o", VX_ROLE_ATTN_O}, {"out_proj", VX_ROLE_ATTN_O}, {"out_lin", VX_ROLE_ATTN_O},
    {"qkv_proj", VX_ROLE_ATTN_QKV}, {"c_attn", VX_ROLE_ATTN_QKV}, {"query_key_value", VX_ROLE_ATTN_QKV},
    {"Wqkv", VX_ROLE_ATTN_QKV}, {"qkv", VX_ROLE_ATTN_QKV}, {"W_pack", VX_ROLE_ATTN_QKV},
    {"q_a_proj", VX_ROLE_ATTN_Q_A}, {"q_b_proj", VX_ROLE_ATTN_Q_B}, {"kv_a_proj_with_mqa", VX_ROLE_ATTN_KV_A},
    {"kv_b_proj", VX_ROLE_ATTN_KV_B},
    {"gate_proj", VX_ROLE_MLP_GATE}, {"w1", VX_ROLE_MLP_GATE}, {"wi_0", VX_ROLE_MLP_GATE},
    {"up_proj", VX_ROLE_MLP_UP}, {"w3", VX_ROLE_MLP_UP}, {"wi_1", VX_ROLE_MLP_UP}, {"fc1", VX_ROLE_MLP_UP},
    {"c_fc", VX_ROLE_MLP_UP}, {"dense_h_to_4h", VX_ROLE_MLP_UP}, {"fc_in", VX_ROLE_MLP_UP}, {"wi", VX_ROLE_MLP_UP},
    {"lin1", VX_ROLE_MLP_UP},
    {"down_proj", VX_ROLE_MLP_DOWN}, {"w2", VX_ROLE_MLP_DOWN}, {"fc2", VX_ROLE_MLP_DOWN},
    {"dense_4h_to_h", VX_ROLE_MLP_DOWN}, {"fc_out", VX_ROLE_MLP_DOWN}, {"lin2", VX_ROLE_MLP_DOWN},
    {"gate_up_proj", VX_ROLE_MLP_GATE_UP},
    {"router", VX_ROLE_ROUTER}, {"shared_expert_gate", VX_ROLE_ROUTER},
    {"embed_tokens", VX_ROLE_EMBED}, {"wte", VX_ROLE_EMBED}, {"word_embeddings", VX_ROLE_EMBED},
    {"tok_embeddings", VX_ROLE_EMBED}, {"embed_in", VX_ROLE_EMBED}, {"shared", VX_ROLE_EMBED},
    {"wpe", VX_ROLE_POS_EMBED}, {"embed_positions", VX_ROLE_POS_EMBED}, {"position_embeddings", VX_ROLE_POS_EMBED},
    {"token_type_embeddings", VX_ROLE_TYPE_EMBED},
    {"lm_head", VX_ROLE_LM_HEAD}, {"embed_out", VX_ROLE_LM_HEAD}, {"output_layer", VX_ROLE_LM_HEAD},
    {"relative_attention_bias", VX_ROLE_REL_BIAS},
    {"project_in", VX_ROLE_EMBED_PROJ}, {"project_out", VX_ROLE_EMBED_PROJ},
    {"classifier", VX_ROLE_CLASSIFIER}, {"score", VX_ROLE_CLASSIFIER}, {"seq_relationship", VX_ROLE_CLASSIFIER},
    /* recurrent mixers: Mamba, Mamba-2, gated DeltaNet (Qwen3.5 splits its projections) */
    {"in_proj", VX_ROLE_SSM_IN}, {"in_proj_qkvz", VX_ROLE_SSM_IN}, {"in_proj_qkv", VX_ROLE_SSM_IN},
    {"in_proj_ba", VX_ROLE_SSM_IN2}, {"in_proj_z", VX_ROLE_SSM_IN2}, {"in_proj_b", VX_ROLE_SSM_IN2},
    {"in_proj_a", VX_ROLE_SSM_IN2}, {"conv1d", VX_ROLE_SSM_CONV}, {"x_proj", VX_ROLE_SSM_X},
    {"dt_proj", VX_ROLE_SSM_DT}, {"fc1_latent_proj", VX_ROLE_MOE_LATENT}, {"fc2_latent_proj", VX_ROLE_MOE_LATENT},
    {NULL, 0},
};
/* Modules whose out_proj closes a recurrent mixer, not an attention (LFM2:
 * conv). */
static const char *const ssm_ctx[] = {"mixer", "mamba", "linear_attn", "conv", NULL};
/* The recurrent mixers' per-head vectors (parameters without .weight). */
static const char *const ssm_params[] = {"A_log", "D", "dt_bias", NULL};

typedef struct gguf_leaf {
    const char *gguf;
    const char *hf; /* the Hugging Face leaf of the same module */
    uint16_t role;
    uint8_t stacked; /* ne[2] counts experts */
    uint8_t buffer;  /* not a parameter of the model class */
} gguf_leaf;

/* llama.cpp tensor names (gguf-py/gguf/constants.py, TENSOR_NAMES). */
static const gguf_leaf gguf_leaves[] = {
    {"token_embd", "embed_tokens", VX_ROLE_EMBED, 0, 0},
    {"token_embd_norm", "embed_layernorm", VX_ROLE_EMBED_NORM, 0, 0},
    {"token_types", "token_type_embeddings", VX_ROLE_TYPE_EMBED, 0, 0},
    {"position_embd", "embed_positions", VX_ROLE_POS_EMBED, 0, 0},
    {"output_norm", "norm", VX_ROLE_FINAL_NORM, 0, 0},
    {"output", "lm_head", VX_ROLE_LM_HEAD, 0, 0},
    {"rope_freqs", "inv_freq", VX_ROLE_OTHER, 0, 1},
    {"rope_factors_long", "long_factor", VX_ROLE_OTHER, 0, 1},
    {"rope_factors_short", "short_factor", VX_ROLE_OTHER, 0, 1},
    {"cls", "classifier", VX_ROLE_CLASSIFIER, 0, 0},
    {"attn_norm", "input_layernorm", VX_ROLE_NORM, 0, 0},
    {"attn_norm_2", "input_layernorm_2", VX_ROLE_NORM, 0, 0},
    {"attn_q", "q_proj", VX_ROLE_ATTN_Q, 0, 0},
    {"attn_k", "k_proj", VX_ROLE_ATTN_K, 0, 0},
    {"attn_v", "v_proj", VX_ROLE_ATTN_V, 0, 0},
    {"attn_qkv", "query_key_value", VX_ROLE_ATTN_QKV, 0, 0},
    {"attn_output", "o_proj", VX_ROLE_ATTN_O, 0, 0},
    {"attn_o", "o_proj", VX_ROLE_ATTN_O, 0, 0},
    {"attn_q_norm", "q_norm", VX_ROLE_NORM, 0, 0},
    {"attn_k_norm", "k_norm", VX_ROLE_NORM, 0, 0},
    {"attn_output_norm", "attention_output_norm", VX_ROLE_NORM, 0, 0},
    {"attn_post_norm", "post_attention_layernorm", VX_ROLE_NORM, 0, 0},
    {"attn_q_a", "q_a_proj", VX_ROLE_ATTN_Q_A, 0, 0},
    {"attn_q_b", "q_b_proj", VX_ROLE_ATTN_Q_B, 0, 0},
    {"attn_kv_a_mqa", "kv_a_proj_with_mqa", VX_ROLE_ATTN_KV_A, 0, 0},
    {"attn_kv_b", "kv_b_proj", VX_ROLE_ATTN_KV_B, 0, 0},
    {"attn_k_b", "k_b_proj", VX_ROLE_ATTN_KV_B, 0, 0},
    {"attn_v_b", "v_b_proj", VX_ROLE_ATTN_KV_B, 0, 0},
    {"attn_q_a_norm", "q_a_layernorm", VX_ROLE_NORM, 0, 0},
    {"attn_kv_a_norm", "kv_a_layernorm", VX_ROLE_NORM, 0, 0},
    {"attn_rel_b", "relative_attention_bias", VX_ROLE_REL_BIAS, 0, 0},
    {"attn_sinks", "sinks", VX_ROLE_OTHER, 0, 0},
    {"ffn_norm", "post_attention_layernorm", VX_ROLE_NORM, 0, 0},
    {"ffn_post_norm", "post_feedforward_layernorm", VX_ROLE_NORM, 0, 0},
    {"layer_output_norm", "output_layernorm", VX_ROLE_NORM, 0, 0},
    {"ffn_gate", "gate_proj", VX_ROLE_MLP_GATE, 0, 0},
    {"ffn_up", "up_proj", VX_ROLE_MLP_UP, 0, 0},
    {"ffn_down", "down_proj", VX_ROLE_MLP_DOWN, 0, 0},
    {"ffn_gate_inp", "gate", VX_ROLE_ROUTER, 0, 0},
    {"ffn_gate_exps", "gate_proj", VX_ROLE_EXPERT_GATE, 1, 0},
    {"ffn_up_exps", "up_proj", VX_ROLE_EXPERT_UP, 1, 0},
    {"ffn_down_exps", "down_proj", VX_ROLE_EXPERT_DOWN, 1, 0},
    {"ffn_gate_up_exps", "gate_up_proj", VX_ROLE_EXPERT_UP, 1, 0},
    {"ffn_gate_shexp", "gate_proj", VX_ROLE_SHARED_GATE, 0, 0},
    {"ffn_up_shexp", "up_proj", VX_ROLE_SHARED_UP, 0, 0},
    {"ffn_down_shexp", "down_proj", VX_ROLE_SHARED_DOWN, 0, 0},
    {"ffn_gate_inp_shexp", "shared_expert_gate", VX_ROLE_ROUTER, 0, 0},
    {"exp_probs_b", "e_score_correction_bias", VX_ROLE_ROUTER, 0, 1},
    {"cross_attn_q", "q", VX_ROLE_CROSS_Q, 0, 0},
    {"cross_attn_k", "k", VX_ROLE_CROSS_K, 0, 0},
    {"cross_attn_v", "v", VX_ROLE_CROSS_V, 0, 0},
    {"cross_attn_o", "o", VX_ROLE_CROSS_O, 0, 0},
    {"cross_attn_norm", "cross_attention_layernorm", VX_ROLE_NORM, 0, 0},
    {"cross_attn_rel_b", "cross_relative_attention_bias", VX_ROLE_REL_BIAS, 0, 0},
    {"ssm_in", "in_proj", VX_ROLE_SSM_IN, 0, 0},
    {"ssm_conv1d", "conv1d", VX_ROLE_SSM_CONV, 0, 0},
    {"ssm_x", "x_proj", VX_ROLE_SSM_X, 0, 0},
    {"ssm_dt", "dt_proj", VX_ROLE_SSM_DT, 0, 0},
    {"ssm_a", "A_log", VX_ROLE_SSM_PARAM, 0, 0},
    {"ssm_d", "D", VX_ROLE_SSM_PARAM, 0, 0},
    {"ssm_norm", "norm", VX_ROLE_NORM, 0, 0},
    {"ssm_out", "out_proj", VX_ROLE_SSM_OUT, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

static bool is_norm_role(int r)
{
    return r == VX_ROLE_NORM || r == VX_ROLE_FINAL_NORM || r == VX_ROLE_EMBED_NORM;
}

static bool is_embed_role(int r)
{
    return r == VX_ROLE_EMBED || r == VX_ROLE_POS_EMBED || r == VX_ROLE_TYPE_EMBED || r == VX_ROLE_REL_BIAS;
}

static bool looks_norm(comp c)
{
    return ccontains(c, "norm") || cstarts(c, "ln_") || ceq(c, "ln") || ceq(c, "ln1") || ceq(c, "ln2") ||
           ceq(c, "ln_f");
}

static int to_expert(int r)
{
    switch (r) {
    case VX_ROLE_MLP_GATE: return VX_ROLE_EXPERT_GATE;
    case VX_ROLE_MLP_UP:
    case VX_ROLE_MLP_GATE_UP: return VX_ROLE_EXPERT_UP;
    case VX_ROLE_MLP_DOWN: return VX_ROLE_EXPERT_DOWN;
    default: return r;
    }
}

static int to_shared(int r)
{
    switch (r) {
    case VX_ROLE_MLP_GATE: return VX_ROLE_SHARED_GATE;
    case VX_ROLE_MLP_UP:
    case VX_ROLE_MLP_GATE_UP: return VX_ROLE_SHARED_UP;
    case VX_ROLE_MLP_DOWN: return VX_ROLE_SHARED_DOWN;
    default: return r;
    }
}

static int to_cross(int r)
{
    switch (r) {
    case VX_ROLE_ATTN_Q:
    case VX_ROLE_ATTN_QKV: return VX_ROLE_CROSS_Q;
    case VX_ROLE_ATTN_K: return VX_ROLE_CROSS_K;
    case VX_ROLE_ATTN_V: return VX_ROLE_CROSS_V;
    case VX_ROLE_ATTN_O: return VX_ROLE_CROSS_O;
    default: return r;
    }
}

static const char *const layer_containers[] = {"layers", "layer", "h", "blocks", "block", "blk", NULL};
static const char *const side_modules[] = {"vision_tower", "vision_model", "visual", "multi_modal_projector",
                                           "mm_projector", "vision_encoder", "audio_tower", "audio_encoder",
                                           "image_newline", "vision", "vpm", "resampler", "mtp", NULL};
/* First components of GGUF tensors that are not the language model (mmproj files). */
static const char *const gguf_side[] = {"v", "a", "mm", "mtp", NULL};
static const char *const attn_ctx[] = {"self_attn", "attn", "attention", "self_attention", "SelfAttention",
                                       "mixer", NULL};
static const char *const cross_ctx[] = {"encoder_attn", "EncDecAttention", "crossattention", "cross_attn",
                                        "cross_attention", "inter_attention", NULL};
static const char *const mlp_ctx[] = {"mlp", "feed_forward", "ffn", "DenseReluDense", "block_sparse_moe", "moe",
                                      NULL};
static const char *const shared_ctx[] = {"shared_expert", "shared_experts", "shared_mlp", NULL};
/* Modules only a multi-token-prediction layer has (DeepSeek-V3, GLM-4.5). */
static const char *const mtp_markers[] = {"eh_proj", "enorm", "hnorm", "shared_head", "nextn", NULL};
/* Suffixes of quantization side data: kept with their bytes, not parameters. */
static const char *const quant_aux[] = {"weight_scale_inv", "weight_scale", "input_scale", "scales", "qzeros",
                                        "g_idx", "absmax", "quant_map", "nested_absmax", "nested_quant_map",
                                        "SCB", "weight_format", "qweight", "zeros", "scale", "output_scale",
                                        "k_scale", "v_scale", "weight_zero_point", "weight_global_scale",
                                        "input_global_scale", "weight_packed", "weight_shape", NULL};
/* Buffers kept in checkpoints that are not parameters of the class. */
static const char *const buffers[] = {"inv_freq", "position_ids", "masked_bias", "_float_tensor",
                                      "e_score_correction_bias", "original_inv_freq", NULL};

/* Shape of a plain (unstacked) tensor as rows x cols. */
static void plain_shape(const vx_raw_tensor *t, vx_tensor *o)
{
    if (t->ndim == 0) {
        o->rows = 1, o->cols = 1;
    } else if (t->ndim == 1) {
        o->rows = t->dims[0], o->cols = 1;
    } else {
        o->rows = t->dims[0];
        o->cols = t->ndim == 2 ? t->dims[1] : t->dims[1] * t->dims[2]; /* validated: no overflow */
    }
}

static void classify_gguf(const char *name, const vx_raw_tensor *t, vx_tensor *o, vx_name_info *ni)
{
    split s;
    split_name(name, &s);
    int nc = s.n;
    comp suffix = s.c[nc - 1];
    int mi = nc >= 2 ? nc - 2 : 0;
    for (int i = 0; i + 1 < nc; i++)
        if (ceq(s.c[i], "blk") && cnum(s.c[i + 1]) >= 0) {
            ni->layer = cnum(s.c[i + 1]);
            if (i > 0 && ceq(s.c[0], "enc")) ni->in_encoder = true;
            if (i > 0 && ceq(s.c[0], "dec")) ni->in_decoder = true;
            break;
        }
    /* mmproj files: v.blk.N (vision), mm.* (projector), a.* (audio). */
    if (cin(s.c[0], gguf_side)) ni->side = true;
    for (int i = 0; i < nc; i++)
        if (ceq(s.c[i], "nextn")) ni->mtp = true;
    if (nc == 1) mi = 0;
    /* "blk.N.attn_q.weight": the module is before the suffix; a name without
     * a weight/bias suffix names its module itself. */
    bool has_suffix = nc >= 2 && (ceq(suffix, "weight") || ceq(suffix, "bias"));
    comp mod = has_suffix ? s.c[mi] : suffix;
    o->role = VX_ROLE_OTHER;
    set_leaf(o, mod.p, mod.n);
    bool buffer = false;
    for (const gguf_leaf *g = gguf_leaves; g->gguf; g++)
        if (ceq(mod, g->gguf)) {
            o->role = g->role;
            set_leaf(o, g->hf, strlen(g->hf));
            ni->stacked = g->stacked && t && t->ndim >= 3;
            buffer = g->buffer;
            break;
        }
    if (ni->layer >= 0 && o->role == VX_ROLE_FINAL_NORM) o->role = VX_ROLE_NORM;
    if (o->role == VX_ROLE_EXPERT_GATE || o->role == VX_ROLE_EXPERT_UP || o->role == VX_ROLE_EXPERT_DOWN)
        o->expert = 1;
    if (buffer) o->trainable_default = 0;
    if (is_norm_role(o->role))
        o->kind = VX_TK_NORM;
    else if (has_suffix && ceq(suffix, "bias"))
        o->kind = VX_TK_BIAS;
    else if (buffer)
        o->kind = VX_TK_OTHER;
    else if (is_embed_role(o->role))
        o->kind = VX_TK_EMBED;
    else if (t && t->ndim >= 2)
        o->kind = VX_TK_MATRIX;
    else
        o->kind = VX_TK_OTHER;
}

static void classify_hf(const char *name, const vx_raw_tensor *t, vx_tensor *o, vx_name_info *ni)
{
    split s;
    split_name(name, &s);
    int nc = s.n;
    int li = -1;
    for (int i = 1; i < nc; i++)
        if (cnum(s.c[i]) >= 0 && cin(s.c[i - 1], layer_containers)) {
            ni->layer = cnum(s.c[i]);
            li = i;
            ni->enc_style = ceq(s.c[i - 1], "layer") || ceq(s.c[i - 1], "block");
            break;
        }
    bool has_experts = false;
    for (int i = li + 1; i < nc; i++)
        if (ceq(s.c[i], "experts")) {
            has_experts = true;
            if (i + 1 < nc && cnum(s.c[i + 1]) >= 0) ni->expert = cnum(s.c[i + 1]);
        }
    for (int i = 0; i < (li >= 0 ? li : nc); i++) {
        if (ccontains(s.c[i], "encoder")) ni->in_encoder = true;
        if (ccontains(s.c[i], "decoder")) ni->in_decoder = true;
    }
    for (int i = 0; i < (li >= 0 ? li : nc - 1); i++)
        if (cin(s.c[i], side_modules)) ni->side = true;
    for (int i = 0; i < nc; i++) {
        if (cin(s.c[i], mtp_markers)) ni->mtp = true;
        if (ceq(s.c[i], "mtp")) ni->side = true;
    }

    /* Split into module leaf + parameter suffix. */
    comp suffix = s.c[nc - 1];
    int mi = nc - 2; /* index of the module leaf */
    enum { P_WEIGHT, P_BIAS, P_BUFFER, P_AUX, P_STACKED, P_STACKED_BIAS, P_OTHER } what = P_OTHER;
    if (nc == 1) {
        mi = 0;
        what = cin(suffix, buffers) ? P_BUFFER : P_OTHER;
    } else if (ceq(suffix, "weight")) {
        what = P_WEIGHT;
    } else if (ceq(suffix, "bias")) {
        what = P_BIAS;
    } else if (cin(suffix, buffers)) {
        what = P_BUFFER;
    } else if (cin(suffix, quant_aux)) {
        what = P_AUX;
    } else if (cends(suffix, "_blocks") || cends(suffix, "_scales")) {
        what = P_AUX; /* MXFP4 expert blocks/scales (gpt-oss) */
        mi = nc - 1;
    } else if (cends(suffix, "_proj") && has_experts && ni->expert < 0) {
        what = P_STACKED; /* experts.gate_up_proj: a [E, in, out] parameter */
        mi = nc - 1;
    } else if (cends(suffix, "_proj_bias") && has_experts && ni->expert < 0) {
        what = P_STACKED_BIAS;
        mi = nc - 1;
    }
    /* bitsandbytes / GPTQ side data: "q_proj.weight.absmax",
     * "q_proj.weight.quant_state.bitsandbytes__nf4". */
    for (int i = 1; i < nc - 1; i++)
        if (ceq(s.c[i], "weight") || ceq(s.c[i], "quant_state")) {
            what = P_AUX;
            mi = ceq(s.c[i], "weight") ? i - 1 : i - 2 >= 0 ? i - 2 : 0;
            break;
        }
    if (mi < 0) mi = 0;
    comp mod = s.c[mi];
    if (what == P_STACKED_BIAS) mod.n -= 5; /* "gate_up_proj_bias" is the bias of gate_up_proj */
    comp parent = mi > 0 ? s.c[mi - 1] : (comp){"", 0};
    comp grand = mi > 1 ? s.c[mi - 2] : (comp){"", 0};
    set_leaf(o, mod.p, mod.n);

    bool in_attn = false, in_cross = false, in_mlp = false, in_shared = false, in_pooler = false;
    for (int i = (li >= 0 ? li : 0); i < mi; i++) {
        if (cin(s.c[i], attn_ctx)) in_attn = true;
        if (cin(s.c[i], cross_ctx)) in_cross = true;
        if (cin(s.c[i], mlp_ctx)) in_mlp = true;
        if (cin(s.c[i], shared_ctx)) in_shared = true;
    }
    for (int i = 0; i < mi; i++)
        if (ceq(s.c[i], "pooler")) in_pooler = true;
    if (in_cross) in_attn = true;

    int role = VX_ROLE_OTHER;
    for (const leaf_role *l = hf_leaves; l->leaf; l++)
        if (ceq(mod, l->leaf)) {
            role = l->role;
            break;
        }
    if (role == VX_ROLE_OTHER) {
        if (ceq(mod, "wo") || ceq(mod, "c_proj")) {
            role = in_attn ? VX_ROLE_ATTN_O : VX_ROLE_MLP_DOWN;
        } else if (ceq(mod, "dense")) {
            if (in_pooler || ceq(parent, "pooler"))
                role = VX_ROLE_POOLER;
            else if (ceq(parent, "transform"))
                role = VX_ROLE_MLM_TRANSFORM;
            else if (in_attn)
                role = VX_ROLE_ATTN_O; /* attention.output.dense, self_attention.dense */
            else if (ceq(parent, "intermediate"))
                role = VX_ROLE_MLP_UP;
            else if (ceq(parent, "output"))
                role = VX_ROLE_MLP_DOWN; /* BERT layer.N.output.dense */
        } else if (ceq(mod, "gate") || ceq(mod, "wg")) {
            if (in_mlp || li >= 0) role = VX_ROLE_ROUTER;
        } else if (ceq(mod, "output") && li < 0 && nc == 2) {
            role = VX_ROLE_LM_HEAD; /* original Llama checkpoints: output.weight */
        } else if (ceq(mod, "decoder") && ceq(parent, "predictions")) {
            role = VX_ROLE_LM_HEAD; /* BERT cls.predictions.decoder */
        } else if (ceq(mod, "predictions") && what == P_BIAS) {
            role = VX_ROLE_LM_HEAD; /* BERT cls.predictions.bias */
        } else if (looks_norm(mod)) {
            if (li >= 0)
                role = VX_ROLE_NORM;
            else if (ceq(parent, "transform"))
                role = VX_ROLE_MLM_TRANSFORM;
            else if (ceq(parent, "embeddings") || ccontains(mod, "emb") || ceq(grand, "embeddings"))
                role = VX_ROLE_EMBED_NORM;
            else
                role = VX_ROLE_FINAL_NORM;
        }
    }
    if (role == VX_ROLE_ATTN_O && ceq(mod, "out_proj") && cin(parent, ssm_ctx)) role = VX_ROLE_SSM_OUT;
    if (what == P_OTHER && cin(suffix, ssm_params) && li >= 0) role = VX_ROLE_SSM_PARAM;
    if (in_pooler && role == VX_ROLE_OTHER) role = VX_ROLE_POOLER;
    if (in_cross) role = to_cross(role);
    if (has_experts && (ni->expert >= 0 || what == P_STACKED || what == P_STACKED_BIAS)) {
        role = to_expert(role);
        o->expert = role == VX_ROLE_EXPERT_GATE || role == VX_ROLE_EXPERT_UP || role == VX_ROLE_EXPERT_DOWN;
    } else if (in_shared) {
        role = to_shared(role);
    }
    /* Outside the layer stack, a leaf never plays a per-layer role. */
    if (li < 0 && role == VX_ROLE_NORM) role = VX_ROLE_FINAL_NORM;
    if (ni->side && (is_embed_role(role) || role == VX_ROLE_LM_HEAD || role == VX_ROLE_FINAL_NORM ||
                     role == VX_ROLE_EMBED_NORM))
        role = VX_ROLE_OTHER;
    o->role = (uint16_t)role;

    switch (what) {
    case P_WEIGHT:
        if (is_norm_role(role) || (role == VX_ROLE_MLM_TRANSFORM && looks_norm(mod)))
            o->kind = VX_TK_NORM;
        else if (is_embed_role(role))
            o->kind = VX_TK_EMBED;
        else if (t && t->ndim >= 2)
            o->kind = VX_TK_MATRIX;
        else if (looks_norm(mod))
            o->kind = VX_TK_NORM;
        else
            o->kind = VX_TK_OTHER;
        break;
    case P_BIAS:
        if (is_norm_role(role) || (role == VX_ROLE_MLM_TRANSFORM && looks_norm(mod))) {
            o->kind = VX_TK_NORM; /* a LayerNorm's bias travels with its weight */
            break;
        }
        /* GPT-2/GPT-J/NeoX checkpoints keep the causal mask as "attn.bias"
         * ([1, 1, n, n], often bool): a buffer, not a bias. */
        if ((ceq(mod, "attn") || ceq(mod, "attention")) && t && (t->ndim >= 3 || t->dtype == VRAMEST_DTYPE_BOOL)) {
            o->kind = VX_TK_OTHER;
            o->role = VX_ROLE_OTHER;
            o->trainable_default = 0;
            set_leaf(o, "attn.bias", 9);
        } else {
            o->kind = VX_TK_BIAS;
        }
        break;
    case P_STACKED: o->kind = VX_TK_MATRIX; break;
    case P_STACKED_BIAS: o->kind = VX_TK_BIAS; break;
    case P_BUFFER:
        o->kind = ceq(suffix, "e_score_correction_bias") ? VX_TK_BIAS : VX_TK_OTHER;
        if (!ceq(suffix, "e_score_correction_bias")) o->role = VX_ROLE_OTHER;
        o->trainable_default = 0;
        set_leaf(o, suffix.p, suffix.n);
        break;
    case P_AUX:
        o->kind = VX_TK_OTHER;
        o->trainable_default = 0;
        break;
    case P_OTHER:
        /* An unnamed parameter (Mamba A_log, D): counted, role unknown. */
        o->kind = VX_TK_OTHER;
        set_leaf(o, suffix.p, suffix.n);
        break;
    }
    ni->stacked = (what == P_STACKED || what == P_STACKED_BIAS) && t && t->ndim >= 2;
}

static void classify(const char *name, bool gguf, const vx_raw_tensor *t, vx_tensor *o, vx_name_info *ni)
{
    memset(o, 0, sizeof *o);
    memset(ni, 0, sizeof *ni);
    ni->layer = -1;
    ni->expert = -1;
    o->trainable_default = 1;
    o->n_per_layer = 1;
    o->rows = 1;
    o->cols = 1;
    if (gguf)
        classify_gguf(name, t, o, ni);
    else
        classify_hf(name, t, o, ni);
    if (!t) return;
    o->dtype = t->dtype;
    o->file_bytes = t->nbytes;
    if (ni->stacked && t->dims[0] == 0) ni->stacked = false; /* no copies: a plain empty tensor */
    if (ni->stacked) {
        /* dims[0] experts of [dims[1] x dims[2]] each. */
        o->n_per_layer = t->dims[0];
        if (t->ndim == 2) {
            o->rows = t->dims[1], o->cols = 1;
        } else if (gguf) {
            o->rows = t->dims[1], o->cols = t->dims[2];
        } else {
            /* experts.gate_up_proj is an nn.Parameter [E, in, out]. */
            o->rows = t->dims[2], o->cols = t->dims[1];
        }
        return;
    }
    plain_shape(t, o);
    /* GPT-2 Conv1D stores [in, out]; keep rows = out features, as nn.Linear.
     * (GPT-BigCode uses nn.Linear under the same names: decide by shape.) */
    if (!gguf && t->ndim == 2 && o->kind == VX_TK_MATRIX) {
        bool swap = false;
        if ((strcmp(o->name, "c_attn") == 0 || strcmp(o->name, "c_fc") == 0) && o->rows < o->cols) swap = true;
        if (strcmp(o->name, "c_proj") == 0 && o->role == VX_ROLE_MLP_DOWN && o->rows > o->cols) swap = true;
        if (swap) {
            int64_t r = o->rows;
            o->rows = o->cols;
            o->cols = r;
        }
    }
}

void vx_classify(const vx_raw_tensor *t, vx_tensor *out, vx_name_info *ni)
{
    classify(t->name, t->gguf, t, out, ni);
}

void vx_classify_name(const char *name, bool gguf, vx_tensor *out, vx_name_info *ni)
{
    classify(name, gguf, NULL, out, ni);
}

/* ---- grouping ------------------------------------------------------------ */

typedef struct rec {
    vx_tensor t;    /* its group key, n_per_layer = copies, file_bytes = bytes */
    int64_t layer;  /* -1 = global */
} rec;

static int key_cmp(const vx_tensor *a, const vx_tensor *b)
{
#define CMP(f) \
    if (a->f != b->f) return a->f < b->f ? -1 : 1;
    CMP(part)
    CMP(role)
    CMP(kind)
    CMP(expert)
    CMP(trainable_default)
    CMP(dtype)
    CMP(rows)
    CMP(cols)
#undef CMP
    return strcmp(a->name, b->name);
}

static int rec_cmp(const void *pa, const void *pb)
{
    const rec *a = pa, *b = pb;
    int c = key_cmp(&a->t, &b->t);
    if (c) return c;
    return a->layer < b->layer ? -1 : a->layer > b->layer;
}

/* Per-layer totals, then sorted by copies-per-layer. */
static int agg_cmp(const void *pa, const void *pb)
{
    const rec *a = pa, *b = pb;
    int c = key_cmp(&a->t, &b->t);
    if (c) return c;
    if (a->t.n_per_layer != b->t.n_per_layer) return a->t.n_per_layer < b->t.n_per_layer ? -1 : 1;
    return (a->layer >= 0) - (b->layer >= 0);
}

static int name_cmp(const void *pa, const void *pb)
{
    const vx_raw_tensor *a = *(const vx_raw_tensor *const *)pa, *b = *(const vx_raw_tensor *const *)pb;
    return strcmp(a->name, b->name);
}

/* Merging into groups an earlier parse left (shards read one by one):
 * the existing groups are indexed by key so that a hostile file with many
 * distinct groups costs n log n, not n^2. */
typedef struct keyed {
    vx_tensor k; /* a copy of the group's key fields */
    size_t i;    /* its index in the inventory */
} keyed;

typedef struct merger {
    vx_tensor **inv;
    size_t *n, *cap;
    keyed *idx; /* the groups that existed before this parse, sorted by key */
    size_t n_idx;
} merger;

static int keyed_cmp(const void *pa, const void *pb)
{
    return key_cmp(&((const keyed *)pa)->k, &((const keyed *)pb)->k);
}

static int merger_init(merger *mg, vx_tensor **inv, size_t *n, size_t *cap)
{
    mg->inv = inv, mg->n = n, mg->cap = cap, mg->idx = NULL, mg->n_idx = *n;
    if (!*n) return VRAMEST_OK;
    mg->idx = malloc(*n * sizeof *mg->idx);
    if (!mg->idx) return vx_fail(VRAMEST_E_NOMEM, "merging tensor groups: out of memory");
    for (size_t i = 0; i < *n; i++) mg->idx[i].k = (*inv)[i], mg->idx[i].i = i;
    qsort(mg->idx, *n, sizeof *mg->idx, keyed_cmp);
    return VRAMEST_OK;
}

static int merge_group(merger *mg, const vx_tensor *g)
{
    size_t lo = 0, hi = mg->n_idx;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&mg->idx[mid].k, g) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k < mg->n_idx && key_cmp(&mg->idx[k].k, g) == 0; k++) {
        vx_tensor *e = &(*mg->inv)[mg->idx[k].i];
        if ((e->n_layers == 0) != (g->n_layers == 0)) continue;
        if (g->n_layers == 0) {
            e->n_per_layer += g->n_per_layer;
        } else if (e->n_per_layer == g->n_per_layer) {
            e->n_layers += g->n_layers;
        } else {
            continue;
        }
        if (!vx_add(e->file_bytes, g->file_bytes, &e->file_bytes))
            return vx_fail(VRAMEST_E_OVERFLOW, "tensor group '%s': stored bytes overflow 64 bits", g->name);
        return VRAMEST_OK;
    }
    return vx_inv_push(mg->inv, mg->n, mg->cap, g);
}

static int i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Index bounds and distinct layers of the model stacks in r[0..n). */
static int layer_stats(const rec *r, size_t n, vx_group_stats *st)
{
    int64_t *dec = malloc((n ? n : 1) * sizeof *dec), *enc = malloc((n ? n : 1) * sizeof *enc);
    if (!dec || !enc) {
        free(dec), free(enc);
        return vx_fail(VRAMEST_E_NOMEM, "grouping tensors: out of memory");
    }
    size_t nd = 0, ne = 0;
    for (size_t i = 0; i < n; i++) {
        const vx_tensor *t = &r[i].t;
        if (t->part == VX_PART_GLOBAL) {
            if (t->role == VX_ROLE_EMBED && t->trainable_default) st->has_embed = true;
            if (t->role == VX_ROLE_FINAL_NORM || t->role == VX_ROLE_LM_HEAD) st->has_final = true;
            continue;
        }
        if (!t->trainable_default) continue;
        if (t->part == VX_PART_DECODER)
            dec[nd++] = r[i].layer;
        else
            enc[ne++] = r[i].layer;
        if (t->expert && t->kind == VX_TK_MATRIX && t->n_per_layer > st->expert_bound)
            st->expert_bound = t->n_per_layer;
    }
    int64_t *v[2] = {dec, enc};
    size_t c[2] = {nd, ne};
    int64_t *bound[2] = {&st->dec_bound, &st->enc_bound}, *count[2] = {&st->dec_count, &st->enc_count};
    for (int k = 0; k < 2; k++) {
        qsort(v[k], c[k], sizeof *v[k], i64_cmp);
        for (size_t i = 0; i < c[k]; i++)
            if (i == 0 || v[k][i] != v[k][i - 1]) (*count[k])++;
        *bound[k] = c[k] ? v[k][c[k] - 1] + 1 : 0;
    }
    free(dec);
    free(enc);
    return VRAMEST_OK;
}

int vx_fileset_group(const vx_fileset *fs, vx_tensor **inv, size_t *n, size_t *cap, vx_group_stats *st)
{
    memset(st, 0, sizeof *st);
    if (fs->n == 0) return VRAMEST_OK;
    int rc = VRAMEST_OK;
    merger mg = {0};
    const vx_raw_tensor **byname = malloc(fs->n * sizeof *byname);
    rec *r = malloc(fs->n * sizeof *r);
    int64_t *mtp_layers = NULL;
    size_t n_mtp = 0;
    if (!byname || !r) {
        rc = vx_fail(VRAMEST_E_NOMEM, "grouping %zu tensors: out of memory", fs->n);
        goto out;
    }
    /* Duplicates across shards (each reader already rejects them within one file). */
    for (size_t i = 0; i < fs->n; i++) byname[i] = &fs->t[i];
    qsort(byname, fs->n, sizeof *byname, name_cmp);
    for (size_t i = 1; i < fs->n; i++)
        if (strcmp(byname[i - 1]->name, byname[i]->name) == 0) {
            const vx_raw_tensor *a = byname[i - 1], *b = byname[i];
            if (a->shard > b->shard || (a->shard == b->shard && a->at > b->at)) {
                const vx_raw_tensor *tmp = a;
                a = b, b = tmp;
            }
            rc = vx_fail(VRAMEST_E_PARSE, "duplicate tensor name '%s': at byte %llu of %s and byte %llu of %s",
                         a->name, (unsigned long long)a->at, vx_fileset_label(fs, a->shard),
                         (unsigned long long)b->at, vx_fileset_label(fs, b->shard));
            goto out;
        }

    bool any_enc = false, any_dec = false;
    bool *enc = calloc(fs->n, sizeof *enc), *side = calloc(fs->n, sizeof *side);
    bool *enc_style = calloc(fs->n, sizeof *enc_style);
    if (!enc || !side || !enc_style) {
        free(enc), free(side), free(enc_style);
        rc = vx_fail(VRAMEST_E_NOMEM, "grouping %zu tensors: out of memory", fs->n);
        goto out;
    }
    for (size_t i = 0; i < fs->n; i++) {
        vx_name_info ni;
        vx_classify(&fs->t[i], &r[i].t, &ni);
        r[i].layer = ni.layer;
        /* Expert indices: the largest named one (stacked tensors count in layer_stats). */
        if (ni.expert >= 0 && !ni.side && ni.expert + 1 > st->expert_bound) st->expert_bound = ni.expert + 1;
        enc[i] = ni.in_encoder && !ni.in_decoder;
        enc_style[i] = ni.enc_style;
        side[i] = ni.side;
        if (ni.layer >= 0 && !ni.side) {
            if (enc[i]) any_enc = true;
            if (ni.in_decoder) any_dec = true;
        }
        if (ni.mtp && ni.layer >= 0 && !ni.side) {
            bool seen = false;
            for (size_t k = 0; k < n_mtp; k++) seen |= mtp_layers[k] == ni.layer;
            if (!seen && n_mtp < 64) {
                int64_t *nl = realloc(mtp_layers, (n_mtp + 1) * sizeof *nl);
                if (!nl) {
                    free(enc), free(side), free(enc_style);
                    rc = vx_fail(VRAMEST_E_NOMEM, "grouping tensors: out of memory");
                    goto out;
                }
                mtp_layers = nl;
                mtp_layers[n_mtp++] = ni.layer;
            }
        }
    }
    /* Encoder layers are VX_PART_ENCODER, as the architecture inventory has
     * them (T5's encoder, BERT's layers). A stack merely named "encoder" is
     * a decoder when it is the only stack and not laid out as BERT/T5 are
     * (ChatGLM: transformer.encoder.layers.N). */
    bool enc_dec = any_enc && any_dec;
    for (size_t i = 0; i < fs->n; i++) {
        if (side[i] || r[i].layer < 0) {
            r[i].layer = -1;
            r[i].t.part = VX_PART_GLOBAL;
            continue;
        }
        bool encoder = enc_dec ? enc[i] : (enc[i] && enc_style[i]) || fs->encoder_only;
        r[i].t.part = encoder ? VX_PART_ENCODER : VX_PART_DECODER;
        for (size_t k = 0; k < n_mtp; k++)
            if (r[i].t.part == VX_PART_DECODER && mtp_layers[k] == r[i].layer) r[i].t.trainable_default = 0;
    }
    free(enc);
    free(side);
    free(enc_style);
    if ((rc = layer_stats(r, fs->n, st))) goto out;

    /* Sum copies and bytes per (group, layer). */
    qsort(r, fs->n, sizeof *r, rec_cmp);
    size_t m = 0;
    for (size_t i = 0; i < fs->n;) {
        rec a = r[i];
        size_t k = i + 1;
        for (; k < fs->n && rec_cmp(&r[k], &a) == 0; k++) {
            a.t.n_per_layer += r[k].t.n_per_layer;
            if (!vx_add(a.t.file_bytes, r[k].t.file_bytes, &a.t.file_bytes)) {
                rc = vx_fail(VRAMEST_E_OVERFLOW, "tensor '%s': stored bytes overflow 64 bits", a.t.name);
                goto out;
            }
        }
        r[m++] = a;
        i = k;
    }
    /* Layers with the same copy count become one group. */
    qsort(r, m, sizeof *r, agg_cmp);
    if ((rc = merger_init(&mg, inv, n, cap))) goto out;
    for (size_t i = 0; i < m;) {
        vx_tensor g = r[i].t;
        bool layered = r[i].layer >= 0;
        g.n_layers = layered ? 1 : 0;
        size_t k = i + 1;
        for (; k < m && agg_cmp(&r[k], &r[i]) == 0; k++) {
            g.n_layers += layered ? 1 : 0;
            if (!layered) g.n_per_layer += r[k].t.n_per_layer;
            if (!vx_add(g.file_bytes, r[k].t.file_bytes, &g.file_bytes)) {
                rc = vx_fail(VRAMEST_E_OVERFLOW, "tensor group '%s': stored bytes overflow 64 bits", g.name);
                goto out;
            }
        }
        if ((rc = merge_group(&mg, &g))) goto out;
        i = k;
    }
out:
    free(mg.idx);
    free(byname);
    free(r);
    free(mtp_layers);
    return rc;
}

/* ---- facts ---------------------------------------------------------------- */

static void keep(int64_t *slot, const char **from, int64_t v, const char *name)
{
    if (*slot == 0) {
        *slot = v;
        *from = name;
    }
}

void vx_file_facts_of(const vx_tensor *inv, size_t n, vx_file_facts *f)
{
    memset(f, 0, sizeof *f);
    f->tied = -1;
    int64_t h_o = 0, h_down = 0, h_edown = 0, h_emb = 0, v_emb = 0, v_head = 0, ffn_gate = 0, ffn_up = 0;
    int64_t moe_gate = 0, moe_up = 0;
    const char *fo = NULL, *fd = NULL, *fe = NULL, *fm = NULL, *fv = NULL, *fh = NULL, *unused = NULL;
    bool has_embed = false, has_head = false;
    for (size_t i = 0; i < n; i++) {
        const vx_tensor *t = &inv[i];
        if (!t->trainable_default) continue;
        bool fused = strstr(t->name, "gate_up") != NULL;
        if (t->part == VX_PART_DECODER && t->n_layers > f->layers) {
            f->layers = t->n_layers;
            f->layers_from = t->name;
        }
        if (t->part == VX_PART_ENCODER && t->n_layers > f->enc_layers) f->enc_layers = t->n_layers;
        if (t->part != VX_PART_GLOBAL && t->kind == VX_TK_MATRIX) {
            if (t->role == VX_ROLE_ATTN_O) keep(&h_o, &fo, t->rows, t->name);
            if (t->role == VX_ROLE_MLP_DOWN) keep(&h_down, &fd, t->rows, t->name);
            if (t->role == VX_ROLE_EXPERT_DOWN) keep(&h_edown, &fe, t->rows, t->name);
            if (t->role == VX_ROLE_MLP_GATE) keep(&ffn_gate, &unused, t->rows, t->name);
            if (t->role == VX_ROLE_MLP_UP && !fused) keep(&ffn_up, &unused, t->rows, t->name);
            if (t->role == VX_ROLE_EXPERT_GATE) keep(&moe_gate, &unused, t->rows, t->name);
            if (t->role == VX_ROLE_EXPERT_UP && !fused) keep(&moe_up, &unused, t->rows, t->name);
            if (t->expert && t->n_per_layer > f->experts) f->experts = t->n_per_layer;
        }
        if (t->part == VX_PART_GLOBAL && t->role == VX_ROLE_EMBED && t->kind == VX_TK_EMBED) {
            has_embed = true;
            keep(&v_emb, &fv, t->rows, t->name);
            keep(&h_emb, &fm, t->cols, t->name);
        }
        if (t->part == VX_PART_GLOBAL && t->role == VX_ROLE_LM_HEAD && t->kind == VX_TK_MATRIX) {
            has_head = true;
            keep(&v_head, &fh, t->rows, t->name);
        }
    }
    if (h_o)
        f->hidden = h_o, f->hidden_from = fo;
    else if (h_down)
        f->hidden = h_down, f->hidden_from = fd;
    else if (h_edown)
        f->hidden = h_edown, f->hidden_from = fe;
    else if (h_emb)
        f->hidden = h_emb, f->hidden_from = fm;
    if (v_emb)
        f->vocab = v_emb, f->vocab_from = fv;
    else if (v_head)
        f->vocab = v_head, f->vocab_from = fh;
    f->ffn = ffn_gate ? ffn_gate : ffn_up;
    f->moe_ffn = moe_gate ? moe_gate : moe_up;
    if (has_embed) f->tied = has_head ? 0 : 1;
}

void vx_index_facts(const vx_fileset *fs, vx_file_facts *f)
{
    memset(f, 0, sizeof *f);
    f->tied = -1;
    /* A multi-token-prediction layer (eh_proj, enorm) is not a model layer. */
    int64_t mtp[16];
    size_t n_mtp = 0;
    for (size_t i = 0; i < fs->n_idx; i++) {
        vx_tensor t;
        vx_name_info ni;
        vx_classify_name(fs->idx[i].name, false, &t, &ni);
        if (ni.mtp && ni.layer >= 0 && !ni.side && n_mtp < VX_ARRAY_LEN(mtp)) {
            bool seen = false;
            for (size_t k = 0; k < n_mtp; k++) seen |= mtp[k] == ni.layer;
            if (!seen) mtp[n_mtp++] = ni.layer;
        }
    }
    bool any_dec = false, any_enc = false;
    for (size_t i = 0; i < fs->n_idx; i++) {
        vx_tensor t;
        vx_name_info ni;
        vx_classify_name(fs->idx[i].name, false, &t, &ni);
        if (ni.layer >= 0 && !ni.side) {
            if (ni.in_decoder) any_dec = true;
            if (ni.in_encoder && !ni.in_decoder) any_enc = true;
        }
    }
    for (size_t i = 0; i < fs->n_idx; i++) {
        vx_tensor t;
        vx_name_info ni;
        vx_classify_name(fs->idx[i].name, false, &t, &ni);
        if (ni.layer < 0 || ni.side) continue;
        bool is_mtp = false;
        for (size_t k = 0; k < n_mtp; k++) is_mtp |= mtp[k] == ni.layer;
        if (is_mtp) continue;
        bool encoder_part = any_enc && any_dec && ni.in_encoder && !ni.in_decoder;
        int64_t *slot = encoder_part ? &f->enc_layers : &f->layers;
        if (ni.layer + 1 > *slot) *slot = ni.layer + 1;
        if (ni.expert >= 0 && ni.expert + 1 > f->experts) f->experts = ni.expert + 1;
        if (!encoder_part && !f->layers_from) f->layers_from = fs->idx[i].name;
    }
}
