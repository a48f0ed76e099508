/* GGUF file types as per-tensor mixes: the type llama.cpp's quantizer
 * gives each tensor of a model under a file type (llama.cpp
 * src/llama-quant.cpp, llama_tensor_get_type, and tensor_type_fallback),
 * accumulated as pieces of a tensor group. Sources and known error in
 * docs/methodology.md, "Precision and quantization". */
#include "precision/gguf_mix.h"

/* ggml types and llama_ftype values used by the GGUF mixes (dtype.c has
 * the whole table; these are the ones the quantizer's rules name). */
enum {
    T_F32 = 0, T_F16 = 1, T_Q4_0 = 2, T_Q4_1 = 3, T_Q5_0 = 6, T_Q5_1 = 7, T_Q8_0 = 8, T_Q2_K = 10,
    T_Q3_K = 11, T_Q4_K = 12, T_Q5_K = 13, T_Q6_K = 14, T_IQ2_XXS = 16, T_IQ2_XS = 17, T_IQ3_XXS = 18,
    T_IQ1_S = 19, T_IQ4_NL = 20, T_IQ3_S = 21, T_IQ2_S = 22, T_IQ4_XS = 23, T_IQ1_M = 29, T_BF16 = 30,
    T_TQ1_0 = 34, T_TQ2_0 = 35, T_MXFP4 = 39, T_NVFP4 = 40, T_Q1_0 = 41, T_Q2_0 = 42
};
enum {
    FT_ALL_F32 = 0, FT_F16 = 1, FT_Q4_0 = 2, FT_Q4_1 = 3, FT_Q8_0 = 7, FT_Q5_0 = 8, FT_Q5_1 = 9, FT_Q2_K = 10,
    FT_Q3_K_S = 11, FT_Q3_K_M = 12, FT_Q3_K_L = 13, FT_Q4_K_S = 14, FT_Q4_K_M = 15, FT_Q5_K_S = 16,
    FT_Q5_K_M = 17, FT_Q6_K = 18, FT_IQ2_XXS = 19, FT_IQ2_XS = 20, FT_Q2_K_S = 21, FT_IQ3_XS = 22,
    FT_IQ3_XXS = 23, FT_IQ1_S = 24, FT_IQ4_NL = 25, FT_IQ3_S = 26, FT_IQ3_M = 27, FT_IQ2_S = 28,
    FT_IQ2_M = 29, FT_IQ4_XS = 30, FT_IQ1_M = 31, FT_BF16 = 32, FT_TQ1_0 = 36, FT_TQ2_0 = 37,
    FT_MXFP4_MOE = 38, FT_NVFP4 = 39, FT_Q1_0 = 40
};
#define GG(t) (100 + (t))

enum { C_TOKEN_EMBD, C_ATTN_Q, C_ATTN_V, C_ATTN_K, C_ATTN_QKV, C_ATTN_KV_B, C_ATTN_OUT, C_FFN_UP, C_FFN_GATE,
       C_FFN_DOWN, C_OUTPUT, C_OTHER };

static int category_of(int role)
{
    switch (role) {
    case VX_ROLE_EMBED: return C_TOKEN_EMBD;
    case VX_ROLE_LM_HEAD: return C_OUTPUT;
    case VX_ROLE_ATTN_Q:
    case VX_ROLE_CROSS_Q: return C_ATTN_Q;
    case VX_ROLE_ATTN_K:
    case VX_ROLE_CROSS_K: return C_ATTN_K;
    case VX_ROLE_ATTN_V:
    case VX_ROLE_CROSS_V: return C_ATTN_V;
    case VX_ROLE_ATTN_QKV: return C_ATTN_QKV;
    case VX_ROLE_ATTN_KV_B: return C_ATTN_KV_B;
    case VX_ROLE_ATTN_O: return C_ATTN_OUT;
    case VX_ROLE_MLP_UP:
    case VX_ROLE_MLP_GATE_UP:
    case VX_ROLE_EXPERT_UP:
    case VX_ROLE_SHARED_UP: return C_FFN_UP;
    case VX_ROLE_MLP_GATE:
    case VX_ROLE_EXPERT_GATE:
    case VX_ROLE_SHARED_GATE: return C_FFN_GATE;
    case VX_ROLE_MLP_DOWN:
    case VX_ROLE_EXPERT_DOWN:
    case VX_ROLE_SHARED_DOWN: return C_FFN_DOWN;
    default: return C_OTHER;
    }
}

/* The llama_ftype a weights value names: a mix itself, or a tensor type
 * read as the file type of the same name (a "Q4_0 GGUF" keeps output.weight
 * in Q6_K and norms in F32); -1 = pure (every quantizable tensor that type). */
static int ftype_of(int w)
{
    if (VX_IS_GGUF_MIX(w)) return w - 300;
    switch (w) {
    case VRAMEST_DTYPE_FP32:
    case GG(T_F32): return FT_ALL_F32;
    case VRAMEST_DTYPE_FP16:
    case GG(T_F16): return FT_F16;
    case VRAMEST_DTYPE_BF16:
    case GG(T_BF16): return FT_BF16;
    case GG(T_Q4_0): return FT_Q4_0;
    case GG(T_Q4_1): return FT_Q4_1;
    case GG(T_Q8_0): return FT_Q8_0;
    case GG(T_Q5_0): return FT_Q5_0;
    case GG(T_Q5_1): return FT_Q5_1;
    case GG(T_Q2_K): return FT_Q2_K;
    case GG(T_Q3_K): return FT_Q3_K_M; /* llama-quantize: "Q3_K" is an alias of Q3_K_M */
    case GG(T_Q4_K): return FT_Q4_K_M;
    case GG(T_Q5_K): return FT_Q5_K_M;
    case GG(T_Q6_K): return FT_Q6_K;
    case GG(T_IQ2_XXS): return FT_IQ2_XXS;
    case GG(T_IQ2_XS): return FT_IQ2_XS;
    case GG(T_IQ3_XXS): return FT_IQ3_XXS;
    case GG(T_IQ1_S): return FT_IQ1_S;
    case GG(T_IQ4_NL): return FT_IQ4_NL;
    case GG(T_IQ3_S): return FT_IQ3_S;
    case GG(T_IQ2_S): return FT_IQ2_S;
    case GG(T_IQ4_XS): return FT_IQ4_XS;
    case GG(T_IQ1_M): return FT_IQ1_M;
    case GG(T_TQ1_0): return FT_TQ1_0;
    case GG(T_TQ2_0): return FT_TQ2_0;
    case GG(T_NVFP4): return FT_NVFP4;
    case GG(T_Q1_0): return FT_Q1_0;
    default: return -1;
    }
}

/* llama_ftype_get_default_type. */
static int ftype_default(int ft)
{
    switch (ft) {
    case FT_ALL_F32: return T_F32;
    case FT_F16: return T_F16;
    case FT_BF16: return T_BF16;
    case FT_Q4_0: return T_Q4_0;
    case FT_Q4_1: return T_Q4_1;
    case FT_Q5_0: return T_Q5_0;
    case FT_Q5_1: return T_Q5_1;
    case FT_Q8_0: return T_Q8_0;
    case FT_MXFP4_MOE: return T_MXFP4;
    case FT_NVFP4: return T_NVFP4;
    case FT_Q1_0: return T_Q1_0;
    case FT_Q2_K_S:
    case FT_Q2_K: return T_Q2_K;
    case FT_IQ3_XS: return T_IQ3_S;
    case FT_Q3_K_S:
    case FT_Q3_K_M:
    case FT_Q3_K_L: return T_Q3_K;
    case FT_Q4_K_S:
    case FT_Q4_K_M: return T_Q4_K;
    case FT_Q5_K_S:
    case FT_Q5_K_M: return T_Q5_K;
    case FT_Q6_K: return T_Q6_K;
    case FT_TQ1_0: return T_TQ1_0;
    case FT_TQ2_0: return T_TQ2_0;
    case FT_IQ2_XXS: return T_IQ2_XXS;
    case FT_IQ2_XS: return T_IQ2_XS;
    case FT_IQ2_S: return T_IQ2_XS;
    case FT_IQ2_M: return T_IQ2_S;
    case FT_IQ3_XXS: return T_IQ3_XXS;
    case FT_IQ1_S: return T_IQ1_S;
    case FT_IQ1_M: return T_IQ1_M;
    case FT_IQ4_NL: return T_IQ4_NL;
    case FT_IQ4_XS: return T_IQ4_XS;
    case FT_IQ3_S:
    case FT_IQ3_M: return T_IQ3_S;
    default: return -1;
    }
}

static int64_t blck(int t)
{
    const vx_dtype_info *d = vx_dtype(GG(t));
    return d && d->block_elems ? d->block_elems : 1;
}

static bool use_more_bits(int64_t i, int64_t n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

typedef struct mix {
    int ft, deflt;
    int64_t n_gqa, n_expert;
    bool falcon, is70b, tied;
    bool qkv_own; /* builds before the tensor categories (vx_resolved_precision.gguf_qkv_own_rule) */
} mix;

static bool ft_in(int ft, const int *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (l[i] == ft) return true;
    return false;
}
#define FT_IN(ft, ...) ft_in(ft, (const int[]){__VA_ARGS__}, sizeof((const int[]){__VA_ARGS__}) / sizeof(int))

/* llama_tensor_get_type_impl, read at ggml-org/llama.cpp@007dbbf3, without an
 * importance matrix (the rules that need one are the quantizer's refusal or
 * a no-op). `i` is the tensor's index among its kind (layer), `n` their count.
 * Builds before ggml-org/llama.cpp#19770 matched tensor names instead
 * (llama_tensor_get_type, read in ollama/ollama@ef00199f's vendored
 * a5bb8ba4): attn_qkv had a rule of its own, attn_kv_b none. */
static int mix_type(const mix *c, int cat, int64_t i, int64_t n, int64_t nx, bool is3d)
{
    const int ft = c->ft;
    int t = c->deflt;
    bool attn_v = cat == C_ATTN_V || (!c->qkv_own && (cat == C_ATTN_QKV || cat == C_ATTN_KV_B));
    if (cat == C_OUTPUT || (c->tied && cat == C_TOKEN_EMBD)) {
        if (ft == FT_MXFP4_MOE || c->falcon || nx % blck(t))
            t = T_Q8_0;
        else if (FT_IN(ft, FT_IQ2_XXS, FT_IQ2_XS, FT_IQ3_XXS, FT_IQ1_S, FT_IQ2_S, FT_IQ2_M, FT_IQ1_M))
            t = T_Q5_K;
        else if (t != T_Q8_0)
            t = T_Q6_K;
    } else if (ft == FT_MXFP4_MOE) {
        t = is3d ? T_MXFP4 : T_Q8_0;
    } else if (cat == C_TOKEN_EMBD) {
        if (FT_IN(ft, FT_IQ2_XXS, FT_IQ2_XS, FT_IQ1_S, FT_IQ1_M))
            t = T_Q2_K;
        else if (FT_IN(ft, FT_IQ2_S, FT_IQ2_M, FT_IQ3_XXS))
            t = T_IQ3_S;
        else if (FT_IN(ft, FT_TQ1_0, FT_TQ2_0))
            t = T_Q4_K;
    } else if (FT_IN(ft, FT_IQ2_XXS, FT_IQ2_XS, FT_IQ1_S, FT_IQ2_S, FT_IQ2_M, FT_IQ1_M)) {
        bool s_m = ft == FT_IQ2_S || ft == FT_IQ2_M;
        if (attn_v)
            t = (c->n_gqa >= 4 || c->n_expert >= 4) ? T_Q4_K : s_m ? T_IQ3_S : T_Q2_K;
        else if (c->n_expert == 8 && cat == C_ATTN_K)
            t = T_Q4_K;
        else if (cat == C_FFN_DOWN) {
            if (i < n / 8) t = s_m ? T_IQ3_S : T_Q2_K;
        } else if (cat == C_ATTN_OUT) {
            if (c->n_expert == 8)
                t = T_Q5_K;
            else if (ft == FT_IQ1_S || ft == FT_IQ1_M)
                t = T_IQ2_XXS;
            else if (s_m)
                t = T_IQ3_S;
        }
    } else if (attn_v) {
        if (ft == FT_Q2_K)
            t = c->n_gqa >= 4 ? T_Q4_K : T_Q3_K;
        else if (ft == FT_Q2_K_S && c->n_gqa >= 4)
            t = T_Q4_K;
        else if (ft == FT_IQ3_XXS)
            t = c->n_gqa >= 4 ? T_Q4_K : T_IQ3_S;
        else if ((ft == FT_IQ3_XS || ft == FT_IQ3_S) && c->n_gqa >= 4)
            t = T_Q4_K;
        else if (ft == FT_IQ3_M)
            t = T_Q4_K;
        else if (ft == FT_Q3_K_M)
            t = i < 2 ? T_Q5_K : T_Q4_K;
        else if (ft == FT_Q3_K_L)
            t = T_Q5_K;
        else if ((ft == FT_IQ4_NL || ft == FT_IQ4_XS) && c->n_gqa >= 4)
            t = T_Q5_K;
        else if ((ft == FT_Q4_K_M || ft == FT_Q5_K_M) && use_more_bits(i, n))
            t = T_Q6_K;
        else if (ft == FT_Q4_K_S && i < 4)
            t = T_Q5_K;
        if (c->is70b && (t == T_Q3_K || t == T_Q4_K)) t = T_Q5_K;
        if (c->n_expert == 8) t = T_Q8_0;
    } else if (cat == C_ATTN_K) {
        if (c->n_expert == 8)
            t = T_Q8_0;
        else if (ft == FT_IQ3_XS)
            t = T_IQ3_XXS;
        else if (ft == FT_IQ3_XXS)
            t = T_IQ2_S;
    } else if (cat == C_ATTN_Q) {
        if (ft == FT_IQ3_XS)
            t = T_IQ3_XXS;
        else if (ft == FT_IQ3_XXS)
            t = T_IQ2_S;
    } else if (cat == C_FFN_DOWN) {
        if (ft == FT_Q2_K)
            t = T_Q3_K;
        else if (ft == FT_Q2_K_S) {
            if (i < n / 8) t = T_Q4_K;
        } else if (ft == FT_IQ3_XXS)
            t = i < n / 8 ? T_Q4_K : T_Q3_K;
        else if (ft == FT_Q3_K_M)
            t = i < n / 16 ? T_Q5_K : (!c->falcon || use_more_bits(i, n)) ? T_Q4_K : T_Q3_K;
        else if (ft == FT_IQ3_M && (i < n / 8 || (c->n_expert == 8 && use_more_bits(i, n))))
            t = T_Q4_K;
        else if (ft == FT_Q3_K_L)
            t = c->falcon ? T_Q4_K : T_Q5_K;
        else if (ft == FT_Q4_K_M) {
            if (c->falcon)
                t = i < n / 16 ? T_Q6_K : use_more_bits(i, n) ? T_Q5_K : T_Q4_K;
            else if (use_more_bits(i, n))
                t = T_Q6_K;
        } else if (i < n / 8 && (ft == FT_IQ4_NL || ft == FT_IQ4_XS))
            t = T_Q5_K;
        else if (ft == FT_Q5_K_M && use_more_bits(i, n))
            t = T_Q6_K;
        else if (ft == FT_Q4_K_S && !c->falcon && i < n / 8)
            t = T_Q5_K;
    } else if (cat == C_ATTN_OUT) {
        if (!c->falcon) {
            if (c->n_expert == 8) {
                if (FT_IN(ft, FT_Q2_K, FT_IQ3_XS, FT_IQ3_XXS, FT_Q3_K_S, FT_Q3_K_M, FT_IQ4_NL, FT_Q4_K_S, FT_Q4_K_M,
                          FT_IQ3_S, FT_IQ3_M, FT_IQ4_XS))
                    t = T_Q5_K;
            } else if (ft == FT_Q2_K)
                t = T_Q3_K;
            else if (ft == FT_IQ3_XXS)
                t = T_IQ3_S;
            else if (ft == FT_Q3_K_M || ft == FT_IQ3_M)
                t = T_Q4_K;
            else if (ft == FT_Q3_K_L)
                t = T_Q5_K;
        } else if (ft == FT_Q3_K_L)
            t = T_Q4_K;
    } else if (cat == C_ATTN_QKV) { /* qkv_own: every layer alike */
        if (FT_IN(ft, FT_Q3_K_M, FT_Q3_K_L, FT_IQ3_M))
            t = T_Q4_K;
        else if (ft == FT_Q4_K_M)
            t = T_Q5_K;
        else if (ft == FT_Q5_K_M)
            t = T_Q6_K;
    } else if (cat == C_FFN_GATE || cat == C_FFN_UP) {
        if (ft == FT_IQ3_XS && i >= n / 8 && i < 7 * n / 8) t = T_IQ3_XXS;
    }
    return t;
}

/* tensor_type_fallback: a row that is not whole blocks of the chosen type. */
static int gguf_fallback(int t, int64_t nx, bool *fell)
{
    if (nx % blck(t) == 0) return t;
    *fell = true;
    int r;
    switch (t) {
    case T_IQ1_S:
    case T_IQ1_M:
    case T_IQ2_XXS:
    case T_IQ2_XS:
    case T_IQ2_S:
    case T_IQ3_XXS:
    case T_IQ3_S:
    case T_IQ4_XS: r = T_IQ4_NL; break;
    case T_Q2_0:
    case T_Q2_K:
    case T_Q3_K:
    case T_TQ1_0:
    case T_TQ2_0: r = T_Q4_0; break;
    case T_Q4_K: r = T_Q5_0; break;
    case T_Q5_K: r = T_Q5_1; break;
    case T_Q6_K: r = T_Q8_0; break;
    /* llama.cpp has no fallback for the rest and refuses; f16 is what the
     * "unusual shape" path ends in. */
    default: r = T_F16;
    }
    return nx % blck(r) ? T_F16 : r;
}

static bool model_has_lm_head(const vx_policy *pol)
{
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));)
        if (t->role == VX_ROLE_LM_HEAD) return true;
    return false;
}

/* Non-quantized 2D tensors of a quantized GGUF keep the converter's type:
 * convert_hf_to_gguf writes 1D tensors, norms, routers (ffn_gate_inp),
 * position and token-type embeddings in F32 and the rest in F16 (BF16 for
 * a bf16 model converted to bf16). */
static bool gguf_always_f32(const vx_tensor *t)
{
    return t->kind == VX_TK_NORM || t->kind == VX_TK_BIAS || t->cols <= 1 || t->rows <= 1 ||
           t->role == VX_ROLE_ROUTER || t->role == VX_ROLE_POS_EMBED || t->role == VX_ROLE_TYPE_EMBED ||
           t->role == VX_ROLE_EMBED_NORM || t->role == VX_ROLE_NORM || t->role == VX_ROLE_FINAL_NORM;
}

static int gguf_mix_ftype(const vx_policy *pol, int w)
{
    if (w == VRAMEST_DTYPE_AUTO) {
        /* quant_method gguf without a dtype and without a file: the converter's default. */
        int sd = (int)pol->s->torch_dtype;
        return sd == VRAMEST_DTYPE_BF16 ? FT_BF16 : sd == VRAMEST_DTYPE_FP32 ? FT_ALL_F32 : FT_F16;
    }
    return ftype_of(w);
}

size_t vx_gguf_pieces(const vx_policy *pol, const vx_tensor *t, int w, uint64_t copies_per_layer, uint64_t layers,
                      vx_piece *out, bool *fell)
{
    const vx_shape *s = pol->s;
    int ft = gguf_mix_ftype(pol, w);
    int base = (ft == FT_BF16 || (ft == -1 && s->torch_dtype == VRAMEST_DTYPE_BF16)) ? T_BF16 : T_F16;
    if (ft == FT_ALL_F32) base = T_F32;
    int types[4] = {0};
    uint64_t counts[4] = {0};
    size_t nt = 0;
    int emb = (int)pol->pv->embeddings;
    bool fixed = true;
    int type = T_F32;
    if (gguf_always_f32(t))
        type = T_F32;
    else if (t->role == VX_ROLE_REL_BIAS)
        type = base;
    else if (t->role == VX_ROLE_EMBED && emb != VRAMEST_DTYPE_AUTO)
        type = -emb; /* a library dtype, sized below */
    else if (ft == FT_ALL_F32 || ft == FT_F16 || ft == FT_BF16)
        type = ft == FT_ALL_F32 ? T_F32 : ft == FT_F16 ? T_F16 : T_BF16;
    else if (ft < 0)
        type = gguf_fallback(w - 100, t->cols, fell);
    else
        fixed = false;

    if (fixed) {
        types[0] = type;
        counts[0] = vx_sat_mul(layers, copies_per_layer);
        nt = 1;
    } else {
        mix c = {.ft = ft, .deflt = ftype_default(ft), .qkv_own = pol->rp.gguf_qkv_own_rule != 0};
        c.n_gqa = s->kv_heads > 0 ? s->heads / s->kv_heads : 1;
        c.n_expert = s->experts;
        c.falcon = (s->fam->gguf_flags & VX_GGF_FALCON_MIX) != 0;
        c.is70b = s->layers == 80 && s->kv_heads > 0 && s->kv_heads < s->heads;
        int cat = category_of(t->role);
        /* llama.cpp treats token_embd as the output when there is no output.weight. */
        c.tied = cat == C_TOKEN_EMBD && !model_has_lm_head(pol);
        bool is3d = t->expert && t->n_per_layer > 1;
        int64_t n = t->n_layers > 0 ? t->n_layers : 1;
        /* The quantizer counts ffn tensors per model layer (MoE: the layer in
         * the name): routed and shared experts sit in the last layers when
         * the first ones are dense (DeepSeek first_k_dense_replace). */
        int64_t offset = 0, n_all = n;
        if (cat == C_FFN_DOWN || cat == C_FFN_GATE || cat == C_FFN_UP) {
            n_all = s->layers > n ? s->layers : n;
            if (t->expert || (t->role >= VX_ROLE_SHARED_GATE && t->role <= VX_ROLE_SHARED_DOWN)) offset = n_all - n;
        }
        for (int64_t i = 0; i < n; i++) {
            int ty = mix_type(&c, cat, i + offset, n_all, t->cols, is3d);
            ty = gguf_fallback(ty, t->cols, fell);
            size_t k = 0;
            while (k < nt && types[k] != ty) k++;
            if (k == nt) {
                if (nt == VX_ARRAY_LEN(types)) k = nt - 1; /* cannot happen: at most 3 types per rule */
                else types[nt++] = ty;
            }
            counts[k] = vx_sat_add(counts[k], copies_per_layer);
        }
    }
    for (size_t k = 0; k < nt; k++) {
        int d = types[k] < 0 ? -types[k] : GG(types[k]);
        uint64_t row;
        if (types[k] < 0)
            row = vx_dtype_bytes(d, (uint64_t)t->cols);
        else
            row = vx_sat_mul(vx_ceil_div((uint64_t)t->cols, (uint64_t)blck(types[k])), vx_dtype(d)->block_bytes);
        out[k] = (vx_piece){vx_sat_mul(row, (uint64_t)t->rows), counts[k], d};
    }
    return nt;
}
