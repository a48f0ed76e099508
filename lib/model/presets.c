/* Bundled model presets: the architecture keys of real config.json files
 * (the files in /work/shared/validation/models where we have them, else the
 * published configs), compiled in so that no file is read at run time. A
 * preset is built through the same config.json reader as a user's file, so
 * presets and files cannot drift apart. Keys irrelevant to memory (token
 * ids, rope scaling, eps) are left out. Names are lowercase; aliases include
 * the Hugging Face repo id. */
#include <stdlib.h>
#include <string.h>

#include "model/hf_config.h"
#include "model/presets.h"

static const vx_preset presets[] = {
    {"llama-2-7b", "meta-llama/Llama-2-7b-hf",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_act\":\"silu\",\"hidden_size\":4096,"
     "\"intermediate_size\":11008,\"max_position_embeddings\":4096,\"model_type\":\"llama\","
     "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":32,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"vocab_size\":32000}"},
    {"llama-2-13b", "meta-llama/Llama-2-13b-hf",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_act\":\"silu\",\"hidden_size\":5120,"
     "\"intermediate_size\":13824,\"max_position_embeddings\":4096,\"model_type\":\"llama\","
     "\"num_attention_heads\":40,\"num_hidden_layers\":40,\"num_key_value_heads\":40,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"vocab_size\":32000}"},
    {"llama-2-70b", "meta-llama/Llama-2-70b-hf",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_act\":\"silu\",\"hidden_size\":8192,"
     "\"intermediate_size\":28672,\"max_position_embeddings\":4096,\"model_type\":\"llama\","
     "\"num_attention_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":8,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"vocab_size\":32000}"},
    {"llama-3-8b", "meta-llama/Meta-Llama-3-8B",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"hidden_act\":\"silu\",\"hidden_size\":4096,\"intermediate_size\":14336,\"max_position_embeddings\":8192,"
     "\"model_type\":\"llama\",\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}"},
    {"llama-3-70b", "meta-llama/Meta-Llama-3-70B",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"hidden_act\":\"silu\",\"hidden_size\":8192,\"intermediate_size\":28672,\"max_position_embeddings\":8192,"
     "\"model_type\":\"llama\",\"num_attention_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":8,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}"},
    {"llama-3.1-8b", "meta-llama/Llama-3.1-8B",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"hidden_act\":\"silu\",\"hidden_size\":4096,\"intermediate_size\":14336,"
     "\"max_position_embeddings\":131072,\"mlp_bias\":false,\"model_type\":\"llama\",\"num_attention_heads\":32,"
     "\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"tie_word_embeddings\":false,"
     "\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}"},
    {"llama-3.1-70b", "meta-llama/Llama-3.1-70B",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"hidden_act\":\"silu\",\"hidden_size\":8192,\"intermediate_size\":28672,"
     "\"max_position_embeddings\":131072,\"mlp_bias\":false,\"model_type\":\"llama\",\"num_attention_heads\":64,"
     "\"num_hidden_layers\":80,\"num_key_value_heads\":8,\"tie_word_embeddings\":false,"
     "\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}"},
    {"llama-3.1-405b", "meta-llama/Llama-3.1-405B",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"hidden_act\":\"silu\",\"hidden_size\":16384,\"intermediate_size\":53248,"
     "\"max_position_embeddings\":131072,\"mlp_bias\":false,\"model_type\":\"llama\","
     "\"num_attention_heads\":128,\"num_hidden_layers\":126,\"num_key_value_heads\":8,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}"},
    {"llama-3.2-1b", "meta-llama/Llama-3.2-1B",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"head_dim\":64,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"intermediate_size\":8192,"
     "\"max_position_embeddings\":131072,\"mlp_bias\":false,\"model_type\":\"llama\",\"num_attention_heads\":32,"
     "\"num_hidden_layers\":16,\"num_key_value_heads\":8,\"tie_word_embeddings\":true,"
     "\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}"},
    {"llama-3.2-3b", "meta-llama/Llama-3.2-3B",
     "{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":3072,\"intermediate_size\":8192,"
     "\"max_position_embeddings\":131072,\"mlp_bias\":false,\"model_type\":\"llama\",\"num_attention_heads\":24,"
     "\"num_hidden_layers\":28,\"num_key_value_heads\":8,\"tie_word_embeddings\":true,"
     "\"torch_dtype\":\"bfloat16\",\"vocab_size\":128256}"},
    {"mistral-7b-v0.1", "mistral-7b,mistralai/Mistral-7B-v0.1",
     "{\"architectures\":[\"MistralForCausalLM\"],\"hidden_act\":\"silu\",\"hidden_size\":4096,"
     "\"intermediate_size\":14336,\"max_position_embeddings\":32768,\"model_type\":\"mistral\","
     "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"sliding_window\":4096,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":32000}"},
    {"mixtral-8x7b", "mixtral-8x7b-v0.1,mistralai/Mixtral-8x7B-v0.1",
     "{\"architectures\":[\"MixtralForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"silu\","
     "\"hidden_size\":4096,\"intermediate_size\":14336,\"max_position_embeddings\":32768,"
     "\"model_type\":\"mixtral\",\"num_attention_heads\":32,\"num_experts_per_tok\":2,\"num_hidden_layers\":32,"
     "\"num_key_value_heads\":8,\"num_local_experts\":8,\"sliding_window\":null,\"tie_word_embeddings\":false,"
     "\"torch_dtype\":\"bfloat16\",\"vocab_size\":32000}"},
    {"mixtral-8x22b", "mixtral-8x22b-v0.1,mistralai/Mixtral-8x22B-v0.1",
     "{\"architectures\":[\"MixtralForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"silu\","
     "\"hidden_size\":6144,\"intermediate_size\":16384,\"max_position_embeddings\":65536,"
     "\"model_type\":\"mixtral\",\"num_attention_heads\":48,\"num_experts_per_tok\":2,\"num_hidden_layers\":56,"
     "\"num_key_value_heads\":8,\"num_local_experts\":8,\"sliding_window\":null,\"tie_word_embeddings\":false,"
     "\"torch_dtype\":\"bfloat16\",\"vocab_size\":32000}"},
    {"qwen2-0.5b", "Qwen/Qwen2-0.5B",
     "{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"silu\","
     "\"hidden_size\":896,\"intermediate_size\":4864,\"max_position_embeddings\":32768,\"model_type\":\"qwen2\","
     "\"num_attention_heads\":14,\"num_hidden_layers\":24,\"num_key_value_heads\":2,\"sliding_window\":32768,"
     "\"tie_word_embeddings\":true,\"torch_dtype\":\"bfloat16\",\"use_sliding_window\":false,"
     "\"vocab_size\":151936}"},
    {"qwen2-7b", "Qwen/Qwen2-7B",
     "{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"silu\","
     "\"hidden_size\":3584,\"intermediate_size\":18944,\"max_position_embeddings\":32768,"
     "\"model_type\":\"qwen2\",\"num_attention_heads\":28,\"num_hidden_layers\":28,\"num_key_value_heads\":4,"
     "\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
     "\"use_sliding_window\":false,\"vocab_size\":152064}"},
    {"qwen2-72b", "Qwen/Qwen2-72B",
     "{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"silu\","
     "\"hidden_size\":8192,\"intermediate_size\":29568,\"max_position_embeddings\":131072,"
     "\"model_type\":\"qwen2\",\"num_attention_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":8,"
     "\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
     "\"use_sliding_window\":false,\"vocab_size\":152064}"},
    {"qwen2.5-7b", "Qwen/Qwen2.5-7B",
     "{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"silu\","
     "\"hidden_size\":3584,\"intermediate_size\":18944,\"max_position_embeddings\":131072,"
     "\"model_type\":\"qwen2\",\"num_attention_heads\":28,\"num_hidden_layers\":28,\"num_key_value_heads\":4,"
     "\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
     "\"use_sliding_window\":false,\"vocab_size\":152064}"},
    {"qwen2.5-14b", "Qwen/Qwen2.5-14B",
     "{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"silu\","
     "\"hidden_size\":5120,\"intermediate_size\":13824,\"max_position_embeddings\":131072,"
     "\"model_type\":\"qwen2\",\"num_attention_heads\":40,\"num_hidden_layers\":48,\"num_key_value_heads\":8,"
     "\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
     "\"use_sliding_window\":false,\"vocab_size\":152064}"},
    {"qwen2.5-32b", "Qwen/Qwen2.5-32B",
     "{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"silu\","
     "\"hidden_size\":5120,\"intermediate_size\":27648,\"max_position_embeddings\":131072,"
     "\"model_type\":\"qwen2\",\"num_attention_heads\":40,\"num_hidden_layers\":64,\"num_key_value_heads\":8,"
     "\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
     "\"use_sliding_window\":false,\"vocab_size\":152064}"},
    {"qwen2.5-72b", "Qwen/Qwen2.5-72B",
     "{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"silu\","
     "\"hidden_size\":8192,\"intermediate_size\":29568,\"max_position_embeddings\":131072,"
     "\"model_type\":\"qwen2\",\"num_attention_heads\":64,\"num_hidden_layers\":80,\"num_key_value_heads\":8,"
     "\"sliding_window\":131072,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
     "\"use_sliding_window\":false,\"vocab_size\":152064}"},
    {"qwen3-8b", "Qwen/Qwen3-8B",
     "{\"architectures\":[\"Qwen3ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":4096,\"intermediate_size\":12288,"
     "\"max_position_embeddings\":40960,\"model_type\":\"qwen3\",\"num_attention_heads\":32,"
     "\"num_hidden_layers\":36,\"num_key_value_heads\":8,\"sliding_window\":null,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"use_sliding_window\":false,"
     "\"vocab_size\":151936}"},
    {"qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B",
     "{\"architectures\":[\"Qwen3MoeForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"intermediate_size\":6144,"
     "\"max_position_embeddings\":40960,\"model_type\":\"qwen3_moe\",\"moe_intermediate_size\":768,"
     "\"num_attention_heads\":32,\"num_experts\":128,\"num_experts_per_tok\":8,\"num_hidden_layers\":48,"
     "\"num_key_value_heads\":4,\"sliding_window\":null,\"tie_word_embeddings\":false,"
     "\"torch_dtype\":\"bfloat16\",\"use_sliding_window\":false,\"vocab_size\":151936}"},
    {"gemma-2b", "google/gemma-2b",
     "{\"architectures\":[\"GemmaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"head_dim\":256,\"hidden_act\":\"gelu\",\"hidden_size\":2048,\"intermediate_size\":16384,"
     "\"max_position_embeddings\":8192,\"model_type\":\"gemma\",\"num_attention_heads\":8,"
     "\"num_hidden_layers\":18,\"num_key_value_heads\":1,\"torch_dtype\":\"bfloat16\",\"vocab_size\":256000}"},
    {"gemma-7b", "google/gemma-7b",
     "{\"architectures\":[\"GemmaForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"head_dim\":256,\"hidden_act\":\"gelu\",\"hidden_size\":3072,\"intermediate_size\":24576,"
     "\"max_position_embeddings\":8192,\"model_type\":\"gemma\",\"num_attention_heads\":16,"
     "\"num_hidden_layers\":28,\"num_key_value_heads\":16,\"torch_dtype\":\"bfloat16\",\"vocab_size\":256000}"},
    {"gemma-2-9b", "google/gemma-2-9b",
     "{\"architectures\":[\"Gemma2ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"final_logit_softcapping\":30.0,\"head_dim\":256,\"hidden_act\":\"gelu_pytorch_tanh\","
     "\"hidden_activation\":\"gelu_pytorch_tanh\",\"hidden_size\":3584,\"intermediate_size\":14336,"
     "\"max_position_embeddings\":8192,\"model_type\":\"gemma2\",\"num_attention_heads\":16,"
     "\"num_hidden_layers\":42,\"num_key_value_heads\":8,\"sliding_window\":4096,\"sliding_window_size\":4096,"
     "\"torch_dtype\":\"bfloat16\",\"vocab_size\":256000}"},
    {"gemma-2-27b", "google/gemma-2-27b",
     "{\"architectures\":[\"Gemma2ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"final_logit_softcapping\":30.0,\"head_dim\":128,\"hidden_act\":\"gelu_pytorch_tanh\","
     "\"hidden_activation\":\"gelu_pytorch_tanh\",\"hidden_size\":4608,\"intermediate_size\":36864,"
     "\"max_position_embeddings\":8192,\"model_type\":\"gemma2\",\"num_attention_heads\":32,"
     "\"num_hidden_layers\":46,\"num_key_value_heads\":16,\"sliding_window\":4096,"
     "\"sliding_window_size\":4096,\"torch_dtype\":\"float32\",\"vocab_size\":256000}"},
    {"phi-2", "microsoft/phi-2",
     "{\"architectures\":[\"PhiForCausalLM\"],\"attention_dropout\":0.0,\"hidden_act\":\"gelu_new\","
     "\"hidden_size\":2560,\"intermediate_size\":10240,\"max_position_embeddings\":2048,\"model_type\":\"phi\","
     "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":32,\"qk_layernorm\":false,"
     "\"resid_pdrop\":0.1,\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"vocab_size\":51200}"},
    {"phi-3-mini", "phi-3-mini-4k,microsoft/Phi-3-mini-4k-instruct",
     "{\"architectures\":[\"Phi3ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"hidden_act\":\"silu\",\"hidden_size\":3072,\"intermediate_size\":8192,\"max_position_embeddings\":4096,"
     "\"model_type\":\"phi3\",\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":32,"
     "\"resid_pdrop\":0.0,\"sliding_window\":2047,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
     "\"vocab_size\":32064}"},
    {"gpt2", "gpt2-small,openai-community/gpt2",
     "{\"activation_function\":\"gelu_new\",\"architectures\":[\"GPT2LMHeadModel\"],\"attn_pdrop\":0.1,"
     "\"model_type\":\"gpt2\",\"n_embd\":768,\"n_head\":12,\"n_layer\":12,\"n_positions\":1024,\"resid_pdrop\":0.1,"
     "\"vocab_size\":50257}"},
    {"gpt2-medium", "openai-community/gpt2-medium",
     "{\"activation_function\":\"gelu_new\",\"architectures\":[\"GPT2LMHeadModel\"],\"attn_pdrop\":0.1,"
     "\"model_type\":\"gpt2\",\"n_embd\":1024,\"n_head\":16,\"n_layer\":24,\"n_positions\":1024,\"resid_pdrop\":0.1,"
     "\"vocab_size\":50257}"},
    {"gpt2-large", "openai-community/gpt2-large",
     "{\"activation_function\":\"gelu_new\",\"architectures\":[\"GPT2LMHeadModel\"],\"attn_pdrop\":0.1,"
     "\"model_type\":\"gpt2\",\"n_embd\":1280,\"n_head\":20,\"n_layer\":36,\"n_positions\":1024,\"resid_pdrop\":0.1,"
     "\"vocab_size\":50257}"},
    {"gpt2-xl", "openai-community/gpt2-xl",
     "{\"activation_function\":\"gelu_new\",\"architectures\":[\"GPT2LMHeadModel\"],\"attn_pdrop\":0.1,"
     "\"model_type\":\"gpt2\",\"n_embd\":1600,\"n_head\":25,\"n_layer\":48,\"n_positions\":1024,\"resid_pdrop\":0.1,"
     "\"vocab_size\":50257}"},
    {"bert-base-uncased", "bert-base,google-bert/bert-base-uncased",
     "{\"architectures\":[\"BertForMaskedLM\"],\"attention_probs_dropout_prob\":0.1,\"hidden_act\":\"gelu\","
     "\"hidden_dropout_prob\":0.1,\"hidden_size\":768,\"intermediate_size\":3072,"
     "\"max_position_embeddings\":512,\"model_type\":\"bert\",\"num_attention_heads\":12,"
     "\"num_hidden_layers\":12,\"type_vocab_size\":2,\"vocab_size\":30522}"},
    {"bert-large-uncased", "bert-large,google-bert/bert-large-uncased",
     "{\"architectures\":[\"BertForMaskedLM\"],\"attention_probs_dropout_prob\":0.1,\"hidden_act\":\"gelu\","
     "\"hidden_dropout_prob\":0.1,\"hidden_size\":1024,\"intermediate_size\":4096,"
     "\"max_position_embeddings\":512,\"model_type\":\"bert\",\"num_attention_heads\":16,"
     "\"num_hidden_layers\":24,\"type_vocab_size\":2,\"vocab_size\":30522}"},
    {"t5-base", "google-t5/t5-base",
     "{\"architectures\":[\"T5ForConditionalGeneration\"],\"d_ff\":3072,\"d_kv\":64,\"d_model\":768,"
     "\"dropout_rate\":0.1,\"model_type\":\"t5\",\"n_positions\":512,\"num_heads\":12,\"num_layers\":12,"
     "\"relative_attention_num_buckets\":32,\"vocab_size\":32128}"},
    {"mt5-base", "google/mt5-base",
     "{\"architectures\":[\"MT5ForConditionalGeneration\"],\"d_ff\":2048,\"d_kv\":64,\"d_model\":768,"
     "\"dropout_rate\":0.1,\"feed_forward_proj\":\"gated-gelu\",\"model_type\":\"mt5\",\"num_decoder_layers\":12,"
     "\"num_heads\":12,\"num_layers\":12,\"relative_attention_num_buckets\":32,\"tie_word_embeddings\":false,"
     "\"vocab_size\":250112}"},
    {"t0_3b", "t0-3b,bigscience/T0_3B",
     "{\"architectures\":[\"T5ForConditionalGeneration\"],\"d_ff\":5120,\"d_kv\":64,\"d_model\":2048,"
     "\"dropout_rate\":0.1,\"feed_forward_proj\":\"gated-gelu\",\"model_type\":\"t5\",\"num_decoder_layers\":24,"
     "\"num_heads\":32,\"num_layers\":24,\"relative_attention_num_buckets\":32,\"tie_word_embeddings\":false,"
     "\"torch_dtype\":\"float32\",\"vocab_size\":32128}"},
    {"mt0-xxl", "bigscience/mt0-xxl",
     "{\"architectures\":[\"MT5ForConditionalGeneration\"],\"d_ff\":10240,\"d_kv\":64,\"d_model\":4096,"
     "\"dense_act_fn\":\"gelu_new\",\"dropout_rate\":0.1,\"feed_forward_proj\":\"gated-gelu\","
     "\"is_gated_act\":true,\"model_type\":\"mt5\",\"num_decoder_layers\":24,\"num_heads\":64,\"num_layers\":24,"
     "\"relative_attention_num_buckets\":32,\"tie_word_embeddings\":false,\"torch_dtype\":\"float32\","
     "\"vocab_size\":250112}"},
    {"opt-350m", "facebook/opt-350m",
     "{\"activation_function\":\"relu\",\"architectures\":[\"OPTForCausalLM\"],\"attention_dropout\":0.0,"
     "\"do_layer_norm_before\":false,\"dropout\":0.1,\"ffn_dim\":4096,\"hidden_size\":1024,"
     "\"max_position_embeddings\":2048,\"model_type\":\"opt\",\"num_attention_heads\":16,"
     "\"num_hidden_layers\":24,\"torch_dtype\":\"float16\",\"vocab_size\":50272,\"word_embed_proj_dim\":512}"},
    {"opt-1.3b", "facebook/opt-1.3b",
     "{\"activation_function\":\"relu\",\"architectures\":[\"OPTForCausalLM\"],\"attention_dropout\":0.0,"
     "\"do_layer_norm_before\":true,\"dropout\":0.1,\"ffn_dim\":8192,\"hidden_size\":2048,"
     "\"max_position_embeddings\":2048,\"model_type\":\"opt\",\"num_attention_heads\":32,"
     "\"num_hidden_layers\":24,\"torch_dtype\":\"float16\",\"vocab_size\":50272,\"word_embed_proj_dim\":2048}"},
    {"bloom-560m", "bigscience/bloom-560m",
     "{\"architectures\":[\"BloomForCausalLM\"],\"attention_dropout\":0.0,\"hidden_dropout\":0.0,"
     "\"hidden_size\":1024,\"model_type\":\"bloom\",\"n_head\":16,\"n_inner\":null,\"n_layer\":24,"
     "\"vocab_size\":250880}"},
    {"bloomz-7b1", "bloom-7b1,bigscience/bloomz-7b1",
     "{\"architectures\":[\"BloomForCausalLM\"],\"attention_dropout\":0.0,\"hidden_dropout\":0.0,"
     "\"hidden_size\":4096,\"model_type\":\"bloom\",\"n_head\":32,\"n_inner\":null,\"n_layer\":30,"
     "\"vocab_size\":250880}"},
    {"falcon-7b", "tiiuae/falcon-7b",
     "{\"architectures\":[\"FalconForCausalLM\"],\"attention_dropout\":0.0,\"bias\":false,"
     "\"hidden_dropout\":0.0,\"hidden_size\":4544,\"model_type\":\"falcon\",\"multi_query\":true,"
     "\"new_decoder_architecture\":false,\"num_attention_heads\":71,\"num_hidden_layers\":32,"
     "\"parallel_attn\":true,\"torch_dtype\":\"bfloat16\",\"vocab_size\":65024}"},
    {"pythia-1b", "EleutherAI/pythia-1b",
     "{\"architectures\":[\"GPTNeoXForCausalLM\"],\"hidden_act\":\"gelu\",\"hidden_size\":2048,"
     "\"intermediate_size\":8192,\"max_position_embeddings\":2048,\"model_type\":\"gpt_neox\","
     "\"num_attention_heads\":8,\"num_hidden_layers\":16,\"tie_word_embeddings\":false,"
     "\"torch_dtype\":\"float16\",\"vocab_size\":50304}"},
    {"starcoder", "bigcode/starcoder",
     "{\"activation_function\":\"gelu_pytorch_tanh\",\"architectures\":[\"GPTBigCodeForCausalLM\"],"
     "\"attn_pdrop\":0.1,\"max_sequence_length\":null,\"model_type\":\"gpt_bigcode\",\"multi_query\":true,"
     "\"n_embd\":6144,\"n_head\":48,\"n_inner\":24576,\"n_layer\":40,\"n_positions\":8192,\"resid_pdrop\":0.1,"
     "\"torch_dtype\":\"float32\",\"vocab_size\":49152}"},
    {"octocoder", "bigcode/octocoder",
     "{\"activation_function\":\"gelu_pytorch_tanh\",\"architectures\":[\"GPTBigCodeForCausalLM\"],"
     "\"attn_pdrop\":0.1,\"max_sequence_length\":null,\"model_type\":\"gpt_bigcode\",\"multi_query\":true,"
     "\"n_embd\":6144,\"n_head\":48,\"n_inner\":24576,\"n_layer\":40,\"n_positions\":8192,\"resid_pdrop\":0.1,"
     "\"torch_dtype\":\"float16\",\"vocab_size\":49152}"},
    {"gpt-j-6b", "gptj-6b,EleutherAI/gpt-j-6b",
     "{\"activation_function\":\"gelu_new\",\"architectures\":[\"GPTJForCausalLM\"],\"attn_pdrop\":0.0,"
     "\"model_type\":\"gptj\",\"n_embd\":4096,\"n_head\":16,\"n_inner\":null,\"n_layer\":28,\"n_positions\":2048,"
     "\"resid_pdrop\":0.0,\"rotary_dim\":64,\"tie_word_embeddings\":false,\"vocab_size\":50400}"},
    {"deepseek-v2-lite", "deepseek-ai/DeepSeek-V2-Lite",
     "{\"architectures\":[\"DeepseekV2ForCausalLM\"],\"attention_bias\":false,\"first_k_dense_replace\":1,"
     "\"hidden_act\":\"silu\",\"hidden_size\":2048,\"intermediate_size\":10944,\"kv_lora_rank\":512,"
     "\"max_position_embeddings\":163840,\"model_type\":\"deepseek_v2\",\"moe_intermediate_size\":1408,"
     "\"n_routed_experts\":64,\"n_shared_experts\":2,\"num_attention_heads\":16,\"num_experts_per_tok\":6,"
     "\"num_hidden_layers\":27,\"num_key_value_heads\":16,\"q_lora_rank\":null,\"qk_nope_head_dim\":128,"
     "\"qk_rope_head_dim\":64,\"torch_dtype\":\"bfloat16\",\"v_head_dim\":128,\"vocab_size\":102400}"},
    {"deepseek-v3", "deepseek-ai/DeepSeek-V3",
     "{\"architectures\":[\"DeepseekV3ForCausalLM\"],\"attention_bias\":false,\"attention_dropout\":0.0,"
     "\"first_k_dense_replace\":3,\"hidden_act\":\"silu\",\"hidden_size\":7168,\"intermediate_size\":18432,"
     "\"kv_lora_rank\":512,\"max_position_embeddings\":163840,\"model_type\":\"deepseek_v3\","
     "\"moe_intermediate_size\":2048,\"n_routed_experts\":256,\"n_shared_experts\":1,"
     "\"num_attention_heads\":128,\"num_experts_per_tok\":8,\"num_hidden_layers\":61,"
     "\"num_key_value_heads\":128,\"q_lora_rank\":1536,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"v_head_dim\":128,\"vocab_size\":129280}"},
    {"chatglm-6b", "THUDM/chatglm-6b",
     "{\"architectures\":[\"ChatGLMModel\"],\"hidden_size\":4096,\"inner_hidden_size\":16384,"
     "\"max_sequence_length\":2048,\"model_type\":\"chatglm\",\"num_attention_heads\":32,\"num_layers\":28,"
     "\"torch_dtype\":\"float16\",\"vocab_size\":130528}"},
    {"moss-moon-003-sft", "moss-moon-003,fnlp/moss-moon-003-sft",
     "{\"activation_function\":\"gelu_new\",\"architectures\":[\"MossForCausalLM\"],\"attn_pdrop\":0.0,"
     "\"model_type\":\"moss\",\"n_embd\":6144,\"n_head\":24,\"n_inner\":null,\"n_layer\":34,\"n_positions\":2048,"
     "\"resid_pdrop\":0.0,\"rotary_dim\":64,\"torch_dtype\":\"float16\",\"vocab_size\":107008}"},
    {"olmo2-7b", "olmo-2-7b,allenai/OLMo-2-1124-7B",
     "{\"architectures\":[\"Olmo2ForCausalLM\"],\"hidden_act\":\"silu\",\"hidden_size\":4096,"
     "\"intermediate_size\":11008,\"max_position_embeddings\":4096,\"model_type\":\"olmo2\","
     "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":32,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"float32\",\"vocab_size\":100352}"},
    {"starcoder2-7b", "bigcode/starcoder2-7b",
     "{\"architectures\":[\"Starcoder2ForCausalLM\"],\"attention_dropout\":0.1,\"embedding_dropout\":0.1,"
     "\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_size\":4608,\"intermediate_size\":18432,"
     "\"max_position_embeddings\":16384,\"model_type\":\"starcoder2\",\"num_attention_heads\":36,"
     "\"num_hidden_layers\":32,\"num_key_value_heads\":4,\"residual_dropout\":0.1,\"sliding_window\":4096,"
     "\"torch_dtype\":\"bfloat16\",\"use_bias\":true,\"vocab_size\":49152}"},
    {"aya-23-8b", "CohereForAI/aya-23-8B,CohereLabs/aya-23-8B",
     "{\"architectures\":[\"CohereForCausalLM\"],\"attention_bias\":false,\"hidden_act\":\"silu\","
     "\"hidden_size\":4096,\"intermediate_size\":14336,\"logit_scale\":0.0625,"
     "\"max_position_embeddings\":8192,\"model_type\":\"cohere\",\"num_attention_heads\":32,"
     "\"num_hidden_layers\":32,\"num_key_value_heads\":8,\"torch_dtype\":\"float16\",\"use_qk_norm\":false,"
     "\"vocab_size\":256000}"},
    /* multimodal, speech (issue #16 item 3): the configs of tests/data/zoo*.jsonl cases */
    {"qwen3-vl-8b", "Qwen/Qwen3-VL-8B-Instruct",
     "{\"architectures\":[\"Qwen3VLForConditionalGeneration\"],\"model_type\":\"qwen3_vl\",\"text_config\""
     ":{\"attention_bias\":false,\"dtype\":\"bfloat16\",\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_"
     "size\":4096,\"intermediate_size\":12288,\"max_position_embeddings\":262144,\"model_type\":\"qwen3_vl"
     "_text\",\"num_attention_heads\":32,\"num_hidden_layers\":36,\"num_key_value_heads\":8,\"vocab_size\""
     ":151936},\"tie_word_embeddings\":false,\"vision_config\":{\"deepstack_visual_indexes\":[8,16,24],\"d"
     "epth\":27,\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_size\":1152,\"in_channels\":3,\"intermediate"
     "_size\":4304,\"model_type\":\"qwen3_vl\",\"num_heads\":16,\"num_position_embeddings\":2304,\"out_hid"
     "den_size\":4096,\"patch_size\":16,\"spatial_merge_size\":2,\"temporal_patch_size\":2}}"},
    {"qwen3-vl-2b", "Qwen/Qwen3-VL-2B-Instruct",
     "{\"architectures\":[\"Qwen3VLForConditionalGeneration\"],\"model_type\":\"qwen3_vl\",\"text_config\""
     ":{\"attention_bias\":false,\"dtype\":\"bfloat16\",\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_"
     "size\":2048,\"intermediate_size\":6144,\"max_position_embeddings\":262144,\"model_type\":\"qwen3_vl_"
     "text\",\"num_attention_heads\":16,\"num_hidden_layers\":28,\"num_key_value_heads\":8,\"tie_word_embe"
     "ddings\":true,\"vocab_size\":151936},\"tie_word_embeddings\":true,\"vision_config\":{\"deepstack_vis"
     "ual_indexes\":[5,11,17],\"depth\":24,\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_size\":1024,\"in_"
     "channels\":3,\"intermediate_size\":4096,\"model_type\":\"qwen3_vl\",\"num_heads\":16,\"num_position_"
     "embeddings\":2304,\"out_hidden_size\":2048,\"patch_size\":16,\"spatial_merge_size\":2,\"temporal_pat"
     "ch_size\":2}}"},
    {"qwen3-vl-30b-a3b", "Qwen/Qwen3-VL-30B-A3B-Instruct",
     "{\"architectures\":[\"Qwen3VLMoeForConditionalGeneration\"],\"model_type\":\"qwen3_vl_moe\",\"text_c"
     "onfig\":{\"attention_bias\":false,\"decoder_sparse_step\":1,\"dtype\":\"bfloat16\",\"head_dim\":128,"
     "\"hidden_act\":\"silu\",\"hidden_size\":2048,\"intermediate_size\":6144,\"max_position_embeddings\":"
     "262144,\"mlp_only_layers\":[],\"model_type\":\"qwen3_vl_moe_text\",\"moe_intermediate_size\":768,\"n"
     "orm_topk_prob\":true,\"num_attention_heads\":32,\"num_experts\":128,\"num_experts_per_tok\":8,\"num_"
     "hidden_layers\":48,\"num_key_value_heads\":4,\"vocab_size\":151936},\"tie_word_embeddings\":false,\""
     "vision_config\":{\"deepstack_visual_indexes\":[8,16,24],\"depth\":27,\"hidden_act\":\"gelu_pytorch_t"
     "anh\",\"hidden_size\":1152,\"in_channels\":3,\"intermediate_size\":4304,\"model_type\":\"qwen3_vl_mo"
     "e\",\"num_heads\":16,\"num_position_embeddings\":2304,\"out_hidden_size\":2048,\"patch_size\":16,\"s"
     "patial_merge_size\":2,\"temporal_patch_size\":2}}"},
    {"qwen2.5-vl-7b", "Qwen/Qwen2.5-VL-7B-Instruct",
     "{\"architectures\":[\"Qwen2_5_VLForConditionalGeneration\"],\"hidden_act\":\"silu\",\"hidden_size\":"
     "3584,\"intermediate_size\":18944,\"max_position_embeddings\":128000,\"model_type\":\"qwen2_5_vl\",\""
     "num_attention_heads\":28,\"num_hidden_layers\":28,\"num_key_value_heads\":4,\"tie_word_embeddings\":"
     "false,\"torch_dtype\":\"bfloat16\",\"vision_config\":{\"depth\":32,\"fullatt_block_indexes\":[7,15,2"
     "3,31],\"hidden_act\":\"silu\",\"hidden_size\":1280,\"in_channels\":3,\"in_chans\":3,\"intermediate_s"
     "ize\":3420,\"model_type\":\"qwen2_5_vl\",\"num_heads\":16,\"out_hidden_size\":3584,\"patch_size\":14"
     ",\"spatial_merge_size\":2,\"spatial_patch_size\":14,\"temporal_patch_size\":2,\"torch_dtype\":\"bflo"
     "at16\",\"window_size\":112},\"vocab_size\":152064}"},
    {"medgemma-27b-it", "google/medgemma-27b-it",
     "{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"mm_tokens_per_image\":256,\"model_type\":\""
     "gemma3\",\"text_config\":{\"attention_bias\":false,\"attn_logit_softcapping\":null,\"final_logit_sof"
     "tcapping\":null,\"head_dim\":128,\"hidden_activation\":\"gelu_pytorch_tanh\",\"hidden_size\":5376,\""
     "intermediate_size\":21504,\"layer_types\":[\"sliding_attention\",\"sliding_attention\",\"sliding_att"
     "ention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"slid"
     "ing_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\""
     ",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_a"
     "ttention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sl"
     "iding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention"
     "\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_at"
     "tention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\""
     "full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attenti"
     "on\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_"
     "attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\",\"s"
     "liding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attentio"
     "n\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"slidin"
     "g_attention\",\"full_attention\",\"sliding_attention\",\"sliding_attention\"],\"max_position_embeddi"
     "ngs\":131072,\"model_type\":\"gemma3_text\",\"num_attention_heads\":32,\"num_hidden_layers\":62,\"nu"
     "m_key_value_heads\":16,\"query_pre_attn_scalar\":168,\"torch_dtype\":\"bfloat16\",\"vocab_size\":262"
     "208},\"torch_dtype\":\"bfloat16\",\"vision_config\":{\"hidden_act\":\"gelu_pytorch_tanh\",\"hidden_s"
     "ize\":1152,\"image_size\":896,\"intermediate_size\":4304,\"model_type\":\"siglip_vision_model\",\"nu"
     "m_attention_heads\":16,\"num_channels\":3,\"num_hidden_layers\":27,\"patch_size\":14,\"torch_dtype\""
     ":\"bfloat16\",\"vision_use_head\":false}}"},
    {"llava-1.5-7b", "llava-hf/llava-1.5-7b-hf",
     "{\"architectures\":[\"LlavaForConditionalGeneration\"],\"ignore_index\":-100,\"model_type\":\"llava\""
     ",\"projector_hidden_act\":\"gelu\",\"text_config\":{\"architectures\":[\"LlamaForCausalLM\"],\"max_p"
     "osition_embeddings\":4096,\"model_type\":\"llama\",\"torch_dtype\":\"float16\",\"vocab_size\":32064}"
     ",\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"vision_config\":{\"hidden_size\":1024,\""
     "image_size\":336,\"intermediate_size\":4096,\"model_type\":\"clip_vision_model\",\"num_attention_hea"
     "ds\":16,\"num_hidden_layers\":24,\"patch_size\":14,\"projection_dim\":768,\"vocab_size\":32000},\"vi"
     "sion_feature_layer\":-2,\"vision_feature_select_strategy\":\"default\",\"vocab_size\":32064}"},
    {"ministral-3-3b", "mistralai/Ministral-3-3B-Instruct-2512",
     "{\"architectures\":[\"Mistral3ForConditionalGeneration\"],\"dtype\":\"bfloat16\",\"model_type\":\"mi"
     "nistral3\",\"multimodal_projector_bias\":false,\"projector_hidden_act\":\"gelu\",\"spatial_merge_siz"
     "e\":2,\"text_config\":{\"head_dim\":128,\"hidden_act\":\"silu\",\"hidden_size\":3072,\"intermediate_"
     "size\":9216,\"max_position_embeddings\":262144,\"model_type\":\"ministral3\",\"num_attention_heads\""
     ":32,\"num_hidden_layers\":26,\"num_key_value_heads\":8,\"tie_word_embeddings\":true,\"vocab_size\":1"
     "31072},\"vision_config\":{\"head_dim\":64,\"hidden_act\":\"silu\",\"hidden_size\":1024,\"image_size\""
     ":1540,\"intermediate_size\":4096,\"model_type\":\"pixtral\",\"num_attention_heads\":16,\"num_channel"
     "s\":3,\"num_hidden_layers\":24,\"patch_size\":14},\"vision_feature_layer\":-1}"},
    {"whisper-large-v3-turbo", "openai/whisper-large-v3-turbo",
     "{\"activation_function\":\"gelu\",\"architectures\":[\"WhisperForConditionalGeneration\"],\"d_model\""
     ":1280,\"decoder_attention_heads\":20,\"decoder_ffn_dim\":5120,\"decoder_layers\":4,\"encoder_attenti"
     "on_heads\":20,\"encoder_ffn_dim\":5120,\"encoder_layers\":32,\"is_encoder_decoder\":true,\"max_sourc"
     "e_positions\":1500,\"max_target_positions\":448,\"model_type\":\"whisper\",\"num_hidden_layers\":32,"
     "\"num_mel_bins\":128,\"torch_dtype\":\"float32\",\"vocab_size\":51866}"},
    {"mamba-130m", "state-spaces/mamba-130m-hf",
     "{\"architectures\":[\"MambaForCausalLM\"],\"conv_kernel\":4,\"expand\":2,\"hidden_act\":\"silu\","
     "\"hidden_size\":768,\"intermediate_size\":1536,\"model_type\":\"mamba\",\"num_hidden_layers\":24,"
     "\"state_size\":16,\"time_step_rank\":48,\"torch_dtype\":\"float32\",\"use_bias\":false,"
     "\"use_conv_bias\":true,\"vocab_size\":50280}"},
    {"nemotron-3-nano-30b-a3b", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16,nemotron-3-nano",
     "{\"architectures\":[\"NemotronHForCausalLM\"],\"attention_bias\":false,\"chunk_size\":128,"
     "\"conv_kernel\":4,\"head_dim\":128,\"hidden_size\":2688,"
     "\"hybrid_override_pattern\":\"MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME\","
     "\"intermediate_size\":1856,\"mamba_head_dim\":64,\"mamba_num_heads\":64,"
     "\"mamba_ssm_cache_dtype\":\"float32\",\"max_position_embeddings\":262144,\"mlp_bias\":false,"
     "\"mlp_hidden_act\":\"relu2\",\"model_type\":\"nemotron_h\",\"moe_intermediate_size\":1856,"
     "\"moe_shared_expert_intermediate_size\":3712,\"n_groups\":8,\"n_routed_experts\":128,"
     "\"n_shared_experts\":1,\"num_attention_heads\":32,\"num_experts_per_tok\":6,\"num_hidden_layers\":52,"
     "\"num_key_value_heads\":2,\"ssm_state_size\":128,\"tie_word_embeddings\":false,"
     "\"torch_dtype\":\"bfloat16\",\"use_bias\":false,\"use_conv_bias\":true,\"vocab_size\":131072}"},
    {"qwen3-next-80b-a3b", "Qwen/Qwen3-Next-80B-A3B-Instruct,Qwen/Qwen3-Coder-Next,qwen3-coder-next",
     "{\"architectures\":[\"Qwen3NextForCausalLM\"],\"decoder_sparse_step\":1,"
     "\"full_attention_interval\":4,\"head_dim\":256,\"hidden_act\":\"silu\",\"hidden_size\":2048,"
     "\"intermediate_size\":5120,\"linear_conv_kernel_dim\":4,\"linear_key_head_dim\":128,"
     "\"linear_num_key_heads\":16,\"linear_num_value_heads\":32,\"linear_value_head_dim\":128,"
     "\"max_position_embeddings\":262144,\"mlp_only_layers\":[],\"model_type\":\"qwen3_next\","
     "\"moe_intermediate_size\":512,\"num_attention_heads\":16,\"num_experts\":512,"
     "\"num_experts_per_tok\":10,\"num_hidden_layers\":48,\"num_key_value_heads\":2,"
     "\"partial_rotary_factor\":0.25,\"shared_expert_intermediate_size\":512,\"tie_word_embeddings\":false,"
     "\"vocab_size\":151936,\"torch_dtype\":\"bfloat16\"}"},
    {"jamba-1.5-mini", "ai21labs/AI21-Jamba-1.5-Mini,ai21labs/AI21-Jamba-Mini-1.5",
     "{\"architectures\":[\"JambaForCausalLM\"],\"attn_layer_offset\":4,\"attn_layer_period\":8,"
     "\"expert_layer_offset\":1,\"expert_layer_period\":2,\"hidden_act\":\"silu\",\"hidden_size\":4096,"
     "\"intermediate_size\":14336,\"mamba_conv_bias\":true,\"mamba_d_conv\":4,\"mamba_d_state\":16,"
     "\"mamba_dt_rank\":256,\"mamba_expand\":2,\"mamba_proj_bias\":false,"
     "\"max_position_embeddings\":262144,\"model_type\":\"jamba\",\"num_attention_heads\":32,"
     "\"num_experts\":16,\"num_experts_per_tok\":2,\"num_hidden_layers\":32,\"num_key_value_heads\":8,"
     "\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\",\"vocab_size\":65536}"},
    {"falcon-h1-0.5b", "tiiuae/Falcon-H1-0.5B-Base,tiiuae/Falcon-H1-0.5B-Instruct",
     "{\"architectures\":[\"FalconH1ForCausalLM\"],\"attention_bias\":false,\"head_dim\":64,"
     "\"hidden_act\":\"silu\",\"hidden_size\":1024,\"intermediate_size\":2048,\"mamba_chunk_size\":128,"
     "\"mamba_conv_bias\":true,\"mamba_d_conv\":4,\"mamba_d_head\":64,\"mamba_d_ssm\":1536,"
     "\"mamba_d_state\":128,\"mamba_expand\":2,\"mamba_n_groups\":1,\"mamba_n_heads\":24,"
     "\"mamba_proj_bias\":false,\"mamba_rms_norm\":false,\"max_position_embeddings\":16384,"
     "\"mlp_bias\":false,\"model_type\":\"falcon_h1\",\"num_attention_heads\":8,\"num_hidden_layers\":36,"
     "\"num_key_value_heads\":2,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
     "\"vocab_size\":32784}"},
    {"granite-4.0-h-tiny", "ibm-granite/granite-4.0-h-tiny",
     "{\"architectures\":[\"GraniteMoeHybridForCausalLM\"],\"hidden_size\":1536,\"intermediate_size\":512,"
     "\"layer_types\":[\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"attention\",\"mamba\",\"mamba\","
     "\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"attention\",\"mamba\","
     "\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"attention\","
     "\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\",\"mamba\","
     "\"attention\",\"mamba\",\"mamba\",\"mamba\",\"mamba\"],\"mamba_d_conv\":4,\"mamba_d_head\":64,"
     "\"mamba_d_state\":128,\"mamba_expand\":2,\"mamba_n_groups\":1,\"mamba_n_heads\":48,"
     "\"max_position_embeddings\":131072,\"model_type\":\"granitemoehybrid\",\"num_attention_heads\":12,"
     "\"num_experts_per_tok\":6,\"num_hidden_layers\":40,\"num_key_value_heads\":4,"
     "\"num_local_experts\":64,\"shared_intermediate_size\":1024,\"tie_word_embeddings\":true,"
     "\"torch_dtype\":\"bfloat16\",\"vocab_size\":100352}"},
    {"lfm2-1.2b", "LiquidAI/LFM2-1.2B",
     "{\"architectures\":[\"Lfm2ForCausalLM\"],\"block_auto_adjust_ff_dim\":true,\"block_ff_dim\":12288,"
     "\"block_multiple_of\":256,\"conv_L_cache\":3,\"conv_bias\":false,\"full_attn_idxs\":[2,5,8,10,12,14],"
     "\"hidden_size\":2048,\"max_position_embeddings\":128000,\"model_type\":\"lfm2\",\"norm_eps\":1e-05,"
     "\"num_attention_heads\":32,\"num_hidden_layers\":16,\"num_key_value_heads\":8,\"rope_theta\":1000000.0,"
     "\"tie_embedding\":true,\"torch_dtype\":\"bfloat16\",\"vocab_size\":65536}"},
};

/* Preset i of both tables: this file's, then the 2025-2026 zoo's
 * (presets_2026.c). */
static const vx_preset *preset_at(size_t i)
{
    if (i < VX_ARRAY_LEN(presets)) return &presets[i];
    i -= VX_ARRAY_LEN(presets);
    return i < vx_presets_2026_count ? &vx_presets_2026[i] : NULL;
}

VRAMEST_API uint32_t vramest_preset_count(void)
{
    return (uint32_t)(VX_ARRAY_LEN(presets) + vx_presets_2026_count);
}

VRAMEST_API const char *vramest_preset_name(uint32_t index)
{
    const vx_preset *p = preset_at(index);
    return p ? p->name : NULL;
}

static const vx_preset *find_preset(const char *name)
{
    for (size_t i = 0; preset_at(i); i++) {
        const vx_preset *p = preset_at(i);
        if (!vx_strcasecmp(p->name, name) || vx_in_list(p->aliases, name)) return p;
    }
    return NULL;
}

static int unknown_preset(const char *name)
{
    vx_close c;
    vx_close_init(&c, name, VX_CLOSE_ANY);
    for (size_t i = 0; preset_at(i); i++) vx_close_offer(&c, preset_at(i)->name);
    return vx_fail(VRAMEST_E_UNKNOWN_NAME, "unknown model preset '%.100s' (closest: %s, %s, %s)", name, c.best[0],
                   c.best[1], c.best[2]);
}

VRAMEST_API int vramest_model_new_preset(const char *name, vramest_model **out)
{
    if (!name || !out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_new_preset: NULL argument");
    *out = NULL;
    const vx_preset *p = find_preset(name);
    if (!p) return unknown_preset(name);
    vramest_model *m;
    int rc = vramest_model_new(&m);
    if (rc) return rc;
    if ((rc = vx_parse_hf_config(m, p->config, strlen(p->config)))) {
        vramest_model_free(m);
        return vx_fail_prefix(rc, "preset: ");
    }
    vx_strlcpy(m->name, p->name, sizeof m->name);
    *out = m;
    return VRAMEST_OK;
}
