/**
 * @file vramest.h
 * @brief libvramest: how much GPU memory a large language model needs, and where
 *        every byte goes — for training and inference, before anything is launched.
 *
 * All sizes are bytes, reported as `uint64_t`. All counts are `uint64_t` or
 * `int64_t`. Every fallible function returns `int`: ::VRAMEST_OK (0) or a negative
 * ::vramest_status whose value never changes; outputs go through trailing
 * pointer arguments. On failure a handle output (`**out`) is set to NULL and
 * other outputs are left unchanged, except a `needed` size, which is set
 * with ::VRAMEST_E_NEED_MORE_DATA and ::VRAMEST_E_BUFFER_TOO_SMALL.
 *
 * The header is "ctypes-friendly by construction": signatures use only
 * fixed-width integers, `double`, `size_t`, NUL-terminated UTF-8
 * `const char *`, byte buffers and opaque handle pointers. There are no
 * structs by value, unions, bitfields, varargs or callbacks.
 *
 * @par Thread safety
 * libvramest has no global mutable state; the only per-thread state is the
 * last error message. Distinct handles may be used concurrently from any
 * threads. A single handle may be used concurrently **only** through
 * functions taking it as `const` (getters, the inputs of vramest_estimate()
 * and the solvers, all `vramest_result_*` functions); a mutating call on a
 * handle must not overlap with any other call on that handle.
 * ::vramest_result objects are immutable and may be shared freely.
 * A model handle keeps an internal, bounded cache that `const` calls fill:
 * compiled training programs and steps (the second estimate of a structure
 * compiles them: well under a millisecond and bounded allocations, once),
 * static terms and weights statistics; it is synchronised internally,
 * emptied by every setter on the model and freed with it, and never changes
 * a result. Other estimates allocate nothing but their result.
 *
 * @par Ownership
 * Handles never point at each other and the library never keeps a caller's
 * pointer: any handle may be freed at any time, in any order.
 */
#ifndef VRAMEST_VRAMEST_H
#define VRAMEST_VRAMEST_H

#include <stddef.h>
#include <stdint.h>

#include "vramest_version.h"

/** @cond INTERNAL */
#if defined(_WIN32) || defined(__CYGWIN__)
#  if defined(VRAMEST_BUILDING)
#    define VRAMEST_API __declspec(dllexport)
#  elif defined(VRAMEST_STATIC)
#    define VRAMEST_API
#  else
#    define VRAMEST_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define VRAMEST_API __attribute__((visibility("default")))
#else
#  define VRAMEST_API
#endif
/** @endcond */

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================== */
/** @defgroup version Version
 *  @{ */

/**
 * @brief The library's version as `MAJOR*10000 + MINOR*100 + PATCH`.
 *
 * Compare with ::VRAMEST_VERSION_NUMBER to detect a header/library mismatch.
 * @return the runtime version number.
 * @since 1.0
 */
VRAMEST_API uint32_t
vramest_version_number(void);

/**
 * @brief The library's version as a string, e.g. "1.0.0".
 * @return a static string, never NULL.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_version_string(void);

/** @} */

/* ===================================================================== */
/** @defgroup errors Errors
 *  @{ */

/**
 * @brief Status codes. Values are pinned forever; new codes are appended.
 * @since 1.0
 */
typedef enum vramest_status {
    VRAMEST_OK = 0,                     /**< success */
    VRAMEST_E_INVALID_ARG = -1,         /**< a NULL handle/pointer or an argument that makes no sense */
    VRAMEST_E_NOMEM = -2,               /**< allocation failed */
    VRAMEST_E_IO = -3,                  /**< a file could not be opened or read */
    VRAMEST_E_PARSE = -4,               /**< malformed JSON, safetensors or GGUF data */
    VRAMEST_E_NEED_MORE_DATA = -5,      /**< the buffer is a prefix; `needed` says how many bytes */
    VRAMEST_E_UNSUPPORTED = -6,         /**< a valid setting whose effect is not modelled */
    VRAMEST_E_UNKNOWN_OPTION = -7,      /**< no option with that key or name */
    VRAMEST_E_TYPE = -8,                /**< a value of the wrong type for the option */
    VRAMEST_E_RANGE = -9,               /**< a value outside the option's bounds */
    VRAMEST_E_CONFLICT = -10,           /**< two sources or settings disagree */
    VRAMEST_E_INCOMPLETE_MODEL = -11,   /**< a required architecture value is missing */
    VRAMEST_E_UNKNOWN_CATEGORY = -12,   /**< no category, device or value with that index */
    VRAMEST_E_BUFFER_TOO_SMALL = -13,   /**< the output buffer is too small; `needed` says how big */
    VRAMEST_E_WRONG_HANDLE = -14,       /**< the option belongs to another kind of handle */
    VRAMEST_E_UNKNOWN_MODEL_TYPE = -15, /**< `model_type` names no supported family */
    VRAMEST_E_OVERFLOW = -16,           /**< a size does not fit in 64 bits */
    VRAMEST_E_INVALID_MODEL = -17,      /**< architecture values are inconsistent */
    VRAMEST_E_UNKNOWN_NAME = -18,       /**< no preset, device or enum value with that name */
    VRAMEST_E_LIMIT = -19,              /**< a safety limit (header size, tensor count, nesting) was exceeded */
    VRAMEST_E_DOES_NOT_FIT = -20,       /**< a solver found no value that fits the device */
    VRAMEST_E_INTERNAL = -99,           /**< a bug in libvramest; please report it */
    VRAMEST_STATUS_MIN_ = -0x7FFFFFFF   /**< keeps the enum 32-bit; not a status */
} vramest_status;

/**
 * @brief A short, static description of a status code.
 * @param status a ::vramest_status value (unknown values give "unknown status").
 * @return a static string, never NULL.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_status_string(int status);

/**
 * @brief What the last failing call on this thread found wrong.
 *
 * The message names the key, the value and, for files, the byte offset.
 * It stays valid until the next failing libvramest call on the same thread.
 * Successful calls do not clear it: look at the return code first.
 * @return a thread-local string, never NULL ("" when nothing failed yet).
 * @since 1.0
 */
VRAMEST_API const char *
vramest_last_error_message(void);

/**
 * @brief Clear this thread's last error message.
 * @since 1.0
 */
VRAMEST_API void
vramest_clear_error(void);

/** @} */

/* ===================================================================== */
/** @defgroup handles Handles
 *  @{ */

/**
 * @struct vramest_model
 * @brief A model: its architecture and tensor inventory.
 *
 * Built from options (names as in Hugging Face `config.json`), a bundled
 * preset, or parsed sources (config.json, safetensors headers and indexes,
 * GGUF headers). Created by vramest_model_new() or vramest_model_new_preset(),
 * released by vramest_model_free().
 */
typedef struct vramest_model vramest_model;

/**
 * @struct vramest_precision
 * @brief A precision policy: storage dtype per tensor role, compute dtype,
 *        master weights, gradient / optimizer-state / KV-cache dtypes, quantization.
 */
typedef struct vramest_precision vramest_precision;

/**
 * @struct vramest_config
 * @brief A workload: mode, batch, sequence, optimizer, fine-tuning method,
 *        parallel layout, offload, device and runtime settings.
 */
typedef struct vramest_config vramest_config;

/**
 * @struct vramest_result
 * @brief An immutable estimate: per device and category bytes, headline figures,
 *        bands and provenance. Made by vramest_estimate(), freed by vramest_result_free().
 */
typedef struct vramest_result vramest_result;

/** @} */

/* ===================================================================== */
/** @defgroup options Options
 *
 * Every setting of the three input handles is an option: a stable numeric key
 * with a stable name (the Hugging Face `config.json` name where one exists),
 * a type, bounds, a default and a description. Keys live in disjoint ranges
 * per handle (model 1000–1999, precision 2000–2999, config 3000–3999), so a
 * key passed to the wrong handle is rejected with ::VRAMEST_E_WRONG_HANDLE.
 * Enum-typed options take the numeric values of their enum, or their names
 * through the `_set_str` functions. Keys and names are append-only.
 *  @{ */

/** @brief Value types of options. @since 1.0 */
typedef enum vramest_value_type {
    VRAMEST_TYPE_I64 = 1,    /**< a 64-bit integer */
    VRAMEST_TYPE_F64 = 2,    /**< a double */
    VRAMEST_TYPE_BOOL = 3,   /**< 0 or 1, set with `_set_i64` */
    VRAMEST_TYPE_ENUM = 4,   /**< a named value, set with `_set_i64` (value) or `_set_str` (name) */
    VRAMEST_TYPE_STRING = 5, /**< UTF-8 text, set with `_set_str` (lists are comma-separated) */
    VRAMEST_TYPE_MAX_ = 0x7FFFFFFF
} vramest_value_type;

/** @brief Which handle an option belongs to. @since 1.0 */
typedef enum vramest_handle_kind {
    VRAMEST_HANDLE_MODEL = 1,
    VRAMEST_HANDLE_PRECISION = 2,
    VRAMEST_HANDLE_CONFIG = 3,
    VRAMEST_HANDLE_MAX_ = 0x7FFFFFFF
} vramest_handle_kind;

/**
 * @brief Option keys. Values are pinned; new keys are appended in their range.
 *
 * The name of each key (used by JSON job specs and the Python binding) is
 * given in its description and returned by vramest_option_name().
 * @since 1.0
 */
typedef enum vramest_option {
    /* ---- model (1000-1999); names are Hugging Face config.json keys ---- */
    VRAMEST_MODEL_MODEL_TYPE = 1000,              /**< "model_type" (enum: family) */
    VRAMEST_MODEL_HIDDEN_SIZE = 1001,             /**< "hidden_size" (aliases n_embd, d_model) */
    VRAMEST_MODEL_NUM_HIDDEN_LAYERS = 1002,       /**< "num_hidden_layers" (n_layer, num_layers) */
    VRAMEST_MODEL_NUM_ATTENTION_HEADS = 1003,     /**< "num_attention_heads" (n_head, num_heads) */
    VRAMEST_MODEL_NUM_KEY_VALUE_HEADS = 1004,     /**< "num_key_value_heads"; default = heads */
    VRAMEST_MODEL_INTERMEDIATE_SIZE = 1005,       /**< "intermediate_size" (n_inner, d_ff, ffn_dim) */
    VRAMEST_MODEL_VOCAB_SIZE = 1006,              /**< "vocab_size" */
    VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS = 1007, /**< "max_position_embeddings" (n_positions) */
    VRAMEST_MODEL_HEAD_DIM = 1008,                /**< "head_dim"; default hidden/heads */
    VRAMEST_MODEL_TIE_WORD_EMBEDDINGS = 1009,     /**< "tie_word_embeddings" (bool) */
    VRAMEST_MODEL_NUM_DECODER_LAYERS = 1010,      /**< "num_decoder_layers" (encoder-decoder) */
    VRAMEST_MODEL_NUM_LOCAL_EXPERTS = 1011,       /**< "num_local_experts" (num_experts, n_routed_experts) */
    VRAMEST_MODEL_NUM_EXPERTS_PER_TOK = 1012,     /**< "num_experts_per_tok" */
    VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE = 1013,   /**< "moe_intermediate_size" */
    VRAMEST_MODEL_N_SHARED_EXPERTS = 1014,        /**< "n_shared_experts" */
    VRAMEST_MODEL_FIRST_K_DENSE_REPLACE = 1015,   /**< "first_k_dense_replace" */
    VRAMEST_MODEL_KV_LORA_RANK = 1016,            /**< "kv_lora_rank" (MLA) */
    VRAMEST_MODEL_Q_LORA_RANK = 1017,             /**< "q_lora_rank" (MLA; 0 = none) */
    VRAMEST_MODEL_QK_ROPE_HEAD_DIM = 1018,        /**< "qk_rope_head_dim" (MLA) */
    VRAMEST_MODEL_QK_NOPE_HEAD_DIM = 1019,        /**< "qk_nope_head_dim" (MLA) */
    VRAMEST_MODEL_V_HEAD_DIM = 1020,              /**< "v_head_dim" (MLA) */
    VRAMEST_MODEL_SLIDING_WINDOW = 1021,          /**< "sliding_window" (0 = none) */
    VRAMEST_MODEL_TYPE_VOCAB_SIZE = 1022,         /**< "type_vocab_size" (BERT) */
    VRAMEST_MODEL_ATTENTION_BIAS = 1023,          /**< "attention_bias" (bool; family default) */
    VRAMEST_MODEL_MLP_BIAS = 1024,                /**< "mlp_bias" (bool; family default) */
    VRAMEST_MODEL_HIDDEN_ACT = 1025,              /**< "hidden_act" (enum) */
    VRAMEST_MODEL_WORD_EMBED_PROJ_DIM = 1026,     /**< "word_embed_proj_dim" (OPT) */
    VRAMEST_MODEL_HIDDEN_DROPOUT = 1027,          /**< "hidden_dropout" (resid_pdrop, hidden_dropout_prob, dropout_rate) */
    VRAMEST_MODEL_ATTENTION_DROPOUT = 1028,       /**< "attention_dropout" (attn_pdrop, attention_probs_dropout_prob) */
    VRAMEST_MODEL_TORCH_DTYPE = 1029,             /**< "torch_dtype" (enum dtype of the checkpoint) */
    VRAMEST_MODEL_USE_SLIDING_WINDOW = 1030,      /**< "use_sliding_window" (bool; Qwen2 default false) */
    VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE = 1031, /**< "shared_expert_intermediate_size" */
    VRAMEST_MODEL_RELATIVE_ATTENTION_NUM_BUCKETS = 1032,  /**< "relative_attention_num_buckets" (T5) */
    VRAMEST_MODEL_FINAL_LOGIT_SOFTCAPPING = 1033, /**< "final_logit_softcapping" (0 = none) */
    VRAMEST_MODEL_ARCHITECTURES = 1034,           /**< "architectures" (string: the HF class name) */
    VRAMEST_MODEL_NUM_LABELS = 1035,              /**< "num_labels" (sequence classification head) */
    VRAMEST_MODEL_IS_GATED_ACT = 1036,            /**< "is_gated_act" (bool; T5 v1.1 gated-gelu) */
    VRAMEST_MODEL_MULTI_QUERY = 1037,             /**< "multi_query" (bool; GPT-BigCode) */
    VRAMEST_MODEL_NEW_DECODER_ARCHITECTURE = 1038, /**< "new_decoder_architecture" (bool; Falcon 40B+) */
    VRAMEST_MODEL_PARALLEL_ATTN = 1039,           /**< "parallel_attn" (bool; Falcon) */
    VRAMEST_MODEL_ROTARY_DIM = 1040,              /**< "rotary_dim" (CodeGen/MOSS, GPT-J) */
    VRAMEST_MODEL_DO_LAYER_NORM_BEFORE = 1041,    /**< "do_layer_norm_before" (bool; OPT: false = post-LN, no final norm) */
    VRAMEST_MODEL_QK_LAYERNORM = 1042,            /**< "qk_layernorm" (bool; Phi: LayerNorm on q and k) */
    VRAMEST_MODEL_RMSNORM = 1043,                 /**< "rmsnorm" (bool; ChatGLM2/3/GLM-4 layout) */
    VRAMEST_MODEL_NUM_LN_IN_PARALLEL_ATTN = 1044, /**< "num_ln_in_parallel_attn" (Falcon new architecture; 0 = 2) */
    VRAMEST_MODEL_RELATIVE_ATTENTION = 1400,      /**< "relative_attention" (bool; DeBERTa-v2: relative position embeddings) @since 1.0 */
    VRAMEST_MODEL_MAX_RELATIVE_POSITIONS = 1401,  /**< "max_relative_positions" (DeBERTa-v2; < 1 = max_position_embeddings) @since 1.0 */
    VRAMEST_MODEL_POSITION_BUCKETS = 1402,        /**< "position_buckets" (DeBERTa-v2 log buckets; < 1 = none) @since 1.0 */
    VRAMEST_MODEL_SHARE_ATT_KEY = 1403,           /**< "share_att_key" (bool; DeBERTa-v2: positions through the content q/k projections) @since 1.0 */
    VRAMEST_MODEL_POS_ATT_TYPES = 1404,           /**< "pos_att_types" (DeBERTa-v2 pos_att_type as flags: 1 c2p, 2 p2c) @since 1.0 */
    VRAMEST_MODEL_POSITION_BIASED_INPUT = 1405,   /**< "position_biased_input" (bool; DeBERTa-v2 absolute position table) @since 1.0 */
    VRAMEST_MODEL_REL_EMBEDDINGS_NORM = 1406,     /**< "rel_embeddings_norm" (bool; DeBERTa-v2 norm_rel_ebd "layer_norm") @since 1.0 */
    VRAMEST_MODEL_CONV_KERNEL_SIZE = 1407,        /**< "conv_kernel_size" (DeBERTa-v2 convolution after the first layer; 0 = none) @since 1.0 */
    VRAMEST_MODEL_CONV_GROUPS = 1408,             /**< "conv_groups" (DeBERTa-v2 convolution groups) @since 1.0 */
    VRAMEST_MODEL_EMBEDDING_SIZE = 1409,          /**< "embedding_size" (DeBERTa-v2 token-embedding width; 0 = hidden_size) @since 1.0 */
    VRAMEST_MODEL_NUM_MEL_BINS = 1410,            /**< "num_mel_bins" (Whisper: input channels of the encoder's convolution stem) @since 1.0 */
    VRAMEST_MODEL_MAX_SOURCE_POSITIONS = 1411,    /**< "max_source_positions" (Whisper: encoder positions, audio frames after the stem) @since 1.0 */
    /* 1100-1199: the 2026 zoo's plain decoders and MoE variants (issue #16) */
    VRAMEST_MODEL_SLIDING_WINDOW_PATTERN = 1100,  /**< "sliding_window_pattern" (layer i slides unless (i + 1) % N == 0; 0 = the family's) */
    VRAMEST_MODEL_NO_ROPE_LAYER_INTERVAL = 1101,  /**< "no_rope_layer_interval" (layer i has no RoPE when (i + 1) % N == 0; 0 = none) */
    VRAMEST_MODEL_LAYER_BLOCKS = 1102,            /**< "layer_blocks" (string: per-layer attention and MLP sizes of a heterogeneous model) */
    VRAMEST_MODEL_NUM_NEXTN_PREDICT_LAYERS = 1103, /**< "num_nextn_predict_layers" (MTP layers of the checkpoint) */
    VRAMEST_MODEL_MOE_LAYER_FREQ = 1104,          /**< "moe_layer_freq" (layer i >= first_k_dense_replace has experts when i % N == 0) */
    VRAMEST_MODEL_ATTENTION_OUT_BIAS = 1105,      /**< "attention_out_bias" (bool; bias on o_proj; default: the family's) */
    /* 1200-1299: sparse attention, interleaved layers, checkpoint contents (issue #16) */
    VRAMEST_MODEL_INDEX_N_HEADS = 1200,           /**< "index_n_heads" (DSA lightning indexer heads; default: the family's) */
    VRAMEST_MODEL_INDEX_HEAD_DIM = 1201,          /**< "index_head_dim" (DSA indexer head width = its cached key per token) */
    VRAMEST_MODEL_INDEX_TOPK_FREQ = 1202,         /**< "index_topk_freq" (GLM-5.2: a layer of N runs its indexer; default 1) */
    VRAMEST_MODEL_INDEX_SKIP_TOPK_OFFSET = 1203,  /**< "index_skip_topk_offset" (leading indexer layers before that cycle; default 2) */
    VRAMEST_MODEL_INTERMEDIATE_SIZE_MLP = 1204,   /**< "intermediate_size_mlp" (Llama 4: MLP width of the layers without experts) */
    VRAMEST_MODEL_INTERLEAVE_MOE_LAYER_STEP = 1205, /**< "interleave_moe_layer_step" (Llama 4: every Nth layer has experts; default 1) */
    VRAMEST_MODEL_ATTENTION_CHUNK_SIZE = 1206,    /**< "attention_chunk_size" (Llama 4: chunked attention on RoPE layers; 0 = the family's) */
    /* state-space and linear-attention layers (1300-1349, issue #16) */
    VRAMEST_MODEL_LAYER_PATTERN = 1300,           /**< "layer_pattern" (string, one letter per layer: A attention, M Mamba, L linear attention, H attention and Mamba in parallel, N none; config.json's layer_types / hybrid_override_pattern / layers_block_type) @since 1.0 */
    VRAMEST_MODEL_MLP_PATTERN = 1301,             /**< "mlp_pattern" (string, one letter per layer: D dense MLP, E experts, N none; "" = the family's) @since 1.0 */
    VRAMEST_MODEL_SSM_STATE_SIZE = 1302,          /**< "ssm_state_size" (state_size, mamba_d_state: N of a Mamba layer) @since 1.0 */
    VRAMEST_MODEL_CONV_KERNEL = 1303,             /**< "conv_kernel" (mamba_d_conv, d_conv: the causal convolution's width) @since 1.0 */
    VRAMEST_MODEL_MAMBA_EXPAND = 1304,            /**< "mamba_expand" (expand: the Mamba inner width over hidden_size) @since 1.0 */
    VRAMEST_MODEL_TIME_STEP_RANK = 1305,          /**< "time_step_rank" (mamba_dt_rank; 0 = ceil(hidden_size / 16)) @since 1.0 */
    VRAMEST_MODEL_MAMBA_NUM_HEADS = 1306,         /**< "mamba_num_heads" (mamba_n_heads: Mamba-2 heads) @since 1.0 */
    VRAMEST_MODEL_MAMBA_HEAD_DIM = 1307,          /**< "mamba_head_dim" (mamba_d_head: Mamba-2 head width) @since 1.0 */
    VRAMEST_MODEL_MAMBA_N_GROUPS = 1308,          /**< "n_groups" (mamba_n_groups, mamba_ngroups: Mamba-2 B/C groups) @since 1.0 */
    VRAMEST_MODEL_MAMBA_D_SSM = 1309,             /**< "mamba_d_ssm" (the Mamba-2 inner width when it is not expand x hidden_size) @since 1.0 */
    VRAMEST_MODEL_MAMBA_CONV_BIAS = 1310,         /**< "use_conv_bias" (mamba_conv_bias, bool) @since 1.0 */
    VRAMEST_MODEL_MAMBA_PROJ_BIAS = 1311,         /**< "mamba_proj_bias" (use_bias: biases on the Mamba projections, bool) @since 1.0 */
    VRAMEST_MODEL_MAMBA_RMS_NORM = 1312,          /**< "mamba_rms_norm" (bool: the Mamba-2 gated RMSNorm exists) @since 1.0 */
    VRAMEST_MODEL_SSM_STATE_DTYPE = 1313,         /**< "mamba_ssm_cache_dtype" (mamba_ssm_dtype: dtype of the recurrent state; auto = the cache's) @since 1.0 */
    VRAMEST_MODEL_LINEAR_NUM_KEY_HEADS = 1314,    /**< "linear_num_key_heads" (gated DeltaNet) @since 1.0 */
    VRAMEST_MODEL_LINEAR_NUM_VALUE_HEADS = 1315,  /**< "linear_num_value_heads" (gated DeltaNet) @since 1.0 */
    VRAMEST_MODEL_LINEAR_KEY_HEAD_DIM = 1316,     /**< "linear_key_head_dim" (gated DeltaNet) @since 1.0 */
    VRAMEST_MODEL_LINEAR_VALUE_HEAD_DIM = 1317,   /**< "linear_value_head_dim" (gated DeltaNet) @since 1.0 */
    VRAMEST_MODEL_LINEAR_CONV_KERNEL_DIM = 1318,  /**< "linear_conv_kernel_dim" (gated DeltaNet convolution width) @since 1.0 */
    VRAMEST_MODEL_ATTN_OUTPUT_GATE = 1319,        /**< "attn_output_gate" (bool: q_proj also yields a sigmoid output gate, Qwen3-Next) @since 1.0 */
    VRAMEST_MODEL_MOE_LATENT_SIZE = 1320,         /**< "moe_latent_size" (experts run in a latent width; 0 = hidden_size) @since 1.0 */
    VRAMEST_MODEL_CHUNK_SIZE = 1321,              /**< "chunk_size" (mamba_chunk_size: tokens per chunk of the chunked scan) @since 1.0 */
    VRAMEST_MODEL_GLOBAL_HEAD_DIM = 1322,         /**< "global_head_dim" (head size of the full-attention layers of a sliding pattern; 0 = head_dim, Gemma 4) @since 1.0 */
    VRAMEST_MODEL_NUM_GLOBAL_KEY_VALUE_HEADS = 1323, /**< "num_global_key_value_heads" (key/value heads of the full-attention layers when attention_k_eq_v; 0 = num_key_value_heads) @since 1.0 */
    VRAMEST_MODEL_ATTENTION_K_EQ_V = 1324,        /**< "attention_k_eq_v" (bool: the full-attention layers have no v_proj, values come from k_proj, Gemma 4) @since 1.0 */
    VRAMEST_MODEL_CLA_SHARE_FACTOR = 1340,        /**< "cla_share_factor" (cross-layer attention: layer i has no k_proj / v_proj and attends to the keys and values of layer i - i % factor, Hunyuan's use_cla; 0 or 1 = none) @since 1.0 */
    VRAMEST_MODEL_HIDDEN_SIZE_PER_LAYER_INPUT = 1325, /**< "hidden_size_per_layer_input" (width of the per-layer input embeddings; 0 = none, Gemma 4 E2B/E4B) @since 1.0 */
    VRAMEST_MODEL_VOCAB_SIZE_PER_LAYER_INPUT = 1326,  /**< "vocab_size_per_layer_input" (rows of the per-layer input embedding table; 0 = vocab_size) @since 1.0 */
    VRAMEST_MODEL_NUM_KV_SHARED_LAYERS = 1327,    /**< "num_kv_shared_layers" (the last N layers reuse the keys and values of the last earlier layer of their kind: no k/v projections, no cache of their own; Gemma 4) @since 1.0 */
    VRAMEST_MODEL_USE_DOUBLE_WIDE_MLP = 1328,     /**< "use_double_wide_mlp" (bool: the KV-shared layers' MLP is 2 x intermediate_size wide; Gemma 4 E2B) @since 1.0 */

    /* ---- precision (2000-2999) ---- */
    VRAMEST_PREC_WEIGHTS = 2000,           /**< "weights" (enum dtype; auto = the checkpoint dtype) */
    VRAMEST_PREC_COMPUTE = 2001,           /**< "compute" (enum dtype: auto, fp32, fp16, bf16) */
    VRAMEST_PREC_AMP = 2002,               /**< "amp" (bool: autocast over the stored weights) */
    VRAMEST_PREC_MASTER_WEIGHTS = 2003,    /**< "master_weights" (enum dtype: auto/none, fp32) */
    VRAMEST_PREC_GRADIENTS = 2004,         /**< "gradients" (enum dtype; auto = parameter dtype) */
    VRAMEST_PREC_OPTIMIZER_STATES = 2005,  /**< "optimizer_states" (enum dtype; auto = parameter dtype, or fp32 with master weights) */
    VRAMEST_PREC_KV_CACHE = 2006,          /**< "kv_cache" (enum dtype; auto = compute dtype) */
    VRAMEST_PREC_QUANT_GROUP_SIZE = 2007,  /**< "quant_group_size" (0 = the method's default) */
    VRAMEST_PREC_DOUBLE_QUANT = 2008,      /**< "double_quant" (bool) */
    VRAMEST_PREC_SKIP_MODULES = 2009,      /**< "skip_modules" (comma list; "auto" = the method's default) */
    VRAMEST_PREC_QUANT_METHOD = 2010,      /**< "quant_method" (enum: auto, none, bnb, gptq, awq, torchao, gguf, fp8) */
    VRAMEST_PREC_EMBEDDINGS = 2011,        /**< "embeddings" (enum dtype of the token embeddings, and of a tied output head; auto = the method's default) */

    /* ---- config: workload (3000-3099) ---- */
    VRAMEST_CFG_MODE = 3000,                   /**< "mode" (enum: load, train, infer, rl) */
    VRAMEST_CFG_BATCH_SIZE = 3001,             /**< "batch_size" (micro-batch) */
    VRAMEST_CFG_SEQ_LEN = 3002,                /**< "seq_len" (tokens per sample) */
    VRAMEST_CFG_GRAD_ACCUM_STEPS = 3003,       /**< "grad_accum_steps" */
    VRAMEST_CFG_HEAD = 3004,                   /**< "head" (enum: auto, causal_lm, seq2seq_lm, masked_lm, seq_cls, none) */
    VRAMEST_CFG_NUM_LABELS = 3005,             /**< "num_labels" (seq_cls head; 0 = the model's) */
    VRAMEST_CFG_OPTIMIZER = 3006,              /**< "optimizer" (enum) */
    VRAMEST_CFG_OPTIMIZER_IMPL = 3007,         /**< "optimizer_impl" (enum: auto, foreach, fused, single_tensor) */
    VRAMEST_CFG_FINETUNE = 3008,               /**< "finetune" (enum: full, lora, qlora, prefix, freeze) */
    VRAMEST_CFG_LORA_RANK = 3009,              /**< "lora_rank" */
    VRAMEST_CFG_LORA_TARGETS = 3010,           /**< "lora_targets" (comma list of module names, or all-linear) */
    VRAMEST_CFG_GRADIENT_CHECKPOINTING = 3011, /**< "gradient_checkpointing" (enum: none, full, selective) */
    VRAMEST_CFG_ATTENTION = 3012,              /**< "attention" (enum: eager, sdpa, flash) */
    VRAMEST_CFG_PROMPT_LEN = 3013,             /**< "prompt_len" (0 = seq_len) */
    VRAMEST_CFG_GEN_LEN = 3014,                /**< "gen_len" (new tokens) */
    VRAMEST_CFG_KV_CACHE = 3015,               /**< "kv_cache" (bool) */
    VRAMEST_CFG_BEAMS = 3016,                  /**< "beams" */
    VRAMEST_CFG_LORA_DROPOUT = 3017,           /**< "lora_dropout" */
    VRAMEST_CFG_PREFIX_LEN = 3018,             /**< "prefix_len" (prefix tuning virtual tokens) */
    VRAMEST_CFG_TRAINABLE_LAYERS = 3019,       /**< "trainable_layers" (finetune=freeze: last N layers train) */
    VRAMEST_CFG_OPTIMIZER_IN_BACKWARD = 3020,  /**< "optimizer_in_backward" (bool: each parameter stepped as its gradient arrives) @since 1.0 */
    VRAMEST_CFG_LOSS = 3021,                   /**< "loss" (enum: cross_entropy, chunked, fused_linear, sum) @since 1.0 */
    VRAMEST_CFG_LOSS_CHUNKS = 3022,            /**< "loss_chunks" (loss chunked: chunks of the logits, 1-32) @since 1.0 */
    VRAMEST_CFG_CHECKPOINT_EVERY = 3023,       /**< "checkpoint_every" (checkpoint every k-th layer) @since 1.0 */
    VRAMEST_CFG_ACTIVATION_OFFLOADING = 3024,  /**< "activation_offloading" (bool: saved activations in pinned host memory) @since 1.0 */
    VRAMEST_CFG_IMAGES = 3090,                 /**< "images" (images per sample of a multimodal model; their tokens add to seq_len / prompt_len) @since 1.0 */
    VRAMEST_CFG_IMAGE_TOKENS = 3091,           /**< "image_tokens" (language-model tokens per image; 0 = from the model's config) @since 1.0 */

    /* ---- config: parallel (3100-3199) ---- */
    VRAMEST_CFG_GPUS = 3100,                   /**< "gpus" (world size) */
    VRAMEST_CFG_TP = 3101,                     /**< "tp" (tensor parallel size) */
    VRAMEST_CFG_PP = 3102,                     /**< "pp" (pipeline parallel size) */
    VRAMEST_CFG_DP = 3103,                     /**< "dp" (0 = gpus / (tp*pp*cp)) */
    VRAMEST_CFG_EP = 3104,                     /**< "ep" (expert parallel size) */
    VRAMEST_CFG_ZERO_STAGE = 3105,             /**< "zero_stage" (0-3) */
    VRAMEST_CFG_FSDP = 3106,                   /**< "fsdp" (enum: none, full_shard, shard_grad_op, hybrid_shard) */
    VRAMEST_CFG_OFFLOAD_OPTIMIZER = 3107,      /**< "offload_optimizer" (enum: none, cpu, nvme) */
    VRAMEST_CFG_OFFLOAD_PARAMS = 3108,         /**< "offload_params" (enum: none, cpu, nvme) */
    VRAMEST_CFG_SEQUENCE_PARALLEL = 3109,      /**< "sequence_parallel" (bool) */
    VRAMEST_CFG_CP = 3110,                     /**< "cp" (context parallel size) */
    VRAMEST_CFG_PP_SCHEDULE = 3111,            /**< "pp_schedule" (enum: 1f1b, gpipe, interleaved) */
    VRAMEST_CFG_VIRTUAL_STAGES = 3112,         /**< "virtual_stages" */
    VRAMEST_CFG_BUCKET_CAP_MB = 3113,          /**< "bucket_cap_mb" (DDP gradient bucket, MiB) */
    VRAMEST_CFG_REDUCE_BUCKET_SIZE = 3114,     /**< "reduce_bucket_size" (ZeRO, elements) */
    VRAMEST_CFG_ALLGATHER_BUCKET_SIZE = 3115,  /**< "allgather_bucket_size" (ZeRO-1/2, elements) */
    VRAMEST_CFG_PREFETCH_BUCKET_SIZE = 3116,   /**< "prefetch_bucket_size" (ZeRO-3 stage3_prefetch_bucket_size, elements) */
    VRAMEST_CFG_MAX_LIVE_PARAMETERS = 3117,    /**< "max_live_parameters" (ZeRO-3 stage3_max_live_parameters) */
    VRAMEST_CFG_PARAM_PERSISTENCE_THRESHOLD = 3118, /**< "param_persistence_threshold" (ZeRO-3, elements) */
    VRAMEST_CFG_OVERLAP_COMM = 3119,           /**< "overlap_comm" (enum: auto, off, on; auto = on for ZeRO-3) */
    VRAMEST_CFG_SUB_GROUP_SIZE = 3120,         /**< "sub_group_size" (ZeRO-3 optimizer sub-group, elements) */
    VRAMEST_CFG_OFFLOAD_PIN_MEMORY = 3121,     /**< "offload_pin_memory" (bool: pinned host buffers for offload) */
    VRAMEST_CFG_OFFLOAD_ACTIVATIONS = 3122,    /**< "offload_activations" (bool: checkpointed activations kept on the host) */
    VRAMEST_CFG_LIMIT_ALL_GATHERS = 3123,      /**< "limit_all_gathers" (bool; FSDP) */
    VRAMEST_CFG_GPUS_PER_NODE = 3124,          /**< "gpus_per_node" (hybrid sharding, host RAM per node) */
    VRAMEST_CFG_NCCL_MIB = 3125,               /**< "nccl_mib" (NCCL buffers per rank in MiB; -1 = estimated) */
    VRAMEST_CFG_DEVICE_MAP = 3126,             /**< "device_map" (enum: none, auto, balanced, balanced_low_0, sequential) */
    VRAMEST_CFG_MAX_MEMORY = 3127,             /**< "max_memory" (string: per-device budgets, "0:10GiB,1:10GiB,cpu:30GiB") */
    VRAMEST_CFG_PP_SPLIT = 3128,               /**< "pp_split" (enum: balanced, uniform: decoder layers per pipeline stage) */
    VRAMEST_CFG_MAX_REUSE_DISTANCE = 3129,     /**< "max_reuse_distance" (ZeRO-3 stage3_max_reuse_distance, elements) */
    VRAMEST_CFG_FSDP_VERSION = 3130,           /**< "fsdp_version" (1, 2; 0 = the framework's) @since 1.0 */

    /* ---- config: device (3200-3299) ---- */
    VRAMEST_CFG_DEVICE = 3200,                 /**< "device" (string: GPU preset name; "" = none) */
    VRAMEST_CFG_MEMORY_GIB = 3201,             /**< "memory_gib" (GiB per GPU; 0 = from the preset) */
    VRAMEST_CFG_HEADROOM_GIB = 3202,           /**< "headroom_gib" (GiB kept free per GPU: the verdict and the solvers use capacity minus it) @since 1.0 */
    VRAMEST_CFG_HEADROOM_FRACTION = 3203,      /**< "headroom_fraction" (fraction of the GPU kept free, added to headroom_gib) @since 1.0 */

    /* ---- config: runtime (3300-3399) ---- */
    VRAMEST_CFG_CUDA_CONTEXT_MIB = 3300,       /**< "cuda_context_mib" (-1 = from the device) */
    VRAMEST_CFG_FRAMEWORK = 3301,              /**< "framework" (enum: pytorch, hf_trainer, deepspeed, megatron, vllm, llama.cpp) */
    VRAMEST_CFG_GPU_MEMORY_UTILIZATION = 3302, /**< "gpu_memory_utilization" (vLLM) */
    VRAMEST_CFG_BLOCK_SIZE = 3303,             /**< "block_size" (vLLM KV block, tokens) */
    VRAMEST_CFG_MAX_MODEL_LEN = 3304,          /**< "max_model_len" (vLLM; 0 = the model's) */
    VRAMEST_CFG_MAX_NUM_SEQS = 3305,           /**< "max_num_seqs" (vLLM) */
    VRAMEST_CFG_MAX_NUM_BATCHED_TOKENS = 3306, /**< "max_num_batched_tokens" (vLLM; 0 = auto) */
    VRAMEST_CFG_ENFORCE_EAGER = 3307,          /**< "enforce_eager" (bool; vLLM) */
    VRAMEST_CFG_N_GPU_LAYERS = 3308,           /**< "n_gpu_layers" (llama.cpp; -1 = all) */
    VRAMEST_CFG_N_CTX = 3309,                  /**< "n_ctx" (llama.cpp; 0 = the model's) */
    VRAMEST_CFG_N_BATCH = 3310,                /**< "n_batch" (llama.cpp, Ollama; 0 = the engine's default) */
    VRAMEST_CFG_N_UBATCH = 3311,               /**< "n_ubatch" (llama.cpp) */
    VRAMEST_CFG_TORCH_VERSION = 3312,          /**< "torch_version" (string: a PyTorch release such as "2.4"; "" = the current release) @since 1.0 */
    VRAMEST_CFG_TRANSFORMERS_VERSION = 3313,   /**< "transformers_version" (string: such as "4.44"; "" = the current release) @since 1.0 */
    VRAMEST_CFG_FRAMEWORK_VERSION = 3314,      /**< "framework_version" (string: a release, a llama.cpp build "b4823" or a date "2024-06"; "" = the framework's current release) @since 1.0 */
    VRAMEST_CFG_COMPILE = 3315,                /**< "compile" (bool: torch.compile) @since 1.0 */

    VRAMEST_CFG_ENABLE_LORA = 3350,            /**< "enable_lora" (bool; vLLM LoRA slots) @since 1.0 */
    VRAMEST_CFG_MAX_LORAS = 3351,              /**< "max_loras" (vLLM: adapters per batch) @since 1.0 */
    VRAMEST_CFG_MAX_LORA_RANK = 3352,          /**< "max_lora_rank" (vLLM) @since 1.0 */
    VRAMEST_CFG_SAMPLER = 3353,                /**< "sampler" (enum: native, flashinfer; vLLM V1's profile) @since 1.0 */
    VRAMEST_CFG_MEM_FRACTION_STATIC = 3354,    /**< "mem_fraction_static" (SGLang; 0 = its default; above 1 is ::VRAMEST_E_RANGE) @since 1.0 */
    VRAMEST_CFG_CHUNKED_PREFILL_SIZE = 3355,   /**< "chunked_prefill_size" (SGLang; 0 = its default) @since 1.0 */
    VRAMEST_CFG_CUDA_GRAPH_MAX_BS = 3356,      /**< "cuda_graph_max_bs" (SGLang; 0 = its default) @since 1.0 */
    VRAMEST_CFG_MAX_TOTAL_TOKENS = 3357,       /**< "max_total_tokens" (SGLang KV pool tokens; 0 = from memory) @since 1.0 */
    VRAMEST_CFG_ENABLE_DP_ATTENTION = 3358,    /**< "enable_dp_attention" (bool; SGLang) @since 1.0 */
    VRAMEST_CFG_N_SEQ = 3359,                  /**< "n_seq" (llama.cpp parallel slots; 0 = batch_size x beams) @since 1.0 */
    VRAMEST_CFG_KV_UNIFIED = 3360,             /**< "kv_unified" (bool; llama.cpp -kvu) @since 1.0 */
    VRAMEST_CFG_NUM_CTX = 3361,                /**< "num_ctx" (Ollama context per request; 0 = its default) @since 1.0 */
    VRAMEST_CFG_NUM_PARALLEL = 3362,           /**< "num_parallel" (Ollama; 0 = 1) @since 1.0 */
    VRAMEST_CFG_SPLIT_MODE = 3363,             /**< "split_mode" (enum: layer, row, none; llama.cpp over gpus) @since 1.0 */
    VRAMEST_CFG_TENSOR_SPLIT = 3364,           /**< "tensor_split" (string: each GPU's share, "3,1"; "" = equal; a count other than gpus is ::VRAMEST_E_CONFLICT) @since 1.0 */
    VRAMEST_CFG_ENABLE_PREFIX_CACHING = 3365,  /**< "enable_prefix_caching" (enum: auto, off, on; vLLM; moves no memory: cached blocks are the pool's own) @since 1.0 */
    VRAMEST_CFG_DISABLE_RADIX_CACHE = 3366,    /**< "disable_radix_cache" (bool; SGLang; moves no memory: the radix tree indexes the token pool) @since 1.0 */
    VRAMEST_CFG_SPECULATIVE_METHOD = 3367,     /**< "speculative_method" (enum: none, draft_model, eagle, eagle3, mtp, ngram; vLLM, SGLang; the draft is the config's ::VRAMEST_ROLE_DRAFT model) @since 1.0 */
    VRAMEST_CFG_NUM_SPECULATIVE_TOKENS = 3368, /**< "num_speculative_tokens" (vLLM, SGLang: draft tokens per step; lookahead slots of each sequence) @since 1.0 */

    /* ---- config: post-training with RL (3400-3499; workload.mode "rl", the spec's "rl" object) ---- */
    VRAMEST_CFG_ALGORITHM = 3400,              /**< "algorithm" (workload; enum: grpo, ppo, dpo, kto, orpo, simpo) @since 1.0 */
    VRAMEST_CFG_NUM_GENERATIONS = 3401,        /**< "num_generations" (workload; completions per prompt) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_BATCH_SIZE = 3402,     /**< "rollout_batch_size" (workload; prompts per step, all GPUs; 0 = from batch_size) @since 1.0 */
    VRAMEST_CFG_MICRO_BATCH_SIZE = 3403,       /**< "micro_batch_size" (workload; sequences per GPU per training micro-batch; 0 = derived) @since 1.0 */
    VRAMEST_CFG_RL_REFERENCE = 3410,           /**< "reference" (rl; enum: auto, none, copy, adapters_disabled) @since 1.0 */
    VRAMEST_CFG_RL_REFERENCE_OFFLOAD = 3411,   /**< "reference_offload" (rl; enum: none, cpu) @since 1.0 */
    VRAMEST_CFG_RL_REWARD = 3412,              /**< "reward" (rl; enum: rule, none) @since 1.0 */
    VRAMEST_CFG_RL_CRITIC = 3413,              /**< "critic" (rl; enum: none, copy) @since 1.0 */
    VRAMEST_CFG_RL_PLACEMENT = 3414,           /**< "placement" (rl; enum: auto, same_process, colocated, separate, shared) @since 1.0 */
    VRAMEST_CFG_RL_REFERENCE_VOCAB = 3415,     /**< "reference_vocab" (rl; the vocabulary of a reference model of its own; 0 = the policy's) @since 1.0 */
    VRAMEST_CFG_RL_TRAINER_SLEEP = 3416,       /**< "trainer_sleep" (rl; bool: the trainer's models leave the GPU between phases) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_ENGINE = 3420,         /**< "rollout_engine" (spec rl.rollout.engine; enum: auto, transformers, vllm) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_ENGINE_VERSION = 3421, /**< "rollout_engine_version" (spec rl.rollout.engine_version; string) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_TP = 3422,             /**< "rollout_tp" (spec rl.rollout.tp) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_GPU_MEMORY_UTILIZATION = 3423, /**< "rollout_gpu_memory_utilization" (spec rl.rollout.gpu_memory_utilization) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_MAX_MODEL_LEN = 3424,  /**< "rollout_max_model_len" (spec rl.rollout.max_model_len; 0 = prompt + completion) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_MAX_NUM_SEQS = 3425,   /**< "rollout_max_num_seqs" (spec rl.rollout.max_num_seqs) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_MAX_NUM_BATCHED_TOKENS = 3426, /**< "rollout_max_num_batched_tokens" (spec rl.rollout.max_num_batched_tokens; 0 = vLLM's) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_ENFORCE_EAGER = 3427,  /**< "rollout_enforce_eager" (spec rl.rollout.enforce_eager; bool) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_SLEEP_MODE = 3428,     /**< "rollout_sleep_mode" (spec rl.rollout.sleep_mode; enum: auto, off, on) @since 1.0 */
    VRAMEST_CFG_ROLLOUT_FREE_CACHE_ENGINE = 3429, /**< "rollout_free_cache_engine" (spec rl.rollout.free_cache_engine; enum: auto, off, on) @since 1.0 */
    VRAMEST_CFG_RL_REWARD_OFFLOAD = 3430,      /**< "reward_offload" (spec rl.reward_offload; enum: none, cpu) @since 1.0 */
    VRAMEST_CFG_RL_REFERENCE_GPUS = 3431,      /**< "reference_gpus" (spec rl.reference_gpus; -1 on the trainer's GPUs, 0 the stack's default) @since 1.0 */
    VRAMEST_CFG_RL_REWARD_GPUS = 3432,         /**< "reward_gpus" (spec rl.reward_gpus; -1 on the trainer's GPUs, 0 the stack's default) @since 1.0 */
    VRAMEST_CFG_RL_CRITIC_GPUS = 3433,         /**< "critic_gpus" (spec rl.critic_gpus; -1 on the trainer's GPUs, 0 the stack's default) @since 1.0 */

    VRAMEST_OPTION_MAX_ = 0x7FFFFFFF
} vramest_option;

/**
 * @brief Find an option by its name (or an accepted alias such as "n_embd").
 * @param[in] name NUL-terminated UTF-8 name.
 * @param[out] out the key.
 * @retval VRAMEST_OK found
 * @retval VRAMEST_E_UNKNOWN_OPTION no such name
 * @retval VRAMEST_E_INVALID_ARG NULL argument
 * @since 1.0
 */
VRAMEST_API int
vramest_option_from_name(const char *name, vramest_option *out);

/**
 * @brief Find an option by name among the options of one kind of handle.
 *
 * A few names exist for two handles, as in the job-spec format: `kv_cache`
 * is a precision dtype and a workload switch, `num_labels` a model and a
 * workload value. vramest_option_from_name() returns the first; bindings
 * that know the handle they set use this.
 * @param[in] handle a ::vramest_handle_kind.
 * @param[in] name NUL-terminated UTF-8 name or alias.
 * @param[out] out the key.
 * @retval VRAMEST_OK found
 * @retval VRAMEST_E_UNKNOWN_OPTION no option of that handle has this name
 * @retval VRAMEST_E_INVALID_ARG NULL argument or unknown handle kind
 * @since 1.0
 */
VRAMEST_API int
vramest_option_lookup(int handle, const char *name, vramest_option *out);

/**
 * @brief The canonical name of an option.
 * @param[in] key the option.
 * @return a static string, or NULL for an unknown key.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_option_name(vramest_option key);

/**
 * @brief Type, bounds and default of an option.
 *
 * Bounds and defaults are doubles (exact for integers up to 2^53). For
 * ENUM options min/max are the smallest and largest valid values; for STRING
 * options they are 0 and the maximum length in bytes, and the default is 0
 * (see vramest_option_default_str()). Any out pointer may be NULL.
 * @param[in] key the option.
 * @param[out] out_type a ::vramest_value_type.
 * @param[out] out_handle a ::vramest_handle_kind.
 * @param[out] out_min smallest accepted value.
 * @param[out] out_max largest accepted value.
 * @param[out] out_default the default.
 * @retval VRAMEST_OK ok
 * @retval VRAMEST_E_UNKNOWN_OPTION unknown key
 * @since 1.0
 */
VRAMEST_API int
vramest_option_info(vramest_option key, int *out_type, int *out_handle,
                    double *out_min, double *out_max, double *out_default);

/**
 * @brief The default of an option as text (enum name, string, or number).
 * @param[in] key the option.
 * @return a static string, or NULL for an unknown key.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_option_default_str(vramest_option key);

/**
 * @brief A one-line description of an option (with its unit).
 * @param[in] key the option.
 * @return a static string, or NULL for an unknown key.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_option_description(vramest_option key);

/**
 * @brief The job-spec object an option belongs to: "model", "precision",
 *        "workload", "parallel", "device" or "runtime".
 * @param[in] key the option.
 * @return a static string, or NULL for an unknown key.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_option_group(vramest_option key);

/**
 * @brief Number of options this library knows (runtime, not a macro).
 * @return the number of options.
 * @since 1.0
 */
VRAMEST_API uint32_t
vramest_option_count(void);

/**
 * @brief The key of the i-th option, for enumeration (0 <= index < vramest_option_count()).
 * @param[in] index position, from 0.
 * @param[out] out the key.
 * @retval VRAMEST_OK ok
 * @retval VRAMEST_E_RANGE index out of range
 * @since 1.0
 */
VRAMEST_API int
vramest_option_at(uint32_t index, vramest_option *out);

/**
 * @brief The name of a value of an ENUM option (e.g. "adamw").
 * @param[in] key an ENUM option.
 * @param[in] value one of its values.
 * @return a static string, or NULL if the key is not an ENUM option or the value is unknown.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_option_value_name(vramest_option key, int64_t value);

/**
 * @brief The value of an ENUM option given its name.
 * @param[in] key an ENUM option.
 * @param[in] name NUL-terminated name of one of its values.
 * @param[out] out the value.
 * @retval VRAMEST_OK ok
 * @retval VRAMEST_E_UNKNOWN_NAME the name is not a value of this option (the message lists the valid names)
 * @retval VRAMEST_E_TYPE the key is not an ENUM option
 * @since 1.0
 */
VRAMEST_API int
vramest_option_value_from_name(vramest_option key, const char *name, int64_t *out);

/** @} */

/* ===================================================================== */
/** @defgroup model Model
 *  @{ */

/** @brief Kinds of model sources for vramest_model_parse(). @since 1.0 */
typedef enum vramest_source {
    VRAMEST_SRC_AUTO = 0,               /**< detect from the content (files: also from the name) */
    VRAMEST_SRC_HF_CONFIG_JSON = 1,     /**< Hugging Face config.json */
    VRAMEST_SRC_SAFETENSORS_HEADER = 2, /**< 8-byte little-endian length + JSON header */
    VRAMEST_SRC_SAFETENSORS_INDEX = 3,  /**< model.safetensors.index.json */
    VRAMEST_SRC_GGUF_HEADER = 4,        /**< GGUF magic, metadata and tensor infos */
    VRAMEST_SRC_DIRECTORY = 5,          /**< a model directory (files only) */
    VRAMEST_SRC_MAX_ = 0x7FFFFFFF
} vramest_source;

/**
 * @brief Create an empty model (all architecture options unset).
 * @param[out] out the new model; the caller owns it (free with vramest_model_free()).
 * @retval VRAMEST_OK ok
 * @retval VRAMEST_E_NOMEM out of memory
 * @since 1.0
 */
VRAMEST_API int
vramest_model_new(vramest_model **out);

/**
 * @brief Create a model from a bundled preset (e.g. "llama-2-7b"). See vramest_preset_count().
 * @param[in] name NUL-terminated preset name.
 * @param[out] out the new model; the caller owns it (free with vramest_model_free()).
 * @retval VRAMEST_E_UNKNOWN_NAME no such preset (the message lists close names)
 * @since 1.0
 */
VRAMEST_API int
vramest_model_new_preset(const char *name, vramest_model **out);

/**
 * @brief Deep-copy a model.
 * @param[in] model the model to copy.
 * @param[out] out the copy; the caller owns it.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_model_clone(const vramest_model *model, vramest_model **out);

/**
 * @brief Free a model. NULL is accepted.
 * @param[in] model the model to free, or NULL.
 * @since 1.0
 */
VRAMEST_API void
vramest_model_free(vramest_model *model);

/**
 * @brief Set an integer, bool or enum option of a model.
 * @param[in,out] model the model.
 * @param[in] key the option; a key of the model (1000-1999) range.
 * @param[in] value the value (0/1 for BOOL, the enum value for ENUM).
 * @retval VRAMEST_OK ok
 * @retval VRAMEST_E_UNKNOWN_OPTION unknown key
 * @retval VRAMEST_E_WRONG_HANDLE the key is not a model option
 * @retval VRAMEST_E_TYPE the option is not I64/BOOL/ENUM
 * @retval VRAMEST_E_RANGE out of bounds (the message gives them); the model is unchanged
 * @since 1.0
 */
VRAMEST_API int
vramest_model_set_i64(vramest_model *model, vramest_option key, int64_t value);

/**
 * @brief Set a floating-point option of a model (integral values are accepted for I64 options).
 * @param[in,out] model the model.
 * @param[in] key the option; a key of the model (1000-1999) range.
 * @param[in] value the value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_model_set_f64(vramest_model *model, vramest_option key, double value);

/**
 * @brief Set a string option, or an enum option by name.
 * @param[in,out] model the model.
 * @param[in] key the option; a key of the model (1000-1999) range.
 * @param[in] value NUL-terminated UTF-8 text, or the name of an enum value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_model_set_str(vramest_model *model, vramest_option key, const char *value);

/**
 * @brief Get an integer/bool/enum option: the value set, or the effective default
 *        (e.g. num_key_value_heads defaults to num_attention_heads).
 * @param[in] model the model.
 * @param[in] key the option; a key of the model (1000-1999) range.
 * @param[out] out the value.
 * @retval VRAMEST_E_INCOMPLETE_MODEL the option is unset and has no default
 * @since 1.0
 */
VRAMEST_API int
vramest_model_get_i64(const vramest_model *model, vramest_option key, int64_t *out);

/**
 * @brief Get a floating-point option.
 * @param[in] model the model.
 * @param[in] key the option; a key of the model (1000-1999) range.
 * @param[out] out the value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_model_get_f64(const vramest_model *model, vramest_option key, double *out);

/**
 * @brief Get a string option, or the name of an enum option's value.
 * @param[in] model the model.
 * @param[in] key the option; a key of the model (1000-1999) range.
 * @param[out] out borrowed string, valid until the model is modified or freed.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_model_get_str(const vramest_model *model, vramest_option key, const char **out);

/**
 * @brief Return an option to unset / its default.
 * @param[in,out] model the model.
 * @param[in] key the option; a key of the model (1000-1999) range.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_model_reset(vramest_model *model, vramest_option key);

/**
 * @brief Parse a source from memory into the model, merging with what it holds.
 *
 * Architecture comes from config.json, exact tensors from headers; parsing
 * several sources merges them. A conflict (config says 32 layers, tensors
 * show 30) is ::VRAMEST_E_CONFLICT with both values in the message. On
 * failure the model is unchanged.
 * @param[in,out] model the model.
 * @param[in] kind a ::vramest_source (AUTO detects).
 * @param[in] data the bytes (need not be NUL-terminated).
 * @param[in] len their length.
 * @param[out] out_needed may be NULL; with ::VRAMEST_E_NEED_MORE_DATA, the total
 *             number of bytes of the file's prefix the parser needs.
 * @retval VRAMEST_E_NEED_MORE_DATA the buffer is a too-short prefix
 * @retval VRAMEST_E_PARSE malformed data (the message has the byte offset)
 * @retval VRAMEST_E_UNKNOWN_MODEL_TYPE unsupported model_type
 * @retval VRAMEST_E_INCOMPLETE_MODEL a required key is missing
 * @retval VRAMEST_E_LIMIT a safety limit was exceeded
 * @since 1.0
 */
VRAMEST_API int
vramest_model_parse(vramest_model *model, vramest_source kind, const void *data,
                    size_t len, size_t *out_needed);

/**
 * @brief Parse a file or a model directory into the model.
 *
 * The same as vramest_model_parse_path() with no flags: only regular files
 * are read, and the files a directory or an index names must resolve inside
 * that directory.
 * @param[in,out] model the model.
 * @param[in] kind a ::vramest_source (AUTO detects from the name and content).
 * @param[in] path UTF-8 path: config.json, .safetensors, index .json, .gguf or a directory.
 * @retval VRAMEST_E_IO the file cannot be read, is not a regular file, or
 *         is a link out of the model directory
 * @since 1.0
 */
VRAMEST_API int
vramest_model_parse_file(vramest_model *model, vramest_source kind, const char *path);

/** @brief Flags of vramest_model_parse_path() (a bit set). @since 1.0 */
typedef enum vramest_parse_flag {
    VRAMEST_PARSE_DEFAULT = 0, /**< the rules of vramest_model_parse_file() */
    /** Follow links that a model directory or an index's directory holds to
     *  files outside that directory. Without it such a link is
     *  ::VRAMEST_E_IO: a user who writes the directory could otherwise make
     *  the library read any file the process can (docs/security.md). The
     *  Hugging Face hub cache (`models--ORG--NAME/snapshots/REV` linking into
     *  `../../blobs`) needs no flag: there the repository folder counts as
     *  the model's directory. */
    VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS = 1,
    VRAMEST_PARSE_FLAG_MAX_ = 0x7FFFFFFF
} vramest_parse_flag;

/**
 * @brief Parse a file or a model directory into the model, with flags.
 *
 * Whatever the flags, only regular files are opened: a FIFO, a device, a
 * socket or a directory where a file is expected is ::VRAMEST_E_IO, and no
 * open or read blocks. A path the caller names itself may be a link to
 * anywhere; the files a directory or an index names (config.json, shards,
 * the GGUF file) must resolve inside that directory unless `flags` has
 * ::VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS.
 * @param[in,out] model the model (unchanged on failure).
 * @param[in] kind a ::vramest_source (AUTO detects from the name and content).
 * @param[in] path UTF-8 path: config.json, .safetensors, index .json, .gguf or a directory.
 * @param[in] flags ::vramest_parse_flag bits, or 0.
 * @retval VRAMEST_E_IO the file cannot be read, is not a regular file, or
 *         is a link out of the model directory
 * @retval VRAMEST_E_INVALID_ARG an unknown flag bit, a NULL or empty path
 * @since 1.0
 */
VRAMEST_API int
vramest_model_parse_path(vramest_model *model, vramest_source kind, const char *path, int flags);

/**
 * @brief Check that the model is complete and consistent.
 * @param[in] model the model.
 * @retval VRAMEST_OK ok
 * @retval VRAMEST_E_INCOMPLETE_MODEL / VRAMEST_E_INVALID_MODEL with the reason in the message
 * @since 1.0
 */
VRAMEST_API int
vramest_model_validate(const vramest_model *model);

/**
 * @brief Parameter counts of the model class (`model.num_parameters()`), tied weights once.
 * @param[in] model the model.
 * @param[out] out_total all parameters (may be NULL).
 * @param[out] out_active parameters used per token (MoE: active experts; may be NULL).
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_model_param_count(const vramest_model *model, uint64_t *out_total, uint64_t *out_active);

/**
 * @brief Number of bundled model presets.
 * @return the number of presets.
 * @since 1.0
 */
VRAMEST_API uint32_t
vramest_preset_count(void);

/**
 * @brief Name of the i-th preset, or NULL when out of range.
 * @param[in] index position, from 0.
 * @return a static string, or NULL when out of range.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_preset_name(uint32_t index);

/** @} */

/* ===================================================================== */
/** @defgroup precision Precision policy
 *  @{ */

/**
 * @brief Storage and compute dtypes. Values are pinned; GGUF tensor types are
 *        100 + their ggml type id; GGUF file mixes (q4_k_m, ...) are 300+.
 * @since 1.0
 */
typedef enum vramest_dtype {
    VRAMEST_DTYPE_AUTO = 0,     /**< decided from the model / the other settings */
    VRAMEST_DTYPE_FP32 = 1,     /**< "fp32" (also "f32", "float32") */
    VRAMEST_DTYPE_FP16 = 2,     /**< "fp16" (also "f16", "float16") */
    VRAMEST_DTYPE_BF16 = 3,     /**< "bf16" (also "bfloat16") */
    VRAMEST_DTYPE_FP8_E4M3 = 4, /**< "fp8" / "fp8_e4m3" */
    VRAMEST_DTYPE_FP8_E5M2 = 5, /**< "fp8_e5m2" */
    VRAMEST_DTYPE_INT8 = 6,     /**< "int8" */
    VRAMEST_DTYPE_INT4 = 7,     /**< "int4" */
    VRAMEST_DTYPE_NF4 = 8,      /**< "nf4" (bitsandbytes) */
    VRAMEST_DTYPE_FP4 = 9,      /**< "fp4" (bitsandbytes) */
    VRAMEST_DTYPE_FP64 = 10,    /**< "fp64" */
    VRAMEST_DTYPE_INT64 = 11,   /**< "int64" */
    VRAMEST_DTYPE_INT32 = 12,   /**< "int32" */
    VRAMEST_DTYPE_INT16 = 13,   /**< "int16" */
    VRAMEST_DTYPE_UINT8 = 14,   /**< "uint8" */
    VRAMEST_DTYPE_BOOL = 15,    /**< "bool" */
    VRAMEST_DTYPE_NONE = 16,    /**< "none" (e.g. no master weights) */
    VRAMEST_DTYPE_MAX_ = 0x7FFFFFFF
} vramest_dtype;

/**
 * @brief Name of a dtype value, or NULL if unknown.
 * @param[in] dtype a ::vramest_dtype value.
 * @return a static string, or NULL for an unknown value.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_dtype_name(int dtype);

/**
 * @brief Look a dtype up by name (case-insensitive; aliases accepted).
 * @param[in] name NUL-terminated name.
 * @param[out] out the ::vramest_dtype value.
 * @retval VRAMEST_E_UNKNOWN_NAME unknown name
 * @since 1.0
 */
VRAMEST_API int
vramest_dtype_from_name(const char *name, int *out);

/**
 * @brief Storage layout of a dtype: a block of `block_elems` elements takes
 *        `block_bytes` bytes (scales and zero points included where they are per block).
 * @param[in] dtype a ::vramest_dtype value.
 * @param[out] out_block_elems elements per block.
 * @param[out] out_block_bytes bytes per block.
 * @retval VRAMEST_E_UNSUPPORTED a policy-only value (auto, none, file mixes)
 * @since 1.0
 */
VRAMEST_API int
vramest_dtype_layout(int dtype, uint64_t *out_block_elems, uint64_t *out_block_bytes);

/**
 * @brief Create a precision policy with defaults (everything "auto").
 * @param[out] out the new policy; the caller owns it (free with vramest_precision_free()).
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_new(vramest_precision **out);

/**
 * @brief Create a precision policy from a preset name: fp32, fp16, bf16,
 *        amp_fp16, amp_bf16, mixed_bf16, mixed_fp16, int8, nf4, fp4, or any dtype name.
 * @param[in] name NUL-terminated preset name.
 * @param[out] out the new policy; the caller owns it (free with vramest_precision_free()).
 * @retval VRAMEST_E_UNKNOWN_NAME no such preset
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_new_preset(const char *name, vramest_precision **out);

/**
 * @brief Overwrite every setting of a policy with a preset's.
 * @param[in,out] prec the policy.
 * @param[in] name NUL-terminated preset name (as for vramest_precision_new_preset()).
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_apply_preset(vramest_precision *prec, const char *name);

/**
 * @brief Deep-copy a policy.
 * @param[in] prec the precision policy to copy.
 * @param[out] out the copy; the caller owns it.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_clone(const vramest_precision *prec, vramest_precision **out);

/**
 * @brief Free a policy. NULL is accepted.
 * @param[in] prec the precision policy to free, or NULL.
 * @since 1.0
 */
VRAMEST_API void
vramest_precision_free(vramest_precision *prec);

/**
 * @brief Set an integer/bool/enum precision option. Errors as vramest_model_set_i64().
 * @param[in,out] prec the precision policy.
 * @param[in] key the option; a key of the precision (2000-2999) range.
 * @param[in] value the value (0/1 for BOOL, the enum value for ENUM).
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_set_i64(vramest_precision *prec, vramest_option key, int64_t value);

/**
 * @brief Set a floating-point precision option.
 * @param[in,out] prec the precision policy.
 * @param[in] key the option; a key of the precision (2000-2999) range.
 * @param[in] value the value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_set_f64(vramest_precision *prec, vramest_option key, double value);

/**
 * @brief Set a string precision option, or an enum option by name.
 * @param[in,out] prec the precision policy.
 * @param[in] key the option; a key of the precision (2000-2999) range.
 * @param[in] value NUL-terminated UTF-8 text, or the name of an enum value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_set_str(vramest_precision *prec, vramest_option key, const char *value);

/**
 * @brief Get an integer/bool/enum precision option.
 * @param[in] prec the precision policy.
 * @param[in] key the option; a key of the precision (2000-2999) range.
 * @param[out] out the value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_get_i64(const vramest_precision *prec, vramest_option key, int64_t *out);

/**
 * @brief Get a floating-point precision option.
 * @param[in] prec the precision policy.
 * @param[in] key the option; a key of the precision (2000-2999) range.
 * @param[out] out the value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_get_f64(const vramest_precision *prec, vramest_option key, double *out);

/**
 * @brief Get a string precision option (borrowed; valid until the policy changes).
 * @param[in] prec the precision policy.
 * @param[in] key the option; a key of the precision (2000-2999) range.
 * @param[out] out a borrowed string, valid until the precision policy is modified or freed.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_get_str(const vramest_precision *prec, vramest_option key, const char **out);

/**
 * @brief Return a precision option to its default.
 * @param[in,out] prec the precision policy.
 * @param[in] key the option; a key of the precision (2000-2999) range.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_precision_reset(vramest_precision *prec, vramest_option key);

/** @} */

/* ===================================================================== */
/** @defgroup config Workload configuration
 *  @{ */

/**
 * @brief Create a workload configuration with every option at its default.
 * @param[out] out the new configuration; the caller owns it (free with vramest_config_free()).
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_config_new(vramest_config **out);

/**
 * @brief Deep-copy a configuration.
 * @param[in] cfg the configuration to copy.
 * @param[out] out the copy; the caller owns it.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_config_clone(const vramest_config *cfg, vramest_config **out);

/**
 * @brief Free a configuration. NULL is accepted.
 * @param[in] cfg the configuration to free, or NULL.
 * @since 1.0
 */
VRAMEST_API void
vramest_config_free(vramest_config *cfg);

/**
 * @brief Set an integer/bool/enum config option. Errors as vramest_model_set_i64().
 * @param[in,out] cfg the configuration.
 * @param[in] key the option; a key of the config (3000-3999) range.
 * @param[in] value the value (0/1 for BOOL, the enum value for ENUM).
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_config_set_i64(vramest_config *cfg, vramest_option key, int64_t value);

/**
 * @brief Set a floating-point config option.
 * @param[in,out] cfg the configuration.
 * @param[in] key the option; a key of the config (3000-3999) range.
 * @param[in] value the value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_config_set_f64(vramest_config *cfg, vramest_option key, double value);

/**
 * @brief Set a string config option, or an enum option by name.
 * @param[in,out] cfg the configuration.
 * @param[in] key the option; a key of the config (3000-3999) range.
 * @param[in] value NUL-terminated UTF-8 text, or the name of an enum value.
 * @retval VRAMEST_E_UNKNOWN_NAME e.g. an unknown device name (the message lists close names)
 * @since 1.0
 */
VRAMEST_API int
vramest_config_set_str(vramest_config *cfg, vramest_option key, const char *value);

/**
 * @brief Get an integer/bool/enum config option.
 * @param[in] cfg the configuration.
 * @param[in] key the option; a key of the config (3000-3999) range.
 * @param[out] out the value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_config_get_i64(const vramest_config *cfg, vramest_option key, int64_t *out);

/**
 * @brief Get a floating-point config option.
 * @param[in] cfg the configuration.
 * @param[in] key the option; a key of the config (3000-3999) range.
 * @param[out] out the value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_config_get_f64(const vramest_config *cfg, vramest_option key, double *out);

/**
 * @brief Get a string config option (borrowed; valid until the config changes).
 * @param[in] cfg the configuration.
 * @param[in] key the option; a key of the config (3000-3999) range.
 * @param[out] out a borrowed string, valid until the configuration is modified or freed.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_config_get_str(const vramest_config *cfg, vramest_option key, const char **out);

/**
 * @brief Return a config option to its default.
 * @param[in,out] cfg the configuration.
 * @param[in] key the option; a key of the config (3000-3999) range.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_config_reset(vramest_config *cfg, vramest_option key);

/**
 * @brief The other models a job runs beside the one passed to vramest_estimate() (the policy, or the
 *        served model), by the part they play. Append-only.
 * @since 1.0
 */
typedef enum vramest_role {
    VRAMEST_ROLE_REFERENCE = 1, /**< RL: the frozen reference whose log-probs the KL term compares (same tokenizer) */
    VRAMEST_ROLE_REWARD = 2,    /**< RL: the reward model, a sequence-classification head scoring each completion */
    VRAMEST_ROLE_CRITIC = 3,    /**< RL (PPO): the value model, trained beside the policy */
    VRAMEST_ROLE_DRAFT = 4,     /**< serving: the draft model of speculative decoding */
    VRAMEST_ROLE_MAX_ = 0x7FFFFFFF /**< keeps the enum 32-bit; not a role */
} vramest_role;

/**
 * @brief Name another model of the job by its role (a reference, reward or critic model of its own for
 *        mode rl; a draft model for speculative decoding), with its own precision.
 *
 * The configuration keeps its own copies: `model` is cloned (vramest_model_clone()) and `prec` too, so
 * the caller keeps ownership of both and may change or free them right after; later changes to them do
 * not reach the configuration. vramest_config_clone() copies the role models with the rest, and
 * vramest_config_free() frees them. Setting a role again replaces its model; a NULL `model` removes it
 * (the role then takes its default: see the rl options). A model that does not validate is refused here.
 *
 * Thread-safety: as the other setters, the call must not overlap any other call on `cfg`; `model` and
 * `prec` are only read, so other threads may read them meanwhile, but none may change them.
 * @param[in,out] cfg the configuration.
 * @param[in] role a ::vramest_role.
 * @param[in] model the model, or NULL to remove the role's model.
 * @param[in] prec its precision policy, or NULL for the job's (the precision passed to vramest_estimate()).
 * @retval VRAMEST_E_RANGE `role` is no ::vramest_role
 * @retval VRAMEST_E_INVALID_ARG `cfg`, `model` or `prec` is not a handle of its kind, or `prec` without `model`
 * @retval VRAMEST_E_NOMEM out of memory (the configuration is unchanged)
 * @return ::VRAMEST_OK, or a negative ::vramest_status (the model's own status when it does not validate).
 * @since 1.0
 */
VRAMEST_API int
vramest_config_set_role_model(vramest_config *cfg, int role, const vramest_model *model,
                              const vramest_precision *prec);

/**
 * @brief The model a configuration names for a role, and its precision (borrowed).
 *
 * Both pointers are the configuration's own copies: valid until the role is set again or the
 * configuration is freed; read them (estimate with them, get their options), never free or change them.
 * @param[in] cfg the configuration.
 * @param[in] role a ::vramest_role.
 * @param[out] out_model the role's model, NULL when it has none (may be NULL).
 * @param[out] out_prec its own precision, NULL when it runs at the job's (may be NULL).
 * @retval VRAMEST_E_RANGE `role` is no ::vramest_role
 * @retval VRAMEST_E_INVALID_ARG `cfg` is not a configuration
 * @since 1.0
 */
VRAMEST_API int
vramest_config_get_role_model(const vramest_config *cfg, int role, const vramest_model **out_model,
                              const vramest_precision **out_prec);

/**
 * @brief Number of bundled GPU presets (for the "device" option).
 * @return the number of GPU presets.
 * @since 1.0
 */
VRAMEST_API uint32_t
vramest_gpu_count(void);

/**
 * @brief Name and usable memory of the i-th GPU preset.
 * @param[in] index position, from 0 (see vramest_gpu_count()).
 * @param[out] out_name static string (may be NULL).
 * @param[out] out_bytes memory in bytes (may be NULL).
 * @retval VRAMEST_E_RANGE index out of range
 * @since 1.0
 */
VRAMEST_API int
vramest_gpu_info(uint32_t index, const char **out_name, uint64_t *out_bytes);

/** @} */

/* ===================================================================== */
/** @defgroup estimate Estimate and result
 *  @{ */

/** @brief Device classes of a result. @since 1.0 */
typedef enum vramest_device {
    VRAMEST_DEV_GPU = 0,  /**< each GPU (the worst rank) */
    VRAMEST_DEV_HOST = 1, /**< host RAM (offloaded states, pinned buffers, CPU layers) */
    VRAMEST_DEV_NVME = 2, /**< NVMe (ZeRO-Infinity offload) */
    VRAMEST_DEV_MAX_ = 0x7FFFFFFF
} vramest_device;

/**
 * @brief Memory categories, dense from 0, append-only.
 *
 * On the GPU, `peak_allocated` is the sum of every category except
 * FRAMEWORK and ALLOCATOR; `peak_reserved` adds ALLOCATOR; `device_total`
 * adds FRAMEWORK. Categories are the breakdown at the peak instant.
 * @since 1.0
 */
typedef enum vramest_category {
    VRAMEST_CAT_WEIGHTS = 0,          /**< "weights": model parameters as stored for the step */
    VRAMEST_CAT_MASTER_WEIGHTS = 1,   /**< "master_weights": fp32 master copies (mixed precision) */
    VRAMEST_CAT_GRADIENTS = 2,        /**< "gradients" */
    VRAMEST_CAT_OPTIMIZER_STATES = 3, /**< "optimizer_states" */
    VRAMEST_CAT_ACTIVATIONS = 4,      /**< "activations": tensors saved for backward and forward transients */
    VRAMEST_CAT_KV_CACHE = 5,         /**< "kv_cache" */
    VRAMEST_CAT_LOGITS = 6,           /**< "logits": logits, their fp32 copies and loss buffers */
    VRAMEST_CAT_ADAPTER = 7,          /**< "adapter": PEFT weights, gradients and states */
    VRAMEST_CAT_WORKSPACE = 8,        /**< "workspace": cuBLAS / kernel scratch, optimizer-step temporaries */
    VRAMEST_CAT_FRAMEWORK = 9,        /**< "framework": CUDA context, NCCL buffers (not in reserved) */
    VRAMEST_CAT_ALLOCATOR = 10,       /**< "allocator": reserved minus allocated */
    VRAMEST_CAT_STATE_CACHE = 11,     /**< "state_cache": per-sequence recurrent and convolution state of Mamba and linear-attention layers (does not grow with tokens) @since 1.0 */
    VRAMEST_CAT_MAX_ = 0x7FFFFFFF
} vramest_category;

/** @brief Scalar figures of a result, read with vramest_result_value(). @since 1.0 */
typedef enum vramest_value {
    VRAMEST_VAL_PARAMS_TOTAL = 0,     /**< parameter count (not bytes) */
    VRAMEST_VAL_PARAMS_TRAINABLE = 1, /**< trainable parameter count */
    VRAMEST_VAL_PEAK_ALLOCATED = 2,   /**< bytes: what torch.cuda.max_memory_allocated() reports */
    VRAMEST_VAL_PEAK_RESERVED = 3,    /**< bytes: what torch.cuda.max_memory_reserved() reports */
    VRAMEST_VAL_DEVICE_TOTAL = 4,     /**< bytes: what nvidia-smi shows for the process */
    VRAMEST_VAL_DEVICE_CAPACITY = 5,  /**< bytes of the device (0 = no device given) */
    VRAMEST_VAL_FITS = 6,             /**< 1 fits, 0 does not; ::VRAMEST_E_UNSUPPORTED without a device */
    VRAMEST_VAL_CHECKPOINT_BYTES = 7, /**< bytes of the checkpoint at its stored dtype */
    VRAMEST_VAL_PEAK_PHASE = 8,       /**< a ::vramest_phase */
    VRAMEST_VAL_HOST_TOTAL = 9,       /**< bytes of host RAM */
    VRAMEST_VAL_NVME_TOTAL = 10,      /**< bytes on NVMe */
    VRAMEST_VAL_PARAMS_ACTIVE = 11,   /**< parameters used per token (MoE) */
    VRAMEST_VAL_KV_POOL_BYTES = 12,   /**< bytes of the serving KV pool (vLLM) */
    VRAMEST_VAL_KV_BLOCKS = 13,       /**< KV blocks in the pool (vLLM) */
    VRAMEST_VAL_MAX_TOKENS = 14,      /**< tokens the KV pool holds */
    VRAMEST_VAL_LOAD_PEAK = 15,       /**< bytes: transient peak while loading/quantizing */
    VRAMEST_VAL_VERDICT = 16,         /**< a ::vramest_verdict; ::VRAMEST_E_UNSUPPORTED without a device @since 1.0 */
    VRAMEST_VAL_HEADROOM = 17,        /**< bytes kept free per GPU (headroom_gib + headroom_fraction x capacity) @since 1.0 */
    VRAMEST_VAL_STATE_PER_SEQ = 18,   /**< bytes of one sequence's recurrent + convolution state on a GPU (state-space / linear-attention layers; 0 without) @since 1.0 */
    VRAMEST_VAL_MAX_CONCURRENCY = 19, /**< serving: sequences of max_model_len (vLLM, SGLang) or of n_ctx per slot the KV pool holds at once @since 1.0 */
    VRAMEST_VAL_CUDA_GRAPH_BYTES = 20, /**< serving: bytes of the engine's captured CUDA graphs per GPU (0 with enforce_eager) @since 1.0 */
    VRAMEST_VAL_NON_TORCH_BYTES = 21, /**< serving: bytes outside PyTorch's allocator the engine's profiler charges per GPU (CUDA context, NCCL, custom all-reduce) @since 1.0 */
    VRAMEST_VAL_GPU_LAYERS = 22,      /**< serving: layers the engine itself puts on the GPUs (Ollama's scheduler; llama.cpp's n_gpu_layers, output layer counted) @since 1.0 */
    VRAMEST_VAL_GPU_LAYERS_FIT = 23,  /**< serving: most layers that actually fit the GPUs (llama.cpp, Ollama) @since 1.0 */
    VRAMEST_VAL_MAX_ = 0x7FFFFFFF
} vramest_value;

/**
 * @brief The verdict of a job on its device (::VRAMEST_VAL_VERDICT).
 *
 * The headline figures come with bands from measurements: peak_allocated's
 * holds at least 90% of the trustworthy measured runs of jobs of the same
 * kind (load, inference, serving, training), and peak_reserved's and
 * device_total's combine it with the measured fragmentation of the caching
 * allocator and the CUDA context's range (docs/methodology.md, "Bands of
 * the headline figures"). The verdict compares the band of `device_total` with the usable
 * memory, the device's capacity minus the headroom. `fits`
 * (::VRAMEST_VAL_FITS) stays the comparison of the estimate itself.
 * @since 1.0
 */
typedef enum vramest_verdict {
    VRAMEST_VERDICT_DOES_NOT_FIT = 0, /**< "does_not_fit": even the band's low end exceeds the usable memory, or the engine refuses the job */
    VRAMEST_VERDICT_FITS_LOW_END = 1, /**< "fits_low_end": the usable memory is inside the band: it fits only if the run lands in its lower part */
    VRAMEST_VERDICT_FITS = 2,         /**< "fits": the band's high end fits */
    VRAMEST_VERDICT_MAX_ = 0x7FFFFFFF
} vramest_verdict;

/** @brief Phases of a step, where the peak can happen. @since 1.0 */
typedef enum vramest_phase {
    VRAMEST_PHASE_LOAD = 0,      /**< "load" */
    VRAMEST_PHASE_FORWARD = 1,   /**< "forward" */
    VRAMEST_PHASE_BACKWARD = 2,  /**< "backward" */
    VRAMEST_PHASE_OPTIMIZER = 3, /**< "optimizer" */
    VRAMEST_PHASE_PREFILL = 4,   /**< "prefill" */
    VRAMEST_PHASE_DECODE = 5,    /**< "decode" */
    VRAMEST_PHASE_MAX_ = 0x7FFFFFFF
} vramest_phase;

/** @brief How a figure was obtained. @since 1.0 */
typedef enum vramest_provenance {
    VRAMEST_PROV_NONE = 0,              /**< "none": the figure is zero / not applicable */
    VRAMEST_PROV_EXACT_FILE = 1,        /**< "exact-from-file": tensor table of a file */
    VRAMEST_PROV_EXACT_ARCH = 2,        /**< "exact-from-architecture": derived from the architecture */
    VRAMEST_PROV_FORMULA = 3,           /**< "formula": a documented formula of framework behaviour */
    VRAMEST_PROV_EMPIRICAL = 4,         /**< "empirical-constant": a measured constant (context, fragmentation) */
    VRAMEST_PROV_APPROXIMATE = 5,       /**< "approximate": a generic decoder's layout stands in for a family
                                             libvramest does not know (@since 1.0, issue #16) */
    VRAMEST_PROV_MAX_ = 0x7FFFFFFF
} vramest_provenance;

/**
 * @brief Estimate memory for a model under a precision policy and a workload.
 *
 * Copies everything it needs: after it returns, the inputs may be modified
 * or freed. Allocates only the result. Safe to call concurrently on shared
 * const inputs.
 * @param[in] model the model (must validate).
 * @param[in] prec the precision policy, or NULL for the defaults.
 * @param[in] cfg the workload, or NULL for the defaults.
 * @param[out] out the result; the caller owns it (vramest_result_free()).
 * @retval VRAMEST_E_UNSUPPORTED a setting whose effect is not modelled (named in the message)
 * @retval VRAMEST_E_INVALID_MODEL / VRAMEST_E_INCOMPLETE_MODEL the model does not validate
 * @retval VRAMEST_E_CONFLICT settings that contradict each other
 * @retval VRAMEST_E_OVERFLOW a size beyond 64 bits
 * @since 1.0
 */
VRAMEST_API int
vramest_estimate(const vramest_model *model, const vramest_precision *prec,
                 const vramest_config *cfg, vramest_result **out);

/**
 * @brief Free a result. NULL is accepted.
 * @param[in] res the result to free, or NULL.
 * @since 1.0
 */
VRAMEST_API void
vramest_result_free(vramest_result *res);

/**
 * @brief Bytes of one category on one device class.
 * @param[in] res the result.
 * @param[in] dev the device class.
 * @param[in] cat the category.
 * @param[out] out_bytes the bytes.
 * @retval VRAMEST_E_UNKNOWN_CATEGORY unknown device or category
 * @since 1.0
 */
VRAMEST_API int
vramest_result_get(const vramest_result *res, vramest_device dev,
                   vramest_category cat, uint64_t *out_bytes);

/**
 * @brief Low/high band of one category's bytes.
 * @param[in] res the result.
 * @param[in] dev the device class.
 * @param[in] cat the category.
 * @param[out] out_low the low end of the band, in bytes.
 * @param[out] out_high the high end of the band, in bytes.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_result_get_band(const vramest_result *res, vramest_device dev,
                        vramest_category cat, uint64_t *out_low, uint64_t *out_high);

/**
 * @brief Provenance (a ::vramest_provenance) of one category.
 * @param[in] res the result.
 * @param[in] dev the device class.
 * @param[in] cat the category.
 * @param[out] out a ::vramest_provenance value.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_result_provenance(const vramest_result *res, vramest_device dev,
                          vramest_category cat, int *out);

/**
 * @brief Fill `out_bytes[0..n)` with every category of a device, in category order.
 * @param[in] res the result.
 * @param[in] dev the device class.
 * @param[out] out_bytes caller array of `capacity` elements.
 * @param[in] capacity number of elements of out_bytes.
 * @param[out] out_count number of categories (vramest_category_count()).
 * @retval VRAMEST_E_BUFFER_TOO_SMALL capacity < count (out_count is still set)
 * @since 1.0
 */
VRAMEST_API int
vramest_result_get_all(const vramest_result *res, vramest_device dev,
                       uint64_t *out_bytes, size_t capacity, size_t *out_count);

/**
 * @brief A scalar figure (see ::vramest_value).
 * @param[in] res the result.
 * @param[in] key the figure.
 * @param[out] out its value.
 * @retval VRAMEST_E_UNKNOWN_CATEGORY unknown value key
 * @retval VRAMEST_E_UNSUPPORTED the figure does not apply (e.g. FITS without a device)
 * @since 1.0
 */
VRAMEST_API int
vramest_result_value(const vramest_result *res, vramest_value key, uint64_t *out);

/**
 * @brief Low/high band of a byte figure (PEAK_*, DEVICE_TOTAL).
 * @param[in] res the result.
 * @param[in] key a byte figure: PEAK_ALLOCATED, PEAK_RESERVED or DEVICE_TOTAL.
 * @param[out] out_low the low end of the band, in bytes.
 * @param[out] out_high the high end of the band, in bytes.
 * @return ::VRAMEST_OK, or a negative ::vramest_status.
 * @since 1.0
 */
VRAMEST_API int
vramest_result_value_band(const vramest_result *res, vramest_value key,
                          uint64_t *out_low, uint64_t *out_high);

/**
 * @brief Number of warnings attached to a result (e.g. seq_len beyond the trained context).
 * @param[in] res the result.
 * @return the number of warnings.
 * @since 1.0
 */
VRAMEST_API uint32_t
vramest_result_warning_count(const vramest_result *res);

/**
 * @brief The i-th warning (owned by the result), or NULL.
 * @param[in] res the result.
 * @param[in] index position, from 0.
 * @return a string owned by the result (valid until it is freed), or NULL when out of range.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_result_warning(const vramest_result *res, uint32_t index);

/**
 * @brief Number of distinct rank groups of a multi-GPU estimate.
 *
 * Ranks differ: the first pipeline stage holds the embeddings and the most
 * in-flight micro-batches, the last one the LM head and the loss; a
 * device_map placement puts different layers on each GPU. Each group is one
 * breakdown shared by vramest_result_rank_get(..., "ranks") ranks; the
 * headline GPU figures of the result are those of the worst group. An
 * estimate on one GPU has no groups (0).
 * @param[in] res the result.
 * @return the number of groups (0 for NULL or a single-GPU estimate).
 * @since 1.0
 */
VRAMEST_API uint32_t
vramest_result_rank_count(const vramest_result *res);

/**
 * @brief Bytes of one category on the GPUs of one rank group.
 *
 * `category` is a ::vramest_category, or one of the headline values
 * ::VRAMEST_VAL_PEAK_ALLOCATED, ::VRAMEST_VAL_PEAK_RESERVED,
 * ::VRAMEST_VAL_DEVICE_TOTAL passed as `VRAMEST_RANK_VALUE(v)`; the rank
 * count of the group is read with `VRAMEST_RANK_COUNT`.
 * @param[in] res the result.
 * @param[in] index group, from 0 (< vramest_result_rank_count()).
 * @param[in] category a category, VRAMEST_RANK_VALUE(value) or VRAMEST_RANK_COUNT.
 * @param[out] out_bytes the bytes (or the number of ranks for VRAMEST_RANK_COUNT).
 * @retval VRAMEST_E_INVALID_ARG NULL result or out_bytes
 * @retval VRAMEST_E_RANGE index out of range (the message gives the count)
 * @retval VRAMEST_E_UNKNOWN_CATEGORY no such category or value
 * @since 1.0
 */
VRAMEST_API int
vramest_result_rank_get(const vramest_result *res, uint32_t index, int category, uint64_t *out_bytes);

/** @brief `category` of vramest_result_rank_get() that reads headline value `v`. @since 1.0 */
#define VRAMEST_RANK_VALUE(v) (0x10000 + (int)(v))
/** @brief `category` of vramest_result_rank_get() that reads the number of ranks of the group. @since 1.0 */
#define VRAMEST_RANK_COUNT 0x20000

/**
 * @brief Label of one rank group, e.g. "pp stage 0 (embed, layers 0-6) worst" or "cuda:1 (layers 14-27, head)".
 * @param[in] res the result.
 * @param[in] index group, from 0.
 * @return a string owned by the result, or NULL when out of range.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_result_rank_label(const vramest_result *res, uint32_t index);

/**
 * @brief The whole plan as JSON (design §6 result fields, the echoed settings and assumptions).
 * @param[in] res the result.
 * @param[out] buf caller buffer (may be NULL when cap is 0).
 * @param[in] cap its size in bytes.
 * @param[out] out_needed bytes needed including the terminating NUL (may be NULL).
 * @retval VRAMEST_E_BUFFER_TOO_SMALL cap is too small (nothing useful is written)
 * @since 1.0
 */
VRAMEST_API int
vramest_result_json(const vramest_result *res, char *buf, size_t cap, size_t *out_needed);

/**
 * @brief Number of categories (runtime, not a macro).
 * @return the number of categories.
 * @since 1.0
 */
VRAMEST_API uint32_t
vramest_category_count(void);

/**
 * @brief Name of a category ("kv_cache"), or NULL.
 * @param[in] cat the category.
 * @return a static string, or NULL for an unknown value.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_category_name(vramest_category cat);

/**
 * @brief Name of a device class ("gpu", "host", "nvme"), or NULL.
 * @param[in] dev the device class.
 * @return a static string, or NULL for an unknown value.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_device_name(vramest_device dev);

/**
 * @brief Name of a value key ("peak_allocated"), or NULL.
 * @param[in] key the figure.
 * @return a static string, or NULL for an unknown value.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_value_name(vramest_value key);

/**
 * @brief Name of a phase ("backward"), or NULL.
 * @param[in] phase the phase.
 * @return a static string, or NULL for an unknown value.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_phase_name(vramest_phase phase);

/**
 * @brief Name of a provenance ("exact-from-file"), or NULL.
 * @param[in] prov the provenance.
 * @return a static string, or NULL for an unknown value.
 * @since 1.0
 */
VRAMEST_API const char *
vramest_provenance_name(vramest_provenance prov);

/** @} */

/* ===================================================================== */
/** @defgroup solve Solvers
 *
 * Answers for launchers and schedulers, exact against vramest_estimate():
 * a returned value fits its device and the next value does not. They run
 * estimates on the stack: no allocation, safe on shared const inputs.
 *  @{ */

/**
 * @brief Does the job fit its device, and by how much?
 * @param[in] model the model.
 * @param[in] prec the precision policy.
 * @param[in] cfg the workload configuration, including the device.
 * @param[out] out_fits 1 if `device_total` <= the device's memory less the headroom (`headroom_gib`,
 *             `headroom_fraction`), else 0: the estimate itself; ::VRAMEST_VAL_VERDICT also weighs its band.
 * @param[out] out_margin_bytes that memory minus `device_total` (negative when it does not fit; may be NULL).
 * @retval VRAMEST_E_UNSUPPORTED the config names no device (`device` or `memory_gib`)
 * @since 1.0
 */
VRAMEST_API int
vramest_check_fit(const vramest_model *model, const vramest_precision *prec, const vramest_config *cfg,
                  int *out_fits, int64_t *out_margin_bytes);

/**
 * @brief The largest value of an integer workload option that fits the device.
 *
 * Binary search over the option's bounds (memory is monotone in these
 * options). Valid keys: batch_size, seq_len, prompt_len, gen_len, beams,
 * lora_rank, max_num_seqs, max_model_len, n_ctx, n_gpu_layers (at most the
 * model's layers + 1: everything on the GPU). "Fits" is the estimate within
 * the device's memory minus the headroom (`headroom_gib`,
 * `headroom_fraction`).
 * @param[in] model the model.
 * @param[in] prec the precision policy.
 * @param[in] cfg the workload configuration, including the device.
 * @param[in] key the option to maximise; every other setting is taken from `cfg`.
 * @param[out] out_value the largest fitting value.
 * @param[out] out_bytes `device_total` at that value (may be NULL).
 * @retval VRAMEST_E_DOES_NOT_FIT not even the smallest value fits (the message gives needed and available bytes)
 * @retval VRAMEST_E_UNSUPPORTED no device in `cfg`, or `key` is not one of the valid keys
 * @since 1.0
 */
VRAMEST_API int
vramest_solve_max(const vramest_model *model, const vramest_precision *prec, const vramest_config *cfg,
                  vramest_option key, int64_t *out_value, uint64_t *out_bytes);

/**
 * @brief The smallest number of GPUs that fits, growing the dimension the layout shards memory over.
 *
 * Inference grows tensor parallelism (tp over the divisors of the heads);
 * training with ZeRO or FSDP grows data parallelism (dp, with tp/pp/cp kept);
 * training without them grows tp, then pp. tp stays within a node (at most
 * the config's gpus_per_node); beyond it, pipeline stages of a node's tp, when
 * that takes fewer GPUs than pp alone. Plain DDP replicates the model, so
 * more GPUs never help it: that is ::VRAMEST_E_DOES_NOT_FIT with the reason.
 * @param[in] model the model.
 * @param[in] prec the precision policy.
 * @param[in] cfg the workload configuration, including the device.
 * @param[in] max_gpus the largest world size to consider (>= 1).
 * @param[out] out_gpus the smallest fitting world size.
 * @retval VRAMEST_E_DOES_NOT_FIT nothing up to max_gpus fits
 * @since 1.0
 */
VRAMEST_API int
vramest_solve_min_gpus(const vramest_model *model, const vramest_precision *prec, const vramest_config *cfg,
                       int64_t max_gpus, int64_t *out_gpus);

/**
 * @brief Advice as JSON: an array of `{"change": {spec keys}, "saves_bytes": N, "fits": bool, "device_total": N}`,
 *        cheapest change first (kernel, precision, checkpointing, 8-bit optimizer, LoRA/QLoRA, ZeRO, offload, GPUs).
 * @param[in] model the model.
 * @param[in] prec the precision policy.
 * @param[in] cfg the workload configuration, including the device.
 * @param[out] buf caller buffer; @param[in] cap its size; @param[out] out_needed bytes needed incl. NUL.
 * @retval VRAMEST_E_BUFFER_TOO_SMALL grow the buffer to *out_needed and call again
 * @since 1.0
 */
VRAMEST_API int
vramest_advise_json(const vramest_model *model, const vramest_precision *prec, const vramest_config *cfg,
                    char *buf, size_t cap, size_t *out_needed);

/** @brief The question a plan answers (vramest_plan_json()). @since 1.0 */
typedef enum vramest_question {
    VRAMEST_ASK_NONE = 0,   /**< the plan of the job as configured */
    VRAMEST_ASK_MAX = 1,    /**< "solution": the largest value of the key that fits (::VRAMEST_CFG_GPUS: the smallest) */
    VRAMEST_ASK_MIN = 2,    /**< "solution": the smallest value that fits: ::VRAMEST_CFG_GPUS, or the serving engine's share of the GPU (::VRAMEST_CFG_GPU_MEMORY_UTILIZATION for vLLM, ::VRAMEST_CFG_MEM_FRACTION_STATIC for SGLang; in hundredths, a number in the plan) */
    VRAMEST_ASK_ADVICE = 3, /**< "advice": one-change fixes, cheapest first (as vramest_advise_json()) */
    VRAMEST_ASK_MAX_ = 0x7FFFFFFF
} vramest_question;

/**
 * @brief The plan of a job as JSON, with the answer to a question: what
 *        vramest_spec_plan() writes for the equivalent spec.
 *
 * Beside vramest_result_json()'s members it holds, when the verdict is not
 * "fits", a `"why"` object: the bytes needed against the usable memory, the
 * dominant categories and `"fix"`, the cheapest one-change fix of the advice
 * that makes the verdict "fits" (or the first that makes the estimate fit),
 * and `"text"`, one sentence saying all of it. A `solution` also gives
 * `"safe_value"`, the largest value whose band's high end fits. With
 * ::VRAMEST_ASK_MAX / ::VRAMEST_ASK_MIN the plan describes the job at the
 * answer. Runs estimates on the stack; allocates nothing but a buffer for
 * long advice; safe on shared const inputs.
 * @param[in] model the model.
 * @param[in] prec the precision policy, or NULL for the defaults.
 * @param[in] cfg the workload configuration, or NULL for the defaults.
 * @param[in] question a ::vramest_question.
 * @param[in] key the option a ::VRAMEST_ASK_MAX / ::VRAMEST_ASK_MIN question searches (ignored otherwise).
 * @param[out] buf caller buffer; @param[in] cap its size; @param[out] out_needed bytes needed incl. NUL.
 * @retval VRAMEST_E_BUFFER_TOO_SMALL grow the buffer to *out_needed and call again
 * @retval VRAMEST_E_UNSUPPORTED a question without a device, or a key the solvers cannot search
 * @retval VRAMEST_E_INVALID_ARG an unknown question
 * @since 1.0
 */
VRAMEST_API int
vramest_plan_json(const vramest_model *model, const vramest_precision *prec, const vramest_config *cfg,
                  int question, vramest_option key, char *buf, size_t cap, size_t *out_needed);

/** @} */

/* ===================================================================== */
/** @defgroup spec Job specs (JSON)
 *
 * The job-spec format shared by the CLI, the Python binding and schedulers
 * (see docs/guide.md). Keys inside each object are option names.
 *  @{ */

/**
 * @brief Read a job spec into three new handles.
 *
 * `out_model` may be NULL: the "model" member must still be present, but is
 * not read — for schedulers that cache parsed models by their spec text and
 * only need each job's precision and workload.
 * @param[in] json the spec (UTF-8, need not be NUL-terminated).
 * @param[in] len its length in bytes.
 * @param[out] out_model, out_prec, out_cfg new handles the caller owns.
 * @retval VRAMEST_E_PARSE malformed JSON (with the offset)
 * @retval VRAMEST_E_UNKNOWN_OPTION an unknown key (named, with its object)
 * @since 1.0
 */
VRAMEST_API int
vramest_spec_parse(const char *json, size_t len, vramest_model **out_model,
                   vramest_precision **out_prec, vramest_config **out_cfg);

/**
 * @brief Run a whole job spec (estimate, and the `solve` question if any) and
 *        write the plan as JSON.
 * @param[in] json the spec (UTF-8, need not be NUL-terminated).
 * @param[in] len its length in bytes.
 * @param[out] buf caller buffer; @param[in] cap its size; @param[out] out_needed bytes needed incl. NUL.
 * @retval VRAMEST_E_BUFFER_TOO_SMALL grow the buffer to *out_needed and call again
 * @since 1.0
 */
VRAMEST_API int
vramest_spec_plan(const char *json, size_t len, char *buf, size_t cap, size_t *out_needed);

/**
 * @brief A model cache: models built from job specs' `"model"` members, kept
 *        so that a repeated model costs a lookup instead of a parse and a
 *        compile.
 *
 * Used by vramest_spec_plan_cached() and vramest_spec_estimate_cached(). A
 * model is keyed by what it was built from:
 * - a preset name, `"arch"` or `"hf_config"` object: its decoded JSON value
 *   (the same names, values and key order; whitespace and escapes do not
 *   matter);
 * - a file source (`"path"`, `"hf_config_file"`, `"safetensors"`, `"gguf"`):
 *   the path string and the file's device, inode, mode, size, modification
 *   and change times, plus those of every entry of the directory a model
 *   directory, an index or a `"path"` file is read from. Replacing or
 *   editing a file therefore gives a new key: a stale model is never used.
 *   Since file times move in ticks (up to 2 s on some file systems), a
 *   model whose files were modified less than 2 s before the call (or in
 *   the future) is built and not kept. Directories of more than 4096
 *   entries, and paths that cannot be stat()ed, are built each time too.
 * Models that fail to build are not kept.
 *
 * Bounds: at most `max_models` models, least recently used evicted first. A
 * cached model keeps its compiled programs; `docs/performance.md` gives the
 * measured bytes per model (tens of KiB for a preset after a training
 * estimate). A model evicted while another thread estimates on it is freed
 * when that estimate ends.
 *
 * Thread safety: unlike other handles, a cache may be used by any number
 * of threads at once through every function here except
 * vramest_cache_free(), which must not overlap any other call on the cache.
 * The cache never hands out its models: no pointer into it escapes.
 * @since 1.0
 */
typedef struct vramest_cache vramest_cache;

/**
 * @brief Create a model cache.
 * @param[in] max_models the most models it keeps, 1 to 65536.
 * @param[out] out the new cache; the caller frees it with vramest_cache_free().
 * @retval VRAMEST_E_RANGE max_models out of range
 * @retval VRAMEST_E_NOMEM out of memory
 * @since 1.0
 */
VRAMEST_API int
vramest_cache_new(uint32_t max_models, vramest_cache **out);

/**
 * @brief Free a cache and every model in it. NULL is a no-op.
 *        Must not overlap any other call on the cache.
 * @param[in] cache the cache.
 * @since 1.0
 */
VRAMEST_API void
vramest_cache_free(vramest_cache *cache);

/**
 * @brief Drop every model (calls running on one finish with it first).
 * @param[in] cache the cache.
 * @retval VRAMEST_E_INVALID_ARG not a cache
 * @since 1.0
 */
VRAMEST_API int
vramest_cache_clear(vramest_cache *cache);

/**
 * @brief Counters of a cache.
 * @param[in] cache the cache.
 * @param[out] out_hits lookups that found their model (may be NULL).
 * @param[out] out_misses lookups that built it (may be NULL; uncacheable
 *             models count neither).
 * @param[out] out_models models held now (may be NULL).
 * @retval VRAMEST_E_INVALID_ARG not a cache
 * @since 1.0
 */
VRAMEST_API int
vramest_cache_stats(const vramest_cache *cache, uint64_t *out_hits, uint64_t *out_misses, uint64_t *out_models);

/**
 * @brief vramest_spec_plan() with the model taken from (or put into) a cache.
 *
 * The plan is byte for byte the one vramest_spec_plan() writes, and so are
 * the errors, in the same order (the model is read last).
 * @param[in] cache the cache (thread-safe, see ::vramest_cache).
 * @param[in] json the spec (UTF-8, need not be NUL-terminated).
 * @param[in] len its length in bytes.
 * @param[out] buf caller buffer; @param[in] cap its size; @param[out] out_needed bytes needed incl. NUL.
 * @retval VRAMEST_E_BUFFER_TOO_SMALL grow the buffer to *out_needed and call again
 * @retval VRAMEST_E_INVALID_ARG not a cache
 * @since 1.0
 */
VRAMEST_API int
vramest_spec_plan_cached(vramest_cache *cache, const char *json, size_t len, char *buf, size_t cap,
                         size_t *out_needed);

/**
 * @brief Estimate a job spec with the model taken from (or put into) a cache.
 *
 * The result is vramest_estimate() of the spec's handles, for callers that
 * read figures through the result getters rather than a JSON plan.
 * @param[in] cache the cache (thread-safe, see ::vramest_cache).
 * @param[in] json the spec (UTF-8, need not be NUL-terminated).
 * @param[in] len its length in bytes.
 * @param[out] out the new result; the caller frees it with vramest_result_free().
 * @retval VRAMEST_E_UNSUPPORTED the spec has a `"solve"` member (use vramest_spec_plan_cached())
 * @retval VRAMEST_E_INVALID_ARG not a cache
 * @since 1.0
 */
VRAMEST_API int
vramest_spec_estimate_cached(vramest_cache *cache, const char *json, size_t len, vramest_result **out);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* VRAMEST_VRAMEST_H */
