/* Recurrent token mixers of the layer programs (mixers.c): Mamba, Mamba-2
 * and gated DeltaNet with their fused kernels, run on the tape. */
#ifndef VX_MIXERS_H
#define VX_MIXERS_H

#include "estimate/graph/actops.h"

/* The layer's recurrent mixer over its normed input `hin` (this rank's
 * sequence shard under SP): its output, hidden-sized. */
int vx_act_mixer(vx_ab *a, int hin, const vx_part *P) VX_HIDDEN;

#endif
