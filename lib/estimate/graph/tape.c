/* A symbolic autograd tape. The layer programs (activations.c, logits.c)
 * replay, op by op, what a Hugging Face module allocates, which tensors
 * autograd saves for backward and when Python drops its references; the
 * tape turns that into live bytes per category, a forward peak, and - by
 * walking the recorded nodes in reverse, as the autograd engine does for a
 * sequential graph - a backward peak. Sizes are closed forms of b, s, h,
 * heads...; a program has a few dozen ops and needs no allocation.
 *
 * One run answers four questions at once:
 *   forward, saved tensors kept (the normal case)         peak / pk
 *   forward under checkpointing (saved tensors dropped     peak_ns / pk_ns
 *     when Python drops them: nothing is kept)
 *   backward keeping new parameter gradients (the first    peak / pk
 *     micro-batch: AccumulateGrad steals the buffer)        (after backward)
 *   backward summing them into existing .grad (later       peak_acc / pk_acc
 *     micro-batches, or ZeRO-2/3 reducing them away)
 *
 * Memory semantics (research note §3):
 * - a storage is alive while Python holds a reference to it or to a view of
 *   it, or while a node keeps it saved for backward;
 * - a node's saved tensors are released when the node has run in backward;
 * - the gradient of a tensor is allocated by the node that consumes it in
 *   the forward direction (its backward), except for views, adds and
 *   clones, which hand the incoming gradient on; a second gradient arriving
 *   at the same tensor is summed in place (InputBuffer::accumulate), so it
 *   is a transient. */
#include <string.h>

#include "estimate/graph/tape.h"

/* Compile log: raw (unrounded) bytes of every counter change. */
#define TLOG(tp, op, cat, raw) \
    do { \
        if ((tp)->log) vx_tlog_push((tp)->log, (op), (cat), (raw)); \
    } while (0)

void vx_tape_init(vx_tape *tp, int cpu, int grad, int save)
{
    memset(tp, 0, offsetof(vx_tape, t));
    tp->cpu = (uint8_t)cpu;
    tp->grad = (uint8_t)grad;
    tp->save = (uint8_t)save;
    tp->rmask = cpu ? 0 : 511;
}

/* The caching allocator's 512-B rounding (none on the CPU): 0 stays 0 and
 * 1..512 become 512, without branches (every tensor and gradient passes here). */
static inline uint64_t rounded(const vx_tape *tp, uint64_t bytes)
{
    return (bytes + tp->rmask) & ~tp->rmask;
}

static inline void bump_fwd(vx_tape *tp)
{
    if (tp->tot > tp->peak) {
        tp->peak = tp->tot;
        memcpy(tp->pk, tp->live, sizeof tp->pk);
    }
    if (tp->tot_ns > tp->peak_ns) {
        tp->peak_ns = tp->tot_ns;
        memcpy(tp->pk_ns, tp->live_ns, sizeof tp->pk_ns);
    }
}

static inline void bump_bwd(vx_tape *tp)
{
    uint64_t keep = tp->tot + tp->wkept_tot;
    if (keep > tp->peak) {
        tp->peak = keep;
        for (int c = 0; c < VX_TC_N; c++) tp->pk[c] = tp->live[c] + tp->wkept[c];
    }
    if (tp->tot > tp->peak_acc) {
        tp->peak_acc = tp->tot;
        memcpy(tp->pk_acc, tp->live, sizeof tp->pk_acc);
    }
}

/* Every subtraction undoes an earlier addition of the same bytes, so
 * these never wrap. */
static inline void add_live(vx_tape *tp, int cat, uint64_t b)
{
    tp->live[cat] += b;
    tp->tot += b;
}

static inline void sub_live(vx_tape *tp, int cat, uint64_t b)
{
    tp->live[cat] -= b;
    tp->tot -= b;
}

static inline void sub_ns(vx_tape *tp, int cat, uint64_t b)
{
    tp->live_ns[cat] = tp->live_ns[cat] >= b ? tp->live_ns[cat] - b : 0;
    tp->tot_ns = tp->tot_ns >= b ? tp->tot_ns - b : 0;
}

void vx_tape_begin_backward(vx_tape *tp)
{
    TLOG(tp, VX_EV_BEGINB, 0, 0);
    tp->bwd = 1;
    tp->peak = tp->peak_acc = tp->tot;
    memcpy(tp->pk, tp->live, sizeof tp->pk);
    memcpy(tp->pk_acc, tp->live, sizeof tp->pk_acc);
}

int vx_tape_new(vx_tape *tp, uint64_t elems, int eb, int cat, int rg)
{
    if (tp->nt >= VX_TAPE_T) {
        tp->err = 1;
        return tp->nt - 1;
    }
    int id = tp->nt++;
    vx_tt *t = &tp->t[id];
    uint64_t raw = elems * (uint64_t)eb, b = rounded(tp, raw);
    t->elems = elems;
    t->abytes = b;
    t->gbytes = 0;
    t->graw = 0;
    t->root = (int16_t)id;
    t->save_as = -1;
    t->holds = 1;
    t->saves = 0;
    t->eb = (uint8_t)eb;
    t->cat = (uint8_t)cat;
    t->rg = (uint8_t)(rg && tp->grad);
    t->hasg = 0;
    t->ns_dead = 0;
    tp->live[cat] += b;
    tp->tot += b;
    tp->live_ns[cat] += b;
    tp->tot_ns += b;
    TLOG(tp, VX_EV_ADD, cat, raw);
    TLOG(tp, VX_EV_ADDNS, cat, raw);
    TLOG(tp, tp->bwd ? VX_EV_BUMPB : VX_EV_BUMPF, 0, 0);
    if (tp->bwd) bump_bwd(tp);
    else bump_fwd(tp);
    return id;
}

int vx_tape_view_raw(vx_tape *tp, int base, uint64_t elems)
{
    if (base < 0) return -1;
    if (tp->nt >= VX_TAPE_T) {
        tp->err = 1;
        return base;
    }
    int id = tp->nt++;
    vx_tt *t = &tp->t[id], *b = &tp->t[base];
    *t = *b;
    t->elems = elems;
    t->root = b->root;
    t->abytes = 0;
    t->holds = 1;
    t->saves = 0;
    t->hasg = 0;
    t->gbytes = 0;
    t->graw = 0;
    tp->t[b->root].holds++;
    return id;
}

int vx_tape_view(vx_tape *tp, int base, uint64_t elems)
{
    if (base < 0) return -1;
    if (elems == tp->t[base].elems) {
        /* A same-shape alias (a no-op cast, dropout with p = 0, a transpose
         * back): the same tensor for memory and gradient, one more reference. */
        tp->t[base].holds++;
        if (tp->t[base].root != base) tp->t[tp->t[base].root].holds++;
        return base;
    }
    int id = vx_tape_view_raw(tp, base, elems);
    if (id >= 0 && id != base && tp->t[base].rg) {
        /* A view's gradient is the base's (a view of it). */
        vx_node_spec ns = {.in = {(int16_t)base, -1, -1}, .nin = 1, .out = {(int16_t)id, -1}, .nout = 1, .pass = 1};
        vx_tape_node(tp, &ns);
    }
    return id;
}

/* Release a root when nothing references it; in the checkpointed-forward
 * accounting, saved references do not count. */
static inline void maybe_free(vx_tape *tp, int root)
{
    vx_tt *r = &tp->t[root];
    if (r->holds || !r->abytes) return;
    if (!r->ns_dead) {
        TLOG(tp, VX_EV_SUBNS, r->cat, r->elems * (uint64_t)r->eb);
        sub_ns(tp, r->cat, r->abytes);
        r->ns_dead = 1;
    }
    if (!r->saves) {
        TLOG(tp, VX_EV_SUB, r->cat, r->elems * (uint64_t)r->eb);
        sub_live(tp, r->cat, r->abytes);
        r->abytes = 0;
    }
}

void vx_tape_drop(vx_tape *tp, int id)
{
    if (id < 0) return;
    vx_tt *t = &tp->t[id];
    if (!t->holds) return; /* dropped already */
    t->holds--;
    if (t->root != id) {
        vx_tt *r = &tp->t[t->root];
        if (r->holds) r->holds--;
    }
    maybe_free(tp, t->root);
}

void vx_tape_transient(vx_tape *tp, uint64_t bytes, int cat)
{
    uint64_t b = rounded(tp, bytes);
    tp->live[cat] += b;
    tp->tot += b;
    tp->live_ns[cat] += b;
    tp->tot_ns += b;
    bump_fwd(tp);
    sub_live(tp, cat, b);
    sub_ns(tp, cat, b);
    if (tp->log) {
        vx_tlog_push(tp->log, VX_EV_ADD, cat, bytes);
        vx_tlog_push(tp->log, VX_EV_ADDNS, cat, bytes);
        vx_tlog_push(tp->log, VX_EV_BUMPF, 0, 0);
        vx_tlog_push(tp->log, VX_EV_SUB, cat, bytes);
        vx_tlog_push(tp->log, VX_EV_SUBNS, cat, bytes);
    }
}

int vx_tape_node(vx_tape *tp, const vx_node_spec *ns)
{
    if (!tp->grad) return 0;
    /* Inputs are compacted straight into the next slot (or a scratch node
     * when the tape is full, to keep the rg marking below): one pass decides
     * whether a node exists at all. */
    vx_tn scratch;
    vx_tn *n = tp->nn < VX_TAPE_N ? &tp->n[tp->nn] : &scratch;
    uint8_t nin = 0, pass = 0;
    for (int i = 0; i < ns->nin; i++) {
        int id = ns->in[i];
        if (id < 0 || !tp->t[id].rg) continue;
        if (ns->pass & (1u << i)) pass |= (uint8_t)(1u << nin);
        n->in[nin++] = (int16_t)id;
    }
    if (!nin && !ns->wg) return 0;
    uint8_t nout = 0;
    for (int i = 0; i < ns->nout; i++)
        if (ns->out[i] >= 0) {
            tp->t[ns->out[i]].rg = 1;
            n->out[nout++] = ns->out[i];
        }
    if (n == &scratch) {
        tp->err = 1;
        return 0;
    }
    tp->nn++;
    n->nin = nin;
    n->nout = nout;
    n->pass = pass;
    uint8_t nsv = 0;
    if (tp->save)
        for (int i = 0; i < ns->nsv; i++) {
            int id = ns->sv[i];
            if (id < 0) continue;
            if (tp->t[id].save_as >= 0) id = tp->t[id].save_as;
            n->sv[nsv++] = (int16_t)id;
            tp->t[tp->t[id].root].saves++;
        }
    n->nsv = nsv;
    n->wg = ns->wg;
    n->wcat = ns->wcat;
    n->wsum = ns->wsum;
    n->wtmp = ns->wtmp;
    n->tmp = ns->tmp;
    return 1;
}

void vx_tape_keep(vx_tape *tp, const int *ids, int n)
{
    if (!tp->grad || !tp->save) return;
    if (tp->nn >= VX_TAPE_N) {
        tp->err = 1;
        return;
    }
    vx_tn *nd = &tp->n[tp->nn++];
    memset(nd, 0, sizeof *nd);
    for (int i = 0; i < n && nd->nsv < 5; i++) {
        if (ids[i] < 0) continue;
        nd->sv[nd->nsv++] = (int16_t)ids[i];
        tp->t[tp->t[ids[i]].root].saves++;
    }
}

/* Gradient storage for tensor `id`: a new buffer of its own size. */
static void give_grad(vx_tape *tp, int id, uint64_t *transient, uint64_t *traw, int *ntraw)
{
    vx_tt *t = &tp->t[id];
    uint64_t raw = t->elems * (uint64_t)t->eb, b = rounded(tp, raw);
    if (t->hasg) {
        /* Summed into the gradient already there: alive only for the add. */
        *transient += b;
        traw[(*ntraw)++] = raw;
        return;
    }
    t->hasg = 1;
    t->gbytes = b;
    t->graw = raw;
    TLOG(tp, VX_EV_ADD, t->cat, raw);
    add_live(tp, t->cat, b);
}

void vx_tape_backward(vx_tape *tp, int out)
{
    vx_tape_begin_backward(tp);
    if (out >= 0) {
        vx_tt *o = &tp->t[out];
        o->hasg = 1;
        o->graw = o->elems * (uint64_t)o->eb;
        o->gbytes = rounded(tp, o->graw);
        add_live(tp, o->cat, o->gbytes);
        TLOG(tp, VX_EV_ADD, o->cat, o->graw);
        TLOG(tp, VX_EV_BUMPB, 0, 0);
        bump_bwd(tp);
    }
    for (int k = tp->nn - 1; k >= 0; k--) {
        vx_tn *n = &tp->n[k];
        int has = 0;
        for (int i = 0; i < n->nout; i++) has |= tp->t[n->out[i]].hasg;
        if (has) {
            uint64_t trans = 0, traw[3];
            int ntraw = 0;
            /* The incoming gradient (of the first output) may be handed on. */
            vx_tt *o0 = &tp->t[n->out[0]];
            int handed = 0;
            for (int i = 0; i < n->nin; i++) {
                vx_tt *in = &tp->t[n->in[i]];
                if (n->pass & (1u << i)) {
                    if (!in->hasg) {
                        in->hasg = 1;
                        if (!handed && o0->hasg) {
                            /* Moves: the storage now belongs to the input's gradient. */
                            in->gbytes = o0->gbytes;
                            in->graw = o0->graw;
                            if (in->cat != o0->cat) {
                                TLOG(tp, VX_EV_SUB, o0->cat, o0->graw);
                                TLOG(tp, VX_EV_ADD, in->cat, o0->graw);
                                sub_live(tp, o0->cat, o0->gbytes);
                                add_live(tp, in->cat, o0->gbytes);
                            }
                            o0->gbytes = 0;
                            o0->graw = 0;
                            handed = 1;
                        } else {
                            in->gbytes = 0; /* the same tensor, shared */
                            in->graw = 0;
                        }
                    }
                    /* else: summed in place into the existing gradient */
                } else {
                    give_grad(tp, n->in[i], &trans, traw, &ntraw);
                }
            }
            /* Parameter gradients: transient here; kept ones are carried in
             * wkept for the first-micro-batch accounting. */
            uint64_t wg = rounded(tp, n->wg), wtmp = rounded(tp, n->wtmp), tmp = rounded(tp, n->tmp);
            /* wsum 2: the gradient was made in forward (a saved tensor of
             * the node): nothing new is allocated here */
            uint64_t wraw = n->wsum == 2 ? 0 : n->wg, wl = n->wsum == 2 ? 0 : wg;
            add_live(tp, n->wcat, wl + wtmp);
            add_live(tp, VX_TC_WORK, tmp);
            add_live(tp, VX_TC_ACT, trans);
            bump_bwd(tp);
            sub_live(tp, VX_TC_WORK, tmp);
            sub_live(tp, n->wcat, wl + wtmp);
            sub_live(tp, VX_TC_ACT, trans);
            if (tp->log) {
                vx_tlog *l = tp->log;
                vx_tlog_push(l, VX_EV_ADD, n->wcat, wraw);
                vx_tlog_push(l, VX_EV_ADD, n->wcat, n->wtmp);
                vx_tlog_push(l, VX_EV_ADD, VX_TC_WORK, n->tmp);
                for (int i = 0; i < ntraw; i++) vx_tlog_push(l, VX_EV_ADD, VX_TC_ACT, traw[i]);
                vx_tlog_push(l, VX_EV_BUMPB, 0, 0);
                vx_tlog_push(l, VX_EV_SUB, n->wcat, wraw);
                vx_tlog_push(l, VX_EV_SUB, n->wcat, n->wtmp);
                vx_tlog_push(l, VX_EV_SUB, VX_TC_WORK, n->tmp);
                for (int i = 0; i < ntraw; i++) vx_tlog_push(l, VX_EV_SUB, VX_TC_ACT, traw[i]);
            }
            if (n->wsum != 1 && wg) {
                TLOG(tp, VX_EV_WKEEP, n->wcat, n->wg);
                tp->wkept[n->wcat] += wg;
                tp->wkept_tot += wg;
            }
            for (int i = 0; i < n->nout; i++) {
                vx_tt *o = &tp->t[n->out[i]];
                if (o->hasg) {
                    TLOG(tp, VX_EV_SUB, o->cat, o->graw);
                    sub_live(tp, o->cat, o->gbytes);
                    o->gbytes = 0;
                    o->graw = 0;
                    o->hasg = 0;
                }
            }
        }
        for (int i = 0; i < n->nsv; i++) {
            int r = tp->t[n->sv[i]].root;
            if (tp->t[r].saves) tp->t[r].saves--;
            maybe_free(tp, r);
        }
    }
}
