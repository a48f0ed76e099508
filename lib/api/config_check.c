/* Cross-option checks of a workload configuration: values that are each in
 * bounds but contradict each other. Mode estimators add their own. */
#include "api/config.h"

int vx_config_check(const struct vramest_config *c)
{
    const vx_config_values *v = &c->v;
    if (v->mode != VX_MODE_TRAIN && v->gradient_checkpointing != VX_GC_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "gradient_checkpointing is '%s' but mode is not train",
                       v->gradient_checkpointing == VX_GC_FULL ? "full" : "selective");
    if (v->zero_stage > 0 && v->fsdp != VX_FSDP_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "zero_stage %lld and fsdp are both set: choose DeepSpeed ZeRO or FSDP",
                       (long long)v->zero_stage);
    return VRAMEST_OK;
}
