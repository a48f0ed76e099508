/* Shape resolution: from the options a user (or a config.json) gave to the
 * effective architecture every estimator reads. Family defaults follow the
 * Hugging Face config classes (what `from_pretrained` would instantiate for
 * a config.json that omits the key), so parameter counts match
 * model.num_parameters() exactly. The tensor layout itself is in
 * inventory.c; this file decides values, traits and the default head. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"

#define H_MODEL VRAMEST_HANDLE_MODEL

static bool is_set(const struct vramest_model *m, vramest_option k)
{
    return vx_opt_is_set(m->set_bits, H_MODEL, k);
}

static const char *fam_name(int fam)
{
    const char *n = vx_enum_name_of(vx_family_enum, fam);
    return n ? n : "?";
}

/* "'hidden_size' (n_embd, d_model, ...)" for messages: users of GPT-2 or T5
 * configs know the quantity under the alias. */
static void key_label(vramest_option k, char *buf, size_t cap)
{
    const vx_option_def *d = vx_option_find(k, NULL);
    if (!d) {
        vx_strlcpy(buf, "?", cap);
        return;
    }
    if (d->aliases)
        snprintf(buf, cap, "'%s' (also %s)", d->name, d->aliases);
    else
        snprintf(buf, cap, "'%s'", d->name);
}

static int missing(int fam, vramest_option k)
{
    char label[160];
    key_label(k, label, sizeof label);
    return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "model_type '%s' needs %s, which is not set", fam_name(fam), label);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Default head from the class named in `architectures`. Classes without a
 * workload head of their own (token classification, question answering)
 * take the classification head, whose tensors they share up to the output
 * width. */
static int head_from_architectures(const char *arch, int fam, int kind_default)
{
    if (!arch[0]) return kind_default;
    if (ends_with(arch, "ForCausalLM") || ends_with(arch, "LMHeadModel") ||
        ends_with(arch, "ForConditionalGeneration") || ends_with(arch, "ForMaskedLM") ||
        ends_with(arch, "ForPreTraining"))
        return kind_default;
    if (ends_with(arch, "ForSequenceClassification") || ends_with(arch, "ForTokenClassification") ||
        ends_with(arch, "ForQuestionAnswering"))
        return VX_HEAD_SEQ_CLS;
    /* ChatGLM-6B's config names ChatGLMModel, but its auto_map loads
     * ChatGLMForConditionalGeneration for AutoModel: the LM is what runs. */
    if (fam == VX_FAM_CHATGLM) return VX_HEAD_CAUSAL_LM;
    if (ends_with(arch, "Model")) return VX_HEAD_NONE;
    return kind_default;
}

int vx_head_resolve(const vx_shape *s, int head)
{
    if (head == VX_HEAD_AUTO) head = s->default_head;
    if (s->encoder_only) return (head == VX_HEAD_CAUSAL_LM || head == VX_HEAD_SEQ2SEQ_LM) ? VX_HEAD_MASKED_LM : head;
    if (s->enc_dec) return (head == VX_HEAD_CAUSAL_LM || head == VX_HEAD_MASKED_LM) ? VX_HEAD_SEQ2SEQ_LM : head;
    return (head == VX_HEAD_SEQ2SEQ_LM || head == VX_HEAD_MASKED_LM) ? VX_HEAD_CAUSAL_LM : head;
}

/* Per-family defaults: the values of the transformers config class (or the
 * remote code) when config.json does not give the key. */
typedef struct fam_traits {
    int fam;
    int norm_kind;
    int tied;
    int attn_bias, mlp_bias;
    int act;
    int gated;
    int learned_pos;
    int rotary;
    double hidden_dropout, attn_dropout;
} fam_traits;

#define LN VX_NORM_LAYER
#define RMS VX_NORM_RMS
static const fam_traits traits[] = {
    /* fam                 norm tied ab mb act                gated lpos rot hdrop adrop */
    {VX_FAM_LLAMA, RMS, 0, 0, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_MISTRAL, RMS, 0, 0, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_QWEN2, RMS, 0, 1, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_QWEN3, RMS, 0, 0, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_GEMMA, RMS, 1, 0, 0, VX_ACT_GELU_TANH, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_GEMMA2, RMS, 1, 0, 0, VX_ACT_GELU_TANH, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_GEMMA3, RMS, 1, 0, 0, VX_ACT_GELU_TANH, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_PHI3, RMS, 0, 0, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_MIXTRAL, RMS, 0, 0, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_QWEN2_MOE, RMS, 0, 1, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_QWEN3_MOE, RMS, 0, 0, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_DEEPSEEK_V2, RMS, 0, 0, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_DEEPSEEK_V3, RMS, 0, 0, 0, VX_ACT_SILU, 1, 0, 1, 0.0, 0.0},
    {VX_FAM_PHI, LN, 0, 1, 1, VX_ACT_GELU_NEW, 0, 0, 1, 0.0, 0.0},
    {VX_FAM_GPT2, LN, 1, 1, 1, VX_ACT_GELU_NEW, 0, 1, 0, 0.1, 0.1},
    {VX_FAM_GPT_BIGCODE, LN, 1, 1, 1, VX_ACT_GELU_TANH, 0, 1, 0, 0.1, 0.1},
    {VX_FAM_OPT, LN, 1, 1, 1, VX_ACT_RELU, 0, 1, 0, 0.1, 0.0},
    {VX_FAM_BLOOM, LN, 1, 1, 1, VX_ACT_GELU_TANH, 0, 0, 0, 0.0, 0.0},
    {VX_FAM_GPT_NEOX, LN, 0, 1, 1, VX_ACT_GELU, 0, 0, 1, 0.0, 0.0},
    {VX_FAM_FALCON, LN, 1, 0, 0, VX_ACT_GELU, 0, 0, 1, 0.0, 0.0},
    {VX_FAM_BERT, LN, 1, 1, 1, VX_ACT_GELU, 0, 1, 0, 0.1, 0.1},
    {VX_FAM_T5, RMS, 1, 0, 0, VX_ACT_RELU, 0, 0, 0, 0.1, 0.1},
    {VX_FAM_MT5, RMS, 0, 0, 0, VX_ACT_GELU_NEW, 1, 0, 0, 0.1, 0.1},
    {VX_FAM_CHATGLM, LN, 1, 1, 1, VX_ACT_GELU, 0, 0, 1, 0.0, 0.0},
    {VX_FAM_MOSS, LN, 0, 0, 1, VX_ACT_GELU_NEW, 0, 0, 1, 0.0, 0.0},
    {VX_FAM_CODEGEN, LN, 0, 0, 1, VX_ACT_GELU_NEW, 0, 0, 1, 0.0, 0.0},
    {VX_FAM_GPTJ, LN, 0, 0, 1, VX_ACT_GELU_NEW, 0, 0, 1, 0.0, 0.0},
};

static const fam_traits *traits_of(int fam)
{
    for (size_t i = 0; i < VX_ARRAY_LEN(traits); i++)
        if (traits[i].fam == fam) return &traits[i];
    return NULL;
}

static bool is_moe(int fam)
{
    return fam == VX_FAM_MIXTRAL || fam == VX_FAM_QWEN2_MOE || fam == VX_FAM_QWEN3_MOE ||
           fam == VX_FAM_DEEPSEEK_V2 || fam == VX_FAM_DEEPSEEK_V3;
}

static bool is_deepseek(int fam)
{
    return fam == VX_FAM_DEEPSEEK_V2 || fam == VX_FAM_DEEPSEEK_V3;
}

/* Families whose code derives head_dim as hidden/heads and builds square
 * projections: heads must divide hidden. */
static bool head_dim_from_hidden_only(int fam)
{
    switch (fam) {
    case VX_FAM_GPT2: case VX_FAM_GPT_BIGCODE: case VX_FAM_OPT: case VX_FAM_BLOOM: case VX_FAM_GPT_NEOX:
    case VX_FAM_FALCON: case VX_FAM_BERT: case VX_FAM_MOSS: case VX_FAM_CODEGEN: case VX_FAM_GPTJ:
        return true;
    case VX_FAM_CHATGLM: return false; /* v2 reads kv_channels */
    default: return false;
    }
}

static int64_t class_default_head_dim(int fam)
{
    switch (fam) {
    case VX_FAM_GEMMA: case VX_FAM_GEMMA2: case VX_FAM_GEMMA3: return 256;
    case VX_FAM_QWEN3: case VX_FAM_QWEN3_MOE: return 128;
    case VX_FAM_T5: case VX_FAM_MT5: return 64;
    default: return 0; /* hidden / heads */
    }
}

static int resolve_heads(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    int fam = s->family;
    s->heads = a->num_attention_heads;
    if (!s->heads) return missing(fam, VRAMEST_MODEL_NUM_ATTENTION_HEADS);

    bool hd_given = is_set(m, VRAMEST_MODEL_HEAD_DIM) && !head_dim_from_hidden_only(fam);
    if (fam == VX_FAM_CHATGLM && !a->rmsnorm) hd_given = false; /* v1 has no kv_channels */
    if (hd_given) {
        s->head_dim = a->head_dim;
    } else if (class_default_head_dim(fam)) {
        s->head_dim = class_default_head_dim(fam);
    } else {
        if (s->hidden % s->heads)
            return vx_fail(VRAMEST_E_INVALID_MODEL,
                           "hidden_size (%lld) is not divisible by num_attention_heads (%lld) and head_dim is "
                           "not given",
                           (long long)s->hidden, (long long)s->heads);
        s->head_dim = s->hidden / s->heads;
    }

    /* Key/value heads: the family decides what a config means by them. */
    int64_t kv = is_set(m, VRAMEST_MODEL_NUM_KEY_VALUE_HEADS) ? a->num_key_value_heads : s->heads;
    switch (fam) {
    case VX_FAM_GPT_BIGCODE:
        kv = (!is_set(m, VRAMEST_MODEL_MULTI_QUERY) || a->multi_query) ? 1 : s->heads;
        break;
    case VX_FAM_FALCON:
        if (a->new_decoder_architecture) break;
        /* FalconConfig defaults multi_query to true. */
        kv = (!is_set(m, VRAMEST_MODEL_MULTI_QUERY) || a->multi_query) ? 1 : s->heads;
        break;
    case VX_FAM_CHATGLM:
        if (!a->rmsnorm || !a->multi_query) kv = s->heads;
        break;
    case VX_FAM_GPT2: case VX_FAM_OPT: case VX_FAM_BLOOM: case VX_FAM_GPT_NEOX: case VX_FAM_BERT:
    case VX_FAM_T5: case VX_FAM_MT5: case VX_FAM_MOSS: case VX_FAM_CODEGEN: case VX_FAM_GPTJ:
    case VX_FAM_DEEPSEEK_V2: case VX_FAM_DEEPSEEK_V3:
        kv = s->heads; /* no grouped-query attention in these classes (MLA caches a latent) */
        break;
    default: break;
    }
    if (kv < 1 || kv > s->heads || s->heads % kv)
        return vx_fail(VRAMEST_E_INVALID_MODEL,
                       "num_attention_heads (%lld) is not a multiple of num_key_value_heads (%lld)",
                       (long long)s->heads, (long long)kv);
    s->kv_heads = kv;
    return VRAMEST_OK;
}

static int resolve_ffn(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    int fam = s->family;
    bool given = is_set(m, VRAMEST_MODEL_INTERMEDIATE_SIZE);
    switch (fam) {
    case VX_FAM_BLOOM:
        s->ffn = 4 * s->hidden; /* BloomMLP is fixed at 4h whatever n_inner says */
        return VRAMEST_OK;
    case VX_FAM_GPT2: case VX_FAM_GPT_BIGCODE: case VX_FAM_FALCON: case VX_FAM_MOSS: case VX_FAM_CODEGEN:
    case VX_FAM_GPTJ:
        s->ffn = given ? a->intermediate_size : 4 * s->hidden;
        return VRAMEST_OK;
    case VX_FAM_CHATGLM:
        if (a->rmsnorm && !given) return missing(fam, VRAMEST_MODEL_INTERMEDIATE_SIZE);
        s->ffn = given ? a->intermediate_size : 4 * s->hidden;
        return VRAMEST_OK;
    case VX_FAM_QWEN2_MOE: case VX_FAM_QWEN3_MOE:
        s->ffn = given ? a->intermediate_size : 0; /* only for mlp_only_layers, which we do not model */
        return VRAMEST_OK;
    case VX_FAM_DEEPSEEK_V2: case VX_FAM_DEEPSEEK_V3:
        /* Dense layers only; checked once their count is known. */
        s->ffn = given ? a->intermediate_size : 0;
        return VRAMEST_OK;
    default:
        if (!given) return missing(fam, VRAMEST_MODEL_INTERMEDIATE_SIZE);
        s->ffn = a->intermediate_size;
        return VRAMEST_OK;
    }
}

static int resolve_moe(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    int fam = s->family;
    if (!is_moe(fam)) return VRAMEST_OK;
    if (!is_set(m, VRAMEST_MODEL_NUM_LOCAL_EXPERTS)) return missing(fam, VRAMEST_MODEL_NUM_LOCAL_EXPERTS);
    if (!is_set(m, VRAMEST_MODEL_NUM_EXPERTS_PER_TOK)) return missing(fam, VRAMEST_MODEL_NUM_EXPERTS_PER_TOK);
    s->experts = a->num_local_experts;
    s->experts_per_tok = a->num_experts_per_tok;
    if (s->experts_per_tok > s->experts)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "num_experts_per_tok (%lld) is larger than num_local_experts (%lld)",
                       (long long)s->experts_per_tok, (long long)s->experts);
    if (fam == VX_FAM_MIXTRAL) {
        s->moe_ffn = is_set(m, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE) ? a->moe_intermediate_size : s->ffn;
        return VRAMEST_OK;
    }
    if (!is_set(m, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE)) return missing(fam, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE);
    s->moe_ffn = a->moe_intermediate_size;
    if (fam == VX_FAM_QWEN2_MOE) {
        if (!is_set(m, VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE))
            return missing(fam, VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE);
        s->shared_experts = 1;
        s->shared_ffn = a->shared_expert_intermediate_size;
    } else if (is_deepseek(fam)) {
        /* DeepSeek merges its shared experts into one MLP of width
         * moe_intermediate_size * n_shared_experts. */
        s->shared_experts = a->n_shared_experts;
        s->shared_ffn = a->n_shared_experts * a->moe_intermediate_size;
        s->dense_layers = a->first_k_dense_replace;
        if (s->dense_layers > s->layers)
            return vx_fail(VRAMEST_E_INVALID_MODEL, "first_k_dense_replace (%lld) is larger than num_hidden_layers (%lld)",
                           (long long)s->dense_layers, (long long)s->layers);
        if (s->dense_layers > 0 && !s->ffn) return missing(fam, VRAMEST_MODEL_INTERMEDIATE_SIZE);
    }
    return VRAMEST_OK;
}

static int resolve_mla(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    int fam = s->family;
    if (!is_deepseek(fam)) return VRAMEST_OK;
    if (!is_set(m, VRAMEST_MODEL_KV_LORA_RANK)) return missing(fam, VRAMEST_MODEL_KV_LORA_RANK);
    if (!is_set(m, VRAMEST_MODEL_QK_ROPE_HEAD_DIM)) return missing(fam, VRAMEST_MODEL_QK_ROPE_HEAD_DIM);
    if (!is_set(m, VRAMEST_MODEL_QK_NOPE_HEAD_DIM)) return missing(fam, VRAMEST_MODEL_QK_NOPE_HEAD_DIM);
    if (!is_set(m, VRAMEST_MODEL_V_HEAD_DIM)) return missing(fam, VRAMEST_MODEL_V_HEAD_DIM);
    s->kv_lora_rank = a->kv_lora_rank;
    s->q_lora_rank = a->q_lora_rank;
    s->rope_dim = a->qk_rope_head_dim;
    s->nope_dim = a->qk_nope_head_dim;
    s->v_head_dim = a->v_head_dim;
    s->head_dim = s->rope_dim + s->nope_dim; /* query/key head width */
    s->rotary_dim = s->rope_dim;
    return VRAMEST_OK;
}

static void resolve_window(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    int64_t w = a->sliding_window;
    switch (s->family) {
    case VX_FAM_MISTRAL: case VX_FAM_MIXTRAL: case VX_FAM_PHI3:
        if (w > 0) s->sliding_window = w, s->sliding_pattern = 1;
        break;
    case VX_FAM_QWEN2: case VX_FAM_QWEN2_MOE: case VX_FAM_QWEN3: case VX_FAM_QWEN3_MOE:
        if (w > 0 && a->use_sliding_window) s->sliding_window = w, s->sliding_pattern = 1;
        break;
    case VX_FAM_GEMMA2:
        s->sliding_window = is_set(m, VRAMEST_MODEL_SLIDING_WINDOW) ? w : 4096;
        s->sliding_pattern = s->sliding_window ? 2 : 0;
        break;
    case VX_FAM_GEMMA3:
        s->sliding_window = is_set(m, VRAMEST_MODEL_SLIDING_WINDOW) ? w : 4096;
        s->sliding_pattern = s->sliding_window ? 6 : 0;
        break;
    default: break;
    }
}

static int kind_default_head(int fam)
{
    if (fam == VX_FAM_BERT) return VX_HEAD_MASKED_LM;
    if (fam == VX_FAM_T5 || fam == VX_FAM_MT5) return VX_HEAD_SEQ2SEQ_LM;
    return VX_HEAD_CAUSAL_LM;
}

static int resolve(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    if (!is_set(m, VRAMEST_MODEL_MODEL_TYPE) || a->model_type == VX_FAM_UNSET)
        return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "'model_type' is not set (the architecture family, e.g. llama)");
    int fam = (int)a->model_type;
    const fam_traits *t = traits_of(fam);
    if (!t) return vx_fail(VRAMEST_E_UNKNOWN_MODEL_TYPE, "model_type %d is not supported", fam);
    s->family = fam;

    /* Values first, so a partially given model still reports what it has. */
    s->hidden = a->hidden_size;
    s->vocab = a->vocab_size;
    s->max_pos = a->max_position_embeddings;
    s->enc_dec = fam == VX_FAM_T5 || fam == VX_FAM_MT5;
    s->encoder_only = fam == VX_FAM_BERT;
    if (s->enc_dec) {
        s->enc_layers = a->num_hidden_layers;
        s->layers = is_set(m, VRAMEST_MODEL_NUM_DECODER_LAYERS) ? a->num_decoder_layers : a->num_hidden_layers;
    } else {
        s->layers = a->num_hidden_layers;
    }
    s->num_labels = a->num_labels;
    s->torch_dtype = a->torch_dtype;
    s->logit_softcap = a->final_logit_softcapping;

    /* Traits. */
    bool glm2 = fam == VX_FAM_CHATGLM && a->rmsnorm;
    s->norm_kind = glm2 ? RMS : t->norm_kind;
    s->tied = is_set(m, VRAMEST_MODEL_TIE_WORD_EMBEDDINGS) ? (int)a->tie_word_embeddings : t->tied;
    if (glm2) s->tied = 0; /* ChatGLM2's output_layer has no tie_weights hook */
    s->attn_bias = is_set(m, VRAMEST_MODEL_ATTENTION_BIAS) ? (int)a->attention_bias : (glm2 ? 0 : t->attn_bias);
    s->mlp_bias = is_set(m, VRAMEST_MODEL_MLP_BIAS) ? (int)a->mlp_bias : (glm2 ? 0 : t->mlp_bias);
    s->act = a->hidden_act != VX_ACT_AUTO ? (int)a->hidden_act : (glm2 ? VX_ACT_SILU : t->act);
    s->gated = t->gated || glm2;
    if (fam == VX_FAM_T5 || fam == VX_FAM_MT5) {
        if (is_set(m, VRAMEST_MODEL_IS_GATED_ACT)) s->gated = (int)a->is_gated_act;
        if (a->hidden_act == VX_ACT_AUTO) s->act = s->gated ? VX_ACT_GELU_NEW : VX_ACT_RELU;
    }
    s->learned_pos = t->learned_pos;
    s->hidden_dropout = is_set(m, VRAMEST_MODEL_HIDDEN_DROPOUT) ? a->hidden_dropout : t->hidden_dropout;
    s->attn_dropout = is_set(m, VRAMEST_MODEL_ATTENTION_DROPOUT) ? a->attention_dropout : t->attn_dropout;
    s->qk_norm = fam == VX_FAM_QWEN3 || fam == VX_FAM_QWEN3_MOE || fam == VX_FAM_GEMMA3 ||
                 (fam == VX_FAM_PHI && a->qk_layernorm);
    s->rel_buckets = s->enc_dec ? a->relative_attention_num_buckets : 0;
    s->embed_dim = s->hidden;

    switch (fam) {
    case VX_FAM_GEMMA2: case VX_FAM_GEMMA3: s->norms_per_layer = 4; break;
    case VX_FAM_PHI: case VX_FAM_MOSS: case VX_FAM_CODEGEN: case VX_FAM_GPTJ: s->norms_per_layer = 1; break;
    case VX_FAM_FALCON:
        if (a->new_decoder_architecture)
            s->norms_per_layer = a->num_ln_in_parallel_attn == 1 ? 1 : 2;
        else
            s->norms_per_layer = a->parallel_attn ? 1 : 2;
        break;
    case VX_FAM_T5: case VX_FAM_MT5: s->norms_per_layer = 3; break; /* decoder; the encoder has 2 */
    default: s->norms_per_layer = 2; break;
    }
    switch (fam) {
    case VX_FAM_GPT2: case VX_FAM_GPT_BIGCODE: case VX_FAM_BLOOM: case VX_FAM_GPT_NEOX: case VX_FAM_FALCON:
    case VX_FAM_PHI3: case VX_FAM_CHATGLM: case VX_FAM_MOSS: case VX_FAM_CODEGEN:
        s->qkv_fused = 1;
        break;
    default: break;
    }
    s->parallel_block = fam == VX_FAM_PHI || fam == VX_FAM_MOSS || fam == VX_FAM_CODEGEN || fam == VX_FAM_GPTJ ||
                        (fam == VX_FAM_FALCON && (a->parallel_attn || a->new_decoder_architecture));

    /* Required values. */
    if (!s->hidden) return missing(fam, VRAMEST_MODEL_HIDDEN_SIZE);
    if (!a->num_hidden_layers) return missing(fam, VRAMEST_MODEL_NUM_HIDDEN_LAYERS);
    if (!s->vocab) return missing(fam, VRAMEST_MODEL_VOCAB_SIZE);
    int rc = resolve_heads(m, s);
    if (rc) return rc;
    if (s->learned_pos && !s->max_pos) return missing(fam, VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS);
    if ((rc = resolve_ffn(m, s))) return rc;
    if ((rc = resolve_moe(m, s))) return rc;
    if ((rc = resolve_mla(m, s))) return rc;
    resolve_window(m, s);

    if (fam == VX_FAM_OPT && is_set(m, VRAMEST_MODEL_WORD_EMBED_PROJ_DIM)) s->embed_dim = a->word_embed_proj_dim;
    if (t->rotary && !s->rotary_dim) s->rotary_dim = a->rotary_dim ? a->rotary_dim : s->head_dim;
    if (s->rotary_dim > s->head_dim)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "rotary_dim (%lld) is larger than the head dimension (%lld)",
                       (long long)s->rotary_dim, (long long)s->head_dim);

    s->default_head = vx_head_resolve(s, head_from_architectures(a->architectures, fam, kind_default_head(fam)));
    return VRAMEST_OK;
}

int vx_shape_resolve(const struct vramest_model *m, vx_shape *s)
{
    memset(s, 0, sizeof *s);
    return resolve(m, s);
}
