/* How a checkpoint stores its weights, from config.json's
 * quantization_config (issue #16, "checkpoint reality"), and what it
 * holds beside the model class (multi-token-prediction layers). The
 * architecture inventory gets the stored dtypes and the scale tensors of
 * the quantized groups, so the checkpoint bytes and the weights "as
 * stored" are those of the files; the parameter counts do not change. */
#ifndef VX_CKPT_QUANT_H
#define VX_CKPT_QUANT_H

#include "common/json_reader.h"
#include "model/model.h"

/* Read config.json's quantization_config object `qc` of document `d`
 * (NULL: none) into *out.
 * Methods this file does not describe (gptq, awq, bitsandbytes: the
 * precision options model them) leave method NONE with the name set.
 * Errors: VRAMEST_E_INVALID_MODEL naming the key of a value no checkpoint
 * can have (a block size of 0, 3 bits). */
int vx_ckpt_quant_parse(const vx_jdoc *d, const vx_jv *qc, vx_ckpt_quant *out) VX_HIDDEN;

#endif
