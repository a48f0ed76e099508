/* The precision policy handle: public new/preset/clone/free/set/get/reset.
 * Plain values, so clone is a copy and a result keeps an echo without
 * pointers. The presets are the design.md §6 vocabulary. */
#include <stdlib.h>
#include <string.h>

#include "precision/precision.h"

#define H VRAMEST_HANDLE_PRECISION

const vx_layout vx_precision_layout = {sizeof(vx_precision_values), 1,
                                       {VX_LAYOUT_STR(vx_precision_values, skip_modules)}};

void vx_precision_init(struct vramest_precision *p)
{
    memset(p, 0, sizeof *p);
    p->magic = VX_MAGIC_PREC;
    vx_opt_defaults_zeroed(&p->v, p->set_bits, H);
}

static int check(const vramest_precision *p, const char *fn)
{
    if (!p) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: precision is NULL", fn);
    if (p->magic != VX_MAGIC_PREC) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: not a vramest_precision handle", fn);
    return VRAMEST_OK;
}

/* A preset sets these keys on top of the defaults; 0 (auto) leaves a key alone.
 * No preset names a quant_method: auto infers it from the weights dtype, so
 * a spec may start from a preset and change the weights freely. */
typedef struct preset {
    const char *name;
    const char *aliases;
    int weights, compute, amp, master, states, method, double_quant;
} preset;

enum { A = VRAMEST_DTYPE_AUTO, F32 = VRAMEST_DTYPE_FP32, F16 = VRAMEST_DTYPE_FP16, B16 = VRAMEST_DTYPE_BF16 };

static const preset presets[] = {
    /* pure: params, grads and optimizer states in one dtype (model.to(dtype) + torch AdamW) */
    {"fp32", "float32,f32", F32, F32, 0, A, A, 0, 0},
    {"fp16", "float16,f16,half", F16, F16, 0, A, A, 0, 0},
    {"bf16", "bfloat16", B16, B16, 0, A, A, 0, 0},
    /* torch.autocast over fp32 parameters */
    {"amp_fp16", "fp16_amp,amp", F32, F16, 1, A, A, 0, 0},
    {"amp_bf16", "bf16_amp", F32, B16, 1, A, A, 0, 0},
    /* 16-bit params + fp32 master weights + fp32 optimizer states (DeepSpeed, Megatron) */
    {"mixed_bf16", "bf16_mixed", B16, B16, 0, F32, F32, 0, 0},
    {"mixed_fp16", "fp16_mixed", F16, F16, 0, F32, F32, 0, 0},
    /* bitsandbytes: transformers loads the unquantized rest in fp16 unless told otherwise */
    {"int8", "llm.int8,load_in_8bit", VRAMEST_DTYPE_INT8, F16, 0, A, A, 0, 0},
    {"nf4", "load_in_4bit", VRAMEST_DTYPE_NF4, B16, 0, A, A, 0, 0},
    {"fp4", NULL, VRAMEST_DTYPE_FP4, F16, 0, A, A, 0, 0},
    /* the QLoRA paper's recipe: NF4 + double quantization, bf16 compute */
    {"qlora", NULL, VRAMEST_DTYPE_NF4, B16, 0, A, A, 0, 1},
};

static const preset *find_preset(const char *name)
{
    /* Names, then aliases: no name is another preset's alias. */
    for (size_t i = 0; i < VX_ARRAY_LEN(presets); i++)
        if (vx_strcasecmp(presets[i].name, name) == 0) return &presets[i];
    for (size_t i = 0; i < VX_ARRAY_LEN(presets); i++)
        if (vx_in_list(presets[i].aliases, name)) return &presets[i];
    return NULL;
}

/* Fill `v` (already at defaults) from a preset name, or from a dtype name
 * (weights = that dtype, everything else auto). */
static int apply(vx_precision_values *v, uint64_t *bits, const char *name)
{
    if (!name) return vx_fail(VRAMEST_E_INVALID_ARG, "precision preset: NULL name");
    const preset *p = find_preset(name);
    int rc;
    if (p) {
        if ((rc = vx_opt_set_i64(v, bits, H, VRAMEST_PREC_WEIGHTS, p->weights))) return rc;
        if ((rc = vx_opt_set_i64(v, bits, H, VRAMEST_PREC_COMPUTE, p->compute))) return rc;
        if (p->method && (rc = vx_opt_set_i64(v, bits, H, VRAMEST_PREC_QUANT_METHOD, p->method))) return rc;
        if (p->amp && (rc = vx_opt_set_i64(v, bits, H, VRAMEST_PREC_AMP, 1))) return rc;
        if (p->master && (rc = vx_opt_set_i64(v, bits, H, VRAMEST_PREC_MASTER_WEIGHTS, p->master))) return rc;
        if (p->states && (rc = vx_opt_set_i64(v, bits, H, VRAMEST_PREC_OPTIMIZER_STATES, p->states))) return rc;
        if (p->double_quant && (rc = vx_opt_set_i64(v, bits, H, VRAMEST_PREC_DOUBLE_QUANT, 1))) return rc;
        return VRAMEST_OK;
    }
    const vx_dtype_info *d = vx_dtype_by_name(name);
    if (d && d->id != VRAMEST_DTYPE_NONE) {
        if (d->id == VRAMEST_DTYPE_AUTO) return VRAMEST_OK;
        return vx_opt_set_i64(v, bits, H, VRAMEST_PREC_WEIGHTS, d->id);
    }
    vx_close c;
    vx_close_init(&c, name, 2);
    for (size_t i = 0; i < VX_ARRAY_LEN(presets); i++) vx_close_offer(&c, presets[i].name);
    for (const vx_enum_name *e = vx_dtype_enum; e->name; e++) vx_close_offer(&c, e->name);
    if (c.best[0])
        return vx_fail(VRAMEST_E_UNKNOWN_NAME, "unknown precision preset '%s' (did you mean '%s'?)", name, c.best[0]);
    return vx_fail(VRAMEST_E_UNKNOWN_NAME,
                   "unknown precision preset '%s' (presets: fp32, fp16, bf16, amp_fp16, amp_bf16, mixed_bf16, "
                   "mixed_fp16, int8, nf4, fp4, qlora, or a dtype name such as q4_k_m)",
                   name);
}

VRAMEST_API int vramest_precision_new(vramest_precision **out)
{
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_precision_new: out is NULL");
    *out = NULL;
    vramest_precision *p = malloc(sizeof *p);
    if (!p) return vx_fail(VRAMEST_E_NOMEM, "vramest_precision_new: out of memory");
    vx_precision_init(p);
    *out = p;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_precision_new_preset(const char *name, vramest_precision **out)
{
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_precision_new_preset: out is NULL");
    *out = NULL;
    struct vramest_precision tmp;
    vx_precision_init(&tmp);
    int rc = apply(&tmp.v, tmp.set_bits, name);
    if (rc) return rc;
    vramest_precision *p = malloc(sizeof *p);
    if (!p) return vx_fail(VRAMEST_E_NOMEM, "vramest_precision_new_preset: out of memory");
    memcpy(p, &tmp, sizeof *p);
    *out = p;
    return VRAMEST_OK;
}

int vx_precision_job_defaults(const vx_precision_values *in, int job, vx_precision_values *out)
{
    *out = *in;
    int weights_free = in->weights == A && in->quant_method == VX_QM_AUTO;
    int says_nothing = weights_free && in->compute == A && !in->amp && in->master_weights == A &&
                       in->gradients == A && in->optimizer_states == A;
    const preset *p = NULL;
    switch (job) {
    /* QLoRA is a 4-bit base: the paper's NF4 + double quantization, bf16
     * compute, unless a precision says otherwise. */
    case VX_JOB_QLORA: p = weights_free ? find_preset("qlora") : NULL; break;
    /* A full training step people run: torch.autocast over fp32 weights
     * (accelerate mixed_precision=bf16, the Trainer's bf16=True on an fp32
     * model), or 16-bit weights with fp32 master weights and states under
     * DeepSpeed / Megatron, never pure fp16 with fp16 AdamW states. */
    case VX_JOB_MIXED_AMP: p = says_nothing ? find_preset("amp_bf16") : NULL; break;
    case VX_JOB_MIXED_MASTER: p = says_nothing ? find_preset("mixed_bf16") : NULL; break;
    default: break;
    }
    if (!p) return VX_JOB_AS_GIVEN;
    out->weights = p->weights;
    if (out->compute == A) out->compute = p->compute;
    out->amp = p->amp;
    if (p->master) out->master_weights = p->master;
    if (p->states) out->optimizer_states = p->states;
    if (p->double_quant) out->double_quant = 1;
    return job;
}

VRAMEST_API int vramest_precision_apply_preset(vramest_precision *prec, const char *name)
{
    int rc = check(prec, "vramest_precision_apply_preset");
    if (rc) return rc;
    /* Built aside so that a bad name leaves the policy unchanged. */
    struct vramest_precision tmp;
    vx_precision_init(&tmp);
    if ((rc = apply(&tmp.v, tmp.set_bits, name))) return rc;
    memcpy(&prec->v, &tmp.v, sizeof prec->v);
    memcpy(prec->set_bits, tmp.set_bits, sizeof prec->set_bits);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_precision_clone(const vramest_precision *prec, vramest_precision **out)
{
    int rc = check(prec, "vramest_precision_clone");
    if (rc) return rc;
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_precision_clone: out is NULL");
    *out = NULL;
    vramest_precision *p = malloc(sizeof *p);
    if (!p) return vx_fail(VRAMEST_E_NOMEM, "vramest_precision_clone: out of memory");
    memcpy(p, prec, sizeof *p);
    *out = p;
    return VRAMEST_OK;
}

VRAMEST_API void vramest_precision_free(vramest_precision *prec)
{
    if (!prec || prec->magic != VX_MAGIC_PREC) return;
    prec->magic = VX_MAGIC_DEAD;
    free(prec);
}

VRAMEST_API int vramest_precision_set_i64(vramest_precision *prec, vramest_option key, int64_t value)
{
    int rc = check(prec, "vramest_precision_set_i64");
    return rc ? rc : vx_opt_set_i64(&prec->v, prec->set_bits, H, key, value);
}

VRAMEST_API int vramest_precision_set_f64(vramest_precision *prec, vramest_option key, double value)
{
    int rc = check(prec, "vramest_precision_set_f64");
    return rc ? rc : vx_opt_set_f64(&prec->v, prec->set_bits, H, key, value);
}

VRAMEST_API int vramest_precision_set_str(vramest_precision *prec, vramest_option key, const char *value)
{
    int rc = check(prec, "vramest_precision_set_str");
    return rc ? rc : vx_opt_set_str(&prec->v, prec->set_bits, H, key, value);
}

VRAMEST_API int vramest_precision_get_i64(const vramest_precision *prec, vramest_option key, int64_t *out)
{
    int rc = check(prec, "vramest_precision_get_i64");
    if (!rc && !out) rc = vx_fail(VRAMEST_E_INVALID_ARG, "vramest_precision_get_i64: out is NULL");
    return rc ? rc : vx_opt_get_i64(&prec->v, H, key, out);
}

VRAMEST_API int vramest_precision_get_f64(const vramest_precision *prec, vramest_option key, double *out)
{
    int rc = check(prec, "vramest_precision_get_f64");
    if (!rc && !out) rc = vx_fail(VRAMEST_E_INVALID_ARG, "vramest_precision_get_f64: out is NULL");
    return rc ? rc : vx_opt_get_f64(&prec->v, H, key, out);
}

VRAMEST_API int vramest_precision_get_str(const vramest_precision *prec, vramest_option key, const char **out)
{
    int rc = check(prec, "vramest_precision_get_str");
    if (!rc && !out) rc = vx_fail(VRAMEST_E_INVALID_ARG, "vramest_precision_get_str: out is NULL");
    return rc ? rc : vx_opt_get_str(&prec->v, H, key, out);
}

VRAMEST_API int vramest_precision_reset(vramest_precision *prec, vramest_option key)
{
    int rc = check(prec, "vramest_precision_reset");
    return rc ? rc : vx_opt_reset(&prec->v, prec->set_bits, H, key);
}
