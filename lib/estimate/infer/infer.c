/* Inference estimator (issue #6): the Hugging Face generate() timeline for
 * the PyTorch frameworks, and the dispatch to the serving engines (vLLM,
 * llama.cpp), which size their memory their own way.
 *
 * generate() has two candidate peaks (docs/methodology.md, "Inference and
 * serving"):
 * - prefill: weights + the cache of the prompt + the largest stage of the
 *   prompt's forward (eager attention scores, the MLP, or the logits of
 *   every prompt position with their fp32 upcast);
 * - decode at full length: weights + the cache of prompt + gen - 1 tokens
 *   plus its update transient (a DynamicCache torch.cat holds old and new
 *   of one layer; legacy tuple caches hold the whole old cache while the new
 *   one is built) + one token's forward.
 * The peak phase is the larger; categories are the breakdown at it. Both are
 * non-decreasing in batch_size, beams, prompt_len and gen_len, so a solver
 * can bisect on any of them. */
#include "estimate/cache/progcache.h"
#include "estimate/infer/infer.h"
#include "estimate/step/images.h"

uint64_t vx_infer_prompt_len(const vx_config_values *cv)
{
    return (uint64_t)(cv->prompt_len > 0 ? cv->prompt_len : cv->seq_len);
}

/* The prompt's cache right after prefill. Before transformers 4.56, GPT-2 /
 * GPT-BigCode cache views of the fused c_attn output, and GPT-NeoX / Phi-3 /
 * ChatGLM / InternLM2 / Baichuan a view for V (K is rotated into a new
 * tensor), so each layer's whole q|k|v output (its query heads included)
 * stays pinned until the first decode step copies the cache (harness
 * README: GPT-2 prefill cache +50%). The plan says so: the kv_cache then
 * exceeds K and V of the key/value heads. */
static uint64_t prefill_cache(const vx_ctx *x, const vx_shard *sh, const vx_kv_layout *kl, uint64_t seqs,
                              uint64_t tokens)
{
    const vx_shape *s = x->pol.s;
    uint64_t normal = vx_kv_cache_bytes(kl, seqs, tokens, 0, 1);
    if (kl->hf_quantized || kl->static_cache || kl->mla_latent || kl->layers <= 0) return normal;
    if (!x->rt.cache_views) return normal; /* transformers >= 4.56 copies (runtime.c) */
    uint64_t qd = (uint64_t)(sh->heads_rank * s->head_dim), kvd = kl->k_elems;
    uint64_t row;
    switch (s->fam->prefill_pin) {
    case VX_PIN_QKV: row = qd + 2 * kvd; break;
    case VX_PIN_QKV_V: row = qd + 3 * kvd; break;
    default: return normal;
    }
    uint64_t A = kl->blk_elems == 1 ? kl->blk_bytes : 2;
    uint64_t per_layer = vx_alloc_round(vx_sat_mul(vx_sat_mul(seqs, tokens), vx_sat_mul(row, A)));
    uint64_t pinned = vx_sat_mul((uint64_t)kl->layers, per_layer);
    if (pinned > normal)
        vx_result_warn(x->r,
                       "kv_cache after prefill: %.2f GiB, not the %.2f GiB of K and V of %lld key/value heads: the "
                       "cache holds views of each layer's fused q|k|v output until the first decode step copies it "
                       "(transformers < 4.56; later releases copy at once)",
                       (double)pinned / (1024.0 * 1024.0 * 1024.0), (double)normal / (1024.0 * 1024.0 * 1024.0),
                       (long long)(s->kv_heads > 0 ? s->kv_heads : s->heads));
    return vx_max_u64(normal, pinned);
}

typedef struct phase_mem {
    uint64_t cache, act, logits; /* at the phase's peak */
    uint64_t state;              /* recurrent layers' per-sequence state */
    uint64_t logits_low;         /* logits with transformers >= 4.45 (logits_to_keep = 1, no upcast) */
    uint64_t total;
} phase_mem;

/* Stage maximum of a forward; the logits stage is reported apart. */
static void stage_peak(const vx_fwd_terms *f, phase_mem *pm)
{
    uint64_t body = vx_max_u64(f->attn, f->mlp);
    if (f->logits > body) {
        pm->act = f->resident;
        pm->logits = f->logits;
    } else {
        pm->act = vx_sat_add(f->resident, body);
        pm->logits = 0;
    }
}

static uint64_t phase_total(const phase_mem *pm)
{
    return vx_sat_add(vx_sat_add(vx_sat_add(pm->cache, pm->state), pm->act), pm->logits);
}

/* LoRA weights attached for inference: PeftModel keeps lora_A (r x in) and
 * lora_B (out x r) beside every targeted matrix, upcast to fp32 by default
 * (autocast_adapter_dtype). Target matching is peft.c's, shared with
 * training. Prefix tuning and freezing change nothing at inference. */
static int adapter_bytes(vx_ctx *x, uint64_t *out)
{
    *out = 0;
    int ft = (int)x->cv->finetune;
    if (ft == VX_FT_PREFIX) {
        /* PEFT's PrefixEncoder: (virtual tokens, layers x 2 x kv dim) fp32,
         * as static_terms.c counts it for training. */
        const vx_shape *s = x->pol.s;
        uint64_t kvd = (uint64_t)((s->kv_heads > 0 ? s->kv_heads : s->heads) * s->head_dim);
        uint64_t L = (uint64_t)(s->layers + s->enc_layers);
        *out = vx_alloc_round(vx_sat_mul(vx_sat_mul((uint64_t)x->cv->prefix_len, L), vx_sat_mul(2 * kvd, 4)));
        return VRAMEST_OK;
    }
    if (ft != VX_FT_LORA && ft != VX_FT_QLORA) return VRAMEST_OK;
    int rc = vx_lora_check(x);
    if (rc) return rc;
    uint64_t r = (uint64_t)x->cv->lora_rank, sum = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        if (!vx_lora_targets(x, t) || t->rows <= 0 || t->cols <= 0) continue;
        uint64_t copies = vx_tensor_elems(t) / vx_sat_mul((uint64_t)t->rows, (uint64_t)t->cols);
        uint64_t one = vx_sat_add(vx_alloc_round(vx_sat_mul(vx_sat_mul(r, (uint64_t)t->cols), 4)),
                                  vx_alloc_round(vx_sat_mul(vx_sat_mul(r, (uint64_t)t->rows), 4)));
        sum = vx_sat_add(sum, vx_sat_mul(copies, one));
    }
    *out = sum;
    return VRAMEST_OK;
}

/* The note of a default that decided the prompt's logits. */
static void resolved_generate(vx_ctx *x)
{
    static const char *const kernels[] = {"eager", "sdpa", "flash_attention_2"};
    struct vramest_result *r = x->r;
    const vx_runtime *rt = &x->rt;
    int a = (int)x->cv->attention;
    r->rrt.attention = a >= 0 && a < 3 ? kernels[a] : NULL;
    if (r->rrt.n_notes || !rt->hf_code || !(rt->defaulted & VX_RTV_TRANSFORMERS)) return;
    char v[24];
    vx_version_format(rt->transformers, vx_transformers_versions.form, v, sizeof v);
    if (vx_gen_keeps_last_logits(x))
        vx_result_note(r, "logits: transformers %s (the default) keeps only the last position in generate(); <= 4.44 "
                          "computed every prompt position (runtime.transformers_version)",
                       v);
}

static int hf_generate(vx_ctx *x, const vx_shard *sh)
{
    const vx_shape *s = x->pol.s;
    const vx_config_values *cv = x->cv;
    struct vramest_result *r = x->r;
    resolved_generate(x);
    vx_kv_layout kl;
    int rc = vx_kv_layout_resolve(x, sh, &kl);
    if (rc) return rc;

    uint64_t beams = (uint64_t)(cv->beams > 0 ? cv->beams : 1);
    uint64_t seqs = vx_sat_mul((uint64_t)cv->batch_size, beams);
    uint64_t P = vx_infer_prompt_len(cv), G = (uint64_t)cv->gen_len;
    bool use_cache = cv->kv_cache != 0;
    /* Prefix tuning hands every layer prefix_len virtual K/V as the initial
     * past_key_values: the cache starts that long (and is concatenated, so
     * nothing stays pinned). */
    uint64_t pfx = cv->finetune == VX_FT_PREFIX ? (uint64_t)cv->prefix_len : 0;
    int head = vx_head_resolve(s, (int)cv->head);
    bool generative = !s->encoder_only && (head == VX_HEAD_CAUSAL_LM || head == VX_HEAD_SEQ2SEQ_LM);
    if (!generative && G > 0)
        vx_result_warn(r, "gen_len %llu ignored: the %s head runs one forward pass, it does not generate",
                       (unsigned long long)G, s->encoder_only ? "encoder's" : "selected");
    if (!generative) G = 0;
    uint64_t ctx_len = s->enc_dec ? P : P + (G ? G - 1 : 0);
    if (s->max_pos > 0 && (s->enc_dec ? vx_max_u64(P, G) : ctx_len) > (uint64_t)s->max_pos)
        vx_result_warn(r,
                       "%llu tokens exceed the model's max_position_embeddings %lld: quality degrades (memory is "
                       "estimated as asked)",
                       (unsigned long long)(s->enc_dec ? vx_max_u64(P, G) : ctx_len), (long long)s->max_pos);

    uint64_t w_alloc, w_exact, w_slack, largest_q;
    vx_weights_stats wst;
    vx_weights_stats_get(x, 1, &wst);
    vx_rank_weights(x, sh, &wst, &w_alloc, &w_exact, &w_slack, &largest_q);
    uint64_t buffers = vx_hf_mask_buffer_bytes(x);
    uint64_t adapter;
    if ((rc = adapter_bytes(x, &adapter))) return rc;
    uint64_t ws = vx_cublas_workspace_bytes(x);
    unsigned A = vx_dtype_size(x->pol.rp.compute_dtype);
    if (!A) A = 2;
    /* bitsandbytes 4-bit (<= 0.49): a matmul over more than one token runs
     * linear(A, dequantize_4bit(W).to(A.dtype)), a full copy of the weight;
     * single-token decoding uses gemv_4bit without one. */
    uint64_t dequant = 0;
    if (x->pol.rp.quant_method == VX_QM_BNB && vx_policy_weight_dtype(&x->pol) != VRAMEST_DTYPE_INT8)
        dequant = vx_alloc_round(vx_sat_mul(largest_q, A));

    phase_mem pre = {0}, dec = {0};
    bool has_dec = false;
    vx_fwd_terms f;
    if (s->encoder_only || !generative) {
        vx_fwd_args a = {.seqs = seqs, .q = P, .kv = P, .all_logits = 1, .dequant = dequant};
        vx_fwd_infer_terms(x, sh, &a, &f);
        stage_peak(&f, &pre);
        pre.logits_low = pre.logits;
        /* A decoder's forward returns past_key_values (use_cache defaults to
         * true in the configs) whatever head sits on top. */
        if (use_cache && !s->encoder_only && !s->enc_dec)
            pre.cache = pfx ? vx_kv_cache_bytes(&kl, seqs, P + pfx, 0, 1) : prefill_cache(x, sh, &kl, seqs, P);
    } else if (s->enc_dec) {
        /* Encoder pass, then the decoder's first step fills the cross cache;
         * the encoder output stays referenced through generation. */
        uint64_t enc_out = vx_sat_mul(vx_sat_mul(seqs, P), vx_sat_mul((uint64_t)s->hidden, A));
        vx_fwd_args ea = {.seqs = seqs, .q = P, .kv = P, .encoder = 1, .dequant = dequant};
        vx_fwd_infer_terms(x, sh, &ea, &f);
        phase_mem enc = {0};
        stage_peak(&f, &enc);
        vx_fwd_args da = {
            .seqs = seqs, .q = 1, .kv = vx_max_u64(P, 1), .all_logits = 1, .beams = (int)beams, .dequant = dequant};
        vx_fwd_terms fd;
        vx_fwd_infer_terms(x, sh, &da, &fd);
        phase_mem first = {0};
        first.cache = use_cache ? vx_kv_cache_bytes(&kl, seqs, 1, P, 1) : 0;
        stage_peak(&fd, &first);
        first.act = vx_sat_add(first.act, enc_out);
        pre = phase_total(&enc) >= phase_total(&first) ? enc : first;
        pre.logits_low = pre.logits;
        if (G >= 2) {
            has_dec = true;
            uint64_t S = G;
            vx_fwd_args a = {.seqs = seqs,
                             .q = use_cache ? 1 : S,
                             .kv = vx_max_u64(S, P),
                             .all_logits = 1,
                             .beams = (int)beams,
                             .dequant = dequant};
            vx_fwd_infer_terms(x, sh, &a, &fd);
            stage_peak(&fd, &dec);
            dec.act = vx_sat_add(dec.act, enc_out);
            if (use_cache) {
                dec.cache = vx_kv_cache_bytes(&kl, seqs, S, P, 1);
                if ((x->rt.tuple_cache && vx_hf_legacy_cache(s)))
                    dec.cache = vx_sat_add(dec.cache, vx_kv_cache_bytes(&kl, seqs, S - 1, 0, 1));
                else
                    dec.cache = vx_sat_add(dec.cache, vx_kv_layer_tensor_bytes(&kl, seqs, S - 1));
            }
            dec.logits_low = dec.logits;
        }
    } else {
        /* Decoder-only. Without a cache every step re-runs the whole
         * sequence: the longest one is the last. */
        uint64_t q0 = use_cache ? P : ctx_len;
        vx_fwd_args a = {.seqs = seqs,
                         .q = q0,
                         .kv = q0 + pfx,
                         .all_logits = !vx_gen_keeps_last_logits(x),
                         .beams = (int)beams,
                         .dequant = dequant};
        vx_fwd_infer_terms(x, sh, &a, &f);
        stage_peak(&f, &pre);
        if (use_cache)
            pre.cache = kl.static_cache ? vx_kv_cache_bytes(&kl, seqs, P + G + pfx, 0, 1)
                        : pfx           ? vx_kv_cache_bytes(&kl, seqs, P + pfx, 0, 1)
                                        : prefill_cache(x, sh, &kl, seqs, P);
        /* logits of the last position only, no upcast (transformers >= 4.46
         * with logits_to_keep): the band's low end when the runtime keeps all. */
        uint64_t V = (uint64_t)s->vocab / (uint64_t)(sh->tp > 0 ? sh->tp : 1);
        pre.logits_low = pre.logits ? vx_sat_mul(vx_sat_mul(seqs, V), A + 4u) : 0;
        if (use_cache && G >= 2) {
            has_dec = true;
            uint64_t S = ctx_len + pfx;
            vx_fwd_args da = {.seqs = seqs, .q = 1, .kv = S, .all_logits = 1, .beams = (int)beams, .dequant = dequant};
            vx_fwd_infer_terms(x, sh, &da, &f);
            stage_peak(&f, &dec);
            dec.logits_low = dec.logits;
            if (kl.static_cache)
                dec.cache = vx_kv_cache_bytes(&kl, seqs, P + G + pfx, 0, 1);
            else if ((x->rt.tuple_cache && vx_hf_legacy_cache(s)))
                dec.cache =
                    vx_sat_add(vx_kv_cache_bytes(&kl, seqs, S, 0, 1), vx_kv_cache_bytes(&kl, seqs, S - 1, 0, 1));
            else
                dec.cache =
                    vx_sat_add(vx_kv_cache_bytes(&kl, seqs, S, 0, 1), vx_kv_layer_tensor_bytes(&kl, seqs, S - 1));
        }
    }
    /* A decoder's recurrent layers hold their state from the first forward
     * that returns a cache (the hybrid caches are allocated before
     * prefill), the same bytes at every length. */
    uint64_t state = use_cache && !s->encoder_only && !s->enc_dec ? vx_state_bytes(&kl, seqs, 1) : 0;
    pre.state = state, dec.state = has_dec ? state : 0;
    pre.total = phase_total(&pre);
    /* A multimodal prompt runs the vision tower first, before any cache:
     * when its forward holds more than the prefill, it is the phase's peak. */
    uint64_t tower = vx_images_prefill(x, sh, seqs);
    if (tower > pre.total) pre = (phase_mem){.act = tower, .total = tower};
    dec.total = has_dec ? phase_total(&dec) : 0;
    bool peak_dec = has_dec && dec.total > pre.total;
    const phase_mem *pk = peak_dec ? &dec : &pre;
    int phase = s->encoder_only || !generative ? VRAMEST_PHASE_FORWARD
                : peak_dec                     ? VRAMEST_PHASE_DECODE
                                               : VRAMEST_PHASE_PREFILL;

    int wprov = vx_weights_provenance(x->pol.m);
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, w_alloc, w_exact, w_alloc, wprov);
    /* The causal-mask buffers exist in the transformers releases of the
     * measurements; later releases dropped some of them. */
    if (buffers) vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, buffers, 0, buffers, VRAMEST_PROV_FORMULA);
    if (adapter) vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ADAPTER, adapter, adapter, adapter, wprov);
    if (pk->cache) {
        /* The exact cache of the tokens; the update transients are formula. */
        uint64_t tokens = (peak_dec ? ctx_len : P) + pfx;
        uint64_t exact = s->enc_dec ? vx_kv_cache_bytes(&kl, seqs, peak_dec ? G : 1, P, 0)
                                    : vx_kv_cache_bytes(&kl, seqs, kl.static_cache ? P + G + pfx : tokens, 0, 0);
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_KV_CACHE, pk->cache, vx_min_u64(exact, pk->cache), pk->cache,
                      VRAMEST_PROV_FORMULA);
    }
    if (pk->state)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_STATE_CACHE, pk->state, vx_state_bytes(&kl, seqs, 0), pk->state,
                      VRAMEST_PROV_FORMULA);
    vx_state_result(r, vx_state_bytes(&kl, 1, 0));
    if (pk->act)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ACTIVATIONS, pk->act, pk->act - pk->act / 4,
                      vx_sat_add(pk->act, pk->act / 4), VRAMEST_PROV_FORMULA);
    if (pk->logits)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_LOGITS, pk->logits, vx_min_u64(pk->logits_low, pk->logits),
                      vx_sat_add(pk->logits, pk->logits / 10), VRAMEST_PROV_FORMULA);
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WORKSPACE, ws, ws, ws, VRAMEST_PROV_EMPIRICAL);

    /* Reserved beyond allocated: the weights' segment slack, plus the cache
     * growth. Every decode step allocates each layer's K and V one token
     * longer and frees the old ones, sizes no freed block fits, so the
     * allocator keeps about half a cache of freed blocks (0 to 1.5x). */
    uint64_t kv_final = has_dec ? vx_kv_cache_bytes(&kl, seqs, s->enc_dec ? G : ctx_len + pfx, 0, 1) : 0;
    uint64_t frag = kl.static_cache ? 0 : kv_final / 2;
    uint64_t alloc_cat = vx_sat_add(w_slack, frag);
    if (alloc_cat)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ALLOCATOR, alloc_cat, w_slack,
                      vx_sat_add(w_slack, vx_sat_mul(kv_final, kl.static_cache ? 0 : 3) / 2), VRAMEST_PROV_EMPIRICAL);

    uint64_t base = vx_sat_add(vx_sat_add(w_alloc, buffers), vx_sat_add(adapter, ws));
    r->val[VRAMEST_VAL_PEAK_PHASE] = (uint64_t)phase;
    vx_result_point(r, VRAMEST_PHASE_LOAD, "weights", base);
    vx_result_point(r, phase == VRAMEST_PHASE_FORWARD ? VRAMEST_PHASE_FORWARD : VRAMEST_PHASE_PREFILL, "prefill",
             vx_sat_add(base, pre.total));
    if (has_dec) vx_result_point(r, VRAMEST_PHASE_DECODE, "decode at full length", vx_sat_add(base, dec.total));
    if (vx_sat_add(base, pk->total) == UINT64_MAX)
        return vx_fail(VRAMEST_E_OVERFLOW, "infer: batch_size %lld x beams %lld x %llu tokens overflows 64-bit bytes",
                       (long long)cv->batch_size, (long long)cv->beams, (unsigned long long)ctx_len);
    return VRAMEST_OK;
}

static int infer_rank(vx_ctx *x, const vx_shard *sh)
{
    switch (x->rt.engine) {
    case VX_ENGINE_VLLM: return vx_serving_vllm(x, sh);
    case VX_ENGINE_LLAMACPP: return vx_serving_llamacpp(x, sh);
    case VX_ENGINE_SGLANG: return vx_serving_sglang(x, sh);
    case VX_ENGINE_OLLAMA: return vx_serving_ollama(x, sh);
    default: return hf_generate(x, sh);
    }
}

/* Each distinct rank (pipeline stage, device_map GPU) is estimated by the
 * parallel hook, which keeps the worst as the headline. */
int vx_estimate_infer(vx_ctx *x)
{
    int rc = vx_for_each_rank_group(x, infer_rank);
    /* More GPUs than the model-parallel group means replicas, not a split:
     * a user who wrote gpus=2 for a model that does not fit one GPU must
     * hear that each GPU still holds the whole copy. */
    const vx_config_values *c = x->cv;
    int64_t mp = c->tp * c->pp * c->cp, dp = c->dp ? c->dp : mp > 0 ? c->gpus / mp : 1;
    if (c->dp > 1 && vx_attn_dp(x) > 1) dp = 1; /* attention groups inside tp, not replicas */
    if (!rc && dp > 1 && c->device_map == VX_DMAP_NONE && x->rt.engine != VX_ENGINE_LLAMACPP)
        vx_result_warn(x->r,
                       "gpus %lld with tp %lld and pp %lld: %lld replicas of the model (data parallel), each GPU holds "
                       "a whole copy; set tp or pp to split one copy over the GPUs",
                       (long long)c->gpus, (long long)c->tp, (long long)c->pp, (long long)dp);
    return rc;
}
