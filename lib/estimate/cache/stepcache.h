/* Compiled training steps (issue #8: an estimate well under 1 µs).
 *
 * With the programs compiled (progcache.h), what is left of a training
 * estimate is composing the step (step.c) and evaluating the programs'
 * polynomials. Both go away for a rank whose step is compiled:
 *
 *   - compose() is linear in its values (step.h), so probing it with unit
 *     values gives, for every point of the step and every category, the
 *     coefficient of every value;
 *   - every value is itself a sum of byte polynomials: a compiled program's
 *     rows (one row per peak candidate), or a leaf fitted on the probe sizes
 *     (static terms are constants, the causal mask or the MoE buffers are
 *     polynomials, the token tensors are rounded ones);
 *   - a point that reads a program's peak has one form per candidate of
 *     that peak; the point's value is the largest, as the program's own
 *     first-largest pick makes it. So the step is a list of candidates,
 *     grouped by point, each a polynomial per category in (b, s) on one
 *     size class; polynomials that are always multiples of the allocator's
 *     512 B are summed into one, the others stay rounded terms.
 *
 * Evaluating one is a dot product per candidate total (the first largest
 * is the peak; each point's largest is its timeline value) and one per
 * category of the winner. A compiled step must reproduce the composition
 * of the programs' results at every probe size (else that class keeps
 * composing). Compiled steps hang off the cached static terms of their rank
 * (progcache.c), one per size class, at most VX_STEP_SLOTS. */
#ifndef VX_STEPCACHE_H
#define VX_STEPCACHE_H

#include <pthread.h>
#include <stdatomic.h>

#include "estimate/cache/poly.h"
#include "estimate/step/step.h"

struct vx_cprog;
struct vx_pcache;
typedef struct vx_cstep vx_cstep;

#define VX_STEP_SLOTS 8

typedef struct vx_stepslot {
    vx_pclass cl;
    vx_cstep *cs; /* NULL: this class does not compile (it keeps composing) */
} vx_stepslot;

/* The compiled steps of one cached static entry: appended under `mu` (the
 * cache's mutex, set when the entry is made), read without a lock (the
 * count is published last). */
typedef struct vx_stepslots {
    _Atomic uint32_t n;
    pthread_mutex_t *mu;
    vx_stepslot e[VX_STEP_SLOTS];
} vx_stepslots;

void vx_stepslots_free(vx_stepslots *ss) VX_HIDDEN;

/* The slot of a size class, or NULL when the class has none yet. */
const vx_stepslot *vx_step_find(vx_stepslots *ss, const vx_pclass *cl) VX_HIDDEN;

/* The step at (b, s) (the rank's sizes) from its compiled form; 0 when the
 * size is outside what the form was checked for (compose then). */
int vx_cstep_eval(const vx_cstep *cs, uint64_t b, uint64_t s, vx_step_out *out) VX_HIDDEN;

/* Compile the rank's step for the class of `c` and add it to `ss` (as NULL
 * when it does not compile). `sp` is the step's shape at c's sizes and
 * `used` the compiled programs it read (all must be compiled); `src` gives
 * the programs' results at the probe sizes. Takes ss->mu; never changes
 * the caller's error state. */
void vx_step_compile(vx_stepslots *ss, const vx_prog_source *src, const vx_ctx *x, const vx_shard *sh,
                     const vx_train_model *tm, const vx_act_cfg *c, const vx_step_shape *sp,
                     const struct vx_cprog *const used[VX_SP_N]) VX_HIDDEN;

/* Compiled steps of a cache (tests, docs/performance.md). */
void vx_stepslots_stats(const vx_stepslots *ss, unsigned *slots, unsigned *compiled) VX_HIDDEN;

#endif
