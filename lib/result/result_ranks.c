/* Per-rank-group getters (issue #7): the breakdown of each distinct group of
 * GPUs a multi-GPU estimate found (pipeline stages, device_map GPUs). The
 * groups are filled by vx_for_each_rank_group(); the result only reads. */
#include "result/result.h"

static int check_group(const vramest_result *r, uint32_t index, const char *fn)
{
    if (!r || r->magic != VX_MAGIC_RESULT)
        return vx_fail(VRAMEST_E_INVALID_ARG, "%s: result is NULL or not a vramest_result handle", fn);
    if (index >= r->n_ranks)
        return vx_fail(VRAMEST_E_RANGE, "%s: rank group %u out of range (the result has %u)", fn, index, r->n_ranks);
    return VRAMEST_OK;
}

VRAMEST_API uint32_t vramest_result_rank_count(const vramest_result *res)
{
    return res && res->magic == VX_MAGIC_RESULT ? res->n_ranks : 0;
}

VRAMEST_API int vramest_result_rank_get(const vramest_result *res, uint32_t index, int category, uint64_t *out_bytes)
{
    if (!out_bytes) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_result_rank_get: out_bytes is NULL");
    int rc = check_group(res, index, "vramest_result_rank_get");
    if (rc) return rc;
    const vx_rank_group *g = &res->ranks[index];
    if (category >= 0 && category < VX_NCAT) {
        *out_bytes = g->cat[category];
        return VRAMEST_OK;
    }
    switch (category) {
    case VRAMEST_RANK_VALUE(VRAMEST_VAL_PEAK_ALLOCATED): *out_bytes = g->peak_allocated; return VRAMEST_OK;
    case VRAMEST_RANK_VALUE(VRAMEST_VAL_PEAK_RESERVED): *out_bytes = g->peak_reserved; return VRAMEST_OK;
    case VRAMEST_RANK_VALUE(VRAMEST_VAL_DEVICE_TOTAL): *out_bytes = g->device_total; return VRAMEST_OK;
    case VRAMEST_RANK_COUNT: *out_bytes = (uint64_t)g->ranks; return VRAMEST_OK;
    default:
        return vx_fail(VRAMEST_E_UNKNOWN_CATEGORY,
                       "vramest_result_rank_get: %d is neither a category (0-%d) nor VRAMEST_RANK_VALUE(peak_allocated, "
                       "peak_reserved, device_total) nor VRAMEST_RANK_COUNT",
                       category, VX_NCAT - 1);
    }
}

VRAMEST_API const char *vramest_result_rank_label(const vramest_result *res, uint32_t index)
{
    if (!res || res->magic != VX_MAGIC_RESULT || index >= res->n_ranks) return NULL;
    return res->ranks[index].label;
}
