/* The workload configuration handle: plain values, so clone is a copy and
 * a result can keep an echo of it without allocating. */
#ifndef VX_CONFIG_H
#define VX_CONFIG_H

#include "common/options.h"
#include "model/model.h" /* VX_HEAD_* */
#include "common/values.h"
#include "runtime/runtime.h" /* VX_FW_* */

enum { VX_MODE_LOAD = 0, VX_MODE_TRAIN = 1, VX_MODE_INFER = 2, VX_MODE_RL = 3 };
enum { VX_OPT_NONE = 0, VX_OPT_SGD = 1, VX_OPT_SGD_MOMENTUM = 2, VX_OPT_ADAM = 3, VX_OPT_ADAMW = 4,
       VX_OPT_ADAMW_8BIT = 5, VX_OPT_PAGED_ADAMW_8BIT = 6, VX_OPT_ADAFACTOR = 7, VX_OPT_LION = 8 };
enum { VX_OPTIMPL_AUTO = 0, VX_OPTIMPL_FOREACH = 1, VX_OPTIMPL_FUSED = 2, VX_OPTIMPL_SINGLE = 3 };
enum { VX_FT_FULL = 0, VX_FT_LORA = 1, VX_FT_QLORA = 2, VX_FT_PREFIX = 3, VX_FT_FREEZE = 4 };
enum { VX_GC_NONE = 0, VX_GC_FULL = 1, VX_GC_SELECTIVE = 2, VX_GC_OPS = 3 };
enum { VX_ATTN_EAGER = 0, VX_ATTN_SDPA = 1, VX_ATTN_FLASH = 2 };
enum { VX_FSDP_NONE = 0, VX_FSDP_FULL_SHARD = 1, VX_FSDP_SHARD_GRAD_OP = 2, VX_FSDP_HYBRID_SHARD = 3 };
enum { VX_OFFLOAD_NONE = 0, VX_OFFLOAD_CPU = 1, VX_OFFLOAD_NVME = 2 };
enum { VX_PPS_1F1B = 0, VX_PPS_GPIPE = 1, VX_PPS_INTERLEAVED = 2 };
enum { VX_OVERLAP_AUTO = 0, VX_OVERLAP_OFF = 1, VX_OVERLAP_ON = 2 };
enum { VX_PPSPLIT_BALANCED = 0, VX_PPSPLIT_UNIFORM = 1 };
enum { VX_SPLIT_LAYER = 0, VX_SPLIT_ROW = 1, VX_SPLIT_NONE = 2 };
enum { VX_DMAP_NONE = 0, VX_DMAP_AUTO = 1, VX_DMAP_BALANCED = 2, VX_DMAP_BALANCED_LOW_0 = 3, VX_DMAP_SEQUENTIAL = 4 };

/* vramest_role: REFERENCE, REWARD, CRITIC, DRAFT. */
#define VX_NROLES 4

typedef struct vx_config_values {
    /* workload */
    int64_t mode, batch_size, seq_len, grad_accum_steps, head, num_labels;
    int64_t optimizer, optimizer_impl, finetune, lora_rank;
    char lora_targets[VX_STR_MAX];
    int64_t gradient_checkpointing, attention, prompt_len, gen_len, kv_cache, beams;
    double lora_dropout;
    int64_t prefix_len, trainable_layers;
    /* parallel */
    int64_t gpus, tp, pp, dp, ep, zero_stage, fsdp, offload_optimizer, offload_params;
    int64_t sequence_parallel, cp, pp_schedule, virtual_stages;
    /* device */
    char device[VX_STR_MAX];
    double memory_gib;
    /* runtime */
    double cuda_context_mib;
    int64_t framework;
    double gpu_memory_utilization;
    int64_t block_size, max_model_len, max_num_seqs, max_num_batched_tokens, enforce_eager;
    int64_t n_gpu_layers, n_ctx, n_batch, n_ubatch;
    /* parallel, appended (issue #7) */
    double bucket_cap_mb;
    int64_t reduce_bucket_size, allgather_bucket_size, prefetch_bucket_size, max_live_parameters;
    int64_t param_persistence_threshold, overlap_comm, sub_group_size, offload_pin_memory, offload_activations;
    int64_t limit_all_gathers, gpus_per_node;
    double nccl_mib;
    int64_t device_map;
    char max_memory[VX_STR_MAX];
    int64_t pp_split;
    int64_t max_reuse_distance;
    int64_t optimizer_in_backward;
    /* device, appended (issue #20) */
    double headroom_gib, headroom_fraction;
    /* runtime, appended (issue #17): the stack's versions ("" = current release) */
    char torch_version[VX_STR_MAX];
    char transformers_version[VX_STR_MAX];
    char framework_version[VX_STR_MAX];
    /* runtime, appended (issue #18): serving engines */
    int64_t enable_lora, max_loras, max_lora_rank, sampler;
    double mem_fraction_static;
    int64_t chunked_prefill_size, cuda_graph_max_bs, max_total_tokens, enable_dp_attention;
    int64_t n_seq, kv_unified, num_ctx, num_parallel;
    int64_t split_mode;
    char tensor_split[VX_STR_MAX];
    /* Not options: the versions above as VX_VER values (0 = the default),
     * parsed when set; framework_v is -1 while the text is no version of
     * the framework (vx_config_check says why). */
    int64_t torch_v, transformers_v, framework_v;
    /* training settings, appended (issue #17) */
    int64_t loss, loss_chunks, checkpoint_every, activation_offloading, fsdp_version, compile;
    /* post-training with RL, appended (issue #23): workload keys, the spec's
     * "rl" object and its "rollout" member (rollout_* options) */
    int64_t algorithm, num_generations, rollout_batch_size, micro_batch_size;
    int64_t rl_reference, rl_reference_offload, rl_reward, rl_critic, rl_placement, rl_reference_vocab;
    int64_t rl_trainer_sleep;
    int64_t rollout_engine, rollout_tp, rollout_max_model_len, rollout_max_num_seqs, rollout_max_num_batched_tokens;
    int64_t rollout_enforce_eager, rollout_sleep_mode, rollout_free_cache_engine;
    double rollout_gpu_memory_utilization;
    char rollout_engine_version[VX_STR_MAX];
    /* Not an option: the GPU preset `device` names (index into vx_gpus, -1
     * none), resolved when `device` is set so estimates never search names. */
    int64_t gpu_index;
    /* workload, appended (issue #16 item 3): images per sample and the
     * language-model tokens of one (0: the model's) */
    int64_t images, image_tokens;
    /* rl, appended (issue #23): a reward model of its own on the host between its passes */
    int64_t rl_reward_offload;
    int64_t rl_reference_gpus, rl_reward_gpus, rl_critic_gpus; /* GPUs of its own (0: the trainer's) */
    /* runtime, appended (issue #18): the serving engines' prefix caches */
    int64_t enable_prefix_caching, disable_radix_cache;
    int64_t speculative_method, num_speculative_tokens;
} vx_config_values;

struct vramest_config {
    uint32_t magic;
    uint64_t set_bits[VX_SET_WORDS];
    vx_config_values v;
    /* Not an option: the runtime v.framework and the versions resolve to,
     * kept current by the setters so that an estimate copies it instead of
     * applying the runtime table's rules. */
    vx_runtime rt;
    vx_runtime_versions rt_asked; /* the versions rt was resolved at (0: the default) */
    /* The job's other models by role (vramest_role - 1), each with its
     * own precision or NULL for the job's: the handle's own clones, freed
     * with it. A copy of the struct by value (the solvers' variations, an
     * estimate's derived configs) borrows them: only vramest_config_free
     * frees, and no copy outlives the handle it was made from. */
    struct vramest_model *role_model[VX_NROLES];
    struct vramest_precision *role_prec[VX_NROLES];
};

/* The model and precision `cfg` names for `role` (a vramest_role), NULL
 * when none (either may be NULL: a role model at the job's precision). */
static inline const struct vramest_model *vx_config_role_model(const struct vramest_config *c, int role)
{
    return role >= 1 && role <= VX_NROLES ? c->role_model[role - 1] : NULL;
}
static inline const struct vramest_precision *vx_config_role_prec(const struct vramest_config *c, int role)
{
    return role >= 1 && role <= VX_NROLES ? c->role_prec[role - 1] : NULL;
}

/* Its layout for copies and comparisons by meaning (common/values.h), and
 * the same without batch_size and seq_len (the estimate caches' key). */
extern const vx_layout vx_config_layout VX_HIDDEN;
extern const vx_layout vx_config_key_layout VX_HIDDEN;

/* A config with every default, for vramest_estimate(..., NULL). */
void vx_config_init(struct vramest_config *c) VX_HIDDEN;
int vx_config_check(const struct vramest_config *c) VX_HIDDEN;
/* Re-resolve v.gpu_index from v.device (after any change of `device`). */
void vx_config_resolve_device(vx_config_values *v) VX_HIDDEN;
/* The config's runtime: c->rt when it matches the values, else resolved
 * afresh into `buf` (a config whose values were written directly). */
/* Re-parse the versions (after framework or a version changed); sets no
 * error: an invalid framework_version leaves framework_v -1. */
void vx_config_resolve_versions(vx_config_values *v) VX_HIDDEN;
const vx_runtime *vx_config_runtime(const struct vramest_config *c, vx_runtime *buf) VX_HIDDEN;
/* A config holding `v` (a copy, as an estimator derives one job from
 * another: mode rl's phases), its runtime resolved. set_bits stay empty. */
void vx_config_from_values(struct vramest_config *c, const vx_config_values *v) VX_HIDDEN;

#endif
