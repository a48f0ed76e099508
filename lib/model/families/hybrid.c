/* Families with a recurrent token mixer (issue #16): Mamba, Mamba-2 and the
 * hybrids that interleave Mamba or gated DeltaNet layers with attention.
 * Each row names its recurrent mixer (row.ssm: model/hybrid.c resolves its
 * geometry, model/ssm_mixer.c its tensors) and how its config.json lists
 * the layers; its `config` hook turns that list into layer_pattern /
 * mlp_pattern, one letter per layer (A attention, M / L the recurrent mixer,
 * H both in parallel, N none; D dense MLP, E experts, N none).
 * Sources: transformers' models/<family>/{configuration,modular,modeling}_*.py
 * (cited per row, docs/methodology.md "State-space and linear-attention
 * layers"). */
#include <string.h>

#include "common/json_reader.h"
#include "model/families/groups.h"
#include "model/hf_config.h"
#include "model/model.h"

/* An integer key: 1 and *out when present, 0 when absent or null (*out
 * keeps the default), an error naming the key for another type. */
static int opt_int(struct vx_cfgmap *m, const char *key, int64_t *out)
{
    const vx_jv *v = vx_jget(vx_cfgmap_doc(m), vx_cfgmap_root(m), key);
    if (!v || v->type == VX_J_NULL) return 0;
    int rc = vx_cfgmap_int(m, key, out);
    return rc ? rc : 1;
}

/* Set layer_pattern and mlp_pattern from per-layer letters. */
static int set_patterns(struct vx_cfgmap *m, const char *mix, const char *mlp, const char *key)
{
    int rc = mix ? vx_cfgmap_set_str(m, VRAMEST_MODEL_LAYER_PATTERN, mix, key) : VRAMEST_OK;
    return rc || !mlp ? rc : vx_cfgmap_set_str(m, VRAMEST_MODEL_MLP_PATTERN, mlp, key);
}

/* Letters from key `key` through `map`, checked against the layer count. */
static int list_of(struct vx_cfgmap *m, const char *key, const vx_name_letter *map, char *out, size_t *n)
{
    int rc = vx_cfgmap_letters(m, key, map, out, VX_STR_MAX, n);
    if (rc || !*n) return rc;
    int64_t L = vx_cfgmap_layers(m);
    if (L > 0 && (int64_t)*n != L)
        return vx_fail(VRAMEST_E_INVALID_MODEL,
                       "config.json: key '%s' has %zu entries for %lld layers (num_hidden_layers): one per layer", key,
                       *n, (long long)L);
    return VRAMEST_OK;
}

/* A layer of every `period` from `offset` gets `yes`, the others `no`
 * (Jamba's attn_layer_period / expert_layer_period). */
static int periodic(struct vx_cfgmap *m, const char *pkey, int64_t pdflt, const char *okey, int64_t odflt, char yes,
                    char no, char *out)
{
    int64_t n = vx_cfgmap_layers(m), p = pdflt, o = odflt;
    int rc = opt_int(m, pkey, &p);
    if (rc < 0) return rc;
    if ((rc = opt_int(m, okey, &o)) < 0) return rc;
    if (p < 1 || o < 0 || o >= p)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: %s %lld with %s %lld selects no layer", pkey,
                       (long long)p, okey, (long long)o);
    if (n <= 0 || n >= VX_STR_MAX) return n <= 0 ? 0 : vx_fail(VRAMEST_E_LIMIT, "config.json: %lld layers, at most %d",
                                                            (long long)n, VX_STR_MAX - 1);
    for (int64_t i = 0; i < n; i++) out[i] = i % p == o ? yes : no;
    out[n] = '\0';
    return 1;
}

/* ---- Mamba, Mamba-2 ---------------------------------------------------- */

/* MambaForCausalLM (transformers >= 4.39, models/mamba/modeling_mamba.py):
 * backbone.embeddings, layers of one RMSNorm and a MambaMixer, norm_f, a
 * head tied by default; logits.float() in the forward (4.39-4.44). PEFT's
 * default targets for mamba: in_proj, x_proj, out_proj and the embeddings.
 * llama.cpp: mamba. */
const vx_family vx_fam_mamba = {
    .id = VX_FAM_MAMBA, .name = "mamba", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_SILU,
    .ffn_rule = VX_FFN_OPTIONAL, .n_embed = "embeddings", .n_final_norm = "norm_f", .n_norm = {"norm"},
    .logits_float = 1, .peft_targets = "x_proj,embeddings,in_proj,out_proj", .gguf = "mamba",
    .ssm = VX_SSM_MAMBA1, .ssm_only = 1, .layer_default = 'M', .mlp_default = 'N',
};

/* Mamba2Config names the Mamba-2 heads num_heads and their width head_dim
 * (the attention keys of every other family). */
static int mamba2_config(struct vx_cfgmap *m)
{
    int64_t v;
    int rc = opt_int(m, "num_heads", &v);
    if (rc == 1 && !vx_cfgmap_given(m, VRAMEST_MODEL_MAMBA_NUM_HEADS))
        rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_MAMBA_NUM_HEADS, v, "num_heads");
    if (rc < 0) return rc;
    if ((rc = opt_int(m, "head_dim", &v)) == 1 && !vx_cfgmap_given(m, VRAMEST_MODEL_MAMBA_HEAD_DIM))
        rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_MAMBA_HEAD_DIM, v, "head_dim");
    return rc < 0 ? rc : VRAMEST_OK;
}

/* Mamba2ForCausalLM (transformers >= 4.44, models/mamba2/modeling_mamba2.py):
 * Mamba's layout with a Mamba2Mixer (its gated RMSNorm always present).
 * llama.cpp: mamba2. */
const vx_family vx_fam_mamba2 = {
    .id = VX_FAM_MAMBA2, .name = "mamba2", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_SILU,
    .ffn_rule = VX_FFN_OPTIONAL, .n_embed = "embeddings", .n_final_norm = "norm_f", .n_norm = {"norm"},
    .logits_float = 1, .peft_targets = "", .gguf = "mamba2", .config = mamba2_config,
    .ssm = VX_SSM_MAMBA2, .ssm_only = 1, .layer_default = 'M', .mlp_default = 'N',
};

/* ---- Nemotron-H --------------------------------------------------------- */

/* hybrid_override_pattern: M Mamba-2, * attention, - MLP, E experts: each
 * block holds one of them after its norm. */
static int nemotron_h_config(struct vx_cfgmap *m)
{
    static const vx_name_letter mix[] = {{"M", 'M'}, {"*", 'A'}, {"-", 'N'}, {"E", 'N'}, {NULL, 0}};
    static const vx_name_letter mlp[] = {{"M", 'N'}, {"*", 'N'}, {"-", 'D'}, {"E", 'E'}, {NULL, 0}};
    char a[VX_STR_MAX], b[VX_STR_MAX];
    size_t n, n2;
    int rc = list_of(m, "hybrid_override_pattern", mix, a, &n);
    if (!rc) rc = list_of(m, "hybrid_override_pattern", mlp, b, &n2);
    if (rc || !n) return rc;
    /* Nemotron-H 56B names the attention head width attention_head_dim. */
    int64_t hd;
    if ((rc = opt_int(m, "attention_head_dim", &hd)) < 0) return rc;
    if (rc == 1 && !vx_cfgmap_given(m, VRAMEST_MODEL_HEAD_DIM) &&
        (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_HEAD_DIM, hd, "attention_head_dim")))
        return rc;
    return set_patterns(m, a, b, "hybrid_override_pattern");
}

/* NemotronHForCausalLM (transformers >= 4.57 native, the NVIDIA remote code
 * before; models/nemotron_h/modular_nemotron_h.py @008d9e9577): embeddings,
 * blocks of one RMSNorm ("norm") and one mixer (NemotronHMamba2Mixer:
 * width mamba_num_heads x mamba_head_dim; JambaAttention: no positional
 * encoding; a relu2 MLP up_proj / down_proj; NemotronHMoE: ungated experts
 * up_proj / down_proj of moe_intermediate_size, optionally in
 * moe_latent_size between fc1_latent_proj / fc2_latent_proj, a router whose
 * e_score_correction_bias is a buffer, shared experts of
 * moe_shared_expert_intermediate_size), norm_f, an untied head whose logits
 * are .float()-ed. MTP layers on disk (mtp.*) are not loaded. */
const vx_family vx_fam_nemotron_h = {
    .id = VX_FAM_NEMOTRON_H, .name = "nemotron_h", .norm = VX_NORM_RMS, .act = VX_ACT_RELU,
    .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_OWN, .mlp = VX_MLPL_PLAIN,
    .n_embed = "embeddings", .n_final_norm = "norm_f", .n_norm = {"norm"}, .logits_float = 1, .peft_targets = "",
    .gguf = "nemotron_h", .config = nemotron_h_config, .ssm = VX_SSM_MAMBA2, .ssm_inner_heads = 1,
    .moe_optional = 1,
};

/* ---- gated DeltaNet: Qwen3-Next, Qwen3.5 -------------------------------- */

/* layer_types, else a full-attention layer every full_attention_interval
 * (default 4); experts on every decoder_sparse_step-th layer except
 * mlp_only_layers, which have a dense MLP of intermediate_size. */
static int qwen_next_config(struct vx_cfgmap *m)
{
    static const vx_name_letter types[] = {{"linear_attention", 'L'}, {"full_attention", 'A'}, {NULL, 0}};
    char mix[VX_STR_MAX], mlp[VX_STR_MAX];
    size_t n;
    int rc = list_of(m, "layer_types", types, mix, &n);
    if (rc) return rc;
    int64_t L = vx_cfgmap_layers(m);
    if (L <= 0 || L >= VX_STR_MAX) return VRAMEST_OK; /* shape resolution names what is missing */
    if (!n) {
        int64_t every = 4;
        if ((rc = opt_int(m, "full_attention_interval", &every)) < 0) return rc;
        if (every < 1) return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: full_attention_interval must be >= 1");
        for (int64_t i = 0; i < L; i++) mix[i] = (i + 1) % every ? 'L' : 'A';
        mix[L] = '\0';
    }
    int64_t experts = 0, step = 1, only[VX_STR_MAX];
    size_t nonly = 0;
    if ((rc = opt_int(m, "num_experts", &experts)) < 0) return rc;
    if ((rc = opt_int(m, "decoder_sparse_step", &step)) < 0) return rc;
    if ((rc = vx_cfgmap_ints(m, "mlp_only_layers", only, VX_STR_MAX, &nonly))) return rc;
    const char *mlp_out = NULL;
    if (experts > 0) {
        if (step < 1) return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: decoder_sparse_step must be >= 1");
        for (int64_t i = 0; i < L; i++) mlp[i] = (i + 1) % step ? 'D' : 'E';
        for (size_t j = 0; j < nonly; j++)
            if (only[j] >= 0 && only[j] < L) mlp[only[j]] = 'D';
        mlp[L] = '\0';
        mlp_out = mlp;
    }
    return set_patterns(m, mix, mlp_out, n ? "layer_types" : "full_attention_interval");
}

/* Qwen3NextForCausalLM (transformers >= 4.57, models/qwen3_next/
 * modular_qwen3_next.py @043bb8dde1): Gemma 3's zero-centred RMSNorms,
 * gated DeltaNet layers (linear_attn) and every full_attention_interval-th
 * layer a Qwen3-MoE attention whose q_proj also yields a sigmoid output
 * gate, with per-head q/k norms and partial rotary; the Qwen2-MoE block
 * (router, experts, one gated shared expert) on every layer. Untied. */
const vx_family vx_fam_qwen3_next = {
    .id = VX_FAM_QWEN3_NEXT, .name = "qwen3_next", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .head_dim = 256, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_GATED_ONE,
    .qk_norm = VX_QKN_HEAD, .norm_impl = VX_NI_RMS_GEMMA, .peft_targets = "", .gguf = "qwen3next",
    .config = qwen_next_config, .ssm = VX_SSM_GDN, .q_gate = 1, .mlp_default = 'E',
};

/* Qwen3.5's language model (Qwen3_5TextConfig / Qwen3_5MoeTextConfig, the
 * text_config of Qwen3_5ForConditionalGeneration; transformers >= 5.2):
 * Qwen3-Next's layers, the DeltaNet input projections split in two
 * (in_proj_qkv + in_proj_z, in_proj_b + in_proj_a: the same elements); the
 * dense models have a gated MLP on every layer, the MoE ones Qwen3-Next's
 * block. Their configs carry mamba_ssm_dtype (the recurrent state's). */
const vx_family vx_fam_qwen3_5_text = {
    .id = VX_FAM_QWEN3_5_TEXT, .name = "qwen3_5_text", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .head_dim = 256, .qk_norm = VX_QKN_HEAD, .norm_impl = VX_NI_RMS_GEMMA, .peft_targets = "",
    .gguf = "qwen35", .config = qwen_next_config, .ssm = VX_SSM_GDN, .q_gate = 1, .mlp_default = 'D',
};

const vx_family vx_fam_qwen3_5_moe_text = {
    .id = VX_FAM_QWEN3_5_MOE_TEXT, .name = "qwen3_5_moe_text", .norm = VX_NORM_RMS, .act = VX_ACT_SILU,
    .gated = 1, .rotary = 1, .head_dim = 256, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED,
    .shared = VX_SHX_GATED_ONE, .qk_norm = VX_QKN_HEAD, .norm_impl = VX_NI_RMS_GEMMA, .peft_targets = "",
    .gguf = "qwen35moe", .config = qwen_next_config, .ssm = VX_SSM_GDN, .q_gate = 1, .mlp_default = 'E',
};

/* ---- Jamba, Falcon-H1 --------------------------------------------------- */

/* Attention on layer i when i % attn_layer_period == attn_layer_offset
 * (8 and 4 by default), experts when i % expert_layer_period ==
 * expert_layer_offset (2 and 1), the rest Mamba layers and dense MLPs. */
static int jamba_config(struct vx_cfgmap *m)
{
    char mix[VX_STR_MAX], mlp[VX_STR_MAX];
    int rc = periodic(m, "attn_layer_period", 8, "attn_layer_offset", 4, 'A', 'M', mix);
    if (rc <= 0) return rc;
    if ((rc = periodic(m, "expert_layer_period", 2, "expert_layer_offset", 1, 'E', 'D', mlp)) < 0) return rc;
    int64_t experts = 16;
    if ((rc = opt_int(m, "num_experts", &experts)) < 0) return rc;
    return set_patterns(m, mix, experts > 1 ? mlp : NULL, "attn_layer_period");
}

/* JambaForCausalLM (transformers >= 4.40, models/jamba/modeling_jamba.py):
 * every layer an input_layernorm, a mixer (JambaAttention without
 * positions, or JambaMambaMixer with RMSNorms over dt, B and C), a
 * pre_ff_layernorm and a feed_forward (a gated MLP, or a router with
 * experts of intermediate_size); final_layernorm; untied. */
const vx_family vx_fam_jamba = {
    .id = VX_FAM_JAMBA, .name = "jamba", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .n_norm = {"input_layernorm", "pre_ff_layernorm"},
    .n_final_norm = "final_layernorm", .peft_targets = "", .gguf = "jamba", .config = jamba_config,
    .ssm = VX_SSM_MAMBA1, .ssm_dt_norms = 1, .mlp_default = 'D',
};

/* FalconH1ForCausalLM (transformers >= 4.53, models/falcon_h1/
 * modular_falcon_h1.py @00511f5df3): every layer runs a Llama attention and
 * a FalconH1Mixer (Mamba-2; its gated norm only with mamba_rms_norm) in
 * parallel on input_layernorm's output, then pre_ff_layernorm and a gated
 * MLP; final_layernorm. muP multipliers change no shape. The mixer's
 * out_proj bias follows projectors_bias, false in every released config
 * (counted with mamba_proj_bias). */
const vx_family vx_fam_falcon_h1 = {
    .id = VX_FAM_FALCON_H1, .name = "falcon_h1", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .n_norm = {"input_layernorm", "pre_ff_layernorm"}, .n_final_norm = "final_layernorm",
    .peft_targets = "", .gguf = "falcon-h1", .ssm = VX_SSM_MAMBA2, .ssm_norm_flag = 1, .layer_default = 'H',
    .mlp_default = 'D',
};

/* ---- Granite 4.0 ---------------------------------------------------------- */

/* layer_types: "mamba" / "attention". With experts, every layer has the
 * router and experts (of intermediate_size) and the shared MLP as its
 * shared expert; without (the dense Granite 4.0 models, "num_local_experts":
 * 0), the shared MLP is the layer's MLP, of shared_intermediate_size. */
static int granite_hybrid_config(struct vx_cfgmap *m)
{
    static const vx_name_letter types[] = {{"mamba", 'M'}, {"attention", 'A'}, {NULL, 0}};
    char mix[VX_STR_MAX], mlp[VX_STR_MAX];
    size_t n;
    int rc = list_of(m, "layer_types", types, mix, &n);
    if (!rc && !n) rc = list_of(m, "layers_block_type", types, mix, &n);
    if (rc) return rc;
    int64_t L = vx_cfgmap_layers(m), experts = 0, shared = 0;
    if ((rc = opt_int(m, "num_local_experts", &experts)) < 0) return rc;
    if ((rc = opt_int(m, "shared_intermediate_size", &shared)) < 0) return rc;
    if (L <= 0 || L >= VX_STR_MAX) return VRAMEST_OK;
    if (experts <= 0 && shared > 0 && (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_INTERMEDIATE_SIZE, shared,
                                                              "shared_intermediate_size")))
        return rc;
    memset(mlp, experts > 0 ? 'E' : 'D', (size_t)L);
    mlp[L] = '\0';
    return set_patterns(m, n ? mix : NULL, mlp, "layer_types");
}

/* GraniteMoeHybridForCausalLM (transformers >= 4.56, models/
 * granitemoehybrid/modeling_granitemoehybrid.py): Llama-style layers
 * (input_layernorm, post_attention_layernorm) whose mixer is an attention
 * (RoPE or none, position_embedding_type) or a Mamba-2 layer (width
 * mamba_expand x hidden, mamba_n_heads x mamba_d_head), and whose MLP is
 * GraniteMoe's router + fused experts (input_linear 2i x h, output_linear)
 * plus the shared MLP (input_linear 2 x shared_intermediate_size), or the
 * shared MLP alone. muP multipliers change no shape. */
const vx_family vx_fam_granitemoehybrid = {
    .id = VX_FAM_GRANITEMOEHYBRID, .name = "granitemoehybrid", .norm = VX_NORM_RMS, .act = VX_ACT_SILU,
    .gated = 1, .rotary = 1, .ffn_rule = VX_FFN_OPTIONAL, .moe = VX_MOE_ROUTED, .shared = VX_SHX_OWN,
    .moe_ffn_from_ffn = 1, .n_expert = {"input_linear", "input_linear", "output_linear"}, .peft_targets = "",
    .gguf = "granitehybrid", .config = granite_hybrid_config, .ssm = VX_SSM_MAMBA2, .moe_optional = 1,
};

/* ---- LFM2 ------------------------------------------------------------------ */

/* layer_types ("conv" / "full_attention"), else full_attn_idxs, else every
 * layer attention (Lfm2Config); the MLP width as Lfm2MLP derives it from
 * block_ff_dim (Lfm2Config prefers it to intermediate_size): with
 * block_auto_adjust_ff_dim, int(2 x width / 3), then, unless
 * block_ffn_dim_multiplier is null, times the multiplier, rounded up to
 * block_multiple_of. conv_bias defaults to false. */
static int lfm2_config(struct vx_cfgmap *m)
{
    static const vx_name_letter types[] = {{"conv", 'M'}, {"full_attention", 'A'}, {NULL, 0}};
    char mix[VX_STR_MAX];
    size_t n;
    int rc = list_of(m, "layer_types", types, mix, &n);
    if (rc) return rc;
    int64_t L = vx_cfgmap_layers(m), idx[VX_STR_MAX];
    size_t nidx = 0;
    if (!n && L > 0 && L < VX_STR_MAX) {
        if ((rc = vx_cfgmap_ints(m, "full_attn_idxs", idx, VX_STR_MAX, &nidx))) return rc;
        memset(mix, 'M', (size_t)L);
        mix[L] = '\0';
        for (size_t i = 0; i < nidx; i++) {
            if (idx[i] < 0 || idx[i] >= L)
                return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: full_attn_idxs: layer %lld is not one of the %lld",
                               (long long)idx[i], (long long)L);
            mix[idx[i]] = 'A';
        }
    }
    if ((rc = set_patterns(m, n || nidx ? mix : NULL, NULL, "layer_types"))) return rc;
    /* the short convolution's width, under a key with capitals (option
     * names are lower case) */
    int64_t kernel;
    if ((rc = opt_int(m, "conv_L_cache", &kernel)) < 0) return rc;
    if (rc == 1 && !vx_cfgmap_given(m, VRAMEST_MODEL_CONV_KERNEL) &&
        (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_CONV_KERNEL, kernel, "conv_L_cache")))
        return rc;
    if (!vx_cfgmap_given(m, VRAMEST_MODEL_MAMBA_CONV_BIAS) &&
        (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_MAMBA_CONV_BIAS, 0, "conv_bias")))
        return rc;
    int64_t ff = 0, multiple = 256;
    const char *ff_key = "block_ff_dim";
    if ((rc = opt_int(m, ff_key, &ff)) < 0) return rc;
    if (!rc && (rc = opt_int(m, ff_key = "intermediate_size", &ff)) < 0) return rc;
    if (ff <= 0) return VRAMEST_OK;
    if (ff > (int64_t)1 << 40)
        return vx_fail(VRAMEST_E_RANGE, "config.json: key '%s' %lld is out of range", ff_key, (long long)ff);
    bool adjust = true;
    if ((rc = vx_cfgmap_bool(m, "block_auto_adjust_ff_dim", &adjust)) < 0) return rc;
    if (adjust) {
        double mult = 1.0;
        if ((rc = vx_cfgmap_number(m, "block_ffn_dim_multiplier", &mult)) < 0) return rc;
        bool round = !vx_cfgmap_null(m, "block_ffn_dim_multiplier");
        if ((rc = opt_int(m, "block_multiple_of", &multiple)) < 0) return rc;
        if (round && (multiple < 1 || multiple > (int64_t)1 << 30 || !(mult > 0) || mult > 1e6))
            return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: block_multiple_of %lld / block_ffn_dim_multiplier "
                           "%g must be positive and reasonable", (long long)multiple, mult);
        ff = 2 * ff / 3;
        if (round) {
            ff = (int64_t)(mult * (double)ff);
            ff = (ff + multiple - 1) / multiple * multiple;
        }
    }
    return vx_cfgmap_set_i64(m, VRAMEST_MODEL_INTERMEDIATE_SIZE, ff, ff_key);
}

/* Lfm2ForCausalLM (transformers >= 4.54, models/lfm2/modeling_lfm2.py):
 * layers of operator_norm, a mixer (Lfm2ShortConv, or attention whose
 * output projection is out_proj, with per-head q_layernorm / k_layernorm),
 * ffn_norm and a SwiGLU feed_forward (w1, w3, w2); embedding_norm is the
 * final norm; tied (tie_embedding). */
const vx_family vx_fam_lfm2 = {
    .id = VX_FAM_LFM2, .name = "lfm2", .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .qk_norm = VX_QKN_HEAD, .n_o = "out_proj", .n_q_norm = "q_layernorm", .n_k_norm = "k_layernorm",
    .n_gate = "w1", .n_up = "w3", .n_down = "w2", .n_norm = {"operator_norm", "ffn_norm"},
    .n_final_norm = "embedding_norm", .peft_targets = "", .gguf = "lfm2", .config = lfm2_config,
    .keys = {{"tie_embedding", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_TIE_WORD_EMBEDDINGS, 0}}},
    .ssm = VX_SSM_SHORTCONV, .layer_default = 'A', .mlp_default = 'D',
};
