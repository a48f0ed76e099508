/* Training-step estimator (issue #5): the modules and the contracts between
 * them. One job per file:
 *   static_terms.c  weights, master weights, gradients, optimizer states per
 *                   tensor group, and the per-role linear table the layer
 *                   programs read (trainable? adapted? quantized?)
 *   optimizer.c     optimizer states per parameter and step temporaries
 *   peft.c          LoRA target matching and adapter tensors
 *   tape.c          a symbolic autograd tape: tensors, saved-for-backward
 *                   references, a forward pass and a reverse backward pass
 *                   that track live bytes per category
 *   activations.c   the per-layer programs (what each family's HF module
 *                   allocates and saves, op by op)
 *   logits.c        embeddings, the output head and the loss
 *   allocator.c     the caching-allocator reserve (reserved - allocated)
 *   train.c         the step timeline, the peak and the result
 * Nothing here allocates: every structure lives on the caller's stack. */
#ifndef VX_TRAIN_H
#define VX_TRAIN_H

#include "estimate/parallel/parallel.h"

/* ---- behaviours of the software stack ----
 * The defaults model current PyTorch 2.x on CUDA with current transformers.
 * The torch harness (torch 1.13 on CPU, transformers ~4.38-4.44 code paths)
 * needs the other values; tests/test_train_harness.c sets them. */
typedef struct vx_train_knobs {
    int torch_major; /* 2; 1 = torch 1.13, whose mean() saved its input (RMSNorm +4 B x N x h) */
    int cpu;         /* 1: tensors on the CPU: no 512-B rounding, no cuBLAS workspace or allocator
                        reserve, CPU autocast op lists, the optimizer's step counters counted,
                        checkpoint RNG states on the device */
    int hf_legacy;   /* transformers <= 4.44: per-layer RoPE tables, Llama-family logits.float()
                        inside the model, shifted-logits .contiguous() copy in the loss, repeat_kv
                        before SDPA; -1 = auto (0) */
    int shift_copy;  /* shifted-logits copy: -1 follows hf_legacy */
    int logits_held; /* the model output (logits) stays referenced through backward: -1 = by
                        framework (a plain PyTorch loop keeps `outputs`, HF Trainer drops it) */
    int mask_bytes;  /* bytes per dropout-mask element: 1 (bool, CUDA fused kernel); the CPU
                        F.dropout path keeps a mask in the activation dtype */
    int adapter_bytes; /* bytes per LoRA adapter element: 0 = PEFT's default (fp32 adapters,
                          autocast_adapter_dtype=True); the harness builds them in the base dtype */
} vx_train_knobs;

void vx_train_knobs_default(vx_train_knobs *k) VX_HIDDEN;

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

typedef struct vx_train_model {
    vx_part dec, enc;
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
int vx_train_static(vx_ctx *x, const vx_shard *sh, const vx_train_knobs *k, vx_train_model *tm) VX_HIDDEN;

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
/* The implementation PyTorch picks (auto -> foreach on CUDA, single on CPU;
 * bitsandbytes and DeepSpeed/Megatron steps are fused kernels). */
int vx_opt_impl(const vx_ctx *x, int cpu) VX_HIDDEN;

/* peft.c */
/* 1 when LoRA adapts this matrix group under the workload's lora_targets. */
int vx_lora_targets(const vx_ctx *x, const vx_tensor *t) VX_HIDDEN;
/* Check the targets against the model: VRAMEST_E_INVALID_ARG naming the
 * module names that exist when none matches; a warning for each listed name
 * that matches nothing. */
int vx_lora_check(vx_ctx *x) VX_HIDDEN;

/* ---- the tape (tape.c) ---- */
enum { VX_TC_ACT = 0, VX_TC_LOGITS = 1, VX_TC_WORK = 2, VX_TC_GRAD = 3, VX_TC_ADAPT = 4, VX_TC_N = 5 };
#define VX_TAPE_T 320
#define VX_TAPE_N 256

typedef struct vx_tt {
    uint64_t elems;  /* logical elements */
    uint64_t abytes; /* bytes allocated for the storage (0 for a view) */
    uint64_t gbytes; /* bytes of this tensor's gradient alive in backward */
    uint64_t graw;   /* the same before allocator rounding (the compile log's unit) */
    int16_t root;    /* the tensor owning the storage (itself unless a view) */
    int16_t save_as; /* saving this tensor keeps that one instead (sequence-parallel all-gathers) */
    uint16_t holds;  /* Python references (on the root) */
    uint16_t saves;  /* saved-for-backward references (on the root) */
    uint8_t eb, cat, rg, hasg;
    uint8_t ns_dead; /* freed in the checkpointed-forward accounting */
} vx_tt;

typedef struct vx_tn {
    int16_t in[3], out[2], sv[5];
    uint8_t nin, nout, nsv;
    uint8_t pass;     /* bit i: input i receives the output's gradient itself (views, adds, clones) */
    uint8_t wcat;
    uint8_t wsum;     /* the parameter's .grad exists already (tied weight): its new gradient is summed in */
    uint64_t wg;      /* parameter gradient bytes produced */
    uint64_t wtmp;    /* a transient beside the parameter gradient (its low-precision form) */
    uint64_t tmp;     /* backward scratch of the kernel */
} vx_tn;

typedef struct vx_tape {
    uint8_t cpu;     /* no allocator rounding */
    uint8_t grad;    /* autograd records nodes */
    uint8_t save;    /* saved tensors are retained */
    uint8_t err;     /* ran out of slots */
    uint8_t bwd;     /* in backward */
    uint16_t nt, nn;
    uint64_t rmask;  /* allocator rounding: 511 (512-B blocks on CUDA), 0 on the CPU */
    uint64_t live[VX_TC_N], tot, peak, pk[VX_TC_N];       /* saves kept; backward keeping new grads */
    uint64_t live_ns[VX_TC_N], tot_ns, peak_ns, pk_ns[VX_TC_N]; /* forward under checkpointing */
    uint64_t peak_acc, pk_acc[VX_TC_N];                   /* backward summing into existing grads */
    uint64_t wkept[VX_TC_N], wkept_tot;                   /* new parameter gradients so far */
    struct vx_tlog *log;     /* NULL, or every counter change is logged (progcache.c compiles it) */
    vx_tt t[VX_TAPE_T];
    vx_tn n[VX_TAPE_N];
} vx_tape;

void vx_tape_init(vx_tape *tp, int cpu, int grad, int save) VX_HIDDEN;
int vx_tape_new(vx_tape *tp, uint64_t elems, int eb, int cat, int rg) VX_HIDDEN;
int vx_tape_view(vx_tape *tp, int base, uint64_t elems) VX_HIDDEN;
/* A view without the pass-through node (the caller records its own). */
int vx_tape_view_raw(vx_tape *tp, int base, uint64_t elems) VX_HIDDEN;
void vx_tape_drop(vx_tape *tp, int id) VX_HIDDEN;
void vx_tape_begin_backward(vx_tape *tp) VX_HIDDEN;
/* A transient allocation inside a forward op (kernel scratch). */
void vx_tape_transient(vx_tape *tp, uint64_t bytes, int cat) VX_HIDDEN;
/* Record one autograd node. Inputs that do not require grad are dropped from
 * it; without any input requiring grad and without a parameter gradient no
 * node exists and nothing is saved. Returns 1 when recorded. */
typedef struct vx_node_spec {
    int16_t in[3], out[2], sv[5];
    uint8_t nin, nout, nsv, pass, wcat, wsum;
    uint64_t wg, wtmp, tmp;
} vx_node_spec;
int vx_tape_node(vx_tape *tp, const vx_node_spec *ns) VX_HIDDEN;
/* Keep tensors alive until backward reaches this point (a checkpoint's
 * inputs): a node with saved tensors and nothing else. */
void vx_tape_keep(vx_tape *tp, const int *ids, int n) VX_HIDDEN;
/* Run backward from `out` (its gradient allocated first) down the tape. */
void vx_tape_backward(vx_tape *tp, int out) VX_HIDDEN;
static inline uint64_t vx_tape_bytes(const vx_tape *tp, int id)
{
    return id >= 0 ? vx_sat_mul(tp->t[id].elems, tp->t[id].eb) : 0;
}

/* ---- the programs (activations.c, logits.c) ---- */
enum { VX_KERN_EAGER = 0, VX_KERN_SDPA_FLASH = 1, VX_KERN_SDPA_MEM = 2, VX_KERN_FLASH2 = 3 };
enum {
    VX_STYLE_LLAMA = 0, VX_STYLE_GPT2, VX_STYLE_OPT, VX_STYLE_BERT, VX_STYLE_T5, VX_STYLE_BLOOM, VX_STYLE_NEOX,
    VX_STYLE_FALCON, VX_STYLE_PHI, VX_STYLE_GPTJ, VX_STYLE_GLM, VX_STYLE_MEGATRON
};
enum { VX_NS_RMS_HF = 0, VX_NS_RMS_T5, VX_NS_RMS_GEMMA, VX_NS_LN, VX_NS_FUSED };

typedef struct vx_act_cfg {
    uint64_t b, s, N;      /* micro-batch, query tokens per sample (this rank), b*s */
    uint64_t Nh;           /* tokens of hidden-sized tensors outside TP regions (N / tp under SP) */
    int64_t h, a, akv, d, rot, ffn, moe_ffn, V, e;
    int64_t experts, topk, shared_ffn;
    int64_t skv;           /* keys per query (s + prefix) */
    int64_t s_enc;         /* encoder tokens per sample (cross-attention keys) */
    int style, norm, post_ln, parallel, gated, act, qkv_fused, moe;
    double p_attn, p_hid;
    int attn;              /* VX_KERN_* */
    int repeat_kv;         /* GQA K/V expanded to every head before the attention kernel */
    int cb;                /* compute dtype bytes */
    int fp16;              /* the compute dtype is fp16 (not bf16) */
    int amp;               /* autocast over fp32 weights */
    int cuda_autocast;     /* CUDA autocast op lists (fp32-forced softmax, pow, layer_norm, ...) */
    int torch1, cpu, legacy;
    int mask_b;
    int ckpt;              /* VX_GC_* */
    int lora_drop, ab;     /* LoRA dropout > 0; adapter bytes per element */
    int qlora;             /* prepare_model_for_kbit_training: fp32 norms/embeddings */
    int tp;                /* tensor-parallel size */
    int rg_stream;         /* the residual stream requires grad entering the layer */
    int zero3_linear;      /* nn.Linear is DeepSpeed's LinearFunctionForZeroStage3: saves its input
                              whenever a graph is built, frozen or not (vx_shard_zero3_linear) */
} vx_act_cfg;

/* Results of running one program (a layer class, the embeddings, the head). */
typedef struct vx_prog {
    uint64_t x_bytes;        /* the input it was given (held by the caller) */
    uint64_t y_bytes;        /* its output */
    uint64_t saved;          /* bytes it leaves alive after forward, output excluded */
    uint64_t saved_cat[VX_TC_N];
    uint64_t fwd_peak;       /* max live during forward, input included */
    uint64_t fwd_pk[VX_TC_N];
    uint64_t fwd_ns_peak;    /* the same under checkpointing (nothing saved) */
    uint64_t fwd_ns_pk[VX_TC_N];
    uint64_t bwd_peak;       /* max live during backward keeping new parameter gradients; its saved
                                tensors and the incoming gradient included */
    uint64_t bwd_pk[VX_TC_N];
    uint64_t bwd_acc_peak;   /* the same summing them into existing gradients */
    uint64_t bwd_acc_pk[VX_TC_N];
    uint64_t wgrad;          /* parameter gradient bytes it keeps (first micro-batch) */
    uint64_t wgrad_cat[VX_TC_N];
    uint64_t held_out;       /* layer: 1 when it saves its input; head: logits kept through backward */
} vx_prog;

/* The programs take `log` = NULL, or a compile log (progcache.h).
 * One decoder/encoder layer class. `part` the layer's linears; `cross` 1 for a
 * T5 decoder layer (cross-attention over s_enc encoder tokens). */
int vx_act_layer(const vx_act_cfg *c, const vx_part *part, int cross, struct vx_tlog *log, vx_prog *out) VX_HIDDEN;
/* Embeddings (token, position, type, their norm and dropout, OPT project_in). */
int vx_act_embed(const vx_act_cfg *c, const vx_train_model *tm, struct vx_tlog *log, vx_prog *out) VX_HIDDEN;
/* The final norm, the head and the loss. `upcast`: logits.float() in the
 * model; `shift`: shifted-logits copy; `held`: the caller keeps the logits. */
int vx_act_head(const vx_act_cfg *c, const vx_train_model *tm, int upcast, int shift, int held,
                struct vx_tlog *log, vx_prog *out) VX_HIDDEN;

/* ---- allocator.c ---- */
typedef struct vx_alloc_in {
    uint64_t peak_alloc;     /* peak allocated bytes */
    uint64_t largest_act;    /* largest single transient of the step (logits-sized) */
    uint64_t act_peak;       /* activation + logits bytes alive at the peak */
    uint64_t n_big;          /* distinct large transient sizes in the step */
    int cpu;
} vx_alloc_in;
/* Reserved minus allocated (the ALLOCATOR category) with its band. */
void vx_alloc_reserve(const vx_alloc_in *in, uint64_t *bytes, uint64_t *low, uint64_t *high) VX_HIDDEN;

/* ---- train.c ---- */
/* vx_estimate_train with explicit knobs; `tensor_peak` (may be NULL)
 * receives the peak of tensor bytes alone (no workspace, no rounding when
 * knobs->cpu). */
int vx_estimate_train_ex(vx_ctx *x, const vx_train_knobs *k) VX_HIDDEN;

#endif
