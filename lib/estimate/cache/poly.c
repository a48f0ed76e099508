/* Polynomials of the compiled programs and steps (see poly.h). */
#include "estimate/cache/poly.h"

void vx_pclass_of(uint64_t b, uint64_t s, vx_pclass *cl)
{
    cl->bfix = b == 1;
    cl->sfix = s == 1;
    int64_t sres = (int64_t)(s % VX_PC_SMOD);
    cl->s0 = cl->sfix ? 1 : (sres >= 2 ? sres : sres + VX_PC_SMOD);
}

int vx_pclass_uv(const vx_pclass *cl, uint64_t b, uint64_t s, int64_t *u, int64_t *v)
{
    if (b > ((uint64_t)1 << 40) || s > ((uint64_t)1 << 40)) return 0;
    int64_t uu = cl->bfix ? 0 : (int64_t)b - 2, ds = cl->sfix ? 0 : (int64_t)s - cl->s0;
    if (uu < 0 || ds < 0 || ds % VX_PC_SMOD) return 0;
    *u = uu;
    *v = ds / VX_PC_SMOD; /* < 2^33: w fits */
    return 1;
}

/* Checks beyond the grid: far and odd sizes, so a size-dependent branch (a
 * broadcast that flips, a max of two shapes) shows up; the caller's own
 * size is the last one. */
static const int64_t chk_b[] = {5, 3, 1000, 2, 37};
static const int64_t chk_s[] = {9, 31, 3, 511, 4}; /* multiples of VX_PC_SMOD above s0 */

void vx_probe_size(const vx_pclass *cl, int i, uint64_t b, uint64_t s, int64_t *pb, int64_t *ps)
{
    int64_t bb, ss;
    if (i < VX_PROBE_GRID) {
        bb = 2 + i / 3;
        ss = cl->s0 + VX_PC_SMOD * (i % 3);
    } else if (i < VX_PROBE_N - 1) {
        bb = chk_b[i - VX_PROBE_GRID];
        ss = cl->s0 + VX_PC_SMOD * chk_s[i - VX_PROBE_GRID];
    } else {
        bb = (int64_t)b;
        ss = (int64_t)s;
    }
    *pb = cl->bfix ? 1 : bb;
    *ps = cl->sfix ? 1 : ss;
}

void vx_poly_fit(const int64_t q[VX_PROBE_GRID], vx_poly *p)
{
    p->a0 = q[0];
    p->a1 = q[1] - q[0];
    p->a2 = q[2] - 2 * q[1] + q[0];
    p->e0 = q[3] - q[0];
    p->e1 = (q[4] - q[3]) - p->a1;
    p->e2 = (q[5] - 2 * q[4] + q[3]) - p->a2;
}

int vx_poly_eval(const vx_poly *p, int64_t u, int64_t v, uint64_t *out)
{
    __int128 w = (__int128)v * (v - 1) / 2;
    __int128 r = (__int128)p->a0 + (__int128)p->a1 * v + (__int128)p->a2 * w +
                 (__int128)u * ((__int128)p->e0 + (__int128)p->e1 * v + (__int128)p->e2 * w);
    if (r < 0 || r >= VX_PC_LIMIT) return 0;
    *out = (uint64_t)r;
    return 1;
}

int vx_poly_nonneg(const __int128 co[6], __int128 slack, const vx_pclass *cl, int strict)
{
    __int128 A0 = co[0], A1 = co[1], A2 = co[2], E0 = co[3], E1 = co[4], E2 = co[5];
    if (cl->sfix) A1 = A2 = E1 = E2 = 0;
    if (cl->bfix) E0 = E1 = E2 = 0;
    int newton = A1 >= 0 && A2 >= 0 && E0 >= 0 && E1 >= 0 && E2 >= 0;
    int plain = 2 * A1 - A2 >= 0 && A2 >= 0 && E0 >= 0 && 2 * E1 - E2 >= 0 && E2 >= 0;
    if (!newton && !plain) return 0;
    return strict ? A0 - slack > 0 : A0 - slack >= 0;
}
