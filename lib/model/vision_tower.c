/* Multimodal config.json (issue #16 item 3): which wrapper model_types have
 * a tower we model, which text family reads their language model, and the
 * tower's sizes from vision_config, with the defaults the Hugging Face config
 * classes give a missing key (transformers@68a7b7e272:
 * src/transformers/models/{qwen2_vl,qwen2_5_vl,qwen3_vl,qwen3_5,clip,siglip,
 * pixtral,llama4,llava,llava_next,mistral3,gemma3}/configuration_*.py).
 * A broken vision_config is refused here with the key named. */
#include <stdio.h>
#include <string.h>

#include "model/tower.h"

/* One wrapper model_type: its tower, its projector and the family its
 * language model is read as (text_config's model_type when `text_named`). */
typedef struct wrapper {
    const char *name, *text;
    uint8_t tower, proj, text_named;
} wrapper;

static const wrapper wrappers[] = {
    {"qwen2_vl", "qwen2", VX_TW_QWEN2VL, VX_PJ_NONE, 0},
    {"qwen2_5_vl", "qwen2", VX_TW_QWEN25VL, VX_PJ_NONE, 0},
    {"qwen3_vl", "qwen3", VX_TW_QWEN3VL, VX_PJ_NONE, 0},
    {"qwen3_vl_moe", "qwen3_moe", VX_TW_QWEN3VL, VX_PJ_NONE, 0},
    {"qwen3_5", "qwen3_5_text", VX_TW_QWEN3VL, VX_PJ_NONE, 0},
    {"qwen3_5_moe", "qwen3_5_moe_text", VX_TW_QWEN3VL, VX_PJ_NONE, 0},
    {"gemma3", "gemma3", VX_TW_SIGLIP, VX_PJ_GEMMA3, 0},
    {"llava", "llama", VX_TW_CLIP, VX_PJ_LLAVA, 1},
    {"llava_next", "llama", VX_TW_CLIP, VX_PJ_LLAVA_NEXT, 1},
    {"llava_onevision", "qwen2", VX_TW_CLIP, VX_PJ_LLAVA_NEXT, 1},
    {"mistral3", "mistral", VX_TW_PIXTRAL, VX_PJ_MISTRAL3, 1},
    {"ministral3", "mistral", VX_TW_PIXTRAL, VX_PJ_MISTRAL3, 1},
    {"llama4", "llama4", VX_TW_LLAMA4, VX_PJ_LLAMA4, 0},
    {"paligemma", "gemma", VX_TW_SIGLIP, VX_PJ_PALIGEMMA, 1},
    {"idefics3", "llama", VX_TW_IDEFICS3, VX_PJ_IDEFICS3, 1},
    {"smolvlm", "llama", VX_TW_IDEFICS3, VX_PJ_IDEFICS3, 1},
    {"internvl", "qwen2", VX_TW_INTERNVIT, VX_PJ_INTERNVL, 1},
    {"gemma4", "gemma4", VX_TW_GEMMA4, VX_PJ_GEMMA4, 0},
};

/* Text model_types whose layout is a family of another name. Ministral 3's
 * text model is Mistral's layout with YaRN scaling (no tensor differs). */
static const char *const text_alias[][2] = {
    {"ministral3", "mistral"}, {"ministral", "mistral"}, {"gemma3_text", "gemma3"},
    {"qwen3_vl_text", "qwen3"}, {"qwen3_vl_moe_text", "qwen3_moe"}, {"llama4_text", "llama4"},
    {"qwen2_vl_text", "qwen2"}, {"qwen2_5_vl_text", "qwen2"},
    {"gemma4_text", "gemma4"},
};

/* LlamaConfig() and MistralConfig() defaults
 * (transformers@68a7b7e272: models/llama/configuration_llama.py,
 * models/mistral/configuration_mistral.py). */
static const vx_text_default llama_defaults[] = {
    {VRAMEST_MODEL_VOCAB_SIZE, 32000},        {VRAMEST_MODEL_HIDDEN_SIZE, 4096},
    {VRAMEST_MODEL_INTERMEDIATE_SIZE, 11008}, {VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 32},
    {VRAMEST_MODEL_NUM_ATTENTION_HEADS, 32},  {VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS, 2048},
    {0, 0},
};
static const vx_text_default mistral_defaults[] = {
    {VRAMEST_MODEL_VOCAB_SIZE, 32000},        {VRAMEST_MODEL_HIDDEN_SIZE, 4096},
    {VRAMEST_MODEL_INTERMEDIATE_SIZE, 14336}, {VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 32},
    {VRAMEST_MODEL_NUM_ATTENTION_HEADS, 32},  {VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, 8},
    {VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS, 131072}, {0, 0},
};

/* Gemma3TextConfig() (transformers@008f5c8c29:
 * src/transformers/models/gemma3/configuration_gemma3.py): google's Gemma 3
 * 4B/12B/27B files give only the sizes that differ. */
static const vx_text_default gemma3_defaults[] = {
    {VRAMEST_MODEL_VOCAB_SIZE, 262208},       {VRAMEST_MODEL_HIDDEN_SIZE, 2304},
    {VRAMEST_MODEL_INTERMEDIATE_SIZE, 9216},  {VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 26},
    {VRAMEST_MODEL_NUM_ATTENTION_HEADS, 8},   {VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, 4},
    {VRAMEST_MODEL_HEAD_DIM, 256},            {VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS, 131072},
    {VRAMEST_MODEL_SLIDING_WINDOW, 4096},     {0, 0},
};

/* Gemma4TextConfig() (transformers@351f643ab9:
 * src/transformers/models/gemma4/configuration_gemma4.py); its
 * global_head_dim (512) and hidden_size_per_layer_input (256) defaults are
 * applied by the family's config hook (model/families/gemma4.c). */
static const vx_text_default gemma4_defaults[] = {
    {VRAMEST_MODEL_VOCAB_SIZE, 262144},       {VRAMEST_MODEL_HIDDEN_SIZE, 2304},
    {VRAMEST_MODEL_INTERMEDIATE_SIZE, 9216},  {VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 30},
    {VRAMEST_MODEL_NUM_ATTENTION_HEADS, 8},   {VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, 4},
    {VRAMEST_MODEL_HEAD_DIM, 256},            {VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS, 131072},
    {VRAMEST_MODEL_SLIDING_WINDOW, 512},      {0, 0},
};

const vx_text_default *vx_tower_text_defaults(const char *text_type)
{
    if (!text_type) return NULL;
    if (!strcmp(text_type, "gemma4")) return gemma4_defaults;
    if (!text_type) return NULL;
    if (!strcmp(text_type, "gemma3")) return gemma3_defaults;
    if (!strcmp(text_type, "llama")) return llama_defaults;
    if (!strcmp(text_type, "mistral")) return mistral_defaults;
    return NULL;
}

bool vx_tower_present(const vx_jdoc *doc, const vx_jv *root)
{
    const vx_jv *v = vx_jget(doc, root, "vision_config"), *a = vx_jget(doc, root, "audio_config");
    return (v && v->type != VX_J_NULL) || (a && a->type != VX_J_NULL);
}

/* ---- keys of vision_config ---- */

#define BIG 1048576       /* widths, tables and image sides beyond any real tower */
#define MAX_LAYERS 4096

typedef vx_treader vreader; /* sect: "vision_config" */

int vx_treader_int(const vx_treader *r, const char *key, int64_t def, int64_t lo, int64_t hi, int64_t *out)
{
    const vx_jv *v = vx_jget(r->doc, r->obj, key);
    *out = def;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    int64_t x;
    if (vx_jnum_i64(v, &x))
        return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s.%s': expected integer, got %s", r->sect, key,
                       vx_jkind(v));
    if (x < lo || x > hi)
        return vx_fail(VRAMEST_E_RANGE, "config.json: key '%s.%s': %lld is outside [%lld, %lld]", r->sect, key,
                       (long long)x, (long long)lo, (long long)hi);
    *out = x;
    return VRAMEST_OK;
}

/* A size given as an integer or as [height, width] (InternVLVisionConfig). */
static int vpair(const vreader *r, const char *key, int64_t def, int64_t *h, int64_t *w)
{
    const vx_jv *v = vx_jget(r->doc, r->obj, key);
    *h = *w = def;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_ARR) {
        int rc = vx_treader_int(r, key, def, 1, BIG, h);
        *w = *h;
        return rc;
    }
    const vx_jv *a = vx_jfirst(v), *b = a + 1;
    if (v->u.c.count != 2 || a->type != VX_J_INT || b->type != VX_J_INT || a->u.i < 1 || b->u.i < 1 ||
        a->u.i > BIG || b->u.i > BIG)
        return vx_fail(VRAMEST_E_RANGE, "config.json: key '%s.%s': expected an integer or [height, width] of "
                                        "positive integers", r->sect, key);
    *h = a->u.i, *w = b->u.i;
    return VRAMEST_OK;
}

/* The first of two spellings the file gives (Qwen2-VL writes in_chans). */
static int vint2(const vreader *r, const char *k1, const char *k2, int64_t def, int64_t lo, int64_t hi, int64_t *out)
{
    const vx_jv *v = vx_jget(r->doc, r->obj, k1);
    return vx_treader_int(r, v && v->type != VX_J_NULL ? k1 : k2, def, lo, hi, out);
}

static int vbool(const vreader *r, const char *key, int def, uint8_t *out)
{
    const vx_jv *v = vx_jget(r->doc, r->obj, key);
    *out = (uint8_t)def;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_TRUE && v->type != VX_J_FALSE)
        return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s.%s': expected true or false, got %s", r->sect, key,
                       vx_jkind(v));
    *out = v->type == VX_J_TRUE;
    return VRAMEST_OK;
}

static int vnum(const vreader *r, const char *key, double def, double lo, double hi, double *out)
{
    const vx_jv *v = vx_jget(r->doc, r->obj, key);
    *out = def;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    double x;
    if (vx_jnum_f64(v, &x) || !(x >= lo && x <= hi))
        return vx_fail(VRAMEST_E_RANGE, "config.json: key '%s.%s': expected a number in [%g, %g]", r->sect, key, lo,
                       hi);
    *out = x;
    return VRAMEST_OK;
}

/* A list key's length (deepstack_visual_indexes, a vision_feature_layer list);
 * `def` when absent, 1 for a plain integer. */
static int vlist_len(const vreader *r, const char *key, int64_t def, int int_ok, int64_t *out)
{
    const vx_jv *v = vx_jget(r->doc, r->obj, key);
    *out = def;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type == VX_J_INT && int_ok) return *out = 1, VRAMEST_OK;
    if (v->type != VX_J_ARR)
        return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s.%s': expected a list, got %s", r->sect, key, vx_jkind(v));
    *out = v->u.c.count;
    return VRAMEST_OK;
}


/* The sizes every tower has, with its class's defaults. */
static int common_sizes(const vreader *r, vx_tower *t, int64_t d_def, int64_t l_def, int64_t h_def, int64_t f_def,
                        int64_t p_def, int64_t img_def)
{
    int rc;
    if ((rc = vx_treader_int(r, "hidden_size", d_def, 1, BIG, &t->hidden)) ||
        (rc = vx_treader_int(r, "num_hidden_layers", l_def, 1, MAX_LAYERS, &t->layers)) ||
        (rc = vx_treader_int(r, "num_attention_heads", h_def, 1, BIG, &t->heads)) ||
        (rc = vx_treader_int(r, "intermediate_size", f_def, 1, BIG, &t->ffn)) ||
        (rc = vx_treader_int(r, "patch_size", p_def, 1, 4096, &t->patch)) ||
        (rc = vx_treader_int(r, "num_channels", 3, 1, 64, &t->channels)) ||
        (rc = vx_treader_int(r, "image_size", img_def, 1, BIG, &t->image_size)))
        return rc;
    if (t->image_size < t->patch)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: %s: image_size %lld is smaller than patch_size %lld",
                       r->sect, (long long)t->image_size, (long long)t->patch);
    return VRAMEST_OK;
}

/* Qwen2-VL, Qwen2.5-VL, Qwen3-VL / Qwen3.5: sizes under their own key names. */
static int qwen_sizes(const vreader *r, vx_tower *t)
{
    int rc;
    int64_t ratio;
    t->tpatch = 2, t->channels = 3, t->merge = 2;
    if (t->kind == VX_TW_QWEN2VL) {
        /* Qwen2VLVisionConfig: embed_dim is the width, hidden_size the output. */
        if ((rc = vx_treader_int(r, "embed_dim", 1280, 1, BIG, &t->hidden)) || (rc = vx_treader_int(r, "depth", 32, 1, MAX_LAYERS, &t->layers)) ||
            (rc = vx_treader_int(r, "num_heads", 16, 1, BIG, &t->heads)) || (rc = vx_treader_int(r, "mlp_ratio", 4, 1, 64, &ratio)) ||
            (rc = vx_treader_int(r, "hidden_size", 3584, 1, BIG, &t->out_hidden)) || (rc = vx_treader_int(r, "patch_size", 14, 1, 4096, &t->patch)))
            return rc;
        t->ffn = t->hidden * ratio;
    } else {
        int q3 = t->kind == VX_TW_QWEN3VL;
        if ((rc = vx_treader_int(r, "hidden_size", q3 ? 1152 : 3584, 1, BIG, &t->hidden)) ||
            (rc = vx_treader_int(r, "depth", q3 ? 27 : 32, 1, MAX_LAYERS, &t->layers)) ||
            (rc = vx_treader_int(r, "num_heads", 16, 1, BIG, &t->heads)) ||
            (rc = vx_treader_int(r, "intermediate_size", q3 ? 4304 : 3420, 1, BIG, &t->ffn)) ||
            (rc = vx_treader_int(r, "out_hidden_size", 3584, 1, BIG, &t->out_hidden)) ||
            (rc = vx_treader_int(r, "patch_size", q3 ? 16 : 14, 1, 4096, &t->patch)))
            return rc;
        if (q3 && ((rc = vx_treader_int(r, "num_position_embeddings", 2304, 1, BIG, &t->positions)) ||
                   (rc = vlist_len(r, "deepstack_visual_indexes", 3, 0, &t->deepstack))))
            return rc;
        if (t->deepstack > t->layers)
            return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: %s: %lld deepstack_visual_indexes for %lld layers",
                           r->sect, (long long)t->deepstack, (long long)t->layers);
    }
    if ((rc = vint2(r, "in_channels", "in_chans", 3, 1, 64, &t->channels)) ||
        (rc = vx_treader_int(r, "temporal_patch_size", 2, 1, 64, &t->tpatch)) ||
        (rc = vx_treader_int(r, "spatial_merge_size", 2, 1, 64, &t->merge)))
        return rc;
    /* Images are resized to multiples of patch x merge: the default image
     * is 1024 x 1024 pixels so rounded (the processor's min/max pixels
     * bound real ones; workload.image_tokens gives another). */
    int64_t unit = t->patch * t->merge, side = (1024 + unit / 2) / unit;
    if (side < 1) side = 1;
    t->image_size = side * unit;
    t->tokens_per_image = side * side;
    t->patches_per_image = side * side * t->merge * t->merge;
    return VRAMEST_OK;
}

/* Tokens per image of the fixed-size towers. */
static void fixed_tokens(vx_tower *t, const vx_jdoc *doc, const vx_jv *root)
{
    int64_t n = t->image_size / t->patch; /* patches per side */
    switch (t->kind) {
    case VX_TW_CLIP: t->patches_per_image = n * n + 1, t->tokens_per_image = n * n; break;
    case VX_TW_SIGLIP: t->patches_per_image = t->tokens_per_image = n * n; break;
    case VX_TW_IDEFICS3:
        /* one image_size tile; the connector folds scale x scale patches */
        t->patches_per_image = n * n;
        t->tokens_per_image = (n / t->merge) * (n / t->merge);
        break;
    case VX_TW_PIXTRAL:
        /* one image of image_size pixels (the processor's longest edge):
         * a break token ends each row of merged patches */
        t->patches_per_image = n * n;
        if (t->proj == VX_PJ_MISTRAL3) {
            int64_t m = n / (t->merge > 0 ? t->merge : 1);
            t->tokens_per_image = m * (m + 1);
        } else {
            t->tokens_per_image = n * (n + 1);
        }
        break;
    case VX_TW_LLAMA4:
        /* one tile: (n^2 + 1) patches, pixel-shuffled to n^2 ratio^2 tokens */
        t->patches_per_image = n * n + 1;
        t->tokens_per_image = (int64_t)((double)(n * n) * t->shuffle * t->shuffle);
        break;
    default: break;
    }
    if (t->proj == VX_PJ_LLAVA_NEXT) {
        /* anyres at the default grid's largest square (2 x 2 tiles of the
         * base resolution): the base image, then the tiles' features with a
         * newline per row */
        t->patches_per_image *= 5;
        t->tokens_per_image += 2 * n * (2 * n + 1);
    }
    const vx_jv *v;
    if (t->proj == VX_PJ_GEMMA3) {
        int64_t k = 256;
        if ((v = vx_jget(doc, root, "mm_tokens_per_image")) && v->type == VX_J_INT && v->u.i > 0) k = v->u.i;
        t->tokens_per_image = k;
    }
    if (t->kind == VX_TW_CLIP && (v = vx_jget(doc, root, "vision_feature_select_strategy")) && v->type == VX_J_STR &&
        !strcmp(vx_jstr(doc, v), "full"))
        t->tokens_per_image += 1;
}

/* InternVLVisionConfig: sizes as [height, width], its flags. */
static int internvit_sizes(const vreader *r, vx_tower *t)
{
    int64_t ih, iw, ph, pw;
    const vx_jv *nt;
    int rc;
    if ((rc = vx_treader_int(r, "hidden_size", 1024, 1, BIG, &t->hidden)) ||
        (rc = vx_treader_int(r, "num_hidden_layers", 24, 1, MAX_LAYERS, &t->layers)) ||
        (rc = vx_treader_int(r, "num_attention_heads", 16, 1, BIG, &t->heads)) ||
        (rc = vx_treader_int(r, "intermediate_size", 4096, 1, BIG, &t->ffn)) ||
        (rc = vx_treader_int(r, "num_channels", 3, 1, 64, &t->channels)) || (rc = vpair(r, "image_size", 448, &ih, &iw)) ||
        (rc = vpair(r, "patch_size", 14, &ph, &pw)) || (rc = vbool(r, "attention_bias", 0, &t->attn_bias)) ||
        (rc = vbool(r, "use_qk_norm", 0, &t->qk_norm)))
        return rc;
    if (ih < ph || iw < pw)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: %s: image_size is smaller than patch_size", r->sect);
    t->rms = (nt = vx_jget(r->doc, r->obj, "norm_type")) && nt->type == VX_J_STR && !strcmp(vx_jstr(r->doc, nt), "rms_norm");
    t->image_size = ih, t->patch = ph;
    t->positions = (ih / ph) * (iw / pw);
    t->patches_per_image = t->positions + 1;
    t->tokens_per_image = (int64_t)((double)t->positions * t->shuffle * t->shuffle);
    return VRAMEST_OK;
}

/* Gemma4VisionConfig (transformers@351f643ab9: models/gemma4/
 * configuration_gemma4.py) defaults. An image is pooled to
 * vision_soft_tokens_per_image (the wrapper's key; 280 in google's
 * configs) tokens of pooling_kernel_size^2 patches each. */
static int gemma4_sizes(const vreader *r, vx_tower *t, const vx_jdoc *doc, const vx_jv *root)
{
    int rc;
    vreader top = {doc, root, "config"};
    if ((rc = vx_treader_int(r, "hidden_size", 768, 1, BIG, &t->hidden)) ||
        (rc = vx_treader_int(r, "num_hidden_layers", 16, 1, MAX_LAYERS, &t->layers)) ||
        (rc = vx_treader_int(r, "num_attention_heads", 12, 1, BIG, &t->heads)) ||
        (rc = vx_treader_int(r, "head_dim", 64, 1, BIG, &t->head_dim)) ||
        (rc = vx_treader_int(r, "intermediate_size", 3072, 1, BIG, &t->ffn)) ||
        (rc = vx_treader_int(r, "patch_size", 16, 1, 4096, &t->patch)) ||
        (rc = vx_treader_int(r, "position_embedding_size", 10240, 1, BIG, &t->positions)) ||
        (rc = vx_treader_int(r, "pooling_kernel_size", 3, 1, 64, &t->merge)) ||
        (rc = vx_treader_int(&top, "vision_soft_tokens_per_image", 280, 1, BIG, &t->tokens_per_image)))
        return rc;
    const vx_jv *kv = vx_jget(r->doc, r->obj, "num_key_value_heads");
    if (kv && kv->type == VX_J_INT && kv->u.i != t->heads)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: %s: num_key_value_heads %lld differs from "
                                              "num_attention_heads %lld: a grouped-query vision tower is not modelled",
                       r->sect, (long long)kv->u.i, (long long)t->heads);
    t->channels = 3;
    t->patches_per_image = t->tokens_per_image * t->merge * t->merge;
    t->image_size = t->patch; /* images are patchified by the processor at their own size */
    return VRAMEST_OK;
}

static int tower_sizes(const vreader *r, vx_tower *t, const vx_jdoc *doc, const vx_jv *root)
{
    int rc;
    switch (t->kind) {
    case VX_TW_QWEN2VL:
    case VX_TW_QWEN25VL:
    case VX_TW_QWEN3VL: rc = qwen_sizes(r, t); break;
    case VX_TW_CLIP: rc = common_sizes(r, t, 768, 12, 12, 3072, 32, 224); break;
    case VX_TW_SIGLIP:
        rc = common_sizes(r, t, 768, 12, 12, 3072, 16, 224);
        if (!rc) rc = vbool(r, "vision_use_head", 1, &t->use_head);
        break;
    case VX_TW_PIXTRAL: rc = common_sizes(r, t, 1024, 24, 16, 4096, 16, 1024); break;
    case VX_TW_IDEFICS3: rc = common_sizes(r, t, 1152, 12, 16, 3072, 32, 224); break;
    case VX_TW_INTERNVIT: rc = internvit_sizes(r, t); break;
    case VX_TW_GEMMA4: return gemma4_sizes(r, t, doc, root);
    case VX_TW_LLAMA4:
        if ((rc = common_sizes(r, t, 768, 34, 16, 3072, 14, 448)) ||
            (rc = vnum(r, "pixel_shuffle_ratio", 0.5, 1e-3, 1.0, &t->shuffle)) ||
            (rc = vx_treader_int(r, "projector_input_dim", 4096, 1, BIG, &t->proj_in)) ||
            (rc = vx_treader_int(r, "projector_output_dim", 4096, 1, BIG, &t->proj_out)) ||
            (rc = vx_treader_int(r, "vision_output_dim", 7680, 1, BIG, &t->out_hidden)) ||
            (rc = vbool(r, "multi_modal_projector_bias", 0, &t->proj_bias)))
            return rc;
        break;
    default: return vx_fail(VRAMEST_E_INTERNAL, "config.json: tower kind %d", t->kind);
    }
    if (rc) return rc;
    if (t->hidden % t->heads)
        return vx_fail(VRAMEST_E_INVALID_MODEL,
                       "config.json: %s: hidden size %lld is not a multiple of the %lld attention heads", r->sect,
                       (long long)t->hidden, (long long)t->heads);
    if (t->kind >= VX_TW_CLIP && t->kind != VX_TW_INTERNVIT) fixed_tokens(t, doc, root);
    return VRAMEST_OK;
}

/* The wrapper's own keys that size the projector. */
static int projector_keys(const vx_jdoc *doc, const vx_jv *root, vx_tower *t)
{
    vreader top = {doc, root, "config"};
    int rc = VRAMEST_OK;
    t->feature_layers = 1;
    if (t->proj == VX_PJ_LLAVA || t->proj == VX_PJ_LLAVA_NEXT || t->proj == VX_PJ_MISTRAL3) {
        /* LlavaConfig / Mistral3Config: a list of feature layers is
         * concatenated before linear_1 */
        if ((rc = vlist_len(&top, "vision_feature_layer", 1, 1, &t->feature_layers))) return rc;
        if (t->feature_layers < 1) t->feature_layers = 1;
        /* default true in LlavaConfig, false in Mistral3Config */
        rc = vbool(&top, "multimodal_projector_bias", t->proj != VX_PJ_MISTRAL3, &t->proj_bias);
    }
    if (!rc && t->proj == VX_PJ_MISTRAL3) rc = vx_treader_int(&top, "spatial_merge_size", 2, 1, 64, &t->merge);
    /* Idefics3Config / SmolVLMConfig: the connector's pixel shuffle */
    if (!rc && t->proj == VX_PJ_IDEFICS3) rc = vx_treader_int(&top, "scale_factor", 2, 1, 64, &t->merge);
    /* InternVLConfig: the projector's pixel shuffle (0.5: 2 x 2 patches per token) */
    if (!rc && t->proj == VX_PJ_INTERNVL) {
        rc = vnum(&top, "downsample_ratio", 0.5, 1e-3, 1.0, &t->shuffle);
        if (!rc) t->merge = (int64_t)(1.0 / t->shuffle + 0.5);
    }
    /* PaliGemmaConfig sets vision_config.projection_dim from its own key */
    if (!rc && t->proj == VX_PJ_PALIGEMMA) rc = vx_treader_int(&top, "projection_dim", 2048, 1, BIG, &t->proj_out);
    return rc;
}

static const wrapper *wrapper_of(const char *name)
{
    for (size_t i = 0; i < VX_ARRAY_LEN(wrappers); i++)
        if (!strcmp(wrappers[i].name, name)) return &wrappers[i];
    return NULL;
}

static int unsupported_wrapper(const char *name, const char *why)
{
    char list[400];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < VX_ARRAY_LEN(wrappers) && used + 24 < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", wrappers[i].name);
    return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: model_type '%.60s' with %s is not modelled (multimodal "
                                          "model_types: %s)", name, why, list);
}

int vx_tower_read(const vx_jdoc *doc, const vx_jv *root, const char *wrapper_name, vx_tower *t, const vx_jv **text,
                  const char **text_type)
{
    memset(t, 0, sizeof *t);
    *text = root;
    *text_type = NULL;
    const vx_jv *vc = vx_jget(doc, root, "vision_config"), *ac = vx_jget(doc, root, "audio_config");
    const wrapper *w = wrapper_of(wrapper_name);
    /* Gemma 4's conformer is the one audio tower modelled */
    if (ac && ac->type != VX_J_NULL && (!w || w->tower != VX_TW_GEMMA4))
        return unsupported_wrapper(wrapper_name, "an audio tower (audio_config)");
    if (!w) return unsupported_wrapper(wrapper_name, "a vision_config");
    if (!vc || vc->type != VX_J_OBJ)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: key 'vision_config': expected an object with the vision "
                                                "tower's sizes, got %s", vc ? vx_jkind(vc) : "nothing");
    const vx_jv *tc = vx_jget(doc, root, "text_config");
    if (tc && tc->type != VX_J_NULL && tc->type != VX_J_OBJ)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: key 'text_config': expected an object, got %s",
                       vx_jkind(tc));
    if (tc && tc->type == VX_J_OBJ) *text = tc;
    *text_type = w->text;
    const vx_jv *mt;
    if (w->text_named && tc && tc->type == VX_J_OBJ && (mt = vx_jget(doc, tc, "model_type")) && mt->type == VX_J_STR &&
        !(mt->flags & VX_JF_NUL))
        *text_type = vx_jstr(doc, mt);
    for (size_t i = 0; i < VX_ARRAY_LEN(text_alias); i++)
        if (!strcmp(*text_type, text_alias[i][0])) *text_type = text_alias[i][1];

    t->kind = w->tower;
    t->proj = w->proj;
    /* LLaVA wraps whichever vision model its vision_config names. */
    const vx_jv *vt = vx_jget(doc, vc, "model_type");
    if (w->text_named && w->tower == VX_TW_CLIP && vt && vt->type == VX_J_STR) {
        const char *s = vx_jstr(doc, vt);
        if (!strcmp(s, "siglip_vision_model")) t->kind = VX_TW_SIGLIP;
        else if (!strcmp(s, "pixtral")) t->kind = VX_TW_PIXTRAL;
        else if (strcmp(s, "clip_vision_model"))
            return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: vision_config.model_type '%.60s' is not modelled "
                                                  "(clip_vision_model, siglip_vision_model, pixtral)", s);
    }
    vreader r = {doc, vc, "vision_config"};
    int rc = projector_keys(doc, root, t);
    if (!rc) rc = tower_sizes(&r, t, doc, root);
    if (!rc && ac && ac->type != VX_J_NULL) rc = vx_audio_read(doc, ac, t);
    return rc;
}
