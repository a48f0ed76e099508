/* The tensors of a recurrent token mixer, one group per parameter for the
 * `nl` layers that have one (the generic decoder, inventory.c, calls it for
 * the layers whose kind is VX_MIX_SSM / VX_MIX_LINEAR or runs one beside
 * its attention). Leaf names and shapes follow the Hugging Face modules:
 * - Mamba (MambaMixer, JambaMambaMixer): in_proj (2 d_inner), conv1d
 *   (d_inner, 1, K) with a bias, x_proj (dt_rank + 2 N), dt_proj (d_inner,
 *   with a bias), A_log (d_inner x N), D (d_inner), out_proj; Jamba adds
 *   RMSNorms over dt, B and C (row.ssm_dt_norms);
 * - Mamba-2 (Mamba2Mixer, NemotronHMamba2Mixer, FalconH1Mixer): in_proj
 *   (z, x, B, C, dt: 2 d_inner + 2 G N + heads), conv1d over x, B, C,
 *   dt_bias / A_log / D per head, the gated RMSNorm over d_inner, out_proj;
 * - gated DeltaNet (Qwen3NextGatedDeltaNet): in_proj_qkvz (2 nk dk + 2 nv
 *   dv), in_proj_ba (2 nv), conv1d over q, k, v without a bias, dt_bias and
 *   A_log per value head, the gated RMSNorm over a value head, out_proj.
 *   Qwen3.5 splits the input projections (in_proj_qkv + in_proj_z,
 *   in_proj_b + in_proj_a) into the same elements;
 * - LFM2's short convolution (Lfm2ShortConv): in_proj (B, C, x: 3 h), conv
 *   (h, 1, L_cache), out_proj, all biased with conv_bias. */
#include "model/inventory.h"

/* A per-layer vector (A_log, D, dt_bias) of `rows` x `cols`. */
static void vec(vx_ib *b, const char *name, int64_t rows, int64_t cols, int64_t nl)
{
    vx_ib_put(b, name, VX_ROLE_SSM_PARAM, VX_TK_OTHER, VX_DEC, rows, cols, nl, 1, 0);
}

/* A depthwise causal conv1d: weight (channels, 1, K), bias (channels). */
static void conv(vx_ib *b, int64_t ch, int64_t k, int bias, int64_t nl)
{
    vx_ib_put(b, "conv1d", VX_ROLE_SSM_CONV, VX_TK_OTHER, VX_DEC, ch, k, nl, 1, 0);
    if (bias) vx_ib_put(b, "conv1d", VX_ROLE_SSM_CONV, VX_TK_BIAS, VX_DEC, ch, 1, nl, 1, 0);
}

void vx_ib_ssm_mixer(vx_ib *b, const vx_shape *s, int64_t nl)
{
    int64_t h = s->hidden, d = s->ssm_inner, N = s->ssm_state, H = s->ssm_heads;
    int pb = s->ssm_proj_bias;
    switch (s->ssm_kind) {
    case VX_SSM_MAMBA1:
        vx_ib_lin(b, "in_proj", VX_ROLE_SSM_IN, VX_DEC, 2 * d, h, pb, nl);
        conv(b, d, s->ssm_conv, s->ssm_conv_bias, nl);
        vx_ib_lin(b, "x_proj", VX_ROLE_SSM_X, VX_DEC, s->ssm_dt_rank + 2 * N, d, 0, nl);
        if (s->fam->ssm_dt_norms) {
            vx_ib_norm(b, "dt_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_RMS, s->ssm_dt_rank, nl);
            vx_ib_norm(b, "b_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_RMS, N, nl);
            vx_ib_norm(b, "c_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_RMS, N, nl);
        }
        vx_ib_lin(b, "dt_proj", VX_ROLE_SSM_DT, VX_DEC, d, s->ssm_dt_rank, 1, nl);
        vec(b, "A_log", d, N, nl);
        vec(b, "D", d, 1, nl);
        vx_ib_lin(b, "out_proj", VX_ROLE_SSM_OUT, VX_DEC, h, d, pb, nl);
        break;
    case VX_SSM_MAMBA2:
        vx_ib_lin(b, "in_proj", VX_ROLE_SSM_IN, VX_DEC, d + s->ssm_conv_dim + H, h, pb, nl);
        conv(b, s->ssm_conv_dim, s->ssm_conv, s->ssm_conv_bias, nl);
        vec(b, "dt_bias", H, 1, nl);
        vec(b, "A_log", H, 1, nl);
        vec(b, "D", H, 1, nl);
        if (s->ssm_norm) vx_ib_norm(b, "norm", VX_ROLE_NORM, VX_DEC, VX_NORM_RMS, d, nl);
        vx_ib_lin(b, "out_proj", VX_ROLE_SSM_OUT, VX_DEC, h, d, pb, nl);
        break;
    case VX_SSM_GDN:
        vx_ib_lin(b, "in_proj_qkvz", VX_ROLE_SSM_IN, VX_DEC, s->ssm_conv_dim + d, h, 0, nl);
        vx_ib_lin(b, "in_proj_ba", VX_ROLE_SSM_IN2, VX_DEC, 2 * H, h, 0, nl);
        conv(b, s->ssm_conv_dim, s->ssm_conv, 0, nl);
        vec(b, "dt_bias", H, 1, nl);
        vec(b, "A_log", H, 1, nl);
        vx_ib_norm(b, "norm", VX_ROLE_NORM, VX_DEC, VX_NORM_RMS, s->ssm_head_dim, nl);
        vx_ib_lin(b, "out_proj", VX_ROLE_SSM_OUT, VX_DEC, h, d, 0, nl);
        break;
    case VX_SSM_SHORTCONV:
        vx_ib_lin(b, "in_proj", VX_ROLE_SSM_IN, VX_DEC, 3 * h, h, pb, nl);
        vx_ib_put(b, "conv", VX_ROLE_SSM_CONV, VX_TK_OTHER, VX_DEC, h, s->ssm_conv, nl, 1, 0);
        if (s->ssm_conv_bias) vx_ib_put(b, "conv", VX_ROLE_SSM_CONV, VX_TK_BIAS, VX_DEC, h, 1, nl, 1, 0);
        vx_ib_lin(b, "out_proj", VX_ROLE_SSM_OUT, VX_DEC, h, h, pb, nl);
        break;
    default: break;
    }
}
