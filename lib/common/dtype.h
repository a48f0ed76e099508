/* The dtype table (bits per element, per-block scale/zero overhead) that
 * every byte count goes through: model inventories, file readers, policies
 * and estimators all read it. */
#ifndef VX_DTYPE_H
#define VX_DTYPE_H

#include "common/options.h"

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

/* fp32, fp16, bf16, fp64: the dtypes torch keeps parameters in unquantized. */
static inline bool vx_dtype_plain_float(int d)
{
    return d == VRAMEST_DTYPE_FP32 || d == VRAMEST_DTYPE_FP16 || d == VRAMEST_DTYPE_BF16 || d == VRAMEST_DTYPE_FP64;
}

/* Exact bytes of `elems` elements stored as `dtype` (blocks rounded up per
 * tensor row of `row_elems`, as the kernels pad). Saturates on overflow. */
uint64_t vx_dtype_bytes(int dtype, uint64_t elems) VX_HIDDEN;
/* Bytes per element of a plain (unblocked) dtype; 0 for blocked ones. */
unsigned vx_dtype_size(int dtype) VX_HIDDEN;

#endif
