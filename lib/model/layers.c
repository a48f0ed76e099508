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

int vx_layers_resolve(const vx_shape *s, vx_layers *L)
{
    const vx_family *f = s->fam;
    memset(L, 0, offsetof(vx_layers, kind));
    vx_layer_kind base;
    memset(&base, 0, sizeof base);
    base.mixer = f->mla ? VX_MIX_MLA : VX_MIX_ATTN;
    base.rope = s->rotary_dim > 0;
    base.mlp = f->moe != VX_MOE_NONE ? VX_MLPK_MOE : VX_MLPK_DENSE;
    base.heads = s->heads, base.kv_heads = s->kv_heads, base.head_dim = s->head_dim;
    base.v_head_dim = s->v_head_dim > 0 ? s->v_head_dim : s->head_dim;
    base.ffn = s->ffn;
    int rc;

    if (s->encoder_only || s->enc_dec) {
        vx_layer_kind e = base;
        if ((rc = add_run(L, VX_STACK_ENC, &e, s->encoder_only ? s->layers : s->enc_layers))) return rc;
        L->stack[VX_STACK_ENC].layers = s->encoder_only ? s->layers : s->enc_layers;
        if (s->encoder_only) return VRAMEST_OK;
    }
    vx_layer_kind d = base;
    d.cross = (uint8_t)s->enc_dec;
    int64_t n = s->layers;
    L->stack[VX_STACK_DEC].layers = n;
    if (s->dense_layers > 0) {
        /* first_k_dense_replace: dense MLPs first, then experts */
        vx_layer_kind dense = d;
        dense.mlp = VX_MLPK_DENSE;
        if ((rc = add_run(L, VX_STACK_DEC, &dense, s->dense_layers))) return rc;
        return add_run(L, VX_STACK_DEC, &d, n - s->dense_layers);
    }
    if (s->sliding_window > 0 && s->sliding_pattern > 0) {
        vx_layer_kind sw = d;
        sw.span = VX_SPAN_SLIDING;
        sw.window = s->sliding_window;
        if (s->sliding_pattern == 1) return add_run(L, VX_STACK_DEC, &sw, n);
        /* layer i slides unless (i + 1) % pattern == 0 */
        int64_t P = s->sliding_pattern;
        if (P > n) return add_run(L, VX_STACK_DEC, &sw, n);
        if ((rc = add_run(L, VX_STACK_DEC, &sw, P - 1))) return rc;
        return add_run(L, VX_STACK_DEC, &d, 1);
    }
    return add_run(L, VX_STACK_DEC, &d, n);
}
