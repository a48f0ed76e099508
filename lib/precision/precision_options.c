/* Option table of the precision policy handle (design.md §6, precision
 * object). Names are a contract: the job spec, the CLI and the Python
 * binding see exactly these rows. */
#include <stddef.h>

#include "precision/precision.h"

/* Each list: canonical names first (vx_enum_name_of returns the first row of
 * a value), then aliases, which the option layer matches case-insensitively. */
static const vx_enum_name compute_e[] = {
    {VRAMEST_DTYPE_AUTO, "auto"}, {VRAMEST_DTYPE_FP32, "fp32"}, {VRAMEST_DTYPE_FP16, "fp16"},
    {VRAMEST_DTYPE_BF16, "bf16"}, {VRAMEST_DTYPE_FP32, "f32"},  {VRAMEST_DTYPE_FP32, "float32"},
    {VRAMEST_DTYPE_FP16, "f16"},  {VRAMEST_DTYPE_FP16, "float16"}, {VRAMEST_DTYPE_FP16, "half"},
    {VRAMEST_DTYPE_BF16, "bfloat16"}, {0, NULL}};

static const vx_enum_name master_e[] = {
    {VRAMEST_DTYPE_AUTO, "auto"}, {VRAMEST_DTYPE_FP32, "fp32"}, {VRAMEST_DTYPE_NONE, "none"},
    {VRAMEST_DTYPE_FP32, "f32"},  {VRAMEST_DTYPE_FP32, "float32"}, {0, NULL}};

static const vx_enum_name grad_e[] = {
    {VRAMEST_DTYPE_AUTO, "auto"}, {VRAMEST_DTYPE_FP32, "fp32"}, {VRAMEST_DTYPE_FP16, "fp16"},
    {VRAMEST_DTYPE_BF16, "bf16"}, {VRAMEST_DTYPE_FP8_E4M3, "fp8_e4m3"}, {VRAMEST_DTYPE_FP8_E5M2, "fp8_e5m2"},
    {VRAMEST_DTYPE_FP32, "f32"},  {VRAMEST_DTYPE_FP32, "float32"}, {VRAMEST_DTYPE_FP16, "f16"},
    {VRAMEST_DTYPE_FP16, "float16"}, {VRAMEST_DTYPE_FP16, "half"}, {VRAMEST_DTYPE_BF16, "bfloat16"},
    {VRAMEST_DTYPE_FP8_E4M3, "fp8"}, {0, NULL}};

/* Optimizer states: int8 = bitsandbytes 8-bit optimizers (blockwise, 2048). */
static const vx_enum_name state_e[] = {
    {VRAMEST_DTYPE_AUTO, "auto"}, {VRAMEST_DTYPE_FP32, "fp32"}, {VRAMEST_DTYPE_FP16, "fp16"},
    {VRAMEST_DTYPE_BF16, "bf16"}, {VRAMEST_DTYPE_INT8, "int8"}, {VRAMEST_DTYPE_FP32, "f32"},
    {VRAMEST_DTYPE_FP32, "float32"}, {VRAMEST_DTYPE_FP16, "f16"}, {VRAMEST_DTYPE_FP16, "float16"},
    {VRAMEST_DTYPE_FP16, "half"}, {VRAMEST_DTYPE_BF16, "bfloat16"}, {0, NULL}};

/* KV cache: the float types, fp8 (vLLM, transformers), int8/int4 (transformers
 * quantized cache) and the ggml types llama.cpp accepts for --cache-type-k/v. */
static const vx_enum_name kv_e[] = {
    {VRAMEST_DTYPE_AUTO, "auto"}, {VRAMEST_DTYPE_FP32, "fp32"}, {VRAMEST_DTYPE_FP16, "fp16"},
    {VRAMEST_DTYPE_BF16, "bf16"}, {VRAMEST_DTYPE_FP8_E4M3, "fp8_e4m3"}, {VRAMEST_DTYPE_FP8_E5M2, "fp8_e5m2"},
    {VRAMEST_DTYPE_INT8, "int8"}, {VRAMEST_DTYPE_INT4, "int4"}, {102, "q4_0"}, {103, "q4_1"},
    {106, "q5_0"}, {107, "q5_1"}, {108, "q8_0"}, {120, "iq4_nl"},
    {VRAMEST_DTYPE_FP32, "f32"}, {VRAMEST_DTYPE_FP32, "float32"}, {VRAMEST_DTYPE_FP16, "f16"},
    {VRAMEST_DTYPE_FP16, "float16"}, {VRAMEST_DTYPE_FP16, "half"}, {VRAMEST_DTYPE_BF16, "bfloat16"},
    {VRAMEST_DTYPE_FP8_E4M3, "fp8"}, {0, NULL}};

static const vx_enum_name method_e[] = {
    {VX_QM_AUTO, "auto"}, {VX_QM_NONE, "none"}, {VX_QM_BNB, "bnb"}, {VX_QM_GPTQ, "gptq"},
    {VX_QM_AWQ, "awq"},   {VX_QM_TORCHAO, "torchao"}, {VX_QM_GGUF, "gguf"}, {VX_QM_FP8, "fp8"},
    {VX_QM_BNB, "bitsandbytes"}, {VX_QM_GGUF, "llama.cpp"}, {0, NULL}};

#define OFF(field) offsetof(vx_precision_values, field)
#define ROW(key, name, alias, type, mn, mx, def, enums, defs, field, desc) \
    {key, name, alias, VRAMEST_HANDLE_PRECISION, type, "precision", mn, mx, def, enums, defs, OFF(field), true, desc}
#define ENUM(key, name, enums, mx, field, desc) ROW(key, name, NULL, VRAMEST_TYPE_ENUM, 0, mx, 0, enums, NULL, field, desc)

/* Every row is modelled: the resolver (policy.c) reads all of them, and the
 * mode estimators read the resolved dtypes. */
const vx_option_def vx_precision_options[] = {
    ENUM(VRAMEST_PREC_WEIGHTS, "weights", vx_dtype_enum, 340, weights,
         "storage dtype of the weight matrices: auto (the checkpoint's), fp32, fp16, bf16, fp8, int8 "
         "(bitsandbytes LLM.int8), int4 (GPTQ/AWQ/torchao), nf4, fp4 (bitsandbytes 4-bit), a GGUF tensor type "
         "(q8_0, q4_k, ...: the llama.cpp file-type mix of that name) or a GGUF mix (q4_k_m, q5_k_s, ...)"),
    ENUM(VRAMEST_PREC_COMPUTE, "compute", compute_e, VRAMEST_DTYPE_BF16, compute,
         "activation dtype: auto (the weights' float dtype; fp16 for bitsandbytes/GPTQ/AWQ; fp32 for GGUF), fp32, "
         "fp16, bf16"),
    ROW(VRAMEST_PREC_AMP, "amp", NULL, VRAMEST_TYPE_BOOL, 0, 1, 0, NULL, NULL, amp,
        "autocast mixed precision over the stored weights (fp32 params, 16-bit matmuls)"),
    ENUM(VRAMEST_PREC_MASTER_WEIGHTS, "master_weights", master_e, VRAMEST_DTYPE_NONE, master_weights,
         "fp32 master copy of 16-bit parameters (DeepSpeed/Megatron mixed precision): auto (none), none, fp32"),
    ENUM(VRAMEST_PREC_GRADIENTS, "gradients", grad_e, VRAMEST_DTYPE_FP8_E5M2, gradients,
         "gradient dtype: auto (the parameter dtype), fp32, fp16, bf16, fp8"),
    ENUM(VRAMEST_PREC_OPTIMIZER_STATES, "optimizer_states", state_e, VRAMEST_DTYPE_INT8, optimizer_states,
         "optimizer-state dtype: auto (the parameter dtype; fp32 with master weights), fp32, fp16, bf16, int8"),
    ENUM(VRAMEST_PREC_KV_CACHE, "kv_cache", kv_e, 120, kv_cache,
         "KV-cache dtype: auto (the compute dtype; f16 for llama.cpp), fp32, fp16, bf16, fp8, int8, int4, q8_0, "
         "q4_0, q4_1, q5_0, q5_1, iq4_nl"),
    ROW(VRAMEST_PREC_QUANT_GROUP_SIZE, "quant_group_size", "group_size,blocksize", VRAMEST_TYPE_I64, -1, 1048576, 0,
        NULL, "0", quant_group_size,
        "elements per quantization scale along a row: 0 = the method's default (bitsandbytes 4-bit 64, "
        "GPTQ/AWQ/torchao int4 128, one per row for int8 and fp8), -1 = one per row (per-channel)"),
    ROW(VRAMEST_PREC_DOUBLE_QUANT, "double_quant", "bnb_4bit_use_double_quant", VRAMEST_TYPE_BOOL, 0, 1, 0, NULL, NULL,
        double_quant, "bitsandbytes 4-bit nested quantization of the absmax scales (uint8 + fp32 per 256 blocks)"),
    ROW(VRAMEST_PREC_SKIP_MODULES, "skip_modules", "llm_int8_skip_modules,modules_to_not_convert",
        VRAMEST_TYPE_STRING, 0, VX_STR_MAX - 1, 0, NULL, "auto", skip_modules,
        "modules kept unquantized at the compute dtype (comma list of HF module names, substring match, or tensor "
        "roles such as attn_v); auto = the method's default (lm_head), none = quantize every linear"),
    ENUM(VRAMEST_PREC_QUANT_METHOD, "quant_method", method_e, VX_QM_FP8, quant_method,
         "quantization library: auto (from weights), none, bnb (bitsandbytes), gptq, awq, torchao, gguf, fp8"),
    ENUM(VRAMEST_PREC_EMBEDDINGS, "embeddings", vx_dtype_enum, 340, embeddings,
         "dtype of the token embeddings (and a tied output head): auto = the method's default (the compute dtype "
         "for bitsandbytes/GPTQ/AWQ/torchao/fp8, the mix's type for GGUF), or any weights value"),
};

const size_t vx_precision_option_count = VX_ARRAY_LEN(vx_precision_options);
