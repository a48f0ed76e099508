/* Model handle, config.json reader, presets and parameter counts (white-box:
 * links the static core for vx_parse_hf_config / vx_params_for_head).
 *
 * Counts must be EXACT: every reference in the tests/data/models TSV files is the
 * Hugging Face model.num_parameters() of the class (published figures from
 * the validation set, or the breakdowns recorded there). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/config.h"
#include "helpers.h"
#include "model/hf_config.h"
#include "model/model.h"

/* ---- helpers ---- */

static int head_from_name(const char *s)
{
    if (!strcmp(s, "auto")) return VX_HEAD_AUTO;
    if (!strcmp(s, "causal_lm")) return VX_HEAD_CAUSAL_LM;
    if (!strcmp(s, "seq2seq_lm")) return VX_HEAD_SEQ2SEQ_LM;
    if (!strcmp(s, "masked_lm")) return VX_HEAD_MASKED_LM;
    if (!strcmp(s, "seq_cls")) return VX_HEAD_SEQ_CLS;
    if (!strcmp(s, "none")) return VX_HEAD_NONE;
    cr_assert_fail("unknown head '%s' in a fixture", s);
    return -1;
}

static vramest_model *parse_text(const char *json, int *rc)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    *rc = vx_parse_hf_config(m, json, strlen(json));
    return m;
}

static vramest_model *parse_fixture(const char *file)
{
    char path[256];
    snprintf(path, sizeof path, "models/%s", file);
    size_t len;
    char *buf = vt_read_data(path, &len);
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    int rc = vx_parse_hf_config(m, buf, len);
    free(buf);
    cr_assert_eq(rc, VRAMEST_OK, "%s: rc %d: %s", file, rc, vramest_last_error_message());
    return m;
}

/* Next non-comment line of a TSV fixture split into up to 4 fields. */
static int tsv_next(char **cursor, char *fields[4])
{
    while (**cursor) {
        char *line = *cursor;
        char *nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
            *cursor = nl + 1;
        } else {
            *cursor = line + strlen(line);
        }
        if (line[0] == '#' || line[0] == '\0') continue;
        int n = 0;
        for (char *p = line; n < 4 && p; n++) {
            fields[n] = p;
            p = strchr(p, '\t');
            if (p) *p++ = '\0';
        }
        for (int i = n; i < 4; i++) fields[i] = "";
        return n;
    }
    return 0;
}

static void expect_error(int rc, int code, const char *needle)
{
    const char *msg = vramest_last_error_message();
    cr_expect_eq(rc, code, "rc %d (%s), wanted %d; message: %s", rc, vramest_status_string(rc), code, msg);
    if (needle) cr_expect(strstr(msg, needle) != NULL, "message '%s' does not mention '%s'", msg, needle);
}

/* ---- exact parameter counts ---- */

Test(model_params, every_config_json_gives_the_exact_count)
{
    char *tsv = vt_read_data("models/expected_params.tsv", NULL);
    char *cur = tsv, *f[4];
    int rows = 0;
    while (tsv_next(&cur, f) >= 3) {
        vramest_model *m = parse_fixture(f[0]);
        uint64_t want = strtoull(f[2], NULL, 10), got = 0;
        int head = head_from_name(f[1]);
        if (head == VX_HEAD_AUTO) {
            cr_expect_eq(vramest_model_param_count(m, &got, NULL), VRAMEST_OK, "%s: %s", f[0],
                         vramest_last_error_message());
        } else {
            got = vx_params_for_head(m, head, 0, NULL);
        }
        cr_expect_eq(got, want, "%s head %s: %llu, expected %llu (%s); off by %lld", f[0], f[1],
                     (unsigned long long)got, (unsigned long long)want, f[3], (long long)(got - want));
        vramest_model_free(m);
        rows++;
    }
    cr_expect_geq(rows, 30);
    free(tsv);
}

/* The published figure a preset reference names: a plain count, or
 * zoo:FILE:CASE, the measured_bytes (a parameter count for metric "params")
 * of case CASE in tests/data/FILE, so the preset is held to the case itself. */
static uint64_t reference_count(const char *ref)
{
    if (strncmp(ref, "zoo:", 4)) return strtoull(ref, NULL, 10);
    char file[64], key[160];
    const char *colon = strchr(ref + 4, ':');
    cr_assert(colon && (size_t)(colon - ref - 4) < sizeof file, "bad reference %s", ref);
    snprintf(file, sizeof file, "%.*s", (int)(colon - ref - 4), ref + 4);
    snprintf(key, sizeof key, "\"id\": \"%s\"", colon + 1);
    char *data = vt_read_data(file, NULL);
    const char *line = strstr(data, key);
    cr_assert(line, "%s: no case %s", file, colon + 1);
    const char *end = strchr(line, '\n');
    const char *mb = strstr(line, "\"measured_bytes\": ");
    cr_assert(mb && (!end || mb < end), "%s: case %s has no measured_bytes", file, colon + 1);
    const char *metric = strstr(line, "\"metric\": \"params\"");
    cr_assert(metric && (!end || metric < end), "%s: case %s is not a params case", file, colon + 1);
    uint64_t n = strtoull(mb + strlen("\"measured_bytes\": "), NULL, 10);
    free(data);
    cr_assert_gt(n, 0, "%s: case %s", file, colon + 1);
    return n;
}

Test(model_params, every_preset_gives_the_exact_count)
{
    char *tsv = vt_read_data("models/preset_params.tsv", NULL);
    char *cur = tsv, *f[4];
    unsigned rows = 0;
    while (tsv_next(&cur, f) >= 2) {
        vramest_model *m = NULL;
        int rc = vramest_model_new_preset(f[0], &m);
        cr_expect_eq(rc, VRAMEST_OK, "preset %s: %s", f[0], vramest_last_error_message());
        if (rc) continue;
        uint64_t got = 0, want = reference_count(f[1]);
        cr_expect_eq(vramest_model_param_count(m, &got, NULL), VRAMEST_OK);
        cr_expect_eq(got, want, "preset %s: %llu, expected %llu (%s)", f[0], (unsigned long long)got,
                     (unsigned long long)want, f[2]);
        vramest_model_free(m);
        rows++;
    }
    free(tsv);
    /* Every bundled preset has a reference row, and vice versa. */
    cr_expect_eq(rows, vramest_preset_count(), "%u reference rows for %u presets", rows, vramest_preset_count());
    cr_expect_geq(vramest_preset_count(), 30u);
}

Test(model_params, moe_active_counts)
{
    static const struct {
        const char *preset;
        uint64_t total, active;
    } cases[] = {
        /* active = total - (experts - top_k) routed experts per MoE layer
         * (validation/models breakdowns) */
        {"mixtral-8x7b", 46702792704ull, 12879925248ull},
        {"deepseek-v2-lite", 15706484224ull, 2661150208ull},
        {"llama-2-7b", 6738415616ull, 6738415616ull},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vramest_model *m;
        cr_assert_eq(vramest_model_new_preset(cases[i].preset, &m), VRAMEST_OK);
        uint64_t t, a;
        cr_assert_eq(vramest_model_param_count(m, &t, &a), VRAMEST_OK);
        cr_expect_eq(t, cases[i].total, "%s total %llu", cases[i].preset, (unsigned long long)t);
        cr_expect_eq(a, cases[i].active, "%s active %llu", cases[i].preset, (unsigned long long)a);
        vramest_model_free(m);
    }
}

/* The inventory is the spine: its Parameter groups must add up to the count,
 * and the head tensors must be exactly those VX_ROLE_IS_HEAD marks. Buffers
 * kept in the checkpoint (trainable_default 0: a noaux_tc router's
 * e_score_correction_bias, fp8 block scales) take memory but are no
 * parameters of model.num_parameters(). */
Test(model_params, inventory_sums_to_the_count_for_every_preset)
{
    for (uint32_t i = 0; i < vramest_preset_count(); i++) {
        vramest_model *m;
        cr_assert_eq(vramest_model_new_preset(vramest_preset_name(i), &m), VRAMEST_OK);
        uint64_t sum = 0, body = 0;
        for (size_t k = 0; k < m->n_inv; k++) {
            const vx_tensor *t = &m->inv[k];
            cr_expect(t->rows > 0 && t->cols > 0 && t->n_per_layer > 0, "%s: empty group %s",
                      vramest_preset_name(i), t->name);
            cr_expect(t->name[0] != '\0');
            if (!t->trainable_default) continue;
            sum += vx_tensor_elems(t);
            if (!VX_ROLE_IS_HEAD(t->role)) body += vx_tensor_elems(t);
        }
        cr_expect_eq(sum, m->shape.params_total, "%s", vramest_preset_name(i));
        cr_expect_eq(body, m->shape.body_total, "%s", vramest_preset_name(i));
        cr_expect_eq(vx_params_for_head(m, VX_HEAD_AUTO, 0, NULL), m->shape.params_total, "%s",
                     vramest_preset_name(i));
        vramest_model_free(m);
    }
}

Test(model_params, head_override)
{
    vramest_model *m = parse_fixture("bert-base-uncased.json");
    /* architectures = BertForMaskedLM */
    cr_expect_eq(m->shape.default_head, VX_HEAD_MASKED_LM);
    cr_expect_eq(vx_params_for_head(m, VX_HEAD_NONE, 0, NULL), 109482240ull);
    /* BertForSequenceClassification: pooler + classifier(num_labels) */
    cr_expect_eq(vx_params_for_head(m, VX_HEAD_SEQ_CLS, 3, NULL), 109482240ull + 768 * 3 + 3);
    /* BertLMHeadModel has the same head as BertForMaskedLM */
    cr_expect_eq(vx_params_for_head(m, VX_HEAD_CAUSAL_LM, 0, NULL), 109514298ull);
    vx_tensor t[VX_HEAD_MAX_TENSORS];
    size_t n;
    cr_expect_eq(vx_head_tensors(&m->shape, VX_HEAD_SEQ_CLS, 2, t, 1, &n), VRAMEST_E_BUFFER_TOO_SMALL);
    cr_expect_eq(n, 4u);
    cr_expect_eq(vx_head_tensors(&m->shape, VX_HEAD_SEQ_CLS, 2, t, VX_HEAD_MAX_TENSORS, &n), VRAMEST_OK);
    for (size_t i = 0; i < n; i++) cr_expect(VX_ROLE_IS_HEAD(t[i].role));
    vramest_model_free(m);

    /* Tied decoder: no lm_head tensor for causal_lm; seq_cls adds score. */
    m = parse_fixture("gpt2.json");
    cr_expect_eq(vx_params_for_head(m, VX_HEAD_NONE, 0, NULL), 124439808ull);
    cr_expect_eq(vx_params_for_head(m, VX_HEAD_SEQ_CLS, 2, NULL), 124439808ull + 2 * 768);
    vramest_model_free(m);

    /* T5: seq2seq is the default; none = T5Model */
    m = parse_fixture("t0_3b.json");
    cr_expect_eq(m->shape.default_head, VX_HEAD_SEQ2SEQ_LM);
    cr_expect_eq(vx_params_for_head(m, VX_HEAD_NONE, 0, NULL), 2849757184ull - 65798144ull);
    vramest_model_free(m);

    /* Partial rotary: phi-2 0.4 x 80, pythia-1b 0.25 x 256 */
    int64_t rd;
    m = parse_fixture("phi-2.json");
    cr_expect_eq(vramest_model_get_i64(m, VRAMEST_MODEL_ROTARY_DIM, &rd), VRAMEST_OK);
    cr_expect_eq(rd, 32);
    vramest_model_free(m);
    m = parse_fixture("pythia-1b.json");
    cr_expect_eq(vramest_model_get_i64(m, VRAMEST_MODEL_ROTARY_DIM, &rd), VRAMEST_OK);
    cr_expect_eq(rd, 64);
    vramest_model_free(m);

    /* ChatGLM-6B names ChatGLMModel but loads ChatGLMForConditionalGeneration */
    m = parse_fixture("chatglm-6b.json");
    cr_expect_eq(m->shape.default_head, VX_HEAD_CAUSAL_LM);
    vramest_model_free(m);
}

/* ---- building a model from options ---- */

Test(model_options, setters_build_the_same_model_as_config_json)
{
    vramest_model *m;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_expect_eq(vramest_model_validate(m), VRAMEST_E_INCOMPLETE_MODEL);
    cr_expect(strstr(vramest_last_error_message(), "model_type") != NULL);
    cr_expect_eq(vramest_model_set_str(m, VRAMEST_MODEL_MODEL_TYPE, "llama"), VRAMEST_OK);
    /* Incomplete models are fine while the user is still setting values. */
    cr_expect_eq(vramest_model_set_i64(m, VRAMEST_MODEL_HIDDEN_SIZE, 4096), VRAMEST_OK);
    cr_expect_eq(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 32), VRAMEST_OK);
    cr_expect_eq(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_ATTENTION_HEADS, 32), VRAMEST_OK);
    cr_expect_eq(vramest_model_set_i64(m, VRAMEST_MODEL_INTERMEDIATE_SIZE, 11008), VRAMEST_OK);
    expect_error(vramest_model_validate(m), VRAMEST_E_INCOMPLETE_MODEL, "vocab_size");
    uint64_t n;
    expect_error(vramest_model_param_count(m, &n, NULL), VRAMEST_E_INCOMPLETE_MODEL, "vocab_size");
    cr_expect_eq(vramest_model_set_f64(m, VRAMEST_MODEL_VOCAB_SIZE, 32000.0), VRAMEST_OK);
    cr_expect_eq(vramest_model_validate(m), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_expect_eq(vramest_model_param_count(m, &n, NULL), VRAMEST_OK);
    cr_expect_eq(n, 6738415616ull);

    int64_t v;
    cr_expect_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, &v), VRAMEST_OK);
    cr_expect_eq(v, 32, "kv heads default to heads");
    cr_expect_eq(vramest_model_get_i64(m, VRAMEST_MODEL_HEAD_DIM, &v), VRAMEST_OK);
    cr_expect_eq(v, 128);
    cr_expect_eq(vramest_model_get_i64(m, VRAMEST_MODEL_TIE_WORD_EMBEDDINGS, &v), VRAMEST_OK);
    cr_expect_eq(v, 0, "llama is untied by default");
    const char *s;
    cr_expect_eq(vramest_model_get_str(m, VRAMEST_MODEL_HIDDEN_ACT, &s), VRAMEST_OK);
    cr_expect_str_eq(s, "silu");
    cr_expect_eq(vramest_model_get_str(m, VRAMEST_MODEL_MODEL_TYPE, &s), VRAMEST_OK);
    cr_expect_str_eq(s, "llama");

    /* GQA via a setter, then back with reset. */
    cr_expect_eq(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, 8), VRAMEST_OK);
    cr_expect_eq(vramest_model_param_count(m, &n, NULL), VRAMEST_OK);
    cr_expect_eq(n, 6738415616ull - 2ull * 32 * 4096 * (4096 - 1024));
    cr_expect_eq(vramest_model_reset(m, VRAMEST_MODEL_NUM_KEY_VALUE_HEADS), VRAMEST_OK);
    cr_expect_eq(vramest_model_param_count(m, &n, NULL), VRAMEST_OK);
    cr_expect_eq(n, 6738415616ull);

    /* Clone is deep: changing the clone leaves the original alone. */
    vramest_model *c;
    cr_assert_eq(vramest_model_clone(m, &c), VRAMEST_OK);
    cr_expect_neq(c->inv, m->inv);
    cr_expect_eq(vramest_model_set_i64(c, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 1), VRAMEST_OK);
    cr_expect_eq(vramest_model_param_count(m, &n, NULL), VRAMEST_OK);
    cr_expect_eq(n, 6738415616ull);
    vramest_model_free(c);
    vramest_model_free(m);
}

Test(model_options, unset_values_without_default_are_incomplete)
{
    vramest_model *m;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    int64_t v;
    expect_error(vramest_model_get_i64(m, VRAMEST_MODEL_HIDDEN_SIZE, &v), VRAMEST_E_INCOMPLETE_MODEL, "hidden_size");
    const char *s;
    expect_error(vramest_model_get_str(m, VRAMEST_MODEL_MODEL_TYPE, &s), VRAMEST_E_INCOMPLETE_MODEL, "model_type");
    cr_expect_not_null(vramest_option_default_str(VRAMEST_MODEL_MODEL_TYPE));
    cr_expect_eq(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_ATTENTION_HEADS, 12), VRAMEST_OK);
    cr_expect_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, &v), VRAMEST_OK);
    cr_expect_eq(v, 12);
    cr_expect_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_LABELS, &v), VRAMEST_OK);
    cr_expect_eq(v, 2);
    vramest_model_free(m);
}

Test(model_options, handle_checks)
{
    int64_t v;
    vramest_model_free(NULL);
    expect_error(vramest_model_set_i64(NULL, VRAMEST_MODEL_HIDDEN_SIZE, 1), VRAMEST_E_INVALID_ARG, NULL);
    expect_error(vramest_model_get_i64(NULL, VRAMEST_MODEL_HIDDEN_SIZE, &v), VRAMEST_E_INVALID_ARG, NULL);
    expect_error(vramest_model_validate(NULL), VRAMEST_E_INVALID_ARG, NULL);
    expect_error(vramest_model_new(NULL), VRAMEST_E_INVALID_ARG, NULL);
    vramest_config *cfg;
    cr_assert_eq(vramest_config_new(&cfg), VRAMEST_OK);
    /* A config passed where a model is expected (easy through ctypes). */
    expect_error(vramest_model_validate((const vramest_model *)cfg), VRAMEST_E_INVALID_ARG, "not a vramest_model");
    vramest_config_free(cfg);

    vramest_model *m;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    expect_error(vramest_model_set_i64(m, VRAMEST_CFG_BATCH_SIZE, 1), VRAMEST_E_WRONG_HANDLE, "batch_size");
    expect_error(vramest_model_set_i64(m, (vramest_option)1999, 1), VRAMEST_E_UNKNOWN_OPTION, NULL);
    expect_error(vramest_model_set_str(m, VRAMEST_MODEL_MODEL_TYPE, "rwkv"), VRAMEST_E_UNKNOWN_NAME, "llama");
    expect_error(vramest_model_set_i64(m, VRAMEST_MODEL_TIE_WORD_EMBEDDINGS, 2), VRAMEST_E_RANGE, NULL);
    vramest_model_free(m);
}

Test(model_options, option_names_are_config_json_names)
{
    vramest_option k;
    cr_expect_eq(vramest_option_from_name("n_embd", &k), VRAMEST_OK);
    cr_expect_eq(k, VRAMEST_MODEL_HIDDEN_SIZE);
    cr_expect_eq(vramest_option_from_name("d_model", &k), VRAMEST_OK);
    cr_expect_eq(k, VRAMEST_MODEL_HIDDEN_SIZE);
    cr_expect_eq(vramest_option_from_name("n_routed_experts", &k), VRAMEST_OK);
    cr_expect_eq(k, VRAMEST_MODEL_NUM_LOCAL_EXPERTS);
    cr_expect_eq(vramest_option_from_name("do_layer_norm_before", &k), VRAMEST_OK);
    cr_expect_eq(k, VRAMEST_MODEL_DO_LAYER_NORM_BEFORE);
    /* Every model key 1000..1044 has a row. */
    for (int key = VRAMEST_MODEL_MODEL_TYPE; key <= VRAMEST_MODEL_NUM_LN_IN_PARALLEL_ATTN; key++) {
        cr_expect_not_null(vramest_option_name((vramest_option)key), "model key %d has no row", key);
        cr_expect_str_eq(vramest_option_group((vramest_option)key), "model");
    }
    /* ... and 1100..1105 (issue #16's plain decoders and MoE variants) */
    for (int key = VRAMEST_MODEL_SLIDING_WINDOW_PATTERN; key <= VRAMEST_MODEL_ATTENTION_OUT_BIAS; key++) {
        cr_expect_not_null(vramest_option_name((vramest_option)key), "model key %d has no row", key);
        cr_expect_str_eq(vramest_option_group((vramest_option)key), "model");
    }
    /* ... and 1200..1206 (issue #16's sparse attention and interleaved layers) */
    for (int key = VRAMEST_MODEL_INDEX_N_HEADS; key <= VRAMEST_MODEL_ATTENTION_CHUNK_SIZE; key++) {
        cr_expect_not_null(vramest_option_name((vramest_option)key), "model key %d has no row", key);
        cr_expect_str_eq(vramest_option_group((vramest_option)key), "model");
    }
}

/* ---- bad input ---- */

#define LLAMA_OK                                                                                                     \
    "\"model_type\":\"llama\",\"hidden_size\":4096,\"num_hidden_layers\":32,\"intermediate_size\":11008,"         \
    "\"vocab_size\":32000"

Test(model_bad_input, impossible_values_are_rejected_by_bounds)
{
    vramest_model *m;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    expect_error(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, -1), VRAMEST_E_RANGE, "num_hidden_layers");
    expect_error(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_ATTENTION_HEADS, 0), VRAMEST_E_RANGE,
                 "num_attention_heads");
    expect_error(vramest_model_set_f64(m, VRAMEST_MODEL_HIDDEN_SIZE, 1.5), VRAMEST_E_TYPE, "hidden_size");
    vramest_model_free(m);

    int rc;
    m = parse_text("{" LLAMA_OK ",\"num_attention_heads\":32,\"num_key_value_heads\":-8}", &rc);
    expect_error(rc, VRAMEST_E_RANGE, "'num_key_value_heads'");
    vramest_model_free(m);
    m = parse_text("{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":-12,\"n_head\":12,\"vocab_size\":50257,"
                   "\"n_positions\":1024}",
                   &rc);
    expect_error(rc, VRAMEST_E_RANGE, "'n_layer'");
    vramest_model_free(m);
    m = parse_text("{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":12,\"n_head\":0,\"vocab_size\":50257,"
                   "\"n_positions\":1024}",
                   &rc);
    expect_error(rc, VRAMEST_E_RANGE, "'n_head'");
    vramest_model_free(m);
}

Test(model_bad_input, inconsistent_architectures)
{
    int rc;
    vramest_model *m = parse_text("{" LLAMA_OK ",\"num_attention_heads\":32,\"num_key_value_heads\":5}", &rc);
    expect_error(rc, VRAMEST_E_INVALID_MODEL, "num_key_value_heads (5)");
    vramest_model_free(m);

    m = parse_text("{\"model_type\":\"llama\",\"hidden_size\":100,\"num_hidden_layers\":2,\"intermediate_size\":256,"
                   "\"vocab_size\":1000,\"num_attention_heads\":3}",
                   &rc);
    expect_error(rc, VRAMEST_E_INVALID_MODEL, "hidden_size (100)");
    vramest_model_free(m);
    /* ... which an explicit head_dim makes valid (Gemma-style). */
    m = parse_text("{\"model_type\":\"llama\",\"hidden_size\":100,\"num_hidden_layers\":2,\"intermediate_size\":256,"
                   "\"vocab_size\":1000,\"num_attention_heads\":3,\"head_dim\":32}",
                   &rc);
    cr_expect_eq(rc, VRAMEST_OK, "%s", vramest_last_error_message());
    vramest_model_free(m);

    m = parse_text("{\"model_type\":\"mixtral\",\"hidden_size\":64,\"num_hidden_layers\":2,\"intermediate_size\":128,"
                   "\"vocab_size\":100,\"num_attention_heads\":4,\"num_local_experts\":4,\"num_experts_per_tok\":5}",
                   &rc);
    expect_error(rc, VRAMEST_E_INVALID_MODEL, "num_experts_per_tok (5)");
    vramest_model_free(m);

    /* Setters accept each value; validation reports the inconsistency. */
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_expect_eq(vx_parse_hf_config(m, "{" LLAMA_OK ",\"num_attention_heads\":32}", strlen("{" LLAMA_OK ",\"num_attention_heads\":32}")),
                 VRAMEST_OK);
    cr_expect_eq(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, 7), VRAMEST_OK);
    expect_error(vramest_model_validate(m), VRAMEST_E_INVALID_MODEL, "num_key_value_heads (7)");
    vramest_model_free(m);
}

Test(model_bad_input, malformed_json)
{
    int rc;
    vramest_model *m = parse_text("{\"model_type\": \"llama\",, \"hidden_size\": 1}", &rc);
    expect_error(rc, VRAMEST_E_PARSE, "byte 23"); /* the second comma */
    vramest_model_free(m);

    /* A real config cut in the middle. */
    size_t len;
    char *buf = vt_read_data("models/llama-2-7b.json", &len);
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    rc = vx_parse_hf_config(m, buf, len / 2);
    expect_error(rc, VRAMEST_E_PARSE, "end of JSON");
    cr_expect_eq(vramest_model_validate(m), VRAMEST_E_INCOMPLETE_MODEL, "a failed parse leaves the model unchanged");
    free(buf);
    vramest_model_free(m);

    m = parse_text("[1, 2]", &rc);
    expect_error(rc, VRAMEST_E_PARSE, "object");
    vramest_model_free(m);
    m = parse_text("", &rc);
    expect_error(rc, VRAMEST_E_PARSE, "empty");
    vramest_model_free(m);
    m = parse_text("{\"model_type\":\"llama\"} trailing", &rc);
    expect_error(rc, VRAMEST_E_PARSE, "byte 23");
    vramest_model_free(m);

    char deep[400];
    size_t k = 0;
    k += (size_t)snprintf(deep, sizeof deep, "{\"model_type\":\"llama\",\"x\":");
    for (int i = 0; i < 100; i++) deep[k++] = '[';
    deep[k] = '\0';
    m = parse_text(deep, &rc);
    expect_error(rc, VRAMEST_E_LIMIT, "nesting");
    vramest_model_free(m);
}

Test(model_bad_input, unknown_model_type_lists_the_supported_ones)
{
    int rc;
    vramest_model *m = parse_text("{\"model_type\":\"rwkv\",\"hidden_size\":768}", &rc);
    expect_error(rc, VRAMEST_E_UNKNOWN_MODEL_TYPE, "'rwkv'");
    cr_expect(strstr(vramest_last_error_message(), "llama") && strstr(vramest_last_error_message(), "deepseek_v3"));
    vramest_model_free(m);
}

Test(model_bad_input, missing_keys_are_named)
{
    int rc;
    vramest_model *m = parse_text("{\"hidden_size\":4096}", &rc);
    expect_error(rc, VRAMEST_E_INCOMPLETE_MODEL, "'model_type'");
    vramest_model_free(m);
    m = parse_text("{\"model_type\":\"llama\",\"hidden_size\":4096,\"num_hidden_layers\":32,"
                   "\"num_attention_heads\":32,\"intermediate_size\":11008}",
                   &rc);
    expect_error(rc, VRAMEST_E_INCOMPLETE_MODEL, "'vocab_size'");
    vramest_model_free(m);
    m = parse_text("{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_layer\":12,\"n_head\":12,\"vocab_size\":50257}", &rc);
    expect_error(rc, VRAMEST_E_INCOMPLETE_MODEL, "n_positions");
    vramest_model_free(m);
    m = parse_text("{\"model_type\":\"mixtral\",\"hidden_size\":64,\"num_hidden_layers\":2,\"intermediate_size\":128,"
                   "\"vocab_size\":100,\"num_attention_heads\":4,\"num_experts_per_tok\":2}",
                   &rc);
    expect_error(rc, VRAMEST_E_INCOMPLETE_MODEL, "num_local_experts");
    vramest_model_free(m);
}

Test(model_bad_input, type_errors_name_the_key)
{
    int rc;
    vramest_model *m = parse_text("{" LLAMA_OK ",\"num_attention_heads\":\"32\"}", &rc);
    expect_error(rc, VRAMEST_E_TYPE, "config.json: key 'num_attention_heads': expected integer, got string");
    vramest_model_free(m);
    m = parse_text("{" LLAMA_OK ",\"num_attention_heads\":32,\"tie_word_embeddings\":\"no\"}", &rc);
    expect_error(rc, VRAMEST_E_TYPE, "'tie_word_embeddings'");
    vramest_model_free(m);
    m = parse_text("{" LLAMA_OK ",\"num_attention_heads\":32.5}", &rc);
    expect_error(rc, VRAMEST_E_TYPE, "'num_attention_heads'");
    vramest_model_free(m);
    m = parse_text("{\"model_type\":7}", &rc);
    expect_error(rc, VRAMEST_E_TYPE, "'model_type'");
    vramest_model_free(m);
}

Test(model_bad_input, failed_parse_leaves_the_model_unchanged)
{
    vramest_model *m = parse_fixture("qwen2-7b.json");
    uint64_t before, after;
    cr_assert_eq(vramest_model_param_count(m, &before, NULL), VRAMEST_OK);
    const char *bad = "{\"model_type\":\"llama\",\"hidden_size\":8,\"num_attention_heads\":3}";
    cr_expect_eq(vx_parse_hf_config(m, bad, strlen(bad)), VRAMEST_E_INVALID_MODEL);
    cr_assert_eq(vramest_model_param_count(m, &after, NULL), VRAMEST_OK);
    cr_expect_eq(after, before);
    const char *s;
    cr_expect_eq(vramest_model_get_str(m, VRAMEST_MODEL_MODEL_TYPE, &s), VRAMEST_OK);
    cr_expect_str_eq(s, "qwen2");
    vramest_model_free(m);
}

Test(model_bad_input, unknown_keys_and_nulls_are_ignored)
{
    int rc;
    vramest_model *m = parse_text("{" LLAMA_OK ",\"num_attention_heads\":32,\"rope_scaling\":{\"a\":[1,{}]},"
                                  "\"eos_token_id\":[1,2],\"sliding_window\":null,\"head_dim\":null,"
                                  "\"hidden_act\":\"xielu\",\"n_positions\":null}",
                                  &rc);
    cr_expect_eq(rc, VRAMEST_OK, "%s", vramest_last_error_message());
    uint64_t n;
    cr_expect_eq(vramest_model_param_count(m, &n, NULL), VRAMEST_OK);
    cr_expect_eq(n, 6738415616ull);
    vramest_model_free(m);
}

/* ---- presets ---- */

Test(model_presets, names_and_lookup)
{
    for (uint32_t i = 0; i < vramest_preset_count(); i++) {
        const char *n = vramest_preset_name(i);
        cr_assert_not_null(n);
        for (const char *p = n; *p; p++) cr_expect(!(*p >= 'A' && *p <= 'Z'), "preset name %s is not lowercase", n);
    }
    cr_expect_null(vramest_preset_name(vramest_preset_count()));

    vramest_model *m;
    cr_expect_eq(vramest_model_new_preset("Llama-2-7B", &m), VRAMEST_OK, "case-insensitive");
    vramest_model_free(m);
    cr_expect_eq(vramest_model_new_preset("mistral-7b", &m), VRAMEST_OK, "alias");
    vramest_model_free(m);
    cr_expect_eq(vramest_model_new_preset("meta-llama/Llama-2-7b-hf", &m), VRAMEST_OK, "HF repo id");
    vramest_model_free(m);
    m = (vramest_model *)1;
    expect_error(vramest_model_new_preset("llama-2-7", &m), VRAMEST_E_UNKNOWN_NAME, "llama-2-7b");
    cr_expect_null(m);
    expect_error(vramest_model_new_preset(NULL, &m), VRAMEST_E_INVALID_ARG, NULL);
}
