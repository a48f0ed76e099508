/* Families with a recurrent token mixer (issue #16 item 2; lib/model/hybrid.c,
 * lib/model/families/hybrid.c): exact parameter counts of real configs
 * (tests/data/zoo.jsonl, zoo2.jsonl, zoo_hybrid.jsonl), the per-layer layout
 * from each config's layer list, the KV cache of the attention layers and
 * the per-sequence state of the recurrent ones against hand formulas at two
 * context lengths and for each runtime, a training step that runs, the
 * checkpoint names, and the bad input a layer list can carry. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_checks.h"
#include "helpers.h"
#include "model/hf_config.h"
#include "model/model.h"

/* ---- exact counts ---- */

Test(hybrid_zoo, every_case_is_exact)
{
    cr_assert_eq(zoo_exact_when_read("zoo_hybrid.jsonl"), 12);
    zoo_exact("zoo-params-nemotron-3-nano-30b-a3b");
    /* config.json written by Python's json: "time_step_limit": [0.0, Infinity] */
    zoo_exact_in("zoo2.jsonl", "zoo2-params-nemotron-3-super-120b-a12b-fp8");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-nemotron-h-56b-base-8k");
    /* Qwen3.5 / 3.6 as released: the multimodal wrapper, its text_config
     * read with the qwen3_5(_moe)_text families, the vision tower counted */
    zoo_exact("zoo-params-qwen3.5-35b-a3b");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-qwen3.5-27b");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-qwen3.5-122b-a10b");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-qwen3.5-397b-a17b");
}

/* A config's layers as their mixer and MLP letters, read back through the
 * layout's runs. */
static void layout_of(const vramest_model *m, char *mix, char *mlp)
{
    const vx_layers *L = &m->layers;
    const vx_layer_stack *st = &L->stack[VX_STACK_DEC];
    for (int64_t i = 0; i < st->layers; i++) {
        int64_t r = i % st->period, j = st->run0;
        while (r >= (int64_t)L->run[j].count) r -= L->run[j].count, j++;
        const vx_layer_kind *k = &L->kind[L->run[j].kind];
        mix[i] = k->ssm_par ? 'H' : k->mixer == VX_MIX_ATTN ? 'A' : k->mixer == VX_MIX_NONE ? 'N' : 'M';
        mlp[i] = k->mlp == VX_MLPK_DENSE ? 'D' : k->mlp == VX_MLPK_MOE ? 'E' : 'N';
    }
    mix[st->layers] = mlp[st->layers] = '\0';
}

Test(hybrid_layout, each_config_list_gives_its_layers)
{
    char mix[512], mlp[512];
    vramest_model *m = preset("nemotron-3-nano-30b-a3b");
    layout_of(m, mix, mlp);
    /* hybrid_override_pattern MEMEM*E...: one mixer or one MLP per block */
    cr_assert_str_eq(mix, "MNMNMANMNMNMANMNMNMANMNMNMANMNMNMANMNMNMNMANMNMNMNMN");
    cr_assert_str_eq(mlp, "NENENNENENENNENENENNENENENNENENENNENENENENNENENENENE");
    vramest_model_free(m);
    m = preset("qwen3-next-80b-a3b"); /* full_attention_interval 4 */
    layout_of(m, mix, mlp);
    for (int i = 0; i < 48; i++) cr_assert_eq(mix[i], (i + 1) % 4 ? 'M' : 'A', "layer %d", i);
    cr_assert_eq(strspn(mlp, "E"), 48);
    cr_assert_eq(m->layers.n_runs, 2, "LLLA repeated: one period of two runs");
    vramest_model_free(m);
    m = preset("jamba-1.5-mini"); /* attention every 8 from 4, experts every 2 from 1 */
    layout_of(m, mix, mlp);
    cr_assert_str_eq(mix, "MMMMAMMMMMMMAMMMMMMMAMMMMMMMAMMM");
    cr_assert_str_eq(mlp, "DEDEDEDEDEDEDEDEDEDEDEDEDEDEDEDE");
    vramest_model_free(m);
    m = preset("falcon-h1-0.5b");
    layout_of(m, mix, mlp);
    cr_assert_eq(strspn(mix, "H"), 36);
    vramest_model_free(m);
    m = preset("granite-4.0-h-tiny"); /* layer_types; experts and the shared MLP everywhere */
    layout_of(m, mix, mlp);
    cr_assert_str_eq(mix, "MMMMMAMMMMMMMMMAMMMMMMMMMAMMMMMMMMMAMMMM");
    cr_assert_eq(strspn(mlp, "E"), 40);
    vramest_model_free(m);
    m = preset("lfm2-1.2b"); /* full_attn_idxs [2, 5, 8, 10, 12, 14]; a SwiGLU on every layer */
    layout_of(m, mix, mlp);
    cr_assert_str_eq(mix, "MMAMMAMMAMAMAMAM");
    cr_assert_eq(strspn(mlp, "D"), 16);
    vramest_model_free(m);
}

/* ---- caches: attention KV per token, recurrent state per sequence ---- */

/* The recurrent state of one layer and sequence: the convolution's `kept`
 * inputs over `conv_dim` channels, and the scan state. */
static uint64_t state_bytes(uint64_t conv_dim, uint64_t kept, uint64_t conv_b, uint64_t rec, uint64_t rec_b)
{
    return conv_dim * kept * conv_b + rec * rec_b;
}

/* transformers (bf16): the whole kernel window, the state in the model's
 * dtype (gated DeltaNet's fp32, as the kernels return it). */
Test(hybrid_cache, transformers_kv_and_state_against_the_hand_formulas)
{
    struct {
        const char *model;
        uint64_t attn_layers, kv_heads, head_dim, state_layers, per_layer_state;
    } c[] = {
        /* Mamba: d_inner 1536 x K 4; d_inner x N 16 */
        {"mamba-130m", 0, 0, 0, 24, state_bytes(1536, 4, 2, 1536 * 16, 2)},
        /* Nemotron-3 Nano: 6 attention layers (2 x 128); 23 Mamba-2: 4096 + 2 x 8 x 128 channels, 64 x 64 x 128 */
        {"nemotron-3-nano-30b-a3b", 6, 2, 128, 23, state_bytes(6144, 4, 2, 64 * 64 * 128, 2)},
        /* Qwen3-Next: 12 attention (2 x 256); 36 DeltaNet: 2 x 16 x 128 + 32 x 128 channels, 32 x 128 x 128 fp32 */
        {"qwen3-next-80b-a3b", 12, 2, 256, 36, state_bytes(8192, 4, 2, 32 * 128 * 128, 4)},
        /* Jamba 1.5 Mini: 4 attention (8 x 128); 28 Mamba: d_inner 8192, N 16 */
        {"jamba-1.5-mini", 4, 8, 128, 28, state_bytes(8192, 4, 2, 8192 * 16, 2)},
        /* Falcon-H1 0.5B: every layer both: 2 x 64 KV; 1536 + 2 x 128 channels, 24 x 64 x 128 */
        {"falcon-h1-0.5b", 36, 2, 64, 36, state_bytes(1792, 4, 2, 24 * 64 * 128, 2)},
        /* Granite 4.0 H Tiny: 4 attention (4 x 128); 36 Mamba-2: 3072 + 2 x 128 channels, 48 x 64 x 128 */
        {"granite-4.0-h-tiny", 4, 4, 128, 36, state_bytes(3328, 4, 2, 48 * 64 * 128, 2)},
        /* LFM2 1.2B: 6 attention (8 x 64); 10 short convolutions: hidden 2048 x L_cache 3, no scan state */
        {"lfm2-1.2b", 6, 8, 64, 10, state_bytes(2048, 3, 2, 0, 0)},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint64_t per_token = 2 * c[i].attn_layers * c[i].kv_heads * c[i].head_dim * 2;
        for (int64_t tokens = 1024; tokens <= 8192; tokens *= 8) {
            cr_assert_eq(kv_bytes(c[i].model, "pytorch", 2, tokens), 2 * (uint64_t)tokens * per_token, "%s at %lld",
                         c[i].model, (long long)tokens);
            /* the same state at every length */
            cr_assert_eq(prefill_category(c[i].model, "pytorch", 2, tokens, VRAMEST_CAT_STATE_CACHE),
                         2 * c[i].state_layers * c[i].per_layer_state, "%s at %lld", c[i].model, (long long)tokens);
        }
    }
}

/* llama.cpp: d_conv - 1 inputs and the state, both F32, n_seq_max cells
 * (the batch here), beside the attention layers' n_ctx KV cells. */
Test(hybrid_cache, llamacpp_keeps_f32_state_cells)
{
    uint64_t per_layer = state_bytes(6144, 3, 4, 64 * 64 * 128, 4);
    const char *spec = "{\"model\":\"nemotron-3-nano-30b-a3b\",\"precision\":\"bf16\",\"device\":\"H100-80GB\","
                       "\"runtime\":{\"framework\":\"llama.cpp\",\"n_ctx\":4096},"
                       "\"workload\":{\"mode\":\"infer\",\"batch_size\":2,\"prompt_len\":512,\"gen_len\":1}}";
    vramest_result *r = estimate(spec);
    cr_assert_eq(category(r, VRAMEST_CAT_STATE_CACHE), 2 * 23 * per_layer);
    /* f16 KV of the 6 attention layers for 4096 cells */
    cr_assert_eq(category(r, VRAMEST_CAT_KV_CACHE), 6ull * 4096 * 2 * 2 * 128 * 2);
    uint64_t one = 0;
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_STATE_PER_SEQ, &one), VRAMEST_OK);
    cr_assert_eq(one, 23 * per_layer);
    vramest_result_free(r);
}

/* llama.cpp's LFM2: the short convolution keeps L_cache - 1 inputs of the
 * hidden width in F32 per sequence, nothing else. */
Test(hybrid_cache, llamacpp_lfm2_keeps_the_convolution_inputs)
{
    const char *spec = "{\"model\":\"lfm2-1.2b\",\"precision\":\"bf16\",\"device\":\"H100-80GB\","
                       "\"runtime\":{\"framework\":\"llama.cpp\",\"n_ctx\":%d},"
                       "\"workload\":{\"mode\":\"infer\",\"batch_size\":3,\"prompt_len\":512,\"gen_len\":1}}";
    for (int ctx = 4096; ctx <= 16384; ctx *= 4) {
        char buf[400];
        snprintf(buf, sizeof buf, spec, ctx);
        vramest_result *r = estimate(buf);
        cr_assert_eq(category(r, VRAMEST_CAT_STATE_CACHE), 3ull * 10 * 2048 * 2 * 4, "n_ctx %d", ctx);
        cr_assert_eq(category(r, VRAMEST_CAT_KV_CACHE), 6ull * ctx * 2 * 8 * 64 * 2, "n_ctx %d", ctx);
        vramest_result_free(r);
    }
}

/* vLLM: K - 1 inputs in the model's dtype; the attention block size is
 * raised until one page holds a layer's state, and the running sequences'
 * state pages (padded to that page) come out of the pool. */
Test(hybrid_cache, vllm_pages_the_state_from_the_pool)
{
    uint64_t state = state_bytes(8192, 3, 2, 32 * 128 * 128, 2), attn_tok = 2 * 2 * 256 * 2;
    uint64_t block = 16 * ((state + 16 * attn_tok - 1) / (16 * attn_tok));
    const char *spec = "{\"model\":\"qwen3-next-80b-a3b\",\"precision\":\"bf16\",\"runtime\":{\"framework\":\"vllm\"},"
                       "\"workload\":{\"mode\":\"infer\",\"batch_size\":3,\"prompt_len\":1000,\"gen_len\":24}}";
    vramest_result *r = estimate(spec);
    cr_assert_eq(category(r, VRAMEST_CAT_STATE_CACHE), 3 * 36 * block * attn_tok);
    /* 3 sequences of 1024 tokens in blocks of `block` tokens over 12 layers */
    cr_assert_eq(category(r, VRAMEST_CAT_KV_CACHE), 3 * ((1024 + block - 1) / block) * block * 12 * attn_tok);
    vramest_result_free(r);
}

/* Whether one of the result's warnings holds `text`. */
static int warned(const vramest_result *r, const char *text)
{
    for (uint32_t i = 0; i < vramest_result_warning_count(r); i++) {
        const char *w = vramest_result_warning(r, i);
        if (w && strstr(w, text)) return 1;
    }
    return 0;
}

/* vLLM's raised block size against a public report (vllm-project/vllm
 * issue #41037, NVIDIA-Nemotron-3-Nano-30B-A3B-FP8, kv_cache_dtype fp8,
 * --block-size 32): 4192 tokens at TP 1 and 2, 2112 at TP 4, where the KV
 * heads stop halving (2 heads, at least one per rank) but the state does. */
Test(hybrid_cache, vllm_block_size_as_a_public_report_gives_it)
{
    static const struct {
        int tp;
        const char *block;
    } c[] = {{1, "block size to 4192 tokens"}, {2, "block size to 4192 tokens"}, {4, "block size to 2112 tokens"}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char spec[512];
        snprintf(spec, sizeof spec,
                 "{\"model\":\"nemotron-3-nano-30b-a3b\",\"precision\":{\"weights\":\"bf16\",\"kv_cache\":\"fp8\"},"
                 "\"parallel\":{\"gpus\":%d,\"tp\":%d},\"runtime\":{\"framework\":\"vllm\",\"block_size\":32},"
                 "\"workload\":{\"mode\":\"infer\",\"batch_size\":1,\"prompt_len\":1000,\"gen_len\":24}}",
                 c[i].tp, c[i].tp);
        vramest_result *r = estimate(spec);
        cr_assert(warned(r, c[i].block), "tp %d: no warning '%s'", c[i].tp, c[i].block);
        vramest_result_free(r);
    }
}

/* Qwen3.5 / 3.6 35B-A3B through its multimodal wrapper: the text_config's
 * layer_types (30 DeltaNet of 40 layers) and mamba_ssm_dtype float32 reach
 * the state: 3 x 8192 bf16 + 32 x 128 x 128 fp32 = 2,146,304 B per layer,
 * an attention block raised to 16 x ceil(2146304 / (16 x 2048)) = 1056
 * tokens (the figures a public derivation from vLLM's code gives for this
 * checkpoint). */
Test(hybrid_cache, qwen3_5_vl_config_states_in_vllm)
{
    char *cfg = zoo_config("zoo-params-qwen3.5-35b-a3b", NULL);
    size_t n = strlen(cfg) + 400;
    char *spec = malloc(n);
    cr_assert(spec);
    snprintf(spec, n,
             "{\"model\":{\"hf_config\":%s},\"precision\":\"bf16\",\"runtime\":{\"framework\":\"vllm\"},"
             "\"workload\":{\"mode\":\"infer\",\"batch_size\":2,\"prompt_len\":1000,\"gen_len\":24}}",
             cfg);
    vramest_result *r = estimate(spec);
    uint64_t one = 0, layer = state_bytes(8192, 3, 2, 32 * 128 * 128, 4), tok = 2 * 2 * 256 * 2;
    cr_assert_eq(layer, 2146304);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_STATE_PER_SEQ, &one), VRAMEST_OK);
    cr_assert_eq(one, 30 * layer);
    cr_assert(warned(r, "block size to 1056 tokens"));
    /* two sequences' pages, padded to the attention page */
    cr_assert_eq(category(r, VRAMEST_CAT_STATE_CACHE), 2 * 30 * 1056 * tok);
    /* 1024 tokens in one block of 1056 over the 10 attention layers */
    cr_assert_eq(category(r, VRAMEST_CAT_KV_CACHE), 2 * 1056 * 10 * tok);
    vramest_result_free(r);
    free(spec);
    free(cfg);
}

/* SGLang's state pool: 0.9 / 1.9 of what mem_fraction_static leaves after
 * the weights, in whole requests' states (bf16 convolution, the config's
 * fp32 state), the token pool the rest over the attention layers only. */
Test(hybrid_cache, sglang_splits_the_rest_between_states_and_tokens)
{
    const char *spec = "{\"model\":\"nemotron-3-nano-30b-a3b\",\"precision\":\"bf16\",\"device\":\"H100-80GB\","
                       "\"runtime\":{\"framework\":\"sglang\",\"max_model_len\":16384},"
                       "\"workload\":{\"mode\":\"infer\",\"batch_size\":4,\"prompt_len\":4096,\"gen_len\":256}}";
    vramest_result *r = estimate(spec);
    uint64_t per_req = 23 * state_bytes(6144, 3, 2, 64 * 64 * 128, 4), cell = 6ull * 2 * 2 * 128 * 2, one = 0;
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_STATE_PER_SEQ, &one), VRAMEST_OK);
    cr_assert_eq(one, per_req);
    uint64_t state = category(r, VRAMEST_CAT_STATE_CACHE), kv = category(r, VRAMEST_CAT_KV_CACHE), tokens = 0;
    cr_assert(state > 0 && state % per_req == 0, "state %llu", (unsigned long long)state);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_MAX_TOKENS, &tokens), VRAMEST_OK);
    cr_assert_eq(kv, tokens * cell);
    /* rest = state + kv up to one cell; the state's share 0.9 / 1.9 up to one request */
    double rest = (double)(state + kv), want = rest * 0.9 / 1.9;
    cr_assert((double)state <= want && (double)state + (double)per_req > want, "state %llu of %.0f",
              (unsigned long long)state, rest);
    vramest_result_free(r);
}

Test(hybrid_train, every_family_trains)
{
    const char *models[] = {"mamba-130m", "nemotron-3-nano-30b-a3b", "qwen3-next-80b-a3b", "jamba-1.5-mini",
                            "falcon-h1-0.5b", "granite-4.0-h-tiny", "lfm2-1.2b"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) trains(models[i]);
}

/* The recurrent mixer's saved tensors grow with the tokens: twice the
 * sequence, about twice the activations. */
Test(hybrid_train, mixer_activations_scale_with_tokens)
{
    uint64_t act[2];
    for (int i = 0; i < 2; i++) {
        char spec[400];
        snprintf(spec, sizeof spec,
                 "{\"model\":\"mamba-130m\",\"precision\":\"bf16\",\"device\":\"H100-80GB\",\"workload\":{\"mode\":"
                 "\"train\",\"batch_size\":1,\"seq_len\":%d,\"finetune\":\"full\"}}",
                 2048 << i);
        vramest_result *r = estimate(spec);
        act[i] = category(r, VRAMEST_CAT_ACTIVATIONS);
        vramest_result_free(r);
    }
    cr_assert(act[1] > act[0] * 19 / 10 && act[1] < act[0] * 21 / 10, "%llu then %llu", (unsigned long long)act[0],
              (unsigned long long)act[1]);
}

Test(hybrid_names, checkpoint_names_read_as_the_inventory_roles)
{
    static const named_role nr[] = {
        {"backbone.layers.3.mixer.in_proj.weight", VX_ROLE_SSM_IN, "in_proj"},
        {"backbone.layers.3.mixer.conv1d.weight", VX_ROLE_SSM_CONV, "conv1d"},
        {"backbone.layers.3.mixer.x_proj.weight", VX_ROLE_SSM_X, "x_proj"},
        {"backbone.layers.3.mixer.dt_proj.bias", VX_ROLE_SSM_DT, "dt_proj"},
        {"backbone.layers.3.mixer.A_log", VX_ROLE_SSM_PARAM, "A_log"},
        {"backbone.layers.3.mixer.out_proj.weight", VX_ROLE_SSM_OUT, "out_proj"},
        {"model.layers.0.linear_attn.in_proj_qkvz.weight", VX_ROLE_SSM_IN, "in_proj_qkvz"},
        {"model.layers.0.linear_attn.in_proj_ba.weight", VX_ROLE_SSM_IN2, "in_proj_ba"},
        {"model.layers.0.linear_attn.out_proj.weight", VX_ROLE_SSM_OUT, "out_proj"},
        {"model.layers.3.self_attn.out_proj.weight", VX_ROLE_ATTN_O, "out_proj"},
        {"model.layers.1.mixer.experts.up_proj", VX_ROLE_EXPERT_UP, "up_proj"},
        {"model.layers.0.conv.in_proj.weight", VX_ROLE_SSM_IN, "in_proj"},
        {"model.layers.0.conv.out_proj.weight", VX_ROLE_SSM_OUT, "out_proj"},
    };
    names_read_as(nr, sizeof nr / sizeof nr[0]);
}

/* ---- bad input ---- */

static int parse(const char *cfg)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    int rc = vx_parse_hf_config(m, cfg, strlen(cfg));
    vramest_model_free(m);
    return rc;
}

#define QWEN_NEXT_KEYS                                                                                                \
    "\"model_type\":\"qwen3_next\",\"hidden_size\":256,\"num_attention_heads\":4,\"num_key_value_heads\":2,"          \
    "\"head_dim\":64,\"vocab_size\":1000,\"num_experts\":4,\"num_experts_per_tok\":2,\"moe_intermediate_size\":64," \
    "\"shared_expert_intermediate_size\":64,\"linear_num_key_heads\":2,\"linear_num_value_heads\":4,"               \
    "\"linear_key_head_dim\":32,\"linear_value_head_dim\":32"

Test(hybrid_bad_input, a_layer_list_of_the_wrong_length_is_named)
{
    cr_assert_eq(parse("{" QWEN_NEXT_KEYS ",\"num_hidden_layers\":4,\"layer_types\":[\"linear_attention\","
                       "\"linear_attention\",\"full_attention\"]}"),
                 VRAMEST_E_INVALID_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "key 'layer_types' has 3 entries for 4 layers"), "%s",
              vramest_last_error_message());
    cr_assert_eq(parse("{\"model_type\":\"nemotron_h\",\"hidden_size\":256,\"num_hidden_layers\":3,"
                       "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"head_dim\":64,\"vocab_size\":1000,"
                       "\"intermediate_size\":512,\"mamba_num_heads\":8,\"mamba_head_dim\":32,\"n_groups\":1,"
                       "\"ssm_state_size\":16,\"hybrid_override_pattern\":\"M*\"}"),
                 VRAMEST_E_INVALID_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "hybrid_override_pattern"), "%s", vramest_last_error_message());
    /* the same through the option: the letters against the layers */
    vramest_model *m = preset("mamba-130m");
    cr_assert_eq(vramest_model_set_str(m, VRAMEST_MODEL_LAYER_PATTERN, "MMM"), VRAMEST_OK);
    cr_assert_eq(vramest_model_validate(m), VRAMEST_E_INVALID_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "layer_pattern lists 3 layers"), "%s", vramest_last_error_message());
    vramest_model_free(m);
}

Test(hybrid_bad_input, unknown_layer_types_and_letters_are_named)
{
    cr_assert_eq(parse("{" QWEN_NEXT_KEYS ",\"num_hidden_layers\":2,\"layer_types\":[\"linear_attention\","
                       "\"sliding_attention\"]}"),
                 VRAMEST_E_INVALID_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "entry 1 is 'sliding_attention'"), "%s",
              vramest_last_error_message());
    cr_assert(strstr(vramest_last_error_message(), "'full_attention'"), "%s", vramest_last_error_message());
    cr_assert_eq(parse("{\"model_type\":\"nemotron_h\",\"hidden_size\":256,\"num_hidden_layers\":2,"
                       "\"num_attention_heads\":4,\"vocab_size\":1000,\"mamba_num_heads\":8,\"mamba_head_dim\":32,"
                       "\"hybrid_override_pattern\":\"MX\"}"),
                 VRAMEST_E_INVALID_MODEL);
    vramest_model *m = preset("jamba-1.5-mini");
    cr_assert_eq(vramest_model_set_str(m, VRAMEST_MODEL_MLP_PATTERN, "DEDEDEDEDEDEDEDEDEDEDEDEDEDEDEDQ"), VRAMEST_OK);
    cr_assert_eq(vramest_model_validate(m), VRAMEST_E_INVALID_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "layer 31 is 'Q'"), "%s", vramest_last_error_message());
    vramest_model_free(m);
    /* experts where the model has none */
    m = preset("mamba-130m");
    cr_assert_eq(vramest_model_set_str(m, VRAMEST_MODEL_MLP_PATTERN, "EEEEEEEEEEEEEEEEEEEEEEEE"), VRAMEST_OK);
    cr_assert_eq(vramest_model_validate(m), VRAMEST_E_INCOMPLETE_MODEL);
    vramest_model_free(m);
}

Test(hybrid_bad_input, mamba2_heads_that_do_not_tile_the_width)
{
    /* Falcon-H1 without mamba_d_ssm: 24 heads x 64 is not 2 x 1024 */
    cr_assert_eq(parse("{\"model_type\":\"falcon_h1\",\"hidden_size\":1024,\"num_hidden_layers\":2,"
                       "\"num_attention_heads\":8,\"num_key_value_heads\":2,\"head_dim\":64,\"vocab_size\":1000,"
                       "\"intermediate_size\":2048,\"mamba_n_heads\":24,\"mamba_d_head\":64,\"mamba_expand\":2}"),
                 VRAMEST_E_INVALID_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "must equal the inner width 2048"), "%s",
              vramest_last_error_message());
    /* a recurrent family without its state size keys says which */
    cr_assert_eq(parse("{\"model_type\":\"qwen3_next\",\"hidden_size\":256,\"num_hidden_layers\":4,"
                       "\"num_attention_heads\":4,\"vocab_size\":1000,\"num_experts\":4,\"num_experts_per_tok\":2,"
                       "\"moe_intermediate_size\":64,\"shared_expert_intermediate_size\":64}"),
                 VRAMEST_E_INCOMPLETE_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "linear_num_key_heads"), "%s", vramest_last_error_message());
}

#define LFM2_KEYS                                                                                                     \
    "\"model_type\":\"lfm2\",\"hidden_size\":256,\"num_attention_heads\":4,\"num_key_value_heads\":2,"               \
    "\"vocab_size\":1000,\"intermediate_size\":768"

Test(hybrid_bad_input, lfm2_layer_lists)
{
    cr_assert_eq(parse("{" LFM2_KEYS ",\"num_hidden_layers\":4,\"full_attn_idxs\":[1,4]}"), VRAMEST_E_INVALID_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "full_attn_idxs: layer 4 is not one of the 4"), "%s",
              vramest_last_error_message());
    cr_assert_eq(parse("{" LFM2_KEYS ",\"num_hidden_layers\":3,\"layer_types\":[\"conv\",\"full_attention\"]}"),
                 VRAMEST_E_INVALID_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "key 'layer_types' has 2 entries for 3 layers"), "%s",
              vramest_last_error_message());
    cr_assert_eq(parse("{" LFM2_KEYS ",\"num_hidden_layers\":2,\"block_multiple_of\":0}"), VRAMEST_E_INVALID_MODEL);
    cr_assert_eq(parse("{" LFM2_KEYS ",\"num_hidden_layers\":2,\"block_auto_adjust_ff_dim\":1}"), VRAMEST_E_TYPE);
    /* neither list: every layer attention, as Lfm2Config */
    cr_assert_eq(parse("{" LFM2_KEYS ",\"num_hidden_layers\":2}"), VRAMEST_OK);
}
