/* The tensor inventory (design.md §2): one group per nn.Parameter of the
 * Hugging Face module tree, with its role, kind, HF leaf name, shape and
 * multiplicity. Layouts follow the transformers modeling code (and the remote
 * code of ChatGLM and MOSS), so that summing the groups gives
 * model.num_parameters() exactly: tied weights appear once, buffers never.
 * Every linear is a weight group plus, when the module has one, a bias group
 * of the same name and role with kind VX_TK_BIAS. The generic decoder here
 * reads the family's row (names, attention and MLP layouts, norms); a
 * family whose layout it cannot describe has a builder beside its row
 * (lib/model/families/). */
#include <stdlib.h>
#include <string.h>

#include "model/inventory.h"

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

void vx_ib_put(vx_ib *b, const char *name, int role, int kind, int part, int64_t rows, int64_t cols, int64_t nl,
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

void vx_ib_lin(vx_ib *b, const char *name, int role, int part, int64_t out, int64_t in, int bias, int64_t nl)
{
    vx_ib_put(b, name, role, VX_TK_MATRIX, part, out, in, nl, 1, 0);
    if (bias) vx_ib_put(b, name, role, VX_TK_BIAS, part, out, 1, nl, 1, 0);
}

void vx_ib_lin_n(vx_ib *b, const char *name, int role, int part, int64_t out, int64_t in, int bias, int64_t nl,
                 int64_t per, int expert)
{
    vx_ib_put(b, name, role, VX_TK_MATRIX, part, out, in, nl, per, expert);
    if (bias) vx_ib_put(b, name, role, VX_TK_BIAS, part, out, 1, nl, per, expert);
}

void vx_ib_norm_n(vx_ib *b, const char *name, int role, int part, int kind, int64_t dim, int64_t nl, int64_t per)
{
    if (kind == VX_NORM_NONE) return; /* computed, never stored */
    vx_ib_put(b, name, role, VX_TK_NORM, part, dim, 1, nl, per, 0);
    if (kind == VX_NORM_LAYER) vx_ib_put(b, name, role, VX_TK_NORM, part, dim, 1, nl, per, 0);
}

void vx_ib_norm(vx_ib *b, const char *name, int role, int part, int kind, int64_t dim, int64_t nl)
{
    vx_ib_norm_n(b, name, role, part, kind, dim, nl, 1);
}

void vx_ib_emb(vx_ib *b, const char *name, int role, int64_t rows, int64_t cols)
{
    vx_ib_put(b, name, role, VX_TK_EMBED, VX_PART_GLOBAL, rows, cols, 0, 1, 0);
}

/* ---- the generic decoder: Llama and the families its row fields describe ---- */

#define NAME(f, field, dflt) ((f)->field ? (f)->field : (dflt))

static void mla_attention(vx_ib *b, const vx_shape *s, int64_t L)
{
    int64_t h = s->hidden, H = s->heads;
    int ab = s->attn_bias;
    if (s->q_lora_rank > 0) {
        vx_ib_lin(b, "q_a_proj", VX_ROLE_ATTN_Q_A, VX_DEC, s->q_lora_rank, h, ab, L);
        vx_ib_norm(b, "q_a_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_RMS, s->q_lora_rank, L);
        vx_ib_lin(b, "q_b_proj", VX_ROLE_ATTN_Q_B, VX_DEC, H * (s->nope_dim + s->rope_dim), s->q_lora_rank, 0, L);
    } else {
        vx_ib_lin(b, "q_proj", VX_ROLE_ATTN_Q, VX_DEC, H * (s->nope_dim + s->rope_dim), h, 0, L);
    }
    vx_ib_lin(b, "kv_a_proj_with_mqa", VX_ROLE_ATTN_KV_A, VX_DEC, s->kv_lora_rank + s->rope_dim, h, ab, L);
    vx_ib_norm(b, "kv_a_layernorm", VX_ROLE_NORM, VX_DEC, VX_NORM_RMS, s->kv_lora_rank, L);
    vx_ib_lin(b, "kv_b_proj", VX_ROLE_ATTN_KV_B, VX_DEC, H * (s->nope_dim + s->v_head_dim), s->kv_lora_rank, 0, L);
    vx_ib_lin(b, "o_proj", VX_ROLE_ATTN_O, VX_DEC, h, H * s->v_head_dim, ab, L);
}

/* Decoder layers per distinct value of a part of their kind, in the order
 * the kinds first appear: the inventory has one group per distinct shape of
 * a module, however the kinds interleave. */
typedef int (*same_fn)(const vx_layer_kind *x, const vx_layer_kind *y);

static int64_t group(const vx_layers *L, const vx_tally *t, int k, same_fn same, uint32_t *done)
{
    if ((*done >> k) & 1u || !t->count[k]) return 0;
    int64_t n = 0;
    for (int j = k; j < L->n_kinds; j++)
        if (!((*done >> j) & 1u) && same(&L->kind[k], &L->kind[j])) n += t->count[j], *done |= 1u << j;
    return n;
}

static int same_attn(const vx_layer_kind *x, const vx_layer_kind *y)
{
    return x->mixer == y->mixer && x->heads == y->heads && x->kv_heads == y->kv_heads && x->head_dim == y->head_dim &&
           x->v_head_dim == y->v_head_dim && x->k_eq_v == y->k_eq_v && x->kv_reuse == y->kv_reuse &&
           x->kv_shared == y->kv_shared;
}

static int same_index(const vx_layer_kind *x, const vx_layer_kind *y)
{
    return x->index_heads == y->index_heads && x->index_head_dim == y->index_head_dim;
}

static int same_mlp(const vx_layer_kind *x, const vx_layer_kind *y)
{
    return x->mlp == y->mlp && (x->mlp != VX_MLPK_DENSE || x->ffn == y->ffn);
}

static void attention(vx_ib *b, const vx_shape *s, const vx_layer_kind *k, int64_t L)
{
    const vx_family *f = s->fam;
    int64_t h = s->hidden, H = k->heads, K = k->kv_heads, d = k->head_dim;
    int ab = s->attn_bias;
    if (k->mixer == VX_MIX_NONE) return;
    if (k->mixer == VX_MIX_PROJ) {
        /* DeciLM's LinearAttention: one hidden x hidden linear */
        vx_ib_lin(b, "linear_attn", VX_ROLE_ATTN_O, VX_DEC, h, h, 0, L);
        return;
    }
    if (k->mixer == VX_MIX_MLA) {
        mla_attention(b, s, L);
    } else if (f->qkv == VX_QKV_FUSED) {
        vx_ib_lin(b, NAME(f, n_qkv, "qkv_proj"), VX_ROLE_ATTN_QKV, VX_DEC, (H + 2 * K) * d, h, ab, L);
        vx_ib_lin(b, NAME(f, n_o, "o_proj"), VX_ROLE_ATTN_O, VX_DEC, h, H * d, s->attn_out_bias, L);
    } else {
        /* a gated output (Qwen3-Next) takes its gate from q_proj too */
        vx_ib_lin(b, NAME(f, n_q, "q_proj"), VX_ROLE_ATTN_Q, VX_DEC, (s->attn_gate ? 2 : 1) * H * d, h, ab, L);
        /* a KV-shared (Gemma 4) or cross-layer (Hunyuan CLA) layer reads
         * another layer's keys and values */
        if (!k->kv_reuse && !k->kv_shared) vx_ib_lin(b, NAME(f, n_k, "k_proj"), VX_ROLE_ATTN_K, VX_DEC, K * d, h, ab, L);
        if (!k->k_eq_v && !k->kv_reuse && !k->kv_shared)
            vx_ib_lin(b, NAME(f, n_v, "v_proj"), VX_ROLE_ATTN_V, VX_DEC, K * d, h, ab, L);
        vx_ib_lin(b, NAME(f, n_o, "o_proj"), VX_ROLE_ATTN_O, VX_DEC, h, H * d, s->attn_out_bias, L);
    }
    /* gpt-oss: one learned sink logit per head (GptOssAttention.sinks) */
    if (f->sinks) vx_ib_put(b, "sinks", VX_ROLE_OTHER, VX_TK_OTHER, VX_DEC, H, 1, L, 1, 0);
    if (s->qk_norm) {
        /* Per head (one head_dim weight shared by the heads), or over the
         * whole projection (OLMo 2: heads x head_dim). */
        int full = f->qk_norm == VX_QKN_FULL, nk = f->qk_norm_ln ? VX_NORM_LAYER : VX_NORM_RMS;
        vx_ib_norm(b, NAME(f, n_q_norm, "q_norm"), VX_ROLE_NORM, VX_DEC, nk, full ? H * d : d, L);
        if (!k->kv_shared) vx_ib_norm(b, NAME(f, n_k_norm, "k_norm"), VX_ROLE_NORM, VX_DEC, nk, full ? K * d : d, L);
    }
}

static void dense_mlp(vx_ib *b, const vx_shape *s, int64_t F, int64_t nl)
{
    const vx_family *f = s->fam;
    int64_t h = s->hidden;
    int mb = s->mlp_bias;
    switch (f->mlp) {
    case VX_MLPL_GATE_UP:
        vx_ib_lin(b, NAME(f, n_gate_up, "gate_up_proj"), VX_ROLE_MLP_GATE_UP, VX_DEC, 2 * F, h, mb, nl);
        break;
    case VX_MLPL_PLAIN: vx_ib_lin(b, NAME(f, n_up, "up_proj"), VX_ROLE_MLP_UP, VX_DEC, F, h, mb, nl); break;
    default:
        vx_ib_lin(b, NAME(f, n_gate, "gate_proj"), VX_ROLE_MLP_GATE, VX_DEC, F, h, mb, nl);
        vx_ib_lin(b, NAME(f, n_up, "up_proj"), VX_ROLE_MLP_UP, VX_DEC, F, h, mb, nl);
        break;
    }
    vx_ib_lin(b, NAME(f, n_down, "down_proj"), VX_ROLE_MLP_DOWN, VX_DEC, h, F, mb, nl);
}

/* DeepSeek sparse attention's lightning indexer (DeepseekV32Indexer):
 * wq_b reads the compressed query, wk and weights_proj the layer input;
 * k_norm is a LayerNorm with a bias over the one indexer key.
 * weights_proj weighs the heads' scores as a router weighs experts, and
 * stays in the model dtype in every fp8 checkpoint (DeepSeek's reference
 * Linear(dtype=default), GLM-5-FP8's modules_to_not_convert): the role
 * of a router says both. */
static void indexer(vx_ib *b, const vx_shape *s, const vx_layer_kind *k, int64_t L)
{
    int64_t h = s->hidden, ih = k->index_heads, id = k->index_head_dim;
    vx_ib_lin(b, "wq_b", VX_ROLE_OTHER, VX_DEC, ih * id, s->q_lora_rank, 0, L);
    vx_ib_lin(b, "wk", VX_ROLE_OTHER, VX_DEC, id, h, 0, L);
    vx_ib_norm(b, "k_norm", VX_ROLE_NORM, VX_DEC, VX_NORM_LAYER, id, L);
    vx_ib_lin(b, "weights_proj", VX_ROLE_ROUTER, VX_DEC, ih, h, 0, L);
}

/* The last group pushed is a buffer of the checkpoint (not a parameter of
 * the class) or a parameter, held in `dtype`. */
static void last_is(vx_ib *b, int trainable, int dtype)
{
    if (b->rc || !b->inv || !*b->n) return;
    vx_tensor *t = &(*b->inv)[*b->n - 1];
    t->trainable_default = (uint8_t)trainable;
    t->dtype = (int16_t)dtype;
}

/* Routed experts behind a router, then the shared expert(s). Experts of
 * a plain MLP (Nemotron-H) have no gate projection; experts that run in a
 * latent width sit between two projections (Nemotron-3 Super). */
static void moe_mlp(vx_ib *b, const vx_shape *s, int64_t nl)
{
    const vx_family *f = s->fam;
    int64_t h = s->hidden, F = s->moe_ffn, E = s->experts, in = s->moe_latent > 0 ? s->moe_latent : h;
    int eb = f->expert_bias;
    vx_ib_lin(b, NAME(f, n_router, "gate"), VX_ROLE_ROUTER, VX_DEC, E, h, eb, nl);
    /* noaux_tc routing's fp32 correction bias: a buffer of transformers'
     * DeepseekV3TopkRouter (kept in the checkpoint), a Parameter in the
     * remote code of DeepSeek-V3 style models (router_bias rows: Kimi-K2,
     * MiniMax-M2) */
    int ebias = f->e_bias ? f->e_bias : f->router_bias ? VX_EB_PARAM : VX_EB_NONE;
    if (ebias) {
        vx_ib_put(b, "e_score_correction_bias", VX_ROLE_ROUTER, VX_TK_BIAS, VX_DEC, E, 1, nl, 1, 0);
        last_is(b, ebias == VX_EB_PARAM, VRAMEST_DTYPE_FP32);
    }
    /* Nemotron-H's experts run in a latent width between two projections */
    if (s->moe_latent > 0) {
        vx_ib_lin(b, "fc1_latent_proj", VX_ROLE_MOE_LATENT, VX_DEC, in, h, s->mlp_bias, nl);
        vx_ib_lin(b, "fc2_latent_proj", VX_ROLE_MOE_LATENT, VX_DEC, h, in, s->mlp_bias, nl);
    }
    /* A fused gate|up expert tensor (GraniteMoE's input_linear, E x 2F x h)
     * is one name and two groups, so the gate and the up half keep their
     * roles (the training programs run them as two linears). Ungated
     * experts (Nemotron-H) have up and down only. */
    const char *ng = NAME(f, n_expert[0], "gate_proj"), *nu = f->experts_fused ? ng : NAME(f, n_expert[1], "up_proj");
    if (s->gated) vx_ib_lin_n(b, ng, VX_ROLE_EXPERT_GATE, VX_DEC, F, in, eb, nl, E, 1);
    vx_ib_lin_n(b, nu, VX_ROLE_EXPERT_UP, VX_DEC, F, in, eb, nl, E, 1);
    vx_ib_lin_n(b, NAME(f, n_expert[2], "down_proj"), VX_ROLE_EXPERT_DOWN, VX_DEC, in, F, eb, nl, E, 1);
    if (!s->shared_experts) return;
    int64_t S = s->shared_ffn;
    if (S > 0) {
        if (s->gated) vx_ib_lin(b, "gate_proj", VX_ROLE_SHARED_GATE, VX_DEC, S, h, 0, nl);
        vx_ib_lin(b, "up_proj", VX_ROLE_SHARED_UP, VX_DEC, S, h, 0, nl);
        vx_ib_lin(b, "down_proj", VX_ROLE_SHARED_DOWN, VX_DEC, h, S, 0, nl);
    }
    if (s->shared_kind == VX_SHX_GATED_ONE) vx_ib_lin(b, "shared_expert_gate", VX_ROLE_ROUTER, VX_DEC, 1, h, 0, nl);
}

void vx_ib_decoder(vx_ib *b, const vx_shape *s)
{
    const vx_family *f = s->fam;
    const vx_layers *L = b->L;
    int64_t h = s->hidden, with_mixer = 0, with_mlp = 0;
    vx_tally t;
    vx_layers_tally(L, VX_STACK_DEC, 0, s->layers, &t);
    vx_ib_emb(b, NAME(f, n_embed, "embed_tokens"), VX_ROLE_EMBED, s->vocab, h);
    uint32_t done = 0;
    int64_t recurrent = 0;
    for (int k = 0; k < L->n_kinds; k++) {
        const vx_layer_kind *kk = &L->kind[k];
        int64_t n = group(L, &t, k, same_attn, &done);
        if (n && kk->mixer != VX_MIX_SSM && kk->mixer != VX_MIX_LINEAR) attention(b, s, kk, n);
        if (kk->mixer == VX_MIX_SSM || kk->mixer == VX_MIX_LINEAR || kk->ssm_par) recurrent += t.count[k];
        if (kk->mixer != VX_MIX_NONE) with_mixer += t.count[k];
        if (kk->mlp != VX_MLPK_NONE) with_mlp += t.count[k];
    }
    /* every recurrent mixer of a model has the same shape: one group */
    if (recurrent) vx_ib_ssm_mixer(b, s, recurrent);
    done = 0;
    for (int k = 0; k < L->n_kinds; k++) {
        int64_t n = group(L, &t, k, same_index, &done);
        if (n && L->kind[k].index_heads > 0) indexer(b, s, &L->kind[k], n);
    }
    done = 0;
    for (int k = 0; k < L->n_kinds; k++) {
        const vx_layer_kind *kk = &L->kind[k];
        int64_t n = group(L, &t, k, same_mlp, &done);
        if (!n) continue;
        if (kk->mlp == VX_MLPK_MOE) moe_mlp(b, s, n);
        else if (kk->mlp == VX_MLPK_DENSE) dense_mlp(b, s, kk->ffn, n);
        else if (kk->mlp == VX_MLPK_PROJ) vx_ib_lin(b, "linear_mlp", VX_ROLE_MLP_DOWN, VX_DEC, h, h, 0, n);
    }
    if (!f->n_norm[0]) {
        /* A layer without attention (or MLP) has no norm before it (DeciLM). */
        if (with_mixer) vx_ib_norm(b, "input_layernorm", VX_ROLE_NORM, VX_DEC, s->norm_kind, h, with_mixer);
        /* one norm for a parallel block (StableLM's use_parallel_residual) */
        if (with_mlp && s->norms_per_layer >= 2)
            vx_ib_norm(b, "post_attention_layernorm", VX_ROLE_NORM, VX_DEC, s->norm_kind, h, with_mlp);
    }
    for (int i = 0; i < 4 && f->n_norm[i]; i++)
        vx_ib_norm(b, f->n_norm[i], VX_ROLE_NORM, VX_DEC, s->norm_kind, h, s->layers);
    vx_ib_norm(b, NAME(f, n_final_norm, "norm"), VX_ROLE_FINAL_NORM, VX_GLB, s->norm_kind, h, 0);
}

static void build_body(vx_ib *b, const vx_arch *a, const vx_shape *s)
{
    if (s->fam->build)
        s->fam->build(b, a, s);
    else
        vx_ib_decoder(b, s);
}

/* ---- heads ---- */

static void build_head(vx_ib *b, const vx_shape *s, int head, int64_t labels)
{
    const vx_family *f = s->fam;
    int64_t h = s->hidden, V = s->vocab;
    switch (vx_head_resolve(s, head)) {
    case VX_HEAD_CAUSAL_LM: case VX_HEAD_SEQ2SEQ_LM: {
        const char *n = s->lm_head_name;
        if (!s->tied) vx_ib_put(b, n, VX_ROLE_LM_HEAD, VX_TK_MATRIX, VX_GLB, V, s->embed_dim, 0, 1, 0);
        /* The bias stays a parameter of its own when the weight is tied. */
        if (f->lm_head_bias) vx_ib_put(b, n, VX_ROLE_LM_HEAD, VX_TK_BIAS, VX_GLB, V, 1, 0, 1, 0);
        break;
    }
    case VX_HEAD_MASKED_LM:
        /* BertOnlyMLMHead: transform (dense + LayerNorm), decoder tied to the
         * word embeddings plus its own bias. */
        vx_ib_lin(b, "dense", VX_ROLE_MLM_TRANSFORM, VX_GLB, h, h, 1, 0);
        vx_ib_norm(b, "LayerNorm", VX_ROLE_MLM_TRANSFORM, VX_GLB, VX_NORM_LAYER, h, 0);
        if (!s->tied) vx_ib_put(b, "decoder", VX_ROLE_LM_HEAD, VX_TK_MATRIX, VX_GLB, V, h, 0, 1, 0);
        vx_ib_put(b, "decoder", VX_ROLE_LM_HEAD, VX_TK_BIAS, VX_GLB, V, 1, 0, 1, 0);
        break;
    case VX_HEAD_SEQ_CLS:
        if (s->token_head) {
            /* *ForTokenClassification / *ForQuestionAnswering: one biased
             * linear per token over the bare model without its pooler */
            vx_ib_lin(b, "classifier", VX_ROLE_CLASSIFIER, VX_GLB, labels, h, 1, 0);
        } else if (f->cls == VX_CLS_POOLED || f->cls == VX_CLS_POOLED_BARE) {
            vx_ib_lin(b, "dense", VX_ROLE_POOLER, VX_GLB, h, h, 1, 0);
            vx_ib_lin(b, "classifier", VX_ROLE_CLASSIFIER, VX_GLB, labels, h, 1, 0);
        } else if (f->cls == VX_CLS_DENSE_OUT || f->cls == VX_CLS_DENSE_OUT_POOLER) {
            vx_ib_lin(b, "dense", VX_ROLE_CLASSIFIER, VX_GLB, h, h, 1, 0);
            vx_ib_lin(b, "out_proj", VX_ROLE_CLASSIFIER, VX_GLB, labels, h, 1, 0);
        } else {
            vx_ib_lin(b, "score", VX_ROLE_CLASSIFIER, VX_GLB, labels, s->embed_dim, 0, 0);
        }
        break;
    case VX_HEAD_NONE:
        /* The bare class keeps a pooler (BERT) or the output layer (ChatGLM2+). */
        if (f->cls == VX_CLS_POOLED || f->cls == VX_CLS_DENSE_OUT_POOLER)
            vx_ib_lin(b, "dense", VX_ROLE_POOLER, VX_GLB, h, h, 1, 0);
        if (s->lm_head_in_base) vx_ib_put(b, s->lm_head_name, VX_ROLE_LM_HEAD, VX_TK_MATRIX, VX_GLB, V, h, 0, 1, 0);
        break;
    default: break;
    }
}

int vx_head_tensors(const vx_shape *s, int head, int64_t num_labels, vx_tensor *out, size_t cap, size_t *n)
{
    vx_ib b = {.fixed = out, .fixed_cap = out ? cap : 0};
    build_head(&b, s, head, num_labels > 0 ? num_labels : s->num_labels);
    *n = b.count;
    if (b.count > cap)
        return vx_fail(VRAMEST_E_BUFFER_TOO_SMALL, "head tensors: %zu needed, room for %zu", b.count, cap);
    return VRAMEST_OK;
}

int vx_inventory_build(const vx_arch *a, const vx_shape *s, const vx_layers *L, vx_tensor **inv, size_t *n,
                       size_t *cap)
{
    vx_ib b = {.L = L, .inv = inv, .n = n, .cap = cap};
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
