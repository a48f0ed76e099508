/* Presets of the 2025-2026 model zoo (issue #16): the architecture keys of
 * real config.json files, compiled in (see presets.c). Each config is the
 * one a case of tests/data/zoo.jsonl or zoo2.jsonl names as its source
 * (repository and commit there), keys irrelevant to memory left out, so
 * tests/data/models/preset_params.tsv gives each its exact count. A
 * heterogeneous model's block_configs is written as layer_blocks, the form
 * the config.json reader turns it into. Append new presets at the end. */
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
};

const size_t vx_presets_2026_count = VX_ARRAY_LEN(vx_presets_2026);
