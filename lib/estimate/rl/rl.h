/* Mode rl (issue #23): an RL post-training step as rollout, scoring and
 * training phases on the trainer's GPUs, built from the training and
 * inference estimators below it. */
#ifndef VX_RL_H
#define VX_RL_H

#include "estimate/context/context.h"

/* Fill x->r: the peak phase's categories as the headline, every phase in
 * r->rl, the host memory of what is offloaded between phases. */
int vx_estimate_rl(vx_ctx *x) VX_HIDDEN;

#endif
