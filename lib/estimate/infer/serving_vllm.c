/* vLLM serving: the KV pool the engine carves out at start-up, as its
 * profiler sizes it (runtimes-2026.md §6; the rules by version are rows of
 * the runtime table: vllm_v1, sampler_elem_bytes, gpu_class_defaults,
 * graphs_in_budget):
 *
 *   budget   = gpu_memory_utilization x total device memory
 *   pool     = budget - weights - activation peak of the profiling run
 *              - non-torch memory (CUDA context, NCCL for tp > 1)
 *              - LoRA slots - CUDA graphs (from 0.21)
 *   blocks   = floor(pool / (block_size x KV bytes per token on this rank))
 *   tokens   = blocks x block_size
 *
 * The profiling run is a dummy batch of max_num_batched_tokens tokens over
 * max_num_seqs sequences, sampled with top_p < 1 and top_k = vocab - 1 so
 * that the sampler's sort runs. Its torch peak is the larger of one
 * decoder layer over all the tokens and the sampler over the sequences.
 * Before 0.21 CUDA graphs (enforce_eager false) are captured after the
 * pool is allocated, so their memory sits outside the budget:
 * device_total = budget + graph memory.
 *
 * Recurrent layers' states (Mamba, gated DeltaNet) are pages of the same
 * pool (state_cache.c): the running sequences' state pages come out of it
 * before the KV blocks.
 *
 * vLLM refuses to start when no memory is left for blocks, or when the pool
 * cannot hold one max_model_len sequence (its KV and, for a hybrid, its
 * state pages): the verdict is then "does not fit" with the engine's reason
 * (vx_result_refuse). */
#include "estimate/cache/progcache.h"
#include "estimate/infer/infer.h"

/* vLLM's defaults of the profile's shape, by engine and GPU class
 * (runtimes-2026.md §6.2): V0 schedules max_model_len tokens (at least
 * 2048) unless the context passes 32K, where chunked prefill takes
 * 2048-token chunks; V1 always chunks, at 2048 tokens / 256 sequences for
 * `vllm serve`, and from 0.9 at 8192 / 1024 on GPUs of >= 70 GiB that are
 * not A100s (engine/arg_utils.py, PR #17885). max_num_seqs is clamped to
 * max_num_batched_tokens. */
static void profile_shape(const vx_ctx *x, uint64_t dev, uint64_t max_len, uint64_t *S, uint64_t *T)
{
    const vx_config_values *cv = x->cv;
    int big = x->rt.gpu_class_defaults && vx_paged_big_gpu(x, dev, 70 * VX_GIB, "a100");
    uint64_t t;
    if (cv->max_num_batched_tokens > 0)
        t = (uint64_t)cv->max_num_batched_tokens;
    else if (x->rt.vllm_v1)
        t = big ? 8192 : 2048;
    else
        t = max_len > 32768 ? 2048 : vx_max_u64(max_len, 2048);
    uint64_t s = cv->max_num_seqs > 0 ? (uint64_t)cv->max_num_seqs : big ? 1024 : 256;
    *T = t;
    *S = vx_min_u64(s, t);
}

/* Capture sizes of vLLM's CUDA graphs: 1, 2, 4, then multiples of 8 up to
 * min(max_num_seqs, 512). */
static uint64_t graph_count(uint64_t max_seqs)
{
    uint64_t top = vx_min_u64(max_seqs, 512);
    uint64_t n = top >= 4 ? 3 : top >= 2 ? 2 : 1;
    return n + top / 8;
}

/* LoRA slots vLLM preallocates with --enable-lora: for every linear layer
 * of the decoder, lora_a_stacked (max_loras x rank x in) and lora_b_stacked
 * (max_loras x out x rank) in the model dtype, the tensor-parallel side of
 * each split as the base layer's (vllm/lora/layers.py
 * create_lora_weights). */
static uint64_t lora_slots(const vx_ctx *x, const vx_shard *sh, uint64_t A)
{
    const vx_config_values *cv = x->cv;
    if (!cv->enable_lora) return 0;
    uint64_t r = (uint64_t)cv->max_lora_rank, n = (uint64_t)cv->max_loras, tp = (uint64_t)sh->tp, sum = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        if (t->kind != VX_TK_MATRIX || t->part == VX_PART_GLOBAL || t->expert || t->rows <= 0 || t->cols <= 0) continue;
        if (t->n_layers <= 0) continue;
        /* one of the two sides is split over the tensor-parallel ranks */
        uint64_t side = vx_ceil_div((uint64_t)t->rows, tp) + (uint64_t)t->cols;
        uint64_t copies = vx_tensor_elems(t) / vx_sat_mul((uint64_t)t->rows, (uint64_t)t->cols);
        uint64_t layers = vx_min_u64(copies, (uint64_t)sh->stage_layers * (copies / (uint64_t)t->n_layers));
        sum = vx_sat_add(sum, vx_sat_mul(layers, vx_sat_mul(vx_sat_mul(n, r), vx_sat_mul(side, A))));
    }
    return sum;
}

/* A checkpoint's MXFP4 experts as vLLM's MoE backend holds them, re-laid
 * with padded sizes (vllm@007d50058a model_executor/layers/quantization/
 * mxfp4.py, get_mxfp4_backend and Mxfp4MoEMethod.create_weights): Marlin
 * pads the intermediate size per partition to 128 and the hidden size to
 * 256; FlashInfer on SM100 both to 256; triton_kernels, Hopper's backend
 * once vLLM depends on it (0.11.1, vllm-project/vllm#27370; Marlin
 * before), the intermediate size to 64. The bytes the padding adds on this
 * rank; `*pct` the share it adds to the experts. */
static uint64_t mxfp4_moe_padding(const vx_ctx *x, const vx_shard *sh, double *pct)
{
    const vx_shape *s = x->pol.s;
    const vx_gpu *g = vx_ctx_gpu(x);
    *pct = 0;
    if (!g || x->pol.m->ckq.method != VX_CQ_MXFP4 || s->moe_ffn <= 0 || s->hidden <= 0) return 0;
    uint64_t ai = 128, ah = 256; /* Marlin: before Hopper, consumer Blackwell (sm 12x) */
    if (g->sm >= 100 && g->sm < 110) ai = ah = 256;
    else if (g->sm == 90 && x->rt.framework_version >= VX_VER(0, 11, 1)) ai = 64, ah = 1;
    int mx = vx_ckpt_quant_dtype(&x->pol.m->ckq);
    uint64_t h = (uint64_t)s->hidden, inter = (uint64_t)s->moe_ffn;
    uint64_t ip = vx_ceil_div(inter, sh->ep > 1 ? 1 : (uint64_t)sh->tp); /* experts split by TP or by EP */
    uint64_t extra = 0, experts = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        if (!t->expert || t->kind != VX_TK_MATRIX || vx_tensor_storage_dtype(&x->pol, t) != mx) continue;
        uint64_t other = (uint64_t)t->rows == h ? (uint64_t)t->cols : (uint64_t)t->rows;
        if ((uint64_t)t->rows != h && (uint64_t)t->cols != h) continue;
        if (other % inter || other / inter > 2) continue; /* down (i) or gate_up (2i): the same share */
        uint64_t b = vx_shard_tensor_bytes(sh, x, t);
        /* padded over unpadded area of one partition, exactly in 128 bits */
        unsigned __int128 num = (unsigned __int128)vx_round_up(ip, ai) * vx_round_up(h, ah), den = (unsigned __int128)ip * h;
        unsigned __int128 padded = (unsigned __int128)b * num / den;
        experts = vx_sat_add(experts, b);
        extra = vx_sat_add(extra, padded > UINT64_MAX ? UINT64_MAX - b : (uint64_t)padded - b);
    }
    if (experts) *pct = 100.0 * (double)extra / (double)experts;
    return extra;
}

int vx_serving_vllm(vx_ctx *x, const vx_shard *sh)
{
    const vx_shape *s = x->pol.s;
    const vx_config_values *cv = x->cv;
    struct vramest_result *r = x->r;
    vx_kv_layout kl;
    uint64_t A;
    int rc = vx_paged_begin(x, sh, "vllm", "vLLM", &kl, &A);
    if (rc) return rc;

    uint64_t max_len = (uint64_t)(cv->max_model_len > 0 ? cv->max_model_len : s->max_pos);
    uint64_t P = vx_infer_prompt_len(cv), G = (uint64_t)cv->gen_len;
    if (!max_len) max_len = P + G;
    if (s->max_pos > 0 && max_len > (uint64_t)s->max_pos)
        vx_result_warn(r,
                       "max_model_len %llu exceeds max_position_embeddings %lld: estimated as vLLM runs it with "
                       "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 or a rope scaling that extends the context (without "
                       "either it refuses to start)",
                       (unsigned long long)max_len, (long long)s->max_pos);
    uint64_t dev = r->device_bytes;
    uint64_t S, T;
    profile_shape(x, dev, max_len, &S, &T);
    if (!x->rt.vllm_v1 && cv->max_num_batched_tokens > 0 && T < max_len && max_len <= 32768)
        vx_result_warn(r, "max_num_batched_tokens %llu < max_model_len %llu: vLLM needs chunked prefill for that",
                       (unsigned long long)T, (unsigned long long)max_len);

    /* Speculative decoding: the drafter's weights load with the model's,
     * its dummy run joins the profile, its layers share every block. */
    vx_spec_terms sp;
    rc = vx_spec_resolve(x, sh, T, A, "vLLM", &sp);
    if (rc) return rc;
    uint64_t w = vx_sat_add(vx_paged_weights(x, sh), sp.weights);
    double pad_pct;
    uint64_t pad = mxfp4_moe_padding(x, sh, &pad_pct);
    if (pad) {
        w = vx_sat_add(w, pad);
        vx_result_warn(r, "vLLM's MXFP4 MoE backend holds the experts padded (+%.1f%%, %.2f GiB on this GPU)", pad_pct,
                       (double)pad / VX_GIB);
    }
    uint64_t lora = lora_slots(x, sh, A);

    /* Profiling run: the forward over T tokens, then the sampler over
     * min(T, S) rows of the full vocabulary on the rank that samples (the
     * last stage; with V0 its driver, whose smaller pool vLLM takes). */
    uint64_t layer = vx_max_u64(vx_paged_layer_peak(x, sh, T, A), sp.layer_peak);
    uint64_t elem = (uint64_t)x->rt.sampler_elem_bytes;
    if (x->rt.vllm_v1 && cv->sampler == 1) elem = 10; /* FlashInfer's sampling kernels */
    uint64_t sampler = sh->last_stage ? vx_paged_sampler(x, S, T, elem, A) : 0;
    uint64_t act = vx_max_u64(layer, sampler);
    uint64_t cublas = vx_cublas_workspace_bytes(x);
    uint64_t ctx = vx_cuda_context_bytes(x);
    /* NCCL communicators, reported by the rank-group hook in the framework
     * category: charged to the pool as non-torch memory while the profiler
     * snapshots before creating them; from 0.11 they are in the snapshot,
     * outside the budget, on top of it. */
    uint64_t nccl_all = vx_nccl_bytes(x, sh);
    uint64_t nccl = x->rt.nccl_before_snapshot ? 0 : nccl_all;

    uint64_t graphs = 0;
    if (!cv->enforce_eager) {
        uint64_t bmax = vx_min_u64(S, 512);
        graphs = vx_paged_graphs(x, sh, graph_count(S), bmax, A);
    }

    /* Recurrent layers (Mamba, gated DeltaNet): vLLM pages their per-sequence
     * state from the same pool, one page per layer and running sequence,
     * and raises the attention block size until an attention page holds one
     * layer's state, in multiples of max(16, block_size) (the FlashAttention
     * kernel's block multiple; platforms/interface.py
     * _align_hybrid_block_size, HybridAttentionMambaModelConfig before); the
     * state pages are padded to that size (MambaSpec.page_size_padded). */
    uint64_t bsize = (uint64_t)cv->block_size, state_page = vx_state_layer_seq_bytes(&kl);
    uint64_t layer_tok = vx_kv_layer_token_bytes(&kl);
    if (kl.state_layers > 0 && layer_tok) {
        uint64_t align = vx_max_u64(16, bsize);
        uint64_t need = vx_sat_mul(align, vx_ceil_div(state_page, vx_sat_mul(align, layer_tok)));
        if (need > bsize) {
            bsize = need;
            vx_result_warn(r, "vLLM raises the attention block size to %llu tokens so that one attention page holds "
                              "one recurrent layer's state (%llu bytes)",
                           (unsigned long long)bsize, (unsigned long long)state_page);
        }
        state_page = vx_sat_mul(bsize, layer_tok);
    }
    uint64_t seq_state = vx_sat_mul((uint64_t)(kl.state_layers > 0 ? kl.state_layers : 0), state_page);
    uint64_t running = vx_min_u64(S, vx_sat_mul((uint64_t)cv->batch_size, (uint64_t)(cv->beams > 0 ? cv->beams : 1)));
    uint64_t state_need = vx_sat_mul(running, seq_state);
    uint64_t block_bytes = vx_sat_mul(bsize, vx_sat_add(vx_kv_token_bytes(&kl), sp.kv_token));
    if (!block_bytes && !seq_state)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "framework vllm: the model has no KV cache to page");
    uint64_t used = vx_sat_add(vx_sat_add(w, act), vx_sat_add(cublas, vx_sat_add(ctx, nccl)));
    used = vx_sat_add(used, lora);
    /* From 0.21 the profiler estimates the graphs and keeps them inside the
     * budget; before, they are captured after the pool, on top of it. */
    if (x->rt.graphs_in_budget) used = vx_sat_add(used, graphs);
    uint64_t pool = 0, blocks = 0, state = 0;
    /* One sequence of max_model_len, windows capped (what V1's check needs). */
    uint64_t one_seq = vx_sat_add(vx_kv_cache_bytes(&kl, 1, max_len, 0, 0), vx_sat_mul(sp.kv_token, max_len));
    one_seq = vx_round_up(one_seq, block_bytes);
    /* ... and, at run time, num_speculative_tokens lookahead slots each. */
    uint64_t spec_k = sp.method ? (uint64_t)cv->num_speculative_tokens : 0;
    uint64_t one_run = vx_round_up(vx_sat_add(vx_kv_cache_bytes(&kl, 1, max_len + spec_k, 0, 0),
                                              vx_sat_mul(sp.kv_token, max_len + spec_k)),
                                   block_bytes);
    if (dev) {
        double util = cv->gpu_memory_utilization;
        uint64_t budget = (uint64_t)(util * (double)dev);
        /* gpu_worker.py init_device: the free memory at the snapshot (after
         * the context and, from 0.11, NCCL) must hold the budget. */
        uint64_t free0 = vx_sat_add(ctx, nccl_all) < dev ? dev - ctx - nccl_all : 0;
        if (x->rt.nccl_before_snapshot && free0 < budget)
            vx_result_refuse(r,
                             "vLLM would not start: free memory on the device after the CUDA context and NCCL "
                             "(%.2f GiB) is less than gpu_memory_utilization %.2f x total (%.2f GiB): lower "
                             "gpu_memory_utilization",
                             (double)free0 / VX_GIB, util, (double)budget / VX_GIB);
        if (budget > used)
            pool = budget - used;
        else
            vx_result_refuse(r,
                             "vLLM would not start: no available memory for the cache blocks (weights, "
                             "activations and non-torch memory exceed gpu_memory_utilization %.2f x device memory)",
                             util);
        state = vx_min_u64(pool, state_need);
        blocks = block_bytes ? (pool - state) / block_bytes : 0;
    } else {
        /* No device: a pool that holds the workload. */
        uint64_t per_seq = vx_ceil_div(vx_max_u64(P + G, 1), bsize);
        blocks = block_bytes ? vx_sat_mul(per_seq, vx_sat_mul((uint64_t)cv->batch_size,
                                                              (uint64_t)(cv->beams > 0 ? cv->beams : 1)))
                             : 0;
        state = state_need;
        pool = vx_sat_add(vx_sat_mul(blocks, block_bytes), state);
        vx_result_warn(r, "framework vllm without a device: the KV pool is sized to the workload, not to "
                          "gpu_memory_utilization x device memory");
    }
    uint64_t tokens = vx_sat_mul(blocks, bsize);
    uint64_t kv = vx_sat_mul(blocks, block_bytes);
    /* The engine's start-up check: one max_model_len request must fit, its
     * state pages included (check_enough_kv_cache_memory). */
    uint64_t kv1 = pool > seq_state ? pool - seq_state : 0;
    if (block_bytes) kv1 = kv1 / block_bytes * block_bytes;
    if (dev && pool && (pool < seq_state || kv1 < one_seq)) {
        uint64_t fit_len = one_seq ? (uint64_t)((double)max_len * (double)kv1 / (double)one_seq) : 0;
        if (x->rt.vllm_v1)
            vx_result_refuse(r,
                             "vLLM would not start: max_model_len %llu needs %.2f GiB of KV cache, more than the "
                             "%.2f GiB available (the estimated maximum model length is %llu): raise "
                             "gpu_memory_utilization or lower max_model_len",
                             (unsigned long long)max_len, (double)vx_sat_add(one_seq, seq_state) / VX_GIB,
                             (double)vx_sat_add(kv1, seq_state) / VX_GIB, (unsigned long long)fit_len);
        else
            vx_result_refuse(r,
                             "vLLM would not start: the model's max seq len (%llu) is larger than the maximum "
                             "number of tokens that can be stored in KV cache (%llu)",
                             (unsigned long long)max_len, (unsigned long long)tokens);
    }
    uint64_t want = vx_sat_mul(vx_sat_mul((uint64_t)cv->batch_size, (uint64_t)(cv->beams > 0 ? cv->beams : 1)),
                               vx_min_u64(P + G, max_len));
    if (dev && kv1 >= one_seq && pool >= seq_state && blocks && want > tokens)
        vx_result_warn(r, "the workload's %llu tokens exceed the pool's %llu: vLLM queues or preempts sequences",
                       (unsigned long long)want, (unsigned long long)tokens);

    int wprov = vx_weights_provenance(x->pol.m);
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, w, w, w, wprov);
    if (kv)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_KV_CACHE, kv, kv - kv / 10, vx_sat_add(kv, kv / 10),
                      dev ? VRAMEST_PROV_FORMULA : VRAMEST_PROV_EXACT_ARCH);
    if (state)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_STATE_CACHE, state, state, state, VRAMEST_PROV_FORMULA);
    vx_state_result(r, vx_state_bytes(&kl, 1, 0));
    if (layer >= sampler)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ACTIVATIONS, act, act / 2, vx_sat_mul(act, 2),
                      VRAMEST_PROV_FORMULA);
    else
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_LOGITS, act, act / 2, vx_sat_mul(act, 2), VRAMEST_PROV_FORMULA);
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WORKSPACE, cublas, cublas, cublas, VRAMEST_PROV_EMPIRICAL);
    if (lora) vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ADAPTER, lora, lora, lora, VRAMEST_PROV_FORMULA);
    if (graphs)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WORKSPACE, graphs, graphs / 2, vx_sat_mul(graphs, 3),
                      VRAMEST_PROV_EMPIRICAL);

    r->val[VRAMEST_VAL_KV_POOL_BYTES] = pool;
    r->val[VRAMEST_VAL_KV_BLOCKS] = blocks;
    r->val[VRAMEST_VAL_MAX_TOKENS] = tokens;
    /* The pool moves one for one with every other term: its band is theirs. */
    uint64_t slack = act / 2 + (x->rt.graphs_in_budget ? graphs / 2 : 0) + ctx / 2;
    r->val_low[VRAMEST_VAL_KV_POOL_BYTES] = pool > slack ? pool - slack : 0;
    r->val_high[VRAMEST_VAL_KV_POOL_BYTES] = vx_sat_add(pool, act / 2);
    uint64_t lo = r->val_low[VRAMEST_VAL_KV_POOL_BYTES], hi = r->val_high[VRAMEST_VAL_KV_POOL_BYTES];
    r->val_low[VRAMEST_VAL_KV_BLOCKS] = block_bytes ? (lo > state ? lo - state : 0) / block_bytes : 0;
    r->val_high[VRAMEST_VAL_KV_BLOCKS] = block_bytes ? (hi > state ? hi - state : 0) / block_bytes : 0;
    r->val_low[VRAMEST_VAL_MAX_TOKENS] = r->val_low[VRAMEST_VAL_KV_BLOCKS] * bsize;
    r->val_high[VRAMEST_VAL_MAX_TOKENS] = r->val_high[VRAMEST_VAL_KV_BLOCKS] * bsize;
    r->val_ok[VRAMEST_VAL_KV_POOL_BYTES] = r->val_ok[VRAMEST_VAL_KV_BLOCKS] = r->val_ok[VRAMEST_VAL_MAX_TOKENS] = 1;
    /* a hybrid's sequence takes its state pages beside its KV blocks */
    uint64_t per_req = vx_sat_add(one_run, seq_state);
    r->val[VRAMEST_VAL_MAX_CONCURRENCY] = !per_req ? 0 : seq_state ? pool / per_req : kv / one_run;
    r->val[VRAMEST_VAL_CUDA_GRAPH_BYTES] = graphs;
    r->val[VRAMEST_VAL_NON_TORCH_BYTES] = vx_sat_add(ctx, nccl);
    r->val_ok[VRAMEST_VAL_MAX_CONCURRENCY] = r->val_ok[VRAMEST_VAL_CUDA_GRAPH_BYTES] = 1;
    r->val_ok[VRAMEST_VAL_NON_TORCH_BYTES] = 1;
    r->val[VRAMEST_VAL_PEAK_PHASE] = VRAMEST_PHASE_DECODE;
    vx_result_point(r, VRAMEST_PHASE_PREFILL, "profile run", vx_sat_add(vx_sat_add(w, act), cublas));
    return VRAMEST_OK;
}
