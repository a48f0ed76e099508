/* Images in the workload of a multimodal model (issue #16 item 3).
 *
 * Tokens: each image becomes `image_tokens` tokens of the language model (the
 * config's count, or workload.image_tokens), which add to the sample's
 * text tokens: training runs seq_len + images x tokens per sample,
 * inference a prompt of prompt_len (or seq_len) + images x tokens. Every
 * decoder term (activations, KV cache, logits) then sees the longer
 * sequence through the ordinary programs.
 *
 * The tower runs over the images' patches before the language model
 * (transformers@68a7b7e272: models/qwen2_vl/modeling_qwen2_vl.py
 * get_image_features, models/llava/modeling_llava.py, gemma3, mistral3,
 * llama4). Its activations are a formula per patch of a pre-norm ViT block
 * (docs/methodology.md "Multimodal towers"), counted on the first pipeline
 * stage: in training, what autograd saves when the tower trains (full
 * fine-tuning: every parameter requires grad; LoRA, QLoRA, prefix and
 * freeze leave the tower frozen and its inputs need no grad, so it saves
 * nothing); at prefill, the no-grad forward's live tensors. */
#include <string.h>

#include "common/dtype.h"
#include "estimate/step/images.h"
#include "runtime/config.h"

int vx_images_config(const struct vramest_model *m, const struct vramest_config *cfg, struct vramest_config *buf,
                     const struct vramest_config **out)
{
    const vx_config_values *cv = &cfg->v;
    *out = cfg;
    if (cv->images <= 0) return VRAMEST_OK;
    const vx_tower *t = &m->tower;
    if (!t->kind)
        return vx_fail(VRAMEST_E_CONFLICT, "workload images %lld: the model has no vision tower (a multimodal "
                                           "config.json with a vision_config gives one)", (long long)cv->images);
    int64_t per = cv->image_tokens > 0 ? cv->image_tokens : t->tokens_per_image;
    int64_t add = cv->images * per; /* <= 2^16 x 2^24 by the options' bounds */
    const int64_t max_len = 1073741824;
    if (cv->seq_len > max_len - add || cv->prompt_len > max_len - add)
        return vx_fail(VRAMEST_E_RANGE, "workload: %lld images of %lld tokens make a sequence beyond %lld tokens",
                       (long long)cv->images, (long long)per, (long long)max_len);
    memcpy(buf, cfg, sizeof *buf);
    buf->v.seq_len += add;
    if (buf->v.prompt_len > 0) buf->v.prompt_len += add;
    *out = buf;
    return VRAMEST_OK;
}

/* The tower's patches per image: the config's image, or as many as
 * workload.image_tokens implies for a dynamic-resolution (Qwen) tower. */
static uint64_t patches_per_image(const vx_tower *t, const vx_config_values *cv)
{
    bool dynamic = t->kind == VX_TW_QWEN2VL || t->kind == VX_TW_QWEN25VL || t->kind == VX_TW_QWEN3VL;
    if (dynamic && cv->image_tokens > 0) return vx_sat_mul((uint64_t)cv->image_tokens, (uint64_t)(t->merge * t->merge));
    return (uint64_t)t->patches_per_image;
}

static bool gated_mlp(const vx_tower *t)
{
    return t->kind == VX_TW_QWEN25VL || t->kind == VX_TW_PIXTRAL || t->kind == VX_TW_GEMMA4;
}

static unsigned act_bytes(const vx_ctx *x)
{
    unsigned a = vx_dtype_size(x->pol.rp.compute_dtype);
    return a ? a : 2;
}

/* Images of one micro-batch on this rank, and the tower's sequence. */
static uint64_t images_here(const vx_ctx *x, uint64_t seqs)
{
    return vx_sat_mul(seqs, (uint64_t)x->cv->images);
}

/* Eager attention's scores of one layer over every image: the ViT attends
 * within an image. */
static uint64_t eager_scores(const vx_ctx *x, uint64_t imgs, uint64_t P, unsigned bytes)
{
    if (x->cv->attention != VX_ATTN_EAGER) return 0;
    return vx_sat_mul(vx_sat_mul(imgs, (uint64_t)x->pol.m->tower.heads), vx_sat_mul(vx_sat_mul(P, P), bytes));
}

void vx_images_train(const vx_ctx *x, const vx_shard *sh, vx_step_out *out)
{
    const vx_config_values *cv = x->cv;
    const vx_tower *t = &x->pol.m->tower;
    if (cv->images <= 0 || !t->kind || !sh->first_stage || cv->finetune != VX_FT_FULL) return;
    uint64_t A = act_bytes(x), P = patches_per_image(t, cv), imgs = images_here(x, (uint64_t)cv->batch_size);
    uint64_t patches = vx_sat_mul(imgs, P), d = (uint64_t)t->hidden, f = (uint64_t)t->ffn;
    /* Saved per patch and layer: the norms' inputs (2d), the q|k|v input (d),
     * q, k, v (3d), the attention output (d, the output projection's input),
     * the MLP input (d), and the MLP's inner tensors (fc1 output and the
     * activation's output; gated: gate, up, act(gate), product). */
    uint64_t layer = vx_sat_add(8 * d, vx_sat_mul(gated_mlp(t) ? 4 : 2, f));
    uint64_t per_layer = vx_sat_add(vx_sat_mul(vx_sat_mul(patches, layer), A), eager_scores(x, imgs, P, (unsigned)A));
    uint64_t L = (uint64_t)t->layers, saved;
    if (cv->gradient_checkpointing == VX_GC_FULL)
        /* each block keeps its input; backward recomputes one block at a time */
        saved = vx_sat_add(vx_sat_mul(vx_sat_mul(patches, d), vx_sat_mul(L, A)), per_layer);
    else
        saved = vx_sat_mul(per_layer, L);
    /* the merger / projector: a norm input, two linears' inputs and the
     * activation's output per patch (deepstack mergers likewise) */
    uint64_t mergers = 1 + (uint64_t)(t->deepstack > 0 ? t->deepstack : 0);
    saved = vx_sat_add(saved, vx_sat_mul(vx_sat_mul(patches, 4 * d), vx_sat_mul(mergers, A)));

    /* Saved from the tower's forward (first) to its backward (last): live at
     * every point of forward and backward. */
    uint64_t best = 0;
    int best_phase = out->phase;
    for (uint32_t i = 0; i < out->ntl; i++) {
        vx_timeline_point *p = &out->tl[i];
        if (p->phase != VRAMEST_PHASE_FORWARD && p->phase != VRAMEST_PHASE_BACKWARD) continue;
        p->allocated = vx_sat_add(p->allocated, saved);
        if (p->allocated > best) best = p->allocated, best_phase = p->phase;
    }
    if (out->phase == VRAMEST_PHASE_FORWARD || out->phase == VRAMEST_PHASE_BACKWARD) {
        out->at[VRAMEST_CAT_ACTIVATIONS] = vx_sat_add(out->at[VRAMEST_CAT_ACTIVATIONS], saved);
        out->total = vx_sat_add(out->total, saved);
    } else if (best > out->total) {
        /* the optimizer step peaked before; now a point of forward or
         * backward does: its excess is the tower's activations */
        out->at[VRAMEST_CAT_ACTIVATIONS] = vx_sat_add(out->at[VRAMEST_CAT_ACTIVATIONS], best - out->total);
        out->total = best;
        out->phase = best_phase;
    }
}

uint64_t vx_images_prefill(const vx_ctx *x, const vx_shard *sh, uint64_t seqs)
{
    const vx_config_values *cv = x->cv;
    const vx_tower *t = &x->pol.m->tower;
    if (cv->images <= 0 || !t->kind || !sh->first_stage) return 0;
    uint64_t A = act_bytes(x), P = patches_per_image(t, cv), imgs = images_here(x, seqs);
    uint64_t patches = vx_sat_mul(imgs, P), d = (uint64_t)t->hidden, f = (uint64_t)t->ffn;
    /* No grad: one block's tensors at a time. Attention holds the input,
     * q|k|v, the rotated q and k and the output (7d); the MLP the input and
     * two inner tensors (three when gated: act(gate), up, the product). */
    uint64_t mlp = vx_sat_add(d, vx_sat_mul(gated_mlp(t) ? 3 : 2, f));
    uint64_t per_patch = vx_max_u64(7 * d, mlp);
    /* LLaVA and Mistral 3 call the tower with output_hidden_states=True to
     * pick vision_feature_layer: every layer's output stays referenced. */
    if (t->proj == VX_PJ_LLAVA || t->proj == VX_PJ_LLAVA_NEXT || t->proj == VX_PJ_MISTRAL3)
        per_patch = vx_sat_add(per_patch, vx_sat_mul((uint64_t)t->layers, d));
    /* eager scores in fp32 and their softmax in the compute dtype */
    return vx_sat_add(vx_sat_mul(vx_sat_mul(patches, per_patch), A), eager_scores(x, imgs, P, (unsigned)(4 + A)));
}
