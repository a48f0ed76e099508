/* Inference internals (issue #6), shared by the files of the inference
 * estimator only: kv_cache.c (KV layout and bytes), forward_infer.c (the
 * transients of one inference forward pass), serving_vllm.c and
 * serving_llamacpp.c (serving engines), infer.c (the Hugging Face generate
 * timeline and the dispatch). Closed forms only: no loops over tokens, no
 * allocation. */
#ifndef VX_INFER_H
#define VX_INFER_H

#include "estimate/parallel/parallel.h"

/* Layers of one rank that cache alike: their K and V elements per token
 * and the tokens the runtime keeps (0: all). */
typedef struct vx_kv_group {
    int64_t layers;
    int64_t window;
    uint64_t k_elems, v_elems;
    uint64_t idx_bytes; /* plain bytes per token beside K/V, never quantized as they are nor windowed: a
                           sparse-attention indexer's key; fp8_ds_mla's scales and bf16 rope */
} vx_kv_group;
#define VX_KV_GROUPS VX_MAX_KINDS

/* The KV cache of one rank, per token and per layer. */
typedef struct vx_kv_layout {
    int engine;                    /* VX_ENGINE_* (runtime.h): transformers caches (DynamicCache, legacy
                                      tuples, HybridCache, QuantizedCache); vLLM's paged blocks, MLA as
                                      one latent per token; llama.cpp's ggml K/V buffers for n_ctx cells,
                                      MLA latent K + V */
    int dtype;                     /* element dtype (a plain dtype, or a GGUF block type for llama.cpp) */
    int hf_quantized;              /* transformers QuantizedCache (int8 / int4): group scales + a residual */
    int residual_dtype;            /* dtype of that full-precision residual (the compute dtype) */
    int static_cache;              /* allocated at its final length before prefill (HybridCache) */
    int mla_latent;                /* MLA cached as the compressed latent (kv_lora_rank + rope) */
    uint32_t blk_elems, blk_bytes; /* the dtype's block (1 and its size for plain dtypes), looked up once */
    uint32_t residual_bytes;       /* bytes per element of the QuantizedCache residual */
    int64_t layers;                /* decoder layers with a self-attention cache on this rank */
    int64_t window_layers;         /* of those, layers whose cache the runtime caps at `window` tokens */
    int64_t shared_layers;         /* attention layers reading another layer's cache (Gemma 4's KV-shared) */
    int64_t window;                /* tokens a capped layer keeps (0: no cap) */
    uint64_t k_elems, v_elems;     /* self-attention elements per token of an uncapped layer (this rank) */
    uint64_t xk_elems, xv_elems;   /* cross-attention elements per encoder token per decoder layer */
    int n_grp;                     /* the layers by what they cache: the bytes are summed over these */
    vx_kv_group grp[VX_KV_GROUPS];
    /* Per-sequence state of the recurrent layers (Mamba, gated DeltaNet) on
     * this rank: it replaces a per-token cache on those layers and does not
     * grow with tokens (kv_cache.c, "State caches" in methodology.md). */
    int64_t state_layers;          /* layers with a recurrent mixer */
    uint64_t conv_elems;           /* causal-convolution state per layer and sequence */
    uint64_t rec_elems;            /* recurrent (SSM / delta-rule) state per layer and sequence */
    uint32_t conv_bytes, rec_bytes; /* bytes per element of each */
} vx_kv_layout;

/* Resolve the layout of this rank and validate the KV dtype against the
 * runtime (VRAMEST_E_UNSUPPORTED / E_CONFLICT naming the dtype). */
int vx_kv_layout_resolve(const vx_ctx *x, const vx_shard *sh, vx_kv_layout *out) VX_HIDDEN;
/* Bytes of the cache of `seqs` sequences of `tokens` self-attention tokens
 * and `enc_tokens` encoder tokens (cross-attention). `torch_round`: each
 * per-layer K and V tensor rounded as the caching allocator does. */
uint64_t vx_kv_cache_bytes(const vx_kv_layout *kl, uint64_t seqs, uint64_t tokens, uint64_t enc_tokens,
                           int torch_round) VX_HIDDEN;
/* The larger of one uncapped layer's K or V tensor (the torch.cat transient
 * of a DynamicCache update holds the old and the new one). */
uint64_t vx_kv_layer_tensor_bytes(const vx_kv_layout *kl, uint64_t seqs, uint64_t tokens) VX_HIDDEN;
/* Bytes of one token over every layer, windows ignored (vLLM block size). */
uint64_t vx_kv_token_bytes(const vx_kv_layout *kl) VX_HIDDEN;
/* Bytes of one token in one uncapped layer (the per-layer split of a
 * llama.cpp partial offload). */
uint64_t vx_kv_layer_token_bytes(const vx_kv_layout *kl) VX_HIDDEN;
/* Bytes of the recurrent state of `seqs` sequences over the layout's
 * state layers (`torch_round`: each per-layer tensor rounded as the caching
 * allocator does); one layer's state per sequence; the whole state of one
 * sequence. */
uint64_t vx_state_bytes(const vx_kv_layout *kl, uint64_t seqs, int torch_round) VX_HIDDEN;
/* The result's per-sequence state value (VRAMEST_VAL_STATE_PER_SEQ): the
 * largest `one` (one sequence's state, vx_state_bytes(kl, 1, 0)) given. */
void vx_state_result(struct vramest_result *r, uint64_t one) VX_HIDDEN;
/* Fill the layout's state fields (state_layers counted) for its engine. */
void vx_state_layout(const vx_ctx *x, const vx_shard *sh, vx_kv_layout *kl) VX_HIDDEN;
uint64_t vx_state_layer_seq_bytes(const vx_kv_layout *kl) VX_HIDDEN;
/* Transient bytes of one recurrent mixer's forward over `tokens` tokens
 * (no autograd): its projections, convolution output and scan output alive
 * together, on this rank (tp splits the mixer by heads). */
uint64_t vx_state_mixer_fwd_bytes(const vx_shape *s, uint64_t tokens, uint64_t A, uint64_t tp) VX_HIDDEN;
/* Bytes of `elems` elements of one cache tensor at the layout's dtype
 * (blocks rounded up; a llama.cpp row is whole blocks). */
uint64_t vx_kv_elems_bytes(const vx_kv_layout *kl, uint64_t elems) VX_HIDDEN;

/* Transient bytes of one inference forward pass (no autograd) over `q`
 * query tokens of `seqs` sequences attending to `kv` keys, on this rank.
 * Each stage is what is alive besides the weights and the cache at its own
 * high-water mark; the forward's peak is the largest stage. */
typedef struct vx_fwd_terms {
    uint64_t attn;     /* attention of one layer (scores, softmax upcast, GQA copies, mask) */
    uint64_t mlp;      /* MLP / MoE of one layer */
    uint64_t logits;   /* LM head output (+ fp32 upcast) and generate's per-step processing */
    uint64_t resident; /* alive through the whole pass: residual stream, rotary tables */
    int upcast_logits; /* the head upcasts its logits to fp32 (transformers <= 4.45 Llama family) */
} vx_fwd_terms;

/* Options of one forward pass. */
typedef struct vx_fwd_args {
    uint64_t seqs, q, kv;
    int all_logits;   /* logits for every query position (a plain forward; generate() without logits_to_keep) */
    int encoder;      /* an encoder pass (bidirectional, no LM head) */
    int beams;        /* beam search: its scorer keeps seqs x vocab fp32 scores */
    uint64_t dequant; /* bitsandbytes 4-bit: bytes of the largest matrix dequantized for a matmul
                         over more than one token (added to the MLP stage) */
} vx_fwd_args;

void vx_fwd_infer_terms(const vx_ctx *x, const vx_shard *sh, const vx_fwd_args *a, vx_fwd_terms *out) VX_HIDDEN;

/* generate() computes only the last position's logits (logits_to_keep = 1):
 * the transformers release passes it and the family's class takes it. */
int vx_gen_keeps_last_logits(const vx_ctx *x) VX_HIDDEN;

/* Causal-mask buffers transformers registers on some families (GPT-2, GPT-J,
 * CodeGen/MOSS: max_pos^2 bools per layer; GPT-BigCode: one), moved to the
 * GPU with the model and counted by the allocator. */
uint64_t vx_hf_mask_buffer_bytes(const vx_ctx *x) VX_HIDDEN;

/* Whether a family's transformers generate loop returned legacy tuple caches
 * (every decode step builds a whole new cache while the old one is still
 * referenced), as in transformers 4.38-4.44 for GPT-2, OPT, BLOOM, ... */
int vx_hf_legacy_cache(const vx_shape *s) VX_HIDDEN;

/* Serving engines: fill the result (categories, serving values, phase). */
int vx_serving_vllm(vx_ctx *x, const vx_shard *sh) VX_HIDDEN;
int vx_serving_llamacpp(vx_ctx *x, const vx_shard *sh) VX_HIDDEN;

/* A llama.cpp context (llama_init_from_model): `n_ctx` KV cells shared by
 * `n_seq` sequences, n_gpu_layers as llama.cpp takes it (-1: all). */
typedef struct vx_ggml_job {
    const vx_kv_layout *kl;
    uint64_t n_ctx, n_seq;
    int64_t n_gpu_layers;
    /* split_mode layer over n_dev > 1 GPUs: this device's repeating layers
     * [lo, hi) and whether it holds the output layer */
    int n_dev;
    uint64_t lo, hi;
    int out_here;
} vx_ggml_job;
/* Its buffers by device, and their GPU sum. */
typedef struct vx_ggml_mem {
    uint64_t w_gpu, w_host, kv_gpu, kv_host, c_gpu, c_host, outbuf, scratch, scratch_high;
    uint64_t gpu_layers; /* layers on the GPUs, the output layer counted */
    uint64_t w_matrix;   /* of w_gpu, the repeating layers' matrices (what split_mode row splits) */
    uint64_t rec_gpu, rec_host; /* recurrent layers' state cells (state_cache.c) */
    uint64_t state_seq;  /* one sequence's state over the layers */
    uint64_t gpu_total;
} vx_ggml_mem;
int vx_ggml_context(const vx_ctx *x, const vx_shard *sh, const vx_ggml_job *job, vx_ggml_mem *out) VX_HIDDEN;
/* Split a context over n GPUs by `share` (llama.cpp --tensor-split) in
 * split_mode `mode` (VX_SPLIT_*): *m becomes the fullest device's. */
#define VX_GGML_MAX_DEV 64
int vx_ggml_split(const vx_ctx *x, const vx_shard *sh, vx_ggml_job *job, const double *share, int n, int mode,
                  vx_ggml_mem *m) VX_HIDDEN;
/* Write a context's buffers into the result. */
void vx_ggml_write(vx_ctx *x, const vx_ggml_mem *m) VX_HIDDEN;

/* llama.cpp (and Ollama's runner) run flash attention: `attention flash`
 * is -fa on, `eager` -fa off, and the default (sdpa) the build's own
 * default (runtime fa_default: auto, which is on for CUDA, from b6343). */
int vx_ggml_flash_attn(const vx_ctx *x) VX_HIDDEN;

/* Shared by the paged engines (serving_paged.c): the weights of one rank;
 * one decoder layer over T tokens (fused-MoE workspace included); the
 * sampler over `rows` rows of the full vocabulary after a T-token forward;
 * `n_graphs` captured CUDA graphs up to batch `max_bs`; whether the device
 * has at least `min_bytes` and a name without `except` (lower case). */
/* The engines' common checks (no device_map; decoder models) and the KV
 * layout of the rank, with the compute dtype's bytes in *A. */
int vx_paged_begin(vx_ctx *x, const vx_shard *sh, const char *fw, const char *engine, vx_kv_layout *kl,
                   uint64_t *A) VX_HIDDEN;
uint64_t vx_paged_weights(const vx_ctx *x, const vx_shard *sh) VX_HIDDEN;
uint64_t vx_paged_layer_peak(const vx_ctx *x, const vx_shard *sh, uint64_t T, uint64_t A) VX_HIDDEN;
uint64_t vx_paged_sampler(const vx_ctx *x, uint64_t rows, uint64_t T, uint64_t elem_bytes, uint64_t A) VX_HIDDEN;
uint64_t vx_paged_graphs(const vx_ctx *x, const vx_shard *sh, uint64_t n_graphs, uint64_t max_bs, uint64_t A) VX_HIDDEN;
int vx_paged_big_gpu(const vx_ctx *x, uint64_t dev, uint64_t min_bytes, const char *except) VX_HIDDEN;

/* Speculative decoding in the paged engines (serving_spec.c): what the
 * draft (a model of its own, an EAGLE head, or the served model's MTP
 * layers) adds on this rank. Engines add `weights` to theirs, `kv_token` to
 * the KV bytes of every token of the pool, and take the larger of their own
 * layer peak and `layer_peak` (its forward over the profile's T tokens). */
typedef struct vx_spec_terms {
    int method; /* VX_SPEC_* */
    uint64_t weights, kv_token, layer_peak;
} vx_spec_terms;
int vx_spec_resolve(vx_ctx *x, const vx_shard *sh, uint64_t T, uint64_t A, const char *engine,
                    vx_spec_terms *out) VX_HIDDEN;

/* The logical batch: n_batch, or the engine's default (0). */
uint64_t vx_ggml_n_batch(const vx_ctx *x) VX_HIDDEN;

/* Serving engines beside vLLM and llama.cpp. */
int vx_serving_sglang(vx_ctx *x, const vx_shard *sh) VX_HIDDEN;
int vx_serving_ollama(vx_ctx *x, const vx_shard *sh) VX_HIDDEN;

/* Tokens of the workload: prompt (prompt_len, 0 = seq_len) and generated. */
uint64_t vx_infer_prompt_len(const vx_config_values *cv) VX_HIDDEN;

/* The inference estimate of one job (all its rank groups). */
int vx_estimate_infer(vx_ctx *x) VX_HIDDEN;

#endif
