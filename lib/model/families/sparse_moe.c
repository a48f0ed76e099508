/* Mixture-of-experts decoders of 2025-2026 whose attention is not
 * Llama's: gpt-oss (sink logits, alternating sliding and full layers),
 * Llama 4 (interleaved dense and MoE layers, chunked attention, NoPE
 * layers) and DeepSeek sparse attention (DeepSeek-V3.2, GLM-5: MLA plus a
 * lightning indexer whose keys are cached). Each row is a generic-decoder
 * description (inventory.c); the config hooks check the per-layer lists a
 * config spells out against the rule the row describes, since a list that
 * follows another rule would be estimated wrongly. Sources:
 * huggingface/transformers src/transformers/models/{gpt_oss,llama4,
 * deepseek_v32,glm_moe_dsa}/ (modular_gpt_oss.py @0261a46711,
 * modeling_llama4.py @000c33fdfd, configuration_llama4.py @008e574391,
 * modular_glm_moe_dsa.py @01f8fa55d9). */
#include <stdio.h>
#include <stdlib.h>

#include "model/families/groups.h"
#include "model/hf_config.h"

/* Layer i of a list against the row's rule: the first layer where they
 * differ, or -1. */
typedef int64_t (*rule_fn)(const vx_arch *a, int64_t i);

static int check_list(struct vx_cfgmap *m, const char *key, const char *const *names, const char *letters,
                      rule_fn rule, const char *rule_text)
{
    int64_t *v;
    size_t n;
    int rc = vx_cfgmap_list(m, key, names, letters, &v, &n);
    if (rc || !v) return rc;
    const vx_arch *a = vx_cfgmap_arch(m);
    if ((int64_t)n != a->num_hidden_layers) {
        free(v);
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: key '%s' has %zu entries, num_hidden_layers is %lld", key,
                       n, (long long)a->num_hidden_layers);
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] != rule(a, (int64_t)i)) {
            char got[64];
            if (names)
                snprintf(got, sizeof got, "'%s'", names[v[i]]);
            else
                snprintf(got, sizeof got, "%lld", (long long)v[i]);
            free(v);
            return vx_fail(VRAMEST_E_UNSUPPORTED,
                           "config.json: key '%s': layer %zu is %s, but this family's layers follow %s; a different "
                           "layout is not modelled",
                           key, i, got, rule_text);
        }
    free(v);
    return VRAMEST_OK;
}

/* ---- gpt-oss ----------------------------------------------------------- */

/* GptOssConfig: layer_types default "sliding_attention" unless (i + 1) % 2
 * == 0, with a 128-token window. */
static int64_t gpt_oss_layer(const vx_arch *a, int64_t i)
{
    (void)a;
    return (i + 1) % 2 == 0; /* 0 sliding, 1 full */
}

static int config_gpt_oss(struct vx_cfgmap *m)
{
    static const char *const types[] = {"sliding_attention", "full_attention", NULL};
    return check_list(m, "layer_types", types, NULL, gpt_oss_layer, "sliding / full alternation from layer 0");
}

/* eager_attention_forward of modular_gpt_oss.py: scores * scaling, + mask,
 * cat with the sinks, minus the row max, softmax in the scores' dtype,
 * the sink column sliced off. No SDPA path (_supports_sdpa = False). */
static const vx_attn_impl attn_gpt_oss = {.v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_ADD, .softmax = VX_SM_NONE,
                                          .mask = VX_MASK_4D, .sink = 1};

/* gpt-oss (transformers >= 4.55): q/k/v/o with biases, `sinks` per head,
 * RMSNorm pre-norm layers, every layer MoE: a router with a bias and
 * experts gate_up_proj (E, h, 2i) + bias, down_proj (E, i, h) + bias;
 * intermediate_size is the experts' width; untied head. The checkpoint
 * stores the experts in MXFP4 (quantization_config). */
const vx_family vx_fam_gpt_oss = {
    .id = VX_FAM_GPT_OSS, .name = "gpt_oss", .norm = VX_NORM_RMS, .attn_bias = 1, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .head_dim = 64, .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .window = VX_WIN_PATTERN,
    .window_every = 2, .window_default = 128, .n_expert = {"gate_up_proj", "gate_up_proj", "down_proj"},
    .attn = &attn_gpt_oss, .eager_only = 1, .peft_targets = "", .config = config_gpt_oss, .n_router = "router",
    .expert_bias = 1, .sinks = 1, .swa_dynamic = 1,
};

/* ---- Llama 4 ----------------------------------------------------------- */

/* Llama4TextConfig.__post_init__: no_rope_layers[i] = (i + 1) % interval
 * != 0 (1: RoPE); moe_layers = range(step - 1, L, step); layer_types
 * "chunked_attention" on RoPE layers, "full_attention" on NoPE ones. */
static int64_t llama4_rope(const vx_arch *a, int64_t i)
{
    int64_t every = a->no_rope_layer_interval > 0 ? a->no_rope_layer_interval : vx_fam_llama4.nope_default;
    return (i + 1) % every != 0;
}

static int64_t llama4_type(const vx_arch *a, int64_t i)
{
    return !llama4_rope(a, i); /* 0 chunked, 1 full */
}

static int config_llama4(struct vx_cfgmap *m)
{
    const vx_arch *a = vx_cfgmap_arch(m);
    int64_t *v;
    size_t n;
    /* A no_rope_layers list sets the interval: the first NoPE layer's
     * index + 1 (none: every layer rotates). */
    int rc = vx_cfgmap_list(m, "no_rope_layers", NULL, NULL, &v, &n);
    if (rc) return rc;
    if (v && !vx_cfgmap_given(m, VRAMEST_MODEL_NO_ROPE_LAYER_INTERVAL)) {
        size_t z = 0;
        while (z < n && v[z]) z++;
        rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_NO_ROPE_LAYER_INTERVAL, z < n ? (int64_t)z + 1 : (int64_t)n + 1,
                               "no_rope_layers");
    }
    free(v);
    if (rc || (rc = check_list(m, "no_rope_layers", NULL, NULL, llama4_rope, "no_rope_layer_interval"))) return rc;
    /* moe_layers: the interleave step is the first MoE layer's index + 1 */
    if ((rc = vx_cfgmap_list(m, "moe_layers", NULL, NULL, &v, &n))) return rc;
    if (v && !n) rc = vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: key 'moe_layers' is empty: a Llama 4 without "
                                                     "experts is not modelled");
    if (v && n && !vx_cfgmap_given(m, VRAMEST_MODEL_INTERLEAVE_MOE_LAYER_STEP) && v[0] >= 0)
        rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_INTERLEAVE_MOE_LAYER_STEP, v[0] + 1, "moe_layers");
    for (size_t i = 0; v && !rc && i < n; i++) {
        int64_t step = a->interleave_moe_layer_step, want = step * (int64_t)(i + 1) - 1;
        if (v[i] != want || (i + 1 == n && want + step < a->num_hidden_layers))
            rc = vx_fail(VRAMEST_E_UNSUPPORTED,
                         "config.json: key 'moe_layers': entry %zu is %lld, but Llama 4's experts sit on every %lld-th "
                         "layer (interleave_moe_layer_step); a different layout is not modelled",
                         i, (long long)v[i], (long long)step);
    }
    free(v);
    if (rc) return rc;
    static const char *const types[] = {"chunked_attention", "full_attention", NULL};
    return check_list(m, "layer_types", types, NULL, llama4_type, "chunked attention on RoPE layers, full on NoPE");
}

/* Llama 4's eager attention: Llama's without the fp32 softmax. */
static const vx_attn_impl attn_llama4 = {.v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_ADD, .softmax = VX_SM_NONE,
                                         .mask = VX_MASK_4D};

/* Llama 4 text (Llama4TextModel, transformers >= 4.51): MoE layers hold a
 * router, experts gate_up_proj (E, h, 2i) / down_proj (E, i, h) of
 * intermediate_size and one shared expert of the same width; the other
 * layers a dense MLP of intermediate_size_mlp (`feed_forward`); the q/k
 * L2 norm has no weights; untied head. The vision tower of
 * Llama4ForConditionalGeneration is a multimodal wrapper's (issue #16). */
const vx_family vx_fam_llama4 = {
    .id = VX_FAM_LLAMA4, .name = "llama4", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .head_dim = 128, .moe = VX_MOE_ROUTED, .shared = VX_SHX_ONE, .moe_ffn_from_ffn = 1,
    .n_expert = {"gate_up_proj", "gate_up_proj", "down_proj"}, .attn = &attn_llama4, .peft_targets = "",
    .config = config_llama4, .n_router = "router", .swa_dynamic = 1, .moe_interleave = 1, .nope_chunked = 1,
    .chunk_default = 8192, .nope_default = 4,
};

/* ---- DeepSeek sparse attention ----------------------------------------- */

/* DeepSeek-V3.2 (DeepseekV32Config): DeepSeek-V3's layout (MLA, leading
 * dense layers, 1 shared + routed experts) plus a lightning indexer per
 * layer (index_n_heads 64 x index_head_dim 128 by default). The router's
 * e_score_correction_bias is counted as a parameter, as in DeepSeek's
 * code shipped with the checkpoint (inference/model.py, Gate.bias) and
 * vLLM's; transformers' port registers it as a buffer (14,848 fewer for
 * the 671B model). */
const vx_family vx_fam_deepseek_v32 = {
    .id = VX_FAM_DEEPSEEK_V32, .name = "deepseek_v32", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_MERGED,
    .dense_first = 1, .mla = 1, .megatron_gpt = 1, .peft_targets = "", .e_bias = VX_EB_PARAM, .dsa = 1,
    .dsa_heads = 64, .dsa_dim = 128, .mtp_on_disk = 1, .mtp_copies = 1,
};

/* GlmMoeDsaConfig.__post_init__: indexer_types[i] "full" when
 * max(i - offset + 1, 0) % freq == 0, else "shared" (no indexer module);
 * mlp_layer_types "dense" for the first_k_dense_replace leading layers. */
static int64_t glm_dsa_indexer(const vx_arch *a, int64_t i)
{
    int64_t off = a->index_skip_topk_offset, freq = a->index_topk_freq;
    return i >= off && (i - off + 1) % freq != 0; /* 0 full, 1 shared */
}

static int64_t glm_dsa_mlp(const vx_arch *a, int64_t i)
{
    return i >= a->first_k_dense_replace; /* 0 dense, 1 sparse */
}

/* An indexer_types list (or index_topk_pattern) sets the schedule: the
 * offset is the first "shared" layer, the cycle runs to the next "full". */
static int config_glm_dsa(struct vx_cfgmap *m)
{
    static const char *const types[] = {"full", "shared", NULL};
    const char *key = "indexer_types";
    int64_t *v;
    size_t n;
    int rc = vx_cfgmap_list(m, key, types, NULL, &v, &n);
    if (!rc && !v) rc = vx_cfgmap_list(m, key = "index_topk_pattern", types, "FS", &v, &n);
    if (rc) return rc;
    if (v) {
        size_t j = 0, k;
        while (j < n && v[j] == 0) j++;
        for (k = j; k < n && v[k]; k++) {}
        int64_t off = (int64_t)j, freq = j == n ? 1 : k < n ? (int64_t)(k - j + 1) : (int64_t)(n - j + 1);
        if (!vx_cfgmap_given(m, VRAMEST_MODEL_INDEX_SKIP_TOPK_OFFSET))
            rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_INDEX_SKIP_TOPK_OFFSET, off, key);
        if (!rc && !vx_cfgmap_given(m, VRAMEST_MODEL_INDEX_TOPK_FREQ))
            rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_INDEX_TOPK_FREQ, freq, key);
        free(v);
        if (rc || (rc = check_list(m, key, types, "FS", glm_dsa_indexer, "index_skip_topk_offset / index_topk_freq")))
            return rc;
    }
    static const char *const mlp[] = {"dense", "sparse", NULL};
    return check_list(m, "mlp_layer_types", mlp, NULL, glm_dsa_mlp, "first_k_dense_replace");
}

/* GLM-5 (GlmMoeDsaForCausalLM, transformers >= 5.0): DeepSeek-V3.2's
 * layout with index_n_heads 32 by default and GLM-5.2's indexer schedule;
 * the native router keeps e_score_correction_bias as a buffer. */
const vx_family vx_fam_glm_moe_dsa = {
    .id = VX_FAM_GLM_MOE_DSA, .name = "glm_moe_dsa", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .kv_rule = VX_KV_MHA, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_MERGED,
    .dense_first = 1, .mla = 1, .megatron_gpt = 1, .peft_targets = "", .config = config_glm_dsa,
    .e_bias = VX_EB_BUFFER, .dsa = 1, .dsa_heads = 32, .dsa_dim = 128, .mtp_on_disk = 1,
};
