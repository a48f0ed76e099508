/* Gemma 4's audio tower (issue #16): Gemma4AudioModel, a conformer after
 * the Universal Speech Model, and its embed_audio, from transformers
 * src/transformers/models/gemma4/modeling_gemma4.py @c308a309e6
 * (Gemma4AudioSubSampleConvProjection, Gemma4AudioLayer and its parts,
 * Gemma4MultimodalEmbedder) with Gemma4AudioConfig's defaults
 * (configuration_gemma4.py @351f643ab9). One group per nn.Parameter:
 * - subsampling: two 3x3 stride-2 convolutions (1 -> c0 -> c1 channels,
 *   no bias), each with a bias-free LayerNorm, then a linear of
 *   (c0 / 4) x c1 -> hidden;
 * - per layer: two macaron feed-forwards (hidden -> 4 hidden -> hidden,
 *   pre and post RMSNorm), chunked attention (q, k, v, post of hidden x
 *   hidden, relative_k_proj, per_dim_scale of one head), a light
 *   convolution (linear_start to 2 hidden, a depthwise causal conv1d of
 *   conv_kernel_size, linear_end, two RMSNorms) and three RMSNorms;
 * - output_proj (hidden -> output_proj_dims, with a bias);
 * - embed_audio.embedding_projection (output_proj_dims -> text hidden; its
 *   pre-projection norm has no weight).
 * The clipped linears' bounds (use_clipped_linears) and the relative
 * position table are buffers, not parameters. Tensors are global groups
 * named under audio_tower. (PEFT's leaf-name targets never select them),
 * quantized or kept as vision towers are (model/tower_inventory.c). */
#include <string.h>

#include "model/inventory.h"
#include "model/tower.h"

#define BIG 1048576
#define R VX_ROLE_OTHER
#define G VX_PART_GLOBAL

/* subsampling_conv_channels: a list of two positive channel counts. */
static int channels(const vx_jdoc *doc, const vx_jv *ac, vx_tower *t)
{
    const vx_jv *v = vx_jget(doc, ac, "subsampling_conv_channels");
    t->a_ch0 = 128, t->a_ch1 = 32;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_ARR)
        return vx_fail(VRAMEST_E_TYPE, "config.json: key 'audio_config.subsampling_conv_channels': expected a list "
                                       "of two channel counts, got %s", vx_jkind(v));
    const vx_jv *a = vx_jfirst(v), *b = a + 1;
    if (v->u.c.count != 2 || a->type != VX_J_INT || b->type != VX_J_INT || a->u.i < 1 || b->u.i < 1 ||
        a->u.i > BIG || b->u.i > BIG)
        return vx_fail(VRAMEST_E_RANGE, "config.json: key 'audio_config.subsampling_conv_channels': expected two "
                                        "integers in [1, %d]", BIG);
    t->a_ch0 = a->u.i, t->a_ch1 = b->u.i;
    return VRAMEST_OK;
}

int vx_audio_read(const vx_jdoc *doc, const vx_jv *ac, vx_tower *t)
{
    if (ac->type != VX_J_OBJ)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: key 'audio_config': expected an object with the audio "
                                                "tower's sizes, got %s", vx_jkind(ac));
    const vx_jv *mt = vx_jget(doc, ac, "model_type");
    if (mt && mt->type == VX_J_STR && strcmp(vx_jstr(doc, mt), "gemma4_audio"))
        return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: audio_config.model_type '%.60s' is not modelled "
                                              "(gemma4_audio)", vx_jstr(doc, mt));
    vx_treader r = {doc, ac, "audio_config"};
    int rc;
    if ((rc = vx_treader_int(&r, "hidden_size", 1024, 1, BIG, &t->a_hidden)) ||
        (rc = vx_treader_int(&r, "num_hidden_layers", 12, 1, 4096, &t->a_layers)) ||
        (rc = vx_treader_int(&r, "num_attention_heads", 8, 1, BIG, &t->a_heads)) ||
        (rc = vx_treader_int(&r, "conv_kernel_size", 5, 1, 4096, &t->a_kernel)) ||
        (rc = vx_treader_int(&r, "output_proj_dims", 1536, 1, BIG, &t->a_out)) || (rc = channels(doc, ac, t)))
        return rc;
    if (t->a_hidden % t->a_heads)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: audio_config: hidden_size %lld is not a multiple of the "
                                                "%lld attention heads", (long long)t->a_hidden, (long long)t->a_heads);
    /* the subsampler's linear reads (c0 / 4) x c1 features: 128 mel bins
     * halved twice when c0 is the mel count */
    if (t->a_ch0 < 4)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: audio_config: subsampling_conv_channels[0] %lld leaves "
                                                "no input to the projection ((c0 / 4) x c1 features)", (long long)t->a_ch0);
    return VRAMEST_OK;
}

static void lin(vx_ib *b, const char *name, int64_t out, int64_t in, int bias, int64_t copies)
{
    vx_ib_lin_n(b, name, R, G, out, in, bias, 0, copies, 0);
}

static void rms(vx_ib *b, const char *name, int64_t dim, int64_t copies)
{
    vx_ib_norm_n(b, name, VX_ROLE_NORM, G, VX_NORM_RMS, dim, 0, copies);
}

/* A parameter no quantizer replaces (a convolution's kernel, a scale). */
static void other(vx_ib *b, const char *name, int64_t rows, int64_t cols, int64_t copies)
{
    vx_ib_put(b, name, R, VX_TK_OTHER, G, rows, cols, 0, copies, 0);
}

void vx_audio_tensors(const vx_tower *t, int64_t text_hidden, vx_ib *b)
{
    int64_t d = t->a_hidden, L = t->a_layers, c0 = t->a_ch0, c1 = t->a_ch1;
    if (L <= 0) return;
    other(b, "audio_tower.sscp.layer0.conv", c0, 9, 1);
    vx_ib_norm_n(b, "audio_tower.sscp.layer0.norm", VX_ROLE_NORM, G, VX_NORM_LN_WEIGHT, c0, 0, 1);
    other(b, "audio_tower.sscp.layer1.conv", c1, c0 * 9, 1);
    vx_ib_norm_n(b, "audio_tower.sscp.layer1.norm", VX_ROLE_NORM, G, VX_NORM_LN_WEIGHT, c1, 0, 1);
    lin(b, "audio_tower.sscp.input_proj_linear", d, c0 / 4 * c1, 0, 1);
    /* feed_forward1 and feed_forward2: two copies per layer */
    lin(b, "audio_tower.layers.feed_forward.ffw_layer_1", 4 * d, d, 0, 2 * L);
    lin(b, "audio_tower.layers.feed_forward.ffw_layer_2", d, 4 * d, 0, 2 * L);
    rms(b, "audio_tower.layers.feed_forward.pre_layer_norm", d, 2 * L);
    rms(b, "audio_tower.layers.feed_forward.post_layer_norm", d, 2 * L);
    /* q_proj, k_proj, v_proj, post and relative_k_proj: five per layer */
    lin(b, "audio_tower.layers.self_attn.qkv_post_rel_k", d, d, 0, 5 * L);
    other(b, "audio_tower.layers.self_attn.per_dim_scale", d / t->a_heads, 1, L);
    lin(b, "audio_tower.layers.lconv1d.linear_start", 2 * d, d, 0, L);
    lin(b, "audio_tower.layers.lconv1d.linear_end", d, d, 0, L);
    other(b, "audio_tower.layers.lconv1d.depthwise_conv1d", d, t->a_kernel, L);
    /* lconv1d's pre_layer_norm and conv_norm; norm_pre_attn,
     * norm_post_attn, norm_out */
    rms(b, "audio_tower.layers.norms", d, 5 * L);
    lin(b, "audio_tower.output_proj", t->a_out, d, 1, 1);
    lin(b, "embed_audio.embedding_projection", text_hidden, t->a_out, 0, 1);
}
