/* The training step's composition (step.c) as a function of its inputs,
 * shared with the compiled steps (stepcache.c).
 *
 * compose() adds the programs' results (vx_prog) and the step's other byte
 * terms (the leaves: static terms, parallel buffers, extra tensors) into the
 * points of the step - step start, each stack's forward, the head, each
 * layer's backward, the optimizer step - and keeps the largest. It only adds
 * values and multiplies them by counts that depend on the structure (layers,
 * micro-batches in flight), never on the values: every point is a linear
 * function of the values (vx_step_vals, read as a flat array of uint64). A
 * choice between two ways a layer can peak (a checkpointed layer's recompute
 * or its backward) is a pair of points, the larger one counting. That is
 * what lets stepcache.c compile the step: probing compose() with unit
 * inputs gives its coefficients. */
#ifndef VX_STEP_H
#define VX_STEP_H

#include "estimate/graph/program.h"

struct vx_cprog;

/* Programs: the embeddings, the head, stacks of layers: one per layer
 * kind (model/family.h, VX_MAX_KINDS; Nemotron-NAS has 8), plus the frozen
 * layers and a first layer whose input does not require grad. */
enum { VX_SP_EMB = 0, VX_SP_HEAD = 1, VX_SP_STK = 2, VX_SP_NSTK = VX_MAX_KINDS + 2, VX_SP_N = VX_SP_STK + VX_SP_NSTK };

/* The leaves: byte terms of the step other than the programs'. The first
 * VX_NCAT are what lives through the step (weights, master, states,
 * adapters, persistent buffers, workspaces) by category. */
enum {
    VX_LF_IDS = VX_NCAT, /* one int64 token tensor (input ids, labels, mask), allocator-rounded */
    VX_LF_A2A,           /* WORKSPACE, forward and backward: MoE all-to-all buffers */
    VX_LF_FWDX,          /* ACTIVATIONS held through the forward (eager causal mask, T5 position bias) */
    VX_LF_BWDX,          /* ACTIVATIONS held through the backward */
    VX_LF_WFWD,          /* WEIGHTS gathered in the forward (ZeRO-3 / FSDP) */
    VX_LF_WBWD,          /* WEIGHTS gathered in the backward */
    VX_LF_GBWD,          /* GRADIENTS: reduce buckets in the backward */
    VX_LF_GACC,          /* GRADIENTS kept between micro-batches (FSDP no_sync) */
    VX_LF_G,             /* the full gradients on this rank */
    VX_LF_AG,            /* the adapters' gradients */
    VX_LF_LARGEST,       /* the largest parameter's gradient (optimizer in backward) */
    VX_LF_OPTTMP,        /* WORKSPACE of the optimizer step on the GPU */
    VX_LF_STEP,          /* WORKSPACE of the optimizer step: parallel buffers */
    VX_LF_RNG,           /* what a checkpointed layer keeps beside its input (CPU RNG state) */
    VX_LF_OPS,           /* ACTIVATIONS: per layer of stack i (VX_LF_OPS + i), what op-level selective
                            checkpointing keeps beside the layer's input */
    VX_LF_N = VX_LF_OPS + VX_SP_NSTK
};

typedef struct vx_step_vals {
    vx_prog p[VX_SP_N];
    uint64_t leaf[VX_LF_N];
} vx_step_vals;
#define VX_SV_N ((int)(sizeof(vx_step_vals) / sizeof(uint64_t)))

typedef struct vx_step_stack {
    int64_t n, first;     /* layers; the first one's index in the model */
    const char *name;     /* a string literal */
    int32_t ckpt;         /* checkpointed: keeps its input, recomputes in backward */
    int32_t frozen;       /* runs without a graph: keeps nothing, no backward */
    int32_t held;         /* the layer program holds its input itself */
    int32_t ops;          /* checkpointed op by op: keeps its input and VX_LF_OPS + its index */
} vx_step_stack;

/* Everything compose() decides by, other than values. Two steps with equal
 * shapes compose their values the same way. */
typedef struct vx_step_shape {
    int32_t first, last;   /* the embeddings / the head run on this rank */
    int32_t nstk;
    int32_t ids_mul;       /* token tensors alive through the step */
    int32_t later;         /* the measured micro-batch runs with gradients allocated */
    int32_t ga2;           /* grad_accum_steps > 1 */
    int32_t reduce;        /* gradients sharded or stepped in backward: full ones are transients */
    int32_t opt;           /* an optimizer step follows */
    int32_t in_bwd;        /* optimizer_in_backward */
    int32_t opt_dev;       /* the optimizer step runs on the GPU */
    int32_t offload;       /* saved activations go to the host: the GPU keeps one layer's in flight */
    int32_t pad;
    int64_t inflight;      /* pipeline micro-batches in flight beyond this one */
    vx_step_stack stk[VX_SP_NSTK];
} vx_step_shape;

/* A point of the step as compose() logs it (for compiling). */
typedef struct vx_spoint {
    uint64_t c[VX_NCAT];
    const char *label;
    int32_t layer;
    uint8_t phase;
    uint8_t record; /* goes to the timeline (while it has room) */
    uint8_t pair;   /* 0 alone; 1 and 2: the two ways one point can peak */
} vx_spoint;

#define VX_SLOG_CAP 160
typedef struct vx_slog {
    uint32_t n;
    uint8_t overflow;
    vx_spoint pt[VX_SLOG_CAP];
} vx_slog;

/* What a step gives: the breakdown at its peak and its timeline. */
typedef struct vx_step_out {
    uint64_t at[VX_NCAT]; /* categories at the peak */
    uint64_t total;       /* allocated at the peak (all but FRAMEWORK and ALLOCATOR) */
    uint64_t host_act;    /* offloaded activations of one micro-batch in host memory (compose() only) */
    int phase;
    /* the timeline: points written to tl[0 .. ntl), at most cap of them (the
     * caller's buffer: the result's timeline after what is there) */
    vx_timeline_point *tl;
    uint32_t ntl, cap;
} vx_step_out;

/* Compose the step. `log` may be NULL. */
void vx_step_compose(const vx_step_shape *sp, const vx_step_vals *v, vx_step_out *out, vx_slog *log) VX_HIDDEN;

/* prepare.c: the programs' config of a rank at the config's sizes. */
void vx_train_cfg(const vx_ctx *x, const vx_shard *sh, const vx_train_model *tm,
                  vx_act_cfg *c) VX_HIDDEN;
/* prepare.c: the fields of `c` that depend on batch_size and seq_len. */
void vx_train_cfg_sizes(const vx_config_values *cv, const vx_shard *sh, const vx_train_model *tm,
                        vx_act_cfg *c) VX_HIDDEN;
/* prepare.c: the step's shape and values at the sizes of `c`, the
 * programs' results from `src` (the replay, or the estimator's cache;
 * `stable`: `tm` is the cache's). `lraw` / `lmask` (may be NULL): the
 * leaves before allocator rounding and each one's rounding mask. `used`
 * (may be NULL): VX_SP_N entries, each program's compiled form (NULL:
 * replayed, or not in the step). */
int vx_train_step_prepare(const vx_ctx *x, const vx_shard *sh, const vx_train_model *tm,
                          const vx_prog_source *src, int stable, const vx_act_cfg *c, vx_step_shape *sp,
                          vx_step_vals *v, uint64_t *lraw, uint64_t *lmask, const struct vx_cprog **used) VX_HIDDEN;

/* prepare.c: the head's options from the runtime:
 * transformers' legacy paths, logits.float() inside the model, the shifted
 * logits copy, the caller keeping the logits through backward. */
typedef struct vx_head_opts {
    int legacy, upcast, shift, held, loss_upcast;
} vx_head_opts;
void vx_step_head_opts(const vx_ctx *x, const vx_train_model *tm, vx_head_opts *o) VX_HIDDEN;

/* prepare.c: where the static terms live on this rank. */
typedef struct vx_static_devices {
    int wdev, mdev, odev, grads_on_gpu; /* VRAMEST_DEV_* of weights, master weights, optimizer states */
    uint64_t w_gpu;                     /* weights on the GPU after ZeRO/FSDP sharding */
} vx_static_devices;
void vx_static_devices_of(const vx_shard *sh, const vx_train_model *tm, vx_static_devices *p) VX_HIDDEN;

/* Whether program q (VX_SP_*) runs in the step. */
static inline int vx_step_has_prog(const vx_step_shape *sp, int q)
{
    return q == VX_SP_EMB ? sp->first : q == VX_SP_HEAD ? sp->last : q - VX_SP_STK < sp->nstk;
}

/* A point's allocated bytes: every category but FRAMEWORK and ALLOCATOR. */
static inline int vx_step_counts(int cat)
{
    return cat != VRAMEST_CAT_FRAMEWORK && cat != VRAMEST_CAT_ALLOCATOR;
}

/* ---- allocator.c ---- */
typedef struct vx_alloc_in {
    uint64_t peak_alloc;     /* peak allocated bytes */
    uint64_t largest_act;    /* largest single transient of the step (logits-sized) */
    uint64_t act_peak;       /* activation + logits bytes alive at the peak */
    uint64_t n_big;          /* distinct large transient sizes in the step */
    int cpu;
    int static_shapes;       /* every step allocates the same large blocks (packed fixed-length batches) */
} vx_alloc_in;
/* Reserved minus allocated (the ALLOCATOR category) with its band. */
void vx_alloc_reserve(const vx_alloc_in *in, uint64_t *bytes, uint64_t *low, uint64_t *high) VX_HIDDEN;

#endif
