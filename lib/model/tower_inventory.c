/* The tensors of a multimodal tower and its projector (issue #16 item 3),
 * one group per nn.Parameter of the Hugging Face vision model, in module
 * order, from transformers@68a7b7e272:
 * src/transformers/models/qwen2_vl/modeling_qwen2_vl.py (Qwen2VisionTransformer),
 * qwen2_5_vl/modeling_qwen2_5_vl.py, qwen3_vl/modeling_qwen3_vl.py
 * (Qwen3VLVisionModel; Qwen3.5 reuses it), clip/modeling_clip.py,
 * siglip/modeling_siglip.py, pixtral/modeling_pixtral.py,
 * llama4/modeling_llama4.py (Llama4VisionModel, Llama4MultiModalProjector),
 * llava/modeling_llava.py, llava_next/modeling_llava_next.py,
 * gemma3/modeling_gemma3.py, mistral3/modeling_mistral3.py,
 * paligemma/modeling_paligemma.py, idefics3/modeling_idefics3.py (SmolVLM
 * likewise), internvl/modeling_internvl.py.
 * Tower tensors are global groups (part GLOBAL, one copy per tower layer):
 * they live with the embeddings on the first pipeline stage, are not split
 * by tensor parallelism, and GPTQ / AWQ / fp8 checkpoints keep them
 * unquantized, as those methods quantize the decoder blocks only. Patch
 * convolutions and position tables are kind OTHER: no method replaces them.
 * Names start with the module's path so that PEFT's leaf-name defaults
 * (q_proj, v_proj) do not select them. */
#include <stdio.h>

#include "model/inventory.h"
#include "model/tower.h"

#define R VX_ROLE_OTHER
#define G VX_PART_GLOBAL

static void lin(vx_ib *b, const char *name, int64_t out, int64_t in, int bias, int64_t copies)
{
    vx_ib_lin_n(b, name, R, G, out, in, bias, 0, copies, 0);
}

static void norm(vx_ib *b, const char *name, int kind, int64_t dim, int64_t copies)
{
    vx_ib_norm_n(b, name, VX_ROLE_NORM, G, kind, dim, 0, copies);
}

/* A parameter no quantizer replaces: a convolution's kernel, a table. */
static void other(vx_ib *b, const char *name, int64_t rows, int64_t cols)
{
    vx_ib_put(b, name, R, VX_TK_OTHER, G, rows, cols, 0, 1, 0);
}

/* Attention with separate q, k, v, o (CLIP, SigLIP, Pixtral, Llama 4). */
static void attn_split(vx_ib *b, const char *pre, int64_t d, int bias, int64_t L)
{
    char n[48];
    static const char *const leaf[4] = {"q_proj", "k_proj", "v_proj", "o_proj"};
    for (int i = 0; i < 4; i++) {
        snprintf(n, sizeof n, "%s.%s", pre, leaf[i]);
        lin(b, n, d, d, bias, L);
    }
}

/* The Qwen towers' blocks and merger. */
static void qwen(vx_ib *b, const vx_tower *t)
{
    int64_t d = t->hidden, L = t->layers, m2 = t->merge * t->merge, dm = d * m2;
    int rms = t->kind == VX_TW_QWEN25VL;
    int nk = rms ? VX_NORM_RMS : VX_NORM_LAYER;
    other(b, "visual.patch_embed.proj", d, t->channels * t->tpatch * t->patch * t->patch);
    if (t->kind == VX_TW_QWEN3VL) {
        vx_ib_put(b, "visual.patch_embed.proj", R, VX_TK_BIAS, G, d, 1, 0, 1, 0);
        other(b, "visual.pos_embed", t->positions, d);
    }
    norm(b, "visual.blocks.norm1", nk, d, L);
    norm(b, "visual.blocks.norm2", nk, d, L);
    lin(b, "visual.blocks.attn.qkv", 3 * d, d, 1, L);
    lin(b, "visual.blocks.attn.proj", d, d, 1, L);
    if (rms) {
        lin(b, "visual.blocks.mlp.gate_proj", t->ffn, d, 1, L);
        lin(b, "visual.blocks.mlp.up_proj", t->ffn, d, 1, L);
        lin(b, "visual.blocks.mlp.down_proj", d, t->ffn, 1, L);
    } else {
        lin(b, "visual.blocks.mlp.fc1", t->ffn, d, 1, L);
        lin(b, "visual.blocks.mlp.fc2", d, t->ffn, 1, L);
    }
    /* PatchMerger: a norm over the tower width, then two linears over
     * merge^2 concatenated patches */
    norm(b, "visual.merger.norm", nk, d, 1);
    lin(b, "visual.merger.fc1", dm, dm, 1, 1);
    lin(b, "visual.merger.fc2", t->out_hidden, dm, 1, 1);
    if (t->deepstack > 0) {
        /* deepstack mergers normalise after the shuffle (over d x merge^2) */
        norm(b, "visual.deepstack_merger.norm", VX_NORM_LAYER, dm, t->deepstack);
        lin(b, "visual.deepstack_merger.fc1", dm, dm, 1, t->deepstack);
        lin(b, "visual.deepstack_merger.fc2", t->out_hidden, dm, 1, t->deepstack);
    }
}

/* CLIP and SigLIP encoder layers (pre-LN, biased attention and MLP). */
static void vit_layers(vx_ib *b, const vx_tower *t)
{
    int64_t d = t->hidden, L = t->layers;
    norm(b, "vision.layers.layer_norm1", VX_NORM_LAYER, d, L);
    attn_split(b, "vision.layers.self_attn", d, 1, L);
    norm(b, "vision.layers.layer_norm2", VX_NORM_LAYER, d, L);
    lin(b, "vision.layers.mlp.fc1", t->ffn, d, 1, L);
    lin(b, "vision.layers.mlp.fc2", d, t->ffn, 1, L);
}

static void clip(vx_ib *b, const vx_tower *t)
{
    int64_t d = t->hidden, n = t->image_size / t->patch;
    other(b, "vision.embeddings.class_embedding", d, 1);
    other(b, "vision.embeddings.patch_embedding", d, t->channels * t->patch * t->patch);
    other(b, "vision.embeddings.position_embedding", n * n + 1, d);
    norm(b, "vision.pre_layrnorm", VX_NORM_LAYER, d, 1);
    vit_layers(b, t);
    norm(b, "vision.post_layernorm", VX_NORM_LAYER, d, 1);
}

static void siglip(vx_ib *b, const vx_tower *t)
{
    int64_t d = t->hidden, n = t->image_size / t->patch;
    other(b, "vision.embeddings.patch_embedding", d, t->channels * t->patch * t->patch);
    vx_ib_put(b, "vision.embeddings.patch_embedding", R, VX_TK_BIAS, G, d, 1, 0, 1, 0);
    other(b, "vision.embeddings.position_embedding", n * n, d);
    vit_layers(b, t);
    norm(b, "vision.post_layernorm", VX_NORM_LAYER, d, 1);
    if (t->use_head) {
        /* SiglipMultiheadAttentionPoolingHead: probe, nn.MultiheadAttention
         * (packed in_proj), LayerNorm, MLP */
        other(b, "vision.head.probe", d, 1);
        lin(b, "vision.head.attention.in_proj", 3 * d, d, 1, 1);
        lin(b, "vision.head.attention.out_proj", d, d, 1, 1);
        norm(b, "vision.head.layernorm", VX_NORM_LAYER, d, 1);
        lin(b, "vision.head.mlp.fc1", t->ffn, d, 1, 1);
        lin(b, "vision.head.mlp.fc2", d, t->ffn, 1, 1);
    }
}

static void pixtral(vx_ib *b, const vx_tower *t)
{
    int64_t d = t->hidden, L = t->layers;
    other(b, "vision.patch_conv", d, t->channels * t->patch * t->patch);
    norm(b, "vision.ln_pre", VX_NORM_RMS, d, 1);
    norm(b, "vision.layers.attention_norm", VX_NORM_RMS, d, L);
    attn_split(b, "vision.layers.attention", d, 0, L);
    norm(b, "vision.layers.ffn_norm", VX_NORM_RMS, d, L);
    lin(b, "vision.layers.feed_forward.gate_proj", t->ffn, d, 0, L);
    lin(b, "vision.layers.feed_forward.up_proj", t->ffn, d, 0, L);
    lin(b, "vision.layers.feed_forward.down_proj", d, t->ffn, 0, L);
}

static void llama4(vx_ib *b, const vx_tower *t)
{
    int64_t d = t->hidden, L = t->layers, n = t->image_size / t->patch;
    /* the unfold convolution is an nn.Linear without bias */
    lin(b, "vision.patch_embedding.linear", d, t->channels * t->patch * t->patch, 0, 1);
    other(b, "vision.class_embedding", d, 1);
    other(b, "vision.positional_embedding_vlm", n * n + 1, d);
    norm(b, "vision.layernorm_pre", VX_NORM_LAYER, d, 1);
    norm(b, "vision.layernorm_post", VX_NORM_LAYER, d, 1);
    norm(b, "vision.layers.input_layernorm", VX_NORM_LAYER, d, L);
    attn_split(b, "vision.layers.self_attn", d, 1, L);
    norm(b, "vision.layers.post_attention_layernorm", VX_NORM_LAYER, d, L);
    lin(b, "vision.layers.mlp.fc1", t->ffn, d, 1, L);
    lin(b, "vision.layers.mlp.fc2", d, t->ffn, 1, L);
    /* pixel shuffle folds 1 / ratio^2 patches into one vector */
    int64_t shuffled = (int64_t)((double)d / (t->shuffle * t->shuffle));
    lin(b, "vision.vision_adapter.mlp.fc1", t->proj_in, shuffled, 0, 1);
    lin(b, "vision.vision_adapter.mlp.fc2", t->proj_out, t->proj_out, 0, 1);
}

/* InternVLVisionModel: CLS token, patch conv with bias, CLS + patch
 * positions; per layer layernorm_before/after, q/k/v (attention_bias),
 * q/k norms over the full width (use_qk_norm), the output projection with
 * bias, fc1/fc2, the layer-scale vectors lambda_1/lambda_2; no final norm
 * with mean pooling. */
static void internvit(vx_ib *b, const vx_tower *t)
{
    int64_t d = t->hidden, L = t->layers;
    int nk = t->rms ? VX_NORM_RMS : VX_NORM_LAYER;
    other(b, "vision.embeddings.cls_token", d, 1);
    other(b, "vision.embeddings.patch_embeddings.projection", d, t->channels * t->patch * t->patch);
    vx_ib_put(b, "vision.embeddings.patch_embeddings.projection", R, VX_TK_BIAS, G, d, 1, 0, 1, 0);
    other(b, "vision.embeddings.position_embeddings", t->positions + 1, d);
    norm(b, "vision.layer.layernorm_before", nk, d, L);
    lin(b, "vision.layer.attention.q_proj", d, d, t->attn_bias, L);
    lin(b, "vision.layer.attention.k_proj", d, d, t->attn_bias, L);
    lin(b, "vision.layer.attention.v_proj", d, d, t->attn_bias, L);
    if (t->qk_norm) {
        norm(b, "vision.layer.attention.q_norm", VX_NORM_RMS, d, L);
        norm(b, "vision.layer.attention.k_norm", VX_NORM_RMS, d, L);
    }
    lin(b, "vision.layer.attention.projection_layer", d, d, 1, L);
    norm(b, "vision.layer.layernorm_after", nk, d, L);
    lin(b, "vision.layer.mlp.fc1", t->ffn, d, 1, L);
    lin(b, "vision.layer.mlp.fc2", d, t->ffn, 1, L);
    vx_ib_put(b, "vision.layer.lambda", R, VX_TK_NORM, G, d, 1, 0, 2 * L, 0);
}

/* Gemma4VisionModel (transformers@c308a309e6: models/gemma4/
 * modeling_gemma4.py): patch_embedder.input_proj (a linear over 3 p^2
 * pixels, no bias) and a 2 x position_embedding_size table of x and y
 * positions; sandwich-normed blocks (four weighted RMSNorms), q/k/v/o
 * without biases, per-head q/k norms (v_norm has no weight), a gated MLP.
 * The pooler has no parameters; the std_bias / std_scale buffers
 * (standardize) are not parameters and are not counted. */
static void gemma4(vx_ib *b, const vx_tower *t)
{
    int64_t d = t->hidden, L = t->layers, hd = t->head_dim > 0 ? t->head_dim : d / t->heads, w = t->heads * hd;
    lin(b, "vision_tower.patch_embedder.input_proj", d, t->channels * t->patch * t->patch, 0, 1);
    other(b, "vision_tower.patch_embedder.position_embedding_table", 2 * t->positions, d);
    lin(b, "vision_tower.encoder.layers.self_attn.q_proj", w, d, 0, L);
    lin(b, "vision_tower.encoder.layers.self_attn.k_proj", w, d, 0, L);
    lin(b, "vision_tower.encoder.layers.self_attn.v_proj", w, d, 0, L);
    lin(b, "vision_tower.encoder.layers.self_attn.o_proj", d, w, 0, L);
    norm(b, "vision_tower.encoder.layers.self_attn.q_norm", VX_NORM_RMS, hd, L);
    norm(b, "vision_tower.encoder.layers.self_attn.k_norm", VX_NORM_RMS, hd, L);
    lin(b, "vision_tower.encoder.layers.mlp.gate_proj", t->ffn, d, 0, L);
    lin(b, "vision_tower.encoder.layers.mlp.up_proj", t->ffn, d, 0, L);
    lin(b, "vision_tower.encoder.layers.mlp.down_proj", d, t->ffn, 0, L);
    norm(b, "vision_tower.encoder.layers.norms", VX_NORM_RMS, d, 4 * L);
}

static void projector(vx_ib *b, const vx_tower *t, int64_t h)
{
    int64_t d = t->hidden, in = d * t->feature_layers;
    switch (t->proj) {
    case VX_PJ_LLAVA:
    case VX_PJ_LLAVA_NEXT:
        lin(b, "multi_modal_projector.linear_1", h, in, t->proj_bias, 1);
        lin(b, "multi_modal_projector.linear_2", h, h, t->proj_bias, 1);
        if (t->proj == VX_PJ_LLAVA_NEXT) other(b, "image_newline", h, 1);
        break;
    case VX_PJ_GEMMA3:
        norm(b, "multi_modal_projector.mm_soft_emb_norm", VX_NORM_RMS, d, 1);
        lin(b, "multi_modal_projector.mm_input_projection", h, d, 0, 1);
        break;
    case VX_PJ_MISTRAL3:
        norm(b, "multi_modal_projector.norm", VX_NORM_RMS, d, 1);
        lin(b, "multi_modal_projector.patch_merger", d, d * t->merge * t->merge, 0, 1);
        lin(b, "multi_modal_projector.linear_1", h, in, t->proj_bias, 1);
        lin(b, "multi_modal_projector.linear_2", h, h, t->proj_bias, 1);
        break;
    case VX_PJ_LLAMA4: lin(b, "multi_modal_projector.linear_1", h, t->out_hidden, t->proj_bias, 1); break;
    case VX_PJ_PALIGEMMA: lin(b, "multi_modal_projector.linear", t->proj_out, d, 1, 1); break;
    case VX_PJ_IDEFICS3: lin(b, "connector.modality_projection.proj", h, d * t->merge * t->merge, 0, 1); break;
    case VX_PJ_INTERNVL:
        norm(b, "multi_modal_projector.layer_norm", VX_NORM_LAYER, d * t->merge * t->merge, 1);
        lin(b, "multi_modal_projector.linear_1", h, d * t->merge * t->merge, 1, 1);
        lin(b, "multi_modal_projector.linear_2", h, h, 1, 1);
        break;
    /* the pre-projection norm has no weight (with_scale=False) */
    case VX_PJ_GEMMA4: lin(b, "embed_vision.embedding_projection", h, d, 0, 1); break;
    default: break;
    }
}

void vx_tower_tensors(const vx_tower *t, const vx_shape *s, vx_ib *b)
{
    switch (t->kind) {
    case VX_TW_QWEN2VL:
    case VX_TW_QWEN25VL:
    case VX_TW_QWEN3VL: qwen(b, t); break;
    case VX_TW_CLIP: clip(b, t); break;
    case VX_TW_SIGLIP:
    case VX_TW_IDEFICS3: siglip(b, t); break;
    case VX_TW_PIXTRAL: pixtral(b, t); break;
    case VX_TW_LLAMA4: llama4(b, t); break;
    case VX_TW_INTERNVIT: internvit(b, t); break;
    case VX_TW_GEMMA4: gemma4(b, t); break;
    default: return;
    }
    projector(b, t, s->hidden);
}

static uint64_t elems_of(const vx_tensor *inv, size_t from, size_t to)
{
    uint64_t e = 0;
    for (size_t i = from; i < to; i++) e = vx_sat_add(e, vx_tensor_elems(&inv[i]));
    return e;
}

int vx_tower_build(const vx_tower *t, const vx_shape *s, vx_tensor **inv, size_t *n, size_t *cap, uint64_t *params,
                   uint64_t *audio_params)
{
    size_t first = *n;
    vx_ib b = {.inv = inv, .n = n, .cap = cap};
    vx_tower_tensors(t, s, &b);
    size_t mid = *n;
    vx_audio_tensors(t, s->hidden, &b);
    *params = b.rc ? 0 : elems_of(*inv, first, mid);
    *audio_params = b.rc ? 0 : elems_of(*inv, mid, *n);
    return b.rc;
}
