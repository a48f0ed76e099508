/* Stable names of categories, devices, values, phases and provenances: the
 * JSON plan, the CLI and the Python binding all use these. Append-only. */
#include "result/names.h"

#define NAME(n) #n
const char *const vx_category_names[VX_NCAT] = {VX_CATEGORY_LIST(NAME, VX_COMMA)};
_Static_assert(sizeof vx_category_names / sizeof vx_category_names[0] == VX_NCAT, "VX_CATEGORY_LIST has VX_NCAT names");
const char *const vx_device_names[VX_NDEV] = {"gpu", "host", "nvme"};
const char *const vx_value_names[VX_NVAL] = {
    "params_total", "params_trainable", "peak_allocated", "peak_reserved", "device_total", "device_capacity",
    "fits", "checkpoint_bytes", "peak_phase", "host_total", "nvme_total", "params_active",
    "kv_pool_bytes", "kv_blocks", "max_tokens", "load_peak", "verdict", "headroom", "state_per_seq",
    "max_concurrency", "cuda_graph_bytes", "non_torch_bytes", "gpu_layers", "gpu_layers_fit",
};
const char *const vx_verdict_names[3] = {"does_not_fit", "fits_low_end", "fits"};
const char *const vx_phase_names[VX_NPHASE] = {"load", "forward", "backward", "optimizer", "prefill", "decode"};
const char *const vx_provenance_names[VX_NPROV] = {VX_PROV_NONE_NAME, "exact-from-file",    "exact-from-architecture",
                                                    "formula", "empirical-constant", "approximate"};

VRAMEST_API uint32_t vramest_category_count(void)
{
    return VX_NCAT;
}

VRAMEST_API const char *vramest_category_name(vramest_category cat)
{
    return (unsigned)cat < VX_NCAT ? vx_category_names[cat] : NULL;
}

VRAMEST_API const char *vramest_device_name(vramest_device dev)
{
    return (unsigned)dev < VX_NDEV ? vx_device_names[dev] : NULL;
}

VRAMEST_API const char *vramest_value_name(vramest_value key)
{
    return (unsigned)key < VX_NVAL ? vx_value_names[key] : NULL;
}

VRAMEST_API const char *vramest_phase_name(vramest_phase phase)
{
    return (unsigned)phase < VX_NPHASE ? vx_phase_names[phase] : NULL;
}

VRAMEST_API const char *vramest_provenance_name(vramest_provenance prov)
{
    return (unsigned)prov < VX_NPROV ? vx_provenance_names[prov] : NULL;
}
