/* The verdict and the plan (issue #20 items 2, 3, 5): headline bands hold
 * the estimate and come from the calibration of the job's kind; the
 * three-valued verdict against the capacity less the headroom; an engine
 * refusal is "does not fit" whatever the bytes; vramest_plan_json() answers
 * questions, names the fix of a job that does not fit (and the fix, applied,
 * gives what it promised), and writes what vramest_spec_plan() writes. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramest/vramest.h>

#include "estimate/estimate.h"
#include "result/result.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static vramest_model *preset(const char *name)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new_preset(name, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    return m;
}

static vramest_config *config(const char *mode, const char *device)
{
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, mode), VRAMEST_OK);
    if (device) cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, device), VRAMEST_OK);
    return c;
}

static vramest_precision *precision(const char *p)
{
    vramest_precision *h = NULL;
    cr_assert_eq(vramest_precision_new_preset(p, &h), VRAMEST_OK);
    return h;
}

static uint64_t value(const vramest_result *r, vramest_value v)
{
    uint64_t x = 0;
    cr_assert_eq(vramest_result_value(r, v, &x), VRAMEST_OK, "%s", vramest_last_error_message());
    return x;
}

/* The plan of handles, in a heap buffer the caller frees. */
static char *plan(const vramest_model *m, const vramest_precision *p, const vramest_config *c, int q,
                  vramest_option key)
{
    size_t need = 0;
    int rc = vramest_plan_json(m, p, c, q, key, NULL, 0, &need);
    cr_assert_eq(rc, VRAMEST_E_BUFFER_TOO_SMALL, "%d: %s", rc, vramest_last_error_message());
    char *buf = malloc(need);
    cr_assert_not_null(buf);
    cr_assert_eq(vramest_plan_json(m, p, c, q, key, buf, need, &need), VRAMEST_OK, "%s", vramest_last_error_message());
    return buf;
}

/* The unsigned number after `"key":` in a JSON text (first occurrence after `from`). */
static uint64_t number_after(const char *text, const char *from, const char *key)
{
    const char *p = from ? strstr(text, from) : text;
    cr_assert_not_null(p, "no %s in the plan", from);
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = strstr(p, pat);
    cr_assert_not_null(p, "no %s in the plan", key);
    return strtoull(p + strlen(pat), NULL, 10);
}

Test(verdict, bands_hold_the_estimate_and_follow_the_kind)
{
    vramest_model *m = preset("llama-2-7b");
    static const char *const modes[] = {"load", "infer", "train"};
    for (size_t i = 0; i < 3; i++) {
        vramest_config *c = config(modes[i], "A100-80GB");
        vramest_result *r = NULL;
        cr_assert_eq(vramest_estimate(m, NULL, c, &r), VRAMEST_OK, "%s", vramest_last_error_message());
        static const vramest_value heads[] = {VRAMEST_VAL_PEAK_ALLOCATED, VRAMEST_VAL_PEAK_RESERVED,
                                              VRAMEST_VAL_DEVICE_TOTAL};
        uint64_t lo[3], hi[3], v[3];
        for (size_t h = 0; h < 3; h++) {
            v[h] = value(r, heads[h]);
            cr_assert_eq(vramest_result_value_band(r, heads[h], &lo[h], &hi[h]), VRAMEST_OK);
            cr_assert(lo[h] <= v[h] && v[h] <= hi[h], "%s: %" PRIu64 " outside %" PRIu64 "..%" PRIu64, modes[i], v[h],
                      lo[h], hi[h]);
        }
        const vx_band_basis *b = vx_band_basis_of(vx_band_kind(&r->cfg));
        cr_assert_str_eq(b->kind, modes[i]);
        /* allocated: the calibration's ratios times the estimate */
        if (b->high > 1) cr_assert((double)hi[0] >= (double)v[0] * b->high - 1 && (double)hi[0] <= (double)v[0] * b->high + 1);
        /* reserved and device_total add the allocator's and the framework's
         * bands in quadrature (independent errors) */
        uint64_t alo, ahi, flo, fhi, ac, fc;
        vramest_result_get(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ALLOCATOR, &ac);
        vramest_result_get(r, VRAMEST_DEV_GPU, VRAMEST_CAT_FRAMEWORK, &fc);
        vramest_result_get_band(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ALLOCATOR, &alo, &ahi);
        vramest_result_get_band(r, VRAMEST_DEV_GPU, VRAMEST_CAT_FRAMEWORK, &flo, &fhi);
        double d0 = (double)(v[0] - lo[0]), u0 = (double)(hi[0] - v[0]);
        double da = (double)(ac - alo), ua = (double)(ahi - ac), df = (double)(fc - flo), uf = (double)(fhi - fc);
        cr_assert_eq(lo[1], v[1] - (uint64_t)ceil(sqrt(d0 * d0 + da * da)));
        cr_assert_eq(hi[1], v[1] + (uint64_t)ceil(sqrt(u0 * u0 + ua * ua)));
        cr_assert_eq(lo[2], v[2] - (uint64_t)ceil(sqrt(d0 * d0 + da * da + df * df)));
        cr_assert_eq(hi[2], v[2] + (uint64_t)ceil(sqrt(u0 * u0 + ua * ua + uf * uf)));
        cr_assert_lt(hi[2] - v[2], (hi[0] - v[0]) + (ahi - ac) + (fhi - fc) + 1, "narrower than worst on worst");
        /* training: the allocator's band is the measured fragmentation of the allocated bytes */
        if (b->frag_runs) cr_assert((double)ahi >= (double)v[0] * b->frag_high - 1, "%s", modes[i]);
        vramest_result_free(r);
        vramest_config_free(c);
    }
    vramest_model_free(m);
}

Test(verdict, three_values_and_the_headroom)
{
    vramest_model *m = preset("llama-2-7b");
    vramest_precision *p = precision("bf16");
    vramest_config *c = config("load", "RTX4090-24GB");
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_OK);
    cr_assert_eq(value(r, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_FITS);
    cr_assert_eq(value(r, VRAMEST_VAL_HEADROOM), 0);
    uint64_t t = value(r, VRAMEST_VAL_DEVICE_TOTAL), lo = 0, hi = 0;
    vramest_result_value_band(r, VRAMEST_VAL_DEVICE_TOTAL, &lo, &hi);
    vramest_result_free(r);

    /* A device between the band's ends: the estimate fits, the band does not. */
    double mid = ((double)t + (double)hi) / 2 / GIB;
    cr_assert_eq(vramest_config_set_f64(c, VRAMEST_CFG_MEMORY_GIB, mid), VRAMEST_OK);
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_OK);
    cr_assert_eq(value(r, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_FITS_LOW_END);
    cr_assert_eq(value(r, VRAMEST_VAL_FITS), 1);
    vramest_result_free(r);

    /* The headroom is taken off the capacity: the same job no longer fits. */
    cr_assert_eq(vramest_config_reset(c, VRAMEST_CFG_MEMORY_GIB), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_f64(c, VRAMEST_CFG_HEADROOM_GIB, 12), VRAMEST_OK);
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_OK);
    cr_assert_eq(value(r, VRAMEST_VAL_HEADROOM), 12ull << 30);
    cr_assert_eq(value(r, VRAMEST_VAL_FITS), 0);
    cr_assert_eq(value(r, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_DOES_NOT_FIT);
    int fits = -1;
    int64_t margin = 0;
    cr_assert_eq(vramest_check_fit(m, p, c, &fits, &margin), VRAMEST_OK);
    cr_assert_eq(fits, 0);
    cr_assert_eq(margin, (int64_t)value(r, VRAMEST_VAL_DEVICE_CAPACITY) - (12ll << 30) - (int64_t)t);
    vramest_result_free(r);

    /* A fraction adds to it; out of range is refused. */
    cr_assert_eq(vramest_config_set_f64(c, VRAMEST_CFG_HEADROOM_GIB, 0), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_f64(c, VRAMEST_CFG_HEADROOM_FRACTION, 0.25), VRAMEST_OK);
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_OK);
    cr_assert_eq(value(r, VRAMEST_VAL_HEADROOM), value(r, VRAMEST_VAL_DEVICE_CAPACITY) / 4);
    vramest_result_free(r);
    cr_assert_eq(vramest_config_set_f64(c, VRAMEST_CFG_HEADROOM_FRACTION, 0.95), VRAMEST_E_RANGE);
    cr_assert_eq(vramest_config_set_f64(c, VRAMEST_CFG_HEADROOM_GIB, -1), VRAMEST_E_RANGE);

    /* No device: no verdict. */
    vramest_config *nodev = config("load", NULL);
    cr_assert_eq(vramest_estimate(m, p, nodev, &r), VRAMEST_OK);
    uint64_t v;
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_VERDICT, &v), VRAMEST_E_UNSUPPORTED);
    vramest_result_free(r);
    vramest_config_free(nodev);
    vramest_config_free(c);
    vramest_precision_free(p);
    vramest_model_free(m);
}

Test(verdict, an_engine_refusal_does_not_fit_whatever_the_bytes)
{
    /* The hook issue #18 plugs into: an estimator calls vx_result_refuse. */
    vramest_model *m = preset("gpt2");
    vramest_config *c = config("infer", "H100-80GB");
    struct vramest_result r;
    cr_assert_eq(vx_estimate_into(m, NULL, c, &r), VRAMEST_OK);
    cr_assert_eq(r.val[VRAMEST_VAL_VERDICT], VRAMEST_VERDICT_FITS);
    vx_result_refuse(&r, "vLLM would not start: %s", "no memory left for the KV cache");
    vx_result_finish(&r);
    cr_assert_eq(r.val[VRAMEST_VAL_VERDICT], VRAMEST_VERDICT_DOES_NOT_FIT);
    cr_assert_eq(r.val[VRAMEST_VAL_FITS], 0);
    char buf[32768];
    size_t need = 0;
    cr_assert_eq(vramest_result_json(&r, buf, sizeof buf, &need), VRAMEST_OK);
    cr_assert(strstr(buf, "\"verdict\":\"does_not_fit\""), "%s", buf);
    cr_assert(strstr(buf, "\"refusal\":\"vLLM would not start: no memory left for the KV cache\""), "%s", buf);
    cr_assert(strstr(buf, "the engine refuses it: vLLM would not start"), "%s", buf);
    vramest_config_free(c);
    vramest_model_free(m);
}

Test(verdict, the_fix_gives_what_it_promises)
{
    vramest_model *m = preset("llama-2-7b");
    vramest_precision *p = precision("fp32");
    vramest_config *c = config("load", "RTX4090-24GB");
    char *text = plan(m, p, c, VRAMEST_ASK_NONE, (vramest_option)0);
    cr_assert(strstr(text, "\"verdict\":\"does_not_fit\""), "%s", text);
    cr_assert(strstr(text, "\"dominant\":[{\"category\":\"weights\""), "%s", text);
    cr_assert(strstr(text, "\"fix\":{\"change\":{\"precision\":\"bf16\"},\"text\":\"precision=bf16\""), "%s", text);
    uint64_t promised = number_after(text, "\"fix\":", "device_total");
    /* Apply the change: the figure is the fix's. */
    vramest_precision *bf16 = precision("bf16");
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(m, bf16, c, &r), VRAMEST_OK);
    cr_assert_eq(value(r, VRAMEST_VAL_DEVICE_TOTAL), promised);
    cr_assert_eq(value(r, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_FITS);
    /* vramest_result_json has the why, not the fix (it needs the model). */
    vramest_result *r32 = NULL;
    cr_assert_eq(vramest_estimate(m, p, c, &r32), VRAMEST_OK);
    char buf[32768];
    size_t need = 0;
    cr_assert_eq(vramest_result_json(r32, buf, sizeof buf, &need), VRAMEST_OK);
    cr_assert(strstr(buf, "\"why\":{") && !strstr(buf, "\"fix\":"), "%s", buf);
    /* A job that fits has no why. */
    char *fit = plan(m, bf16, c, VRAMEST_ASK_NONE, (vramest_option)0);
    cr_assert(strstr(fit, "\"verdict\":\"fits\"") && !strstr(fit, "\"why\":"), "%s", fit);
    free(fit);
    free(text);
    vramest_result_free(r);
    vramest_result_free(r32);
    vramest_precision_free(bf16);
    vramest_precision_free(p);
    vramest_config_free(c);
    vramest_model_free(m);
}

Test(verdict, plan_json_is_the_spec_plan)
{
    static const char spec[] = "{\"model\":\"gpt2\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"train\","
                               "\"seq_len\":512},\"device\":\"A100-80GB\",\"solve\":{\"max\":\"batch_size\"}}";
    size_t need = 0;
    cr_assert_eq(vramest_spec_plan(spec, strlen(spec), NULL, 0, &need), VRAMEST_E_BUFFER_TOO_SMALL);
    char *a = malloc(need);
    cr_assert_eq(vramest_spec_plan(spec, strlen(spec), a, need, &need), VRAMEST_OK);
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &c), VRAMEST_OK);
    char *b = plan(m, p, c, VRAMEST_ASK_MAX, VRAMEST_CFG_BATCH_SIZE);
    cr_assert_str_eq(a, b);
    /* The answer and its safe value: the safe value's band fits, value + 1's estimate does not. */
    uint64_t v = number_after(b, "\"solution\":", "value"), safe = number_after(b, "\"solution\":", "safe_value");
    cr_assert(safe >= 1 && safe <= v, "safe %" PRIu64 ", value %" PRIu64, safe, v);
    vramest_result *r = NULL;
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BATCH_SIZE, (int64_t)safe), VRAMEST_OK);
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_OK);
    cr_assert_eq(value(r, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_FITS);
    vramest_result_free(r);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BATCH_SIZE, (int64_t)safe + 1), VRAMEST_OK);
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_OK);
    cr_assert_neq(value(r, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_FITS);
    vramest_result_free(r);
    free(a);
    free(b);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}

Test(verdict, plan_json_questions_and_bad_input)
{
    vramest_model *m = preset("llama-2-13b");
    vramest_config *c = config("infer", "RTX3060-12GB");
    char buf[64];
    size_t need = 0;
    cr_assert_eq(vramest_plan_json(NULL, NULL, c, VRAMEST_ASK_NONE, 0, buf, sizeof buf, &need), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_plan_json(m, NULL, c, VRAMEST_ASK_NONE, 0, NULL, 8, &need), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_plan_json(m, NULL, c, 99, 0, buf, sizeof buf, &need), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_plan_json(m, NULL, c, VRAMEST_ASK_MIN, VRAMEST_CFG_BATCH_SIZE, buf, sizeof buf, &need),
                 VRAMEST_E_UNSUPPORTED);
    cr_assert_eq(vramest_plan_json(m, NULL, c, VRAMEST_ASK_MAX, VRAMEST_CFG_ZERO_STAGE, NULL, 0, &need),
                 VRAMEST_E_UNSUPPORTED);
    cr_assert_eq(vramest_plan_json(m, NULL, c, VRAMEST_ASK_MAX, (vramest_option)424242, NULL, 0, &need),
                 VRAMEST_E_UNKNOWN_OPTION);
    /* llama.cpp: the layers that fit a 12 GB card, at most every layer and the output layer. */
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_FRAMEWORK, "llama.cpp"), VRAMEST_OK);
    int64_t layers = 0;
    cr_assert_eq(vramest_solve_max(m, NULL, c, VRAMEST_CFG_N_GPU_LAYERS, &layers, NULL), VRAMEST_OK,
                 "%s", vramest_last_error_message());
    cr_assert(layers >= 1 && layers < 41, "n_gpu_layers %lld", (long long)layers);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "B200-180GB"), VRAMEST_OK);
    cr_assert_eq(vramest_solve_max(m, NULL, c, VRAMEST_CFG_N_GPU_LAYERS, &layers, NULL), VRAMEST_OK);
    cr_assert_eq(layers, 41); /* 40 layers + the output layer: llama.cpp's "all" */
    /* The smallest GPU count, as a plan at the answer. */
    vramest_config *t = config("infer", "RTX4090-24GB");
    char *text = plan(m, NULL, t, VRAMEST_ASK_MIN, VRAMEST_CFG_GPUS);
    uint64_t g = number_after(text, "\"solution\":", "value");
    cr_assert(g >= 2, "%s", text);
    cr_assert(strstr(text, "\"key\":\"gpus\""), "%s", text);
    free(text);
    vramest_config_free(t);
    vramest_config_free(c);
    vramest_model_free(m);
}
