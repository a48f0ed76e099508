/* Option table of the workload configuration handle (design.md §6:
 * workload, parallel, device and runtime objects). Names are a contract. */
#include <stddef.h>

#include "runtime/config.h"

static const vx_enum_name mode_e[] = {{VX_MODE_LOAD, "load"}, {VX_MODE_TRAIN, "train"}, {VX_MODE_INFER, "infer"}, {VX_MODE_RL, "rl"}, {0, NULL}};
static const vx_enum_name head_e[] = {{VX_HEAD_AUTO, "auto"},        {VX_HEAD_CAUSAL_LM, "causal_lm"},
                                      {VX_HEAD_SEQ2SEQ_LM, "seq2seq_lm"}, {VX_HEAD_MASKED_LM, "masked_lm"},
                                      {VX_HEAD_SEQ_CLS, "seq_cls"},   {VX_HEAD_NONE, "none"},
                                      {0, NULL}};
static const vx_enum_name optimizer_e[] = {
    {VX_OPT_NONE, "none"},         {VX_OPT_SGD, "sgd"},
    {VX_OPT_SGD_MOMENTUM, "sgd_momentum"}, {VX_OPT_ADAM, "adam"},
    {VX_OPT_ADAMW, "adamw"},       {VX_OPT_ADAMW_8BIT, "adamw_8bit"},
    {VX_OPT_PAGED_ADAMW_8BIT, "paged_adamw_8bit"}, {VX_OPT_ADAFACTOR, "adafactor"},
    {VX_OPT_LION, "lion"},         {0, NULL}};
static const vx_enum_name optimpl_e[] = {{VX_OPTIMPL_AUTO, "auto"},   {VX_OPTIMPL_FOREACH, "foreach"},
                                         {VX_OPTIMPL_FUSED, "fused"}, {VX_OPTIMPL_SINGLE, "single_tensor"},
                                         {0, NULL}};
static const vx_enum_name finetune_e[] = {{VX_FT_FULL, "full"},     {VX_FT_LORA, "lora"},     {VX_FT_QLORA, "qlora"},
                                          {VX_FT_PREFIX, "prefix"}, {VX_FT_FREEZE, "freeze"}, {0, NULL}};
static const vx_enum_name gc_e[] = {{VX_GC_NONE, "none"}, {VX_GC_FULL, "full"}, {VX_GC_SELECTIVE, "selective"},
                                    {VX_GC_OPS, "ops"},   {0, NULL}};
static const vx_enum_name loss_e[] = {{VX_LOSS_CE, "cross_entropy"}, {VX_LOSS_CHUNKED, "chunked"},
                                      {VX_LOSS_FUSED_LINEAR, "fused_linear"}, {VX_LOSS_SUM, "sum"}, {0, NULL}};
static const vx_enum_name attn_e[] = {{VX_ATTN_EAGER, "eager"}, {VX_ATTN_SDPA, "sdpa"}, {VX_ATTN_FLASH, "flash"}, {0, NULL}};
static const vx_enum_name fsdp_e[] = {{VX_FSDP_NONE, "none"},
                                      {VX_FSDP_FULL_SHARD, "full_shard"},
                                      {VX_FSDP_SHARD_GRAD_OP, "shard_grad_op"},
                                      {VX_FSDP_HYBRID_SHARD, "hybrid_shard"},
                                      {0, NULL}};
static const vx_enum_name offload_e[] = {{VX_OFFLOAD_NONE, "none"}, {VX_OFFLOAD_CPU, "cpu"}, {VX_OFFLOAD_NVME, "nvme"}, {0, NULL}};
static const vx_enum_name pps_e[] = {{VX_PPS_1F1B, "1f1b"}, {VX_PPS_GPIPE, "gpipe"}, {VX_PPS_INTERLEAVED, "interleaved"}, {0, NULL}};
static const vx_enum_name overlap_e[] = {{VX_OVERLAP_AUTO, "auto"}, {VX_OVERLAP_OFF, "off"}, {VX_OVERLAP_ON, "on"}, {0, NULL}};
static const vx_enum_name dmap_e[] = {{VX_DMAP_NONE, "none"},         {VX_DMAP_AUTO, "auto"},
                                      {VX_DMAP_BALANCED, "balanced"}, {VX_DMAP_BALANCED_LOW_0, "balanced_low_0"},
                                      {VX_DMAP_SEQUENTIAL, "sequential"}, {0, NULL}};
static const vx_enum_name ppsplit_e[] = {{VX_PPSPLIT_BALANCED, "balanced"}, {VX_PPSPLIT_UNIFORM, "uniform"}, {0, NULL}};
static const vx_enum_name alg_e[] = {{VX_ALG_GRPO, "grpo"}, {VX_ALG_PPO, "ppo"},   {VX_ALG_DPO, "dpo"},
                                     {VX_ALG_KTO, "kto"},   {VX_ALG_ORPO, "orpo"}, {VX_ALG_SIMPO, "simpo"},
                                     {0, NULL}};
static const vx_enum_name ref_e[] = {{VX_REF_AUTO, "auto"}, {VX_REF_NONE, "none"}, {VX_REF_COPY, "copy"},
                                     {VX_REF_ADAPTERS_DISABLED, "adapters_disabled"}, {0, NULL}};
static const vx_enum_name refoff_e[] = {{VX_OFFLOAD_NONE, "none"}, {VX_OFFLOAD_CPU, "cpu"}, {0, NULL}};
static const vx_enum_name reward_e[] = {{VX_REWARD_RULE, "rule"}, {VX_REWARD_NONE, "none"}, {0, NULL}};
static const vx_enum_name critic_e[] = {{VX_CRITIC_NONE, "none"}, {VX_CRITIC_COPY, "copy"}, {0, NULL}};
static const vx_enum_name place_e[] = {{VX_PLACE_AUTO, "auto"}, {VX_PLACE_SAME_PROCESS, "same_process"},
                                       {VX_PLACE_COLOCATED, "colocated"}, {VX_PLACE_SEPARATE, "separate"},
                                       {VX_PLACE_SHARED, "shared"},
                                       {0, NULL}};
static const vx_enum_name rengine_e[] = {{VX_ROLLOUT_AUTO, "auto"}, {VX_ROLLOUT_TRANSFORMERS, "transformers"},
                                         {VX_ROLLOUT_VLLM, "vllm"}, {VX_ROLLOUT_NONE, "none"}, {0, NULL}};
static const vx_enum_name tri_e[] = {{VX_TRI_AUTO, "auto"}, {VX_TRI_OFF, "off"}, {VX_TRI_ON, "on"}, {0, NULL}};
static const vx_enum_name split_e[] = {{VX_SPLIT_LAYER, "layer"}, {VX_SPLIT_ROW, "row"}, {VX_SPLIT_NONE, "none"}, {0, NULL}};
static const vx_enum_name spec_e[] = {{VX_SPEC_NONE, "none"},     {VX_SPEC_DRAFT, "draft_model"}, {VX_SPEC_EAGLE, "eagle"},
                                      {VX_SPEC_EAGLE3, "eagle3"}, {VX_SPEC_MTP, "mtp"},           {VX_SPEC_NGRAM, "ngram"},
                                      {0, NULL}};
static const vx_enum_name sampler_e[] = {{0, "native"}, {1, "flashinfer"}, {0, NULL}};
#define F(field) offsetof(vx_config_values, field)
#define ROW(key, name, alias, type, grp, mn, mx, def, enums, defs, field, modelled, desc)                          \
    {key, name, alias, VRAMEST_HANDLE_CONFIG, type, grp, mn, mx, def, enums, defs, F(field), modelled, desc}
#define I64(key, name, grp, mn, mx, def, field, m, desc) \
    ROW(key, name, NULL, VRAMEST_TYPE_I64, grp, mn, mx, def, NULL, #def, field, m, desc)
#define ENUM(key, name, grp, enums, def, field, m, desc) \
    ROW(key, name, NULL, VRAMEST_TYPE_ENUM, grp, 0, (double)(VX_ARRAY_LEN(enums) - 2), def, enums, NULL, field, m, desc)
#define BOOL(key, name, grp, def, field, m, desc) \
    ROW(key, name, NULL, VRAMEST_TYPE_BOOL, grp, 0, 1, def, NULL, NULL, field, m, desc)
#define F64(key, name, grp, mn, mx, def, field, m, desc) \
    ROW(key, name, NULL, VRAMEST_TYPE_F64, grp, mn, mx, def, NULL, #def, field, m, desc)
#define STR(key, name, grp, def, field, m, desc) \
    ROW(key, name, NULL, VRAMEST_TYPE_STRING, grp, 0, VX_STR_MAX - 1, 0, NULL, def, field, m, desc)

/* `modelled` says whether the estimator models the option's effect yet; a
 * non-default value of an unmodelled option is refused by vramest_estimate
 * with VRAMEST_E_UNSUPPORTED instead of being silently ignored. */
const vx_option_def vx_config_options[] = {
    ENUM(VRAMEST_CFG_MODE, "mode", "workload", mode_e, VX_MODE_LOAD, mode, true,
         "what to estimate: load (weights resident, nothing run), train (one training step) or infer (generation)"),
    I64(VRAMEST_CFG_BATCH_SIZE, "batch_size", "workload", 1, 1e9, 1, batch_size, true,
        "micro-batch size (sequences per forward pass)"),
    I64(VRAMEST_CFG_SEQ_LEN, "seq_len", "workload", 1, 1073741824, 2048, seq_len, true,
        "tokens per sequence (training; also the default prompt length)"),
    I64(VRAMEST_CFG_GRAD_ACCUM_STEPS, "grad_accum_steps", "workload", 1, 1e9, 1, grad_accum_steps, true,
        "gradient accumulation steps (micro-batches per optimizer step)"),
    ENUM(VRAMEST_CFG_HEAD, "head", "workload", head_e, VX_HEAD_AUTO, head, true,
         "model class: auto (from config.json architectures), causal_lm, seq2seq_lm, masked_lm, seq_cls, none"),
    I64(VRAMEST_CFG_NUM_LABELS, "num_labels", "workload", 0, 1e7, 0, num_labels, true,
        "labels of a seq_cls head (0 = the model's num_labels, default 2)"),
    ENUM(VRAMEST_CFG_OPTIMIZER, "optimizer", "workload", optimizer_e, VX_OPT_ADAMW, optimizer, true,
         "optimizer: none (forward+backward only), sgd, sgd_momentum, adam, adamw, adamw_8bit, paged_adamw_8bit, adafactor, lion"),
    ENUM(VRAMEST_CFG_OPTIMIZER_IMPL, "optimizer_impl", "workload", optimpl_e, VX_OPTIMPL_AUTO, optimizer_impl, true,
         "optimizer step implementation: auto (foreach on CUDA, as PyTorch 2 defaults), foreach, fused, single_tensor"),
    ENUM(VRAMEST_CFG_FINETUNE, "finetune", "workload", finetune_e, VX_FT_FULL, finetune, true,
         "what trains: full, lora, qlora (4-bit base + LoRA), prefix (prefix tuning), freeze (last trainable_layers)"),
    I64(VRAMEST_CFG_LORA_RANK, "lora_rank", "workload", 1, 65536, 8, lora_rank, true, "LoRA rank r"),
    STR(VRAMEST_CFG_LORA_TARGETS, "lora_targets", "workload", "auto", lora_targets, true,
        "LoRA target modules as in the HF model (comma list, e.g. q_proj,v_proj), all-linear, or auto (PEFT's default for the family)"),
    ENUM(VRAMEST_CFG_GRADIENT_CHECKPOINTING, "gradient_checkpointing", "workload", gc_e, VX_GC_NONE,
         gradient_checkpointing, true,
         "activation checkpointing: none, full (per layer), selective (attention core recomputed, Megatron), ops "
         "(torchtitan's op-level policy: the outputs of every other matmul and of attention saved)"),
    ENUM(VRAMEST_CFG_ATTENTION, "attention", "workload", attn_e, VX_ATTN_SDPA, attention, true,
         "attention kernel: eager (materialized scores), sdpa (PyTorch SDPA), flash (FlashAttention 2)"),
    I64(VRAMEST_CFG_PROMPT_LEN, "prompt_len", "workload", 0, 1073741824, 0, prompt_len, true,
        "inference prompt tokens (0 = seq_len)"),
    I64(VRAMEST_CFG_GEN_LEN, "gen_len", "workload", 0, 1073741824, 0, gen_len, true, "inference: new tokens generated"),
    BOOL(VRAMEST_CFG_KV_CACHE, "kv_cache", "workload", 1, kv_cache, true, "inference keeps a KV cache"),
    I64(VRAMEST_CFG_BEAMS, "beams", "workload", 1, 1024, 1, beams, true, "beam-search beams (multiply the KV cache)"),
    F64(VRAMEST_CFG_LORA_DROPOUT, "lora_dropout", "workload", 0, 0.999, 0.0, lora_dropout, true,
        "LoRA dropout probability (> 0 keeps a dropped copy of each adapter input)"),
    I64(VRAMEST_CFG_PREFIX_LEN, "prefix_len", "workload", 1, 1048576, 20, prefix_len, true,
        "prefix tuning: virtual tokens per layer"),
    I64(VRAMEST_CFG_TRAINABLE_LAYERS, "trainable_layers", "workload", 0, 1048576, 0, trainable_layers, true,
        "finetune=freeze: how many of the last layers train"),
    BOOL(VRAMEST_CFG_OPTIMIZER_IN_BACKWARD, "optimizer_in_backward", "workload", 0, optimizer_in_backward, true,
         "step each parameter inside backward as its gradient arrives and free the gradient (torchtune "
         "optimizer_in_bwd, PyTorch _apply_optimizer_in_backward): no full set of gradients; needs grad_accum_steps 1"),
    ENUM(VRAMEST_CFG_LOSS, "loss", "workload", loss_e, VX_LOSS_CE, loss, true,
         "causal-LM loss: cross_entropy (the logits, then cross-entropy), chunked (torchtune's CEWithChunkedOutputLoss: "
         "loss_chunks logits chunks, each upcast in turn), fused_linear (Liger / Cut-Cross-Entropy: the logits are "
         "never materialized), sum (a benchmark's logits.sum(), no labels)"),
    I64(VRAMEST_CFG_LOSS_CHUNKS, "loss_chunks", "workload", 1, 32, 8, loss_chunks, true,
        "loss chunked: logits chunks along the sequence (torchtune num_output_chunks)"),
    I64(VRAMEST_CFG_CHECKPOINT_EVERY, "checkpoint_every", "workload", 1, 1048576, 1, checkpoint_every, true,
        "with gradient_checkpointing full: checkpoint every k-th layer (torchtitan selective_ac_option k), the others "
        "keep their activations"),
    BOOL(VRAMEST_CFG_ACTIVATION_OFFLOADING, "activation_offloading", "workload", 0, activation_offloading, true,
         "saved activations move to pinned host memory in forward and back in backward (torchtune "
         "enable_activation_offloading; Unsloth's offloaded gradient checkpointing): the GPU keeps what is in flight"),
    I64(VRAMEST_CFG_IMAGES, "images", "workload", 0, 65536, 0, images, true,
        "images per sample of a multimodal model: each adds its tokens to seq_len (training) or prompt_len "
        "(inference) and runs the vision tower over its patches"),
    I64(VRAMEST_CFG_IMAGE_TOKENS, "image_tokens", "workload", 0, 16777216, 0, image_tokens, true,
        "language-model tokens per image (0 = from the model's config: its fixed count, or a 1024 x 1024 image "
        "for dynamic-resolution towers)"),

    I64(VRAMEST_CFG_GPUS, "gpus", "parallel", 1, 1e7, 1, gpus, true, "world size (GPUs in the job)"),
    I64(VRAMEST_CFG_TP, "tp", "parallel", 1, 65536, 1, tp, true, "tensor-parallel size"),
    I64(VRAMEST_CFG_PP, "pp", "parallel", 1, 4096, 1, pp, true,
        "pipeline-parallel size (at most 4096 stages: the per-stage layout costs O(pp^2) to evaluate)"),
    I64(VRAMEST_CFG_DP, "dp", "parallel", 0, 1e7, 0, dp, true, "data-parallel size (0 = gpus / (tp*pp*cp))"),
    I64(VRAMEST_CFG_EP, "ep", "parallel", 1, 65536, 1, ep, true, "expert-parallel size (MoE)"),
    I64(VRAMEST_CFG_ZERO_STAGE, "zero_stage", "parallel", 0, 3, 0, zero_stage, true, "DeepSpeed ZeRO stage (0-3)"),
    ENUM(VRAMEST_CFG_FSDP, "fsdp", "parallel", fsdp_e, VX_FSDP_NONE, fsdp, true,
         "PyTorch FSDP sharding: none, full_shard, shard_grad_op, hybrid_shard"),
    ENUM(VRAMEST_CFG_OFFLOAD_OPTIMIZER, "offload_optimizer", "parallel", offload_e, VX_OFFLOAD_NONE, offload_optimizer,
         true, "optimizer states (and fp32 master weights) offloaded to: none, cpu, nvme"),
    ENUM(VRAMEST_CFG_OFFLOAD_PARAMS, "offload_params", "parallel", offload_e, VX_OFFLOAD_NONE, offload_params, true,
         "parameters offloaded to: none, cpu, nvme (ZeRO-3)"),
    BOOL(VRAMEST_CFG_SEQUENCE_PARALLEL, "sequence_parallel", "parallel", 0, sequence_parallel, true,
         "Megatron sequence parallelism with TP (activations split along the sequence)"),
    I64(VRAMEST_CFG_CP, "cp", "parallel", 1, 65536, 1, cp, true, "context-parallel size"),
    ENUM(VRAMEST_CFG_PP_SCHEDULE, "pp_schedule", "parallel", pps_e, VX_PPS_1F1B, pp_schedule, true,
         "pipeline schedule: 1f1b, gpipe, interleaved"),
    I64(VRAMEST_CFG_VIRTUAL_STAGES, "virtual_stages", "parallel", 1, 1024, 1, virtual_stages, true,
        "interleaved pipeline: virtual stages per rank"),
    F64(VRAMEST_CFG_BUCKET_CAP_MB, "bucket_cap_mb", "parallel", 1, 1048576, 25, bucket_cap_mb, true,
        "DDP gradient bucket size in MiB (torch DDP bucket_cap_mb)"),
    I64(VRAMEST_CFG_REDUCE_BUCKET_SIZE, "reduce_bucket_size", "parallel", 1, 1e12, 500000000, reduce_bucket_size, true,
        "DeepSpeed ZeRO reduce_bucket_size (elements; HF 'auto' = hidden^2)"),
    I64(VRAMEST_CFG_ALLGATHER_BUCKET_SIZE, "allgather_bucket_size", "parallel", 1, 1e12, 500000000,
        allgather_bucket_size, true, "DeepSpeed ZeRO-1/2 allgather_bucket_size (elements)"),
    I64(VRAMEST_CFG_PREFETCH_BUCKET_SIZE, "prefetch_bucket_size", "parallel", 0, 1e12, 50000000, prefetch_bucket_size,
        true, "DeepSpeed ZeRO-3 stage3_prefetch_bucket_size (elements; HF 'auto' = 0.9*hidden^2)"),
    I64(VRAMEST_CFG_MAX_LIVE_PARAMETERS, "max_live_parameters", "parallel", 0, 1e13, 1000000000, max_live_parameters,
        true, "DeepSpeed ZeRO-3 stage3_max_live_parameters (elements gathered at once)"),
    I64(VRAMEST_CFG_MAX_REUSE_DISTANCE, "max_reuse_distance", "parallel", 0, 1e13, 1000000000, max_reuse_distance,
        true,
        "DeepSpeed ZeRO-3 stage3_max_reuse_distance (elements): a gathered parameter used again within this many "
        "elements of the module trace is not released (keeps the last layers gathered from forward to backward)"),
    I64(VRAMEST_CFG_PARAM_PERSISTENCE_THRESHOLD, "param_persistence_threshold", "parallel", 0, 1e12, 100000,
        param_persistence_threshold, true,
        "DeepSpeed ZeRO-3 stage3_param_persistence_threshold: smaller parameters stay whole on every rank"),
    ENUM(VRAMEST_CFG_OVERLAP_COMM, "overlap_comm", "parallel", overlap_e, VX_OVERLAP_AUTO, overlap_comm, true,
         "DeepSpeed overlap_comm (doubles the reduce bucket): auto (on for ZeRO-3, off otherwise), off, on"),
    I64(VRAMEST_CFG_SUB_GROUP_SIZE, "sub_group_size", "parallel", 1, 1e13, 1000000000, sub_group_size, true,
        "DeepSpeed ZeRO-3 sub_group_size (elements per optimizer sub-group)"),
    BOOL(VRAMEST_CFG_OFFLOAD_PIN_MEMORY, "offload_pin_memory", "parallel", 0, offload_pin_memory, true,
         "offload buffers in pinned host memory (DeepSpeed pin_memory)"),
    BOOL(VRAMEST_CFG_OFFLOAD_ACTIVATIONS, "offload_activations", "parallel", 0, offload_activations, true,
         "checkpointed activations kept in host memory (DeepSpeed cpu_checkpointing, torch save_on_cpu)"),
    BOOL(VRAMEST_CFG_LIMIT_ALL_GATHERS, "limit_all_gathers", "parallel", 1, limit_all_gathers, true,
         "FSDP limit_all_gathers: at most two unsharded units in flight"),
    I64(VRAMEST_CFG_GPUS_PER_NODE, "gpus_per_node", "parallel", 1, 65536, 8, gpus_per_node, true,
        "GPUs per node (hybrid sharding group; host RAM is reported per node)"),
    F64(VRAMEST_CFG_NCCL_MIB, "nccl_mib", "parallel", -1, 1048576, -1, nccl_mib, true,
        "NCCL communicator buffers per rank in MiB, outside PyTorch's allocator (-1 = estimated)"),
    ENUM(VRAMEST_CFG_DEVICE_MAP, "device_map", "parallel", dmap_e, VX_DMAP_NONE, device_map, true,
         "Hugging Face device_map placement of whole layers over the GPUs and the CPU: none, auto, balanced, "
         "balanced_low_0, sequential"),
    STR(VRAMEST_CFG_MAX_MEMORY, "max_memory", "parallel", "", max_memory, true,
        "device_map budgets per device, e.g. \"0:10GiB,1:10GiB,cpu:30GiB\" (empty = gpus x the device, CPU unbounded)"),
    I64(VRAMEST_CFG_FSDP_VERSION, "fsdp_version", "parallel", 0, 2, 0, fsdp_version, true,
        "with fsdp: 1 (FullyShardedDataParallel) or 2 (fully_shard: per-parameter sharding, the root module never "
        "resharded after forward, the last block kept gathered); 0 = the framework's (torchtitan, torchtune: 2; "
        "others 1)"),
    ENUM(VRAMEST_CFG_PP_SPLIT, "pp_split", "parallel", ppsplit_e, VX_PPSPLIT_BALANCED, pp_split, true,
         "decoder layers per pipeline stage: balanced (by compute, the LM head counted as vocab x hidden on the last "
         "stage: nanotron, DeepSpeed-like), uniform (Megatron-LM: layers / pp, remainder to the first stages)"),

    STR(VRAMEST_CFG_DEVICE, "device", "device", "", device, true,
        "GPU preset name (see `vramest gpus`); empty = no device (no fit verdict)"),
    F64(VRAMEST_CFG_MEMORY_GIB, "memory_gib", "device", 0, 1048576, 0, memory_gib, true,
        "GPU memory in GiB (overrides the preset; 0 = from the preset; otherwise at least 0.25)"),
    F64(VRAMEST_CFG_HEADROOM_GIB, "headroom_gib", "device", 0, 1048576, 0, headroom_gib, true,
        "GiB kept free on each GPU: the verdict, the margin and the solvers use the memory minus this"),
    F64(VRAMEST_CFG_HEADROOM_FRACTION, "headroom_fraction", "device", 0, 0.9, 0, headroom_fraction, true,
        "fraction of each GPU kept free, added to headroom_gib (0.1 = 10%)"),

    F64(VRAMEST_CFG_CUDA_CONTEXT_MIB, "cuda_context_mib", "runtime", -1, 1048576, -1, cuda_context_mib, true,
        "CUDA context and library handles in MiB, outside PyTorch's allocator (-1 = the device's typical value)"),
    ENUM(VRAMEST_CFG_FRAMEWORK, "framework", "runtime", vx_framework_enum, VX_FW_PYTORCH, framework, true,
         "runtime: pytorch, hf_trainer, deepspeed, megatron, vllm, llama.cpp, sglang, ollama"),
    F64(VRAMEST_CFG_GPU_MEMORY_UTILIZATION, "gpu_memory_utilization", "runtime", 0.01, 1, 0.9, gpu_memory_utilization,
        true, "vLLM: fraction of the GPU memory it may use"),
    I64(VRAMEST_CFG_BLOCK_SIZE, "block_size", "runtime", 1, 1048576, 16, block_size, true,
        "vLLM: tokens per KV-cache block"),
    ROW(VRAMEST_CFG_MAX_MODEL_LEN, "max_model_len", "context_length", VRAMEST_TYPE_I64, "runtime", 0, 1073741824, 0,
        NULL, "0", max_model_len, true,
        "vLLM max_model_len, SGLang context_length: longest sequence (0 = the model's max_position_embeddings)"),
    ROW(VRAMEST_CFG_MAX_NUM_SEQS, "max_num_seqs", "max_running_requests", VRAMEST_TYPE_I64, "runtime", 0, 1e7, 0,
        NULL, "0", max_num_seqs, true,
        "vLLM max_num_seqs, SGLang max_running_requests: most sequences scheduled at once (0 = the engine's "
        "default for its version and GPU: vLLM 256, or 1024 on >= 70 GiB GPUs other than A100 from 0.9)"),
    I64(VRAMEST_CFG_MAX_NUM_BATCHED_TOKENS, "max_num_batched_tokens", "runtime", 0, 1073741824, 0,
        max_num_batched_tokens, true, "vLLM: tokens per scheduler step and profiling run (0 = vLLM's default)"),
    BOOL(VRAMEST_CFG_ENFORCE_EAGER, "enforce_eager", "runtime", 0, enforce_eager, true,
         "vLLM: no CUDA graphs (false = graph capture memory too)"),
    I64(VRAMEST_CFG_N_GPU_LAYERS, "n_gpu_layers", "runtime", -1, 1048576, -1, n_gpu_layers, true,
        "llama.cpp: layers offloaded to the GPU (-1 = all)"),
    I64(VRAMEST_CFG_N_CTX, "n_ctx", "runtime", 0, 1073741824, 0, n_ctx, true,
        "llama.cpp: context the KV cache is allocated for (0 = the model's context length)"),
    I64(VRAMEST_CFG_N_BATCH, "n_batch", "runtime", 0, 1073741824, 0, n_batch, true,
        "llama.cpp / Ollama: logical batch (0 = the engine's default: llama.cpp 2048, Ollama's num_batch 512)"),
    I64(VRAMEST_CFG_N_UBATCH, "n_ubatch", "runtime", 1, 1073741824, 512, n_ubatch, true,
        "llama.cpp: physical batch (sizes the compute buffer)"),
    BOOL(VRAMEST_CFG_COMPILE, "compile", "runtime", 0, compile, true,
         "the model and loss run under torch.compile (torchtune's chunked loss keeps no fp32 log-probabilities "
         "only when compiled; layer activations are estimated as in eager mode)"),
    BOOL(VRAMEST_CFG_ENABLE_LORA, "enable_lora", "runtime", 0, enable_lora, true,
         "vLLM --enable-lora: LoRA slots preallocated for max_loras adapters of max_lora_rank"),
    I64(VRAMEST_CFG_MAX_LORAS, "max_loras", "runtime", 1, 65536, 1, max_loras, true,
        "vLLM: LoRA adapters served in one batch (slots preallocated)"),
    I64(VRAMEST_CFG_MAX_LORA_RANK, "max_lora_rank", "runtime", 1, 65536, 16, max_lora_rank, true,
        "vLLM: the largest LoRA rank served (slots are this wide)"),
    ENUM(VRAMEST_CFG_SAMPLER, "sampler", "runtime", sampler_e, 0, sampler, true,
         "vLLM V1 sampler in the profile run: native (PyTorch top-k/top-p, 28 B per row x vocab element) or "
         "flashinfer (VLLM_USE_FLASHINFER_SAMPLER=1, about 10 B)"),
    F64(VRAMEST_CFG_MEM_FRACTION_STATIC, "mem_fraction_static", "runtime", 0, 1, 0, mem_fraction_static, true,
        "SGLang: fraction of the GPU for weights and the KV pool (0 = SGLang's default for the GPU and tp)"),
    I64(VRAMEST_CFG_CHUNKED_PREFILL_SIZE, "chunked_prefill_size", "runtime", 0, 1073741824, 0, chunked_prefill_size,
        true, "SGLang: tokens per prefill chunk (0 = SGLang's default for the GPU)"),
    I64(VRAMEST_CFG_CUDA_GRAPH_MAX_BS, "cuda_graph_max_bs", "runtime", 0, 1048576, 0, cuda_graph_max_bs, true,
        "SGLang: largest batch captured in a CUDA graph (0 = SGLang's default for the GPU and tp)"),
    I64(VRAMEST_CFG_MAX_TOTAL_TOKENS, "max_total_tokens", "runtime", 0, 1e12, 0, max_total_tokens, true,
        "SGLang: tokens of the KV pool, overriding the memory rule (0 = from mem_fraction_static)"),
    BOOL(VRAMEST_CFG_ENABLE_DP_ATTENTION, "enable_dp_attention", "runtime", 0, enable_dp_attention, true,
         "SGLang: attention data-parallel over the tp ranks (each holds whole KV heads of its own requests)"),
    I64(VRAMEST_CFG_N_SEQ, "n_seq", "runtime", 0, 65536, 0, n_seq, true,
        "llama.cpp: sequences / parallel slots (-np; 0 = batch_size x beams)"),
    BOOL(VRAMEST_CFG_KV_UNIFIED, "kv_unified", "runtime", 0, kv_unified, true,
         "llama.cpp -kvu: one KV buffer shared by the slots (the cells, n_ctx, are the same either way)"),
    I64(VRAMEST_CFG_NUM_CTX, "num_ctx", "runtime", 0, 1073741824, 0, num_ctx, true,
        "Ollama: context per request (0 = Ollama's default for its version and the VRAM)"),
    I64(VRAMEST_CFG_NUM_PARALLEL, "num_parallel", "runtime", 0, 65536, 0, num_parallel, true,
        "Ollama OLLAMA_NUM_PARALLEL: requests served at once, each with num_ctx (0 = 1)"),
    ENUM(VRAMEST_CFG_SPLIT_MODE, "split_mode", "runtime", split_e, VX_SPLIT_LAYER, split_mode, true,
         "llama.cpp --split-mode over gpus: layer (whole layers per GPU by tensor_split), row (each layer's "
         "matrices split by tensor_split, the rest on the first GPU) or none (the first GPU only)"),
    STR(VRAMEST_CFG_TENSOR_SPLIT, "tensor_split", "runtime", "", tensor_split, true,
        "llama.cpp --tensor-split: each GPU's share, one number per GPU (\"3,1\" or a JSON list; \"\" = equal)"),
    ENUM(VRAMEST_CFG_ENABLE_PREFIX_CACHING, "enable_prefix_caching", "runtime", tri_e, VX_TRI_AUTO,
         enable_prefix_caching, true,
         "vLLM --enable-prefix-caching: auto (the version's default: on from V1, 0.8; off before), off, on. Cached "
         "blocks are blocks of the same pool, indexed on the host: the pool, its blocks and the concurrency at "
         "max_model_len do not change"),
    BOOL(VRAMEST_CFG_DISABLE_RADIX_CACHE, "disable_radix_cache", "runtime", 0, disable_radix_cache, true,
         "SGLang --disable-radix-cache: the radix tree (on by default) indexes the token pool on the host; the pool "
         "does not change"),
    ENUM(VRAMEST_CFG_SPECULATIVE_METHOD, "speculative_method", "runtime", spec_e, VX_SPEC_NONE, speculative_method,
         true,
         "vLLM / SGLang speculative decoding: none, draft_model (the spec's runtime.draft_model), eagle / eagle3 (a "
         "draft head given as runtime.draft_model, sharing the embedding), mtp (the model's own "
         "num_nextn_predict_layers layers) or ngram (nothing on the GPU); the draft's weights and its K/V in the pool"),
    I64(VRAMEST_CFG_NUM_SPECULATIVE_TOKENS, "num_speculative_tokens", "runtime", 0, 64, 0, num_speculative_tokens,
        true, "vLLM / SGLang: draft tokens proposed per step; each running sequence keeps that many lookahead KV slots"),
    STR(VRAMEST_CFG_TORCH_VERSION, "torch_version", "runtime", "", torch_version, true,
        "PyTorch release the job runs, e.g. \"2.4\" or \"1.13\" (\"\" = 2.13, the newest seen by 2026-08; known "
        "1.8 to 2.13, newer ones use the rules of 2.13)"),
    STR(VRAMEST_CFG_TRANSFORMERS_VERSION, "transformers_version", "runtime", "", transformers_version, true,
        "Hugging Face transformers release, e.g. \"4.44\" or \"5.0\" (\"\" = 5.15, the newest seen by 2026-08; "
        "known 4.0 to 5.15, newer ones use the rules of 5.15)"),
    STR(VRAMEST_CFG_FRAMEWORK_VERSION, "framework_version", "runtime", "", framework_version, true,
        "version of the framework named by `framework`: a release (\"0.19.5\"), a llama.cpp build (\"b4823\") or "
        "a date (\"2024-06\") as the framework takes (\"\" = its current release; pytorch and hf_trainer take "
        "torch_version and transformers_version instead)"),

    /* Post-training with RL (issue #23; docs/guide.md "RL post-training"). */
    ENUM(VRAMEST_CFG_ALGORITHM, "algorithm", "workload", alg_e, VX_ALG_GRPO, algorithm, true,
         "mode rl: grpo, ppo (with rl.critic copy), or the preference family dpo, kto, orpo, simpo (no "
         "rollout: chosen and rejected completions through the policy, the reference inside the step)"),
    I64(VRAMEST_CFG_NUM_GENERATIONS, "num_generations", "workload", 1, 65536, 8, num_generations, true,
        "mode rl: completions sampled per prompt (TRL num_generations, verl rollout.n)"),
    I64(VRAMEST_CFG_ROLLOUT_BATCH_SIZE, "rollout_batch_size", "workload", 0, 1e9, 0, rollout_batch_size, true,
        "mode rl: prompts per step over all GPUs (verl data.train_batch_size; 0 = batch_size x gpus x "
        "grad_accum_steps / num_generations, TRL's generation batch)"),
    I64(VRAMEST_CFG_MICRO_BATCH_SIZE, "micro_batch_size", "workload", 0, 1e9, 0, micro_batch_size, true,
        "mode rl: sequences per GPU in one training or scoring micro-batch (0 = batch_size; with rollout_batch_size, "
        "rollout_batch_size / data-parallel GPUs: verl's legacy global micro-batch, normalized per GPU without "
        "x num_generations)"),
    ENUM(VRAMEST_CFG_RL_REFERENCE, "reference", "rl", ref_e, VX_REF_AUTO, rl_reference, true,
         "the frozen reference model: auto (the stack's default: TRL beta 0 none, verl a copy or the policy with "
         "adapters disabled), none (KL coefficient 0), copy, adapters_disabled (LoRA)"),
    ENUM(VRAMEST_CFG_RL_REFERENCE_OFFLOAD, "reference_offload", "rl", refoff_e, VX_OFFLOAD_NONE,
         rl_reference_offload, true, "reference weights kept on the host between its forward passes: none, cpu"),
    ENUM(VRAMEST_CFG_RL_REWARD, "reward", "rl", reward_e, VX_REWARD_RULE, rl_reward, true,
         "the reward: rule (a function, no model on the GPU) or none; a reward model of its own is the spec's "
         "{\"model\": ...} (vramest_config_set_role_model)"),
    ENUM(VRAMEST_CFG_RL_CRITIC, "critic", "rl", critic_e, VX_CRITIC_NONE, rl_critic, true,
         "the value model: none (GRPO, the DPO family) or copy (PPO: the policy's architecture with a value head, "
         "trained); a model of its own is {\"model\": ...} in the spec (vramest_config_set_role_model)"),
    ENUM(VRAMEST_CFG_RL_PLACEMENT, "placement", "rl", place_e, VX_PLACE_AUTO, rl_placement, true,
         "where the rollout engine runs: auto (from the engine), same_process (generate() in the trainer), "
         "colocated (a vLLM engine on the trainer's GPUs), separate (a vLLM server on its own GPUs), shared (OpenRLHF "
         "--train.colocate_all: the engine and every model on the same GPUs)"),
    BOOL(VRAMEST_CFG_RL_TRAINER_SLEEP, "trainer_sleep", "rl", 0, rl_trainer_sleep, true,
         "the trainer's models (policy, critic, reference) move to the host between phases and back for their own "
         "(OpenRLHF --ds.enable_sleep); verl does so through parallel.offload_params / offload_optimizer"),
    I64(VRAMEST_CFG_RL_REFERENCE_VOCAB, "reference_vocab", "rl", 0, 1e9, 0, rl_reference_vocab, true,
        "the vocabulary of a reference model of its own (the spec's rl.reference {\"model\": ...} sets it; 0 = "
        "the policy's): another vocabulary than the policy's is an error, the same one is not modelled yet"),
    ENUM(VRAMEST_CFG_ROLLOUT_ENGINE, "rollout_engine", "rl", rengine_e, VX_ROLLOUT_AUTO, rollout_engine, true,
         "rl.rollout.engine: auto (TRL transformers, verl vllm; none for the DPO family), transformers, vllm, none"),
    STR(VRAMEST_CFG_ROLLOUT_ENGINE_VERSION, "rollout_engine_version", "rl", "", rollout_engine_version, true,
        "rl.rollout.engine_version: the engine's release, as runtime.framework_version takes it (\"\" = current)"),
    I64(VRAMEST_CFG_ROLLOUT_TP, "rollout_tp", "rl", 0, 65536, 0, rollout_tp, true,
        "rl.rollout.tp: the engine's tensor-parallel size (0 = 1)"),
    F64(VRAMEST_CFG_ROLLOUT_GPU_MEMORY_UTILIZATION, "rollout_gpu_memory_utilization", "rl", 0, 1, 0,
        rollout_gpu_memory_utilization, true,
        "rl.rollout.gpu_memory_utilization: the engine's fraction of each GPU (0 = the stack's default: TRL "
        "colocate 0.3, verl 0.5, separate 0.9)"),
    I64(VRAMEST_CFG_ROLLOUT_MAX_MODEL_LEN, "rollout_max_model_len", "rl", 0, 1073741824, 0, rollout_max_model_len,
        true, "rl.rollout.max_model_len (0 = prompt_len + gen_len)"),
    I64(VRAMEST_CFG_ROLLOUT_MAX_NUM_SEQS, "rollout_max_num_seqs", "rl", 0, 1e7, 0, rollout_max_num_seqs, true,
        "rl.rollout.max_num_seqs (0 = vLLM's 256)"),
    I64(VRAMEST_CFG_ROLLOUT_MAX_NUM_BATCHED_TOKENS, "rollout_max_num_batched_tokens", "rl", 0, 1073741824, 0,
        rollout_max_num_batched_tokens, true, "rl.rollout.max_num_batched_tokens (0 = vLLM's)"),
    BOOL(VRAMEST_CFG_ROLLOUT_ENFORCE_EAGER, "rollout_enforce_eager", "rl", 0, rollout_enforce_eager, true,
         "rl.rollout.enforce_eager: no CUDA graphs in the engine"),
    ENUM(VRAMEST_CFG_ROLLOUT_SLEEP_MODE, "rollout_sleep_mode", "rl", tri_e, VX_TRI_AUTO, rollout_sleep_mode, true,
         "rl.rollout.sleep_mode: the colocated engine frees its weights and KV pool while the trainer runs "
         "(auto = the stack's default: TRL 1.9 off, verl 0.9 on); true/false are taken as on/off"),
    ENUM(VRAMEST_CFG_ROLLOUT_FREE_CACHE_ENGINE, "rollout_free_cache_engine", "rl", tri_e, VX_TRI_AUTO,
         rollout_free_cache_engine, true,
         "rl.rollout.free_cache_engine: the KV pool is freed after the rollout even without sleep mode (auto = as "
         "sleep_mode)"),
    ENUM(VRAMEST_CFG_RL_REWARD_OFFLOAD, "reward_offload", "rl", refoff_e, VX_OFFLOAD_NONE, rl_reward_offload, true,
         "a reward model of its own (rl.reward {\"model\": ...}) kept on the host between its forward passes: none, "
         "cpu (OpenRLHF --ref_reward_offload)"),
    I64(VRAMEST_CFG_RL_REFERENCE_GPUS, "reference_gpus", "rl", -1, 65536, 0, rl_reference_gpus, true,
        "the reference on GPUs of its own, how many (OpenRLHF --ref.num_gpus_per_node x nodes); -1 on the trainer's "
        "GPUs; 0 the stack's (OpenRLHF: as many as the trainer's unless placement shared, else the trainer's)"),
    I64(VRAMEST_CFG_RL_REWARD_GPUS, "reward_gpus", "rl", -1, 65536, 0, rl_reward_gpus, true,
        "a reward model of its own on GPUs of its own, how many (OpenRLHF --reward.num_gpus_per_node x nodes); -1 "
        "and 0 as reference_gpus"),
    I64(VRAMEST_CFG_RL_CRITIC_GPUS, "critic_gpus", "rl", -1, 65536, 0, rl_critic_gpus, true,
        "PPO's critic on GPUs of its own, how many (OpenRLHF --critic.num_gpus_per_node x nodes); -1 and 0 as "
        "reference_gpus"),
};
const size_t vx_config_option_count = VX_ARRAY_LEN(vx_config_options);
