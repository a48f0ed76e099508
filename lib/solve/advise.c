/* Advice: which memory-saving change makes a job fit, cheapest first. Each
 * candidate is one change from the caller's settings, estimated on the stack;
 * changes that do not apply (an error) or save nothing are left out. The
 * order is a fixed ranking by what the change costs the user (speed, model
 * quality, hardware), not by bytes saved: that is the question users ask. */
#include <stdio.h>
#include <string.h>

#include "runtime/config.h"
#include "common/json_writer.h"
#include "solve/solve.h"

typedef struct advice {
    int mode_mask;      /* 1 << VX_MODE_* where it applies */
    const char *json;   /* the change as job-spec keys */
    const char *text;   /* the change as a person writes it (--set / --precision) */
    int handle;         /* VRAMEST_HANDLE_CONFIG or _PRECISION; 0 = a precision preset */
    vramest_option key; /* option to set (unused for presets) */
    const char *value;  /* value, as text (enum name, number, bool or preset name) */
} advice;

#define TRAIN (1 << VX_MODE_TRAIN)
#define INFER (1 << VX_MODE_INFER)
#define LOAD (1 << VX_MODE_LOAD)
#define RL (1 << VX_MODE_RL)

static const advice candidates[] = {
    {TRAIN | INFER | RL, "{\"workload\":{\"attention\":\"flash\"}}", "attention=flash", VRAMEST_HANDLE_CONFIG,
     VRAMEST_CFG_ATTENTION, "flash"},
    {TRAIN, "{\"precision\":\"amp_bf16\"}", "precision=amp_bf16", 0, 0, "amp_bf16"},
    {TRAIN | INFER | LOAD, "{\"precision\":\"bf16\"}", "precision=bf16", 0, 0, "bf16"},
    /* RL: the log-prob logits fused with the output projection (Liger's
     * GRPO loss: TRL use_liger_kernel, verl use_fused_kernels), a colocated
     * engine asleep while the trainer works. */
    {RL, "{\"workload\":{\"loss\":\"fused_linear\"}}", "loss=fused_linear", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_LOSS,
     "fused_linear"},
    {RL, "{\"rl\":{\"rollout\":{\"sleep_mode\":true}}}", "rollout_sleep_mode=on", VRAMEST_HANDLE_CONFIG,
     VRAMEST_CFG_ROLLOUT_SLEEP_MODE, "on"},
    {TRAIN | RL, "{\"workload\":{\"gradient_checkpointing\":\"full\"}}", "gradient_checkpointing=full",
     VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_GRADIENT_CHECKPOINTING, "full"},
    {TRAIN | RL, "{\"workload\":{\"optimizer\":\"adamw_8bit\"}}", "optimizer=adamw_8bit", VRAMEST_HANDLE_CONFIG,
     VRAMEST_CFG_OPTIMIZER, "adamw_8bit"},
    {INFER, "{\"precision\":{\"kv_cache\":\"fp8\"}}", "precision.kv_cache=fp8", VRAMEST_HANDLE_PRECISION,
     VRAMEST_PREC_KV_CACHE, "fp8"},
    {INFER | LOAD, "{\"precision\":\"int8\"}", "precision=int8", 0, 0, "int8"},
    {TRAIN | RL, "{\"workload\":{\"finetune\":\"lora\"}}", "finetune=lora", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_FINETUNE,
     "lora"},
    {INFER | LOAD, "{\"precision\":\"nf4\"}", "precision=nf4", 0, 0, "nf4"},
    {TRAIN | RL, "{\"workload\":{\"finetune\":\"qlora\"},\"precision\":\"nf4\"}", "finetune=qlora precision=nf4",
     VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_FINETUNE, "qlora"},
    {TRAIN, "{\"parallel\":{\"zero_stage\":1}}", "zero_stage=1", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_ZERO_STAGE, "1"},
    {TRAIN, "{\"parallel\":{\"zero_stage\":2}}", "zero_stage=2", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_ZERO_STAGE, "2"},
    {TRAIN, "{\"parallel\":{\"zero_stage\":3}}", "zero_stage=3", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_ZERO_STAGE, "3"},
    {TRAIN, "{\"parallel\":{\"zero_stage\":2,\"offload_optimizer\":\"cpu\"}}", "zero_stage=2 offload_optimizer=cpu",
     VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_OFFLOAD_OPTIMIZER, "cpu"},
};

static int set_text(void *base, uint64_t *bits, int handle, vramest_option key, const char *value)
{
    const vx_option_def *d = vx_option_find(key, NULL);
    if (!d) return VRAMEST_E_UNKNOWN_OPTION;
    if (d->type == VRAMEST_TYPE_ENUM || d->type == VRAMEST_TYPE_STRING || d->type == VRAMEST_TYPE_BOOL)
        return vx_opt_set_str(base, bits, handle, key, value);
    int64_t v = 0;
    for (const char *p = value; *p; p++) v = v * 10 + (*p - '0');
    return vx_opt_set_i64(base, bits, handle, key, v);
}

/* Apply one candidate to copies of the inputs. */
static int apply(const advice *a, struct vramest_precision *p, struct vramest_config *c)
{
    if (a->handle == 0) return vramest_precision_apply_preset(p, a->value);
    if (a->handle == VRAMEST_HANDLE_PRECISION) return set_text(&p->v, p->set_bits, a->handle, a->key, a->value);
    int rc = set_text(&c->v, c->set_bits, a->handle, a->key, a->value);
    /* Changes that come in pairs: QLoRA needs a 4-bit base, CPU offload of
     * the optimizer needs ZeRO (DeepSpeed refuses it at stage 0). */
    if (!rc && a->key == VRAMEST_CFG_FINETUNE && !strcmp(a->value, "qlora")) rc = vramest_precision_apply_preset(p, "nf4");
    if (!rc && a->key == VRAMEST_CFG_OFFLOAD_OPTIMIZER && c->v.zero_stage < 2)
        rc = vx_opt_set_i64(&c->v, c->set_bits, VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_ZERO_STAGE, 2);
    /* ZeRO only helps with several GPUs; advice keeps the caller's world size. */
    if (!rc && a->key == VRAMEST_CFG_ZERO_STAGE && c->v.gpus < 2) rc = VRAMEST_E_UNSUPPORTED;
    return rc;
}

int vx_advice_each(const struct vramest_model *m, const struct vramest_precision *prec,
                   const struct vramest_config *cfg, vx_advice_fn fn, void *ctx)
{
    struct vramest_precision pdef;
    if (!prec) vx_precision_init(&pdef), prec = &pdef;
    struct vramest_result r;
    int fits = 0;
    int rc = vx_fit_at(m, prec, cfg, &r, &fits);
    if (rc) return rc;
    uint64_t base = r.val[VRAMEST_VAL_DEVICE_TOTAL];
    for (size_t i = 0; i < VX_ARRAY_LEN(candidates); i++) {
        const advice *a = &candidates[i];
        if (!(a->mode_mask & (1 << cfg->v.mode))) continue;
        struct vramest_precision p = *prec;
        struct vramest_config c = *cfg;
        if (apply(a, &p, &c)) continue;
        if (vx_fit_at(m, &p, &c, &r, &fits)) continue;
        if (r.val[VRAMEST_VAL_DEVICE_TOTAL] >= base) continue;
        if (fn(ctx, a->json, a->text, &r, base)) return VRAMEST_OK;
    }
    /* Hardware and workload last: more GPUs (in the layout the solver grew),
     * then a smaller micro-batch. */
    int64_t gpus = 0;
    struct vramest_config grown;
    if (!vx_solve_min_gpus(m, prec, cfg, 4096, VX_FIT_ESTIMATE, &grown, &gpus) && gpus != cfg->v.gpus &&
        !vx_fit_at(m, prec, &grown, &r, &fits)) {
        char change[160], text[96];
        snprintf(change, sizeof change, "{\"parallel\":{\"gpus\":%lld,\"tp\":%lld,\"pp\":%lld,\"dp\":%lld}}",
                 (long long)grown.v.gpus, (long long)grown.v.tp, (long long)grown.v.pp, (long long)grown.v.dp);
        snprintf(text, sizeof text, "gpus=%lld (tp %lld, pp %lld, dp %lld)", (long long)grown.v.gpus,
                 (long long)grown.v.tp, (long long)grown.v.pp, (long long)grown.v.dp);
        if (fn(ctx, change, text, &r, base)) return VRAMEST_OK;
    }
    if (cfg->v.mode != VX_MODE_LOAD && cfg->v.batch_size > 1) {
        int64_t b = 0;
        struct vramest_config c = *cfg;
        if (!vx_solve_max(m, prec, cfg, VRAMEST_CFG_BATCH_SIZE, VX_FIT_ESTIMATE, &b, NULL) && b < cfg->v.batch_size &&
            !vx_opt_set_i64(&c.v, c.set_bits, VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_BATCH_SIZE, b) &&
            !vx_fit_at(m, prec, &c, &r, &fits)) {
            char change[96], text[48];
            snprintf(change, sizeof change, "{\"workload\":{\"batch_size\":%lld}}", (long long)b);
            snprintf(text, sizeof text, "batch_size=%lld", (long long)b);
            if (fn(ctx, change, text, &r, base)) return VRAMEST_OK;
        }
    }
    return VRAMEST_OK;
}

typedef struct writer {
    vx_jw *w;
    int first;
} writer;

static int item(void *ctx, const char *change, const char *text, const struct vramest_result *r, uint64_t base)
{
    writer *wr = ctx;
    uint64_t total = r->val[VRAMEST_VAL_DEVICE_TOTAL];
    uint64_t v = r->val[VRAMEST_VAL_VERDICT];
    if (!wr->first) vx_jw_put(wr->w, ",", 1);
    wr->first = 0;
    vx_jw_puts(wr->w, "{\"change\":");
    vx_jw_puts(wr->w, change);
    vx_jw_puts(wr->w, ",\"text\":");
    vx_jw_str(wr->w, text);
    vx_jw_printf(wr->w, ",\"saves_bytes\":%llu,\"device_total\":%llu,\"fits\":%s,\"verdict\":\"%s\"}",
                 (unsigned long long)(base > total ? base - total : 0), (unsigned long long)total,
                 r->val[VRAMEST_VAL_FITS] ? "true" : "false", vx_verdict_names[v < 3 ? v : 0]);
    return 0;
}

int vx_advise(const struct vramest_model *m, const struct vramest_precision *prec, const struct vramest_config *cfg,
              vx_jw *w)
{
    /* On an error (no device) the caller drops what was written. */
    writer wr = {w, 1};
    vx_jw_put(w, "[", 1);
    int rc = vx_advice_each(m, prec, cfg, item, &wr);
    vx_jw_put(w, "]", 1);
    return rc;
}

typedef struct finder {
    vx_fix *fix;
    char *text, *change;
    size_t text_cap, change_cap;
    int best; /* verdict of the fix kept so far, -1 none */
} finder;

static int consider(void *ctx, const char *change, const char *text, const struct vramest_result *r, uint64_t base)
{
    (void)base;
    finder *f = ctx;
    int v = (int)r->val[VRAMEST_VAL_VERDICT];
    if (v == VRAMEST_VERDICT_DOES_NOT_FIT || v <= f->best) return 0;
    vx_strlcpy(f->text, text, f->text_cap);
    vx_strlcpy(f->change, change, f->change_cap);
    *f->fix = (vx_fix){f->text, f->change, r->val[VRAMEST_VAL_DEVICE_TOTAL], r->val_high[VRAMEST_VAL_DEVICE_TOTAL], v};
    f->best = v;
    return v == VRAMEST_VERDICT_FITS;
}

int vx_find_fix(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *c,
                vx_fix *fix, char *text, size_t text_cap, char *change, size_t change_cap)
{
    *fix = (vx_fix){NULL, NULL, 0, 0, VRAMEST_VERDICT_DOES_NOT_FIT};
    finder f = {fix, text, change, text_cap, change_cap, -1};
    return vx_advice_each(m, p, c, consider, &f);
}

VRAMEST_API int vramest_advise_json(const vramest_model *model, const vramest_precision *prec,
                                    const vramest_config *cfg, char *buf, size_t cap, size_t *out_needed)
{
    if (!model || !cfg) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_advise_json: model and config are required");
    if (!buf && cap) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_advise_json: buf is NULL with cap %zu", cap);
    vx_jw w = {buf, cap, 0};
    int rc = vx_advise(model, prec, cfg, &w);
    if (rc) return rc;
    return vx_jw_finish(&w, out_needed, "vramest_advise_json");
}
