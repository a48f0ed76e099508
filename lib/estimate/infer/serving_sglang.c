/* SGLang serving: the token pool ModelRunner sizes at start-up
 * (sglang/srt/model_executor/model_runner.py profile_max_num_token and
 * init_memory_pool, SGLang 0.4.3-0.4.9; docs/methodology.md, "SGLang"):
 *
 *   init      = free GPU memory when the runner starts (device - CUDA context)
 *   rest      = free after loading the weights - init x (1 - mem_fraction_static)
 *             = init x mem_fraction_static - weights
 *   tokens    = floor(rest / cell), cell = K + V bytes of one token over the
 *               layers of this rank (capped by max_total_tokens)
 *
 * then the request-to-token table ((max_num_reqs + 1) x (context_length + 4)
 * int32), the attention backend and the CUDA graphs of batch sizes 1, 2, 4,
 * 8, 16, ... up to cuda_graph_max_bs come out of what is left, with the
 * activations of a chunked-prefill chunk at run time. SGLang refuses to
 * start when `rest` is not positive ("Not enough memory. Please try to
 * increase --mem-fraction-static"); a pool shorter than context_length does
 * not stop it, it caps each request (max_req_input_len).
 *
 * Hybrid models (Mamba, gated DeltaNet; SGLang 0.5.x, model_runner_kv_cache_
 * mixin.py handle_max_mamba_cache): with the radix cache on (the default)
 * the state pool takes mamba_full_memory_ratio / (1 + ratio) = 0.9 / 1.9 of
 * `rest` in whole per-request states (every recurrent layer of the rank,
 * state_cache.c), the token pool the remainder over the attention layers
 * only; max_running_requests is capped at slots / 3
 * (MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO). */
#include "estimate/cache/progcache.h"
#include "estimate/infer/infer.h"

/* server_args.py (0.4.3): mem_fraction_static by tensor-parallel size. */
static double default_fraction(int64_t tp)
{
    return tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
}

/* server_args.py (0.4.3): GPUs under 25,000 MB prefill 2048-token chunks and
 * capture graphs up to 8 requests (80 at tp >= 4); larger ones 8192 and 160. */
#define SMALL_GPU_BYTES (25000ull * 1000 * 1000)

/* cuda_graph_runner.py: [1, 2, 4] + multiples of 8, up to max_bs. */
static uint64_t graph_count(uint64_t max_bs)
{
    uint64_t n = max_bs >= 4 ? 3 : max_bs >= 2 ? 2 : 1;
    return n + max_bs / 8;
}

int vx_serving_sglang(vx_ctx *x, const vx_shard *sh)
{
    const vx_shape *s = x->pol.s;
    const vx_config_values *cv = x->cv;
    struct vramest_result *r = x->r;
    vx_kv_layout kl;
    uint64_t A;
    int rc = vx_paged_begin(x, sh, "sglang", "SGLang", &kl, &A);
    if (rc) return rc;
    uint64_t dev = r->device_bytes;
    bool small = dev && dev < SMALL_GPU_BYTES;
    uint64_t ctx_len = (uint64_t)(cv->max_model_len > 0 ? cv->max_model_len : s->max_pos);
    if (!ctx_len) ctx_len = vx_infer_prompt_len(cv) + (uint64_t)cv->gen_len;
    if (s->max_pos > 0 && ctx_len > (uint64_t)s->max_pos)
        vx_result_warn(r,
                       "context_length %llu exceeds max_position_embeddings %lld: estimated as SGLang runs it with "
                       "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 or a rope scaling that extends the context "
                       "(without either it refuses to start)",
                       (unsigned long long)ctx_len, (long long)s->max_pos);
    double frac = cv->mem_fraction_static > 0 ? cv->mem_fraction_static : default_fraction(sh->tp);
    uint64_t chunk = cv->chunked_prefill_size > 0 ? (uint64_t)cv->chunked_prefill_size : small ? 2048 : 8192;
    /* DP attention: server_args.py divides the chunk (given or default)
     * among the attention groups; the MoE layers run on all of theirs. */
    if (sh->attn_dp > 1) chunk = vx_max_u64(chunk / (uint64_t)sh->attn_dp, 1);
    if (cv->enable_dp_attention && cv->dp == 1)
        vx_result_warn(r, "enable_dp_attention with dp 1: SGLang turns DP attention off (server_args.py "
                          "_handle_data_parallelism); estimated without it (set dp to the attention groups, or 0 "
                          "for one per tp rank)");
    uint64_t max_bs = cv->cuda_graph_max_bs > 0 ? (uint64_t)cv->cuda_graph_max_bs
                      : small                   ? (sh->tp >= 4 ? 80 : 8)
                                                : 160;

    /* DP attention: the shard's KV heads are those of its attention group
     * (tp / dp ranks), each group pooling its own requests' tokens. */
    uint64_t cell = vx_kv_token_bytes(&kl);
    if (!cell) return vx_fail(VRAMEST_E_INVALID_MODEL, "framework sglang: the model has no KV cache to pool");
    /* Speculative decoding: the draft worker's weights, and its KV pool of
     * as many tokens as the target's, sized together (the pool
     * configurator's tokens x (target + draft cell) <= rest). */
    vx_spec_terms sp;
    rc = vx_spec_resolve(x, sh, chunk, A, "SGLang", &sp);
    if (rc) return rc;
    cell = vx_sat_add(cell, sp.kv_token);

    uint64_t w = vx_sat_add(vx_paged_weights(x, sh), sp.weights);
    uint64_t ctx = vx_cuda_context_bytes(x);
    uint64_t nccl = vx_nccl_bytes(x, sh);
    uint64_t tokens = 0, rest = 0, per_req = vx_state_bytes(&kl, 1, 0), slots = 0;
    if (dev) {
        uint64_t init = dev > vx_sat_add(ctx, nccl) ? dev - ctx - nccl : 0;
        uint64_t keep = (uint64_t)((double)init * frac);
        if (keep > w)
            rest = keep - w;
        else
            vx_result_refuse(r,
                             "SGLang would not start: not enough memory for the KV cache (the weights take more "
                             "than mem_fraction_static %.3f of the free memory): increase --mem-fraction-static",
                             frac);
        if (per_req) {
            slots = (uint64_t)((double)rest * (0.9 / 1.9)) / per_req;
            rest -= slots * per_req;
        }
        tokens = rest / cell;
    } else {
        tokens = vx_sat_mul(vx_max_u64(vx_infer_prompt_len(cv) + (uint64_t)cv->gen_len, 1), (uint64_t)cv->batch_size);
        slots = per_req ? vx_sat_mul((uint64_t)cv->batch_size, 3) : 0;
        vx_result_warn(r, "framework sglang without a device: the token pool is sized to the workload, not to "
                          "mem_fraction_static x device memory");
    }
    if (cv->max_total_tokens > 0) tokens = vx_min_u64(tokens, (uint64_t)cv->max_total_tokens);
    uint64_t kv = vx_sat_mul(tokens, cell);
    if (dev && tokens && tokens < ctx_len)
        vx_result_warn(r,
                       "SGLang's pool holds %llu tokens, fewer than context_length %llu: it caps each request at "
                       "%llu tokens",
                       (unsigned long long)tokens, (unsigned long long)ctx_len, (unsigned long long)(tokens - 1));

    /* model_runner.py init_memory_pool: the request table. */
    uint64_t reqs = cv->max_num_seqs > 0
                        ? (uint64_t)cv->max_num_seqs
                        : vx_min_u64(vx_max_u64(ctx_len ? tokens * 512 / ctx_len : 0, 2048), 4096);
    if (per_req) {
        reqs = vx_min_u64(reqs, slots / 3);
        if (dev && !reqs)
            vx_result_refuse(r,
                             "SGLang would not serve: its state pool holds %llu request states of %.1f MiB, fewer "
                             "than the 3 one running request needs: increase --mem-fraction-static",
                             (unsigned long long)slots, (double)per_req / VX_MIB);
    }
    uint64_t state = vx_sat_mul(slots, per_req);
    uint64_t req_table = vx_sat_mul(vx_sat_mul(reqs + 1, ctx_len + 4), 4);

    /* Run time: a prefill chunk through one layer, or the logits of a
     * decode batch over the full vocabulary (gathered on every rank):
     * compute-dtype logits, their fp32 copy and the fp32 probabilities.
     * The batch is taken at the largest captured graph (an assumption: the
     * scheduler may run larger batches eagerly, up to max_running_requests). */
    uint64_t layer = vx_max_u64(vx_paged_layer_peak(x, sh, chunk, A), sp.layer_peak);
    uint64_t rows = vx_min_u64(vx_min_u64(reqs, max_bs), chunk);
    uint64_t sampler = sh->last_stage ? vx_paged_sampler(x, rows, chunk, A + 8, A) : 0;
    uint64_t act = vx_max_u64(layer, sampler);
    uint64_t cublas = vx_cublas_workspace_bytes(x);
    uint64_t graphs = cv->enforce_eager ? 0 : vx_paged_graphs(x, sh, graph_count(max_bs), max_bs, A);

    int wprov = vx_weights_provenance(x->pol.m);
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, w, w, w, wprov);
    if (kv)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_KV_CACHE, kv, kv - kv / 10, vx_sat_add(kv, kv / 10),
                      dev ? VRAMEST_PROV_FORMULA : VRAMEST_PROV_EXACT_ARCH);
    if (state) vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_STATE_CACHE, state, state, state, VRAMEST_PROV_FORMULA);
    vx_state_result(r, per_req);
    vx_result_add(r, VRAMEST_DEV_GPU, layer >= sampler ? VRAMEST_CAT_ACTIVATIONS : VRAMEST_CAT_LOGITS, act, act / 2,
                  vx_sat_mul(act, 2), VRAMEST_PROV_FORMULA);
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WORKSPACE, vx_sat_add(cublas, req_table),
                  vx_sat_add(cublas, req_table), vx_sat_add(cublas, req_table), VRAMEST_PROV_FORMULA);
    if (graphs)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WORKSPACE, graphs, graphs / 2, vx_sat_mul(graphs, 4),
                      VRAMEST_PROV_EMPIRICAL);

    r->val[VRAMEST_VAL_KV_POOL_BYTES] = kv;
    r->val[VRAMEST_VAL_KV_BLOCKS] = tokens; /* SGLang pages one token at a time by default */
    r->val[VRAMEST_VAL_MAX_TOKENS] = tokens;
    r->val[VRAMEST_VAL_MAX_CONCURRENCY] = ctx_len ? tokens / ctx_len : 0;
    r->val[VRAMEST_VAL_CUDA_GRAPH_BYTES] = graphs;
    r->val[VRAMEST_VAL_NON_TORCH_BYTES] = vx_sat_add(ctx, nccl);
    static const int vals[] = {VRAMEST_VAL_KV_POOL_BYTES,   VRAMEST_VAL_KV_BLOCKS,        VRAMEST_VAL_MAX_TOKENS,
                               VRAMEST_VAL_MAX_CONCURRENCY, VRAMEST_VAL_CUDA_GRAPH_BYTES, VRAMEST_VAL_NON_TORCH_BYTES};
    for (size_t i = 0; i < VX_ARRAY_LEN(vals); i++) r->val_ok[vals[i]] = 1;
    r->val[VRAMEST_VAL_PEAK_PHASE] = VRAMEST_PHASE_DECODE;
    vx_result_point(r, VRAMEST_PHASE_LOAD, "weights", w);
    vx_result_point(r, VRAMEST_PHASE_PREFILL, "token pool", vx_sat_add(vx_sat_add(w, kv), state));
    return VRAMEST_OK;
}
