/* One layer's block as an op list: where its norms, its token mixer, its
 * MLP and its residual adds run, and when Python drops each reference.
 * The training program (activations.c) runs it on the tape; the inference
 * forward (estimate/infer/forward_infer.c) walks it for what each stage
 * holds. The list follows from the family's norm placement
 * (model/family.h, VX_PLACE_*), so a family's block is described once. */
#ifndef VX_BLOCK_H
#define VX_BLOCK_H

#include "common/internal.h"

enum {
    VX_BOP_END = 0, /* the output is the last op's dst */
    VX_BOP_NORM,    /* dst = norm(a) */
    VX_BOP_ATTN,    /* dst = self-attention(a), output projection included */
    VX_BOP_XATTN,   /* dst = cross-attention(a) over the encoder output */
    VX_BOP_MLP,     /* dst = mlp(a) (dense or experts) */
    VX_BOP_ADD,     /* dst = a + b (a residual add) */
    VX_BOP_DROP,    /* Python drops its reference to a */
};

/* Slot 0 is the layer's input, held by the caller through the layer. */
#define VX_BLOCK_SLOTS 8

typedef struct vx_bop {
    uint8_t op, dst, a, b;
} vx_bop;

/* The ops of a layer with norm placement `place` (VX_PLACE_*) and, when
 * `cross`, a cross-attention sublayer after self-attention. */
const vx_bop *vx_block_ops(int place, int cross) VX_HIDDEN;
/* ... of a layer without its token mixer or without its MLP (a NAS no-op
 * block: the sublayer, its norm and its residual add are gone). Only the
 * pre-norm block has such layers (DeciLM); other placements get their
 * whole list. */
const vx_bop *vx_block_ops_of(int place, int cross, int no_mixer, int no_mlp) VX_HIDDEN;

/* Hidden-sized tensors a block holds besides its input while its token
 * mixer runs (the mixer's input among them) and while its MLP runs: the
 * most over its attention ops and over its MLP ops. vx_block_walk walks
 * an op list for them; vx_block_held gives them for the list of
 * (place, cross) from a table the walk is checked against. */
void vx_block_walk(const vx_bop *ops, int *attn_held, int *mlp_held) VX_HIDDEN;
void vx_block_held(int place, int cross, int *attn_held, int *mlp_held) VX_HIDDEN;
/* The same for a layer kind without its token mixer or its MLP (a pre-norm
 * block of one sublayer, vx_block_ops_of: Mamba, Nemotron-H, NAS no-op
 * blocks); with both, vx_block_held. */
void vx_block_held_of(int place, int cross, int no_mixer, int no_mlp, int *attn_held, int *mlp_held) VX_HIDDEN;

#endif
