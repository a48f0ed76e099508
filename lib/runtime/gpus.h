/* GPU presets (the workload option `device`): what a device offers. */
#ifndef VX_GPUS_H
#define VX_GPUS_H

#include "common/internal.h"

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
