/* The memo slot (memo.h): one atomic pointer, filled by compare-and-swap. */
#include "common/memo.h"

const vx_memo_obj vx_memo_off_ = {NULL};

void vx_memo_init(vx_memo *m)
{
    atomic_init(&m->obj, NULL);
}

void vx_memo_clear(vx_memo *m)
{
    vx_memo_obj *o = atomic_load_explicit(&m->obj, memory_order_acquire);
    if (!o || o == VX_MEMO_OFF) return;
    atomic_store_explicit(&m->obj, NULL, memory_order_release);
    o->destroy(o);
}

vx_memo_obj *vx_memo_fill(const vx_memo *cm, vx_memo_obj *(*make)(void))
{
    /* The handle is const to its reader; the slot is the cache beside its
     * value (handles are heap objects, never defined const). */
    vx_memo *m = (vx_memo *)(uintptr_t)cm;
    vx_memo_obj *o = atomic_load_explicit(&m->obj, memory_order_acquire);
    if (o) return o == VX_MEMO_OFF ? NULL : o;
    vx_memo_obj *mine = make();
    if (!mine) return NULL;
    vx_memo_obj *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&m->obj, &expected, mine, memory_order_acq_rel,
                                                memory_order_acquire))
        return mine;
    mine->destroy(mine); /* another thread filled it first */
    return expected == VX_MEMO_OFF ? NULL : expected;
}

vx_memo_obj *vx_memo_swap(vx_memo *m, vx_memo_obj *o)
{
    return atomic_exchange_explicit(&m->obj, o, memory_order_acq_rel);
}
