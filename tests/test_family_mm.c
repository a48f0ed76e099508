/* Multimodal models (issue #16 item 3): towers and projectors counted from
 * real config.json files (tests/data/zoo.jsonl and zoo2.jsonl: each case
 * names its source and its count, read here, never written in code),
 * their place under the precision policy, images in the workload, and a
 * broken vision_config refused with a specific error. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/hf_config.h"
#include "vramest/vramest.h"

/* The config.json of zoo case `id` (in `file`) as JSON text (malloc'd), and its count. */
static char *zoo_config(const char *file, const char *id, uint64_t *count)
{
    size_t len;
    char *buf = vt_read_data(file, &len), *save = NULL, *out = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line && !out; line = strtok_r(NULL, "\n", &save)) {
        json_object *c = json_tokener_parse(line), *v, *spec, *model, *cfg;
        cr_assert(c, "%s: a line is not JSON", file);
        if (json_object_object_get_ex(c, "id", &v) && !strcmp(json_object_get_string(v), id)) {
            cr_assert(json_object_object_get_ex(c, "spec", &spec) && json_object_object_get_ex(spec, "model", &model) &&
                      json_object_object_get_ex(model, "hf_config", &cfg) &&
                      json_object_object_get_ex(c, "measured_bytes", &v));
            *count = (uint64_t)json_object_get_int64(v);
            out = strdup(json_object_to_json_string(cfg));
        }
        json_object_put(c);
    }
    free(buf);
    cr_assert(out, "no case %s in %s", id, file);
    return out;
}

static uint64_t params_of(const char *cfg, int *rc)
{
    vramest_model *m = NULL;
    uint64_t n = 0;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    *rc = vx_parse_hf_config(m, cfg, strlen(cfg));
    if (*rc == VRAMEST_OK) cr_assert_eq(vramest_model_param_count(m, &n, NULL), VRAMEST_OK);
    vramest_model_free(m);
    return n;
}

static void exact(const char *file, const char *id)
{
    uint64_t want;
    char *cfg = zoo_config(file, id, &want);
    int rc;
    uint64_t got = params_of(cfg, &rc);
    cr_expect_eq(rc, VRAMEST_OK, "%s: %s", id, vramest_last_error_message());
    cr_expect_eq(got, want, "%s: %llu parameters, the checkpoint has %llu", id, (unsigned long long)got,
                 (unsigned long long)want);
    free(cfg);
}

/* Qwen2-VL (LayerNorm tower), Qwen2.5-VL (RMSNorm, gated MLP), Qwen3-VL
 * (learned positions, deepstack mergers) over dense and MoE text models;
 * Gemma 3 (SigLIP without head, MedGemma), LLaVA 1.5 (CLIP, text_config with
 * LlamaConfig's defaults), Ministral 3 (Pixtral + Mistral 3 projector). */
Test(mm_zoo, towers_and_projectors_are_exact)
{
    static const char *const zoo[] = {"zoo-params-qwen3-vl-8b", "zoo-params-llava-1.5-7b"};
    static const char *const zoo2[] = {
        "zoo2-params-qwen3-vl-2b",       "zoo2-params-qwen3-vl-4b",         "zoo2-params-qwen3-vl-32b",
        "zoo2-params-qwen3-vl-30b-a3b",  "zoo2-params-qwen3-vl-235b-a22b",  "zoo2-params-qwen2-vl-7b",
        "zoo2-params-qwen2.5-vl-7b",     "zoo2-params-cosmos-reason2-8b",   "zoo2-params-medgemma-27b-it",
        "zoo2-params-ministral-3-3b-2512",
    };
    for (size_t i = 0; i < sizeof zoo / sizeof *zoo; i++) exact("zoo.jsonl", zoo[i]);
    for (size_t i = 0; i < sizeof zoo2 / sizeof *zoo2; i++) exact("zoo2.jsonl", zoo2[i]);
}

/* Every multimodal case is either exact or refused because its language
 * model's family is not in this build (Qwen3.5's gated DeltaNet text, Llama
 * 4's text) or its wrapper is not modelled: never a wrong count. */
static void exact_or_named(const char *file)
{
    size_t len;
    char *buf = vt_read_data(file, &len), *save = NULL;
    int seen = 0;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_object *c = json_tokener_parse(line), *v, *spec, *model, *cfg, *vc;
        cr_assert(c);
        if (json_object_object_get_ex(c, "spec", &spec) && json_object_object_get_ex(spec, "model", &model) &&
            json_object_object_get_ex(model, "hf_config", &cfg) && json_object_object_get_ex(cfg, "vision_config", &vc) &&
            json_object_object_get_ex(c, "measured_bytes", &v)) {
            json_object *mis;
            /* a case marked misspecified wants the count of the config it gives */
            if (json_object_object_get_ex(c, "misspecified", &mis)) cr_assert(json_object_object_get_ex(mis, "count", &v));
            const char *text = json_object_to_json_string(cfg);
            json_object *id = json_object_object_get(c, "id");
            int rc;
            uint64_t got = params_of(text, &rc);
            seen++;
            if (rc == VRAMEST_OK)
                cr_expect_eq(got, (uint64_t)json_object_get_int64(v), "%s: %llu", json_object_get_string(id),
                             (unsigned long long)got);
            else
                cr_expect(rc == VRAMEST_E_UNKNOWN_MODEL_TYPE || rc == VRAMEST_E_UNSUPPORTED, "%s: %d %s",
                          json_object_get_string(id), rc, vramest_last_error_message());
        }
        json_object_put(c);
    }
    free(buf);
    cr_assert_gt(seen, 0);
}

Test(mm_zoo, every_multimodal_case_is_exact_or_refused_by_name)
{
    exact_or_named("zoo.jsonl");
    exact_or_named("zoo2.jsonl");
}

/* ---- a broken vision_config ---- */

static int parse_error(const char *cfg, const char *needle)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    int rc = vx_parse_hf_config(m, cfg, strlen(cfg));
    if (needle)
        cr_expect(strstr(vramest_last_error_message(), needle), "message '%s' lacks '%s'", vramest_last_error_message(),
                  needle);
    vramest_model_free(m);
    return rc;
}

#define QWEN3VL_TEXT                                                                                                  \
    "\"text_config\":{\"hidden_size\":2048,\"intermediate_size\":6144,\"num_hidden_layers\":28,"                     \
    "\"num_attention_heads\":16,\"num_key_value_heads\":8,\"head_dim\":128,\"vocab_size\":151936}"

Test(mm_bad_input, broken_vision_config_gets_a_specific_error)
{
    cr_expect_eq(parse_error("{\"model_type\":\"qwen3_vl\",\"vision_config\":\"big\"," QWEN3VL_TEXT "}", "vision_config"),
                 VRAMEST_E_INVALID_MODEL);
    cr_expect_eq(parse_error("{\"model_type\":\"qwen3_vl\",\"vision_config\":{\"depth\":\"x\"}," QWEN3VL_TEXT "}",
                             "vision_config.depth"),
                 VRAMEST_E_TYPE);
    cr_expect_eq(parse_error("{\"model_type\":\"qwen3_vl\",\"vision_config\":{\"hidden_size\":0}," QWEN3VL_TEXT "}",
                             "vision_config.hidden_size"),
                 VRAMEST_E_RANGE);
    cr_expect_eq(parse_error("{\"model_type\":\"qwen3_vl\",\"vision_config\":{\"hidden_size\":1000,\"num_heads\":16},"
                             QWEN3VL_TEXT "}", "multiple"),
                 VRAMEST_E_INVALID_MODEL);
    cr_expect_eq(parse_error("{\"model_type\":\"qwen3_vl\",\"vision_config\":{\"deepstack_visual_indexes\":3},"
                             QWEN3VL_TEXT "}", "deepstack"),
                 VRAMEST_E_TYPE);
    cr_expect_eq(parse_error("{\"model_type\":\"gemma3\",\"vision_config\":{\"image_size\":8,\"patch_size\":14},"
                             "\"text_config\":{\"hidden_size\":64,\"num_hidden_layers\":2}}", "image_size"),
                 VRAMEST_E_INVALID_MODEL);
    cr_expect_eq(parse_error("{\"model_type\":\"qwen3_vl\",\"vision_config\":{},\"text_config\":[1]}", "text_config"),
                 VRAMEST_E_INVALID_MODEL);
    cr_expect_eq(parse_error("{\"model_type\":\"llava\",\"vision_config\":{\"model_type\":\"dinov2\"}}", "dinov2"),
                 VRAMEST_E_UNSUPPORTED);
    /* towers not modelled are named, never skipped */
    cr_expect_eq(parse_error("{\"model_type\":\"qwen3_vl\",\"audio_config\":{}," QWEN3VL_TEXT "}", "audio"),
                 VRAMEST_E_UNSUPPORTED);
    cr_expect_eq(parse_error("{\"model_type\":\"blip-2\",\"vision_config\":{}," QWEN3VL_TEXT "}", "blip-2"),
                 VRAMEST_E_UNSUPPORTED);
    /* a null vision_config is a text model */
    cr_expect_eq(parse_error("{\"model_type\":\"qwen3\",\"vision_config\":null,\"hidden_size\":64,"
                             "\"intermediate_size\":128,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                             "\"vocab_size\":100}", NULL),
                 VRAMEST_OK);
    cr_expect_eq(parse_error("{\"model_type\":\"qwen3_vl\",\"vision_config\":{\"num_heads\":-1}," QWEN3VL_TEXT "}",
                             "num_heads"),
                 VRAMEST_E_RANGE);
}

/* The wrapper's tie_word_embeddings is what the ConditionalGeneration class
 * ties by: Qwen3-VL-2B ties its head at the top level. */
Test(mm_zoo, wrapper_level_tie_wins_over_text_config)
{
    uint64_t want;
    char *cfg = zoo_config("zoo2.jsonl", "zoo2-params-qwen3-vl-2b", &want);
    json_object *c = json_tokener_parse(cfg), *tc;
    cr_assert(json_object_object_get_ex(c, "text_config", &tc));
    json_object_object_add(tc, "tie_word_embeddings", json_object_new_boolean(0));
    int rc;
    uint64_t got = params_of(json_object_to_json_string(c), &rc);
    cr_assert_eq(rc, VRAMEST_OK);
    cr_expect_eq(got, want);
    json_object_object_add(c, "tie_word_embeddings", json_object_new_boolean(0));
    got = params_of(json_object_to_json_string(c), &rc);
    cr_expect_eq(got, want + 151936ull * 2048, "untied: one more vocab x hidden head");
    json_object_put(c);
    free(cfg);
}

/* ---- images in the workload ---- */

/* An estimate of case `id` of `file` with `workload` (JSON members). */
static vramest_result *estimate_of(const char *file, const char *id, const char *workload)
{
    uint64_t n;
    char *cfg = zoo_config(file, id, &n);
    size_t cap = strlen(cfg) + strlen(workload) + 200;
    char *spec = malloc(cap);
    snprintf(spec, cap, "{\"model\":{\"hf_config\":%s},\"precision\":\"bf16\",\"device\":\"H100-80GB\",\"workload\":{%s}}",
             cfg, workload);
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    vramest_result *r = NULL;
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &c), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_OK, "%s: %s", workload, vramest_last_error_message());
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    free(spec);
    free(cfg);
    return r;
}

static vramest_result *estimate_case(const char *id, const char *workload)
{
    return estimate_of("zoo2.jsonl", id, workload);
}

static uint64_t cat_of(const vramest_result *r, int cat)
{
    uint64_t v = 0;
    cr_assert_eq(vramest_result_get(r, VRAMEST_DEV_GPU, (vramest_category)cat, &v), VRAMEST_OK);
    return v;
}

/* Text sizes of the case's text_config (the hand formula's inputs). */
static int64_t text_key(const char *id, const char *key)
{
    uint64_t n;
    char *cfg = zoo_config("zoo2.jsonl", id, &n);
    json_object *c = json_tokener_parse(cfg), *tc, *v;
    cr_assert(json_object_object_get_ex(c, "text_config", &tc) && json_object_object_get_ex(tc, key, &v));
    int64_t x = json_object_get_int64(v);
    json_object_put(c);
    free(cfg);
    return x;
}

/* Qwen3-VL: an image is (1024 / 32)^2 = 1024 tokens by default (a 1024 x
 * 1024 image, patch 16, merge 2), or workload.image_tokens; the KV cache of
 * the prompt is the text formula over prompt + image tokens, at two lengths. */
Test(mm_images, kv_cache_holds_the_image_tokens)
{
    const char *id = "zoo2-params-qwen3-vl-4b";
    uint64_t per_token = 2ull * (uint64_t)text_key(id, "num_hidden_layers") *
                         (uint64_t)text_key(id, "num_key_value_heads") * (uint64_t)text_key(id, "head_dim") * 2;
    vramest_result *r = estimate_case(id, "\"mode\":\"infer\",\"batch_size\":1,\"prompt_len\":512,\"gen_len\":1,"
                                          "\"images\":2");
    cr_expect_eq(cat_of(r, VRAMEST_CAT_KV_CACHE), (512 + 2 * 1024) * per_token);
    vramest_result_free(r);
    r = estimate_case(id, "\"mode\":\"infer\",\"batch_size\":3,\"prompt_len\":4096,\"gen_len\":1,\"images\":5,"
                          "\"image_tokens\":256");
    cr_expect_eq(cat_of(r, VRAMEST_CAT_KV_CACHE), 3 * (4096 + 5 * 256) * per_token);
    vramest_result_free(r);
}

/* Training: the images' tokens lengthen the decoder's sequence; a frozen
 * tower (LoRA) saves nothing, so LoRA with images equals LoRA over the longer
 * text; full fine-tuning adds the tower's saved activations on top. */
Test(mm_images, tower_activations_only_when_the_tower_trains)
{
    const char *id = "zoo2-params-qwen3-vl-2b";
    vramest_result *img = estimate_case(id, "\"mode\":\"train\",\"batch_size\":2,\"seq_len\":512,\"images\":1,"
                                            "\"finetune\":\"lora\"");
    vramest_result *txt = estimate_case(id, "\"mode\":\"train\",\"batch_size\":2,\"seq_len\":1536,\"finetune\":\"lora\"");
    cr_expect_eq(cat_of(img, VRAMEST_CAT_ACTIVATIONS), cat_of(txt, VRAMEST_CAT_ACTIVATIONS));
    vramest_result_free(img);
    vramest_result_free(txt);

    img = estimate_case(id, "\"mode\":\"train\",\"batch_size\":2,\"seq_len\":512,\"images\":1");
    txt = estimate_case(id, "\"mode\":\"train\",\"batch_size\":2,\"seq_len\":1536");
    /* the tower's saved tensors at least: 2 images x 4096 patches x 24
     * layers x (8 x 1024 + 2 x 4096) elements x 2 bytes */
    uint64_t tower = 2ull * 4096 * 24 * (8 * 1024 + 2 * 4096) * 2;
    cr_expect_geq(cat_of(img, VRAMEST_CAT_ACTIVATIONS), cat_of(txt, VRAMEST_CAT_ACTIVATIONS) + tower);
    vramest_result_free(img);
    vramest_result_free(txt);
}

Test(mm_images, images_need_a_tower)
{
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    vramest_result *r = NULL;
    const char *spec = "{\"model\":\"llama-3-8b\",\"workload\":{\"mode\":\"infer\",\"images\":1}}";
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &c), VRAMEST_OK);
    cr_expect_eq(vramest_estimate(m, p, c, &r), VRAMEST_E_CONFLICT);
    cr_expect(strstr(vramest_last_error_message(), "vision tower"));
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}

/* ---- encoders ---- */

/* XLM-RoBERTa: BERT's body; the token-classification class drops the
 * pooler and adds one biased linear (tests/data/zoo_mm.jsonl says how the
 * count was reconciled with two checkpoints' totals). */
Test(mm_encoders, xlm_roberta_is_exact)
{
    exact("zoo_mm.jsonl", "mm-params-xlm-roberta-large-token-cls");
}

/* DeBERTa-v3: relative embeddings (2 x 256 buckets) with their LayerNorm,
 * shared position keys, no absolute table, no token types; the QA class
 * counts qa_outputs over the model without a pooler. */
Test(mm_encoders, deberta_v2_is_exact_and_trains)
{
    exact("zoo.jsonl", "zoo-params-deberta-v3-base-qa");
    uint64_t n;
    char *cfg = zoo_config("zoo.jsonl", "zoo-params-deberta-v3-base-qa", &n);
    vramest_result *r = estimate_of("zoo.jsonl", "zoo-params-deberta-v3-base-qa",
                                    "\"mode\":\"train\",\"batch_size\":8,\"seq_len\":512");
    cr_expect_gt(cat_of(r, VRAMEST_CAT_ACTIVATIONS), 0);
    vramest_result_free(r);
    /* separate position projections when the keys are not shared: two
     * biased h x h linears per layer for c2p and p2c */
    json_object *j = json_tokener_parse(cfg);
    json_object_object_add(j, "share_att_key", json_object_new_boolean(0));
    int rc;
    uint64_t got = params_of(json_object_to_json_string(j), &rc);
    cr_expect_eq(rc, VRAMEST_OK);
    cr_expect_eq(got, n + 12ull * 2 * (768 * 768 + 768));
    json_object_object_add(j, "pos_att_type", json_object_new_int(3));
    cr_expect_eq(params_of(json_object_to_json_string(j), &rc), 0);
    cr_expect_eq(rc, VRAMEST_E_TYPE);
    json_object_put(j);
    free(cfg);
}

/* ---- Whisper ---- */

static vramest_result *whisper_estimate(const char *workload)
{
    return estimate_of("zoo.jsonl", "zoo-params-whisper-large-v3-turbo", workload);
}

/* Conv stem, sinusoidal encoder table, k_proj without bias, tied proj_out:
 * exact. The decoder caches K and V of its 4 layers over the generated
 * tokens (self) and the encoder's frames (cross), d_model wide, plus
 * DynamicCache's concatenation copy of one layer's K at the last step. */
Test(mm_whisper, count_cache_at_two_lengths_and_training)
{
    exact("zoo.jsonl", "zoo-params-whisper-large-v3-turbo");
    const uint64_t layers = 4, d = 1280;
    uint64_t P = 10, G = 400, B = 8;
    vramest_result *r = whisper_estimate("\"mode\":\"infer\",\"batch_size\":8,\"prompt_len\":10,\"gen_len\":400");
    cr_expect_eq(cat_of(r, VRAMEST_CAT_KV_CACHE), B * layers * 2 * d * 2 * (P + G) + B * (G - 1) * d * 2);
    vramest_result_free(r);
    P = 20, G = 300, B = 4;
    r = whisper_estimate("\"mode\":\"infer\",\"batch_size\":4,\"prompt_len\":20,\"gen_len\":300");
    cr_expect_eq(cat_of(r, VRAMEST_CAT_KV_CACHE), B * layers * 2 * d * 2 * (P + G) + B * (G - 1) * d * 2);
    vramest_result_free(r);
    r = whisper_estimate("\"mode\":\"train\",\"batch_size\":2,\"seq_len\":448,\"finetune\":\"lora\"");
    cr_expect_gt(cat_of(r, VRAMEST_CAT_ACTIVATIONS), 0);
    vramest_result_free(r);
}

Test(mm_whisper, a_decoder_sized_apart_is_refused_by_name)
{
    uint64_t n;
    char *cfg = zoo_config("zoo.jsonl", "zoo-params-whisper-large-v3-turbo", &n);
    json_object *j = json_tokener_parse(cfg);
    json_object_object_add(j, "decoder_attention_heads", json_object_new_int(16));
    cr_expect_eq(parse_error(json_object_to_json_string(j), "decoder_attention_heads"), VRAMEST_E_UNSUPPORTED);
    json_object_put(j);
    free(cfg);
}

/* PaliGemma 1 and 2 (Gemma / Gemma 2 text, SigLIP without head, one biased
 * projection), at 224 and 448 px: the checkpoints' totals (the configs are
 * typed from the published ones, tests/data/zoo_mm.jsonl says so). */
Test(mm_zoo, paligemma_is_exact)
{
    exact("zoo_mm.jsonl", "mm-params-paligemma-3b-mix-224");
    exact("zoo_mm.jsonl", "mm-params-paligemma2-3b-mix-224");
    exact("zoo_mm.jsonl", "mm-params-paligemma2-3b-pt-448");
    /* LLaVA-OneVision: LLaVA-NeXT's projector and newline over SigLIP and Qwen2 */
    exact("zoo_mm.jsonl", "mm-params-llava-onevision-qwen2-0.5b-ov");
    /* Idefics3 / SmolVLM: headless SigLIP, pixel-shuffle connector, Llama text */
    exact("zoo_mm.jsonl", "mm-params-smolvlm-256m-instruct");
    exact("zoo_mm.jsonl", "mm-params-smolvlm-500m-instruct");
    /* InternVL: InternViT with layer scale, shuffled-patch projector, Qwen2.5 text */
    exact("zoo_mm.jsonl", "mm-params-internvl3-1b-hf");
    exact("zoo_mm.jsonl", "mm-params-internvl3-2b-hf");
}

/* Gemma 3 4B/12B/27B files give text_config only the sizes that differ
 * from Gemma3TextConfig(): the rest are the class's defaults, so a sparse
 * text_config counts as the same config written out in full. */
Test(mm_zoo, gemma3_sparse_text_config_takes_the_class_defaults)
{
    uint64_t n;
    char *cfg = zoo_config("zoo2.jsonl", "zoo2-params-medgemma-27b-it", &n);
    json_object *full = json_tokener_parse(cfg), *tc;
    cr_assert(json_object_object_get_ex(full, "text_config", &tc));
    json_object *sparse = json_tokener_parse(cfg), *stc;
    cr_assert(json_object_object_get_ex(sparse, "text_config", &stc));
    /* a 4B-sized text model: what the file gives, and the defaults spelled out */
    json_object *small = json_object_new_object();
    json_object_object_add(small, "model_type", json_object_new_string("gemma3_text"));
    json_object_object_add(small, "hidden_size", json_object_new_int(2560));
    json_object_object_add(small, "intermediate_size", json_object_new_int(10240));
    json_object_object_add(small, "num_hidden_layers", json_object_new_int(34));
    json_object_object_add(small, "sliding_window", json_object_new_int(1024));
    json_object_object_add(sparse, "text_config", small);
    json_object *explicit_ = json_tokener_parse(json_object_to_json_string(small));
    json_object_object_add(explicit_, "vocab_size", json_object_new_int(262208));
    json_object_object_add(explicit_, "num_attention_heads", json_object_new_int(8));
    json_object_object_add(explicit_, "num_key_value_heads", json_object_new_int(4));
    json_object_object_add(explicit_, "head_dim", json_object_new_int(256));
    json_object_object_add(explicit_, "max_position_embeddings", json_object_new_int(131072));
    json_object_object_add(full, "text_config", explicit_);
    int rc1, rc2;
    uint64_t a = params_of(json_object_to_json_string(sparse), &rc1);
    uint64_t b = params_of(json_object_to_json_string(full), &rc2);
    cr_expect_eq(rc1, VRAMEST_OK, "%s", vramest_last_error_message());
    cr_expect_eq(rc2, VRAMEST_OK);
    cr_expect_eq(a, b);
    cr_expect_gt(a, 4000000000ull);
    json_object_put(sparse);
    json_object_put(full);
    free(cfg);
}
