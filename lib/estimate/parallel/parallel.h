/* Parallel layout of one rank: how each tensor and each category is split
 * (TP, PP, EP, CP, sequence parallel, ZeRO / FSDP sharding, offload). The
 * training and inference estimators ask these functions instead of dividing
 * by world sizes themselves, so every category is sharded by one rule. */
#ifndef VX_PARALLEL_H
#define VX_PARALLEL_H

#include "estimate/context/context.h"

typedef struct vx_shard {
    int64_t world, tp, pp, dp, ep, cp;
    int sequence_parallel;
    int zero_stage;          /* 0-3 (FSDP maps: full_shard ~ 3, shard_grad_op ~ 2, hybrid within a node) */
    int fsdp;                /* VX_FSDP_* */
    int fsdp2;               /* FSDP2 (fully_shard): fsdp_version 2, or the framework's default */
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
    int placement;             /* 1: device_map placement (whole layers per GPU, run one after another) */
    int64_t device_index;      /* placement: the GPU index (cuda:N) this rank is */
    int64_t host_ranks;        /* ranks sharing one host (host/NVMe bytes are reported per node) */
    int offload_activations;   /* checkpointed activations kept on the host */
    int grads_whole;           /* Megatron/nanotron: the contiguous fp32 main-grad buffer stays whole
                                  under the distributed optimizer (ZeRO-1 semantics at any zero_stage < 3) */
    int64_t exec_layers;       /* layers whose KV cache / activations live on this GPU: stage_layers, plus
                                  on cuda:0 of a placement the CPU/disk layers it executes */
    /* Attention data parallelism inside the tp group (SGLang's
     * enable_dp_attention): attn_dp groups of attn_tp = tp / attn_dp ranks
     * each run attention for requests of their own; the rest of the layer
     * stays split over tp. 0 (a shard not from vx_shard_resolve) reads as
     * attn_dp 1, attn_tp = tp. */
    int64_t attn_tp, attn_dp;
} vx_shard;

/* Attention data-parallel groups inside the tp group (1: none): the
 * runtime's attn_dp_in_tp with enable_dp_attention, dp of them (dp 0: one
 * per tp rank; dp 1: off, as SGLang turns it off). */
int64_t vx_attn_dp(const vx_ctx *x) VX_HIDDEN;
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
/* Bytes of one inventory group held by this rank (vx_tensor_gpu_bytes scaled
 * to vx_shard_tensor_elems), before ZeRO/FSDP sharding. */
uint64_t vx_shard_tensor_bytes(const vx_shard *sh, const vx_ctx *x, const vx_tensor *t) VX_HIDDEN;
/* Add `bytes` of a category for this rank where the offload settings put it:
 * the GPU, or the host / NVMe (there multiplied by sh->host_ranks, since host
 * RAM and NVMe are per node). Use it instead of vx_result_add(..., DEV_GPU,
 * ...) for weights, master weights, gradients and optimizer states. */
void vx_shard_add(vx_ctx *x, const vx_shard *sh, int category, uint64_t bytes, uint64_t low, uint64_t high,
                  int prov) VX_HIDDEN;

/* ---- Several ranks ----
 * A mode estimator that fills x->r for ONE rank hands itself to
 * vx_for_each_rank_group(), which calls it once per distinct rank group
 * (pipeline stage 0, a middle stage, the last stage; the GPUs of a
 * device_map placement), each time on a result reset to its state before
 * the first call. The breakdown of each group lands in r->ranks[] (when
 * there is more than one GPU) and the worst group's full state (categories,
 * values, timeline) stays in r as the headline. The hook adds per-rank
 * terms itself: NCCL buffers (framework), host/NVMe bytes of CPU-placed
 * layers. With one GPU it is exactly one call of `estimate_one`. */
typedef int (*vx_rank_fn)(vx_ctx *x, const vx_shard *sh);
int vx_for_each_rank_group(vx_ctx *x, vx_rank_fn estimate_one) VX_HIDDEN;

/* Buffers that exist only with several GPUs or with sharding, for the rank
 * `sh`. Each field is bytes on the GPU in the named category, alive in the
 * named phases; the estimator adds them to its timeline where they live. */
typedef struct vx_par_buffers {
    uint64_t weights_persistent; /* WEIGHTS, whole step: ZeRO-3 params below param_persistence_threshold kept whole */
    uint64_t weights_fwd;        /* WEIGHTS, forward: gathered (unsharded) params of ZeRO-3 / FSDP units + prefetch */
    uint64_t weights_bwd;        /* WEIGHTS, backward: the same while recomputing gradients */
    uint64_t grads_persistent;   /* GRADIENTS, whole step: DDP bucket copies of the gradients */
    uint64_t grads_bwd;          /* GRADIENTS, backward: reduce buckets (ZeRO ipg), unsharded FSDP unit grads */
    uint64_t grads_accum;        /* GRADIENTS, from the first micro-batch's backward to the step when
                                    grad_accum_steps > 1: FSDP under no_sync keeps unsharded gradients */
    uint64_t step;               /* WORKSPACE, optimizer step: fp32 gradient partition copy (ZeRO) */
    uint64_t a2a;                /* WORKSPACE, forward and backward: MoE all-to-all send + receive buffers */
    uint64_t host_pinned;        /* HOST per rank: swap/staging buffers of NVMe offload */
    uint64_t nccl;               /* FRAMEWORK: NCCL communicators (outside the allocator; the hook adds it) */
} vx_par_buffers;
/* `trainable_elems`: parameters with gradients on this rank after TP/PP,
 * before ZeRO (UINT64_MAX: every parameter). */
void vx_parallel_buffers(const vx_ctx *x, const vx_shard *sh, uint64_t trainable_elems, vx_par_buffers *out) VX_HIDDEN;
/* The host's pinned swap buffers of NVMe offload, per rank (host_pinned). */
uint64_t vx_parallel_host_pinned(const vx_ctx *x, const vx_shard *sh) VX_HIDDEN;
/* DeepSpeed ZeRO-3 on this rank (not FSDP, not Megatron): every nn.Linear
 * runs DeepSpeed's LinearFunctionForZeroStage3 (deepspeed/runtime/zero/
 * linear.py), which zero.Init installs as torch.nn.functional.linear and
 * never restores. Its forward saves (input, weight, bias) whenever a graph
 * is built, so a frozen linear keeps its input for backward, and the
 * gathered weight is the released parameter itself, not a view that would
 * keep the gathered storage alive. */
int vx_shard_zero3_linear(const vx_ctx *x, const vx_shard *sh) VX_HIDDEN;
/* NCCL communicator bytes per rank (nccl_mib, or the default estimate). */
uint64_t vx_nccl_bytes(const vx_ctx *x, const vx_shard *sh) VX_HIDDEN;
/* Parameters of the largest decoder layer on this rank (after TP/EP), and of
 * the largest single module (embedding, LM head, one linear). */
void vx_shard_largest(const vx_ctx *x, const vx_shard *sh, uint64_t *layer_elems, uint64_t *module_elems) VX_HIDDEN;

#endif
