/* GPT-2-style LayerNorm decoders: GPT-2 and GPT-BigCode (learned
 * positions, Conv1D c_attn / c_fc / c_proj), OPT (learned positions with an
 * offset, optional projections of a narrower embedding, post-LN variant)
 * and BLOOM (ALiBi, an embedding LayerNorm). Each has its builder: their
 * layouts are not the generic decoder's. Sources: transformers
 * models/{gpt2,gpt_bigcode,opt,bloom}/modeling_*.py (4.38-4.44 for the
 * forward facts). */
#include "model/families/groups.h"
#include "model/inventory.h"

static void build_gpt2(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    (void)a;
    int64_t L = s->layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim, f = s->ffn;
    vx_ib_emb(b, "wte", VX_ROLE_EMBED, s->vocab, h);
    vx_ib_emb(b, "wpe", VX_ROLE_POS_EMBED, s->max_pos, h);
    vx_ib_norm(b, "ln_1", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    /* GPT-BigCode multi-query: c_attn emits q plus one k and one v head. */
    vx_ib_lin(b, "c_attn", VX_ROLE_ATTN_QKV, VX_DEC, (H + 2 * K) * d, h, s->attn_bias, L);
    vx_ib_lin(b, "c_proj", VX_ROLE_ATTN_O, VX_DEC, h, h, s->attn_bias, L);
    vx_ib_norm(b, "ln_2", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    vx_ib_lin(b, "c_fc", VX_ROLE_MLP_UP, VX_DEC, f, h, s->mlp_bias, L);
    vx_ib_lin(b, "c_proj", VX_ROLE_MLP_DOWN, VX_DEC, h, f, s->mlp_bias, L);
    vx_ib_norm(b, "ln_f", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
}

/* GPT2Attention: head-split views that matmul copies, scores scaled by a
 * separate op, torch.where with the causal buffer, softmax in the input
 * dtype. */
static const vx_attn_impl attn_gpt2 = {.qk_copy = 1, .v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_WHERE,
                                       .softmax = VX_SM_NONE, .post_drop = 1, .mask = VX_MASK_NONE};

const vx_family vx_fam_gpt2 = {
    .id = VX_FAM_GPT2, .name = "gpt2", .norm = VX_NORM_LAYER, .tied = 1, .attn_bias = 1, .mlp_bias = 1,
    .act = VX_ACT_GELU_NEW, .learned_pos = 1, .hidden_dropout = 0.1, .attn_dropout = 0.1,
    .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_4H, .qkv = VX_QKV_FUSED,
    .mlp = VX_MLPL_PLAIN, .attn = &attn_gpt2, .embed_dropout = 1, .legacy_cache = 1,
    .mask_buffer = VX_MBUF_LAYER_BIAS, .prefill_pin = VX_PIN_QKV, .peft_targets = "c_attn", .gguf = "gpt2",
    .build = build_gpt2,
};

/* GPTBigCodeAttention: GPT-2's layout with multi-query attention
 * (multi_query defaults to true) and upcast_masked_softmax (fp32, the
 * attention_softmax_in_fp32 default) over a bool mask sliced from one shared
 * buffer. */
static const vx_attn_impl attn_bigcode = {.qk_copy = 1, .v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_WHERE,
                                          .softmax = VX_SM_UPCAST, .post_drop = 1, .mask = VX_MASK_OTHER};

const vx_family vx_fam_gpt_bigcode = {
    .id = VX_FAM_GPT_BIGCODE, .name = "gpt_bigcode", .norm = VX_NORM_LAYER, .tied = 1, .attn_bias = 1,
    .mlp_bias = 1, .act = VX_ACT_GELU_TANH, .learned_pos = 1, .hidden_dropout = 0.1, .attn_dropout = 0.1,
    .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MQA_FLAG, .ffn_rule = VX_FFN_4H, .qkv = VX_QKV_FUSED,
    .mlp = VX_MLPL_PLAIN, .attn = &attn_bigcode, .embed_dropout = 1, .legacy_cache = 1,
    .mask_buffer = VX_MBUF_SHARED, .prefill_pin = VX_PIN_QKV, .peft_targets = "c_attn", .gguf = "starcoder",
    .gguf_flags = VX_GGF_MULTI_QUERY, .build = build_gpt2,
};

static void build_opt(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, f = s->ffn, e = s->embed_dim;
    vx_ib_emb(b, "embed_tokens", VX_ROLE_EMBED, s->vocab, e);
    /* OPTLearnedPositionalEmbedding keeps 2 extra rows (padding offset). */
    vx_ib_emb(b, "embed_positions", VX_ROLE_POS_EMBED, s->max_pos + 2, h);
    if (e != h) {
        vx_ib_lin(b, "project_out", VX_ROLE_EMBED_PROJ, VX_GLB, e, h, 0, 0);
        vx_ib_lin(b, "project_in", VX_ROLE_EMBED_PROJ, VX_GLB, h, e, 0, 0);
    }
    vx_ib_lin(b, "q_proj", VX_ROLE_ATTN_Q, VX_DEC, h, h, s->attn_bias, L);
    vx_ib_lin(b, "k_proj", VX_ROLE_ATTN_K, VX_DEC, h, h, s->attn_bias, L);
    vx_ib_lin(b, "v_proj", VX_ROLE_ATTN_V, VX_DEC, h, h, s->attn_bias, L);
    vx_ib_lin(b, "out_proj", VX_ROLE_ATTN_O, VX_DEC, h, h, s->attn_bias, L);
    vx_ib_norm(b, "self_attn_layer_norm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    vx_ib_lin(b, "fc1", VX_ROLE_MLP_UP, VX_DEC, f, h, s->mlp_bias, L);
    vx_ib_lin(b, "fc2", VX_ROLE_MLP_DOWN, VX_DEC, h, f, s->mlp_bias, L);
    vx_ib_norm(b, "final_layer_norm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    /* Post-LN OPT (350m) has no final LayerNorm. */
    if (a->do_layer_norm_before) vx_ib_norm(b, "final_layer_norm", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
}

/* OPT-350m is post-LN (do_layer_norm_before false). */
static void adjust_opt(const vx_fam_ctx *c, vx_rules *r)
{
    if (!c->a->do_layer_norm_before) r->placement = VX_PLACE_POST;
}

/* OPTAttention: q pre-scaled, .contiguous() copies of q/k/v (_shape), the
 * additive mask then torch.max(scores, finfo.min), fp32 softmax only for
 * fp16. */
static const vx_attn_impl attn_opt = {.contig = 1, .prescale = 1, .mask_op = VX_MOP_ADD_MAX,
                                      .softmax = VX_SM_UPCAST_FP16, .post_drop = 1, .mask = VX_MASK_OTHER};

const vx_family vx_fam_opt = {
    .id = VX_FAM_OPT, .name = "opt", .norm = VX_NORM_LAYER, .tied = 1, .attn_bias = 1, .mlp_bias = 1,
    .act = VX_ACT_RELU, .learned_pos = 1, .hidden_dropout = 0.1, .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA,
    .mlp = VX_MLPL_PLAIN, .embed_proj = 1, .attn = &attn_opt, .pos_per_token = 1, .legacy_cache = 1,
    .gguf = "opt", .keys = {{"enable_bias", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_ATTENTION_BIAS, VRAMEST_MODEL_MLP_BIAS}}},
    .adjust = adjust_opt, .build = build_opt,
};

static void build_bloom(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    (void)a;
    int64_t L = s->layers, h = s->hidden, f = s->ffn;
    vx_ib_emb(b, "word_embeddings", VX_ROLE_EMBED, s->vocab, h);
    vx_ib_norm(b, "word_embeddings_layernorm", VX_ROLE_EMBED_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
    vx_ib_norm(b, "input_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    vx_ib_lin(b, "query_key_value", VX_ROLE_ATTN_QKV, VX_DEC, 3 * h, h, s->attn_bias, L);
    vx_ib_lin(b, "dense", VX_ROLE_ATTN_O, VX_DEC, h, h, s->attn_bias, L);
    vx_ib_norm(b, "post_attention_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, h, L);
    vx_ib_lin(b, "dense_h_to_4h", VX_ROLE_MLP_UP, VX_DEC, f, h, s->mlp_bias, L);
    vx_ib_lin(b, "dense_4h_to_h", VX_ROLE_MLP_DOWN, VX_DEC, h, f, s->mlp_bias, L);
    vx_ib_norm(b, "ln_f", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
}

/* BloomAttention: reshaped (contiguous) q/k/v, baddbmm with the ALiBi bias,
 * masked_fill, fp32 softmax; no SDPA path. */
static const vx_attn_impl attn_bloom = {.contig = 1, .mask_op = VX_MOP_FILL, .softmax = VX_SM_UPCAST,
                                        .post_drop = 1, .mask = VX_MASK_OTHER};

const vx_family vx_fam_bloom = {
    .id = VX_FAM_BLOOM, .name = "bloom", .norm = VX_NORM_LAYER, .tied = 1, .attn_bias = 1, .mlp_bias = 1,
    .act = VX_ACT_GELU_TANH, .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_FIXED_4H,
    .qkv = VX_QKV_FUSED, .mlp = VX_MLPL_PLAIN, .attn = &attn_bloom, .eager_only = 1, .legacy_cache = 1,
    .peft_targets = "query_key_value", .gguf = "bloom", .build = build_bloom,
};
