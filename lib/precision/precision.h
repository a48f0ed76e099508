/* The precision policy handle: the dtypes and the quantization method the
 * user asks for (the dtype table is common/dtype.h). */
#ifndef VX_PRECISION_H
#define VX_PRECISION_H

#include "common/dtype.h"
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

#endif
