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
    int handle;         /* VRAMEST_HANDLE_CONFIG or _PRECISION; 0 = a precision preset */
    vramest_option key; /* option to set (unused for presets) */
    const char *value;  /* value, as text (enum name, number, bool or preset name) */
} advice;

#define TRAIN (1 << VX_MODE_TRAIN)
#define INFER (1 << VX_MODE_INFER)
#define LOAD (1 << VX_MODE_LOAD)

static const advice candidates[] = {
    {TRAIN | INFER, "{\"workload\":{\"attention\":\"flash\"}}", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_ATTENTION, "flash"},
    {TRAIN, "{\"precision\":\"amp_bf16\"}", 0, 0, "amp_bf16"},
    {TRAIN | INFER | LOAD, "{\"precision\":\"bf16\"}", 0, 0, "bf16"},
    {TRAIN, "{\"workload\":{\"gradient_checkpointing\":\"full\"}}", VRAMEST_HANDLE_CONFIG,
     VRAMEST_CFG_GRADIENT_CHECKPOINTING, "full"},
    {TRAIN, "{\"workload\":{\"optimizer\":\"adamw_8bit\"}}", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_OPTIMIZER, "adamw_8bit"},
    {INFER, "{\"precision\":{\"kv_cache\":\"fp8\"}}", VRAMEST_HANDLE_PRECISION, VRAMEST_PREC_KV_CACHE, "fp8"},
    {INFER | LOAD, "{\"precision\":\"int8\"}", 0, 0, "int8"},
    {TRAIN, "{\"workload\":{\"finetune\":\"lora\"}}", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_FINETUNE, "lora"},
    {INFER | LOAD, "{\"precision\":\"nf4\"}", 0, 0, "nf4"},
    {TRAIN, "{\"workload\":{\"finetune\":\"qlora\"},\"precision\":\"nf4\"}", VRAMEST_HANDLE_CONFIG,
     VRAMEST_CFG_FINETUNE, "qlora"},
    {TRAIN, "{\"parallel\":{\"zero_stage\":1}}", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_ZERO_STAGE, "1"},
    {TRAIN, "{\"parallel\":{\"zero_stage\":2}}", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_ZERO_STAGE, "2"},
    {TRAIN, "{\"parallel\":{\"zero_stage\":3}}", VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_ZERO_STAGE, "3"},
    {TRAIN, "{\"parallel\":{\"zero_stage\":2,\"offload_optimizer\":\"cpu\"}}", VRAMEST_HANDLE_CONFIG,
     VRAMEST_CFG_OFFLOAD_OPTIMIZER, "cpu"},
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

static void item(vx_jw *w, int *first, const char *change, uint64_t base, uint64_t total, int fits)
{
    if (!*first) vx_jw_put(w, ",", 1);
    *first = 0;
    vx_jw_puts(w, "{\"change\":");
    vx_jw_puts(w, change);
    vx_jw_printf(w, ",\"saves_bytes\":%llu,\"device_total\":%llu,\"fits\":%s}",
                 (unsigned long long)(base > total ? base - total : 0), (unsigned long long)total,
                 fits ? "true" : "false");
}

int vx_advise(const struct vramest_model *m, const struct vramest_precision *prec, const struct vramest_config *cfg,
              vx_jw *w)
{
    struct vramest_precision pdef;
    if (!prec) vx_precision_init(&pdef), prec = &pdef;
    struct vramest_result r;
    int fits = 0;
    int rc = vx_fit_at(m, prec, cfg, &r, &fits);
    if (rc) return rc;
    uint64_t base = r.val[VRAMEST_VAL_DEVICE_TOTAL];
    int first = 1;
    vx_jw_put(w, "[", 1);
    for (size_t i = 0; i < VX_ARRAY_LEN(candidates); i++) {
        const advice *a = &candidates[i];
        if (!(a->mode_mask & (1 << cfg->v.mode))) continue;
        struct vramest_precision p = *prec;
        struct vramest_config c = *cfg;
        if (apply(a, &p, &c)) continue;
        if (vx_fit_at(m, &p, &c, &r, &fits)) continue;
        if (r.val[VRAMEST_VAL_DEVICE_TOTAL] >= base) continue;
        item(w, &first, a->json, base, r.val[VRAMEST_VAL_DEVICE_TOTAL], fits);
    }
    /* Hardware and workload last: more GPUs (in the layout the solver grew),
     * then a smaller micro-batch. */
    int64_t gpus = 0;
    struct vramest_config grown;
    if (!vx_solve_min_gpus(m, prec, cfg, 4096, &grown, &gpus) && gpus != cfg->v.gpus &&
        !vx_fit_at(m, prec, &grown, &r, &fits)) {
        char change[160];
        snprintf(change, sizeof change, "{\"parallel\":{\"gpus\":%lld,\"tp\":%lld,\"pp\":%lld,\"dp\":%lld}}",
                 (long long)grown.v.gpus, (long long)grown.v.tp, (long long)grown.v.pp, (long long)grown.v.dp);
        item(w, &first, change, base, r.val[VRAMEST_VAL_DEVICE_TOTAL], fits);
    }
    if (cfg->v.mode != VX_MODE_LOAD && cfg->v.batch_size > 1) {
        int64_t b = 0;
        uint64_t bytes = 0;
        if (!vx_solve_max(m, prec, cfg, VRAMEST_CFG_BATCH_SIZE, &b, &bytes) && b < cfg->v.batch_size) {
            char change[96];
            snprintf(change, sizeof change, "{\"workload\":{\"batch_size\":%lld}}", (long long)b);
            item(w, &first, change, base, bytes, 1);
        }
    }
    vx_jw_put(w, "]", 1);
    return VRAMEST_OK;
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
