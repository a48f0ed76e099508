/* The caching allocator's reserve in a training step: reserved - allocated
 * (research note §1). Placeholder model, calibrated in allocator notes of
 * docs/methodology.md. */
#include "estimate/train.h"

void vx_alloc_reserve(const vx_alloc_in *in, uint64_t *bytes, uint64_t *low, uint64_t *high)
{
    if (in->cpu) {
        *bytes = *low = *high = 0;
        return;
    }
    /* The large pool keeps freed blocks of the step's big transients
     * (logits-sized) that later, differently sized requests cannot reuse. */
    uint64_t frag = in->largest_act;
    uint64_t p = in->peak_alloc / 20;
    *bytes = vx_sat_add(frag, p);
    *low = p;
    *high = vx_sat_add(vx_sat_mul(frag, 3), in->peak_alloc / 5);
}
