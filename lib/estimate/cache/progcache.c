/* Compiled training programs and their cache (see progcache.h). */
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/cache/cprog.h"
#include "estimate/cache/progcache.h"
#include "estimate/cache/stepcache.h"
#include "estimate/params/weights.h"

#define VX_PC_CANDS 64     /* surviving peak candidates of one kind */
#define VX_PC_TERMS 16384  /* (category, slot, count) terms of one program */
#define VX_PC_ENTRIES 64   /* compiled programs per model handle */

/* ---- probes ---- */

typedef struct probe {
    int64_t b, s;
    vx_tlog *log;
    vx_prog res;
} probe;

static int run_probe(const vx_prog_call *pc, probe *p)
{
    vx_act_cfg c = *pc->c;
    int64_t dskv = c.skv - (int64_t)c.s, denc = c.s_enc - (int64_t)c.s;
    c.b = (uint64_t)p->b;
    c.s = (uint64_t)p->s;
    c.N = c.b * c.s;
    c.Nh = c.N;
    c.skv = p->s + dskv;
    c.s_enc = p->s + denc;
    vx_prog_call q = *pc;
    q.c = &c;
    p->log->n = 0;
    p->log->overflow = 0;
    char saved[256];
    vx_strlcpy(saved, vramest_last_error_message(), sizeof saved);
    int rc = vx_prog_run(&q, p->log, &p->res);
    /* A probe's failure is not the caller's error. */
    if (saved[0]) vx_fail(VRAMEST_OK, "%s", saved);
    else vramest_clear_error();
    return rc == VRAMEST_OK && !p->log->overflow;
}

static int same_shape(const vx_tlog *a, const vx_tlog *b)
{
    if (a->n != b->n) return 0;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->ev[i].op != b->ev[i].op || a->ev[i].cat != b->ev[i].cat) return 0;
    return 1;
}

/* ---- the symbolic pass ---- */

typedef int32_t vec[VX_TC_N][VX_PC_SLOTS];

typedef struct scratch {
    probe pr[VX_PROBE_N];
    vx_poly poly[VX_TLOG_CAP];
    vec live, ns, wk;
    vec cand[PK_N][VX_PC_CANDS];
    int ncand[PK_N];
    vec saved_v, wkept_v;
    vx_tlog logs[VX_PROBE_N];
} scratch;

static void tot_of(const vec v, int nslot, int32_t *t)
{
    for (int k = 0; k < nslot; k++) {
        int32_t s = 0;
        for (int c = 0; c < VX_TC_N; c++) s += v[c][k];
        t[k] = s;
    }
}

/* Whether sum_k d[k] * round(P_k) is >= 0 (> 0 when `strict`) at every size
 * of the class. Rounding adds 0..rmask to each slot, so the negative terms
 * may grow by rmask each; the rest is a polynomial in u, v >= 0 (integers),
 * non-negative when every coefficient is, in the Newton basis (1, v,
 * v(v-1)/2, ...) or in the plain one (1, v, v^2, ...). */
static int always_ge(const vx_cprog *cp, const int32_t *d, int nslot, int strict)
{
    __int128 co[6] = {0}, slack = 0;
    for (int k = 0; k < nslot; k++) {
        if (!d[k]) continue;
        const vx_poly *P = &cp->slot[k];
        const int64_t pc[6] = {P->a0, P->a1, P->a2, P->e0, P->e1, P->e2};
        for (int i = 0; i < 6; i++) co[i] += (__int128)d[k] * pc[i];
        if (d[k] < 0) slack += (__int128)(-d[k]) * (__int128)cp->rmask;
    }
    return vx_poly_nonneg(co, slack, &cp->cl, strict);
}

/* Add candidate `v` to kind `kind` unless it can never be the first
 * maximum; returns 0 when the candidate list overflows. */
static int add_cand(scratch *sc, const vx_cprog *cp, int kind, const vec v)
{
    int nslot = cp->nslot;
    int32_t tj[VX_PC_SLOTS], ti[VX_PC_SLOTS], d[VX_PC_SLOTS];
    tot_of(v, nslot, tj);
    int n = sc->ncand[kind];
    for (int i = 0; i < n; i++) {
        tot_of(sc->cand[kind][i], nslot, ti);
        for (int k = 0; k < nslot; k++) d[k] = ti[k] - tj[k];
        /* an earlier one never smaller wins ties: this one never counts */
        if (always_ge(cp, d, nslot, 0)) return 1;
    }
    /* Drop earlier ones this one always strictly exceeds. */
    int m = 0;
    for (int i = 0; i < n; i++) {
        tot_of(sc->cand[kind][i], nslot, ti);
        for (int k = 0; k < nslot; k++) d[k] = tj[k] - ti[k];
        if (always_ge(cp, d, nslot, 1)) continue;
        if (m != i) memcpy(sc->cand[kind][m], sc->cand[kind][i], sizeof(vec));
        m++;
    }
    if (m >= VX_PC_CANDS) return 0;
    memcpy(sc->cand[kind][m], v, sizeof(vec));
    sc->ncand[kind] = m + 1;
    return 1;
}

static void vec_sum(vec out, const vec a, const vec b)
{
    for (int c = 0; c < VX_TC_N; c++)
        for (int k = 0; k < VX_PC_SLOTS; k++) out[c][k] = a[c][k] + b[c][k];
}

/* Terms of a vector into the program; returns 0 when they do not fit. */
static int emit(vx_cprog *cp, size_t cap, const vec v, int nslot)
{
    uint16_t owner = cp->nowner++;
    for (int c = 0; c < VX_TC_N; c++)
        for (int k = 0; k < nslot; k++) {
            if (!v[c][k]) continue;
            if (cp->nterm >= cap || v[c][k] > INT16_MAX || v[c][k] < INT16_MIN) return 0;
            vx_term *t = &cp->term[cp->nterm++];
            t->cat = (uint8_t)c;
            t->slot = (uint8_t)k;
            t->n = (int16_t)v[c][k];
            t->owner = owner;
        }
    return 1;
}

/* ---- evaluation ---- */

/* The first row of `kind` with the largest total (the tape's strict `>`). */
static void best_of(const vx_cprog *cp, int kind, const uint64_t (*acc)[VX_TC_N], uint64_t *peak,
                    uint64_t pk[VX_TC_N])
{
    uint64_t best = 0;
    int bi = -1;
    for (int i = 0; i < cp->ncand[kind]; i++) {
        const uint64_t *r = acc[cp->cand_owner[kind] + i];
        uint64_t t = r[0] + r[1] + r[2] + r[3] + r[4];
        if (bi < 0 || t > best) best = t, bi = cp->cand_owner[kind] + i;
    }
    *peak = best;
    if (bi >= 0) memcpy(pk, acc[bi], sizeof(uint64_t) * VX_TC_N);
    else memset(pk, 0, sizeof(uint64_t) * VX_TC_N);
}

/* 0 when a size leaves the range the form was checked for (replay then). */
static int cprog_eval(const vx_cprog *cp, uint64_t b, uint64_t s, vx_prog *out)
{
    uint64_t val[VX_PC_SLOTS];
    int64_t u, v;
    if (!vx_pclass_uv(&cp->cl, b, s, &u, &v)) return 0;
    int64_t w = v * (v - 1) / 2;
    /* |terms| <= cmax (1 + v + w)(1 + u): when that is below the limit the
     * plain 64-bit sum cannot overflow */
    __int128 bound = (__int128)cp->cmax * (1 + v + w) * (1 + u) * 3;
    if (bound < VX_PC_LIMIT) {
        for (int k = 0; k < cp->nslot; k++) {
            const vx_poly *p = &cp->slot[k];
            int64_t r = p->a0 + p->a1 * v + p->a2 * w + u * (p->e0 + p->e1 * v + p->e2 * w);
            if (r < 0) return 0;
            val[k] = ((uint64_t)r + cp->rmask) & ~cp->rmask;
        }
    } else {
        for (int k = 0; k < cp->nslot; k++) {
            uint64_t raw;
            if (!vx_poly_eval(&cp->slot[k], u, v, &raw)) return 0;
            val[k] = (raw + cp->rmask) & ~cp->rmask;
        }
    }
    /* One pass over the terms fills every row; then each kind's winner. */
    uint64_t acc[PK_N * VX_PC_CANDS + 2][VX_TC_N];
    memset(acc, 0, (size_t)cp->nowner * sizeof acc[0]);
    for (unsigned i = 0; i < cp->nterm; i++) {
        const vx_term *t = &cp->term[i];
        acc[t->owner][t->cat] += (uint64_t)(int64_t)t->n * val[t->slot];
    }
    /* every field of *out is written below */
    out->x_bytes = cp->xslot >= 0 ? val[cp->xslot] : 0;
    best_of(cp, PK_F, (const uint64_t (*)[VX_TC_N])acc, &out->fwd_peak, out->fwd_pk);
    best_of(cp, PK_FN, (const uint64_t (*)[VX_TC_N])acc, &out->fwd_ns_peak, out->fwd_ns_pk);
    out->y_bytes = cp->yslot >= 0 ? val[cp->yslot] : 0;
    memcpy(out->saved_cat, acc[cp->nowner - 2], sizeof out->saved_cat);
    uint64_t tot = 0;
    for (int c = 0; c < VX_TC_N; c++) tot += out->saved_cat[c];
    out->saved = tot >= out->y_bytes ? tot - out->y_bytes : 0;
    out->saved_cat[cp->ycat] -= out->saved_cat[cp->ycat] >= out->y_bytes ? out->y_bytes : 0;
    best_of(cp, PK_BK, (const uint64_t (*)[VX_TC_N])acc, &out->bwd_peak, out->bwd_pk);
    best_of(cp, PK_BA, (const uint64_t (*)[VX_TC_N])acc, &out->bwd_acc_peak, out->bwd_acc_pk);
    memcpy(out->wgrad_cat, acc[cp->nowner - 1], sizeof out->wgrad_cat);
    out->wgrad = 0;
    for (int c = 0; c < VX_TC_N; c++) out->wgrad += out->wgrad_cat[c];
    out->held_out = cp->held_is_bytes ? (cp->hslot >= 0 ? val[cp->hslot] : 0) : cp->held_flag;
    return 1;
}

/* ---- compiling ---- */

static int64_t abs64(int64_t x)
{
    return x < 0 ? -x : x;
}

static int slot_of(vx_cprog *cp, const vx_poly *p)
{
    for (int k = 0; k < cp->nslot; k++)
        if (!memcmp(&cp->slot[k], p, sizeof *p)) return k;
    if (cp->nslot >= VX_PC_SLOTS) return -2;
    const int64_t co[6] = {p->a0, p->a1, p->a2, p->e0, p->e1, p->e2};
    for (int i = 0; i < 6; i++)
        if (abs64(co[i]) > cp->cmax) cp->cmax = abs64(co[i]);
    cp->slot[cp->nslot] = *p;
    return cp->nslot++;
}

/* Compile `pc` (whose sizes pick the class); NULL when the program is not
 * of the compilable form. The result is malloc'd. */
static vx_cprog *compile(const vx_prog_call *pc)
{
    const vx_act_cfg *c = pc->c;
    if (c->Nh != c->N || c->N != c->b * c->s || c->skv < (int64_t)c->s || c->s_enc < (int64_t)c->s) return NULL;
    scratch *sc = calloc(1, sizeof *sc);
    size_t cap = VX_PC_TERMS;
    vx_cprog *cp = calloc(1, sizeof *cp + cap * sizeof(vx_term));
    vx_cprog *res = NULL;
    if (!sc || !cp) goto done;
    vx_pclass_of(c->b, c->s, &cp->cl);
    cp->rmask = c->cpu ? 0 : 511;
    int np = VX_PROBE_N;
    for (int i = 0; i < np; i++) {
        probe *p = &sc->pr[i];
        vx_probe_size(&cp->cl, i, c->b, c->s, &p->b, &p->s);
        p->log = &sc->logs[i];
    }
    for (int i = 0; i < np; i++) {
        if (!run_probe(pc, &sc->pr[i])) goto done;
        if (i && !same_shape(sc->pr[0].log, sc->pr[i].log)) goto done;
    }
    const vx_tlog *L = sc->pr[0].log;
    /* Fit every event's bytes on the grid (index u * 3 + v). */
    for (uint32_t i = 0; i < L->n; i++) {
        int64_t q[VX_PROBE_GRID];
        for (int g = 0; g < VX_PROBE_GRID; g++) {
            uint64_t r = sc->pr[g].log->ev[i].raw;
            if (r >= (uint64_t)VX_PC_LIMIT) goto done;
            q[g] = (int64_t)r;
        }
        vx_poly *p = &sc->poly[i];
        vx_poly_fit(q, p);
        for (int k = VX_PROBE_GRID; k < np; k++) {
            const probe *pk = &sc->pr[k];
            uint64_t r = 0;
            int64_t u = 0, v = 0;
            if (!vx_pclass_uv(&cp->cl, (uint64_t)pk->b, (uint64_t)pk->s, &u, &v) || !vx_poly_eval(p, u, v, &r) ||
                r != pk->log->ev[i].raw)
                goto done;
        }
    }
    /* Slots, then the symbolic run. */
    cp->xslot = cp->yslot = cp->hslot = -1;
    int in_bwd = 0;
    for (uint32_t i = 0; i < L->n; i++) {
        const vx_tev *e = &L->ev[i];
        int k = -1;
        if (!vx_poly_zero(&sc->poly[i])) {
            k = slot_of(cp, &sc->poly[i]);
            if (k == -2) goto done;
        }
        int cat = e->cat < VX_TC_N ? e->cat : 0;
        switch (e->op) {
        case VX_EV_ADD: if (k >= 0) sc->live[cat][k]++; break;
        case VX_EV_SUB:
            if (k >= 0 && --sc->live[cat][k] < 0) goto done;
            break;
        case VX_EV_ADDNS: if (k >= 0) sc->ns[cat][k]++; break;
        case VX_EV_SUBNS:
            /* the tape saturates at 0; the form cannot: refuse if it would */
            if (k >= 0 && --sc->ns[cat][k] < 0) goto done;
            break;
        case VX_EV_WKEEP: if (k >= 0) sc->wk[cat][k]++; break;
        case VX_EV_BUMPF:
            if (in_bwd || !add_cand(sc, cp, PK_F, sc->live) || !add_cand(sc, cp, PK_FN, sc->ns)) goto done;
            break;
        case VX_EV_BEGINB:
            in_bwd = 1;
            sc->ncand[PK_BK] = sc->ncand[PK_BA] = 0;
            /* the restart is the first candidate of each */
            __attribute__((fallthrough));
        case VX_EV_BUMPB: {
            if (!in_bwd) goto done;
            vec keep;
            vec_sum(keep, sc->live, sc->wk);
            if (!add_cand(sc, cp, PK_BK, keep) || !add_cand(sc, cp, PK_BA, sc->live)) goto done;
            break;
        }
        case VX_EV_SNAPF:
            /* The forward peaks start at 0: an empty first candidate. */
            break;
        case VX_EV_VALX: cp->xslot = (int16_t)k; break;
        case VX_EV_VALY:
            cp->yslot = (int16_t)k;
            cp->ycat = (uint8_t)cat;
            break;
        case VX_EV_SNAPSAVED: memcpy(sc->saved_v, sc->live, sizeof(vec)); break;
        case VX_EV_HELDFLAG:
            cp->held_flag = L->ev[i].raw;
            for (int g = 1; g < np; g++)
                if (sc->pr[g].log->ev[i].raw != cp->held_flag) goto done;
            break;
        case VX_EV_HELD:
            cp->held_is_bytes = 1;
            cp->hslot = (int16_t)k;
            break;
        case VX_EV_END: memcpy(sc->wkept_v, sc->wk, sizeof(vec)); break;
        default: goto done;
        }
    }
    /* Forward lists: the tape's peak starts at 0 and only a strictly larger
     * total replaces it, so an empty candidate goes first - unless the first
     * real one is always positive. */
    for (int kind = PK_F; kind <= PK_FN; kind++) {
        vec zero;
        memset(zero, 0, sizeof zero);
        int n = sc->ncand[kind];
        if (n >= VX_PC_CANDS) goto done;
        if (n > 0) {
            int32_t t0[VX_PC_SLOTS];
            tot_of(sc->cand[kind][0], cp->nslot, t0);
            if (always_ge(cp, t0, cp->nslot, 1)) continue;
        }
        memmove(sc->cand[kind][1], sc->cand[kind][0], (size_t)n * sizeof(vec));
        memcpy(sc->cand[kind][0], zero, sizeof zero);
        sc->ncand[kind] = n + 1;
    }
    for (int kind = 0; kind < PK_N; kind++) {
        cp->ncand[kind] = (uint16_t)sc->ncand[kind];
        cp->cand_owner[kind] = cp->nowner;
        for (int i = 0; i < sc->ncand[kind]; i++)
            if (!emit(cp, cap, sc->cand[kind][i], cp->nslot)) goto done;
    }
    /* the last two rows */
    if (!emit(cp, cap, sc->saved_v, cp->nslot) || !emit(cp, cap, sc->wkept_v, cp->nslot))
        goto done;
    /* The form must give what the replay gave, at every size it was run at. */
    for (int i = 0; i < np; i++) {
        vx_prog got;
        if (!cprog_eval(cp, (uint64_t)sc->pr[i].b, (uint64_t)sc->pr[i].s, &got) ||
            memcmp(&got, &sc->pr[i].res, sizeof got))
            goto done;
    }
    res = realloc(cp, sizeof *cp + (size_t)cp->nterm * sizeof(vx_term));
    if (res) cp = NULL;
done:
    free(cp);
    free(sc);
    return res;
}

/* ---- the cache ---- */

/* The program's structure: the call with its sizes taken out (b and s are
 * the variables; the class says whether each is 1, and s's residue). The
 * config is kept with b, s, N, Nh zeroed and skv / s_enc as offsets from s. */
typedef struct vx_pkey {
    int32_t kind, cross, upcast, shift, held, bfix, sfix, sres;
    vx_act_cfg c;
} vx_pkey;

typedef struct vx_pentry {
    vx_pkey key;
    uint64_t hash;
    const void *ident; /* the static entry's part / tm it was compiled from (NULL: a copy) */
    union {
        vx_part part;       /* a layer program's input */
        vx_train_model tm;  /* the embeddings' and the head's */
    } in;
    vx_cprog *prog; /* NULL: not compilable, replay */
} vx_pentry;

/* Sightings of structures not compiled yet: key hashes with a count in
 * their low byte, in buckets of four. */
#define VX_PC_SEEN 256

/* Static terms depend on everything but the sizes of the step. */
typedef struct vx_skey {
    vx_config_values cv; /* batch_size and seq_len are not compared */
    vx_precision_values pv;
    vx_resolved_precision rp;
    vx_shard sh;
    vx_runtime rt;
} vx_skey;

typedef struct vx_sentry {
    vx_skey key;
    vx_train_model tm;
    vx_stepslots steps; /* the rank's compiled steps, by size class */
    vx_act_cfg cfg;     /* the programs' config (its size fields are the first caller's) */
} vx_sentry;

/* The weights as allocations (vx_weights_stats) depend on the precision,
 * its resolution, the head and the allocator mode. */
#define VX_PC_WSTATS 32
typedef struct vx_wentry {
    vx_precision_values pv;
    vx_resolved_precision rp;
    int64_t head, num_labels;
    int torch_alloc;
    vx_weights_stats w;
} vx_wentry;

struct vx_pcache {
    vx_memo_obj memo; /* first: the model's memo slot holds this cache (common/memo.h) */
    pthread_mutex_t mu;
    _Atomic uint32_t n, ns, nw;
    vx_pentry *e[VX_PC_ENTRIES];
    vx_sentry *se[VX_PC_ENTRIES];
    vx_wentry *we[VX_PC_WSTATS];
    _Atomic uint64_t seen[VX_PC_SEEN]; /* hash | sightings; a lost race only delays a compile */
    unsigned compile_at;               /* the sighting that compiles (VX_PC_COMPILE_AT) */
};

static void pcache_destroy(vx_memo_obj *o)
{
    vx_pcache_free((vx_pcache *)(void *)o);
}

static vx_memo_obj *pcache_make(void)
{
    vx_pcache *pc = vx_pcache_new();
    return pc ? &pc->memo : NULL;
}

vx_pcache *vx_pcache_new(void)
{
    vx_pcache *pc = calloc(1, sizeof *pc);
    if (!pc) return NULL;
    if (pthread_mutex_init(&pc->mu, NULL)) {
        free(pc);
        return NULL;
    }
    pc->memo.destroy = pcache_destroy;
    pc->compile_at = VX_PC_COMPILE_AT;
    return pc;
}

void vx_pcache_set_compile_at(vx_pcache *pc, unsigned sighting)
{
    if (pc) pc->compile_at = sighting < 1 ? 1 : sighting > 255 ? 255 : sighting;
}

vx_pcache *vx_pcache_of(const struct vramest_model *m)
{
    return (vx_pcache *)(void *)vx_memo_get(&m->memo, pcache_make);
}

void vx_pcache_reset(vx_pcache *pc)
{
    if (!pc) return;
    uint32_t n = atomic_load_explicit(&pc->n, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        free(pc->e[i]->prog);
        free(pc->e[i]);
        pc->e[i] = NULL;
    }
    atomic_store_explicit(&pc->n, 0, memory_order_release);
    n = atomic_load_explicit(&pc->ns, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        vx_stepslots_free(&pc->se[i]->steps);
        free(pc->se[i]);
        pc->se[i] = NULL;
    }
    atomic_store_explicit(&pc->ns, 0, memory_order_release);
    n = atomic_load_explicit(&pc->nw, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        free(pc->we[i]);
        pc->we[i] = NULL;
    }
    atomic_store_explicit(&pc->nw, 0, memory_order_release);
    for (int i = 0; i < VX_PC_SEEN; i++) atomic_store_explicit(&pc->seen[i], 0, memory_order_relaxed);
}

void vx_pcache_free(vx_pcache *pc)
{
    if (!pc) return;
    vx_pcache_reset(pc);
    pthread_mutex_destroy(&pc->mu);
    free(pc);
}

void vx_pcache_stats(vx_pcache *pc, unsigned *entries, unsigned *compiled)
{
    *entries = *compiled = 0;
    if (!pc) return;
    uint32_t n = atomic_load_explicit(&pc->n, memory_order_acquire);
    *entries = n;
    for (uint32_t i = 0; i < n; i++) *compiled += pc->e[i]->prog != NULL;
}

static int wentry_matches(const vx_wentry *e, const vx_ctx *x, int torch_alloc)
{
    return e->torch_alloc == torch_alloc && e->head == x->cv->head && e->num_labels == x->cv->num_labels &&
           !memcmp(&e->rp, &x->pol.rp, sizeof e->rp) && vx_values_equal(&e->pv, x->pol.pv, &vx_precision_layout);
}

void vx_weights_stats_get(const vx_ctx *x, int torch_alloc, vx_weights_stats *out)
{
    vx_pcache *pc = vx_pcache_of(x->pol.m);
    if (!pc) {
        vx_weights_stats_compute(x, torch_alloc, out);
        return;
    }
    uint32_t n = atomic_load_explicit(&pc->nw, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++)
        if (wentry_matches(pc->we[i], x, torch_alloc)) {
            *out = pc->we[i]->w;
            return;
        }
    vx_weights_stats_compute(x, torch_alloc, out);
    if (n >= VX_PC_WSTATS) return;
    vx_wentry *e = calloc(1, sizeof *e);
    if (!e) return;
    e->pv = *x->pol.pv;
    e->rp = x->pol.rp;
    e->head = x->cv->head;
    e->num_labels = x->cv->num_labels;
    e->torch_alloc = torch_alloc;
    e->w = *out;
    pthread_mutex_lock(&pc->mu);
    uint32_t n2 = atomic_load_explicit(&pc->nw, memory_order_relaxed);
    int have = 0;
    for (uint32_t i = n; i < n2; i++) have |= wentry_matches(pc->we[i], x, torch_alloc);
    if (!have && n2 < VX_PC_WSTATS) {
        pc->we[n2] = e;
        e = NULL;
        atomic_store_explicit(&pc->nw, n2 + 1, memory_order_release);
    }
    pthread_mutex_unlock(&pc->mu);
    free(e);
}

void vx_pcache_step_stats(vx_pcache *pc, unsigned *slots, unsigned *compiled)
{
    *slots = *compiled = 0;
    if (!pc) return;
    uint32_t n = atomic_load_explicit(&pc->ns, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) vx_stepslots_stats(&pc->se[i]->steps, slots, compiled);
}

const vx_act_cfg *vx_pcache_cfg(const vx_train_model *tm)
{
    const vx_sentry *e = (const vx_sentry *)(const void *)((const char *)tm - offsetof(vx_sentry, tm));
    return &e->cfg;
}

struct vx_stepslots *vx_pcache_steps(const vx_train_model *tm)
{
    vx_sentry *e = (vx_sentry *)(void *)((char *)(uintptr_t)tm - offsetof(vx_sentry, tm));
    return &e->steps;
}

static void make_key(const vx_prog_call *pc, vx_pkey *k)
{
    memset(k, 0, sizeof *k);
    k->kind = pc->kind;
    k->cross = pc->kind == VX_PK_LAYER ? pc->cross : 0;
    if (pc->kind == VX_PK_HEAD) k->upcast = pc->upcast, k->shift = pc->shift, k->held = pc->held;
    k->bfix = pc->c->b == 1;
    k->sfix = pc->c->s == 1;
    k->sres = (int32_t)(pc->c->s % VX_PC_SMOD);
    k->c = *pc->c;
    k->c.skv -= (int64_t)k->c.s;
    k->c.s_enc -= (int64_t)k->c.s;
    k->c.b = k->c.s = k->c.N = k->c.Nh = 0;
}

static uint64_t key_hash(const vx_pkey *k)
{
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i + 8 <= sizeof *k; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    /* the multiply leaves the low bits depending on low bytes only: mix */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static const void *ident_of(const vx_prog_call *pc)
{
    return pc->kind == VX_PK_LAYER ? (const void *)pc->part : (const void *)pc->tm;
}

/* The call against an entry without building its key: the hot path. */
static int entry_matches(const vx_pentry *e, const vx_prog_call *pc)
{
    const vx_pkey *k = &e->key;
    const vx_act_cfg *c = pc->c, *ec = &k->c;
    if (k->kind != pc->kind || k->bfix != (c->b == 1) || k->sfix != (c->s == 1) ||
        k->sres != (int32_t)(c->s % VX_PC_SMOD))
        return 0;
    if (pc->kind == VX_PK_LAYER ? k->cross != pc->cross
                                : pc->kind == VX_PK_HEAD &&
                                      (k->upcast != pc->upcast || k->shift != pc->shift || k->held != pc->held))
        return 0;
    /* Static entries live as long as the program entries: equal pointers
     * are equal contents; two static entries count as different. */
    int by_ident = pc->stable && e->ident;
    if (by_ident && e->ident != ident_of(pc)) return 0;
    if (ec->skv != c->skv - (int64_t)c->s || ec->s_enc != c->s_enc - (int64_t)c->s) return 0;
    if (memcmp(&ec->h, &c->h, offsetof(vx_act_cfg, skv) - offsetof(vx_act_cfg, h)) ||
        memcmp(&ec->place, &c->place, sizeof *c - offsetof(vx_act_cfg, place)))
        return 0;
    if (by_ident) return 1;
    if (pc->kind == VX_PK_LAYER) return !memcmp(&e->in.part, pc->part, sizeof e->in.part);
    return !memcmp(&e->in.tm, pc->tm, sizeof e->in.tm);
}

static const vx_pentry *lookup(vx_pcache *pc, uint32_t n, const vx_prog_call *call)
{
    for (uint32_t i = 0; i < n; i++)
        if (entry_matches(pc->e[i], call)) return pc->e[i];
    return NULL;
}

/* Count a sighting of the key hash; returns the count (1 the first time,
 * at most 255). Buckets of four: a new hash takes a free place, or a
 * pseudo-random one when the bucket is full, so two structures rarely keep
 * evicting each other. */
static unsigned sighting(vx_pcache *cache, uint64_t h)
{
    const uint64_t tag = h & ~(uint64_t)0xFF;
    _Atomic uint64_t *b = &cache->seen[(h % (VX_PC_SEEN / 4)) * 4];
    for (int i = 0; i < 4; i++) {
        uint64_t e = atomic_load_explicit(&b[i], memory_order_relaxed);
        while (e && (e & ~(uint64_t)0xFF) == tag) {
            if ((e & 0xFF) == 0xFF) return 0xFF;
            if (atomic_compare_exchange_weak_explicit(&b[i], &e, e + 1, memory_order_relaxed, memory_order_relaxed))
                return (unsigned)(e & 0xFF) + 1;
        }
    }
    for (int i = 0; i < 4; i++) {
        uint64_t zero = 0;
        if (atomic_compare_exchange_strong_explicit(&b[i], &zero, tag | 1, memory_order_relaxed, memory_order_relaxed))
            return 1;
    }
    atomic_store_explicit(&b[(h >> 40) % 4], tag | 1, memory_order_relaxed);
    return 1;
}

int vx_prog_eval(vx_pcache *cache, const vx_prog_call *pc, vx_prog *out)
{
    if (pc->used) *pc->used = NULL;
    if (!cache) return vx_prog_run(pc, NULL, out);
    uint32_t n = atomic_load_explicit(&cache->n, memory_order_acquire);
    const vx_pentry *e = lookup(cache, n, pc);
    if (!e && n < VX_PC_ENTRIES) {
        vx_pkey k;
        make_key(pc, &k);
        uint64_t h = key_hash(&k);
        if (sighting(cache, h) < cache->compile_at) return vx_prog_run(pc, NULL, out);
        pthread_mutex_lock(&cache->mu);
        uint32_t n2 = atomic_load_explicit(&cache->n, memory_order_relaxed);
        e = lookup(cache, n2, pc);
        if (!e && n2 < VX_PC_ENTRIES) {
            vx_pentry *ne = calloc(1, sizeof *ne);
            if (ne) {
                ne->key = k;
                ne->hash = h;
                ne->ident = pc->stable ? ident_of(pc) : NULL;
                if (pc->kind == VX_PK_LAYER) memcpy(&ne->in.part, pc->part, sizeof ne->in.part);
                else memcpy(&ne->in.tm, pc->tm, sizeof ne->in.tm);
                ne->prog = compile(pc);
                cache->e[n2] = ne;
                atomic_store_explicit(&cache->n, n2 + 1, memory_order_release);
                e = ne;
            }
        }
        pthread_mutex_unlock(&cache->mu);
    }
    if (e && e->prog && cprog_eval(e->prog, pc->c->b, pc->c->s, out)) {
        if (pc->used) *pc->used = e->prog;
        return VRAMEST_OK;
    }
    if (pc->used) *pc->used = NULL;
    return vx_prog_run(pc, NULL, out);
}

static int cache_eval(void *arg, const vx_prog_call *pc, vx_prog *out)
{
    return vx_prog_eval(arg, pc, out);
}

void vx_pcache_source(vx_pcache *cache, vx_prog_source *out)
{
    *out = cache ? (vx_prog_source){cache_eval, cache} : vx_prog_replay;
}

/* The entry's key against the call's values: the config without its
 * batch_size and seq_len, strings as strings (values.h). */
static int skey_matches(const vx_skey *k, const vx_ctx *x, const vx_shard *sh)
{
    return !memcmp(&k->sh, sh, sizeof *sh) && !memcmp(&k->rp, &x->pol.rp, sizeof k->rp) &&
           !memcmp(&k->rt, &x->rt, sizeof k->rt) && vx_values_equal(&k->cv, x->cv, &vx_config_key_layout) &&
           vx_values_equal(&k->pv, x->pol.pv, &vx_precision_layout);
}

static const vx_sentry *slookup(vx_pcache *pc, uint32_t n, const vx_ctx *x, const vx_shard *sh)
{
    for (uint32_t i = 0; i < n; i++)
        if (skey_matches(&pc->se[i]->key, x, sh)) return pc->se[i];
    return NULL;
}

int vx_train_static_cached(vx_pcache *cache, vx_ctx *x, const vx_shard *sh, vx_train_model *buf,
                           const vx_train_model **out)
{
    vx_train_model *tm = buf;
    *out = buf;
    if (!cache) return vx_train_static(x, sh, tm);
    uint32_t n = atomic_load_explicit(&cache->ns, memory_order_acquire);
    const vx_sentry *e = slookup(cache, n, x, sh);
    if (e) {
        *out = &e->tm;
        return VRAMEST_OK;
    }
    int rc = vx_train_static(x, sh, tm);
    if (rc || n >= VX_PC_ENTRIES) return rc;
    pthread_mutex_lock(&cache->mu);
    uint32_t n2 = atomic_load_explicit(&cache->ns, memory_order_relaxed);
    if (n2 < VX_PC_ENTRIES && !slookup(cache, n2, x, sh)) {
        vx_sentry *ne = calloc(1, sizeof *ne);
        if (ne) {
            ne->key.cv = *x->cv;
            ne->key.cv.batch_size = ne->key.cv.seq_len = 0;
            ne->key.pv = *x->pol.pv;
            ne->key.rp = x->pol.rp;
            ne->key.sh = *sh;
            memcpy(&ne->key.rt, &x->rt, sizeof ne->key.rt);
            memcpy(&ne->tm, tm, sizeof *tm);
            ne->steps.mu = &cache->mu;
            vx_train_cfg(x, sh, &ne->tm, &ne->cfg);
            cache->se[n2] = ne;
            atomic_store_explicit(&cache->ns, n2 + 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&cache->mu);
    return VRAMEST_OK;
}
