/* The training-step estimator (issue #5): a rank's step and its result.
 * The static terms (estimate/params/) and the programs (estimate/graph/)
 * become the step's values and its composition (estimate/step/); the
 * compiled programs and steps (estimate/cache/) make it fast; train.c
 * puts them together per rank group and fills the result. */
#ifndef VX_TRAIN_H
#define VX_TRAIN_H

#include "estimate/step/step.h"

/* The training estimate of one job (all its rank groups). */
int vx_estimate_train(vx_ctx *x) VX_HIDDEN;


#endif
