/* Option table of the model handle. Names are the Hugging Face config.json
 * keys (design.md §4), so a config.json, the job spec "arch" object and the
 * Python binding share one vocabulary. Aliases are the same quantity under
 * another family's name (GPT-2 n_embd, T5 d_model, ...). Required integers
 * default to 0, outside their bounds: 0 means "not given". Options whose
 * default depends on the family (biases, tying, dropout) are read through
 * the set bitmap by vx_shape_resolve(), so the table default is only what
 * vramest_option_info() shows for a model of no family. */
#include <stddef.h>

#include "model/model.h"
#include "common/dtype.h"

/* Activation names as transformers' ACT2FN spells them. Variants that only
 * differ numerically map to the nearest kind: memory depends on whether the
 * function is gated and elementwise, not on its exact curve. */
const vx_enum_name vx_act_enum[] = {
    {VX_ACT_AUTO, "auto"},
    {VX_ACT_GELU, "gelu"},
    {VX_ACT_GELU_NEW, "gelu_new"},
    {VX_ACT_GELU_TANH, "gelu_pytorch_tanh"},
    {VX_ACT_SILU, "silu"},
    {VX_ACT_RELU, "relu"},
    {VX_ACT_GELU_FAST, "gelu_fast"},
    {VX_ACT_SILU, "swish"},
    {VX_ACT_GELU, "gelu_python"},
    {VX_ACT_GELU, "gelu_10"},
    {VX_ACT_GELU_NEW, "gelu_accurate"},
    {VX_ACT_GELU_FAST, "quick_gelu"},
    {VX_ACT_RELU, "relu2"},
    {VX_ACT_RELU, "relu6"},
    {VX_ACT_RELU, "leaky_relu"},
    {0, NULL},
};

#define OFF(field) offsetof(vx_arch, field)
#define ROW(key, name, alias, type, mn, mx, def, enums, defs, field, desc) \
    {key, name, alias, VRAMEST_HANDLE_MODEL, type, "model", mn, mx, def, enums, defs, OFF(field), true, desc}
/* A required integer: no default (0 = not given). */
#define REQ(key, name, alias, mx, field, desc) ROW(key, name, alias, VRAMEST_TYPE_I64, 1, mx, 0, NULL, NULL, field, desc)
/* An integer whose absence has a meaning (described in desc). */
#define OPT(key, name, alias, mn, mx, def, field, desc) \
    ROW(key, name, alias, VRAMEST_TYPE_I64, mn, mx, def, NULL, #def, field, desc)
#define BOOL(key, name, alias, def, field, desc) ROW(key, name, alias, VRAMEST_TYPE_BOOL, 0, 1, def, NULL, NULL, field, desc)
#define F64(key, name, alias, mn, mx, def, field, desc) \
    ROW(key, name, alias, VRAMEST_TYPE_F64, mn, mx, def, NULL, #def, field, desc)
#define ENUM(key, name, alias, enums, mn, mx, def, field, desc) \
    ROW(key, name, alias, VRAMEST_TYPE_ENUM, mn, mx, def, enums, NULL, field, desc)

#define K24 16777216.0   /* 2^24 */
#define K26 67108864.0   /* 2^26 */
#define K20 1048576.0    /* 2^20 */
#define K32 4294967296.0 /* 2^32 */

const vx_option_def vx_model_options[] = {
    ENUM(VRAMEST_MODEL_MODEL_TYPE, "model_type", NULL, vx_family_enum, VX_FAM_UNSET, VX_FAM_END_ - 1, VX_FAM_UNSET,
         model_type, "architecture family, as config.json's model_type (required)"),
    REQ(VRAMEST_MODEL_HIDDEN_SIZE, "hidden_size", "n_embd,d_model,n_embed", K24, hidden_size,
        "width of the residual stream (required)"),
    REQ(VRAMEST_MODEL_NUM_HIDDEN_LAYERS, "num_hidden_layers", "n_layer,num_layers,n_layers", 100000,
        num_hidden_layers, "transformer layers; encoder layers of an encoder-decoder (required)"),
    REQ(VRAMEST_MODEL_NUM_ATTENTION_HEADS, "num_attention_heads", "n_head,num_heads,n_heads", 65536,
        num_attention_heads, "query heads per layer (required)"),
    REQ(VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, "num_key_value_heads", "n_head_kv,num_kv_heads", 65536,
        num_key_value_heads, "key/value heads (GQA/MQA); default: the family's (usually num_attention_heads)"),
    REQ(VRAMEST_MODEL_INTERMEDIATE_SIZE, "intermediate_size", "n_inner,d_ff,ffn_dim,inner_hidden_size,ffn_hidden_size",
        K26, intermediate_size, "MLP width; default: the family's (4 x hidden_size for GPT-2-style models)"),
    REQ(VRAMEST_MODEL_VOCAB_SIZE, "vocab_size", "padded_vocab_size", K26, vocab_size,
        "rows of the token embedding (required)"),
    REQ(VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS, "max_position_embeddings",
        "n_positions,max_sequence_length,seq_length", K32, max_position_embeddings,
        "trained context length; rows of learned position embeddings (required for GPT-2, OPT, BERT)"),
    REQ(VRAMEST_MODEL_HEAD_DIM, "head_dim", "d_kv,kv_channels", 65536, head_dim,
        "width of one attention head; default hidden_size / num_attention_heads"),
    BOOL(VRAMEST_MODEL_TIE_WORD_EMBEDDINGS, "tie_word_embeddings", NULL, 1, tie_word_embeddings,
         "lm_head shares the token embedding; default: the family's (true for GPT-2, OPT, BLOOM, Gemma, T5)"),
    REQ(VRAMEST_MODEL_NUM_DECODER_LAYERS, "num_decoder_layers", NULL, 100000, num_decoder_layers,
        "decoder layers of an encoder-decoder; default num_hidden_layers"),
    REQ(VRAMEST_MODEL_NUM_LOCAL_EXPERTS, "num_local_experts", "num_experts,n_routed_experts", 65536,
        num_local_experts, "routed experts per MoE layer (required for MoE families)"),
    REQ(VRAMEST_MODEL_NUM_EXPERTS_PER_TOK, "num_experts_per_tok", NULL, 65536, num_experts_per_tok,
        "experts each token is routed to (required for MoE families)"),
    REQ(VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE, "moe_intermediate_size", NULL, K26, moe_intermediate_size,
        "MLP width of one expert (Mixtral: intermediate_size)"),
    OPT(VRAMEST_MODEL_N_SHARED_EXPERTS, "n_shared_experts", NULL, 0, 65536, 0, n_shared_experts,
        "always-active shared experts (DeepSeek); 0 = none"),
    OPT(VRAMEST_MODEL_FIRST_K_DENSE_REPLACE, "first_k_dense_replace", NULL, 0, 100000, 0, first_k_dense_replace,
        "leading layers with a dense MLP instead of experts (DeepSeek)"),
    REQ(VRAMEST_MODEL_KV_LORA_RANK, "kv_lora_rank", NULL, K20, kv_lora_rank,
        "compressed key/value width of multi-head latent attention (DeepSeek; required there)"),
    OPT(VRAMEST_MODEL_Q_LORA_RANK, "q_lora_rank", NULL, 0, K20, 0, q_lora_rank,
        "compressed query width of MLA; 0 = plain q_proj (config.json null)"),
    REQ(VRAMEST_MODEL_QK_ROPE_HEAD_DIM, "qk_rope_head_dim", NULL, 65536, qk_rope_head_dim,
        "rotary part of an MLA query/key head"),
    OPT(VRAMEST_MODEL_QK_NOPE_HEAD_DIM, "qk_nope_head_dim", NULL, 0, 65536, 0, qk_nope_head_dim,
        "non-rotary part of an MLA query/key head"),
    REQ(VRAMEST_MODEL_V_HEAD_DIM, "v_head_dim", NULL, 65536, v_head_dim, "value head width of MLA"),
    OPT(VRAMEST_MODEL_SLIDING_WINDOW, "sliding_window", "sliding_window_size", 0, K32, 0, sliding_window,
        "attention window in tokens; 0 = none (config.json null)"),
    OPT(VRAMEST_MODEL_TYPE_VOCAB_SIZE, "type_vocab_size", NULL, 0, K20, 2, type_vocab_size,
        "rows of BERT's token-type embedding"),
    BOOL(VRAMEST_MODEL_ATTENTION_BIAS, "attention_bias", NULL, 0, attention_bias,
         "bias on the attention projections; default: the family's"),
    BOOL(VRAMEST_MODEL_MLP_BIAS, "mlp_bias", NULL, 0, mlp_bias, "bias on the MLP projections; default: the family's"),
    ENUM(VRAMEST_MODEL_HIDDEN_ACT, "hidden_act", "activation_function,hidden_activation,dense_act_fn", vx_act_enum,
         VX_ACT_AUTO, VX_ACT_GELU_FAST, VX_ACT_AUTO, hidden_act, "MLP activation; auto = the family's"),
    REQ(VRAMEST_MODEL_WORD_EMBED_PROJ_DIM, "word_embed_proj_dim", NULL, K24, word_embed_proj_dim,
        "OPT token-embedding width, projected to hidden_size when different; default hidden_size"),
    F64(VRAMEST_MODEL_HIDDEN_DROPOUT, "hidden_dropout", "resid_pdrop,hidden_dropout_prob,dropout_rate,dropout", 0, 1, 0,
        hidden_dropout, "dropout probability on the residual stream; default: the family's"),
    F64(VRAMEST_MODEL_ATTENTION_DROPOUT, "attention_dropout", "attn_pdrop,attention_probs_dropout_prob", 0, 1, 0,
        attention_dropout, "dropout probability on attention weights; default: the family's"),
    ENUM(VRAMEST_MODEL_TORCH_DTYPE, "torch_dtype", "dtype", vx_dtype_enum, VRAMEST_DTYPE_AUTO, VRAMEST_DTYPE_NONE,
         VRAMEST_DTYPE_AUTO, torch_dtype, "dtype the checkpoint is stored in; auto = unknown"),
    BOOL(VRAMEST_MODEL_USE_SLIDING_WINDOW, "use_sliding_window", NULL, 0, use_sliding_window,
         "Qwen2/Qwen3: whether sliding_window is used (default false)"),
    OPT(VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE, "shared_expert_intermediate_size", "shared_intermediate_size,moe_shared_expert_intermediate_size",
        0, K26, 0, shared_expert_intermediate_size,
        "MLP width of the shared expert (Qwen2-MoE; required there); 0 = none (Qwen3-Coder's config says 0)"),
    OPT(VRAMEST_MODEL_RELATIVE_ATTENTION_NUM_BUCKETS, "relative_attention_num_buckets", NULL, 1, 65536, 32,
        relative_attention_num_buckets, "T5 relative position buckets"),
    F64(VRAMEST_MODEL_FINAL_LOGIT_SOFTCAPPING, "final_logit_softcapping", NULL, 0, 1e9, 0, final_logit_softcapping,
        "tanh soft cap of the logits (Gemma 2); 0 = none"),
    ROW(VRAMEST_MODEL_ARCHITECTURES, "architectures", NULL, VRAMEST_TYPE_STRING, 0, VX_STR_MAX - 1, 0, NULL, "",
        architectures, "Hugging Face class name (config.json architectures[0]); picks the default head"),
    OPT(VRAMEST_MODEL_NUM_LABELS, "num_labels", NULL, 1, K24, 2, num_labels,
        "classes of a sequence-classification head"),
    BOOL(VRAMEST_MODEL_IS_GATED_ACT, "is_gated_act", NULL, 0, is_gated_act,
         "T5 v1.1 / mT5 gated FFN (feed_forward_proj gated-gelu)"),
    BOOL(VRAMEST_MODEL_MULTI_QUERY, "multi_query", "multi_query_attention", 0, multi_query,
         "one key/value head (GPT-BigCode, Falcon-7B); ChatGLM2: grouped by num_key_value_heads"),
    BOOL(VRAMEST_MODEL_NEW_DECODER_ARCHITECTURE, "new_decoder_architecture", NULL, 0, new_decoder_architecture,
         "Falcon 40B/180B layout (grouped KV heads, two LayerNorms per layer)"),
    BOOL(VRAMEST_MODEL_PARALLEL_ATTN, "parallel_attn", NULL, 1, parallel_attn,
         "Falcon: attention and MLP in parallel from one LayerNorm"),
    OPT(VRAMEST_MODEL_ROTARY_DIM, "rotary_dim", NULL, 0, 65536, 0, rotary_dim,
        "rotary dimensions per head (CodeGen/MOSS, GPT-J); 0 = the family's"),
    BOOL(VRAMEST_MODEL_DO_LAYER_NORM_BEFORE, "do_layer_norm_before", NULL, 1, do_layer_norm_before,
         "OPT: pre-LayerNorm (true) or post-LayerNorm without a final norm (false, OPT-350m)"),
    BOOL(VRAMEST_MODEL_QK_LAYERNORM, "qk_layernorm", NULL, 0, qk_layernorm, "Phi: LayerNorm on queries and keys"),
    BOOL(VRAMEST_MODEL_RMSNORM, "rmsnorm", NULL, 0, rmsnorm,
         "ChatGLM: the ChatGLM2/3 / GLM-4 layout (RMSNorm, SwiGLU, untied output layer)"),
    OPT(VRAMEST_MODEL_NUM_LN_IN_PARALLEL_ATTN, "num_ln_in_parallel_attn", NULL, 0, 2, 0, num_ln_in_parallel_attn,
        "Falcon new architecture: LayerNorms per layer; 0 = 2"),
    BOOL(VRAMEST_MODEL_RELATIVE_ATTENTION, "relative_attention", NULL, 0, relative_attention,
         "DeBERTa-v2: relative position embeddings shared by the layers"),
    OPT(VRAMEST_MODEL_MAX_RELATIVE_POSITIONS, "max_relative_positions", NULL, -1, K24, -1, max_relative_positions,
        "DeBERTa-v2: relative distance span; < 1 = max_position_embeddings"),
    OPT(VRAMEST_MODEL_POSITION_BUCKETS, "position_buckets", NULL, -1, K24, -1, position_buckets,
        "DeBERTa-v2: log-bucketed relative positions (2 x buckets embeddings); < 1 = none"),
    BOOL(VRAMEST_MODEL_SHARE_ATT_KEY, "share_att_key", NULL, 0, share_att_key,
         "DeBERTa-v2: relative positions projected by the content query/key projections"),
    OPT(VRAMEST_MODEL_POS_ATT_TYPES, "pos_att_types", NULL, 0, 3, 0, pos_att_types,
        "DeBERTa-v2 pos_att_type as flags: 1 c2p, 2 p2c (config.json's list or 'p2c|c2p')"),
    BOOL(VRAMEST_MODEL_POSITION_BIASED_INPUT, "position_biased_input", NULL, 1, position_biased_input,
         "DeBERTa-v2: an absolute position table added to the embeddings"),
    BOOL(VRAMEST_MODEL_REL_EMBEDDINGS_NORM, "rel_embeddings_norm", NULL, 0, rel_embeddings_norm,
         "DeBERTa-v2: a LayerNorm over the relative embeddings (norm_rel_ebd layer_norm)"),
    OPT(VRAMEST_MODEL_CONV_KERNEL_SIZE, "conv_kernel_size", NULL, 0, 4096, 0, conv_kernel_size,
        "DeBERTa-v2: kernel of the convolution after the first layer; 0 = none"),
    OPT(VRAMEST_MODEL_CONV_GROUPS, "conv_groups", NULL, 1, K24, 1, conv_groups, "DeBERTa-v2: convolution groups"),
    OPT(VRAMEST_MODEL_EMBEDDING_SIZE, "embedding_size", NULL, 0, K24, 0, embedding_size,
        "DeBERTa-v2: token-embedding width, projected to hidden_size when different; 0 = hidden_size"),
    OPT(VRAMEST_MODEL_NUM_MEL_BINS, "num_mel_bins", NULL, 1, 65536, 80, num_mel_bins,
        "Whisper: mel channels into the encoder's convolution stem"),
    OPT(VRAMEST_MODEL_MAX_SOURCE_POSITIONS, "max_source_positions", NULL, 1, K24, 1500, max_source_positions,
        "Whisper: encoder positions (audio frames after the stride-2 stem; 1500 for 30 s)"),
    OPT(VRAMEST_MODEL_SLIDING_WINDOW_PATTERN, "sliding_window_pattern", NULL, 0, 100000, 0, sliding_window_pattern,
        "layer i uses the sliding window unless (i + 1) % N == 0 (Gemma 3: 6, Cohere2: 4); config.json's layer_types "
        "or an 'LLLG' string give it too; 0 = the family's"),
    OPT(VRAMEST_MODEL_NO_ROPE_LAYER_INTERVAL, "no_rope_layer_interval", NULL, 0, 100000, 0, no_rope_layer_interval,
        "layer i has no rotary positions (NoPE) when (i + 1) % N == 0 (SmolLM3: 4); config.json's no_rope_layers "
        "gives it too; 0 = RoPE on every layer; absent: the family's (Llama 4: 4, its other layers attend in "
        "chunks)"),
    ROW(VRAMEST_MODEL_LAYER_BLOCKS, "layer_blocks", NULL, VRAMEST_TYPE_STRING, 0, VX_STR_MAX - 1, 0, NULL, "",
        layer_blocks,
        "per-layer blocks of a heterogeneous model (Nemotron-NAS block_configs): comma-separated "
        "ATTN:MLP[*COUNT], ATTN = key/value heads, 0 (no attention) or L (one hidden x hidden linear), "
        "MLP = intermediate size, 0 (no MLP) or L; empty = every layer alike"),
    OPT(VRAMEST_MODEL_NUM_NEXTN_PREDICT_LAYERS, "num_nextn_predict_layers", "num_mtp_layers", 0, 64, 0,
        num_nextn_predict_layers,
        "multi-token-prediction layers of the checkpoint (parameters of the class only where it builds them: "
        "MiMo; elsewhere, as DeepSeek-V3 and GLM, stored beside the model and counted in the checkpoint bytes)"),
    OPT(VRAMEST_MODEL_MOE_LAYER_FREQ, "moe_layer_freq", NULL, 1, 100000, 1, moe_layer_freq,
        "layer i >= first_k_dense_replace has experts when i % N == 0 (DeepSeek); the others a dense MLP"),
    BOOL(VRAMEST_MODEL_ATTENTION_OUT_BIAS, "attention_out_bias", NULL, 0, attention_out_bias,
         "bias on the attention output projection (Seed-OSS); default: the family's"),
    OPT(VRAMEST_MODEL_INDEX_N_HEADS, "index_n_heads", NULL, 0, 65536, 0, index_n_heads,
        "heads of the lightning indexer of DeepSeek sparse attention (DeepSeek-V3.2, GLM-5); 0 = the family's"),
    OPT(VRAMEST_MODEL_INDEX_HEAD_DIM, "index_head_dim", NULL, 0, 65536, 0, index_head_dim,
        "head width of that indexer: the key it caches per token and layer; 0 = the family's"),
    OPT(VRAMEST_MODEL_INDEX_TOPK_FREQ, "index_topk_freq", NULL, 1, 100000, 1, index_topk_freq,
        "GLM-5.2: after the leading layers, one layer in this many runs its indexer, the others reuse its top-k"),
    OPT(VRAMEST_MODEL_INDEX_SKIP_TOPK_OFFSET, "index_skip_topk_offset", NULL, 0, 100000, 2, index_skip_topk_offset,
        "GLM-5.2: leading layers that all run their indexer before that cycle"),
    REQ(VRAMEST_MODEL_INTERMEDIATE_SIZE_MLP, "intermediate_size_mlp", NULL, K26, intermediate_size_mlp,
        "Llama 4: MLP width of the layers without experts; default intermediate_size"),
    OPT(VRAMEST_MODEL_INTERLEAVE_MOE_LAYER_STEP, "interleave_moe_layer_step", NULL, 1, 100000, 1,
        interleave_moe_layer_step, "Llama 4: layers i with (i + 1) % step == 0 have experts, the others a dense MLP"),
    OPT(VRAMEST_MODEL_ATTENTION_CHUNK_SIZE, "attention_chunk_size", NULL, 0, K32, 0, attention_chunk_size,
        "Llama 4: tokens of an attention chunk on RoPE layers; 0 = the family's (8192)"),
    /* State-space and linear-attention layers (model/hybrid.c). */
    ROW(VRAMEST_MODEL_LAYER_PATTERN, "layer_pattern", NULL, VRAMEST_TYPE_STRING, 0, VX_STR_MAX - 1, 0, NULL, "",
        layer_pattern,
        "token mixer of each layer, one letter per layer: A attention, M Mamba, L linear attention (gated "
        "DeltaNet), H attention and Mamba in parallel, N none; from config.json's layer_types, "
        "hybrid_override_pattern or layers_block_type; \"\" = the family's"),
    ROW(VRAMEST_MODEL_MLP_PATTERN, "mlp_pattern", NULL, VRAMEST_TYPE_STRING, 0, VX_STR_MAX - 1, 0, NULL, "",
        mlp_pattern, "MLP of each layer, one letter per layer: D dense, E experts, N none; \"\" = the family's"),
    REQ(VRAMEST_MODEL_SSM_STATE_SIZE, "ssm_state_size", "state_size,mamba_d_state,d_state", 65536, ssm_state_size,
        "state size N of a Mamba layer (required for Mamba families)"),
    REQ(VRAMEST_MODEL_CONV_KERNEL, "conv_kernel", "mamba_d_conv,d_conv", 1024, conv_kernel,
        "width of a Mamba layer's causal convolution; default 4"),
    REQ(VRAMEST_MODEL_MAMBA_EXPAND, "mamba_expand", "expand", 1024, mamba_expand,
        "Mamba inner width over hidden_size; default 2"),
    OPT(VRAMEST_MODEL_TIME_STEP_RANK, "time_step_rank", "mamba_dt_rank,dt_rank", 0, K20, 0, time_step_rank,
        "Mamba-1 rank of the time-step projection; 0 = ceil(hidden_size / 16) (\"auto\")"),
    REQ(VRAMEST_MODEL_MAMBA_NUM_HEADS, "mamba_num_heads", "mamba_n_heads", 65536, mamba_num_heads,
        "Mamba-2 heads (required for Mamba-2 families)"),
    REQ(VRAMEST_MODEL_MAMBA_HEAD_DIM, "mamba_head_dim", "mamba_d_head", 65536, mamba_head_dim,
        "Mamba-2 head width (required for Mamba-2 families)"),
    REQ(VRAMEST_MODEL_MAMBA_N_GROUPS, "n_groups", "mamba_n_groups,mamba_ngroups", 65536, mamba_n_groups,
        "Mamba-2 groups of B and C; default 1"),
    REQ(VRAMEST_MODEL_MAMBA_D_SSM, "mamba_d_ssm", NULL, K26, mamba_d_ssm,
        "Mamba-2 inner width (Falcon-H1); default mamba_expand x hidden_size"),
    BOOL(VRAMEST_MODEL_MAMBA_CONV_BIAS, "use_conv_bias", "mamba_conv_bias,conv_bias", 1, mamba_conv_bias,
         "the Mamba convolution has a bias; default true"),
    BOOL(VRAMEST_MODEL_MAMBA_PROJ_BIAS, "mamba_proj_bias", "use_bias", 0, mamba_proj_bias,
         "biases on the Mamba projections; default false"),
    BOOL(VRAMEST_MODEL_MAMBA_RMS_NORM, "mamba_rms_norm", NULL, 1, mamba_rms_norm,
         "the Mamba-2 mixer has its gated RMSNorm; default true"),
    ENUM(VRAMEST_MODEL_SSM_STATE_DTYPE, "mamba_ssm_cache_dtype", "mamba_ssm_dtype", vx_dtype_enum,
         VRAMEST_DTYPE_AUTO, VRAMEST_DTYPE_NONE, VRAMEST_DTYPE_AUTO, ssm_state_dtype,
         "dtype of the recurrent state a runtime caches; auto = the cache's"),
    REQ(VRAMEST_MODEL_LINEAR_NUM_KEY_HEADS, "linear_num_key_heads", NULL, 65536, linear_num_key_heads,
        "gated DeltaNet key heads (required for its families)"),
    REQ(VRAMEST_MODEL_LINEAR_NUM_VALUE_HEADS, "linear_num_value_heads", NULL, 65536, linear_num_value_heads,
        "gated DeltaNet value heads (required for its families)"),
    REQ(VRAMEST_MODEL_LINEAR_KEY_HEAD_DIM, "linear_key_head_dim", NULL, 65536, linear_key_head_dim,
        "gated DeltaNet key head width (required for its families)"),
    REQ(VRAMEST_MODEL_LINEAR_VALUE_HEAD_DIM, "linear_value_head_dim", NULL, 65536, linear_value_head_dim,
        "gated DeltaNet value head width (required for its families)"),
    REQ(VRAMEST_MODEL_LINEAR_CONV_KERNEL_DIM, "linear_conv_kernel_dim", NULL, 1024, linear_conv_kernel_dim,
        "gated DeltaNet convolution width; default 4"),
    BOOL(VRAMEST_MODEL_ATTN_OUTPUT_GATE, "attn_output_gate", NULL, 1, attn_output_gate,
         "Qwen3-Next attention: q_proj also yields a sigmoid output gate; default true there"),
    OPT(VRAMEST_MODEL_MOE_LATENT_SIZE, "moe_latent_size", NULL, 0, K24, 0, moe_latent_size,
        "experts run in this latent width between two projections (Nemotron-3 Super); 0 = hidden_size"),
    REQ(VRAMEST_MODEL_CHUNK_SIZE, "chunk_size", "mamba_chunk_size", 1048576, chunk_size,
        "tokens per chunk of a Mamba-2 chunked scan (training activations); default 256"),
    OPT(VRAMEST_MODEL_GLOBAL_HEAD_DIM, "global_head_dim", NULL, 0, 65536, 0, global_head_dim,
        "head size of the full-attention layers of a sliding pattern (Gemma 4); 0 = head_dim"),
    OPT(VRAMEST_MODEL_NUM_GLOBAL_KEY_VALUE_HEADS, "num_global_key_value_heads", NULL, 0, 65536, 0,
        num_global_key_value_heads,
        "key/value heads of the full-attention layers when attention_k_eq_v (Gemma 4); 0 = num_key_value_heads"),
    BOOL(VRAMEST_MODEL_ATTENTION_K_EQ_V, "attention_k_eq_v", NULL, 0, attention_k_eq_v,
         "full-attention layers take values from k_proj and have no v_proj (Gemma 4); default false"),
    OPT(VRAMEST_MODEL_CLA_SHARE_FACTOR, "cla_share_factor", NULL, 0, 1024, 0, cla_share_factor,
        "cross-layer attention: only every factor-th layer projects keys and values, the layers after it "
        "reuse them (Hunyuan's use_cla); 0 or 1 = none"),
};

const size_t vx_model_option_count = VX_ARRAY_LEN(vx_model_options);
