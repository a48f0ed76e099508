/* The weights as allocations (weights.c). */
#ifndef VX_WEIGHTS_H
#define VX_WEIGHTS_H

#include "estimate/parallel/parallel.h"

/* Weights as a set of allocations. */
typedef struct vx_weights_stats {
    uint64_t exact;          /* sum of tensor bytes */
    uint64_t allocated;      /* as the caching allocator counts them (512 B rounding, unsplit blocks) */
    uint64_t reserved;       /* segments the allocations need (2 / 20 MiB pools, 2 MiB rounding) */
    uint64_t n_tensors;      /* allocations */
    uint64_t largest_quantized_elems; /* largest matrix the policy quantizes on load */
    uint64_t unquantized;    /* bytes of groups left at a float dtype while the policy quantizes */
} vx_weights_stats;
/* `torch_alloc` 0: exact bytes only (llama.cpp buffers), allocated = exact.
 * Estimators read it through the cache (vx_weights_stats_get,
 * estimate/cache/progcache.h), which calls this on a miss. */
void vx_weights_stats_compute(const vx_ctx *x, int torch_alloc, vx_weights_stats *out) VX_HIDDEN;

/* Weights held by the rank `sh` as the caching allocator counts them
 * (`alloc`), their exact bytes, the slack of the segments they open, and the
 * largest matrix quantized on load: the whole model with one GPU, the
 * groups the rank keeps (TP/PP/EP splits, device_map layers) otherwise.
 * `ws`: the whole model's stats (torch_alloc 1). */
void vx_rank_weights(const vx_ctx *x, const vx_shard *sh, const vx_weights_stats *ws, uint64_t *alloc,
                     uint64_t *exact, uint64_t *slack, uint64_t *largest_q) VX_HIDDEN;

/* Bytes of all weights as held on the GPU (sum over the inventory). */
uint64_t vx_weights_bytes(const vx_ctx *x) VX_HIDDEN;

#endif
