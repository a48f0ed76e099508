/* The per-layer layout (model/family.h): which kind each layer of a stack
 * is, derived from the family's row and the resolved shape, and the tally
 * every consumer reads it through (the inventory, the training programs,
 * the inference forward, the KV / state cache). A stack is a list of runs
 * repeated cyclically, so a model of any depth takes a handful of runs and
 * a tally costs a pass over them, never over the layers. */
#include <string.h>

#include "model/model.h"

/* Layers of run [off, off + c) of a period P that lie below x. */
static int64_t below(int64_t x, int64_t P, int64_t off, int64_t c)
{
    int64_t r = x % P, in = r - off;
    return x / P * c + (in < 0 ? 0 : in > c ? c : in);
}

void vx_layers_tally_runs(const vx_layers *L, int stack, int64_t first, int64_t n, vx_tally *t)
{
    for (int k = 0; k < L->n_kinds; k++) t->count[k] = 0, t->first[k] = t->last[k] = -1;
    const vx_layer_stack *st = &L->stack[stack];
    int64_t a = first < 0 ? 0 : first, b = n > st->layers - a ? st->layers : a + n;
    if (st->period <= 0 || b <= a) return;
    if (st->nrun == 1) { /* one kind: the whole range */
        int k = L->run[st->run0].kind;
        t->count[k] = b - a, t->first[k] = a, t->last[k] = b - 1;
        return;
    }
    int64_t P = st->period, off = 0;
    for (int j = st->run0; j < st->run0 + st->nrun; j++) {
        const vx_layer_run *r = &L->run[j];
        int64_t c = r->count, cnt = below(b, P, off, c) - below(a, P, off, c);
        if (cnt > 0) {
            int k = r->kind;
            /* the first layer of this run at or after a, the last before b */
            int64_t q = a / P, ra = a % P;
            int64_t f = ra < off + c ? q * P + (ra > off ? ra : off) : (q + 1) * P + off;
            int64_t q2 = (b - 1) / P, rb = (b - 1) % P;
            int64_t l = rb >= off ? q2 * P + (rb < off + c - 1 ? rb : off + c - 1) : (q2 - 1) * P + off + c - 1;
            t->count[k] += cnt;
            if (t->first[k] < 0 || f < t->first[k]) t->first[k] = f;
            if (l > t->last[k]) t->last[k] = l;
        }
        off += c;
    }
}

/* The kind index of `k` in L (added when new). */
static int kind_of(vx_layers *L, const vx_layer_kind *k)
{
    for (int i = 0; i < L->n_kinds; i++)
        if (!memcmp(&L->kind[i], k, sizeof *k)) return i;
    if (L->n_kinds >= VX_MAX_KINDS) return -1;
    L->kind[L->n_kinds] = *k;
    return L->n_kinds++;
}

static int add_run(vx_layers *L, int stack, const vx_layer_kind *k, int64_t count)
{
    int ki = kind_of(L, k);
    if (ki < 0) return vx_fail(VRAMEST_E_LIMIT, "more than %d distinct layer kinds", VX_MAX_KINDS);
    if (count <= 0) return VRAMEST_OK;
    if (L->n_runs >= VX_MAX_RUNS) return vx_fail(VRAMEST_E_LIMIT, "more than %d runs of layer kinds", VX_MAX_RUNS);
    vx_layer_stack *st = &L->stack[stack];
    if (!st->nrun) st->run0 = L->n_runs;
    L->run[L->n_runs++] = (vx_layer_run){.kind = (uint16_t)ki, .count = (uint32_t)count};
    st->nrun++;
    st->period += count;
    return VRAMEST_OK;
}

/* ---- layer_blocks: the per-layer sizes of a heterogeneous model ---- */

static int blocks_bad(const char *text, const char *why)
{
    return vx_fail(VRAMEST_E_INVALID_MODEL, "layer_blocks '%.60s%s': %s", text, strlen(text) > 60 ? "..." : "", why);
}

/* One size: a count, 0 (none) or L (a linear): -1. */
static const char *blocks_size(const char *p, int64_t *v)
{
    if (*p == 'L') {
        *v = -1;
        return p + 1;
    }
    if (*p < '0' || *p > '9') return NULL;
    int64_t x = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        x = x * 10 + (*p - '0');
        if (x > 1000000000) return NULL;
    }
    *v = x;
    return p;
}

int vx_layer_blocks_parse(const char *text, vx_block_run *out, size_t cap, size_t *n)
{
    *n = 0;
    const char *p = text;
    while (*p) {
        vx_block_run r = {.count = 1};
        if (!(p = blocks_size(p, &r.kv)) || *p != ':') return blocks_bad(text, "a block is ATTN:MLP[*COUNT]");
        if (!(p = blocks_size(p + 1, &r.ffn))) return blocks_bad(text, "a block is ATTN:MLP[*COUNT]");
        if (*p == '*' && (!(p = blocks_size(p + 1, &r.count)) || r.count < 1))
            return blocks_bad(text, "COUNT is a positive number of layers");
        if (*p && *p != ',') return blocks_bad(text, "blocks are separated by commas");
        if (*p) p++;
        if (*n >= cap) return vx_fail(VRAMEST_E_LIMIT, "layer_blocks: more than %zu blocks", cap);
        out[(*n)++] = r;
    }
    return VRAMEST_OK;
}

/* ---- the layout ---- */

/* The kind of decoder layer i: the model's `base`, changed where the
 * shape's rules make that layer differ (leading dense layers, experts
 * every N-th layer, sliding windows, layers without RoPE or attending in
 * chunks, indexer cycles). */
static void layer_kind(const vx_shape *s, const vx_layer_kind *base, int64_t i, vx_layer_kind *k)
{
    *k = *base;
    if (base->mlp == VX_MLPK_MOE && (i < s->dense_layers || (s->moe_freq > 1 && i % s->moe_freq) ||
                                     (s->moe_step > 1 && (i + 1) % s->moe_step)))
        k->mlp = VX_MLPK_DENSE;
    bool sliding = s->sliding_window > 0 && s->sliding_pattern > 0 &&
                   (s->sliding_pattern == 1 || (i + 1) % s->sliding_pattern != 0);
    if (sliding) {
        k->span = VX_SPAN_SLIDING;
        k->window = s->sliding_window;
    } else if (s->global_head_dim > 0 || s->k_eq_v) {
        /* Gemma4TextAttention: the full layers' own head size; with
         * attention_k_eq_v their own key/value heads and no v_proj */
        if (s->global_head_dim > 0) k->head_dim = k->v_head_dim = s->global_head_dim;
        if (s->k_eq_v) {
            k->k_eq_v = 1;
            if (s->global_kv_heads > 0) k->kv_heads = s->global_kv_heads;
        }
    } else if (s->fam->nope_full && s->sliding_pattern > 1) {
        k->rope = 0; /* the global layers of the pattern */
    }
    /* HunYuanAttention: attention_type 'cross' when i % cla_share_factor */
    if (s->cla > 1 && i % s->cla) k->kv_reuse = 1;
    if (s->kv_shared_from > 0 && i >= s->kv_shared_from) {
        /* Gemma4TextAttention.is_kv_shared_layer; Gemma4TextMLP doubles its
         * width there with use_double_wide_mlp */
        k->kv_shared = 1;
        if (s->double_wide) k->ffn *= 2; /* intermediate_size <= 2^24: no overflow */
    }
    if (s->nope_every > 0 && (i + 1) % s->nope_every == 0)
        k->rope = 0;
    else if (s->nope_every > 0 && s->chunk > 0)
        k->span = VX_SPAN_CHUNKED, k->window = s->chunk; /* Llama 4: RoPE layers attend within chunks */
    /* GLM-5.2 (GlmMoeDsaConfig): "full" when max(i - offset + 1, 0) % freq
     * == 0, else "shared" (no indexer module) */
    if (k->index_heads && s->index_freq > 1 && i >= s->index_offset && (i - s->index_offset + 1) % s->index_freq)
        k->index_heads = k->index_head_dim = 0;
}

/* The decoder stack as runs of layer_kind(): one period of the smallest
 * cycle (Gemma 3's 6 layers) when one of at most 64 layers repeats over
 * the stack, else the stack itself (DeepSeek's dense layers, then MoE). */
#define MAX_PERIOD 64

static int decoder_runs(vx_layers *L, const vx_shape *s, const vx_layer_kind *base, int64_t n)
{
    vx_layer_kind k, kp;
    int64_t P = n;
    for (int64_t c = 1; c <= MAX_PERIOD && c < n; c++) {
        int64_t i = c;
        for (; i < n; i++) {
            layer_kind(s, base, i, &k);
            layer_kind(s, base, i % c, &kp);
            if (memcmp(&k, &kp, sizeof k)) break;
        }
        if (i == n) {
            P = c;
            break;
        }
    }
    int64_t start = 0;
    vx_layer_kind cur;
    layer_kind(s, base, 0, &cur);
    for (int64_t i = 1; i <= P; i++) {
        if (i < P) layer_kind(s, base, i, &k);
        if (i == P || memcmp(&k, &cur, sizeof k)) {
            int rc = add_run(L, VX_STACK_DEC, &cur, i - start);
            if (rc) return rc;
            start = i;
            cur = k;
        }
    }
    return VRAMEST_OK;
}

/* A heterogeneous decoder from layer_blocks (Nemotron-NAS): one run per block. */
static int block_runs(vx_layers *L, const vx_shape *s, const vx_layer_kind *base, const char *text)
{
    vx_block_run b[VX_MAX_RUNS];
    size_t nb;
    int rc = vx_layer_blocks_parse(text, b, VX_MAX_RUNS, &nb);
    if (rc) return rc;
    int64_t total = 0;
    for (size_t j = 0; j < nb; j++) {
        vx_layer_kind k = *base;
        if (b[j].kv == 0) {
            k.mixer = VX_MIX_NONE;
        } else if (b[j].kv < 0) {
            k.mixer = VX_MIX_PROJ;
        } else {
            if (b[j].kv > s->heads || s->heads % b[j].kv)
                return vx_fail(VRAMEST_E_INVALID_MODEL,
                               "layer_blocks: %lld key/value heads do not divide num_attention_heads (%lld)",
                               (long long)b[j].kv, (long long)s->heads);
            k.kv_heads = b[j].kv;
        }
        if (k.mixer != VX_MIX_ATTN) k.heads = k.kv_heads = k.head_dim = k.v_head_dim = 0, k.rope = 0;
        k.mlp = b[j].ffn == 0 ? VX_MLPK_NONE : b[j].ffn < 0 ? VX_MLPK_PROJ : VX_MLPK_DENSE;
        k.ffn = b[j].ffn > 0 ? b[j].ffn : 0;
        if ((rc = add_run(L, VX_STACK_DEC, &k, b[j].count))) return rc;
        total += b[j].count;
    }
    if (total != s->layers)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "layer_blocks describes %lld layers, num_hidden_layers is %lld",
                       (long long)total, (long long)s->layers);
    return VRAMEST_OK;
}

/* A KV-shared layer reads the last layer of its kind (its span) before the
 * shared ones: Gemma4TextAttention's prev_layers.index() raises when there
 * is none. */
static int shared_sources(const vx_layers *L)
{
    for (int k = 0; k < L->n_kinds; k++) {
        if (!L->kind[k].kv_shared) continue;
        int found = 0;
        for (int j = 0; j < L->n_kinds && !found; j++)
            found = !L->kind[j].kv_shared && L->kind[j].span == L->kind[k].span;
        if (!found)
            return vx_fail(VRAMEST_E_INVALID_MODEL, "num_kv_shared_layers: a shared %s layer has no earlier layer "
                                                    "of its kind to take keys and values from",
                           L->kind[k].span == VX_SPAN_SLIDING ? "sliding-window" : "full-attention");
    }
    return VRAMEST_OK;
}

int vx_layers_resolve(const vx_shape *s, const vx_arch *a, vx_layers *L)
{
    const vx_family *f = s->fam;
    memset(L, 0, offsetof(vx_layers, kind));
    vx_layer_kind base;
    memset(&base, 0, sizeof base);
    base.mixer = f->mla ? VX_MIX_MLA : VX_MIX_ATTN;
    base.rope = s->rotary_dim > 0;
    base.mlp = s->experts > 0 ? VX_MLPK_MOE : VX_MLPK_DENSE;
    base.heads = s->heads, base.kv_heads = s->kv_heads, base.head_dim = s->head_dim;
    base.v_head_dim = s->v_head_dim > 0 ? s->v_head_dim : s->head_dim;
    base.ffn = s->ffn;
    base.index_heads = s->index_heads, base.index_head_dim = s->index_dim;
    int rc;

    if (s->encoder_only || s->enc_dec) {
        vx_layer_kind e = base;
        if ((rc = add_run(L, VX_STACK_ENC, &e, s->encoder_only ? s->layers : s->enc_layers))) return rc;
        L->stack[VX_STACK_ENC].layers = s->encoder_only ? s->layers : s->enc_layers;
        if (s->encoder_only) return VRAMEST_OK;
    }
    base.cross = (uint8_t)s->enc_dec;
    L->stack[VX_STACK_DEC].layers = s->layers;
    if (a && a->layer_blocks[0]) return block_runs(L, s, &base, a->layer_blocks);
    if ((rc = decoder_runs(L, s, &base, s->layers))) return rc;
    return s->kv_shared_from > 0 ? shared_sources(L) : VRAMEST_OK;
}
