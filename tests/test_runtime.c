/* The runtime table (lib/runtime/runtime.c): every framework has its row,
 * the rules apply by version, and the config keeps the runtime of its
 * framework current, so estimates copy what the table resolves. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimate.h"
#include "runtime/gpus.h"
#include "runtime/version.h"

Test(runtime, every_framework_name_has_its_row)
{
    size_t n = 0;
    for (const vx_enum_name *e = vx_framework_enum; e->name; e++, n++) {
        vx_runtime rt;
        vx_runtime_resolve((int)e->value, NULL, &rt);
        cr_assert_eq(rt.framework, e->value, "%s resolves to the row of framework %d", e->name, rt.framework);
    }
    cr_assert_eq(n, VX_FW_COUNT_, "%zu names for %d frameworks", n, VX_FW_COUNT_);
}

Test(runtime, rows_differ_where_the_frameworks_do)
{
    vx_runtime pt, hf, ds, mg, vl, lc;
    vx_runtime_resolve(VX_FW_PYTORCH, NULL, &pt);
    vx_runtime_resolve(VX_FW_HF_TRAINER, NULL, &hf);
    vx_runtime_resolve(VX_FW_DEEPSPEED, NULL, &ds);
    vx_runtime_resolve(VX_FW_MEGATRON, NULL, &mg);
    vx_runtime_resolve(VX_FW_VLLM, NULL, &vl);
    vx_runtime_resolve(VX_FW_LLAMA_CPP, NULL, &lc);
    cr_assert(pt.logits_held && !hf.logits_held, "a plain loop keeps the logits, Trainer drops them");
    cr_assert(hf.opt_decay_groups && !pt.opt_decay_groups);
    cr_assert(ds.opt_fused && mg.opt_fused && !pt.opt_fused);
    cr_assert_eq(ds.ddp, VX_DDP_DEEPSPEED);
    cr_assert_eq(mg.ddp, VX_DDP_MEGATRON);
    cr_assert_eq(pt.ddp, VX_DDP_TORCH);
    cr_assert_eq(mg.zero, VX_ZERO_MEGATRON);
    cr_assert_eq(pt.zero, VX_ZERO_DEEPSPEED, "zero_stage with a plain loop is DeepSpeed's (accelerate)");
    cr_assert_eq(mg.vocab_pad, 128);
    cr_assert_eq(vl.vocab_pad, 64);
    cr_assert_eq(pt.vocab_pad, 0);
    cr_assert_eq(vl.engine, VX_ENGINE_VLLM);
    cr_assert_eq(lc.engine, VX_ENGINE_LLAMACPP);
    cr_assert_eq(pt.engine, VX_ENGINE_HF);
    cr_assert(lc.ggml_alloc && !vl.ggml_alloc);
}

Test(runtime, version_rules_apply_in_their_ranges)
{
    vx_runtime d, v444, v445, v448, v449, t113;
    vx_runtime_resolve(VX_FW_PYTORCH, NULL, &d);
    cr_assert_eq(d.torch, vx_torch_versions.current);
    cr_assert_eq(d.transformers, vx_transformers_versions.current);
    cr_assert_eq(d.defaulted, VX_RTV_TORCH | VX_RTV_TRANSFORMERS, "pytorch has no version of its own");
    /* the defaults are current releases: none of the old code paths */
    cr_assert(!d.hf_legacy && !d.model_logits_upcast && !d.shift_copy && !d.repeat_kv && !d.torch1_mean &&
              !d.tuple_cache && d.gen_logits_to_keep);
    vx_runtime_resolve(VX_FW_PYTORCH, &(vx_runtime_versions){.transformers = VX_VER(4, 44, 2)}, &v444);
    cr_assert(v444.hf_legacy && v444.model_logits_upcast && v444.shift_copy && v444.repeat_kv && v444.tuple_cache &&
              !v444.gen_logits_to_keep);
    cr_assert_eq(v444.defaulted, VX_RTV_TORCH);
    vx_runtime_resolve(VX_FW_PYTORCH, &(vx_runtime_versions){.transformers = VX_VER(4, 45, 0)}, &v445);
    cr_assert(!v445.hf_legacy && v445.model_logits_upcast && v445.shift_copy && v445.gen_logits_to_keep,
              "4.45 still upcast in LlamaForCausalLM and copied the shifted logits");
    vx_runtime_resolve(VX_FW_PYTORCH, &(vx_runtime_versions){.transformers = VX_VER(4, 48, 1)}, &v448);
    cr_assert(!v448.model_logits_upcast && v448.shift_copy && !v448.repeat_kv);
    vx_runtime_resolve(VX_FW_PYTORCH, &(vx_runtime_versions){.transformers = VX_VER(4, 49, 0)}, &v449);
    cr_assert(!v449.shift_copy, "4.49 pads and shifts the labels instead");
    vx_runtime_resolve(VX_FW_HF_TRAINER, &(vx_runtime_versions){.torch = VX_VER(1, 13, 0)}, &t113);
    cr_assert(t113.torch1_mean && t113.opt_decay_groups, "a version rule keeps the framework's row");
    cr_assert_eq(t113.torch, VX_VER(1, 13, 0));
}

Test(runtime, frameworks_name_their_versions)
{
    for (int f = 0; f < VX_FW_COUNT_; f++) {
        const vx_version_info *vi = vx_framework_versions(f);
        cr_assert(vi && vi->name, "framework %d has version info", f);
        if (!vi->forms) {
            cr_assert(vi->own, "%s says which option versions it", vi->name);
            continue;
        }
        cr_assert(vi->oldest > 0 && vi->oldest <= vi->newest && vi->current == vi->newest && vi->since,
                  "%s: a range and a current release", vi->name);
        vx_runtime rt;
        vx_runtime_resolve(f, NULL, &rt);
        cr_assert_eq(rt.framework_version, vi->current);
        cr_assert(rt.defaulted & VX_RTV_FRAMEWORK);
    }
    cr_assert_null(vx_framework_versions(VX_FW_COUNT_));
    cr_assert_null(vx_framework_versions(-1));
}

Test(runtime, the_config_keeps_its_runtime_current)
{
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    vx_runtime buf;
    cr_assert_eq(vx_config_runtime(c, &buf), &c->rt, "a fresh config carries its runtime");
    cr_assert_eq(c->rt.framework, VX_FW_PYTORCH);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_FRAMEWORK, "megatron"), VRAMEST_OK);
    cr_assert_eq(vx_config_runtime(c, &buf), &c->rt);
    cr_assert(c->rt.megatron_layer);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_FRAMEWORK, VX_FW_VLLM), VRAMEST_OK);
    cr_assert_eq(c->rt.engine, VX_ENGINE_VLLM);
    cr_assert_eq(vramest_config_reset(c, VRAMEST_CFG_FRAMEWORK), VRAMEST_OK);
    cr_assert_eq(c->rt.framework, VX_FW_PYTORCH);
    /* values written directly (white-box callers) resolve afresh */
    c->v.framework = VX_FW_DEEPSPEED;
    const vx_runtime *rt = vx_config_runtime(c, &buf);
    cr_assert_eq(rt, &buf);
    cr_assert(rt->opt_fused && rt->framework == VX_FW_DEEPSPEED);
    vramest_config_free(c);
}

/* ---- versions (issue #17): forms, ranges, bad input ---- */

Test(versions, forms_parse_to_comparable_values)
{
    static const struct {
        const char *s;
        int forms, want; /* want 0: refused */
    } cases[] = {
        {"2.9", VX_VS_RELEASE, VX_VER(2, 9, 0)},
        {"4.44.2", VX_VS_RELEASE, VX_VER(4, 44, 2)},
        {"v0.6.1", VX_VS_RELEASE, VX_VER(0, 6, 1)},
        {"1.13.0a0", VX_VS_RELEASE, VX_VER(1, 13, 0)},
        {"2.5.0.dev20240907", VX_VS_RELEASE, VX_VER(2, 5, 0)},
        {"4.46.0.dev0", VX_VS_RELEASE, VX_VER(4, 46, 0)},
        {"2.4.0+cu121", VX_VS_RELEASE, VX_VER(2, 4, 0)},
        {"0.19.0rc1", VX_VS_RELEASE, VX_VER(0, 19, 0)},
        {"2026.8.19", VX_VS_RELEASE | VX_VS_DATE, VX_VER(2026, 8, 19)},
        {"2026-08", VX_VS_RELEASE | VX_VS_DATE, VX_VER(2026, 8, 0)},
        {"2024-06-30", VX_VS_DATE, VX_VER(2024, 6, 30)},
        {"b4823", VX_VS_BUILD, 4823},
        {"b10488", VX_VS_BUILD, 10488},
        /* refused */
        {"", VX_VS_RELEASE, 0},
        {"2", VX_VS_RELEASE, 0},
        {"2.", VX_VS_RELEASE, 0},
        {".9", VX_VS_RELEASE, 0},
        {"-2.4", VX_VS_RELEASE, 0},
        {"2.4.5.6", VX_VS_RELEASE, 0},
        {"2.4 ", VX_VS_RELEASE, 0},
        {"2.4;rm", VX_VS_RELEASE, 0},
        {"2.1000", VX_VS_RELEASE, 0},
        {"99999999999999999999.1", VX_VS_RELEASE, 0},
        {"latest", VX_VS_RELEASE | VX_VS_BUILD | VX_VS_DATE, 0},
        {"b4823", VX_VS_RELEASE, 0},
        {"4823", VX_VS_BUILD, 0},
        {"b", VX_VS_BUILD, 0},
        {"b12x", VX_VS_BUILD, 0},
        {"2.9", VX_VS_BUILD, 0},
        {"2024-13", VX_VS_DATE, 0},
        {"2024-6", VX_VS_DATE, 0},
        {"2024-06-32", VX_VS_DATE, 0},
        {"24-06", VX_VS_DATE, 0},
    };
    for (size_t i = 0; i < VX_ARRAY_LEN(cases); i++) {
        int v = -1;
        int rc = vx_version_parse(cases[i].s, cases[i].forms, &v, NULL);
        if (cases[i].want)
            cr_assert(!rc && v == cases[i].want, "'%s' -> %d (want %d)", cases[i].s, v, cases[i].want);
        else
            cr_assert(rc, "'%s' must be refused (got %d)", cases[i].s, v);
    }
    cr_assert(vx_version_parse(NULL, VX_VS_RELEASE, &(int){0}, NULL));
    char buf[24];
    vx_version_format(VX_VER(2, 13, 0), VX_VS_RELEASE, buf, sizeof buf);
    cr_assert_str_eq(buf, "2.13");
    vx_version_format(VX_VER(0, 19, 5), VX_VS_RELEASE, buf, sizeof buf);
    cr_assert_str_eq(buf, "0.19.5");
    vx_version_format(10488, VX_VS_BUILD, buf, sizeof buf);
    cr_assert_str_eq(buf, "b10488");
    vx_version_format(VX_VER(2026, 8, 0), VX_VS_DATE, buf, sizeof buf);
    cr_assert_str_eq(buf, "2026-08");
}

/* The formatter writes digits itself (every estimate echoes versions):
 * it must write what printf writes, truncation to the buffer included. */
Test(runtime, version_format_writes_what_printf_writes)
{
    static const int forms[] = {VX_VS_RELEASE, VX_VS_BUILD, VX_VS_DATE};
    static const int parts[] = {0, 1, 5, 9, 10, 99, 100, 999};
    static const int majors[] = {0, 1, 9, 10, 99, 100, 999, 1000, 1990, 2026, 2146};
    static const size_t caps[] = {1, 2, 4, 7, 24};
    char got[24], want[24];
    int n = 0;
    for (size_t f = 0; f < VX_ARRAY_LEN(forms); f++)
        for (size_t a = 0; a < VX_ARRAY_LEN(majors); a++)
            for (size_t b = 0; b < VX_ARRAY_LEN(parts); b++)
                for (size_t c = 0; c < VX_ARRAY_LEN(parts); c++)
                    for (size_t k = 0; k < VX_ARRAY_LEN(caps); k++) {
                        int v = VX_VER(majors[a], parts[b], parts[c]), form = forms[f];
                        size_t cap = caps[k];
                        if (form == VX_VS_BUILD)
                            snprintf(want, cap, "b%d", v);
                        else if (form == VX_VS_DATE && VX_VER_PATCH(v))
                            snprintf(want, cap, "%04d-%02d-%02d", VX_VER_MAJOR(v), VX_VER_MINOR(v), VX_VER_PATCH(v));
                        else if (form == VX_VS_DATE)
                            snprintf(want, cap, "%04d-%02d", VX_VER_MAJOR(v), VX_VER_MINOR(v));
                        else if (VX_VER_PATCH(v))
                            snprintf(want, cap, "%d.%d.%d", VX_VER_MAJOR(v), VX_VER_MINOR(v), VX_VER_PATCH(v));
                        else
                            snprintf(want, cap, "%d.%d", VX_VER_MAJOR(v), VX_VER_MINOR(v));
                        memset(got, 'x', sizeof got);
                        vx_version_format(v, form, got, cap);
                        cr_assert_str_eq(got, want, "version %d form %d cap %zu", v, form, cap);
                        n++;
                    }
    vx_version_format(VX_VER_MAX, VX_VS_BUILD, got, sizeof got);
    cr_assert_str_eq(got, "b2146999999");
    vx_version_format(-7, VX_VS_RELEASE, got, sizeof got);
    cr_assert_str_eq(got, "-7");
    cr_assert_eq(n, 3 * 11 * 8 * 8 * 5);
}

/* Notes copy %s and %d in runs themselves (result/resolved_json.c): what
 * they write must be what vsnprintf writes, truncation included. */
Test(runtime, notes_write_what_printf_writes)
{
    struct vramest_result *r = calloc(1, sizeof *r);
    cr_assert(r);
    char want[VX_WARN_LEN], longs[400];
    memset(longs, 'y', sizeof longs - 1);
    longs[sizeof longs - 1] = 0;
    const char *strs[] = {"", "vllm", longs + 250, longs};
    const int ints[] = {0, 7, 42, 2147483647, -3};
    for (size_t i = 0; i < VX_ARRAY_LEN(strs); i++)
        for (size_t k = 0; k < VX_ARRAY_LEN(ints); k++) {
            r->rrt.n_notes = 0;
            vx_result_note(r, "fsdp_version: FSDP%d, %s's default", ints[k], strs[i]);
            snprintf(want, sizeof want, "fsdp_version: FSDP%d, %s's default", ints[k], strs[i]);
            cr_assert_str_eq(r->rrt.notes[0], want);
            vx_result_note(r, "%s%d%s", strs[i], ints[k], strs[i]);
            snprintf(want, sizeof want, "%s%d%s", strs[i], ints[k], strs[i]);
            cr_assert_str_eq(r->rrt.notes[1], want);
            vx_result_note(r, "%d%% of %s and %.1f", ints[k], strs[i], 2.5); /* the vsnprintf way */
            snprintf(want, sizeof want, "%d%% of %s and %.1f", ints[k], strs[i], 2.5);
            cr_assert_str_eq(r->rrt.notes[2], want);
            vx_result_note(r, "%s", longs);
            cr_assert_eq(strlen(r->rrt.notes[3]), VX_WARN_LEN - 1);
            vx_result_note(r, "no conversion");
            cr_assert_str_eq(r->rrt.notes[4], "no conversion");
            cr_assert_eq(r->rrt.n_notes, 5);
        }
    r->rrt.n_notes = VX_MAX_NOTES;
    vx_result_note(r, "%s", "dropped");
    cr_assert_eq(r->rrt.n_notes, VX_MAX_NOTES);
    free(r);
}

static void expect_set(vramest_config *c, vramest_option key, const char *value, int want, const char *msg)
{
    int rc = vramest_config_set_str(c, key, value);
    cr_assert_eq(rc, want, "'%s': rc %d, want %d (%s)", value, rc, want, vramest_last_error_message());
    if (msg) cr_assert(strstr(vramest_last_error_message(), msg), "'%s': %s", value, vramest_last_error_message());
}

Test(versions, torch_and_transformers_are_checked_when_set)
{
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    expect_set(c, VRAMEST_CFG_TORCH_VERSION, "two.four", VRAMEST_E_PARSE, "1.8 to 2.13");
    expect_set(c, VRAMEST_CFG_TORCH_VERSION, "1.4", VRAMEST_E_RANGE, "older than the modelled range 1.8 to 2.13");
    expect_set(c, VRAMEST_CFG_TRANSFORMERS_VERSION, "3.5", VRAMEST_E_RANGE, "4.0 to 5.15");
    expect_set(c, VRAMEST_CFG_TRANSFORMERS_VERSION, "b4823", VRAMEST_E_PARSE, "transformers");
    /* a refused value leaves the old one */
    const char *got;
    cr_assert_eq(vramest_config_get_str(c, VRAMEST_CFG_TORCH_VERSION, &got), VRAMEST_OK);
    cr_assert_str_eq(got, "");
    expect_set(c, VRAMEST_CFG_TORCH_VERSION, "1.13.0a0", VRAMEST_OK, NULL);
    expect_set(c, VRAMEST_CFG_TRANSFORMERS_VERSION, "4.44", VRAMEST_OK, NULL);
    vx_runtime buf;
    const vx_runtime *rt = vx_config_runtime(c, &buf);
    cr_assert_eq(rt, &c->rt, "the setters keep the runtime current");
    cr_assert(rt->torch1_mean && rt->shift_copy && rt->torch == VX_VER(1, 13, 0));
    cr_assert_eq(rt->defaulted, 0);
    cr_assert_eq(vramest_config_reset(c, VRAMEST_CFG_TRANSFORMERS_VERSION), VRAMEST_OK);
    rt = vx_config_runtime(c, &buf);
    cr_assert_eq(rt, &c->rt);
    cr_assert(!rt->shift_copy && rt->transformers == vx_transformers_versions.current);
    cr_assert_eq(rt->defaulted, VX_RTV_TRANSFORMERS);
    /* values written directly are resolved afresh */
    strcpy(c->v.transformers_version, "4.40");
    c->v.transformers_v = VX_VER(4, 40, 0);
    rt = vx_config_runtime(c, &buf);
    cr_assert(rt == &buf && rt->shift_copy);
    vramest_config_free(c);
}

/* Estimate a spec; returns the rc and leaves the result in *out (or NULL). */
static int estimate_spec(const char *spec, vramest_result **out)
{
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    *out = NULL;
    int rc = vramest_spec_parse(spec, strlen(spec), &m, &p, &c);
    if (!rc) rc = vramest_estimate(m, p, c, out);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    return rc;
}

static int has_warning(const vramest_result *r, const char *needle)
{
    for (uint32_t i = 0; i < r->n_warn; i++)
        if (strstr(r->warn[i], needle)) return 1;
    return 0;
}

Test(versions, framework_version_follows_the_framework)
{
    static const struct {
        const char *fw, *ver;
        int want;
        const char *msg;
    } cases[] = {
        {"llama.cpp", "b4823", VRAMEST_OK, NULL},
        {"deepspeed", "0.14.4", VRAMEST_OK, NULL},
        {"megatron", "v0.12.0", VRAMEST_OK, NULL},
        {"vllm", "0.6.3.post1", VRAMEST_OK, NULL},
        {"llama.cpp", "0.2", VRAMEST_E_PARSE, "a build such as b4823"},
        {"deepspeed", "b4823", VRAMEST_E_PARSE, "DeepSpeed"},
        {"deepspeed", "0.3.0", VRAMEST_E_RANGE, "0.6 to 0.19.5"},
        {"pytorch", "2.4", VRAMEST_E_CONFLICT, "set torch_version"},
        {"hf_trainer", "4.44", VRAMEST_E_CONFLICT, "set transformers_version"},
    };
    for (size_t i = 0; i < VX_ARRAY_LEN(cases); i++) {
        char spec[512];
        /* framework_version first: the check waits for the framework */
        snprintf(spec, sizeof spec,
                 "{\"model\":\"llama-2-7b\",\"precision\":\"%s\",\"workload\":{\"mode\":\"load\"},"
                 "\"runtime\":{\"framework_version\":\"%s\",\"framework\":\"%s\"}}",
                 strcmp(cases[i].fw, "llama.cpp") ? "fp16" : "q4_0", cases[i].ver, cases[i].fw);
        vramest_result *r;
        int rc = estimate_spec(spec, &r);
        cr_assert_eq(rc, cases[i].want, "%s %s: rc %d (%s)", cases[i].fw, cases[i].ver, rc,
                     vramest_last_error_message());
        if (cases[i].msg)
            cr_assert(strstr(vramest_last_error_message(), cases[i].msg), "%s", vramest_last_error_message());
        vramest_result_free(r);
    }
    /* not a version in any form: refused when set */
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    expect_set(c, VRAMEST_CFG_FRAMEWORK_VERSION, "nightly", VRAMEST_E_PARSE, "not a version");
    vramest_config_free(c);
}

Test(versions, newer_than_known_is_estimated_with_the_newest_rules_and_a_warning)
{
    vramest_result *r, *base;
    cr_assert_eq(estimate_spec("{\"model\":\"llama-2-7b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\"},"
                               "\"runtime\":{\"torch_version\":\"2.20\",\"transformers_version\":\"6.1\"}}",
                               &r),
                 VRAMEST_OK);
    cr_assert_eq(estimate_spec("{\"model\":\"llama-2-7b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\"}}",
                               &base),
                 VRAMEST_OK);
    cr_assert(has_warning(r, "torch 2.20 is newer than the newest release libvramest knows (2.13"));
    cr_assert(has_warning(r, "transformers 6.1 is newer"));
    cr_assert(!has_warning(base, "newer"), "the defaults are known releases");
    cr_assert_eq(r->val[VRAMEST_VAL_PEAK_ALLOCATED], base->val[VRAMEST_VAL_PEAK_ALLOCATED]);
    vramest_result_free(r);
    vramest_result_free(base);
    cr_assert_eq(estimate_spec("{\"model\":\"llama-2-7b\",\"precision\":\"q4_0\",\"workload\":{\"mode\":\"load\"},"
                               "\"runtime\":{\"framework\":\"llama.cpp\",\"framework_version\":\"b99999\"}}",
                               &r),
                 VRAMEST_OK);
    cr_assert(has_warning(r, "llama.cpp b99999 is newer"));
    vramest_result_free(r);
}

Test(versions, the_version_moves_the_estimate_and_the_caches_keep_them_apart)
{
    /* one model handle, so the compiled-program cache is shared */
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new_preset("llama-3-8b", &m), VRAMEST_OK);
    uint64_t peak[2][2];
    for (int pass = 0; pass < 2; pass++)
        for (int old = 0; old < 2; old++) {
            vramest_config *c = NULL;
            vramest_result *r = NULL;
            cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
            cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, "train"), VRAMEST_OK);
            /* forward + backward only: the peak is at the loss */
            cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_OPTIMIZER, "none"), VRAMEST_OK);
            cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_TRANSFORMERS_VERSION, old ? "4.44" : ""), VRAMEST_OK);
            cr_assert_eq(vramest_estimate(m, NULL, c, &r), VRAMEST_OK);
            peak[pass][old] = r->val[VRAMEST_VAL_PEAK_ALLOCATED];
            vramest_result_free(r);
            vramest_config_free(c);
        }
    /* transformers 4.44: fp32 logits in the model and their shifted copy */
    cr_assert_gt(peak[0][1], peak[0][0]);
    cr_assert_eq(peak[1][0], peak[0][0]);
    cr_assert_eq(peak[1][1], peak[0][1]);
    vramest_model_free(m);
}

/* ---- training settings and frameworks (issue #17 R2/R3) ---- */

static uint64_t train_peak(const char *fw, const char *workload_extra, const char *runtime_extra, int *rc)
{
    char spec[1024];
    snprintf(spec, sizeof spec,
             "{\"model\":\"llama-3-8b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"train\",\"batch_size\":2,"
             "\"seq_len\":2048,\"optimizer\":\"none\",\"finetune\":\"lora\"%s},"
             "\"runtime\":{\"framework\":\"%s\"%s}}",
             workload_extra, fw, runtime_extra);
    vramest_result *r;
    *rc = estimate_spec(spec, &r);
    uint64_t p = r ? r->val[VRAMEST_VAL_PEAK_ALLOCATED] : 0;
    vramest_result_free(r);
    return p;
}

Test(training, settings_a_framework_cannot_run_are_refused)
{
    static const struct {
        const char *fw, *w, *msg;
    } bad[] = {
        {"hf_trainer", ",\"loss\":\"chunked\"", "fused_linear"},
        {"torchtune", ",\"loss\":\"fused_linear\"", "runs cross_entropy, chunked"},
        {"megatron", ",\"loss\":\"sum\"", "runs cross_entropy"},
        {"unsloth", ",\"loss\":\"chunked\"", "runs fused_linear"},
        {"hf_trainer", ",\"gradient_checkpointing\":\"ops\"", "op-level"},
        {"pytorch", ",\"activation_offloading\":true", "does not offload"},
        {"pytorch", ",\"checkpoint_every\":2", "needs gradient_checkpointing full"},
    };
    for (size_t i = 0; i < VX_ARRAY_LEN(bad); i++) {
        int rc;
        train_peak(bad[i].fw, bad[i].w, "", &rc);
        cr_assert_eq(rc, VRAMEST_E_CONFLICT, "%s %s: rc %d (%s)", bad[i].fw, bad[i].w, rc, vramest_last_error_message());
        cr_assert(strstr(vramest_last_error_message(), bad[i].msg), "%s", vramest_last_error_message());
    }
}

Test(training, the_loss_path_sets_the_head)
{
    int rc;
    uint64_t ce = train_peak("pytorch", "", "", &rc);
    cr_assert_eq(rc, VRAMEST_OK);
    uint64_t fused = train_peak("pytorch", ",\"loss\":\"fused_linear\"", "", &rc);
    uint64_t eager = train_peak("torchtune", ",\"loss\":\"chunked\"", "", &rc);
    uint64_t comp = train_peak("torchtune", ",\"loss\":\"chunked\"", ",\"compile\":true", &rc);
    uint64_t tt_ce = train_peak("torchtune", "", "", &rc);
    uint64_t unsl = train_peak("unsloth", "", "", &rc);
    cr_assert_eq(rc, VRAMEST_OK, "unsloth with the default loss runs its fused one: %s", vramest_last_error_message());
    /* 2 x 2048 x 128256 logits: bf16 0.98 GiB, fp32 1.96 GiB */
    uint64_t nv = 2ull * 2048 * 128256;
    cr_assert_lt(fused + nv * 4, ce, "fused_linear never materializes the logits");
    cr_assert_lt(comp + nv * 3, eager, "compiled chunks keep no fp32 log-probabilities");
    cr_assert_lt(comp, tt_ce, "compiled chunking beats torchtune's plain bf16 cross-entropy");
    cr_assert_eq(unsl, fused, "unsloth's default loss is the fused one");
}

static uint64_t titan_peak(const char *w, const char *par, uint64_t *host)
{
    char spec[1024];
    snprintf(spec, sizeof spec,
             "{\"model\":\"llama-3-8b\",\"precision\":\"amp_bf16\",\"workload\":{\"mode\":\"train\",\"batch_size\":1,"
             "\"seq_len\":4096%s},\"parallel\":{\"gpus\":8,\"fsdp\":\"full_shard\"%s},"
             "\"runtime\":{\"framework\":\"torchtitan\"}}",
             w, par);
    vramest_result *r;
    cr_assert_eq(estimate_spec(spec, &r), VRAMEST_OK, "%s: %s", spec, vramest_last_error_message());
    uint64_t p = r->val[VRAMEST_VAL_PEAK_ALLOCATED];
    if (host) *host = r->cat[VRAMEST_DEV_HOST][VRAMEST_CAT_ACTIVATIONS];
    vramest_result_free(r);
    return p;
}

Test(training, checkpointing_modes_order_by_what_they_keep)
{
    uint64_t none = titan_peak(",\"gradient_checkpointing\":\"none\"", "", NULL);
    uint64_t ops = titan_peak(",\"gradient_checkpointing\":\"ops\"", "", NULL);
    uint64_t every2 = titan_peak(",\"gradient_checkpointing\":\"full\",\"checkpoint_every\":2", "", NULL);
    uint64_t full = titan_peak(",\"gradient_checkpointing\":\"full\"", "", NULL);
    cr_assert(full < ops && ops < none, "full %llu < ops %llu < none %llu", (unsigned long long)full,
              (unsigned long long)ops, (unsigned long long)none);
    cr_assert(full < every2 && every2 < none);
    /* op-level SAC keeps A.N.(2.a.d + kv.d + ffn + h) + lse beside each layer's input:
     * 32 layers x 2 x 4096 x (8192 + 1024 + 14336 + 4096) = 6.75 GiB more than full */
    uint64_t want = 32ull * (2ull * 4096 * (8192 + 1024 + 14336 + 4096) + 4ull * 32 * 4096);
    int64_t d = (int64_t)(ops - full) - (int64_t)want;
    cr_assert(d > -(int64_t)(want / 10) && d < (int64_t)(want / 10), "ops - full = %llu, want ~%llu",
              (unsigned long long)(ops - full), (unsigned long long)want);
}

Test(training, fsdp2_gathers_in_the_compute_dtype)
{
    uint64_t v1 = titan_peak(",\"gradient_checkpointing\":\"full\"", ",\"fsdp_version\":1", NULL);
    uint64_t v2 = titan_peak(",\"gradient_checkpointing\":\"full\"", ",\"fsdp_version\":2", NULL);
    uint64_t dflt = titan_peak(",\"gradient_checkpointing\":\"full\"", "", NULL);
    cr_assert_eq(dflt, v2, "torchtitan's FSDP is FSDP2");
    cr_assert_lt(v2, v1, "bf16 all-gathers instead of FSDP1's fp32 flat parameters");
}

Test(training, offloaded_activations_leave_one_layer_on_the_gpu)
{
    char base[] = "{\"model\":\"llama-3-8b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"train\",\"batch_size\":2,"
                  "\"seq_len\":4096,\"finetune\":\"lora\",\"gradient_checkpointing\":\"full\",\"loss\":\"chunked\","
                  "\"activation_offloading\":%s},\"runtime\":{\"framework\":\"torchtune\"}}";
    char spec[512];
    vramest_result *on, *off;
    snprintf(spec, sizeof spec, base, "true");
    cr_assert_eq(estimate_spec(spec, &on), VRAMEST_OK, "%s", vramest_last_error_message());
    snprintf(spec, sizeof spec, base, "false");
    cr_assert_eq(estimate_spec(spec, &off), VRAMEST_OK);
    /* 32 checkpointed inputs of 2 x 4096 x 4096 bf16 move to the host */
    uint64_t inputs = 32ull * 2 * 4096 * 4096 * 2;
    cr_assert_geq(on->cat[VRAMEST_DEV_HOST][VRAMEST_CAT_ACTIVATIONS], inputs);
    cr_assert_eq(off->cat[VRAMEST_DEV_HOST][VRAMEST_CAT_ACTIVATIONS], 0);
    cr_assert_lt(on->val[VRAMEST_VAL_PEAK_ALLOCATED] + inputs / 2, off->val[VRAMEST_VAL_PEAK_ALLOCATED]);
    vramest_result_free(on);
    vramest_result_free(off);
}

/* ---- every answer shows what it assumed (issue #17 item 4) ---- */

/* The plan of a whole job spec, as vramest_spec_plan writes it. */
static char *plan_of(const char *spec)
{
    size_t need = 0;
    vramest_spec_plan(spec, strlen(spec), NULL, 0, &need);
    char *buf = malloc(need);
    cr_assert(buf && need);
    cr_assert_eq(vramest_spec_plan(spec, strlen(spec), buf, need, &need), VRAMEST_OK, "%s",
                 vramest_last_error_message());
    return buf;
}

Test(resolved, the_plan_states_the_stack_and_the_defaults_that_decided)
{
    char *p = plan_of("{\"model\":\"llama-3-8b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\"}}");
    cr_assert(strstr(p, "\"resolved\":{\"framework\":\"pytorch\",\"torch\":{\"version\":\"2.13\",\"default\":true},"
                        "\"transformers\":{\"version\":\"5.15\",\"default\":true},\"framework_version\":null"),
              "%s", strstr(p, "\"resolved\"") ? strstr(p, "\"resolved\"") : p);
    cr_assert(strstr(p, "keeps only the last position in generate()"), "the default decided the logits");
    cr_assert(strstr(p, "\"torch_version\":\"2.13\""), "the settings echo the version used");
    free(p);
    p = plan_of("{\"model\":\"llama-3-8b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\"},"
                "\"runtime\":{\"transformers_version\":\"4.44\"}}");
    cr_assert(strstr(p, "\"transformers\":{\"version\":\"4.44\",\"default\":false}"));
    cr_assert(!strstr(p, "keeps only the last position"), "no note when the version was given");
    free(p);
    p = plan_of("{\"model\":\"llama-3-8b\",\"precision\":\"amp_bf16\",\"workload\":{\"mode\":\"train\","
                "\"gradient_checkpointing\":\"ops\"},\"parallel\":{\"gpus\":8,\"fsdp\":\"full_shard\"},"
                "\"runtime\":{\"framework\":\"torchtitan\",\"framework_version\":\"2024-12-26\"}}");
    cr_assert(strstr(p, "\"framework\":\"torchtitan\""));
    cr_assert(strstr(p, "\"transformers\":null"), "torchtitan runs no transformers code");
    cr_assert(strstr(p, "\"framework_version\":{\"version\":\"2024-12-26\",\"default\":false}"));
    cr_assert(strstr(p, "\"optimizer_impl\":\"foreach\",\"loss\":\"cross_entropy\",\"fsdp_version\":2"), "%s",
              strstr(p, "\"resolved\""));
    cr_assert(strstr(p, "FSDP2, torchtitan's default"));
    free(p);
}

/* vx_gpu_find tries every preset's name before any alias: that is the
 * same answer only while no name is another preset's alias, and each
 * name and alias finds its own preset. */
Test(devices, every_name_and_alias_finds_its_own_preset)
{
    for (size_t i = 0; i < vx_gpu_count_; i++) {
        cr_assert_eq(vx_gpu_find(vx_gpus[i].name), &vx_gpus[i], "%s", vx_gpus[i].name);
        for (size_t j = 0; j < vx_gpu_count_; j++)
            cr_assert(i == j || !vx_in_list(vx_gpus[j].aliases, vx_gpus[i].name), "%s is an alias of %s",
                      vx_gpus[i].name, vx_gpus[j].name);
        char alias[64];
        for (const char *p = vx_gpus[i].aliases; p && *p;) {
            size_t n = strcspn(p, ",");
            cr_assert_lt(n, sizeof alias);
            memcpy(alias, p, n), alias[n] = '\0';
            cr_assert_eq(vx_gpu_find(alias), &vx_gpus[i], "%s", alias);
            p += n + (p[n] == ',');
        }
    }
}

Test(devices, list_membership_is_whole_items_without_case)
{
    cr_assert(vx_in_list("h100,h100-sxm", "H100-SXM"));
    cr_assert(vx_in_list("h100,h100-sxm", "h100"));
    cr_assert_not(vx_in_list("h100-sxm", "h100"));
    cr_assert_not(vx_in_list("h100", "h100-sxm"));
    cr_assert_not(vx_in_list("a,b", "a,b"));
    cr_assert(vx_in_list(",a", ""));
    cr_assert(vx_in_list("a,,b", ""));
    cr_assert_not(vx_in_list("a,b", ""));
    cr_assert_not(vx_in_list("", "a"));
    cr_assert_not(vx_in_list(NULL, "a"));
}
