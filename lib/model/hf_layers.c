/* config.json's per-layer lists as the layout options shape resolution
 * reads: `layer_types` of sliding and full attention layers and the
 * 'LLLG' string form of `sliding_window_pattern` (Gemma 3, Cohere2,
 * EXAONE 4, gpt-oss) become sliding_window_pattern; `no_rope_layers`
 * (SmolLM3, Llama 4) becomes no_rope_layer_interval. A list must have one
 * entry per layer. The layout models "every N-th layer is the odd one",
 * which is what the configuration classes generate; a list in another
 * order is refused by name rather than estimated as something else.
 * Lists naming other layer types (linear attention, Mamba) are left to
 * the hybrid layouts. */
#include <stdlib.h>
#include <string.h>

#include "common/json_reader.h"
#include "model/hf_config.h"

/* The smallest N in [1, n + 1] with odd(i) == ((i + 1) % N == 0) for every
 * layer i (N = n + 1: no layer is odd); 0 when none. */
static int64_t every_nth(const unsigned char *odd, int64_t n)
{
    for (int64_t N = 1; N <= n + 1; N++) {
        int64_t i = 0;
        while (i < n && odd[i] == ((i + 1) % N == 0)) i++;
        if (i == n) return N;
    }
    return 0;
}

/* A per-layer JSON list `key`: *arr (NULL when absent or null). A list
 * whose length is not num_hidden_layers is bad input. */
static int layer_list(struct vx_cfgmap *m, const char *key, int64_t n, const vx_jv **arr)
{
    const vx_jv *v = vx_jget(vx_cfgmap_doc(m), vx_cfgmap_root(m), key);
    *arr = NULL;
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_ARR)
        return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s': expected a list (one entry per layer)", key);
    size_t len = v->u.c.count;
    if ((int64_t)len != n)
        return vx_fail(VRAMEST_E_INVALID_MODEL,
                       "config.json: key '%s' has %zu entries for %lld layers (num_hidden_layers): one per layer", key,
                       len, (long long)n);
    *arr = v;
    return VRAMEST_OK;
}

/* Flags of a per-layer list: odd[i] = 1 when entry i equals `odd_value`
 * (a string, or an integer when `odd_int` >= 0). Returns 0 when an entry
 * is neither that nor `even_value` (another kind of list), -1 on a type
 * the list cannot hold. */
static int list_flags(const vx_jdoc *doc, const vx_jv *arr, const char *odd_value, const char *even_value,
                      int odd_int, unsigned char *odd)
{
    size_t i = 0;
    for (const vx_jv *e = vx_jfirst(arr); e < vx_jend(arr); e = vx_jskip(e), i++) {
        if (odd_int >= 0) {
            if (e->type != VX_J_INT) return -1;
            int64_t x = e->u.i;
            if (x != 0 && x != 1) return -1;
            odd[i] = x == odd_int;
            continue;
        }
        if (e->type != VX_J_STR || (e->flags & VX_JF_NUL)) return -1;
        const char *s = vx_jstr(doc, e);
        if (!strcmp(s, odd_value)) odd[i] = 1;
        else if (!strcmp(s, even_value)) odd[i] = 0;
        else return 0;
    }
    return 1;
}

/* The option `k` from per-layer list `key`: the N of "every N-th layer is
 * odd" (sliding_window_pattern: the full layers; no_rope_layer_interval:
 * the NoPE layers, with 0 for none). */
static int from_list(struct vx_cfgmap *m, const char *key, const char *odd_value, const char *even_value, int odd_int,
                     vramest_option k, int none_is_zero)
{
    int64_t n = vx_cfgmap_layers(m);
    const vx_jv *arr;
    int rc = layer_list(m, key, n, &arr);
    if (rc || !arr || n <= 0) return rc;
    unsigned char *odd = calloc((size_t)n, 1);
    if (!odd) return vx_fail(VRAMEST_E_NOMEM, "config.json: out of memory reading '%s'", key);
    int ok = list_flags(vx_cfgmap_doc(m), arr, odd_value, even_value, odd_int, odd);
    int64_t N = ok > 0 ? every_nth(odd, n) : 0;
    free(odd);
    if (ok < 0) return vx_fail(VRAMEST_E_TYPE, "config.json: key '%s': an entry is not a layer type", key);
    if (!ok) return VRAMEST_OK; /* other layer types: the hybrid layouts read them */
    if (!N)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "config.json: key '%s': the layers are in no 'every N-th layer' pattern, which is the only "
                       "per-layer order modelled for it",
                       key);
    if (none_is_zero && N == n + 1) N = 0;
    return vx_cfgmap_set_i64(m, k, N, key);
}

int vx_hf_layer_string_keys(struct vx_cfgmap *m)
{
    /* EXAONE 4 spells the pattern as a string, one letter per layer of a
     * period: L (local, sliding) or G (global). */
    const vx_jv *v = vx_jget(vx_cfgmap_doc(m), vx_cfgmap_root(m), "sliding_window_pattern");
    const char *s;
    if (!v || v->type != VX_J_STR) return VRAMEST_OK;
    int rc = vx_jcstr(vx_cfgmap_doc(m), v, "config.json: key 'sliding_window_pattern'", &s);
    if (rc) return rc;
    size_t n = strlen(s);
    size_t i = 0;
    while (i + 1 < n && s[i] == 'L') i++;
    if (n == 0 || i + 1 != n || s[n - 1] != 'G')
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "config.json: key 'sliding_window_pattern': '%.40s' is not L...LG (local layers, then one "
                       "global), the only string form modelled",
                       s);
    return vx_cfgmap_claim_i64(m, VRAMEST_MODEL_SLIDING_WINDOW_PATTERN, (int64_t)n, "sliding_window_pattern");
}

int vx_hf_layer_lists(struct vx_cfgmap *m)
{
    int rc = from_list(m, "layer_types", "full_attention", "sliding_attention", -1,
                       VRAMEST_MODEL_SLIDING_WINDOW_PATTERN, 0);
    if (rc) return rc;
    return from_list(m, "no_rope_layers", NULL, NULL, 0, VRAMEST_MODEL_NO_ROPE_LAYER_INTERVAL, 1);
}
