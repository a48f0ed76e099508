/* Building a tensor inventory (inventory.c): the helpers a family's builder
 * (lib/model/families/) uses, and the generic pieces of a decoder. One
 * group per nn.Parameter of the Hugging Face module tree, with its role,
 * kind, HF leaf name, shape and multiplicity; a linear is a weight group
 * plus, when it has one, a bias group of the same name and role. */
#ifndef VX_INVENTORY_H
#define VX_INVENTORY_H

#include "model/model.h"

/* An inventory being built: growable (the model's), or a caller's fixed
 * array (head tensors, no allocation) that only counts past its end. */
typedef struct vx_ib {
    const vx_layers *L; /* the model's layers (NULL while building head tensors only) */
    vx_tensor **inv;
    size_t *n, *cap;
    vx_tensor *fixed;
    size_t fixed_cap, count;
    int rc;
} vx_ib;

#define VX_DEC VX_PART_DECODER
#define VX_ENC VX_PART_ENCODER
#define VX_GLB VX_PART_GLOBAL

/* One group: `nl` layers (0: once) of `per` copies (experts) each. */
void vx_ib_put(vx_ib *b, const char *name, int role, int kind, int part, int64_t rows, int64_t cols, int64_t nl,
               int64_t per, int expert) VX_HIDDEN;
/* nn.Linear(in, out): weight out x in, and a bias of out when `bias`. */
void vx_ib_lin(vx_ib *b, const char *name, int role, int part, int64_t out, int64_t in, int bias, int64_t nl) VX_HIDDEN;
/* `per` copies of a linear per layer (routed experts when `expert`). */
void vx_ib_lin_n(vx_ib *b, const char *name, int role, int part, int64_t out, int64_t in, int bias, int64_t nl,
                 int64_t per, int expert) VX_HIDDEN;
/* A norm of `dim` (VX_NORM_*: LayerNorm has a weight and a bias, the
 * others a weight), `per` copies per layer. */
void vx_ib_norm_n(vx_ib *b, const char *name, int role, int part, int kind, int64_t dim, int64_t nl,
                  int64_t per) VX_HIDDEN;
void vx_ib_norm(vx_ib *b, const char *name, int role, int part, int kind, int64_t dim, int64_t nl) VX_HIDDEN;
/* The recurrent mixer (Mamba, Mamba-2, gated DeltaNet) of `nl` layers
 * (ssm_mixer.c). */
void vx_ib_ssm_mixer(vx_ib *b, const vx_shape *s, int64_t nl) VX_HIDDEN;
/* A global embedding table, rows x cols. */
void vx_ib_emb(vx_ib *b, const char *name, int role, int64_t rows, int64_t cols) VX_HIDDEN;
/* The generic decoder body the family's row describes (embeddings, every
 * layer by kind, the final norm): for a builder that adds to it. */
void vx_ib_decoder(vx_ib *b, const vx_shape *s) VX_HIDDEN;

#endif
