/* Transients of one inference forward pass (torch.no_grad, eval mode) of a
 * Hugging Face model, by stage, in closed form. It reads the same per-layer
 * description as the training programs: the layer kinds of the rank
 * (model/family.h), the family's attention module, and the layer's block
 * (estimate/graph/block.c), walked for what the block holds while each
 * sublayer runs. The training programs count what autograd saves; here
 * nothing is saved, so each stage only holds what its own code keeps alive
 * at its high-water mark, and the forward's peak is the largest stage over
 * the kinds.
 *
 * The code paths are those of transformers 4.38-4.44 with torch 2.x (the
 * era of the published generate() measurements and of the CPU harness);
 * docs/methodology.md, "Inference and serving", lists every term, its
 * source and its known error. In short, per forward over N = seqs x q
 * tokens and S keys, A = bytes of the compute dtype:
 *   resident  N.h.A (the layer input the caller's loop keeps) + rotary cos/sin
 *             + T5's position bias (seqs.heads.q.S);
 *   attention held.N.h.A (the block's: pre-norm 1, the normed input; post-norm
 *             and OLMo 2 0) + N.heads.d.A (q) + 2.seqs.heads.S.d.A
 *             (repeat_kv copies, GQA with eager/sdpa) + eager: c.seqs.heads.q.S
 *             (scores and softmax: c = 8 for fp32/fp16, 10 for bf16 whose fp32
 *             softmax first copies its input, 2A without an upcast) + the
 *             4-D mask seqs.q.S.A; sdpa/flash: 2.N.heads.d.A (output and its
 *             contiguous copy);
 *   mlp       held.N.h.A (pre-norm 2: residual and normed input; a parallel
 *             block its normed input and attention output; post-norm 1) +
 *             k.N.I.A (k = 3 gated, 2 plain, 4 for the composite gelu_new);
 *   logits    N.h.A + N_out.V.A (+ N_out.V.4 fp32 upcast) + generate's
 *             per-step fp32 scores. */
#include "estimate/graph/block.h"
#include "estimate/infer/infer.h"

int vx_gen_keeps_last_logits(const vx_ctx *x)
{
    return x->rt.gen_logits_to_keep_all || (x->rt.gen_logits_to_keep && x->pol.s->fam->logits_float);
}

int vx_hf_legacy_cache(const vx_shape *s)
{
    return s->fam->legacy_cache;
}

uint64_t vx_hf_mask_buffer_bytes(const vx_ctx *x)
{
    const vx_shape *s = x->pol.s;
    uint64_t p = (uint64_t)(s->max_pos > 0 ? s->max_pos : 0);
    uint64_t one = vx_alloc_round(vx_sat_mul(p, p));
    switch (s->fam->mask_buffer) {
    /* GPT2Attention / GPTJAttention register `bias` (bool, max_pos^2) per
     * layer, plus a 4-byte `masked_bias`; CodeGen/MOSS `causal_mask`. */
    case VX_MBUF_LAYER_BIAS: return vx_sat_mul((uint64_t)s->layers, vx_sat_add(one, vx_alloc_round(4)));
    case VX_MBUF_LAYER: return vx_sat_mul((uint64_t)s->layers, one);
    /* GPTBigCodeModel registers one shared `bias`. */
    case VX_MBUF_SHARED: return one;
    default: return 0;
    }
}

static uint64_t m3(uint64_t a, uint64_t b, uint64_t c)
{
    return vx_sat_mul(vx_sat_mul(a, b), c);
}

static uint64_t m4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return vx_sat_mul(m3(a, b, c), d);
}

/* Per element of the (seqs, heads, q, S) score tensor at the softmax. */
static uint64_t score_bytes_per_elem(int kind, int dtype, uint64_t A)
{
    switch (kind) {
    case VX_SM_NONE: return 2u * A;
    case VX_SM_FP32_SCORES: return 8u + A;
    case VX_SM_UPCAST_FP16:
        if (dtype == VRAMEST_DTYPE_BF16) return 2u * A;
        /* fall through */
    default:
        /* fp16 on CUDA: the half->float softmax kernel reads the input
         * directly (2 + 4, then the cast back 2); bf16 is first copied to
         * fp32 (2 + 4 + 4); fp32: input and output. */
        if (dtype == VRAMEST_DTYPE_BF16) return 10;
        return 8;
    }
}

/* Multiplier of N.I.A inside one MLP at its peak. */
static uint64_t mlp_factor(const vx_shape *s)
{
    bool composite = s->act == VX_ACT_GELU_NEW;
    if (s->gated) return composite ? 4 : 3;
    return composite ? 4 : 2;
}

/* What one forward over (b, q) queries and S keys holds, per element size A. */
typedef struct fwd_dims {
    uint64_t b, q, S, N, h, tp, A, NhA;
    int cd;
} fwd_dims;

/* A kind's heads on this rank: the model's split, scaled to the kind. */
static uint64_t rank_heads(int64_t kind_heads, int64_t model_heads, int64_t rank)
{
    if (rank <= 0) return (uint64_t)kind_heads;
    if (kind_heads == model_heads || model_heads <= 0) return (uint64_t)rank;
    return (uint64_t)((kind_heads * rank + model_heads - 1) / model_heads);
}

/* The attention of one layer of kind k, besides what the block holds. */
static uint64_t attn_term(const vx_ctx *x, const vx_shard *sh, const fwd_dims *f, const vx_layer_kind *k)
{
    const vx_shape *s = x->pol.s;
    uint64_t b = f->b, q = f->q, S = f->S, N = f->N, A = f->A;
    uint64_t heads = rank_heads(k->heads, s->heads, sh->heads_rank);
    uint64_t kvh = rank_heads(k->kv_heads, s->kv_heads, sh->kv_heads_rank);
    uint64_t d = (uint64_t)k->head_dim, dv = d;
    if (k->mixer == VX_MIX_MLA) {
        d = (uint64_t)(s->nope_dim + s->rope_dim);
        dv = (uint64_t)(s->v_head_dim > 0 ? s->v_head_dim : s->head_dim);
        kvh = heads; /* transformers decompresses MLA into full heads */
    }
    const vx_attn_impl *ai = vx_family_attn(s->fam);
    uint64_t attn = m4(N, heads, d, A);
    if (kvh < heads && x->cv->attention != VX_ATTN_FLASH)
        attn = vx_sat_add(attn, m4(2 * b, heads, S, vx_sat_mul(d, A)));
    /* a class without an SDPA path runs eager whatever the setting says */
    if (x->cv->attention == VX_ATTN_EAGER || s->fam->eager_only) {
        uint64_t per = score_bytes_per_elem(ai->softmax, f->cd, A);
        /* gpt-oss: the masked scores stay referenced while the cat with
         * the sinks, minus its max, is softmaxed: one more copy */
        if (ai->sink) per = vx_sat_add(per, A);
        attn = vx_sat_add(attn, m4(b, heads, vx_sat_mul(q, S), per));
        /* GPT-2 slices its causal buffer; the others build (seqs, 1, q, S). */
        if (q > 1 && ai->mask != VX_MASK_NONE) attn = vx_sat_add(attn, m4(b, q, S, A));
    } else {
        attn = vx_sat_add(attn, m4(2, N, heads, vx_sat_mul(dv, A)));
    }
    return attn;
}

/* The MLP stage of one layer of kind k (routed and shared experts run one
 * after the other in the HF MoE blocks, so the larger counts). */
static uint64_t mlp_term(const vx_shape *s, const fwd_dims *f, const vx_layer_kind *k)
{
    uint64_t N = f->N, A = f->A, tp = f->tp;
    if (k->mlp == VX_MLPK_NONE) return 0;
    if (k->mlp == VX_MLPK_DENSE) return m4(mlp_factor(s), N, vx_ceil_div((uint64_t)k->ffn, tp), A);
    uint64_t E = (uint64_t)s->experts, kk = (uint64_t)(s->experts_per_tok > 0 ? s->experts_per_tok : 1);
    if (!E || s->moe_ffn <= 0) return 0;
    /* Tokens one expert gets: twice the balanced share, at most all. */
    uint64_t ne = vx_min_u64(N, vx_ceil_div(vx_sat_mul(2 * kk, N), E));
    uint64_t moe_ffn = vx_ceil_div((uint64_t)s->moe_ffn, tp);
    uint64_t routed = vx_sat_add(m4(3, ne, moe_ffn, A), m4(2, ne, f->h, A));
    uint64_t router = vx_sat_add(m3(N, E, A + 4), vx_sat_mul(vx_sat_mul(N, E), vx_sat_mul(kk, 8)));
    uint64_t moe = vx_sat_add(vx_sat_add(routed, router), f->NhA);
    if (s->shared_experts > 0 && s->shared_ffn > 0)
        moe = vx_max_u64(moe, m4(3, N, vx_ceil_div((uint64_t)(s->shared_ffn * s->shared_experts), tp), A));
    return moe;
}

void vx_fwd_infer_terms(const vx_ctx *x, const vx_shard *sh, const vx_fwd_args *a, vx_fwd_terms *out)
{
    const vx_shape *s = x->pol.s;
    *out = (vx_fwd_terms){0};
    fwd_dims f = {.b = a->seqs, .q = a->q, .S = a->kv, .h = (uint64_t)s->hidden, .cd = x->pol.rp.compute_dtype};
    f.A = vx_dtype_size(f.cd);
    if (!f.A) f.A = 2;
    f.N = vx_sat_mul(f.b, f.q);
    f.tp = (uint64_t)(sh->tp > 0 ? sh->tp : 1);
    f.NhA = m3(f.N, f.h, f.A);
    uint64_t b = f.b, q = f.q, S = f.S, N = f.N, A = f.A, tp = f.tp, NhA = f.NhA, h = f.h;
    uint64_t heads = (uint64_t)(sh->heads_rank > 0 ? sh->heads_rank : s->heads);

    /* resident */
    uint64_t res = NhA;
    if (s->rotary_dim > 0) res = vx_sat_add(res, m4(2, N, (uint64_t)s->rotary_dim, A));
    if (s->rel_buckets > 0) res = vx_sat_add(res, m4(b, heads, q, vx_sat_mul(S, A)));
    out->resident = res;

    /* The kinds of layer this pass runs on this rank: the largest stage of
     * any of them is the pass's. */
    const vx_layers *L = &x->pol.m->layers;
    int stack = a->encoder || s->encoder_only ? VX_STACK_ENC : VX_STACK_DEC;
    int64_t total = L->stack[stack].layers, first = 0, n = total;
    if (stack == VX_STACK_DEC) {
        n = sh->exec_layers > 0 ? sh->exec_layers : sh->stage_layers;
        first = sh->first_layer + n > total ? (total > n ? total - n : 0) : sh->first_layer;
    }
    vx_tally t;
    vx_layers_tally(L, stack, first, n, &t);
    uint64_t attn = 0, mlp = 0;
    for (int k = 0; k < L->n_kinds; k++) {
        if (!t.count[k]) continue;
        const vx_layer_kind *kk = &L->kind[k];
        /* What the layer's block (the training program's op list) holds
         * while its attention and its MLP run: the normed input, the
         * residual, a parallel block's attention output. */
        int ha, hm;
        vx_block_held_of(s->placement, kk->cross, kk->mixer == VX_MIX_NONE || kk->mixer == VX_MIX_PROJ,
                         kk->mlp == VX_MLPK_NONE || kk->mlp == VX_MLPK_PROJ, &ha, &hm);
        uint64_t held = vx_sat_mul((uint64_t)ha, NhA);
        /* A recurrent mixer's projections, convolution and scan output
         * (state_cache.c); beside an attention (Falcon-H1) its output waits
         * for the attention's. */
        uint64_t rec = kk->mixer == VX_MIX_SSM || kk->mixer == VX_MIX_LINEAR || kk->ssm_par
                           ? vx_state_mixer_fwd_bytes(s, N, A, tp)
                           : 0;
        if (kk->mixer == VX_MIX_ATTN || kk->mixer == VX_MIX_MLA) {
            uint64_t at = attn_term(x, sh, &f, kk);
            if (kk->ssm_par) at = vx_max_u64(rec, vx_sat_add(at, NhA));
            attn = vx_max_u64(attn, vx_sat_add(held, at));
        } else if (rec) {
            attn = vx_max_u64(attn, vx_sat_add(held, rec));
        }
        if (kk->mlp != VX_MLPK_NONE) mlp = vx_max_u64(mlp, vx_sat_add(vx_sat_mul((uint64_t)hm, NhA), mlp_term(s, &f, kk)));
    }
    out->attn = attn;
    out->mlp = mlp;
    if (N > 1) out->mlp = vx_sat_add(out->mlp, a->dequant);

    /* logits: the last pipeline stage (or the GPU holding the head) */
    if (a->encoder || !sh->last_stage) return;
    int head = vx_head_resolve(s, (int)x->cv->head);
    uint64_t V = vx_ceil_div((uint64_t)s->vocab, tp);
    uint64_t nout = a->all_logits ? N : b;
    uint64_t lg = NhA; /* final norm output */
    switch (head) {
    case VX_HEAD_CAUSAL_LM:
    case VX_HEAD_SEQ2SEQ_LM: {
        /* .float() of fp32 logits returns them as they are */
        out->upcast_logits = s->fam->logits_float && x->rt.model_logits_upcast && A != 4;
        uint64_t one = m3(nout, V, A);
        lg = vx_sat_add(lg, one);
        if (out->upcast_logits) lg = vx_sat_add(lg, m3(nout, V, 4));
        /* logits * logit_scale: both alive for the multiply; with the fp32
         * upcast next, the scaled copy and its fp32 one are the peak */
        if (s->fam->logits_scaled && !out->upcast_logits) lg = vx_sat_add(lg, one);
        /* final_logit_softcapping: divide, tanh, multiply, one at a time */
        if (s->logit_softcap > 0) lg = vx_sat_add(lg, m3(nout, V, out->upcast_logits ? 4 : A));
        /* generate(): the last position's logits cloned to fp32 and the
         * processed scores; beam search also keeps log-softmax scores. */
        uint64_t step = m3(2, b, vx_sat_mul(V, 4));
        if (a->beams > 1) step = vx_sat_add(step, m3(2, b, vx_sat_mul(V, 4)));
        lg = vx_sat_add(lg, step);
        break;
    }
    case VX_HEAD_MASKED_LM: lg = vx_sat_add(vx_sat_mul(2, NhA), m3(N, V, A)); break;
    default: lg = vx_sat_add(lg, m3(b, h, A)); break;
    }
    out->logits = lg;
}
