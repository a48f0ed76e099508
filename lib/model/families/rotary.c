/* LayerNorm decoders with rotary positions: GPT-NeoX (two norms, parallel
 * residual), Falcon (its three layouts), Phi-1/2 (one norm, parallel
 * block, optional q/k LayerNorms), CodeGen / MOSS / GPT-J (one norm,
 * parallel block) and ChatGLM (v1, and the RMSNorm / SwiGLU layout of
 * ChatGLM2/3 and GLM-4). Each has its builder. Sources: transformers
 * models/{gpt_neox,falcon,phi,codegen,gptj}/modeling_*.py (4.38-4.44 for
 * the forward facts); the remote code of ChatGLM and MOSS. */
#include <string.h>

#include "model/families/groups.h"
#include "model/hf_config.h"
#include "model/inventory.h"

static void build_neox(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    (void)a;
    int64_t L = s->layers, h = s->hidden, f = s->ffn;
    vx_ib_emb(b, "embed_in", VX_ROLE_EMBED, s->vocab, h);
    vx_ib_norm(b, "input_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    vx_ib_norm(b, "post_attention_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    vx_ib_lin(b, "query_key_value", VX_ROLE_ATTN_QKV, VX_DEC, 3 * h, h, s->attn_bias, L);
    vx_ib_lin(b, "dense", VX_ROLE_ATTN_O, VX_DEC, h, h, s->attn_bias, L);
    vx_ib_lin(b, "dense_h_to_4h", VX_ROLE_MLP_UP, VX_DEC, f, h, s->mlp_bias, L);
    vx_ib_lin(b, "dense_4h_to_h", VX_ROLE_MLP_DOWN, VX_DEC, h, f, s->mlp_bias, L);
    vx_ib_norm(b, "final_layer_norm", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
}

/* GPTNeoXAttention: rotary on q and k, torch.where with the causal mask,
 * softmax in the input dtype. */
static const vx_attn_impl attn_neox = {.v_copy = 1, .mask_op = VX_MOP_WHERE, .softmax = VX_SM_NONE,
                                       .mask = VX_MASK_OTHER};

const vx_family vx_fam_gpt_neox = {
    .id = VX_FAM_GPT_NEOX, .name = "gpt_neox", .norm = VX_NORM_LAYER, .attn_bias = 1, .mlp_bias = 1,
    .act = VX_ACT_GELU, .rotary = 1, .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA, .qkv = VX_QKV_FUSED,
    .mlp = VX_MLPL_PLAIN, .placement = VX_PLACE_PARALLEL2, .n_lm_head = "embed_out", .attn = &attn_neox,
    .legacy_cache = 1, .prefill_pin = VX_PIN_QKV_V, .peft_targets = "query_key_value", .gguf = "gptneox",
    .build = build_neox,
};

static void build_falcon(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim, f = s->ffn;
    vx_ib_emb(b, "word_embeddings", VX_ROLE_EMBED, s->vocab, h);
    if (a->new_decoder_architecture && s->norms_per_layer == 2) {
        vx_ib_norm(b, "ln_attn", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
        vx_ib_norm(b, "ln_mlp", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    } else {
        vx_ib_norm(b, "input_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
        if (s->norms_per_layer == 2) vx_ib_norm(b, "post_attention_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    }
    /* (H + 2K) d covers all three layouts: 3h (MHA), h + 2d (multi-query),
     * grouped KV heads (new decoder architecture). */
    vx_ib_lin(b, "query_key_value", VX_ROLE_ATTN_QKV, VX_DEC, (H + 2 * K) * d, h, s->attn_bias, L);
    vx_ib_lin(b, "dense", VX_ROLE_ATTN_O, VX_DEC, h, H * d, s->attn_bias, L);
    vx_ib_lin(b, "dense_h_to_4h", VX_ROLE_MLP_UP, VX_DEC, f, h, s->mlp_bias, L);
    vx_ib_lin(b, "dense_4h_to_h", VX_ROLE_MLP_DOWN, VX_DEC, h, f, s->mlp_bias, L);
    vx_ib_norm(b, "ln_f", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
}

/* Falcon-7B: multi-query (multi_query defaults to true), one LayerNorm,
 * parallel attention; Falcon-40B/180B (new_decoder_architecture): grouped
 * KV heads and two LayerNorms (num_ln_in_parallel_attn). */
static void adjust_falcon(const vx_fam_ctx *c, vx_rules *r)
{
    const vx_arch *a = c->a;
    r->kv_rule = a->new_decoder_architecture ? VX_KV_CONFIG : VX_KV_MQA_FLAG;
    if (a->new_decoder_architecture)
        r->norms = a->num_ln_in_parallel_attn == 1 ? 1 : 2;
    else
        r->norms = a->parallel_attn ? 1 : 2;
    r->placement = (a->parallel_attn || a->new_decoder_architecture) ? VX_PLACE_PARALLEL : VX_PLACE_PRE;
}

/* RefinedWeb (40B) is the new decoder architecture that later configs
 * spell out. */
static int config_falcon(struct vx_cfgmap *m)
{
    if (!strcmp(vx_cfgmap_model_type(m), "RefinedWeb") && !vx_cfgmap_given(m, VRAMEST_MODEL_NEW_DECODER_ARCHITECTURE))
        return vx_cfgmap_set_i64(m, VRAMEST_MODEL_NEW_DECODER_ARCHITECTURE, 1, "model_type");
    return VRAMEST_OK;
}

/* FalconAttention (eager): .contiguous() q/k/v, scores / sqrt(d) in place,
 * F.softmax(scores + mask, dtype=hidden_states.dtype): no fp32 upcast. */
static const vx_attn_impl attn_falcon = {.contig = 1, .mask_op = VX_MOP_ADD, .softmax = VX_SM_NONE,
                                         .mask = VX_MASK_OTHER};

const vx_family vx_fam_falcon = {
    .id = VX_FAM_FALCON, .name = "falcon", .norm = VX_NORM_LAYER, .tied = 1, .act = VX_ACT_GELU, .rotary = 1,
    .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MQA_FLAG, .ffn_rule = VX_FFN_4H, .qkv = VX_QKV_FUSED,
    .mlp = VX_MLPL_PLAIN, .placement = VX_PLACE_PARALLEL, .attn = &attn_falcon, .legacy_cache = 1,
    .peft_targets = "query_key_value", .gguf = "falcon",
    .gguf_flags = VX_GGF_MULTI_QUERY | VX_GGF_NEW_ARCH | VX_GGF_FALCON_MIX,
    .keys = {{"bias", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_ATTENTION_BIAS, VRAMEST_MODEL_MLP_BIAS}}},
    .adjust = adjust_falcon, .config = config_falcon, .build = build_falcon,
};

static void build_phi(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    (void)a;
    int64_t L = s->layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim, f = s->ffn;
    vx_ib_emb(b, "embed_tokens", VX_ROLE_EMBED, s->vocab, h);
    vx_ib_norm(b, "input_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    vx_ib_lin(b, "q_proj", VX_ROLE_ATTN_Q, VX_DEC, H * d, h, s->attn_bias, L);
    vx_ib_lin(b, "k_proj", VX_ROLE_ATTN_K, VX_DEC, K * d, h, s->attn_bias, L);
    vx_ib_lin(b, "v_proj", VX_ROLE_ATTN_V, VX_DEC, K * d, h, s->attn_bias, L);
    vx_ib_lin(b, "dense", VX_ROLE_ATTN_O, VX_DEC, h, H * d, s->attn_bias, L);
    if (s->qk_norm) {
        vx_ib_norm(b, "q_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, d, L);
        vx_ib_norm(b, "k_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, d, L);
    }
    vx_ib_lin(b, "fc1", VX_ROLE_MLP_UP, VX_DEC, f, h, s->mlp_bias, L);
    vx_ib_lin(b, "fc2", VX_ROLE_MLP_DOWN, VX_DEC, h, f, s->mlp_bias, L);
    vx_ib_norm(b, "final_layernorm", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
}

/* PhiAttention: rotary on the first partial_rotary_factor of each head,
 * scaled scores, fp32 softmax, residual dropout. */
static const vx_attn_impl attn_phi = {.v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_ADD, .softmax = VX_SM_UPCAST,
                                      .post_drop = 1, .mask = VX_MASK_OTHER};

const vx_family vx_fam_phi = {
    .id = VX_FAM_PHI, .name = "phi", .norm = VX_NORM_LAYER, .attn_bias = 1, .mlp_bias = 1,
    .act = VX_ACT_GELU_NEW, .rotary = 1, .norms = 1, .qk_norm = VX_QKN_HEAD, .qk_norm_flag = 1, .qk_norm_ln = 1,
    .mlp = VX_MLPL_PLAIN, .placement = VX_PLACE_PARALLEL, .lm_head_bias = 1, .attn = &attn_phi,
    .logits_float = 1, .peft_targets = "q_proj,v_proj,fc1,fc2", .gguf = "phi2", .gguf_flags = VX_GGF_ROTARY_DIM,
    .build = build_phi,
};

/* CodeGen (and MOSS, which is CodeGen-16B) fuse q|k|v without bias; GPT-J
 * keeps them apart. Both: one LayerNorm, attention and MLP in parallel. */
static void build_codegen(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    (void)a;
    int64_t L = s->layers, h = s->hidden, f = s->ffn;
    vx_ib_emb(b, "wte", VX_ROLE_EMBED, s->vocab, h);
    vx_ib_norm(b, "ln_1", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    if (!s->qkv_fused) {
        vx_ib_lin(b, "q_proj", VX_ROLE_ATTN_Q, VX_DEC, h, h, s->attn_bias, L);
        vx_ib_lin(b, "k_proj", VX_ROLE_ATTN_K, VX_DEC, h, h, s->attn_bias, L);
        vx_ib_lin(b, "v_proj", VX_ROLE_ATTN_V, VX_DEC, h, h, s->attn_bias, L);
    } else {
        vx_ib_lin(b, "qkv_proj", VX_ROLE_ATTN_QKV, VX_DEC, 3 * h, h, s->attn_bias, L);
    }
    vx_ib_lin(b, "out_proj", VX_ROLE_ATTN_O, VX_DEC, h, h, s->attn_bias, L);
    vx_ib_lin(b, "fc_in", VX_ROLE_MLP_UP, VX_DEC, f, h, s->mlp_bias, L);
    vx_ib_lin(b, "fc_out", VX_ROLE_MLP_DOWN, VX_DEC, h, f, s->mlp_bias, L);
    vx_ib_norm(b, "ln_f", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
}

/* CodeGen / GPT-J _attn: query and key cast to fp32 before the product,
 * torch.where with the causal buffer, the scale, softmax, the cast back. */
static const vx_attn_impl attn_gptj = {.v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_ADD,
                                       .softmax = VX_SM_FP32_SCORES, .post_drop = 1, .mask = VX_MASK_OTHER};

const vx_family vx_fam_codegen = {
    .id = VX_FAM_CODEGEN, .name = "codegen", .norm = VX_NORM_LAYER, .mlp_bias = 1, .act = VX_ACT_GELU_NEW,
    .rotary = 1, .norms = 1, .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_4H,
    .qkv = VX_QKV_FUSED, .mlp = VX_MLPL_PLAIN, .placement = VX_PLACE_PARALLEL, .lm_head_bias = 1,
    .attn = &attn_gptj, .eager_only = 1, .legacy_cache = 1, .mask_buffer = VX_MBUF_LAYER,
    .peft_targets = "qkv_proj", .gguf = "codegen", .gguf_flags = VX_GGF_ROTARY_DIM, .build = build_codegen,
};

/* MOSS: CodeGen-16B's layout (remote code). */
const vx_family vx_fam_moss = {
    .id = VX_FAM_MOSS, .name = "moss", .norm = VX_NORM_LAYER, .mlp_bias = 1, .act = VX_ACT_GELU_NEW, .rotary = 1,
    .norms = 1, .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_4H, .qkv = VX_QKV_FUSED,
    .mlp = VX_MLPL_PLAIN, .placement = VX_PLACE_PARALLEL, .lm_head_bias = 1, .attn = &attn_gptj, .eager_only = 1,
    .legacy_cache = 1, .mask_buffer = VX_MBUF_LAYER, .peft_targets = "qkv_proj", .build = build_codegen,
};

const vx_family vx_fam_gptj = {
    .id = VX_FAM_GPTJ, .name = "gptj", .norm = VX_NORM_LAYER, .mlp_bias = 1, .act = VX_ACT_GELU_NEW, .rotary = 1,
    .norms = 1, .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_4H, .mlp = VX_MLPL_PLAIN,
    .placement = VX_PLACE_PARALLEL, .lm_head_bias = 1, .attn = &attn_gptj, .legacy_cache = 1,
    .mask_buffer = VX_MBUF_LAYER_BIAS, .gguf = "gptj", .gguf_flags = VX_GGF_ROTARY_DIM, .build = build_codegen,
};

/* ChatGLM-6B (v1): GLM block with LayerNorms and biases everywhere.
 * ChatGLM2/3, GLM-4 (rmsnorm): grouped KV, SwiGLU, add_qkv_bias on q|k|v
 * only (attention_bias), add_bias_linear on the rest (mlp_bias). */
static void build_chatglm(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    (void)a;
    int64_t L = s->layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim, f = s->ffn;
    int nk = s->norm_kind;
    bool v2 = nk == VX_NORM_RMS;
    vx_ib_emb(b, "word_embeddings", VX_ROLE_EMBED, s->vocab, h);
    vx_ib_norm(b, "input_layernorm", VX_ROLE_NORM, VX_DEC, nk, h, L);
    vx_ib_lin(b, "query_key_value", VX_ROLE_ATTN_QKV, VX_DEC, (H + 2 * K) * d, h, s->attn_bias, L);
    vx_ib_lin(b, "dense", VX_ROLE_ATTN_O, VX_DEC, h, H * d, v2 ? s->mlp_bias : s->attn_bias, L);
    vx_ib_norm(b, "post_attention_layernorm", VX_ROLE_NORM, VX_DEC, nk, h, L);
    if (v2)
        vx_ib_lin(b, "dense_h_to_4h", VX_ROLE_MLP_GATE_UP, VX_DEC, 2 * f, h, s->mlp_bias, L);
    else
        vx_ib_lin(b, "dense_h_to_4h", VX_ROLE_MLP_UP, VX_DEC, f, h, s->mlp_bias, L);
    vx_ib_lin(b, "dense_4h_to_h", VX_ROLE_MLP_DOWN, VX_DEC, h, f, s->mlp_bias, L);
    vx_ib_norm(b, "final_layernorm", VX_ROLE_FINAL_NORM, VX_GLB, nk, h, 0);
}

/* ChatGLM2/3 and GLM-4 set `rmsnorm`: RMSNorm, SwiGLU, no biases but
 * add_qkv_bias, grouped KV heads with multi_query_attention, kv_channels
 * as the head width, an untied output_layer inside ChatGLMModel. */
static void adjust_chatglm(const vx_fam_ctx *c, vx_rules *r)
{
    const vx_arch *a = c->a;
    if (!a->rmsnorm) {
        r->hd_rule = VX_HD_HIDDEN; /* v1 has no kv_channels */
        r->kv_rule = VX_KV_MHA;
        r->ffn_rule = VX_FFN_4H;
        return;
    }
    r->norm = VX_NORM_RMS;
    r->untied = 1; /* output_layer has no tie_weights hook */
    r->attn_bias = r->mlp_bias = 0;
    r->act = VX_ACT_SILU;
    r->gated = 1;
    r->kv_rule = a->multi_query ? VX_KV_CONFIG : VX_KV_MHA;
    r->ffn_rule = VX_FFN_REQUIRED;
    r->n_lm_head = "output_layer";
    r->lm_head_in_base = 1;
}

/* The GLM block runs Llama's attention ops with its own mask. */
static const vx_attn_impl attn_glm = {.v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_ADD, .softmax = VX_SM_UPCAST,
                                      .mask = VX_MASK_OTHER};

const vx_family vx_fam_chatglm = {
    .id = VX_FAM_CHATGLM, .name = "chatglm", .norm = VX_NORM_LAYER, .tied = 1, .attn_bias = 1, .mlp_bias = 1,
    .act = VX_ACT_GELU, .rotary = 1, .qkv = VX_QKV_FUSED, .mlp = VX_MLPL_PLAIN, .lm_class_model = 1,
    .attn = &attn_glm, .eager_only = 1, .legacy_cache = 1, .prefill_pin = VX_PIN_QKV_V,
    .peft_targets = "query_key_value", .gguf = "chatglm",
    .keys = {{"add_qkv_bias", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_ATTENTION_BIAS, 0}},
             {"add_bias_linear", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_MLP_BIAS, 0}},
             /* The embedding has padded_vocab_size rows, whatever vocab_size says. */
             {"padded_vocab_size", VX_CK_INT_FORCE, {VRAMEST_MODEL_VOCAB_SIZE, 0}},
             {"multi_query_group_num", VX_CK_INT_SOFT, {VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, 0}}},
    .adjust = adjust_chatglm, .build = build_chatglm,
};
