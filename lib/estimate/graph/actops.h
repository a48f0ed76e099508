/* Op helpers shared by the layer programs (activations.c) and the embedding
 * / head programs (logits.c): each helper allocates what the PyTorch op
 * allocates, records the autograd node with exactly the tensors its
 * derivative formula saves (research note §3: an input is saved only when
 * the gradient that needs it will be computed), and returns the output. The
 * caller drops its Python references as the HF code does. */
#ifndef VX_ACTOPS_H
#define VX_ACTOPS_H

#include "estimate/graph/program.h"

typedef struct vx_ab {
    vx_tape *tp;
    const vx_act_cfg *c;
    uint8_t gb;      /* bytes per parameter-gradient element */
    int cat;         /* category new tensors get (ACT, or LOGITS in the head) */
} vx_ab;

int vx_op_new(vx_ab *a, uint64_t elems, int eb, int rg) VX_HIDDEN;
/* A tensor from outside the program (shared mask, encoder output): no bytes
 * counted here; `grad_exists`: its gradient buffer is accounted elsewhere. */
int vx_op_extern(vx_ab *a, uint64_t elems, int eb, int rg, int grad_exists) VX_HIDDEN;
void vx_op_drop(vx_ab *a, int id) VX_HIDDEN;
int vx_op_view(vx_ab *a, int x, uint64_t elems) VX_HIDDEN;
int vx_op_view_raw(vx_ab *a, int x, uint64_t elems) VX_HIDDEN;
int vx_op_cast(vx_ab *a, int x, int eb) VX_HIDDEN;
int vx_op_copy(vx_ab *a, int x) VX_HIDDEN;
/* Elementwise op saving nothing: scalar multiply (grad recomputed), or a
 * scalar add / clone-like op whose gradient passes through. */
int vx_op_scalar(vx_ab *a, int x, int passes) VX_HIDDEN;
/* a (op) b elementwise with broadcasting; `mul` saves each operand the
 * other's gradient needs; an add saves nothing and passes its gradient. */
int vx_op_mul(vx_ab *a, int x, int y, int out_eb) VX_HIDDEN;
int vx_op_add(vx_ab *a, int x, int y, int out_eb) VX_HIDDEN;
/* Unary op saving its input (silu, gelu, pow) or its output (tanh, relu,
 * rsqrt, softmax, exp); `tmp_units` backward scratch in units of the input. */
int vx_op_unary_in(vx_ab *a, int x, int out_eb, int tmp_units) VX_HIDDEN;
int vx_op_unary_out(vx_ab *a, int x, int out_eb) VX_HIDDEN;
/* Reduction to `elems` (mean, sum): saves its input only on torch 1.13
 * (mean) when `saves_in`. */
int vx_op_reduce(vx_ab *a, int x, uint64_t elems, int saves_in) VX_HIDDEN;
int vx_op_dropout(vx_ab *a, int x, double p) VX_HIDDEN;
/* Batched matmul x @ y -> `elems` in dtype `out_eb`; saves each operand the
 * other's gradient needs. */
int vx_op_matmul(vx_ab *a, int x, int y, uint64_t elems, int out_eb) VX_HIDDEN;
/* nn.Linear over `rows` tokens with the module described by L: autocast
 * casts, frozen vs trainable saves, quantized dequantization scratch and the
 * LoRA branch. */
int vx_op_linear(vx_ab *a, int x, const vx_lin *L, uint64_t rows) VX_HIDDEN;
/* nn.LayerNorm (native_layer_norm): saves input, mean, rstd. */
int vx_op_layernorm(vx_ab *a, int x, uint64_t rows, int trainable, uint64_t wg, int out_eb) VX_HIDDEN;
/* HF LlamaRMSNorm / T5LayerNorm / GemmaRMSNorm / a fused kernel. */
int vx_op_rmsnorm(vx_ab *a, int x, uint64_t rows, int kind, int trainable, uint64_t wg, int wbytes) VX_HIDDEN;

/* Sequence parallelism: all-gather before a column-parallel linear (the
 * local shard is what backward keeps), reduce-scatter after a row-parallel
 * one; identity without it. The gather returns a new reference. */
int vx_op_sp_gather(vx_ab *a, int x) VX_HIDDEN;
int vx_op_sp_scatter(vx_ab *a, int y) VX_HIDDEN;

/* After a program's forward (input x held by the caller, or -1; output y):
 * fill `out` with its forward peaks and saved set, run its backward from
 * y and record the backward peaks and kept parameter gradients. */
void vx_prog_finish(vx_tape *tp, int x, int y, int drop_y, vx_prog *out) VX_HIDDEN;

static inline int vx_op_rg(const vx_ab *a, int id)
{
    return id >= 0 && a->tp->t[id].rg;
}
static inline int vx_op_eb(const vx_ab *a, int id)
{
    return id >= 0 ? a->tp->t[id].eb : 0;
}
static inline uint64_t vx_op_elems(const vx_ab *a, int id)
{
    return id >= 0 ? a->tp->t[id].elems : 0;
}

#endif
