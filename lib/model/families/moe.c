/* Mixture-of-experts decoders on the generic builder: a router ("gate")
 * and routed experts per MoE layer, with shared experts and leading dense
 * layers where the family has them. */
#include "model/families/groups.h"
#include "model/model.h"

/* Mixtral: experts w1 (gate), w3 (up), w2 (down) of intermediate_size. */
const vx_family vx_fam_mixtral = {
    .id = VX_FAM_MIXTRAL, .name = "mixtral", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .window = VX_WIN_ALL, .n_expert = {"w1", "w3", "w2"},
    .logits_float = 1, .megatron_gpt = 1,
};

/* Qwen2-MoE: one shared expert of its own width behind a sigmoid gate. */
const vx_family vx_fam_qwen2_moe = {
    .id = VX_FAM_QWEN2_MOE, .name = "qwen2_moe", .norm = VX_NORM_RMS, .attn_bias = 1, .act = VX_ACT_SILU,
    .gated = 1, .rotary = 1, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_GATED_ONE,
    .o_bias_off = 1, .window = VX_WIN_FLAGGED, .logits_float = 1, .megatron_gpt = 1, .gguf = "qwen2moe",
};

const vx_family vx_fam_qwen3_moe = {
    .id = VX_FAM_QWEN3_MOE, .name = "qwen3_moe", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .head_dim = 128, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .qk_norm = VX_QKN_HEAD,
    .window = VX_WIN_FLAGGED, .logits_float = 1, .megatron_gpt = 1, .gguf = "qwen3moe",
};

/* DeepSeek-V2/V3: multi-head latent attention, first_k_dense_replace dense
 * layers, n_shared_experts merged into one MLP. PEFT has no default target
 * list for them. llama.cpp converts both to deepseek2; V3 gates experts
 * with a sigmoid. */
const vx_family vx_fam_deepseek_v2 = {
    .id = VX_FAM_DEEPSEEK_V2, .name = "deepseek_v2", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_MERGED,
    .dense_first = 1, .mla = 1, .logits_float = 1, .megatron_gpt = 1, .peft_targets = "", .gguf = "deepseek2",
    .gguf_sigmoid_id = VX_FAM_DEEPSEEK_V3,
};

const vx_family vx_fam_deepseek_v3 = {
    .id = VX_FAM_DEEPSEEK_V3, .name = "deepseek_v3", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_MERGED,
    .dense_first = 1, .mla = 1, .logits_float = 1, .megatron_gpt = 1, .peft_targets = "",
};
