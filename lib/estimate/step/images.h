/* Images in the workload of a multimodal model (issue #16 item 3): their
 * tokens in the language model's sequence, and the vision tower's
 * activations in training and at prefill (images.c). */
#ifndef VX_IMAGES_H
#define VX_IMAGES_H

#include "estimate/context/context.h"
#include "estimate/step/step.h"

struct vramest_config;

/* The config the estimate runs, in *out: `cfg` itself without images, else
 * a copy in *buf whose seq_len (and a set prompt_len) include the images'
 * tokens. Errors: images with a text model (VRAMEST_E_CONFLICT), a sequence
 * beyond the options' bounds (VRAMEST_E_RANGE). */
int vx_images_config(const struct vramest_model *m, const struct vramest_config *cfg, struct vramest_config *buf,
                     const struct vramest_config **out) VX_HIDDEN;
/* Training: add the tower's saved activations (first pipeline stage, a
 * trainable tower) to the forward and backward points of the step and to
 * its peak when the peak is in them. */
void vx_images_train(const vx_ctx *x, const vx_shard *sh, vx_step_out *out) VX_HIDDEN;
/* Inference: the tower's forward over the prompt's images (no grad), the
 * live bytes at its peak (0 without images or off the first stage). */
uint64_t vx_images_prefill(const vx_ctx *x, const vx_shard *sh, uint64_t seqs) VX_HIDDEN;

#endif
