/* vLLM serving: the KV pool the engine carves out at start-up, as its
 * profiler sizes it (vllm Worker.determine_num_available_blocks /
 * profile_run; research/peers.md §7):
 *
 *   budget   = gpu_memory_utilization x total device memory
 *   pool     = budget - weights - activation peak of the profiling run
 *              - non-torch memory (CUDA context, NCCL for tp > 1)
 *   blocks   = floor(pool / (block_size x KV bytes per token on this rank))
 *   tokens   = blocks x block_size
 *
 * The profiling run is a dummy batch of max_num_batched_tokens tokens over
 * max_num_seqs sequences, sampled with top_p < 1 and top_k = vocab - 1 so
 * that the sampler's sort runs. Its torch peak is the larger of one
 * decoder layer over all the tokens and the sampler over the sequences.
 * CUDA graphs (enforce_eager false) are captured after the pool is
 * allocated (vLLM 0.2-0.10), so their memory sits outside the budget:
 * device_total = budget + graph memory. */
#include "estimate/cache/progcache.h"
#include "estimate/infer/infer.h"

/* Sampler bytes per (sequence x vocab) element in the profiling run, on
 * top of the compute-dtype logits: fp32 logits, sorted values (fp32) and
 * indices (int64), the int64 scatter source and inverse index, softmax and
 * cumsum (fp32): vllm/model_executor/layers/sampler.py _apply_top_k_top_p. */
#define VLLM_SAMPLER_BYTES 36
/* Per captured graph and decoder layer: kernel nodes and their parameter
 * buffers (empirical: 0.3-0.6 GiB reported for 7-8B models). */
#define VLLM_GRAPH_BYTES_PER_LAYER (256 * VX_KIB)

/* vLLM's default max_num_batched_tokens (V0 engine): max_model_len without
 * chunked prefill, at least 2048; chunked prefill (on by default above 32K
 * context) schedules 2048-token chunks. */
static uint64_t batched_tokens(const vx_config_values *cv, uint64_t max_len)
{
    if (cv->max_num_batched_tokens > 0) return (uint64_t)cv->max_num_batched_tokens;
    if (max_len > 32768) return 2048;
    return vx_max_u64(max_len, 2048);
}

/* Capture sizes of vLLM's CUDA graphs: 1, 2, 4, then multiples of 8 up to
 * min(max_num_seqs, 512). */
static uint64_t graph_count(uint64_t max_seqs)
{
    uint64_t top = vx_min_u64(max_seqs, 512);
    uint64_t n = top >= 4 ? 3 : top >= 2 ? 2 : 1;
    return n + top / 8;
}

/* One decoder layer over T tokens in vLLM's fused modules: residual and
 * normed hidden states, the qkv projection, the attention output, then the
 * merged gate_up output with the activation and the down projection. */
static uint64_t layer_peak(const vx_ctx *x, const vx_shard *sh, uint64_t T, uint64_t A)
{
    const vx_shape *s = x->pol.s;
    uint64_t tp = (uint64_t)sh->tp, h = (uint64_t)s->hidden, d = (uint64_t)s->head_dim;
    uint64_t heads = (uint64_t)sh->heads_rank, kvh = (uint64_t)sh->kv_heads_rank;
    uint64_t two_h = vx_sat_mul(vx_sat_mul(2, T), vx_sat_mul(h, A));
    uint64_t qkv = vx_sat_mul(vx_sat_mul(T, (heads + 2 * kvh) * d), A);
    uint64_t attn = vx_sat_add(vx_sat_add(two_h, qkv), vx_sat_mul(vx_sat_mul(T, heads * d), A));
    uint64_t ffn = vx_ceil_div((uint64_t)s->ffn, tp);
    uint64_t k = s->gated ? 3 : 2;
    uint64_t mlp = vx_sat_mul(vx_sat_mul(T, k * ffn + h), A);
    if (s->experts > 0 && s->moe_ffn > 0) {
        /* fused_moe: intermediate caches of T x top_k rows (2I, I, h). */
        uint64_t topk = (uint64_t)(s->experts_per_tok > 0 ? s->experts_per_tok : 1);
        uint64_t mi = vx_ceil_div((uint64_t)s->moe_ffn, sh->etp > 0 ? (uint64_t)sh->etp : tp);
        uint64_t moe = vx_sat_mul(vx_sat_mul(vx_sat_mul(T, topk), 3 * mi + h), A);
        moe = vx_sat_add(moe, vx_sat_mul(vx_sat_mul(T, (uint64_t)s->experts), 4));
        mlp = s->dense_layers > 0 ? vx_max_u64(mlp, moe) : moe;
    }
    return vx_max_u64(attn, vx_sat_add(two_h, mlp));
}

int vx_serving_vllm(vx_ctx *x, const vx_shard *sh)
{
    const vx_shape *s = x->pol.s;
    const vx_config_values *cv = x->cv;
    struct vramest_result *r = x->r;
    if (sh->placement)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "framework vllm places layers itself: device_map applies to transformers only");
    if (s->encoder_only || s->enc_dec)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "framework vllm: %s models are not modelled for vLLM serving",
                       s->encoder_only ? "encoder-only" : "encoder-decoder");
    vx_kv_layout kl;
    int rc = vx_kv_layout_resolve(x, sh, &kl);
    if (rc) return rc;
    uint64_t A = vx_dtype_size(x->pol.rp.compute_dtype);
    if (!A) A = 2;

    uint64_t max_len = (uint64_t)(cv->max_model_len > 0 ? cv->max_model_len : s->max_pos);
    uint64_t P = vx_infer_prompt_len(cv), G = (uint64_t)cv->gen_len;
    if (!max_len) max_len = P + G;
    if (s->max_pos > 0 && max_len > (uint64_t)s->max_pos)
        vx_result_warn(r,
                       "max_model_len %llu exceeds max_position_embeddings %lld: vLLM refuses it unless "
                       "VLLM_ALLOW_LONG_MAX_MODEL_LEN is set",
                       (unsigned long long)max_len, (long long)s->max_pos);
    uint64_t max_seqs = (uint64_t)cv->max_num_seqs;
    uint64_t T = batched_tokens(cv, max_len);
    if (cv->max_num_batched_tokens > 0 && T < max_len && max_len <= 32768)
        vx_result_warn(r, "max_num_batched_tokens %llu < max_model_len %llu: vLLM needs chunked prefill for that",
                       (unsigned long long)T, (unsigned long long)max_len);
    uint64_t nseq = vx_min_u64(max_seqs, T);

    /* Weights: per rank; the fused qkv / gate_up matrices hold the same
     * bytes as the separate ones. */
    uint64_t w = 0;
    {
        vx_weights_stats ws;
        vx_weights_stats_get(x, 1, &ws);
        if (sh->tp == 1 && sh->pp == 1 && sh->ep == 1)
            w = ws.allocated;
        else {
            vx_tensor_iter it;
            vx_tensor_iter_init(&it, &x->pol);
            for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));)
                w = vx_sat_add(w, vx_shard_tensor_bytes(sh, x, t));
        }
    }

    /* Profiling run. */
    uint64_t V = vx_ceil_div((uint64_t)s->vocab, (uint64_t)sh->tp);
    uint64_t layer = layer_peak(x, sh, T, A);
    uint64_t hidden = vx_sat_mul(vx_sat_mul(T, (uint64_t)s->hidden), A);
    /* Only the last pipeline stage computes logits and samples. */
    uint64_t sampler = sh->last_stage ? vx_sat_add(hidden, vx_sat_mul(vx_sat_mul(nseq, V), A + VLLM_SAMPLER_BYTES)) : 0;
    uint64_t act = vx_max_u64(layer, sampler);
    uint64_t cublas = vx_cublas_workspace_bytes(x);
    uint64_t ctx = vx_cuda_context_bytes(x);
    /* NCCL communicators: inside the budget (vLLM measures non-torch
     * memory), reported by the rank-group hook in the framework category. */
    uint64_t nccl = vx_nccl_bytes(x, sh);

    uint64_t block_bytes = vx_sat_mul((uint64_t)cv->block_size, vx_kv_token_bytes(&kl));
    if (!block_bytes) return vx_fail(VRAMEST_E_INVALID_MODEL, "framework vllm: the model has no KV cache to page");
    uint64_t used = vx_sat_add(vx_sat_add(w, act), vx_sat_add(cublas, vx_sat_add(ctx, nccl)));
    uint64_t pool = 0, blocks = 0;
    uint64_t dev = r->device_bytes;
    if (dev) {
        double util = cv->gpu_memory_utilization;
        uint64_t budget = (uint64_t)(util * (double)dev);
        if (budget > used)
            pool = budget - used;
        else
            vx_result_warn(r,
                           "vLLM would not start: weights + activations + non-torch memory exceed "
                           "gpu_memory_utilization %.2f x device memory (no memory left for KV blocks)",
                           util);
        blocks = pool / block_bytes;
    } else {
        /* No device: a pool that holds the workload. */
        uint64_t per_seq = vx_ceil_div(vx_max_u64(P + G, 1), (uint64_t)cv->block_size);
        blocks = vx_sat_mul(per_seq, vx_sat_mul((uint64_t)cv->batch_size, (uint64_t)(cv->beams > 0 ? cv->beams : 1)));
        pool = vx_sat_mul(blocks, block_bytes);
        vx_result_warn(r, "framework vllm without a device: the KV pool is sized to the workload, not to "
                          "gpu_memory_utilization x device memory");
    }
    uint64_t tokens = vx_sat_mul(blocks, (uint64_t)cv->block_size);
    if (dev && blocks && tokens < max_len)
        vx_result_warn(r, "vLLM would not start: the KV pool holds %llu tokens, less than max_model_len %llu",
                       (unsigned long long)tokens, (unsigned long long)max_len);
    uint64_t want = vx_sat_mul(vx_sat_mul((uint64_t)cv->batch_size, (uint64_t)(cv->beams > 0 ? cv->beams : 1)),
                               vx_min_u64(P + G, max_len));
    if (dev && blocks && want > tokens)
        vx_result_warn(r, "the workload's %llu tokens exceed the pool's %llu: vLLM queues or preempts sequences",
                       (unsigned long long)want, (unsigned long long)tokens);
    uint64_t kv = vx_sat_mul(blocks, block_bytes);

    uint64_t graphs = 0;
    if (!cv->enforce_eager) {
        uint64_t bmax = vx_min_u64(max_seqs, 512);
        graphs = vx_sat_mul(vx_sat_mul(graph_count(max_seqs), (uint64_t)sh->stage_layers), VLLM_GRAPH_BYTES_PER_LAYER);
        /* The graph pool keeps the largest captured batch's forward. */
        graphs = vx_sat_add(graphs, vx_max_u64(layer_peak(x, sh, bmax, A), vx_sat_mul(vx_sat_mul(bmax, V), 4)));
    }

    int wprov = vx_weights_provenance(x->pol.m);
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, w, w, w, wprov);
    if (kv)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_KV_CACHE, kv, kv - kv / 10, vx_sat_add(kv, kv / 10),
                      dev ? VRAMEST_PROV_FORMULA : VRAMEST_PROV_EXACT_ARCH);
    if (layer >= sampler)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ACTIVATIONS, act, act / 2, vx_sat_mul(act, 2),
                      VRAMEST_PROV_FORMULA);
    else
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_LOGITS, act, act / 2, vx_sat_mul(act, 2), VRAMEST_PROV_FORMULA);
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WORKSPACE, cublas, cublas, cublas, VRAMEST_PROV_EMPIRICAL);
    if (graphs)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WORKSPACE, graphs, graphs / 2, vx_sat_mul(graphs, 3),
                      VRAMEST_PROV_EMPIRICAL);

    r->val[VRAMEST_VAL_KV_POOL_BYTES] = pool;
    r->val[VRAMEST_VAL_KV_BLOCKS] = blocks;
    r->val[VRAMEST_VAL_MAX_TOKENS] = tokens;
    /* The pool moves one for one with every other term: its band is theirs. */
    uint64_t slack = act / 2 + graphs + ctx / 2;
    r->val_low[VRAMEST_VAL_KV_POOL_BYTES] = pool > slack ? pool - slack : 0;
    r->val_high[VRAMEST_VAL_KV_POOL_BYTES] = vx_sat_add(pool, act / 2);
    r->val_low[VRAMEST_VAL_KV_BLOCKS] = r->val_low[VRAMEST_VAL_KV_POOL_BYTES] / block_bytes;
    r->val_high[VRAMEST_VAL_KV_BLOCKS] = r->val_high[VRAMEST_VAL_KV_POOL_BYTES] / block_bytes;
    r->val_low[VRAMEST_VAL_MAX_TOKENS] = r->val_low[VRAMEST_VAL_KV_BLOCKS] * (uint64_t)cv->block_size;
    r->val_high[VRAMEST_VAL_MAX_TOKENS] = r->val_high[VRAMEST_VAL_KV_BLOCKS] * (uint64_t)cv->block_size;
    r->val_ok[VRAMEST_VAL_KV_POOL_BYTES] = r->val_ok[VRAMEST_VAL_KV_BLOCKS] = r->val_ok[VRAMEST_VAL_MAX_TOKENS] = 1;
    r->val[VRAMEST_VAL_PEAK_PHASE] = VRAMEST_PHASE_DECODE;
    vx_result_point(r, VRAMEST_PHASE_PREFILL, "profile run", vx_sat_add(vx_sat_add(w, act), cublas));
    return VRAMEST_OK;
}
