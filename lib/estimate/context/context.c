/* The estimate's context (vx_ctx_init) and the runtime terms every mode
 * shares: the CUDA context, cuBLAS workspaces and the caching allocator's
 * rounding (research note §1-§2). */
#include <string.h>

#include "estimate/context/context.h"

/* The defaults a job implies, said aloud in the plan (issue #20 item 1). */
static const vx_precision_values *job_precision(vx_ctx *x, const vx_precision_values *pv, const vx_config_values *cv)
{
    int job = VX_JOB_AS_GIVEN;
    if (cv->mode == VX_MODE_TRAIN && cv->finetune == VX_FT_QLORA)
        job = VX_JOB_QLORA;
    else if (cv->mode == VX_MODE_TRAIN && (cv->finetune == VX_FT_FULL || cv->finetune == VX_FT_FREEZE) &&
             !x->rt.pure_default)
        job = x->rt.mixed_master ? VX_JOB_MIXED_MASTER : VX_JOB_MIXED_AMP;
    switch (vx_precision_job_defaults(pv, job, &x->job_pv)) {
    case VX_JOB_MIXED_AMP:
        vx_result_warn(x->r, "no precision given: training assumed in mixed precision, bf16 autocast over fp32 "
                             "weights with fp32 gradients and AdamW states (accelerate mixed_precision=bf16); set "
                             "precision to match the job");
        return &x->job_pv;
    case VX_JOB_MIXED_MASTER:
        vx_result_warn(x->r, "no precision given: training assumed in mixed precision, bf16 weights with fp32 "
                             "master weights and AdamW states (DeepSpeed / Megatron bf16); set precision to match "
                             "the job");
        return &x->job_pv;
    case VX_JOB_QLORA:
        vx_result_warn(x->r, "finetune qlora without weights: the base assumed 4-bit NF4 with double quantization "
                             "and bf16 compute (the QLoRA recipe); set precision to change it");
        return &x->job_pv;
    default: return pv;
    }
}

int vx_ctx_init(vx_ctx *x, const struct vramest_model *m, const vx_precision_values *pv,
                const struct vramest_config *cfg, struct vramest_result *r)
{
    const vx_config_values *cv = &cfg->v;
    x->cv = cv;
    x->cfg = cfg;
    x->r = r;
    vx_runtime buf;
    memcpy(&x->rt, vx_config_runtime(cfg, &buf), sizeof x->rt);
    pv = job_precision(x, pv, cv);
    x->pol.m = m;
    x->pol.s = &m->shape;
    x->pol.pv = pv;
    x->pol.head = cv->head;
    x->pol.num_labels = cv->num_labels;
    x->pol.ggml_only = x->rt.engine == VX_ENGINE_LLAMACPP || x->rt.engine == VX_ENGINE_OLLAMA;
    int rc = vx_precision_resolve(pv, &m->shape, (int)cv->mode, &x->pol.rp);
    /* The quantizer of the build that made a hypothetical GGUF file (the
     * weights caches key on rp, so it goes there). */
    x->pol.rp.gguf_qkv_own_rule = x->rt.gguf_qkv_own_rule;
    return rc;
}

uint64_t vx_alloc_round(uint64_t bytes)
{
    return bytes <= 512 ? 512 : vx_round_up(bytes, 512);
}

uint64_t vx_alloc_segment(uint64_t bytes)
{
    uint64_t b = vx_alloc_round(bytes);
    if (b <= VX_MIB) return 2 * VX_MIB;
    if (b < 10 * VX_MIB) return 20 * VX_MIB;
    return vx_round_up(b, 2 * VX_MIB);
}

const vx_gpu *vx_ctx_gpu(const vx_ctx *x)
{
    return x->cv->gpu_index >= 0 && (size_t)x->cv->gpu_index < vx_gpu_count_ ? &vx_gpus[x->cv->gpu_index] : NULL;
}

uint64_t vx_cublas_workspace_bytes(const vx_ctx *x)
{
    const vx_gpu *g = vx_ctx_gpu(x);
    /* CUBLAS_WORKSPACE_CONFIG default ":4096:2:16:8" = 8,519,680 B, except
     * exactly sm90 where PyTorch uses 4096 KiB x 8; plus the 1 MiB cuBLASLt
     * workspace (CUBLASLT_WORKSPACE_SIZE default). */
    uint64_t cublas = (g && g->sm == 90) ? 32 * VX_MIB : 4096 * VX_KIB * 2 + 16 * VX_KIB * 8;
    return cublas + VX_MIB;
}

uint64_t vx_cuda_context_bytes(const vx_ctx *x)
{
    if (x->cv->cuda_context_mib >= 0) return (uint64_t)(x->cv->cuda_context_mib * (double)VX_MIB);
    const vx_gpu *g = vx_ctx_gpu(x);
    return (uint64_t)((g ? g->context_mib : 500.0) * (double)VX_MIB);
}

void vx_runtime_terms(vx_ctx *x)
{
    struct vramest_result *r = x->r;
    uint64_t ctx = vx_cuda_context_bytes(x);
    r->cuda_context_bytes = ctx;
    /* Lazy module loading makes the context grow with the kernels used:
     * 300-450 MiB bare, +100-400 MiB after a training step; a value the user
     * measured is taken as it is. */
    bool given = x->cv->cuda_context_mib >= 0;
    vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_FRAMEWORK, ctx, given ? ctx : 300 * VX_MIB,
                  given ? ctx : ctx + 400 * VX_MIB, VRAMEST_PROV_EMPIRICAL);
}

static void newer_note(vx_ctx *x, const vx_version_info *vi, int v, const char *option)
{
    if (!vi || !vi->forms || v <= vi->newest) return;
    char got[24], hi[24];
    vx_version_format(v, vi->form, got, sizeof got);
    vx_version_format(vi->newest, vi->form, hi, sizeof hi);
    vx_result_warn(x->r, "%s: %s %s is newer than the newest release libvramest knows (%s, %s): estimated with the rules of %s",
                   option, vi->name, got, hi, vi->since, hi);
}

void vx_runtime_resolved(vx_ctx *x)
{
    const vx_runtime *rt = &x->rt;
    struct vramest_result *r = x->r;
    /* vx_result_begin zeroed what precedes the notes, which are read up to
     * their count: clearing their 1.2 KB here was an estimate's tenth. */
    r->rrt.rt = *rt;
    r->rrt.has_rt = 1;
    newer_note(x, &vx_torch_versions, rt->torch, "torch_version");
    if (rt->hf_code) newer_note(x, &vx_transformers_versions, rt->transformers, "transformers_version");
    const vx_version_info *fi = vx_framework_versions(rt->framework);
    newer_note(x, fi, rt->framework_version, "framework_version");
    /* The plan's echo names the versions it ran at from rrt when the job
     * gave none (result/settings_json.c): formatting them here cost every
     * estimate three. */
}
