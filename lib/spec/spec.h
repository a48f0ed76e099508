/* Job specs (design.md §6): one JSON document read into the three input
 * handles, plus the question a spec may ask ("solve"), which the handles
 * cannot hold and vramest_spec_plan() answers. */
#ifndef VX_SPEC_H
#define VX_SPEC_H

#include "common/internal.h"

enum { VX_SOLVE_NONE = 0, VX_SOLVE_MAX = 1, VX_SOLVE_ADVICE = 2 };

typedef struct vx_spec_solve {
    int kind;           /* VX_SOLVE_* */
    vramest_option key; /* VX_SOLVE_MAX: the option searched (largest that fits; gpus: smallest) */
    const char *name;   /* its spec name (static), for messages and the plan */
} vx_spec_solve;

/* vramest_spec_parse() that also returns the "solve" question (NONE when the
 * spec asks none). On failure every output is NULL / NONE. */
int vx_spec_read(const char *json, size_t len, vramest_model **out_model, vramest_precision **out_prec,
                 vramest_config **out_cfg, vx_spec_solve *out_solve) VX_HIDDEN;

#endif
