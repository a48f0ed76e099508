/* Cross-option checks of a workload configuration: values that are each in
 * bounds but contradict each other. Mode estimators add their own. */
#include "runtime/config.h"

int vx_config_check(const struct vramest_config *c)
{
    const vx_config_values *v = &c->v;
    if (v->mode != VX_MODE_TRAIN && v->gradient_checkpointing != VX_GC_NONE)
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
