/* Training-step estimator. (Being built: issue #5.) */
#include "estimate/estimate.h"

int vx_estimate_train(vx_ctx *x)
{
    (void)x;
    return vx_fail(VRAMEST_E_UNSUPPORTED, "mode 'train' is not modelled by this version of libvramest");
}
