/* Cross-option checks of a workload configuration: values that are each in
 * bounds but contradict each other. Mode estimators add their own. */
#include <stdio.h>

#include "runtime/config.h"

/* The smallest device memory_gib may give: less than a CUDA context takes
 * (256-667 MiB measured, research pytorch-memory-behaviours.md §2.1), so no
 * device that small runs a job. A smaller positive value is a mistake, never
 * "no device": 1e-10 GiB truncated to 0 bytes dropped a named device. */
#define VX_MIN_DEVICE_GIB 0.25

static const char *loss_name(int64_t l)
{
    static const char *const names[VX_LOSS_COUNT_] = {"cross_entropy", "chunked", "fused_linear", "sum"};
    return l >= 0 && l < VX_LOSS_COUNT_ ? names[l] : "?";
}

/* Training settings the framework cannot run. */
static int check_training_runtime(const struct vramest_config *c)
{
    const vx_config_values *v = &c->v;
    vx_runtime buf;
    const vx_runtime *rt = vx_config_runtime(c, &buf);
    const char *fw = vx_enum_name_of(vx_framework_enum, v->framework);
    int loss = rt->loss_own && v->loss == VX_LOSS_CE ? rt->loss_own : (int)v->loss;
    if (rt->losses && !(rt->losses & (1 << loss))) {
        char can[96] = "";
        size_t o = 0;
        for (int l = 0; l < VX_LOSS_COUNT_; l++)
            if (rt->losses & (1 << l))
                o += (size_t)snprintf(can + o, sizeof can - o, "%s%s", o ? ", " : "", loss_name(l));
        return vx_fail(VRAMEST_E_CONFLICT, "loss '%s': framework %s runs %s%s", loss_name(loss), fw ? fw : "?", can,
                       loss == VX_LOSS_CHUNKED && v->framework == VX_FW_HF_TRAINER
                           ? " (a chunked loss there is Liger's fused_linear)"
                           : "");
    }
    if (v->gradient_checkpointing == VX_GC_OPS && !rt->sac_ops)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "gradient_checkpointing 'ops' is torchtitan's op-level policy: framework %s has none (use full "
                       "or selective, or framework torchtitan)",
                       fw ? fw : "?");
    if (v->activation_offloading && !rt->act_offload)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "activation_offloading is torchtune's / Unsloth's: framework %s does not offload activations "
                       "(DeepSpeed's cpu_checkpointing is parallel.offload_activations)",
                       fw ? fw : "?");
    if (v->checkpoint_every > 1 && v->gradient_checkpointing != VX_GC_FULL)
        return vx_fail(VRAMEST_E_CONFLICT, "checkpoint_every %lld needs gradient_checkpointing full",
                       (long long)v->checkpoint_every);
    if (v->fsdp_version && v->fsdp == VX_FSDP_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "fsdp_version %lld is set but fsdp is none", (long long)v->fsdp_version);
    return VRAMEST_OK;
}

int vx_config_check(const struct vramest_config *c)
{
    const vx_config_values *v = &c->v;
    if (v->memory_gib > 0 && v->memory_gib < VX_MIN_DEVICE_GIB)
        return vx_fail(VRAMEST_E_RANGE,
                       "memory_gib %g is below %.2f GiB, less than a CUDA context takes: no device that small runs a "
                       "job (0 takes the device preset's memory)",
                       v->memory_gib, VX_MIN_DEVICE_GIB);
    /* A name that resolved to no preset would read as "no device". */
    if (v->device[0] && v->gpu_index < 0)
        return vx_fail(VRAMEST_E_UNKNOWN_NAME, "device '%s' names no GPU preset (see `vramest gpus`)", v->device);
    /* framework_version was only checked to be some version when set: the
     * framework that reads it may have been set after it. */
    if (v->framework_v < 0 || (v->framework_version[0] && !v->framework_v)) {
        int fw;
        const vx_version_info *fi = vx_framework_versions((int)v->framework);
        if (!fi) return vx_fail(VRAMEST_E_INTERNAL, "framework %lld has no row", (long long)v->framework);
        return vx_runtime_check_version(fi, "framework_version", v->framework_version, &fw);
    }
    if (v->mode == VX_MODE_TRAIN || v->mode == VX_MODE_RL) {
        int rc = check_training_runtime(c);
        if (rc) return rc;
    }
    if (v->mode != VX_MODE_TRAIN && v->mode != VX_MODE_RL && v->gradient_checkpointing != VX_GC_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "gradient_checkpointing is '%s' but mode is not train",
                       v->gradient_checkpointing == VX_GC_FULL ? "full" : "selective");
    if (v->zero_stage > 0 && v->fsdp != VX_FSDP_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "zero_stage %lld and fsdp are both set: choose DeepSpeed ZeRO or FSDP",
                       (long long)v->zero_stage);
    if (v->optimizer_in_backward && v->mode == VX_MODE_TRAIN) {
        /* Each gradient is consumed by its parameter's step as soon as it is
         * accumulated: there is nothing to accumulate across micro-batches
         * or to reduce across ranks (torchtune refuses both too). */
        if (v->grad_accum_steps > 1)
            return vx_fail(VRAMEST_E_CONFLICT,
                           "optimizer_in_backward steps every parameter as its gradient arrives: grad_accum_steps "
                           "must be 1 (is %lld)",
                           (long long)v->grad_accum_steps);
        if (v->zero_stage > 0 || v->fsdp != VX_FSDP_NONE)
            return vx_fail(VRAMEST_E_CONFLICT, "optimizer_in_backward is modelled for unsharded training: unset "
                                               "zero_stage / fsdp");
        if (v->optimizer == VX_OPT_NONE)
            return vx_fail(VRAMEST_E_CONFLICT, "optimizer_in_backward with optimizer none: there is no step to run");
    }
    return VRAMEST_OK;
}
