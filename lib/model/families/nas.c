/* Nemotron-NAS (DeciLM; Llama-3.1/3.3-Nemotron-51B / Super-49B /
 * Ultra-253B; remote code modeling_decilm.py): a Llama whose every layer
 * has its own sizes, given by `block_configs`, one entry per layer:
 * - attention: `no_op` removes the attention and its input_layernorm;
 *   `replace_with_linear` puts one hidden x hidden linear (linear_attn) in
 *   its place; otherwise n_heads_in_group sets the layer's key/value heads
 *   (num_attention_heads / n_heads_in_group);
 * - ffn: `no_op` removes the MLP and its post_attention_layernorm;
 *   `replace_with_linear` a linear (linear_mlp); otherwise the MLP's width
 *   is _find_multiple(int(2 * ffn_mult * hidden / 3), 256).
 * The config hook writes them as the layer_blocks option (model/layers.c
 * turns it into per-layer kinds). Sliding windows, sink tokens and
 * sparsified blocks are refused by name: no released config sets them. */
#include <stdio.h>
#include <string.h>

#include "common/json_reader.h"
#include "model/families/groups.h"
#include "model/hf_config.h"
#include "model/model.h"

/* A member of a block's object: *v (NULL when absent or null). */
static const vx_jv *member(const vx_jdoc *d, const vx_jv *o, const char *key)
{
    const vx_jv *v = o->type == VX_J_OBJ ? vx_jget(d, o, key) : NULL;
    return v && v->type != VX_J_NULL ? v : NULL;
}

static bool flag(const vx_jdoc *d, const vx_jv *o, const char *key)
{
    const vx_jv *v = member(d, o, key);
    return v && (v->type == VX_J_TRUE || (v->type == VX_J_INT && v->u.i != 0));
}

static int bad(size_t i, const char *what)
{
    return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: block_configs[%zu]: %s", i, what);
}

/* One layer as (kv heads | 0 | -1, ffn width | 0 | -1). */
static int block(const vx_jdoc *d, const vx_jv *b, size_t i, int64_t heads, int64_t hidden, int64_t *kv,
                 int64_t *ffn)
{
    const vx_jv *at = member(d, b, "attention"), *fn = member(d, b, "ffn");
    if (!at || !fn || at->type != VX_J_OBJ || fn->type != VX_J_OBJ)
        return bad(i, "needs 'attention' and 'ffn' objects");
    static const char *const unmodelled[] = {"window_length", "num_sink_tokens", "sparsify"};
    for (size_t k = 0; k < 3; k++)
        if (member(d, at, unmodelled[k]) || (k == 2 && member(d, fn, unmodelled[k])))
            return vx_fail(VRAMEST_E_UNSUPPORTED, "config.json: block_configs[%zu]: '%s' is not modelled", i,
                           unmodelled[k]);
    if (flag(d, at, "no_op")) {
        *kv = 0;
    } else if (flag(d, at, "replace_with_linear")) {
        *kv = -1;
    } else {
        const vx_jv *g = member(d, at, "n_heads_in_group");
        int64_t n = g && g->type == VX_J_INT ? g->u.i : 0;
        if (n < 1 || heads % n) return bad(i, "attention.n_heads_in_group must divide num_attention_heads");
        *kv = heads / n;
    }
    if (flag(d, fn, "no_op")) {
        *ffn = 0;
    } else if (flag(d, fn, "replace_with_linear")) {
        *ffn = -1;
    } else {
        const vx_jv *mu = member(d, fn, "ffn_mult");
        double x = -1.0;
        if (mu && vx_jnum_f64(mu, &x)) x = -1.0;
        if (!(x > 0.0 && x < 1000.0)) return bad(i, "ffn.ffn_mult must be a positive number");
        /* DeciLM's _ffn_mult_to_intermediate_size */
        int64_t w = (int64_t)(2.0 * x * (double)hidden / 3.0);
        *ffn = (w + 255) / 256 * 256;
    }
    return VRAMEST_OK;
}

/* A size of layer_blocks: a number, or L for a linear (-1). */
static void size_text(int64_t v, char *buf, size_t cap)
{
    if (v < 0) snprintf(buf, cap, "L");
    else snprintf(buf, cap, "%lld", (long long)v);
}

static int config_nas(struct vx_cfgmap *m)
{
    const vx_jdoc *d = vx_cfgmap_doc(m);
    const vx_jv *list, *e = NULL;
    if (vx_cfgmap_given(m, VRAMEST_MODEL_LAYER_BLOCKS) || !(list = member(d, vx_cfgmap_root(m), "block_configs")))
        return VRAMEST_OK;
    if (list->type != VX_J_ARR)
        return vx_fail(VRAMEST_E_TYPE, "config.json: key 'block_configs': expected a list (one entry per layer)");
    const vx_arch *a = vx_cfgmap_arch(m);
    size_t n = list->u.c.count;
    if ((int64_t)n != a->num_hidden_layers)
        return vx_fail(VRAMEST_E_INVALID_MODEL,
                       "config.json: key 'block_configs' has %zu entries for %lld layers (num_hidden_layers)", n,
                       (long long)a->num_hidden_layers);
    if (a->num_attention_heads < 1 || a->hidden_size < 1) return VRAMEST_OK; /* shape resolution names it */
    char text[VX_STR_MAX];
    size_t used = 0;
    int64_t kv = 0, ffn = 0, count = 0;
    for (size_t i = 0; i <= n; i++) {
        int64_t k = 0, f = 0;
        if (i < n) {
            e = e ? vx_jskip(e) : vx_jfirst(list);
            int rc = block(d, e, i, a->num_attention_heads, a->hidden_size, &k, &f);
            if (rc) return rc;
            if (count && k == kv && f == ffn) {
                count++;
                continue;
            }
        }
        if (count) { /* write the run that ends here */
            char one[80], ks[24], fs[24];
            size_text(kv, ks, sizeof ks);
            size_text(ffn, fs, sizeof fs);
            int len = snprintf(one, sizeof one, "%s%s:%s", used ? "," : "", ks, fs);
            if (count > 1) len += snprintf(one + len, sizeof one - (size_t)len, "*%lld", (long long)count);
            if (used + (size_t)len >= sizeof text)
                return vx_fail(VRAMEST_E_LIMIT, "config.json: block_configs: more distinct runs of layers than "
                                                "layer_blocks holds (%d characters)", VX_STR_MAX - 1);
            memcpy(text + used, one, (size_t)len + 1);
            used += (size_t)len;
        }
        kv = k, ffn = f, count = 1;
    }
    return vx_cfgmap_set_str(m, VRAMEST_MODEL_LAYER_BLOCKS, text, "block_configs");
}

const vx_family vx_fam_nemotron_nas = {
    .id = VX_FAM_NEMOTRON_NAS, .name = "nemotron-nas", .norm = VX_NORM_RMS, .act = VX_ACT_SILU, .gated = 1,
    .rotary = 1, .ffn_rule = VX_FFN_OPTIONAL, .logits_float = 1, .peft_targets = "", .gguf = "deci",
    .config = config_nas,
};
