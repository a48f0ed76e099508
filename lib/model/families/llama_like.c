/* Decoders that vary from Llama in values the generic builder reads
 * (inventory.c): renamed modules, fused projections, biases, norms, q/k
 * norms, NoPE layers; added in the 2026 zoo (issue #16). Each row cites
 * the Hugging Face class it follows (transformers' models/<family>/, or
 * the checkpoint's remote code where transformers has none). */
#include "model/families/groups.h"
#include "model/inventory.h"
#include "model/model.h"

/* StableLM (StableLmConfig, transformers >= 4.38): LayerNorms with a bias,
 * q/k/v biases with `use_qkv_bias` and none on o_proj, partial rotary
 * (partial_rotary_factor 0.25), untied; `qk_layernorm` adds one LayerNorm
 * without bias per head (StableLmLayerNormPerHead: heads x head_dim
 * weights), `use_parallel_residual` runs attention and MLP on the one
 * input_layernorm (no post_attention_layernorm). Eager attention: Llama's
 * plus attention dropout. PEFT: q_proj, v_proj. llama.cpp: stablelm. */
static void adjust_stablelm(const vx_fam_ctx *c, vx_rules *r)
{
    if (vx_fam_is_set(c, VRAMEST_MODEL_PARALLEL_ATTN) && c->a->parallel_attn) {
        r->placement = VX_PLACE_PARALLEL;
        r->norms = 1;
    }
}

const vx_family vx_fam_stablelm = {
    .id = VX_FAM_STABLELM, .name = "stablelm", .norm = VX_NORM_LAYER, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .qk_norm = VX_QKN_FULL, .qk_norm_flag = 1, .o_bias_off = 1, .logits_float = 1, .gguf = "stablelm",
    .keys = {{"use_qkv_bias", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_ATTENTION_BIAS, 0}},
             {"use_parallel_residual", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_PARALLEL_ATTN, 0}}},
    .adjust = adjust_stablelm,
};

/* InternLM2 / 2.5 (remote code modeling_internlm2.py): tok_embeddings,
 * attention.wqkv fused per key/value group ((heads + 2 kv heads) x
 * head_dim rows), attention.wo, feed_forward.w1 / w3 / w2 (gate, up,
 * down), attention_norm and ffn_norm RMSNorms, norm, output; `bias` on
 * wqkv and wo only; untied. The cache keeps a view of wqkv's output for V.
 * PEFT has no default for it. llama.cpp: internlm2. */
const vx_family vx_fam_internlm2 = {
    .id = VX_FAM_INTERNLM2, .name = "internlm2", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .qkv = VX_QKV_FUSED, .n_embed = "tok_embeddings", .n_qkv = "wqkv", .n_o = "wo", .n_gate = "w1", .n_up = "w3",
    .n_down = "w2", .n_lm_head = "output", .n_norm = {"attention_norm", "ffn_norm"}, .prefill_pin = VX_PIN_QKV_V,
    .peft_targets = "", .gguf = "internlm2",
    .keys = {{"bias", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_ATTENTION_BIAS, 0}}},
};

/* Baichuan / Baichuan2 (remote code modeling_baichuan.py): q|k|v fused
 * into W_pack (3 x hidden rows, no bias), full multi-head attention, a
 * Llama MLP and RMSNorms; the head is a NormHead (vocab x hidden, no
 * bias), untied. The 13B models replace RoPE by ALiBi (no parameters, the
 * same cache). The cache keeps a view of W_pack's output for V. PEFT has no
 * default for it. llama.cpp: baichuan. */
const vx_family vx_fam_baichuan = {
    .id = VX_FAM_BAICHUAN, .name = "baichuan", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .kv_rule = VX_KV_MHA, .qkv = VX_QKV_FUSED, .n_qkv = "W_pack", .prefill_pin = VX_PIN_QKV_V, .peft_targets = "",
    .gguf = "baichuan",
};

/* MiniCPM (remote code modeling_minicpm.py): Llama's layout with muP
 * scalars that change no shape (scale_emb multiplies the embeddings,
 * dim_model_base divides the head's input, scale_depth the residual
 * branches); tied by default. With `num_experts` the MLP is a router
 * (gate, experts x hidden) over experts of intermediate_size (MiniCPM-MoE
 * 8x2B), no shared expert. PEFT has no default for it. llama.cpp: minicpm. */
static void adjust_minicpm(const vx_fam_ctx *c, vx_rules *r)
{
    r->moe = vx_fam_is_set(c, VRAMEST_MODEL_NUM_LOCAL_EXPERTS) && c->a->num_local_experts > 0 ? VX_MOE_ROUTED
                                                                                            : VX_MOE_NONE;
}

const vx_family vx_fam_minicpm = {
    .id = VX_FAM_MINICPM, .name = "minicpm", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .moe_ffn_from_ffn = 1, .embed_scale = 1, .peft_targets = "", .gguf = "minicpm",
    .adjust = adjust_minicpm,
};

/* Granite (GraniteConfig, transformers >= 4.45): Llama's modules with muP
 * multipliers (embedding_multiplier scales the embeddings, logits_scaling
 * divides the logits, residual and attention multipliers change no
 * tensor); tie_word_embeddings as the config says (the 3.x releases tie).
 * PEFT has no default for it. llama.cpp: granite. */
const vx_family vx_fam_granite = {
    .id = VX_FAM_GRANITE, .name = "granite", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .embed_scale = 1, .logits_scaled = 1, .peft_targets = "", .gguf = "granite",
};

/* SmolLM3 (SmolLM3Config, transformers >= 4.53): Llama's modules, tied by
 * default, and no RoPE on every no_rope_layer_interval-th layer
 * (no_rope_layers, 1 = RoPE); the sliding window only with
 * use_sliding_window. PEFT has no default for it. llama.cpp: smollm3. */
const vx_family vx_fam_smollm3 = {
    .id = VX_FAM_SMOLLM3, .name = "smollm3", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .window = VX_WIN_FLAGGED, .peft_targets = "", .gguf = "smollm3",
};

/* MiMo (remote code modeling_mimo.py, Xiaomi): Qwen2's decoder (q/k/v
 * biases, none on o_proj, untied) plus num_nextn_predict_layers MTP layers
 * that MiMoForCausalLM builds as parameters (model.mtp_layers, used only
 * for speculative decoding, so they are weights and nothing in the
 * forward): token_layernorm and hidden_layernorm, input_proj (2 hidden ->
 * hidden, no bias), a decoder layer (input_layernorm, attention, post-
 * attention norm, MLP) and final_layernorm. They carry no role of the
 * decoder layers (no layer of the stack runs them): VX_ROLE_OTHER
 * matrices and norms. PEFT has no default for it. */
static void build_mimo(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    (void)a;
    vx_ib_decoder(b, s);
    int64_t n = s->mtp_layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim, F = s->ffn;
    if (n <= 0) return;
    static const char *const norms[] = {"token_layernorm", "hidden_layernorm", "input_layernorm",
                                        "post_attention_layernorm", "final_layernorm"};
    for (size_t i = 0; i < sizeof norms / sizeof *norms; i++)
        vx_ib_put(b, norms[i], VX_ROLE_OTHER, VX_TK_NORM, VX_GLB, h, 1, 0, n, 0);
    vx_ib_put(b, "input_proj", VX_ROLE_OTHER, VX_TK_MATRIX, VX_GLB, h, 2 * h, 0, n, 0);
    static const struct {
        const char *name;
        int q, bias; /* rows in heads of q (1) or kv (0); biased */
    } attn[] = {{"q_proj", 1, 1}, {"k_proj", 0, 1}, {"v_proj", 0, 1}};
    for (size_t i = 0; i < 3; i++) {
        int64_t rows = (attn[i].q ? H : K) * d;
        vx_ib_put(b, attn[i].name, VX_ROLE_OTHER, VX_TK_MATRIX, VX_GLB, rows, h, 0, n, 0);
        vx_ib_put(b, attn[i].name, VX_ROLE_OTHER, VX_TK_BIAS, VX_GLB, rows, 1, 0, n, 0);
    }
    vx_ib_put(b, "o_proj", VX_ROLE_OTHER, VX_TK_MATRIX, VX_GLB, h, H * d, 0, n, 0);
    vx_ib_put(b, "gate_proj", VX_ROLE_OTHER, VX_TK_MATRIX, VX_GLB, F, h, 0, n, 0);
    vx_ib_put(b, "up_proj", VX_ROLE_OTHER, VX_TK_MATRIX, VX_GLB, F, h, 0, n, 0);
    vx_ib_put(b, "down_proj", VX_ROLE_OTHER, VX_TK_MATRIX, VX_GLB, h, F, 0, n, 0);
}

const vx_family vx_fam_mimo = {
    .id = VX_FAM_MIMO, .name = "mimo", .norm = VX_NORM_RMS, .attn_bias = 1, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .o_bias_off = 1, .window = VX_WIN_FLAGGED, .peft_targets = "", .build = build_mimo,
};

/* The generic decoder (issue #16 item 5): the stand-in for a model_type no
 * row describes, when its config.json has the usual keys (hidden_size,
 * num_hidden_layers, num_attention_heads, vocab_size, intermediate_size or
 * the MoE keys). Llama's layout with the config's sizes: q/k/v/o without
 * biases unless attention_bias says so, a gated SiLU MLP, two RMSNorms per
 * layer, tied unless tie_word_embeddings says otherwise (the default of
 * transformers' PretrainedConfig, which a config class without its own
 * keeps); routed experts when the config
 * gives num_experts (moe_intermediate_size, else intermediate_size), after
 * first_k_dense_replace dense layers, with n_shared_experts merged into one
 * MLP (DeepSeek) or one shared expert of shared_expert_intermediate_size
 * behind its gate (Qwen2-MoE); sliding windows only where layer_types or
 * sliding_window_pattern say. Every estimate says which model_type it
 * stands in for and marks the weights "approximate"; safetensors tensors
 * make them exact. */
static void adjust_generic(const vx_fam_ctx *c, vx_rules *r)
{
    const vx_arch *a = c->a;
    r->moe = vx_fam_is_set(c, VRAMEST_MODEL_NUM_LOCAL_EXPERTS) && a->num_local_experts > 0 ? VX_MOE_ROUTED
                                                                                          : VX_MOE_NONE;
    if (a->n_shared_experts > 0) r->shared = VX_SHX_MERGED;
    else if (a->shared_expert_intermediate_size > 0) r->shared = VX_SHX_GATED_ONE;
    if (r->moe) r->ffn_rule = VX_FFN_OPTIONAL;
}

const vx_family vx_fam_generic = {
    .id = VX_FAM_GENERIC, .name = "generic", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .dense_first = 1, .window = VX_WIN_PATTERN, .peft_targets = "", .adjust = adjust_generic, .generic = 1,
};

/* OLMo (OlmoConfig, transformers >= 4.40): Llama's modules with LayerNorms
 * that have no parameters at all (OlmoLayerNorm: F.layer_norm(x, shape,
 * None, None)), no biases; `clip_qkv` clamps q, k, v in place of a copy
 * (not counted); untied by default (OLMo-1B-hf ties). PEFT has no default
 * for it. llama.cpp: olmo. */
const vx_family vx_fam_olmo = {
    .id = VX_FAM_OLMO, .name = "olmo", .norm = VX_NORM_NONE, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .logits_float = 1, .peft_targets = "", .gguf = "olmo",
};

/* Cohere2 (Command-R7B, Command A; Cohere2Config, transformers >= 4.48):
 * Cohere's layer (one weight-only LayerNorm, parallel attention and MLP,
 * optional q/k norms, a tied head with scaled logits), with 3 sliding-window
 * layers (4096) to every global one (sliding_window_pattern 4, or
 * layer_types); the global layers have no RoPE. generate() keeps a hybrid
 * cache (sliding layers capped), as llama.cpp's SWA cache does. PEFT has no
 * default for it. llama.cpp: cohere2. */
const vx_family vx_fam_cohere2 = {
    .id = VX_FAM_COHERE2, .name = "cohere2", .norm = VX_NORM_LN_WEIGHT, .tied = 1, .act = VX_ACT_SILU,
    .gated = 1, .rotary = 1, .qk_norm = VX_QKN_FULL, .qk_norm_flag = 1, .window = VX_WIN_PATTERN,
    .window_every = 4, .window_default = 4096, .placement = VX_PLACE_PARALLEL, .n_norm = {"input_layernorm"},
    .logits_scaled = 1, .swa_cache = 1, .peft_targets = "", .gguf = "cohere2",
    .keys = {{"use_qk_norm", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_QK_LAYERNORM, 0}}}, .nope_full = 1,
};

/* EXAONE 3 / 3.5 / Deep (remote code modeling_exaone.py): Llama's modules
 * under GPT-2-style names: transformer.wte, h.N.ln_1 / ln_2 (RMSNorm),
 * attn.attention.{q,k,v,out}_proj, mlp.c_fc_0 (gate) / c_fc_1 (up) /
 * c_proj (down), ln_f; tied by default (ExaoneConfig). PEFT has no default
 * for it. llama.cpp: exaone. */
const vx_family vx_fam_exaone = {
    .id = VX_FAM_EXAONE, .name = "exaone", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .n_embed = "wte", .n_o = "out_proj", .n_gate = "c_fc_0", .n_up = "c_fc_1", .n_down = "c_proj",
    .n_final_norm = "ln_f", .n_norm = {"ln_1", "ln_2"}, .peft_targets = "", .gguf = "exaone",
};

/* EXAONE 4 (Exaone4Config, transformers >= 4.54): OLMo 2's block (an
 * RMSNorm after each sublayer, post_attention_layernorm and
 * post_feedforward_layernorm, none before) with per-head q/k RMSNorms;
 * 3 sliding layers to one global (sliding_window_pattern 4 or "LLLG", or
 * layer_types; 1.2B is all global), the global layers without RoPE;
 * untied by default. PEFT has no default for it. llama.cpp: exaone4. */
const vx_family vx_fam_exaone4 = {
    .id = VX_FAM_EXAONE4, .name = "exaone4", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .qk_norm = VX_QKN_HEAD, .window = VX_WIN_PATTERN, .window_every = 4, .window_default = 4096,
    .placement = VX_PLACE_POST_SUB, .n_norm = {"post_attention_layernorm", "post_feedforward_layernorm"},
    .swa_cache = 1, .peft_targets = "", .gguf = "exaone4", .nope_full = 1,
};

/* ERNIE 4.5 dense (Ernie4_5Config, transformers >= 4.54): Llama's modules
 * with `use_bias` on every linear (q/k/v/o and the MLP), tied by default.
 * PEFT has no default for it. llama.cpp: ernie4_5. */
const vx_family vx_fam_ernie4_5 = {
    .id = VX_FAM_ERNIE4_5, .name = "ernie4_5", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .peft_targets = "", .gguf = "ernie4_5",
    .keys = {{"use_bias", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_ATTENTION_BIAS, VRAMEST_MODEL_MLP_BIAS}}},
};

/* Seed-OSS (SeedOssConfig, transformers >= 4.56): Llama's modules with
 * q/k/v biases (attention_bias) and o_proj's own `attention_out_bias`
 * (false in the release), untied. PEFT has no default for it. llama.cpp:
 * seed_oss. */
const vx_family vx_fam_seed_oss = {
    .id = VX_FAM_SEED_OSS, .name = "seed_oss", .norm = VX_NORM_RMS, .attn_bias = 1, .act = VX_ACT_SILU,
    .gated = 1, .rotary = 1, .o_bias_off = 1, .peft_targets = "", .gguf = "seed_oss",
};

/* GLM-4 0414 (Glm4Config, transformers >= 4.51; GLM-4-9B/32B-0414, the
 * text part of GLM-4.1V): four RMSNorms per layer, around each sublayer
 * (input_layernorm, post_self_attn_layernorm, post_attention_layernorm,
 * post_mlp_layernorm: Gemma 2's sandwich), q/k/v biases without one on
 * o_proj, the MLP's gate and up fused (gate_up_proj), partial rotary
 * (partial_rotary_factor 0.5), untied. PEFT has no default for it.
 * llama.cpp: glm4. */
const vx_family vx_fam_glm4 = {
    .id = VX_FAM_GLM4, .name = "glm4", .norm = VX_NORM_RMS, .attn_bias = 1, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .o_bias_off = 1, .mlp = VX_MLPL_GATE_UP, .placement = VX_PLACE_SANDWICH,
    .n_norm = {"input_layernorm", "post_self_attn_layernorm", "post_attention_layernorm", "post_mlp_layernorm"},
    .peft_targets = "", .gguf = "glm4",
};

/* Nemotron (Nemotron-4 / Minitron; NemotronConfig, transformers >= 4.44):
 * LayerNorm1P (a weight and a bias; it scales by 1 + weight), a plain MLP
 * up_proj / down_proj with squared ReLU, partial rotary
 * (partial_rotary_factor), untied. PEFT has no default for it. llama.cpp:
 * nemotron. */
const vx_family vx_fam_nemotron = {
    .id = VX_FAM_NEMOTRON, .name = "nemotron", .norm = VX_NORM_LAYER, .act = VX_ACT_RELU, .rotary = 1,
    .mlp = VX_MLPL_PLAIN, .peft_targets = "", .gguf = "nemotron",
};
