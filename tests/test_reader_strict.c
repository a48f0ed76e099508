/* What the readers refuse, and what they count (issue #19): GGUF metadata
 * that describes no model (negative or zero counts, NaN softcaps, numbers
 * of the wrong type) is an error naming the key, never skipped;
 * safetensors integers written as 4.0 or 1e3 are refused as the reference
 * reader refuses them; a GGUF's weights are its tensors' bytes (with the
 * PyTorch allocator's 512-byte blocks on a PyTorch runtime). Black-box. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modelfiles.h"

/* ---- GGUF metadata that describes no model ----------------------------------- */

static void kv_raw(gkv *k, const char *key, uint32_t type, const void *v, size_t n)
{
    g_str(&k->b, key);
    put_u32(&k->b, type);
    put(&k->b, v, n);
    k->n++;
}

static void kv_i32(gkv *k, const char *key, int32_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t x[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    kv_raw(k, key, G_I32, x, 4);
}

static void kv_i32_array(gkv *k, const char *key, const int32_t *v, size_t n)
{
    g_str(&k->b, key);
    put_u32(&k->b, G_ARR);
    put_u32(&k->b, G_I32);
    put_u64(&k->b, n);
    for (size_t i = 0; i < n; i++) put_u32(&k->b, (uint32_t)v[i]);
    k->n++;
}

/* The tiny GGUF Llama with its metadata, one key replaced by `bad`. */
typedef void (*bad_fn)(gkv *k);

static int parse_llama_with(const char *skip, bad_fn bad)
{
    gkv k;
    memset(&k, 0, sizeof k);
    kv_str(&k, "general.architecture", "llama");
    static const struct { const char *key; uint32_t v; } keys[] = {
        {"llama.block_count", GL},         {"llama.context_length", 512},        {"llama.embedding_length", GH},
        {"llama.feed_forward_length", GF}, {"llama.attention.head_count", 4},    {"llama.attention.head_count_kv", 2},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!skip || strcmp(keys[i].key, skip) != 0) kv_u32(&k, keys[i].key, keys[i].v);
    if (bad) bad(&k);
    gt t[64];
    size_t n = gguf_llama_tensors(t, GL, false);
    size_t hl, fl;
    uint8_t *f = gguf_build(3, &k, t, n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    int rc = parse_mem(m, VRAMEST_SRC_GGUF_HEADER, f, hl, NULL);
    vramest_model_free(m);
    free(f);
    free(k.b.p);
    return rc;
}

static void bad_blocks(gkv *k) { kv_i32(k, "llama.block_count", -5); }
static void zero_heads(gkv *k) { kv_u32(k, "llama.attention.head_count", 0); }
static void zero_kv_heads(gkv *k) { kv_u32(k, "llama.attention.head_count_kv", 0); }
static void zero_hidden(gkv *k) { kv_u32(k, "llama.embedding_length", 0); }
static void zero_context(gkv *k) { kv_u32(k, "llama.context_length", 0); }
static void string_hidden(gkv *k) { kv_str(k, "llama.embedding_length", "256"); }
static void float_blocks(gkv *k) { kv_f32(k, "llama.block_count", 2.0f); }
static void nan_softcap(gkv *k) { kv_f32(k, "llama.final_logit_softcapping", NAN); }
static void inf_softcap(gkv *k) { kv_f32(k, "llama.final_logit_softcapping", INFINITY); }
static void negative_softcap(gkv *k) { kv_f32(k, "llama.final_logit_softcapping", -30.0f); }
static void string_softcap(gkv *k) { kv_str(k, "llama.final_logit_softcapping", "30"); }
static void negative_ffn_layer(gkv *k)
{
    static const int32_t v[GL] = {GF, -1};
    kv_i32_array(k, "llama.feed_forward_length", v, GL);
}
static void empty_kv_heads(gkv *k) { kv_i32_array(k, "llama.attention.head_count_kv", NULL, 0); }
static void zero_key_length(gkv *k) { kv_u32(k, "llama.attention.key_length", 0); }
static void negative_rope(gkv *k) { kv_i32(k, "llama.rope.dimension_count", -64); }

Test(strict, gguf_metadata_nonsense_is_an_error_naming_the_key)
{
    static const struct {
        const char *replaces, *key;
        bad_fn bad;
        const char *why;
    } rows[] = {
        {"llama.block_count", "llama.block_count", bad_blocks, "negative"},
        {"llama.attention.head_count", "llama.attention.head_count", zero_heads, "is 0"},
        {"llama.attention.head_count_kv", "llama.attention.head_count_kv", zero_kv_heads, "is 0"},
        {"llama.embedding_length", "llama.embedding_length", zero_hidden, "is 0"},
        {"llama.context_length", "llama.context_length", zero_context, "is 0"},
        {"llama.embedding_length", "llama.embedding_length", string_hidden, "not an integer"},
        {"llama.block_count", "llama.block_count", float_blocks, "not an integer"},
        {NULL, "llama.final_logit_softcapping", nan_softcap, "NaN"},
        {NULL, "llama.final_logit_softcapping", inf_softcap, "infinite"},
        {NULL, "llama.final_logit_softcapping", negative_softcap, "negative"},
        {NULL, "llama.final_logit_softcapping", string_softcap, "string"},
        {"llama.feed_forward_length", "llama.feed_forward_length", negative_ffn_layer, "negative"},
        {"llama.attention.head_count_kv", "llama.attention.head_count_kv", empty_kv_heads, "empty array"},
        {NULL, "llama.attention.key_length", zero_key_length, "is 0"},
        {NULL, "llama.rope.dimension_count", negative_rope, "negative"},
    };
    cr_assert_eq(parse_llama_with(NULL, NULL), VRAMEST_OK, "%s", msg());
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cr_assert_eq(parse_llama_with(rows[i].replaces, rows[i].bad), VRAMEST_E_PARSE, "row %zu (%s): %s", i,
                     rows[i].key, msg());
        assert_msg(rows[i].key);
        assert_msg(rows[i].why);
    }
}

static void zero_window(gkv *k) { kv_u32(k, "llama.attention.sliding_window", 0); }
static void zero_experts(gkv *k) { kv_u32(k, "llama.expert_count", 0); }
static void zero_softcap(gkv *k) { kv_f32(k, "llama.final_logit_softcapping", 0.0f); }
static void per_layer_kv_heads(gkv *k)
{
    static const int32_t v[GL] = {2, 2};
    kv_i32_array(k, "llama.attention.head_count_kv", v, GL);
}

/* GGUF's 0 for "none" stays allowed where it means none. */
Test(strict, gguf_zero_for_none_is_accepted)
{
    static const bad_fn ok[] = {zero_window, zero_experts, zero_softcap};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_assert_eq(parse_llama_with(NULL, ok[i]), VRAMEST_OK, "row %zu: %s", i, msg());
    cr_assert_eq(parse_llama_with("llama.attention.head_count_kv", per_layer_kv_heads), VRAMEST_OK, "%s", msg());
}

/* ---- safetensors integers must be written as integers ------------------------------ */

static int st_parse_json(const char *json)
{
    size_t len;
    uint8_t *f = st_raw(json, &len);
    vramest_model *m = new_model();
    int rc = parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, len, NULL);
    vramest_model_free(m);
    free(f);
    return rc;
}

Test(strict, safetensors_integers_written_as_floats_are_refused)
{
    /* huggingface/safetensors reads shape and data_offsets as usize with
     * serde_json, which refuses any number with a fraction or an exponent. */
    static const char *const bad[] = {
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[4.0],\"data_offsets\":[0,16]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[1e1],\"data_offsets\":[0,40]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16.0]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0E0,16]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,1.6e1]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[-0.0],\"data_offsets\":[0,0]}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(st_parse_json(bad[i]), VRAMEST_E_PARSE, "%s: %s", bad[i], msg());
        assert_msg("not an integer");
    }
    cr_assert_eq(st_parse_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}"), VRAMEST_OK, "%s",
                 msg());
}

/* The index is read by Python (transformers' json.load): total_size 1.3e10 is a number there. */
Test(strict, index_total_size_may_be_written_as_a_float)
{
    static const char idx[] = "{\"metadata\": {\"total_size\": 1.6e1}, \"weight_map\": {\"a\": \"m.safetensors\"}}";
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_INDEX, (const uint8_t *)idx, sizeof idx - 1, NULL), VRAMEST_OK,
                 "%s", msg());
    vramest_model_free(m);
}

/* ---- a GGUF's weights are its tensors' bytes ---------------------------------------- */

/* 8 query heads, 2 KV heads: K and V of a 256-wide Q6_K Llama are 64 rows
 * of one 210-byte block, 13,440 bytes, not a multiple of 512. */
static uint8_t *q6k_llama(size_t *hdr_len, uint64_t *tensor_bytes, uint64_t *rounded)
{
    gkv k;
    memset(&k, 0, sizeof k);
    kv_str(&k, "general.architecture", "llama");
    kv_u32(&k, "llama.block_count", GL);
    kv_u32(&k, "llama.context_length", 512);
    kv_u32(&k, "llama.embedding_length", GH);
    kv_u32(&k, "llama.feed_forward_length", GF);
    kv_u32(&k, "llama.attention.head_count", 8);
    kv_u32(&k, "llama.attention.head_count_kv", 2);
    gt t[64];
    static const gguf_mix q6k = {GT_F16, GT_Q6_K, GT_Q6_K, GT_Q6_K, GT_Q6_K, GT_Q6_K, GT_Q6_K, GT_Q6_K, GT_Q6_K, 1024, 64};
    size_t n = gguf_llama_mix(t, GL, false, &q6k);
    *tensor_bytes = *rounded = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = g_bytes(&t[i]);
        *tensor_bytes += b;
        *rounded += (b + 511) / 512 * 512;
    }
    size_t fl;
    uint8_t *f = gguf_build(3, &k, t, n, hdr_len, &fl, NULL);
    free(k.b.p);
    return f;
}

static uint64_t weights_of(const uint8_t *f, size_t len, const char *framework)
{
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, f, len, NULL), VRAMEST_OK, "%s", msg());
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_FRAMEWORK, framework), VRAMEST_OK, "%s", msg());
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(m, NULL, c, &r), VRAMEST_OK, "%s", msg());
    uint64_t w = 0;
    cr_assert_eq(vramest_result_get(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &w), VRAMEST_OK);
    vramest_result_free(r);
    vramest_config_free(c);
    vramest_model_free(m);
    return w;
}

/* Issue #19 item 10: a Q6_K GGUF weighed more than its tensors. That was
 * the PyTorch caching allocator's 512-byte rounding of each tensor, which
 * the PyTorch runtimes count (memory_allocated does); llama.cpp sizes its
 * own buffers, so there the weights are the tensors' bytes exactly. */
Test(strict, gguf_weights_are_the_tensor_bytes)
{
    size_t hl;
    uint64_t exact, rounded;
    uint8_t *f = q6k_llama(&hl, &exact, &rounded);
    cr_assert_gt(rounded, exact, "the fixture must have tensors that are not whole 512-byte blocks");
    cr_assert_eq(weights_of(f, hl, "llama.cpp"), exact);
    cr_assert_eq(weights_of(f, hl, "pytorch"), rounded);
    free(f);
}
