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
#include "precision/gguf_mix.h"
#include "precision/policy.h"


static bool is_float(int d)
{
    return vx_dtype_plain_float(d);
}

/* A dtype torch would cast with model.to(dtype): floating point, or a GGUF
 * block type (transformers dequantizes GGUF tensors on load). */
static bool is_castable(int d)
{
    if (is_float(d) || d == VRAMEST_DTYPE_FP8_E4M3 || d == VRAMEST_DTYPE_FP8_E5M2) return true;
    if (d == VX_GGML_F32 || d == VX_GGML_F16 || d == VX_GGML_BF16 || d == VX_GGML_F64) return true;
    const vx_dtype_info *i = vx_dtype(d);
    return VX_IS_GGUF_TYPE(d) && i && i->block_elems > 1;
}

static int stored_float(const vx_shape *s)
{
    int d = (int)s->torch_dtype;
    return is_float(d) ? d : VRAMEST_DTYPE_FP32;
}

/* ---- resolution ---- */

static int method_of(int w)
{
    if (VX_IS_GGUF_TYPE(w) || VX_IS_GGUF_MIX(w)) return VX_QM_GGUF;
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
        ok = w == VRAMEST_DTYPE_AUTO || VX_IS_GGUF_TYPE(w) || VX_IS_GGUF_MIX(w) || w == VRAMEST_DTYPE_FP32 ||
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
    if (wi->is_policy && w != VRAMEST_DTYPE_AUTO && !VX_IS_GGUF_MIX(w))
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

int vx_policy_weight_dtype(const vx_policy *pol)
{
    return weights_for(pol->pv, pol->rp.quant_method);
}

void vx_precision_echo(const vx_policy *pol, vx_precision_values *out)
{
    vx_values_copy(out, pol->pv, &vx_precision_layout);
    out->weights = vx_policy_weight_dtype(pol);
    out->compute = pol->rp.compute_dtype;
    out->amp = pol->rp.amp;
    out->master_weights = pol->rp.master_dtype;
    out->gradients = pol->rp.grad_dtype;
    out->optimizer_states = pol->rp.state_dtype;
    out->kv_cache = pol->rp.kv_dtype;
    out->quant_group_size = pol->rp.group_size;
    out->double_quant = pol->rp.double_quant;
    out->quant_method = pol->rp.quant_method;
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
static bool skipped(const vx_policy *pol, const vx_tensor *t)
{
    const char *list = pol->pv->skip_modules;
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

bool vx_policy_loads_as_stored(const vx_policy *pol)
{
    int w = vx_policy_weight_dtype(pol);
    return pol->m && pol->m->ckq.method != VX_CQ_NONE && w != VRAMEST_DTYPE_AUTO && w == vx_ckpt_quant_dtype(&pol->m->ckq);
}

/* Would the method replace this group with a quantized module? A
 * checkpoint loaded as stored has its quantized groups already (their
 * stored dtype, pieces()); transformers' quantizers and vLLM's quant
 * configs quantize nothing else, so the groups it keeps float stay float. */
bool vx_method_quantizes(const vx_policy *pol, const vx_tensor *t)
{
    int m = pol->rp.quant_method;
    if (m == VX_QM_NONE || m == VX_QM_GGUF || vx_policy_loads_as_stored(pol)) return false;
    if (t->kind != VX_TK_MATRIX || t->rows <= 0 || t->cols <= 1) return false;
    /* GPTQ, AWQ and fp8 checkpoints quantize the linears inside the
     * transformer blocks (AutoGPTQ inside_layer_modules); routers stay. */
    if ((m == VX_QM_GPTQ || m == VX_QM_AWQ || m == VX_QM_FP8) &&
        (t->part == VX_PART_GLOBAL || t->role == VX_ROLE_ROUTER))
        return false;
    return !skipped(pol, t);
}

/* ---- pieces of a tensor group ---- */

static uint64_t copies_of(const vx_tensor *t)
{
    uint64_t per = t->n_per_layer > 0 ? (uint64_t)t->n_per_layer : 1;
    return t->n_layers > 0 ? vx_sat_mul((uint64_t)t->n_layers, per) : per;
}

/* The float dtype an unquantized group is held in. */
static int float_dtype(const vx_policy *pol, const vx_tensor *t)
{
    int fd = t->dtype;
    /* Integer and bool tensors (masks, position ids) are never cast. */
    if (fd != VRAMEST_DTYPE_AUTO && !is_castable(fd)) return fd;
    int m = pol->rp.quant_method;
    /* Embeddings at another float dtype are an nn.Embedding cast; a
     * quantized embedding only exists in GGUF (vx_gguf_pieces), so anything
     * else falls back to the parameter dtype (and vx_precision_notes says so). */
    if (t->role == VX_ROLE_EMBED && is_float((int)pol->pv->embeddings)) return (int)pol->pv->embeddings;
    if (vx_policy_loads_as_stored(pol)) return fd != VRAMEST_DTYPE_AUTO ? fd : stored_float(pol->s);
    if (m == VX_QM_NONE) {
        int w = vx_policy_weight_dtype(pol);
        if (w != VRAMEST_DTYPE_AUTO) return w;
        if (fd != VRAMEST_DTYPE_AUTO) return fd;
        return stored_float(pol->s);
    }
    return pol->rp.param_dtype;
}

static size_t push(vx_piece *out, size_t n, uint64_t bytes, uint64_t count, int dtype)
{
    if (n < VX_MAX_PIECES && bytes && count) out[n++] = (vx_piece){bytes, count, dtype};
    return n;
}

static size_t quantized_pieces(const vx_policy *pol, const vx_tensor *t, uint64_t copies, vx_piece *out)
{
    const vx_resolved_precision *rp = &pol->rp;
    int w = vx_policy_weight_dtype(pol);
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

static size_t pieces(const vx_policy *pol, const vx_tensor *t, vx_piece *out, bool *fell)
{
    uint64_t copies = copies_of(t);
    if (t->rows <= 0 || t->cols < 0 || !copies) return 0;
    uint64_t cols = t->cols > 0 ? (uint64_t)t->cols : 1;
    uint64_t elems = vx_sat_mul((uint64_t)t->rows, cols);
    int m = pol->rp.quant_method;
    int w = vx_policy_weight_dtype(pol);
    int fd = t->dtype;

    /* A tensor already stored quantized or as an integer (a GGUF block, a
     * GPTQ qweight, an fp8 checkpoint's weight) is held as stored unless the
     * policy names a different storage for it. */
    bool stored_quant = fd != VRAMEST_DTYPE_AUTO && !is_float(fd) && fd != VX_GGML_F32 && fd != VX_GGML_F16 &&
                        fd != VX_GGML_BF16;
    /* llama.cpp and Ollama hold GGML types only: a checkpoint stored in a
     * format GGML has none for (fp8, compressed-tensors integers) is what
     * convert_hf_to_gguf.py makes of it, the float dtype. */
    if (stored_quant && pol->ggml_only && !VX_IS_GGUF_TYPE(fd) && is_castable(fd) && w == VRAMEST_DTYPE_AUTO) {
        int d = stored_float(pol->s);
        return push(out, 0, vx_dtype_bytes(d, elems), copies, d);
    }
    if (stored_quant && (w == VRAMEST_DTYPE_AUTO || fd == w || !is_castable(fd))) {
        uint64_t per = vx_dtype_bytes(fd, elems);
        if (t->file_bytes && t->file_bytes / copies * copies == t->file_bytes) per = t->file_bytes / copies;
        return per ? push(out, 0, per, copies, fd) : 0;
    }
    if (m == VX_QM_GGUF && !vx_policy_loads_as_stored(pol)) {
        if (w == VRAMEST_DTYPE_AUTO && fd != VRAMEST_DTYPE_AUTO)
            return push(out, 0, vx_dtype_bytes(fd, elems), copies, fd);
        uint64_t layers = t->n_layers > 0 ? (uint64_t)t->n_layers : 1;
        uint64_t per_layer = t->n_per_layer > 0 ? (uint64_t)t->n_per_layer : 1;
        return vx_gguf_pieces(pol, t, w, per_layer, layers, out, fell);
    }
    if (vx_method_quantizes(pol, t)) return quantized_pieces(pol, t, copies, out);
    int d = float_dtype(pol, t);
    uint64_t bytes = vx_dtype_bytes(d, elems);
    return push(out, 0, bytes, copies, d);
}

size_t vx_tensor_pieces(const vx_policy *pol, const vx_tensor *t, vx_piece out[VX_MAX_PIECES])
{
    bool fell = false;
    return pieces(pol, t, out, &fell);
}

size_t vx_tensor_pieces_ex(const vx_policy *pol, const vx_tensor *t, vx_piece out[VX_MAX_PIECES], bool *fell)
{
    return pieces(pol, t, out, fell);
}

int vx_tensor_storage_dtype(const vx_policy *pol, const vx_tensor *t)
{
    vx_piece p[VX_MAX_PIECES];
    size_t n = vx_tensor_pieces(pol, t, p);
    if (!n) return float_dtype(pol, t);
    if (pol->rp.quant_method != VX_QM_GGUF && vx_method_quantizes(pol, t)) return vx_policy_weight_dtype(pol);
    /* GGUF mixes: the type most layers get. */
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (p[i].count > p[best].count) best = i;
    return p[best].dtype;
}

uint64_t vx_tensor_gpu_bytes(const vx_policy *pol, const vx_tensor *t)
{
    vx_piece p[VX_MAX_PIECES];
    size_t n = vx_tensor_pieces(pol, t, p);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum = vx_sat_add(sum, vx_sat_mul(p[i].bytes, p[i].count));
    return sum;
}

/* ---- notes ---- */

int vx_precision_notes(const vx_policy *pol, char notes[VX_POLICY_NOTES][VX_POLICY_NOTE_LEN])
{
    int nn = 0;
    int m = pol->rp.quant_method;
    int w = vx_policy_weight_dtype(pol);
    int emb = (int)pol->pv->embeddings;
    if (emb != VRAMEST_DTYPE_AUTO && !is_float(emb) && m != VX_QM_GGUF)
        snprintf(notes[nn++], VX_POLICY_NOTE_LEN,
                 "embeddings = %s: only GGUF stores quantized token embeddings; kept at %s", dname(emb),
                 dname(pol->rp.param_dtype));
    if (m == VX_QM_NONE || vx_policy_loads_as_stored(pol)) return nn; /* the file's own split */
    uint64_t kept = 0, kept_n = 0, fell_n = 0, pad_n = 0, fell_cols = 0, pad_cols = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        vx_piece p[VX_MAX_PIECES];
        bool fell = false;
        size_t n = pieces(pol, t, p, &fell);
        if (fell) fell_n++, fell_cols = (uint64_t)t->cols;
        if (m == VX_QM_GGUF) continue;
        if (vx_method_quantizes(pol, t)) {
            int64_t g = pol->rp.group_size;
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
        snprintf(notes[nn++], VX_POLICY_NOTE_LEN,
                 "%s %s does not quantize embeddings, norms, biases or skipped modules: %llu matrix/embedding "
                 "groups kept at %s (%.1f MiB)",
                 method_name(m), dname(w), (unsigned long long)kept_n, dname(pol->rp.param_dtype),
                 (double)kept / (double)VX_MIB);
    if (pad_n)
        snprintf(notes[nn++], VX_POLICY_NOTE_LEN,
                 "quant_group_size %lld does not divide in_features %llu of %llu matrix groups: scales padded "
                 "to ceil(in/group) groups",
                 (long long)pol->rp.group_size, (unsigned long long)pad_cols, (unsigned long long)pad_n);
    if (fell_n)
        snprintf(notes[nn++], VX_POLICY_NOTE_LEN,
                 "GGUF %s: %llu tensor groups with rows of %llu elements are not whole blocks of the chosen "
                 "type and fall back as llama.cpp's tensor_type_fallback does",
                 dname(w), (unsigned long long)fell_n, (unsigned long long)fell_cols);
    return nn;
}
