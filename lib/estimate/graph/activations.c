/* Per-layer programs: what one decoder (or encoder) layer of each family
 * allocates and saves for backward, op by op, following the Hugging Face
 * eager / SDPA / flash-attention-2 code paths (research note §3-§8). The
 * layer is its block's op list (block.c: where the norms, the sublayers and
 * the residual adds run), with the attention module and the MLP the
 * family's row describes (model/family.h):
 * - llama-style (Llama, Mistral, Qwen2/3, Gemma, Phi-3, MoE variants):
 *   RMSNorm with its fp32 upcast, RoPE, repeat_kv for GQA when the kernel
 *   needs it, softmax in fp32 plus its cast back, SwiGLU;
 * - GPT-2 / BERT / T5: head-split views that matmul copies, dropout masks,
 *   GELU (HF's gelu_new is a Python composite saving four tensors);
 * - OPT: q pre-scaling, contiguous copies of q/k/v, the clamp (torch.max)
 *   that keeps the masked scores, fp32 softmax for fp16;
 * - BLOOM, NeoX, Falcon, Phi, GPT-J, ChatGLM: their layouts, approximated by
 *   the closest of the above where the difference is a head-sized tensor;
 * - Megatron / nanotron: fused norms, flash attention, fused MLP.
 * Kernels: eager materialises b*a*s*s scores and probabilities; SDPA-flash /
 * flash-attn 2 keep q, k, v, the output and an fp32 logsumexp (b, a, s), and
 * allocate fp32 accumulators in backward; SDPA-mem-efficient rounds the
 * logsumexp to 32. */
#include <string.h>

#include "runtime/config.h"
#include "estimate/graph/actops.h"
#include "estimate/graph/block.h"
#include "estimate/graph/mixers.h"

#define NEW(e, eb, rg) vx_op_new(a, (e), (eb), (rg))
#define DROP(x) vx_op_drop(a, (x))

static int act_fn(vx_ab *a, int f)
{
    const vx_act_cfg *c = a->c;
    int eb = vx_op_eb(a, f);
    switch (c->act) {
    case VX_ACT_RELU: return vx_op_unary_out(a, f, eb);
    case VX_ACT_GELU_NEW: {
        /* 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))); CUDA
         * autocast runs pow in fp32, so the chain after it is fp32. */
        int half = vx_op_scalar(a, f, 0);
        int pin = f;
        if (c->amp && c->cuda_autocast && eb < 4) pin = vx_op_cast(a, f, 4);
        int p3 = vx_op_unary_in(a, pin, vx_op_eb(a, pin), 2);
        if (pin != f) DROP(pin);
        int t1 = vx_op_scalar(a, p3, 0);
        DROP(p3);
        int t2 = vx_op_add(a, f, t1, vx_op_eb(a, t1) > eb ? vx_op_eb(a, t1) : eb);
        DROP(t1);
        int t3 = vx_op_scalar(a, t2, 0);
        DROP(t2);
        int th = vx_op_unary_out(a, t3, vx_op_eb(a, t3));
        DROP(t3);
        int t4 = vx_op_scalar(a, th, 1);
        DROP(th);
        int oeb = vx_op_eb(a, t4) > eb ? vx_op_eb(a, t4) : eb;
        int y = vx_op_mul(a, half, t4, oeb);
        DROP(half);
        DROP(t4);
        return y;
    }
    case VX_ACT_GELU_FAST: {
        /* 0.5 * x * (1 + tanh(x * 0.79788 * (1 + 0.044715 * x * x))) */
        int t1 = vx_op_scalar(a, f, 0);
        int t2 = vx_op_scalar(a, f, 0);
        int t3 = vx_op_mul(a, t2, f, eb);
        DROP(t2);
        int t4 = vx_op_scalar(a, t3, 1);
        DROP(t3);
        int t5 = vx_op_mul(a, t1, t4, eb);
        DROP(t1);
        DROP(t4);
        int th = vx_op_unary_out(a, t5, eb);
        DROP(t5);
        int t6 = vx_op_scalar(a, th, 1);
        DROP(th);
        int t7 = vx_op_scalar(a, f, 0);
        int y = vx_op_mul(a, t7, t6, eb);
        DROP(t7);
        DROP(t6);
        return y;
    }
    default: return vx_op_unary_in(a, f, eb, 1); /* silu, gelu, gelu(tanh): fused, save the input */
    }
}

/* Rotary embedding on x (rows x heads x d): q*cos + rotate_half(q)*sin, on
 * the first `rot` dims of each head when partial. */
static int rope(vx_ab *a, int x, int cosv, int sinv, uint64_t rot_frac_num, uint64_t rot_frac_den)
{
    uint64_t e = vx_op_elems(a, x);
    uint64_t er = rot_frac_den ? e / rot_frac_den * rot_frac_num : e;
    int xr = er < e ? vx_op_view_raw(a, x, er) : x;
    if (xr != x) {
        vx_node_spec ns = {.in = {(int16_t)x, -1, -1}, .nin = 1, .out = {(int16_t)xr, -1}, .nout = 1};
        vx_tape_node(a->tp, &ns);
    }
    int eb = vx_op_eb(a, x);
    int qc = vx_op_mul(a, xr, cosv, eb);
    int x2 = vx_op_view_raw(a, xr, er / 2), x1 = vx_op_view_raw(a, xr, er / 2);
    vx_node_spec s2 = {.in = {(int16_t)xr, -1, -1}, .nin = 1, .out = {(int16_t)x2, -1}, .nout = 1};
    vx_node_spec s1 = {.in = {(int16_t)xr, -1, -1}, .nin = 1, .out = {(int16_t)x1, -1}, .nout = 1};
    vx_tape_node(a->tp, &s2);
    vx_tape_node(a->tp, &s1);
    int ng = vx_op_scalar(a, x2, 0);
    int rot = NEW(er, eb, vx_op_rg(a, xr));
    vx_node_spec cat = {.in = {(int16_t)ng, (int16_t)x1, -1}, .nin = 2, .out = {(int16_t)rot, -1}, .nout = 1};
    vx_tape_node(a->tp, &cat);
    DROP(ng);
    DROP(x1);
    DROP(x2);
    int rs = vx_op_mul(a, rot, sinv, eb);
    DROP(rot);
    int y = vx_op_add(a, qc, rs, eb);
    DROP(qc);
    DROP(rs);
    if (xr == x) return y;
    /* torch.cat((q_embed, q_pass), dim=-1) */
    DROP(xr);
    int xp = vx_op_view_raw(a, x, e - er);
    vx_node_spec sp = {.in = {(int16_t)x, -1, -1}, .nin = 1, .out = {(int16_t)xp, -1}, .nout = 1};
    vx_tape_node(a->tp, &sp);
    int full = NEW(e, eb, vx_op_rg(a, y) || vx_op_rg(a, xp));
    vx_node_spec c2 = {.in = {(int16_t)y, (int16_t)xp, -1}, .nin = 2, .out = {(int16_t)full, -1}, .nout = 1};
    vx_tape_node(a->tp, &c2);
    DROP(y);
    DROP(xp);
    return full;
}

typedef struct astyle {
    uint8_t qk_copy;    /* matmul copies the (non-contiguous) q and k head views */
    uint8_t v_copy;     /* ... and v at the PV matmul */
    uint8_t contig;     /* explicit .contiguous() copies of q, k, v (OPT _shape, BLOOM reshape) */
    uint8_t prescale;   /* q * scaling before QK^T (OPT) */
    uint8_t scale_op;   /* scores scaled by a separate op (new tensor) */
    uint8_t mask_op;    /* 0 none/in place, 1 add, 2 where, 3 add + torch.max, 4 masked_fill */
    uint8_t upcast;     /* softmax in fp32 + cast back: 1 always, 2 only for fp16 */
    uint8_t rope;
    uint8_t post_drop;  /* dropout after the output projection */
} astyle;

/* The family's attention module (model/family.h) as this program runs it.
 * GPT-J's fp32 scores are approximated by the upcast softmax (the fp32
 * copies of q and k are not modelled). */
static astyle style_of(const vx_act_cfg *c)
{
    const vx_attn_impl *ai = &c->ai;
    static const uint8_t mask_ops[] = {[VX_MOP_ADD] = 1, [VX_MOP_NONE] = 0, [VX_MOP_WHERE] = 2,
                                       [VX_MOP_ADD_MAX] = 3, [VX_MOP_FILL] = 4};
    static const uint8_t upcasts[] = {[VX_SM_UPCAST] = 1, [VX_SM_NONE] = 0, [VX_SM_UPCAST_FP16] = 2,
                                      [VX_SM_FP32_SCORES] = 1};
    astyle s = {.qk_copy = ai->qk_copy, .v_copy = ai->v_copy, .contig = ai->contig, .prescale = ai->prescale,
                .scale_op = ai->scale_op, .mask_op = mask_ops[ai->mask_op % 5], .upcast = upcasts[ai->softmax % 4],
                .rope = 1, .post_drop = ai->post_drop};
    return s;
}

static const vx_lin *lin_of(const vx_part *P, int role)
{
    return &P->lin[role];
}

/* Self- or cross-attention, output projection and its dropout included. */
static int attention(vx_ab *a, int hin_local, const vx_part *P, int cross, int kv_src, int cosv, int sinv)
{
    int hin = vx_op_sp_gather(a, hin_local);
    if (!cross) kv_src = hin;
    const vx_act_cfg *c = a->c;
    astyle st = style_of(c);
    uint64_t N = c->N, b = c->b, s = c->s;
    uint64_t skv = cross ? (uint64_t)c->s_enc : (uint64_t)c->skv;
    uint64_t Nk = cross ? b * (uint64_t)c->s_enc : N;
    uint64_t H = (uint64_t)c->a, K = (uint64_t)c->akv, d = (uint64_t)c->d;
    int cb = c->cb;
    int q, k, v;
    if (!cross && P->lin[VX_ROLE_ATTN_QKV].present) {
        int qkv = vx_op_linear(a, hin, lin_of(P, VX_ROLE_ATTN_QKV), N);
        q = vx_op_view_raw(a, qkv, N * H * d);
        k = vx_op_view_raw(a, qkv, N * K * d);
        v = vx_op_view_raw(a, qkv, N * K * d);
        /* split's backward concatenates the three gradients into one. */
        vx_node_spec sq = {.in = {(int16_t)qkv, -1, -1}, .nin = 1, .out = {(int16_t)q, -1}, .nout = 1, .pass = 1};
        vx_node_spec sk = {.in = {(int16_t)qkv, -1, -1}, .nin = 1, .out = {(int16_t)k, -1}, .nout = 1, .pass = 1};
        vx_node_spec sv = {.in = {(int16_t)qkv, -1, -1}, .nin = 1, .out = {(int16_t)v, -1}, .nout = 1};
        vx_tape_node(a->tp, &sq);
        vx_tape_node(a->tp, &sk);
        vx_tape_node(a->tp, &sv);
        DROP(qkv);
    } else {
        q = vx_op_linear(a, hin, lin_of(P, cross ? VX_ROLE_CROSS_Q : VX_ROLE_ATTN_Q), N);
        k = vx_op_linear(a, kv_src, lin_of(P, cross ? VX_ROLE_CROSS_K : VX_ROLE_ATTN_K), Nk);
        v = vx_op_linear(a, kv_src, lin_of(P, cross ? VX_ROLE_CROSS_V : VX_ROLE_ATTN_V), Nk);
    }
    int gate = -1;
    if (c->attn_gate && !cross) {
        /* Qwen3-Next: q_proj yields the queries and an output gate (chunk) */
        int qg = q;
        q = vx_op_view_raw(a, qg, N * H * d);
        gate = vx_op_view_raw(a, qg, N * H * d);
        vx_node_spec s1 = {.in = {(int16_t)qg, -1, -1}, .nin = 1, .out = {(int16_t)q, -1}, .nout = 1, .pass = 1};
        vx_node_spec s2 = {.in = {(int16_t)qg, -1, -1}, .nin = 1, .out = {(int16_t)gate, -1}, .nout = 1};
        vx_tape_node(a->tp, &s1);
        vx_tape_node(a->tp, &s2);
        DROP(qg);
    }
    DROP(hin);
    int qeb = vx_op_eb(a, q);
    if (st.prescale) {
        int q2 = vx_op_scalar(a, q, 0);
        DROP(q);
        q = q2;
    }
    if (st.rope && c->rot > 0 && !cross) {
        uint64_t num = (uint64_t)c->rot, den = d ? d : 1;
        int q2 = rope(a, q, cosv, sinv, num, den);
        DROP(q);
        q = q2;
        int k2 = rope(a, k, cosv, sinv, num, den);
        DROP(k);
        k = k2;
    }
    if (st.contig) {
        int q2 = vx_op_copy(a, q), k2 = vx_op_copy(a, k), v2 = vx_op_copy(a, v);
        DROP(q);
        DROP(k);
        DROP(v);
        q = q2, k = k2, v = v2;
    }
    int kk = k, vv = v, own_k = 0, own_v = 0;
    int rep = K < H && (c->attn == VX_KERN_EAGER || c->repeat_kv);
    if (rep) {
        /* repeat_kv: expand + reshape materialises K and V for every head;
         * its backward sums the head groups back. */
        kk = NEW(b * skv * H * d, vx_op_eb(a, k), vx_op_rg(a, k));
        vx_node_spec nk = {.in = {(int16_t)k, -1, -1}, .nin = 1, .out = {(int16_t)kk, -1}, .nout = 1};
        vx_tape_node(a->tp, &nk);
        vv = NEW(b * skv * H * d, vx_op_eb(a, v), vx_op_rg(a, v));
        vx_node_spec nv = {.in = {(int16_t)v, -1, -1}, .nin = 1, .out = {(int16_t)vv, -1}, .nout = 1};
        vx_tape_node(a->tp, &nv);
        own_k = own_v = 1;
        DROP(k);
        DROP(v);
    }
    int merged;
    if (c->attn == VX_KERN_EAGER) {
        /* Selective recompute (Megatron's core-attention checkpoint): q, k,
         * v stay; the scores, probabilities and masks are recomputed in
         * backward, where they exist again for one layer at a time. */
        int sel = c->ckpt == VX_GC_SELECTIVE && a->tp->save;
        uint16_t nn0 = a->tp->nn;
        if (sel) {
            int keep[3] = {q, kk, vv};
            vx_tape_keep(a->tp, keep, 3);
            a->tp->save = 0;
        }
        int qq = q, own_q = 0;
        if (st.qk_copy) {
            qq = vx_op_copy(a, q), own_q = 1;
            if (!own_k) kk = vx_op_copy(a, k), own_k = 2;
        }
        if (st.v_copy && !own_v) vv = vx_op_copy(a, v), own_v = 2;
        uint64_t S = b * H * s * skv;
        int sc = vx_op_matmul(a, qq, kk, S, qeb);
        if (own_q) DROP(qq);
        if (st.scale_op) {
            int t = vx_op_scalar(a, sc, 0);
            DROP(sc);
            sc = t;
        }
        if (st.mask_op == 1 || st.mask_op == 2 || st.mask_op == 4) {
            int t = vx_op_scalar(a, sc, st.mask_op == 1);
            DROP(sc);
            sc = t;
        } else if (st.mask_op == 3) {
            int t = vx_op_scalar(a, sc, 1);
            DROP(sc);
            /* torch.max(scores, finfo.min): maximum saves both operands. */
            int lim = vx_op_extern(a, 1, qeb, 0, 0);
            sc = vx_op_mul(a, t, lim, qeb);
            a->tp->n[a->tp->nn - 1].sv[0] = (int16_t)t;
            a->tp->t[a->tp->t[t].root].saves++;
            DROP(t);
            DROP(lim);
        }
        /* gpt-oss: torch.cat([scores, sinks]) minus its row max; the
         * masked scores stay referenced until the dropout rebinds them. */
        int held_sc = -1;
        if (c->ai.sink) {
            int cat = vx_op_copy(a, sc);
            int sub = vx_op_scalar(a, cat, 1);
            DROP(cat);
            held_sc = sc;
            sc = sub;
        }
        int up = st.upcast == 1 || (st.upcast == 2 && cb == 2);
        int forced = c->amp && c->cuda_autocast && !up; /* autocast runs softmax in fp32 */
        int probs;
        if ((up || forced) && vx_op_eb(a, sc) < 4) {
            /* softmax(x, dtype=float32) makes a fp32 copy of the scores,
             * except for fp16 on CUDA, where at::_softmax reads half and
             * writes float directly; autocast's own cast is always a copy. */
            int direct = !c->cpu && c->fp16 && !forced;
            int in32 = direct ? vx_op_view(a, sc, S) : vx_op_cast(a, sc, 4);
            int p32 = vx_op_unary_out(a, in32, 4);
            DROP(in32);
            DROP(sc);
            probs = vx_op_cast(a, p32, qeb);
            DROP(p32);
        } else {
            probs = vx_op_unary_out(a, sc, vx_op_eb(a, sc));
            DROP(sc);
        }
        if (held_sc >= 0) DROP(held_sc);
        int pd = vx_op_dropout(a, probs, c->p_attn);
        DROP(probs);
        int out = vx_op_matmul(a, pd, vv, b * H * s * d, qeb);
        DROP(pd);
        if (own_k == 2) DROP(kk);
        if (own_v == 2) DROP(vv);
        merged = vx_op_copy(a, out);
        DROP(out);
        if (sel) {
            a->tp->save = 1;
            /* The recomputed core in backward: scores, fp32 and cast
             * probabilities, dropout output and mask. */
            uint64_t per = 4u + (uint64_t)qeb * 2u + (c->p_attn > 0 ? (uint64_t)c->mask_b : 0u);
            if (a->tp->nn > nn0 + 1) a->tp->n[a->tp->nn - 2].tmp = vx_sat_add(a->tp->n[a->tp->nn - 2].tmp, vx_sat_mul(S, per));
        }
    } else {
        int flash = c->attn != VX_KERN_SDPA_MEM;
        uint64_t lse_len = flash ? s : vx_round_up(s, 32);
        int out = NEW(N * H * d, qeb, 1);
        int lse = NEW(b * H * lse_len, 4, 0);
        uint64_t tmp = 0;
        if (flash) {
            /* flash backward: dq_accum fp32 (b, round128(s), h, round32(d)),
             * softmax_d fp32; with native GQA the expanded dk/dv. */
            tmp = vx_sat_mul(vx_sat_mul(b * vx_round_up(s, 128), H * vx_round_up(d, 32)), 4);
            tmp = vx_sat_add(tmp, vx_sat_mul(b * H * vx_round_up(s, 128), 4));
            if (!rep && K < H) tmp = vx_sat_add(tmp, vx_sat_mul(2 * b * skv * H * d, (uint64_t)qeb));
        } else {
            tmp = vx_sat_mul(b * H * lse_len, 4);
        }
        vx_node_spec ns = {.in = {(int16_t)q, (int16_t)kk, (int16_t)vv}, .nin = 3, .out = {(int16_t)out, -1},
                           .nout = 1, .sv = {(int16_t)q, (int16_t)kk, (int16_t)vv, (int16_t)out, (int16_t)lse},
                           .nsv = 5, .tmp = tmp};
        vx_tape_node(a->tp, &ns);
        DROP(lse);
        merged = vx_op_view(a, out, N * H * d);
        DROP(out);
    }
    DROP(q);
    if (own_k == 1 || !own_k) DROP(kk);
    if (own_v == 1 || !own_v) DROP(vv);
    if (own_k == 2) DROP(k);
    if (own_v == 2) DROP(v);
    if (gate >= 0) {
        /* attn_output * sigmoid(gate): the sigmoid saves its output, the
         * product both operands */
        int sg = vx_op_unary_out(a, gate, vx_op_eb(a, gate));
        DROP(gate);
        int gm = vx_op_mul(a, merged, sg, vx_op_eb(a, merged));
        DROP(merged);
        DROP(sg);
        merged = gm;
    }
    int o = vx_op_linear(a, merged, lin_of(P, cross ? VX_ROLE_CROSS_O : VX_ROLE_ATTN_O), N);
    DROP(merged);
    o = vx_op_sp_scatter(a, o);
    if (st.post_drop && c->p_hid > 0) {
        int od = vx_op_dropout(a, o, c->p_hid);
        DROP(o);
        o = od;
    }
    return o;
}

/* A linear of another width: `out` (or `in`) replaced, its gradient scaled. */
static vx_lin resized(const vx_lin *L, int64_t in, int64_t out)
{
    vx_lin r = *L;
    if (L->in > 0 && L->out > 0 && in > 0 && out > 0) {
        r.wgrad = (uint64_t)((double)L->wgrad * ((double)in * (double)out) / ((double)L->in * (double)L->out));
        r.in = in, r.out = out;
    }
    return r;
}

static int dense_mlp(vx_ab *a, int h_local, const vx_part *P, uint64_t rows, int gate_role, int up_role, int down_role,
                     int64_t ffn)
{
    int h = gate_role == VX_ROLE_MLP_GATE ? vx_op_sp_gather(a, h_local) : vx_op_view(a, h_local, vx_op_elems(a, h_local));
    const vx_act_cfg *c = a->c;
    const vx_lin *Lg = lin_of(P, gate_role), *Lu = lin_of(P, up_role), *Ld = lin_of(P, down_role);
    vx_lin kg, ku, kd;
    if (gate_role == VX_ROLE_MLP_GATE && c->kind_ffn > 0) {
        kg = resized(Lg, Lg->in, c->kind_ffn), ku = resized(Lu, Lu->in, c->kind_ffn);
        kd = resized(Ld, c->kind_ffn, Ld->out);
        Lg = &kg, Lu = &ku, Ld = &kd;
    }
    int p;
    if (c->gated) {
        int g, u;
        if (P->lin[VX_ROLE_MLP_GATE_UP].present && gate_role == VX_ROLE_MLP_GATE) {
            int gu = vx_op_linear(a, h, lin_of(P, VX_ROLE_MLP_GATE_UP), rows);
            g = vx_op_view_raw(a, gu, rows * (uint64_t)ffn);
            u = vx_op_view_raw(a, gu, rows * (uint64_t)ffn);
            vx_node_spec s1 = {.in = {(int16_t)gu, -1, -1}, .nin = 1, .out = {(int16_t)g, -1}, .nout = 1, .pass = 1};
            vx_node_spec s2 = {.in = {(int16_t)gu, -1, -1}, .nin = 1, .out = {(int16_t)u, -1}, .nout = 1};
            vx_tape_node(a->tp, &s1);
            vx_tape_node(a->tp, &s2);
            DROP(gu);
        } else {
            g = vx_op_linear(a, h, Lg, rows);
            u = vx_op_linear(a, h, Lu, rows);
        }
        int ga = act_fn(a, g);
        DROP(g);
        int oeb = vx_op_eb(a, ga) > vx_op_eb(a, u) ? vx_op_eb(a, ga) : vx_op_eb(a, u);
        p = vx_op_mul(a, ga, u, oeb);
        DROP(ga);
        DROP(u);
        if (c->mlp_drop && c->p_hid > 0) {
            int pd = vx_op_dropout(a, p, c->p_hid);
            DROP(p);
            p = pd;
        }
    } else {
        int f = vx_op_linear(a, h, Lu, rows);
        p = act_fn(a, f);
        DROP(f);
        if (c->mlp_drop && c->p_hid > 0) {
            int pd = vx_op_dropout(a, p, c->p_hid);
            DROP(p);
            p = pd;
        }
    }
    DROP(h);
    int y = vx_op_linear(a, p, Ld, rows);
    DROP(p);
    if (gate_role == VX_ROLE_MLP_GATE) y = vx_op_sp_scatter(a, y);
    return y;
}

/* Token-choice MoE (HF eager, Mixtral style): router softmax in fp32, top-k,
 * every token's hidden state gathered once per chosen expert, the expert
 * MLP over those N*k rows, weighted and index_add-ed back. */
static int moe(vx_ab *a, int h, const vx_part *P)
{
    const vx_act_cfg *c = a->c;
    uint64_t N = c->N, E = (uint64_t)c->experts, k = (uint64_t)c->topk;
    int eb = vx_op_eb(a, h);
    int logits = vx_op_linear(a, h, lin_of(P, VX_ROLE_ROUTER), N);
    int l32 = vx_op_cast(a, logits, 4);
    DROP(logits);
    int probs = vx_op_unary_out(a, l32, 4);
    DROP(l32);
    int topw = NEW(N * k, 4, 1);
    int idx = NEW(N * k, 8, 0);
    vx_node_spec tk = {.in = {(int16_t)probs, -1, -1}, .nin = 1, .out = {(int16_t)topw, -1}, .nout = 1,
                       .sv = {(int16_t)idx, -1, -1, -1, -1}, .nsv = 1};
    vx_tape_node(a->tp, &tk);
    DROP(probs);
    int wn = vx_op_unary_out(a, topw, 4);
    DROP(topw);
    int wc = vx_op_cast(a, wn, eb);
    DROP(wn);
    /* one_hot(selected, E).permute: int64 (E, k, N), alive through the loop */
    int mask = NEW(E * k * N, 8, 0);
    int out = NEW(N * (uint64_t)c->h, eb, 1);
    int gathered = NEW(N * k * (uint64_t)c->h, eb, vx_op_rg(a, h));
    vx_node_spec gn = {.in = {(int16_t)h, -1, -1}, .nin = 1, .out = {(int16_t)gathered, -1}, .nout = 1,
                       .sv = {(int16_t)idx, -1, -1, -1, -1}, .nsv = 1};
    vx_tape_node(a->tp, &gn);
    vx_act_cfg ce = *c;
    ce.N = N * k;
    ce.gated = 1;
    vx_ab ea = *a;
    ea.c = &ce;
    int y = dense_mlp(&ea, gathered, P, N * k, VX_ROLE_EXPERT_GATE, VX_ROLE_EXPERT_UP, VX_ROLE_EXPERT_DOWN, c->moe_ffn);
    DROP(gathered);
    int wgt = vx_op_mul(a, y, wc, eb);
    DROP(y);
    DROP(wc);
    vx_node_spec ia = {.in = {(int16_t)wgt, -1, -1}, .nin = 1, .out = {(int16_t)out, -1}, .nout = 1,
                       .sv = {(int16_t)idx, -1, -1, -1, -1}, .nsv = 1};
    vx_tape_node(a->tp, &ia);
    DROP(wgt);
    DROP(mask);
    DROP(idx);
    if (c->shared_ffn > 0) {
        vx_act_cfg cs = *c;
        cs.gated = 1;
        vx_ab sa = *a;
        sa.c = &cs;
        int sh = dense_mlp(&sa, h, P, N, VX_ROLE_SHARED_GATE, VX_ROLE_SHARED_UP, VX_ROLE_SHARED_DOWN, c->shared_ffn);
        int o2 = vx_op_add(a, out, sh, eb);
        DROP(out);
        DROP(sh);
        out = o2;
    }
    return out;
}

static int mlp(vx_ab *a, int h, const vx_part *P)
{
    const vx_act_cfg *c = a->c;
    int y;
    if (c->moe && P->lin[VX_ROLE_EXPERT_UP].present)
        y = moe(a, h, P);
    else
        y = dense_mlp(a, h, P, c->N, VX_ROLE_MLP_GATE, VX_ROLE_MLP_UP, VX_ROLE_MLP_DOWN, c->ffn);
    if (c->p_hid > 0) {
        int yd = vx_op_dropout(a, y, c->p_hid);
        DROP(y);
        y = yd;
    }
    return y;
}

static int norm(vx_ab *a, int x, const vx_part *P)
{
    const vx_act_cfg *c = a->c;
    uint64_t rows = vx_op_elems(a, x) / (uint64_t)(c->h > 0 ? c->h : 1);
    int ln = c->norm == VX_NS_LN;
    uint64_t wg = vx_sat_mul((uint64_t)c->h, (uint64_t)a->gb * (ln ? 2u : 1u));
    if (ln) return vx_op_layernorm(a, x, rows, P->norm_trainable, wg, vx_op_eb(a, x));
    return vx_op_rmsnorm(a, x, rows, c->norm, P->norm_trainable, wg, P->norm_wbytes ? P->norm_wbytes : 4);
}

static int residual(vx_ab *a, int x, int y)
{
    int eb = vx_op_eb(a, x) > vx_op_eb(a, y) ? vx_op_eb(a, x) : vx_op_eb(a, y);
    return vx_op_add(a, x, y, eb);
}

/* The layer's token mixer: attention, a recurrent mixer (mixers.c), or
 * both on the same input with their outputs summed (Falcon-H1: the Mamba-2
 * mixer runs first, its output waits for the attention's). */
static int token_mixer(vx_ab *a, int in, const vx_part *P, int cosv, int sinv)
{
    const vx_act_cfg *c = a->c;
    if (c->mixer == VX_MIX_SSM || c->mixer == VX_MIX_LINEAR) return vx_act_mixer(a, in, P);
    if (!c->ssm_par) return attention(a, in, P, 0, in, cosv, sinv);
    int m = vx_act_mixer(a, in, P);
    int at = attention(a, in, P, 0, in, cosv, sinv);
    int y = residual(a, m, at);
    DROP(m);
    DROP(at);
    return y;
}

/* One layer: X -> Y. */
static int layer(vx_ab *a, int X, const vx_part *P, int cross)
{
    const vx_act_cfg *c = a->c;
    int cosv = -1, sinv = -1;
    if (c->rot > 0) {
        /* transformers <= 4.44 recomputes cos/sin in every attention layer;
         * later versions compute them once per forward (shared). */
        uint64_t e = c->s * (uint64_t)c->rot;
        if (c->legacy) cosv = NEW(e, c->cb, 0), sinv = NEW(e, c->cb, 0);
        else cosv = vx_op_extern(a, e, c->cb, 0, 0), sinv = vx_op_extern(a, e, c->cb, 0, 0);
    }
    int enc = -1;
    if (cross) enc = vx_op_extern(a, c->b * (uint64_t)c->s_enc * (uint64_t)c->h, vx_op_eb(a, X), 1, 1);
    /* The block's op list (block.c), run on the tape. */
    int r[VX_BLOCK_SLOTS];
    r[0] = X;
    int Y = X;
    for (const vx_bop *o = vx_block_ops_of(c->place, cross, c->no_mixer, c->no_mlp); o->op != VX_BOP_END; o++) {
        int in = r[o->a];
        switch (o->op) {
        case VX_BOP_NORM: r[o->dst] = norm(a, in, P); break;
        case VX_BOP_ATTN: r[o->dst] = token_mixer(a, in, P, cosv, sinv); break;
        case VX_BOP_XATTN: r[o->dst] = attention(a, in, P, 1, enc, -1, -1); break;
        case VX_BOP_MLP: r[o->dst] = mlp(a, in, P); break;
        case VX_BOP_ADD: r[o->dst] = residual(a, in, r[o->b]); break;
        default: DROP(in); continue;
        }
        Y = r[o->dst];
    }
    DROP(cosv);
    DROP(sinv);
    DROP(enc);
    return Y;
}

int vx_act_layer(const vx_act_cfg *c, const vx_part *part, int cross, struct vx_tlog *log, vx_prog *out)
{
    vx_tape tp;
    vx_tape_init(&tp, c->cpu, 1, 1);
    tp.log = log;
    vx_ab a = {.tp = &tp, .c = c, .gb = part->gb ? part->gb : 2, .cat = VX_TC_ACT};
    int eb = (c->amp || c->qlora) ? 4 : c->cb;
    int X = vx_tape_new(&tp, c->Nh * (uint64_t)c->h, eb, VX_TC_ACT, c->rg_stream);
    int Y = layer(&a, X, part, cross);
    vx_prog_finish(&tp, X, Y, 1, out);
    if (tp.err) return vx_fail(VRAMEST_E_INTERNAL, "train: layer program exceeded the tape (%d tensors, %d nodes)",
                               (int)tp.nt, (int)tp.nn);
    return VRAMEST_OK;
}
