/* What the paged serving engines (vLLM, SGLang) share: the weights one
 * rank holds, the peak of one decoder layer over a batch of tokens in
 * their fused modules (with the fused-MoE workspace), the sampler over the
 * full vocabulary, and the memory of captured CUDA graphs. Each engine's
 * own budget rule is in its file (serving_vllm.c, serving_sglang.c). */
#include <ctype.h>

#include "estimate/cache/progcache.h"
#include "estimate/infer/infer.h"

/* Per captured graph and decoder layer: kernel nodes and their parameter
 * buffers (empirical: 0.3-0.6 GiB reported for 7-8B models with vLLM's 35
 * graphs; docs/methodology.md, "vLLM"). */
#define GRAPH_BYTES_PER_LAYER (256 * VX_KIB)
/* fused_moe processes at most VLLM_FUSED_MOE_CHUNK_SIZE tokens at a time. */
#define FUSED_MOE_CHUNK 32768

int vx_paged_begin(vx_ctx *x, const vx_shard *sh, const char *fw, const char *engine, vx_kv_layout *kl,
                   uint64_t *A)
{
    const vx_shape *s = x->pol.s;
    if (sh->placement)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "framework %s places layers itself: device_map applies to transformers only", fw);
    if (s->encoder_only || s->enc_dec)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "framework %s: %s models are not modelled for %s serving", fw,
                       s->encoder_only ? "encoder-only" : "encoder-decoder", engine);
    int rc = vx_kv_layout_resolve(x, sh, kl);
    if (rc) return rc;
    *A = vx_dtype_size(x->pol.rp.compute_dtype);
    if (!*A) *A = 2;
    return VRAMEST_OK;
}

uint64_t vx_paged_weights(const vx_ctx *x, const vx_shard *sh)
{
    vx_weights_stats ws;
    vx_weights_stats_get(x, 1, &ws);
    if (sh->tp == 1 && sh->pp == 1 && sh->ep == 1) return ws.allocated;
    /* the fused qkv / gate_up matrices hold the same bytes as the separate ones */
    uint64_t w = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) w = vx_sat_add(w, vx_shard_tensor_bytes(sh, x, t));
    return w;
}

/* One decoder layer over T tokens: residual and normed hidden states, the
 * qkv projection, the attention output, then the merged gate_up output with
 * the activation and the down projection. An MoE layer runs fused_experts:
 * intermediate_cache13 = M x top_k x max(N, K) and intermediate_cache2 =
 * M x top_k x N / 2 (N = 2 x moe_intermediate / tp, K = hidden, M = the
 * chunk), plus the router logits (vllm/model_executor/layers/fused_moe/
 * fused_moe.py fused_experts_impl; sglang's copy is the same). */
uint64_t vx_paged_layer_peak(const vx_ctx *x, const vx_shard *sh, uint64_t T, uint64_t A)
{
    const vx_shape *s = x->pol.s;
    uint64_t tp = (uint64_t)sh->tp, h = (uint64_t)s->hidden, d = (uint64_t)s->head_dim;
    uint64_t heads = (uint64_t)sh->heads_rank, kvh = (uint64_t)sh->kv_heads_rank;
    uint64_t two_h = vx_sat_mul(vx_sat_mul(2, T), vx_sat_mul(h, A));
    uint64_t qkv = vx_sat_mul(vx_sat_mul(T, (heads + 2 * kvh) * d), A);
    uint64_t attn = vx_sat_add(vx_sat_add(two_h, qkv), vx_sat_mul(vx_sat_mul(T, heads * d), A));
    /* DP attention (SGLang): the MLP runs on the tokens of every attention
     * group, gathered (dp_attention.py dp_gather), T per group. */
    uint64_t Tm = vx_sat_mul(T, sh->attn_dp > 1 ? (uint64_t)sh->attn_dp : 1);
    uint64_t two_hm = vx_sat_mul(vx_sat_mul(2, Tm), vx_sat_mul(h, A));
    uint64_t ffn = vx_ceil_div((uint64_t)s->ffn, tp);
    uint64_t k = s->gated ? 3 : 2;
    uint64_t mlp = vx_sat_mul(vx_sat_mul(Tm, k * ffn + h), A);
    if (s->experts > 0 && s->moe_ffn > 0) {
        uint64_t topk = (uint64_t)(s->experts_per_tok > 0 ? s->experts_per_tok : 1);
        uint64_t N = 2 * vx_ceil_div((uint64_t)s->moe_ffn, sh->etp > 0 ? (uint64_t)sh->etp : tp);
        uint64_t M = vx_min_u64(Tm, FUSED_MOE_CHUNK);
        uint64_t c13 = vx_sat_mul(vx_sat_mul(M, topk), vx_sat_mul(vx_max_u64(N, h), A));
        uint64_t c2 = vx_sat_mul(vx_sat_mul(M, topk), vx_sat_mul(N / 2, A));
        uint64_t out = vx_sat_mul(vx_sat_mul(Tm, h), A);
        uint64_t router = vx_sat_mul(vx_sat_mul(Tm, (uint64_t)s->experts), 4);
        uint64_t moe = vx_sat_add(vx_sat_add(c13, c2), vx_sat_add(out, router));
        mlp = s->dense_layers > 0 ? vx_max_u64(mlp, moe) : moe;
    }
    uint64_t peak = vx_max_u64(attn, vx_sat_add(two_hm, mlp));
    /* a recurrent mixer's projections, convolution and scan over T tokens */
    return vx_max_u64(peak, vx_sat_add(two_h, vx_state_mixer_fwd_bytes(s, T, A, tp)));
}

uint64_t vx_paged_sampler(const vx_ctx *x, uint64_t rows, uint64_t T, uint64_t elem_bytes, uint64_t A)
{
    const vx_shape *s = x->pol.s;
    uint64_t hidden = vx_sat_mul(vx_sat_mul(T, (uint64_t)s->hidden), A);
    return vx_sat_add(hidden, vx_sat_mul(vx_sat_mul(rows, (uint64_t)s->vocab), elem_bytes));
}

uint64_t vx_paged_graphs(const vx_ctx *x, const vx_shard *sh, uint64_t n_graphs, uint64_t max_bs, uint64_t A)
{
    uint64_t g = vx_sat_mul(vx_sat_mul(n_graphs, (uint64_t)sh->stage_layers), GRAPH_BYTES_PER_LAYER);
    /* The graph pool keeps the largest captured batch's forward. */
    uint64_t V = vx_ceil_div((uint64_t)x->pol.s->vocab, (uint64_t)sh->tp);
    return vx_sat_add(g, vx_max_u64(vx_paged_layer_peak(x, sh, max_bs, A), vx_sat_mul(vx_sat_mul(max_bs, V), 4)));
}

int vx_paged_big_gpu(const vx_ctx *x, uint64_t dev, uint64_t min_bytes, const char *except)
{
    if (dev < min_bytes) return 0;
    /* the preset's name, as torch.cuda.get_device_name() would say it */
    const char *name = x->cv->device;
    size_t n = strlen(except);
    for (const char *p = name; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == except[i]) i++;
        if (i == n) return 0;
    }
    return 1;
}
