/* Recurrent token mixers on the tape (issue #16): what a training step of a
 * Mamba, Mamba-2 or gated DeltaNet layer allocates and saves, with the
 * fused kernels the Hugging Face classes call when they are installed
 * (docs/methodology.md, "State-space and linear-attention layers"):
 * - Mamba (MambaMixer.cuda_kernels_forward, JambaMambaMixer): in_proj, then
 *   mamba_inner_fn (state-spaces/mamba, ops/selective_scan_interface.py,
 *   checkpoint_lvl 1): it saves the in_proj output xz, x_proj's output,
 *   B and C made contiguous, the scan output and the scan's fp32
 *   intermediates (d_inner x 2N per 2048-token chunk); the conv output and
 *   delta are recomputed in backward; out_proj runs inside;
 * - Mamba-2 (Mamba2Mixer, FalconH1Mixer, Nemotron-H's remote code): in_proj,
 *   then mamba_split_conv1d_scan_combined (ops/triton/ssd_combined.py) with
 *   the gated norm and out_proj inside: it saves the in_proj output, the
 *   scan output and the norm's fp32 rstd; the conv output and the chunk
 *   states (fp32, heads x head_dim x N per chunk) are recomputed;
 * - gated DeltaNet (Qwen3NextGatedDeltaNet with causal-conv1d and fla):
 *   in_proj_qkvz and in_proj_ba, q|k|v concatenated for causal_conv1d_fn
 *   (which saves its input), sigmoid(b) and the fp32 decay g, q and k
 *   repeated to the value heads, chunk_gated_delta_rule (fla
 *   ops/gated_delta_rule/chunk.py: saves the l2-normalised q and k, v, g,
 *   beta, fp32 rstds and its 64 x 64 intra-chunk matrix per head), the
 *   gated RMSNorm (saves its input and the gate, a view that keeps
 *   in_proj_qkvz's output alive) and out_proj.
 * Backward scratch is each kernel's recomputed tensors and input gradients.
 * The torch-only fallbacks (no kernels installed; transformers' native
 * Nemotron-H always) materialise per-chunk matrices and are not modelled. */
#include "estimate/graph/actops.h"
#include "estimate/graph/mixers.h"

#define NEW(e, eb, rg) vx_op_new(a, (e), (eb), (rg))
#define DROP(x) vx_op_drop(a, (x))

/* Parameter-gradient bytes of the modules a fused kernel uses directly. */
static uint64_t fused_wgrad(const vx_part *P, const int *roles, int n, int *trainable)
{
    uint64_t g = 0;
    *trainable = 0;
    for (int i = 0; i < n; i++) {
        const vx_lin *L = &P->lin[roles[i]];
        if (!L->present || !L->trainable) continue;
        g = vx_sat_add(g, L->wgrad);
        *trainable = 1;
    }
    return g;
}

/* One fused kernel: `in` -> a new output of `out_elems`, saving `sv` (up to
 * five, -1 unused), with backward scratch `tmp` and the gradients of the
 * modules in `roles`. Forward transients (`fwd`, bytes) exist only while it
 * runs. */
static int fused(vx_ab *a, int in, uint64_t out_elems, int eb, const int sv[5], uint64_t fwd, uint64_t tmp,
                 const vx_part *P, const int *roles, int nroles)
{
    int tr;
    uint64_t wg = fused_wgrad(P, roles, nroles, &tr);
    int scratch = fwd ? NEW(fwd, 1, 0) : -1;
    int y = NEW(out_elems, eb, vx_op_rg(a, in) || tr);
    vx_node_spec ns = {.in = {(int16_t)in, -1, -1}, .nin = 1, .out = {(int16_t)y, -1}, .nout = 1, .nsv = 0,
                       .wg = wg, .wcat = VX_TC_GRAD, .tmp = tmp};
    for (int i = 0; i < 5; i++)
        if (sv[i] >= 0) ns.sv[ns.nsv++] = (int16_t)sv[i];
    for (int i = ns.nsv; i < 5; i++) ns.sv[i] = -1;
    vx_tape_node(a->tp, &ns);
    if (scratch >= 0) DROP(scratch);
    return y;
}

static int mamba1(vx_ab *a, int h, const vx_part *P)
{
    const vx_act_cfg *c = a->c;
    uint64_t N = c->N, d = (uint64_t)c->ssm_inner, R = (uint64_t)c->ssm_dt_rank, S = (uint64_t)c->ssm_state;
    int xz = vx_op_linear(a, h, &P->lin[VX_ROLE_SSM_IN], N);
    int eb = vx_op_eb(a, xz);
    int xdbl = NEW(N * (R + 2 * S), eb, 0), bc = NEW(N * 2 * S, eb, 0);
    /* the scan's fp32 intermediates: d_inner x 2N per sequence and per
     * 2048-token chunk begun (one, plus one per 2048 tokens: a linear form
     * the program cache can compile, at most one chunk over) */
    int inter = NEW(c->b * d * 2 * S + N * vx_ceil_div(d * 2 * S, 2048), 4, 0), scan = NEW(N * d, eb, 0);
    /* the conv output, delta and the gated scan output exist while it runs;
     * backward recomputes the first two beside dxz and the other gradients */
    static const int roles[] = {VX_ROLE_SSM_CONV, VX_ROLE_SSM_X, VX_ROLE_SSM_DT, VX_ROLE_SSM_OUT, VX_ROLE_SSM_PARAM};
    int sv[5] = {xz, xdbl, bc, inter, scan};
    int y = fused(a, xz, N * (uint64_t)c->h, eb, sv, vx_sat_mul(N * 3 * d, (uint64_t)eb),
                  vx_sat_mul(N * 8 * d, (uint64_t)eb), P, roles, 5);
    DROP(xdbl), DROP(bc), DROP(inter), DROP(scan), DROP(xz);
    return y;
}

static int mamba2(vx_ab *a, int h, const vx_part *P)
{
    const vx_act_cfg *c = a->c;
    uint64_t N = c->N, d = (uint64_t)c->ssm_inner, cd = (uint64_t)c->ssm_conv_dim, H = (uint64_t)c->ssm_heads;
    /* the chunk states: heads x head_dim x N per chunk, counted per token
     * (the last chunk's padding left out) */
    uint64_t chunk = (uint64_t)(c->ssm_chunk > 0 ? c->ssm_chunk : 256);
    uint64_t states = vx_sat_mul(N, vx_ceil_div(H * (uint64_t)c->ssm_head_dim * (uint64_t)c->ssm_state, chunk));
    int zx = vx_op_linear(a, h, &P->lin[VX_ROLE_SSM_IN], N);
    int eb = vx_op_eb(a, zx);
    int scan = NEW(N * d, eb, 0), rstd = NEW(N * (uint64_t)(c->ssm_groups > 0 ? c->ssm_groups : 1), 4, 0);
    /* forward: the conv output, dt (fp32), the chunk states, the gated norm's
     * output; backward: the same recomputed with dzxbcdt and dscan */
    uint64_t fwd = vx_sat_add(vx_sat_mul(N * (cd + d), (uint64_t)eb), vx_sat_mul(vx_sat_add(states, N * H), 4));
    uint64_t tmp = vx_sat_add(vx_sat_mul(N * (2 * cd + 2 * d + H), (uint64_t)eb), vx_sat_mul(2 * states, 4));
    static const int roles[] = {VX_ROLE_SSM_CONV, VX_ROLE_SSM_OUT, VX_ROLE_SSM_PARAM};
    int sv[5] = {zx, scan, rstd, -1, -1};
    int y = fused(a, zx, N * (uint64_t)c->h, eb, sv, fwd, tmp, P, roles, 3);
    DROP(scan), DROP(rstd), DROP(zx);
    return y;
}

/* A new tensor computed from `in` by a node that saves nothing (a cat, a
 * cast chain): its gradient flows back to `in`. */
static int derived(vx_ab *a, int in, uint64_t elems, int eb)
{
    int y = NEW(elems, eb, vx_op_rg(a, in));
    vx_node_spec ns = {.in = {(int16_t)in, -1, -1}, .nin = 1, .out = {(int16_t)y, -1}, .nout = 1,
                       .sv = {-1, -1, -1, -1, -1}};
    vx_tape_node(a->tp, &ns);
    return y;
}

static int deltanet(vx_ab *a, int h, const vx_part *P)
{
    const vx_act_cfg *c = a->c;
    uint64_t N = c->N, d = (uint64_t)c->ssm_inner, cd = (uint64_t)c->ssm_conv_dim, H = (uint64_t)c->ssm_heads;
    uint64_t nk = (uint64_t)(c->ssm_groups > 0 ? c->ssm_groups : 1), dk = (uint64_t)c->ssm_state;
    static const int conv_roles[] = {VX_ROLE_SSM_CONV}, param_roles[] = {VX_ROLE_SSM_PARAM};
    int qkvz = vx_op_linear(a, h, &P->lin[VX_ROLE_SSM_IN], N);
    int ba = vx_op_linear(a, h, &P->lin[VX_ROLE_SSM_IN2], N);
    int eb = vx_op_eb(a, qkvz);
    /* q|k|v concatenated for the conv, which saves it; q, k and v are views
     * of the conv's output */
    int mixed = derived(a, qkvz, N * cd, eb);
    int sv_conv[5] = {mixed, -1, -1, -1, -1};
    int conv = fused(a, mixed, N * cd, eb, sv_conv, 0, vx_sat_mul(N * cd, (uint64_t)eb), P, conv_roles, 1);
    DROP(mixed);
    /* beta = sigmoid(b) (saves its output), g = -exp(A_log) * softplus(
     * a.float() + dt_bias) in fp32 (softplus saves its input) */
    int beta = NEW(N * H, eb, 0), gin = NEW(N * H, 4, 0);
    int sv_g[5] = {beta, gin, -1, -1, -1};
    int g = fused(a, ba, N * H, 4, sv_g, 0, vx_sat_mul(N * H, 8), P, param_roles, 1);
    DROP(ba), DROP(gin);
    /* q and k repeated to the value heads (transient), then l2-normalised
     * in the kernel: chunk_gated_delta_rule saves the normalised q and k,
     * v, g, beta, two fp32 rstds and its 64 x 64 intra-chunk matrix per
     * head; its fp32 chunk states exist in the forward and again in
     * backward */
    int rep = H > nk ? NEW(N * 2 * H * dk, eb, 0) : -1;
    int qk = NEW(N * 2 * H * dk, eb, 0);
    if (rep >= 0) DROP(rep);
    int aux = NEW(N * H * (64 + 2), 4, 0);
    uint64_t states = vx_sat_mul(N, vx_ceil_div(H * dk * (uint64_t)c->ssm_head_dim, 64));
    int o = NEW(N * d, eb, vx_op_rg(a, conv) || vx_op_rg(a, g));
    vx_node_spec ns = {.in = {(int16_t)conv, (int16_t)g, -1}, .nin = 2, .out = {(int16_t)o, -1}, .nout = 1,
                       .sv = {(int16_t)conv, (int16_t)qk, (int16_t)g, (int16_t)beta, (int16_t)aux}, .nsv = 5,
                       .tmp = vx_sat_add(vx_sat_mul(N * (2 * H * dk + d + cd), (uint64_t)eb), vx_sat_mul(2 * states, 4))};
    int fwd = NEW(states, 4, 0); /* the forward's chunk states */
    vx_tape_node(a->tp, &ns);
    DROP(fwd);
    DROP(conv), DROP(g), DROP(beta), DROP(aux), DROP(qk);
    /* the gated RMSNorm saves its input, the gate (a view of in_proj_qkvz's
     * output) and an fp32 rstd per head */
    int rs = NEW(N * H, 4, 0);
    int sv_n[5] = {o, qkvz, rs, -1, -1};
    int normed = fused(a, o, N * d, eb, sv_n, 0, vx_sat_mul(N * d, 4), P, param_roles, 0);
    DROP(o), DROP(rs), DROP(qkvz);
    int y = vx_op_linear(a, normed, &P->lin[VX_ROLE_SSM_OUT], N);
    DROP(normed);
    return y;
}

/* One third of `bcx` (a chunk view whose gradient flows back to it). */
static int third(vx_ab *a, int bcx, uint64_t elems, int pass)
{
    int v = vx_op_view_raw(a, bcx, elems);
    vx_node_spec ns = {.in = {(int16_t)bcx, -1, -1}, .nin = 1, .out = {(int16_t)v, -1}, .nout = 1,
                       .pass = (uint8_t)pass, .sv = {-1, -1, -1, -1, -1}};
    vx_tape_node(a->tp, &ns);
    return v;
}

/* LFM2's short convolution (Lfm2ShortConv.cuda_kernels_forward): B, C, x
 * = chunk(in_proj(h)); B * x; causal_conv1d_fn (saves its input); C * conv;
 * out_proj. The products save their operands (B, x, C: views that keep
 * in_proj's output alive). */
static int shortconv(vx_ab *a, int h, const vx_part *P)
{
    const vx_act_cfg *c = a->c;
    uint64_t N = c->N, d = (uint64_t)c->ssm_inner;
    int bcx = vx_op_linear(a, h, &P->lin[VX_ROLE_SSM_IN], N);
    int eb = vx_op_eb(a, bcx);
    int B = third(a, bcx, N * d, 1), C = third(a, bcx, N * d, 1), x = third(a, bcx, N * d, 0);
    DROP(bcx);
    int bx = vx_op_mul(a, B, x, eb);
    DROP(B), DROP(x);
    static const int roles[] = {VX_ROLE_SSM_CONV};
    int sv[5] = {bx, -1, -1, -1, -1};
    int conv = fused(a, bx, N * d, eb, sv, 0, vx_sat_mul(N * d, (uint64_t)eb), P, roles, 1);
    DROP(bx);
    int y = vx_op_mul(a, C, conv, eb);
    DROP(C), DROP(conv);
    int o = vx_op_linear(a, y, &P->lin[VX_ROLE_SSM_OUT], N);
    DROP(y);
    return o;
}

int vx_act_mixer(vx_ab *a, int hin_local, const vx_part *P)
{
    int h = vx_op_sp_gather(a, hin_local);
    int y;
    switch (a->c->ssm_kind) {
    case VX_SSM_MAMBA1: y = mamba1(a, h, P); break;
    case VX_SSM_MAMBA2: y = mamba2(a, h, P); break;
    case VX_SSM_SHORTCONV: y = shortconv(a, h, P); break;
    default: y = deltanet(a, h, P); break;
    }
    DROP(h);
    return vx_op_sp_scatter(a, y);
}
