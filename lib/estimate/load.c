/* Load mode: the weights resident on the GPU after loading, nothing run
 * (design.md §6 workload.mode = load), and the transient peak of the load.
 *
 * What this file fills: the weights category (the allocations the policy
 * makes, as the caching allocator counts them), the allocator category
 * (segment slack and the block a quantizing load leaves cached), the load
 * peak and the peak phase. The dispatcher (estimate.c) sets the parameter
 * counts and checkpoint bytes; runtime.c adds the CUDA context. */
#include "estimate/cache/progcache.h"
#include "estimate/estimate.h"

/* Libraries that quantize while loading hold one 16-bit matrix on the GPU
 * at a time: bitsandbytes Int8Params/Params4bit move the fp16/bf16 weight
 * to the device and quantize it there; transformers' torchao path
 * quantizes parameter by parameter. GPTQ/AWQ/fp8/GGUF checkpoints arrive
 * quantized, and from_pretrained (low_cpu_mem_usage, device_map) casts on
 * the host and writes each tensor once at its final dtype. */
static bool quantizes_on_load(int method)
{
    return method == VX_QM_BNB || method == VX_QM_TORCHAO;
}

/* One rank: with tensor/pipeline parallelism or a device_map placement each
 * GPU loads only its share (vx_rank_weights). */
static int load_rank(vx_ctx *x, const vx_shard *sh)
{
    struct vramest_result *r = x->r;
    /* llama.cpp sizes its backend buffers itself: exact tensor bytes, no
     * PyTorch allocator between them and the device. */
    int torch = !x->rt.ggml_alloc;
    uint64_t alloc, exact, slack, largest_q;
    if (torch) {
        vx_weights_stats ws;
        vx_weights_stats_get(x, 1, &ws);
        vx_rank_weights(x, sh, &ws, &alloc, &exact, &slack, &largest_q);
    } else {
        vx_weights_stats w;
        vx_weights_stats_get(x, 0, &w);
        alloc = exact = w.exact, slack = 0, largest_q = w.largest_quantized_elems;
    }
    if (exact == UINT64_MAX || alloc == UINT64_MAX)
        return vx_fail(VRAMEST_E_OVERFLOW, "load: the weights of this model under this policy exceed 2^64 bytes");
    if (!exact && sh->world <= 1) return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "load: the model has no tensors");

    int prov = vx_weights_provenance(x->pol.m);
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, alloc, exact, alloc, prov);

    uint64_t transient = 0, transient_high = 0;
    if (torch && quantizes_on_load(x->pol.rp.quant_method) && largest_q) {
        uint64_t e = largest_q;
        transient = vx_alloc_round(vx_sat_mul(e, 2));
        /* bitsandbytes < 0.43 double_quant() also made the transposed int8
         * copy (CBt) of the weight before dropping it. */
        transient_high = vx_sat_add(transient, vx_alloc_round(e));
    }
    r->val[VRAMEST_VAL_LOAD_PEAK] = vx_sat_add(alloc, transient);
    r->val_low[VRAMEST_VAL_LOAD_PEAK] = alloc;
    r->val_high[VRAMEST_VAL_LOAD_PEAK] = vx_sat_add(alloc, transient_high);
    r->val_ok[VRAMEST_VAL_LOAD_PEAK] = 1;

    if (torch) {
        /* Reserved beyond allocated: the slack of the segments the weights
         * open, plus the freed 16-bit block of a quantizing load, which the
         * allocator keeps cached (each layer's copy reuses it). */
        uint64_t cached = transient ? vx_alloc_segment(transient) : 0;
        uint64_t cached_high = transient_high ? vx_alloc_segment(transient_high) : 0;
        if (slack || cached)
            vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ALLOCATOR, vx_sat_add(slack, cached), slack,
                          vx_sat_add(slack, cached_high), VRAMEST_PROV_FORMULA);
    }
    r->val[VRAMEST_VAL_PEAK_PHASE] = VRAMEST_PHASE_LOAD;
    vx_result_point(r, VRAMEST_PHASE_LOAD, "weights", alloc);
    if (transient) vx_result_point(r, VRAMEST_PHASE_LOAD, "quantize largest matrix", r->val[VRAMEST_VAL_LOAD_PEAK]);
    return VRAMEST_OK;
}

int vx_estimate_load(vx_ctx *x)
{
    return vx_for_each_rank_group(x, load_rank);
}
