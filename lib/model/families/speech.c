/* Speech encoder-decoders: Whisper (transformers@68a7b7e272:
 * src/transformers/models/whisper/modeling_whisper.py, configuration_whisper.py).
 * The encoder reads log-mel frames through a convolution stem (conv1:
 * num_mel_bins -> d, kernel 3; conv2: d -> d, kernel 3, stride 2, both
 * biased) and a sinusoidal position table of max_source_positions rows (an
 * nn.Embedding with requires_grad off: a parameter all the same); pre-LN
 * layers whose k_proj has no bias; the decoder has learned positions
 * (max_target_positions), self- and cross-attention, and proj_out tied to
 * its embeddings. */
#include "model/families/groups.h"
#include "model/hf_config.h"
#include "model/inventory.h"

static void whisper_attn(vx_ib *b, int part, int64_t d, int64_t L, int cross)
{
    vx_ib_lin(b, "q_proj", cross ? VX_ROLE_CROSS_Q : VX_ROLE_ATTN_Q, part, d, d, 1, L);
    vx_ib_lin(b, "k_proj", cross ? VX_ROLE_CROSS_K : VX_ROLE_ATTN_K, part, d, d, 0, L);
    vx_ib_lin(b, "v_proj", cross ? VX_ROLE_CROSS_V : VX_ROLE_ATTN_V, part, d, d, 1, L);
    vx_ib_lin(b, "out_proj", cross ? VX_ROLE_CROSS_O : VX_ROLE_ATTN_O, part, d, d, 1, L);
}

static void whisper_mlp(vx_ib *b, int part, int64_t d, int64_t f, int64_t L)
{
    vx_ib_lin(b, "fc1", VX_ROLE_MLP_UP, part, f, d, 1, L);
    vx_ib_lin(b, "fc2", VX_ROLE_MLP_DOWN, part, d, f, 1, L);
}

static void build_whisper(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    int64_t d = s->hidden, f = s->ffn, E = s->enc_layers, D = s->layers;
    vx_ib_put(b, "conv1", VX_ROLE_OTHER, VX_TK_OTHER, VX_GLB, d, a->num_mel_bins * 3, 0, 1, 0);
    vx_ib_put(b, "conv1", VX_ROLE_OTHER, VX_TK_BIAS, VX_GLB, d, 1, 0, 1, 0);
    vx_ib_put(b, "conv2", VX_ROLE_OTHER, VX_TK_OTHER, VX_GLB, d, d * 3, 0, 1, 0);
    vx_ib_put(b, "conv2", VX_ROLE_OTHER, VX_TK_BIAS, VX_GLB, d, 1, 0, 1, 0);
    vx_ib_put(b, "embed_positions", VX_ROLE_POS_EMBED, VX_TK_EMBED, VX_GLB, a->max_source_positions, d, 0, 1, 0);
    whisper_attn(b, VX_ENC, d, E, 0);
    whisper_mlp(b, VX_ENC, d, f, E);
    vx_ib_norm_n(b, "layer_norm", VX_ROLE_NORM, VX_ENC, VX_NORM_LAYER, d, E, 2);
    vx_ib_norm(b, "layer_norm", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_LAYER, d, 0);

    vx_ib_emb(b, "embed_tokens", VX_ROLE_EMBED, s->vocab, d);
    vx_ib_emb(b, "embed_positions", VX_ROLE_POS_EMBED, s->max_pos, d);
    whisper_attn(b, VX_DEC, d, D, 0);
    whisper_attn(b, VX_DEC, d, D, 1);
    whisper_mlp(b, VX_DEC, d, f, D);
    vx_ib_norm_n(b, "layer_norm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, d, D, 3);
    vx_ib_norm(b, "layer_norm", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_LAYER, d, 0);
}

/* WhisperConfig's own names. One width and head count serve both stacks in
 * every released checkpoint; a config whose decoder differs is refused by
 * name rather than estimated with the encoder's sizes. */
static int whisper_key(struct vx_cfgmap *m, const char *key, vramest_option k)
{
    int64_t v;
    int rc = vx_cfgmap_int(m, key, &v);
    if (rc || v < 0 || vx_cfgmap_given(m, k)) return rc;
    return vx_cfgmap_set_i64(m, k, v, key);
}

static int same_as(struct vx_cfgmap *m, const char *dec, const char *enc)
{
    int64_t a, b;
    int rc = vx_cfgmap_int(m, dec, &a);
    if (!rc) rc = vx_cfgmap_int(m, enc, &b);
    if (!rc && a >= 0 && b >= 0 && a != b)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: %s %lld differs from %s %lld: a Whisper decoder sized "
                                              "apart from its encoder is not modelled", dec, (long long)a, enc,
                       (long long)b);
    return rc;
}

static int config_whisper(struct vx_cfgmap *m)
{
    int rc;
    if ((rc = same_as(m, "decoder_attention_heads", "encoder_attention_heads")) ||
        (rc = same_as(m, "decoder_ffn_dim", "encoder_ffn_dim")) ||
        (rc = whisper_key(m, "encoder_layers", VRAMEST_MODEL_NUM_HIDDEN_LAYERS)) ||
        (rc = whisper_key(m, "decoder_layers", VRAMEST_MODEL_NUM_DECODER_LAYERS)) ||
        (rc = whisper_key(m, "encoder_attention_heads", VRAMEST_MODEL_NUM_ATTENTION_HEADS)) ||
        (rc = whisper_key(m, "encoder_ffn_dim", VRAMEST_MODEL_INTERMEDIATE_SIZE)) ||
        (rc = whisper_key(m, "max_target_positions", VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS)))
        return rc;
    return VRAMEST_OK;
}

/* WhisperAttention (BART's): q scaled before QK^T, softmax in the input
 * dtype; SDPA and flash paths exist. */
static const vx_attn_impl attn_whisper = {.qk_copy = 1, .v_copy = 1, .prescale = 1, .mask_op = VX_MOP_ADD,
                                          .softmax = VX_SM_NONE, .mask = VX_MASK_OTHER};

const vx_family vx_fam_whisper = {
    .id = VX_FAM_WHISPER, .name = "whisper", .kind = VX_FK_ENC_DEC, .norm = VX_NORM_LAYER, .tied = 1,
    .attn_bias = 1, .mlp_bias = 1, .act = VX_ACT_GELU, .learned_pos = 1, .hd_rule = VX_HD_HIDDEN,
    .kv_rule = VX_KV_MHA, .norms = 3, .mlp = VX_MLPL_PLAIN, .placement = VX_PLACE_PRE, .attn = &attn_whisper,
    .head_norm_in_stack = 1, .peft_targets = "q_proj,v_proj", .config = config_whisper, .build = build_whisper,
    .abs_pos_enc_dec = 1,
};
