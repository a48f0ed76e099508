/* What the model's description leaves open, said in every estimate's
 * warnings (model_notes.c). */
#ifndef VX_MODEL_NOTES_H
#define VX_MODEL_NOTES_H

#include "estimate/context/context.h"

/* Warnings from the model (files lacking tensors, an index at odds with
 * its shards) and the quant_method config.json names against the policy
 * resolved for this estimate. Call first, so the result's bounded list of
 * warnings keeps them. */
void vx_model_notes(const vx_ctx *x, struct vramest_result *r) VX_HIDDEN;

#endif
