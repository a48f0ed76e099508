/* Precision policy handle and the dtype table (bits per element, per-block
 * scale/zero overhead) that every byte count goes through. */
#ifndef VX_PRECISION_H
#define VX_PRECISION_H

#include "common/options.h"

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

/* ---- dtype table ---- */
typedef struct vx_dtype_info {
    int id;              /* vramest_dtype value (GGUF: 100 + ggml type) */
    const char *name;    /* canonical name */
    const char *aliases; /* comma-separated, or NULL */
    uint32_t block_elems;
    uint32_t block_bytes; /* bytes of one block incl. its scales/zeros */
    bool is_float;        /* usable as a compute dtype */
    bool is_policy;       /* auto / none / GGUF file mixes: not a storage layout */
} vx_dtype_info;

const vx_dtype_info *vx_dtype(int id) VX_HIDDEN;
const vx_dtype_info *vx_dtype_by_name(const char *name) VX_HIDDEN;
/* Every dtype, for the ENUM option tables: a static {value,name} list. */
extern const vx_enum_name vx_dtype_enum[] VX_HIDDEN;

/* Exact bytes of `elems` elements stored as `dtype` (blocks rounded up per
 * tensor row of `row_elems`, as the kernels pad). Saturates on overflow. */
uint64_t vx_dtype_bytes(int dtype, uint64_t elems) VX_HIDDEN;
/* Bytes per element of a plain (unblocked) dtype; 0 for blocked ones. */
unsigned vx_dtype_size(int dtype) VX_HIDDEN;

#endif
