/* Mixture-of-experts decoders of the 2026 zoo (issue #16) on the generic
 * builder (inventory.c): DeepSeek v1, Kimi-K2, MiniMax-M2, DBRX,
 * GraniteMoE. Each row cites the class it follows. */
#include "common/json_reader.h"

#include "model/families/groups.h"
#include "model/hf_config.h"
#include "model/model.h"

/* DeepSeek v1 (DeepSeekMoE 16B; remote code modeling_deepseek.py):
 * Llama attention with grouped KV heads as configured, first_k_dense_replace
 * dense layers of intermediate_size, then a router (gate, experts x hidden)
 * over n_routed_experts of moe_intermediate_size and n_shared_experts
 * merged into one MLP (shared_experts); experts on every moe_layer_freq-th
 * layer after the dense ones. PEFT has no default for it. llama.cpp:
 * deepseek. */
const vx_family vx_fam_deepseek = {
    .id = VX_FAM_DEEPSEEK, .name = "deepseek", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_MERGED, .dense_first = 1,
    .logits_float = 1, .peft_targets = "", .gguf = "deepseek",
};

/* Kimi-K2 (model_type kimi_k2; remote code modeling_deepseek.py, the
 * DeepSeek-V3 architecture): MLA, first_k_dense_replace dense layers, 384
 * routed experts and a shared one; its router's e_score_correction_bias is
 * an nn.Parameter there (a buffer in transformers' DeepseekV3TopkRouter).
 * llama.cpp converts it to deepseek2 (the deepseek_v3 row). */
const vx_family vx_fam_kimi_k2 = {
    .id = VX_FAM_KIMI_K2, .name = "kimi_k2", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_MERGED,
    .dense_first = 1, .mla = 1, .logits_float = 1, .peft_targets = "", .router_bias = 1,
};

/* MiniMax-M2 / M2.x (MiniMaxM2ForCausalLM, remote code and transformers
 * >= 4.57): q_norm / k_norm RMSNorms over all heads (qk_norm_type
 * per_layer: heads x head_dim, kv_heads x head_dim) with use_qk_norm,
 * partial rotary (rotary_dim), every layer a router (gate) with an
 * e_score_correction_bias Parameter over num_local_experts experts
 * w1 / w3 / w2 of intermediate_size, no shared expert
 * (shared_intermediate_size 0), untied. attn_type_list (1 = full
 * attention) is all full in the released configs. The MTP modules
 * (use_mtp) are not in the checkpoints. PEFT has no default for it.
 * llama.cpp: minimax-m2. */
const vx_family vx_fam_minimax_m2 = {
    .id = VX_FAM_MINIMAX_M2, .name = "minimax_m2", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .qk_norm = VX_QKN_FULL, .qk_norm_flag = 1,
    .n_expert = {"w1", "w3", "w2"}, .peft_targets = "", .gguf = "minimax-m2",
    .keys = {{"use_qk_norm", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_QK_LAYERNORM, 0}}},
    .router_bias = 1,
};

/* DBRX (DbrxConfig, transformers >= 4.40): the sizes sit in d_model,
 * n_heads, n_layers and two nested objects, attn_config (kv_n_heads) and
 * ffn_config (ffn_hidden_size, moe_num_experts, moe_top_k). Blocks:
 * norm_1 / norm_2 LayerNorms without bias, a fused Wqkv (hidden + 2 kv
 * heads x head_dim rows, no bias), out_proj, a router (router.layer,
 * experts x hidden) and the experts' w1 / v1 / w2 stored as
 * (experts x ffn, hidden) Parameters; norm_f; untied. */
static int nested_i64(struct vx_cfgmap *m, const vx_jv *root, const char *obj, const char *key, vramest_option k)
{
    const vx_jdoc *d = vx_cfgmap_doc(m);
    const vx_jv *o = vx_jget(d, root, obj), *v;
    if (!o || o->type != VX_J_OBJ || !(v = vx_jget(d, o, key)) || v->type == VX_J_NULL || vx_cfgmap_given(m, k))
        return VRAMEST_OK;
    if (v->type != VX_J_INT)
        return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s.%s': expected an integer", obj, key);
    return vx_cfgmap_set_i64(m, k, v->u.i, key);
}

static int config_dbrx(struct vx_cfgmap *m)
{
    static const struct {
        const char *obj, *key;
        vramest_option opt;
    } map[] = {
        {"attn_config", "kv_n_heads", VRAMEST_MODEL_NUM_KEY_VALUE_HEADS},
        {"ffn_config", "ffn_hidden_size", VRAMEST_MODEL_INTERMEDIATE_SIZE},
        {"ffn_config", "moe_num_experts", VRAMEST_MODEL_NUM_LOCAL_EXPERTS},
        {"ffn_config", "moe_top_k", VRAMEST_MODEL_NUM_EXPERTS_PER_TOK},
    };
    const vx_jv *root = vx_cfgmap_root(m);
    for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
        int rc = nested_i64(m, root, map[i].obj, map[i].key, map[i].opt);
        if (rc) return rc;
    }
    return VRAMEST_OK;
}

const vx_family vx_fam_dbrx = {
    .id = VX_FAM_DBRX, .name = "dbrx", .norm = VX_NORM_LN_WEIGHT, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .qkv = VX_QKV_FUSED, .n_embed = "wte", .n_qkv = "Wqkv",
    .n_o = "out_proj", .n_norm = {"norm_1", "norm_2"}, .n_final_norm = "norm_f", .n_expert = {"w1", "v1", "w2"},
    .peft_targets = "", .gguf = "dbrx", .config = config_dbrx, .n_router = "layer",
};

/* GraniteMoE (GraniteMoeConfig, transformers >= 4.45): Granite's attention
 * and muP multipliers; every layer a router (router.layer, experts x
 * hidden) and GraniteMoeParallelExperts: input_linear (experts, 2 x
 * intermediate_size, hidden) holding gate and up, output_linear (experts,
 * hidden, intermediate_size). PEFT has no default for it. llama.cpp:
 * granitemoe. */
const vx_family vx_fam_granitemoe = {
    .id = VX_FAM_GRANITEMOE, .name = "granitemoe", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .n_expert = {"input_linear", NULL, "output_linear"},
    .embed_scale = 1, .logits_scaled = 1, .peft_targets = "", .gguf = "granitemoe", .experts_fused = 1,
    .n_router = "layer",
};

/* OLMoE (OlmoeConfig, transformers >= 4.45): pre-norm RMSNorms, q_norm
 * and k_norm over the whole projection (hidden, kv_heads x head_dim), every
 * layer a router (gate) over num_experts experts of intermediate_size, no
 * shared expert, untied. PEFT has no default for it. llama.cpp: olmoe. */
const vx_family vx_fam_olmoe = {
    .id = VX_FAM_OLMOE, .name = "olmoe", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .qk_norm = VX_QKN_FULL, .peft_targets = "", .gguf = "olmoe",
};

/* ERNIE 4.5 MoE (Ernie4_5_MoeConfig, transformers >= 4.54): dense layers
 * of intermediate_size before moe_layer_start_index, then a router (gate)
 * with moe_statics.e_score_correction_bias (an nn.Parameter, stored in the
 * checkpoints: the 21B-A3B total is 27 x 64 larger than its MLX
 * conversions'), moe_num_experts experts of moe_intermediate_size and
 * moe_num_shared_experts merged into one MLP; `use_bias` on every linear;
 * tied by default. Experts on every layer from the start index to the end
 * (moe_layer_interval 1, moe_layer_end_index the last layer: every release);
 * other spacings are refused by name. PEFT has no default for it.
 * llama.cpp: ernie4_5-moe. */
static int config_ernie_moe(struct vx_cfgmap *m)
{
    static const struct {
        const char *key;
        vramest_option opt;
    } map[] = {
        {"moe_num_experts", VRAMEST_MODEL_NUM_LOCAL_EXPERTS},
        {"moe_k", VRAMEST_MODEL_NUM_EXPERTS_PER_TOK},
        {"moe_num_shared_experts", VRAMEST_MODEL_N_SHARED_EXPERTS},
        {"moe_layer_start_index", VRAMEST_MODEL_FIRST_K_DENSE_REPLACE},
    };
    const vx_jdoc *d = vx_cfgmap_doc(m);
    const vx_jv *root = vx_cfgmap_root(m), *v;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
        if (!(v = vx_jget(d, root, map[i].key)) || v->type == VX_J_NULL || vx_cfgmap_given(m, map[i].opt)) continue;
        if (v->type != VX_J_INT)
            return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s': expected an integer", map[i].key);
        int rc = vx_cfgmap_set_i64(m, map[i].opt, v->u.i, map[i].key);
        if (rc) return rc;
    }
    int64_t L = vx_cfgmap_layers(m);
    if ((v = vx_jget(d, root, "moe_layer_interval")) && v->type == VX_J_INT && v->u.i != 1)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: key 'moe_layer_interval': %lld (experts on every "
                       "moe_layer_interval-th layer) is not modelled; 1 is", (long long)v->u.i);
    if ((v = vx_jget(d, root, "moe_layer_end_index")) && v->type == VX_J_INT && v->u.i >= 0 && v->u.i < L - 1)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: key 'moe_layer_end_index': %lld (dense layers after the "
                       "experts) is not modelled; the last layer (%lld) or -1 is",
                       (long long)v->u.i, (long long)(L - 1));
    return VRAMEST_OK;
}

const vx_family vx_fam_ernie4_5_moe = {
    .id = VX_FAM_ERNIE4_5_MOE, .name = "ernie4_5_moe", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_SILU,
    .gated = 1, .rotary = 1, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_MERGED,
    .dense_first = 1, .peft_targets = "", .gguf = "ernie4_5-moe",
    .keys = {{"use_bias", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_ATTENTION_BIAS, VRAMEST_MODEL_MLP_BIAS}}},
    .config = config_ernie_moe, .router_bias = 1,
};

/* GLM-4.5 / 4.6 / 4.7 (Glm4MoeConfig, transformers >= 4.54): GLM-4's
 * attention (q/k/v biases with attention_bias, none on o_proj, partial
 * rotary 0.5) with per-head q/k RMSNorms when use_qk_norm; Llama's two
 * norms per layer; first_k_dense_replace dense layers, then a router
 * (gate, whose e_score_correction_bias is a buffer) over n_routed_experts
 * experts of moe_intermediate_size and n_shared_experts merged into one MLP;
 * untied. The checkpoint's MTP layer (num_nextn_predict_layers) is not
 * loaded. PEFT has no default for it. llama.cpp: glm4moe. */
const vx_family vx_fam_glm4_moe = {
    .id = VX_FAM_GLM4_MOE, .name = "glm4_moe", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_MERGED, .dense_first = 1,
    .qk_norm = VX_QKN_HEAD, .qk_norm_flag = 1, .o_bias_off = 1, .peft_targets = "", .gguf = "glm4moe",
    .keys = {{"use_qk_norm", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_QK_LAYERNORM, 0}}},
};

/* Phi-3.5-MoE (PhimoeConfig, transformers >= 4.46): LayerNorms with a
 * bias, biases on q/k/v/o (attention_bias), every layer a router (gate)
 * over num_local_experts experts w1 / w3 / w2 of intermediate_size, an
 * lm_head with a bias (lm_head_bias), untied; the window on every layer
 * when sliding_window is set. PEFT has no default for it. llama.cpp:
 * phimoe. */
const vx_family vx_fam_phimoe = {
    .id = VX_FAM_PHIMOE, .name = "phimoe", .norm = VX_NORM_LAYER, .attn_bias = 1, .act = VX_ACT_SILU,
    .gated = 1, .rotary = 1, .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .window = VX_WIN_ALL,
    .n_expert = {"w1", "w3", "w2"}, .lm_head_bias = 1, .peft_targets = "", .gguf = "phimoe",
};
