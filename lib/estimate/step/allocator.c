/* The caching allocator's reserve in a training step: reserved minus
 * allocated at the peak (research note §1). A step allocates and frees the
 * same sequence every iteration, but the blocks activations and logits free
 * in backward are split for gradients and optimizer temporaries of other
 * sizes, so the next forward needs new segments for part of them; the
 * largest transient (the fp32 logits, eager scores, a dense embedding
 * gradient) in particular rarely finds its old block whole.
 *
 * A replay of an allocator event stream (every alloc/free of a real step,
 * recorded with TorchDispatchMode on the CPU and fed through the caching
 * allocator's rules: 512-B rounding, 2/20 MiB segments, best fit, split only
 * above 1 MiB in the large pool, merge on free) gives, in steady state, a
 * reserve of 0.30 x peak allocated for a Llama-style bf16 model, about 0.5 x
 * its activations+logits at the peak or 2.7 x its fp32 logits. Published GPU
 * runs span 0.08-0.45 x activations (BERT-large fp32, HF perf docs) with
 * fixed shapes and up to 1-2 x the logits with the dynamic padding of real
 * data. The model: reserve = 0.25 x (activations + logits at the peak) + the
 * largest transient block; band from the largest block alone to 0.6 x the
 * live activations + 3 x that block. An empirical constant: the only exact
 * method is replaying every allocation, which an estimate under a
 * microsecond cannot afford. */
#include "estimate/step/step.h"

void vx_alloc_reserve(const vx_alloc_in *in, uint64_t *bytes, uint64_t *low, uint64_t *high)
{
    if (in->cpu) {
        *bytes = *low = *high = 0;
        return;
    }
    uint64_t a = in->act_peak, t = in->largest_act;
    uint64_t seg = 2 * VX_MIB; /* the small pool's last, partly used segment */
    if (in->static_shapes) {
        /* Packed fixed-length batches (torchtitan, nanotron): every step
         * asks for the same large blocks, which the allocator hands back
         * whole; what stays is the splitting of freed activation segments
         * by gradients and optimizer temporaries, 0.02-0.05 x the
         * activations and logits at the peak (research runtimes-2026
         * §3.5). */
        *bytes = vx_sat_add(a / 20, seg);
        *low = vx_sat_add(a / 50, seg);
        *high = vx_sat_add(vx_sat_add(a / 4, t), seg);
        return;
    }
    *bytes = vx_sat_add(vx_sat_add(a / 4, t), seg);
    *low = vx_sat_add(t, seg);
    *high = vx_sat_add(vx_sat_add(vx_sat_mul(a, 3) / 5, vx_sat_mul(t, 3)), seg);
}
