/* The zoo's second batch of plain decoders and MoE variants (issue #16;
 * rows in lib/model/families/{llama_like,experts}.c): olmo, olmoe,
 * cohere2, exaone, exaone4, ernie4_5 (+moe), seed_oss, glm4, glm4_moe,
 * nemotron, phimoe. Each config carries a released model's sizes; its
 * count is summed here from the modeling code's modules (the file named
 * per family, under transformers' src/transformers/models/), its KV cache
 * of one prefill is checked against K and V of the key/value heads at two
 * context lengths, and a LoRA step on it trains. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_checks.h"
#include "helpers.h"

typedef unsigned long long u64;

/* A job spec on config.json text `cfg` with workload `work`; the caller
 * frees it. */
static char *spec_of(const char *cfg, const char *work)
{
    size_t n = strlen(cfg) + strlen(work) + 160;
    char *s = malloc(n);
    cr_assert(s);
    snprintf(s, n, "{\"model\":{\"hf_config\":%s},\"precision\":\"bf16\",\"device\":\"H100-80GB\",\"workload\":%s}",
             cfg, work);
    return s;
}

static u64 count_of(const char *cfg)
{
    char *s = spec_of(cfg, "{\"mode\":\"load\"}");
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    cr_assert_eq(vramest_spec_parse(s, strlen(s), &m, &p, &c), VRAMEST_OK, "%s: %s", cfg,
                 vramest_last_error_message());
    uint64_t n = 0;
    cr_assert_eq(vramest_model_param_count(m, &n, NULL), VRAMEST_OK);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    free(s);
    return n;
}

/* KV cache of one bf16 prefill of `batch` x `tokens` under pytorch. */
static u64 kv_of(const char *cfg, long long batch, long long tokens)
{
    char work[160];
    snprintf(work, sizeof work, "{\"mode\":\"infer\",\"batch_size\":%lld,\"prompt_len\":%lld,\"gen_len\":1}", batch,
             tokens);
    char *s = spec_of(cfg, work);
    vramest_result *r = estimate(s);
    u64 kv = category(r, VRAMEST_CAT_KV_CACHE);
    vramest_result_free(r);
    free(s);
    return kv;
}

/* A LoRA step (all linear layers) runs and peaks above its weights. */
static void trains_cfg(const char *cfg)
{
    char *s = spec_of(cfg, "{\"mode\":\"train\",\"batch_size\":1,\"seq_len\":512,\"finetune\":\"lora\","
                           "\"lora_targets\":\"all-linear\"}");
    vramest_result *r = estimate(s);
    uint64_t peak = 0;
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_PEAK_ALLOCATED, &peak), VRAMEST_OK);
    u64 w = category(r, VRAMEST_CAT_WEIGHTS), act = category(r, VRAMEST_CAT_ACTIVATIONS);
    cr_assert_gt(act, 0, "%s: no activations", cfg);
    cr_assert_gt(peak, w + act / 2, "%s: peak %llu", cfg, (u64)peak);
    vramest_result_free(r);
    free(s);
}

/* bf16 K and V of `kv` heads x `hd` on `layers` layers, per token. */
static u64 kv_tok(u64 layers, u64 kv, u64 hd)
{
    return 2 * layers * kv * hd * 2;
}

/* Count `want`, a cache of `per_tok` bytes per token at two lengths, and a
 * training step. `gen` tokens more per sequence where generate() sizes a
 * static cache (a HybridCache: prompt + max_new_tokens) at prefill. */
static void family_gen(const char *cfg, u64 want, u64 per_tok, u64 gen)
{
    cr_assert_eq(count_of(cfg), want, "%s", cfg);
    cr_assert_eq(kv_of(cfg, 1, 1024), (1024 + gen) * per_tok, "%s", cfg);
    cr_assert_eq(kv_of(cfg, 2, 3072), 2 * (3072 + gen) * per_tok, "%s", cfg);
    trains_cfg(cfg);
}

static void family(const char *cfg, u64 want, u64 per_tok)
{
    family_gen(cfg, want, per_tok, 0);
}

/* q (heads x hd), k and v (kv x hd), o: bias-free attention weights. */
static u64 attn(u64 h, u64 heads, u64 kv, u64 hd)
{
    return 2 * h * heads * hd + 2 * h * kv * hd;
}

/* ---- OLMo: LayerNorms without parameters (modeling_olmo.py OlmoLayerNorm) ---- */

Test(family_olmo, count_cache_and_training)
{
    /* OLMo-1B-hf's sizes, tied */
    const char *cfg = "{\"model_type\":\"olmo\",\"hidden_size\":2048,\"num_hidden_layers\":16,\"num_attention_heads\":16,"
                      "\"num_key_value_heads\":16,\"intermediate_size\":8192,\"vocab_size\":50304,"
                      "\"tie_word_embeddings\":true,\"clip_qkv\":null}";
    u64 h = 2048;
    family(cfg, 16 * (attn(h, 16, 16, 128) + 3 * h * 8192) + 50304 * h, kv_tok(16, 16, 128));
}

/* ---- OLMoE: full-width q/k norms, 64 experts, router (modeling_olmoe.py) ---- */

Test(family_olmoe, count_cache_and_training)
{
    /* OLMoE-1B-7B-0924's sizes, untied */
    const char *cfg = "{\"model_type\":\"olmoe\",\"hidden_size\":2048,\"num_hidden_layers\":16,\"num_attention_heads\":16,"
                      "\"num_key_value_heads\":16,\"intermediate_size\":1024,\"num_experts\":64,"
                      "\"num_experts_per_tok\":8,\"vocab_size\":50304,\"tie_word_embeddings\":false}";
    u64 h = 2048;
    u64 layer = attn(h, 16, 16, 128) + h + 16 * 128 /* q_norm, k_norm */ + 2 * h /* norms */ + 64 * h /* gate */ +
                64 * 3 * h * 1024;
    family(cfg, 16 * layer + 2 * 50304 * h + h, kv_tok(16, 16, 128));
}

/* ---- Cohere2: one weight-only LayerNorm, 3 sliding layers to 1 global (modeling_cohere2.py) ---- */

Test(family_cohere2, count_cache_and_training)
{
    /* c4ai-command-r7b-12-2024's sizes, tied */
    const char *cfg = "{\"model_type\":\"cohere2\",\"hidden_size\":4096,\"num_hidden_layers\":32,"
                      "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"intermediate_size\":14336,"
                      "\"vocab_size\":256000,\"use_qk_norm\":false,\"sliding_window\":4096,"
                      "\"sliding_window_pattern\":4,\"tie_word_embeddings\":true}";
    u64 h = 4096;
    /* generate() allocates a HybridCache for prompt + 1 token; both lengths
     * within the window: every layer caches every token */
    family_gen(cfg, 32 * (attn(h, 32, 8, 128) + 3 * h * 14336 + h) + 256000 * h + h, kv_tok(32, 8, 128), 1);
    /* past it, the 24 sliding layers keep the window */
    cr_assert_eq(kv_of(cfg, 1, 16384), 16385 * kv_tok(8, 8, 128) + 4096 * kv_tok(24, 8, 128));
}

/* ---- EXAONE 3.x: Llama under GPT-2 names (remote modeling_exaone.py) ---- */

Test(family_exaone, count_cache_and_training)
{
    /* EXAONE-3.5-2.4B-Instruct's sizes, tied */
    const char *cfg = "{\"model_type\":\"exaone\",\"hidden_size\":2560,\"num_layers\":30,\"num_attention_heads\":32,"
                      "\"num_key_value_heads\":8,\"intermediate_size\":7168,\"vocab_size\":102400,"
                      "\"tie_word_embeddings\":true}";
    u64 h = 2560;
    family(cfg, 30 * (attn(h, 32, 8, 80) + 3 * h * 7168 + 2 * h) + 102400 * h + h, kv_tok(30, 8, 80));
}

/* ---- EXAONE 4: post-sublayer norms, per-head q/k norms (modeling_exaone4.py) ---- */

Test(family_exaone4, count_cache_and_training)
{
    /* EXAONE-4.0-1.2B's sizes: every layer global (its layer_types), tied */
    char cfg[2048];
    int n = snprintf(cfg, sizeof cfg,
                     "{\"model_type\":\"exaone4\",\"hidden_size\":2048,\"num_hidden_layers\":30,"
                     "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"head_dim\":64,"
                     "\"intermediate_size\":4096,\"vocab_size\":102400,\"sliding_window\":null,"
                     "\"sliding_window_pattern\":null,\"tie_word_embeddings\":true,\"layer_types\":[");
    for (int i = 0; i < 30; i++) n += snprintf(cfg + n, sizeof cfg - n, "%s\"full_attention\"", i ? "," : "");
    snprintf(cfg + n, sizeof cfg - n, "]}");
    u64 h = 2048;
    family(cfg, 30 * (attn(h, 32, 8, 64) + 2 * 64 + 3 * h * 4096 + 2 * h) + 102400 * h + h, kv_tok(30, 8, 64));
    /* EXAONE-4.0-32B's sizes: 3 sliding layers (4096) to one global, untied */
    const char *big = "{\"model_type\":\"exaone4\",\"hidden_size\":5120,\"num_hidden_layers\":64,"
                      "\"num_attention_heads\":40,\"num_key_value_heads\":8,\"head_dim\":128,"
                      "\"intermediate_size\":27392,\"vocab_size\":102400,\"sliding_window\":4096,"
                      "\"sliding_window_pattern\":4,\"tie_word_embeddings\":false}";
    h = 5120;
    cr_assert_eq(count_of(big), 64 * (attn(h, 40, 8, 128) + 2 * 128 + 3 * h * 27392 + 2 * h) + 2 * 102400 * h + h);
    cr_assert_eq(kv_of(big, 1, 2048), 2049 * kv_tok(64, 8, 128), "a HybridCache of prompt + 1");
    cr_assert_eq(kv_of(big, 1, 8192), 8193 * kv_tok(16, 8, 128) + 4096 * kv_tok(48, 8, 128));
}

/* ---- ERNIE 4.5 dense and MoE (modeling_ernie4_5.py, modeling_ernie4_5_moe.py) ---- */

Test(family_ernie4_5, count_cache_and_training)
{
    /* ERNIE-4.5-0.3B's sizes, tied */
    const char *cfg = "{\"model_type\":\"ernie4_5\",\"hidden_size\":1024,\"num_hidden_layers\":18,"
                      "\"num_attention_heads\":16,\"num_key_value_heads\":2,\"head_dim\":128,"
                      "\"intermediate_size\":3072,\"vocab_size\":103424,\"use_bias\":false,"
                      "\"tie_word_embeddings\":true}";
    u64 h = 1024, layer = attn(h, 16, 2, 128) + 3 * h * 3072 + 2 * h;
    family(cfg, 18 * layer + 103424 * h + h, kv_tok(18, 2, 128));
    /* use_bias: q, k, v, o and the three MLP projections */
    const char *biased = "{\"model_type\":\"ernie4_5\",\"hidden_size\":1024,\"num_hidden_layers\":18,"
                         "\"num_attention_heads\":16,\"num_key_value_heads\":2,\"head_dim\":128,"
                         "\"intermediate_size\":3072,\"vocab_size\":103424,\"use_bias\":true,"
                         "\"tie_word_embeddings\":true}";
    cr_assert_eq(count_of(biased) - count_of(cfg), 18 * (16 * 128 + 2 * 2 * 128 + h + 2 * 3072 + h));
}

Test(family_ernie4_5_moe, count_cache_and_training)
{
    /* ERNIE-4.5-21B-A3B's sizes: layer 0 dense, then 64 experts + 2 shared, tied */
    const char *cfg = "{\"model_type\":\"ernie4_5_moe\",\"hidden_size\":2560,\"num_hidden_layers\":28,"
                      "\"num_attention_heads\":20,\"num_key_value_heads\":4,\"head_dim\":128,"
                      "\"intermediate_size\":12288,\"moe_intermediate_size\":1536,\"moe_num_experts\":64,"
                      "\"moe_k\":6,\"moe_num_shared_experts\":2,\"moe_layer_start_index\":1,"
                      "\"moe_layer_end_index\":27,\"moe_layer_interval\":1,\"vocab_size\":103424,"
                      "\"use_bias\":false,\"tie_word_embeddings\":true}";
    u64 h = 2560, a = attn(h, 20, 4, 128) + 2 * h;
    u64 moe = 64 * h + 64 /* gate, moe_statics.e_score_correction_bias */ + 64 * 3 * h * 1536 + 3 * h * 2 * 1536;
    family(cfg, a + 3 * h * 12288 + 27 * (a + moe) + 103424 * h + h, kv_tok(28, 4, 128));
}

Test(family_ernie4_5_moe, other_layer_spacings_are_refused)
{
    const char *base = "{\"model_type\":\"ernie4_5_moe\",\"hidden_size\":64,\"num_hidden_layers\":4,"
                       "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"intermediate_size\":128,"
                       "\"moe_intermediate_size\":32,\"moe_num_experts\":4,\"moe_k\":2,\"vocab_size\":100,%s}";
    const char *bad[] = {"\"moe_layer_interval\":2", "\"moe_layer_end_index\":2"};
    for (size_t i = 0; i < 2; i++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg, base, bad[i]);
        char *s = spec_of(cfg, "{\"mode\":\"load\"}");
        vramest_model *m = NULL;
        vramest_precision *p = NULL;
        vramest_config *c = NULL;
        cr_assert_eq(vramest_spec_parse(s, strlen(s), &m, &p, &c), VRAMEST_E_UNSUPPORTED, "%s", cfg);
        const char *key = i ? "moe_layer_end_index" : "moe_layer_interval";
        cr_assert(strstr(vramest_last_error_message(), key), "%s", vramest_last_error_message());
        free(s);
    }
}

/* ---- Seed-OSS: q/k/v biases, none on o (modeling_seed_oss.py) ---- */

Test(family_seed_oss, count_cache_and_training)
{
    /* Seed-OSS-36B's sizes, untied */
    const char *cfg = "{\"model_type\":\"seed_oss\",\"hidden_size\":5120,\"num_hidden_layers\":64,"
                      "\"num_attention_heads\":80,\"num_key_value_heads\":8,\"head_dim\":128,"
                      "\"intermediate_size\":27648,\"vocab_size\":155136,\"attention_bias\":true,"
                      "\"attention_out_bias\":false,\"tie_word_embeddings\":false}";
    u64 h = 5120, layer = attn(h, 80, 8, 128) + (80 + 2 * 8) * 128 + 3 * h * 27648 + 2 * h;
    family(cfg, 64 * layer + 2 * 155136 * h + h, kv_tok(64, 8, 128));
}

/* ---- GLM-4 0414: sandwich norms, fused gate_up, q/k/v biases (modeling_glm4.py) ---- */

Test(family_glm4, count_cache_and_training)
{
    /* GLM-4-9B-0414's sizes, untied */
    const char *cfg = "{\"model_type\":\"glm4\",\"hidden_size\":4096,\"num_hidden_layers\":40,"
                      "\"num_attention_heads\":32,\"num_key_value_heads\":2,\"head_dim\":128,"
                      "\"intermediate_size\":13696,\"vocab_size\":151552,\"attention_bias\":true,"
                      "\"partial_rotary_factor\":0.5,\"tie_word_embeddings\":false}";
    u64 h = 4096, layer = attn(h, 32, 2, 128) + (32 + 2 * 2) * 128 + 3 * h * 13696 + 4 * h;
    family(cfg, 40 * layer + 2 * 151552 * h + h, kv_tok(40, 2, 128));
}

/* ---- GLM-4.5: dense first layer, routed + shared experts (modeling_glm4_moe.py) ---- */

Test(family_glm4_moe, count_cache_and_training)
{
    /* GLM-4.5-Air's sizes; its MTP layer (index 46) is not loaded */
    const char *cfg = "{\"model_type\":\"glm4_moe\",\"hidden_size\":4096,\"num_hidden_layers\":46,"
                      "\"num_attention_heads\":96,\"num_key_value_heads\":8,\"head_dim\":128,"
                      "\"intermediate_size\":10944,\"moe_intermediate_size\":1408,\"n_routed_experts\":128,"
                      "\"n_shared_experts\":1,\"num_experts_per_tok\":8,\"first_k_dense_replace\":1,"
                      "\"vocab_size\":151552,\"partial_rotary_factor\":0.5,\"use_qk_norm\":false,"
                      "\"attention_bias\":true,\"num_nextn_predict_layers\":1,\"tie_word_embeddings\":false}";
    u64 h = 4096, a = attn(h, 96, 8, 128) + (96 + 2 * 8) * 128 + 2 * h;
    /* the router's e_score_correction_bias is a buffer, not a parameter */
    u64 moe = 128 * h + 128 * 3 * h * 1408 + 3 * h * 1408;
    family(cfg, a + 3 * h * 10944 + 45 * (a + moe) + 2 * 151552 * h + h, kv_tok(46, 8, 128));
}

/* ---- Nemotron (Minitron): LayerNorm1P, relu2 up/down (modeling_nemotron.py) ---- */

Test(family_nemotron, count_cache_and_training)
{
    /* Nemotron-Mini-4B / Minitron-4B's sizes, untied */
    const char *cfg = "{\"model_type\":\"nemotron\",\"hidden_size\":3072,\"num_hidden_layers\":32,"
                      "\"num_attention_heads\":24,\"num_key_value_heads\":8,\"head_dim\":128,"
                      "\"intermediate_size\":9216,\"vocab_size\":256000,\"partial_rotary_factor\":0.5,"
                      "\"hidden_act\":\"relu2\",\"tie_word_embeddings\":false}";
    u64 h = 3072, layer = attn(h, 24, 8, 128) + 2 * h * 9216 + 2 * 2 * h;
    family(cfg, 32 * layer + 2 * 256000 * h + 2 * h, kv_tok(32, 8, 128));
}

/* ---- Phi-3.5-MoE: LayerNorms, biased attention and lm_head (modeling_phimoe.py) ---- */

Test(family_phimoe, count_cache_and_training)
{
    /* Phi-3.5-MoE-instruct's sizes, untied */
    const char *cfg = "{\"model_type\":\"phimoe\",\"hidden_size\":4096,\"num_hidden_layers\":32,"
                      "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"intermediate_size\":6400,"
                      "\"num_local_experts\":16,\"num_experts_per_tok\":2,\"vocab_size\":32064,"
                      "\"attention_bias\":true,\"lm_head_bias\":true,\"sliding_window\":null,"
                      "\"tie_word_embeddings\":false}";
    u64 h = 4096;
    u64 layer = attn(h, 32, 8, 128) + 2 * h + 2 * 8 * 128 + 16 * h + 16 * 3 * h * 6400 + 2 * 2 * h;
    family(cfg, 32 * layer + 2 * 32064 * h + 32064 + 2 * h, kv_tok(32, 8, 128));
}
