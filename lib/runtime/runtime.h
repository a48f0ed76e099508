/* The software stack an estimate assumes (the workload option `framework`
 * and, later, the versions of torch, transformers and the framework): one
 * row of behaviours per framework, then version-ranged rules, resolved
 * once per estimate into a flat vx_runtime the estimator reads. Whatever
 * depends on the framework or a version is a field here; the estimator
 * never tests the framework itself. Sources of each behaviour are in
 * docs/methodology.md, "The runtime table". */
#ifndef VX_RUNTIME_H
#define VX_RUNTIME_H

#include "common/options.h"
#include "runtime/version.h"

/* Values of the `framework` option. Append-only (pinned option values). */
enum { VX_FW_PYTORCH = 0, VX_FW_HF_TRAINER = 1, VX_FW_DEEPSPEED = 2, VX_FW_MEGATRON = 3,
       VX_FW_VLLM = 4, VX_FW_LLAMA_CPP = 5, VX_FW_TORCHTUNE = 6, VX_FW_TORCHTITAN = 7, VX_FW_NANOTRON = 8,
       VX_FW_UNSLOTH = 9, VX_FW_TRL = 10, VX_FW_VERL = 11, VX_FW_OPENRLHF = 12,
       VX_FW_SGLANG = 13, VX_FW_OLLAMA = 14, VX_FW_COUNT_ };
/* The `framework` option's names (NULL-terminated), beside the rows. */
extern const vx_enum_name vx_framework_enum[VX_FW_COUNT_ + 1] VX_HIDDEN;

/* How inference runs: transformers generate() (the PyTorch frameworks),
 * vLLM's paged engine, llama.cpp's ggml buffers. */
enum { VX_ENGINE_HF = 0, VX_ENGINE_VLLM = 1, VX_ENGINE_LLAMACPP = 2, VX_ENGINE_SGLANG = 3, VX_ENGINE_OLLAMA = 4 };
/* Values of workload.loss (the option's order). */
/* Post-training with RL (issue #23): the algorithm, the models beside the
 * policy, where the rollout engine runs. Append-only (pinned option values). */
enum { VX_ALG_GRPO = 0, VX_ALG_PPO = 1, VX_ALG_DPO = 2, VX_ALG_KTO = 3, VX_ALG_ORPO = 4, VX_ALG_SIMPO = 5 };
enum { VX_REF_AUTO = 0, VX_REF_NONE = 1, VX_REF_COPY = 2, VX_REF_ADAPTERS_DISABLED = 3 };
enum { VX_REWARD_RULE = 0, VX_REWARD_NONE = 1 };
enum { VX_CRITIC_NONE = 0, VX_CRITIC_COPY = 1 };
enum { VX_PLACE_AUTO = 0, VX_PLACE_SAME_PROCESS = 1, VX_PLACE_COLOCATED = 2, VX_PLACE_SEPARATE = 3, VX_PLACE_SHARED = 4 };
enum { VX_ROLLOUT_AUTO = 0, VX_ROLLOUT_TRANSFORMERS = 1, VX_ROLLOUT_VLLM = 2, VX_ROLLOUT_NONE = 3 };
enum { VX_TRI_AUTO = 0, VX_TRI_OFF = 1, VX_TRI_ON = 2 };
/* Values of runtime.speculative_method (issue #18). Append-only. */
enum { VX_SPEC_NONE = 0, VX_SPEC_DRAFT = 1, VX_SPEC_EAGLE = 2, VX_SPEC_EAGLE3 = 3, VX_SPEC_MTP = 4, VX_SPEC_NGRAM = 5 };
enum { VX_LOSS_CE = 0, VX_LOSS_CHUNKED = 1, VX_LOSS_FUSED_LINEAR = 2, VX_LOSS_SUM = 3, VX_LOSS_COUNT_ };
/* Who reduces the gradients of plain data parallelism (no ZeRO/FSDP). */
enum { VX_DDP_TORCH = 0, VX_DDP_DEEPSPEED = 1, VX_DDP_MEGATRON = 2 };
/* What `zero_stage` runs: DeepSpeed's ZeRO (buffers, LinearFunctionForZeroStage3),
 * or the framework's own sharding in place (Megatron's distributed optimizer). */
enum { VX_ZERO_DEEPSPEED = 0, VX_ZERO_MEGATRON = 1 };

/* The versions an estimate runs at, as VX_VER values (version.h); 0 = the
 * default, the component's current release. */
typedef struct vx_runtime_versions {
    int torch;
    int transformers;
    int framework; /* of the framework named by `framework` */
} vx_runtime_versions;

/* What the table knows of one component's versions: the forms it takes,
 * the range whose behaviour is modelled, and its current release (the
 * default), newest as of the research snapshot of 2026-08-22
 * (docs/methodology.md, "Versions"). An older version than `oldest` is an
 * error; a newer one than `newest` is estimated with the newest rules and
 * a warning. */
typedef struct vx_version_info {
    const char *name;   /* "torch", "transformers", "DeepSpeed" */
    int forms;          /* VX_VS_* accepted; 0: no version of its own */
    int form;           /* the form `oldest`, `newest` and `current` are written in */
    int oldest, newest; /* the modelled range */
    int current;        /* the default */
    const char *since;  /* when `current` was the newest release seen */
    const char *own;    /* forms 0: the option that versions it instead */
} vx_version_info;

extern const vx_version_info vx_torch_versions VX_HIDDEN;
extern const vx_version_info vx_transformers_versions VX_HIDDEN;
/* The version info of a framework's row (NULL for an unknown framework). */
const vx_version_info *vx_framework_versions(int framework) VX_HIDDEN;

/* Bits of vx_runtime.defaulted: which versions no one gave. */
enum { VX_RTV_TORCH = 1, VX_RTV_TRANSFORMERS = 2, VX_RTV_FRAMEWORK = 4 };

/* A resolved runtime. Every field is an int so that the struct has no
 * padding: caches compare it byte for byte. 0 is the common case of every
 * field, so a row names only where its framework differs. */
typedef struct vx_runtime {
    int framework;    /* VX_FW_* of the row */
    int torch, transformers, framework_version; /* as resolved (VX_VER; 0: the framework has none) */
    int defaulted;    /* VX_RTV_* of the versions that are defaults, not given */
    int hf_code;      /* runs transformers' model classes (the transformers rules apply) */

    /* the process */
    int engine;       /* VX_ENGINE_*: what runs inference */
    int kv_engine;    /* VX_ENGINE_* whose KV layout it uses: vLLM's pages (vLLM, SGLang), llama.cpp's
                         cells (llama.cpp, Ollama's runner), or transformers' caches (0) */
    int ggml_alloc;   /* tensors are ggml buffers of exact size, not PyTorch caching-allocator blocks */
    int cpu;          /* tensors on the CPU (the torch harness; internal): no 512-B rounding, cuBLAS
                         workspace or allocator reserve, CPU autocast lists, eager attention,
                         single-tensor optimizers with their `step` counters counted, checkpoint
                         RNG states on the device */

    /* the model code (torch, transformers) */
    int torch1_mean;         /* torch 1.x: mean() saves its input (RMSNorm +4 B x N x h) */
    int hf_legacy;           /* transformers <= 4.44: per-layer RoPE tables, the loss upcasting
                                outside the cross-entropy */
    int model_logits_upcast; /* Llama-family classes call logits.float() inside the model (<= 4.45) */
    int shift_copy;          /* the loss copies the shifted logits (.contiguous(), <= 4.48) */
    int repeat_kv;           /* GQA K/V expanded to every head before SDPA (< 4.48) */
    int loss_upcast;         /* the causal-LM cross-entropy upcasts its logits to fp32 (ForCausalLMLoss,
                                >= 4.45; torchtitan, Megatron, nanotron) */
    int gen_logits_to_keep;  /* generate() asks the Llama-style heads (those that upcast in the model)
                                for the last position's logits only (num_logits_to_keep = 1, >= 4.45) */
    int gen_logits_to_keep_all; /* ... and every decoder class takes it (>= 4.57) */
    int tuple_cache;         /* generate() keeps legacy tuple KV caches where the family's class
                                used them (<= 4.44; later releases use Cache objects) */
    int mask_bytes;          /* bytes per dropout-mask element; 0 = 1 (the CUDA fused kernel's bool);
                                the CPU F.dropout path keeps one in the activation dtype */

    /* the training loop */
    int losses;              /* bit VX_LOSS_*: the workload.loss values the framework can run (0: every one) */
    int loss_own;            /* the loss it runs when workload.loss is left at cross_entropy and it has no
                                plain cross-entropy (0: cross_entropy) */
    int sac_ops;             /* runs op-level selective checkpointing (gradient_checkpointing ops) */
    int act_offload;         /* can offload saved activations to the host (workload.activation_offloading) */
    int fsdp2;               /* fsdp_version 0 means FSDP2 (fully_shard) */
    int static_shapes;       /* trains on packed fixed-length batches: the allocator reuses its blocks whole */
    int logits_held;         /* the loop keeps the model output (logits) through backward: a plain
                                PyTorch loop keeps `outputs`, HF Trainer drops it */
    int adapter_bytes;       /* bytes per LoRA adapter element; 0 = 4 (PEFT's autocast_adapter_dtype) */
    int adapter_param_dtype; /* LoRA adapters, their gradients and states in the parameters' dtype
                                (torchtune builds them under the model's default dtype) */
    int no_kbit_prep;        /* QLoRA without prepare_model_for_kbit_training: nothing upcast to fp32
                                (torchtune's torchao NF4 path) */
    int opt_fused;           /* `optimizer_impl auto` steps with fused multi-tensor kernels (DeepSpeed
                                FusedAdam / CPU Adam, Megatron apex/TE Adam): no parameter-sized
                                temporaries */
    int opt_decay_groups;    /* the optimizer gets two parameter groups, with and without weight
                                decay (HF Trainer); foreach temporaries are per group */
    int pure_default;        /* its training runs the model in the checkpoint's 16-bit dtype throughout
                                (torchtune's dtype: bf16): a job without precision stays as stored */
    int mixed_master;        /* its bf16 training keeps 16-bit weights with fp32 master weights and
                                states (DeepSpeed, Megatron), not autocast over fp32 weights: the
                                precision a training step runs when its own says nothing */

    /* the parallel engine */
    int megatron_layer;      /* Megatron-Core transformer layers (fused norms and projections) */
    int fp32_main_grads;     /* 16-bit parameters with fp32 master weights accumulate gradients in
                                fp32 main-grad buffers */
    int contiguous_grads;    /* one contiguous main-grad buffer, kept whole under the distributed
                                optimizer (ZeRO-1 semantics below ZeRO-3 / FSDP) */
    int zero;                /* VX_ZERO_*: what zero_stage runs */
    int ddp;                 /* VX_DDP_*: the data-parallel gradient reduction's buffers */
    int vocab_pad;           /* vocab-parallel rows padded to a multiple of vocab_pad x tp (0 = none) */
    int ep_replaces_tp;      /* expert parallelism replaces tensor parallelism inside experts */
    int attn_dp_in_tp;       /* with enable_dp_attention, dp splits the tp ranks into attention data-parallel
                                groups (world = tp x pp, attention over tp / dp ranks) instead of replicating
                                the model dp times (SGLang, layers/dp_attention.py) */

    /* post-training with RL (issue #23): what the stack does by default,
     * between phases and in its loss; read by estimate/rl/ only */
    int rl_stack;            /* a post-training stack: mode rl runs on it */
    int rl_reference;        /* VX_REF_* when the job says auto (TRL beta 0.0: none) */
    int rl_engine;           /* VX_ROLLOUT_* when auto */
    int rl_placement;        /* VX_PLACE_* when auto */
    int rl_sleep;            /* the colocated engine sleeps between rollouts by default */
    int rl_util_permille;    /* the engine's gpu_memory_utilization default, x 1000 */
    int rl_offload_between;  /* offload_params / offload_optimizer move the states off the GPU between phases
                                and back for each phase's compute (verl), not per layer (FSDP CPUOffload) */
    int rl_logits_all;       /* the policy's log-prob forward computes logits at every position (verl's
                                unpadded logits), not only the completion's (TRL logits_to_keep) */
    int rl_group_check;      /* batch_size x processes x grad_accum_steps must be a whole number of prompt
                                groups (TRL GRPOConfig); other stacks take a prompt count */
    int rl_engine_process;   /* a colocated engine runs in a process of its own (its own CUDA context, kept
                                while it sleeps): verl >= 0.7 rollout mode async, OpenRLHF's Ray actors */
    int rl_sleep_lora_host;  /* a sleeping engine of a LoRA policy keeps its base weights on the host (vLLM
                                sleep level 1: verl); otherwise they are discarded (level 2: TRL) */
    int rl_rollout_tp;       /* the engine's tensor parallelism when rl.rollout.tp is 0 (0 = 1) */
    int rl_old_logps;        /* the policy's log-probs are recomputed in the scoring phase: 1 always (verl
                                compute_log_prob), 2 with a vLLM engine (TRL's importance-sampling
                                correction, on by default; without vLLM only for num_iterations > 1) */
    int rl_own_gpus;         /* the reference, reward model and critic run on GPUs of their own, as many as the
                                trainer's, unless every model shares them (OpenRLHF's placement groups) */
    int rl_seqs_unpassed;    /* rl.rollout.max_num_seqs never reaches the engine, which runs at vLLM's own
                                default (verl before 0.6: vllm_rollout_spmd.py built LLM() without it until
                                verl-project/verl#2960) */
    int tp_save_gathered;    /* a column-parallel linear under sequence parallelism saves its all-gathered
                                input, not the shard (nanotron before tp_recompute_allgather, 2024-07-17) */
    /* Appended (issue #16): the model code again */
    int cache_views;         /* the first cache update stores the K/V tensors it is handed, views of a
                                fused q|k|v output included (< 4.56; DynamicLayer copies since) */
    /* the serving engine (issue #18; docs/methodology.md "Serving engines") */
    int vllm_v1;             /* vLLM's V1 engine (default from 0.8): chunked prefill always on, the
                                profile's sampler over min(tokens, seqs) rows */
    int sampler_elem_bytes;  /* bytes per (row x vocab) element of the profile's sampler, logits
                                included, over the full vocabulary on the rank that samples */
    int gpu_class_defaults;  /* max_num_seqs / max_num_batched_tokens default to 1024 / 8192 on GPUs
                                of >= 70 GiB other than A100 (vLLM >= 0.9), else 256 / 2048 */
    int graphs_in_budget;    /* CUDA-graph memory is estimated and taken from the KV budget
                                (vLLM >= 0.21); before, graphs are captured after the pool, on top */
    int nccl_before_snapshot; /* vLLM >= 0.11: the NCCL communicators exist before the init memory
                                snapshot, so the pool is not charged for them (they sit on top of the
                                budget) and the engine refuses to start when the free memory left after
                                them is below the budget; before, the profile charged them to the pool */
    int fa_default;          /* llama.cpp: flash attention when the job does not say (-fa auto, on CUDA) */
    int mla_uncompressed;    /* llama.cpp: MLA cached as full K and V per head (before the latent cache) */
    int gguf_qkv_own_rule;   /* llama.cpp's quantizer before ggml-org/llama.cpp#19770 (b8265): a fused
                                attn_qkv has its own file-type rule (Q4_K_M -> Q5_K, ...) instead of
                                attn_v's, and attn_kv_b keeps the file type's default */
} vx_runtime;

/* Resolve the runtime of `framework` at the versions `v` (NULL = all
 * defaults): the framework's row, then every rule whose version range
 * holds. Cheap (a copy and a short scan): the config does it when a
 * setting it depends on changes (config.c). Versions are not checked
 * here (vx_runtime_check_version does that when they are set). */
void vx_runtime_resolve(int framework, const vx_runtime_versions *v, vx_runtime *out) VX_HIDDEN;

/* Parse `text` as a version of `vi` (VRAMEST_OK and *out > 0), or fail
 * with a message naming `option`: VRAMEST_E_PARSE for text in none of its
 * forms, VRAMEST_E_RANGE for a version older than the modelled range,
 * VRAMEST_E_CONFLICT for a component without versions of its own. */
int vx_runtime_check_version(const vx_version_info *vi, const char *option, const char *text, int *out) VX_HIDDEN;

/* Parse `text` in the forms of `vi` (a date becomes a llama.cpp build);
 * 0, or -1 when it is none of them. Sets no error. */
int vx_runtime_parse_version(const vx_version_info *vi, const char *text, int *out, int *form) VX_HIDDEN;

#endif
