/* Notes on the model that every estimate repeats as warnings. A scheduler
 * reads the figures and may never see a parse-time remark; an estimate that
 * counted weights the files lack, or that ignores how the checkpoint says
 * it is quantized, must say so where the figures are. */
#include <string.h>

#include "estimate/model_notes.h"
#include "common/dtype.h"
#include "precision/gguf_mix.h"
#include "precision/policy.h"

/* Hugging Face quantization_config.quant_method values (transformers
 * QuantizationMethod) that a precision quant_method models. */
static const struct {
    const char *hf;
    int method;
} known[] = {
    {"gptq", VX_QM_GPTQ}, {"awq", VX_QM_AWQ},         {"bitsandbytes", VX_QM_BNB},
    {"fp8", VX_QM_FP8},   {"fbgemm_fp8", VX_QM_FP8}, {"torchao", VX_QM_TORCHAO},
};

static const char *method_name(int method)
{
    const vx_option_def *d = vx_option_find(VRAMEST_PREC_QUANT_METHOD, NULL);
    const char *n = d ? vx_enum_name_of(d->enums, method) : NULL;
    return n ? n : "?";
}

static void quant_note(const vx_ctx *x, struct vramest_result *r)
{
    const char *q = x->pol.m->declared_quant;
    if (!q[0]) return;
    /* A storage the model describes (model/ckpt_quant.c) is what "as
     * stored" holds; a precision that names a storage replaces it. */
    if (x->pol.m->ckq.method != VX_CQ_NONE) {
        int sd = vx_ckpt_quant_dtype(&x->pol.m->ckq);
        if (x->pol.ggml_only && !VX_IS_GGUF_TYPE(sd) && x->pol.pv->weights == VRAMEST_DTYPE_AUTO) {
            vx_result_warn(r,
                           "the checkpoint stores its weights %s; llama.cpp holds GGML types only, so they are "
                           "estimated as convert_hf_to_gguf.py writes them, in the float dtype (set a GGUF "
                           "precision such as q8_0 or q4_k_m for a quantized GGUF)",
                           q);
            return;
        }
        if ((x->pol.pv->weights == VRAMEST_DTYPE_AUTO && x->pol.rp.quant_method == VX_QM_NONE) ||
            vx_policy_loads_as_stored(&x->pol))
            return;
        const vx_dtype_info *w = vx_dtype(vx_policy_weight_dtype(&x->pol));
        vx_result_warn(r,
                       "the checkpoint stores its weights %s (config.json's quantization_config); the precision "
                       "holds them as %s instead (quant_method %s)",
                       q, w && w->id != VRAMEST_DTYPE_AUTO ? w->name : "its float dtype",
                       method_name(x->pol.rp.quant_method));
        return;
    }
    int method = -1;
    for (size_t i = 0; i < VX_ARRAY_LEN(known); i++)
        if (vx_strcasecmp(q, known[i].hf) == 0) method = known[i].method;
    const vx_dtype_info *w = vx_dtype(vx_policy_weight_dtype(&x->pol));
    const vx_dtype_info *p = vx_dtype(x->pol.rp.param_dtype);
    const char *held = w && w->id != VRAMEST_DTYPE_AUTO ? w->name : p ? p->name : "?";
    if (method < 0)
        vx_result_warn(r,
                       "config.json's quantization_config names quant_method '%s', which libvramest does not model: "
                       "assumed weights as the precision says (%s, quant_method %s)",
                       q, held, method_name(x->pol.rp.quant_method));
    else if (method != x->pol.rp.quant_method)
        vx_result_warn(r,
                       "config.json's quantization_config names quant_method '%s', but the precision says %s "
                       "(weights %s): set precision quant_method %s to estimate the checkpoint as stored",
                       q, method_name(x->pol.rp.quant_method), held, method_name(method));
}

/* What a multimodal model's estimate assumes about its tower and images. */
static void tower_note(const vx_ctx *x, struct vramest_result *r)
{
    const vx_tower *t = &x->pol.m->tower;
    if (!t->kind) return;
    const vx_config_values *cv = x->cv;
    if (t->a_layers > 0)
        vx_result_warn(r, "multimodal: audio tower + embedder %.1f M params counted; no audio in the workload (no "
                          "option for it): audio tokens and the audio tower's activations are not modelled",
                       (double)t->a_params / 1e6);
    int64_t per = cv->image_tokens > 0 ? cv->image_tokens : t->tokens_per_image;
    if (cv->images > 0)
        vx_result_warn(r, "multimodal: tower + projector %.1f M params (float under GPTQ/AWQ/fp8); %lld images x %lld "
                          "tokens%s", (double)t->params / 1e6, (long long)cv->images, (long long)per,
                       cv->image_tokens > 0 ? "" : " (a default-size image: set image_tokens for yours)");
    else if (cv->mode == VX_MODE_LOAD)
        vx_result_warn(r, "multimodal: tower + projector %.1f M params (float under GPTQ/AWQ/fp8)",
                       (double)t->params / 1e6);
    else
        vx_result_warn(r, "multimodal: no images in the workload, text only (set images, %lld tokens each by "
                          "default, or image_tokens)", (long long)per);
}

void vx_model_notes(const vx_ctx *x, struct vramest_result *r)
{
    tower_note(x, r);
    if (x->pol.m->cover_note[0]) vx_result_warn(r, "%s", x->pol.m->cover_note);
    if (x->pol.m->index_note[0]) vx_result_warn(r, "%s", x->pol.m->index_note);
    if (x->pol.m->family_note[0]) vx_result_warn(r, "%s", x->pol.m->family_note);
    if (x->pol.m->config_note[0]) vx_result_warn(r, "%s", x->pol.m->config_note);
    if (x->pol.m->disk_note[0]) vx_result_warn(r, "%s", x->pol.m->disk_note);
    quant_note(x, r);
}
