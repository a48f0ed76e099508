/* The KV cache: its layout per token and per layer, from the shape of the
 * model and the runtime that holds it, and its bytes in closed form.
 *
 * Decisions (docs/methodology.md, "Inference and serving"):
 * - K and V per token per layer: kv_heads x head_dim each (MHA, GQA, MQA:
 *   the cache is filled before repeat_kv, so GQA shrinks it).
 * - MLA (DeepSeek-V2/V3): vLLM/SGLang cache one latent of kv_lora_rank +
 *   qk_rope_head_dim per token, replicated on every TP rank; llama.cpp
 *   (since its MLA path) a latent K of kv_lora_rank + rope and a V of
 *   kv_lora_rank; transformers' DeepseekV2Attention decompresses and caches
 *   full per-head K (nope + rope) and V (v_head_dim).
 * - Sliding windows: transformers' DynamicCache keeps every token (the
 *   window is a mask), except Gemma 2/3, whose generate() uses a
 *   HybridCache: sliding layers hold `window` tokens, preallocated; vLLM
 *   keeps the window per layer; llama.cpp has a SWA cache only for the
 *   architectures it marks SWA (Gemma 2/3), not for Mistral (converted to
 *   the llama architecture). A window larger than the context is simply
 *   the context (min), not an error.
 * - transformers >= 4.56 builds generate()'s DynamicCache from the config:
 *   sliding and chunked layers (gpt-oss, Llama 4: the family's
 *   swa_dynamic) keep only their window, growing, not preallocated.
 * - DeepSeek sparse attention (DeepSeek-V3.2, GLM-5): a layer with an
 *   indexer also caches its one index_head_dim key per token: in the
 *   compute dtype in transformers (update_indexer), as fp8 plus an fp32
 *   scale per 128 values in vLLM (DeepseekV32IndexerCache: 132 bytes for
 *   128), f16 in llama.cpp (assumed: not read in its code). An fp8 cache
 *   of these models is FlashMLA's fp8_ds_mla in vLLM and SGLang: the latent
 *   in fp8 plus an fp32 scale per 128 and the rope part in bf16 (656 bytes
 *   a token-layer for DeepSeek-V3.2; vllm/v1/attention/backends/mla/
 *   flashmla_sparse.py, where "fp8" is its alias).
 * - Encoder-decoder: the decoder's self-attention cache grows with the
 *   generated tokens; its cross-attention cache holds the encoder length.
 * - dtypes: plain element sizes; GGUF block types (q8_0, q4_0, ...) by
 *   blocks; transformers' QuantizedCache (int8/int4) adds one scale and one
 *   zero point per group of 64 in the compute dtype and keeps a residual of
 *   up to 128 recent tokens unquantized.
 * - KV-shared layers (Gemma 4 E2B/E4B) keep no cache of their own.
 * - Recurrent layers (Mamba, gated DeltaNet) keep no per-token cache: their
 *   per-sequence state is sized in state_cache.c. */
#include <stddef.h>
#include <string.h>

#include "estimate/infer/infer.h"

/* transformers QuantizedCacheConfig defaults. */
#define HF_QCACHE_GROUP 64
#define HF_QCACHE_RESIDUAL 128

static const char *dname(int d)
{
    const char *n = vramest_dtype_name(d);
    return n ? n : "?";
}

static bool is_gguf(int d)
{
    return d >= 100 && d < 300;
}

/* The KV dtype each runtime can hold, or an error naming what it accepts. */
static int check_dtype(const vx_ctx *x, int fw, int *dtype, int *hf_quant)
{
    int d = *dtype;
    *hf_quant = 0;
    if (d == VRAMEST_DTYPE_NF4 || d == VRAMEST_DTYPE_FP4)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "precision kv_cache '%s': bitsandbytes 4-bit is a weight format; no runtime stores a KV cache "
                       "in it (use int4/int8 with framework pytorch, fp8 with vllm, q4_0/q8_0 with llama.cpp)",
                       dname(d));
    switch (fw) {
    case VX_ENGINE_VLLM:
        if (d == VRAMEST_DTYPE_FP16 || d == VRAMEST_DTYPE_BF16 || d == VRAMEST_DTYPE_FP32 ||
            d == VRAMEST_DTYPE_FP8_E4M3 || d == VRAMEST_DTYPE_FP8_E5M2)
            return VRAMEST_OK;
        return vx_fail(
            VRAMEST_E_UNSUPPORTED,
            "precision kv_cache '%s' with framework vllm: vLLM's kv_cache_dtype takes auto (the model dtype), "
            "fp8, fp8_e4m3 or fp8_e5m2",
            dname(d));
    case VX_ENGINE_LLAMACPP: {
        /* llama.cpp --cache-type-k/-v: f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1. */
        static const int ok[] = {100, 101, 130, 108, 102, 103, 120, 106, 107};
        if (d == VRAMEST_DTYPE_FP32)
            d = 100;
        else if (d == VRAMEST_DTYPE_FP16)
            d = 101;
        else if (d == VRAMEST_DTYPE_BF16)
            d = 130;
        bool found = false;
        for (size_t i = 0; i < VX_ARRAY_LEN(ok); i++) found |= ok[i] == d;
        if (!found)
            return vx_fail(VRAMEST_E_UNSUPPORTED,
                           "precision kv_cache '%s' with framework llama.cpp: its cache types are f32, f16, bf16, "
                           "q8_0, q4_0, q4_1, iq4_nl, q5_0 and q5_1",
                           dname(*dtype));
        /* A quantized V cache needs flash attention: llama.cpp refuses to
         * create the context without it ("quantized V cache requires
         * flash_attn"); Ollama's runner silently keeps f16 instead. */
        if (d != 100 && d != 101 && d != 130 && !vx_ggml_flash_attn(x)) {
            if (x->rt.engine == VX_ENGINE_OLLAMA) {
                vx_result_warn(x->r,
                               "OLLAMA_KV_CACHE_TYPE %s takes effect only with flash attention: the cache stays f16",
                               dname(*dtype));
                d = 101;
            } else {
                return vx_fail(VRAMEST_E_CONFLICT,
                               "precision kv_cache '%s' with framework llama.cpp quantizes the V cache, which needs "
                               "flash attention: set workload attention 'flash' (-fa on)%s",
                               dname(*dtype),
                               x->rt.fa_default ? "" : "; builds before b6343 default to -fa off");
            }
        }
        *dtype = d;
        return VRAMEST_OK;
    }
    default:
        if (d == VRAMEST_DTYPE_FP16 || d == VRAMEST_DTYPE_BF16 || d == VRAMEST_DTYPE_FP32) return VRAMEST_OK;
        if (d == VRAMEST_DTYPE_INT8 || d == VRAMEST_DTYPE_INT4) {
            *hf_quant = 1;
            return VRAMEST_OK;
        }
        if (is_gguf(d) || d == VRAMEST_DTYPE_FP8_E4M3 || d == VRAMEST_DTYPE_FP8_E5M2)
            return vx_fail(
                VRAMEST_E_UNSUPPORTED,
                "precision kv_cache '%s' with framework pytorch: transformers caches hold fp32/fp16/bf16, or "
                "int8/int4 through QuantizedCache (fp8 KV needs framework vllm, GGUF types llama.cpp)",
                dname(d));
        return vx_fail(VRAMEST_E_UNSUPPORTED, "precision kv_cache '%s' is not a KV-cache dtype", dname(d));
    }
}

int vx_kv_layout_resolve(const vx_ctx *x, const vx_shard *sh, vx_kv_layout *out)
{
    const vx_shape *s = x->pol.s;
    memset(out, 0, offsetof(vx_kv_layout, grp)); /* groups are written as they are found */
    out->state_layers = 0, out->conv_elems = out->rec_elems = 0, out->conv_bytes = out->rec_bytes = 0;
    out->engine = x->rt.kv_engine;
    int d = x->pol.rp.kv_dtype;
    /* llama.cpp's default cache type is f16 whatever the weights are. */
    if (out->engine == VX_ENGINE_LLAMACPP && x->pol.pv->kv_cache == VRAMEST_DTYPE_AUTO) d = VRAMEST_DTYPE_FP16;
    int rc = check_dtype(x, out->engine, &d, &out->hf_quantized);
    if (rc) return rc;
    out->dtype = d;
    out->residual_dtype = x->pol.rp.compute_dtype;
    const vx_dtype_info *di = vx_dtype(d);
    if (!di || di->is_policy || !di->block_elems)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "precision kv_cache '%s' is not a storage dtype", dname(d));
    out->blk_elems = di->block_elems, out->blk_bytes = di->block_bytes;
    out->residual_bytes = vx_dtype_size(out->residual_dtype);
    if (!out->residual_bytes) out->residual_bytes = 2;
    if (s->encoder_only) return VRAMEST_OK; /* no cache: bidirectional encoders never generate */

    /* A device_map's first GPU also runs the CPU-placed layers, whose cache
     * it holds (accelerate's offload hooks). */
    int64_t n = sh->exec_layers > 0 ? sh->exec_layers : sh->stage_layers;
    const vx_layers *L = &x->pol.m->layers;
    int64_t total = L->stack[VX_STACK_DEC].layers, first = sh->first_layer;
    if (first + n > total) first = total > n ? total - n : 0;
    vx_tally t;
    vx_layers_tally(L, VX_STACK_DEC, first, n, &t);
    bool windowed = false;
    for (int k = 0; k < L->n_kinds; k++) windowed |= L->kind[k].span != VX_SPAN_FULL && L->kind[k].window > 0;
    /* The window is a mask in transformers' DynamicCache; a HybridCache
     * (the family's swa_cache) and vLLM keep only the window. */
    bool caps = out->engine == VX_ENGINE_VLLM || s->fam->swa_cache || s->fam->swa_dynamic;
    int64_t kvh0 = sh->kv_heads_rank > 0 ? sh->kv_heads_rank : 1;
    for (int k = 0; k < L->n_kinds; k++) {
        if (!t.count[k]) continue;
        const vx_layer_kind *kk = &L->kind[k];
        if (kk->mixer == VX_MIX_SSM || kk->mixer == VX_MIX_LINEAR || kk->ssm_par) out->state_layers += t.count[k];
        if (kk->mixer != VX_MIX_ATTN && kk->mixer != VX_MIX_MLA) continue;
        /* KV-shared layers (Gemma 4 E2B/E4B) read another layer's entries:
         * transformers' DynamicCache(config) has no layer for them
         * (layer_types[:-num_kv_shared_layers]), vLLM's Attention with a
         * kv_sharing_target_layer_name allocates none */
        if (kk->kv_shared) {
            out->shared_layers += t.count[k];
            continue;
        }
        vx_kv_group g = {.layers = t.count[k]};
        uint64_t ds_mla = 0;
        /* a kind's KV heads on this rank: the model's split, scaled */
        int64_t kvh = kk->kv_heads == s->kv_heads ? kvh0 : (kk->kv_heads * kvh0 + s->kv_heads - 1) / s->kv_heads;
        if (kk->mixer == VX_MIX_MLA) {
            switch (out->engine) {
            case VX_ENGINE_VLLM:
                out->mla_latent = 1;
                g.k_elems = (uint64_t)(s->kv_lora_rank + s->rope_dim);
                /* Sparse MLA's fp8 cache is FlashMLA's fp8_ds_mla record: the
                 * latent in e4m3 with an fp32 scale per 128, the rope part
                 * in bf16 (656 bytes for DeepSeek-V3.2) */
                if (s->fam->dsa && (out->dtype == VRAMEST_DTYPE_FP8_E4M3 || out->dtype == VRAMEST_DTYPE_FP8_E5M2)) {
                    g.k_elems = (uint64_t)s->kv_lora_rank;
                    ds_mla = vx_ceil_div((uint64_t)s->kv_lora_rank, 128) * 4 + (uint64_t)s->rope_dim * 2;
                }
                break;
            case VX_ENGINE_LLAMACPP:
                if (x->rt.mla_uncompressed) goto per_head;
                out->mla_latent = 1;
                g.k_elems = (uint64_t)(s->kv_lora_rank + s->rope_dim);
                g.v_elems = (uint64_t)s->kv_lora_rank;
                break;
            default:
            per_head: {
                int64_t h = sh->heads_rank > 0 ? sh->heads_rank : s->heads;
                g.k_elems = (uint64_t)(h * (s->nope_dim + s->rope_dim));
                g.v_elems = (uint64_t)(h * (s->v_head_dim > 0 ? s->v_head_dim : kk->head_dim));
            }
            }
        } else {
            g.k_elems = g.v_elems = (uint64_t)(kvh * kk->head_dim);
        }
        if (caps && kk->span != VX_SPAN_FULL && kk->window > 0) g.window = kk->window;
        if (kk->index_head_dim > 0) {
            uint64_t id = (uint64_t)kk->index_head_dim;
            g.idx_bytes = out->engine == VX_ENGINE_VLLM ? id + vx_ceil_div(id, 128) * 4
                          : out->engine == VX_ENGINE_LLAMACPP ? id * 2
                                                              : id * vx_dtype_size(x->pol.rp.compute_dtype);
        }
        g.idx_bytes += ds_mla;
        int j = 0;
        while (j < out->n_grp && (out->grp[j].k_elems != g.k_elems || out->grp[j].v_elems != g.v_elems ||
                                  out->grp[j].window != g.window || out->grp[j].idx_bytes != g.idx_bytes))
            j++;
        if (j == out->n_grp) out->grp[out->n_grp++] = (vx_kv_group){.k_elems = g.k_elems, .v_elems = g.v_elems,
                                                                    .window = g.window, .idx_bytes = g.idx_bytes};
        out->grp[j].layers += g.layers;
        out->layers += g.layers;
        if (g.window) {
            out->window_layers += g.layers;
            out->window = g.window > out->window ? g.window : out->window;
        }
        if (g.k_elems + g.v_elems > out->k_elems + out->v_elems) out->k_elems = g.k_elems, out->v_elems = g.v_elems;
    }
    if (out->state_layers) vx_state_layout(x, sh, out);
    if (s->enc_dec) out->xk_elems = out->xv_elems = (uint64_t)(kvh0 * s->head_dim);
    /* transformers' generate() builds a HybridCache for these families:
     * allocated before prefill at its final size. */
    if (out->engine == VX_ENGINE_HF && s->fam->swa_cache && windowed) out->static_cache = 1;
    return VRAMEST_OK;
}

/* Bytes of `elems` cache elements in one tensor. */
static uint64_t elem_bytes(const vx_kv_layout *kl, uint64_t elems, uint64_t tokens, uint64_t per_token_elems,
                           uint64_t seqs)
{
    if (!elems) return 0;
    uint64_t b = kl->blk_elems == 1 ? vx_sat_mul(elems, kl->blk_bytes)
                                    : vx_sat_mul(vx_ceil_div(elems, kl->blk_elems), kl->blk_bytes);
    if (kl->hf_quantized) {
        unsigned rb = kl->residual_bytes;
        uint64_t groups = vx_ceil_div(elems, HF_QCACHE_GROUP);
        uint64_t resid = vx_sat_mul(vx_sat_mul(seqs, vx_min_u64(tokens, HF_QCACHE_RESIDUAL)), per_token_elems);
        b = vx_sat_add(b, vx_sat_mul(groups, 2u * rb));
        b = vx_sat_add(b, vx_sat_mul(resid, rb));
    }
    return b;
}

static uint64_t tensor_bytes(const vx_kv_layout *kl, uint64_t seqs, uint64_t tokens, uint64_t per_tok, int round)
{
    if (!per_tok || !tokens || !seqs) return 0;
    uint64_t e = vx_sat_mul(vx_sat_mul(seqs, tokens), per_tok);
    uint64_t b = elem_bytes(kl, e, tokens, per_tok, seqs);
    return round ? vx_alloc_round(b) : b;
}

/* The indexer keys of one layer: plain bytes, never quantized like the KV. */
static uint64_t index_bytes(const vx_kv_group *g, uint64_t seqs, uint64_t tokens, int round)
{
    if (!g->idx_bytes || !tokens || !seqs) return 0;
    uint64_t b = vx_sat_mul(vx_sat_mul(seqs, tokens), g->idx_bytes);
    return round ? vx_alloc_round(b) : b;
}

static uint64_t layer_bytes(const vx_kv_layout *kl, const vx_kv_group *g, uint64_t seqs, uint64_t tokens, uint64_t enc,
                            int round)
{
    uint64_t b = vx_sat_add(tensor_bytes(kl, seqs, tokens, g->k_elems, round),
                            tensor_bytes(kl, seqs, tokens, g->v_elems, round));
    b = vx_sat_add(b, tensor_bytes(kl, seqs, enc, kl->xk_elems, round));
    return vx_sat_add(b, tensor_bytes(kl, seqs, enc, kl->xv_elems, round));
}

uint64_t vx_kv_cache_bytes(const vx_kv_layout *kl, uint64_t seqs, uint64_t tokens, uint64_t enc_tokens, int torch_round)
{
    uint64_t b = 0;
    for (int i = 0; i < kl->n_grp; i++) {
        const vx_kv_group *g = &kl->grp[i];
        uint64_t t = g->window > 0 ? vx_min_u64(tokens, (uint64_t)g->window) : tokens;
        b = vx_sat_add(b, vx_sat_mul((uint64_t)g->layers, layer_bytes(kl, g, seqs, t, enc_tokens, torch_round)));
        b = vx_sat_add(b, vx_sat_mul((uint64_t)g->layers, index_bytes(g, seqs, tokens, torch_round)));
    }
    return b;
}

uint64_t vx_kv_layer_tensor_bytes(const vx_kv_layout *kl, uint64_t seqs, uint64_t tokens)
{
    if (kl->layers <= 0) return 0;
    return vx_alloc_round(
        vx_max_u64(tensor_bytes(kl, seqs, tokens, kl->k_elems, 0), tensor_bytes(kl, seqs, tokens, kl->v_elems, 0)));
}

uint64_t vx_kv_layer_token_bytes(const vx_kv_layout *kl)
{
    return vx_sat_add(vx_kv_elems_bytes(kl, kl->k_elems), vx_kv_elems_bytes(kl, kl->v_elems));
}

uint64_t vx_kv_elems_bytes(const vx_kv_layout *kl, uint64_t elems)
{
    if (!elems || !kl->blk_elems) return 0;
    return kl->blk_elems == 1 ? vx_sat_mul(elems, kl->blk_bytes)
                              : vx_sat_mul(vx_ceil_div(elems, kl->blk_elems), kl->blk_bytes);
}

uint64_t vx_kv_token_bytes(const vx_kv_layout *kl)
{
    uint64_t b = 0;
    for (int i = 0; i < kl->n_grp; i++) {
        const vx_kv_group *g = &kl->grp[i];
        uint64_t per = vx_sat_add(vx_kv_elems_bytes(kl, g->k_elems), vx_kv_elems_bytes(kl, g->v_elems));
        b = vx_sat_add(b, vx_sat_mul((uint64_t)g->layers, vx_sat_add(per, g->idx_bytes)));
    }
    return b;
}
