/* Multimodal towers (issue #16 item 3): the vision encoder and projector of
 * a config.json with a vision_config beside (or around) its language model.
 * The wrapper's model_type picks the tower's layout and the projector; the
 * language model is read by its text family as any text config.json is.
 * vision_tower.c reads the config, tower_inventory.c emits the tensors. The
 * tower is described by values only (no pointers): the model handle copies it
 * as it copies its options. */
#ifndef VX_TOWER_H
#define VX_TOWER_H

#include "common/json_reader.h"
#include "common/internal.h"

struct vx_ib;
struct vx_shape;

/* Tower layouts (the Hugging Face vision model class). */
enum {
    VX_TW_NONE = 0,
    VX_TW_QWEN2VL = 1,  /* Qwen2VisionTransformerPretrainedModel: LayerNorm, fc1/fc2, PatchMerger */
    VX_TW_QWEN25VL = 2, /* Qwen2_5_VisionTransformerPretrainedModel: RMSNorm, gated MLP, window attention */
    VX_TW_QWEN3VL = 3,  /* Qwen3VLVisionModel: learned positions, LayerNorm, deepstack mergers */
    VX_TW_CLIP = 4,     /* CLIPVisionModel (LLaVA) */
    VX_TW_SIGLIP = 5,   /* SiglipVisionModel (Gemma 3, PaliGemma-style LLaVA) */
    VX_TW_PIXTRAL = 6,  /* PixtralVisionModel (Mistral 3, Pixtral) */
    VX_TW_LLAMA4 = 7,   /* Llama4VisionModel */
    VX_TW_IDEFICS3 = 8, /* Idefics3VisionTransformer / SmolVLMVisionTransformer: SigLIP without a head */
    VX_TW_INTERNVIT = 9, /* InternVLVisionModel: CLS + positions, layer scale, optional q/k norms */
    VX_TW_GEMMA4 = 10,  /* Gemma4VisionModel: linear patch embedder, 2D position table, sandwich RMSNorm blocks,
                           pooled soft tokens */
};
/* Projectors (the wrapper's multi_modal_projector; Qwen's merger is in the tower). */
enum {
    VX_PJ_NONE = 0,
    VX_PJ_LLAVA = 1,      /* LlavaMultiModalProjector: linear_1, act, linear_2 */
    VX_PJ_LLAVA_NEXT = 2, /* ... plus image_newline (text hidden) */
    VX_PJ_GEMMA3 = 3,     /* Gemma3MultiModalProjector: soft-embedding RMSNorm + one matrix */
    VX_PJ_MISTRAL3 = 4,   /* Mistral3MultiModalProjector: RMSNorm, patch merger, linear_1, linear_2 */
    VX_PJ_LLAMA4 = 5,     /* Llama4MultiModalProjector: linear_1 */
    VX_PJ_PALIGEMMA = 6,  /* PaliGemmaMultiModalProjector: one biased linear to projection_dim */
    VX_PJ_IDEFICS3 = 7,   /* Idefics3Connector: pixel shuffle by scale_factor, one linear without bias */
    VX_PJ_INTERNVL = 8,   /* InternVLMultiModalProjector: LayerNorm, linear_1, linear_2 over shuffled patches */
    VX_PJ_GEMMA4 = 9,     /* Gemma4MultimodalEmbedder: a scale-free RMSNorm, one matrix */
};

typedef struct vx_tower {
    uint8_t kind;        /* VX_TW_* (NONE: a text model) */
    uint8_t proj;        /* VX_PJ_* */
    uint8_t use_head;    /* SigLIP's attention-pooling head is built */
    uint8_t proj_bias;   /* the projector's linears have biases */
    uint8_t attn_bias, qk_norm, rms; /* InternViT: q/k/v biases, q/k norms, RMSNorm */
    uint8_t pad[1];
    int64_t hidden;      /* tower width */
    int64_t layers, heads, ffn;
    int64_t patch, tpatch, channels, image_size;
    int64_t merge;       /* spatial merge (Qwen, Mistral 3): merge x merge patches per token */
    int64_t out_hidden;  /* Qwen: the merger's output width (the text hidden size) */
    int64_t positions;   /* Qwen3-VL learned position table rows */
    int64_t deepstack;   /* Qwen3-VL deepstack mergers */
    int64_t feature_layers; /* layers whose features are concatenated into the projector (LLaVA) */
    int64_t proj_in, proj_out; /* Llama 4 pixel-shuffle MLP; proj_out: PaliGemma projection_dim */
    double shuffle;      /* Llama 4 pixel_shuffle_ratio */
    int64_t tokens_per_image;  /* language-model tokens one default image becomes */
    int64_t patches_per_image; /* tower sequence of one default image */
    uint64_t params;     /* derived by the model's rebuild: the tower's and projector's parameters */
    int64_t head_dim;    /* Gemma 4: the tower's head size (0: hidden / heads) */
    /* Appended: an audio tower beside the vision tower (Gemma 4 E2B/E4B:
     * Gemma4AudioModel, a conformer, and its embed_audio), 0 layers when
     * none; model/audio_tower.c. */
    int64_t a_hidden, a_layers, a_heads, a_kernel, a_ch0, a_ch1, a_out;
    uint64_t a_params;   /* derived by the model's rebuild: the audio tower's and embedder's parameters */
} vx_tower;

/* Whether this config.json is a multimodal wrapper: a vision_config or
 * audio_config key that is not null (of any other value: a broken one is an
 * error, not a text model). */
bool vx_tower_present(const vx_jdoc *doc, const vx_jv *root) VX_HIDDEN;
/* One object of a multimodal config.json (vision_config, audio_config) and
 * the reader of its keys: an integer in [lo, hi], `def` when absent or
 * null (VRAMEST_E_TYPE / _RANGE naming sect.key), and a boolean. */
typedef struct vx_treader {
    const vx_jdoc *doc;
    const vx_jv *obj;
    const char *sect;
} vx_treader;
int vx_treader_int(const vx_treader *r, const char *key, int64_t def, int64_t lo, int64_t hi, int64_t *out) VX_HIDDEN;
/* Gemma4AudioConfig (audio_tower.c): the audio tower of a gemma4 wrapper
 * into t (a_*); VRAMEST_E_INVALID_MODEL / _TYPE / _RANGE naming the key of
 * a broken audio_config, VRAMEST_E_UNSUPPORTED for another model_type. */
int vx_audio_read(const vx_jdoc *doc, const vx_jv *ac, vx_tower *t) VX_HIDDEN;
/* Append the audio tower's and embedder's tensors (part GLOBAL) to an
 * inventory being built; `text_hidden` is the language model's width. */
void vx_audio_tensors(const vx_tower *t, int64_t text_hidden, struct vx_ib *b) VX_HIDDEN;
/* Read the tower of a multimodal config.json. `wrapper` is its model_type.
 * *text receives the object holding the language model's keys (text_config,
 * or the root for Qwen2-VL's flat layout) and *text_type the family name to
 * read it as. Errors name the key: VRAMEST_E_UNSUPPORTED for a wrapper or an
 * audio tower not modelled, VRAMEST_E_INVALID_MODEL for a vision_config that
 * is not an object or whose sizes are wrong (VRAMEST_E_TYPE / _RANGE). */
int vx_tower_read(const vx_jdoc *doc, const vx_jv *root, const char *wrapper, vx_tower *t, const vx_jv **text,
                  const char **text_type) VX_HIDDEN;
/* The config class defaults of a text family that a wrapper's text_config
 * may leave out (LlavaConfig builds text_config as LlamaConfig(**dict), so
 * a missing hidden_size is LlamaConfig's 4096). NULL-keyed end. */
typedef struct vx_text_default {
    int key;       /* vramest_option */
    int64_t value;
} vx_text_default;
const vx_text_default *vx_tower_text_defaults(const char *text_type) VX_HIDDEN;
/* Append the tower's and projector's tensors (part GLOBAL, copies per tower
 * layer) to an inventory being built; `s` gives the language model's width. */
void vx_tower_tensors(const vx_tower *t, const struct vx_shape *s, struct vx_ib *b) VX_HIDDEN;
/* The same, then the audio tower's, appended to a growable inventory (the
 * model's); *params receives the vision tower's and projector's
 * parameters, *audio_params the audio tower's and its embedder's. */
struct vx_tensor;
int vx_tower_build(const vx_tower *t, const struct vx_shape *s, struct vx_tensor **inv, size_t *n, size_t *cap,
                   uint64_t *params, uint64_t *audio_params) VX_HIDDEN;

#endif
