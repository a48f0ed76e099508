/* The layout of a compiled program (progcache.c writes it; stepcache.c
 * reads its rows to compile whole steps). */
#ifndef VX_CPROG_H
#define VX_CPROG_H

#include "estimate/cache/poly.h"
#include "estimate/graph/program.h"

#define VX_PC_SLOTS 128 /* distinct byte polynomials of one program */

/* The kinds of peak candidates: forward, forward under checkpointing,
 * backward keeping new gradients, backward summing into existing ones. */
enum { PK_F = 0, PK_FN, PK_BK, PK_BA, PK_N };

/* n x slot's bytes, added to category `cat` of row `owner` (a candidate,
 * the saved set or the kept gradients). Terms are stored row by row. */
typedef struct vx_term {
    uint8_t cat, slot;
    int16_t n;
    uint16_t owner;
} vx_term;

/* A compiled program: byte polynomials (slots, each rounded up with
 * `rmask` when evaluated) and the terms that add them up into rows (peak
 * candidates, the saved set, the kept gradients). */
typedef struct vx_cprog {
    int64_t cmax;         /* the largest |coefficient| of any slot (overflow bound) */
    vx_pclass cl;         /* the size class it was compiled for */
    uint8_t held_is_bytes;
    uint8_t ycat;
    uint16_t nslot, nterm;
    int16_t xslot, yslot, hslot; /* -1: zero */
    uint64_t held_flag;
    uint64_t rmask;
    uint16_t ncand[PK_N];
    uint16_t nowner;            /* rows: the candidates kind by kind, then saved, then wkept */
    uint16_t cand_owner[PK_N];  /* the first row of each kind */
    vx_poly slot[VX_PC_SLOTS];
    vx_term term[]; /* nterm */
} vx_cprog;

#endif
