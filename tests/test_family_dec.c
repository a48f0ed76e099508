/* The 2026 zoo's plain decoders and MoE variants (issue #16; rows in
 * lib/model/families/{llama_like,experts,nas}.c): per family its exact
 * parameter count from a real config (tests/data/zoo.jsonl, zoo2.jsonl),
 * its KV cache against a hand formula at two context lengths, a training
 * step that runs, and what makes it differ from Llama; the per-layer
 * lists of config.json and their bad input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "family_checks.h"
#include "helpers.h"
#include "modelfiles.h"
#include "model/hf_config.h"
#include "model/model.h"
#include "runtime/runtime.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Bytes per token of a plain K and V cache: 2 x layers x kv heads x
 * head_dim x bf16. */
static uint64_t kv_per_token(uint64_t layers, uint64_t kv_heads, uint64_t head_dim)
{
    return 2 * layers * kv_heads * head_dim * 2;
}

/* The cache right after prefill of a family whose cache views its fused
 * q|k|v output for V (before transformers 4.56): per layer and token the
 * whole output (heads + 2 kv heads) and K (kv heads), else plain K and V. */
static uint64_t fused_prefill_per_token(uint64_t layers, uint64_t heads, uint64_t kv_heads, uint64_t head_dim)
{
    vx_runtime rt;
    vx_runtime_resolve(VX_FW_PYTORCH, NULL, &rt);
    if (!rt.cache_views) return kv_per_token(layers, kv_heads, head_dim);
    return layers * (heads + 3 * kv_heads) * head_dim * 2;
}

/* The KV cache of one prefill of `model` (pytorch, bf16) is `per_token`
 * bytes per token at two context lengths. */
static void cache_at_two_lengths(const char *model, uint64_t per_token, int64_t b1, int64_t t1, int64_t b2, int64_t t2)
{
    cr_assert_eq(kv_bytes(model, "pytorch", b1, t1), (uint64_t)(b1 * t1) * per_token, "%s, %lld x %lld tokens", model,
                 (long long)b1, (long long)t1);
    cr_assert_eq(kv_bytes(model, "pytorch", b2, t2), (uint64_t)(b2 * t2) * per_token, "%s, %lld x %lld tokens", model,
                 (long long)b2, (long long)t2);
}

/* A family's basics: zoo case `id` of `file` is exact, and preset `model`
 * caches `per_token` bytes per token at two lengths and trains. */
static void basics(const char *file, const char *id, const char *model, uint64_t per_token, int64_t b1, int64_t t1,
                   int64_t b2, int64_t t2)
{
    zoo_exact_in(file, id);
    cache_at_two_lengths(model, per_token, b1, t1, b2, t2);
    trains(model);
}

/* The count of `model` after merging config.json text `cfg` into it. */
static uint64_t count_with(vramest_model *m, const char *cfg)
{
    uint64_t n = 0;
    cr_assert_eq(vx_parse_hf_config(m, cfg, strlen(cfg)), VRAMEST_OK, "%s: %s", cfg, vramest_last_error_message());
    cr_assert_eq(vramest_model_param_count(m, &n, NULL), VRAMEST_OK);
    return n;
}

/* A config.json `cfg` is refused with `code` and a message naming `what`. */
static void refused(const char *cfg, int code, const char *what)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    int rc = vx_parse_hf_config(m, cfg, strlen(cfg));
    cr_assert_eq(rc, code, "%s: rc %d (%s)", cfg, rc, vramest_last_error_message());
    cr_assert(strstr(vramest_last_error_message(), what), "'%s' does not name %s", vramest_last_error_message(),
              what);
    vramest_model_free(m);
}

static int64_t inv_rows(const vramest_model *m, const char *name, int role)
{
    for (size_t i = 0; i < m->n_inv; i++)
        if (!strcmp(m->inv[i].name, name) && m->inv[i].role == role) return m->inv[i].rows;
    return -1;
}

/* ---- StableLM ---- */

Test(family_stablelm, count_cache_and_training)
{
    zoo_exact("zoo-params-stablelm-3b-4e1t");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-stablelm-2-zephyr-1.6b");
    /* 32 layers x 32 KV heads x 80 */
    cache_at_two_lengths("stablelm-3b-4e1t", kv_per_token(32, 32, 80), 1, 1024, 2, 4096);
    trains("stablelm-3b-4e1t");
}

Test(family_stablelm, qk_layernorm_and_parallel_residual)
{
    vramest_model *m = preset("stablelm-3b-4e1t");
    cr_assert_eq(m->shape.rotary_dim, 20, "partial_rotary_factor 0.25 of 80");
    cr_assert_eq(m->shape.placement, VX_PLACE_PRE);
    uint64_t base = count_with(m, "{}");
    /* per-head LayerNorms without bias: (heads + kv heads) x head_dim per layer */
    uint64_t qk = count_with(m, "{\"qk_layernorm\":true}");
    cr_assert_eq(qk - base, 32ull * (32 + 32) * 80);
    /* use_parallel_residual: no post_attention_layernorm (a LayerNorm: 2 x hidden) */
    uint64_t par = count_with(m, "{\"qk_layernorm\":false,\"use_parallel_residual\":true}");
    cr_assert_eq(base - par, 32ull * 2 * 2560);
    cr_assert_eq(m->shape.placement, VX_PLACE_PARALLEL);
    vramest_model_free(m);
}

/* ---- InternLM2 ---- */

Test(family_internlm2, count_cache_and_training)
{
    zoo_exact("zoo-params-internlm2.5-7b");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-internlm2-chat-7b");
    uint64_t pt = fused_prefill_per_token(32, 32, 8, 128);
    cache_at_two_lengths("internlm2.5-7b", pt, 1, 2048, 2, 8192);
    trains("internlm2.5-7b");
}

Test(family_internlm2, fused_wqkv_with_grouped_heads)
{
    vramest_model *m = preset("internlm2.5-7b");
    cr_assert_eq(inv_rows(m, "wqkv", VX_ROLE_ATTN_QKV), (32 + 2 * 8) * 128);
    cr_assert_eq(inv_rows(m, "w1", VX_ROLE_MLP_GATE), 14336);
    cr_assert_eq(inv_rows(m, "output", VX_ROLE_LM_HEAD), 92544);
    uint64_t base = count_with(m, "{}"), with = count_with(m, "{\"bias\":true}");
    cr_assert_eq(with - base, 32ull * ((32 + 2 * 8) * 128 + 4096), "`bias`: wqkv and wo only");
    vramest_model_free(m);
}

/* ---- Baichuan ---- */

Test(family_baichuan, count_cache_and_training)
{
    zoo_exact("zoo-params-baichuan2-7b");
    uint64_t pt = fused_prefill_per_token(32, 32, 32, 128);
    cache_at_two_lengths("baichuan2-7b", pt, 1, 1024, 1, 4096);
    trains("baichuan2-7b");
    vramest_model *m = preset("baichuan2-7b");
    cr_assert_eq(inv_rows(m, "W_pack", VX_ROLE_ATTN_QKV), 3 * 4096);
    cr_assert_eq(m->shape.kv_heads, 32, "no grouped heads");
    vramest_model_free(m);
}

/* ---- MiniCPM (dense and MoE) ---- */

Test(family_minicpm, count_cache_and_training)
{
    zoo_exact("zoo-params-minicpm-2b");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-minicpm-2b-sft-bf16");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-minicpm-moe-8x2b");
    cache_at_two_lengths("minicpm-2b", kv_per_token(40, 36, 64), 1, 1024, 2, 4096);
    cache_at_two_lengths("minicpm-moe-8x2b", kv_per_token(40, 36, 64), 1, 1024, 2, 2048);
    trains("minicpm-2b");
    trains("minicpm-moe-8x2b");
    vramest_model *m = preset("minicpm-moe-8x2b");
    cr_assert_eq(m->shape.experts, 8);
    cr_assert_eq(m->shape.moe_ffn, 5760, "experts of intermediate_size");
    cr_assert_eq(m->layers.kind[0].mlp, VX_MLPK_MOE);
    vramest_model_free(m);
    m = preset("minicpm-2b");
    cr_assert_eq(m->shape.experts, 0, "dense without num_experts");
    vramest_model_free(m);
}

/* ---- Granite / GraniteMoE ---- */

Test(family_granite, granitemoe_count_cache_and_training)
{
    basics("zoo.jsonl", "zoo-params-granite-3.1-1b-a400m", "granite-3.1-1b-a400m", kv_per_token(24, 8, 64), 1, 1024, 4, 8192);
    vramest_model *m = preset("granite-3.1-1b-a400m");
    /* input_linear (experts, 2 x 512, hidden) as its gate and up halves */
    int halves = 0;
    for (size_t i = 0; i < m->n_inv; i++)
        if (!strcmp(m->inv[i].name, "input_linear")) {
            halves++;
            cr_assert_eq(m->inv[i].rows, 512);
            cr_assert_eq(m->inv[i].n_per_layer, 32);
        }
    cr_assert_eq(halves, 2);
    cr_assert_eq(inv_rows(m, "layer", VX_ROLE_ROUTER), 32, "router.layer: experts x hidden");
    vramest_model_free(m);
}

Test(family_granite, dense_is_llama_with_multipliers)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    /* granite-3.1-2b's shapes: Llama's count, tied */
    uint64_t n = count_with(m, "{\"model_type\":\"granite\",\"hidden_size\":2048,\"num_hidden_layers\":40,"
                               "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"intermediate_size\":8192,"
                               "\"vocab_size\":49155,\"tie_word_embeddings\":true,\"embedding_multiplier\":12.0,"
                               "\"logits_scaling\":8.0}");
    uint64_t per_layer = 2048ull * 2048 * 2 + 2048ull * 512 * 2 + 3ull * 2048 * 8192 + 2 * 2048;
    cr_assert_eq(n, 40 * per_layer + 49155ull * 2048 + 2048);
    vramest_model_free(m);
}

/* ---- SmolLM3: NoPE layers ---- */

Test(family_smollm3, count_cache_training_and_nope_layers)
{
    basics("zoo.jsonl", "zoo-params-smollm3-3b", "smollm3-3b", kv_per_token(36, 4, 128), 1, 2048, 2, 16384);
    vramest_model *m = preset("smollm3-3b");
    cr_assert_eq(m->shape.nope_every, 4);
    const vx_layers *L = &m->layers;
    vx_tally t;
    vx_layers_tally(L, VX_STACK_DEC, 0, 36, &t);
    int64_t nope = 0;
    for (int k = 0; k < L->n_kinds; k++) nope += L->kind[k].rope ? 0 : t.count[k];
    cr_assert_eq(nope, 9, "every 4th of 36 layers");
    cr_assert_eq(L->stack[VX_STACK_DEC].period, 4);
    vramest_model_free(m);
}

/* ---- DeepSeek v1 MoE ---- */

Test(family_deepseek, count_cache_and_training)
{
    basics("zoo.jsonl", "zoo-params-deepseek-moe-16b", "deepseek-moe-16b", kv_per_token(28, 16, 128), 1, 1024, 3, 4096);
    vramest_model *m = preset("deepseek-moe-16b");
    cr_assert_eq(m->shape.dense_layers, 1);
    cr_assert_eq(m->shape.shared_ffn, 2 * 1408);
    /* moe_layer_freq 2: experts on the even layers after the dense one */
    uint64_t all = count_with(m, "{}"), every2 = count_with(m, "{\"moe_layer_freq\":2}");
    uint64_t moe = 64ull * 3 * 2048 * 1408 + 64ull * 2048 + 3ull * 2048 * 2816, dense = 3ull * 2048 * 10944;
    cr_assert_eq(all - every2, 14 * (moe - dense), "14 of the 27 MoE layers become dense");
    vramest_model_free(m);
}

/* ---- Kimi-K2 (DeepSeek-V3 layout) ---- */

Test(family_kimi_k2, count_cache_and_training)
{
    zoo_exact("zoo-params-kimi-k2-instruct");
    /* MLA under transformers: the expanded K (128 + 64) and V (128) of 64 heads */
    uint64_t pt = 61ull * 64 * (192 + 128) * 2;
    cache_at_two_lengths("kimi-k2", pt, 1, 1024, 1, 4096);
    vramest_model *m = preset("kimi-k2");
    cr_assert_eq(inv_rows(m, "e_score_correction_bias", VX_ROLE_ROUTER), 384, "a Parameter in its remote code");
    vramest_model_free(m);
}

/* ---- MiniMax-M2 ---- */

Test(family_minimax_m2, count_cache_and_training)
{
    zoo_exact("zoo-params-minimax-m2.5");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-minimax-m2.7");
    cache_at_two_lengths("minimax-m2.5", kv_per_token(62, 8, 128), 1, 4096, 2, 32768);
    vramest_model *m = preset("minimax-m2.5");
    cr_assert_eq(inv_rows(m, "q_norm", VX_ROLE_NORM), 48 * 128, "q_norm over every head");
    cr_assert_eq(inv_rows(m, "w1", VX_ROLE_EXPERT_GATE), 1536);
    cr_assert_eq(m->shape.rotary_dim, 64);
    vramest_model_free(m);
}

/* ---- DBRX ---- */

Test(family_dbrx, count_cache_and_training)
{
    zoo_exact_in("zoo2.jsonl", "zoo2-params-dbrx-instruct");
    cache_at_two_lengths("dbrx-instruct", kv_per_token(40, 8, 128), 1, 2048, 1, 32768);
    vramest_model *m = preset("dbrx-instruct");
    cr_assert_eq(m->shape.kv_heads, 8, "attn_config.kv_n_heads");
    cr_assert_eq(m->shape.experts, 16, "ffn_config.moe_num_experts");
    cr_assert_eq(m->shape.experts_per_tok, 4);
    cr_assert_eq(inv_rows(m, "Wqkv", VX_ROLE_ATTN_QKV), 6144 + 2 * 8 * 128);
    vramest_model_free(m);
    refused("{\"model_type\":\"dbrx\",\"d_model\":64,\"n_heads\":4,\"n_layers\":2,\"vocab_size\":100,"
            "\"attn_config\":{\"kv_n_heads\":\"two\"},\"ffn_config\":{\"ffn_hidden_size\":64,"
            "\"moe_num_experts\":4,\"moe_top_k\":2}}",
            VRAMEST_E_TYPE, "attn_config.kv_n_heads");
}

/* ---- MiMo: MTP layers that are parameters ---- */

Test(family_mimo, count_cache_and_training)
{
    basics("zoo2.jsonl", "zoo2-params-mimo-7b-base", "mimo-7b", kv_per_token(36, 8, 128), 1, 2048, 2, 8192);
    vramest_model *m = preset("mimo-7b");
    uint64_t with = count_with(m, "{}"), without = count_with(m, "{\"num_nextn_predict_layers\":0}");
    cr_assert_eq(with - without, 210790400ull, "one MTP layer (research NOTES: 210,790,400)");
    vramest_model_free(m);
}

/* ---- Nemotron-NAS: per-layer sizes ---- */

Test(family_nemotron_nas, count_cache_and_training)
{
    zoo_exact_in("zoo2.jsonl", "zoo2-params-llama-3.3-nemotron-super-49b-v1");
    /* 49 of its 80 layers have attention, 8 KV heads x 128 each */
    cache_at_two_lengths("nemotron-super-49b", kv_per_token(49, 8, 128), 1, 2048, 2, 8192);
    trains("nemotron-super-49b");
}

Test(family_nemotron_nas, blocks_become_layer_kinds)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    /* a no-op attention, a linear attention, a no-op MLP, a linear MLP */
    const char *cfg =
        "{\"model_type\":\"nemotron-nas\",\"hidden_size\":64,\"num_hidden_layers\":4,\"num_attention_heads\":8,"
        "\"vocab_size\":100,\"tie_word_embeddings\":false,\"block_configs\":["
        "{\"attention\":{\"n_heads_in_group\":4},\"ffn\":{\"ffn_mult\":1.0}},"
        "{\"attention\":{\"no_op\":true},\"ffn\":{\"ffn_mult\":2.0}},"
        "{\"attention\":{\"replace_with_linear\":true},\"ffn\":{\"no_op\":true}},"
        "{\"attention\":{\"n_heads_in_group\":2},\"ffn\":{\"replace_with_linear\":true}}]}";
    uint64_t n = count_with(m, cfg);
    char blocks[64];
    const char *got = NULL;
    cr_assert_eq(vramest_model_get_str(m, VRAMEST_MODEL_LAYER_BLOCKS, &got), VRAMEST_OK);
    snprintf(blocks, sizeof blocks, "%s", got);
    /* ffn: find_multiple(int(2 x mult x 64 / 3), 256) = 256 for both mults */
    cr_assert_str_eq(blocks, "2:256,0:256,L:0,4:L");
    uint64_t h = 64, d = 8;
    uint64_t attn2 = h * 8 * d * 2 + 2 * h * 2 * d, attn4 = h * 8 * d * 2 + 2 * h * 4 * d;
    uint64_t mlp = 3 * h * 256;
    uint64_t want = 100 * h * 2 + h                       /* embeddings, head, final norm */
                    + attn2 + h + mlp + h                 /* layer 0 */
                    + mlp + h                             /* layer 1: MLP only */
                    + h * h + h                           /* layer 2: linear attention */
                    + attn4 + h + h * h + h;              /* layer 3 */
    cr_assert_eq(n, want);
    vramest_model_free(m);
}

Test(family_nemotron_nas, bad_block_configs)
{
    refused("{\"model_type\":\"nemotron-nas\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":8,"
            "\"vocab_size\":100,\"block_configs\":[{\"attention\":{\"n_heads_in_group\":4},\"ffn\":{\"ffn_mult\":1}}]}",
            VRAMEST_E_INVALID_MODEL, "block_configs");
    refused("{\"model_type\":\"nemotron-nas\",\"hidden_size\":64,\"num_hidden_layers\":1,\"num_attention_heads\":8,"
            "\"vocab_size\":100,\"block_configs\":[{\"attention\":{\"n_heads_in_group\":3},\"ffn\":{\"ffn_mult\":1}}]}",
            VRAMEST_E_INVALID_MODEL, "n_heads_in_group");
    refused("{\"model_type\":\"nemotron-nas\",\"hidden_size\":64,\"num_hidden_layers\":1,\"num_attention_heads\":8,"
            "\"vocab_size\":100,\"block_configs\":[{\"attention\":{\"n_heads_in_group\":4,\"window_length\":128},"
            "\"ffn\":{\"ffn_mult\":1}}]}",
            VRAMEST_E_UNSUPPORTED, "window_length");
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_assert_eq(vramest_model_set_str(m, VRAMEST_MODEL_LAYER_BLOCKS, "8:x"), VRAMEST_OK);
    uint64_t n;
    cr_assert_eq(vramest_model_set_str(m, VRAMEST_MODEL_MODEL_TYPE, "nemotron-nas"), VRAMEST_OK);
    cr_assert_neq(vramest_model_param_count(m, &n, NULL), VRAMEST_OK);
    vramest_model_free(m);
}

/* ---- per-layer lists of config.json ---- */

#define SMALL "\"hidden_size\":64,\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100"

Test(family_layer_lists, wrong_length_is_refused_by_name)
{
    refused("{\"model_type\":\"gemma3_text\"," SMALL ",\"num_hidden_layers\":3,"
            "\"layer_types\":[\"sliding_attention\",\"full_attention\"]}",
            VRAMEST_E_INVALID_MODEL, "layer_types");
    refused("{\"model_type\":\"smollm3\"," SMALL ",\"num_hidden_layers\":3,\"no_rope_layers\":[1,1,0,1]}",
            VRAMEST_E_INVALID_MODEL, "no_rope_layers");
    refused("{\"model_type\":\"gemma3_text\"," SMALL ",\"num_hidden_layers\":3,"
            "\"layer_types\":[\"full_attention\",\"sliding_attention\",\"sliding_attention\"]}",
            VRAMEST_E_UNSUPPORTED, "layer_types");
    refused("{\"model_type\":\"gemma3_text\"," SMALL ",\"num_hidden_layers\":2,\"layer_types\":\"full\"}",
            VRAMEST_E_TYPE, "layer_types");
}

Test(family_layer_lists, layer_types_give_the_pattern)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    count_with(m, "{\"model_type\":\"gemma3_text\"," SMALL ",\"num_hidden_layers\":8,\"sliding_window\":512,"
                  "\"layer_types\":[\"sliding_attention\",\"sliding_attention\",\"sliding_attention\","
                  "\"full_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\","
                  "\"full_attention\"]}");
    cr_assert_eq(m->shape.sliding_pattern, 4, "every 4th layer full, whatever the row's 6");
    /* all full: no layer slides */
    count_with(m, "{\"layer_types\":[\"full_attention\",\"full_attention\",\"full_attention\",\"full_attention\","
                  "\"full_attention\",\"full_attention\",\"full_attention\",\"full_attention\"]}");
    cr_assert_eq(m->shape.sliding_window, 0);
    /* EXAONE 4's string form */
    count_with(m, "{\"layer_types\":null,\"sliding_window_pattern\":\"LLG\"}");
    cr_assert_eq(m->shape.sliding_pattern, 3);
    vramest_model_free(m);
    refused("{\"model_type\":\"gemma3_text\"," SMALL ",\"num_hidden_layers\":2,\"sliding_window_pattern\":\"LGL\"}",
            VRAMEST_E_UNSUPPORTED, "sliding_window_pattern");
}

/* ---- item 6: bugs found trying the zoo ---- */

Test(family_bugs, phi4_mini_cache_uses_its_kv_heads)
{
    /* 32 layers x 8 KV heads x 128; before transformers 4.56 the prefill
     * cache also pins each layer's fused q|k|v output, and says so */
    char spec[2048];
    snprintf(spec, sizeof spec,
             "{\"model\":{\"hf_config\":{\"model_type\":\"phi3\",\"hidden_size\":3072,\"num_hidden_layers\":32,"
             "\"num_attention_heads\":24,\"num_key_value_heads\":8,\"intermediate_size\":8192,"
             "\"vocab_size\":200064,\"tie_word_embeddings\":true,\"partial_rotary_factor\":0.75}},"
             "\"precision\":\"bf16\",\"device\":\"H100-80GB\",\"workload\":{\"mode\":\"infer\",\"batch_size\":1,"
             "\"prompt_len\":4096,\"gen_len\":1}}");
    vramest_result *r = estimate(spec);
    uint64_t kv = category(r, VRAMEST_CAT_KV_CACHE);
    cr_assert_eq(kv, 4096 * fused_prefill_per_token(32, 24, 8, 128));
    vx_runtime rt;
    vx_runtime_resolve(VX_FW_PYTORCH, NULL, &rt);
    if (rt.cache_views) {
        bool said = false;
        for (uint32_t i = 0; i < vramest_result_warning_count(r); i++)
            said |= strstr(vramest_result_warning(r, i), "8 key/value heads") != NULL;
        cr_assert(said, "the plan explains the pinned q|k|v output");
    }
    vramest_result_free(r);
}

Test(family_bugs, zero_shared_expert_width_is_accepted)
{
    zoo_exact("zoo-params-qwen3-coder-480b-a35b");
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    /* Qwen2-MoE with a 0-wide shared expert: its gate alone (hidden x 1 per layer) */
    uint64_t a = count_with(m, "{\"model_type\":\"qwen2_moe\"," SMALL ",\"num_hidden_layers\":2,\"num_experts\":4,"
                               "\"num_experts_per_tok\":2,\"moe_intermediate_size\":32,"
                               "\"shared_expert_intermediate_size\":16}");
    uint64_t b = count_with(m, "{\"shared_expert_intermediate_size\":0}");
    cr_assert_eq(a - b, 2ull * 3 * 64 * 16);
    vramest_model_free(m);
}

/* ---- item 5: unknown families degrade, never refuse ---- */

#define LLAMA3_SIZES                                                                                                \
    "\"hidden_size\":4096,\"num_hidden_layers\":32,\"num_attention_heads\":32,\"num_key_value_heads\":8,"     \
    "\"intermediate_size\":14336,\"vocab_size\":128256,\"tie_word_embeddings\":false"

Test(family_generic, unknown_model_type_is_a_generic_decoder_with_a_warning)
{
    vramest_result *r = estimate("{\"model\":{\"hf_config\":{\"model_type\":\"foo_lm\"," LLAMA3_SIZES "}},"
                                 "\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\",\"prompt_len\":1024,"
                                 "\"gen_len\":1}}");
    uint64_t params = 0;
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_PARAMS_TOTAL, &params), VRAMEST_OK);
    cr_assert_eq(params, 8030261248ull, "Llama-3-8B's layout");
    int prov;
    cr_assert_eq(vramest_result_provenance(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &prov), VRAMEST_OK);
    cr_assert_eq(prov, VRAMEST_PROV_APPROXIMATE);
    cr_assert_str_eq(vramest_provenance_name(VRAMEST_PROV_APPROXIMATE), "approximate");
    bool said = false;
    for (uint32_t i = 0; i < vramest_result_warning_count(r); i++)
        said |= strstr(vramest_result_warning(r, i), "'foo_lm' is unknown") != NULL;
    cr_assert(said, "the plan names the family it stands in for");
    cr_assert_eq(category(r, VRAMEST_CAT_KV_CACHE), 1024 * kv_per_token(32, 8, 128));
    vramest_result_free(r);
    /* a known family set afterwards is the caller's: no note */
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    count_with(m, "{\"model_type\":\"foo_lm\"," LLAMA3_SIZES "}");
    cr_assert(m->family_note[0] && m->shape.fam->generic);
    cr_assert_eq(vramest_model_set_str(m, VRAMEST_MODEL_MODEL_TYPE, "llama"), VRAMEST_OK);
    cr_assert(!m->family_note[0]);
    vramest_model_free(m);
}

Test(family_generic, experts_and_shared_experts)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    /* DeepSeek-MoE-16B's sizes under an unknown name: its count exactly */
    uint64_t n = count_with(m, "{\"model_type\":\"bar_moe\",\"hidden_size\":2048,\"num_hidden_layers\":28,"
                               "\"num_attention_heads\":16,\"num_key_value_heads\":16,\"intermediate_size\":10944,"
                               "\"moe_intermediate_size\":1408,\"n_routed_experts\":64,\"n_shared_experts\":2,"
                               "\"num_experts_per_tok\":6,\"first_k_dense_replace\":1,\"vocab_size\":102400,"
                               "\"tie_word_embeddings\":false}");
    cr_assert_eq(n, 16375728128ull);
    vramest_model_free(m);
}

Test(family_generic, without_the_usual_keys_it_is_refused_by_name)
{
    refused("{\"model_type\":\"foo_lm\",\"d_model\":64}", VRAMEST_E_UNKNOWN_MODEL_TYPE, "num_attention_heads");
    /* a hybrid's layers are not a decoder's: refused, naming the key */
    refused("{\"model_type\":\"foo_h\"," LLAMA3_SIZES ",\"ssm_state_size\":128}", VRAMEST_E_UNKNOWN_MODEL_TYPE,
            "ssm_state_size");
    /* the usual keys but no MLP width: asked for by name */
    refused("{\"model_type\":\"foo_lm\",\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
            "\"vocab_size\":100}",
            VRAMEST_E_INCOMPLETE_MODEL, "intermediate_size");
}

/* A bare safetensors checkpoint (no config.json): 2 layers, hidden 128,
 * q width 256, k width 64, MLP 384, vocabulary 500; Qwen3's per-head
 * q/k norms of 32 when `qwen3`. */
typedef struct bare {
    st_t t[32];
    char names[32][64];
    size_t n;
} bare;

static void bare_add(bare *b, int64_t rows, int64_t cols, const char *fmt, int layer)
{
    cr_assert(b->n < 32);
    snprintf(b->names[b->n], sizeof b->names[b->n], fmt, layer);
    b->t[b->n] = (st_t){b->names[b->n], "BF16", cols ? 2 : 1, {rows, cols}};
    b->n++;
}

static void write_bare(const char *name, bool qwen3)
{
    bare b = {.n = 0};
    const int64_t h = 128, q = 256, k = 64, f = 384, V = 500;
    bare_add(&b, V, h, "model.embed_tokens.weight", 0);
    for (int i = 0; i < 2; i++) {
        bare_add(&b, q, h, "model.layers.%d.self_attn.q_proj.weight", i);
        bare_add(&b, k, h, "model.layers.%d.self_attn.k_proj.weight", i);
        bare_add(&b, k, h, "model.layers.%d.self_attn.v_proj.weight", i);
        bare_add(&b, h, q, "model.layers.%d.self_attn.o_proj.weight", i);
        if (qwen3) {
            bare_add(&b, 32, 0, "model.layers.%d.self_attn.q_norm.weight", i);
            bare_add(&b, 32, 0, "model.layers.%d.self_attn.k_norm.weight", i);
        }
        bare_add(&b, f, h, "model.layers.%d.mlp.gate_proj.weight", i);
        bare_add(&b, f, h, "model.layers.%d.mlp.up_proj.weight", i);
        bare_add(&b, h, f, "model.layers.%d.mlp.down_proj.weight", i);
        bare_add(&b, h, 0, "model.layers.%d.input_layernorm.weight", i);
        bare_add(&b, h, 0, "model.layers.%d.post_attention_layernorm.weight", i);
    }
    bare_add(&b, h, 0, "model.norm.weight", 0);
    bare_add(&b, V, h, "lm_head.weight", 0);
    st_write_sparse(name, b.t, b.n);
}

static vramest_result *try_estimate(const char *spec, int *rc)
{
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    vramest_result *r = NULL;
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &c), VRAMEST_OK, "%s", vramest_last_error_message());
    *rc = vramest_estimate(m, p, c, &r);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    return r;
}

Test(family_generic, bare_safetensors_family_and_heads_from_the_tensors)
{
    make_tmp();
    write_bare("bare.safetensors", false);
    char spec[768];
    int rc;
    uint64_t params, want = 500ull * 128 * 2 + 128 + 2 * (128ull * 256 * 2 + 128ull * 64 * 2 + 3ull * 128 * 384 + 256);
    /* load is exact: the weights are the file's */
    snprintf(spec, sizeof spec, "{\"model\":{\"safetensors\":\"%s\"},\"workload\":{\"mode\":\"load\"}}",
             tmp_path("bare.safetensors"));
    vramest_result *r = try_estimate(spec, &rc);
    cr_assert_eq(rc, VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_PARAMS_TOTAL, &params), VRAMEST_OK);
    cr_assert_eq(params, want, "the count from the shapes");
    bool said = false;
    for (uint32_t i = 0; i < vramest_result_warning_count(r); i++)
        said |= strstr(vramest_result_warning(r, i), "'llama' inferred from the tensor names") != NULL;
    cr_assert(said);
    vramest_result_free(r);
    /* inference needs the heads: asked for by name */
    snprintf(spec, sizeof spec,
             "{\"model\":{\"safetensors\":\"%s\"},\"workload\":{\"mode\":\"infer\",\"prompt_len\":100}}",
             tmp_path("bare.safetensors"));
    r = try_estimate(spec, &rc);
    cr_assert_eq(rc, VRAMEST_E_INCOMPLETE_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "num_attention_heads"), "%s", vramest_last_error_message());
    /* given the heads, k_proj gives the key/value heads: 8 heads of 32, 2 KV heads (issue #16 item 6) */
    snprintf(spec, sizeof spec,
             "{\"model\":{\"path\":\"%s\"},\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\","
             "\"prompt_len\":1000,\"gen_len\":1}}",
             tmp_path("bare.safetensors"));
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &c), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_ATTENTION_HEADS, 8), VRAMEST_OK);
    cr_assert_eq(m->shape.kv_heads, 2);
    cr_assert_eq(m->shape.head_dim, 32);
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(category(r, VRAMEST_CAT_KV_CACHE), 1000 * kv_per_token(2, 2, 32));
    int prov;
    cr_assert_eq(vramest_result_provenance(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &prov), VRAMEST_OK);
    cr_assert_eq(prov, VRAMEST_PROV_EXACT_FILE);
    vramest_result_free(r);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    drop_tmp();
}

Test(family_generic, bare_qwen3_checkpoint_gives_its_heads)
{
    make_tmp();
    write_bare("q3.safetensors", true);
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("q3.safetensors")), VRAMEST_OK, "%s",
                 vramest_last_error_message());
    const char *mt = NULL;
    cr_assert_eq(vramest_model_get_str(m, VRAMEST_MODEL_MODEL_TYPE, &mt), VRAMEST_OK);
    cr_assert_str_eq(mt, "qwen3");
    /* the per-head q_norm gives head_dim 32: 8 heads, 2 key/value heads */
    cr_assert(!m->shape.heads_from_files);
    cr_assert_eq(m->shape.heads, 8);
    cr_assert_eq(m->shape.kv_heads, 2);
    vramest_model_free(m);
    drop_tmp();
}
