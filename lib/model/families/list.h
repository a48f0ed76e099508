/* Every family: X(id, CONSTANT, row, "model_type"). Included with X
 * defined, by model.h (the VX_FAM_* ids), groups.h (the rows) and
 * registry.c (names and the lookups). Ids are the values of the
 * model_type option: append a new family at the end with an id larger
 * than every other, never renumber. Ids need not be dense: the zoo of
 * issue #16 took ranges (100-199 plain decoders and MoE variants, 200-299
 * special attention, 300-399 hybrids, 400-499 multimodal). No include
 * guard: it is included once per use. */
X(1, LLAMA, vx_fam_llama, "llama")
X(2, MISTRAL, vx_fam_mistral, "mistral")
X(3, QWEN2, vx_fam_qwen2, "qwen2")
X(4, QWEN3, vx_fam_qwen3, "qwen3")
X(5, GEMMA, vx_fam_gemma, "gemma")
X(6, GEMMA2, vx_fam_gemma2, "gemma2")
X(7, PHI3, vx_fam_phi3, "phi3")
X(8, PHI, vx_fam_phi, "phi")
X(9, GPT2, vx_fam_gpt2, "gpt2")
X(10, GPT_BIGCODE, vx_fam_gpt_bigcode, "gpt_bigcode")
X(11, OPT, vx_fam_opt, "opt")
X(12, BLOOM, vx_fam_bloom, "bloom")
X(13, GPT_NEOX, vx_fam_gpt_neox, "gpt_neox")
X(14, FALCON, vx_fam_falcon, "falcon")
X(15, BERT, vx_fam_bert, "bert")
X(16, T5, vx_fam_t5, "t5")
X(17, MT5, vx_fam_mt5, "mt5")
X(18, CHATGLM, vx_fam_chatglm, "chatglm")
X(19, MIXTRAL, vx_fam_mixtral, "mixtral")
X(20, QWEN3_MOE, vx_fam_qwen3_moe, "qwen3_moe")
X(21, DEEPSEEK_V2, vx_fam_deepseek_v2, "deepseek_v2")
X(22, DEEPSEEK_V3, vx_fam_deepseek_v3, "deepseek_v3")
X(23, MOSS, vx_fam_moss, "moss")
X(24, CODEGEN, vx_fam_codegen, "codegen")
X(25, QWEN2_MOE, vx_fam_qwen2_moe, "qwen2_moe")
X(26, GEMMA3, vx_fam_gemma3, "gemma3")
X(27, GPTJ, vx_fam_gptj, "gptj")
X(28, OLMO2, vx_fam_olmo2, "olmo2")
X(29, STARCODER2, vx_fam_starcoder2, "starcoder2")
X(30, COHERE, vx_fam_cohere, "cohere")
