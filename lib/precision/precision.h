/* The precision policy handle: the dtypes and the quantization method the
 * user asks for (the dtype table is common/dtype.h). */
#ifndef VX_PRECISION_H
#define VX_PRECISION_H

#include "common/dtype.h"
#include "model/model.h"
#include "common/options.h"
#include "common/values.h"

enum { VX_QM_AUTO = 0, VX_QM_NONE = 1, VX_QM_BNB = 2, VX_QM_GPTQ = 3, VX_QM_AWQ = 4,
       VX_QM_TORCHAO = 5, VX_QM_GGUF = 6, VX_QM_FP8 = 7 };

typedef struct vx_precision_values {
    int64_t weights, compute, amp, master_weights, gradients, optimizer_states, kv_cache;
    int64_t quant_group_size, double_quant;
    char skip_modules[VX_STR_MAX];
    int64_t quant_method;
    int64_t embeddings; /* dtype of token embeddings (and a tied head); auto = method default */
} vx_precision_values;

struct vramest_precision {
    uint32_t magic;
    uint64_t set_bits[VX_SET_WORDS];
    vx_precision_values v;
};

void vx_precision_init(struct vramest_precision *p) VX_HIDDEN;
/* Its layout for copies and comparisons by meaning (common/values.h). */
extern const vx_layout vx_precision_layout VX_HIDDEN;

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
    int gguf_qkv_own_rule; /* a GGUF file type's mix as llama.cpp's quantizer built it before its tensor
                              categories (the runtime's gguf_qkv_own_rule; gguf_mix.c) */
} vx_resolved_precision;

/* What a job runs when its precision says nothing about training (issue
 * #20 item 1): `job` is VX_JOB_* (the caller maps mode, fine-tuning method
 * and framework to it). Writes the precision to estimate with into `out`
 * and returns the VX_JOB_* applied, or 0 when `in` stands as given. */
enum { VX_JOB_AS_GIVEN = 0, VX_JOB_MIXED_AMP = 1, VX_JOB_MIXED_MASTER = 2, VX_JOB_QLORA = 3 };
int vx_precision_job_defaults(const vx_precision_values *in, int job, vx_precision_values *out) VX_HIDDEN;

/* Resolve the precision policy for a model (auto -> concrete dtypes). */
int vx_precision_resolve(const vx_precision_values *pv, const vx_shape *s, int mode,
                         vx_resolved_precision *out) VX_HIDDEN;

/* What every policy question reads: the model, the precision values and
 * their resolution, and the class the workload wraps the body in (its head
 * tensors are weights too). */
typedef struct vx_policy {
    const struct vramest_model *m;
    const vx_shape *s; /* &m->shape */
    const vx_precision_values *pv;
    vx_resolved_precision rp;
    int64_t head;       /* the workload's `head` (VX_HEAD_*; AUTO = the model's) */
    int64_t num_labels; /* the workload's `num_labels` (0 = the model's) */
    int ggml_only;      /* the runtime holds GGML types only (llama.cpp, Ollama) */
} vx_policy;

/* The weights of the class the workload asks for (model/model.h). */
static inline void vx_tensor_iter_init(vx_tensor_iter *it, const vx_policy *pol)
{
    vx_class_iter_init(it, pol->m, pol->head, pol->num_labels);
}

/* One homogeneous part of a tensor group as allocated: `count` tensors of
 * `bytes` each, stored as `dtype` (a packed int4 qweight is dtype INT32, its
 * scales FP16, ...). A quantized nn.Linear is several pieces. */
typedef struct vx_piece {
    uint64_t bytes;
    uint64_t count;
    int dtype;
} vx_piece;
#define VX_MAX_PIECES 8

#endif
