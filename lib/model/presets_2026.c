/* Presets of the 2025-2026 model zoo (issue #16): the architecture keys of
 * real config.json files, compiled in (see presets.c). Each config is the
 * one a case of tests/data/zoo.jsonl or zoo2.jsonl names as its source
 * (repository and commit there) or, where a comment above a preset names
 * one, that file; keys irrelevant to memory left out, so
 * tests/data/models/preset_params.tsv gives each its exact count. A
 * heterogeneous model's block_configs is written as layer_blocks, the form
 * the config.json reader turns it into. A layer_types list that only restates
 * full_attention_interval (Qwen3.5) or the family's default (gpt-oss) is left
 * out: the reader derives the same layers from what remains. Append new
 * presets at the end. */
#include "model/presets.h"

const vx_preset vx_presets_2026[] = {
    {"stablelm-3b-4e1t", "stabilityai/stablelm-3b-4e1t",
     "{\"architectures\":[\"StableLmForCausalLM\"],\"hidden_act\":\"silu\",\"hidden_size\":2560,\"intermed"
     "iate_size\":6912,\"max_position_embeddings\":4096,\"model_type\":\"stablelm\",\"num_attention_heads"
     "\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":32,\"partial_rotary_factor\":0.25,\"tie_word_"
     "embeddings\":false,\"torch_dtype\":\"bfloat16\",\"use_qkv_bias\":false,\"vocab_size\":50304}"},
    {"stablelm-2-1.6b", "stabilityai/stablelm-2-1_6b,stabilityai/stablelm-2-zephyr-1_6b",
     "{\"architectures\":[\"StableLmForCausalLM\"],\"hidden_act\":\"silu\",\"hidden_size\":2048,\"intermed"
     "iate_size\":5632,\"max_position_embeddings\":4096,\"model_type\":\"stablelm\",\"num_attention_heads"
     "\":32,\"num_hidden_layers\":24,\"num_key_value_heads\":32,\"partial_rotary_factor\":0.25,\"tie_word_"
     "embeddings\":false,\"torch_dtype\":\"float16\",\"use_qkv_bias\":true,\"vocab_size\":100352}"},
    {"internlm2.5-7b", "internlm/internlm2_5-7b-chat,internlm2-chat-7b",
     "{\"architectures\":[\"InternLM2ForCausalLM\"],\"bias\":false,\"hidden_act\":\"silu\",\"hidden_size\""
     ":4096,\"intermediate_size\":14336,\"max_position_embeddings\":32768,\"model_type\":\"internlm2\",\"n"
     "um_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"tie_word_embeddings\":f"
     "alse,\"torch_dtype\":\"bfloat16\",\"vocab_size\":92544}"},
    {"baichuan2-7b", "baichuan-inc/Baichuan2-7B-Chat",
     "{\"architectures\":[\"BaichuanForCausalLM\"],\"hidden_size\":4096,\"intermediate_size\":11008,\"max_"
     "position_embeddings\":4096,\"model_type\":\"baichuan\",\"num_attention_heads\":32,\"num_hidden_layer"
     "s\":32,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":125696}"},
    {"minicpm-2b", "openbmb/MiniCPM-2B-sft-bf16",
     "{\"architectures\":[\"MiniCPMForCausalLM\"],\"dim_model_base\":256,\"hidden_act\":\"silu\",\"hidden_"
     "size\":2304,\"intermediate_size\":5760,\"max_position_embeddings\":4096,\"model_type\":\"minicpm\","
     "\"num_attention_heads\":36,\"num_hidden_layers\":40,\"num_key_value_heads\":36,\"scale_depth\":1.4,"
     "\"scale_emb\":12,\"tie_word_embeddings\":true,\"torch_dtype\":\"bfloat16\",\"vocab_size\":122753}"},
    {"minicpm-moe-8x2b", "openbmb/MiniCPM-MoE-8x2B",
     "{\"architectures\":[\"MiniCPMForCausalLM\"],\"dim_model_base\":256,\"hidden_act\":\"silu\",\"hidden_"
     "size\":2304,\"intermediate_size\":5760,\"max_position_embeddings\":4096,\"model_type\":\"minicpm\","
     "\"num_attention_heads\":36,\"num_experts\":8,\"num_experts_per_tok\":2,\"num_hidden_layers\":40,\"nu"
     "m_key_value_heads\":36,\"scale_depth\":1.4,\"scale_emb\":12,\"tie_word_embeddings\":true,\"torch_dty"
     "pe\":\"bfloat16\",\"vocab_size\":122753}"},
    {"granite-3.1-1b-a400m", "ibm-granite/granite-3.1-1b-a400m-instruct",
     "{\"architectures\":[\"GraniteMoeForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\""
     "attention_multiplier\":0.015625,\"embedding_multiplier\":12.0,\"hidden_act\":\"silu\",\"hidden_size"
     "\":1024,\"intermediate_size\":512,\"logits_scaling\":6.0,\"max_position_embeddings\":131072,\"model_"
     "type\":\"granitemoe\",\"num_attention_heads\":16,\"num_experts_per_tok\":8,\"num_hidden_layers\":24,"
     "\"num_key_value_heads\":8,\"num_local_experts\":32,\"residual_multiplier\":0.22,\"tie_word_embedding"
     "s\":true,\"torch_dtype\":\"bfloat16\",\"vocab_size\":49155}"},
    {"smollm3-3b", "HuggingFaceTB/SmolLM3-3B",
     "{\"architectures\":[\"SmolLM3ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"hid"
     "den_act\":\"silu\",\"hidden_size\":2048,\"intermediate_size\":11008,\"max_position_embeddings\":6553"
     "6,\"mlp_bias\":false,\"model_type\":\"smollm3\",\"no_rope_layer_interval\":4,\"no_rope_layers\":[1,1"
     ",1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0],\"num_attention_heads\":16,\"n"
     "um_hidden_layers\":36,\"num_key_value_heads\":4,\"sliding_window\":null,\"torch_dtype\":\"bfloat16\""
     ",\"use_sliding_window\":false,\"vocab_size\":128256}"},
    {"deepseek-moe-16b", "deepseek-ai/deepseek-moe-16b-base",
     "{\"architectures\":[\"DeepseekForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"fi"
     "rst_k_dense_replace\":1,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"intermediate_size\":10944,\"m"
     "ax_position_embeddings\":4096,\"model_type\":\"deepseek\",\"moe_intermediate_size\":1408,\"moe_layer"
     "_freq\":1,\"n_routed_experts\":64,\"n_shared_experts\":2,\"num_attention_heads\":16,\"num_experts_pe"
     "r_tok\":6,\"num_hidden_layers\":28,\"num_key_value_heads\":16,\"tie_word_embeddings\":false,\"torch_"
     "dtype\":\"bfloat16\",\"vocab_size\":102400}"},
    {"kimi-k2", "moonshotai/Kimi-K2-Instruct,kimi-k2-instruct",
     "{\"architectures\":[\"DeepseekV3ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\""
     "first_k_dense_replace\":1,\"hidden_act\":\"silu\",\"hidden_size\":7168,\"intermediate_size\":18432,"
     "\"kv_lora_rank\":512,\"max_position_embeddings\":131072,\"model_type\":\"kimi_k2\",\"moe_intermediat"
     "e_size\":2048,\"moe_layer_freq\":1,\"n_routed_experts\":384,\"n_shared_experts\":1,\"num_attention_h"
     "eads\":64,\"num_experts_per_tok\":8,\"num_hidden_layers\":61,\"num_key_value_heads\":64,\"num_nextn_"
     "predict_layers\":0,\"q_lora_rank\":1536,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"tie_word_"
     "embeddings\":false,\"torch_dtype\":\"bfloat16\",\"v_head_dim\":128,\"vocab_size\":163840}"},
    {"minimax-m2.5", "MiniMaxAI/MiniMax-M2.5,minimax-m2",
     "{\"architectures\":[\"MiniMaxM2ForCausalLM\"],\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size"
     "\":3072,\"intermediate_size\":1536,\"max_position_embeddings\":196608,\"model_type\":\"minimax_m2\","
     "\"num_attention_heads\":48,\"num_experts_per_tok\":8,\"num_hidden_layers\":62,\"num_key_value_heads"
     "\":8,\"num_local_experts\":256,\"rotary_dim\":64,\"shared_intermediate_size\":0,\"tie_word_embedding"
     "s\":false,\"use_qk_norm\":true,\"vocab_size\":200064}"},
    {"dbrx-instruct", "databricks/dbrx-instruct,dbrx",
     "{\"architectures\":[\"DbrxForCausalLM\"],\"attn_config\":{\"clip_qkv\":8,\"kv_n_heads\":8,\"model_ty"
     "pe\":\"\",\"rope_theta\":500000},\"d_model\":6144,\"ffn_config\":{\"ffn_hidden_size\":10752,\"model_"
     "type\":\"\",\"moe_jitter_eps\":0,\"moe_loss_weight\":0.05,\"moe_num_experts\":16,\"moe_top_k\":4},\""
     "max_seq_len\":32768,\"model_type\":\"dbrx\",\"n_heads\":48,\"n_layers\":40,\"tie_word_embeddings\":f"
     "alse,\"torch_dtype\":\"bfloat16\",\"vocab_size\":100352}"},
    {"mimo-7b", "XiaomiMiMo/MiMo-7B-Base",
     "{\"architectures\":[\"MiMoForCausalLM\"],\"attention_bias\":true,\"attention_dropout\":0.0,\"head_di"
     "m\":128,\"hidden_act\":\"silu\",\"hidden_size\":4096,\"intermediate_size\":11008,\"max_position_embe"
     "ddings\":32768,\"model_type\":\"mimo\",\"num_attention_heads\":32,\"num_hidden_layers\":36,\"num_key"
     "_value_heads\":8,\"num_nextn_predict_layers\":1,\"sliding_window\":32768,\"tie_word_embeddings\":fal"
     "se,\"torch_dtype\":\"bfloat16\",\"use_sliding_window\":false,\"vocab_size\":151680}"},
    {"nemotron-super-49b", "nvidia/Llama-3_3-Nemotron-Super-49B-v1,llama-3.3-nemotron-super-49b",
     "{\"architectures\":[\"DeciLMForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"hidd"
     "en_act\":\"silu\",\"hidden_size\":8192,\"intermediate_size\":null,\"layer_blocks\":\"8:14336,8:28672"
     "*5,0:14336*2,8:28672*3,0:17920,8:28672*30,0:7168,0:14336*2,0:7168,0:28672,0:7168,0:14336,0:7168*3,8:"
     "28672,0:7168,0:5632*2,0:7168,0:5632*3,0:7168*2,0:2816*2,0:5632*2,0:2816*2,0:5632,0:2816*2,8:28672*9"
     "\",\"max_position_embeddings\":131072,\"mlp_bias\":false,\"model_type\":\"nemotron-nas\",\"num_atten"
     "tion_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":null,\"tie_word_embeddings\":false,"
     "\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}"},
    /* 2025-2026 releases asked for by name (issue #16 item 7): the configs of the
     * zoo cases that preset_params.tsv names */
    {"gpt-oss-20b", "openai/gpt-oss-20b",
     "{\"architectures\":[\"GptOssForCausalLM\"],\"attention_bias\":true,\"attention_dropout\":0.0,\"exper"
     "ts_per_token\":4,\"head_dim\":64,\"hidden_act\":\"silu\",\"hidden_size\":2880,\"intermediate_size\":"
     "2880,\"max_position_embeddings\":131072,\"model_type\":\"gpt_oss\",\"num_attention_heads\":64,\"num_"
     "experts_per_tok\":4,\"num_hidden_layers\":24,\"num_key_value_heads\":8,\"num_local_experts\":32,\"qu"
     "antization_config\":{\"modules_to_not_convert\":[\"model.layers.*.self_attn\",\"model.layers.*.mlp.r"
     "outer\",\"model.embed_tokens\",\"lm_head\"],\"quant_method\":\"mxfp4\"},\"sliding_window\":128,\"swi"
     "glu_limit\":7.0,\"tie_word_embeddings\":false,\"vocab_size\":201088}"},
    {"gpt-oss-120b", "openai/gpt-oss-120b",
     "{\"architectures\":[\"GptOssForCausalLM\"],\"attention_bias\":true,\"attention_dropout\":0.0,\"exper"
     "ts_per_token\":4,\"head_dim\":64,\"hidden_act\":\"silu\",\"hidden_size\":2880,\"intermediate_size\":"
     "2880,\"max_position_embeddings\":131072,\"model_type\":\"gpt_oss\",\"num_attention_heads\":64,\"num_"
     "experts_per_tok\":4,\"num_hidden_layers\":36,\"num_key_value_heads\":8,\"num_local_experts\":128,\"q"
     "uantization_config\":{\"modules_to_not_convert\":[\"model.layers.*.self_attn\",\"model.layers.*.mlp."
     "router\",\"model.embed_tokens\",\"lm_head\"],\"quant_method\":\"mxfp4\"},\"sliding_window\":128,\"sw"
     "iglu_limit\":7.0,\"tie_word_embeddings\":false,\"vocab_size\":201088}"},
    /* the -FP8 repo's config (zoo2's Maverick case) without its quantization_config:
     * the module of the bf16 repo, with its vision tower */
    {"llama-4-maverick-17b-128e", "meta-llama/Llama-4-Maverick-17B-128E-Instruct,llama-4-maverick",
     "{\"architectures\":[\"Llama4ForConditionalGeneration\"],\"attention_bias\":false,\"attention_chunk_s"
     "ize\":8192,\"attention_dropout\":0.0,\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":5120,"
     "\"interleave_moe_layer_step\":2,\"intermediate_size\":8192,\"intermediate_size_mlp\":16384,\"max_posi"
     "tion_embeddings\":1048576,\"model_type\":\"llama4\",\"nope_layer_interval\":4,\"num_attention_heads"
     "\":40,\"num_experts_per_tok\":1,\"num_hidden_layers\":48,\"num_key_value_heads\":8,\"num_local_expert"
     "s\":128,\"text_config\":{\"attention_bias\":false,\"attention_chunk_size\":8192,\"attention_dropout"
     "\":0.0,\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"interleave_moe_layer_step\":2,"
     "\"intermediate_size\":8192,\"intermediate_size_mlp\":16384,\"max_position_embeddings\":1048576,\"mod"
     "el_type\":\"llama4_text\",\"nope_layer_interval\":4,\"num_attention_heads\":40,\"num_experts_per_tok"
     "\":1,\"num_hidden_layers\":48,\"num_key_value_heads\":8,\"num_local_experts\":128,\"torch_dtype\":\""
     "bfloat16\",\"use_qk_norm\":false,\"vocab_size\":202048},\"torch_dtype\":\"bfloat16\",\"use_qk_norm\""
     ":false,\"vision_config\":{\"attention_dropout\":0.0,\"hidden_act\":\"gelu\",\"hidden_size\":1408,\"i"
     "mage_size\":336,\"intermediate_size\":5632,\"model_type\":\"llama4_vision_model\",\"multi_modal_proj"
     "ector_bias\":false,\"norm_eps\":1e-05,\"num_attention_heads\":16,\"num_channels\":3,\"num_hidden_lay"
     "ers\":34,\"patch_size\":14,\"pixel_shuffle_ratio\":0.5,\"projector_dropout\":0.0,\"projector_input_d"
     "im\":4096,\"projector_output_dim\":4096,\"vision_feature_layer\":-1,\"vision_feature_select_strategy"
     "\":\"default\",\"vision_output_dim\":4096},\"vocab_size\":202048}"},
    {"gemma-4-26b-a4b", "google/gemma-4-26B-A4B",
     "{\"architectures\":[\"Gemma4ForConditionalGeneration\"],\"audio_config\":null,\"dtype\":\"bfloat16\""
     ",\"model_type\":\"gemma4\",\"text_config\":{\"attention_bias\":false,\"attention_dropout\":0.0,\"att"
     "ention_k_eq_v\":true,\"dtype\":\"bfloat16\",\"enable_moe_block\":true,\"final_logit_softcapping\":30"
     ".0,\"global_head_dim\":512,\"head_dim\":256,\"hidden_activation\":\"gelu_pytorch_tanh\",\"hidden_siz"
     "e\":2816,\"hidden_size_per_layer_input\":0,\"intermediate_size\":2112,\"layer_types\":[\"sliding_att"
     "ention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"f"
     "ull_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attentio"
     "n\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_a"
     "ttention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sl"
     "iding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention"
     "\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding"
     "_attention\",\"full_attention\"],\"max_position_embeddings\":262144,\"model_type\":\"gemma4_text\","
     "\"moe_intermediate_size\":704,\"num_attention_heads\":16,\"num_experts\":128,\"num_global_key_value_h"
     "eads\":2,\"num_hidden_layers\":30,\"num_key_value_heads\":8,\"num_kv_shared_layers\":0,\"sliding_win"
     "dow\":1024,\"tie_word_embeddings\":true,\"top_k_experts\":8,\"use_bidirectional_attention\":\"vision"
     "\",\"use_double_wide_mlp\":false,\"vocab_size\":262144,\"vocab_size_per_layer_input\":262144},\"tie_"
     "word_embeddings\":true,\"vision_config\":{\"architectures\":null,\"attention_bias\":false,\"attentio"
     "n_dropout\":0.0,\"chunk_size_feed_forward\":0,\"default_output_length\":280,\"dtype\":\"bfloat16\","
     "\"global_head_dim\":72,\"head_dim\":72,\"hidden_activation\":\"gelu_pytorch_tanh\",\"hidden_size\":11"
     "52,\"id2label\":{\"0\":\"LABEL_0\",\"1\":\"LABEL_1\"},\"intermediate_size\":4304,\"is_encoder_decode"
     "r\":false,\"label2id\":{\"LABEL_0\":0,\"LABEL_1\":1},\"max_position_embeddings\":131072,\"model_type"
     "\":\"gemma4_vision\",\"num_attention_heads\":16,\"num_hidden_layers\":27,\"num_key_value_heads\":16,"
     "\"output_attentions\":false,\"output_hidden_states\":false,\"patch_size\":16,\"pooling_kernel_size\""
     ":3,\"position_embedding_size\":10240,\"problem_type\":null,\"return_dict\":true,\"standardize\":true"
     ",\"use_clipped_linears\":false},\"vision_soft_tokens_per_image\":280}"},
    /* tests/data/models/gemma-4-31b-it.json (its source and count: test_family_gemma4.c) */
    {"gemma-4-31b", "google/gemma-4-31B-it,gemma-4-31b-it",
     "{\"architectures\":[\"Gemma4ForConditionalGeneration\"],\"audio_config\":null,\"dtype\":\"bfloat16\""
     ",\"model_type\":\"gemma4\",\"text_config\":{\"attention_bias\":false,\"attention_dropout\":0.0,\"att"
     "ention_k_eq_v\":true,\"dtype\":\"bfloat16\",\"enable_moe_block\":false,\"expert_intermediate_size\":"
     "null,\"final_logit_softcapping\":30.0,\"global_head_dim\":512,\"head_dim\":256,\"hidden_activation\""
     ":\"gelu_pytorch_tanh\",\"hidden_size\":5376,\"hidden_size_per_layer_input\":0,\"intermediate_size\":"
     "21504,\"layer_types\":[\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_a"
     "ttention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sl"
     "iding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention"
     "\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_at"
     "tention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\""
     "sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attenti"
     "on\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_"
     "attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"s"
     "liding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_atten"
     "tion\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"slidin"
     "g_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\","
     "\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attent"
     "ion\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full"
     "_attention\"],\"max_position_embeddings\":262144,\"model_type\":\"gemma4_text\",\"num_attention_head"
     "s\":32,\"num_experts\":null,\"num_global_key_value_heads\":4,\"num_hidden_layers\":60,\"num_key_valu"
     "e_heads\":16,\"num_kv_shared_layers\":0,\"sliding_window\":1024,\"tie_word_embeddings\":true,\"top_k"
     "_experts\":null,\"use_bidirectional_attention\":\"vision\",\"use_double_wide_mlp\":false,\"vocab_siz"
     "e\":262144,\"vocab_size_per_layer_input\":262144},\"tie_word_embeddings\":true,\"vision_config\":{\""
     "attention_bias\":false,\"attention_dropout\":0.0,\"default_output_length\":280,\"dtype\":\"bfloat16"
     "\",\"global_head_dim\":72,\"head_dim\":72,\"hidden_activation\":\"gelu_pytorch_tanh\",\"hidden_size\""
     ":1152,\"image_seq_length\":280,\"intermediate_size\":4304,\"max_position_embeddings\":131072,\"model"
     "_type\":\"gemma4_vision\",\"num_attention_heads\":16,\"num_hidden_layers\":27,\"num_key_value_heads"
     "\":16,\"patch_size\":16,\"pooling_kernel_size\":3,\"position_embedding_size\":10240,\"standardize\":t"
     "rue,\"use_clipped_linears\":false,\"video_seq_length\":70},\"vision_soft_tokens_per_image\":280}"},
    {"deepseek-v3.2", "deepseek-ai/DeepSeek-V3.2",
     "{\"architectures\":[\"DeepseekV32ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"first_k_dense_replace\":3,\"hidden_act\":\"silu\",\"hidden_size\":7168,\"index_head_dim\":128,\"ind"
     "ex_n_heads\":64,\"index_topk\":2048,\"intermediate_size\":18432,\"kv_lora_rank\":512,\"max_position_"
     "embeddings\":163840,\"model_type\":\"deepseek_v32\",\"moe_intermediate_size\":2048,\"moe_layer_freq"
     "\":1,\"n_group\":8,\"n_routed_experts\":256,\"n_shared_experts\":1,\"norm_topk_prob\":true,\"num_atte"
     "ntion_heads\":128,\"num_experts_per_tok\":8,\"num_hidden_layers\":61,\"num_key_value_heads\":128,\"n"
     "um_nextn_predict_layers\":1,\"q_lora_rank\":1536,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\""
     "quantization_config\":{\"activation_scheme\":\"dynamic\",\"fmt\":\"e4m3\",\"quant_method\":\"fp8\","
     "\"scale_fmt\":\"ue8m0\",\"weight_block_size\":[128,128]},\"routed_scaling_factor\":2.5,\"scoring_func"
     "\":\"sigmoid\",\"tie_word_embeddings\":false,\"topk_group\":4,\"topk_method\":\"noaux_tc\",\"torch_d"
     "type\":\"bfloat16\",\"v_head_dim\":128,\"vocab_size\":129280}"},
    {"glm-5", "zai-org/GLM-5",
     "{\"architectures\":[\"GlmMoeDsaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"d"
     "type\":\"bfloat16\",\"first_k_dense_replace\":3,\"head_dim\":64,\"hidden_act\":\"silu\",\"hidden_siz"
     "e\":6144,\"index_head_dim\":128,\"index_n_heads\":32,\"index_topk\":2048,\"indexer_rope_interleave\""
     ":true,\"intermediate_size\":12288,\"kv_lora_rank\":512,\"max_position_embeddings\":202752,\"model_ty"
     "pe\":\"glm_moe_dsa\",\"moe_intermediate_size\":2048,\"moe_layer_freq\":1,\"n_group\":1,\"n_routed_ex"
     "perts\":256,\"n_shared_experts\":1,\"norm_topk_prob\":true,\"num_attention_heads\":64,\"num_experts_"
     "per_tok\":8,\"num_hidden_layers\":78,\"num_key_value_heads\":64,\"num_nextn_predict_layers\":1,\"q_l"
     "ora_rank\":2048,\"qk_head_dim\":256,\"qk_nope_head_dim\":192,\"qk_rope_head_dim\":64,\"rope_interlea"
     "ve\":true,\"routed_scaling_factor\":2.5,\"scoring_func\":\"sigmoid\",\"tie_word_embeddings\":false,"
     "\"topk_group\":1,\"topk_method\":\"noaux_tc\",\"v_head_dim\":256,\"vocab_size\":154880}"},
    {"phi-4-mini", "microsoft/Phi-4-mini-instruct,phi-4-mini-instruct",
     "{\"architectures\":[\"Phi3ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,\"full_a"
     "ttn_mod\":1,\"hidden_act\":\"silu\",\"hidden_size\":3072,\"intermediate_size\":8192,\"lm_head_bias\""
     ":false,\"max_position_embeddings\":131072,\"mlp_bias\":false,\"model_type\":\"phi3\",\"num_attention"
     "_heads\":24,\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"partial_rotary_factor\":0.75,\"slid"
     "ing_window\":262144,\"tie_word_embeddings\":true,\"torch_dtype\":\"bfloat16\",\"vocab_size\":200064}"},
    {"qwen3.5-27b", "Qwen/Qwen3.5-27B",
     "{\"architectures\":[\"Qwen3_5ForConditionalGeneration\"],\"model_type\":\"qwen3_5\",\"text_config\":"
     "{\"attention_bias\":false,\"attention_dropout\":0.0,\"attn_output_gate\":true,\"dtype\":\"bfloat16\""
     ",\"full_attention_interval\":4,\"head_dim\":256,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"inter"
     "mediate_size\":17408,\"linear_conv_kernel_dim\":4,\"linear_key_head_dim\":128,\"linear_num_key_heads"
     "\":16,\"linear_num_value_heads\":48,\"linear_value_head_dim\":128,\"mamba_ssm_dtype\":\"float32\",\""
     "max_position_embeddings\":262144,\"mlp_only_layers\":[],\"model_type\":\"qwen3_5_text\",\"mtp_num_hi"
     "dden_layers\":1,\"mtp_use_dedicated_embeddings\":false,\"num_attention_heads\":24,\"num_hidden_layer"
     "s\":64,\"num_key_value_heads\":4,\"vocab_size\":248320},\"tie_word_embeddings\":false,\"vision_confi"
     "g\":{\"deepstack_visual_indexes\":[],\"depth\":27,\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_size"
     "\":1152,\"in_channels\":3,\"intermediate_size\":4304,\"model_type\":\"qwen3_5\",\"num_heads\":16,\"n"
     "um_position_embeddings\":2304,\"out_hidden_size\":5120,\"patch_size\":16,\"spatial_merge_size\":2,\""
     "temporal_patch_size\":2}}"},
    {"qwen3.5-35b-a3b", "Qwen/Qwen3.5-35B-A3B",
     "{\"architectures\":[\"Qwen3_5MoeForConditionalGeneration\"],\"model_type\":\"qwen3_5_moe\",\"text_co"
     "nfig\":{\"attention_bias\":false,\"attention_dropout\":0.0,\"attn_output_gate\":true,\"dtype\":\"bfl"
     "oat16\",\"full_attention_interval\":4,\"head_dim\":256,\"hidden_act\":\"silu\",\"hidden_size\":2048,"
     "\"linear_conv_kernel_dim\":4,\"linear_key_head_dim\":128,\"linear_num_key_heads\":16,\"linear_num_va"
     "lue_heads\":32,\"linear_value_head_dim\":128,\"mamba_ssm_dtype\":\"float32\",\"max_position_embeddin"
     "gs\":262144,\"mlp_only_layers\":[],\"model_type\":\"qwen3_5_moe_text\",\"moe_intermediate_size\":512"
     ",\"mtp_num_hidden_layers\":1,\"mtp_use_dedicated_embeddings\":false,\"num_attention_heads\":16,\"num"
     "_experts\":256,\"num_experts_per_tok\":8,\"num_hidden_layers\":40,\"num_key_value_heads\":2,\"shared"
     "_expert_intermediate_size\":512,\"vocab_size\":248320},\"tie_word_embeddings\":false,\"vision_config"
     "\":{\"deepstack_visual_indexes\":[],\"depth\":27,\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_size"
     "\":1152,\"in_channels\":3,\"intermediate_size\":4304,\"model_type\":\"qwen3_5_moe\",\"num_heads\":16,"
     "\"num_position_embeddings\":2304,\"out_hidden_size\":2048,\"patch_size\":16,\"spatial_merge_size\":2"
     ",\"temporal_patch_size\":2}}"},
    {"qwen3.5-122b-a10b", "Qwen/Qwen3.5-122B-A10B",
     "{\"architectures\":[\"Qwen3_5MoeForConditionalGeneration\"],\"model_type\":\"qwen3_5_moe\",\"text_co"
     "nfig\":{\"attention_bias\":false,\"attention_dropout\":0.0,\"attn_output_gate\":true,\"dtype\":\"bfl"
     "oat16\",\"full_attention_interval\":4,\"head_dim\":256,\"hidden_act\":\"silu\",\"hidden_size\":3072,"
     "\"linear_conv_kernel_dim\":4,\"linear_key_head_dim\":128,\"linear_num_key_heads\":16,\"linear_num_va"
     "lue_heads\":64,\"linear_value_head_dim\":128,\"mamba_ssm_dtype\":\"float32\",\"max_position_embeddin"
     "gs\":262144,\"mlp_only_layers\":[],\"model_type\":\"qwen3_5_moe_text\",\"moe_intermediate_size\":102"
     "4,\"mtp_num_hidden_layers\":1,\"mtp_use_dedicated_embeddings\":false,\"num_attention_heads\":32,\"nu"
     "m_experts\":256,\"num_experts_per_tok\":8,\"num_hidden_layers\":48,\"num_key_value_heads\":2,\"share"
     "d_expert_intermediate_size\":1024,\"vocab_size\":248320},\"tie_word_embeddings\":false,\"vision_conf"
     "ig\":{\"deepstack_visual_indexes\":[],\"depth\":27,\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_siz"
     "e\":1152,\"in_channels\":3,\"intermediate_size\":4304,\"model_type\":\"qwen3_5_moe\",\"num_heads\":1"
     "6,\"num_position_embeddings\":2304,\"out_hidden_size\":3072,\"patch_size\":16,\"spatial_merge_size\""
     ":2,\"temporal_patch_size\":2}}"},
    {"qwen3.5-397b-a17b", "Qwen/Qwen3.5-397B-A17B",
     "{\"architectures\":[\"Qwen3_5MoeForConditionalGeneration\"],\"model_type\":\"qwen3_5_moe\",\"text_co"
     "nfig\":{\"attention_bias\":false,\"attention_dropout\":0.0,\"attn_output_gate\":true,\"dtype\":\"bfl"
     "oat16\",\"full_attention_interval\":4,\"head_dim\":256,\"hidden_act\":\"silu\",\"hidden_size\":4096,"
     "\"linear_conv_kernel_dim\":4,\"linear_key_head_dim\":128,\"linear_num_key_heads\":16,\"linear_num_va"
     "lue_heads\":64,\"linear_value_head_dim\":128,\"mamba_ssm_dtype\":\"float32\",\"max_position_embeddin"
     "gs\":262144,\"mlp_only_layers\":[],\"model_type\":\"qwen3_5_moe_text\",\"moe_intermediate_size\":102"
     "4,\"mtp_num_hidden_layers\":1,\"mtp_use_dedicated_embeddings\":false,\"num_attention_heads\":32,\"nu"
     "m_experts\":512,\"num_experts_per_tok\":10,\"num_hidden_layers\":60,\"num_key_value_heads\":2,\"shar"
     "ed_expert_intermediate_size\":1024,\"vocab_size\":248320},\"tie_word_embeddings\":false,\"vision_con"
     "fig\":{\"deepstack_visual_indexes\":[],\"depth\":27,\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_si"
     "ze\":1152,\"in_channels\":3,\"intermediate_size\":4304,\"model_type\":\"qwen3_5_moe\",\"num_heads\":"
     "16,\"num_position_embeddings\":2304,\"out_hidden_size\":4096,\"patch_size\":16,\"spatial_merge_size"
     "\":2,\"temporal_patch_size\":2}}"},
    /* github:kohya-ss/musubi-tuner@5a626975e9:src/musubi_tuner/flux_2/flux2_utils.py M3_CONFIG_JSON (the
     * config.json of mistralai/Mistral-Small-3.1-24B-Instruct-2503 as FLUX.2-dev's text encoder, transformers
     * 4.57.1) */
    {"mistral-small-3.1-24b", "mistralai/Mistral-Small-3.1-24B-Instruct-2503,mistral-small-3.1",
     "{\"architectures\":[\"Mistral3ForConditionalGeneration\"],\"dtype\":\"bfloat16\",\"model_type\":\"mi"
     "stral3\",\"multimodal_projector_bias\":false,\"projector_hidden_act\":\"gelu\",\"spatial_merge_size\""
     ":2,\"text_config\":{\"dtype\":\"bfloat16\",\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":"
     "5120,\"intermediate_size\":32768,\"max_position_embeddings\":131072,\"model_type\":\"mistral\",\"num"
     "_attention_heads\":32,\"num_hidden_layers\":40,\"num_key_value_heads\":8,\"sliding_window\":null,\"v"
     "ocab_size\":131072},\"vision_config\":{\"dtype\":\"bfloat16\",\"head_dim\":64,\"hidden_act\":\"silu\""
     ",\"hidden_size\":1024,\"image_size\":1540,\"intermediate_size\":4096,\"model_type\":\"pixtral\",\"nu"
     "m_attention_heads\":16,\"num_channels\":3,\"num_hidden_layers\":24,\"patch_size\":14},\"vision_featu"
     "re_layer\":-1}"},
    /* github:modelscope/DiffSynth-Studio@4f23caa55f:diffsynth/models/ltx2_text_encoder.py (LTX-2's text
     * encoder config.json: google/gemma-3-12b-it, transformers 4.57.3) */
    {"gemma-3-12b", "google/gemma-3-12b-it,gemma-3-12b-it,google/gemma-3-12b-pt",
     "{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"dtype\":\"bfloat16\",\"mm_tokens_per_image"
     "\":256,\"model_type\":\"gemma3\",\"text_config\":{\"attention_bias\":false,\"attn_logit_softcapping\""
     ":null,\"dtype\":\"bfloat16\",\"final_logit_softcapping\":null,\"head_dim\":256,\"hidden_activation\""
     ":\"gelu_pytorch_tanh\",\"hidden_size\":3840,\"intermediate_size\":15360,\"max_position_embeddings\":"
     "131072,\"model_type\":\"gemma3_text\",\"num_attention_heads\":16,\"num_hidden_layers\":48,\"num_key_"
     "value_heads\":8,\"sliding_window\":1024,\"sliding_window_pattern\":6,\"vocab_size\":262208},\"vision"
     "_config\":{\"dtype\":\"bfloat16\",\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_size\":1152,\"image_"
     "size\":896,\"intermediate_size\":4304,\"model_type\":\"siglip_vision_model\",\"num_attention_heads\""
     ":16,\"num_channels\":3,\"num_hidden_layers\":27,\"patch_size\":14,\"vision_use_head\":false}}"},
    /* github:Ibtasam-98/medgemma-27b-it@351f31de59:config.json (google/medgemma-27b-it, zoo2 case
     * zoo2-params-medgemma-27b-it; its count equals google/gemma-3-27b-it's total: the same module) */
    {"gemma-3-27b", "google/gemma-3-27b-it,gemma-3-27b-it,google/medgemma-27b-it,medgemma-27b-it",
     "{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"mm_tokens_per_image\":256,\"model_type\":\""
     "gemma3\",\"text_config\":{\"attention_bias\":false,\"attn_logit_softcapping\":null,\"final_logit_sof"
     "tcapping\":null,\"head_dim\":128,\"hidden_activation\":\"gelu_pytorch_tanh\",\"hidden_size\":5376,\""
     "intermediate_size\":21504,\"max_position_embeddings\":131072,\"model_type\":\"gemma3_text\",\"num_at"
     "tention_heads\":32,\"num_hidden_layers\":62,\"num_key_value_heads\":16,\"sliding_window\":1024,\"tor"
     "ch_dtype\":\"bfloat16\",\"vocab_size\":262208},\"torch_dtype\":\"bfloat16\",\"vision_config\":{\"hid"
     "den_act\":\"gelu_pytorch_tanh\",\"hidden_size\":1152,\"image_size\":896,\"intermediate_size\":4304,\""
     "model_type\":\"siglip_vision_model\",\"num_attention_heads\":16,\"num_channels\":3,\"num_hidden_laye"
     "rs\":27,\"patch_size\":14,\"torch_dtype\":\"bfloat16\",\"vision_use_head\":false}}"},
    /* github:tianyu1412/Hunyuan-A13B@2798f3c8b6:models/config.json (tencent/Hunyuan-A13B's remote-code
     * config; tests/data/models/hunyuan-a13b.json) */
    {"hunyuan-a13b", "tencent/Hunyuan-A13B-Instruct,tencent/Hunyuan-A13B,hunyuan-a13b-instruct",
     "{\"architectures\":[\"HunYuanMoEV1ForCausalLM\"],\"attention_bias\":false,\"attention_head_dim\":128"
     ",\"cla_share_factor\":2,\"hidden_act\":\"silu\",\"hidden_size\":4096,\"intermediate_size\":3072,\"ma"
     "x_position_embeddings\":32768,\"mlp_bias\":false,\"model_type\":\"hunyuan\",\"moe_intermediate_size\""
     ":[3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,307"
     "2,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072],\"moe_layer_num_skipped\":0,\"moe_top"
     "k\":[8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8],\"num_attention_heads\":32,\"n"
     "um_experts\":64,\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"num_shared_expert\":[1,1,1,1,1,"
     "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],\"tie_word_embeddings\":true,\"torch_dtype\":"
     "\"bfloat16\",\"use_cla\":false,\"use_mixed_mlp_moe\":true,\"use_mla\":false,\"use_qk_norm\":true,\"v"
     "ocab_size\":128167}"},
    /* Built from published architecture data, not a verbatim config.json (the lead's rule for issue #16
     * item 7: allowed only where the count equals an independent total to the element). Text: the trimmed
     * config github:ai-dynamo/aiconfigurator@095f58a51c:aic-core/src/aiconfigurator_core/model_configs/
     * meta-llama--Llama-4-Scout-17B-16E-Instruct_config.json (zoo case zoo-params-llama-4-scout-17b-16e);
     * vision: the vision_config of the Maverick preset above (github:kvcache-ai/ktransformers@054fb227e1:
     * doc/en/maverick_config.json), the tower the family ships with both. Check: count equals
     * 108,641,793,536, the HF API safetensors.total of that zoo case (the text alone gives 107,769,861,120).
     * The source has no no_rope_layer_interval: the family default (4) applies. */
    {"llama-4-scout-17b-16e",
     "meta-llama/Llama-4-Scout-17B-16E-Instruct,meta-llama/Llama-4-Scout-17B-16E,llama-4-scout",
     "{\"architectures\":[\"Llama4ForConditionalGeneration\"],\"model_type\":\"llama4\",\"text_config\":{"
     "\"attention_bias\":false,\"attention_chunk_size\":8192,\"attention_dropout\":0.0,\"head_dim\":128,\""
     "hidden_act\":\"silu\",\"hidden_size\":5120,\"interleave_moe_layer_step\":1,\"intermediate_size\":819"
     "2,\"intermediate_size_mlp\":16384,\"max_position_embeddings\":10485760,\"model_type\":\"llama4_text"
     "\",\"num_attention_heads\":40,\"num_experts_per_tok\":1,\"num_hidden_layers\":48,\"num_key_value_hea"
     "ds\":8,\"num_local_experts\":16,\"torch_dtype\":\"bfloat16\",\"use_qk_norm\":true,\"vocab_size\":202"
     "048},\"torch_dtype\":\"bfloat16\",\"vision_config\":{\"attention_dropout\":0.0,\"hidden_act\":\"gelu"
     "\",\"hidden_size\":1408,\"image_size\":336,\"intermediate_size\":5632,\"model_type\":\"llama4_vision"
     "_model\",\"multi_modal_projector_bias\":false,\"norm_eps\":1e-05,\"num_attention_heads\":16,\"num_ch"
     "annels\":3,\"num_hidden_layers\":34,\"patch_size\":14,\"pixel_shuffle_ratio\":0.5,\"projector_dropou"
     "t\":0.0,\"projector_input_dim\":4096,\"projector_output_dim\":4096,\"vision_feature_layer\":-1,\"vis"
     "ion_feature_select_strategy\":\"default\",\"vision_output_dim\":4096}}"},
    /* Built from published architecture data, not a verbatim config.json: _VARIANTS["gemma3_4b"] and
     * _VISION_CONFIG of github:huggingface/transformers@58827fc902:src/transformers/models/gemma3/
     * convert_gemma3_weights_orbax_to_hf.py, transformers' converter of the Orbax release (intermediate_size
     * 2560 * 8 // 2, torch_dtype its --text_dtype default). Check: count equals 4,300,079,472, the HF API
     * safetensors.total of google/gemma-3-4b-it and -pt cached in github:AlexsJones/llmfit@a3e0eb27c5:
     * llmfit-core/data/hf_models.json (an older commit of the script, vocab 262,144, gives 163,840 fewer).
     * Not in the source: max_position_embeddings (the trained context; the reader's default applies),
     * sliding_window_pattern (Gemma3TextConfig's default 6 applies, as for gemma-3-27b), the tower's dtype
     * (the script's --vision_dtype default is float32; the tower is counted at the text dtype). */
    {"gemma-3-4b", "google/gemma-3-4b-it,gemma-3-4b-it,google/gemma-3-4b-pt",
     "{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"model_type\":\"gemma3\",\"text_config\":{"
     "\"attn_logit_softcapping\":null,\"head_dim\":256,\"hidden_size\":2560,\"intermediate_size\":10240,\""
     "model_type\":\"gemma3_text\",\"num_attention_heads\":8,\"num_hidden_layers\":34,\"num_key_value_head"
     "s\":4,\"sliding_window\":1024,\"torch_dtype\":\"bfloat16\",\"vocab_size\":262208},\"vision_config\":"
     "{\"attention_dropout\":0.0,\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_size\":1152,\"image_size\":"
     "896,\"intermediate_size\":4304,\"model_type\":\"siglip_vision_model\",\"num_attention_heads\":16,\"n"
     "um_channels\":3,\"num_hidden_layers\":27,\"patch_size\":14,\"vision_use_head\":false}}"},
    /* microsoft/phi-4 (14B; Phi3ForCausalLM): its config.json as published (transformers 4.47.0),
     * quoted whole in a public Markdown note of the search index (find_string id 58256788114; the index
     * names no repository for it), the same sizes as the phi4 test config of a public Rust crate (id
     * 58758253061). Check: count equals 14,659,507,200, the HF API safetensors total of
     * microsoft/phi-4 and unsloth/phi-4 (= V h x 2 untied + 40 x (qkv 5120 x 7680 + o + gate_up 5120 x
     * 35840 + down + 2 norms) + final norm). */
    {"phi-4", "microsoft/phi-4,phi4",
     "{\"_name_or_path\":\"microsoft/phi-4\",\"architectures\":[\"Phi3ForCausalLM\"],\"attention_bias\":fa"
     "lse,\"attention_dropout\":0.0,\"auto_map\":{},\"bos_token_id\":100257,\"embd_pdrop\":0.0,\"eos_token"
     "_id\":100257,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"initializer_range\":0.02,\"intermediate_"
     "size\":17920,\"max_position_embeddings\":16384,\"model_type\":\"phi3\",\"num_attention_heads\":40,\""
     "num_hidden_layers\":40,\"num_key_value_heads\":10,\"original_max_position_embeddings\":16384,\"pad_t"
     "oken_id\":100257,\"resid_pdrop\":0.0,\"rms_norm_eps\":1e-05,\"rope_scaling\":null,\"rope_theta\":250"
     "000,\"sliding_window\":null,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"transformer"
     "s_version\":\"4.47.0\",\"use_cache\":true,\"vocab_size\":100352}"},
    /* GLM-4.5 and GLM-4.5-Air (glm4_moe). Built from published architecture data, not a verbatim
     * config.json (none in a citable public file; the trimmed ones found lack attention_bias and
     * use_qk_norm, which change the count): GLMMoEModelProvider, GLM45ModelProvider355B and
     * GLM45AirModelProvider106B of github:NVIDIA-NeMo/Megatron-Bridge@5f28ae824b:src/megatron/bridge/
     * models/glm/glm45_provider.py (qkv bias; q/k norm on 4.5, none on Air; 8 KV groups of 128; rotary
     * 0.5 at base 1e6; 3 / 1 dense layers; shared expert = moe_ffn_hidden_size; untied; vocab 151552;
     * eps 1e-5; seq 131072; 1 MTP layer), in transformers' glm4_moe key names. Check (item 7): counts
     * equal 352,797,814,784 and 106,852,245,504, the HF API safetensors totals of zai-org/GLM-4.5
     * (358,337,791,296) and GLM-4.5-Air (110,468,824,832; github:AlexsJones/llmfit@a3e0eb27c5:llmfit-core/
     * data/hf_models.json) less, to the element, the e_score_correction_bias buffers (89 x 160, 45 x 128),
     * the MTP layer (one MoE layer + its bias + eh_proj 2h x h + 3 norms) and its embed/head copies
     * (2 x vocab x h). Without 4.5's q/k norms the count misses by 23,552; without the qkv bias by
     * 1,318,912 (4.5) and 659,456 (Air). GLM-4.6 has the same count but a 202,752 context: not aliased. */
    {"glm-4.5", "zai-org/GLM-4.5,zai-org/GLM-4.5-Base,glm-4.5",
     "{\"architectures\":[\"Glm4MoeForCausalLM\"],\"attention_bias\":true,\"first_k_dense_replace\":3,\"he"
     "ad_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":5120,\"intermediate_size\":12288,\"max_position"
     "_embeddings\":131072,\"model_type\":\"glm4_moe\",\"moe_intermediate_size\":1536,\"n_group\":1,\"n_ro"
     "uted_experts\":160,\"n_shared_experts\":1,\"norm_topk_prob\":true,\"num_attention_heads\":96,\"num_e"
     "xperts_per_tok\":8,\"num_hidden_layers\":92,\"num_key_value_heads\":8,\"num_nextn_predict_layers\":1"
     ",\"partial_rotary_factor\":0.5,\"rms_norm_eps\":1e-05,\"rope_theta\":1000000,\"routed_scaling_factor"
     "\":2.5,\"tie_word_embeddings\":false,\"topk_group\":1,\"torch_dtype\":\"bfloat16\",\"use_qk_norm\":t"
     "rue,\"vocab_size\":151552}"},
    {"glm-4.5-air", "zai-org/GLM-4.5-Air,zai-org/GLM-4.5-Air-Base,glm-4.5-air",
     "{\"architectures\":[\"Glm4MoeForCausalLM\"],\"attention_bias\":true,\"first_k_dense_replace\":1,\"he"
     "ad_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":4096,\"intermediate_size\":10944,\"max_position"
     "_embeddings\":131072,\"model_type\":\"glm4_moe\",\"moe_intermediate_size\":1408,\"n_group\":1,\"n_ro"
     "uted_experts\":128,\"n_shared_experts\":1,\"norm_topk_prob\":true,\"num_attention_heads\":96,\"num_e"
     "xperts_per_tok\":8,\"num_hidden_layers\":46,\"num_key_value_heads\":8,\"num_nextn_predict_layers\":1"
     ",\"partial_rotary_factor\":0.5,\"rms_norm_eps\":1e-05,\"rope_theta\":1000000,\"routed_scaling_factor"
     "\":1.0,\"tie_word_embeddings\":false,\"topk_group\":1,\"torch_dtype\":\"bfloat16\",\"use_qk_norm\":f"
     "alse,\"vocab_size\":151552}"},
};

const size_t vx_presets_2026_count = VX_ARRAY_LEN(vx_presets_2026);
