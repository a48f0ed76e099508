/* Hostile inputs, table-driven: one row per malformed or extreme input to a
 * public entry point, with the status it must get and a word its message
 * must hold. Each group of rows runs in its own Criterion worker, which logs
 * a row's name before running it, so a crash names its row. The library's
 * promise (docs/security.md): no crash, no out-of-bounds access, no
 * undefined behaviour (the ASan+UBSan build runs this suite),
 * bounded time and memory, and a specific status with a message saying what
 * was wrong. Sizes that do not fit in 64 bits give a result (saturated, so
 * "does not fit") or VRAMEST_E_OVERFLOW, never a wrapped number.
 *
 * Black-box: links the shared library through its export list only. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramest/vramest.h>

#include "helpers.h"

/* ---- fixtures ------------------------------------------------------------ */

static vramest_model *preset(const char *name)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new_preset(name, &m), VRAMEST_OK, "preset %s: %s", name, vramest_last_error_message());
    return m;
}

static vramest_config *config(void)
{
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    return c;
}

static vramest_precision *precision(void)
{
    vramest_precision *p = NULL;
    cr_assert_eq(vramest_precision_new(&p), VRAMEST_OK);
    return p;
}

static vramest_result *result(void)
{
    vramest_model *m = preset("gpt2");
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(m, NULL, NULL, &r), VRAMEST_OK, "%s", vramest_last_error_message());
    vramest_model_free(m);
    return r;
}

/* `n` copies of `c`, NUL-terminated. */
static char *filled(size_t n, char c)
{
    char *s = malloc(n + 1);
    if (!s) abort();
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* "<open> x depth, <mid>, <close> x depth" */
static char *nested(const char *prefix, size_t depth, const char *open, const char *mid, const char *close,
                    const char *suffix, size_t *len)
{
    size_t lo = strlen(open), lc = strlen(close);
    size_t n = strlen(prefix) + depth * (lo + lc) + strlen(mid) + strlen(suffix);
    char *s = malloc(n + 1);
    if (!s) abort();
    char *p = s;
    memcpy(p, prefix, strlen(prefix)), p += strlen(prefix);
    for (size_t i = 0; i < depth; i++) memcpy(p, open, lo), p += lo;
    memcpy(p, mid, strlen(mid)), p += strlen(mid);
    for (size_t i = 0; i < depth; i++) memcpy(p, close, lc), p += lc;
    memcpy(p, suffix, strlen(suffix)), p += strlen(suffix);
    *p = '\0';
    *len = (size_t)(p - s);
    return s;
}

static int parse_mem(vramest_source kind, const void *d, size_t n, size_t *needed)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    size_t dummy = 0;
    int rc = vramest_model_parse(m, kind, d, n, needed ? needed : &dummy);
    vramest_model_free(m);
    return rc;
}

static int spec_plan(const char *json, size_t len)
{
    char buf[256];
    size_t needed = 0;
    return vramest_spec_plan(json, len, buf, sizeof buf, &needed);
}

/* Little-endian writers for hand-made headers. */
typedef struct bytes {
    uint8_t b[4096];
    size_t n;
} bytes;

static void put(bytes *b, const void *d, size_t n)
{
    cr_assert(b->n + n <= sizeof b->b);
    memcpy(b->b + b->n, d, n);
    b->n += n;
}
static void put32(bytes *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, x, 4);
}
static void put64(bytes *b, uint64_t v)
{
    put32(b, (uint32_t)v);
    put32(b, (uint32_t)(v >> 32));
}
static void gstr(bytes *b, const char *s)
{
    put64(b, strlen(s));
    put(b, s, strlen(s));
}

/* GGUF v3: magic, version, n_tensors, n_kv, then general.architecture = llama. */
static void gguf_head(bytes *b, uint64_t n_tensors, uint64_t n_kv)
{
    b->n = 0;
    put(b, "GGUF", 4);
    put32(b, 3);
    put64(b, n_tensors);
    put64(b, n_kv + 1);
    gstr(b, "general.architecture");
    put32(b, 8);
    gstr(b, "llama");
}

/* One GGUF tensor info: name, dims (ggml order), type, data offset. */
static void gguf_tensor_at(bytes *b, const char *name, uint32_t nd, const uint64_t *ne, uint32_t type, uint64_t off)
{
    gstr(b, name);
    put32(b, nd);
    for (uint32_t i = 0; i < nd; i++) put64(b, ne[i]);
    put32(b, type);
    put64(b, off);
}
static void gguf_tensor(bytes *b, const char *name, uint32_t nd, const uint64_t *ne, uint32_t type)
{
    gguf_tensor_at(b, name, nd, ne, type, 0);
}

/* safetensors: 8-byte length + the JSON text. */
static size_t st_make(uint8_t *out, size_t cap, const char *json)
{
    size_t n = strlen(json);
    cr_assert(n + 8 <= cap);
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)((uint64_t)n >> (8 * i));
    memcpy(out + 8, json, n);
    return n + 8;
}

/* ---- cases ------------------------------------------------------------------
 * A row's function returns the status of the hostile call (functions that
 * return a pointer give VRAMEST_OK for the expected NULL and
 * VRAMEST_E_INTERNAL otherwise). "Sweeps" try one input on every option or
 * every prefix and assert inside. */

/* NULL to every kind of argument. */
static int null_model_new(void) { return vramest_model_new(NULL); }
static int null_preset_name(void)
{
    vramest_model *m = NULL;
    return vramest_model_new_preset(NULL, &m);
}
static int null_preset_out(void) { return vramest_model_new_preset("llama-2-7b", NULL); }
static int null_model_clone(void)
{
    vramest_model *m = NULL;
    return vramest_model_clone(NULL, &m);
}
static int null_model_set(void) { return vramest_model_set_i64(NULL, VRAMEST_MODEL_HIDDEN_SIZE, 8); }
static int null_model_set_str_value(void)
{
    vramest_model *m = preset("gpt2");
    int rc = vramest_model_set_str(m, VRAMEST_MODEL_ARCHITECTURES, NULL);
    vramest_model_free(m);
    return rc;
}
static int null_model_get_out(void)
{
    vramest_model *m = preset("gpt2");
    int rc = vramest_model_get_i64(m, VRAMEST_MODEL_HIDDEN_SIZE, NULL);
    vramest_model_free(m);
    return rc;
}
static int null_parse_model(void) { return vramest_model_parse(NULL, VRAMEST_SRC_AUTO, "{}", 2, NULL); }
static int null_parse_data(void) { return parse_mem(VRAMEST_SRC_HF_CONFIG_JSON, NULL, 10, NULL); }
static int null_parse_file_path(void)
{
    vramest_model *m = preset("gpt2");
    int rc = vramest_model_parse_file(m, VRAMEST_SRC_AUTO, NULL);
    vramest_model_free(m);
    return rc;
}
static int null_validate(void) { return vramest_model_validate(NULL); }
static int null_param_count(void) { return vramest_model_param_count(NULL, NULL, NULL); }
static int null_precision_new(void) { return vramest_precision_new(NULL); }
static int null_precision_preset(void)
{
    vramest_precision *p = NULL;
    return vramest_precision_new_preset(NULL, &p);
}
static int null_apply_preset(void)
{
    vramest_precision *p = precision();
    int rc = vramest_precision_apply_preset(p, NULL);
    vramest_precision_free(p);
    return rc;
}
static int null_config_new(void) { return vramest_config_new(NULL); }
static int null_device_name(void)
{
    vramest_config *c = config();
    int rc = vramest_config_set_str(c, VRAMEST_CFG_DEVICE, NULL);
    vramest_config_free(c);
    return rc;
}
static int null_estimate_model(void)
{
    vramest_result *r = NULL;
    return vramest_estimate(NULL, NULL, NULL, &r);
}
static int null_estimate_out(void)
{
    vramest_model *m = preset("gpt2");
    int rc = vramest_estimate(m, NULL, NULL, NULL);
    vramest_model_free(m);
    return rc;
}
static int null_result_get(void)
{
    uint64_t v;
    return vramest_result_get(NULL, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &v);
}
static int null_result_get_out(void)
{
    vramest_result *r = result();
    int rc = vramest_result_get(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, NULL);
    vramest_result_free(r);
    return rc;
}
static int null_result_json_buf(void)
{
    vramest_result *r = result();
    size_t n;
    int rc = vramest_result_json(r, NULL, 100, &n);
    vramest_result_free(r);
    return rc;
}
static int null_result_value_out(void)
{
    vramest_result *r = result();
    int rc = vramest_result_value(r, VRAMEST_VAL_PEAK_ALLOCATED, NULL);
    vramest_result_free(r);
    return rc;
}
static int null_option_from_name(void)
{
    vramest_option k;
    return vramest_option_from_name(NULL, &k);
}
static int null_option_value_from_name(void)
{
    int64_t v;
    return vramest_option_value_from_name(VRAMEST_CFG_OPTIMIZER, NULL, &v);
}
static int null_dtype_from_name(void)
{
    int v;
    return vramest_dtype_from_name(NULL, &v);
}
static int null_check_fit(void)
{
    int fits;
    return vramest_check_fit(NULL, NULL, NULL, &fits, NULL);
}
static int null_solve_out(void)
{
    vramest_model *m = preset("gpt2");
    vramest_config *c = config();
    vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "A100-80GB");
    int rc = vramest_solve_max(m, NULL, c, VRAMEST_CFG_BATCH_SIZE, NULL, NULL);
    vramest_model_free(m);
    vramest_config_free(c);
    return rc;
}
static int null_min_gpus_model(void)
{
    int64_t g;
    vramest_config *c = config();
    int rc = vramest_solve_min_gpus(NULL, NULL, c, 8, &g);
    vramest_config_free(c);
    return rc;
}
static int null_advise_buf(void)
{
    vramest_model *m = preset("gpt2");
    vramest_config *c = config();
    size_t n;
    int rc = vramest_advise_json(m, NULL, c, NULL, 64, &n);
    vramest_model_free(m);
    vramest_config_free(c);
    return rc;
}
static int null_spec_json(void)
{
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
    return vramest_spec_parse(NULL, 10, &m, &p, &c);
}
static int null_spec_outputs(void)
{
    vramest_model *m;
    vramest_config *c;
    return vramest_spec_parse("{\"model\":\"gpt2\"}", 16, &m, NULL, &c);
}
/* A NULL out_model is allowed (the model member is then not read). */
static int null_spec_model_allowed(void)
{
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    static const char spec[] = "{\"model\":{\"gguf\":\"/nonexistent\"}}";
    int rc = vramest_spec_parse(spec, sizeof spec - 1, NULL, &p, &c);
    vramest_precision_free(p);
    vramest_config_free(c);
    return rc;
}
static int null_spec_plan_buf(void)
{
    size_t n;
    return vramest_spec_plan("{\"model\":\"gpt2\"}", 16, NULL, 100, &n);
}
/* Functions without a status: NULL is harmless and answered with NULL/0/"". */
static int null_everywhere_void(void)
{
    vramest_model_free(NULL);
    vramest_precision_free(NULL);
    vramest_config_free(NULL);
    vramest_result_free(NULL);
    cr_assert_eq(vramest_result_warning_count(NULL), 0);
    cr_assert_null(vramest_result_warning(NULL, 0));
    cr_assert_eq(vramest_result_rank_count(NULL), 0);
    cr_assert_null(vramest_result_rank_label(NULL, 0));
    cr_assert_not_null(vramest_last_error_message());
    return VRAMEST_OK;
}

/* NaN, infinities and negatives to every floating-point setter. */
static void f64_sweep(double v, int expect_f64, const char *needle_f64)
{
    vramest_model *m = preset("gpt2");
    vramest_precision *p = precision();
    vramest_config *c = config();
    size_t tried = 0;
    for (uint32_t i = 0; i < vramest_option_count(); i++) {
        vramest_option k;
        int type, handle;
        double mn;
        cr_assert_eq(vramest_option_at(i, &k), VRAMEST_OK);
        cr_assert_eq(vramest_option_info(k, &type, &handle, &mn, NULL, NULL), VRAMEST_OK);
        if (type == VRAMEST_TYPE_STRING || (v < 0 && !isnan(v) && mn <= v)) continue;
        int rc = handle == VRAMEST_HANDLE_MODEL       ? vramest_model_set_f64(m, k, v)
                 : handle == VRAMEST_HANDLE_PRECISION ? vramest_precision_set_f64(p, k, v)
                                                      : vramest_config_set_f64(c, k, v);
        /* Integer, bool and enum options take only integral doubles. */
        int expect = type == VRAMEST_TYPE_F64 ? expect_f64 : VRAMEST_E_TYPE;
        const char *needle = type == VRAMEST_TYPE_F64 ? needle_f64 : "not an integer";
        cr_expect_eq(rc, expect, "%s = %g: status %d (%s), expected %d", vramest_option_name(k), v, rc,
                     vramest_last_error_message(), expect);
        cr_expect(strstr(vramest_last_error_message(), needle) != NULL, "%s = %g: message '%s' lacks '%s'",
                  vramest_option_name(k), v, vramest_last_error_message(), needle);
        cr_expect(strstr(vramest_last_error_message(), vramest_option_name(k)) != NULL,
                  "%s = %g: message '%s' does not name the option", vramest_option_name(k), v,
                  vramest_last_error_message());
        tried++;
    }
    cr_assert_gt(tried, 100, "only %zu options tried", tried);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}
static int f64_nan(void) { f64_sweep(NAN, VRAMEST_E_RANGE, "not a finite number"); return VRAMEST_OK; }
static int f64_neg_nan(void) { f64_sweep(-NAN, VRAMEST_E_RANGE, "not a finite number"); return VRAMEST_OK; }
static int f64_inf(void) { f64_sweep(INFINITY, VRAMEST_E_RANGE, "not a finite number"); return VRAMEST_OK; }
static int f64_neg_inf(void) { f64_sweep(-INFINITY, VRAMEST_E_RANGE, "not a finite number"); return VRAMEST_OK; }
static int f64_negative(void) { f64_sweep(-1e308, VRAMEST_E_RANGE, "out of range"); return VRAMEST_OK; }
static int f64_denormal_negative(void) { f64_sweep(-4.9e-324, VRAMEST_E_RANGE, "out of range"); return VRAMEST_OK; }

/* INT64_MAX / INT64_MIN to every integer setter: rejected with the bounds. */
static void i64_sweep(int64_t v)
{
    vramest_model *m = preset("gpt2");
    vramest_precision *p = precision();
    vramest_config *c = config();
    for (uint32_t i = 0; i < vramest_option_count(); i++) {
        vramest_option k;
        int type, handle;
        double mx;
        cr_assert_eq(vramest_option_at(i, &k), VRAMEST_OK);
        cr_assert_eq(vramest_option_info(k, &type, &handle, NULL, &mx, NULL), VRAMEST_OK);
        if (type == VRAMEST_TYPE_STRING) continue;
        int rc = handle == VRAMEST_HANDLE_MODEL       ? vramest_model_set_i64(m, k, v)
                 : handle == VRAMEST_HANDLE_PRECISION ? vramest_precision_set_i64(p, k, v)
                                                      : vramest_config_set_i64(c, k, v);
        cr_expect_eq(rc, VRAMEST_E_RANGE, "%s = %lld: status %d (%s)", vramest_option_name(k), (long long)v, rc,
                     vramest_last_error_message());
        cr_expect(strstr(vramest_last_error_message(), vramest_option_name(k)) != NULL, "%s: message '%s'",
                  vramest_option_name(k), vramest_last_error_message());
    }
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}
static int i64_max_everywhere(void) { i64_sweep(INT64_MAX); return VRAMEST_OK; }
static int i64_min_everywhere(void) { i64_sweep(INT64_MIN); return VRAMEST_OK; }
static int f64_huge_to_int(void)
{
    vramest_config *c = config();
    int rc = vramest_config_set_f64(c, VRAMEST_CFG_BATCH_SIZE, 1e300);
    vramest_config_free(c);
    return rc;
}
static int f64_fraction_to_int(void)
{
    vramest_config *c = config();
    int rc = vramest_config_set_f64(c, VRAMEST_CFG_SEQ_LEN, 2048.5);
    vramest_config_free(c);
    return rc;
}
static int bool_two(void)
{
    vramest_config *c = config();
    int rc = vramest_config_set_i64(c, VRAMEST_CFG_KV_CACHE, 2);
    vramest_config_free(c);
    return rc;
}

/* Every size at its bound: a result (saturated) or VRAMEST_E_OVERFLOW. */
static void expect_sane(const vramest_result *r)
{
    uint64_t a, res, t;
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_PEAK_ALLOCATED, &a), VRAMEST_OK);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_PEAK_RESERVED, &res), VRAMEST_OK);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_DEVICE_TOTAL, &t), VRAMEST_OK);
    cr_expect(a <= res && res <= t, "allocated %llu <= reserved %llu <= total %llu", (unsigned long long)a,
              (unsigned long long)res, (unsigned long long)t);
    char buf[1 << 16];
    size_t n;
    cr_expect_eq(vramest_result_json(r, buf, sizeof buf, &n), VRAMEST_OK, "%s", vramest_last_error_message());
}

static int estimate_with(vramest_model *m, vramest_precision *p, vramest_config *c)
{
    vramest_result *r = NULL;
    int rc = vramest_estimate(m, p, c, &r);
    if (rc == VRAMEST_OK) {
        expect_sane(r);
        uint64_t fits = 2, cap = 0, total = 0;
        if (vramest_result_value(r, VRAMEST_VAL_FITS, &fits) == VRAMEST_OK) {
            cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_DEVICE_CAPACITY, &cap), VRAMEST_OK);
            cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_DEVICE_TOTAL, &total), VRAMEST_OK);
            cr_expect_eq(fits, total <= cap, "fits %llu but device_total %llu, capacity %llu",
                         (unsigned long long)fits, (unsigned long long)total, (unsigned long long)cap);
        }
        vramest_result_free(r);
    } else {
        cr_expect(r == NULL);
    }
    return rc;
}

/* Estimate `m` under `c` (freeing both): an overflow refusal is the
 * expected outcome for the absurd sizes below, so it counts as success. */
static int estimate_overflow_ok(vramest_model *m, vramest_config *c)
{
    int rc = estimate_with(m, NULL, c);
    vramest_model_free(m);
    vramest_config_free(c);
    return rc == VRAMEST_E_OVERFLOW ? VRAMEST_OK : rc;
}

static int huge_405b_train(void)
{
    vramest_model *m = preset("llama-3.1-405b");
    vramest_config *c = config();
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, "train"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_SEQ_LEN, 1048576), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BATCH_SIZE, 1000000000), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_GPUS, 100000), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_ATTENTION, "eager"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "H100-80GB"), VRAMEST_OK);
    int rc = estimate_with(m, NULL, c);
    int fits = -1;
    int64_t margin = 0;
    if (rc == VRAMEST_OK) {
        cr_expect_eq(vramest_check_fit(m, NULL, c, &fits, &margin), VRAMEST_OK);
        cr_expect_eq(fits, 0);
        cr_expect_lt(margin, 0);
    }
    vramest_model_free(m);
    vramest_config_free(c);
    return rc == VRAMEST_E_OVERFLOW ? VRAMEST_OK : rc;
}
static int huge_405b_parallel(void)
{
    vramest_model *m = preset("llama-3.1-405b");
    vramest_config *c = config();
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, "train"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_SEQ_LEN, 1048576), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_GPUS, 100000), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_ZERO_STAGE, 3), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_GRAD_ACCUM_STEPS, 1000000000), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_OFFLOAD_PARAMS, "nvme"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_OFFLOAD_OPTIMIZER, "nvme"), VRAMEST_OK);
    return estimate_overflow_ok(m, c);
}
static int huge_405b_infer(void)
{
    vramest_model *m = preset("llama-3.1-405b");
    vramest_config *c = config();
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, "infer"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_PROMPT_LEN, 1073741824), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_GEN_LEN, 1073741824), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BATCH_SIZE, 1000000000), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BEAMS, 1024), VRAMEST_OK);
    return estimate_overflow_ok(m, c);
}
static int huge_serving(void)
{
    vramest_model *m = preset("deepseek-v3");
    vramest_config *c = config();
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, "infer"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_FRAMEWORK, "vllm"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_MAX_NUM_SEQS, 10000000), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_MAX_MODEL_LEN, 1073741824), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BLOCK_SIZE, 1), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_f64(c, VRAMEST_CFG_MEMORY_GIB, 1048576), VRAMEST_OK);
    return estimate_overflow_ok(m, c);
}
/* The largest architecture the bounds allow. */
static int huge_architecture(void)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    static const struct {
        vramest_option k;
        int64_t v;
    } a[] = {
        {VRAMEST_MODEL_HIDDEN_SIZE, 16777216},      {VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 100000},
        {VRAMEST_MODEL_NUM_ATTENTION_HEADS, 65536}, {VRAMEST_MODEL_INTERMEDIATE_SIZE, 67108864},
        {VRAMEST_MODEL_VOCAB_SIZE, 67108864},       {VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS, 4294967296},
        {VRAMEST_MODEL_NUM_LOCAL_EXPERTS, 65536},   {VRAMEST_MODEL_NUM_EXPERTS_PER_TOK, 65536},
        {VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE, 67108864},
    };
    cr_assert_eq(vramest_model_set_str(m, VRAMEST_MODEL_MODEL_TYPE, "mixtral"), VRAMEST_OK);
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        cr_assert_eq(vramest_model_set_i64(m, a[i].k, a[i].v), VRAMEST_OK, "%s", vramest_last_error_message());
    int rc = vramest_model_validate(m);
    if (rc == VRAMEST_OK) {
        uint64_t total = 0;
        rc = vramest_model_param_count(m, &total, NULL);
        vramest_config *c = config();
        vramest_config_set_str(c, VRAMEST_CFG_MODE, "train");
        vramest_config_set_i64(c, VRAMEST_CFG_BATCH_SIZE, 1000000000);
        vramest_config_set_i64(c, VRAMEST_CFG_SEQ_LEN, 1073741824);
        if (rc == VRAMEST_OK) rc = estimate_with(m, NULL, c);
        vramest_config_free(c);
    }
    vramest_model_free(m);
    return rc == VRAMEST_E_OVERFLOW ? VRAMEST_OK : rc;
}
static int huge_min_gpus_bound(void)
{
    vramest_model *m = preset("deepseek-v3");
    vramest_config *c = config();
    vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "T4");
    int64_t g = 0;
    int rc = vramest_solve_min_gpus(m, NULL, c, INT64_MAX, &g);
    vramest_model_free(m);
    vramest_config_free(c);
    return rc;
}
static int huge_solve_max(void)
{
    vramest_model *m = preset("gpt2");
    vramest_config *c = config();
    vramest_config_set_str(c, VRAMEST_CFG_MODE, "infer");
    vramest_config_set_f64(c, VRAMEST_CFG_MEMORY_GIB, 1048576);
    int64_t v = 0;
    int rc = vramest_solve_max(m, NULL, c, VRAMEST_CFG_SEQ_LEN, &v, NULL);
    if (rc == VRAMEST_OK) cr_expect_gt(v, 0);
    vramest_model_free(m);
    vramest_config_free(c);
    return rc;
}

/* Deep nesting and huge strings. */
static int deep_config_json(void)
{
    size_t n;
    char *s = nested("{\"model_type\": \"llama\", \"x\": ", 5000, "[", "1", "]", "}", &n);
    int rc = parse_mem(VRAMEST_SRC_HF_CONFIG_JSON, s, n, NULL);
    free(s);
    return rc;
}
static int deep_config_objects(void)
{
    size_t n;
    char *s = nested("", 5000, "{\"a\":", "1", "}", "", &n);
    int rc = parse_mem(VRAMEST_SRC_HF_CONFIG_JSON, s, n, NULL);
    free(s);
    return rc;
}
static int deep_spec(void)
{
    size_t n;
    char *s = nested("{\"model\": \"gpt2\", \"workload\": ", 5000, "[", "1", "]", "}", &n);
    int rc = spec_plan(s, n);
    free(s);
    return rc;
}
static int deep_spec_inline_config(void)
{
    size_t n;
    char *s = nested("{\"model\": {\"hf_config\": {\"model_type\": \"gpt2\", \"x\": ", 1000, "[", "0", "]", "}}}", &n);
    int rc = spec_plan(s, n);
    free(s);
    return rc;
}
static int deep_index(void)
{
    size_t n;
    char *s = nested("{\"weight_map\": {}, \"metadata\": {\"x\": ", 100000, "[", "0", "]", "}}", &n);
    int rc = parse_mem(VRAMEST_SRC_SAFETENSORS_INDEX, s, n, NULL);
    free(s);
    return rc;
}
static int deep_safetensors_metadata(void)
{
    size_t n;
    char *s = nested("{\"t\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4], \"x\": ", 10000, "[", "0",
                     "]", "}}", &n);
    uint8_t *b = malloc(n + 8);
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)((uint64_t)n >> (8 * i));
    memcpy(b + 8, s, n);
    int rc = parse_mem(VRAMEST_SRC_SAFETENSORS_HEADER, b, n + 8, NULL);
    free(b);
    free(s);
    return rc;
}
static int deep_gguf_arrays(void)
{
    bytes *b = calloc(1, sizeof *b);
    gguf_head(b, 0, 1);
    gstr(b, "x.nested");
    put32(b, 9); /* array */
    for (int i = 0; i < 100; i++) put32(b, 9), put64(b, 1); /* of one array of ... */
    put32(b, 0), put64(b, 0);
    int rc = parse_mem(VRAMEST_SRC_GGUF_HEADER, b->b, b->n, NULL);
    free(b);
    return rc;
}
/* Wide documents: json-c spends ~800 bytes per object and ~80 per scalar, so
 * 16 MiB of "[{},{},...]" once took 4.3 GiB (8.7 GiB inlined in a spec);
 * lib/io/jsonlimit.c now refuses them before json-c builds anything. */
static char *wide(const char *head, const char *item, const char *tail, size_t total, size_t *len)
{
    size_t hl = strlen(head), il = strlen(item), tl = strlen(tail);
    size_t n = (total - hl - tl) / (il + 1);
    char *s = malloc(hl + n * (il + 1) + tl + 1);
    if (!s) abort();
    char *p = s;
    memcpy(p, head, hl), p += hl;
    for (size_t i = 0; i < n; i++) {
        if (i) *p++ = ',';
        memcpy(p, item, il), p += il;
    }
    memcpy(p, tail, tl), p += tl;
    *p = '\0';
    *len = (size_t)(p - s);
    return s;
}
static int wide_config_objects(void)
{
    size_t n;
    char *s = wide("{\"model_type\": \"gpt2\", \"x\": [", "{}", "]}", 16u << 20, &n);
    int rc = parse_mem(VRAMEST_SRC_HF_CONFIG_JSON, s, n, NULL);
    free(s);
    return rc;
}
static int wide_spec_values(void)
{
    size_t n;
    char *s = wide("{\"model\": \"gpt2\", \"x\": [", "0", "]}", 16u << 20, &n);
    int rc = spec_plan(s, n);
    free(s);
    return rc;
}
static int wide_spec_inline_config(void)
{
    size_t n;
    char *s = wide("{\"model\": {\"hf_config\": {\"model_type\": \"gpt2\", \"x\": [", "{}", "]}}}", 16u << 20, &n);
    int rc = spec_plan(s, n);
    free(s);
    return rc;
}
/* Many values a real document could have are still fine. */
static int wide_but_real(void)
{
    size_t n;
    char *s = wide("{\"model\": {\"hf_config\": {\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, "
                   "\"n_head\": 12, \"vocab_size\": 50257, \"n_positions\": 1024, \"task_specific_params\": [",
                   "0", "]}}}", 100000, &n);
    int rc = spec_plan(s, n);
    free(s);
    return rc == VRAMEST_E_BUFFER_TOO_SMALL ? VRAMEST_OK : rc;
}
#define TEN_MB ((size_t)10 * 1024 * 1024)
static int long_model_type(void)
{
    char *s = filled(TEN_MB + 40, 'a');
    memcpy(s, "{\"model_type\": \"", 16);
    memcpy(s + TEN_MB + 38, "\"}", 2);
    int rc = parse_mem(VRAMEST_SRC_HF_CONFIG_JSON, s, TEN_MB + 40, NULL);
    cr_expect_lt(strlen(vramest_last_error_message()), 1100, "the message is bounded");
    free(s);
    return rc;
}
static int long_spec_key(void)
{
    char *s = filled(TEN_MB + 40, 'k');
    memcpy(s, "{\"model\": \"gpt2\", \"", 19);
    memcpy(s + TEN_MB + 35, "\": 1}", 5);
    int rc = spec_plan(s, TEN_MB + 40);
    free(s);
    return rc;
}
static int long_preset_name(void)
{
    char *s = filled(TEN_MB, 'x');
    vramest_model *m = NULL;
    int rc = vramest_model_new_preset(s, &m);
    cr_expect_null(m);
    free(s);
    return rc;
}
static int long_option_name(void)
{
    char *s = filled(TEN_MB, 'y');
    vramest_option k;
    int rc = vramest_option_from_name(s, &k);
    free(s);
    return rc;
}
static int long_dtype_name(void)
{
    char *s = filled(TEN_MB, 'f');
    int d;
    int rc = vramest_dtype_from_name(s, &d);
    free(s);
    return rc;
}
static int long_string_option(void)
{
    char *s = filled(TEN_MB, 'q');
    vramest_config *c = config();
    int rc = vramest_config_set_str(c, VRAMEST_CFG_LORA_TARGETS, s);
    vramest_config_free(c);
    free(s);
    return rc;
}
static int long_device_name(void)
{
    char *s = filled(TEN_MB, 'G');
    vramest_config *c = config();
    int rc = vramest_config_set_str(c, VRAMEST_CFG_DEVICE, s);
    vramest_config_free(c);
    free(s);
    return rc;
}
static int long_path(void)
{
    char *s = filled(TEN_MB, '/');
    vramest_model *m = preset("gpt2");
    int rc = vramest_model_parse_file(m, VRAMEST_SRC_AUTO, s);
    vramest_model_free(m);
    free(s);
    return rc;
}
static int oversized_spec(void)
{
    size_t n = (size_t)16 * 1024 * 1024 + 1;
    char *s = filled(n, ' ');
    memcpy(s, "{\"model\":\"gpt2\"}", 16);
    int rc = spec_plan(s, n);
    free(s);
    return rc;
}

/* Truncations: every prefix of a header must ask for more bytes. */
static int every_gguf_prefix(void)
{
    bytes *b = calloc(1, sizeof *b);
    gguf_head(b, 2, 1);
    gstr(b, "llama.block_count");
    put32(b, 4), put32(b, 1);
    uint64_t ne[2] = {64, 32};
    gguf_tensor_at(b, "token_embd.weight", 2, ne, 1, 0);
    gguf_tensor_at(b, "output.weight", 2, ne, 1, 4096); /* 64 x 32 fp16 */
    cr_assert_eq(parse_mem(VRAMEST_SRC_GGUF_HEADER, b->b, b->n, NULL), VRAMEST_OK, "%s", vramest_last_error_message());
    for (size_t len = 0; len < b->n; len++) {
        size_t needed = 0;
        int rc = parse_mem(VRAMEST_SRC_GGUF_HEADER, b->b, len, &needed);
        cr_assert_eq(rc, VRAMEST_E_NEED_MORE_DATA, "prefix %zu: %d %s", len, rc, vramest_last_error_message());
        cr_assert(needed > len && needed <= b->n, "prefix %zu: needed %zu", len, needed);
    }
    free(b);
    return VRAMEST_OK;
}
static int every_safetensors_prefix(void)
{
    uint8_t b[512];
    size_t n = st_make(b, sizeof b,
                       "{\"__metadata__\":{\"format\":\"pt\"},\"a\":{\"dtype\":\"F16\",\"shape\":[2,3],"
                       "\"data_offsets\":[0,12]},\"b\":{\"dtype\":\"I8\",\"shape\":[],\"data_offsets\":[12,13]}}");
    cr_assert_eq(parse_mem(VRAMEST_SRC_SAFETENSORS_HEADER, b, n, NULL), VRAMEST_OK, "%s", vramest_last_error_message());
    for (size_t len = 0; len < n; len++) {
        size_t needed = 0;
        int rc = parse_mem(VRAMEST_SRC_SAFETENSORS_HEADER, b, len, &needed);
        cr_assert_eq(rc, VRAMEST_E_NEED_MORE_DATA, "prefix %zu: %d %s", len, rc, vramest_last_error_message());
        cr_assert_eq(needed, len < 8 ? 8 : n, "prefix %zu: needed %zu", len, needed);
    }
    return VRAMEST_OK;
}
static int every_config_prefix(void)
{
    static const char cfg[] = "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2, "
                              "\"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128}";
    for (size_t len = 0; len + 1 < sizeof cfg; len++) {
        int rc = parse_mem(VRAMEST_SRC_HF_CONFIG_JSON, cfg, len, NULL);
        cr_assert_eq(rc, VRAMEST_E_PARSE, "prefix %zu: %d %s", len, rc, vramest_last_error_message());
    }
    return VRAMEST_OK;
}

/* Malformed GGUF. */
static int gguf_tensor_count_huge(void)
{
    bytes b;
    gguf_head(&b, UINT64_MAX, 0);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_kv_count_huge(void)
{
    bytes b;
    gguf_head(&b, 0, (uint64_t)1 << 62);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_string_length_huge(void)
{
    bytes b;
    gguf_head(&b, 0, 1);
    put64(&b, UINT64_MAX);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_array_count_huge(void)
{
    bytes b;
    gguf_head(&b, 0, 1);
    gstr(&b, "x.arr");
    put32(&b, 9), put32(&b, 10), put64(&b, (uint64_t)1 << 61); /* 2^61 u64 */
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_five_dims(void)
{
    bytes b;
    gguf_head(&b, 1, 0);
    uint64_t ne[5] = {1, 1, 1, 1, 1};
    gguf_tensor(&b, "blk.0.x.weight", 5, ne, 0);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_dim_too_large(void)
{
    bytes b;
    gguf_head(&b, 1, 0);
    uint64_t ne[2] = {(uint64_t)1 << 41, 1};
    gguf_tensor(&b, "token_embd.weight", 2, ne, 0);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_dim_negative(void)
{
    bytes b;
    gguf_head(&b, 1, 0);
    uint64_t ne[2] = {(uint64_t)-4096, 1};
    gguf_tensor(&b, "token_embd.weight", 2, ne, 0);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_elements_overflow(void)
{
    bytes b;
    gguf_head(&b, 1, 0);
    uint64_t ne[4] = {(uint64_t)1 << 40, (uint64_t)1 << 40, 1, 1};
    gguf_tensor(&b, "blk.0.x.weight", 4, ne, 0);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
/* 2^32 x (2^31 + 1) one-byte elements fit 64 bits unsigned, not signed. */
static int gguf_4d_signed_product(void)
{
    bytes b;
    gguf_head(&b, 1, 0);
    uint64_t ne[4] = {1, (uint64_t)1 << 32, ((uint64_t)1 << 31) + 1, 1};
    gguf_tensor(&b, "blk.0.ffn_up_exps.weight", 4, ne, 24); /* GGML_TYPE_I8 */
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
/* The same product with a zero dimension: no elements, but the dims (int64)
 * are still multiplied (found by the fuzzer after the fix above). */
static int gguf_zero_dim_signed_product(void)
{
    bytes b;
    gguf_head(&b, 1, 0);
    uint64_t ne[4] = {1, (uint64_t)1 << 32, ((uint64_t)1 << 31) + 1, 0};
    gguf_tensor(&b, "blk.0.ffn_up_exps.weight", 4, ne, 0);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_zero_dim_3d(void)
{
    bytes b;
    gguf_head(&b, 1, 0);
    uint64_t ne[3] = {0, (uint64_t)1 << 40, (uint64_t)1 << 40};
    gguf_tensor(&b, "blk.0.ffn_up_exps.weight", 3, ne, 0);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_unknown_type(void)
{
    bytes b;
    gguf_head(&b, 1, 0);
    uint64_t ne[1] = {32};
    gguf_tensor(&b, "output_norm.weight", 1, ne, 9999);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_unknown_value_type(void)
{
    bytes b;
    gguf_head(&b, 0, 1);
    gstr(&b, "x.key");
    put32(&b, 13);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_big_endian(void)
{
    bytes b;
    b.n = 0;
    put(&b, "GGUF", 4);
    put32(&b, 0x03000000u);
    put64(&b, 0), put64(&b, 0);
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}
static int gguf_wrong_magic(void) { return parse_mem(VRAMEST_SRC_GGUF_HEADER, "GGML\3\0\0\0", 8, NULL); }
static int gguf_offset_overflow(void)
{
    bytes b;
    gguf_head(&b, 1, 0);
    gstr(&b, "output_norm.weight");
    put32(&b, 1), put64(&b, 32), put32(&b, 0);
    put64(&b, UINT64_MAX - 31); /* aligned, and + 128 bytes overflows */
    return parse_mem(VRAMEST_SRC_GGUF_HEADER, b.b, b.n, NULL);
}

/* Malformed safetensors. */
static int st_len_max(void)
{
    uint8_t b[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '{', '}'};
    return parse_mem(VRAMEST_SRC_SAFETENSORS_HEADER, b, 10, NULL);
}
static int st_len_past_limit(void)
{
    uint64_t n = (uint64_t)100 * 1024 * 1024 + 1;
    uint8_t b[10] = {0};
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(n >> (8 * i));
    b[8] = '{', b[9] = '}';
    return parse_mem(VRAMEST_SRC_SAFETENSORS_HEADER, b, 10, NULL);
}
static int st_json(const char *json)
{
    uint8_t b[1024];
    size_t n = st_make(b, sizeof b, json);
    return parse_mem(VRAMEST_SRC_SAFETENSORS_HEADER, b, n, NULL);
}
static int st_negative_dim(void)
{
    return st_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1,4],\"data_offsets\":[0,16]}}");
}
static int st_elements_overflow(void)
{
    return st_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[1099511627776,1099511627776],\"data_offsets\":[0,0]}}");
}
/* 2^32 x (2^31 + 1) elements fit 64 bits unsigned, not signed (dims are int64). */
static int st_4d_signed_product(void)
{
    return st_json("{\"a\":{\"dtype\":\"U8\",\"shape\":[1,1,4294967296,2147483649],"
                   "\"data_offsets\":[0,9223372041149743104]}}");
}
/* 2^62 elements are accepted: every size derived from them must saturate. */
static int st_huge_tensor_estimate(void)
{
    uint8_t b[512];
    size_t n = st_make(b, sizeof b,
                       "{\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[1099511627776,4194304],"
                       "\"data_offsets\":[0,9223372036854775808]}}");
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    size_t needed;
    int rc = vramest_model_parse(m, VRAMEST_SRC_SAFETENSORS_HEADER, b, n, &needed);
    if (rc == VRAMEST_OK) {
        vramest_model_set_str(m, VRAMEST_MODEL_MODEL_TYPE, "llama");
        vramest_model_set_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 2);
        vramest_model_set_i64(m, VRAMEST_MODEL_NUM_ATTENTION_HEADS, 32);
        rc = vramest_model_validate(m);
        if (rc == VRAMEST_OK) {
            vramest_config *c = config();
            vramest_config_set_str(c, VRAMEST_CFG_MODE, "train");
            rc = estimate_with(m, NULL, c);
            vramest_config_free(c);
        }
    }
    vramest_model_free(m);
    return rc == VRAMEST_E_OVERFLOW ? VRAMEST_OK : rc;
}
static int st_zero_dim_signed_product(void)
{
    return st_json("{\"a\":{\"dtype\":\"U8\",\"shape\":[0,1,4294967296,2147483649],\"data_offsets\":[0,0]}}");
}
static int st_offsets_huge(void)
{
    return st_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,184467440737095516150]}}");
}
static int st_offsets_reversed(void)
{
    return st_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}");
}
static int st_overlap(void)
{
    return st_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                   "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}");
}
static int st_dup_name(void)
{
    return st_json("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                   "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}");
}
static int st_bad_utf8(void)
{
    return st_json("{\"\xff\xfe\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}");
}
static int st_nul_escape(void)
{
    return st_json("{\"a\\u0000b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}");
}
static int st_unknown_dtype(void)
{
    return st_json("{\"a\":{\"dtype\":\"F128\",\"shape\":[1],\"data_offsets\":[0,16]}}");
}
static int index_path_escape(void)
{
    static const char s[] = "{\"weight_map\": {\"lm_head.weight\": \"../../etc/passwd\"}}";
    return parse_mem(VRAMEST_SRC_SAFETENSORS_INDEX, s, sizeof s - 1, NULL);
}
static int index_total_negative(void)
{
    static const char s[] = "{\"metadata\": {\"total_size\": -5}, \"weight_map\": {}}";
    return parse_mem(VRAMEST_SRC_SAFETENSORS_INDEX, s, sizeof s - 1, NULL);
}

/* Malformed config.json. */
static int cfg_json(const char *s) { return parse_mem(VRAMEST_SRC_HF_CONFIG_JSON, s, strlen(s), NULL); }
static int cfg_not_object(void) { return cfg_json("[1, 2, 3]"); }
static int cfg_empty(void) { return parse_mem(VRAMEST_SRC_HF_CONFIG_JSON, "", 0, NULL); }
static int cfg_nul_inside(void) { return parse_mem(VRAMEST_SRC_HF_CONFIG_JSON, "{\"a\":1}\0{}", 10, NULL); }
static int cfg_negative_hidden(void)
{
    return cfg_json("{\"model_type\": \"llama\", \"hidden_size\": -4096, \"num_hidden_layers\": 2, "
                    "\"num_attention_heads\": 4, \"vocab_size\": 100}");
}
static int cfg_hidden_1e30(void)
{
    return cfg_json("{\"model_type\": \"llama\", \"hidden_size\": 1e30, \"num_hidden_layers\": 2, "
                    "\"num_attention_heads\": 4, \"vocab_size\": 100}");
}
static int cfg_heads_not_dividing(void)
{
    return cfg_json("{\"model_type\": \"llama\", \"hidden_size\": 100, \"num_hidden_layers\": 2, "
                    "\"num_attention_heads\": 7, \"vocab_size\": 100, \"intermediate_size\": 64}");
}
static int cfg_unknown_model_type(void) { return cfg_json("{\"model_type\": \"skynet\", \"hidden_size\": 64}"); }
static int cfg_model_type_number(void) { return cfg_json("{\"model_type\": 7, \"hidden_size\": 64}"); }
static int cfg_layers_string(void)
{
    return cfg_json("{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": \"2\", "
                    "\"num_attention_heads\": 4, \"vocab_size\": 100}");
}

/* Job specs. */
static int spec_str(const char *s) { return spec_plan(s, strlen(s)); }
static int spec_array(void) { return spec_str("[]"); }
static int spec_null(void) { return spec_str("null"); }
static int spec_trailing(void) { return spec_str("{\"model\": \"gpt2\"} x"); }
static int spec_nul(void) { return spec_plan("{\"model\": \"gpt2\"}\0", 18); }
static int spec_bad_utf8(void) { return spec_str("{\"model\": \"gpt2\xc0\xaf\"}"); }
static int spec_dup_key(void) { return spec_str("{\"model\": \"gpt2\", \"model\": \"gpt2\"}"); }
static int spec_nan(void) { return spec_str("{\"model\": \"gpt2\", \"workload\": {\"batch_size\": NaN}}"); }
static int spec_batch_1e999(void) { return spec_str("{\"model\": \"gpt2\", \"workload\": {\"batch_size\": 1e999}}"); }
static int spec_batch_negative(void) { return spec_str("{\"model\": \"gpt2\", \"workload\": {\"batch_size\": -8}}"); }
static int spec_gpus_huge(void)
{
    return spec_str("{\"model\": \"gpt2\", \"parallel\": {\"gpus\": 18446744073709551616}}");
}
static int spec_memory_nan_string(void)
{
    return spec_str("{\"model\": \"gpt2\", \"device\": {\"memory_gib\": \"NaN\"}}");
}
/* A named device is never dropped for a memory_gib that rounds to 0 bytes
 * (issue #19: it read as "no device", and the job was not refused). */
static int spec_device_tiny_memory(void)
{
    return spec_str("{\"model\": \"llama-2-70b\", \"device\": {\"name\": \"H100-80GB\", \"memory_gib\": 1e-10}}");
}
static int spec_tiny_memory(void) { return spec_str("{\"model\": \"gpt2\", \"device\": {\"memory_gib\": 0.2}}"); }
static int spec_device_file(void) { return spec_str("{\"model\": {\"gguf\": \"/dev/zero\"}}"); }
static int spec_directory_as_config(void) { return spec_str("{\"model\": {\"hf_config_file\": \"/\"}}"); }
static int spec_missing_file(void) { return spec_str("{\"model\": {\"path\": \"/nonexistent/vramest/model\"}}"); }
static int spec_two_sources(void)
{
    return spec_str("{\"model\": {\"arch\": {\"model_type\": \"gpt2\"}, \"hf_config\": {}}}");
}

/* Wrong handle kinds, as ctypes' c_void_p makes easy. */
static int wrong_config_as_model(void)
{
    vramest_config *c = config();
    int rc = vramest_model_set_i64((vramest_model *)(void *)c, VRAMEST_MODEL_HIDDEN_SIZE, 64);
    vramest_config_free(c);
    return rc;
}
static int wrong_model_as_config(void)
{
    vramest_model *m = preset("gpt2");
    vramest_result *r = NULL;
    int rc = vramest_estimate(m, NULL, (const vramest_config *)(const void *)m, &r);
    cr_expect_null(r);
    vramest_model_free(m);
    return rc;
}
static int wrong_result_as_precision(void)
{
    vramest_model *m = preset("gpt2");
    vramest_result *r = result(), *r2 = NULL;
    int rc = vramest_estimate(m, (const vramest_precision *)(const void *)r, NULL, &r2);
    vramest_result_free(r);
    vramest_model_free(m);
    return rc;
}
static int wrong_precision_as_result(void)
{
    vramest_precision *p = precision();
    uint64_t v;
    int rc = vramest_result_get((const vramest_result *)(const void *)p, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &v);
    vramest_precision_free(p);
    return rc;
}
static int wrong_free_kind(void)
{
    /* Freeing through the wrong function is ignored, not a double free. */
    vramest_model *m = preset("gpt2");
    vramest_config_free((vramest_config *)(void *)m);
    vramest_result_free((vramest_result *)(void *)m);
    vramest_precision_free((vramest_precision *)(void *)m);
    int rc = vramest_model_validate(m);
    vramest_model_free(m);
    return rc;
}
static int wrong_key_handle(void)
{
    vramest_model *m = preset("gpt2");
    int rc = vramest_model_set_i64(m, VRAMEST_CFG_BATCH_SIZE, 8);
    vramest_model_free(m);
    return rc;
}
static int wrong_key_precision(void)
{
    vramest_precision *p = precision();
    int rc = vramest_precision_set_str(p, VRAMEST_MODEL_MODEL_TYPE, "llama");
    vramest_precision_free(p);
    return rc;
}

/* Unknown enum values and keys. */
static int enum_family_999(void)
{
    vramest_model *m = preset("gpt2");
    int rc = vramest_model_set_i64(m, VRAMEST_MODEL_MODEL_TYPE, 999);
    vramest_model_free(m);
    return rc;
}
static int enum_optimizer_negative(void)
{
    vramest_config *c = config();
    int rc = vramest_config_set_i64(c, VRAMEST_CFG_OPTIMIZER, -1);
    vramest_config_free(c);
    return rc;
}
static int enum_dtype_int64_min(void)
{
    vramest_precision *p = precision();
    int rc = vramest_precision_set_i64(p, VRAMEST_PREC_WEIGHTS, INT64_MIN);
    vramest_precision_free(p);
    return rc;
}
static int key_sentinel(void)
{
    vramest_config *c = config();
    int rc = vramest_config_set_i64(c, VRAMEST_OPTION_MAX_, 1);
    vramest_config_free(c);
    return rc;
}
static int key_negative(void)
{
    int type;
    return vramest_option_info((vramest_option)-5, &type, NULL, NULL, NULL, NULL);
}
static int parse_kind_99(void) { return parse_mem((vramest_source)99, "{}", 2, NULL); }
static int parse_kind_negative(void) { return parse_mem((vramest_source)-1, "{}", 2, NULL); }
static int parse_file_kind_42(void)
{
    vramest_model *m = preset("gpt2");
    int rc = vramest_model_parse_file(m, (vramest_source)42, "/");
    vramest_model_free(m);
    return rc;
}
static int names_of_unknown_values(void)
{
    cr_assert_null(vramest_option_name((vramest_option)99999));
    cr_assert_null(vramest_option_description((vramest_option)-1));
    cr_assert_null(vramest_option_group((vramest_option)0x7FFFFFFF));
    cr_assert_null(vramest_option_default_str((vramest_option)12));
    cr_assert_null(vramest_option_value_name(VRAMEST_CFG_OPTIMIZER, INT64_MIN));
    cr_assert_null(vramest_option_value_name(VRAMEST_CFG_BATCH_SIZE, 1));
    cr_assert_null(vramest_category_name((vramest_category)-1));
    cr_assert_null(vramest_category_name((vramest_category)vramest_category_count()));
    cr_assert_null(vramest_device_name((vramest_device)3));
    cr_assert_null(vramest_value_name((vramest_value)0x7FFFFFFF));
    cr_assert_null(vramest_phase_name((vramest_phase)99));
    cr_assert_null(vramest_provenance_name((vramest_provenance)-1));
    cr_assert_null(vramest_dtype_name(-5));
    cr_assert_null(vramest_dtype_name(0x7FFFFFFF));
    cr_assert_null(vramest_preset_name(UINT32_MAX));
    cr_assert_str_eq(vramest_status_string(12345), "unknown status");
    cr_assert_str_eq(vramest_status_string(INT32_MIN), "unknown status");
    return VRAMEST_OK;
}
static int dtype_layout_unknown(void)
{
    uint64_t e, b;
    return vramest_dtype_layout(-7, &e, &b);
}

/* Out-of-range category, device and value indexes. */
static int idx_result(int (*f)(const vramest_result *))
{
    vramest_result *r = result();
    int rc = f(r);
    vramest_result_free(r);
    return rc;
}
static int get_dev(const vramest_result *r)
{
    uint64_t v;
    return vramest_result_get(r, (vramest_device)3, VRAMEST_CAT_WEIGHTS, &v);
}
static int get_dev_negative(const vramest_result *r)
{
    uint64_t v;
    return vramest_result_get(r, (vramest_device)-1, VRAMEST_CAT_WEIGHTS, &v);
}
static int get_cat(const vramest_result *r)
{
    uint64_t v;
    return vramest_result_get(r, VRAMEST_DEV_GPU, (vramest_category)vramest_category_count(), &v);
}
static int get_cat_max(const vramest_result *r)
{
    uint64_t lo, hi;
    return vramest_result_get_band(r, VRAMEST_DEV_HOST, VRAMEST_CAT_MAX_, &lo, &hi);
}
static int prov_cat_negative(const vramest_result *r)
{
    int p;
    return vramest_result_provenance(r, VRAMEST_DEV_NVME, (vramest_category)-2, &p);
}
static int value_key(const vramest_result *r)
{
    uint64_t v;
    return vramest_result_value(r, (vramest_value)24, &v);
}
static int value_key_negative(const vramest_result *r)
{
    uint64_t v;
    return vramest_result_value(r, (vramest_value)-1, &v);
}
static int value_band_count(const vramest_result *r)
{
    uint64_t lo, hi;
    return vramest_result_value_band(r, (vramest_value)0x7FFFFFFF, &lo, &hi);
}
static int get_all_dev(const vramest_result *r)
{
    uint64_t v[16];
    size_t n;
    return vramest_result_get_all(r, (vramest_device)7, v, 16, &n);
}
static int get_all_small(const vramest_result *r)
{
    uint64_t v[1];
    size_t n = 0;
    int rc = vramest_result_get_all(r, VRAMEST_DEV_GPU, v, 1, &n);
    cr_expect_eq(n, vramest_category_count(), "out_count is set even when the buffer is too small");
    return rc;
}
static int rank_index(const vramest_result *r)
{
    uint64_t v;
    return vramest_result_rank_get(r, UINT32_MAX, VRAMEST_RANK_COUNT, &v);
}
static int warning_index(const vramest_result *r) { return vramest_result_warning(r, UINT32_MAX) ? VRAMEST_E_INTERNAL : 0; }
static int json_too_small(const vramest_result *r)
{
    char buf[4];
    size_t n = 0;
    int rc = vramest_result_json(r, buf, sizeof buf, &n);
    cr_expect_gt(n, sizeof buf);
    return rc;
}
static int r_get_dev(void) { return idx_result(get_dev); }
static int r_get_dev_negative(void) { return idx_result(get_dev_negative); }
static int r_get_cat(void) { return idx_result(get_cat); }
static int r_get_cat_max(void) { return idx_result(get_cat_max); }
static int r_prov_cat_negative(void) { return idx_result(prov_cat_negative); }
static int r_value_key(void) { return idx_result(value_key); }
static int r_value_key_negative(void) { return idx_result(value_key_negative); }
static int r_value_band_count(void) { return idx_result(value_band_count); }
static int r_get_all_dev(void) { return idx_result(get_all_dev); }
static int r_get_all_small(void) { return idx_result(get_all_small); }
static int r_rank_index(void) { return idx_result(rank_index); }
static int r_warning_index(void) { return idx_result(warning_index); }
static int r_json_too_small(void) { return idx_result(json_too_small); }
static int gpu_index(void)
{
    const char *n;
    uint64_t b;
    return vramest_gpu_info(UINT32_MAX, &n, &b);
}
static int option_index(void)
{
    vramest_option k;
    return vramest_option_at(UINT32_MAX, &k);
}
static int solve_unknown_key(void)
{
    vramest_model *m = preset("gpt2");
    vramest_config *c = config();
    vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "A100-80GB");
    int64_t v;
    int rc = vramest_solve_max(m, NULL, c, (vramest_option)-3, &v, NULL);
    vramest_model_free(m);
    vramest_config_free(c);
    return rc;
}
static int min_gpus_zero(void)
{
    vramest_model *m = preset("gpt2");
    vramest_config *c = config();
    vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "A100-80GB");
    int64_t g;
    int rc = vramest_solve_min_gpus(m, NULL, c, 0, &g);
    vramest_model_free(m);
    vramest_config_free(c);
    return rc;
}
static int parse_file_dev_zero(void)
{
    vramest_model *m = preset("gpt2");
    int rc = vramest_model_parse_file(m, VRAMEST_SRC_AUTO, "/dev/zero");
    vramest_model_free(m);
    return rc;
}
static int parse_file_proc(void)
{
    /* A regular file that claims size 0 and then yields bytes. */
    vramest_model *m = preset("gpt2");
    int rc = vramest_model_parse_file(m, VRAMEST_SRC_GGUF_HEADER, "/proc/self/status");
    vramest_model_free(m);
    return rc;
}

typedef struct hcase {
    const char *name;
    int (*run)(void); /* NULL: a group marker, `name` is the group */
    int expect;
    const char *needle; /* in the message; NULL: not checked (a success) */
} hcase;

#define ROW(f, code, needle) {#f, f, code, needle}
#define GROUP(g) {#g, NULL, 0, NULL}
static const hcase cases[] = {
    GROUP(null_arguments),
    ROW(null_model_new, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_preset_name, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_preset_out, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_model_clone, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_model_set, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_model_set_str_value, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_model_get_out, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_parse_model, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_parse_data, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_parse_file_path, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_validate, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_param_count, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_precision_new, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_precision_preset, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_apply_preset, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_config_new, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_device_name, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_estimate_model, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_estimate_out, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_result_get, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_result_get_out, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_result_json_buf, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_result_value_out, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_option_from_name, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_option_value_from_name, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_dtype_from_name, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_check_fit, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_solve_out, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_min_gpus_model, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_advise_buf, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_spec_json, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_spec_outputs, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_spec_model_allowed, VRAMEST_OK, NULL),
    ROW(null_spec_plan_buf, VRAMEST_E_INVALID_ARG, "NULL"),
    ROW(null_everywhere_void, VRAMEST_OK, NULL),
    GROUP(doubles),
    ROW(f64_nan, VRAMEST_OK, NULL),
    ROW(f64_neg_nan, VRAMEST_OK, NULL),
    ROW(f64_inf, VRAMEST_OK, NULL),
    ROW(f64_neg_inf, VRAMEST_OK, NULL),
    ROW(f64_negative, VRAMEST_OK, NULL),
    ROW(f64_denormal_negative, VRAMEST_OK, NULL),
    ROW(f64_huge_to_int, VRAMEST_E_TYPE, "not an integer"),
    ROW(f64_fraction_to_int, VRAMEST_E_TYPE, "not an integer"),
    GROUP(integers),
    ROW(i64_max_everywhere, VRAMEST_OK, NULL),
    ROW(i64_min_everywhere, VRAMEST_OK, NULL),
    ROW(bool_two, VRAMEST_E_RANGE, "kv_cache"),
    GROUP(sizes_beyond_64_bits),
    ROW(huge_405b_train, VRAMEST_OK, NULL),
    ROW(huge_405b_parallel, VRAMEST_OK, NULL),
    ROW(huge_405b_infer, VRAMEST_OK, NULL),
    ROW(huge_serving, VRAMEST_OK, NULL),
    ROW(huge_architecture, VRAMEST_OK, NULL),
    ROW(huge_min_gpus_bound, VRAMEST_E_RANGE, "max_gpus"),
    ROW(huge_solve_max, VRAMEST_OK, NULL),
    GROUP(nesting_and_long_strings),
    ROW(deep_config_json, VRAMEST_E_LIMIT, "nesting"),
    ROW(deep_config_objects, VRAMEST_E_LIMIT, "nesting"),
    ROW(deep_spec, VRAMEST_E_LIMIT, "nesting"),
    ROW(deep_spec_inline_config, VRAMEST_E_LIMIT, "nesting"),
    ROW(deep_index, VRAMEST_E_LIMIT, "nesting"),
    ROW(deep_safetensors_metadata, VRAMEST_E_LIMIT, "nesting"),
    ROW(deep_gguf_arrays, VRAMEST_E_LIMIT, "nested deeper"),
    ROW(wide_config_objects, VRAMEST_E_LIMIT, "JSON objects"),
    ROW(wide_spec_values, VRAMEST_E_LIMIT, "JSON values"),
    ROW(wide_spec_inline_config, VRAMEST_E_LIMIT, "JSON objects"),
    ROW(wide_but_real, VRAMEST_OK, NULL),
    ROW(long_model_type, VRAMEST_E_UNKNOWN_MODEL_TYPE, "model_type"),
    ROW(long_spec_key, VRAMEST_E_UNKNOWN_OPTION, "unknown key"),
    ROW(long_preset_name, VRAMEST_E_UNKNOWN_NAME, "preset"),
    ROW(long_option_name, VRAMEST_E_UNKNOWN_OPTION, "unknown option"),
    ROW(long_dtype_name, VRAMEST_E_UNKNOWN_NAME, "unknown dtype"),
    ROW(long_string_option, VRAMEST_E_RANGE, "lora_targets"),
    ROW(long_device_name, VRAMEST_E_UNKNOWN_NAME, "unknown GPU"),
    ROW(long_path, VRAMEST_E_IO, "cannot open"),
    ROW(oversized_spec, VRAMEST_E_LIMIT, "bytes"),
    GROUP(truncations),
    ROW(every_gguf_prefix, VRAMEST_OK, NULL),
    ROW(every_safetensors_prefix, VRAMEST_OK, NULL),
    ROW(every_config_prefix, VRAMEST_OK, NULL),
    GROUP(gguf),
    ROW(gguf_tensor_count_huge, VRAMEST_E_LIMIT, "tensor count"),
    ROW(gguf_kv_count_huge, VRAMEST_E_LIMIT, "metadata count"),
    ROW(gguf_string_length_huge, VRAMEST_E_LIMIT, "limit"),
    ROW(gguf_array_count_huge, VRAMEST_E_LIMIT, "limit"),
    ROW(gguf_five_dims, VRAMEST_E_PARSE, "dimensions"),
    ROW(gguf_dim_too_large, VRAMEST_E_LIMIT, "dimension"),
    ROW(gguf_dim_negative, VRAMEST_E_LIMIT, "negative"),
    ROW(gguf_elements_overflow, VRAMEST_E_OVERFLOW, "2^64"),
    ROW(gguf_4d_signed_product, VRAMEST_E_OVERFLOW, "2^63 elements"),
    ROW(gguf_zero_dim_signed_product, VRAMEST_E_OVERFLOW, "2^63 elements"),
    ROW(gguf_zero_dim_3d, VRAMEST_E_OVERFLOW, "2^63 elements"),
    ROW(gguf_unknown_type, VRAMEST_E_UNSUPPORTED, "ggml type 9999"),
    ROW(gguf_unknown_value_type, VRAMEST_E_PARSE, "unknown value type 13"),
    ROW(gguf_big_endian, VRAMEST_E_UNSUPPORTED, "big-endian"),
    ROW(gguf_wrong_magic, VRAMEST_E_PARSE, "magic"),
    ROW(gguf_offset_overflow, VRAMEST_E_OVERFLOW, "overflows"),
    GROUP(safetensors),
    ROW(st_len_max, VRAMEST_E_LIMIT, "limit"),
    ROW(st_len_past_limit, VRAMEST_E_LIMIT, "limit"),
    ROW(st_negative_dim, VRAMEST_E_PARSE, "negative"),
    ROW(st_elements_overflow, VRAMEST_E_OVERFLOW, "2^64"),
    ROW(st_4d_signed_product, VRAMEST_E_OVERFLOW, "2^63 elements"),
    ROW(st_zero_dim_signed_product, VRAMEST_E_OVERFLOW, "2^63 elements"),
    ROW(st_huge_tensor_estimate, VRAMEST_OK, NULL),
    ROW(st_offsets_huge, VRAMEST_E_OVERFLOW, "data offset"),
    ROW(st_offsets_reversed, VRAMEST_E_PARSE, "end before they begin"),
    ROW(st_overlap, VRAMEST_E_PARSE, "overlaps"),
    ROW(st_dup_name, VRAMEST_E_PARSE, "duplicate"),
    ROW(st_bad_utf8, VRAMEST_E_PARSE, "UTF-8"),
    ROW(st_nul_escape, VRAMEST_E_PARSE, "\\u0000"),
    ROW(st_unknown_dtype, VRAMEST_E_UNSUPPORTED, "F128"),
    ROW(index_path_escape, VRAMEST_E_PARSE, "plain file name"),
    ROW(index_total_negative, VRAMEST_E_PARSE, "negative"),
    GROUP(config_json),
    ROW(cfg_not_object, VRAMEST_E_PARSE, "must be an object"),
    ROW(cfg_empty, VRAMEST_E_PARSE, "config.json"),
    ROW(cfg_nul_inside, VRAMEST_E_PARSE, "config.json"),
    ROW(cfg_negative_hidden, VRAMEST_E_RANGE, "hidden_size"),
    ROW(cfg_hidden_1e30, VRAMEST_E_RANGE, "hidden_size"),
    ROW(cfg_heads_not_dividing, VRAMEST_E_INVALID_MODEL, "num_attention_heads"),
    ROW(cfg_unknown_model_type, VRAMEST_E_UNKNOWN_MODEL_TYPE, "skynet"),
    ROW(cfg_model_type_number, VRAMEST_E_TYPE, "model_type"),
    ROW(cfg_layers_string, VRAMEST_E_TYPE, "num_hidden_layers"),
    GROUP(job_specs),
    ROW(spec_array, VRAMEST_E_TYPE, "JSON object"),
    ROW(spec_null, VRAMEST_E_TYPE, "JSON object"),
    ROW(spec_trailing, VRAMEST_E_PARSE, "byte 18"),
    ROW(spec_nul, VRAMEST_E_PARSE, "byte 17"),
    ROW(spec_bad_utf8, VRAMEST_E_PARSE, "spec"),
    ROW(spec_dup_key, VRAMEST_E_PARSE, "duplicate key"),
    ROW(spec_nan, VRAMEST_E_TYPE, "batch_size"),
    ROW(spec_batch_1e999, VRAMEST_E_TYPE, "batch_size"),
    ROW(spec_batch_negative, VRAMEST_E_RANGE, "batch_size"),
    ROW(spec_gpus_huge, VRAMEST_E_RANGE, "gpus"),
    ROW(spec_memory_nan_string, VRAMEST_E_TYPE, "memory_gib"),
    ROW(spec_device_tiny_memory, VRAMEST_E_RANGE, "memory_gib 1e-10"),
    ROW(spec_tiny_memory, VRAMEST_E_RANGE, "below 0.25 GiB"),
    ROW(spec_device_file, VRAMEST_E_IO, "not a regular file"),
    ROW(spec_directory_as_config, VRAMEST_E_INVALID_ARG, "is a directory"),
    ROW(spec_missing_file, VRAMEST_E_IO, "nonexistent"),
    ROW(spec_two_sources, VRAMEST_E_CONFLICT, "exactly one source"),
    GROUP(wrong_handles_and_keys),
    ROW(wrong_config_as_model, VRAMEST_E_INVALID_ARG, "not a vramest_model"),
    ROW(wrong_model_as_config, VRAMEST_E_INVALID_ARG, "not a vramest_config"),
    ROW(wrong_result_as_precision, VRAMEST_E_INVALID_ARG, "not a vramest_precision"),
    ROW(wrong_precision_as_result, VRAMEST_E_INVALID_ARG, "not a vramest_result"),
    ROW(wrong_free_kind, VRAMEST_OK, NULL),
    ROW(wrong_key_handle, VRAMEST_E_WRONG_HANDLE, "batch_size"),
    ROW(wrong_key_precision, VRAMEST_E_WRONG_HANDLE, "model_type"),
    GROUP(unknown_enums_and_keys),
    ROW(enum_family_999, VRAMEST_E_RANGE, "model_type"),
    ROW(enum_optimizer_negative, VRAMEST_E_RANGE, "optimizer"),
    ROW(enum_dtype_int64_min, VRAMEST_E_RANGE, "weights"),
    ROW(key_sentinel, VRAMEST_E_UNKNOWN_OPTION, "unknown option key"),
    ROW(key_negative, VRAMEST_E_UNKNOWN_OPTION, "unknown option key -5"),
    ROW(parse_kind_99, VRAMEST_E_INVALID_ARG, "source kind 99"),
    ROW(parse_kind_negative, VRAMEST_E_INVALID_ARG, "source kind -1"),
    ROW(parse_file_kind_42, VRAMEST_E_INVALID_ARG, "source kind 42"),
    ROW(names_of_unknown_values, VRAMEST_OK, NULL),
    ROW(dtype_layout_unknown, VRAMEST_E_RANGE, "-7"),
    GROUP(indexes),
    ROW(r_get_dev, VRAMEST_E_UNKNOWN_CATEGORY, "unknown device 3"),
    ROW(r_get_dev_negative, VRAMEST_E_UNKNOWN_CATEGORY, "unknown device -1"),
    ROW(r_get_cat, VRAMEST_E_UNKNOWN_CATEGORY, "unknown category 12"),
    ROW(r_get_cat_max, VRAMEST_E_UNKNOWN_CATEGORY, "unknown category"),
    ROW(r_prov_cat_negative, VRAMEST_E_UNKNOWN_CATEGORY, "unknown category -2"),
    ROW(r_value_key, VRAMEST_E_UNKNOWN_CATEGORY, "unknown value 24"),
    ROW(r_value_key_negative, VRAMEST_E_UNKNOWN_CATEGORY, "unknown value -1"),
    ROW(r_value_band_count, VRAMEST_E_UNKNOWN_CATEGORY, "unknown value"),
    ROW(r_get_all_dev, VRAMEST_E_UNKNOWN_CATEGORY, "unknown device 7"),
    ROW(r_get_all_small, VRAMEST_E_BUFFER_TOO_SMALL, "capacity 1"),
    ROW(r_rank_index, VRAMEST_E_RANGE, "out of range"),
    ROW(r_warning_index, VRAMEST_OK, NULL),
    ROW(r_json_too_small, VRAMEST_E_BUFFER_TOO_SMALL, "vramest_result_json"),
    ROW(gpu_index, VRAMEST_E_RANGE, "out of range"),
    ROW(option_index, VRAMEST_E_RANGE, "out of range"),
    ROW(solve_unknown_key, VRAMEST_E_UNSUPPORTED, "solve"),
    ROW(min_gpus_zero, VRAMEST_E_RANGE, "max_gpus"),
    GROUP(files),
    ROW(parse_file_dev_zero, VRAMEST_E_IO, "not a regular file"),
    ROW(parse_file_proc, VRAMEST_E_PARSE, "status"),
};

#define N_CASES (sizeof cases / sizeof cases[0])

/* One Criterion worker per group rather than per row: under valgrind each
 * worker costs seconds of start-up. Every row of the group runs (cr_expect),
 * and its name is logged first, so a crash still names its row. */
static void run_group(const char *group)
{
    size_t i = 0, rows = 0;
    while (i < N_CASES && !(cases[i].run == NULL && strcmp(cases[i].name, group) == 0)) i++;
    cr_assert_lt(i, N_CASES, "no group %s", group);
    for (i++; i < N_CASES && cases[i].run; i++, rows++) {
        const hcase *c = &cases[i];
        cr_log_info("%s: %s", group, c->name);
        vramest_clear_error();
        int rc = c->run();
        cr_expect_eq(rc, c->expect, "%s: status %d (%s), expected %d (%s); message: %s", c->name, rc,
                     vramest_status_string(rc), c->expect, vramest_status_string(c->expect),
                     vramest_last_error_message());
        if (rc == c->expect && c->needle)
            cr_expect(strstr(vramest_last_error_message(), c->needle) != NULL, "%s: message '%s' lacks '%s'",
                      c->name, vramest_last_error_message(), c->needle);
    }
    cr_assert_gt(rows, 0);
}

Test(hostile, null_arguments) { run_group("null_arguments"); }
Test(hostile, doubles) { run_group("doubles"); }
Test(hostile, integers) { run_group("integers"); }
/* The two groups below build megabyte inputs; meson's test timeout (x20
 * under valgrind) bounds them, where a fixed per-test limit failed under
 * valgrind --track-origins on a loaded 2-core host (85 s of CPU, 5 min
 * of wall clock). */
Test(hostile, sizes_beyond_64_bits) { run_group("sizes_beyond_64_bits"); }
Test(hostile, nesting_and_long_strings) { run_group("nesting_and_long_strings"); }
Test(hostile, truncations) { run_group("truncations"); }
Test(hostile, gguf) { run_group("gguf"); }
Test(hostile, safetensors) { run_group("safetensors"); }
Test(hostile, config_json) { run_group("config_json"); }
Test(hostile, job_specs) { run_group("job_specs"); }
Test(hostile, wrong_handles_and_keys) { run_group("wrong_handles_and_keys"); }
Test(hostile, unknown_enums_and_keys) { run_group("unknown_enums_and_keys"); }
Test(hostile, indexes) { run_group("indexes"); }
Test(hostile, files) { run_group("files"); }

/* The table is the catalogue docs/security.md points at: keep it large, and
 * every group above must have a Test(). */
Test(hostile, catalogue)
{
    size_t rows = 0, groups = 0;
    for (size_t i = 0; i < N_CASES; i++) cases[i].run ? rows++ : groups++;
    cr_assert_geq(rows, 60);
    cr_assert_eq(groups, 14, "a new group needs its Test(hostile, ...)");
}
