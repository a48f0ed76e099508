/* Parallel layout of one rank: how each tensor and each category is split
 * (TP, PP, EP, CP, sequence parallel, ZeRO / FSDP sharding, offload). The
 * training and inference estimators ask these functions instead of dividing
 * by world sizes themselves, so every category is sharded by one rule. */
#ifndef VX_PARALLEL_H
#define VX_PARALLEL_H

#include "estimate/estimate.h"

typedef struct vx_shard {
    int64_t world, tp, pp, dp, ep, cp;
    int sequence_parallel;
    int zero_stage;          /* 0-3 (FSDP maps: full_shard ~ 3, shard_grad_op ~ 2, hybrid within a node) */
    int fsdp;                /* VX_FSDP_* */
    int64_t shard_group;     /* ranks a ZeRO/FSDP shard is split over (dp, or the node for hybrid) */
    int offload_optimizer;   /* VX_OFFLOAD_* */
    int offload_params;      /* VX_OFFLOAD_* */
    int pp_schedule;         /* VX_PPS_* */
    int64_t virtual_stages;
    /* The rank the headline figures describe (the worst one). */
    int64_t stage;           /* pipeline stage index of that rank */
    int64_t stage_layers;    /* decoder layers on that stage */
    int first_stage, last_stage; /* holds the embeddings / the LM head and loss */
    int64_t inflight_microbatches; /* activations of this many micro-batches alive (1F1B: pp - stage) */
    /* Appended (issue #7): */
    int64_t first_layer;       /* index of this stage's first decoder layer */
    int64_t inflight_layer_mb; /* activation sets alive at the peak, in (layer, micro-batch) units:
                                  stage_layers * inflight_microbatches, or the interleaved count */
    int64_t heads_rank, kv_heads_rank; /* attention / KV heads on this rank (KV >= 1: replicated when tp > kv) */
    int64_t etp;               /* tensor-parallel split inside one routed expert */
} vx_shard;

/* Resolve and validate the layout (tp must divide heads and kv heads, pp <=
 * layers, gpus == tp*pp*dp*cp, ...) -> VRAMEST_E_CONFLICT / E_RANGE with the
 * values. `stage` selects the rank (-1 = the worst for memory). */
int vx_shard_resolve(const vx_ctx *x, int64_t stage, vx_shard *out) VX_HIDDEN;
/* Elements of one inventory group held by this rank before ZeRO/FSDP
 * sharding: TP splits attention/MLP matrices (column or row), replicates
 * norms; vocab-parallel embedding/LM head; EP splits routed experts; PP keeps
 * only this stage's layers and the first/last stage's global tensors. */
uint64_t vx_shard_tensor_elems(const vx_shard *sh, const vx_ctx *x, const vx_tensor *t) VX_HIDDEN;
/* Divisor ZeRO/FSDP applies to a category on this rank (1 = replicated). */
int64_t vx_shard_divisor(const vx_shard *sh, int category) VX_HIDDEN;
/* Device class (VRAMEST_DEV_*) a category's sharded bytes live on under the
 * offload settings: GPU, HOST or NVME. Offloaded bytes move, never vanish. */
int vx_shard_offload_device(const vx_shard *sh, int category) VX_HIDDEN;

#endif
