/* Compiled training steps (see stepcache.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/cache/cprog.h"
#include "estimate/cache/stepcache.h"

#define VX_CS_GSLOTS 1280 /* distinct byte polynomials of one step */
#define VX_CS_ISLOTS 64   /* of them rounded, evaluated one by one */
#define VX_CS_CANDS 1024  /* candidates of one step */
#define VX_CS_MAXN ((int64_t)1 << 31)

/* The members of a vx_prog, as uint64 indices. */
#define PM(f) ((int)(offsetof(vx_prog, f) / sizeof(uint64_t)))
#define PROG_N ((int)(sizeof(vx_prog) / sizeof(uint64_t)))
_Static_assert(sizeof(vx_prog) == 39 * sizeof(uint64_t), "vx_prog is read as uint64 members");
_Static_assert(sizeof(vx_step_vals) == (VX_SP_N * 39 + VX_LF_N) * sizeof(uint64_t), "vx_step_vals has no padding");

/* n x the rounded slot */
typedef struct vx_cterm {
    int64_t n;
    uint32_t slot;
} vx_cterm;

/* A candidate: its total, the hot part (the categories are read for the
 * winner only). */
typedef struct vx_ccand {
    vx_poly tot;    /* the total's polynomial part */
    uint32_t t0;    /* the total's rounded terms: term[t0 .. t0+nt) */
    uint16_t nt;
    uint16_t group;
    uint16_t cats;  /* the categories that are not always 0 */
} vx_ccand;

typedef struct vx_cgroup {
    const char *label;
    int32_t layer;
    uint8_t phase, record;
    uint16_t c0, nc;
} vx_cgroup;

struct vx_cstep {
    vx_pclass cl;
    int64_t cmax;  /* the largest |coefficient| of any polynomial */
    int64_t tsum;  /* the largest sum of |n| over the terms of one value */
    uint32_t nslot, ngroup, ncand, nterm;
    vx_poly *slot; /* rounded slots, evaluated one by one */
    uint64_t *mask;
    vx_cgroup *group;
    vx_ccand *cand;
    vx_poly *cpoly; /* ncand x VX_NCAT: each category's polynomial part */
    uint32_t *cat0; /* ncand x (VX_NCAT + 1): category c's terms are term[cat0[c] .. cat0[c+1]) */
    vx_cterm *term;
};

static void cstep_free(vx_cstep *cs)
{
    if (!cs) return;
    free(cs->slot);
    free(cs->mask);
    free(cs->group);
    free(cs->cand);
    free(cs->cpoly);
    free(cs->cat0);
    free(cs->term);
    free(cs);
}

void vx_stepslots_free(vx_stepslots *ss)
{
    uint32_t n = atomic_load_explicit(&ss->n, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        cstep_free(ss->e[i].cs);
        ss->e[i].cs = NULL;
    }
    atomic_store_explicit(&ss->n, 0, memory_order_release);
}

static int same_class(const vx_pclass *a, const vx_pclass *b)
{
    return a->bfix == b->bfix && a->sfix == b->sfix && a->s0 == b->s0;
}

const vx_stepslot *vx_step_find(vx_stepslots *ss, const vx_pclass *cl)
{
    uint32_t n = atomic_load_explicit(&ss->n, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++)
        if (same_class(&ss->e[i].cl, cl)) return &ss->e[i];
    return NULL;
}

void vx_stepslots_stats(const vx_stepslots *ss, unsigned *slots, unsigned *compiled)
{
    uint32_t n = atomic_load_explicit(&ss->n, memory_order_acquire);
    *slots += n;
    for (uint32_t i = 0; i < n; i++) *compiled += ss->e[i].cs != NULL;
}

/* ---- evaluation ---- */

/* sum of n x val[slot] over terms[from .. to) (`terms` may be NULL when
 * the step has no rounded terms: it is then never indexed) */
static int64_t terms_dot(const vx_cterm *terms, uint32_t from, uint32_t to, const int64_t *val)
{
    int64_t s = 0;
    for (uint32_t i = from; i < to; i++) s += terms[i].n * val[terms[i].slot];
    return s;
}

int vx_cstep_eval(const vx_cstep *cs, uint64_t b, uint64_t s, vx_step_out *out)
{
    int64_t u, v, m[6];
    if (!vx_pclass_uv(&cs->cl, b, s, &u, &v)) return 0;
    vx_poly_basis(u, v, m);
    /* |p . m| <= cmax * sum(m) = cmax (1 + v + w)(1 + u): below the limit no
     * sum can wrap */
    if ((__int128)cs->cmax * ((__int128)(1 + v + m[2]) * (1 + u)) >= VX_PC_LIMIT / 4) return 0;
    int64_t val[VX_CS_ISLOTS];
    int64_t vmax = 0;
    for (uint32_t k = 0; k < cs->nslot; k++) {
        int64_t r = vx_poly_dot(&cs->slot[k], m);
        if (r < 0) return 0; /* the program's form would refuse it too */
        val[k] = (int64_t)(((uint64_t)r + cs->mask[k]) & ~cs->mask[k]);
        if (val[k] > vmax) vmax = val[k];
    }
    if ((__int128)vmax * cs->tsum >= VX_PC_LIMIT / 4) return 0;

    /* Each point's value is its largest candidate; the peak is the first
     * largest point (a strict `>` from 0, as take() in step.c). */
    int64_t best = 0;
    const vx_ccand *bc = NULL, *c = cs->cand;
    uint32_t ntl = 0;
    for (const vx_cgroup *gr = cs->group, *ge = gr + cs->ngroup; gr < ge; gr++) {
        int64_t gm = 0;
        for (const vx_ccand *ce = c + gr->nc; c < ce; c++) {
            int64_t t = vx_poly_dot(&c->tot, m);
            if (c->nt) t += terms_dot(cs->term, c->t0, c->t0 + c->nt, val);
            if (t < 0) return 0;
            if (t > gm) gm = t;
            if (t > best) best = t, bc = c;
        }
        if (gr->record && ntl < out->cap) {
            vx_timeline_point *p = &out->tl[ntl++];
            p->phase = gr->phase;
            p->layer = gr->layer;
            p->allocated = (uint64_t)gm;
            p->label = gr->label;
        }
    }
    out->ntl = ntl;
    out->total = (uint64_t)best;
    out->phase = 0;
    memset(out->at, 0, sizeof out->at);
    if (bc) {
        size_t bi = (size_t)(bc - cs->cand);
        const vx_poly *cp = &cs->cpoly[bi * VX_NCAT];
        const uint32_t *c0 = &cs->cat0[bi * (VX_NCAT + 1)];
        for (uint32_t bits = bc->cats; bits; bits &= bits - 1) {
            int k = __builtin_ctz(bits);
            int64_t x = vx_poly_dot(&cp[k], m) + terms_dot(cs->term, c0[k], c0[k + 1], val);
            if (x < 0) return 0;
            out->at[k] = (uint64_t)x;
        }
        out->phase = cs->group[bc->group].phase;
    }
    return 1;
}

/* ---- compiling ---- */

typedef struct probe {
    int64_t b, s;
    vx_step_vals v;
    uint64_t raw[VX_LF_N], mask[VX_LF_N];
    vx_step_out ref;
    vx_timeline_point tl[VX_MAX_TIMELINE];
} probe;

/* One coefficient of the composition: point `pt`, category `cat` gains
 * n x value `f`. */
typedef struct coef {
    uint16_t pt;
    uint8_t cat;
    uint16_t f;
    int64_t n;
} coef;

/* A global slot: a byte polynomial, rounded up with `mask`. */
typedef struct gslot {
    vx_poly p;
    uint64_t mask;
    uint8_t exact; /* always a non-negative multiple of mask + 1: summed, never rounded */
    int32_t idx;   /* its index among the rounded slots (-1: none yet, or exact) */
} gslot;

typedef struct build {
    vx_pclass cl;
    const struct vx_cprog *prog[VX_SP_N];
    uint32_t *orow[VX_SP_N];  /* each program's first term of every row (+ end) */
    int32_t pslot[VX_SP_N][VX_PC_SLOTS];
    int32_t lslot[VX_LF_N];   /* -1: the leaf is 0 */
    int32_t one;              /* the constant 1 */
    gslot gs[VX_CS_GSLOTS];
    uint32_t ngs;
    probe pr[VX_PROBE_N];
    vx_slog log0, logf;
    coef *co;
    size_t nco, capco;
    uint32_t *pt0; /* coefficients of point p: co[pt0[p] .. pt0[p+1]) after sorting */
    int64_t R[VX_NCAT][VX_CS_GSLOTS];
    /* the result being built */
    vx_cstep *cs;
    size_t capterm;
} build;

static int add_gslot(build *bd, const vx_poly *p, uint64_t mask)
{
    if (vx_poly_zero(p)) return -1;
    for (uint32_t i = 0; i < bd->ngs; i++)
        if (bd->gs[i].mask == mask && !memcmp(&bd->gs[i].p, p, sizeof *p)) return (int)i;
    if (bd->ngs >= VX_CS_GSLOTS) return -2;
    gslot *g = &bd->gs[bd->ngs];
    g->p = *p;
    g->mask = mask;
    const int64_t c[6] = {p->a0, p->a1, p->a2, p->e0, p->e1, p->e2};
    int mult = 1;
    for (int i = 0; i < 6; i++) mult &= (c[i] & (int64_t)mask) == 0;
    __int128 co[6];
    for (int i = 0; i < 6; i++) co[i] = c[i];
    g->exact = mult && vx_poly_nonneg(co, 0, &bd->cl, 0);
    g->idx = -1;
    return (int)bd->ngs++;
}

/* R[cat] += n x (sum of a row's category `tc`, or of all five when tc < 0) */
static void add_row(build *bd, int q, int owner, int tc, int64_t n, int64_t *R)
{
    const struct vx_cprog *cp = bd->prog[q];
    for (uint32_t i = bd->orow[q][owner]; i < bd->orow[q][owner + 1]; i++) {
        const vx_term *t = &cp->term[i];
        if (tc >= 0 && t->cat != tc) continue;
        R[bd->pslot[q][t->slot]] += n * t->n;
    }
}

static void add_pslot(build *bd, int q, int k, int64_t n, int64_t *R)
{
    if (k >= 0) R[bd->pslot[q][k]] += n;
}

/* The peak kinds of a vx_prog member (-1: not a peak). */
static int kind_of(int m, int *tc)
{
    static const int first[PK_N] = {PM(fwd_peak), PM(fwd_ns_peak), PM(bwd_peak), PM(bwd_acc_peak)};
    for (int k = 0; k < PK_N; k++)
        if (m >= first[k] && m <= first[k] + VX_TC_N) {
            *tc = m - first[k] - 1; /* -1: the peak's total */
            return k;
        }
    return -1;
}

/* R[...] += n x value f, with candidate `cand` of a peak kind. */
static void add_value(build *bd, int f, int cand, int64_t n, int64_t *R)
{
    if (f >= VX_SP_N * PROG_N) {
        int k = bd->lslot[f - VX_SP_N * PROG_N];
        if (k >= 0) R[k] += n;
        return;
    }
    int q = f / PROG_N, m = f % PROG_N, tc = -1;
    const struct vx_cprog *cp = bd->prog[q];
    int saved = cp->nowner - 2, wkept = cp->nowner - 1;
    int kind = kind_of(m, &tc);
    if (kind >= 0) {
        if (cand < cp->ncand[kind]) add_row(bd, q, cp->cand_owner[kind] + cand, tc, n, R);
    } else if (m == PM(x_bytes)) {
        add_pslot(bd, q, cp->xslot, n, R);
    } else if (m == PM(y_bytes)) {
        add_pslot(bd, q, cp->yslot, n, R);
    } else if (m == PM(held_out)) {
        if (cp->held_is_bytes) add_pslot(bd, q, cp->hslot, n, R);
        else if (cp->held_flag) R[bd->one] += n * (int64_t)cp->held_flag;
    } else if (m == PM(saved)) {
        add_row(bd, q, saved, -1, n, R);
        add_pslot(bd, q, cp->yslot, -n, R);
    } else if (m >= PM(saved_cat) && m < PM(saved_cat) + VX_TC_N) {
        add_row(bd, q, saved, m - PM(saved_cat), n, R);
        if (m - PM(saved_cat) == cp->ycat) add_pslot(bd, q, cp->yslot, -n, R);
    } else if (m == PM(wgrad)) {
        add_row(bd, q, wkept, -1, n, R);
    } else if (m >= PM(wgrad_cat) && m < PM(wgrad_cat) + VX_TC_N) {
        add_row(bd, q, wkept, m - PM(wgrad_cat), n, R);
    }
}

/* The largest |coefficient| so far, 0 when one overflows. */
static int poly_acc(const __int128 co[6], vx_poly *p, int64_t *cmax)
{
    int64_t *d[6] = {&p->a0, &p->a1, &p->a2, &p->e0, &p->e1, &p->e2};
    for (int i = 0; i < 6; i++) {
        if (co[i] >= VX_PC_LIMIT || co[i] <= -VX_PC_LIMIT) return 0;
        *d[i] = (int64_t)co[i];
        int64_t a = *d[i] < 0 ? -*d[i] : *d[i];
        if (a > *cmax) *cmax = a;
    }
    return 1;
}

/* Room for one more element in a growing array; 0 when out of memory. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 1;
    size_t c = *cap ? 2 * *cap : 1024;
    void *p = realloc(*arr, c * elem);
    if (!p) return 0;
    *arr = p;
    *cap = c;
    return 1;
}

static int push_term(build *bd, int64_t n, uint32_t slot)
{
    vx_cstep *cs = bd->cs;
    if (!grow((void **)&cs->term, &bd->capterm, cs->nterm, sizeof *cs->term)) return 0;
    cs->term[cs->nterm].n = n;
    cs->term[cs->nterm].slot = slot;
    cs->nterm++;
    return 1;
}

/* The rounded slot of global slot g (allocated on first use). */
static int islot(build *bd, uint32_t g)
{
    vx_cstep *cs = bd->cs;
    if (bd->gs[g].idx < 0) {
        if (cs->nslot >= VX_CS_ISLOTS) return -1;
        bd->gs[g].idx = (int32_t)cs->nslot;
        cs->slot[cs->nslot] = bd->gs[g].p;
        cs->mask[cs->nslot] = bd->gs[g].mask;
        cs->nslot++;
    }
    return bd->gs[g].idx;
}

/* Turn R (one candidate, every category) into the candidate's polynomials
 * and terms; 0 when a coefficient leaves the range. */
static int emit_cand(build *bd, vx_ccand *c, vx_poly *cp, uint32_t *cat0)
{
    vx_cstep *cs = bd->cs;
    __int128 tot[6] = {0};
    int64_t tsum = 0;
    c->cats = 0;
    for (int k = 0; k < VX_NCAT; k++) {
        __int128 co[6] = {0};
        int64_t csum = 0;
        cat0[k] = cs->nterm;
        for (uint32_t g = 0; g < bd->ngs; g++) {
            int64_t n = bd->R[k][g];
            if (!n) continue;
            if (n >= VX_CS_MAXN || n <= -VX_CS_MAXN) return 0;
            const gslot *s = &bd->gs[g];
            if (s->exact) {
                const int64_t pc[6] = {s->p.a0, s->p.a1, s->p.a2, s->p.e0, s->p.e1, s->p.e2};
                for (int i = 0; i < 6; i++) co[i] += (__int128)n * pc[i];
            } else {
                int is = islot(bd, g);
                if (is < 0 || !push_term(bd, n, (uint32_t)is)) return 0;
                csum += n < 0 ? -n : n;
            }
        }
        if (!poly_acc(co, &cp[k], &cs->cmax)) return 0;
        if (!vx_poly_zero(&cp[k]) || cs->nterm > cat0[k]) c->cats |= (uint16_t)(1u << k);
        if (csum > cs->tsum) cs->tsum = csum;
        if (vx_step_counts(k))
            for (int i = 0; i < 6; i++) tot[i] += co[i];
    }
    cat0[VX_NCAT] = cs->nterm;
    if (!poly_acc(tot, &c->tot, &cs->cmax)) return 0;
    /* the total's terms: the counted categories' terms merged by slot */
    c->t0 = cs->nterm;
    for (uint32_t g = 0; g < bd->ngs; g++) {
        if (bd->gs[g].exact) continue;
        int64_t n = 0;
        for (int k = 0; k < VX_NCAT; k++)
            if (vx_step_counts(k)) n += bd->R[k][g];
        if (!n) continue;
        int is = islot(bd, g);
        if (n >= VX_CS_MAXN || n <= -VX_CS_MAXN || is < 0 || !push_term(bd, n, (uint32_t)is)) return 0;
        tsum += n < 0 ? -n : n;
    }
    if (cs->nterm - c->t0 > UINT16_MAX) return 0;
    c->nt = (uint16_t)(cs->nterm - c->t0);
    if (tsum > cs->tsum) cs->tsum = tsum;
    return 1;
}

/* Whether candidate a's total is >= b's (> when strict) at every size. */
static int dominates(const build *bd, const vx_ccand *a, const vx_ccand *b, int strict)
{
    const vx_cstep *cs = bd->cs;
    const int64_t pa[6] = {a->tot.a0, a->tot.a1, a->tot.a2, a->tot.e0, a->tot.e1, a->tot.e2};
    const int64_t pb[6] = {b->tot.a0, b->tot.a1, b->tot.a2, b->tot.e0, b->tot.e1, b->tot.e2};
    __int128 co[6], slack = 0;
    for (int i = 0; i < 6; i++) co[i] = (__int128)pa[i] - pb[i];
    int64_t d[VX_CS_ISLOTS];
    memset(d, 0, cs->nslot * sizeof d[0]);
    for (uint32_t i = 0; i < a->nt; i++) d[cs->term[a->t0 + i].slot] += cs->term[a->t0 + i].n;
    for (uint32_t i = 0; i < b->nt; i++) d[cs->term[b->t0 + i].slot] -= cs->term[b->t0 + i].n;
    for (uint32_t k = 0; k < cs->nslot; k++) {
        if (!d[k]) continue;
        const vx_poly *P = &cs->slot[k];
        const int64_t pc[6] = {P->a0, P->a1, P->a2, P->e0, P->e1, P->e2};
        for (int i = 0; i < 6; i++) co[i] += (__int128)d[k] * pc[i];
        /* rounding adds 0 .. mask to each slot */
        if (d[k] < 0) slack += (__int128)(-d[k]) * (__int128)cs->mask[k];
    }
    return vx_poly_nonneg(co, slack, &bd->cl, strict);
}

static int field_present(const vx_step_shape *sp, int f)
{
    return f >= VX_SP_N * PROG_N || vx_step_has_prog(sp, f / PROG_N);
}

static int cmp_coef(const void *a, const void *b)
{
    const coef *x = a, *y = b;
    return (x->pt > y->pt) - (x->pt < y->pt);
}

static int same_out(const vx_step_out *a, const vx_step_out *b)
{
    if (memcmp(a->at, b->at, sizeof a->at) || a->total != b->total || a->phase != b->phase || a->ntl != b->ntl)
        return 0;
    for (uint32_t i = 0; i < a->ntl; i++)
        if (a->tl[i].phase != b->tl[i].phase || a->tl[i].layer != b->tl[i].layer ||
            a->tl[i].allocated != b->tl[i].allocated || a->tl[i].label != b->tl[i].label)
            return 0;
    return 1;
}

/* The programs' rows: the terms are stored row by row. */
static int index_rows(build *bd, int q)
{
    const struct vx_cprog *cp = bd->prog[q];
    uint32_t *o = calloc((size_t)cp->nowner + 1, sizeof *o);
    if (!o) return 0;
    bd->orow[q] = o;
    uint32_t t = 0;
    for (int r = 0; r <= cp->nowner; r++) {
        while (t < cp->nterm && cp->term[t].owner < r) t++;
        o[r] = t;
    }
    for (uint32_t i = 1; i < cp->nterm; i++)
        if (cp->term[i].owner < cp->term[i - 1].owner) return 0;
    for (int k = 0; k < cp->nslot; k++) {
        int g = add_gslot(bd, &cp->slot[k], cp->rmask);
        if (g < 0) return 0; /* full (a program's slots are never zero) */
        bd->pslot[q][k] = g;
    }
    return 1;
}

/* The saved set's bytes less the output must never clamp at 0 (cprog_eval
 * clamps; the compiled step could not). */
static int saved_never_clamps(build *bd, int q)
{
    const struct vx_cprog *cp = bd->prog[q];
    if (cp->yslot < 0) return 1;
    memset(bd->R[0], 0, bd->ngs * sizeof bd->R[0][0]);
    add_row(bd, q, cp->nowner - 2, cp->ycat, 1, bd->R[0]);
    add_pslot(bd, q, cp->yslot, -1, bd->R[0]);
    __int128 co[6] = {0}, slack = 0;
    for (uint32_t g = 0; g < bd->ngs; g++) {
        int64_t n = bd->R[0][g];
        if (!n) continue;
        const vx_poly *P = &bd->gs[g].p;
        const int64_t pc[6] = {P->a0, P->a1, P->a2, P->e0, P->e1, P->e2};
        for (int i = 0; i < 6; i++) co[i] += (__int128)n * pc[i];
        if (n < 0) slack += (__int128)(-n) * (__int128)bd->gs[g].mask;
    }
    return vx_poly_nonneg(co, slack, &bd->cl, 0);
}

static int add_coef(build *bd, int pt, int cat, int f, uint64_t n)
{
    if (n >= (uint64_t)VX_CS_MAXN || !grow((void **)&bd->co, &bd->capco, bd->nco, sizeof *bd->co)) return 0;
    bd->co[bd->nco++] = (coef){.pt = (uint16_t)pt, .cat = (uint8_t)cat, .f = (uint16_t)f, .n = (int64_t)n};
    return 1;
}

static void move_cand(vx_cstep *cs, uint32_t to, uint32_t from)
{
    cs->cand[to] = cs->cand[from];
    memcpy(&cs->cpoly[(size_t)to * VX_NCAT], &cs->cpoly[(size_t)from * VX_NCAT], VX_NCAT * sizeof(vx_poly));
    memcpy(&cs->cat0[(size_t)to * (VX_NCAT + 1)], &cs->cat0[(size_t)from * (VX_NCAT + 1)], (VX_NCAT + 1) * sizeof(uint32_t));
}

/* The candidates of the points of group [p0, p1) (one point, or a pair). */
static int build_group(build *bd, uint32_t p0, uint32_t p1)
{
    vx_cstep *cs = bd->cs;
    const vx_spoint *P = &bd->log0.pt[p0];
    if (cs->ngroup >= VX_CS_CANDS) return 0;
    vx_cgroup *gr = &cs->group[cs->ngroup];
    gr->label = P->label;
    gr->layer = P->layer;
    gr->phase = P->phase;
    gr->record = P->record;
    gr->c0 = (uint16_t)cs->ncand;
    gr->nc = 0;
    for (uint32_t p = p0; p < p1; p++) {
        /* the one peak this point reads, if any */
        int pq = -1, pk = -1;
        for (uint32_t i = bd->pt0[p]; i < bd->pt0[p + 1]; i++) {
            int f = bd->co[i].f, tc;
            if (f >= VX_SP_N * PROG_N || kind_of(f % PROG_N, &tc) < 0) continue;
            int q = f / PROG_N, k = kind_of(f % PROG_N, &tc);
            if (pq >= 0 && (pq != q || pk != k)) return 0;
            pq = q, pk = k;
        }
        int nc = pq >= 0 ? bd->prog[pq]->ncand[pk] : 1;
        if (nc < 1) nc = 1; /* no candidate: the peak is 0 */
        for (int ci = 0; ci < nc; ci++) {
            for (int k = 0; k < VX_NCAT; k++) memset(bd->R[k], 0, bd->ngs * sizeof bd->R[k][0]);
            for (uint32_t i = bd->pt0[p]; i < bd->pt0[p + 1]; i++)
                add_value(bd, bd->co[i].f, ci, bd->co[i].n, bd->R[bd->co[i].cat]);
            if (cs->ncand >= VX_CS_CANDS) return 0;
            uint32_t j = cs->ncand;
            vx_ccand *c = &cs->cand[j];
            uint32_t mark = cs->nterm;
            if (!emit_cand(bd, c, &cs->cpoly[(size_t)j * VX_NCAT], &cs->cat0[(size_t)j * (VX_NCAT + 1)])) return 0;
            c->group = (uint16_t)cs->ngroup;
            /* An earlier candidate never smaller wins ties: this one never counts. */
            int dropped = 0;
            for (uint32_t i = gr->c0; i < j && !dropped; i++) dropped = dominates(bd, &cs->cand[i], c, 0);
            if (dropped) {
                cs->nterm = mark;
                continue;
            }
            /* Earlier ones this one always strictly exceeds never count. */
            uint32_t w = gr->c0;
            for (uint32_t i = gr->c0; i < j; i++) {
                if (dominates(bd, c, &cs->cand[i], 1)) continue;
                if (w != i) move_cand(cs, w, i);
                w++;
            }
            if (w != j) move_cand(cs, w, j);
            cs->ncand = w + 1;
        }
    }
    gr->nc = (uint16_t)(cs->ncand - gr->c0);
    cs->ngroup++;
    return 1;
}

/* Give back what the building needed beyond the step's size. */
static void *fit(void *p, size_t n, size_t size)
{
    void *q = realloc(p, n ? n * size : size);
    return q ? q : p;
}

static void shrink(vx_cstep *cs)
{
    cs->slot = fit(cs->slot, cs->nslot, sizeof *cs->slot);
    cs->mask = fit(cs->mask, cs->nslot, sizeof *cs->mask);
    cs->group = fit(cs->group, cs->ngroup, sizeof *cs->group);
    cs->cand = fit(cs->cand, cs->ncand, sizeof *cs->cand);
    cs->cpoly = fit(cs->cpoly, (size_t)cs->ncand * VX_NCAT, sizeof *cs->cpoly);
    cs->cat0 = fit(cs->cat0, (size_t)cs->ncand * (VX_NCAT + 1), sizeof *cs->cat0);
    cs->term = fit(cs->term, cs->nterm, sizeof *cs->term);
}

static vx_cstep *compile(build *bd, const vx_prog_source *src, const vx_ctx *x, const vx_shard *sh,
                         const vx_train_model *tm, const vx_act_cfg *c,
                         const vx_step_shape *sp0)
{
    for (int q = 0; q < VX_SP_N; q++) {
        if (!vx_step_has_prog(sp0, q)) continue;
        if (!bd->prog[q] || !same_class(&bd->prog[q]->cl, &bd->cl)) return NULL;
    }
    /* The step at every probe size: its values, its leaves, its result. */
    vx_config_values cv = *x->cv;
    vx_ctx xx = *x;
    xx.cv = &cv;
    int64_t cpn = sh->cp > 0 ? sh->cp : 1;
    for (int i = 0; i < VX_PROBE_N; i++) {
        probe *p = &bd->pr[i];
        vx_probe_size(&bd->cl, i, c->b, c->s, &p->b, &p->s);
        cv.batch_size = p->b;
        cv.seq_len = p->s * cpn;
        vx_act_cfg ci;
        vx_step_shape spi;
        vx_train_cfg(&xx, sh, tm, &ci);
        if (ci.b != (uint64_t)p->b || ci.s != (uint64_t)p->s) return NULL;
        if (vx_train_step_prepare(&xx, sh, tm, src, 1, &ci, &spi, &p->v, p->raw, p->mask, NULL)) return NULL;
        if (memcmp(&spi, sp0, sizeof spi)) return NULL;
        p->ref.tl = p->tl;
        p->ref.cap = VX_MAX_TIMELINE;
        vx_step_compose(&spi, &p->v, &p->ref, NULL);
    }
    /* Global slots: the constant, the leaves (fitted), the programs' slots. */
    vx_poly one = {.a0 = 1};
    bd->ngs = 0;
    bd->gs[0].p = one, bd->gs[0].mask = 0, bd->gs[0].exact = 1, bd->gs[0].idx = -1;
    bd->one = 0, bd->ngs = 1;
    for (int l = 0; l < VX_LF_N; l++) {
        int64_t q[VX_PROBE_GRID];
        for (int g = 0; g < VX_PROBE_N; g++)
            if (bd->pr[g].mask[l] != bd->pr[0].mask[l] || bd->pr[g].raw[l] >= (uint64_t)VX_PC_LIMIT) return NULL;
        for (int g = 0; g < VX_PROBE_GRID; g++) q[g] = (int64_t)bd->pr[g].raw[l];
        vx_poly p;
        vx_poly_fit(q, &p);
        for (int g = VX_PROBE_GRID; g < VX_PROBE_N; g++) {
            int64_t u, v;
            uint64_t r;
            if (!vx_pclass_uv(&bd->cl, (uint64_t)bd->pr[g].b, (uint64_t)bd->pr[g].s, &u, &v) ||
                !vx_poly_eval(&p, u, v, &r) || r != bd->pr[g].raw[l])
                return NULL;
        }
        int g = add_gslot(bd, &p, bd->pr[0].mask[l]);
        if (g == -2) return NULL;
        bd->lslot[l] = g;
    }
    for (int q = 0; q < VX_SP_N; q++)
        if (vx_step_has_prog(sp0, q) && (!index_rows(bd, q) || !saved_never_clamps(bd, q))) return NULL;

    /* The composition's coefficients: compose() with one unit value at a time. */
    vx_step_vals *uv = calloc(1, sizeof *uv);
    if (!uv) return NULL;
    vx_step_out tmp = {.cap = 0};
    vx_step_compose(sp0, uv, &tmp, &bd->log0);
    int ok = !bd->log0.overflow && bd->log0.n > 0;
    uint64_t *flat = (uint64_t *)uv;
    for (int f = 0; ok && f < VX_SV_N; f++) {
        if (!field_present(sp0, f)) continue;
        flat[f] = 1;
        vx_step_compose(sp0, uv, &tmp, &bd->logf);
        flat[f] = 0;
        if (bd->logf.overflow || bd->logf.n != bd->log0.n) ok = 0;
        for (uint32_t p = 0; ok && p < bd->logf.n; p++)
            for (int cat = 0; ok && cat < VX_NCAT; cat++)
                if (bd->logf.pt[p].c[cat] && !add_coef(bd, (int)p, cat, f, bd->logf.pt[p].c[cat])) ok = 0;
    }
    free(uv);
    if (!ok) return NULL;
    /* by point (qsort is not stable; the order within a point does not matter) */
    if (bd->nco) qsort(bd->co, bd->nco, sizeof *bd->co, cmp_coef);
    bd->pt0 = calloc(bd->log0.n + 1, sizeof *bd->pt0);
    if (!bd->pt0) return NULL;
    for (size_t i = 0, p = 0; p <= bd->log0.n; p++) {
        while (i < bd->nco && bd->co[i].pt < p) i++;
        bd->pt0[p] = (uint32_t)i;
    }

    /* The candidates, point by point (a pair is one point). */
    vx_cstep *cs = calloc(1, sizeof *cs);
    if (!cs) return NULL;
    bd->cs = cs;
    cs->cl = bd->cl;
    cs->slot = malloc(VX_CS_ISLOTS * sizeof *cs->slot);
    cs->mask = malloc(VX_CS_ISLOTS * sizeof *cs->mask);
    cs->group = malloc(VX_CS_CANDS * sizeof *cs->group);
    cs->cand = malloc(VX_CS_CANDS * sizeof *cs->cand);
    cs->cpoly = malloc((size_t)VX_CS_CANDS * VX_NCAT * sizeof *cs->cpoly);
    cs->cat0 = malloc((size_t)VX_CS_CANDS * (VX_NCAT + 1) * sizeof *cs->cat0);
    if (!cs->slot || !cs->mask || !cs->group || !cs->cand || !cs->cpoly || !cs->cat0) return NULL;
    for (uint32_t p = 0; p < bd->log0.n;) {
        uint32_t p1 = p + 1;
        if (bd->log0.pt[p].pair == 1) {
            if (p1 >= bd->log0.n || bd->log0.pt[p1].pair != 2) return NULL;
            p1++;
        } else if (bd->log0.pt[p].pair) {
            return NULL;
        }
        if (!build_group(bd, p, p1)) return NULL;
        p = p1;
    }
    /* It must give what composing gave, at every probe it can evaluate
     * (the grid at least). A size it refuses (the caller's too, when that is
     * huge) is composed whenever it is asked for. */
    for (int i = 0; i < VX_PROBE_N; i++) {
        vx_timeline_point tl[VX_MAX_TIMELINE];
        vx_step_out got = {.tl = tl, .cap = VX_MAX_TIMELINE};
        if (!vx_cstep_eval(cs, (uint64_t)bd->pr[i].b, (uint64_t)bd->pr[i].s, &got)) {
            if (i < VX_PROBE_GRID) return NULL;
            continue;
        }
        if (!same_out(&got, &bd->pr[i].ref)) return NULL;
    }
    bd->cs = NULL;
    shrink(cs);
    return cs;
}

static int has_class(vx_stepslots *ss, uint32_t n, const vx_pclass *cl)
{
    for (uint32_t i = 0; i < n; i++)
        if (same_class(&ss->e[i].cl, cl)) return 1;
    return 0;
}

void vx_step_compile(vx_stepslots *ss, const vx_prog_source *src, const vx_ctx *x, const vx_shard *sh,
                     const vx_train_model *tm, const vx_act_cfg *c, const vx_step_shape *sp,
                     const struct vx_cprog *const used[VX_SP_N])
{
    vx_pclass cl;
    vx_pclass_of(c->b, c->s, &cl);
    uint32_t n = atomic_load_explicit(&ss->n, memory_order_acquire);
    if (n >= VX_STEP_SLOTS || has_class(ss, n, &cl)) return;
    /* Compiled outside the lock: the probes evaluate programs, which may
     * take it. */
    build *bd = calloc(1, sizeof *bd);
    if (!bd) return;
    char saved[256];
    vx_strlcpy(saved, vramest_last_error_message(), sizeof saved);
    bd->cl = cl;
    memcpy(bd->prog, used, sizeof bd->prog);
    vx_cstep *cs = compile(bd, src, x, sh, tm, c, sp);
    cstep_free(bd->cs);
    for (int q = 0; q < VX_SP_N; q++) free(bd->orow[q]);
    free(bd->co);
    free(bd->pt0);
    free(bd);
    /* A probe's failure is not the caller's error. */
    if (saved[0]) vx_fail(VRAMEST_OK, "%s", saved);
    else vramest_clear_error();
    pthread_mutex_lock(ss->mu);
    n = atomic_load_explicit(&ss->n, memory_order_relaxed);
    if (n < VX_STEP_SLOTS && !has_class(ss, n, &cl)) {
        ss->e[n].cl = cl;
        ss->e[n].cs = cs;
        cs = NULL;
        atomic_store_explicit(&ss->n, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(ss->mu);
    cstep_free(cs);
}
