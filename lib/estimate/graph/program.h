/* The programs run on the tape (activations.c, logits.c): what each
 * family's Hugging Face module allocates and saves, op by op, for one
 * layer class, the embeddings, and the head with its loss. A program's
 * result depends on the sizes only through byte counts, which is what lets
 * the estimator's cache compile it (estimate/cache/progcache.h). */
#ifndef VX_PROGRAM_H
#define VX_PROGRAM_H

#include "estimate/graph/tape.h"
#include "estimate/params/params.h"

/* ---- the programs (activations.c, logits.c) ---- */
enum { VX_KERN_EAGER = 0, VX_KERN_SDPA_FLASH = 1, VX_KERN_SDPA_MEM = 2, VX_KERN_FLASH2 = 3 };
enum { VX_NS_RMS_HF = 0, VX_NS_RMS_T5, VX_NS_RMS_GEMMA, VX_NS_LN, VX_NS_FUSED };

typedef struct vx_act_cfg {
    uint64_t b, s, N;      /* micro-batch, query tokens per sample (this rank), b*s */
    uint64_t Nh;           /* tokens of hidden-sized tensors outside TP regions (N / tp under SP) */
    int64_t h, a, akv, d, rot, ffn, moe_ffn, V, e;
    int64_t experts, topk, shared_ffn;
    int64_t skv;           /* keys per query (s + prefix) */
    int64_t s_enc;         /* encoder tokens per sample (cross-attention keys) */
    /* What the family's row says about its modules (model/family.h); `place`
     * starts the structural part of the cache key (progcache.c). */
    int place;             /* VX_PLACE_*: where the norms sit */
    int norm, gated, act, qkv_fused, moe;
    vx_attn_impl ai;       /* the eager attention module */
    uint8_t megatron;      /* Megatron-core's GPT model: fused norms, its own attention path */
    uint8_t emb_drop;      /* dropout on the embeddings' output */
    uint8_t emb_scale;     /* embeddings scaled by sqrt(hidden) */
    uint8_t pos_tok;       /* learned positions gathered per token */
    uint8_t emb_proj;      /* project_in / project_out around a narrower embedding */
    uint8_t mlp_drop;      /* dropout inside the MLP */
    uint8_t head_norm_stack; /* the final norm belongs to the stack, not the head */
    uint8_t head_scale_tied; /* a tied head scales its input by d_model^-0.5 */
    uint8_t rel_bias;      /* a relative position bias shared by the layers of a stack */
    uint8_t logits_scaled; /* the head multiplies its logits by a constant */
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
    int loss, loss_chunks; /* VX_LOSS_* of a causal-LM or masked-LM head; chunks of `chunked` */
    int compiled;          /* torch.compile: the chunked loss keeps no fp32 log-probabilities */
    int loss_upcast;       /* the causal-LM cross-entropy upcasts its input to fp32 */
    int sp_save_full;      /* sequence parallelism: a column-parallel linear saves the gathered input */
    int lora_drop, ab;     /* LoRA dropout > 0; adapter bytes per element */
    int qlora;             /* prepare_model_for_kbit_training: fp32 norms/embeddings */
    int tp;                /* tensor-parallel size */
    int rg_stream;         /* the residual stream requires grad entering the layer */
    int zero3_linear;      /* nn.Linear is DeepSpeed's LinearFunctionForZeroStage3: saves its input
                              whenever a graph is built, frozen or not (vx_shard_zero3_linear) */
    /* Appended (issue #16): the layer kind has no attention / no MLP (NAS
     * no-op blocks; a hidden x hidden linear in their place is counted as
     * nothing: one hidden-sized output). */
    uint8_t no_mixer, no_mlp;
    /* The kind's own dense MLP width on this rank (0: the model's), when
     * the part's linears are another kind's (Nemotron-NAS): the dense
     * MLP's linears are resized to it. */
    int64_t kind_ffn;
    /* Appended (issue #16): the layer kind's token mixer, and the recurrent
     * mixer's geometry on this rank (mixers.c). */
    int mixer;             /* VX_MIX_* of the layer kind */
    int ssm_par;           /* a recurrent mixer runs beside the attention (Falcon-H1) */
    int attn_gate;         /* q_proj also yields a sigmoid gate on the attention output */
    int ssm_kind;          /* VX_SSM_* */
    int64_t ssm_inner, ssm_state, ssm_heads, ssm_head_dim, ssm_groups, ssm_conv_dim, ssm_dt_rank, ssm_chunk;
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

/* ---- programs ---- */
enum { VX_PK_LAYER = 0, VX_PK_EMBED = 1, VX_PK_HEAD = 2 };

/* One program call: which program, its inputs. `part` for a layer, `tm`
 * for the embeddings and the head. */
typedef struct vx_prog_call {
    int kind;
    const vx_act_cfg *c;
    const vx_part *part;
    const vx_train_model *tm;
    int stable;               /* part / tm point into the cache's static entry: the pointer
                                 identifies the content (no byte comparison) */
    int cross;                /* layer: T5 cross-attention */
    int upcast, shift, held;  /* head */
    const struct vx_cprog **used; /* may be NULL: receives the compiled form evaluated (NULL: replayed) */
} vx_prog_call;

/* Run the program on the tape (the replay), optionally logging into `log`. */
int vx_prog_run(const vx_prog_call *pc, vx_tlog *log, vx_prog *out) VX_HIDDEN;

/* Where a step gets its programs' results: the replay, or a cache that
 * keeps compiled forms (estimate/cache/). `eval` fills *pc->used when it
 * evaluated a compiled form (NULL otherwise). */
typedef struct vx_prog_source {
    int (*eval)(void *arg, const vx_prog_call *pc, vx_prog *out);
    void *arg;
} vx_prog_source;
/* The replay: every call runs the program on the tape. */
extern const vx_prog_source vx_prog_replay VX_HIDDEN;

#endif
