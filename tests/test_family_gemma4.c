/* Gemma 4 (issue #16): the text decoder's per-kind attention geometry
 * (sliding layers of head_dim and num_key_value_heads; full layers of
 * global_head_dim and, with attention_k_eq_v, num_global_key_value_heads
 * and no v_proj), the MoE block beside the dense MLP, the vision tower and
 * embedder, the cache per kind, and the configurations refused by name.
 * The counts are the hand count of transformers' modeling_gemma4.py
 * @c308a309e6 (docs/methodology.md, Gemma 4), checked against the
 * checkpoints' totals through the zoo case. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_checks.h"
#include "helpers.h"
#include "model/hf_config.h"
#include "model/model.h"

static const char *const ID = "zoo-params-gemma-4-26b-a4b";

/* The 26B-A4B file's text_config alone, read as a gemma4_text config.json. */
static char *text_config(void)
{
    char *full = zoo_config(ID, NULL);
    char *p = strstr(full, "\"text_config\"");
    cr_assert(p);
    p = strchr(p, '{');
    int depth = 0;
    char *q = p;
    do {
        if (*q == '{') depth++;
        if (*q == '}') depth--;
        q++;
    } while (depth > 0 && *q);
    size_t n = (size_t)(q - p);
    char *out = malloc(n + 1);
    memcpy(out, p, n);
    out[n] = '\0';
    free(full);
    return out;
}

static int read_config(const char *text, vramest_model **out)
{
    cr_assert_eq(vramest_model_new(out), VRAMEST_OK);
    return vx_parse_hf_config(*out, text, strlen(text));
}

/* The text config with `key` (a text_config key) replaced by `value`. */
static char *edited(const char *key, const char *value)
{
    char *t = text_config(), needle[64];
    snprintf(needle, sizeof needle, "\"%s\":", key);
    char *p = strstr(t, needle);
    cr_assert(p, "%s", key);
    char *v = p + strlen(needle);
    while (*v == ' ') v++;
    char *e = v;
    while (*e && *e != ',' && *e != '}') e++;
    size_t n = strlen(t) + strlen(value) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(v - t), t, value, e);
    free(t);
    return out;
}

Test(family_gemma4, count_is_the_hand_count_of_the_classes)
{
    /* Gemma4ForConditionalGeneration: the zoo figure stores the tied head
     * twice; the copy marks it with the class's count */
    zoo_exact(ID);
    char *t = text_config();
    vramest_model *m;
    cr_assert_eq(read_config(t, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    free(t);
    /* Gemma4ForCausalLM by hand: embed V h + final norm h; 25 sliding
     * layers q,k,v,o (16 x 256, 8 kv heads) + q/k norms 256; 5 full layers
     * q,k,o (16 x 512, 2 kv heads, no v_proj) + q/k norms 512; every layer
     * the dense MLP 3 h 2112, four norms, the router (128 h + scale h +
     * per_expert_scale 128), 128 experts (2 x 704 x h + h x 704) and three
     * more norms */
    const uint64_t h = 2816, V = 262144, E = 128;
    uint64_t sliding = h * 16 * 256 * 2 + h * 8 * 256 * 2 + 2 * 256;
    uint64_t full = h * 16 * 512 * 2 + h * 2 * 512 + 2 * 512;
    uint64_t layer = 3 * h * 2112 + 4 * h + E * h + h + E + E * 3 * 704 * h + 3 * h;
    uint64_t want = V * h + h + 25 * sliding + 5 * full + 30 * layer, got = 0;
    cr_assert_eq(want, 25233141760ull);
    cr_assert_eq(vramest_model_param_count(m, &got, NULL), VRAMEST_OK);
    cr_assert_eq(got, want, "text: %llu", (unsigned long long)got);
    int64_t n_sliding = 0, n_full = 0;
    for (int k = 0; k < m->layers.n_kinds; k++) {
        const vx_layer_kind *kk = &m->layers.kind[k];
        int64_t c = 0;
        for (int r = 0; r < m->layers.stack[VX_STACK_DEC].nrun; r++)
            if (m->layers.run[m->layers.stack[VX_STACK_DEC].run0 + r].kind == k)
                c += m->layers.run[m->layers.stack[VX_STACK_DEC].run0 + r].count;
        cr_assert_eq(kk->mlp, VX_MLPK_MOE);
        if (kk->span == VX_SPAN_SLIDING) {
            cr_assert(kk->head_dim == 256 && kk->kv_heads == 8 && !kk->k_eq_v && kk->window == 1024);
            n_sliding += c;
        } else {
            cr_assert(kk->head_dim == 512 && kk->kv_heads == 2 && kk->k_eq_v);
            n_full += c;
        }
    }
    cr_assert(n_sliding == 5 && n_full == 1, "one period of 6 layers: %lld sliding, %lld full", (long long)n_sliding,
              (long long)n_full);
    cr_assert_eq(m->shape.shared_ffn, 2112);
    vramest_model_free(m);
    /* Gemma4VisionModel (27 layers of 1152, 16 heads of 72, gated MLP of
     * 4304, four norms, q/k norms 72; input_proj 3 x 16^2 -> 1152; a 2 x
     * 10240 x 1152 position table) and embed_vision (1152 -> 2816) */
    const uint64_t d = 1152;
    uint64_t tower = 3 * 256 * d + 2 * 10240 * d + 27 * (4 * d * d + 2 * 72 + 3 * d * 4304 + 4 * d);
    char *cfg = zoo_config(ID, NULL);
    cr_assert_eq(read_config(cfg, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    free(cfg);
    cr_assert_eq(vramest_model_param_count(m, &got, NULL), VRAMEST_OK);
    cr_assert_eq(got, want + tower + d * h);
    vramest_model_free(m);
}

Test(family_gemma4, cache_per_kind_by_hand)
{
    /* bf16: sliding layers 8 kv heads x 256, K and V, at most their 1024
     * token window (transformers' cache for Gemma keeps the window);
     * full layers 2 kv heads x 512, K and V both cached (V is k_proj's
     * output under v_norm, K the same output under k_norm and RoPE).
     * DynamicCache(config) keeps the window of sliding layers, growing */
    char model[16384];
    char *t = text_config();
    snprintf(model, sizeof model, "{\"hf_config\":%s}", t);
    free(t);
    const uint64_t s = 2ull * 8 * 256 * 2, g = 2ull * 2 * 512 * 2;
    cr_assert_eq(kv_bytes_of(model, "pytorch", 1, 512), 25 * s * 512 + 5 * g * 512);
    cr_assert_eq(kv_bytes_of(model, "pytorch", 2, 4096), 2 * (25 * s * 1024 + 5 * g * 4096));
}

Test(family_gemma4, trains)
{
    char model[16384];
    char *t = text_config();
    snprintf(model, sizeof model, "{\"hf_config\":%s}", t);
    free(t);
    trains_model(model, "gemma-4-26b-a4b text");
}

Test(family_gemma4, what_is_not_modelled_is_refused_by_name)
{
    vramest_model *m;
    /* the class default of hidden_size_per_layer_input is 256: a file
     * without the key has per-layer inputs (tests/test_family_gemma4_small.c
     * counts them) */
    char *t = edited("hidden_size_per_layer_input", "0,\"x_unused\":0");
    char *p = strstr(t, "\"hidden_size_per_layer_input\":0,");
    cr_assert(p);
    memmove(p, p + strlen("\"hidden_size_per_layer_input\":0,"), strlen(p + strlen("\"hidden_size_per_layer_input\":0,")) + 1);
    cr_assert_eq(read_config(t, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(m->shape.ple_dim, 256);
    cr_assert_eq(m->shape.ple_vocab, 262144);
    vramest_model_free(m);
    free(t);
    /* an audio tower other than Gemma 4's conformer is not modelled */
    char *full = zoo_config(ID, NULL);
    char *a = strstr(full, "\"audio_config\":null");
    cr_assert(a, "%.200s", full);
    size_t n = strlen(full) + 64;
    char *with = malloc(n);
    snprintf(with, n, "%.*s\"audio_config\":{\"model_type\":\"whisper\"}%s", (int)(a - full), full,
             a + strlen("\"audio_config\":null"));
    cr_assert_eq(read_config(with, &m), VRAMEST_E_UNSUPPORTED);
    cr_assert(strstr(vramest_last_error_message(), "audio_config"), "%s", vramest_last_error_message());
    vramest_model_free(m);
    free(with);
    free(full);
}

Test(family_gemma4, dense_31b_is_the_hand_count)
{
    /* tests/data/models/gemma-4-31b-it.json: nvidia/Gemma-4-31B-IT-NVFP4's
     * config.json (github:ai-dynamo/aiconfigurator@095f58a51c:aic-core/src/
     * aiconfigurator_core/model_configs/nvidia--Gemma-4-31B-IT-NVFP4_config.json)
     * without its quantization_config: google/gemma-4-31B-it's module. No
     * experts (enable_moe_block false, "num_experts": null); 50 sliding
     * layers (32 x 256, 16 kv heads), 10 full (32 x 512, 4 kv heads, K=V),
     * the same vision tower as 26B-A4B. The count equals the bf16
     * re-exports' safetensors totals, 31,273,086,512
     * (/work/research/configs/NOTES.md, "tied head stored twice"). */
    size_t len;
    char *cfg = vt_read_data("models/gemma-4-31b-it.json", &len);
    vramest_model *m;
    cr_assert_eq(read_config(cfg, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    free(cfg);
    const uint64_t h = 5376, V = 262144, d = 1152;
    uint64_t text = V * h + h + 50 * (2 * h * 32 * 256 + 2 * h * 16 * 256 + 512) +
                    10 * (2 * h * 32 * 512 + h * 4 * 512 + 1024) + 60 * (3 * h * 21504 + 4 * h);
    uint64_t tower = 3 * 256 * d + 2 * 10240 * d + 27 * (4 * d * d + 2 * 72 + 3 * d * 4304 + 4 * d), got = 0;
    cr_assert_eq(text + tower + d * h, 31273086512ull);
    cr_assert_eq(vramest_model_param_count(m, &got, NULL), VRAMEST_OK);
    cr_assert_eq(got, 31273086512ull, "%llu", (unsigned long long)got);
    cr_assert_eq(m->shape.experts, 0);
    vramest_model_free(m);
}
