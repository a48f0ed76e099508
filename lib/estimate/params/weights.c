/* The weights as the caching allocator holds them: every piece the policy
 * makes of a tensor group (precision/policy.c) as an allocation, the
 * segments they open, and the part one rank keeps. */
#include <string.h>

#include "estimate/params/weights.h"

uint64_t vx_weights_bytes(const vx_ctx *x)
{
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    uint64_t sum = 0;
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) sum = vx_sat_add(sum, vx_tensor_gpu_bytes(&x->pol, t));
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
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        vx_piece p[VX_MAX_PIECES];
        bool fell = false;
        size_t n = vx_tensor_pieces_ex(&x->pol, t, p, &fell);
        bool q = x->pol.rp.quant_method != VX_QM_GGUF && vx_method_quantizes(&x->pol, t);
        if (q && x->pol.rp.quant_method != VX_QM_GPTQ && x->pol.rp.quant_method != VX_QM_AWQ &&
            x->pol.rp.quant_method != VX_QM_FP8) {
            uint64_t e = vx_sat_mul((uint64_t)t->rows, (uint64_t)t->cols);
            if (e > o->largest_quantized_elems) o->largest_quantized_elems = e;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t tot = vx_sat_mul(p[i].bytes, p[i].count);
            o->exact = vx_sat_add(o->exact, tot);
            o->n_tensors = vx_sat_add(o->n_tensors, p[i].count);
            if (!q && x->pol.rp.quant_method != VX_QM_NONE && x->pol.rp.quant_method != VX_QM_GGUF)
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
void vx_rank_weights(const vx_ctx *x, const vx_shard *sh, const vx_weights_stats *ws, uint64_t *alloc,
                     uint64_t *exact, uint64_t *slack, uint64_t *largest_q)
{
    const vx_weights_stats w = *ws;
    *largest_q = w.largest_quantized_elems;
    if (sh->tp == 1 && sh->pp == 1 && sh->ep == 1 && !sh->placement) {
        *alloc = w.allocated, *exact = w.exact, *slack = w.reserved - w.allocated;
        return;
    }
    /* Sharded or placed: the groups this rank keeps. */
    uint64_t sum = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) sum = vx_sat_add(sum, vx_shard_tensor_bytes(sh, x, t));
    *exact = sum;
    *alloc = sum;
    *slack = w.allocated > w.exact && w.exact
                 ? (uint64_t)((double)(w.allocated - w.exact) * ((double)sum / (double)w.exact))
                 : 0;
}
