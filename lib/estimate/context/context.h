/* What an estimator reads and writes: the model under its precision
 * policy, the workload config, the result being filled (vx_ctx); and the
 * terms of the device and its runtime every mode shares (context.c). */
#ifndef VX_CONTEXT_H
#define VX_CONTEXT_H

#include "precision/policy.h"
#include "result/result.h"
#include "runtime/config.h"
#include "runtime/gpus.h"
#include "runtime/runtime.h"

typedef struct vx_ctx {
    vx_policy pol; /* the model, the precision as resolved, the workload's head */
    const vx_config_values *cv;
    const struct vramest_config *cfg; /* cv's handle: the job's other models (vx_config_role_model) */
    vx_runtime rt; /* the software stack, resolved from the config once per estimate */
    struct vramest_result *r;
    vx_precision_values job_pv; /* the precision a job runs when its own says nothing (pol.pv points here) */
} vx_ctx;

/* The categories a training step counts its transient bytes in (the tape,
 * the programs, the step): activations, logits, workspace, gradients of
 * parameters, gradients of adapters. */
enum { VX_TC_ACT = 0, VX_TC_LOGITS = 1, VX_TC_WORK = 2, VX_TC_GRAD = 3, VX_TC_ADAPT = 4, VX_TC_N = 5 };

/* A context for one estimate: resolves the runtime of the config and the
 * precision policy against the model (VRAMEST_E_* on a policy the model
 * cannot take). */
int vx_ctx_init(vx_ctx *x, const struct vramest_model *m, const vx_precision_values *pv,
                const struct vramest_config *cfg, struct vramest_result *r) VX_HIDDEN;

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
const vx_gpu *vx_ctx_gpu(const vx_ctx *x) VX_HIDDEN;

/* The stack the estimate assumes, into the result (issue #17 item 4): the
 * resolved runtime, the versions in the settings' echo as resolved, a
 * warning for every version newer than the newest the runtime table knows
 * (the estimate uses that release's rules). */
void vx_runtime_resolved(vx_ctx *x) VX_HIDDEN;

/* Runtime terms shared by every mode: CUDA context (framework category),
 * cuBLAS workspaces, allocator model. */
void vx_runtime_terms(vx_ctx *x) VX_HIDDEN;

#endif
