/* The training step composed over layers (see step.h and train.c):
 *   forward   base + gradients (if accumulated or never cleared) + saved
 *             activations of the layers before + this layer's forward peak;
 *   backward  base + gradients so far + activations of the layers below +
 *             this layer's backward peak (its saved tensors, the incoming
 *             gradient, the new parameter gradients, the kernels' scratch);
 *             with checkpointing, the layer is recomputed first;
 *   optimizer base + all gradients + the step's temporaries.
 * Steady state (step >= 2: optimizer states exist; with grad_accum_steps > 1
 * the later micro-batches run with the gradients already allocated). The
 * peak is the largest point; the result is the breakdown at that instant.
 * Everything here is linear in the values (step.h): no branch reads one. */
#include <string.h>

#include "estimate/step/step.h"

typedef struct vx_mem {
    uint64_t c[VX_NCAT];
} vx_mem;

static const int tc_cat[VX_TC_N] = {VRAMEST_CAT_ACTIVATIONS, VRAMEST_CAT_LOGITS, VRAMEST_CAT_WORKSPACE,
                                    VRAMEST_CAT_GRADIENTS, VRAMEST_CAT_ADAPTER};

static uint64_t mem_alloc(const vx_mem *m)
{
    uint64_t a = 0;
    for (int i = 0; i < VX_NCAT; i++)
        if (vx_step_counts(i)) a = vx_sat_add(a, m->c[i]);
    return a;
}

/* m += v * n (tape categories) */
static void add_tc(vx_mem *m, const uint64_t v[VX_TC_N], uint64_t n)
{
    for (int i = 0; i < VX_TC_N; i++) m->c[tc_cat[i]] = vx_sat_add(m->c[tc_cat[i]], vx_sat_mul(v[i], n));
}

static void add_cat(vx_mem *m, int cat, uint64_t b)
{
    m->c[cat] = vx_sat_add(m->c[cat], b);
}

typedef struct vx_step {
    vx_step_out *out;
    vx_slog *log;
    int tl_on;
} vx_step;

static void log_point(vx_step *st, const vx_mem *m, int phase, int layer, const char *label, int record, int pair)
{
    vx_slog *l = st->log;
    if (!l) return;
    if (l->n >= VX_SLOG_CAP) {
        l->overflow = 1;
        return;
    }
    vx_spoint *p = &l->pt[l->n++];
    memcpy(p->c, m->c, sizeof p->c);
    p->label = label;
    p->layer = layer;
    p->phase = (uint8_t)phase;
    p->record = (uint8_t)(record && st->tl_on);
    p->pair = (uint8_t)pair;
}

static void take(vx_step *st, const vx_mem *m, uint64_t t, int phase, int layer, const char *label, int record)
{
    vx_step_out *o = st->out;
    if (t > o->total) {
        memcpy(o->at, m->c, sizeof o->at);
        o->total = t;
        o->phase = phase;
    }
    if (record && st->tl_on && o->ntl < o->cap) {
        vx_timeline_point *p = &o->tl[o->ntl++];
        p->phase = (uint8_t)phase;
        p->layer = layer;
        p->allocated = t;
        p->label = label;
    }
}

static void point(vx_step *st, const vx_mem *m, int phase, int layer, const char *label, int record)
{
    log_point(st, m, phase, layer, label, record, 0);
    take(st, m, mem_alloc(m), phase, layer, label, record);
}

/* One point that peaks one of two ways: the larger counts (`a` on a tie). */
static void point2(vx_step *st, const vx_mem *a, const vx_mem *b, int phase, int layer, const char *label,
                   int record)
{
    log_point(st, a, phase, layer, label, record, 1);
    log_point(st, b, phase, layer, label, record, 2);
    uint64_t ta = mem_alloc(a), tb = mem_alloc(b);
    if (tb > ta) take(st, b, tb, phase, layer, label, record);
    else take(st, a, ta, phase, layer, label, record);
}

/* Per layer kept through the forward: a checkpointed layer its input, else
 * what its program saved. */
static void kept_of(const vx_step_shape *sp, const vx_step_vals *v, int s, uint64_t kept[VX_TC_N])
{
    const vx_step_stack *k = &sp->stk[s];
    const vx_prog *p = &v->p[VX_SP_STK + s];
    memset(kept, 0, sizeof(uint64_t) * VX_TC_N);
    if (k->frozen) return;
    if (k->ops) kept[VX_TC_ACT] = vx_sat_add(p->x_bytes, v->leaf[VX_LF_OPS + s]);
    else if (k->ckpt) kept[VX_TC_ACT] = vx_sat_add(p->x_bytes, v->leaf[VX_LF_RNG]);
    else memcpy(kept, p->saved_cat, sizeof(uint64_t) * VX_TC_N);
}

static const uint64_t *bwd_of(const vx_prog *p, int keep)
{
    return keep ? p->bwd_pk : p->bwd_acc_pk;
}

/* Forward of one micro-batch. */
static void forward(vx_step *st, const vx_step_shape *sp, const vx_step_vals *v, const uint64_t kept[][VX_TC_N],
                    const vx_mem *base, uint64_t fwd_extra, int record)
{
    uint64_t carried[VX_TC_N] = {0};
    vx_mem m;
    if (sp->first) {
        const vx_prog *emb = &v->p[VX_SP_EMB];
        m = *base;
        add_tc(&m, emb->fwd_pk, 1);
        point(st, &m, VRAMEST_PHASE_FORWARD, -1, "embeddings", record);
        for (int i = 0; i < VX_TC_N; i++) carried[i] = vx_sat_add(carried[i], emb->saved_cat[i]);
    }
    for (int s = 0; s < sp->nstk; s++) {
        const vx_step_stack *k = &sp->stk[s];
        const vx_prog *p = &v->p[VX_SP_STK + s];
        if (k->n <= 0) continue;
        const uint64_t *fpk = k->ckpt ? p->fwd_ns_pk : p->fwd_pk;
        /* The peak of a stack's forward is in its last layer. */
        m = *base;
        add_cat(&m, VRAMEST_CAT_ACTIVATIONS, fwd_extra);
        add_tc(&m, carried, 1);
        add_tc(&m, kept[s], (uint64_t)(k->n - 1));
        add_tc(&m, fpk, 1);
        if (record && k->n > 2) {
            vx_mem mid = *base;
            add_cat(&mid, VRAMEST_CAT_ACTIVATIONS, fwd_extra);
            add_tc(&mid, carried, 1);
            add_tc(&mid, kept[s], (uint64_t)(k->n / 2));
            add_tc(&mid, fpk, 1);
            point(st, &mid, VRAMEST_PHASE_FORWARD, (int)(k->first + k->n / 2), k->name, 1);
        }
        point(st, &m, VRAMEST_PHASE_FORWARD, (int)(k->first + k->n - 1), k->name, record);
        for (int i = 0; i < VX_TC_N; i++) carried[i] = vx_sat_add(carried[i], vx_sat_mul(kept[s][i], (uint64_t)k->n));
    }
    if (sp->last) {
        const vx_prog *head = &v->p[VX_SP_HEAD];
        m = *base;
        add_cat(&m, VRAMEST_CAT_ACTIVATIONS, fwd_extra);
        add_tc(&m, carried, 1);
        add_tc(&m, head->fwd_pk, 1);
        point(st, &m, VRAMEST_PHASE_FORWARD, -1, "logits and loss", record);
    }
}

/* Backward of one micro-batch: `g0`, `ag0` gradients alive when it starts;
 * `keep`: new parameter gradients stay (first micro-batch). */
static void backward(vx_step *st, const vx_step_shape *sp, const vx_step_vals *v, const uint64_t kept[][VX_TC_N],
                     const vx_mem *base, uint64_t bwd_extra, uint64_t g0, uint64_t ag0, int keep, int record)
{
    /* activations below each point: embed saved + stacks' kept */
    uint64_t below[VX_TC_N] = {0};
    if (sp->first)
        for (int i = 0; i < VX_TC_N; i++) below[i] = v->p[VX_SP_EMB].saved_cat[i];
    for (int s = 0; s < sp->nstk; s++)
        for (int i = 0; i < VX_TC_N; i++)
            below[i] = vx_sat_add(below[i], vx_sat_mul(kept[s][i], (uint64_t)(sp->stk[s].n > 0 ? sp->stk[s].n : 0)));
    uint64_t g = g0, ag = ag0;
    uint64_t held = sp->last ? v->p[VX_SP_HEAD].held_out : 0;
    vx_mem m;
    if (sp->last) {
        const vx_prog *head = &v->p[VX_SP_HEAD];
        m = *base;
        add_cat(&m, VRAMEST_CAT_ACTIVATIONS, bwd_extra);
        add_cat(&m, VRAMEST_CAT_GRADIENTS, g);
        add_cat(&m, VRAMEST_CAT_ADAPTER, ag);
        add_tc(&m, below, 1);
        add_tc(&m, bwd_of(head, keep), 1);
        point(st, &m, VRAMEST_PHASE_BACKWARD, -1, "loss and logits backward", record);
        if (keep) g = vx_sat_add(g, head->wgrad_cat[VX_TC_GRAD]), ag = vx_sat_add(ag, head->wgrad_cat[VX_TC_ADAPT]);
    }
    for (int s = sp->nstk - 1; s >= 0; s--) {
        const vx_step_stack *k = &sp->stk[s];
        const vx_prog *b = &v->p[VX_SP_STK + s];
        if (k->n <= 0) continue;
        for (int i = 0; i < VX_TC_N; i++) {
            uint64_t tot = vx_sat_mul(kept[s][i], (uint64_t)k->n);
            below[i] = below[i] >= tot ? below[i] - tot : 0;
        }
        /* Layer j (0-based, processed from n-1 down): below + j*kept. The
         * layer's own peak: its backward (with its input, when checkpointing
         * and the program does not hold it) or, checkpointed, its recompute
         * (the forward's peak and its output). A frozen layer has none. */
        uint64_t lp[VX_TC_N] = {0}, rec[VX_TC_N] = {0};
        if (!k->frozen) {
            memcpy(lp, bwd_of(b, keep), sizeof lp);
            if (k->ckpt) {
                if (!k->held) lp[VX_TC_ACT] = vx_sat_add(lp[VX_TC_ACT], b->x_bytes);
                memcpy(rec, b->fwd_pk, sizeof rec);
                rec[VX_TC_ACT] = vx_sat_add(rec[VX_TC_ACT], b->y_bytes);
            }
        }
        uint64_t per_w = keep && !k->frozen ? b->wgrad_cat[VX_TC_GRAD] : 0;
        uint64_t per_a = keep && !k->frozen ? b->wgrad_cat[VX_TC_ADAPT] : 0;
        for (int end = 0; end < (k->n > 1 ? 2 : 1); end++) {
            int64_t j = end ? 0 : k->n - 1;
            uint64_t done = (uint64_t)(k->n - 1 - j);
            m = *base;
            add_cat(&m, VRAMEST_CAT_ACTIVATIONS, vx_sat_add(bwd_extra, held));
            add_cat(&m, VRAMEST_CAT_GRADIENTS, vx_sat_add(g, vx_sat_mul(per_w, done)));
            add_cat(&m, VRAMEST_CAT_ADAPTER, vx_sat_add(ag, vx_sat_mul(per_a, done)));
            add_tc(&m, below, 1);
            add_tc(&m, kept[s], (uint64_t)j);
            /* the layer's kept set is inside its own peak */
            if (k->ckpt && !k->frozen) {
                vx_mem mr = m;
                add_tc(&m, lp, 1);
                add_tc(&mr, rec, 1);
                point2(st, &m, &mr, VRAMEST_PHASE_BACKWARD, (int)(k->first + j), k->name, record);
            } else {
                add_tc(&m, lp, 1);
                point(st, &m, VRAMEST_PHASE_BACKWARD, (int)(k->first + j), k->name, record);
            }
        }
        g = vx_sat_add(g, vx_sat_mul(per_w, (uint64_t)k->n));
        ag = vx_sat_add(ag, vx_sat_mul(per_a, (uint64_t)k->n));
    }
    if (sp->first) {
        m = *base;
        add_cat(&m, VRAMEST_CAT_ACTIVATIONS, vx_sat_add(bwd_extra, held));
        add_cat(&m, VRAMEST_CAT_GRADIENTS, g);
        add_cat(&m, VRAMEST_CAT_ADAPTER, ag);
        add_tc(&m, bwd_of(&v->p[VX_SP_EMB], keep), 1);
        point(st, &m, VRAMEST_PHASE_BACKWARD, -1, "embedding backward", record);
    }
}

void vx_step_compose(const vx_step_shape *sp, const vx_step_vals *v, vx_step_out *out, vx_slog *log)
{
    const uint64_t *lf = v->leaf;
    vx_step st = {.out = out, .log = log, .tl_on = 1};
    memset(out->at, 0, sizeof out->at);
    out->total = 0;
    out->phase = 0;
    out->ntl = 0;
    if (log) log->n = 0, log->overflow = 0;
    uint64_t kept[VX_SP_NSTK][VX_TC_N];
    for (int s = 0; s < sp->nstk; s++) kept_of(sp, v, s, kept[s]);
    /* Offloaded activations (torchtune's OffloadActivations, Unsloth's
     * offloaded checkpointing): what each layer keeps goes to pinned host
     * memory as forward moves on and comes back when backward reaches it;
     * the GPU holds the copy in flight, one layer's worth, in either
     * direction (the returning layer's own tensors are in its backward). */
    uint64_t fly = 0;
    out->host_act = 0;
    if (sp->offload) {
        for (int s = 0; s < sp->nstk; s++) {
            uint64_t t = 0;
            for (int i = 0; i < VX_TC_N; i++) t = vx_sat_add(t, kept[s][i]);
            if (sp->stk[s].n > 0 && t > fly) fly = t;
            out->host_act = vx_sat_add(out->host_act, vx_sat_mul(t, (uint64_t)(sp->stk[s].n > 0 ? sp->stk[s].n : 0)));
            memset(kept[s], 0, sizeof kept[s]);
        }
    }

    /* What lives through the step. */
    vx_mem base;
    memcpy(base.c, lf, sizeof base.c);
    add_cat(&base, VRAMEST_CAT_ACTIVATIONS, vx_sat_mul(lf[VX_LF_IDS], (uint64_t)sp->ids_mul));
    add_cat(&base, VRAMEST_CAT_WORKSPACE, lf[VX_LF_A2A]);

    /* Pipeline: the activations of earlier micro-batches still in flight. */
    uint64_t per_mb = 0;
    if (sp->first) per_mb = v->p[VX_SP_EMB].saved;
    for (int s = 0; s < sp->nstk; s++) {
        uint64_t t = 0;
        for (int i = 0; i < VX_TC_N; i++) t = vx_sat_add(t, kept[s][i]);
        per_mb = vx_sat_add(per_mb, vx_sat_mul(t, (uint64_t)(sp->stk[s].n > 0 ? sp->stk[s].n : 0)));
    }
    uint64_t inflight = vx_sat_mul(per_mb, (uint64_t)sp->inflight);
    uint64_t fwd_extra = vx_sat_add(vx_sat_add(lf[VX_LF_FWDX], inflight), fly);
    uint64_t bwd_extra = vx_sat_add(vx_sat_add(lf[VX_LF_BWDX], inflight), fly);
    /* A plain PyTorch loop keeps `outputs` (the logits) through backward and
     * into the next forward, until it is rebound after that forward. */
    if (sp->last) fwd_extra = vx_sat_add(fwd_extra, v->p[VX_SP_HEAD].held_out);
    uint64_t G = lf[VX_LF_G], AG = lf[VX_LF_AG];

    /* Forward (the micro-batch with the gradients allocated when accumulating). */
    vx_mem fb = base;
    add_cat(&fb, VRAMEST_CAT_WEIGHTS, lf[VX_LF_WFWD]);
    if (sp->later) add_cat(&fb, VRAMEST_CAT_GRADIENTS, G), add_cat(&fb, VRAMEST_CAT_ADAPTER, AG);
    if (sp->later) add_cat(&fb, VRAMEST_CAT_GRADIENTS, lf[VX_LF_GACC]);
    point(&st, &fb, VRAMEST_PHASE_FORWARD, -1, "step start", 1);
    forward(&st, sp, v, (const uint64_t(*)[VX_TC_N])kept, &fb, fwd_extra, 1);
    if (sp->later && sp->ga2) {
        /* the first micro-batch's forward, without gradients (not recorded) */
        st.tl_on = 0;
        forward(&st, sp, v, (const uint64_t(*)[VX_TC_N])kept, &base, fwd_extra, 0);
        st.tl_on = 1;
    }

    /* Backward. */
    vx_mem bb = base;
    add_cat(&bb, VRAMEST_CAT_WEIGHTS, lf[VX_LF_WBWD]);
    add_cat(&bb, VRAMEST_CAT_GRADIENTS, lf[VX_LF_GBWD]);
    if (sp->later) add_cat(&bb, VRAMEST_CAT_GRADIENTS, lf[VX_LF_GACC]);
    const uint64_t(*kp)[VX_TC_N] = (const uint64_t(*)[VX_TC_N])kept;
    if (sp->reduce) {
        /* Sharded gradient partitions exist from the start; the full-size
         * gradients are reduced away (or stepped and freed) as they appear. */
        backward(&st, sp, v, kp, &bb, bwd_extra, G, AG, 0, 1);
    } else if (sp->later) {
        if (sp->ga2) {
            st.tl_on = 0;
            backward(&st, sp, v, kp, &bb, bwd_extra, 0, 0, 1, 0);
            st.tl_on = 1;
        }
        backward(&st, sp, v, kp, &bb, bwd_extra, G, AG, 0, 1);
    } else {
        backward(&st, sp, v, kp, &bb, bwd_extra, 0, 0, 1, 1);
    }

    /* Optimizer step: every gradient, the step's temporaries (foreach sqrt
     * over a parameter group, single-tensor denominators, the ZeRO fp32
     * gradient partition). */
    if (sp->opt) {
        vx_mem om = base;
        add_cat(&om, VRAMEST_CAT_GRADIENTS, G);
        add_cat(&om, VRAMEST_CAT_ADAPTER, AG);
        /* in backward: the largest parameter's step, its gradient alive */
        if (sp->in_bwd) add_cat(&om, VRAMEST_CAT_GRADIENTS, lf[VX_LF_LARGEST]);
        if (sp->later) add_cat(&om, VRAMEST_CAT_GRADIENTS, lf[VX_LF_GACC]);
        if (sp->opt_dev) add_cat(&om, VRAMEST_CAT_WORKSPACE, lf[VX_LF_OPTTMP]);
        add_cat(&om, VRAMEST_CAT_WORKSPACE, lf[VX_LF_STEP]);
        point(&st, &om, VRAMEST_PHASE_OPTIMIZER, -1, "optimizer step", 1);
    }
}
