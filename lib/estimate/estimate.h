/* The estimate pipeline. vramest_estimate() validates the inputs, resolves
 * the precision policy against the model, then hands a context to the mode's
 * estimator, which fills the result categories. Everything lives on the stack
 * or in the result: no allocation here. */
#ifndef VX_ESTIMATE_H
#define VX_ESTIMATE_H

#include "estimate/context/context.h"

/* The whole estimate into a caller-provided result (zeroed here): what
 * vramest_estimate does minus the allocation, so solvers can run many
 * estimates on the stack. */
int vx_estimate_into(const struct vramest_model *model, const struct vramest_precision *prec,
                     const struct vramest_config *cfg, struct vramest_result *r) VX_HIDDEN;

/* Mode estimators (train/train.h and infer/infer.h have the others): fill
 * r->cat[...] and r->val[...] except the derived headline figures, which
 * vx_result_finish() computes. */
int vx_estimate_load(vx_ctx *x) VX_HIDDEN;

#endif
