/* A model family is one description (docs/adding-a-family.md): one row of
 * `vx_family` in lib/model/families/, plus at most one builder function
 * beside it. Every consumer reads the row (and the per-layer layout that
 * shape resolution derives from it) instead of switching on the family:
 * - shape resolution (shape.c): class defaults and the rules that turn
 *   config values into the effective architecture;
 * - the inventory (inventory.c): tensor names, layouts, the head;
 * - the config.json reader (hf_config.c): the family's own keys;
 * - the GGUF reader and mixes: llama.cpp architecture names and quirks;
 * - training programs and the inference forward: the attention module,
 *   norm placement, the embedding and head facts, PEFT's default targets;
 * - the KV / state cache: the layer kinds and what a runtime caches.
 * Zero is the Llama value of every field, so a Llama-like row is short.
 * This header depends on nothing above common/: the model handle includes
 * it, not the other way round. */
#ifndef VX_FAMILY_H
#define VX_FAMILY_H

#include "common/internal.h"

struct vx_arch;
struct vx_shape;
struct vx_ib;
struct vx_cfgmap;

/* ---- the per-layer layout -------------------------------------------------
 * A stack of layers is a list of runs (kind, count) in layer order, so a
 * 126-layer model of one kind is one run and Gemma 3's 5 sliding : 1 global
 * pattern is a run per change. The kinds are what differs between layers:
 * the token mixer, its window and positions, the MLP, and the geometry
 * (per-kind sizes, for models whose layers differ in size). */
enum {
    VX_MIX_ATTN = 0,  /* softmax attention over a per-token KV cache */
    VX_MIX_MLA = 1,   /* multi-head latent attention (DeepSeek): a compressed latent is cached */
    VX_MIX_NONE = 2,  /* no token mixer in this layer (NAS no-op blocks) */
    VX_MIX_LINEAR = 3, /* linear attention / gated DeltaNet: a per-sequence state (issue #16) */
    VX_MIX_SSM = 4,   /* state-space (Mamba): a per-sequence conv + recurrent state (issue #16) */
    VX_MIX_PROJ = 5,  /* one hidden x hidden linear in place of attention (NAS replace_with_linear) */
};
enum {
    VX_SPAN_FULL = 0,    /* attends to every earlier token */
    VX_SPAN_SLIDING = 1, /* attends to the last `window` tokens */
    VX_SPAN_CHUNKED = 2, /* attends within its `window`-token chunk (Llama 4) */
};
enum { VX_MLPK_DENSE = 0, VX_MLPK_MOE = 1, VX_MLPK_NONE = 2,
       VX_MLPK_PROJ = 3 /* one hidden x hidden linear in place of the MLP (NAS replace_with_linear) */ };
enum { VX_STACK_DEC = 0, VX_STACK_ENC = 1 };

typedef struct vx_layer_kind {
    uint8_t mixer;     /* VX_MIX_* */
    uint8_t span;      /* VX_SPAN_* (attention mixers) */
    uint8_t rope;      /* rotary positions on this layer (0: NoPE, or no rotary family) */
    uint8_t mlp;       /* VX_MLPK_* */
    uint8_t cross;     /* cross-attention over the encoder (decoder of an encoder-decoder) */
    uint8_t k_eq_v;    /* no v_proj: the values are k_proj's output (Gemma 4's full layers) */
    uint8_t kv_reuse;  /* no k_proj / v_proj: attends to an earlier layer's keys and values (CLA) */
    uint8_t kv_shared; /* keys and values of an earlier layer: no k/v projections, no cache (Gemma 4 E2B/E4B) */
    uint8_t pad[1];
    int64_t window;    /* tokens of a sliding window or a chunk (0: none) */
    /* geometry of this kind (the model's values unless the layers differ) */
    int64_t heads, kv_heads, head_dim, v_head_dim, ffn;
    /* DeepSeek sparse attention: the layer's lightning indexer (0: none;
     * GLM-5.2's "shared" layers reuse the previous indexer's top-k) */
    int64_t index_heads, index_head_dim;
    /* Appended (issue #16): a recurrent mixer runs beside the attention of
     * this layer (Falcon-H1: attention and Mamba-2 in parallel). The
     * recurrent mixer's geometry is the model's (vx_shape.ssm_*). */
    uint8_t ssm_par;
    uint8_t pad2[7];
} vx_layer_kind;

#define VX_MAX_KINDS 16
#define VX_MAX_RUNS 256

typedef struct vx_layer_run {
    uint16_t kind;   /* index into vx_layers.kind */
    uint16_t pad;
    uint32_t count;  /* consecutive layers */
} vx_layer_run;

/* A stack's layers are its runs repeated cyclically: run[run0 .. run0 +
 * nrun) cover one period of `period` layers, and the stack's `layers` are
 * the first layers of that repetition. A uniform stack is one run of all
 * its layers; Gemma 3 is (5 sliding, 1 full) repeated; DeepSeek is (k
 * dense, L - k MoE) once. */
typedef struct vx_layer_stack {
    uint16_t run0, nrun;
    uint32_t pad;
    int64_t period, layers;
} vx_layer_stack;

typedef struct vx_layers {
    uint16_t n_kinds, n_runs;
    vx_layer_stack stack[2];        /* VX_STACK_DEC, VX_STACK_ENC */
    vx_layer_kind kind[VX_MAX_KINDS];
    vx_layer_run run[VX_MAX_RUNS];
} vx_layers;

/* Per kind (the first n_kinds entries), in a range of a stack's layers:
 * how many, and where the first and the last are (-1 when none). */
typedef struct vx_tally {
    int64_t count[VX_MAX_KINDS], first[VX_MAX_KINDS], last[VX_MAX_KINDS];
} vx_tally;
/* Tally layers [first, first + n) of `stack` (clipped to the stack). */
void vx_layers_tally_runs(const vx_layers *L, int stack, int64_t first, int64_t n, vx_tally *t) VX_HIDDEN;
static inline void vx_layers_tally(const vx_layers *L, int stack, int64_t first, int64_t n, vx_tally *t)
{
    const vx_layer_stack *st = &L->stack[stack];
    if (L->n_kinds != 1 || st->nrun != 1) {
        vx_layers_tally_runs(L, stack, first, n, t);
        return;
    }
    /* one kind (most models): the range itself */
    int64_t a = first < 0 ? 0 : first, b = n > st->layers - a ? st->layers : a + n;
    t->count[0] = b > a ? b - a : 0;
    t->first[0] = b > a ? a : -1;
    t->last[0] = b > a ? b - 1 : -1;
}

/* The recurrent mixer of a family's state-space / linear-attention layers. */
enum {
    VX_SSM_NONE = 0,
    VX_SSM_MAMBA1 = 1, /* MambaMixer: in_proj, conv1d, x_proj (dt, B, C), dt_proj, A_log (d_inner x N), D */
    VX_SSM_MAMBA2 = 2, /* Mamba2Mixer: in_proj (z, xBC, dt), conv1d over xBC, per-head dt_bias/A_log/D, gated norm */
    VX_SSM_GDN = 3,    /* gated DeltaNet (Qwen3-Next): in_proj_qkvz + in_proj_ba, conv1d over qkv, gated norm */
    VX_SSM_SHORTCONV = 4, /* LFM2's gated short convolution: in_proj (B, C, x), conv over B*x, C*conv, out_proj */
};

/* ---- how the family's Hugging Face class runs (forward facts) ---------- */

/* Softmax of eager attention. */
enum {
    VX_SM_UPCAST = 0,      /* softmax(scores, dtype=float32).to(dtype) */
    VX_SM_NONE = 1,        /* scores and softmax in the input dtype */
    VX_SM_UPCAST_FP16 = 2, /* the fp32 softmax only for fp16 (OPT) */
    VX_SM_FP32_SCORES = 3, /* query and key cast to fp32 before the product (GPT-J, CodeGen) */
};
/* The causal mask a forward builds. */
enum {
    VX_MASK_4D = 0,    /* a (batch, 1, q, keys) float mask in the compute dtype (_update_causal_mask) */
    VX_MASK_NONE = 1,  /* slices a registered buffer: nothing per forward (GPT-2) */
    VX_MASK_OTHER = 2, /* another form (bool, padding-only, the model's own): the training
                          programs do not count it; inference takes it as the 4-D mask */
};
/* Score masking op of eager attention. */
enum { VX_MOP_ADD = 0, VX_MOP_NONE = 1, VX_MOP_WHERE = 2, VX_MOP_ADD_MAX = 3, VX_MOP_FILL = 4 };

/* The eager attention module, op by op where memory differs. */
typedef struct vx_attn_impl {
    uint8_t qk_copy;  /* matmul copies the non-contiguous q and k head views */
    uint8_t v_copy;   /* ... and v at the PV matmul */
    uint8_t contig;   /* explicit .contiguous() copies of q, k, v (OPT _shape, BLOOM, Falcon) */
    uint8_t prescale; /* q * scaling before QK^T (OPT) */
    uint8_t scale_op; /* scores scaled by a separate op (a new tensor) */
    uint8_t mask_op;  /* VX_MOP_* */
    uint8_t softmax;  /* VX_SM_* */
    uint8_t post_drop; /* dropout after the output projection */
    uint8_t mask;     /* VX_MASK_* */
    uint8_t sink;     /* a per-head sink logit concatenated to the scores, the max subtracted, then the
                         softmax in the scores' dtype and the sink column sliced off (gpt-oss) */
} vx_attn_impl;

/* Norm placement in a layer. */
enum {
    VX_PLACE_PRE = 0,      /* x + f(norm(x)) for attention and MLP */
    VX_PLACE_POST = 1,     /* norm(x + f(x)) (BERT, post-LN OPT) */
    VX_PLACE_PARALLEL = 2, /* x + attn(norm(x)) + mlp(norm(x)), one norm */
    VX_PLACE_PARALLEL2 = 3, /* x + attn(norm1(x)) + mlp(norm2(x)) (GPT-NeoX) */
    VX_PLACE_SANDWICH = 4, /* x + norm(f(norm(x))) (Gemma 2/3) */
    VX_PLACE_POST_SUB = 5, /* x + norm(f(x)) (OLMo 2) */
};
/* Norm computation (the parameters' layout is vx_family.norm). */
enum { VX_NI_AUTO = 0, VX_NI_RMS_T5 = 1, VX_NI_RMS_GEMMA = 2 }; /* AUTO: LayerNorm or Llama RMSNorm by layout */

/* ---- resolution rules ---------------------------------------------------- */
enum { VX_FK_DECODER = 0, VX_FK_ENCODER = 1, VX_FK_ENC_DEC = 2 };
enum { VX_HD_CONFIG = 0, VX_HD_HIDDEN = 1 };         /* head_dim from the key, or hidden / heads only */
enum { VX_KV_CONFIG = 0, VX_KV_MHA = 1, VX_KV_MQA_FLAG = 2 }; /* MQA_FLAG: multi_query (default true) */
enum { VX_FFN_REQUIRED = 0, VX_FFN_4H = 1, VX_FFN_FIXED_4H = 2, VX_FFN_OPTIONAL = 3 };
enum { VX_MOE_NONE = 0, VX_MOE_ROUTED = 1 };
/* shared experts: none; one of its own width behind a sigmoid gate (Qwen2-MoE); n_shared_experts
 * merged into one MLP (DeepSeek); one of the routed experts' width, no gate (Llama 4) */
enum { VX_SHX_NONE = 0, VX_SHX_GATED_ONE = 1, VX_SHX_MERGED = 2, VX_SHX_ONE = 3, VX_SHX_OWN = 4, VX_SHX_DENSE = 5 };
/* DENSE: the layer's dense MLP of intermediate_size runs beside the experts, no gate (Gemma 4) */
/* OWN: n_shared_experts x shared_expert_intermediate_size as one ungated MLP (Nemotron-H) */
/* The router's e_score_correction_bias (DeepSeek-V3-style noaux_tc routing): none, a persistent
 * buffer (transformers' DeepseekV3TopkRouter: in the checkpoint and on the GPU, not a parameter),
 * or a parameter (DeepSeek's and vLLM's code). */
enum { VX_EB_NONE = 0, VX_EB_BUFFER = 1, VX_EB_PARAM = 2 };
enum { VX_WIN_NONE = 0, VX_WIN_ALL = 1, VX_WIN_FLAGGED = 2, VX_WIN_PATTERN = 3 };
enum { VX_QKN_NONE = 0, VX_QKN_HEAD = 1, VX_QKN_FULL = 2 }; /* q/k norms: none, over head_dim, over heads x head_dim */
enum { VX_QKV_SPLIT = 0, VX_QKV_FUSED = 1 };
enum { VX_MLPL_GATED = 0, VX_MLPL_GATE_UP = 1, VX_MLPL_PLAIN = 2 };
enum { VX_CLS_SCORE = 0, VX_CLS_POOLED = 1, VX_CLS_DENSE_OUT = 2,
       VX_CLS_DENSE_OUT_POOLER = 3, /* seq_cls: dense + out_proj; the bare model keeps a pooler (RoBERTa) */
       VX_CLS_POOLED_BARE = 4 };    /* seq_cls: pooler + classifier; the bare model has none (DeBERTa-v2) */
enum { VX_MBUF_NONE = 0, VX_MBUF_LAYER_BIAS = 1, VX_MBUF_LAYER = 2, VX_MBUF_SHARED = 3 };
enum { VX_PIN_NONE = 0, VX_PIN_QKV = 1, VX_PIN_QKV_V = 2 };
/* GGUF reader quirks (vx_family.gguf_flags). */
enum {
    VX_GGF_MULTI_QUERY = 1,   /* head_count_kv == 1 sets multi_query */
    VX_GGF_NEW_ARCH = 2,      /* head_count_kv > 1 sets new_decoder_architecture (Falcon) */
    VX_GGF_ROTARY_DIM = 4,    /* rope.dimension_count is rotary_dim */
    VX_GGF_FALCON_MIX = 8,    /* llama.cpp's quantization rules for LLM_ARCH_FALCON */
};

/* A family-specific config.json key (hf_config.c applies them). */
enum {
    VX_CK_BOOL_PAIR = 0, /* a bool setting opt[0] and opt[1] unless the file gives them */
    VX_CK_INT_FORCE = 1, /* an integer that replaces opt[0] (ChatGLM's padded_vocab_size) */
    VX_CK_INT_SOFT = 2,  /* an integer for opt[0] unless the file gives opt[0] */
    VX_CK_F64_SOFT = 3,  /* a number for opt[0] unless the file gives opt[0] */
};
typedef struct vx_cfg_key {
    const char *key;
    uint8_t how;         /* VX_CK_* */
    vramest_option opt[2];
} vx_cfg_key;
#define VX_FAMILY_KEYS 4

typedef struct vx_family vx_family;

/* What a family's `adjust` hook may change: the class defaults and rules
 * that depend on config values (ChatGLM v1 / v2, Falcon's layouts, T5's
 * gated FFN, OPT's post-LN). Shape resolution starts from the row's values
 * and writes the effective ones into vx_shape, which is where consumers
 * read them (never from the row). */
typedef struct vx_rules {
    uint8_t norm, tied, attn_bias, mlp_bias, act, gated;
    uint8_t untied;           /* the head is never tied, whatever the config says */
    uint8_t hd_rule, kv_rule, ffn_rule;
    uint8_t placement;        /* VX_PLACE_* */
    uint8_t norms;            /* norms per decoder layer */
    uint8_t lm_head_in_base;  /* the bare model class holds the LM head */
    const char *n_lm_head;    /* the LM head's leaf name */
    uint8_t moe;              /* VX_MOE_*: the row's, or what the config says (MiniCPM's num_experts) */
    uint8_t shared;           /* VX_SHX_*: the row's, or what the config says (the generic decoder) */
} vx_rules;

typedef struct vx_fam_ctx {
    const struct vx_arch *a;
    const uint64_t *set_bits; /* the model's "is set" bitmap */
} vx_fam_ctx;
/* Whether option `k` was given (for hooks). */
bool vx_fam_is_set(const vx_fam_ctx *c, vramest_option k) VX_HIDDEN;

struct vx_family {
    int16_t id;               /* value of model_type (append-only: families/list.h) */
    const char *name;         /* canonical model_type */
    uint8_t kind;             /* VX_FK_* */

    /* Class defaults (what from_pretrained instantiates when the key is absent). */
    uint8_t norm;             /* VX_NORM_*: the parameters of a norm */
    uint8_t tied, attn_bias, mlp_bias, act, gated, learned_pos, rotary;
    uint8_t untied;           /* never tied, whatever tie_word_embeddings says */
    uint8_t norms;            /* norms per decoder layer (0: as many as n_norm names, else 2) */
    double hidden_dropout, attn_dropout;
    int64_t head_dim;         /* class default head_dim (0: hidden / heads) */

    /* Rules from config values to the architecture. */
    uint8_t hd_rule, kv_rule, ffn_rule;
    uint8_t moe;              /* VX_MOE_* */
    uint8_t shared;           /* VX_SHX_* */
    uint8_t dense_first;      /* first_k_dense_replace leading layers have a dense MLP */
    uint8_t moe_ffn_from_ffn; /* moe_intermediate_size defaults to intermediate_size (Mixtral) */
    uint8_t mla;              /* multi-head latent attention */
    uint8_t window;           /* VX_WIN_* */
    uint8_t window_every;     /* PATTERN: layer i slides unless (i + 1) % every == 0 */
    int64_t window_default;   /* PATTERN: window when the key is absent */
    uint8_t qk_norm;          /* VX_QKN_* */
    uint8_t qk_norm_flag;     /* the q/k norms exist only when qk_layernorm is set (Phi, Cohere) */
    uint8_t qk_norm_ln;       /* the q/k norms are LayerNorms with a bias (else one weight each) */
    uint8_t qkv;              /* VX_QKV_* */
    uint8_t o_bias_off;       /* o_proj never has a bias (Qwen2) */
    uint8_t mlp;              /* VX_MLPL_* */
    uint8_t placement;        /* VX_PLACE_* */
    uint8_t embed_proj;       /* word_embed_proj_dim may differ from hidden (OPT) */
    uint8_t lm_class_model;   /* an `architectures` *Model class still loads the LM (ChatGLM) */

    /* Tensor names (Hugging Face module leaves; NULL: the Llama name). */
    const char *n_embed, *n_q, *n_k, *n_v, *n_o, *n_qkv, *n_gate, *n_up, *n_down, *n_gate_up;
    const char *n_q_norm, *n_k_norm, *n_final_norm, *n_lm_head;
    const char *n_norm[4];    /* per-layer norms in order (NULL-ended; all NULL: input + post-attention) */
    const char *n_expert[3];  /* routed experts' gate, up, down (NULL: gate_proj, up_proj, down_proj) */
    uint8_t lm_head_bias;     /* the LM head has a bias (kept when the weight is tied) */
    uint8_t cls;              /* VX_CLS_*: the sequence-classification head */

    /* Forward facts (training programs and the inference forward). */
    const vx_attn_impl *attn; /* NULL: the Llama module */
    uint8_t norm_impl;        /* VX_NI_* */
    uint8_t eager_only;       /* no SDPA / flash path in the class */
    uint8_t sdpa_padding_mask; /* SDPA gets a padding mask: the mem-efficient kernel (BERT) */
    uint8_t embed_dropout;    /* dropout on the embeddings' output */
    uint8_t embed_scale;      /* embeddings multiplied by sqrt(hidden) (Gemma) */
    uint8_t pos_per_token;    /* learned positions gathered per token, not per position (OPT) */
    uint8_t mlp_dropout;      /* dropout inside the MLP, after the activation (T5) */
    uint8_t head_norm_in_stack; /* the final norm runs in the stack, not the head (T5) */
    uint8_t head_scale_tied;  /* a tied head scales its input by d_model^-0.5 (T5) */
    uint8_t logits_float;     /* `logits.float()` in the forward (transformers <= 4.44) */
    uint8_t logits_scaled;    /* the head multiplies the logits by a constant (a logits-sized copy) */
    uint8_t megatron_gpt;     /* Megatron-core's GPT model implements it (fused norms, flash) */

    /* Inference facts (transformers' generate()). */
    uint8_t legacy_cache;     /* generate() used legacy tuple caches (transformers <= 4.44) */
    uint8_t mask_buffer;      /* VX_MBUF_*: causal-mask buffers registered on the model */
    uint8_t prefill_pin;      /* VX_PIN_*: the cache after prefill views the fused q|k|v output */
    uint8_t swa_cache;        /* generate() caps sliding layers (HybridCache) and llama.cpp has an
                                 SWA cache for the architecture */

    const char *peft_targets; /* PEFT's default target_modules ("" : none; NULL: q_proj,v_proj) */

    /* File formats. */
    const char *gguf;         /* llama.cpp general.architecture names (comma list), or NULL */
    int16_t gguf_moe_id;      /* the family a GGUF of this architecture is when it has experts */
    int16_t gguf_sigmoid_id;  /* ... when its expert gating is sigmoid (expert_gating_func 2) */
    uint8_t gguf_flags;       /* VX_GGF_* */
    vx_cfg_key keys[VX_FAMILY_KEYS]; /* the family's own config.json keys */

    /* Hooks. */
    /* Adjust the rules to the config (variants of one family). */
    void (*adjust)(const vx_fam_ctx *c, vx_rules *r);
    /* Map config.json keys that need more than vx_cfg_key (hf_config.h). */
    int (*config)(struct vx_cfgmap *m);
    /* Build the body's tensors (NULL: the generic decoder, inventory.c). */
    void (*build)(struct vx_ib *b, const struct vx_arch *a, const struct vx_shape *s);

    /* Appended (issue #16). */
    uint8_t abs_pos_enc_dec;  /* an encoder-decoder with absolute positions, no relative buckets (Whisper) */
    /* Appended (issue #16, plain decoders and MoE variants). */
    uint8_t nope_full;        /* the full-attention layers of a sliding pattern have no RoPE (Cohere2, EXAONE 4) */
    uint8_t router_bias;      /* the router's e_score_correction_bias is a Parameter (remote code of
                                 DeepSeek-V3 style models: Kimi-K2, MiniMax-M2), one per MoE layer */
    uint8_t experts_fused;    /* routed experts' gate and up are one tensor (GraniteMoE input_linear) */
    const char *n_router;     /* the router's leaf name (NULL: "gate") */
    uint8_t generic;          /* the stand-in for a model_type no row describes: Llama's layout with the
                                 config's sizes, an approximate count (item 5 of issue #16) */
    /* Appended (issue #16): special attention, interleaved layers, routers. */
    uint8_t expert_bias;      /* routed experts and the router carry biases (gpt-oss) */
    uint8_t sinks;            /* a learned sink logit per head in every attention layer (gpt-oss) */
    uint8_t e_bias;           /* VX_EB_*: the router's e_score_correction_bias (fp32, experts) */
    uint8_t dsa;              /* DeepSeek sparse attention: MLA plus a lightning indexer per layer */
    int64_t dsa_heads, dsa_dim; /* the config class's index_n_heads / index_head_dim */
    uint8_t swa_dynamic;      /* generate()'s DynamicCache(config) keeps only the window of sliding and
                                 chunked layers, growing (transformers >= 4.56), and llama.cpp has an SWA
                                 cache for the architecture */
    uint8_t moe_interleave;   /* experts on layers (i + 1) % interleave_moe_layer_step == 0, a dense MLP of
                                 intermediate_size_mlp on the others (Llama 4) */
    uint8_t nope_chunked;     /* layers (i + 1) % no_rope_layer_interval == 0 have no RoPE and attend
                                 globally; the others attend within attention_chunk_size chunks (Llama 4) */
    int64_t chunk_default;    /* attention_chunk_size when the key is absent */
    int64_t nope_default;     /* no_rope_layer_interval when the key is absent */
    uint8_t mtp_on_disk;      /* num_nextn_predict_layers MTP layers are stored in the checkpoint but are not
                                 modules of the class (transformers ignores them on load): each a decoder
                                 layer of the last layer's kind, enorm, hnorm, eh_proj (2h -> h) and
                                 shared_head.norm */
    uint8_t mtp_copies;       /* ... plus its own copies of the embedding and the head (DeepSeek-V3/V3.2) */
    /* Appended (issue #16): state-space and linear-attention layers
     * (model/hybrid.c, docs/adding-a-family.md recipe (b)). */
    uint8_t ssm;              /* VX_SSM_*: the recurrent mixer of its 'M' / 'L' / 'H' layers */
    uint8_t ssm_only;         /* no attention layer at all (Mamba): no head count required */
    uint8_t q_gate;           /* q_proj doubled: the attention output is gated (attn_output_gate) */
    uint8_t layer_default;    /* layer_pattern letter of every layer when the config gives none */
    uint8_t mlp_default;      /* mlp_pattern letter of every layer when the config gives none ('E' on
                                 MoE families, 'D' otherwise, 'N' for Mamba's mixer-only blocks) */
    uint8_t ssm_inner_heads;  /* Mamba-2 width = heads x head_dim (Nemotron-H), else mamba_d_ssm or
                                 expand x hidden (Mamba2Mixer, Falcon-H1) */
    uint8_t ssm_norm_flag;    /* the gated RMSNorm exists only with mamba_rms_norm true (Falcon-H1) */
    uint8_t moe_optional;     /* experts only when the config gives num_local_experts (Nemotron-H) */
    uint8_t ssm_dt_norms;     /* Mamba-1 mixer with RMSNorms over dt, B and C (Jamba) */
    /* Appended (issue #16, Hunyuan): map keys before the generic table reads
     * them, for keys whose value has a form of its own (per-layer lists
     * where the table expects one integer): claim the options they give. */
    int (*config_pre)(struct vx_cfgmap *m);
};

/* The family of a model_type value, NULL if none. */
const vx_family *vx_family_of(int64_t id) VX_HIDDEN;
/* The family a GGUF general.architecture names, NULL if none. */
const vx_family *vx_family_of_gguf(const char *arch) VX_HIDDEN;
/* Every family, in id order: *n receives the count. */
const vx_family *const *vx_families(size_t *n) VX_HIDDEN;

/* The attention module most families share (families/registry.c). */
extern const vx_attn_impl vx_attn_llama VX_HIDDEN;
/* A family's attention module (its row's, else Llama's). */
static inline const vx_attn_impl *vx_family_attn(const vx_family *f)
{
    return f->attn ? f->attn : &vx_attn_llama;
}

#endif
