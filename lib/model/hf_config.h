/* Hugging Face config.json reader. */
#ifndef VX_HF_CONFIG_H
#define VX_HF_CONFIG_H

#include "model/model.h"

/* Parse a config.json held in memory (need not be NUL-terminated) into the
 * model's architecture options, merging with what the model holds: keys the
 * file gives replace the model's values, a null value unsets. Unknown keys
 * are ignored; model_type must name a supported family. The architecture
 * must then resolve (complete and consistent), else the parse fails.
 * Atomic: on any failure the model is unchanged. Rebuilds the model on
 * success. Errors: VRAMEST_E_PARSE (with the byte offset), _LIMIT (size,
 * nesting), _UNKNOWN_MODEL_TYPE (with the supported ones), _TYPE / _RANGE
 * (naming the key), _INCOMPLETE_MODEL / _INVALID_MODEL, _UNSUPPORTED. */
int vx_parse_hf_config(struct vramest_model *m, const char *buf, size_t len) VX_HIDDEN;

#endif
