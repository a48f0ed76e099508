/* The precision policy as a map over the tensor inventory: which dtype and
 * which allocations each tensor group becomes under a method (bitsandbytes,
 * GPTQ, AWQ, torchao, fp8, GGUF mixes). Declared here, beside the contract
 * functions of estimate.h that policy.c also implements, so that every mode
 * estimator sizes weights the same way. */
#ifndef VX_POLICY_H
#define VX_POLICY_H

#include "estimate/estimate.h"

/* One homogeneous part of a tensor group as allocated: `count` tensors of
 * `bytes` each, stored as `dtype` (a packed int4 qweight is dtype INT32, its
 * scales FP16, ...). A quantized nn.Linear is several pieces. */
typedef struct vx_piece {
    uint64_t bytes;
    uint64_t count;
    int dtype;
} vx_piece;
#define VX_MAX_PIECES 8

/* The pieces of one inventory group under the policy of `x`; returns how
 * many were written (0 for an empty group). */
size_t vx_tensor_pieces(const vx_ctx *x, const vx_tensor *t, vx_piece out[VX_MAX_PIECES]) VX_HIDDEN;

/* 1 when the policy quantizes this group (its matrices become int8/4-bit/
 * fp8/a GGUF block type), 0 when it is held at a float dtype. */
int vx_tensor_quantized(const vx_ctx *x, const vx_tensor *t) VX_HIDDEN;

/* Iterate the weights of the class the workload asks for (workload `head`,
 * `num_labels`): the body tensors of the inventory, then the head's. No
 * allocation: the head tensors live in the iterator. */
typedef struct vx_tensor_iter {
    const vx_tensor *inv;
    size_t n, i, j, n_heads;
    int swap_head;
    vx_tensor heads[VX_HEAD_MAX_TENSORS];
} vx_tensor_iter;
void vx_tensor_iter_init(vx_tensor_iter *it, const vx_ctx *x) VX_HIDDEN;
const vx_tensor *vx_tensor_iter_next(vx_tensor_iter *it) VX_HIDDEN;

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
 * _get reads the model's cache (progcache.c) and fills it; _compute walks
 * the tensors. */
void vx_weights_stats_get(const vx_ctx *x, int torch_alloc, vx_weights_stats *out) VX_HIDDEN;
void vx_weights_stats_compute(const vx_ctx *x, int torch_alloc, vx_weights_stats *out) VX_HIDDEN;

/* Weights held by the rank `sh` as the caching allocator counts them
 * (`alloc`), their exact bytes, the slack of the segments they open, and the
 * largest matrix quantized on load: the whole model with one GPU, the
 * groups the rank keeps (TP/PP/EP splits, device_map layers) otherwise. */
struct vx_shard;
void vx_rank_weights(const vx_ctx *x, const struct vx_shard *sh, uint64_t *alloc, uint64_t *exact, uint64_t *slack,
                     uint64_t *largest_q) VX_HIDDEN;

/* Notes on what the policy could not do as asked (embeddings and norms kept
 * at the compute dtype, GGUF block fallbacks, padded groups), added to the
 * result as warnings. */
void vx_precision_notes(const vx_ctx *x, struct vramest_result *r) VX_HIDDEN;

/* Write the resolved dtypes into a values struct (for the plan's echo). */
void vx_precision_echo(const vx_ctx *x, vx_precision_values *out) VX_HIDDEN;

/* The storage dtype matrices get (a dtype, a GGUF file mix 300+, or AUTO =
 * as stored), resolved from the options and the method. */
int vx_policy_weight_dtype(const vx_ctx *x) VX_HIDDEN;

#endif
