/* GGUF quantization mixes (gguf_mix.c): the pieces a tensor group becomes
 * under a llama.cpp file type. */
#ifndef VX_GGUF_MIX_H
#define VX_GGUF_MIX_H

#include "precision/precision.h"

/* Library dtype ids of ggml types (100 + ggml type) and GGUF file types
 * (300 + llama_ftype); the whole table is common/dtype.c. */
#define VX_IS_GGUF_TYPE(d) ((d) >= 100 && (d) < 300)
#define VX_IS_GGUF_MIX(d) ((d) >= 300 && (d) < 400)
enum { VX_GGML_F32 = 100, VX_GGML_F16 = 101, VX_GGML_F64 = 128, VX_GGML_BF16 = 130 };

/* The pieces of one group of `layers` x `copies_per_layer` tensors under
 * the weights value `w` (a file type, a ggml type read as the file type of
 * the same name, or AUTO = the converter's default): the per-layer types,
 * counted. Returns the number of pieces; *fell is set when a row is not
 * whole blocks of the type chosen and llama.cpp's fallback applies. */
size_t vx_gguf_pieces(const vx_policy *pol, const vx_tensor *t, int w, uint64_t copies_per_layer, uint64_t layers,
                      vx_piece *out, bool *fell) VX_HIDDEN;

#endif
