/* Tencent Hunyuan decoders. Sources (docs/methodology.md, Hunyuan):
 * - remote code, model_type "hunyuan" (Hunyuan-A13B's HunYuanMoEV1ForCausalLM):
 *   tianyu1412/Hunyuan-A13B@2798f3c8 models/modeling_hunyuan.py and
 *   configuration_hunyuan.py (the files of tencent/Hunyuan-A13B);
 * - transformers' own classes, model_type "hunyuan_v1_moe" / "hunyuan_v1_dense":
 *   huggingface/transformers@05bf8f64 src/transformers/models/hunyuan_v1_moe/
 *   modular_hunyuan_v1_moe.py (Llama's layer with query_layernorm /
 *   key_layernorm over head_dim after RoPE, HunYuanMoE = shared_mlp +
 *   gate.wg (fp32 nn.Linear, experts x hidden) + experts);
 * - vLLM's vllm/model_executor/models/hunyuan_v1.py (serves both): experts of
 *   moe_intermediate_size[layer] when given, else intermediate_size; the
 *   shared MLP intermediate_size x num_shared_expert[layer].
 *
 * Per-layer lists: moe_intermediate_size, moe_topk, num_shared_expert and
 * (transformers) num_experts may be lists with one entry per layer. Every
 * released config repeats one value; a list whose entries differ is refused
 * by name (per-layer expert sizes are not modelled).
 * The Hugging Face classes build experts of intermediate_size and ignore
 * moe_intermediate_size; vLLM, SGLang and TensorRT-LLM take
 * moe_intermediate_size. A checkpoint that loads in vLLM has experts of that
 * width, so it wins (the two are equal in every released config).
 * Cross-layer attention (use_cla, Hunyuan-Large): the follower layers have
 * no k_proj / v_proj (layers.c kv_reuse); each still holds a KV cache of
 * its own, as the runtimes allocate one (docs/methodology.md, Hunyuan).
 * MLA (use_mla) is refused by name: not modelled.
 * The router's weight is fp32 in both HF classes (dtype=torch.float32) and
 * bf16 in vLLM; it is weighed at the model dtype (64 x 4096 x 32 layers in
 * A13B: 16.8 MB of 160 GB). */
#include "model/families/groups.h"
#include "model/hf_config.h"
#include "model/model.h"

/* One value for a per-layer key: the integer itself, or the entry every
 * layer of the list repeats. *out = -1 when absent or null. */
static int uniform(struct vx_cfgmap *m, const char *key, int64_t *out)
{
    const vx_jv *v = vx_jget(vx_cfgmap_doc(m), vx_cfgmap_root(m), key);
    *out = -1;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_ARR) return vx_cfgmap_int(m, key, out);
    if (v->u.c.count == 0) return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: key '%s': the list is empty", key);
    int64_t i = 0, first = 0;
    for (const vx_jv *e = vx_jfirst(v); e < vx_jend(v); e = vx_jskip(e), i++) {
        if (e->type != VX_J_INT || e->u.i < 0)
            return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s': entry %lld is not a non-negative integer", key,
                           (long long)i);
        if (i == 0) first = e->u.i;
        if (e->u.i != first)
            return vx_fail(VRAMEST_E_UNSUPPORTED,
                           "config.json: key '%s': layer %lld has %lld, layer 0 has %lld; per-layer values that "
                           "differ are not modelled",
                           key, (long long)i, (long long)e->u.i, (long long)first);
    }
    *out = first;
    return VRAMEST_OK;
}

/* The per-layer lists, before the generic keys read the same names as
 * plain integers. */
static int config_pre(struct vx_cfgmap *m)
{
    static const struct {
        const char *key;
        vramest_option opt;
    } map[] = {
        {"moe_intermediate_size", VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE},
        {"num_experts", VRAMEST_MODEL_NUM_LOCAL_EXPERTS},
        {"moe_topk", VRAMEST_MODEL_NUM_EXPERTS_PER_TOK},
        {"num_shared_expert", VRAMEST_MODEL_N_SHARED_EXPERTS},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
        int64_t v;
        int rc = uniform(m, map[i].key, &v);
        if (rc) return rc;
        if (v >= 0 && (rc = vx_cfgmap_claim_i64(m, map[i].opt, v, map[i].key))) return rc;
    }
    return VRAMEST_OK;
}

/* Cross-layer attention (use_cla, Hunyuan-Large): layer i attends to the
 * keys and values of layer i - i % cla_share_factor (HunYuanAttention's
 * attention_type 'cross' has no k_proj / v_proj). Without use_cla the
 * factor the file also writes (A13B: 2) means nothing. */
static int cla_keys(struct vx_cfgmap *m)
{
    bool cla = false;
    int64_t factor;
    int rc = vx_cfgmap_bool(m, "use_cla", &cla);
    if (rc < 0) return rc;
    if ((rc = vx_cfgmap_int(m, "cla_share_factor", &factor))) return rc;
    return vx_cfgmap_set_i64(m, VRAMEST_MODEL_CLA_SHARE_FACTOR, cla && factor > 1 ? factor : 0,
                             cla ? "cla_share_factor" : "use_cla");
}

/* What both model types refuse, and the shared MLP's width. */
static int common_keys(struct vx_cfgmap *m, bool mixed)
{
    int rc;
    bool mla = false;
    if ((rc = vx_cfgmap_bool(m, "use_mla", &mla)) < 0) return rc;
    if (mla)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "config.json: key 'use_mla' is true: Hunyuan's multi-head latent attention is not modelled");
    int64_t skipped;
    if ((rc = vx_cfgmap_int(m, "moe_layer_num_skipped", &skipped))) return rc;
    if (skipped > 0)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "config.json: key 'moe_layer_num_skipped' is %lld: leading dense layers are not modelled",
                       (long long)skipped);
    const vx_arch *a = vx_cfgmap_arch(m);
    /* shared_mlp: intermediate_size x num_shared_expert (default 1) */
    if (!mixed && (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_N_SHARED_EXPERTS, 0, "use_mixed_mlp_moe"))) return rc;
    if (mixed && !vx_cfgmap_given(m, VRAMEST_MODEL_N_SHARED_EXPERTS) &&
        (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_N_SHARED_EXPERTS, 1, "num_shared_expert")))
        return rc;
    if (a->intermediate_size > 0 && !vx_cfgmap_given(m, VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE))
        return vx_cfgmap_set_i64(m, VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE, a->intermediate_size,
                                 "intermediate_size");
    return VRAMEST_OK;
}

/* HunYuanConfig (remote): the head width in attention_head_dim, the shared
 * MLP only with use_mixed_mlp_moe (default false). */
static int config_hunyuan(struct vx_cfgmap *m)
{
    int64_t hd;
    int rc = vx_cfgmap_int(m, "attention_head_dim", &hd);
    if (rc) return rc;
    if (hd > 0 && !vx_cfgmap_given(m, VRAMEST_MODEL_HEAD_DIM) &&
        (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_HEAD_DIM, hd, "attention_head_dim")))
        return rc;
    bool mixed = false;
    if ((rc = vx_cfgmap_bool(m, "use_mixed_mlp_moe", &mixed)) < 0) return rc;
    if ((rc = cla_keys(m))) return rc;
    return common_keys(m, mixed);
}

/* transformers' classes have no cross-layer form of the attention. */
static int config_v1_dense(struct vx_cfgmap *m)
{
    bool cla = false;
    int rc = vx_cfgmap_bool(m, "use_cla", &cla);
    if (rc < 0) return rc;
    if (cla)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: key 'use_cla' is true: transformers' %s has no "
                       "cross-layer attention (the remote-code 'hunyuan' type has)", vx_cfgmap_model_type(m));
    return vx_cfgmap_set_i64(m, VRAMEST_MODEL_CLA_SHARE_FACTOR, 0, "use_cla");
}

/* HunYuanMoEV1Config (transformers): the shared MLP is always built. */
static int config_v1_moe(struct vx_cfgmap *m)
{
    int rc = config_v1_dense(m);
    return rc ? rc : common_keys(m, true);
}

/* HunYuanMoEV1DecoderLayer builds experts when num_experts > 1, else one
 * MLP of intermediate_size (the remote class's rule; Hunyuan-7B's remote
 * config says num_experts 1). */
static void adjust_hunyuan(const vx_fam_ctx *c, vx_rules *r)
{
    const vx_arch *a = c->a;
    if (!vx_fam_is_set(c, VRAMEST_MODEL_NUM_LOCAL_EXPERTS) || a->num_local_experts <= 1) {
        r->moe = VX_MOE_NONE;
        return;
    }
    r->shared = a->n_shared_experts > 0 ? VX_SHX_OWN : VX_SHX_NONE;
}

/* transformers' HunYuanMoEV1DecoderLayer always builds HunYuanMoE. */
static void adjust_v1_moe(const vx_fam_ctx *c, vx_rules *r)
{
    r->shared = c->a->n_shared_experts > 0 ? VX_SHX_OWN : VX_SHX_NONE;
}

/* q/k RMSNorms over head_dim only with use_qk_norm (remote; A13B sets it). */
const vx_family vx_fam_hunyuan = {
    .id = VX_FAM_HUNYUAN, .name = "hunyuan", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1, .rotary = 1,
    .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .shared = VX_SHX_OWN, .qk_norm = VX_QKN_HEAD, .qk_norm_flag = 1,
    .n_q_norm = "query_layernorm", .n_k_norm = "key_layernorm", .n_router = "wg", .peft_targets = "",
    .keys = {{"use_qk_norm", VX_CK_BOOL_PAIR, {VRAMEST_MODEL_QK_LAYERNORM, 0}}},
    .config_pre = config_pre, .config = config_hunyuan, .adjust = adjust_hunyuan,
};

/* transformers' HunYuanMoEV1: q/k norms always. llama.cpp's hunyuan-moe
 * GGUFs are not read (its shared-expert keys are not mapped). */
const vx_family vx_fam_hunyuan_v1_moe = {
    .id = VX_FAM_HUNYUAN_V1_MOE, .name = "hunyuan_v1_moe", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .moe = VX_MOE_ROUTED, .moe_ffn_from_ffn = 1, .shared = VX_SHX_OWN, .qk_norm = VX_QKN_HEAD,
    .n_q_norm = "query_layernorm", .n_k_norm = "key_layernorm", .n_router = "wg", .peft_targets = "",
    .config_pre = config_pre, .config = config_v1_moe, .adjust = adjust_v1_moe,
};

/* transformers' HunYuanDenseV1 (Hunyuan 0.5B-7B): Llama with the same q/k
 * norms, head_dim from the config (128 beside hidden / heads 64 in the
 * small ones). */
const vx_family vx_fam_hunyuan_v1_dense = {
    .id = VX_FAM_HUNYUAN_V1_DENSE, .name = "hunyuan_v1_dense", .norm = VX_NORM_RMS, .act = VX_ACT_SILU,
    .gated = 1, .rotary = 1, .qk_norm = VX_QKN_HEAD, .n_q_norm = "query_layernorm", .n_k_norm = "key_layernorm",
    .peft_targets = "", .config = config_v1_dense,
};
