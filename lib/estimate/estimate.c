/* vramest_estimate: argument checks, the refusal of settings whose effect is
 * not modelled, the precision policy resolved against the model, then the
 * mode's estimator and the runtime terms. One allocation: the result. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimate.h"
#include "estimate/step/images.h"
#include "estimate/infer/infer.h"
#include "estimate/model_notes.h"
#include "estimate/rl/rl.h"
#include "estimate/train/train.h"

static int refuse_unmodelled(const struct vramest_precision *p, const struct vramest_config *c)
{
    const vx_option_def *d = vx_opt_first_unmodelled(&p->v, p->set_bits, VRAMEST_HANDLE_PRECISION);
    if (!d) d = vx_opt_first_unmodelled(&c->v, c->set_bits, VRAMEST_HANDLE_CONFIG);
    if (d)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "option '%s' is set, but its effect is not modelled by this version of libvramest "
                       "(reset it to its default to estimate without it)",
                       d->name);
    return VRAMEST_OK;
}

static uint64_t device_bytes(const vx_config_values *cv)
{
    if (cv->memory_gib > 0) return (uint64_t)(cv->memory_gib * (double)VX_GIB);
    const vx_gpu *g = cv->gpu_index >= 0 && (size_t)cv->gpu_index < vx_gpu_count_ ? &vx_gpus[cv->gpu_index] : NULL;
    return g ? g->bytes : 0;
}

int vx_estimate_into(const struct vramest_model *model, const struct vramest_precision *prec,
                     const struct vramest_config *cfg, struct vramest_result *r)
{
    if (!model || model->magic != VX_MAGIC_MODEL)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_estimate: model is NULL or not a vramest_model handle");
    if (prec && prec->magic != VX_MAGIC_PREC)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_estimate: prec is not a vramest_precision handle");
    if (cfg && cfg->magic != VX_MAGIC_CONFIG)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_estimate: cfg is not a vramest_config handle");
    if (model->status != VRAMEST_OK) return vx_fail(model->status, "model: %s", model->status_msg);

    /* Defaults for NULL inputs, on the stack: no allocation besides the result. */
    struct vramest_precision pdef;
    struct vramest_config cdef;
    if (!prec) vx_precision_init(&pdef), prec = &pdef;
    if (!cfg) vx_config_init(&cdef), cfg = &cdef;

    int rc = refuse_unmodelled(prec, cfg);
    if (rc) return rc;
    if ((rc = vx_config_check(cfg))) return rc;
    /* A bare checkpoint's tensors give the weights, not how many heads
     * share q_proj's width: loading needs only the weights. */
    if (model->shape.heads_from_files && cfg->v.mode != VX_MODE_LOAD)
        return vx_fail(VRAMEST_E_INCOMPLETE_MODEL,
                       "model: num_attention_heads is not set: the tensors give q_proj's width (%lld) but not how "
                       "many heads share it (num_key_value_heads then follows from k_proj); mode load needs neither",
                       (long long)(model->shape.heads * model->shape.head_dim));

    /* Zero the figures only: warnings, timeline points and rank groups are
     * read up to their counts, and the echo is copied in whole below. A full
     * memset of the ~10 KiB result was half the cost of a load estimate. */
    vx_result_begin(r);
    memcpy(r->model_name, model->name, sizeof r->model_name);
    r->shape = model->shape;
    /* the precision is echoed as resolved, after the estimate
     * (vx_precision_echo); strings up to their NUL (values.h) */
    vx_values_copy(&r->cfg, &cfg->v, &vx_config_layout);
    r->has_file_inv = model->has_file_inv ? (model->cover_note[0] ? 2 : 1) : 0;
    r->device_bytes = device_bytes(&cfg->v);

    /* The images' tokens join the sequence the estimate runs (the echo
     * above keeps the workload as given). */
    struct vramest_config cimg;
    if ((rc = vx_images_config(model, cfg, &cimg, &cfg))) return rc;
    vx_ctx x;
    if ((rc = vx_ctx_init(&x, model, &prec->v, cfg, r))) return rc;
    vx_model_notes(&x, r);
    vx_runtime_resolved(&x);

    uint64_t active = 0;
    uint64_t total = vx_params_for_head(model, (int)cfg->v.head, cfg->v.num_labels, &active);
    r->val[VRAMEST_VAL_PARAMS_TOTAL] = total;
    r->val[VRAMEST_VAL_PARAMS_ACTIVE] = active;
    /* Every parameter requires grad after from_pretrained; training methods
     * (PEFT, freezing) narrow this down. */
    r->val[VRAMEST_VAL_PARAMS_TRAINABLE] = total;
    r->val[VRAMEST_VAL_CHECKPOINT_BYTES] = model->checkpoint_bytes; /* at rebuild */
    switch (cfg->v.mode) {
    case VX_MODE_LOAD: rc = vx_estimate_load(&x); break;
    case VX_MODE_TRAIN: rc = vx_estimate_train(&x); break;
    case VX_MODE_INFER: rc = vx_estimate_infer(&x); break;
    case VX_MODE_RL: rc = vx_estimate_rl(&x); break;
    default: rc = vx_fail(VRAMEST_E_INTERNAL, "vramest_estimate: mode %lld", (long long)cfg->v.mode);
    }
    if (rc) return rc;
    /* Every mode: what the policy could not do as asked, and the policy as
     * resolved for this model (the plan echoes concrete dtypes, not "auto"). */
    char notes[VX_POLICY_NOTES][VX_POLICY_NOTE_LEN];
    int nn = vx_precision_notes(&x.pol, notes);
    for (int i = 0; i < nn; i++) vx_result_warn(r, "%s", notes[i]);
    vx_precision_echo(&x.pol, &r->prec);
    vx_runtime_terms(&x);
    vx_result_finish(r);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_estimate(const vramest_model *model, const vramest_precision *prec,
                                 const vramest_config *cfg, vramest_result **out)
{
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_estimate: out is NULL");
    *out = NULL;
    struct vramest_result *r = malloc(sizeof *r);
    if (!r) return vx_fail(VRAMEST_E_NOMEM, "vramest_estimate: out of memory");
    int rc = vx_estimate_into(model, prec, cfg, r);
    if (rc) {
        free(r);
        return rc;
    }
    *out = r;
    return VRAMEST_OK;
}
