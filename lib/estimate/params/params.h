/* The parameters as a rank holds them (issue #5): weights, fp32 master
 * weights, gradients, optimizer states and adapters per tensor group, and
 * the per-role table of linears the layer programs read (trainable?
 * adapted? quantized?). One job per file:
 *   static_terms.c  the static terms and the linear table of a rank
 *   optimizer.c     optimizer states per parameter and step temporaries
 *   peft.c          LoRA target matching and adapter tensors
 *   weights.c       the weights as allocations, per rank
 * Nothing here allocates: every structure lives on the caller's stack. */
#ifndef VX_PARAMS_H
#define VX_PARAMS_H

#include "estimate/parallel/parallel.h"

/* Bytes per element of a plain dtype, `dflt` for blocked / policy ones:
 * the float dtypes without the table search (hot in per-tensor loops). */
static inline unsigned vx_train_dsize(int dt, unsigned dflt)
{
    switch (dt) {
    case VRAMEST_DTYPE_FP32: return 4;
    case VRAMEST_DTYPE_FP16:
    case VRAMEST_DTYPE_BF16: return 2;
    case VRAMEST_DTYPE_FP64: return 8;
    default: {
        unsigned s = vx_dtype_size(dt);
        return s ? s : dflt;
    }
    }
}

/* ---- the model as the step sees it ---- */

/* One nn.Linear (or embedding / norm group) of a layer, on this rank. */
typedef struct vx_lin {
    int64_t in, out;     /* rank-local features */
    uint8_t present;     /* the module exists */
    uint8_t trainable;   /* its weight requires grad */
    uint8_t bias;        /* has a bias */
    uint8_t quant;       /* VX_LQ_* */
    uint8_t wbytes;      /* bytes per element of the float weight (or of the dequantized copy) */
    uint8_t wcat;        /* category of its gradient: GRADIENTS, or ADAPTER for LoRA matrices */
    int32_t lora_r;      /* LoRA rank on this module (0 = none) */
    uint64_t wgrad;      /* bytes of the weight (+ bias) gradient it produces, per layer */
} vx_lin;
enum { VX_LQ_NONE = 0, VX_LQ_INT8 = 1, VX_LQ_4BIT = 2, VX_LQ_INT4 = 3 };

/* The decoder (or encoder) layer of this rank. */
typedef struct vx_part {
    vx_lin lin[VX_ROLE_COUNT_];
    int64_t layers;         /* on this rank */
    int norm_trainable;     /* norm weights require grad */
    uint8_t norm_wbytes;    /* bytes per element of the norm weights */
    uint8_t gb;             /* bytes per element of parameter gradients */
    uint64_t norm_wgrad;    /* bytes of all norm-weight gradients of one layer */
    uint64_t other_wgrad;   /* other trainable groups of one layer (relative bias, qk norms...) */
    uint64_t adapter_per_layer; /* adapter parameters of one layer (count) */
} vx_part;

/* Linears whose shape follows a layer kind's geometry (model/family.h):
 * attention projections (heads, key/value heads, head size) and the dense
 * MLP (its width). */
enum { VX_KL_Q, VX_KL_K, VX_KL_V, VX_KL_O, VX_KL_GATE, VX_KL_UP, VX_KL_GATE_UP, VX_KL_DOWN, VX_KL_N };
/* A module a kind lacks: its output still exists, made otherwise (K=V
 * layers' values: k_proj's output under v_norm), or not at all (keys and
 * values another layer projected: KV-shared and CLA layers). */
enum { VX_KL_NO_MODULE = 1, VX_KL_NO_OUTPUT = 2 };
typedef struct vx_kind_lin {
    int64_t in, out; /* rank-local (0: the kind does not run it: the part's row as it is) */
    uint8_t absent;  /* VX_KL_*: the kind has no such module: nothing trains */
    uint8_t pad[7];
} vx_kind_lin;

typedef struct vx_train_model {
    vx_part dec, enc;
    /* The decoder's layer kinds differ in these linears (Gemma 4's full and
     * KV-shared layers, Nemotron-NAS blocks, Hunyuan's CLA followers):
     * dec.lin keeps one row per role, and a kind's programs read
     * vx_part_of_kind(). */
    int kind_lins;
    /* global groups (rank-local) */
    vx_lin embed, pos, type, embed_norm, proj_in, proj_out, final_norm, enc_final_norm, lm_head, mlm_dense,
        mlm_norm, pooler, classifier, rel_bias;
    int head;             /* resolved head (VX_HEAD_*) */
    int tied;             /* the LM head is the embedding matrix */
    int finetune;         /* VX_FT_* */
    int lora;             /* adapters present */
    int adapter_bytes;    /* bytes per adapter element (fp32: autocast_adapter_dtype) */
    int64_t trainable_first; /* first decoder layer that trains (freeze); 0 = all */
    int64_t prefix_len;   /* prefix tuning virtual tokens (0 = none) */
    /* static terms on this rank, bytes (allocator-rounded on CUDA) */
    uint64_t weights, weights_exact, master, grads, states, adapter_w, adapter_g, adapter_s;
    uint64_t host_weights, host_master, host_grads, host_states, paged_states, nvme_bytes;
    uint64_t step_on_device; /* optimizer `step` counters held on the GPU */
    uint64_t opt_tmp;        /* optimizer-step temporaries on the GPU (workspace) */
    uint64_t largest_grad;   /* gradient bytes of the largest trainable tensor on this rank */
    uint64_t trainable_params, adapter_params;
    uint64_t n_param_tensors;
    int opt_impl;            /* resolved VX_OPTIMPL_* */
    int prov;                /* provenance of the static terms */
} vx_train_model;

/* static_terms.c */
int vx_train_static(vx_ctx *x, const vx_shard *sh, vx_train_model *tm) VX_HIDDEN;
/* The linears of layer kind `k` on a rank of `tp` tensor-parallel ranks,
 * from its geometry as the inventory builds it (in = out = 0: a role the
 * kind does not run). */
void vx_kind_row(const vx_shape *s, const vx_layer_kind *k, int64_t tp, vx_kind_lin row[VX_KL_N]) VX_HIDDEN;
/* The decoder part `p` (tm->dec or a copy of it) as layer kind `k` runs it
 * (when tm->kind_lins): its row applied, the weight gradients that kind's,
 * a module it lacks neither trained nor adapted. */
void vx_part_of_kind(const vx_shape *s, const vx_layer_kind *k, int64_t tp, const vx_part *p, vx_part *out) VX_HIDDEN;

/* optimizer.c: state bytes of one parameter tensor of `elems` elements held
 * in `param_dtype` (on the GPU unless paged), and the step temporaries. */
typedef struct vx_opt_state {
    uint64_t device;  /* bytes in the caching allocator */
    uint64_t paged;   /* bytes in CUDA managed memory (paged 8-bit optimizers) */
} vx_opt_state;
void vx_opt_tensor_state(int optimizer, int state_dtype, uint64_t elems, int cpu, vx_opt_state *out) VX_HIDDEN;
/* Bytes of the `step` counter the optimizer keeps per parameter tensor on the
 * device (0 when it lives on the CPU or is a Python int). */
uint64_t vx_opt_step_bytes(int optimizer, int impl, int cpu) VX_HIDDEN;
/* Temporaries of one optimizer step: `group_bytes` = bytes of the largest
 * (device, dtype) parameter group in the state dtype, `largest` = bytes of
 * the largest single parameter in the state dtype, `largest_elems` its
 * elements, `low_precision` whether params are 16-bit. */
uint64_t vx_opt_step_temp(int optimizer, int impl, uint64_t group_bytes, uint64_t largest, uint64_t largest_elems,
                          int low_precision) VX_HIDDEN;
/* The implementation the runtime picks for `optimizer_impl auto` (foreach on
 * CUDA, single-tensor on the CPU; bitsandbytes and the runtime's fused
 * steps are fused kernels). */
int vx_opt_impl(const vx_ctx *x) VX_HIDDEN;

/* peft.c */
/* 1 when LoRA adapts this matrix group under the workload's lora_targets. */
int vx_lora_targets(const vx_ctx *x, const vx_tensor *t) VX_HIDDEN;
/* Check the targets against the model: VRAMEST_E_INVALID_ARG naming the
 * module names that exist when none matches; a warning for each listed name
 * that matches nothing. */
int vx_lora_check(vx_ctx *x) VX_HIDDEN;

#endif
