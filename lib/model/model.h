/* The model handle: architecture options (Hugging Face config.json names),
 * the resolved shape every estimator reads, and the tensor inventory — the
 * spine of the library (design.md §2). The shape and inventory are rebuilt
 * eagerly on every mutation, so const uses (estimates) never compute lazily. */
#ifndef VX_MODEL_H
#define VX_MODEL_H

#include "common/memo.h"
#include "common/options.h"
#include "model/family.h"
#include "model/tower.h"

/* Families: the values of the model_type option (lib/model/families/list.h;
 * each family's row is in that folder). An id names a family only where
 * its row is defined, never in a consumer. */
enum {
    VX_FAM_UNSET = 0,
#define X(id, cname, row, name) VX_FAM_##cname = id,
#include "model/families/list.h"
#undef X
    VX_FAM_END_ /* one past the last id */
};

/* Head classes (values of the workload option `head`): which HF class the
 * body is wrapped in. The model decides what each means for a family. */
enum { VX_HEAD_AUTO = 0, VX_HEAD_CAUSAL_LM = 1, VX_HEAD_SEQ2SEQ_LM = 2, VX_HEAD_MASKED_LM = 3,
       VX_HEAD_SEQ_CLS = 4, VX_HEAD_NONE = 5 };

enum { VX_ACT_AUTO = 0, VX_ACT_GELU = 1, VX_ACT_GELU_NEW = 2, VX_ACT_GELU_TANH = 3, VX_ACT_SILU = 4,
       VX_ACT_RELU = 5, VX_ACT_GELU_FAST = 6 };
/* Parameters of a norm: LayerNorm (weight and bias), RMSNorm (weight),
 * LayerNorm without a bias (weight). */
enum { VX_NORM_LAYER = 0, VX_NORM_RMS = 1, VX_NORM_LN_WEIGHT = 2,
       VX_NORM_NONE = 3 /* a LayerNorm without parameters (OLMo: F.layer_norm(x, shape, None, None)) */ };

/* Values of the architecture options (one field per model option). */
typedef struct vx_arch {
    int64_t model_type, hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads;
    int64_t intermediate_size, vocab_size, max_position_embeddings, head_dim, tie_word_embeddings;
    int64_t num_decoder_layers, num_local_experts, num_experts_per_tok, moe_intermediate_size;
    int64_t n_shared_experts, first_k_dense_replace, kv_lora_rank, q_lora_rank, qk_rope_head_dim;
    int64_t qk_nope_head_dim, v_head_dim, sliding_window, type_vocab_size, attention_bias, mlp_bias;
    int64_t hidden_act, word_embed_proj_dim;
    double hidden_dropout, attention_dropout;
    int64_t torch_dtype, use_sliding_window, shared_expert_intermediate_size;
    int64_t relative_attention_num_buckets;
    double final_logit_softcapping;
    char architectures[VX_STR_MAX];
    int64_t num_labels, is_gated_act, multi_query, new_decoder_architecture, parallel_attn, rotary_dim;
    int64_t do_layer_norm_before, qk_layernorm, rmsnorm, num_ln_in_parallel_attn;
    /* DeBERTa-v2 (issue #16, options 1400-1409) */
    int64_t relative_attention, max_relative_positions, position_buckets, share_att_key, pos_att_types;
    int64_t position_biased_input, rel_embeddings_norm, conv_kernel_size, conv_groups, embedding_size;
    int64_t num_mel_bins, max_source_positions; /* Whisper (1410-1411) */
    /* Appended (issue #16, plain decoders and MoE variants): */
    int64_t sliding_window_pattern, no_rope_layer_interval, num_nextn_predict_layers, moe_layer_freq;
    int64_t attention_out_bias;
    char layer_blocks[VX_STR_MAX];
    int64_t index_n_heads, index_head_dim, index_topk_freq, index_skip_topk_offset;
    int64_t intermediate_size_mlp, interleave_moe_layer_step, attention_chunk_size;
    /* State-space and linear-attention layers (model/hybrid.c). */
    char layer_pattern[VX_STR_MAX], mlp_pattern[VX_STR_MAX];
    int64_t ssm_state_size, conv_kernel, mamba_expand, time_step_rank, mamba_num_heads, mamba_head_dim;
    int64_t mamba_n_groups, mamba_d_ssm, mamba_conv_bias, mamba_proj_bias, mamba_rms_norm, ssm_state_dtype;
    int64_t linear_num_key_heads, linear_num_value_heads, linear_key_head_dim, linear_value_head_dim;
    int64_t linear_conv_kernel_dim, attn_output_gate, moe_latent_size, chunk_size;
    /* Gemma 4: the full-attention layers' own geometry. */
    int64_t global_head_dim, num_global_key_value_heads, attention_k_eq_v;
    /* Cross-layer attention (Hunyuan's use_cla). */
    int64_t cla_share_factor;
    /* Gemma 4 E2B/E4B: per-layer inputs and KV-shared layers. */
    int64_t hidden_size_per_layer_input, vocab_size_per_layer_input, num_kv_shared_layers, use_double_wide_mlp;
} vx_arch;

/* The resolved architecture: every value effective (defaults applied), and
 * the family traits the estimators need. Filled by vx_model_rebuild(). */
typedef struct vx_shape {
    int family;
    const vx_family *fam; /* the family's row (static): what no config value changes */
    int64_t layers;     /* decoder layers; for encoder-only models, encoder layers */
    int64_t enc_layers; /* encoder layers of an encoder-decoder (0 otherwise) */
    int64_t hidden, heads, kv_heads, head_dim;
    int64_t ffn;        /* dense MLP intermediate size */
    int64_t vocab, max_pos;
    /* MoE */
    int64_t experts, experts_per_tok, moe_ffn, shared_experts, shared_ffn, dense_layers;
    /* MLA (DeepSeek) */
    int64_t kv_lora_rank, q_lora_rank, rope_dim, nope_dim, v_head_dim;
    /* attention window: 0 none; pattern 1 = every layer; N > 1: layer i (from 0)
     * uses the window when (i + 1) % N != 0 (Gemma 2: N = 2, Gemma 3: N = 6) */
    int64_t sliding_window;
    int sliding_pattern;
    /* traits */
    int norm_kind, norms_per_layer, act, gated, tied, enc_dec, encoder_only;
    int qkv_fused;       /* one fused q|k|v matrix (GPT-2 c_attn, NeoX, BLOOM, Falcon, Phi-3) */
    int learned_pos;     /* learned absolute position embeddings */
    double hidden_dropout, attn_dropout;
    double logit_softcap;
    int default_head;    /* VX_HEAD_* from `architectures` / family */
    int64_t num_labels;
    int64_t torch_dtype; /* checkpoint dtype (VRAMEST_DTYPE_*; AUTO if unknown) */
    uint64_t params_total, params_active; /* of the default head class */
    /* Appended: */
    int attn_bias, mlp_bias; /* biases on attention / MLP linears (as built) */
    int qk_norm;             /* norms on q and k (Qwen3, Gemma 3, OLMo 2, Phi / Cohere with qk_layernorm) */
    int64_t embed_dim;       /* token-embedding width (OPT word_embed_proj_dim; else hidden) */
    int64_t rotary_dim;      /* rotary dims per head (0 = no rotary) */
    int64_t rel_buckets;     /* T5 relative-attention buckets (0 = none) */
    uint64_t body_total, body_active; /* parameters without any head tensor (VX_ROLE_IS_HEAD) */
    int placement;           /* VX_PLACE_*: where the norms sit in a layer (the row's, adjusted) */
    const char *lm_head_name; /* the LM head's module leaf */
    int lm_head_in_base;     /* the bare model class holds the LM head (ChatGLM2+) */
    int token_head;          /* `architectures` is a token-level head (*ForTokenClassification,
                                *ForQuestionAnswering): seq_cls is one biased linear per token */
    /* Appended (issue #16, plain decoders and MoE variants): */
    int64_t nope_every;      /* layer i has no RoPE when (i + 1) % nope_every == 0 (0: none) */
    int64_t moe_freq;        /* layer i >= dense_layers has experts when i % moe_freq == 0 */
    int64_t mtp_layers;      /* multi-token-prediction layers the class builds as parameters (MiMo) */
    int attn_out_bias;       /* bias on the attention output projection (as built) */
    int shared_kind;         /* VX_SHX_* of the shared experts (the row's, adjusted) */
    int heads_from_files;    /* no num_attention_heads: a stand-in from the file tensors' q width (128-wide
                                heads), enough for their weights; estimates beyond load ask for it */
    /* Appended (issue #16): rules that vary per layer within a period. */
    int64_t moe_step;        /* experts on layers (i + 1) % moe_step == 0, a dense MLP elsewhere (<= 1: all) */
    int64_t chunk;           /* with nope_every: the RoPE layers attend within chunks of this many tokens */
    int64_t index_heads, index_dim; /* DSA lightning indexer (0: none) */
    int64_t index_freq, index_offset; /* its layers: i < offset, or (i - offset + 1) % freq == 0 */
    /* The recurrent mixer of state-space / linear-attention layers
     * (model/hybrid.c; 0 without one). Mamba: inner = d_inner, state = N,
     * heads = head_dim = 0 (Mamba-2: heads x head_dim = inner), groups of
     * B and C. Gated DeltaNet: heads = value heads, head_dim = value head
     * width, groups = key heads, state = key head width. */
    int ssm_kind;            /* VX_SSM_* (model/family.h) */
    int64_t ssm_inner, ssm_state, ssm_heads, ssm_head_dim, ssm_groups, ssm_conv, ssm_dt_rank, ssm_chunk;
    int64_t ssm_conv_dim;    /* channels of the causal convolution (and of its cached state) */
    int ssm_conv_bias, ssm_proj_bias, ssm_norm;
    int ssm_state_dtype;     /* dtype of the recurrent state (AUTO: the cache's) */
    int attn_gate;           /* q_proj also yields a sigmoid gate on the attention output (x2 rows) */
    int64_t moe_latent;      /* experts run in this width between two projections (0: hidden) */
    /* Appended (issue #16, Gemma 4): the full-attention layers of a sliding
     * pattern have their own head size and key/value heads, and with k_eq_v
     * no v_proj (values are k_proj's output under another norm). */
    int64_t global_head_dim, global_kv_heads;
    int k_eq_v;
    /* Appended (issue #16, Hunyuan): cross-layer attention, only layers
     * i % cla == 0 project keys and values (0: every layer). */
    int64_t cla;
    /* Appended (issue #16, Gemma 4 E2B/E4B): layers from kv_shared_from on
     * (0: none) reuse the keys and values of the last earlier layer of
     * their kind, with an MLP of 2 x ffn when double_wide; per-layer input
     * embeddings of ple_dim per layer from a table of ple_vocab rows. */
    int64_t kv_shared_from, ple_dim, ple_vocab;
    int double_wide;
} vx_shape;

/* Tensor roles (design.md §2). Append-only. */
enum {
    VX_ROLE_OTHER = 0, VX_ROLE_EMBED, VX_ROLE_POS_EMBED, VX_ROLE_TYPE_EMBED, VX_ROLE_EMBED_NORM,
    VX_ROLE_EMBED_PROJ, VX_ROLE_ATTN_Q, VX_ROLE_ATTN_K, VX_ROLE_ATTN_V, VX_ROLE_ATTN_QKV,
    VX_ROLE_ATTN_O, VX_ROLE_ATTN_Q_A, VX_ROLE_ATTN_Q_B, VX_ROLE_ATTN_KV_A, VX_ROLE_ATTN_KV_B,
    VX_ROLE_CROSS_Q, VX_ROLE_CROSS_K, VX_ROLE_CROSS_V, VX_ROLE_CROSS_O, VX_ROLE_REL_BIAS,
    VX_ROLE_MLP_GATE, VX_ROLE_MLP_UP, VX_ROLE_MLP_GATE_UP, VX_ROLE_MLP_DOWN, VX_ROLE_ROUTER,
    VX_ROLE_EXPERT_GATE, VX_ROLE_EXPERT_UP, VX_ROLE_EXPERT_DOWN, VX_ROLE_SHARED_GATE,
    VX_ROLE_SHARED_UP, VX_ROLE_SHARED_DOWN, VX_ROLE_NORM, VX_ROLE_FINAL_NORM, VX_ROLE_LM_HEAD,
    VX_ROLE_POOLER, VX_ROLE_CLASSIFIER, VX_ROLE_MLM_TRANSFORM,
    /* The recurrent mixer (Mamba, gated DeltaNet): its input projection(s),
     * causal convolution, x_proj (Mamba-1: dt, B, C), dt_proj, output
     * projection, and the per-head vectors (A_log, D, dt_bias). */
    VX_ROLE_SSM_IN, VX_ROLE_SSM_CONV, VX_ROLE_SSM_X, VX_ROLE_SSM_DT, VX_ROLE_SSM_OUT, VX_ROLE_SSM_PARAM,
    VX_ROLE_SSM_IN2, /* a second input projection (gated DeltaNet's in_proj_ba / in_proj_z) */
    VX_ROLE_MOE_LATENT, /* projections into and out of the experts' latent width */
    VX_ROLE_COUNT_
};
/* Tensor kinds: what a precision policy may do with them. */
enum { VX_TK_MATRIX = 0, VX_TK_BIAS = 1, VX_TK_NORM = 2, VX_TK_EMBED = 3, VX_TK_OTHER = 4 };
/* Where a tensor lives: per decoder layer, per encoder layer, or once. */
enum { VX_PART_GLOBAL = 0, VX_PART_DECODER = 1, VX_PART_ENCODER = 2 };

typedef struct vx_tensor {
    char name[48];       /* HF module leaf ("q_proj", "c_attn", "embed_tokens", "lm_head", "input_layernorm") */
    uint16_t role;       /* VX_ROLE_* */
    uint8_t kind;        /* VX_TK_* */
    uint8_t part;        /* VX_PART_* */
    uint8_t expert;      /* 1: a routed expert (expert parallel shards it; MoE active fraction) */
    uint8_t trainable_default; /* 1 for nn.Parameters of the class; 0 for buffers kept in the checkpoint */
    int16_t dtype;       /* stored dtype (VRAMEST_DTYPE_* or 100+ggml); AUTO = the model's torch_dtype */
    int64_t rows, cols;  /* matrices: out_features x in_features; vectors: n x 1; embeddings: V x h */
    int64_t n_layers;    /* layers it appears in (0 for global tensors) */
    int64_t n_per_layer; /* copies per layer (e.g. experts), or copies for global tensors */
    uint64_t file_bytes; /* exact stored bytes of all copies when read from a file, else 0 */
} vx_tensor;

/* Number of elements of all copies of a tensor group (saturating). */
uint64_t vx_tensor_elems(const vx_tensor *t) VX_HIDDEN;

#define VX_MODEL_SOURCES 4
#define VX_NOTE_LEN 200 /* a result warning's length (VX_WARN_LEN) */
/* ---- how a checkpoint stores its weights (ckpt_quant.c) ----
 * config.json's quantization_config, applied to the architecture inventory:
 * the quantized groups get their stored dtype and their scale tensors. */
/* Storage schemes of pre-quantized checkpoints. */
enum {
    VX_CQ_NONE = 0,
    VX_CQ_MXFP4 = 1, /* OCP MXFP4 (gpt-oss): 4-bit codes, an E8M0 scale per 32 (17 bytes per 32) */
    VX_CQ_FP8 = 2,   /* fp8 e4m3 weights with fp32 or model-dtype scales (blocks, rows or one) */
    VX_CQ_INT = 3,   /* integer codes (compressed-tensors pack- / int-quantized): packed 4-bit or int8 */
    VX_CQ_NVFP4 = 4, /* NVFP4: packed 4-bit codes, an fp8 scale per 16, fp32 global scales */
};

#define VX_CQ_NAME 32

typedef struct vx_ckpt_quant {
    uint8_t method;        /* VX_CQ_* */
    uint8_t bits;          /* VX_CQ_INT: 4 or 8 */
    uint8_t experts_only;  /* only the routed experts are quantized (MXFP4's replacement of GptOssExperts) */
    uint8_t asym;          /* zero points are stored (not counted: noted) */
    int16_t scale_dtype;   /* dtype of the per-group scales (AUTO: the checkpoint's float dtype) */
    int64_t block_rows;    /* scale block along out_features (FP8 blocks); 0: one scale per row; -1: one scale */
    int64_t block_cols;    /* ... along in_features (the group size of INT / NVFP4) */
    uint64_t keep;         /* bit per VX_ROLE_*: modules the file keeps unquantized */
    uint64_t partly;       /* ... named for some layers only (kept everywhere: noted) */
    char name[VX_CQ_NAME]; /* quant_method as config.json spells it ("" : none) */
} vx_ckpt_quant;


struct vramest_model {
    uint32_t magic;
    uint64_t set_bits[VX_SET_WORDS];
    vx_arch a;
    char name[64]; /* preset or source name, for the plan */
    /* Derived, rebuilt on every mutation by vx_model_rebuild(). */
    int status;            /* VRAMEST_OK when shape/inventory are valid */
    char status_msg[256];  /* why not, for vramest_estimate / validate */
    vx_shape shape;
    vx_layers layers;      /* the kind of every layer (model/family.h) */
    vx_tensor *inv;        /* tensor inventory (architecture, or from files when present) */
    size_t n_inv, cap_inv;
    /* Tensors read from files (safetensors/GGUF) replace the architecture
     * inventory when present; merged by vx_model_rebuild(). */
    vx_tensor *file_inv;
    size_t n_file_inv, cap_file_inv;
    int has_file_inv;
    uint64_t file_total_bytes; /* sum of tensor data bytes in the files */
    int file_inv_whole;        /* 1: the file tensors are a whole checkpoint (not a shard) */
    uint64_t checkpoint_bytes; /* at the stored dtypes: the model alone decides it, so
                                  rebuild computes it once instead of every estimate */
    /* What a floor above worked out from this model and may reuse: filled
     * by whoever reads the model (thread-safe), emptied by every rebuild;
     * opaque here (common/memo.h). */
    vx_memo memo;
    /* vx_params_for_head() of the default head and num_labels, at rebuild
     * (every estimate asks for it). */
    uint64_t default_head_total, default_head_active;
    /* Where the model's description falls short of a plain answer, shown as
     * the first warnings of every estimate (estimate/model_notes.c). Each
     * has one writer: what the file tensors lack against the architecture
     * (rebuild, model/cover.c); an index whose total_size disagrees with its
     * shards (io/parse.c); the quant_method config.json's
     * quantization_config names (io/hf_config.c, "" when none). */
    char cover_note[VX_NOTE_LEN];
    char index_note[VX_NOTE_LEN];
    char declared_quant[32];
    /* A multimodal config.json's vision tower and projector (model/tower.h;
     * kind NONE for a text model): their tensors follow the language
     * model's in the inventory. */
    vx_tower tower;
    /* How the family was chosen when no row names it: config.json's
     * model_type estimated as the generic decoder (io/hf_config.c), or a
     * family inferred from a bare checkpoint's tensor names (io/parse.c);
     * "" when the config named a known family. */
    char family_note[VX_NOTE_LEN];
    /* What the config.json reader left out of the model (hf_config.c; ""
     * when nothing): a wrapper's vision tower it has no vision_config for. */
    char config_note[VX_NOTE_LEN];
    /* What files hold that the class does not load (cover.c; "" when
     * nothing): a tied head stored twice, MTP layers; disk_only_bytes
     * is what they take in the files (in checkpoint_bytes only). */
    char disk_note[VX_NOTE_LEN];
    uint64_t disk_only_bytes;
    /* How the checkpoint stores the weights (config.json's
     * quantization_config; ckpt_quant.h): applied to the architecture
     * inventory at every rebuild. */
    vx_ckpt_quant ckq;
    /* What the checkpoint stores beside the class (mtp.c): the MTP layers'
     * values (weights and scales) and bytes at the stored dtypes (0: none), in checkpoint_bytes
     * when no file tensors are read. */
    uint64_t mtp_elems, mtp_bytes;
};
/* The MTP layers a checkpoint stores beside the class (mtp.c): fills
 * m->mtp_elems and m->mtp_bytes from the resolved shape. */
int vx_mtp_on_disk(struct vramest_model *m) VX_HIDDEN;

/* Give the quantized groups of an inventory their stored dtype and add
 * their scale tensors (not parameters: trainable_default 0). `fdt` is the
 * checkpoint's float dtype. */
int vx_ckpt_quant_apply(const vx_ckpt_quant *q, int fdt, vx_tensor **inv, size_t *n, size_t *cap) VX_HIDDEN;
/* The dtype the checkpoint stores its quantized groups in (AUTO: none). */
int vx_ckpt_quant_dtype(const vx_ckpt_quant *q) VX_HIDDEN;

/* Bytes of one stored group (all its copies) at the scheme's storage,
 * scales included (*scale_elems receives the scales' values); `quantized`
 * says whether the scheme quantizes it. For the MTP layers, which are not
 * in the inventory. */
uint64_t vx_ckpt_quant_group_bytes(const vx_ckpt_quant *q, int fdt, const vx_tensor *t, bool quantized,
                                   uint64_t *scale_elems) VX_HIDDEN;

/* Does the scheme quantize this group? */
bool vx_ckpt_quant_covers(const vx_ckpt_quant *q, const vx_tensor *t) VX_HIDDEN;

/* Rebuild shape + inventory from the options (and file tensors). Sets
 * m->status/status_msg; returns m->status. Called after every mutation. */
int vx_model_rebuild(struct vramest_model *m) VX_HIDDEN;
/* The file tensors against the architecture (cover.c). `m->inv` holds the
 * architecture's inventory (built from the options). Replace it with the
 * file tensors (m->file_inv) plus, for every class of tensors the files
 * hold fewer instances of than the architecture has (or hold in fewer
 * bytes than any storage of its parameters takes), the architecture's
 * groups for the rest, at the configuration's size. What was added is
 * written to m->cover_note ("" when nothing). */
int vx_cover_file_tensors(struct vramest_model *m) VX_HIDDEN;
/* Provenance of the weights: exact from the files only when they hold the
 * whole model (nothing added from the architecture). */
static inline int vx_weights_provenance(const struct vramest_model *m)
{
    if (m->has_file_inv && !m->cover_note[0]) return VRAMEST_PROV_EXACT_FILE;
    return m->shape.fam && m->shape.fam->generic ? VRAMEST_PROV_APPROXIMATE : VRAMEST_PROV_EXACT_ARCH;
}
/* Build the architecture inventory for a resolved shape and its layers. */
int vx_inventory_build(const vx_arch *a, const vx_shape *s, const vx_layers *L, vx_tensor **inv, size_t *n,
                       size_t *cap) VX_HIDDEN;
/* Resolve effective values/traits from the options, and the per-layer
 * layout into *L (shape.c, layers.c). */
int vx_shape_resolve(const struct vramest_model *m, vx_shape *s, vx_layers *L) VX_HIDDEN;
/* The per-layer layout of a resolved shape (layers.c); `a` gives the
 * per-layer blocks of a heterogeneous model (layer_blocks). */
int vx_layers_resolve(const vx_shape *s, const vx_arch *a, vx_layers *L) VX_HIDDEN;
/* One block of layer_blocks: `count` consecutive layers with `kv` key/value
 * heads (0: no attention, -1: a hidden x hidden linear) and an MLP of `ffn`
 * (0: none, -1: a linear). */
typedef struct vx_block_run {
    int64_t kv, ffn, count;
} vx_block_run;
/* Parse layer_blocks into up to `cap` runs (*n receives the count);
 * VRAMEST_E_INVALID_MODEL naming what is wrong, VRAMEST_E_LIMIT past cap. */
int vx_layer_blocks_parse(const char *text, vx_block_run *out, size_t cap, size_t *n) VX_HIDDEN;
/* Families with a recurrent mixer (row.ssm): its geometry into *s and the
 * per-layer layout from layer_pattern / mlp_pattern into *L (hybrid.c). */
int vx_hybrid_resolve(const struct vramest_model *m, vx_shape *s, vx_layers *L) VX_HIDDEN;
/* VRAMEST_E_INCOMPLETE_MODEL: "model_type 'F' needs 'KEY' (also ...), which
 * is not set" (shape.c). */
int vx_shape_missing(int fam, vramest_option k) VX_HIDDEN;
/* Append one group to a growable inventory. */
int vx_inv_push(vx_tensor **inv, size_t *n, size_t *cap, const vx_tensor *t) VX_HIDDEN;

/* Parameter count of the model under a given head class (VX_HEAD_*; AUTO =
 * the model's default head) with `num_labels` for seq_cls (0 = the model's).
 * `active` (may be NULL) receives the per-token count (MoE). */
uint64_t vx_params_for_head(const struct vramest_model *m, int head, int64_t num_labels, uint64_t *active) VX_HIDDEN;

/* Heads. The inventory m->inv holds the tensors of the model's default head
 * (s->default_head). Head tensors are exactly those whose role passes
 * VX_ROLE_IS_HEAD (lm_head incl. its bias, pooler, classifier, MLM
 * transform); everything else is the body (the bare AutoModel class, minus
 * BERT's pooler, which is head-dependent). To estimate with another head
 * (the workload option `head`), skip the head tensors of m->inv and add
 * those vx_head_tensors() gives: no allocation needed. */
#define VX_ROLE_IS_HEAD(r) \
    ((r) == VX_ROLE_LM_HEAD || (r) == VX_ROLE_POOLER || (r) == VX_ROLE_CLASSIFIER || (r) == VX_ROLE_MLM_TRANSFORM)
#define VX_HEAD_MAX_TENSORS 8
/* The head a workload asks for, made concrete for this model: AUTO -> the
 * default head; heads the family has no class for map to the nearest one
 * (masked_lm/seq2seq_lm on a decoder -> causal_lm; causal_lm on BERT ->
 * masked_lm (BertLMHeadModel has the same head); causal_lm on T5 -> seq2seq_lm). */
int vx_head_resolve(const vx_shape *s, int head) VX_HIDDEN;
/* Head tensors of `head` (VX_HEAD_*; AUTO = default) with `num_labels`
 * (<= 0: the model's) written to out[0..*n). Returns VRAMEST_OK, or
 * VRAMEST_E_BUFFER_TOO_SMALL when cap < needed (*n is then the need;
 * cap >= VX_HEAD_MAX_TENSORS always suffices). A tied lm_head has no tensor. */
int vx_head_tensors(const vx_shape *s, int head, int64_t num_labels, vx_tensor *out, size_t cap,
                    size_t *n) VX_HIDDEN;
/* Iterate the weights of the class with `head` (VX_HEAD_*; AUTO = the
 * default) and `num_labels` (<= 0: the model's): the body tensors of the
 * inventory, then the head's. No allocation: the head tensors live in the
 * iterator. */
typedef struct vx_tensor_iter {
    const vx_tensor *inv;
    size_t n, i, j, n_heads;
    int swap_head;
    vx_tensor heads[VX_HEAD_MAX_TENSORS];
} vx_tensor_iter;
void vx_class_iter_init(vx_tensor_iter *it, const struct vramest_model *m, int64_t head, int64_t num_labels) VX_HIDDEN;
const vx_tensor *vx_tensor_iter_next(vx_tensor_iter *it) VX_HIDDEN;


/* Families table for the model_type option. */
extern const vx_enum_name vx_family_enum[] VX_HIDDEN;
extern const vx_enum_name vx_act_enum[] VX_HIDDEN;

#endif
