/* The estimate pipeline. vramest_estimate() validates the inputs, resolves
 * the precision policy against the model, then hands a context to the mode's
 * estimator, which fills the result categories. Everything lives on the stack
 * or in the result: no allocation here. */
#ifndef VX_ESTIMATE_H
#define VX_ESTIMATE_H

#include "result/result.h"

struct vx_gpu;

/* The precision policy with every "auto" resolved for this model. */
typedef struct vx_resolved_precision {
    int param_dtype;   /* dtype of trainable/float parameters as held on the GPU */
    int compute_dtype; /* activation dtype */
    int amp;           /* autocast over the stored weights */
    int master_dtype;  /* VRAMEST_DTYPE_NONE or FP32 */
    int grad_dtype;
    int state_dtype;
    int kv_dtype;
    int quant_method;  /* VX_QM_* resolved */
    int64_t group_size;
    int double_quant;
} vx_resolved_precision;

typedef struct vx_ctx {
    const struct vramest_model *m;
    const vx_shape *s;
    const vx_precision_values *pv;
    const vx_config_values *cv;
    vx_resolved_precision rp;
    struct vramest_result *r;
} vx_ctx;

/* The whole estimate into a caller-provided result (zeroed here): what
 * vramest_estimate does minus the allocation, so solvers can run many
 * estimates on the stack. */
int vx_estimate_into(const struct vramest_model *model, const struct vramest_precision *prec,
                     const struct vramest_config *cfg, struct vramest_result *r) VX_HIDDEN;

/* Resolve the precision policy for a model (auto -> concrete dtypes). */
int vx_precision_resolve(const vx_precision_values *pv, const vx_shape *s, int mode,
                         vx_resolved_precision *out) VX_HIDDEN;

/* Storage dtype of one inventory tensor under the policy (quantized matrices,
 * skipped modules and norms kept at the compute dtype, ...). */
int vx_tensor_storage_dtype(const vx_ctx *x, const vx_tensor *t) VX_HIDDEN;
/* Exact bytes of one inventory group as held on the GPU under the policy. */
uint64_t vx_tensor_gpu_bytes(const vx_ctx *x, const vx_tensor *t) VX_HIDDEN;
/* Bytes of all weights as held on the GPU (sum over the inventory). */
uint64_t vx_weights_bytes(const vx_ctx *x) VX_HIDDEN;

/* Mode estimators: fill r->cat[...] and r->val[...] except the derived
 * headline figures, which vx_result_finish() computes. */
int vx_estimate_load(vx_ctx *x) VX_HIDDEN;
int vx_estimate_train(vx_ctx *x) VX_HIDDEN;
int vx_estimate_infer(vx_ctx *x) VX_HIDDEN;

/* PyTorch CUDA caching allocator (research note §1): every request is
 * rounded up to 512 B; requests <= 1 MiB come from 2 MiB segments, 1-10 MiB
 * from 20 MiB segments, larger ones get their size rounded up to 2 MiB. */
uint64_t vx_alloc_round(uint64_t bytes) VX_HIDDEN;
uint64_t vx_alloc_segment(uint64_t bytes) VX_HIDDEN;
/* cuBLAS + cuBLASLt workspace of one (thread, stream) pair, held in
 * allocated memory for the process lifetime: 8.125 MiB + 1 MiB, or 32 MiB +
 * 1 MiB on sm90 (Hopper). */
uint64_t vx_cublas_workspace_bytes(const vx_ctx *x) VX_HIDDEN;
/* The CUDA context + library handles outside the allocator (framework). */
uint64_t vx_cuda_context_bytes(const vx_ctx *x) VX_HIDDEN;
/* The device preset of the config, or NULL. */
const struct vx_gpu *vx_ctx_gpu(const vx_ctx *x) VX_HIDDEN;

/* Runtime terms shared by every mode: CUDA context (framework category),
 * cuBLAS workspaces, allocator model. */
void vx_runtime_terms(vx_ctx *x) VX_HIDDEN;

/* GPU presets: name, usable bytes, CUDA context default (MiB), sm major*10+minor. */
typedef struct vx_gpu {
    const char *name;
    const char *aliases;
    uint64_t bytes;
    double context_mib;
    int sm;
} vx_gpu;
const vx_gpu *vx_gpu_find(const char *name) VX_HIDDEN;
extern const vx_gpu vx_gpus[] VX_HIDDEN;
extern const size_t vx_gpu_count_ VX_HIDDEN;

#endif
