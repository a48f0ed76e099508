/* Shape resolution: from the options a user (or a config.json) gave to the
 * effective architecture every estimator reads. The family's row
 * (model/family.h) gives the defaults of its Hugging Face config class
 * (what `from_pretrained` would instantiate for a config.json that omits
 * the key) and the rules that turn config values into the architecture, so
 * parameter counts match model.num_parameters() exactly. The tensor layout
 * itself is in inventory.c; this file decides values, traits and the
 * default head. No family is named here: a family that needs more than its
 * row's rules has an `adjust` hook beside its row. */
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
static int head_from_architectures(const char *arch, const vx_family *f, int kind_default)
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
    if (f->lm_class_model) return VX_HEAD_CAUSAL_LM;
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

/* Rows of the first file tensor group with `role`, kind `kind` and, when
 * `name` is not NULL, that leaf name (0 when none). */
static int64_t file_rows(const struct vramest_model *m, int role, int kind, const char *name)
{
    for (size_t i = 0; m->has_file_inv && i < m->n_file_inv; i++) {
        const vx_tensor *t = &m->file_inv[i];
        if (t->role == role && t->kind == kind && (!name || !strcmp(t->name, name))) return t->rows;
    }
    return 0;
}

/* What a checkpoint's shapes say of the heads when the config does not
 * (issue #16 item 5: a bare safetensors file): a per-head q_norm gives
 * head_dim (Qwen3, Gemma 3) and with q_proj's width the heads; k_proj's
 * width gives the key/value heads. Without a per-head norm the heads are
 * unknown: a stand-in of 128-wide heads lets the weights (exact from the
 * files) be estimated, and every estimate beyond load asks for them. */
static void heads_from_files(const struct vramest_model *m, vx_shape *s, int64_t *heads, int64_t *head_dim,
                             int64_t *kv)
{
    int64_t q = file_rows(m, VX_ROLE_ATTN_Q, VX_TK_MATRIX, NULL), k = file_rows(m, VX_ROLE_ATTN_K, VX_TK_MATRIX, NULL);
    int64_t qn = file_rows(m, VX_ROLE_NORM, VX_TK_NORM, "q_norm");
    if (q <= 0) return;
    if (!*head_dim && qn > 0 && qn < q && q % qn == 0) *head_dim = qn;
    if (!*heads) {
        /* a stand-in head width dividing q_proj's and k_proj's widths: the
         * shapes, so the count, come out right whatever the true split */
        int64_t d = *head_dim;
        if (!d) {
            d = q;
            for (int64_t b = k > 0 ? k : 128; b;) { int64_t t = d % b; d = b, b = t; } /* gcd */
            while (d > 128 && d % 2 == 0) d /= 2;
        }
        if (d <= 0 || q % d) return;
        *heads = q / d;
        s->heads_from_files = !*head_dim;
    }
    if (!*head_dim && q % *heads == 0 && q != s->hidden) *head_dim = q / *heads; /* Qwen3: 128 x heads != hidden */
    if (!*kv && k > 0 && (k * *heads) % q == 0) *kv = k * *heads / q;
}

static int resolve_heads(const struct vramest_model *m, const vx_rules *r, vx_shape *s)
{
    const vx_arch *a = &m->a;
    const vx_family *f = s->fam;
    int fam = s->family;
    bool hd_given = is_set(m, VRAMEST_MODEL_HEAD_DIM) && r->hd_rule == VX_HD_CONFIG;
    int64_t heads = a->num_attention_heads, hd = hd_given ? a->head_dim : 0;
    int64_t kv_files = 0;
    if (m->has_file_inv && r->kv_rule == VX_KV_CONFIG)
        heads_from_files(m, s, &heads, &hd, &kv_files);
    s->heads = heads;
    if (!s->heads) return missing(fam, VRAMEST_MODEL_NUM_ATTENTION_HEADS);

    if (hd_given || hd) {
        s->head_dim = hd;
    } else if (f->head_dim) {
        s->head_dim = f->head_dim;
    } else {
        if (s->hidden % s->heads)
            return vx_fail(VRAMEST_E_INVALID_MODEL,
                           "hidden_size (%lld) is not divisible by num_attention_heads (%lld) and head_dim is "
                           "not given",
                           (long long)s->hidden, (long long)s->heads);
        s->head_dim = s->hidden / s->heads;
    }

    /* Key/value heads: the family decides what a config means by them. */
    int64_t kv = is_set(m, VRAMEST_MODEL_NUM_KEY_VALUE_HEADS) ? a->num_key_value_heads
                 : kv_files > 0                                   ? kv_files
                                                                  : s->heads;
    if (r->kv_rule == VX_KV_MQA_FLAG) /* multi_query defaults to true in these classes */
        kv = (!is_set(m, VRAMEST_MODEL_MULTI_QUERY) || a->multi_query) ? 1 : s->heads;
    else if (r->kv_rule == VX_KV_MHA) /* no grouped-query attention (MLA caches a latent) */
        kv = s->heads;
    if (kv < 1 || kv > s->heads || s->heads % kv)
        return vx_fail(VRAMEST_E_INVALID_MODEL,
                       "num_attention_heads (%lld) is not a multiple of num_key_value_heads (%lld)",
                       (long long)s->heads, (long long)kv);
    s->kv_heads = kv;
    return VRAMEST_OK;
}

static int resolve_ffn(const struct vramest_model *m, const vx_rules *r, vx_shape *s)
{
    const vx_arch *a = &m->a;
    bool given = is_set(m, VRAMEST_MODEL_INTERMEDIATE_SIZE);
    switch (r->ffn_rule) {
    case VX_FFN_FIXED_4H: s->ffn = 4 * s->hidden; break; /* e.g. BloomMLP: 4h whatever n_inner says */
    case VX_FFN_4H: s->ffn = given ? a->intermediate_size : 4 * s->hidden; break;
    /* MoE families: only the dense layers (or mlp_only_layers) have one;
     * checked once their count is known. */
    case VX_FFN_OPTIONAL: s->ffn = given ? a->intermediate_size : 0; break;
    default:
        if (!given) return missing(s->family, VRAMEST_MODEL_INTERMEDIATE_SIZE);
        s->ffn = a->intermediate_size;
        break;
    }
    return VRAMEST_OK;
}

static int resolve_moe(const struct vramest_model *m, const vx_rules *r, vx_shape *s)
{
    const vx_arch *a = &m->a;
    const vx_family *f = s->fam;
    int fam = s->family;
    if (r->moe == VX_MOE_NONE) return VRAMEST_OK;
    /* Experts only where a layer pattern puts them (Nemotron-H 56B has none). */
    if (f->moe_optional && !is_set(m, VRAMEST_MODEL_NUM_LOCAL_EXPERTS)) return VRAMEST_OK;
    if (!is_set(m, VRAMEST_MODEL_NUM_LOCAL_EXPERTS)) return missing(fam, VRAMEST_MODEL_NUM_LOCAL_EXPERTS);
    if (!is_set(m, VRAMEST_MODEL_NUM_EXPERTS_PER_TOK)) return missing(fam, VRAMEST_MODEL_NUM_EXPERTS_PER_TOK);
    s->experts = a->num_local_experts;
    s->experts_per_tok = a->num_experts_per_tok;
    if (s->experts_per_tok > s->experts)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "num_experts_per_tok (%lld) is larger than num_local_experts (%lld)",
                       (long long)s->experts_per_tok, (long long)s->experts);
    if (f->moe_ffn_from_ffn) {
        s->moe_ffn = is_set(m, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE) ? a->moe_intermediate_size : s->ffn;
        /* a shared MLP is still to come (Llama 4, Granite 4.0) */
        if (r->shared == VX_SHX_NONE) return VRAMEST_OK;
    } else if (f->generic && !is_set(m, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE) && s->ffn) {
        /* the generic decoder takes intermediate_size for experts without their own */
        s->moe_ffn = s->ffn;
    } else if (!is_set(m, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE)) {
        return missing(fam, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE);
    } else {
        s->moe_ffn = a->moe_intermediate_size;
    }
    s->shared_kind = r->shared;
    if (r->shared == VX_SHX_GATED_ONE) {
        /* One shared expert of its own width, behind a sigmoid gate. */
        if (!is_set(m, VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE))
            return missing(fam, VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE);
        s->shared_experts = 1;
        s->shared_ffn = a->shared_expert_intermediate_size; /* 0: the gate alone */
    } else if (r->shared == VX_SHX_ONE) {
        /* One always-active expert of the routed experts' width (Llama 4's
         * shared_expert is Llama4TextMLP(config): intermediate_size). */
        s->shared_experts = 1;
        s->shared_ffn = s->moe_ffn;
    } else if (r->shared == VX_SHX_OWN) {
        /* n_shared_experts (default 1) of their own width as one MLP, no gate. */
        if (!is_set(m, VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE))
            return missing(fam, VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE);
        s->shared_experts = 1;
        s->shared_ffn = (is_set(m, VRAMEST_MODEL_N_SHARED_EXPERTS) ? a->n_shared_experts : 1) *
                        a->shared_expert_intermediate_size;
    } else if (r->shared == VX_SHX_DENSE) {
        /* the layer's own MLP of intermediate_size beside the experts */
        if (!s->ffn) return missing(fam, VRAMEST_MODEL_INTERMEDIATE_SIZE);
        s->shared_experts = 1;
        s->shared_ffn = s->ffn;
    } else if (r->shared == VX_SHX_MERGED) {
        /* n_shared_experts merged into one MLP of width
         * moe_intermediate_size * n_shared_experts (DeepSeek). */
        s->shared_experts = a->n_shared_experts;
        s->shared_ffn = a->n_shared_experts * s->moe_ffn;
    }
    if (f->dense_first) {
        s->dense_layers = a->first_k_dense_replace;
        s->moe_freq = a->moe_layer_freq > 1 ? a->moe_layer_freq : 1;
        if (s->dense_layers > s->layers)
            return vx_fail(VRAMEST_E_INVALID_MODEL, "first_k_dense_replace (%lld) is larger than num_hidden_layers (%lld)",
                           (long long)s->dense_layers, (long long)s->layers);
        if ((s->dense_layers > 0 || s->moe_freq > 1) && !s->ffn) return missing(fam, VRAMEST_MODEL_INTERMEDIATE_SIZE);
    }
    return VRAMEST_OK;
}

static int resolve_mla(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    int fam = s->family;
    if (!s->fam->mla) return VRAMEST_OK;
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

/* Rules that vary per layer within a period (layers.c reads them): Llama
 * 4's interleaved experts, NoPE and chunked layers; the DSA indexer and
 * GLM-5.2's layers that reuse another's top-k; the MTP layers a
 * checkpoint stores beside the model. */
static int resolve_periodic(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    const vx_family *f = s->fam;
    int fam = s->family;
    s->global_head_dim = a->global_head_dim;
    s->global_kv_heads = a->num_global_key_value_heads;
    s->k_eq_v = (int)a->attention_k_eq_v;
    s->cla = a->cla_share_factor > 1 ? a->cla_share_factor : 0;
    /* Gemma4TextModel / Gemma4TextAttention: the last num_kv_shared_layers
     * layers reuse keys and values (i >= first > 0 there, so all layers
     * sharing is no sharing; refused as a broken config here) */
    s->ple_dim = a->hidden_size_per_layer_input;
    s->ple_vocab = a->vocab_size_per_layer_input > 0 ? a->vocab_size_per_layer_input : s->vocab;
    s->double_wide = (int)a->use_double_wide_mlp;
    if (a->num_kv_shared_layers >= s->layers && a->num_kv_shared_layers > 0)
        return vx_fail(VRAMEST_E_INVALID_MODEL,
                       "num_kv_shared_layers (%lld) leaves no layer of num_hidden_layers (%lld) to share from",
                       (long long)a->num_kv_shared_layers, (long long)s->layers);
    s->kv_shared_from = a->num_kv_shared_layers > 0 ? s->layers - a->num_kv_shared_layers : 0;
    if (s->global_kv_heads > 0 && (s->global_kv_heads > s->heads || s->heads % s->global_kv_heads))
        return vx_fail(VRAMEST_E_INVALID_MODEL,
                       "num_global_key_value_heads (%lld) does not divide num_attention_heads (%lld)",
                       (long long)s->global_kv_heads, (long long)s->heads);
    if (f->moe_interleave) {
        s->moe_step = a->interleave_moe_layer_step;
        /* The layers without experts have their own width (Llama 4:
         * intermediate_size is the experts', intermediate_size_mlp the
         * dense layers'). */
        if (s->moe_step > 1) {
            if (!is_set(m, VRAMEST_MODEL_INTERMEDIATE_SIZE_MLP))
                return missing(fam, VRAMEST_MODEL_INTERMEDIATE_SIZE_MLP);
            s->ffn = a->intermediate_size_mlp;
        }
    }
    if (f->nope_chunked) {
        /* absent: the class's default (Llama4TextConfig: 4); 0: RoPE everywhere */
        s->nope_every = is_set(m, VRAMEST_MODEL_NO_ROPE_LAYER_INTERVAL) ? a->no_rope_layer_interval : f->nope_default;
        s->chunk = a->attention_chunk_size > 0 ? a->attention_chunk_size : f->chunk_default;
    }
    if (f->dsa) {
        s->index_heads = a->index_n_heads > 0 ? a->index_n_heads : f->dsa_heads;
        s->index_dim = a->index_head_dim > 0 ? a->index_head_dim : f->dsa_dim;
        s->index_freq = a->index_topk_freq;
        s->index_offset = a->index_skip_topk_offset;
        if (!s->index_heads) return missing(fam, VRAMEST_MODEL_INDEX_N_HEADS);
        if (!s->index_dim) return missing(fam, VRAMEST_MODEL_INDEX_HEAD_DIM);
        /* wq_b reads the compressed query */
        if (s->q_lora_rank <= 0)
            return vx_fail(VRAMEST_E_INVALID_MODEL,
                           "model_type '%s': the sparse-attention indexer reads the compressed query, so q_lora_rank "
                           "must be set",
                           fam_name(fam));
    }
    return VRAMEST_OK;
}

static void resolve_window(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    const vx_family *f = s->fam;
    int64_t w = a->sliding_window;
    switch (f->window) {
    case VX_WIN_ALL:
        if (w > 0) s->sliding_window = w, s->sliding_pattern = 1;
        break;
    case VX_WIN_FLAGGED: /* Qwen: only with use_sliding_window */
        if (w > 0 && a->use_sliding_window) s->sliding_window = w, s->sliding_pattern = 1;
        break;
    case VX_WIN_PATTERN: {
        /* sliding_window_pattern (or layer_types): 1 = no layer slides, more
         * than the layers = every layer does */
        int64_t P = a->sliding_window_pattern > 0 ? a->sliding_window_pattern : f->window_every;
        s->sliding_window = is_set(m, VRAMEST_MODEL_SLIDING_WINDOW) ? w : f->window_default;
        if (P == 1) s->sliding_window = 0;
        s->sliding_pattern = !s->sliding_window ? 0 : P > s->layers ? 1 : (int)P;
        break;
    }
    default: break;
    }
}

/* A heterogeneous model (layer_blocks): the model-wide key/value heads and
 * MLP width are those of its first attention layer and its widest MLP, the
 * references per-layer sizes are scaled from (tensor parallelism, caches). */
static int resolve_blocks(const struct vramest_model *m, vx_shape *s)
{
    if (!m->a.layer_blocks[0]) return VRAMEST_OK;
    vx_block_run b[VX_MAX_RUNS];
    size_t n;
    int rc = vx_layer_blocks_parse(m->a.layer_blocks, b, VX_MAX_RUNS, &n);
    if (rc) return rc;
    int64_t kv = 0, ffn = 0;
    for (size_t i = 0; i < n; i++) {
        if (!kv && b[i].kv > 0) kv = b[i].kv;
        if (b[i].ffn > ffn) ffn = b[i].ffn;
    }
    if (kv > 0) s->kv_heads = kv;
    if (!s->ffn) s->ffn = ffn;
    return VRAMEST_OK;
}

static int kind_default_head(const vx_family *f)
{
    if (f->kind == VX_FK_ENCODER) return VX_HEAD_MASKED_LM;
    if (f->kind == VX_FK_ENC_DEC) return VX_HEAD_SEQ2SEQ_LM;
    return VX_HEAD_CAUSAL_LM;
}

/* The row's rules, adjusted to the config by the family's hook. */
static void rules_of(const struct vramest_model *m, const vx_family *f, vx_rules *r)
{
    *r = (vx_rules){.norm = f->norm, .tied = f->tied, .attn_bias = f->attn_bias, .mlp_bias = f->mlp_bias,
                    .act = f->act, .gated = f->gated, .untied = f->untied, .hd_rule = f->hd_rule,
                    .kv_rule = f->kv_rule, .ffn_rule = f->ffn_rule, .placement = f->placement, .norms = f->norms,
                    .n_lm_head = f->n_lm_head ? f->n_lm_head : "lm_head", .moe = f->moe, .shared = f->shared};
    if (!r->norms) {
        int n = 0;
        while (n < 4 && f->n_norm[n]) n++;
        r->norms = (uint8_t)(n ? n : 2);
    }
    vx_fam_ctx c = {.a = &m->a, .set_bits = m->set_bits};
    if (f->adjust) f->adjust(&c, r);
}

static int resolve(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    if (!is_set(m, VRAMEST_MODEL_MODEL_TYPE) || a->model_type == VX_FAM_UNSET)
        return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "'model_type' is not set (the architecture family, e.g. llama)");
    int fam = (int)a->model_type;
    const vx_family *f = vx_family_of(fam);
    if (!f) return vx_fail(VRAMEST_E_UNKNOWN_MODEL_TYPE, "model_type %d is not supported", fam);
    s->family = fam;
    s->fam = f;
    vx_rules r;
    rules_of(m, f, &r);

    /* Values first, so a partially given model still reports what it has. */
    s->hidden = a->hidden_size;
    s->vocab = a->vocab_size;
    s->max_pos = a->max_position_embeddings;
    s->enc_dec = f->kind == VX_FK_ENC_DEC;
    s->encoder_only = f->kind == VX_FK_ENCODER;
    if (s->enc_dec) {
        s->enc_layers = a->num_hidden_layers;
        s->layers = is_set(m, VRAMEST_MODEL_NUM_DECODER_LAYERS) ? a->num_decoder_layers : a->num_hidden_layers;
    } else {
        s->layers = a->num_hidden_layers;
    }
    s->num_labels = a->num_labels;
    s->torch_dtype = a->torch_dtype;
    s->logit_softcap = a->final_logit_softcapping;

    /* Traits: the config's value, else the class default. */
    s->norm_kind = r.norm;
    s->tied = r.untied ? 0 : is_set(m, VRAMEST_MODEL_TIE_WORD_EMBEDDINGS) ? (int)a->tie_word_embeddings : r.tied;
    s->attn_bias = is_set(m, VRAMEST_MODEL_ATTENTION_BIAS) ? (int)a->attention_bias : r.attn_bias;
    s->attn_out_bias = f->o_bias_off ? 0 : s->attn_bias;
    if (is_set(m, VRAMEST_MODEL_ATTENTION_OUT_BIAS)) s->attn_out_bias = (int)a->attention_out_bias;
    s->mlp_bias = is_set(m, VRAMEST_MODEL_MLP_BIAS) ? (int)a->mlp_bias : r.mlp_bias;
    s->act = a->hidden_act != VX_ACT_AUTO ? (int)a->hidden_act : r.act;
    s->gated = r.gated;
    s->learned_pos = f->learned_pos;
    s->hidden_dropout = is_set(m, VRAMEST_MODEL_HIDDEN_DROPOUT) ? a->hidden_dropout : f->hidden_dropout;
    s->attn_dropout = is_set(m, VRAMEST_MODEL_ATTENTION_DROPOUT) ? a->attention_dropout : f->attn_dropout;
    s->qk_norm = f->qk_norm != VX_QKN_NONE && (!f->qk_norm_flag || a->qk_layernorm);
    s->rel_buckets = s->enc_dec && !f->abs_pos_enc_dec ? a->relative_attention_num_buckets : 0;
    s->embed_dim = s->hidden;
    s->norms_per_layer = r.norms;
    s->qkv_fused = f->qkv == VX_QKV_FUSED;
    s->placement = r.placement;
    s->lm_head_name = r.n_lm_head;
    s->lm_head_in_base = r.lm_head_in_base;

    /* Required values. */
    if (!s->hidden) return missing(fam, VRAMEST_MODEL_HIDDEN_SIZE);
    if (!a->num_hidden_layers) return missing(fam, VRAMEST_MODEL_NUM_HIDDEN_LAYERS);
    if (!s->vocab) return missing(fam, VRAMEST_MODEL_VOCAB_SIZE);
    /* A model without attention layers (Mamba) has no heads to resolve. */
    int rc = f->ssm_only ? VRAMEST_OK : resolve_heads(m, &r, s);
    if (rc) return rc;
    if (s->learned_pos && !s->max_pos) return missing(fam, VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS);
    if ((rc = resolve_ffn(m, &r, s))) return rc;
    if ((rc = resolve_moe(m, &r, s))) return rc;
    if ((rc = resolve_mla(m, s))) return rc;
    if ((rc = resolve_periodic(m, s))) return rc;
    resolve_window(m, s);
    if ((rc = resolve_blocks(m, s))) return rc;
    s->mtp_layers = a->num_nextn_predict_layers;

    if (f->embed_proj && is_set(m, VRAMEST_MODEL_WORD_EMBED_PROJ_DIM)) s->embed_dim = a->word_embed_proj_dim;
    if (f->rotary && !s->rotary_dim) s->rotary_dim = a->rotary_dim ? a->rotary_dim : s->head_dim;
    if (s->rotary_dim && !f->nope_chunked) s->nope_every = a->no_rope_layer_interval;
    if (s->rotary_dim > s->head_dim)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "rotary_dim (%lld) is larger than the head dimension (%lld)",
                       (long long)s->rotary_dim, (long long)s->head_dim);

    s->default_head = vx_head_resolve(s, head_from_architectures(a->architectures, f, kind_default_head(f)));
    s->token_head = s->default_head == VX_HEAD_SEQ_CLS && (ends_with(a->architectures, "ForTokenClassification") ||
                                                           ends_with(a->architectures, "ForQuestionAnswering"));
    return VRAMEST_OK;
}

int vx_shape_resolve(const struct vramest_model *m, vx_shape *s, vx_layers *L)
{
    memset(s, 0, sizeof *s);
    int rc = resolve(m, s);
    return rc ? rc : vx_hybrid_resolve(m, s, L);
}

int vx_shape_missing(int fam, vramest_option k)
{
    return missing(fam, k);
}
