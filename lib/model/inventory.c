/* The tensor inventory (design.md §2): one group per nn.Parameter of the
 * Hugging Face module tree, with its role, kind, HF leaf name, shape and
 * multiplicity. Layouts follow the transformers modeling code (and the remote
 * code of ChatGLM and MOSS), so that summing the groups gives
 * model.num_parameters() exactly: tied weights appear once, buffers never.
 * Every linear is a weight group plus, when the module has one, a bias group
 * of the same name and role with kind VX_TK_BIAS. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

uint64_t vx_tensor_elems(const vx_tensor *t)
{
    uint64_t e = vx_sat_mul((uint64_t)t->rows, (uint64_t)t->cols);
    e = vx_sat_mul(e, (uint64_t)(t->n_layers > 0 ? t->n_layers : 1));
    return vx_sat_mul(e, (uint64_t)(t->n_per_layer > 0 ? t->n_per_layer : 1));
}

int vx_inv_push(vx_tensor **inv, size_t *n, size_t *cap, const vx_tensor *t)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        if (nc > VX_MAX_TENSORS) nc = VX_MAX_TENSORS;
        if (nc <= *n) return vx_fail(VRAMEST_E_LIMIT, "more than %u tensor groups", (unsigned)VX_MAX_TENSORS);
        vx_tensor *p = realloc(*inv, nc * sizeof *p);
        if (!p) return vx_fail(VRAMEST_E_NOMEM, "out of memory growing the tensor inventory");
        *inv = p;
        *cap = nc;
    }
    (*inv)[(*n)++] = *t;
    return VRAMEST_OK;
}

/* An inventory being built: growable (the model's), or a caller's fixed
 * array (head tensors, no allocation) that only counts past its end. */
typedef struct ib {
    vx_tensor **inv;
    size_t *n, *cap;
    vx_tensor *fixed;
    size_t fixed_cap, count;
    int rc;
} ib;

static void put(ib *b, const char *name, int role, int kind, int part, int64_t rows, int64_t cols, int64_t nl,
                int64_t per, int expert)
{
    if (b->rc) return;
    vx_tensor t;
    memset(&t, 0, sizeof t);
    vx_strlcpy(t.name, name, sizeof t.name);
    t.role = (uint16_t)role;
    t.kind = (uint8_t)kind;
    t.part = (uint8_t)part;
    t.expert = (uint8_t)expert;
    t.trainable_default = 1;
    t.dtype = VRAMEST_DTYPE_AUTO;
    t.rows = rows;
    t.cols = cols;
    t.n_layers = nl;
    t.n_per_layer = per;
    if (b->inv) {
        b->rc = vx_inv_push(b->inv, b->n, b->cap, &t);
    } else {
        if (b->count < b->fixed_cap) b->fixed[b->count] = t;
        b->count++;
    }
}

/* nn.Linear(in, out): weight out x in, bias out. nl = layers (0 = once). */
static void lin(ib *b, const char *name, int role, int part, int64_t out, int64_t in, int bias, int64_t nl)
{
    put(b, name, role, VX_TK_MATRIX, part, out, in, nl, 1, 0);
    if (bias) put(b, name, role, VX_TK_BIAS, part, out, 1, nl, 1, 0);
}

/* `per` copies per layer, e.g. the routed experts of an MoE layer. */
static void lin_n(ib *b, const char *name, int role, int part, int64_t out, int64_t in, int bias, int64_t nl,
                  int64_t per, int expert)
{
    put(b, name, role, VX_TK_MATRIX, part, out, in, nl, per, expert);
    if (bias) put(b, name, role, VX_TK_BIAS, part, out, 1, nl, per, expert);
}

/* LayerNorm: weight and bias; RMSNorm (and T5LayerNorm): weight only. */
static void norm_n(ib *b, const char *name, int role, int part, int kind, int64_t dim, int64_t nl, int64_t per)
{
    put(b, name, role, VX_TK_NORM, part, dim, 1, nl, per, 0);
    if (kind == VX_NORM_LAYER) put(b, name, role, VX_TK_NORM, part, dim, 1, nl, per, 0);
}

static void norm(ib *b, const char *name, int role, int part, int kind, int64_t dim, int64_t nl)
{
    norm_n(b, name, role, part, kind, dim, nl, 1);
}

static void emb(ib *b, const char *name, int role, int64_t rows, int64_t cols)
{
    put(b, name, role, VX_TK_EMBED, VX_PART_GLOBAL, rows, cols, 0, 1, 0);
}

#define DEC VX_PART_DECODER
#define ENC VX_PART_ENCODER
#define GLB VX_PART_GLOBAL

/* ---- Llama-style decoders (and the MoE / MLA ones built on them) ---- */

static void mla_attention(ib *b, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, H = s->heads;
    int ab = s->attn_bias;
    if (s->q_lora_rank > 0) {
        lin(b, "q_a_proj", VX_ROLE_ATTN_Q_A, DEC, s->q_lora_rank, h, ab, L);
        norm(b, "q_a_layernorm", VX_ROLE_NORM, DEC, VX_NORM_RMS, s->q_lora_rank, L);
        lin(b, "q_b_proj", VX_ROLE_ATTN_Q_B, DEC, H * (s->nope_dim + s->rope_dim), s->q_lora_rank, 0, L);
    } else {
        lin(b, "q_proj", VX_ROLE_ATTN_Q, DEC, H * (s->nope_dim + s->rope_dim), h, 0, L);
    }
    lin(b, "kv_a_proj_with_mqa", VX_ROLE_ATTN_KV_A, DEC, s->kv_lora_rank + s->rope_dim, h, ab, L);
    norm(b, "kv_a_layernorm", VX_ROLE_NORM, DEC, VX_NORM_RMS, s->kv_lora_rank, L);
    lin(b, "kv_b_proj", VX_ROLE_ATTN_KV_B, DEC, H * (s->nope_dim + s->v_head_dim), s->kv_lora_rank, 0, L);
    lin(b, "o_proj", VX_ROLE_ATTN_O, DEC, h, H * s->v_head_dim, ab, L);
}

static void gated_mlp(ib *b, int64_t h, int64_t f, int bias, int64_t nl)
{
    lin(b, "gate_proj", VX_ROLE_MLP_GATE, DEC, f, h, bias, nl);
    lin(b, "up_proj", VX_ROLE_MLP_UP, DEC, f, h, bias, nl);
    lin(b, "down_proj", VX_ROLE_MLP_DOWN, DEC, h, f, bias, nl);
}

static void experts(ib *b, const vx_shape *s, const char *g, const char *u, const char *dn, int64_t nl)
{
    int64_t h = s->hidden, f = s->moe_ffn, E = s->experts;
    lin(b, "gate", VX_ROLE_ROUTER, DEC, E, h, 0, nl);
    lin_n(b, g, VX_ROLE_EXPERT_GATE, DEC, f, h, 0, nl, E, 1);
    lin_n(b, u, VX_ROLE_EXPERT_UP, DEC, f, h, 0, nl, E, 1);
    lin_n(b, dn, VX_ROLE_EXPERT_DOWN, DEC, h, f, 0, nl, E, 1);
}

static void shared_mlp(ib *b, const vx_shape *s, int64_t nl)
{
    int64_t h = s->hidden, f = s->shared_ffn;
    lin(b, "gate_proj", VX_ROLE_SHARED_GATE, DEC, f, h, 0, nl);
    lin(b, "up_proj", VX_ROLE_SHARED_UP, DEC, f, h, 0, nl);
    lin(b, "down_proj", VX_ROLE_SHARED_DOWN, DEC, h, f, 0, nl);
}

static void build_llama(ib *b, const vx_shape *s)
{
    int fam = s->family;
    int64_t L = s->layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim;
    emb(b, "embed_tokens", VX_ROLE_EMBED, s->vocab, h);

    if (fam == VX_FAM_DEEPSEEK_V2 || fam == VX_FAM_DEEPSEEK_V3) {
        mla_attention(b, s);
    } else if (fam == VX_FAM_PHI3) {
        lin(b, "qkv_proj", VX_ROLE_ATTN_QKV, DEC, (H + 2 * K) * d, h, s->attn_bias, L);
        lin(b, "o_proj", VX_ROLE_ATTN_O, DEC, h, H * d, s->attn_bias, L);
    } else {
        /* Qwen2 hard-codes bias on q/k/v and none on o_proj. */
        int ob = (fam == VX_FAM_QWEN2 || fam == VX_FAM_QWEN2_MOE) ? 0 : s->attn_bias;
        lin(b, "q_proj", VX_ROLE_ATTN_Q, DEC, H * d, h, s->attn_bias, L);
        lin(b, "k_proj", VX_ROLE_ATTN_K, DEC, K * d, h, s->attn_bias, L);
        lin(b, "v_proj", VX_ROLE_ATTN_V, DEC, K * d, h, s->attn_bias, L);
        lin(b, "o_proj", VX_ROLE_ATTN_O, DEC, h, H * d, ob, L);
    }
    if (s->qk_norm) {
        norm(b, "q_norm", VX_ROLE_NORM, DEC, VX_NORM_RMS, d, L);
        norm(b, "k_norm", VX_ROLE_NORM, DEC, VX_NORM_RMS, d, L);
    }

    switch (fam) {
    case VX_FAM_PHI3:
        lin(b, "gate_up_proj", VX_ROLE_MLP_GATE_UP, DEC, 2 * s->ffn, h, s->mlp_bias, L);
        lin(b, "down_proj", VX_ROLE_MLP_DOWN, DEC, h, s->ffn, s->mlp_bias, L);
        break;
    case VX_FAM_MIXTRAL: experts(b, s, "w1", "w3", "w2", L); break;
    case VX_FAM_QWEN3_MOE: experts(b, s, "gate_proj", "up_proj", "down_proj", L); break;
    case VX_FAM_QWEN2_MOE:
        experts(b, s, "gate_proj", "up_proj", "down_proj", L);
        shared_mlp(b, s, L);
        lin(b, "shared_expert_gate", VX_ROLE_ROUTER, DEC, 1, h, 0, L);
        break;
    case VX_FAM_DEEPSEEK_V2: case VX_FAM_DEEPSEEK_V3: {
        int64_t dense = s->dense_layers, moe = L - s->dense_layers;
        if (dense) gated_mlp(b, h, s->ffn, 0, dense);
        if (moe) {
            experts(b, s, "gate_proj", "up_proj", "down_proj", moe);
            if (s->shared_experts) shared_mlp(b, s, moe);
        }
        break;
    }
    default: gated_mlp(b, h, s->ffn, s->mlp_bias, L); break;
    }

    norm(b, "input_layernorm", VX_ROLE_NORM, DEC, VX_NORM_RMS, h, L);
    norm(b, "post_attention_layernorm", VX_ROLE_NORM, DEC, VX_NORM_RMS, h, L);
    if (fam == VX_FAM_GEMMA2 || fam == VX_FAM_GEMMA3) {
        norm(b, "pre_feedforward_layernorm", VX_ROLE_NORM, DEC, VX_NORM_RMS, h, L);
        norm(b, "post_feedforward_layernorm", VX_ROLE_NORM, DEC, VX_NORM_RMS, h, L);
    }
    norm(b, "norm", VX_ROLE_FINAL_NORM, GLB, VX_NORM_RMS, h, 0);
}

/* ---- GPT-2-style and other LayerNorm decoders ---- */

static void build_gpt2(ib *b, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim, f = s->ffn;
    emb(b, "wte", VX_ROLE_EMBED, s->vocab, h);
    emb(b, "wpe", VX_ROLE_POS_EMBED, s->max_pos, h);
    norm(b, "ln_1", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    /* GPT-BigCode multi-query: c_attn emits q plus one k and one v head. */
    lin(b, "c_attn", VX_ROLE_ATTN_QKV, DEC, (H + 2 * K) * d, h, s->attn_bias, L);
    lin(b, "c_proj", VX_ROLE_ATTN_O, DEC, h, h, s->attn_bias, L);
    norm(b, "ln_2", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    lin(b, "c_fc", VX_ROLE_MLP_UP, DEC, f, h, s->mlp_bias, L);
    lin(b, "c_proj", VX_ROLE_MLP_DOWN, DEC, h, f, s->mlp_bias, L);
    norm(b, "ln_f", VX_ROLE_FINAL_NORM, GLB, VX_NORM_LAYER, h, 0);
}

static void build_opt(ib *b, const vx_arch *a, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, f = s->ffn, e = s->embed_dim;
    emb(b, "embed_tokens", VX_ROLE_EMBED, s->vocab, e);
    /* OPTLearnedPositionalEmbedding keeps 2 extra rows (padding offset). */
    emb(b, "embed_positions", VX_ROLE_POS_EMBED, s->max_pos + 2, h);
    if (e != h) {
        lin(b, "project_out", VX_ROLE_EMBED_PROJ, GLB, e, h, 0, 0);
        lin(b, "project_in", VX_ROLE_EMBED_PROJ, GLB, h, e, 0, 0);
    }
    lin(b, "q_proj", VX_ROLE_ATTN_Q, DEC, h, h, s->attn_bias, L);
    lin(b, "k_proj", VX_ROLE_ATTN_K, DEC, h, h, s->attn_bias, L);
    lin(b, "v_proj", VX_ROLE_ATTN_V, DEC, h, h, s->attn_bias, L);
    lin(b, "out_proj", VX_ROLE_ATTN_O, DEC, h, h, s->attn_bias, L);
    norm(b, "self_attn_layer_norm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    lin(b, "fc1", VX_ROLE_MLP_UP, DEC, f, h, s->mlp_bias, L);
    lin(b, "fc2", VX_ROLE_MLP_DOWN, DEC, h, f, s->mlp_bias, L);
    norm(b, "final_layer_norm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    /* Post-LN OPT (350m) has no final LayerNorm. */
    if (a->do_layer_norm_before) norm(b, "final_layer_norm", VX_ROLE_FINAL_NORM, GLB, VX_NORM_LAYER, h, 0);
}

static void build_bloom(ib *b, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, f = s->ffn;
    emb(b, "word_embeddings", VX_ROLE_EMBED, s->vocab, h);
    norm(b, "word_embeddings_layernorm", VX_ROLE_EMBED_NORM, GLB, VX_NORM_LAYER, h, 0);
    norm(b, "input_layernorm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    lin(b, "query_key_value", VX_ROLE_ATTN_QKV, DEC, 3 * h, h, s->attn_bias, L);
    lin(b, "dense", VX_ROLE_ATTN_O, DEC, h, h, s->attn_bias, L);
    norm(b, "post_attention_layernorm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    lin(b, "dense_h_to_4h", VX_ROLE_MLP_UP, DEC, f, h, s->mlp_bias, L);
    lin(b, "dense_4h_to_h", VX_ROLE_MLP_DOWN, DEC, h, f, s->mlp_bias, L);
    norm(b, "ln_f", VX_ROLE_FINAL_NORM, GLB, VX_NORM_LAYER, h, 0);
}

static void build_neox(ib *b, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, f = s->ffn;
    emb(b, "embed_in", VX_ROLE_EMBED, s->vocab, h);
    norm(b, "input_layernorm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    norm(b, "post_attention_layernorm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    lin(b, "query_key_value", VX_ROLE_ATTN_QKV, DEC, 3 * h, h, s->attn_bias, L);
    lin(b, "dense", VX_ROLE_ATTN_O, DEC, h, h, s->attn_bias, L);
    lin(b, "dense_h_to_4h", VX_ROLE_MLP_UP, DEC, f, h, s->mlp_bias, L);
    lin(b, "dense_4h_to_h", VX_ROLE_MLP_DOWN, DEC, h, f, s->mlp_bias, L);
    norm(b, "final_layer_norm", VX_ROLE_FINAL_NORM, GLB, VX_NORM_LAYER, h, 0);
}

static void build_falcon(ib *b, const vx_arch *a, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim, f = s->ffn;
    emb(b, "word_embeddings", VX_ROLE_EMBED, s->vocab, h);
    if (a->new_decoder_architecture && s->norms_per_layer == 2) {
        norm(b, "ln_attn", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
        norm(b, "ln_mlp", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    } else {
        norm(b, "input_layernorm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
        if (s->norms_per_layer == 2) norm(b, "post_attention_layernorm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    }
    /* (H + 2K) d covers all three layouts: 3h (MHA), h + 2d (multi-query),
     * grouped KV heads (new decoder architecture). */
    lin(b, "query_key_value", VX_ROLE_ATTN_QKV, DEC, (H + 2 * K) * d, h, s->attn_bias, L);
    lin(b, "dense", VX_ROLE_ATTN_O, DEC, h, H * d, s->attn_bias, L);
    lin(b, "dense_h_to_4h", VX_ROLE_MLP_UP, DEC, f, h, s->mlp_bias, L);
    lin(b, "dense_4h_to_h", VX_ROLE_MLP_DOWN, DEC, h, f, s->mlp_bias, L);
    norm(b, "ln_f", VX_ROLE_FINAL_NORM, GLB, VX_NORM_LAYER, h, 0);
}

static void build_phi(ib *b, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim, f = s->ffn;
    emb(b, "embed_tokens", VX_ROLE_EMBED, s->vocab, h);
    norm(b, "input_layernorm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    lin(b, "q_proj", VX_ROLE_ATTN_Q, DEC, H * d, h, s->attn_bias, L);
    lin(b, "k_proj", VX_ROLE_ATTN_K, DEC, K * d, h, s->attn_bias, L);
    lin(b, "v_proj", VX_ROLE_ATTN_V, DEC, K * d, h, s->attn_bias, L);
    lin(b, "dense", VX_ROLE_ATTN_O, DEC, h, H * d, s->attn_bias, L);
    if (s->qk_norm) {
        norm(b, "q_layernorm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, d, L);
        norm(b, "k_layernorm", VX_ROLE_NORM, DEC, VX_NORM_LAYER, d, L);
    }
    lin(b, "fc1", VX_ROLE_MLP_UP, DEC, f, h, s->mlp_bias, L);
    lin(b, "fc2", VX_ROLE_MLP_DOWN, DEC, h, f, s->mlp_bias, L);
    norm(b, "final_layernorm", VX_ROLE_FINAL_NORM, GLB, VX_NORM_LAYER, h, 0);
}

/* CodeGen (and MOSS, which is CodeGen-16B) fuse q|k|v without bias; GPT-J
 * keeps them apart. Both: one LayerNorm, attention and MLP in parallel. */
static void build_codegen(ib *b, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, f = s->ffn;
    emb(b, "wte", VX_ROLE_EMBED, s->vocab, h);
    norm(b, "ln_1", VX_ROLE_NORM, DEC, VX_NORM_LAYER, h, L);
    if (s->family == VX_FAM_GPTJ) {
        lin(b, "q_proj", VX_ROLE_ATTN_Q, DEC, h, h, s->attn_bias, L);
        lin(b, "k_proj", VX_ROLE_ATTN_K, DEC, h, h, s->attn_bias, L);
        lin(b, "v_proj", VX_ROLE_ATTN_V, DEC, h, h, s->attn_bias, L);
    } else {
        lin(b, "qkv_proj", VX_ROLE_ATTN_QKV, DEC, 3 * h, h, s->attn_bias, L);
    }
    lin(b, "out_proj", VX_ROLE_ATTN_O, DEC, h, h, s->attn_bias, L);
    lin(b, "fc_in", VX_ROLE_MLP_UP, DEC, f, h, s->mlp_bias, L);
    lin(b, "fc_out", VX_ROLE_MLP_DOWN, DEC, h, f, s->mlp_bias, L);
    norm(b, "ln_f", VX_ROLE_FINAL_NORM, GLB, VX_NORM_LAYER, h, 0);
}

/* ChatGLM-6B (v1): GLM block with LayerNorms and biases everywhere.
 * ChatGLM2/3, GLM-4 (rmsnorm): grouped KV, SwiGLU, add_qkv_bias on q|k|v
 * only (attention_bias), add_bias_linear on the rest (mlp_bias). */
static void build_chatglm(ib *b, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, H = s->heads, K = s->kv_heads, d = s->head_dim, f = s->ffn;
    int nk = s->norm_kind;
    bool v2 = nk == VX_NORM_RMS;
    emb(b, "word_embeddings", VX_ROLE_EMBED, s->vocab, h);
    norm(b, "input_layernorm", VX_ROLE_NORM, DEC, nk, h, L);
    lin(b, "query_key_value", VX_ROLE_ATTN_QKV, DEC, (H + 2 * K) * d, h, s->attn_bias, L);
    lin(b, "dense", VX_ROLE_ATTN_O, DEC, h, H * d, v2 ? s->mlp_bias : s->attn_bias, L);
    norm(b, "post_attention_layernorm", VX_ROLE_NORM, DEC, nk, h, L);
    if (v2)
        lin(b, "dense_h_to_4h", VX_ROLE_MLP_GATE_UP, DEC, 2 * f, h, s->mlp_bias, L);
    else
        lin(b, "dense_h_to_4h", VX_ROLE_MLP_UP, DEC, f, h, s->mlp_bias, L);
    lin(b, "dense_4h_to_h", VX_ROLE_MLP_DOWN, DEC, h, f, s->mlp_bias, L);
    norm(b, "final_layernorm", VX_ROLE_FINAL_NORM, GLB, nk, h, 0);
}

/* ---- encoders ---- */

static void build_bert(ib *b, const vx_arch *a, const vx_shape *s)
{
    int64_t L = s->layers, h = s->hidden, f = s->ffn;
    emb(b, "word_embeddings", VX_ROLE_EMBED, s->vocab, h);
    emb(b, "position_embeddings", VX_ROLE_POS_EMBED, s->max_pos, h);
    if (a->type_vocab_size > 0) emb(b, "token_type_embeddings", VX_ROLE_TYPE_EMBED, a->type_vocab_size, h);
    norm(b, "LayerNorm", VX_ROLE_EMBED_NORM, GLB, VX_NORM_LAYER, h, 0);
    lin(b, "query", VX_ROLE_ATTN_Q, ENC, h, h, s->attn_bias, L);
    lin(b, "key", VX_ROLE_ATTN_K, ENC, h, h, s->attn_bias, L);
    lin(b, "value", VX_ROLE_ATTN_V, ENC, h, h, s->attn_bias, L);
    lin(b, "dense", VX_ROLE_ATTN_O, ENC, h, h, s->attn_bias, L);
    norm(b, "LayerNorm", VX_ROLE_NORM, ENC, VX_NORM_LAYER, h, L);
    lin(b, "dense", VX_ROLE_MLP_UP, ENC, f, h, s->mlp_bias, L);
    lin(b, "dense", VX_ROLE_MLP_DOWN, ENC, h, f, s->mlp_bias, L);
    norm(b, "LayerNorm", VX_ROLE_NORM, ENC, VX_NORM_LAYER, h, L);
}

/* T5 / mT5: one `shared` embedding for encoder, decoder (and the lm_head
 * when tied); relative position bias only in the first block of each stack;
 * no biases; T5LayerNorm is RMS-style (weight only). */
static void t5_ffn(ib *b, const vx_shape *s, int part, int64_t nl)
{
    int64_t d = s->hidden, f = s->ffn;
    if (s->gated) {
        lin(b, "wi_0", VX_ROLE_MLP_GATE, part, f, d, 0, nl);
        lin(b, "wi_1", VX_ROLE_MLP_UP, part, f, d, 0, nl);
    } else {
        lin(b, "wi", VX_ROLE_MLP_UP, part, f, d, 0, nl);
    }
    lin(b, "wo", VX_ROLE_MLP_DOWN, part, d, f, 0, nl);
}

static void build_t5(ib *b, const vx_shape *s)
{
    int64_t d = s->hidden, inner = s->heads * s->head_dim, E = s->enc_layers, D = s->layers;
    emb(b, "shared", VX_ROLE_EMBED, s->vocab, d);

    lin(b, "q", VX_ROLE_ATTN_Q, ENC, inner, d, 0, E);
    lin(b, "k", VX_ROLE_ATTN_K, ENC, inner, d, 0, E);
    lin(b, "v", VX_ROLE_ATTN_V, ENC, inner, d, 0, E);
    lin(b, "o", VX_ROLE_ATTN_O, ENC, d, inner, 0, E);
    put(b, "relative_attention_bias", VX_ROLE_REL_BIAS, VX_TK_EMBED, ENC, s->rel_buckets, s->heads, 1, 1, 0);
    t5_ffn(b, s, ENC, E);
    norm_n(b, "layer_norm", VX_ROLE_NORM, ENC, VX_NORM_RMS, d, E, 2);
    norm(b, "final_layer_norm", VX_ROLE_FINAL_NORM, GLB, VX_NORM_RMS, d, 0);

    lin(b, "q", VX_ROLE_ATTN_Q, DEC, inner, d, 0, D);
    lin(b, "k", VX_ROLE_ATTN_K, DEC, inner, d, 0, D);
    lin(b, "v", VX_ROLE_ATTN_V, DEC, inner, d, 0, D);
    lin(b, "o", VX_ROLE_ATTN_O, DEC, d, inner, 0, D);
    put(b, "relative_attention_bias", VX_ROLE_REL_BIAS, VX_TK_EMBED, DEC, s->rel_buckets, s->heads, 1, 1, 0);
    lin(b, "q", VX_ROLE_CROSS_Q, DEC, inner, d, 0, D);
    lin(b, "k", VX_ROLE_CROSS_K, DEC, inner, d, 0, D);
    lin(b, "v", VX_ROLE_CROSS_V, DEC, inner, d, 0, D);
    lin(b, "o", VX_ROLE_CROSS_O, DEC, d, inner, 0, D);
    t5_ffn(b, s, DEC, D);
    norm_n(b, "layer_norm", VX_ROLE_NORM, DEC, VX_NORM_RMS, d, D, 3);
    norm(b, "final_layer_norm", VX_ROLE_FINAL_NORM, GLB, VX_NORM_RMS, d, 0);
}

static void build_body(ib *b, const vx_arch *a, const vx_shape *s)
{
    switch (s->family) {
    case VX_FAM_GPT2: case VX_FAM_GPT_BIGCODE: build_gpt2(b, s); break;
    case VX_FAM_OPT: build_opt(b, a, s); break;
    case VX_FAM_BLOOM: build_bloom(b, s); break;
    case VX_FAM_GPT_NEOX: build_neox(b, s); break;
    case VX_FAM_FALCON: build_falcon(b, a, s); break;
    case VX_FAM_PHI: build_phi(b, s); break;
    case VX_FAM_MOSS: case VX_FAM_CODEGEN: case VX_FAM_GPTJ: build_codegen(b, s); break;
    case VX_FAM_CHATGLM: build_chatglm(b, s); break;
    case VX_FAM_BERT: build_bert(b, a, s); break;
    case VX_FAM_T5: case VX_FAM_MT5: build_t5(b, s); break;
    default: build_llama(b, s); break;
    }
}

/* ---- heads ---- */

static bool lm_head_has_bias(int fam)
{
    return fam == VX_FAM_PHI || fam == VX_FAM_MOSS || fam == VX_FAM_CODEGEN || fam == VX_FAM_GPTJ;
}

static const char *lm_head_name(const vx_shape *s)
{
    if (s->family == VX_FAM_GPT_NEOX) return "embed_out";
    if (s->family == VX_FAM_CHATGLM && s->norm_kind == VX_NORM_RMS) return "output_layer";
    return "lm_head";
}

static void build_head(ib *b, const vx_shape *s, int head, int64_t labels)
{
    int64_t h = s->hidden, V = s->vocab;
    bool bert = s->family == VX_FAM_BERT, t5 = s->enc_dec;
    switch (vx_head_resolve(s, head)) {
    case VX_HEAD_CAUSAL_LM: case VX_HEAD_SEQ2SEQ_LM: {
        const char *n = lm_head_name(s);
        if (!s->tied) put(b, n, VX_ROLE_LM_HEAD, VX_TK_MATRIX, GLB, V, s->embed_dim, 0, 1, 0);
        /* The bias stays a parameter of its own when the weight is tied. */
        if (lm_head_has_bias(s->family)) put(b, n, VX_ROLE_LM_HEAD, VX_TK_BIAS, GLB, V, 1, 0, 1, 0);
        break;
    }
    case VX_HEAD_MASKED_LM:
        /* BertOnlyMLMHead: transform (dense + LayerNorm), decoder tied to the
         * word embeddings plus its own bias. */
        lin(b, "dense", VX_ROLE_MLM_TRANSFORM, GLB, h, h, 1, 0);
        norm(b, "LayerNorm", VX_ROLE_MLM_TRANSFORM, GLB, VX_NORM_LAYER, h, 0);
        if (!s->tied) put(b, "decoder", VX_ROLE_LM_HEAD, VX_TK_MATRIX, GLB, V, h, 0, 1, 0);
        put(b, "decoder", VX_ROLE_LM_HEAD, VX_TK_BIAS, GLB, V, 1, 0, 1, 0);
        break;
    case VX_HEAD_SEQ_CLS:
        if (bert) {
            lin(b, "dense", VX_ROLE_POOLER, GLB, h, h, 1, 0);
            lin(b, "classifier", VX_ROLE_CLASSIFIER, GLB, labels, h, 1, 0);
        } else if (t5) {
            lin(b, "dense", VX_ROLE_CLASSIFIER, GLB, h, h, 1, 0);
            lin(b, "out_proj", VX_ROLE_CLASSIFIER, GLB, labels, h, 1, 0);
        } else {
            lin(b, "score", VX_ROLE_CLASSIFIER, GLB, labels, s->embed_dim, 0, 0);
        }
        break;
    case VX_HEAD_NONE:
        if (bert) lin(b, "dense", VX_ROLE_POOLER, GLB, h, h, 1, 0);
        /* ChatGLM2+ keep output_layer inside ChatGLMModel itself. */
        if (s->family == VX_FAM_CHATGLM && s->norm_kind == VX_NORM_RMS)
            put(b, lm_head_name(s), VX_ROLE_LM_HEAD, VX_TK_MATRIX, GLB, V, h, 0, 1, 0);
        break;
    default: break;
    }
}

int vx_head_tensors(const vx_shape *s, int head, int64_t num_labels, vx_tensor *out, size_t cap, size_t *n)
{
    ib b = {.fixed = out, .fixed_cap = out ? cap : 0};
    build_head(&b, s, head, num_labels > 0 ? num_labels : s->num_labels);
    *n = b.count;
    if (b.count > cap)
        return vx_fail(VRAMEST_E_BUFFER_TOO_SMALL, "head tensors: %zu needed, room for %zu", b.count, cap);
    return VRAMEST_OK;
}

int vx_inventory_build(const vx_arch *a, const vx_shape *s, vx_tensor **inv, size_t *n, size_t *cap)
{
    ib b = {.inv = inv, .n = n, .cap = cap};
    *n = 0;
    build_body(&b, a, s);
    build_head(&b, s, s->default_head, s->num_labels);
    return b.rc;
}

void vx_class_iter_init(vx_tensor_iter *it, const struct vramest_model *m, int64_t head_asked, int64_t num_labels)
{
    const vx_shape *s = &m->shape;
    memset(it, 0, sizeof *it);
    it->inv = m->inv;
    it->n = m->n_inv;
    int head = vx_head_resolve(s, (int)head_asked);
    int64_t nl = num_labels;
    it->swap_head = head != s->default_head || (head == VX_HEAD_SEQ_CLS && nl > 0 && nl != s->num_labels);
    if (it->swap_head) {
        size_t n = 0;
        if (vx_head_tensors(s, head, nl, it->heads, VX_HEAD_MAX_TENSORS, &n) != VRAMEST_OK) n = 0;
        it->n_heads = n;
    }
}

const vx_tensor *vx_tensor_iter_next(vx_tensor_iter *it)
{
    while (it->i < it->n) {
        const vx_tensor *t = &it->inv[it->i++];
        if (it->swap_head && VX_ROLE_IS_HEAD(t->role)) continue;
        return t;
    }
    return it->j < it->n_heads ? &it->heads[it->j++] : NULL;
}
