/* The precision policy as a map over the tensor inventory (design.md §2).
 *
 * vx_precision_resolve() turns "auto" into concrete dtypes; every other
 * function here answers "what does this tensor group become on the GPU":
 * which dtype, and which allocations (a quantized nn.Linear is several
 * tensors: packed codes, scales, zero points, group indices). The formulas
 * and their sources are in docs/methodology.md, "Precision and
 * quantization"; the comments here say why a rule is what it is. */
#include <stdio.h>
#include <string.h>

#include "common/values.h"
#include "estimate/parallel/parallel.h"
#include "precision/policy.h"

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
#define FT(f) (300 + (f))
#define IS_GGUF_TYPE(d) ((d) >= 100 && (d) < 300)
#define IS_GGUF_MIX(d) ((d) >= 300 && (d) < 400)

static bool is_float(int d)
{
    return vx_dtype_plain_float(d);
}

/* A dtype torch would cast with model.to(dtype): floating point, or a GGUF
 * block type (transformers dequantizes GGUF tensors on load). */
static bool is_castable(int d)
{
    if (is_float(d) || d == VRAMEST_DTYPE_FP8_E4M3 || d == VRAMEST_DTYPE_FP8_E5M2) return true;
    if (d == GG(T_F32) || d == GG(T_F16) || d == GG(T_BF16) || d == GG(28)) return true;
    const vx_dtype_info *i = vx_dtype(d);
    return IS_GGUF_TYPE(d) && i && i->block_elems > 1;
}

static int stored_float(const vx_shape *s)
{
    int d = (int)s->torch_dtype;
    return is_float(d) ? d : VRAMEST_DTYPE_FP32;
}

/* ---- resolution ---- */

static int method_of(int w)
{
    if (IS_GGUF_TYPE(w) || IS_GGUF_MIX(w)) return VX_QM_GGUF;
    switch (w) {
    case VRAMEST_DTYPE_INT8:
    case VRAMEST_DTYPE_NF4:
    case VRAMEST_DTYPE_FP4: return VX_QM_BNB;
    /* int4 checkpoints on the Hub are mostly GPTQ; awq/torchao are explicit. */
    case VRAMEST_DTYPE_INT4: return VX_QM_GPTQ;
    case VRAMEST_DTYPE_FP8_E4M3:
    case VRAMEST_DTYPE_FP8_E5M2: return VX_QM_FP8;
    default: return VX_QM_NONE;
    }
}

static const char *method_name(int m)
{
    static const char *const n[] = {"auto", "none", "bnb", "gptq", "awq", "torchao", "gguf", "fp8"};
    return m >= 0 && m < (int)VX_ARRAY_LEN(n) ? n[m] : "?";
}

static const char *dname(int d)
{
    const char *n = vramest_dtype_name(d);
    return n ? n : "?";
}

/* The weights dtype once the method is known: a method named without a
 * dtype takes its usual one. */
static int weights_for(const vx_precision_values *pv, int method)
{
    int w = (int)pv->weights;
    if (w != VRAMEST_DTYPE_AUTO) return w;
    switch (method) {
    case VX_QM_BNB: return VRAMEST_DTYPE_INT8;
    case VX_QM_GPTQ:
    case VX_QM_AWQ: return VRAMEST_DTYPE_INT4;
    case VX_QM_TORCHAO: return VRAMEST_DTYPE_INT8;
    case VX_QM_FP8: return VRAMEST_DTYPE_FP8_E4M3;
    default: return VRAMEST_DTYPE_AUTO;
    }
}

static int resolved_method(const vx_precision_values *pv)
{
    return pv->quant_method != VX_QM_AUTO ? (int)pv->quant_method : method_of((int)pv->weights);
}

static int check_combo(int method, int w)
{
    bool ok;
    switch (method) {
    case VX_QM_NONE: ok = w == VRAMEST_DTYPE_AUTO || is_float(w); break;
    case VX_QM_BNB: ok = w == VRAMEST_DTYPE_INT8 || w == VRAMEST_DTYPE_NF4 || w == VRAMEST_DTYPE_FP4; break;
    case VX_QM_GPTQ: ok = w == VRAMEST_DTYPE_INT4 || w == VRAMEST_DTYPE_INT8; break;
    case VX_QM_AWQ: ok = w == VRAMEST_DTYPE_INT4; break;
    case VX_QM_TORCHAO:
        ok = w == VRAMEST_DTYPE_INT8 || w == VRAMEST_DTYPE_INT4 || w == VRAMEST_DTYPE_FP8_E4M3 ||
             w == VRAMEST_DTYPE_FP8_E5M2;
        break;
    case VX_QM_FP8: ok = w == VRAMEST_DTYPE_FP8_E4M3 || w == VRAMEST_DTYPE_FP8_E5M2; break;
    case VX_QM_GGUF:
        ok = w == VRAMEST_DTYPE_AUTO || IS_GGUF_TYPE(w) || IS_GGUF_MIX(w) || w == VRAMEST_DTYPE_FP32 ||
             w == VRAMEST_DTYPE_FP16 || w == VRAMEST_DTYPE_BF16;
        break;
    default: ok = false;
    }
    if (!ok)
        return vx_fail(VRAMEST_E_CONFLICT, "precision: quant_method '%s' cannot store weights as '%s'",
                       method_name(method), dname(w));
    return VRAMEST_OK;
}

int vx_precision_resolve(const vx_precision_values *pv, const vx_shape *s, int mode, vx_resolved_precision *out)
{
    (void)mode;
    memset(out, 0, sizeof *out);
    int method = resolved_method(pv);
    int w = weights_for(pv, method);
    int rc = check_combo(method, w);
    if (rc) return rc;
    const vx_dtype_info *wi = vx_dtype(w);
    if (!wi) return vx_fail(VRAMEST_E_RANGE, "precision: weights = %d is not a dtype", w);
    if (wi->is_policy && w != VRAMEST_DTYPE_AUTO && !IS_GGUF_MIX(w))
        return vx_fail(VRAMEST_E_RANGE, "precision: weights = '%s' is not a storage dtype", wi->name);
    int sf = stored_float(s);
    int sixteen = s->torch_dtype == VRAMEST_DTYPE_BF16 || s->torch_dtype == VRAMEST_DTYPE_FP16
                      ? (int)s->torch_dtype
                      : VRAMEST_DTYPE_BF16;

    /* Activation dtype when not given: what each stack really computes in. */
    int compute = (int)pv->compute;
    if (compute == VRAMEST_DTYPE_AUTO) {
        switch (method) {
        case VX_QM_NONE:
            compute = pv->amp ? VRAMEST_DTYPE_FP16 : (w != VRAMEST_DTYPE_AUTO ? w : sf);
            break;
        /* transformers loads a bitsandbytes / GPTQ / AWQ model in fp16 unless
         * torch_dtype says otherwise, and the unquantized modules with it. */
        case VX_QM_BNB:
        case VX_QM_GPTQ:
        case VX_QM_AWQ: compute = VRAMEST_DTYPE_FP16; break;
        case VX_QM_TORCHAO:
        case VX_QM_FP8: compute = sixteen; break;
        /* ggml computes activations in f32. */
        case VX_QM_GGUF: compute = VRAMEST_DTYPE_FP32; break;
        default: compute = sf;
        }
    }
    if (compute == VRAMEST_DTYPE_FP64) compute = VRAMEST_DTYPE_FP32;
    out->compute_dtype = compute;
    out->amp = pv->amp != 0;
    out->quant_method = method;

    /* Float parameters: the weights' dtype, or for quantized models the
     * dtype the unquantized rest is held in (the compute dtype). */
    if (method == VX_QM_NONE)
        out->param_dtype = w != VRAMEST_DTYPE_AUTO ? w : sf;
    else if (method == VX_QM_GGUF)
        out->param_dtype = VRAMEST_DTYPE_FP32;
    else
        out->param_dtype = compute;
    if (out->amp && out->param_dtype != VRAMEST_DTYPE_FP32 && pv->weights != VRAMEST_DTYPE_AUTO &&
        method == VX_QM_NONE)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "precision: amp (autocast) runs over fp32 parameters, but weights = '%s' (use amp_fp16 / "
                       "amp_bf16, or mixed_* for 16-bit parameters with fp32 master weights)",
                       dname(out->param_dtype));

    int master = (int)pv->master_weights;
    if (master == VRAMEST_DTYPE_AUTO || out->param_dtype == VRAMEST_DTYPE_FP32) master = VRAMEST_DTYPE_NONE;
    out->master_dtype = master;
    out->grad_dtype = pv->gradients != VRAMEST_DTYPE_AUTO ? (int)pv->gradients : out->param_dtype;
    out->state_dtype = pv->optimizer_states != VRAMEST_DTYPE_AUTO
                           ? (int)pv->optimizer_states
                           : (master == VRAMEST_DTYPE_FP32 ? VRAMEST_DTYPE_FP32 : out->param_dtype);
    out->kv_dtype = pv->kv_cache != VRAMEST_DTYPE_AUTO ? (int)pv->kv_cache
                    : method == VX_QM_GGUF           ? VRAMEST_DTYPE_FP16
                                                     : compute;

    int64_t g = pv->quant_group_size;
    if (g == 0) {
        if (method == VX_QM_BNB && w != VRAMEST_DTYPE_INT8)
            g = 64;
        else if (method == VX_QM_GPTQ || method == VX_QM_AWQ || (method == VX_QM_TORCHAO && w == VRAMEST_DTYPE_INT4))
            g = 128;
        else if (method == VX_QM_BNB || method == VX_QM_TORCHAO || method == VX_QM_FP8)
            g = -1;
    }
    if (g != 0 && (method == VX_QM_NONE || method == VX_QM_GGUF) && pv->quant_group_size != 0)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "precision: quant_group_size = %lld has no meaning for quant_method '%s' (GGUF blocks are "
                       "fixed by the tensor type)",
                       (long long)pv->quant_group_size, method_name(method));
    if (method == VX_QM_BNB && w == VRAMEST_DTYPE_INT8 && pv->quant_group_size > 0)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "precision: LLM.int8 (bnb int8) has one scale per row; quant_group_size = %lld does not apply",
                       (long long)pv->quant_group_size);
    if (method == VX_QM_BNB && w != VRAMEST_DTYPE_INT8 && g > 0 && (g < 32 || g > 4096 || (g & (g - 1))))
        return vx_fail(VRAMEST_E_RANGE,
                       "precision: bitsandbytes 4-bit blocksize must be a power of two in [32, 4096], got %lld",
                       (long long)g);
    out->group_size = g;
    if (pv->double_quant && !(method == VX_QM_BNB && w != VRAMEST_DTYPE_INT8))
        return vx_fail(VRAMEST_E_CONFLICT,
                       "precision: double_quant is bitsandbytes 4-bit nested quantization; weights are '%s' (%s)",
                       dname(w), method_name(method));
    out->double_quant = pv->double_quant != 0;
    int e = (int)pv->embeddings;
    const vx_dtype_info *ei = vx_dtype(e);
    if (e != VRAMEST_DTYPE_AUTO && (!ei || ei->is_policy))
        return vx_fail(VRAMEST_E_RANGE, "precision: embeddings = '%s' is not a storage dtype", dname(e));
    return VRAMEST_OK;
}

int vx_policy_weight_dtype(const vx_ctx *x)
{
    return weights_for(x->pv, x->rp.quant_method);
}

void vx_precision_echo(const vx_ctx *x, vx_precision_values *out)
{
    vx_values_copy(out, x->pv, &vx_precision_layout);
    out->weights = vx_policy_weight_dtype(x);
    out->compute = x->rp.compute_dtype;
    out->amp = x->rp.amp;
    out->master_weights = x->rp.master_dtype;
    out->gradients = x->rp.grad_dtype;
    out->optimizer_states = x->rp.state_dtype;
    out->kv_cache = x->rp.kv_dtype;
    out->quant_group_size = x->rp.group_size;
    out->double_quant = x->rp.double_quant;
    out->quant_method = x->rp.quant_method;
}

/* ---- skip_modules ---- */

/* Parent modules of HF names ("self_attn", "mlp") cover roles: the spec's
 * names are matched like transformers' modules_to_not_convert, a substring
 * of the dotted module path, which here is the leaf name plus its parents. */
static bool role_in_parent(int role, const char *entry)
{
    bool attn = (role >= VX_ROLE_ATTN_Q && role <= VX_ROLE_ATTN_KV_B) || role == VX_ROLE_REL_BIAS;
    bool cross = role >= VX_ROLE_CROSS_Q && role <= VX_ROLE_CROSS_O;
    bool mlp = role >= VX_ROLE_MLP_GATE && role <= VX_ROLE_SHARED_DOWN;
    bool experts = role >= VX_ROLE_EXPERT_GATE && role <= VX_ROLE_EXPERT_DOWN;
    bool shared = role >= VX_ROLE_SHARED_GATE && role <= VX_ROLE_SHARED_DOWN;
    if (!vx_strcasecmp(entry, "self_attn") || !vx_strcasecmp(entry, "attention") || !vx_strcasecmp(entry, "attn") ||
        !vx_strcasecmp(entry, "self_attention"))
        return attn;
    if (!vx_strcasecmp(entry, "encdecattention") || !vx_strcasecmp(entry, "crossattention") ||
        !vx_strcasecmp(entry, "encoder_attn") || !vx_strcasecmp(entry, "cross_attn"))
        return cross;
    if (!vx_strcasecmp(entry, "mlp") || !vx_strcasecmp(entry, "feed_forward") || !vx_strcasecmp(entry, "ffn") ||
        !vx_strcasecmp(entry, "block_sparse_moe") || !vx_strcasecmp(entry, "moe"))
        return mlp;
    if (!vx_strcasecmp(entry, "experts")) return experts;
    if (!vx_strcasecmp(entry, "shared_expert") || !vx_strcasecmp(entry, "shared_experts")) return shared;
    if (!vx_strcasecmp(entry, "gate") && role == VX_ROLE_ROUTER) return true;
    return false;
}

static const char *const role_names[VX_ROLE_COUNT_] = {
    "other",     "embed",       "pos_embed",   "type_embed", "embed_norm",  "embed_proj",    "attn_q",
    "attn_k",    "attn_v",      "attn_qkv",    "attn_o",     "attn_q_a",    "attn_q_b",      "attn_kv_a",
    "attn_kv_b", "cross_q",     "cross_k",     "cross_v",    "cross_o",     "rel_bias",      "mlp_gate",
    "mlp_up",    "mlp_gate_up", "mlp_down",    "router",     "expert_gate", "expert_up",     "expert_down",
    "shared_gate", "shared_up", "shared_down", "norm",       "final_norm",  "lm_head",       "pooler",
    "classifier", "mlm_transform"};

static bool entry_matches(const vx_tensor *t, const char *entry)
{
    if (!entry[0]) return false;
    if (strstr(t->name, entry)) return true;
    if (t->role < VX_ROLE_COUNT_ && !vx_strcasecmp(role_names[t->role], entry)) return true;
    /* "lm_head" names the output head whatever the family calls it (GPT-2
     * lm_head, BLOOM lm_head, ChatGLM output_layer). */
    if (t->role == VX_ROLE_LM_HEAD && (!vx_strcasecmp(entry, "lm_head") || !vx_strcasecmp(entry, "output_layer")))
        return true;
    if (t->role == VX_ROLE_EMBED && (!vx_strcasecmp(entry, "embed_tokens") || !vx_strcasecmp(entry, "wte") ||
                                      !vx_strcasecmp(entry, "word_embeddings")))
        return true;
    return role_in_parent(t->role, entry);
}

/* Is `t` in the skip list? "auto" = the method's default list. */
static bool skipped(const vx_ctx *x, const vx_tensor *t)
{
    const char *list = x->pv->skip_modules;
    if (!vx_strcasecmp(list, "auto") || !list[0])
        /* bitsandbytes' get_keys_to_not_convert keeps the output embedding
         * (and, without one, the last module: a classifier); GPTQ, AWQ,
         * torchao (TorchAoConfig, include_input_output_embeddings=False) and
         * fp8 checkpoints leave lm_head unquantized too. */
        return t->role == VX_ROLE_LM_HEAD || t->role == VX_ROLE_CLASSIFIER;
    if (!vx_strcasecmp(list, "none")) return false;
    char entry[VX_MAX_NAME];
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ',' || *p == '[' || *p == '"') p++;
        size_t k = 0;
        while (*p && *p != ',' && k + 1 < sizeof entry) entry[k++] = *p++;
        while (k && (entry[k - 1] == ' ' || entry[k - 1] == '"' || entry[k - 1] == ']')) k--;
        entry[k] = '\0';
        if (entry_matches(t, entry)) return true;
    }
    return false;
}

/* Would the method replace this group with a quantized module? */
static bool method_quantizes(const vx_ctx *x, const vx_tensor *t)
{
    int m = x->rp.quant_method;
    if (m == VX_QM_NONE || m == VX_QM_GGUF) return false;
    if (t->kind != VX_TK_MATRIX || t->rows <= 0 || t->cols <= 1) return false;
    /* GPTQ, AWQ and fp8 checkpoints quantize the linears inside the
     * transformer blocks (AutoGPTQ inside_layer_modules); routers stay. */
    if ((m == VX_QM_GPTQ || m == VX_QM_AWQ || m == VX_QM_FP8) &&
        (t->part == VX_PART_GLOBAL || t->role == VX_ROLE_ROUTER))
        return false;
    return !skipped(x, t);
}

/* ---- GGUF mixes (llama.cpp src/llama-quant.cpp, llama_tensor_get_type) ---- */

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
    if (IS_GGUF_MIX(w)) return w - 300;
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
 * a no-op). `i` is the tensor's index among its kind (layer), `n` their count. */
static int mix_type(const mix *c, int cat, int64_t i, int64_t n, int64_t nx, bool is3d)
{
    const int ft = c->ft;
    int t = c->deflt;
    bool attn_v = cat == C_ATTN_V || cat == C_ATTN_QKV || cat == C_ATTN_KV_B;
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

static bool model_has_lm_head(const vx_ctx *x)
{
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, x);
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

static int gguf_mix_ftype(const vx_ctx *x, int w)
{
    if (w == VRAMEST_DTYPE_AUTO) {
        /* quant_method gguf without a dtype and without a file: the converter's default. */
        int sd = (int)x->s->torch_dtype;
        return sd == VRAMEST_DTYPE_BF16 ? FT_BF16 : sd == VRAMEST_DTYPE_FP32 ? FT_ALL_F32 : FT_F16;
    }
    return ftype_of(w);
}

/* Per-layer GGUF types of one group, accumulated as pieces. Returns the
 * number of pieces; *fell is set when a fallback happened. */
static size_t gguf_pieces(const vx_ctx *x, const vx_tensor *t, int w, uint64_t copies_per_layer, uint64_t layers,
                          vx_piece *out, bool *fell)
{
    const vx_shape *s = x->s;
    int ft = gguf_mix_ftype(x, w);
    int base = (ft == FT_BF16 || (ft == -1 && s->torch_dtype == VRAMEST_DTYPE_BF16)) ? T_BF16 : T_F16;
    if (ft == FT_ALL_F32) base = T_F32;
    int types[4] = {0};
    uint64_t counts[4] = {0};
    size_t nt = 0;
    int emb = (int)x->pv->embeddings;
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
        mix c = {.ft = ft, .deflt = ftype_default(ft)};
        c.n_gqa = s->kv_heads > 0 ? s->heads / s->kv_heads : 1;
        c.n_expert = s->experts;
        c.falcon = s->family == VX_FAM_FALCON;
        c.is70b = s->layers == 80 && s->kv_heads > 0 && s->kv_heads < s->heads;
        int cat = category_of(t->role);
        /* llama.cpp treats token_embd as the output when there is no output.weight. */
        c.tied = cat == C_TOKEN_EMBD && !model_has_lm_head(x);
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

/* ---- pieces of a tensor group ---- */

static uint64_t copies_of(const vx_tensor *t)
{
    uint64_t per = t->n_per_layer > 0 ? (uint64_t)t->n_per_layer : 1;
    return t->n_layers > 0 ? vx_sat_mul((uint64_t)t->n_layers, per) : per;
}

/* The float dtype an unquantized group is held in. */
static int float_dtype(const vx_ctx *x, const vx_tensor *t)
{
    int fd = t->dtype;
    /* Integer and bool tensors (masks, position ids) are never cast. */
    if (fd != VRAMEST_DTYPE_AUTO && !is_castable(fd)) return fd;
    int m = x->rp.quant_method;
    /* Embeddings at another float dtype are an nn.Embedding cast; a
     * quantized embedding only exists in GGUF (gguf_pieces), so anything
     * else falls back to the parameter dtype (and vx_precision_notes says so). */
    if (t->role == VX_ROLE_EMBED && is_float((int)x->pv->embeddings)) return (int)x->pv->embeddings;
    if (m == VX_QM_NONE) {
        int w = vx_policy_weight_dtype(x);
        if (w != VRAMEST_DTYPE_AUTO) return w;
        if (fd != VRAMEST_DTYPE_AUTO) return fd;
        return stored_float(x->s);
    }
    return x->rp.param_dtype;
}

static size_t push(vx_piece *out, size_t n, uint64_t bytes, uint64_t count, int dtype)
{
    if (n < VX_MAX_PIECES && bytes && count) out[n++] = (vx_piece){bytes, count, dtype};
    return n;
}

static size_t quantized_pieces(const vx_ctx *x, const vx_tensor *t, uint64_t copies, vx_piece *out)
{
    const vx_resolved_precision *rp = &x->rp;
    int w = vx_policy_weight_dtype(x);
    uint64_t N = (uint64_t)t->rows, K = (uint64_t)t->cols, E = vx_sat_mul(N, K);
    int64_t g = rp->group_size;
    uint64_t groups = g > 0 ? vx_ceil_div(K, (uint64_t)g) : 1; /* scale rows along in_features */
    int half = rp->compute_dtype == VRAMEST_DTYPE_FP32 ? VRAMEST_DTYPE_FP32 : rp->compute_dtype;
    size_t n = 0;
    switch (rp->quant_method) {
    case VX_QM_BNB:
        if (w == VRAMEST_DTYPE_INT8) {
            /* Int8Params: CB int8 (out, in) + SCB fp32 (out,). */
            n = push(out, n, E, copies, VRAMEST_DTYPE_INT8);
            n = push(out, n, vx_sat_mul(N, 4), copies, VRAMEST_DTYPE_FP32);
        } else {
            uint64_t bs = g > 0 ? (uint64_t)g : 64, blocks = vx_ceil_div(E, bs);
            /* Params4bit: uint8 (ceil(n/2), 1) + absmax per block + the
             * 16-entry fp32 NF4/FP4 code tensor of its QuantState. */
            n = push(out, n, vx_ceil_div(E, 2), copies, VRAMEST_DTYPE_UINT8);
            if (rp->double_quant) {
                /* compress_statistics: absmax - mean quantized blockwise
                 * (blocksize 256) to uint8, with fp32 absmax per 256 blocks
                 * and the fp32 offset; the 256-entry dynamic map is shared. */
                n = push(out, n, blocks, copies, VRAMEST_DTYPE_UINT8);
                n = push(out, n, vx_sat_mul(vx_ceil_div(blocks, 256), 4), copies, VRAMEST_DTYPE_FP32);
                n = push(out, n, 4, copies, VRAMEST_DTYPE_FP32);
            } else {
                n = push(out, n, vx_sat_mul(blocks, 4), copies, VRAMEST_DTYPE_FP32);
            }
            n = push(out, n, 16 * 4, copies, VRAMEST_DTYPE_FP32);
        }
        break;
    case VX_QM_GPTQ: {
        uint64_t bits = w == VRAMEST_DTYPE_INT8 ? 8 : 4;
        /* AutoGPTQ / optimum QuantLinear: qweight int32 (ceil(K/32)*bits, N),
         * qzeros int32 (G, ceil(N/32)*bits), scales fp16 (G, N), g_idx int32 (K)
         * (registered whatever desc_act is, and stored in the checkpoints). */
        n = push(out, n, vx_sat_mul(vx_sat_mul(vx_ceil_div(K, 32), bits), vx_sat_mul(N, 4)), copies,
                 VRAMEST_DTYPE_INT32);
        n = push(out, n, vx_sat_mul(vx_sat_mul(groups, vx_ceil_div(N, 32)), vx_sat_mul(bits, 4)), copies,
                 VRAMEST_DTYPE_INT32);
        n = push(out, n, vx_sat_mul(vx_sat_mul(groups, N), 2), copies, VRAMEST_DTYPE_FP16);
        n = push(out, n, vx_sat_mul(K, 4), copies, VRAMEST_DTYPE_INT32);
        break;
    }
    case VX_QM_AWQ:
        /* AutoAWQ WQLinear_GEMM: qweight int32 (K, N/8), qzeros int32 (G, N/8),
         * scales fp16 (G, N). */
        n = push(out, n, vx_sat_mul(vx_sat_mul(K, vx_ceil_div(N, 8)), 4), copies, VRAMEST_DTYPE_INT32);
        n = push(out, n, vx_sat_mul(vx_sat_mul(groups, vx_ceil_div(N, 8)), 4), copies, VRAMEST_DTYPE_INT32);
        n = push(out, n, vx_sat_mul(vx_sat_mul(groups, N), 2), copies, VRAMEST_DTYPE_FP16);
        break;
    case VX_QM_TORCHAO:
        if (w == VRAMEST_DTYPE_INT4) {
            /* int4_weight_only, TensorCoreTiledLayout: in_features padded to
             * 1024, out_features to 8; packed int32 = Np*Kp/2 bytes; scales
             * and zeros packed as (Kp/g, Np, 2) in the model dtype. */
            uint64_t Np = vx_round_up(N, 8), Kp = vx_round_up(K, 1024);
            uint64_t gs = g > 0 ? (uint64_t)g : 128;
            n = push(out, n, vx_sat_mul(Np, Kp) / 2, copies, VRAMEST_DTYPE_INT32);
            n = push(out, n, vx_sat_mul(vx_sat_mul(vx_ceil_div(Kp, gs), Np), 4), copies, half);
        } else if (w == VRAMEST_DTYPE_INT8) {
            /* int8_weight_only: int8 data, per-row scale in the model dtype
             * and an int64 zero point per row (symmetric, but stored). */
            n = push(out, n, E, copies, VRAMEST_DTYPE_INT8);
            n = push(out, n, vx_sat_mul(vx_sat_mul(N, groups), vx_dtype_size(half)), copies, half);
            n = push(out, n, vx_sat_mul(vx_sat_mul(N, groups), 8), copies, VRAMEST_DTYPE_INT64);
        } else {
            /* float8_weight_only: fp8 data + fp32 scale per row. */
            n = push(out, n, E, copies, w);
            n = push(out, n, vx_sat_mul(vx_sat_mul(N, groups), 4), copies, VRAMEST_DTYPE_FP32);
        }
        break;
    case VX_QM_FP8:
        /* fp8 checkpoints: per-row fp32 scales (fbgemm_fp8, per-channel
         * compressed-tensors), or g x g blocks (DeepSeek-V3 / FineGrainedFP8
         * weight_scale_inv) when a group size is given. */
        n = push(out, n, E, copies, w);
        if (g > 0)
            n = push(out, n, vx_sat_mul(vx_sat_mul(vx_ceil_div(N, (uint64_t)g), groups), 4), copies,
                     VRAMEST_DTYPE_FP32);
        else
            n = push(out, n, vx_sat_mul(N, 4), copies, VRAMEST_DTYPE_FP32);
        break;
    default: break;
    }
    return n;
}

static size_t pieces(const vx_ctx *x, const vx_tensor *t, vx_piece *out, bool *fell)
{
    uint64_t copies = copies_of(t);
    if (t->rows <= 0 || t->cols < 0 || !copies) return 0;
    uint64_t cols = t->cols > 0 ? (uint64_t)t->cols : 1;
    uint64_t elems = vx_sat_mul((uint64_t)t->rows, cols);
    int m = x->rp.quant_method;
    int w = vx_policy_weight_dtype(x);
    int fd = t->dtype;

    /* A tensor already stored quantized or as an integer (a GGUF block, a
     * GPTQ qweight, an fp8 checkpoint's weight) is held as stored unless the
     * policy names a different storage for it. */
    bool stored_quant = fd != VRAMEST_DTYPE_AUTO && !is_float(fd) && fd != GG(T_F32) && fd != GG(T_F16) &&
                        fd != GG(T_BF16);
    if (stored_quant && (w == VRAMEST_DTYPE_AUTO || fd == w || !is_castable(fd))) {
        uint64_t per = vx_dtype_bytes(fd, elems);
        if (t->file_bytes && t->file_bytes / copies * copies == t->file_bytes) per = t->file_bytes / copies;
        return per ? push(out, 0, per, copies, fd) : 0;
    }
    if (m == VX_QM_GGUF) {
        if (w == VRAMEST_DTYPE_AUTO && fd != VRAMEST_DTYPE_AUTO)
            return push(out, 0, vx_dtype_bytes(fd, elems), copies, fd);
        uint64_t layers = t->n_layers > 0 ? (uint64_t)t->n_layers : 1;
        uint64_t per_layer = t->n_per_layer > 0 ? (uint64_t)t->n_per_layer : 1;
        return gguf_pieces(x, t, w, per_layer, layers, out, fell);
    }
    if (method_quantizes(x, t)) return quantized_pieces(x, t, copies, out);
    int d = float_dtype(x, t);
    uint64_t bytes = vx_dtype_bytes(d, elems);
    return push(out, 0, bytes, copies, d);
}

size_t vx_tensor_pieces(const vx_ctx *x, const vx_tensor *t, vx_piece out[VX_MAX_PIECES])
{
    bool fell = false;
    return pieces(x, t, out, &fell);
}

int vx_tensor_quantized(const vx_ctx *x, const vx_tensor *t)
{
    vx_piece p[VX_MAX_PIECES];
    size_t n = vx_tensor_pieces(x, t, p);
    for (size_t i = 0; i < n; i++)
        if (!is_float(p[i].dtype) && p[i].dtype != GG(T_F32) && p[i].dtype != GG(T_F16) && p[i].dtype != GG(T_BF16))
            return t->kind == VX_TK_MATRIX || t->kind == VX_TK_EMBED;
    return 0;
}

int vx_tensor_storage_dtype(const vx_ctx *x, const vx_tensor *t)
{
    vx_piece p[VX_MAX_PIECES];
    size_t n = vx_tensor_pieces(x, t, p);
    if (!n) return float_dtype(x, t);
    if (x->rp.quant_method != VX_QM_GGUF && method_quantizes(x, t)) return vx_policy_weight_dtype(x);
    /* GGUF mixes: the type most layers get. */
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (p[i].count > p[best].count) best = i;
    return p[best].dtype;
}

uint64_t vx_tensor_gpu_bytes(const vx_ctx *x, const vx_tensor *t)
{
    vx_piece p[VX_MAX_PIECES];
    size_t n = vx_tensor_pieces(x, t, p);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum = vx_sat_add(sum, vx_sat_mul(p[i].bytes, p[i].count));
    return sum;
}

/* ---- the inventory of the class the workload asks for ---- */

void vx_tensor_iter_init(vx_tensor_iter *it, const vx_ctx *x)
{
    memset(it, 0, sizeof *it);
    it->inv = x->m->inv;
    it->n = x->m->n_inv;
    int head = vx_head_resolve(x->s, (int)x->cv->head);
    int64_t nl = x->cv->num_labels;
    it->swap_head = head != x->s->default_head || (head == VX_HEAD_SEQ_CLS && nl > 0 && nl != x->s->num_labels);
    if (it->swap_head) {
        size_t n = 0;
        if (vx_head_tensors(x->s, head, nl, it->heads, VX_HEAD_MAX_TENSORS, &n) != VRAMEST_OK) n = 0;
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

uint64_t vx_weights_bytes(const vx_ctx *x)
{
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, x);
    uint64_t sum = 0;
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) sum = vx_sat_add(sum, vx_tensor_gpu_bytes(x, t));
    return sum;
}

/* ---- allocations ---- */

/* What torch.cuda.memory_allocated counts for one fresh request, and the
 * segment it opens (research note §1.2): 512-B rounding; a large request in
 * its own 2 MiB-rounded segment is handed out whole when the remainder is
 * at most 1 MiB (the large pool does not split it). */
static uint64_t alloc_counted(uint64_t b)
{
    uint64_t r = vx_alloc_round(b);
    if (r >= 10 * VX_MIB) {
        uint64_t seg = vx_alloc_segment(r);
        if (seg - r <= VX_MIB) return seg;
    }
    return r;
}

void vx_weights_stats_compute(const vx_ctx *x, int torch_alloc, vx_weights_stats *o)
{
    memset(o, 0, sizeof *o);
    /* Small (<= 1 MiB) and medium (1-10 MiB) requests share 2 / 20 MiB
     * segments: count how full they get, in units of 1/1024 segment. */
    uint64_t small_units = 0, mid_units = 0, large = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, x);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        vx_piece p[VX_MAX_PIECES];
        bool fell = false;
        size_t n = pieces(x, t, p, &fell);
        bool q = x->rp.quant_method != VX_QM_GGUF && method_quantizes(x, t);
        if (q && x->rp.quant_method != VX_QM_GPTQ && x->rp.quant_method != VX_QM_AWQ &&
            x->rp.quant_method != VX_QM_FP8) {
            uint64_t e = vx_sat_mul((uint64_t)t->rows, (uint64_t)t->cols);
            if (e > o->largest_quantized_elems) o->largest_quantized_elems = e;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t tot = vx_sat_mul(p[i].bytes, p[i].count);
            o->exact = vx_sat_add(o->exact, tot);
            o->n_tensors = vx_sat_add(o->n_tensors, p[i].count);
            if (!q && x->rp.quant_method != VX_QM_NONE && x->rp.quant_method != VX_QM_GGUF)
                o->unquantized = vx_sat_add(o->unquantized, tot);
            if (!torch_alloc) continue;
            uint64_t r = vx_alloc_round(p[i].bytes);
            o->allocated = vx_sat_add(o->allocated, vx_sat_mul(alloc_counted(p[i].bytes), p[i].count));
            if (r <= VX_MIB) {
                uint64_t per_seg = (2 * VX_MIB) / r;
                small_units = vx_sat_add(small_units, vx_ceil_div(vx_sat_mul(p[i].count, 1024), per_seg));
            } else if (r < 10 * VX_MIB) {
                uint64_t per_seg = (20 * VX_MIB) / r;
                mid_units = vx_sat_add(mid_units, vx_ceil_div(vx_sat_mul(p[i].count, 1024), per_seg));
            } else {
                large = vx_sat_add(large, vx_sat_mul(vx_alloc_segment(r), p[i].count));
            }
        }
    }
    if (!torch_alloc) {
        o->allocated = o->reserved = o->exact;
        return;
    }
    o->reserved = vx_sat_add(vx_sat_add(vx_sat_mul(vx_ceil_div(small_units, 1024), 2 * VX_MIB),
                                        vx_sat_mul(vx_ceil_div(mid_units, 1024), 20 * VX_MIB)),
                             large);
    if (o->reserved < o->allocated) o->reserved = o->allocated;
}

/* Weights on this rank as the caching allocator counts them, and the slack
 * of the segments they open. */
void vx_rank_weights(const vx_ctx *x, const vx_shard *sh, uint64_t *alloc, uint64_t *exact, uint64_t *slack,
                     uint64_t *largest_q)
{
    vx_weights_stats w;
    vx_weights_stats_get(x, 1, &w);
    *largest_q = w.largest_quantized_elems;
    if (sh->tp == 1 && sh->pp == 1 && sh->ep == 1 && !sh->placement) {
        *alloc = w.allocated, *exact = w.exact, *slack = w.reserved - w.allocated;
        return;
    }
    /* Sharded or placed: the groups this rank keeps. */
    uint64_t sum = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, x);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) sum = vx_sat_add(sum, vx_shard_tensor_bytes(sh, x, t));
    *exact = sum;
    *alloc = sum;
    *slack = w.allocated > w.exact && w.exact
                 ? (uint64_t)((double)(w.allocated - w.exact) * ((double)sum / (double)w.exact))
                 : 0;
}

/* ---- notes ---- */

void vx_precision_notes(const vx_ctx *x, struct vramest_result *r)
{
    int m = x->rp.quant_method;
    int w = vx_policy_weight_dtype(x);
    int emb = (int)x->pv->embeddings;
    if (emb != VRAMEST_DTYPE_AUTO && !is_float(emb) && m != VX_QM_GGUF)
        vx_result_warn(r, "embeddings = %s: only GGUF stores quantized token embeddings; kept at %s", dname(emb),
                       dname(x->rp.param_dtype));
    if (m == VX_QM_NONE) return;
    uint64_t kept = 0, kept_n = 0, fell_n = 0, pad_n = 0, fell_cols = 0, pad_cols = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, x);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        vx_piece p[VX_MAX_PIECES];
        bool fell = false;
        size_t n = pieces(x, t, p, &fell);
        if (fell) fell_n++, fell_cols = (uint64_t)t->cols;
        if (m == VX_QM_GGUF) continue;
        if (method_quantizes(x, t)) {
            int64_t g = x->rp.group_size;
            bool rowwise = m == VX_QM_GPTQ || m == VX_QM_AWQ || (m == VX_QM_TORCHAO && w == VRAMEST_DTYPE_INT4);
            if (rowwise && g > 0 && t->cols % g) pad_n++, pad_cols = (uint64_t)t->cols;
            continue;
        }
        if (t->kind == VX_TK_MATRIX || t->kind == VX_TK_EMBED) {
            for (size_t i = 0; i < n; i++) kept = vx_sat_add(kept, vx_sat_mul(p[i].bytes, p[i].count));
            kept_n++;
        }
    }
    if (kept_n)
        vx_result_warn(r,
                       "%s %s does not quantize embeddings, norms, biases or skipped modules: %llu matrix/embedding "
                       "groups kept at %s (%.1f MiB)",
                       method_name(m), dname(w), (unsigned long long)kept_n, dname(x->rp.param_dtype),
                       (double)kept / (double)VX_MIB);
    if (pad_n)
        vx_result_warn(r,
                       "quant_group_size %lld does not divide in_features %llu of %llu matrix groups: scales padded "
                       "to ceil(in/group) groups",
                       (long long)x->rp.group_size, (unsigned long long)pad_cols, (unsigned long long)pad_n);
    if (fell_n)
        vx_result_warn(r,
                       "GGUF %s: %llu tensor groups with rows of %llu elements are not whole blocks of the chosen "
                       "type and fall back as llama.cpp's tensor_type_fallback does",
                       dname(w), (unsigned long long)fell_n, (unsigned long long)fell_cols);
}
