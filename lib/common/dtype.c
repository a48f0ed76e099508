/* The dtype table: every storage type a byte count can go through, with its
 * block layout (elements per block, bytes per block including the block's
 * scales and zero points).
 *
 * Sources of the layouts (see docs/methodology.md, "Precision and quantization"):
 * - GGUF tensor types: ggml/include/ggml.h (enum ggml_type) and
 *   ggml/src/ggml-common.h (block_* structs and their static_asserts) of
 *   ggml-org/llama.cpp. Id = 100 + ggml type id.
 * - GGUF file types (general.file_type, enum llama_ftype in include/llama.h):
 *   policy values, id = 300 + llama_ftype. They name a per-tensor mix
 *   (lib/precision/policy.c), not a layout.
 * - bitsandbytes 4-bit (nf4, fp4): functional.quantize_4bit packs two codes
 *   per uint8 and keeps one fp32 absmax per block of 64 (the default
 *   blocksize); the per-tensor count is ceil(n/2) + 4*ceil(n/64), not whole
 *   blocks, because the packed buffer is numel/2 bytes (see vx_dtype_bytes).
 *
 * The table is sorted by id so that vx_dtype() is a binary search: the
 * estimate hot path looks a dtype up per tensor group. */
#include <string.h>

#include "common/dtype.h"

#define PLAIN(id_, name_, al_, bytes_, flt_) {id_, name_, al_, 1, bytes_, flt_, false}
#define BLOCK(id_, name_, al_, elems_, bytes_) {id_, name_, al_, elems_, bytes_, false, false}
#define POLICY(id_, name_, al_) {id_, name_, al_, 0, 0, false, true}

/* GGUF ids: 100 + ggml type, 300 + llama_ftype. */
#define G(t) (100 + (t))
#define F(t) (300 + (t))

static const vx_dtype_info table[] = {
    POLICY(VRAMEST_DTYPE_AUTO, "auto", NULL),
    PLAIN(VRAMEST_DTYPE_FP32, "fp32", "f32,float32,float,torch.float32", 4, true),
    PLAIN(VRAMEST_DTYPE_FP16, "fp16", "f16,float16,half,torch.float16", 2, true),
    PLAIN(VRAMEST_DTYPE_BF16, "bf16", "bfloat16,torch.bfloat16", 2, true),
    PLAIN(VRAMEST_DTYPE_FP8_E4M3, "fp8_e4m3", "fp8,float8_e4m3fn,e4m3,float8", 1, false),
    PLAIN(VRAMEST_DTYPE_FP8_E5M2, "fp8_e5m2", "float8_e5m2,e5m2", 1, false),
    PLAIN(VRAMEST_DTYPE_INT8, "int8", "torch.int8,llm_int8", 1, false),
    /* Two 4-bit codes per byte; scales are the method's (GPTQ/AWQ/torchao groups). */
    BLOCK(VRAMEST_DTYPE_INT4, "int4", "uint4", 2, 1),
    /* bitsandbytes: 64 codes = 32 bytes + one fp32 absmax. */
    BLOCK(VRAMEST_DTYPE_NF4, "nf4", NULL, 64, 36),
    BLOCK(VRAMEST_DTYPE_FP4, "fp4", NULL, 64, 36),
    PLAIN(VRAMEST_DTYPE_FP64, "fp64", "float64,double,torch.float64", 8, false),
    PLAIN(VRAMEST_DTYPE_INT64, "int64", "long,torch.int64", 8, false),
    PLAIN(VRAMEST_DTYPE_INT32, "int32", "torch.int32", 4, false),
    PLAIN(VRAMEST_DTYPE_INT16, "int16", "short,torch.int16", 2, false),
    PLAIN(VRAMEST_DTYPE_UINT8, "uint8", "torch.uint8", 1, false),
    PLAIN(VRAMEST_DTYPE_BOOL, "bool", "torch.bool", 1, false),
    POLICY(VRAMEST_DTYPE_NONE, "none", NULL),

    /* ---- GGUF tensor types: ggml_type_traits blck_size / type_size ---- */
    PLAIN(G(0), "gguf_f32", "ggml_f32", 4, false),
    PLAIN(G(1), "gguf_f16", "ggml_f16", 2, false),
    BLOCK(G(2), "q4_0", NULL, 32, 18),  /* half d; u8 qs[16] */
    BLOCK(G(3), "q4_1", NULL, 32, 20),  /* half d, m; u8 qs[16] */
    /* 4, 5: Q4_2 / Q4_3, removed before GGUF existed */
    BLOCK(G(6), "q5_0", NULL, 32, 22),  /* half d; u8 qh[4]; u8 qs[16] */
    BLOCK(G(7), "q5_1", NULL, 32, 24),  /* half d, m; u8 qh[4]; u8 qs[16] */
    BLOCK(G(8), "q8_0", NULL, 32, 34),  /* half d; i8 qs[32] */
    BLOCK(G(9), "q8_1", NULL, 32, 36),  /* half d, s; i8 qs[32] */
    BLOCK(G(10), "q2_k", NULL, 256, 84),  /* u8 scales[16]; u8 qs[64]; half d, dmin */
    BLOCK(G(11), "q3_k", NULL, 256, 110), /* u8 hmask[32]; u8 qs[64]; u8 scales[12]; half d */
    BLOCK(G(12), "q4_k", NULL, 256, 144), /* half d, dmin; u8 scales[12]; u8 qs[128] */
    BLOCK(G(13), "q5_k", NULL, 256, 176), /* half d, dmin; u8 scales[12]; u8 qh[32]; u8 qs[128] */
    BLOCK(G(14), "q6_k", NULL, 256, 210), /* u8 ql[128]; u8 qh[64]; i8 scales[16]; half d */
    BLOCK(G(15), "q8_k", NULL, 256, 292), /* float d; i8 qs[256]; i16 bsums[16] */
    BLOCK(G(16), "iq2_xxs", NULL, 256, 66), /* half d; u16 qs[32] */
    BLOCK(G(17), "iq2_xs", NULL, 256, 74),  /* half d; u16 qs[32]; u8 scales[8] */
    BLOCK(G(18), "iq3_xxs", NULL, 256, 98), /* half d; u8 qs[96] */
    BLOCK(G(19), "iq1_s", NULL, 256, 50),   /* half d; u8 qs[32]; u16 qh[8] */
    BLOCK(G(20), "iq4_nl", NULL, 32, 18),   /* half d; u8 qs[16] */
    BLOCK(G(21), "iq3_s", NULL, 256, 110),  /* half d; u8 qs[64]; u8 qh[8]; u8 signs[32]; u8 scales[4] */
    BLOCK(G(22), "iq2_s", NULL, 256, 82),   /* half d; u8 qs[64]; u8 qh[8]; u8 scales[8] */
    BLOCK(G(23), "iq4_xs", NULL, 256, 136), /* half d; u16 scales_h; u8 scales_l[4]; u8 qs[128] */
    PLAIN(G(24), "i8", "ggml_i8", 1, false),
    PLAIN(G(25), "i16", "ggml_i16", 2, false),
    PLAIN(G(26), "i32", "ggml_i32", 4, false),
    PLAIN(G(27), "i64", "ggml_i64", 8, false),
    PLAIN(G(28), "gguf_f64", "ggml_f64", 8, false),
    BLOCK(G(29), "iq1_m", NULL, 256, 56), /* u8 qs[32]; u8 qh[16]; u8 scales[8] */
    PLAIN(G(30), "gguf_bf16", "ggml_bf16", 2, false),
    /* 31-33 and 36-38: repacked Q4_0 / IQ4_NL, written to GGUF files by
     * llama.cpp builds of late 2024 and later removed from the format; kept
     * so that such files still size correctly (same block as their base). */
    BLOCK(G(31), "q4_0_4_4", NULL, 32, 18),
    BLOCK(G(32), "q4_0_4_8", NULL, 32, 18),
    BLOCK(G(33), "q4_0_8_8", NULL, 32, 18),
    BLOCK(G(34), "tq1_0", NULL, 256, 54), /* u8 qs[48]; u8 qh[4]; half d */
    BLOCK(G(35), "tq2_0", NULL, 256, 66), /* u8 qs[64]; half d */
    BLOCK(G(36), "iq4_nl_4_4", NULL, 32, 18),
    BLOCK(G(37), "iq4_nl_4_8", NULL, 32, 18),
    BLOCK(G(38), "iq4_nl_8_8", NULL, 32, 18),
    BLOCK(G(39), "mxfp4", NULL, 32, 17),  /* u8 e (E8M0); u8 qs[16] */
    BLOCK(G(40), "nvfp4", NULL, 64, 36),  /* u8 d[4] (UE4M3 per 16); u8 qs[32] */
    BLOCK(G(41), "q1_0", NULL, 128, 18),  /* half d; u8 qs[16] */
    BLOCK(G(42), "q2_0", NULL, 64, 18),   /* half d; u8 qs[16] */

    /* ---- GGUF file types (llama_ftype): per-role mixes, policy only.
     * A file type whose name is also a tensor type's (Q8_0, Q6_K, ...) is
     * "mostly_<name>"; the bare name is the tensor type, which the policy
     * maps back to this mix for models without a file (policy.c). ---- */
    POLICY(F(0), "all_f32", "mostly_f32"),
    POLICY(F(1), "mostly_f16", NULL),
    POLICY(F(2), "mostly_q4_0", NULL),
    POLICY(F(3), "mostly_q4_1", NULL),
    POLICY(F(7), "mostly_q8_0", NULL),
    POLICY(F(8), "mostly_q5_0", NULL),
    POLICY(F(9), "mostly_q5_1", NULL),
    POLICY(F(10), "mostly_q2_k", NULL),
    POLICY(F(11), "q3_k_s", "mostly_q3_k_s"),
    POLICY(F(12), "q3_k_m", "mostly_q3_k_m"),
    POLICY(F(13), "q3_k_l", "mostly_q3_k_l"),
    POLICY(F(14), "q4_k_s", "mostly_q4_k_s"),
    POLICY(F(15), "q4_k_m", "mostly_q4_k_m"),
    POLICY(F(16), "q5_k_s", "mostly_q5_k_s"),
    POLICY(F(17), "q5_k_m", "mostly_q5_k_m"),
    POLICY(F(18), "mostly_q6_k", NULL),
    POLICY(F(19), "mostly_iq2_xxs", NULL),
    POLICY(F(20), "mostly_iq2_xs", NULL),
    POLICY(F(21), "q2_k_s", "mostly_q2_k_s"),
    POLICY(F(22), "iq3_xs", "mostly_iq3_xs"),
    POLICY(F(23), "mostly_iq3_xxs", NULL),
    POLICY(F(24), "mostly_iq1_s", NULL),
    POLICY(F(25), "mostly_iq4_nl", NULL),
    POLICY(F(26), "mostly_iq3_s", NULL),
    POLICY(F(27), "iq3_m", "mostly_iq3_m"),
    POLICY(F(28), "mostly_iq2_s", NULL),
    POLICY(F(29), "iq2_m", "mostly_iq2_m"),
    POLICY(F(30), "mostly_iq4_xs", NULL),
    POLICY(F(31), "mostly_iq1_m", NULL),
    POLICY(F(32), "mostly_bf16", NULL),
    POLICY(F(36), "mostly_tq1_0", NULL),
    POLICY(F(37), "mostly_tq2_0", NULL),
    POLICY(F(38), "mxfp4_moe", "mostly_mxfp4_moe"),
    POLICY(F(39), "mostly_nvfp4", NULL),
    POLICY(F(40), "mostly_q1_0", NULL),
};

#define N_TABLE VX_ARRAY_LEN(table)

const vx_dtype_info *vx_dtype(int id)
{
    /* The plain torch dtypes (ids 0..16) sit at their own index: the
     * per-tensor loops of an estimate skip the search for them. */
    if (id >= 0 && (size_t)id < N_TABLE && table[id].id == id) return &table[id];
    size_t lo = 0, hi = N_TABLE;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (table[mid].id == id) return &table[mid];
        if (table[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}


const vx_dtype_info *vx_dtype_by_name(const char *name)
{
    if (!name) return NULL;
    /* Canonical names first: an alias never shadows another entry's name. */
    for (size_t i = 0; i < N_TABLE; i++)
        if (vx_strcasecmp(table[i].name, name) == 0) return &table[i];
    for (size_t i = 0; i < N_TABLE; i++)
        if (vx_in_list(table[i].aliases, name)) return &table[i];
    return NULL;
}

/* Canonical rows first, then one row per alias: vx_enum_name_of() returns
 * the canonical name for a value, and the option layer's name lookup
 * (case-insensitive over the whole list) accepts the aliases. */
const vx_enum_name vx_dtype_enum[] = {
    {0, "auto"}, {1, "fp32"}, {2, "fp16"}, {3, "bf16"}, {4, "fp8_e4m3"}, {5, "fp8_e5m2"},
    {6, "int8"}, {7, "int4"}, {8, "nf4"}, {9, "fp4"}, {10, "fp64"}, {11, "int64"}, {12, "int32"},
    {13, "int16"}, {14, "uint8"}, {15, "bool"}, {16, "none"},
    {G(0), "gguf_f32"}, {G(1), "gguf_f16"}, {G(2), "q4_0"}, {G(3), "q4_1"}, {G(6), "q5_0"},
    {G(7), "q5_1"}, {G(8), "q8_0"}, {G(9), "q8_1"}, {G(10), "q2_k"}, {G(11), "q3_k"},
    {G(12), "q4_k"}, {G(13), "q5_k"}, {G(14), "q6_k"}, {G(15), "q8_k"}, {G(16), "iq2_xxs"},
    {G(17), "iq2_xs"}, {G(18), "iq3_xxs"}, {G(19), "iq1_s"}, {G(20), "iq4_nl"}, {G(21), "iq3_s"},
    {G(22), "iq2_s"}, {G(23), "iq4_xs"}, {G(24), "i8"}, {G(25), "i16"}, {G(26), "i32"},
    {G(27), "i64"}, {G(28), "gguf_f64"}, {G(29), "iq1_m"}, {G(30), "gguf_bf16"},
    {G(31), "q4_0_4_4"}, {G(32), "q4_0_4_8"}, {G(33), "q4_0_8_8"}, {G(34), "tq1_0"},
    {G(35), "tq2_0"}, {G(36), "iq4_nl_4_4"}, {G(37), "iq4_nl_4_8"}, {G(38), "iq4_nl_8_8"},
    {G(39), "mxfp4"}, {G(40), "nvfp4"}, {G(41), "q1_0"}, {G(42), "q2_0"},
    {F(0), "all_f32"}, {F(1), "mostly_f16"}, {F(2), "mostly_q4_0"}, {F(3), "mostly_q4_1"},
    {F(7), "mostly_q8_0"}, {F(8), "mostly_q5_0"}, {F(9), "mostly_q5_1"}, {F(10), "mostly_q2_k"},
    {F(11), "q3_k_s"}, {F(12), "q3_k_m"}, {F(13), "q3_k_l"}, {F(14), "q4_k_s"}, {F(15), "q4_k_m"},
    {F(16), "q5_k_s"}, {F(17), "q5_k_m"}, {F(18), "mostly_q6_k"}, {F(19), "mostly_iq2_xxs"},
    {F(20), "mostly_iq2_xs"}, {F(21), "q2_k_s"}, {F(22), "iq3_xs"}, {F(23), "mostly_iq3_xxs"},
    {F(24), "mostly_iq1_s"}, {F(25), "mostly_iq4_nl"}, {F(26), "mostly_iq3_s"}, {F(27), "iq3_m"},
    {F(28), "mostly_iq2_s"}, {F(29), "iq2_m"}, {F(30), "mostly_iq4_xs"}, {F(31), "mostly_iq1_m"},
    {F(32), "mostly_bf16"}, {F(36), "mostly_tq1_0"}, {F(37), "mostly_tq2_0"}, {F(38), "mxfp4_moe"},
    {F(39), "mostly_nvfp4"}, {F(40), "mostly_q1_0"},
    /* aliases */
    {1, "f32"}, {1, "float32"}, {1, "float"}, {1, "torch.float32"},
    {2, "f16"}, {2, "float16"}, {2, "half"}, {2, "torch.float16"},
    {3, "bfloat16"}, {3, "torch.bfloat16"},
    {4, "fp8"}, {4, "float8_e4m3fn"}, {4, "e4m3"}, {4, "float8"}, {5, "float8_e5m2"}, {5, "e5m2"},
    {6, "torch.int8"}, {6, "llm_int8"}, {7, "uint4"},
    {10, "float64"}, {10, "double"}, {10, "torch.float64"}, {11, "long"}, {11, "torch.int64"},
    {12, "torch.int32"}, {13, "short"}, {13, "torch.int16"}, {14, "torch.uint8"}, {15, "torch.bool"},
    {G(0), "ggml_f32"}, {G(1), "ggml_f16"}, {G(24), "ggml_i8"}, {G(25), "ggml_i16"},
    {G(26), "ggml_i32"}, {G(27), "ggml_i64"}, {G(28), "ggml_f64"}, {G(30), "ggml_bf16"},
    {F(0), "mostly_f32"}, {F(11), "mostly_q3_k_s"}, {F(12), "mostly_q3_k_m"}, {F(13), "mostly_q3_k_l"},
    {F(14), "mostly_q4_k_s"}, {F(15), "mostly_q4_k_m"}, {F(16), "mostly_q5_k_s"},
    {F(17), "mostly_q5_k_m"}, {F(21), "mostly_q2_k_s"}, {F(22), "mostly_iq3_xs"},
    {F(27), "mostly_iq3_m"}, {F(29), "mostly_iq2_m"}, {F(38), "mostly_mxfp4_moe"},
    {0, NULL},
};

uint64_t vx_dtype_bytes(int dtype, uint64_t elems)
{
    const vx_dtype_info *d = vx_dtype(dtype);
    if (!d || d->is_policy || !d->block_elems || !elems) return 0;
    if (dtype == VRAMEST_DTYPE_NF4 || dtype == VRAMEST_DTYPE_FP4)
        /* Params4bit: packed uint8 of ceil(n/2) + fp32 absmax per 64-block. */
        return vx_sat_add(vx_ceil_div(elems, 2), vx_sat_mul(vx_ceil_div(elems, 64), 4));
    if (d->block_elems == 1) return vx_sat_mul(elems, d->block_bytes);
    /* GGUF requires rows to be whole blocks (llama.cpp falls back to another
     * type otherwise), so ceil() only pads hostile or odd shapes. */
    return vx_sat_mul(vx_ceil_div(elems, d->block_elems), d->block_bytes);
}

unsigned vx_dtype_size(int dtype)
{
    const vx_dtype_info *d = vx_dtype(dtype);
    return d && !d->is_policy && d->block_elems == 1 ? d->block_bytes : 0;
}

/* ---- public ---- */

VRAMEST_API const char *vramest_dtype_name(int dtype)
{
    const vx_dtype_info *d = vx_dtype(dtype);
    return d ? d->name : NULL;
}

VRAMEST_API int vramest_dtype_from_name(const char *name, int *out)
{
    if (!name || !out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_dtype_from_name: NULL argument");
    const vx_dtype_info *d = vx_dtype_by_name(name);
    if (!d) {
        vx_close c;
        vx_close_init(&c, name, 2);
        for (size_t i = 0; i < N_TABLE; i++) vx_close_offer(&c, table[i].name);
        if (c.best[0])
            return vx_fail(VRAMEST_E_UNKNOWN_NAME, "unknown dtype '%s' (did you mean '%s'?)", name, c.best[0]);
        return vx_fail(VRAMEST_E_UNKNOWN_NAME, "unknown dtype '%s'", name);
    }
    *out = d->id;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_dtype_layout(int dtype, uint64_t *out_block_elems, uint64_t *out_block_bytes)
{
    const vx_dtype_info *d = vx_dtype(dtype);
    if (!d) return vx_fail(VRAMEST_E_RANGE, "vramest_dtype_layout: unknown dtype value %d", dtype);
    if (d->is_policy)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "vramest_dtype_layout: '%s' is a policy (auto, none or a GGUF file mix), not a layout",
                       d->name);
    if (out_block_elems) *out_block_elems = d->block_elems;
    if (out_block_bytes) *out_block_bytes = d->block_bytes;
    return VRAMEST_OK;
}
