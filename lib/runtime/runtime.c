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
                                          {0, NULL}};

/* A row names where its framework differs from 0 in each field (a plain
 * PyTorch process on CUDA, transformers' model code, torch DDP, DeepSpeed's
 * ZeRO); version-dependent fields are left to the rules below. */
static const vx_runtime rows[VX_FW_COUNT_] = {
    /* A plain training loop keeps `outputs` (the logits) alive until the
     * step ends. */
    [VX_FW_PYTORCH] = {.framework = VX_FW_PYTORCH, .logits_held = 1},
    /* Trainer.compute_loss drops the outputs before backward; its
     * optimizer gets two parameter groups (weight decay or not). */
    [VX_FW_HF_TRAINER] = {.framework = VX_FW_HF_TRAINER, .opt_decay_groups = 1},
    /* FusedAdam / DeepSpeedCPUAdam; without ZeRO, gradients are reduced
     * by buffered_allreduce_fallback. */
    [VX_FW_DEEPSPEED] = {.framework = VX_FW_DEEPSPEED, .opt_fused = 1, .ddp = VX_DDP_DEEPSPEED, .mixed_master = 1},
    /* Megatron-Core: its own transformer layer, apex/TE fused Adam, fp32
     * main-grad buffers reduced in place, the distributed optimizer
     * instead of DeepSpeed's ZeRO, vocabulary padded to 128 x tp. */
    [VX_FW_MEGATRON] = {.framework = VX_FW_MEGATRON, .opt_fused = 1, .megatron_layer = 1, .fp32_main_grads = 1,
                        .mixed_master = 1,
                        .contiguous_grads = 1, .zero = VX_ZERO_MEGATRON, .ddp = VX_DDP_MEGATRON, .vocab_pad = 128},
    /* vLLM: its own engine; vocabulary padded to 64 x tp; expert
     * parallelism replaces tensor parallelism inside the experts. */
    [VX_FW_VLLM] = {.framework = VX_FW_VLLM, .engine = VX_ENGINE_VLLM, .vocab_pad = 64, .ep_replaces_tp = 1},
    /* llama.cpp: its own engine, ggml buffers of exact size. */
    [VX_FW_LLAMA_CPP] = {.framework = VX_FW_LLAMA_CPP, .engine = VX_ENGINE_LLAMACPP, .ggml_alloc = 1},
};
_Static_assert(sizeof(vx_runtime) % sizeof(int) == 0 && _Alignof(vx_runtime) == _Alignof(int),
               "vx_runtime is ints only: caches compare it byte for byte");

/* A rule: for `framework` (VX_FW_ANY: every one), while the version of
 * `component` lies in [lo, hi], `field` takes `value`. Later rules win. */
enum { VX_RTC_TORCH = 0, VX_RTC_TRANSFORMERS = 1, VX_RTC_FRAMEWORK = 2 };
#define VX_FW_ANY (-1)
typedef struct rule {
    int framework, component, lo, hi;
    size_t field;
    int value;
} rule;
#define FIELD(f) offsetof(vx_runtime, f)

static const rule rules[] = {
    /* torch 1.x autograd: mean() saved its input. */
    {VX_FW_ANY, VX_RTC_TORCH, 0, 199, FIELD(torch1_mean), 1},
    /* transformers <= 4.44 (LlamaRotaryEmbedding per layer, logits.float()
     * in LlamaForCausalLM.forward, the loss's shift_logits.contiguous()). */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, 444, FIELD(hf_legacy), 1},
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, 444, FIELD(model_logits_upcast), 1},
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, 444, FIELD(shift_copy), 1},
    /* transformers < 4.48: repeat_kv before SDPA (later: enable_gqa). */
    {VX_FW_ANY, VX_RTC_TRANSFORMERS, 0, 447, FIELD(repeat_kv), 1},
};

void vx_runtime_resolve(int framework, const vx_runtime_versions *v, vx_runtime *out)
{
    if (framework < 0 || (size_t)framework >= VX_ARRAY_LEN(rows)) framework = VX_FW_PYTORCH;
    memcpy(out, &rows[framework], sizeof *out);
    out->torch = v && v->torch ? v->torch : VX_DEFAULT_TORCH;
    out->transformers = v && v->transformers ? v->transformers : VX_DEFAULT_TRANSFORMERS;
    /* A row's framework_version is its default release (0: none known). */
    if (v && v->framework) out->framework_version = v->framework;
    const int version[] = {out->torch, out->transformers, out->framework_version};
    for (size_t i = 0; i < VX_ARRAY_LEN(rules); i++) {
        const rule *r = &rules[i];
        if (r->framework != VX_FW_ANY && r->framework != framework) continue;
        int ver = version[r->component];
        if (ver < r->lo || ver > r->hi) continue;
        memcpy((char *)out + r->field, &r->value, sizeof r->value);
    }
}
