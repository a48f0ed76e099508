/* Encoders and encoder-decoders: BERT (post-LN, learned positions, token
 * types, the MLM / pooled classification heads) and T5 / mT5 (one shared
 * embedding, relative position buckets, RMS-style T5LayerNorm, dropout
 * inside the FFN). Sources: transformers models/{bert,t5,mt5}/. */
#include <string.h>

#include "model/families/groups.h"
#include "model/hf_config.h"
#include "model/inventory.h"

static void build_bert(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, f = s->ffn;
    vx_ib_emb(b, "word_embeddings", VX_ROLE_EMBED, s->vocab, h);
    vx_ib_emb(b, "position_embeddings", VX_ROLE_POS_EMBED, s->max_pos, h);
    if (a->type_vocab_size > 0) vx_ib_emb(b, "token_type_embeddings", VX_ROLE_TYPE_EMBED, a->type_vocab_size, h);
    vx_ib_norm(b, "LayerNorm", VX_ROLE_EMBED_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
    vx_ib_lin(b, "query", VX_ROLE_ATTN_Q, VX_ENC, h, h, s->attn_bias, L);
    vx_ib_lin(b, "key", VX_ROLE_ATTN_K, VX_ENC, h, h, s->attn_bias, L);
    vx_ib_lin(b, "value", VX_ROLE_ATTN_V, VX_ENC, h, h, s->attn_bias, L);
    vx_ib_lin(b, "dense", VX_ROLE_ATTN_O, VX_ENC, h, h, s->attn_bias, L);
    vx_ib_norm(b, "LayerNorm", VX_ROLE_NORM, VX_ENC, VX_NORM_LAYER, h, L);
    vx_ib_lin(b, "dense", VX_ROLE_MLP_UP, VX_ENC, f, h, s->mlp_bias, L);
    vx_ib_lin(b, "dense", VX_ROLE_MLP_DOWN, VX_ENC, h, f, s->mlp_bias, L);
    vx_ib_norm(b, "LayerNorm", VX_ROLE_NORM, VX_ENC, VX_NORM_LAYER, h, L);
}

/* T5 / mT5: one `shared` embedding for encoder, decoder (and the lm_head
 * when tied); relative position bias only in the first block of each stack;
 * no biases; T5LayerNorm is RMS-style (weight only). */
static void t5_ffn(vx_ib *b, const vx_shape *s, int part, int64_t nl)
{
    int64_t d = s->hidden, f = s->ffn;
    if (s->gated) {
        vx_ib_lin(b, "wi_0", VX_ROLE_MLP_GATE, part, f, d, 0, nl);
        vx_ib_lin(b, "wi_1", VX_ROLE_MLP_UP, part, f, d, 0, nl);
    } else {
        vx_ib_lin(b, "wi", VX_ROLE_MLP_UP, part, f, d, 0, nl);
    }
    vx_ib_lin(b, "wo", VX_ROLE_MLP_DOWN, part, d, f, 0, nl);
}

static void build_t5(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    (void)a;
    int64_t d = s->hidden, inner = s->heads * s->head_dim, E = s->enc_layers, D = s->layers;
    vx_ib_emb(b, "shared", VX_ROLE_EMBED, s->vocab, d);

    vx_ib_lin(b, "q", VX_ROLE_ATTN_Q, VX_ENC, inner, d, 0, E);
    vx_ib_lin(b, "k", VX_ROLE_ATTN_K, VX_ENC, inner, d, 0, E);
    vx_ib_lin(b, "v", VX_ROLE_ATTN_V, VX_ENC, inner, d, 0, E);
    vx_ib_lin(b, "o", VX_ROLE_ATTN_O, VX_ENC, d, inner, 0, E);
    vx_ib_put(b, "relative_attention_bias", VX_ROLE_REL_BIAS, VX_TK_EMBED, VX_ENC, s->rel_buckets, s->heads, 1, 1, 0);
    t5_ffn(b, s, VX_ENC, E);
    vx_ib_norm_n(b, "layer_norm", VX_ROLE_NORM, VX_ENC, VX_NORM_RMS, d, E, 2);
    vx_ib_norm(b, "final_layer_norm", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_RMS, d, 0);

    vx_ib_lin(b, "q", VX_ROLE_ATTN_Q, VX_DEC, inner, d, 0, D);
    vx_ib_lin(b, "k", VX_ROLE_ATTN_K, VX_DEC, inner, d, 0, D);
    vx_ib_lin(b, "v", VX_ROLE_ATTN_V, VX_DEC, inner, d, 0, D);
    vx_ib_lin(b, "o", VX_ROLE_ATTN_O, VX_DEC, d, inner, 0, D);
    vx_ib_put(b, "relative_attention_bias", VX_ROLE_REL_BIAS, VX_TK_EMBED, VX_DEC, s->rel_buckets, s->heads, 1, 1, 0);
    vx_ib_lin(b, "q", VX_ROLE_CROSS_Q, VX_DEC, inner, d, 0, D);
    vx_ib_lin(b, "k", VX_ROLE_CROSS_K, VX_DEC, inner, d, 0, D);
    vx_ib_lin(b, "v", VX_ROLE_CROSS_V, VX_DEC, inner, d, 0, D);
    vx_ib_lin(b, "o", VX_ROLE_CROSS_O, VX_DEC, d, inner, 0, D);
    t5_ffn(b, s, VX_DEC, D);
    vx_ib_norm_n(b, "layer_norm", VX_ROLE_NORM, VX_DEC, VX_NORM_RMS, d, D, 3);
    vx_ib_norm(b, "final_layer_norm", VX_ROLE_FINAL_NORM, VX_GLB, VX_NORM_RMS, d, 0);
}

/* BertSelfAttention: head-split views copied by matmul, scaled scores, the
 * (b, 1, 1, s) padding mask added, softmax in the input dtype. */
static const vx_attn_impl attn_bert = {.qk_copy = 1, .v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_ADD,
                                       .softmax = VX_SM_NONE, .post_drop = 1, .mask = VX_MASK_OTHER};

const vx_family vx_fam_bert = {
    .id = VX_FAM_BERT, .name = "bert", .kind = VX_FK_ENCODER, .norm = VX_NORM_LAYER, .tied = 1, .attn_bias = 1,
    .mlp_bias = 1, .act = VX_ACT_GELU, .learned_pos = 1, .hidden_dropout = 0.1, .attn_dropout = 0.1,
    .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA, .mlp = VX_MLPL_PLAIN, .placement = VX_PLACE_POST,
    .cls = VX_CLS_POOLED, .attn = &attn_bert, .sdpa_padding_mask = 1, .embed_dropout = 1,
    .peft_targets = "query,value", .gguf = "bert", .build = build_bert,
};

/* is_gated_act picks the FFN (T5 v1.0 ReLU, v1.1 / mT5 gated GELU). */
static void adjust_t5(const vx_fam_ctx *c, vx_rules *r)
{
    if (vx_fam_is_set(c, VRAMEST_MODEL_IS_GATED_ACT)) r->gated = (uint8_t)(c->a->is_gated_act != 0);
    r->act = r->gated ? VX_ACT_GELU_NEW : VX_ACT_RELU;
}

/* feed_forward_proj "gated-gelu" / "relu" picks both gating and the
 * activation (transformers maps gated-gelu to gelu_new). */
static int config_t5(struct vx_cfgmap *m)
{
    const char *f;
    int rc = vx_cfgmap_string(m, "feed_forward_proj", &f);
    if (rc || !f) return rc;
    bool gated = !strncmp(f, "gated-", 6);
    const char *act = gated ? f + 6 : f;
    if (!strcmp(act, "gelu")) act = "gelu_new";
    if (!vx_cfgmap_given(m, VRAMEST_MODEL_IS_GATED_ACT) &&
        (rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_IS_GATED_ACT, gated, "feed_forward_proj")))
        return rc;
    if (!vx_cfgmap_given(m, VRAMEST_MODEL_HIDDEN_ACT))
        rc = vx_cfgmap_set_name(m, VRAMEST_MODEL_HIDDEN_ACT, act, "feed_forward_proj");
    return rc;
}

/* T5Attention: no scaling, the position bias (holding the mask) added,
 * fp32 softmax; no SDPA path. */
static const vx_attn_impl attn_t5 = {.qk_copy = 1, .v_copy = 1, .mask_op = VX_MOP_NONE, .softmax = VX_SM_UPCAST,
                                     .post_drop = 1, .mask = VX_MASK_OTHER};

const vx_family vx_fam_t5 = {
    .id = VX_FAM_T5, .name = "t5", .kind = VX_FK_ENC_DEC, .norm = VX_NORM_RMS, .tied = 1, .act = VX_ACT_RELU,
    .hidden_dropout = 0.1, .attn_dropout = 0.1, .head_dim = 64, .kv_rule = VX_KV_MHA, .norms = 3,
    .mlp = VX_MLPL_PLAIN, .cls = VX_CLS_DENSE_OUT, .attn = &attn_t5, .norm_impl = VX_NI_RMS_T5, .eager_only = 1,
    .embed_dropout = 1, .mlp_dropout = 1, .head_norm_in_stack = 1, .head_scale_tied = 1, .legacy_cache = 1,
    .peft_targets = "q,v", .gguf = "t5", .adjust = adjust_t5, .config = config_t5, .build = build_t5,
};

const vx_family vx_fam_mt5 = {
    .id = VX_FAM_MT5, .name = "mt5", .kind = VX_FK_ENC_DEC, .norm = VX_NORM_RMS, .act = VX_ACT_GELU_NEW,
    .gated = 1, .hidden_dropout = 0.1, .attn_dropout = 0.1, .head_dim = 64, .kv_rule = VX_KV_MHA, .norms = 3,
    .mlp = VX_MLPL_PLAIN, .cls = VX_CLS_DENSE_OUT, .attn = &attn_t5, .norm_impl = VX_NI_RMS_T5, .eager_only = 1,
    .embed_dropout = 1, .mlp_dropout = 1, .head_norm_in_stack = 1, .head_scale_tied = 1, .legacy_cache = 1,
    .peft_targets = "q,v", .adjust = adjust_t5, .config = config_t5, .build = build_t5,
};

/* RoBERTa, XLM-RoBERTa and CamemBERT (transformers@68a7b7e272:
 * models/roberta/modeling_roberta.py, models/xlm_roberta/): BERT's body
 * under the same module names (positions offset by padding_idx + 1, which
 * config.json's max_position_embeddings 514 already counts; one token type),
 * RobertaLMHead (dense, layer_norm, tied decoder, bias: BERT's MLM count),
 * RobertaClassificationHead (dense + out_proj) over a model without its
 * pooler, while the bare RobertaModel keeps one. PEFT's default targets are
 * query,value as for BERT. */
#define ROBERTA_ROW(fid, fname)                                                                               \
    {.id = fid, .name = fname, .kind = VX_FK_ENCODER, .norm = VX_NORM_LAYER, .tied = 1, .attn_bias = 1,            \
     .mlp_bias = 1, .act = VX_ACT_GELU, .learned_pos = 1, .hidden_dropout = 0.1, .attn_dropout = 0.1,              \
     .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA, .mlp = VX_MLPL_PLAIN, .placement = VX_PLACE_POST,              \
     .cls = VX_CLS_DENSE_OUT_POOLER, .attn = &attn_bert, .sdpa_padding_mask = 1, .embed_dropout = 1,               \
     .peft_targets = "query,value", .build = build_bert}
const vx_family vx_fam_roberta = ROBERTA_ROW(VX_FAM_ROBERTA, "roberta");
const vx_family vx_fam_xlm_roberta = ROBERTA_ROW(VX_FAM_XLM_ROBERTA, "xlm-roberta");
/* CamemBERT's classes are RoBERTa's (models/camembert/modeling_camembert.py). */
const vx_family vx_fam_camembert = ROBERTA_ROW(VX_FAM_CAMEMBERT, "camembert");

/* DeBERTa-v2 / v3 (transformers@0038a3caa5:
 * src/transformers/models/deberta_v2/modeling_deberta_v2.py): BERT's
 * post-LN layers under their own names (query_proj, key_proj, value_proj),
 * disentangled attention over relative position embeddings shared by every
 * layer (encoder.rel_embeddings, 2 x position_buckets rows, or 2 x
 * max_relative_positions; an optional LayerNorm over them), separate
 * position projections only when share_att_key is false (pos_key_proj for
 * c2p, pos_query_proj for p2c, both biased), an optional absolute position
 * table (position_biased_input), an embedding width of its own
 * (embedding_size, projected by embed_proj without bias) and an optional
 * convolution after the first layer (ConvLayer: Conv1d + LayerNorm). The bare
 * model has no pooler; sequence classification adds ContextPooler + the
 * classifier, the MLM head is BERT's. */
static void build_deberta_v2(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, f = s->ffn, e = a->embedding_size > 0 ? a->embedding_size : h;
    vx_ib_emb(b, "word_embeddings", VX_ROLE_EMBED, s->vocab, e);
    if (a->position_biased_input) vx_ib_emb(b, "position_embeddings", VX_ROLE_POS_EMBED, s->max_pos, e);
    if (a->type_vocab_size > 0) vx_ib_emb(b, "token_type_embeddings", VX_ROLE_TYPE_EMBED, a->type_vocab_size, e);
    if (e != h) vx_ib_lin(b, "embed_proj", VX_ROLE_EMBED_PROJ, VX_GLB, h, e, 0, 0);
    vx_ib_norm(b, "LayerNorm", VX_ROLE_EMBED_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
    vx_ib_lin(b, "query_proj", VX_ROLE_ATTN_Q, VX_ENC, h, h, 1, L);
    vx_ib_lin(b, "key_proj", VX_ROLE_ATTN_K, VX_ENC, h, h, 1, L);
    vx_ib_lin(b, "value_proj", VX_ROLE_ATTN_V, VX_ENC, h, h, 1, L);
    if (a->relative_attention && !a->share_att_key) {
        if (a->pos_att_types & 1) vx_ib_lin(b, "pos_key_proj", VX_ROLE_OTHER, VX_ENC, h, h, 1, L);
        if (a->pos_att_types & 2) vx_ib_lin(b, "pos_query_proj", VX_ROLE_OTHER, VX_ENC, h, h, 1, L);
    }
    vx_ib_lin(b, "dense", VX_ROLE_ATTN_O, VX_ENC, h, h, 1, L);
    vx_ib_norm(b, "LayerNorm", VX_ROLE_NORM, VX_ENC, VX_NORM_LAYER, h, L);
    vx_ib_lin(b, "dense", VX_ROLE_MLP_UP, VX_ENC, f, h, 1, L);
    vx_ib_lin(b, "dense", VX_ROLE_MLP_DOWN, VX_ENC, h, f, 1, L);
    vx_ib_norm(b, "LayerNorm", VX_ROLE_NORM, VX_ENC, VX_NORM_LAYER, h, L);
    if (a->relative_attention) {
        int64_t span = a->max_relative_positions < 1 ? s->max_pos : a->max_relative_positions;
        if (a->position_buckets > 0) span = a->position_buckets;
        vx_ib_put(b, "rel_embeddings", VX_ROLE_POS_EMBED, VX_TK_EMBED, VX_GLB, 2 * span, h, 0, 1, 0);
    }
    if (a->rel_embeddings_norm) vx_ib_norm(b, "LayerNorm", VX_ROLE_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
    if (a->conv_kernel_size > 0) {
        vx_ib_put(b, "conv", VX_ROLE_OTHER, VX_TK_OTHER, VX_GLB, h, h / a->conv_groups * a->conv_kernel_size, 0, 1, 0);
        vx_ib_put(b, "conv", VX_ROLE_OTHER, VX_TK_BIAS, VX_GLB, h, 1, 0, 1, 0);
        vx_ib_norm(b, "LayerNorm", VX_ROLE_NORM, VX_GLB, VX_NORM_LAYER, h, 0);
    }
}

/* pos_att_type (a list, or "p2c|c2p"), norm_rel_ebd ("layer_norm|..."),
 * and DebertaV2Config's type_vocab_size default 0 (BERT's option says 2). */
static int config_deberta_v2(struct vx_cfgmap *m)
{
    static const char *const pos[] = {"c2p", "p2c", NULL};
    static const char *const norm[] = {"layer_norm", NULL};
    int64_t flags;
    int rc = vx_cfgmap_name_flags(m, "pos_att_type", pos, &flags);
    if (!rc && !vx_cfgmap_given(m, VRAMEST_MODEL_POS_ATT_TYPES))
        rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_POS_ATT_TYPES, flags, "pos_att_type");
    if (!rc) rc = vx_cfgmap_name_flags(m, "norm_rel_ebd", norm, &flags);
    if (!rc && !vx_cfgmap_given(m, VRAMEST_MODEL_REL_EMBEDDINGS_NORM))
        rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_REL_EMBEDDINGS_NORM, flags != 0, "norm_rel_ebd");
    if (!rc && !vx_cfgmap_given(m, VRAMEST_MODEL_TYPE_VOCAB_SIZE))
        rc = vx_cfgmap_set_i64(m, VRAMEST_MODEL_TYPE_VOCAB_SIZE, 0, "type_vocab_size");
    return rc;
}

/* DisentangledSelfAttention: bmm scores plus the c2p / p2c terms, XSoftmax
 * in the input dtype; no SDPA path. */
const vx_family vx_fam_deberta_v2 = {
    .id = VX_FAM_DEBERTA_V2, .name = "deberta-v2", .kind = VX_FK_ENCODER, .norm = VX_NORM_LAYER, .tied = 1,
    .attn_bias = 1, .mlp_bias = 1, .act = VX_ACT_GELU, .learned_pos = 1, .hidden_dropout = 0.1,
    .attn_dropout = 0.1, .hd_rule = VX_HD_HIDDEN, .kv_rule = VX_KV_MHA, .mlp = VX_MLPL_PLAIN,
    .placement = VX_PLACE_POST, .cls = VX_CLS_POOLED_BARE, .attn = &attn_bert, .eager_only = 1,
    .embed_dropout = 1, .peft_targets = "query_proj,value_proj", .config = config_deberta_v2,
    .build = build_deberta_v2,
};
