/* The per-sequence state of recurrent layers (Mamba, Mamba-2, gated
 * DeltaNet), as each runtime holds it, and the transient of one recurrent
 * mixer's forward. A recurrent layer caches no token: per sequence it keeps
 * the last inputs of its causal convolution and the scan's state, whatever
 * the context length (docs/methodology.md, "State caches").
 *
 * Per layer and sequence (conv_dim channels of the convolution of width K):
 *   Mamba-1    conv: conv_dim (= d_inner) x K'   state: d_inner x N
 *   Mamba-2    conv: (d_inner + 2 G N) x K'      state: heads x head_dim x N
 *   DeltaNet   conv: (2 nk dk + nv dv) x K'      state: nv x dk x dv
 *   LFM2 conv  conv: hidden x K'                 (no other state)
 * K' is what the runtime keeps of the kernel window:
 * - transformers (MambaCache, Mamba2Cache, HybridMambaAttentionDynamicCache,
 *   Qwen3-Next's cache): K, in the model's dtype; the recurrent state in the
 *   model's dtype, except gated DeltaNet's, which the kernels return in fp32
 *   (fla chunk_gated_delta_rule's final state);
 * - vLLM (MambaStateShapeCalculator): K - 1 in the model's dtype; the state
 *   in mamba_ssm_cache_dtype (the config's mamba_ssm_cache_dtype /
 *   mamba_ssm_dtype when given, else the model's);
 * - SGLang (MambaPool, configs/mamba_utils.py): K - 1 in bf16; the state in
 *   the config's mamba_ssm_dtype, else fp32;
 * - llama.cpp (llama_memory_recurrent): K - 1 (r_l) and the state (s_l),
 *   both F32 whatever the KV cache type.
 * Tensor parallelism splits the mixer by heads (and the convolution's
 * channels with them): each rank holds 1/tp of both. */
#include "estimate/infer/infer.h"

static uint64_t per_rank(int64_t v, uint64_t tp)
{
    return v > 0 ? vx_ceil_div((uint64_t)v, tp) : 0;
}

void vx_state_layout(const vx_ctx *x, const vx_shard *sh, vx_kv_layout *kl)
{
    const vx_shape *s = x->pol.s;
    uint64_t tp = (uint64_t)(sh->tp > 0 ? sh->tp : 1);
    uint64_t K = (uint64_t)(s->ssm_conv > 0 ? s->ssm_conv : 1);
    uint64_t kept = kl->engine == VX_ENGINE_HF ? K : K - 1;
    kl->conv_elems = vx_sat_mul(per_rank(s->ssm_conv_dim, tp), kept);
    switch (s->ssm_kind) {
    case VX_SSM_MAMBA1: kl->rec_elems = vx_sat_mul(per_rank(s->ssm_inner, tp), (uint64_t)s->ssm_state); break;
    case VX_SSM_SHORTCONV: kl->rec_elems = 0; break; /* the convolution's inputs are its whole state */
    default:
        /* Mamba-2: heads x head_dim x N; DeltaNet: value heads x dv x dk */
        kl->rec_elems = vx_sat_mul(vx_sat_mul(per_rank(s->ssm_heads, tp), (uint64_t)s->ssm_head_dim),
                                   (uint64_t)s->ssm_state);
        break;
    }
    unsigned model = vx_dtype_size(x->pol.rp.compute_dtype);
    if (!model) model = 2;
    unsigned given = s->ssm_state_dtype != VRAMEST_DTYPE_AUTO ? vx_dtype_size(s->ssm_state_dtype) : 0;
    switch (kl->engine) {
    case VX_ENGINE_LLAMACPP: kl->conv_bytes = kl->rec_bytes = 4; break;
    case VX_ENGINE_VLLM:
        if (x->rt.engine == VX_ENGINE_SGLANG) {
            /* SGLang (configs/mamba_utils.py mamba2_state_dtype, 0.5.x):
             * the convolution in bf16 (SGLANG_MAMBA_CONV_DTYPE), the
             * temporal state in the config's mamba_ssm_dtype, else fp32 */
            kl->conv_bytes = 2;
            kl->rec_bytes = given ? given : 4;
            break;
        }
        kl->conv_bytes = model;
        kl->rec_bytes = given ? given : model;
        break;
    default:
        kl->conv_bytes = model;
        kl->rec_bytes = s->ssm_kind == VX_SSM_GDN ? 4 : model;
        break;
    }
}

uint64_t vx_state_layer_seq_bytes(const vx_kv_layout *kl)
{
    return vx_sat_add(vx_sat_mul(kl->conv_elems, kl->conv_bytes), vx_sat_mul(kl->rec_elems, kl->rec_bytes));
}

void vx_state_result(struct vramest_result *r, uint64_t one)
{
    /* the worst rank's, as every headline figure */
    if (one > r->val[VRAMEST_VAL_STATE_PER_SEQ]) r->val[VRAMEST_VAL_STATE_PER_SEQ] = one;
    r->val_ok[VRAMEST_VAL_STATE_PER_SEQ] = 1;
}

uint64_t vx_state_bytes(const vx_kv_layout *kl, uint64_t seqs, int torch_round)
{
    if (kl->state_layers <= 0 || !seqs) return 0;
    uint64_t conv = vx_sat_mul(vx_sat_mul(seqs, kl->conv_elems), kl->conv_bytes);
    uint64_t rec = vx_sat_mul(vx_sat_mul(seqs, kl->rec_elems), kl->rec_bytes);
    /* an empty tensor (LFM2 has no scan state) allocates nothing */
    if (torch_round && conv) conv = vx_alloc_round(conv);
    if (torch_round && rec) rec = vx_alloc_round(rec);
    return vx_sat_mul((uint64_t)kl->state_layers, vx_sat_add(conv, rec));
}

uint64_t vx_state_mixer_fwd_bytes(const vx_shape *s, uint64_t tokens, uint64_t A, uint64_t tp)
{
    if (s->ssm_kind == VX_SSM_NONE || !tokens) return 0;
    uint64_t d = per_rank(s->ssm_inner, tp), cd = per_rank(s->ssm_conv_dim, tp), H = per_rank(s->ssm_heads, tp);
    uint64_t N = (uint64_t)s->ssm_state, P = (uint64_t)s->ssm_head_dim;
    uint64_t per_tok = 0, fp32 = 0;
    switch (s->ssm_kind) {
    case VX_SSM_MAMBA1:
        /* in_proj (x, z), the conv output, x_proj (dt, B, C), dt_proj's
         * output, B and C made contiguous, the scan output */
        per_tok = 2 * d + d + ((uint64_t)s->ssm_dt_rank + 2 * N) + d + 2 * N + d;
        break;
    case VX_SSM_SHORTCONV:
        /* in_proj (B, C, x), B * x, the conv output, C * conv */
        per_tok = 3 * d + d + d + d;
        break;
    case VX_SSM_MAMBA2: {
        /* in_proj (z, xBC, dt), the conv output, the scan output and the
         * gated norm's; the chunked scan's fp32 chunk states */
        per_tok = (d + cd + H) + cd + d + d;
        uint64_t chunk = (uint64_t)(s->ssm_chunk > 0 ? s->ssm_chunk : 256);
        fp32 = vx_sat_mul(vx_sat_mul(vx_ceil_div(tokens, chunk), H), vx_sat_mul(P, N));
        break;
    }
    default: {
        /* in_proj_qkvz and _ba, q|k|v concatenated for the conv, its
         * output, q and k repeated to the value heads, the kernel's output
         * and the gated norm's; fla's fp32 (64 x 64 per head) intra-chunk
         * matrix and its chunk states */
        uint64_t nk = per_rank(s->ssm_groups, tp), rep = H > nk ? 2 * H * N : 0;
        per_tok = (cd + d) + 2 * H + cd + cd + rep + d + d;
        fp32 = vx_sat_add(vx_sat_mul(vx_sat_mul(tokens, H), 64),
                          vx_sat_mul(vx_sat_mul(vx_ceil_div(tokens, 64), H), vx_sat_mul(N, P)));
        break;
    }
    }
    return vx_sat_add(vx_sat_mul(vx_sat_mul(tokens, per_tok), A), vx_sat_mul(fp32, 4));
}
