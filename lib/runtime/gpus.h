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
/* The preset a name means (see gpus.c for the forms accepted), or NULL when
 * it names none or several. */
const vx_gpu *vx_gpu_find(const char *name) VX_HIDDEN;
/* vx_gpu_find() that says why not: VRAMEST_E_UNKNOWN_NAME with the
 * candidates of an ambiguous name, or close names. */
int vx_gpu_lookup(const char *name, const vx_gpu **out) VX_HIDDEN;
extern const vx_gpu vx_gpus[] VX_HIDDEN;
extern const size_t vx_gpu_count_ VX_HIDDEN;

#endif
