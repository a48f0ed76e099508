/* The precision policy as a map over the tensor inventory: which dtype and
 * which allocations each tensor group becomes under a method (bitsandbytes,
 * GPTQ, AWQ, torchao, fp8, GGUF mixes), so that every mode estimator sizes
 * weights the same way. It reads the model and the precision handle only:
 * what a rank keeps, how the allocator rounds, and what the estimate does
 * with the answers are the estimator's (estimate/). */
#ifndef VX_POLICY_H
#define VX_POLICY_H

#include "precision/precision.h" /* vx_policy, vx_piece */

/* Storage dtype of one inventory tensor under the policy (quantized matrices,
 * skipped modules and norms kept at the compute dtype, ...). */
int vx_tensor_storage_dtype(const vx_policy *pol, const vx_tensor *t) VX_HIDDEN;
/* Exact bytes of one inventory group as held on the GPU under the policy. */
uint64_t vx_tensor_gpu_bytes(const vx_policy *pol, const vx_tensor *t) VX_HIDDEN;

/* The pieces of one inventory group under the policy; returns how
 * many were written (0 for an empty group). */
size_t vx_tensor_pieces(const vx_policy *pol, const vx_tensor *t, vx_piece out[VX_MAX_PIECES]) VX_HIDDEN;
/* The same, and whether a GGUF block type fell back for a row that is not
 * whole blocks (*fell, left alone otherwise). */
size_t vx_tensor_pieces_ex(const vx_policy *pol, const vx_tensor *t, vx_piece out[VX_MAX_PIECES],
                           bool *fell) VX_HIDDEN;
/* Would the method replace this group with a quantized module (GGUF: no,
 * its mixes are pieces)? */
bool vx_method_quantizes(const vx_policy *pol, const vx_tensor *t) VX_HIDDEN;

/* Notes on what the policy could not do as asked (embeddings and norms kept
 * at the compute dtype, GGUF block fallbacks, padded groups): up to
 * VX_POLICY_NOTES sentences written to notes[], their count returned. The
 * estimate adds them to the result as warnings. */
#define VX_POLICY_NOTES 4
#define VX_POLICY_NOTE_LEN 256
int vx_precision_notes(const vx_policy *pol, char notes[VX_POLICY_NOTES][VX_POLICY_NOTE_LEN]) VX_HIDDEN;

/* Write the resolved dtypes into a values struct (for the plan's echo). */
void vx_precision_echo(const vx_policy *pol, vx_precision_values *out) VX_HIDDEN;

/* The storage dtype matrices get (a dtype, a GGUF file mix 300+, or AUTO =
 * as stored), resolved from the options and the method. */
int vx_policy_weight_dtype(const vx_policy *pol) VX_HIDDEN;

/* The precision names the storage config.json's quantization_config
 * declares (weights "mxfp4" for gpt-oss, "fp8_e4m3" for DeepSeek's fp8
 * blocks): the checkpoint is loaded as stored. */
bool vx_policy_loads_as_stored(const vx_policy *pol) VX_HIDDEN;

#endif
