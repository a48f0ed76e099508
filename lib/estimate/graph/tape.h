/* A symbolic autograd tape (tape.c): tensors, saved-for-backward
 * references, a forward pass and a reverse backward pass that track live
 * bytes per category; and the log of every change of its counters, which
 * the estimator's cache fits into compiled programs (estimate/cache/). */
#ifndef VX_TAPE_H
#define VX_TAPE_H

#include "estimate/context/context.h" /* VX_TC_* */

/* ---- the tape's log (written only while compiling) ---- */
enum {
    VX_EV_ADD = 0,   /* live[cat] += round(raw) */
    VX_EV_SUB,       /* live[cat] -= round(raw) */
    VX_EV_ADDNS,     /* live_ns[cat] += round(raw) */
    VX_EV_SUBNS,     /* live_ns[cat] -= round(raw) (saturating on the tape) */
    VX_EV_WKEEP,     /* wkept[cat] += round(raw) */
    VX_EV_BUMPF,     /* forward peak check */
    VX_EV_BUMPB,     /* backward peak check */
    VX_EV_BEGINB,    /* backward starts: peaks restart from the live bytes */
    VX_EV_SNAPF,     /* the program's forward peaks are read */
    VX_EV_VALX,      /* x_bytes = round(raw) */
    VX_EV_VALY,      /* y_bytes = round(raw), in category `cat` */
    VX_EV_SNAPSAVED, /* saved / saved_cat are read */
    VX_EV_HELDFLAG,  /* held_out = raw (a flag, not rounded) */
    VX_EV_HELD,      /* held_out = round(raw) (the head's kept logits) */
    VX_EV_END        /* backward done: bwd peaks and kept gradients are read */
};

typedef struct vx_tev {
    uint8_t op, cat;
    uint64_t raw;
} vx_tev;

#define VX_TLOG_CAP 6144
typedef struct vx_tlog {
    uint32_t n;
    uint8_t overflow;
    vx_tev ev[VX_TLOG_CAP];
} vx_tlog;

static inline void vx_tlog_push(vx_tlog *l, int op, int cat, uint64_t raw)
{
    if (l->n >= VX_TLOG_CAP) {
        l->overflow = 1;
        return;
    }
    vx_tev *e = &l->ev[l->n++];
    e->op = (uint8_t)op;
    e->cat = (uint8_t)cat;
    e->raw = raw;
}

/* ---- the tape (tape.c) ---- */
#define VX_TAPE_T 320
#define VX_TAPE_N 256

typedef struct vx_tt {
    uint64_t elems;  /* logical elements */
    uint64_t abytes; /* bytes allocated for the storage (0 for a view) */
    uint64_t gbytes; /* bytes of this tensor's gradient alive in backward */
    uint64_t graw;   /* the same before allocator rounding (the compile log's unit) */
    int16_t root;    /* the tensor owning the storage (itself unless a view) */
    int16_t save_as; /* saving this tensor keeps that one instead (sequence-parallel all-gathers) */
    uint16_t holds;  /* Python references (on the root) */
    uint16_t saves;  /* saved-for-backward references (on the root) */
    uint8_t eb, cat, rg, hasg;
    uint8_t ns_dead; /* freed in the checkpointed-forward accounting */
} vx_tt;

typedef struct vx_tn {
    int16_t in[3], out[2], sv[5];
    uint8_t nin, nout, nsv;
    uint8_t pass;     /* bit i: input i receives the output's gradient itself (views, adds, clones) */
    uint8_t wcat;
    uint8_t wsum;     /* 0: a new .grad, kept; 1: .grad exists (tied weight, a later chunk): the new gradient is
                         summed in, a transient; 2: made in forward as a saved tensor (a fused loss), kept */
    uint64_t wg;      /* parameter gradient bytes produced */
    uint64_t wtmp;    /* a transient beside the parameter gradient (its low-precision form) */
    uint64_t tmp;     /* backward scratch of the kernel */
} vx_tn;

typedef struct vx_tape {
    uint8_t cpu;     /* no allocator rounding */
    uint8_t grad;    /* autograd records nodes */
    uint8_t save;    /* saved tensors are retained */
    uint8_t err;     /* ran out of slots */
    uint8_t bwd;     /* in backward */
    uint16_t nt, nn;
    uint64_t rmask;  /* allocator rounding: 511 (512-B blocks on CUDA), 0 on the CPU */
    uint64_t live[VX_TC_N], tot, peak, pk[VX_TC_N];       /* saves kept; backward keeping new grads */
    uint64_t live_ns[VX_TC_N], tot_ns, peak_ns, pk_ns[VX_TC_N]; /* forward under checkpointing */
    uint64_t peak_acc, pk_acc[VX_TC_N];                   /* backward summing into existing grads */
    uint64_t wkept[VX_TC_N], wkept_tot;                   /* new parameter gradients so far */
    struct vx_tlog *log;     /* NULL, or every counter change is logged (progcache.c compiles it) */
    vx_tt t[VX_TAPE_T];
    vx_tn n[VX_TAPE_N];
} vx_tape;

void vx_tape_init(vx_tape *tp, int cpu, int grad, int save) VX_HIDDEN;
int vx_tape_new(vx_tape *tp, uint64_t elems, int eb, int cat, int rg) VX_HIDDEN;
int vx_tape_view(vx_tape *tp, int base, uint64_t elems) VX_HIDDEN;
/* A view without the pass-through node (the caller records its own). */
int vx_tape_view_raw(vx_tape *tp, int base, uint64_t elems) VX_HIDDEN;
void vx_tape_drop(vx_tape *tp, int id) VX_HIDDEN;
void vx_tape_begin_backward(vx_tape *tp) VX_HIDDEN;
/* A transient allocation inside a forward op (kernel scratch). */
void vx_tape_transient(vx_tape *tp, uint64_t bytes, int cat) VX_HIDDEN;
/* Record one autograd node. Inputs that do not require grad are dropped from
 * it; without any input requiring grad and without a parameter gradient no
 * node exists and nothing is saved. Returns 1 when recorded. */
typedef struct vx_node_spec {
    int16_t in[3], out[2], sv[5];
    uint8_t nin, nout, nsv, pass, wcat, wsum;
    uint64_t wg, wtmp, tmp;
} vx_node_spec;
int vx_tape_node(vx_tape *tp, const vx_node_spec *ns) VX_HIDDEN;
/* Keep tensors alive until backward reaches this point (a checkpoint's
 * inputs): a node with saved tensors and nothing else. */
void vx_tape_keep(vx_tape *tp, const int *ids, int n) VX_HIDDEN;
/* Run backward from `out` (its gradient allocated first) down the tape. */
void vx_tape_backward(vx_tape *tp, int out) VX_HIDDEN;
static inline uint64_t vx_tape_bytes(const vx_tape *tp, int id)
{
    return id >= 0 ? vx_sat_mul(tp->t[id].elems, tp->t[id].eb) : 0;
}

#endif
