/* Gemma 4 E2B / E4B (issue #16): per-layer input embeddings, KV-shared
 * layers (no k/v projections, no cache of their own), the double-wide MLP
 * of E2B's shared layers, and the audio tower. The configs are
 * tests/data/models/gemma-4-e{2,4}b-it.json (typed from google's published
 * values; docs/methodology.md, Gemma 4). The counts below are the hand
 * count of transformers' modeling_gemma4.py @c308a309e6; with the shared
 * layers' k/v projections and k_norm that the checkpoints store but the
 * class ignores, plus one layer_scalar per layer, they are the Hub's
 * safetensors totals of google/gemma-4-E2B-it (5,123,178,051) and
 * google/gemma-4-E4B-it (7,996,156,490) to the element. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_checks.h"
#include "helpers.h"
#include "model/hf_config.h"
#include "model/model.h"

typedef struct small {
    const char *file;
    uint64_t h, layers, kv, ffn, shared, pattern;
    int double_wide;
} small;

static const small E2B = {"models/gemma-4-e2b-it.json", 1536, 35, 1, 6144, 20, 5, 1};
static const small E4B = {"models/gemma-4-e4b-it.json", 2560, 42, 2, 10240, 18, 6, 0};

/* Gemma4TextModel + tied head by hand: embeddings, the per-layer input
 * table (262144 x layers x 256), its projection and norm; per layer q and
 * o (8 heads of 256, or 512 on full layers), q_norm, four norms, the
 * per-layer gate / projection / norm, the MLP (doubled on shared layers of
 * E2B); k, v (kv heads) and k_norm on the layers before the shared ones. */
static uint64_t text_by_hand(const small *m, uint64_t *stored_kv)
{
    const uint64_t V = 262144, p = 256, h = m->h, L = m->layers;
    uint64_t n = V * h + h + V * L * p + h * L * p + p;
    *stored_kv = 0;
    for (uint64_t i = 0; i < L; i++) {
        uint64_t d = (i % m->pattern == m->pattern - 1 || i == L - 1) ? 512 : 256;
        int shared = i >= L - m->shared;
        uint64_t kv = 2 * h * m->kv * d + d;
        n += 2 * h * 8 * d + d + 4 * h + 2 * h * p + h;
        n += 3 * h * m->ffn * (shared && m->double_wide ? 2 : 1);
        if (shared) *stored_kv += kv;
        else n += kv;
    }
    return n;
}

/* Gemma4VisionModel of the small checkpoints: 16 layers of 768, 12 heads
 * of 64, gated MLP 3072; input_proj 3 x 16^2 -> 768, a 2 x 10240 x 768
 * position table. */
static uint64_t vision_by_hand(void)
{
    const uint64_t d = 768;
    return 3 * 256 * d + 2 * 10240 * d + 16 * (4 * d * d + 2 * 64 + 3 * d * 3072 + 4 * d);
}

/* Gemma4AudioModel with Gemma4AudioConfig's sizes (1024 wide, 12 layers,
 * 8 heads, kernel 5, channels 128 and 32, output 1536). */
static uint64_t audio_by_hand(void)
{
    const uint64_t d = 1024;
    uint64_t sub = 128 * 9 + 128 + 32 * 128 * 9 + 32 + 32 * 32 * d;
    uint64_t layer = 2 * (2 * 4 * d * d + 2 * d) + 5 * d * d + d / 8 + 2 * d * d + d * d + 5 * d + 2 * d + 3 * d;
    return sub + 12 * layer + d * 1536 + 1536;
}

static vramest_model *read_file_model(const char *file)
{
    size_t len;
    char *cfg = vt_read_data(file, &len);
    vramest_model *m;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_assert_eq(vx_parse_hf_config(m, cfg, len), VRAMEST_OK, "%s: %s", file, vramest_last_error_message());
    free(cfg);
    return m;
}

static void counts(const small *s, uint64_t want, uint64_t hub_total)
{
    uint64_t kv_on_disk, text = text_by_hand(s, &kv_on_disk), got = 0;
    uint64_t embedders = 768 * s->h + 1536 * s->h;
    cr_assert_eq(text + vision_by_hand() + audio_by_hand() + embedders, want);
    /* the checkpoint's total: + the shared layers' k/v projections and
     * k_norm (ignored on load) + one layer_scalar buffer per layer */
    cr_assert_eq(want + kv_on_disk + s->layers, hub_total);
    vramest_model *m = read_file_model(s->file);
    cr_assert_eq(vramest_model_param_count(m, &got, NULL), VRAMEST_OK);
    cr_assert_eq(got, want, "%s: %llu", s->file, (unsigned long long)got);
    cr_assert_eq(m->tower.params, vision_by_hand() + 768 * s->h);
    cr_assert_eq(m->tower.a_params, audio_by_hand() + 1536 * s->h);
    cr_assert_eq(m->shape.kv_shared_from, (int64_t)(s->layers - s->shared));
    /* four kinds: sliding and full, before and after the sharing point */
    int64_t shared_layers = 0;
    const vx_layers *L = &m->layers;
    const vx_layer_stack *st = &L->stack[VX_STACK_DEC];
    for (int r = 0; r < st->nrun; r++) {
        const vx_layer_kind *k = &L->kind[L->run[st->run0 + r].kind];
        if (!k->kv_shared) {
            cr_assert_eq(k->ffn, (int64_t)s->ffn);
            continue;
        }
        shared_layers += L->run[st->run0 + r].count;
        cr_assert_eq(k->ffn, (int64_t)(s->ffn * (s->double_wide ? 2 : 1)));
    }
    cr_assert_eq(shared_layers, (int64_t)s->shared);
    vramest_model_free(m);
}

Test(family_gemma4_small, e2b_count_is_the_hand_count)
{
    counts(&E2B, 5104297504ull, 5123178051ull);
}

Test(family_gemma4_small, e4b_count_is_the_hand_count)
{
    counts(&E4B, 7941100832ull, 7996156490ull);
}

static char *model_of(const small *s)
{
    size_t len;
    char *cfg = vt_read_data(s->file, &len);
    size_t n = len + 32;
    char *out = malloc(n);
    snprintf(out, n, "{\"hf_config\":%s}", cfg);
    free(cfg);
    return out;
}

Test(family_gemma4_small, cache_skips_the_shared_layers_by_hand)
{
    /* bf16, transformers' DynamicCache(config): the layers before the
     * sharing point only (E2B: 12 sliding of 1 kv head x 256 keeping their
     * 512-token window, 3 full of 1 x 512; E4B: 20 sliding of 2 x 256, 4
     * full of 2 x 512), K and V each */
    char *e2b = model_of(&E2B), *e4b = model_of(&E4B);
    const uint64_t s2 = 2ull * 1 * 256 * 2, f2 = 2ull * 1 * 512 * 2, s4 = 2ull * 2 * 256 * 2, f4 = 2ull * 2 * 512 * 2;
    cr_assert_eq(kv_bytes_of(e2b, "pytorch", 1, 256), 12 * s2 * 256 + 3 * f2 * 256);
    cr_assert_eq(kv_bytes_of(e2b, "pytorch", 2, 8192), 2 * (12 * s2 * 512 + 3 * f2 * 8192));
    cr_assert_eq(kv_bytes_of(e4b, "pytorch", 1, 256), 20 * s4 * 256 + 4 * f4 * 256);
    cr_assert_eq(kv_bytes_of(e4b, "pytorch", 2, 8192), 2 * (20 * s4 * 512 + 4 * f4 * 8192));
    free(e2b);
    free(e4b);
}

Test(family_gemma4_small, llama_cpp_holds_no_cells_for_the_shared_layers)
{
    /* E2B's 35 layers are 28 sliding + 7 full; sharing the last 20 leaves
     * 12 + 3 with cells of their own: 3/7 of each kind, so 3/7 of the
     * cache (vLLM's pool fills the free memory instead: its layout is the
     * same kv_cache.c's) */
    static const char *const fw[] = {"llama.cpp", "pytorch"};
    char *shared = model_of(&E2B);
    char *p = strstr(shared, "\"num_kv_shared_layers\": 20");
    cr_assert(p);
    size_t n = strlen(shared) + 1;
    char *none = malloc(n);
    snprintf(none, n, "%.*s\"num_kv_shared_layers\": 0%s", (int)(p - shared), shared,
             p + strlen("\"num_kv_shared_layers\": 20"));
    for (size_t i = 0; i < sizeof fw / sizeof *fw; i++) {
        uint64_t with = kv_bytes_of(shared, fw[i], 1, 4096), without = kv_bytes_of(none, fw[i], 1, 4096);
        cr_assert(with > 0 && with * 7 == without * 3, "%s: %llu vs %llu", fw[i], (unsigned long long)with,
                  (unsigned long long)without);
    }
    free(shared);
    free(none);
}

Test(family_gemma4_small, trains)
{
    char *e2b = model_of(&E2B), *e4b = model_of(&E4B);
    trains_model(e2b, "gemma-4-e2b-it");
    trains_model(e4b, "gemma-4-e4b-it");
    free(e2b);
    free(e4b);
}

/* The E2B file with `from` replaced by `to` (once). */
static char *edit(const char *from, const char *to)
{
    size_t len;
    char *cfg = vt_read_data(E2B.file, &len);
    char *p = strstr(cfg, from);
    cr_assert(p, "%s", from);
    size_t n = len + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(p - cfg), cfg, to, p + strlen(from));
    free(cfg);
    return out;
}

static void refused(const char *from, const char *to, int code, const char *says)
{
    char *cfg = edit(from, to);
    vramest_model *m;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_assert_eq(vx_parse_hf_config(m, cfg, strlen(cfg)), code, "%s -> %s: %s", from, to,
                 vramest_last_error_message());
    cr_assert(strstr(vramest_last_error_message(), says), "%s", vramest_last_error_message());
    vramest_model_free(m);
    free(cfg);
}

Test(family_gemma4_small, broken_audio_config_is_refused_by_key)
{
    refused("\"audio_config\": {", "\"audio_config\": 7, \"x\": {", VRAMEST_E_INVALID_MODEL, "audio_config");
    refused("\"subsampling_conv_channels\": [", "\"subsampling_conv_channels\": [1, ", VRAMEST_E_RANGE,
            "subsampling_conv_channels");
    refused("\"subsampling_conv_channels\": [", "\"subsampling_conv_channels\": \"a\", \"x\": [", VRAMEST_E_TYPE,
            "subsampling_conv_channels");
    refused("\"num_attention_heads\": 8,\n  \"num_hidden_layers\": 12", "\"num_attention_heads\": 7,\n  \"num_hidden_layers\": 12",
            VRAMEST_E_INVALID_MODEL, "audio_config");
    refused("\"output_proj_dims\": 1536", "\"output_proj_dims\": -3", VRAMEST_E_RANGE, "audio_config.output_proj_dims");
    refused("\"gemma4_audio\"", "\"gemma5_audio\"", VRAMEST_E_UNSUPPORTED, "gemma5_audio");
}

Test(family_gemma4_small, broken_sharing_is_refused)
{
    refused("\"num_kv_shared_layers\": 20", "\"num_kv_shared_layers\": 35", VRAMEST_E_INVALID_MODEL,
            "num_kv_shared_layers");
    /* layers 0-3 before the sharing point are all sliding: the shared full
     * layers (4, 9, ...) have no earlier full layer to read from */
    refused("\"num_kv_shared_layers\": 20", "\"num_kv_shared_layers\": 31", VRAMEST_E_INVALID_MODEL,
            "full-attention");
}
