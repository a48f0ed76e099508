/* Byte counts as polynomials in the step's sizes, on one size class
 * (progcache.c compiles the programs with them, stepcache.c the steps).
 *
 * A class: b is either fixed at 1 or any b >= 2; s is fixed at 1 or any
 * s >= s0 with s = s0 (mod VX_PC_SMOD). On a class every byte count of a
 * program is a polynomial of degree <= 1 in b and <= 2 in s, held in Newton
 * form around (2, s0):
 *   p = a0 + a1 v + a2 w + u (e0 + e1 v + e2 w),
 *   u = b - 2, v = (s - s0) / VX_PC_SMOD, w = v (v - 1) / 2. */
#ifndef VX_POLY_H
#define VX_POLY_H

#include "common/internal.h"

/* Kernels round s up (flash attention's 128-row tiles, mem-efficient's 32):
 * on one residue class of s modulo this, every size is a polynomial. */
#define VX_PC_SMOD 128
/* Every byte count and coefficient stays below this (sums cannot wrap). */
#define VX_PC_LIMIT ((int64_t)1 << 62)

typedef struct vx_poly {
    int64_t a0, a1, a2, e0, e1, e2;
} vx_poly;

typedef struct vx_pclass {
    uint8_t bfix, sfix; /* b (s) is 1 in this class, not a variable */
    int64_t s0;         /* the class's smallest s */
} vx_pclass;

/* The class of (b, s). */
void vx_pclass_of(uint64_t b, uint64_t s, vx_pclass *cl) VX_HIDDEN;

/* (u, v) of a size, 0 when it is outside the class or too large to take the
 * fast path. */
int vx_pclass_uv(const vx_pclass *cl, uint64_t b, uint64_t s, int64_t *u, int64_t *v) VX_HIDDEN;

/* The probe sizes of a class: the first VX_PROBE_GRID are the grid the fit
 * reads (index u * 3 + v, u in {0, 1}, v in {0, 1, 2}); the rest are checks
 * (far and odd sizes, then the caller's own (b, s) last). */
#define VX_PROBE_GRID 6
#define VX_PROBE_N 12
void vx_probe_size(const vx_pclass *cl, int i, uint64_t b, uint64_t s, int64_t *pb, int64_t *ps) VX_HIDDEN;

/* Fit the polynomial through the grid values q[0..5]. */
void vx_poly_fit(const int64_t q[VX_PROBE_GRID], vx_poly *p) VX_HIDDEN;

/* p at (u, v) in 128-bit arithmetic: 0 when negative or >= VX_PC_LIMIT. */
int vx_poly_eval(const vx_poly *p, int64_t u, int64_t v, uint64_t *out) VX_HIDDEN;

static inline int vx_poly_zero(const vx_poly *p)
{
    return !p->a0 && !p->a1 && !p->a2 && !p->e0 && !p->e1 && !p->e2;
}

/* The six monomials of (u, v): 1, v, w, u, u v, u w. */
static inline void vx_poly_basis(int64_t u, int64_t v, int64_t m[6])
{
    int64_t w = v * (v - 1) / 2;
    m[0] = 1, m[1] = v, m[2] = w, m[3] = u, m[4] = u * v, m[5] = u * w;
}

/* p . m in 64-bit arithmetic: the caller has bounded |coefficients| * (sum of m). */
static inline int64_t vx_poly_dot(const vx_poly *p, const int64_t m[6])
{
    return p->a0 * m[0] + p->a1 * m[1] + p->a2 * m[2] + p->e0 * m[3] + p->e1 * m[4] + p->e2 * m[5];
}

/* Whether the polynomial with coefficients co (a0, a1, a2, e0, e1, e2),
 * less `slack`, is >= 0 (> 0 when `strict`) at every size of the class: the
 * coefficients other than the constant are non-negative in the Newton basis
 * (1, v, v(v-1)/2, ...) or in the plain one (1, v, v^2, ...). Sufficient, not
 * necessary. */
int vx_poly_nonneg(const __int128 co[6], __int128 slack, const vx_pclass *cl, int strict) VX_HIDDEN;

#endif
