/* The plan's settings echo (lib/result/settings_json.c) writes options at
 * their defaults from text option_index_gen.c rendered at build time. It
 * must write what the plain echo writes - every row of each group in table
 * order, `"name":value` through vx_echo_value - for any mix of default and
 * other values, or plans change. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/option_echo.h"
#include "result/result.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static const vx_option_def *rows_of(int t, size_t *n)
{
    *n = t == 1 ? vx_precision_option_count : vx_config_option_count;
    return t == 1 ? vx_precision_options : vx_config_options;
}

/* The echo as it was written before the pre-rendered text. */
static void plain_settings(vx_jw *w, const struct vramest_result *r)
{
    int f = 1;
    vx_jw_put(w, "{", 1);
    for (int g = 0; g < VX_ECHO_GROUPS; g++) {
        int t = g == 0 ? 1 : 2;
        size_t n;
        const vx_option_def *rows = rows_of(t, &n);
        const void *base = t == 1 ? (const void *)&r->prec : (const void *)&r->cfg;
        vx_jw_key(w, vx_echo_groups[g], &f);
        vx_jw_put(w, "{", 1);
        int h = 1;
        for (size_t i = 0; i < n; i++) {
            if (vx_echo_group(rows[i].group) != g) continue;
            vx_jw_key(w, rows[i].name, &h);
            /* a role given a model of its own (test_rl.c checks the rule) */
            int key = t == 2 ? (int)rows[i].key : -1;
            /* and the versions the estimate ran at, where the job gave none */
            const vx_runtime *rt = &r->rrt.rt;
            const vx_version_info *vi = key == VRAMEST_CFG_TORCH_VERSION          ? &vx_torch_versions
                                        : key == VRAMEST_CFG_TRANSFORMERS_VERSION ? &vx_transformers_versions
                                        : key == VRAMEST_CFG_FRAMEWORK_VERSION    ? vx_framework_versions(rt->framework)
                                                                                  : NULL;
            int v = key == VRAMEST_CFG_TORCH_VERSION          ? rt->torch
                    : key == VRAMEST_CFG_TRANSFORMERS_VERSION ? rt->transformers
                                                              : rt->framework_version;
            int applies = key == VRAMEST_CFG_TORCH_VERSION          ? !rt->ggml_alloc
                          : key == VRAMEST_CFG_TRANSFORMERS_VERSION ? rt->hf_code
                                                                    : 1;
            const char *p = (const char *)base + rows[i].offset;
            if (r->rl.on && ((key == VRAMEST_CFG_RL_REFERENCE && r->rl.reference_model) ||
                             (key == VRAMEST_CFG_RL_REWARD && r->rl.reward == 2) ||
                             (key == VRAMEST_CFG_RL_CRITIC && r->rl.critic == 2))) {
                vx_jw_puts(w, "\"model\"");
            } else if (vi && !p[0] && r->rrt.has_rt && applies && vi->forms && v > 0) {
                char ver[24];
                vx_version_format(v, vi->form, ver, sizeof ver);
                vx_jw_str(w, ver);
            } else {
                vx_echo_value(w, &rows[i], base);
            }
        }
        vx_jw_put(w, "}", 1);
    }
    vx_jw_key(w, "cuda_context_bytes", &f);
    vx_jw_u64(w, r->cuda_context_bytes);
    vx_jw_put(w, "}", 1);
}

static void expect_same(const struct vramest_result *r, const char *what)
{
    static char a[1 << 16], b[1 << 16];
    vx_jw wa = {a, sizeof a, 0}, wb = {b, sizeof b, 0};
    vx_result_settings_json(&wa, r);
    plain_settings(&wb, r);
    cr_assert(wa.len < sizeof a && wb.len < sizeof b);
    a[wa.len] = b[wb.len] = '\0';
    cr_assert_str_eq(a, b, "%s", what);
}

/* Another value for a row: near its default, an escape, -0.0, a value no
 * enum name has. */
static void perturb(const vx_option_def *d, void *base)
{
    char *p = (char *)base + d->offset;
    int64_t iv;
    double fv;
    switch (d->type) {
    case VRAMEST_TYPE_F64: {
        static const double vals[] = {-0.0, 0.5, 1e300, 0.1, 3.0};
        fv = next() % 7 == 0 ? NAN : vals[next() % 5];
        memcpy(p, &fv, sizeof fv);
        break;
    }
    case VRAMEST_TYPE_STRING: {
        static const char *const vals[] = {"x", "a\"b\\c", "auto", "", "bf16"};
        strcpy(p, vals[next() % 5]);
        break;
    }
    default:
        memcpy(&iv, p, sizeof iv);
        iv += (int64_t)(next() % 5) - 2;
        memcpy(p, &iv, sizeof iv);
    }
}

Test(plan_echo, pre_rendered_rows_are_the_echo_of_the_defaults)
{
    for (int t = 1; t <= 2; t++) {
        size_t n;
        const vx_option_def *rows = rows_of(t, &n);
        const vx_optecho *pre = &vx_optecho_of[t];
        cr_assert(pre->text && pre->group_start[0] == 0);
        char *seen = calloc(n, 1), *base = calloc(1, 1 << 16), buf[2048];
        cr_assert(seen && base);
        vx_opt_defaults(base, NULL, t + 1);
        for (int g = 0; g < VX_ECHO_GROUPS; g++)
            for (size_t k = pre->group_start[g]; k < pre->group_start[g + 1]; k++) {
                const vx_optecho_row *e = &pre->rows[k];
                const vx_option_def *d = &rows[e->row];
                cr_assert_eq(vx_echo_group(d->group), g, "%s", d->name);
                cr_assert(!seen[e->row], "%s twice", d->name);
                seen[e->row] = 1;
                cr_assert_eq(e->field, d->offset, "%s", d->name);
                cr_assert_eq(e->string, d->type == VRAMEST_TYPE_STRING, "%s", d->name);
                vx_jw w = {buf, sizeof buf, 0};
                vx_jw_put(&w, ",\"", 2);
                vx_jw_puts(&w, d->name);
                vx_jw_put(&w, "\":", 2);
                vx_echo_value(&w, d, base);
                cr_assert_eq(w.len, pre->off[k + 1] - pre->off[k], "%s", d->name);
                cr_assert(!memcmp(buf, pre->text + pre->off[k], w.len), "%s", d->name);
            }
        for (size_t i = 0; i < n; i++)
            cr_assert(seen[i] || vx_echo_group(rows[i].group) < 0, "%s is not echoed", rows[i].name);
        free(seen), free(base);
    }
}

Test(plan_echo, any_mix_of_defaults_writes_the_plain_echo)
{
    struct vramest_result *r = calloc(1, sizeof *r);
    cr_assert(r);
    vx_opt_defaults(&r->prec, NULL, VRAMEST_HANDLE_PRECISION);
    vx_opt_defaults(&r->cfg, NULL, VRAMEST_HANDLE_CONFIG);
    r->cuda_context_bytes = 524288000;
    expect_same(r, "every setting at its default");
    for (int round = 0; round < 400; round++) {
        vx_opt_defaults(&r->prec, NULL, VRAMEST_HANDLE_PRECISION);
        vx_opt_defaults(&r->cfg, NULL, VRAMEST_HANDLE_CONFIG);
        /* from one row changed to most of them: runs of defaults of every length */
        int every = 1 + (int)(next() % 12);
        for (int t = 1; t <= 2; t++) {
            size_t n;
            const vx_option_def *rows = rows_of(t, &n);
            for (size_t i = 0; i < n; i++)
                if (next() % (unsigned)every == 0) perturb(&rows[i], t == 1 ? (void *)&r->prec : (void *)&r->cfg);
        }
        r->rl.on = next() % 3 == 0;
        r->rl.reference_model = (int)(next() % 2);
        r->rl.reward = (int)(next() % 3);
        r->rl.critic = (int)(next() % 3);
        static const int frameworks[] = {VX_FW_PYTORCH, VX_FW_VLLM, VX_FW_LLAMA_CPP, VX_FW_SGLANG, VX_FW_OLLAMA};
        vx_runtime_resolve(frameworks[next() % 5], NULL, &r->rrt.rt);
        r->rrt.has_rt = next() % 4 != 0;
        if (next() % 3 == 0) r->rrt.rt.torch = 0;
        expect_same(r, "a random mix");
    }
    free(r);
}
