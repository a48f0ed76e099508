/* Inference estimator. (Being built: issue #6.) */
#include "estimate/estimate.h"

int vx_estimate_infer(vx_ctx *x)
{
    (void)x;
    return vx_fail(VRAMEST_E_UNSUPPORTED, "mode 'infer' is not modelled by this version of libvramest");
}
