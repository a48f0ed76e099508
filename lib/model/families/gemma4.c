/* Gemma 4 (text decoder; the multimodal wrapper is a row of
 * model/vision_tower.c). Source: transformers
 * src/transformers/models/gemma4/modeling_gemma4.py @c308a309e6
 * (Gemma4TextAttention, Gemma4TextDecoderLayer, Gemma4TextRouter,
 * Gemma4TextExperts) and configuration_gemma4.py.
 *
 * Gemma 3's sandwich layer (four norms, per-head q/k norms, scaled
 * embeddings, tied head) with:
 * - full-attention layers of their own head size (global_head_dim) and,
 *   with attention_k_eq_v, their own key/value heads
 *   (num_global_key_value_heads) and no v_proj: the values are k_proj's
 *   output under a scale-free RMSNorm (v_norm, no weight), the keys the
 *   same output under k_norm and RoPE; both are cached;
 * - with enable_moe_block, 128 experts (router.proj, a fused gate_up_proj
 *   of E x 2F x h, down_proj) beside the dense MLP of intermediate_size,
 *   three more norms, and the router's scale (h) and per_expert_scale (E);
 * - the small checkpoints (E2B, E4B): per-layer inputs
 *   (hidden_size_per_layer_input > 0: Gemma4TextModel.embed_tokens_per_layer,
 *   per_layer_model_projection, per_layer_projection_norm; in every layer
 *   per_layer_input_gate, per_layer_projection, post_per_layer_input_norm)
 *   and KV-shared layers (the last num_kv_shared_layers: no k_proj, v_proj
 *   or k_norm, model/layers.c; their MLP is twice as wide with
 *   use_double_wide_mlp). Their checkpoints still store the shared layers'
 *   k/v projections and k_norm, which the class does not load
 *   (_keys_to_ignore_on_load_unexpected).
 * Cache: Gemma4TextModel.forward builds DynamicCache(config=...), whose
 * sliding layers keep only their window (swa_dynamic), not Gemma 3's
 * preallocated HybridCache.
 * The persistent buffer layer_scalar (one value per layer) is not counted:
 * re-exported checkpoints' safetensors totals equal the parameters alone
 * (methodology.md, Gemma 4). */
#include "model/families/groups.h"
#include "model/hf_config.h"
#include "model/inventory.h"
#include "model/model.h"

/* The per-layer inputs: one table of ple_dim per layer and token, a
 * projection of the token embedding to the same, and in each layer a gate
 * from the residual stream and a projection back (gelu-gated). */
static void per_layer_inputs(vx_ib *b, const vx_shape *s)
{
    int64_t h = s->hidden, nl = s->layers, p = s->ple_dim, all = nl * p; /* <= 2^12 x 2^16 */
    vx_ib_put(b, "embed_tokens_per_layer", VX_ROLE_OTHER, VX_TK_EMBED, VX_GLB, s->ple_vocab, all, 0, 1, 0);
    vx_ib_lin(b, "per_layer_model_projection", VX_ROLE_OTHER, VX_GLB, all, h, 0, 0);
    vx_ib_norm(b, "per_layer_projection_norm", VX_ROLE_NORM, VX_GLB, s->norm_kind, p, 0);
    vx_ib_lin(b, "per_layer_input_gate", VX_ROLE_OTHER, VX_DEC, p, h, 0, nl);
    vx_ib_lin(b, "per_layer_projection", VX_ROLE_OTHER, VX_DEC, h, p, 0, nl);
    vx_ib_norm(b, "post_per_layer_input_norm", VX_ROLE_NORM, VX_DEC, s->norm_kind, h, nl);
}

static void build_gemma4(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    (void)a;
    vx_ib_decoder(b, s);
    if (s->ple_dim > 0) per_layer_inputs(b, s);
    if (s->experts <= 0) return;
    int64_t h = s->hidden, nl = s->layers;
    vx_ib_put(b, "scale", VX_ROLE_ROUTER, VX_TK_NORM, VX_DEC, h, 1, nl, 1, 0);
    vx_ib_put(b, "per_expert_scale", VX_ROLE_ROUTER, VX_TK_NORM, VX_DEC, s->experts, 1, nl, 1, 0);
    vx_ib_norm(b, "post_feedforward_layernorm_1", VX_ROLE_NORM, VX_DEC, s->norm_kind, h, nl);
    vx_ib_norm(b, "post_feedforward_layernorm_2", VX_ROLE_NORM, VX_DEC, s->norm_kind, h, nl);
    vx_ib_norm(b, "pre_feedforward_layernorm_2", VX_ROLE_NORM, VX_DEC, s->norm_kind, h, nl);
}

/* Gemma4TextConfig's keys the generic table does not know, and its class
 * defaults where the generic options' differ. */
static int config_gemma4(struct vx_cfgmap *m)
{
    int64_t v = 0;
    int rc;
    /* hidden_size_per_layer_input defaults to 256 in Gemma4TextConfig (the
     * 26B and 31B files write 0); its table has vocab_size_per_layer_input
     * rows, 262144 by default whatever vocab_size is */
    if (!vx_cfgmap_given(m, VRAMEST_MODEL_HIDDEN_SIZE_PER_LAYER_INPUT) &&
        !vx_cfgmap_null(m, "hidden_size_per_layer_input") &&
        (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_HIDDEN_SIZE_PER_LAYER_INPUT, 256, "hidden_size_per_layer_input")))
        return rc;
    if (vx_cfgmap_arch(m)->hidden_size_per_layer_input > 0 && !vx_cfgmap_given(m, VRAMEST_MODEL_VOCAB_SIZE_PER_LAYER_INPUT) &&
        (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_VOCAB_SIZE_PER_LAYER_INPUT, 262144, "vocab_size_per_layer_input")))
        return rc;
    if (!vx_cfgmap_given(m, VRAMEST_MODEL_GLOBAL_HEAD_DIM) &&
        (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_GLOBAL_HEAD_DIM, 512, "global_head_dim")))
        return rc;
    bool moe = false;
    if ((rc = vx_cfgmap_bool(m, "enable_moe_block", &moe)) < 0) return rc;
    if (!moe) {
        /* the 31B file writes "num_experts": null beside enable_moe_block false */
        if ((rc = vx_cfgmap_int(m, "num_experts", &v))) return rc;
        if (v > 0)
            return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: num_experts is %lld but enable_moe_block is false: "
                                                  "Gemma 4 builds no experts then; drop num_experts",
                           (long long)v);
        return VRAMEST_OK;
    }
    if (!vx_cfgmap_given(m, VRAMEST_MODEL_NUM_EXPERTS_PER_TOK)) {
        if ((rc = vx_cfgmap_int(m, "top_k_experts", &v))) return rc;
        if (v >= 0 && (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_NUM_EXPERTS_PER_TOK, v, "top_k_experts"))) return rc;
    }
    return VRAMEST_OK;
}

const vx_family vx_fam_gemma4 = {
    .id = VX_FAM_GEMMA4, .name = "gemma4", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_GELU_TANH, .gated = 1,
    .rotary = 1, .head_dim = 256, .qk_norm = VX_QKN_HEAD, .window = VX_WIN_PATTERN, .window_every = 6,
    .window_default = 512, .placement = VX_PLACE_SANDWICH,
    .n_norm = {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
               "post_feedforward_layernorm"},
    .moe = VX_MOE_ROUTED, .moe_optional = 1, .shared = VX_SHX_DENSE, .experts_fused = 1,
    .n_expert = {"gate_up_proj", NULL, "down_proj"}, .n_router = "proj",
    .norm_impl = VX_NI_RMS_GEMMA, .embed_scale = 1, .logits_float = 1, .megatron_gpt = 1, .swa_dynamic = 1,
    /* PEFT's default LoRA targets for model_type gemma4 (peft@5d602fdbff
     * src/peft/utils/constants.py): r".*language_model\..*\.(q_proj|v_proj)",
     * the language model's q_proj and v_proj (the towers' are
     * Gemma4ClippableLinear wrappers); the towers' names here are
     * prefixed, so leaf names select the same modules */
    .peft_targets = NULL, .gguf = "gemma4", .config = config_gemma4, .build = build_gemma4,
};
