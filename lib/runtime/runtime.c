/* The runtime table (runtime.h): a row per framework, version-ranged rules
 * over it. A new framework is a row (and its VX_FW_* value); a behaviour
 * that changed in some release is a rule. Where each behaviour comes from
 * is in docs/methodology.md, "The runtime table". */
#include <stddef.h>
#include <string.h>

#include "runtime/runtime.h"

const vx_enum_name vx_framework_enum[VX_FW_COUNT_ + 1] = {{VX_FW_PYTORCH, "pytorch"}, {VX_FW_HF_TRAINER, "hf_trainer"},
                                          {VX_FW_DEEPSPEED, "deepspeed"}, {VX_FW_MEGATRON, "megatron"},
                                          {VX_FW_VLLM, "vllm"},       {VX_FW_LLAMA_CPP, "llama.cpp"},
                                          {VX_FW_TORCHTUNE, "torchtune"}, {VX_FW_TORCHTITAN, "torchtitan"},
                                          {VX_FW_NANOTRON, "nanotron"}, {VX_FW_UNSLOTH, "unsloth"},
                                          {VX_FW_TRL, "trl"}, {VX_FW_VERL, "verl"}, {VX_FW_OPENRLHF, "openrlhf"},
                                          {VX_FW_SGLANG, "sglang"},   {VX_FW_OLLAMA, "ollama"},
                                          {0, NULL}};

/* A row names where its framework differs from 0 in each field (a plain
 * PyTorch process on CUDA, transformers' model code, torch DDP, DeepSpeed's
 * ZeRO), and its own versions; version-dependent fields are left to the
 * rules below. Current releases: research/measure/versions.md (snapshot of
 * 2026-08-22). */
typedef struct row {
    vx_runtime rt;
    vx_version_info ver;
    int hf_code; /* runs transformers' model classes: the transformers rules apply */
} row;

static const row rows[VX_FW_COUNT_] = {
    /* A plain training loop keeps `outputs` (the logits) alive until the
     * step ends. Versioned by torch_version. */
    [VX_FW_PYTORCH] = {.rt = {.framework = VX_FW_PYTORCH, .logits_held = 1},
                       .ver = {.name = "pytorch", .own = "torch_version"},
                       .hf_code = 1},
    /* Trainer.compute_loss drops the outputs before backward; its
     * optimizer gets two parameter groups (weight decay or not). The
     * Trainer ships in transformers: versioned by transformers_version. */
    [VX_FW_HF_TRAINER] = {.rt = {.framework = VX_FW_HF_TRAINER, .opt_decay_groups = 1,
                                 .losses = 1 << VX_LOSS_CE | 1 << VX_LOSS_FUSED_LINEAR},
                          .ver = {.name = "hf_trainer", .own = "transformers_version"},
                          .hf_code = 1},
    /* FusedAdam / DeepSpeedCPUAdam; without ZeRO, gradients are reduced
     * by buffered_allreduce_fallback. */
    [VX_FW_DEEPSPEED] = {.rt = {.framework = VX_FW_DEEPSPEED, .opt_fused = 1, .ddp = VX_DDP_DEEPSPEED, .mixed_master = 1},
                         .ver = {.name = "DeepSpeed", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE,
                                 .oldest = VX_VER(0, 6, 0), .newest = VX_VER(0, 19, 5),
                                 .current = VX_VER(0, 19, 5), .since = "2026-08"},
                         .hf_code = 1},
    /* Megatron-Core: its own transformer layer, apex/TE fused Adam, fp32
     * main-grad buffers reduced in place, the distributed optimizer
     * instead of DeepSpeed's ZeRO, vocabulary padded to 128 x tp. Its own
     * model code (no transformers rules): bf16 logits upcast inside
     * vocab_parallel_cross_entropy, labels shifted by the data loader.
     * Versions are Megatron-Core's (tags core_v0.19.0). */
    [VX_FW_MEGATRON] = {.rt = {.framework = VX_FW_MEGATRON, .opt_fused = 1, .megatron_layer = 1,
                               .fp32_main_grads = 1, .contiguous_grads = 1, .zero = VX_ZERO_MEGATRON,
                               .ddp = VX_DDP_MEGATRON, .vocab_pad = 128, .mixed_master = 1, .losses = 1 << VX_LOSS_CE,
                               .loss_upcast = 1},
                        .ver = {.name = "Megatron-Core", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE,
                                .oldest = VX_VER(0, 4, 0), .newest = VX_VER(0, 19, 0),
                                .current = VX_VER(0, 19, 0), .since = "2026-08"}},
    /* vLLM: its own engine; vocabulary padded to 64 x tp; expert
     * parallelism replaces tensor parallelism inside the experts. */
    [VX_FW_VLLM] = {.rt = {.framework = VX_FW_VLLM, .engine = VX_ENGINE_VLLM, .kv_engine = VX_ENGINE_VLLM, .vocab_pad = 64, .ep_replaces_tp = 1},
                    .ver = {.name = "vLLM", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE,
                            .oldest = VX_VER(0, 2, 0), .newest = VX_VER(0, 27, 1), .current = VX_VER(0, 27, 1),
                            .since = "2026-08"}},
    /* llama.cpp: its own engine, ggml buffers of exact size. */
    [VX_FW_LLAMA_CPP] = {.rt = {.framework = VX_FW_LLAMA_CPP, .engine = VX_ENGINE_LLAMACPP, .kv_engine = VX_ENGINE_LLAMACPP, .ggml_alloc = 1},
                         .ver = {.name = "llama.cpp", .forms = VX_VS_BUILD | VX_VS_DATE, .form = VX_VS_BUILD, .oldest = 1,
                                 .newest = 10488, .current = 10488, .since = "2026-08"}},
    /* torchtune (meta-pytorch/torchtune@bd2a0fc7c, recipes and modules;
     * research runtimes-2026 §2): its own model code - bf16 logits, labels
     * shifted by the recipe, the logits list deleted before backward, GQA
     * K/V expanded before SDPA; LoRA adapters built in the model dtype; QLoRA
     * on torchao NF4 with nothing upcast; AdamW(fused=True); FSDP2; the
     * chunked loss (CEWithChunkedOutputLoss) and activation offloading. */
    [VX_FW_TORCHTUNE] = {.rt = {.framework = VX_FW_TORCHTUNE, .repeat_kv = 1, .opt_fused = 1, .adapter_param_dtype = 1,
                                .no_kbit_prep = 1, .pure_default = 1,
                                .losses = 1 << VX_LOSS_CE | 1 << VX_LOSS_CHUNKED, .sac_ops = 1,
                                .act_offload = 1, .fsdp2 = 1},
                         .ver = {.name = "torchtune", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE,
                                 .oldest = VX_VER(0, 1, 0), .newest = VX_VER(0, 6, 1), .current = VX_VER(0, 6, 1),
                                 .since = "2025-04"}},
    /* torchtitan (pytorch/torchtitan@9dec370 and @b5bcd76c6; research §3):
     * its own Llama - bf16 logits upcast inside the loss (pred.float()),
     * labels shifted by the dataset, `del pred` before backward, repeat_kv
     * before SDPA; FSDP2 (fully_shard); op-level selective checkpointing;
     * AdamW foreach. Versioned by date (no release but 0.1-0.2.2). */
    [VX_FW_TORCHTITAN] = {.rt = {.framework = VX_FW_TORCHTITAN, .repeat_kv = 1, .loss_upcast = 1,
                                 .losses = 1 << VX_LOSS_CE, .sac_ops = 1, .fsdp2 = 1, .static_shapes = 1},
                          .ver = {.name = "torchtitan", .forms = VX_VS_DATE, .form = VX_VS_DATE,
                                  .oldest = VX_VER(2024, 4, 0), .newest = VX_VER(2026, 8, 22),
                                  .current = VX_VER(2026, 8, 22), .since = "2026-08"}},
    /* nanotron (huggingface/nanotron@2411b022 and @d6b9f78c; research §4):
     * Megatron-style layers (fused norms, flash attention, merged gate_up),
     * fp32 gradient-accumulation buffers for all the rank's parameters with
     * the master weights and Adam states sharded (ZeRO-1 semantics), logits
     * cast to fp32 for the vocab-parallel cross-entropy; before 2024-07-17 a
     * column-parallel linear saved its all-gathered input (rule below).
     * Versioned by date (no release since v0.5, 2024-04). */
    [VX_FW_NANOTRON] = {.rt = {.framework = VX_FW_NANOTRON, .opt_fused = 1, .megatron_layer = 1,
                               .fp32_main_grads = 1, .contiguous_grads = 1, .zero = VX_ZERO_MEGATRON,
                               .mixed_master = 1, .losses = 1 << VX_LOSS_CE, .loss_upcast = 1, .static_shapes = 1},
                        .ver = {.name = "nanotron", .forms = VX_VS_DATE, .form = VX_VS_DATE,
                                .oldest = VX_VER(2024, 1, 0), .newest = VX_VER(2026, 4, 7),
                                .current = VX_VER(2026, 4, 7), .since = "2026-04"}},
    /* Unsloth (unslothai/unsloth@015bdef0d9; research §2 and
     * training-logs/unsloth-benchmarks-context-table.txt): transformers'
     * classes with its kernels patched in; the loss fused with the output
     * projection (logits never materialized); its gradient checkpointing
     * offloads each checkpointed input to the host; 4-bit loading through
     * bitsandbytes. Releases are dates (2026.8.19). */
    [VX_FW_UNSLOTH] = {.rt = {.framework = VX_FW_UNSLOTH, .losses = 1 << VX_LOSS_FUSED_LINEAR,
                              .loss_own = VX_LOSS_FUSED_LINEAR, .act_offload = 1},
                       .ver = {.name = "Unsloth", .forms = VX_VS_RELEASE | VX_VS_DATE, .form = VX_VS_RELEASE,
                               .oldest = VX_VER(2024, 1, 0), .newest = VX_VER(2026, 8, 19),
                               .current = VX_VER(2026, 8, 19), .since = "2026-08"},
                       .hf_code = 1},
    /* TRL (huggingface/trl@f2cd57710, trl/trainer/grpo_trainer.py and
     * grpo_config.py; docs/methodology.md "RL post-training"): a
     * transformers Trainer subclass; GRPO defaults beta 0.0 (no reference
     * model), use_vllm False (generate() in the trainer's process),
     * vllm_mode colocate with vllm_gpu_memory_utilization 0.3 and
     * vllm_enable_sleep_mode False; the policy's log-probs over the
     * completion only (logits_to_keep), recomputed before the step when
     * vLLM generated (vllm_importance_sampling_correction True). Releases
     * 0.14 (GRPO) to 1.9. */
    [VX_FW_TRL] = {.rt = {.framework = VX_FW_TRL, .opt_decay_groups = 1,
                          .losses = 1 << VX_LOSS_CE | 1 << VX_LOSS_FUSED_LINEAR, .rl_stack = 1,
                          .rl_reference = VX_REF_NONE, .rl_engine = VX_ROLLOUT_TRANSFORMERS,
                          .rl_placement = VX_PLACE_SAME_PROCESS, .rl_util_permille = 300, .rl_group_check = 1,
                          .rl_old_logps = 2},
                   .ver = {.name = "TRL", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE, .oldest = VX_VER(0, 14, 0),
                           .newest = VX_VER(1, 9, 2), .current = VX_VER(1, 9, 2), .since = "2026-08"},
                   .hf_code = 1},
    /* verl (verl-project/verl@1dda039b9, volcengine/verl@49b08e950;
     * workers/fsdp_workers.py, workers/actor/dp_actor.py, ppo_trainer.yaml):
     * the hybrid engine - FSDP actor and vLLM rollout in one process on the
     * same GPUs, the engine asleep (weights and KV pool freed) outside the
     * rollout; param_offload / optimizer_offload move the FSDP shards to
     * the host between phases and back for each phase; old log-probs
     * recomputed by the actor; logits of every (unpadded) position; no
     * reference unless use_kl_loss or use_kl_in_reward (both false by
     * default: trainer/ppo/utils.py need_reference_policy), then a copy or
     * the policy with adapters disabled for LoRA; rollout
     * gpu_memory_utilization 0.5, free_cache_engine true, tensor parallel
     * 2, mode async: a vLLM server process beside the trainer (rule below
     * for the in-process engine before 0.7)
     * (trainer/config/_generated_ppo_trainer.yaml). Releases 0.2 to 0.9. */
    [VX_FW_VERL] = {.rt = {.framework = VX_FW_VERL, .losses = 1 << VX_LOSS_CE | 1 << VX_LOSS_FUSED_LINEAR, .rl_stack = 1,
                           .rl_reference = VX_REF_NONE, .rl_engine = VX_ROLLOUT_VLLM,
                           .rl_placement = VX_PLACE_COLOCATED, .rl_sleep = 1, .rl_util_permille = 500,
                           .rl_offload_between = 1, .rl_logits_all = 1, .rl_old_logps = 1, .rl_engine_process = 1,
                           .rl_rollout_tp = 2, .rl_sleep_lora_host = 1},
                    .ver = {.name = "verl", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE, .oldest = VX_VER(0, 2, 0),
                            .newest = VX_VER(0, 9, 0), .current = VX_VER(0, 9, 0), .since = "2026-08"},
                    .hf_code = 1},
    /* OpenRLHF (OpenRLHF/OpenRLHF@3c3be623, openrlhf/cli/train_ppo_ray.py):
     * DeepSpeed actor, critic, reference and reward as Ray actors; vLLM
     * engines on their own GPUs unless --train.colocate_all, at
     * --vllm.gpu_memory_utilization 0.95, without sleep; a reference model
     * (--algo.kl.init_coef 0.01); old log-probs from the actor. Releases
     * 0.5 to 0.11. */
    [VX_FW_OPENRLHF] = {.rt = {.framework = VX_FW_OPENRLHF, .opt_fused = 1, .ddp = VX_DDP_DEEPSPEED, .mixed_master = 1,
                               .rl_stack = 1, .rl_reference = VX_REF_COPY, .rl_engine = VX_ROLLOUT_VLLM,
                               .rl_placement = VX_PLACE_SEPARATE, .rl_util_permille = 950, .rl_old_logps = 1,
                               .rl_engine_process = 1, .rl_own_gpus = 1},
                        .ver = {.name = "OpenRLHF", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE,
                                .oldest = VX_VER(0, 5, 0), .newest = VX_VER(0, 11, 0), .current = VX_VER(0, 11, 0),
                                .since = "2026-08"},
                        .hf_code = 1},
    /* SGLang: its own engine (a token pool sized by mem_fraction_static);
     * vocabulary and experts split as vLLM's. Current release:
     * research/measure/versions.md (0.5.16 referenced 2026-08-21). */
    [VX_FW_SGLANG] = {.rt = {.framework = VX_FW_SGLANG, .engine = VX_ENGINE_SGLANG, .kv_engine = VX_ENGINE_VLLM, .ep_replaces_tp = 1,
                             .attn_dp_in_tp = 1},
                      .ver = {.name = "SGLang", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE,
                              .oldest = VX_VER(0, 3, 0), .newest = VX_VER(0, 5, 16), .current = VX_VER(0, 5, 16),
                              .since = "2026-08"}},
    /* Ollama: a scheduler over llama.cpp's runner (ggml buffers of exact
     * size); v0.32.15 the stable release of 2026-08-19 (versions.md). */
    [VX_FW_OLLAMA] = {.rt = {.framework = VX_FW_OLLAMA, .engine = VX_ENGINE_OLLAMA, .kv_engine = VX_ENGINE_LLAMACPP, .ggml_alloc = 1},
                      .ver = {.name = "Ollama", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE,
                              .oldest = VX_VER(0, 1, 30), .newest = VX_VER(0, 32, 15), .current = VX_VER(0, 32, 15),
                              .since = "2026-08"}},
};

/* torch: 1.x autograd and zero_grad behaviours back to 1.8 (2021-03);
 * 2.13 is the newest stable release seen (pytorch/ao@36027d82d CI pin). */
const vx_version_info vx_torch_versions = {.name = "torch", .forms = VX_VS_RELEASE, .form = VX_VS_RELEASE,
                                           .oldest = VX_VER(1, 8, 0), .newest = VX_VER(2, 13, 0),
                                           .current = VX_VER(2, 13, 0), .since = "2026-07"};
/* transformers: the 4.x code paths back to 4.0 (2020-11); 5.15 is the
 * newest pinned release seen (OpenRLHF@3c3be623 requirements.txt). */
const vx_version_info vx_transformers_versions = {.name = "transformers", .forms = VX_VS_RELEASE,
                                                  .form = VX_VS_RELEASE, .oldest = VX_VER(4, 0, 0),
                                                  .newest = VX_VER(5, 15, 0), .current = VX_VER(5, 15, 0),
                                                  .since = "2026-08"};

const vx_version_info *vx_framework_versions(int framework)
{
    return framework >= 0 && (size_t)framework < VX_ARRAY_LEN(rows) ? &rows[framework].ver : NULL;
}

_Static_assert(sizeof(vx_runtime) % sizeof(int) == 0 && _Alignof(vx_runtime) == _Alignof(int),
               "vx_runtime is ints only: caches compare it byte for byte");

/* A rule: for `framework` (VX_FW_ANY: every one), while the version of
 * `component` lies in [lo, hi] (VX_VER values), `field` takes `value`.
 * Later rules win. */
enum { VX_RTC_TORCH = 0, VX_RTC_TRANSFORMERS = 1, VX_RTC_FRAMEWORK = 2 };
#define VX_FW_ANY (-1)
typedef struct rule {
    int framework, component, lo, hi;
    size_t field;
    int value;
} rule;
#define FIELD(f) offsetof(vx_runtime, f)

/* The last release before a change, as the upper end of a range. */
#define UPTO(maj, min) VX_VER(maj, min, 999)

static const rule rules[] = {
    /* torch 1.x autograd: mean() saved its input. */
    {VX_FW_ANY, VX_RTC_TORCH, 0, UPTO(1, 999), FIELD(torch1_mean), 1},
    /* transformers <= 4.44: LlamaRotaryEmbedding per layer, the loss
     * computed on the logits as the model returns them. */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, UPTO(4, 44), FIELD(hf_legacy), 1},
    /* LlamaForCausalLM.forward's logits.float() ("TODO: remove the float()
     * operation in v4.46"), over every position unless generate() passes
     * num_logits_to_keep. */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, UPTO(4, 45), FIELD(model_logits_upcast), 1},
    /* shift_logits = logits[..., :-1, :].contiguous(), in each model until
     * 4.45 and in ForCausalLMLoss until labels were padded and shifted
     * instead (huggingface/transformers#35646, 4.49). */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, UPTO(4, 48), FIELD(shift_copy), 1},
    /* transformers < 4.48: repeat_kv before SDPA (later: enable_gqa). */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, UPTO(4, 47), FIELD(repeat_kv), 1},
    /* ForCausalLMLoss (4.46; 4.45's Llama classes upcast in the model
     * already) upcasts the logits inside the loss. */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, VX_VER(4, 45, 0), VX_VER_MAX, FIELD(loss_upcast), 1},
    /* verl: the rollout ran in the trainer's process (rollout.mode sync)
     * until 0.7 made the vLLM server (async) the default
     * (verl-project/verl tags v0.6.0 and v0.7.0, ppo_trainer.yaml). */
    {VX_FW_VERL, VX_RTC_FRAMEWORK, 0, UPTO(0, 6), FIELD(rl_engine_process), 0},
    /* verl: rollout.max_num_seqs was read but not passed to vLLM's LLM()
     * until verl-project/verl#2960 (beb624610, 2025-08-09, first in v0.6.0). */
    {VX_FW_VERL, VX_RTC_FRAMEWORK, 0, UPTO(0, 5), FIELD(rl_seqs_unpassed), 1},
    /* nanotron: tp_recompute_allgather (huggingface/nanotron@1e02a9ce,
     * 2024-07-17) saves the shard and re-gathers it in backward. */
    {VX_FW_NANOTRON, VX_RTC_FRAMEWORK, 0, VX_VER(2024, 7, 16), FIELD(tp_save_gathered), 1},
    /* generate() passes num_logits_to_keep = 1 to the classes whose forward
     * takes it (huggingface/transformers#31292, 4.45). */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, VX_VER(4, 45, 0), VX_VER_MAX, FIELD(gen_logits_to_keep), 1},
    /* Every decoder class's forward takes logits_to_keep by then (GPT-2's
     * did in 2025-10, huggingface/transformers#41660; when each older
     * class gained it between 4.45 and 4.57 is not pinned down). */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, VX_VER(4, 57, 0), VX_VER_MAX, FIELD(gen_logits_to_keep_all), 1},
    /* Tuple past_key_values in the older classes' generate(), until each
     * moved to Cache objects: GPT-2 last, in 4.52 (huggingface/transformers
     * #35761, 2025-04); OPT still had them in 4.45.0.dev (the HF OPT SDPA
     * table of PR #33298 matches tuple caches). */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, UPTO(4, 51), FIELD(tuple_cache), 1},
    /* DynamicLayer starts from an empty tensor and torch.cat's every update
     * onto it from 4.56 (cache_utils.py, lazy_initialization: the change
     * fla-org/flash-linear-attention#582 pinned transformers < 4.56 for);
     * before, the cache kept the tensors it was handed. */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, UPTO(4, 55), FIELD(cache_views), 1},
    /* vLLM (runtimes-2026.md §6). V0's profile samples with top_p/top_k on
     * the driver rank, which gathers the full vocabulary: compute-dtype
     * logits + 36 B (fp32 copy, sorted values and int64 indices, the int64
     * scatter, softmax, cumsum; model_executor/layers/sampler.py
     * _apply_top_k_top_p). V1 is the default engine from 0.8.0; its
     * _dummy_sampler_run (PR #13594) on every rank (the LogitsProcessor
     * all-gathers): 28 B per element (v1/sample/ops/topk_topp_sampler.py,
     * native path). */
    {VX_FW_VLLM, VX_RTC_FRAMEWORK, 0, VX_VER_MAX, FIELD(sampler_elem_bytes), 38},
    {VX_FW_VLLM, VX_RTC_FRAMEWORK, VX_VER(0, 8, 0), VX_VER_MAX, FIELD(vllm_v1), 1},
    {VX_FW_VLLM, VX_RTC_FRAMEWORK, VX_VER(0, 8, 0), VX_VER_MAX, FIELD(sampler_elem_bytes), 28},
    /* engine/arg_utils.py, the "NOTE(Kuntai) ... PR #17885" block (0.9.0). */
    {VX_FW_VLLM, VX_RTC_FRAMEWORK, VX_VER(0, 9, 0), VX_VER_MAX, FIELD(gpu_class_defaults), 1},
    /* VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on by default (#45178, #53013). */
    {VX_FW_VLLM, VX_RTC_FRAMEWORK, VX_VER(0, 21, 0), VX_VER_MAX, FIELD(graphs_in_budget), 1},
    /* gpu_worker.py init_device: init_worker_distributed_environment runs
     * before the init MemorySnapshot from vllm-project/vllm#25359 (merged
     * 2025-09-22, first in 0.11.0; the text at 35d5cda1). */
    {VX_FW_VLLM, VX_RTC_FRAMEWORK, VX_VER(0, 11, 0), VX_VER_MAX, FIELD(nccl_before_snapshot), 1},
    /* llama.cpp -fa on|off|auto with auto the default from about b6343
     * (2025-08; ggml-org/llama.cpp#15746 by b6370): flash attention
     * wherever the backend has it (CUDA). Builds before run without it. */
    {VX_FW_LLAMA_CPP, VX_RTC_FRAMEWORK, 6343, VX_VER_MAX, FIELD(fa_default), 1},
    /* DeepSeek MLA cached as per-head K (nope + rope) and V until the
     * latent cache (ggml-org/llama.cpp#12801, b5097, 2025-04). */
    {VX_FW_LLAMA_CPP, VX_RTC_FRAMEWORK, 0, 5096, FIELD(mla_uncompressed), 1},
    /* The quantizer's tensor categories (ggml-org/llama.cpp#19770, commit
     * 1dab5f5a, merged 2026-03-10 between b8227 of 03-07 and b8317 of 03-13):
     * attn_qkv and attn_kv_b take attn_v's rule from then on. */
    {VX_FW_LLAMA_CPP, VX_RTC_FRAMEWORK, 0, 8264, FIELD(gguf_qkv_own_rule), 1},
    /* Ollama's runner vendored such builds through its 0.6 releases
     * (llama/vendoring pins; the latent cache came with the vendor update
     * of 0.6.6, 2025-04 — approximate, docs/methodology.md "Ollama"). */
    {VX_FW_OLLAMA, VX_RTC_FRAMEWORK, 0, VX_VER(0, 6, 5), FIELD(mla_uncompressed), 1},
};

void vx_runtime_resolve(int framework, const vx_runtime_versions *v, vx_runtime *out)
{
    if (framework < 0 || (size_t)framework >= VX_ARRAY_LEN(rows)) framework = VX_FW_PYTORCH;
    const row *rw = &rows[framework];
    memcpy(out, &rw->rt, sizeof *out);
    int given[3] = {v ? v->torch : 0, v ? v->transformers : 0, v ? v->framework : 0};
    out->torch = given[0] > 0 ? given[0] : vx_torch_versions.current;
    out->transformers = given[1] > 0 ? given[1] : vx_transformers_versions.current;
    out->framework_version = given[2] > 0 ? given[2] : rw->ver.current;
    out->defaulted = (given[0] > 0 ? 0 : VX_RTV_TORCH) | (given[1] > 0 ? 0 : VX_RTV_TRANSFORMERS) |
                     (given[2] > 0 || !rw->ver.forms ? 0 : VX_RTV_FRAMEWORK);
    out->hf_code = rw->hf_code;
    if (!rw->hf_code) out->defaulted &= ~VX_RTV_TRANSFORMERS;
    const int version[] = {out->torch, out->transformers, out->framework_version};
    for (size_t i = 0; i < VX_ARRAY_LEN(rules); i++) {
        const rule *r = &rules[i];
        if (r->framework != VX_FW_ANY && r->framework != framework) continue;
        if (r->component == VX_RTC_TRANSFORMERS && !rw->hf_code) continue;
        int ver = version[r->component];
        if (ver < r->lo || ver > r->hi) continue;
        memcpy((char *)out + r->field, &r->value, sizeof r->value);
    }
}

/* A llama.cpp build from a date (logs quote dates as often as builds):
 * linear between builds whose dates are known, and before the first at its
 * slope. Anchors: b4823 on 2025-03-05 (ggml-ci run quoted in
 * validation/visible.jsonl), b6370 about 2025-09-02 (ggml-org/llama.cpp#15746
 * merged), b8227 on 2026-03-07 and b8317 on 2026-03-13 (the release bot's
 * microsoft/winget-pkgs#346201 and #348341), b10488 in 2026-08 (the table's
 * current build). The rules that
 * read builds sit months apart, so a few days' error moves no answer. */
static int days_of(int v)
{
    int y = VX_VER_MAJOR(v), m = VX_VER_MINOR(v), d = VX_VER_PATCH(v) ? VX_VER_PATCH(v) : 1;
    return y * 372 + (m - 1) * 31 + (d - 1); /* a monotone day count: enough between anchors */
}

static int llama_build_of_date(int v)
{
    static const int anchor[][2] = {{VX_VER(2025, 3, 5), 4823},
                                    {VX_VER(2025, 9, 2), 6370},
                                    {VX_VER(2026, 3, 7), 8227},
                                    {VX_VER(2026, 3, 13), 8317},
                                    {VX_VER(2026, 8, 15), 10488}};
    size_t n = VX_ARRAY_LEN(anchor), i = 1;
    while (i < n - 1 && v > anchor[i][0]) i++;
    double d0 = days_of(anchor[i - 1][0]), d1 = days_of(anchor[i][0]), t = days_of(v);
    double b = anchor[i - 1][1] + (t - d0) * (anchor[i][1] - anchor[i - 1][1]) / (d1 - d0);
    return b < 1 ? 1 : b > 1e9 ? 1000000000 : (int)b;
}

int vx_runtime_parse_version(const vx_version_info *vi, const char *text, int *out, int *form)
{
    int f = 0;
    if (vx_version_parse(text, vi->forms, out, &f)) return -1;
    if (f == VX_VS_DATE && vi->form == VX_VS_BUILD) *out = llama_build_of_date(*out);
    if (form) *form = f;
    return 0;
}

int vx_runtime_check_version(const vx_version_info *vi, const char *option, const char *text, int *out)
{
    *out = 0;
    if (!text[0]) return VRAMEST_OK; /* the current release */
    if (!vi->forms)
        return vx_fail(VRAMEST_E_CONFLICT, "%s: framework %s has no version of its own: set %s", option, vi->name,
                       vi->own ? vi->own : "the framework");
    int v, form;
    char lo[24], hi[24];
    vx_version_format(vi->oldest, vi->form, lo, sizeof lo);
    vx_version_format(vi->newest, vi->form, hi, sizeof hi);
    if (vx_runtime_parse_version(vi, text, &v, &form))
        return vx_fail(VRAMEST_E_PARSE, "%s: '%.40s' is not a %s version (expected %s; modelled: %s to %s)", option,
                       text, vi->name, vx_version_forms(vi->forms), lo, hi);
    if (v < vi->oldest)
        return vx_fail(VRAMEST_E_RANGE, "%s: %s %.40s is older than the modelled range %s to %s", option, vi->name,
                       text, lo, hi);
    *out = v;
    return VRAMEST_OK;
}
