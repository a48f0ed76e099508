/* A memo slot: a handle keeps, for a floor above it, what that floor worked
 * out from the handle and may reuse. The handle knows nothing of the
 * content (docs/architecture.md says who fills it): an object that starts
 * with a vx_memo_obj header naming its destructor. The slot is filled once,
 * by whichever thread first asks, and emptied whenever the handle changes.
 *
 * Thread-safety: vx_memo_get may run on many threads at once (estimates on
 * a shared model); vx_memo_init / clear / swap may not run beside it (they
 * go with mutations of the handle, which the API already forbids during
 * estimates). */
#ifndef VX_MEMO_H
#define VX_MEMO_H

#include <stdatomic.h>

#include "common/internal.h"

typedef struct vx_memo_obj {
    void (*destroy)(struct vx_memo_obj *self);
} vx_memo_obj;

typedef struct vx_memo {
    _Atomic(vx_memo_obj *) obj; /* NULL: empty; &vx_memo_off_: off */
} vx_memo;

/* The content of a switched-off slot: vx_memo_get answers NULL (its caller
 * computes afresh), and never fills it. */
extern const vx_memo_obj vx_memo_off_ VX_HIDDEN;
#define VX_MEMO_OFF ((vx_memo_obj *)(uintptr_t)&vx_memo_off_)

void vx_memo_init(vx_memo *m) VX_HIDDEN;
/* Destroy the content; the slot is empty again (an off slot stays off). */
void vx_memo_clear(vx_memo *m) VX_HIDDEN;
/* The content, made by `make` when the slot is empty (one thread's object
 * wins; the others' are destroyed). NULL when the slot is off or `make`
 * failed: the caller then computes without a memo. The slot is logically
 * part of the handle's cache, not of its value, so a const handle fills it.
 * vx_memo_fill is the slow path of vx_memo_get. */
vx_memo_obj *vx_memo_fill(const vx_memo *m, vx_memo_obj *(*make)(void)) VX_HIDDEN;
static inline vx_memo_obj *vx_memo_get(const vx_memo *m, vx_memo_obj *(*make)(void))
{
    /* A filled slot is one load: estimates ask on every call. */
    vx_memo_obj *o = atomic_load_explicit(&((vx_memo *)(uintptr_t)m)->obj, memory_order_acquire);
    return o && o != VX_MEMO_OFF ? o : vx_memo_fill(m, make);
}
/* Put `o` in the slot (VX_MEMO_OFF switches it off) and return what was
 * there, undestroyed: tests compare estimates with and without a memo. */
vx_memo_obj *vx_memo_swap(vx_memo *m, vx_memo_obj *o) VX_HIDDEN;

#endif
