/* Llama and the decoders that differ from it only in values the generic
 * builder reads (inventory.c): Mistral, Qwen 2/3, Gemma 1/2/3, Phi-3,
 * OLMo 2, StarCoder2, Cohere.
 * Sources: transformers' models/<family>/{configuration,modeling}_*.py. */
#include "model/families/groups.h"
#include "model/model.h"

const vx_family vx_fam_llama = {
    .id = VX_FAM_LLAMA, .name = "llama", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .logits_float = 1, .megatron_gpt = 1, .gguf = "llama", .gguf_moe_id = VX_FAM_MIXTRAL,
};

const vx_family vx_fam_mistral = {
    .id = VX_FAM_MISTRAL, .name = "mistral", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .window = VX_WIN_ALL, .logits_float = 1, .megatron_gpt = 1, .gguf = "mistral",
};

/* Qwen2: biases on q, k, v only; the window only with use_sliding_window. */
const vx_family vx_fam_qwen2 = {
    .id = VX_FAM_QWEN2, .name = "qwen2", .norm = VX_NORM_RMS, .attn_bias = 1, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .o_bias_off = 1, .window = VX_WIN_FLAGGED, .logits_float = 1, .megatron_gpt = 1, .gguf = "qwen2",
};

const vx_family vx_fam_qwen3 = {
    .id = VX_FAM_QWEN3, .name = "qwen3", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .head_dim = 128, .qk_norm = VX_QKN_HEAD, .window = VX_WIN_FLAGGED, .logits_float = 1, .megatron_gpt = 1,
    .gguf = "qwen3",
};

/* Gemma: GemmaRMSNorm (1 + weight), embeddings scaled by sqrt(hidden). */
const vx_family vx_fam_gemma = {
    .id = VX_FAM_GEMMA, .name = "gemma", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_GELU_TANH, .gated = 1,
    .rotary = 1, .head_dim = 256, .norm_impl = VX_NI_RMS_GEMMA, .embed_scale = 1, .logits_float = 1,
    .megatron_gpt = 1, .gguf = "gemma",
};

/* Gemma 2: norms before and after each sublayer; every other layer slides
 * (Gemma2Config sliding_window 4096); generate() uses a HybridCache. */
const vx_family vx_fam_gemma2 = {
    .id = VX_FAM_GEMMA2, .name = "gemma2", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_GELU_TANH, .gated = 1,
    .rotary = 1, .head_dim = 256, .window = VX_WIN_PATTERN, .window_every = 2, .window_default = 4096,
    .placement = VX_PLACE_SANDWICH,
    .n_norm = {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
               "post_feedforward_layernorm"},
    .norm_impl = VX_NI_RMS_GEMMA, .embed_scale = 1, .logits_float = 1, .megatron_gpt = 1, .swa_cache = 1,
    .gguf = "gemma2",
};

/* Gemma 3 (text): Gemma 2's layer with per-head q/k norms and 5 sliding
 * layers per global one. */
const vx_family vx_fam_gemma3 = {
    .id = VX_FAM_GEMMA3, .name = "gemma3", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_GELU_TANH, .gated = 1,
    .rotary = 1, .head_dim = 256, .qk_norm = VX_QKN_HEAD, .window = VX_WIN_PATTERN, .window_every = 6,
    .window_default = 4096, .placement = VX_PLACE_SANDWICH,
    .n_norm = {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
               "post_feedforward_layernorm"},
    .norm_impl = VX_NI_RMS_GEMMA, .embed_scale = 1, .logits_float = 1, .megatron_gpt = 1, .swa_cache = 1,
    .gguf = "gemma3",
};

/* Phi-3: fused qkv_proj ((heads + 2 kv heads) x head_dim) and gate_up_proj. */
const vx_family vx_fam_phi3 = {
    .id = VX_FAM_PHI3, .name = "phi3", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .qkv = VX_QKV_FUSED, .mlp = VX_MLPL_GATE_UP, .window = VX_WIN_ALL, .logits_float = 1, .megatron_gpt = 1,
    .prefill_pin = VX_PIN_QKV_V, .peft_targets = "qkv_proj", .gguf = "phi3",
};

/* OLMo 2 (Olmo2Config, transformers >= 4.47): an RMSNorm after each sublayer
 * and before the residual add, none before (post_attention_layernorm,
 * post_feedforward_layernorm); q_norm and k_norm over the whole projection
 * (heads x head_dim, kv_heads x head_dim); untied, no biases. Olmo2Attention
 * is Llama's eager attention; the class postdates logits.float() in the
 * forward. PEFT has no default target modules for it. llama.cpp: olmo2. */
const vx_family vx_fam_olmo2 = {
    .id = VX_FAM_OLMO2, .name = "olmo2", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .qk_norm = VX_QKN_FULL, .placement = VX_PLACE_POST_SUB,
    .n_norm = {"post_attention_layernorm", "post_feedforward_layernorm"}, .peft_targets = "", .gguf = "olmo2",
};

/* StarCoder2 (Starcoder2Config, transformers >= 4.39): LayerNorms with a
 * bias, biases on every linear (`use_bias`), a plain GELU MLP c_fc / c_proj,
 * a sliding window on every layer (a mask in DynamicCache), tied head;
 * dropout on the embeddings, the attention weights and each sublayer's
 * output (`residual_dropout`, the one counted for the stream). Its eager
 * attention is Mistral's plus that residual dropout, with logits.float()
 * in the forward (4.39-4.44). PEFT has no default target modules for it.
 * llama.cpp: starcoder2. */
static const vx_attn_impl attn_starcoder2 = {.v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_ADD,
                                             .softmax = VX_SM_UPCAST, .post_drop = 1, .mask = VX_MASK_4D};

const vx_family vx_fam_starcoder2 = {
    .id = VX_FAM_STARCODER2, .name = "starcoder2", .norm = VX_NORM_LAYER, .tied = 1, .attn_bias = 1, .mlp_bias = 1,
    .act = VX_ACT_GELU_TANH, .rotary = 1, .mlp = VX_MLPL_PLAIN, .n_up = "c_fc", .n_down = "c_proj",
    .window = VX_WIN_ALL, .attn = &attn_starcoder2, .embed_dropout = 1, .logits_float = 1, .megatron_gpt = 1,
    .peft_targets = "", .gguf = "starcoder2",
    .keys = {{"use_bias", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_ATTENTION_BIAS, VRAMEST_MODEL_MLP_BIAS}},
             {"residual_dropout", VX_CK_F64_SOFT, {VRAMEST_MODEL_HIDDEN_DROPOUT, 0}}},
};

/* Cohere (Command-R, Aya; CohereConfig, transformers >= 4.40): one
 * LayerNorm without a bias per layer, attention and MLP in parallel on its
 * output; with `use_qk_norm` q/k LayerNorms over (heads, head_dim) and
 * (kv_heads, head_dim); a tied head whose logits are multiplied by
 * `logit_scale`, then .float() (4.40-4.44). CohereLayerNorm normalises in
 * fp32, which the training programs run as Llama's RMSNorm (one fp32 copy
 * fewer). Eager attention: Llama's. PEFT has no default target modules for
 * it. llama.cpp: command-r. */
const vx_family vx_fam_cohere = {
    .id = VX_FAM_COHERE, .name = "cohere", .norm = VX_NORM_LN_WEIGHT, .tied = 1, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .qk_norm = VX_QKN_FULL, .qk_norm_flag = 1, .placement = VX_PLACE_PARALLEL,
    .n_norm = {"input_layernorm"}, .logits_float = 1, .logits_scaled = 1, .peft_targets = "", .gguf = "command-r",
    .keys = {{"use_qk_norm", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_QK_LAYERNORM, 0}}},
};
